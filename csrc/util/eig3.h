// SPDX-License-Identifier: Apache-2.0
// Eigen decomposition of a symmetric 3x3 matrix by Jacobi rotations, bit-compatible with the
// solver MuJoCo's compiler uses for principal axes of inertia (mjuu_eig3; mju_eig3 in the engine
// is the same algorithm).
#ifndef PX_UTIL_EIG3_H_
#define PX_UTIL_EIG3_H_

// Eigenvalues and eigenvectors of the symmetric 3x3 matrix mat (row-major).
//   eigval: eigenvalues in decreasing order (values closer than 1e-12 are not reordered)
//   eigvec: rotation matrix whose columns are the eigenvectors, eigvec = quat2mat(quat)
//   quat:   unit quaternion (w, x, y, z) of eigvec, so that mat = R diag(eigval) R'
// The Jacobi sweep, the pivot choice, the rotation signs and the final sort are MuJoCo's, so
// the axes come out in the same order and with the same signs.
void pxu_eig3(double eigval[3], double eigvec[9], double quat[4], const double mat[9]);

#endif  // PX_UTIL_EIG3_H_
