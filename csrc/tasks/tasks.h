// SPDX-License-Identifier: Apache-2.0
// The eleven Gymnasium MuJoCo v5 tasks in the kernel dialect: for one world, the observation,
// and after a step the reward, the termination and the reward terms and scalar infos that
// Gymnasium 1.x reports, from the world's Model/Data after the frame_skip steps and
// mj_rnePostConstraint.
//
// Every task is three functions over one world:
//   pxt_<task>Pre(m, d, prm, pre)       the position a displacement reward needs, read before
//                                        the step (the same stale frames Gymnasium reads);
//   pxt_<task>Obs(m, d, prm, obs)       the float64 observation (Gymnasium v5's layout);
//   pxt_<task>Reward(m, d, prm, pre, res)  res[0] reward, res[1] terminated (0 or 1), then the
//                                        task's infos in the order of PXT_INFO_<task> (see
//                                        python/phalanx/tasks.py, which names them).
// prm holds the task's keyword arguments and model indices (PXT_P_* slots, filled by the
// Python layer). The dispatchers pxt_pre/pxt_obs/pxt_reward select by task id.
//
// Dialect: real arithmetic only in PXR locals; sin/cos from libm.h; no pointers.
#ifndef PX_TASKS_TASKS_H_
#define PX_TASKS_TASKS_H_

#include "kern/libm.h"

// task ids (the order of phalanx.tasks.TASK_IDS)
#define PXT_ANT 0
#define PXT_HALFCHEETAH 1
#define PXT_HOPPER 2
#define PXT_WALKER2D 3
#define PXT_HUMANOID 4
#define PXT_HUMANOIDSTANDUP 5
#define PXT_SWIMMER 6
#define PXT_REACHER 7
#define PXT_PUSHER 8
#define PXT_INVERTEDPENDULUM 9
#define PXT_INVERTEDDOUBLEPENDULUM 10
#define PXT_NTASK 11

// parameter slots
#define PXT_P_FWD 0      // forward_reward_weight (reward_dist_weight for Reacher, Pusher)
#define PXT_P_CTRL 1     // ctrl_cost_weight (reward_control_weight for Reacher, Pusher)
#define PXT_P_CONTACT 2  // contact_cost_weight (impact_cost_weight for HumanoidStandup)
#define PXT_P_HEALTHY 3  // healthy_reward
#define PXT_P_TERM 4     // terminate_when_unhealthy (0 or 1)
#define PXT_P_ZLO 5      // healthy_z_range
#define PXT_P_ZHI 6      //
#define PXT_P_ALO 7      // healthy_angle_range
#define PXT_P_AHI 8      //
#define PXT_P_SLO 9      // healthy_state_range
#define PXT_P_SHI 10     //
#define PXT_P_CLO 11     // contact_force_range (Ant), contact_cost_range, impact_cost_range
#define PXT_P_CHI 12     //
#define PXT_P_EXCL 13    // exclude_current_positions_from_observation (0 or 1)
#define PXT_P_CFRC 14    // include_cfrc_ext_in_observation
#define PXT_P_CINERT 15  // include_cinert_in_observation
#define PXT_P_CVEL 16    // include_cvel_in_observation
#define PXT_P_QFRC 17    // include_qfrc_actuator_in_observation
#define PXT_P_BODY 18    // main body (Ant), fingertip (Reacher), tips_arm (Pusher)
#define PXT_P_BODY2 19   // target (Reacher), object (Pusher)
#define PXT_P_BODY3 20   // goal (Pusher)
#define PXT_P_DT 21      // env step: timestep * frame_skip
#define PXT_P_NEAR 22    // reward_near_weight (Pusher)
#define PXT_NPRM 32

// sizes
#define PXT_MAXOBS 1024
#define PXT_NOUT 16

PX_FN int pxt_on(PX_REAL flag) {
  return flag != PX_R(0.0) ? 1 : 0;
}

PX_FN PX_REAL pxt_clip(PX_REAL x, PX_REAL lo, PX_REAL hi) {
  PXR v = x;
  if (v < lo) v = lo;
  if (v > hi) v = hi;
  return v;
}

PX_FN int pxt_finite(PX_REAL x) {
  return (pxk_isNan(x) == 0 && pxk_isInf(x) == 0) ? 1 : 0;
}

