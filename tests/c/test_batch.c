// SPDX-License-Identifier: Apache-2.0
// The batch in plain C under ASan+UBSan: pool lifecycle for several thread counts, bitwise
// determinism across thread counts, per-world isolation of a bad world, masks and the generator.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "mjcf/mjcf.h"
#include "px/pxbatch.h"

static const char* kXml =
    "<mujoco><option><flag constraint='disable'/></option><worldbody>"
    "<body pos='0 0 1'><joint type='ball'/><geom type='capsule' size='.05' fromto='0 0 0 .3 0 0'/>"
    "<body pos='.3 0 0'><joint name='h' axis='0 1 0'/><geom size='.1'/></body></body>"
    "</worldbody><actuator><motor joint='h'/></actuator></mujoco>";

static pxModel* load(void) {
  pxModel* m = NULL;
  pxStatus st;
  px_statusClear(&st);
  if (pxc_loadXML(NULL, kXml, &m, &st) != PX_OK) {
    printf("load: %s\n", st.msg);
    return NULL;
  }
  return m;
}

// run 9 worlds with nthread threads: noise, controls, 3 calls of 4 substeps
static pxBatch* run(pxModel* m, int nthread) {
  pxStatus st;
  px_statusClear(&st);
  pxBatch* b = pxb_make(m, 9, nthread, 7, &st);
  if (!b) return NULL;
  pxb_reset(b, NULL, -1, 0.2, 0.3);
  for (int k = 0; k < 3; k++) {
    for (int w = 0; w < 9; w++) b->worlds->ctrl[w] = 0.1 * (w - 4) + 0.05 * k;
    if (pxb_step(b, 4, NULL, 0.01) != 0) {
      pxb_free(b);
      return NULL;
    }
  }
  return b;
}

static int test_threads_bitwise(void) {
  pxModel* m = load();
  ENSURE(m);
  pxBatch* ref = run(m, 0);
  ENSURE(ref && m->frozen == 1);
  size_t nq = (size_t)m->nq * 9, nv = (size_t)m->nv * 9;
  for (int t = 1; t <= 5; t++) {
    pxBatch* b = run(m, t);
    ENSURE(b);
    ENSURE(!memcmp(b->worlds->qpos, ref->worlds->qpos, nq * sizeof(double)));
    ENSURE(!memcmp(b->worlds->qvel, ref->worlds->qvel, nv * sizeof(double)));
    ENSURE(!memcmp(b->worlds->qacc, ref->worlds->qacc, nv * sizeof(double)));
    ENSURE(!memcmp(b->worlds->time, ref->worlds->time, 9 * sizeof(double)));
    ENSURE(!memcmp(b->rng, ref->rng, 9 * 4 * sizeof(uint64_t)));
    pxb_free(b);
  }
  pxb_free(ref);
  ENSURE(m->frozen == 0);
  px_freeModel(m);
  return 0;
}

static int test_bad_world_isolated(void) {
  pxModel* m = load();
  ENSURE(m);
  pxBatch* ref = run(m, 2);
  pxStatus st;
  px_statusClear(&st);
  pxBatch* b = pxb_make(m, 9, 3, 7, &st);
  ENSURE(ref && b);
  pxb_reset(b, NULL, -1, 0.2, 0.3);
  int flagged = 0;
  for (int k = 0; k < 3; k++) {
    for (int w = 0; w < 9; w++) b->worlds->ctrl[w] = 0.1 * (w - 4) + 0.05 * k;
    if (k == 1) b->worlds->qvel[4 * m->nv] = NAN;
    flagged += pxb_step(b, 4, NULL, 0.01);
  }
  ENSURE(flagged == 1 && (b->flags[4] & PX_BFLAG_BADQVEL));
  for (int w = 0; w < 9; w++) {
    if (w == 4) continue;
    ENSURE(b->flags[w] == 0);
    ENSURE(!memcmp(b->worlds->qpos + w * m->nq, ref->worlds->qpos + w * m->nq,
                   (size_t)m->nq * sizeof(double)));
  }

  // a masked reset clears the flag and touches only world 4
  uint8_t mask[9] = {0, 0, 0, 0, 1, 0, 0, 0, 0};
  double q0 = b->worlds->qpos[0];
  pxb_reset(b, mask, -1, 0, 0);
  ENSURE(b->flags[4] == 0 && b->worlds->time[4] == 0 && b->worlds->qpos[0] == q0);
  ENSURE(pxb_step(b, 1, mask, 0) == 0 && b->worlds->time[4] > 0);
  pxb_free(b);
  pxb_free(ref);
  px_freeModel(m);
  return 0;
}

static int test_rng_and_args(void) {
  uint64_t s[4], t[4];
  pxb_rngSeed(s, 5);
  pxb_rngSeed(t, 5);
  for (int i = 0; i < 100; i++) {
    double x = pxb_rngSymmetric(s);
    ENSURE(x >= -1 && x < 1);
    ENSURE(pxb_rngNext(t) >> 11 == (uint64_t)ldexp(x + 1, 52));
  }
  pxModel* m = load();
  ENSURE(m);
  pxStatus st;
  px_statusClear(&st);
  ENSURE(!pxb_make(m, 0, 0, 0, &st) && st.code == PX_ERR_ARG);
  ENSURE(!pxb_make(m, 2, -1, 0, &st) && st.code == PX_ERR_ARG);
  ENSURE(m->frozen == 0);
  ENSURE(pxb_flagName(5) && !strcmp(pxb_flagName(5), "error") && !pxb_flagName(6));
  px_freeModel(m);
  return 0;
}

int main(void) {
  RUN_TEST(test_threads_bitwise);
  RUN_TEST(test_bad_world_isolated);
  RUN_TEST(test_rng_and_args);
  return TEST_SUMMARY();
}
