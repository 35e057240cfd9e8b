// SPDX-License-Identifier: Apache-2.0
// Smooth dynamics of MuJoCo 3.12 in the kernel dialect: composite rigid body inertia (crb, M
// in the compressed reduced layout of M_rownnz/M_rowadr/M_colind, tendon armature), its sparse
// L'DL factorization (qLD, qLDiagInv), solves and products with M on any real Data array,
// com-based velocities (cvel, cdof_dot), the bias force of recursive Newton-Euler without
// acceleration (qfrc_bias), subtree linear velocity and angular momentum, the 6D velocity of an
// object, and the acceleration stage (qfrc_smooth, qacc_smooth).
//   reads:  m->body_*, m->dof_*, m->jnt_actuatorid, m->tendon_actuatorid/armature,
//           m->actuator_*, m->M_*, m->ten_J_*, d->cinert, cdof, qvel, xipos, ximat, subtree_com,
//           d->ten_J, d->qfrc_passive/applied/actuator, d->xfrc_applied (through jac.h)
//   writes: d->crb, M, qLD, qLDiagInv, cvel, cdof_dot, qfrc_bias, rne_cacc, rne_cfrc (scratch),
//           subtree_linvel, subtree_angmom, qfrc_smooth, qacc_smooth
// Ordering: chains over bodies and the factorization are sequential on lane 0 in MuJoCo's
// order; rows of M are independent and lane-strided. Every float operation is in MuJoCo's order
// (engine_core_smooth.c, engine_util_spatial.c, engine_inline.h, engine_util_sparse.h).
#ifndef PX_KERN_SMOOTH_H_
#define PX_KERN_SMOOTH_H_

#include "kern/jac.h"
#include "kern/kinematics.h"

//---------------------------------- small 6D helpers ----------------------------------------------

// dot product of two 6-vectors in the order of MuJoCo's 4-way unrolled dot product
PX_FN PX_REAL pxk_smDot6(PX_IN(PX_REAL, a, 6), PX_IN(PX_REAL, b, 6)) {
  PXR s02 = a[0] * b[0] + a[2] * b[2];
  PXR s13 = a[1] * b[1] + a[3] * b[3];
  PXR s45 = a[4] * b[4] + a[5] * b[5];
  PXR res = (s02 + s13) + s45;
  return res;
}

// res = 6D inertia (cinert layout) * motion vector
PX_FN void pxk_smMulInertVec(PX_OUT(PX_REAL, res, 6), PX_IN(PX_REAL, i, 10), PX_IN(PX_REAL, v, 6)) {
  res[0] = i[0] * v[0] + i[3] * v[1] + i[4] * v[2] - i[8] * v[4] + i[7] * v[5];
  res[1] = i[3] * v[0] + i[1] * v[1] + i[5] * v[2] + i[8] * v[3] - i[6] * v[5];
  res[2] = i[4] * v[0] + i[5] * v[1] + i[2] * v[2] - i[7] * v[3] + i[6] * v[4];
  res[3] = i[8] * v[1] - i[7] * v[2] + i[9] * v[3];
  res[4] = i[6] * v[2] - i[8] * v[0] + i[9] * v[4];
  res[5] = i[7] * v[0] - i[6] * v[1] + i[9] * v[5];
}

// res = vel x v for motion vectors
PX_FN void pxk_smCrossMotion(PX_OUT(PX_REAL, res, 6), PX_IN(PX_REAL, vel, 6),
                             PX_IN(PX_REAL, v, 6)) {
  res[0] = -vel[2] * v[1] + vel[1] * v[2];
  res[1] = vel[2] * v[0] - vel[0] * v[2];
  res[2] = -vel[1] * v[0] + vel[0] * v[1];
  res[3] = -vel[2] * v[4] + vel[1] * v[5];
  res[4] = vel[2] * v[3] - vel[0] * v[5];
  res[5] = -vel[1] * v[3] + vel[0] * v[4];
  res[3] += -vel[5] * v[1] + vel[4] * v[2];
  res[4] += vel[5] * v[0] - vel[3] * v[2];
  res[5] += -vel[4] * v[0] + vel[3] * v[1];
}

// res = vel x f for force vectors
PX_FN void pxk_smCrossForce(PX_OUT(PX_REAL, res, 6), PX_IN(PX_REAL, vel, 6), PX_IN(PX_REAL, f, 6)) {
  res[0] = -vel[2] * f[1] + vel[1] * f[2];
  res[1] = vel[2] * f[0] - vel[0] * f[2];
  res[2] = -vel[1] * f[0] + vel[0] * f[1];
  res[3] = -vel[2] * f[4] + vel[1] * f[5];
  res[4] = vel[2] * f[3] - vel[0] * f[5];
  res[5] = -vel[1] * f[3] + vel[0] * f[4];
  res[0] += -vel[5] * f[4] + vel[4] * f[5];
  res[1] += vel[5] * f[3] - vel[3] * f[5];
  res[2] += -vel[4] * f[3] + vel[3] * f[4];
}

// res = sum over the n dofs from dof adr of cdof_j * vec_j, read from Data array `field` (cdof
// or cdof_dot) and vec from qvel; MuJoCo's mju_mulDofVec (n = 1 scales, n > 1 skips zeros)
#define PXK_SM_MULDOFVEC(res, field, adr, n)                                          \
  if (n == 1) {                                                                       \
    for (int k_ = 0; k_ < 6; k_++) res[k_] = D(field, 6 * (adr) + k_) * D(qvel, adr); \
  } else {                                                                            \
    for (int k_ = 0; k_ < 6; k_++) res[k_] = PX_ZERO;                                 \
    for (int r_ = 0; r_ < n; r_++) {                                                  \
      if (D(qvel, (adr) + r_) != PX_R(0.0)) {                                         \
        for (int k_ = 0; k_ < 6; k_++) {                                              \
          res[k_] += D(field, 6 * ((adr) + r_) + k_) * D(qvel, (adr) + r_);           \
        }                                                                             \
      }                                                                               \
    }                                                                                 \
  }

