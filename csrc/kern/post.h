// SPDX-License-Identifier: Apache-2.0
// Quantities MuJoCo 3.12 computes after (or on top of) forward dynamics, in the kernel dialect:
//   - mj_rnePostConstraint: com-based body accelerations (cacc), interaction forces (cfrc_int)
//     and external forces (cfrc_ext). Without contacts or equality constraints (phalanx runs no
//     constraint stage yet; the executor refuses models where constraint rows can arise),
//     cfrc_ext holds xfrc_applied moved to the com of each body's kinematic tree.
//   - mj_rne with or without acceleration into the scratch rne_cacc/rne_cfrc, then projected on
//     the dofs into any real array (PXK_RNE_RESULT_BODY).
//   - mj_objectAcceleration (reads cacc and cvel), the columns of mj_jacDot.
//   - mj_energyPos (gravity, joint and tendon springs) and mj_energyVel (0.5 qvel' M qvel,
//     computed without scratch: each element of M qvel is recomputed in mj_mulM's order).
//   reads:  m->body_*, m->dof_*, m->jnt_*, m->tendon_*, m->M_*, m->qpos_spring, d->cdof,
//           cdof_dot, cinert, cvel, qvel, qacc, xipos, subtree_com, xfrc_applied, qpos,
//           ten_length, M, and the object frames (xpos, xmat, geom_xpos, ...)
//   writes: d->cacc, cfrc_int, cfrc_ext, rne_cacc, rne_cfrc (scratch), energy
// Chains over bodies are sequential on lane 0 in MuJoCo's order; per-body cfrc_ext and per-dof
// projections are lane-strided. Every float operation is in MuJoCo's order
// (engine_core_smooth.c, engine_core_util.c, engine_sensor.c, engine_util_spatial.c,
// engine_util_blas.c, engine_util_sparse.c).
#ifndef PX_KERN_POST_H_
#define PX_KERN_POST_H_

#include "kern/forcemath.h"
#include "kern/jac.h"
#include "kern/smooth.h"

// res = sum over the n dofs from dof adr of the rows of Data array `dfield` (cdof or cdof_dot)
// times Data vector `vfield` (qvel or qacc): mju_mulDofVec (n = 1 scales, n > 1 skips zeros)
#define PXK_POST_MULDOFVEC(res, dfield, vfield, adr, n)                                  \
  if ((n) == 1) {                                                                        \
    for (int k_ = 0; k_ < 6; k_++) res[k_] = D(dfield, 6 * (adr) + k_) * D(vfield, adr); \
  } else {                                                                               \
    for (int k_ = 0; k_ < 6; k_++) res[k_] = PX_ZERO;                                    \
    for (int r_ = 0; r_ < (n); r_++) {                                                   \
      if (D(vfield, (adr) + r_) != PX_R(0.0)) {                                          \
        for (int k_ = 0; k_ < 6; k_++) {                                                 \
          res[k_] += D(dfield, 6 * ((adr) + r_) + k_) * D(vfield, (adr) + r_);           \
        }                                                                                \
      }                                                                                  \
    }                                                                                    \
  }

// world-frame acceleration of the world body: -gravity, or zero when gravity is disabled
// (mj_rne and mj_rnePostConstraint)
PX_FN void pxk_postWorldAcc(PX_MDC PX_OUT(PX_REAL, acc, 6)) {
  for (int k = 0; k < 6; k++) acc[k] = PX_R(0.0);
  if ((MOPT(disableflags) & PX_DSBL_GRAVITY) == 0) {
    for (int k = 0; k < 3; k++) {
      PXR g = MOPT(gravity)[k];
      PXR ng = g * PX_R(-1.0);
      acc[3 + k] = ng;
    }
  }
}

// body force of body i for acceleration acc: cinert acc + cvel x (cinert cvel)
PX_FN void pxk_postBodyForce(PX_MDC PX_OUT(PX_REAL, frc, 6), PX_IN(PX_REAL, acc, 6), int i) {
  PXR inert[10];
  PXR vel[6];
  PXR corr[6];
  PXR cf[6];
  PXK_GET(10, inert, D, cinert, 10 * i);
  PXK_GET(6, vel, D, cvel, 6 * i);
  pxk_smMulInertVec(frc, inert, acc);
  pxk_smMulInertVec(corr, inert, vel);
  pxk_smCrossForce(cf, vel, corr);
  for (int k = 0; k < 6; k++) frc[k] += cf[k];
}

