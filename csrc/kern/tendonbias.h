// SPDX-License-Identifier: Apache-2.0
// The velocity-product force of tendon armature in the kernel dialect (MuJoCo 3.12's
// mj_tendonBias with mj_tendonDot): qfrc_bias += ten_J' * armature * (d/dt ten_J) . qvel for
// every tendon with armature (its own plus what its actuators contribute).
//   reads:  m->tendon_*, m->wrap_*, m->site_bodyid, m->body_*, m->dof_*, m->jnt_type/dofadr,
//           m->ten_J_*, m->opt.jacobian, d->site_xpos, site_xmat, subtree_com, cdof, cdof_dot,
//           cvel, qvel, ten_J
//   writes: d->qfrc_bias (adds)
// Fixed tendons have a constant Jacobian (no term). Spatial tendons through sites and pulleys
// are differentiated segment by segment as mj_tendonDot does; wrapping around geoms is not
// differentiable there (MuJoCo raises an error) and px_forwardCheck refuses it. Jacobian rows are
// walked dof by dof without storing them; sums follow MuJoCo's order for its dense and sparse
// Jacobian settings (mj_isSparse), the dense one with mju_dot's 4-way unrolled sum over all dofs.
// Sequential on lane 0 (tendons share dofs).
#ifndef PX_KERN_TENDONBIAS_H_
#define PX_KERN_TENDONBIAS_H_

#include "kern/smooth.h"
#include "kern/tendon.h"

// 1 if dof k is in the chain of dofs that move body (after welding)
PX_FN int pxk_tbInChain(PX_MDC int body, int k) {
  int da = pxk_jacLastDof(PX_MDARGC body);
  while (da > k) da = M(dof_parentid, da);
  return da == k ? 1 : 0;
}

// column k of the translational Jacobian (jac) and of its time derivative (jacdot) of the point
// at `offset` from its tree's com, moving with the linear velocity plin, on body; zeros when k
// does not move the body (mj_jac, mj_jacDot)
PX_FN void pxk_tbColumns(PX_MDC int body, int k, PX_IN(PX_REAL, offset, 3), PX_IN(PX_REAL, plin, 3),
                         PX_OUT(PX_REAL, jacdot, 3), PX_OUT(PX_REAL, jac, 3)) {
  PXR cd[6];
  PXR cdd[6];
  PXR cv[6];
  PXR ang[3];
  PXR angd[3];
  PXR tmp[3];
  PXR tmp1[3];
  PXR tmp2[3];
  if (pxk_tbInChain(PX_MDARGC body, k) == 0) {
    for (int r = 0; r < 3; r++) {
      jacdot[r] = PX_R(0.0);
      jac[r] = PX_R(0.0);
    }
    return;
  }
  PXK_GET(6, cd, D, cdof, 6 * k);
  PXK_GET(6, cdd, D, cdof_dot, 6 * k);

  // quaternion dofs: cdof_dot from the body's current velocity
  int jnt = M(dof_jntid, k);
  int type = M(jnt_type, jnt);
  if (type == PX_JNT_BALL || (type == PX_JNT_FREE && k >= M(jnt_dofadr, jnt) + 3)) {
    PXK_GET(6, cv, D, cvel, 6 * M(dof_bodyid, k));
    pxk_smCrossMotion(cdd, cv, cd);
  }
  for (int r = 0; r < 3; r++) {
    ang[r] = cd[r];
    angd[r] = cdd[r];
  }
  pxk_cross(tmp1, angd, offset);
  pxk_cross(tmp2, ang, plin);
  pxk_cross(tmp, ang, offset);
  for (int r = 0; r < 3; r++) {
    PXR a = cdd[3 + r] + tmp1[r];
    PXR b = a + tmp2[r];
    jacdot[r] = b;
    PXR c = cd[3 + r] + tmp[r];
    jac[r] = c;
  }
}

// offset from the tree's com and linear velocity of a point on body (mj_jacDot's preamble)
PX_FN void pxk_tbPoint(PX_MDC int body, PX_IN(PX_REAL, pnt, 3), PX_OUT(PX_REAL, offset, 3),
                       PX_OUT(PX_REAL, plin, 3)) {
  PXR ang[3];
  PXR cros[3];
  pxk_jacOffset(PX_MDARGC offset, pnt, body);
  for (int r = 0; r < 3; r++) ang[r] = D(cvel, 6 * body + r);
  pxk_cross(cros, offset, ang);
  for (int r = 0; r < 3; r++) {
    PXR v = D(cvel, 6 * body + 3 + r) - cros[r];
    plin[r] = v;
  }
}

