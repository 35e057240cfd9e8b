// SPDX-License-Identifier: Apache-2.0
// The CPU orchestration of a simulation step (MuJoCo 3.12's mj_step, mj_step1, mj_step2,
// mj_Euler, mj_implicit, mj_RungeKutta, mj_advance), the state reset of one world and the
// position-space utilities (integratePos, differentiatePos, normalizeQuat). The per-world math
// is in csrc/kern/integrate.h; this file sequences the stages, advances time (pxData.time is a
// plain value, which the caller copies back into its pxWorlds) and runs RK4 on its Data scratch
// (rk4_*): a step allocates nothing.
#include <math.h>
#include <string.h>

#include "kern/prelude_c.h"

#include "kern/integrate.h"

//---------------------------------- support checks ------------------------------------------------

// features of MuJoCo 3.12's integrators that phalanx does not implement: an error naming them
pxtStatus px_integratorCheck(const pxModel* m, pxStatus* st) {
  int integ = m->opt.integrator;
  if (integ < PX_INT_EULER || integ > PX_INT_IMPLICITFAST) {
    return PX_FAIL(st, PX_ERR_ARG, "invalid integrator %d", integ);
  }
  if (m->nhistory > 0) {
    pxtStatus code = px_historyCheck(m, st);
    if (code != PX_OK) return code;
  }
  if (m->opt.enableflags & PX_ENBL_SLEEP) {
    return PX_FAIL(st, PX_ERR_UNSUPPORTED, "the sleep enable flag is not supported yet");
  }
  for (int i = 0; i < m->nu; i++) {
    if (m->actuator_dyntype[i] == PX_DYN_DCMOTOR) {
      return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                     "actuator %d: dcmotor activation dynamics are not supported by the "
                     "integrators yet",
                     i);
    }
  }
  if (integ == PX_INT_IMPLICIT || integ == PX_INT_IMPLICITFAST) {
    // DC motor actuators are rejected at compile time; a model edited to hold one is refused
    for (int i = 0; i < m->nu; i++) {
      if (m->actuator_gaintype[i] == PX_GAIN_DCMOTOR ||
          m->actuator_biastype[i] == PX_BIAS_DCMOTOR) {
        return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                       "actuator %d: the velocity derivative of dcmotor actuators (implicit "
                       "integrators) is not supported yet",
                       i);
      }
    }
  }
  return PX_OK;
}

//---------------------------------- reset ---------------------------------------------------------

void px_resetData(const pxModel* m, pxData* d) {
#define X(type, name, nrow, ncol) memset(d->name, 0, (size_t)m->nrow*(size_t)(ncol) * sizeof(type));
  PX_DATA_FIELDS(X)
#undef X
  d->time = 0;
  if (d->ncon) *d->ncon = 0;
  if (d->efc_n) memset(d->efc_n, 0, PX_EFC_NCOUNT * sizeof(int));
  if (m->nq) memcpy(d->qpos, m->qpos0, sizeof(pxtNum) * (size_t)m->nq);
  px_resetHistory(m, d);

  // neutral controls: quaternion inputs of SO3 servos are the identity
  for (int i = 0; i < m->nu; i++) {
    if (m->actuator_gaintype[i] == PX_GAIN_SO3 && m->actuator_ctrlspec[i] == 2) {
      d->ctrl[m->actuator_ctrladr[i]] = 1;
    }
  }
  for (int i = 0; i < m->neq; i++) d->eq_active[i] = m->eq_active0[i];

  // mocap bodies start at their model frames
  for (int i = 0; i < m->nbody; i++) {
    int id = m->body_mocapid[i];
    if (id >= 0) {
      memcpy(d->mocap_pos + 3 * id, m->body_pos + 3 * i, 3 * sizeof(pxtNum));
      memcpy(d->mocap_quat + 4 * id, m->body_quat + 4 * i, 4 * sizeof(pxtNum));
    }
  }
}

