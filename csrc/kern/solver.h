// SPDX-License-Identifier: Apache-2.0
// The constraint solver of MuJoCo 3.12's mj_fwdConstraint in the kernel dialect: the warm start
// (best of qacc_warmstart and qacc_smooth), then the Newton solver (mj_solNewton, monolithic,
// dense Jacobian) with its exact line search, the Hessian H = M + J' D J in a dense Cholesky
// factor kept up to date by rank-one updates, and MuJoCo's stopping rule (improvement, gradient
// and Newton decrement scaled by 1 / (meaninertia max(1, nv))). Pyramidal and frictionless cones
// only (elliptic cones are refused on the host).
//   reads:  the rows of constraint.h (efc_J, efc_D, efc_R, efc_frictionloss, efc_aref, efc_type),
//           M, qLD, qLDiagInv, qfrc_smooth, qacc_smooth, qacc_warmstart
//   writes: qacc, qfrc_constraint, efc_b, efc_force, efc_state, efc_n[PX_EFC_NITER]; the
//           efc_sv_* arrays are scratch
// Sequential on lane 0; every float operation is in MuJoCo's order (engine_solver.c,
// engine_forward.c, engine_util_blas.c, engine_util_solve.c).
#ifndef PX_KERN_SOLVER_H_
#define PX_KERN_SOLVER_H_

#include "kern/constraint.h"
#include "kern/smooth.h"

// a point of the line search (alpha, cost(alpha) - cost(0), first and second derivative)
#define PXK_LS_ALPHA 0
#define PXK_LS_COST 1
#define PXK_LS_D0 2
#define PXK_LS_D1 3

// efc_force and efc_state from jar (efc_sv_Jaref, or efc_b when useB is 1), qfrc_constraint =
// J' efc_force; returns the constraint cost (mj_constraintUpdate without elliptic cones)
PX_FN PX_REAL pxk_svUpdate(PX_MDC int useB) {
  int nv = MS(nv);
  int nefc = PXK_EN(PX_EFC_NEFC);
  int ne = PXK_EN(PX_EFC_NE);
  int nf = PXK_EN(PX_EFC_NF);
  PXR s = PX_ZERO;
  for (int i = 0; i < nefc; i++) {
    PXR jar = useB == 1 ? PXK_E(efc_b, i) : PXK_E(efc_sv_Jaref, i);
    PXR nd = -PXK_E(efc_D, i);
    PXK_E(efc_force, i) = nd * jar;
  }
  for (int i = 0; i < nefc; i++) {
    PXR jar = useB == 1 ? PXK_E(efc_b, i) : PXK_E(efc_sv_Jaref, i);
    PXR dd = PXK_E(efc_D, i);
    if (i < ne) {
      PXR c = PX_R(0.5) * dd * jar * jar;
      s += c;
      PXK_E(efc_state, i) = PXK_CNSTRSTATE_QUADRATIC;
      continue;
    }
    if (i < ne + nf) {
      PXR r = PXK_E(efc_R, i);
      PXR f = PXK_E(efc_frictionloss, i);
      PXR nr = -r;
      PXR lo = nr * f;
      PXR hi = r * f;
      if (jar <= lo) {
        PXR a = PX_R(-0.5) * r * f * f;
        PXR b = f * jar;
        PXR c = a - b;
        s += c;
        PXK_E(efc_force, i) = f;
        PXK_E(efc_state, i) = PXK_CNSTRSTATE_LINEARNEG;
      } else if (jar >= hi) {
        PXR a = PX_R(-0.5) * r * f * f;
        PXR b = f * jar;
        PXR c = a + b;
        s += c;
        PXR nf2 = -f;
        PXK_E(efc_force, i) = nf2;
        PXK_E(efc_state, i) = PXK_CNSTRSTATE_LINEARPOS;
      } else {
        PXR c = PX_R(0.5) * dd * jar * jar;
        s += c;
        PXK_E(efc_state, i) = PXK_CNSTRSTATE_QUADRATIC;
      }
      continue;
    }
    if (jar >= PX_R(0.0)) {
      PXK_E(efc_force, i) = PX_R(0.0);
      PXK_E(efc_state, i) = PXK_CNSTRSTATE_SATISFIED;
    } else {
      PXR c = PX_R(0.5) * dd * jar * jar;
      s += c;
      PXK_E(efc_state, i) = PXK_CNSTRSTATE_QUADRATIC;
    }
  }
  // qfrc_constraint = J' force (mju_mulMatTVec: rows of zero force skipped)
  for (int k = 0; k < nv; k++) D(qfrc_constraint, k) = PX_R(0.0);
  for (int i = 0; i < nefc; i++) {
    PXR f = PXK_E(efc_force, i);
    if (f != PX_R(0.0)) {
      for (int k = 0; k < nv; k++) {
        PXR q = D(qfrc_constraint, k) + PXK_E(efc_J, i * nv + k) * f;
        D(qfrc_constraint, k) = q;
      }
    }
  }
  return s;
}

