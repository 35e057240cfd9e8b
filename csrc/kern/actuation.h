// SPDX-License-Identifier: Apache-2.0
// Actuation: MuJoCo 3.12's mj_fwdActuation (engine_forward.c) in the kernel dialect, with the
// muscle curves of engine_util_misc.c (mju_muscleGain, mju_muscleBias, mju_muscleDynamics) and
// mj_nextActivation of engine_support.c.
//
//   reads:  m->actuator_* (types, addresses, dynprm/gainprm/biasprm, ranges, limits, gear, group,
//           actearly, acc0, lengthrange), tendon_actfrclimited/actfrcrange, jnt_type/dofadr/
//           actgravcomp/actfrclimited/actfrcrange, ngravcomp, opt (timestep, gravity,
//           disableflags, disableactuator), d->ctrl, act, actuator_length, actuator_velocity,
//           actuator_moment, moment_rownnz/rowadr/colind, qfrc_gravcomp (from the passive stage)
//   writes: d->act_dot, actuator_force, qfrc_actuator, and the BADCTRL row of d->warning
// Controls are clamped to ctrlrange in a local copy (d->ctrl is left as written); when any
// clamped control is NaN or beyond mjMAXVAL, every control reads as 0 and the BADCTRL warning is
// counted, with the first bad index as lastinfo. Dynamics: none, integrator, filter,
// filterexact, muscle (with the smooth tausmooth switch) and user (act_dot 0: no callbacks);
// gains: fixed, affine, muscle, user (1); biases: none, affine, muscle, user (0). The DC motor,
// PID and SO(3) kinds, delays and plugins are refused by the host check px_actuationCheck.
// Ordering: per-actuator and per-tendon parts are lane-strided (disjoint outputs); the sparse
// product into qfrc_actuator runs on lane 0 in actuator order.
#ifndef PX_KERN_ACTUATION_H_
#define PX_KERN_ACTUATION_H_

#include "kern/forcemath.h"
#include "kern/history.h"

// normalized muscle length-gain curve (mju_muscleGainLength)
PX_FN PX_REAL pxk_acMuscleGainLength(PX_REAL len, PX_REAL lmin, PX_REAL lmax) {
  if (lmin <= len && len <= lmax) {
    PXR a = PX_R(0.5) * (lmin + PX_R(1.0));
    PXR b = PX_R(0.5) * (PX_R(1.0) + lmax);
    if (len <= a) {
      PXR den = a - lmin;
      PXR x = (len - lmin) / pxk_fmMAX(PXK_MINVAL, den);
      PXR res = PX_R(0.5) * x * x;
      return res;
    } else if (len <= PX_R(1.0)) {
      PXR den = PX_R(1.0) - a;
      PXR x = (PX_R(1.0) - len) / pxk_fmMAX(PXK_MINVAL, den);
      PXR res = PX_R(1.0) - PX_R(0.5) * x * x;
      return res;
    } else if (len <= b) {
      PXR den = b - PX_R(1.0);
      PXR x = (len - PX_R(1.0)) / pxk_fmMAX(PXK_MINVAL, den);
      PXR res = PX_R(1.0) - PX_R(0.5) * x * x;
      return res;
    } else {
      PXR den = lmax - b;
      PXR x = (lmax - len) / pxk_fmMAX(PXK_MINVAL, den);
      PXR res = PX_R(0.5) * x * x;
      return res;
    }
  }
  return PX_ZERO;
}

// peak force of a muscle: prm[2], or scale / acc0 when negative
PX_FN PX_REAL pxk_acMuscleForce(PX_IN(PX_REAL, prm, 10), PX_REAL acc0) {
  PXR force = prm[2];
  if (force < PX_R(0.0)) force = prm[3] / pxk_fmMAX(PXK_MINVAL, acc0);
  return force;
}

