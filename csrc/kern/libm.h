// SPDX-License-Identifier: Apache-2.0
// phalanx's own libm in the kernel dialect: sin, cos, tan, asin, acos, atan, atan2, exp, log, pow
// and floor, used by both executors (C and GLSL) so that they agree bit for bit.
//
// GLSL's transcendental built-ins have driver-defined precision, so kernels call these instead.
// Every function is written once for both precisions; only the constants, the tables and the
// polynomial degrees differ (PX_FP32 selects the float set). The double set is accurate to
// better than 1 ulp over the whole range (measured by tests/c/test_libm.c against MPFR; see
// docs/libm.md). The methods are the classical ones (fdlibm, Muller's "Elementary Functions"),
// re-derived here with our own minimax polynomials:
//   - error-free transforms (two-sum, Dekker's two-product with Veltkamp splitting, no fma)
//     carry the extra bits where a result needs them;
//   - sin/cos/tan: reduction modulo pi/2 by Cody-Waite with pi/2 in four parts below
//     PXK_CW_MAX, above it by Payne-Hanek in exact integer arithmetic on 12-bit digits of 2/pi
//     (int32 only, so it also runs in fp32 shaders without int64); then odd/even polynomial
//     kernels on [-pi/4, pi/4] that take the reduced argument as head + tail;
//   - asin/acos: a polynomial in x^2 on [0, 0.5], and asin(x) = pi/2 - 2 asin(sqrt((1-x)/2))
//     above, with the square root carried as head + tail;
//   - atan: reduction to |t| < 7/16 with atan(c) + atan((x-c)/(1+cx)) for c in {0.5, 1, 1.5,
//     inf}, the quotient carried as head + tail; atan2 divides as head + tail too;
//   - exp: x = (64k + j) ln2/64 + r, exp(x) = 2^k 2^(j/64) exp(r), with a 64-entry table of
//     2^(j/64) as head + tail and a degree-6 polynomial for |r| < ln2/128;
//   - log: x = 2^k m, m = c (1 + f) with c = j/128 near m, log(m) = log(c) + 2 atanh(s) with
//     s = (m - c)/(m + c), summed as head + tail;
//   - pow: exp(y log|x|) with log|x| and the product carried as head + tail (about 2^-70
//     relative), and the special cases of C99 Annex F.
// Signed zeros, infinities and NaNs follow C99 Annex F; subnormal inputs and results are
// handled (subnormal results of exp and pow are rounded once, at the subnormal position).
//
// Dialect notes: every real local is PXR (GLSL `precise`), and real arithmetic appears only in
// the initializer or assignment of such a local, never in a condition, an argument or a return
// expression, so that every SPIR-V float operation carries NoContraction. Bits are read and
// written through the prelude's bit-access macros (PX_HI/PX_LO/PX_MKDBL, PX_FBITS/PX_MKFLT).
#ifndef PX_KERN_LIBM_H_
#define PX_KERN_LIBM_H_

// constant tables: `static const` in C, `const` in GLSL
#ifdef PX_KERN_GLSL
#define PXK_TABLE const
#else
#define PXK_TABLE static const
#endif

//---------------------------------- precision-specific part ---------------------------------------

#ifdef PX_FP32

// layout of float: 8 exponent bits (bias 127), 23 fraction bits
#define PXK_BIAS 127
#define PXK_EXPINF 255
#define PXK_MANT 23

// biased exponent field
PX_FN int pxk_bexp(PX_REAL x) {
  return PX_INT((PX_FBITS(x) >> 23) & 0xffu);
}

// 1 if any fraction bit is set
PX_FN int pxk_fracBits(PX_REAL x) {
  return (PX_FBITS(x) & 0x7fffffu) != 0u ? 1 : 0;
}

// 1 if the sign bit is set
PX_FN int pxk_signBit(PX_REAL x) {
  return (PX_FBITS(x) >> 31) != 0u ? 1 : 0;
}

// x with its biased exponent field replaced by be (sign and fraction kept)
PX_FN PX_REAL pxk_setExp(PX_REAL x, int be) {
  return PX_MKFLT((PX_FBITS(x) & 0x807fffffu) | (PX_TOUINT(be) << 23));
}

// |x|
PX_FN PX_REAL pxk_abs(PX_REAL x) {
  return PX_MKFLT(PX_FBITS(x) & 0x7fffffffu);
}

// Veltkamp splitter 2^12 + 1, and 1.5 * 2^23 (adding and subtracting it rounds to an integer)
#define PXK_SPLITTER PX_R(4097.0)
#define PXK_SHIFTER PX_R(12582912.0)

// below these, sin x = asin x = x, and cos x = 1, tan x = atan x = x after rounding
#define PXK_EPS1 PX_R(2.44140625e-4)
#define PXK_EPS2 PX_R(2.44140625e-4)

// Cody-Waite reduction below this, Payne-Hanek above; Payne-Hanek limbs and fraction digits
#define PXK_CW_MAX PX_R(4096.0)
#define PXK_NLIMB 3
#define PXK_NDIG 7

// atan: pi/2 above this; atan2: exponent difference beyond which the ratio is 0 or infinite
#define PXK_ATAN_BIG PX_R(67108864.0)
#define PXK_ATAN2_EDIF 26

// exp: overflow above, underflow below; pow: |y| from which y log|x| surely over/underflows
#define PXK_EXP_OVF PX_R(88.73)
#define PXK_EXP_UNF PX_R(-104.0)
#define PXK_POW_YBIG PX_R(4294967296.0)

// pi/2 in four parts, the first three short enough that n * part is exact
#define PXK_CW1 PX_R(1.5708008)
#define PXK_CW2 PX_R(-4.4535846e-06)
#define PXK_CW3 PX_R(-8.706138e-10)
#define PXK_CW4 PX_R(6.223372e-14)
// pi/2, pi/4, 3pi/4 and pi as head + tail
#define PXK_PIO2_H PX_R(1.5707964)
#define PXK_PIO2_L PX_R(-4.371139e-08)
#define PXK_PIO4_H PX_R(0.7853982)
#define PXK_PIO4_L PX_R(-2.1855694e-08)
#define PXK_3PIO4 PX_R(2.3561945)
#define PXK_PI_H PX_R(3.1415927)
#define PXK_PI_L PX_R(-8.742278e-08)
// 2/pi
#define PXK_INV_PIO2 PX_R(0.63661975)
// atan(0.5), atan(1) and atan(1.5) as head + tail
#define PXK_ATAN0P5_H PX_R(0.4636476)
#define PXK_ATAN0P5_L PX_R(5.0121587e-09)
#define PXK_ATAN1P0_H PX_R(0.7853982)
#define PXK_ATAN1P0_L PX_R(-2.1855694e-08)
#define PXK_ATAN1P5_H PX_R(0.98279375)
#define PXK_ATAN1P5_L PX_R(-2.5131424e-08)
// 64/ln2, and ln2/64 in three parts (the first two short: k * part is exact)
#define PXK_INV_LN2_64 PX_R(92.33248)
#define PXK_EXP_L1 PX_R(0.01083374)
#define PXK_EXP_L2 PX_R(-3.3155084e-06)
#define PXK_EXP_L3 PX_R(-2.9760222e-11)
// ln2 in three parts (the first two short: k * part is exact)
#define PXK_LN2_1 PX_R(0.69314575)
#define PXK_LN2_2 PX_R(1.4286197e-06)
#define PXK_LN2_3 PX_R(-1.290532e-11)

