// SPDX-License-Identifier: Apache-2.0
// Actuator transmissions (MuJoCo 3.12's mj_transmission): actuator_length and the sparse
// actuator_moment rows (moment_rownnz/rowadr/colind) for joint and jointinparent (scalar gear on
// slide and hinge joints, 3D on ball joints, 6D on free joints), tendon, site (with or without a
// reference site) and slider-crank transmissions. Body transmissions (adhesion) average contact
// normal Jacobians; without contacts their row is empty and their length 0, which is what this
// kernel writes: callers run it only where the model can have no contacts (px_transmission
// rejects the rest). SO3 transmissions are rejected at model load.
//   reads:  m->actuator_trntype/trnid/gear/cranklength/outadr, jnt_*, site_bodyid/quat,
//           body_weldid/dofnum/dofadr/rootid, dof_parentid, ten_J_rownnz/rowadr/colind,
//           d->qpos, xquat, site_xpos/xmat, subtree_com, cdof, ten_length, ten_J
//   writes: d->actuator_length, actuator_moment, moment_rownnz, moment_rowadr, moment_colind
// Ordering: sequential in actuator order on lane 0 (each row starts where the previous ended).
// Rows whose entries MuJoCo compresses from a dense nv-vector (site, slider-crank) are built by
// walking the dof chains of the bodies involved from the leaves up (no nv-sized locals), keeping
// MuJoCo's nonzero test, then reversed into increasing column order.
#ifndef PX_KERN_TRANSMISSION_H_
#define PX_KERN_TRANSMISSION_H_

#include "kern/kinematics.h"
#include "kern/libm.h"
#include "kern/spatial.h"
#include "kern/tendon.h"

// expmap (axis * angle) of a unit quaternion (mju_quat2Vel with dt = 1)
PX_FN void pxk_trnQuat2Vel(PX_OUT(PX_REAL, res, 3), PX_IN(PX_REAL, quat, 4)) {
  PXR axis[3];
  axis[0] = quat[1];
  axis[1] = quat[2];
  axis[2] = quat[3];
  PXR sina2 = pxk_normalize3(axis);
  PXR speed = PX_R(2.0) * pxk_atan2(sina2, quat[0]);
  if (speed > PXK_TEN_PI) {
    PXR twopi = PX_R(2.0) * PXK_TEN_PI;
    speed -= twopi;
  }
  speed /= PX_R(1.0);
  res[0] = axis[0] * speed;
  res[1] = axis[1] * speed;
  res[2] = axis[2] * speed;
}

// res = quat' (the conjugate)
PX_FN void pxk_trnNegQuat(PX_OUT(PX_REAL, res, 4), PX_IN(PX_REAL, quat, 4)) {
  res[0] = quat[0];
  res[1] = -quat[1];
  res[2] = -quat[2];
  res[3] = -quat[3];
}

// global orientation of a site from its body's quaternion, as MuJoCo's transmission composes it
// (site_quat * xquat, in that order)
PX_FN void pxk_trnSiteQuat(PX_MDC PX_OUT(PX_REAL, res, 4), int site) {
  PXR sq[4];
  PXR bq[4];
  PXK_GET(4, sq, M, site_quat, 4 * site);
  PXK_GET(4, bq, D, xquat, 4 * M(site_bodyid, site));
  pxk_mulQuat(res, sq, bq);
}

// reverse entries [adr, adr + n) of a moment row (descending chain walk -> increasing columns)
PX_FN void pxk_trnReverse(PX_MDC int adr, int n) {
  for (int k = 0; k < n / 2; k++) {
    int a = adr + k;
    int b = adr + n - 1 - k;
    PXR v = D(actuator_moment, a);
    D(actuator_moment, a) = D(actuator_moment, b);
    D(actuator_moment, b) = v;
    int c = D(moment_colind, a);
    D(moment_colind, a) = D(moment_colind, b);
    D(moment_colind, b) = c;
  }
}

