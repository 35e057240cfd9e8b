// SPDX-License-Identifier: Apache-2.0
// MuJoCo's native convex collision detection (engine_collision_gjk.c: mjc_ccd, GJK distance with
// the gjkIntersect fallback, EPA penetration) and the general convex collider built on it
// (engine_collision_convex.c: mjc_penetration, mjc_Convex with its perturbation multi-contact
// search), in the kernel dialect.
//
// The dialect has no pointers, structs or recursion, so MuJoCo's data structures become arrays:
//  - a GJK/EPA run's status (mjCCDStatus) is `sr` (reals: witness points, distances, simplex
//    vertices, tolerance, cutoff) and `si` (integers: simplex vertex indices, counters);
//  - EPA's polytope is `ptr` (reals: vertices, face projections and squared distances, centre)
//    and `pti` (integers: vertex indices, face vertices and adjacency, face map, horizon,
//    counters); faces and vertices are referred to by index instead of by pointer;
//  - the recursive horizon search runs on an explicit stack in the same depth-first order.
// The polytope holds at most PXK_CCD_MAXIT iterations (MuJoCo sizes it from opt.ccd_iterations);
// a model asking for more runs at most PXK_CCD_MAXIT EPA iterations. Everything lives in locals
// of pxk_ccd (about 140 KB at PXK_CCD_MAXIT = 256, fine on a CPU stack; a GPU build wants a
// per-world scratch buffer or a smaller PXK_CCD_MAXIT instead).
// MuJoCo's polygon-clipping multi-contact (multicontact, used for box-mesh and mesh-mesh pairs
// without margin under multiccd) reads the mesh polygon arrays (mesh_polynum, mesh_polymap, ...)
// that the compiler builds as MuJoCo's MakePolygons does.
#ifndef PX_KERN_COLLIDE_GJK_H_
#define PX_KERN_COLLIDE_GJK_H_

#include "kern/collide_support.h"

// largest real MuJoCo's GJK uses as "infinite" (mjMAX_LIMIT)
#ifdef PX_FP32
#define PXK_CCD_MAXLIMIT PX_R(3.4028234663852886e+38)
#else
#define PXK_CCD_MAXLIMIT PX_R(1.7976931348623157e+308)
#endif
#define PXK_CCD_MINVAL2 PX_R(1E-30)  // mjMINVAL^2
#define PXK_CCD_MAXVAL2 PX_R(1E+20)  // mjMAXVAL^2

// capacity of one run
#ifndef PXK_CCD_MAXIT
#define PXK_CCD_MAXIT 256  // iterations the polytope has room for (opt.ccd_iterations up to)
#endif
#define PXK_CCD_NV (5 + PXK_CCD_MAXIT)  // polytope vertices
#define PXK_CCD_NF (6 * PXK_CCD_MAXIT)  // polytope faces
#define PXK_CCD_NH 24                   // horizon edges (MuJoCo's fixed 24)
#define PXK_CCD_NX 4                    // witness pairs kept by a run
#define PXK_CCD_MAXCON 5                // contacts of one mjc_Convex call

// status reals
#define PXK_SR_X1 0                               // witness points on object 1 (3 * NX)
#define PXK_SR_X2 (PXK_SR_X1 + 3 * PXK_CCD_NX)    // witness points on object 2 (3 * NX)
#define PXK_SR_DIST (PXK_SR_X2 + 3 * PXK_CCD_NX)  // distances (NX)
#define PXK_SR_SIMP (PXK_SR_DIST + PXK_CCD_NX)    // simplex: 4 vertices of 9 (v, v1, v2)
#define PXK_SR_TOL (PXK_SR_SIMP + 36)             // tolerance
#define PXK_SR_CUTOFF (PXK_SR_TOL + 1)            // dist_cutoff
#define PXK_SR (PXK_SR_CUTOFF + 1)

// status integers
#define PXK_SI_SIMPI 0     // simplex vertex indices: 4 pairs (index1, index2)
#define PXK_SI_SEP 8       // separated
#define PXK_SI_NX 9        // witness pairs
#define PXK_SI_GJKIT 10    // GJK iterations
#define PXK_SI_NSIMP 11    // simplex vertices
#define PXK_SI_MAXIT 12    // max iterations
#define PXK_SI_MAXCON 13   // max contacts
#define PXK_SI_EPAIT 14    // EPA iterations
#define PXK_SI_EPASTAT 15  // EPA status
#define PXK_SI 16

// polytope reals
#define PXK_PR_V 0                               // vertices: 9 each (v, v1, v2)
#define PXK_PR_FV (PXK_PR_V + 9 * PXK_CCD_NV)    // face: projection of the origin (3)
#define PXK_PR_FD2 (PXK_PR_FV + 3 * PXK_CCD_NF)  // face: squared distance
#define PXK_PR_CEN (PXK_PR_FD2 + PXK_CCD_NF)     // centre (3)
#define PXK_PR (PXK_PR_CEN + 3)

// polytope integers
#define PXK_PI_VI 0                                 // vertex indices: 2 each
#define PXK_PI_FVT (PXK_PI_VI + 2 * PXK_CCD_NV)     // face: vertices (3)
#define PXK_PI_FADJ (PXK_PI_FVT + 3 * PXK_CCD_NF)   // face: adjacent faces (3)
#define PXK_PI_FIDX (PXK_PI_FADJ + 3 * PXK_CCD_NF)  // face: index in map, -1 none, -2 deleted
#define PXK_PI_MAP (PXK_PI_FIDX + PXK_CCD_NF)       // face map
#define PXK_PI_HIDX (PXK_PI_MAP + PXK_CCD_NF)       // horizon faces
#define PXK_PI_HEDGE (PXK_PI_HIDX + PXK_CCD_NH)     // horizon edges
#define PXK_PI_NVERTS (PXK_PI_HEDGE + PXK_CCD_NH)   // counters
#define PXK_PI_NFACES (PXK_PI_NVERTS + 1)
#define PXK_PI_MAXFACES (PXK_PI_NVERTS + 2)
#define PXK_PI_NMAP (PXK_PI_NVERTS + 3)
#define PXK_PI_NEDGES (PXK_PI_NVERTS + 4)
#define PXK_PI_W (PXK_PI_NVERTS + 5)  // vertex the horizon is seen from
#define PXK_PI (PXK_PI_NVERTS + 6)

// The polytope's arrays: locals of pxk_ccd passed down by pointer in C. GLSL copies array
// arguments into and out of every call (thousands of elements per call, which made lavapipe's
// compiler run out of memory), so there they are private globals of the invocation and the
// parameters and arguments vanish.
#ifdef PX_KERN_GLSL
// (not `precise`: glslang turns a precise global into a function-local variable of every
// function that uses it; the arithmetic stored into it is computed in precise locals)
PX_REAL ptr[PXK_PR];
int pti[PXK_PI];
#define PXK_PTR_PARAM
#define PXK_PTI_PARAM
#define PXK_PTR_ARG
#define PXK_PTI_ARG
#define PXK_PT_LOCALS
#else
#define PXK_PTR_PARAM PX_INOUT(PX_REAL, ptr, PXK_PR),
#define PXK_PTI_PARAM PX_INOUT(int, pti, PXK_PI),
#define PXK_PTR_ARG ptr,
#define PXK_PTI_ARG pti,
#define PXK_PT_LOCALS \
  PXR ptr[PXK_PR];    \
  int pti[PXK_PI];
#endif

// EPA status codes (mjEPAStatus)
#define PXK_EPA_NOCONTACT (-1)
#define PXK_EPA_P2_NONCONVEX 2
#define PXK_EPA_P3_BAD_NORMAL 4
#define PXK_EPA_P3_INVALID_V4 5
#define PXK_EPA_P3_INVALID_V5 6
#define PXK_EPA_P3_MISSING_ORIGIN 7
#define PXK_EPA_P3_ORIGIN_ON_FACE 8
#define PXK_EPA_P4_MISSING_ORIGIN 9
#define PXK_EPA_TO_P3 100  // internal: the simplex was replaced by a face, build from it

// ------------------------------------ small vector helpers --------------------------------------

// a x b
PX_FN void pxk_ccdCross(PX_OUT(PX_REAL, res, 3), PX_IN(PX_REAL, a, 3), PX_IN(PX_REAL, b, 3)) {
  res[0] = a[1] * b[2] - a[2] * b[1];
  res[1] = a[2] * b[0] - a[0] * b[2];
  res[2] = a[0] * b[1] - a[1] * b[0];
}

// determinant of the 3x3 matrix with columns a, b, c: a . (b x c)
PX_FN PX_REAL pxk_ccdDet3(PX_IN(PX_REAL, a, 3), PX_IN(PX_REAL, b, 3), PX_IN(PX_REAL, c, 3)) {
  PXR t0 = b[1] * c[2] - b[2] * c[1];
  PXR t1 = b[2] * c[0] - b[0] * c[2];
  PXR t2 = b[0] * c[1] - b[1] * c[0];
  PXR r = a[0] * t0 + a[1] * t1 + a[2] * t2;
  return r;
}

// sqrt(a . a)
PX_FN PX_REAL pxk_ccdNorm3(PX_IN(PX_REAL, a, 3)) {
  PXR d = a[0] * a[0] + a[1] * a[1] + a[2] * a[2];
  PXR r = PX_SQRT(d);
  return r;
}

// 1 if both are positive, -1 if both are negative, else 0
PX_FN int pxk_ccdSameSign2(PX_REAL a, PX_REAL b) {
  if (a > PX_R(0.0) && b > PX_R(0.0)) return 1;
  if (a < PX_R(0.0) && b < PX_R(0.0)) return -1;
  return 0;
}

// c0 v1 + c1 v2 + c2 v3
PX_FN void pxk_ccdLin3(PX_OUT(PX_REAL, res, 3), PX_IN(PX_REAL, c, 3), PX_IN(PX_REAL, v1, 3),
                       PX_IN(PX_REAL, v2, 3), PX_IN(PX_REAL, v3, 3)) {
  for (int k = 0; k < 3; k++) {
    res[k] = c[0] * v1[k] + c[1] * v2[k] + c[2] * v3[k];
  }
}

// c0 v1 + c1 v2
PX_FN void pxk_ccdLin2(PX_OUT(PX_REAL, res, 3), PX_IN(PX_REAL, c, 2), PX_IN(PX_REAL, v1, 3),
                       PX_IN(PX_REAL, v2, 3)) {
  for (int k = 0; k < 3; k++) {
    res[k] = c[0] * v1[k] + c[1] * v2[k];
  }
}

// linear combination of the first n simplex vertices; part 0: v, 3: v1, 6: v2
PX_FN void pxk_ccdLinSimp(PX_OUT(PX_REAL, res, 3), PX_IN(PX_REAL, lambda, 4), int n,
                          PX_IN(PX_REAL, sr, PXK_SR), int part) {
  int a = PXK_SR_SIMP + part;
  for (int k = 0; k < 3; k++) {
    if (n == 1) {
      res[k] = lambda[0] * sr[a + k];
    } else if (n == 2) {
      res[k] = lambda[0] * sr[a + k] + lambda[1] * sr[a + 9 + k];
    } else if (n == 3) {
      res[k] = lambda[0] * sr[a + k] + lambda[1] * sr[a + 9 + k] + lambda[2] * sr[a + 18 + k];
    } else if (n == 4) {
      res[k] = lambda[0] * sr[a + k] + lambda[1] * sr[a + 9 + k] + lambda[2] * sr[a + 18 + k] +
               lambda[3] * sr[a + 27 + k];
    } else {
      res[k] = PX_ZERO;
    }
  }
}

// a . (first 3 entries of vertex v)
PX_FN PX_REAL pxk_ccdDotV(PX_IN(PX_REAL, a, 3), PX_IN(PX_REAL, v, 9)) {
  PXR r = a[0] * v[0] + a[1] * v[1] + a[2] * v[2];
  return r;
}

// ------------------------------------ support of the difference --------------------------------

// support point of obj1 - obj2 along dir (dirneg = -dir), each object inflated by half its margin
// along its direction (MuJoCo's support in engine_collision_gjk.c); v: (v1 - v2, v1, v2),
// vi: the vertex indices of both objects
PX_FN void pxk_ccdSupportDiff(PX_MDC PX_OUT(PX_REAL, v, 9), PX_OUT(int, vi, 2),
                              PX_IN(PX_REAL, obj1, PXK_OBJR), PX_INOUT(int, oi1, PXK_OBJI),
                              PX_IN(PX_REAL, obj2, PXK_OBJR), PX_INOUT(int, oi2, PXK_OBJI),
                              PX_IN(PX_REAL, dir, 3), PX_IN(PX_REAL, dirneg, 3)) {
  PXR s1[3];
  PXR s2[3];
  pxk_ccdSupport(PX_MDARGC s1, obj1, oi1, dir);
  if (obj1[PXK_OBJ_MARGIN] > PX_R(0.0) && oi1[PXK_OBJ_GEOM] >= 0) {
    PXR mg = PX_R(0.5) * obj1[PXK_OBJ_MARGIN];
    for (int k = 0; k < 3; k++) {
      PXR t = dir[k] * mg;
      s1[k] = s1[k] + t;
    }
  }
  pxk_ccdSupport(PX_MDARGC s2, obj2, oi2, dirneg);
  if (obj2[PXK_OBJ_MARGIN] > PX_R(0.0) && oi2[PXK_OBJ_GEOM] >= 0) {
    PXR mg = PX_R(0.5) * obj2[PXK_OBJ_MARGIN];
    for (int k = 0; k < 3; k++) {
      PXR t = dirneg[k] * mg;
      s2[k] = s2[k] + t;
    }
  }
  for (int k = 0; k < 3; k++) {
    v[k] = s1[k] - s2[k];
    v[3 + k] = s1[k];
    v[6 + k] = s2[k];
  }
  vi[0] = oi1[PXK_OBJ_VERTINDEX];
  vi[1] = oi2[PXK_OBJ_VERTINDEX];
}

// 1 if both objects are discrete shapes without margin (finite GJK/EPA convergence)
PX_FN int pxk_ccdDiscrete(PX_IN(PX_REAL, obj1, PXK_OBJR), PX_IN(int, oi1, PXK_OBJI),
                          PX_IN(PX_REAL, obj2, PXK_OBJR), PX_IN(int, oi2, PXK_OBJI)) {
  if (obj1[PXK_OBJ_MARGIN] != PX_R(0.0) || obj2[PXK_OBJ_MARGIN] != PX_R(0.0)) return 0;
  int t1 = oi1[PXK_OBJ_TYPE];
  int t2 = oi2[PXK_OBJ_TYPE];
  int d1 = (t1 == PXK_GEOM_MESH || t1 == PXK_GEOM_BOX || t1 == PXK_GEOM_HFIELD) ? 1 : 0;
  int d2 = (t2 == PXK_GEOM_MESH || t2 == PXK_GEOM_BOX || t2 == PXK_GEOM_HFIELD) ? 1 : 0;
  return d1 * d2;
}

// ------------------------------------ distance subalgorithm -------------------------------------

// origin projected onto the plane of v1, v2, v3; returns 1 when the plane is degenerate
PX_FN int pxk_ccdProjPlane(PX_OUT(PX_REAL, res, 3), PX_IN(PX_REAL, v1, 3), PX_IN(PX_REAL, v2, 3),
                           PX_IN(PX_REAL, v3, 3)) {
  PXR d21[3];
  PXR d31[3];
  PXR d32[3];
  PXR n[3];
  for (int k = 0; k < 3; k++) {
    d21[k] = v2[k] - v1[k];
    d31[k] = v3[k] - v1[k];
    d32[k] = v3[k] - v2[k];
  }
  pxk_ccdCross(n, d32, d21);
  PXR nv = pxk_dot3(n, v2);
  PXR nn = pxk_dot3(n, n);
  if (nn == PX_R(0.0)) return 1;
  if (nv != PX_R(0.0) && nn > PXK_MINVAL) {
    PXR s = nv / nn;
    res[0] = n[0] * s;
    res[1] = n[1] * s;
    res[2] = n[2] * s;
    return 0;
  }
  pxk_ccdCross(n, d21, d31);
  nv = pxk_dot3(n, v1);
  nn = pxk_dot3(n, n);
  if (nn == PX_R(0.0)) return 1;
  if (nv != PX_R(0.0) && nn > PXK_MINVAL) {
    PXR s = nv / nn;
    res[0] = n[0] * s;
    res[1] = n[1] * s;
    res[2] = n[2] * s;
    return 0;
  }
  pxk_ccdCross(n, d31, d32);
  nv = pxk_dot3(n, v3);
  nn = pxk_dot3(n, n);
  PXR s = nv / nn;
  res[0] = n[0] * s;
  res[1] = n[1] * s;
  res[2] = n[2] * s;
  return 0;
}

