// SPDX-License-Identifier: Apache-2.0
// pxBatch: make/free, step, reset, forward and seeding of N worlds over one model (see
// px/pxbatch.h for the design). Every per-world operation is a pool task over contiguous chunks
// of worlds; a task builds the world's pxData view on its own stack (px_worldView), so nothing is
// allocated after pxb_make and no two threads write the same memory.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "px/pxbatch.h"

//---------------------------------- random numbers ------------------------------------------------

static uint64_t splitmix64(uint64_t* x) {
  uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}

void pxb_rngSeed(uint64_t s[4], uint64_t seed) {
  uint64_t x = seed;
  for (int i = 0; i < 4; i++) s[i] = splitmix64(&x);
}

uint64_t pxb_rngNext(uint64_t s[4]) {
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

double pxb_rngSymmetric(uint64_t s[4]) {
  double u = (double)(pxb_rngNext(s) >> 11) * 0x1.0p-53;
  return 2 * u - 1;
}

//---------------------------------- flags ---------------------------------------------------------

static const char* const kFlagNames[PX_NBFLAG] = {
    "badqpos", "badqvel", "badqacc", "badctrl", "unstable", "error", "contactfull", "cnstrfull"};

const char* pxb_flagName(int bit) {
  return bit >= 0 && bit < PX_NBFLAG ? kFlagNames[bit] : NULL;
}

// MuJoCo's mju_isBad: NaN or beyond 1e10 in magnitude (infinities included)
static int isBad(double x) {
  return isnan(x) || x > 1e10 || x < -1e10;
}

static int anyBad(const double* v, int n) {
  for (int i = 0; i < n; i++) {
    if (isBad(v[i])) return 1;
  }
  return 0;
}

//---------------------------------- make / free ---------------------------------------------------

pxBatch* pxb_make(pxModel* m, int nworld, int nthread, uint64_t seed, pxStatus* st) {
  return pxb_makeCap(m, nworld, nthread, seed, -1, -1, st);
}

pxBatch* pxb_makeCap(pxModel* m, int nworld, int nthread, uint64_t seed, int nconmax, int njmax,
                     pxStatus* st) {
  if (nconmax < -1 || nconmax > PX_NCONMAX_CAP) {
    PX_FAIL(st, PX_ERR_ARG, "nconmax must be in [0, %d] (or -1: the model's), got %d",
            PX_NCONMAX_CAP, nconmax);
    return NULL;
  }
  if (njmax < -1 || njmax > PX_NEFCMAX_CAP) {
    PX_FAIL(st, PX_ERR_ARG, "njmax must be in [0, %d] (or -1: the model's), got %d", PX_NEFCMAX_CAP,
            njmax);
    return NULL;
  }
  if (nworld < 1 || nworld > PX_MAXWORLD) {
    PX_FAIL(st, PX_ERR_ARG, "num_worlds must be in [1, %d], got %d", PX_MAXWORLD, nworld);
    return NULL;
  }
  if (nthread < 0 || nthread > PX_MAXTHREAD) {
    PX_FAIL(st, PX_ERR_ARG, "num_threads must be in [0, %d], got %d", PX_MAXTHREAD, nthread);
    return NULL;
  }

  // the model must be one px_step runs (checked once here, never per step)
  if (px_integratorCheck(m, st) != PX_OK || px_forwardCheckCPU(m, st) != PX_OK) return NULL;

  pxBatch* b = (pxBatch*)calloc(1, sizeof(pxBatch));
  if (!b) {
    PX_FAIL(st, PX_ERR_NOMEM, "out of memory allocating a batch");
    return NULL;
  }
  int nchunk = nthread > 0 ? nthread : 1;
  b->nworld = nworld;
  b->nthread = nthread;
  b->errworld = -1;
  b->rng = (uint64_t*)calloc((size_t)nworld * 4, sizeof(uint64_t));
  b->flags = (int*)calloc((size_t)nworld, sizeof(int));
  b->chunkst = (pxStatus*)calloc((size_t)nchunk, sizeof(pxStatus));
  b->chunkworld = (int*)calloc((size_t)nchunk, sizeof(int));
  if (!b->rng || !b->flags || !b->chunkst || !b->chunkworld) {
    pxb_free(b);
    PX_FAIL(st, PX_ERR_NOMEM, "out of memory allocating %d worlds", nworld);
    return NULL;
  }
  // the solver and collision scratch once per thread, not per world (px_makeWorldsSlots); the
  // capacities come from the model's <size> fields, so a shallow copy carries the replacements
  // while the storage is sized (the worlds keep the shared model)
  pxModel sized = *m;
  if (nconmax >= 0) sized.nconmax = nconmax;
  if (njmax >= 0) sized.njmax = njmax;
  b->worlds = px_makeWorldsSlots(&sized, nworld, nchunk, st);
  if (!b->worlds) {
    pxb_free(b);
    return NULL;
  }
  b->worlds->model = m;
  b->pool = pxb_poolMake(nthread, st);
  if (!b->pool) {
    pxb_free(b);
    return NULL;
  }
  b->model = m;
  m->frozen++;
  pxb_seed(b, NULL, seed);
  return b;
}

void pxb_free(pxBatch* b) {
  if (!b) return;
  pxb_poolFree(b->pool);
  px_freeWorlds(b->worlds);
  pxb_clearParams(b);
  free(b->autoflagged);
  if (b->model) b->model->frozen--;
  free(b->rng);
  free(b->flags);
  free(b->chunkst);
  free(b->chunkworld);
  free(b);
}

void pxb_seed(pxBatch* b, const uint8_t* mask, uint64_t seed) {
  for (int w = 0; w < b->nworld; w++) {
    if (!mask || mask[w]) pxb_rngSeed(b->rng + 4 * (size_t)w, seed + (uint64_t)w);
  }
}

//---------------------------------- tasks ---------------------------------------------------------

typedef struct {
  pxBatch* b;
  const uint8_t* mask;
  int nsubstep;
  double ctrl_noise;
  int key;
  double qpos_noise, qvel_noise;
  int nflagged[PX_MAXTHREAD];  // per chunk
} taskArgs;

void pxb_chunkError(pxBatch* b, int chunk, int w, const pxStatus* st) {
  if (b->chunkworld[chunk] < 0) {
    b->chunkworld[chunk] = w;
    b->chunkst[chunk] = *st;
  }
}

// the warnings whose counters (number column) flag a world, and their flag bits
#define NFLAGWARN 6
static const int kFlagWarnings[NFLAGWARN] = {PX_WARN_BADQPOS,     PX_WARN_BADQVEL,
                                             PX_WARN_BADQACC,     PX_WARN_BADCTRL,
                                             PX_WARN_CONTACTFULL, PX_WARN_CNSTRFULL};
static const int kFlagBits[NFLAGWARN] = {PX_BFLAG_BADQPOS,     PX_BFLAG_BADQVEL,
                                         PX_BFLAG_BADQACC,     PX_BFLAG_BADCTRL,
                                         PX_BFLAG_CONTACTFULL, PX_BFLAG_CNSTRFULL};

static void resetWorld(pxBatch* b, const pxModel* m, int w, int key, double qpos_noise,
                       double qvel_noise);

// one world: optional control noise, then nsubstep steps, stopping at the first bad one; with
// autoreset a flagged world is then reset and its forward pass run, its flags kept
static int stepWorld(const taskArgs* a, int w, int chunk) {
  pxBatch* b = a->b;
  pxModel mw;
  const pxModel* m = pxb_worldModel(b, w, &mw);
  pxData d;
  px_worldViewSlot(b->worlds, w, chunk, &d);
  if (a->ctrl_noise > 0) {
    uint64_t* s = b->rng + 4 * (size_t)w;
    for (int i = 0; i < m->nu; i++) d.ctrl[i] += a->ctrl_noise * pxb_rngSymmetric(s);
  }
  int flags = 0;
  for (int k = 0; k < a->nsubstep && !flags; k++) {
    int before[NFLAGWARN];
    for (int i = 0; i < NFLAGWARN; i++) before[i] = d.warning[2 * kFlagWarnings[i] + 1];
    d.time = b->worlds->time[w];
    pxtStatus code = px_step(m, &d);
    b->worlds->time[w] = d.time;
    if (code != PX_OK) {
      flags |= PX_BFLAG_ERROR;
      pxb_chunkError(b, chunk, w, &d.status);
      break;
    }
    for (int i = 0; i < NFLAGWARN; i++) {
      if (d.warning[2 * kFlagWarnings[i] + 1] != before[i]) flags |= kFlagBits[i];
    }
    if (anyBad(d.qpos, m->nq) || anyBad(d.qvel, m->nv) || anyBad(d.act, m->na)) {
      flags |= PX_BFLAG_UNSTABLE;
    }
  }
  if (flags && b->autoreset) {
    resetWorld(b, m, w, b->autokey, b->autoqpos, b->autoqvel);
    px_worldViewSlot(b->worlds, w, chunk, &d);
    d.time = b->worlds->time[w];
    if (px_forward(m, &d, &d.status) != PX_OK) {
      flags |= PX_BFLAG_ERROR;
      pxb_chunkError(b, chunk, w, &d.status);
    }
    b->autoflagged[w] = 1;
  }
  b->flags[w] |= flags;
  return flags != 0;
}

static void stepTask(void* ctx, int begin, int end, int chunk) {
  taskArgs* a = (taskArgs*)ctx;
  pxBatch* b = a->b;
  int n = 0;
  for (int w = begin; w < end; w++) {
    // a world reset by the previous call's autoreset is healthy again
    if (b->autoflagged && b->autoflagged[w]) {
      b->autoflagged[w] = 0;
      b->flags[w] = 0;
    }
    if (b->flags[w] || (a->mask && !a->mask[w])) continue;
    n += stepWorld(a, w, chunk);
  }
  a->nflagged[chunk] = n;
}

// reset world w (key < 0: mj_resetData, else the keyframe) and add the noise from its generator
static void resetWorld(pxBatch* b, const pxModel* m, int w, int key, double qpos_noise,
                       double qvel_noise) {
  pxData d;
  px_worldView(b->worlds, w, &d);
  if (key >= 0) {
    px_resetDataKeyframe(m, &d, key);
  } else {
    px_resetData(m, &d);
  }
  b->worlds->time[w] = d.time;

  // noise: qvel (zero after the reset) holds the position perturbation first
  uint64_t* s = b->rng + 4 * (size_t)w;
  if (qpos_noise > 0) {
    for (int i = 0; i < m->nv; i++) d.qvel[i] = qpos_noise * pxb_rngSymmetric(s);
    px_integratePos(m, d.qpos, d.qvel, 1.0);
    memset(d.qvel, 0, sizeof(double) * (size_t)m->nv);
  }
  if (qvel_noise > 0) {
    for (int i = 0; i < m->nv; i++) d.qvel[i] = qvel_noise * pxb_rngSymmetric(s);
  }
}

static void resetTask(void* ctx, int begin, int end, int chunk) {
  taskArgs* a = (taskArgs*)ctx;
  pxBatch* b = a->b;
  (void)chunk;
  for (int w = begin; w < end; w++) {
    if (a->mask && !a->mask[w]) continue;
    pxModel mw;
    resetWorld(b, pxb_worldModel(b, w, &mw), w, a->key, a->qpos_noise, a->qvel_noise);
    b->flags[w] = 0;
    if (b->autoflagged) b->autoflagged[w] = 0;
  }
}

static void forwardTask(void* ctx, int begin, int end, int chunk) {
  taskArgs* a = (taskArgs*)ctx;
  pxBatch* b = a->b;
  int n = 0;
  for (int w = begin; w < end; w++) {
    if (a->mask && !a->mask[w]) continue;
    pxData d;
    px_worldViewSlot(b->worlds, w, chunk, &d);
    d.time = b->worlds->time[w];
    pxModel mw;
    if (px_forward(pxb_worldModel(b, w, &mw), &d, &d.status) != PX_OK) {
      b->flags[w] |= PX_BFLAG_ERROR;
      pxb_chunkError(b, chunk, w, &d.status);
      n++;
    }
  }
  a->nflagged[chunk] = n;
}

int pxb_runCollect(pxBatch* b, pxfTask fn, void* ctx, int* nflagged) {
  int nchunk = b->nthread > 0 ? b->nthread : 1;
  for (int c = 0; c < nchunk; c++) {
    b->chunkworld[c] = -1;
    nflagged[c] = 0;
  }
  pxb_poolRun(b->pool, fn, ctx, b->nworld);
  int n = 0;
  px_statusClear(&b->status);
  b->errworld = -1;
  for (int c = 0; c < nchunk; c++) {
    n += nflagged[c];
    if (b->errworld < 0 && b->chunkworld[c] >= 0) {
      b->errworld = b->chunkworld[c];
      b->status = b->chunkst[c];
    }
  }
  return n;
}

static int run(pxBatch* b, pxfTask fn, taskArgs* a) {
  return pxb_runCollect(b, fn, a, a->nflagged);
}

int pxb_step(pxBatch* b, int nsubstep, const uint8_t* mask, double ctrl_noise) {
  taskArgs a;
  memset(&a, 0, sizeof(a));
  a.b = b;
  a.mask = mask;
  a.nsubstep = nsubstep;
  a.ctrl_noise = ctrl_noise;
  return run(b, stepTask, &a);
}

void pxb_reset(pxBatch* b, const uint8_t* mask, int key, double qpos_noise, double qvel_noise) {
  taskArgs a;
  memset(&a, 0, sizeof(a));
  a.b = b;
  a.mask = mask;
  a.key = key;
  a.qpos_noise = qpos_noise;
  a.qvel_noise = qvel_noise;
  run(b, resetTask, &a);
}

int pxb_forward(pxBatch* b, const uint8_t* mask) {
  taskArgs a;
  memset(&a, 0, sizeof(a));
  a.b = b;
  a.mask = mask;
  return run(b, forwardTask, &a);
}

pxtStatus pxb_setAutoreset(pxBatch* b, int on, int key, double qpos_noise, double qvel_noise,
                           pxStatus* st) {
  if (key < -1 || key >= b->model->nkey) {
    return PX_FAIL(st, PX_ERR_ARG, "autoreset: key must be -1 (no keyframe) or in [0, %d), got %d",
                   b->model->nkey, key);
  }
  if (!(qpos_noise >= 0) || qpos_noise > 1e10 || !(qvel_noise >= 0) || qvel_noise > 1e10) {
    return PX_FAIL(st, PX_ERR_ARG, "autoreset: the noise scales must be finite and >= 0");
  }
  if (on && !b->autoflagged) {
    b->autoflagged = (uint8_t*)calloc((size_t)b->nworld, 1);
    if (!b->autoflagged) return PX_FAIL(st, PX_ERR_NOMEM, "out of memory for autoreset");
  }
  b->autoreset = on != 0;
  b->autokey = key;
  b->autoqpos = qpos_noise;
  b->autoqvel = qvel_noise;
  return PX_OK;
}
