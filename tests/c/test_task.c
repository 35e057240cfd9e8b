// SPDX-License-Identifier: Apache-2.0
// The Gymnasium task entries of csrc/batch/task.c (pxb_taskReset, pxb_taskStep,
// pxb_taskObserve) allocate nothing, for every task, with 0 and 2 pool threads; their results do
// not depend on the number of threads; pxb_taskCheck refuses models too small for a task. Built
// under ASan+UBSan, so every task function also runs memory-checked on a small generic model. The
// library's heap calls go through the counting wrappers of heapcount.h (mk/noalloc.mk links with
// -Wl,--wrap=...).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kern/prelude_c.h"
#include "mjcf/mjcf.h"
#include "px/pxbatch.h"
#include "px/pxtask.h"
#include "tasks/tasks.h"

#include "heapcount.h"

// a floor, a free body with a hinged and a slid child, actuators and a site: large enough for
// every task's fixed indices (nq 9, nv 8)
static const char* kXml =
    "<mujoco>"
    "  <worldbody>"
    "    <geom type='plane' size='5 5 0.1'/>"
    "    <body pos='0 0 0.5'><freejoint/><geom type='box' size='0.2 0.1 0.05'/>"
    "      <site name='tip' pos='0.2 0 0'/>"
    "      <body pos='0.2 0 0'><joint name='h' type='hinge' axis='0 1 0'/>"
    "        <geom type='capsule' size='0.04' fromto='0 0 0 0.3 0 -0.2'/>"
    "        <body pos='0.3 0 -0.2'><joint name='s' type='slide' axis='1 0 0'/>"
    "          <geom type='sphere' size='0.05'/></body>"
    "      </body>"
    "    </body>"
    "  </worldbody>"
    "  <actuator><motor joint='h' ctrlrange='-1 1'/><motor joint='s' ctrlrange='-1 1'/>"
    "  </actuator>"
    "</mujoco>";

#define NWORLD 5

static pxModel* load(void) {
  pxStatus st;
  pxModel* m = NULL;
  px_statusClear(&st);
  if (pxc_loadXML(NULL, kXml, &m, &st) != PX_OK) {
    printf("load: %s\n", st.msg);
    return NULL;
  }
  return m;
}

static void spec(pxTaskSpec* t, int task) {
  memset(t, 0, sizeof(*t));
  t->task = task;
  t->obs_dim = PXT_MAXOBS;
  t->noise = 0.1;
  t->prm[PXT_P_FWD] = 1;
  t->prm[PXT_P_CTRL] = 0.1;
  t->prm[PXT_P_CONTACT] = 1e-3;
  t->prm[PXT_P_HEALTHY] = 1;
  t->prm[PXT_P_TERM] = 1;
  t->prm[PXT_P_ZLO] = 0.1;
  t->prm[PXT_P_ZHI] = 2;
  t->prm[PXT_P_ALO] = -1;
  t->prm[PXT_P_AHI] = 1;
  t->prm[PXT_P_SLO] = -100;
  t->prm[PXT_P_SHI] = 100;
  t->prm[PXT_P_CLO] = -1;
  t->prm[PXT_P_CHI] = 1;
  t->prm[PXT_P_EXCL] = 1;
  t->prm[PXT_P_CFRC] = 1;
  t->prm[PXT_P_CINERT] = 1;
  t->prm[PXT_P_CVEL] = 1;
  t->prm[PXT_P_QFRC] = 1;
  t->prm[PXT_P_BODY] = 1;
  t->prm[PXT_P_BODY2] = 2;
  t->prm[PXT_P_BODY3] = 3;
  t->prm[PXT_P_DT] = 0.01;
  t->prm[PXT_P_NEAR] = 0.5;
}

// reset, 4 task steps and an observation of every world; 0 if nothing was allocated meanwhile
static int run(pxBatch* b, const pxTaskSpec* t, double* pre, double* obs, double* out) {
  long before = nheap;
  uint8_t mask[NWORLD] = {1, 0, 1, 1, 1};
  pxb_seed(b, NULL, 7);
  pxb_taskReset(b, t, NULL, obs);
  for (int k = 0; k < 4; k++) {
    for (int w = 0; w < NWORLD; w++) {
      for (int i = 0; i < b->model->nu; i++) b->worlds->ctrl[w * b->model->nu + i] = 0.3 * (w - i);
    }
    pxb_taskStep(b, t, 3, k == 2 ? mask : NULL, pre, obs, out);
  }
  pxb_taskReset(b, t, mask, obs);
  pxb_taskObserve(b, t, NULL, obs);
  return nheap == before ? 0 : 1;
}

