// SPDX-License-Identifier: Apache-2.0
// The resumable constraint solves (csrc/kern/solver.h, "resumable solves") cut into runs of a
// loop budget, as the GPU runs them over several dispatches on lavapipe, give the bits of the
// uncut solve (px_forward) on the CPU: Newton, CG and PGS (with noslip), islands on and off, on
// gymnasium models from random states with many contacts, and heaps of free bodies (several
// islands; elliptic cones of condim 3, 4 and 6). Budgets: 1 (one unit per run), 5000,
// and the shaders' 56000.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kern/prelude_c.h"
#include "kern/solver.h"
#include "mjcf/mjcf.h"
#include "px/pxdata.h"

#define MODELS "../shared/models/gymnasium/"

static unsigned long long gState = 88172645463325252ull;

static double uniform(void) {
  gState ^= gState << 13;
  gState ^= gState >> 7;
  gState ^= gState << 17;
  return (double)(gState >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

// the arrays the solve writes, of world `world`, into buf (reals) and ibuf (ints)
static void snapshot(const pxModel* m, pxData* d, double* buf, int* ibuf) {
  int nefc = d->efc_n[PX_EFC_NEFC];
  memcpy(buf, d->qacc, sizeof(double) * (size_t)m->nv);
  memcpy(buf + m->nv, d->qfrc_constraint, sizeof(double) * (size_t)m->nv);
  memcpy(buf + 2 * m->nv, d->efc_force, sizeof(double) * (size_t)nefc);
  memcpy(ibuf, d->efc_state, sizeof(int) * (size_t)nefc);
  memcpy(ibuf + nefc, d->efc_n, sizeof(int) * PX_EFC_NCOUNT);
}

// the solve again from px_forward's rows, in runs of `budget` (-1: one run); returns the runs
static int solveAgain(const pxModel* m, pxData* d, int budget) {
  for (int i = 0; i < m->nv; i++) d->qacc[i] = d->qacc_smooth[i];
  for (int i = 0; i < d->efc_n[PX_EFC_NEFC]; i++) d->efc_force[i] = 0;
  pxk_fwdConstraintBegin(m, d);
  int runs = 0;
  if (m->opt.solver != PX_SOL_PGS) {
    pxk_ckReset(m, d, 0);
    for (runs = 1; !pxk_primalRun(m, d, budget); runs++) continue;
  }
  if (m->opt.solver == PX_SOL_PGS || m->opt.noslip_iterations > 0) {
    pxk_ckReset(m, d, 0);  // from the projection's rows of Y, as the GPU's dual entry
    for (runs++; !pxk_dualRun(m, d, budget); runs++) continue;
  }
  return runs;
}

// several free bodies in heaps on a plane: several islands
static const char* kHeaps =
    "<mujoco><option cone='elliptic'/><worldbody><geom type='plane' size='5 5 .1'/>"
    "<body pos='0 0 .1'><freejoint/><geom type='sphere' size='.1'/></body>"
    "<body pos='0 0 .25'><freejoint/><geom type='box' size='.1 .1 .05' condim='4'/></body>"
    "<body pos='.05 0 .35'><freejoint/><geom type='capsule' size='.05 .1' condim='6'/></body>"
    "<body pos='1 0 .1'><freejoint/><geom type='sphere' size='.1'/></body>"
    "<body pos='1 0 .25'><freejoint/><geom type='box' size='.1 .1 .05'/></body>"
    "<body pos='2 0 .2'><joint type='hinge' axis='0 1 0' limited='true' range='-.1 .1'/>"
    "<geom type='capsule' size='.05 .3' condim='1'/></body>"
    "</worldbody></mujoco>";

static int check(const char* file, int solver, int noslip, int island, double dz) {
  char path[256];
  snprintf(path, sizeof path, MODELS "%s", file);
  pxModel* m = NULL;
  pxStatus st;
  if (pxc_loadXML(file ? path : NULL, file ? NULL : kHeaps, &m, &st) != PX_OK) {
    printf("SKIP %s: %s\n", file, st.msg);
    return 0;
  }
  if (solver >= 0) m->opt.solver = solver;
  m->opt.noslip_iterations = noslip;
  if (!island) m->opt.disableflags |= PX_DSBL_ISLAND;
  pxWorlds* w = px_makeWorlds(m, 1, &st);
  ENSURE(w != NULL);
  pxData d;
  px_worldView(w, 0, &d);
  size_t nr = 2 * (size_t)m->nv + (size_t)d.nefcmax, ni = (size_t)d.nefcmax + PX_EFC_NCOUNT;
  double* ref = calloc(nr, sizeof(double));
  double* got = calloc(nr, sizeof(double));
  int* iref = calloc(ni, sizeof(int));
  int* igot = calloc(ni, sizeof(int));
  int maxrows = 0, maxruns = 0;
  for (int trial = 0; trial < 4; trial++) {
    px_resetWorld(m, w, 0);
    px_worldView(w, 0, &d);
    for (int i = 0; i < m->nq; i++) d.qpos[i] = m->qpos0[i] + 0.3 * uniform();
    for (int j = 0; j < m->njnt; j++) {
      if (m->jnt_type[j] == PX_JNT_FREE) d.qpos[m->jnt_qposadr[j] + 2] -= dz;
    }
    for (int i = 0; i < m->nv; i++) d.qvel[i] = uniform();
    for (int i = 0; i < m->nv; i++) d.qacc_warmstart[i] = 5 * uniform();
    ENSURE(px_forward(m, &d, &st) == PX_OK);
    int nefc = d.efc_n[PX_EFC_NEFC];
    if (nefc > maxrows) maxrows = nefc;
    snapshot(m, &d, ref, iref);
    int budgets[4] = {-1, 1, 5000, 56000};
    for (int b = 0; b < 4; b++) {
      int runs = solveAgain(m, &d, budgets[b]);
      if (runs > maxruns) maxruns = runs;
      snapshot(m, &d, got, igot);
      size_t n = 2 * (size_t)m->nv + (size_t)nefc;
      if (memcmp(ref, got, n * sizeof(double)) || memcmp(iref, igot, (nefc + PX_EFC_NCOUNT) * 4)) {
        printf("%s solver %d noslip %d island %d trial %d budget %d (%d rows, %d runs) differs\n",
               file ? file : "heaps", m->opt.solver, noslip, island, trial, budgets[b], nefc, runs);
        ENSURE(0);
      }
    }
  }
  printf("  %s solver %d noslip %d island %d: up to %d rows, %d runs\n", file ? file : "heaps",
         m->opt.solver, noslip, island, maxrows, maxruns);
  free(ref);
  free(got);
  free(iref);
  free(igot);
  px_freeWorlds(w);
  px_freeModel(m);
  return 0;
}

static int test_newton(void) {
  ENSURE(check("ant.xml", -1, 0, 1, 0.6) == 0);
  ENSURE(check("hopper.xml", -1, 0, 1, 0.0) == 0);
  ENSURE(check("humanoid.xml", PX_SOL_NEWTON, 0, 1, 0.8) == 0);
  ENSURE(check("ant.xml", -1, 0, 0, 0.6) == 0);
  ENSURE(check(NULL, PX_SOL_NEWTON, 0, 1, 0.05) == 0);
  ENSURE(check(NULL, PX_SOL_NEWTON, 0, 0, 0.05) == 0);
  return 0;
}

static int test_cg(void) {
  ENSURE(check("ant.xml", PX_SOL_CG, 0, 1, 0.6) == 0);
  ENSURE(check(NULL, PX_SOL_CG, 0, 1, 0.05) == 0);
  ENSURE(check("walker2d.xml", PX_SOL_CG, 0, 0, 0.0) == 0);
  return 0;
}

static int test_pgs_noslip(void) {
  ENSURE(check("humanoid.xml", -1, 0, 1, 0.8) == 0);
  ENSURE(check("walker2d.xml", PX_SOL_PGS, 0, 1, 0.0) == 0);
  ENSURE(check("ant.xml", PX_SOL_PGS, 3, 0, 0.6) == 0);
  ENSURE(check("ant.xml", -1, 5, 1, 0.6) == 0);
  ENSURE(check(NULL, PX_SOL_PGS, 4, 1, 0.05) == 0);
  ENSURE(check(NULL, PX_SOL_NEWTON, 4, 1, 0.05) == 0);
  return 0;
}

int main(void) {
  RUN_TEST(test_newton);
  RUN_TEST(test_cg);
  RUN_TEST(test_pgs_noslip);
  return TEST_SUMMARY();
}
