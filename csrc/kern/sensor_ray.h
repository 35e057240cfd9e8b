// SPDX-License-Identifier: Apache-2.0
// The rangefinder and contact sensors of MuJoCo 3.12 (engine_sensor.c) in the kernel dialect.
// Site rangefinders are always compiled (ray.h); camera rangefinders where PXK_SN_CAMERA is
// defined and contact sensors where PXK_SN_EFC is (sensor.h: the CPU, and the GPU's
// shaders/sensorfull.comp).
//
// rangefinder (position stage), data fields in sensor_intprm[0] (bits: dist, dir, origin, point,
// normal, depth), written per ray in that order:
//   - on a site: one ray along the site's z axis from its origin (mj_ray, the site's body
//     excluded, every group, static geoms included);
//   - on a camera: one ray per pixel, rows then columns, through the pixel's centre
//     (mju_camIntrinsics, mju_camPixelRay); orthographic cameras cast parallel rays from the
//     image plane with mj_ray, perspective ones cast from the camera's origin with mj_multiRay,
//     whose culling is reproduced: a body whose tree's root box, as a sphere around its inertial
//     position (centre offset unrotated, as MuJoCo adds it), the ray misses is skipped, and so
//     is a geom outside the azimuth / elevation bounds of its box's corners seen from the
//     camera, widened by atan(largest half size / distance). The culling can change results (it
//     is not exact: a geom outside its collidable siblings' root box, the bounds of a box seen
//     near the pole), so it is kept; it only removes geoms, so it is tested where it is cheaper
//     (before a mesh or height-field cast, after a primitive's hit). The root box is computed
//     per ray from the model as MuJoCo's compiler makes it (no tree storage, so that every lane
//     and executor can run it). The camera's body is excluded. depth is the hit's distance along
//     the camera's -z axis.
// contact (acceleration stage): the contacts matching the sensor's objects (objtype / objid and
//   reftype / refid: none, a site's volume holding the contact point, a geom, a body, a subtree),
//   the normal flipped to point from the first object to the second; data fields in
//   sensor_intprm[0] (found, force, torque, dist, pos, normal, tangent), reduce in
//   sensor_intprm[1] (none: the first matches in contact order; mindist, maxforce: the smallest
//   distances or largest forces, ordered, ties by contact index; netforce: one slot, the total
//   wrench about the force-weighted centroid), sensor_dim / slot size slots.
#ifndef PX_KERN_SENSOR_RAY_H_
#define PX_KERN_SENSOR_RAY_H_

#include "kern/ray.h"

#define PXK_SR_PI PX_R(3.14159265358979323846)
#define PXK_SR_MAXVAL PX_R(1E10)

//---------------------------------- rangefinder ---------------------------------------------------

// the fields of one ray (fill_raydata) at sensordata[oa..]; returns the next free index. cam:
// 1 for a camera (depth along its -z axis camz from campos), 0 for a site (depth = dist)
PX_FN int pxk_srFill(PX_MDC int oa, int spec, PX_REAL dist, PX_IN(PX_REAL, origin, 3),
                     PX_IN(PX_REAL, dir, 3), PX_IN(PX_REAL, normal, 3), int cam,
                     PX_IN(PX_REAL, campos, 3), PX_IN(PX_REAL, camz, 3)) {
  int o = oa;
  int hit = dist >= PX_R(0.0) ? 1 : 0;
  if ((spec & 1) != 0) {
    D(sensordata, o) = dist;
    o += 1;
  }
  if ((spec & 2) != 0) {
    for (int k = 0; k < 3; k++) D(sensordata, o + k) = hit == 1 ? dir[k] : PX_R(0.0);
    o += 3;
  }
  if ((spec & 4) != 0) {
    for (int k = 0; k < 3; k++) D(sensordata, o + k) = origin[k];
    o += 3;
  }
  PXR point[3];
  pxk_rayZero3(point);
  if (((spec & 8) != 0 || (spec & 32) != 0) && hit == 1) {
    pxk_rayAddScl3(point, origin, dir, dist);
  }
  if ((spec & 8) != 0) {
    for (int k = 0; k < 3; k++) D(sensordata, o + k) = point[k];
    o += 3;
  }
  if ((spec & 16) != 0) {
    for (int k = 0; k < 3; k++) D(sensordata, o + k) = hit == 1 ? normal[k] : PX_R(0.0);
    o += 3;
  }
  if ((spec & 32) != 0) {
    PXR depth = PX_R(-1.0);
    if (hit == 1) {
      if (cam == 1) {
        PXR delta[3];
        pxk_sub3(delta, point, campos);
        PXR dp = pxk_dot3(delta, camz);
        depth = -dp;
      } else {
        depth = dist;
      }
    }
    D(sensordata, o) = depth;
    o += 1;
  }
  return o;
}

