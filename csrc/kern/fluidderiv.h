// SPDX-License-Identifier: Apache-2.0
// Velocity derivatives of the fluid forces and of muscle gains for the implicit integrators, in
// the kernel dialect (MuJoCo 3.12's mjd_inertiaBoxFluid, mjd_ellipsoidFluid and their helpers,
// the fluid part of mjd_passive_vel, and mjd_muscleGain_vel of mjd_actuator_vel).
//   reads:  m->body_mass/inertia/rootid/weldid/dofnum/dofadr/geomnum/geomadr/jntnum/jntadr/
//           subtreemass, m->dof_parentid/treeid, m->tree_dofnum, m->jnt_type/dofadr,
//           m->geom_type/size/fluid, m->D_rownnz/rowadr/colind, opt (density, viscosity, wind,
//           integrator, jacobian), d->cdof, cvel, subtree_com, xipos, ximat, geom_xpos,
//           geom_xmat
//   writes: d->qDeriv (adds)
// The fluid force of a body or geom is a 6-vector in a local frame, f(J v) with J the local
// 6 x nv Jacobian (rotation rows, then translation rows) of the body's com or the geom's center;
// its derivative adds J' B J to qDeriv, B = df/dlvel a 6x6 block. MuJoCo forms J densely on its
// stack; here each Jacobian column (6 numbers, one dof of the body's chain) is formed when it is
// needed, and each qDeriv entry (k, p) of the chain receives its terms in MuJoCo's order (the
// pairs (i, j) of B, each term (J(i,k) B(i,j)) J(j,p)), so no nv-sized local is used.
// Everything here runs on lane 0 (the caller's sequential section).
#ifndef PX_KERN_FLUIDDERIV_H_
#define PX_KERN_FLUIDDERIV_H_

#include "kern/actuation.h"
#include "kern/jac.h"
#include "kern/passive.h"

//---------------------------------- muscle gain ---------------------------------------------------

// d (muscle gain) / d velocity (mjd_muscleGain_vel); prm = (range[2], force, scale, lmin, lmax,
// vmax, fpmax, fvmax)
PX_FN PX_REAL pxk_fdMuscleGainVel(PX_REAL len, PX_REAL vel, PX_REAL lr0, PX_REAL lr1, PX_REAL acc0,
                                  PX_IN(PX_REAL, prm, 10)) {
  PXR force = pxk_acMuscleForce(prm, acc0);
  PXR lmin = prm[4];
  PXR lmax = prm[5];
  PXR vmax = prm[6];
  PXR fvmax = prm[8];

  // optimal length, normalized length and velocity
  PXR rspan = prm[1] - prm[0];
  PXR L0 = (lr1 - lr0) / pxk_fmMax(PXK_MINVAL, rspan);
  PXR L = prm[0] + (len - lr0) / pxk_fmMax(PXK_MINVAL, L0);
  PXR l0v = L0 * vmax;
  PXR V = vel / pxk_fmMax(PXK_MINVAL, l0v);

  // length curve and the slope of the velocity curve
  PXR FL = pxk_acMuscleGainLength(L, lmin, lmax);
  PXR y = fvmax - PX_R(1.0);
  PXR dFV = PX_ZERO;
  if (V <= PX_R(-1.0)) {
    dFV = PX_ZERO;
  } else if (V <= PX_R(0.0)) {
    dFV = PX_R(2.0) * V + PX_R(2.0);
  } else if (V <= y) {
    PXR num = PX_R(-2.0) * V + PX_R(2.0) * y;
    dFV = num / pxk_fmMax(PXK_MINVAL, y);
  }
  PXR nf = -force;
  PXR res = nf * FL * dFV / pxk_fmMax(PXK_MINVAL, l0v);
  return res;
}

//---------------------------------- Jacobian products ---------------------------------------------

// 1 if body is a standalone free body: one free joint, a 6-dof tree, no children (mj_isFreeBody)
PX_FN int pxk_fdIsFreeBody(PX_MDC int body) {
  if (M(body_jntnum, body) != 1 || M(jnt_type, M(body_jntadr, body)) != PX_JNT_FREE) return 0;
  int adr = M(jnt_dofadr, M(body_jntadr, body));
  if (M(tree_dofnum, M(dof_treeid, adr)) != 6 || M(body_subtreemass, body) != M(body_mass, body)) {
    return 0;
  }
  return 1;
}

