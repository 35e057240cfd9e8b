// SPDX-License-Identifier: Apache-2.0
// Ray casting of MuJoCo 3.12 (engine_ray.c) in the kernel dialect: the ray pnt + x * vec, x >= 0,
// against one primitive geom (mju_rayGeom: plane, sphere, capsule, ellipsoid, cylinder, box),
// a mesh (mj_rayMesh), a height field (mj_rayHfield), and against all geoms of a model
// (mj_ray: visibility, group, static and body filters; the nearest hit wins, the lower geom id
// on equal distances). Every function returns the distance x along vec (in units of |vec|) or
// -1 when the ray misses, and writes the surface normal at the hit in world coordinates (zeros
// on a miss), as MuJoCo does when it is asked for the normal. Formulas follow MuJoCo's
// operation order, so that fp64 distances and normals are bit-equal.
//
// Interface:
//   pxk_rayGeom(pos, mat, size, pnt, vec, type, normal): one primitive given its pose and size
//     (also usable for a site's shape: the touch and tactile sensors' ray tests);
//   pxk_rayMesh(PX_MDC g, pnt, vec, normal), pxk_rayHfield(PX_MDC g, pnt, vec, normal): geom g
//     of the model, posed by d->geom_xpos, geom_xmat;
//   pxk_ray(PX_MDC pnt, vec, geomgroup, usegroup, flg_static, bodyexclude, geomid, normal):
//     mj_ray; geomgroup (6 flags) counts only when usegroup is nonzero (MuJoCo's NULL).
//
// The mesh: MuJoCo walks the mesh's bounding-volume tree (mju_rayTree), testing every node's
// box with the slab method and every leaf's triangle. Here the triangles are visited in face
// order and each is tested against its own leaf box (the face's bounds, flat sides widened by
// mjEPS as the tree builder does) before the triangle test. The interior boxes contain their
// leaves, so this visits the same triangles except for rays that graze a box's boundary within
// rounding; the distance is the smallest hit either way, and the normal differs only when two
// triangles are hit at exactly the same distance (a ray through a shared edge: MuJoCo keeps
// the first in its tree order, this code the first in face order).
//
// Not covered: signed-distance-field geoms (mj_raySdf, plugins): pxk_ray skips them and the
// CPU entry (csrc/engine/ray.c) refuses models that have one.
#ifndef PX_KERN_RAY_H_
#define PX_KERN_RAY_H_

#include "kern/libm.h"
#include "kern/spatial.h"

// mjEPS: the tree builder's widening of flat boxes
#define PXK_RAY_EPS PX_R(1E-14)

// ---------------------------------- helpers -----------------------------------------------------

// the ray in the frame (pos, mat): lpnt = mat' (pnt - pos), lvec = mat' vec (ray_map)
PX_FN void pxk_rayMap(PX_OUT(PX_REAL, lpnt, 3), PX_OUT(PX_REAL, lvec, 3), PX_IN(PX_REAL, pos, 3),
                      PX_IN(PX_REAL, mat, 9), PX_IN(PX_REAL, pnt, 3), PX_IN(PX_REAL, vec, 3)) {
  PXR dif[3];
  pxk_sub3(dif, pnt, pos);
  pxk_mulMatTVec3(lpnt, mat, dif);
  pxk_mulMatTVec3(lvec, mat, vec);
}

// res = a + scl * b (mju_addScl3)
PX_FN void pxk_rayAddScl3(PX_OUT(PX_REAL, res, 3), PX_IN(PX_REAL, a, 3), PX_IN(PX_REAL, b, 3),
                          PX_REAL scl) {
  for (int k = 0; k < 3; k++) {
    PXR t = scl * b[k];
    res[k] = a[k] + t;
  }
}

PX_FN void pxk_rayZero3(PX_OUT(PX_REAL, res, 3)) {
  res[0] = PX_R(0.0);
  res[1] = PX_R(0.0);
  res[2] = PX_R(0.0);
}

// both real roots of a x^2 + 2 b x + c = 0 into x (x[0] <= x[1], -1 when there are none) and the
// smaller non-negative one, or -1 (ray_quad)
PX_FN PX_REAL pxk_rayQuad(PX_REAL a, PX_REAL b, PX_REAL c, PX_OUT(PX_REAL, x, 2)) {
  PXR bb = b * b;
  PXR ac = a * c;
  PXR det = bb - ac;
  if (det < PX_R(0.0) || a < PXK_MINVAL) {
    x[0] = PX_R(-1.0);
    x[1] = PX_R(-1.0);
    return PX_R(-1.0);
  }
  PXR sdet = PX_SQRT(det);
  PXR nb = -b;
  PXR lo = nb - sdet;
  PXR hi = nb + sdet;
  x[0] = lo / a;
  x[1] = hi / a;
  if (x[0] >= PX_R(0.0)) return x[0];
  if (x[1] >= PX_R(0.0)) return x[1];
  return PX_R(-1.0);
}

// ---------------------------------- primitives --------------------------------------------------

