// SPDX-License-Identifier: Apache-2.0
// The phases on the GPU (kinematics, forward, step): upload, dispatch, wait, read back.
//
// Buffer layout (one host-visible buffer per call; docs/gpu_executor.md), the C twin of the
// generated shaders/layout.glsl, computed from the same X-macro tables:
//   [0, 256)      PxParams: model address, data address, nworld, time, flag and tsave addresses,
//                 contact, ncon, colscr_r and colscr_i addresses, nconmax, nbpmax and the
//                 scratch sizes per world, the pair lists and their capacity; then (the members
//                 the constraint entry points declare, PX_LAYOUT_EFC) the PxEfc block, efc_n,
//                 nefcmax, efcdual and the model statistics
//   modelBlock    PxModel (std430): PX_MODEL_SIZES ints, pxOption fields (reals as the shader's
//                 real type, in struct order), then one 8-byte address per PX_MODEL_FIELDS array
//   dataBlock     PxData: one 8-byte address per PX_DATA_FIELDS array
//   arrays        every model array, then every data array as an (nworld x nrow*ncol) block,
//                 then the (nworld) times, int step flags and RK4 start times, the contact
//                 records (nconmax + PX_MAXCONPAIR per world, pxContact's fields in std430),
//                 the contact counts and the collision scratch, each 64-byte aligned;
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
static const uint32_t spvColpairsF64[] =
#include "spirv/colpairs_f64.inc"
;
static const uint32_t spvColpairsF32[] =
#include "spirv/colpairs_f32.inc"
;
static const uint32_t spvColPrimF64[] =
#include "spirv/colnarrow_prim_f64.inc"
;
static const uint32_t spvColPrimF32[] =
#include "spirv/colnarrow_prim_f32.inc"
;
static const uint32_t spvColConvexF64[] =
#include "spirv/colnarrow_convex_f64.inc"
;
static const uint32_t spvColConvexF32[] =
#include "spirv/colnarrow_convex_f32.inc"
;
static const uint32_t spvColHfieldF64[] =
#include "spirv/colnarrow_hfield_f64.inc"
;
static const uint32_t spvColHfieldF32[] =
#include "spirv/colnarrow_hfield_f32.inc"
;
static const uint32_t spvSensorF64[] =
#include "spirv/sensor_f64.inc"
;
static const uint32_t spvSensorF32[] =
#include "spirv/sensor_f32.inc"
;
static const uint32_t spvConstraintF64[] =
#include "spirv/constraint_f64.inc"
;
static const uint32_t spvConstraintF32[] =
#include "spirv/constraint_f32.inc"
;
static const uint32_t spvSolPrimalF64[] =
#include "spirv/solprimal_f64.inc"
;
static const uint32_t spvSolPrimalF32[] =
#include "spirv/solprimal_f32.inc"
;
static const uint32_t spvSolDualF64[] =
#include "spirv/soldual_f64.inc"
;
static const uint32_t spvSolDualF32[] =
#include "spirv/soldual_f32.inc"
;
static const uint32_t spvSensorFullF64[] =
#include "spirv/sensorfull_f64.inc"
;
static const uint32_t spvSensorFullF32[] =
#include "spirv/sensorfull_f32.inc"
;
static const uint32_t spvSensorDistPrimF64[] =
#include "spirv/sensor_distprim_f64.inc"
;
static const uint32_t spvSensorDistPrimF32[] =
#include "spirv/sensor_distprim_f32.inc"
;
static const uint32_t spvSensorDistF64[] =
#include "spirv/sensor_dist_f64.inc"
;
static const uint32_t spvSensorDistF32[] =
#include "spirv/sensor_dist_f32.inc"
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
    {{spvColpairsF32, sizeof(spvColpairsF32)}, {spvColpairsF64, sizeof(spvColpairsF64)}},
    {{spvColPrimF32, sizeof(spvColPrimF32)}, {spvColPrimF64, sizeof(spvColPrimF64)}},
    {{spvColConvexF32, sizeof(spvColConvexF32)}, {spvColConvexF64, sizeof(spvColConvexF64)}},
    {{spvColHfieldF32, sizeof(spvColHfieldF32)}, {spvColHfieldF64, sizeof(spvColHfieldF64)}},
    {{spvSensorF32, sizeof(spvSensorF32)}, {spvSensorF64, sizeof(spvSensorF64)}},
    {{spvConstraintF32, sizeof(spvConstraintF32)}, {spvConstraintF64, sizeof(spvConstraintF64)}},
    {{spvSolPrimalF32, sizeof(spvSolPrimalF32)}, {spvSolPrimalF64, sizeof(spvSolPrimalF64)}},
    {{spvSolDualF32, sizeof(spvSolDualF32)}, {spvSolDualF64, sizeof(spvSolDualF64)}},
    {{spvSensorFullF32, sizeof(spvSensorFullF32)}, {spvSensorFullF64, sizeof(spvSensorFullF64)}},
    {{spvSensorDistPrimF32, sizeof(spvSensorDistPrimF32)},
     {spvSensorDistPrimF64, sizeof(spvSensorDistPrimF64)}},
    {{spvSensorDistF32, sizeof(spvSensorDistF32)}, {spvSensorDistF64, sizeof(spvSensorDistF64)}},
};

//---------------------------------- layout --------------------------------------------------------

// bytes of the parameter block (PxParams: its PX_LAYOUT_EFC members end at byte 144)
#define PXV_PARAMS_BYTES 256

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
// the constraint rows (PX_EFC_FIELDS, per world) and the solver scratch (PX_EFC_SCRATCH, one slot
// per world on the GPU): the PxEfc block of the layout (PX_LAYOUT_EFC), in table order
enum {
#define X(type, name, n) EFCROW_##name,
  PX_EFC_FIELDS(X)
#undef X
  NEFCROW
};
enum {
#define X(type, name, n) EFCSCRATCH_##name,
  PX_EFC_SCRATCH(X)
#undef X
  NEFCSCRATCH
};
#define NEFCFIELD (NEFCROW + NEFCSCRATCH)
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

