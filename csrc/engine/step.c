// SPDX-License-Identifier: Apache-2.0
// The CPU orchestration of a simulation step (MuJoCo 3.12's mj_step, mj_step1, mj_step2,
// mj_Euler, mj_implicit, mj_RungeKutta, mj_advance), the state reset of one world and the
// position-space utilities (integratePos, differentiatePos, normalizeQuat). The per-world math
// is in csrc/kern/integrate.h; this file sequences the stages, advances time (pxData.time is a
// plain value, which the caller copies back into its pxWorlds) and keeps the RK4 stage states.
#include <math.h>
#include <stdlib.h>
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
    return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                   "actuator and sensor history buffers (nhistory = %d) are not supported by the "
                   "integrators yet",
                   m->nhistory);
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
  if (integ == PX_INT_IMPLICIT) {
    return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                   "integrator 'implicit' (the RNE velocity derivative mjd_rne_vel) is not "
                   "supported yet; use 'implicitfast' or 'Euler'");
  }
  if (integ == PX_INT_IMPLICITFAST) {
    int passive =
        (m->opt.disableflags & PX_DSBL_SPRING) == 0 || (m->opt.disableflags & PX_DSBL_DAMPER) == 0;
    if (passive && (m->opt.density > 0 || m->opt.viscosity > 0)) {
      return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                     "implicit integrators with fluid forces (density or viscosity > 0): the "
                     "fluid force derivatives are not supported yet");
    }
    for (int i = 0; i < m->nu; i++) {
      int g = m->actuator_gaintype[i];
      int b = m->actuator_biastype[i];
      if (g == PX_GAIN_MUSCLE || g == PX_GAIN_DCMOTOR || b == PX_BIAS_DCMOTOR) {
        return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                       "actuator %d: the velocity derivative of %s actuators (implicit "
                       "integrators) is not supported yet",
                       i, g == PX_GAIN_MUSCLE ? "muscle" : "dcmotor");
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
  if (m->nq) memcpy(d->qpos, m->qpos0, sizeof(pxtNum) * (size_t)m->nq);

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

// the advance after the integrator's acceleration is in d->qacc_warmstart (mj_advance)
static void advance(const pxModel* m, pxData* d) {
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

// RK4 (mj_RungeKutta with N = 4): the stage states live on the heap of this call
static pxtStatus rungeKutta(const pxModel* m, pxData* d) {
  static const double A[9] = {0.5, 0, 0, 0, 0.5, 0, 0, 0, 1};
  static const double B[4] = {1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0};
  const int N = 4;
  int nq = m->nq, nv = m->nv, na = m->na;
  double h = m->opt.timestep, time = d->time;
  size_t nx = (size_t)(nq + nv + na), nf = (size_t)(nv + na);
  double* buf =
      (double*)calloc((size_t)(2 * nv + na) + N * (nx + nf) + (size_t)nv + 1, sizeof(double));
  if (!buf) return PX_FAIL(&d->status, PX_ERR_NOMEM, "out of memory in the RK4 integrator");
  double* dX = buf;
  double* X[4];
  double* F[4];
  double C[3], T[3];
  for (int i = 0; i < N; i++) {
    X[i] = buf + (2 * nv + na) + i * (nx + nf);
    F[i] = X[i] + nx;
  }
  double* qvel_new = F[N - 1] + nf;

  for (int i = 1; i < N; i++) {
    C[i - 1] = 0;
    for (int j = 0; j < i; j++) C[i - 1] += A[(i - 1) * (N - 1) + j];
    T[i - 1] = d->time + C[i - 1] * h;
  }

  memcpy(X[0], d->qpos, sizeof(double) * nq);
  memcpy(X[0] + nq, d->qvel, sizeof(double) * nv);
  memcpy(F[0], d->qacc, sizeof(double) * nv);
  if (na) {
    memcpy(X[0] + nq + nv, d->act, sizeof(double) * na);
    memcpy(F[0] + nv, d->act_dot, sizeof(double) * na);
  }

  for (int i = 1; i < N; i++) {
    memset(dX, 0, sizeof(double) * (2 * nv + na));
    for (int j = 0; j < i; j++) {
      double a = A[(i - 1) * (N - 1) + j];
      for (int k = 0; k < nv; k++) dX[k] += X[j][nq + k] * a;
      for (int k = 0; k < nv + na; k++) dX[nv + k] += F[j][k] * a;
    }

    // X[i] = X[0] '+' dX: positions on the manifold (integratePos reads d->qvel)
    memcpy(d->qpos, X[0], sizeof(double) * nq);
    memcpy(d->qvel, dX, sizeof(double) * nv);
    pxk_integratePos(m, d, h);
    memcpy(X[i], d->qpos, sizeof(double) * nq);
    for (int k = 0; k < nv + na; k++) X[i][nq + k] = X[0][nq + k] + dX[nv + k] * h;

    memcpy(d->qvel, X[i] + nq, sizeof(double) * nv);
    if (na) memcpy(d->act, X[i] + nq + nv, sizeof(double) * na);
    d->time = T[i - 1];

    px_forward(m, d, &d->status);
    if (d->status.code != PX_OK) {
      free(buf);
      return d->status.code;
    }
    memcpy(F[i], d->qacc, sizeof(double) * nv);
    if (na) memcpy(F[i] + nv, d->act_dot, sizeof(double) * na);
  }

  memset(dX, 0, sizeof(double) * (2 * nv + na));
  for (int j = 0; j < N; j++) {
    for (int k = 0; k < nv; k++) dX[k] += X[j][nq + k] * B[j];
    for (int k = 0; k < nv + na; k++) dX[nv + k] += F[j][k] * B[j];
  }

  // restore the initial state, then advance with act_dot = dX[2nv:], qacc = dX[nv:2nv] and
  // positions integrated with the velocity dX[0:nv]
  d->time = time;
  memcpy(d->qpos, X[0], sizeof(double) * nq);
  memcpy(d->qvel, X[0] + nq, sizeof(double) * nv);
  if (na) memcpy(d->act, X[0] + nq + nv, sizeof(double) * na);

  // act_dot keeps the last stage's value, as in MuJoCo
  double* saved = (double*)malloc(sizeof(double) * (size_t)(na + 1));
  if (!saved) {
    free(buf);
    return PX_FAIL(&d->status, PX_ERR_NOMEM, "out of memory in the RK4 integrator");
  }
  if (na) memcpy(saved, d->act_dot, sizeof(double) * na);
  if (na) memcpy(d->act_dot, dX + 2 * nv, sizeof(double) * na);
  pxk_advanceAct(m, d);
  if (na) memcpy(d->act_dot, saved, sizeof(double) * na);
  free(saved);

  memcpy(d->qacc_warmstart, dX + nv, sizeof(double) * nv);
  pxk_advanceVel(m, d);
  memcpy(qvel_new, d->qvel, sizeof(double) * nv);
  memcpy(d->qvel, dX, sizeof(double) * nv);
  pxk_advancePos(m, d);
  memcpy(d->qvel, qvel_new, sizeof(double) * nv);
  d->time += h;
  free(buf);
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
