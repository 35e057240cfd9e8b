// SPDX-License-Identifier: Apache-2.0
// Narrow-phase colliders of boxes against spheres, capsules and boxes in the kernel dialect.
//
// The algorithms are MuJoCo 3.12's (src/engine/engine_collision_box.c: sphere-box, capsule-box
// and the separating-axis / face-clipping box-box), re-expressed without pointers: the clip
// polygons live in one flat local array holding two buffers, and the routines write their
// pre-contacts straight into the world's contact records adr, adr + 1, ... Operation order
// follows MuJoCo expression by expression so that the results are bit-equal in fp64.
//
// Every routine has the collider signature of collide.h: it reads the poses of geoms g1, g2
// from geom_xpos / geom_xmat and their sizes from geom_size, writes n records (dist, pos,
// frame[0..2] = normal from g1 to g2, frame[3..5] = zero tangent) and returns n.
#ifndef PX_KERN_COLLIDE_BOX_H_
#define PX_KERN_COLLIDE_BOX_H_

// mjMINVAL and mjMAXVAL
#define PXK_BX_MINVAL PX_R(1E-15)
#define PXK_BX_MAXVAL PX_R(1E+10)
#define PXK_BX_NEGMAXVAL PX_R(-1E+10)

// box-box tolerances (fp64 values of MuJoCo's mjBOXBOX_* and their single-precision twins):
// separation slack per unit of summed half-sizes, sin^2 below which an edge-cross axis is
// dropped, axis component below which a supporting corner is ambiguous, squared relative
// radius under which two clipped vertices are one
#ifdef PX_FP32
#define PXK_BB_SEPEPS PX_R(1E-6)
#define PXK_BB_PAREPS PX_R(1E-7)
#define PXK_BB_SGNEPS PX_R(1E-5)
#define PXK_BB_DUPEPS PX_R(1E-10)
#else
#define PXK_BB_SEPEPS PX_R(1E-13)
#define PXK_BB_PAREPS PX_R(1E-16)
#define PXK_BB_SGNEPS PX_R(1E-9)
#define PXK_BB_DUPEPS PX_R(1E-14)
#endif
// relative handicap of edge axes against face axes in the separating-axis search
#define PXK_BB_EDGEBIAS PX_R(1E-6)
// capacity of one clip buffer, in vertices (a quad clipped by four half-planes has at most 8)
#define PXK_BB_MAXVERT 12

// ------------------------------------------------------------------ small helpers

// res = xmat1' * xmat2 (3x3, row-major), as mju_mulMatTMat3
PX_FN void pxk_bxMulMatTMat3(PX_OUT(PX_REAL, res, 9), PX_IN(PX_REAL, xmat1, 9),
                             PX_IN(PX_REAL, xmat2, 9)) {
  for (int r = 0; r < 3; r++) {
    for (int c = 0; c < 3; c++) {
      res[3 * r + c] =
          xmat1[r] * xmat2[c] + xmat1[3 + r] * xmat2[3 + c] + xmat1[6 + r] * xmat2[6 + c];
    }
  }
}

// x clamped to [lo, hi] (mju_clip: lo wins when x is below it, NaN passes through)
PX_FN PX_REAL pxk_bxClip(PX_REAL x, PX_REAL lo, PX_REAL hi) {
  PXR r = x;
  if (x < lo) {
    r = lo;
  } else if (x > hi) {
    r = hi;
  }
  return r;
}

// pose (xpos, xmat) and size of geom g
PX_FN void pxk_bxPose(PX_MDC int g, PX_OUT(PX_REAL, pos, 3), PX_OUT(PX_REAL, mat, 9),
                      PX_OUT(PX_REAL, size, 3)) {
  for (int k = 0; k < 3; k++) {
    pos[k] = D(geom_xpos, 3 * g + k);
    size[k] = M(geom_size, 3 * g + k);
  }
  for (int k = 0; k < 9; k++) mat[k] = D(geom_xmat, 9 * g + k);
}

// writes pre-contact record adr: distance, position, normal, zero tangent
PX_FN void pxk_bxPut(PX_MDC int adr, PX_REAL dist, PX_IN(PX_REAL, pos, 3),
                     PX_IN(PX_REAL, normal, 3)) {
  PXK_CON(adr).dist = dist;
  for (int k = 0; k < 3; k++) {
    PXK_CON(adr).pos[k] = pos[k];
    PXK_CON(adr).frame[k] = normal[k];
    PXK_CON(adr).frame[3 + k] = PX_ZERO;
  }
}

// ------------------------------------------------------------------ sphere : box

