// SPDX-License-Identifier: Apache-2.0
// Analytic narrow-phase colliders of MuJoCo 3.12 (engine_collision_primitive.c) in the kernel
// dialect: plane against sphere, capsule, cylinder and box; sphere against sphere, capsule and
// cylinder; capsule against capsule. None of these falls back to another collider in 3.12: each
// pair is solved in closed form here.
//
// Interface (see collide.h): pxk_colXxx(PX_MDC g1, g2, margin, adr) reads the two geoms' poses
// (d->geom_xpos, geom_xmat) and sizes (m->geom_size), writes n pre-contacts to the contact
// records adr .. adr+n-1 (dist, pos, frame[0..2] = normal from geom 1 to geom 2, frame[3..5] =
// tangent hint, zeros where MuJoCo leaves it zero) and returns n. g1 and g2 come ordered as
// MuJoCo's driver orders them (geom_type[g1] <= geom_type[g2]); margin is margin + gap.
//
// The shared "raw" routines compute one pre-contact into a local array of PXK_CP_SIZE reals
// (layout below) instead of writing the buffer, so that callers can adjust it (the capsule's
// tangent, the cylinder cap's flipped normal) before storing it with pxk_cpPut. Every formula
// follows MuJoCo's operation order so that fp64 results are bit-equal. One deliberate difference:
// a pre-contact holding a NaN (NaN poses, or 0/0 from sizes set to zero) is not stored, where
// MuJoCo stores it. The raw routines also serve MuJoCo's flex colliders (mjraw_SphereCapsule,
// mjraw_CapsuleCapsule in engine_collision_driver.c), which phalanx does not have yet.
#ifndef PX_KERN_COLLIDE_PRIM_H_
#define PX_KERN_COLLIDE_PRIM_H_

#include "kern/forcemath.h"
#include "kern/libm.h"
#include "kern/spatial.h"

// one pre-contact in a local array: distance, position, normal, tangent
#define PXK_CP_DIST 0
#define PXK_CP_POS 1
#define PXK_CP_NRM 4
#define PXK_CP_TAN 7
#define PXK_CP_SIZE 10

// store a local pre-contact as contact record i (frame[0..2] normal, frame[3..5] tangent) and
// return 1; a pre-contact with a NaN anywhere (NaN poses or sizes) is dropped and 0 returned,
// where MuJoCo would store it
PX_FN int pxk_cpPut(PX_MDC int i, PX_IN(PX_REAL, c, PXK_CP_SIZE)) {
  for (int k = 0; k < PXK_CP_SIZE; k++) {
    if (pxk_isNan(c[k]) != 0) return 0;
  }
  PXK_CON(i).dist = c[PXK_CP_DIST];
  for (int k = 0; k < 3; k++) {
    PXK_CON(i).pos[k] = c[PXK_CP_POS + k];
    PXK_CON(i).frame[k] = c[PXK_CP_NRM + k];
    PXK_CON(i).frame[3 + k] = c[PXK_CP_TAN + k];
  }
  return 1;
}

// third column of a rotation matrix (the geom's local z axis in world coordinates)
PX_FN void pxk_cpAxisZ(PX_OUT(PX_REAL, res, 3), PX_IN(PX_REAL, mat, 9)) {
  res[0] = mat[2];
  res[1] = mat[5];
  res[2] = mat[8];
}

// ---------------------------------- raw routines ------------------------------------------------

// plane (pos1, rot1: normal = z axis) against a sphere of radius rad2 at pos2 (mjraw_PlaneSphere)
PX_FN int pxk_cpRawPlaneSphere(PX_OUT(PX_REAL, con, PXK_CP_SIZE), PX_REAL margin,
                               PX_IN(PX_REAL, pos1, 3), PX_IN(PX_REAL, rot1, 9),
                               PX_IN(PX_REAL, pos2, 3), PX_REAL rad2) {
  PXR nrm[3];
  PXR dif[3];
  pxk_cpAxisZ(nrm, rot1);
  pxk_sub3(dif, pos2, pos1);

  // signed height of the centre above the plane; nothing beyond the margin
  PXR cdist = pxk_dot3(dif, nrm);
  PXR lim = margin + rad2;
  if (cdist > lim) return 0;

  // the contact point sits halfway between the plane and the sphere's lowest point
  PXR dist = cdist - rad2;
  PXR scl = -dist / PX_R(2.0) - rad2;
  con[PXK_CP_DIST] = dist;
  for (int k = 0; k < 3; k++) {
    PXR off = nrm[k] * scl;
    con[PXK_CP_POS + k] = pos2[k] + off;
    con[PXK_CP_NRM + k] = nrm[k];
    con[PXK_CP_TAN + k] = PX_R(0.0);
  }
  return 1;
}