// active muscle force (mju_muscleGain), prm = (range[2], force, scale, lmin, lmax, vmax, fpmax,
// fvmax)
PX_FN PX_REAL pxk_acMuscleGain(PX_REAL len, PX_REAL vel, PX_REAL lr0, PX_REAL lr1, PX_REAL acc0,
                               PX_IN(PX_REAL, prm, 10)) {
  PXR force = pxk_acMuscleForce(prm, acc0);
  PXR lmin = prm[4];
  PXR lmax = prm[5];
  PXR vmax = prm[6];
  PXR fvmax = prm[8];

  // optimal length, normalized length and velocity
  PXR rspan = prm[1] - prm[0];
  PXR L0 = (lr1 - lr0) / pxk_fmMAX(PXK_MINVAL, rspan);
  PXR L = prm[0] + (len - lr0) / pxk_fmMAX(PXK_MINVAL, L0);
  PXR l0v = L0 * vmax;
  PXR V = vel / pxk_fmMAX(PXK_MINVAL, l0v);

  // length and velocity curves
  PXR FL = pxk_acMuscleGainLength(L, lmin, lmax);
  PXR FV = fvmax;
  PXR y = fvmax - PX_R(1.0);
  if (V <= PX_R(-1.0)) {
    FV = PX_ZERO;
  } else if (V <= PX_R(0.0)) {
    FV = (V + PX_R(1.0)) * (V + PX_R(1.0));
  } else if (V <= y) {
    FV = fvmax - (y - V) * (y - V) / pxk_fmMAX(PXK_MINVAL, y);
  }
  PXR nf = -force;
  PXR res = nf * FL * FV;
  return res;
}

// passive muscle force (mju_muscleBias)
PX_FN PX_REAL pxk_acMuscleBias(PX_REAL len, PX_REAL lr0, PX_REAL lr1, PX_REAL acc0,
                               PX_IN(PX_REAL, prm, 10)) {
  PXR force = pxk_acMuscleForce(prm, acc0);
  PXR lmax = prm[5];
  PXR fpmax = prm[7];
  PXR rspan = prm[1] - prm[0];
  PXR L0 = (lr1 - lr0) / pxk_fmMAX(PXK_MINVAL, rspan);
  PXR L = prm[0] + (len - lr0) / pxk_fmMAX(PXK_MINVAL, L0);

  // half-quadratic up to (1 + lmax) / 2, linear beyond
  PXR b = PX_R(0.5) * (PX_R(1.0) + lmax);
  PXR nf = -force;
  if (L <= PX_R(1.0)) return PX_ZERO;
  PXR bm1 = b - PX_R(1.0);
  if (L <= b) {
    PXR x = (L - PX_R(1.0)) / pxk_fmMAX(PXK_MINVAL, bm1);
    PXR res = nf * fpmax * PX_R(0.5) * x * x;
    return res;
  }
  PXR x = (L - b) / pxk_fmMAX(PXK_MINVAL, bm1);
  PXR res = nf * fpmax * (PX_R(0.5) + x);
  return res;
}

// muscle activation dynamics (mju_muscleDynamics), prm = (tau_act, tau_deact, tausmooth)
PX_FN PX_REAL pxk_acMuscleDynamics(PX_REAL ctrl, PX_REAL act, PX_REAL tau_a, PX_REAL tau_d,
                                   PX_REAL tsmooth) {
  PXR ctrlclamp = pxk_fmClip(ctrl, PX_ZERO, PX_R(1.0));
  PXR actclamp = pxk_fmClip(act, PX_ZERO, PX_R(1.0));
  PXR scl = PX_R(0.5) + PX_R(1.5) * actclamp;
  PXR tau_act = tau_a * scl;
  PXR tau_deact = tau_d / scl;
  PXR dctrl = ctrlclamp - act;

  // time constant: hard switch, or a sigmoid blend over the smoothing width
  PXR tau = tau_deact;
  if (tsmooth < PXK_MINVAL) {
    if (dctrl > PX_R(0.0)) tau = tau_act;
  } else {
    PXR s = dctrl / tsmooth + PX_R(0.5);
    PXR sg = pxk_fmSigmoid(s);
    tau = tau_deact + (tau_act - tau_deact) * sg;
  }
  PXR res = dctrl / pxk_fmMAX(PXK_MINVAL, tau);
  return res;
}

// control j as the actuators read it: clamped to its range unless clamping is disabled, 0 for all
// controls when any is bad (bad >= 0)
PX_FN PX_REAL pxk_acCtrl(PX_MDC int j, int bad) {
  if (bad >= 0) return PX_ZERO;
#ifdef PXK_AC_CTRLIN
  PXR c = PXK_AC_CTRLIN(j);
#else
  PXR c = D(ctrl, j);
#endif
  if ((MOPT(disableflags) & PX_DSBL_CLAMPCTRL) == 0 && M(actuator_ctrllimited, j) != 0) {
    c = pxk_fmClip(c, M(actuator_ctrlrange, 2 * j), M(actuator_ctrlrange, 2 * j + 1));
  }
  return c;
}

// index of the first control that is bad after clamping, -1 if none
PX_FN int pxk_acBadCtrl(PX_MD) {
  for (int j = 0; j < MS(nu); j++) {
    PXR c = pxk_acCtrl(PX_MDARGC j, -1);
    if (pxk_fmIsBad(c) != 0) return j;
  }
  return -1;
}

