// SPDX-License-Identifier: Apache-2.0
// Tendon lengths, paths and sparse Jacobians (MuJoCo 3.12's mj_tendon), and the tendon and
// actuator velocities of the velocity stage (the first lines of mj_fwdVelocity).
//
// Fixed tendons: length = sum of coef * qpos, one Jacobian entry per listed joint. Spatial
// tendons: a path of sites, optionally wrapping around a sphere or cylinder between two sites
// (with an optional side site that picks the side), and pulleys that divide the length and
// Jacobian of what follows. Per path segment whose end points lie on different bodies, the
// Jacobian row gains (J(p1) - J(p0))' * unit(p1 - p0) on the merged dof chains of the two bodies,
// where the point Jacobian of a dof is cdof[3:6] + cdof[0:3] x (p - subtree_com[root]).
//   reads:  m->tendon_*, wrap_*, ten_J_rownnz/rowadr/colind, site_bodyid, geom_bodyid/size,
//           body_weldid/dofnum/dofadr/rootid, dof_parentid, jnt_qposadr/dofadr,
//           d->qpos, site_xpos, geom_xpos/xmat, subtree_com, cdof (the kinematics stage)
//   writes: d->ten_length, ten_J, ten_wrapadr, ten_wrapnum, wrap_obj, wrap_xpos
// Ordering: tendons are independent (lane-strided); each writes its path points at the scratch
// slot 2 * tendon_adr (a path of n elements has at most 2n points), then lane 0 packs the paths
// in tendon order as MuJoCo numbers them and zeroes the unused tail. Every float operation is in
// MuJoCo's order (engine_core_smooth.c, engine_util_misc.c's wrapping, engine_core_util.c's
// Jacobians, engine_util_sparse.c's sparse products).
#ifndef PX_KERN_TENDON_H_
#define PX_KERN_TENDON_H_

#include "kern/jac.h"
#include "kern/kinematics.h"
#include "kern/libm.h"
#include "kern/spatial.h"

// pi as MuJoCo spells it (mjPI)
#define PXK_TEN_PI PX_R(3.14159265358979323846)

//---------------------------------- small math ----------------------------------------------------

// translational Jacobian column of dof da at a point with offset off from its root's subtree com
PX_FN void pxk_tenJacCol(PX_MDC PX_OUT(PX_REAL, jp, 3), PX_IN(PX_REAL, off, 3), int da) {
  PXR rot[3];
  PXR t[3];
  PXK_GET(3, rot, D, cdof, 6 * da);
  pxk_cross(t, rot, off);
  jp[0] = D(cdof, 6 * da + 3) + t[0];
  jp[1] = D(cdof, 6 * da + 4) + t[1];
  jp[2] = D(cdof, 6 * da + 5) + t[2];
}

// sparse row . dense qvel in MuJoCo's order (mju_dotSparse: four partial sums over blocks of
// four, combined as (s0 + s2) + (s1 + s3), then the tail in order); mat is ten_J or
// actuator_moment, selected by `which` (0: ten_J with model colind, 1: actuator_moment)
PX_FN PX_REAL pxk_tenDotSparse(PX_MDC int which, int adr, int nnz) {
  PXR s0 = PX_ZERO;
  PXR s1 = PX_ZERO;
  PXR s2 = PX_ZERO;
  PXR s3 = PX_ZERO;
  PXR a;
  PXR res = PX_ZERO;
  int i = 0;
  for (; i <= nnz - 4; i += 4) {
    for (int k = 0; k < 4; k++) {
      if (which == 0) {
        a = D(ten_J, adr + i + k) * D(qvel, M(ten_J_colind, adr + i + k));
      } else {
        a = D(actuator_moment, adr + i + k) * D(qvel, D(moment_colind, adr + i + k));
      }
      if (k == 0) s0 += a;
      if (k == 1) s1 += a;
      if (k == 2) s2 += a;
      if (k == 3) s3 += a;
    }
  }
  if (nnz >= 4) {
    PXR lo = s0 + s2;
    PXR hi = s1 + s3;
    res = lo + hi;
  }
  for (; i < nnz; i++) {
    if (which == 0) {
      a = D(ten_J, adr + i) * D(qvel, M(ten_J_colind, adr + i));
    } else {
      a = D(actuator_moment, adr + i) * D(qvel, D(moment_colind, adr + i));
    }
    res += a;
  }
  return res;
}