// position of column col in row `row` of the D sparsity, or -1
PX_FN int pxk_fdFindD(PX_MDC int row, int col) {
  int adr = M(D_rowadr, row);
  for (int k = 0; k < M(D_rownnz, row); k++) {
    if (M(D_colind, adr + k) == col) return adr + k;
  }
  return -1;
}

// column of dof `dof` of the local Jacobian: rows 0-2 rotation, 3-5 translation, each rotated
// into the frame rot (rot' J as mju_mulMatTMat forms it: sums from zero, zero factors skipped)
PX_FN void pxk_fdLocalColumn(PX_MDC PX_OUT(PX_REAL, jl, 6), PX_IN(PX_REAL, offset, 3),
                             PX_IN(PX_REAL, rot, 9), int dof) {
  PXR jp[3];
  PXR jr[3];
  pxk_jacColumn(PX_MDARGC jp, jr, offset, dof);
  for (int r = 0; r < 3; r++) {
    PXR a = PX_ZERO;
    PXR b = PX_ZERO;
    for (int i = 0; i < 3; i++) {
      PXR x = rot[3 * i + r];
      if (x != PX_R(0.0)) {
        a = a + jr[i] * x;
        b = b + jp[i] * x;
      }
    }
    jl[r] = a;
    jl[3 + r] = b;
  }
}

// qDeriv += J' B J for the local Jacobian J of the point pos (frame rot) on `body` (MuJoCo's
// addJTBJ / addJTBJSparse). diag = 0: B is a 6x6 block, row-major, pairs (i, j) in order, zero
// entries skipped. diag = 1: B[0..5] and B[6..11] are two diagonal blocks added one after the
// other (the inertia-box model's viscous, then quadratic rows), zero entries skipped. dense = 1
// also skips zero Jacobian entries J(i, k), as MuJoCo's dense product does.
PX_FN void pxk_fdAddJTBJ(PX_MDC int body, PX_IN(PX_REAL, pos, 3), PX_IN(PX_REAL, rot, 9),
                         PX_IN(PX_REAL, B, 36), int diag, int dense) {
  PXR offset[3];
  PXR jk[6];
  PXR jp[6];
  pxk_jacOffset(PX_MDARGC offset, pos, body);
  int last = pxk_jacLastDof(PX_MDARGC body);
  int k = last;
  while (k >= 0) {
    pxk_fdLocalColumn(PX_MDARGC jk, offset, rot, k);
    int p = last;
    while (p >= 0) {
      pxk_fdLocalColumn(PX_MDARGC jp, offset, rot, p);
      int adr = pxk_fdFindD(PX_MDARGC k, p);
      if (adr < 0) {
        p = M(dof_parentid, p);
        continue;
      }
      PXR q = D(qDeriv, adr);
      if (diag != 0) {
        for (int pass = 0; pass < 2; pass++) {
          for (int i = 0; i < 6; i++) {
            PXR b = B[6 * pass + i];
            if (b != PX_R(0.0) && (dense == 0 || jk[i] != PX_R(0.0))) {
              PXR s = jk[i] * b;
              PXR t = s * jp[i];
              q = q + t;
            }
          }
        }
      } else {
        for (int i = 0; i < 6; i++) {
          for (int j = 0; j < 6; j++) {
            PXR b = B[6 * i + j];
            if (b != PX_R(0.0) && (dense == 0 || jk[i] != PX_R(0.0))) {
              PXR s = jk[i] * b;
              PXR t = s * jp[j];
              q = q + t;
            }
          }
        }
      }
      D(qDeriv, adr) = q;
      p = M(dof_parentid, p);
    }
    k = M(dof_parentid, k);
  }
}

//---------------------------------- inertia-box model ---------------------------------------------

