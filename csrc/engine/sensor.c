// SPDX-License-Identifier: Apache-2.0
// The CPU executor of csrc/kern/sensor.h: MuJoCo 3.12's mj_sensorPos, mj_sensorVel and
// mj_sensorAcc with the quantities they compute lazily (mj_energyPos, mj_energyVel,
// mj_subtreeVel, mj_rnePostConstraint) and the energy bookkeeping of mj_forward around them.
#include <string.h>

#include <math.h>

#include "kern/prelude_c.h"

// a pass records the lazy quantities it computed in d->lazy (MuJoCo's flags, read by the history
// update; the history hooks PXK_SN_SKIP and PXK_SN_FROMHISTORY are csrc/kern/history.h's)
static void markLazy(pxData* d, int what);
#define PXK_SN_MARK(what) markLazy(d, what)
// the acceleration stage's mj_rnePostConstraint with the forces of the constraint rows
#define PXK_SN_RNEPOST_RUN() px_rnePostConstraintRun(m, d)

#include "kern/sensor_history.h"

#if PX_LAZY_SUBTREEVEL != PXK_HIST_SUBTREEVEL || PX_LAZY_RNEPOST != PXK_HIST_RNEPOST || \
    PX_LAZY_ENERGYPOS != PXK_HIST_ENERGYPOS || PX_LAZY_ENERGYVEL != PXK_HIST_ENERGYVEL
#error "PX_LAZY_* and PXK_HIST_* differ"
#endif

pxtStatus px_sensorCheck(const pxModel* m, pxStatus* st) {
  static const char* names[] = {[PX_SENS_RANGEFINDER] = "rangefinder",
                                [PX_SENS_CONTACT] = "contact",
                                [PX_SENS_PLUGIN] = "plugin"};
  for (int i = 0; i < m->nsensor; i++) {
    int t = m->sensor_type[i];
    if (t < PX_SENS_TOUCH || t > PX_SENS_USER) {
      return PX_FAIL(st, PX_ERR_ARG, "sensor %d: invalid sensor type %d", i, t);
    }
    // the history update computes sensors with a history buffer even with sensors disabled
    if ((m->opt.disableflags & PX_DSBL_SENSOR) && m->sensor_history[2 * i] <= 0) continue;
    if (!pxk_sensorSupported(m, NULL, i)) {
      return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                     "sensor %d: %s sensors are not supported yet (or disable sensor)", i,
                     names[t] ? names[t] : "this type of");
    }
    if (m->sensor_history[2 * i] > 0 && t == PX_SENS_USER) {
      return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                     "sensor %d: a history buffer (nsample, delay, interval) on a user sensor is "
                     "not supported",
                     i);
    }
  }
  return px_historyCheck(m, st);
}

//---------------------------------- history (delay, interval) -------------------------------------

static void markLazy(pxData* d, int what) {
  d->lazy |= what == PXK_SN_ENERGYPOS    ? PX_LAZY_ENERGYPOS
             : what == PXK_SN_SUBTREEVEL ? PX_LAZY_SUBTREEVEL
             : what == PXK_SN_RNEPOST    ? PX_LAZY_RNEPOST
                                         : PX_LAZY_ENERGYVEL;
}

void px_advanceSensorHistory(const pxModel* m, pxData* d) {
  d->lazy = pxk_histAdvanceSensors(m, d, d->lazy);
}

pxtStatus px_sensorCheckGPU(const pxModel* m, pxStatus* st) {
  // every type px_sensorCheck accepts has a GPU entry point (shaders/sensor_main.glsl); what the
  // geom distance entry point with GJK/EPA lacks on some devices, csrc/vulkan/kinematics_gpu.c
  // refuses (sensorDistCheck)
  return px_sensorCheck(m, st);
}

int px_sensorFullGPU(const pxModel* m) {
  if (m->nsensor == 0) return 0;
  int rows = !px_constraintFree(m);
  for (int i = 0; i < m->nsensor; i++) {
    int t = m->sensor_type[i];
    // with sensors disabled only the history update computes sensors: those with a buffer
    if ((m->opt.disableflags & PX_DSBL_SENSOR) && m->sensor_history[2 * i] <= 0) continue;
    switch (t) {
      case PX_SENS_TOUCH:
      case PX_SENS_CONTACT:
      case PX_SENS_JOINTLIMITPOS:
      case PX_SENS_JOINTLIMITVEL:
      case PX_SENS_JOINTLIMITFRC:
      case PX_SENS_TENDONLIMITPOS:
      case PX_SENS_TENDONLIMITVEL:
      case PX_SENS_TENDONLIMITFRC:
        return 1;
      case PX_SENS_RANGEFINDER:
        if (m->sensor_objtype[i] != PX_OBJ_SITE) return 1;
        break;
      // mj_rnePostConstraint (pxk_sensorNeeds) with the constraint forces where rows can arise
      case PX_SENS_ACCELEROMETER:
      case PX_SENS_FORCE:
      case PX_SENS_TORQUE:
      case PX_SENS_FRAMELINACC:
      case PX_SENS_FRAMEANGACC:
        if (rows) return 1;
        break;
      case PX_SENS_USER:
        if (rows && m->sensor_needstage[i] == PX_STAGE_ACC) return 1;
        break;
      default:
        break;
    }
  }
  return 0;
}

void px_sensors(const pxModel* m, pxData* d, double ke_in) {
  pxk_sensors(m, d, d->time, ke_in);
}
