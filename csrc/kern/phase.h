// SPDX-License-Identifier: Apache-2.0
// The phases of a step as sequences of the kernel stages, for the GPU executor's forward and
// step shaders (shaders/forward.comp, shaders/step.comp): the same stages in the same order as
// the CPU orchestration (csrc/engine/forward.c px_forward, csrc/engine/step.c px_step), with a
// barrier between dependent stages, so that the GPU's fp64 results equal the CPU's bit for bit.
//   pxk_phForward:    mj_forward as px_forward runs it (kinematics, tendons, inertia and its
//                     factorization, transmission, velocities, passive forces (zero until the
//                     passive stage lands), bias forces, actuation (zero until the actuation
//                     stage lands), acceleration, no constraint rows)
//   pxk_phIntegrate:  the Euler or implicitfast integrator and the state advance of mj_step
//                     (time excepted: the caller keeps it)
//   pxk_phResetRest:  the part of mj_resetData after every data array is zeroed (qpos0, SO3
//                     servo controls, eq_active0, mocap poses from the body frames)
//   PXK_PH_ANYBAD:    MuJoCo's bad-value test of mj_checkPos/Vel/Acc over a Data array, computed
//                     by every lane over the whole array so that all lanes agree
// Model support is checked on the host before any dispatch (px_forwardCheck,
// px_integratorCheck; RK4 keeps its stage states on the CPU heap and is refused on the GPU).
// Every stage here starts after a barrier: a stage may read what any lane of the previous one
// wrote.
#ifndef PX_KERN_PHASE_H_
#define PX_KERN_PHASE_H_

#include "kern/integrate.h"
#include "kern/jac.h"
#include "kern/kinematics.h"
#include "kern/smooth.h"
#include "kern/tendon.h"
#include "kern/transmission.h"

// mjMAXVAL: magnitudes above it count as bad values
#define PXK_PH_MAXVAL PX_R(1E10)

// res = 1 when Data array `field` holds a NaN or a value beyond +-1e10 among its first n
// elements (mj_checkPos/Vel/Acc), else 0; all lanes scan all elements (read only)
#define PXK_PH_ANYBAD(res, field, n)                                       \
  {                                                                        \
    res = 0;                                                               \
    for (int k_ = 0; k_ < (n); k_++) {                                     \
      PXR v_ = D(field, k_);                                               \
      if (isnan(v_) || v_ > PXK_PH_MAXVAL || v_ < -PXK_PH_MAXVAL) res = 1; \
    }                                                                      \
  }

// set Data array `field` (n elements) to zero, lane-strided
#define PXK_PH_ZERO(field, n) \
  for (int k_ = PX_LANE; k_ < (n); k_ += PX_NLANE) D(field, k_) = PX_R(0.0);

// mj_forward as px_forward runs it (the model was checked by px_forwardCheck)
PX_FN void pxk_phForward(PX_MD) {
  // position
  pxk_kinematics(PX_MDARG);
  PX_SYNC();
  pxk_tendon(PX_MDARG);
  PX_SYNC();
  pxk_makeM(PX_MDARG);
  PX_SYNC();
  pxk_factorM(PX_MDARG);
  PX_SYNC();
  pxk_transmission(PX_MDARG);
  PX_SYNC();

  // velocity
  pxk_tendonVelocity(PX_MDARG);
  PX_SYNC();
  pxk_comVel(PX_MDARG);
  PXK_PH_ZERO(qfrc_spring, MS(nv))
  PXK_PH_ZERO(qfrc_damper, MS(nv))
  PXK_PH_ZERO(qfrc_gravcomp, MS(nv))
  PXK_PH_ZERO(qfrc_fluid, MS(nv))
  PXK_PH_ZERO(qfrc_passive, MS(nv))
  PX_SYNC();
  pxk_rneBias(PX_MDARG);
  PX_SYNC();

  // actuation (off or absent: checked), acceleration, no constraint rows (checked)
  PXK_PH_ZERO(actuator_force, MS(nu))
  PXK_PH_ZERO(qfrc_actuator, MS(nv))
  PX_SYNC();
  pxk_fwdAcceleration(PX_MDARG);
  PX_SYNC();
  pxk_fwdConstraintNone(PX_MDARG);
  PX_SYNC();
}

// the model's integrator after pxk_phForward, then mj_advance without the time (Euler and
// implicitfast; the model was checked by px_integratorCheck and RK4 refused)
PX_FN void pxk_phIntegrate(PX_MD) {
  if (MOPT(integrator) == PX_INT_IMPLICITFAST) {
    pxk_implicitDeriv(PX_MDARG);
    pxk_implicitSolve(PX_MDARGC 0);
  } else {
    pxk_euler(PX_MDARGC 0);
  }
  PX_SYNC();
  pxk_advanceAct(PX_MDARG);
  pxk_advanceVel(PX_MDARG);
  pxk_advancePos(PX_MDARG);
}

// mj_resetData after every data array was set to zero (time is the caller's): qpos0, the
// identity quaternion of SO3 servo controls, eq_active0, mocap poses from the body frames
PX_FN void pxk_phResetRest(PX_MD) {
  for (int i = PX_LANE; i < MS(nq); i += PX_NLANE) D(qpos, i) = M(qpos0, i);
  for (int i = PX_LANE; i < MS(nu); i += PX_NLANE) {
    if (M(actuator_gaintype, i) == PX_GAIN_SO3 && M(actuator_ctrlspec, i) == 2) {
      D(ctrl, M(actuator_ctrladr, i)) = PX_R(1.0);
    }
  }
  for (int i = PX_LANE; i < MS(neq); i += PX_NLANE) D(eq_active, i) = M(eq_active0, i);
  for (int i = PX_LANE; i < MS(nbody); i += PX_NLANE) {
    int id = M(body_mocapid, i);
    if (id >= 0) {
      for (int k = 0; k < 3; k++) D(mocap_pos, 3 * id + k) = M(body_pos, 3 * i + k);
      for (int k = 0; k < 4; k++) D(mocap_quat, 4 * id + k) = M(body_quat, 4 * i + k);
    }
  }
  PX_SYNC();
}

#endif  // PX_KERN_PHASE_H_