// sphere (pos1, rad1) against sphere (pos2, rad2); the matrices only serve coincident centres,
// where the normal is the cross product of the two z axes (mjraw_SphereSphere)
PX_FN int pxk_cpRawSphereSphere(PX_OUT(PX_REAL, con, PXK_CP_SIZE), PX_REAL margin,
                                PX_IN(PX_REAL, pos1, 3), PX_IN(PX_REAL, rot1, 9), PX_REAL rad1,
                                PX_IN(PX_REAL, pos2, 3), PX_IN(PX_REAL, rot2, 9), PX_REAL rad2) {
  // bounding test on squared centre distance
  PXR dif[3];
  pxk_sub3(dif, pos1, pos2);
  PXR cdist_sqr = pxk_dot3(dif, dif);
  PXR min_dist = margin + rad1 + rad2;
  PXR min_sqr = min_dist * min_dist;
  if (cdist_sqr > min_sqr) return 0;

  // penetration depth and unit normal from centre 1 to centre 2
  PXR cdist = PX_SQRT(cdist_sqr);
  PXR dist = cdist - rad1 - rad2;
  PXR nrm[3];
  pxk_sub3(nrm, pos2, pos1);
  PXR len = pxk_normalize3(nrm);

  // same centre: normal across both z axes ((1,0,0) when they are parallel)
  if (len < PXK_MINVAL) {
    PXR axis1[3];
    PXR axis2[3];
    pxk_cpAxisZ(axis1, rot1);
    pxk_cpAxisZ(axis2, rot2);
    pxk_cross(nrm, axis1, axis2);
    pxk_normalize3(nrm);
  }

  // point halfway through the overlap, measured from sphere 1's surface
  PXR scl = rad1 + dist / PX_R(2.0);
  con[PXK_CP_DIST] = dist;
  for (int k = 0; k < 3; k++) {
    PXR off = nrm[k] * scl;
    con[PXK_CP_POS + k] = off + pos1[k];
    con[PXK_CP_NRM + k] = nrm[k];
    con[PXK_CP_TAN + k] = PX_R(0.0);
  }
  return 1;
}

// sphere (pos1, rad1) against capsule (pos2, rot2, radius rad2, half-length len2): the sphere
// meets the capsule's ball at the nearest point of its segment (mjraw_SphereCapsule)
PX_FN int pxk_cpRawSphereCapsule(PX_OUT(PX_REAL, con, PXK_CP_SIZE), PX_REAL margin,
                                 PX_IN(PX_REAL, pos1, 3), PX_IN(PX_REAL, rot1, 9), PX_REAL rad1,
                                 PX_IN(PX_REAL, pos2, 3), PX_IN(PX_REAL, rot2, 9), PX_REAL rad2,
                                 PX_REAL len2) {
  PXR axis[3];
  PXR vec[3];
  pxk_cpAxisZ(axis, rot2);
  pxk_sub3(vec, pos1, pos2);

  // coordinate of the sphere centre along the axis, clamped to the segment
  PXR prj = pxk_dot3(axis, vec);
  PXR nlen = -len2;
  PXR x = pxk_fmClip(prj, nlen, len2);

  PXR pnear[3];
  for (int k = 0; k < 3; k++) {
    PXR off = axis[k] * x;
    pnear[k] = off + pos2[k];
  }
  return pxk_cpRawSphereSphere(con, margin, pos1, rot1, rad1, pnear, rot2, rad2);
}

