// SPDX-License-Identifier: Apache-2.0
// The broad phase and the midphase of MuJoCo 3.12's collision driver (mj_broadphase, makeAAMM,
// mj_SAP, mju_eig3, mj_collideTree at the leaf level, mj_collideOBB) in the kernel dialect.
//
// MuJoCo's candidate body pairs are not a conservative superset of the pairs within margin + gap:
// its sweep and prune compares bounds rounded to float32, its bounds ignore geom gaps under the
// override flag, and they lie along a frame from the eigenvectors of the geom centres'
// covariance. Its contacts follow these choices, so phalanx reproduces them operation by
// operation: the same frame, the same bounds, the same float32 rounding, MuJoCo's stable sort
// (insertion-sorted runs of 32 merged bottom-up, which also fixes the order NaNs leave).
//
// Scratch. The broad phase works in this world's collision scratch (not in PX_DATA_FIELDS):
// PXK_SCR_R(i) reals and PXK_SCR_I(i) ints, laid out for n = nbody as
//   reals [0, 6n)   bounds of the SAP bodies, column-major: lo x, y, z then hi x, y, z (stride n)
//         [6n, 8n)  SAP sort keys (float32 values held as reals), [8n, 10n) the merge buffer
//   ints  [0, n)    body of each SAP index, [n, 3n) sort ids, [3n, 5n) their merge buffer,
//         [5n, 6n)  active list, [6n, 7n) position of each SAP index in it (-1: not active),
//         [7n, 8n)  1 for bodies MuJoCo pairs with every body (world, static planes)
//         [8n, 8n + PXK_NBPMAX)  the body-pair signatures (b1 << 16) + b2, b1 < b2
// PXK_NBPMAX is the number of body pairs the static filters pass (px_makeWorlds), so the list
// cannot overflow: each pair is emitted once (a pair MuJoCo finds both among the always-colliding
// pairs and in the sweep, which it de-duplicates after sorting, is emitted here only once).
//
// Not reproduced: flexes (phalanx has none), sleeping bodies (refused), and the midphase's
// intermediate bounding-volume nodes (phalanx's model has no bvh_* arrays): a body pair that is
// not two single-geom bodies is tested leaf by leaf (geom bounding boxes, mj_collideOBB with
// margin + gap), see pxk_colMidLeaf.
#ifndef PX_KERN_COLLIDE_BROAD_H_
#define PX_KERN_COLLIDE_BROAD_H_

#include "kern/spatial.h"

// MuJoCo's eigEPS (mjMINVAL * 1000) and mjMAXVAL
#define PXK_EIGEPS PX_R(1E-12)
#define PXK_BR_MAXVAL PX_R(1E+10)

//---------------------------------- eigen decomposition -------------------------------------------

// eigenvalues (decreasing), eigenvectors (columns of eigvec) and their rotation as a quaternion
// of a symmetric 3x3 matrix by Jacobi rotations kept as a quaternion (mju_eig3)
PX_FN int pxk_eig3(PX_OUT(PX_REAL, eigval, 3), PX_OUT(PX_REAL, eigvec, 9), PX_OUT(PX_REAL, quat, 4),
                   PX_IN(PX_REAL, mat, 9)) {
  PXR q[4];
  q[0] = PX_R(1.0);
  q[1] = PX_ZERO;
  q[2] = PX_ZERO;
  q[3] = PX_ZERO;
  PXR vec[9];
  PXR ev[3];
  int iter = 0;
  while (iter < 500) {
    // D = vec' * mat * vec with vec the rotation of q
    pxk_quat2Mat(vec, q);
    PXR t[9];
    for (int r = 0; r < 3; r++) {
      for (int c = 0; c < 3; c++) {
        t[3 * r + c] = vec[r] * mat[c] + vec[3 + r] * mat[3 + c] + vec[6 + r] * mat[6 + c];
      }
    }
    PXR dm[9];
    for (int r = 0; r < 3; r++) {
      for (int c = 0; c < 3; c++) {
        dm[3 * r + c] = t[3 * r] * vec[c] + t[3 * r + 1] * vec[3 + c] + t[3 * r + 2] * vec[6 + c];
      }
    }
    ev[0] = dm[0];
    ev[1] = dm[4];
    ev[2] = dm[8];

    // the largest off-diagonal element (row rk, column ck) and the axis it rotates about
    int rk = 1;
    int ck = 2;
    int rotk = 0;
    PXR a01 = PX_ABS(dm[1]);
    PXR a02 = PX_ABS(dm[2]);
    PXR a12 = PX_ABS(dm[5]);
    if (a01 > a02 && a01 > a12) {
      rk = 0;
      ck = 1;
      rotk = 2;
    } else if (a02 > a12) {
      rk = 0;
      ck = 2;
      rotk = 1;
    }
    PXR off = dm[3 * rk + ck];
    PXR aoff = PX_ABS(off);
    if (aoff < PXK_EIGEPS) break;

    // symmetric Schur decomposition of the 2x2 block
    PXR twooff = PX_R(2.0) * off;
    PXR tau = (dm[4 * ck] - dm[4 * rk]) / twooff;
    PXR tt = PX_R(1.0) + tau * tau;
    PXR root = PX_SQRT(tt);
    PXR tn = PX_ZERO;
    if (tau >= 0) {
      PXR den = tau + root;
      tn = PX_R(1.0) / den;
    } else {
      PXR den = -tau + root;
      tn = PX_R(-1.0) / den;
    }
    PXR cc = PX_R(1.0) + tn * tn;
    PXR cs = PX_SQRT(cc);
    PXR c = PX_R(1.0) / cs;
    PXR lim = PX_R(1.0) - PXK_EIGEPS;
    if (c > lim) break;

    // the rotation as a quaternion about axis rotk, accumulated
    PXR rq[4];
    rq[1] = PX_ZERO;
    rq[2] = PX_ZERO;
    rq[3] = PX_ZERO;
    PXR hc = PX_R(0.5) * c;
    PXR sarg = PX_R(0.5) - hc;
    PXR s = PX_SQRT(sarg);
    PXR sv = tau >= 0 ? -s : s;
    if (rotk == 1) sv = -sv;
    rq[rotk + 1] = sv;
    PXR warg = PX_R(1.0) - sv * sv;
    rq[0] = PX_SQRT(warg);
    pxk_normalize4(rq);
    PXR nq[4];
    pxk_mulQuat(nq, q, rq);
    for (int k = 0; k < 4; k++) q[k] = nq[k];
    pxk_normalize4(q);
    iter = iter + 1;
  }

  // decreasing order: swap neighbours (0, 1), (1, 2), (0, 1) by 90-degree rotations
  for (int j = 0; j < 3; j++) {
    int j1 = j % 2;
    PXR lhs = ev[j1] + PXK_EIGEPS;
    if (lhs < ev[j1 + 1]) {
      PXR tmp = ev[j1];
      ev[j1] = ev[j1 + 1];
      ev[j1 + 1] = tmp;
      PXR rq[4];
      rq[0] = PX_R(0.707106781186548);
      rq[1] = PX_ZERO;
      rq[2] = PX_ZERO;
      rq[3] = PX_ZERO;
      rq[(j1 + 2) % 3 + 1] = rq[0];
      PXR nq[4];
      pxk_mulQuat(nq, q, rq);
      for (int k = 0; k < 4; k++) q[k] = nq[k];
      pxk_normalize4(q);
    }
  }
  pxk_quat2Mat(vec, q);
  for (int k = 0; k < 9; k++) eigvec[k] = vec[k];
  for (int k = 0; k < 3; k++) eigval[k] = ev[k];
  for (int k = 0; k < 4; k++) quat[k] = q[k];
  return iter;
}

