// SPDX-License-Identifier: Apache-2.0
// Convex objects for the general convex collider and their support functions, in the kernel
// dialect. MuJoCo's mjCCDObj (engine_collision_convex.c, mjc_initCCDObj) becomes two local
// arrays: the reals `obj[PXK_OBJR]` (size, pos, mat, margin) and the integers `obji[PXK_OBJI]`
// (geom, type, cached support vertices, mesh addresses). Two families of support functions:
//  - pxk_ccdSupport: the per-type functions MuJoCo's native GJK/EPA (mjc_ccd) calls through
//    obj->support (sphere, capsule, ellipsoid, cylinder, box, mesh by exhaustive search or by
//    hill-climbing over mesh_graph seeded from mesh_extrema), plus the point and line supports
//    mjc_ccd substitutes for spheres and capsules; the margin is not added here (the caller
//    adds half the margin along the direction, as MuJoCo's GJK does);
//  - pxk_ccdSupportGeneric: MuJoCo's mjccd_support (used by mjc_PlaneConvex and libccd), which
//    adds half the margin in the local frame and hill-climbs meshes from the cached vertex.
// Operation order follows MuJoCo's so results are bit-equal.
#ifndef PX_KERN_COLLIDE_SUPPORT_H_
#define PX_KERN_COLLIDE_SUPPORT_H_

#include "kern/libm.h"
#include "kern/spatial.h"

// geom types (mjtGeom)
#ifndef PXK_GEOM_PLANE
#define PXK_GEOM_PLANE 0
#endif
#ifndef PXK_GEOM_HFIELD
#define PXK_GEOM_HFIELD 1
#endif
#ifndef PXK_GEOM_SPHERE
#define PXK_GEOM_SPHERE 2
#endif
#ifndef PXK_GEOM_CAPSULE
#define PXK_GEOM_CAPSULE 3
#endif
#ifndef PXK_GEOM_ELLIPSOID
#define PXK_GEOM_ELLIPSOID 4
#endif
#ifndef PXK_GEOM_CYLINDER
#define PXK_GEOM_CYLINDER 5
#endif
#ifndef PXK_GEOM_BOX
#define PXK_GEOM_BOX 6
#endif
#ifndef PXK_GEOM_MESH
#define PXK_GEOM_MESH 7
#endif

// meshes with fewer vertices than this are searched exhaustively (mjMESH_HILLCLIMB_MIN)
#define PXK_MESH_HILLCLIMB_MIN 10

// layout of the real part of a convex object
#define PXK_OBJ_SIZE 0     // geom_size (3)
#define PXK_OBJ_POS 3      // geom_xpos (3)
#define PXK_OBJ_MAT 6      // geom_xmat (9)
#define PXK_OBJ_MARGIN 15  // margin the object was made with
#define PXK_OBJ_PRISM 16   // height-field prism: 6 vertices (bottom triangle, then top)
#define PXK_OBJR 34

// layout of the integer part of a convex object
#define PXK_OBJ_GEOM 0       // geom id
#define PXK_OBJ_TYPE 1       // geom type
#define PXK_OBJ_VERTINDEX 2  // last support vertex (box corner, mesh vertex), -1 if none
#define PXK_OBJ_MESHINDEX 3  // last support vertex of a mesh's graph (local id), -1 if none
#define PXK_OBJ_MODE 4       // support used by pxk_ccdSupport: PXK_SUPP_*
#define PXK_OBJ_VERTADR 5    // mesh: first vertex in mesh_vert
#define PXK_OBJ_NVERT 6      // mesh: number of vertices
#define PXK_OBJ_GRAPHADR 7   // mesh: address in mesh_graph, -1 for exhaustive search
#define PXK_OBJ_DATAID 8     // mesh id, -1 if none
#define PXK_OBJI 9

// which support pxk_ccdSupport evaluates
#define PXK_SUPP_GEOM 0   // the geom's own shape
#define PXK_SUPP_POINT 1  // the geom's centre (sphere shrunk to a point)
#define PXK_SUPP_LINE 2   // the geom's axis segment (capsule shrunk to a line)