//---------------------------------- mj_rnePostConstraint ------------------------------------------

// cfrc_ext of body i: its xfrc_applied as a torque:force pair moved from the body's com to the
// com of its tree (mju_transformSpatial of a force, no rotation), added to zero
PX_FN void pxk_postExtForce(PX_MDC int i) {
  PXR frc[3];
  PXR dif[3];
  PXR cros[3];
  for (int k = 0; k < 6; k++) D(cfrc_ext, 6 * i + k) = PX_R(0.0);
  if (i == 0) return;
  int nz = 0;
  for (int k = 0; k < 6; k++) {
    if (D(xfrc_applied, 6 * i + k) != PX_R(0.0)) nz = 1;
  }
  if (nz == 0) return;
  int root = M(body_rootid, i);
  PXK_GET(3, frc, D, xfrc_applied, 6 * i);
  for (int k = 0; k < 3; k++) dif[k] = D(subtree_com, 3 * root + k) - D(xipos, 3 * i + k);
  pxk_cross(cros, dif, frc);
  for (int k = 0; k < 3; k++) {
    PXR t = D(xfrc_applied, 6 * i + 3 + k) - cros[k];
    PXR s = PX_ZERO + t;
    D(cfrc_ext, 6 * i + k) = s;
  }
  for (int k = 0; k < 3; k++) {
    PXR s = PX_ZERO + frc[k];
    D(cfrc_ext, 6 * i + 3 + k) = s;
  }
}

// the second part of mj_rnePostConstraint, once cfrc_ext holds every external force: cacc and
// cfrc_int = body force - cfrc_ext accumulated from the leaves into their parents (sequential;
// the constraint forces' variant is pxk_rnePostConstraintEfc of constraint.h)
PX_FN void pxk_postAccForces(PX_MD) {
  PXR acc[6];
  PXR tmp[6];
  PXR frc[6];
  pxk_postWorldAcc(PX_MDARGC acc);
  PXK_PUT(6, D, cacc, 0, acc);
  for (int k = 0; k < 6; k++) D(cfrc_int, k) = PX_R(0.0);
  for (int j = 1; j < MS(nbody); j++) {
    int bda = M(body_dofadr, j);
    int n = M(body_dofnum, j);
    int p = M(body_parentid, j);
    PXK_POST_MULDOFVEC(tmp, cdof_dot, qvel, bda, n)
    for (int k = 0; k < 6; k++) acc[k] = D(cacc, 6 * p + k) + tmp[k];
    PXK_POST_MULDOFVEC(tmp, cdof, qacc, bda, n)
    for (int k = 0; k < 6; k++) acc[k] += tmp[k];
    PXK_PUT(6, D, cacc, 6 * j, acc);
    pxk_postBodyForce(PX_MDARGC frc, acc, j);
    for (int k = 0; k < 6; k++) {
      PXR t = frc[k] - D(cfrc_ext, 6 * j + k);
      D(cfrc_int, 6 * j + k) = t;
    }
  }
  for (int j = MS(nbody) - 1; j > 0; j--) {
    int p = M(body_parentid, j);
    for (int k = 0; k < 6; k++) {
      PXR t = D(cfrc_int, 6 * p + k) + D(cfrc_int, 6 * j + k);
      D(cfrc_int, 6 * p + k) = t;
    }
  }
}

// mj_rnePostConstraint without constraint forces: cfrc_ext from xfrc_applied (lane-strided over
// bodies), then cacc and cfrc_int = body force - cfrc_ext accumulated from the leaves into their
// parents, the world body included (sequential: pxk_postAccForces)
PX_FN void pxk_rnePostConstraint(PX_MD) {
  for (int i = PX_LANE; i < MS(nbody); i += PX_NLANE) pxk_postExtForce(PX_MDARGC i);
  PX_SYNC();
  if (PX_LANE != 0) return;
  pxk_postAccForces(PX_MDARG);
}

