// SPDX-License-Identifier: Apache-2.0
// Actuator and sensor history buffers in the kernel dialect (MuJoCo 3.12's mju_historyInsert and
// mju_historyRead, the buffer initialisation of mj_resetData, mj_readCtrl's delayed controls,
// the sensors read from their buffers in a forward pass, and the control half of mj_advance's
// history update). Both executors run this: the CPU (csrc/engine/history.c, sensor.c,
// step.c) and the GPU (actuation in shaders/forward.comp, sensor reads in shaders/sensor.comp,
// the reset in shaders/check.comp, the advance in shaders/sensor.comp mode 4). The sensor half
// of the advance, which computes sensors, is csrc/kern/sensor_history.h.
//
// One buffer of n samples of dim numbers is n * (dim + 1) + 2 numbers of Data's history, from
// its address adr (actuator_historyadr, sensor_historyadr):
//   [0]          a free slot: 0 for actuators; for sensors the time of the last sample taken
//                (interval sensors) or -timestep
//   [1]          the cursor: the physical index of the newest sample
//   [2, 2+n)     the sample times, a ring ordered oldest (cursor + 1) to newest (cursor)
//   [2+n, ...)   the sample values, dim per sample, in the same physical order
// Every function here runs on one lane (the callers stride sensors over lanes or run lane 0).
//
//   reads:  m->actuator_history*, m->actuator_delay, m->sensor_history*, m->sensor_delay,
//           m->sensor_interval, d->ctrl, d->history, the time (PXK_TIME)
//   writes: d->history, d->sensordata (sensors read from their buffers)
#ifndef PX_KERN_HISTORY_H_
#define PX_KERN_HISTORY_H_

#include "kern/libm.h"

// mjMINVAL: samples closer than this in time are the same sample. In single precision 1e-15 is
// below the resolution of the times (an ulp of 0.1 is 7.5e-9), so a read at a sample's time
// (a delay that is a multiple of the timestep: t - delay computed from the accumulated time)
// would miss that sample by a rounding and hold the one before (zero-order hold: the control or
// reading one step old); the fp32 twin, 1e-6 (8.4 ulps of 1.0), finds it, as 1e-15 does in double,
// while the accumulated time is within a few of its roundings of the sample's (times of order 1)
#ifdef PX_FP32
#define PXK_HIST_MINVAL PX_R(1E-6)
#else
#define PXK_HIST_MINVAL PX_R(1E-15)
#endif

// the clock the history reads: the world's time (the GPU's per-world time array)
#ifdef PX_KERN_GLSL
#define PXK_TIME (pxpush.params.time.v[pxw])
#else
#define PXK_TIME (d->time)
#endif

// the lazily computed quantities a sensor may need (MuJoCo's flg_subtreevel, flg_rnepost,
// flg_energypos, flg_energyvel; the CPU's d->lazy holds them as PX_LAZY_* of px/pxdata.h)
#define PXK_HIST_SUBTREEVEL 1
#define PXK_HIST_RNEPOST 2
#define PXK_HIST_ENERGYPOS 4
#define PXK_HIST_ENERGYVEL 8

// physical slot of the logical sample k (0 the oldest, n - 1 the newest)
PX_FN int pxk_histSlot(int cursor, int n, int k) {
  return (cursor + 1 + k) % n;
}

// the time of physical slot s of the buffer at adr
#define PXK_HIST_T(adr, s) D(history, (adr) + 2 + (s))

// the logical index k with times[k - 1] < t <= times[k] (binary search over the ring): 0 when t
// is at or before the oldest sample, n when after the newest
PX_FN int pxk_histFind(PX_MDC int adr, int n, int cursor, PX_REAL t) {
  if (t <= PXK_HIST_T(adr, pxk_histSlot(cursor, n, 0))) return 0;
  if (t > PXK_HIST_T(adr, pxk_histSlot(cursor, n, n - 1))) return n;
  int lo = 0;
  int hi = n - 1;
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if (PXK_HIST_T(adr, pxk_histSlot(cursor, n, mid)) < t) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return hi;
}

