// SPDX-License-Identifier: Apache-2.0
// The Vulkan executor against the CPU: forward kinematics of a hand-built chain model (free,
// hinge, slide and ball joints, a mocap body, geoms and sites with every sameframe code,
// cameras and lights in every mode, a fixed tendon) in 16 worlds with random states, run by
// px_kinematics on each world and by pxv_kinematics on the GPU. fp64 must match bit for bit
// (memcmp of every PX_DATA_FIELDS block; on lavapipe a zero may differ in sign only, see
// checkBitwise) with zero validation messages; lanes per world must not change a bit; fp32 must
// stay within a float tolerance. The device tests are skipped, and reported as skipped, only
// where no Vulkan device exists; the error paths run anyway.
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "px/pxdata.h"
#include "px/pxmodel.h"
#include "px/pxvulkan.h"

#define NWORLD 16

//---------------------------------- sanitizers ----------------------------------------------------

// Under ASan (make test-c), LeakSanitizer checks this process at exit, after the Vulkan loader
// has unloaded the drivers (Mesa's lavapipe with its LLVM, and the drivers that found no
// device) and the validation layer, whose own allocations then show up as leaks from
// "<unknown module>". This test therefore never unloads a library (its dlclose, which the
// loader calls, is a no-op), so those leaks carry module names, and suppresses the leaks of
// those modules only: leaks of phalanx code are still reported.
#if defined(__SANITIZE_ADDRESS__)
int dlclose(void* handle) {
  (void)handle;
  return 0;
}

const char* __lsan_default_suppressions(void);
const char* __lsan_default_suppressions(void) {
  return "leak:libvulkan_\nleak:libLLVM\nleak:libVkLayer_\nleak:libvulkan.so\n";
}
#endif

// Validation level of the device tests: 2 (core and synchronization validation; zero messages
// required). Level 3 (GPU-assisted) makes lavapipe reject the instrumented SPIR-V (spirv_to_nir:
// "Invalid back or cross-edge in the CFG"), so it is not the default. PX_TEST_VALIDATION
// overrides. Note: lavapipe compiles each pipeline variant with LLVM at its first dispatch, about
// 10 s each for this shader on a 2-core machine; Mesa's shader cache makes later runs fast.
static int validationLevel(void) {
  const char* v = getenv("PX_TEST_VALIDATION");
  return v && v[0] ? atoi(v) : 2;
}

//---------------------------------- model ---------------------------------------------------------

static void setv(pxtNum* dst, int n, const double* v) {
  for (int i = 0; i < n; i++) dst[i] = v[i];
}

static void unitQuat(pxtNum* q, double w, double x, double y, double z) {
  double n = sqrt(w * w + x * x + y * y + z * z);
  q[0] = w / n;
  q[1] = x / n;
  q[2] = y / n;
  q[3] = z / n;
}