// joint and jointinparent transmissions; returns the row's nonzero count
PX_FN int pxk_trnJoint(PX_MDC int i, int orow, int adr, int id) {
  int jtype = M(jnt_type, id);
  int qadr = M(jnt_qposadr, id);
  int dadr = M(jnt_dofadr, id);
  int inparent = M(actuator_trntype, i) == PX_TRN_JOINTINPARENT ? 1 : 0;
  PXR gear[6];
  PXR quat[4];
  PXR nq[4];
  PXR axis[3];
  PXR g3[3];
  PXR ga[3];
  PXK_GET(6, gear, M, actuator_gear, 6 * orow);

  if (jtype == PX_JNT_SLIDE || jtype == PX_JNT_HINGE) {
    D(moment_colind, adr) = dadr;
    PXR len = D(qpos, qadr) * gear[0];
    D(actuator_length, orow) = len;
    D(actuator_moment, adr) = gear[0];
    return 1;
  }

  if (jtype == PX_JNT_BALL) {
    PXK_GET(4, quat, D, qpos, qadr);
    pxk_normalize4(quat);
    pxk_trnQuat2Vel(axis, quat);
    g3[0] = gear[0];
    g3[1] = gear[1];
    g3[2] = gear[2];
    if (inparent == 0) {
      pxk_copy3(ga, g3);
    } else {
      pxk_trnNegQuat(nq, quat);
      pxk_rotVecQuat(ga, g3, nq);
    }
    D(actuator_length, orow) = pxk_dot3(axis, ga);
    for (int k = 0; k < 3; k++) {
      D(moment_colind, adr + k) = dadr + k;
      D(actuator_moment, adr + k) = ga[k];
    }
    return 3;
  }

  // free joint: no meaningful length; translation gear as is, rotation gear in the body frame
  D(actuator_length, orow) = PX_R(0.0);
  g3[0] = gear[3];
  g3[1] = gear[4];
  g3[2] = gear[5];
  if (inparent == 0) {
    pxk_copy3(ga, g3);
  } else {
    PXK_GET(4, quat, D, qpos, qadr + 3);
    pxk_normalize4(quat);
    pxk_trnNegQuat(nq, quat);
    pxk_rotVecQuat(ga, g3, nq);
  }
  for (int k = 0; k < 6; k++) D(moment_colind, adr + k) = dadr + k;
  for (int k = 0; k < 3; k++) {
    D(actuator_moment, adr + k) = gear[k];
    D(actuator_moment, adr + 3 + k) = ga[k];
  }
  return 6;
}

// slider-crank transmission; returns the row's nonzero count
PX_FN int pxk_trnSliderCrank(PX_MDC int i, int orow, int adr, int id) {
  int idslider = M(actuator_trnid, 2 * i + 1);
  PXR rod = M(actuator_cranklength, orow);
  PXR gear0 = M(actuator_gear, 6 * orow);
  PXR axis[3];
  PXR vec[3];
  PXR sp[3];
  PXR ss[3];
  axis[0] = D(site_xmat, 9 * idslider + 2);
  axis[1] = D(site_xmat, 9 * idslider + 5);
  axis[2] = D(site_xmat, 9 * idslider + 8);
  PXK_GET(3, sp, D, site_xpos, 3 * id);
  PXK_GET(3, ss, D, site_xpos, 3 * idslider);
  pxk_sub3(vec, sp, ss);

  // length = a'v - sqrt((a'v)^2 + r^2 - v'v), or a'v where the root is not real
  PXR av = pxk_dot3(vec, axis);
  PXR vv = pxk_dot3(vec, vec);
  PXR det = av * av + rod * rod - vv;
  PXR sdet = PX_ZERO;
  PXR len = av;
  int ok = 1;
  if (det <= PX_R(0.0)) {
    ok = 0;
  } else {
    sdet = PX_SQRT(det);
    len = av - sdet;
  }

  // derivatives of the length with respect to vec and axis
  PXR dlda[3];
  PXR dldv[3];
  if (ok != 0) {
    PXR c = PX_R(1.0) - av / sdet;
    PXR inv = PX_R(1.0) / sdet;
    for (int k = 0; k < 3; k++) {
      dldv[k] = axis[k] * c;
      dlda[k] = vec[k] * inv;
    }
    for (int k = 0; k < 3; k++) dldv[k] += dlda[k];
    for (int k = 0; k < 3; k++) dlda[k] = vec[k] * c;
  } else {
    pxk_copy3(dlda, vec);
    pxk_copy3(dldv, axis);
  }
  len *= gear0;
  D(actuator_length, orow) = len;

  // chain rule over the merged dof chains of the crank site's and the slider site's bodies
  PXR off0[3];
  PXR off1[3];
  PXR j0[3];
  PXR j1[3];
  PXR jr[3];
  PXR jac[3];
  PXR jA[3];
  int b0 = M(site_bodyid, id);
  int b1 = M(site_bodyid, idslider);
  pxk_jacOffset(PX_MDARGC off0, sp, b0);
  pxk_jacOffset(PX_MDARGC off1, ss, b1);
  int da0 = pxk_jacLastDof(PX_MDARGC b0);
  int da1 = pxk_jacLastDof(PX_MDARGC b1);
  int nnz = 0;
  while (da0 >= 0 || da1 >= 0) {
    int da = da0 > da1 ? da0 : da1;
    int in0 = da0 == da ? 1 : 0;
    int in1 = da1 == da ? 1 : 0;
    for (int k = 0; k < 3; k++) {
      j0[k] = PX_ZERO;
      j1[k] = PX_ZERO;
      jr[k] = PX_ZERO;
    }
    if (in0 != 0) pxk_tenJacCol(PX_MDARGC j0, off0, da);
    if (in1 != 0) {
      pxk_tenJacCol(PX_MDARGC j1, off1, da);
      PXK_GET(3, jr, D, cdof, 6 * da);
    }
    for (int k = 0; k < 3; k++) jac[k] = j0[k] - j1[k];
    jA[0] = jr[1] * axis[2] - jr[2] * axis[1];
    jA[1] = jr[2] * axis[0] - jr[0] * axis[2];
    jA[2] = jr[0] * axis[1] - jr[1] * axis[0];
    PXR mr = PX_ZERO;
    for (int k = 0; k < 3; k++) {
      PXR t = dlda[k] * jA[k] + dldv[k] * jac[k];
      mr += t;
    }
    if (mr != PX_R(0.0)) {
      PXR v = mr * gear0;
      D(actuator_moment, adr + nnz) = v;
      D(moment_colind, adr + nnz) = da;
      nnz++;
    }
    if (in0 != 0) da0 = M(dof_parentid, da0);
    if (in1 != 0) da1 = M(dof_parentid, da1);
  }
  pxk_trnReverse(PX_MDARGC adr, nnz);
  return nnz;
}