// efc_sv_Ma = M * Data array qacc (mju_mulSymVecSparse)
PX_FN void pxk_svMa(PX_MD){PXK_MULM_BODY(PXK_AE, efc_sv_Ma, 0, PXK_AD, qacc, 0)}

// H = M + J' diag(efc_sv_D) J in the lower triangle of efc_sv_L (mju_sqrMatTD_impl without
// the upper triangle, then mju_addToSymSparse), D = efc_D on quadratic rows, else 0
PX_FN void pxk_svMakeHessian(PX_MD) {
  int nv = MS(nv);
  int nefc = PXK_EN(PX_EFC_NEFC);
  for (int i = 0; i < nefc; i++) {
    PXK_E(efc_sv_D, i) =
        PXK_E(efc_state, i) == PXK_CNSTRSTATE_QUADRATIC ? PXK_E(efc_D, i) : PX_R(0.0);
  }
  for (int k = 0; k < nv * nv; k++) PXK_E(efc_sv_L, k) = PX_R(0.0);
  for (int j = 0; j < nefc; j++) {
    PXR dj = PXK_E(efc_sv_D, j);
    if (dj == PX_R(0.0)) continue;
    for (int i = 0; i < nv; i++) {
      PXR t = PXK_E(efc_J, j * nv + i);
      if (t == PX_R(0.0)) continue;
      PXR scl = t * dj;
      for (int c = 0; c <= i; c++) {
        PXR h = PXK_E(efc_sv_L, i * nv + c) + PXK_E(efc_J, j * nv + c) * scl;
        PXK_E(efc_sv_L, i * nv + c) = h;
      }
    }
  }
  for (int i = 0; i < nv; i++) {
    int start = M(M_rowadr, i);
    for (int a = start; a < start + M(M_rownnz, i); a++) {
      int j = M(M_colind, a);
      PXR h = PXK_E(efc_sv_L, i * nv + j) + D(M, a);
      PXK_E(efc_sv_L, i * nv + j) = h;
    }
  }
}

// in-place Cholesky factor of efc_sv_L (mju_cholFactor with mindiag mjMINVAL)
PX_FN void pxk_svCholFactor(PX_MD) {
  int n = MS(nv);
  for (int j = 0; j < n; j++) {
    PXR tmp = PXK_E(efc_sv_L, j * (n + 1));
    if (j > 0) {
      PXR dt = PX_ZERO;
      PXK_DOT_BODY(dt, PXK_AE, efc_sv_L, j * n, PXK_AE, efc_sv_L, j * n, j)
      tmp = tmp - dt;
    }
    int deficient = tmp < PXK_MINVAL ? 1 : 0;
    if (deficient == 1) tmp = PXK_MINVAL;
    PXK_E(efc_sv_L, j * (n + 1)) = PX_SQRT(tmp);
    if (deficient == 1) {
      for (int i = j + 1; i < n; i++) PXK_E(efc_sv_L, i * n + j) = PX_R(0.0);
    } else {
      PXR inv = PX_R(1.0) / PXK_E(efc_sv_L, j * (n + 1));
      for (int i = j + 1; i < n; i++) {
        PXR dt = PX_ZERO;
        PXK_DOT_BODY(dt, PXK_AE, efc_sv_L, i * n, PXK_AE, efc_sv_L, j * n, j)
        PXR v = (PXK_E(efc_sv_L, i * n + j) - dt) * inv;
        PXK_E(efc_sv_L, i * n + j) = v;
      }
    }
  }
}