// pxContact in struct order: the members of the shaders' PxContact (gen_layout.py parses the
// struct); std430 packs them as C does, reals as the shader's real type
typedef struct {
  size_t offset;  // in pxContact
  size_t count;   // elements
  int real;       // pxtNum (else int)
} contactField;

#define CON_R(f) \
  { offsetof(pxContact, f), sizeof(((pxContact*)0)->f) / sizeof(pxtNum), 1 }
#define CON_I(f) \
  { offsetof(pxContact, f), sizeof(((pxContact*)0)->f) / sizeof(int), 0 }
static const contactField contactFields[] = {
    CON_R(dist),
    CON_R(pos),
    CON_R(frame),
    CON_R(includemargin),
    CON_R(friction),
    CON_R(solref),
    CON_R(solreffriction),
    CON_R(solimp),
    CON_R(adhesion),
    CON_R(mu),
    CON_R(H),
    CON_I(dim),
    CON_I(geom1),
    CON_I(geom2),
    CON_I(geom),
    CON_I(flex),
    CON_I(elem),
    CON_I(vert),
    CON_I(exclude),
    CON_I(efc_address),
};
#define NCONTACTFIELD ((int)(sizeof(contactFields) / sizeof(contactFields[0])))

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

// the constraint arrays of w in PxEfc order: the rows (host: w's blocks) then the scratch (host:
// w's blocks where w holds one slot per world, else none: zeros are uploaded); all empty unless
// the phase runs the constraint stage (`used`)
static void describeEfc(const pxModel* m, const pxWorlds* w, int used, fieldRef* ef) {
  size_t PXE_ROWS = (size_t)w->nefcmax, PXE_NV = (size_t)m->nv, PXE_NC = (size_t)m->nC;
  size_t PXE_NTREE = (size_t)m->ntree, PXE_DUAL = (size_t)w->efcdual;
  size_t nworld = used ? (size_t)w->nworld : 0;
  int i = 0;
#define X(type, name, n) ef[i++] = (fieldRef){(void*)w->name, nworld * (size_t)(n), KIND(type)};
  PX_EFC_FIELDS(X)
#undef X
  int own = w->nslot == w->nworld;
#define X(type, name, n) \
  ef[i++] = (fieldRef){own ? (void*)w->name : NULL, nworld * (size_t)(n), KIND(type)};
  PX_EFC_SCRATCH(X)
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
  size_t contact;             // the (nworld x (nconmax + PX_MAXCONPAIR)) contact records
  size_t ncon;                // the (nworld) contact counts
  size_t colscr_r;            // the (nworld x px_colScratchReals) collision scratch reals
  size_t colscr_i;            // the (nworld x px_colScratchInts) collision scratch ints
  size_t conStride;           // bytes of a contact record on the GPU
  size_t nconRec;             // records per world (nconmax + PX_MAXCONPAIR)
  size_t nscr_r, nscr_i;      // scratch elements per world
  size_t colpairs;            // the (nworld x (2 + 3 * npairmax)) geom pair lists
  size_t npairmax;            // pair capacity per world (px_colPairCapacity)
  size_t efcBlock;            // PxEfc: one address per constraint array
  size_t efc[NEFCFIELD];      // the constraint arrays (nworld x their size)
  size_t efc_n;               // the (nworld x PX_EFC_NCOUNT) row counts
  size_t stat;                // the model statistics (pxStatistic's reals)
  int constraints;            // the phase runs the constraint stage (rows and counts uploaded)
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

// check that contactFields tiles pxContact without gaps
static int contactTableOk(void) {
  size_t end = 0;
  for (int i = 0; i < NCONTACTFIELD; i++) {
    const contactField* c = contactFields + i;
    if (c->offset != end) return 0;
    end += c->count * (c->real ? sizeof(pxtNum) : sizeof(int));
  }
  return alignTo(end, _Alignof(pxContact)) == sizeof(pxContact);
}

// bytes of a contact record on the GPU (std430: members aligned to their element size, the
// struct to its largest member), and the GPU offset of each member
static size_t contactGpuLayout(int rb, size_t* offsets) {
  size_t b = 0;
  for (int i = 0; i < NCONTACTFIELD; i++) {
    size_t eb = contactFields[i].real ? (size_t)rb : 4;
    b = alignTo(b, eb);
    if (offsets) offsets[i] = b;
    b += eb * contactFields[i].count;
  }
  return alignTo(b, (size_t)rb);
}

static void computeLayout(const pxModel* m, const pxWorlds* w, const fieldRef* mf,
                          const fieldRef* df, const fieldRef* ef, int rb, layout* L) {
  int nworld = w->nworld;
  size_t off = PXV_PARAMS_BYTES;  // PxParams

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
  L->conStride = contactGpuLayout(rb, NULL);
  L->nconRec = (size_t)w->nconmax + PX_MAXCONPAIR;
  L->nscr_r = (size_t)px_colScratchReals(m);
  L->nscr_i = (size_t)px_colScratchInts(m, w->nbpmax);
  L->contact = off;
  off = alignTo(off + (size_t)nworld * L->nconRec * L->conStride, 64);
  L->ncon = off;
  off = alignTo(off + (size_t)nworld * 4, 64);
  L->colscr_r = off;
  off = alignTo(off + (size_t)nworld * L->nscr_r * (size_t)rb, 64);
  L->colscr_i = off;
  off = alignTo(off + (size_t)nworld * L->nscr_i * 4, 64);
  L->npairmax = (size_t)px_colPairCapacity(m);
  L->colpairs = off;
  off = alignTo(off + (size_t)nworld * (2 + 3 * L->npairmax) * 4, 64);
  L->efcBlock = off;
  off = alignTo(off + 8 * (size_t)NEFCFIELD, 64);
  for (int i = 0; i < NEFCFIELD; i++) {
    L->efc[i] = off;
    off = alignTo(off + ef[i].n * kindBytes(ef[i].kind, rb), 64);
  }
  L->efc_n = off;
  off = alignTo(off + (size_t)nworld * PX_EFC_NCOUNT * 4, 64);
  L->stat = off;
  off = alignTo(off + sizeof(pxStatistic) / sizeof(pxtNum) * (size_t)rb, 64);
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
                   const fieldRef* ef, const layout* L, const pxvBuffer* buf) {
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

  // PxParams, continued: contact records, counts, collision scratch (zeroed: the collision
  // stage writes them before it reads them), then the per-world sizes
  uint64_t col[4] = {a + L->contact, a + L->ncon, a + L->colscr_r, a + L->colscr_i};
  int32_t sizes[4] = {w->nconmax, w->nbpmax, (int32_t)L->nscr_r, (int32_t)L->nscr_i};
  memcpy(base + 48, col, sizeof(col));
  memcpy(base + 80, sizes, sizeof(sizes));
  uint64_t pairs = a + L->colpairs;
  int32_t npairmax = (int32_t)L->npairmax;
  memcpy(base + 96, &pairs, sizeof(pairs));
  memcpy(base + 104, &npairmax, sizeof(npairmax));
  memset(base + L->contact, 0,
         L->colpairs + (size_t)w->nworld * (2 + 3 * L->npairmax) * 4 - L->contact);

  // PxParams, continued (PX_LAYOUT_EFC): the constraint block, the row counts, the row and dual
  // capacities, the model statistics; the rows and counts from w (the state a forward pass
  // starts from), the scratch from w where it has a slot per world (else zeros: every solver
  // writes its scratch before reading it)
  uint64_t efcrefs[2] = {a + L->efcBlock, a + L->efc_n};
  int32_t efcsizes[2] = {w->nefcmax, w->efcdual};
  uint64_t stat = a + L->stat;
  memcpy(base + 112, efcrefs, sizeof(efcrefs));
  memcpy(base + 128, efcsizes, sizeof(efcsizes));
  memcpy(base + 136, &stat, sizeof(stat));
  for (int i = 0; i < NEFCFIELD; i++) {
    uint64_t r = a + L->efc[i];
    memcpy(base + L->efcBlock + 8 * (size_t)i, &r, 8);
    if (ef[i].host) {
      putArray(base + L->efc[i], ef[i].host, ef[i].n, ef[i].kind, rb);
    } else {
      memset(base + L->efc[i], 0, ef[i].n * kindBytes(ef[i].kind, rb));
    }
  }
  // without a constraint stage in the phase: no rows (px_forward's state for constraint-free
  // models; the sensor pass reads the counts)
  if (L->constraints) {
    memcpy(base + L->efc_n, w->efc_n, (size_t)w->nworld * PX_EFC_NCOUNT * 4);
  } else {
    memset(base + L->efc_n, 0, (size_t)w->nworld * PX_EFC_NCOUNT * 4);
  }
  putArray(base + L->stat, &m->stat, sizeof(pxStatistic) / sizeof(pxtNum), KIND_REAL, rb);

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

// every data array and the times back into the worlds; with `constraints`, the constraint rows
// and their counts; with `contacts`, the contact counts and each world's first ncon contact
// records too
static void download(pxWorlds* w, const fieldRef* df, const fieldRef* ef, const layout* L,
                     const pxvBuffer* buf, int contacts, int constraints) {
  const char* base = (const char*)buf->map;
  for (int i = 0; i < NDATAFIELD; i++) {
    getArray(df[i].host, base + L->data[i], df[i].n, df[i].kind, L->rb);
  }
  getArray(w->time, base + L->time, (size_t)w->nworld, KIND_REAL, L->rb);
  if (constraints) {
    for (int i = 0; i < NEFCROW; i++)
      getArray(ef[i].host, base + L->efc[i], ef[i].n, ef[i].kind, L->rb);
    memcpy(w->efc_n, base + L->efc_n, (size_t)w->nworld * PX_EFC_NCOUNT * 4);
  }
  if (!contacts) return;
  size_t goff[NCONTACTFIELD];
  contactGpuLayout(L->rb, goff);
  memcpy(w->ncon, base + L->ncon, (size_t)w->nworld * sizeof(int));
  for (int wi = 0; wi < w->nworld; wi++) {
    int32_t npair;  // -1: the pair list overflowed (reported by pxv_collision)
    memcpy(&npair, base + L->colpairs + (size_t)wi * (2 + 3 * L->npairmax) * 4, 4);
    if (npair < 0) w->ncon[wi] = -1;
    int n = w->ncon[wi];
    if (n < 0) n = 0;
    if ((size_t)n > L->nconRec) n = (int)L->nconRec;
    for (int c = 0; c < n; c++) {
      size_t rec = (size_t)wi * L->nconRec + (size_t)c;
      char* dst = (char*)(w->contact + rec);
      const char* src = base + L->contact + rec * L->conStride;
      for (int f = 0; f < NCONTACTFIELD; f++) {
        const contactField* cf = contactFields + f;
        if (cf->real && L->rb == 4) {
          for (size_t k = 0; k < cf->count; k++) {
            float v;
            memcpy(&v, src + goff[f] + 4 * k, 4);
            double dv = v;
            memcpy(dst + cf->offset + sizeof(double) * k, &dv, sizeof(double));
          }
        } else {
          memcpy(dst + cf->offset, src + goff[f], cf->count * (cf->real ? sizeof(pxtNum) : 4));
        }
      }
    }
  }
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

// steps of one pxv_step call: each is 5 (RK4: 11) recorded dispatches per chunk of worlds, plus
// one or two per sensor-computing forward pass (shaders/sensor.comp)
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
  VkBufferCopy whole = {0, 0, buf->size};
  if (buf->device) {
    // the device-local twin (buffer.c): the upload copied in before the first dispatch
    VkMemoryBarrier toShaders = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    ctx->vk.vkCmdCopyBuffer(cmd, buf->buffer, buf->device, 1, &whole);
    toShaders.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    toShaders.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    ctx->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &toShaders, 0, NULL, 0,
                                 NULL);
  }
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

  // compute writes -> host reads after the fence (through the copy back from the twin)
  VkPipelineStageFlags last = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
  toHost.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  if (buf->device) {
    VkMemoryBarrier toCopy = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    toCopy.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    toCopy.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    ctx->vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                 VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &toCopy, 0, NULL, 0, NULL);
    ctx->vk.vkCmdCopyBuffer(cmd, buf->device, buf->buffer, 1, &whole);
    last = VK_PIPELINE_STAGE_TRANSFER_BIT;
    toHost.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  }
  toHost.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  ctx->vk.vkCmdPipelineBarrier(cmd, last, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &toHost, 0, NULL, 0,
                               NULL);
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
  if (!contactTableOk()) {
    return PX_FAIL(st, PX_ERR_INTERNAL, "GPU contact table does not match pxContact");
  }
  // the contact records and the collision scratch are world-major blocks too
  if ((double)w->nworld * ((double)w->nconmax + PX_MAXCONPAIR) >= 2147483648.0 ||
      (double)w->nworld * (double)px_colScratchReals(m) >= 2147483648.0 ||
      (double)w->nworld * (double)px_colScratchInts(m, w->nbpmax) >= 2147483648.0) {
    return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                   "%s: %d worlds of contacts or collision scratch exceed 2^31 elements; use fewer "
                   "worlds per batch",
                   fn, w->nworld);
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
  // and the constraint arrays (per world: rows x nv for efc_J)
  size_t PXE_ROWS = (size_t)w->nefcmax, PXE_NV = (size_t)m->nv, PXE_NC = (size_t)m->nC;
  size_t PXE_NTREE = (size_t)m->ntree, PXE_DUAL = (size_t)w->efcdual;
#define X(type, name, n)                                                                      \
  if ((double)w->nworld * (double)(n) >= 2147483648.0) {                                      \
    return PX_FAIL(st, PX_ERR_UNSUPPORTED,                                                    \
                   "%d worlds of " #name " exceed 2^31 elements; use fewer worlds per batch", \
                   w->nworld);                                                                \
  }
  PX_EFC_FIELDS(X)
  PX_EFC_SCRATCH(X)
#undef X
  (void)PXE_ROWS, (void)PXE_NV, (void)PXE_NC, (void)PXE_NTREE, (void)PXE_DUAL;
  return PX_OK;
}