// a sphere (centre pos1, radius rad) against a box (pos2, xmat2, half-sizes size2), MuJoCo's
// mjraw_SphereBox: at most one pre-contact, written to record adr; returns the count
PX_FN int pxk_bxSphereBoxRaw(PX_MDC PX_IN(PX_REAL, pos1, 3), PX_REAL rad, PX_IN(PX_REAL, pos2, 3),
                             PX_IN(PX_REAL, xmat2, 9), PX_IN(PX_REAL, size2, 3), PX_REAL margin,
                             int adr) {
  PXR tmp[3];
  PXR center[3];
  PXR clamped[3];
  PXR deepest[3];
  PXR pos[3];
  PXR normal[3];
  pxk_sub3(tmp, pos1, pos2);
  pxk_mulMatTVec3(center, xmat2, tmp);

  // the box point nearest the centre, in the box frame (axes of positive size only)
  for (int i = 0; i < 3; i++) {
    clamped[i] = center[i];
    if (size2[i] > PX_R(0.0)) {
      PXR lo = -size2[i];
      clamped[i] = pxk_bxClip(center[i], lo, size2[i]);
    }
    deepest[i] = center[i];
    tmp[i] = clamped[i] - center[i];
  }
  PXR dist = pxk_normalize3(tmp);
  // beyond the margin: no contact; a NaN distance (a NaN pose) gives none either, where MuJoCo
  // would emit a NaN contact
  PXR excess = dist - rad;
  if (!(excess <= margin)) return 0;

  if (dist <= PXK_BX_MINVAL) {
    // centre inside the box: push out through the nearest face
    PXR closest = (size2[0] + size2[1] + size2[2]) * PX_R(2.0);
    int k = 0;
    for (int i = 0; i < 6; i++) {
      PXR side = (i % 2 == 1) ? size2[i / 2] : -size2[i / 2];
      PXR face = side - center[i / 2];
      PXR gapf = PX_ABS(face);
      if (closest > gapf) {
        closest = gapf;
        k = i;
      }
    }
    PXR nearest[3];
    nearest[0] = PX_ZERO;
    nearest[1] = PX_ZERO;
    nearest[2] = PX_ZERO;
    nearest[k / 2] = (k % 2 == 1) ? PX_R(-1.0) : PX_R(1.0);
    PXR scl = (rad - closest) / PX_R(2.0);
    for (int i = 0; i < 3; i++) pos[i] = center[i] + nearest[i] * scl;
    pxk_mulMatVec3(normal, xmat2, nearest);
    dist = -closest;
  } else {
    // midway between the box surface and the deepest sphere point
    for (int i = 0; i < 3; i++) {
      deepest[i] = deepest[i] + tmp[i] * rad;
      PXR halfc = PX_ZERO + clamped[i] * PX_R(0.5);
      pos[i] = halfc + deepest[i] * PX_R(0.5);
    }
    pxk_mulMatVec3(normal, xmat2, tmp);
  }

  PXR wpos[3];
  pxk_mulMatVec3(wpos, xmat2, pos);
  for (int i = 0; i < 3; i++) wpos[i] = wpos[i] + pos2[i];
  PXR cdist = dist - rad;
  pxk_bxPut(PX_MDARGC adr, cdist, wpos, normal);
  return 1;
}

// sphere g1 : box g2
PX_FN int pxk_colSphereBox(PX_MDC int g1, int g2, PX_REAL margin, int adr) {
  PXR pos1[3];
  PXR xmat1[9];
  PXR size1[3];
  PXR pos2[3];
  PXR xmat2[9];
  PXR size2[3];
  pxk_bxPose(PX_MDARGC g1, pos1, xmat1, size1);
  pxk_bxPose(PX_MDARGC g2, pos2, xmat2, size2);
  return pxk_bxSphereBoxRaw(PX_MDARGC pos1, size1[0], pos2, xmat2, size2, margin, adr);
}

// ------------------------------------------------------------------ capsule : box