// rank-one update (plus = 1) or downdate of the factor with efc_sv_cholupd, which is consumed;
// returns the rank (mju_cholUpdate)
PX_FN int pxk_svCholUpdate(PX_MDC int plus) {
  int n = MS(nv);
  int rank = n;
  for (int k = 0; k < n; k++) {
    PXR xk = PXK_E(efc_sv_cholupd, k);
    if (xk != PX_R(0.0)) {
      PXR lkk = PXK_E(efc_sv_L, k * (n + 1));
      PXR ll = lkk * lkk;
      PXR xx = xk * xk;
      PXR nxx = -xx;
      PXR tmp = plus == 1 ? ll + xx : ll + nxx;
      if (tmp < PXK_MINVAL) {
        tmp = PXK_MINVAL;
        rank = rank - 1;
      }
      PXR r = PX_SQRT(tmp);
      PXR c = r / lkk;
      PXR cinv = PX_R(1.0) / c;
      PXR s = xk / lkk;
      PXK_E(efc_sv_L, k * (n + 1)) = r;
      for (int i = k + 1; i < n; i++) {
        PXR sx = s * PXK_E(efc_sv_cholupd, i);
        PXR a = plus == 1 ? PXK_E(efc_sv_L, i * n + k) + sx : PXK_E(efc_sv_L, i * n + k) - sx;
        PXR v = a * cinv;
        PXK_E(efc_sv_L, i * n + k) = v;
      }
      for (int i = k + 1; i < n; i++) {
        PXR v = c * PXK_E(efc_sv_cholupd, i) - s * PXK_E(efc_sv_L, i * n + k);
        PXK_E(efc_sv_cholupd, i) = v;
      }
    }
  }
  return rank;
}

// efc_sv_Mgrad = inv(L L') efc_sv_grad (mju_cholSolve)
PX_FN void pxk_svCholSolve(PX_MD) {
  int n = MS(nv);
  for (int i = 0; i < n; i++) PXK_E(efc_sv_Mgrad, i) = PXK_E(efc_sv_grad, i);
  for (int i = 0; i < n; i++) {
    if (i > 0) {
      PXR dt = PX_ZERO;
      PXK_DOT_BODY(dt, PXK_AE, efc_sv_L, i * n, PXK_AE, efc_sv_Mgrad, 0, i)
      PXR v = PXK_E(efc_sv_Mgrad, i) - dt;
      PXK_E(efc_sv_Mgrad, i) = v;
    }
    PXR w = PXK_E(efc_sv_Mgrad, i) / PXK_E(efc_sv_L, i * (n + 1));
    PXK_E(efc_sv_Mgrad, i) = w;
  }
  for (int i = n - 1; i >= 0; i--) {
    for (int j = i + 1; j < n; j++) {
      PXR v = PXK_E(efc_sv_Mgrad, i) - PXK_E(efc_sv_L, j * n + i) * PXK_E(efc_sv_Mgrad, j);
      PXK_E(efc_sv_Mgrad, i) = v;
    }
    PXR w = PXK_E(efc_sv_Mgrad, i) / PXK_E(efc_sv_L, i * (n + 1));
    PXK_E(efc_sv_Mgrad, i) = w;
  }
}

// H recomputed from efc_state and factored (FactorizeHessian, dense, no cones)
PX_FN void pxk_svFactorHessian(PX_MD) {
  pxk_svMakeHessian(PX_MDARG);
  pxk_svCholFactor(PX_MDARG);
}

// the factor updated for the rows whose state entered or left the quadratic zone, refactored
// from scratch when an update loses rank (HessianIncremental, dense)
PX_FN void pxk_svHessianIncremental(PX_MD) {
  int nv = MS(nv);
  int nefc = PXK_EN(PX_EFC_NEFC);
  for (int i = 0; i < nefc; i++) {
    int olds = PXK_E(efc_sv_oldstate, i);
    int news = PXK_E(efc_state, i);
    int flag = -1;
    if (olds != PXK_CNSTRSTATE_QUADRATIC && news == PXK_CNSTRSTATE_QUADRATIC) {
      flag = 1;
    } else if (olds == PXK_CNSTRSTATE_QUADRATIC && news != PXK_CNSTRSTATE_QUADRATIC) {
      flag = 0;
    }
    if (flag != -1) {
      PXR sd = PX_SQRT(PXK_E(efc_D, i));
      for (int k = 0; k < nv; k++) {
        PXR v = PXK_E(efc_J, i * nv + k) * sd;
        PXK_E(efc_sv_cholupd, k) = v;
      }
      int rank = pxk_svCholUpdate(PX_MDARGC flag);
      if (rank < nv) {
        pxk_svFactorHessian(PX_MDARG);
        return;
      }
    }
  }
}

// efc_force, efc_state, qfrc_constraint at efc_sv_Jaref, plus the Gauss cost; returns the total
// cost and sets *gauss (PrimalUpdateConstraint)
PX_FN PX_REAL pxk_svUpdateConstraint(PX_MDC PX_OUT(PX_REAL, gauss, 1)) {
  PXR cost = pxk_svUpdate(PX_MDARGC 0);
  PXR g = PX_ZERO;
  for (int i = 0; i < MS(nv); i++) {
    PXR a = D(qacc, i) - D(qacc_smooth, i);
    PXR b = PXK_E(efc_sv_Ma, i) - D(qfrc_smooth, i);
    PXR t = PX_R(0.5) * b * a;
    g += t;
  }
  gauss[0] = g;
  cost = cost + g;
  return cost;
}

