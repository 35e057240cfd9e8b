// SPDX-License-Identifier: Apache-2.0
// phalanx's libm (csrc/kern/libm.h) against correctly rounded MPFR values.
//
// Each function runs on a fixed, seeded sample: random arguments over all magnitudes (uniform
// exponents, random significands, both signs), hard cases (huge arguments, the doubles nearest
// to multiples of pi/2, arguments of pow near 1 with huge exponents, overflow and underflow
// boundaries, subnormals, region boundaries of each algorithm) and the special values of C99
// Annex F (signed zeros, infinities, NaNs), which must match exactly. The error of a result is
// |result - exact| / ulp(exact), exact computed by MPFR with 160 bits and ulp taken in the
// target format (subnormal ulps below the normal range). The test prints the largest error per
// function and fails when one exceeds PT_BOUND ulp.
//
// Built with -DPX_FP32 it checks the float variant against correctly rounded floats instead.
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <mpfr.h>

#include "kern/prelude_c.h"
#include "kern/libm.h"

#include "harness.h"

//---------------------------------- target format -------------------------------------------------

#ifdef PX_FP32
#define PT_PREC 24      // significand bits
#define PT_EMIN (-148)  // MPFR exponent range of float (MPFR significands are in [1/2, 1))
#define PT_EMAX 128
#define PT_ELOW (-126)  // exponent of the smallest normal
#define PT_EHIGH 127    // exponent of the largest finite
#define PT_MAXV FLT_MAX
#define PT_BOUND 1.0    // fails above this many ulps
#define PT_NRAND 20000  // random arguments per function
#else
#define PT_PREC 53
#define PT_EMIN (-1073)
#define PT_EMAX 1024
#define PT_ELOW (-1022)
#define PT_EHIGH 1023
#define PT_MAXV DBL_MAX
#define PT_BOUND 1.0
#define PT_NRAND 20000
#endif

// the smallest positive subnormal
#define PT_MINSUB ldexp(1.0, PT_ELOW - PT_PREC + 1)

// MPFR working precision of the exact values
#define PT_WORK 160

static void mpSet(mpfr_t r, PX_REAL x) {
#ifdef PX_FP32
  mpfr_set_flt(r, x, MPFR_RNDN);
#else
  mpfr_set_d(r, x, MPFR_RNDN);
#endif
}

// exact rounded to the target format (overflow, underflow and subnormals included)
static PX_REAL roundTarget(mpfr_srcptr exact) {
  mpfr_exp_t emin = mpfr_get_emin();
  mpfr_exp_t emax = mpfr_get_emax();
  mpfr_t t;
  mpfr_init2(t, PT_PREC);
  int tern = mpfr_set(t, exact, MPFR_RNDN);
  mpfr_set_emin(PT_EMIN);
  mpfr_set_emax(PT_EMAX);
  tern = mpfr_check_range(t, tern, MPFR_RNDN);
  mpfr_subnormalize(t, tern, MPFR_RNDN);
#ifdef PX_FP32
  PX_REAL r = mpfr_get_flt(t, MPFR_RNDN);
#else
  PX_REAL r = mpfr_get_d(t, MPFR_RNDN);
#endif
  mpfr_set_emin(emin);
  mpfr_set_emax(emax);
  mpfr_clear(t);
  return r;
}

// error of got in ulps of the exact value; INFINITY when inf/NaN/zero classes disagree
static double ulpError(PX_REAL got, mpfr_srcptr exact) {
  if (mpfr_nan_p(exact)) return isnan(got) ? 0.0 : INFINITY;
  if (isnan(got)) return INFINITY;
  PX_REAL cr = roundTarget(exact);
  if (isinf(cr) || isinf(got)) return got == cr ? 0.0 : INFINITY;
  if (mpfr_zero_p(exact)) return got == 0 ? 0.0 : INFINITY;
  mpfr_t d;
  mpfr_init2(d, 2 * PT_WORK);
  mpSet(d, got);
  mpfr_sub(d, d, exact, MPFR_RNDN);
  mpfr_abs(d, d, MPFR_RNDN);
  long e = (long)mpfr_get_exp(exact) - 1;
  if (e < PT_ELOW) e = PT_ELOW;
  mpfr_mul_2si(d, d, PT_PREC - 1 - e, MPFR_RNDN);
  double err = mpfr_get_d(d, MPFR_RNDU);
  mpfr_clear(d);
  return err;
}

//---------------------------------- statistics ----------------------------------------------------

typedef struct {
  const char* name;
  double maxErr;  // largest error seen (ulps)
  double argX;    // argument(s) where it was seen
  double argY;
  long count;
} Stat;

