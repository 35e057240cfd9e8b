// SPDX-License-Identifier: Apache-2.0
// Actuator and sensor history buffers (MuJoCo 3.12's mju_historyInsert / mju_historyRead, the
// buffer initialisation of mj_resetData, mj_readCtrl, and the control half of mj_advance's
// history update). CPU only: the GPU executor refuses models with history (px_forwardCheck).
//
// One buffer of n samples of dim numbers is n * (dim + 1) + 2 numbers of Data.history:
//   [0]          a free slot: 0 for actuators; for sensors the time of the last sample taken
//                (interval sensors) or -timestep
//   [1]          the cursor: the physical index of the newest sample
//   [2, 2+n)     the sample times, a ring ordered oldest (cursor + 1) to newest (cursor)
//   [2+n, ...)   the sample values, dim per sample, in the same physical order
#include <math.h>
#include <string.h>

#include "kern/prelude_c.h"

#define HIST_MINVAL 1E-15  // mjMINVAL

// physical slot of the logical sample k (0 the oldest, n - 1 the newest)
static int slotOf(int cursor, int n, int k) {
  return (cursor + 1 + k) % n;
}

// the logical index k with times[k - 1] < t <= times[k] (binary search over the ring): 0 when t
// is at or before the oldest sample, n when after the newest
static int findLogical(const pxtNum* times, int n, int cursor, pxtNum t) {
  if (t <= times[slotOf(cursor, n, 0)]) return 0;
  if (t > times[slotOf(cursor, n, n - 1)]) return n;
  int lo = 0, hi = n - 1;
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if (times[slotOf(cursor, n, mid)] < t) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return hi;
}

pxtNum* px_historyInsert(pxtNum* buf, int n, int dim, pxtNum t) {
  int cursor = (int)buf[1];
  pxtNum* times = buf + 2;
  pxtNum* values = buf + 2 + n;
  int k = findLogical(times, n, cursor, t);

  // a sample at this time already: overwrite it
  if (k < n) {
    int s = slotOf(cursor, n, k);
    if (fabs(t - times[s]) < HIST_MINVAL) return values + (size_t)s * dim;
  }
  // older than every sample: it replaces the oldest
  if (k == 0) {
    int s = slotOf(cursor, n, 0);
    times[s] = t;
    return values + (size_t)s * dim;
  }
  // newer than every sample: the ring turns, the oldest slot becomes the newest
  if (k == n) {
    cursor = (cursor + 1) % n;
    buf[1] = (pxtNum)cursor;
    times[cursor] = t;
    return values + (size_t)cursor * dim;
  }
  // in between: the samples older than k move one slot back (the oldest is dropped)
  for (int j = 0; j < k - 1; j++) {
    int src = slotOf(cursor, n, j + 1), dst = slotOf(cursor, n, j);
    times[dst] = times[src];
    memcpy(values + (size_t)dst * dim, values + (size_t)src * dim, sizeof(pxtNum) * (size_t)dim);
  }
  int s = slotOf(cursor, n, k - 1);
  times[s] = t;
  return values + (size_t)s * dim;
}

const pxtNum* px_historyRead(const pxtNum* buf, int n, int dim, pxtNum* res, pxtNum t, int interp) {
  int cursor = (int)buf[1];
  const pxtNum* times = buf + 2;
  const pxtNum* values = buf + 2 + n;
  int oldest = slotOf(cursor, n, 0), newest = slotOf(cursor, n, n - 1);

  // outside the samples: the nearest end, held
  if (t <= times[oldest] + HIST_MINVAL) return values + (size_t)oldest * dim;
  if (t >= times[newest] - HIST_MINVAL) return values + (size_t)newest * dim;

  int k = findLogical(times, n, cursor, t);
  int hi = slotOf(cursor, n, k);
  if (fabs(t - times[hi]) < HIST_MINVAL) return values + (size_t)hi * dim;
  int lo = slotOf(cursor, n, k - 1);
  if (interp == 0) return values + (size_t)lo * dim;  // zero-order hold

  pxtNum dt = times[hi] - times[lo];
  pxtNum a = (t - times[lo]) / dt;
  const pxtNum* vlo = values + (size_t)lo * dim;
  const pxtNum* vhi = values + (size_t)hi * dim;
  if (interp == 1) {
    for (int j = 0; j < dim; j++) res[j] = vlo[j] + a * (vhi[j] - vlo[j]);
    return NULL;
  }

  // cubic Hermite segment with Catmull-Rom slopes from the neighbouring samples (zero slope at
  // the first and last samples)
  pxtNum a2 = a * a;
  pxtNum a3 = a2 * a;
  pxtNum h00 = 2 * a3 - 3 * a2 + 1;
  pxtNum h10 = a3 - 2 * a2 + a;
  pxtNum h01 = -2 * a3 + 3 * a2;
  pxtNum h11 = a3 - a2;
  for (int j = 0; j < dim; j++) {
    pxtNum slo = 0, shi = 0;
    if (k > 1) {
      int p = slotOf(cursor, n, k - 2);
      pxtNum span = times[hi] - times[p];
      slo = (vhi[j] - values[(size_t)p * dim + j]) / span;
    }
    if (k < n - 1) {
      int q = slotOf(cursor, n, k + 1);
      pxtNum span = times[q] - times[lo];
      shi = (values[(size_t)q * dim + j] - vlo[j]) / span;
    }
    res[j] = h00 * vlo[j] + h10 * dt * slo + h01 * vhi[j] + h11 * dt * shi;
  }
  return NULL;
}