// plane: its front face (local +z) within the rendered rectangle (sizes <= 0: unbounded)
PX_FN PX_REAL pxk_rayPlane(PX_IN(PX_REAL, pos, 3), PX_IN(PX_REAL, mat, 9), PX_IN(PX_REAL, size, 3),
                           PX_IN(PX_REAL, pnt, 3), PX_IN(PX_REAL, vec, 3),
                           PX_OUT(PX_REAL, normal, 3)) {
  pxk_rayZero3(normal);
  PXR lpnt[3];
  PXR lvec[3];
  pxk_rayMap(lpnt, lvec, pos, mat, pnt, vec);

  // only rays heading into the front face
  PXR lim = -PXK_MINVAL;
  if (lvec[2] > lim) return PX_R(-1.0);
  PXR nz = -lpnt[2];
  PXR x = nz / lvec[2];
  if (x < PX_R(0.0)) return PX_R(-1.0);
  PXR t0 = x * lvec[0];
  PXR p0 = lpnt[0] + t0;
  PXR t1 = x * lvec[1];
  PXR p1 = lpnt[1] + t1;
  PXR a0 = PX_ABS(p0);
  PXR a1 = PX_ABS(p1);
  if ((size[0] <= PX_R(0.0) || a0 <= size[0]) && (size[1] <= PX_R(0.0) || a1 <= size[1])) {
    normal[0] = mat[2];
    normal[1] = mat[5];
    normal[2] = mat[8];
    return x;
  }
  return PX_R(-1.0);
}

// sphere of squared radius rsqr centred at pos (ray_sphere; also the bounding-sphere test)
PX_FN PX_REAL pxk_raySphere(PX_IN(PX_REAL, pos, 3), PX_REAL rsqr, PX_IN(PX_REAL, pnt, 3),
                            PX_IN(PX_REAL, vec, 3), PX_OUT(PX_REAL, normal, 3)) {
  PXR dif[3];
  pxk_sub3(dif, pnt, pos);
  PXR a = vec[0] * vec[0] + vec[1] * vec[1] + vec[2] * vec[2];
  PXR b = vec[0] * dif[0] + vec[1] * dif[1] + vec[2] * dif[2];
  PXR c0 = dif[0] * dif[0] + dif[1] * dif[1] + dif[2] * dif[2];
  PXR c = c0 - rsqr;
  PXR xx[2];
  PXR x = pxk_rayQuad(a, b, c, xx);
  if (x < PX_R(0.0)) {
    pxk_rayZero3(normal);
  } else {
    PXR s[3];
    pxk_rayAddScl3(s, pnt, vec, x);
    pxk_sub3(normal, s, pos);
    pxk_normalize3(normal);
  }
  return x;
}

// capsule: the round side between the caps, then the upper and lower half balls (ray_capsule)
PX_FN PX_REAL pxk_rayCapsule(PX_IN(PX_REAL, pos, 3), PX_IN(PX_REAL, mat, 9),
                             PX_IN(PX_REAL, size, 3), PX_IN(PX_REAL, pnt, 3),
                             PX_IN(PX_REAL, vec, 3), PX_OUT(PX_REAL, normal, 3)) {
  pxk_rayZero3(normal);
  PXR ssz = size[0] + size[1];
  PXR ssq = ssz * ssz;
  PXR nb[3];
  PXR xb = pxk_raySphere(pos, ssq, pnt, vec, nb);
  if (xb < PX_R(0.0)) return PX_R(-1.0);

  PXR lpnt[3];
  PXR lvec[3];
  pxk_rayMap(lpnt, lvec, pos, mat, pnt, vec);
  PXR x = PX_R(-1.0);
  int type = 0;
  PXR xx[2];
  PXR r2 = size[0] * size[0];

  // round side, kept between the caps
  PXR a = lvec[0] * lvec[0] + lvec[1] * lvec[1];
  PXR b = lvec[0] * lpnt[0] + lvec[1] * lpnt[1];
  PXR c0 = lpnt[0] * lpnt[0] + lpnt[1] * lpnt[1];
  PXR c = c0 - r2;
  PXR sol = pxk_rayQuad(a, b, c, xx);
  if (sol >= PX_R(0.0)) {
    PXR tz = sol * lvec[2];
    PXR z = lpnt[2] + tz;
    PXR az = PX_ABS(z);
    if (az <= size[1]) {
      if (x < PX_R(0.0) || sol < x) {
        x = sol;
        type = 0;
      }
    }
  }

  // top half ball
  PXR ldif[3];
  ldif[0] = lpnt[0];
  ldif[1] = lpnt[1];
  ldif[2] = lpnt[2] - size[1];
  a = lvec[0] * lvec[0] + lvec[1] * lvec[1] + lvec[2] * lvec[2];
  b = lvec[0] * ldif[0] + lvec[1] * ldif[1] + lvec[2] * ldif[2];
  c0 = ldif[0] * ldif[0] + ldif[1] * ldif[1] + ldif[2] * ldif[2];
  c = c0 - r2;
  pxk_rayQuad(a, b, c, xx);
  for (int i = 0; i < 2; i++) {
    PXR tz = xx[i] * lvec[2];
    PXR z = lpnt[2] + tz;
    if (xx[i] >= PX_R(0.0) && z >= size[1]) {
      if (x < PX_R(0.0) || xx[i] < x) {
        x = xx[i];
        type = 1;
      }
    }
  }

  // bottom half ball
  ldif[2] = lpnt[2] + size[1];
  b = lvec[0] * ldif[0] + lvec[1] * ldif[1] + lvec[2] * ldif[2];
  c0 = ldif[0] * ldif[0] + ldif[1] * ldif[1] + ldif[2] * ldif[2];
  c = c0 - r2;
  pxk_rayQuad(a, b, c, xx);
  PXR nlen = -size[1];
  for (int i = 0; i < 2; i++) {
    PXR tz = xx[i] * lvec[2];
    PXR z = lpnt[2] + tz;
    if (xx[i] >= PX_R(0.0) && z <= nlen) {
      if (x < PX_R(0.0) || xx[i] < x) {
        x = xx[i];
        type = -1;
      }
    }
  }

  if (x >= PX_R(0.0)) {
    PXR nl[3];
    PXR t0 = lvec[0] * x;
    nl[0] = lpnt[0] + t0;
    PXR t1 = lvec[1] * x;
    nl[1] = lpnt[1] + t1;
    if (type == 0) {
      nl[2] = PX_R(0.0);
    } else {
      PXR t2 = lvec[2] * x;
      PXR z = lpnt[2] + t2;
      PXR ft = PX_TOREAL(type);
      PXR off = size[1] * ft;
      nl[2] = z - off;
    }
    pxk_normalize3(nl);
    pxk_mulMatVec3(normal, mat, nl);
  }
  return x;
}

