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
  if (m->opt.disableflags & PX_DSBL_SENSOR) return PX_OK;
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
    if (!pxk_sensorSupported(m, NULL, i)) {
      return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                     "sensor %d: %s sensors are not supported yet (or disable sensor)", i,
                     names[t] ? names[t] : "this type of");
    }
    if (m->sensor_history[2 * i] > 0) {
      return PX_FAIL(st, PX_ERR_UNSUPPORTED, "sensor %d: sensor history is not supported", i);
    }
  }
  return PX_OK;
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
  pxk_sensors(m, d, d->time, ke_in);
}
