// SPDX-License-Identifier: Apache-2.0
// Plane against a convex geom (ellipsoid or mesh) in the kernel dialect: MuJoCo 3.12's
// mjc_PlaneConvex (engine_collision_convex.c).
//
// The deepest point of the geom along the plane's inward normal comes from the support function
// MuJoCo hands to libccd (mjccd_support with zero margin: pxk_ccdSupportGeneric of
// collide_support.h), not the native-GJK one. One contact comes from that point; for a mesh
// up to two more come from vertices deeper than the geom centre's height minus the margin:
// every vertex in index order (no hull graph), or the hull neighbours of the support vertex,
// skipping those closer to the first contact than 0.3 times the geom's bounding radius.
//
// MuJoCo quirk kept on purpose: with a hull graph but fewer than 10 vertices the support scan is
// exhaustive and remembers a global vertex id, which the neighbour walk then reads as a hull
// index. Reads that would leave mesh_graph stop the walk instead.
#ifndef PX_KERN_COLLIDE_PLANE_H_
#define PX_KERN_COLLIDE_PLANE_H_

#include "kern/collide_support.h"

// at most this many contacts for plane-mesh (MuJoCo's maxplanemesh)
#define PXK_PLANEMESH_MAX 3
// extra plane-mesh contacts closer than this times rbound to the first one are dropped
#define PXK_PLANEMESH_TOL PX_R(0.3)

// one extra plane-mesh contact at mesh vertex vid (global id) of geom g, if it is far enough from
// the first contact; returns 1 if a contact was written at record adr
PX_FN int pxk_planeMeshAdd(PX_MDC int g, int vid, PX_IN(PX_REAL, pos1, 3),
                           PX_IN(PX_REAL, normal, 3), PX_IN(PX_REAL, first, 3), int adr) {
  PXR rot2[9];
  for (int k = 0; k < 9; k++) rot2[k] = D(geom_xmat, 9 * g + k);
  int vadr = M(mesh_vertadr, M(geom_dataid, g));
  PXR v[3];
  for (int k = 0; k < 3; k++) v[k] = PX_TOREAL(M(mesh_vert, 3 * (vadr + vid) + k));

  // vertex in global coordinates
  PXR pnt[3];
  pxk_mulMatVec3(pnt, rot2, v);
  for (int k = 0; k < 3; k++) {
    PXR p = pnt[k] + D(geom_xpos, 3 * g + k);
    pnt[k] = p;
  }

  // too close to the first contact
  PXR d0 = pnt[0] - first[0];
  PXR d1 = pnt[1] - first[1];
  PXR d2 = pnt[2] - first[2];
  PXR dfirst = PX_SQRT(d0 * d0 + d1 * d1 + d2 * d2);
  PXR tol = PXK_PLANEMESH_TOL * M(geom_rbound, g);
  if (dfirst < tol) return 0;

  PXR dif[3];
  pxk_sub3(dif, pnt, pos1);
  PXR dist = pxk_dot3(normal, dif);
  PXR scl = PX_R(-0.5) * dist;
  PXK_CON(adr).dist = dist;
  for (int k = 0; k < 3; k++) {
    PXR p = pnt[k] + normal[k] * scl;
    PXK_CON(adr).pos[k] = p;
    PXK_CON(adr).frame[k] = normal[k];
    PXK_CON(adr).frame[3 + k] = PX_ZERO;
  }
  return 1;
}