// capsule (pos1, rot1, rad1, half-length len1) against capsule (pos2, rot2, rad2, len2)
// (mjraw_CapsuleCapsule); writes up to two pre-contacts to con0, con1 (non-parallel axes give
// at most one, in con0)
PX_FN int pxk_cpRawCapsuleCapsule(PX_OUT(PX_REAL, con0, PXK_CP_SIZE),
                                  PX_OUT(PX_REAL, con1, PXK_CP_SIZE), PX_REAL margin,
                                  PX_IN(PX_REAL, pos1, 3), PX_IN(PX_REAL, rot1, 9), PX_REAL rad1,
                                  PX_REAL len1, PX_IN(PX_REAL, pos2, 3), PX_IN(PX_REAL, rot2, 9),
                                  PX_REAL rad2, PX_REAL len2) {
  // half-segments and centre difference
  PXR axis1[3];
  PXR axis2[3];
  PXR dif[3];
  axis1[0] = rot1[2] * len1;
  axis1[1] = rot1[5] * len1;
  axis1[2] = rot1[8] * len1;
  axis2[0] = rot2[2] * len2;
  axis2[1] = rot2[5] * len2;
  axis2[2] = rot2[8] * len2;
  pxk_sub3(dif, pos1, pos2);

  // normal equations of the closest-point problem in the segment parameters x1, x2
  PXR ma = pxk_dot3(axis1, axis1);
  PXR mb0 = pxk_dot3(axis1, axis2);
  PXR mb = -mb0;
  PXR mc = pxk_dot3(axis2, axis2);
  PXR u0 = pxk_dot3(axis1, dif);
  PXR u = -u0;
  PXR v = pxk_dot3(axis2, dif);
  PXR det = ma * mc - mb * mb;

  PXR pt1[3];
  PXR pt2[3];
  PXR c2[PXK_CP_SIZE];
  PXR c3[PXK_CP_SIZE];

  // skew axes: unconstrained minimum, then clamp one parameter at a time
  PXR adet = PX_ABS(det);
  if (adet >= PXK_MINVAL) {
    PXR x1 = (mc * u - mb * v) / det;
    PXR x2 = (ma * v - mb * u) / det;

    if (x1 > PX_R(1.0)) {
      x1 = PX_R(1.0);
      x2 = (v - mb) / mc;
    } else if (x1 < PX_R(-1.0)) {
      x1 = PX_R(-1.0);
      x2 = (v + mb) / mc;
    }
    if (x2 > PX_R(1.0)) {
      x2 = PX_R(1.0);
      PXR t = (u - mb) / ma;
      x1 = pxk_fmClip(t, PX_R(-1.0), PX_R(1.0));
    } else if (x2 < PX_R(-1.0)) {
      x2 = PX_R(-1.0);
      PXR t = (u + mb) / ma;
      x1 = pxk_fmClip(t, PX_R(-1.0), PX_R(1.0));
    }

    for (int k = 0; k < 3; k++) {
      PXR o1 = axis1[k] * x1;
      pt1[k] = o1 + pos1[k];
      PXR o2 = axis2[k] * x2;
      pt2[k] = o2 + pos2[k];
    }
    return pxk_cpRawSphereSphere(con0, margin, pt1, rot1, rad1, pt2, rot2, rad2);
  }

  // parallel axes: test the ends of each segment against the other segment, keep at most two
  int n = 0;

  // end x1 = +1
  for (int k = 0; k < 3; k++) pt1[k] = pos1[k] + axis1[k];
  PXR t1 = (v - mb) / mc;
  PXR x2a = pxk_fmClip(t1, PX_R(-1.0), PX_R(1.0));
  for (int k = 0; k < 3; k++) {
    PXR o = axis2[k] * x2a;
    pt2[k] = o + pos2[k];
  }
  n += pxk_cpRawSphereSphere(con0, margin, pt1, rot1, rad1, pt2, rot2, rad2);

  // end x1 = -1 (into con0 if the first end gave nothing)
  for (int k = 0; k < 3; k++) pt1[k] = pos1[k] - axis1[k];
  PXR t2 = (v + mb) / mc;
  PXR x2b = pxk_fmClip(t2, PX_R(-1.0), PX_R(1.0));
  for (int k = 0; k < 3; k++) {
    PXR o = axis2[k] * x2b;
    pt2[k] = o + pos2[k];
  }
  if (n == 0) {
    n += pxk_cpRawSphereSphere(con0, margin, pt1, rot1, rad1, pt2, rot2, rad2);
  } else {
    n += pxk_cpRawSphereSphere(con1, margin, pt1, rot1, rad1, pt2, rot2, rad2);
  }
  if (n >= 2) return n;

  // end x2 = +1
  for (int k = 0; k < 3; k++) pt2[k] = pos2[k] + axis2[k];
  PXR t3 = (u - mb) / ma;
  PXR x1a = pxk_fmClip(t3, PX_R(-1.0), PX_R(1.0));
  for (int k = 0; k < 3; k++) {
    PXR o = axis1[k] * x1a;
    pt1[k] = o + pos1[k];
  }
  int n3 = pxk_cpRawSphereSphere(c2, margin, pt1, rot1, rad1, pt2, rot2, rad2);
  if (n3 == 1) {
    if (n == 0) {
      for (int k = 0; k < PXK_CP_SIZE; k++) con0[k] = c2[k];
    } else {
      for (int k = 0; k < PXK_CP_SIZE; k++) con1[k] = c2[k];
    }
    n += 1;
  }
  if (n >= 2) return n;

  // end x2 = -1
  for (int k = 0; k < 3; k++) pt2[k] = pos2[k] - axis2[k];
  PXR t4 = (u + mb) / ma;
  PXR x1b = pxk_fmClip(t4, PX_R(-1.0), PX_R(1.0));
  for (int k = 0; k < 3; k++) {
    PXR o = axis1[k] * x1b;
    pt1[k] = o + pos1[k];
  }
  int n4 = pxk_cpRawSphereSphere(c3, margin, pt1, rot1, rad1, pt2, rot2, rad2);
  if (n4 == 1) {
    if (n == 0) {
      for (int k = 0; k < PXK_CP_SIZE; k++) con0[k] = c3[k];
    } else {
      for (int k = 0; k < PXK_CP_SIZE; k++) con1[k] = c3[k];
    }
    n += 1;
  }
  return n;
}

