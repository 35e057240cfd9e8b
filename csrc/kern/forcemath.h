// SPDX-License-Identifier: Apache-2.0
// Small scalar and vector helpers of the force stages (csrc/kern/passive.h, actuation.h), in the
// kernel dialect. Each follows the formula and operation order of the MuJoCo 3.12 function named
// in its comment (engine_util_misc.c, engine_inline.h), so that results are bit-equal in fp64.
#ifndef PX_KERN_FORCEMATH_H_
#define PX_KERN_FORCEMATH_H_

#include "kern/libm.h"
#include "kern/spatial.h"

// copy n consecutive elements between a buffer accessor (M or D) and a local array (the same
// macros as kinematics.h; defined once whichever header comes first)
#ifndef PXK_GET
#define PXK_GET(n, v, A, f, o) \
  for (int k_ = 0; k_ < n; k_++) v[k_] = A(f, (o) + k_)
#define PXK_PUT(n, A, f, o, v) \
  for (int k_ = 0; k_ < n; k_++) A(f, (o) + k_) = v[k_]
#endif

// mjPI, 2 mjPI (exactly twice the double nearest pi), mjMAXVAL and its negative
#define PXK_FM_PI PX_R(3.14159265358979323846)
#define PXK_FM_2PI PX_R(6.28318530717958647692)
#define PXK_FM_MAXVAL PX_R(1E+10)
#define PXK_FM_NEGMAXVAL PX_R(-1E+10)

// largest int and smallest int as reals (mju_round's saturation)
#define PXK_FM_INTMAX PX_R(2147483647.0)
#define PXK_FM_INTMIN PX_R(-2147483648.0)

// mju_max and mju_min: a >= b ? a : b, a <= b ? a : b
PX_FN PX_REAL pxk_fmMax(PX_REAL a, PX_REAL b) {
  return a >= b ? a : b;
}

PX_FN PX_REAL pxk_fmMin(PX_REAL a, PX_REAL b) {
  return a <= b ? a : b;
}

// mjMAX(a, b): a > b ? a : b (differs from mju_max only in which of two equal values is taken)
PX_FN PX_REAL pxk_fmMAX(PX_REAL a, PX_REAL b) {
  return a > b ? a : b;
}

// mju_clip: lo below lo, hi above hi, x otherwise (NaN passes through)
PX_FN PX_REAL pxk_fmClip(PX_REAL x, PX_REAL lo, PX_REAL hi) {
  return x < lo ? lo : (x > hi ? hi : x);
}

// mju_isBad: NaN or magnitude above mjMAXVAL
PX_FN int pxk_fmIsBad(PX_REAL x) {
  return (pxk_isNan(x) != 0 || x > PXK_FM_MAXVAL || x < PXK_FM_NEGMAXVAL) ? 1 : 0;
}

// mju_round as a real: nearest integer, halves away from zero, saturated to the int range
PX_FN PX_REAL pxk_fmRound(PX_REAL x) {
  if (x > PXK_FM_INTMAX) return PXK_FM_INTMAX;
  if (x < PXK_FM_INTMIN) return PXK_FM_INTMIN;
  PXR ax = pxk_abs(x);
  PXR t = pxk_floor(ax);
  PXR frac = ax - t;  // exact
  if (frac >= PX_R(0.5)) t = t + PX_R(1.0);
  if (pxk_signBit(x) != 0) t = -t;
  return t;
}

// mju_norm3
PX_FN PX_REAL pxk_fmNorm3(PX_IN(PX_REAL, v, 3)) {
  PXR s = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
  return PX_SQRT(s);
}

// mju_polyForce with mjNPOLY = 2: linear + p0 x + p1 x^2, with |x| for x when odd
PX_FN PX_REAL pxk_fmPolyForce(PX_REAL linear, PX_REAL p0, PX_REAL p1, PX_REAL x, int odd) {
  PXR xx = odd != 0 ? pxk_abs(x) : x;
  PXR res = linear;
  PXR xpow = PX_R(1.0);
  xpow = xpow * xx;
  res = res + p0 * xpow;
  xpow = xpow * xx;
  res = res + p1 * xpow;
  return res;
}

// mju_sigmoid: 0 below 0, 1 above 1, the quintic smoothstep between
PX_FN PX_REAL pxk_fmSigmoid(PX_REAL x) {
  if (x <= PX_R(0.0)) return PX_ZERO;
  if (x >= PX_R(1.0)) return PX_R(1.0);
  PXR x3 = x * x * x;
  PXR inner = PX_R(3.0) * x * (PX_R(2.0) * x - PX_R(5.0)) + PX_R(10.0);
  PXR res = x3 * inner;
  return res;
}

// mji_subQuat: the 3D rotation vector v with qb * quat(v) = qa (through mji_quat2Vel, dt = 1)
PX_FN void pxk_fmSubQuat(PX_OUT(PX_REAL, res, 3), PX_IN(PX_REAL, qa, 4), PX_IN(PX_REAL, qb, 4)) {
  PXR qneg[4];
  PXR qdif[4];
  PXR axis[3];
  qneg[0] = qb[0];
  qneg[1] = -qb[1];
  qneg[2] = -qb[2];
  qneg[3] = -qb[3];
  pxk_mulQuat(qdif, qneg, qa);
  axis[0] = qdif[1];
  axis[1] = qdif[2];
  axis[2] = qdif[3];
  PXR sin_a_2 = pxk_fmNorm3(axis);
  pxk_normalize3(axis);
  PXR speed = PX_R(2.0) * pxk_atan2(sin_a_2, qdif[0]);
  if (speed > PXK_FM_PI) speed = speed - PXK_FM_2PI;
  res[0] = axis[0] * speed;
  res[1] = axis[1] * speed;
  res[2] = axis[2] * speed;
}

#endif  // PX_KERN_FORCEMATH_H_