// make the convex object of geom g with the given margin (mjc_initCCDObj)
PX_FN void pxk_ccdInit(PX_MDC int g, PX_REAL margin, PX_OUT(PX_REAL, obj, PXK_OBJR),
                       PX_OUT(int, obji, PXK_OBJI)) {
  for (int k = 0; k < 3; k++) {
    obj[PXK_OBJ_SIZE + k] = M(geom_size, 3 * g + k);
    obj[PXK_OBJ_POS + k] = D(geom_xpos, 3 * g + k);
  }
  for (int k = 0; k < 9; k++) {
    obj[PXK_OBJ_MAT + k] = D(geom_xmat, 9 * g + k);
  }
  obj[PXK_OBJ_MARGIN] = margin;
  int type = M(geom_type, g);
  obji[PXK_OBJ_GEOM] = g;
  obji[PXK_OBJ_TYPE] = type;
  obji[PXK_OBJ_VERTINDEX] = -1;
  obji[PXK_OBJ_MESHINDEX] = -1;
  obji[PXK_OBJ_MODE] = PXK_SUPP_GEOM;
  obji[PXK_OBJ_VERTADR] = 0;
  obji[PXK_OBJ_NVERT] = 0;
  obji[PXK_OBJ_GRAPHADR] = -1;
  obji[PXK_OBJ_DATAID] = -1;
  if (type == PXK_GEOM_MESH) {
    int id = M(geom_dataid, g);
    obji[PXK_OBJ_DATAID] = id;
    obji[PXK_OBJ_VERTADR] = M(mesh_vertadr, id);
    obji[PXK_OBJ_NVERT] = M(mesh_vertnum, id);
    int graphadr = M(mesh_graphadr, id);
    if (graphadr >= 0 && M(mesh_vertnum, id) >= PXK_MESH_HILLCLIMB_MIN) {
      obji[PXK_OBJ_GRAPHADR] = graphadr;
    }
  }
}

// dot product of a local direction with mesh vertex i (global index into mesh_vert)
PX_FN PX_REAL pxk_ccdVertDot(PX_MDC PX_IN(PX_REAL, dir, 3), int i) {
  PXR v0 = PX_TOREAL(M(mesh_vert, 3 * i));
  PXR v1 = PX_TOREAL(M(mesh_vert, 3 * i + 1));
  PXR v2 = PX_TOREAL(M(mesh_vert, 3 * i + 2));
  PXR r = dir[0] * v0 + dir[1] * v1 + dir[2] * v2;
  return r;
}

// res = mat * loc + pos, MuJoCo's localToGlobal (sum of three products, then the position)
PX_FN void pxk_ccdToGlobal(PX_OUT(PX_REAL, res, 3), PX_IN(PX_REAL, obj, PXK_OBJR),
                           PX_IN(PX_REAL, loc, 3)) {
  for (int k = 0; k < 3; k++) {
    int r = PXK_OBJ_MAT + 3 * k;
    PXR s = obj[r] * loc[0] + obj[r + 1] * loc[1] + obj[r + 2] * loc[2];
    res[k] = s + obj[PXK_OBJ_POS + k];
  }
}

// direction rotated into the object's frame: mat' * dir
PX_FN void pxk_ccdToLocal(PX_OUT(PX_REAL, res, 3), PX_IN(PX_REAL, obj, PXK_OBJR),
                          PX_IN(PX_REAL, dir, 3)) {
  for (int k = 0; k < 3; k++) {
    int c = PXK_OBJ_MAT + k;
    res[k] = obj[c] * dir[0] + obj[c + 3] * dir[1] + obj[c + 6] * dir[2];
  }
}

// mesh vertex i (global index) in the world frame
PX_FN void pxk_ccdMeshVert(PX_MDC PX_OUT(PX_REAL, res, 3), PX_IN(PX_REAL, obj, PXK_OBJR), int i) {
  PXR loc[3];
  loc[0] = PX_TOREAL(M(mesh_vert, 3 * i));
  loc[1] = PX_TOREAL(M(mesh_vert, 3 * i + 1));
  loc[2] = PX_TOREAL(M(mesh_vert, 3 * i + 2));
  pxk_ccdToGlobal(res, obj, loc);
}