// barycentric coordinates of the point of segment s1 s2 closest to the origin
PX_FN void pxk_ccdS1D(PX_OUT(PX_REAL, lambda, 2), PX_IN(PX_REAL, s1, 3), PX_IN(PX_REAL, s2, 3)) {
  // origin projected onto the line
  PXR diff[3];
  diff[0] = s2[0] - s1[0];
  diff[1] = s2[1] - s1[1];
  diff[2] = s2[2] - s1[2];
  PXR a = pxk_dot3(s2, diff);
  PXR b = pxk_dot3(diff, diff);
  PXR q = a / b;
  PXR scl = -q;
  PXR po[3];
  for (int k = 0; k < 3; k++) {
    PXR t = scl * diff[k];
    po[k] = s2[k] + t;
  }

  // axis with the largest extent of the segment
  PXR mu = s1[0] - s2[0];
  PXR mumax = mu;
  int index = 0;
  mu = s1[1] - s2[1];
  if (PX_ABS(mu) >= PX_ABS(mumax)) {
    mumax = mu;
    index = 1;
  }
  mu = s1[2] - s2[2];
  if (PX_ABS(mu) >= PX_ABS(mumax)) {
    mumax = mu;
    index = 2;
  }
  PXR c1 = po[index] - s2[index];
  PXR c2 = s1[index] - po[index];
  int same = (pxk_ccdSameSign2(mumax, c1) != 0 && pxk_ccdSameSign2(mumax, c2) != 0) ? 1 : 0;
  if (same != 0) {
    lambda[0] = c1 / mumax;
    lambda[1] = c2 / mumax;
  } else {
    lambda[0] = PX_R(0.0);
    lambda[1] = PX_R(1.0);
  }
}

// barycentric coordinates of the point of triangle s1 s2 s3 closest to the origin
PX_FN void pxk_ccdS2D(PX_OUT(PX_REAL, lambda, 3), PX_IN(PX_REAL, s1, 3), PX_IN(PX_REAL, s2, 3),
                      PX_IN(PX_REAL, s3, 3)) {
  PXR po[3];
  PXR l1[2];
  if (pxk_ccdProjPlane(po, s1, s2, s3) != 0) {
    pxk_ccdS1D(l1, s1, s2);
    lambda[0] = l1[0];
    lambda[1] = l1[1];
    lambda[2] = PX_R(0.0);
    return;
  }

  // minors of the homogeneous simplex matrix
  PXR m14 =
      s2[1] * s3[2] - s2[2] * s3[1] - s1[1] * s3[2] + s1[2] * s3[1] + s1[1] * s2[2] - s1[2] * s2[1];
  PXR m24 =
      s2[0] * s3[2] - s2[2] * s3[0] - s1[0] * s3[2] + s1[2] * s3[0] + s1[0] * s2[2] - s1[2] * s2[0];
  PXR m34 =
      s2[0] * s3[1] - s2[1] * s3[0] - s1[0] * s3[1] + s1[1] * s3[0] + s1[0] * s2[1] - s1[1] * s2[0];

  // drop the axis of the largest projection
  PXR mmax = PX_ZERO;
  int x = 0;
  int y = 1;
  PXR mu1 = PX_ABS(m14);
  PXR mu2 = PX_ABS(m24);
  PXR mu3 = PX_ABS(m34);
  if (mu1 >= mu2 && mu1 >= mu3) {
    mmax = m14;
    x = 1;
    y = 2;
  } else if (mu2 >= mu3) {
    mmax = m24;
    x = 0;
    y = 2;
  } else {
    mmax = m34;
    x = 0;
    y = 1;
  }
  PXR px = po[x];
  PXR py = po[y];

  // signed areas of the sub-triangles with the projected origin
  PXR c31 = px * s2[y] + py * s3[x] + s2[x] * s3[y] - px * s3[y] - py * s2[x] - s3[x] * s2[y];
  PXR c32 = px * s3[y] + py * s1[x] + s3[x] * s1[y] - px * s1[y] - py * s3[x] - s1[x] * s3[y];
  PXR c33 = px * s1[y] + py * s2[x] + s1[x] * s2[y] - px * s2[y] - py * s1[x] - s2[x] * s1[y];
  int comp1 = pxk_ccdSameSign2(mmax, c31);
  int comp2 = pxk_ccdSameSign2(mmax, c32);
  int comp3 = pxk_ccdSameSign2(mmax, c33);
  if (comp1 != 0 && comp2 != 0 && comp3 != 0) {
    lambda[0] = c31 / mmax;
    lambda[1] = c32 / mmax;
    lambda[2] = c33 / mmax;
    return;
  }

  // closest edge
  PXR dmin = PXK_CCD_MAXLIMIT;
  PXR x3[3];
  if (comp1 == 0) {
    pxk_ccdS1D(l1, s2, s3);
    pxk_ccdLin2(x3, l1, s2, s3);
    PXR dd = pxk_dot3(x3, x3);
    lambda[0] = PX_R(0.0);
    lambda[1] = l1[0];
    lambda[2] = l1[1];
    dmin = dd;
  }
  if (comp2 == 0) {
    pxk_ccdS1D(l1, s1, s3);
    pxk_ccdLin2(x3, l1, s1, s3);
    PXR dd = pxk_dot3(x3, x3);
    if (dd < dmin) {
      lambda[0] = l1[0];
      lambda[1] = PX_R(0.0);
      lambda[2] = l1[1];
      dmin = dd;
    }
  }
  if (comp3 == 0) {
    pxk_ccdS1D(l1, s1, s2);
    pxk_ccdLin2(x3, l1, s1, s2);
    PXR dd = pxk_dot3(x3, x3);
    if (dd < dmin) {
      lambda[0] = l1[0];
      lambda[1] = l1[1];
      lambda[2] = PX_R(0.0);
    }
  }
}

// barycentric coordinates of the point of tetrahedron s1..s4 closest to the origin
PX_FN void pxk_ccdS3D(PX_OUT(PX_REAL, lambda, 4), PX_IN(PX_REAL, s1, 3), PX_IN(PX_REAL, s2, 3),
                      PX_IN(PX_REAL, s3, 3), PX_IN(PX_REAL, s4, 3)) {
  PXR d1 = pxk_ccdDet3(s2, s3, s4);
  PXR c41 = -d1;
  PXR c42 = pxk_ccdDet3(s1, s3, s4);
  PXR d3 = pxk_ccdDet3(s1, s2, s4);
  PXR c43 = -d3;
  PXR c44 = pxk_ccdDet3(s1, s2, s3);
  PXR mdet = c41 + c42 + c43 + c44;
  int comp1 = pxk_ccdSameSign2(mdet, c41);
  int comp2 = pxk_ccdSameSign2(mdet, c42);
  int comp3 = pxk_ccdSameSign2(mdet, c43);
  int comp4 = pxk_ccdSameSign2(mdet, c44);
  if (comp1 != 0 && comp2 != 0 && comp3 != 0 && comp4 != 0) {
    lambda[0] = c41 / mdet;
    lambda[1] = c42 / mdet;
    lambda[2] = c43 / mdet;
    lambda[3] = c44 / mdet;
    return;
  }

  // closest face
  PXR dmin = PXK_CCD_MAXLIMIT;
  PXR l2[3];
  PXR x3[3];
  if (comp1 == 0) {
    pxk_ccdS2D(l2, s2, s3, s4);
    pxk_ccdLin3(x3, l2, s2, s3, s4);
    PXR dd = pxk_dot3(x3, x3);
    lambda[0] = PX_R(0.0);
    lambda[1] = l2[0];
    lambda[2] = l2[1];
    lambda[3] = l2[2];
    dmin = dd;
  }
  if (comp2 == 0) {
    pxk_ccdS2D(l2, s1, s3, s4);
    pxk_ccdLin3(x3, l2, s1, s3, s4);
    PXR dd = pxk_dot3(x3, x3);
    if (dd < dmin) {
      lambda[0] = l2[0];
      lambda[1] = PX_R(0.0);
      lambda[2] = l2[1];
      lambda[3] = l2[2];
      dmin = dd;
    }
  }
  if (comp3 == 0) {
    pxk_ccdS2D(l2, s1, s2, s4);
    pxk_ccdLin3(x3, l2, s1, s2, s4);
    PXR dd = pxk_dot3(x3, x3);
    if (dd < dmin) {
      lambda[0] = l2[0];
      lambda[1] = l2[1];
      lambda[2] = PX_R(0.0);
      lambda[3] = l2[2];
      dmin = dd;
    }
  }
  if (comp4 == 0) {
    pxk_ccdS2D(l2, s1, s2, s3);
    pxk_ccdLin3(x3, l2, s1, s2, s3);
    PXR dd = pxk_dot3(x3, x3);
    if (dd < dmin) {
      lambda[0] = l2[0];
      lambda[1] = l2[1];
      lambda[2] = l2[2];
      lambda[3] = PX_R(0.0);
    }
  }
}

// barycentric coordinates of the closest point to the origin in the first n simplex vertices
PX_FN void pxk_ccdSubdistance(PX_OUT(PX_REAL, lambda, 4), int n, PX_IN(PX_REAL, sr, PXK_SR)) {
  PXR s1[3];
  PXR s2[3];
  PXR s3[3];
  PXR s4[3];
  for (int k = 0; k < 3; k++) {
    s1[k] = sr[PXK_SR_SIMP + k];
    s2[k] = sr[PXK_SR_SIMP + 9 + k];
    s3[k] = sr[PXK_SR_SIMP + 18 + k];
    s4[k] = sr[PXK_SR_SIMP + 27 + k];
  }
  lambda[0] = PX_R(0.0);
  lambda[1] = PX_R(0.0);
  lambda[2] = PX_R(0.0);
  lambda[3] = PX_R(0.0);
  if (n == 4) {
    pxk_ccdS3D(lambda, s1, s2, s3, s4);
  } else if (n == 3) {
    PXR l3[3];
    pxk_ccdS2D(l3, s1, s2, s3);
    lambda[0] = l3[0];
    lambda[1] = l3[1];
    lambda[2] = l3[2];
  } else if (n == 2) {
    PXR l2[2];
    pxk_ccdS1D(l2, s1, s2);
    lambda[0] = l2[0];
    lambda[1] = l2[1];
  } else {
    lambda[0] = PX_R(1.0);
  }
}

// ------------------------------------ GJK --------------------------------------------------------

// support of the difference along -x (x of norm xnorm), into simplex slot j of the status
PX_FN void pxk_ccdGjkSupport(PX_MDC PX_OUT(PX_REAL, v, 9), PX_OUT(int, vi, 2),
                             PX_IN(PX_REAL, obj1, PXK_OBJR), PX_INOUT(int, oi1, PXK_OBJI),
                             PX_IN(PX_REAL, obj2, PXK_OBJR), PX_INOUT(int, oi2, PXK_OBJI),
                             PX_IN(PX_REAL, x, 3), PX_REAL xnorm) {
  PXR dneg[3];
  PXR dir[3];
  PXR s = PX_R(1.0) / xnorm;
  for (int k = 0; k < 3; k++) {
    dneg[k] = s * x[k];
  }
  for (int k = 0; k < 3; k++) {
    dir[k] = PX_R(-1.0) * dneg[k];
  }
  pxk_ccdSupportDiff(PX_MDARGC v, vi, obj1, oi1, obj2, oi2, dir, dneg);
}

// signed distance of the origin to the plane of a, b, c (normal (c - a) x (b - a)), or MAXLIMIT
PX_FN PX_REAL pxk_ccdSignedDist(PX_OUT(PX_REAL, normal, 3), PX_IN(PX_REAL, a, 3),
                                PX_IN(PX_REAL, b, 3), PX_IN(PX_REAL, c, 3)) {
  PXR d1[3];
  PXR d2[3];
  for (int k = 0; k < 3; k++) {
    d1[k] = c[k] - a[k];
    d2[k] = b[k] - a[k];
  }
  pxk_ccdCross(normal, d1, d2);
  PXR n2 = pxk_dot3(normal, normal);
  if (n2 > PXK_CCD_MINVAL2 && n2 < PXK_CCD_MAXVAL2) {
    PXR s = PX_R(1.0) / PX_SQRT(n2);
    for (int k = 0; k < 3; k++) {
      normal[k] = s * normal[k];
    }
    PXR r = pxk_dot3(normal, a);
    return r;
  }
  return PXK_CCD_MAXLIMIT;
}

// simplex vertex j (v part) of an array of 4 vertices
PX_FN void pxk_ccdVert(PX_OUT(PX_REAL, res, 3), PX_IN(PX_REAL, simp, 36), int j) {
  res[0] = simp[9 * j];
  res[1] = simp[9 * j + 1];
  res[2] = simp[9 * j + 2];
}

// tetrahedron test of contact (gjkIntersect): 1 contact, 0 none, -1 inconclusive; the status
// holds the tetrahedron
PX_FN int pxk_ccdGjkIntersect(PX_MDC PX_INOUT(PX_REAL, sr, PXK_SR), PX_INOUT(int, si, PXK_SI),
                              PX_IN(PX_REAL, obj1, PXK_OBJR), PX_INOUT(int, oi1, PXK_OBJI),
                              PX_IN(PX_REAL, obj2, PXK_OBJR), PX_INOUT(int, oi2, PXK_OBJI)) {
  PXR simp[36];
  int simpi[8];
  for (int j = 0; j < 36; j++) {
    simp[j] = sr[PXK_SR_SIMP + j];
  }
  for (int j = 0; j < 8; j++) {
    simpi[j] = si[PXK_SI_SIMPI + j];
  }
  int s[4];
  s[0] = 0;
  s[1] = 1;
  s[2] = 2;
  s[3] = 3;
  PXR a[3];
  PXR b[3];
  PXR c[3];
  PXR nrm[12];
  PXR nk[3];
  PXR dist[4];
  PXR v[9];
  int vi[2];

  int k = si[PXK_SI_GJKIT];
  int kmax = si[PXK_SI_MAXIT];
  for (; k < kmax; k++) {
    // signed distances of the faces, with normals
    for (int f = 0; f < 4; f++) {
      // faces: (2, 1, 3), (0, 2, 3), (1, 0, 3), (0, 1, 2)
      int ia = (f == 0) ? 2 : ((f == 2) ? 1 : 0);
      int ib = (f == 0) ? 1 : ((f == 1) ? 2 : ((f == 2) ? 0 : 1));
      int ic = (f == 3) ? 2 : 3;
      pxk_ccdVert(a, simp, s[ia]);
      pxk_ccdVert(b, simp, s[ib]);
      pxk_ccdVert(c, simp, s[ic]);
      dist[f] = pxk_ccdSignedDist(nk, a, b, c);
      nrm[3 * f] = nk[0];
      nrm[3 * f + 1] = nk[1];
      nrm[3 * f + 2] = nk[2];
    }

    // the origin on a face's plane: no convergence
    if (dist[3] == PX_R(0.0) || dist[2] == PX_R(0.0) || dist[1] == PX_R(0.0) ||
        dist[0] == PX_R(0.0)) {
      si[PXK_SI_GJKIT] = k;
      return -1;
    }

    // face closest to the origin
    int i = (dist[0] < dist[1]) ? 0 : 1;
    int j = (dist[2] < dist[3]) ? 2 : 3;
    int index = (dist[i] < dist[j]) ? i : j;

    // origin inside: keep the tetrahedron for EPA
    if (dist[index] > PX_R(0.0)) {
      si[PXK_SI_NSIMP] = 4;
      for (int q = 0; q < 4; q++) {
        for (int t = 0; t < 9; t++) {
          sr[PXK_SR_SIMP + 9 * q + t] = simp[9 * s[q] + t];
        }
        si[PXK_SI_SIMPI + 2 * q] = simpi[2 * s[q]];
        si[PXK_SI_SIMPI + 2 * q + 1] = simpi[2 * s[q] + 1];
      }
      si[PXK_SI_GJKIT] = k;
      return 1;
    }

    // replace the vertex opposite that face by the support along its normal
    PXR dir[3];
    PXR dneg[3];
    for (int t = 0; t < 3; t++) {
      dir[t] = nrm[3 * index + t];
      dneg[t] = -nrm[3 * index + t];
    }
    pxk_ccdSupportDiff(PX_MDARGC v, vi, obj1, oi1, obj2, oi2, dir, dneg);
    for (int t = 0; t < 9; t++) {
      simp[9 * s[index] + t] = v[t];
    }
    simpi[2 * s[index]] = vi[0];
    simpi[2 * s[index] + 1] = vi[1];

    // origin outside the Minkowski difference
    PXR nd = pxk_ccdDotV(dir, v);
    if (nd < PX_R(0.0)) {
      si[PXK_SI_NSIMP] = 0;
      si[PXK_SI_GJKIT] = k;
      return 0;
    }

    // swap two vertices to keep the orientation
    i = (index + 1) & 3;
    j = (index + 2) & 3;
    int sw = s[i];
    s[i] = s[j];
    s[j] = sw;
  }
  si[PXK_SI_GJKIT] = k;
  return -1;
}