// 2^(j/64), j = 0..63, as head, tail pairs
// clang-format off
PXK_TABLE PX_REAL pxk_expTab[128] = {
    PX_R(1.0), PX_R(0.0),
    PX_R(1.0108893), PX_R(-5.7116054e-09),
    PX_R(1.0218972), PX_R(-4.81156e-08),
    PX_R(1.0330249), PX_R(-2.8090893e-08),
    PX_R(1.0442737), PX_R(4.83347e-08),
    PX_R(1.0556452), PX_R(-4.9071694e-08),
    PX_R(1.0671405), PX_R(-5.933752e-08),
    PX_R(1.0787607), PX_R(5.4615946e-08),
    PX_R(1.0905077), PX_R(-1.307754e-08),
    PX_R(1.1023825), PX_R(4.260502e-08),
    PX_R(1.1143868), PX_R(-5.43554e-08),
    PX_R(1.1265216), PX_R(3.1236414e-08),
    PX_R(1.1387886), PX_R(5.3862223e-08),
    PX_R(1.1511892), PX_R(2.1922283e-08),
    PX_R(1.1637249), PX_R(-4.0514415e-08),
    PX_R(1.176397), PX_R(2.566975e-08),
    PX_R(1.1892071), PX_R(3.7976353e-08),
    PX_R(1.2021568), PX_R(-5.0697565e-08),
    PX_R(1.2152474), PX_R(-3.267395e-08),
    PX_R(1.2284806), PX_R(-4.1362004e-08),
    PX_R(1.2418578), PX_R(4.496838e-08),
    PX_R(1.2553807), PX_R(7.3222375e-09),
    PX_R(1.269051), PX_R(1.4193333e-09),
    PX_R(1.28287), PX_R(-3.8166217e-08),
    PX_R(1.2968396), PX_R(-4.0189995e-08),
    PX_R(1.3109612), PX_R(-3.4965716e-08),
    PX_R(1.3252367), PX_R(-3.4963733e-08),
    PX_R(1.3396676), PX_R(-3.461674e-08),
    PX_R(1.3542556), PX_R(-1.0123349e-08),
    PX_R(1.3690025), PX_R(-3.845882e-08),
    PX_R(1.38391), PX_R(-5.8755774e-08),
    PX_R(1.3989797), PX_R(8.689434e-09),
    PX_R(1.4142135), PX_R(2.4203235e-08),
    PX_R(1.4296134), PX_R(-1.3429929e-08),
    PX_R(1.4451808), PX_R(3.3242e-08),
    PX_R(1.4609178), PX_R(-3.6286576e-08),
    PX_R(1.4768262), PX_R(-4.500899e-08),
    PX_R(1.4929078), PX_R(-3.42362e-08),
    PX_R(1.5091645), PX_R(-2.4959373e-08),
    PX_R(1.5255982), PX_R(-1.7628569e-08),
    PX_R(1.5422108), PX_R(8.070905e-09),
    PX_R(1.5590044), PX_R(-2.5764665e-08),
    PX_R(1.5759809), PX_R(-5.6610254e-08),
    PX_R(1.5931422), PX_R(-4.903137e-10),
    PX_R(1.6104903), PX_R(9.836217e-09),
    PX_R(1.6280274), PX_R(-1.7260083e-08),
    PX_R(1.6457555), PX_R(-5.124972e-08),
    PX_R(1.6636766), PX_R(-3.9202988e-08),
    PX_R(1.6817929), PX_R(-2.4755327e-08),
    PX_R(1.7001064), PX_R(-2.8651472e-08),
    PX_R(1.7186193), PX_R(-4.8496176e-08),
    PX_R(1.7373339), PX_R(-5.8502234e-08),
    PX_R(1.7562522), PX_R(-9.23577e-09),
    PX_R(1.7753764), PX_R(5.343198e-08),
    PX_R(1.7947091), PX_R(-1.1415045e-08),
    PX_R(1.8142521), PX_R(3.7362582e-08),
    PX_R(1.8340081), PX_R(-1.1239278e-08),
    PX_R(1.8539791), PX_R(1.4365612e-08),
    PX_R(1.8741677), PX_R(-4.6630056e-08),
    PX_R(1.894576), PX_R(2.8103385e-08),
    PX_R(1.9152066), PX_R(9.845328e-09),
    PX_R(1.9360617), PX_R(5.3570723e-08),
    PX_R(1.9571441), PX_R(-1.7021804e-08),
    PX_R(1.978456), PX_R(6.0327263e-09)
};
// clang-format on
// log(j/128), j = 91..181, as head, tail pairs
// clang-format off
PXK_TABLE PX_REAL pxk_logTab[182] = {
    PX_R(-0.34117076), PX_R(6.0618977e-10),
    PX_R(-0.33024168), PX_R(-6.725313e-09),
    PX_R(-0.31943077), PX_R(-2.2765236e-09),
    PX_R(-0.3087355), PX_R(8.195663e-09),
    PX_R(-0.29815337), PX_R(-1.7002562e-09),
    PX_R(-0.2876821), PX_R(1.37775436e-08),
    PX_R(-0.27731928), PX_R(-3.1229146e-09),
    PX_R(-0.26706278), PX_R(-2.0077733e-09),
    PX_R(-0.2569104), PX_R(-2.813804e-10),
    PX_R(-0.24686007), PX_R(-5.91481e-09),
    PX_R(-0.23690975), PX_R(4.5360545e-11),
    PX_R(-0.22705746), PX_R(6.3348686e-09),
    PX_R(-0.21730128), PX_R(3.6164303e-09),
    PX_R(-0.20763937), PX_R(1.6100764e-09),
    PX_R(-0.19806992), PX_R(1.4133441e-09),
    PX_R(-0.18859117), PX_R(-2.476808e-09),
    PX_R(-0.17920142), PX_R(-5.3358544e-09),
    PX_R(-0.16989903), PX_R(-5.2755076e-09),
    PX_R(-0.16068238), PX_R(-1.4910411e-09),
    PX_R(-0.1515499), PX_R(7.411358e-09),
    PX_R(-0.14250006), PX_R(-4.7907776e-09),
    PX_R(-0.13353139), PX_R(-1.0038866e-09),
    PX_R(-0.12464245), PX_R(1.429877e-09),
    PX_R(-0.115831815), PX_R(-8.187962e-10),
    PX_R(-0.10709813), PX_R(-3.1844647e-09),
    PX_R(-0.09844007), PX_R(6.1728567e-10),
    PX_R(-0.08985633), PX_R(-2.5418134e-09),
    PX_R(-0.08134564), PX_R(6.6893807e-10),
    PX_R(-0.07290677), PX_R(-9.959807e-10),
    PX_R(-0.06453852), PX_R(2.4172309e-09),
    PX_R(-0.056239717), PX_R(-1.614216e-09),
    PX_R(-0.04800922), PX_R(1.3243606e-09),
    PX_R(-0.03984591), PX_R(1.3761153e-09),
    PX_R(-0.031748697), PX_R(-1.1529058e-09),
    PX_R(-0.023716526), PX_R(-5.113161e-10),
    PX_R(-0.015748357), PX_R(4.3215895e-10),
    PX_R(-0.007843178), PX_R(3.0458194e-10),
    PX_R(0.0), PX_R(0.0),
    PX_R(0.0077821403), PX_R(1.6100356e-10),
    PX_R(0.015504187), PX_R(-4.3701048e-10),
    PX_R(0.023167059), PX_R(4.560415e-10),
    PX_R(0.030771658), PX_R(8.422374e-10),
    PX_R(0.038318865), PX_R(-6.9906503e-10),
    PX_R(0.045809537), PX_R(-1.1410233e-09),
    PX_R(0.053244516), PX_R(-1.7346591e-09),
    PX_R(0.06062462), PX_R(7.905942e-12),
    PX_R(0.06795066), PX_R(3.4083132e-09),
    PX_R(0.07522342), PX_R(-2.3030047e-09),
    PX_R(0.08244367), PX_R(-2.2728754e-10),
    PX_R(0.089612156), PX_R(2.536962e-09),
    PX_R(0.09672963), PX_R(-2.28319e-09),
    PX_R(0.103796795), PX_R(-1.3289232e-09),
    PX_R(0.11081436), PX_R(3.5759316e-09),
    PX_R(0.11778303), PX_R(3.2986907e-09),
    PX_R(0.12470348), PX_R(-3.2924463e-09),
    PX_R(0.13157636), PX_R(-1.4832839e-09),
    PX_R(0.13840233), PX_R(-5.0360454e-09),
    PX_R(0.14518201), PX_R(-3.66716e-09),
    PX_R(0.15191604), PX_R(5.5588985e-11),
    PX_R(0.15860502), PX_R(5.9580794e-09),
    PX_R(0.16524957), PX_R(1.6911217e-09),
    PX_R(0.17185026), PX_R(-7.145759e-09),
    PX_R(0.17840765), PX_R(3.3065968e-09),
    PX_R(0.18492234), PX_R(9.619685e-10),
    PX_R(0.19139485), PX_R(2.3879427e-09),
    PX_R(0.19782574), PX_R(-1.4181957e-09),
    PX_R(0.20421554), PX_R(-5.328085e-11),
    PX_R(0.21056476), PX_R(6.7534525e-09),
    PX_R(0.21687394), PX_R(-5.5050804e-09),
    PX_R(0.22314355), PX_R(3.5408485e-09),
    PX_R(0.2293741), PX_R(5.267307e-09),
    PX_R(0.23556606), PX_R(6.5973813e-09),
    PX_R(0.24171993), PX_R(5.5230855e-09),
    PX_R(0.24783616), PX_R(6.2250236e-09),
    PX_R(0.25391522), PX_R(-1.0518075e-08),
    PX_R(0.25995752), PX_R(2.2830717e-09),
    PX_R(0.26596355), PX_R(-5.885186e-09),
    PX_R(0.2719337), PX_R(1.0869003e-08),
    PX_R(0.27786845), PX_R(1.3154985e-09),
    PX_R(0.28376818), PX_R(-3.901826e-09),
    PX_R(0.2896333), PX_R(-1.1297649e-08),
    PX_R(0.29546422), PX_R(-4.7689754e-09),
    PX_R(0.30126134), PX_R(-5.0331814e-09),
    PX_R(0.30702505), PX_R(-9.861567e-09),
    PX_R(0.3127557), PX_R(6.0778103e-09),
    PX_R(0.31845373), PX_R(1.9658553e-09),
    PX_R(0.32411948), PX_R(-9.809915e-09),
    PX_R(0.32975328), PX_R(6.686494e-09),
    PX_R(0.33535555), PX_R(-8.129597e-09),
    PX_R(0.3409266), PX_R(-6.1104133e-10),
    PX_R(0.34646678), PX_R(-1.2362654e-08)
};
// clang-format on
#else

// layout of double: 11 exponent bits (bias 1023), 52 fraction bits (20 in the high word)
#define PXK_BIAS 1023
#define PXK_EXPINF 2047
#define PXK_MANT 52

// biased exponent field
PX_FN int pxk_bexp(PX_REAL x) {
  return PX_INT((PX_HI(x) >> 20) & 0x7ffu);
}

// 1 if any fraction bit is set
PX_FN int pxk_fracBits(PX_REAL x) {
  return ((PX_HI(x) & 0xfffffu) | PX_LO(x)) != 0u ? 1 : 0;
}

// 1 if the sign bit is set
PX_FN int pxk_signBit(PX_REAL x) {
  return (PX_HI(x) >> 31) != 0u ? 1 : 0;
}

// x with its biased exponent field replaced by be (sign and fraction kept)
PX_FN PX_REAL pxk_setExp(PX_REAL x, int be) {
  return PX_MKDBL((PX_HI(x) & 0x800fffffu) | (PX_TOUINT(be) << 20), PX_LO(x));
}