// a sequence of entry points over every world of w, `repeat` times: checks, pipelines,
// upload, dispatches, read-back
static int solveDispatches(const pxvContext* ctx, const pxModel* m);

static pxtStatus runPhase(pxvContext* ctx, const pxModel* m, pxWorlds* w, int precision64,
                          int lanes, const dispatchOp* ops, int nop, int repeat, const char* fn,
                          pxStatus* st) {
  pxvBuffer buf;
  pxvPipeline* pipes[PXV_NPHASE] = {NULL};
  layout L;
  fieldRef mf[NMODELFIELD], df[NDATAFIELD], ef[NEFCFIELD];
  memset(&buf, 0, sizeof(buf));
  if (checkArgs(ctx, m, w, precision64, fn, st)) return st->code;
  int fp64 = precision64 == -1 ? ctx->float64 : precision64;
  memset(&ctx->timing, 0, sizeof(ctx->timing));
  for (int o = 0; o < nop; o++) {
    int ph = ops[o].phase;
    // the narrow phase, the constraint stage and the geom distance sensors run on one lane
    // whatever the caller's lanes (one pipeline, not six; their stages are sequential)
    int pl = (ph == PXV_PHASE_COLPRIM || ph == PXV_PHASE_COLCONVEX || ph == PXV_PHASE_COLHFIELD ||
              ph == PXV_PHASE_CONSTRAINT || ph == PXV_PHASE_SOLPRIMAL || ph == PXV_PHASE_SOLDUAL ||
              ph == PXV_PHASE_SENSORDISTPRIM || ph == PXV_PHASE_SENSORDIST)
                 ? 1
                 : lanes;
    if (!pipes[ph] && phasePipeline(ctx, ph, fp64, pl, &pipes[ph], st)) return st->code;
  }

  // upload
  double t0 = pxv_now();
  describe(m, w, mf, df);
  int constraints = 0;
  for (int o = 0; o < nop; o++) constraints |= ops[o].phase == PXV_PHASE_CONSTRAINT;
  describeEfc(m, w, constraints, ef);
  computeLayout(m, w, mf, df, ef, fp64 ? 8 : 4, &L);
  L.constraints = constraints;
  // the full sensor passes (sensorfull.comp, sensor_dist*.comp) read the row counts and flag the
  // loop limiter
  int sensorfull = 0;
  for (int o = 0; o < nop; o++) {
    int ph = ops[o].phase;
    sensorfull |=
        ph == PXV_PHASE_SENSORFULL || ph == PXV_PHASE_SENSORDISTPRIM || ph == PXV_PHASE_SENSORDIST;
  }
  if (pxv_bufferCreate(ctx, (VkDeviceSize)L.total, &buf, st)) {
    char why[sizeof(st->msg)];
    memcpy(why, st->msg, sizeof(why));
    return px_fail(st, st->code, st->func, st->line, "%.900s (a %zu-byte buffer for %d worlds)",
                   why, L.total, w->nworld);
  }
  upload(m, w, mf, df, ef, &L, &buf);
  ctx->timing.staged = buf.device != VK_NULL_HANDLE;
  double t1 = pxv_now();

  // run, read back
  if (!execute(ctx, pipes, ops, nop, repeat, &buf, w->nworld, st)) {
    double t2 = pxv_now();
    int contacts = 0;
    for (int o = 0; o < nop; o++) contacts |= ops[o].phase == PXV_PHASE_COLPAIRS;
    download(w, df, ef, &L, &buf, contacts, constraints);
    // a world whose constraint entry points or full sensor pass ran out of the device's loop
    // budget (lavapipe), or whose solve did not finish within its dispatches, has wrong rows,
    // forces or readings: an error, never a result (the flag: 1 from the constraint stage, 2 from
    // the sensor pass)
    for (int i = 0; (constraints || sensorfull) && i < w->nworld; i++) {
      int32_t trunc;
      memcpy(&trunc,
             (const char*)buf.map + L.efc_n + ((size_t)i * PX_EFC_NCOUNT + PX_EFC_NTRUNC) * 4, 4);
      if (trunc & 1) {
        PX_FAIL(st, PX_ERR_UNSUPPORTED,
                "%s: world %d: the device ended a loop of the constraint stage early, or its "
                "solve did not finish within %d dispatches (%d rows; lavapipe stops every loop "
                "after 65535 loop iterations per invocation), so its rows or forces would be "
                "wrong; use the CPU executor or a GPU",
                fn, i, 1 + solveDispatches(ctx, m),
                w->efc_n[(size_t)i * PX_EFC_NCOUNT + PX_EFC_NEFC]);
        break;
      }
      if (trunc) {
        PX_FAIL(st, PX_ERR_UNSUPPORTED,
                "%s: world %d: the device ended a loop of the sensor pass early (lavapipe stops "
                "every loop after 65535 loop iterations per invocation), so its sensor readings "
                "would be wrong; use the CPU executor or a GPU",
                fn, i);
        break;
      }
    }
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

// the sensor dispatches of a forward pass (shaders/sensor.comp): whether the model computes
// sensors, and whether an e_kinetic sensor under the energy flag needs energy[1] as the pass
// found it (saved before the pass)
static int sensorsOn(const pxModel* m) {
  return m->nsensor > 0 && !(m->opt.disableflags & PX_DSBL_SENSOR);
}

static int sensorsSaveKe(const pxModel* m) {
  if (!sensorsOn(m) || !(m->opt.enableflags & PX_ENBL_ENERGY)) return 0;
  for (int i = 0; i < m->nsensor; i++) {
    if (m->sensor_type[i] == PX_SENS_E_KINETIC) return 1;
  }
  return 0;
}

// the narrow-phase family of geom pair (g1, g2), as pxl_family of shaders/colnarrow.glsl
static int colFamily(const pxModel* m, int g1, int g2) {
  int ta = m->geom_type[g1], tb = m->geom_type[g2];
  int t1 = ta < tb ? ta : tb, t2 = ta < tb ? tb : ta;
  if (t1 == PX_GEOM_HFIELD) return 2;
  if (t1 == PX_GEOM_PLANE) return 0;
  int prim1 = t1 == PX_GEOM_SPHERE || t1 == PX_GEOM_CAPSULE || t1 == PX_GEOM_BOX;
  int prim2 = t2 == PX_GEOM_SPHERE || t2 == PX_GEOM_CAPSULE || t2 == PX_GEOM_BOX;
  if (prim1 && prim2) return 0;
  if (t1 == PX_GEOM_SPHERE && t2 == PX_GEOM_CYLINDER) return 0;
  return 1;
}

// the families of the pairs the collision driver may visit (the explicit pairs and the geom
// pairs of every body pair) into present[3]
static void colFamilies(const pxModel* m, int* present) {
  present[0] = present[1] = present[2] = 0;
  for (int p = 0; p < m->npair; p++) present[colFamily(m, m->pair_geom1[p], m->pair_geom2[p])] = 1;
  for (int g1 = 0; g1 < m->ngeom; g1++) {
    for (int g2 = g1 + 1; g2 < m->ngeom; g2++) {
      // the driver's geom filter (csrc/kern/collide.h): other bodies, contype meets conaffinity
      if (m->geom_bodyid[g1] == m->geom_bodyid[g2]) continue;
      if (!(m->geom_contype[g1] & m->geom_conaffinity[g2]) &&
          !(m->geom_contype[g2] & m->geom_conaffinity[g1])) {
        continue;
      }
      present[colFamily(m, g1, g2)] = 1;
    }
  }
}

// the GPU's limits for the convex (GJK/EPA) and height-field narrow phase: on a CPU Vulkan
// device (Mesa's lavapipe) the pipeline's cold compile takes minutes of CPU (docs/gpu_executor.md,
// "Collision"): refused rather than seeming to hang, unless asked for (environment
// PX_GPU_CONVEX=1); the EPA polytope and the polygon multi-contact have fixed sizes. `what` names
// the caller's use in the messages
static pxtStatus convexCheck(const pxvContext* ctx, const pxModel* m, const char* fn,
                             const char* what, pxStatus* st) {
  if (ctx->properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU) {
    const char* force = getenv("PX_GPU_CONVEX");
    if (!force || strcmp(force, "1") != 0) {
      return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                     "%s: %s on the CPU Vulkan device %s: its compiler takes minutes for the "
                     "convex and height-field narrow-phase pipelines (set PX_GPU_CONVEX=1 to "
                     "compile them anyway, or run this on the CPU)",
                     fn, what, ctx->properties.deviceName);
    }
  }
  if (m->opt.ccd_iterations > PXV_CCD_MAXIT) {
    return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                   "%s: %s with ccd_iterations %d; the GPU's EPA polytope holds %d iterations", fn,
                   what, m->opt.ccd_iterations, PXV_CCD_MAXIT);
  }
  for (int i = 0; i < m->nmeshpoly; i++) {
    if (m->mesh_polyvertnum[i] > PXV_MCC_MAX) {
      return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                     "%s: %s with a mesh polygon of %d vertices; the GPU's polygon multi-contact "
                     "holds %d",
                     fn, what, m->mesh_polyvertnum[i], PXV_MCC_MAX);
    }
  }
  for (int i = 0; i < m->nmeshvert; i++) {
    if (m->mesh_polymapnum[i] > PXV_MCC_MAX) {
      return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                     "%s: %s with a mesh vertex on %d polygons; the GPU's polygon multi-contact "
                     "holds %d",
                     fn, what, m->mesh_polymapnum[i], PXV_MCC_MAX);
    }
  }
  return PX_OK;
}

