// SPDX-License-Identifier: Apache-2.0
// Sensors (MuJoCo 3.12's mj_sensorPos, mj_sensorVel, mj_sensorAcc and the cutoff applied to each
// reading) in the kernel dialect. Each stage function computes the readings of the sensors whose
// needstage is that stage into Data's sensordata, then clips them by their cutoff.
//
// The quantities MuJoCo computes lazily for some sensors are the caller's: before the stage call
// it runs what pxk_sensorNeeds names (mj_energyPos / mj_energyVel for the energy sensors of the
// position stage, mj_subtreeVel for the subtree velocity sensors and user sensors of the
// velocity stage, mj_rnePostConstraint for the accelerometer, force, torque, frame acceleration
// sensors and user sensors of the acceleration stage). The clock reading is the time argument.
//
// Sensors that read constraint rows or contacts (joint and tendon limit sensors, touch, contact),
// mj_rnePostConstraint with the constraint forces, and camera rangefinders are compiled where
// PXK_SN_EFC (rows and contacts: csrc/kern/constraint.h's accessors) and PXK_SN_CAMERA are
// defined: always on the CPU; on the GPU in the sensor entry point that declares the constraint
// blocks (shaders/sensorfull.comp), which the executor dispatches instead of shaders/sensor.comp
// for models with such sensors. Site rangefinders run in both entry points, and so does the
// tactile sensor (csrc/kern/tactile.h: the contact records and signed distances), unless the
// executor defines PXK_SN_NOTACTILE. Plugin sensors are not computed: the executors refuse
// models holding them.
// User sensors are zero (MuJoCo leaves them to a callback phalanx does not have).
//
//   reads:  m->sensor_*, object frames and velocities (xpos, xquat, xipos, site_xpos, cvel,
//           cacc, cfrc_int, subtree_*, ...), qpos, qvel, ten_*, actuator_*, energy,
//           constraint rows and contacts (PXK_SN_EFC)
//   writes: d->sensordata
// Sensors are independent: lane-strided, except the geom distance sensors, which use the
// world's collision scratch and run on lane 0 in sensor order. A GPU entry point may leave them
// out (PXK_SN_NOGEOMDIST: neither computed nor cut off here, nor sampled by the history update)
// and compute them in a pass of their own (pxk_sensorsGeomDist, csrc/kern/sensor_history.h):
// the narrow-phase routines they call are inlined once per call site, so they get one.
#ifndef PX_KERN_SENSOR_H_
#define PX_KERN_SENSOR_H_

#ifndef PXK_SN_NOGEOMDIST
#include "kern/collide_dist.h"
#endif
#include "kern/history.h"
#include "kern/libm.h"
#include "kern/post.h"
#include "kern/smooth.h"
#ifndef PXK_SN_NOTACTILE
#include "kern/tactile.h"
#endif
// the CPU compiles every sensor this header has
#ifdef PX_KERN_C
#ifndef PXK_SN_EFC
#define PXK_SN_EFC 1
#endif
#ifndef PXK_SN_CAMERA
#define PXK_SN_CAMERA 1
#endif
#endif
#ifdef PXK_SN_EFC
#include "kern/constraint.h"
#endif

// 1 when this Data has no contact or row storage (a CPU Data made for a model without
// constraint rows); a GPU entry point with PXK_SN_EFC always binds them (zero counts without a
// constraint stage)
#ifdef PX_KERN_GLSL
#define PXK_SN_NOROWS 0
#else
#define PXK_SN_NOROWS ((d->ncon == NULL || d->efc_n == NULL) ? 1 : 0)
#endif

// single-precision locals (the camera intrinsics are float arrays, combined in float as MuJoCo
// does)
#ifdef PX_KERN_GLSL
#define PXK_SNF precise float
#define PXK_SNTOF(x) float(x)
#else
#define PXK_SNF float
#define PXK_SNTOF(x) ((float)(x))
#endif

// the lazily computed quantities of pxk_sensorNeeds
#define PXK_SN_ENERGYPOS 0
#define PXK_SN_ENERGYVEL 1
#define PXK_SN_SUBTREEVEL 2
#define PXK_SN_RNEPOST 3

// 1 if sensor i (builtin types) is computed by the stage functions of this header in this
// build; 0 for the types no executor computes, those PXK_SN_EFC and PXK_SN_CAMERA leave out, the
// geom distance sensors where PXK_SN_NOGEOMDIST leaves them out, tactile where PXK_SN_NOTACTILE
// does
PX_FN int pxk_sensorSupported(PX_MDC int i) {
  int t = M(sensor_type, i);
  if (t == PX_SENS_PLUGIN) return 0;
#ifdef PXK_SN_NOTACTILE
  if (t == PX_SENS_TACTILE) return 0;
#endif
#ifdef PXK_SN_NOGEOMDIST
  if (t == PX_SENS_GEOMDIST || t == PX_SENS_GEOMNORMAL || t == PX_SENS_GEOMFROMTO) return 0;
#endif
#ifndef PXK_SN_CAMERA
  if (t == PX_SENS_RANGEFINDER && M(sensor_objtype, i) != PX_OBJ_SITE) return 0;
#endif
#ifndef PXK_SN_EFC
  if (t == PX_SENS_CONTACT) return 0;
  if (t == PX_SENS_TOUCH || t == PX_SENS_JOINTLIMITPOS || t == PX_SENS_JOINTLIMITVEL ||
      t == PX_SENS_JOINTLIMITFRC || t == PX_SENS_TENDONLIMITPOS || t == PX_SENS_TENDONLIMITVEL ||
      t == PX_SENS_TENDONLIMITFRC) {
    return 0;
  }
#endif
  return 1;
}