// |x|
PX_FN PX_REAL pxk_abs(PX_REAL x) {
  return PX_MKDBL(PX_HI(x) & 0x7fffffffu, PX_LO(x));
}

// Veltkamp splitter 2^27 + 1, and 1.5 * 2^52 (adding and subtracting it rounds to an integer)
#define PXK_SPLITTER PX_R(134217729.0)
#define PXK_SHIFTER PX_R(6755399441055744.0)

// below these, sin x = asin x = x, and cos x = 1, tan x = atan x = x after rounding
#define PXK_EPS1 PX_R(1.4901161193847656e-8)
#define PXK_EPS2 PX_R(7.450580596923828e-9)

// Cody-Waite reduction below this, Payne-Hanek above; Payne-Hanek limbs and fraction digits
#define PXK_CW_MAX PX_R(1048576.0)
#define PXK_NLIMB 6
#define PXK_NDIG 12

// atan: pi/2 above this; atan2: exponent difference beyond which the ratio is 0 or infinite
#define PXK_ATAN_BIG PX_R(7.378697629483821e19)
#define PXK_ATAN2_EDIF 60

// exp: overflow above, underflow below; pow: |y| from which y log|x| surely over/underflows
#define PXK_EXP_OVF PX_R(709.79)
#define PXK_EXP_UNF PX_R(-745.2)
#define PXK_POW_YBIG PX_R(1.8446744073709552e19)

// pi/2 in four parts, the first three short enough that n * part is exact
#define PXK_CW1 PX_R(1.5707963267341256)
#define PXK_CW2 PX_R(6.077100506303966e-11)
#define PXK_CW3 PX_R(2.0222662487111665e-21)
#define PXK_CW4 PX_R(8.4784276603689e-32)
// pi/2, pi/4, 3pi/4 and pi as head + tail
#define PXK_PIO2_H PX_R(1.5707963267948966)
#define PXK_PIO2_L PX_R(6.123233995736766e-17)
#define PXK_PIO4_H PX_R(0.7853981633974483)
#define PXK_PIO4_L PX_R(3.061616997868383e-17)
#define PXK_3PIO4 PX_R(2.356194490192345)
#define PXK_PI_H PX_R(3.141592653589793)
#define PXK_PI_L PX_R(1.2246467991473532e-16)
// 2/pi
#define PXK_INV_PIO2 PX_R(0.6366197723675814)
// atan(0.5), atan(1) and atan(1.5) as head + tail
#define PXK_ATAN0P5_H PX_R(0.4636476090008061)
#define PXK_ATAN0P5_L PX_R(2.2698777452961687e-17)
#define PXK_ATAN1P0_H PX_R(0.7853981633974483)
#define PXK_ATAN1P0_L PX_R(3.061616997868383e-17)
#define PXK_ATAN1P5_H PX_R(0.982793723247329)
#define PXK_ATAN1P5_L PX_R(1.3903311031230998e-17)
// 64/ln2, and ln2/64 in three parts (the first two short: k * part is exact)
#define PXK_INV_LN2_64 PX_R(92.33248261689366)
#define PXK_EXP_L1 PX_R(0.010830424696223417)
#define PXK_EXP_L2 PX_R(2.5728046223228848e-14)
#define PXK_EXP_L3 PX_R(4.784126150029144e-26)
// ln2 in three parts (the first two short: k * part is exact)
#define PXK_LN2_1 PX_R(0.6931471805598903)
#define PXK_LN2_2 PX_R(5.4979230187085024e-14)
#define PXK_LN2_3 PX_R(-1.3124698417785255e-27)

