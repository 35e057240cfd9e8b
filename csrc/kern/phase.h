// SPDX-License-Identifier: Apache-2.0
// The phases of a step as sequences of the kernel stages, for the GPU executor's forward and
// step shaders (shaders/forward.comp, shaders/step.comp): the same stages in the same order as
// the CPU orchestration (csrc/engine/forward.c px_forward, csrc/engine/step.c px_step), with a
// barrier between dependent stages, so that the GPU's fp64 results equal the CPU's bit for bit.
//   pxk_phForward:    mj_forward, the one sequence that px_forward (csrc/engine/forward.c) runs
//                     too (kinematics, tendons, inertia and its factorization, transmission,
//                     potential energy, velocities, passive forces, bias forces with the tendon
//                     armature bias, kinetic energy, actuation, acceleration, no constraint rows)
//   pxk_phIntegrate:  the Euler, implicit or implicitfast integrator and the state advance of
//                     mj_step (time excepted: the caller keeps it)
//   pxk_phRk4Stage, pxk_phRk4Restore, pxk_phRk4Advance:
//                     RK4 (mj_RungeKutta) around its forward passes
//   pxk_phResetRest:  the part of mj_resetData after every data array is zeroed (qpos0, SO3
//                     servo controls, eq_active0, mocap poses from the body frames)
//   PXK_PH_FIRSTBAD:  MuJoCo's bad-value test of mj_checkPos/Vel/Acc over a Data array (the first
//                     bad index), computed by every lane over the whole array so that all lanes
//                     agree; pxk_phWarn counts a warning as mj_warning does
// Model support is checked on the host before any dispatch (px_forwardCheck, px_integratorCheck).
// Every stage here starts after a barrier: a stage may read what any lane of the previous one
// wrote.
#ifndef PX_KERN_PHASE_H_
#define PX_KERN_PHASE_H_

#include "kern/actuation.h"
#include "kern/derivative.h"
#include "kern/integrate.h"
#include "kern/jac.h"
#include "kern/kinematics.h"
#include "kern/passive.h"
#include "kern/post.h"
#include "kern/smooth.h"
#include "kern/tendon.h"
#include "kern/tendonbias.h"
#include "kern/transmission.h"

// mjMAXVAL: magnitudes above it count as bad values
#define PXK_PH_MAXVAL PX_R(1E10)

// res = the first index among the first n elements of Data array `field` that holds a NaN or a
// value beyond +-1e10 (mj_checkPos/Vel/Acc), else -1; all lanes scan all elements (read only)
#define PXK_PH_FIRSTBAD(res, field, n)                                      \
  {                                                                         \
    res = -1;                                                               \
    for (int k_ = (n)-1; k_ >= 0; k_--) {                                   \
      PXR v_ = D(field, k_);                                                \
      if (isnan(v_) || v_ > PXK_PH_MAXVAL || v_ < -PXK_PH_MAXVAL) res = k_; \
    }                                                                       \
  }

// count warning `warn` with info (mj_warning: lastinfo, then number + 1) on lane 0
PX_FN void pxk_phWarn(PX_MDC int warn, int info) {
  if (PX_LANE == 0) {
    D(warning, 2 * warn) = info;
    D(warning, 2 * warn + 1) = D(warning, 2 * warn + 1) + 1;
  }
}

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
  pxk_energyPosStage(PX_MDARG);
  PX_SYNC();

  // velocity
  pxk_tendonVelocity(PX_MDARG);
  PX_SYNC();
  pxk_comVel(PX_MDARG);
  PX_SYNC();
  pxk_passive(PX_MDARG);
  PX_SYNC();
  pxk_rneBias(PX_MDARG);
  PX_SYNC();
  pxk_tendonBias(PX_MDARG);
  PX_SYNC();
  pxk_energyVelStage(PX_MDARG);
  PX_SYNC();

  // actuation, acceleration, no constraint rows (checked)
  pxk_actuation(PX_MDARG);
  PX_SYNC();
  pxk_fwdAcceleration(PX_MDARG);
  PX_SYNC();
  pxk_fwdConstraintNone(PX_MDARG);
  PX_SYNC();
}