//---------------------------------- mj_rne --------------------------------------------------------

// the body passes of mj_rne into the scratch rne_cacc and rne_cfrc: accelerations from -gravity,
// cdof_dot qvel and (flg_acc) cdof qacc, body forces summed from the leaves up (sequential)
PX_FN void pxk_postRneBodies(PX_MDC int flg_acc) {
  PXR acc[6];
  PXR tmp[6];
  PXR frc[6];

  if (PX_LANE != 0) return;
  pxk_postWorldAcc(PX_MDARGC acc);
  PXK_PUT(6, D, rne_cacc, 0, acc);
  for (int i = 1; i < MS(nbody); i++) {
    int bda = M(body_dofadr, i);
    int n = M(body_dofnum, i);
    int p = M(body_parentid, i);
    PXK_POST_MULDOFVEC(tmp, cdof_dot, qvel, bda, n)
    for (int k = 0; k < 6; k++) acc[k] = D(rne_cacc, 6 * p + k) + tmp[k];
    if (flg_acc != 0) {
      PXK_POST_MULDOFVEC(tmp, cdof, qacc, bda, n)
      for (int k = 0; k < 6; k++) acc[k] += tmp[k];
    }
    PXK_PUT(6, D, rne_cacc, 6 * i, acc);
    pxk_postBodyForce(PX_MDARGC frc, acc, i);
    PXK_PUT(6, D, rne_cfrc, 6 * i, frc);
  }
  for (int k = 0; k < 6; k++) D(rne_cfrc, k) = PX_R(0.0);
  for (int i = MS(nbody) - 1; i > 0; i--) {
    int p = M(body_parentid, i);
    if (p != 0) {
      for (int k = 0; k < 6; k++) {
        PXR t = D(rne_cfrc, 6 * p + k) + D(rne_cfrc, 6 * i + k);
        D(rne_cfrc, 6 * p + k) = t;
      }
    }
  }
}

// A(f, o + i) = cdof_i . rne_cfrc(body of dof i) for every dof (lane-strided): mj_rne's result
#define PXK_RNE_RESULT_BODY(A, f, o)                     \
  for (int i_ = PX_LANE; i_ < MS(nv); i_ += PX_NLANE) {  \
    PXR cd_[6];                                          \
    PXR fr_[6];                                          \
    PXK_GET(6, cd_, D, cdof, 6 * i_);                    \
    PXK_GET(6, fr_, D, rne_cfrc, 6 * M(dof_bodyid, i_)); \
    PXR r_ = pxk_smDot6(cd_, fr_);                       \
    A(f, (o) + i_) = r_;                                 \
  }

// define `PX_FN void name(PX_MDC int flg_acc)`: mj_rne into Data array `field`
#define PXK_DEFINE_RNE(name, field)       \
  PX_FN void name(PX_MDC int flg_acc) {   \
    pxk_postRneBodies(PX_MDARGC flg_acc); \
    PX_SYNC();                            \
    PXK_RNE_RESULT_BODY(D, field, 0)      \
  }

//---------------------------------- object acceleration, Jacobian derivative ----------------------

// a com-based motion vector moved to pos (translation part corrected by dif x rotation, dif =
// pos - com) and, when rotated, expressed in the frame rot (mju_transformSpatial of a motion)
PX_FN void pxk_postMotionAt(PX_OUT(PX_REAL, res, 6), PX_IN(PX_REAL, vec, 6), PX_IN(PX_REAL, dif, 3),
                            PX_IN(PX_REAL, rot, 9), int rotate) {
  PXR ang[3];
  PXR cros[3];
  PXR tran[6];
  for (int k = 0; k < 6; k++) tran[k] = vec[k];
  for (int k = 0; k < 3; k++) ang[k] = vec[k];
  pxk_cross(cros, dif, ang);
  for (int k = 0; k < 3; k++) tran[3 + k] = vec[3 + k] - cros[k];
  if (rotate != 0) {
    for (int h = 0; h < 2; h++) {
      res[3 * h] = rot[0] * tran[3 * h] + rot[3] * tran[3 * h + 1] + rot[6] * tran[3 * h + 2];
      res[3 * h + 1] = rot[1] * tran[3 * h] + rot[4] * tran[3 * h + 1] + rot[7] * tran[3 * h + 2];
      res[3 * h + 2] = rot[2] * tran[3 * h] + rot[5] * tran[3 * h + 1] + rot[8] * tran[3 * h + 2];
    }
  } else {
    for (int k = 0; k < 6; k++) res[k] = tran[k];
  }
}

