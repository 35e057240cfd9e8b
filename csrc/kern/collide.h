// SPDX-License-Identifier: Apache-2.0
// Collision detection (MuJoCo 3.12's mj_collision) in the kernel dialect: the candidate geom
// pairs in MuJoCo's contact order, its filters, the narrow-phase dispatch and the mixing of
// contact parameters.
//
// Order. MuJoCo sorts the body pairs its broad phase finds by signature (body1 << 16) + body2,
// merges the explicit <pair>s in by their signature (those of a signature ahead of its dynamic
// pairs), and collides the geoms of a body pair by ascending geom of body 1, then of body 2, or,
// through its midphase, sorted by (geom[0], geom[1]) where geom[0] is the one of lower type.
// Its broad phase is not conservative (float32 sweep and prune, bounds without gaps under the
// override flag), so collide_broad.h reproduces it: the walk depends only on the state.
//
// Contacts. A narrow-phase routine (collide_*.h) writes pre-contacts (dist, pos, normal in
// frame[0..2], tangent in frame[3..5]) into the records from PXK_NCON on; the driver keeps them
// when they fit the capacity PXK_NCONMAX (else MuJoCo's CONTACTFULL warning counts the loss),
// completes the frame and sets the mixed parameters as mj_setContact does.
#ifndef PX_KERN_COLLIDE_H_
#define PX_KERN_COLLIDE_H_

#include "kern/libm.h"
#include "kern/spatial.h"
#include "kern/collide_gjk.h"

// contacts one routine may return (mjMAXCONPAIR) and the smallest friction (mjMINMU)
#define PXK_MAXCONPAIR 50
#define PXK_MINMU PX_R(1E-5)

//---------------------------------- filters -------------------------------------------------------

// 1 when neither geom's contype meets the other's conaffinity
PX_FN int pxk_colBitmaskOff(int contype1, int conaffinity1, int contype2, int conaffinity2) {
  return ((contype1 & conaffinity2) == 0 && (contype2 & conaffinity1) == 0) ? 1 : 0;
}

// margin of a geom pair (ipair: its <pair>, or -1), the override option applied
PX_FN PX_REAL pxk_colMargin(PX_MDC int g1, int g2, int ipair) {
  PXR margin = M(geom_margin, g1) + M(geom_margin, g2);
  if (ipair >= 0) margin = M(pair_margin, ipair);
  if ((MOPT(enableflags) & PX_ENBL_OVERRIDE) != 0) margin = MOPT(o_margin);
  return margin;
}

PX_FN PX_REAL pxk_colGap(PX_MDC int g1, int g2, int ipair) {
  PXR gap = M(geom_gap, g1) + M(geom_gap, g2);
  if (ipair >= 0) gap = M(pair_gap, ipair);
  return gap;
}

// distance of geom g's centre above plane geom p
PX_FN PX_REAL pxk_colPlaneDist(PX_MDC int p, int g) {
  PXR dif[3];
  for (int k = 0; k < 3; k++) dif[k] = D(geom_xpos, 3 * g + k) - D(geom_xpos, 3 * p + k);
  PXR dist = dif[0] * D(geom_xmat, 9 * p + 2) + dif[1] * D(geom_xmat, 9 * p + 5) +
             dif[2] * D(geom_xmat, 9 * p + 8);
  return dist;
}

// 1 when the bounding spheres (or a plane and a bounding sphere) are farther apart than bound
PX_FN int pxk_colSphereOff(PX_MDC int g1, int g2, PX_REAL bound) {
  PXR r1 = M(geom_rbound, g1);
  PXR r2 = M(geom_rbound, g2);
  if (r1 > 0 && r2 > 0) {
    PXR dif[3];
    for (int k = 0; k < 3; k++) dif[k] = D(geom_xpos, 3 * g1 + k) - D(geom_xpos, 3 * g2 + k);
    PXR dist2 = dif[0] * dif[0] + dif[1] * dif[1] + dif[2] * dif[2];
    PXR b = r1 + r2 + bound;
    PXR b2 = b * b;
    return dist2 > b2 ? 1 : 0;
  }
  if (M(geom_type, g1) == PX_GEOM_PLANE && r2 > 0) {
    PXR dist = pxk_colPlaneDist(PX_MDARGC g1, g2);
    PXR lim = bound + r2;
    if (dist > lim) return 1;
  }
  if (M(geom_type, g2) == PX_GEOM_PLANE && r1 > 0) {
    PXR dist = pxk_colPlaneDist(PX_MDARGC g2, g1);
    PXR lim = bound + r1;
    if (dist > lim) return 1;
  }
  return 0;
}

// 1 when bodies b1 and b2 never collide: welded together, both without dofs, or parent and
// child (unless filterparent is disabled), or no geom contype of one meets a conaffinity of the
// other (mj_broadphase's filterBodyPair and bitmask test)
PX_FN int pxk_colBodyPairOff(PX_MDC int b1, int b2) {
  int weld1 = M(body_weldid, b1);
  int weld2 = M(body_weldid, b2);
  if (weld1 == weld2) return 1;
  int dof1 = M(body_dofnum, weld1);
  int dof2 = M(body_dofnum, weld2);
  if (dof1 == 0 && dof2 == 0) return 1;
  int parent1 = M(body_weldid, M(body_parentid, weld1));
  int parent2 = M(body_weldid, M(body_parentid, weld2));
  int filterparent = (MOPT(disableflags) & PX_DSBL_FILTERPARENT) == 0 ? 1 : 0;
  if (filterparent == 1 && weld1 != 0 && weld2 != 0 && (weld1 == parent2 || weld2 == parent1)) {
    return 1;
  }
  return pxk_colBitmaskOff(M(body_contype, b1), M(body_conaffinity, b1), M(body_contype, b2),
                           M(body_conaffinity, b2));
}