// sum of squares of the controls
PX_FN PX_REAL pxt_ctrlSq(PX_MD) {
  PXR s = PX_ZERO;
  for (int i = 0; i < MS(nu); i++) {
    PXR c = D(ctrl, i);
    s = s + c * c;
  }
  return s;
}

// Euclidean norm of the first two qpos (distance_from_origin)
PX_FN PX_REAL pxt_dist2(PX_MD) {
  PXR x = D(qpos, 0);
  PXR y = D(qpos, 1);
  PXR r = PX_SQRT(x * x + y * y);
  return r;
}

// |xpos[a] - xpos[b]|
PX_FN PX_REAL pxt_bodyDist(PX_MDC int a, int b) {
  PXR s = PX_ZERO;
  for (int k = 0; k < 3; k++) {
    PXR v = D(xpos, 3 * a + k) - D(xpos, 3 * b + k);
    s = s + v * v;
  }
  PXR r = PX_SQRT(s);
  return r;
}

// qpos (from `from`) then qvel (clipped to +-clip when clip > 0) into obs from k; returns k
PX_FN int pxt_obsState(PX_MDC int from, PX_REAL clip, PX_OUT(PX_REAL, obs, PXT_MAXOBS), int k) {
  for (int i = from; i < MS(nq); i++) {
    obs[k] = D(qpos, i);
    k++;
  }
  for (int i = 0; i < MS(nv); i++) {
    PXR v = D(qvel, i);
    PXR lo = -clip;
    if (clip > PX_R(0.0)) v = pxt_clip(v, lo, clip);
    obs[k] = v;
    k++;
  }
  return k;
}

// Humanoid and HumanoidStandup: the state and the optional cinert, cvel, qfrc_actuator, cfrc_ext
PX_FN void pxt_humanoidObs(PX_MDC PX_IN(PX_REAL, prm, PXT_NPRM), PX_OUT(PX_REAL, obs, PXT_MAXOBS)) {
  int k = pxt_obsState(PX_MDARGC 2 * pxt_on(prm[PXT_P_EXCL]), PX_R(0.0), obs, 0);
  if (pxt_on(prm[PXT_P_CINERT]) == 1) {
    for (int i = 10; i < 10 * MS(nbody); i++) {
      obs[k] = D(cinert, i);
      k++;
    }
  }
  if (pxt_on(prm[PXT_P_CVEL]) == 1) {
    for (int i = 6; i < 6 * MS(nbody); i++) {
      obs[k] = D(cvel, i);
      k++;
    }
  }
  if (pxt_on(prm[PXT_P_QFRC]) == 1) {
    for (int i = 6; i < MS(nv); i++) {
      obs[k] = D(qfrc_actuator, i);
      k++;
    }
  }
  if (pxt_on(prm[PXT_P_CFRC]) == 1) {
    for (int i = 6; i < 6 * MS(nbody); i++) {
      obs[k] = D(cfrc_ext, i);
      k++;
    }
  }
}

// x, y of the center of mass of all bodies (the xipos weighted by body_mass)
PX_FN void pxt_massCenter(PX_MDC PX_OUT(PX_REAL, res, 2)) {
  PXR mass = PX_ZERO;
  PXR sx = PX_ZERO;
  PXR sy = PX_ZERO;
  for (int b = 0; b < MS(nbody); b++) {
    PXR mb = M(body_mass, b);
    mass = mass + mb;
    sx = sx + mb * D(xipos, 3 * b);
    sy = sy + mb * D(xipos, 3 * b + 1);
  }
  PXR x = sx / mass;
  PXR y = sy / mass;
  res[0] = x;
  res[1] = y;
}

//---------------------------------- Ant -----------------------------------------------------------

PX_FN void pxt_antPre(PX_MDC PX_IN(PX_REAL, prm, PXT_NPRM), PX_OUT(PX_REAL, pre, 2)) {
  int b = PX_INT(prm[PXT_P_BODY]);
  pre[0] = D(xpos, 3 * b);
  pre[1] = D(xpos, 3 * b + 1);
}

PX_FN void pxt_antObs(PX_MDC PX_IN(PX_REAL, prm, PXT_NPRM), PX_OUT(PX_REAL, obs, PXT_MAXOBS)) {
  int k = pxt_obsState(PX_MDARGC 2 * pxt_on(prm[PXT_P_EXCL]), PX_R(0.0), obs, 0);
  if (pxt_on(prm[PXT_P_CFRC]) == 1) {
    for (int i = 6; i < 6 * MS(nbody); i++) {
      obs[k] = pxt_clip(D(cfrc_ext, i), prm[PXT_P_CLO], prm[PXT_P_CHI]);
      k++;
    }
  }
}

