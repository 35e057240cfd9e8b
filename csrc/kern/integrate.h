// SPDX-License-Identifier: Apache-2.0
// Integration: positions on the joint manifold, the Euler and implicit integrators, activation
// and state advance, in the kernel dialect (MuJoCo 3.12's mj_integratePos, mj_normalizeQuat,
// mj_differentiatePos, mj_EulerSkip, mj_implicitSkip, mj_advance and the velocity derivatives
// of mjd_smooth_vel that they need).
//   reads:  m->body_jnt*, m->jnt_*, m->dof_*, m->actuator_*, m->tendon_*, m->M_*/D_* sparsity,
//           d->M, d->qvel, d->act, d->act_dot, d->qacc, d->qfrc_smooth, d->qfrc_constraint,
//           d->ten_J, d->ten_velocity, d->actuator_moment (+ moment_rownnz/rowadr/colind),
//           d->actuator_force, d->actuator_length, d->actuator_velocity, d->ctrl,
//           d->xpos/xmat/xipos/ximat (free bodies of implicitfast)
//   writes: d->qH, d->qHDiagInv (Euler, implicitfast), d->qDeriv, d->qLU (implicit),
//           d->qpos, d->qvel, d->act, d->qacc_warmstart
// Scratch: the integrated acceleration lives in d->qacc_warmstart between the solve and the
// velocity update (MuJoCo keeps it on its stack); the advance then overwrites qacc_warmstart
// with d->qacc, exactly as mj_advance does, so nothing else sees the scratch value.
// The rne velocity derivative of the full implicit integrator (mjd_rne_vel) is in derivative.h,
// the fluid force and muscle gain derivatives in fluidderiv.h.
// Time is not a Data array: the CPU orchestration (csrc/engine/step.c) advances it.
// Sequential parts (factorizations, sparse solves, tree passes) run on lane 0 in MuJoCo's order.
#ifndef PX_KERN_INTEGRATE_H_
#define PX_KERN_INTEGRATE_H_

#include "kern/derivative.h"
#include "kern/fluidderiv.h"
#include "kern/libm.h"
#include "kern/spatial.h"

#define PXK_INTG_NPOLY 2

//---------------------------------- small helpers -------------------------------------------------

// nearest integer, halves away from zero (C's round), as a real
PX_FN PX_REAL pxk_intgRound(PX_REAL x) {
  PXR ax = PX_ABS(x);
  PXR r = pxk_floor(ax);
  PXR frac = ax - r;
  if (frac >= PX_R(0.5)) {
    r = r + PX_R(1.0);
  }
  if (x < PX_R(0.0)) {
    r = -r;
  }
  return r;
}

// rotate quat by the angular velocity vel over time scale (mju_quatIntegrate)
PX_FN void pxk_intgQuatIntegrate(PX_INOUT(PX_REAL, quat, 4), PX_IN(PX_REAL, vel, 3),
                                 PX_REAL scale) {
  PXR axis[3];
  PXR qrot[4];
  PXR q[4];
  pxk_copy3(axis, vel);
  PXR norm = pxk_normalize3(axis);
  PXR angle = scale * norm;
  pxk_axisAngle2Quat(qrot, axis, angle);
  pxk_normalize4(quat);
  pxk_mulQuat(q, quat, qrot);
  pxk_copy4(quat, q);
}

//---------------------------------- positions -----------------------------------------------------

// qpos += dt * qvel on the joint manifold (mj_integratePos), reading d->qvel
PX_FN void pxk_integratePos(PX_MDC PX_REAL dt) {
  PXR quat[4];
  PXR vel[3];
  for (int b = 1 + PX_LANE; b < MS(nbody); b += PX_NLANE) {
    int start = M(body_jntadr, b);
    int end = start + M(body_jntnum, b);
    for (int j = start; j < end; j++) {
      int padr = M(jnt_qposadr, j);
      int vadr = M(jnt_dofadr, j);
      int type = M(jnt_type, j);
      if (type == PX_JNT_FREE || type == PX_JNT_BALL) {
        if (type == PX_JNT_FREE) {
          for (int i = 0; i < 3; i++) {
            PXR dq = dt * D(qvel, vadr + i);
            PXR q = D(qpos, padr + i) + dq;
            D(qpos, padr + i) = q;
          }
          padr += 3;
          vadr += 3;
        }
        for (int i = 0; i < 4; i++) quat[i] = D(qpos, padr + i);
        for (int i = 0; i < 3; i++) vel[i] = D(qvel, vadr + i);
        pxk_intgQuatIntegrate(quat, vel, dt);
        for (int i = 0; i < 4; i++) D(qpos, padr + i) = quat[i];
      } else {
        PXR dq = dt * D(qvel, vadr);
        PXR q = D(qpos, padr) + dq;
        D(qpos, padr) = q;
      }
    }
  }
  PX_SYNC();
}

// normalize the quaternions of ball and free joints in d->qpos (mj_normalizeQuat)
PX_FN void pxk_normalizeQuat(PX_MD) {
  PXR quat[4];
  for (int j = PX_LANE; j < MS(njnt); j += PX_NLANE) {
    int type = M(jnt_type, j);
    if (type == PX_JNT_BALL || type == PX_JNT_FREE) {
      int adr = M(jnt_qposadr, j) + (type == PX_JNT_FREE ? 3 : 0);
      for (int i = 0; i < 4; i++) quat[i] = D(qpos, adr + i);
      pxk_normalize4(quat);
      for (int i = 0; i < 4; i++) D(qpos, adr + i) = quat[i];
    }
  }
  PX_SYNC();
}