// ellipsoid: the unit sphere of the axes scaled by 1 / size (ray_ellipsoid)
PX_FN PX_REAL pxk_rayEllipsoid(PX_IN(PX_REAL, pos, 3), PX_IN(PX_REAL, mat, 9),
                               PX_IN(PX_REAL, size, 3), PX_IN(PX_REAL, pnt, 3),
                               PX_IN(PX_REAL, vec, 3), PX_OUT(PX_REAL, normal, 3)) {
  pxk_rayZero3(normal);
  PXR lpnt[3];
  PXR lvec[3];
  pxk_rayMap(lpnt, lvec, pos, mat, pnt, vec);
  PXR s[3];
  for (int k = 0; k < 3; k++) {
    PXR sq = size[k] * size[k];
    s[k] = PX_R(1.0) / sq;
  }
  PXR a = s[0] * lvec[0] * lvec[0] + s[1] * lvec[1] * lvec[1] + s[2] * lvec[2] * lvec[2];
  PXR b = s[0] * lvec[0] * lpnt[0] + s[1] * lvec[1] * lpnt[1] + s[2] * lvec[2] * lpnt[2];
  PXR c0 = s[0] * lpnt[0] * lpnt[0] + s[1] * lpnt[1] * lpnt[1] + s[2] * lpnt[2] * lpnt[2];
  PXR c = c0 - PX_R(1.0);
  PXR xx[2];
  PXR x = pxk_rayQuad(a, b, c, xx);
  if (x >= PX_R(0.0)) {
    PXR l[3];
    pxk_rayAddScl3(l, lpnt, lvec, x);
    PXR nl[3];
    for (int k = 0; k < 3; k++) nl[k] = s[k] * l[k];
    pxk_normalize3(nl);
    pxk_mulMatVec3(normal, mat, nl);
  }
  return x;
}

// cylinder: the two flat caps, then the round side between them (ray_cylinder)
PX_FN PX_REAL pxk_rayCylinder(PX_IN(PX_REAL, pos, 3), PX_IN(PX_REAL, mat, 9),
                              PX_IN(PX_REAL, size, 3), PX_IN(PX_REAL, pnt, 3),
                              PX_IN(PX_REAL, vec, 3), PX_OUT(PX_REAL, normal, 3)) {
  pxk_rayZero3(normal);
  PXR r2 = size[0] * size[0];
  PXR h2 = size[1] * size[1];
  PXR ssz = r2 + h2;
  PXR nb[3];
  PXR xb = pxk_raySphere(pos, ssz, pnt, vec, nb);
  if (xb < PX_R(0.0)) return PX_R(-1.0);

  PXR lpnt[3];
  PXR lvec[3];
  pxk_rayMap(lpnt, lvec, pos, mat, pnt, vec);
  PXR x = PX_R(-1.0);
  int type = 0;

  // flat caps
  PXR avz = PX_ABS(lvec[2]);
  if (avz > PXK_MINVAL) {
    for (int side = -1; side <= 1; side += 2) {
      PXR fs = PX_TOREAL(side);
      PXR h = fs * size[1];
      PXR num = h - lpnt[2];
      PXR sol = num / lvec[2];
      if (sol >= PX_R(0.0)) {
        PXR t0 = sol * lvec[0];
        PXR p0 = lpnt[0] + t0;
        PXR t1 = sol * lvec[1];
        PXR p1 = lpnt[1] + t1;
        PXR rr = p0 * p0 + p1 * p1;
        if (rr <= r2) {
          if (x < PX_R(0.0) || sol < x) {
            x = sol;
            type = side;
          }
        }
      }
    }
  }

  // round side, kept between the caps
  PXR a = lvec[0] * lvec[0] + lvec[1] * lvec[1];
  PXR b = lvec[0] * lpnt[0] + lvec[1] * lpnt[1];
  PXR c0 = lpnt[0] * lpnt[0] + lpnt[1] * lpnt[1];
  PXR c = c0 - r2;
  PXR xx[2];
  PXR sol = pxk_rayQuad(a, b, c, xx);
  if (sol >= PX_R(0.0)) {
    PXR tz = sol * lvec[2];
    PXR z = lpnt[2] + tz;
    PXR az = PX_ABS(z);
    if (az <= size[1]) {
      if (x < PX_R(0.0) || sol < x) {
        x = sol;
        type = 0;
      }
    }
  }

  if (x >= PX_R(0.0)) {
    PXR nl[3];
    if (type == 0) {
      PXR t0 = lvec[0] * x;
      nl[0] = lpnt[0] + t0;
      PXR t1 = lvec[1] * x;
      nl[1] = lpnt[1] + t1;
      nl[2] = PX_ZERO;
      pxk_normalize3(nl);
    } else {
      nl[0] = PX_ZERO;
      nl[1] = PX_ZERO;
      nl[2] = PX_TOREAL(type);
    }
    pxk_mulMatVec3(normal, mat, nl);
  }
  return x;
}

