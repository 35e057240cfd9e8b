// SPDX-License-Identifier: Apache-2.0
// Model and world storage: allocation, copy, reset and field lookup, all driven by the
// X-macro tables of px/pxxmacro.h. A model is one header plus one 64-byte aligned buffer;
// worlds are one buffer of world-major blocks, each block 64-byte aligned at its start.
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "px/pxdata.h"
#include "px/pxmodel.h"

#define PX_ALIGN 64

static size_t alignUp(size_t n) {
  return (n + PX_ALIGN - 1) & ~(size_t)(PX_ALIGN - 1);
}

// bytes of the model buffer, and pointer setup when buf is not NULL (empty arrays get a valid
// pointer too, so that `array + 0` is never arithmetic on NULL)
static size_t modelLayout(pxModel* m, char* buf) {
  size_t off = 0;
#define X(type, name, nrow, ncol)                 \
  {                                               \
    size_t n_ = (size_t)m->nrow * (size_t)(ncol); \
    if (buf) m->name = (type*)(void*)(buf + off); \
    off += alignUp(n_ * sizeof(type));            \
  }
  PX_MODEL_FIELDS(X)
#undef X
  return off;
}

void px_defaultOption(pxOption* opt) {
  memset(opt, 0, sizeof(*opt));
  opt->timestep = 0.002;
  opt->impratio = 1;
  opt->tolerance = 1e-8;
  opt->ls_tolerance = 0.01;
  opt->noslip_tolerance = 1e-6;
  opt->ccd_tolerance = 1e-6;
  opt->sleep_tolerance = 1e-3;
  opt->gravity[2] = -9.81;
  opt->magnetic[0] = 0;
  opt->magnetic[1] = -0.5;
  opt->magnetic[2] = 0;
  opt->o_margin = 0;
  opt->o_solref[0] = 0.02;
  opt->o_solref[1] = 1;
  opt->o_solimp[0] = 0.9;
  opt->o_solimp[1] = 0.95;
  opt->o_solimp[2] = 0.001;
  opt->o_solimp[3] = 0.5;
  opt->o_solimp[4] = 2;
  opt->o_friction[0] = 1;
  opt->o_friction[1] = 1;
  opt->o_friction[2] = 0.005;
  opt->o_friction[3] = 0.0001;
  opt->o_friction[4] = 0.0001;
  opt->integrator = PX_INT_EULER;
  opt->cone = PX_CONE_PYRAMIDAL;
  opt->jacobian = PX_JAC_AUTO;
  opt->solver = PX_SOL_NEWTON;
  opt->iterations = 100;
  opt->ls_iterations = 50;
  opt->noslip_iterations = 0;
  opt->ccd_iterations = 35;
  opt->sdf_initpoints = 40;
  opt->sdf_iterations = 10;
}

size_t px_modelBytes(const pxModel* sizes) {
  pxModel tmp = *sizes;
  tmp.nwarning = PX_NWARNING;
  tmp.nenergy = PX_NENERGY;
  return modelLayout(&tmp, NULL);
}

pxModel* px_makeModel(const pxModel* sizes) {
  if (px_modelBytes(sizes) > PX_MAX_MODEL_BYTES) return NULL;
  pxModel* m = (pxModel*)calloc(1, sizeof(pxModel));
  if (!m) return NULL;
#define X(name) m->name = sizes->name;
  PX_MODEL_SIZES(X)
#undef X
  m->nwarning = PX_NWARNING;  // a constant, not a model size of MuJoCo's
  m->nenergy = PX_NENERGY;    // likewise
  m->opt = sizes->opt;
  m->stat = sizes->stat;
  m->nbuffer = modelLayout(m, NULL);
  m->buffer = aligned_alloc(PX_ALIGN, m->nbuffer ? m->nbuffer : PX_ALIGN);
  if (!m->buffer) {
    free(m);
    return NULL;
  }
  memset(m->buffer, 0, m->nbuffer);
  modelLayout(m, (char*)m->buffer);
  return m;
}

