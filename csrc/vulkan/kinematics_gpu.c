// SPDX-License-Identifier: Apache-2.0
// The phases on the GPU (kinematics, forward, step): upload, dispatch, wait, read back.
//
// Buffer layout (one host-visible buffer per call; docs/gpu_executor.md), the C twin of the
// generated shaders/layout.glsl, computed from the same X-macro tables:
//   [0, 64)       PxParams: model address, data address, nworld, time, flag and tsave addresses
//   modelBlock    PxModel (std430): PX_MODEL_SIZES ints, pxOption fields (reals as the shader's
//                 real type, in struct order), then one 8-byte address per PX_MODEL_FIELDS array
//   dataBlock     PxData: one 8-byte address per PX_DATA_FIELDS array
//   arrays        every model array, then every data array as an (nworld x nrow*ncol) block,
//                 then the (nworld) times, int step flags and RK4 start times, each 64-byte
//                 aligned;
//                 reals as double (fp64) or float (fp32), uint8/bool/char widened to int
// The push constant (16 bytes) holds the parameter block address, the dispatch's first world and
// the entry point's mode. One workgroup runs one world with `lanes` invocations; worlds beyond
// the device's workgroup count limit go to further dispatches in the same command buffer. A
// phase is a sequence of entry points (the step: check, forward, check, forward on the reset
// worlds, integrate; nstep times) recorded in one command buffer with a compute-to-compute
// memory barrier after each.
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "px/pxvulkan.h"
#include "vulkan/internal.h"

//---------------------------------- embedded SPIR-V -----------------------------------------------

// clang-format off
static const uint32_t spvKinematicsF64[] =
#include "spirv/kinematics_f64.inc"
;
static const uint32_t spvKinematicsF32[] =
#include "spirv/kinematics_f32.inc"
;
static const uint32_t spvForwardF64[] =
#include "spirv/forward_f64.inc"
;
static const uint32_t spvForwardF32[] =
#include "spirv/forward_f32.inc"
;
static const uint32_t spvCheckF64[] =
#include "spirv/check_f64.inc"
;
static const uint32_t spvCheckF32[] =
#include "spirv/check_f32.inc"
;
static const uint32_t spvIntegrateF64[] =
#include "spirv/integrate_f64.inc"
;
static const uint32_t spvIntegrateF32[] =
#include "spirv/integrate_f32.inc"
;
static const uint32_t spvRk4F64[] =
#include "spirv/rk4_f64.inc"
;
static const uint32_t spvRk4F32[] =
#include "spirv/rk4_f32.inc"
;
// clang-format on

// the SPIR-V of each entry point, [phase][fp64]
static const struct {
  const uint32_t* code;
  size_t nbytes;
} spirv[PXV_NPHASE][2] = {
    {{spvKinematicsF32, sizeof(spvKinematicsF32)}, {spvKinematicsF64, sizeof(spvKinematicsF64)}},
    {{spvForwardF32, sizeof(spvForwardF32)}, {spvForwardF64, sizeof(spvForwardF64)}},
    {{spvCheckF32, sizeof(spvCheckF32)}, {spvCheckF64, sizeof(spvCheckF64)}},
    {{spvIntegrateF32, sizeof(spvIntegrateF32)}, {spvIntegrateF64, sizeof(spvIntegrateF64)}},
    {{spvRk4F32, sizeof(spvRk4F32)}, {spvRk4F64, sizeof(spvRk4F64)}},
};

//---------------------------------- layout --------------------------------------------------------

// element kinds of X-macro types, and their bytes on the GPU
// clang-format off
enum { KIND_REAL = 0, KIND_INT, KIND_FLOAT, KIND_BYTE, KIND_CHAR };
#define KIND(type) _Generic((type)0, double: KIND_REAL, int: KIND_INT, float: KIND_FLOAT, \
                            unsigned char: KIND_BYTE, char: KIND_CHAR)

// indices of the X-macro entries
enum {
#define X(type, name, nrow, ncol) MODEL_##name,
  PX_MODEL_FIELDS(X)
#undef X
  NMODELFIELD
};
enum {
#define X(type, name, nrow, ncol) DATA_##name,
  PX_DATA_FIELDS(X)
#undef X
  NDATAFIELD
};
enum {
#define X(name) SIZE_##name,
  PX_MODEL_SIZES(X)
#undef X
  NSIZE
};
// clang-format on

// pxOption in struct order: the opt_<name> members of PxModel (gen_layout.py parses the struct)
typedef struct {
  size_t offset;  // in pxOption
  size_t count;   // elements
  int real;       // pxtNum (else int)
} optionField;