// 8 bodies in two trees plus a mocap body:
//   1 free -> 2 hinge -> 3 slide+hinge -> 4 ball;  5 hinge (qpos0 != 0) -> 7 welded;  6 mocap
static pxModel* makeChain(void) {
  pxModel sz;
  memset(&sz, 0, sizeof(sz));
  px_defaultOption(&sz.opt);
  sz.nbody = 8;
  sz.njnt = 6;
  sz.nq = 15;
  sz.nv = 13;
  sz.ngeom = 7;
  sz.nsite = 3;
  sz.ncam = 4;
  sz.nlight = 3;
  sz.nmocap = 1;
  sz.ntendon = 1;
  sz.nwrap = 2;
  sz.ntree = 3;
  pxModel* m = px_makeModel(&sz);
  if (!m) return NULL;

  // bodies: parent, root, joints, mocap, frames, inertia
  static const int parent[8] = {0, 0, 1, 2, 3, 0, 0, 5};
  static const int root[8] = {0, 1, 1, 1, 1, 5, 6, 5};
  static const int jntnum[8] = {0, 1, 1, 2, 1, 1, 0, 0};
  static const int sameframe[8] = {0, 0, 1, 2, 0, 1, 0, 3};
  int jadr = 0;
  for (int i = 0; i < 8; i++) {
    m->body_parentid[i] = parent[i];
    m->body_rootid[i] = root[i];
    m->body_weldid[i] = jntnum[i] ? i : (i == 7 ? 5 : 0);
    m->body_mocapid[i] = i == 6 ? 0 : -1;
    m->body_jntnum[i] = jntnum[i];
    m->body_jntadr[i] = jntnum[i] ? jadr : -1;
    jadr += jntnum[i];
    m->body_sameframe[i] = (pxtByte)sameframe[i];
    double pos[3] = {0.1 * i, -0.05 * i + 0.02, 0.3 - 0.01 * i};
    setv(m->body_pos + 3 * i, 3, pos);
    unitQuat(m->body_quat + 4 * i, 1.0, 0.1 * i, -0.2, 0.05 * i);
    double ipos[3] = {0.01 * i, 0.02, -0.03 * i};
    if (sameframe[i] == 1) ipos[0] = ipos[1] = ipos[2] = 0;
    setv(m->body_ipos + 3 * i, 3, ipos);
    if (sameframe[i] == 1 || sameframe[i] == 3) {
      unitQuat(m->body_iquat + 4 * i, 1, 0, 0, 0);
    } else {
      unitQuat(m->body_iquat + 4 * i, 0.9, 0.1, 0.3 * i, -0.1);
    }
    m->body_mass[i] = i ? 0.5 + 0.25 * i : 0;
    double inertia[3] = {0.01 * i + 0.001, 0.02, 0.015 + 0.001 * i};
    setv(m->body_inertia + 3 * i, 3, inertia);
  }
  m->body_mass[6] = 0;  // massless mocap body: subtree com falls back to xipos
  for (int i = 7; i > 0; i--) m->body_subtreemass[i] += m->body_mass[i];
  for (int i = 7; i > 0; i--) m->body_subtreemass[parent[i]] += m->body_subtreemass[i];

  // joints: free, hinge, slide, hinge, ball, hinge
  static const int type[6] = {PX_JNT_FREE,  PX_JNT_HINGE, PX_JNT_SLIDE,
                              PX_JNT_HINGE, PX_JNT_BALL,  PX_JNT_HINGE};
  static const int body[6] = {1, 2, 3, 3, 4, 5};
  static const int nqj[6] = {7, 1, 1, 1, 4, 1};
  static const int nvj[6] = {6, 1, 1, 1, 3, 1};
  int qadr = 0, dadr = 0;
  for (int j = 0; j < 6; j++) {
    m->jnt_type[j] = type[j];
    m->jnt_bodyid[j] = body[j];
    m->jnt_qposadr[j] = qadr;
    m->jnt_dofadr[j] = dadr;
    double axis[3] = {0.3 * j, 1.0, -0.2 * j + 0.1};
    double n = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
    for (int k = 0; k < 3; k++) m->jnt_axis[3 * j + k] = axis[k] / n;
    double pos[3] = {0.02 * j, -0.01, 0.03};
    setv(m->jnt_pos + 3 * j, 3, pos);
    if (type[j] == PX_JNT_FREE || type[j] == PX_JNT_BALL) {
      m->qpos0[qadr + (type[j] == PX_JNT_FREE ? 3 : 0)] = 1;
    }
    for (int k = 0; k < nvj[j]; k++) {
      m->dof_bodyid[dadr + k] = body[j];
      m->dof_jntid[dadr + k] = j;
    }
    qadr += nqj[j];
    dadr += nvj[j];
  }
  m->qpos0[m->jnt_qposadr[5]] = 0.25;  // a hinge reference angle
  m->qpos0[m->jnt_qposadr[2]] = -0.1;  // a slide reference position

  // geoms and sites, every sameframe code
  for (int g = 0; g < 7; g++) {
    m->geom_bodyid[g] = g % 8;
    m->geom_sameframe[g] = (pxtByte)(g % 5);
    double pos[3] = {0.05 * g, 0.01, -0.02 * g};
    setv(m->geom_pos + 3 * g, 3, pos);
    unitQuat(m->geom_quat + 4 * g, 0.7, -0.1 * g, 0.2, 0.3);
    m->geom_type[g] = PX_GEOM_SPHERE;
  }
  for (int s = 0; s < 3; s++) {
    m->site_bodyid[s] = 2 * s + 1;
    m->site_sameframe[s] = (pxtByte)(s == 1 ? 0 : s);
    double pos[3] = {-0.01 * s, 0.02 * s, 0.1};
    setv(m->site_pos + 3 * s, 3, pos);
    unitQuat(m->site_quat + 4 * s, 1.0, 0.0, 0.1 * s, 0.0);
  }

  // cameras: fixed, track, trackcom, targetbody; lights: trackcom, targetbodycom, fixed
  static const int cmode[4] = {PX_CAMLIGHT_FIXED, PX_CAMLIGHT_TRACK, PX_CAMLIGHT_TRACKCOM,
                               PX_CAMLIGHT_TARGETBODY};
  for (int c = 0; c < 4; c++) {
    m->cam_mode[c] = cmode[c];
    m->cam_bodyid[c] = c + 1;
    m->cam_targetbodyid[c] = c == 3 ? 4 : -1;
    double pos[3] = {0.5, -0.3 * c, 0.2};
    setv(m->cam_pos + 3 * c, 3, pos);
    unitQuat(m->cam_quat + 4 * c, 0.8, 0.2, -0.1 * c, 0.4);
    double p0[3] = {0.1, 0.2, 0.3 * c};
    setv(m->cam_pos0 + 3 * c, 3, p0);
    setv(m->cam_poscom0 + 3 * c, 3, p0);
    double mat0[9] = {1, 0, 0, 0, 0.6, -0.8, 0, 0.8, 0.6};
    setv(m->cam_mat0 + 9 * c, 9, mat0);
  }
  static const int lmode[3] = {PX_CAMLIGHT_TRACKCOM, PX_CAMLIGHT_TARGETBODYCOM, PX_CAMLIGHT_FIXED};
  for (int l = 0; l < 3; l++) {
    m->light_mode[l] = lmode[l];
    m->light_bodyid[l] = 2 * l + 1;
    m->light_targetbodyid[l] = l == 1 ? 2 : -1;
    double pos[3] = {0.0, 0.1 * l, 1.0};
    setv(m->light_pos + 3 * l, 3, pos);
    double dir[3] = {0.0, 0.3, -1.0};
    setv(m->light_dir + 3 * l, 3, dir);
    double p0[3] = {0.2 * l, 0.0, 0.5};
    setv(m->light_pos0 + 3 * l, 3, p0);
    setv(m->light_poscom0 + 3 * l, 3, p0);
    setv(m->light_dir0 + 3 * l, 3, dir);
  }

  // a fixed tendon over the two hinges of the first tree
  m->tendon_adr[0] = 0;
  m->tendon_num[0] = 2;
  m->wrap_type[0] = m->wrap_type[1] = PX_WRAP_JOINT;
  m->wrap_objid[0] = 1;
  m->wrap_objid[1] = 3;
  m->wrap_prm[0] = 0.7;
  m->wrap_prm[1] = -1.3;
  return m;
}