// box: the faces whose axis the ray is not parallel to (ray_box); all (6) gets each face's hit
// distance, -1 where the face is missed (faces -x, +x, -y, +y, -z, +z)
PX_FN PX_REAL pxk_rayBoxAll(PX_IN(PX_REAL, pos, 3), PX_IN(PX_REAL, mat, 9), PX_IN(PX_REAL, size, 3),
                            PX_IN(PX_REAL, pnt, 3), PX_IN(PX_REAL, vec, 3), PX_OUT(PX_REAL, all, 6),
                            PX_OUT(PX_REAL, normal, 3)) {
  for (int k = 0; k < 6; k++) all[k] = PX_R(-1.0);
  pxk_rayZero3(normal);
  PXR ssz = size[0] * size[0] + size[1] * size[1] + size[2] * size[2];
  PXR nb[3];
  PXR xb = pxk_raySphere(pos, ssz, pnt, vec, nb);
  if (xb < PX_R(0.0)) return PX_R(-1.0);

  PXR lpnt[3];
  PXR lvec[3];
  pxk_rayMap(lpnt, lvec, pos, mat, pnt, vec);
  PXR x = PX_R(-1.0);
  int faxis = -1;
  int fside = 0;
  for (int i = 0; i < 3; i++) {
    PXR av = PX_ABS(lvec[i]);
    if (av > PXK_MINVAL) {
      // the face's two in-plane axes
      int i0 = (i == 0) ? 1 : 0;
      int i1 = (i == 2) ? 1 : 2;
      for (int side = -1; side <= 1; side += 2) {
        PXR fs = PX_TOREAL(side);
        PXR h = fs * size[i];
        PXR num = h - lpnt[i];
        PXR sol = num / lvec[i];
        if (sol >= PX_R(0.0)) {
          PXR t0 = sol * lvec[i0];
          PXR p0 = lpnt[i0] + t0;
          PXR t1 = sol * lvec[i1];
          PXR p1 = lpnt[i1] + t1;
          PXR a0 = PX_ABS(p0);
          PXR a1 = PX_ABS(p1);
          if (a0 <= size[i0] && a1 <= size[i1]) {
            if (x < PX_R(0.0) || sol < x) {
              x = sol;
              faxis = i;
              fside = side;
            }
            all[2 * i + (side + 1) / 2] = sol;
          }
        }
      }
    }
  }
  if (x >= PX_R(0.0)) {
    PXR nl[3];
    nl[0] = PX_ZERO;
    nl[1] = PX_ZERO;
    nl[2] = PX_ZERO;
    nl[faxis] = PX_TOREAL(fside);
    pxk_mulMatVec3(normal, mat, nl);
  }
  return x;
}

PX_FN PX_REAL pxk_rayBox(PX_IN(PX_REAL, pos, 3), PX_IN(PX_REAL, mat, 9), PX_IN(PX_REAL, size, 3),
                         PX_IN(PX_REAL, pnt, 3), PX_IN(PX_REAL, vec, 3),
                         PX_OUT(PX_REAL, normal, 3)) {
  PXR all[6];
  PXR x = pxk_rayBoxAll(pos, mat, size, pnt, vec, all, normal);
  return x;
}

// one primitive geom of type type (mju_rayGeom); other types: -1
PX_FN PX_REAL pxk_rayGeom(PX_IN(PX_REAL, pos, 3), PX_IN(PX_REAL, mat, 9), PX_IN(PX_REAL, size, 3),
                          PX_IN(PX_REAL, pnt, 3), PX_IN(PX_REAL, vec, 3), int type,
                          PX_OUT(PX_REAL, normal, 3)) {
  PXR x = PX_R(-1.0);
  if (type == PX_GEOM_PLANE) {
    x = pxk_rayPlane(pos, mat, size, pnt, vec, normal);
  } else if (type == PX_GEOM_SPHERE) {
    PXR r2 = size[0] * size[0];
    x = pxk_raySphere(pos, r2, pnt, vec, normal);
  } else if (type == PX_GEOM_CAPSULE) {
    x = pxk_rayCapsule(pos, mat, size, pnt, vec, normal);
  } else if (type == PX_GEOM_ELLIPSOID) {
    x = pxk_rayEllipsoid(pos, mat, size, pnt, vec, normal);
  } else if (type == PX_GEOM_CYLINDER) {
    x = pxk_rayCylinder(pos, mat, size, pnt, vec, normal);
  } else if (type == PX_GEOM_BOX) {
    x = pxk_rayBox(pos, mat, size, pnt, vec, normal);
  } else {
    pxk_rayZero3(normal);
  }
  return x;
}

// ---------------------------------- triangles ---------------------------------------------------

// an orthonormal basis (b0, b1) of the plane normal to lvec (the triangle tests' projection)
PX_FN void pxk_rayBasis(PX_OUT(PX_REAL, b0, 3), PX_OUT(PX_REAL, b1, 3), PX_IN(PX_REAL, lvec, 3)) {
  PXR a0 = PX_ABS(lvec[0]);
  PXR a1 = PX_ABS(lvec[1]);
  PXR a2 = PX_ABS(lvec[2]);
  PXR e[3];
  e[0] = PX_R(1.0);
  e[1] = PX_R(1.0);
  e[2] = PX_R(1.0);
  if (a0 >= a1 && a0 >= a2) {
    e[0] = PX_ZERO;
  } else if (a1 >= a2) {
    e[1] = PX_ZERO;
  } else {
    e[2] = PX_ZERO;
  }
  PXR num = pxk_dot3(lvec, e);
  PXR den = pxk_dot3(lvec, lvec);
  PXR nnum = -num;
  PXR scl = nnum / den;
  pxk_rayAddScl3(b1, e, lvec, scl);
  pxk_normalize3(b1);
  pxk_cross(b0, b1, lvec);
  pxk_normalize3(b0);
}