// grad = Ma - qfrc_smooth - qfrc_constraint (PrimalUpdateGrad)
PX_FN void pxk_svGrad(PX_MD) {
  for (int i = 0; i < MS(nv); i++) {
    PXR g = PXK_E(efc_sv_Ma, i) - D(qfrc_smooth, i) - D(qfrc_constraint, i);
    PXK_E(efc_sv_grad, i) = g;
  }
}

// Huber cost of a friction row at x (frictionCost)
PX_FN PX_REAL pxk_svFrictionCost(PX_REAL x, PX_REAL f, PX_REAL rf, PX_REAL dd) {
  PXR nrf = -rf;
  if (nrf < x && x < rf) {
    PXR c = PX_R(0.5) * dd * x * x;
    return c;
  }
  if (x <= nrf) {
    PXR t = PX_R(-0.5) * rf - x;
    PXR c = f * t;
    return c;
  }
  PXR t = PX_R(-0.5) * rf + x;
  PXR c = f * t;
  return c;
}

// cost(x) - cost(start) of a friction row (frictionCostDif)
PX_FN PX_REAL pxk_svFrictionCostDif(PX_REAL start, PX_REAL x, PX_REAL f, PX_REAL rf, PX_REAL dd) {
  PXR nrf = -rf;
  int s0 = (nrf < start && start < rf) ? 0 : (start <= nrf ? -1 : 1);
  int s1 = (nrf < x && x < rf) ? 0 : (x <= nrf ? -1 : 1);
  if (s0 == 0 && s1 == 0) {
    PXR a = x - start;
    PXR b = x + start;
    PXR c = PX_R(0.5) * dd * a * b;
    return c;
  }
  if (s0 == -1 && s1 == -1) {
    PXR a = start - x;
    PXR c = f * a;
    return c;
  }
  if (s0 == 1 && s1 == 1) {
    PXR a = x - start;
    PXR c = f * a;
    return c;
  }
  PXR c1 = pxk_svFrictionCost(x, f, rf, dd);
  PXR c0 = pxk_svFrictionCost(start, f, rf, dd);
  PXR c = c1 - c0;
  return c;
}

// the quadratics of the Gauss cost (qg[1], qg[2]; qg[0] is kept) and of every row along the
// search direction (PrimalPrepare, no elliptic cones)
PX_FN void pxk_svPrepare(PX_MDC PX_INOUT(PX_REAL, qg, 3)) {
  int nv = MS(nv);
  PXR a = PX_ZERO;
  PXR b = PX_ZERO;
  PXR c = PX_ZERO;
  PXK_DOT_BODY(a, PXK_AE, efc_sv_search, 0, PXK_AE, efc_sv_Ma, 0, nv)
  PXK_DOT_BODY(b, PXK_AD, qfrc_smooth, 0, PXK_AE, efc_sv_search, 0, nv)
  PXK_DOT_BODY(c, PXK_AE, efc_sv_search, 0, PXK_AE, efc_sv_Mv, 0, nv)
  qg[1] = a - b;
  qg[2] = PX_R(0.5) * c;
  for (int i = 0; i < PXK_EN(PX_EFC_NEFC); i++) {
    PXR jv = PXK_E(efc_sv_Jv, i);
    PXR jaref = PXK_E(efc_sv_Jaref, i);
    PXR dd = PXK_E(efc_D, i);
    PXR dj0 = dd * jaref;
    PXR q0 = jaref * dj0;
    PXR q1 = jv * dj0;
    PXR q2 = jv * dd * jv;
    q0 *= PX_R(0.5);
    q2 *= PX_R(0.5);
    PXK_E(efc_sv_quad, 3 * i) = q0;
    PXK_E(efc_sv_quad, 3 * i + 1) = q1;
    PXK_E(efc_sv_quad, 3 * i + 2) = q2;
  }
}

