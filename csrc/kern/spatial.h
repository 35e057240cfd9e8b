// SPDX-License-Identifier: Apache-2.0
// Small fixed-size vector, quaternion and matrix math in the kernel dialect.
//
// Every function takes local arrays (never buffers) and writes explicit out arrays; inputs and
// outputs never alias (GLSL copies parameters, C passes pointers). Formulas and operation
// order follow MuJoCo's engine_util_spatial.c and engine_inline.h.
#ifndef PX_KERN_SPATIAL_H_
#define PX_KERN_SPATIAL_H_

// smallest value MuJoCo treats as nonzero (mjMINVAL)
#define PXK_MINVAL PX_R(1E-15)

// res = vec
PX_FN void pxk_copy3(PX_OUT(PX_REAL, res, 3), PX_IN(PX_REAL, vec, 3)) {
  res[0] = vec[0];
  res[1] = vec[1];
  res[2] = vec[2];
}

PX_FN void pxk_copy4(PX_OUT(PX_REAL, res, 4), PX_IN(PX_REAL, vec, 4)) {
  res[0] = vec[0];
  res[1] = vec[1];
  res[2] = vec[2];
  res[3] = vec[3];
}

// res = a - b
PX_FN void pxk_sub3(PX_OUT(PX_REAL, res, 3), PX_IN(PX_REAL, a, 3), PX_IN(PX_REAL, b, 3)) {
  res[0] = a[0] - b[0];
  res[1] = a[1] - b[1];
  res[2] = a[2] - b[2];
}

// res = a x b
PX_FN void pxk_cross(PX_OUT(PX_REAL, res, 3), PX_IN(PX_REAL, a, 3), PX_IN(PX_REAL, b, 3)) {
  res[0] = a[1] * b[2] - a[2] * b[1];
  res[1] = a[2] * b[0] - a[0] * b[2];
  res[2] = a[0] * b[1] - a[1] * b[0];
}

// res = mat * vec (3x3, row-major)
PX_FN void pxk_mulMatVec3(PX_OUT(PX_REAL, res, 3), PX_IN(PX_REAL, mat, 9), PX_IN(PX_REAL, vec, 3)) {
  res[0] = mat[0] * vec[0] + mat[1] * vec[1] + mat[2] * vec[2];
  res[1] = mat[3] * vec[0] + mat[4] * vec[1] + mat[5] * vec[2];
  res[2] = mat[6] * vec[0] + mat[7] * vec[1] + mat[8] * vec[2];
}

// normalize a quaternion in place, MuJoCo's way: tiny norm gives the unit quaternion, a norm
// within MINVAL of 1 is left alone
PX_FN void pxk_normalize4(PX_INOUT(PX_REAL, vec, 4)) {
  PXR norm = PX_SQRT(vec[0] * vec[0] + vec[1] * vec[1] + vec[2] * vec[2] + vec[3] * vec[3]);
  if (norm < PXK_MINVAL) {
    vec[0] = PX_R(1.0);
    vec[1] = PX_R(0.0);
    vec[2] = PX_R(0.0);
    vec[3] = PX_R(0.0);
  }
  PXR dev = norm - PX_R(1.0);
  if (norm >= PXK_MINVAL && PX_ABS(dev) > PXK_MINVAL) {
    PXR inv = PX_R(1.0) / norm;
    vec[0] *= inv;
    vec[1] *= inv;
    vec[2] *= inv;
    vec[3] *= inv;
  }
}

// normalize a 3-vector in place and return its norm (mju_normalize3); tiny norm gives (1, 0, 0)
PX_FN PX_REAL pxk_normalize3(PX_INOUT(PX_REAL, vec, 3)) {
  PXR norm = PX_SQRT(vec[0] * vec[0] + vec[1] * vec[1] + vec[2] * vec[2]);
  if (norm < PXK_MINVAL) {
    vec[0] = PX_R(1.0);
    vec[1] = PX_R(0.0);
    vec[2] = PX_R(0.0);
  } else {
    PXR inv = PX_R(1.0) / norm;
    vec[0] *= inv;
    vec[1] *= inv;
    vec[2] *= inv;
  }
  return norm;
}