// pairs per narrow-phase chunk: PXL_COLCHUNK of shaders/colnarrow.glsl
#define PXV_COLCHUNK 16

// the narrow-phase dispatches over the families present (present[3], colFamilies): one family,
// one dispatch per chunk of the pair list; several, every family PXV_COLCHUNK times per chunk
// (each dispatch takes the chunk's next pair of its family, so the contacts keep pair order)
static long narrowOps(const pxModel* m, const int* present) {
  int nfam = present[0] + present[1] + present[2];
  long nchunk = (px_colPairCapacity(m) + PXV_COLCHUNK - 1) / PXV_COLCHUNK;
  return nchunk * (nfam > 1 ? PXV_COLCHUNK : 1) * nfam;
}

static int addNarrow(const pxModel* m, const int* present, dispatchOp* ops, int n) {
  int nfam = present[0] + present[1] + present[2];
  long nchunk = (px_colPairCapacity(m) + PXV_COLCHUNK - 1) / PXV_COLCHUNK;
  long reps = nfam > 1 ? PXV_COLCHUNK : 1;
  for (long c = 0; c < nchunk; c++) {
    for (long r = 0; r < reps; r++) {
      if (present[0]) ops[n++] = (dispatchOp){PXV_PHASE_COLPRIM, (int)c};
      if (present[1]) ops[n++] = (dispatchOp){PXV_PHASE_COLCONVEX, (int)c};
      if (present[2]) ops[n++] = (dispatchOp){PXV_PHASE_COLHFIELD, (int)c};
    }
  }
  return n;
}