// GJK distance between the objects (MuJoCo's gjk); the status holds the witness points, the
// simplex and the distance
PX_FN void pxk_ccdGjk(PX_MDC PX_INOUT(PX_REAL, sr, PXK_SR), PX_INOUT(int, si, PXK_SI),
                      PX_IN(PX_REAL, obj1, PXK_OBJR), PX_INOUT(int, oi1, PXK_OBJI),
                      PX_IN(PX_REAL, obj2, PXK_OBJR), PX_INOUT(int, oi2, PXK_OBJI)) {
  int getdist = (sr[PXK_SR_CUTOFF] > PX_R(0.0)) ? 1 : 0;
  int backup = 1 - getdist;
  int n = 0;
  int k = 0;
  int kmax = si[PXK_SI_MAXIT];
  PXR xk[3];
  PXR lambda[4];
  PXR v[9];
  int vi[2];
  PXR cutoff2 = sr[PXK_SR_CUTOFF] * sr[PXK_SR_CUTOFF];
  PXR tol2 = sr[PXK_SR_TOL] * sr[PXK_SR_TOL];
  si[PXK_SI_SEP] = 0;
  lambda[0] = PX_R(0.0);
  lambda[1] = PX_R(0.0);
  lambda[2] = PX_R(0.0);
  lambda[3] = PX_R(0.0);

  int discrete = pxk_ccdDiscrete(obj1, oi1, obj2, oi2);
  PXR eps = PX_R(0.5) * tol2;
  PXR minnorm = sr[PXK_SR_TOL];
  if (discrete != 0) {
    eps = PX_ZERO;
    minnorm = PXK_MINVAL;
  }

  for (int t = 0; t < 3; t++) {
    xk[t] = sr[PXK_SR_X1 + t] - sr[PXK_SR_X2 + t];
  }
  PXR xnorm = pxk_ccdNorm3(xk);
  PXR xnormprev = PX_ZERO;

  for (; k < kmax; k++) {
    // converged or stagnated
    PXR dn = xnormprev - xnorm;
    if (xnorm < minnorm || PX_ABS(dn) < PXK_MINVAL) break;

    // support point k
    pxk_ccdGjkSupport(PX_MDARGC v, vi, obj1, oi1, obj2, oi2, xk, xnorm);
    for (int t = 0; t < 9; t++) {
      sr[PXK_SR_SIMP + 9 * n + t] = v[t];
    }
    si[PXK_SI_SIMPI + 2 * n] = vi[0];
    si[PXK_SI_SIMPI + 2 * n + 1] = vi[1];

    // Frank-Wolfe duality gap
    PXR diff[3];
    diff[0] = xk[0] - v[0];
    diff[1] = xk[1] - v[1];
    diff[2] = xk[2] - v[2];
    PXR gap = pxk_dot3(xk, diff);
    if (gap < eps) break;

    // separating plane found
    if (getdist == 0) {
      PXR xs = pxk_ccdDotV(xk, v);
      if (xs > PX_R(0.0)) {
        si[PXK_SI_SEP] = 1;
        si[PXK_SI_GJKIT] = k;
        si[PXK_SI_NSIMP] = 0;
        si[PXK_SI_NX] = 0;
        sr[PXK_SR_DIST] = PXK_CCD_MAXLIMIT;
        return;
      }
    } else if (sr[PXK_SR_CUTOFF] < PXK_CCD_MAXLIMIT) {
      PXR vs = pxk_ccdDotV(xk, v);
      PXR vs2 = vs * vs;
      PXR xn2 = xnorm * xnorm;
      PXR lim = cutoff2 * xn2;
      if (vs > PX_R(0.0) && vs2 >= lim) {
        si[PXK_SI_SEP] = 1;
        si[PXK_SI_GJKIT] = k;
        si[PXK_SI_NSIMP] = 0;
        si[PXK_SI_NX] = 0;
        sr[PXK_SR_DIST] = PXK_CCD_MAXLIMIT;
        return;
      }
    }

    // tetrahedron built and only contact is needed: tetrahedron test
    if (n == 3 && backup != 0) {
      si[PXK_SI_GJKIT] = k;
      int ret = pxk_ccdGjkIntersect(PX_MDARGC sr, si, obj1, oi1, obj2, oi2);
      if (ret != -1) {
        si[PXK_SI_NX] = 0;
        si[PXK_SI_SEP] = (ret == 0) ? 1 : 0;
        sr[PXK_SR_DIST] = (ret > 0) ? PX_ZERO : PXK_CCD_MAXLIMIT;
        return;
      }
      k = si[PXK_SI_GJKIT];
      backup = 0;
    }

    // closest point of the simplex, drop the vertices not needed
    pxk_ccdSubdistance(lambda, n + 1, sr);
    n = 0;
    for (int i = 0; i < 4; i++) {
      if (lambda[i] == PX_R(0.0)) continue;
      if (n != i) {
        for (int t = 0; t < 9; t++) {
          sr[PXK_SR_SIMP + 9 * n + t] = sr[PXK_SR_SIMP + 9 * i + t];
        }
        si[PXK_SI_SIMPI + 2 * n] = si[PXK_SI_SIMPI + 2 * i];
        si[PXK_SI_SIMPI + 2 * n + 1] = si[PXK_SI_SIMPI + 2 * i + 1];
      }
      lambda[n] = lambda[i];
      n++;
    }

    // should not occur
    if (n < 1) {
      si[PXK_SI_GJKIT] = k;
      si[PXK_SI_NSIMP] = 0;
      si[PXK_SI_NX] = 0;
      sr[PXK_SR_DIST] = PXK_CCD_MAXLIMIT;
      si[PXK_SI_SEP] = 1;
      return;
    }

    // next approximation
    pxk_ccdLinSimp(xk, lambda, n, sr, 0);
    xnormprev = xnorm;
    xnorm = pxk_ccdNorm3(xk);
    if (n == 4) break;
  }

  // approximate witness points
  if (n > 0) {
    PXR w[3];
    pxk_ccdLinSimp(w, lambda, n, sr, 3);
    sr[PXK_SR_X1] = w[0];
    sr[PXK_SR_X1 + 1] = w[1];
    sr[PXK_SR_X1 + 2] = w[2];
    pxk_ccdLinSimp(w, lambda, n, sr, 6);
    sr[PXK_SR_X2] = w[0];
    sr[PXK_SR_X2 + 1] = w[1];
    sr[PXK_SR_X2 + 2] = w[2];
  }

  // final separation check
  pxk_ccdGjkSupport(PX_MDARGC v, vi, obj1, oi1, obj2, oi2, xk, xnorm);
  PXR xv = pxk_ccdDotV(xk, v);
  if (xv > PX_R(0.0)) si[PXK_SI_SEP] = 1;
  if (n == 4 && si[PXK_SI_SEP] == 0) xnorm = PX_ZERO;
  si[PXK_SI_NX] = 1;
  si[PXK_SI_GJKIT] = k;
  si[PXK_SI_NSIMP] = n;
  sr[PXK_SR_DIST] = xnorm;
}

// ------------------------------------ EPA polytope ---------------------------------------------

// v part of polytope vertex i
PX_FN void pxk_ccdPtVert(PX_OUT(PX_REAL, res, 3), PXK_PTR_PARAM int i) {
  res[0] = ptr[PXK_PR_V + 9 * i];
  res[1] = ptr[PXK_PR_V + 9 * i + 1];
  res[2] = ptr[PXK_PR_V + 9 * i + 2];
}

// copy simplex vertex j of the status into the polytope; returns its index
PX_FN int pxk_ccdInsertVertex(PXK_PTR_PARAM PXK_PTI_PARAM PX_IN(PX_REAL, sr, PXK_SR),
                              PX_IN(int, si, PXK_SI), int j) {
  int n = pti[PXK_PI_NVERTS];
  pti[PXK_PI_NVERTS] = n + 1;
  for (int t = 0; t < 9; t++) {
    ptr[PXK_PR_V + 9 * n + t] = sr[PXK_SR_SIMP + 9 * j + t];
  }
  pti[PXK_PI_VI + 2 * n] = si[PXK_SI_SIMPI + 2 * j];
  pti[PXK_PI_VI + 2 * n + 1] = si[PXK_SI_SIMPI + 2 * j + 1];
  return n;
}

// support of the difference along d (of norm dnorm) as a new polytope vertex; returns its index
PX_FN int pxk_ccdEpaSupport(PX_MDC PXK_PTR_PARAM PXK_PTI_PARAM PX_IN(PX_REAL, obj1, PXK_OBJR),
                            PX_INOUT(int, oi1, PXK_OBJI), PX_IN(PX_REAL, obj2, PXK_OBJR),
                            PX_INOUT(int, oi2, PXK_OBJI), PX_IN(PX_REAL, sd, 3), PX_REAL dnorm) {
  PXR dir[3];
  PXR dneg[3];
  dir[0] = PX_R(1.0);
  dir[1] = PX_R(0.0);
  dir[2] = PX_R(0.0);
  dneg[0] = PX_R(-1.0);
  dneg[1] = PX_R(0.0);
  dneg[2] = PX_R(0.0);
  if (dnorm > PXK_MINVAL) {
    for (int k = 0; k < 3; k++) {
      dir[k] = sd[k] / dnorm;
    }
    for (int k = 0; k < 3; k++) {
      dneg[k] = PX_R(-1.0) * dir[k];
    }
  }
  int n = pti[PXK_PI_NVERTS];
  pti[PXK_PI_NVERTS] = n + 1;
  PXR v[9];
  int vi[2];
  pxk_ccdSupportDiff(PX_MDARGC v, vi, obj1, oi1, obj2, oi2, dir, dneg);
  for (int t = 0; t < 9; t++) {
    ptr[PXK_PR_V + 9 * n + t] = v[t];
  }
  pti[PXK_PI_VI + 2 * n] = vi[0];
  pti[PXK_PI_VI + 2 * n + 1] = vi[1];
  return n;
}

// attach face (v1, v2, v3) with adjacent faces (a1, a2, a3); returns its squared distance to the
// origin (0 when its plane is degenerate)
PX_FN PX_REAL pxk_ccdAttachFace(PXK_PTR_PARAM PXK_PTI_PARAM int v1, int v2, int v3, int a1, int a2,
                                int a3) {
  int f = pti[PXK_PI_NFACES];
  pti[PXK_PI_NFACES] = f + 1;
  pti[PXK_PI_FVT + 3 * f] = v1;
  pti[PXK_PI_FVT + 3 * f + 1] = v2;
  pti[PXK_PI_FVT + 3 * f + 2] = v3;
  pti[PXK_PI_FADJ + 3 * f] = a1;
  pti[PXK_PI_FADJ + 3 * f + 1] = a2;
  pti[PXK_PI_FADJ + 3 * f + 2] = a3;

  PXR p1[3];
  PXR p2[3];
  PXR p3[3];
  PXR fv[3];
  pxk_ccdPtVert(p1, PXK_PTR_ARG v1);
  pxk_ccdPtVert(p2, PXK_PTR_ARG v2);
  pxk_ccdPtVert(p3, PXK_PTR_ARG v3);
  if (pxk_ccdProjPlane(fv, p3, p2, p1) != 0) return PX_ZERO;

  // projection points out of the polytope
  PXR outw[3];
  for (int k = 0; k < 3; k++) {
    outw[k] = p1[k] - ptr[PXK_PR_CEN + k];
  }
  PXR od = pxk_dot3(fv, outw);
  if (od < PX_R(0.0)) {
    for (int k = 0; k < 3; k++) {
      fv[k] = PX_R(-1.0) * fv[k];
    }
  }
  for (int k = 0; k < 3; k++) {
    ptr[PXK_PR_FV + 3 * f + k] = fv[k];
  }
  PXR d2 = pxk_dot3(fv, fv);
  ptr[PXK_PR_FD2 + f] = d2;
  pti[PXK_PI_FIDX + f] = -1;
  return d2;
}

// put the first n faces in the map
PX_FN void pxk_ccdMapFaces(PXK_PTI_PARAM int n) {
  for (int i = 0; i < n; i++) {
    pti[PXK_PI_MAP + i] = i;
    pti[PXK_PI_FIDX + i] = i;
  }
  pti[PXK_PI_NMAP] = n;
}

// replace the status simplex by polytope vertices v1, v2, v3 and empty the polytope
PX_FN void pxk_ccdReplaceSimplex3(PXK_PTR_PARAM PXK_PTI_PARAM PX_INOUT(PX_REAL, sr, PXK_SR),
                                  PX_INOUT(int, si, PXK_SI), int v1, int v2, int v3) {
  si[PXK_SI_NSIMP] = 3;
  for (int j = 0; j < 3; j++) {
    int v = (j == 0) ? v1 : ((j == 1) ? v2 : v3);
    for (int t = 0; t < 9; t++) {
      sr[PXK_SR_SIMP + 9 * j + t] = ptr[PXK_PR_V + 9 * v + t];
    }
    si[PXK_SI_SIMPI + 2 * j] = pti[PXK_PI_VI + 2 * v];
    si[PXK_SI_SIMPI + 2 * j + 1] = pti[PXK_PI_VI + 2 * v + 1];
  }
  pti[PXK_PI_NFACES] = 0;
  pti[PXK_PI_NVERTS] = 0;
  pti[PXK_PI_NMAP] = 0;
}

// 1 if the origin and p3 lie strictly on the same side of the plane p0 p1 p2
PX_FN int pxk_ccdSameSide(PX_IN(PX_REAL, p0, 3), PX_IN(PX_REAL, p1, 3), PX_IN(PX_REAL, p2, 3),
                          PX_IN(PX_REAL, p3, 3)) {
  PXR d1[3];
  PXR d2[3];
  PXR d3[3];
  PXR d4[3];
  PXR n[3];
  for (int k = 0; k < 3; k++) {
    d1[k] = p1[k] - p0[k];
    d2[k] = p2[k] - p0[k];
    d3[k] = p3[k] - p0[k];
    d4[k] = PX_R(-1.0) * p0[k];
  }
  pxk_ccdCross(n, d1, d2);
  PXR dot1 = pxk_dot3(n, d3);
  PXR dot2 = pxk_dot3(n, d4);
  if (dot1 > PX_R(0.0) && dot2 > PX_R(0.0)) return 1;
  if (dot1 < PX_R(0.0) && dot2 < PX_R(0.0)) return 1;
  return 0;
}

// 1 if the origin is inside the tetrahedron
PX_FN int pxk_ccdTestTetra(PX_IN(PX_REAL, p0, 3), PX_IN(PX_REAL, p1, 3), PX_IN(PX_REAL, p2, 3),
                           PX_IN(PX_REAL, p3, 3)) {
  if (pxk_ccdSameSide(p0, p1, p2, p3) == 0) return 0;
  if (pxk_ccdSameSide(p1, p2, p3, p0) == 0) return 0;
  if (pxk_ccdSameSide(p2, p3, p0, p1) == 0) return 0;
  if (pxk_ccdSameSide(p3, p0, p1, p2) == 0) return 0;
  return 1;
}

// affine coordinates of p on triangle v1 v2 v3
PX_FN void pxk_ccdTriAffine(PX_OUT(PX_REAL, lambda, 3), PX_IN(PX_REAL, v1, 3),
                            PX_IN(PX_REAL, v2, 3), PX_IN(PX_REAL, v3, 3), PX_IN(PX_REAL, p, 3)) {
  PXR m14 =
      v2[1] * v3[2] - v2[2] * v3[1] - v1[1] * v3[2] + v1[2] * v3[1] + v1[1] * v2[2] - v1[2] * v2[1];
  PXR m24 =
      v2[0] * v3[2] - v2[2] * v3[0] - v1[0] * v3[2] + v1[2] * v3[0] + v1[0] * v2[2] - v1[2] * v2[0];
  PXR m34 =
      v2[0] * v3[1] - v2[1] * v3[0] - v1[0] * v3[1] + v1[1] * v3[0] + v1[0] * v2[1] - v1[1] * v2[0];
  PXR mmax = PX_ZERO;
  int x = 0;
  int y = 1;
  PXR mu1 = PX_ABS(m14);
  PXR mu2 = PX_ABS(m24);
  PXR mu3 = PX_ABS(m34);
  if (mu1 >= mu2 && mu1 >= mu3) {
    mmax = m14;
    x = 1;
    y = 2;
  } else if (mu2 >= mu3) {
    mmax = m24;
    x = 0;
    y = 2;
  } else {
    mmax = m34;
    x = 0;
    y = 1;
  }
  PXR c31 =
      p[x] * v2[y] + p[y] * v3[x] + v2[x] * v3[y] - p[x] * v3[y] - p[y] * v2[x] - v3[x] * v2[y];
  PXR c32 =
      p[x] * v3[y] + p[y] * v1[x] + v3[x] * v1[y] - p[x] * v1[y] - p[y] * v3[x] - v1[x] * v3[y];
  PXR c33 =
      p[x] * v1[y] + p[y] * v2[x] + v1[x] * v2[y] - p[x] * v2[y] - p[y] * v1[x] - v2[x] * v1[y];
  lambda[0] = c31 / mmax;
  lambda[1] = c32 / mmax;
  lambda[2] = c33 / mmax;
}

// 1 if point p lies on triangle v1 v2 v3
PX_FN int pxk_ccdTriPoint(PX_IN(PX_REAL, v1, 3), PX_IN(PX_REAL, v2, 3), PX_IN(PX_REAL, v3, 3),
                          PX_IN(PX_REAL, p, 3)) {
  PXR l[3];
  pxk_ccdTriAffine(l, v1, v2, v3, p);
  if (l[0] < PX_R(0.0) || l[1] < PX_R(0.0) || l[2] < PX_R(0.0)) return 0;
  PXR diff[3];
  for (int k = 0; k < 3; k++) {
    PXR pr = v1[k] * l[0] + v2[k] * l[1] + v3[k] * l[2];
    diff[k] = pr - p[k];
  }
  PXR nd = pxk_ccdNorm3(diff);
  return (nd < PXK_MINVAL) ? 1 : 0;
}

// 1 / -1 if the ray v1 v2 meets triangle v3 v4 v5 (by orientation), 0 if not
PX_FN int pxk_ccdRayTriangle(PX_IN(PX_REAL, v1, 3), PX_IN(PX_REAL, v2, 3), PX_IN(PX_REAL, v3, 3),
                             PX_IN(PX_REAL, v4, 3), PX_IN(PX_REAL, v5, 3)) {
  PXR d12[3];
  PXR d13[3];
  PXR d14[3];
  PXR d15[3];
  for (int k = 0; k < 3; k++) {
    d12[k] = v2[k] - v1[k];
    d13[k] = v3[k] - v1[k];
    d14[k] = v4[k] - v1[k];
    d15[k] = v5[k] - v1[k];
  }
  PXR vol1 = pxk_ccdDet3(d13, d14, d12);
  PXR vol2 = pxk_ccdDet3(d14, d15, d12);
  PXR vol3 = pxk_ccdDet3(d15, d13, d12);
  if (vol1 >= PX_R(0.0) && vol2 >= PX_R(0.0) && vol3 >= PX_R(0.0)) return 1;
  if (vol1 <= PX_R(0.0) && vol2 <= PX_R(0.0) && vol3 <= PX_R(0.0)) return -1;
  return 0;
}