// cost(alpha) - cost(0) and its derivatives at p[ALPHA] into p (PrimalEval, no elliptic cones)
PX_FN void pxk_svEval(PX_MDC PX_INOUT(PX_REAL, p, 4), PX_IN(PX_REAL, qg, 3)) {
  int ne = PXK_EN(PX_EFC_NE);
  int nf = PXK_EN(PX_EFC_NF);
  PXR alpha = p[PXK_LS_ALPHA];
  PXR cost = PX_ZERO;
  PXR d0 = PX_ZERO;
  PXR d1 = PX_ZERO;
  PXR t0 = PX_ZERO;
  PXR t1 = qg[1];
  PXR t2 = qg[2];
  for (int i = 0; i < PXK_EN(PX_EFC_NEFC); i++) {
    if (i < ne) {
      t1 += PXK_E(efc_sv_quad, 3 * i + 1);
      t2 += PXK_E(efc_sv_quad, 3 * i + 2);
      continue;
    }
    PXR start = PXK_E(efc_sv_Jaref, i);
    PXR dir = PXK_E(efc_sv_Jv, i);
    PXR x = start + alpha * dir;
    if (i < ne + nf) {
      PXR f = PXK_E(efc_frictionloss, i);
      PXR dd = PXK_E(efc_D, i);
      PXR rf = PXK_E(efc_R, i) * f;
      PXR nrf = -rf;
      PXR dc = pxk_svFrictionCostDif(start, x, f, rf, dd);
      cost += dc;
      if (nrf < x && x < rf) {
        PXR a = dd * x * dir;
        d0 += a;
        PXR b = dd * dir * dir;
        d1 += b;
      } else if (x <= nrf) {
        PXR nf2 = -f;
        PXR a = nf2 * dir;
        d0 += a;
      } else {
        PXR a = f * dir;
        d0 += a;
      }
      continue;
    }
    PXR cost0 = start < PX_R(0.0) ? PXK_E(efc_sv_quad, 3 * i) : PX_ZERO;
    if (x < PX_R(0.0)) {
      PXR q = PXK_E(efc_sv_quad, 3 * i) - cost0;
      t0 += q;
      t1 += PXK_E(efc_sv_quad, 3 * i + 1);
      t2 += PXK_E(efc_sv_quad, 3 * i + 2);
    } else {
      cost -= cost0;
    }
  }
  PXR q = alpha * alpha * t2 + alpha * t1 + t0;
  cost += q;
  PXR g = PX_R(2.0) * alpha * t2 + t1;
  d0 += g;
  PXR h = PX_R(2.0) * t2;
  d1 += h;
  if (d1 <= PX_R(0.0)) d1 = PXK_MINVAL;
  p[PXK_LS_COST] = cost;
  p[PXK_LS_D0] = d0;
  p[PXK_LS_D1] = d1;
}

PX_FN void pxk_svCopyPoint(PX_OUT(PX_REAL, dst, 4), PX_IN(PX_REAL, src, 4)) {
  for (int k = 0; k < 4; k++) dst[k] = src[k];
}

// the Newton point of p into pn, evaluated (p[ALPHA] - p[D0] / p[D1])
PX_FN void pxk_svNewtonPoint(PX_MDC PX_IN(PX_REAL, p, 4), PX_OUT(PX_REAL, pn, 4),
                             PX_IN(PX_REAL, qg, 3)) {
  PXR step = p[PXK_LS_D0] / p[PXK_LS_D1];
  pn[PXK_LS_ALPHA] = p[PXK_LS_ALPHA] - step;
  pxk_svEval(PX_MDARGC pn, qg);
}

// bracket point p moved to the candidate (rows of cand) that improves it, its Newton point
// into pn; returns 0 when no candidate did (updateBracket)
PX_FN int pxk_svBracket(PX_MDC PX_INOUT(PX_REAL, p, 4), PX_IN(PX_REAL, cand, 12),
                        PX_OUT(PX_REAL, pn, 4), PX_IN(PX_REAL, qg, 3)) {
  int flag = 0;
  for (int i = 0; i < 3; i++) {
    PXR cd = cand[4 * i + PXK_LS_D0];
    if (p[PXK_LS_D0] < PX_R(0.0) && cd < PX_R(0.0) && p[PXK_LS_D0] < cd) {
      for (int k = 0; k < 4; k++) p[k] = cand[4 * i + k];
      flag = 1;
    } else if (p[PXK_LS_D0] > PX_R(0.0) && cd > PX_R(0.0) && p[PXK_LS_D0] > cd) {
      for (int k = 0; k < 4; k++) p[k] = cand[4 * i + k];
      flag = 2;
    }
  }
  if (flag != 0) pxk_svNewtonPoint(PX_MDARGC p, pn, qg);
  return flag;
}

