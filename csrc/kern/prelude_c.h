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

// lanes, shared memory and barriers exist only on the GPU
#define PX_LANE 0
#define PX_NLANE 1
#define PX_SHARED
#define PX_SYNC()

// kernel signature and call: (model, data of one world)
#define PX_MD const pxModel* m, pxData* d
#define PX_MDARG m, d
// the same, followed by more parameters or arguments
#define PX_MDC const pxModel* m, pxData* d,
#define PX_MDARGC m, d,

// access to model sizes, model arrays and the current world's data arrays
#define MS(size) (m->size)
#define MOPT(field) (m->opt.field)
#define M(field, i) (m->field[i])
#define D(field, i) (d->field[i])

#endif  // PX_KERN_PRELUDE_C_H_