#ifdef PXK_SN_CAMERA
// azimuth and elevation of a direction (longitude, latitude)
PX_FN PX_REAL pxk_srAzimuth(PX_IN(PX_REAL, v, 3)) {
  return pxk_atan2(v[1], v[0]);
}
PX_FN PX_REAL pxk_srElevation(PX_IN(PX_REAL, v, 3)) {
  PXR r = PX_SQRT(v[0] * v[0] + v[1] * v[1]);
  return pxk_atan2(r, v[2]);
}

// |a - b| (mju_dist3)
PX_FN PX_REAL pxk_srDist3(PX_IN(PX_REAL, a, 3), PX_IN(PX_REAL, b, 3)) {
  PXR dif[3];
  pxk_sub3(dif, a, b);
  PXR r = PX_SQRT(dif[0] * dif[0] + dif[1] * dif[1] + dif[2] * dif[2]);
  return r;
}

// the azimuth / elevation bounds of geom g seen from pnt (mju_multiRayPrepare for one geom of a
// body with a tree): ba = (azmin, elmin, azmax, elmax); returns 1 when the geom is beyond the
// cutoff (eliminated)
PX_FN int pxk_srBounds(PX_MDC int g, PX_IN(PX_REAL, pnt, 3), PX_OUT(PX_REAL, ba, 4)) {
  PXR xpos[3];
  PXR xmat[9];
  PXR aabb[6];
  pxk_rayGeomPose(PX_MDARGC g, xpos, xmat);
  for (int k = 0; k < 6; k++) aabb[k] = M(geom_aabb, 6 * g + k);
  PXR dc = pxk_srDist3(xpos, pnt);
  PXR lim = PXK_SR_MAXVAL + M(geom_rbound, g);
  if (dc > lim) return 1;

  // the source inside the box: no culling
  PXR dif[3];
  PXR loc[3];
  pxk_sub3(dif, pnt, xpos);
  pxk_mulMatTVec3(loc, xmat, dif);
  int inside = 1;
  for (int j = 0; j < 3; j++) {
    PXR l = loc[j] - aabb[j];
    PXR al = PX_ABS(l);
    if (al > aabb[3 + j]) inside = 0;
  }
  ba[0] = -PXK_SR_PI;
  ba[1] = PX_R(0.0);
  ba[2] = PXK_SR_PI;
  ba[3] = PXK_SR_PI;
  if (inside == 1) return 0;

  PXR bb[4];
  bb[0] = PXK_SR_MAXVAL;
  bb[1] = PXK_SR_MAXVAL;
  bb[2] = -PXK_SR_MAXVAL;
  bb[3] = -PXK_SR_MAXVAL;
  for (int v = 0; v < 8; v++) {
    PXR vert[3];
    PXR box[3];
    PXR rel[3];
    for (int j = 0; j < 3; j++) {
      int up = (v >> j) & 1;
      PXR lo = aabb[j] - aabb[3 + j];
      PXR hi = aabb[j] + aabb[3 + j];
      vert[j] = up == 1 ? hi : lo;
    }
    pxk_mulMatVec3(box, xmat, vert);
    for (int j = 0; j < 3; j++) box[j] = box[j] + xpos[j];
    pxk_sub3(rel, box, pnt);
    PXR az = pxk_srAzimuth(rel);
    PXR el = pxk_srElevation(rel);
    bb[0] = bb[0] <= az ? bb[0] : az;
    bb[1] = bb[1] <= el ? bb[1] : el;
    bb[2] = bb[2] >= az ? bb[2] : az;
    bb[3] = bb[3] >= el ? bb[3] : el;
  }

  // widened by the angle of the largest half size at the centre's distance
  PXR m45 = aabb[4] >= aabb[5] ? aabb[4] : aabb[5];
  PXR hsz = aabb[3] >= m45 ? aabb[3] : m45;
  PXR dist = pxk_srDist3(pnt, xpos);
  if (dist > PXK_MINVAL) {
    PXR margin = pxk_atan2(hsz, dist);
    bb[0] = bb[0] - margin;
    bb[1] = bb[1] - margin;
    bb[2] = bb[2] + margin;
    bb[3] = bb[3] + margin;
  }
  PXR waz = bb[2] - bb[0];
  PXR wel = bb[3] - bb[1];
  if (waz > PXK_SR_PI || wel > PXK_SR_PI) return 0;
  for (int k = 0; k < 4; k++) ba[k] = bb[k];
  return 0;
}