// MuJoCo's exact line search along efc_sv_search (PrimalSearch): returns alpha and sets
// res[0] = the improvement (cost(0) - cost(alpha)); Mv, Jv and the quadratics are set here
PX_FN PX_REAL pxk_svSearch(PX_MDC PX_REAL scale, PX_INOUT(PX_REAL, qg, 3),
                           PX_OUT(PX_REAL, res, 1)) {
  int nv = MS(nv);
  int nefc = PXK_EN(PX_EFC_NEFC);
  res[0] = PX_R(0.0);
  PXR ss = PX_ZERO;
  PXK_DOT_BODY(ss, PXK_AE, efc_sv_search, 0, PXK_AE, efc_sv_search, 0, nv)
  PXR snorm = PX_SQRT(ss);
  if (snorm < PXK_MINVAL) return PX_ZERO;
  PXR tol = MOPT(tolerance) * MOPT(ls_tolerance);
  PXR gtol = tol * snorm / scale;
  int lsmax = MOPT(ls_iterations);
  PXK_MULM_BODY(PXK_AE, efc_sv_Mv, 0, PXK_AE, efc_sv_search, 0)
  for (int i = 0; i < nefc; i++) {
    PXR s = PX_ZERO;
    PXK_DOT_BODY(s, PXK_AE, efc_J, i * nv, PXK_AE, efc_sv_search, 0, nv)
    PXK_E(efc_sv_Jv, i) = s;
  }
  pxk_svPrepare(PX_MDARGC qg);
  int lsiter = 0;
  PXR p0[4];
  PXR p1[4];
  PXR p2[4];
  PXR pmid[4];
  PXR p1n[4];
  PXR p2n[4];
  PXR cand[12];
  p0[PXK_LS_ALPHA] = PX_R(0.0);
  pxk_svEval(PX_MDARGC p0, qg);
  lsiter++;
  pxk_svNewtonPoint(PX_MDARGC p0, p1, qg);
  lsiter++;
  PXR a1 = PX_ABS(p1[PXK_LS_D0]);
  if (a1 < gtol && (p1[PXK_LS_ALPHA] == PX_R(0.0) || p1[PXK_LS_COST] < PX_R(0.0))) {
    res[0] = -p1[PXK_LS_COST];
    return p1[PXK_LS_ALPHA];
  }
  PXR dir = p1[PXK_LS_D0] < PX_R(0.0) ? PX_R(1.0) : PX_R(-1.0);
  PXR ngtol = -gtol;
  pxk_svCopyPoint(p2, p0);
  PXR slope = p1[PXK_LS_D0] * dir;
  while (slope <= ngtol && lsiter < lsmax) {
    pxk_svCopyPoint(p2, p1);
    PXR step = p1[PXK_LS_D0] / p1[PXK_LS_D1];
    p1[PXK_LS_ALPHA] = p1[PXK_LS_ALPHA] - step;
    pxk_svEval(PX_MDARGC p1, qg);
    lsiter++;
    a1 = PX_ABS(p1[PXK_LS_D0]);
    if (a1 < gtol && p1[PXK_LS_COST] < PX_R(0.0)) {
      res[0] = -p1[PXK_LS_COST];
      return p1[PXK_LS_ALPHA];
    }
    slope = p1[PXK_LS_D0] * dir;
  }
  if (lsiter >= lsmax) {
    res[0] = -p1[PXK_LS_COST];
    return p1[PXK_LS_ALPHA];
  }
  pxk_svCopyPoint(p2n, p1);
  pxk_svNewtonPoint(PX_MDARGC p1, p1n, qg);
  lsiter++;
  while (lsiter < lsmax) {
    PXR sum = p1[PXK_LS_ALPHA] + p2[PXK_LS_ALPHA];
    pmid[PXK_LS_ALPHA] = PX_R(0.5) * sum;
    pxk_svEval(PX_MDARGC pmid, qg);
    lsiter++;
    for (int k = 0; k < 4; k++) {
      cand[k] = p1n[k];
      cand[4 + k] = p2n[k];
      cand[8 + k] = pmid[k];
    }
    PXR best = PX_ZERO;
    int bi = -1;
    for (int i = 0; i < 3; i++) {
      PXR ad = PX_ABS(cand[4 * i + PXK_LS_D0]);
      if (ad < gtol && (bi == -1 || cand[4 * i + PXK_LS_COST] < best)) {
        best = cand[4 * i + PXK_LS_COST];
        bi = i;
      }
    }
    if (bi >= 0) {
      res[0] = -cand[4 * bi + PXK_LS_COST];
      return cand[4 * bi + PXK_LS_ALPHA];
    }
    int b1 = pxk_svBracket(PX_MDARGC p1, cand, p1n, qg);
    if (b1 != 0) lsiter++;
    int b2 = pxk_svBracket(PX_MDARGC p2, cand, p2n, qg);
    if (b2 != 0) lsiter++;
    if (b1 == 0 && b2 == 0) {
      res[0] = -pmid[PXK_LS_COST];
      return pmid[PXK_LS_ALPHA];
    }
  }
  if (p1[PXK_LS_COST] <= p2[PXK_LS_COST] && p1[PXK_LS_COST] < PX_R(0.0)) {
    res[0] = -p1[PXK_LS_COST];
    return p1[PXK_LS_ALPHA];
  }
  if (p2[PXK_LS_COST] <= p1[PXK_LS_COST] && p2[PXK_LS_COST] < PX_R(0.0)) {
    res[0] = -p2[PXK_LS_COST];
    return p2[PXK_LS_ALPHA];
  }
  return PX_ZERO;
}