// velocity of one joint that moves q1 to q2 in time dt (one joint of mj_differentiatePos);
// q1, q2 hold the joint's qpos entries, qvel receives its dof entries
PX_FN void pxk_differentiateJoint(int type, PX_OUT(PX_REAL, qvel, 6), PX_IN(PX_REAL, q1, 7),
                                  PX_IN(PX_REAL, q2, 7), PX_REAL dt) {
  PXR qa[4];
  PXR qb[4];
  PXR w[3];
  if (type == PX_JNT_FREE || type == PX_JNT_BALL) {
    int p = 0;
    int v = 0;
    if (type == PX_JNT_FREE) {
      for (int i = 0; i < 3; i++) {
        PXR dq = q2[i] - q1[i];
        qvel[i] = dq / dt;
      }
      p = 3;
      v = 3;
    }
    for (int i = 0; i < 4; i++) {
      qa[i] = q2[p + i];
      qb[i] = q1[p + i];
    }
    pxk_fmSubQuat(w, qa, qb);
    PXR inv = PX_R(1.0) / dt;
    for (int i = 0; i < 3; i++) qvel[v + i] = w[i] * inv;
  } else {
    PXR dq = q2[0] - q1[0];
    qvel[0] = dq / dt;
  }
}

//---------------------------------- activation ----------------------------------------------------

// 1 if actuator i is disabled through its group (mj_actuatorDisabled)
PX_FN int pxk_intgActuatorDisabled(PX_MDC int i) {
  int group = M(actuator_group, i);
  if (group < 0 || group > 30) return 0;
  return (MOPT(disableactuator) & (1 << group)) != 0 ? 1 : 0;
}

// activation after one step from act_dot, clamped to actrange (mj_nextActivation; the DC motor
// dynamics are refused before any integrator runs)
PX_FN PX_REAL pxk_nextActivation(PX_MDC int i, int adr, PX_REAL act_dot) {
  PXR act = D(act, adr);
  PXR h = MOPT(timestep);
  if (M(actuator_dyntype, i) == PX_DYN_FILTEREXACT) {
    PXR tau = pxk_fmMax(PXK_MINVAL, M(actuator_dynprm, 10 * i));
    PXR x = -h / tau;
    PXR e = pxk_exp(x);
    PXR one_e = PX_R(1.0) - e;
    PXR t1 = act_dot * tau;
    PXR t2 = t1 * one_e;
    act = act + t2;
  } else {
    PXR t = act_dot * h;
    act = act + t;
  }
  if (M(actuator_actlimited, i) != 0) {
    act = pxk_fmClip(act, M(actuator_actrange, 2 * i), M(actuator_actrange, 2 * i + 1));
  }
  return act;
}

// period of a rotational servo's setpoint, 0 when it does not wrap (MuJoCo's wrapPeriod)
PX_FN PX_REAL pxk_intgWrapPeriod(PX_MDC int i) {
  int dyn = M(actuator_dyntype, i);
  PXR kv = -M(actuator_biasprm, 10 * i + 1);
  int servo =
      (M(actuator_gaintype, i) == PX_GAIN_FIXED && M(actuator_biastype, i) == PX_BIAS_AFFINE &&
       M(actuator_gainprm, 10 * i) == kv && (dyn == PX_DYN_NONE || dyn == PX_DYN_INTEGRATOR))
          ? 1
          : 0;
  int pid = M(actuator_gaintype, i) == PX_GAIN_PID ? 1 : 0;
  if (servo == 0 && pid == 0) return PX_R(0.0);
  int g = 6 * M(actuator_outadr, i);
  int trn = M(actuator_trntype, i);
  if (trn == PX_TRN_SITE && M(actuator_trnid, 2 * i + 1) >= 0 && M(actuator_gear, g) == PX_R(0.0) &&
      M(actuator_gear, g + 1) == PX_R(0.0) && M(actuator_gear, g + 2) == PX_R(0.0)) {
    PXR a = M(actuator_gear, g + 3);
    PXR b = M(actuator_gear, g + 4);
    PXR c = M(actuator_gear, g + 5);
    PXR n = PX_SQRT(a * a + b * b + c * c);
    PXR p = PXK_FM_2PI * n;
    return p;
  }
  if ((trn == PX_TRN_JOINT || trn == PX_TRN_JOINTINPARENT) &&
      M(jnt_type, M(actuator_trnid, 2 * i)) == PX_JNT_BALL) {
    PXR a = M(actuator_gear, g);
    PXR b = M(actuator_gear, g + 1);
    PXR c = M(actuator_gear, g + 2);
    PXR n = PX_SQRT(a * a + b * b + c * c);
    PXR p = PXK_FM_2PI * n;
    return p;
  }
  return PX_R(0.0);
}

// activations after one step (the activation part of mj_advance); act_dot comes from d->act_dot
PX_FN void pxk_advanceAct(PX_MD) {
  if (MS(na) == 0 || (MOPT(disableflags) & PX_DSBL_ACTUATION) != 0) return;
  for (int i = PX_LANE; i < MS(nu); i += PX_NLANE) {
    int adr = M(actuator_actadr, i);
    int end = adr + M(actuator_actnum, i);
    int off = pxk_intgActuatorDisabled(PX_MDARGC i);
    for (int j = adr; j < end; j++) {
      PXR ad = off != 0 ? PX_ZERO : D(act_dot, j);
      PXR a = pxk_nextActivation(PX_MDARGC i, j, ad);
      D(act, j) = a;
    }

    // rotational setpoints stored in act: the representative nearest the current length
    if (M(actuator_dyntype, i) == PX_DYN_INTEGRATOR) {
      PXR period = pxk_intgWrapPeriod(PX_MDARGC i);
      if (period > PX_R(0.0)) {
        int last = end - 1;
        PXR u = D(act, last);
        PXR err = u - D(actuator_length, M(actuator_outadr, i));
        PXR q = err / period;
        PXR r = pxk_intgRound(q);
        PXR s = period * r;
        PXR w = u - s;
        D(act, last) = w;
      } else if (M(actuator_gaintype, i) == PX_GAIN_SO3) {
        PXR a0 = D(act, adr);
        PXR a1 = D(act, adr + 1);
        PXR a2 = D(act, adr + 2);
        PXR angle = PX_SQRT(a0 * a0 + a1 * a1 + a2 * a2);
        if (angle > PXK_FM_PI) {
          PXR q = angle / PXK_FM_2PI;
          PXR r = pxk_intgRound(q);
          PXR s = PXK_FM_2PI * r;
          PXR num = angle - s;
          PXR scale = num / angle;
          for (int k = 0; k < 3; k++) {
            PXR x = D(act, adr + k) * scale;
            D(act, adr + k) = x;
          }
        }
      }
    }
  }
  PX_SYNC();
}

