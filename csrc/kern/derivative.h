// SPDX-License-Identifier: Apache-2.0
// Velocity derivatives of the smooth forces that the implicit integrators need, in the kernel
// dialect (MuJoCo 3.12's mjd_rne_vel with mjd_comVel_vel, the derivative of the bias force
// qfrc_bias with respect to qvel, subtracted from qDeriv by the full implicit integrator).
//   reads:  m->body_*, m->dof_*, m->jnt_type, m->B_*/D_*/M_* sparsity, d->cdof, cdof_dot, cvel,
//           cinert, qvel
//   writes: d->qDeriv (subtracts), the scratch rnevel_dcvel, rnevel_dcacc, rnevel_dcfrc (one
//           6-vector per nonzero of the body-dof pattern B) and rnevel_dcdofdot (one 6-vector
//           per nonzero of the dof-dof pattern D)
// The sparse derivative matrices have MuJoCo's internal layout: a body (B pattern) or a dof
// (D pattern) row is a list of 6-vectors, one per nonzero column, columns in increasing order.
// Everything is sequential on lane 0 in MuJoCo's order (tree passes that accumulate); the
// scratch is cleared lane-strided first. Products keep MuJoCo's operation order, including
// mju_mulMatMat's skipping of zero left factors and mju_dot's 4-way unrolled sums.
#ifndef PX_KERN_DERIVATIVE_H_
#define PX_KERN_DERIVATIVE_H_

#include "kern/smooth.h"

//---------------------------------- 6x6 derivative blocks -----------------------------------------

// res = d (vel x v) / d vel for motion vectors (mjd_crossMotion_vel)
PX_FN void pxk_dvCrossMotionVel(PX_OUT(PX_REAL, res, 36), PX_IN(PX_REAL, v, 6)) {
  for (int k = 0; k < 36; k++) res[k] = PX_R(0.0);
  res[2] = -v[1];
  res[1] = v[2];
  res[8] = v[0];
  res[6] = -v[2];
  res[13] = -v[0];
  res[12] = v[1];
  res[20] = -v[4];
  res[19] = v[5];
  res[23] = -v[1];
  res[22] = v[2];
  res[26] = v[3];
  res[24] = -v[5];
  res[29] = v[0];
  res[27] = -v[2];
  res[31] = -v[3];
  res[30] = v[4];
  res[34] = -v[0];
  res[33] = v[1];
}

// res = d (vel x f) / d vel for force vectors (mjd_crossForce_vel)
PX_FN void pxk_dvCrossForceVel(PX_OUT(PX_REAL, res, 36), PX_IN(PX_REAL, f, 6)) {
  for (int k = 0; k < 36; k++) res[k] = PX_R(0.0);
  res[2] = -f[1];
  res[1] = f[2];
  res[5] = -f[4];
  res[4] = f[5];
  res[8] = f[0];
  res[6] = -f[2];
  res[11] = f[3];
  res[9] = -f[5];
  res[13] = -f[0];
  res[12] = f[1];
  res[16] = -f[3];
  res[15] = f[4];
  res[20] = -f[4];
  res[19] = f[5];
  res[26] = f[3];
  res[24] = -f[5];
  res[31] = -f[3];
  res[30] = f[4];
}

// res = d (vel x f) / d f (mjd_crossForce_frc)
PX_FN void pxk_dvCrossForceFrc(PX_OUT(PX_REAL, res, 36), PX_IN(PX_REAL, vel, 6)) {
  for (int k = 0; k < 36; k++) res[k] = PX_R(0.0);
  res[1] = -vel[2];
  res[2] = vel[1];
  res[4] = -vel[5];
  res[5] = vel[4];
  res[6] = vel[2];
  res[8] = -vel[0];
  res[9] = vel[5];
  res[11] = -vel[3];
  res[12] = -vel[1];
  res[13] = vel[0];
  res[15] = -vel[4];
  res[16] = vel[3];
  res[22] = -vel[2];
  res[23] = vel[1];
  res[27] = vel[2];
  res[29] = -vel[0];
  res[33] = -vel[1];
  res[34] = vel[0];
}