#define OPT_R(f) \
  { offsetof(pxOption, f), sizeof(((pxOption*)0)->f) / sizeof(pxtNum), 1 }
#define OPT_I(f) \
  { offsetof(pxOption, f), 1, 0 }
static const optionField optionFields[] = {
    OPT_R(timestep),
    OPT_R(impratio),
    OPT_R(tolerance),
    OPT_R(ls_tolerance),
    OPT_R(noslip_tolerance),
    OPT_R(ccd_tolerance),
    OPT_R(sleep_tolerance),
    OPT_R(gravity),
    OPT_R(wind),
    OPT_R(magnetic),
    OPT_R(density),
    OPT_R(viscosity),
    OPT_R(o_margin),
    OPT_R(o_solref),
    OPT_R(o_solimp),
    OPT_R(o_friction),
    OPT_I(integrator),
    OPT_I(cone),
    OPT_I(jacobian),
    OPT_I(solver),
    OPT_I(iterations),
    OPT_I(ls_iterations),
    OPT_I(noslip_iterations),
    OPT_I(ccd_iterations),
    OPT_I(disableflags),
    OPT_I(enableflags),
    OPT_I(disableactuator),
    OPT_I(sdf_initpoints),
    OPT_I(sdf_iterations),
};
#define NOPTION ((int)(sizeof(optionFields) / sizeof(optionFields[0])))

// A new pxOption field must be added here, in struct order: scripts/gen_layout.py (run by the
// build and by `make shaders-check`) fails when this list and the struct differ, and
// pxv_kinematics checks at run time that the list tiles the struct without gaps.

// one X-macro array: host pointer, elements (all worlds for data), element kind
typedef struct {
  void* host;
  size_t n;
  int kind;
} fieldRef;

// the model arrays and the data arrays of w, in X-macro order
static void describe(const pxModel* m, const pxWorlds* w, fieldRef* mf, fieldRef* df) {
  int i = 0;
#define X(type, name, nrow, ncol) \
  mf[i++] = (fieldRef){(void*)m->name, (size_t)m->nrow * (size_t)(ncol), KIND(type)};
  PX_MODEL_FIELDS(X)
#undef X
  i = 0;
#define X(type, name, nrow, ncol)                                                            \
  df[i++] = (fieldRef){(void*)w->name, (size_t)w->nworld * (size_t)m->nrow * (size_t)(ncol), \
                       KIND(type)};
  PX_DATA_FIELDS(X)
#undef X
}

// offsets of one upload
typedef struct {
  size_t modelBlock;          // PxModel
  size_t options;             // first option, inside PxModel
  size_t modelRefs;           // first array address, inside PxModel
  size_t dataBlock;           // PxData
  size_t model[NMODELFIELD];  // model arrays
  size_t data[NDATAFIELD];    // data arrays
  size_t time;                // the (nworld) times
  size_t flag;                // the (nworld) step flags
  size_t tsave;               // the (nworld) RK4 start times
  size_t total;               // bytes
  int rb;                     // bytes of a real on the GPU
} layout;

static size_t alignTo(size_t n, size_t a) {
  return (n + a - 1) / a * a;
}

static size_t kindBytes(int kind, int rb) {
  return kind == KIND_REAL ? (size_t)rb : 4;
}

// check that optionFields tiles pxOption without gaps
static int optionTableOk(void) {
  size_t end = 0;
  for (int i = 0; i < NOPTION; i++) {
    const optionField* o = optionFields + i;
    if (o->offset != end) return 0;
    end += o->count * (o->real ? sizeof(pxtNum) : sizeof(int));
  }
  return alignTo(end, _Alignof(pxOption)) == sizeof(pxOption);
}

