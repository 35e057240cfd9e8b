// SPDX-License-Identifier: Apache-2.0
// The tactile sensor (MuJoCo 3.12's mjSENS_TACTILE case of mj_sensorAcc with its taxel loop) in
// the kernel dialect, computed by both executors (csrc/kern/sensor.h's acceleration stage).
//
// Its taxels are the vertices of a mesh placed by a geom's frame. For every geom in contact with
// that geom's weld body (once each, in contact order), a taxel inside the other geom reads its
// penetration depth from the other geom's signed distance (channel 0: the largest over the
// geoms) and, where the mesh has per-vertex frames (builtin wedge and plate: mesh_taxelframe,
// mesh_taxeladr >= 0), the absolute tangential slip velocities along the two tangents (channels
// 1 and 2: summed over the geoms in contact order). The signed distances are MuJoCo's analytic
// ones (mjc_distance on a single geom) for plane, sphere, capsule, ellipsoid, cylinder and box,
// with the same floating-point operations. Mesh geoms have no octree in any model phalanx loads
// (MuJoCo builds one only for meshes of sdf geoms, which phalanx refuses), so they are skipped as
// MuJoCo skips meshes without one; the compiler refuses models whose height fields could touch
// the sensor (MuJoCo has no distance for them).
//
// Order: MuJoCo runs taxels in the outer loop and the touching geoms in the inner one, with the
// readings in a scratch array that is added to the zeroed output where a channel is nonzero.
// Here the geoms are the outer loop (each found from the contact list when it first appears, so
// no list is kept) and the readings accumulate in sensordata itself: every taxel still meets the
// geoms in the same order with the same operations, and the readings are never -0 (a maximum of
// +0 and positive depths, sums of absolute values on +0), so adding them to zeros changes no
// bit. Nothing is allocated and no scratch is used.
//
//   reads:  m->sensor_*, mesh_vert/vertadr/vertnum/quat/taxeladr/taxelframe, geom_*, body_weldid,
//           body_rootid, geom_xpos, geom_xmat, cvel, subtree_com, the contact records
//   writes: d->sensordata of the sensor
#ifndef PX_KERN_TACTILE_H_
#define PX_KERN_TACTILE_H_

#include "kern/spatial.h"

// copy n consecutive elements between a buffer accessor (M or D) and a local array (the same
// macros as kinematics.h; defined once whichever header comes first)
#ifndef PXK_GET
#define PXK_GET(n, v, A, f, o) \
  for (int k_ = 0; k_ < n; k_++) v[k_] = A(f, (o) + k_)
#define PXK_PUT(n, A, f, o, v) \
  for (int k_ = 0; k_ < n; k_++) A(f, (o) + k_) = v[k_]
#endif

// 1 when this world has no contact storage (a CPU Data made without it): no contact, no reading
#ifdef PX_KERN_GLSL
#define PXK_TC_NOCONTACTS false
#else
#define PXK_TC_NOCONTACTS (d->ncon == NULL)
#endif