// 1 when body pair signature `sig` is in the sorted <exclude> list
PX_FN int pxk_colExcluded(PX_MDC int sig) {
  for (int i = 0; i < MS(nexclude); i++) {
    if (M(exclude_signature, i) == sig) return 1;
    if (M(exclude_signature, i) > sig) return 0;
  }
  return 0;
}

//---------------------------------- contact records -----------------------------------------------

// complete a contact frame from its normal (row 0) and a tangent hint (row 1), mju_makeFrame
PX_FN void pxk_makeFrame(PX_INOUT(PX_REAL, frame, 9)) {
  PXR x[3];
  PXR y[3];
  for (int k = 0; k < 3; k++) {
    x[k] = frame[k];
    y[k] = frame[3 + k];
  }
  pxk_normalize3(x);
  PXR yy = y[0] * y[0] + y[1] * y[1] + y[2] * y[2];
  if (yy < PX_R(0.25)) {
    y[0] = PX_ZERO;
    y[1] = PX_ZERO;
    y[2] = PX_ZERO;
    if (x[1] < PX_R(0.5) && x[1] > PX_R(-0.5)) {
      y[1] = PX_R(1.0);
    } else {
      y[2] = PX_R(1.0);
    }
  }
  PXR xy = x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
  for (int k = 0; k < 3; k++) {
    PXR t = x[k] * xy;
    y[k] = y[k] - t;
  }
  pxk_normalize3(y);
  PXR z[3];
  pxk_cross(z, x, y);
  for (int k = 0; k < 3; k++) {
    frame[k] = x[k];
    frame[3 + k] = y[k];
    frame[6 + k] = z[k];
  }
}

// the most contacts MuJoCo allots a geom pair (mj_maxContact)
PX_FN int pxk_maxContact(PX_MDC int g1, int g2, int has_margin) {
  int t1 = M(geom_type, g1);
  int t2 = M(geom_type, g2);
  if (t1 == PX_GEOM_HFIELD || t2 == PX_GEOM_HFIELD) {
    int t = t1 == PX_GEOM_HFIELD ? t2 : t1;
    return (t != PX_GEOM_PLANE && t != PX_GEOM_HFIELD) ? PXK_MAXCONPAIR : 0;
  }
  if (t1 == PX_GEOM_SPHERE || t1 == PX_GEOM_ELLIPSOID || t2 == PX_GEOM_SPHERE ||
      t2 == PX_GEOM_ELLIPSOID) {
    return 1;
  }
  if (t1 == PX_GEOM_BOX && t2 == PX_GEOM_BOX) return 8;
  if (t1 == PX_GEOM_CAPSULE && t2 == PX_GEOM_CAPSULE) return 2;
  if ((t1 == PX_GEOM_CAPSULE && t2 == PX_GEOM_BOX) ||
      (t1 == PX_GEOM_BOX && t2 == PX_GEOM_CAPSULE)) {
    return 4;
  }
  if (t1 == PX_GEOM_PLANE || t2 == PX_GEOM_PLANE) {
    int t = t1 == PX_GEOM_PLANE ? t2 : t1;
    if (t == PX_GEOM_CAPSULE) return 2;
    if (t == PX_GEOM_CYLINDER || t == PX_GEOM_BOX) return 4;
    if (t == PX_GEOM_MESH) return 3;
    return 0;
  }
  if ((MOPT(disableflags) & PX_DSBL_MULTICCD) != 0) return 1;
  if (t1 == PX_GEOM_CAPSULE || t2 == PX_GEOM_CAPSULE || t1 == PX_GEOM_CYLINDER ||
      t2 == PX_GEOM_CYLINDER) {
    return 5;
  }
  return has_margin != 0 ? 5 : 4;
}

// contact parameters of geom pair (g1, g2) without a <pair> (mj_contactParam), written into
// record c: dim, solref, solimp, friction (unpacked to 5) and adhesion
PX_FN void pxk_colMixParams(PX_MDC int g1, int g2, int c) {
  int p1 = M(geom_priority, g1);
  int p2 = M(geom_priority, g2);
  PXR fri[3];
  if (p1 != p2) {
    int g = p1 > p2 ? g1 : g2;
    PXK_CON(c).dim = M(geom_condim, g);
    for (int k = 0; k < 2; k++) PXK_CON(c).solref[k] = M(geom_solref, 2 * g + k);
    for (int k = 0; k < 5; k++) PXK_CON(c).solimp[k] = M(geom_solimp, 5 * g + k);
    for (int k = 0; k < 3; k++) fri[k] = M(geom_friction, 3 * g + k);
    PXK_CON(c).adhesion = M(geom_adhesion, g);
  } else {
    int c1 = M(geom_condim, g1);
    int c2 = M(geom_condim, g2);
    PXK_CON(c).dim = c1 > c2 ? c1 : c2;
    PXR s1 = M(geom_solmix, g1);
    PXR s2 = M(geom_solmix, g2);
    PXR mix = PX_R(0.5);
    if (s1 >= PXK_MINVAL && s2 >= PXK_MINVAL) {
      PXR sum = s1 + s2;
      mix = s1 / sum;
    } else if (s1 < PXK_MINVAL && s2 >= PXK_MINVAL) {
      mix = PX_ZERO;
    } else if (s1 >= PXK_MINVAL && s2 < PXK_MINVAL) {
      mix = PX_R(1.0);
    }
    PXR mix1 = PX_R(1.0) - mix;
    if (M(geom_solref, 2 * g1) > 0 && M(geom_solref, 2 * g2) > 0) {
      for (int k = 0; k < 2; k++) {
        PXR a = mix * M(geom_solref, 2 * g1 + k);
        PXR b = mix1 * M(geom_solref, 2 * g2 + k);
        PXR sum = a + b;
        PXK_CON(c).solref[k] = sum;
      }
    } else {
      for (int k = 0; k < 2; k++) {
        PXR a = M(geom_solref, 2 * g1 + k);
        PXR b = M(geom_solref, 2 * g2 + k);
        PXK_CON(c).solref[k] = a < b ? a : b;
      }
    }
    for (int k = 0; k < 5; k++) {
      PXR a = mix * M(geom_solimp, 5 * g1 + k);
      PXR b = mix1 * M(geom_solimp, 5 * g2 + k);
      PXR sum = a + b;
      PXK_CON(c).solimp[k] = sum;
    }
    for (int k = 0; k < 3; k++) {
      PXR a = M(geom_friction, 3 * g1 + k);
      PXR b = M(geom_friction, 3 * g2 + k);
      fri[k] = a > b ? a : b;
    }
    PXR adh = M(geom_adhesion, g1) + M(geom_adhesion, g2);
    PXK_CON(c).adhesion = adh;
  }
  PXK_CON(c).friction[0] = fri[0];
  PXK_CON(c).friction[1] = fri[0];
  PXK_CON(c).friction[2] = fri[1];
  PXK_CON(c).friction[3] = fri[2];
  PXK_CON(c).friction[4] = fri[2];
  for (int k = 0; k < 2; k++) PXK_CON(c).solreffriction[k] = PX_ZERO;
}