//---------------------------------- inertia -------------------------------------------------------

// armature a joint (isTendon = 0) or tendon (1) inherits from its actuators (mj_actuatorArmature)
PX_FN PX_REAL pxk_actuatorArmature(PX_MDC int isTendon, int id) {
  int act = isTendon != 0 ? M(tendon_actuatorid, id) : M(jnt_actuatorid, id);
  PXR armature = PX_ZERO;
  if (act >= 0) {
    PXR g = M(actuator_gear, 6 * M(actuator_outadr, act));
    PXR gear2 = g * g;
    armature = M(actuator_armature, act) * gear2;
  } else if (act < -1) {
    for (int k = 0; k < MS(nu); k++) {
      int trn = M(actuator_trntype, k);
      int ok = M(actuator_trnid, 2 * k) == id ? 1 : 0;
      if (isTendon == 0 && trn != PX_TRN_JOINT && trn != PX_TRN_JOINTINPARENT) ok = 0;
      if (isTendon != 0 && trn != PX_TRN_TENDON) ok = 0;
      if (ok != 0) {
        PXR g = M(actuator_gear, 6 * M(actuator_outadr, k));
        PXR gear2 = g * g;
        armature += M(actuator_armature, k) * gear2;
      }
    }
  }
  return armature;
}

#ifdef PX_KERN_C
// pxk_crbBodies's C fast path: the copy, then each parent += child in reverse body order (a
// child follows its parent, so the rows are disjoint; two lanes are two scalar additions)
PX_FN void pxk_crbBodies(PX_MD) {
  PX_REAL* restrict crb = d->crb;
  memcpy(crb, d->cinert, sizeof(PX_REAL) * 10 * (size_t)m->nbody);
  for (int i = m->nbody - 1; i >= 0; i--) {
    int p = m->body_parentid[i];
    if (p > 0) {
      PX_REAL* restrict cp = crb + 10 * p;
      const PX_REAL* restrict ci = crb + 10 * i;
      int k = 0;
#ifdef PX_SSE2
      for (; k < 10; k += 2) {
        _mm_storeu_pd(cp + k, _mm_add_pd(_mm_loadu_pd(cp + k), _mm_loadu_pd(ci + k)));
      }
#endif
      for (; k < 10; k++) cp[k] = cp[k] + ci[k];
    }
  }
}
#else
// composite inertias: crb = cinert accumulated into parents (sequential, reverse body order)
PX_FN void pxk_crbBodies(PX_MD) {
  for (int k = PX_LANE; k < 10 * MS(nbody); k += PX_NLANE) D(crb, k) = D(cinert, k);
  PX_SYNC();
  if (PX_LANE == 0) {
    for (int i = MS(nbody) - 1; i >= 0; i--) {
      int p = M(body_parentid, i);
      if (p > 0) {
        for (int k = 0; k < 10; k++) {
          PXR t = D(crb, 10 * p + k) + D(crb, 10 * i + k);
          D(crb, 10 * p + k) = t;
        }
      }
    }
  }
}
#endif

#ifdef PX_KERN_C
// pxk_crb's C fast path: the same operations in the same order through local pointers (M, crb
// and cdof are distinct arrays, so gcc keeps buf and the pointers in registers)
PX_FN void pxk_crb(PX_MD) {
  pxk_crbBodies(PX_MDARG);
  PX_REAL* restrict mm = d->M;
  const PX_REAL* restrict crb = d->crb;
  const PX_REAL* restrict cdof = d->cdof;
  const int* rowadr = m->M_rowadr;
  const int* rownnz = m->M_rownnz;
  const int* parent = m->dof_parentid;
  int nv = m->nv;
  PX_REAL buf[6];
  for (int k = 0; k < m->nC; k++) mm[k] = PX_R(0.0);
  for (int i = 0; i < nv; i++) {
    int adr = rowadr[i];
    if (m->dof_simplenum[i] != 0) {
      mm[adr] = m->dof_M0[i];
      continue;
    }
    int a = adr + rownnz[i] - 1;
    PX_REAL arm = m->dof_armature[i] + pxk_actuatorArmature(PX_MDARGC 0, m->dof_jntid[i]);
    mm[a] = arm;
    pxk_smMulInertVec(buf, crb + 10 * m->dof_bodyid[i], cdof + 6 * i);
#ifdef PX_SSE2
    // pxk_smDot6 in two lanes: (a0 b0 + a2 b2, a1 b1 + a3 b3), then + (a4 b4 + a5 b5)
    __m128d b01 = _mm_loadu_pd(buf);
    __m128d b23 = _mm_loadu_pd(buf + 2);
    __m128d b45 = _mm_loadu_pd(buf + 4);
    for (int j = i; j >= 0; j = parent[j]) {
      const PX_REAL* cj = cdof + 6 * j;
      __m128d p01 = _mm_mul_pd(_mm_loadu_pd(cj), b01);
      __m128d p23 = _mm_mul_pd(_mm_loadu_pd(cj + 2), b23);
      __m128d p45 = _mm_mul_pd(_mm_loadu_pd(cj + 4), b45);
      __m128d s = _mm_add_pd(p01, p23);
      PX_REAL s02 = _mm_cvtsd_f64(s);
      PX_REAL s13 = _mm_cvtsd_f64(_mm_unpackhi_pd(s, s));
      PX_REAL s45 = _mm_cvtsd_f64(p45) + _mm_cvtsd_f64(_mm_unpackhi_pd(p45, p45));
      PX_REAL dot = (s02 + s13) + s45;
      mm[a] = mm[a] + dot;
      a--;
    }
#else
    for (int j = i; j >= 0; j = parent[j]) {
      PX_REAL dot = pxk_smDot6(cdof + 6 * j, buf);
      mm[a] = mm[a] + dot;
      a--;
    }
#endif
  }
}
#else
// mj_crb: composite inertias, then the rows of M (independent, lane-strided)
PX_FN void pxk_crb(PX_MD) {
  PXR inert[10];
  PXR cd[6];
  PXR cj[6];
  PXR buf[6];

  pxk_crbBodies(PX_MDARG);
  for (int k = PX_LANE; k < MS(nC); k += PX_NLANE) D(M, k) = PX_R(0.0);
  PX_SYNC();
  for (int i = PX_LANE; i < MS(nv); i += PX_NLANE) {
    int adr = M(M_rowadr, i);

    // simple dof: the diagonal inertia at qpos0
    if (M(dof_simplenum, i) != 0) {
      D(M, adr) = M(dof_M0, i);
    } else {
      int a = adr + M(M_rownnz, i) - 1;
      PXR arm = M(dof_armature, i) + pxk_actuatorArmature(PX_MDARGC 0, M(dof_jntid, i));
      D(M, a) = arm;

      // buf = crb of the dof's body * cdof_i, then M(i, j) += cdof_j . buf over ancestors j
      PXK_GET(10, inert, D, crb, 10 * M(dof_bodyid, i));
      PXK_GET(6, cd, D, cdof, 6 * i);
      pxk_smMulInertVec(buf, inert, cd);
      for (int j = i; j >= 0; j = M(dof_parentid, j)) {
        PXK_GET(6, cj, D, cdof, 6 * j);
        PXR dot = pxk_smDot6(cj, buf);
        PXR t = D(M, a) + dot;
        D(M, a) = t;
        a--;
      }
    }
  }
}
#endif

