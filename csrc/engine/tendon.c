// SPDX-License-Identifier: Apache-2.0
// CPU entry points of the tendon and transmission stages (csrc/kern/tendon.h, transmission.h).
#include "kern/prelude_c.h"

#include "kern/tendon.h"
#include "kern/transmission.h"

void px_tendon(const pxModel* m, pxData* d) {
  pxk_tendon(m, d);
}

// what px_transmission cannot compute: SO3 transmissions, several outputs, and (unless bodyok)
// body transmissions where contacts can exist
static pxtStatus trnCheck(const pxModel* m, int bodyok, pxStatus* st) {
  // body transmission (adhesion) averages the normal Jacobians of the body's contacts, which
  // MuJoCo's mj_transmission reads after mj_makeConstraint: the stage alone cannot (px_forward
  // computes them after its constraint rows, csrc/kern/trnbody.h). MuJoCo has no contact when
  // contacts or constraints are disabled or only the world body exists, and then the kernel's
  // empty row is exact
  int nocontact = (m->opt.disableflags & (PX_DSBL_CONSTRAINT | PX_DSBL_CONTACT)) || m->nbody < 2;
  for (int i = 0; i < m->nu; i++) {
    int trn = m->actuator_trntype[i];
    if (trn == PX_TRN_BODY && !nocontact && !bodyok) {
      return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                     "body transmission (adhesion actuator %d) with contacts is computed by "
                     "forward only (its moment averages the body's contact normal Jacobians)",
                     i);
    }
    if (trn == PX_TRN_SO3) {
      return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                     "SO3 transmission (actuator %d) is not supported by phalanx yet", i);
    }
    if (m->actuator_outnum[i] != 1 || m->actuator_outadr[i] != i) {
      return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                     "actuator %d with %d outputs is not supported by phalanx yet", i,
                     m->actuator_outnum[i]);
    }
  }
  return PX_OK;
}

pxtStatus px_transmissionSupported(const pxModel* m, pxStatus* st) {
  return trnCheck(m, 0, st);
}

pxtStatus px_transmissionForwardSupported(const pxModel* m, pxStatus* st) {
  return trnCheck(m, 1, st);
}

pxtStatus px_transmission(const pxModel* m, pxData* d, pxStatus* st) {
  pxtStatus code = px_transmissionSupported(m, st);
  if (code != PX_OK) return code;
  pxk_transmission(m, d);
  return PX_OK;
}

void px_tendonVelocity(const pxModel* m, pxData* d) {
  pxk_tendonVelocity(m, d);
}