// signed distance of the point x (in geom g's frame) to geom g: MuJoCo's geomDistance for the
// primitive types (0 for the others, which never reach it)
PX_FN PX_REAL pxk_tcDistance(PX_MDC int g, PX_IN(PX_REAL, x, 3)) {
  int type = M(geom_type, g);
  PXR s0 = M(geom_size, 3 * g);
  PXR s1 = M(geom_size, 3 * g + 1);
  PXR s2 = M(geom_size, 3 * g + 2);
  PXR r = PX_ZERO;
  if (type == PX_GEOM_PLANE) {
    r = x[2];
  } else if (type == PX_GEOM_SPHERE) {
    r = PX_SQRT(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) - s0;
  } else if (type == PX_GEOM_BOX) {
    PXR a[3];
    PXR b[3];
    a[0] = PX_ABS(x[0]) - s0;
    a[1] = PX_ABS(x[1]) - s1;
    a[2] = PX_ABS(x[2]) - s2;
    if (a[0] >= PX_R(0.0) || a[1] >= PX_R(0.0) || a[2] >= PX_R(0.0)) {
      for (int k = 0; k < 3; k++) b[k] = a[k] > PX_R(0.0) ? a[k] : PX_ZERO;
      PXR m12 = a[1] > a[2] ? a[1] : a[2];
      PXR m012 = a[0] > m12 ? a[0] : m12;
      PXR neg = m012 < PX_R(0.0) ? m012 : PX_ZERO;
      r = PX_SQRT(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]) + neg;
    } else {
      // inside: a unit field turning from radial to the face normals (radialField3d)
      b[0] = -s0 / a[0];
      b[1] = -s1 / a[1];
      b[2] = -s2 / a[2];
      pxk_normalize3(b);
      for (int k = 0; k < 3; k++) {
        if (x[k] < PX_R(0.0)) b[k] = -b[k];
      }
      PXR t[3];
      for (int k = 0; k < 3; k++) t[k] = -a[k] / PX_ABS(b[k]);
      PXR t12 = t[1] < t[2] ? t[1] : t[2];
      PXR tmin = t[0] < t12 ? t[0] : t12;
      r = -tmin * PX_SQRT(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
    }
  } else if (type == PX_GEOM_CAPSULE) {
    PXR z = x[2] < -s1 ? -s1 : (x[2] > s1 ? s1 : x[2]);
    PXR dz = x[2] - z;
    r = PX_SQRT(x[0] * x[0] + x[1] * x[1] + dz * dz) - s0;
  } else if (type == PX_GEOM_ELLIPSOID) {
    PXR a[3];
    PXR b[3];
    a[0] = x[0] / s0;
    a[1] = x[1] / s1;
    a[2] = x[2] / s2;
    b[0] = a[0] / s0;
    b[1] = a[1] / s1;
    b[2] = a[2] / s2;
    PXR k0 = PX_SQRT(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    PXR k1 = PX_SQRT(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
    r = k0 * (k0 - PX_R(1.0)) / k1;
  } else if (type == PX_GEOM_CYLINDER) {
    PXR a0 = PX_SQRT(x[0] * x[0] + x[1] * x[1]) - s0;
    PXR a1 = PX_ABS(x[2]) - s1;
    PXR b0 = a0 > PX_R(0.0) ? a0 : PX_ZERO;
    PXR b1 = a1 > PX_R(0.0) ? a1 : PX_ZERO;
    PXR mx = a0 > a1 ? a0 : a1;
    PXR neg = mx < PX_R(0.0) ? mx : PX_ZERO;
    r = neg + PX_SQRT(b0 * b0 + b1 * b1);
  }
  return r;
}

// the linear velocity at pos of the body's motion (the linear part of mju_transformSpatial of
// cvel[body] from the com of the body's tree to pos)
PX_FN void pxk_tcLinVel(PX_MDC int body, PX_IN(PX_REAL, pos, 3), PX_OUT(PX_REAL, vel, 3)) {
  int root = M(body_rootid, body);
  PXR ang[3];
  PXR dif[3];
  PXR cros[3];
  for (int k = 0; k < 3; k++) {
    ang[k] = D(cvel, 6 * body + k);
    dif[k] = pos[k] - D(subtree_com, 3 * root + k);
  }
  pxk_cross(cros, dif, ang);
  for (int k = 0; k < 3; k++) vel[k] = D(cvel, 6 * body + 3 + k) - cros[k];
}

// the geom on the other side of contact c when side `side` (0: geom[0], 1: geom[1]) belongs to
// the weld body; -1 if it does not
PX_FN int pxk_tcOther(PX_MDC int weld, int c, int side) {
  int g1 = PXK_CON(c).geom[0];
  int g2 = PXK_CON(c).geom[1];
  int mine = side == 0 ? g1 : g2;
  if (M(body_weldid, M(geom_bodyid, mine)) != weld) return -1;
  return side == 0 ? g2 : g1;
}

// 1 if geom g touches the weld body first at (contact c, side), i.e. no earlier contact or side
// (MuJoCo's list order: contacts in order, geom[0]'s side first) names it
PX_FN int pxk_tcFirst(PX_MDC int weld, int c, int side, int g) {
  for (int k = 0; k <= c; k++) {
    for (int s = 0; s < 2; s++) {
      if (k == c && s >= side) return 1;
      if (pxk_tcOther(PX_MDARGC weld, k, s) == g) return 0;
    }
  }
  return 1;
}

// the readings of tactile sensor i's taxels against geom g (accumulated into sensordata)
PX_FN void pxk_tcGeom(PX_MDC int i, int g) {
  int mesh = M(sensor_objid, i);
  int geom = M(sensor_refid, i);
  int weld = M(body_weldid, M(geom_bodyid, geom));
  int nvert = M(mesh_vertnum, mesh);
  int nchannel = M(sensor_dim, i) / nvert;
  int oa = M(sensor_adr, i);
  int vadr = M(mesh_vertadr, mesh);
  int tadr = M(mesh_taxeladr, mesh);
  PXR mquat[4];
  PXR gpos[3];
  PXR gmat[9];
  PXR opos[3];
  PXR omat[9];
  PXR vo[3];
  PXK_GET(4, mquat, M, mesh_quat, 4 * mesh);
  PXK_GET(3, gpos, D, geom_xpos, 3 * geom);
  PXK_GET(9, gmat, D, geom_xmat, 9 * geom);
  PXK_GET(3, opos, D, geom_xpos, 3 * g);
  PXK_GET(9, omat, D, geom_xmat, 9 * g);
  pxk_tcLinVel(PX_MDARGC M(geom_bodyid, g), opos, vo);
  for (int j = 0; j < nvert; j++) {
    // the taxel in the world, then in the other geom's frame; its depth there
    PXR pos[3];
    PXR rot[3];
    PXR xpos[3];
    PXR tmp[3];
    PXR lpos[3];
    for (int k = 0; k < 3; k++) pos[k] = PX_TOREAL(M(mesh_vert, 3 * (vadr + j) + k));
    pxk_mulMatVec3(rot, gmat, pos);
    for (int k = 0; k < 3; k++) xpos[k] = rot[k] + gpos[k];
    for (int k = 0; k < 3; k++) tmp[k] = xpos[k] - opos[k];
    pxk_mulMatTVec3(lpos, omat, tmp);
    PXR dist = pxk_tcDistance(PX_MDARGC g, lpos);
    PXR depth = dist < PX_R(0.0) ? dist : PX_ZERO;
    if (depth == PX_R(0.0)) continue;

    // relative velocity of the taxel on the sensor's weld body and the other geom's center
    PXR vs[3];
    PXR vrel[3];
    pxk_tcLinVel(PX_MDARGC weld, xpos, vs);
    for (int k = 0; k < 3; k++) vrel[k] = vs[k] - vo[k];

    PXR nd = -depth;
    PXR cur = D(sensordata, oa + j);
    PXR mx = cur > nd ? cur : nd;
    D(sensordata, oa + j) = mx;
    if (tadr >= 0) {
      PXR f[3];
      PXR t[3];
      for (int ch = 1; ch < 3 && ch < nchannel; ch++) {
        for (int k = 0; k < 3; k++)
          f[k] = PX_TOREAL(M(mesh_taxelframe, 9 * (tadr + j) + 3 * ch + k));
        pxk_rotVecQuat(t, f, mquat);
        PXR slip = pxk_dot3(vrel, t);
        PXR sum = D(sensordata, oa + ch * nvert + j) + PX_ABS(slip);
        D(sensordata, oa + ch * nvert + j) = sum;
      }
    }
  }
}

// tactile sensor i into sensordata (zeroed first)
PX_FN void pxk_snTactile(PX_MDC int i) {
  int mesh = M(sensor_objid, i);
  int geom = M(sensor_refid, i);
  int weld = M(body_weldid, M(geom_bodyid, geom));
  int oa = M(sensor_adr, i);
  for (int k = 0; k < M(sensor_dim, i); k++) D(sensordata, oa + k) = PX_ZERO;
  if (M(mesh_vertnum, mesh) <= 0 || PXK_TC_NOCONTACTS) return;
  int ncon = PXK_NCON;
  for (int c = 0; c < ncon; c++) {
    for (int side = 0; side < 2; side++) {
      int g = pxk_tcOther(PX_MDARGC weld, c, side);
      if (g < 0 || M(geom_type, g) == PX_GEOM_MESH) continue;  // meshes: no octree (above)
      if (pxk_tcFirst(PX_MDARGC weld, c, side, g) == 1) pxk_tcGeom(PX_MDARGC i, g);
    }
  }
}

#endif  // PX_KERN_TACTILE_H_