// mj_tendonArmature: M += armature * ten_J' * ten_J on M's pattern (sequential: rows are shared)
PX_FN void pxk_tendonArmature(PX_MD) {
  if (PX_LANE != 0) return;
  for (int k = 0; k < MS(ntendon); k++) {
    PXR armature = M(tendon_armature, k) + pxk_actuatorArmature(PX_MDARGC 1, k);
    if (armature == PX_R(0.0)) continue;
    int jadr = M(ten_J_rowadr, k);
    int jnnz = M(ten_J_rownnz, k);
    for (int j = 0; j < jnnz; j++) {
      PXR tj = D(ten_J, jadr + j);
      if (tj == PX_R(0.0)) continue;
      int i = M(ten_J_colind, jadr + j);
      int madr = M(M_rowadr, i);
      int mnnz = M(M_rownnz, i);
      PXR scl = armature * tj;

      // merge the sorted column lists of row i of M and of the tendon Jacobian
      int as = 0;
      int ad = 0;
      while (as < jnnz && ad < mnnz) {
        int is = M(ten_J_colind, jadr + as);
        int id = M(M_colind, madr + ad);
        if (is == id) {
          PXR t = D(M, madr + ad) + scl * D(ten_J, jadr + as);
          D(M, madr + ad) = t;
          as++;
          ad++;
        } else if (is < id) {
          as++;
        } else {
          ad++;
        }
      }
    }
  }
}

// mj_makeM: crb, M, tendon armature
PX_FN void pxk_makeM(PX_MD) {
  pxk_crb(PX_MDARG);
  PX_SYNC();
  pxk_tendonArmature(PX_MDARG);
}

#ifdef PX_KERN_C
// C fast paths of the sparse L'DL factorization and solve (mj_factorI, mj_solveLD for one
// vector) on the reduced layout of M: the same operations in the same order per element through
// local pointers. A row update touches row i < k and reads row k; rows are disjoint ranges, so
// the update loop is element-wise with restrict pointers and gcc vectorizes it.
PX_FN void pxk_cFactorLD(const pxModel* m, PX_REAL* mat, PX_REAL* diaginv) {
  const int* rowadr = m->M_rowadr;
  const int* rownnz = m->M_rownnz;
  const int* colind = m->M_colind;
  for (int k = m->nv - 1; k >= 0; k--) {
    int start = rowadr[k];
    int diag = rownnz[k] - 1;
    int end = start + diag;
    PX_REAL invD = PX_R(1.0) / mat[end];
    diaginv[k] = invD;
    for (int adr = end - 1; adr >= start; adr--) {
      const PX_REAL* restrict rowk = mat + start;
      int i = colind[adr];
      PX_REAL nl = -mat[adr];
      PX_REAL scl = nl * invD;
      PX_REAL* restrict rowi = mat + rowadr[i];
      int n = rownnz[i];
      int c = 0;
#ifdef PX_SSE2
      __m128d s2 = _mm_set1_pd(scl);
      for (; c + 2 <= n; c += 2) {
        __m128d p = _mm_mul_pd(_mm_loadu_pd(rowk + c), s2);
        _mm_storeu_pd(rowi + c, _mm_add_pd(_mm_loadu_pd(rowi + c), p));
      }
#endif
      for (; c < n; c++) rowi[c] = rowi[c] + rowk[c] * scl;
    }
    PX_REAL* restrict rk = mat + start;
    int c = 0;
#ifdef PX_SSE2
    __m128d inv2 = _mm_set1_pd(invD);
    for (; c + 2 <= diag; c += 2) _mm_storeu_pd(rk + c, _mm_mul_pd(_mm_loadu_pd(rk + c), inv2));
#endif
    for (; c < diag; c++) rk[c] = rk[c] * invD;
  }
}

