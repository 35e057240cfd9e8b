// SPDX-License-Identifier: Apache-2.0
// The CPU executor of csrc/kern/sensor.h: MuJoCo 3.12's mj_sensorPos, mj_sensorVel and
// mj_sensorAcc with the quantities they compute lazily (mj_energyPos, mj_energyVel,
// mj_subtreeVel, mj_rnePostConstraint) and the energy bookkeeping of mj_forward around them.
#include <string.h>

#include <math.h>

#include "kern/prelude_c.h"

// the sensors read from their history buffers compute nothing in a pass (readsHistory), and a
// pass records the lazy quantities it computed in d->lazy (MuJoCo's flags, read by the history
// update): the hooks of pxk_sensorNeeds and pxk_sensors
static int readsHistory(const pxModel* m, const pxData* d, int i);
static void markLazy(pxData* d, int what);
#define PXK_SN_SKIP(i) (m->nhistory > 0 && readsHistory(m, d, i))
#define PXK_SN_MARK(what) markLazy(d, what)
// the acceleration stage's mj_rnePostConstraint with the forces of the constraint rows
#define PXK_SN_RNEPOST_RUN() px_rnePostConstraintRun(m, d)

#include "kern/sensor.h"

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

// 1 if sensor i's value comes from its history buffer in this pass (compute_or_read_sensor):
// always with a delay, with an interval while the next sample is not due
static int readsHistory(const pxModel* m, const pxData* d, int i) {
  if (m->sensor_history[2 * i] <= 0 || m->sensor_type[i] == PX_SENS_USER) return 0;
  if (m->sensor_delay[i] > 0) return 1;
  double interval = m->sensor_interval[2 * i];
  if (interval > 0) {
    const double* buf = d->history + m->sensor_historyadr[i];
    return !(buf[0] + interval <= d->time);
  }
  return 0;
}

int px_sensorFromHistory(const pxModel* m, pxData* d, int i) {
  if (!readsHistory(m, d, i)) return 0;
  int n = m->sensor_history[2 * i], dim = m->sensor_dim[i];
  double* out = d->sensordata + m->sensor_adr[i];
  const double* buf = d->history + m->sensor_historyadr[i];
  const double* p =
      px_historyRead(buf, n, dim, out, d->time - m->sensor_delay[i], m->sensor_history[2 * i + 1]);
  if (p) memcpy(out, p, sizeof(double) * (size_t)dim);
  return 1;
}

static void markLazy(pxData* d, int what) {
  d->lazy |= what == PXK_SN_ENERGYPOS    ? PX_LAZY_ENERGYPOS
             : what == PXK_SN_SUBTREEVEL ? PX_LAZY_SUBTREEVEL
             : what == PXK_SN_RNEPOST    ? PX_LAZY_RNEPOST
                                         : PX_LAZY_ENERGYVEL;
}