// the geom distance sensors (distance, normal, fromto): 0 if the model computes none (sensors
// enabled, or a history buffer, whose update computes the sensor), 1 if every geom pair they
// query runs a primitive routine (shaders/sensor_distprim.comp), 2 if some pair needs GJK/EPA or
// a height field (shaders/sensor_dist.comp). A pair's route is mj_geomDistance's
// (csrc/kern/collide_dist.h): with nativeccd, the pairs pxk_distCcdRoute names run GJK;
// otherwise the narrow-phase routine of the pair (colFamily)
static int geomDistKind(const pxModel* m) {
  int kind = 0;
  int nativeccd = !(m->opt.disableflags & PX_DSBL_NATIVECCD);
  for (int i = 0; i < m->nsensor; i++) {
    int t = m->sensor_type[i];
    if (t != PX_SENS_GEOMDIST && t != PX_SENS_GEOMNORMAL && t != PX_SENS_GEOMFROMTO) continue;
    if ((m->opt.disableflags & PX_DSBL_SENSOR) && m->sensor_history[2 * i] <= 0) continue;
    if (kind == 0) kind = 1;
    int id1 = m->sensor_objid[i], n1 = 1, id2 = m->sensor_refid[i], n2 = 1;
    if (m->sensor_objtype[i] == PX_OBJ_BODY) {
      n1 = m->body_geomnum[id1];
      id1 = m->body_geomadr[id1];
    }
    if (m->sensor_reftype[i] == PX_OBJ_BODY) {
      n2 = m->body_geomnum[id2];
      id2 = m->body_geomadr[id2];
    }
    for (int g1 = id1; g1 < id1 + n1; g1++) {
      for (int g2 = id2; g2 < id2 + n2; g2++) {
        int ta = m->geom_type[g1], tb = m->geom_type[g2];
        int t1 = ta < tb ? ta : tb, t2 = ta < tb ? tb : ta;
        // pxk_distCcdRoute
        int ccd = 1;
        if (t1 == PX_GEOM_PLANE || t1 == PX_GEOM_HFIELD || t1 == PX_GEOM_SDF || t2 == PX_GEOM_SDF) {
          ccd = 0;
        } else if (t1 == PX_GEOM_SPHERE) {
          ccd = t2 == PX_GEOM_ELLIPSOID || t2 == PX_GEOM_MESH;
        } else if (t1 == PX_GEOM_CAPSULE) {
          ccd = t2 != PX_GEOM_CAPSULE && t2 != PX_GEOM_BOX;
        }
        if ((nativeccd && ccd) || colFamily(m, g1, g2) != 0) kind = 2;
      }
    }
  }
  return kind;
}