// qvel += h * (the integrator's acceleration, held in d->qacc_warmstart)
PX_FN void pxk_advanceVel(PX_MD) {
  PXR h = MOPT(timestep);
  for (int i = PX_LANE; i < MS(nv); i += PX_NLANE) {
    PXR dv = D(qacc_warmstart, i) * h;
    PXR v = D(qvel, i) + dv;
    D(qvel, i) = v;
  }
  PX_SYNC();
}

// the end of mj_advance: positions from the new velocities, then the warmstart for the next
// step (time is advanced by the caller)
PX_FN void pxk_advancePos(PX_MD) {
  pxk_integratePos(PX_MDARGC MOPT(timestep));
  for (int i = PX_LANE; i < MS(nv); i += PX_NLANE) D(qacc_warmstart, i) = D(qacc, i);
  PX_SYNC();
}

//---------------------------------- sparse L'DL of the reduced inertia layout ---------------------

// sparse dot product of MuJoCo's unrolled form: four partial sums, then the tail
#define PXK_INTG_DOTSPARSE(res, A, val, adr, nnz, colidx, X, xf)           \
  {                                                                        \
    PXR r0_ = PX_ZERO;                                                     \
    PXR r1_ = PX_ZERO;                                                     \
    PXR r2_ = PX_ZERO;                                                     \
    PXR r3_ = PX_ZERO;                                                     \
    int i_ = 0;                                                            \
    for (; i_ <= (nnz)-4; i_ += 4) {                                       \
      PXR p0_ = A(val, (adr) + i_) * X(xf, M(colidx, (adr) + i_));         \
      PXR p1_ = A(val, (adr) + i_ + 1) * X(xf, M(colidx, (adr) + i_ + 1)); \
      PXR p2_ = A(val, (adr) + i_ + 2) * X(xf, M(colidx, (adr) + i_ + 2)); \
      PXR p3_ = A(val, (adr) + i_ + 3) * X(xf, M(colidx, (adr) + i_ + 3)); \
      r0_ = r0_ + p0_;                                                     \
      r1_ = r1_ + p1_;                                                     \
      r2_ = r2_ + p2_;                                                     \
      r3_ = r3_ + p3_;                                                     \
    }                                                                      \
    PXR s02_ = r0_ + r2_;                                                  \
    PXR s13_ = r1_ + r3_;                                                  \
    res = s02_ + s13_;                                                     \
    for (; i_ < (nnz); i_++) {                                             \
      PXR p_ = A(val, (adr) + i_) * X(xf, M(colidx, (adr) + i_));          \
      res = res + p_;                                                      \
    }                                                                      \
  }

#ifdef PX_KERN_C
// C fast paths (kern/smooth.h): the same operations in the same order
PX_FN void pxk_intgFactorH(PX_MD) {
  pxk_cFactorLD(m, d->qH, d->qHDiagInv);
}

PX_FN void pxk_intgSolveH(PX_MD) {
  pxk_cSolveLD(m, d->qH, d->qHDiagInv, d->qacc_warmstart);
}
#else
// factor d->qH in place into L'DL with the inverse diagonal in d->qHDiagInv (mj_factorI)
PX_FN void pxk_intgFactorH(PX_MD) {
  if (PX_LANE == 0) {
    for (int k = MS(nv) - 1; k >= 0; k--) {
      int start = M(M_rowadr, k);
      int diag = M(M_rownnz, k) - 1;
      int end = start + diag;
      PXR invD = PX_R(1.0) / D(qH, end);
      D(qHDiagInv, k) = invD;
      for (int adr = end - 1; adr >= start; adr--) {
        int i = M(M_colind, adr);
        PXR neg = -D(qH, adr);
        PXR scl = neg * invD;
        int radr = M(M_rowadr, i);
        int n = M(M_rownnz, i);
        for (int t = 0; t < n; t++) {
          PXR p = D(qH, start + t) * scl;
          PXR x = D(qH, radr + t) + p;
          D(qH, radr + t) = x;
        }
      }
      for (int t = 0; t < diag; t++) {
        PXR x = D(qH, start + t) * invD;
        D(qH, start + t) = x;
      }
    }
  }
  PX_SYNC();
}

// d->qacc_warmstart = inv(L'DL) d->qacc_warmstart with the factor in d->qH (mj_solveLD)
PX_FN void pxk_intgSolveH(PX_MD) {
  if (PX_LANE == 0) {
    int nv = MS(nv);
    for (int i = nv - 1; i >= 0; i--) {
      if (M(M_rownnz, i) == 1) continue;
      PXR xi = D(qacc_warmstart, i);
      if (xi != PX_R(0.0)) {
        int start = M(M_rowadr, i);
        int end = start + M(M_rownnz, i) - 1;
        for (int adr = start; adr < end; adr++) {
          int c = M(M_colind, adr);
          PXR p = D(qH, adr) * xi;
          PXR x = D(qacc_warmstart, c) - p;
          D(qacc_warmstart, c) = x;
        }
      }
    }
    for (int i = 0; i < nv; i++) {
      PXR x = D(qacc_warmstart, i) * D(qHDiagInv, i);
      D(qacc_warmstart, i) = x;
    }
    for (int i = 0; i < nv; i++) {
      int n = M(M_rownnz, i) - 1;
      if (n > 0) {
        int adr = M(M_rowadr, i);
        PXR dot;
        PXK_INTG_DOTSPARSE(dot, D, qH, adr, n, M_colind, D, qacc_warmstart);
        PXR x = D(qacc_warmstart, i) - dot;
        D(qacc_warmstart, i) = x;
      }
    }
  }
  PX_SYNC();
}
#endif