pxtStatus px_resetDataKeyframe(const pxModel* m, pxData* d, int key) {
  px_resetData(m, d);
  if (key >= 0 && key < m->nkey) {
    d->time = m->key_time[key];
    memcpy(d->qpos, m->key_qpos + (size_t)key * m->nq, sizeof(pxtNum) * (size_t)m->nq);
    memcpy(d->qvel, m->key_qvel + (size_t)key * m->nv, sizeof(pxtNum) * (size_t)m->nv);
    memcpy(d->act, m->key_act + (size_t)key * m->na, sizeof(pxtNum) * (size_t)m->na);
    memcpy(d->mocap_pos, m->key_mpos + (size_t)key * 3 * m->nmocap,
           sizeof(pxtNum) * 3 * (size_t)m->nmocap);
    memcpy(d->mocap_quat, m->key_mquat + (size_t)key * 4 * m->nmocap,
           sizeof(pxtNum) * 4 * (size_t)m->nmocap);
    memcpy(d->ctrl, m->key_ctrl + (size_t)key * m->nu, sizeof(pxtNum) * (size_t)m->nu);
  }
  return PX_OK;
}

//---------------------------------- position-space utilities --------------------------------------

void px_integratePos(const pxModel* m, pxtNum* qpos, const pxtNum* qvel, pxtNum dt) {
  pxData tmp;
  memset(&tmp, 0, sizeof(tmp));
  tmp.qpos = qpos;
  tmp.qvel = (pxtNum*)qvel;  // read only
  pxk_integratePos(m, &tmp, dt);
}

void px_normalizeQuat(const pxModel* m, pxtNum* qpos) {
  pxData tmp;
  memset(&tmp, 0, sizeof(tmp));
  tmp.qpos = qpos;
  pxk_normalizeQuat(m, &tmp);
}

void px_differentiatePos(const pxModel* m, pxtNum* qvel, pxtNum dt, const pxtNum* qpos1,
                         const pxtNum* qpos2) {
  static const int nq[4] = {7, 4, 1, 1};
  static const int nv[4] = {6, 3, 1, 1};
  for (int j = 0; j < m->njnt; j++) {
    int type = m->jnt_type[j];
    int padr = m->jnt_qposadr[j];
    int vadr = m->jnt_dofadr[j];
    double q1[7] = {0}, q2[7] = {0}, v[6];
    for (int k = 0; k < nq[type]; k++) {
      q1[k] = qpos1[padr + k];
      q2[k] = qpos2[padr + k];
    }
    pxk_differentiateJoint(type, v, q1, q2, dt);
    for (int k = 0; k < nv[type]; k++) qvel[vadr + k] = v[k];
  }
}

//---------------------------------- integrators ---------------------------------------------------

// mj_advance's first part: the history buffers take the current control and sensor samples
static void advanceHistory(const pxModel* m, pxData* d) {
  if (m->nhistory == 0) return;
  px_advanceCtrlHistory(m, d);
  px_advanceSensorHistory(m, d);
}

// the advance after the integrator's acceleration is in d->qacc_warmstart (mj_advance)
static void advance(const pxModel* m, pxData* d) {
  advanceHistory(m, d);
  pxk_advanceAct(m, d);
  pxk_advanceVel(m, d);
  pxk_advancePos(m, d);
  d->time += m->opt.timestep;
}

pxtStatus px_euler(const pxModel* m, pxData* d) {
  pxtStatus code = px_integratorCheck(m, &d->status);
  if (code != PX_OK) return code;
  pxk_euler(m, d, 0);
  advance(m, d);
  return PX_OK;
}

pxtStatus px_implicit(const pxModel* m, pxData* d) {
  pxtStatus code = px_integratorCheck(m, &d->status);
  if (code != PX_OK) return code;
  if (m->opt.integrator != PX_INT_IMPLICIT && m->opt.integrator != PX_INT_IMPLICITFAST) {
    return PX_FAIL(&d->status, PX_ERR_ARG, "integrator must be implicit or implicitfast");
  }
  pxk_implicitDeriv(m, d);
  pxk_implicitSolve(m, d, 0);
  advance(m, d);
  return PX_OK;
}

// RK4 (mj_RungeKutta with N = 4). The stage states X[s] and slopes F[s] live in the Data scratch
// rk4_qpos/qvel/act (X) and rk4_qacc/act_dot (F), column s of each (element 4 * k + s); the
// increment dX in rk4_dqvel/dqacc/dact. Nothing is allocated.
#define RK4_AT(f, k, s) d->f[4 * (k) + (s)]

