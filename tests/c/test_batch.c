// SPDX-License-Identifier: Apache-2.0
// The batch in plain C under ASan+UBSan: pool lifecycle for several thread counts, bitwise
// determinism across thread counts, per-world isolation of a bad world, masks and the generator,
// per-world model parameters and the automatic reset.
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
  ENSURE(pxb_flagName(5) && !strcmp(pxb_flagName(5), "error"));
  ENSURE(!strcmp(pxb_flagName(6), "contactfull") && !strcmp(pxb_flagName(7), "cnstrfull"));
  ENSURE(!pxb_flagName(PX_NBFLAG));
  px_freeModel(m);
  return 0;
}

// per-world parameters: masses (derived constants recomputed), gravity and timestep per world;
// bitwise across thread counts, untouched worlds as without parameters, then cleared
static pxBatch* runParams(pxModel* m, int nthread) {
  pxStatus st;
  px_statusClear(&st);
  pxBatch* b = pxb_make(m, 9, nthread, 7, &st);
  if (!b) return NULL;
  int nb = m->nbody;
  double* mass = (double*)malloc(sizeof(double) * 9 * (size_t)nb);
  double grav[27], dt[9];
  uint8_t mask[9] = {0, 1, 1, 1, 0, 1, 0, 0, 0};
  for (int w = 0; w < 9; w++) {
    for (int i = 0; i < nb; i++) mass[w * nb + i] = m->body_mass[i] * (w == 1 || w == 5 ? 2 : 1);
    for (int k = 0; k < 3; k++) grav[3 * w + k] = m->opt.gravity[k] + (w == 2 ? 1.5 : 0);
    dt[w] = m->opt.timestep * (w == 3 ? 0.5 : 1);
  }
  int ok = pxb_setParam(b, pxb_paramIndex("body_mass"), mass, mask, &st) == PX_OK &&
           pxb_setParam(b, pxb_paramIndex("opt.gravity"), grav, mask, &st) == PX_OK &&
           pxb_setParam(b, pxb_paramIndex("opt.timestep"), dt, NULL, &st) == PX_OK &&
           pxb_setConst(b, mask, &st) == PX_OK;
  free(mass);
  if (!ok) {
    pxb_free(b);
    return NULL;
  }
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

static int test_params(void) {
  pxModel* m = load();
  ENSURE(m);
  pxBatch* plain = run(m, 2);
  pxBatch* ref = runParams(m, 0);
  ENSURE(plain && ref);
  size_t nq = (size_t)m->nq;
  for (int t = 1; t <= 3; t++) {
    pxBatch* b = runParams(m, t);
    ENSURE(b);
    ENSURE(!memcmp(b->worlds->qpos, ref->worlds->qpos, 9 * nq * sizeof(double)));
    ENSURE(!memcmp(b->worlds->time, ref->worlds->time, 9 * sizeof(double)));
    pxb_free(b);
  }
  for (int w = 0; w < 9; w++) {
    int same =
        !memcmp(ref->worlds->qpos + w * nq, plain->worlds->qpos + w * nq, nq * sizeof(double));
    ENSURE(same == (w == 0 || w == 4 || w > 5));
  }
  int nb = m->nbody;
  double* sub = (double*)malloc(sizeof(double) * 9 * (size_t)nb);
  ENSURE(sub);
  pxb_getParam(ref, pxb_paramIndex("body_subtreemass"), sub);
  int subok = sub[nb] == 2 * m->body_subtreemass[0] && sub[0] == m->body_subtreemass[0];
  free(sub);
  ENSURE(subok);
  ENSURE(pxb_paramIsSet(ref, pxb_paramIndex("body_mass")));
  ENSURE(!pxb_paramIsSet(ref, pxb_paramIndex("actuator_biasprm")));

  // bad values change nothing; a derived constant cannot be set
  pxStatus st;
  px_statusClear(&st);
  double dt[9] = {0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01, 0.01, -1};
  ENSURE(pxb_setParam(ref, pxb_paramIndex("opt.timestep"), dt, NULL, &st) == PX_ERR_ARG);
  ENSURE(pxb_setParam(ref, pxb_paramIndex("dof_M0"), dt, NULL, &st) == PX_ERR_ARG);
  pxModel mw;
  ENSURE(pxb_worldModel(ref, 8, &mw)->opt.timestep == m->opt.timestep);
  ENSURE(pxb_worldModel(ref, 3, &mw)->opt.timestep == 0.5 * m->opt.timestep);
  pxb_clearParams(ref);
  ENSURE(pxb_worldModel(ref, 3, &mw) == m);

  // autoreset: a bad world is reset at the end of the call, its flag kept for that call
  ENSURE(pxb_setAutoreset(ref, 1, -1, 0, 0, &st) == PX_OK);
  ENSURE(pxb_setAutoreset(ref, 1, 5, 0, 0, &st) == PX_ERR_ARG);
  ref->worlds->qvel[2 * m->nv] = NAN;
  ENSURE(pxb_step(ref, 2, NULL, 0) == 1 && (ref->flags[2] & PX_BFLAG_BADQVEL));
  ENSURE(ref->worlds->time[2] == 0 && ref->worlds->qvel[2 * m->nv] == 0);
  ENSURE(pxb_step(ref, 1, NULL, 0) == 0 && ref->flags[2] == 0 && ref->worlds->time[2] > 0);
  pxb_free(ref);
  pxb_free(plain);
  ENSURE(m->frozen == 0);
  px_freeModel(m);
  return 0;
}

int main(void) {
  RUN_TEST(test_threads_bitwise);
  RUN_TEST(test_params);
  RUN_TEST(test_bad_world_isolated);
  RUN_TEST(test_rng_and_args);
  return TEST_SUMMARY();
}