// 2^(j/64), j = 0..63, as head, tail pairs
// clang-format off
PXK_TABLE PX_REAL pxk_expTab[128] = {
    PX_R(1.0), PX_R(0.0),
    PX_R(1.0108892860517005), PX_R(-1.5234778603368577e-17),
    PX_R(1.0218971486541166), PX_R(5.109225028973444e-17),
    PX_R(1.0330248790212284), PX_R(7.600838874027088e-18),
    PX_R(1.0442737824274138), PX_R(8.551889705537965e-17),
    PX_R(1.0556451783605572), PX_R(1.759325738772092e-18),
    PX_R(1.0671404006768237), PX_R(-7.899853966841582e-17),
    PX_R(1.0787607977571199), PX_R(-6.656660436056593e-17),
    PX_R(1.0905077326652577), PX_R(-3.046782079812471e-17),
    PX_R(1.102382583307841), PX_R(5.2660368715706944e-17),
    PX_R(1.1143867425958924), PX_R(1.0410278456845571e-16),
    PX_R(1.1265216186082418), PX_R(5.165856758795457e-17),
    PX_R(1.1387886347566916), PX_R(8.912812676025408e-17),
    PX_R(1.1511892299529827), PX_R(3.250710218863827e-17),
    PX_R(1.1637248587775775), PX_R(3.8292048369240935e-17),
    PX_R(1.1763969916502812), PX_R(5.554203254218079e-17),
    PX_R(1.189207115002721), PX_R(3.982015231465646e-17),
    PX_R(1.202156731452703), PX_R(6.644981499252301e-17),
    PX_R(1.215247359980469), PX_R(-7.712630692681488e-17),
    PX_R(1.22848053610687), PX_R(-1.89878163130253e-17),
    PX_R(1.241857812073484), PX_R(4.658027591836937e-17),
    PX_R(1.255380757024691), PX_R(-6.7113898212968784e-18),
    PX_R(1.2690509571917332), PX_R(2.667932131342186e-18),
    PX_R(1.2828700160787783), PX_R(1.713594918243561e-17),
    PX_R(1.2968395546510096), PX_R(2.5382502794888315e-17),
    PX_R(1.3109612115247644), PX_R(-7.181536135519454e-17),
    PX_R(1.3252366431597413), PX_R(-2.8587312100388614e-17),
    PX_R(1.339667524053303), PX_R(8.927282594831732e-17),
    PX_R(1.3542555469368927), PX_R(7.70094837980299e-17),
    PX_R(1.3690024229745905), PX_R(9.593797919118849e-17),
    PX_R(1.383909881963832), PX_R(-6.770511658794786e-17),
    PX_R(1.3989796725383112), PX_R(-9.614213209051323e-17),
    PX_R(1.4142135623730951), PX_R(-9.667293313452913e-17),
    PX_R(1.42961333839197), PX_R(-1.2031642489053655e-17),
    PX_R(1.4451808069770467), PX_R(-3.0237581349939873e-17),
    PX_R(1.460917794180647), PX_R(-5.600377186075216e-17),
    PX_R(1.4768261459394993), PX_R(-3.483994556892796e-17),
    PX_R(1.4929077282912648), PX_R(1.4192920154284036e-17),
    PX_R(1.5091644275934228), PX_R(-1.016455327754295e-16),
    PX_R(1.5255981507445384), PX_R(-1.1024941712342561e-16),
    PX_R(1.5422108254079407), PX_R(7.949834809697621e-17),
    PX_R(1.559004400237837), PX_R(3.7812070533575275e-17),
    PX_R(1.5759808451078865), PX_R(-1.0136916471278304e-17),
    PX_R(1.593142151342267), PX_R(-1.0094406542311964e-16),
    PX_R(1.6104903319492543), PX_R(2.4707192569797888e-17),
    PX_R(1.6280274218573478), PX_R(-6.712955084707084e-17),
    PX_R(1.645755478153965), PX_R(-1.0125679913674773e-16),
    PX_R(1.6636765803267364), PX_R(5.8909926967131e-17),
    PX_R(1.681792830507429), PX_R(8.199010020581497e-17),
    PX_R(1.7001063537185235), PX_R(-8.0237193703977e-18),
    PX_R(1.718619298122478), PX_R(-1.851380418263111e-17),
    PX_R(1.7373338352737062), PX_R(3.164389299292957e-17),
    PX_R(1.7562521603732995), PX_R(2.960140695448873e-17),
    PX_R(1.7753764925265212), PX_R(6.429731796556572e-17),
    PX_R(1.7947090750031072), PX_R(1.8227458427912087e-17),
    PX_R(1.8142521755003989), PX_R(-9.969531538920349e-17),
    PX_R(1.8340080864093424), PX_R(3.283107224245627e-17),
    PX_R(1.8539791250833855), PX_R(9.761887490727594e-17),
    PX_R(1.8741676341103), PX_R(-6.122763413004143e-17),
    PX_R(1.8945759815869656), PX_R(3.4034035352165297e-17),
    PX_R(1.9152065613971474), PX_R(-1.0619946056195963e-16),
    PX_R(1.9360617934922943), PX_R(1.0332385960676326e-16),
    PX_R(1.9571441241754002), PX_R(8.960767791036668e-17),
    PX_R(1.978456026387951), PX_R(4.0388753109278167e-17)
};
// clang-format on
// log(j/128), j = 91..181, as head, tail pairs
// clang-format off
PXK_TABLE PX_REAL pxk_logTab[182] = {
    PX_R(-0.34117075740276714), PX_R(1.9366790062602867e-17),
    PX_R(-0.33024168687057687), PX_R(1.0828321637483858e-17),
    PX_R(-0.3194307707663612), PX_R(-1.354256857264811e-18),
    PX_R(-0.3087354816496133), PX_R(1.6199186085148102e-17),
    PX_R(-0.29815337231907635), PX_R(1.720695867445866e-17),
    PX_R(-0.2876820724517809), PX_R(-2.607160616442564e-17),
    PX_R(-0.27731928541623435), PX_R(7.44528405583513e-18),
    PX_R(-0.26706278524904525), PX_R(7.32891532732017e-18),
    PX_R(-0.2569104137850272), PX_R(-2.502843296152504e-17),
    PX_R(-0.24686007793152578), PX_R(-1.361743371748368e-17),
    PX_R(-0.2369097470783577), PX_R(-1.9682402978398164e-18),
    PX_R(-0.22705745063534608), PX_R(-9.551415762738488e-18),
    PX_R(-0.2173012756899814), PX_R(-1.6168452453763015e-18),
    PX_R(-0.2076393647782445), PX_R(-1.2053243216686129e-17),
    PX_R(-0.1980699137620938), PX_R(-3.742843482461439e-18),
    PX_R(-0.18859116980755003), PX_R(7.432164219196925e-18),
    PX_R(-0.179201429457711), PX_R(1.0785017454858423e-17),
    PX_R(-0.16989903679539747), PX_R(4.868008764439071e-19),
    PX_R(-0.16068238169047347), PX_R(3.650183553047837e-18),
    PX_R(-0.15154989812720093), PX_R(-5.1669593684615594e-18),
    PX_R(-0.14250006260728304), PX_R(9.926388234225749e-18),
    PX_R(-0.13353139262452263), PX_R(3.664457663660085e-18),
    PX_R(-0.1246424452072766), PX_R(5.808912678940971e-18),
    PX_R(-0.1158318155251217), PX_R(-4.338484369808096e-18),
    PX_R(-0.1070981355563671), PX_R(1.73705104015906e-18),
    PX_R(-0.09844007281325252), PX_R(4.439009633675136e-18),
    PX_R(-0.08985632912186105), PX_R(6.273760163689594e-19),
    PX_R(-0.0813456394539524), PX_R(-5.07707635593117e-18),
    PX_R(-0.07290677080808779), PX_R(6.306860257532778e-18),
    PX_R(-0.06453852113757118), PX_R(6.470486661692933e-18),
    PX_R(-0.05623971832287608), PX_R(3.2835149805605613e-18),
    PX_R(-0.048009219186360606), PX_R(-1.4390903347292205e-18),
    PX_R(-0.039845908547199674), PX_R(3.129547680315208e-18),
    PX_R(-0.0317486983145803), PX_R(-3.0382263084680858e-18),
    PX_R(-0.023716526617316044), PX_R(1.5774243488668215e-18),
    PX_R(-0.015748356968139168), PX_R(-1.0021578630528974e-18),
    PX_R(-0.007843177461025893), PX_R(-2.764708154124904e-19),
    PX_R(0.0), PX_R(0.0),
    PX_R(0.007782140442054949), PX_R(-1.2819179123343845e-20),
    PX_R(0.015504186535965254), PX_R(-3.278321022892429e-19),
    PX_R(0.02316705928153438), PX_R(-1.1769544932063305e-18),
    PX_R(0.030771658666753687), PX_R(1.0431732029005968e-18),
    PX_R(0.0383188643021366), PX_R(-2.357996157351286e-18),
    PX_R(0.0458095360312942), PX_R(1.902959866474257e-18),
    PX_R(0.053244514518812285), PX_R(-1.665575816973663e-18),
    PX_R(0.06062462181643484), PX_R(2.6424025938726934e-18),
    PX_R(0.06795066190850775), PX_R(-1.2802141240611733e-18),
    PX_R(0.07522342123758753), PX_R(-5.930604196293241e-18),
    PX_R(0.08244366921107459), PX_R(5.700437773813987e-18),
    PX_R(0.08961215868968714), PX_R(-5.4268129336647135e-18),
    PX_R(0.09672962645855111), PX_R(-5.597397486289965e-19),
    PX_R(0.10379679368164356), PX_R(5.47772415726659e-18),
    PX_R(0.11081436634029011), PX_R(1.183748342825649e-18),
    PX_R(0.11778303565638346), PX_R(-1.1971685747593677e-18),
    PX_R(0.12470347850095724), PX_R(-4.6522609636496624e-18),
    PX_R(0.13157635778871926), PX_R(1.1123000879729588e-17),
    PX_R(0.13840232285911913), PX_R(4.447777301357527e-18),
    PX_R(0.1451820098444979), PX_R(8.242418783022475e-18),
    PX_R(0.15191604202584197), PX_R(6.4838631244022194e-18),
    PX_R(0.15860503017663857), PX_R(1.1257003872182592e-17),
    PX_R(0.16524957289530717), PX_R(-1.0094935622322628e-17),
    PX_R(0.17185025692665923), PX_R(-6.0224538210113705e-18),
    PX_R(0.1784076574728183), PX_R(-1.2432553788701131e-17),
    PX_R(0.184922338494012), PX_R(3.0236614153574064e-18),
    PX_R(0.19139485299962947), PX_R(-1.2129496905792884e-17),
    PX_R(0.19782574332991987), PX_R(1.2821194372980142e-17),
    PX_R(0.2042155414286909), PX_R(2.7338281018722773e-18),
    PX_R(0.21056476910734964), PX_R(-4.249405314729895e-18),
    PX_R(0.21687393830061436), PX_R(4.551026193234283e-18),
    PX_R(0.22314355131420976), PX_R(-9.091270597324799e-18),
    PX_R(0.22937410106484582), PX_R(9.927671823978025e-18),
    PX_R(0.2355660713127669), PX_R(-2.3943371495187355e-18),
    PX_R(0.24171993688714516), PX_R(8.900990022166643e-18),
    PX_R(0.24783616390458127), PX_R(-1.2432209578702523e-17),
    PX_R(0.25391520998096345), PX_R(-8.048097394424201e-18),
    PX_R(0.25995752443692605), PX_R(2.069806938978935e-17),
    PX_R(0.26596354849713794), PX_R(5.3393802761314314e-18),
    PX_R(0.27193371548364176), PX_R(7.83319637697442e-19),
    PX_R(0.2778684510034563), PX_R(-9.16018294909263e-19),
    PX_R(0.2837681731306446), PX_R(-2.032665581126656e-17),
    PX_R(0.28963329258304266), PX_R(2.0535953219858174e-17),
    PX_R(0.2954642128938359), PX_R(-2.16461086040599e-17),
    PX_R(0.3012613305781618), PX_R(-9.048511144048564e-18),
    PX_R(0.3070250352949119), PX_R(-1.2319916200101964e-17),
    PX_R(0.3127557100038969), PX_R(-1.451808353098951e-17),
    PX_R(0.3184537311185346), PX_R(2.7114779367326236e-17),
    PX_R(0.324119468654212), PX_R(-7.958214381893813e-18),
    PX_R(0.329753286372468), PX_R(2.122020616196946e-18),
    PX_R(0.3353555419211378), PX_R(1.834564437059473e-17),
    PX_R(0.3409265869705932), PX_R(1.7467136443544747e-17),
    PX_R(0.34646676734620857), PX_R(1.028583585496265e-17)
};
// clang-format on
#endif

// 2/pi in 12-bit digits: 2/pi = sum over k >= 1 of pxk_twoOverPi[k] 2^(-12k) (entry 0 is 0)
PXK_TABLE int pxk_twoOverPi[100] = {
    0,    2607, 2435, 1764, 3652, 338,  2556, 629,  2001, 3923, 1245, 3085, 2914, 2393, 2364,
    1081, 65,   4069, 355,  2749, 3771, 3158, 439,  582,  3642, 1060, 3538, 3584, 1609, 750,
    2569, 3353, 540,  4065, 3563, 459,  297,  2675, 3816, 2083, 1525, 747,  2884, 2126, 2460,
    1794, 1716, 1527, 3649, 921,  470,  920,  851,  927,  1180, 2117, 3979, 3039, 2344, 945,
    4088, 2431, 4062, 89,   2063, 3826, 3857, 2229, 2570, 1745, 3949, 871,  3791, 636,  2825,
    2932, 3910, 1014, 1694, 1534, 2605, 1874, 1978, 3198, 3045, 3863, 2877, 115,  2551, 2213,
    658,  3750, 3067, 1531, 287,  2261, 3336, 1376, 816,  1135};

//---------------------------------- bit-level helpers ---------------------------------------------

// 2^k for k in [1 - PXK_BIAS, PXK_BIAS]
PX_FN PX_REAL pxk_pow2(int k) {
  return pxk_setExp(PX_R(1.0), k + PXK_BIAS);
}

// 1 for NaN
PX_FN int pxk_isNan(PX_REAL x) {
  return (pxk_bexp(x) == PXK_EXPINF && pxk_fracBits(x) != 0) ? 1 : 0;
}

// 1 for +-inf
PX_FN int pxk_isInf(PX_REAL x) {
  return (pxk_bexp(x) == PXK_EXPINF && pxk_fracBits(x) == 0) ? 1 : 0;
}

// +inf and a quiet NaN
#define PXK_INF pxk_setExp(PX_R(1.0), PXK_EXPINF)
#define PXK_NAN pxk_setExp(PX_R(1.5), PXK_EXPINF)

// x * 2^n exactly (unless the result is subnormal), n in [2 - 2 PXK_BIAS, 2 PXK_BIAS]
PX_FN PX_REAL pxk_scale(PX_REAL x, int n) {
  PXR y = x;
  int k = n;
  if (k > PXK_BIAS) {
    y = y * pxk_pow2(PXK_BIAS);
    k = k - PXK_BIAS;
  } else if (k < 1 - PXK_BIAS) {
    y = y * pxk_pow2(1 - PXK_BIAS);
    k = k - (1 - PXK_BIAS);
  }
  y = y * pxk_pow2(k);
  return y;
}