// plane g1 against ellipsoid or mesh g2 (mjc_PlaneConvex); contacts at records adr..
PX_FN int pxk_colPlaneConvex(PX_MDC int g1, int g2, PX_REAL margin, int adr) {
  PXR pos1[3];
  PXR pos2[3];
  PXR normal[3];
  PXR dir[3];
  for (int k = 0; k < 3; k++) {
    pos1[k] = D(geom_xpos, 3 * g1 + k);
    pos2[k] = D(geom_xpos, 3 * g2 + k);
    normal[k] = D(geom_xmat, 9 * g1 + 3 * k + 2);
    dir[k] = -normal[k];
  }

  // deepest point of geom 2 along -normal (libccd's support, zero margin)
  PXR obj[PXK_OBJR];
  int obji[PXK_OBJI];
  pxk_ccdInit(PX_MDARGC g2, PX_ZERO, obj, obji);
  PXR sup[3];
  pxk_ccdSupportGeneric(PX_MDARGC sup, obj, obji, dir);
  int index = obji[PXK_OBJ_MESHINDEX];

  // signed height above the plane; none beyond the margin
  PXR dif[3];
  pxk_sub3(dif, sup, pos1);
  PXR dist = pxk_dot3(normal, dif);
  if (dist > margin) return 0;

  // contact point halfway between the support point and the plane
  PXR first[3];
  PXR scl = PX_R(-0.5) * dist;
  for (int k = 0; k < 3; k++) first[k] = sup[k] + normal[k] * scl;

  // non-finite poses: MuJoCo returns a NaN contact here, we return none
  int bad = pxk_isNan(dist);
  for (int k = 0; k < 3; k++) bad = bad + pxk_isNan(first[k]);
  if (bad != 0) return 0;

  PXK_CON(adr).dist = dist;
  for (int k = 0; k < 3; k++) {
    PXK_CON(adr).pos[k] = first[k];
    PXK_CON(adr).frame[k] = normal[k];
    PXK_CON(adr).frame[3 + k] = PX_ZERO;
  }

  // an ellipsoid has one contact
  int mesh = M(geom_dataid, g2);
  if (mesh == -1) return 1;

  int count = 1;
  int vadr = M(mesh_vertadr, mesh);
  int nvert = M(mesh_vertnum, mesh);
  int gadr = M(mesh_graphadr, mesh);

  // direction in the mesh frame, and the inclusion threshold relative to the mesh centre
  PXR rot2[9];
  for (int k = 0; k < 9; k++) rot2[k] = D(geom_xmat, 9 * g2 + k);
  PXR ldir[3];
  pxk_mulMatTVec3(ldir, rot2, dir);
  PXR dif2[3];
  pxk_sub3(dif2, pos2, pos1);
  PXR h2 = pxk_dot3(normal, dif2);
  PXR threshold = h2 - margin;

  if (gadr < 0) {
    // no hull graph: every vertex but the support vertex, in index order
    for (int i = 0; i < nvert && count < PXK_PLANEMESH_MAX; i++) {
      PXR vdot = pxk_ccdVertDot(PX_MDARGC ldir, vadr + i);
      if (vdot > threshold && i != index) {
        count += pxk_planeMeshAdd(PX_MDARGC g2, i, pos1, normal, first, adr + count);
      }
    }
  } else if (index >= 0) {
    // hull neighbours of the support vertex
    int ngraph = MS(nmeshgraph);
    int numvert = M(mesh_graph, gadr);
    int ea = gadr + 2 + index;
    int e = ea < ngraph ? M(mesh_graph, ea) : -1;
    int ia = gadr + 2 + 2 * numvert + e;
    int loc = (e >= 0 && ia < ngraph) ? M(mesh_graph, ia) : -1;
    while (loc >= 0 && count < PXK_PLANEMESH_MAX) {
      int va = gadr + 2 + numvert + loc;
      int vid = va < ngraph ? M(mesh_graph, va) : -1;
      if (vid < 0 || vid >= nvert) break;
      PXR vdot = pxk_ccdVertDot(PX_MDARGC ldir, vadr + vid);
      if (vdot > threshold) {
        count += pxk_planeMeshAdd(PX_MDARGC g2, vid, pos1, normal, first, adr + count);
      }
      e++;
      ia = gadr + 2 + 2 * numvert + e;
      loc = ia < ngraph ? M(mesh_graph, ia) : -1;
    }
  }
  return count;
}

#endif  // PX_KERN_COLLIDE_PLANE_H_