// mjEPS and the compiler's DBL_MAX start of a box (pxk_bvhBuild of collide_broad.h)
#define PXK_SR_EPS PX_R(1E-14)
#ifdef PX_FP32
#define PXK_SR_DBLMAX PX_R(3.4028234663852886E+38)
#else
#define PXK_SR_DBLMAX PX_R(1.7976931348623157E+308)
#endif

// vec rotated by quat, the compiler's way (mjuu_rotVecQuat: a zero vector stays zero)
PX_FN void pxk_srRotUser(PX_OUT(PX_REAL, res, 3), PX_IN(PX_REAL, vec, 3), PX_IN(PX_REAL, quat, 4)) {
  if (vec[0] == PX_R(0.0) && vec[1] == PX_R(0.0) && vec[2] == PX_R(0.0)) {
    res[0] = PX_ZERO;
    res[1] = PX_ZERO;
    res[2] = PX_ZERO;
  } else {
    pxk_rotVecQuat(res, vec, quat);
  }
}

// mju_singleRay's bounding-sphere test of body b: 0 when the body has no tree (no collidable
// geom), 1 when the ray meets the sphere around its tree's root box, 2 when it misses it. The root
// box is the first node of the compiler's tree (pxk_bvhBuild: the corners of the collidable geoms'
// boxes in the inertial frame, flat sides widened by mjEPS), in the same operations.
PX_FN int pxk_srBodySphere(PX_MDC int b, PX_IN(PX_REAL, pnt, 3), PX_IN(PX_REAL, vec, 3)) {
  PXR ipos[3];
  PXR qinv[4];
  for (int k = 0; k < 3; k++) ipos[k] = M(body_ipos, 3 * b + k);
  qinv[0] = M(body_iquat, 4 * b);
  for (int k = 1; k < 4; k++) qinv[k] = -M(body_iquat, 4 * b + k);
  PXR am[6];
  for (int k = 0; k < 3; k++) {
    am[k] = PXK_SR_DBLMAX;
    am[k + 3] = -PXK_SR_DBLMAX;
  }
  int ne = 0;
  int adr = M(body_geomadr, b);
  for (int g = adr; g < adr + M(body_geomnum, b); g++) {
    if (M(geom_contype, g) == 0 && M(geom_conaffinity, g) == 0) continue;
    ne = ne + 1;
    PXR lo[3];
    PXR hi[3];
    PXR gq[4];
    PXR off[3];
    for (int k = 0; k < 3; k++) {
      lo[k] = M(geom_aabb, 6 * g + k) - M(geom_aabb, 6 * g + 3 + k);
      hi[k] = M(geom_aabb, 6 * g + k) + M(geom_aabb, 6 * g + 3 + k);
      off[k] = M(geom_pos, 3 * g + k) - ipos[k];
    }
    for (int k = 0; k < 4; k++) gq[k] = M(geom_quat, 4 * g + k);
    for (int v = 0; v < 8; v++) {
      PXR vert[3];
      vert[0] = (v & 1) != 0 ? hi[0] : lo[0];
      vert[1] = (v & 2) != 0 ? hi[1] : lo[1];
      vert[2] = (v & 4) != 0 ? hi[2] : lo[2];
      PXR box[3];
      pxk_srRotUser(box, vert, gq);
      for (int k = 0; k < 3; k++) box[k] = box[k] + off[k];
      PXR w[3];
      pxk_srRotUser(w, box, qinv);
      for (int k = 0; k < 3; k++) {
        am[k] = w[k] < am[k] ? w[k] : am[k];
        am[k + 3] = am[k + 3] < w[k] ? w[k] : am[k + 3];
      }
    }
  }
  if (ne == 0) return 0;
  for (int k = 0; k < 3; k++) {
    PXR dk = am[k] - am[k + 3];
    PXR adk = PX_ABS(dk);
    if (adk < PXK_SR_EPS) {
      am[k] = am[k] - PXK_SR_EPS;
      am[k + 3] = am[k + 3] + PXK_SR_EPS;
    }
  }
  // the sphere around the root box, centred at its offset added to the inertial position
  PXR center[3];
  PXR hsz[3];
  for (int k = 0; k < 3; k++) {
    PXR sc = am[k + 3] + am[k];
    PXR sh = am[k + 3] - am[k];
    PXR c = sc / PX_R(2.0);
    hsz[k] = sh / PX_R(2.0);
    center[k] = c + D(xipos, 3 * b + k);
  }
  PXR ssz = hsz[0] * hsz[0] + hsz[1] * hsz[1] + hsz[2] * hsz[2];
  PXR nb[3];
  PXR xb = pxk_raySphere(center, ssz, pnt, vec, nb);
  return xb < PX_R(0.0) ? 2 : 1;
}