static void record(Stat* st, double err, PX_REAL x, PX_REAL y) {
  st->count++;
  if (err > st->maxErr || (isnan(err) && !isnan(st->maxErr))) {
    st->maxErr = err;
    st->argX = x;
    st->argY = y;
  }
}

// print the summary of one function; 0 when within the bound
static int report(const Stat* st) {
  printf("  %-10s max error %.4f ulp at (%.17g, %.17g), %ld arguments\n", st->name, st->maxErr,
         st->argX, st->argY, st->count);
  return st->maxErr <= PT_BOUND ? 0 : 1;
}

typedef PX_REAL (*Fn1)(PX_REAL);
typedef PX_REAL (*Fn2)(PX_REAL, PX_REAL);
typedef int (*Mp1)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);
typedef int (*Mp2)(mpfr_ptr, mpfr_srcptr, mpfr_srcptr, mpfr_rnd_t);

static void check1(Stat* st, Fn1 f, Mp1 g, PX_REAL x) {
  mpfr_t mx, r;
  mpfr_inits2(PT_WORK, mx, r, (mpfr_ptr)0);
  mpSet(mx, x);
  g(r, mx, MPFR_RNDN);
  record(st, ulpError(f(x), r), x, 0);
  mpfr_clears(mx, r, (mpfr_ptr)0);
}

static void check2(Stat* st, Fn2 f, Mp2 g, PX_REAL a, PX_REAL b) {
  mpfr_t ma, mb, r;
  mpfr_inits2(PT_WORK, ma, mb, r, (mpfr_ptr)0);
  mpSet(ma, a);
  mpSet(mb, b);
  g(r, ma, mb, MPFR_RNDN);
  record(st, ulpError(f(a, b), r), a, b);
  mpfr_clears(ma, mb, r, (mpfr_ptr)0);
}

// x and its n neighbours on each side, both signs
static void checkAround1(Stat* st, Fn1 f, Mp1 g, PX_REAL x, int n) {
  PX_REAL lo = x;
  PX_REAL hi = x;
  check1(st, f, g, x);
  check1(st, f, g, -x);
  for (int i = 0; i < n; i++) {
#ifdef PX_FP32
    lo = nextafterf(lo, -INFINITY);
    hi = nextafterf(hi, INFINITY);
#else
    lo = nextafter(lo, -INFINITY);
    hi = nextafter(hi, INFINITY);
#endif
    check1(st, f, g, lo);
    check1(st, f, g, hi);
    check1(st, f, g, -lo);
    check1(st, f, g, -hi);
  }
}

//---------------------------------- random arguments ----------------------------------------------