// qDeriv += d (inertia-box fluid force of body i) / d qvel (mjd_inertiaBoxFluid)
PX_FN void pxk_fdInertiaBox(PX_MDC int i, int dense) {
  PXR box[3];
  PXR lvel[6];
  PXR pos[3];
  PXR rot[9];
  PXR B[36];
  pxk_psBoxFluidFrame(PX_MDARGC i, box, lvel, pos, rot);

  // diagonal blocks: viscous rows (B[0..5]), then quadratic rows (B[6..11])
  for (int k = 0; k < 36; k++) B[k] = PX_ZERO;
  PXR visc = MOPT(viscosity);
  if (visc > PX_R(0.0)) {
    PXR diam = (box[0] + box[1] + box[2]) / PX_R(3.0);
    PXR npi = -PXK_FM_PI;
    PXR ba = npi * diam * diam * diam * visc;
    PXR npi3 = PX_R(-3.0) * PXK_FM_PI;
    PXR bl = npi3 * diam * visc;
    for (int k = 0; k < 3; k++) {
      B[k] = ba;
      B[3 + k] = bl;
    }
  }
  PXR dens = MOPT(density);
  if (dens > PX_R(0.0)) {
    PXR nd = -dens;
    PXR q0 = box[0] * box[0] * box[0] * box[0];
    PXR q1 = box[1] * box[1] * box[1] * box[1];
    PXR q2 = box[2] * box[2] * box[2] * box[2];
    PXR a0 = pxk_abs(lvel[0]);
    PXR a1 = pxk_abs(lvel[1]);
    PXR a2 = pxk_abs(lvel[2]);
    PXR a3 = pxk_abs(lvel[3]);
    PXR a4 = pxk_abs(lvel[4]);
    PXR a5 = pxk_abs(lvel[5]);
    B[6] = nd * box[0] * (q1 + q2) * PX_R(2.0) * a0 / PX_R(64.0);
    B[7] = nd * box[1] * (q0 + q2) * PX_R(2.0) * a1 / PX_R(64.0);
    B[8] = nd * box[2] * (q0 + q1) * PX_R(2.0) * a2 / PX_R(64.0);
    PXR nh = PX_R(-0.5) * dens;
    B[9] = nh * box[1] * box[2] * PX_R(2.0) * a3;
    B[10] = nh * box[0] * box[2] * PX_R(2.0) * a4;
    B[11] = nh * box[0] * box[1] * PX_R(2.0) * a5;
  }
  pxk_fdAddJTBJ(PX_MDARGC i, pos, rot, B, 1, dense);
}

//---------------------------------- ellipsoid model -----------------------------------------------

// B(c + a, r + b) += D(a, b) for the quadrant (col_quad, row_quad) of the 6x6 B (addToQuadrant)
PX_FN void pxk_fdAddQuadrant(PX_INOUT(PX_REAL, B, 36), PX_IN(PX_REAL, Dm, 9), int col_quad,
                             int row_quad) {
  int r = 3 * row_quad;
  int c = 3 * col_quad;
  for (int a = 0; a < 3; a++) {
    for (int b = 0; b < 3; b++) {
      PXR x = B[6 * (c + a) + r + b] + Dm[3 * a + b];
      B[6 * (c + a) + r + b] = x;
    }
  }
}

// derivatives of the cross product a x b with respect to a (Da) and b (Db) (mjd_cross)
PX_FN void pxk_fdCross(PX_IN(PX_REAL, a, 3), PX_IN(PX_REAL, b, 3), PX_OUT(PX_REAL, Da, 9),
                       PX_OUT(PX_REAL, Db, 9)) {
  for (int k = 0; k < 9; k++) {
    Da[k] = PX_ZERO;
    Db[k] = PX_ZERO;
  }
  Da[1] = b[2];
  Da[2] = -b[1];
  Da[3] = -b[2];
  Da[5] = b[0];
  Da[6] = b[1];
  Da[7] = -b[0];
  Db[1] = -a[2];
  Db[2] = a[1];
  Db[3] = a[2];
  Db[5] = -a[0];
  Db[6] = -a[1];
  Db[7] = a[0];
}

// dimensions of an ellipsoid: largest, smallest and middle semi-axis
PX_FN void pxk_fdDims(PX_IN(PX_REAL, size, 3), PX_OUT(PX_REAL, dims, 3)) {
  PXR d_max = pxk_fmMax(pxk_fmMax(size[0], size[1]), size[2]);
  PXR d_min = pxk_fmMin(pxk_fmMin(size[0], size[1]), size[2]);
  PXR d_mid = size[0] + size[1] + size[2] - d_max - d_min;
  dims[0] = d_max;
  dims[1] = d_min;
  dims[2] = d_mid;
}