// support point of a mesh along a local direction, by exhaustive search starting from the
// cached vertex (mjc_meshSupport); returns the global vertex index
PX_FN int pxk_ccdMeshScan(PX_MDC PX_IN(PX_REAL, ldir, 3), PX_INOUT(int, obji, PXK_OBJI)) {
  int adr = obji[PXK_OBJ_VERTADR];
  int nvert = obji[PXK_OBJ_NVERT];
  PXR best = PX_R(-3.4028234663852886e+38);  // -FLT_MAX
  int imax = 0;
  if (obji[PXK_OBJ_VERTINDEX] >= 0) {
    imax = obji[PXK_OBJ_VERTINDEX];
    best = pxk_ccdVertDot(PX_MDARGC ldir, adr + imax);
  }
  for (int i = 0; i < nvert; i++) {
    PXR vdot = pxk_ccdVertDot(PX_MDARGC ldir, adr + i);
    if (vdot > best) {
      best = vdot;
      imax = i;
    }
  }
  obji[PXK_OBJ_VERTINDEX] = imax;
  return imax;
}

// support point of a mesh along a local direction, hill-climbing over the mesh graph from the
// better of the cached vertex and the mesh_extrema seed (mjc_hillclimbSupport); returns the
// vertex index within the mesh
PX_FN int pxk_ccdMeshClimb(PX_MDC PX_IN(PX_REAL, ldir, 3), PX_INOUT(int, obji, PXK_OBJI)) {
  int adr = obji[PXK_OBJ_VERTADR];
  int gadr = obji[PXK_OBJ_GRAPHADR];
  int numvert = M(mesh_graph, gadr);
  int edgeadr = gadr + 2;                // vert_edgeadr
  int globalid = gadr + 2 + numvert;     // vert_globalid
  int localid = gadr + 2 + 2 * numvert;  // edge_localid

  // seed from the 3x3x3 grid of extreme vertices
  int cx = 1;
  int cy = 1;
  int cz = 1;
  if (ldir[0] > PX_R(0.4)) cx = 2;
  if (ldir[0] < PX_R(-0.4)) cx = 0;
  if (ldir[1] > PX_R(0.4)) cy = 2;
  if (ldir[1] < PX_R(-0.4)) cy = 0;
  if (ldir[2] > PX_R(0.4)) cz = 2;
  if (ldir[2] < PX_R(-0.4)) cz = 0;
  int seed = M(mesh_extrema, 27 * obji[PXK_OBJ_DATAID] + cx * 9 + cy * 3 + cz);
  int imax = seed;
  if (obji[PXK_OBJ_MESHINDEX] >= 0) {
    int cached = obji[PXK_OBJ_MESHINDEX];
    PXR cdot = pxk_ccdVertDot(PX_MDARGC ldir, adr + M(mesh_graph, globalid + cached));
    PXR sdot = pxk_ccdVertDot(PX_MDARGC ldir, adr + M(mesh_graph, globalid + seed));
    imax = cached;
    if (sdot > cdot) imax = seed;
  }
  PXR best = pxk_ccdVertDot(PX_MDARGC ldir, adr + M(mesh_graph, globalid + imax));

  // climb until no neighbour improves
  int prev = -1;
  while (imax != prev) {
    prev = imax;
    int i = M(mesh_graph, edgeadr + imax);
    int sub = M(mesh_graph, localid + i);
    while (sub >= 0) {
      PXR vdot = pxk_ccdVertDot(PX_MDARGC ldir, adr + M(mesh_graph, globalid + sub));
      if (vdot > best) {
        best = vdot;
        imax = sub;
      }
      i++;
      sub = M(mesh_graph, localid + i);
    }
  }
  obji[PXK_OBJ_MESHINDEX] = imax;
  int gid = M(mesh_graph, globalid + imax);
  obji[PXK_OBJ_VERTINDEX] = gid;
  return gid;
}