static void computeLayout(const fieldRef* mf, const fieldRef* df, int nworld, int rb, layout* L) {
  size_t off = 64;  // PxParams

  // PxModel: sizes, options (std430: reals aligned to their size), array addresses
  L->modelBlock = off;
  size_t b = (size_t)NSIZE * 4;
  L->options = b;
  for (int i = 0; i < NOPTION; i++) {
    size_t eb = optionFields[i].real ? (size_t)rb : 4;
    b = alignTo(b, eb) + eb * optionFields[i].count;
  }
  L->modelRefs = alignTo(b, 8);
  b = L->modelRefs + 8 * (size_t)NMODELFIELD;
  off = alignTo(off + b, 64);

  // PxData: array addresses
  L->dataBlock = off;
  off = alignTo(off + 8 * (size_t)NDATAFIELD, 64);

  // arrays, 64-byte aligned
  for (int i = 0; i < NMODELFIELD; i++) {
    L->model[i] = off;
    off = alignTo(off + mf[i].n * kindBytes(mf[i].kind, rb), 64);
  }
  for (int i = 0; i < NDATAFIELD; i++) {
    L->data[i] = off;
    off = alignTo(off + df[i].n * kindBytes(df[i].kind, rb), 64);
  }
  L->time = off;
  off = alignTo(off + (size_t)nworld * (size_t)rb, 64);
  L->flag = off;
  off = alignTo(off + (size_t)nworld * 4, 64);
  L->tsave = off;
  off = alignTo(off + (size_t)nworld * (size_t)rb, 64);
  L->total = off + 64;  // zero-length arrays at the end still point inside the buffer
  L->rb = rb;
}

//---------------------------------- conversion ----------------------------------------------------

// host array -> GPU array of its kind
static void putArray(char* dst, const void* src, size_t n, int kind, int rb) {
  if (!n) return;
  if (kind == KIND_REAL && rb == 4) {
    for (size_t i = 0; i < n; i++) ((float*)(void*)dst)[i] = (float)((const double*)src)[i];
  } else if (kind == KIND_BYTE) {
    for (size_t i = 0; i < n; i++) ((int*)(void*)dst)[i] = ((const unsigned char*)src)[i];
  } else if (kind == KIND_CHAR) {
    for (size_t i = 0; i < n; i++) ((int*)(void*)dst)[i] = ((const char*)src)[i];
  } else {
    memcpy(dst, src, n * kindBytes(kind, rb));
  }
}

// GPU array -> host array; fp32 reals the GPU left equal to the uploaded value keep the host's
// double, so inputs survive an fp32 round trip unchanged
static void getArray(void* dst, const char* src, size_t n, int kind, int rb) {
  if (!n) return;
  if (kind == KIND_REAL && rb == 4) {
    double* d = (double*)dst;
    const float* s = (const float*)(const void*)src;
    for (size_t i = 0; i < n; i++) {
      if ((float)d[i] != s[i] || isnan(s[i])) d[i] = (double)s[i];
    }
  } else if (kind == KIND_BYTE) {
    for (size_t i = 0; i < n; i++) {
      ((unsigned char*)dst)[i] = (unsigned char)((const int*)(const void*)src)[i];
    }
  } else if (kind == KIND_CHAR) {
    for (size_t i = 0; i < n; i++) ((char*)dst)[i] = (char)((const int*)(const void*)src)[i];
  } else {
    memcpy(dst, src, n * kindBytes(kind, rb));
  }
}

// parameter block, model block, data block and every array
static void upload(const pxModel* m, const pxWorlds* w, const fieldRef* mf, const fieldRef* df,
                   const layout* L, const pxvBuffer* buf) {
  char* base = (char*)buf->map;
  uint64_t a = (uint64_t)buf->address;
  int rb = L->rb;

  // PxParams (std430): model, data, nworld, time, flag, tsave
  uint64_t refs[2] = {a + L->modelBlock, a + L->dataBlock};
  int32_t nworld = w->nworld;
  uint64_t blocks[3] = {a + L->time, a + L->flag, a + L->tsave};
  memcpy(base, refs, sizeof(refs));
  memcpy(base + 16, &nworld, sizeof(nworld));
  memcpy(base + 24, blocks, sizeof(blocks));
  putArray(base + L->time, w->time, (size_t)w->nworld, KIND_REAL, rb);
  memset(base + L->flag, 0, (size_t)w->nworld * 4);
  memset(base + L->tsave, 0, (size_t)w->nworld * (size_t)rb);

  // PxModel: sizes
  char* mb = base + L->modelBlock;
#define X(name) memcpy(mb + 4 * (size_t)SIZE_##name, &m->name, 4);
  PX_MODEL_SIZES(X)
#undef X

  // PxModel: options
  size_t b = L->options;
  for (int i = 0; i < NOPTION; i++) {
    const optionField* o = optionFields + i;
    size_t eb = o->real ? (size_t)rb : 4;
    b = alignTo(b, eb);
    putArray(mb + b, (const char*)&m->opt + o->offset, o->count, o->real ? KIND_REAL : KIND_INT,
             rb);
    b += eb * o->count;
  }

  // PxModel: array addresses, and the arrays
  for (int i = 0; i < NMODELFIELD; i++) {
    uint64_t r = a + L->model[i];
    memcpy(mb + L->modelRefs + 8 * (size_t)i, &r, 8);
    putArray(base + L->model[i], mf[i].host, mf[i].n, mf[i].kind, rb);
  }

  // PxData: array addresses, and every world's arrays
  for (int i = 0; i < NDATAFIELD; i++) {
    uint64_t r = a + L->data[i];
    memcpy(base + L->dataBlock + 8 * (size_t)i, &r, 8);
    putArray(base + L->data[i], df[i].host, df[i].n, df[i].kind, rb);
  }
}