// PXK_SN_SKIP(i) (csrc/kern/history.h, both executors): 1 when sensor i computes nothing in
// this pass (a reading taken from its history buffer), so it asks for no lazy quantity;
// PXK_SN_MARK(what): the executor's record that this pass computed `what` (the CPU's
// MuJoCo-style lazy flags, which the history update reads; the GPU derives them in
// pxk_histForwardLazy instead).

// 1 if some sensor makes MuJoCo compute `what` (PXK_SN_*) in its stage (sensors enabled)
PX_FN int pxk_sensorNeeds(PX_MDC int what) {
  if ((MOPT(disableflags) & PX_DSBL_SENSOR) != 0) return 0;
  for (int i = 0; i < MS(nsensor); i++) {
#ifdef PXK_SN_SKIP
    if (PXK_SN_SKIP(i) != 0) continue;
#endif
    int t = M(sensor_type, i);
    int st = M(sensor_needstage, i);
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

//---------------------------------- helpers -------------------------------------------------------

// the cutoff of sensor i on its reading (apply_cutoff): both sides for real data, the positive
// side for positive data, nothing for other data types, contact and fromto sensors
PX_FN void pxk_snCutoff(PX_MDC int i) {
  PXR cutoff = M(sensor_cutoff, i);
  int t = M(sensor_type, i);
  if (cutoff <= PX_R(0.0) || t == PX_SENS_CONTACT || t == PX_SENS_GEOMFROMTO) return;
  int adr = M(sensor_adr, i);
  int dt = M(sensor_datatype, i);
  for (int j = 0; j < M(sensor_dim, i); j++) {
    PXR v = D(sensordata, adr + j);
    if (dt == PX_DATATYPE_REAL) {
      PXR c = v < -cutoff ? -cutoff : (v > cutoff ? cutoff : v);
      D(sensordata, adr + j) = c;
    } else if (dt == PX_DATATYPE_POSITIVE) {
      PXR c = cutoff <= v ? cutoff : v;
      D(sensordata, adr + j) = c;
    }
  }
}

// res = mat' vec (3x3) as mju_mulMatTVec: zero, then the rows of mat scaled by the nonzero
// elements of vec, added in row order
PX_FN void pxk_snMulMatTVec(PX_OUT(PX_REAL, res, 3), PX_IN(PX_REAL, mat, 9),
                            PX_IN(PX_REAL, vec, 3)) {
  for (int j = 0; j < 3; j++) res[j] = PX_ZERO;
  for (int r = 0; r < 3; r++) {
    if (vec[r] != PX_R(0.0)) {
      for (int j = 0; j < 3; j++) {
        PXR s = res[j] + mat[3 * r + j] * vec[r];
        res[j] = s;
      }
    }
  }
}

// the global orientation of an object as a quaternion (the frame quaternion's object lookup)
PX_FN void pxk_snQuat(PX_MDC int objtype, int id, PX_OUT(PX_REAL, quat, 4)) {
  PXR qa[4];
  PXR qb[4];
  int body = id;
  if (objtype == PX_OBJ_GEOM) body = M(geom_bodyid, id);
  if (objtype == PX_OBJ_SITE) body = M(site_bodyid, id);
  if (objtype == PX_OBJ_CAMERA) body = M(cam_bodyid, id);
  PXK_GET(4, qa, D, xquat, 4 * body);
  if (objtype == PX_OBJ_XBODY) {
    for (int k = 0; k < 4; k++) quat[k] = qa[k];
    return;
  }
  if (objtype == PX_OBJ_BODY) {
    PXK_GET(4, qb, M, body_iquat, 4 * id);
  } else if (objtype == PX_OBJ_GEOM) {
    PXK_GET(4, qb, M, geom_quat, 4 * id);
  } else if (objtype == PX_OBJ_SITE) {
    PXK_GET(4, qb, M, site_quat, 4 * id);
  } else {
    PXK_GET(4, qb, M, cam_quat, 4 * id);
  }
  pxk_mulQuat(quat, qa, qb);
}

// 1 if point lies inside site s's volume (mju_insideGeom on the site's primitive)
PX_FN int pxk_snInsideSite(PX_MDC int s, PX_IN(PX_REAL, point, 3)) {
  PXR vec[3];
  PXR loc[3];
  PXR mat[9];
  PXR size[3];
  PXK_GET(3, size, M, site_size, 3 * s);
  for (int k = 0; k < 3; k++) vec[k] = point[k] - D(site_xpos, 3 * s + k);
  int type = M(site_type, s);
  if (type == PX_GEOM_SPHERE) {
    PXR dd = pxk_dot3(vec, vec);
    PXR r2 = size[0] * size[0];
    return dd < r2 ? 1 : 0;
  }
  PXK_GET(9, mat, D, site_xmat, 9 * s);
  pxk_mulMatTVec3(loc, mat, vec);
  if (type == PX_GEOM_CAPSULE) {
    PXR z = loc[2];
    PXR zc = z < -size[1] ? -size[1] : (z > size[1] ? size[1] : z);
    PXR dz = z - zc;
    PXR dz2 = dz * dz;
    PXR q = loc[0] * loc[0] + loc[1] * loc[1] + dz2;
    PXR r2 = size[0] * size[0];
    return q < r2 ? 1 : 0;
  }
  if (type == PX_GEOM_ELLIPSOID) {
    PXR a0 = size[0] * size[0];
    PXR a1 = size[1] * size[1];
    PXR a2 = size[2] * size[2];
    PXR q = loc[0] * loc[0] / a0 + loc[1] * loc[1] / a1 + loc[2] * loc[2] / a2;
    return q < PX_R(1.0) ? 1 : 0;
  }
  if (type == PX_GEOM_CYLINDER) {
    PXR q = loc[0] * loc[0] + loc[1] * loc[1];
    PXR r2 = size[0] * size[0];
    return (PX_ABS(loc[2]) < size[1] && q < r2) ? 1 : 0;
  }
  if (type == PX_GEOM_BOX) {
    return (PX_ABS(loc[0]) < size[0] && PX_ABS(loc[1]) < size[1] && PX_ABS(loc[2]) < size[2]) ? 1
                                                                                              : 0;
  }
  if (type == PX_GEOM_PLANE) return loc[2] < PX_R(0.0) ? 1 : 0;
  return 0;
}

// copy n elements of the actuator output array `field` from output adr into sensordata at oa
#define PXK_SN_COPYOUT(field, adr, oa, n) \
  for (int k_ = 0; k_ < (n); k_++) D(sensordata, (oa) + k_) = D(field, (adr) + k_)

// the rangefinder and contact sensors (on the GPU: site rangefinders)
#include "kern/sensor_ray.h"

//---------------------------------- position stage ------------------------------------------------

// the camera projection of the site s as seen by camera c (pixel coordinates) into sensordata
PX_FN void pxk_snCamProject(PX_MDC int s, int c, int oa) {
  PXR fx;
  PXR fy;
  int r0 = M(cam_resolution, 2 * c);
  int r1 = M(cam_resolution, 2 * c + 1);
  if (M(cam_sensorsize, 2 * c) != PXK_SNTOF(0) && M(cam_sensorsize, 2 * c + 1) != PXK_SNTOF(0)) {
    PXK_SNF f0 = M(cam_intrinsic, 4 * c) / M(cam_sensorsize, 2 * c) * PXK_SNTOF(r0);
    PXK_SNF f1 = M(cam_intrinsic, 4 * c + 1) / M(cam_sensorsize, 2 * c + 1) * PXK_SNTOF(r1);
    fx = PX_TOREAL(f0);
    fy = PX_TOREAL(f1);
  } else {
    PXR ang = M(cam_fovy, c) * PX_R(3.14159265358979323846) / PX_R(360.0);
    PXR t = pxk_tan(ang);
    PXR f = PX_R(0.5) / t * PX_TOREAL(r1);
    fx = f;
    fy = f;
  }
  PXR rel[3];
  PXR mat[9];
  PXR cp[3];
  for (int k = 0; k < 3; k++) rel[k] = D(site_xpos, 3 * s + k) - D(cam_xpos, 3 * c + k);
  PXK_GET(9, mat, D, cam_xmat, 9 * c);
  pxk_snMulMatTVec(cp, mat, rel);
  PXR den = cp[2];
  if (PX_ABS(den) < PXK_MINVAL) {
    if (den < PX_R(0.0)) {
      den = den <= -PXK_MINVAL ? den : -PXK_MINVAL;
    } else {
      den = den >= PXK_MINVAL ? den : PXK_MINVAL;
    }
  }
  PXR nfx = -fx;
  PXR u = nfx * (cp[0] / den) + PX_R(0.5) * PX_TOREAL(r0);
  PXR v = fy * (cp[1] / den) + PX_R(0.5) * PX_TOREAL(r1);
  D(sensordata, oa) = u;
  D(sensordata, oa + 1) = v;
}

#ifndef PXK_SN_NOGEOMDIST
// the geom distance sensors (distance, normal, fromto) of sensor i: the closest pair over the
// geoms of the object (a body's geoms or one geom) and of the reference, cutoff as distmax
PX_FN void pxk_snGeomDist(PX_MDC int i, int oa) {
  int type = M(sensor_type, i);
  int objid = M(sensor_objid, i);
  int refid = M(sensor_refid, i);
  PXR cutoff = M(sensor_cutoff, i);
  PXR dist = cutoff;
  PXR fromto[6];
  PXR fnew[6];
  for (int k = 0; k < 6; k++) fromto[k] = PX_ZERO;
  int n1 = 1;
  int id1 = objid;
  if (M(sensor_objtype, i) == PX_OBJ_BODY) {
    n1 = M(body_geomnum, objid);
    id1 = M(body_geomadr, objid);
  }
  int n2 = 1;
  int id2 = refid;
  if (M(sensor_reftype, i) == PX_OBJ_BODY) {
    n2 = M(body_geomnum, refid);
    id2 = M(body_geomadr, refid);
  }
  for (int g1 = id1; g1 < id1 + n1; g1++) {
    for (int g2 = id2; g2 < id2 + n2; g2++) {
      PXR dnew = pxk_geomDistance(PX_MDARGC g1, g2, cutoff, fnew);
      if (dnew < dist) {
        dist = dnew;
        for (int k = 0; k < 6; k++) fromto[k] = fnew[k];
      }
    }
  }
  if (type == PX_SENS_GEOMDIST) {
    D(sensordata, oa) = dist;
  } else if (type == PX_SENS_GEOMNORMAL) {
    PXR nrm[3];
    for (int k = 0; k < 3; k++) nrm[k] = fromto[3 + k] - fromto[k];
    if (nrm[0] != PX_R(0.0) || nrm[1] != PX_R(0.0) || nrm[2] != PX_R(0.0)) pxk_normalize3(nrm);
    for (int k = 0; k < 3; k++) D(sensordata, oa + k) = nrm[k];
  } else {
    for (int k = 0; k < 6; k++) D(sensordata, oa + k) = fromto[k];
  }
}
#endif

#ifdef PXK_SN_EFC
// the first limit row of the given type for object id (rows after the equality and friction
// ones), -1 if none
PX_FN int pxk_snLimitRow(PX_MDC int type, int id) {
  if (PXK_SN_NOROWS == 1) return -1;  // a Data without constraint storage has no row
  int nef = PXK_EN(PX_EFC_NE) + PXK_EN(PX_EFC_NF);
  for (int j = nef; j < PXK_EN(PX_EFC_NEFC); j++) {
    if (PXK_E(efc_type, j) == type && PXK_E(efc_id, j) == id) return j;
  }
  return -1;
}
#endif

// the reading of position-stage sensor i (not user) into sensordata
PX_FN void pxk_snPos(PX_MDC int i, PX_REAL time) {
  int type = M(sensor_type, i);
  int objtype = M(sensor_objtype, i);
  int objid = M(sensor_objid, i);
  int reftype = M(sensor_reftype, i);
  int refid = M(sensor_refid, i);
  int oa = M(sensor_adr, i);
  PXR pos[3];
  PXR mat[9];
  PXR rpos[3];
  PXR rmat[9];
  PXR vec[3];
  PXR res[3];
  PXR q[4];
  PXR rq[4];
  PXR nq[4];
  if (type == PX_SENS_MAGNETOMETER) {
    PXK_GET(9, mat, D, site_xmat, 9 * objid);
    vec[0] = MOPT(magnetic)[0];
    vec[1] = MOPT(magnetic)[1];
    vec[2] = MOPT(magnetic)[2];
    pxk_snMulMatTVec(res, mat, vec);
    PXK_PUT(3, D, sensordata, oa, res);
  } else if (type == PX_SENS_CAMPROJECTION) {
    pxk_snCamProject(PX_MDARGC objid, refid, oa);
  } else if (type == PX_SENS_JOINTPOS) {
    D(sensordata, oa) = D(qpos, M(jnt_qposadr, objid));
  } else if (type == PX_SENS_TENDONPOS) {
    D(sensordata, oa) = D(ten_length, objid);
  } else if (type == PX_SENS_ACTUATORPOS) {
    PXK_SN_COPYOUT(actuator_length, M(actuator_outadr, objid), oa, M(sensor_dim, i));
  } else if (type == PX_SENS_BALLQUAT) {
    PXK_GET(4, q, D, qpos, M(jnt_qposadr, objid));
    pxk_normalize4(q);
    PXK_PUT(4, D, sensordata, oa, q);
  } else if (type == PX_SENS_FRAMEPOS || type == PX_SENS_FRAMEXAXIS || type == PX_SENS_FRAMEYAXIS ||
             type == PX_SENS_FRAMEZAXIS) {
    pxk_smObjectFrame(PX_MDARGC objtype, objid, pos, mat);
    int off = type - PX_SENS_FRAMEXAXIS;
    if (type != PX_SENS_FRAMEPOS) {
      for (int k = 0; k < 3; k++) pos[k] = mat[off + 3 * k];
    }
    if (refid == -1) {
      PXK_PUT(3, D, sensordata, oa, pos);
    } else {
      pxk_smObjectFrame(PX_MDARGC reftype, refid, rpos, rmat);
      if (type == PX_SENS_FRAMEPOS) {
        for (int k = 0; k < 3; k++) vec[k] = pos[k] - rpos[k];
      } else {
        for (int k = 0; k < 3; k++) vec[k] = pos[k];
      }
      pxk_mulMatTVec3(res, rmat, vec);
      PXK_PUT(3, D, sensordata, oa, res);
    }
  } else if (type == PX_SENS_FRAMEQUAT) {
    pxk_snQuat(PX_MDARGC objtype, objid, q);
    if (refid == -1) {
      PXK_PUT(4, D, sensordata, oa, q);
    } else {
      pxk_snQuat(PX_MDARGC reftype, refid, rq);
      nq[0] = rq[0];
      for (int k = 1; k < 4; k++) nq[k] = -rq[k];
      pxk_mulQuat(rq, nq, q);
      PXK_PUT(4, D, sensordata, oa, rq);
    }
  } else if (type == PX_SENS_SUBTREECOM) {
    PXK_GET(3, pos, D, subtree_com, 3 * objid);
    PXK_PUT(3, D, sensordata, oa, pos);
  } else if (type == PX_SENS_INSIDESITE) {
    pxk_smObjectFrame(PX_MDARGC objtype, objid, pos, mat);
    // a massless body with mass below it (a flex parent): its subtree com
    if (objtype == PX_OBJ_BODY && objid > 0 && M(body_mass, objid) < PXK_MINVAL &&
        M(body_subtreemass, objid) >= PXK_MINVAL) {
      PXK_GET(3, pos, D, subtree_com, 3 * objid);
    }
    D(sensordata, oa) = PX_TOREAL(pxk_snInsideSite(PX_MDARGC refid, pos));
  }
#ifndef PXK_SN_NOGEOMDIST
  else if (type == PX_SENS_GEOMDIST || type == PX_SENS_GEOMNORMAL || type == PX_SENS_GEOMFROMTO) {
    pxk_snGeomDist(PX_MDARGC i, oa);
  }
#endif
  else if (type == PX_SENS_E_POTENTIAL) {
    D(sensordata, oa) = D(energy, 0);
  } else if (type == PX_SENS_E_KINETIC) {
    D(sensordata, oa) = D(energy, 1);
  } else if (type == PX_SENS_CLOCK) {
    D(sensordata, oa) = time;
  }
#ifdef PXK_SN_EFC
  else if (type == PX_SENS_JOINTLIMITPOS || type == PX_SENS_TENDONLIMITPOS) {
    int ct = type == PX_SENS_JOINTLIMITPOS ? PXK_CNSTR_LIMIT_JOINT : PXK_CNSTR_LIMIT_TENDON;
    int j = pxk_snLimitRow(PX_MDARGC ct, objid);
    PXR v = PX_R(0.0);
    if (j >= 0) v = PXK_E(efc_pos, j) - PXK_E(efc_margin, j);
    D(sensordata, oa) = v;
  }
#endif
  else if (type == PX_SENS_RANGEFINDER) {
    pxk_snRangefinder(PX_MDARGC i, oa);
  }
}

// sensor i of the stage: its reading (zero for user sensors), then its cutoff
#define PXK_SN_COMPUTE(i, fn)                           \
  if (M(sensor_type, i) == PX_SENS_USER) {              \
    for (int k_ = 0; k_ < M(sensor_dim, i); k_++)       \
      D(sensordata, M(sensor_adr, i) + k_) = PX_R(0.0); \
  } else {                                              \
    fn;                                                 \
  }                                                     \
  pxk_snCutoff(PX_MDARGC i)
#ifdef PXK_SN_FROMHISTORY
// a sensor read from its history buffer (delay, interval) is neither computed nor cut
#define PXK_SN_ONE(i, fn)       \
  if (!PXK_SN_FROMHISTORY(i)) { \
    PXK_SN_COMPUTE(i, fn);      \
  }
#else
#define PXK_SN_ONE(i, fn) PXK_SN_COMPUTE(i, fn)
#endif

// 1 for the geom distance sensors (run on lane 0: they share the collision scratch; where
// PXK_SN_NOGEOMDIST leaves them out, a pass of their own computes them: pxk_sensorsGeomDist of
// csrc/kern/sensor_history.h)
PX_FN int pxk_snSerial(PX_MDC int i) {
  int t = M(sensor_type, i);
  return (t == PX_SENS_GEOMDIST || t == PX_SENS_GEOMNORMAL || t == PX_SENS_GEOMFROMTO) ? 1 : 0;
}

// mj_sensorPos: the position-stage sensors (energy[0] and energy[1] as pxk_sensorNeeds asked)
PX_FN void pxk_sensorPos(PX_MDC PX_REAL time) {
  if ((MOPT(disableflags) & PX_DSBL_SENSOR) != 0) return;
  for (int i = PX_LANE; i < MS(nsensor); i += PX_NLANE) {
    if (M(sensor_needstage, i) != PX_STAGE_POS || pxk_snSerial(PX_MDARGC i) == 1) continue;
    PXK_SN_ONE(i, pxk_snPos(PX_MDARGC i, time));
  }
#ifndef PXK_SN_NOGEOMDIST
  if (PX_LANE == 0) {
    for (int i = 0; i < MS(nsensor); i++) {
      if (M(sensor_needstage, i) != PX_STAGE_POS || pxk_snSerial(PX_MDARGC i) == 0) continue;
      PXK_SN_ONE(i, pxk_snPos(PX_MDARGC i, time));
    }
  }
#endif
  PX_SYNC();
}

//---------------------------------- velocity stage ------------------------------------------------

// the reading of velocity-stage sensor i (not user) into sensordata
PX_FN void pxk_snVel(PX_MDC int i) {
  int type = M(sensor_type, i);
  int objtype = M(sensor_objtype, i);
  int objid = M(sensor_objid, i);
  int reftype = M(sensor_reftype, i);
  int refid = M(sensor_refid, i);
  int oa = M(sensor_adr, i);
  PXR xvel[6];
  PXR rvel[6];
  PXR rel[6];
  PXR pos[3];
  PXR mat[9];
  PXR rpos[3];
  PXR rmat[9];
  PXR a[3];
  PXR b[3];
  PXR c[3];
  if (type == PX_SENS_VELOCIMETER || type == PX_SENS_GYRO) {
    pxk_objectVelocity(PX_MDARGC xvel, PX_OBJ_SITE, objid, 1);
    int o = type == PX_SENS_VELOCIMETER ? 3 : 0;
    for (int k = 0; k < 3; k++) D(sensordata, oa + k) = xvel[o + k];
  } else if (type == PX_SENS_JOINTVEL) {
    D(sensordata, oa) = D(qvel, M(jnt_dofadr, objid));
  } else if (type == PX_SENS_TENDONVEL) {
    D(sensordata, oa) = D(ten_velocity, objid);
  } else if (type == PX_SENS_ACTUATORVEL) {
    PXK_SN_COPYOUT(actuator_velocity, M(actuator_outadr, objid), oa, M(sensor_dim, i));
  } else if (type == PX_SENS_BALLANGVEL) {
    for (int k = 0; k < 3; k++) D(sensordata, oa + k) = D(qvel, M(jnt_dofadr, objid) + k);
  } else if (type == PX_SENS_FRAMELINVEL || type == PX_SENS_FRAMEANGVEL) {
    pxk_objectVelocity(PX_MDARGC xvel, objtype, objid, 0);
    if (refid > -1) {
      pxk_smObjectFrame(PX_MDARGC objtype, objid, pos, mat);
      pxk_smObjectFrame(PX_MDARGC reftype, refid, rpos, rmat);
      pxk_objectVelocity(PX_MDARGC rvel, reftype, refid, 0);
      for (int k = 0; k < 6; k++) rel[k] = xvel[k] - rvel[k];
      for (int k = 0; k < 3; k++) {
        a[k] = pos[k] - rpos[k];
        b[k] = rvel[k];
      }
      pxk_cross(c, a, b);
      for (int k = 0; k < 3; k++) rel[3 + k] += c[k];
      for (int k = 0; k < 3; k++) a[k] = rel[k];
      pxk_mulMatTVec3(c, rmat, a);
      for (int k = 0; k < 3; k++) {
        xvel[k] = c[k];
        a[k] = rel[3 + k];
      }
      pxk_mulMatTVec3(c, rmat, a);
      for (int k = 0; k < 3; k++) xvel[3 + k] = c[k];
    }
    int o = type == PX_SENS_FRAMELINVEL ? 3 : 0;
    for (int k = 0; k < 3; k++) D(sensordata, oa + k) = xvel[o + k];
  } else if (type == PX_SENS_SUBTREELINVEL) {
    for (int k = 0; k < 3; k++) D(sensordata, oa + k) = D(subtree_linvel, 3 * objid + k);
  } else if (type == PX_SENS_SUBTREEANGMOM) {
    for (int k = 0; k < 3; k++) D(sensordata, oa + k) = D(subtree_angmom, 3 * objid + k);
  }
#ifdef PXK_SN_EFC
  else if (type == PX_SENS_JOINTLIMITVEL || type == PX_SENS_TENDONLIMITVEL) {
    int ct = type == PX_SENS_JOINTLIMITVEL ? PXK_CNSTR_LIMIT_JOINT : PXK_CNSTR_LIMIT_TENDON;
    int j = pxk_snLimitRow(PX_MDARGC ct, objid);
    D(sensordata, oa) = j >= 0 ? PXK_E(efc_vel, j) : PX_R(0.0);
  }
#endif
}

// mj_sensorVel: the velocity-stage sensors (subtree velocities computed if pxk_sensorNeeds
// asked)
PX_FN void pxk_sensorVel(PX_MD) {
  if ((MOPT(disableflags) & PX_DSBL_SENSOR) != 0) return;
  for (int i = PX_LANE; i < MS(nsensor); i += PX_NLANE) {
    if (M(sensor_needstage, i) != PX_STAGE_VEL) continue;
    PXK_SN_ONE(i, pxk_snVel(PX_MDARGC i));
  }
  PX_SYNC();
}

//---------------------------------- acceleration stage --------------------------------------------

#ifdef PXK_SN_EFC
// the normal force of contact j (mj_contactForce's first element: the pyramid decoded, less the
// adhesion)
PX_FN PX_REAL pxk_snContactNormalForce(PX_MDC int j) {
  int adr = PXK_CON(j).efc_address;
  int dim = PXK_CON(j).dim;
  PXR n = PXK_E(efc_force, adr);
  if (MOPT(cone) == PX_CONE_PYRAMIDAL && dim > 1) {
    n = PX_R(0.0);
    for (int k = 0; k < 2 * (dim - 1); k++) n += PXK_E(efc_force, adr + k);
  }
  n -= PXK_CON(j).adhesion;
  return n;
}

// the touch sensor at site s: the normal forces of the active contacts of the site's body whose
// normal ray from the contact point meets the site's volume (mju_rayGeom on the site's shape)
PX_FN PX_REAL pxk_snTouch(PX_MDC int s) {
  int body = M(site_bodyid, s);
  PXR sum = PX_R(0.0);
  if (PXK_SN_NOROWS == 1) return sum;  // no contact storage: no contact
  for (int j = 0; j < PXK_NCON; j++) {
    int b0 = M(geom_bodyid, PXK_CON(j).geom[0]);
    int b1 = M(geom_bodyid, PXK_CON(j).geom[1]);
    if (PXK_CON(j).efc_address < 0 || (body != b0 && body != b1)) continue;
    PXR f0 = pxk_snContactNormalForce(PX_MDARGC j);
    if (f0 <= PX_R(0.0)) continue;
    PXR ray[3];
    for (int k = 0; k < 3; k++) ray[k] = PXK_CON(j).frame[k] * f0;
    pxk_normalize3(ray);
    if (body == b1) {
      for (int k = 0; k < 3; k++) ray[k] = ray[k] * PX_R(-1.0);
    }
    PXR pnt[3];
    for (int k = 0; k < 3; k++) pnt[k] = PXK_CON(j).pos[k];
    PXR pos[3];
    PXR mat[9];
    PXR size[3];
    PXR nrm[3];
    PXK_GET(3, pos, D, site_xpos, 3 * s);
    PXK_GET(9, mat, D, site_xmat, 9 * s);
    PXK_GET(3, size, M, site_size, 3 * s);
    if (pxk_rayGeom(pos, mat, size, pnt, ray, M(site_type, s), nrm) >= PX_R(0.0)) sum += f0;
  }
  return sum;
}
#endif

// the reading of acceleration-stage sensor i (not user) into sensordata
PX_FN void pxk_snAcc(PX_MDC int i) {
  int type = M(sensor_type, i);
  int objtype = M(sensor_objtype, i);
  int objid = M(sensor_objid, i);
  int oa = M(sensor_adr, i);
  PXR tmp[6];
  PXR frc[6];
  PXR dif[3];
  PXR f[3];
  PXR c[3];
  PXR mat[9];
  PXR t[3];
  if (type == PX_SENS_ACCELEROMETER) {
    pxk_objectAcceleration(PX_MDARGC tmp, PX_OBJ_SITE, objid, 1);
    for (int k = 0; k < 3; k++) D(sensordata, oa + k) = tmp[3 + k];
  } else if (type == PX_SENS_FORCE || type == PX_SENS_TORQUE) {
    // the interaction force of the site's body with its parent, moved to the site, site frame
    int body = M(site_bodyid, objid);
    int root = M(body_rootid, body);
    PXK_GET(6, frc, D, cfrc_int, 6 * body);
    for (int k = 0; k < 3; k++) {
      dif[k] = D(site_xpos, 3 * objid + k) - D(subtree_com, 3 * root + k);
      f[k] = frc[3 + k];
    }
    pxk_cross(c, dif, f);
    PXK_GET(9, mat, D, site_xmat, 9 * objid);
    if (type == PX_SENS_FORCE) {
      pxk_mulMatTVec3(t, mat, f);
    } else {
      for (int k = 0; k < 3; k++) f[k] = frc[k] - c[k];
      pxk_mulMatTVec3(t, mat, f);
    }
    PXK_PUT(3, D, sensordata, oa, t);
  } else if (type == PX_SENS_ACTUATORFRC) {
    PXK_SN_COPYOUT(actuator_force, M(actuator_outadr, objid), oa, M(sensor_dim, i));
  } else if (type == PX_SENS_JOINTACTFRC) {
    D(sensordata, oa) = D(qfrc_actuator, M(jnt_dofadr, objid));
  } else if (type == PX_SENS_TENDONACTFRC) {
    PXR sum = PX_ZERO;
    for (int j = 0; j < MS(nu); j++) {
      if (M(actuator_trntype, j) == PX_TRN_TENDON && M(actuator_trnid, 2 * j) == objid) {
        sum += D(actuator_force, M(actuator_outadr, j));
      }
    }
    D(sensordata, oa) = sum;
  } else if (type == PX_SENS_FRAMELINACC || type == PX_SENS_FRAMEANGACC) {
    pxk_objectAcceleration(PX_MDARGC tmp, objtype, objid, 0);
    int o = type == PX_SENS_FRAMELINACC ? 3 : 0;
    for (int k = 0; k < 3; k++) D(sensordata, oa + k) = tmp[o + k];
  }
#ifndef PXK_SN_NOTACTILE
  else if (type == PX_SENS_TACTILE) {
    pxk_snTactile(PX_MDARGC i);
  }
#endif
#ifdef PXK_SN_EFC
  else if (type == PX_SENS_JOINTLIMITFRC || type == PX_SENS_TENDONLIMITFRC) {
    int ct = type == PX_SENS_JOINTLIMITFRC ? PXK_CNSTR_LIMIT_JOINT : PXK_CNSTR_LIMIT_TENDON;
    int j = pxk_snLimitRow(PX_MDARGC ct, objid);
    D(sensordata, oa) = j >= 0 ? PXK_E(efc_force, j) : PX_R(0.0);
  } else if (type == PX_SENS_CONTACT) {
    pxk_snContact(PX_MDARGC i, oa);
  } else if (type == PX_SENS_TOUCH) {
    D(sensordata, oa) = pxk_snTouch(PX_MDARGC objid);
  }
#endif
}

// mj_sensorAcc: the acceleration-stage sensors (after mj_rnePostConstraint if pxk_sensorNeeds
// asked)
PX_FN void pxk_sensorAcc(PX_MD) {
  if ((MOPT(disableflags) & PX_DSBL_SENSOR) != 0) return;
  for (int i = PX_LANE; i < MS(nsensor); i += PX_NLANE) {
    if (M(sensor_needstage, i) != PX_STAGE_ACC) continue;
    PXK_SN_ONE(i, pxk_snAcc(PX_MDARGC i));
  }
  PX_SYNC();
}

//---------------------------------- the three stages ----------------------------------------------

// mj_rnePostConstraint as the acceleration stage needs it: the executor may define
// PXK_SN_RNEPOST_RUN() before this header (the CPU: px_rnePostConstraintRun); else the version
// with the constraint forces where PXK_SN_EFC binds the rows (shaders/sensorfull.comp), the
// constraint-free one elsewhere (shaders/sensor.comp: the executor dispatches it only for models
// without constraint rows or without sensors that need it)
#ifndef PXK_SN_RNEPOST_RUN
#ifdef PXK_SN_EFC
#define PXK_SN_RNEPOST_RUN() pxk_rnePostConstraintEfc(PX_MDARG)
#else
#define PXK_SN_RNEPOST_RUN() pxk_rnePostConstraint(PX_MDARG)
#endif
#endif

// the sensors of a forward pass (after its stages): the position stage with MuJoCo's energy
// bookkeeping around it, the velocity stage after mj_subtreeVel, the acceleration stage after
// mj_rnePostConstraint, each lazy quantity only where pxk_sensorNeeds asks for it. time is the
// clock reading; ke_in is energy[1] as it was when the forward pass started (with the energy
// flag, an e_kinetic sensor reads it: MuJoCo's kinetic-energy flag is still set from the
// previous pass). Without the energy flag, energy[1] ends zero unless an e_potential sensor kept
// mj_forward from clearing it (then the e_kinetic sensor's value or ke_in).
PX_FN void pxk_sensors(PX_MDC PX_REAL time, PX_REAL ke_in) {
  if (MS(nsensor) == 0 || (MOPT(disableflags) & PX_DSBL_SENSOR) != 0) return;
  int energy = (MOPT(enableflags) & PX_ENBL_ENERGY) != 0 ? 1 : 0;
  int pot = pxk_sensorNeeds(PX_MDARGC PXK_SN_ENERGYPOS);
  int kin = pxk_sensorNeeds(PX_MDARGC PXK_SN_ENERGYVEL);
#ifdef PXK_SN_MARK
  if (pot == 1) PXK_SN_MARK(PXK_SN_ENERGYPOS);
#endif

  // position stage: mj_forward clears its potential-energy flag before it, so an e_potential
  // sensor computes mj_energyPos (the value the energy flag computes); an e_kinetic sensor
  // computes mj_energyVel without the energy flag and reads ke_in with it
  PXR ke = D(energy, 1);  // with the energy flag: this pass's kinetic energy
  PX_SYNC();              // every lane read it before lane 0 changes it
  if (pot == 1 && energy == 0) pxk_energyPos(PX_MDARG);
  if (kin == 1) {
    if (energy == 1) {
      if (PX_LANE == 0) D(energy, 1) = ke_in;
    } else {
      pxk_energyVel(PX_MDARG);
    }
  }
  PX_SYNC();
  pxk_sensorPos(PX_MDARGC time);
  if (PX_LANE == 0) {
    if (energy == 1) {
      D(energy, 1) = ke;
    } else if (pot == 1) {
      if (kin == 0) D(energy, 1) = ke_in;
    } else {
      D(energy, 1) = PX_R(0.0);
    }
  }

  // velocity stage
  if (pxk_sensorNeeds(PX_MDARGC PXK_SN_SUBTREEVEL) == 1) {
    pxk_subtreeVel(PX_MDARG);
#ifdef PXK_SN_MARK
    PXK_SN_MARK(PXK_SN_SUBTREEVEL);
#endif
  }
  PX_SYNC();
  pxk_sensorVel(PX_MDARG);

  // acceleration stage
  if (pxk_sensorNeeds(PX_MDARGC PXK_SN_RNEPOST) == 1) {
    PXK_SN_RNEPOST_RUN();
#ifdef PXK_SN_MARK
    PXK_SN_MARK(PXK_SN_RNEPOST);
#endif
  }
  PX_SYNC();
  pxk_sensorAcc(PX_MDARG);
}

#endif  // PX_KERN_SENSOR_H_
