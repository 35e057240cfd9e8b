// SPDX-License-Identifier: Apache-2.0
// Gymnasium MuJoCo v5 tasks on a pxBatch (see px/pxtask.h): the task functions of
// csrc/tasks/tasks.h run per world on the batch's pool, around pxb_step, writing into buffers
// the caller owns. Every world is computed by one thread, so results do not depend on the
// number of threads.
#include <math.h>
#include <string.h>

#include "kern/prelude_c.h"

#include "px/pxtask.h"
#include "tasks/tasks.h"

#if PXT_NPRM != PXT_SPEC_NPRM || PXT_NOUT != PXT_SPEC_NOUT
#error "pxtask.h and tasks/tasks.h disagree on the buffer sizes"
#endif

//---------------------------------- random draws --------------------------------------------------

static double uniform01(uint64_t s[4]) {
  return (double)(pxb_rngNext(s) >> 11) * 0x1.0p-53;
}

double pxb_rngUniform(uint64_t s[4], double lo, double hi) {
  return lo + (hi - lo) * uniform01(s);
}

double pxb_rngNormal(uint64_t s[4]) {
  double u1 = 1.0 - uniform01(s);  // in (0, 1]
  double u2 = uniform01(s);
  return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

//---------------------------------- checks --------------------------------------------------------

pxtStatus pxb_taskCheck(const pxBatch* b, const pxTaskSpec* t, pxStatus* st) {
  const pxModel* m = b->model;
  if (t->task < 0 || t->task >= PXT_NTASK) {
    return PX_FAIL(st, PX_ERR_ARG, "task id must be in [0, %d), got %d", PXT_NTASK, t->task);
  }
  if (t->obs_dim < 1 || t->obs_dim > PXT_MAXOBS) {
    return PX_FAIL(st, PX_ERR_ARG, "obs_dim must be in [1, %d], got %d", PXT_MAXOBS, t->obs_dim);
  }
  // the smallest model each task's functions index safely: qpos, qvel and site entries read or
  // written at fixed positions (the Python layer sizes the observation with the same rules)
  static const int kMin[PXT_NTASK][3] = {
      {3, 0, 0}, {1, 0, 0}, {3, 0, 0}, {3, 0, 0}, {3, 6, 0}, {3, 6, 0},
      {2, 0, 0}, {2, 2, 0}, {7, 7, 0}, {2, 0, 0}, {1, 3, 1},
  };
  const int* need = kMin[t->task];
  if (m->nq < need[0] || m->nv < need[1] || m->nsite < need[2]) {
    return PX_FAIL(st, PX_ERR_ARG,
                   "this task needs a model with nq >= %d, nv >= %d and nsite >= %d; the model "
                   "has nq = %d, nv = %d, nsite = %d",
                   need[0], need[1], need[2], m->nq, m->nv, m->nsite);
  }
  int slots[3] = {PXT_P_BODY, PXT_P_BODY2, PXT_P_BODY3};
  for (int i = 0; i < 3; i++) {
    double v = t->prm[slots[i]];
    if (!(v >= 0 && v < m->nbody) || v != floor(v)) {
      return PX_FAIL(st, PX_ERR_ARG, "body index %g out of range [0, %d)", v, m->nbody);
    }
  }
  return PX_OK;
}

//---------------------------------- pool tasks ----------------------------------------------------

typedef struct {
  pxBatch* b;
  const pxTaskSpec* t;
  const uint8_t* mask;
  double *pre, *obs, *out;
  int nflagged[PX_MAXTHREAD];
} taskArgs;

// Each pass views a world with its thread's scratch slot and runs on the world's model (the
// shared one, or its per-world parameters: pxb_worldModel).
static void preTask(void* ctx, int begin, int end, int chunk) {
  taskArgs* a = (taskArgs*)ctx;
  for (int w = begin; w < end; w++) {
    if (a->mask && !a->mask[w]) continue;
    pxData d;
    px_worldViewSlot(a->b->worlds, w, chunk, &d);
    pxModel mw;
    pxt_pre(pxb_worldModel(a->b, w, &mw), &d, a->t->task, a->t->prm, a->pre + 2 * (size_t)w);
  }
}

static void postTask(void* ctx, int begin, int end, int chunk) {
  taskArgs* a = (taskArgs*)ctx;
  for (int w = begin; w < end; w++) {
    if (a->mask && !a->mask[w]) continue;
    pxData d;
    px_worldViewSlot(a->b->worlds, w, chunk, &d);
    pxModel mw;
    const pxModel* m = pxb_worldModel(a->b, w, &mw);
    d.time = a->b->worlds->time[w];
    // the model was checked by pxb_make (px_forwardCheckCPU), so this cannot fail
    px_rnePostConstraint(m, &d, &d.status);
    pxt_obs(m, &d, a->t->task, a->t->prm, a->obs + (size_t)a->t->obs_dim * w);
    pxt_reward(m, &d, a->t->task, a->t->prm, a->pre + 2 * (size_t)w, a->out + (size_t)PXT_NOUT * w);
  }
}

static void observeTask(void* ctx, int begin, int end, int chunk) {
  taskArgs* a = (taskArgs*)ctx;
  for (int w = begin; w < end; w++) {
    if (a->mask && !a->mask[w]) continue;
    pxData d;
    px_worldViewSlot(a->b->worlds, w, chunk, &d);
    pxModel mw;
    pxt_obs(pxb_worldModel(a->b, w, &mw), &d, a->t->task, a->t->prm,
            a->obs + (size_t)a->t->obs_dim * w);
  }
}

// the task's reset distribution, applied to a world just reset to qpos0 and zero velocities
static void resetNoise(const pxModel* m, pxData* d, const pxTaskSpec* t, uint64_t* s) {
  int nq = m->nq, nv = m->nv, task = t->task;
  double c = t->noise;
  if (task == PXT_REACHER) {
    for (int i = 0; i < nq; i++) d->qpos[i] += pxb_rngUniform(s, -0.1, 0.1);
    double g[2];
    do {
      g[0] = pxb_rngUniform(s, -0.2, 0.2);
      g[1] = pxb_rngUniform(s, -0.2, 0.2);
    } while (!(sqrt(g[0] * g[0] + g[1] * g[1]) < 0.2));
    d->qpos[nq - 2] = g[0];
    d->qpos[nq - 1] = g[1];
    for (int i = 0; i < nv; i++) d->qvel[i] += pxb_rngUniform(s, -0.005, 0.005);
    d->qvel[nv - 2] = 0;
    d->qvel[nv - 1] = 0;
    return;
  }
  if (task == PXT_PUSHER) {
    double cyl[2];
    do {
      cyl[0] = pxb_rngUniform(s, -0.3, 0.0);
      cyl[1] = pxb_rngUniform(s, -0.2, 0.2);
    } while (!(sqrt(cyl[0] * cyl[0] + cyl[1] * cyl[1]) > 0.17));
    d->qpos[nq - 4] = cyl[0];
    d->qpos[nq - 3] = cyl[1];
    d->qpos[nq - 2] = 0;
    d->qpos[nq - 1] = 0;
    for (int i = 0; i < nv; i++) d->qvel[i] += pxb_rngUniform(s, -0.005, 0.005);
    for (int i = nv - 4; i < nv; i++) d->qvel[i] = 0;
    return;
  }
  for (int i = 0; i < nq; i++) d->qpos[i] += pxb_rngUniform(s, -c, c);
  int normal = task == PXT_ANT || task == PXT_HALFCHEETAH || task == PXT_INVERTEDDOUBLEPENDULUM;
  for (int i = 0; i < nv; i++) {
    d->qvel[i] += normal ? c * pxb_rngNormal(s) : pxb_rngUniform(s, -c, c);
  }
}

static void resetTask(void* ctx, int begin, int end, int chunk) {
  taskArgs* a = (taskArgs*)ctx;
  pxBatch* b = a->b;
  int n = 0;
  for (int w = begin; w < end; w++) {
    if (a->mask && !a->mask[w]) continue;
    pxData d;
    px_worldViewSlot(b->worlds, w, chunk, &d);
    pxModel mw;
    const pxModel* m = pxb_worldModel(b, w, &mw);
    px_resetData(m, &d);
    b->flags[w] = 0;
    resetNoise(m, &d, a->t, b->rng + 4 * (size_t)w);
    if (px_forward(m, &d, &d.status) != PX_OK) {
      b->flags[w] |= PX_BFLAG_ERROR;
      pxb_chunkError(b, chunk, w, &d.status);
      n++;
    }
    b->worlds->time[w] = d.time;
    pxt_obs(m, &d, a->t->task, a->t->prm, a->obs + (size_t)a->t->obs_dim * w);
  }
  a->nflagged[chunk] = n;
}

// the observation and reward passes flag nothing and keep the status of the step they follow
static void runTask(pxBatch* b, pxfTask fn, taskArgs* a) {
  pxb_poolRun(b->pool, fn, a, b->nworld);
}

//---------------------------------- entries -------------------------------------------------------

int pxb_taskStep(pxBatch* b, const pxTaskSpec* t, int frame_skip, const uint8_t* mask, double* pre,
                 double* obs, double* out) {
  taskArgs a;
  memset(&a, 0, sizeof(a));
  a.b = b;
  a.t = t;
  a.mask = mask;
  a.pre = pre;
  a.obs = obs;
  a.out = out;
  runTask(b, preTask, &a);
  int n = pxb_step(b, frame_skip, mask, 0.0);
  runTask(b, postTask, &a);
  return n;
}

int pxb_taskReset(pxBatch* b, const pxTaskSpec* t, const uint8_t* mask, double* obs) {
  taskArgs a;
  memset(&a, 0, sizeof(a));
  a.b = b;
  a.t = t;
  a.mask = mask;
  a.obs = obs;
  return pxb_runCollect(b, resetTask, &a, a.nflagged);
}

void pxb_taskObserve(pxBatch* b, const pxTaskSpec* t, const uint8_t* mask, double* obs) {
  taskArgs a;
  memset(&a, 0, sizeof(a));
  a.b = b;
  a.t = t;
  a.mask = mask;
  a.obs = obs;
  runTask(b, observeTask, &a);
}