// finish record c of geom pair (g1, g2) from its pre-contact: parameters (from <pair> ipair or
// mixed), the override option, the gap exclusion, the frame (mj_setContact)
PX_FN void pxk_colFinish(PX_MDC int g1, int g2, int ipair, PX_REAL margin, int c) {
  if (ipair >= 0) {
    PXK_CON(c).dim = M(pair_dim, ipair);
    for (int k = 0; k < 2; k++) PXK_CON(c).solref[k] = M(pair_solref, 2 * ipair + k);
    for (int k = 0; k < 5; k++) PXK_CON(c).solimp[k] = M(pair_solimp, 5 * ipair + k);
    for (int k = 0; k < 5; k++) PXK_CON(c).friction[k] = M(pair_friction, 5 * ipair + k);
    PXK_CON(c).adhesion = M(pair_adhesion, ipair);
    int given =
        (M(pair_solreffriction, 2 * ipair) != 0 || M(pair_solreffriction, 2 * ipair + 1) != 0) ? 1
                                                                                               : 0;
    for (int k = 0; k < 2; k++) {
      PXK_CON(c).solreffriction[k] = given == 1 ? M(pair_solreffriction, 2 * ipair + k) : PX_ZERO;
    }
  } else {
    pxk_colMixParams(PX_MDARGC g1, g2, c);
  }
  int override = (MOPT(enableflags) & PX_ENBL_OVERRIDE) != 0 ? 1 : 0;
  for (int k = 0; k < 2; k++) {
    if (override == 1) {
      PXK_CON(c).solref[k] = MOPT(o_solref[k]);
      PXK_CON(c).solreffriction[k] = MOPT(o_solref[k]);
    }
  }
  for (int k = 0; k < 5; k++) {
    if (override == 1) PXK_CON(c).solimp[k] = MOPT(o_solimp[k]);
    PXR f = override == 1 ? MOPT(o_friction[k]) : PXK_CON(c).friction[k];
    PXK_CON(c).friction[k] = f > PXK_MINMU ? f : PXK_MINMU;
  }
  PXK_CON(c).includemargin = margin;
  int adhesive = PXK_CON(c).adhesion != 0 ? 1 : 0;
  int ingap = PXK_CON(c).dist >= margin ? 1 : 0;
  PXK_CON(c).exclude = (ingap == 1 && adhesive == 0) ? 1 : 0;
  if (adhesive == 1 && ingap == 1) PXK_CON(c).dim = 1;
  PXR frame[9];
  for (int k = 0; k < 6; k++) frame[k] = PXK_CON(c).frame[k];
  pxk_makeFrame(frame);
  for (int k = 0; k < 9; k++) PXK_CON(c).frame[k] = frame[k];
  PXK_CON(c).efc_address = -1;
  PXK_CON(c).mu = PX_ZERO;
  for (int k = 0; k < 36; k++) PXK_CON(c).H[k] = PX_ZERO;
  PXK_CON(c).geom[0] = g1;
  PXK_CON(c).geom[1] = g2;
  PXK_CON(c).geom1 = g1;
  PXK_CON(c).geom2 = g2;
  for (int k = 0; k < 2; k++) {
    PXK_CON(c).flex[k] = -1;
    PXK_CON(c).elem[k] = -1;
    PXK_CON(c).vert[k] = -1;
  }
}

//---------------------------------- narrow phase --------------------------------------------------

// the narrow-phase routines (collide_gjk.h, with the convex objects, is included above)
#include "kern/collide_plane.h"
#include "kern/collide_hfield.h"
#include "kern/collide_prim.h"
#include "kern/collide_box.h"

// the general convex routines, each with its own copy of GJK/EPA, may be left out of a GPU
// entry point (shaders/colnarrow_*.comp split the narrow phase by routine family; the pairs of a
// left-out routine are then not collided by that entry point)
#ifndef PXK_NARROW_CONVEX
#define PXK_NARROW_CONVEX 1
#endif
#ifndef PXK_NARROW_HFIELD
#define PXK_NARROW_HFIELD 1
#endif
// the primitive routines (every route but the two above) likewise
#ifndef PXK_NARROW_PRIM
#define PXK_NARROW_PRIM 1
#endif