//---------------------------------- worlds --------------------------------------------------------

// xorshift64*: deterministic uniform numbers in [-1, 1)
static double uniform(uint64_t* s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return (double)((*s * 2685821657736338717ull) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

// random joint positions and mocap poses; quaternions left unnormalized on purpose, and a few
// worlds with special values (tiny quaternion, exact identity, subnormal and zero positions)
static void randomize(const pxModel* m, pxWorlds* w, uint64_t seed) {
  uint64_t s = seed;
  for (int wi = 0; wi < w->nworld; wi++) {
    pxtNum* q = w->qpos + (size_t)wi * (size_t)m->nq;
    for (int i = 0; i < m->nq; i++) q[i] = 2.0 * uniform(&s);
    pxtNum* mp = w->mocap_pos + 3 * (size_t)wi;
    pxtNum* mq = w->mocap_quat + 4 * (size_t)wi;
    for (int k = 0; k < 3; k++) mp[k] = uniform(&s);
    for (int k = 0; k < 4; k++) mq[k] = uniform(&s);
  }
  int ball = m->jnt_qposadr[4], slide = m->jnt_qposadr[2], hinge = m->jnt_qposadr[1];
  w->qpos[1 * m->nq + ball + 0] = 1e-17;  // norm below MINVAL: unit quaternion
  w->qpos[1 * m->nq + ball + 1] = 0;
  w->qpos[1 * m->nq + ball + 2] = 0;
  w->qpos[1 * m->nq + ball + 3] = 0;
  w->qpos[2 * m->nq + 3] = 1;  // free joint at the identity rotation
  w->qpos[2 * m->nq + 4] = 0;
  w->qpos[2 * m->nq + 5] = 0;
  w->qpos[2 * m->nq + 6] = 0;
  w->qpos[3 * m->nq + hinge] = 0;              // zero angle: the identity shortcut
  w->qpos[4 * m->nq + slide] = -0.1 + 1e-310;  // subnormal displacement
  w->qpos[5 * m->nq + hinge] = 4.9e-324;       // smallest subnormal angle
}

// Differences between two batches: `bits` elements differ in any other way than the sign of a
// zero, `zeros` elements are +0 on one side and -0 on the other; the first of each is printed.
typedef struct {
  long bits;
  long zeros;
} diffCount;

static diffCount compareWorlds(const pxModel* m, const pxWorlds* a, const pxWorlds* b,
                               const char* what) {
  diffCount c = {0, 0};
#define X(type, name, nrow, ncol)                                                       \
  {                                                                                     \
    size_t n_ = (size_t)a->nworld * (size_t)m->nrow * (size_t)(ncol);                   \
    if (!memcmp(a->name, b->name, n_ * sizeof(type))) n_ = 0;                           \
    for (size_t i_ = 0; i_ < n_; i_++) {                                                \
      if (!memcmp(a->name + i_, b->name + i_, sizeof(type))) continue;                  \
      int zero_ = a->name[i_] == 0 && b->name[i_] == 0;                                 \
      if (zero_ ? !c.zeros : !c.bits) {                                                 \
        fprintf(stderr, "%s: first %s difference: %s[%zu] cpu %.17g gpu %.17g\n", what, \
                zero_ ? "signed-zero" : "bitwise", #name, i_, (double)a->name[i_],      \
                (double)b->name[i_]);                                                   \
      }                                                                                 \
      if (zero_) {                                                                      \
        c.zeros++;                                                                      \
      } else {                                                                          \
        c.bits++;                                                                       \
      }                                                                                 \
    }                                                                                   \
  }
  PX_DATA_FIELDS(X)
#undef X
  return c;
}

// CPU reference: px_kinematics on each world
static void cpuKinematics(const pxModel* m, pxWorlds* w) {
  for (int i = 0; i < w->nworld; i++) {
    pxData d;
    px_worldView(w, i, &d);
    px_kinematics(m, &d);
  }
}

// two batches with the same random inputs
static void makePair(const pxModel* m, pxWorlds** cpu, pxWorlds** gpu, uint64_t seed) {
  pxStatus st;
  *cpu = px_makeWorlds(m, NWORLD, &st);
  *gpu = px_makeWorlds(m, NWORLD, &st);
  if (!*cpu || !*gpu) return;
  randomize(m, *cpu, seed);
  memcpy((*gpu)->buffer, (*cpu)->buffer, (*cpu)->nbuffer);
  cpuKinematics(m, *cpu);
}

//---------------------------------- device tests --------------------------------------------------

static pxvContext* ctx;  // validated context shared by the device tests
static pxModel* model;

// every bit equal, signs of zero included. (Mesa's llvmpipe folds arithmetic on constant zero
// operands whatever the NoContraction marks say, 0 + b -> b and a * 0 -> 0, which flips signs of
// zero: the kernels feed zeros into arithmetic through PX_ZERO, a run-time value on the GPU.)
static int checkBitwise(const pxWorlds* cpu, const pxWorlds* gpu, const char* what) {
  diffCount c = compareWorlds(model, cpu, gpu, what);
  return c.bits == 0 && c.zeros == 0;
}

// fp64: every data block bit-identical to the CPU, for several seeds and lane counts
static int test_fp64_bitwise(void) {
  static const int lanes[] = {1, 32};
  for (int seed = 1; seed <= 3; seed++) {
    for (int li = 0; li < 2; li++) {
      pxWorlds *cpu, *gpu;
      pxStatus st;
      char what[64];
      makePair(model, &cpu, &gpu, 0x9E3779B97F4A7C15ull * (uint64_t)seed);
      ENSURE(cpu && gpu);
      pxtStatus rc = pxv_kinematicsLanes(ctx, model, gpu, 1, lanes[li], &st);
      if (rc) fprintf(stderr, "pxv_kinematics: %s (%s:%d)\n", st.msg, st.func, st.line);
      ENSURE(rc == PX_OK);
      snprintf(what, sizeof(what), "fp64 seed %d, %d lanes", seed, lanes[li]);
      ENSURE(checkBitwise(cpu, gpu, what));
      if (seed == 1 && li == 0) {
        pxvTiming t;
        pxv_lastTiming(ctx, &t);
        printf(
            "fp64, %d worlds, 1 lane: pipeline %.1f ms, upload %.2f ms, execute %.2f ms, "
            "download %.2f ms\n",
            NWORLD, t.pipeline, t.upload, t.execute, t.download);
      }
      px_freeWorlds(cpu);
      px_freeWorlds(gpu);
    }
  }
  return 0;
}

// a larger batch, split into several dispatches (push constant world0): still bitwise
static int test_fp64_many_worlds(void) {
  pxStatus st;
  int n = 1000;
  setenv("PX_VULKAN_MAX_GROUPS", "300", 1);
  pxWorlds* cpu = px_makeWorlds(model, n, &st);
  pxWorlds* gpu = px_makeWorlds(model, n, &st);
  ENSURE(cpu && gpu);
  randomize(model, cpu, 12345);
  memcpy(gpu->buffer, cpu->buffer, cpu->nbuffer);
  cpuKinematics(model, cpu);
  pxtStatus rc = pxv_kinematics(ctx, model, gpu, -1, &st);
  unsetenv("PX_VULKAN_MAX_GROUPS");
  ENSURE(rc == PX_OK);
  ENSURE(checkBitwise(cpu, gpu, "fp64, 1000 worlds in 4 dispatches"));
  pxvTiming t;
  pxv_lastTiming(ctx, &t);
  printf("fp64, %d worlds, 1 lane: upload %.2f ms, execute %.2f ms, download %.2f ms\n", n,
         t.upload, t.execute, t.download);
  px_freeWorlds(cpu);
  px_freeWorlds(gpu);
  return 0;
}

// the shaders in a device-local copy of the worlds' buffer (a discrete GPU's layout; forced here
// with PX_VULKAN_STAGING=1, and never with 0): the same bits, copied in and back
static int test_fp64_staged(void) {
  pxStatus st;
  int n = 300;
  for (int staged = 0; staged <= 1; staged++) {
    setenv("PX_VULKAN_STAGING", staged ? "1" : "0", 1);
    pxWorlds* cpu = px_makeWorlds(model, n, &st);
    pxWorlds* gpu = px_makeWorlds(model, n, &st);
    ENSURE(cpu && gpu);
    randomize(model, cpu, 4242 + (uint64_t)staged);
    memcpy(gpu->buffer, cpu->buffer, cpu->nbuffer);
    cpuKinematics(model, cpu);
    pxtStatus rc = pxv_kinematics(ctx, model, gpu, -1, &st);
    ENSURE(rc == PX_OK);
    ENSURE(checkBitwise(cpu, gpu, staged ? "fp64, device-local copy" : "fp64, mapped buffer"));
    pxvTiming t;
    pxv_lastTiming(ctx, &t);
    ENSURE(t.staged == staged);
    px_freeWorlds(cpu);
    px_freeWorlds(gpu);
  }
  unsetenv("PX_VULKAN_STAGING");
  return 0;
}

// fp32: within a float tolerance of the fp64 CPU, inputs unchanged
static int test_fp32_close(void) {
  pxWorlds *cpu, *gpu;
  pxStatus st;
  makePair(model, &cpu, &gpu, 777);
  ENSURE(cpu && gpu);
  ENSURE(pxv_kinematics(ctx, model, gpu, 0, &st) == PX_OK);
  double worst = 0;
  const char* worstField = "";
#define X(type, name, nrow, ncol)                                                      \
  for (size_t i = 0; i < (size_t)NWORLD * (size_t)model->nrow * (size_t)(ncol); i++) { \
    double e = fabs((double)cpu->name[i] - (double)gpu->name[i]);                      \
    if (!(e <= worst)) {                                                               \
      worst = e;                                                                       \
      worstField = #name;                                                              \
    }                                                                                  \
  }
  PX_DATA_FIELDS(X)
#undef X
  printf("fp32: largest absolute difference from the fp64 CPU %.3g (%s)\n", worst, worstField);
  ENSURE(worst < 1e-5);
  ENSURE(!memcmp(cpu->qpos, gpu->qpos, sizeof(pxtNum) * NWORLD * (size_t)model->nq));
  px_freeWorlds(cpu);
  px_freeWorlds(gpu);
  return 0;
}

// argument errors come back as statuses, and the context stays usable
static int test_argument_errors(void) {
  pxStatus st;
  pxWorlds* w = px_makeWorlds(model, 2, &st);
  pxModel* other = px_copyModel(model);
  ENSURE(w && other);
  ENSURE(pxv_kinematics(ctx, model, w, 7, &st) == PX_ERR_ARG);
  ENSURE(strstr(st.msg, "precision64") != NULL);
  ENSURE(pxv_kinematics(ctx, other, w, 1, &st) == PX_ERR_ARG);
  ENSURE(pxv_kinematicsLanes(ctx, model, w, 1, 3, &st) == PX_ERR_ARG);
  ENSURE(strstr(st.msg, "lanes") != NULL);
  ENSURE(pxv_kinematics(NULL, model, w, 1, &st) == PX_ERR_ARG);
  ENSURE(pxv_kinematics(ctx, model, w, 1, &st) == PX_OK);

  // forward and step: argument errors before any model check or GPU work
  ENSURE(pxv_forward(NULL, model, w, 1, 1, &st) == PX_ERR_ARG);
  ENSURE(pxv_forward(ctx, other, w, 1, 1, &st) == PX_ERR_ARG);
  ENSURE(strstr(st.msg, "pxv_forward") != NULL);
  ENSURE(pxv_step(ctx, model, w, 1, 1, 0, &st) == PX_ERR_ARG);
  ENSURE(strstr(st.msg, "nstep") != NULL);
  ENSURE(pxv_step(ctx, model, w, 1, 1, 100001, &st) == PX_ERR_ARG);
  ENSURE(pxv_step(ctx, model, w, 5, 1, 1, &st) == PX_ERR_ARG);
  ENSURE(pxv_step(ctx, model, NULL, 1, 1, 1, &st) == PX_ERR_ARG);
  px_freeWorlds(w);
  px_freeModel(other);
  return 0;
}

// no validation message over all the runs above
static int test_validation_clean(void) {
  int n = pxv_validationMessages(ctx);
  if (n) fprintf(stderr, "%d validation messages; last: %s\n", n, pxv_lastValidationMessage(ctx));
  ENSURE(n == 0);
  return 0;
}

//---------------------------------- error paths (no device needed) --------------------------------

// a device pick that matches nothing fails with the reasons and without a crash
static int test_forced_pick_failure(void) {
  pxvContextDef def = pxv_defaultContextDef();
  pxvContext* c = (pxvContext*)&def;  // must be reset to NULL
  pxStatus st;
  def.device = "no-such-device-name";
  ENSURE(pxv_contextCreateDef(&c, &def, &st) == PX_ERR_VULKAN);
  ENSURE(c == NULL);
  ENSURE(st.func != NULL);
  ENSURE(st.msg[0] != 0);
  printf("forced pick failure: %.160s...\n", st.msg);
  pxv_contextDestroy(NULL);
  return 0;
}

// PX_VULKAN_DISABLE: not available, contexts refused with the reason
static int test_disabled(void) {
  char why[256];
  pxvContext* c = NULL;
  pxStatus st;
  setenv("PX_VULKAN_DISABLE", "1", 1);
  ENSURE(pxv_available(why, sizeof(why)) == 0);
  ENSURE(strstr(why, "PX_VULKAN_DISABLE") != NULL);
  ENSURE(pxv_contextCreate(&c, 0, &st) == PX_ERR_VULKAN);
  ENSURE(c == NULL);
  unsetenv("PX_VULKAN_DISABLE");
  return 0;
}

// a validation level out of range
static int test_bad_validation_level(void) {
  pxvContextDef def = pxv_defaultContextDef();
  pxvContext* c = NULL;
  pxStatus st;
  def.validation = 5;
  ENSURE(pxv_contextCreateDef(&c, &def, &st) == PX_ERR_ARG);
  ENSURE(c == NULL);
  return 0;
}

int main(void) {
  char why[1024];
  int skipped = 0;
  RUN_TEST(test_disabled);
  RUN_TEST(test_bad_validation_level);
  RUN_TEST(test_forced_pick_failure);

  if (!pxv_available(why, sizeof(why))) {
    printf("SKIP device tests: no Vulkan device: %s\n", why);
    skipped = 5;
  } else {
    pxStatus st;
    model = makeChain();
    ENSURE(model != NULL);
    if (pxv_contextCreate(&ctx, validationLevel(), &st)) {
      fprintf(stderr, "pxv_contextCreate: %s\n", st.msg);
      pxTestCounts()[1]++;
    } else {
      printf("device: %s, validation level %d\n%s", pxv_deviceName(ctx), validationLevel(),
             pxv_deviceReport(ctx));
      if (!pxv_hasFloat64(ctx)) {
        printf("SKIP fp64 tests: %s has no shaderFloat64\n", pxv_deviceName(ctx));
        skipped += 3;
      } else {
        RUN_TEST(test_fp64_bitwise);
        RUN_TEST(test_fp64_many_worlds);
        RUN_TEST(test_fp64_staged);
      }
      RUN_TEST(test_fp32_close);
      RUN_TEST(test_argument_errors);
      RUN_TEST(test_validation_clean);
    }
    pxv_contextDestroy(ctx);
    px_freeModel(model);
  }
  if (skipped) printf("%d skipped\n", skipped);
  return TEST_SUMMARY();
}