// initial polytope from a 2-simplex (polytope3); 0 on success
PX_FN int pxk_ccdPolytope3(PX_MDC PXK_PTR_PARAM PXK_PTI_PARAM PX_INOUT(PX_REAL, sr, PXK_SR),
                           PX_INOUT(int, si, PXK_SI), PX_IN(PX_REAL, obj1, PXK_OBJR),
                           PX_INOUT(int, oi1, PXK_OBJI), PX_IN(PX_REAL, obj2, PXK_OBJR),
                           PX_INOUT(int, oi2, PXK_OBJI)) {
  PXR v1[3];
  PXR v2[3];
  PXR v3[3];
  for (int k = 0; k < 3; k++) {
    v1[k] = sr[PXK_SR_SIMP + k];
    v2[k] = sr[PXK_SR_SIMP + 9 + k];
    v3[k] = sr[PXK_SR_SIMP + 18 + k];
  }
  for (int k = 0; k < 3; k++) {
    PXR c = v1[k] + v2[k];
    PXR c3 = c + v3[k];
    ptr[PXK_PR_CEN + k] = PX_R(0.3333333333333333) * c3;
  }

  // triangle normal, both ways
  PXR d1[3];
  PXR d2[3];
  PXR n[3];
  PXR nn[3];
  for (int k = 0; k < 3; k++) {
    d1[k] = v2[k] - v1[k];
    d2[k] = v3[k] - v1[k];
  }
  pxk_ccdCross(n, d1, d2);
  PXR nnorm = pxk_ccdNorm3(n);
  if (nnorm < PXK_MINVAL) return PXK_EPA_P3_BAD_NORMAL;
  for (int k = 0; k < 3; k++) {
    nn[k] = PX_R(-1.0) * n[k];
  }

  int v1i = pxk_ccdInsertVertex(PXK_PTR_ARG PXK_PTI_ARG sr, si, 0);
  int v2i = pxk_ccdInsertVertex(PXK_PTR_ARG PXK_PTI_ARG sr, si, 1);
  int v3i = pxk_ccdInsertVertex(PXK_PTR_ARG PXK_PTI_ARG sr, si, 2);
  int v5i = pxk_ccdEpaSupport(PX_MDARGC PXK_PTR_ARG PXK_PTI_ARG obj1, oi1, obj2, oi2, nn, nnorm);
  int v4i = pxk_ccdEpaSupport(PX_MDARGC PXK_PTR_ARG PXK_PTI_ARG obj1, oi1, obj2, oi2, n, nnorm);
  PXR v4[3];
  PXR v5[3];
  pxk_ccdPtVert(v4, PXK_PTR_ARG v4i);
  pxk_ccdPtVert(v5, PXK_PTR_ARG v5i);

  // the new vertices must leave the triangle
  if (pxk_ccdTriPoint(v1, v2, v3, v4) != 0) return PXK_EPA_P3_INVALID_V4;
  if (pxk_ccdTriPoint(v1, v2, v3, v5) != 0) return PXK_EPA_P3_INVALID_V5;

  // origin off the triangle: the hexahedron must contain it
  PXR tiny = PX_R(10.0) * PXK_MINVAL;
  if (sr[PXK_SR_DIST] > tiny && pxk_ccdTestTetra(v1, v2, v3, v4) == 0 &&
      pxk_ccdTestTetra(v1, v2, v3, v5) == 0) {
    return PXK_EPA_P3_MISSING_ORIGIN;
  }

  // hexahedron
  PXR dd = pxk_ccdAttachFace(PXK_PTR_ARG PXK_PTI_ARG v4i, v1i, v2i, 1, 3, 2);
  if (dd < PXK_CCD_MINVAL2) return PXK_EPA_P3_ORIGIN_ON_FACE;
  dd = pxk_ccdAttachFace(PXK_PTR_ARG PXK_PTI_ARG v4i, v3i, v1i, 2, 4, 0);
  if (dd < PXK_CCD_MINVAL2) return PXK_EPA_P3_ORIGIN_ON_FACE;
  dd = pxk_ccdAttachFace(PXK_PTR_ARG PXK_PTI_ARG v4i, v2i, v3i, 0, 5, 1);
  if (dd < PXK_CCD_MINVAL2) return PXK_EPA_P3_ORIGIN_ON_FACE;
  dd = pxk_ccdAttachFace(PXK_PTR_ARG PXK_PTI_ARG v5i, v2i, v1i, 5, 0, 4);
  if (dd < PXK_CCD_MINVAL2) return PXK_EPA_P3_ORIGIN_ON_FACE;
  dd = pxk_ccdAttachFace(PXK_PTR_ARG PXK_PTI_ARG v5i, v1i, v3i, 3, 1, 5);
  if (dd < PXK_CCD_MINVAL2) return PXK_EPA_P3_ORIGIN_ON_FACE;
  dd = pxk_ccdAttachFace(PXK_PTR_ARG PXK_PTI_ARG v5i, v3i, v2i, 4, 2, 3);
  if (dd < PXK_CCD_MINVAL2) return PXK_EPA_P3_ORIGIN_ON_FACE;
  pxk_ccdMapFaces(PXK_PTI_ARG 6);
  return 0;
}

// initial polytope from a 1-simplex (polytope2); 0 on success, PXK_EPA_TO_P3 when the status
// simplex was replaced by a triangle to build from
PX_FN int pxk_ccdPolytope2(PX_MDC PXK_PTR_PARAM PXK_PTI_PARAM PX_INOUT(PX_REAL, sr, PXK_SR),
                           PX_INOUT(int, si, PXK_SI), PX_IN(PX_REAL, obj1, PXK_OBJR),
                           PX_INOUT(int, oi1, PXK_OBJI), PX_IN(PX_REAL, obj2, PXK_OBJR),
                           PX_INOUT(int, oi2, PXK_OBJI)) {
  PXR v1[3];
  PXR v2[3];
  PXR diff[3];
  for (int k = 0; k < 3; k++) {
    v1[k] = sr[PXK_SR_SIMP + k];
    v2[k] = sr[PXK_SR_SIMP + 9 + k];
  }
  for (int k = 0; k < 3; k++) {
    PXR c = v1[k] + v2[k];
    ptr[PXK_PR_CEN + k] = PX_R(0.5) * c;
    diff[k] = v2[k] - v1[k];
  }

  // coordinate axis most orthogonal to the segment
  PXR value = PXK_CCD_MAXLIMIT;
  int index = 0;
  for (int i = 0; i < 3; i++) {
    if (PX_ABS(diff[i]) < value) {
      value = PX_ABS(diff[i]);
      index = i;
    }
  }
  PXR e[3];
  e[0] = PX_R(0.0);
  e[1] = PX_R(0.0);
  e[2] = PX_R(0.0);
  e[index] = PX_R(1.0);
  PXR d1[3];
  PXR d2[3];
  PXR d3[3];
  pxk_ccdCross(d1, e, diff);

  // rotation by 120 degrees about the segment
  PXR nrm = pxk_ccdNorm3(diff);
  PXR u1 = diff[0] / nrm;
  PXR u2 = diff[1] / nrm;
  PXR u3 = diff[2] / nrm;
  PXR sn = PX_R(0.86602540378);
  PXR cs = PX_R(-0.5);
  PXR oc = PX_R(1.0) - cs;
  PXR rm[9];
  rm[0] = cs + u1 * u1 * oc;
  rm[1] = u1 * u2 * oc - u3 * sn;
  rm[2] = u1 * u3 * oc + u2 * sn;
  rm[3] = u2 * u1 * oc + u3 * sn;
  rm[4] = cs + u2 * u2 * oc;
  rm[5] = u2 * u3 * oc - u1 * sn;
  rm[6] = u1 * u3 * oc - u2 * sn;
  rm[7] = u2 * u3 * oc + u1 * sn;
  rm[8] = cs + u3 * u3 * oc;
  pxk_mulMatVec3(d2, rm, d1);
  pxk_mulMatVec3(d3, rm, d2);

  int v1i = pxk_ccdInsertVertex(PXK_PTR_ARG PXK_PTI_ARG sr, si, 0);
  int v2i = pxk_ccdInsertVertex(PXK_PTR_ARG PXK_PTI_ARG sr, si, 1);
  PXR n1 = pxk_ccdNorm3(d1);
  int v3i = pxk_ccdEpaSupport(PX_MDARGC PXK_PTR_ARG PXK_PTI_ARG obj1, oi1, obj2, oi2, d1, n1);
  PXR n2 = pxk_ccdNorm3(d2);
  int v4i = pxk_ccdEpaSupport(PX_MDARGC PXK_PTR_ARG PXK_PTI_ARG obj1, oi1, obj2, oi2, d2, n2);
  PXR n3 = pxk_ccdNorm3(d3);
  int v5i = pxk_ccdEpaSupport(PX_MDARGC PXK_PTR_ARG PXK_PTI_ARG obj1, oi1, obj2, oi2, d3, n3);

  // hexahedron; a face through the origin replaces the simplex by that face
  PXR dd = pxk_ccdAttachFace(PXK_PTR_ARG PXK_PTI_ARG v1i, v3i, v4i, 1, 3, 2);
  if (dd < PXK_CCD_MINVAL2) {
    pxk_ccdReplaceSimplex3(PXK_PTR_ARG PXK_PTI_ARG sr, si, v1i, v3i, v4i);
    return PXK_EPA_TO_P3;
  }
  dd = pxk_ccdAttachFace(PXK_PTR_ARG PXK_PTI_ARG v1i, v5i, v3i, 2, 4, 0);
  if (dd < PXK_CCD_MINVAL2) {
    pxk_ccdReplaceSimplex3(PXK_PTR_ARG PXK_PTI_ARG sr, si, v1i, v5i, v3i);
    return PXK_EPA_TO_P3;
  }
  dd = pxk_ccdAttachFace(PXK_PTR_ARG PXK_PTI_ARG v1i, v4i, v5i, 0, 5, 1);
  if (dd < PXK_CCD_MINVAL2) {
    pxk_ccdReplaceSimplex3(PXK_PTR_ARG PXK_PTI_ARG sr, si, v1i, v4i, v5i);
    return PXK_EPA_TO_P3;
  }
  dd = pxk_ccdAttachFace(PXK_PTR_ARG PXK_PTI_ARG v2i, v4i, v3i, 5, 0, 4);
  if (dd < PXK_CCD_MINVAL2) {
    pxk_ccdReplaceSimplex3(PXK_PTR_ARG PXK_PTI_ARG sr, si, v2i, v4i, v3i);
    return PXK_EPA_TO_P3;
  }
  dd = pxk_ccdAttachFace(PXK_PTR_ARG PXK_PTI_ARG v2i, v3i, v5i, 3, 1, 5);
  if (dd < PXK_CCD_MINVAL2) {
    pxk_ccdReplaceSimplex3(PXK_PTR_ARG PXK_PTI_ARG sr, si, v2i, v3i, v5i);
    return PXK_EPA_TO_P3;
  }
  dd = pxk_ccdAttachFace(PXK_PTR_ARG PXK_PTI_ARG v2i, v5i, v4i, 4, 2, 3);
  if (dd < PXK_CCD_MINVAL2) {
    pxk_ccdReplaceSimplex3(PXK_PTR_ARG PXK_PTI_ARG sr, si, v2i, v5i, v4i);
    return PXK_EPA_TO_P3;
  }

  // the hexahedron must be convex
  PXR p3[3];
  PXR p4[3];
  PXR p5[3];
  pxk_ccdPtVert(p3, PXK_PTR_ARG v3i);
  pxk_ccdPtVert(p4, PXK_PTR_ARG v4i);
  pxk_ccdPtVert(p5, PXK_PTR_ARG v5i);
  if (pxk_ccdRayTriangle(v1, v2, p3, p4, p5) == 0) return PXK_EPA_P2_NONCONVEX;
  pxk_ccdMapFaces(PXK_PTI_ARG 6);
  return 0;
}

// initial polytope from a 3-simplex (polytope4); 0 on success, PXK_EPA_TO_P3 as polytope2
PX_FN int pxk_ccdPolytope4(PXK_PTR_PARAM PXK_PTI_PARAM PX_INOUT(PX_REAL, sr, PXK_SR),
                           PX_INOUT(int, si, PXK_SI)) {
  int v1 = pxk_ccdInsertVertex(PXK_PTR_ARG PXK_PTI_ARG sr, si, 0);
  int v2 = pxk_ccdInsertVertex(PXK_PTR_ARG PXK_PTI_ARG sr, si, 1);
  int v3 = pxk_ccdInsertVertex(PXK_PTR_ARG PXK_PTI_ARG sr, si, 2);
  int v4 = pxk_ccdInsertVertex(PXK_PTR_ARG PXK_PTI_ARG sr, si, 3);
  PXR p1[3];
  PXR p2[3];
  PXR p3[3];
  PXR p4[3];
  pxk_ccdPtVert(p1, PXK_PTR_ARG v1);
  pxk_ccdPtVert(p2, PXK_PTR_ARG v2);
  pxk_ccdPtVert(p3, PXK_PTR_ARG v3);
  pxk_ccdPtVert(p4, PXK_PTR_ARG v4);
  for (int k = 0; k < 3; k++) {
    PXR c = p1[k] + p2[k];
    PXR c3 = c + p3[k];
    PXR c4 = c3 + p4[k];
    ptr[PXK_PR_CEN + k] = PX_R(0.25) * c4;
  }
  PXR dd = pxk_ccdAttachFace(PXK_PTR_ARG PXK_PTI_ARG v1, v2, v3, 1, 3, 2);
  if (dd < PXK_CCD_MINVAL2) {
    pxk_ccdReplaceSimplex3(PXK_PTR_ARG PXK_PTI_ARG sr, si, v1, v2, v3);
    return PXK_EPA_TO_P3;
  }
  dd = pxk_ccdAttachFace(PXK_PTR_ARG PXK_PTI_ARG v1, v4, v2, 2, 3, 0);
  if (dd < PXK_CCD_MINVAL2) {
    pxk_ccdReplaceSimplex3(PXK_PTR_ARG PXK_PTI_ARG sr, si, v1, v4, v2);
    return PXK_EPA_TO_P3;
  }
  dd = pxk_ccdAttachFace(PXK_PTR_ARG PXK_PTI_ARG v1, v3, v4, 0, 3, 1);
  if (dd < PXK_CCD_MINVAL2) {
    pxk_ccdReplaceSimplex3(PXK_PTR_ARG PXK_PTI_ARG sr, si, v1, v3, v4);
    return PXK_EPA_TO_P3;
  }
  dd = pxk_ccdAttachFace(PXK_PTR_ARG PXK_PTI_ARG v4, v3, v2, 2, 0, 1);
  if (dd < PXK_CCD_MINVAL2) {
    pxk_ccdReplaceSimplex3(PXK_PTR_ARG PXK_PTI_ARG sr, si, v4, v3, v2);
    return PXK_EPA_TO_P3;
  }
  if (pxk_ccdTestTetra(p1, p2, p3, p4) == 0) return PXK_EPA_P4_MISSING_ORIGIN;
  pxk_ccdMapFaces(PXK_PTI_ARG 4);
  return 0;
}

// remove face f from the map and mark it deleted
PX_FN void pxk_ccdDeleteFace(PXK_PTI_PARAM int f) {
  int idx = pti[PXK_PI_FIDX + f];
  if (idx >= 0) {
    int last = pti[PXK_PI_NMAP] - 1;
    pti[PXK_PI_NMAP] = last;
    int moved = pti[PXK_PI_MAP + last];
    pti[PXK_PI_MAP + idx] = moved;
    pti[PXK_PI_FIDX + moved] = idx;
  }
  pti[PXK_PI_FIDX + f] = -2;
}

// edge of face f that starts at vertex v
PX_FN int pxk_ccdGetEdge(PXK_PTI_PARAM int f, int v) {
  if (pti[PXK_PI_FVT + 3 * f] == v) return 0;
  if (pti[PXK_PI_FVT + 3 * f + 1] == v) return 1;
  return 2;
}

// append (face, edge) to the horizon
PX_FN void pxk_ccdAddEdge(PXK_PTI_PARAM int f, int e) {
  int n = pti[PXK_PI_NEDGES];
  if (n < PXK_CCD_NH) {
    pti[PXK_PI_HEDGE + n] = e;
    pti[PXK_PI_HIDX + n] = f;
  }
  pti[PXK_PI_NEDGES] = n + 1;
}

// 1 if face f is visible from the horizon's vertex w
PX_FN int pxk_ccdVisible(PXK_PTR_PARAM PXK_PTI_PARAM int f) {
  int w = pti[PXK_PI_W];
  PXR fv[3];
  PXR wv[3];
  for (int k = 0; k < 3; k++) {
    fv[k] = ptr[PXK_PR_FV + 3 * f + k];
  }
  pxk_ccdPtVert(wv, PXK_PTR_ARG w);
  PXR dd = pxk_dot3(fv, wv);
  PXR t = dd - ptr[PXK_PR_FD2 + f];
  return (t > PXK_MINVAL) ? 1 : 0;
}