//---------------------------------- wrapping ------------------------------------------------------

// do 2D segments p1-p2 and p3-p4 intersect (inclusive of the end points)
PX_FN int pxk_tenIntersect(PX_IN(PX_REAL, p1, 2), PX_IN(PX_REAL, p2, 2), PX_IN(PX_REAL, p3, 2),
                           PX_IN(PX_REAL, p4, 2)) {
  PXR det = (p4[1] - p3[1]) * (p2[0] - p1[0]) - (p4[0] - p3[0]) * (p2[1] - p1[1]);
  PXR adet = PX_ABS(det);
  if (adet < PXK_MINVAL) return 0;
  PXR a = ((p4[0] - p3[0]) * (p1[1] - p3[1]) - (p4[1] - p3[1]) * (p1[0] - p3[0])) / det;
  PXR b = ((p2[0] - p1[0]) * (p1[1] - p3[1]) - (p2[1] - p1[1]) * (p1[0] - p3[0])) / det;
  return (a >= PX_R(0.0) && a <= PX_R(1.0) && b >= PX_R(0.0) && b <= PX_R(1.0)) ? 1 : 0;
}

// arc length between two 2D points on a circle, the long way round when ind says so
PX_FN PX_REAL pxk_tenArc(PX_IN(PX_REAL, p0, 2), PX_IN(PX_REAL, p1, 2), int ind, PX_REAL radius) {
  PXR p0n[2];
  PXR p1n[2];
  p0n[0] = p0[0];
  p0n[1] = p0[1];
  p1n[0] = p1[0];
  p1n[1] = p1[1];
  pxk_normalize2(p0n);
  pxk_normalize2(p1n);
  PXR c = p0n[0] * p1n[0] + p0n[1] * p1n[1];
  PXR angle = pxk_acos(c);
  PXR cr = p0[1] * p1[0] - p0[0] * p1[1];
  if ((cr > PX_R(0.0) && ind != 0) || (cr < PX_R(0.0) && ind == 0)) {
    PXR twopi = PX_R(2.0) * PXK_TEN_PI;
    angle = twopi - angle;
  }
  PXR res = radius * angle;
  return res;
}