// infos: x_position, y_position, distance_from_origin, x_velocity, y_velocity, reward_forward,
// reward_ctrl, reward_contact, reward_survive
PX_FN void pxt_antReward(PX_MDC PX_IN(PX_REAL, prm, PXT_NPRM), PX_IN(PX_REAL, pre, 2),
                         PX_OUT(PX_REAL, res, PXT_NOUT)) {
  int b = PX_INT(prm[PXT_P_BODY]);
  PXR vx = (D(xpos, 3 * b) - pre[0]) / prm[PXT_P_DT];
  PXR vy = (D(xpos, 3 * b + 1) - pre[1]) / prm[PXT_P_DT];
  int healthy = 1;
  for (int i = 0; i < MS(nq); i++) healthy = healthy * pxt_finite(D(qpos, i));
  for (int i = 0; i < MS(nv); i++) healthy = healthy * pxt_finite(D(qvel, i));
  PXR z = D(qpos, 2);
  if (!(prm[PXT_P_ZLO] <= z && z <= prm[PXT_P_ZHI])) healthy = 0;
  PXR fwd = vx * prm[PXT_P_FWD];
  PXR survive = PX_TOREAL(healthy) * prm[PXT_P_HEALTHY];
  PXR ctrl = prm[PXT_P_CTRL] * pxt_ctrlSq(PX_MDARG);
  PXR csum = PX_ZERO;
  for (int i = 0; i < 6 * MS(nbody); i++) {
    PXR f = pxt_clip(D(cfrc_ext, i), prm[PXT_P_CLO], prm[PXT_P_CHI]);
    csum = csum + f * f;
  }
  PXR contact = prm[PXT_P_CONTACT] * csum;
  PXR gain = fwd + survive;
  PXR cost = ctrl + contact;
  PXR reward = gain - cost;
  res[0] = reward;
  res[1] = PX_TOREAL((1 - healthy) * pxt_on(prm[PXT_P_TERM]));
  res[2] = D(qpos, 0);
  res[3] = D(qpos, 1);
  res[4] = pxt_dist2(PX_MDARG);
  res[5] = vx;
  res[6] = vy;
  res[7] = fwd;
  res[8] = -ctrl;
  res[9] = -contact;
  res[10] = survive;
}

//---------------------------------- HalfCheetah, Hopper, Walker2d ---------------------------------

PX_FN void pxt_xPre(PX_MDC PX_OUT(PX_REAL, pre, 2)) {
  pre[0] = D(qpos, 0);
  pre[1] = D(qpos, 1);
}

PX_FN void pxt_halfCheetahObs(PX_MDC PX_IN(PX_REAL, prm, PXT_NPRM),
                              PX_OUT(PX_REAL, obs, PXT_MAXOBS)) {
  pxt_obsState(PX_MDARGC pxt_on(prm[PXT_P_EXCL]), PX_R(0.0), obs, 0);
}

// infos: x_position, x_velocity, reward_forward, reward_ctrl
PX_FN void pxt_halfCheetahReward(PX_MDC PX_IN(PX_REAL, prm, PXT_NPRM), PX_IN(PX_REAL, pre, 2),
                                 PX_OUT(PX_REAL, res, PXT_NOUT)) {
  PXR vx = (D(qpos, 0) - pre[0]) / prm[PXT_P_DT];
  PXR fwd = prm[PXT_P_FWD] * vx;
  PXR ctrl = prm[PXT_P_CTRL] * pxt_ctrlSq(PX_MDARG);
  PXR reward = fwd - ctrl;
  res[0] = reward;
  res[1] = PX_R(0.0);
  res[2] = D(qpos, 0);
  res[3] = vx;
  res[4] = fwd;
  res[5] = -ctrl;
}

// Hopper and Walker2d: qpos (without x), qvel clipped to +-10
PX_FN void pxt_hopperObs(PX_MDC PX_IN(PX_REAL, prm, PXT_NPRM), PX_OUT(PX_REAL, obs, PXT_MAXOBS)) {
  pxt_obsState(PX_MDARGC pxt_on(prm[PXT_P_EXCL]), PX_R(10.0), obs, 0);
}