// the entry point of the sensor dispatches (and of the history update) of this model: the
// smaller of shaders/sensor.comp and sensorfull.comp that computes its sensors (both leave the
// geom distance sensors to distPhase's)
static int sensorPhase(const pxModel* m) {
  return px_sensorFullGPU(m) ? PXV_PHASE_SENSORFULL : PXV_PHASE_SENSOR;
}

// the entry point that computes the model's geom distance sensors after sensorPhase's (same
// mode), or -1 if it has none to compute (geomDistKind)
static int distPhase(const pxModel* m) {
  int kind = geomDistKind(m);
  if (kind == 2) return PXV_PHASE_SENSORDIST;
  if (kind == 1) return PXV_PHASE_SENSORDISTPRIM;
  return -1;
}

// appends the sensor dispatches of a forward pass (mode 2, 3) or of the history update (mode 4)
static int addSensors(const pxModel* m, dispatchOp* ops, int n, int mode) {
  ops[n++] = (dispatchOp){sensorPhase(m), mode};
  int dph = distPhase(m);
  if (dph >= 0) ops[n++] = (dispatchOp){dph, mode};
  return n;
}

// what the sensor entry point with GJK/EPA needs: as pxv_collision's refusals (a CPU Vulkan
// device does not finish compiling it in reasonable time unless PX_GPU_CONVEX=1; the EPA
// polytope and polygon sizes of the GPU)
static pxtStatus sensorDistCheck(const pxvContext* ctx, const pxModel* m, const char* fn,
                                 pxStatus* st) {
  if (geomDistKind(m) != 2) return PX_OK;
  return convexCheck(ctx, m, fn,
                     "geom distance sensors with convex (GJK/EPA) or height-field pairs", st);
}

// the collision dispatches of the forward pass: whether contacts can arise (the constraint and
// contact stages on, two geoms that may collide or an explicit pair)
static int contactsOn(const pxModel* m) {
  if (px_constraintFree(m)) return 0;
  if (m->opt.disableflags & (PX_DSBL_CONSTRAINT | PX_DSBL_CONTACT)) return 0;
  if (m->npair > 0) return 1;
  int ncollide = 0;
  for (int g = 0; g < m->ngeom; g++) ncollide += (m->geom_contype[g] || m->geom_conaffinity[g]);
  return ncollide > 1;
}