//---------------------------------- float32 rounding ----------------------------------------------

// x rounded to the nearest float32 (ties to even), as C's (float)x, held as a real: bit
// operations on the double, so the GPU's conversion rounding mode does not enter
#ifdef PX_FP32
PX_FN PX_REAL pxk_roundF32(PX_REAL x) {
  return x;
}
#else
PX_FN PX_REAL pxk_roundF32(PX_REAL x) {
  PX_UINT hi = PX_HI(x);
  PX_UINT lo = PX_LO(x);
  PX_UINT sign = hi & 0x80000000u;
  int e = PX_INT((hi >> 20) & 0x7FFu);
  if (e == 2047) return x;  // inf, NaN
  PXR ax = PX_ABS(x);
  if (e < 1023 - 126) {
    // below the smallest normal float: round to a multiple of 2^-149 (exact scalings; adding
    // and subtracting 2^52 rounds to an integer, ties to even)
    PXR up = PX_MKDBL((1023u + 149u) << 20, 0u);
    PXR dn = PX_MKDBL((1023u - 149u) << 20, 0u);
    PXR big = PX_MKDBL((1023u + 52u) << 20, 0u);
    PXR sc = ax * up;
    PXR t = sc + big;
    PXR k = t - big;
    PXR r = k * dn;
    PXR res = sign != 0u ? -r : r;
    return res;
  }
  // normal: keep 23 of the 52 fraction bits; a carry may raise the exponent
  PX_UINT rem = lo & 0x1FFFFFFFu;
  PX_UINT odd = (lo >> 29) & 1u;
  if (rem > 0x10000000u || (rem == 0x10000000u && odd == 1u)) {
    PX_UINT lo2 = lo + 0x20000000u;
    if (lo2 < lo) hi = hi + 1u;
    lo = lo2;
  }
  lo = lo & 0xE0000000u;
  int e2 = PX_INT((hi >> 20) & 0x7FFu);
  if (e2 > 1023 + 127) {
    PXR inf = PX_MKDBL(sign | 0x7FF00000u, 0u);
    return inf;
  }
  PXR res = PX_MKDBL(hi, lo);
  return res;
}
#endif

//---------------------------------- bounds --------------------------------------------------------

// 1 when body b has a geom that can collide (MuJoCo's canCollide)
PX_FN int pxk_bpCanCollide(PX_MDC int b) {
  return (M(body_contype, b) != 0 || M(body_conaffinity, b) != 0) ? 1 : 0;
}

// 1 when MuJoCo pairs body b with every body: the world with geoms, or a body without dofs
// holding a plane (static or mocap)
PX_FN int pxk_bpAlways(PX_MDC int b) {
  if (pxk_bpCanCollide(PX_MDARGC b) == 0) return 0;
  if (b == 0 && M(body_geomnum, b) > 0) return 1;
  if (M(body_dofnum, M(body_weldid, b)) != 0) return 0;
  int a = M(body_geomadr, b);
  for (int g = a; g < a + M(body_geomnum, b); g++) {
    if (M(geom_type, g) == PX_GEOM_PLANE) return 1;
  }
  return 0;
}

// bounds of body b along the rows of frame (makeAAMM): lo in aamm[0..2], hi in aamm[3..5]
PX_FN void pxk_bpAAMM(PX_MDC int b, PX_IN(PX_REAL, frame, 9), PX_OUT(PX_REAL, aamm, 6)) {
  PXR omargin = PX_ZERO;
  if ((MOPT(enableflags) & PX_ENBL_OVERRIDE) != 0) omargin = PX_R(0.5) * MOPT(o_margin);
  for (int k = 0; k < 6; k++) aamm[k] = PX_ZERO;
  int a = M(body_geomadr, b);
  for (int g = a; g < a + M(body_geomnum, b); g++) {
    PXR margin = omargin;
    if (omargin == 0) margin = M(geom_margin, g) + M(geom_gap, g);
    PXR xmat[9];
    PXR xpos[3];
    PXR cen[3];
    PXR size[3];
    for (int k = 0; k < 9; k++) xmat[k] = D(geom_xmat, 9 * g + k);
    for (int k = 0; k < 3; k++) {
      xpos[k] = D(geom_xpos, 3 * g + k);
      cen[k] = M(geom_aabb, 6 * g + k);
      size[k] = M(geom_aabb, 6 * g + 3 + k);
    }
    PXR pos[3];
    pxk_mulMatVec3(pos, xmat, cen);
    for (int k = 0; k < 3; k++) pos[k] = pos[k] + xpos[k];
    PXR rh = M(geom_rbound, g);
    PXR box[6];
    for (int j = 0; j < 3; j++) {
      PXR f0 = frame[3 * j];
      PXR f1 = frame[3 * j + 1];
      PXR f2 = frame[3 * j + 2];
      PXR bc = pos[0] * f0 + pos[1] * f1 + pos[2] * f2;
      PXR d0 = xmat[0] * f0 + xmat[3] * f1 + xmat[6] * f2;
      PXR d1 = xmat[1] * f0 + xmat[4] * f1 + xmat[7] * f2;
      PXR d2 = xmat[2] * f0 + xmat[5] * f1 + xmat[8] * f2;
      PXR h0 = size[0] * d0;
      PXR h1 = size[1] * d1;
      PXR h2 = size[2] * d2;
      PXR bh = PX_ABS(h0) + PX_ABS(h1) + PX_ABS(h2);
      PXR rc = xpos[0] * f0 + xpos[1] * f1 + xpos[2] * f2;
      PXR rlo = rc - rh;
      PXR blo = bc - bh;
      PXR rhi = rc + rh;
      PXR bhi = bc + bh;
      PXR lo = rlo >= blo ? rlo : blo;
      PXR hi = rhi <= bhi ? rhi : bhi;
      box[j] = lo - margin;
      box[j + 3] = hi + margin;
    }
    if (g == a) {
      for (int k = 0; k < 6; k++) aamm[k] = box[k];
    } else {
      for (int j = 0; j < 3; j++) {
        aamm[j] = aamm[j] <= box[j] ? aamm[j] : box[j];
        aamm[j + 3] = aamm[j + 3] >= box[j + 3] ? aamm[j + 3] : box[j + 3];
      }
    }
  }
}