// splitmix64
static uint64_t rngNext(uint64_t* s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// uniform in [0, 1)
static double rngUniform(uint64_t* s) {
  return (double)(rngNext(s) >> 11) * 0x1p-53;
}

// uniform in [a, b)
static double rngRange(uint64_t* s, double a, double b) {
  return a + (b - a) * rngUniform(s);
}

// random significand in [1, 2) times 2^e, e uniform in [emin, emax]; random sign if sign != 0
static PX_REAL rngLog(uint64_t* s, int emin, int emax, int sign) {
  int e = emin + (int)(rngNext(s) % (uint64_t)(emax - emin + 1));
  double x = ldexp(1.0 + rngUniform(s), e);
  if (sign && (rngNext(s) & 1)) x = -x;
  return (PX_REAL)x;
}

// a random finite bit pattern
static PX_REAL rngBits(uint64_t* s) {
  for (;;) {
#ifdef PX_FP32
    uint32_t u = (uint32_t)rngNext(s);
    float x;
    memcpy(&x, &u, sizeof x);
#else
    uint64_t u = rngNext(s);
    double x;
    memcpy(&x, &u, sizeof x);
#endif
    if (isfinite(x)) return x;
  }
}

//---------------------------------- sin, cos, tan -------------------------------------------------

// doubles (floats) nearest to multiples of pi/2 with the largest cancellation in the reduction,
// found with continued fractions of 2^(e+1)/pi: x = mantissa 2^e
typedef struct {
  uint64_t mant;
  int exp;
} HardArg;

#ifdef PX_FP32
static const HardArg kHardPio2[] = {
    {16367173ull, 72},  {10741887ull, 11},  {16573937ull, -16}, {10057457ull, 62},
    {11617958ull, 17},  {9012376ull, 53},   {14173733ull, 88},  {10695401ull, 2},
    {9882596ull, -21},  {14015064ull, 66},  {8895696ull, 34},   {13444207ull, -8},
    {12558490ull, 78},  {10838702ull, -2},  {11405107ull, 50},  {9688229ull, 6},
    {12438944ull, 103}, {14946604ull, 41},  {8545886ull, -5},   {12615508ull, 92},
    {10511298ull, 68},  {13034427ull, 60},  {15473482ull, 47},  {16282999ull, 22},
    {16573937ull, -15}, {16573937ull, -14}, {9882596ull, -20},  {16573937ull, -13},
    {13176795ull, -23}, {9882596ull, -19},  {9168424ull, -12},  {9882596ull, -18},
    {13176794ull, -22}, {9882596ull, -17}};
#else
static const HardArg kHardPio2[] = {
    {6381956970095103ull, 797}, {6411027962775774ull, -47}, {7763785107565477ull, -29},
    {5916243447979695ull, 79},  {8444920710073313ull, 939}, {5850965514341686ull, 525},
    {8160885118204141ull, 808}, {8360820580228475ull, 628}, {8583082635084172ull, 145},
    {7958046405119485ull, 243}, {6808218460873451ull, 562}, {7636753411044619ull, 201},
    {6366906923947931ull, 194}, {6617649673795284ull, 15},  {6311013172270677ull, 38},
    {5648695676206402ull, 887}, {6221301883130153ull, 969}, {6951690029616219ull, 503},
    {6101578227064009ull, 91},  {8438258240500718ull, 637}, {4595526034082901ull, 130},
    {7750232865711478ull, 435}, {8510948914910667ull, 356}, {6448461629705574ull, 742},
    {8472317217439238ull, 899}, {6437311976313129ull, 147}, {8952459693915715ull, 876},
    {8264535151636159ull, 707}, {5404249928806930ull, 171}, {7209129755475690ull, 24},
    {5706025885963129ull, 262}, {8451279557623493ull, 29},  {4645009646166263ull, 224},
    {4559880479651994ull, 856}, {4615509997160240ull, -13}, {7421585069143268ull, 820},
    {5660697349493277ull, 609}, {4963237255346463ull, 17},  {6972056218669119ull, 673},
    {7366650148704645ull, 190}, {6411027962775774ull, -46}, {6411027962775774ull, -45},
    {6411027962775774ull, -44}, {6411027962775774ull, -43}, {6411027962775774ull, -42},
    {6411027962775774ull, -41}, {5520028710995367ull, -34}, {7074237752028440ull, -52},
    {6411027962775774ull, -40}, {5520028710995367ull, -33}, {7074237752028440ull, -51},
    {6331365068168276ull, -37}, {6411027962775774ull, -39}, {5305678314021330ull, -50},
    {6331365068168276ull, -36}, {6411027962775774ull, -38}, {5305678314021330ull, -49},
    {4748523801126207ull, -35}, {5305678314021330ull, -48}};
#endif

static int checkTrig(const char* name, Fn1 f, Mp1 g) {
  Stat st = {name, 0, 0, 0, 0};
  uint64_t s = 1234;

  // hard cases of the reduction and their neighbours
  for (size_t i = 0; i < sizeof kHardPio2 / sizeof kHardPio2[0]; i++) {
    checkAround1(&st, f, g, (PX_REAL)ldexp((double)kHardPio2[i].mant, kHardPio2[i].exp), 2);
  }

  // the nearest doubles to k pi/2 for small k and random k up to 2^60
  mpfr_t t;
  mpfr_init2(t, 1200);
  for (int i = 1; i < 800; i++) {
    double k = i < 400 ? i : ldexp(rngUniform(&s), 4 + (int)(rngNext(&s) % 57));
    mpfr_const_pi(t, MPFR_RNDN);
    mpfr_mul_d(t, t, floor(k) + 1, MPFR_RNDN);
    mpfr_div_2ui(t, t, 1, MPFR_RNDN);
#ifdef PX_FP32
    checkAround1(&st, f, g, mpfr_get_flt(t, MPFR_RNDN), 1);
#else
    checkAround1(&st, f, g, mpfr_get_d(t, MPFR_RNDN), 1);
#endif
  }
  mpfr_clear(t);

  // huge arguments and the boundaries between the algorithms
  const double named[] = {
      1e22,   1e300,   0x1p1023, 0x1p1000, 1e10, 123456789.0, 0x1p20, 0x1p12, 0.78539816339744828,
      0.6744, 0x1p-26, 0x1p-27,  0x1p-12,  1.0,  3.0};
  for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
    if (named[i] <= PT_MAXV) checkAround1(&st, f, g, (PX_REAL)named[i], 3);
  }
  checkAround1(&st, f, g, PT_MAXV, 3);
  checkAround1(&st, f, g, (PX_REAL)PT_MINSUB, 3);

  // random: all magnitudes, small arguments, any bit pattern
  for (int i = 0; i < PT_NRAND; i++) {
    check1(&st, f, g, rngLog(&s, -30, PT_EHIGH, 1));
    if (i % 2 == 0) check1(&st, f, g, (PX_REAL)rngRange(&s, -10.0, 10.0));
    if (i % 4 == 0) check1(&st, f, g, rngBits(&s));
  }
  return report(&st);
}