// the narrow-phase families a forward pass dispatches (colFamilies; none without contacts)
static void forwardFamilies(const pxModel* m, int* present) {
  present[0] = present[1] = present[2] = 0;
  if (contactsOn(m)) colFamilies(m, present);
}

// what the GPU's forward pass refuses beyond px_forwardCheck (present: forwardFamilies): body
// transmissions with contacts, the convex and height-field narrow phase's limits (convexCheck)
static pxtStatus constraintCheckGPU(const pxvContext* ctx, const pxModel* m, const int* present,
                                    const char* fn, pxStatus* st) {
  // the sparse layout of efc_J is the CPU's only (px/pxdata.h PX_EFC_SPARSE)
  if (px_efcSparse(m) && px_efcCapacity(m) > 0) {
    return PX_FAIL(
        st, PX_ERR_UNSUPPORTED,
        "%s: the sparse constraint Jacobian (jacobian sparse, or auto with nv >= 60; "
        "nv = %d) is not supported on the GPU yet (jacobian dense, or run it on the CPU)",
        fn, m->nv);
  }
  if (!contactsOn(m)) return PX_OK;
  // the CPU computes body transmissions after its constraint rows (csrc/kern/trnbody.h); the
  // GPU's forward pass runs the transmission before collision only
  for (int i = 0; i < m->nu; i++) {
    if (m->actuator_trntype[i] == PX_TRN_BODY) {
      return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                     "%s: body transmission (adhesion actuator %d) with contacts is not supported "
                     "on the GPU yet (run it on the CPU)",
                     fn, i);
    }
  }
  if (present[1] || present[2]) {
    pxtStatus code = convexCheck(
        ctx, m, fn, present[1] ? "convex (GJK/EPA) contacts" : "height-field contacts", st);
    if (code != PX_OK) return code;
  }
  return PX_OK;
}

// dispatches of one constraint solve after its first (solprimal, soldual: "resumable solves" in
// csrc/kern/solver.h) on a device that caps the loop iterations of an invocation (Mesa's
// lavapipe, 65535): each later dispatch runs the solve's next units within the shaders' budget,
// returning at once where the world's solve has finished, and the last flags a world still
// unfinished (PX_EFC_NTRUNC, reported by name). 0 elsewhere: one dispatch runs a whole solve.
// The count bounds the units that do not share a dispatch (each island's start and iterations,
// the projection's rows by the budget), at most PXV_SOLVE_MAX. The environment variable
// PX_VULKAN_SOLVE_DISPATCHES sets it on any device (0: one dispatch without a budget)
#define PXV_SOLVE_MAX 2048
static int solveDispatches(const pxvContext* ctx, const pxModel* m) {
  const char* knob = getenv("PX_VULKAN_SOLVE_DISPATCHES");
  if (knob && *knob) {
    int k = atoi(knob);
    return k < 0 ? 0 : (k > PXV_SOLVE_MAX ? PXV_SOLVE_MAX : k);
  }
  if (!strstr(ctx->properties.deviceName, "llvmpipe") || px_constraintFree(m)) return 0;
  long trees = m->ntree > 1 ? m->ntree : 1;
  long iters = m->opt.iterations > 0 ? m->opt.iterations : 0;
  long rows = px_efcCapacity(m);
  long nv = m->nv;
  // the projection's rows (about rows^2 nv / 2 loop iterations) and the PGS warm start
  long project = (rows * rows / 2 * nv + rows * (2 * nv + m->nC + 60)) / 40000 + 4;
  long k = 4 + project + trees * (3 + iters) + (m->opt.noslip_iterations > 0 ? trees : 0);
  return (int)(k < PXV_SOLVE_MAX ? k : PXV_SOLVE_MAX);
}

// dispatches one forward pass may append (addForward), with `resume` later dispatches per solve
static long forwardOps(const pxModel* m, const int* present, int resume) {
  return 2 + 1 + narrowOps(m, present) + 3 + 2 * (long)resume + 2;
}

// a solve's dispatches: the first, then `resume` later ones (mode bits of solprimal/soldual.comp:
// 1 the flagged worlds, 2 a later dispatch, 4 within the loop budget, 8 the last)
static int addSolve(dispatchOp* ops, int n, int phase, int mode, int resume) {
  ops[n++] = (dispatchOp){phase, mode | (resume > 0 ? 4 : 0)};
  for (int k = 0; k < resume; k++) {
    ops[n++] = (dispatchOp){phase, mode | 2 | 4 | (k + 1 == resume ? 8 : 0)};
  }
  return n;
}

// append a forward pass (mode 0: every world, 1: the flagged ones) with its sensors (sensors
// nonzero) to ops; returns the new count. A model with constraint rows adds collision (the pair
// list, then the narrow phase of the families present in chunks), the constraint rows and the
// model's solver between the smooth pass and the sensors (px_forward's order). With mode 1,
// colpairs clears the pair list of the worlds not flagged, so that their contacts stay as they are
static int addForward(const pxModel* m, const int* present, dispatchOp* ops, int n, int mode,
                      int sensors, int resume) {
  sensors = sensors && sensorsOn(m);
  if (sensors && sensorsSaveKe(m)) ops[n++] = (dispatchOp){sensorPhase(m), mode};
  ops[n++] = (dispatchOp){PXV_PHASE_FORWARD, mode};
  if (!px_constraintFree(m)) {
    if (contactsOn(m)) {
      ops[n++] = (dispatchOp){PXV_PHASE_COLPAIRS, mode};
      n = addNarrow(m, present, ops, n);
    }
    ops[n++] = (dispatchOp){PXV_PHASE_CONSTRAINT, mode};
    if (m->opt.solver != PX_SOL_PGS) n = addSolve(ops, n, PXV_PHASE_SOLPRIMAL, mode, resume);
    if (m->opt.solver == PX_SOL_PGS || m->opt.noslip_iterations > 0) {
      n = addSolve(ops, n, PXV_PHASE_SOLDUAL, mode, resume);
    }
  }
  if (sensors) n = addSensors(m, ops, n, 2 + mode);
  return n;
}