// mju_historyInsert: the index in Data's history of the dim value numbers of the sample at time
// t (a new sample: the newest, the oldest replaced, or one between with the older ones moved
// back; or the existing sample within PXK_HIST_MINVAL of t, to be overwritten)
PX_FN int pxk_histInsert(PX_MDC int adr, int n, int dim, PX_REAL t) {
  int cursor = PX_INT(D(history, adr + 1));
  int vadr = adr + 2 + n;
  int k = pxk_histFind(PX_MDARGC adr, n, cursor, t);

  // a sample at this time already: overwrite it
  if (k < n) {
    int s = pxk_histSlot(cursor, n, k);
    PXR gap = t - PXK_HIST_T(adr, s);
    PXR agap = PX_ABS(gap);
    if (agap < PXK_HIST_MINVAL) return vadr + s * dim;
  }
  // older than every sample: it replaces the oldest
  if (k == 0) {
    int s = pxk_histSlot(cursor, n, 0);
    PXK_HIST_T(adr, s) = t;
    return vadr + s * dim;
  }
  // newer than every sample: the ring turns, the oldest slot becomes the newest
  if (k == n) {
    cursor = (cursor + 1) % n;
    D(history, adr + 1) = PX_TOREAL(cursor);
    PXK_HIST_T(adr, cursor) = t;
    return vadr + cursor * dim;
  }
  // in between: the samples older than k move one slot back (the oldest is dropped)
  for (int j = 0; j < k - 1; j++) {
    int src = pxk_histSlot(cursor, n, j + 1);
    int dst = pxk_histSlot(cursor, n, j);
    PXK_HIST_T(adr, dst) = PXK_HIST_T(adr, src);
    for (int e = 0; e < dim; e++)
      D(history, vadr + dst * dim + e) = D(history, vadr + src * dim + e);
  }
  int s = pxk_histSlot(cursor, n, k - 1);
  PXK_HIST_T(adr, s) = t;
  return vadr + s * dim;
}

// element e of mju_historyRead at time t (interp 0: zero-order hold, 1: linear, 2: cubic
// Hermite with Catmull-Rom slopes, zero at the first and last samples); outside the samples the
// nearest end is held. Each element finds its segment itself (the same numbers for every e).
PX_FN PX_REAL pxk_histValue(PX_MDC int adr, int n, int dim, PX_REAL t, int interp, int e) {
  int cursor = PX_INT(D(history, adr + 1));
  int vadr = adr + 2 + n;
  int oldest = pxk_histSlot(cursor, n, 0);
  int newest = pxk_histSlot(cursor, n, n - 1);

  PXR tlo = PXK_HIST_T(adr, oldest) + PXK_HIST_MINVAL;
  if (t <= tlo) return D(history, vadr + oldest * dim + e);
  PXR thi = PXK_HIST_T(adr, newest) - PXK_HIST_MINVAL;
  if (t >= thi) return D(history, vadr + newest * dim + e);

  int k = pxk_histFind(PX_MDARGC adr, n, cursor, t);
  int hi = pxk_histSlot(cursor, n, k);
  PXR gap = t - PXK_HIST_T(adr, hi);
  PXR agap = PX_ABS(gap);
  if (agap < PXK_HIST_MINVAL) return D(history, vadr + hi * dim + e);
  int lo = pxk_histSlot(cursor, n, k - 1);
  PXR vlo = D(history, vadr + lo * dim + e);
  if (interp == 0) return vlo;

  PXR dt = PXK_HIST_T(adr, hi) - PXK_HIST_T(adr, lo);
  PXR a = (t - PXK_HIST_T(adr, lo)) / dt;
  PXR vhi = D(history, vadr + hi * dim + e);
  if (interp == 1) {
    PXR res = vlo + a * (vhi - vlo);
    return res;
  }

  PXR a2 = a * a;
  PXR a3 = a2 * a;
  PXR h00 = PX_R(2.0) * a3 - PX_R(3.0) * a2 + PX_R(1.0);
  PXR h10 = a3 - PX_R(2.0) * a2 + a;
  PXR h01 = PX_R(-2.0) * a3 + PX_R(3.0) * a2;
  PXR h11 = a3 - a2;
  PXR slo = PX_ZERO;
  PXR shi = PX_ZERO;
  if (k > 1) {
    int p = pxk_histSlot(cursor, n, k - 2);
    PXR span = PXK_HIST_T(adr, hi) - PXK_HIST_T(adr, p);
    slo = (vhi - D(history, vadr + p * dim + e)) / span;
  }
  if (k < n - 1) {
    int q = pxk_histSlot(cursor, n, k + 1);
    PXR span = PXK_HIST_T(adr, q) - PXK_HIST_T(adr, lo);
    shi = (D(history, vadr + q * dim + e) - vlo) / span;
  }
  PXR res = h00 * vlo + h10 * dt * slo + h01 * vhi + h11 * dt * shi;
  return res;
}