// 0.5 scale grad' Mgrad clamped below at 0 (the gap or the Newton decrement)
PX_FN PX_REAL pxk_svDecrement(PX_MDC PX_REAL scale) {
  PXR dt = PX_ZERO;
  PXK_DOT_BODY(dt, PXK_AE, efc_sv_grad, 0, PXK_AE, efc_sv_Mgrad, 0, MS(nv))
  PXR v = PX_R(0.5) * scale * dt;
  return v > PX_R(0.0) ? v : PX_ZERO;
}

// scale times the norm of grad
PX_FN PX_REAL pxk_svGradNorm(PX_MDC PX_REAL scale) {
  PXR gg = PX_ZERO;
  PXK_DOT_BODY(gg, PXK_AE, efc_sv_grad, 0, PXK_AE, efc_sv_grad, 0, MS(nv))
  PXR v = scale * PX_SQRT(gg);
  return v;
}

// the Newton solver from the qacc in Data (mj_solPrimal with flg_Newton, monolithic, dense);
// returns the number of iterations
PX_FN int pxk_solNewton(PX_MD) {
  int nv = MS(nv);
  int nefc = PXK_EN(PX_EFC_NEFC);
  PXR tol = MOPT(tolerance);
  PXR qg[3];
  PXR gauss[1];
  PXR impr[1];
  pxk_svMa(PX_MDARG);
  for (int i = 0; i < nefc; i++) {
    PXR s = PX_ZERO;
    PXK_DOT_BODY(s, PXK_AE, efc_J, i * nv, PXK_AD, qacc, 0, nv)
    PXK_E(efc_sv_Jaref, i) = s;
  }
  for (int i = 0; i < nefc; i++) {
    PXR v = PXK_E(efc_sv_Jaref, i) - PXK_E(efc_aref, i);
    PXK_E(efc_sv_Jaref, i) = v;
  }
  pxk_svUpdateConstraint(PX_MDARGC gauss);
  qg[0] = gauss[0];
  pxk_svGrad(PX_MDARG);
  PXR nvr = PX_TOREAL(nv > 1 ? nv : 1);
  PXR den = MSTAT(meaninertia) * nvr;
  PXR scale = PX_R(1.0) / den;
  // Mgrad = M \ grad: the convergence certificate
  for (int i = 0; i < nv; i++) PXK_E(efc_sv_Mgrad, i) = PXK_E(efc_sv_grad, i);
  PXK_SOLVELD_BODY(PXK_AE, efc_sv_Mgrad, 0)
  int flgGap = pxk_svDecrement(PX_MDARGC scale) < tol ? 1 : 0;
  int flgGradient = pxk_svGradNorm(PX_MDARGC scale) < tol ? 1 : 0;
  int done = (flgGap == 1 && flgGradient == 1) ? 1 : 0;
  if (done == 0) {
    pxk_svFactorHessian(PX_MDARG);
    pxk_svCholSolve(PX_MDARG);
    done = (flgGradient == 1 && pxk_svDecrement(PX_MDARGC scale) < tol) ? 1 : 0;
  }
  if (done == 0) {
    for (int i = 0; i < nv; i++) {
      PXR v = PXK_E(efc_sv_Mgrad, i) * PX_R(-1.0);
      PXK_E(efc_sv_search, i) = v;
    }
  }
  int iter = 0;
  while (done == 0 && iter < MOPT(iterations)) {
    PXR alpha = pxk_svSearch(PX_MDARGC scale, qg, impr);
    if (alpha == PX_R(0.0)) break;
    for (int i = 0; i < nv; i++) {
      PXR a = D(qacc, i) + PXK_E(efc_sv_search, i) * alpha;
      D(qacc, i) = a;
    }
    for (int i = 0; i < nv; i++) {
      PXR a = PXK_E(efc_sv_Ma, i) + PXK_E(efc_sv_Mv, i) * alpha;
      PXK_E(efc_sv_Ma, i) = a;
    }
    for (int i = 0; i < nefc; i++) {
      PXR a = PXK_E(efc_sv_Jaref, i) + PXK_E(efc_sv_Jv, i) * alpha;
      PXK_E(efc_sv_Jaref, i) = a;
    }
    for (int i = 0; i < nefc; i++) PXK_E(efc_sv_oldstate, i) = PXK_E(efc_state, i);
    pxk_svUpdateConstraint(PX_MDARGC gauss);
    qg[0] = gauss[0];
    pxk_svHessianIncremental(PX_MDARG);
    pxk_svGrad(PX_MDARG);
    pxk_svCholSolve(PX_MDARG);
    PXR improvement = scale * impr[0];
    PXR gradient = pxk_svGradNorm(PX_MDARGC scale);
    PXR decrement = pxk_svDecrement(PX_MDARGC scale);
    iter++;
    if ((improvement > PX_R(0.0) && improvement < tol) || gradient < tol || decrement < tol) {
      break;
    }
    for (int i = 0; i < nv; i++) {
      PXR v = PXK_E(efc_sv_Mgrad, i) * PX_R(-1.0);
      PXK_E(efc_sv_search, i) = v;
    }
  }
  return iter;
}