// triangle v (3 x 3, vertices as rows) in the ray's frame: the projected origin inside the
// projected triangle, then the plane's distance (ray_triangle); nrm gets the unit normal
// (v1 - v0) x (v2 - v0) direction (zeros on a miss)
PX_FN PX_REAL pxk_rayTriangle(PX_IN(PX_REAL, v, 9), PX_IN(PX_REAL, lpnt, 3),
                              PX_IN(PX_REAL, lvec, 3), PX_IN(PX_REAL, b0, 3), PX_IN(PX_REAL, b1, 3),
                              PX_OUT(PX_REAL, nrm, 3)) {
  pxk_rayZero3(nrm);
  PXR pl0[3];
  PXR pl1[3];
  for (int i = 0; i < 3; i++) {
    PXR dif[3];
    for (int j = 0; j < 3; j++) dif[j] = v[3 * i + j] - lpnt[j];
    pl0[i] = pxk_dot3(b0, dif);
    pl1[i] = pxk_dot3(b1, dif);
  }
  PXR z = PX_R(0.0);
  if ((pl0[0] > z && pl0[1] > z && pl0[2] > z) || (pl0[0] < z && pl0[1] < z && pl0[2] < z) ||
      (pl1[0] > z && pl1[1] > z && pl1[2] > z) || (pl1[0] < z && pl1[1] < z && pl1[2] < z)) {
    return PX_R(-1.0);
  }

  // barycentric coordinates of the origin in the projected triangle
  PXR A0 = pl0[0] - pl0[2];
  PXR A1 = pl0[1] - pl0[2];
  PXR A2 = pl1[0] - pl1[2];
  PXR A3 = pl1[1] - pl1[2];
  PXR bb0 = -pl0[2];
  PXR bb1 = -pl1[2];
  PXR det = A0 * A3 - A1 * A2;
  PXR adet = PX_ABS(det);
  if (adet < PXK_MINVAL) return PX_R(-1.0);
  PXR n0 = A3 * bb0 - A1 * bb1;
  PXR t0 = n0 / det;
  PXR nA2 = -A2;
  PXR n1 = nA2 * bb0 + A0 * bb1;
  PXR t1 = n1 / det;
  PXR ts = t0 + t1;
  if (t0 < PX_R(0.0) || t1 < PX_R(0.0) || ts > PX_R(1.0)) return PX_R(-1.0);

  // the triangle's plane
  PXR e0[3];
  PXR e1[3];
  PXR e2[3];
  for (int j = 0; j < 3; j++) {
    e0[j] = v[j] - v[6 + j];
    e1[j] = v[3 + j] - v[6 + j];
    e2[j] = lpnt[j] - v[6 + j];
  }
  PXR n[3];
  pxk_cross(n, e0, e1);
  PXR denom = pxk_dot3(lvec, n);
  PXR aden = PX_ABS(denom);
  if (aden < PXK_MINVAL) return PX_R(-1.0);
  PXR num = pxk_dot3(e2, n);
  PXR nnum = -num;
  PXR x = nnum / denom;
  pxk_normalize3(n);
  pxk_copy3(nrm, n);
  return x;
}

// the slab test of the box (centre aabb[0..2], half sizes aabb[3..5], in the frame (pos, mat))
// against the ray from its start on (mju_raySlab); lpnt, lvec: the ray in that frame
PX_FN int pxk_raySlab(PX_IN(PX_REAL, aabb, 6), PX_IN(PX_REAL, lpnt, 3), PX_IN(PX_REAL, lvec, 3)) {
  PXR tmin = PX_R(0.0);
  PXR tmax = PX_R(0.0);
  for (int k = 0; k < 3; k++) {
    PXR lo = aabb[k] - aabb[3 + k];
    PXR hi = aabb[k] + aabb[3 + k];
    PXR inv = PX_R(1.0) / lvec[k];
    PXR d1 = lo - lpnt[k];
    PXR t1 = d1 * inv;
    PXR d2 = hi - lpnt[k];
    PXR t2 = d2 * inv;
    PXR mn = t1 < t2 ? t1 : t2;
    PXR mx = t1 < t2 ? t2 : t1;
    tmin = tmin > mn ? tmin : mn;
    // the first axis replaces the initial +inf whatever its value (inf < mx is never true)
    if (k == 0) {
      tmax = mx;
    } else {
      tmax = tmax < mx ? tmax : mx;
    }
  }
  return (tmin < tmax) ? 1 : 0;
}

// ---------------------------------- meshes and height fields ------------------------------------

PX_FN void pxk_rayGeomPose(PX_MDC int g, PX_OUT(PX_REAL, pos, 3), PX_OUT(PX_REAL, mat, 9)) {
  for (int k = 0; k < 3; k++) pos[k] = D(geom_xpos, 3 * g + k);
  for (int k = 0; k < 9; k++) mat[k] = D(geom_xmat, 9 * g + k);
}