//---------------------------------- reset ---------------------------------------------------------

// mj_resetData's history buffers (the buffer arrays zeroed before): the actuators' sample times
// one timestep apart up to -timestep; a sensor's too, or with an interval the interval's sample
// grid moved up onto the timestep grid, with the interval clock in the free slot. Lane 0.
PX_FN void pxk_histReset(PX_MD) {
  if (MS(nhistory) == 0 || PX_LANE != 0) return;
  PXR dt = MOPT(timestep);
  for (int i = 0; i < MS(nu); i++) {
    int n = M(actuator_history, 2 * i);
    if (n <= 0) continue;
    int adr = M(actuator_historyadr, i);
    D(history, adr) = PX_R(0.0);
    D(history, adr + 1) = PX_TOREAL(n - 1);
    for (int j = 0; j < n; j++) {
      PXR tj = PX_TOREAL(-(n - j)) * dt;
      D(history, adr + 2 + j) = tj;
      D(history, adr + 2 + n + j) = PX_R(0.0);
    }
  }
  for (int i = 0; i < MS(nsensor); i++) {
    int n = M(sensor_history, 2 * i);
    if (n <= 0) continue;
    int dim = M(sensor_dim, i);
    PXR period = M(sensor_interval, 2 * i);
    PXR phase = M(sensor_interval, 2 * i + 1);
    int adr = M(sensor_historyadr, i);
    PXR t0 = phase;
    if (phase == PX_R(0.0)) t0 = -period;
    PXR ndt = -dt;
    D(history, adr) = period > PX_R(0.0) ? t0 : ndt;
    D(history, adr + 1) = PX_TOREAL(n - 1);
    for (int j = 0; j < n; j++) {
      if (period > PX_R(0.0)) {
        // ceil(tc / dt) * dt, ceil(x) = -floor(-x) exactly
        PXR tc = t0 - PX_TOREAL(n - 1 - j) * period;
        PXR q = tc / dt;
        PXR nq = -q;
        PXR c = -pxk_floor(nq);
        PXR tj = c * dt;
        D(history, adr + 2 + j) = tj;
      } else {
        PXR tj = PX_TOREAL(-(n - j)) * dt;
        D(history, adr + 2 + j) = tj;
      }
    }
    for (int j = 0; j < n * dim; j++) D(history, adr + 2 + n + j) = PX_R(0.0);
  }
}

//---------------------------------- actuators -----------------------------------------------------