// 1 if geom g (of a body with a tree) is outside the angular bounds of mju_multiRayPrepare seen
// from pnt for a ray at (azimuth, elevation)
PX_FN int pxk_srGeomCulled(PX_MDC int g, PX_IN(PX_REAL, pnt, 3), PX_REAL azimuth,
                           PX_REAL elevation) {
  PXR ba[4];
  if (pxk_srBounds(PX_MDARGC g, pnt, ba) != 0) return 1;
  if (elevation < ba[1] || elevation > ba[3]) return 1;
  PXR s = ba[0] + ba[2];
  PXR azc = s * PX_R(0.5);
  PXR w = ba[2] - ba[0];
  PXR azh = w * PX_R(0.5);
  PXR azd = azimuth - azc;
  PXR twopi = PX_R(2.0) * PXK_SR_PI;
  if (azd > PXK_SR_PI) {
    azd = azd - twopi;
  } else if (azd < -PXK_SR_PI) {
    azd = azd + twopi;
  }
  PXR aazd = PX_ABS(azd);
  return aazd > azh ? 1 : 0;
}

// one ray of a camera from pnt (all groups, static geoms included, body bodyexclude excluded):
// with cull, mj_multiRay's (mju_singleRay with its culling), else mj_ray's (pxk_ray: the same
// geoms in the same order, bodies' geoms being contiguous; one cast site for both keeps the
// pipeline smaller). The distance, geomid[0] and normal as pxk_ray
PX_FN PX_REAL pxk_srCamRay(PX_MDC PX_IN(PX_REAL, pnt, 3), PX_IN(PX_REAL, vec, 3), int bodyexclude,
                           int cull, PX_OUT(int, geomid, 1), PX_OUT(PX_REAL, normal, 3)) {
  geomid[0] = -1;
  pxk_rayZero3(normal);
  if (cull == 1) {
    PXR vv = pxk_dot3(vec, vec);
    if (vv < PXK_MINVAL) return PX_R(-1.0);
  } else {
    PXR len = PX_SQRT(vec[0] * vec[0] + vec[1] * vec[1] + vec[2] * vec[2]);
    if (!(len >= PXK_MINVAL)) return PX_R(-1.0);
  }
  int grp[6];
  for (int k = 0; k < 6; k++) grp[k] = 1;
  PXR azimuth = pxk_srAzimuth(vec);
  PXR elevation = pxk_srElevation(vec);
  PXR dist = PX_R(-1.0);
  for (int b = 0; b < MS(nbody); b++) {
    // the body's culling, computed when first needed: -1 not yet, else pxk_srBodySphere's (0
    // without culling)
    int bc = cull == 1 ? -1 : 0;
    int adr = M(body_geomadr, b);
    for (int g = adr; g < adr + M(body_geomnum, b); g++) {
      if (pxk_rayEliminate(PX_MDARGC g, grp, 0, 1, bodyexclude) != 0) continue;
      int type = M(geom_type, g);
      if (type == PX_GEOM_SDF) continue;
      // meshes and height fields: culled before their (long) cast
      int heavy = (type == PX_GEOM_MESH || type == PX_GEOM_HFIELD) ? 1 : 0;
      if (heavy == 1) {
        if (bc == -1) bc = pxk_srBodySphere(PX_MDARGC b, pnt, vec);
        if (bc == 2) break;
        if (bc == 1 && pxk_srGeomCulled(PX_MDARGC g, pnt, azimuth, elevation) == 1) continue;
      }
      PXR nrm[3];
      PXR nd = PX_R(-1.0);
      if (type == PX_GEOM_MESH) {
        nd = pxk_rayMesh(PX_MDARGC g, pnt, vec, nrm);
      } else if (type == PX_GEOM_HFIELD) {
        nd = pxk_rayHfield(PX_MDARGC g, pnt, vec, nrm);
      } else {
        PXR pos[3];
        PXR mat[9];
        PXR size[3];
        pxk_rayGeomPose(PX_MDARGC g, pos, mat);
        for (int k = 0; k < 3; k++) size[k] = M(geom_size, 3 * g + k);
        nd = pxk_rayGeom(pos, mat, size, pnt, vec, type, nrm);
      }
      int take = (nd >= PX_R(0.0) && (nd < dist || dist < PX_R(0.0))) ? 1 : 0;
      if (take == 0) continue;

      // a primitive's hit that would count: culled after the cast (the same result)
      if (heavy == 0) {
        if (bc == -1) bc = pxk_srBodySphere(PX_MDARGC b, pnt, vec);
        if (bc == 2) break;
        if (bc == 1 && pxk_srGeomCulled(PX_MDARGC g, pnt, azimuth, elevation) == 1) continue;
      }
      dist = nd;
      geomid[0] = g;
      pxk_copy3(normal, nrm);
    }
  }
  return dist;
}

