// SPDX-License-Identifier: Apache-2.0
// Body transmissions (adhesion actuators) with contacts, in the kernel dialect: MuJoCo 3.12's
// mj_transmission, which runs after mj_makeConstraint, gives such an actuator the average of the
// contact normal Jacobians of its body, negated, and no length. pxk_transmission
// (csrc/kern/transmission.h) runs before collision and leaves these rows empty; the executor
// runs pxk_transmissionContacts after the constraint rows where the model has them, then the
// stages that read the moments again (actuator velocities, actuation, smooth acceleration).
//
// Per contact of the body (either geom on it): a contact with rows (exclude 0) counts, and its
// rows enter with weight 1 (condim 1 or elliptic cones: the normal row) or 1/(2 (dim-1)) each
// (pyramid edges, whose average is the normal); a contact in the margin gap (exclude 1) counts,
// and its normal Jacobian (frame row 0 times the difference of the two bodies' point Jacobians)
// is summed apart. The moment is (J' w + in-gap sum) * (-1 / count), in MuJoCo's order: the rows
// ascending (J' w as mju_mulMatTVec sums it), then the in-gap sum added, then the scale; its
// nonzero entries form the row. A contact with rows but no room for them (efc_address -1, the
// constraint storage full) counts without rows.
//   reads:  m->actuator_*, geom_bodyid, the contacts, efc_J (dense or sparse), what
//   pxk_transmission reads writes: d->actuator_length, actuator_moment,
//   moment_rownnz/rowadr/colind; efc_cn_jac
//           (scratch: the two point Jacobians, their difference, the normal row, the moment
//           and the in-gap sum)
#ifndef PX_KERN_TRNBODY_H_
#define PX_KERN_TRNBODY_H_

#include "kern/constraint.h"
#include "kern/transmission.h"

// the moment row of body transmission actuator row orow (body id) at adr; returns its nonzeros
PX_FN int pxk_trnBody(PX_MDC int orow, int adr, int id) {
  int nv = MS(nv);
  int ja = 0;
  int jb = 6 * nv;
  int jd = 12 * nv;
  int jc = 18 * nv;
  int mr = 19 * nv;
  int mx = 20 * nv;
  D(actuator_length, orow) = PX_R(0.0);
  for (int k = 0; k < nv; k++) {
    PXK_E(efc_cn_jac, mr + k) = PX_R(0.0);
    PXK_E(efc_cn_jac, mx + k) = PX_R(0.0);
  }
  int ell = MOPT(cone) == PX_CONE_ELLIPTIC ? 1 : 0;
  int counter = 0;
  for (int j = 0; j < PXK_NCON; j++) {
    int b1 = M(geom_bodyid, PXK_CON(j).geom[0]);
    int b2 = M(geom_bodyid, PXK_CON(j).geom[1]);
    if (b1 != id && b2 != id) continue;
    int exclude = PXK_CON(j).exclude;
    if (exclude == 0) {
      counter++;
      int r0 = PXK_CON(j).efc_address;
      int dim = PXK_CON(j).dim;
      int nrow = (dim == 1 || ell == 1) ? 1 : 2 * (dim - 1);
      PXR w = PX_R(1.0);
      if (nrow > 1) w = PX_R(0.5) / PX_TOREAL(dim - 1);
      for (int r = r0; r >= 0 && r < r0 + nrow; r++) {
#if PXK_SPARSE_J
        // the sparse layout: the row's columns only
        if (pxk_isSparse(PX_MDARG) == 1) {
          int a = PXK_E(efc_J_rowadr, r);
          for (int k = 0; k < PXK_E(efc_J_rownnz, r); k++) {
            int col = PXK_E(efc_J_colind, a + k);
            PXR v = PXK_E(efc_cn_jac, mr + col) + PXK_E(efc_J, a + k) * w;
            PXK_E(efc_cn_jac, mr + col) = v;
          }
          continue;
        }
#endif
        for (int k = 0; k < nv; k++) {
          PXR v = PXK_E(efc_cn_jac, mr + k) + PXK_E(efc_J, r * nv + k) * w;
          PXK_E(efc_cn_jac, mr + k) = v;
        }
      }
    } else if (exclude == 1) {
      counter++;
      PXR pos[3];
      PXR frame[9];
      for (int k = 0; k < 3; k++) pos[k] = PXK_CON(j).pos[k];
      for (int k = 0; k < 9; k++) frame[k] = PXK_CON(j).frame[k];
      pxk_cnJac(PX_MDARGC ja, pos, b1);
      pxk_cnJac(PX_MDARGC jb, pos, b2);
      for (int r = 0; r < 3; r++) {
        for (int k = 0; k < nv; k++) {
          PXR v = PXK_E(efc_cn_jac, jb + r * nv + k) - PXK_E(efc_cn_jac, ja + r * nv + k);
          PXK_E(efc_cn_jac, jd + r * nv + k) = v;
        }
      }
      pxk_cnFrameMul(PX_MDARGC jc, frame, 0, 1, jd);
      for (int k = 0; k < nv; k++) {
        PXR v = PXK_E(efc_cn_jac, mx + k) + PXK_E(efc_cn_jac, jc + k);
        PXK_E(efc_cn_jac, mx + k) = v;
      }
    }
  }
  int nnz = 0;
  if (counter > 0) {
    PXR scl = PX_R(-1.0) / PX_TOREAL(counter);
    for (int k = 0; k < nv; k++) {
      PXR v = PXK_E(efc_cn_jac, mr + k) + PXK_E(efc_cn_jac, mx + k);
      v = v * scl;
      if (v != PX_R(0.0)) {
        D(actuator_moment, adr + nnz) = v;
        D(moment_colind, adr + nnz) = k;
        nnz++;
      }
    }
  }
  return nnz;
}

// the transmission stage again after the constraint rows, the body transmissions with their
// contacts (the other rows as pxk_transmission computes them; every later row moves with the
// body rows before it)
PX_FN void pxk_transmissionContacts(PX_MD) {
  if (PX_LANE != 0) return;
  PXK_TRN_ROWS(nnz = pxk_trnBody(PX_MDARGC orow, adr, id));
}

#endif  // PX_KERN_TRNBODY_H_