PX_FN void pxk_cSolveLD(const pxModel* m, const PX_REAL* restrict qld,
                        const PX_REAL* restrict diaginv, PX_REAL* restrict x) {
  const int* rowadr = m->M_rowadr;
  const int* rownnz = m->M_rownnz;
  const int* colind = m->M_colind;
  int nv = m->nv;
  for (int k = nv - 1; k >= 0; k--) {
    int nnz = rownnz[k];
    if (nnz == 1) continue;
    PX_REAL xk = x[k];
    if (xk != PX_R(0.0)) {
      int s = rowadr[k];
      for (int a = s; a < s + nnz - 1; a++) x[colind[a]] = x[colind[a]] - qld[a] * xk;
    }
  }
  for (int k = 0; k < nv; k++) x[k] = x[k] * diaginv[k];
  for (int k = 0; k < nv; k++) {
    int nnz = rownnz[k] - 1;
    if (nnz <= 0) continue;
    const PX_REAL* l = qld + rowadr[k];
    const int* ci = colind + rowadr[k];
    PX_REAL r0 = PX_ZERO;
    PX_REAL r1 = PX_ZERO;
    PX_REAL r2 = PX_ZERO;
    PX_REAL r3 = PX_ZERO;
    int i = 0;
    for (; i <= nnz - 4; i += 4) {
      r0 += l[i] * x[ci[i]];
      r1 += l[i + 1] * x[ci[i + 1]];
      r2 += l[i + 2] * x[ci[i + 2]];
      r3 += l[i + 3] * x[ci[i + 3]];
    }
    PX_REAL dot = (r0 + r2) + (r1 + r3);
    for (; i < nnz; i++) dot += l[i] * x[ci[i]];
    x[k] = x[k] - dot;
  }
}

PX_FN void pxk_factorM(PX_MD) {
  const PX_REAL* restrict src = d->M;
  PX_REAL* restrict dst = d->qLD;
  for (int k = 0; k < m->nC; k++) dst[k] = src[k];
  pxk_cFactorLD(m, d->qLD, d->qLDiagInv);
}
#else
// mj_factorM: qLD = M, then L'DL in place on the pattern of M (sequential backward over rows)
PX_FN void pxk_factorM(PX_MD) {
  for (int k = PX_LANE; k < MS(nC); k += PX_NLANE) D(qLD, k) = D(M, k);
  PX_SYNC();
  if (PX_LANE != 0) return;
  for (int k = MS(nv) - 1; k >= 0; k--) {
    int start = M(M_rowadr, k);
    int diag = M(M_rownnz, k) - 1;
    int end = start + diag;
    PXR invD = PX_R(1.0) / D(qLD, end);
    D(qLDiagInv, k) = invD;

    // rows i < k on the ancestor chain: row i -= row k's first entries * L(k, i) / L(k, k)
    for (int adr = end - 1; adr >= start; adr--) {
      int i = M(M_colind, adr);
      int iadr = M(M_rowadr, i);
      PXR nl = -D(qLD, adr);
      PXR scl = nl * invD;
      for (int c = 0; c < M(M_rownnz, i); c++) {
        PXR t = D(qLD, iadr + c) + D(qLD, start + c) * scl;
        D(qLD, iadr + c) = t;
      }
    }

    // row k's off-diagonals /= L(k, k)
    for (int c = 0; c < diag; c++) {
      PXR t = D(qLD, start + c) * invD;
      D(qLD, start + c) = t;
    }
  }
}
#endif

//---------------------------------- solves and products with M ------------------------------------

// Bodies of generic solves and products. A(f, i) is an accessor of element i of array f: D with
// a Data field (kernels), or a pointer accessor in C (the executor's utilities). Sequential.

// x = inv(L'DL) x, in place on A(f, o + 0..nv-1) (mj_solveLD for one vector)
#define PXK_SOLVELD_BODY(A, f, o)                                        \
  for (int k_ = MS(nv) - 1; k_ >= 0; k_--) {                             \
    int nnz_ = M(M_rownnz, k_);                                          \
    if (nnz_ == 1) continue;                                             \
    PXR xk_ = A(f, (o) + k_);                                            \
    if (xk_ != PX_R(0.0)) {                                              \
      int s_ = M(M_rowadr, k_);                                          \
      for (int a_ = s_; a_ < s_ + nnz_ - 1; a_++) {                      \
        int c_ = M(M_colind, a_);                                        \
        PXR t_ = A(f, (o) + c_) - D(qLD, a_) * xk_;                      \
        A(f, (o) + c_) = t_;                                             \
      }                                                                  \
    }                                                                    \
  }                                                                      \
  for (int k_ = 0; k_ < MS(nv); k_++) {                                  \
    PXR t_ = A(f, (o) + k_) * D(qLDiagInv, k_);                          \
    A(f, (o) + k_) = t_;                                                 \
  }                                                                      \
  for (int k_ = 0; k_ < MS(nv); k_++) {                                  \
    int nnz_ = M(M_rownnz, k_) - 1;                                      \
    if (nnz_ <= 0) continue;                                             \
    int s_ = M(M_rowadr, k_);                                            \
    PXR r0_ = PX_ZERO;                                                   \
    PXR r1_ = PX_ZERO;                                                   \
    PXR r2_ = PX_ZERO;                                                   \
    PXR r3_ = PX_ZERO;                                                   \
    int i_ = 0;                                                          \
    for (; i_ <= nnz_ - 4; i_ += 4) {                                    \
      r0_ += D(qLD, s_ + i_) * A(f, (o) + M(M_colind, s_ + i_));         \
      r1_ += D(qLD, s_ + i_ + 1) * A(f, (o) + M(M_colind, s_ + i_ + 1)); \
      r2_ += D(qLD, s_ + i_ + 2) * A(f, (o) + M(M_colind, s_ + i_ + 2)); \
      r3_ += D(qLD, s_ + i_ + 3) * A(f, (o) + M(M_colind, s_ + i_ + 3)); \
    }                                                                    \
    PXR dot_ = (r0_ + r2_) + (r1_ + r3_);                                \
    for (; i_ < nnz_; i_++) {                                            \
      dot_ += D(qLD, s_ + i_) * A(f, (o) + M(M_colind, s_ + i_));        \
    }                                                                    \
    PXR t_ = A(f, (o) + k_) - dot_;                                      \
    A(f, (o) + k_) = t_;                                                 \
  }

