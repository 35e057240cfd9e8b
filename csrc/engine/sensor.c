// SPDX-License-Identifier: Apache-2.0
// The CPU executor of csrc/kern/sensor.h: MuJoCo 3.12's mj_sensorPos, mj_sensorVel and
// mj_sensorAcc with the quantities they compute lazily (mj_energyPos, mj_energyVel,
// mj_subtreeVel, mj_rnePostConstraint) and the energy bookkeeping of mj_forward around them.
#include <string.h>

#include <math.h>

#include "kern/prelude_c.h"

//---------------------------------- ray vs site (touch) -------------------------------------------
// MuJoCo's mju_rayGeom on the primitive of a site (sphere, capsule, ellipsoid, cylinder, box),
// without the normal: the distance along vec from pnt to the site's surface, -1 when the ray
// misses; the touch sensor keeps the contacts whose ray meets the site

#define MINVAL 1E-15

// the smallest non-negative root of a x^2 + 2 b x + c = 0 (-1 if none), both roots in x
static double rayQuad(double a, double b, double c, double x[2]) {
  double det = b * b - a * c;
  if (det < 0 || a < MINVAL) {
    x[0] = -1;
    x[1] = -1;
    return -1;
  }
  det = sqrt(det);
  x[0] = (-b - det) / a;
  x[1] = (-b + det) / a;
  if (x[0] >= 0) return x[0];
  if (x[1] >= 0) return x[1];
  return -1;
}

// pnt and vec in the frame (pos, mat)
static void rayMap(const double pos[3], const double mat[9], const double pnt[3],
                   const double vec[3], double lpnt[3], double lvec[3]) {
  const double dif[3] = {pnt[0] - pos[0], pnt[1] - pos[1], pnt[2] - pos[2]};
  for (int k = 0; k < 3; k++) {
    lpnt[k] = mat[k] * dif[0] + mat[3 + k] * dif[1] + mat[6 + k] * dif[2];
    lvec[k] = mat[k] * vec[0] + mat[3 + k] * vec[1] + mat[6 + k] * vec[2];
  }
}

static double raySphere(const double pos[3], double r2, const double pnt[3], const double vec[3]) {
  double dif[3] = {pnt[0] - pos[0], pnt[1] - pos[1], pnt[2] - pos[2]};
  double a = vec[0] * vec[0] + vec[1] * vec[1] + vec[2] * vec[2];
  double b = vec[0] * dif[0] + vec[1] * dif[1] + vec[2] * dif[2];
  double c = dif[0] * dif[0] + dif[1] * dif[1] + dif[2] * dif[2] - r2;
  double xx[2];
  return rayQuad(a, b, c, xx);
}

static double rayCapsule(const double pos[3], const double mat[9], const double size[3],
                         const double pnt[3], const double vec[3]) {
  double ssz = size[0] + size[1];
  if (raySphere(pos, ssz * ssz, pnt, vec) < 0) return -1;
  double lpnt[3], lvec[3], xx[2], x = -1;
  rayMap(pos, mat, pnt, vec, lpnt, lvec);
  double a = lvec[0] * lvec[0] + lvec[1] * lvec[1];
  double b = lvec[0] * lpnt[0] + lvec[1] * lpnt[1];
  double c = lpnt[0] * lpnt[0] + lpnt[1] * lpnt[1] - size[0] * size[0];
  double sol = rayQuad(a, b, c, xx);
  if (sol >= 0 && fabs(lpnt[2] + sol * lvec[2]) <= size[1]) x = sol;
  // the two caps: top (side 1), then bottom (side -1), the matching half sphere only
  double ldif[3] = {lpnt[0], lpnt[1], lpnt[2] - size[1]};
  a = lvec[0] * lvec[0] + lvec[1] * lvec[1] + lvec[2] * lvec[2];
  for (int side = 1; side >= -1; side -= 2) {
    if (side < 0) ldif[2] = lpnt[2] + size[1];
    b = lvec[0] * ldif[0] + lvec[1] * ldif[1] + lvec[2] * ldif[2];
    c = ldif[0] * ldif[0] + ldif[1] * ldif[1] + ldif[2] * ldif[2] - size[0] * size[0];
    rayQuad(a, b, c, xx);
    for (int i = 0; i < 2; i++) {
      double z = lpnt[2] + xx[i] * lvec[2];
      int half = side > 0 ? z >= size[1] : z <= -size[1];
      if (xx[i] >= 0 && half && (x < 0 || xx[i] < x)) x = xx[i];
    }
  }
  return x;
}