// mj_objectAcceleration: 6D acceleration (rotation, translation) of an object at its frame
// origin, in the world orientation or (flg_local) the object's own, with the Coriolis term of the
// moving frame; reads cacc (mj_rnePostConstraint) and cvel
PX_FN void pxk_objectAcceleration(PX_MDC PX_OUT(PX_REAL, res, 6), int objtype, int objid,
                                  int flg_local) {
  PXR pos[3];
  PXR rot[9];
  PXR dif[3];
  PXR vec[6];
  PXR vel[6];
  PXR va[3];
  PXR vl[3];
  PXR corr[3];
  int body = pxk_smObjectFrame(PX_MDARGC objtype, objid, pos, rot);

  // dof-less body: at rest
  if (M(body_dofnum, M(body_weldid, body)) == 0) {
    for (int k = 0; k < 6; k++) res[k] = PX_R(0.0);
    return;
  }
  int root = M(body_rootid, body);
  for (int k = 0; k < 3; k++) dif[k] = pos[k] - D(subtree_com, 3 * root + k);
  PXK_GET(6, vec, D, cacc, 6 * body);
  pxk_postMotionAt(res, vec, dif, rot, flg_local);
  PXK_GET(6, vec, D, cvel, 6 * body);
  pxk_postMotionAt(vel, vec, dif, rot, flg_local);
  for (int k = 0; k < 3; k++) {
    va[k] = vel[k];
    vl[k] = vel[3 + k];
  }
  pxk_cross(corr, va, vl);
  for (int k = 0; k < 3; k++) res[3 + k] += corr[k];
}

// translational velocity of a global point moving with `body` (mj_jacDot's pvel)
PX_FN void pxk_jacDotPointVel(PX_MDC PX_OUT(PX_REAL, plin, 3), PX_IN(PX_REAL, point, 3), int body) {
  PXR dif[3];
  PXR ang[3];
  PXR cros[3];
  int root = M(body_rootid, body);
  for (int k = 0; k < 3; k++) {
    dif[k] = point[k] - D(subtree_com, 3 * root + k);
    ang[k] = D(cvel, 6 * body + k);
  }
  pxk_cross(cros, dif, ang);
  for (int k = 0; k < 3; k++) plin[k] = D(cvel, 6 * body + 3 + k) - cros[k];
}

// the mj_jacDot column of dof i for the point at `offset` (pxk_jacOffset) moving with velocity
// plin (pxk_jacDotPointVel): the time derivative of cdof (recomputed from the current body
// velocity for quaternion dofs) and of the point's offset
PX_FN void pxk_jacDotColumn(PX_MDC PX_OUT(PX_REAL, jacp, 3), PX_OUT(PX_REAL, jacr, 3),
                            PX_IN(PX_REAL, offset, 3), PX_IN(PX_REAL, plin, 3), int i) {
  PXR cd[6];
  PXR cdd[6];
  PXR vel[6];
  PXR a[3];
  PXR b[3];
  PXR t1[3];
  PXR t2[3];
  PXK_GET(6, cd, D, cdof, 6 * i);
  PXK_GET(6, cdd, D, cdof_dot, 6 * i);
  int jnt = M(dof_jntid, i);
  int type = M(jnt_type, jnt);
  int quat = type == PX_JNT_BALL ? 1 : 0;
  if (type == PX_JNT_FREE && i >= M(jnt_dofadr, jnt) + 3) quat = 1;
  if (quat != 0) {
    PXK_GET(6, vel, D, cvel, 6 * M(dof_bodyid, i));
    pxk_smCrossMotion(cdd, vel, cd);
  }
  for (int k = 0; k < 3; k++) {
    jacr[k] = cdd[k];
    a[k] = cdd[k];
    b[k] = cd[k];
  }
  pxk_cross(t1, a, offset);
  pxk_cross(t2, b, plin);
  for (int k = 0; k < 3; k++) jacp[k] = cdd[3 + k] + t1[k] + t2[k];
}