// column s of the stage scratch from the current state (qpos, qvel, act) and slopes (qacc, act_dot)
static void rk4Store(const pxModel* m, pxData* d, int s, int state, int slope) {
  for (int k = 0; k < m->nq && state; k++) RK4_AT(rk4_qpos, k, s) = d->qpos[k];
  for (int k = 0; k < m->nv && state; k++) RK4_AT(rk4_qvel, k, s) = d->qvel[k];
  for (int k = 0; k < m->na && state; k++) RK4_AT(rk4_act, k, s) = d->act[k];
  for (int k = 0; k < m->nv && slope; k++) RK4_AT(rk4_qacc, k, s) = d->qacc[k];
  for (int k = 0; k < m->na && slope; k++) RK4_AT(rk4_act_dot, k, s) = d->act_dot[k];
}

// dX = sum over stages j < n of w[j] * (X[j] velocity, F[j]), accumulated in stage order from
// zero for each element (as MuJoCo's mju_zero then mju_addToScl per stage)
static void rk4Sum(double* restrict res, const double* restrict col, const double* w, int n,
                   int len) {
  for (int k = 0; k < len; k++) {
    double s = 0;
    for (int j = 0; j < n; j++) s += col[4 * k + j] * w[j];
    res[k] = s;
  }
}

static void rk4Combine(const pxModel* m, pxData* d, const double* w, int n) {
  rk4Sum(d->rk4_dqvel, d->rk4_qvel, w, n, m->nv);
  rk4Sum(d->rk4_dqacc, d->rk4_qacc, w, n, m->nv);
  rk4Sum(d->rk4_dact, d->rk4_act_dot, w, n, m->na);
}

static pxtStatus rungeKutta(const pxModel* m, pxData* d) {
  static const double A[9] = {0.5, 0, 0, 0, 0.5, 0, 0, 0, 1};
  static const double B[4] = {1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0};
  const int N = 4;
  int nq = m->nq, nv = m->nv, na = m->na;
  double h = m->opt.timestep, time = d->time;
  double C[3], T[3];

  for (int i = 1; i < N; i++) {
    C[i - 1] = 0;
    for (int j = 0; j < i; j++) C[i - 1] += A[(i - 1) * (N - 1) + j];
    T[i - 1] = d->time + C[i - 1] * h;
  }

  // X[0], F[0] from the forward pass already run
  rk4Store(m, d, 0, 1, 1);

  for (int i = 1; i < N; i++) {
    rk4Combine(m, d, A + (i - 1) * (N - 1), i);

    // X[i] = X[0] '+' dX: positions on the manifold (integratePos reads d->qvel)
    for (int k = 0; k < nq; k++) d->qpos[k] = RK4_AT(rk4_qpos, k, 0);
    memcpy(d->qvel, d->rk4_dqvel, sizeof(double) * nv);
    pxk_integratePos(m, d, h);
    for (int k = 0; k < nv; k++) d->qvel[k] = RK4_AT(rk4_qvel, k, 0) + d->rk4_dqacc[k] * h;
    for (int k = 0; k < na; k++) d->act[k] = RK4_AT(rk4_act, k, 0) + d->rk4_dact[k] * h;
    rk4Store(m, d, i, 1, 0);
    d->time = T[i - 1];

    // as MuJoCo: sensors from the first evaluation only; the model passed the checks of the
    // first pass of this step (px_step)
    px_forwardSkipChecked(m, d, 1, &d->status);
    if (d->status.code != PX_OK) return d->status.code;
    rk4Store(m, d, i, 0, 1);
  }

  rk4Combine(m, d, B, N);

  // restore the initial state, then advance with act_dot = dX act part, qacc = dX acceleration
  // part and positions integrated with the velocity dX velocity part
  d->time = time;
  for (int k = 0; k < nq; k++) d->qpos[k] = RK4_AT(rk4_qpos, k, 0);
  for (int k = 0; k < nv; k++) d->qvel[k] = RK4_AT(rk4_qvel, k, 0);
  for (int k = 0; k < na; k++) d->act[k] = RK4_AT(rk4_act, k, 0);

  advanceHistory(m, d);

  // act_dot keeps the last stage's value (F[N-1]), as in MuJoCo
  if (na) memcpy(d->act_dot, d->rk4_dact, sizeof(double) * na);
  pxk_advanceAct(m, d);
  for (int k = 0; k < na; k++) d->act_dot[k] = RK4_AT(rk4_act_dot, k, N - 1);

  // the new velocity waits in column 1 of rk4_qvel (X[1] is no longer needed) while the
  // positions integrate with the combined velocity
  memcpy(d->qacc_warmstart, d->rk4_dqacc, sizeof(double) * nv);
  pxk_advanceVel(m, d);
  for (int k = 0; k < nv; k++) RK4_AT(rk4_qvel, k, 1) = d->qvel[k];
  memcpy(d->qvel, d->rk4_dqvel, sizeof(double) * nv);
  pxk_advancePos(m, d);
  for (int k = 0; k < nv; k++) d->qvel[k] = RK4_AT(rk4_qvel, k, 1);
  d->time += h;
  return PX_OK;
}