// mesh geom g (mj_rayMesh): the geom's box, then every face behind its leaf box
PX_FN PX_REAL pxk_rayMesh(PX_MDC int g, PX_IN(PX_REAL, pnt, 3), PX_IN(PX_REAL, vec, 3),
                          PX_OUT(PX_REAL, normal, 3)) {
  pxk_rayZero3(normal);
  PXR pos[3];
  PXR mat[9];
  PXR size[3];
  pxk_rayGeomPose(PX_MDARGC g, pos, mat);
  for (int k = 0; k < 3; k++) size[k] = M(geom_size, 3 * g + k);
  PXR nb[3];
  PXR xb = pxk_rayBox(pos, mat, size, pnt, vec, nb);
  if (xb < PX_R(0.0)) return PX_R(-1.0);

  int mid = M(geom_dataid, g);
  int vadr = M(mesh_vertadr, mid);
  int fadr = M(mesh_faceadr, mid);
  int nface = M(mesh_facenum, mid);
  PXR lpnt[3];
  PXR lvec[3];
  pxk_rayMap(lpnt, lvec, pos, mat, pnt, vec);
  PXR b0[3];
  PXR b1[3];
  pxk_rayBasis(b0, b1, lvec);

  PXR x = PX_R(-1.0);
  PXR nl[3];
  pxk_rayZero3(nl);
  for (int f = 0; f < nface; f++) {
    PXR v[9];
    for (int i = 0; i < 3; i++) {
      int vi = M(mesh_face, 3 * (fadr + f) + i) + vadr;
      for (int j = 0; j < 3; j++) v[3 * i + j] = PX_TOREAL(M(mesh_vert, 3 * vi + j));
    }

    // the leaf box as the tree builder makes it: the face's bounds as centre and half size,
    // back to bounds, flat sides widened by mjEPS, and centre and half size again
    PXR box[6];
    for (int j = 0; j < 3; j++) {
      PXR lo = v[j];
      PXR hi = v[j];
      for (int i = 1; i < 3; i++) {
        lo = lo < v[3 * i + j] ? lo : v[3 * i + j];
        hi = hi > v[3 * i + j] ? hi : v[3 * i + j];
      }
      PXR s0 = lo + hi;
      PXR c = PX_R(0.5) * s0;
      PXR s1 = hi - lo;
      PXR h = PX_R(0.5) * s1;
      PXR mn = c - h;
      PXR mx = c + h;
      PXR ext = mn - mx;
      PXR aext = PX_ABS(ext);
      if (aext < PXK_RAY_EPS) {
        mn = mn - PXK_RAY_EPS;
        mx = mx + PXK_RAY_EPS;
      }
      PXR sm = mx + mn;
      box[j] = sm / PX_R(2.0);
      PXR df = mx - mn;
      box[3 + j] = df / PX_R(2.0);
    }
    if (pxk_raySlab(box, lpnt, lvec) == 0) continue;

    PXR nt[3];
    PXR sol = pxk_rayTriangle(v, lpnt, lvec, b0, b1, nt);
    if (sol >= PX_R(0.0) && (x < PX_R(0.0) || sol < x)) {
      x = sol;
      pxk_copy3(nl, nt);
    }
  }
  if (x >= PX_R(0.0)) pxk_mulMatVec3(normal, mat, nl);
  return x;
}

// grid index of a coordinate: floor (up = 0) or ceiling (up = 1), computed on a value kept
// within [-2, n + 2] so that the conversion stays defined (the callers clamp to [0, n - 1])
PX_FN int pxk_rayGridIdx(PX_REAL x, int n, int up) {
  PXR lo = PX_R(-2.0);
  PXR hi = PX_TOREAL(n + 2);
  PXR v = x;
  if (!(v > lo)) v = lo;
  if (v > hi) v = hi;
  if (up == 0) return PX_INT(pxk_floor(v));
  PXR nv = -v;
  PXR fl = pxk_floor(nv);
  PXR ce = -fl;
  return PX_INT(ce);
}

// height of grid vertex (row r, column c) of height field h, unscaled
PX_FN PX_REAL pxk_rayHData(PX_MDC int h, int r, int c) {
  return PX_TOREAL(M(hfield_data, M(hfield_adr, h) + r * M(hfield_ncol, h) + c));
}