// the narrow-phase route of a pair of geom types: the entry of MuJoCo 3.12's mjCOLLISIONFUNC
// table, one table for the dispatch, the support check and the refusals
#define PXK_NR_NONE 0         // MuJoCo has no routine (planes and height fields among themselves)
#define PXK_NR_PLANESPHERE 1  // collide_prim.h
#define PXK_NR_PLANECAPSULE 2
#define PXK_NR_PLANECYLINDER 3
#define PXK_NR_PLANEBOX 4
#define PXK_NR_SPHERESPHERE 5
#define PXK_NR_SPHERECAPSULE 6
#define PXK_NR_SPHERECYLINDER 7
#define PXK_NR_CAPSULECAPSULE 8
#define PXK_NR_SPHEREBOX 9  // collide_box.h
#define PXK_NR_CAPSULEBOX 10
#define PXK_NR_BOXBOX 11
#define PXK_NR_PLANECONVEX 12  // collide_plane.h
#define PXK_NR_HFIELD 13       // collide_hfield.h (mjc_ConvexHField)
#define PXK_NR_CONVEX 14       // collide_gjk.h (mjc_Convex)
#define PXK_NR_SDF 15          // MuJoCo's SDF routines: phalanx rejects SDF geoms at compile

// the route of geom types t1 <= t2
PX_FN int pxk_narrowRoute(int t1, int t2) {
  if (t1 == PX_GEOM_SDF || t2 == PX_GEOM_SDF) return PXK_NR_SDF;
  if (t1 == PX_GEOM_PLANE) {
    if (t2 == PX_GEOM_PLANE || t2 == PX_GEOM_HFIELD) return PXK_NR_NONE;
    if (t2 == PX_GEOM_SPHERE) return PXK_NR_PLANESPHERE;
    if (t2 == PX_GEOM_CAPSULE) return PXK_NR_PLANECAPSULE;
    if (t2 == PX_GEOM_CYLINDER) return PXK_NR_PLANECYLINDER;
    if (t2 == PX_GEOM_BOX) return PXK_NR_PLANEBOX;
    return PXK_NR_PLANECONVEX;  // ellipsoid, mesh
  }
  if (t1 == PX_GEOM_HFIELD) return t2 == PX_GEOM_HFIELD ? PXK_NR_NONE : PXK_NR_HFIELD;
  if (t1 == PX_GEOM_SPHERE) {
    if (t2 == PX_GEOM_SPHERE) return PXK_NR_SPHERESPHERE;
    if (t2 == PX_GEOM_CAPSULE) return PXK_NR_SPHERECAPSULE;
    if (t2 == PX_GEOM_CYLINDER) return PXK_NR_SPHERECYLINDER;
    if (t2 == PX_GEOM_BOX) return PXK_NR_SPHEREBOX;
    return PXK_NR_CONVEX;  // ellipsoid, mesh
  }
  if (t1 == PX_GEOM_CAPSULE) {
    if (t2 == PX_GEOM_CAPSULE) return PXK_NR_CAPSULECAPSULE;
    if (t2 == PX_GEOM_BOX) return PXK_NR_CAPSULEBOX;
    return PXK_NR_CONVEX;  // ellipsoid, cylinder, mesh
  }
  if (t1 == PX_GEOM_BOX && t2 == PX_GEOM_BOX) return PXK_NR_BOXBOX;
  return PXK_NR_CONVEX;  // ellipsoid, cylinder, box-mesh, mesh-mesh
}

// 1 when MuJoCo 3.12 collides the pair of geom types (types ascending)
PX_FN int pxk_narrowExists(int t1, int t2) {
  return pxk_narrowRoute(t1, t2) != PXK_NR_NONE ? 1 : 0;
}

// 1 when phalanx has the narrow-phase routine of the pair of geom types (types ascending)
PX_FN int pxk_narrowSupported(int t1, int t2) {
  int r = pxk_narrowRoute(t1, t2);
  return (r != PXK_NR_NONE && r != PXK_NR_SDF) ? 1 : 0;
}

// run the routine of (type[g1], type[g2]), types ascending, writing pre-contacts from record adr
// on; returns their number (0: no routine)
PX_FN int pxk_narrow(PX_MDC int g1, int g2, PX_REAL margin, int adr) {
  int r = pxk_narrowRoute(M(geom_type, g1), M(geom_type, g2));
  int n = 0;
  switch (r) {
#if PXK_NARROW_PRIM
    case PXK_NR_PLANESPHERE:
      n = pxk_colPlaneSphere(PX_MDARGC g1, g2, margin, adr);
      break;
    case PXK_NR_PLANECAPSULE:
      n = pxk_colPlaneCapsule(PX_MDARGC g1, g2, margin, adr);
      break;
    case PXK_NR_PLANECYLINDER:
      n = pxk_colPlaneCylinder(PX_MDARGC g1, g2, margin, adr);
      break;
    case PXK_NR_PLANEBOX:
      n = pxk_colPlaneBox(PX_MDARGC g1, g2, margin, adr);
      break;
    case PXK_NR_SPHERESPHERE:
      n = pxk_colSphereSphere(PX_MDARGC g1, g2, margin, adr);
      break;
    case PXK_NR_SPHERECAPSULE:
      n = pxk_colSphereCapsule(PX_MDARGC g1, g2, margin, adr);
      break;
    case PXK_NR_SPHERECYLINDER:
      n = pxk_colSphereCylinder(PX_MDARGC g1, g2, margin, adr);
      break;
    case PXK_NR_CAPSULECAPSULE:
      n = pxk_colCapsuleCapsule(PX_MDARGC g1, g2, margin, adr);
      break;
    case PXK_NR_SPHEREBOX:
      n = pxk_colSphereBox(PX_MDARGC g1, g2, margin, adr);
      break;
    case PXK_NR_CAPSULEBOX:
      n = pxk_colCapsuleBox(PX_MDARGC g1, g2, margin, adr);
      break;
    case PXK_NR_BOXBOX:
      n = pxk_colBoxBox(PX_MDARGC g1, g2, margin, adr);
      break;
    case PXK_NR_PLANECONVEX:
      n = pxk_colPlaneConvex(PX_MDARGC g1, g2, margin, adr);
      break;
#endif
    case PXK_NR_HFIELD:
#if PXK_NARROW_HFIELD
      n = pxk_colConvexHField(PX_MDARGC g1, g2, margin, adr);
#endif
      break;
    case PXK_NR_CONVEX:
#if PXK_NARROW_CONVEX
      n = pxk_colConvex(PX_MDARGC g1, g2, margin, adr);
#endif
      break;
    default:
      n = 0;
      break;
  }
  return n;
}