//---------------------------------- energy --------------------------------------------------------

// mju_polyPotential with mjNPOLY = 2 (even): 0.5 k x^2 + p0/3 x^3 + p1/4 x^4
PX_FN PX_REAL pxk_postPolyPotential(PX_REAL linear, PX_REAL p0, PX_REAL p1, PX_REAL x) {
  PXR hl = PX_R(0.5) * linear;
  PXR xx = x * x;
  PXR res = hl * xx;
  PXR xpow = x * x;
  PXR c0 = p0 / PX_R(3.0);
  PXR x3 = xpow * x;
  res = res + c0 * x3;
  xpow = xpow * x;
  PXR c1 = p1 / PX_R(4.0);
  PXR x4 = xpow * x;
  res = res + c1 * x4;
  return res;
}

// mj_energyPos: energy[0] = -sum of mass g . xipos over bodies, plus joint springs in joint
// order, plus tendon springs outside their dead band (sequential; accumulation order matters)
PX_FN void pxk_energyPos(PX_MD) {
  PXR g[3];
  PXR dif[3];
  PXR qa[4];
  PXR qb[4];
  if (PX_LANE != 0) return;
  PXR e = PX_ZERO;
  if ((MOPT(disableflags) & PX_DSBL_GRAVITY) == 0) {
    for (int k = 0; k < 3; k++) g[k] = MOPT(gravity)[k];
    for (int i = 1; i < MS(nbody); i++) {
      PXR dot = g[0] * D(xipos, 3 * i) + g[1] * D(xipos, 3 * i + 1) + g[2] * D(xipos, 3 * i + 2);
      PXR w = M(body_mass, i) * dot;
      e = e - w;
    }
  }
  if ((MOPT(disableflags) & PX_DSBL_SPRING) == 0) {
    for (int j = 0; j < MS(njnt); j++) {
      PXR stiffness = M(jnt_stiffness, j);
      PXR p0 = M(jnt_stiffnesspoly, 2 * j);
      PXR p1 = M(jnt_stiffnesspoly, 2 * j + 1);
      if (stiffness == PX_R(0.0) && p0 == PX_R(0.0) && p1 == PX_R(0.0)) continue;
      int padr = M(jnt_qposadr, j);
      int type = M(jnt_type, j);
      if (type == PX_JNT_FREE) {
        for (int k = 0; k < 3; k++) dif[k] = D(qpos, padr + k) - M(qpos_spring, padr + k);
        PXR x = pxk_fmNorm3(dif);
        PXR u = pxk_postPolyPotential(stiffness, p0, p1, x);
        e = e + u;
        padr += 3;
      }
      if (type == PX_JNT_FREE || type == PX_JNT_BALL) {
        // the rotation vector from the spring's quaternion to qpos's (not normalized, as MuJoCo)
        PXK_GET(4, qa, D, qpos, padr);
        PXK_GET(4, qb, M, qpos_spring, padr);
        pxk_fmSubQuat(dif, qa, qb);
        PXR x = pxk_fmNorm3(dif);
        PXR u = pxk_postPolyPotential(stiffness, p0, p1, x);
        e = e + u;
      } else {
        PXR x = D(qpos, padr) - M(qpos_spring, padr);
        PXR u = pxk_postPolyPotential(stiffness, p0, p1, x);
        e = e + u;
      }
    }
    for (int i = 0; i < MS(ntendon); i++) {
      PXR length = D(ten_length, i);
      PXR lower = M(tendon_lengthspring, 2 * i);
      PXR upper = M(tendon_lengthspring, 2 * i + 1);
      PXR x = PX_ZERO;
      if (length > upper) {
        x = length - upper;
      } else if (length < lower) {
        x = length - lower;
      }
      PXR u = pxk_postPolyPotential(M(tendon_stiffness, i), M(tendon_stiffnesspoly, 2 * i),
                                    M(tendon_stiffnesspoly, 2 * i + 1), x);
      e = e + u;
    }
  }
  D(energy, 0) = e;
}