// support point of the object along the unit direction dir (obj->support of mjc_ccd), without
// margin; updates the cached vertex indices
PX_FN void pxk_ccdSupport(PX_MDC PX_OUT(PX_REAL, res, 3), PX_IN(PX_REAL, obj, PXK_OBJR),
                          PX_INOUT(int, obji, PXK_OBJI), PX_IN(PX_REAL, dir, 3)) {
  int type = obji[PXK_OBJ_TYPE];
  int mode = obji[PXK_OBJ_MODE];
  PXR ldir[3];
  PXR loc[3];

  if (mode == PXK_SUPP_POINT) {
    res[0] = obj[PXK_OBJ_POS];
    res[1] = obj[PXK_OBJ_POS + 1];
    res[2] = obj[PXK_OBJ_POS + 2];
  } else if (mode == PXK_SUPP_LINE) {
    PXR dt = obj[PXK_OBJ_MAT + 2] * dir[0] + obj[PXK_OBJ_MAT + 5] * dir[1] +
             obj[PXK_OBJ_MAT + 8] * dir[2];
    PXR scl = obj[PXK_OBJ_SIZE + 1];
    if (!(dt >= PX_R(0.0))) scl = -obj[PXK_OBJ_SIZE + 1];
    res[0] = obj[PXK_OBJ_MAT + 2] * scl + obj[PXK_OBJ_POS];
    res[1] = obj[PXK_OBJ_MAT + 5] * scl + obj[PXK_OBJ_POS + 1];
    res[2] = obj[PXK_OBJ_MAT + 8] * scl + obj[PXK_OBJ_POS + 2];
  } else if (type == PXK_GEOM_SPHERE) {
    PXR radius = obj[PXK_OBJ_SIZE];
    res[0] = radius * dir[0] + obj[PXK_OBJ_POS];
    res[1] = radius * dir[1] + obj[PXK_OBJ_POS + 1];
    res[2] = radius * dir[2] + obj[PXK_OBJ_POS + 2];
  } else if (type == PXK_GEOM_CAPSULE) {
    PXR radius = obj[PXK_OBJ_SIZE];
    PXR len = obj[PXK_OBJ_SIZE + 1];
    pxk_ccdToLocal(ldir, obj, dir);
    loc[0] = ldir[0] * radius;
    loc[1] = ldir[1] * radius;
    loc[2] = ldir[2] * radius;
    if (ldir[2] >= PX_R(0.0)) {
      loc[2] = loc[2] + len;
    } else {
      PXR nlen = -len;
      loc[2] = loc[2] + nlen;
    }
    pxk_ccdToGlobal(res, obj, loc);
  } else if (type == PXK_GEOM_ELLIPSOID) {
    pxk_ccdToLocal(ldir, obj, dir);
    loc[0] = ldir[0] * obj[PXK_OBJ_SIZE];
    loc[1] = ldir[1] * obj[PXK_OBJ_SIZE + 1];
    loc[2] = ldir[2] * obj[PXK_OBJ_SIZE + 2];
    PXR norm2 = loc[0] * loc[0] + loc[1] * loc[1] + loc[2] * loc[2];
    if (norm2 < PX_R(1E-30)) {
      // too small to normalize: the end of the first axis
      res[0] = obj[PXK_OBJ_MAT] * obj[PXK_OBJ_SIZE] + obj[PXK_OBJ_POS];
      res[1] = obj[PXK_OBJ_MAT + 3] * obj[PXK_OBJ_SIZE] + obj[PXK_OBJ_POS + 1];
      res[2] = obj[PXK_OBJ_MAT + 6] * obj[PXK_OBJ_SIZE] + obj[PXK_OBJ_POS + 2];
    } else {
      PXR ninv = PX_R(1.0) / PX_SQRT(norm2);
      PXR s0 = ninv * obj[PXK_OBJ_SIZE];
      PXR s1 = ninv * obj[PXK_OBJ_SIZE + 1];
      PXR s2 = ninv * obj[PXK_OBJ_SIZE + 2];
      loc[0] = loc[0] * s0;
      loc[1] = loc[1] * s1;
      loc[2] = loc[2] * s2;
      pxk_ccdToGlobal(res, obj, loc);
    }
  } else if (type == PXK_GEOM_CYLINDER) {
    pxk_ccdToLocal(ldir, obj, dir);
    PXR n2 = ldir[0] * ldir[0] + ldir[1] * ldir[1];
    PXR scl = PX_ZERO;
    if (n2 >= PX_R(1E-30)) scl = obj[PXK_OBJ_SIZE] / PX_SQRT(n2);
    loc[0] = scl * ldir[0];
    loc[1] = scl * ldir[1];
    loc[2] = obj[PXK_OBJ_SIZE + 1];
    if (!(ldir[2] >= PX_R(0.0))) loc[2] = -obj[PXK_OBJ_SIZE + 1];
    pxk_ccdToGlobal(res, obj, loc);
  } else if (type == PXK_GEOM_BOX) {
    pxk_ccdToLocal(ldir, obj, dir);
    int vi = 0;
    for (int k = 0; k < 3; k++) {
      loc[k] = obj[PXK_OBJ_SIZE + k];
      if (!(ldir[k] >= PX_R(0.0))) loc[k] = -obj[PXK_OBJ_SIZE + k];
    }
    if (loc[0] > PX_R(0.0)) vi = vi + 1;
    if (loc[1] > PX_R(0.0)) vi = vi + 2;
    if (loc[2] > PX_R(0.0)) vi = vi + 4;
    obji[PXK_OBJ_VERTINDEX] = vi;
    pxk_ccdToGlobal(res, obj, loc);
  } else if (type == PXK_GEOM_MESH) {
    pxk_ccdToLocal(ldir, obj, dir);
    int iv = 0;
    if (obji[PXK_OBJ_GRAPHADR] >= 0) {
      iv = pxk_ccdMeshClimb(PX_MDARGC ldir, obji);
    } else {
      iv = pxk_ccdMeshScan(PX_MDARGC ldir, obji);
    }
    pxk_ccdMeshVert(PX_MDARGC res, obj, obji[PXK_OBJ_VERTADR] + iv);
  } else if (type == PXK_GEOM_HFIELD) {
    // prism (mjc_prism_support): best vertex of the bottom (dir z < 0) or top triangle
    int istart = 3;
    if (dir[2] < PX_R(0.0)) istart = 0;
    int ibest = istart;
    int a = PXK_OBJ_PRISM + 3 * istart;
    PXR best = obj[a] * dir[0] + obj[a + 1] * dir[1] + obj[a + 2] * dir[2];
    for (int i = 1; i < 3; i++) {
      a = PXK_OBJ_PRISM + 3 * (istart + i);
      PXR tmp = obj[a] * dir[0] + obj[a + 1] * dir[1] + obj[a + 2] * dir[2];
      if (tmp > best) {
        ibest = istart + i;
        best = tmp;
      }
    }
    for (int k = 0; k < 3; k++) res[k] = obj[PXK_OBJ_PRISM + 3 * ibest + k];
  } else {
    res[0] = obj[PXK_OBJ_POS];
    res[1] = obj[PXK_OBJ_POS + 1];
    res[2] = obj[PXK_OBJ_POS + 2];
  }
}