// added-mass forces (mjd_addedMassForces), into B
PX_FN void pxk_fdAddedMass(PX_INOUT(PX_REAL, B, 36), PX_IN(PX_REAL, lvel, 6), PX_REAL dens,
                           PX_IN(PX_REAL, vmass, 3), PX_IN(PX_REAL, vinert, 3)) {
  PXR lin[3];
  PXR ang[3];
  PXR lmom[3];
  PXR amom[3];
  PXR Da[9];
  PXR Db[9];
  PXR sm[3];
  PXR si[3];
  for (int k = 0; k < 3; k++) {
    lin[k] = lvel[3 + k];
    ang[k] = lvel[k];
    lmom[k] = dens * vmass[k] * lin[k];
    amom[k] = dens * vinert[k] * ang[k];
    sm[k] = dens * vmass[k];
    si[k] = dens * vinert[k];
  }

  // torque: amom x ang
  pxk_fdCross(amom, ang, Da, Db);
  pxk_fdAddQuadrant(B, Db, 0, 0);
  for (int k = 0; k < 9; k++) Da[k] = Da[k] * si[k % 3];
  pxk_fdAddQuadrant(B, Da, 0, 0);

  // torque: lmom x lin
  pxk_fdCross(lmom, lin, Da, Db);
  pxk_fdAddQuadrant(B, Db, 0, 1);
  for (int k = 0; k < 9; k++) Da[k] = Da[k] * sm[k % 3];
  pxk_fdAddQuadrant(B, Da, 0, 1);

  // force: lmom x ang
  pxk_fdCross(lmom, ang, Da, Db);
  pxk_fdAddQuadrant(B, Db, 1, 0);
  for (int k = 0; k < 9; k++) Da[k] = Da[k] * sm[k % 3];
  pxk_fdAddQuadrant(B, Da, 1, 1);
}

// quadratic and viscous angular drag (mjd_viscous_torque), 3x3
PX_FN void pxk_fdViscousTorque(PX_OUT(PX_REAL, Dm, 9), PX_IN(PX_REAL, lvel, 6), PX_REAL dens,
                               PX_REAL visc, PX_IN(PX_REAL, size, 3), PX_REAL slender,
                               PX_REAL angdrag) {
  PXR dims[3];
  PXR ii[3];
  PXR mom_coef[3];
  PXR mom_visc[3];
  PXR mom_sq[3];
  pxk_fdDims(size, dims);
  PXR d_max = dims[0];
  PXR d_mid = dims[2];
  PXR c23 = PX_R(2.0) / PX_R(3.0);
  PXR eq_d = c23 * (size[0] + size[1] + size[2]);
  PXR lin_visc_torq_coef = PXK_FM_PI * eq_d * eq_d * eq_d;
  PXR c815 = PX_R(8.0) / PX_R(15.0);
  PXR dmax2 = d_max * d_max;
  PXR i_max = c815 * PXK_FM_PI * d_mid * dmax2 * dmax2;
  for (int k = 0; k < 3; k++) {
    PXR dd = pxk_fmMax(size[(k + 1) % 3], size[(k + 2) % 3]);
    PXR dd2 = dd * dd;
    PXR dd4 = dd2 * dd2;
    ii[k] = c815 * PXK_FM_PI * size[k] * dd4;
  }
  for (int k = 0; k < 3; k++) {
    mom_coef[k] = angdrag * ii[k] + slender * (i_max - ii[k]);
    mom_visc[k] = lvel[k] * mom_coef[k];
  }
  PXR mnorm = pxk_fmNorm3(mom_visc);
  PXR density = dens / pxk_fmMax(PXK_MINVAL, mnorm);
  PXR nden = -density;
  for (int k = 0; k < 3; k++) mom_sq[k] = nden * lvel[k] * mom_coef[k] * mom_coef[k];
  PXR lin_coef = visc * lin_visc_torq_coef;
  PXR dg = lvel[0] * mom_sq[0] + lvel[1] * mom_sq[1] + lvel[2] * mom_sq[2] - lin_coef;
  for (int k = 0; k < 9; k++) Dm[k] = PX_ZERO;
  Dm[0] = dg;
  Dm[4] = dg;
  Dm[8] = dg;
  for (int r = 0; r < 3; r++) {
    for (int c = 0; c < 3; c++) {
      PXR t = mom_sq[c] * lvel[r];
      Dm[3 * r + c] = Dm[3 * r + c] + t;
    }
  }
}