// unbiased exponent of a finite nonzero x (subnormals included)
PX_FN int pxk_ilogb(PX_REAL x) {
  int be = pxk_bexp(x);
  if (be != 0) return be - PXK_BIAS;
  PXR y = x * pxk_pow2(PXK_MANT + 2);
  return pxk_bexp(y) - PXK_BIAS - (PXK_MANT + 2);
}

// largest integer not above x (exact; keeps -0, inf and NaN)
PX_FN PX_REAL pxk_floor(PX_REAL x) {
  PX_REAL ax = pxk_abs(x);
  PX_REAL big = pxk_pow2(PXK_MANT);
  if (!(ax < big)) return x;
  // t = round(|x|), then step to the integer below (x >= 0) or above (x < 0) |x|
  PXR t = (ax + big) - big;
  if (pxk_signBit(x) == 0) {
    if (t > ax) t = t - PX_R(1.0);
    return t;
  }
  if (t < ax) t = t + PX_R(1.0);
  return -t;
}

//---------------------------------- error-free transforms -----------------------------------------

// r[0] + r[1] = a + b exactly, r[0] = fl(a + b) (Knuth)
PX_FN void pxk_twoSum(PX_REAL a, PX_REAL b, PX_OUT(PX_REAL, r, 2)) {
  PXR s = a + b;
  PXR bv = s - a;
  PXR e = (a - (s - bv)) + (b - bv);
  r[0] = s;
  r[1] = e;
}

// the same when |a| >= |b| or a == 0 (Dekker)
PX_FN void pxk_fastTwoSum(PX_REAL a, PX_REAL b, PX_OUT(PX_REAL, r, 2)) {
  PXR s = a + b;
  PXR e = b - (s - a);
  r[0] = s;
  r[1] = e;
}

// r[0] + r[1] = a with r[0] holding the upper half of the significand (Veltkamp)
PX_FN void pxk_split(PX_REAL a, PX_OUT(PX_REAL, r, 2)) {
  PXR c = PXK_SPLITTER * a;
  PXR h = c - (c - a);
  PXR l = a - h;
  r[0] = h;
  r[1] = l;
}

// r[0] + r[1] = a * b exactly, r[0] = fl(a * b) (Dekker; no fma; no overflow or underflow)
PX_FN void pxk_twoProd(PX_REAL a, PX_REAL b, PX_OUT(PX_REAL, r, 2)) {
  PX_REAL sa[2];
  PX_REAL sb[2];
  pxk_split(a, sa);
  pxk_split(b, sb);
  PXR p = a * b;
  PXR e = (((sa[0] * sb[0] - p) + sa[0] * sb[1]) + sa[1] * sb[0]) + sa[1] * sb[1];
  r[0] = p;
  r[1] = e;
}

//---------------------------------- polynomials ---------------------------------------------------
// minimax fits made for this file (weighted Remez, coefficients rounded one by one and refit);
// the bounds are for the weighted error of the final function before rounding

#ifdef PX_FP32
// sin(x) = x + x^3 (PXK_SIN0 + z pxk_polySin(z)), z = x^2 <= 0.6169; relative error 2^-28.3
#define PXK_SIN0 PX_R(-0.16666667)
PX_FN PX_REAL pxk_polySin(PX_REAL z) {
  PXR p = PX_R(0.008333475) + z * (PX_R(-0.0001990178) + z * PX_R(3.3895758e-06));
  return p;
}

// cos(x) = 1 - z/2 + z^2 pxk_polyCos(z), z = x^2 <= 0.6169; absolute error 2^-30.5
PX_FN PX_REAL pxk_polyCos(PX_REAL z) {
  PXR p = PX_R(0.041666664) + z * (PX_R(-0.0013888218) + z * PX_R(2.4530224e-05));
  return p;
}

// tan(x) = x + x^3 (PXK_TAN0 + z pxk_polyTan(z)), z = x^2 <= 0.4549; relative error 2^-27.9
#define PXK_TAN0 PX_R(0.33333334)
PX_FN PX_REAL pxk_polyTan(PX_REAL z) {
  PXR p = PX_R(0.13333178) +
          z * (PX_R(0.05400946) +
               z * (PX_R(0.021465484) +
                    z * (PX_R(0.010687705) + z * (PX_R(-0.00035717257) + z * PX_R(0.0050592963)))));
  return p;
}

// asin(x) = x + x pxk_polyAsin(z), z = x^2 <= 1/4; relative error 2^-29.7
PX_FN PX_REAL pxk_polyAsin(PX_REAL z) {
  PXR p =
      z *
      (PX_R(0.16666667) +
       z * (PX_R(0.0749986) +
            z * (PX_R(0.04470914) +
                 z * (PX_R(0.029218497) +
                      z * (PX_R(0.031736556) + z * (PX_R(-0.0183875) + z * PX_R(0.06968363)))))));
  return p;
}

// atan(x) = x + x pxk_polyAtan(z), z = x^2 <= (7/16)^2; relative error 2^-29.0
PX_FN PX_REAL pxk_polyAtan(PX_REAL z) {
  PXR p =
      z * (PX_R(-0.33333334) +
           z * (PX_R(0.2000023) +
                z * (PX_R(-0.14294241) +
                     z * (PX_R(0.112137996) + z * (PX_R(-0.09448412) + z * PX_R(0.06717553))))));
  return p;
}

// exp(r) = 1 + r + r^2 pxk_polyExp(r), |r| <= ln2/128; absolute error 2^-37.7
PX_FN PX_REAL pxk_polyExp(PX_REAL r) {
  PXR p = PX_R(0.49999985) + r * PX_R(0.16689156);
  return p;
}
#else
// sin(x) = x + x^3 (PXK_SIN0 + z pxk_polySin(z)), z = x^2 <= 0.6169; relative error 2^-57.4
#define PXK_SIN0 PX_R(-0.16666666666666666)
PX_FN PX_REAL pxk_polySin(PX_REAL z) {
  PXR p = PX_R(0.008333333333332301) +
          z * (PX_R(-0.00019841269839333903) +
               z * (PX_R(2.755731788870307e-06) +
                    z * (PX_R(-2.5051691079717698e-08) +
                         z * (PX_R(1.5998785486756825e-10) + z * PX_R(-4.3609944500487713e-13)))));
  return p;
}

// cos(x) = 1 - z/2 + z^2 pxk_polyCos(z), z = x^2 <= 0.6169; absolute error 2^-60.3
PX_FN PX_REAL pxk_polyCos(PX_REAL z) {
  PXR p = PX_R(0.041666666666666664) +
          z * (PX_R(-0.0013888888888886522) +
               z * (PX_R(2.4801587297526436e-05) +
                    z * (PX_R(-2.755731666355265e-07) +
                         z * (PX_R(2.0876025838700253e-09) + z * PX_R(-1.1374370387801515e-11)))));
  return p;
}

// tan(x) = x + x^3 (PXK_TAN0 + z pxk_polyTan(z)), z = x^2 <= 0.4549; relative error 2^-57.2
#define PXK_TAN0 PX_R(0.3333333333333333)
PX_FN PX_REAL pxk_polyTan(PX_REAL z) {
  PXR p =
      PX_R(0.13333333333334474) +
      z * (PX_R(0.05396825396689604) +
           z * (PX_R(0.02186948860127688) +
                z * (PX_R(0.0088632338925355) +
                     z * (PX_R(0.0035921526571852757) +
                          z * (PX_R(0.0014555958907392728) +
                               z * (PX_R(0.0005915809914030857) +
                                    z * (PX_R(0.00023217337534390232) +
                                         z * (PX_R(0.00011842060146984293) +
                                              z * (PX_R(-6.012345417432947e-06) +
                                                   z * (PX_R(7.840157308812333e-05) +
                                                        z * (PX_R(-4.5310765910817135e-05) +
                                                             z * PX_R(
                                                                     2.3270942330877008e-05))))))))))));
  return p;
}

// asin(x) = x + x pxk_polyAsin(z), z = x^2 <= 1/4; relative error 2^-59.1
PX_FN PX_REAL pxk_polyAsin(PX_REAL z) {
  PXR p =
      z *
      (PX_R(0.16666666666666666) +
       z * (PX_R(0.0750000000000116) +
            z * (PX_R(0.04464285713999436) +
                 z * (PX_R(0.030381944730574473) +
                      z * (PX_R(0.022372144027835168) +
                           z * (PX_R(0.017353241364263236) +
                                z * (PX_R(0.01395504173422535) +
                                     z * (PX_R(0.011688646932610331) +
                                          z * (PX_R(0.008430087000856597) +
                                               z * (PX_R(0.017512676907827405) +
                                                    z * (PX_R(-0.03649476969429095) +
                                                         z * (PX_R(0.1506323743183922) +
                                                              z * (PX_R(-0.30347395172659947) +
                                                                   z * (PX_R(0.3926138726626933) +
                                                                        z * PX_R(
                                                                                -0.20701270227308796)))))))))))))));
  return p;
}

// atan(x) = x + x pxk_polyAtan(z), z = x^2 <= (7/16)^2; relative error 2^-58.4
PX_FN PX_REAL pxk_polyAtan(PX_REAL z) {
  PXR p =
      z *
      (PX_R(-0.3333333333333333) +
       z * (PX_R(0.1999999999999784) +
            z * (PX_R(-0.14285714285242498) +
                 z * (PX_R(0.11111111069994305) +
                      z * (PX_R(-0.09090907226985795) +
                           z * (PX_R(0.07692257648242741) +
                                z * (PX_R(-0.06665811927376085) +
                                     z * (PX_R(0.05872695166954581) +
                                          z * (PX_R(-0.05189705980094723) +
                                               z * (PX_R(0.04386094073183997) +
                                                    z * (PX_R(-0.03076899336368942) +
                                                         z * PX_R(0.012511339061828802))))))))))));
  return p;
}

