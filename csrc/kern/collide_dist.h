// SPDX-License-Identifier: Apache-2.0
// Distance between two geoms (MuJoCo 3.12's mj_geomDistance and mj_geomDistanceCCD) in the
// kernel dialect.
//
// Two routes, as MuJoCo picks them:
//  - the pairs MuJoCo sends to its general convex collider (mjc_Convex) or to mjc_BoxBox run,
//    with nativeccd on, one native GJK distance query (pxk_ccd with a distance cutoff of distmax,
//    one contact, no polygon multi-contact) on the geoms in the caller's order; the witness
//    points are the result's from (on geom1) and to (on geom2);
//  - every other pair runs its narrow-phase routine (types ascending) with distmax as the margin
//    and keeps the closest pre-contact: from and to lie half its distance either side of its
//    position along its normal, signed so that from is on geom1.
// The pre-contacts of the second route go to the narrow-phase room past the contact capacity
// (records PXK_NCONMAX on), which holds no kept contact.
#ifndef PX_KERN_COLLIDE_DIST_H_
#define PX_KERN_COLLIDE_DIST_H_

#include "kern/collide.h"

// the native GJK route may be left out of a GPU entry point (shaders/sensor_distprim.comp, with
// PXK_NARROW_CONVEX and PXK_NARROW_HFIELD 0): the host dispatches it only for sensors whose
// pairs need none of them
#ifndef PXK_DIST_CCD
#define PXK_DIST_CCD 1
#endif

// 1 when MuJoCo's collision table names mjc_Convex or mjc_BoxBox for the pair of geom types
// (types ascending)
PX_FN int pxk_distCcdRoute(int t1, int t2) {
  if (t1 == PX_GEOM_PLANE || t1 == PX_GEOM_HFIELD) return 0;
  if (t2 == PX_GEOM_SDF || t1 == PX_GEOM_SDF) return 0;
  if (t1 == PX_GEOM_SPHERE) return (t2 == PX_GEOM_ELLIPSOID || t2 == PX_GEOM_MESH) ? 1 : 0;
  if (t1 == PX_GEOM_CAPSULE) return (t2 != PX_GEOM_CAPSULE && t2 != PX_GEOM_BOX) ? 1 : 0;
  return 1;
}

// smallest distance between geoms geom1 and geom2 up to distmax (mj_geomDistance); fromto gets
// the closest points (on geom1, then on geom2), or zeros when none was found within distmax
PX_FN PX_REAL pxk_geomDistance(PX_MDC int geom1, int geom2, PX_REAL distmax,
                               PX_OUT(PX_REAL, fromto, 6)) {
  for (int k = 0; k < 6; k++) fromto[k] = PX_ZERO;
  PXR dist = distmax;
  int flip = M(geom_type, geom1) > M(geom_type, geom2) ? 1 : 0;
  int g1 = flip == 1 ? geom2 : geom1;
  int g2 = flip == 1 ? geom1 : geom2;
  int t1 = M(geom_type, g1);
  int t2 = M(geom_type, g2);
  if (pxk_narrowExists(t1, t2) == 0 || t1 == PX_GEOM_SDF || t2 == PX_GEOM_SDF) return dist;

#if PXK_DIST_CCD
  // native GJK distance, geoms in the caller's order
  if ((MOPT(disableflags) & PX_DSBL_NATIVECCD) == 0 && pxk_distCcdRoute(t1, t2) == 1) {
    PXR obj1[PXK_OBJR];
    PXR obj2[PXK_OBJR];
    int oi1[PXK_OBJI];
    int oi2[PXK_OBJI];
    PXR sr[PXK_SR];
    int si[PXK_SI];
    for (int i = 0; i < PXK_SR; i++) sr[i] = PX_ZERO;
    for (int i = 0; i < PXK_SI; i++) si[i] = 0;
    pxk_ccdInit(PX_MDARGC geom1, PX_ZERO, obj1, oi1);
    pxk_ccdInit(PX_MDARGC geom2, PX_ZERO, obj2, oi2);
    PXR cd = pxk_ccd(PX_MDARGC sr, si, obj1, oi1, obj2, oi2, 1, distmax);
    if (si[PXK_SI_NX] > 0) {
      for (int k = 0; k < 3; k++) {
        fromto[k] = sr[PXK_SR_X1 + k];
        fromto[3 + k] = sr[PXK_SR_X2 + k];
      }
    }
    // a query beyond the cutoff reports MuJoCo's "infinite" distance
    if (cd < distmax) dist = cd;
    return dist;
  }
#endif

  // the narrow-phase routine with distmax as margin, its closest pre-contact
  int adr = PXK_NCONMAX;
  int n = pxk_narrow(PX_MDARGC g1, g2, distmax, adr);
  int best = -1;
  for (int i = 0; i < n; i++) {
    PXR di = PXK_CON(adr + i).dist;
    if (di < dist) {
      dist = di;
      best = i;
    }
  }
  if (best >= 0) {
    PXR sign = flip == 1 ? PX_R(-1.0) : PX_R(1.0);
    PXR hs = PX_R(-0.5) * sign;
    PXR s1 = hs * dist;
    PXR hs2 = PX_R(0.5) * sign;
    PXR s2 = hs2 * dist;
    for (int k = 0; k < 3; k++) {
      PXR p = PXK_CON(adr + best).pos[k];
      PXR nk = PXK_CON(adr + best).frame[k];
      PXR a = nk * s1;
      PXR b = nk * s2;
      PXR f = p + a;
      PXR t = p + b;
      fromto[k] = f;
      fromto[3 + k] = t;
    }
  }
  return dist;
}

#endif  // PX_KERN_COLLIDE_DIST_H_