#endif  // PXK_SN_CAMERA

// rangefinder sensor i into sensordata[oa..] (cameras where PXK_SN_CAMERA is defined)
PX_FN void pxk_snRangefinder(PX_MDC int i, int oa) {
  int spec = M(sensor_intprm, 3 * i);
  int objid = M(sensor_objid, i);
  int grp[6];
  for (int k = 0; k < 6; k++) grp[k] = 1;
  int gid[1];
  PXR nrm[3];
  PXR origin[3];
  PXR dir[3];
  PXR campos[3];
  PXR camz[3];
  if (M(sensor_objtype, i) == PX_OBJ_SITE) {
    for (int k = 0; k < 3; k++) {
      origin[k] = D(site_xpos, 3 * objid + k);
      dir[k] = D(site_xmat, 9 * objid + 3 * k + 2);
    }
    PXR dist = pxk_ray(PX_MDARGC origin, dir, grp, 0, 1, M(site_bodyid, objid), gid, nrm);
    pxk_srFill(PX_MDARGC oa, spec, dist, origin, dir, nrm, 0, origin, dir);
    return;
  }
#ifdef PXK_SN_CAMERA

  // a camera: its intrinsics (mju_camIntrinsics)
  int c = objid;
  int width = M(cam_resolution, 2 * c);
  int height = M(cam_resolution, 2 * c + 1);
  int bodyexclude = M(cam_bodyid, c);
  int proj = M(cam_projection, c);
  PXR xmat[9];
  for (int k = 0; k < 3; k++) {
    campos[k] = D(cam_xpos, 3 * c + k);
    camz[k] = D(cam_xmat, 9 * c + 3 * k + 2);
  }
  for (int k = 0; k < 9; k++) xmat[k] = D(cam_xmat, 9 * c + k);
  PXR fw = PX_TOREAL(width);
  PXR fh = PX_TOREAL(height);
  PXR fx = fw / PX_R(2.0);
  PXR fy = fh / PX_R(2.0);
  PXR cx = fx;
  PXR cy = fy;
  if (proj == 0) {
    if (M(cam_sensorsize, 2 * c) != PXK_SNTOF(0) && M(cam_sensorsize, 2 * c + 1) != PXK_SNTOF(0)) {
      // float arithmetic, as MuJoCo's float arrays combine
      PXK_SNF f0 = M(cam_intrinsic, 4 * c) / M(cam_sensorsize, 2 * c) * PXK_SNTOF(width);
      PXK_SNF f1 = M(cam_intrinsic, 4 * c + 1) / M(cam_sensorsize, 2 * c + 1) * PXK_SNTOF(height);
      PXK_SNF f2 = M(cam_intrinsic, 4 * c + 2) / M(cam_sensorsize, 2 * c) * PXK_SNTOF(width);
      PXK_SNF f3 = M(cam_intrinsic, 4 * c + 3) / M(cam_sensorsize, 2 * c + 1) * PXK_SNTOF(height);
      fx = PX_TOREAL(f0);
      fy = PX_TOREAL(f1);
      cx = PX_TOREAL(f2);
      cy = PX_TOREAL(f3);
    } else {
      PXR a0 = M(cam_fovy, c) * PXK_SR_PI;
      PXR ang = a0 / PX_R(360.0);
      PXR t = pxk_tan(ang);
      PXR f = PX_R(0.5) / t;
      fx = f * fh;
      fy = fx;
    }
  }
  PXR extent = M(cam_fovy, c);

  int o = oa;
  for (int row = 0; row < height; row++) {
    for (int col = 0; col < width; col++) {
      // the pixel's ray (mju_camPixelRay)
      PXR fc = PX_TOREAL(col);
      PXR fr = PX_TOREAL(row);
      PXR pc = fc + PX_R(0.5);
      PXR px = pc - cx;
      PXR pr = fr + PX_R(0.5);
      PXR py = pr - cy;
      PXR npy = -py;
      if (proj == 0) {
        PXR dc[3];
        dc[0] = px / fx;
        dc[1] = npy / fy;
        dc[2] = PX_R(-1.0);
        pxk_mulMatVec3(dir, xmat, dc);
        pxk_normalize3(dir);
        for (int k = 0; k < 3; k++) origin[k] = campos[k];
      } else {
        for (int k = 0; k < 3; k++) dir[k] = -camz[k];
        PXR hext = extent / PX_R(2.0);
        PXR oc[3];
        PXR ow[3];
        PXR qx = px / fx;
        oc[0] = qx * hext;
        PXR qy = npy / fy;
        oc[1] = qy * hext;
        oc[2] = PX_ZERO;
        pxk_mulMatVec3(ow, xmat, oc);
        for (int k = 0; k < 3; k++) origin[k] = campos[k] + ow[k];
      }
      // perspective: mj_multiRay from the camera; orthographic: mj_ray from the image plane
      PXR dist = pxk_srCamRay(PX_MDARGC origin, dir, bodyexclude, proj == 0 ? 1 : 0, gid, nrm);
      o = pxk_srFill(PX_MDARGC o, spec, dist, origin, dir, nrm, 1, campos, camz);
    }
  }
#endif  // PXK_SN_CAMERA
}