// the warm start (engine_forward.c's warmstart for the primal solvers): qacc = qacc_warmstart
// unless qacc_smooth has the lower total cost; qacc_smooth and zero forces when disabled
PX_FN void pxk_svWarmstart(PX_MD) {
  int nv = MS(nv);
  int nefc = PXK_EN(PX_EFC_NEFC);
  if ((MOPT(disableflags) & PX_DSBL_WARMSTART) == 0) {
    for (int i = 0; i < nv; i++) D(qacc, i) = D(qacc_warmstart, i);
    for (int i = 0; i < nefc; i++) {
      PXR s = PX_ZERO;
      PXK_DOT_BODY(s, PXK_AE, efc_J, i * nv, PXK_AD, qacc_warmstart, 0, nv)
      PXK_E(efc_sv_Jaref, i) = s;
    }
    for (int i = 0; i < nefc; i++) {
      PXR v = PXK_E(efc_sv_Jaref, i) - PXK_E(efc_aref, i);
      PXK_E(efc_sv_Jaref, i) = v;
    }
    PXR cw = pxk_svUpdate(PX_MDARGC 0);
    PXK_MULM_BODY(PXK_AE, efc_sv_Ma, 0, PXK_AD, qacc_warmstart, 0)
    for (int i = 0; i < nv; i++) {
      PXR a = PXK_E(efc_sv_Ma, i) - D(qfrc_smooth, i);
      PXR b = D(qacc_warmstart, i) - D(qacc_smooth, i);
      PXR t = PX_R(0.5) * a * b;
      cw += t;
    }
    PXR cs = pxk_svUpdate(PX_MDARGC 1);
    if (cw > cs) {
      for (int i = 0; i < nv; i++) D(qacc, i) = D(qacc_smooth, i);
    }
  } else {
    for (int i = 0; i < nv; i++) D(qacc, i) = D(qacc_smooth, i);
    for (int i = 0; i < nefc; i++) PXK_E(efc_force, i) = PX_R(0.0);
  }
}

// mj_fwdConstraint with the Newton solver (after pxk_fwdAcceleration): qacc, qfrc_constraint,
// efc_b, efc_force, efc_state
PX_FN void pxk_fwdConstraint(PX_MD) {
  int nv = MS(nv);
  int nefc = PXK_EN(PX_EFC_NEFC);
  for (int i = 0; i < nv; i++) D(qfrc_constraint, i) = PX_R(0.0);
  PXK_EN(PX_EFC_NITER) = 0;
  if (nefc == 0) {
    for (int i = 0; i < nv; i++) D(qacc, i) = D(qacc_smooth, i);
    return;
  }
  for (int i = 0; i < nefc; i++) {
    PXR s = PX_ZERO;
    PXK_DOT_BODY(s, PXK_AE, efc_J, i * nv, PXK_AD, qacc_smooth, 0, nv)
    PXK_E(efc_b, i) = s;
  }
  for (int i = 0; i < nefc; i++) {
    PXR v = PXK_E(efc_b, i) - PXK_E(efc_aref, i);
    PXK_E(efc_b, i) = v;
  }
  pxk_svWarmstart(PX_MDARG);
  PXK_EN(PX_EFC_NITER) = pxk_solNewton(PX_MDARG);
}

#endif  // PX_KERN_SOLVER_H_