// sign as MuJoCo's mju_sign: 1, -1 or 0
PX_FN PX_REAL pxk_ccdSign(PX_REAL x) {
  PXR s = PX_ZERO;
  if (x > PX_R(0.0)) s = PX_R(1.0);
  if (x < PX_R(0.0)) s = PX_R(-1.0);
  return s;
}

// support point along dir as MuJoCo's mjccd_support for geoms (half the margin added along the
// local direction); meshes hill-climb over mesh_graph from the cached vertex (or vertex 0), or
// scan all vertices when the mesh has no graph; the best vertex is cached in MESHINDEX
PX_FN void pxk_ccdSupportGeneric(PX_MDC PX_OUT(PX_REAL, res, 3), PX_IN(PX_REAL, obj, PXK_OBJR),
                                 PX_INOUT(int, obji, PXK_OBJI), PX_IN(PX_REAL, dir, 3)) {
  int type = obji[PXK_OBJ_TYPE];
  PXR ldir[3];
  PXR loc[3];
  pxk_ccdToLocal(ldir, obj, dir);
  loc[0] = PX_ZERO;
  loc[1] = PX_ZERO;
  loc[2] = PX_ZERO;

  if (type == PXK_GEOM_SPHERE) {
    loc[0] = ldir[0] * obj[PXK_OBJ_SIZE];
    loc[1] = ldir[1] * obj[PXK_OBJ_SIZE];
    loc[2] = ldir[2] * obj[PXK_OBJ_SIZE];
  } else if (type == PXK_GEOM_CAPSULE) {
    loc[0] = ldir[0] * obj[PXK_OBJ_SIZE];
    loc[1] = ldir[1] * obj[PXK_OBJ_SIZE];
    loc[2] = ldir[2] * obj[PXK_OBJ_SIZE];
    PXR sg = pxk_ccdSign(ldir[2]);
    PXR ext = sg * obj[PXK_OBJ_SIZE + 1];
    loc[2] = loc[2] + ext;
  } else if (type == PXK_GEOM_ELLIPSOID) {
    loc[0] = ldir[0] * obj[PXK_OBJ_SIZE];
    loc[1] = ldir[1] * obj[PXK_OBJ_SIZE + 1];
    loc[2] = ldir[2] * obj[PXK_OBJ_SIZE + 2];
    pxk_normalize3(loc);
    loc[0] = loc[0] * obj[PXK_OBJ_SIZE];
    loc[1] = loc[1] * obj[PXK_OBJ_SIZE + 1];
    loc[2] = loc[2] * obj[PXK_OBJ_SIZE + 2];
  } else if (type == PXK_GEOM_CYLINDER) {
    PXR tmp = PX_SQRT(ldir[0] * ldir[0] + ldir[1] * ldir[1]);
    if (tmp > PXK_MINVAL) {
      PXR q0 = ldir[0] / tmp;
      PXR q1 = ldir[1] / tmp;
      loc[0] = q0 * obj[PXK_OBJ_SIZE];
      loc[1] = q1 * obj[PXK_OBJ_SIZE];
    }
    PXR sg = pxk_ccdSign(ldir[2]);
    loc[2] = sg * obj[PXK_OBJ_SIZE + 1];
  } else if (type == PXK_GEOM_BOX) {
    for (int k = 0; k < 3; k++) {
      PXR sg = pxk_ccdSign(ldir[k]);
      loc[k] = sg * obj[PXK_OBJ_SIZE + k];
    }
  } else if (type == PXK_GEOM_MESH) {
    int adr = obji[PXK_OBJ_VERTADR];
    int ibest = -1;
    PXR best = PX_R(-1E+10);
    if (obji[PXK_OBJ_GRAPHADR] < 0) {
      for (int i = 0; i < obji[PXK_OBJ_NVERT]; i++) {
        PXR vdot = pxk_ccdVertDot(PX_MDARGC ldir, adr + i);
        if (vdot > best) {
          best = vdot;
          ibest = i;
        }
      }
      obji[PXK_OBJ_MESHINDEX] = ibest;
    } else {
      int gadr = obji[PXK_OBJ_GRAPHADR];
      int numvert = M(mesh_graph, gadr);
      int edgeadr = gadr + 2;
      int globalid = gadr + 2 + numvert;
      int localid = gadr + 2 + 2 * numvert;
      ibest = 0;
      if (obji[PXK_OBJ_MESHINDEX] >= 0) ibest = obji[PXK_OBJ_MESHINDEX];
      best = pxk_ccdVertDot(PX_MDARGC ldir, adr + M(mesh_graph, globalid + ibest));
      int change = 1;
      while (change != 0) {
        change = 0;
        int i = M(mesh_graph, edgeadr + ibest);
        int loc_id = M(mesh_graph, localid + i);
        while (loc_id >= 0) {
          PXR vdot = pxk_ccdVertDot(PX_MDARGC ldir, adr + M(mesh_graph, globalid + loc_id));
          if (vdot > best) {
            best = vdot;
            ibest = loc_id;
            change = 1;
          }
          i++;
          loc_id = M(mesh_graph, localid + i);
        }
      }
      obji[PXK_OBJ_MESHINDEX] = ibest;
      ibest = M(mesh_graph, globalid + ibest);
    }
    if (ibest >= 0) {
      loc[0] = PX_TOREAL(M(mesh_vert, 3 * (adr + ibest)));
      loc[1] = PX_TOREAL(M(mesh_vert, 3 * (adr + ibest) + 1));
      loc[2] = PX_TOREAL(M(mesh_vert, 3 * (adr + ibest) + 2));
    }
  }

  // half the margin along the local direction, then to the world frame
  for (int k = 0; k < 3; k++) {
    PXR hm = ldir[k] * obj[PXK_OBJ_MARGIN];
    PXR h = hm / PX_R(2.0);
    loc[k] = loc[k] + h;
  }
  PXR rot[3];
  for (int k = 0; k < 3; k++) {
    int r = PXK_OBJ_MAT + 3 * k;
    rot[k] = obj[r] * loc[0] + obj[r + 1] * loc[1] + obj[r + 2] * loc[2];
  }
  res[0] = rot[0] + obj[PXK_OBJ_POS];
  res[1] = rot[1] + obj[PXK_OBJ_POS + 1];
  res[2] = rot[2] + obj[PXK_OBJ_POS + 2];
}

#endif  // PX_KERN_COLLIDE_SUPPORT_H_