// d->qacc_warmstart = qfrc_smooth + qfrc_constraint (the right-hand side of every solve)
PX_FN void pxk_intgForce(PX_MD) {
  for (int i = PX_LANE; i < MS(nv); i += PX_NLANE) {
    PXR f = D(qfrc_smooth, i) + D(qfrc_constraint, i);
    D(qacc_warmstart, i) = f;
  }
  PX_SYNC();
}

//---------------------------------- Euler ---------------------------------------------------------

// damping that an actuator lends to joint or tendon id, its polynomial added into poly
// (mj_actuatorDamping)
PX_FN PX_REAL pxk_intgActuatorDamping(PX_MDC int tendon, int id, PX_INOUT(PX_REAL, poly, 2)) {
  int aid = tendon != 0 ? M(tendon_actuatorid, id) : M(jnt_actuatorid, id);
  PXR damping = PX_ZERO;
  if (aid == -1) return damping;
  if (aid >= 0) {
    PXR g = M(actuator_gear, 6 * M(actuator_outadr, aid));
    PXR gear2 = g * g;
    damping = M(actuator_damping, aid) * gear2;
    for (int k = 0; k < PXK_INTG_NPOLY; k++) {
      PXR p = M(actuator_dampingpoly, PXK_INTG_NPOLY * aid + k) * gear2;
      poly[k] = poly[k] + p;
    }
  } else {
    for (int k = 0; k < MS(nu); k++) {
      if (M(actuator_trnid, 2 * k) != id) continue;
      int trn = M(actuator_trntype, k);
      if (tendon == 0 && trn != PX_TRN_JOINT && trn != PX_TRN_JOINTINPARENT) continue;
      if (tendon != 0 && trn != PX_TRN_TENDON) continue;
      PXR g = M(actuator_gear, 6 * M(actuator_outadr, k));
      PXR gear2 = g * g;
      PXR dd = M(actuator_damping, k) * gear2;
      damping = damping + dd;
      for (int j = 0; j < PXK_INTG_NPOLY; j++) {
        PXR p = M(actuator_dampingpoly, PXK_INTG_NPOLY * k + j) * gear2;
        poly[j] = poly[j] + p;
      }
    }
  }
  return damping;
}

// derivative of the odd damping polynomial at x (mjd_xPolyForce with flg_odd)
PX_FN PX_REAL pxk_intgPolyDeriv(PX_REAL linear, PX_IN(PX_REAL, poly, 2), PX_REAL x) {
  PXR ax = PX_ABS(x);
  PXR res = linear;
  PXR xpow = PX_R(1.0);
  for (int i = 0; i < PXK_INTG_NPOLY; i++) {
    xpow = xpow * ax;
    PXR c = PX_TOREAL(i + 2) * poly[i];
    PXR t = c * xpow;
    res = res + t;
  }
  return res;
}

// damping derivative of dof i at the current velocity (joint damping plus actuator damping)
PX_FN PX_REAL pxk_intgDofDamping(PX_MDC int i) {
  PXR poly[2];
  poly[0] = M(dof_dampingpoly, PXK_INTG_NPOLY * i);
  poly[1] = M(dof_dampingpoly, PXK_INTG_NPOLY * i + 1);
  PXR ad = pxk_intgActuatorDamping(PX_MDARGC 0, M(dof_jntid, i), poly);
  PXR damping = M(dof_damping, i) + ad;
  return pxk_intgPolyDeriv(damping, poly, D(qvel, i));
}

// 1 when mj_Euler integrates damping implicitly
PX_FN int pxk_eulerDamped(PX_MD) {
  if ((MOPT(disableflags) & (PX_DSBL_EULERDAMP | PX_DSBL_DAMPER)) != 0) return 0;
  for (int i = 0; i < MS(nv); i++) {
    if (M(dof_damping, i) > PX_R(0.0) || M(dof_dampingpoly, PXK_INTG_NPOLY * i) != PX_R(0.0) ||
        M(dof_dampingpoly, PXK_INTG_NPOLY * i + 1) != PX_R(0.0) ||
        M(jnt_actuatorid, M(dof_jntid, i)) != -1) {
      return 1;
    }
  }
  return 0;
}

// mj_Euler up to the advance: the acceleration to integrate, in d->qacc_warmstart; with damping,
// qH = M + h diag(damping derivative) factored into qH/qHDiagInv and solved
PX_FN void pxk_euler(PX_MDC int skipfactor) {
  if (pxk_eulerDamped(PX_MDARG) == 0) {
    for (int i = PX_LANE; i < MS(nv); i += PX_NLANE) D(qacc_warmstart, i) = D(qacc, i);
    PX_SYNC();
    return;
  }
  if (skipfactor == 0) {
    for (int k = PX_LANE; k < MS(nC); k += PX_NLANE) D(qH, k) = D(M, k);
    PX_SYNC();
    PXR h = MOPT(timestep);
    for (int i = PX_LANE; i < MS(nv); i += PX_NLANE) {
      PXR dd = pxk_intgDofDamping(PX_MDARGC i);
      PXR t = h * dd;
      int adr = M(M_rowadr, i) + M(M_rownnz, i) - 1;
      PXR x = D(qH, adr) + t;
      D(qH, adr) = x;
    }
    PX_SYNC();
    pxk_intgFactorH(PX_MDARG);
  }
  pxk_intgForce(PX_MDARG);
  pxk_intgSolveH(PX_MDARG);
}