void px_resetHistory(const pxModel* m, pxData* d) {
  if (m->nhistory == 0 || !d->history) return;
  pxtNum dt = m->opt.timestep;
  for (int i = 0; i < m->nu; i++) {
    int n = m->actuator_history[2 * i];
    if (n <= 0) continue;
    pxtNum* buf = d->history + m->actuator_historyadr[i];
    buf[0] = 0;
    buf[1] = n - 1;
    for (int j = 0; j < n; j++) buf[2 + j] = -(n - j) * dt;
    memset(buf + 2 + n, 0, sizeof(pxtNum) * (size_t)n);
  }
  for (int i = 0; i < m->nsensor; i++) {
    int n = m->sensor_history[2 * i];
    if (n <= 0) continue;
    int dim = m->sensor_dim[i];
    pxtNum period = m->sensor_interval[2 * i];
    pxtNum phase = m->sensor_interval[2 * i + 1];
    pxtNum* buf = d->history + m->sensor_historyadr[i];
    pxtNum t0 = phase == 0 ? -period : phase;
    buf[0] = period > 0 ? t0 : -dt;
    buf[1] = n - 1;
    for (int j = 0; j < n; j++) {
      if (period > 0) {
        // the sample grid of the interval, moved up onto the timestep grid
        pxtNum tc = t0 - (n - 1 - j) * period;
        buf[2 + j] = ceil(tc / dt) * dt;
      } else {
        buf[2 + j] = -(n - j) * dt;
      }
    }
    memset(buf + 2 + n, 0, sizeof(pxtNum) * (size_t)n * (size_t)dim);
  }
}

// the actuator whose (single) control is j, -1 if none
static int ctrlOwner(const pxModel* m, int j) {
  if (j < m->nu && m->actuator_ctrladr[j] == j && m->actuator_ctrlnum[j] == 1) return j;
  for (int i = 0; i < m->nu; i++) {
    if (m->actuator_ctrladr[i] == j && m->actuator_ctrlnum[i] > 0) return i;
  }
  return -1;
}

pxtNum px_ctrlIn(const pxModel* m, const pxData* d, int j) {
  if (m->nhistory == 0) return d->ctrl[j];
  int i = ctrlOwner(m, j);
  if (i < 0 || m->actuator_delay[i] == 0 || m->actuator_history[2 * i] <= 0) return d->ctrl[j];
  int n = m->actuator_history[2 * i];
  const pxtNum* buf = d->history + m->actuator_historyadr[i];
  pxtNum res;
  const pxtNum* p = px_historyRead(buf, n, 1, &res, d->time - m->actuator_delay[i],
                                   m->actuator_history[2 * i + 1]);
  return p ? *p : res;
}

void px_advanceCtrlHistory(const pxModel* m, pxData* d) {
  for (int i = 0; i < m->nu; i++) {
    int n = m->actuator_history[2 * i];
    if (n <= 0) continue;
    pxtNum* buf = d->history + m->actuator_historyadr[i];
    *px_historyInsert(buf, n, 1, d->time) = d->ctrl[m->actuator_ctrladr[i]];
  }
}

pxtStatus px_historyCheck(const pxModel* m, pxStatus* st) {
  if (m->nhistory == 0) return PX_OK;
  if (!(m->opt.timestep > 0)) {
    return PX_FAIL(st, PX_ERR_ARG, "history buffers require a positive timestep, got %g",
                   m->opt.timestep);
  }
  for (int i = 0; i < m->nu; i++) {
    if (m->actuator_history[2 * i] > 0 && m->actuator_ctrlnum[i] != 1) {
      return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                     "actuator %d: a history buffer on an actuator with %d controls is not "
                     "supported",
                     i, m->actuator_ctrlnum[i]);
    }
  }
  return PX_OK;
}
