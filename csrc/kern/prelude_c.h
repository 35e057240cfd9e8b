// SPDX-License-Identifier: Apache-2.0
// Kernel dialect prelude for the C build (see docs/kernel_dialect.md).
//
// The per-world numerical core in csrc/kern/ is written once in the common subset of C11 and
// GLSL 4.60. This header maps the dialect's macros to C; prelude_glsl.h maps them to GLSL.
// Both executors run the same functions in the same operation order.
#ifndef PX_KERN_PRELUDE_C_H_
#define PX_KERN_PRELUDE_C_H_

#ifdef PX_KERN_GLSL
#error "prelude_c.h included in a GLSL build"
#endif

#include <math.h>

#include "px/pxmodel.h"
#include "px/pxdata.h"

#define PX_KERN_C 1

// real type of the kernels: double unless PX_FP32 (the fp32 CPU reference build)
#ifdef PX_FP32
#define PX_REAL float
#define PX_R(x) x##f
#else
#define PX_REAL double
#define PX_R(x) (x)
#endif

// a real local whose arithmetic may not be contracted (GLSL `precise`; C has -ffp-contract=off)
#define PXR PX_REAL

// function qualifiers and small-array parameters (C passes pointers, GLSL copies)
#define PX_FN static inline
#define PX_IN(T, name, len) const T name[len]
#define PX_OUT(T, name, len) T name[len]
#define PX_INOUT(T, name, len) T name[len]

// casts
#define PX_INT(x) ((int)(x))
#define PX_TOREAL(x) ((PX_REAL)(x))

// correctly rounded hardware operations allowed in kernels (everything else: libm.h)
#define PX_ABS(x) fabs(x)
#define PX_SQRT(x) sqrt(x)

// ---- bit access (libm) ----
// words of a double and bits of a float as unsigned 32-bit integers, through memcpy (no unions)
#include <stdint.h>
#include <string.h>

#define PX_UINT uint32_t
#define PX_TOUINT(x) ((uint32_t)(x))

static inline uint32_t px_bitsHi(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return (uint32_t)(u >> 32);
}

static inline uint32_t px_bitsLo(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return (uint32_t)u;
}

static inline double px_bitsMakeDbl(uint32_t hi, uint32_t lo) {
  uint64_t u = ((uint64_t)hi << 32) | lo;
  double x;
  memcpy(&x, &u, sizeof x);
  return x;
}

static inline uint32_t px_bitsFlt(float x) {
  uint32_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

static inline float px_bitsMakeFlt(uint32_t u) {
  float x;
  memcpy(&x, &u, sizeof x);
  return x;
}

#define PX_HI(x) px_bitsHi(x)
#define PX_LO(x) px_bitsLo(x)
#define PX_MKDBL(hi, lo) px_bitsMakeDbl(hi, lo)
#define PX_FBITS(x) px_bitsFlt(x)
#define PX_MKFLT(u) px_bitsMakeFlt(u)
// ---- bit access (libm) ----

// a zero that enters arithmetic (a run-time value in GLSL, see prelude_glsl.h)
#define PX_ZERO PX_R(0.0)

// lanes, shared memory and barriers exist only on the GPU
#define PX_LANE 0
#define PX_NLANE 1
#define PX_SHARED
#define PX_SYNC()

// kernel signature and call: (model, data of one world)
#define PX_MD const pxModel *m __attribute__((unused)), pxData *d __attribute__((unused))
#define PX_MDARG m, d
// the same, followed by more parameters or arguments
#define PX_MDC const pxModel *m __attribute__((unused)), pxData *d __attribute__((unused)),
#define PX_MDARGC m, d,

// access to model sizes, model arrays and the current world's data arrays
#define MS(size) (m->size)
#define MOPT(field) (m->opt.field)
#define MSTAT(field) (m->stat.field)
#define M(field, i) (m->field[i])
#define D(field, i) (d->field[i])

// this world's contact records, their count and capacity (csrc/kern/collide.h)
#define PXK_CON(i) (d->contact[i])
#define PXK_NCON (d->ncon[0])
#define PXK_NCONMAX (d->nconmax)
// this world's collision scratch (csrc/kern/collide_broad.h): reals, ints, body-pair capacity
#define PXK_SCR_R(i) (d->colscr_r[i])
#define PXK_SCR_I(i) (d->colscr_i[i])
#define PXK_NBPMAX (d->nbpmax)

// this world's constraint rows and solver scratch (PX_EFC_FIELDS), their counts (efc_n) and
// row capacity (csrc/kern/constraint.h, csrc/kern/solver.h)
#define PXK_E(field, i) (d->field[i])
#define PXK_EN(k) (d->efc_n[k])
#define PXK_NEFCMAX (d->nefcmax)
#define PXK_NEFCDUAL (d->efcdual)
// the sparse layout of efc_J (PX_EFC_SPARSE of px/pxdata.h): compiled in the C build only, whose
// storage holds its arrays; code for it sits in `#if PXK_SPARSE_J` blocks of the dialect
#define PXK_SPARSE_J 1
#define PXK_EFCSPARSE (d->efcsparse)

// ---- C fast paths ----
// A kernel may have a C-only fast path inside `#ifdef PX_KERN_C ... #else <the dialect code>
// #endif` doing the same floating-point operations in the same order per element (restrict
// local pointers, SIMD without FMA), so that results stay bit-equal to the dialect code on the GPU.
// PX_SSE2: SSE2 intrinsics (every x86-64 has them) in double builds; two lanes do the same IEEE
// operations as two scalar statements, and no fused multiply-add exists in SSE2.
#if defined(__SSE2__) && !defined(PX_FP32)
#define PX_SSE2 1
#include <emmintrin.h>
#endif
// ---- C fast paths ----

#endif  // PX_KERN_PRELUDE_C_H_
