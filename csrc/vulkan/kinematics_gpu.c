// SPDX-License-Identifier: Apache-2.0
// The kinematics phase on the GPU: upload, dispatch, wait, read back.
//
// Buffer layout (one host-visible buffer per call; docs/gpu_executor.md), the C twin of the
// generated shaders/layout.glsl, computed from the same X-macro tables:
//   [0, 64)       PxParams: model address, data address, nworld
//   modelBlock    PxModel (std430): PX_MODEL_SIZES ints, pxOption fields (reals as the shader's
//                 real type, in struct order), then one 8-byte address per PX_MODEL_FIELDS array
//   dataBlock     PxData: one 8-byte address per PX_DATA_FIELDS array
//   arrays        every model array, then every data array as an (nworld x nrow*ncol) block,
//                 each 64-byte aligned; reals as double (fp64) or float (fp32), uint8/bool/char
//                 widened to int
// The push constant (16 bytes) holds the parameter block address and the dispatch's first world.
// One workgroup runs one world with `lanes` invocations; worlds beyond the device's workgroup
// count limit go to further dispatches in the same command buffer.
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
// clang-format on

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

static void computeLayout(const fieldRef* mf, const fieldRef* df, int rb, layout* L) {
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

  // PxParams
  uint64_t refs[2] = {a + L->modelBlock, a + L->dataBlock};
  int32_t nworld = w->nworld;
  memcpy(base, refs, sizeof(refs));
  memcpy(base + 16, &nworld, sizeof(nworld));

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

// every data array back into the worlds
static void download(const fieldRef* df, const layout* L, const pxvBuffer* buf) {
  for (int i = 0; i < NDATAFIELD; i++) {
    getArray(df[i].host, (const char*)buf->map + L->data[i], df[i].n, df[i].kind, L->rb);
  }
}

//---------------------------------- execution -----------------------------------------------------

// the cached pipeline for (precision, lanes), built on first use
static pxtStatus kinematicsPipeline(pxvContext* ctx, int fp64, int lanes, pxvPipeline** out,
                                    pxStatus* st) {
  int li = 0;
  while ((1 << li) < lanes) li++;
  if ((1 << li) != lanes || li >= PXV_NLANES) {
    return PX_FAIL(st, PX_ERR_ARG, "lanes must be 1, 2, 4, 8, 16 or 32, got %d", lanes);
  }
  if (!ctx->kinematics[fp64][li]) {
    const uint32_t* code = fp64 ? spvKinematicsF64 : spvKinematicsF32;
    size_t nbytes = fp64 ? sizeof(spvKinematicsF64) : sizeof(spvKinematicsF32);
    double t0 = pxv_now();
    if (pxv_pipelineCreate(ctx, code, nbytes, lanes, &ctx->kinematics[fp64][li], st)) {
      return st->code;
    }
    ctx->timing.pipeline = pxv_now() - t0;
  }
  *out = ctx->kinematics[fp64][li];
  return PX_OK;
}

// record, submit and wait: one workgroup per world, then make the writes visible to the host
static pxtStatus execute(pxvContext* ctx, const pxvPipeline* p, const pxvBuffer* buf, int nworld,
                         pxStatus* st) {
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  VkCommandBufferBeginInfo cbi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkMemoryBarrier toHost = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO};
  const uint64_t timeoutNs = 300ull * 1000000000ull;

  cai.commandPool = ctx->commandPool;
  cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cai.commandBufferCount = 1;
  PXV_CHECK(st, ctx->vk.vkAllocateCommandBuffers(ctx->device, &cai, &cmd));
  cbi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  PXV_CHECK(st, ctx->vk.vkBeginCommandBuffer(cmd, &cbi));
  ctx->vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p->pipeline);

  // host writes before the submit are visible to the device (vkQueueSubmit's implicit host
  // dependency); worlds are independent, so the dispatches need no barrier between them
  uint32_t maxGroups = ctx->properties.limits.maxComputeWorkGroupCount[0];
  const char* knob = getenv("PX_VULKAN_MAX_GROUPS");  // testing knob: split batches sooner
  if (knob && atoi(knob) > 0 && (uint32_t)atoi(knob) < maxGroups) maxGroups = (uint32_t)atoi(knob);
  for (int w0 = 0; w0 < nworld; w0 += (int)maxGroups) {
    struct {
      uint64_t params;
      int32_t world0;
      int32_t pad;
    } push = {(uint64_t)buf->address, w0, 0};
    uint32_t count = (uint32_t)(nworld - w0) < maxGroups ? (uint32_t)(nworld - w0) : maxGroups;
    ctx->vk.vkCmdPushConstants(cmd, p->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(push), &push);
    ctx->vk.vkCmdDispatch(cmd, count, 1, 1);
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
  PXV_CHECK(st, ctx->vk.vkWaitForFences(ctx->device, 1, &fence, VK_TRUE, timeoutNs));
cleanup:
  if (st->code) ctx->vk.vkDeviceWaitIdle(ctx->device);
  if (fence) ctx->vk.vkDestroyFence(ctx->device, fence, NULL);
  if (cmd) ctx->vk.vkFreeCommandBuffers(ctx->device, ctx->commandPool, 1, &cmd);
  return st->code;
}