//---------------------------------- velocity derivatives (mjd_smooth_vel) -------------------------

// column index and value of entry adr of a sparse Jacobian row: the tendon Jacobian (which 0,
// model sparsity) or the actuator moment (which 1, sparsity in the Data arrays moment_*)
PX_FN int pxk_intgJColind(PX_MDC int which, int adr) {
  return which == 0 ? M(ten_J_colind, adr) : D(moment_colind, adr);
}

PX_FN PX_REAL pxk_intgJValue(PX_MDC int which, int adr) {
  return which == 0 ? D(ten_J, adr) : D(actuator_moment, adr);
}

// qDeriv(k, :) += J(row, k) * b * J(row, :) for every nonzero k of row `row` of the tendon
// Jacobian (which 0) or the actuator moment (which 1) (MuJoCo's addJTBJSparse with n = 1)
PX_FN void pxk_intgAddJTBJ(PX_MDC int which, int row, PX_REAL b) {
  int nnz = which == 0 ? M(ten_J_rownnz, row) : D(moment_rownnz, row);
  int adr = which == 0 ? M(ten_J_rowadr, row) : D(moment_rowadr, row);
  for (int k = 0; k < nnz; k++) {
    int col = pxk_intgJColind(PX_MDARGC which, adr + k);
    PXR scl = pxk_intgJValue(PX_MDARGC which, adr + k) * b;
    int dadr = M(D_rowadr, col);
    int dnnz = M(D_rownnz, col);
    int s = 0;
    int t = 0;
    while (s < nnz && t < dnnz) {
      int is = pxk_intgJColind(PX_MDARGC which, adr + s);
      int it = M(D_colind, dadr + t);
      if (is == it) {
        PXR p = scl * pxk_intgJValue(PX_MDARGC which, adr + s);
        PXR x = D(qDeriv, dadr + t) + p;
        D(qDeriv, dadr + t) = x;
        s++;
        t++;
      } else if (is < it) {
        s++;
      } else {
        t++;
      }
    }
  }
}

// qDeriv += d qfrc_actuator / d qvel (mjd_actuator_vel: affine and muscle gains, affine biases;
// DC motor gains and biases are refused before any integrator runs)
PX_FN void pxk_intgActuatorVel(PX_MD) {
  if ((MOPT(disableflags) & PX_DSBL_ACTUATION) != 0) return;
  for (int i = 0; i < MS(nu); i++) {
    int oadr = M(actuator_outadr, i);
    if (pxk_intgActuatorDisabled(PX_MDARGC i) != 0) continue;
    if (M(actuator_forcelimited, i) != 0) {
      PXR lo = M(actuator_forcerange, 2 * i);
      PXR hi = M(actuator_forcerange, 2 * i + 1);
      if (M(actuator_gaintype, i) == PX_GAIN_SO3) {
        PXR f0 = D(actuator_force, oadr);
        PXR f1 = D(actuator_force, oadr + 1);
        PXR f2 = D(actuator_force, oadr + 2);
        PXR n = PX_SQRT(f0 * f0 + f1 * f1 + f2 * f2);
        if (n >= hi) continue;
      } else {
        PXR f = D(actuator_force, oadr);
        if (f <= lo || f >= hi) continue;
      }
    }
    PXR bias_vel = PX_ZERO;
    PXR gain_vel = PX_ZERO;
    int bt = M(actuator_biastype, i);
    if (bt == PX_BIAS_AFFINE || bt == PX_BIAS_SO3) bias_vel = M(actuator_biasprm, 10 * i + 2);
    int gt = M(actuator_gaintype, i);
    if (gt == PX_GAIN_AFFINE) {
      gain_vel = M(actuator_gainprm, 10 * i + 2);
    } else if (gt == PX_GAIN_MUSCLE) {
      // MuJoCo indexes lengthrange and acc0 by the output address here
      PXR prm[10];
      PXK_GET(10, prm, M, actuator_gainprm, 10 * i);
      gain_vel = pxk_fdMuscleGainVel(
          D(actuator_length, oadr), D(actuator_velocity, oadr), M(actuator_lengthrange, 2 * oadr),
          M(actuator_lengthrange, 2 * oadr + 1), M(actuator_acc0, oadr), prm);
    }
    if (gain_vel != PX_R(0.0)) {
      if (M(actuator_dyntype, i) == PX_DYN_NONE) {
        PXR t = gain_vel * D(ctrl, M(actuator_ctrladr, i));
        bias_vel = bias_vel + t;
      } else {
        int aadr = M(actuator_actadr, i) + M(actuator_actnum, i) - 1;
        PXR act = D(act, aadr);
        if (M(actuator_actearly, i) != 0) {
          act = pxk_nextActivation(PX_MDARGC i, aadr, D(act_dot, aadr));
        }
        PXR t = gain_vel * act;
        bias_vel = bias_vel + t;
      }
    }
    if (bias_vel != PX_R(0.0)) {
      for (int k = 0; k < M(actuator_outnum, i); k++) {
        pxk_intgAddJTBJ(PX_MDARGC 1, oadr + k, bias_vel);
      }
    }
  }
}