// the model's integrator after pxk_phForward, then mj_advance without the time (Euler, implicit
// and implicitfast; RK4 is pxk_phRk4)
PX_FN void pxk_phIntegrate(PX_MD) {
  if (MOPT(integrator) == PX_INT_IMPLICIT || MOPT(integrator) == PX_INT_IMPLICITFAST) {
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

//---------------------------------- RK4 -----------------------------------------------------------

// mj_RungeKutta (N = 4) as px_step runs it (csrc/engine/step.c), split at its forward passes:
// the stage states X[s] and slopes F[s] in column s of rk4_qpos/qvel/act and rk4_qacc/act_dot
// (element 4 * k + s), the increment in rk4_dqvel/dqacc/dact; time is the caller's

// column s of the stage scratch from the state (state != 0) and from the slopes (slope != 0)
PX_FN void pxk_phRk4Store(PX_MDC int s, int state, int slope) {
  if (state != 0) {
    for (int k = PX_LANE; k < MS(nq); k += PX_NLANE) D(rk4_qpos, 4 * k + s) = D(qpos, k);
    for (int k = PX_LANE; k < MS(nv); k += PX_NLANE) D(rk4_qvel, 4 * k + s) = D(qvel, k);
    for (int k = PX_LANE; k < MS(na); k += PX_NLANE) D(rk4_act, 4 * k + s) = D(act, k);
  }
  if (slope != 0) {
    for (int k = PX_LANE; k < MS(nv); k += PX_NLANE) D(rk4_qacc, 4 * k + s) = D(qacc, k);
    for (int k = PX_LANE; k < MS(na); k += PX_NLANE) D(rk4_act_dot, 4 * k + s) = D(act_dot, k);
  }
  PX_SYNC();
}

// the increment: sum over stages j < n of w[j] * (X[j] velocity, F[j]), in stage order (zero
// weights come from PX_ZERO: a literal zero factor would be folded away on some devices)
PX_FN void pxk_phRk4Combine(PX_MDC PX_IN(PX_REAL, w, 4), int n) {
  for (int k = PX_LANE; k < MS(nv); k += PX_NLANE) {
    PXR dv = PX_ZERO;
    PXR da = PX_ZERO;
    for (int j = 0; j < n; j++) {
      dv += D(rk4_qvel, 4 * k + j) * w[j];
      da += D(rk4_qacc, 4 * k + j) * w[j];
    }
    D(rk4_dqvel, k) = dv;
    D(rk4_dqacc, k) = da;
  }
  for (int k = PX_LANE; k < MS(na); k += PX_NLANE) {
    PXR dd = PX_ZERO;
    for (int j = 0; j < n; j++) dd += D(rk4_act_dot, 4 * k + j) * w[j];
    D(rk4_dact, k) = dd;
  }
  PX_SYNC();
}

// stage i = 1, 2, 3: X[i] = X[0] '+' h dX with the weights of row i - 1 of A, into the state and
// column i of the scratch (the caller then sets the stage time and runs forward)
PX_FN void pxk_phRk4Stage(PX_MDC int i) {
  PXR w[4];
  PXR h = MOPT(timestep);
  w[0] = i == 1 ? PX_R(0.5) : PX_ZERO;
  w[1] = i == 2 ? PX_R(0.5) : PX_ZERO;
  w[2] = i == 3 ? PX_R(1.0) : PX_ZERO;
  w[3] = PX_ZERO;
  pxk_phRk4Combine(PX_MDARGC w, i);
  for (int k = PX_LANE; k < MS(nq); k += PX_NLANE) D(qpos, k) = D(rk4_qpos, 4 * k);
  for (int k = PX_LANE; k < MS(nv); k += PX_NLANE) D(qvel, k) = D(rk4_dqvel, k);
  PX_SYNC();
  pxk_integratePos(PX_MDARGC h);
  for (int k = PX_LANE; k < MS(nv); k += PX_NLANE) {
    PXR dv = D(rk4_dqacc, k) * h;
    PXR v = D(rk4_qvel, 4 * k) + dv;
    D(qvel, k) = v;
  }
  for (int k = PX_LANE; k < MS(na); k += PX_NLANE) {
    PXR da = D(rk4_dact, k) * h;
    PXR a = D(rk4_act, 4 * k) + da;
    D(act, k) = a;
  }
  PX_SYNC();
  pxk_phRk4Store(PX_MDARGC i, 1, 0);
}

// after the last stage's forward and pxk_phRk4Store(3, 0, 1): the weighted increment and the
// initial state restored (the caller restores the start time; mj_advance's history update, if
// any, runs next, at that state)
PX_FN void pxk_phRk4Restore(PX_MD) {
  PXR w[4];
  w[0] = PX_R(0.16666666666666666);
  w[1] = PX_R(0.3333333333333333);
  w[2] = PX_R(0.3333333333333333);
  w[3] = PX_R(0.16666666666666666);
  pxk_phRk4Combine(PX_MDARGC w, 4);
  for (int k = PX_LANE; k < MS(nq); k += PX_NLANE) D(qpos, k) = D(rk4_qpos, 4 * k);
  for (int k = PX_LANE; k < MS(nv); k += PX_NLANE) D(qvel, k) = D(rk4_qvel, 4 * k);
  for (int k = PX_LANE; k < MS(na); k += PX_NLANE) D(act, k) = D(rk4_act, 4 * k);
  PX_SYNC();
}

// after pxk_phRk4Restore: mj_advance with act_dot, qacc and the position velocity taken from the
// increment (act_dot ends as the last stage's slope); the caller sets the time
PX_FN void pxk_phRk4Advance(PX_MD) {
  for (int k = PX_LANE; k < MS(na); k += PX_NLANE) D(act_dot, k) = D(rk4_dact, k);
  PX_SYNC();
  pxk_advanceAct(PX_MDARG);
  for (int k = PX_LANE; k < MS(na); k += PX_NLANE) D(act_dot, k) = D(rk4_act_dot, 4 * k + 3);
  for (int k = PX_LANE; k < MS(nv); k += PX_NLANE) D(qacc_warmstart, k) = D(rk4_dqacc, k);
  PX_SYNC();
  pxk_advanceVel(PX_MDARG);
  for (int k = PX_LANE; k < MS(nv); k += PX_NLANE) {
    D(rk4_qvel, 4 * k + 1) = D(qvel, k);
    D(qvel, k) = D(rk4_dqvel, k);
  }
  PX_SYNC();
  pxk_advancePos(PX_MDARG);
  for (int k = PX_LANE; k < MS(nv); k += PX_NLANE) D(qvel, k) = D(rk4_qvel, 4 * k + 1);
  PX_SYNC();
}

// mj_resetData after every data array was set to zero (time is the caller's): qpos0, the
// identity quaternion of SO3 servo controls, eq_active0, mocap poses from the body frames, the
// history buffers
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
  pxk_histReset(PX_MDARG);
  PX_SYNC();
}

#endif  // PX_KERN_PHASE_H_