// ---------------------------------- colliders ---------------------------------------------------

// plane : sphere (mjc_PlaneSphere)
PX_FN int pxk_colPlaneSphere(PX_MDC int g1, int g2, PX_REAL margin, int adr) {
  PXR pos1[3];
  PXR rot1[9];
  PXR pos2[3];
  PXR c[PXK_CP_SIZE];
  PXK_GET(3, pos1, D, geom_xpos, 3 * g1);
  PXK_GET(9, rot1, D, geom_xmat, 9 * g1);
  PXK_GET(3, pos2, D, geom_xpos, 3 * g2);
  PXR rad = M(geom_size, 3 * g2);
  int n = pxk_cpRawPlaneSphere(c, margin, pos1, rot1, pos2, rad);
  if (n == 1) n = pxk_cpPut(PX_MDARGC adr, c);
  return n;
}

// plane : capsule (mjc_PlaneCapsule): a sphere test at each end, tangent along the axis
PX_FN int pxk_colPlaneCapsule(PX_MDC int g1, int g2, PX_REAL margin, int adr) {
  PXR pos1[3];
  PXR rot1[9];
  PXR pos2[3];
  PXR rot2[9];
  PXK_GET(3, pos1, D, geom_xpos, 3 * g1);
  PXK_GET(9, rot1, D, geom_xmat, 9 * g1);
  PXK_GET(3, pos2, D, geom_xpos, 3 * g2);
  PXK_GET(9, rot2, D, geom_xmat, 9 * g2);
  PXR rad = M(geom_size, 3 * g2);
  PXR len = M(geom_size, 3 * g2 + 1);

  PXR axis[3];
  PXR seg[3];
  pxk_cpAxisZ(axis, rot2);
  seg[0] = len * axis[0];
  seg[1] = len * axis[1];
  seg[2] = len * axis[2];

  PXR end[3];
  PXR c[PXK_CP_SIZE];
  int n = 0;
  for (int e = 0; e < 2; e++) {
    if (e == 0) {
      for (int k = 0; k < 3; k++) end[k] = pos2[k] + seg[k];
    } else {
      for (int k = 0; k < 3; k++) end[k] = pos2[k] - seg[k];
    }
    if (pxk_cpRawPlaneSphere(c, margin, pos1, rot1, end, rad) == 1) {
      for (int k = 0; k < 3; k++) c[PXK_CP_TAN + k] = axis[k];
      n += pxk_cpPut(PX_MDARGC adr + n, c);
    }
  }
  return n;
}