// qDeriv += d qfrc_passive / d qvel: fluid forces (fluidderiv.h), dof and tendon damping
// (mjd_passive_vel)
PX_FN void pxk_intgPassiveVel(PX_MD) {
  int nospring = (MOPT(disableflags) & PX_DSBL_SPRING) != 0 ? 1 : 0;
  int nodamper = (MOPT(disableflags) & PX_DSBL_DAMPER) != 0 ? 1 : 0;
  if (nospring != 0 && nodamper != 0) return;
  if (MOPT(viscosity) > PX_R(0.0) || MOPT(density) > PX_R(0.0)) pxk_fluidVel(PX_MDARG);
  if (nodamper != 0) return;
  for (int i = 0; i < MS(nv); i++) {
    PXR dd = pxk_intgDofDamping(PX_MDARGC i);
    int adr = M(D_rowadr, i) + M(D_diag, i);
    PXR x = D(qDeriv, adr) - dd;
    D(qDeriv, adr) = x;
  }
  PXR poly[2];
  for (int i = 0; i < MS(ntendon); i++) {
    poly[0] = M(tendon_dampingpoly, PXK_INTG_NPOLY * i);
    poly[1] = M(tendon_dampingpoly, PXK_INTG_NPOLY * i + 1);
    PXR ad = pxk_intgActuatorDamping(PX_MDARGC 1, i, poly);
    PXR damping = M(tendon_damping, i) + ad;
    PXR dp = pxk_intgPolyDeriv(damping, poly, D(ten_velocity, i));
    PXR b = -dp;
    if (b == PX_R(0.0)) continue;
    pxk_intgAddJTBJ(PX_MDARGC 0, i, b);
  }
}

//---------------------------------- implicitfast: standalone free bodies --------------------------

// 3x3 blocks of d qfrc_bias / d qvel of a standalone free body (MuJoCo's freeBias_vel_blocks)
PX_FN void pxk_intgFreeBiasBlocks(PX_REAL mass, PX_IN(PX_REAL, R, 9), PX_IN(PX_REAL, Xi, 9),
                                  PX_IN(PX_REAL, inertia, 3), PX_IN(PX_REAL, s, 3),
                                  PX_IN(PX_REAL, qrot, 3), PX_OUT(PX_REAL, lin, 9),
                                  PX_OUT(PX_REAL, rot, 9)) {
  PXR w[3];
  PXR XiI[9];
  PXR Iw[9];
  PXR ws[3];
  PXR Iww[3];
  PXR K[9];
  PXR C[9];
  PXR tmp[9];
  pxk_mulMatVec3(w, R, qrot);
  for (int i = 0; i < 3; i++) {
    XiI[3 * i] = Xi[3 * i] * inertia[0];
    XiI[3 * i + 1] = Xi[3 * i + 1] * inertia[1];
    XiI[3 * i + 2] = Xi[3 * i + 2] * inertia[2];
  }
  Iw[0] = XiI[0] * Xi[0] + XiI[1] * Xi[1] + XiI[2] * Xi[2];
  Iw[4] = XiI[3] * Xi[3] + XiI[4] * Xi[4] + XiI[5] * Xi[5];
  Iw[8] = XiI[6] * Xi[6] + XiI[7] * Xi[7] + XiI[8] * Xi[8];
  Iw[1] = XiI[0] * Xi[3] + XiI[1] * Xi[4] + XiI[2] * Xi[5];
  Iw[3] = Iw[1];
  Iw[2] = XiI[0] * Xi[6] + XiI[1] * Xi[7] + XiI[2] * Xi[8];
  Iw[6] = Iw[2];
  Iw[5] = XiI[3] * Xi[6] + XiI[4] * Xi[7] + XiI[5] * Xi[8];
  Iw[7] = Iw[5];
  pxk_cross(ws, w, s);
  pxk_mulMatVec3(Iww, Iw, w);
  PXR wds = w[0] * s[0] + w[1] * s[1] + w[2] * s[2];
  K[0] = s[0] * w[0] - wds;
  K[1] = s[0] * w[1] - ws[2];
  K[2] = s[0] * w[2] + ws[1];
  K[3] = s[1] * w[0] + ws[2];
  K[4] = s[1] * w[1] - wds;
  K[5] = s[1] * w[2] - ws[0];
  K[6] = s[2] * w[0] - ws[1];
  K[7] = s[2] * w[1] + ws[0];
  K[8] = s[2] * w[2] - wds;
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      lin[3 * i + j] = K[3 * i] * R[j] + K[3 * i + 1] * R[3 + j] + K[3 * i + 2] * R[6 + j];
    }
  }
  PXR negm = -mass;
  for (int c = 0; c < 3; c++) {
    PXR sk0 = s[1] * K[6 + c] - s[2] * K[3 + c];
    PXR sk1 = s[2] * K[c] - s[0] * K[6 + c];
    PXR sk2 = s[0] * K[3 + c] - s[1] * K[c];
    PXR wi0 = w[1] * Iw[6 + c] - w[2] * Iw[3 + c];
    PXR wi1 = w[2] * Iw[c] - w[0] * Iw[6 + c];
    PXR wi2 = w[0] * Iw[3 + c] - w[1] * Iw[c];
    PXR e0 = c == 1 ? Iww[2] : (c == 2 ? -Iww[1] : PX_ZERO);
    PXR e1 = c == 0 ? -Iww[2] : (c == 2 ? Iww[0] : PX_ZERO);
    PXR e2 = c == 0 ? Iww[1] : (c == 1 ? -Iww[0] : PX_ZERO);
    C[c] = negm * sk0 + wi0 + e0;
    C[3 + c] = negm * sk1 + wi1 + e1;
    C[6 + c] = negm * sk2 + wi2 + e2;
  }
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      tmp[3 * i + j] = R[i] * C[j] + R[3 + i] * C[3 + j] + R[6 + i] * C[6 + j];
    }
  }
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) {
      rot[3 * i + j] = tmp[3 * i] * R[j] + tmp[3 * i + 1] * R[3 + j] + tmp[3 * i + 2] * R[6 + j];
    }
  }
}