// Hopper and Walker2d; infos: x_position, z_distance_from_origin, x_velocity, reward_forward,
// reward_ctrl, reward_survive. The state range is checked for Hopper only.
PX_FN void pxt_hopperReward(PX_MDC PX_IN(PX_REAL, prm, PXT_NPRM), PX_IN(PX_REAL, pre, 2),
                            int checkState, PX_OUT(PX_REAL, res, PXT_NOUT)) {
  PXR vx = (D(qpos, 0) - pre[0]) / prm[PXT_P_DT];
  PXR z = D(qpos, 1);
  PXR angle = D(qpos, 2);
  int healthy = 1;
  if (checkState == 1) {
    for (int i = 2; i < MS(nq) + MS(nv); i++) {
      PXR s = PX_ZERO;
      if (i < MS(nq)) {
        s = D(qpos, i);
      } else {
        s = D(qvel, i - MS(nq));
      }
      if (!(prm[PXT_P_SLO] < s && s < prm[PXT_P_SHI])) healthy = 0;
    }
  }
  if (!(prm[PXT_P_ZLO] < z && z < prm[PXT_P_ZHI])) healthy = 0;
  if (!(prm[PXT_P_ALO] < angle && angle < prm[PXT_P_AHI])) healthy = 0;
  PXR fwd = prm[PXT_P_FWD] * vx;
  PXR survive = PX_TOREAL(healthy) * prm[PXT_P_HEALTHY];
  PXR ctrl = prm[PXT_P_CTRL] * pxt_ctrlSq(PX_MDARG);
  PXR gain = fwd + survive;
  PXR reward = gain - ctrl;
  PXR dz = D(qpos, 1) - M(qpos0, 1);
  res[0] = reward;
  res[1] = PX_TOREAL((1 - healthy) * pxt_on(prm[PXT_P_TERM]));
  res[2] = D(qpos, 0);
  res[3] = dz;
  res[4] = vx;
  res[5] = fwd;
  res[6] = -ctrl;
  res[7] = survive;
}

//---------------------------------- Humanoid, HumanoidStandup -------------------------------------

PX_FN void pxt_humanoidPre(PX_MDC PX_OUT(PX_REAL, pre, 2)) {
  pxt_massCenter(PX_MDARGC pre);
}

// infos: x_position, y_position, distance_from_origin, x_velocity, y_velocity, reward_survive,
// reward_forward, reward_ctrl, reward_contact (tendon_length/velocity: the Python layer)
PX_FN void pxt_humanoidReward(PX_MDC PX_IN(PX_REAL, prm, PXT_NPRM), PX_IN(PX_REAL, pre, 2),
                              PX_OUT(PX_REAL, res, PXT_NOUT)) {
  PX_REAL com[2];
  pxt_massCenter(PX_MDARGC com);
  PXR vx = (com[0] - pre[0]) / prm[PXT_P_DT];
  PXR vy = (com[1] - pre[1]) / prm[PXT_P_DT];
  PXR z = D(qpos, 2);
  int healthy = (prm[PXT_P_ZLO] < z && z < prm[PXT_P_ZHI]) ? 1 : 0;
  PXR fwd = prm[PXT_P_FWD] * vx;
  PXR survive = PX_TOREAL(healthy) * prm[PXT_P_HEALTHY];
  PXR ctrl = prm[PXT_P_CTRL] * pxt_ctrlSq(PX_MDARG);
  PXR csum = PX_ZERO;
  for (int i = 0; i < 6 * MS(nbody); i++) {
    PXR f = D(cfrc_ext, i);
    csum = csum + f * f;
  }
  PXR contact = prm[PXT_P_CONTACT] * csum;
  contact = pxt_clip(contact, prm[PXT_P_CLO], prm[PXT_P_CHI]);
  PXR gain = fwd + survive;
  PXR cost = ctrl + contact;
  PXR reward = gain - cost;
  res[0] = reward;
  res[1] = PX_TOREAL((1 - healthy) * pxt_on(prm[PXT_P_TERM]));
  res[2] = D(qpos, 0);
  res[3] = D(qpos, 1);
  res[4] = pxt_dist2(PX_MDARG);
  res[5] = vx;
  res[6] = vy;
  res[7] = survive;
  res[8] = fwd;
  res[9] = -ctrl;
  res[10] = -contact;
}