//---------------------------------- contact -------------------------------------------------------
#ifdef PXK_SN_EFC

// mj_contactForce of contact j: the cone force in the contact frame (pyramid decoded), less the
// adhesion; zeros for a contact without constraint rows
PX_FN void pxk_srContactForce(PX_MDC int j, PX_OUT(PX_REAL, res, 6)) {
  for (int k = 0; k < 6; k++) res[k] = PX_R(0.0);
  int adr = PXK_CON(j).efc_address;
  if (adr < 0) return;
  int dim = PXK_CON(j).dim;
  if (MOPT(cone) == PX_CONE_PYRAMIDAL) {
    if (dim == 1) {
      res[0] = PXK_E(efc_force, adr);
    } else {
      PXR n = PX_R(0.0);
      for (int k = 0; k < 2 * (dim - 1); k++) n += PXK_E(efc_force, adr + k);
      res[0] = n;
      for (int k = 0; k < dim - 1; k++) {
        PXR dp = PXK_E(efc_force, adr + 2 * k) - PXK_E(efc_force, adr + 2 * k + 1);
        res[k + 1] = dp * PXK_CON(j).friction[k];
      }
    }
  } else {
    for (int k = 0; k < dim; k++) res[k] = PXK_E(efc_force, adr + k);
  }
  res[0] -= PXK_CON(j).adhesion;
}

// 1 if a contact side (body, geom) matches the sensor object (type, id) (checkMatch)
PX_FN int pxk_srCheckMatch(PX_MDC int body, int geom, int type, int id) {
  if (type == PX_OBJ_UNKNOWN || type == PX_OBJ_SITE) return 1;
  if (type == PX_OBJ_GEOM) return id == geom ? 1 : 0;
  if (type == PX_OBJ_BODY) return id == body ? 1 : 0;
  if (type == PX_OBJ_XBODY) {
    int b = body;
    while (b > id) b = M(body_parentid, b);
    return b == id ? 1 : 0;
  }
  return 0;
}

// contact j against the sensor's objects (matchContact): 0 no match, 1 match, -1 match with the
// normal flipped
PX_FN int pxk_srMatch(PX_MDC int j, int type1, int id1, int type2, int id2) {
  if (type1 == PX_OBJ_UNKNOWN && type2 == PX_OBJ_UNKNOWN) return 1;
  if (type1 == PX_OBJ_SITE) {
    PXR p[3];
    for (int k = 0; k < 3; k++) p[k] = PXK_CON(j).pos[k];
    if (pxk_snInsideSite(PX_MDARGC id1, p) == 0) return 0;
  }
  int g1 = PXK_CON(j).geom[0];
  int g2 = PXK_CON(j).geom[1];
  int b1 = M(geom_bodyid, g1);
  int b2 = M(geom_bodyid, g2);
  int m11 = pxk_srCheckMatch(PX_MDARGC b1, g1, type1, id1);
  int m12 = pxk_srCheckMatch(PX_MDARGC b2, g2, type1, id1);
  int m21 = pxk_srCheckMatch(PX_MDARGC b1, g1, type2, id2);
  int m22 = pxk_srCheckMatch(PX_MDARGC b2, g2, type2, id2);
  if (m11 == 0 && m12 == 0) return 0;
  if (m21 == 0 && m22 == 0) return 0;
  if (type1 != PX_OBJ_UNKNOWN && type2 != PX_OBJ_UNKNOWN) {
    int regular = (m11 == 1 && m22 == 1) ? 1 : 0;
    int reverse = (m12 == 1 && m21 == 1) ? 1 : 0;
    if (regular == 1) return 1;
    if (reverse == 1) return -1;
    return 0;
  }
  if (type1 != PX_OBJ_UNKNOWN) return m11 == 1 ? 1 : -1;
  return m22 == 1 ? 1 : -1;
}

