// SPDX-License-Identifier: Apache-2.0
// Kernel dialect prelude for the GLSL build (see docs/kernel_dialect.md).
//
// Included by the generated shaders after the generated layout (shaders/layout.glsl), which
// declares the buffer-reference blocks `pxm` (the model) and `pxd` (batch data), the current
// world index `pxw` and the per-field world strides PXS_<field>.
#ifndef PX_KERN_PRELUDE_GLSL_H_
#define PX_KERN_PRELUDE_GLSL_H_

#define PX_KERN_GLSL 1

#ifdef PX_FP32
#define PX_REAL float
#define PX_R(x) x  // GLSL literals without suffix are float
#else
#define PX_REAL double
// glslang rejects pasting the lf suffix onto a literal; double(x) of a literal is folded from
// the literal's exact decimal value (checked by scripts/check_kern_glsl.sh on every literal)
#define PX_R(x) double(x)
#endif

#define PXR precise PX_REAL

#define PX_FN
#define PX_IN(T, name, len) in T name[len]
// out and inout arrays are precise too: glslang does not carry `precise` from the caller's local
// into the callee, and without NoContraction spirv-opt fuses mul+add into Fma
#define PX_OUT(T, name, len) out precise T name[len]
#define PX_INOUT(T, name, len) inout precise T name[len]

#define PX_INT(x) int(x)
#define PX_TOREAL(x) PX_REAL(x)

// correctly rounded hardware operations allowed in kernels (everything else: libm.h)
#define PX_ABS(x) abs(x)
#define PX_SQRT(x) sqrt(x)

// ---- bit access (libm) ----
// words of a double and bits of a float as uint (PX_HI/PX_LO/PX_MKDBL need fp64)
#define PX_UINT uint
#define PX_TOUINT(x) uint(x)
#define PX_HI(x) (unpackDouble2x32(x).y)
#define PX_LO(x) (unpackDouble2x32(x).x)
#define PX_MKDBL(hi, lo) packDouble2x32(uvec2(lo, hi))
#define PX_FBITS(x) floatBitsToUint(x)
#define PX_MKFLT(u) uintBitsToFloat(u)
// ---- bit access (libm) ----

// a zero the shader compiler cannot see as a constant: lavapipe's LLVM back end folds arithmetic
// on literal zeros (0 * x -> 0, 0 + x -> x) whatever the NoContraction marks say, which changes
// signs of zero (and 0 * inf); kernels use PX_ZERO wherever a zero enters arithmetic. The entry
// point sets it from a value known only at run time.
PX_REAL pxzero;
#define PX_ZERO pxzero

#define PX_LANE int(gl_LocalInvocationID.x)
#define PX_NLANE int(gl_WorkGroupSize.x)
#define PX_SHARED shared
// lanes share a world through buffer memory: barrier() alone orders shared memory, so buffer
// writes are made visible first
#define PX_SYNC()        \
  memoryBarrierBuffer(); \
  barrier()

#define PX_MD
#define PX_MDARG
// the same, followed by more parameters or arguments
#define PX_MDC
#define PX_MDARGC

#define MS(size) (pxm.size)
#define MOPT(field) (pxm.opt_##field)
#define M(field, i) (pxm.field.v[i])
#define D(field, i) (pxd.field.v[pxw * PXS_##field + (i)])

// this world's contact records (nconmax + PXK_MAXCONPAIR of them), their count and capacity,
// and its collision scratch (csrc/kern/collide.h, collide_broad.h): per-world blocks of the
// parameter block, bound by the entry point with pxl_collisionWorld (shaders/layout.glsl)
#define PXK_CON(i) (pxcon.v[pxconbase + (i)])
#define PXK_NCON (pxncon.v[pxw])
#define PXK_NCONMAX pxnconmax
#define PXK_SCR_R(i) (pxscrr.v[pxscrrbase + (i)])
#define PXK_SCR_I(i) (pxscri.v[pxscribase + (i)])
#define PXK_NBPMAX pxnbpmax

// this world's constraint rows and solver scratch (PX_EFC_FIELDS, PX_EFC_SCRATCH), their counts
// (efc_n) and capacities (csrc/kern/constraint.h, solver.h): blocks of the parameter block that
// the layout declares under PX_LAYOUT_EFC, bound by the entry point with pxl_efcWorld
#define PXK_E(field, i) (pxefc.field.v[pxw * PXES_##field + (i)])
#define PXK_EN(k) (pxefcn.v[pxw * PX_EFC_NCOUNT + (k)])
#define PXK_NEFCMAX pxnefcmax
#define PXK_NEFCDUAL pxefcdual
// the sparse layout of efc_J: not in the GPU layout yet (the executor refuses it by name)
#define PXK_SPARSE_J 0
// the model statistics (model.stat), uploaded with the constraint blocks
#define MSTAT(field) (pxstat.v[PXSTAT_##field])

#endif  // PX_KERN_PRELUDE_GLSL_H_