// MuJoCo's recursive horizon search from face f0 entered through edge e0, on an explicit stack
// in the same depth-first order; returns 1 if f0 was visible (and deleted)
PX_FN int pxk_ccdHorizonRec(PXK_PTR_PARAM PXK_PTI_PARAM int f0, int e0) {
  if (pxk_ccdVisible(PXK_PTR_ARG PXK_PTI_ARG f0) == 0) return 0;
  int stf[PXK_CCD_NF];
  int ste[PXK_CCD_NF];
  int stk[PXK_CCD_NF];
  pxk_ccdDeleteFace(PXK_PTI_ARG f0);
  int sp = 1;
  stf[0] = f0;
  ste[0] = e0;
  stk[0] = 1;
  while (sp > 0) {
    int top = sp - 1;
    int f = stf[top];
    int k = stk[top];
    if (k >= 3) {
      sp = top;
      continue;
    }
    stk[top] = k + 1;
    int i = (ste[top] + k) % 3;
    int adj = pti[PXK_PI_FADJ + 3 * f + i];
    if (pti[PXK_PI_FIDX + adj] > -2) {
      int adjedge = pxk_ccdGetEdge(PXK_PTI_ARG adj, pti[PXK_PI_FVT + 3 * f + (i + 1) % 3]);
      if (pxk_ccdVisible(PXK_PTR_ARG PXK_PTI_ARG adj) != 0) {
        pxk_ccdDeleteFace(PXK_PTI_ARG adj);
        if (sp < PXK_CCD_NF) {
          stf[sp] = adj;
          ste[sp] = adjedge;
          stk[sp] = 1;
          sp++;
        }
      } else {
        pxk_ccdAddEdge(PXK_PTI_ARG adj, adjedge);
      }
    }
  }
  return 1;
}

// horizon of the polytope seen from vertex w, starting at face f (which is deleted)
PX_FN void pxk_ccdHorizon(PXK_PTR_PARAM PXK_PTI_PARAM int f) {
  pxk_ccdDeleteFace(PXK_PTI_ARG f);
  int fv0 = pti[PXK_PI_FVT + 3 * f];
  int fv1 = pti[PXK_PI_FVT + 3 * f + 1];
  int fv2 = pti[PXK_PI_FVT + 3 * f + 2];

  int adj = pti[PXK_PI_FADJ + 3 * f];
  int adjedge = pxk_ccdGetEdge(PXK_PTI_ARG adj, fv1);
  if (pxk_ccdHorizonRec(PXK_PTR_ARG PXK_PTI_ARG adj, adjedge) == 0)
    pxk_ccdAddEdge(PXK_PTI_ARG adj, adjedge);

  adj = pti[PXK_PI_FADJ + 3 * f + 1];
  adjedge = pxk_ccdGetEdge(PXK_PTI_ARG adj, fv2);
  if (pti[PXK_PI_FIDX + adj] > -2) {
    if (pxk_ccdHorizonRec(PXK_PTR_ARG PXK_PTI_ARG adj, adjedge) == 0)
      pxk_ccdAddEdge(PXK_PTI_ARG adj, adjedge);
  }

  adj = pti[PXK_PI_FADJ + 3 * f + 2];
  adjedge = pxk_ccdGetEdge(PXK_PTI_ARG adj, fv0);
  if (pti[PXK_PI_FIDX + adj] > -2) {
    if (pxk_ccdHorizonRec(PXK_PTR_ARG PXK_PTI_ARG adj, adjedge) == 0)
      pxk_ccdAddEdge(PXK_PTI_ARG adj, adjedge);
  }
}

// attach the new face (w, v2, v1) over horizon entry i and put it in the map if its distance is
// within [lower2, upper2]; returns its squared distance
PX_FN PX_REAL pxk_ccdAttachHorizon(PXK_PTR_PARAM PXK_PTI_PARAM int wi, int i, int nfaces,
                                   int nedges, PX_REAL lower2, PX_REAL upper2) {
  int hf = pti[PXK_PI_HIDX + i];
  int he = pti[PXK_PI_HEDGE + i];
  int v1 = pti[PXK_PI_FVT + 3 * hf + he];
  int v2 = pti[PXK_PI_FVT + 3 * hf + (he + 1) % 3];
  int cur = nfaces + i;
  pti[PXK_PI_FADJ + 3 * hf + he] = cur;
  int prev = (i == 0) ? nfaces + nedges - 1 : cur - 1;
  int next = (i == 0) ? nfaces + 1 : nfaces + (i + 1) % nedges;
  PXR d2 = pxk_ccdAttachFace(PXK_PTR_ARG PXK_PTI_ARG wi, v2, v1, prev, hf, next);
  if (d2 == PX_R(0.0)) return d2;
  if (d2 >= lower2 && d2 <= upper2) {
    int m = pti[PXK_PI_NMAP];
    pti[PXK_PI_NMAP] = m + 1;
    int f = pti[PXK_PI_NFACES] - 1;
    pti[PXK_PI_MAP + m] = f;
    pti[PXK_PI_FIDX + f] = m;
  }
  return d2;
}

// EPA: expand the polytope towards the penetration depth; returns the final face (-1 if none),
// with the witness points and distance in the status
PX_FN int pxk_ccdEpa(PX_MDC PXK_PTR_PARAM PXK_PTI_PARAM PX_INOUT(PX_REAL, sr, PXK_SR),
                     PX_INOUT(int, si, PXK_SI), PX_IN(PX_REAL, obj1, PXK_OBJR),
                     PX_INOUT(int, oi1, PXK_OBJI), PX_IN(PX_REAL, obj2, PXK_OBJR),
                     PX_INOUT(int, oi2, PXK_OBJI)) {
  PXR upper = PXK_CCD_MAXLIMIT;
  PXR upper2 = PXK_CCD_MAXLIMIT;
  PXR lower2 = PXK_CCD_MAXLIMIT;
  int face = -1;
  int pface = -1;
  int discrete = pxk_ccdDiscrete(obj1, oi1, obj2, oi2);
  PXR tolerance = sr[PXK_SR_TOL];
  if (discrete != 0) tolerance = PXK_MINVAL;
  PXR fv[3];
  PXR wv[3];

  int kmax = si[PXK_SI_MAXIT] < 1000 ? si[PXK_SI_MAXIT] : 1000;
  if (kmax > PXK_CCD_MAXIT) kmax = PXK_CCD_MAXIT;
  int k = 0;
  for (k = 0; k < kmax; k++) {
    pface = face;

    // face closest to the origin
    lower2 = PXK_CCD_MAXLIMIT;
    for (int i = 0; i < pti[PXK_PI_NMAP]; i++) {
      int f = pti[PXK_PI_MAP + i];
      if (ptr[PXK_PR_FD2 + f] < lower2) {
        face = f;
        lower2 = ptr[PXK_PR_FD2 + f];
      }
    }
    if (lower2 > upper2 || face < 0) {
      face = pface;
      break;
    }
    if (lower2 <= PX_R(0.0)) break;

    // support along the face's normal
    PXR lower = PX_SQRT(lower2);
    for (int t = 0; t < 3; t++) {
      fv[t] = ptr[PXK_PR_FV + 3 * face + t];
    }
    int wi = pxk_ccdEpaSupport(PX_MDARGC PXK_PTR_ARG PXK_PTI_ARG obj1, oi1, obj2, oi2, fv, lower);
    pxk_ccdPtVert(wv, PXK_PTR_ARG wi);
    PXR fw = pxk_dot3(fv, wv);
    PXR upperk = fw / lower;
    if (upperk < upper) {
      upper = upperk;
      upper2 = upper * upper;
    }
    PXR gap = upper - lower;
    if (gap < tolerance) {
      PXR lo = lower - PX_R(1e-10);
      if (k == 0 && upper < lo) face = -1;
      break;
    }

    // repeated support vertex of discrete shapes
    if (discrete != 0) {
      int nv = pti[PXK_PI_NVERTS] - 1;
      int i = 0;
      for (; i < nv; i++) {
        if (pti[PXK_PI_VI + 2 * wi] == pti[PXK_PI_VI + 2 * i] &&
            pti[PXK_PI_VI + 2 * wi + 1] == pti[PXK_PI_VI + 2 * i + 1]) {
          break;
        }
      }
      if (i != nv) break;
    }

    pti[PXK_PI_W] = wi;
    pxk_ccdHorizon(PXK_PTR_ARG PXK_PTI_ARG face);
    if (pti[PXK_PI_NEDGES] < 3) {
      face = -1;
      break;
    }
    int nfaces = pti[PXK_PI_NFACES];
    int nedges = pti[PXK_PI_NEDGES];
    if (nedges > pti[PXK_PI_MAXFACES] - nfaces || nedges > PXK_CCD_NH) break;

    // fan of new faces from w over the horizon
    for (int i = 0; i < nedges; i++) {
      PXR d2 = pxk_ccdAttachHorizon(PXK_PTR_ARG PXK_PTI_ARG wi, i, nfaces, nedges, lower2, upper2);
      if (d2 == PX_R(0.0)) {
        face = -1;
        break;
      }
    }
    pti[PXK_PI_NEDGES] = 0;
    if (pti[PXK_PI_NMAP] == 0 || face < 0) break;
  }

  si[PXK_SI_EPAIT] = k;
  if (face >= 0) {
    int a = pti[PXK_PI_FVT + 3 * face];
    int b = pti[PXK_PI_FVT + 3 * face + 1];
    int c = pti[PXK_PI_FVT + 3 * face + 2];
    PXR pa[3];
    PXR pb[3];
    PXR pc[3];
    PXR lam[3];
    for (int t = 0; t < 3; t++) {
      fv[t] = ptr[PXK_PR_FV + 3 * face + t];
    }
    pxk_ccdPtVert(pa, PXK_PTR_ARG a);
    pxk_ccdPtVert(pb, PXK_PTR_ARG b);
    pxk_ccdPtVert(pc, PXK_PTR_ARG c);
    pxk_ccdTriAffine(lam, pa, pb, pc, fv);
    for (int t = 0; t < 3; t++) {
      sr[PXK_SR_X1 + t] = lam[0] * ptr[PXK_PR_V + 9 * a + 3 + t] +
                          lam[1] * ptr[PXK_PR_V + 9 * b + 3 + t] +
                          lam[2] * ptr[PXK_PR_V + 9 * c + 3 + t];
      sr[PXK_SR_X2 + t] = lam[0] * ptr[PXK_PR_V + 9 * a + 6 + t] +
                          lam[1] * ptr[PXK_PR_V + 9 * b + 6 + t] +
                          lam[2] * ptr[PXK_PR_V + 9 * c + 6 + t];
    }
    PXR sq = PX_SQRT(ptr[PXK_PR_FD2 + face]);
    sr[PXK_SR_DIST] = -sq;
    si[PXK_SI_NX] = 1;
  } else {
    si[PXK_SI_NX] = 0;
    sr[PXK_SR_DIST] = PX_ZERO;
  }
  return face;
}

// ------------------------------------ polygon multi-contact -------------------------------------
// MuJoCo's multicontact (engine_collision_gjk.c): from the EPA face, find a pair of facing
// polygons (or an edge against a polygon) of two boxes/meshes and clip one against the other.
// Reads the mesh polygon arrays (mesh_polynum, mesh_polyadr, mesh_polynormal, mesh_polyvertadr,
// mesh_polyvertnum, mesh_polyvert, mesh_polymapadr, mesh_polymapnum, mesh_polymap).

// capacities: polygons/edges met at a mesh vertex (MuJoCo's nmeshdegmax) and vertices of a
// polygon (npolygonmax); MuJoCo's cone test mesh reaches 500 of both
#ifndef PXK_MCC_DEG
#define PXK_MCC_DEG 512
#endif
#ifndef PXK_MCC_POLY
#define PXK_MCC_POLY 512
#endif
#define PXK_FACE_TOL PX_R(0.996)
#define PXK_EDGE_TOL PX_R(0.0888)

// res = mat * (l1, l2, l3), plus the object's position when withpos (globalcoord)
PX_FN void pxk_mccGlobal(PX_OUT(PX_REAL, res, 3), PX_IN(PX_REAL, obj, PXK_OBJR), PX_REAL l1,
                         PX_REAL l2, PX_REAL l3, int withpos) {
  for (int k = 0; k < 3; k++) {
    int r = PXK_OBJ_MAT + 3 * k;
    res[k] = obj[r] * l1 + obj[r + 1] * l2 + obj[r + 2] * l3;
  }
  if (withpos != 0) {
    for (int k = 0; k < 3; k++) {
      res[k] = res[k] + obj[PXK_OBJ_POS + k];
    }
  }
}

// number of features of a face's vertices on one geom (simplexDim); merges repeated vertices
PX_FN int pxk_mccSimplexDim(PX_INOUT(int, vi, 3), PX_INOUT(PX_REAL, v, 9)) {
  if (vi[0] == vi[1]) {
    if (vi[0] == vi[2]) return 1;
    vi[1] = vi[2];
    v[3] = v[6];
    v[4] = v[7];
    v[5] = v[8];
    return 2;
  }
  return (vi[2] == vi[0] || vi[2] == vi[1]) ? 2 : 3;
}

// up to 2 common entries of mesh_polymap ranges [a1, a1 + n1) and [a2, a2 + n2) (intersect)
PX_FN int pxk_mccIntersect(PX_MDC PX_OUT(int, res, 2), int a1, int n1, int a2, int n2) {
  int count = 0;
  res[0] = -1;
  res[1] = -1;
  for (int i = 0; i < n1; i++) {
    for (int j = 0; j < n2; j++) {
      if (count < 2 && M(mesh_polymap, a1 + i) == M(mesh_polymap, a2 + j)) {
        res[count] = M(mesh_polymap, a1 + i);
        count++;
      }
    }
  }
  return count;
}

// world normal of local polygon p of the object's mesh into slot s of res
PX_FN void pxk_mccPolyNormal(PX_MDC PX_INOUT(PX_REAL, res, 3 * PXK_MCC_DEG), int s,
                             PX_IN(PX_REAL, obj, PXK_OBJR), PX_IN(int, obji, PXK_OBJI), int p) {
  int a = 3 * (M(mesh_polyadr, obji[PXK_OBJ_DATAID]) + p);
  PXR g[3];
  pxk_mccGlobal(g, obj, M(mesh_polynormal, a), M(mesh_polynormal, a + 1), M(mesh_polynormal, a + 2),
                0);
  res[3 * s] = g[0];
  res[3 * s + 1] = g[1];
  res[3 * s + 2] = g[2];
}

// candidate polygon normals of a mesh from up to 3 of its vertices (meshNormals)
PX_FN int pxk_mccMeshNormals(PX_MDC PX_OUT(PX_REAL, res, 3 * PXK_MCC_DEG),
                             PX_OUT(int, resind, PXK_MCC_DEG), int dim,
                             PX_IN(PX_REAL, obj, PXK_OBJR), PX_IN(int, obji, PXK_OBJI),
                             PX_IN(int, vi, 3)) {
  int va = obji[PXK_OBJ_VERTADR];
  int edgeset[2];
  int faceset[2];
  if (dim == 3) {
    int n = pxk_mccIntersect(PX_MDARGC edgeset, M(mesh_polymapadr, va + vi[0]),
                             M(mesh_polymapnum, va + vi[0]), M(mesh_polymapadr, va + vi[1]),
                             M(mesh_polymapnum, va + vi[1]));
    if (n == 0) return 0;
    // the second intersection runs over edgeset itself
    int count = 0;
    int a3 = M(mesh_polymapadr, va + vi[2]);
    int n3 = M(mesh_polymapnum, va + vi[2]);
    faceset[0] = -1;
    faceset[1] = -1;
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n3; j++) {
        if (count < 2 && edgeset[i] == M(mesh_polymap, a3 + j)) {
          faceset[count] = edgeset[i];
          count++;
        }
      }
    }
    if (count == 0) return 0;
    pxk_mccPolyNormal(PX_MDARGC res, 0, obj, obji, faceset[0]);
    resind[0] = faceset[0];
    return 1;
  }
  if (dim == 2) {
    int n = pxk_mccIntersect(PX_MDARGC edgeset, M(mesh_polymapadr, va + vi[0]),
                             M(mesh_polymapnum, va + vi[0]), M(mesh_polymapadr, va + vi[1]),
                             M(mesh_polymapnum, va + vi[1]));
    for (int i = 0; i < n; i++) {
      pxk_mccPolyNormal(PX_MDARGC res, i, obj, obji, edgeset[i]);
      resind[i] = edgeset[i];
    }
    return n;
  }
  if (dim == 1) {
    int a1 = M(mesh_polymapadr, va + vi[0]);
    int n1 = M(mesh_polymapnum, va + vi[0]);
    if (n1 > PXK_MCC_DEG) n1 = PXK_MCC_DEG;
    for (int i = 0; i < n1; i++) {
      int p = M(mesh_polymap, a1 + i);
      pxk_mccPolyNormal(PX_MDARGC res, i, obj, obji, p);
      resind[i] = p;
    }
    return n1;
  }
  return 0;
}