// height field geom g (mj_rayHfield): the base box, then the triangles under the ray's segment
// through the top box, then the top box's four sides below the field's edge profile
PX_FN PX_REAL pxk_rayHfield(PX_MDC int g, PX_IN(PX_REAL, pnt, 3), PX_IN(PX_REAL, vec, 3),
                            PX_OUT(PX_REAL, normal, 3)) {
  pxk_rayZero3(normal);
  int hid = M(geom_dataid, g);
  int nrow = M(hfield_nrow, hid);
  int ncol = M(hfield_ncol, hid);
  PXR size[4];
  for (int k = 0; k < 4; k++) size[k] = M(hfield_size, 4 * hid + k);
  PXR xpos[3];
  PXR xmat[9];
  pxk_rayGeomPose(PX_MDARGC g, xpos, xmat);

  // base box (below z = 0) and top box (the elevation range)
  PXR bsize[3];
  PXR tsize[3];
  PXR bpos[3];
  PXR tpos[3];
  bsize[0] = size[0];
  bsize[1] = size[1];
  bsize[2] = size[3] * PX_R(0.5);
  tsize[0] = size[0];
  tsize[1] = size[1];
  tsize[2] = size[2] * PX_R(0.5);
  for (int k = 0; k < 3; k++) {
    PXR ob0 = xmat[3 * k + 2] * size[3];
    PXR ob = ob0 * PX_R(0.5);
    bpos[k] = xpos[k] - ob;
    PXR ot0 = xmat[3 * k + 2] * size[2];
    PXR ot = ot0 * PX_R(0.5);
    tpos[k] = xpos[k] + ot;
  }
  PXR nbase[3];
  PXR x = pxk_rayBox(bpos, xmat, bsize, pnt, vec, nbase);
  PXR all[6];
  PXR ntop[3];
  PXR top = pxk_rayBoxAll(tpos, xmat, tsize, pnt, vec, all, ntop);
  if (top < PX_R(0.0)) {
    if (x >= PX_R(0.0)) pxk_copy3(normal, nbase);
    return x;
  }

  PXR lpnt[3];
  PXR lvec[3];
  pxk_rayMap(lpnt, lvec, xpos, xmat, pnt, vec);
  PXR b0[3];
  PXR b1[3];
  pxk_rayBasis(b0, b1, lvec);

  // the ray's segment inside the top box
  PXR seg0 = PX_R(0.0);
  PXR seg1 = top;
  for (int i = 0; i < 6; i++) {
    if (all[i] > seg1) {
      seg0 = top;
      seg1 = all[i];
    }
  }

  // its projection on the grid, padded by one cell
  PXR w = PX_R(2.0) * size[0];
  PXR dx = w / PX_TOREAL(ncol - 1);
  PXR hgt = PX_R(2.0) * size[1];
  PXR dy = hgt / PX_TOREAL(nrow - 1);
  PXR sx[2];
  PXR sy[2];
  for (int i = 0; i < 2; i++) {
    PXR s = (i == 0) ? seg0 : seg1;
    PXR tx = s * lvec[0];
    PXR px = lpnt[0] + tx;
    PXR qx = px + size[0];
    sx[i] = qx / dx;
    PXR ty = s * lvec[1];
    PXR py = lpnt[1] + ty;
    PXR qy = py + size[1];
    sy[i] = qy / dy;
  }
  PXR sxmin = sx[0] < sx[1] ? sx[0] : sx[1];
  PXR sxmax = sx[0] > sx[1] ? sx[0] : sx[1];
  PXR symin = sy[0] < sy[1] ? sy[0] : sy[1];
  PXR symax = sy[0] > sy[1] ? sy[0] : sy[1];
  int cmin = pxk_rayGridIdx(sxmin, ncol, 0) - 1;
  int cmax = pxk_rayGridIdx(sxmax, ncol, 1) + 1;
  int rmin = pxk_rayGridIdx(symin, nrow, 0) - 1;
  int rmax = pxk_rayGridIdx(symax, nrow, 1) + 1;
  cmin = cmin > 0 ? cmin : 0;
  cmax = cmax < ncol - 1 ? cmax : ncol - 1;
  rmin = rmin > 0 ? rmin : 0;
  rmax = rmax < nrow - 1 ? rmax : nrow - 1;

  // the normal in the field's frame, starting from the base box's
  PXR nl[3];
  pxk_rayZero3(nl);
  if (x >= PX_R(0.0)) pxk_mulMatTVec3(nl, xmat, nbase);

  // two triangles per cell, wound so that their normals point up
  for (int r = rmin; r < rmax; r++) {
    for (int c = cmin; c < cmax; c++) {
      PXR fc = PX_TOREAL(c);
      PXR fc1 = PX_TOREAL(c + 1);
      PXR fr = PX_TOREAL(r);
      PXR fr1 = PX_TOREAL(r + 1);
      PXR x00 = dx * fc;
      PXR xc0 = x00 - size[0];
      PXR x01 = dx * fc1;
      PXR xc1 = x01 - size[0];
      PXR y00 = dy * fr;
      PXR yr0 = y00 - size[1];
      PXR y01 = dy * fr1;
      PXR yr1 = y01 - size[1];
      PXR h00 = pxk_rayHData(PX_MDARGC hid, r, c);
      PXR z00 = h00 * size[2];
      PXR h01 = pxk_rayHData(PX_MDARGC hid, r, c + 1);
      PXR z01 = h01 * size[2];
      PXR h11 = pxk_rayHData(PX_MDARGC hid, r + 1, c + 1);
      PXR z11 = h11 * size[2];
      PXR h10 = pxk_rayHData(PX_MDARGC hid, r + 1, c);
      PXR z10 = h10 * size[2];

      PXR v[9];
      PXR nt[3];
      v[0] = xc0;
      v[1] = yr0;
      v[2] = z00;
      v[3] = xc1;
      v[4] = yr0;
      v[5] = z01;
      v[6] = xc1;
      v[7] = yr1;
      v[8] = z11;
      PXR sol = pxk_rayTriangle(v, lpnt, lvec, b0, b1, nt);
      if (sol >= PX_R(0.0) && (x < PX_R(0.0) || sol < x)) {
        x = sol;
        pxk_copy3(nl, nt);
      }
      v[3] = xc1;
      v[4] = yr1;
      v[5] = z11;
      v[6] = xc0;
      v[7] = yr1;
      v[8] = z10;
      sol = pxk_rayTriangle(v, lpnt, lvec, b0, b1, nt);
      if (sol >= PX_R(0.0) && (x < PX_R(0.0) || sol < x)) {
        x = sol;
        pxk_copy3(nl, nt);
      }
    }
  }

  // the top box's sides (-x, +x, -y, +y) where the hit lies below the edge's height profile
  for (int i = 0; i < 4; i++) {
    if (all[i] >= PX_R(0.0) && (all[i] < x || x < PX_R(0.0))) {
      PXR tz = all[i] * lvec[2];
      PXR pz = lpnt[2] + tz;
      PXR z = pz / size[2];
      PXR y = PX_R(0.0);
      PXR y0 = PX_R(0.0);
      PXR z0 = PX_R(0.0);
      PXR z1 = PX_R(0.0);
      int n = (i < 2) ? nrow : ncol;
      int a = (i < 2) ? 1 : 0;
      PXR ta = all[i] * lvec[a];
      PXR pa = lpnt[a] + ta;
      PXR qa = pa + size[a];
      y = qa / ((i < 2) ? dy : dx);
      PXR fy = pxk_floor(y);
      PXR top2 = PX_TOREAL(n - 2);
      PXR cl = top2 < fy ? top2 : fy;
      y0 = PX_R(0.0) > cl ? PX_R(0.0) : cl;
      // y0 is a whole number in [0, n - 2] (a NaN y ends up at row or column 0 here)
      int k0 = pxk_rayGridIdx(y0, n, 0);
      k0 = k0 < 0 ? 0 : (k0 > n - 2 ? n - 2 : k0);
      if (i < 2) {
        int cc = (i == 1) ? ncol - 1 : 0;
        z0 = pxk_rayHData(PX_MDARGC hid, k0, cc);
        z1 = pxk_rayHData(PX_MDARGC hid, k0 + 1, cc);
      } else {
        int rr = (i == 3) ? nrow - 1 : 0;
        z0 = pxk_rayHData(PX_MDARGC hid, rr, k0);
        z1 = pxk_rayHData(PX_MDARGC hid, rr, k0 + 1);
      }
      PXR u0 = y0 + PX_R(1.0);
      PXR u = u0 - y;
      PXR w0 = z0 * u;
      PXR v1 = y - y0;
      PXR w1 = z1 * v1;
      PXR prof = w0 + w1;
      if (z < prof) {
        x = all[i];
        pxk_rayZero3(nl);
        PXR sgn = (i == 0 || i == 2) ? PX_R(-1.0) : PX_R(1.0);
        nl[(i < 2) ? 0 : 1] = sgn;
      }
    }
  }

  if (x >= PX_R(0.0)) pxk_mulMatVec3(normal, xmat, nl);
  return x;
}