// the activation after one step with act_dot, clamped to actrange (mj_nextActivation)
PX_FN PX_REAL pxk_acNextActivation(PX_MDC int i, int act_adr, PX_REAL act_dot) {
  PXR a = D(act, act_adr);
  PXR h = MOPT(timestep);
  if (M(actuator_dyntype, i) == PX_DYN_FILTEREXACT) {
    // exact integration of the filter over the step
    PXR tau = pxk_fmMax(PXK_MINVAL, M(actuator_dynprm, 10 * i));
    PXR nh = -h;
    PXR r = nh / tau;
    PXR e = pxk_exp(r);
    PXR one_e = PX_R(1.0) - e;
    a = a + act_dot * tau * one_e;
  } else {
    a = a + act_dot * h;
  }
  if (M(actuator_actlimited, i) != 0) {
    a = pxk_fmClip(a, M(actuator_actrange, 2 * i), M(actuator_actrange, 2 * i + 1));
  }
  return a;
}

// whether actuator i is disabled by its group (mj_actuatorDisabled)
PX_FN int pxk_acDisabled(PX_MDC int i) {
  int group = M(actuator_group, i);
  if (group < 0 || group > 30) return 0;
  return (MOPT(disableactuator) & (1 << group)) != 0 ? 1 : 0;
}

// period of the setpoint of a position servo on a rotational transmission, 0 for others
// (wrapPeriod of engine_forward.c; the PID servos it also covers are refused by the host check)
PX_FN PX_REAL pxk_acWrapPeriod(PX_MDC int i) {
  PXR g[3];
  PXR nb = -M(actuator_biasprm, 10 * i + 1);
  int dyn = M(actuator_dyntype, i);
  int servo =
      (M(actuator_gaintype, i) == PX_GAIN_FIXED && M(actuator_biastype, i) == PX_BIAS_AFFINE &&
       M(actuator_gainprm, 10 * i) == nb && (dyn == PX_DYN_NONE || dyn == PX_DYN_INTEGRATOR))
          ? 1
          : 0;
  if (servo == 0) return PX_ZERO;
  int gadr = 6 * M(actuator_outadr, i);
  int trn = M(actuator_trntype, i);
  if (trn == PX_TRN_SITE && M(actuator_trnid, 2 * i + 1) >= 0 &&
      M(actuator_gear, gadr) == PX_R(0.0) && M(actuator_gear, gadr + 1) == PX_R(0.0) &&
      M(actuator_gear, gadr + 2) == PX_R(0.0)) {
    PXK_GET(3, g, M, actuator_gear, gadr + 3);
    PXR n = pxk_fmNorm3(g);
    PXR res = PXK_FM_2PI * n;
    return res;
  }
  if ((trn == PX_TRN_JOINT || trn == PX_TRN_JOINTINPARENT) &&
      M(jnt_type, M(actuator_trnid, 2 * i)) == PX_JNT_BALL) {
    PXK_GET(3, g, M, actuator_gear, gadr);
    PXR n = pxk_fmNorm3(g);
    PXR res = PXK_FM_2PI * n;
    return res;
  }
  return PX_ZERO;
}

// the representative of setpoint u nearest to len, for a period (wrapSetpoint)
PX_FN PX_REAL pxk_acWrapSetpoint(PX_REAL u, PX_REAL len, PX_REAL period) {
  PXR err = u - len;
  PXR q = err / period;
  PXR r = pxk_fmRound(q);
  PXR res = u - period * r;
  return res;
}

// act_dot of actuator i (lane-strided caller)
PX_FN void pxk_acActDot(PX_MDC int i, int bad) {
  int act_first = M(actuator_actadr, i);
  if (act_first < 0) return;
  int uadr = M(actuator_ctrladr, i);
  int actnum = M(actuator_actnum, i);
  for (int k = 0; k < actnum; k++) D(act_dot, act_first + k) = PX_R(0.0);
  int act_last = act_first + actnum - 1;
  int dyn = M(actuator_dyntype, i);
  if (dyn == PX_DYN_INTEGRATOR) {
    int num = M(actuator_ctrlnum, i);
    for (int j = 0; j < num; j++) {
      D(act_dot, act_last - num + 1 + j) = pxk_acCtrl(PX_MDARGC uadr + j, bad);
    }
  } else if (dyn == PX_DYN_FILTER || dyn == PX_DYN_FILTEREXACT) {
    PXR tau = pxk_fmMax(PXK_MINVAL, M(actuator_dynprm, 10 * i));
    PXR c = pxk_acCtrl(PX_MDARGC uadr, bad);
    PXR v = (c - D(act, act_last)) / tau;
    D(act_dot, act_last) = v;
  } else if (dyn == PX_DYN_MUSCLE) {
    PXR c = pxk_acCtrl(PX_MDARGC uadr, bad);
    D(act_dot, act_last) =
        pxk_acMuscleDynamics(c, D(act, act_last), M(actuator_dynprm, 10 * i),
                             M(actuator_dynprm, 10 * i + 1), M(actuator_dynprm, 10 * i + 2));
  }
  // user dynamics without a callback: act_dot stays 0
}