// capsule g1 : box g2. The capsule segment's point closest to the box is found among the two
// segment ends against the faces and the segment against the twelve edges; a second point is
// then chosen along the segment where the capsule lies along a face or an edge, and each point
// is collided as a sphere with the box (at most two pre-contacts).
PX_FN int pxk_colCapsuleBox(PX_MDC int g1, int g2, PX_REAL margin, int adr) {
  PXR pos1[3];
  PXR xmat1[9];
  PXR size1[3];
  PXR pos2[3];
  PXR xmat2[9];
  PXR size2[3];
  pxk_bxPose(PX_MDARGC g1, pos1, xmat1, size1);
  pxk_bxPose(PX_MDARGC g2, pos2, xmat2, size2);

  PXR tmp1[3];
  PXR tmp2[3];
  PXR tmp3[3];
  PXR dif[3];
  PXR pos[3];       // capsule centre in the box frame
  PXR axis[3];      // capsule axis in the box frame
  PXR halfaxis[3];  // capsule half-segment in the box frame

  PXR halflength = size1[1];
  PXR secondpos = PX_R(-4.0);  // parameter of the second point; below -3: none

  pxk_sub3(tmp1, pos1, pos2);
  pxk_mulMatTVec3(pos, xmat2, tmp1);
  tmp1[0] = xmat1[2];
  tmp1[1] = xmat1[5];
  tmp1[2] = xmat1[8];
  pxk_mulMatTVec3(axis, xmat2, tmp1);
  for (int k = 0; k < 3; k++) halfaxis[k] = axis[k] * halflength;

  // octant of the half-axis: bit k set when component k is positive
  int axisdir = 0;
  if (halfaxis[0] > PX_R(0.0)) axisdir += 1;
  if (halfaxis[1] > PX_R(0.0)) axisdir += 2;
  if (halfaxis[2] > PX_R(0.0)) axisdir += 4;

  PXR bestdistmax = margin + PX_R(2.0) * (size1[0] + halflength + size2[0] + size2[1] + size2[2]);
  PXR bestdist = bestdistmax;
  PXR bestsegmentpos = PX_R(0.0);  // in [-1, 1]: closest point along the segment
  PXR bestboxpos = PX_R(0.0);      // in [-1, 1]: closest point along the box edge
  int cltype = -4;                 // -3, -1: a segment end against a face; 0..8: an edge
  int clface = 0;                  // the face axis of cltype -3 / -1 (-1: end inside the box)
  int clcorner = 0;                // lower corner (bits of the signs) of the closest edge
  int cledge = 0;                  // axis of the closest edge

  // segment ends against the faces (only where the end clamps on at most one axis)
  for (int i = -1; i <= 1; i += 2) {
    PXR fi = PX_TOREAL(i);
    int c1 = 0;
    int c2 = -1;
    for (int k = 0; k < 3; k++) {
      tmp1[k] = pos[k] + halfaxis[k] * fi;
      tmp2[k] = tmp1[k];
    }
    for (int j = 0; j < 3; j++) {
      PXR lo = -size2[j];
      if (tmp1[j] < lo) {
        c1++;
        c2 = j;
        tmp1[j] = lo;
      } else if (tmp1[j] > size2[j]) {
        c1++;
        c2 = j;
        tmp1[j] = size2[j];
      }
    }
    if (c1 > 1) continue;
    for (int k = 0; k < 3; k++) tmp1[k] = tmp1[k] - tmp2[k];
    PXR dist = pxk_dot3(tmp1, tmp1);
    if (dist < bestdist) {
      bestdist = dist;
      bestsegmentpos = fi;
      cltype = -2 + i;
      clface = c2;
    }
  }

  // the segment against the twelve box edges (edge along axis j from corner i)
  for (int j = 0; j < 3; j++) {
    for (int i = 0; i < 8; i++) {
      if ((i & (1 << j)) != 0) continue;
      tmp3[0] = ((i & 1) != 0) ? size2[0] : -size2[0];
      tmp3[1] = ((i & 2) != 0) ? size2[1] : -size2[1];
      tmp3[2] = ((i & 4) != 0) ? size2[2] : -size2[2];
      tmp3[j] = PX_ZERO;
      pxk_sub3(dif, tmp3, pos);

      // closest points of the two lines, parameters x1 (edge) and x2 (segment) in [-1, 1]
      PXR ma = size2[j] * size2[j];
      PXR mb = -size2[j] * halfaxis[j];
      PXR mc = size1[1] * size1[1];
      PXR u = -size2[j] * dif[j];
      PXR v = pxk_dot3(halfaxis, dif);
      PXR det = ma * mc - mb * mb;
      PXR adet = PX_ABS(det);
      if (adet < PXK_BX_MINVAL) continue;
      PXR idet = PX_R(1.0) / det;
      PXR x1 = (mc * u - mb * v) * idet;
      PXR x2 = (ma * v - mb * u) * idet;

      // s1, s2: 0 at the lower end, 1 inside, 2 at the upper end
      int s1 = 1;
      int s2 = 1;
      if (x1 > PX_R(1.0)) {
        x1 = PX_R(1.0);
        s1 = 2;
        x2 = (v - mb) * (PX_R(1.0) / mc);
      } else if (x1 < PX_R(-1.0)) {
        x1 = PX_R(-1.0);
        s1 = 0;
        x2 = (v + mb) * (PX_R(1.0) / mc);
      }
      if (x2 > PX_R(1.0)) {
        x2 = PX_R(1.0);
        s2 = 2;
        x1 = (u - mb) * (PX_R(1.0) / ma);
        if (x1 > PX_R(1.0)) {
          x1 = PX_R(1.0);
          s1 = 2;
        } else if (x1 < PX_R(-1.0)) {
          x1 = PX_R(-1.0);
          s1 = 0;
        }
      } else if (x2 < PX_R(-1.0)) {
        x2 = PX_R(-1.0);
        s2 = 0;
        x1 = (u + mb) * (PX_R(1.0) / ma);
        if (x1 > PX_R(1.0)) {
          x1 = PX_R(1.0);
          s1 = 2;
        } else if (x1 < PX_R(-1.0)) {
          x1 = PX_R(-1.0);
          s1 = 0;
        }
      }

      pxk_sub3(dif, tmp3, pos);
      PXR nx2 = -x2;
      for (int k = 0; k < 3; k++) dif[k] = dif[k] + halfaxis[k] * nx2;
      dif[j] = dif[j] + size2[j] * x1;
      PXR dist = pxk_dot3(dif, dif);
      int c1 = s1 * 3 + s2;

      // the MINVAL slack keeps an edge numerically parallel to the axis from winning on noise
      PXR bar = bestdist - PXK_BX_MINVAL;
      if (dist < bar) {
        bestdist = dist;
        bestsegmentpos = x2;
        bestboxpos = x1;
        clcorner = i + (1 << j) * (c1 / 6);
        cledge = j;
        cltype = c1;
      }
    }
  }

  if (cltype == -4) return 0;

  int skip = 0;
  PXR mul = PX_R(1.0);
  PXR e1 = PX_R(0.0);
  if (cltype >= 0 && cltype / 3 != 1) {
    // closest at a box corner: the capsule points at (or away from) the corner, or lies along
    // an edge or a face from it
    int c1 = axisdir ^ clcorner;
    if (c1 == 0 || c1 == 7) {
      skip = 1;
    } else {
      PXR de = PX_R(0.0);  // segment parameter room towards the far end along mul
      PXR dp = PX_R(0.0);  // and towards the other end
      if (c1 == 1 || c1 == 2 || c1 == 4) {
        mul = PX_R(1.0);
        de = PX_R(1.0) - bestsegmentpos;
        dp = PX_R(1.0) + bestsegmentpos;
      } else {
        mul = PX_R(-1.0);
        c1 = 7 - c1;
        dp = PX_R(1.0) - bestsegmentpos;
        de = PX_R(1.0) + bestsegmentpos;
      }
      int ax = 0;
      int ax1 = 1;
      int ax2 = 2;
      if (c1 == 2) {
        ax = 1;
        ax1 = 2;
        ax2 = 0;
      } else if (c1 == 4) {
        ax = 2;
        ax1 = 0;
        ax2 = 1;
      }
      PXR axsq = axis[ax] * axis[ax];
      if (axsq > PX_R(0.5)) {
        // second point along the box edge, at most to its other corner
        secondpos = de;
        PXR ha = PX_ABS(halfaxis[ax]);
        e1 = PX_R(2.0) * size2[ax] / ha;
        if (e1 < secondpos) secondpos = e1;
        secondpos = secondpos * mul;
      } else {
        // second point across a box face, at most to its far edges
        secondpos = dp;
        PXR ha1 = PX_ABS(halfaxis[ax1]);
        e1 = PX_R(2.0) * size2[ax1] / ha1;
        if (e1 < secondpos) secondpos = e1;
        PXR ha2 = PX_ABS(halfaxis[ax2]);
        e1 = PX_R(2.0) * size2[ax2] / ha2;
        if (e1 < secondpos) secondpos = e1;
        PXR nmul = -mul;
        secondpos = secondpos * nmul;
      }
    }
  } else if (cltype >= 0) {
    // closest inside a box edge: a T configuration gives one point, an X configuration two
    int c1 = (axisdir ^ clcorner) & (7 - (1 << cledge));
    if (c1 != 1 && c1 != 2 && c1 != 4) {
      skip = 1;
    } else {
      int ax = cledge;
      int ax1 = (cledge + 1) % 3;
      int ax2 = (cledge + 2) % 3;
      // ax1: the face the capsule is least inclined to; ax2: the remaining axis
      PXR a1 = PX_ABS(axis[ax1]);
      PXR a2 = PX_ABS(axis[ax2]);
      if (a1 > a2) ax1 = ax2;
      ax2 = 3 - ax - ax1;
      if ((c1 & (1 << ax2)) != 0) {
        mul = PX_R(1.0);
        secondpos = PX_R(1.0) - bestsegmentpos;
      } else {
        mul = PX_R(-1.0);
        secondpos = PX_R(1.0) + bestsegmentpos;
      }
      PXR ha2 = PX_ABS(halfaxis[ax2]);
      e1 = PX_R(2.0) * size2[ax2] / ha2;
      if (e1 < secondpos) secondpos = e1;
      PXR e2 = PX_R(0.0);
      if (((axisdir & (1 << ax)) != 0) == ((c1 & (1 << ax2)) != 0)) {
        e2 = PX_R(1.0) - bestboxpos;
      } else {
        e2 = PX_R(1.0) + bestboxpos;
      }
      PXR ha = PX_ABS(halfaxis[ax]);
      e1 = size2[ax] * e2 / ha;
      if (e1 < secondpos) secondpos = e1;
      secondpos = secondpos * mul;
    }
  } else {
    // a segment end is closest to a face: the second point is the farthest point of the
    // segment towards the other end that stays above that face
    if (clface == -1) {
      skip = 1;
    } else {
      mul = (cltype == -3) ? PX_R(1.0) : PX_R(-1.0);
      secondpos = PX_R(2.0);
      PXR nmul = -mul;
      for (int k = 0; k < 3; k++) tmp1[k] = pos[k] + halfaxis[k] * nmul;
      for (int i = 0; i < 3; i++) {
        if (i == clface) continue;
        e1 = (size2[i] - tmp1[i]) / halfaxis[i] * mul;
        if (e1 > PX_R(0.0) && e1 < secondpos) secondpos = e1;
        e1 = (-size2[i] - tmp1[i]) / halfaxis[i] * mul;
        if (e1 > PX_R(0.0) && e1 < secondpos) secondpos = e1;
      }
      secondpos = secondpos * mul;
    }
  }

  // both points as spheres of the capsule's radius against the box
  for (int k = 0; k < 3; k++) tmp1[k] = pos[k] + halfaxis[k] * bestsegmentpos;
  pxk_mulMatVec3(tmp2, xmat2, tmp1);
  for (int k = 0; k < 3; k++) tmp2[k] = tmp2[k] + pos2[k];
  int n = pxk_bxSphereBoxRaw(PX_MDARGC tmp2, size1[0], pos2, xmat2, size2, margin, adr);
  if (skip == 0 && secondpos > PX_R(-3.0)) {
    PXR t = secondpos + bestsegmentpos;
    for (int k = 0; k < 3; k++) tmp1[k] = pos[k] + halfaxis[k] * t;
    pxk_mulMatVec3(tmp2, xmat2, tmp1);
    for (int k = 0; k < 3; k++) tmp2[k] = tmp2[k] + pos2[k];
    n += pxk_bxSphereBoxRaw(PX_MDARGC tmp2, size1[0], pos2, xmat2, size2, margin, adr + n);
  }
  return n;
}