static int test_sin(void) {
  return checkTrig("sin", pxk_sin, mpfr_sin);
}
static int test_cos(void) {
  return checkTrig("cos", pxk_cos, mpfr_cos);
}
static int test_tan(void) {
  return checkTrig("tan", pxk_tan, mpfr_tan);
}

//---------------------------------- asin, acos, atan, atan2 ---------------------------------------

static int checkArc(const char* name, Fn1 f, Mp1 g) {
  Stat st = {name, 0, 0, 0, 0};
  uint64_t s = 99;
  const double named[] = {0.5, 1.0, 0x1p-26, 0x1p-27, 0x1p-12, 0.4375, 0.6875, 1.1875, 2.4375};
  for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
    checkAround1(&st, f, g, (PX_REAL)named[i], 4);
  }
  for (int i = 0; i < PT_NRAND / 2; i++) {
    check1(&st, f, g, (PX_REAL)rngRange(&s, -1.0, 1.0));
    check1(&st, f, g, rngLog(&s, PT_ELOW - PT_PREC, -1, 1));
    // near +-1
    PX_REAL d = rngLog(&s, -PT_PREC, -1, 0);
    check1(&st, f, g, (PX_REAL)(1 - d));
    check1(&st, f, g, (PX_REAL)(d - 1));
  }
  return report(&st);
}

static int test_asin(void) {
  return checkArc("asin", pxk_asin, mpfr_asin);
}
static int test_acos(void) {
  return checkArc("acos", pxk_acos, mpfr_acos);
}

static int test_atan(void) {
  Stat st = {"atan", 0, 0, 0, 0};
  uint64_t s = 7;
  const double named[] = {0.4375, 0.6875, 1.1875, 2.4375, 0x1p66, 0x1p26, 0x1p-27, 0x1p-13, 1.0};
  for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
    checkAround1(&st, pxk_atan, mpfr_atan, (PX_REAL)named[i], 4);
  }
  for (int i = 0; i < PT_NRAND; i++) {
    check1(&st, pxk_atan, mpfr_atan, rngLog(&s, PT_ELOW - PT_PREC, PT_EHIGH, 1));
    check1(&st, pxk_atan, mpfr_atan, (PX_REAL)rngRange(&s, -3.0, 3.0));
  }
  return report(&st);
}

static int test_atan2(void) {
  Stat st = {"atan2", 0, 0, 0, 0};
  uint64_t s = 8;
  for (int i = 0; i < PT_NRAND; i++) {
    // exponents within +-70 of each other, anywhere in the range
    int ex = PT_ELOW - PT_PREC + (int)(rngNext(&s) % (uint64_t)(PT_EHIGH - PT_ELOW + PT_PREC));
    int ey = ex - 70 + (int)(rngNext(&s) % 141);
    if (ey > PT_EHIGH) ey = PT_EHIGH;
    if (ey < PT_ELOW - PT_PREC + 1) ey = PT_ELOW - PT_PREC + 1;
    PX_REAL x = rngLog(&s, ex, ex, 1);
    PX_REAL y = rngLog(&s, ey, ey, 1);
    check2(&st, pxk_atan2, mpfr_atan2, y, x);
    // moderate ratios, and any two values
    check2(&st, pxk_atan2, mpfr_atan2, (PX_REAL)rngRange(&s, -4, 4), (PX_REAL)rngRange(&s, -4, 4));
    if (i % 4 == 0) check2(&st, pxk_atan2, mpfr_atan2, rngBits(&s), rngBits(&s));
  }
  // the exponent-difference cutoff, extremes
  for (int d = -PXK_ATAN2_EDIF - 3; d <= PXK_ATAN2_EDIF + 3; d++) {
    PX_REAL y = (PX_REAL)ldexp(1.6, d);
    check2(&st, pxk_atan2, mpfr_atan2, y, (PX_REAL)1.1);
    check2(&st, pxk_atan2, mpfr_atan2, y, (PX_REAL)-1.1);
    check2(&st, pxk_atan2, mpfr_atan2, -y, (PX_REAL)-1.9);
  }
  check2(&st, pxk_atan2, mpfr_atan2, PT_MAXV, PT_MAXV);
  check2(&st, pxk_atan2, mpfr_atan2, PT_MAXV, -PT_MAXV);
  check2(&st, pxk_atan2, mpfr_atan2, (PX_REAL)PT_MINSUB, (PX_REAL)(3 * PT_MINSUB));
  check2(&st, pxk_atan2, mpfr_atan2, (PX_REAL)(-5 * PT_MINSUB), (PX_REAL)(-PT_MINSUB));
  check2(&st, pxk_atan2, mpfr_atan2, PT_MAXV, (PX_REAL)PT_MINSUB);
  check2(&st, pxk_atan2, mpfr_atan2, (PX_REAL)PT_MINSUB, -PT_MAXV);
  return report(&st);
}

