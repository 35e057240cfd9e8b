// SPDX-License-Identifier: Apache-2.0
// px_forward and px_step allocate nothing: every heap call of the library is routed through
// counting wrappers (the test is linked with -Wl,--wrap=malloc,... by mk/noalloc.mk, which
// rewrites the library's references to malloc into __wrap_malloc and so on), and the counter
// must not move while a world runs forward passes and steps with every integrator (sensors of
// every stage included), nor while a batch steps, resets and runs forward with per-world
// parameters and the automatic reset. A control test proves the wrappers are live (px_makeWorlds
// is counted).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mjcf/mjcf.h"
#include "px/pxbatch.h"
#include "px/pxdata.h"
#include "px/pxmodel.h"
#include "px/pxstatus.h"

#include "harness.h"

#include "heapcount.h"  // the counting wrappers

//---------------------------------- model ---------------------------------------------------------

// every joint type, a branch, a fixed tendon with armature (its bias term) and a spatial one
static const char* kXML =
    "<mujoco>"
    "  <option timestep='0.002'><flag constraint='disable'/></option>"
    "  <worldbody>"
    "    <body pos='0 0 1'><freejoint/><geom name='g0' type='box' size='0.1 0.2 0.3'/>"
    "      <site name='s0' pos='0.1 0 0'/>"
    "      <body name='b1' pos='0.2 0 0'><joint type='ball'/><geom type='capsule' size='0.05'"
    "            fromto='0 0 0 0.3 0 0'/>"
    "        <body pos='0.3 0 0'><joint name='h' type='hinge' axis='0 1 0' range='-1 1'/>"
    "          <geom name='g2' type='sphere' size='0.05'/><site name='s1' pos='0 0 0.1'/>"
    "          <body><joint name='sl' type='slide' axis='1 0 0'/><geom size='0.03'/></body>"
    "        </body>"
    "      </body>"
    "    </body>"
    "  </worldbody>"
    "  <tendon>"
    "    <fixed armature='0.2'><joint joint='h' coef='1'/><joint joint='sl' coef='0.5'/></fixed>"
    "    <spatial armature='0.1'><site site='s0'/><site site='s1'/></spatial>"
    "  </tendon>"
    "  <sensor>"
    "    <touch site='s0'/><accelerometer site='s1'/><force site='s1'/><gyro site='s0'/>"
    "    <framepos objtype='body' objname='b1' reftype='site' refname='s0'/>"
    "    <subtreelinvel body='b1'/><subtreeangmom body='b1'/><e_potential/><e_kinetic/>"
    "    <jointlimitpos joint='h'/><distance geom1='g0' geom2='g2' cutoff='1'/><clock/>"
    "  </sensor>"
    "</mujoco>";

// actuator and sensor history buffers: delayed controls (cubic), delayed and interval sensors of
// every stage, with the lazily computed quantities (energies, subtree velocities, rnePost)
static const char* kHistXML =
    "<mujoco>"
    "  <option timestep='0.002'/>"
    "  <worldbody>"
    "    <body name='b0' pos='0 0 1'><joint name='h1' type='hinge' axis='0 1 0'/>"
    "      <geom type='capsule' size='0.05' fromto='0 0 0 0.3 0 0'/><site name='s0'/>"
    "      <body pos='0.3 0 0'><joint name='h2' type='hinge' axis='1 0 0' range='-1 1'/>"
    "        <geom type='sphere' size='0.05'/><site name='s1' pos='0 0 0.1'/></body>"
    "    </body>"
    "  </worldbody>"
    "  <actuator>"
    "    <motor joint='h1' delay='0.005' nsample='6' interp='cubic'/>"
    "    <position joint='h2' kp='3' delay='0.004' nsample='4' interp='linear'/>"
    "    <motor joint='h2' nsample='3'/>"
    "  </actuator>"
    "  <sensor>"
    "    <accelerometer site='s1' delay='0.004' nsample='3'/>"
    "    <force site='s1' interval='0.006' nsample='2' delay='0.002'/>"
    "    <subtreelinvel body='b0' delay='0.002' nsample='2'/>"
    "    <e_potential delay='0.002' nsample='2' interp='cubic'/><e_kinetic nsample='2'/>"
    "    <jointpos joint='h2' interval='0.004 -0.002' nsample='3'/>"
    "    <jointlimitpos joint='h2' delay='0.002' nsample='2'/><clock delay='0.004' nsample='3'/>"
    "  </sensor>"
    "</mujoco>";

