// SPDX-License-Identifier: Apache-2.0
// Per-world model parameters of a pxBatch (domain randomization) without a model copy per world:
// override blocks (nworld x size) for the PXB_PARAMS fields and opt.gravity / opt.timestep, the
// derived constants recomputed per world (PXB_DERIVED, stat.meaninertia), and the stack-built
// shallow model copy each world steps on (pxb_worldModel). See px/pxbatch.h.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "px/pxbatch.h"

enum {
#define X(f, n, c, g) P_##f,
  PXB_PARAMS(X)
#undef X
      P_gravity,
  P_timestep,
  NSET,  // settable parameters
};

enum {
#define X(f, n, c) D_##f,
  PXB_DERIVED(X)
#undef X
      D_meaninertia,
  NDER,  // derived constants
};

struct pxbParams_ {
  double* block[NSET];  // (nworld x size) overrides; NULL: the shared model's values
  double* der[NDER];    // (nworld x size) derived constants; all NULL or all allocated
  int user[NSET];       // set by the user (the biasprm block may exist for the conversion only)
};

static const char* const kNames[NSET + NDER] = {
#define X(f, n, c, g) #f,
    PXB_PARAMS(X)
#undef X
        "opt.gravity",
    "opt.timestep",
#define X(f, n, c) #f,
    PXB_DERIVED(X)
#undef X
        "stat.meaninertia",
};

static const int kInertial[NSET] = {
#define X(f, n, c, g) g,
    PXB_PARAMS(X)
#undef X
        0,
    0,
};

int pxb_paramCount(void) {
  return NSET + NDER;
}

const char* pxb_paramName(int id) {
  return id >= 0 && id < NSET + NDER ? kNames[id] : NULL;
}

int pxb_paramIndex(const char* name) {
  for (int i = 0; i < NSET + NDER; i++) {
    if (!strcmp(name, kNames[i])) return i;
  }
  return -1;
}

int pxb_paramReadOnly(int id) {
  return id >= NSET;
}

int pxb_paramInertial(int id) {
  return id >= 0 && id < NSET && kInertial[id];
}

int pxb_paramShape(const pxModel* m, int id, int* nrow, int* ncol) {
  *nrow = 1;
  *ncol = 1;
  switch (id) {
#define X(f, n, c, g) \
  case P_##f:         \
    *nrow = m->n;     \
    *ncol = c;        \
    break;
    PXB_PARAMS(X)
#undef X
#define X(f, n, c)   \
  case NSET + D_##f: \
    *nrow = m->n;    \
    *ncol = c;       \
    break;
    PXB_DERIVED(X)
#undef X
    case P_gravity:
      *nrow = 3;
      break;
    default:  // opt.timestep, stat.meaninertia
      return 0;
  }
  return *ncol == 1 ? 1 : 2;
}

static size_t paramSize(const pxModel* m, int id) {
  int nrow, ncol;
  pxb_paramShape(m, id, &nrow, &ncol);
  return (size_t)nrow * (size_t)ncol;
}

// the shared model's values of parameter id (one world's worth)
static const double* baseValues(const pxModel* m, int id) {
  switch (id) {
#define X(f, n, c, g) \
  case P_##f:         \
    return m->f;
    PXB_PARAMS(X)
#undef X
#define X(f, n, c)   \
  case NSET + D_##f: \
    return m->f;
    PXB_DERIVED(X)
#undef X
    case P_gravity:
      return m->opt.gravity;
    case P_timestep:
      return &m->opt.timestep;
    default:
      return &m->stat.meaninertia;
  }
}

// a block of nworld rows, each the shared model's values; NULL when out of memory
static double* baseBlock(const pxBatch* b, int id) {
  size_t n = paramSize(b->model, id);
  double* blk = (double*)malloc(sizeof(double) * ((size_t)b->nworld * n + 1));
  if (!blk) return NULL;
  const double* base = baseValues(b->model, id);
  for (int w = 0; w < b->nworld; w++) {
    if (n) memcpy(blk + (size_t)w * n, base, sizeof(double) * n);
  }
  return blk;
}

