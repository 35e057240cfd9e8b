// SPDX-License-Identifier: Apache-2.0
// Jacobi eigen decomposition of a symmetric 3x3 matrix, following MuJoCo's compiler (mjuu_eig3):
// the accumulated rotation is kept as a quaternion, each step zeroes the largest off-diagonal
// element with a rotation about the remaining axis, and the result is bubble-sorted into
// decreasing order by 90-degree rotations. The helpers below reproduce MuJoCo's user-side vector
// utilities operation by operation (same order of floating-point operations), so that the
// results agree to the last bit when compiled without FMA contraction.
#include "util/eig3.h"

#include <math.h>

#include "util/quat.h"

static const double kEigEPS = 1e-12;   // off-diagonal and rotation tolerance
static const double kNormEPS = 1e-14;  // MuJoCo's mjEPS, used by its vector normalization

// normalize vector to unit length; leave it alone when its norm is tiny or already 1
static void normVec(double* vec, int n) {
  double nrm = 0;
  for (int i = 0; i < n; i++) nrm += vec[i] * vec[i];
  if (nrm < kNormEPS) return;
  nrm = sqrt(nrm);
  if (fabs(nrm - 1) > kNormEPS) {
    for (int i = 0; i < n; i++) vec[i] /= nrm;
  }
}

// res = A * B, all 3x3; res may alias A or B
static void mulMat3(double res[9], const double A[9], const double B[9]) {
  double tmp[9];
  for (int r = 0; r < 3; r++) {
    for (int c = 0; c < 3; c++) {
      tmp[3 * r + c] = A[3 * r] * B[c] + A[3 * r + 1] * B[3 + c] + A[3 * r + 2] * B[6 + c];
    }
  }
  for (int i = 0; i < 9; i++) res[i] = tmp[i];
}

// res = qa * qb, normalized; res may alias qa or qb
static void mulQuat(double res[4], const double qa[4], const double qb[4]) {
  double tmp[4];
  tmp[0] = qa[0] * qb[0] - qa[1] * qb[1] - qa[2] * qb[2] - qa[3] * qb[3];
  tmp[1] = qa[0] * qb[1] + qa[1] * qb[0] + qa[2] * qb[3] - qa[3] * qb[2];
  tmp[2] = qa[0] * qb[2] - qa[1] * qb[3] + qa[2] * qb[0] + qa[3] * qb[1];
  tmp[3] = qa[0] * qb[3] + qa[1] * qb[2] - qa[2] * qb[1] + qa[3] * qb[0];
  normVec(tmp, 4);
  for (int i = 0; i < 4; i++) res[i] = tmp[i];
}

void pxu_eig3(double eigval[3], double eigvec[9], double quat[4], const double mat[9]) {
  double D[9], tmp[9], tmp2[9];

  // initialize with unit quaternion
  quat[0] = 1;
  quat[1] = quat[2] = quat[3] = 0;

  // Jacobi iteration
  for (int iter = 0; iter < 500; iter++) {
    // D = eigvec' * mat * eigvec
    pxu_quat2Mat(eigvec, quat);
    for (int r = 0; r < 3; r++) {
      for (int c = 0; c < 3; c++) tmp2[3 * r + c] = eigvec[3 * c + r];
    }
    mulMat3(tmp, tmp2, mat);
    mulMat3(D, tmp, eigvec);

    // current eigenvalue estimates
    eigval[0] = D[0];
    eigval[1] = D[4];
    eigval[2] = D[8];

    // largest off-diagonal element: row rk, column ck, rotation axis rotk
    int rk, ck, rotk;
    if (fabs(D[1]) > fabs(D[2]) && fabs(D[1]) > fabs(D[5])) {
      rk = 0, ck = 1, rotk = 2;
    } else if (fabs(D[2]) > fabs(D[5])) {
      rk = 0, ck = 2, rotk = 1;
    } else {
      rk = 1, ck = 2, rotk = 0;
    }

    // converged: off-diagonal element negligible
    if (fabs(D[3 * rk + ck]) < kEigEPS) break;

    // 2x2 symmetric Schur decomposition
    double tau = (D[4 * ck] - D[4 * rk]) / (2 * D[3 * rk + ck]);
    double t;
    if (tau >= 0) {
      t = 1.0 / (tau + sqrt(1 + tau * tau));
    } else {
      t = -1.0 / (-tau + sqrt(1 + tau * tau));
    }
    double c = 1.0 / sqrt(1 + t * t);

    // converged: rotation negligible
    if (c > 1.0 - kEigEPS) break;

    // rotation as a quaternion about axis rotk
    tmp[1] = tmp[2] = tmp[3] = 0;
    tmp[rotk + 1] = (tau >= 0 ? -sqrt(0.5 - 0.5 * c) : sqrt(0.5 - 0.5 * c));
    if (rotk == 1) tmp[rotk + 1] = -tmp[rotk + 1];
    tmp[0] = sqrt(1.0 - tmp[rotk + 1] * tmp[rotk + 1]);
    normVec(tmp, 4);

    // accumulate
    mulQuat(quat, quat, tmp);
    normVec(quat, 4);
  }

  // sort eigenvalues in decreasing order (bubble sort over pairs 0, 1, 0)
  for (int j = 0; j < 3; j++) {
    int j1 = j % 2;
    if (eigval[j1] + kEigEPS < eigval[j1 + 1]) {
      double t = eigval[j1];
      eigval[j1] = eigval[j1 + 1];
      eigval[j1 + 1] = t;

      // swap the two axes by a 90-degree rotation about the third
      tmp[0] = 0.707106781186548;  // cos(pi/4) = sin(pi/4)
      tmp[1] = tmp[2] = tmp[3] = 0;
      tmp[(j1 + 2) % 3 + 1] = tmp[0];
      mulQuat(quat, quat, tmp);
      normVec(quat, 4);
    }
  }

  // eigenvectors from the final quaternion
  pxu_quat2Mat(eigvec, quat);
}