//---------------------------------- driver --------------------------------------------------------

// collide geom pair (g1, g2) (ipair: its <pair>, or -1) if it passes the bounding test: the
// pre-contacts land from record PXK_NCON on and are kept when they fit the capacity
PX_FN void pxk_colPair(PX_MDC int g1, int g2, int ipair) {
  int a = g1;
  int b = g2;
  if (M(geom_type, g1) > M(geom_type, g2)) {
    a = g2;
    b = g1;
  }
  PXR margin = pxk_colMargin(PX_MDARGC a, b, ipair);
  PXR gap = pxk_colGap(PX_MDARGC a, b, ipair);
  PXR bound = margin + gap;
  if (pxk_colSphereOff(PX_MDARGC a, b, bound) == 1) return;
  int adr = PXK_NCON;
  int n = pxk_narrow(PX_MDARGC a, b, bound, adr);
  // keep finite pre-contacts only (a NaN pose yields no contact rather than a NaN one)
  int kept = 0;
  for (int i = 0; i < n; i++) {
    PXR s = PXK_CON(adr + i).dist;
    for (int k = 0; k < 3; k++) {
      s = s + PXK_CON(adr + i).pos[k];
      s = s + PXK_CON(adr + i).frame[k];
      s = s + PXK_CON(adr + i).frame[3 + k];
    }
    PXR z = s - s;
    if (z == PX_ZERO) {
      if (kept != i) PXK_CON(adr + kept) = PXK_CON(adr + i);
      kept = kept + 1;
    }
  }
  if (kept == 0) return;
  if (adr + kept > PXK_NCONMAX) {
    D(warning, 2 * PX_WARN_CONTACTFULL) = adr;
    D(warning, 2 * PX_WARN_CONTACTFULL + 1) = D(warning, 2 * PX_WARN_CONTACTFULL + 1) + 1;
    return;
  }
  for (int i = 0; i < kept; i++) pxk_colFinish(PX_MDARGC a, b, ipair, margin, adr + i);
  PXK_NCON = adr + kept;
}

// 1 when geom pair (g1, g2) is one of the <pair>s startadr..pairadr-1
PX_FN int pxk_colIsPair(PX_MDC int g1, int g2, int startadr, int pairadr) {
  for (int k = startadr; k < pairadr; k++) {
    int p1 = M(pair_geom1, k);
    int p2 = M(pair_geom2, k);
    if ((p1 == g1 && p2 == g2) || (p1 == g2 && p2 == g1)) return 1;
  }
  return 0;
}

// what the driver does with each geom pair it visits, in order: collide it (the GPU executor
// instead records the pairs, then collides them in later dispatches: shaders/colpairs.comp)
#ifndef PXK_COLPAIR
#define PXK_COLPAIR(g1, g2, ipair) pxk_colPair(PX_MDARGC g1, g2, ipair)
#endif

// the broad phase and the midphase's leaf test (mj_broadphase, mj_collideTree)
#include "kern/collide_broad.h"

#ifdef PX_KERN_C
//---------------------------------- C-only fast paths ---------------------------------------------
//
// The CPU executor skips work that cannot change the contacts; the GPU runs the plain walk above.
//
// Pre-test. Every contact comes from pxk_colPair on a dynamic geom pair that passed the bitmask
// test and pxk_colSphereOff, or from an explicit <pair>. A body pair none of whose geom pairs
// passes these two tests therefore yields no contact, whatever the broad phase or the midphase
// decide about it; dropping it from the walk changes nothing (the <pair>s keep their place:
// they are merged in ahead of the first later body pair, or at the end).
//
// Small models (at most PXK_FAST_PAIRS body pairs pass the static filters). The body pairs that
// pass the static filters (bodies able to collide, pxk_colBodyPairOff, <exclude>) are listed
// once per world, ascending by signature, each marked as a pair with an always-colliding body or
// as a sweep pair. Per call only the pairs that pass the pre-test are looked at: an
// always-colliding pair is kept, a sweep pair is kept when MuJoCo's sweep and prune would find
// it. That decision is made pair by pair, exactly: the sweep meets bodies a and b when the first
// of their entry keys lies before the other's exit key in the order of MuJoCo's stable sort
// (float32 key, then position in the key list: entry 2i, exit 2i + 1 for sweep index i; a body
// whose exit key sorts before its entry key stays active to the end), and keeps them when their
// bounds along the other two rows of the frame overlap. The frame and the bounds (pxk_eig3,
// pxk_bpAAMM) are computed only when a sweep pair is looked at, with the same operations. A
// stable sort is unique only without NaN keys: when a sweep decision is needed and a geom pose
// or size is not finite or beyond 1e100 (bounds could overflow to NaN), the call falls back to
// the full sweep (pxk_broadphase).
//
// Cache (ints after the midphase's scratch, from pxk_fastFB, only for small models):
//   +0 1 once built, +1 the fingerprint of the model fields it was built from (pxk_fastKey:
//   disableflags, the bodies' bitmasks, welds, parents and dofs, the exclusions, which MuJoCo
//   reads on every call, so that an edit after the Data was made rebuilds the list), +2 its
//   number of pairs L, [+3, +3 + nbody) sweep index of each body (-1: not in the sweep),
//   then L signatures, then L kinds (1: with an always-colliding body, 0: sweep pair).
// Per call: reals [0, 6 nbody) the bounds of a body (column-major by body), [6n, 8n) its float32
// entry and exit keys, ints [n, 2n) 1 once its bounds are computed.
#define PXK_FAST_PAIRS 1024
#define PXK_PRETEST_MAX 64  // body pairs with more geom pairs skip the pre-test (kept)

