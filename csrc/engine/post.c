// SPDX-License-Identifier: Apache-2.0
// The CPU executor of csrc/kern/post.h: MuJoCo 3.12's mj_rnePostConstraint (with the contact and
// equality forces of csrc/kern/constraint.h), mj_rne, mj_objectAcceleration, and the Jacobian
// utilities built on jac.h and post.h (mj_jacDot, mj_jacPointAxis, mj_jacSubtreeCom) on dense 3 x
// nv arrays.
#include <string.h>

#include "kern/prelude_c.h"

#include "kern/constraint.h"
#include "kern/post.h"

// accessor of element i of a C array p in the generic kernel bodies
#define PXK_PTR(p, i) p[i]

pxtStatus px_rnePostConstraintCheck(const pxModel* m, pxStatus* st) {
  // the constraint forces come from the last forward pass: a model it refuses has none
  if (!px_constraintFree(m)) return px_dynamicsCheckCPU(m, st);
  return PX_OK;
}

pxtStatus px_rnePostConstraint(const pxModel* m, pxData* d, pxStatus* st) {
  pxtStatus code = px_rnePostConstraintCheck(m, st);
  if (code != PX_OK) return code;
  px_rnePostConstraintRun(m, d);
  return PX_OK;
}

void px_rnePostConstraintRun(const pxModel* m, pxData* d) {
  // a model without constraint rows may have a Data without contact or row storage
  if (px_constraintFree(m)) {
    pxk_rnePostConstraint(m, d);
  } else {
    pxk_rnePostConstraintEfc(m, d);
  }
}

pxtStatus px_rne(const pxModel* m, pxData* d, int flg_acc, double* result, pxStatus* st) {
  if (m->opt.enableflags & PX_ENBL_SLEEP) {
    return PX_FAIL(st, PX_ERR_UNSUPPORTED, "rne: sleep (enableflags sleep) is not supported");
  }
  pxk_postRneBodies(m, d, flg_acc);
  PXK_RNE_RESULT_BODY(PXK_PTR, result, 0)
  return PX_OK;
}

pxtStatus px_energyPos(const pxModel* m, pxData* d, pxStatus* st) {
  if (m->opt.enableflags & PX_ENBL_SLEEP) {
    return PX_FAIL(st, PX_ERR_UNSUPPORTED, "energyPos: sleep (enableflags sleep) is not supported");
  }
  pxk_energyPos(m, d);
  return PX_OK;
}

pxtStatus px_energyVel(const pxModel* m, pxData* d, pxStatus* st) {
  (void)st;
  pxk_energyVel(m, d);
  return PX_OK;
}

void px_objectAcceleration(const pxModel* m, const pxData* dc, int objtype, int objid,
                           double res[6], int flg_local) {
  pxk_objectAcceleration(m, (pxData*)dc, res, objtype, objid, flg_local);
}

void px_jacDot(const pxModel* m, const pxData* dc, double* jacp, double* jacr,
               const double point[3], int body) {
  pxData* d = (pxData*)dc;  // read only: the accessor macros need a mutable pointer type
  int nv = m->nv;
  double offset[3], plin[3], jp[3], jr[3], pt[3] = {point[0], point[1], point[2]};
  if (jacp) memset(jacp, 0, sizeof(double) * 3 * (size_t)nv);
  if (jacr) memset(jacr, 0, sizeof(double) * 3 * (size_t)nv);
  pxk_jacOffset(m, d, offset, pt, body);
  pxk_jacDotPointVel(m, d, plin, pt, body);
  for (int i = pxk_jacLastDof(m, d, body); i >= 0; i = m->dof_parentid[i]) {
    pxk_jacDotColumn(m, d, jp, jr, offset, plin, i);
    for (int r = 0; r < 3; r++) {
      if (jacp) jacp[r * nv + i] += jp[r];
      if (jacr) jacr[r * nv + i] += jr[r];
    }
  }
}

void px_jacPointAxis(const pxModel* m, const pxData* dc, double* jacPoint, double* jacAxis,
                     const double point[3], const double axis[3], int body) {
  pxData* d = (pxData*)dc;
  int nv = m->nv;
  double ax[3] = {axis[0], axis[1], axis[2]}, zero[3] = {0, 0, 0}, r[3], c[3];
  if (jacPoint) px_jac(m, d, jacPoint, NULL, point, body);
  if (!jacAxis) return;

  // every column is jacr_i x axis; jacr_i is cdof_i's rotation on the chain, zero elsewhere
  pxk_cross(c, zero, ax);
  for (int i = 0; i < nv; i++) {
    for (int k = 0; k < 3; k++) jacAxis[k * nv + i] = c[k];
  }
  for (int i = pxk_jacLastDof(m, d, body); i >= 0; i = m->dof_parentid[i]) {
    for (int k = 0; k < 3; k++) r[k] = d->cdof[6 * i + k];
    pxk_cross(c, r, ax);
    for (int k = 0; k < 3; k++) jacAxis[k * nv + i] = c[k];
  }
}

void px_jacSubtreeCom(const pxModel* m, const pxData* dc, double* jacp, int body) {
  pxData* d = (pxData*)dc;
  int nv = m->nv;
  double offset[3], jp[3], jr[3], pt[3];
  memset(jacp, 0, sizeof(double) * 3 * (size_t)nv);

  // mass-weighted com Jacobians of the bodies of the subtree (contiguous in body order); the
  // entries off each body's chain add zeros, which change nothing (the sums are never -0)
  for (int b = body; b < m->nbody; b++) {
    if (b > body && m->body_parentid[b] < body) break;
    double mass = m->body_mass[b];
    for (int k = 0; k < 3; k++) pt[k] = d->xipos[3 * b + k];
    pxk_jacOffset(m, d, offset, pt, b);
    for (int i = pxk_jacLastDof(m, d, b); i >= 0; i = m->dof_parentid[i]) {
      pxk_jacColumn(m, d, jp, jr, offset, i);
      for (int r = 0; r < 3; r++) jacp[r * nv + i] += jp[r] * mass;
    }
  }
  double scl = 1 / m->body_subtreemass[body];
  for (int k = 0; k < 3 * nv; k++) jacp[k] = jacp[k] * scl;
}