// linear and quadratic drag (mjd_viscous_drag), 3x3
PX_FN void pxk_fdViscousDrag(PX_OUT(PX_REAL, Dm, 9), PX_IN(PX_REAL, lvel, 6), PX_REAL dens,
                             PX_REAL visc, PX_IN(PX_REAL, size, 3), PX_REAL blunt,
                             PX_REAL slender) {
  PXR dims[3];
  PXR v[3];
  PXR dA[3];
  pxk_fdDims(size, dims);
  PXR d_max = dims[0];
  PXR d_mid = dims[2];
  PXR c23 = PX_R(2.0) / PX_R(3.0);
  PXR eq_d = c23 * (size[0] + size[1] + size[2]);
  PXR a_max = PXK_FM_PI * d_max * d_mid;
  PXR s12 = size[1] * size[2];
  PXR s20 = size[2] * size[0];
  PXR s01 = size[0] * size[1];
  PXR a = s12 * s12;
  PXR b = s20 * s20;
  PXR c = s01 * s01;
  PXR aa = a * a;
  PXR bb = b * b;
  PXR cc = c * c;
  PXR x = lvel[3];
  PXR y = lvel[4];
  PXR z = lvel[5];
  PXR xx = x * x;
  PXR yy = y * y;
  PXR zz = z * z;
  PXR xy = x * y;
  PXR yz = y * z;
  PXR xz = x * z;
  PXR proj_denom = aa * xx + bb * yy + cc * zz;
  PXR proj_num = a * xx + b * yy + c * zz;
  PXR p3 = proj_num * proj_num * proj_num * proj_denom;
  PXR sp3 = PX_SQRT(p3);
  PXR dA_coef = PXK_FM_PI / pxk_fmMax(PXK_MINVAL, sp3);
  PXR ratio = proj_denom / pxk_fmMax(PXK_MINVAL, proj_num);
  PXR a_proj = PXK_FM_PI * PX_SQRT(ratio);
  PXR n2 = xx + yy + zz;
  PXR norm = PX_SQRT(n2);
  PXR inv_norm = PX_R(1.0) / pxk_fmMax(PXK_MINVAL, norm);
  PXR lin_coef = visc * PX_R(3.0) * PXK_FM_PI * eq_d;
  PXR quad_coef = dens * (a_proj * blunt + slender * (a_max - a_proj));
  PXR aproj_coef = dens * norm * (blunt - slender);
  dA[0] = aproj_coef * dA_coef * a * x * (b * yy * (a - b) + c * zz * (a - c));
  dA[1] = aproj_coef * dA_coef * b * y * (a * xx * (b - a) + c * zz * (b - c));
  dA[2] = aproj_coef * dA_coef * c * z * (a * xx * (c - a) + b * yy * (c - b));

  // (outer product + inner product on the diagonal) scaled by -quad_coef / |v|
  Dm[0] = xx;
  Dm[1] = xy;
  Dm[2] = xz;
  Dm[3] = xy;
  Dm[4] = yy;
  Dm[5] = yz;
  Dm[6] = xz;
  Dm[7] = yz;
  Dm[8] = zz;
  PXR inner = xx + yy + zz;
  for (int k = 0; k < 3; k++) Dm[4 * k] = Dm[4 * k] + inner;
  PXR nq = -quad_coef;
  PXR scl = nq * inv_norm;
  for (int k = 0; k < 9; k++) Dm[k] = Dm[k] * scl;

  // minus the outer product of v and d A_proj / d v, minus the linear coefficient
  v[0] = -x;
  v[1] = -y;
  v[2] = -z;
  for (int r = 0; r < 3; r++) {
    for (int k = 0; k < 3; k++) {
      PXR t = dA[k] * v[r];
      Dm[3 * r + k] = Dm[3 * r + k] + t;
    }
  }
  for (int k = 0; k < 3; k++) Dm[4 * k] = Dm[4 * k] - lin_coef;
}