//---------------------------------- exp, log, pow -------------------------------------------------

static int test_exp(void) {
  Stat st = {"exp", 0, 0, 0, 0};
  uint64_t s = 3;
  // ln of the largest finite, of the smallest normal, of the smallest subnormal (and half of it)
  double lmax = log(PT_MAXV);
  double lmin = (PT_ELOW)*log(2.0);
  double lsub = (PT_ELOW - PT_PREC + 1) * log(2.0);
  const double named[] = {lmax, lmin, lsub, lsub - log(2.0) / 2, lsub - log(2.0), 1.0, 0x1p-60};
  for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
    checkAround1(&st, pxk_exp, mpfr_exp, (PX_REAL)named[i], 4);
  }
  for (int i = 0; i < PT_NRAND; i++) {
    check1(&st, pxk_exp, mpfr_exp, (PX_REAL)rngRange(&s, lsub - 1, lmax + 1));
    check1(&st, pxk_exp, mpfr_exp, rngLog(&s, PT_ELOW - PT_PREC, 10, 1));
    check1(&st, pxk_exp, mpfr_exp, (PX_REAL)rngRange(&s, lsub - 1, lmin));
  }
  return report(&st);
}

static int test_log(void) {
  Stat st = {"log", 0, 0, 0, 0};
  uint64_t s = 4;
  const double named[] = {1.0, 1.4142135623730951, 0.70710678118654757, 2.0, 0.5, PT_MINSUB};
  for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) {
    check1(&st, pxk_log, mpfr_log, (PX_REAL)named[i]);
    for (int k = -4; k <= 4; k++) {
      check1(&st, pxk_log, mpfr_log, (PX_REAL)(named[i] * (1 + k * ldexp(1, -PT_PREC))));
    }
  }
  check1(&st, pxk_log, mpfr_log, PT_MAXV);
  for (int i = 0; i < PT_NRAND; i++) {
    check1(&st, pxk_log, mpfr_log, rngLog(&s, PT_ELOW - PT_PREC + 1, PT_EHIGH, 0));
    // near 1, both sides
    PX_REAL d = rngLog(&s, -PT_PREC, -1, 0);
    check1(&st, pxk_log, mpfr_log, (PX_REAL)(1 + d));
    check1(&st, pxk_log, mpfr_log, (PX_REAL)(1 - d / 2));
    if (i % 4 == 0) check1(&st, pxk_log, mpfr_log, fabs(rngBits(&s)));
  }
  return report(&st);
}

static int test_pow(void) {
  Stat st = {"pow", 0, 0, 0, 0};
  uint64_t s = 5;
  double range = (PT_EHIGH + PT_PREC + 40) * log(2.0);  // |y log x| up to past the limits
  for (int i = 0; i < PT_NRAND; i++) {
    // any x > 0, y with y log x spread over the whole range and beyond
    PX_REAL x = rngLog(&s, PT_ELOW - PT_PREC + 1, PT_EHIGH, 0);
    PX_REAL y = (PX_REAL)(rngRange(&s, -range, range) / log((double)x));
    if (x != 1) check2(&st, pxk_pow, mpfr_pow, x, y);

    // x near 1 and huge y
    PX_REAL d = rngLog(&s, -PT_PREC, -4, 1);
    x = (PX_REAL)(1 + d);
    y = (PX_REAL)(rngRange(&s, -range, range) / log1p((double)d));
    check2(&st, pxk_pow, mpfr_pow, x, y);

    // negative x, integer y
    x = -rngLog(&s, -8, 8, 0);
    y = (PX_REAL)floor(rngRange(&s, -range, range) / (log(fabs((double)x)) + 1e-3));
    check2(&st, pxk_pow, mpfr_pow, x, y);

    // moderate values, tiny and huge y
    x = (PX_REAL)rngRange(&s, 0, 4);
    check2(&st, pxk_pow, mpfr_pow, x, (PX_REAL)rngRange(&s, -40, 40));
    if (i % 4 == 0) check2(&st, pxk_pow, mpfr_pow, x, rngLog(&s, -PT_ELOW, PT_EHIGH, 1));
    if (i % 4 == 0) check2(&st, pxk_pow, mpfr_pow, x, rngLog(&s, PT_ELOW - PT_PREC, -10, 1));
  }

  // named hard cases
  const double pairs[][2] = {{1 + 0x1p-40, 0x1p40},
                             {1 - 0x1p-53, 0x1p53},
                             {1 + 0x1p-52, -0x1p62},
                             {1 + 0x1p-20, 709.78 * 0x1p20},
                             {1 - 0x1p-20, 744.4 * 0x1p20},
                             {2, 1023.9999999},
                             {2, -1074},
                             {2, -1074.5},
                             {2, -1075},
                             {-2, -1075},
                             {0.5, 1074},
                             {10, 22},
                             {10, -5},
                             {3, 33},
                             {-3, 33},
                             {7, 0.5},
                             {27, 1.0 / 3},
                             {DBL_MAX, 0.999},
                             {DBL_MAX, -1},
                             {DBL_MIN, 0.5},
                             {4.9406564584124654e-324, 0.5},
                             {1.0000001, 1e9},
                             {0.9999999, -1e9},
                             {2, 127.999},
                             {2, -149},
                             {2, -150},
                             {-2, 127},
                             {0.5, 149.5}};
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
    check2(&st, pxk_pow, mpfr_pow, (PX_REAL)pairs[i][0], (PX_REAL)pairs[i][1]);
  }
  return report(&st);
}

