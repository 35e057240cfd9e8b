// SPDX-License-Identifier: Apache-2.0
// The CPU executor's entry points to the actuator and sensor history buffers, whose numerics are
// the kernel dialect's (csrc/kern/history.h: mju_historyInsert, mju_historyRead, mj_readCtrl's
// delayed controls, the buffers of mj_resetData, the control half of mj_advance's update; the
// GPU runs the same functions): the reset, the control update, and the support check.
#include "kern/prelude_c.h"

#include "kern/history.h"

void px_resetHistory(const pxModel* m, pxData* d) {
  pxk_histReset(m, d);
}

void px_advanceCtrlHistory(const pxModel* m, pxData* d) {
  pxk_histAdvanceCtrl(m, d);
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