// argument checks at the API boundary
static pxtStatus checkArgs(const pxvContext* ctx, const pxModel* m, const pxWorlds* w,
                           int precision64, pxStatus* st) {
  if (!ctx || !m || !w) return PX_FAIL(st, PX_ERR_ARG, "pxv_kinematics: ctx, m and w are required");
  if (w->model != m) return PX_FAIL(st, PX_ERR_ARG, "pxv_kinematics: w was made for another model");
  if (w->nworld < 1) return PX_FAIL(st, PX_ERR_ARG, "pxv_kinematics: nworld is %d", w->nworld);
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

pxtStatus pxv_kinematicsLanes(pxvContext* ctx, const pxModel* m, pxWorlds* w, int precision64,
                              int lanes, pxStatus* st) {
  pxStatus local;
  pxvBuffer buf;
  pxvPipeline* p = NULL;
  layout L;
  fieldRef mf[NMODELFIELD], df[NDATAFIELD];
  if (!st) st = &local;
  px_statusClear(st);
  memset(&buf, 0, sizeof(buf));
  if (checkArgs(ctx, m, w, precision64, st)) return st->code;
  int fp64 = precision64 == -1 ? ctx->float64 : precision64;
  memset(&ctx->timing, 0, sizeof(ctx->timing));
  if (kinematicsPipeline(ctx, fp64, lanes, &p, st)) return st->code;

  // upload
  double t0 = pxv_now();
  describe(m, w, mf, df);
  computeLayout(mf, df, fp64 ? 8 : 4, &L);
  if (pxv_bufferCreate(ctx, (VkDeviceSize)L.total, &buf, st)) {
    char why[sizeof(st->msg)];
    memcpy(why, st->msg, sizeof(why));
    return px_fail(st, st->code, st->func, st->line, "%.900s (a %zu-byte buffer for %d worlds)",
                   why, L.total, w->nworld);
  }
  upload(m, w, mf, df, &L, &buf);
  double t1 = pxv_now();

  // run, read back
  if (!execute(ctx, p, &buf, w->nworld, st)) {
    double t2 = pxv_now();
    download(df, &L, &buf);
    ctx->timing.download = pxv_now() - t2;
    ctx->timing.execute = t2 - t1;
  }
  ctx->timing.upload = t1 - t0;
  pxv_bufferDestroy(ctx, &buf);
  return st->code;
}

pxtStatus pxv_kinematics(pxvContext* ctx, const pxModel* m, pxWorlds* w, int precision64,
                         pxStatus* st) {
  return pxv_kinematicsLanes(ctx, m, w, precision64, 1, st);
}