// A = M - h (d qfrc_smooth / d qvel) on the 6x6 block of free joint jnt, with the bias
// derivative qDeriv leaves out (mjd_freeMhat); 0 if jnt is not a standalone free body's joint
PX_FN int pxk_intgFreeMhat(PX_MDC int jnt, PX_REAL h, PX_OUT(PX_REAL, A, 36)) {
  PXR R[9];
  PXR Xi[9];
  PXR inertia[3];
  PXR s[3];
  PXR qrot[3];
  PXR lin[9];
  PXR rot[9];
  int body = M(jnt_bodyid, jnt);
  int adr = M(jnt_dofadr, jnt);
  if (pxk_fdIsFreeBody(PX_MDARGC body) == 0) return 0;
  for (int k = 0; k < 36; k++) A[k] = PX_R(0.0);
  for (int r = 0; r < 6; r++) {
    int radr = M(M_rowadr, adr + r);
    for (int k = 0; k < M(M_rownnz, adr + r); k++) {
      int c = M(M_colind, radr + k) - adr;
      A[6 * r + c] = D(M, radr + k);
      A[6 * c + r] = D(M, radr + k);
    }
  }
  for (int r = 0; r < 6; r++) {
    int radr = M(D_rowadr, adr + r);
    for (int k = 0; k < M(D_rownnz, adr + r); k++) {
      int c = M(D_colind, radr + k) - adr;
      PXR t = h * D(qDeriv, radr + k);
      A[6 * r + c] = A[6 * r + c] - t;
    }
  }
  for (int k = 0; k < 3; k++) {
    s[k] = D(xipos, 3 * body + k) - D(xpos, 3 * body + k);
    inertia[k] = M(body_inertia, 3 * body + k);
    qrot[k] = D(qvel, adr + 3 + k);
  }
  for (int k = 0; k < 9; k++) {
    R[k] = D(xmat, 9 * body + k);
    Xi[k] = D(ximat, 9 * body + k);
  }
  PXR mass = M(body_mass, body);
  pxk_intgFreeBiasBlocks(mass, R, Xi, inertia, s, qrot, lin, rot);
  PXR hm = -h * mass;
  for (int r = 0; r < 3; r++) {
    for (int c = 0; c < 3; c++) {
      PXR t1 = hm * lin[3 * r + c];
      A[6 * r + 3 + c] = A[6 * r + 3 + c] + t1;
      PXR t2 = h * rot[3 * r + c];
      A[6 * (3 + r) + 3 + c] = A[6 * (3 + r) + 3 + c] + t2;
    }
  }
  return 1;
}

// solve A x = b for a 6x6 A by LU with partial pivoting (mju_factorLU6 + mju_solveLU6);
// returns 0 (x untouched) when A is singular
PX_FN int pxk_intgSolve6(PX_INOUT(PX_REAL, A, 36), PX_IN(PX_REAL, b, 6), PX_OUT(PX_REAL, x, 6)) {
  int pivot[6];
  for (int k = 0; k < 6; k++) {
    pivot[k] = k;
    PXR maxval = PX_ABS(A[k * 6 + k]);
    int maxrow = k;
    for (int i = k + 1; i < 6; i++) {
      PXR val = PX_ABS(A[i * 6 + k]);
      if (val > maxval) {
        maxval = val;
        maxrow = i;
      }
    }
    if (maxval < PXK_MINVAL) return 0;
    if (maxrow != k) {
      pivot[k] = maxrow;
      for (int j = 0; j < 6; j++) {
        PXR t = A[k * 6 + j];
        A[k * 6 + j] = A[maxrow * 6 + j];
        A[maxrow * 6 + j] = t;
      }
    }
    PXR diaginv = PX_R(1.0) / A[k * 6 + k];
    for (int i = k + 1; i < 6; i++) {
      A[i * 6 + k] = A[i * 6 + k] * diaginv;
      PXR aik = A[i * 6 + k];
      for (int j = k + 1; j < 6; j++) {
        PXR p = aik * A[k * 6 + j];
        A[i * 6 + j] = A[i * 6 + j] - p;
      }
    }
  }
  for (int i = 0; i < 6; i++) x[i] = b[i];
  for (int i = 0; i < 6; i++) {
    if (pivot[i] != i) {
      PXR t = x[i];
      x[i] = x[pivot[i]];
      x[pivot[i]] = t;
    }
    for (int j = 0; j < i; j++) {
      PXR p = A[i * 6 + j] * x[j];
      x[i] = x[i] - p;
    }
  }
  for (int i = 5; i >= 0; i--) {
    for (int j = i + 1; j < 6; j++) {
      PXR p = A[i * 6 + j] * x[j];
      x[i] = x[i] - p;
    }
    x[i] = x[i] / A[i * 6 + i];
  }
  return 1;
}

//---------------------------------- implicit: sparse LU in the D layout ---------------------------

// position of column col in row `row` of the D sparsity, or -1
PX_FN int pxk_intgFindD(PX_MDC int row, int col) {
  int adr = M(D_rowadr, row);
  int nnz = M(D_rownnz, row);
  for (int k = 0; k < nnz; k++) {
    if (M(D_colind, adr + k) == col) return adr + k;
  }
  return -1;
}