static double rayEllipsoid(const double pos[3], const double mat[9], const double size[3],
                           const double pnt[3], const double vec[3]) {
  double lpnt[3], lvec[3], xx[2];
  rayMap(pos, mat, pnt, vec, lpnt, lvec);
  double s[3] = {1 / (size[0] * size[0]), 1 / (size[1] * size[1]), 1 / (size[2] * size[2])};
  double a = s[0] * lvec[0] * lvec[0] + s[1] * lvec[1] * lvec[1] + s[2] * lvec[2] * lvec[2];
  double b = s[0] * lvec[0] * lpnt[0] + s[1] * lvec[1] * lpnt[1] + s[2] * lvec[2] * lpnt[2];
  double c = s[0] * lpnt[0] * lpnt[0] + s[1] * lpnt[1] * lpnt[1] + s[2] * lpnt[2] * lpnt[2] - 1;
  return rayQuad(a, b, c, xx);
}

static double rayCylinder(const double pos[3], const double mat[9], const double size[3],
                          const double pnt[3], const double vec[3]) {
  double ssz = size[0] * size[0] + size[1] * size[1];
  if (raySphere(pos, ssz, pnt, vec) < 0) return -1;
  double lpnt[3], lvec[3], xx[2], x = -1, sol;
  rayMap(pos, mat, pnt, vec, lpnt, lvec);
  if (fabs(lvec[2]) > MINVAL) {
    for (int side = -1; side <= 1; side += 2) {
      sol = (side * size[1] - lpnt[2]) / lvec[2];
      if (sol >= 0) {
        double p0 = lpnt[0] + sol * lvec[0];
        double p1 = lpnt[1] + sol * lvec[1];
        if (p0 * p0 + p1 * p1 <= size[0] * size[0] && (x < 0 || sol < x)) x = sol;
      }
    }
  }
  double a = lvec[0] * lvec[0] + lvec[1] * lvec[1];
  double b = lvec[0] * lpnt[0] + lvec[1] * lpnt[1];
  double c = lpnt[0] * lpnt[0] + lpnt[1] * lpnt[1] - size[0] * size[0];
  sol = rayQuad(a, b, c, xx);
  if (sol >= 0 && fabs(lpnt[2] + sol * lvec[2]) <= size[1] && (x < 0 || sol < x)) x = sol;
  return x;
}

static double rayBox(const double pos[3], const double mat[9], const double size[3],
                     const double pnt[3], const double vec[3]) {
  static const int iface[3][2] = {{1, 2}, {0, 2}, {0, 1}};
  double ssz = size[0] * size[0] + size[1] * size[1] + size[2] * size[2];
  if (raySphere(pos, ssz, pnt, vec) < 0) return -1;
  double lpnt[3], lvec[3], x = -1;
  rayMap(pos, mat, pnt, vec, lpnt, lvec);
  for (int i = 0; i < 3; i++) {
    if (fabs(lvec[i]) <= MINVAL) continue;
    for (int side = -1; side <= 1; side += 2) {
      double sol = (side * size[i] - lpnt[i]) / lvec[i];
      if (sol < 0) continue;
      double p0 = lpnt[iface[i][0]] + sol * lvec[iface[i][0]];
      double p1 = lpnt[iface[i][1]] + sol * lvec[iface[i][1]];
      if (fabs(p0) <= size[iface[i][0]] && fabs(p1) <= size[iface[i][1]] && (x < 0 || sol < x)) {
        x = sol;
      }
    }
  }
  return x;
}

static double raySite(const pxModel* m, const pxData* d, int s, const double pnt[3],
                      const double vec[3]) {
  const double* pos = d->site_xpos + 3 * s;
  const double* mat = d->site_xmat + 9 * s;
  const double* size = m->site_size + 3 * s;
  switch (m->site_type[s]) {
    case PX_GEOM_SPHERE:
      return raySphere(pos, size[0] * size[0], pnt, vec);
    case PX_GEOM_CAPSULE:
      return rayCapsule(pos, mat, size, pnt, vec);
    case PX_GEOM_ELLIPSOID:
      return rayEllipsoid(pos, mat, size, pnt, vec);
    case PX_GEOM_CYLINDER:
      return rayCylinder(pos, mat, size, pnt, vec);
    case PX_GEOM_BOX:
      return rayBox(pos, mat, size, pnt, vec);
    default:
      return -1;
  }
}

#define PXK_SN_RAYGEOM(s, pnt, vec) raySite(m, d, s, pnt, vec)
// the acceleration stage's mj_rnePostConstraint with the forces of the constraint rows
#define PXK_SN_RNEPOST_RUN() px_rnePostConstraintRun(m, d)

#include "kern/sensor.h"