// scalar force of actuator i, before limits (lane-strided caller)
PX_FN void pxk_acForce(PX_MDC int i, int bad) {
  PXR prm[10];
  if (pxk_acDisabled(PX_MDARGC i) != 0 || M(actuator_plugin, i) >= 0) return;
  int uadr = M(actuator_ctrladr, i);
  int oadr = M(actuator_outadr, i);
  int actnum = M(actuator_actnum, i);
  PXR len = D(actuator_length, oadr);
  PXR vel = D(actuator_velocity, oadr);

  // gain
  int gtype = M(actuator_gaintype, i);
  PXR gain = PX_R(1.0);
  if (gtype == PX_GAIN_FIXED) {
    gain = M(actuator_gainprm, 10 * i);
  } else if (gtype == PX_GAIN_AFFINE) {
    gain = M(actuator_gainprm, 10 * i) + M(actuator_gainprm, 10 * i + 1) * len +
           M(actuator_gainprm, 10 * i + 2) * vel;
  } else if (gtype == PX_GAIN_MUSCLE) {
    PXK_GET(10, prm, M, actuator_gainprm, 10 * i);
    gain = pxk_acMuscleGain(len, vel, M(actuator_lengthrange, 2 * oadr),
                            M(actuator_lengthrange, 2 * oadr + 1), M(actuator_acc0, oadr), prm);
  }

  // force = gain * (control or last activation), setpoints of rotational servos wrapped
  PXR period = pxk_acWrapPeriod(PX_MDARGC i);
  PXR u = PX_ZERO;
  if (actnum == 0) {
    if (M(actuator_ctrlnum, i) != 0) u = pxk_acCtrl(PX_MDARGC uadr, bad);
  } else {
    int act_adr = M(actuator_actadr, i) + actnum - 1;
    if (M(actuator_actearly, i) != 0) {
      u = pxk_acNextActivation(PX_MDARGC i, act_adr, D(act_dot, act_adr));
    } else {
      u = D(act, act_adr);
    }
  }
  if (period > PX_R(0.0)) u = pxk_acWrapSetpoint(u, len, period);
  PXR force = gain * u;

  // bias
  int btype = M(actuator_biastype, i);
  PXR bias = PX_ZERO;
  if (btype == PX_BIAS_AFFINE) {
    bias = M(actuator_biasprm, 10 * i) + M(actuator_biasprm, 10 * i + 1) * len +
           M(actuator_biasprm, 10 * i + 2) * vel;
  } else if (btype == PX_BIAS_MUSCLE) {
    PXK_GET(10, prm, M, actuator_biasprm, 10 * i);
    bias = pxk_acMuscleBias(len, M(actuator_lengthrange, 2 * oadr),
                            M(actuator_lengthrange, 2 * oadr + 1), M(actuator_acc0, oadr), prm);
  }
  force = force + bias;
  D(actuator_force, oadr) = force;
}

// scale the forces of the actuators on tendon t so that their sum is within the tendon's
// actuator force range (lane-strided caller)
PX_FN void pxk_acTendonLimit(PX_MDC int t) {
  if (M(tendon_actfrclimited, t) == 0) return;
  PXR total = PX_ZERO;
  for (int i = 0; i < MS(nu); i++) {
    if (M(actuator_trntype, i) == PX_TRN_TENDON && M(actuator_trnid, 2 * i) == t) {
      total = total + D(actuator_force, M(actuator_outadr, i));
    }
  }
  if (total == PX_R(0.0)) return;
  PXR lo = M(tendon_actfrcrange, 2 * t);
  PXR hi = M(tendon_actfrcrange, 2 * t + 1);
  for (int i = 0; i < MS(nu); i++) {
    if (M(actuator_trntype, i) != PX_TRN_TENDON || M(actuator_trnid, 2 * i) != t) continue;
    int oadr = M(actuator_outadr, i);
    if (total < lo) {
      PXR s = lo / total;
      PXR f = D(actuator_force, oadr) * s;
      D(actuator_force, oadr) = f;
    } else if (total > hi) {
      PXR s = hi / total;
      PXR f = D(actuator_force, oadr) * s;
      D(actuator_force, oadr) = f;
    }
  }
}