// ------------------------------------------------------------------ box : box

// clips the polygon in buffer cur of poly (nin vertices; buffer b holds vertex k at
// poly[3 * (PXK_BB_MAXVERT * b + k) + c]) against the half-plane sgn * v[coord] <= limit, the
// result going to the other buffer; returns its vertex count, or -1 when every vertex is
// inside (the polygon is then left as it is, in cur)
PX_FN int pxk_bbClip(PX_INOUT(PX_REAL, poly, 72), int cur, int nin, int coord, PX_REAL sgn,
                     PX_REAL limit) {
  PXR dk[PXK_BB_MAXVERT];
  int inside = 1;
  int bin = 3 * PXK_BB_MAXVERT * cur;
  int bout = 3 * PXK_BB_MAXVERT * (1 - cur);
  for (int k = 0; k < nin; k++) {
    dk[k] = sgn * poly[bin + 3 * k + coord] - limit;
    if (!(dk[k] <= PX_R(0.0))) inside = 0;
  }
  if (inside == 1) return -1;

  int nout = 0;
  for (int k = 0; k < nin; k++) {
    int k1 = (k + 1 == nin) ? 0 : k + 1;
    PXR dp = dk[k];
    PXR dq = dk[k1];
    if (dp <= PX_R(0.0) && nout < PXK_BB_MAXVERT) {
      for (int c = 0; c < 3; c++) poly[bout + 3 * nout + c] = poly[bin + 3 * k + c];
      nout++;
    }
    // the edge to the next vertex strictly crosses the line: emit the crossing
    int crosses =
        ((dp < PX_R(0.0) && dq > PX_R(0.0)) || (dp > PX_R(0.0) && dq < PX_R(0.0))) ? 1 : 0;
    if (crosses == 1 && nout < PXK_BB_MAXVERT) {
      PXR t = dp / (dp - dq);
      for (int c = 0; c < 3; c++) {
        PXR p = poly[bin + 3 * k + c];
        PXR q = poly[bin + 3 * k1 + c];
        poly[bout + 3 * nout + c] = p + t * (q - p);
      }
      nout++;
    }
  }
  return nout;
}

