// SPDX-License-Identifier: Apache-2.0
// Tiny unit-test harness for the plain-C tests in tests/c (Box2D style).
//
// A test is a function `int name(void)` returning 0 on success; ENSURE(cond) prints the failed
// condition with its location and returns 1 from the test. RUN_TEST(name) runs one test and
// counts it; TEST_SUMMARY() prints a last line "N passed, M failed" and evaluates to the exit
// status (0 when nothing failed):
//
//   static int test_add(void) { ENSURE(1 + 1 == 2); return 0; }
//   int main(void) { RUN_TEST(test_add); return TEST_SUMMARY(); }
#ifndef PX_TESTS_C_HARNESS_H_
#define PX_TESTS_C_HARNESS_H_

#include <stdio.h>

// counters of passed [0] and failed [1] tests
static inline int* pxTestCounts(void) {
  static int counts[2] = {0, 0};
  return counts;
}

// fail the current test when cond is false
#define ENSURE(cond)                                                   \
  do {                                                                 \
    if (!(cond)) {                                                     \
      printf("%s:%d: ENSURE failed: %s\n", __FILE__, __LINE__, #cond); \
      fflush(stdout);                                                  \
      return 1;                                                        \
    }                                                                  \
  } while (0)

// fail the current test when |a - b| > tol
#define ENSURE_NEAR(a, b, tol)                                                                  \
  do {                                                                                          \
    double a_ = (double)(a), b_ = (double)(b);                                                  \
    if (!(a_ - b_ <= (tol) && b_ - a_ <= (tol))) {                                              \
      printf("%s:%d: ENSURE_NEAR failed: %s = %.17g, %s = %.17g\n", __FILE__, __LINE__, #a, a_, \
             #b, b_);                                                                           \
      fflush(stdout);                                                                           \
      return 1;                                                                                 \
    }                                                                                           \
  } while (0)

// run one test and count its result
#define RUN_TEST(fn)                                             \
  do {                                                           \
    int result_ = (fn)();                                        \
    pxTestCounts()[result_ == 0 ? 0 : 1]++;                      \
    printf("%s: %s\n", result_ == 0 ? "passed" : "FAILED", #fn); \
    fflush(stdout);                                              \
  } while (0)

// print the summary line; the exit status for main
static inline int pxTestSummary(void) {
  printf("%d passed, %d failed\n", pxTestCounts()[0], pxTestCounts()[1]);
  fflush(stdout);
  return pxTestCounts()[1] != 0 ? 1 : 0;
}
#define TEST_SUMMARY() pxTestSummary()

#endif  // PX_TESTS_C_HARNESS_H_