static int test_tasks_allocate_nothing_and_ignore_threads(void) {
  pxModel* m = load();
  ENSURE(m != NULL);
  size_t nobs = (size_t)NWORLD * PXT_MAXOBS, nout = (size_t)NWORLD * PXT_NOUT;
  double* pre[2];
  double* obs[2];
  double* out[2];
  for (int r = 0; r < 2; r++) {
    pre[r] = (double*)calloc(NWORLD * 2, sizeof(double));
    obs[r] = (double*)calloc(nobs, sizeof(double));
    out[r] = (double*)calloc(nout, sizeof(double));
    ENSURE(pre[r] && obs[r] && out[r]);
  }
  pxStatus st;
  px_statusClear(&st);
  long before = nheap;
  pxBatch* b0 = pxb_make(m, NWORLD, 0, 0, &st);
  pxBatch* b2 = pxb_make(m, NWORLD, 2, 0, &st);
  ENSURE(b0 && b2);
  ENSURE(nheap > before);  // the wrappers are live
  for (int task = 0; task < PXT_NTASK; task++) {
    pxTaskSpec t;
    spec(&t, task);
    ENSURE(pxb_taskCheck(b0, &t, &st) == PX_OK);
    ENSURE(run(b0, &t, pre[0], obs[0], out[0]) == 0);
    ENSURE(run(b2, &t, pre[1], obs[1], out[1]) == 0);
    ENSURE(memcmp(obs[0], obs[1], nobs * sizeof(double)) == 0);
    ENSURE(memcmp(out[0], out[1], nout * sizeof(double)) == 0);
    size_t nq = (size_t)NWORLD * m->nq;
    ENSURE(memcmp(b0->worlds->qpos, b2->worlds->qpos, nq * sizeof(double)) == 0);
  }
  pxb_free(b0);
  pxb_free(b2);
  for (int r = 0; r < 2; r++) {
    free(pre[r]);
    free(obs[r]);
    free(out[r]);
  }
  px_freeModel(m);
  return 0;
}

static int test_check_refuses(void) {
  pxModel* m = load();
  ENSURE(m != NULL);
  pxStatus st;
  px_statusClear(&st);
  pxBatch* b = pxb_make(m, 1, 0, 0, &st);
  ENSURE(b != NULL);
  pxTaskSpec t;
  spec(&t, PXT_PUSHER);  // needs nq >= 7 and nv >= 7: this model has them
  ENSURE(pxb_taskCheck(b, &t, &st) == PX_OK);
  spec(&t, PXT_NTASK);
  ENSURE(pxb_taskCheck(b, &t, &st) == PX_ERR_ARG);
  spec(&t, PXT_ANT);
  t.prm[PXT_P_BODY] = 4;  // nbody is 4
  ENSURE(pxb_taskCheck(b, &t, &st) == PX_ERR_ARG);
  spec(&t, PXT_ANT);
  t.obs_dim = PXT_MAXOBS + 1;
  ENSURE(pxb_taskCheck(b, &t, &st) == PX_ERR_ARG);
  pxb_free(b);
  px_freeModel(m);

  // a one-hinge model is too small for InvertedDoublePendulum (nv 3, a site)
  pxModel* small = NULL;
  ENSURE(pxc_loadXML(NULL,
                     "<mujoco><worldbody><body><joint type='hinge'/><geom size='0.1'/></body>"
                     "</worldbody></mujoco>",
                     &small, &st) == PX_OK);
  b = pxb_make(small, 1, 0, 0, &st);
  ENSURE(b != NULL);
  spec(&t, PXT_INVERTEDDOUBLEPENDULUM);
  t.prm[PXT_P_BODY] = t.prm[PXT_P_BODY2] = t.prm[PXT_P_BODY3] = 0;
  ENSURE(pxb_taskCheck(b, &t, &st) == PX_ERR_ARG);
  ENSURE(strstr(st.msg, "nv >= 3") != NULL);
  pxb_free(b);
  px_freeModel(small);
  return 0;
}

int main(void) {
  RUN_TEST(test_tasks_allocate_nothing_and_ignore_threads);
  RUN_TEST(test_check_refuses);
  return TEST_SUMMARY();
}