// tactile sensors (builtin wedge and plate meshes) on a free ball and pad resting on a plane and
// a box, contacts on: their scratch is the collision scratch's tail
static const char* kTactileXML =
    "<mujoco>"
    "  <option timestep='0.002'/>"
    "  <asset><mesh name='w' builtin='wedge' params='6 5 180 90 0' scale='.1 .1 .1'/>"
    "    <mesh name='p' builtin='plate' params='4 3' scale='.1 .1 .02'/></asset>"
    "  <worldbody><geom type='plane' size='5 5 .1'/><geom type='box' pos='.3 0 0' size='.1 .1 .1'/>"
    "    <body pos='0 0 .09'><freejoint/><geom name='ball' size='.1' solref='.3 1'/>"
    "      <geom name='pad' type='box' pos='.2 0 0' size='.1 .1 .02' solref='.3 1'/></body>"
    "  </worldbody>"
    "  <sensor><tactile geom='ball' mesh='w'/><tactile geom='pad' mesh='p'/></sensor>"
    "</mujoco>";

//---------------------------------- tests ---------------------------------------------------------

static int test_wrappers_are_live(void) {
  pxStatus st;
  pxModel* m = NULL;
  px_statusClear(&st);
  ENSURE(pxc_loadXML(NULL, kXML, &m, &st) == PX_OK);
  long before = nheap;
  pxWorlds* w = px_makeWorlds(m, 1, &st);
  ENSURE(w != NULL);
  ENSURE(nheap > before);
  px_freeWorlds(w);
  px_freeModel(m);
  return 0;
}

static int stepsAllocateNothing(const char* xml) {
  pxStatus st;
  pxModel* m = NULL;
  px_statusClear(&st);
  ENSURE(pxc_loadXML(NULL, xml, &m, &st) == PX_OK);
  pxWorlds* w = px_makeWorlds(m, 1, &st);
  ENSURE(w != NULL);
  pxData d;
  px_worldView(w, 0, &d);
  for (int integ = PX_INT_EULER; integ <= PX_INT_IMPLICITFAST; integ++) {
    m->opt.integrator = integ;
    px_resetData(m, &d);
    for (int i = 0; i < m->nv; i++) d.qvel[i] = 0.3 * (i + 1);
    long before = nheap;
    ENSURE(px_forward(m, &d, &d.status) == PX_OK);
    for (int k = 0; k < 20; k++) ENSURE(px_step(m, &d) == PX_OK);
    ENSURE(px_step1(m, &d) == PX_OK);
    ENSURE(px_step2(m, &d) == PX_OK);
    if (nheap != before) printf("integrator %d: %ld heap calls\n", integ, nheap - before);
    ENSURE(nheap == before);
    ENSURE(d.time > 0);
  }
  px_freeWorlds(w);
  px_freeModel(m);
  return 0;
}

static int test_forward_and_step_allocate_nothing(void) {
  return stepsAllocateNothing(kXML);
}

static int test_history_steps_allocate_nothing(void) {
  return stepsAllocateNothing(kHistXML);
}

static int test_tactile_steps_allocate_nothing(void) {
  return stepsAllocateNothing(kTactileXML);
}

// pxb_step with per-world parameters (shallow model copies on the stack) and with the automatic
// reset allocates nothing either, on the calling thread and on two pool threads
static int test_batch_step_allocates_nothing(void) {
  pxStatus st;
  pxModel* m = NULL;
  px_statusClear(&st);
  ENSURE(pxc_loadXML(NULL, kXML, &m, &st) == PX_OK);
  for (int nthread = 0; nthread <= 2; nthread += 2) {
    pxBatch* b = pxb_make(m, 4, nthread, 1, &st);
    ENSURE(b != NULL);
    double mass[4 * 64];
    ENSURE(m->nbody <= 64);
    for (int w = 0; w < 4; w++) {
      for (int i = 0; i < m->nbody; i++) mass[w * m->nbody + i] = m->body_mass[i] * (1 + 0.1 * w);
    }
    ENSURE(pxb_setParam(b, pxb_paramIndex("body_mass"), mass, NULL, &st) == PX_OK);
    ENSURE(pxb_setConst(b, NULL, &st) == PX_OK);
    ENSURE(pxb_setAutoreset(b, 1, -1, 0.1, 0.1, &st) == PX_OK);
    pxb_reset(b, NULL, -1, 0.1, 0.1);
    long before = nheap;
    for (int k = 0; k < 5; k++) pxb_step(b, 4, NULL, 0.01);
    b->worlds->qvel[0] = INFINITY;  // world 0 is flagged and reset by the autoreset
    ENSURE(pxb_step(b, 2, NULL, 0) == 1);
    pxb_reset(b, NULL, -1, 0.1, 0.1);
    pxb_forward(b, NULL);
    if (nheap != before) printf("batch, %d threads: %ld heap calls\n", nthread, nheap - before);
    ENSURE(nheap == before);
    pxb_free(b);
  }
  px_freeModel(m);
  return 0;
}

int main(void) {
  RUN_TEST(test_wrappers_are_live);
  RUN_TEST(test_forward_and_step_allocate_nothing);
  RUN_TEST(test_history_steps_allocate_nothing);
  RUN_TEST(test_tactile_steps_allocate_nothing);
  RUN_TEST(test_batch_step_allocates_nothing);
  return TEST_SUMMARY();
}