// the params struct, the derived blocks and the biasprm block (which the dampratio conversion
// writes) exist; PX_ERR_NOMEM otherwise
static pxtStatus ensureParams(pxBatch* b, int derived, pxStatus* st) {
  if (!b->params) {
    b->params = (pxbParams*)calloc(1, sizeof(pxbParams));
    if (!b->params) return PX_FAIL(st, PX_ERR_NOMEM, "out of memory for per-world parameters");
  }
  pxbParams* p = b->params;
  if (!derived || p->der[0]) return PX_OK;
  double* der[NDER];
  double* bias = p->block[P_actuator_biasprm] ? NULL : baseBlock(b, P_actuator_biasprm);
  int ok = p->block[P_actuator_biasprm] || bias;
  for (int i = 0; i < NDER; i++) {
    der[i] = baseBlock(b, NSET + i);
    ok = ok && der[i];
  }
  if (!ok) {
    free(bias);
    for (int i = 0; i < NDER; i++) free(der[i]);
    return PX_FAIL(st, PX_ERR_NOMEM, "out of memory for per-world derived constants");
  }
  if (bias) p->block[P_actuator_biasprm] = bias;
  for (int i = 0; i < NDER; i++) p->der[i] = der[i];
  return PX_OK;
}

void pxb_clearParams(pxBatch* b) {
  if (!b->params) return;
  for (int i = 0; i < NSET; i++) free(b->params->block[i]);
  for (int i = 0; i < NDER; i++) free(b->params->der[i]);
  free(b->params);
  b->params = NULL;
}

int pxb_paramIsSet(const pxBatch* b, int id) {
  if (!b->params || id < 0 || id >= NSET + NDER) return 0;
  return id < NSET ? b->params->user[id] : b->params->der[id - NSET] != NULL;
}

void pxb_getParam(const pxBatch* b, int id, double* out) {
  size_t n = paramSize(b->model, id);
  const double* blk = NULL;
  if (b->params) blk = id < NSET ? b->params->block[id] : b->params->der[id - NSET];
  if (blk) {
    memcpy(out, blk, sizeof(double) * n * (size_t)b->nworld);
    return;
  }
  const double* base = baseValues(b->model, id);
  for (int w = 0; w < b->nworld; w++) {
    if (n) memcpy(out + (size_t)w * n, base, sizeof(double) * n);
  }
}

//---------------------------------- set -----------------------------------------------------------

// the bound a value of parameter id must respect: 0 any finite, 1 >= 0, 2 > 0
static int valueRule(int id) {
  if (id == P_body_mass || id == P_body_inertia || id == P_dof_armature) return 1;
  return id == P_timestep ? 2 : 0;
}

pxtStatus pxb_checkParam(const pxBatch* b, int id, const double* values, const uint8_t* mask,
                         pxStatus* st) {
  if (id < 0 || id >= NSET + NDER) return PX_FAIL(st, PX_ERR_ARG, "unknown parameter id %d", id);
  if (id >= NSET) {
    return PX_FAIL(st, PX_ERR_ARG,
                   "%s is derived (recomputed per world from masses, inertias, armature and "
                   "gains) and cannot be set",
                   kNames[id]);
  }
  size_t n = paramSize(b->model, id);
  int rule = valueRule(id);
  for (int w = 0; w < b->nworld; w++) {
    if (mask && !mask[w]) continue;
    const double* v = values + (size_t)w * n;
    for (size_t k = 0; k < n; k++) {
      double x = v[k];
      int bad = !isfinite(x) || (rule == 1 && x < 0) || (rule == 2 && x <= 0);
      if (bad) {
        char buf[32];
        snprintf(buf, sizeof(buf), "%g", x);
        return PX_FAIL(st, PX_ERR_ARG, "%s: world %d, element %zu is %s; values must be %s",
                       kNames[id], w, k, buf,
                       rule == 2   ? "finite and > 0"
                       : rule == 1 ? "finite and >= 0"
                                   : "finite");
      }
    }
  }
  return PX_OK;
}