static inline long pxk_fastFB(long nbody, long ngeom, long nbpmax, long nmax) {
  return 9 * nbody + nbpmax + 1 + 6 * ngeom + 17 * nmax + nmax * nmax;
}

// ints the cache needs (0 for models above PXK_FAST_PAIRS)
static inline long pxk_fastInts(long nbody, long nbpmax) {
  return nbpmax <= PXK_FAST_PAIRS ? 3 + nbody + 2 * nbpmax : 0;
}

// the fingerprint of the model fields the static pair list is built from: four independent
// multiply-add accumulators over the bodies (short dependency chains), unsigned (wraps)
static inline int pxk_fastKey(const pxModel* m) {
  unsigned h0 = (unsigned)m->opt.disableflags, h1 = (unsigned)m->nbody;
  unsigned h2 = (unsigned)m->nexclude, h3 = 0u;
  for (int b = 0; b < m->nbody; b++) {
    h0 = h0 * 0x9E3779B1u + (unsigned)m->body_contype[b];
    h1 = h1 * 0x85EBCA77u + (unsigned)m->body_conaffinity[b];
    h2 = h2 * 0xC2B2AE3Du + (unsigned)m->body_weldid[b] * 65599u + (unsigned)m->body_parentid[b];
    h3 = h3 * 0x27D4EB2Fu + (unsigned)m->body_dofnum[b];
  }
  for (int i = 0; i < m->nexclude; i++) h3 = h3 * 0x165667B1u + (unsigned)m->exclude_signature[i];
  unsigned h = h0 ^ (h1 * 0x9E3779B1u) ^ (h2 * 0x85EBCA77u) ^ (h3 * 0xC2B2AE3Du);
  return (int)(h & 0x7FFFFFFFu);
}

// 0 when no geom pair of bodies b1 and b2 passes the bitmask and bounding-sphere tests of
// pxk_colPair (dynamic pairs: margins and gaps of the geoms); 1 otherwise or when the bodies
// hold more than PXK_PRETEST_MAX geom pairs
static inline int pxk_fastMayTouch(const pxModel* m, pxData* d, int b1, int b2) {
  int a1 = m->body_geomadr[b1];
  int n1 = m->body_geomnum[b1];
  int a2 = m->body_geomadr[b2];
  int n2 = m->body_geomnum[b2];
  if (n1 * n2 > PXK_PRETEST_MAX) return 1;
  for (int g1 = a1; g1 < a1 + n1; g1++) {
    for (int g2 = a2; g2 < a2 + n2; g2++) {
      if (pxk_colBitmaskOff(m->geom_contype[g1], m->geom_conaffinity[g1], m->geom_contype[g2],
                            m->geom_conaffinity[g2])) {
        continue;
      }
      int a = g1, b = g2;
      if (m->geom_type[g1] > m->geom_type[g2]) {
        a = g2;
        b = g1;
      }
      double margin = pxk_colMargin(m, d, a, b, -1);
      double gap = pxk_colGap(m, d, a, b, -1);
      double bound = margin + gap;
      if (!pxk_colSphereOff(m, d, a, b, bound)) return 1;
    }
  }
  return 0;
}

// the cache of the static body-pair list, (re)built when absent or built from other model fields
static inline void pxk_fastBuild(const pxModel* m, pxData* d, int* c, int key) {
  int n = m->nbody;
  int* sapidx = c + 3;
  int* sig = c + 3 + n;
  int* kind = c + 3 + n + d->nbpmax;
  int ns = 0;
  for (int b = 0; b < n; b++) {
    sapidx[b] = (b >= 1 && pxk_bpCanCollide(m, d, b)) ? ns++ : -1;
  }
  int L = 0;
  for (int b1 = 0; b1 < n && L >= 0; b1++) {
    if (!pxk_bpCanCollide(m, d, b1)) continue;
    int al1 = pxk_bpAlways(m, d, b1);
    for (int b2 = b1 + 1; b2 < n; b2++) {
      if (!pxk_bpCanCollide(m, d, b2)) continue;
      int al = al1 || pxk_bpAlways(m, d, b2);
      if (!al && b1 == 0) continue;  // the world without geoms pairs with nothing
      if (pxk_colBodyPairOff(m, d, b1, b2)) continue;
      int s = b1 * 65536 + b2;
      if (pxk_colExcluded(m, d, s)) continue;
      if (L >= d->nbpmax) {
        L = -1;  // beyond the capacity (bitmasks edited since the storage was made): full sweep
        break;
      }
      sig[L] = s;
      kind[L] = al;
      L++;
    }
  }
  c[2] = L;
  c[1] = key;
  c[0] = 1;
}