// A(r, ro + 0..nv-1) = M * B(v, vo + 0..nv-1), M symmetric from its lower triangle (mj_mulM)
#define PXK_MULM_BODY(A, r, ro, B, v, vo)                          \
  for (int k_ = 0; k_ < MS(nv); k_++) A(r, (ro) + k_) = PX_R(0.0); \
  for (int i_ = 0; i_ < MS(nv); i_++) {                            \
    int s_ = M(M_rowadr, i_);                                      \
    int dg_ = M(M_rownnz, i_) - 1;                                 \
    PXR vi_ = B(v, (vo) + i_);                                     \
    PXR t_ = D(M, s_ + dg_) * vi_;                                 \
    A(r, (ro) + i_) = t_;                                          \
    for (int k_ = dg_ - 1; k_ >= 0; k_--) {                        \
      int j_ = M(M_colind, s_ + k_);                               \
      PXR val_ = D(M, s_ + k_);                                    \
      PXR lo_ = A(r, (ro) + i_) + val_ * B(v, (vo) + j_);          \
      A(r, (ro) + i_) = lo_;                                       \
      PXR up_ = A(r, (ro) + j_) + val_ * vi_;                      \
      A(r, (ro) + j_) = up_;                                       \
    }                                                              \
  }

#ifdef PX_KERN_C
#define PXK_DEFINE_SOLVEM(name, field)                     \
  PX_FN void name(PX_MDC int off) {                        \
    pxk_cSolveLD(m, d->qLD, d->qLDiagInv, d->field + off); \
  }
#else
// define `PX_FN void name(PX_MDC int off)`: solve with M in place on Data array `field`
#define PXK_DEFINE_SOLVEM(name, field) \
  PX_FN void name(PX_MDC int off) {    \
    if (PX_LANE != 0) return;          \
    PXK_SOLVELD_BODY(D, field, off)    \
  }
#endif

// define `PX_FN void name(PX_MDC int roff, int voff)`: Data array res = M * Data array vec
#define PXK_DEFINE_MULM(name, res, vec)        \
  PX_FN void name(PX_MDC int roff, int voff) { \
    if (PX_LANE != 0) return;                  \
    PXK_MULM_BODY(D, res, roff, D, vec, voff)  \
  }

PXK_DEFINE_SOLVEM(pxk_solveM_qacc_smooth, qacc_smooth)

//---------------------------------- velocity ------------------------------------------------------

#ifdef PX_KERN_C
// res = sum over the n dofs from adr of cdof_j * qvel_j (PXK_SM_MULDOFVEC on C pointers)
PX_FN void pxk_cMulDofVec(PX_REAL* restrict res, const PX_REAL* restrict cdof,
                          const PX_REAL* restrict qvel, int adr, int n) {
  if (n == 1) {
    for (int k = 0; k < 6; k++) res[k] = cdof[6 * adr + k] * qvel[adr];
  } else {
    for (int k = 0; k < 6; k++) res[k] = PX_ZERO;
    for (int r = 0; r < n; r++) {
      PX_REAL v = qvel[adr + r];
      if (v != PX_R(0.0)) {
        for (int k = 0; k < 6; k++) res[k] += cdof[6 * (adr + r) + k] * v;
      }
    }
  }
}