// infos: x_position, y_position, z_distance_from_origin, reward_linup, reward_quadctrl,
// reward_impact (uph_cost_weight is accepted but unused, as in Gymnasium)
PX_FN void pxt_standupReward(PX_MDC PX_IN(PX_REAL, prm, PXT_NPRM), PX_OUT(PX_REAL, res, PXT_NOUT)) {
  PXR uph = (D(qpos, 2) - PX_ZERO) / MOPT(timestep);
  PXR ctrl = prm[PXT_P_CTRL] * pxt_ctrlSq(PX_MDARG);
  PXR csum = PX_ZERO;
  for (int i = 0; i < 6 * MS(nbody); i++) {
    PXR f = D(cfrc_ext, i);
    csum = csum + f * f;
  }
  PXR impact = prm[PXT_P_CONTACT] * csum;
  impact = pxt_clip(impact, prm[PXT_P_CLO], prm[PXT_P_CHI]);
  PXR r1 = uph - ctrl;
  PXR r2 = r1 - impact;
  PXR reward = r2 + PX_R(1.0);
  PXR dz = D(qpos, 2) - M(qpos0, 2);
  res[0] = reward;
  res[1] = PX_R(0.0);
  res[2] = D(qpos, 0);
  res[3] = D(qpos, 1);
  res[4] = dz;
  res[5] = uph;
  res[6] = -ctrl;
  res[7] = -impact;
}

//---------------------------------- Swimmer -------------------------------------------------------

PX_FN void pxt_swimmerObs(PX_MDC PX_IN(PX_REAL, prm, PXT_NPRM), PX_OUT(PX_REAL, obs, PXT_MAXOBS)) {
  pxt_obsState(PX_MDARGC 2 * pxt_on(prm[PXT_P_EXCL]), PX_R(0.0), obs, 0);
}

// infos: x_position, y_position, distance_from_origin, x_velocity, y_velocity, reward_forward,
// reward_ctrl
PX_FN void pxt_swimmerReward(PX_MDC PX_IN(PX_REAL, prm, PXT_NPRM), PX_IN(PX_REAL, pre, 2),
                             PX_OUT(PX_REAL, res, PXT_NOUT)) {
  PXR vx = (D(qpos, 0) - pre[0]) / prm[PXT_P_DT];
  PXR vy = (D(qpos, 1) - pre[1]) / prm[PXT_P_DT];
  PXR fwd = prm[PXT_P_FWD] * vx;
  PXR ctrl = prm[PXT_P_CTRL] * pxt_ctrlSq(PX_MDARG);
  PXR reward = fwd - ctrl;
  res[0] = reward;
  res[1] = PX_R(0.0);
  res[2] = D(qpos, 0);
  res[3] = D(qpos, 1);
  res[4] = pxt_dist2(PX_MDARG);
  res[5] = vx;
  res[6] = vy;
  res[7] = fwd;
  res[8] = -ctrl;
}

//---------------------------------- Reacher, Pusher -----------------------------------------------

PX_FN void pxt_reacherObs(PX_MDC PX_IN(PX_REAL, prm, PXT_NPRM), PX_OUT(PX_REAL, obs, PXT_MAXOBS)) {
  int f = PX_INT(prm[PXT_P_BODY]);
  int t = PX_INT(prm[PXT_P_BODY2]);
  obs[0] = pxk_cos(D(qpos, 0));
  obs[1] = pxk_cos(D(qpos, 1));
  obs[2] = pxk_sin(D(qpos, 0));
  obs[3] = pxk_sin(D(qpos, 1));
  int k = 4;
  for (int i = 2; i < MS(nq); i++) {
    obs[k] = D(qpos, i);
    k++;
  }
  obs[k] = D(qvel, 0);
  obs[k + 1] = D(qvel, 1);
  PXR dx = D(xpos, 3 * f) - D(xpos, 3 * t);
  PXR dy = D(xpos, 3 * f + 1) - D(xpos, 3 * t + 1);
  obs[k + 2] = dx;
  obs[k + 3] = dy;
}