// actuator forces, activation derivatives and generalized actuator forces of one world
PX_FN void pxk_actuation(PX_MD) {
  int nv = MS(nv);
  for (int i = PX_LANE; i < MS(nout); i += PX_NLANE) D(actuator_force, i) = PX_R(0.0);
  if (MS(nu) == 0 || (MOPT(disableflags) & PX_DSBL_ACTUATION) != 0) {
    for (int i = PX_LANE; i < nv; i += PX_NLANE) D(qfrc_actuator, i) = PX_R(0.0);
    return;
  }

  // bad controls: every lane finds the same index; lane 0 counts the warning
  int bad = pxk_acBadCtrl(PX_MDARG);
  if (bad >= 0 && PX_LANE == 0) {
    D(warning, 2 * PX_WARN_BADCTRL) = bad;
    D(warning, 2 * PX_WARN_BADCTRL + 1) = D(warning, 2 * PX_WARN_BADCTRL + 1) + 1;
  }

  // activation dynamics
  for (int i = PX_LANE; i < MS(nu); i += PX_NLANE) pxk_acActDot(PX_MDARGC i, bad);
  PX_SYNC();

  // forces, tendon force limits, actuator force limits
  for (int i = PX_LANE; i < MS(nu); i += PX_NLANE) pxk_acForce(PX_MDARGC i, bad);
  PX_SYNC();
  for (int t = PX_LANE; t < MS(ntendon); t += PX_NLANE) pxk_acTendonLimit(PX_MDARGC t);
  PX_SYNC();
  for (int i = PX_LANE; i < MS(nu); i += PX_NLANE) {
    if (M(actuator_forcelimited, i) == 0) continue;
    PXR lo = M(actuator_forcerange, 2 * i);
    PXR hi = M(actuator_forcerange, 2 * i + 1);
    int oadr = M(actuator_outadr, i);
    for (int j = 0; j < M(actuator_outnum, i); j++) {
      D(actuator_force, oadr + j) = pxk_fmClip(D(actuator_force, oadr + j), lo, hi);
    }
  }
  PX_SYNC();

  // qfrc_actuator = moment' force, in actuator order
  if (PX_LANE == 0) {
    for (int i = 0; i < nv; i++) D(qfrc_actuator, i) = PX_R(0.0);
    for (int i = 0; i < MS(nout); i++) {
      PXR scl = D(actuator_force, i);
      if (scl == PX_R(0.0)) continue;
      int adr = D(moment_rowadr, i);
      int end = adr + D(moment_rownnz, i);
      for (int j = adr; j < end; j++) {
        int k = D(moment_colind, j);
        PXR s = D(qfrc_actuator, k) + D(actuator_moment, j) * scl;
        D(qfrc_actuator, k) = s;
      }
    }
  }
  PX_SYNC();

  // gravity compensation routed through actuators, then joint actuator force limits (first dof)
  int gravcomp = 0;
  if (MS(ngravcomp) > 0 && (MOPT(disableflags) & PX_DSBL_GRAVITY) == 0) {
    PXR gr[3];
    gr[0] = MOPT(gravity)[0];
    gr[1] = MOPT(gravity)[1];
    gr[2] = MOPT(gravity)[2];
    PXR gn = pxk_fmNorm3(gr);
    if (gn != PX_R(0.0)) gravcomp = 1;
  }
  for (int j = PX_LANE; j < MS(njnt); j += PX_NLANE) {
    int dofadr = M(jnt_dofadr, j);
    if (gravcomp != 0 && M(jnt_actgravcomp, j) != 0) {
      int jtype = M(jnt_type, j);
      int dofnum = jtype == PX_JNT_FREE ? 6 : (jtype == PX_JNT_BALL ? 3 : 1);
      for (int k = 0; k < dofnum; k++) {
        PXR s = D(qfrc_actuator, dofadr + k) + D(qfrc_gravcomp, dofadr + k);
        D(qfrc_actuator, dofadr + k) = s;
      }
    }
    if (M(jnt_actfrclimited, j) != 0) {
      D(qfrc_actuator, dofadr) = pxk_fmClip(D(qfrc_actuator, dofadr), M(jnt_actfrcrange, 2 * j),
                                            M(jnt_actfrcrange, 2 * j + 1));
    }
  }
}

#endif  // PX_KERN_ACTUATION_H_
