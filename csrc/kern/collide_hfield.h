// SPDX-License-Identifier: Apache-2.0
// Height field against a convex geom (sphere, capsule, ellipsoid, cylinder, box, mesh) in the
// kernel dialect: MuJoCo 3.12's mjc_ConvexHField (engine_collision_convex.c).
//
// Everything happens in the height field's frame. Two early outs: the geom's bounding sphere
// (rbound + margin) against the field's box, then the geom's axis-aligned bounds (six support
// points) against it. The bounds select a sub-grid; each grid cell is two triangles, and each
// triangle, extruded down to the field's base and raised by the margin, is a prism. Every prism
// whose top reaches the geom's lowest point is collided with the geom by the native GJK/EPA
// (pxk_ccdPenetration of collide_gjk.h, one contact, the geom inflated by the margin), in row,
// then column, then triangle order, up to PXK_MAXCONPAIR contacts. As in MuJoCo, the geom's
// cached support vertices carry over from the bounds to every prism.
//
// Not covered: the libccd path MuJoCo takes when nativeccd is disabled (MPR and a normal fix).
#ifndef PX_KERN_COLLIDE_HFIELD_H_
#define PX_KERN_COLLIDE_HFIELD_H_

#include "kern/collide_support.h"
#include "kern/collide_gjk.h"

// shift the prism by one grid vertex (MuJoCo's addPrismVert): vertex (row r + 1 - i, column c)
// enters as the last of the bottom and top triangles
PX_FN void pxk_hfieldPrismVert(PX_MDC PX_INOUT(PX_REAL, obj, PXK_OBJR), int hid, int r, int c,
                               int i, PX_REAL dx, PX_REAL dy, PX_REAL margin) {
  int p = PXK_OBJ_PRISM;
  for (int k = 0; k < 3; k++) {
    obj[p + k] = obj[p + 3 + k];
    obj[p + 3 + k] = obj[p + 6 + k];
    obj[p + 9 + k] = obj[p + 12 + k];
    obj[p + 12 + k] = obj[p + 15 + k];
  }
  int row = r + 1 - i;
  PXR cr = PX_TOREAL(c);
  PXR rr = PX_TOREAL(row);
  PXR x0 = dx * cr;
  PXR x = x0 - M(hfield_size, 4 * hid);
  PXR y0 = dy * rr;
  PXR y = y0 - M(hfield_size, 4 * hid + 1);
  PXR h = PX_TOREAL(M(hfield_data, M(hfield_adr, hid) + row * M(hfield_ncol, hid) + c));
  PXR z = h * M(hfield_size, 4 * hid + 2);
  obj[p + 6] = x;
  obj[p + 15] = x;
  obj[p + 7] = y;
  obj[p + 16] = y;
  obj[p + 17] = z + margin;
}

// the prism's centre (mjc_center for a height field): the mean of its six vertices
PX_FN void pxk_hfieldPrismCenter(PX_INOUT(PX_REAL, obj, PXK_OBJR)) {
  PXR sixth = PX_R(1.0) / PX_R(6.0);
  for (int k = 0; k < 3; k++) {
    PXR s = PX_ZERO;
    for (int i = 0; i < 6; i++) s = s + obj[PXK_OBJ_PRISM + 3 * i + k];
    obj[PXK_OBJ_POS + k] = s * sixth;
  }
}

// integer part of a grid coordinate, kept within [-1, n + 1] (MuJoCo then clamps to [0, n - 1];
// the wider range only keeps the conversion defined)
PX_FN int pxk_hfieldCell(PX_REAL x, int n) {
  PXR lo = PX_R(-1.0);
  PXR hi = PX_TOREAL(n + 1);
  PXR v = x;
  if (v < lo) v = lo;
  if (v > hi) v = hi;
  return PX_INT(v);
}

