// SPDX-License-Identifier: Apache-2.0
// MuJoCo 3.12's Jacobians in the kernel dialect, one dof column at a time (no nv-sized
// locals): the column of dof i for a point attached to a body is
//   rotation    jacr_i = cdof_i[0:3]
//   translation jacp_i = cdof_i[3:6] + cdof_i[0:3] x (point - subtree_com[root(body)])
// and is nonzero only for the dofs on the chain from the body's weld parent up
// (pxk_jacLastDof, then m->dof_parentid). mj_jac, mj_jacBody/BodyCom/Site/Geom are that chain
// with the point chosen; mj_applyFT projects a force and torque at a point into generalized
// forces; mj_xfrcAccumulate applies every body's xfrc_applied at its com.
//   reads:  m->body_weldid/dofnum/dofadr/rootid, m->dof_parentid, d->cdof, d->subtree_com,
//           d->xipos, d->xfrc_applied
// Every float operation is in MuJoCo's order (engine_core_util.c, engine_support.c).
#ifndef PX_KERN_JAC_H_
#define PX_KERN_JAC_H_

#include "kern/kinematics.h"

// offset of a global point from the com of its body's kinematic tree
PX_FN void pxk_jacOffset(PX_MDC PX_OUT(PX_REAL, offset, 3), PX_IN(PX_REAL, point, 3), int body) {
  int root = M(body_rootid, body);
  for (int k = 0; k < 3; k++) offset[k] = point[k] - D(subtree_com, 3 * root + k);
}

// last dof moving `body` (the chain then follows dof_parentid), -1 for a body without dofs
PX_FN int pxk_jacLastDof(PX_MDC int body) {
  int weld = M(body_weldid, body);
  int n = M(body_dofnum, weld);
  return n == 0 ? -1 : M(body_dofadr, weld) + n - 1;
}

// the Jacobian column of dof i for the point at `offset` (pxk_jacOffset)
PX_FN void pxk_jacColumn(PX_MDC PX_OUT(PX_REAL, jacp, 3), PX_OUT(PX_REAL, jacr, 3),
                         PX_IN(PX_REAL, offset, 3), int dof) {
  PXR axis[3];
  PXR tmp[3];
  PXK_GET(3, axis, D, cdof, 6 * dof);
  pxk_cross(tmp, axis, offset);
  for (int k = 0; k < 3; k++) {
    jacr[k] = axis[k];
    jacp[k] = D(cdof, 6 * dof + 3 + k) + tmp[k];
  }
}

// J' f for one column: ((jac0 f0) + jac1 f1) + jac2 f2, skipping zero components of f as
// mju_mulMatTVec does
PX_FN PX_REAL pxk_jacColumnDot(PX_IN(PX_REAL, jac, 3), PX_IN(PX_REAL, f, 3)) {
  PXR res = PX_ZERO;
  for (int r = 0; r < 3; r++) {
    if (f[r] != PX_R(0.0)) res += jac[r] * f[r];
  }
  return res;
}

// Body of mj_applyFT: A(f, o + i) += J_i' force, then += J_i' torque, over the chain of `body`.
// force, torque and point are local 3-arrays; useForce/useTorque stand for MuJoCo's non-NULL.
#define PXK_APPLYFT_BODY(A, f, o, force, torque, point, body, useForce, useTorque)     \
  {                                                                                    \
    PXR off_[3];                                                                       \
    PXR jp_[3];                                                                        \
    PXR jr_[3];                                                                        \
    pxk_jacOffset(PX_MDARGC off_, point, body);                                        \
    for (int i_ = pxk_jacLastDof(PX_MDARGC body); i_ >= 0; i_ = M(dof_parentid, i_)) { \
      pxk_jacColumn(PX_MDARGC jp_, jr_, off_, i_);                                     \
      if ((useForce) != 0) {                                                           \
        PXR q_ = pxk_jacColumnDot(jp_, force);                                         \
        PXR t_ = A(f, (o) + i_) + q_;                                                  \
        A(f, (o) + i_) = t_;                                                           \
      }                                                                                \
      if ((useTorque) != 0) {                                                          \
        PXR q_ = pxk_jacColumnDot(jr_, torque);                                        \
        PXR t_ = A(f, (o) + i_) + q_;                                                  \
        A(f, (o) + i_) = t_;                                                           \
      }                                                                                \
    }                                                                                  \
  }

// define `PX_FN void name(PX_MDC force[3], torque[3], point[3], int body, int useForce,
// int useTorque)`: mj_applyFT into Data array `field` (sequential: lane 0 only)
#define PXK_DEFINE_APPLYFT(name, field)                                              \
  PX_FN void name(PX_MDC PX_IN(PX_REAL, force, 3), PX_IN(PX_REAL, torque, 3),        \
                  PX_IN(PX_REAL, point, 3), int body, int useForce, int useTorque) { \
    if (PX_LANE != 0) return;                                                        \
    PXK_APPLYFT_BODY(D, field, 0, force, torque, point, body, useForce, useTorque)   \
  }

// Body of mj_xfrcAccumulate into A(f, o + 0..nv-1): every body with a nonzero xfrc_applied, in
// body order, its force and torque applied at its com
#define PXK_XFRCACCUMULATE_BODY(A, f, o)                      \
  for (int b_ = 1; b_ < MS(nbody); b_++) {                    \
    PXR fr_[3];                                               \
    PXR tq_[3];                                               \
    PXR pt_[3];                                               \
    int nz_ = 0;                                              \
    for (int k_ = 0; k_ < 6; k_++) {                          \
      if (D(xfrc_applied, 6 * b_ + k_) != PX_R(0.0)) nz_ = 1; \
    }                                                         \
    if (nz_ == 0) continue;                                   \
    PXK_GET(3, fr_, D, xfrc_applied, 6 * b_);                 \
    PXK_GET(3, tq_, D, xfrc_applied, 6 * b_ + 3);             \
    PXK_GET(3, pt_, D, xipos, 3 * b_);                        \
    PXK_APPLYFT_BODY(A, f, o, fr_, tq_, pt_, b_, 1, 1)        \
  }

// mj_xfrcAccumulate into qfrc_smooth (the acceleration stage's use)
PX_FN void pxk_xfrcAccumulate_qfrc_smooth(PX_MD) {
  if (PX_LANE != 0) return;
  PXK_XFRCACCUMULATE_BODY(D, qfrc_smooth, 0)
}

#endif  // PX_KERN_JAC_H_