// res = d (cinert * v) / d v (mjd_mulInertVec_vel)
PX_FN void pxk_dvMulInertVecVel(PX_OUT(PX_REAL, res, 36), PX_IN(PX_REAL, i, 10)) {
  for (int k = 0; k < 36; k++) res[k] = PX_R(0.0);
  res[0] = i[0];
  res[1] = i[3];
  res[2] = i[4];
  res[4] = -i[8];
  res[5] = i[7];
  res[6] = i[3];
  res[7] = i[1];
  res[8] = i[5];
  res[9] = i[8];
  res[11] = -i[6];
  res[12] = i[4];
  res[13] = i[5];
  res[14] = i[2];
  res[15] = -i[7];
  res[16] = i[6];
  res[19] = i[8];
  res[20] = -i[7];
  res[21] = i[9];
  res[26] = i[6];
  res[24] = -i[8];
  res[28] = i[9];
  res[30] = i[7];
  res[31] = -i[6];
  res[35] = i[9];
}

// res = a' for 6x6 a
PX_FN void pxk_dvTranspose6(PX_OUT(PX_REAL, res, 36), PX_IN(PX_REAL, a, 36)) {
  for (int r = 0; r < 6; r++) {
    for (int c = 0; c < 6; c++) res[6 * c + r] = a[6 * r + c];
  }
}

// res = a * b for 6x6 matrices, rows accumulated from zero over the nonzero entries of a
// (mju_mulMatMat)
PX_FN void pxk_dvMulMat6(PX_OUT(PX_REAL, res, 36), PX_IN(PX_REAL, a, 36), PX_IN(PX_REAL, b, 36)) {
  for (int k = 0; k < 36; k++) res[k] = PX_ZERO;
  for (int r = 0; r < 6; r++) {
    for (int k = 0; k < 6; k++) {
      PXR s = a[6 * r + k];
      if (s != PX_R(0.0)) {
        for (int c = 0; c < 6; c++) {
          PXR p = b[6 * k + c] * s;
          PXR x = res[6 * r + c] + p;
          res[6 * r + c] = x;
        }
      }
    }
  }
}

// row r (6 entries) of (rows of Data array src from 6-vector adr sadr) * T, T a 6x6 local:
// orow = sum over k with src[r][k] != 0 of src[r][k] * T[k][:], from zero (mju_mulMatMat)
#define PXK_DV_ROWMUL(orow, src, sadr, r, T)           \
  {                                                    \
    for (int c_ = 0; c_ < 6; c_++) orow[c_] = PX_ZERO; \
    for (int k_ = 0; k_ < 6; k_++) {                   \
      PXR s_ = D(src, 6 * ((sadr) + (r)) + k_);        \
      if (s_ != PX_R(0.0)) {                           \
        for (int c_ = 0; c_ < 6; c_++) {               \
          PXR p_ = T[6 * k_ + c_] * s_;                \
          PXR x_ = orow[c_] + p_;                      \
          orow[c_] = x_;                               \
        }                                              \
      }                                                \
    }                                                  \
  }

// number of dof ancestors of dof j, from the legacy dense-inertia addresses dof_Madr (the
// reduced M pattern drops structural zeros of simple bodies, so M_rownnz does not count them)
PX_FN int pxk_dvNumAncestors(PX_MDC int j) {
  int next = j < MS(nv) - 1 ? M(dof_Madr, j + 1) : MS(nM);
  return next - (M(dof_Madr, j) + 1);
}

//---------------------------------- sparse body rows ----------------------------------------------

// a body row inherits the nonzeros of its parent's row that belong to the shared ancestors, which
// lead every row (MuJoCo's copyFromParent); nothing when the parent is welded to the world
#define PXK_DV_COPYFROMPARENT(field, n)                                               \
  if ((n) != 0 && M(body_weldid, M(body_parentid, n)) != 0) {                         \
    int ndof_ = 0;                                                                    \
    int np_ = M(body_weldid, M(body_parentid, n));                                    \
    while (np_ > 0) {                                                                 \
      ndof_ += M(body_dofnum, np_);                                                   \
      np_ = M(body_weldid, M(body_parentid, np_));                                    \
    }                                                                                 \
    int dst_ = 6 * M(B_rowadr, n);                                                    \
    int src_ = 6 * M(B_rowadr, M(body_parentid, n));                                  \
    for (int k_ = 0; k_ < 6 * ndof_; k_++) D(field, dst_ + k_) = D(field, src_ + k_); \
  }