void px_freeModel(pxModel* m) {
  if (!m) return;
  free(m->buffer);
  free(m);
}

pxModel* px_copyModel(const pxModel* src) {
  pxModel* m = px_makeModel(src);
  if (!m) return NULL;
  memcpy(m->buffer, src->buffer, src->nbuffer);
  return m;
}

long px_modelFieldSize(const pxModel* m, const char* name) {
#define X(type, fname, nrow, ncol) \
  if (!strcmp(name, #fname)) return (long)m->nrow * (long)(ncol);
  PX_MODEL_FIELDS(X)
#undef X
  return -1;
}

long px_dataFieldSize(const pxModel* m, const char* name) {
#define X(type, fname, nrow, ncol) \
  if (!strcmp(name, #fname)) return (long)m->nrow * (long)(ncol);
  PX_DATA_FIELDS(X)
#undef X
  return -1;
}

//---------------------------------- worlds --------------------------------------------------------

pxWorlds* px_makeWorlds(const pxModel* m, int nworld, pxStatus* st) {
  return px_makeWorldsSlots(m, nworld, nworld, st);
}

pxWorlds* px_makeWorldsSlots(const pxModel* m, int nworld, int nslot, pxStatus* st) {
  if (nworld < 1) {
    PX_FAIL(st, PX_ERR_ARG, "nworld must be at least 1, got %d", nworld);
    return NULL;
  }
  if (nslot < 1) {
    PX_FAIL(st, PX_ERR_ARG, "nslot must be at least 1, got %d", nslot);
    return NULL;
  }
  pxWorlds* w = (pxWorlds*)calloc(1, sizeof(pxWorlds));
  if (!w) {
    PX_FAIL(st, PX_ERR_NOMEM, "out of memory allocating worlds");
    return NULL;
  }
  w->model = m;
  w->nworld = nworld;
  w->nslot = nslot;

  // sizes of every block; fail cleanly on overflow
  size_t off = 0;
  size_t limit = (size_t)1 << 40;
#define X(type, name, nrow, ncol) \
  off += alignUp((size_t)nworld * (size_t)m->nrow * (size_t)(ncol) * sizeof(type));
  PX_DATA_FIELDS(X)
#undef X
  off += alignUp((size_t)nworld * sizeof(pxtNum));
  int nconmax = px_contactCapacity(m);
  size_t ncontact = (size_t)nworld * ((size_t)nconmax + PX_MAXCONPAIR);
  off += alignUp(ncontact * sizeof(pxContact));
  off += alignUp((size_t)nworld * sizeof(int));
  int nbpmax = px_bodyPairCapacity(m);
  size_t nscr_r = (size_t)nslot * (size_t)px_colScratchReals(m);
  size_t nscr_i = (size_t)nslot * (size_t)px_colScratchInts(m, nbpmax);
  off += alignUp(nscr_r * sizeof(pxtNum));
  off += alignUp(nscr_i * sizeof(int));
  int nefcmax = px_efcCapacity(m);
  size_t PXE_ROWS = (size_t)nefcmax, PXE_NV = (size_t)m->nv, PXE_NC = (size_t)m->nC;
  size_t PXE_NTREE = (size_t)m->ntree;
  int efcdual = px_efcDual(m);
  size_t PXE_DUAL = (size_t)efcdual;
  int efcsparse = px_efcSparse(m);
  size_t PXE_SPJ = (size_t)efcsparse;
#define X(type, name, n) off += alignUp((size_t)nworld * (size_t)(n) * sizeof(type));
  PX_EFC_FIELDS_CPU(X)
#undef X
#define X(type, name, n) off += alignUp((size_t)nslot * (size_t)(n) * sizeof(type));
  PX_EFC_SCRATCH(X)
#undef X
  off += alignUp((size_t)nworld * PX_EFC_NCOUNT * sizeof(int));
  if (off > limit) {
    free(w);
    PX_FAIL(st, PX_ERR_NOMEM, "%d worlds need %zu bytes, more than the limit of %zu", nworld, off,
            limit);
    return NULL;
  }
  w->nbuffer = off;
  w->buffer = aligned_alloc(PX_ALIGN, off ? off : PX_ALIGN);
  if (!w->buffer) {
    free(w);
    PX_FAIL(st, PX_ERR_NOMEM, "out of memory allocating %zu bytes for %d worlds", off, nworld);
    return NULL;
  }
  memset(w->buffer, 0, off);
  char* buf = (char*)w->buffer;
  off = 0;
#define X(type, name, nrow, ncol)                                  \
  {                                                                \
    size_t n_ = (size_t)nworld * (size_t)m->nrow * (size_t)(ncol); \
    w->name = (type*)(void*)(buf + off);                           \
    off += alignUp(n_ * sizeof(type));                             \
  }
  PX_DATA_FIELDS(X)
#undef X
  w->time = (pxtNum*)(void*)(buf + off);
  off += alignUp((size_t)nworld * sizeof(pxtNum));
  w->contact = (pxContact*)(void*)(buf + off);
  off += alignUp(ncontact * sizeof(pxContact));
  w->ncon = (int*)(void*)(buf + off);
  off += alignUp((size_t)nworld * sizeof(int));
  w->colscr_r = (pxtNum*)(void*)(buf + off);
  off += alignUp(nscr_r * sizeof(pxtNum));
  w->colscr_i = (int*)(void*)(buf + off);
  off += alignUp(nscr_i * sizeof(int));
#define X(type, name, n)               \
  w->name = (type*)(void*)(buf + off); \
  off += alignUp((size_t)nworld * (size_t)(n) * sizeof(type));
  PX_EFC_FIELDS_CPU(X)
#undef X
#define X(type, name, n)               \
  w->name = (type*)(void*)(buf + off); \
  off += alignUp((size_t)nslot * (size_t)(n) * sizeof(type));
  PX_EFC_SCRATCH(X)
#undef X
  w->efc_n = (int*)(void*)(buf + off);
  off += alignUp((size_t)nworld * PX_EFC_NCOUNT * sizeof(int));
  w->nefcmax = nefcmax;
  w->efcdual = efcdual;
  w->efcsparse = efcsparse;
  w->nconmax = nconmax;
  w->nbpmax = nbpmax;
  w->ncolscr_r = px_colScratchReals(m);
  w->ncolscr_i = px_colScratchInts(m, nbpmax);
  for (int i = 0; i < nworld; i++) px_resetWorld(m, w, i);
  return w;
}

void px_freeWorlds(pxWorlds* w) {
  if (!w) return;
  free(w->buffer);
  free(w);
}

void px_worldView(const pxWorlds* w, int world, pxData* d) {
  px_worldViewSlot(w, world, w->nslot == w->nworld ? world : -1, d);
}

void px_worldViewSlot(const pxWorlds* w, int world, int slot, pxData* d) {
  const pxModel* m = w->model;
  memset(d, 0, sizeof(*d));
#define X(type, name, nrow, ncol) \
  d->name = w->name + (size_t)world * (size_t)m->nrow * (size_t)(ncol);
  PX_DATA_FIELDS(X)
#undef X
  d->time = w->time[world];
  d->contact = w->contact + (size_t)world * ((size_t)w->nconmax + PX_MAXCONPAIR);
  d->ncon = w->ncon + world;
  d->nconmax = w->nconmax;
  // scratch of the slot; none (NULL, so that a use fails loudly) without one
  if (slot >= 0) {
    d->colscr_r = w->colscr_r + (size_t)slot * (size_t)w->ncolscr_r;
    d->colscr_i = w->colscr_i + (size_t)slot * (size_t)w->ncolscr_i;
  }
  d->nbpmax = w->nbpmax;
  size_t PXE_ROWS = (size_t)w->nefcmax, PXE_NV = (size_t)m->nv, PXE_NC = (size_t)m->nC;
  size_t PXE_NTREE = (size_t)m->ntree, PXE_DUAL = (size_t)w->efcdual;
  size_t PXE_SPJ = (size_t)w->efcsparse;
#define X(type, name, n) d->name = w->name + (size_t)world * (size_t)(n);
  PX_EFC_FIELDS_CPU(X)
#undef X
  if (slot >= 0) {
#define X(type, name, n) d->name = w->name + (size_t)slot * (size_t)(n);
    PX_EFC_SCRATCH(X)
#undef X
  }
  d->efc_n = w->efc_n + (size_t)world * PX_EFC_NCOUNT;
  d->nefcmax = w->nefcmax;
  d->efcdual = w->efcdual;
  d->efcsparse = w->efcsparse;
}

void px_resetWorld(const pxModel* m, pxWorlds* w, int world) {
  pxData d;
  px_worldView(w, world, &d);
  px_resetData(m, &d);
  w->time[world] = d.time;
}

//---------------------------------- names ---------------------------------------------------------

// address table and count of names for an object type, or NULL
static const int* nameTable(const pxModel* m, int type, int* n) {
  switch (type) {
    case PX_OBJ_BODY:
    case PX_OBJ_XBODY:
      *n = m->nbody;
      return m->name_bodyadr;
    case PX_OBJ_JOINT:
      *n = m->njnt;
      return m->name_jntadr;
    case PX_OBJ_GEOM:
      *n = m->ngeom;
      return m->name_geomadr;
    case PX_OBJ_SITE:
      *n = m->nsite;
      return m->name_siteadr;
    case PX_OBJ_CAMERA:
      *n = m->ncam;
      return m->name_camadr;
    case PX_OBJ_LIGHT:
      *n = m->nlight;
      return m->name_lightadr;
    case PX_OBJ_MESH:
      *n = m->nmesh;
      return m->name_meshadr;
    case PX_OBJ_HFIELD:
      *n = m->nhfield;
      return m->name_hfieldadr;
    case PX_OBJ_TEXTURE:
      *n = m->ntex;
      return m->name_texadr;
    case PX_OBJ_MATERIAL:
      *n = m->nmat;
      return m->name_matadr;
    case PX_OBJ_PAIR:
      *n = m->npair;
      return m->name_pairadr;
    case PX_OBJ_EXCLUDE:
      *n = m->nexclude;
      return m->name_excludeadr;
    case PX_OBJ_EQUALITY:
      *n = m->neq;
      return m->name_eqadr;
    case PX_OBJ_TENDON:
      *n = m->ntendon;
      return m->name_tendonadr;
    case PX_OBJ_ACTUATOR:
      *n = m->nu;
      return m->name_actuatoradr;
    case PX_OBJ_SENSOR:
      *n = m->nsensor;
      return m->name_sensoradr;
    case PX_OBJ_NUMERIC:
      *n = m->nnumeric;
      return m->name_numericadr;
    case PX_OBJ_TEXT:
      *n = m->ntext;
      return m->name_textadr;
    case PX_OBJ_TUPLE:
      *n = m->ntuple;
      return m->name_tupleadr;
    case PX_OBJ_KEY:
      *n = m->nkey;
      return m->name_keyadr;
    default:
      *n = 0;
      return NULL;
  }
}

int px_name2id(const pxModel* m, int type, const char* name) {
  int n;
  const int* adr = nameTable(m, type, &n);
  if (!adr || !name || !name[0]) return -1;
  for (int i = 0; i < n; i++) {
    if (!strcmp(m->names + adr[i], name)) return i;
  }
  return -1;
}

const char* px_id2name(const pxModel* m, int type, int id) {
  int n;
  const int* adr = nameTable(m, type, &n);
  if (!adr || id < 0 || id >= n || !m->names[adr[id]]) return NULL;
  return m->names + adr[id];
}