//---------------------------------- sorting -------------------------------------------------------

// SAP keys in the scratch: values at real offset rv, ids at int offset iv (MuJoCo's SAPcmp
// ordering: a before b unless a < b fails and a == b fails, NaN included)
PX_FN int pxk_sapAfter(PX_REAL a, PX_REAL b) {
  return (a < b || a == b) ? 0 : 1;
}

// MuJoCo's mjSORT on n SAP keys at (rv0, iv0) with the buffer at (rv1, iv1): insertion sort of
// runs of 32, then bottom-up merges alternating between the two; the result ends at (rv0, iv0)
PX_FN void pxk_sapSort(PX_MDC int n, int rv0, int iv0, int rv1, int iv1) {
  for (int start = 0; start < n; start += 32) {
    int end = start + 32 < n ? start + 32 : n;
    for (int j = start + 1; j < end; j++) {
      PXR tv = PXK_SCR_R(rv0 + j);
      int ti = PXK_SCR_I(iv0 + j);
      int k = j - 1;
      while (k >= start && pxk_sapAfter(PXK_SCR_R(rv0 + k), tv) == 1) {
        PXK_SCR_R(rv0 + k + 1) = PXK_SCR_R(rv0 + k);
        PXK_SCR_I(iv0 + k + 1) = PXK_SCR_I(iv0 + k);
        k = k - 1;
      }
      PXK_SCR_R(rv0 + k + 1) = tv;
      PXK_SCR_I(iv0 + k + 1) = ti;
    }
  }
  int srcr = rv0;
  int srci = iv0;
  int dstr = rv1;
  int dsti = iv1;
  for (int len = 32; len < n; len *= 2) {
    for (int start = 0; start < n; start += 2 * len) {
      int mid = start + len;
      int end = start + 2 * len < n ? start + 2 * len : n;
      if (mid < end) {
        int i = start;
        int j = mid;
        int k = start;
        while (i < mid && j < end) {
          if (pxk_sapAfter(PXK_SCR_R(srcr + i), PXK_SCR_R(srcr + j)) == 0) {
            PXK_SCR_R(dstr + k) = PXK_SCR_R(srcr + i);
            PXK_SCR_I(dsti + k) = PXK_SCR_I(srci + i);
            i = i + 1;
          } else {
            PXK_SCR_R(dstr + k) = PXK_SCR_R(srcr + j);
            PXK_SCR_I(dsti + k) = PXK_SCR_I(srci + j);
            j = j + 1;
          }
          k = k + 1;
        }
        for (; i < mid; i++) {
          PXK_SCR_R(dstr + k) = PXK_SCR_R(srcr + i);
          PXK_SCR_I(dsti + k) = PXK_SCR_I(srci + i);
          k = k + 1;
        }
        for (; j < end; j++) {
          PXK_SCR_R(dstr + k) = PXK_SCR_R(srcr + j);
          PXK_SCR_I(dsti + k) = PXK_SCR_I(srci + j);
          k = k + 1;
        }
      } else {
        for (int i = start; i < end; i++) {
          PXK_SCR_R(dstr + i) = PXK_SCR_R(srcr + i);
          PXK_SCR_I(dsti + i) = PXK_SCR_I(srci + i);
        }
      }
    }
    int tr = srcr;
    int ti = srci;
    srcr = dstr;
    srci = dsti;
    dstr = tr;
    dsti = ti;
  }
  if (srcr != rv0) {
    for (int i = 0; i < n; i++) {
      PXK_SCR_R(rv0 + i) = PXK_SCR_R(srcr + i);
      PXK_SCR_I(iv0 + i) = PXK_SCR_I(srci + i);
    }
  }
}

// ascending heap sort of n distinct ints at int offset off (the body-pair signatures: any sort
// of distinct keys gives MuJoCo's bfsort order)
PX_FN void pxk_bpSiftDown(PX_MDC int off, int root0, int end) {
  int root = root0;
  while (2 * root + 1 < end) {
    int child = 2 * root + 1;
    int sw = root;
    if (PXK_SCR_I(off + sw) < PXK_SCR_I(off + child)) sw = child;
    if (child + 1 < end && PXK_SCR_I(off + sw) < PXK_SCR_I(off + child + 1)) sw = child + 1;
    if (sw == root) return;
    int t = PXK_SCR_I(off + root);
    PXK_SCR_I(off + root) = PXK_SCR_I(off + sw);
    PXK_SCR_I(off + sw) = t;
    root = sw;
  }
}

PX_FN void pxk_bpHeapSort(PX_MDC int off, int n) {
  for (int s = n / 2 - 1; s >= 0; s--) pxk_bpSiftDown(PX_MDARGC off, s, n);
  for (int end = n - 1; end > 0; end--) {
    int t = PXK_SCR_I(off);
    PXK_SCR_I(off) = PXK_SCR_I(off + end);
    PXK_SCR_I(off + end) = t;
    pxk_bpSiftDown(PX_MDARGC off, 0, end);
  }
}

#ifdef PX_KERN_C
// C-only sorts with the results of the two above (the GPU runs those).
//
// Without NaN keys MuJoCo's sort is a stable sort by value (its comparator is then a strict weak
// order, -0 and +0 tie), whose result is unique: an LSD radix sort of the float32 keys (mapped to
// ordered 32-bit integers, -0 as +0) over 8-bit digits gives it in O(n). Packed (key << 32 | id)
// in the real scratch [6 nbody, 10 nbody) through memcpy. Returns 0, having changed nothing, when
// a key is NaN (the caller then runs pxk_sapSort).
static inline int pxk_fastSapSort(const pxModel* m, pxData* d, int n) {
  int nb = m->nbody;
  double* rv = d->colscr_r + 6 * nb;
  double* rb = d->colscr_r + 8 * nb;
  int* iv = d->colscr_i + nb;
  for (int i = 0; i < n; i++) {
    if (rv[i] != rv[i]) return 0;
  }
  unsigned cnt[4][256];
  memset(cnt, 0, sizeof(cnt));
  for (int i = 0; i < n; i++) {
    float f = (float)rv[i];
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    if (f == 0) u = 0;
    u = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    uint64_t w = ((uint64_t)u << 32) | (uint32_t)iv[i];
    memcpy(rv + i, &w, sizeof(w));
    for (int k = 0; k < 4; k++) cnt[k][(u >> (8 * k)) & 0xFFu]++;
  }
  double* src = rv;
  double* dst = rb;
  for (int k = 0; k < 4; k++) {
    uint64_t w0;
    memcpy(&w0, src, sizeof(w0));
    if (cnt[k][(unsigned)(w0 >> (32 + 8 * k)) & 0xFFu] == (unsigned)n) continue;  // all share it
    unsigned pos[256];
    unsigned acc = 0;
    for (int j = 0; j < 256; j++) {
      pos[j] = acc;
      acc += cnt[k][j];
    }
    for (int i = 0; i < n; i++) {
      uint64_t w;
      memcpy(&w, src + i, sizeof(w));
      unsigned dig = (unsigned)(w >> (32 + 8 * k)) & 0xFFu;
      memcpy(dst + pos[dig]++, &w, sizeof(w));
    }
    double* t = src;
    src = dst;
    dst = t;
  }
  for (int i = 0; i < n; i++) {
    uint64_t w;
    memcpy(&w, src + i, sizeof(w));
    uint32_t u = (uint32_t)(w >> 32);
    iv[i] = (int)(uint32_t)w;
    u = (u & 0x80000000u) ? (u & 0x7FFFFFFFu) : ~u;
    float f;
    memcpy(&f, &u, sizeof(f));
    rv[i] = (double)f;  // the sorted keys, as pxk_sapSort leaves them
  }
  return 1;
}