// normalized directions of the mesh edges that leave a vertex (meshEdgeNormals), their far ends
PX_FN int pxk_mccMeshEdgeNormals(PX_MDC PX_OUT(PX_REAL, res, 3 * PXK_MCC_DEG),
                                 PX_OUT(PX_REAL, endverts, 3 * PXK_MCC_DEG), int dim,
                                 PX_IN(PX_REAL, obj, PXK_OBJR), PX_IN(int, obji, PXK_OBJI),
                                 PX_IN(PX_REAL, v, 9), int v1i) {
  PXR e[3];
  if (dim == 2) {
    for (int k = 0; k < 3; k++) {
      endverts[k] = v[3 + k];
      e[k] = v[3 + k] - v[k];
    }
    pxk_normalize3(e);
    res[0] = e[0];
    res[1] = e[1];
    res[2] = e[2];
    return 1;
  }
  if (dim == 1) {
    int va = obji[PXK_OBJ_VERTADR];
    int pa = M(mesh_polyadr, obji[PXK_OBJ_DATAID]);
    int a1 = M(mesh_polymapadr, va + v1i);
    int n1 = M(mesh_polymapnum, va + v1i);
    if (n1 > PXK_MCC_DEG) n1 = PXK_MCC_DEG;
    for (int i = 0; i < n1; i++) {
      int idx = M(mesh_polymap, a1 + i);
      int adr = M(mesh_polyvertadr, pa + idx);
      int nvert = M(mesh_polyvertnum, pa + idx);
      for (int j = 0; j < nvert; j++) {
        if (M(mesh_polyvert, adr + j) == v1i) {
          int k = (j == 0) ? nvert - 1 : j - 1;
          int vk = va + M(mesh_polyvert, adr + k);
          PXR g[3];
          pxk_mccGlobal(g, obj, PX_TOREAL(M(mesh_vert, 3 * vk)),
                        PX_TOREAL(M(mesh_vert, 3 * vk + 1)), PX_TOREAL(M(mesh_vert, 3 * vk + 2)),
                        1);
          for (int t = 0; t < 3; t++) {
            endverts[3 * i + t] = g[t];
            e[t] = g[t] - v[t];
          }
          pxk_normalize3(e);
          res[3 * i] = e[0];
          res[3 * i + 1] = e[1];
          res[3 * i + 2] = e[2];
          break;
        }
      }
    }
    return n1;
  }
  return 0;
}

// a box face whose normal is within the face tolerance of direction n (boxNormals2)
PX_FN int pxk_mccBoxNormals2(PX_INOUT(PX_REAL, res, 3 * PXK_MCC_DEG),
                             PX_INOUT(int, resind, PXK_MCC_DEG), PX_IN(PX_REAL, obj, PXK_OBJR),
                             PX_IN(PX_REAL, n, 3)) {
  PXR ln[3];
  pxk_ccdToLocal(ln, obj, n);
  PXR l2 = pxk_dot3(ln, ln);
  PXR s = PX_R(1.0) / PX_SQRT(l2);
  for (int k = 0; k < 3; k++) {
    ln[k] = s * ln[k];
  }
  for (int i = 0; i < 6; i++) {
    PXR f[3];
    f[0] = PX_R(0.0);
    f[1] = PX_R(0.0);
    f[2] = PX_R(0.0);
    f[i / 2] = (i % 2 == 0) ? PX_R(1.0) : PX_R(-1.0);
    PXR dd = pxk_dot3(ln, f);
    if (dd > PXK_FACE_TOL) {
      PXR g[3];
      pxk_mccGlobal(g, obj, f[0], f[1], f[2], 0);
      res[0] = g[0];
      res[1] = g[1];
      res[2] = g[2];
      resind[0] = i;
      return 1;
    }
  }
  return 0;
}

// -1, 0 or 1: whether all listed corners have bit b clear, mixed, or all set
PX_FN int pxk_mccBits(int b, int v1, int v2, int v3) {
  int all = ((v1 & b) != 0 && (v2 & b) != 0 && (v3 & b) != 0) ? 1 : 0;
  int none = ((v1 & b) == 0 && (v2 & b) == 0 && (v3 & b) == 0) ? 1 : 0;
  return all - none;
}

// candidate face normals of a box from up to 3 of its corners (boxNormals)
PX_FN int pxk_mccBoxNormals(PX_OUT(PX_REAL, res, 3 * PXK_MCC_DEG), PX_OUT(int, resind, PXK_MCC_DEG),
                            int dim, PX_IN(PX_REAL, obj, PXK_OBJR), PX_IN(int, vi, 3),
                            PX_IN(PX_REAL, dir, 3)) {
  PXR g[3];
  if (dim == 3) {
    int c = 0;
    int x = pxk_mccBits(1, vi[0], vi[1], vi[2]);
    int y = pxk_mccBits(2, vi[0], vi[1], vi[2]);
    int z = pxk_mccBits(4, vi[0], vi[1], vi[2]);
    pxk_mccGlobal(g, obj, PX_TOREAL(x), PX_TOREAL(y), PX_TOREAL(z), 0);
    res[0] = g[0];
    res[1] = g[1];
    res[2] = g[2];
    int sgn = x + y + z;
    if (x != 0) {
      resind[c] = 0;
      c++;
    }
    if (y != 0) {
      resind[c] = 2;
      c++;
    }
    if (z != 0) {
      resind[c] = 4;
      c++;
    }
    if (sgn == -1) resind[0] = resind[0] + 1;
    if (c == 1) return 1;
    return pxk_mccBoxNormals2(res, resind, obj, dir);
  }
  if (dim == 2) {
    int c = 0;
    int x = pxk_mccBits(1, vi[0], vi[1], vi[1]);
    int y = pxk_mccBits(2, vi[0], vi[1], vi[1]);
    int z = pxk_mccBits(4, vi[0], vi[1], vi[1]);
    if (x != 0) {
      pxk_mccGlobal(g, obj, PX_TOREAL(x), PX_ZERO, PX_ZERO, 0);
      res[0] = g[0];
      res[1] = g[1];
      res[2] = g[2];
      resind[c] = (x > 0) ? 0 : 1;
      c++;
    }
    if (y != 0) {
      pxk_mccGlobal(g, obj, PX_ZERO, PX_TOREAL(y), PX_ZERO, 0);
      res[3 * c] = g[0];
      res[3 * c + 1] = g[1];
      res[3 * c + 2] = g[2];
      resind[c] = (y > 0) ? 2 : 3;
      c++;
    }
    if (z != 0) {
      // MuJoCo writes this one to the second slot whatever c is
      pxk_mccGlobal(g, obj, PX_ZERO, PX_ZERO, PX_TOREAL(z), 0);
      res[3] = g[0];
      res[4] = g[1];
      res[5] = g[2];
      resind[c] = (z > 0) ? 4 : 5;
      c++;
    }
    if (c == 2) return 2;
    return pxk_mccBoxNormals2(res, resind, obj, dir);
  }
  if (dim == 1) {
    PXR x = ((vi[0] & 1) != 0) ? PX_R(1.0) : PX_R(-1.0);
    PXR y = ((vi[0] & 2) != 0) ? PX_R(1.0) : PX_R(-1.0);
    PXR z = ((vi[0] & 4) != 0) ? PX_R(1.0) : PX_R(-1.0);
    pxk_mccGlobal(g, obj, x, PX_ZERO, PX_ZERO, 0);
    res[0] = g[0];
    res[1] = g[1];
    res[2] = g[2];
    pxk_mccGlobal(g, obj, PX_ZERO, y, PX_ZERO, 0);
    res[3] = g[0];
    res[4] = g[1];
    res[5] = g[2];
    pxk_mccGlobal(g, obj, PX_ZERO, PX_ZERO, z, 0);
    res[6] = g[0];
    res[7] = g[1];
    res[8] = g[2];
    resind[0] = (x > PX_R(0.0)) ? 0 : 1;
    resind[1] = (y > PX_R(0.0)) ? 2 : 3;
    resind[2] = (z > PX_R(0.0)) ? 4 : 5;
    return 3;
  }
  return 0;
}

// normalized directions of the box edges that leave a corner (boxEdgeNormals), their far ends
PX_FN int pxk_mccBoxEdgeNormals(PX_OUT(PX_REAL, res, 3 * PXK_MCC_DEG),
                                PX_OUT(PX_REAL, endverts, 3 * PXK_MCC_DEG), int dim,
                                PX_IN(PX_REAL, obj, PXK_OBJR), PX_IN(PX_REAL, v, 9), int v1i) {
  PXR e[3];
  PXR g[3];
  if (dim == 2) {
    for (int k = 0; k < 3; k++) {
      endverts[k] = v[3 + k];
      e[k] = v[3 + k] - v[k];
    }
    pxk_normalize3(e);
    res[0] = e[0];
    res[1] = e[1];
    res[2] = e[2];
    return 1;
  }
  if (dim == 1) {
    PXR x = obj[PXK_OBJ_SIZE];
    PXR y = obj[PXK_OBJ_SIZE + 1];
    PXR z = obj[PXK_OBJ_SIZE + 2];
    if ((v1i & 1) == 0) x = -obj[PXK_OBJ_SIZE];
    if ((v1i & 2) == 0) y = -obj[PXK_OBJ_SIZE + 1];
    if ((v1i & 4) == 0) z = -obj[PXK_OBJ_SIZE + 2];
    PXR nx = -x;
    PXR ny = -y;
    PXR nz = -z;
    for (int i = 0; i < 3; i++) {
      if (i == 0) pxk_mccGlobal(g, obj, nx, y, z, 1);
      if (i == 1) pxk_mccGlobal(g, obj, x, ny, z, 1);
      if (i == 2) pxk_mccGlobal(g, obj, x, y, nz, 1);
      for (int k = 0; k < 3; k++) {
        endverts[3 * i + k] = g[k];
        e[k] = g[k] - v[k];
      }
      pxk_normalize3(e);
      res[3 * i] = e[0];
      res[3 * i + 1] = e[1];
      res[3 * i + 2] = e[2];
    }
    return 3;
  }
  return 0;
}

// the 4 corners of box face idx in the world frame (boxFace)
PX_FN int pxk_mccBoxFace(PX_OUT(PX_REAL, res, 3 * PXK_MCC_POLY), PX_IN(PX_REAL, obj, PXK_OBJR),
                         int idx) {
  // corner signs per face, in MuJoCo's order
  int sx[4];
  int sy[4];
  int sz[4];
  for (int j = 0; j < 4; j++) {
    sx[j] = 1;
    sy[j] = 1;
    sz[j] = 1;
  }
  if (idx == 0) {
    sz[1] = -1;
    sy[2] = -1;
    sz[2] = -1;
    sy[3] = -1;
  } else if (idx == 1) {
    sx[0] = -1;
    sz[0] = -1;
    sx[1] = -1;
    sx[2] = -1;
    sy[2] = -1;
    sx[3] = -1;
    sy[3] = -1;
    sz[3] = -1;
  } else if (idx == 2) {
    sx[0] = -1;
    sz[0] = -1;
    sz[1] = -1;
    sx[3] = -1;
  } else if (idx == 3) {
    sx[0] = -1;
    sy[0] = -1;
    sy[1] = -1;
    sy[2] = -1;
    sz[2] = -1;
    sx[3] = -1;
    sy[3] = -1;
    sz[3] = -1;
  } else if (idx == 4) {
    sx[0] = -1;
    sy[2] = -1;
    sx[3] = -1;
    sy[3] = -1;
  } else if (idx == 5) {
    sz[0] = -1;
    sx[1] = -1;
    sz[1] = -1;
    sx[2] = -1;
    sy[2] = -1;
    sz[2] = -1;
    sy[3] = -1;
    sz[3] = -1;
  } else {
    return 0;
  }
  PXR g[3];
  for (int j = 0; j < 4; j++) {
    PXR x = obj[PXK_OBJ_SIZE];
    PXR y = obj[PXK_OBJ_SIZE + 1];
    PXR z = obj[PXK_OBJ_SIZE + 2];
    if (sx[j] < 0) x = -obj[PXK_OBJ_SIZE];
    if (sy[j] < 0) y = -obj[PXK_OBJ_SIZE + 1];
    if (sz[j] < 0) z = -obj[PXK_OBJ_SIZE + 2];
    pxk_mccGlobal(g, obj, x, y, z, 1);
    res[3 * j] = g[0];
    res[3 * j + 1] = g[1];
    res[3 * j + 2] = g[2];
  }
  return 4;
}

// the vertices of local polygon idx of the object's mesh, reversed, in the world frame (meshFace)
PX_FN int pxk_mccMeshFace(PX_MDC PX_OUT(PX_REAL, res, 3 * PXK_MCC_POLY),
                          PX_IN(PX_REAL, obj, PXK_OBJR), PX_IN(int, obji, PXK_OBJI), int idx) {
  int pa = M(mesh_polyadr, obji[PXK_OBJ_DATAID]);
  int va = obji[PXK_OBJ_VERTADR];
  int adr = M(mesh_polyvertadr, pa + idx);
  int nvert = M(mesh_polyvertnum, pa + idx);
  if (nvert > PXK_MCC_POLY) nvert = PXK_MCC_POLY;
  int j = 0;
  PXR g[3];
  for (int i = nvert - 1; i >= 0; i--) {
    int v = va + M(mesh_polyvert, adr + i);
    pxk_mccGlobal(g, obj, PX_TOREAL(M(mesh_vert, 3 * v)), PX_TOREAL(M(mesh_vert, 3 * v + 1)),
                  PX_TOREAL(M(mesh_vert, 3 * v + 2)), 1);
    res[3 * j] = g[0];
    res[3 * j + 1] = g[1];
    res[3 * j + 2] = g[2];
    j++;
  }
  return nvert;
}

// area of quadrilateral (a, b, c, d) of polygon vertices (area4)
PX_FN PX_REAL pxk_mccArea4(PX_IN(PX_REAL, poly, 6 * PXK_MCC_POLY), int a, int b, int c, int d) {
  PXR ad[3];
  PXR db[3];
  PXR bc[3];
  PXR ca[3];
  for (int k = 0; k < 3; k++) {
    ad[k] = poly[3 * d + k] - poly[3 * a + k];
    db[k] = poly[3 * b + k] - poly[3 * d + k];
    bc[k] = poly[3 * c + k] - poly[3 * b + k];
    ca[k] = poly[3 * a + k] - poly[3 * c + k];
  }
  PXR e[3];
  PXR f[3];
  PXR g[3];
  pxk_ccdCross(e, ad, db);
  pxk_ccdCross(f, bc, ca);
  for (int k = 0; k < 3; k++) {
    g[k] = e[k] + f[k];
  }
  PXR nn = pxk_ccdNorm3(g);
  PXR r = PX_R(0.5) * nn;
  return r;
}

// the quadrilateral of largest area on the polygon's vertices (polygonQuad)
PX_FN void pxk_mccQuad(PX_OUT(int, res, 4), PX_IN(PX_REAL, poly, 6 * PXK_MCC_POLY), int nvert) {
  int a = 0;
  int b = 1;
  int c = 2;
  int d = 3;
  res[0] = a;
  res[1] = b;
  res[2] = c;
  res[3] = d;
  PXR m = pxk_mccArea4(poly, a, b, c, d);
  for (; a < nvert; a++) {
    for (;;) {
      int dn = (d == nvert - 1) ? 0 : d + 1;
      PXR mn = pxk_mccArea4(poly, a, b, c, dn);
      if (mn <= m) break;
      m = mn;
      d = dn;
      res[0] = a;
      res[1] = b;
      res[2] = c;
      res[3] = d;
      for (;;) {
        int cn = (c == nvert - 1) ? 0 : c + 1;
        PXR mc = pxk_mccArea4(poly, a, b, cn, d);
        if (mc <= m) break;
        m = mc;
        c = cn;
        res[0] = a;
        res[1] = b;
        res[2] = c;
        res[3] = d;
      }
      for (;;) {
        int bn = (b == nvert - 1) ? 0 : b + 1;
        PXR mb = pxk_mccArea4(poly, a, bn, c, d);
        if (mb <= m) break;
        m = mb;
        b = bn;
        res[0] = a;
        res[1] = b;
        res[2] = c;
        res[3] = d;
      }
    }
    if (b == a) {
      b = (b == nvert - 1) ? 0 : b + 1;
      if (c == b) {
        c = (c == nvert - 1) ? 0 : c + 1;
        if (d == c) d = (d == nvert - 1) ? 0 : d + 1;
      }
    }
  }
}

// witness pair i from clipped vertex j of the polygon against the face (point p, normal n) along
// dir; returns the distance (witnessOnFace)
PX_FN void pxk_mccWitness(PX_INOUT(PX_REAL, sr, PXK_SR), int i,
                          PX_IN(PX_REAL, poly, 6 * PXK_MCC_POLY), int j,
                          PX_IN(PX_REAL, face1, 3 * PXK_MCC_POLY), PX_IN(PX_REAL, n, 3),
                          PX_IN(PX_REAL, dir, 3)) {
  PXR dv[3];
  for (int k = 0; k < 3; k++) {
    dv[k] = poly[3 * j + k] - face1[k];
  }
  PXR dist = pxk_dot3(dv, n);
  PXR s = -PX_ABS(dist);
  for (int k = 0; k < 3; k++) {
    PXR t = s * dir[k];
    sr[PXK_SR_X1 + 3 * i + k] = poly[3 * j + k] + t;
    sr[PXK_SR_X2 + 3 * i + k] = poly[3 * j + k];
  }
  sr[PXK_SR_DIST + i] = dist;
}