//---------------------------------- step ----------------------------------------------------------

static int isBad(double x) {
  return isnan(x) || x > 1e10 || x < -1e10;
}

// mj_checkPos/Vel/Acc: at the first bad value (NaN or beyond 1e10) count the warning `warn`
// with the value's index, reset the world unless autoreset is disabled, then count it again (as
// MuJoCo does, so that the counter survives the reset); returns 1 if a bad value was found
static int checkBad(const pxModel* m, pxData* d, const pxtNum* v, int n, int warn) {
  for (int i = 0; i < n; i++) {
    if (isBad(v[i])) {
      d->warning[2 * warn] = i;
      d->warning[2 * warn + 1]++;
      if (!(m->opt.disableflags & PX_DSBL_AUTORESET)) px_resetData(m, d);
      d->warning[2 * warn] = i;
      d->warning[2 * warn + 1]++;
      return 1;
    }
  }
  return 0;
}

static pxtStatus forwardChecked(const pxModel* m, pxData* d) {
  px_forward(m, d, &d->status);
  if (d->status.code != PX_OK) return d->status.code;
  if (checkBad(m, d, d->qacc, m->nv, PX_WARN_BADQACC) &&
      !(m->opt.disableflags & PX_DSBL_AUTORESET)) {
    px_forward(m, d, &d->status);
  }
  return d->status.code;
}

pxtStatus px_step(const pxModel* m, pxData* d) {
  pxtStatus code = px_integratorCheck(m, &d->status);
  if (code != PX_OK) return code;
  checkBad(m, d, d->qpos, m->nq, PX_WARN_BADQPOS);
  checkBad(m, d, d->qvel, m->nv, PX_WARN_BADQVEL);
  if ((code = forwardChecked(m, d)) != PX_OK) return code;
  switch (m->opt.integrator) {
    case PX_INT_RK4:
      return rungeKutta(m, d);
    case PX_INT_IMPLICIT:
    case PX_INT_IMPLICITFAST:
      pxk_implicitDeriv(m, d);
      pxk_implicitSolve(m, d, 0);
      break;
    default:
      pxk_euler(m, d, 0);
      break;
  }
  advance(m, d);
  return PX_OK;
}

// the first half of a step: px_forward's position and velocity parts are not separable yet, so
// step1 runs the whole forward pass (the acceleration part is run again by step2)
pxtStatus px_step1(const pxModel* m, pxData* d) {
  pxtStatus code = px_integratorCheck(m, &d->status);
  if (code != PX_OK) return code;
  checkBad(m, d, d->qpos, m->nq, PX_WARN_BADQPOS);
  checkBad(m, d, d->qvel, m->nv, PX_WARN_BADQVEL);
  px_forward(m, d, &d->status);
  return d->status.code;
}

pxtStatus px_step2(const pxModel* m, pxData* d) {
  pxtStatus code = px_integratorCheck(m, &d->status);
  if (code != PX_OK) return code;
  if ((code = forwardChecked(m, d)) != PX_OK) return code;
  if (m->opt.integrator == PX_INT_IMPLICIT || m->opt.integrator == PX_INT_IMPLICITFAST) {
    pxk_implicitDeriv(m, d);
    pxk_implicitSolve(m, d, 0);
  } else {
    pxk_euler(m, d, 0);
  }
  advance(m, d);
  return PX_OK;
}