// normalize a 2-vector in place (mju_normalize with n = 2); tiny norm gives (1, 0)
PX_FN void pxk_normalize2(PX_INOUT(PX_REAL, vec, 2)) {
  PXR norm = PX_SQRT(vec[0] * vec[0] + vec[1] * vec[1]);
  if (norm < PXK_MINVAL) {
    vec[0] = PX_R(1.0);
    vec[1] = PX_R(0.0);
  } else {
    PXR inv = PX_R(1.0) / norm;
    vec[0] *= inv;
    vec[1] *= inv;
  }
}

// a . b (3-vectors)
PX_FN PX_REAL pxk_dot3(PX_IN(PX_REAL, a, 3), PX_IN(PX_REAL, b, 3)) {
  PXR r = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  return r;
}

// mat' * vec (3x3, row-major)
PX_FN void pxk_mulMatTVec3(PX_OUT(PX_REAL, res, 3), PX_IN(PX_REAL, mat, 9),
                           PX_IN(PX_REAL, vec, 3)) {
  res[0] = mat[0] * vec[0] + mat[3] * vec[1] + mat[6] * vec[2];
  res[1] = mat[1] * vec[0] + mat[4] * vec[1] + mat[7] * vec[2];
  res[2] = mat[2] * vec[0] + mat[5] * vec[1] + mat[8] * vec[2];
}

// res = qa * qb
PX_FN void pxk_mulQuat(PX_OUT(PX_REAL, res, 4), PX_IN(PX_REAL, qa, 4), PX_IN(PX_REAL, qb, 4)) {
  res[0] = qa[0] * qb[0] - qa[1] * qb[1] - qa[2] * qb[2] - qa[3] * qb[3];
  res[1] = qa[0] * qb[1] + qa[1] * qb[0] + qa[2] * qb[3] - qa[3] * qb[2];
  res[2] = qa[0] * qb[2] - qa[1] * qb[3] + qa[2] * qb[0] + qa[3] * qb[1];
  res[3] = qa[0] * qb[3] + qa[1] * qb[2] - qa[2] * qb[1] + qa[3] * qb[0];
}

// res = vec rotated by quat
PX_FN void pxk_rotVecQuat(PX_OUT(PX_REAL, res, 3), PX_IN(PX_REAL, vec, 3),
                          PX_IN(PX_REAL, quat, 4)) {
  if (quat[0] == PX_R(1.0) && quat[1] == PX_R(0.0) && quat[2] == PX_R(0.0) &&
      quat[3] == PX_R(0.0)) {
    res[0] = vec[0];
    res[1] = vec[1];
    res[2] = vec[2];
  } else {
    // tmp = q_w * v + q_xyz x v;  res = v + 2 * q_xyz x tmp
    PXR t0 = quat[0] * vec[0] + quat[2] * vec[2] - quat[3] * vec[1];
    PXR t1 = quat[0] * vec[1] + quat[3] * vec[0] - quat[1] * vec[2];
    PXR t2 = quat[0] * vec[2] + quat[1] * vec[1] - quat[2] * vec[0];
    res[0] = vec[0] + PX_R(2.0) * (quat[2] * t2 - quat[3] * t1);
    res[1] = vec[1] + PX_R(2.0) * (quat[3] * t0 - quat[1] * t2);
    res[2] = vec[2] + PX_R(2.0) * (quat[1] * t1 - quat[2] * t0);
  }
}

// quaternion of a rotation by angle around a unit axis
PX_FN void pxk_axisAngle2Quat(PX_OUT(PX_REAL, res, 4), PX_IN(PX_REAL, axis, 3), PX_REAL angle) {
  if (angle == PX_R(0.0)) {
    res[0] = PX_R(1.0);
    res[1] = PX_R(0.0);
    res[2] = PX_R(0.0);
    res[3] = PX_R(0.0);
  } else {
    PXR halfangle = angle * PX_R(0.5);
    PXR s = pxk_sin(halfangle);
    res[0] = pxk_cos(halfangle);
    res[1] = axis[0] * s;
    res[2] = axis[1] * s;
    res[3] = axis[2] * s;
  }
}