// the frame of the sweep (mean and covariance of the non-world geom centres, pxk_eig3), as
// pxk_broadphase computes it; 0 when a pose or a size could make a bound NaN (then the sweep's
// order is not the stable sort's and the caller runs the full sweep)
static inline int pxk_fastFrame(const pxModel* m, pxData* d, double frame[9]) {
  const double lim = 1e100;
  if ((m->opt.enableflags & PX_ENBL_OVERRIDE) && !(fabs(m->opt.o_margin) < lim)) return 0;
  int cnt = 0;
  double cen[3] = {0, 0, 0};
  for (int g = 0; g < m->ngeom; g++) {
    if (m->geom_bodyid[g] == 0) continue;
    const double* xp = d->geom_xpos + 3 * g;
    const double* xm = d->geom_xmat + 9 * g;
    const double* ab = m->geom_aabb + 6 * g;
    int ok = fabs(m->geom_rbound[g]) < lim && fabs(m->geom_margin[g]) < lim &&
             fabs(m->geom_gap[g]) < lim;
    for (int k = 0; k < 3; k++) ok = ok && fabs(xp[k]) < lim;
    for (int k = 0; k < 9; k++) ok = ok && fabs(xm[k]) < lim;
    for (int k = 0; k < 6; k++) ok = ok && fabs(ab[k]) < lim;
    if (!ok) return 0;
    for (int k = 0; k < 3; k++) cen[k] = cen[k] + xp[k];
    cnt = cnt + 1;
  }
  if (cnt == 0) return 0;
  double inv = 1.0 / (double)cnt;
  for (int k = 0; k < 3; k++) cen[k] = cen[k] * inv;
  double cov[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (int g = 0; g < m->ngeom; g++) {
    if (m->geom_bodyid[g] == 0) continue;
    double d0 = d->geom_xpos[3 * g] - cen[0];
    double d1 = d->geom_xpos[3 * g + 1] - cen[1];
    double d2 = d->geom_xpos[3 * g + 2] - cen[2];
    double c00 = d0 * d0;
    double c01 = d0 * d1;
    double c02 = d0 * d2;
    double c11 = d1 * d1;
    double c12 = d1 * d2;
    double c22 = d2 * d2;
    cov[0] = cov[0] + c00;
    cov[1] = cov[1] + c01;
    cov[2] = cov[2] + c02;
    cov[3] = cov[3] + c01;
    cov[4] = cov[4] + c11;
    cov[5] = cov[5] + c12;
    cov[6] = cov[6] + c02;
    cov[7] = cov[7] + c12;
    cov[8] = cov[8] + c22;
  }
  for (int k = 0; k < 9; k++) cov[k] = cov[k] * inv;
  double eigval[3];
  double quat[4];
  pxk_eig3(eigval, frame, quat, cov);
  return 1;
}

// the bounds of body b (once per call) and its float32 keys
static inline void pxk_fastBounds(const pxModel* m, pxData* d, int b, const double frame[9]) {
  int n = m->nbody;
  if (d->colscr_i[n + b]) return;
  double aamm[6];
  pxk_bpAAMM(m, d, b, frame, aamm);
  for (int k = 0; k < 6; k++) d->colscr_r[k * n + b] = aamm[k];
  d->colscr_r[6 * n + 2 * b] = pxk_roundF32(aamm[0]);
  d->colscr_r[6 * n + 2 * b + 1] = pxk_roundF32(aamm[3]);
  d->colscr_i[n + b] = 1;
}

// key (v, position p) before key (w, position q) in MuJoCo's stable sort of non-NaN keys
static inline int pxk_fastBefore(double v, int p, double w, int q) {
  return v < w || (v == w && p < q);
}

// 1 when MuJoCo's sweep and prune finds bodies b1 and b2 (bounds computed, keys not NaN)
static inline int pxk_fastSweepMeets(const pxModel* m, pxData* d, int b1, int b2, int i1, int i2) {
  int n = m->nbody;
  const double* r = d->colscr_r;
  double lo1 = r[6 * n + 2 * b1], hi1 = r[6 * n + 2 * b1 + 1];
  double lo2 = r[6 * n + 2 * b2], hi2 = r[6 * n + 2 * b2 + 1];
  int tested;
  if (pxk_fastBefore(lo1, 2 * i1, lo2, 2 * i2)) {
    tested = pxk_fastBefore(lo2, 2 * i2, hi1, 2 * i1 + 1) ||
             !pxk_fastBefore(lo1, 2 * i1, hi1, 2 * i1 + 1);
  } else {
    tested = pxk_fastBefore(lo1, 2 * i1, hi2, 2 * i2 + 1) ||
             !pxk_fastBefore(lo2, 2 * i2, hi2, 2 * i2 + 1);
  }
  if (!tested) return 0;
  if (r[n + b1] > r[4 * n + b2] || r[n + b2] > r[4 * n + b1] || r[2 * n + b1] > r[5 * n + b2] ||
      r[2 * n + b2] > r[5 * n + b1]) {
    return 0;
  }
  return 1;
}

// the body pairs of small models that may yield contacts, in MuJoCo's order, at int scratch
// offset 8 * nbody (as pxk_broadphase leaves them, less pairs without contacts); -1: run the
// full sweep instead
static inline int pxk_fastBroadphase(const pxModel* m, pxData* d, int nmax) {
  int n = m->nbody;
  int* c = d->colscr_i + pxk_fastFB(n, m->ngeom, d->nbpmax, nmax);
  int key = pxk_fastKey(m);
  if (c[0] != 1 || c[1] != key) pxk_fastBuild(m, d, c, key);
  int L = c[2];
  if (L < 0) return -1;
  const int* sapidx = c + 3;
  const int* sig = c + 3 + n;
  const int* kind = c + 3 + n + d->nbpmax;
  int* out = d->colscr_i + 8 * n;
  int npair = 0;
  int haveframe = 0;
  double frame[9];
  for (int i = 0; i < L; i++) {
    int s = sig[i];
    int b1 = s >> 16;
    int b2 = s & 0xFFFF;
    if (!pxk_fastMayTouch(m, d, b1, b2)) continue;
    if (!kind[i]) {
      if (!haveframe) {
        if (!pxk_fastFrame(m, d, frame)) return -1;
        for (int b = 0; b < n; b++) d->colscr_i[n + b] = 0;
        haveframe = 1;
      }
      pxk_fastBounds(m, d, b1, frame);
      pxk_fastBounds(m, d, b2, frame);
      if (!pxk_fastSweepMeets(m, d, b1, b2, sapidx[b1], sapidx[b2])) continue;
    }
    out[npair++] = s;
  }
  return npair;
}
#endif  // PX_KERN_C

// all contacts of this world, in MuJoCo's order (mj_collision): the body pairs of the broad phase
// ascending by signature, the explicit pairs merged in, each body pair's geom pairs as MuJoCo
// visits them (one pair for two single-geom bodies; else the midphase, its contacts sorted by
// (geom[0], geom[1]); else all pairs by ascending geom of body 1, then of body 2)
PX_FN void pxk_collision(PX_MD) {
  PXK_NCON = 0;
  int dsbl = MOPT(disableflags);
  if ((dsbl & PX_DSBL_CONSTRAINT) != 0 || (dsbl & PX_DSBL_CONTACT) != 0 || MS(nbody) < 2) return;
  int npair = MS(npair);
  int pairadr = 0;
  int midphase = (dsbl & PX_DSBL_MIDPHASE) == 0 ? 1 : 0;
#ifdef PX_KERN_C
  int nmax = 0;  // the most geoms on one body (the midphase's trees)
  for (int b = 0; b < MS(nbody); b++) nmax = M(body_geomnum, b) > nmax ? M(body_geomnum, b) : nmax;
  int nbp = -1;
  if (PXK_NBPMAX <= PXK_FAST_PAIRS) nbp = pxk_fastBroadphase(m, d, nmax);
  int pretest = nbp < 0 ? 1 : 0;  // the fast list is pre-tested already
  if (nbp < 0) nbp = pxk_broadphase(PX_MDARG);
#else
  int nbp = pxk_broadphase(PX_MDARG);
  int nmax = 0;  // the most geoms on one body (the midphase's trees)
  for (int b = 0; b < MS(nbody); b++) nmax = M(body_geomnum, b) > nmax ? M(body_geomnum, b) : nmax;
#endif
  int last = -1;
  for (int i = 0; i < nbp; i++) {
    int sig = PXK_SCR_I(8 * MS(nbody) + i);
    if (sig == last) continue;
    last = sig;
    int b1 = sig / 65536;
    int b2 = sig - b1 * 65536;
    // explicit pairs of signature <= sig come first
    int startadr = pairadr;
    int merged = 0;
    while (pairadr < npair && M(pair_signature, pairadr) <= sig) {
      if (M(pair_signature, pairadr) == sig) merged = 1;
      PXK_COLPAIR(M(pair_geom1, pairadr), M(pair_geom2, pairadr), pairadr);
      pairadr = pairadr + 1;
    }
    if (pxk_colExcluded(PX_MDARGC sig) == 1) continue;
    int n1 = M(body_geomnum, b1);
    int n2 = M(body_geomnum, b2);
    int a1 = M(body_geomadr, b1);
    int a2 = M(body_geomadr, b2);
    int mid = (midphase == 1 && (n1 != 1 || n2 != 1)) ? 1 : 0;
#ifdef PX_KERN_C
    // (a pair through the pre-test and then the midphase's walk: the fast list is pre-tested)
    if (pretest == 1 && mid == 1 && pxk_fastMayTouch(m, d, b1, b2) == 0) continue;
#endif
    if (mid == 1) pxk_collideTree(PX_MDARGC b1, b2, nmax);
    // the midphase's order: by the geom of the lower type (of body 1 on a tie), then the other;
    // two passes: first geoms x of the body with the lower geom ids, then those of the other
    for (int pass = 0; pass < 2; pass++) {
      int xb1 = (mid == 0 || (a1 <= a2) == (pass == 0)) ? 1 : 0;
      int ax = xb1 == 1 ? a1 : a2;
      int nx = xb1 == 1 ? n1 : n2;
      int ay = xb1 == 1 ? a2 : a1;
      int ny = xb1 == 1 ? n2 : n1;
      if (mid == 0 && pass == 1) break;
      for (int x = ax; x < ax + nx; x++) {
        for (int y = ay; y < ay + ny; y++) {
          int g1 = xb1 == 1 ? x : y;
          int g2 = xb1 == 1 ? y : x;
          if (mid == 1) {
            int t1 = M(geom_type, g1);
            int t2 = M(geom_type, g2);
            int first1 = t1 <= t2 ? 1 : 0;  // g1 becomes geom[0]
            if (first1 != xb1) continue;
            if (pxk_treeMarked(PX_MDARGC b1, b2, g1, g2, nmax) == 0) continue;
          }
          if (merged == 1 && pxk_colIsPair(PX_MDARGC g1, g2, startadr, pairadr) == 1) continue;
          if (pxk_colBitmaskOff(M(geom_contype, g1), M(geom_conaffinity, g1), M(geom_contype, g2),
                                M(geom_conaffinity, g2)) == 1) {
            continue;
          }
          PXK_COLPAIR(g1, g2, -1);
        }
      }
    }
  }
  // the remaining explicit pairs
  while (pairadr < npair) {
    PXK_COLPAIR(M(pair_geom1, pairadr), M(pair_geom2, pairadr), pairadr);
    pairadr = pairadr + 1;
  }
}

#endif  // PX_KERN_COLLIDE_H_