// element i of M qvel in mj_mulM's operation order (mju_mulSymVecSparse), recomputed from M's
// pattern: the diagonal term, the row's lower entries from the right, then the entries (j, i) of
// later rows j in increasing order (i's column in row j sits after i's own ancestors)
PX_FN PX_REAL pxk_postMulMRow(PX_MDC int i) {
  int s = M(M_rowadr, i);
  int dg = M(M_rownnz, i) - 1;
  PXR r = D(M, s + dg) * D(qvel, i);
  for (int k = dg - 1; k >= 0; k--) {
    int j = M(M_colind, s + k);
    r = r + D(M, s + k) * D(qvel, j);
  }
  for (int j = i + 1; j < MS(nv); j++) {
    if (dg < M(M_rownnz, j) - 1) {
      int a = M(M_rowadr, j) + dg;
      if (M(M_colind, a) == i) r = r + D(M, a) * D(qvel, j);
    }
  }
  return r;
}

// mj_energyVel: energy[1] = 0.5 (M qvel) . qvel in mju_dot's order (four interleaved partial
// sums, then the remainder)
PX_FN void pxk_energyVel(PX_MD) {
  if (PX_LANE != 0) return;
  int nv = MS(nv);
  PXR r0 = PX_ZERO;
  PXR r1 = PX_ZERO;
  PXR r2 = PX_ZERO;
  PXR r3 = PX_ZERO;
  int i = 0;
  for (; i <= nv - 4; i += 4) {
    PXR v0 = pxk_postMulMRow(PX_MDARGC i);
    PXR v1 = pxk_postMulMRow(PX_MDARGC i + 1);
    PXR v2 = pxk_postMulMRow(PX_MDARGC i + 2);
    PXR v3 = pxk_postMulMRow(PX_MDARGC i + 3);
    r0 += v0 * D(qvel, i);
    r1 += v1 * D(qvel, i + 1);
    r2 += v2 * D(qvel, i + 2);
    r3 += v3 * D(qvel, i + 3);
  }
  PXR res = (r0 + r2) + (r1 + r3);
  int left = nv - i;
  if (left == 3) {
    PXR v0 = pxk_postMulMRow(PX_MDARGC i);
    PXR v1 = pxk_postMulMRow(PX_MDARGC i + 1);
    PXR v2 = pxk_postMulMRow(PX_MDARGC i + 2);
    PXR t = v0 * D(qvel, i) + v1 * D(qvel, i + 1) + v2 * D(qvel, i + 2);
    res = res + t;
  } else if (left == 2) {
    PXR v0 = pxk_postMulMRow(PX_MDARGC i);
    PXR v1 = pxk_postMulMRow(PX_MDARGC i + 1);
    PXR t = v0 * D(qvel, i) + v1 * D(qvel, i + 1);
    res = res + t;
  } else if (left == 1) {
    PXR v0 = pxk_postMulMRow(PX_MDARGC i);
    PXR t = v0 * D(qvel, i);
    res = res + t;
  }
  PXR ek = PX_R(0.5) * res;
  D(energy, 1) = ek;
}

// energy as mj_forward leaves it after the position stage: mj_energyPos with the energy flag,
// otherwise both entries cleared
PX_FN void pxk_energyPosStage(PX_MD) {
  if ((MOPT(enableflags) & PX_ENBL_ENERGY) != 0) {
    pxk_energyPos(PX_MDARG);
  } else if (PX_LANE == 0) {
    D(energy, 0) = PX_R(0.0);
    D(energy, 1) = PX_R(0.0);
  }
}

// ... and after the velocity stage: mj_energyVel with the energy flag
PX_FN void pxk_energyVelStage(PX_MD) {
  if ((MOPT(enableflags) & PX_ENBL_ENERGY) != 0) pxk_energyVel(PX_MDARG);
}

#endif  // PX_KERN_POST_H_