// the two chain-rule terms at dof k of one segment: (d/dt (J1 - J0))' dpnt and (J1 - J0)' dvel
PX_FN void pxk_tbTerms(PX_MDC int k, int b0, int b1, PX_IN(PX_REAL, off0, 3),
                       PX_IN(PX_REAL, lin0, 3), PX_IN(PX_REAL, off1, 3), PX_IN(PX_REAL, lin1, 3),
                       PX_IN(PX_REAL, dpnt, 3), PX_IN(PX_REAL, dvel, 3),
                       PX_OUT(PX_REAL, terms, 2)) {
  PXR jd0[3];
  PXR j0[3];
  PXR jd1[3];
  PXR j1[3];
  PXR dif[3];
  PXR difd[3];
  pxk_tbColumns(PX_MDARGC b0, k, off0, lin0, jd0, j0);
  pxk_tbColumns(PX_MDARGC b1, k, off1, lin1, jd1, j1);
  for (int r = 0; r < 3; r++) {
    difd[r] = jd1[r] - jd0[r];
    dif[r] = j1[r] - j0[r];
  }
  terms[0] = pxk_jacColumnDot(difd, dpnt);
  terms[1] = pxk_jacColumnDot(dif, dvel);
}

// d/dt(ten_J) . qvel for tendon id (mj_tendonDot with vec = qvel)
PX_FN PX_REAL pxk_tendonDot(PX_MDC int id) {
  PXR res = PX_ZERO;
  int adr = M(tendon_adr, id);
  if (M(wrap_type, adr) == PX_WRAP_JOINT) return res;
  int sparse =
      (MOPT(jacobian) == PX_JAC_SPARSE || (MOPT(jacobian) == PX_JAC_AUTO && MS(nv) >= 60)) ? 1 : 0;
  PXR divisor = PX_R(1.0);
  PXR vel[6];
  PXR p0[3];
  PXR p1[3];
  PXR off0[3];
  PXR off1[3];
  PXR lin0[3];
  PXR lin1[3];
  PXR dpnt[3];
  PXR dvel[3];
  PXR terms[2];
  int num = M(tendon_num, id);
  int j = 0;
  while (j < num - 1) {
    int type0 = M(wrap_type, adr + j);
    int type1 = M(wrap_type, adr + j + 1);
    if (type0 == PX_WRAP_PULLEY || type1 == PX_WRAP_PULLEY) {
      if (type0 == PX_WRAP_PULLEY) divisor = M(wrap_prm, adr + j);
      j++;
      continue;
    }
    int s0 = M(wrap_objid, adr + j);
    int s1 = M(wrap_objid, adr + j + 1);
    int b0 = M(site_bodyid, s0);
    int b1 = M(site_bodyid, s1);
    PXK_GET(3, p0, D, site_xpos, 3 * s0);
    PXK_GET(3, p1, D, site_xpos, 3 * s1);
    if (b0 != b1) {
      PXR w0[3];
      PXR w1[3];
      pxk_objectVelocity(PX_MDARGC vel, PX_OBJ_SITE, s0, 0);
      for (int r = 0; r < 3; r++) w0[r] = vel[3 + r];
      pxk_objectVelocity(PX_MDARGC vel, PX_OBJ_SITE, s1, 0);
      for (int r = 0; r < 3; r++) w1[r] = vel[3 + r];

      // unit direction and its rate of change
      for (int r = 0; r < 3; r++) {
        dpnt[r] = p1[r] - p0[r];
        dvel[r] = w1[r] - w0[r];
      }
      PXR norm = pxk_normalize3(dpnt);
      PXR dot = dpnt[0] * dvel[0] + dpnt[1] * dvel[1] + dpnt[2] * dvel[2];
      PXR ndot = -dot;
      for (int r = 0; r < 3; r++) {
        PXR t = dpnt[r] * ndot;
        dvel[r] = dvel[r] + t;
      }
      PXR scl = PX_ZERO;
      if (norm > PXK_MINVAL) scl = PX_R(1.0) / norm;
      for (int r = 0; r < 3; r++) dvel[r] = dvel[r] * scl;

      pxk_tbPoint(PX_MDARGC b0, p0, off0, lin0);
      pxk_tbPoint(PX_MDARGC b1, p1, off1, lin1);
      if (sparse != 0) {
        // chain in increasing dof order; the Jacobian-rate term over it, then the Jacobian term
        for (int pass = 0; pass < 2; pass++) {
          for (int k = 0; k < MS(nv); k++) {
            if (pxk_tbInChain(PX_MDARGC b0, k) == 0 && pxk_tbInChain(PX_MDARGC b1, k) == 0) {
              continue;
            }
            pxk_tbTerms(PX_MDARGC k, b0, b1, off0, lin0, off1, lin1, dpnt, dvel, terms);
            PXR q = terms[pass] / divisor;
            PXR t = q * D(qvel, k);
            res = res + t;
          }
        }
      } else {
        // mju_dot over all dofs (zeros off the chains), both terms in one sweep
        PXR a0 = PX_ZERO;
        PXR a1 = PX_ZERO;
        PXR a2 = PX_ZERO;
        PXR a3 = PX_ZERO;
        PXR c0 = PX_ZERO;
        PXR c1 = PX_ZERO;
        PXR c2 = PX_ZERO;
        PXR c3 = PX_ZERO;
        int nv = MS(nv);
        int nblock = nv - nv % 4;
        for (int k = 0; k < nblock; k++) {
          pxk_tbTerms(PX_MDARGC k, b0, b1, off0, lin0, off1, lin1, dpnt, dvel, terms);
          PXR pa = terms[0] * D(qvel, k);
          PXR pc = terms[1] * D(qvel, k);
          int lane = k % 4;
          if (lane == 0) {
            a0 = a0 + pa;
            c0 = c0 + pc;
          } else if (lane == 1) {
            a1 = a1 + pa;
            c1 = c1 + pc;
          } else if (lane == 2) {
            a2 = a2 + pa;
            c2 = c2 + pc;
          } else {
            a3 = a3 + pa;
            c3 = c3 + pc;
          }
        }
        PXR sa02 = a0 + a2;
        PXR sa13 = a1 + a3;
        PXR dota = sa02 + sa13;
        PXR sc02 = c0 + c2;
        PXR sc13 = c1 + c3;
        PXR dotc = sc02 + sc13;
        PXR taila = PX_ZERO;
        PXR tailc = PX_ZERO;
        for (int k = nblock; k < nv; k++) {
          pxk_tbTerms(PX_MDARGC k, b0, b1, off0, lin0, off1, lin1, dpnt, dvel, terms);
          PXR pa = terms[0] * D(qvel, k);
          PXR pc = terms[1] * D(qvel, k);
          if (k == nblock) {
            taila = pa;
            tailc = pc;
          } else {
            taila = taila + pa;
            tailc = tailc + pc;
          }
        }
        if (nblock < nv) {
          dota = dota + taila;
          dotc = dotc + tailc;
        }
        PXR qa = dota / divisor;
        res = res + qa;
        PXR qc = dotc / divisor;
        res = res + qc;
      }
    }
    j++;
  }
  return res;
}

// qfrc_bias += tendon armature velocity-product forces (mj_tendonBias)
PX_FN void pxk_tendonBias(PX_MD) {
  if (PX_LANE == 0) {
    for (int i = 0; i < MS(ntendon); i++) {
      PXR armature = M(tendon_armature, i) + pxk_actuatorArmature(PX_MDARGC 1, i);
      if (armature == PX_R(0.0)) continue;
      PXR dot = pxk_tendonDot(PX_MDARGC i);
      PXR coef = armature * dot;
      if (coef == PX_R(0.0)) continue;
      int adr = M(ten_J_rowadr, i);
      for (int k = 0; k < M(ten_J_rownnz, i); k++) {
        int c = M(ten_J_colind, adr + k);
        PXR f = coef * D(ten_J, adr + k);
        PXR x = D(qfrc_bias, c) + f;
        D(qfrc_bias, c) = x;
      }
    }
  }
  PX_SYNC();
}

#endif  // PX_KERN_TENDONBIAS_H_