// clip polygon face2 against polygon face1 (normal n) and set the witness pairs (polygonClip)
PX_FN void pxk_mccClip(PX_INOUT(PX_REAL, sr, PXK_SR), PX_INOUT(int, si, PXK_SI),
                       PX_IN(PX_REAL, face1, 3 * PXK_MCC_POLY), int nface1,
                       PX_IN(PX_REAL, face2, 3 * PXK_MCC_POLY), int nface2, PX_IN(PX_REAL, n, 3),
                       PX_IN(PX_REAL, dir, 3)) {
  if (nface1 < 3) return;
  PXR poly[6 * PXK_MCC_POLY];
  PXR clip[6 * PXK_MCC_POLY];
  PXR pn[3 * PXK_MCC_POLY];
  PXR pd[PXK_MCC_POLY];
  PXR a[3];
  PXR b[3];
  PXR r[3];
  PXR nk[3];

  // side planes of face1's edges
  for (int i = 0; i < nface1; i++) {
    int j = (i < nface1 - 1) ? i + 1 : 0;
    for (int k = 0; k < 3; k++) {
      a[k] = face1[3 * i + k];
      b[k] = face1[3 * j + k];
    }
    PXR v3[3];
    PXR d1[3];
    PXR d2[3];
    for (int k = 0; k < 3; k++) {
      v3[k] = a[k] + n[k];
      d1[k] = b[k] - a[k];
    }
    for (int k = 0; k < 3; k++) {
      d2[k] = v3[k] - a[k];
    }
    pxk_ccdCross(r, d1, d2);
    pxk_normalize3(r);
    pn[3 * i] = r[0];
    pn[3 * i + 1] = r[1];
    pn[3 * i + 2] = r[2];
    pd[i] = pxk_dot3(r, a);
  }

  int npoly = nface2;
  int nclip = 0;
  for (int i = 0; i < 3 * nface2; i++) {
    poly[i] = face2[i];
  }

  // clip by one edge at a time
  for (int e = 0; e < nface1; e++) {
    for (int k = 0; k < 3; k++) {
      a[k] = face1[3 * e + k];
      nk[k] = pn[3 * e + k];
    }
    for (int i = 0; i < npoly; i++) {
      int q = (i < npoly - 1) ? i + 1 : 0;
      PXR pp[3];
      PXR qq[3];
      PXR pq[3];
      PXR dp[3];
      PXR dq[3];
      for (int k = 0; k < 3; k++) {
        pp[k] = poly[3 * i + k];
        qq[k] = poly[3 * q + k];
      }
      for (int k = 0; k < 3; k++) {
        pq[k] = qq[k] - pp[k];
        dp[k] = pp[k] - a[k];
        dq[k] = qq[k] - a[k];
      }
      PXR hp = pxk_dot3(dp, nk);
      PXR hq = pxk_dot3(dq, nk);
      int in1 = (hp > -PXK_MINVAL) ? 1 : 0;
      int in2 = (hq > -PXK_MINVAL) ? 1 : 0;
      if (in1 == 0 && in2 == 0) continue;
      if (in1 != 0 && in2 != 0) {
        if (nclip < 2 * PXK_MCC_POLY) {
          for (int k = 0; k < 3; k++) {
            clip[3 * nclip + k] = qq[k];
          }
          nclip++;
        }
        continue;
      }
      PXR tmp = pxk_dot3(nk, pq);
      if (tmp != PX_R(0.0)) {
        PXR np = pxk_dot3(nk, pp);
        PXR num = pd[e] - np;
        PXR t = num / tmp;
        if (t >= PX_R(0.0) && t <= PX_R(1.0) && nclip < 2 * PXK_MCC_POLY) {
          for (int k = 0; k < 3; k++) {
            PXR s = t * pq[k];
            clip[3 * nclip + k] = pp[k] + s;
          }
          nclip++;
        }
      }
      if (in2 != 0 && nclip < 2 * PXK_MCC_POLY) {
        for (int k = 0; k < 3; k++) {
          clip[3 * nclip + k] = qq[k];
        }
        nclip++;
      }
    }
    for (int i = 0; i < 3 * nclip; i++) {
      poly[i] = clip[i];
    }
    npoly = nclip;
    nclip = 0;
  }

  // drop vertices above face1
  int mcount = npoly;
  npoly = 0;
  for (int i = 0; i < mcount; i++) {
    PXR dv[3];
    for (int k = 0; k < 3; k++) {
      dv[k] = poly[3 * i + k] - face1[k];
    }
    PXR h = pxk_dot3(dv, n);
    if (h <= PX_R(0.0)) {
      if (npoly != i) {
        for (int k = 0; k < 3; k++) {
          poly[3 * npoly + k] = poly[3 * i + k];
        }
      }
      npoly++;
    }
  }
  if (npoly < 1) return;

  // at most 4 contacts: the largest quadrilateral
  if (si[PXK_SI_MAXCON] < 5 && npoly > 4) {
    int rect[4];
    pxk_mccQuad(rect, poly, npoly);
    si[PXK_SI_NX] = 4;
    for (int i = 0; i < 4; i++) {
      pxk_mccWitness(sr, i, poly, rect[i], face1, n, dir);
    }
    return;
  }

  // an edge: its two farthest points
  if (nface2 == 2 && npoly > 2) {
    int best1 = 0;
    int best2 = 1;
    PXR dbest = PX_ZERO;
    for (int i = 0; i < npoly; i++) {
      for (int j = i + 1; j < npoly; j++) {
        PXR dv[3];
        for (int k = 0; k < 3; k++) {
          dv[k] = poly[3 * j + k] - poly[3 * i + k];
        }
        PXR d2 = pxk_dot3(dv, dv);
        if (d2 > dbest) {
          dbest = d2;
          best1 = i;
          best2 = j;
        }
      }
    }
    pxk_mccWitness(sr, 0, poly, best1, face1, n, dir);
    pxk_mccWitness(sr, 1, poly, best2, face1, n, dir);
    si[PXK_SI_NX] = 2;
    return;
  }

  if (npoly > PXK_CCD_NX) npoly = PXK_CCD_NX;
  for (int i = 0; i < npoly; i++) {
    pxk_mccWitness(sr, i, poly, i, face1, n, dir);
  }
  si[PXK_SI_NX] = npoly;
}

// normal i (3 entries) of a normal list
PX_FN void pxk_mccGet(PX_OUT(PX_REAL, res, 3), PX_IN(PX_REAL, list, 3 * PXK_MCC_DEG), int i) {
  res[0] = list[3 * i];
  res[1] = list[3 * i + 1];
  res[2] = list[3 * i + 2];
}

// first pair of normals (i of v, j of w) facing each other within the face tolerance
PX_FN int pxk_mccAlignedFaces(PX_OUT(int, res, 2), PX_IN(PX_REAL, v, 3 * PXK_MCC_DEG), int nv,
                              PX_IN(PX_REAL, w, 3 * PXK_MCC_DEG), int nw) {
  PXR a[3];
  PXR b[3];
  for (int i = 0; i < nv; i++) {
    for (int j = 0; j < nw; j++) {
      pxk_mccGet(a, v, i);
      pxk_mccGet(b, w, j);
      PXR dd = pxk_dot3(a, b);
      if (dd < -PXK_FACE_TOL) {
        res[0] = i;
        res[1] = j;
        return 1;
      }
    }
  }
  return 0;
}

// first edge j perpendicular to face normal i within the edge tolerance: res = (j, i)
PX_FN int pxk_mccAlignedFaceEdge(PX_OUT(int, res, 2), PX_IN(PX_REAL, edge, 3 * PXK_MCC_DEG),
                                 int nedge, PX_IN(PX_REAL, face, 3 * PXK_MCC_DEG), int nface) {
  PXR a[3];
  PXR b[3];
  for (int i = 0; i < nface; i++) {
    for (int j = 0; j < nedge; j++) {
      pxk_mccGet(a, edge, j);
      pxk_mccGet(b, face, i);
      PXR dd = pxk_dot3(a, b);
      if (PX_ABS(dd) < PXK_EDGE_TOL) {
        res[0] = j;
        res[1] = i;
        return 1;
      }
    }
  }
  return 0;
}

// candidate face normals of object o (box or mesh) from the EPA face's vertices
PX_FN int pxk_mccNormals(PX_MDC PX_OUT(PX_REAL, nrm, 3 * PXK_MCC_DEG),
                         PX_OUT(int, idx, PXK_MCC_DEG), int dim, PX_IN(PX_REAL, obj, PXK_OBJR),
                         PX_IN(int, obji, PXK_OBJI), PX_IN(int, vi, 3), PX_IN(PX_REAL, dir, 3)) {
  if (obji[PXK_OBJ_TYPE] == PXK_GEOM_BOX) {
    return pxk_mccBoxNormals(nrm, idx, dim, obj, vi, dir);
  }
  if (obji[PXK_OBJ_TYPE] == PXK_GEOM_MESH) {
    return pxk_mccMeshNormals(PX_MDARGC nrm, idx, dim, obj, obji, vi);
  }
  return 0;
}

// edge directions of object o (box or mesh) from the EPA face's vertices
PX_FN int pxk_mccEdgeNormals(PX_MDC PX_OUT(PX_REAL, nrm, 3 * PXK_MCC_DEG),
                             PX_OUT(PX_REAL, endverts, 3 * PXK_MCC_DEG), int dim,
                             PX_IN(PX_REAL, obj, PXK_OBJR), PX_IN(int, obji, PXK_OBJI),
                             PX_IN(PX_REAL, v, 9), int v1i) {
  if (obji[PXK_OBJ_TYPE] == PXK_GEOM_BOX) {
    return pxk_mccBoxEdgeNormals(nrm, endverts, dim, obj, v, v1i);
  }
  if (obji[PXK_OBJ_TYPE] == PXK_GEOM_MESH) {
    return pxk_mccMeshEdgeNormals(PX_MDARGC nrm, endverts, dim, obj, obji, v, v1i);
  }
  return 0;
}

// face idx of object o (box or mesh) as a polygon
PX_FN int pxk_mccFace(PX_MDC PX_OUT(PX_REAL, res, 3 * PXK_MCC_POLY), PX_IN(PX_REAL, obj, PXK_OBJR),
                      PX_IN(int, obji, PXK_OBJI), int idx) {
  if (obji[PXK_OBJ_TYPE] == PXK_GEOM_BOX) return pxk_mccBoxFace(res, obj, idx);
  if (obji[PXK_OBJ_TYPE] == PXK_GEOM_MESH) return pxk_mccMeshFace(PX_MDARGC res, obj, obji, idx);
  return 0;
}

// more witness pairs from the final EPA face (multicontact)
PX_FN void pxk_ccdMulticontact(PX_MDC PXK_PTR_PARAM PXK_PTI_PARAM int face,
                               PX_INOUT(PX_REAL, sr, PXK_SR), PX_INOUT(int, si, PXK_SI),
                               PX_IN(PX_REAL, obj1, PXK_OBJR), PX_IN(int, oi1, PXK_OBJI),
                               PX_IN(PX_REAL, obj2, PXK_OBJR), PX_IN(int, oi2, PXK_OBJI)) {
  if (oi1[PXK_OBJ_TYPE] == PXK_GEOM_MESH && M(mesh_polynum, oi1[PXK_OBJ_DATAID]) == 0) return;
  if (oi2[PXK_OBJ_TYPE] == PXK_GEOM_MESH && M(mesh_polynum, oi2[PXK_OBJ_DATAID]) == 0) return;

  int v1i[3];
  int v2i[3];
  PXR v1[9];
  PXR v2[9];
  for (int j = 0; j < 3; j++) {
    int pv = pti[PXK_PI_FVT + 3 * face + j];
    v1i[j] = pti[PXK_PI_VI + 2 * pv];
    v2i[j] = pti[PXK_PI_VI + 2 * pv + 1];
    for (int k = 0; k < 3; k++) {
      v1[3 * j + k] = ptr[PXK_PR_V + 9 * pv + 3 + k];
      v2[3 * j + k] = ptr[PXK_PR_V + 9 * pv + 6 + k];
    }
  }
  int nface1 = pxk_mccSimplexDim(v1i, v1);
  int nface2 = pxk_mccSimplexDim(v2i, v2);

  PXR dir[3];
  PXR dneg[3];
  for (int k = 0; k < 3; k++) {
    dir[k] = sr[PXK_SR_X2 + k] - sr[PXK_SR_X1 + k];
    dneg[k] = sr[PXK_SR_X1 + k] - sr[PXK_SR_X2 + k];
  }

  PXR n1[3 * PXK_MCC_DEG];
  PXR n2[3 * PXK_MCC_DEG];
  PXR endverts[3 * PXK_MCC_DEG];
  int idx1[PXK_MCC_DEG];
  int idx2[PXK_MCC_DEG];
  for (int i = 0; i < 3 * PXK_MCC_DEG; i++) {
    n1[i] = PX_ZERO;
    n2[i] = PX_ZERO;
    endverts[i] = PX_ZERO;
  }
  for (int i = 0; i < PXK_MCC_DEG; i++) {
    idx1[i] = 0;
    idx2[i] = 0;
  }
  int nn1 = pxk_mccNormals(PX_MDARGC n1, idx1, nface1, obj1, oi1, v1i, dneg);
  int nn2 = pxk_mccNormals(PX_MDARGC n2, idx2, nface2, obj2, oi2, v2i, dir);

  // facing faces, else an edge against a face
  int res[2];
  res[0] = 0;
  res[1] = 0;
  int edgecon1 = 0;
  int edgecon2 = 0;
  if (pxk_mccAlignedFaces(res, n1, nn1, n2, nn2) == 0) {
    if (nface1 < 3 && nface1 <= nface2) {
      nn1 = pxk_mccEdgeNormals(PX_MDARGC n1, endverts, nface1, obj1, oi1, v1, v1i[0]);
      if (pxk_mccAlignedFaceEdge(res, n1, nn1, n2, nn2) == 0) return;
      edgecon1 = 1;
    } else if (nface2 < 3) {
      nn2 = pxk_mccEdgeNormals(PX_MDARGC n2, endverts, nface2, obj2, oi2, v2, v2i[0]);
      if (pxk_mccAlignedFaceEdge(res, n2, nn2, n1, nn1) == 0) return;
      edgecon2 = 1;
    } else {
      return;
    }
  }
  int i = res[0];
  int j = res[1];

  PXR face1[3 * PXK_MCC_POLY];
  PXR face2[3 * PXK_MCC_POLY];
  for (int k = 0; k < 3 * PXK_MCC_POLY; k++) {
    face1[k] = PX_ZERO;
    face2[k] = PX_ZERO;
  }
  if (edgecon1 != 0) {
    for (int k = 0; k < 3; k++) {
      face1[k] = v1[k];
      face1[3 + k] = endverts[3 * i + k];
    }
    nface1 = 2;
  } else {
    int ind = (edgecon2 != 0) ? idx1[j] : idx1[i];
    nface1 = pxk_mccFace(PX_MDARGC face1, obj1, oi1, ind);
  }
  if (edgecon2 != 0) {
    for (int k = 0; k < 3; k++) {
      face2[k] = v2[k];
      face2[3 + k] = endverts[3 * i + k];
    }
    nface2 = 2;
  } else {
    nface2 = pxk_mccFace(PX_MDARGC face2, obj2, oi2, idx2[j]);
  }

  PXR nrm[3];
  PXR wdir[3];
  if (edgecon1 != 0) {
    // clip the edge of geom 1 against the face of geom 2, then swap the witness sides
    pxk_mccGet(nrm, n2, j);
    for (int k = 0; k < 3; k++) {
      wdir[k] = PX_R(-1.0) * nrm[k];
    }
    pxk_mccClip(sr, si, face2, nface2, face1, nface1, nrm, wdir);
    for (int q = 0; q < si[PXK_SI_NX] && q < PXK_CCD_NX; q++) {
      for (int k = 0; k < 3; k++) {
        PXR t = sr[PXK_SR_X1 + 3 * q + k];
        sr[PXK_SR_X1 + 3 * q + k] = sr[PXK_SR_X2 + 3 * q + k];
        sr[PXK_SR_X2 + 3 * q + k] = t;
      }
    }
    return;
  }
  if (edgecon2 != 0) {
    pxk_mccGet(nrm, n1, j);
    for (int k = 0; k < 3; k++) {
      wdir[k] = PX_R(-1.0) * nrm[k];
    }
    pxk_mccClip(sr, si, face1, nface1, face2, nface2, nrm, wdir);
    return;
  }
  pxk_mccGet(wdir, n2, j);
  pxk_mccGet(nrm, n1, i);
  pxk_mccClip(sr, si, face1, nface1, face2, nface2, nrm, wdir);
}

// ------------------------------------ mjc_ccd ---------------------------------------------------

// move the witness points apart by the shrunk radii and reduce the distance (inflate)
PX_FN void pxk_ccdInflate(PX_INOUT(PX_REAL, sr, PXK_SR), PX_REAL m1, PX_REAL m2) {
  PXR n[3];
  for (int k = 0; k < 3; k++) {
    n[k] = sr[PXK_SR_X2 + k] - sr[PXK_SR_X1 + k];
  }
  pxk_normalize3(n);
  if (m1 != PX_R(0.0)) {
    for (int k = 0; k < 3; k++) {
      PXR t = m1 * n[k];
      sr[PXK_SR_X1 + k] = sr[PXK_SR_X1 + k] + t;
    }
  }
  if (m2 != PX_R(0.0)) {
    for (int k = 0; k < 3; k++) {
      PXR t = m2 * n[k];
      sr[PXK_SR_X2 + k] = sr[PXK_SR_X2 + k] - t;
    }
  }
  PXR mm = m1 + m2;
  sr[PXK_SR_DIST] = sr[PXK_SR_DIST] - mm;
}