// infos: reward_dist, reward_ctrl
PX_FN void pxt_reacherReward(PX_MDC PX_IN(PX_REAL, prm, PXT_NPRM), PX_OUT(PX_REAL, res, PXT_NOUT)) {
  PXR dist = pxt_bodyDist(PX_MDARGC PX_INT(prm[PXT_P_BODY]), PX_INT(prm[PXT_P_BODY2]));
  PXR rdist = -dist * prm[PXT_P_FWD];
  PXR sq = pxt_ctrlSq(PX_MDARG);
  PXR rctrl = -sq * prm[PXT_P_CTRL];
  PXR reward = rdist + rctrl;
  res[0] = reward;
  res[1] = PX_R(0.0);
  res[2] = rdist;
  res[3] = rctrl;
}

PX_FN void pxt_pusherObs(PX_MDC PX_IN(PX_REAL, prm, PXT_NPRM), PX_OUT(PX_REAL, obs, PXT_MAXOBS)) {
  for (int i = 0; i < 7; i++) {
    obs[i] = D(qpos, i);
    obs[7 + i] = D(qvel, i);
  }
  int b[3];
  b[0] = PX_INT(prm[PXT_P_BODY]);
  b[1] = PX_INT(prm[PXT_P_BODY2]);
  b[2] = PX_INT(prm[PXT_P_BODY3]);
  for (int j = 0; j < 3; j++) {
    for (int k = 0; k < 3; k++) obs[14 + 3 * j + k] = D(xpos, 3 * b[j] + k);
  }
}

// infos: reward_dist, reward_ctrl, reward_near
PX_FN void pxt_pusherReward(PX_MDC PX_IN(PX_REAL, prm, PXT_NPRM), PX_OUT(PX_REAL, res, PXT_NOUT)) {
  int arm = PX_INT(prm[PXT_P_BODY]);
  int obj = PX_INT(prm[PXT_P_BODY2]);
  int goal = PX_INT(prm[PXT_P_BODY3]);
  PXR near = pxt_bodyDist(PX_MDARGC obj, arm);
  PXR dist = pxt_bodyDist(PX_MDARGC obj, goal);
  PXR rnear = -near * prm[PXT_P_NEAR];
  PXR rdist = -dist * prm[PXT_P_FWD];
  PXR sq = pxt_ctrlSq(PX_MDARG);
  PXR rctrl = -sq * prm[PXT_P_CTRL];
  PXR r1 = rdist + rctrl;
  PXR reward = r1 + rnear;
  res[0] = reward;
  res[1] = PX_R(0.0);
  res[2] = rdist;
  res[3] = rctrl;
  res[4] = rnear;
}

//---------------------------------- InvertedPendulum, InvertedDoublePendulum ----------------------

PX_FN void pxt_pendulumObs(PX_MDC PX_OUT(PX_REAL, obs, PXT_MAXOBS)) {
  pxt_obsState(PX_MDARGC 0, PX_R(0.0), obs, 0);
}

// infos: reward_survive
PX_FN void pxt_pendulumReward(PX_MDC PX_OUT(PX_REAL, res, PXT_NOUT)) {
  int ok = 1;
  for (int i = 0; i < MS(nq); i++) ok = ok * pxt_finite(D(qpos, i));
  for (int i = 0; i < MS(nv); i++) ok = ok * pxt_finite(D(qvel, i));
  PXR a = PX_ABS(D(qpos, 1));
  if (a > PX_R(0.2)) ok = 0;
  res[0] = PX_TOREAL(ok);
  res[1] = PX_TOREAL(1 - ok);
  res[2] = PX_TOREAL(ok);
}

PX_FN void pxt_doublePendulumObs(PX_MDC PX_OUT(PX_REAL, obs, PXT_MAXOBS)) {
  obs[0] = D(qpos, 0);
  int k = 1;
  for (int i = 1; i < MS(nq); i++) {
    obs[k] = pxk_sin(D(qpos, i));
    k++;
  }
  for (int i = 1; i < MS(nq); i++) {
    obs[k] = pxk_cos(D(qpos, i));
    k++;
  }
  for (int i = 0; i < MS(nv); i++) {
    obs[k] = pxt_clip(D(qvel, i), PX_R(-10.0), PX_R(10.0));
    k++;
  }
  obs[k] = pxt_clip(D(qfrc_constraint, 0), PX_R(-10.0), PX_R(10.0));
}