// exp(r) = 1 + r + r^2 pxk_polyExp(r), |r| <= ln2/128; absolute error 2^-62.4
PX_FN PX_REAL pxk_polyExp(PX_REAL r) {
  PXR p =
      PX_R(0.5) + r * (PX_R(0.16666666666665475) +
                       r * (PX_R(0.041666666688055215) +
                            r * (PX_R(0.008333321404219043) + r * PX_R(0.0013915102381024216))));
  return p;
}
#endif

//---------------------------------- reduction modulo pi/2 -----------------------------------------

// Payne-Hanek for finite |x| >= PXK_CW_MAX: returns n mod 8 and y[0] + y[1] = |x| - n pi/2,
// |y| <= pi/4. |x| = sum_i X_i 2^(e0 - 12i) with 12-bit limbs X_i and e0 a multiple of 12, so
// that the products X_i T_k of 12-bit digits of 2/pi line up in 12-bit columns; the columns
// whose weight is a multiple of 8 are skipped, the others summed in int32 and carried exactly.
PX_FN int pxk_remPio2Big(PX_REAL ax, PX_OUT(PX_REAL, y, 2)) {
  // limbs of |x| below 2^(e0 + 12)
  int m = pxk_ilogb(ax) / 12;
  PXR z = ax * pxk_pow2(-12 * m);
  int xl[PXK_NLIMB];
  for (int i = 0; i < PXK_NLIMB; i++) {
    int li = PX_INT(z);
    xl[i] = li;
    z = (z - PX_TOREAL(li)) * PX_R(4096.0);
  }

  // column j has weight 2^(-12j): column 0 holds the integer part (mod 4096), then the fraction
  int q[PXK_NDIG + 1];
  for (int j = 0; j <= PXK_NDIG; j++) {
    int s = 0;
    for (int i = 0; i < PXK_NLIMB; i++) {
      int k = m + j - i;
      if (k > 0) s += xl[i] * pxk_twoOverPi[k];
    }
    q[j] = s;
  }

  // carry into 12-bit digits
  int c = 0;
  for (int j = PXK_NDIG; j >= 1; j--) {
    int t = q[j] + c;
    q[j] = t & 4095;
    c = t >> 12;
  }
  int n = (q[0] + c) & 7;

  // round to the nearest integer: a fraction >= 1/2 becomes 1 - fraction, negated
  int neg = q[1] >= 2048 ? 1 : 0;
  if (neg != 0) {
    n = (n + 1) & 7;
    c = 1;
    for (int j = PXK_NDIG; j >= 1; j--) {
      int t = 4095 - q[j] + c;
      q[j] = t & 4095;
      c = t >> 12;
    }
  }

  // the fraction as head + tail, summed from the least significant digit
  PXR sc = pxk_pow2(-12 * PXK_NDIG);
  PXR hi = PX_R(0.0);
  PXR lo = PX_R(0.0);
  PX_REAL t2[2];
  for (int j = PXK_NDIG; j >= 1; j--) {
    PXR term = PX_TOREAL(q[j]) * sc;
    pxk_twoSum(hi, term, t2);
    hi = t2[0];
    lo = lo + t2[1];
    sc = sc * PX_R(4096.0);
  }
  pxk_fastTwoSum(hi, lo, t2);

  // times pi/2
  PX_REAL p[2];
  pxk_twoProd(t2[0], PXK_PIO2_H, p);
  PXR pe = p[1] + (t2[0] * PXK_PIO2_L + t2[1] * PXK_PIO2_H);
  pxk_fastTwoSum(p[0], pe, y);
  if (neg != 0) {
    y[0] = -y[0];
    y[1] = -y[1];
  }
  return n;
}

// reduction of finite x: returns n (mod 8 when |x| >= PXK_CW_MAX) and y[0] + y[1] = x - n pi/2
PX_FN int pxk_remPio2(PX_REAL x, PX_OUT(PX_REAL, y, 2)) {
  PX_REAL ax = pxk_abs(x);
  if (ax < PXK_CW_MAX) {
    // Cody-Waite: n = round(x 2/pi); n * PXK_CW1..3 are exact and x - n PXK_CW1 is exact
    PXR t = x * PXK_INV_PIO2 + PXK_SHIFTER;
    PXR fn = t - PXK_SHIFTER;
    PXR r = x - fn * PXK_CW1;
    PXR w2 = fn * PXK_CW2;
    PXR w3 = fn * PXK_CW3;
    PXR w4 = fn * PXK_CW4;
    PX_REAL a[2];
    PX_REAL b[2];
    pxk_twoSum(r, -w2, a);
    pxk_twoSum(a[0], -w3, b);
    PXR tail = (a[1] + b[1]) - w4;
    pxk_twoSum(b[0], tail, y);
    return PX_INT(fn);
  }
  int n = pxk_remPio2Big(ax, y);
  if (pxk_signBit(x) != 0) {
    y[0] = -y[0];
    y[1] = -y[1];
    n = -n;
  }
  return n;
}

//---------------------------------- sin, cos, tan -------------------------------------------------

// sin(x + y) for |x + y| <= ~pi/4, |y| <= ulp(x)/2. The leading correction x^3 PXK_SIN0 is
// formed from x^3 as head + tail, and added to x with its rounding error kept.
PX_FN PX_REAL pxk_kernelSin(PX_REAL x, PX_REAL y) {
  PX_REAL z[2];
  PX_REAL v[2];
  pxk_twoProd(x, x, z);
  pxk_twoProd(x, z[0], v);
  PXR vl = v[1] + x * z[1];
  PXR r = pxk_polySin(z[0]);

  // sin(x + y) = x + x^3 (S0 + z S(z)) + y (1 - z/2)
  PXR corr = (y - z[0] * (PX_R(0.5) * y - v[0] * r)) + vl * PXK_SIN0;
  PXR lead = v[0] * PXK_SIN0;
  PX_REAL a[2];
  pxk_fastTwoSum(x, lead, a);
  PXR s = a[0] + (a[1] + corr);
  return s;
}

// cos(x + y) for |x + y| <= ~pi/4, |y| <= ulp(x)/2: 1 - z/2 with z = x^2 as head + tail and
// the rounding error of 1 - z/2 kept
PX_FN PX_REAL pxk_kernelCos(PX_REAL x, PX_REAL y) {
  PX_REAL z[2];
  pxk_twoProd(x, x, z);
  PXR r = z[0] * z[0] * pxk_polyCos(z[0]);
  PXR hz = PX_R(0.5) * z[0];
  PXR w = PX_R(1.0) - hz;
  PXR c = w + (((PX_R(1.0) - w) - hz) + (r - (x * y + PX_R(0.5) * z[1])));
  return c;
}

// tan(x + y) (odd == 0) or -1/tan(x + y) (odd == 1) for |x + y| <= ~pi/4, |y| <= ulp(x)/2.
// Above 0.6744, tan(x) = tan(pi/4 - t) = 1 - 2 (w - w^2/(1 + w)) with w = tan(t), t <= 0.11.
PX_FN PX_REAL pxk_kernelTan(PX_REAL x, PX_REAL y, int odd) {
  int neg = pxk_signBit(x);
  PX_REAL ax = pxk_abs(x);
  int big = ax >= PX_R(0.6744) ? 1 : 0;
  PXR xr = x;
  PXR yr = y;
  if (big != 0) {
    if (neg != 0) {
      xr = -x;
      yr = -y;
    }
    PXR a = PXK_PIO4_H - xr;
    PXR b = PXK_PIO4_L - yr;
    xr = a + b;
    yr = b - (xr - a);
  }

  // w = tan(xr + yr) = xr + xr^3 (T0 + z T(z)) + yr (1 + z) as head + tail, x^3 as head + tail
  PX_REAL z[2];
  PX_REAL v[2];
  pxk_twoProd(xr, xr, z);
  pxk_twoProd(xr, z[0], v);
  PXR vl = v[1] + xr * z[1];
  PXR p = pxk_polyTan(z[0]);
  PXR corr = (z[0] * (v[0] * p + yr) + yr) + vl * PXK_TAN0;
  PXR lead = v[0] * PXK_TAN0;
  PX_REAL a[2];
  pxk_fastTwoSum(xr, lead, a);
  PXR rl = a[1] + corr;
  PX_REAL w[2];
  pxk_fastTwoSum(a[0], rl, w);

  // tan(pi/4 - t) = sv - 2 (w - w^2/(w + sv)), sv = 1, and -1/tan(pi/4 - t) with sv = -1
  if (big != 0) {
    PXR sv = PX_TOREAL(1 - 2 * odd);
    PXR m = w[0] * w[0] / (w[0] + sv);
    PXR w2 = w[0] + w[0];
    PX_REAL h[2];
    pxk_twoSum(sv, -w2, h);
    PXR u = h[0] + (h[1] + PX_R(2.0) * (m - w[1]));
    return neg != 0 ? -u : u;
  }
  if (odd == 0) return w[0];

  // -1/(w[0] + w[1]) with one Newton step on the exact residual
  PXR q = PX_R(-1.0) / w[0];
  PX_REAL pr[2];
  pxk_twoProd(q, w[0], pr);
  PXR e = ((PX_R(1.0) + pr[0]) + pr[1]) + q * w[1];
  PXR res = q + q * e;
  return res;
}