// every data array and the times back into the worlds
static void download(pxWorlds* w, const fieldRef* df, const layout* L, const pxvBuffer* buf) {
  for (int i = 0; i < NDATAFIELD; i++) {
    getArray(df[i].host, (const char*)buf->map + L->data[i], df[i].n, df[i].kind, L->rb);
  }
  getArray(w->time, (const char*)buf->map + L->time, (size_t)w->nworld, KIND_REAL, L->rb);
}

//---------------------------------- execution -----------------------------------------------------

// the cached pipeline for (phase, precision, lanes), built on first use
static pxtStatus phasePipeline(pxvContext* ctx, int phase, int fp64, int lanes, pxvPipeline** out,
                               pxStatus* st) {
  int li = 0;
  while ((1 << li) < lanes) li++;
  if ((1 << li) != lanes || li >= PXV_NLANES) {
    return PX_FAIL(st, PX_ERR_ARG, "lanes must be 1, 2, 4, 8, 16 or 32, got %d", lanes);
  }
  pxvPipeline** slot = &ctx->pipelines[phase][fp64][li];
  if (!*slot) {
    double t0 = pxv_now();
    if (pxv_pipelineCreate(ctx, spirv[phase][fp64].code, spirv[phase][fp64].nbytes, lanes, slot,
                           st)) {
      return st->code;
    }
    ctx->timing.pipeline = pxv_now() - t0;
  }
  *out = *slot;
  return PX_OK;
}

// steps of one pxv_step call: each is 5 (RK4: 11) recorded dispatches per chunk of worlds
#define PXV_MAX_NSTEP 100000

// one dispatch of a phase's sequence: entry point and mode
typedef struct {
  int phase;
  int mode;
} dispatchOp;

// the fence wait, in seconds: PX_VULKAN_TIMEOUT_S, else 600 (lavapipe compiles a pipeline with
// LLVM at its first dispatch, inside the wait: minutes for the forward phase on a busy CPU)
static uint64_t fenceTimeoutNs(void) {
  const char* knob = getenv("PX_VULKAN_TIMEOUT_S");
  double s = knob && atof(knob) > 0 ? atof(knob) : 600.0;
  return (uint64_t)(s * 1e9);
}

// record, submit and wait: the sequence ops[0..nop) `repeat` times, each op one workgroup per
// world (split into dispatches of at most maxComputeWorkGroupCount[0] groups) followed by a
// compute-to-compute memory barrier; then make the writes visible to the host
static pxtStatus execute(pxvContext* ctx, pxvPipeline* const* pipes, const dispatchOp* ops, int nop,
                         int repeat, const pxvBuffer* buf, int nworld, pxStatus* st) {
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  VkCommandBufferBeginInfo cbi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkMemoryBarrier toHost = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  VkMemoryBarrier between = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};

  cai.commandPool = ctx->commandPool;
  cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cai.commandBufferCount = 1;
  PXV_CHECK(st, ctx->vk.vkAllocateCommandBuffers(ctx->device, &cai, &cmd));
  cbi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  PXV_CHECK(st, ctx->vk.vkBeginCommandBuffer(cmd, &cbi));

  // host writes before the submit are visible to the device (vkQueueSubmit's implicit host
  // dependency); worlds are independent, so the dispatches of one op need no barrier between
  // them, but every op reads what the previous one wrote
  uint32_t maxGroups = ctx->properties.limits.maxComputeWorkGroupCount[0];
  const char* knob = getenv("PX_VULKAN_MAX_GROUPS");  // testing knob: split batches sooner
  if (knob && atoi(knob) > 0 && (uint32_t)atoi(knob) < maxGroups) maxGroups = (uint32_t)atoi(knob);
  between.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  between.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  const pxvPipeline* bound = NULL;
  for (int r = 0; r < repeat; r++) {
    for (int o = 0; o < nop; o++) {
      const pxvPipeline* p = pipes[ops[o].phase];
      if (p != bound) {
        ctx->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->pipeline);
        bound = p;
      }
      for (int w0 = 0; w0 < nworld; w0 += (int)maxGroups) {
        struct {
          uint64_t params;
          int32_t world0;
          int32_t mode;
        } push = {(uint64_t)buf->address, w0, ops[o].mode};
        uint32_t left = (uint32_t)(nworld - w0);
        uint32_t count = left < maxGroups ? left : maxGroups;
        ctx->vk.vkCmdPushConstants(cmd, p->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push),
                                   &push);
        ctx->vk.vkCmdDispatch(cmd, count, 1, 1);
      }
      if (r + 1 < repeat || o + 1 < nop) {
        ctx->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &between, 0, NULL,
                                     0, NULL);
      }
    }
  }

  // compute writes -> host reads after the fence
  toHost.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  toHost.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  ctx->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                               VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &toHost, 0, NULL, 0, NULL);
  PXV_CHECK(st, ctx->vk.vkEndCommandBuffer(cmd));

  PXV_CHECK(st, ctx->vk.vkCreateFence(ctx->device, &fci, NULL, &fence));
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cmd;
  PXV_CHECK(st, ctx->vk.vkQueueSubmit(ctx->queue, 1, &si, fence));
  PXV_CHECK(st, ctx->vk.vkWaitForFences(ctx->device, 1, &fence, VK_TRUE, fenceTimeoutNs()));