// plane : cylinder (mjc_PlaneCylinder): the rim point nearest the plane on each cap, then two
// more points on the nearer cap completing an equilateral triangle with the first
PX_FN int pxk_colPlaneCylinder(PX_MDC int g1, int g2, PX_REAL margin, int adr) {
  PXR pos1[3];
  PXR rot1[9];
  PXR pos2[3];
  PXR rot2[9];
  PXK_GET(3, pos1, D, geom_xpos, 3 * g1);
  PXK_GET(9, rot1, D, geom_xmat, 9 * g1);
  PXK_GET(3, pos2, D, geom_xpos, 3 * g2);
  PXK_GET(9, rot2, D, geom_xmat, 9 * g2);
  PXR rad = M(geom_size, 3 * g2);
  PXR hgt = M(geom_size, 3 * g2 + 1);

  PXR nrm[3];
  PXR axis[3];
  pxk_cpAxisZ(nrm, rot1);
  pxk_cpAxisZ(axis, rot2);

  // orient the axis towards the plane
  PXR prjaxis = pxk_dot3(nrm, axis);
  if (prjaxis > PX_R(0.0)) {
    for (int k = 0; k < 3; k++) {
      PXR a = axis[k] * PX_R(-1.0);
      axis[k] = a;
    }
    PXR p = -prjaxis;
    prjaxis = p;
  }

  // height of the centre above the plane
  PXR vec[3];
  pxk_sub3(vec, pos2, pos1);
  PXR dist0 = pxk_dot3(vec, nrm);

  // radial direction towards the plane: the part of -normal across the axis
  for (int k = 0; k < 3; k++) {
    PXR a = axis[k] * prjaxis;
    vec[k] = a - nrm[k];
  }
  PXR len_sqr = pxk_dot3(vec, vec);
  PXR minsqr = PXK_MINVAL * PXK_MINVAL;
  if (len_sqr >= minsqr) {
    PXR len = PX_SQRT(len_sqr);
    PXR scl = rad / len;
    for (int k = 0; k < 3; k++) {
      PXR a = vec[k] * scl;
      vec[k] = a;
    }
  } else {
    // cap parallel to the plane: any radius will do, MuJoCo takes the local x axis
    vec[0] = rot2[0] * rad;
    vec[1] = rot2[3] * rad;
    vec[2] = rot2[6] * rad;
  }
  PXR prjvec = pxk_dot3(vec, nrm);

  // axis scaled to the half-height
  for (int k = 0; k < 3; k++) {
    PXR a = axis[k] * hgt;
    axis[k] = a;
  }
  PXR pa = prjaxis * hgt;
  prjaxis = pa;

  PXR c[PXK_CP_SIZE];
  for (int k = 0; k < 3; k++) {
    c[PXK_CP_NRM + k] = nrm[k];
    c[PXK_CP_TAN + k] = PX_R(0.0);
  }

  // rim point of the near cap; none there means no contact at all
  int cnt = 0;
  PXR d1 = dist0 + prjaxis + prjvec;
  if (!(d1 <= margin)) return 0;
  PXR h1 = -d1 * PX_R(0.5);
  c[PXK_CP_DIST] = d1;
  for (int k = 0; k < 3; k++) {
    PXR p = pos2[k] + vec[k];
    PXR q = p + axis[k];
    PXR o = nrm[k] * h1;
    c[PXK_CP_POS + k] = q + o;
  }
  cnt += pxk_cpPut(PX_MDARGC adr + cnt, c);

  // rim point of the far cap
  PXR d2 = dist0 - prjaxis + prjvec;
  if (d2 <= margin) {
    PXR h2 = -d2 * PX_R(0.5);
    c[PXK_CP_DIST] = d2;
    for (int k = 0; k < 3; k++) {
      PXR p = pos2[k] + vec[k];
      PXR q = p - axis[k];
      PXR o = nrm[k] * h2;
      c[PXK_CP_POS + k] = q + o;
    }
    cnt += pxk_cpPut(PX_MDARGC adr + cnt, c);
  }

  // the two other triangle corners on the near cap, at height -prjvec/2 relative to its centre
  PXR prjvec1 = -prjvec * PX_R(0.5);
  PXR d3 = dist0 + prjaxis + prjvec1;
  if (d3 <= margin) {
    PXR side[3];
    pxk_cross(side, vec, axis);
    pxk_normalize3(side);
    PXR s3 = PX_SQRT(PX_R(3.0));
    PXR rs = rad * s3;
    PXR sscl = rs / PX_R(2.0);
    for (int k = 0; k < 3; k++) {
      PXR a = side[k] * sscl;
      side[k] = a;
    }
    PXR h3 = -d3 * PX_R(0.5);
    c[PXK_CP_DIST] = d3;
    for (int s = 0; s < 2; s++) {
      for (int k = 0; k < 3; k++) {
        PXR p = pos2[k] + side[k];
        if (s == 1) p = pos2[k] - side[k];
        PXR q = p + axis[k];
        PXR hv = vec[k] * PX_R(-0.5);
        PXR r = q + hv;
        PXR o = nrm[k] * h3;
        c[PXK_CP_POS + k] = r + o;
      }
      cnt += pxk_cpPut(PX_MDARGC adr + cnt, c);
    }
  }
  return cnt;
}