pxtStatus px_sensorCheck(const pxModel* m, pxStatus* st) {
  static const char* names[] = {[PX_SENS_RANGEFINDER] = "rangefinder",
                                [PX_SENS_CONTACT] = "contact",
                                [PX_SENS_TACTILE] =
                                    "tactile (it needs the signed distance fields of meshes, "
                                    "their octrees, and mesh normals, which phalanx lacks)",
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

// pxk_sensorNeeds over the sensors computed in this pass (MuJoCo computes the lazy quantities
// from the sensors it computes, not from those it reads from their history)
static int needsComputed(const pxModel* m, pxData* d, int what) {
  if (m->nhistory == 0) return pxk_sensorNeeds(m, d, what);
  if (m->opt.disableflags & PX_DSBL_SENSOR) return 0;
  for (int i = 0; i < m->nsensor; i++) {
    int t = m->sensor_type[i];
    int st = m->sensor_needstage[i];
    if (readsHistory(m, d, i)) continue;
    if (what == PXK_SN_ENERGYPOS && t == PX_SENS_E_POTENTIAL) return 1;
    if (what == PXK_SN_ENERGYVEL && t == PX_SENS_E_KINETIC) return 1;
    if (what == PXK_SN_SUBTREEVEL && (t == PX_SENS_SUBTREELINVEL || t == PX_SENS_SUBTREEANGMOM ||
                                      (t == PX_SENS_USER && st == PX_STAGE_VEL))) {
      return 1;
    }
    if (what == PXK_SN_RNEPOST &&
        (t == PX_SENS_ACCELEROMETER || t == PX_SENS_FORCE || t == PX_SENS_TORQUE ||
         t == PX_SENS_FRAMELINACC || t == PX_SENS_FRAMEANGACC ||
         (t == PX_SENS_USER && st == PX_STAGE_ACC))) {
      return 1;
    }
  }
  return 0;
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
  // what the sensor shader (shaders/sensor.comp) leaves out: the readings of constraint rows and
  // contacts and the ray casts (sensor.h's CPU-only parts), and the geom distance sensors
  // (PXK_SN_NOGEOMDIST: the collision code they need would make the pipeline far slower to
  // build)
  static const char* why[] = {
      [PX_SENS_TOUCH] = "touch (it reads contact forces and casts rays; CPU only)",
      [PX_SENS_RANGEFINDER] = "rangefinder (it casts rays; CPU only)",
      [PX_SENS_CONTACT] = "contact (it reads contacts; CPU only)",
      [PX_SENS_JOINTLIMITPOS] = "jointlimitpos (it reads constraint rows; CPU only)",
      [PX_SENS_JOINTLIMITVEL] = "jointlimitvel (it reads constraint rows; CPU only)",
      [PX_SENS_JOINTLIMITFRC] = "jointlimitfrc (it reads constraint rows; CPU only)",
      [PX_SENS_TENDONLIMITPOS] = "tendonlimitpos (it reads constraint rows; CPU only)",
      [PX_SENS_TENDONLIMITVEL] = "tendonlimitvel (it reads constraint rows; CPU only)",
      [PX_SENS_TENDONLIMITFRC] = "tendonlimitfrc (it reads constraint rows; CPU only)",
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

void px_sensors(const pxModel* m, pxData* d, double ke_in) {
  if (m->nsensor == 0 || (m->opt.disableflags & PX_DSBL_SENSOR)) return;
  int energy = (m->opt.enableflags & PX_ENBL_ENERGY) != 0;
  int pot = needsComputed(m, d, PXK_SN_ENERGYPOS);
  int kin = needsComputed(m, d, PXK_SN_ENERGYVEL);
  if (pot) d->lazy |= PX_LAZY_ENERGYPOS;

  // position stage. mj_forward clears its potential-energy flag before, so an e_potential
  // sensor computes mj_energyPos (the same value the energy flag computes); an e_kinetic sensor
  // reads energy[1] as it is when the kinetic-energy flag is set, that is with the energy flag,
  // set by the previous forward pass (ke_in, energy[1] on entry); otherwise it computes it
  double ke = d->energy[1];  // with the energy flag: this pass's kinetic energy
  if (pot && !energy) pxk_energyPos(m, d);
  if (kin) {
    if (energy) {
      d->energy[1] = ke_in;
    } else {
      pxk_energyVel(m, d);
    }
  }
  pxk_sensorPos(m, d, d->time);
  // what mj_forward leaves in energy[1]: with the energy flag, mj_energyVel's; without it, zero
  // unless an e_potential sensor kept mj_forward from clearing it (then the e_kinetic sensor's
  // value or the value on entry)
  if (energy) {
    d->energy[1] = ke;
  } else if (pot) {
    if (!kin) d->energy[1] = ke_in;
  } else {
    d->energy[1] = 0;
  }

  // velocity stage
  if (needsComputed(m, d, PXK_SN_SUBTREEVEL)) {
    pxk_subtreeVel(m, d);
    d->lazy |= PX_LAZY_SUBTREEVEL;
  }
  pxk_sensorVel(m, d);

  // acceleration stage
  if (needsComputed(m, d, PXK_SN_RNEPOST)) {
    px_rnePostConstraintRun(m, d);
    d->lazy |= PX_LAZY_RNEPOST;
  }
  pxk_sensorAcc(m, d);
}