cleanup:
  if (st->code) ctx->vk.vkDeviceWaitIdle(ctx->device);
  if (fence) ctx->vk.vkDestroyFence(ctx->device, fence, NULL);
  if (cmd) ctx->vk.vkFreeCommandBuffers(ctx->device, ctx->commandPool, 1, &cmd);
  return st->code;
}

// argument checks at the API boundary
static pxtStatus checkArgs(const pxvContext* ctx, const pxModel* m, const pxWorlds* w,
                           int precision64, const char* fn, pxStatus* st) {
  if (!ctx || !m || !w) return PX_FAIL(st, PX_ERR_ARG, "%s: ctx, m and w are required", fn);
  if (w->model != m) return PX_FAIL(st, PX_ERR_ARG, "%s: w was made for another model", fn);
  if (w->nworld < 1) return PX_FAIL(st, PX_ERR_ARG, "%s: nworld is %d", fn, w->nworld);
  if (precision64 < -1 || precision64 > 1) {
    return PX_FAIL(st, PX_ERR_ARG, "precision64 must be -1 (auto), 0 (fp32) or 1 (fp64), got %d",
                   precision64);
  }
  if (precision64 == 1 && !ctx->float64) {
    return PX_FAIL(st, PX_ERR_UNSUPPORTED, "%s has no shaderFloat64; use precision64=0 (fp32)",
                   ctx->properties.deviceName);
  }
  if (!optionTableOk()) {
    return PX_FAIL(st, PX_ERR_INTERNAL, "GPU option table does not match pxOption");
  }

  // shaders index with 32-bit ints: every world-major block must stay below 2^31 elements
#define X(type, name, nrow, ncol)                                                             \
  if ((double)w->nworld * (double)m->nrow * (double)(ncol) >= 2147483648.0) {                 \
    return PX_FAIL(st, PX_ERR_UNSUPPORTED,                                                    \
                   "%d worlds of " #name " exceed 2^31 elements; use fewer worlds per batch", \
                   w->nworld);                                                                \
  }
  PX_DATA_FIELDS(X)
#undef X
  return PX_OK;
}