// factor d->qLU in place, reverse-order LU without fill-in (mju_factorLUSparse): rows j < i with
// a nonzero (j, i) are exactly the dof ancestors of i, walked through dof_parentid
PX_FN void pxk_intgFactorLU(PX_MD) {
  if (PX_LANE == 0) {
    for (int i = MS(nv) - 1; i >= 0; i--) {
      int iadr = M(D_rowadr, i);
      int ii = iadr + M(D_diag, i);
      for (int j = M(dof_parentid, i); j >= 0; j = M(dof_parentid, j)) {
        int ji = pxk_intgFindD(PX_MDARGC j, i);
        if (ji < 0) continue;
        PXR q = D(qLU, ji) / D(qLU, ii);
        D(qLU, ji) = q;
        int icnt = iadr;
        int jcnt = M(D_rowadr, j);
        while (jcnt < ji) {
          int ci = M(D_colind, icnt);
          int cj = M(D_colind, jcnt);
          if (ci == cj) {
            PXR p = D(qLU, icnt) * q;
            PXR x = D(qLU, jcnt) - p;
            D(qLU, jcnt) = x;
            icnt++;
            jcnt++;
          } else if (ci > cj) {
            jcnt++;
          } else {
            icnt++;
          }
        }
      }
    }
  }
  PX_SYNC();
}

// d->qacc_warmstart = inv(qLU) (qfrc_smooth + qfrc_constraint) (mju_solveLUSparse)
PX_FN void pxk_intgSolveLU(PX_MD) {
  if (PX_LANE == 0) {
    int nv = MS(nv);
    for (int i = nv - 1; i >= 0; i--) {
      PXR r = D(qfrc_smooth, i) + D(qfrc_constraint, i);
      int d1 = M(D_diag, i) + 1;
      int nnz = M(D_rownnz, i) - d1;
      if (nnz > 0) {
        int adr = M(D_rowadr, i) + d1;
        PXR dot;
        PXK_INTG_DOTSPARSE(dot, D, qLU, adr, nnz, D_colind, D, qacc_warmstart);
        r = r - dot;
      }
      D(qacc_warmstart, i) = r;
    }
    for (int i = 0; i < nv; i++) {
      int dg = M(D_diag, i);
      int adr = M(D_rowadr, i);
      PXR r = D(qacc_warmstart, i);
      if (dg > 0) {
        PXR dot;
        PXK_INTG_DOTSPARSE(dot, D, qLU, adr, dg, D_colind, D, qacc_warmstart);
        r = r - dot;
      }
      r = r / D(qLU, adr + dg);
      D(qacc_warmstart, i) = r;
    }
  }
  PX_SYNC();
}

//---------------------------------- implicit integrators ------------------------------------------

// qDeriv = d (qfrc_actuator + qfrc_passive) / d qvel, minus d qfrc_bias / d qvel for the full
// implicit integrator (mjd_smooth_vel with flg_bias for implicit, without for implicitfast)
PX_FN void pxk_implicitDeriv(PX_MD) {
  if (PX_LANE == 0) {
    for (int k = 0; k < MS(nD); k++) D(qDeriv, k) = PX_R(0.0);
    pxk_intgActuatorVel(PX_MDARG);
    pxk_intgPassiveVel(PX_MDARG);
  }
  PX_SYNC();
  if (MOPT(integrator) == PX_INT_IMPLICIT) pxk_rneVel(PX_MDARG);
}

// mj_implicitSkip after qDeriv, up to the advance: the modified mass matrix (qLU = M - h qDeriv
// factored in the D layout for implicit; qH = M - h qDeriv factored in the M layout for
// implicitfast, standalone free bodies solved by a local 6x6 LU), the acceleration to integrate
// in d->qacc_warmstart
PX_FN void pxk_implicitSolve(PX_MDC int skipfactor) {
  PXR h = MOPT(timestep);
  int full = MOPT(integrator) == PX_INT_IMPLICIT ? 1 : 0;
  if (skipfactor == 0) {
    if (full != 0) {
      for (int k = PX_LANE; k < MS(nD); k += PX_NLANE) {
        int mk = M(mapM2D, k);
        PXR g = mk >= 0 ? D(M, mk) : PX_ZERO;
        PXR t = D(qDeriv, k) * (-h);
        PXR x = g + t;
        D(qLU, k) = x;
      }
      PX_SYNC();
      pxk_intgFactorLU(PX_MDARG);
    } else {
      for (int k = PX_LANE; k < MS(nC); k += PX_NLANE) {
        PXR t = D(qDeriv, M(mapD2M, k)) * (-h);
        PXR x = D(M, k) + t;
        D(qH, k) = x;
      }
      PX_SYNC();
      if (PX_LANE == 0) {
        for (int j = 0; j < MS(njnt); j++) {
          if (M(jnt_type, j) != PX_JNT_FREE || pxk_fdIsFreeBody(PX_MDARGC M(jnt_bodyid, j)) == 0) {
            continue;
          }
          int adr = M(jnt_dofadr, j);
          for (int r = 0; r < 6; r++) {
            int radr = M(M_rowadr, adr + r);
            for (int k = 0; k < M(M_rownnz, adr + r); k++) D(qH, radr + k) = D(M, radr + k);
          }
        }
      }
      PX_SYNC();
      pxk_intgFactorH(PX_MDARG);
    }
  }
  if (full != 0) {
    pxk_intgSolveLU(PX_MDARG);
  } else {
    pxk_intgForce(PX_MDARG);
    pxk_intgSolveH(PX_MDARG);
    PXR A[36];
    PXR b[6];
    PXR x[6];
    if (PX_LANE == 0) {
      for (int j = 0; j < MS(njnt); j++) {
        if (pxk_intgFreeMhat(PX_MDARGC j, h, A) == 0) continue;
        int adr = M(jnt_dofadr, j);
        for (int k = 0; k < 6; k++) {
          PXR f = D(qfrc_smooth, adr + k) + D(qfrc_constraint, adr + k);
          b[k] = f;
        }
        if (pxk_intgSolve6(A, b, x) != 0) {
          for (int k = 0; k < 6; k++) D(qacc_warmstart, adr + k) = x[k];
        }
      }
    }
    PX_SYNC();
  }
}

#endif  // PX_KERN_INTEGRATE_H_