// 2D wrap of the segment end[0:2]-end[2:4] around a circle at the origin (wrap_circle);
// hasside: side[0:2] is the scaled side point. Returns the arc length or -1, tangent points in pnt
PX_FN PX_REAL pxk_tenWrapCircle(PX_OUT(PX_REAL, pnt, 4), PX_IN(PX_REAL, end, 4), int hasside,
                                PX_IN(PX_REAL, side, 2), PX_REAL radius) {
  PXR sqlen0 = end[0] * end[0] + end[1] * end[1];
  PXR sqlen1 = end[2] * end[2] + end[3] * end[3];
  PXR sqrad = radius * radius;
  if (sqlen0 < sqrad || sqlen1 < sqrad || radius < PXK_MINVAL) return PX_R(-1.0);

  PXR dif[2];
  dif[0] = end[2] - end[0];
  dif[1] = end[3] - end[1];
  PXR dd = dif[0] * dif[0] + dif[1] * dif[1];
  if (dd < PXK_MINVAL) return PX_R(-1.0);

  // nearest point of the segment to the origin
  PXR a = -(dif[0] * end[0] + dif[1] * end[1]) / dd;
  if (a < PX_R(0.0)) {
    a = PX_R(0.0);
  } else if (a > PX_R(1.0)) {
    a = PX_R(1.0);
  }
  PXR tmp[2];
  tmp[0] = a * dif[0] + end[0];
  tmp[1] = a * dif[1] + end[1];
  PXR tt = tmp[0] * tmp[0] + tmp[1] * tmp[1];
  PXR st = side[0] * tmp[0] + side[1] * tmp[1];
  if (tt > sqrad && (hasside == 0 || st >= PX_R(0.0))) return PX_R(-1.0);

  PXR d0 = sqlen0 - sqrad;
  PXR d1 = sqlen1 - sqrad;
  PXR sqrt0 = PX_SQRT(d0);
  PXR sqrt1 = PX_SQRT(d1);

  // the two tangent solutions and their goodness
  PXR sol[8];  // sol[4 * i + 2 * e + c]: solution i, end e, coordinate c
  PXR good[2];
  PXR e0[2];
  PXR e1[2];
  PXR s0[2];
  PXR s1[2];
  e0[0] = end[0];
  e0[1] = end[1];
  e1[0] = end[2];
  e1[1] = end[3];
  for (int i = 0; i < 2; i++) {
    PXR sr = (i == 0 ? PX_R(1.0) : PX_R(-1.0)) * radius;
    sol[4 * i + 0] = (end[0] * sqrad + sr * end[1] * sqrt0) / sqlen0;
    sol[4 * i + 1] = (end[1] * sqrad - sr * end[0] * sqrt0) / sqlen0;
    sol[4 * i + 2] = (end[2] * sqrad - sr * end[3] * sqrt1) / sqlen1;
    sol[4 * i + 3] = (end[3] * sqrad + sr * end[2] * sqrt1) / sqlen1;
    if (hasside != 0) {
      tmp[0] = sol[4 * i + 0] + sol[4 * i + 2];
      tmp[1] = sol[4 * i + 1] + sol[4 * i + 3];
      pxk_normalize2(tmp);
      good[i] = tmp[0] * side[0] + tmp[1] * side[1];
    } else {
      tmp[0] = sol[4 * i + 0] - sol[4 * i + 2];
      tmp[1] = sol[4 * i + 1] - sol[4 * i + 3];
      PXR sq = tmp[0] * tmp[0] + tmp[1] * tmp[1];
      good[i] = -sq;
    }
    s0[0] = sol[4 * i + 0];
    s0[1] = sol[4 * i + 1];
    s1[0] = sol[4 * i + 2];
    s1[1] = sol[4 * i + 3];
    if (pxk_tenIntersect(e0, s0, e1, s1) != 0) good[i] = PX_R(-10000.0);
  }

  // the better one, unless its path crosses itself
  int sel = good[0] > good[1] ? 0 : 1;
  pnt[0] = sol[4 * sel + 0];
  pnt[1] = sol[4 * sel + 1];
  pnt[2] = sol[4 * sel + 2];
  pnt[3] = sol[4 * sel + 3];
  s0[0] = pnt[0];
  s0[1] = pnt[1];
  s1[0] = pnt[2];
  s1[1] = pnt[3];
  if (pxk_tenIntersect(e0, s0, e1, s1) != 0) return PX_R(-1.0);
  return pxk_tenArc(s0, s1, sel, radius);
}