// infos: reward_survive, distance_penalty, velocity_penalty
PX_FN void pxt_doublePendulumReward(PX_MDC PX_IN(PX_REAL, prm, PXT_NPRM),
                                    PX_OUT(PX_REAL, res, PXT_NOUT)) {
  PXR x = D(site_xpos, 0);
  PXR y = D(site_xpos, 2);
  int term = y <= PX_R(1.0) ? 1 : 0;
  PXR v1 = D(qvel, 1);
  PXR v2 = D(qvel, 2);
  PXR ym = y - PX_R(2.0);
  PXR dist = PX_R(0.01) * x * x + ym * ym;
  PXR vel = PX_R(1e-3) * v1 * v1 + PX_R(5e-3) * v2 * v2;
  PXR alive = prm[PXT_P_HEALTHY] * PX_TOREAL(1 - term);
  PXR r1 = alive - dist;
  PXR reward = r1 - vel;
  res[0] = reward;
  res[1] = PX_TOREAL(term);
  res[2] = alive;
  res[3] = -dist;
  res[4] = -vel;
}

//---------------------------------- dispatch ------------------------------------------------------

// the position a displacement reward needs, before the step
PX_FN void pxt_pre(PX_MDC int task, PX_IN(PX_REAL, prm, PXT_NPRM), PX_OUT(PX_REAL, pre, 2)) {
  pre[0] = PX_R(0.0);
  pre[1] = PX_R(0.0);
  if (task == PXT_ANT) pxt_antPre(PX_MDARGC prm, pre);
  if (task == PXT_HALFCHEETAH || task == PXT_HOPPER || task == PXT_WALKER2D ||
      task == PXT_SWIMMER) {
    pxt_xPre(PX_MDARGC pre);
  }
  if (task == PXT_HUMANOID) pxt_humanoidPre(PX_MDARGC pre);
}

// the observation of the current state
PX_FN void pxt_obs(PX_MDC int task, PX_IN(PX_REAL, prm, PXT_NPRM),
                   PX_OUT(PX_REAL, obs, PXT_MAXOBS)) {
  if (task == PXT_ANT) pxt_antObs(PX_MDARGC prm, obs);
  if (task == PXT_HALFCHEETAH) pxt_halfCheetahObs(PX_MDARGC prm, obs);
  if (task == PXT_HOPPER || task == PXT_WALKER2D) pxt_hopperObs(PX_MDARGC prm, obs);
  if (task == PXT_HUMANOID || task == PXT_HUMANOIDSTANDUP) pxt_humanoidObs(PX_MDARGC prm, obs);
  if (task == PXT_SWIMMER) pxt_swimmerObs(PX_MDARGC prm, obs);
  if (task == PXT_REACHER) pxt_reacherObs(PX_MDARGC prm, obs);
  if (task == PXT_PUSHER) pxt_pusherObs(PX_MDARGC prm, obs);
  if (task == PXT_INVERTEDPENDULUM) pxt_pendulumObs(PX_MDARGC obs);
  if (task == PXT_INVERTEDDOUBLEPENDULUM) pxt_doublePendulumObs(PX_MDARGC obs);
}

// reward, terminated and infos after a step
PX_FN void pxt_reward(PX_MDC int task, PX_IN(PX_REAL, prm, PXT_NPRM), PX_IN(PX_REAL, pre, 2),
                      PX_OUT(PX_REAL, res, PXT_NOUT)) {
  if (task == PXT_ANT) pxt_antReward(PX_MDARGC prm, pre, res);
  if (task == PXT_HALFCHEETAH) pxt_halfCheetahReward(PX_MDARGC prm, pre, res);
  if (task == PXT_HOPPER) pxt_hopperReward(PX_MDARGC prm, pre, 1, res);
  if (task == PXT_WALKER2D) pxt_hopperReward(PX_MDARGC prm, pre, 0, res);
  if (task == PXT_HUMANOID) pxt_humanoidReward(PX_MDARGC prm, pre, res);
  if (task == PXT_HUMANOIDSTANDUP) pxt_standupReward(PX_MDARGC prm, res);
  if (task == PXT_SWIMMER) pxt_swimmerReward(PX_MDARGC prm, pre, res);
  if (task == PXT_REACHER) pxt_reacherReward(PX_MDARGC prm, res);
  if (task == PXT_PUSHER) pxt_pusherReward(PX_MDARGC prm, res);
  if (task == PXT_INVERTEDPENDULUM) pxt_pendulumReward(PX_MDARGC res);
  if (task == PXT_INVERTEDDOUBLEPENDULUM) pxt_doublePendulumReward(PX_MDARGC prm, res);
}

#endif  // PX_TASKS_TASKS_H_