// a sequence of entry points over every world of w, `repeat` times: checks, pipelines,
// upload, dispatches, read-back
static pxtStatus runPhase(pxvContext* ctx, const pxModel* m, pxWorlds* w, int precision64,
                          int lanes, const dispatchOp* ops, int nop, int repeat, const char* fn,
                          pxStatus* st) {
  pxvBuffer buf;
  pxvPipeline* pipes[PXV_NPHASE] = {NULL};
  layout L;
  fieldRef mf[NMODELFIELD], df[NDATAFIELD];
  memset(&buf, 0, sizeof(buf));
  if (checkArgs(ctx, m, w, precision64, fn, st)) return st->code;
  int fp64 = precision64 == -1 ? ctx->float64 : precision64;
  memset(&ctx->timing, 0, sizeof(ctx->timing));
  for (int o = 0; o < nop; o++) {
    int ph = ops[o].phase;
    if (!pipes[ph] && phasePipeline(ctx, ph, fp64, lanes, &pipes[ph], st)) return st->code;
  }

  // upload
  double t0 = pxv_now();
  describe(m, w, mf, df);
  computeLayout(mf, df, w->nworld, fp64 ? 8 : 4, &L);
  if (pxv_bufferCreate(ctx, (VkDeviceSize)L.total, &buf, st)) {
    char why[sizeof(st->msg)];
    memcpy(why, st->msg, sizeof(why));
    return px_fail(st, st->code, st->func, st->line, "%.900s (a %zu-byte buffer for %d worlds)",
                   why, L.total, w->nworld);
  }
  upload(m, w, mf, df, &L, &buf);
  double t1 = pxv_now();

  // run, read back
  if (!execute(ctx, pipes, ops, nop, repeat, &buf, w->nworld, st)) {
    double t2 = pxv_now();
    download(w, df, &L, &buf);
    ctx->timing.download = pxv_now() - t2;
    ctx->timing.execute = t2 - t1;
  }
  ctx->timing.upload = t1 - t0;
  pxv_bufferDestroy(ctx, &buf);
  return st->code;
}

pxtStatus pxv_kinematicsLanes(pxvContext* ctx, const pxModel* m, pxWorlds* w, int precision64,
                              int lanes, pxStatus* st) {
  pxStatus local;
  if (!st) st = &local;
  px_statusClear(st);
  static const dispatchOp ops[1] = {{PXV_PHASE_KINEMATICS, 0}};
  return runPhase(ctx, m, w, precision64, lanes, ops, 1, 1, "pxv_kinematics", st);
}

pxtStatus pxv_kinematics(pxvContext* ctx, const pxModel* m, pxWorlds* w, int precision64,
                         pxStatus* st) {
  return pxv_kinematicsLanes(ctx, m, w, precision64, 1, st);
}

pxtStatus pxv_forward(pxvContext* ctx, const pxModel* m, pxWorlds* w, int precision64, int lanes,
                      pxStatus* st) {
  pxStatus local;
  if (!st) st = &local;
  px_statusClear(st);
  if (checkArgs(ctx, m, w, precision64, "pxv_forward", st) || px_forwardCheck(m, st)) {
    return st->code;
  }
  static const dispatchOp ops[1] = {{PXV_PHASE_FORWARD, 0}};
  return runPhase(ctx, m, w, precision64, lanes, ops, 1, 1, "pxv_forward", st);
}

pxtStatus pxv_step(pxvContext* ctx, const pxModel* m, pxWorlds* w, int precision64, int lanes,
                   int nstep, pxStatus* st) {
  pxStatus local;
  if (!st) st = &local;
  px_statusClear(st);
  if (nstep < 1 || nstep > PXV_MAX_NSTEP) {
    return PX_FAIL(st, PX_ERR_ARG, "pxv_step: nstep must be 1 to %d, got %d", PXV_MAX_NSTEP, nstep);
  }
  if (checkArgs(ctx, m, w, precision64, "pxv_step", st) || px_integratorCheck(m, st) ||
      px_forwardCheck(m, st)) {
    return st->code;
  }

  // px_step: bad positions or velocities reset the world; forward; a bad acceleration resets
  // the world and flags it; forward again on the flagged worlds; the integrator and the advance
  // (RK4: three more forward passes between its stages)
  static const dispatchOp ops[5] = {{PXV_PHASE_CHECK, 0},
                                    {PXV_PHASE_FORWARD, 0},
                                    {PXV_PHASE_CHECK, 1},
                                    {PXV_PHASE_FORWARD, 1},
                                    {PXV_PHASE_INTEGRATE, 0}};
  static const dispatchOp rk4[11] = {
      {PXV_PHASE_CHECK, 0}, {PXV_PHASE_FORWARD, 0}, {PXV_PHASE_CHECK, 1}, {PXV_PHASE_FORWARD, 1},
      {PXV_PHASE_RK4, 0},   {PXV_PHASE_FORWARD, 0}, {PXV_PHASE_RK4, 1},   {PXV_PHASE_FORWARD, 0},
      {PXV_PHASE_RK4, 2},   {PXV_PHASE_FORWARD, 0}, {PXV_PHASE_RK4, 3}};
  if (m->opt.integrator == PX_INT_RK4) {
    return runPhase(ctx, m, w, precision64, lanes, rk4, 11, nstep, "pxv_step", st);
  }
  return runPhase(ctx, m, w, precision64, lanes, ops, 5, nstep, "pxv_step", st);
}