// 2D wrap with the side point inside the circle (wrap_inside): a single tangent point found by
// Newton's method on asin(A z) + asin(B z) - 2 asin(z) + G = 0. Returns 0 or -1
PX_FN PX_REAL pxk_tenWrapInside(PX_OUT(PX_REAL, pnt, 4), PX_IN(PX_REAL, end, 4), PX_REAL radius) {
  PXR len0 = PX_SQRT(end[0] * end[0] + end[1] * end[1]);
  PXR len1 = PX_SQRT(end[2] * end[2] + end[3] * end[3]);
  PXR dif[2];
  dif[0] = end[2] - end[0];
  dif[1] = end[3] - end[1];
  PXR dd = dif[0] * dif[0] + dif[1] * dif[1];

  if (len0 <= radius || len1 <= radius || radius < PXK_MINVAL || len0 < PXK_MINVAL ||
      len1 < PXK_MINVAL) {
    return PX_R(-1.0);
  }

  // the segment crosses the circle: no wrap
  if (dd > PXK_MINVAL) {
    PXR a = -(dif[0] * end[0] + dif[1] * end[1]) / dd;
    if (a > PX_R(0.0) && a < PX_R(1.0)) {
      PXR t0 = end[0] + dif[0] * a;
      PXR t1 = end[1] + dif[1] * a;
      PXR tn = PX_SQRT(t0 * t0 + t1 * t1);
      if (tn <= radius) return PX_R(-1.0);
    }
  }

  // fallback on numerical failure: the direction of the mean of the end points
  PXR v[2];
  v[0] = PX_R(0.5) * (end[0] + end[2]);
  v[1] = PX_R(0.5) * (end[1] + end[3]);
  pxk_normalize2(v);
  pnt[0] = v[0] * radius;
  pnt[1] = v[1] * radius;
  pnt[2] = pnt[0];
  pnt[3] = pnt[1];

  PXR A = radius / len0;
  PXR B = radius / len1;
  PXR cosG = (len0 * len0 + len1 * len1 - dd) / (PX_R(2.0) * len0 * len1);
  PXR lo = PX_R(-1.0) + PXK_MINVAL;
  PXR hi = PX_R(1.0) - PXK_MINVAL;
  if (cosG < lo) {
    return PX_R(-1.0);
  } else if (cosG > hi) {
    return PX_R(0.0);
  }
  PXR G = pxk_acos(cosG);

  PXR z = PX_R(1.0) - PX_R(1e-7);
  PXR az = A * z;
  PXR bz = B * z;
  PXR f = pxk_asin(az) + pxk_asin(bz) - PX_R(2.0) * pxk_asin(z) + G;
  if (f > PX_R(0.0)) return PX_R(0.0);

  // Newton iterations, moving left
  int iter = 0;
  PXR af = PX_ABS(f);
  for (; iter < 20 && af > PX_R(1e-6); iter++) {
    PXR qa = PX_SQRT(PX_R(1.0) - z * z * A * A);
    PXR qb = PX_SQRT(PX_R(1.0) - z * z * B * B);
    PXR qz = PX_SQRT(PX_R(1.0) - z * z);
    qa = PXK_MINVAL >= qa ? PXK_MINVAL : qa;
    qb = PXK_MINVAL >= qb ? PXK_MINVAL : qb;
    qz = PXK_MINVAL >= qz ? PXK_MINVAL : qz;
    PXR df = A / qa + B / qb - PX_R(2.0) / qz;
    if (df > -PXK_MINVAL) return PX_R(0.0);
    PXR z1 = z - f / df;
    if (z1 > z) return PX_R(0.0);
    z = z1;
    az = A * z;
    bz = B * z;
    f = pxk_asin(az) + pxk_asin(bz) - PX_R(2.0) * pxk_asin(z) + G;
    if (f > PX_R(1e-6)) return PX_R(0.0);
    af = PX_ABS(f);
  }
  if (iter >= 20) return PX_R(0.0);

  // the tangent point: rotate the end point with positive cross product by ang
  PXR ang;
  PXR cr = end[0] * end[3] - end[1] * end[2];
  if (cr > PX_R(0.0)) {
    v[0] = end[0];
    v[1] = end[1];
    PXR as = pxk_asin(az);
    ang = pxk_asin(z) - as;
  } else {
    v[0] = end[2];
    v[1] = end[3];
    PXR bs = pxk_asin(bz);
    ang = pxk_asin(z) - bs;
  }
  pxk_normalize2(v);
  PXR ca = pxk_cos(ang);
  PXR sa = pxk_sin(ang);
  pnt[0] = radius * (ca * v[0] - sa * v[1]);
  pnt[1] = radius * (sa * v[0] + ca * v[1]);
  pnt[2] = pnt[0];
  pnt[3] = pnt[1];
  return PX_R(0.0);
}