// pxk_comVel's C fast path: the same operations in the same order through local pointers
PX_FN void pxk_comVel(PX_MD) {
  PX_REAL* restrict cvelall = d->cvel;
  PX_REAL* restrict cdofdot = d->cdof_dot;
  const PX_REAL* restrict cdof = d->cdof;
  const PX_REAL* restrict qvel = d->qvel;
  PX_REAL cvel[6];
  PX_REAL tmp[6];
  for (int k = 0; k < 6; k++) cvelall[k] = PX_R(0.0);
  for (int i = 1; i < m->nbody; i++) {
    const PX_REAL* pv = cvelall + 6 * m->body_parentid[i];
    for (int k = 0; k < 6; k++) cvel[k] = pv[k];
    int dofnum = m->body_dofnum[i];
    int bda = m->body_dofadr[i];
    for (int j = 0; j < dofnum; j++) {
      int jtype = m->jnt_type[m->dof_jntid[bda + j]];
      if (jtype == PX_JNT_FREE || jtype == PX_JNT_BALL) {
        if (jtype == PX_JNT_FREE) {
          for (int k = 0; k < 18; k++) cdofdot[6 * (bda + j) + k] = PX_R(0.0);
          pxk_cMulDofVec(tmp, cdof, qvel, bda + j, 3);
          for (int k = 0; k < 6; k++) cvel[k] += tmp[k];
          j += 3;
        }
        for (int r = 0; r < 3; r++) {
          pxk_smCrossMotion(cdofdot + 6 * (bda + j + r), cvel, cdof + 6 * (bda + j + r));
        }
        pxk_cMulDofVec(tmp, cdof, qvel, bda + j, 3);
        for (int k = 0; k < 6; k++) cvel[k] += tmp[k];
        j += 2;
      } else {
        pxk_smCrossMotion(cdofdot + 6 * (bda + j), cvel, cdof + 6 * (bda + j));
        pxk_cMulDofVec(tmp, cdof, qvel, bda + j, 1);
        for (int k = 0; k < 6; k++) cvel[k] += tmp[k];
      }
    }
    for (int k = 0; k < 6; k++) cvelall[6 * i + k] = cvel[k];
  }
}
#else
// mj_comVel: cvel and cdof_dot (sequential over bodies)
PX_FN void pxk_comVel(PX_MD) {
  PXR cvel[6];
  PXR tmp[6];
  PXR cd[6];
  PXR cdd[6];

  if (PX_LANE != 0) return;
  for (int k = 0; k < 6; k++) D(cvel, k) = PX_R(0.0);
  for (int i = 1; i < MS(nbody); i++) {
    PXK_GET(6, cvel, D, cvel, 6 * M(body_parentid, i));
    int dofnum = M(body_dofnum, i);
    int bda = M(body_dofadr, i);
    for (int j = 0; j < dofnum; j++) {
      int jtype = M(jnt_type, M(dof_jntid, bda + j));
      if (jtype == PX_JNT_FREE || jtype == PX_JNT_BALL) {
        if (jtype == PX_JNT_FREE) {
          // translations: no cdof_dot, velocity from the three linear dofs
          for (int k = 0; k < 18; k++) D(cdof_dot, 6 * (bda + j) + k) = PX_R(0.0);
          PXK_SM_MULDOFVEC(tmp, cdof, bda + j, 3)
          for (int k = 0; k < 6; k++) cvel[k] += tmp[k];
          j += 3;
        }

        // rotations: all three cdof_dot from the velocity before them
        for (int r = 0; r < 3; r++) {
          PXK_GET(6, cd, D, cdof, 6 * (bda + j + r));
          pxk_smCrossMotion(cdd, cvel, cd);
          PXK_PUT(6, D, cdof_dot, 6 * (bda + j + r), cdd);
        }
        PXK_SM_MULDOFVEC(tmp, cdof, bda + j, 3)
        for (int k = 0; k < 6; k++) cvel[k] += tmp[k];
        j += 2;
      } else {
        PXK_GET(6, cd, D, cdof, 6 * (bda + j));
        pxk_smCrossMotion(cdd, cvel, cd);
        PXK_PUT(6, D, cdof_dot, 6 * (bda + j), cdd);
        PXK_SM_MULDOFVEC(tmp, cdof, bda + j, 1)
        for (int k = 0; k < 6; k++) cvel[k] += tmp[k];
      }
    }
    PXK_PUT(6, D, cvel, 6 * i, cvel);
  }
}
#endif

#ifdef PX_KERN_C
// pxk_rneBias's C fast path: the same operations in the same order through local pointers
PX_FN void pxk_rneBias(PX_MD) {
  PX_REAL* restrict cacc = d->rne_cacc;
  PX_REAL* restrict cfrc = d->rne_cfrc;
  const PX_REAL* restrict cinert = d->cinert;
  const PX_REAL* restrict cvel = d->cvel;
  PX_REAL tmp[6];
  PX_REAL tmp1[6];
  PX_REAL frc[6];
  for (int k = 0; k < 6; k++) cacc[k] = PX_R(0.0);
  if ((m->opt.disableflags & PX_DSBL_GRAVITY) == 0) {
    for (int k = 0; k < 3; k++) {
      PX_REAL g = m->opt.gravity[k];
      cacc[3 + k] = g * PX_R(-1.0);
    }
  }
  for (int i = 1; i < m->nbody; i++) {
    pxk_cMulDofVec(tmp, d->cdof_dot, d->qvel, m->body_dofadr[i], m->body_dofnum[i]);
    const PX_REAL* pa = cacc + 6 * m->body_parentid[i];
    PX_REAL* acc = cacc + 6 * i;
    for (int k = 0; k < 6; k++) acc[k] = pa[k] + tmp[k];
    const PX_REAL* inert = cinert + 10 * i;
    const PX_REAL* vel = cvel + 6 * i;
    pxk_smMulInertVec(frc, inert, acc);
    pxk_smMulInertVec(tmp, inert, vel);
    pxk_smCrossForce(tmp1, vel, tmp);
    for (int k = 0; k < 6; k++) cfrc[6 * i + k] = frc[k] + tmp1[k];
  }
  for (int k = 0; k < 6; k++) cfrc[k] = PX_R(0.0);
  for (int i = m->nbody - 1; i > 0; i--) {
    int p = m->body_parentid[i];
    if (p != 0) {
      PX_REAL* restrict cp = cfrc + 6 * p;
      const PX_REAL* restrict ci = cfrc + 6 * i;
      int k = 0;
#ifdef PX_SSE2
      for (; k < 6; k += 2) {
        _mm_storeu_pd(cp + k, _mm_add_pd(_mm_loadu_pd(cp + k), _mm_loadu_pd(ci + k)));
      }
#endif
      for (; k < 6; k++) cp[k] = cp[k] + ci[k];
    }
  }
  for (int i = 0; i < m->nv; i++) {
    d->qfrc_bias[i] = pxk_smDot6(d->cdof + 6 * i, cfrc + 6 * m->dof_bodyid[i]);
  }
}
#else
// mj_rne without acceleration: qfrc_bias = cdof . (subtree sum of cinert cacc + cvel x cinert cvel)
// with cacc from -gravity and cdof_dot * qvel (scratch rne_cacc, rne_cfrc)
PX_FN void pxk_rneBias(PX_MD) {
  PXR tmp[6];
  PXR tmp1[6];
  PXR inert[10];
  PXR acc[6];
  PXR vel[6];
  PXR frc[6];
  PXR cd[6];

  if (PX_LANE == 0) {
    for (int k = 0; k < 6; k++) D(rne_cacc, k) = PX_R(0.0);
    if ((MOPT(disableflags) & PX_DSBL_GRAVITY) == 0) {
      for (int k = 0; k < 3; k++) {
        PXR g = MOPT(gravity)[k];
        PXR ng = g * PX_R(-1.0);
        D(rne_cacc, 3 + k) = ng;
      }
    }
    for (int i = 1; i < MS(nbody); i++) {
      int bda = M(body_dofadr, i);
      int dofnum = M(body_dofnum, i);
      int p = M(body_parentid, i);
      PXK_SM_MULDOFVEC(tmp, cdof_dot, bda, dofnum)
      for (int k = 0; k < 6; k++) acc[k] = D(rne_cacc, 6 * p + k) + tmp[k];
      PXK_PUT(6, D, rne_cacc, 6 * i, acc);

      PXK_GET(10, inert, D, cinert, 10 * i);
      PXK_GET(6, vel, D, cvel, 6 * i);
      pxk_smMulInertVec(frc, inert, acc);
      pxk_smMulInertVec(tmp, inert, vel);
      pxk_smCrossForce(tmp1, vel, tmp);
      for (int k = 0; k < 6; k++) frc[k] += tmp1[k];
      PXK_PUT(6, D, rne_cfrc, 6 * i, frc);
    }
    for (int k = 0; k < 6; k++) D(rne_cfrc, k) = PX_R(0.0);
    for (int i = MS(nbody) - 1; i > 0; i--) {
      int p = M(body_parentid, i);
      if (p != 0) {
        for (int k = 0; k < 6; k++) {
          PXR t = D(rne_cfrc, 6 * p + k) + D(rne_cfrc, 6 * i + k);
          D(rne_cfrc, 6 * p + k) = t;
        }
      }
    }
  }
  PX_SYNC();
  for (int i = PX_LANE; i < MS(nv); i += PX_NLANE) {
    PXK_GET(6, cd, D, cdof, 6 * i);
    PXK_GET(6, frc, D, rne_cfrc, 6 * M(dof_bodyid, i));
    PXR b = pxk_smDot6(cd, frc);
    D(qfrc_bias, i) = b;
  }
}
#endif

