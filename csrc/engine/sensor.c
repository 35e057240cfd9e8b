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
// the tactile sensor (csrc/engine/tactile.c)
#define PXK_SN_TACTILE(i) px_sensorTactile(m, d, i)

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
  if (m->opt.disableflags & PX_DSBL_SENSOR) return PX_OK;
  pxtStatus code = px_sensorCheck(m, st);
  if (code != PX_OK) return code;
  // what the sensor shader (shaders/sensor.comp) leaves out: the readings of constraint rows and
  // contacts, camera rangefinders (sensor.h's CPU-only parts). The geom distance sensors run in
  // their own entry points (shaders/sensor_dist*.comp; csrc/vulkan/kinematics_gpu.c refuses
  // their convex pairs on CPU Vulkan devices)
  static const char* why[] = {
      [PX_SENS_TOUCH] = "touch (it reads contact forces and casts rays; CPU only)",

      [PX_SENS_CONTACT] = "contact (it reads contacts; CPU only)",
      [PX_SENS_JOINTLIMITPOS] = "jointlimitpos (it reads constraint rows; CPU only)",
      [PX_SENS_JOINTLIMITVEL] = "jointlimitvel (it reads constraint rows; CPU only)",
      [PX_SENS_JOINTLIMITFRC] = "jointlimitfrc (it reads constraint rows; CPU only)",
      [PX_SENS_TENDONLIMITPOS] = "tendonlimitpos (it reads constraint rows; CPU only)",
      [PX_SENS_TENDONLIMITVEL] = "tendonlimitvel (it reads constraint rows; CPU only)",
      [PX_SENS_TENDONLIMITFRC] = "tendonlimitfrc (it reads constraint rows; CPU only)",
      [PX_SENS_TACTILE] = "tactile (it reads contacts and signed distances; CPU only)",
  };
  for (int i = 0; i < m->nsensor; i++) {
    int t = m->sensor_type[i];
    if (t == PX_SENS_RANGEFINDER && m->sensor_objtype[i] != PX_OBJ_SITE) {
      return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                     "forward on the GPU: sensor %d: camera rangefinder sensors are not computed "
                     "on the GPU (the ray culling of mj_multiRay walks the collision trees; the "
                     "CPU computes them; or disable sensor)",
                     i);
    }
    if (t >= 0 && t < (int)(sizeof(why) / sizeof(why[0])) && why[t]) {
      return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                     "forward on the GPU: sensor %d: %s sensors are not computed on the GPU (the "
                     "CPU computes them; or disable sensor)",
                     i, why[t]);
    }
  }
  return PX_OK;
}

void px_sensors(const pxModel* m, pxData* d, double ke_in) {
  pxk_sensors(m, d, d->time, ke_in);
}