pxtStatus pxb_setParam(pxBatch* b, int id, const double* values, const uint8_t* mask,
                       pxStatus* st) {
  pxtStatus code = pxb_checkParam(b, id, values, mask, st);
  if (code != PX_OK) return code;
  size_t n = paramSize(b->model, id);
  code = ensureParams(b, kInertial[id], st);
  if (code != PX_OK) return code;
  pxbParams* p = b->params;
  if (!p->block[id]) {
    p->block[id] = baseBlock(b, id);
    if (!p->block[id]) return PX_FAIL(st, PX_ERR_NOMEM, "out of memory for %s", kNames[id]);
  }
  p->user[id] = 1;
  for (int w = 0; w < b->nworld; w++) {
    if (mask && !mask[w]) continue;
    if (n) memcpy(p->block[id] + (size_t)w * n, values + (size_t)w * n, sizeof(double) * n);
  }
  return PX_OK;
}

//---------------------------------- world model ---------------------------------------------------

const pxModel* pxb_worldModel(const pxBatch* b, int w, pxModel* mw) {
  const pxbParams* p = b->params;
  if (!p) return b->model;
  *mw = *b->model;
  size_t W = (size_t)w;
#define X(f, n, c, g) \
  if (p->block[P_##f]) mw->f = p->block[P_##f] + W * (size_t)mw->n * (c);
  PXB_PARAMS(X)
#undef X
  if (p->block[P_gravity]) memcpy(mw->opt.gravity, p->block[P_gravity] + 3 * W, 3 * sizeof(double));
  if (p->block[P_timestep]) mw->opt.timestep = p->block[P_timestep][W];
  if (p->der[0]) {
#define X(f, n, c) mw->f = p->der[D_##f] + W * (size_t)mw->n * (c);
    PXB_DERIVED(X)
#undef X
    mw->stat.meaninertia = p->der[D_meaninertia][W];
  }
  return mw;
}

//---------------------------------- derived constants ---------------------------------------------

typedef struct {
  pxBatch* b;
  const uint8_t* mask;
  pxWorlds* scratch;  // one scratch world per chunk
  double* buf;        // 13 nv numbers per chunk
  int* fixed;         // max(ncam, nlight) zeros: every camera and light fixed, as setConst has them
} constArgs;

static void constTask(void* ctx, int begin, int end, int chunk) {
  constArgs* a = (constArgs*)ctx;
  pxBatch* b = a->b;
  pxData d;
  px_worldView(a->scratch, chunk, &d);
  double* buf = a->buf + (size_t)chunk * (13 * (size_t)b->model->nv + 1);
  for (int w = begin; w < end; w++) {
    if (a->mask && !a->mask[w]) continue;
    pxModel mw;
    pxb_worldModel(b, w, &mw);
    mw.cam_mode = a->fixed;
    mw.light_mode = a->fixed;
    px_setConstInertia(&mw, &d, buf);
    b->params->der[D_meaninertia][w] = mw.stat.meaninertia;
  }
}

pxtStatus pxb_setConst(pxBatch* b, const uint8_t* mask, pxStatus* st) {
  pxtStatus code = ensureParams(b, 1, st);
  if (code != PX_OK) return code;
  int nchunk = b->nthread > 0 ? b->nthread : 1;
  const pxModel* m = b->model;
  constArgs a = {b, mask, NULL, NULL, NULL};
  a.scratch = px_makeWorlds(m, nchunk, st);
  if (!a.scratch) return st->code;
  a.buf = (double*)malloc(sizeof(double) * (size_t)nchunk * (13 * (size_t)m->nv + 1));
  a.fixed = (int*)calloc((size_t)(m->ncam > m->nlight ? m->ncam : m->nlight) + 1, sizeof(int));
  if (!a.buf || !a.fixed) {
    free(a.buf);
    free(a.fixed);
    px_freeWorlds(a.scratch);
    return PX_FAIL(st, PX_ERR_NOMEM, "out of memory for the derived constants");
  }
  pxb_poolRun(b->pool, constTask, &a, b->nworld);
  free(a.buf);
  free(a.fixed);
  px_freeWorlds(a.scratch);
  return PX_OK;
}