// the parent's row gains the child's row on their common columns (MuJoCo's addToParent; the
// child's columns are a subset of the parent's)
#define PXK_DV_ADDTOPARENT(field, n)                                        \
  if ((n) != 0 && M(body_weldid, M(body_parentid, n)) != 0) {               \
    int np_ = M(body_parentid, n);                                          \
    int i_ = 0;                                                             \
    int ip_ = 0;                                                            \
    while (i_ < M(B_rownnz, n) && ip_ < M(B_rownnz, np_)) {                 \
      int ci_ = M(B_colind, M(B_rowadr, n) + i_);                           \
      int cp_ = M(B_colind, M(B_rowadr, np_) + ip_);                        \
      if (ci_ == cp_) {                                                     \
        for (int k_ = 0; k_ < 6; k_++) {                                    \
          int a_ = 6 * (M(B_rowadr, np_) + ip_) + k_;                       \
          PXR x_ = D(field, a_) + D(field, 6 * (M(B_rowadr, n) + i_) + k_); \
          D(field, a_) = x_;                                                \
        }                                                                   \
        i_++;                                                               \
        ip_++;                                                              \
      } else if (ci_ > cp_) {                                               \
        ip_++;                                                              \
      } else {                                                              \
        i_++;                                                               \
      }                                                                     \
    }                                                                       \
  }

// row `pos` (a 6-vector) of body i's row of rnevel_dcvel += cdof of dof j
PX_FN void pxk_dvAddCdof(PX_MDC int i, int pos, int j) {
  int a = 6 * (M(B_rowadr, i) + pos);
  for (int k = 0; k < 6; k++) {
    PXR x = D(rnevel_dcvel, a + k) + D(cdof, 6 * j + k);
    D(rnevel_dcvel, a + k) = x;
  }
}

// the first n 6-vectors of dof j's row of rnevel_dcdofdot = (body i's row of rnevel_dcvel) *
// (d crossMotion(cvel, cdof_j) / d cvel)'
PX_FN void pxk_dvCdofdotRows(PX_MDC int i, int j, int n) {
  PXR mat[36];
  PXR matT[36];
  PXR orow[6];
  PXR cd[6];
  PXK_GET(6, cd, D, cdof, 6 * j);
  pxk_dvCrossMotionVel(mat, cd);
  pxk_dvTranspose6(matT, mat);
  int badr = M(B_rowadr, i);
  int dadr = 6 * M(D_rowadr, j);
  for (int r = 0; r < n; r++) {
    PXK_DV_ROWMUL(orow, rnevel_dcvel, badr, r, matT)
    PXK_PUT(6, D, rnevel_dcdofdot, dadr + 6 * r, orow);
  }
}

//---------------------------------- mjd_rne_vel ---------------------------------------------------

// derivatives of cvel and cdof_dot with respect to qvel (mjd_comVel_vel), lane 0
PX_FN void pxk_dvComVelVel(PX_MD) {
  for (int i = 1; i < MS(nbody); i++) {
    PXK_DV_COPYFROMPARENT(rnevel_dcvel, i)
    int doflast = M(body_dofadr, i) + M(body_dofnum, i);
    for (int j = M(body_dofadr, i); j < doflast; j++) {
      int jadr = pxk_dvNumAncestors(PX_MDARGC j);
      int type = M(jnt_type, M(dof_jntid, j));
      if (type == PX_JNT_FREE || type == PX_JNT_BALL) {
        if (type == PX_JNT_FREE) {
          // translations: no cdof_dot, cvel gains cdof
          for (int r = 0; r < 3; r++) pxk_dvAddCdof(PX_MDARGC i, jadr + r, j + r);
          j += 3;
          jadr += 3;
        }
        for (int r = 0; r < 3; r++) pxk_dvCdofdotRows(PX_MDARGC i, j + r, jadr + r);
        for (int r = 0; r < 3; r++) pxk_dvAddCdof(PX_MDARGC i, jadr + r, j + r);
        j += 2;
      } else {
        pxk_dvCdofdotRows(PX_MDARGC i, j, jadr);
        pxk_dvAddCdof(PX_MDARGC i, jadr, j);
      }
    }
  }
}