// the frame (pos, rot) of an object (body inertial frame, body frame, geom, site or camera) and
// the body it moves with, which this returns (mj_objectVelocity/Acceleration's object lookup)
PX_FN int pxk_smObjectFrame(PX_MDC int objtype, int objid, PX_OUT(PX_REAL, pos, 3),
                            PX_OUT(PX_REAL, rot, 9)) {
  int body = objid;
  if (objtype == PX_OBJ_BODY) {
    PXK_GET(3, pos, D, xipos, 3 * objid);
    PXK_GET(9, rot, D, ximat, 9 * objid);
  } else if (objtype == PX_OBJ_XBODY) {
    PXK_GET(3, pos, D, xpos, 3 * objid);
    PXK_GET(9, rot, D, xmat, 9 * objid);
  } else if (objtype == PX_OBJ_GEOM) {
    body = M(geom_bodyid, objid);
    PXK_GET(3, pos, D, geom_xpos, 3 * objid);
    PXK_GET(9, rot, D, geom_xmat, 9 * objid);
  } else if (objtype == PX_OBJ_SITE) {
    body = M(site_bodyid, objid);
    PXK_GET(3, pos, D, site_xpos, 3 * objid);
    PXK_GET(9, rot, D, site_xmat, 9 * objid);
  } else {
    body = M(cam_bodyid, objid);
    PXK_GET(3, pos, D, cam_xpos, 3 * objid);
    PXK_GET(9, rot, D, cam_xmat, 9 * objid);
  }
  return body;
}

// mj_objectVelocity: 6D velocity (rotation, translation) of an object at its frame origin, in
// the world orientation or (flg_local) in the object's own
PX_FN void pxk_objectVelocity(PX_MDC PX_OUT(PX_REAL, res, 6), int objtype, int objid,
                              int flg_local) {
  PXR pos[3];
  PXR rot[9];
  PXR vel[6];
  PXR dif[3];
  PXR cros[3];
  PXR tran[6];
  int body = pxk_smObjectFrame(PX_MDARGC objtype, objid, pos, rot);

  // dof-less body: at rest
  if (M(body_dofnum, M(body_weldid, body)) == 0) {
    for (int k = 0; k < 6; k++) res[k] = PX_R(0.0);
    return;
  }

  // shift the com-based velocity to pos, then rotate into the local frame if asked
  int root = M(body_rootid, body);
  PXK_GET(6, vel, D, cvel, 6 * body);
  for (int k = 0; k < 6; k++) tran[k] = vel[k];
  for (int k = 0; k < 3; k++) dif[k] = pos[k] - D(subtree_com, 3 * root + k);
  PXR ang[3];
  for (int k = 0; k < 3; k++) ang[k] = vel[k];
  pxk_cross(cros, dif, ang);
  for (int k = 0; k < 3; k++) tran[3 + k] = vel[3 + k] - cros[k];
  if (flg_local != 0) {
    for (int h = 0; h < 2; h++) {
      res[3 * h] = rot[0] * tran[3 * h] + rot[3] * tran[3 * h + 1] + rot[6] * tran[3 * h + 2];
      res[3 * h + 1] = rot[1] * tran[3 * h] + rot[4] * tran[3 * h + 1] + rot[7] * tran[3 * h + 2];
      res[3 * h + 2] = rot[2] * tran[3 * h] + rot[5] * tran[3 * h + 1] + rot[8] * tran[3 * h + 2];
    }
  } else {
    for (int k = 0; k < 6; k++) res[k] = tran[k];
  }
}