//---------------------------------- floor ---------------------------------------------------------

static int floorRef(mpfr_ptr r, mpfr_srcptr x, mpfr_rnd_t rnd) {
  (void)rnd;
  return mpfr_floor(r, x);
}

static int test_floor(void) {
  Stat st = {"floor", 0, 0, 0, 0};
  uint64_t s = 6;
  for (int i = 0; i < PT_NRAND; i++) {
    check1(&st, pxk_floor, floorRef, rngLog(&s, -3, PT_PREC + 2, 1));
    check1(&st, pxk_floor, floorRef, rngBits(&s));
  }
  report(&st);
  ENSURE(st.maxErr == 0);
  return 0;
}

//---------------------------------- special values ------------------------------------------------

// same bits, or both NaN
static int same(PX_REAL got, PX_REAL want) {
  if (isnan(want)) return isnan(got);
  return memcmp(&got, &want, sizeof got) == 0;
}

#define EXPECT1(f, x, want)                                                                       \
  do {                                                                                            \
    PX_REAL got_ = f((PX_REAL)(x));                                                               \
    if (!same(got_, (PX_REAL)(want))) {                                                           \
      printf("  %s(%.17g) = %.17g, want %.17g\n", #f, (double)(x), (double)got_, (double)(want)); \
      bad++;                                                                                      \
    }                                                                                             \
  } while (0)

#define EXPECT2(f, x, y, want)                                                         \
  do {                                                                                 \
    PX_REAL got_ = f((PX_REAL)(x), (PX_REAL)(y));                                      \
    if (!same(got_, (PX_REAL)(want))) {                                                \
      printf("  %s(%.17g, %.17g) = %.17g, want %.17g\n", #f, (double)(x), (double)(y), \
             (double)got_, (double)(want));                                            \
      bad++;                                                                           \
    }                                                                                  \
  } while (0)

static int test_special(void) {
  int bad = 0;
  const double inf = INFINITY;
  const double nan = NAN;
  const double sub = PT_MINSUB;
  const PX_REAL pio2 = (PX_REAL)(3.14159265358979323846 / 2);
  const PX_REAL pi = (PX_REAL)3.14159265358979323846;
  const PX_REAL pio4 = (PX_REAL)(3.14159265358979323846 / 4);
  const PX_REAL tpio4 = (PX_REAL)(3 * 3.14159265358979323846 / 4);

  // sin, cos, tan
  EXPECT1(pxk_sin, 0.0, 0.0);
  EXPECT1(pxk_sin, -0.0, -0.0);
  EXPECT1(pxk_sin, sub, sub);
  EXPECT1(pxk_sin, -sub, -sub);
  EXPECT1(pxk_sin, inf, nan);
  EXPECT1(pxk_sin, -inf, nan);
  EXPECT1(pxk_sin, nan, nan);
  EXPECT1(pxk_cos, 0.0, 1.0);
  EXPECT1(pxk_cos, -0.0, 1.0);
  EXPECT1(pxk_cos, sub, 1.0);
  EXPECT1(pxk_cos, inf, nan);
  EXPECT1(pxk_cos, -inf, nan);
  EXPECT1(pxk_cos, nan, nan);
  EXPECT1(pxk_tan, 0.0, 0.0);
  EXPECT1(pxk_tan, -0.0, -0.0);
  EXPECT1(pxk_tan, -sub, -sub);
  EXPECT1(pxk_tan, inf, nan);
  EXPECT1(pxk_tan, nan, nan);

  // asin, acos, atan
  EXPECT1(pxk_asin, 0.0, 0.0);
  EXPECT1(pxk_asin, -0.0, -0.0);
  EXPECT1(pxk_asin, -sub, -sub);
  EXPECT1(pxk_asin, 1.0, pio2);
  EXPECT1(pxk_asin, -1.0, -pio2);
  EXPECT1(pxk_asin, 1.0000001, nan);
  EXPECT1(pxk_asin, -inf, nan);
  EXPECT1(pxk_asin, nan, nan);
  EXPECT1(pxk_acos, 1.0, 0.0);
  EXPECT1(pxk_acos, -1.0, pi);
  EXPECT1(pxk_acos, 0.0, pio2);
  EXPECT1(pxk_acos, -0.0, pio2);
  EXPECT1(pxk_acos, 2.0, nan);
  EXPECT1(pxk_acos, inf, nan);
  EXPECT1(pxk_acos, nan, nan);
  EXPECT1(pxk_atan, 0.0, 0.0);
  EXPECT1(pxk_atan, -0.0, -0.0);
  EXPECT1(pxk_atan, sub, sub);
  EXPECT1(pxk_atan, inf, pio2);
  EXPECT1(pxk_atan, -inf, -pio2);
  EXPECT1(pxk_atan, nan, nan);

  // atan2 (C99 F.9.1.4)
  EXPECT2(pxk_atan2, 0.0, 0.0, 0.0);
  EXPECT2(pxk_atan2, -0.0, 0.0, -0.0);
  EXPECT2(pxk_atan2, 0.0, -0.0, pi);
  EXPECT2(pxk_atan2, -0.0, -0.0, -pi);
  EXPECT2(pxk_atan2, 0.0, -1.0, pi);
  EXPECT2(pxk_atan2, -0.0, -1.0, -pi);
  EXPECT2(pxk_atan2, 0.0, 1.0, 0.0);
  EXPECT2(pxk_atan2, -0.0, 1.0, -0.0);
  EXPECT2(pxk_atan2, -1.0, 0.0, -pio2);
  EXPECT2(pxk_atan2, -1.0, -0.0, -pio2);
  EXPECT2(pxk_atan2, 1.0, 0.0, pio2);
  EXPECT2(pxk_atan2, 1.0, -0.0, pio2);
  EXPECT2(pxk_atan2, 1.0, -inf, pi);
  EXPECT2(pxk_atan2, -1.0, -inf, -pi);
  EXPECT2(pxk_atan2, 1.0, inf, 0.0);
  EXPECT2(pxk_atan2, -1.0, inf, -0.0);
  EXPECT2(pxk_atan2, inf, 1.0, pio2);
  EXPECT2(pxk_atan2, -inf, -1.0, -pio2);
  EXPECT2(pxk_atan2, inf, -inf, tpio4);
  EXPECT2(pxk_atan2, -inf, -inf, -tpio4);
  EXPECT2(pxk_atan2, inf, inf, pio4);
  EXPECT2(pxk_atan2, -inf, inf, -pio4);
  EXPECT2(pxk_atan2, nan, 1.0, nan);
  EXPECT2(pxk_atan2, 1.0, nan, nan);

  // exp, log
  EXPECT1(pxk_exp, 0.0, 1.0);
  EXPECT1(pxk_exp, -0.0, 1.0);
  EXPECT1(pxk_exp, sub, 1.0);
  EXPECT1(pxk_exp, inf, inf);
  EXPECT1(pxk_exp, -inf, 0.0);
  EXPECT1(pxk_exp, 1000.0, inf);
  EXPECT1(pxk_exp, -1000.0, 0.0);
  EXPECT1(pxk_exp, nan, nan);
  EXPECT1(pxk_log, 0.0, -inf);
  EXPECT1(pxk_log, -0.0, -inf);
  EXPECT1(pxk_log, 1.0, 0.0);
  EXPECT1(pxk_log, -1.0, nan);
  EXPECT1(pxk_log, -sub, nan);
  EXPECT1(pxk_log, -inf, nan);
  EXPECT1(pxk_log, inf, inf);
  EXPECT1(pxk_log, nan, nan);

  // pow (C99 F.9.4.4)
  EXPECT2(pxk_pow, 0.0, -3.0, inf);
  EXPECT2(pxk_pow, -0.0, -3.0, -inf);
  EXPECT2(pxk_pow, 0.0, -inf, inf);
  EXPECT2(pxk_pow, -0.0, -inf, inf);
  EXPECT2(pxk_pow, 0.0, -2.0, inf);
  EXPECT2(pxk_pow, -0.0, -2.0, inf);
  EXPECT2(pxk_pow, -0.0, -0.5, inf);
  EXPECT2(pxk_pow, 0.0, 3.0, 0.0);
  EXPECT2(pxk_pow, -0.0, 3.0, -0.0);
  EXPECT2(pxk_pow, -0.0, 2.0, 0.0);
  EXPECT2(pxk_pow, -0.0, 0.5, 0.0);
  EXPECT2(pxk_pow, -0.0, inf, 0.0);
  EXPECT2(pxk_pow, -1.0, inf, 1.0);
  EXPECT2(pxk_pow, -1.0, -inf, 1.0);
  EXPECT2(pxk_pow, 1.0, nan, 1.0);
  EXPECT2(pxk_pow, 1.0, -inf, 1.0);
  EXPECT2(pxk_pow, nan, 0.0, 1.0);
  EXPECT2(pxk_pow, nan, -0.0, 1.0);
  EXPECT2(pxk_pow, inf, 0.0, 1.0);
  EXPECT2(pxk_pow, -2.0, 0.5, nan);
  EXPECT2(pxk_pow, -8.0, 1.0 / 3, nan);
  EXPECT2(pxk_pow, 0.5, -inf, inf);
  EXPECT2(pxk_pow, -0.5, -inf, inf);
  EXPECT2(pxk_pow, 2.0, -inf, 0.0);
  EXPECT2(pxk_pow, -2.0, -inf, 0.0);
  EXPECT2(pxk_pow, 0.5, inf, 0.0);
  EXPECT2(pxk_pow, -0.5, inf, 0.0);
  EXPECT2(pxk_pow, 2.0, inf, inf);
  EXPECT2(pxk_pow, -2.0, inf, inf);
  EXPECT2(pxk_pow, -inf, -3.0, -0.0);
  EXPECT2(pxk_pow, -inf, -2.0, 0.0);
  EXPECT2(pxk_pow, -inf, -0.5, 0.0);
  EXPECT2(pxk_pow, -inf, 3.0, -inf);
  EXPECT2(pxk_pow, -inf, 2.0, inf);
  EXPECT2(pxk_pow, -inf, 0.5, inf);
  EXPECT2(pxk_pow, inf, -0.5, 0.0);
  EXPECT2(pxk_pow, inf, 0.5, inf);
  EXPECT2(pxk_pow, nan, 1.0, nan);
  EXPECT2(pxk_pow, 2.0, nan, nan);
  EXPECT2(pxk_pow, -2.0, 3.0, -8.0);
  EXPECT2(pxk_pow, -2.0, -3.0, -0.125);
  EXPECT2(pxk_pow, -2.0, 2.0, 4.0);
  EXPECT2(pxk_pow, -0.5, 0x1p60, 0.0);
  EXPECT2(pxk_pow, -2.0, 0x1p60, inf);
  EXPECT2(pxk_pow, 2.0, PT_EHIGH + 1, inf);
  EXPECT2(pxk_pow, -2.0, PT_EHIGH + 2, -inf);
  EXPECT2(pxk_pow, 2.0, PT_ELOW - PT_PREC, 0.0);
  EXPECT2(pxk_pow, -2.0, PT_ELOW - PT_PREC, ((PT_ELOW - PT_PREC) & 1) ? -0.0 : 0.0);
  EXPECT2(pxk_pow, -2.0, PT_ELOW - PT_PREC - 1, ((PT_ELOW - PT_PREC - 1) & 1) ? -0.0 : 0.0);
  EXPECT2(pxk_pow, 2.0, PT_ELOW - PT_PREC + 1, sub);

  // integer powers that are exact
  double p10 = 1;
  double p3 = 1;
  for (int k = 0; k <= (PT_PREC == 53 ? 22 : 10); k++) {
    EXPECT2(pxk_pow, 10.0, k, p10);
    EXPECT2(pxk_pow, -3.0, k, (k & 1) ? -p3 : p3);
    p10 *= 10;
    p3 *= 3;
  }

  // floor
  EXPECT1(pxk_floor, 0.0, 0.0);
  EXPECT1(pxk_floor, -0.0, -0.0);
  EXPECT1(pxk_floor, 0.5, 0.0);
  EXPECT1(pxk_floor, -0.5, -1.0);
  EXPECT1(pxk_floor, -sub, -1.0);
  EXPECT1(pxk_floor, inf, inf);
  EXPECT1(pxk_floor, -inf, -inf);
  EXPECT1(pxk_floor, nan, nan);
  ENSURE(bad == 0);
  return 0;
}

int main(void) {
  printf("phalanx libm against MPFR (%s, bound %.2f ulp)\n", PT_PREC == 53 ? "fp64" : "fp32",
         PT_BOUND);
  RUN_TEST(test_special);
  RUN_TEST(test_sin);
  RUN_TEST(test_cos);
  RUN_TEST(test_tan);
  RUN_TEST(test_asin);
  RUN_TEST(test_acos);
  RUN_TEST(test_atan);
  RUN_TEST(test_atan2);
  RUN_TEST(test_exp);
  RUN_TEST(test_log);
  RUN_TEST(test_pow);
  RUN_TEST(test_floor);
  mpfr_free_cache();
  return TEST_SUMMARY();
}