// plane : box (mjc_PlaneBox): corners below the margin and on the plane's side of the centre,
// in corner order, at most four
PX_FN int pxk_colPlaneBox(PX_MDC int g1, int g2, PX_REAL margin, int adr) {
  PXR pos1[3];
  PXR rot1[9];
  PXR pos2[3];
  PXR rot2[9];
  PXR size[3];
  PXK_GET(3, pos1, D, geom_xpos, 3 * g1);
  PXK_GET(9, rot1, D, geom_xmat, 9 * g1);
  PXK_GET(3, pos2, D, geom_xpos, 3 * g2);
  PXK_GET(9, rot2, D, geom_xmat, 9 * g2);
  PXK_GET(3, size, M, geom_size, 3 * g2);

  PXR nrm[3];
  PXR dif[3];
  pxk_cpAxisZ(nrm, rot1);
  pxk_sub3(dif, pos2, pos1);
  PXR dist = pxk_dot3(dif, nrm);

  PXR c[PXK_CP_SIZE];
  for (int k = 0; k < 3; k++) {
    c[PXK_CP_NRM + k] = nrm[k];
    c[PXK_CP_TAN + k] = PX_R(0.0);
  }

  int cnt = 0;
  for (int i = 0; i < 8; i++) {
    if (cnt < 4) {
      // corner relative to the centre, in world orientation
      PXR loc[3];
      PXR corner[3];
      loc[0] = (i & 1) != 0 ? size[0] : -size[0];
      loc[1] = (i & 2) != 0 ? size[1] : -size[1];
      loc[2] = (i & 4) != 0 ? size[2] : -size[2];
      pxk_mulMatVec3(corner, rot2, loc);

      // skip corners beyond the margin or on the far side of the centre
      PXR ldist = pxk_dot3(nrm, corner);
      PXR cd = dist + ldist;
      if (!(cd > margin || ldist > PX_R(0.0))) {
        PXR h = -cd / PX_R(2.0);
        c[PXK_CP_DIST] = cd;
        for (int k = 0; k < 3; k++) {
          PXR w = corner[k] + pos2[k];
          PXR o = nrm[k] * h;
          c[PXK_CP_POS + k] = w + o;
        }
        cnt += pxk_cpPut(PX_MDARGC adr + cnt, c);
      }
    }
  }
  return cnt;
}