// qDeriv -= d qfrc_bias / d qvel (mjd_rne_vel)
PX_FN void pxk_rneVel(PX_MD) {
  for (int k = PX_LANE; k < 6 * MS(nD); k += PX_NLANE) D(rnevel_dcdofdot, k) = PX_R(0.0);
  for (int k = PX_LANE; k < 6 * MS(nB); k += PX_NLANE) {
    D(rnevel_dcvel, k) = PX_R(0.0);
    D(rnevel_dcacc, k) = PX_R(0.0);
    D(rnevel_dcfrc, k) = PX_R(0.0);
  }
  PX_SYNC();
  if (PX_LANE == 0) {
    PXR dmul[36];
    PXR mat[36];
    PXR mata[36];
    PXR matb[36];
    PXR inert[10];
    PXR vel[6];
    PXR tmp[6];
    PXR orow[6];

    pxk_dvComVelVel(PX_MDARG);

    // forward pass over bodies: Dcacc accumulates, Dcfrc of each body
    for (int i = 1; i < MS(nbody); i++) {
      PXK_DV_COPYFROMPARENT(rnevel_dcacc, i)
      int badr = M(B_rowadr, i);
      int bnnz = M(B_rownnz, i);
      int doflast = M(body_dofadr, i) + M(body_dofnum, i);
      for (int j = M(body_dofadr, i); j < doflast; j++) {
        int jadr = pxk_dvNumAncestors(PX_MDARGC j);

        // Dcacc += cdof_dot (D qvel), then Dcacc += (D cdof_dot) qvel (same sparsity)
        for (int k = 0; k < 6; k++) {
          PXR x = D(rnevel_dcacc, 6 * (badr + jadr) + k) + D(cdof_dot, 6 * j + k);
          D(rnevel_dcacc, 6 * (badr + jadr) + k) = x;
        }
        PXR v = D(qvel, j);
        int dadr = 6 * M(D_rowadr, j);
        for (int k = 0; k < 6 * bnnz; k++) {
          PXR p = D(rnevel_dcdofdot, dadr + k) * v;
          PXR x = D(rnevel_dcacc, 6 * badr + k) + p;
          D(rnevel_dcacc, 6 * badr + k) = x;
        }
      }

      // Dcfrc = (D mul / D cacc) Dcacc
      PXK_GET(10, inert, D, cinert, 10 * i);
      PXK_GET(6, vel, D, cvel, 6 * i);
      pxk_dvMulInertVecVel(dmul, inert);
      pxk_dvTranspose6(mata, dmul);
      for (int r = 0; r < bnnz; r++) {
        PXK_DV_ROWMUL(orow, rnevel_dcacc, badr, r, mata)
        PXK_PUT(6, D, rnevel_dcfrc, 6 * (badr + r), orow);
      }

      // mat = (D cross / D cvel) + (D cross / D mul) (D mul / D cvel)
      pxk_smMulInertVec(tmp, inert, vel);
      pxk_dvCrossForceVel(mat, tmp);
      pxk_dvCrossForceFrc(mata, vel);
      pxk_dvMulMat6(matb, mata, dmul);
      for (int k = 0; k < 36; k++) {
        PXR x = mat[k] + matb[k];
        mat[k] = x;
      }

      // Dcfrc += mat Dcvel
      pxk_dvTranspose6(mata, mat);
      for (int r = 0; r < bnnz; r++) {
        PXK_DV_ROWMUL(orow, rnevel_dcvel, badr, r, mata)
        for (int k = 0; k < 6; k++) {
          PXR x = D(rnevel_dcfrc, 6 * (badr + r) + k) + orow[k];
          D(rnevel_dcfrc, 6 * (badr + r) + k) = x;
        }
      }
    }

    // the world's row holds nothing; backward pass: bodies into their parents
    for (int k = 0; k < 6 * M(B_rownnz, 0); k++) D(rnevel_dcfrc, k) = PX_R(0.0);
    for (int i = MS(nbody) - 1; i > 0; i--) {
      PXK_DV_ADDTOPARENT(rnevel_dcfrc, i)
    }

    // qDeriv -= D(cdof . cfrc_body), on the leading nonzeros of each dof row
    for (int j = 0; j < MS(nv); j++) {
      int i = M(dof_bodyid, j);
      int badr = M(B_rowadr, i);
      int dadr = M(D_rowadr, j);
      PXK_GET(6, vel, D, cdof, 6 * j);
      for (int r = 0; r < M(B_rownnz, i); r++) {
        PXK_GET(6, tmp, D, rnevel_dcfrc, 6 * (badr + r));
        PXR row = pxk_smDot6(tmp, vel);
        PXR x = D(qDeriv, dadr + r) - row;
        D(qDeriv, dadr + r) = x;
      }
    }
  }
  PX_SYNC();
}

#endif  // PX_KERN_DERIVATIVE_H_