pxtStatus pxv_forward(pxvContext* ctx, const pxModel* m, pxWorlds* w, int precision64, int lanes,
                      pxStatus* st) {
  pxStatus local;
  if (!st) st = &local;
  px_statusClear(st);
  if (checkArgs(ctx, m, w, precision64, "pxv_forward", st) || px_forwardCheck(m, st)) {
    return st->code;
  }
  int present[3];
  forwardFamilies(m, present);
  if (constraintCheckGPU(ctx, m, present, "pxv_forward", st) ||
      sensorDistCheck(ctx, m, "pxv_forward", st)) {
    return st->code;
  }
  int resume = solveDispatches(ctx, m);
  long cap = forwardOps(m, present, resume);
  if (cap > 1000000) {
    return PX_FAIL(st, PX_ERR_UNSUPPORTED, "pxv_forward: %ld dispatches per pass are too many",
                   cap);
  }
  dispatchOp* ops = (dispatchOp*)malloc(sizeof(dispatchOp) * (size_t)cap);
  if (!ops) return PX_FAIL(st, PX_ERR_NOMEM, "pxv_forward: out of memory");
  int nop = addForward(m, present, ops, 0, 0, 1, resume);
  pxtStatus code = runPhase(ctx, m, w, precision64, lanes, ops, nop, 1, "pxv_forward", st);
  free(ops);
  return code;
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
  int present[3];
  forwardFamilies(m, present);
  if (constraintCheckGPU(ctx, m, present, "pxv_step", st) ||
      sensorDistCheck(ctx, m, "pxv_step", st)) {
    return st->code;
  }
  // px_step: bad positions or velocities reset the world; forward; a bad acceleration resets
  // the world and flags it; forward again on the flagged worlds; the integrator and the advance
  // (RK4: three more forward passes between its stages). Each of the first two forward passes
  // computes the sensors (px_forward); RK4's inner passes compute none (px_forwardSkip).
  // mj_advance's history update (the sensor entry point's mode 4) runs before the advance: RK4's
  // final dispatch splits in two around it (shaders/rk4.comp modes 4 and 5)
  int resume = solveDispatches(ctx, m);
  long cap = 2 + 5 * forwardOps(m, present, resume) + 7;
  if (cap > 1000000) {
    return PX_FAIL(st, PX_ERR_UNSUPPORTED, "pxv_step: %ld dispatches per step are too many", cap);
  }
  dispatchOp* ops = (dispatchOp*)malloc(sizeof(dispatchOp) * (size_t)cap);
  if (!ops) return PX_FAIL(st, PX_ERR_NOMEM, "pxv_step: out of memory");
  int n = 0;
  ops[n++] = (dispatchOp){PXV_PHASE_CHECK, 0};
  n = addForward(m, present, ops, n, 0, 1, resume);
  ops[n++] = (dispatchOp){PXV_PHASE_CHECK, 1};
  n = addForward(m, present, ops, n, 1, 1, resume);
  if (m->opt.integrator == PX_INT_RK4) {
    for (int s = 0; s < 3; s++) {
      ops[n++] = (dispatchOp){PXV_PHASE_RK4, s};
      n = addForward(m, present, ops, n, 0, 0, resume);
    }
    if (m->nhistory > 0) {
      ops[n++] = (dispatchOp){PXV_PHASE_RK4, 4};
      n = addSensors(m, ops, n, 4);
      ops[n++] = (dispatchOp){PXV_PHASE_RK4, 5};
    } else {
      ops[n++] = (dispatchOp){PXV_PHASE_RK4, 3};
    }
  } else {
    // the history buffers take this step's controls and sensor samples (shaders/sensor.comp)
    if (m->nhistory > 0) n = addSensors(m, ops, n, 4);
    ops[n++] = (dispatchOp){PXV_PHASE_INTEGRATE, 0};
  }
  pxtStatus code = runPhase(ctx, m, w, precision64, lanes, ops, n, nstep, "pxv_step", st);
  free(ops);
  return code;
}

pxtStatus pxv_collision(pxvContext* ctx, const pxModel* m, pxWorlds* w, int precision64, int lanes,
                        pxStatus* st) {
  pxStatus local;
  if (!st) st = &local;
  px_statusClear(st);
  if (checkArgs(ctx, m, w, precision64, "pxv_collision", st) || px_collisionCheck(m, st)) {
    return st->code;
  }
  // the families of the pairs the driver may visit (the explicit pairs and the geom pairs of
  // every body pair that pass the contype/conaffinity filter), so that absent ones are neither
  // compiled nor dispatched
  int present[3];
  long npairmax = px_colPairCapacity(m);
  colFamilies(m, present);
  if (present[1] || present[2]) {
    pxtStatus code = convexCheck(ctx, m, "pxv_collision",
                                 present[1] ? "convex (GJK/EPA) pairs" : "height-field pairs", st);
    if (code != PX_OK) return code;
  }
  long nop = 1 + narrowOps(m, present);
  if (nop > 1000000) {
    return PX_FAIL(st, PX_ERR_UNSUPPORTED, "pxv_collision: %ld geom pairs need too many dispatches",
                   npairmax);
  }
  dispatchOp* ops = (dispatchOp*)malloc(sizeof(dispatchOp) * (size_t)nop);
  if (!ops) return PX_FAIL(st, PX_ERR_NOMEM, "pxv_collision: out of memory");
  int k = 0;
  ops[k++] = (dispatchOp){PXV_PHASE_COLPAIRS, 0};
  k = addNarrow(m, present, ops, k);
  pxtStatus code = runPhase(ctx, m, w, precision64, lanes, ops, k, 1, "pxv_collision", st);
  free(ops);
  if (code) return code;
  for (int i = 0; i < w->nworld; i++) {
    if (w->ncon[i] < 0) {
      w->ncon[i] = 0;
      return PX_FAIL(st, PX_ERR_INTERNAL,
                     "pxv_collision: world %d's geom pair list overflowed its capacity %ld", i,
                     npairmax);
    }
  }
  return PX_OK;
}