// sphere : sphere (mjc_SphereSphere)
PX_FN int pxk_colSphereSphere(PX_MDC int g1, int g2, PX_REAL margin, int adr) {
  PXR pos1[3];
  PXR rot1[9];
  PXR pos2[3];
  PXR rot2[9];
  PXR c[PXK_CP_SIZE];
  PXK_GET(3, pos1, D, geom_xpos, 3 * g1);
  PXK_GET(9, rot1, D, geom_xmat, 9 * g1);
  PXK_GET(3, pos2, D, geom_xpos, 3 * g2);
  PXK_GET(9, rot2, D, geom_xmat, 9 * g2);
  PXR rad1 = M(geom_size, 3 * g1);
  PXR rad2 = M(geom_size, 3 * g2);
  int n = pxk_cpRawSphereSphere(c, margin, pos1, rot1, rad1, pos2, rot2, rad2);
  if (n == 1) n = pxk_cpPut(PX_MDARGC adr, c);
  return n;
}

// sphere : capsule (mjc_SphereCapsule)
PX_FN int pxk_colSphereCapsule(PX_MDC int g1, int g2, PX_REAL margin, int adr) {
  PXR pos1[3];
  PXR rot1[9];
  PXR pos2[3];
  PXR rot2[9];
  PXR c[PXK_CP_SIZE];
  PXK_GET(3, pos1, D, geom_xpos, 3 * g1);
  PXK_GET(9, rot1, D, geom_xmat, 9 * g1);
  PXK_GET(3, pos2, D, geom_xpos, 3 * g2);
  PXK_GET(9, rot2, D, geom_xmat, 9 * g2);
  PXR rad1 = M(geom_size, 3 * g1);
  PXR rad2 = M(geom_size, 3 * g2);
  PXR len2 = M(geom_size, 3 * g2 + 1);
  int n = pxk_cpRawSphereCapsule(c, margin, pos1, rot1, rad1, pos2, rot2, rad2, len2);
  if (n == 1) n = pxk_cpPut(PX_MDARGC adr, c);
  return n;
}