// Kutta lift (mjd_kutta_lift), 3x3
PX_FN void pxk_fdKuttaLift(PX_OUT(PX_REAL, Dm, 9), PX_IN(PX_REAL, lvel, 6), PX_REAL dens,
                           PX_IN(PX_REAL, size, 3), PX_REAL kutta) {
  PXR inner_term[3];
  PXR dfc[3];
  PXR s12 = size[1] * size[2];
  PXR s20 = size[2] * size[0];
  PXR s01 = size[0] * size[1];
  PXR a = s12 * s12;
  PXR b = s20 * s20;
  PXR c = s01 * s01;
  PXR aa = a * a;
  PXR bb = b * b;
  PXR cc = c * c;
  PXR x = lvel[3];
  PXR y = lvel[4];
  PXR z = lvel[5];
  PXR xx = x * x;
  PXR yy = y * y;
  PXR zz = z * z;
  PXR xy = x * y;
  PXR yz = y * z;
  PXR xz = x * z;
  PXR proj_denom = aa * xx + bb * yy + cc * zz;
  PXR proj_num = a * xx + b * yy + c * zz;
  PXR norm2 = xx + yy + zz;
  PXR pk = PXK_FM_PI * kutta * dens;
  PXR prod = proj_denom * proj_num * norm2;
  PXR sprod = PX_SQRT(prod);
  PXR df_denom = pk / pxk_fmMax(PXK_MINVAL, sprod);
  dfc[0] = yy * (a - b) + zz * (a - c);
  dfc[1] = xx * (b - a) + zz * (b - c);
  dfc[2] = xx * (c - a) + yy * (c - b);
  PXR proj_term = proj_num / pxk_fmMax(PXK_MINVAL, proj_denom);
  PXR cos_term = proj_num / pxk_fmMax(PXK_MINVAL, norm2);

  Dm[0] = a - a;
  Dm[1] = b - a;
  Dm[2] = c - a;
  Dm[3] = a - b;
  Dm[4] = b - b;
  Dm[5] = c - b;
  Dm[6] = a - c;
  Dm[7] = b - c;
  Dm[8] = c - c;
  PXR pn2 = PX_R(2.0) * proj_num;
  for (int k = 0; k < 9; k++) Dm[k] = Dm[k] * pn2;

  inner_term[0] = aa * proj_term - a + cos_term;
  inner_term[1] = bb * proj_term - b + cos_term;
  inner_term[2] = cc * proj_term - c + cos_term;
  for (int r = 0; r < 3; r++) {
    for (int k = 0; k < 3; k++) {
      PXR t = inner_term[k] * dfc[r];
      Dm[3 * r + k] = Dm[3 * r + k] + t;
    }
  }

  Dm[0] = Dm[0] * xx;
  Dm[1] = Dm[1] * xy;
  Dm[2] = Dm[2] * xz;
  Dm[3] = Dm[3] * xy;
  Dm[4] = Dm[4] * yy;
  Dm[5] = Dm[5] * yz;
  Dm[6] = Dm[6] * xz;
  Dm[7] = Dm[7] * yz;
  Dm[8] = Dm[8] * zz;

  for (int k = 0; k < 3; k++) {
    PXR t = dfc[k] * proj_num;
    Dm[4 * k] = Dm[4 * k] - t;
  }
  for (int k = 0; k < 9; k++) Dm[k] = Dm[k] * df_denom;
}

// Magnus force (mjd_magnus_force), into B
PX_FN void pxk_fdMagnus(PX_INOUT(PX_REAL, B, 36), PX_IN(PX_REAL, lvel, 6), PX_REAL dens,
                        PX_IN(PX_REAL, size, 3), PX_REAL magnus) {
  PXR lin[3];
  PXR ang[3];
  PXR Dlin[9];
  PXR Dang[9];
  PXR c43 = PX_R(4.0) / PX_R(3.0);
  PXR volume = c43 * PXK_FM_PI * size[0] * size[1] * size[2];
  PXR coef = magnus * dens * volume;
  for (int k = 0; k < 3; k++) {
    lin[k] = coef * lvel[3 + k];
    ang[k] = coef * lvel[k];
  }
  pxk_fdCross(ang, lin, Dang, Dlin);
  pxk_fdAddQuadrant(B, Dang, 1, 0);
  pxk_fdAddQuadrant(B, Dlin, 1, 1);
}