// the separating axis of edge pair (i, j), e_i x column j of rot, in box1's frame, normalized
PX_FN void pxk_bbEdgeAxis(PX_OUT(PX_REAL, axis, 3), PX_IN(PX_REAL, rot, 9), int i, int j) {
  int i1 = (i + 1) % 3;
  int i2 = (i + 2) % 3;
  axis[i] = PX_ZERO;
  axis[i1] = -rot[3 * i2 + j];
  axis[i2] = rot[3 * i1 + j];
  pxk_normalize3(axis);
}

// box g1 : box g2. Stage 1 finds the axis of largest separation among the 3 + 3 face normals
// and the 9 edge-pair cross products (faces win near-ties); stage 2 makes one contact at the
// closest points of the two supporting edges for an edge axis, or clips the incident face of
// the other box against the reference face's side planes for a face axis, every clipped
// vertex within the margin becoming a contact (at most 8).
PX_FN int pxk_colBoxBox(PX_MDC int g1, int g2, PX_REAL margin, int adr) {
  PXR pos1[3];
  PXR xmat1[9];
  PXR size1[3];
  PXR pos2[3];
  PXR xmat2[9];
  PXR size2[3];
  pxk_bxPose(PX_MDARGC g1, pos1, xmat1, size1);
  pxk_bxPose(PX_MDARGC g2, pos2, xmat2, size2);

  // rot: box2's axes in box1's frame (columns); pos21: box2's centre in box1's frame; pos12:
  // box1's centre in box2's frame
  PXR rot[9];
  PXR rotabs[9];
  PXR pos21[3];
  PXR pos12[3];
  PXR tmp[3];
  pxk_sub3(tmp, pos2, pos1);
  pxk_mulMatTVec3(pos21, xmat1, tmp);
  pxk_sub3(tmp, pos1, pos2);
  pxk_mulMatTVec3(pos12, xmat2, tmp);
  pxk_bxMulMatTMat3(rot, xmat1, xmat2);
  for (int k = 0; k < 9; k++) rotabs[k] = PX_ABS(rot[k]);

  // ---- stage 1: separating axes (code 0..2 box1 face, 3..5 box2 face, 6 + 3 i + j edges)
  PXR septol =
      margin + PXK_BB_SEPEPS * (size1[0] + size1[1] + size1[2] + size2[0] + size2[1] + size2[2]);
  PXR sepbest = PXK_BX_NEGMAXVAL;
  int code = -1;
  for (int i = 0; i < 3; i++) {
    PXR radius2 =
        rotabs[3 * i] * size2[0] + rotabs[3 * i + 1] * size2[1] + rotabs[3 * i + 2] * size2[2];
    PXR sep = PX_ABS(pos21[i]) - size1[i] - radius2;
    if (sep > septol) return 0;
    if (sep > sepbest) {
      sepbest = sep;
      code = i;
    }
  }
  for (int j = 0; j < 3; j++) {
    PXR radius1 = rotabs[j] * size1[0] + rotabs[3 + j] * size1[1] + rotabs[6 + j] * size1[2];
    PXR sep = PX_ABS(pos12[j]) - size2[j] - radius1;
    if (sep > septol) return 0;
    if (sep > sepbest) {
      sepbest = sep;
      code = 3 + j;
    }
  }
  PXR sepface = sepbest;
  int codeface = code;

  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      int i1 = (i + 1) % 3;
      int i2 = (i + 2) % 3;
      PXR ax1 = -rot[3 * i2 + j];
      PXR ax2 = rot[3 * i1 + j];
      // nearly parallel edges: the cross product is rounding noise (the face axes cover it)
      PXR norm2 = ax1 * ax1 + ax2 * ax2;
      if (norm2 < PXK_BB_PAREPS) continue;
      PXR inv = PX_R(1.0) / PX_SQRT(norm2);
      ax1 = ax1 * inv;
      ax2 = ax2 * inv;
      PXR radius1 = size1[i1] * PX_ABS(ax1) + size1[i2] * PX_ABS(ax2);
      int j1 = (j + 1) % 3;
      int j2 = (j + 2) % 3;
      PXR b1 = ax1 * rot[3 * i1 + j1] + ax2 * rot[3 * i2 + j1];
      PXR b2 = ax1 * rot[3 * i1 + j2] + ax2 * rot[3 * i2 + j2];
      PXR radius2 = size2[j1] * PX_ABS(b1) + size2[j2] * PX_ABS(b2);
      PXR proj = ax1 * pos21[i1] + ax2 * pos21[i2];
      PXR sep = PX_ABS(proj) - radius1 - radius2;
      if (sep > septol) return 0;
      PXR biased = sep - PXK_BB_EDGEBIAS * PX_ABS(sep);
      if (biased > sepbest && sep > sepface) {
        sepbest = sep;
        code = 6 + 3 * i + j;
      }
    }
  }
  if (code < 0) return 0;  // only with NaN poses

  // an edge axis within ~8 degrees of the best face axis gives way to it unless it separates
  // by 5% of the face depth more
  if (code >= 6) {
    PXR axis[3];
    pxk_bbEdgeAxis(axis, rot, (code - 6) / 3, (code - 6) % 3);
    PXR facedot = PX_R(0.0);
    if (codeface < 3) {
      facedot = PX_ABS(axis[codeface]);
    } else {
      int f = codeface - 3;
      PXR fd = axis[0] * rot[f] + axis[1] * rot[3 + f] + axis[2] * rot[6 + f];
      facedot = PX_ABS(fd);
    }
    PXR thresh = sepface + PX_R(0.05) * PX_ABS(sepface) + PXK_BX_MINVAL;
    if (facedot > PX_R(0.99) && sepbest < thresh) {
      code = codeface;
      sepbest = sepface;
    }
  }

  // ---- stage 2a: edge-edge, one contact between the supporting edges
  if (code >= 6) {
    int i = (code - 6) / 3;
    int j = (code - 6) % 3;
    int i1 = (i + 1) % 3;
    int i2 = (i + 2) % 3;
    int j1 = (j + 1) % 3;
    int j2 = (j + 2) % 3;
    PXR axis[3];
    pxk_bbEdgeAxis(axis, rot, i, j);
    PXR side = pxk_dot3(axis, pos21);
    if (side < PX_R(0.0)) {
      for (int k = 0; k < 3; k++) axis[k] = -axis[k];
    }

    // the axis in box2's frame; a near-zero component leaves the supporting edge ambiguous,
    // and both candidates are tried (at most one such component per box)
    PXR a2[3];
    for (int c = 0; c < 3; c++)
      a2[c] = axis[0] * rot[c] + axis[1] * rot[3 + c] + axis[2] * rot[6 + c];
    int amb1 = -1;
    int amb2 = -1;
    PXR q = PX_ABS(axis[i1]);
    PXR r = PX_ABS(axis[i2]);
    if (q < PXK_BB_SGNEPS) {
      amb1 = i1;
    } else if (r < PXK_BB_SGNEPS) {
      amb1 = i2;
    }
    q = PX_ABS(a2[j1]);
    r = PX_ABS(a2[j2]);
    if (q < PXK_BB_SGNEPS) {
      amb2 = j1;
    } else if (r < PXK_BB_SGNEPS) {
      amb2 = j2;
    }

    PXR d2[3];
    d2[0] = rot[j];
    d2[1] = rot[3 + j];
    d2[2] = rot[6 + j];
    PXR b = d2[i];  // cosine between the edges
    PXR denom = PX_R(1.0) - b * b;

    PXR w1[3];
    PXR w2[3];
    for (int k = 0; k < 3; k++) {
      w1[k] = PX_R(0.0);
      w2[k] = PX_R(0.0);
    }
    PXR bestd2 = PXK_BX_MAXVAL;
    int nv1 = (amb1 >= 0) ? 2 : 1;
    int nv2 = (amb2 >= 0) ? 2 : 1;
    for (int v1 = 0; v1 < nv1; v1++) {
      for (int v2 = 0; v2 < nv2; v2++) {
        // box1's edge: from its centre point c1 along e_i; box2's: from c2 along d2
        PXR c1[3];
        c1[i] = PX_ZERO;
        c1[i1] = (axis[i1] >= PX_R(0.0)) ? size1[i1] : -size1[i1];
        c1[i2] = (axis[i2] >= PX_R(0.0)) ? size1[i2] : -size1[i2];
        if (amb1 >= 0 && v1 == 1) c1[amb1] = -c1[amb1];
        PXR cc[3];
        cc[j] = PX_ZERO;
        cc[j1] = (a2[j1] >= PX_R(0.0)) ? -size2[j1] : size2[j1];
        cc[j2] = (a2[j2] >= PX_R(0.0)) ? -size2[j2] : size2[j2];
        if (amb2 >= 0 && v2 == 1) cc[amb2] = -cc[amb2];
        PXR c2[3];
        pxk_mulMatVec3(c2, rot, cc);
        for (int k = 0; k < 3; k++) c2[k] = c2[k] + pos21[k];

        // closest points of the two segments, each clamp re-solving the other parameter
        PXR e[3];
        pxk_sub3(e, c2, c1);
        PXR d1e = e[i];
        PXR d2e = pxk_dot3(d2, e);
        PXR s = PX_R(0.0);
        if (!(denom < PXK_BX_MINVAL)) s = (d1e - b * d2e) / denom;
        PXR lo1 = -size1[i];
        PXR lo2 = -size2[j];
        s = pxk_bxClip(s, lo1, size1[i]);
        PXR tt = b * s - d2e;
        PXR t = pxk_bxClip(tt, lo2, size2[j]);
        PXR ss = d1e + b * t;
        s = pxk_bxClip(ss, lo1, size1[i]);

        PXR p1[3];
        PXR p2[3];
        PXR gap[3];
        pxk_copy3(p1, c1);
        p1[i] = p1[i] + s;
        for (int k = 0; k < 3; k++) p2[k] = c2[k] + d2[k] * t;
        pxk_sub3(gap, p2, p1);
        PXR gap2 = pxk_dot3(gap, gap);
        if (gap2 < bestd2) {
          bestd2 = gap2;
          pxk_copy3(w1, p1);
          pxk_copy3(w2, p2);
        }
      }
    }

    PXR gap[3];
    pxk_sub3(gap, w2, w1);
    PXR dist = pxk_dot3(gap, axis);
    if (dist > septol) return 0;

    // midpoint of the witness pair, to the world frame
    PXR mid[3];
    for (int k = 0; k < 3; k++) mid[k] = PX_R(0.5) * (w1[k] + w2[k]);
    PXR cpos[3];
    PXR normal[3];
    pxk_mulMatVec3(cpos, xmat1, mid);
    for (int k = 0; k < 3; k++) cpos[k] = cpos[k] + pos1[k];
    pxk_mulMatVec3(normal, xmat1, axis);
    pxk_bxPut(PX_MDARGC adr, dist, cpos, normal);
    return 1;
  }

  // ---- stage 2b: face contact; the reference box owns the winning face, the other is incident
  int ref1 = (code < 3) ? 1 : 0;
  int a = (ref1 == 1) ? code : code - 3;
  PXR sizeref[3];
  PXR sizeinc[3];
  PXR posref[3];
  PXR matref[9];
  PXR posoi[3];  // incident centre in the reference frame
  PXR rinc[9];   // rinc[3 r + c]: component r of incident axis c in the reference frame
  for (int k = 0; k < 3; k++) {
    sizeref[k] = (ref1 == 1) ? size1[k] : size2[k];
    sizeinc[k] = (ref1 == 1) ? size2[k] : size1[k];
    posref[k] = (ref1 == 1) ? pos1[k] : pos2[k];
    posoi[k] = (ref1 == 1) ? pos21[k] : pos12[k];
  }
  for (int r = 0; r < 3; r++) {
    for (int c = 0; c < 3; c++) {
      matref[3 * r + c] = (ref1 == 1) ? xmat1[3 * r + c] : xmat2[3 * r + c];
      rinc[3 * r + c] = (ref1 == 1) ? rot[3 * r + c] : rot[3 * c + r];
    }
  }

  // sgn: the side of the reference face towards the incident box
  PXR sgn = (posoi[a] >= PX_R(0.0)) ? PX_R(1.0) : PX_R(-1.0);

  // incident face: the incident axis most aligned with the reference normal, signed to oppose it
  int binc = 0;
  for (int k = 1; k < 3; k++) {
    PXR ak = PX_ABS(rinc[3 * a + k]);
    PXR ab = PX_ABS(rinc[3 * a + binc]);
    if (ak > ab) binc = k;
  }
  PXR sproj = sgn * rinc[3 * a + binc];
  PXR tinc = (sproj > PX_R(0.0)) ? PX_R(-1.0) : PX_R(1.0);

  // incident face corners in (x, y, z): x, y along the reference axes ax, ay, z the height
  // above the reference face (negative inside the reference box), wound cyclically
  int ax = (a + 1) % 3;
  int ay = (a + 2) % 3;
  int bu = (binc + 1) % 3;
  int bv = (binc + 2) % 3;
  PXR cx[3];
  PXR du[3];
  PXR dv[3];
  for (int r = 0; r < 3; r++) {
    int c = (r == 0) ? ax : ((r == 1) ? ay : a);
    cx[r] = posoi[c] + tinc * sizeinc[binc] * rinc[3 * c + binc];
    du[r] = sizeinc[bu] * rinc[3 * c + bu];
    dv[r] = sizeinc[bv] * rinc[3 * c + bv];
  }
  cx[2] = sgn * cx[2] - sizeref[a];
  du[2] = du[2] * sgn;
  dv[2] = dv[2] * sgn;

  PXR poly[72];  // two clip buffers of PXK_BB_MAXVERT vertices
  for (int k = 0; k < 4; k++) {
    PXR su = (k == 0 || k == 3) ? PX_R(1.0) : PX_R(-1.0);
    PXR sv = (k < 2) ? PX_R(1.0) : PX_R(-1.0);
    for (int c = 0; c < 3; c++) poly[3 * k + c] = cx[c] + su * du[c] + sv * dv[c];
  }

  // clip against the four side planes of the reference face
  int cur = 0;
  int nvert = 4;
  for (int pass = 0; pass < 4; pass++) {
    int coord = pass / 2;
    PXR s = (pass % 2 == 0) ? PX_R(1.0) : PX_R(-1.0);
    PXR limit = (coord == 0) ? sizeref[ax] : sizeref[ay];
    int nout = pxk_bbClip(poly, cur, nvert, coord, s, limit);
    if (nout >= 0) {
      nvert = nout;
      cur = 1 - cur;
    }
  }

  // accept the vertices within the margin, dropping near-duplicates (clipping at corners)
  PXR acc[3 * PXK_BB_MAXVERT];
  int naccept = 0;
  PXR dupe2 = PXK_BB_DUPEPS * (sizeref[ax] * sizeref[ax] + sizeref[ay] * sizeref[ay]);
  int base = 3 * PXK_BB_MAXVERT * cur;
  for (int k = 0; k < nvert; k++) {
    if (poly[base + 3 * k + 2] > margin) continue;
    int dupe = 0;
    for (int qv = 0; qv < naccept; qv++) {
      PXR dx = acc[3 * qv] - poly[base + 3 * k];
      PXR dy = acc[3 * qv + 1] - poly[base + 3 * k + 1];
      PXR dd = dx * dx + dy * dy;
      if (dd < dupe2) {
        dupe = 1;
        break;
      }
    }
    if (dupe == 0) {
      for (int c = 0; c < 3; c++) acc[3 * naccept + c] = poly[base + 3 * k + c];
      naccept++;
    }
  }
  if (naccept == 0) return 0;

  // normal from geom1 to geom2
  PXR nsign = (ref1 == 1) ? sgn : -sgn;
  PXR normal[3];
  for (int r = 0; r < 3; r++) normal[r] = nsign * matref[3 * r + a];

  for (int k = 0; k < naccept; k++) {
    // on the clipped polygon in (x, y), midway between the reference face and the incident
    // surface along the face axis
    PXR posc[3];
    posc[ax] = acc[3 * k];
    posc[ay] = acc[3 * k + 1];
    posc[a] = sgn * (sizeref[a] + PX_R(0.5) * acc[3 * k + 2]);
    PXR cpos[3];
    pxk_mulMatVec3(cpos, matref, posc);
    for (int c = 0; c < 3; c++) cpos[c] = cpos[c] + posref[c];
    PXR dist = acc[3 * k + 2];
    pxk_bxPut(PX_MDARGC adr + k, dist, cpos, normal);
  }
  return naccept;
}

#endif  // PX_KERN_COLLIDE_BOX_H_