// site transmission, with or without a reference site; returns the row's nonzero count
PX_FN int pxk_trnSite(PX_MDC int i, int orow, int adr, int id) {
  int refid = M(actuator_trnid, 2 * i + 1);
  PXR gear[6];
  PXR g3[3];
  PXR mat[9];
  PXR wt[3];
  PXR wr[3];
  PXR sp[3];
  PXR rp[3];
  PXR vec[3];
  PXR tmp[3];
  PXR q0[4];
  PXR q1[4];
  PXR off0[3];
  PXR off1[3];
  PXR j0[3];
  PXR j1[3];
  PXR jp[3];
  PXR jr[3];
  PXK_GET(6, gear, M, actuator_gear, 6 * orow);
  int b0 = M(site_bodyid, id);
  PXK_GET(3, sp, D, site_xpos, 3 * id);
  pxk_jacOffset(PX_MDARGC off0, sp, b0);
  int nnz = 0;

  if (refid == -1) {
    // wrench: the gear in the site frame, projected on the site's Jacobian
    D(actuator_length, orow) = PX_R(0.0);
    PXK_GET(9, mat, D, site_xmat, 9 * id);
    for (int k = 0; k < 3; k++) g3[k] = gear[k];
    pxk_mulMatVec3(wt, mat, g3);
    for (int k = 0; k < 3; k++) g3[k] = gear[3 + k];
    pxk_mulMatVec3(wr, mat, g3);
    int da = pxk_jacLastDof(PX_MDARGC b0);
    while (da >= 0) {
      pxk_tenJacCol(PX_MDARGC jp, off0, da);
      PXK_GET(3, jr, D, cdof, 6 * da);
      PXR mt = jp[0] * wt[0] + jp[1] * wt[1] + jp[2] * wt[2];
      PXR mrot = jr[0] * wr[0] + jr[1] * wr[1] + jr[2] * wr[2];
      PXR mr = mt + mrot;
      if (mr != PX_R(0.0)) {
        D(actuator_moment, adr + nnz) = mr;
        D(moment_colind, adr + nnz) = da;
        nnz++;
      }
      da = M(dof_parentid, da);
    }
    pxk_trnReverse(PX_MDARGC adr, nnz);
    return nnz;
  }

  // reference site: relative position and orientation in the reference frame; the dofs both
  // sites share move them together and drop out
  int b1 = M(site_bodyid, refid);
  PXK_GET(3, rp, D, site_xpos, 3 * refid);
  pxk_jacOffset(PX_MDARGC off1, rp, b1);
  PXK_GET(9, mat, D, site_xmat, 9 * refid);
  int trans = (gear[0] != PX_R(0.0) || gear[1] != PX_R(0.0) || gear[2] != PX_R(0.0)) ? 1 : 0;
  int rot = (gear[3] != PX_R(0.0) || gear[4] != PX_R(0.0) || gear[5] != PX_R(0.0)) ? 1 : 0;
  PXR len = PX_ZERO;
  if (trans != 0) {
    pxk_sub3(tmp, sp, rp);
    pxk_mulMatTVec3(vec, mat, tmp);
    for (int k = 0; k < 3; k++) g3[k] = gear[k];
    PXR l = pxk_dot3(vec, g3);
    len += l;
    pxk_mulMatVec3(wt, mat, g3);
  }
  if (rot != 0) {
    PXR nq[4];
    PXR qd[4];
    pxk_trnSiteQuat(PX_MDARGC q0, id);
    pxk_trnSiteQuat(PX_MDARGC q1, refid);
    pxk_trnNegQuat(nq, q1);
    pxk_mulQuat(qd, nq, q0);
    pxk_trnQuat2Vel(vec, qd);
    for (int k = 0; k < 3; k++) g3[k] = gear[3 + k];
    PXR l = pxk_dot3(vec, g3);
    len += l;
    pxk_mulMatVec3(wr, mat, g3);
  }
  D(actuator_length, orow) = len;

  int da0 = pxk_jacLastDof(PX_MDARGC b0);
  int da1 = pxk_jacLastDof(PX_MDARGC b1);
  while (da0 >= 0 || da1 >= 0) {
    int da = da0 > da1 ? da0 : da1;
    int in0 = da0 == da ? 1 : 0;
    int in1 = da1 == da ? 1 : 0;
    if (in0 != 0 && in1 != 0) break;  // the common chain: cleared columns
    PXR mr = PX_ZERO;
    if (trans != 0) {
      if (in0 != 0) {
        pxk_tenJacCol(PX_MDARGC jp, off0, da);
      } else {
        pxk_tenJacCol(PX_MDARGC j1, off1, da);
        for (int k = 0; k < 3; k++) jp[k] = PX_ZERO - j1[k];
      }
      mr = jp[0] * wt[0] + jp[1] * wt[1] + jp[2] * wt[2];
    }
    if (rot != 0) {
      PXK_GET(3, j0, D, cdof, 6 * da);
      if (in0 != 0) {
        pxk_copy3(jr, j0);
      } else {
        for (int k = 0; k < 3; k++) jr[k] = PX_ZERO - j0[k];
      }
      PXR r = jr[0] * wr[0] + jr[1] * wr[1] + jr[2] * wr[2];
      mr += r;
    }
    if (mr != PX_R(0.0)) {
      D(actuator_moment, adr + nnz) = mr;
      D(moment_colind, adr + nnz) = da;
      nnz++;
    }
    if (in0 != 0) da0 = M(dof_parentid, da0);
    if (in1 != 0) da1 = M(dof_parentid, da1);
  }
  pxk_trnReverse(PX_MDARGC adr, nnz);
  return nnz;
}