// rotation matrix of a unit quaternion
PX_FN void pxk_quat2Mat(PX_OUT(PX_REAL, res, 9), PX_IN(PX_REAL, quat, 4)) {
  if (quat[0] == PX_R(1.0) && quat[1] == PX_R(0.0) && quat[2] == PX_R(0.0) &&
      quat[3] == PX_R(0.0)) {
    res[0] = PX_R(1.0);
    res[1] = PX_R(0.0);
    res[2] = PX_R(0.0);
    res[3] = PX_R(0.0);
    res[4] = PX_R(1.0);
    res[5] = PX_R(0.0);
    res[6] = PX_R(0.0);
    res[7] = PX_R(0.0);
    res[8] = PX_R(1.0);
  } else {
    PXR q00 = quat[0] * quat[0];
    PXR q01 = quat[0] * quat[1];
    PXR q02 = quat[0] * quat[2];
    PXR q03 = quat[0] * quat[3];
    PXR q11 = quat[1] * quat[1];
    PXR q12 = quat[1] * quat[2];
    PXR q13 = quat[1] * quat[3];
    PXR q22 = quat[2] * quat[2];
    PXR q23 = quat[2] * quat[3];
    PXR q33 = quat[3] * quat[3];
    res[0] = q00 + q11 - q22 - q33;
    res[4] = q00 - q11 + q22 - q33;
    res[8] = q00 - q11 - q22 + q33;
    res[1] = PX_R(2.0) * (q12 - q03);
    res[2] = PX_R(2.0) * (q13 + q02);
    res[3] = PX_R(2.0) * (q12 + q03);
    res[5] = PX_R(2.0) * (q23 - q01);
    res[6] = PX_R(2.0) * (q13 - q02);
    res[7] = PX_R(2.0) * (q23 + q01);
  }
}

// inertia of a body in a frame at offset dif from its com, rotated by mat (MuJoCo's cinert)
PX_FN void pxk_inertCom(PX_OUT(PX_REAL, res, 10), PX_IN(PX_REAL, inert, 3), PX_IN(PX_REAL, mat, 9),
                        PX_IN(PX_REAL, dif, 3), PX_REAL mass) {
  PXR tmp[9];
  tmp[0] = mat[0] * inert[0];
  tmp[1] = mat[3] * inert[0];
  tmp[2] = mat[6] * inert[0];
  tmp[3] = mat[1] * inert[1];
  tmp[4] = mat[4] * inert[1];
  tmp[5] = mat[7] * inert[1];
  tmp[6] = mat[2] * inert[2];
  tmp[7] = mat[5] * inert[2];
  tmp[8] = mat[8] * inert[2];

  // rotational part: mat * diag(inert) * mat'
  res[0] = mat[0] * tmp[0] + mat[1] * tmp[3] + mat[2] * tmp[6];
  res[1] = mat[3] * tmp[1] + mat[4] * tmp[4] + mat[5] * tmp[7];
  res[2] = mat[6] * tmp[2] + mat[7] * tmp[5] + mat[8] * tmp[8];
  res[3] = mat[0] * tmp[1] + mat[1] * tmp[4] + mat[2] * tmp[7];
  res[4] = mat[0] * tmp[2] + mat[1] * tmp[5] + mat[2] * tmp[8];
  res[5] = mat[3] * tmp[2] + mat[4] * tmp[5] + mat[5] * tmp[8];

  // parallel axis: -= mass * [dif]x [dif]x
  res[0] += mass * (dif[1] * dif[1] + dif[2] * dif[2]);
  res[1] += mass * (dif[0] * dif[0] + dif[2] * dif[2]);
  res[2] += mass * (dif[0] * dif[0] + dif[1] * dif[1]);
  res[3] -= mass * dif[0] * dif[1];
  res[4] -= mass * dif[0] * dif[2];
  res[5] -= mass * dif[1] * dif[2];

  // translational part and mass
  res[6] = mass * dif[0];
  res[7] = mass * dif[1];
  res[8] = mass * dif[2];
  res[9] = mass;
}

#endif  // PX_KERN_SPATIAL_H_