// body velocity at the com, momentum contribution of body i (first pass of mj_subtreeVel)
PX_FN void pxk_subtreeVelBody(PX_MDC PX_OUT(PX_REAL, bvel, 6), int i) {
  pxk_objectVelocity(PX_MDARGC bvel, PX_OBJ_BODY, i, 0);
}

// mj_subtreeVel: subtree linear velocity and angular momentum (sequential over bodies; body
// velocities are recomputed where needed instead of kept in scratch)
PX_FN void pxk_subtreeVel(PX_MD) {
  PXR bvel[6];
  PXR mat[9];
  PXR dv[3];
  PXR am[3];
  PXR dx[3];
  PXR dp[3];
  PXR dl[3];

  if (PX_LANE != 0) return;
  for (int i = 0; i < MS(nbody); i++) {
    pxk_subtreeVelBody(PX_MDARGC bvel, i);
    PXR mass = M(body_mass, i);
    for (int k = 0; k < 3; k++) {
      PXR lm = bvel[3 + k] * mass;
      D(subtree_linvel, 3 * i + k) = lm;
    }
    PXK_GET(9, mat, D, ximat, 9 * i);
    dv[0] = mat[0] * bvel[0] + mat[3] * bvel[1] + mat[6] * bvel[2];
    dv[1] = mat[1] * bvel[0] + mat[4] * bvel[1] + mat[7] * bvel[2];
    dv[2] = mat[2] * bvel[0] + mat[5] * bvel[1] + mat[8] * bvel[2];
    dv[0] *= M(body_inertia, 3 * i);
    dv[1] *= M(body_inertia, 3 * i + 1);
    dv[2] *= M(body_inertia, 3 * i + 2);
    pxk_mulMatVec3(am, mat, dv);
    PXK_PUT(3, D, subtree_angmom, 3 * i, am);
  }
  for (int i = MS(nbody) - 1; i >= 0; i--) {
    if (i != 0) {
      int p = M(body_parentid, i);
      for (int k = 0; k < 3; k++) {
        PXR t = D(subtree_linvel, 3 * p + k) + D(subtree_linvel, 3 * i + k);
        D(subtree_linvel, 3 * p + k) = t;
      }
    }
    PXR sm = M(body_subtreemass, i);
    PXR den = sm < PXK_MINVAL ? PXK_MINVAL : sm;
    PXR inv = PX_R(1.0) / den;
    for (int k = 0; k < 3; k++) {
      PXR t = D(subtree_linvel, 3 * i + k) * inv;
      D(subtree_linvel, 3 * i + k) = t;
    }
  }
  for (int i = MS(nbody) - 1; i > 0; i--) {
    int p = M(body_parentid, i);
    pxk_subtreeVelBody(PX_MDARGC bvel, i);
    PXR mass = M(body_mass, i);
    for (int k = 0; k < 3; k++) {
      dx[k] = D(xipos, 3 * i + k) - D(subtree_com, 3 * i + k);
      PXR v = bvel[3 + k] - D(subtree_linvel, 3 * i + k);
      dp[k] = v * mass;
    }
    pxk_cross(dl, dx, dp);
    for (int k = 0; k < 3; k++) {
      PXR t = D(subtree_angmom, 3 * i + k) + dl[k];
      D(subtree_angmom, 3 * i + k) = t;
    }
    for (int k = 0; k < 3; k++) {
      PXR t = D(subtree_angmom, 3 * p + k) + D(subtree_angmom, 3 * i + k);
      D(subtree_angmom, 3 * p + k) = t;
    }
    PXR stm = M(body_subtreemass, i);
    for (int k = 0; k < 3; k++) {
      dx[k] = D(subtree_com, 3 * i + k) - D(subtree_com, 3 * p + k);
      PXR v = D(subtree_linvel, 3 * i + k) - D(subtree_linvel, 3 * p + k);
      dp[k] = v * stm;
    }
    pxk_cross(dl, dx, dp);
    for (int k = 0; k < 3; k++) {
      PXR t = D(subtree_angmom, 3 * p + k) + dl[k];
      D(subtree_angmom, 3 * p + k) = t;
    }
  }
}

//---------------------------------- acceleration --------------------------------------------------

// mj_fwdAcceleration without the implicit effective metric (phalanx has no flex):
// qfrc_smooth = qfrc_passive - qfrc_bias + qfrc_applied + qfrc_actuator + J' xfrc_applied,
// qacc_smooth = M \ qfrc_smooth
PX_FN void pxk_fwdAcceleration(PX_MD) {
  for (int i = PX_LANE; i < MS(nv); i += PX_NLANE) {
    PXR s = D(qfrc_passive, i) - D(qfrc_bias, i);
    s += D(qfrc_applied, i);
    s += D(qfrc_actuator, i);
    D(qfrc_smooth, i) = s;
  }
  PX_SYNC();
  pxk_xfrcAccumulate_qfrc_smooth(PX_MDARG);
  PX_SYNC();
  for (int i = PX_LANE; i < MS(nv); i += PX_NLANE) D(qacc_smooth, i) = D(qfrc_smooth, i);
  PX_SYNC();
  pxk_solveM_qacc_smooth(PX_MDARGC 0);
}

// mj_fwdConstraint when there are no constraint rows: qacc = qacc_smooth, no constraint force
PX_FN void pxk_fwdConstraintNone(PX_MD) {
  for (int i = PX_LANE; i < MS(nv); i += PX_NLANE) {
    D(qfrc_constraint, i) = PX_R(0.0);
    D(qacc, i) = D(qacc_smooth, i);
  }
}

#endif  // PX_KERN_SMOOTH_H_