// the sort criterion of contact j under reduce (1: distance, 2: minus the squared force)
PX_FN PX_REAL pxk_srCriterion(PX_MDC int j, int reduce) {
  if (reduce == 1) return PXK_CON(j).dist;
  PXR ft[6];
  pxk_srContactForce(PX_MDARGC j, ft);
  PXR sq = ft[0] * ft[0] + ft[1] * ft[1] + ft[2] * ft[2];
  PXR r = -sq;
  return r;
}

// 1 if (ca, a) comes before (cb, b): criterion, then contact index
PX_FN int pxk_srBefore(PX_REAL ca, int a, PX_REAL cb, int b) {
  if (ca < cb) return 1;
  if (ca > cb) return 0;
  return a < b ? 1 : 0;
}

// the offsets of the contact data fields within a slot (-1: field off) and the slot size
PX_FN int pxk_srConFields(int spec, PX_OUT(int, off, 7)) {
  int size = 0;
  for (int f = 0; f < 7; f++) {
    int n = (f == 0 || f == 3) ? 1 : 3;
    off[f] = -1;
    if (((spec >> f) & 1) != 0) {
      off[f] = size;
      size += n;
    }
  }
  return size;
}

// one slot (copySensorData) at sensordata[s..] for contact j
PX_FN void pxk_srConSlot(PX_MDC int s, PX_IN(int, off, 7), int j, int flip, int nfound) {
  if (off[0] >= 0) D(sensordata, s + off[0]) = PX_TOREAL(nfound);
  if (off[1] >= 0 || off[2] >= 0) {
    PXR ft[6];
    pxk_srContactForce(PX_MDARGC j, ft);
    if (flip == 1) {
      ft[2] = ft[2] * PX_R(-1.0);
      ft[5] = ft[5] * PX_R(-1.0);
    }
    for (int k = 0; k < 3; k++) {
      if (off[1] >= 0) D(sensordata, s + off[1] + k) = ft[k];
      if (off[2] >= 0) D(sensordata, s + off[2] + k) = ft[3 + k];
    }
  }
  if (off[3] >= 0) D(sensordata, s + off[3]) = PXK_CON(j).dist;
  for (int k = 0; k < 3; k++) {
    if (off[4] >= 0) D(sensordata, s + off[4] + k) = PXK_CON(j).pos[k];
    PXR nk = PXK_CON(j).frame[k];
    PXR tk = PXK_CON(j).frame[3 + k];
    if (flip == 1) {
      nk = nk * PX_R(-1.0);
      tk = tk * PX_R(-1.0);
    }
    if (off[5] >= 0) D(sensordata, s + off[5] + k) = nk;
    if (off[6] >= 0) D(sensordata, s + off[6] + k) = tk;
  }
}

