// SPDX-License-Identifier: Apache-2.0
// The CPU executor of the force stages csrc/kern/passive.h and csrc/kern/actuation.h, and the
// host checks that refuse the actuator features those kernels do not implement.
#include "kern/prelude_c.h"

#include "kern/actuation.h"
#include "kern/passive.h"

void px_passive(const pxModel* m, pxData* d) {
  pxk_passive(m, d);
}

pxtStatus px_actuationCheck(const pxModel* m, pxStatus* st) {
  static const char* const dyn[] = {"none",   "integrator", "filter", "filterexact",
                                    "muscle", "dcmotor",    "pid",    "user"};
  static const char* const gain[] = {"fixed", "affine", "muscle", "dcmotor", "so3", "pid", "user"};
  static const char* const bias[] = {"none", "affine", "muscle", "dcmotor", "so3", "user"};
  for (int i = 0; i < m->nu; i++) {
    int dt = m->actuator_dyntype[i], gt = m->actuator_gaintype[i], bt = m->actuator_biastype[i];
    if (dt == PX_DYN_DCMOTOR || dt == PX_DYN_PID) {
      return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                     "actuator %d: dyntype '%s' is not supported by phalanx yet", i, dyn[dt]);
    }
    if (gt == PX_GAIN_DCMOTOR || gt == PX_GAIN_SO3 || gt == PX_GAIN_PID) {
      return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                     "actuator %d: gaintype '%s' is not supported by phalanx yet", i, gain[gt]);
    }
    if (bt == PX_BIAS_DCMOTOR || bt == PX_BIAS_SO3) {
      return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                     "actuator %d: biastype '%s' is not supported by phalanx yet", i, bias[bt]);
    }
    if (dt < 0 || dt > PX_DYN_USER || gt < 0 || gt > PX_GAIN_USER || bt < 0 || bt > PX_BIAS_USER) {
      return PX_FAIL(st, PX_ERR_ARG, "actuator %d: invalid dyn/gain/bias type (%d, %d, %d)", i, dt,
                     gt, bt);
    }
    if (m->actuator_plugin[i] >= 0) {
      return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                     "actuator %d: actuator plugins are not supported by phalanx yet", i);
    }
    if (m->actuator_ctrlnum[i] != 1 || m->actuator_outnum[i] != 1) {
      return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                     "actuator %d: %d controls and %d outputs; phalanx supports one of each", i,
                     m->actuator_ctrlnum[i], m->actuator_outnum[i]);
    }

    // muscles need the constants MuJoCo derives by running the engine at compile time
    int oadr = m->actuator_outadr[i];
    for (int k = 0; k < 2; k++) {
      const pxtNum* prm = k == 0 && gt == PX_GAIN_MUSCLE   ? m->actuator_gainprm + 10 * i
                          : k == 1 && bt == PX_BIAS_MUSCLE ? m->actuator_biasprm + 10 * i
                                                           : NULL;
      if (!prm) continue;
      const pxtNum* lr = m->actuator_lengthrange + 2 * oadr;
      // (with actuation disabled the stage reads neither: the length-range simulation runs so)
      if (!(lr[0] < lr[1]) && !(m->opt.disableflags & PX_DSBL_ACTUATION)) {
        return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                       "actuator %d: muscle without a valid lengthrange (MuJoCo computes it by a "
                       "simulation with joint and tendon limits, which needs the constraint "
                       "solver phalanx does not have yet)",
                       i);
      }
      if (prm[2] < 0 && m->actuator_acc0[oadr] == 0) {
        return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                       "actuator %d: muscle force from scale/acc0; actuator_acc0 (mj_setConst) is "
                       "not computed by phalanx yet",
                       i);
      }
    }
  }
  return PX_OK;
}

void px_actuation(const pxModel* m, pxData* d) {
  pxk_actuation(m, d);
}