// the actuator whose (single) control is j, -1 if none
PX_FN int pxk_histCtrlOwner(PX_MDC int j) {
  if (j < MS(nu) && M(actuator_ctrladr, j) == j && M(actuator_ctrlnum, j) == 1) return j;
  for (int i = 0; i < MS(nu); i++) {
    if (M(actuator_ctrladr, i) == j && M(actuator_ctrlnum, i) > 0) return i;
  }
  return -1;
}

// control j as the actuation stage reads it (mj_readCtrl): delayed from the history buffer of
// its actuator (a delay and a buffer), else d->ctrl
PX_FN PX_REAL pxk_histCtrlIn(PX_MDC int j) {
  if (MS(nhistory) == 0) return D(ctrl, j);
  int i = pxk_histCtrlOwner(PX_MDARGC j);
  if (i < 0) return D(ctrl, j);
  if (M(actuator_delay, i) == PX_R(0.0) || M(actuator_history, 2 * i) <= 0) return D(ctrl, j);
  PXR t = PXK_TIME - M(actuator_delay, i);
  return pxk_histValue(PX_MDARGC M(actuator_historyadr, i), M(actuator_history, 2 * i), 1, t,
                       M(actuator_history, 2 * i + 1), 0);
}

// mj_advance's control history update: every actuator buffer takes d->ctrl at the current time.
// Lane 0.
PX_FN void pxk_histAdvanceCtrl(PX_MD) {
  if (MS(nhistory) == 0 || PX_LANE != 0) return;
  PXR t = PXK_TIME;
  for (int i = 0; i < MS(nu); i++) {
    int n = M(actuator_history, 2 * i);
    if (n <= 0) continue;
    int v = pxk_histInsert(PX_MDARGC M(actuator_historyadr, i), n, 1, t);
    D(history, v) = D(ctrl, M(actuator_ctrladr, i));
  }
}

//---------------------------------- sensors -------------------------------------------------------

// 1 if sensor i's value comes from its history buffer in a forward pass at the current time
// (compute_or_read_sensor): always with a delay, with an interval while the next sample is not
// due
PX_FN int pxk_histSensorReads(PX_MDC int i) {
  if (M(sensor_history, 2 * i) <= 0 || M(sensor_type, i) == PX_SENS_USER) return 0;
  if (M(sensor_delay, i) > PX_R(0.0)) return 1;
  PXR interval = M(sensor_interval, 2 * i);
  if (interval > PX_R(0.0)) {
    PXR due = D(history, M(sensor_historyadr, i)) + interval;
    PXR now = PXK_TIME;
    return due <= now ? 0 : 1;
  }
  return 0;
}

// sensor i read from its history buffer into sensordata at the delayed time, if it reads it
// (pxk_histSensorReads); 1 if it did
PX_FN int pxk_histSensorRead(PX_MDC int i) {
  if (pxk_histSensorReads(PX_MDARGC i) == 0) return 0;
  int n = M(sensor_history, 2 * i);
  int dim = M(sensor_dim, i);
  int adr = M(sensor_historyadr, i);
  PXR t = PXK_TIME - M(sensor_delay, i);
  for (int e = 0; e < dim; e++) {
    D(sensordata, M(sensor_adr, i) + e) =
        pxk_histValue(PX_MDARGC adr, n, dim, t, M(sensor_history, 2 * i + 1), e);
  }
  return 1;
}

// the hooks of csrc/kern/actuation.h and csrc/kern/sensor.h (both executors): the delayed
// control input; a sensor read from its buffer (neither computed nor cut off); a sensor that
// computes nothing in this pass (so it asks for no lazy quantity)
#define PXK_AC_CTRLIN(j) pxk_histCtrlIn(PX_MDARGC j)
#define PXK_SN_FROMHISTORY(i) (MS(nhistory) > 0 && pxk_histSensorRead(PX_MDARGC i) == 1)
#define PXK_SN_SKIP(i) ((MS(nhistory) > 0 && pxk_histSensorReads(PX_MDARGC i) == 1) ? 1 : 0)

#endif  // PX_KERN_HISTORY_H_