// height field g1 against convex geom g2 (mjc_ConvexHField); contacts at records adr..
PX_FN int pxk_colConvexHField(PX_MDC int g1, int g2, PX_REAL margin, int adr) {
  PXR pos1[3];
  PXR xm1[9];
  PXR xm2[9];
  for (int k = 0; k < 3; k++) pos1[k] = D(geom_xpos, 3 * g1 + k);
  for (int k = 0; k < 9; k++) {
    xm1[k] = D(geom_xmat, 9 * g1 + k);
    xm2[k] = D(geom_xmat, 9 * g2 + k);
  }
  int hid = M(geom_dataid, g1);
  int nrow = M(hfield_nrow, hid);
  int ncol = M(hfield_ncol, hid);
  PXR size0 = M(hfield_size, 4 * hid);
  PXR size1 = M(hfield_size, 4 * hid + 1);
  PXR size2 = M(hfield_size, 4 * hid + 2);
  PXR size3 = M(hfield_size, 4 * hid + 3);

  // geom centre in the field's frame; its bounding sphere against the field's box
  PXR dif[3];
  for (int k = 0; k < 3; k++) dif[k] = D(geom_xpos, 3 * g2 + k) - pos1[k];
  PXR lpos[3];
  pxk_mulMatTVec3(lpos, xm1, dif);
  PXR radius = M(geom_rbound, g2) + margin;
  PXR nsize0 = -size0;
  PXR nsize1 = -size1;
  PXR nsize3 = -size3;
  PXR lo0 = lpos[0] - radius;
  PXR hi0 = lpos[0] + radius;
  PXR lo1 = lpos[1] - radius;
  PXR hi1 = lpos[1] + radius;
  PXR lo2 = lpos[2] - radius;
  PXR hi2 = lpos[2] + radius;
  if (size0 < lo0 || nsize0 > hi0 || size1 < lo1 || nsize1 > hi1 || size2 < lo2 || nsize3 > hi2) {
    return 0;
  }

  // the two convex objects: the prism (filled below) and the geom in the field's frame
  PXR obj1[PXK_OBJR];
  int oi1[PXK_OBJI];
  PXR obj2[PXK_OBJR];
  int oi2[PXK_OBJI];
  pxk_ccdInit(PX_MDARGC g1, PX_ZERO, obj1, oi1);
  pxk_ccdInit(PX_MDARGC g2, PX_ZERO, obj2, oi2);
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      PXR e = xm1[i] * xm2[j] + xm1[3 + i] * xm2[3 + j] + xm1[6 + i] * xm2[6 + j];
      obj2[PXK_OBJ_MAT + 3 * i + j] = e;
    }
  }
  for (int k = 0; k < 3; k++) obj2[PXK_OBJ_POS + k] = lpos[k];

  // axis-aligned bounds of the geom from its support points along +-x, +-y, +-z
  PXR bmin[3];
  PXR bmax[3];
  for (int a = 0; a < 3; a++) {
    PXR dir[3];
    PXR res[3];
    dir[0] = PX_ZERO;
    dir[1] = PX_ZERO;
    dir[2] = PX_ZERO;
    dir[a] = PX_R(1.0);
    pxk_ccdSupport(PX_MDARGC res, obj2, oi2, dir);
    bmax[a] = res[a];
    dir[a] = PX_R(-1.0);
    pxk_ccdSupport(PX_MDARGC res, obj2, oi2, dir);
    bmin[a] = res[a];
  }

  // the bounds against the field's box (NaN bounds: no contact)
  PXR xlo = bmin[0] - margin;
  PXR xhi = bmax[0] + margin;
  PXR ylo = bmin[1] - margin;
  PXR yhi = bmax[1] + margin;
  PXR zlo = bmin[2] - margin;
  PXR zhi = bmax[2] + margin;
  if (xlo > size0 || xhi < nsize0 || ylo > size1 || yhi < nsize1 || zlo > size2 || zhi < nsize3) {
    return 0;
  }
  int bad = 0;
  for (int k = 0; k < 3; k++) bad = bad + pxk_isNan(bmin[k]) + pxk_isNan(bmax[k]);
  if (bad != 0) return 0;

  // sub-grid under the bounds
  PXR w0 = PX_R(2.0) * size0;
  PXR w1 = PX_R(2.0) * size1;
  PXR nc = PX_TOREAL(ncol - 1);
  PXR nr = PX_TOREAL(nrow - 1);
  PXR t0 = bmin[0] + size0;
  PXR u0 = t0 / w0;
  PXR f0 = u0 * nc;
  PXR t1 = bmax[0] + size0;
  PXR u1 = t1 / w0;
  PXR f1 = u1 * nc;
  PXR nf1 = -f1;
  PXR t2 = bmin[1] + size1;
  PXR u2 = t2 / w1;
  PXR f2 = u2 * nr;
  PXR t3 = bmax[1] + size1;
  PXR u3 = t3 / w1;
  PXR f3 = u3 * nr;
  PXR nf3 = -f3;
  PXR fl0 = pxk_floor(f0);
  PXR fl1 = pxk_floor(nf1);
  PXR cl1 = -fl1;
  PXR fl2 = pxk_floor(f2);
  PXR fl3 = pxk_floor(nf3);
  PXR cl3 = -fl3;
  int cmin = pxk_hfieldCell(fl0, ncol);
  int cmax = pxk_hfieldCell(cl1, ncol);
  int rmin = pxk_hfieldCell(fl2, nrow);
  int rmax = pxk_hfieldCell(cl3, nrow);
  if (cmin < 0) cmin = 0;
  if (cmax > ncol - 1) cmax = ncol - 1;
  if (rmin < 0) rmin = 0;
  if (rmax > nrow - 1) rmax = nrow - 1;

  // the geom is inflated by the margin in the collision test
  obj2[PXK_OBJ_MARGIN] = margin;

  // grid steps; the prism's bottom triangle lies on the field's base
  PXR dx = w0 / nc;
  PXR dy = w1 / nr;
  for (int k = 0; k < 18; k++) obj1[PXK_OBJ_PRISM + k] = PX_ZERO;
  obj1[PXK_OBJ_PRISM + 2] = nsize3;
  obj1[PXK_OBJ_PRISM + 5] = nsize3;
  obj1[PXK_OBJ_PRISM + 8] = nsize3;

  PXR cdist[PXK_CCD_MAXCON];
  PXR cpos[3 * PXK_CCD_MAXCON];
  PXR cnrm[3 * PXK_CCD_MAXCON];
  int ncon = 0;
  for (int r = rmin; r < rmax && ncon < PXK_MAXCONPAIR; r++) {
    pxk_hfieldPrismVert(PX_MDARGC obj1, hid, r, cmin, 0, dx, dy, margin);
    pxk_hfieldPrismVert(PX_MDARGC obj1, hid, r, cmin, 1, dx, dy, margin);
    for (int c = cmin + 1; c <= cmax && ncon < PXK_MAXCONPAIR; c++) {
      for (int i = 0; i < 2 && ncon < PXK_MAXCONPAIR; i++) {
        pxk_hfieldPrismVert(PX_MDARGC obj1, hid, r, c, i, dx, dy, margin);

        // prism top entirely below the geom
        int p = PXK_OBJ_PRISM;
        if (obj1[p + 11] < bmin[2] && obj1[p + 14] < bmin[2] && obj1[p + 17] < bmin[2]) continue;

        pxk_hfieldPrismCenter(obj1);
        int n =
            pxk_ccdPenetration(PX_MDARGC obj1, oi1, obj2, oi2, 1, PX_ZERO, 0, cdist, cpos, cnrm);
        if (n > 0) {
          // back to the world frame
          PXR ln[3];
          PXR lp[3];
          for (int k = 0; k < 3; k++) {
            ln[k] = cnrm[k];
            lp[k] = cpos[k];
          }
          PXR gn[3];
          PXR gp[3];
          pxk_mulMatVec3(gn, xm1, ln);
          pxk_mulMatVec3(gp, xm1, lp);
          int o = adr + ncon;
          PXK_CON(o).dist = cdist[0];
          for (int k = 0; k < 3; k++) {
            PXR q = gp[k] + pos1[k];
            PXK_CON(o).pos[k] = q;
            PXK_CON(o).frame[k] = gn[k];
            PXK_CON(o).frame[3 + k] = PX_ZERO;
          }
          ncon++;
        }
      }
    }
  }
  return ncon;
}

#endif  // PX_KERN_COLLIDE_HFIELD_H_