// ---------------------------------- all geoms ---------------------------------------------------

// 1 when mj_ray skips geom g (ray_eliminate): its body, invisible (alpha 0, of its material
// when it has one), static bodies unless flg_static, groups off in geomgroup when usegroup
PX_FN int pxk_rayEliminate(PX_MDC int g, PX_IN(int, geomgroup, 6), int usegroup, int flg_static,
                           int bodyexclude) {
  int b = M(geom_bodyid, g);
  if (b == bodyexclude) return 1;
  int mat = M(geom_matid, g);
  if (mat < 0 && M(geom_rgba, 4 * g + 3) == 0.0f) return 1;
  if (mat >= 0 && M(mat_rgba, 4 * mat + 3) == 0.0f) return 1;
  if (flg_static == 0 && M(body_weldid, b) == 0) return 1;
  if (usegroup == 0) return 0;
  int grp = M(geom_group, g);
  grp = grp < 0 ? 0 : grp;
  grp = grp > 5 ? 5 : grp;
  return (geomgroup[grp] == 0) ? 1 : 0;
}

// the ray against every geom not eliminated (mj_ray): distance (-1: none), geomid[0] the geom
// hit (-1: none), normal its surface normal there (zeros: none). A vec shorter than mjMINVAL,
// which MuJoCo refuses with an error, gives -1 here. Signed-distance-field geoms are skipped.
PX_FN PX_REAL pxk_ray(PX_MDC PX_IN(PX_REAL, pnt, 3), PX_IN(PX_REAL, vec, 3),
                      PX_IN(int, geomgroup, 6), int usegroup, int flg_static, int bodyexclude,
                      PX_OUT(int, geomid, 1), PX_OUT(PX_REAL, normal, 3)) {
  geomid[0] = -1;
  pxk_rayZero3(normal);
  PXR len = PX_SQRT(vec[0] * vec[0] + vec[1] * vec[1] + vec[2] * vec[2]);
  if (!(len >= PXK_MINVAL)) return PX_R(-1.0);
  PXR dist = PX_R(-1.0);
  for (int g = 0; g < MS(ngeom); g++) {
    if (pxk_rayEliminate(PX_MDARGC g, geomgroup, usegroup, flg_static, bodyexclude) != 0) {
      continue;
    }
    int type = M(geom_type, g);
    PXR nrm[3];
    PXR nd = PX_R(-1.0);
    if (type == PX_GEOM_MESH) {
      nd = pxk_rayMesh(PX_MDARGC g, pnt, vec, nrm);
    } else if (type == PX_GEOM_HFIELD) {
      nd = pxk_rayHfield(PX_MDARGC g, pnt, vec, nrm);
    } else if (type == PX_GEOM_SDF) {
      continue;
    } else {
      PXR pos[3];
      PXR mat[9];
      PXR size[3];
      pxk_rayGeomPose(PX_MDARGC g, pos, mat);
      for (int k = 0; k < 3; k++) size[k] = M(geom_size, 3 * g + k);
      nd = pxk_rayGeom(pos, mat, size, pnt, vec, type, nrm);
    }
    if (nd >= PX_R(0.0) && (nd < dist || dist < PX_R(0.0))) {
      dist = nd;
      geomid[0] = g;
      pxk_copy3(normal, nrm);
    }
  }
  return dist;
}

#endif  // PX_KERN_RAY_H_