// contact sensor i into sensordata[oa..]
PX_FN void pxk_snContact(PX_MDC int i, int oa) {
  int spec = M(sensor_intprm, 3 * i);
  int reduce = M(sensor_intprm, 3 * i + 1);
  int type1 = M(sensor_objtype, i);
  int id1 = M(sensor_objid, i);
  int type2 = M(sensor_reftype, i);
  int id2 = M(sensor_refid, i);
  int dim = M(sensor_dim, i);
  int off[7];
  int size = pxk_srConFields(spec, off);
  int num = dim / size;
  for (int k = 0; k < dim; k++) D(sensordata, oa + k) = PX_R(0.0);

  int nmatch = 0;
  for (int j = 0; j < PXK_NCON; j++) {
    if (pxk_srMatch(PX_MDARGC j, type1, id1, type2, id2) != 0) nmatch += 1;
  }
  int nslot = num < nmatch ? num : nmatch;

  if (reduce == 3) {
    // net force: the total wrench about the force-weighted centroid of the matches
    PXR point[3];
    pxk_rayZero3(point);
    PXR total = PX_R(0.0);
    for (int j = 0; j < PXK_NCON; j++) {
      if (pxk_srMatch(PX_MDARGC j, type1, id1, type2, id2) == 0) continue;
      PXR ft[6];
      pxk_srContactForce(PX_MDARGC j, ft);
      PXR w = PX_SQRT(ft[0] * ft[0] + ft[1] * ft[1] + ft[2] * ft[2]);
      for (int k = 0; k < 3; k++) {
        PXR t = PXK_CON(j).pos[k] * w;
        point[k] = point[k] + t;
      }
      total = total + w;
    }
    PXR den = total > PXK_MINVAL ? total : PXK_MINVAL;
    PXR inv = PX_R(1.0) / den;
    for (int k = 0; k < 3; k++) point[k] = point[k] * inv;
    PXR force[3];
    PXR torque[3];
    pxk_rayZero3(force);
    pxk_rayZero3(torque);
    for (int j = 0; j < PXK_NCON; j++) {
      int mt = pxk_srMatch(PX_MDARGC j, type1, id1, type2, id2);
      if (mt == 0) continue;
      PXR ft[6];
      pxk_srContactForce(PX_MDARGC j, ft);
      if (mt < 0) {
        for (int k = 0; k < 6; k++) ft[k] = ft[k] * PX_R(-1.0);
      }
      PXR frame[9];
      PXR a[3];
      PXR b[3];
      PXR fj[3];
      PXR tj[3];
      for (int k = 0; k < 9; k++) frame[k] = PXK_CON(j).frame[k];
      for (int k = 0; k < 3; k++) {
        a[k] = ft[k];
        b[k] = ft[3 + k];
      }
      pxk_mulMatTVec3(fj, frame, a);
      pxk_mulMatTVec3(tj, frame, b);
      PXR dif[3];
      PXR ind[3];
      for (int k = 0; k < 3; k++) {
        force[k] = force[k] + fj[k];
        torque[k] = torque[k] + tj[k];
        dif[k] = PXK_CON(j).pos[k] - point[k];
      }
      pxk_cross(ind, dif, fj);
      for (int k = 0; k < 3; k++) torque[k] = torque[k] + ind[k];
    }
    if (off[0] >= 0) D(sensordata, oa + off[0]) = PX_TOREAL(nmatch);
    for (int k = 0; k < 3; k++) {
      if (off[1] >= 0) D(sensordata, oa + off[1] + k) = force[k];
      if (off[2] >= 0) D(sensordata, oa + off[2] + k) = torque[k];
      if (off[4] >= 0) D(sensordata, oa + off[4] + k) = point[k];
    }
    if (off[3] >= 0) D(sensordata, oa + off[3]) = PX_R(0.0);
    if (off[5] >= 0) D(sensordata, oa + off[5]) = PX_R(1.0);
    if (off[6] >= 0) D(sensordata, oa + off[6] + 1) = PX_R(1.0);
    return;
  }

  if (reduce == 1 || reduce == 2) {
    // the nslot first matches in (criterion, contact index) order, one selection per slot
    PXR pc = PX_R(0.0);
    int pj = -1;
    for (int s = 0; s < nslot; s++) {
      int best = -1;
      int bflip = 0;
      PXR bc = PX_R(0.0);
      for (int j = 0; j < PXK_NCON; j++) {
        int mt = pxk_srMatch(PX_MDARGC j, type1, id1, type2, id2);
        if (mt == 0) continue;
        PXR cj = pxk_srCriterion(PX_MDARGC j, reduce);
        if (pj >= 0 && pxk_srBefore(pc, pj, cj, j) == 0) continue;
        if (best < 0 || pxk_srBefore(cj, j, bc, best) == 1) {
          best = j;
          bc = cj;
          bflip = mt < 0 ? 1 : 0;
        }
      }
      pxk_srConSlot(PX_MDARGC oa + s * size, off, best, bflip, nmatch);
      pc = bc;
      pj = best;
    }
    return;
  }

  // no reduction: the first nslot matches in contact order
  int s = 0;
  for (int j = 0; j < PXK_NCON && s < nslot; j++) {
    int mt = pxk_srMatch(PX_MDARGC j, type1, id1, type2, id2);
    if (mt == 0) continue;
    pxk_srConSlot(PX_MDARGC oa + s * size, off, j, mt < 0 ? 1 : 0, nmatch);
    s += 1;
  }
}

#endif  // PXK_SN_EFC

#endif  // PX_KERN_SENSOR_RAY_H_