// sine
PX_FN PX_REAL pxk_sin(PX_REAL x) {
  PX_REAL ax = pxk_abs(x);
  if (ax < PXK_EPS1) return x;
  if (ax <= PXK_PIO4_H) return pxk_kernelSin(x, PX_R(0.0));
  if (pxk_bexp(x) == PXK_EXPINF) {
    PXR nan = x - x;
    return nan;
  }
  PX_REAL y[2];
  int n = pxk_remPio2(x, y) & 3;
  if (n == 0) return pxk_kernelSin(y[0], y[1]);
  if (n == 1) return pxk_kernelCos(y[0], y[1]);
  if (n == 2) return -pxk_kernelSin(y[0], y[1]);
  return -pxk_kernelCos(y[0], y[1]);
}

// cosine
PX_FN PX_REAL pxk_cos(PX_REAL x) {
  PX_REAL ax = pxk_abs(x);
  if (ax < PXK_EPS2) return PX_R(1.0);
  if (ax <= PXK_PIO4_H) return pxk_kernelCos(x, PX_R(0.0));
  if (pxk_bexp(x) == PXK_EXPINF) {
    PXR nan = x - x;
    return nan;
  }
  PX_REAL y[2];
  int n = pxk_remPio2(x, y) & 3;
  if (n == 0) return pxk_kernelCos(y[0], y[1]);
  if (n == 1) return -pxk_kernelSin(y[0], y[1]);
  if (n == 2) return -pxk_kernelCos(y[0], y[1]);
  return pxk_kernelSin(y[0], y[1]);
}

// tangent
PX_FN PX_REAL pxk_tan(PX_REAL x) {
  PX_REAL ax = pxk_abs(x);
  if (ax < PXK_EPS2) return x;
  if (ax <= PXK_PIO4_H) return pxk_kernelTan(x, PX_R(0.0), 0);
  if (pxk_bexp(x) == PXK_EXPINF) {
    PXR nan = x - x;
    return nan;
  }
  PX_REAL y[2];
  int n = pxk_remPio2(x, y);
  return pxk_kernelTan(y[0], y[1], n & 1);
}

//---------------------------------- asin, acos ----------------------------------------------------

// s[0] + s[1] = sqrt(z) to about twice the working precision, z > 0 normal
PX_FN void pxk_sqrt2(PX_REAL z, PX_OUT(PX_REAL, s, 2)) {
  PXR sh = PX_SQRT(z);
  PX_REAL q[2];
  pxk_twoProd(sh, sh, q);
  PXR sl = ((z - q[0]) - q[1]) / (sh + sh);
  s[0] = sh;
  s[1] = sl;
}

// arc sine
PX_FN PX_REAL pxk_asin(PX_REAL x) {
  PX_REAL ax = pxk_abs(x);
  int neg = pxk_signBit(x);
  if (!(ax < PX_R(1.0))) {
    if (ax == PX_R(1.0)) return neg != 0 ? -PXK_PIO2_H : PXK_PIO2_H;
    if (pxk_isNan(x) != 0) {
      PXR q = x + x;
      return q;
    }
    return PXK_NAN;
  }
  if (ax < PXK_EPS1) return x;

  // |x| < 1/2: x + x z G(z)
  if (ax < PX_R(0.5)) {
    PXR z = x * x;
    PXR r = x + x * pxk_polyAsin(z);
    return r;
  }

  // pi/2 - 2 (s + s z G(z)), s = sqrt(z), z = (1 - |x|)/2
  PXR z = (PX_R(1.0) - ax) * PX_R(0.5);
  PX_REAL s[2];
  pxk_sqrt2(z, s);
  PXR p = pxk_polyAsin(z);
  PXR s2 = s[0] + s[0];
  PX_REAL a[2];
  pxk_twoSum(PXK_PIO2_H, -s2, a);
  PXR lo = (a[1] + PXK_PIO2_L) - PX_R(2.0) * (s[1] + s[0] * p);
  PXR r = a[0] + lo;
  return neg != 0 ? -r : r;
}

// arc cosine
PX_FN PX_REAL pxk_acos(PX_REAL x) {
  PX_REAL ax = pxk_abs(x);
  int neg = pxk_signBit(x);
  if (!(ax < PX_R(1.0))) {
    if (ax == PX_R(1.0)) return neg != 0 ? PXK_PI_H : PX_R(0.0);
    if (pxk_isNan(x) != 0) {
      PXR q = x + x;
      return q;
    }
    return PXK_NAN;
  }

  // |x| < 1/2: pi/2 - (x + x z G(z))
  PX_REAL a[2];
  if (ax < PX_R(0.5)) {
    PXR z = x * x;
    PXR p = pxk_polyAsin(z);
    pxk_twoSum(PXK_PIO2_H, -x, a);
    PXR lo = (a[1] + PXK_PIO2_L) - x * p;
    PXR r = a[0] + lo;
    return r;
  }

  // x > 1/2: 2 (s + s z G(z)); x < -1/2: pi - 2 (s + s z G(z)); s = sqrt(z), z = (1 - |x|)/2
  PXR z = (PX_R(1.0) - ax) * PX_R(0.5);
  PX_REAL s[2];
  pxk_sqrt2(z, s);
  PXR p = pxk_polyAsin(z);
  PXR s2 = s[0] + s[0];
  if (neg == 0) {
    PXR r = s2 + PX_R(2.0) * (s[1] + s[0] * p);
    return r;
  }
  pxk_twoSum(PXK_PI_H, -s2, a);
  PXR lo = (a[1] + PXK_PI_L) - PX_R(2.0) * (s[1] + s[0] * p);
  PXR r = a[0] + lo;
  return r;
}

//---------------------------------- atan, atan2 ---------------------------------------------------

// res[0] + res[1] = atan(xh + xl) for xh >= 0 (not NaN), |xl| <= ulp(xh); res[0] is the
// rounded result. atan(x) = atan(c) + atan(t), t = (x - c)/(1 + c x) carried as head + tail.
PX_FN void pxk_atanCore(PX_REAL xh, PX_REAL xl, PX_OUT(PX_REAL, res, 2)) {
  if (xh >= PXK_ATAN_BIG) {
    res[0] = PXK_PIO2_H;
    res[1] = PXK_PIO2_L;
    return;
  }
  PXR th = xh;
  PXR tl = PX_R(0.0);
  PXR ch = PX_R(0.0);
  PXR cl = PX_R(0.0);
  if (xh >= PX_R(0.4375)) {
    // t = num / (dh + dl) with num exact
    PXR num = PX_R(-1.0);
    PXR dh = xh;
    PXR dl = PX_R(0.0);
    PX_REAL a[2];
    if (xh < PX_R(0.6875)) {
      num = (xh + xh) - PX_R(1.0);
      pxk_twoSum(PX_R(2.0), xh, a);
      dh = a[0];
      dl = a[1];
      ch = PXK_ATAN0P5_H;
      cl = PXK_ATAN0P5_L;
    } else if (xh < PX_R(1.1875)) {
      num = xh - PX_R(1.0);
      pxk_twoSum(xh, PX_R(1.0), a);
      dh = a[0];
      dl = a[1];
      ch = PXK_ATAN1P0_H;
      cl = PXK_ATAN1P0_L;
    } else if (xh < PX_R(2.4375)) {
      num = xh - PX_R(1.5);
      PXR hx = PX_R(0.5) * xh;
      PX_REAL b[2];
      pxk_twoSum(xh, hx, b);
      pxk_twoSum(PX_R(1.0), b[0], a);
      dh = a[0];
      dl = a[1] + b[1];
      ch = PXK_ATAN1P5_H;
      cl = PXK_ATAN1P5_L;
    } else {
      ch = PXK_PIO2_H;
      cl = PXK_PIO2_L;
    }
    th = num / dh;
    PX_REAL pr[2];
    pxk_twoProd(th, dh, pr);
    tl = (((num - pr[0]) - pr[1]) - th * dl) / dh;
  }

  // atan(c) + t + t z A(z), plus the tails to first order: tl/(1 + t^2) and xl/(1 + x^2)
  PXR z = th * th;
  PXR dx = PX_R(0.0);
  if (xl != PX_R(0.0)) dx = xl / (PX_R(1.0) + xh * xh);
  PXR small = ((th * pxk_polyAtan(z) + (tl - tl * z)) + dx) + cl;
  PX_REAL s[2];
  pxk_twoSum(ch, th, s);
  PXR lo = s[1] + small;
  pxk_fastTwoSum(s[0], lo, res);
}

// arc tangent
PX_FN PX_REAL pxk_atan(PX_REAL x) {
  if (pxk_isNan(x) != 0) {
    PXR q = x + x;
    return q;
  }
  PX_REAL ax = pxk_abs(x);
  if (ax < PXK_EPS2) return x;
  PX_REAL r[2];
  pxk_atanCore(ax, PX_R(0.0), r);
  return pxk_signBit(x) != 0 ? -r[0] : r[0];
}