// wrap the segment x0-x1 around a sphere or cylinder (mju_wrap); hasside: side is the side
// site's position. Returns the wrap length or -1; the two tangent points in wpnt
PX_FN PX_REAL pxk_tenWrap(PX_OUT(PX_REAL, wpnt, 6), PX_IN(PX_REAL, x0, 3), PX_IN(PX_REAL, x1, 3),
                          PX_IN(PX_REAL, xpos, 3), PX_IN(PX_REAL, xmat, 9), PX_REAL radius,
                          int wtype, int hasside, PX_IN(PX_REAL, side, 3)) {
  PXR tmp[3];
  PXR p0[3];
  PXR p1[3];
  pxk_sub3(tmp, x0, xpos);
  pxk_mulMatTVec3(p0, xmat, tmp);
  pxk_sub3(tmp, x1, xpos);
  pxk_mulMatTVec3(p1, xmat, tmp);
  PXR n0 = PX_SQRT(p0[0] * p0[0] + p0[1] * p0[1] + p0[2] * p0[2]);
  PXR n1 = PX_SQRT(p1[0] * p1[0] + p1[1] * p1[1] + p1[2] * p1[2]);
  if (n0 < PXK_MINVAL || n1 < PXK_MINVAL) return PX_R(-1.0);

  // the 2D frame of the wrap
  PXR ax0[3];
  PXR ax1[3];
  PXR normal[3];
  if (wtype == PX_WRAP_SPHERE) {
    pxk_copy3(ax0, p0);
    pxk_normalize3(ax0);
    pxk_cross(normal, p0, p1);
    PXR nrm = pxk_normalize3(normal);
    if (nrm < PXK_MINVAL) {
      // p0, p1 parallel: any normal, from the axis with zero at the largest component of ax0
      int i = 0;
      PXR m0 = PX_ABS(ax0[0]);
      PXR m1 = PX_ABS(ax0[1]);
      PXR m2 = PX_ABS(ax0[2]);
      if (m1 > m0 && m1 > m2) i = 1;
      if (m2 > m0 && m2 > m1) i = 2;
      ax1[0] = PX_R(1.0);
      ax1[1] = PX_R(1.0);
      ax1[2] = PX_R(1.0);
      ax1[i] = PX_R(0.0);
      pxk_cross(normal, ax0, ax1);
      pxk_normalize3(normal);
    }
    pxk_cross(ax1, normal, ax0);
    pxk_normalize3(ax1);
  } else {
    ax0[0] = PX_R(1.0);
    ax0[1] = PX_R(0.0);
    ax0[2] = PX_R(0.0);
    ax1[0] = PX_R(0.0);
    ax1[1] = PX_R(1.0);
    ax1[2] = PX_R(0.0);
  }

  PXR e[4];
  e[0] = pxk_dot3(p0, ax0);
  e[1] = pxk_dot3(p0, ax1);
  e[2] = pxk_dot3(p1, ax0);
  e[3] = pxk_dot3(p1, ax1);

  // side point in the same frame, scaled to the radius
  PXR s[3];
  PXR sd[2];
  sd[0] = PX_ZERO;
  sd[1] = PX_ZERO;
  PXR sn = PX_ZERO;
  if (hasside != 0) {
    pxk_sub3(tmp, side, xpos);
    pxk_mulMatTVec3(s, xmat, tmp);
    sd[0] = pxk_dot3(s, ax0);
    sd[1] = pxk_dot3(s, ax1);
    pxk_normalize2(sd);
    sd[0] *= radius;
    sd[1] *= radius;
    sn = PX_SQRT(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
  }

  PXR wlen;
  PXR pnt[4];
  if (hasside != 0 && sn < radius) {
    wlen = pxk_tenWrapInside(pnt, e, radius);
  } else {
    wlen = pxk_tenWrapCircle(pnt, e, hasside, sd, radius);
  }
  if (wlen < PX_R(0.0)) return PX_R(-1.0);

  // back to 3D in the local frame
  PXR res[6];
  for (int i = 0; i < 2; i++) {
    for (int k = 0; k < 3; k++) {
      PXR u = ax0[k] * pnt[2 * i];
      PXR w = ax1[k] * pnt[2 * i + 1];
      res[3 * i + k] = u + w;
    }
  }

  // cylinder: heights interpolated along the unrolled path, length corrected for the rise
  if (wtype == PX_WRAP_CYLINDER) {
    PXR dx0 = p0[0] - res[0];
    PXR dy0 = p0[1] - res[1];
    PXR dx1 = p1[0] - res[3];
    PXR dy1 = p1[1] - res[4];
    PXR L0 = PX_SQRT(dx0 * dx0 + dy0 * dy0);
    PXR L1 = PX_SQRT(dx1 * dx1 + dy1 * dy1);
    PXR dz = p1[2] - p0[2];
    PXR tot = L0 + wlen + L1;
    PXR h0 = dz * L0 / tot;
    PXR L0w = L0 + wlen;
    PXR h1 = dz * L0w / tot;
    res[2] = p0[2] + h0;
    res[5] = p0[2] + h1;
    PXR hd = res[5] - res[2];
    PXR height = PX_ABS(hd);
    wlen = PX_SQRT(wlen * wlen + height * height);
  }

  // to the global frame
  PXR r[3];
  PXR g[3];
  for (int i = 0; i < 2; i++) {
    r[0] = res[3 * i];
    r[1] = res[3 * i + 1];
    r[2] = res[3 * i + 2];
    pxk_mulMatVec3(g, xmat, r);
    wpnt[3 * i] = g[0] + xpos[0];
    wpnt[3 * i + 1] = g[1] + xpos[1];
    wpnt[3 * i + 2] = g[2] + xpos[2];
  }
  return wlen;
}

//---------------------------------- tendon stage --------------------------------------------------

// add (J(p1) - J(p0))' * unit(p1 - p0) * scl to tendon row `ten` over the merged dof chains of
// bodies b0 (point p0) and b1 (point p1) (mj_jacDifPair + mju_mulMatTVec + mju_combineSparseInc)
PX_FN void pxk_tenSegmentJac(PX_MDC int ten, int b0, int b1, PX_IN(PX_REAL, p0, 3),
                             PX_IN(PX_REAL, p1, 3), PX_REAL scl) {
  PXR dif[3];
  PXR off0[3];
  PXR off1[3];
  PXR j0[3];
  PXR j1[3];
  PXR jd[3];
  pxk_sub3(dif, p1, p0);
  pxk_normalize3(dif);
  pxk_jacOffset(PX_MDARGC off0, p0, b0);
  pxk_jacOffset(PX_MDARGC off1, p1, b1);
  if (MS(nv) == 0) return;

  int rowadr = M(ten_J_rowadr, ten);
  int rownnz = M(ten_J_rownnz, ten);
  int da0 = pxk_jacLastDof(PX_MDARGC b0);
  int da1 = pxk_jacLastDof(PX_MDARGC b1);
  while (da0 >= 0 || da1 >= 0) {
    int da = da0 > da1 ? da0 : da1;
    int in0 = da0 == da ? 1 : 0;
    int in1 = da1 == da ? 1 : 0;
    if (in0 != 0) pxk_tenJacCol(PX_MDARGC j0, off0, da);
    if (in1 != 0) pxk_tenJacCol(PX_MDARGC j1, off1, da);
    for (int k = 0; k < 3; k++) {
      if (in0 != 0 && in1 != 0) {
        jd[k] = j1[k] - j0[k];
      } else if (in1 != 0) {
        jd[k] = j1[k];
      } else {
        jd[k] = -j0[k];
      }
    }
    PXR t = jd[0] * dif[0] + jd[1] * dif[1] + jd[2] * dif[2];

    // add at the column's position in the row (dropped if the pattern lacks it, as MuJoCo does)
    for (int c = rowadr; c < rowadr + rownnz; c++) {
      if (M(ten_J_colind, c) == da) {
        PXR v = D(ten_J, c) + scl * t;
        D(ten_J, c) = v;
      }
    }
    if (in0 != 0) da0 = M(dof_parentid, da0);
    if (in1 != 0) da1 = M(dof_parentid, da1);
  }
}

// store a path point of a tendon at wrap slot w
PX_FN void pxk_tenPoint(PX_MDC int w, int obj, PX_IN(PX_REAL, pnt, 3)) {
  D(wrap_obj, w) = obj;
  D(wrap_xpos, 3 * w) = pnt[0];
  D(wrap_xpos, 3 * w + 1) = pnt[1];
  D(wrap_xpos, 3 * w + 2) = pnt[2];
}

// length, Jacobian row and path of tendon i; path points go to wrap slots from 2 * tendon_adr
PX_FN void pxk_tendonOne(PX_MDC int i) {
  int adr = M(tendon_adr, i);
  int num = M(tendon_num, i);
  int rowadr = M(ten_J_rowadr, i);
  int rownnz = M(ten_J_rownnz, i);
  PXR len = PX_ZERO;
  for (int c = rowadr; c < rowadr + rownnz; c++) D(ten_J, c) = PX_R(0.0);
  D(ten_wrapnum, i) = 0;

  // fixed tendon
  if (num > 0 && M(wrap_type, adr) == PX_WRAP_JOINT) {
    for (int j = 0; j < num; j++) {
      int k = M(wrap_objid, adr + j);
      PXR coef = M(wrap_prm, adr + j);
      len += coef * D(qpos, M(jnt_qposadr, k));
      int dofadr = M(jnt_dofadr, k);
      for (int c = rowadr; c < rowadr + rownnz; c++) {
        if (M(ten_J_colind, c) == dofadr) {
          PXR v = D(ten_J, c) + coef;
          D(ten_J, c) = v;
        }
      }
    }
    D(ten_length, i) = len;
    return;
  }

  // spatial tendon
  int wc = 2 * adr;
  int nw = 0;
  PXR divisor = PX_R(1.0);
  PXR zero3[3];
  PXR x0[3];
  PXR x1[3];
  PXR gpos[3];
  PXR gmat[9];
  PXR side[3];
  PXR wpnt[6];
  PXR q0[3];
  PXR q1[3];
  zero3[0] = PX_ZERO;
  zero3[1] = PX_ZERO;
  zero3[2] = PX_ZERO;
  for (int k = 0; k < 6; k++) wpnt[k] = PX_ZERO;  // written before use on every path
  int j = 0;
  while (j < num - 1) {
    int type0 = M(wrap_type, adr + j);
    int type1 = M(wrap_type, adr + j + 1);
    int id0 = M(wrap_objid, adr + j);
    int id1 = M(wrap_objid, adr + j + 1);

    // pulley: a new divisor, and a marker point
    if (type0 == PX_WRAP_PULLEY || type1 == PX_WRAP_PULLEY) {
      if (type0 == PX_WRAP_PULLEY) {
        divisor = M(wrap_prm, adr + j);
        pxk_tenPoint(PX_MDARGC wc, -2, zero3);
        nw++;
        wc++;
      }
      j++;
      continue;
    }

    // a site, then possibly a wrap object and the next site
    PXR wlen = PX_R(-1.0);
    int wrapid = -1;
    int wraptype = PX_WRAP_NONE;
    PXK_GET(3, x0, D, site_xpos, 3 * id0);
    int wb0 = M(site_bodyid, id0);
    if (type1 == PX_WRAP_SPHERE || type1 == PX_WRAP_CYLINDER) {
      wraptype = type1;
      wrapid = id1;
      id1 = M(wrap_objid, adr + j + 2);
      PXR sidef = M(wrap_prm, adr + j + 1) + PX_R(0.5);
      int sideid = PX_INT(pxk_floor(sidef));
      PXK_GET(3, x1, D, site_xpos, 3 * id1);
      PXK_GET(3, gpos, D, geom_xpos, 3 * wrapid);
      PXK_GET(9, gmat, D, geom_xmat, 9 * wrapid);
      if (sideid >= 0) {
        PXK_GET(3, side, D, site_xpos, 3 * sideid);
      } else {
        pxk_copy3(side, zero3);
      }
      wlen = pxk_tenWrap(wpnt, x0, x1, gpos, gmat, M(geom_size, 3 * wrapid), wraptype,
                         sideid >= 0 ? 1 : 0, side);
    } else {
      PXK_GET(3, x1, D, site_xpos, 3 * id1);
    }
    int wb3 = M(site_bodyid, id1);

    if (wlen < PX_R(0.0)) {
      // straight segment
      PXR dx = x0[0] - x1[0];
      PXR dy = x0[1] - x1[1];
      PXR dz = x0[2] - x1[2];
      PXR dist = PX_SQRT(dx * dx + dy * dy + dz * dz);
      len += dist / divisor;
    } else {
      // site, tangent point, arc, tangent point, site
      PXR ax = x0[0] - wpnt[0];
      PXR ay = x0[1] - wpnt[1];
      PXR az = x0[2] - wpnt[2];
      PXR bx = wpnt[3] - x1[0];
      PXR by = wpnt[4] - x1[1];
      PXR bz = wpnt[5] - x1[2];
      PXR da = PX_SQRT(ax * ax + ay * ay + az * az);
      PXR db = PX_SQRT(bx * bx + by * by + bz * bz);
      PXR seg = (da + wlen + db) / divisor;
      len += seg;
    }

    // Jacobian of each segment whose ends lie on different bodies
    PXR scl = PX_R(1.0) / divisor;
    if (wlen < PX_R(0.0)) {
      if (wb0 != wb3) pxk_tenSegmentJac(PX_MDARGC i, wb0, wb3, x0, x1, scl);
    } else {
      int gb = M(geom_bodyid, wrapid);
      for (int k = 0; k < 3; k++) {
        q0[k] = wpnt[k];
        q1[k] = wpnt[3 + k];
      }
      if (wb0 != gb) pxk_tenSegmentJac(PX_MDARGC i, wb0, gb, x0, q0, scl);
      if (wb3 != gb) pxk_tenSegmentJac(PX_MDARGC i, gb, wb3, q1, x1, scl);
    }

    // path points
    pxk_tenPoint(PX_MDARGC wc, -1, x0);
    if (wlen >= PX_R(0.0)) {
      pxk_tenPoint(PX_MDARGC wc + 1, wrapid, q0);
      pxk_tenPoint(PX_MDARGC wc + 2, wrapid, q1);
    }
    nw += wlen < PX_R(0.0) ? 1 : 3;
    wc += wlen < PX_R(0.0) ? 1 : 3;

    j += wraptype != PX_WRAP_NONE ? 2 : 1;

    // the last site before a pulley or the end
    if (j == num - 1 || M(wrap_type, adr + j + 1) == PX_WRAP_PULLEY) {
      pxk_tenPoint(PX_MDARGC wc, -1, x1);
      nw++;
      wc++;
    }
  }
  D(ten_length, i) = len;
  D(ten_wrapnum, i) = nw;
}

// the tendon stage of one world
PX_FN void pxk_tendon(PX_MD) {
  for (int i = PX_LANE; i < MS(ntendon); i += PX_NLANE) pxk_tendonOne(PX_MDARGC i);
  PX_SYNC();

  // pack the paths in tendon order (a path never moves up: its address is at most 2 * adr)
  if (PX_LANE == 0) {
    int count = 0;
    for (int i = 0; i < MS(ntendon); i++) {
      int src = 2 * M(tendon_adr, i);
      int nw = D(ten_wrapnum, i);
      D(ten_wrapadr, i) = count;
      if (src != count) {
        for (int w = 0; w < nw; w++) {
          D(wrap_obj, count + w) = D(wrap_obj, src + w);
          for (int k = 0; k < 3; k++)
            D(wrap_xpos, 3 * (count + w) + k) = D(wrap_xpos, 3 * (src + w) + k);
        }
      }
      count += nw;
    }
    if (MS(ntendon) > 0) {
      for (int w = count; w < 2 * MS(nwrap); w++) {
        D(wrap_obj, w) = 0;
        for (int k = 0; k < 3; k++) D(wrap_xpos, 3 * w + k) = PX_R(0.0);
      }
    }
  }
}

// tendon and actuator velocities: the sparse rows of ten_J and actuator_moment times qvel
PX_FN void pxk_tendonVelocity(PX_MD) {
  for (int i = PX_LANE; i < MS(ntendon); i += PX_NLANE) {
    D(ten_velocity, i) = pxk_tenDotSparse(PX_MDARGC 0, M(ten_J_rowadr, i), M(ten_J_rownnz, i));
  }
  int off = (MOPT(disableflags) & PX_DSBL_ACTUATION) != 0 ? 1 : 0;
  for (int i = PX_LANE; i < MS(nout); i += PX_NLANE) {
    if (off != 0) {
      D(actuator_velocity, i) = PX_R(0.0);
    } else {
      D(actuator_velocity, i) =
          pxk_tenDotSparse(PX_MDARGC 1, D(moment_rowadr, i), D(moment_rownnz, i));
    }
  }
}

#endif  // PX_KERN_TENDON_H_