// the rows of every actuator in actuator order, each where the previous ended; BODY is the
// statement of a body transmission (adhesion), which sets its length and nnz, its nonzeros
// (pxk_transmission: no length, an empty row; pxk_transmissionContacts of csrc/kern/trnbody.h:
// from the contacts)
#define PXK_TRN_ROWS(BODY)                                                             \
  for (int i = 0; i < MS(nu); i++) {                                                   \
    int orow = M(actuator_outadr, i);                                                  \
    int adr = orow == 0 ? 0 : D(moment_rowadr, orow - 1) + D(moment_rownnz, orow - 1); \
    D(moment_rowadr, orow) = adr;                                                      \
    int id = M(actuator_trnid, 2 * i);                                                 \
    int trn = M(actuator_trntype, i);                                                  \
    int nnz = 0;                                                                       \
    if (trn == PX_TRN_JOINT || trn == PX_TRN_JOINTINPARENT) {                          \
      nnz = pxk_trnJoint(PX_MDARGC i, orow, adr, id);                                  \
    } else if (trn == PX_TRN_SLIDERCRANK) {                                            \
      nnz = pxk_trnSliderCrank(PX_MDARGC i, orow, adr, id);                            \
    } else if (trn == PX_TRN_TENDON) {                                                 \
      PXR gear0 = M(actuator_gear, 6 * orow);                                          \
      PXR len = D(ten_length, id) * gear0;                                             \
      D(actuator_length, orow) = len;                                                  \
      int tadr = M(ten_J_rowadr, id);                                                  \
      nnz = M(ten_J_rownnz, id);                                                       \
      for (int k = 0; k < nnz; k++) {                                                  \
        D(moment_colind, adr + k) = M(ten_J_colind, tadr + k);                         \
        PXR v = D(ten_J, tadr + k) * gear0;                                            \
        D(actuator_moment, adr + k) = v;                                               \
      }                                                                                \
    } else if (trn == PX_TRN_SITE) {                                                   \
      nnz = pxk_trnSite(PX_MDARGC i, orow, adr, id);                                   \
    } else {                                                                           \
      BODY;                                                                            \
    }                                                                                  \
    D(moment_rownnz, orow) = nnz;                                                      \
  }

// the transmission stage of one world (body transmissions: no contacts, an empty row)
PX_FN void pxk_transmission(PX_MD) {
  if (PX_LANE != 0) return;
  PXK_TRN_ROWS(D(actuator_length, orow) = PX_R(0.0));
}

#endif  // PX_KERN_TRANSMISSION_H_
