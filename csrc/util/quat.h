// SPDX-License-Identifier: Apache-2.0
// Double-precision quaternion helpers of the compiler (MuJoCo's mjuu_ formulas), shared by the
// MJCF reader, the compiler, mesh processing and the eigen-solver. The kernels have their own,
// in the dialect (csrc/kern/spatial.h).
#ifndef PX_UTIL_QUAT_H_
#define PX_UTIL_QUAT_H_

// rotation matrix (row-major) of a quaternion; the exact identity for (1, 0, 0, 0)
void pxu_quat2Mat(double res[9], const double q[4]);

// res = a * b (res may alias a or b)
void pxu_mulQuat(double res[4], const double a[4], const double b[4]);

#endif  // PX_UTIL_QUAT_H_