// mj_computeSensor of sensor i into dst (dim numbers) at the current state: the quantities it
// needs computed first unless this pass has them (d->lazy, MuJoCo's flags), then the stage's
// reading and cutoff. The stage functions write sensordata, so dst and the sensor's sensordata
// trade places around the computation (what dst held is what the sensor finds, as in MuJoCo).
static void computeInto(const pxModel* m, pxData* d, int i, double* dst) {
  int t = m->sensor_type[i];
  int stage = m->sensor_needstage[i];
  if ((t == PX_SENS_SUBTREELINVEL || t == PX_SENS_SUBTREEANGMOM) &&
      !(d->lazy & PX_LAZY_SUBTREEVEL)) {
    pxk_subtreeVel(m, d);
    d->lazy |= PX_LAZY_SUBTREEVEL;
  }
  if ((t == PX_SENS_ACCELEROMETER || t == PX_SENS_FORCE || t == PX_SENS_TORQUE ||
       t == PX_SENS_FRAMELINACC || t == PX_SENS_FRAMEANGACC) &&
      !(d->lazy & PX_LAZY_RNEPOST)) {
    px_rnePostConstraintRun(m, d);
    d->lazy |= PX_LAZY_RNEPOST;
  }
  if (t == PX_SENS_E_POTENTIAL && !(d->lazy & PX_LAZY_ENERGYPOS)) {
    pxk_energyPos(m, d);
    d->lazy |= PX_LAZY_ENERGYPOS;
  }
  if (t == PX_SENS_E_KINETIC && !(d->lazy & PX_LAZY_ENERGYVEL)) {
    pxk_energyVel(m, d);
    d->lazy |= PX_LAZY_ENERGYVEL;
  }
  int dim = m->sensor_dim[i];
  double* sd = d->sensordata + m->sensor_adr[i];
  for (int k = 0; k < dim; k++) {
    double tmp = sd[k];
    sd[k] = dst[k];
    dst[k] = tmp;
  }
  if (stage == PX_STAGE_POS) {
    pxk_snPos(m, d, i, d->time);
  } else if (stage == PX_STAGE_VEL) {
    pxk_snVel(m, d, i);
  } else {
    pxk_snAcc(m, d, i);
  }
  pxk_snCutoff(m, d, i);
  for (int k = 0; k < dim; k++) {
    double tmp = sd[k];
    sd[k] = dst[k];
    dst[k] = tmp;
  }
}

void px_advanceSensorHistory(const pxModel* m, pxData* d) {
  for (int i = 0; i < m->nsensor; i++) {
    int n = m->sensor_history[2 * i];
    if (n <= 0) continue;
    int dim = m->sensor_dim[i];
    double* buf = d->history + m->sensor_historyadr[i];
    double delay = m->sensor_delay[i];
    double interval = m->sensor_interval[2 * i];
    const double* cur = d->sensordata + m->sensor_adr[i];
    if (interval > 0) {
      // a sample is due: the interval clock moves by exactly one interval
      if (buf[0] + interval <= d->time) {
        buf[0] += interval;
        double* slot = px_historyInsert(buf, n, dim, d->time);
        if (delay > 0) {
          computeInto(m, d, i, slot);
        } else {
          memcpy(slot, cur, sizeof(double) * (size_t)dim);
        }
      }
    } else if (delay > 0) {
      computeInto(m, d, i, px_historyInsert(buf, n, dim, d->time));
    } else {
      memcpy(px_historyInsert(buf, n, dim, d->time), cur, sizeof(double) * (size_t)dim);
    }
  }
}

pxtStatus px_sensorCheckGPU(const pxModel* m, pxStatus* st) {
  if (m->opt.disableflags & PX_DSBL_SENSOR) return PX_OK;
  pxtStatus code = px_sensorCheck(m, st);
  if (code != PX_OK) return code;
  // what the sensor entry points (shaders/sensor.comp, sensorfull.comp) leave out: the geom
  // distance sensors (PXK_SN_NOGEOMDIST: the collision code they need would make the pipeline far
  // slower to build)
  static const char* why[] = {
      [PX_SENS_GEOMDIST] =
          "distance (a geom distance: no collision code in the sensor shader; CPU only)",
      [PX_SENS_GEOMNORMAL] =
          "normal (a geom distance: no collision code in the sensor shader; CPU only)",
      [PX_SENS_GEOMFROMTO] =
          "fromto (a geom distance: no collision code in the sensor shader; CPU only)",
  };
  for (int i = 0; i < m->nsensor; i++) {
    int t = m->sensor_type[i];
    if (t >= 0 && t < (int)(sizeof(why) / sizeof(why[0])) && why[t]) {
      return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                     "forward on the GPU: sensor %d: %s sensors are not computed on the GPU (the "
                     "CPU computes them; or disable sensor)",
                     i, why[t]);
    }
  }
  return PX_OK;
}

int px_sensorFullGPU(const pxModel* m) {
  if (m->nsensor == 0 || (m->opt.disableflags & PX_DSBL_SENSOR)) return 0;
  int rows = !px_constraintFree(m);
  for (int i = 0; i < m->nsensor; i++) {
    int t = m->sensor_type[i];
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