// qDeriv += d (ellipsoid fluid forces on the geoms of body bodyid) / d qvel (mjd_ellipsoidFluid)
PX_FN void pxk_fdEllipsoid(PX_MDC int bodyid, int dense) {
  PXR size[3];
  PXR coef[12];
  PXR pos[3];
  PXR rot[9];
  PXR lvel[6];
  PXR B[36];
  PXR Dm[9];
  PXR vmass[3];
  PXR vinert[3];
  PXR dens = MOPT(density);
  PXR visc = MOPT(viscosity);
  int sym = 0;
  if (MOPT(integrator) == PX_INT_IMPLICITFAST && pxk_fdIsFreeBody(PX_MDARGC bodyid) == 0) sym = 1;
  for (int j = 0; j < M(body_geomnum, bodyid); j++) {
    int g = M(body_geomadr, bodyid) + j;
    pxk_psSemiAxes(PX_MDARGC size, g);
    PXK_GET(12, coef, M, geom_fluid, 12 * g);
    if (coef[0] == PX_R(0.0)) continue;
    for (int k = 0; k < 3; k++) {
      vmass[k] = coef[6 + k];
      vinert[k] = coef[9 + k];
    }

    // local velocity relative to the wind
    PXK_GET(3, pos, D, geom_xpos, 3 * g);
    PXK_GET(9, rot, D, geom_xmat, 9 * g);
    pxk_psWindVelocity(PX_MDARGC lvel, pos, rot, bodyid);

    // B = d (local force) / d (local velocity)
    for (int k = 0; k < 36; k++) B[k] = PX_ZERO;
    pxk_fdMagnus(B, lvel, dens, size, coef[5]);
    pxk_fdKuttaLift(Dm, lvel, dens, size, coef[4]);
    pxk_fdAddQuadrant(B, Dm, 1, 1);
    pxk_fdViscousDrag(Dm, lvel, dens, visc, size, coef[1], coef[2]);
    pxk_fdAddQuadrant(B, Dm, 1, 1);
    pxk_fdViscousTorque(Dm, lvel, dens, visc, size, coef[2], coef[3]);
    pxk_fdAddQuadrant(B, Dm, 0, 0);
    pxk_fdAddedMass(B, lvel, dens, vmass, vinert);

    // implicitfast keeps qH symmetric: B symmetrized, except for standalone free bodies
    if (sym != 0) {
      for (int r = 0; r < 6; r++) {
        for (int c = 0; c < r; c++) {
          PXR s = B[6 * r + c] + B[6 * c + r];
          PXR h = PX_R(0.5) * s;
          B[6 * r + c] = h;
          B[6 * c + r] = h;
        }
      }
    }
    pxk_fdAddJTBJ(PX_MDARGC bodyid, pos, rot, B, 0, dense);
  }
}

// qDeriv += d qfrc_fluid / d qvel for every body with mass (the fluid part of mjd_passive_vel;
// the caller checks that viscosity or density is positive and springs or dampers are enabled)
PX_FN void pxk_fluidVel(PX_MD) {
  int dense = 1;
  if (MOPT(jacobian) == PX_JAC_SPARSE || (MOPT(jacobian) == PX_JAC_AUTO && MS(nv) >= 60)) dense = 0;
  for (int i = 0; i < MS(nbody); i++) {
    if (M(body_mass, i) < PXK_MINVAL) continue;
    int ellipsoid = 0;
    for (int j = 0; j < M(body_geomnum, i) && ellipsoid == 0; j++) {
      if (M(geom_fluid, 12 * (M(body_geomadr, i) + j)) > PX_R(0.0)) ellipsoid = 1;
    }
    if (ellipsoid != 0) {
      pxk_fdEllipsoid(PX_MDARGC i, dense);
    } else {
      pxk_fdInertiaBox(PX_MDARGC i, dense);
    }
  }
}

#endif  // PX_KERN_FLUIDDERIV_H_