// sphere : cylinder (mjc_SphereCylinder): side (sphere test against the axis point), cap (plane
// test against the cap's plane) or rim (sphere test against a zero-radius rim point), whichever
// region the sphere centre lies in; inside the cylinder, the nearer of side and cap
PX_FN int pxk_colSphereCylinder(PX_MDC int g1, int g2, PX_REAL margin, int adr) {
  PXR pos1[3];
  PXR rot1[9];
  PXR pos2[3];
  PXR rot2[9];
  PXR c[PXK_CP_SIZE];
  PXK_GET(3, pos1, D, geom_xpos, 3 * g1);
  PXK_GET(9, rot1, D, geom_xmat, 9 * g1);
  PXK_GET(3, pos2, D, geom_xpos, 3 * g2);
  PXK_GET(9, rot2, D, geom_xmat, 9 * g2);
  PXR rad1 = M(geom_size, 3 * g1);
  PXR radius = M(geom_size, 3 * g2);
  PXR height = M(geom_size, 3 * g2 + 1);

  PXR axis[3];
  PXR vec[3];
  pxk_cpAxisZ(axis, rot2);
  pxk_sub3(vec, pos1, pos2);

  // split the centre offset into its axial and radial parts
  PXR x = pxk_dot3(axis, vec);
  PXR a_proj[3];
  PXR p_proj[3];
  for (int k = 0; k < 3; k++) {
    PXR a = axis[k] * x;
    a_proj[k] = a;
    p_proj[k] = vec[k] - a;
  }
  PXR p_proj_sqr = pxk_dot3(p_proj, p_proj);

  PXR ax = PX_ABS(x);
  PXR rad_sqr = radius * radius;
  int side = 0;
  int cap = 0;
  if (ax < height) side = 1;
  if (p_proj_sqr < rad_sqr) cap = 1;
  if (side == 1 && cap == 1) {
    // centre inside: resolve through the nearer surface
    PXR dist_cap = height - ax;
    PXR pr = PX_SQRT(p_proj_sqr);
    PXR dist_radius = radius - pr;
    if (dist_cap < dist_radius) {
      side = 0;
    } else {
      cap = 0;
    }
  }

  int n = 0;
  if (side == 1) {
    // side: sphere against the cylinder's radius ball at the axis point
    PXR ctr[3];
    for (int k = 0; k < 3; k++) ctr[k] = a_proj[k] + pos2[k];
    n = pxk_cpRawSphereSphere(c, margin, pos1, rot1, rad1, ctr, rot2, radius);
  } else if (cap == 1) {
    // cap: plane test against the cap (the bottom cap's frame has x and z negated), then the
    // normal flipped so that it points from the sphere (geom 1) to the cylinder
    PXR capmat[9];
    PXR pos_cap[3];
    for (int k = 0; k < 9; k++) capmat[k] = rot2[k];
    if (x > PX_R(0.0)) {
      for (int k = 0; k < 3; k++) {
        PXR o = height * axis[k];
        pos_cap[k] = pos2[k] + o;
      }
    } else {
      PXR nh = -height;
      for (int k = 0; k < 3; k++) {
        PXR o = nh * axis[k];
        pos_cap[k] = pos2[k] + o;
      }
      for (int r = 0; r < 3; r++) {
        PXR m0 = -rot2[3 * r];
        PXR m2 = -rot2[3 * r + 2];
        capmat[3 * r] = m0;
        capmat[3 * r + 2] = m2;
      }
    }
    n = pxk_cpRawPlaneSphere(c, margin, pos_cap, capmat, pos1, rad1);
    if (n == 1) {
      for (int k = 0; k < 3; k++) {
        PXR f = c[PXK_CP_NRM + k] * PX_R(-1.0);
        c[PXK_CP_NRM + k] = f;
      }
    }
  } else {
    // rim: the rim point nearest the centre, as a sphere of radius zero (p_proj is not zero
    // here: the centre is outside the radius)
    PXR pr = PX_SQRT(p_proj_sqr);
    PXR scl = radius / pr;
    PXR hs = height;
    if (!(x > PX_R(0.0))) hs = -height;
    PXR rim[3];
    for (int k = 0; k < 3; k++) {
      PXR p = p_proj[k] * scl;
      PXR h = axis[k] * hs;
      PXR q = h + p;
      rim[k] = q + pos2[k];
    }
    PXR zero = PX_ZERO;
    n = pxk_cpRawSphereSphere(c, margin, pos1, rot1, rad1, rim, rot2, zero);
  }
  if (n == 1) n = pxk_cpPut(PX_MDARGC adr, c);
  return n;
}

// capsule : capsule (mjc_CapsuleCapsule)
PX_FN int pxk_colCapsuleCapsule(PX_MDC int g1, int g2, PX_REAL margin, int adr) {
  PXR pos1[3];
  PXR rot1[9];
  PXR pos2[3];
  PXR rot2[9];
  PXR c0[PXK_CP_SIZE];
  PXR c1[PXK_CP_SIZE];
  PXK_GET(3, pos1, D, geom_xpos, 3 * g1);
  PXK_GET(9, rot1, D, geom_xmat, 9 * g1);
  PXK_GET(3, pos2, D, geom_xpos, 3 * g2);
  PXK_GET(9, rot2, D, geom_xmat, 9 * g2);
  PXR rad1 = M(geom_size, 3 * g1);
  PXR len1 = M(geom_size, 3 * g1 + 1);
  PXR rad2 = M(geom_size, 3 * g2);
  PXR len2 = M(geom_size, 3 * g2 + 1);
  int n = pxk_cpRawCapsuleCapsule(c0, c1, margin, pos1, rot1, rad1, len1, pos2, rot2, rad2, len2);
  int cnt = 0;
  if (n >= 1) cnt += pxk_cpPut(PX_MDARGC adr, c0);
  if (n >= 2) cnt += pxk_cpPut(PX_MDARGC adr + cnt, c1);
  return cnt;
}

#endif  // PX_KERN_COLLIDE_PRIM_H_