// MuJoCo's mjc_ccd: negative result for penetration, the witness pairs in the status (x1, x2,
// dist, nx); maxcon > 1 asks for polygon multi-contact; cutoff is
// mjCCDConfig's dist_cutoff: 0 (penetration only: GJK may stop at a separating plane or a
// containing tetrahedron) or the distance up to which separated geoms are measured (farther:
// the "infinite" PXK_CCD_MAXLIMIT)
PX_FN PX_REAL pxk_ccd(PX_MDC PX_INOUT(PX_REAL, sr, PXK_SR), PX_INOUT(int, si, PXK_SI),
                      PX_INOUT(PX_REAL, obj1, PXK_OBJR), PX_INOUT(int, oi1, PXK_OBJI),
                      PX_INOUT(PX_REAL, obj2, PXK_OBJR), PX_INOUT(int, oi2, PXK_OBJI), int maxcon,
                      PX_REAL cutoff) {
  // centres (mjc_center): a height-field prism's object carries its mean vertex as position
  for (int k = 0; k < 3; k++) {
    sr[PXK_SR_X1 + k] = obj1[PXK_OBJ_POS + k];
    sr[PXK_SR_X2 + k] = obj2[PXK_OBJ_POS + k];
  }
  si[PXK_SI_GJKIT] = 0;
  si[PXK_SI_EPAIT] = 0;
  si[PXK_SI_EPASTAT] = PXK_EPA_NOCONTACT;
  si[PXK_SI_NX] = 0;
  si[PXK_SI_NSIMP] = 0;
  sr[PXK_SR_TOL] = MOPT(ccd_tolerance);
  si[PXK_SI_MAXIT] = MOPT(ccd_iterations);
  si[PXK_SI_MAXCON] = maxcon;
  sr[PXK_SR_CUTOFF] = cutoff;

  // spheres and capsules shrink to a point and a segment for a first GJK distance (pass 0);
  // pass 1 runs GJK on the full shapes. One call site of pxk_ccdGjk serves both passes: the GPU
  // compiler inlines every call, so each call site is a copy of GJK in the module.
  int t1 = oi1[PXK_OBJ_TYPE];
  int t2 = oi2[PXK_OBJ_TYPE];
  int pass = (t1 == PXK_GEOM_SPHERE || t2 == PXK_GEOM_SPHERE || t1 == PXK_GEOM_CAPSULE ||
              t2 == PXK_GEOM_CAPSULE)
                 ? 0
                 : 1;
  PXR full1 = PX_ZERO;
  PXR full2 = PX_ZERO;
  PXR margin1 = obj1[PXK_OBJ_MARGIN];
  PXR margin2 = obj2[PXK_OBJ_MARGIN];
  for (;;) {
    if (pass == 0) {
      if (t1 == PXK_GEOM_SPHERE || t1 == PXK_GEOM_CAPSULE) {
        PXR hm = PX_R(0.5) * margin1;
        full1 = obj1[PXK_OBJ_SIZE] + hm;
        oi1[PXK_OBJ_MODE] = (t1 == PXK_GEOM_SPHERE) ? PXK_SUPP_POINT : PXK_SUPP_LINE;
        obj1[PXK_OBJ_MARGIN] = PX_ZERO;
      }
      if (t2 == PXK_GEOM_SPHERE || t2 == PXK_GEOM_CAPSULE) {
        PXR hm = PX_R(0.5) * margin2;
        full2 = obj2[PXK_OBJ_SIZE] + hm;
        oi2[PXK_OBJ_MODE] = (t2 == PXK_GEOM_SPHERE) ? PXK_SUPP_POINT : PXK_SUPP_LINE;
        obj2[PXK_OBJ_MARGIN] = PX_ZERO;
      }
      PXR fs = full1 + full2;
      sr[PXK_SR_CUTOFF] = sr[PXK_SR_CUTOFF] + fs;
    }
    pxk_ccdGjk(PX_MDARGC sr, si, obj1, oi1, obj2, oi2);
    if (pass == 1) break;
    sr[PXK_SR_CUTOFF] = cutoff;
    obj1[PXK_OBJ_MARGIN] = margin1;
    obj2[PXK_OBJ_MARGIN] = margin2;
    oi1[PXK_OBJ_MODE] = PXK_SUPP_GEOM;
    oi2[PXK_OBJ_MODE] = PXK_SUPP_GEOM;

    // shallow penetration: inflate the distance of the cores
    if (sr[PXK_SR_DIST] > sr[PXK_SR_TOL]) {
      pxk_ccdInflate(sr, full1, full2);
      if (sr[PXK_SR_DIST] > sr[PXK_SR_CUTOFF]) sr[PXK_SR_DIST] = PXK_CCD_MAXLIMIT;
      PXR r = sr[PXK_SR_DIST];
      return r;
    }

    // deep penetration: start over with the full shapes
    si[PXK_SI_GJKIT] = 0;
    for (int k = 0; k < 3; k++) {
      sr[PXK_SR_X1 + k] = obj1[PXK_OBJ_POS + k];
      sr[PXK_SR_X2 + k] = obj2[PXK_OBJ_POS + k];
    }
    pass = 1;
  }

  if (sr[PXK_SR_DIST] <= sr[PXK_SR_TOL] && si[PXK_SI_NSIMP] > 1 && si[PXK_SI_SEP] == 0) {
    sr[PXK_SR_DIST] = PX_ZERO;
    PXK_PT_LOCALS
    pti[PXK_PI_NFACES] = 0;
    pti[PXK_PI_NMAP] = 0;
    pti[PXK_PI_NVERTS] = 0;
    pti[PXK_PI_NEDGES] = 0;
    pti[PXK_PI_W] = 0;
    int nit = si[PXK_SI_MAXIT] < PXK_CCD_MAXIT ? si[PXK_SI_MAXIT] : PXK_CCD_MAXIT;
    pti[PXK_PI_MAXFACES] = 6 * nit;
    for (int k = 0; k < 3; k++) {
      ptr[PXK_PR_CEN + k] = PX_ZERO;
    }

    int ret = 0;
    if (si[PXK_SI_NSIMP] == 2) {
      ret = pxk_ccdPolytope2(PX_MDARGC PXK_PTR_ARG PXK_PTI_ARG sr, si, obj1, oi1, obj2, oi2);
    } else if (si[PXK_SI_NSIMP] == 3) {
      ret = PXK_EPA_TO_P3;
    } else {
      ret = pxk_ccdPolytope4(PXK_PTR_ARG PXK_PTI_ARG sr, si);
    }
    if (ret == PXK_EPA_TO_P3) {
      ret = pxk_ccdPolytope3(PX_MDARGC PXK_PTR_ARG PXK_PTI_ARG sr, si, obj1, oi1, obj2, oi2);
    }
    si[PXK_SI_EPASTAT] = ret;
    if (ret == 0) {
      int face = pxk_ccdEpa(PX_MDARGC PXK_PTR_ARG PXK_PTI_ARG sr, si, obj1, oi1, obj2, oi2);
      if (maxcon > 1 && face >= 0) {
        pxk_ccdMulticontact(PX_MDARGC PXK_PTR_ARG PXK_PTI_ARG face, sr, si, obj1, oi1, obj2, oi2);
      }
    }
  }
  PXR mind = sr[PXK_SR_DIST];
  for (int i = 1; i < si[PXK_SI_NX] && i < PXK_CCD_NX; i++) {
    if (sr[PXK_SR_DIST + i] < mind) mind = sr[PXK_SR_DIST + i];
  }
  return mind;
}

// ------------------------------------ mjc_Convex ------------------------------------------------

// contacts of one penetration query (mjc_penetration with native ccd) appended at con index n
// of the local contact arrays; returns the number found
PX_FN int pxk_ccdPenetration(PX_MDC PX_INOUT(PX_REAL, obj1, PXK_OBJR), PX_INOUT(int, oi1, PXK_OBJI),
                             PX_INOUT(PX_REAL, obj2, PXK_OBJR), PX_INOUT(int, oi2, PXK_OBJI),
                             int maxcon, PX_REAL margin, int n,
                             PX_INOUT(PX_REAL, cdist, PXK_CCD_MAXCON),
                             PX_INOUT(PX_REAL, cpos, 3 * PXK_CCD_MAXCON),
                             PX_INOUT(PX_REAL, cnrm, 3 * PXK_CCD_MAXCON)) {
  PXR sr[PXK_SR];
  int si[PXK_SI];
  for (int i = 0; i < PXK_SR; i++) {
    sr[i] = PX_ZERO;
  }
  for (int i = 0; i < PXK_SI; i++) {
    si[i] = 0;
  }
  PXR dist = pxk_ccd(PX_MDARGC sr, si, obj1, oi1, obj2, oi2, maxcon, PX_ZERO);
  if (!(dist < PX_R(0.0))) return 0;
  int nw = si[PXK_SI_NX];
  int cnt = 0;
  for (int i = 0; i < nw && i < PXK_CCD_NX && n + i < PXK_CCD_MAXCON; i++) {
    int c = n + i;
    cdist[c] = margin + sr[PXK_SR_DIST + i];
    PXR nv[3];
    for (int k = 0; k < 3; k++) {
      PXR s = sr[PXK_SR_X1 + 3 * i + k] + sr[PXK_SR_X2 + 3 * i + k];
      cpos[3 * c + k] = s * PX_R(0.5);
      nv[k] = sr[PXK_SR_X1 + 3 * i + k] - sr[PXK_SR_X2 + 3 * i + k];
    }
    pxk_normalize3(nv);
    for (int k = 0; k < 3; k++) {
      cnrm[3 * c + k] = nv[k];
    }
    cnt++;
  }
  return cnt;
}

// contact frame from a normal (mju_makeFrame with a zero tangent): axes 1 and 2 into t1, t2
PX_FN void pxk_ccdFrame(PX_OUT(PX_REAL, fr, 9), PX_IN(PX_REAL, normal, 3)) {
  PXR x[3];
  PXR y[3];
  x[0] = normal[0];
  x[1] = normal[1];
  x[2] = normal[2];
  pxk_normalize3(x);
  y[0] = PX_R(0.0);
  y[1] = PX_R(0.0);
  y[2] = PX_R(0.0);
  if (x[1] < PX_R(0.5) && x[1] > PX_R(-0.5)) {
    y[1] = PX_R(1.0);
  } else {
    y[2] = PX_R(1.0);
  }
  PXR d = pxk_dot3(x, y);
  for (int k = 0; k < 3; k++) {
    PXR t = x[k] * d;
    y[k] = y[k] - t;
  }
  pxk_normalize3(y);
  PXR z[3];
  pxk_ccdCross(z, x, y);
  for (int k = 0; k < 3; k++) {
    fr[k] = x[k];
    fr[3 + k] = y[k];
    fr[6 + k] = z[k];
  }
}

// rotate a frame (mat, pos) by rot about the point origin (mju_rotateFrame)
PX_FN void pxk_ccdRotateFrame(PX_IN(PX_REAL, origin, 3), PX_IN(PX_REAL, rot, 9),
                              PX_INOUT(PX_REAL, obj, PXK_OBJR)) {
  PXR xm[9];
  PXR rel[3];
  PXR vec[3];
  for (int k = 0; k < 9; k++) {
    xm[k] = obj[PXK_OBJ_MAT + k];
  }
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      obj[PXK_OBJ_MAT + 3 * i + j] =
          rot[3 * i] * xm[j] + rot[3 * i + 1] * xm[3 + j] + rot[3 * i + 2] * xm[6 + j];
    }
  }
  for (int k = 0; k < 3; k++) {
    rel[k] = origin[k] - obj[PXK_OBJ_POS + k];
  }
  pxk_mulMatVec3(vec, rot, rel);
  for (int k = 0; k < 3; k++) {
    vec[k] = vec[k] - rel[k];
  }
  for (int k = 0; k < 3; k++) {
    obj[PXK_OBJ_POS + k] = obj[PXK_OBJ_POS + k] - vec[k];
  }
}

// number of contacts one mjc_ccd pass may return (maxContacts of engine_collision_convex.c)
PX_FN int pxk_ccdMaxContacts(PX_MDC PX_REAL margin, int t1, int t2) {
  if (margin > PX_R(0.0)) return 1;
  if (t1 == PXK_GEOM_BOX && t2 == PXK_GEOM_BOX) return 8;
  int multi = ((MOPT(disableflags) & PX_DSBL_MULTICCD) == 0) ? 1 : 0;
  if ((t1 == PXK_GEOM_BOX || t1 == PXK_GEOM_MESH) && (t2 == PXK_GEOM_BOX || t2 == PXK_GEOM_MESH)) {
    return (multi != 0) ? 4 : 1;
  }
  return 1;
}

// general convex-convex collision (mjc_Convex with native ccd): writes up to 5 pre-contacts at
// adr and returns their number
PX_FN int pxk_colConvex(PX_MDC int g1, int g2, PX_REAL margin, int adr) {
  PXR obj1[PXK_OBJR];
  PXR obj2[PXK_OBJR];
  int oi1[PXK_OBJI];
  int oi2[PXK_OBJI];
  PXR cdist[PXK_CCD_MAXCON];
  PXR cpos[3 * PXK_CCD_MAXCON];
  PXR cnrm[3 * PXK_CCD_MAXCON];
  for (int i = 0; i < PXK_CCD_MAXCON; i++) {
    cdist[i] = PX_ZERO;
    for (int k = 0; k < 3; k++) {
      cpos[3 * i + k] = PX_ZERO;
      cnrm[3 * i + k] = PX_ZERO;
    }
  }
  pxk_ccdInit(PX_MDARGC g1, margin, obj1, oi1);
  pxk_ccdInit(PX_MDARGC g2, margin, obj2, oi2);
  int t1 = oi1[PXK_OBJ_TYPE];
  int t2 = oi2[PXK_OBJ_TYPE];
  int maxcon = pxk_ccdMaxContacts(PX_MDARGC margin, t1, t2);

  // pass 0: the first contact (a multi-contact pass, maxcon > 1, is reduced to its deepest point
  // there); passes 1 to 4: more contacts from slightly rotated poses (about the two tangent axes,
  // by -1e-3 and +1e-3 rad). One call site of pxk_ccdPenetration, so that a GPU build inlines
  // the GJK/EPA code once.
  int multi = ((MOPT(disableflags) & PX_DSBL_MULTICCD) == 0) ? 1 : 0;
  int ncon = 0;
  int rotate = 0;
  PXR p0[3];
  PXR fr[9];
  PXR tol = PX_ZERO;
  for (int k = 0; k < 3; k++) p0[k] = PX_ZERO;
  for (int k = 0; k < 9; k++) fr[k] = PX_ZERO;
  for (int pass = 0; pass < 5; pass++) {
    if (pass > 0 && rotate == 0) break;
    int mc = pass == 0 ? maxcon : 1;
    if (pass > 0) {
      int ax = (pass - 1) / 2;
      int an = (pass - 1) - 2 * ax;
      PXR axis[3];
      axis[0] = fr[3 + 3 * ax];
      axis[1] = fr[4 + 3 * ax];
      axis[2] = fr[5 + 3 * ax];
      PXR angle = (an == 0) ? PX_R(-1e-3) : PX_R(1e-3);
      PXR quat[4];
      PXR rot[9];
      PXR invrot[9];
      pxk_axisAngle2Quat(quat, axis, angle);
      pxk_quat2Mat(rot, quat);
      for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
          invrot[3 * i + j] = rot[3 * j + i];
        }
      }
      pxk_ccdRotateFrame(p0, rot, obj1);
      pxk_ccdRotateFrame(p0, invrot, obj2);
    }
    int n = pxk_ccdPenetration(PX_MDARGC obj1, oi1, obj2, oi2, mc, margin, ncon, cdist, cpos, cnrm);
    if (pass == 0) {
      ncon = n;
      if (maxcon == 1 && ncon == 1 && multi != 0 && t1 != PXK_GEOM_ELLIPSOID &&
          t1 != PXK_GEOM_SPHERE && t2 != PXK_GEOM_ELLIPSOID && t2 != PXK_GEOM_SPHERE) {
        rotate = 1;
        PXR n0[3];
        for (int k = 0; k < 3; k++) {
          n0[k] = cnrm[k];
          p0[k] = cpos[k];
        }
        pxk_ccdFrame(fr, n0);
        PXR rb1 = M(geom_rbound, g1);
        PXR rb2 = M(geom_rbound, g2);
        PXR rbmin = rb1 < rb2 ? rb1 : rb2;
        tol = PX_R(1e-3) * rbmin;
      }
    } else {
      if (n > 0) {
        // distinct from all earlier contacts
        int distinct = 1;
        for (int i = 0; i < ncon; i++) {
          PXR dx = cpos[3 * i] - cpos[3 * ncon];
          PXR dy = cpos[3 * i + 1] - cpos[3 * ncon + 1];
          PXR dz = cpos[3 * i + 2] - cpos[3 * ncon + 2];
          PXR dd = PX_SQRT(dx * dx + dy * dy + dz * dz);
          if (dd <= tol) distinct = 0;
        }
        if (distinct != 0) {
          cdist[ncon] = cdist[0];
          ncon++;
        }
      }
      for (int k = 0; k < 3; k++) {
        obj1[PXK_OBJ_POS + k] = D(geom_xpos, 3 * g1 + k);
        obj2[PXK_OBJ_POS + k] = D(geom_xpos, 3 * g2 + k);
      }
      for (int k = 0; k < 9; k++) {
        obj1[PXK_OBJ_MAT + k] = D(geom_xmat, 9 * g1 + k);
        obj2[PXK_OBJ_MAT + k] = D(geom_xmat, 9 * g2 + k);
      }
    }
  }

  for (int i = 0; i < ncon; i++) {
    PXK_CON(adr + i).dist = cdist[i];
    for (int k = 0; k < 3; k++) {
      PXK_CON(adr + i).pos[k] = cpos[3 * i + k];
      PXK_CON(adr + i).frame[k] = cnrm[3 * i + k];
      PXK_CON(adr + i).frame[3 + k] = PX_ZERO;
    }
  }
  return ncon;
}

#endif  // PX_KERN_COLLIDE_GJK_H_