// arc tangent of y/x in [-pi, pi], C99 Annex F special cases
PX_FN PX_REAL pxk_atan2(PX_REAL y, PX_REAL x) {
  if (pxk_isNan(x) != 0 || pxk_isNan(y) != 0) {
    PXR q = x + y;
    return q;
  }
  int ny = pxk_signBit(y);
  int nx = pxk_signBit(x);
  PX_REAL ax = pxk_abs(x);
  PX_REAL ay = pxk_abs(y);
  PX_REAL res = PX_R(0.0);
  if (ay == PX_R(0.0)) {
    // +-0: +-0 toward +x (and +0), +-pi toward -x (and -0)
    res = nx != 0 ? PXK_PI_H : PX_R(0.0);
  } else if (pxk_isInf(x) != 0) {
    if (pxk_isInf(y) != 0) {
      res = nx != 0 ? PXK_3PIO4 : PXK_PIO4_H;
    } else {
      res = nx != 0 ? PXK_PI_H : PX_R(0.0);
    }
  } else if (ax == PX_R(0.0) || pxk_isInf(y) != 0) {
    res = PXK_PIO2_H;
  } else {
    // finite and nonzero
    int ex = pxk_ilogb(ax);
    int ediff = pxk_ilogb(ay) - ex;
    if (ediff > PXK_ATAN2_EDIF) {
      res = PXK_PIO2_H;
    } else if (ediff < -PXK_ATAN2_EDIF) {
      // atan(q) = q to within rounding; pi - q rounds to pi
      if (nx != 0) {
        res = PXK_PI_H;
      } else {
        PXR q = ay / ax;
        res = q;
      }
    } else {
      // q = |y|/|x| as head + tail, from operands scaled near 1
      PXR xs = pxk_scale(ax, -ex);
      PXR ys = pxk_scale(ay, -ex);
      PXR qh = ys / xs;
      PX_REAL pr[2];
      pxk_twoProd(qh, xs, pr);
      PXR ql = ((ys - pr[0]) - pr[1]) / xs;
      PX_REAL a[2];
      pxk_atanCore(qh, ql, a);
      if (nx == 0) {
        res = a[0];
      } else {
        PX_REAL b[2];
        pxk_twoSum(PXK_PI_H, -a[0], b);
        PXR lo = b[1] + (PXK_PI_L - a[1]);
        PXR r = b[0] + lo;
        res = r;
      }
    }
  }
  return ny != 0 ? -res : res;
}

//---------------------------------- exp, log, pow -------------------------------------------------

// exp(zh + zl) for zh in [PXK_EXP_UNF, PXK_EXP_OVF], |zl| <= ulp(zh)
PX_FN PX_REAL pxk_expCore(PX_REAL zh, PX_REAL zl) {
  // zh = (64 kk + j) ln2/64 + r, |r| <= ln2/128 (r as head + tail)
  PXR t = zh * PXK_INV_LN2_64 + PXK_SHIFTER;
  PXR kd = t - PXK_SHIFTER;
  int k = PX_INT(kd);
  PXR rh = zh - kd * PXK_EXP_L1;
  PXR w2 = kd * PXK_EXP_L2;
  PX_REAL a[2];
  pxk_twoSum(rh, -w2, a);
  PXR rl = (a[1] - kd * PXK_EXP_L3) + zl;
  PXR r = a[0] + rl;

  // 2^(j/64) (1 + p), p = exp(r) - 1
  PXR p = r + r * r * pxk_polyExp(r);
  int j = k & 63;
  int kk = (k - j) / 64;
  PXR th = pxk_expTab[2 * j];
  PXR tl = pxk_expTab[2 * j + 1];
  PXR corr = tl + th * p;
  PXR s = th + corr;

  // times 2^kk, in two steps near overflow
  if (kk > PXK_BIAS) {
    PXR u = s * pxk_pow2(kk - 1) * PX_R(2.0);
    return u;
  }

  // a subnormal result is rounded once, at its own position: scaled by 2^(PXK_BIAS - 1) it is
  // below 1, and 1 + scaled has the subnormal ulp
  if (kk < 2 - PXK_BIAS) {
    PXR sc = pxk_pow2(kk + PXK_BIAS - 1);
    PXR us = s * sc;
    if (us < PX_R(1.0)) {
      PXR t1 = th * sc;
      PXR t2 = corr * sc;
      PX_REAL h[2];
      pxk_fastTwoSum(PX_R(1.0), t1, h);
      PXR f = h[0] + (h[1] + t2);
      PXR u = (f - PX_R(1.0)) * pxk_pow2(1 - PXK_BIAS);
      return u;
    }
  }
  PXR u = s * pxk_pow2(kk);
  return u;
}

// exponential
PX_FN PX_REAL pxk_exp(PX_REAL x) {
  if (pxk_isNan(x) != 0) {
    PXR q = x + x;
    return q;
  }
  if (x > PXK_EXP_OVF) return PXK_INF;
  if (x < PXK_EXP_UNF) return PX_R(0.0);
  return pxk_expCore(x, PX_R(0.0));
}

// res[0] + res[1] = log(x) for finite x > 0 (subnormals included), about 2^-70 relative;
// res[0] is the rounded result
PX_FN void pxk_logCore(PX_REAL x, PX_OUT(PX_REAL, res, 2)) {
  // x = 2^k m, m in [sqrt(1/2), sqrt(2))
  PXR xn = x;
  int k = 0;
  if (pxk_bexp(x) == 0) {
    xn = x * pxk_pow2(PXK_MANT + 2);
    k = -(PXK_MANT + 2);
  }
  k = k + pxk_bexp(xn) - PXK_BIAS;
  PXR m = pxk_setExp(xn, PXK_BIAS);
  if (m > PX_R(1.4142135)) {
    m = m * PX_R(0.5);
    k = k + 1;
  }

  // c = j/128 near m; s = (m - c)/(m + c) as head + tail (m - c is exact)
  PXR mj = m * PX_R(128.0) + PX_R(0.5);
  int j = PX_INT(mj);
  PXR c = PX_TOREAL(j) * PX_R(0.0078125);
  PXR f = m - c;
  PX_REAL d[2];
  pxk_twoSum(m, c, d);
  PXR sh = f / d[0];
  PX_REAL pr[2];
  pxk_twoProd(sh, d[0], pr);
  PXR sl = (((f - pr[0]) - pr[1]) - sh * d[1]) / d[0];

  // log(m) = log(c) + 2s + (2/3) s^3 + (2/5) s^5 + (2/7) s^7, |s| < 2^-8.5
  PXR z = sh * sh;
  PXR tail = sh * z * (PX_R(0.6666666666666666) + z * (PX_R(0.4) + z * PX_R(0.2857142857142857)));

  // k ln2 + log(c) + 2s, summed exactly, then the small terms
  PXR kd = PX_TOREAL(k);
  PXR k1 = kd * PXK_LN2_1;
  PXR k2 = kd * PXK_LN2_2;
  PXR s2 = sh + sh;
  PX_REAL a1[2];
  PX_REAL a2[2];
  PX_REAL a3[2];
  pxk_twoSum(k1, pxk_logTab[2 * (j - 91)], a1);
  pxk_twoSum(a1[0], k2, a2);
  pxk_twoSum(a2[0], s2, a3);
  PXR lo = tail + (kd * PXK_LN2_3 +
                   (pxk_logTab[2 * (j - 91) + 1] + ((sl + sl) + ((a1[1] + a2[1]) + a3[1]))));
  pxk_fastTwoSum(a3[0], lo, res);
}

// natural logarithm
PX_FN PX_REAL pxk_log(PX_REAL x) {
  if (pxk_isNan(x) != 0) {
    PXR q = x + x;
    return q;
  }
  if (x == PX_R(0.0)) return -PXK_INF;
  if (x < PX_R(0.0)) return PXK_NAN;
  if (pxk_isInf(x) != 0) return x;
  PX_REAL r[2];
  pxk_logCore(x, r);
  return r[0];
}

// classify y: 0 not an integer, 1 odd integer, 2 even integer
PX_FN int pxk_intClass(PX_REAL y) {
  PX_REAL ay = pxk_abs(y);
  PX_REAL big = pxk_pow2(PXK_MANT);
  PXR big2 = PX_R(2.0) * big;
  if (ay >= big2) return 2;
  if (ay < big) {
    PXR t = (ay + big) - big;
    if (t != ay) return 0;
  }
  PXR h = PX_R(0.5) * ay;
  PXR th = (h + big) - big;
  return th != h ? 1 : 2;
}

// x raised to the power y, C99 Annex F special cases
PX_FN PX_REAL pxk_pow(PX_REAL x, PX_REAL y) {
  PX_REAL ax = pxk_abs(x);
  PX_REAL ay = pxk_abs(y);
  if (ay == PX_R(0.0) || x == PX_R(1.0)) return PX_R(1.0);
  if (pxk_isNan(x) != 0 || pxk_isNan(y) != 0) {
    PXR q = x + y;
    return q;
  }
  int yc = pxk_intClass(y);
  int nx = pxk_signBit(x);
  int ny = pxk_signBit(y);

  // y = +-inf, or |y| so large that |y log|x|| surely leaves the range (y is even then)
  if (pxk_isInf(y) != 0 || ay >= PXK_POW_YBIG) {
    if (ax == PX_R(1.0)) return PX_R(1.0);
    return ((ax > PX_R(1.0)) == (ny == 0)) ? PXK_INF : PX_R(0.0);
  }

  // x = +-0 or +-inf: the sign survives for odd integer y
  if (ax == PX_R(0.0) || pxk_isInf(x) != 0) {
    PX_REAL r = ((ax == PX_R(0.0)) == (ny != 0)) ? PXK_INF : PX_R(0.0);
    return (nx != 0 && yc == 1) ? -r : r;
  }

  // negative x needs an integer y
  if (nx != 0 && yc == 0) return PXK_NAN;
  int negres = (nx != 0 && yc == 1) ? 1 : 0;

  // y log|x| as head + tail
  PX_REAL l[2];
  pxk_logCore(ax, l);
  PX_REAL p[2];
  pxk_twoProd(y, l[0], p);
  PXR zl = p[1] + y * l[1];
  PX_REAL z[2];
  pxk_fastTwoSum(p[0], zl, z);
  PX_REAL r = PX_R(0.0);
  if (z[0] > PXK_EXP_OVF) {
    r = PXK_INF;
  } else if (z[0] >= PXK_EXP_UNF) {
    r = pxk_expCore(z[0], z[1]);
  }
  return negres != 0 ? -r : r;
}

#endif  // PX_KERN_LIBM_H_