// the npair distinct signatures at int offset 8 nbody sorted ascending (any sort of distinct
// keys gives the heap sort's result): counting sort by the first body, insertion sort within
// it, in the ints [0, 8 nbody) the sweep no longer needs; 0 when they do not fit
static inline int pxk_fastSigSort(const pxModel* m, pxData* d, int npair) {
  int nb = m->nbody;
  int* sig = d->colscr_i + 8 * nb;
  int* cnt = d->colscr_i;
  int* out = d->colscr_i + nb + 1;
  if ((long)npair + nb + 1 > 8L * nb) return 0;
  for (int b = 0; b <= nb; b++) cnt[b] = 0;
  for (int i = 0; i < npair; i++) cnt[(sig[i] >> 16) + 1]++;
  for (int b = 0; b < nb; b++) cnt[b + 1] += cnt[b];
  for (int i = 0; i < npair; i++) out[cnt[sig[i] >> 16]++] = sig[i];
  for (int j = 1; j < npair; j++) {
    int t = out[j];
    int k = j - 1;
    while (k >= 0 && out[k] > t) {
      out[k + 1] = out[k];
      k--;
    }
    out[k + 1] = t;
  }
  memcpy(sig, out, (size_t)npair * sizeof(int));
  return 1;
}
#endif  // PX_KERN_C

//---------------------------------- broad phase ---------------------------------------------------

// append body pair (b1, b2) as signature (min << 16) + max to the list of npair; returns npair
PX_FN int pxk_bpAdd(PX_MDC int b1, int b2, int npair) {
  if (npair >= PXK_NBPMAX) return npair;
  int lo = b1 < b2 ? b1 : b2;
  int hi = b1 < b2 ? b2 : b1;
  PXK_SCR_I(8 * MS(nbody) + npair) = lo * 65536 + hi;
  return npair + 1;
}

// MuJoCo's candidate body pairs (mj_broadphase), each once, ascending by signature, at int scratch
// offset 8 * nbody; returns their number
PX_FN int pxk_broadphase(PX_MD) {
  int nbody = MS(nbody);
  int ngeom = MS(ngeom);
  int oal = 7 * nbody;
  int npair = 0;

  // pairs with the always-colliding bodies
  for (int b = 0; b < nbody; b++) PXK_SCR_I(oal + b) = pxk_bpAlways(PX_MDARGC b);
  for (int b1 = 0; b1 < nbody; b1++) {
    if (PXK_SCR_I(oal + b1) == 0) continue;
    for (int b2 = 0; b2 < nbody; b2++) {
      if (pxk_bpCanCollide(PX_MDARGC b2) == 0) continue;
      if (PXK_SCR_I(oal + b2) == 1 && b2 < b1) continue;  // emitted from b2's row
      if (pxk_colBodyPairOff(PX_MDARGC b1, b2) == 1) continue;
      npair = pxk_bpAdd(PX_MDARGC b1, b2, npair);
    }
  }

  // centre and covariance of the geoms not on the world body
  int cnt = 0;
  PXR cen[3];
  for (int k = 0; k < 3; k++) cen[k] = PX_ZERO;
  for (int g = 0; g < ngeom; g++) {
    if (M(geom_bodyid, g) != 0) {
      for (int k = 0; k < 3; k++) cen[k] = cen[k] + D(geom_xpos, 3 * g + k);
      cnt = cnt + 1;
    }
  }
  if (cnt > 0) {
    PXR inv = PX_R(1.0) / PX_TOREAL(cnt);
    for (int k = 0; k < 3; k++) cen[k] = cen[k] * inv;
    PXR cov[9];
    for (int k = 0; k < 9; k++) cov[k] = PX_ZERO;
    for (int g = 0; g < ngeom; g++) {
      if (M(geom_bodyid, g) == 0) continue;
      PXR d0 = D(geom_xpos, 3 * g) - cen[0];
      PXR d1 = D(geom_xpos, 3 * g + 1) - cen[1];
      PXR d2 = D(geom_xpos, 3 * g + 2) - cen[2];
      PXR c00 = d0 * d0;
      PXR c01 = d0 * d1;
      PXR c02 = d0 * d2;
      PXR c11 = d1 * d1;
      PXR c12 = d1 * d2;
      PXR c22 = d2 * d2;
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
    PXR eigval[3];
    PXR frame[9];
    PXR quat[4];
    pxk_eig3(eigval, frame, quat, cov);

    // bounds of the collidable bodies but the world, SAP along the first row of the frame
    int nc = 0;
    for (int b = 1; b < nbody; b++) {
      if (pxk_bpCanCollide(PX_MDARGC b) == 1) {
        PXK_SCR_I(nc) = b;
        nc = nc + 1;
      }
    }
    if (nc > 1) {
      for (int i = 0; i < nc; i++) {
        PXR aamm[6];
        pxk_bpAAMM(PX_MDARGC PXK_SCR_I(i), frame, aamm);
        for (int k = 0; k < 6; k++) PXK_SCR_R(k * nbody + i) = aamm[k];
        PXK_SCR_R(6 * nbody + 2 * i) = pxk_roundF32(aamm[0]);
        PXK_SCR_I(nbody + 2 * i) = i;
        PXK_SCR_R(6 * nbody + 2 * i + 1) = pxk_roundF32(aamm[3]);
        PXK_SCR_I(nbody + 2 * i + 1) = i + 65536;
        PXK_SCR_I(6 * nbody + i) = -1;
      }
#ifdef PX_KERN_C
      if (pxk_fastSapSort(m, d, 2 * nc) == 0) {
        pxk_sapSort(PX_MDARGC 2 * nc, 6 * nbody, nbody, 8 * nbody, 3 * nbody);
      }
#else
      pxk_sapSort(PX_MDARGC 2 * nc, 6 * nbody, nbody, 8 * nbody, 3 * nbody);
#endif

#ifdef PX_KERN_C
      // (C: the active bodies' y and z bounds kept alongside the active list, in the reals
      // [6 nbody, 10 nbody) the sort no longer needs; the same pairs are found)
      int oact = 5 * nbody;
      int opos = 6 * nbody;
      int cntact = 0;
      double* aly = d->colscr_r + 6 * nbody;
      double* ahy = d->colscr_r + 7 * nbody;
      double* alz = d->colscr_r + 8 * nbody;
      double* ahz = d->colscr_r + 9 * nbody;
      const double* bnd = d->colscr_r;
      int* act = d->colscr_i + oact;
      int* apos = d->colscr_i + opos;
      const int* sid = d->colscr_i + nbody;
      for (int i = 0; i < 2 * nc; i++) {
        int id = sid[i];
        if (id < 65536) {
          double ly = bnd[nbody + id], hy = bnd[4 * nbody + id];
          double lz = bnd[2 * nbody + id], hz = bnd[5 * nbody + id];
          for (int j = 0; j < cntact; j++) {
            int sep = (aly[j] > hy) | (ly > ahy[j]) | (alz[j] > hz) | (lz > ahz[j]);
            if (sep) continue;
            int bf1 = d->colscr_i[act[j]];
            int bf2 = d->colscr_i[id];
            // pairs with an always-colliding body are in the list already
            if (d->colscr_i[oal + bf1] == 1 || d->colscr_i[oal + bf2] == 1) continue;
            if (pxk_colBodyPairOff(m, d, bf1, bf2) == 1) continue;
            npair = pxk_bpAdd(m, d, bf1, bf2, npair);
          }
          act[cntact] = id;
          aly[cntact] = ly;
          ahy[cntact] = hy;
          alz[cntact] = lz;
          ahz[cntact] = hz;
          apos[id] = cntact;
          cntact = cntact + 1;
        } else {
          int r = id - 65536;
          int p = apos[r];
          if (p >= 0) {
            int q = cntact - 1;
            int last = act[q];
            act[p] = last;
            aly[p] = aly[q];
            ahy[p] = ahy[q];
            alz[p] = alz[q];
            ahz[p] = ahz[q];
            apos[last] = p;
            apos[r] = -1;
            cntact = cntact - 1;
          }
        }
      }
#else
      // sweep: a body entering meets every active body whose y and z bounds overlap its own
      int oact = 5 * nbody;
      int opos = 6 * nbody;
      int cntact = 0;
      for (int i = 0; i < 2 * nc; i++) {
        int id = PXK_SCR_I(nbody + i);
        if (id < 65536) {
          for (int j = 0; j < cntact; j++) {
            int id1 = PXK_SCR_I(oact + j);
            if (PXK_SCR_R(nbody + id1) > PXK_SCR_R(4 * nbody + id) ||
                PXK_SCR_R(nbody + id) > PXK_SCR_R(4 * nbody + id1) ||
                PXK_SCR_R(2 * nbody + id1) > PXK_SCR_R(5 * nbody + id) ||
                PXK_SCR_R(2 * nbody + id) > PXK_SCR_R(5 * nbody + id1)) {
              continue;
            }
            int bf1 = PXK_SCR_I(id1);
            int bf2 = PXK_SCR_I(id);
            // pairs with an always-colliding body are in the list already
            if (PXK_SCR_I(oal + bf1) == 1 || PXK_SCR_I(oal + bf2) == 1) continue;
            if (pxk_colBodyPairOff(PX_MDARGC bf1, bf2) == 1) continue;
            npair = pxk_bpAdd(PX_MDARGC bf1, bf2, npair);
          }
          PXK_SCR_I(oact + cntact) = id;
          PXK_SCR_I(opos + id) = cntact;
          cntact = cntact + 1;
        } else {
          int r = id - 65536;
          int p = PXK_SCR_I(opos + r);
          if (p >= 0) {
            int last = PXK_SCR_I(oact + cntact - 1);
            PXK_SCR_I(oact + p) = last;
            PXK_SCR_I(opos + last) = p;
            PXK_SCR_I(opos + r) = -1;
            cntact = cntact - 1;
          }
        }
      }
#endif
    }
  }
#ifdef PX_KERN_C
  if (pxk_fastSigSort(m, d, npair) == 0) pxk_bpHeapSort(PX_MDARGC 8 * nbody, npair);
#else
  pxk_bpHeapSort(PX_MDARGC 8 * nbody, npair);
#endif
  return npair;
}

//---------------------------------- midphase ------------------------------------------------------

// 0 when geom boxes 1 and 2 (centre and half sizes in aabb1/aabb2, in their geom frames) are
// separated by more than margin along one of their six face normals (mj_collideOBB without the
// precomputed products, as MuJoCo calls it on leaves)
PX_FN int pxk_colOBB(PX_MDC int g1, int g2, PX_REAL margin) {
  PXR ab[12];
  PXR xm[18];
  PXR xp[6];
  for (int k = 0; k < 6; k++) {
    ab[k] = M(geom_aabb, 6 * g1 + k);
    ab[6 + k] = M(geom_aabb, 6 * g2 + k);
  }
  for (int k = 0; k < 9; k++) {
    xm[k] = D(geom_xmat, 9 * g1 + k);
    xm[9 + k] = D(geom_xmat, 9 * g2 + k);
  }
  for (int k = 0; k < 3; k++) {
    xp[k] = D(geom_xpos, 3 * g1 + k);
    xp[3 + k] = D(geom_xpos, 3 * g2 + k);
  }
  int inf[6];
  for (int i = 0; i < 2; i++) {
    for (int k = 0; k < 3; k++) inf[3 * i + k] = ab[6 * i + 3 + k] >= PXK_BR_MAXVAL ? 1 : 0;
  }
  if ((inf[0] == 1 && inf[1] == 1 && inf[2] == 1) || (inf[3] == 1 && inf[4] == 1 && inf[5] == 1)) {
    return 1;
  }
  int infinite[2];
  infinite[0] = (inf[0] == 1 || inf[1] == 1 || inf[2] == 1) ? 1 : 0;
  infinite[1] = (inf[3] == 1 || inf[4] == 1 || inf[5] == 1) ? 1 : 0;
  // centres in world coordinates
  PXR xc[6];
  for (int i = 0; i < 2; i++) {
    for (int r = 0; r < 3; r++) {
      PXR v = xm[9 * i + 3 * r] * ab[6 * i] + xm[9 * i + 3 * r + 1] * ab[6 * i + 1] +
              xm[9 * i + 3 * r + 2] * ab[6 * i + 2];
      xc[3 * i + r] = v + xp[3 * i + r];
    }
  }
  // face normal k of box j: column k of its rotation
  for (int j = 0; j < 2; j++) {
    if (infinite[1 - j] == 1) continue;
    for (int k = 0; k < 3; k++) {
      PXR n0 = xm[9 * j + k];
      PXR n1 = xm[9 * j + 3 + k];
      PXR n2 = xm[9 * j + 6 + k];
      PXR proj[2];
      PXR rad[2];
      for (int i = 0; i < 2; i++) {
        proj[i] = xc[3 * i] * n0 + xc[3 * i + 1] * n1 + xc[3 * i + 2] * n2;
        PXR s[3];
        for (int l = 0; l < 3; l++) {
          PXR dl = xm[9 * i + l] * n0 + xm[9 * i + 3 + l] * n1 + xm[9 * i + 6 + l] * n2;
          PXR hl = ab[6 * i + 3 + l] * dl;
          s[l] = PX_ABS(hl);
        }
        rad[i] = s[0] + s[1] + s[2];
      }
      PXR lhs = rad[0] + rad[1] + margin;
      PXR dp = proj[1] - proj[0];
      PXR adp = PX_ABS(dp);
      if (lhs < adp) return 0;
    }
  }
  return 1;
}

// 1 when MuJoCo's midphase lets geom g1 of body 1 and g2 of body 2 through to the narrow phase
// (the leaf test of mj_collideTree: both in the bounding-volume hierarchy, i.e. able to collide,
// bounding spheres and boxes within margin + gap); the intermediate nodes are not tested
PX_FN int pxk_colMidLeaf(PX_MDC int g1, int g2) {
  if (M(geom_contype, g1) == 0 && M(geom_conaffinity, g1) == 0) return 0;
  if (M(geom_contype, g2) == 0 && M(geom_conaffinity, g2) == 0) return 0;
  PXR margin = pxk_colMargin(PX_MDARGC g1, g2, -1);
  PXR gap = pxk_colGap(PX_MDARGC g1, g2, -1);
  PXR bound = margin + gap;
  if (pxk_colSphereOff(PX_MDARGC g1, g2, bound) == 1) return 0;
  return pxk_colOBB(PX_MDARGC g1, g2, bound);
}

//---------------------------------- bounding-volume hierarchies -----------------------------------
//
// MuJoCo's compiler builds a tree of boxes over each body's collidable geoms in the body's
// inertial frame (mjCBoundingVolumeHierarchy::MakeBVH): a node bounds the 8 corners of its geoms'
// boxes, splits at the median along its longest axis (ordered by the geoms' centres, ties within
// mjEPS by geom order), leaves hold one geom. phalanx's model has no bvh_* arrays, so the first
// collision of a world builds every body's tree into its scratch, as the compiler does (they
// depend on the model only: MuJoCo too keeps them from compile time), and the driver walks the
// two trees of a midphase body pair as mj_collideTree does: a node pair is opened only when its
// boxes meet within the bodies' margins (body_margin, or o_margin under override), which can drop
// geom pairs the leaf test alone keeps (override with gaps: nodes use o_margin, leaves
// o_margin + gaps).
//
// Scratch, for G = the most geoms on one body, NB = 2G, TB = 2 ngeom (body b's nodes from slot
// 2 geomadr[b]), after the pair list: ints from IB = 8 nbody + PXK_NBPMAX:
//   IB: 1 once the trees are built; [IB + 1, +nbody) nodes per body;
//   TI = IB + 1 + nbody: [TI, +TB) child 0, [TI + TB, +TB) child 1, [TI + 2 TB, +TB) the geom of a
//   leaf (-1: inner node); WI = TI + 3 TB: [WI, +G) the geoms being split, [WI + G, +4 NB) the
//   build stack, [WI + G + 4 NB, +4 NB) the walk stack, [WI + G + 8 NB, +G^2) leaf pairs reached;
// reals from RB = 10 nbody: [RB, +6 TB) node boxes (centre, half sizes), [RB + 6 TB, +3G) the
// geom centres in the inertial frame.
#define PXK_EPS PX_R(1E-14)
#ifdef PX_FP32
#define PXK_DBLMAX PX_R(3.4028234663852886E+38)  // the compiler's DBL_MAX start, in float
#else
#define PXK_DBLMAX PX_R(1.7976931348623157E+308)
#endif

PX_FN int pxk_bvhIB(PX_MD) {
  return 8 * MS(nbody) + PXK_NBPMAX;
}
PX_FN int pxk_bvhTI(PX_MD) {
  return 8 * MS(nbody) + PXK_NBPMAX + 1 + MS(nbody);
}
PX_FN int pxk_bvhWI(PX_MD) {
  return 8 * MS(nbody) + PXK_NBPMAX + 1 + MS(nbody) + 6 * MS(ngeom);
}

// vec rotated by quat, the compiler's way (mjuu_rotVecQuat: zero vector and null quaternion
// shortcuts)
PX_FN void pxk_rotVecQuatUser(PX_OUT(PX_REAL, res, 3), PX_IN(PX_REAL, vec, 3),
                              PX_IN(PX_REAL, quat, 4)) {
  if (vec[0] == 0 && vec[1] == 0 && vec[2] == 0) {
    res[0] = PX_ZERO;
    res[1] = PX_ZERO;
    res[2] = PX_ZERO;
  } else {
    pxk_rotVecQuat(res, vec, quat);
  }
}

// 1 when geom a comes before geom b along axis (centres at real offset rl, mjEPS ties by geom
// order)
PX_FN int pxk_bvhBefore(PX_MDC int rl, int a, int b, int adr, int axis) {
  PXR la = PXK_SCR_R(rl + 3 * (a - adr) + axis);
  PXR lb = PXK_SCR_R(rl + 3 * (b - adr) + axis);
  PXR dl = la - lb;
  PXR adl = PX_ABS(dl);
  if (adl > PXK_EPS) return la < lb ? 1 : 0;
  return a < b ? 1 : 0;
}

// build body b's tree into its slots; returns its number of nodes
PX_FN int pxk_bvhBuild(PX_MDC int b, int nmax) {
  int tb = 2 * MS(ngeom);
  int adr = M(body_geomadr, b);
  int ich = pxk_bvhTI(PX_MDARG) + 2 * adr;
  int iel = pxk_bvhWI(PX_MDARG);
  int ist = iel + nmax;
  int rbox = 10 * MS(nbody) + 6 * 2 * adr;
  int rl = 10 * MS(nbody) + 6 * tb;
  PXR ipos[3];
  PXR qinv[4];
  for (int k = 0; k < 3; k++) ipos[k] = M(body_ipos, 3 * b + k);
  qinv[0] = M(body_iquat, 4 * b);
  for (int k = 1; k < 4; k++) qinv[k] = -M(body_iquat, 4 * b + k);
  int ne = 0;
  for (int g = adr; g < adr + M(body_geomnum, b); g++) {
    if (M(geom_contype, g) == 0 && M(geom_conaffinity, g) == 0) continue;
    PXK_SCR_I(iel + ne) = g;
    PXR v[3];
    for (int k = 0; k < 3; k++) v[k] = M(geom_pos, 3 * g + k) - ipos[k];
    PXR lp[3];
    pxk_rotVecQuatUser(lp, v, qinv);
    for (int k = 0; k < 3; k++) PXK_SCR_R(rl + 3 * (g - adr) + k) = lp[k];
    ne = ne + 1;
  }
  if (ne == 0) return 0;
  int nbvh = 0;
  int nst = 1;
  PXK_SCR_I(ist) = 0;
  PXK_SCR_I(ist + 1) = ne;
  PXK_SCR_I(ist + 2) = -1;
  PXK_SCR_I(ist + 3) = 0;
  while (nst > 0) {
    nst = nst - 1;
    int s = PXK_SCR_I(ist + 4 * nst);
    int e = PXK_SCR_I(ist + 4 * nst + 1);
    int parent = PXK_SCR_I(ist + 4 * nst + 2);
    int side = PXK_SCR_I(ist + 4 * nst + 3);
    int index = nbvh;
    nbvh = nbvh + 1;
    if (parent >= 0) PXK_SCR_I(ich + side * tb + parent) = index;
    PXK_SCR_I(ich + index) = -1;
    PXK_SCR_I(ich + tb + index) = -1;
    PXK_SCR_I(ich + 2 * tb + index) = -1;
    // bounds of the corners of the geoms' boxes in the inertial frame
    PXR am[6];
    for (int k = 0; k < 3; k++) {
      am[k] = PXK_DBLMAX;
      am[k + 3] = -PXK_DBLMAX;
    }
    for (int x = s; x < e; x++) {
      int g = PXK_SCR_I(iel + x);
      PXR lo[3];
      PXR hi[3];
      PXR gq[4];
      PXR off[3];
      for (int k = 0; k < 3; k++) {
        lo[k] = M(geom_aabb, 6 * g + k) - M(geom_aabb, 6 * g + 3 + k);
        hi[k] = M(geom_aabb, 6 * g + k) + M(geom_aabb, 6 * g + 3 + k);
        off[k] = M(geom_pos, 3 * g + k) - ipos[k];
      }
      for (int k = 0; k < 4; k++) gq[k] = M(geom_quat, 4 * g + k);
      for (int v = 0; v < 8; v++) {
        PXR vert[3];
        vert[0] = (v & 1) != 0 ? hi[0] : lo[0];
        vert[1] = (v & 2) != 0 ? hi[1] : lo[1];
        vert[2] = (v & 4) != 0 ? hi[2] : lo[2];
        PXR box[3];
        pxk_rotVecQuatUser(box, vert, gq);
        for (int k = 0; k < 3; k++) box[k] = box[k] + off[k];
        PXR w[3];
        pxk_rotVecQuatUser(w, box, qinv);
        for (int k = 0; k < 3; k++) {
          am[k] = w[k] < am[k] ? w[k] : am[k];
          am[k + 3] = am[k + 3] < w[k] ? w[k] : am[k + 3];
        }
      }
    }
    for (int k = 0; k < 3; k++) {
      PXR dk = am[k] - am[k + 3];
      PXR adk = PX_ABS(dk);
      if (adk < PXK_EPS) {
        am[k] = am[k] - PXK_EPS;
        am[k + 3] = am[k + 3] + PXK_EPS;
      }
    }
    for (int k = 0; k < 3; k++) {
      PXR sc = am[k + 3] + am[k];
      PXR sh = am[k + 3] - am[k];
      PXK_SCR_R(rbox + 6 * index + k) = sc / PX_R(2.0);
      PXK_SCR_R(rbox + 6 * index + 3 + k) = sh / PX_R(2.0);
    }
    if (e - s == 1) {
      PXK_SCR_I(ich + 2 * tb + index) = PXK_SCR_I(iel + s);
      continue;
    }
    // split at the median along the longest axis (by mjEPS)
    PXR ed[3];
    for (int k = 0; k < 3; k++) ed[k] = am[k + 3] - am[k];
    int axis = 0;
    PXR e0 = ed[0] + PXK_EPS;
    if (ed[1] >= e0) axis = 1;
    PXR ea = ed[axis] + PXK_EPS;
    if (ed[2] >= ea) axis = 2;
    for (int j = s + 1; j < e; j++) {
      int gj = PXK_SCR_I(iel + j);
      int k = j - 1;
      while (k >= s && pxk_bvhBefore(PX_MDARGC rl, gj, PXK_SCR_I(iel + k), adr, axis) == 1) {
        PXK_SCR_I(iel + k + 1) = PXK_SCR_I(iel + k);
        k = k - 1;
      }
      PXK_SCR_I(iel + k + 1) = gj;
    }
    int mid = s + (e - s) / 2;
    PXK_SCR_I(ist + 4 * nst) = mid;
    PXK_SCR_I(ist + 4 * nst + 1) = e;
    PXK_SCR_I(ist + 4 * nst + 2) = index;
    PXK_SCR_I(ist + 4 * nst + 3) = 1;
    nst = nst + 1;
    PXK_SCR_I(ist + 4 * nst) = s;
    PXK_SCR_I(ist + 4 * nst + 1) = mid;
    PXK_SCR_I(ist + 4 * nst + 2) = index;
    PXK_SCR_I(ist + 4 * nst + 3) = 0;
    nst = nst + 1;
  }
  return nbvh;
}

// every body's tree, once per world (the flag at IB)
PX_FN void pxk_bvhBuildAll(PX_MDC int nmax) {
  int ib = pxk_bvhIB(PX_MDARG);
  if (PXK_SCR_I(ib) == 1) return;
  for (int b = 0; b < MS(nbody); b++) {
    int n = 0;
    if (M(body_geomnum, b) > 0) n = pxk_bvhBuild(PX_MDARGC b, nmax);
    PXK_SCR_I(ib + 1 + b) = n;
  }
  PXK_SCR_I(ib) = 1;
}

// mj_collideOBB on the node boxes at real offsets r1 and r2 (in the inertial frames of the two
// bodies), with the products of the frames' axes precomputed as MuJoCo does
PX_FN int pxk_bvhOBB(PX_MDC int r1, int r2, PX_IN(PX_REAL, product, 36), PX_IN(PX_REAL, offset, 12),
                     PX_REAL margin) {
  PXR ab[12];
  for (int k = 0; k < 6; k++) {
    ab[k] = PXK_SCR_R(r1 + k);
    ab[6 + k] = PXK_SCR_R(r2 + k);
  }
  int inf[6];
  for (int i = 0; i < 2; i++) {
    for (int k = 0; k < 3; k++) inf[3 * i + k] = ab[6 * i + 3 + k] >= PXK_BR_MAXVAL ? 1 : 0;
  }
  if ((inf[0] == 1 && inf[1] == 1 && inf[2] == 1) || (inf[3] == 1 && inf[4] == 1 && inf[5] == 1)) {
    return 1;
  }
  int infinite[2];
  infinite[0] = (inf[0] == 1 || inf[1] == 1 || inf[2] == 1) ? 1 : 0;
  infinite[1] = (inf[3] == 1 || inf[4] == 1 || inf[5] == 1) ? 1 : 0;
  for (int j = 0; j < 2; j++) {
    if (infinite[1 - j] == 1) continue;
    for (int k = 0; k < 3; k++) {
      PXR proj[2];
      PXR rad[2];
      for (int i = 0; i < 2; i++) {
        int a = 18 * i + 9 * j + 3 * k;
        proj[i] = ab[6 * i] * product[a] + ab[6 * i + 1] * product[a + 1] +
                  ab[6 * i + 2] * product[a + 2] + offset[6 * i + 3 * j + k];
        PXR h0 = ab[6 * i + 3] * product[a];
        PXR h1 = ab[6 * i + 4] * product[a + 1];
        PXR h2 = ab[6 * i + 5] * product[a + 2];
        rad[i] = PX_ABS(h0) + PX_ABS(h1) + PX_ABS(h2);
      }
      PXR lhs = rad[0] + rad[1] + margin;
      PXR dp = proj[1] - proj[0];
      PXR adp = PX_ABS(dp);
      if (lhs < adp) return 0;
    }
  }
  return 1;
}

// mj_collideTree for bodies b1 < b2 (nmax: the most geoms on a body): marks in the scratch the
// geom pairs (g1 of b1, g2 of b2) whose leaves MuJoCo's walk reaches and whose leaf test passes
PX_FN void pxk_collideTree(PX_MDC int b1, int b2, int nmax) {
  pxk_bvhBuildAll(PX_MDARGC nmax);
  int tb = 2 * MS(ngeom);
  int ti = pxk_bvhTI(PX_MDARG);
  int iwalk = pxk_bvhWI(PX_MDARG) + nmax + 8 * nmax;
  int imark = pxk_bvhWI(PX_MDARG) + nmax + 16 * nmax;
  int a1 = M(body_geomadr, b1);
  int a2 = M(body_geomadr, b2);
  int n1 = M(body_geomnum, b1);
  int n2 = M(body_geomnum, b2);
  for (int k = 0; k < n1 * n2; k++) PXK_SCR_I(imark + k) = 0;
  int nbvh1 = PXK_SCR_I(pxk_bvhIB(PX_MDARG) + 1 + b1);
  int nbvh2 = PXK_SCR_I(pxk_bvhIB(PX_MDARG) + 1 + b2);
  if (nbvh1 == 0 || nbvh2 == 0) return;
  int s1 = 2 * a1;  // the bodies' first node slots
  int s2 = 2 * a2;
  int rb = 10 * MS(nbody);
  // products of the inertial frames' axes and the offsets of their origins (mj_collideOBB)
  PXR product[36];
  PXR offset[12];
  PXR xm[18];
  PXR xp[6];
  for (int k = 0; k < 9; k++) {
    xm[k] = D(ximat, 9 * b1 + k);
    xm[9 + k] = D(ximat, 9 * b2 + k);
  }
  for (int k = 0; k < 3; k++) {
    xp[k] = D(xipos, 3 * b1 + k);
    xp[3 + k] = D(xipos, 3 * b2 + k);
  }
  for (int i = 0; i < 2; i++) {
    for (int j = 0; j < 2; j++) {
      for (int k = 0; k < 3; k++) {
        for (int l = 0; l < 3; l++) {
          product[18 * i + 9 * j + 3 * k + l] = xm[9 * i + l] * xm[9 * j + k] +
                                                xm[9 * i + 3 + l] * xm[9 * j + 3 + k] +
                                                xm[9 * i + 6 + l] * xm[9 * j + 6 + k];
        }
        offset[6 * i + 3 * j + k] = xp[3 * i] * xm[9 * j + k] + xp[3 * i + 1] * xm[9 * j + 3 + k] +
                                    xp[3 * i + 2] * xm[9 * j + 6 + k];
      }
    }
  }
  PXR msum = M(body_margin, b1) + M(body_margin, b2);
  PXR margin = (MOPT(enableflags) & PX_ENBL_OVERRIDE) != 0 ? MOPT(o_margin) : msum;
  int cap = nbvh1 + nbvh2;
  int nst = 1;
  PXK_SCR_I(iwalk) = 0;
  PXK_SCR_I(iwalk + 1) = 0;
  while (nst > 0) {
    nst = nst - 1;
    int node1 = PXK_SCR_I(iwalk + 2 * nst);
    int node2 = PXK_SCR_I(iwalk + 2 * nst + 1);
    int c10 = PXK_SCR_I(ti + s1 + node1);
    int c11 = PXK_SCR_I(ti + tb + s1 + node1);
    int c20 = PXK_SCR_I(ti + s2 + node2);
    int c21 = PXK_SCR_I(ti + tb + s2 + node2);
    int leaf1 = (c10 < 0 && c11 < 0) ? 1 : 0;
    int leaf2 = (c20 < 0 && c21 < 0) ? 1 : 0;
    if (leaf1 == 1 && leaf2 == 1) {
      int g1 = PXK_SCR_I(ti + 2 * tb + s1 + node1);
      int g2 = PXK_SCR_I(ti + 2 * tb + s2 + node2);
      if (pxk_colMidLeaf(PX_MDARGC g1, g2) == 1) PXK_SCR_I(imark + (g1 - a1) * n2 + (g2 - a2)) = 1;
      continue;
    }
    int r1 = rb + 6 * (s1 + node1);
    int r2 = rb + 6 * (s2 + node2);
    if (pxk_bvhOBB(PX_MDARGC r1, r2, product, offset, margin) == 0) continue;
    // open the inner node, or the one of larger surface (MuJoCo measures half size - centre)
    int open1 = 0;
    if (leaf1 == 0 && leaf2 == 1) open1 = 1;
    if (leaf1 == 0 && leaf2 == 0) {
      PXR e1[3];
      PXR e2[3];
      for (int k = 0; k < 3; k++) {
        e1[k] = PXK_SCR_R(r1 + 3 + k) - PXK_SCR_R(r1 + k);
        e2[k] = PXK_SCR_R(r2 + 3 + k) - PXK_SCR_R(r2 + k);
      }
      PXR surface1 = e1[0] * e1[1] + e1[1] * e1[2] + e1[2] * e1[0];
      PXR surface2 = e2[0] * e2[1] + e2[1] * e2[2] + e2[2] * e2[0];
      if (surface1 > surface2) open1 = 1;
    }
    for (int i = 0; i < 2; i++) {
      int c = open1 == 1 ? (i == 0 ? c10 : c11) : (i == 0 ? c20 : c21);
      if (c == -1 || nst >= cap) continue;
      PXK_SCR_I(iwalk + 2 * nst) = open1 == 1 ? c : node1;
      PXK_SCR_I(iwalk + 2 * nst + 1) = open1 == 1 ? node2 : c;
      nst = nst + 1;
    }
  }
}

// 1 when pxk_collideTree reached geom pair (g1 of b1, g2 of b2) and its leaf test passed
PX_FN int pxk_treeMarked(PX_MDC int b1, int b2, int g1, int g2, int nmax) {
  int imark = pxk_bvhWI(PX_MDARG) + nmax + 16 * nmax;
  int k = (g1 - M(body_geomadr, b1)) * M(body_geomnum, b2) + (g2 - M(body_geomadr, b2));
  return PXK_SCR_I(imark + k);
}

#endif  // PX_KERN_COLLIDE_BROAD_H_
