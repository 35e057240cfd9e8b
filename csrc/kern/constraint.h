// SPDX-License-Identifier: Apache-2.0
// Constraint rows (MuJoCo 3.12's mj_makeConstraint, mj_referenceConstraint) in the kernel
// dialect, dense Jacobian: equality (connect, weld, joint, tendon), friction loss (dof, tendon),
// limits (hinge, slide, ball, tendon) and contacts (frictionless, pyramidal, elliptic), in
// MuJoCo's row order, then the approximate diagonal of A = J M^-1 J',
// the impedance (efc_KBIP, efc_R, efc_D) and the reference acceleration efc_aref.
//   reads:  the position stages' outputs (xpos, xmat, xquat, site_xpos, cdof, subtree_com, qpos,
//           ten_J, ten_length), the contact records (PXK_CON, PXK_NCON), cvel and cdof_dot (aref
//           of connect and weld rows), qvel
//   writes: efc_type/id/J/pos/margin/frictionloss/diagA/KBIP/D/R/vel/aref, efc_n (nefc, ne, nf,
//           nl), the contacts' efc_address and mu; efc_cn_jac is scratch
// Capacity: rows beyond PXK_NEFCMAX are counted, not written; when the rows a state needs exceed
// it every row is dropped and CNSTRFULL counted, as MuJoCo does when its arena is full.
// Every float operation is in MuJoCo's order (engine_core_constraint.c, engine_util_blas.c).
#ifndef PX_KERN_CONSTRAINT_H_
#define PX_KERN_CONSTRAINT_H_

#include "kern/jac.h"
#include "kern/libm.h"
#include "kern/passive.h"
#include "kern/post.h"
#include "kern/spatial.h"
#include "kern/transmission.h"

// mjtConstraint
#define PXK_CNSTR_EQUALITY 0
#define PXK_CNSTR_FRICTION_DOF 1
#define PXK_CNSTR_FRICTION_TENDON 2
#define PXK_CNSTR_LIMIT_JOINT 3
#define PXK_CNSTR_LIMIT_TENDON 4
#define PXK_CNSTR_CONTACT_FRICTIONLESS 5
#define PXK_CNSTR_CONTACT_PYRAMIDAL 6
#define PXK_CNSTR_CONTACT_ELLIPTIC 7

// mjtConstraintState
#define PXK_CNSTRSTATE_SATISFIED 0
#define PXK_CNSTRSTATE_QUADRATIC 1
#define PXK_CNSTRSTATE_LINEARNEG 2
#define PXK_CNSTRSTATE_LINEARPOS 3
#define PXK_CNSTRSTATE_CONE 4

// mjMINIMP, mjMAXIMP, mjNEQDATA
#define PXK_MINIMP PX_R(0.0001)
#define PXK_MAXIMP PX_R(0.9999)
#define PXK_NEQDATA 11

// the CNSTRFULL row of the warning statistics (pxtWarning)
#define PXK_WARN_CNSTRFULL 2

// Bodies of the dot product MuJoCo's mju_dot computes (four partial sums, combined as
// (s0 + s2) + (s1 + s3), then the remainder); res is a PXR local declared by the caller, A and B
// accessors of element (a + i) and (b + i)
#ifdef PX_KERN_C
// C fast path of PXK_DOT_BODY on plain pointers, the same operations in the same order: the
// partial sums (s0, s1) and (s2, s3) are the two lanes of two SSE2 accumulators, (s0 + s2, s1 + s3)
// one lane-wise add, then the remainder as in the macro
PX_FN PX_REAL pxk_cDot(const PX_REAL* a, const PX_REAL* b, int n) {
  int k = 0;
  PX_REAL res;
#ifdef PX_SSE2
  __m128d s01 = _mm_setzero_pd();
  __m128d s23 = _mm_setzero_pd();
  for (; k <= n - 4; k += 4) {
    s01 = _mm_add_pd(s01, _mm_mul_pd(_mm_loadu_pd(a + k), _mm_loadu_pd(b + k)));
    s23 = _mm_add_pd(s23, _mm_mul_pd(_mm_loadu_pd(a + k + 2), _mm_loadu_pd(b + k + 2)));
  }
  __m128d s = _mm_add_pd(s01, s23);
  res = _mm_cvtsd_f64(s) + _mm_cvtsd_f64(_mm_unpackhi_pd(s, s));
#else
  PX_REAL s0 = PX_R(0.0), s1 = PX_R(0.0), s2 = PX_R(0.0), s3 = PX_R(0.0);
  for (; k <= n - 4; k += 4) {
    s0 += a[k] * b[k];
    s1 += a[k + 1] * b[k + 1];
    s2 += a[k + 2] * b[k + 2];
    s3 += a[k + 3] * b[k + 3];
  }
  res = (s0 + s2) + (s1 + s3);
#endif
  int r = n - k;
  if (r == 3) {
    PX_REAL t = a[k] * b[k] + a[k + 1] * b[k + 1];
    t = t + a[k + 2] * b[k + 2];
    res = res + t;
  } else if (r == 2) {
    PX_REAL t = a[k] * b[k] + a[k + 1] * b[k + 1];
    res = res + t;
  } else if (r == 1) {
    PX_REAL t = a[k] * b[k];
    res = res + t;
  }
  return res;
}
// the C build's PXK_DOT_BODY: pxk_cDot on the addresses of the first elements (the accessors of
// the C build are lvalues of plain arrays)
#define PXK_DOT_BODY(res, A, fa, a, B, fb, b, n) \
  { res = pxk_cDot(&A(fa, (a)), &B(fb, (b)), (n)); }
#else
#define PXK_DOT_BODY(res, A, fa, a, B, fb, b, n)                                             \
  {                                                                                          \
    PXR ds0_ = PX_ZERO;                                                                      \
    PXR ds1_ = PX_ZERO;                                                                      \
    PXR ds2_ = PX_ZERO;                                                                      \
    PXR ds3_ = PX_ZERO;                                                                      \
    int dk_ = 0;                                                                             \
    for (; dk_ <= (n)-4; dk_ += 4) {                                                         \
      ds0_ += A(fa, (a) + dk_) * B(fb, (b) + dk_);                                           \
      ds1_ += A(fa, (a) + dk_ + 1) * B(fb, (b) + dk_ + 1);                                   \
      ds2_ += A(fa, (a) + dk_ + 2) * B(fb, (b) + dk_ + 2);                                   \
      ds3_ += A(fa, (a) + dk_ + 3) * B(fb, (b) + dk_ + 3);                                   \
    }                                                                                        \
    res = (ds0_ + ds2_) + (ds1_ + ds3_);                                                     \
    int dr_ = (n)-dk_;                                                                       \
    if (dr_ == 3) {                                                                          \
      PXR dt_t =                                                                             \
          A(fa, (a) + dk_) * B(fb, (b) + dk_) + A(fa, (a) + dk_ + 1) * B(fb, (b) + dk_ + 1); \
      dt_t = dt_t + A(fa, (a) + dk_ + 2) * B(fb, (b) + dk_ + 2);                             \
      res = res + dt_t;                                                                      \
    } else if (dr_ == 2) {                                                                   \
      PXR dt_t =                                                                             \
          A(fa, (a) + dk_) * B(fb, (b) + dk_) + A(fa, (a) + dk_ + 1) * B(fb, (b) + dk_ + 1); \
      res = res + dt_t;                                                                      \
    } else if (dr_ == 1) {                                                                   \
      PXR dt_t = A(fa, (a) + dk_) * B(fb, (b) + dk_);                                        \
      res = res + dt_t;                                                                      \
    }                                                                                        \
  }
#endif  // PX_KERN_C

// accessors for PXK_DOT_BODY: efc arrays, Data arrays, local arrays (the field is the array)
#define PXK_AE(f, i) PXK_E(f, i)
#define PXK_AD(f, i) D(f, i)
#define PXK_AL(f, i) f[i]

PX_FN PX_REAL pxk_cnMax(PX_REAL a, PX_REAL b) {
  return a > b ? a : b;
}

PX_FN PX_REAL pxk_cnMin(PX_REAL a, PX_REAL b) {
  return a < b ? a : b;
}

//---------------------------------- rows ----------------------------------------------------------

// dense Jacobian (translation rows 0-2, rotation rows 3-5, nv columns each) of a global point
// attached to body, at element o of efc_cn_jac (mj_jac)
PX_FN void pxk_cnJac(PX_MDC int o, PX_IN(PX_REAL, point, 3), int body) {
  int nv = MS(nv);
  for (int k = 0; k < 6 * nv; k++) PXK_E(efc_cn_jac, o + k) = PX_R(0.0);
  PXR offset[3];
  PXR jp[3];
  PXR jr[3];
  pxk_jacOffset(PX_MDARGC offset, point, body);
  for (int i = pxk_jacLastDof(PX_MDARGC body); i >= 0; i = M(dof_parentid, i)) {
    pxk_jacColumn(PX_MDARGC jp, jr, offset, i);
    for (int r = 0; r < 3; r++) {
      PXK_E(efc_cn_jac, o + r * nv + i) = jp[r];
      PXK_E(efc_cn_jac, o + (3 + r) * nv + i) = jr[r];
    }
  }
}

// 1 when `size` rows from row PXK_EN(NEFC) fit the capacity; counts them as needed either way
// the row capacity: PXK_NEFCMAX, or the rows of the dual matrices when a dual solver or the exact
// diagonal needs them
PX_FN int pxk_cnCapacity(PX_MD) {
  int dual = (MOPT(solver) == PX_SOL_PGS || MOPT(noslip_iterations) > 0 ||
              (MOPT(enableflags) & PX_ENBL_DIAGEXACT) != 0)
                 ? 1
                 : 0;
  return (dual == 1 && PXK_NEFCDUAL < PXK_NEFCMAX) ? PXK_NEFCDUAL : PXK_NEFCMAX;
}

PX_FN int pxk_cnRoom(PX_MDC int size) {
  PXK_EN(PX_EFC_NEED) = PXK_EN(PX_EFC_NEED) + size;
  return PXK_EN(PX_EFC_NEFC) + size <= pxk_cnCapacity(PX_MDARG) ? 1 : 0;
}

#if PXK_SPARSE_J
//---------------------------------- the sparse layout of efc_J ------------------------------------
// mj_isSparse's layout (PX_EFC_SPARSE): a constraint's rows are written dense at row r * nv of
// efc_J as in the dense layout (only their chain's columns need be), its chain of columns
// (ascending, as MuJoCo's mj_mergeChain and friends make them) at the next free element of
// efc_J_colind with their number in efc_J_rownnz[r0]; pxk_cnCommit then packs the chain's
// columns of each row to the next free element of efc_J (mj_addConstraint's sparse copy). A packed
// row never overtakes what it reads: its element k lands at or before row r's column colind[k]
// (rowadr <= r nv, k <= colind[k]), and the columns are read in ascending order.

// 1 when the rows use the sparse layout (mj_isSparse: jacobian sparse, or auto with nv >= 60)
PX_FN int pxk_isSparse(PX_MD) {
  int j = MOPT(jacobian);
  return (MS(nv) > 0 && (j == PX_JAC_SPARSE || (j == PX_JAC_AUTO && MS(nv) >= 60))) ? 1 : 0;
}

// the next free element of efc_J and efc_J_colind
PX_FN int pxk_spNext(PX_MD) {
  int n = PXK_EN(PX_EFC_NEFC);
  return n == 0 ? 0 : PXK_E(efc_J_rowadr, n - 1) + PXK_E(efc_J_rownnz, n - 1);
}

// the dofs the Jacobians of bodies b1 and b2 may touch (mj_mergeChain; mj_mergeChainSimple when
// both are simple), ascending, into efc_J_colind from adr (adr < 0: counted only); skipcommon
// stops at the first dof the two share (contacts); returns their number
PX_FN int pxk_spMergeChain(PX_MDC int adr, int b1, int b2, int skipcommon) {
  if (M(body_simple, b1) != 0 && M(body_simple, b2) != 0) {
    int lo = b1 < b2 ? b1 : b2;
    int hi = b1 < b2 ? b2 : b1;
    int n1 = M(body_dofnum, lo);
    int n2 = M(body_dofnum, hi);
    if (adr >= 0) {
      for (int i = 0; i < n1; i++) PXK_E(efc_J_colind, adr + i) = M(body_dofadr, lo) + i;
      for (int i = 0; i < n2; i++) PXK_E(efc_J_colind, adr + n1 + i) = M(body_dofadr, hi) + i;
    }
    return n1 + n2;
  }
  int w1 = M(body_weldid, b1);
  int w2 = M(body_weldid, b2);
  if (M(body_dofnum, w1) == 0 && M(body_dofnum, w2) == 0) return 0;
  int da1 = M(body_dofadr, w1) + M(body_dofnum, w1) - 1;
  int da2 = M(body_dofadr, w2) + M(body_dofnum, w2) - 1;
  int n = 0;
  while (da1 >= 0 || da2 >= 0) {
    int da = da1 > da2 ? da1 : da2;
    if (skipcommon == 1 && da1 == da && da2 == da) break;
    if (adr >= 0) PXK_E(efc_J_colind, adr + n) = da;
    if (da1 == da) da1 = M(dof_parentid, da1);
    if (da2 == da) da2 = M(dof_parentid, da2);
    n++;
  }
  if (adr >= 0) {
    for (int i = 0; i < n / 2; i++) {
      int t = PXK_E(efc_J_colind, adr + i);
      PXK_E(efc_J_colind, adr + i) = PXK_E(efc_J_colind, adr + n - 1 - i);
      PXK_E(efc_J_colind, adr + n - 1 - i) = t;
    }
  }
  return n;
}

// columns of a joint's (its first dof) or a tendon's (ten_J_colind) Jacobian row: their number,
// and column k
PX_FN int pxk_spObjNnz(PX_MDC int tendon, int id) {
  return tendon == 1 ? M(ten_J_rownnz, id) : 1;
}

PX_FN int pxk_spObjCol(PX_MDC int tendon, int id, int k) {
  return tendon == 1 ? M(ten_J_colind, M(ten_J_rowadr, id) + k) : M(jnt_dofadr, id);
}

// the chain of row r0's constraint: the union of the columns of objects id0 and id1 (id1 < 0:
// none) of a joint or tendon equality or row, as mju_combineSparse merges them
PX_FN void pxk_spObjChain(PX_MDC int r0, int tendon, int id0, int id1) {
  int adr = pxk_spNext(PX_MDARG);
  int n0 = pxk_spObjNnz(PX_MDARGC tendon, id0);
  int n1 = id1 >= 0 ? pxk_spObjNnz(PX_MDARGC tendon, id1) : 0;
  int big = 2147483647;
  int i = 0;
  int j = 0;
  int w = 0;
  while (i < n0 || j < n1) {
    int a = i < n0 ? pxk_spObjCol(PX_MDARGC tendon, id0, i) : big;
    int b = j < n1 ? pxk_spObjCol(PX_MDARGC tendon, id1, j) : big;
    int c = a < b ? a : b;
    PXK_E(efc_J_colind, adr + w) = c;
    w++;
    if (a == c) i++;
    if (b == c) j++;
  }
  PXK_E(efc_J_rownnz, r0) = w;
}

// the chain of row r0's constraint: the bodies' merged chain
PX_FN void pxk_spBodyChain(PX_MDC int r0, int b1, int b2, int skipcommon) {
  PXK_E(efc_J_rownnz, r0) = pxk_spMergeChain(PX_MDARGC pxk_spNext(PX_MDARG), b1, b2, skipcommon);
}

// the chain of row r0's constraint: n consecutive dofs from dof
PX_FN void pxk_spDofChain(PX_MDC int r0, int dof, int n) {
  int adr = pxk_spNext(PX_MDARG);
  for (int k = 0; k < n; k++) PXK_E(efc_J_colind, adr + k) = dof + k;
  PXK_E(efc_J_rownnz, r0) = n;
}

// pack the `size` rows from r0 (dense at r * nv) to their chain (efc_J_rownnz[r0] columns at the
// next free element of efc_J_colind); their J row supernodes as mj_addConstraint sets them
PX_FN void pxk_spPack(PX_MDC int r0, int size) {
  int nv = MS(nv);
  int nnz = PXK_E(efc_J_rownnz, r0);
  int adr = pxk_spNext(PX_MDARG);
  for (int i = 0; i < size; i++) {
    int a = adr + i * nnz;
    PXK_E(efc_J_rowadr, r0 + i) = a;
    PXK_E(efc_J_rownnz, r0 + i) = nnz;
    for (int k = 0; k < nnz; k++) {
      int c = PXK_E(efc_J_colind, adr + k);
      PXK_E(efc_J_colind, a + k) = c;
      PXK_E(efc_J, a + k) = PXK_E(efc_J, (r0 + i) * nv + c);
    }
  }
  if (r0 > 0 && PXK_E(efc_J_rownnz, r0 - 1) == nnz) {
    int same = 1;
    int pa = PXK_E(efc_J_rowadr, r0 - 1);
    for (int k = 0; k < nnz && same == 1; k++) {
      if (PXK_E(efc_J_colind, pa + k) != PXK_E(efc_J_colind, adr + k)) same = 0;
    }
    if (same == 1) PXK_E(efc_J_rowsuper, r0 - 1) = 1;
  }
  for (int i = 0; i < size; i++) PXK_E(efc_J_rowsuper, r0 + i) = i < size - 1 ? 1 : 0;
}

// res = row i of efc_J times the vector `fb` read through accessor B (PXK_AD: a Data array, PXK_AE:
// an efc array), as mju_dotSparse sums (four partial sums, then the rest in order); res is a PXR
// local declared by the caller
#define PXK_SPDOT_BODY(res, B, i, fb)                                                  \
  {                                                                                    \
    int sa_ = PXK_E(efc_J_rowadr, i);                                                  \
    int sn_ = PXK_E(efc_J_rownnz, i);                                                  \
    PXR ss0_ = PX_ZERO;                                                                \
    PXR ss1_ = PX_ZERO;                                                                \
    PXR ss2_ = PX_ZERO;                                                                \
    PXR ss3_ = PX_ZERO;                                                                \
    int sk_ = 0;                                                                       \
    for (; sk_ <= sn_ - 4; sk_ += 4) {                                                 \
      ss0_ += PXK_E(efc_J, sa_ + sk_) * B(fb, PXK_E(efc_J_colind, sa_ + sk_));         \
      ss1_ += PXK_E(efc_J, sa_ + sk_ + 1) * B(fb, PXK_E(efc_J_colind, sa_ + sk_ + 1)); \
      ss2_ += PXK_E(efc_J, sa_ + sk_ + 2) * B(fb, PXK_E(efc_J_colind, sa_ + sk_ + 2)); \
      ss3_ += PXK_E(efc_J, sa_ + sk_ + 3) * B(fb, PXK_E(efc_J_colind, sa_ + sk_ + 3)); \
    }                                                                                  \
    res = (ss0_ + ss2_) + (ss1_ + ss3_);                                               \
    for (; sk_ < sn_; sk_++) {                                                         \
      res += PXK_E(efc_J, sa_ + sk_) * B(fb, PXK_E(efc_J_colind, sa_ + sk_));          \
    }                                                                                  \
  }
#endif  // PXK_SPARSE_J

// Body of `out` (an efc array) = efc_J times the Data vector `fb`, row by row over the nefc rows
// (a local of the caller), in either layout: MuJoCo's mj_mulJacVec
#if PXK_SPARSE_J
#define PXK_MULJ_SPARSE(out, fb)       \
  if (pxk_isSparse(PX_MDARG) == 1) {   \
    for (int i = 0; i < nefc; i++) {   \
      PXR s = PX_ZERO;                 \
      PXK_SPDOT_BODY(s, PXK_AD, i, fb) \
      PXK_E(out, i) = s;               \
    }                                  \
  } else
#else
#define PXK_MULJ_SPARSE(out, fb)
#endif
#define PXK_MULJ(out, fb)                                    \
  PXK_MULJ_SPARSE(out, fb)                                   \
  for (int i = 0; i < nefc; i++) {                           \
    PXR s = PX_ZERO;                                         \
    PXK_DOT_BODY(s, PXK_AE, efc_J, i* nv, PXK_AD, fb, 0, nv) \
    PXK_E(out, i) = s;                                       \
  }

// commit the `size` rows written from row PXK_EN(NEFC) (mj_addConstraint after the Jacobian
// copy): rows of a non-contact constraint whose Jacobian is all zero are dropped
PX_FN void pxk_cnCommit(PX_MDC int size, int type, int id, PX_REAL frictionloss) {
  int nv = MS(nv);
  int r0 = PXK_EN(PX_EFC_NEFC);
  int empty = 1;
  if (type == PXK_CNSTR_CONTACT_FRICTIONLESS || type == PXK_CNSTR_CONTACT_PYRAMIDAL ||
      type == PXK_CNSTR_CONTACT_ELLIPTIC) {
    empty = 0;
  }
#if PXK_SPARSE_J
  // the sparse layout: a constraint is empty when its chain is (the values are not looked at)
  if (pxk_isSparse(PX_MDARG) == 1) {
    if (PXK_E(efc_J_rownnz, r0) > 0) empty = 0;
    if (empty == 1) return;
    pxk_spPack(PX_MDARGC r0, size);
    empty = -1;
  }
#endif
#ifdef PX_KERN_C
  // C fast path: the same test (an entry != 0, NaN included) two entries at a time
  if (empty == 1) {
    const PX_REAL* restrict row = d->efc_J + r0 * nv;
    int n = size * nv;
    int k = 0;
#ifdef PX_SSE2
    __m128d z = _mm_setzero_pd();
    for (; k + 4 <= n && empty == 1; k += 4) {
      __m128d c01 = _mm_cmpneq_pd(_mm_loadu_pd(row + k), z);
      __m128d c23 = _mm_cmpneq_pd(_mm_loadu_pd(row + k + 2), z);
      if (_mm_movemask_pd(_mm_or_pd(c01, c23)) != 0) empty = 0;
    }
#endif
    for (; k < n && empty == 1; k++) {
      if (row[k] != PX_R(0.0)) empty = 0;
    }
  }
#else
  for (int k = 0; k < size * nv && empty == 1; k++) {
    if (PXK_E(efc_J, r0 * nv + k) != PX_R(0.0)) empty = 0;
  }
#endif  // PX_KERN_C
  if (empty == 1) return;
  for (int r = r0; r < r0 + size; r++) {
    PXK_E(efc_frictionloss, r) = frictionloss;
    PXK_E(efc_type, r) = type;
    PXK_E(efc_id, r) = id;
  }
  PXK_EN(PX_EFC_NEFC) = r0 + size;
  if (type == PXK_CNSTR_EQUALITY) {
    PXK_EN(PX_EFC_NE) = PXK_EN(PX_EFC_NE) + size;
  } else if (type == PXK_CNSTR_FRICTION_DOF || type == PXK_CNSTR_FRICTION_TENDON) {
    PXK_EN(PX_EFC_NF) = PXK_EN(PX_EFC_NF) + size;
  } else if (type == PXK_CNSTR_LIMIT_JOINT || type == PXK_CNSTR_LIMIT_TENDON) {
    PXK_EN(PX_EFC_NL) = PXK_EN(PX_EFC_NL) + size;
  }
}

// row r of efc_J = the dense row of tendon i's sparse Jacobian times scl (mju_sparse2dense, then
// mju_scl when scl is not 1)
PX_FN void pxk_cnTendonRow(PX_MDC int r, int i, PX_REAL scl, int scale) {
  int nv = MS(nv);
  for (int k = 0; k < nv; k++) PXK_E(efc_J, r * nv + k) = PX_R(0.0);
  int adr = M(ten_J_rowadr, i);
  for (int k = 0; k < M(ten_J_rownnz, i); k++) {
    PXK_E(efc_J, r * nv + M(ten_J_colind, adr + k)) = D(ten_J, adr + k);
  }
  if (scale == 1) {
    for (int k = 0; k < nv; k++) {
      PXR v = PXK_E(efc_J, r * nv + k) * scl;
      PXK_E(efc_J, r * nv + k) = v;
    }
  }
}

// global anchor points and bodies of connect and weld constraint i (mj_equalityAnchors)
PX_FN void pxk_cnAnchors(PX_MDC int i, PX_OUT(PX_REAL, pos1, 3), PX_OUT(PX_REAL, pos2, 3),
                         PX_OUT(int, body, 2)) {
  int obj1 = M(eq_obj1id, i);
  int obj2 = M(eq_obj2id, i);
  if (M(eq_objtype, i) == PX_OBJ_BODY) {
    int a1 = 0;
    int a2 = 3;
    if (M(eq_type, i) == PX_EQ_WELD) {
      a1 = 3;
      a2 = 0;
    }
    PXR mat[9];
    PXR v[3];
    PXR t[3];
    PXK_GET(9, mat, D, xmat, 9 * obj1);
    PXK_GET(3, v, M, eq_data, PXK_NEQDATA * i + a1);
    pxk_mulMatVec3(t, mat, v);
    for (int k = 0; k < 3; k++) pos1[k] = t[k] + D(xpos, 3 * obj1 + k);
    PXK_GET(9, mat, D, xmat, 9 * obj2);
    PXK_GET(3, v, M, eq_data, PXK_NEQDATA * i + a2);
    pxk_mulMatVec3(t, mat, v);
    for (int k = 0; k < 3; k++) pos2[k] = t[k] + D(xpos, 3 * obj2 + k);
    body[0] = obj1;
    body[1] = obj2;
  } else {
    PXK_GET(3, pos1, D, site_xpos, 3 * obj1);
    PXK_GET(3, pos2, D, site_xpos, 3 * obj2);
    body[0] = M(site_bodyid, obj1);
    body[1] = M(site_bodyid, obj2);
  }
}

// res = quat * (0, axis) (mju_mulQuatAxis)
PX_FN void pxk_cnMulQuatAxis(PX_OUT(PX_REAL, res, 4), PX_IN(PX_REAL, quat, 4),
                             PX_IN(PX_REAL, axis, 3)) {
  res[0] = -quat[1] * axis[0] - quat[2] * axis[1] - quat[3] * axis[2];
  res[1] = quat[0] * axis[0] + quat[2] * axis[2] - quat[3] * axis[1];
  res[2] = quat[0] * axis[1] + quat[3] * axis[0] - quat[1] * axis[2];
  res[3] = quat[0] * axis[2] + quat[1] * axis[1] - quat[2] * axis[0];
}

// the two orientations a weld compares: q0r = q0 * relpose (or the site frame), negq1 = neg(q1)
PX_FN void pxk_cnWeldQuats(PX_MDC int i, PX_IN(int, body, 2), PX_OUT(PX_REAL, q0r, 4),
                           PX_OUT(PX_REAL, negq1, 4)) {
  PXR qa[4];
  PXR qb[4];
  PXR q1[4];
  if (M(eq_objtype, i) == PX_OBJ_BODY) {
    PXK_GET(4, qa, D, xquat, 4 * M(eq_obj1id, i));
    PXK_GET(4, qb, M, eq_data, PXK_NEQDATA * i + 6);
    pxk_mulQuat(q0r, qa, qb);
    PXK_GET(4, q1, D, xquat, 4 * M(eq_obj2id, i));
  } else {
    PXK_GET(4, qa, D, xquat, 4 * body[0]);
    PXK_GET(4, qb, M, site_quat, 4 * M(eq_obj1id, i));
    pxk_mulQuat(q0r, qa, qb);
    PXK_GET(4, qa, D, xquat, 4 * body[1]);
    PXK_GET(4, qb, M, site_quat, 4 * M(eq_obj2id, i));
    pxk_mulQuat(q1, qa, qb);
  }
  negq1[0] = q1[0];
  negq1[1] = -q1[1];
  negq1[2] = -q1[2];
  negq1[3] = -q1[3];
}

// equality rows (mj_instantiateEquality, dense)
PX_FN void pxk_cnEquality(PX_MD) {
  if ((MOPT(disableflags) & PX_DSBL_EQUALITY) != 0) return;
  int nv = MS(nv);
  int ja = 0;
  int jb = 6 * nv;
  for (int i = 0; i < MS(neq); i++) {
    if (D(eq_active, i) == 0) continue;
    int type = M(eq_type, i);
    int size = 0;
    if (type == PX_EQ_CONNECT || type == PX_EQ_WELD) {
      size = type == PX_EQ_CONNECT ? 3 : 6;
      if (pxk_cnRoom(PX_MDARGC size) == 0) continue;
      int r0 = PXK_EN(PX_EFC_NEFC);
      PXR pos1[3];
      PXR pos2[3];
      int body[2];
      pxk_cnAnchors(PX_MDARGC i, pos1, pos2, body);
#if PXK_SPARSE_J
      if (pxk_isSparse(PX_MDARG) == 1) pxk_spBodyChain(PX_MDARGC r0, body[1], body[0], 0);
#endif
      for (int k = 0; k < 3; k++) {
        PXR c = pos1[k] - pos2[k];
        PXK_E(efc_pos, r0 + k) = c;
      }
      // J = jac(body 0 at pos1) - jac(body 1 at pos2)
      pxk_cnJac(PX_MDARGC ja, pos1, body[0]);
      pxk_cnJac(PX_MDARGC jb, pos2, body[1]);
      for (int r = 0; r < size; r++) {
        for (int k = 0; k < nv; k++) {
          PXR v = PXK_E(efc_cn_jac, ja + r * nv + k) - PXK_E(efc_cn_jac, jb + r * nv + k);
          PXK_E(efc_J, (r0 + r) * nv + k) = v;
        }
      }
      if (type == PX_EQ_WELD) {
        PXR ts = M(eq_data, PXK_NEQDATA * i + 10);
        PXR quat[4];
        PXR quat1[4];
        PXR quat2[4];
        PXR quat3[4];
        PXR axis[3];
        pxk_cnWeldQuats(PX_MDARGC i, body, quat, quat1);
        pxk_mulQuat(quat2, quat1, quat);
        for (int k = 0; k < 3; k++) {
          PXR c = quat2[1 + k] * ts;
          PXK_E(efc_pos, r0 + 3 + k) = c;
        }
        for (int j = 0; j < nv; j++) {
          for (int k = 0; k < 3; k++) axis[k] = PXK_E(efc_J, (r0 + 3 + k) * nv + j);
          pxk_cnMulQuatAxis(quat2, quat1, axis);
          pxk_mulQuat(quat3, quat2, quat);
          for (int k = 0; k < 3; k++) {
            PXR h = PX_R(0.5) * quat3[1 + k];
            PXK_E(efc_J, (r0 + 3 + k) * nv + j) = h;
          }
        }
        for (int k = 0; k < 3 * nv; k++) {
          PXR v = PXK_E(efc_J, (r0 + 3) * nv + k) * ts;
          PXK_E(efc_J, (r0 + 3) * nv + k) = v;
        }
      }
      for (int r = r0; r < r0 + size; r++) PXK_E(efc_margin, r) = PX_R(0.0);
    } else if (type == PX_EQ_JOINT || type == PX_EQ_TENDON) {
      size = 1;
      if (pxk_cnRoom(PX_MDARGC size) == 0) continue;
      int r0 = PXK_EN(PX_EFC_NEFC);
      int id0 = M(eq_obj1id, i);
      int id1 = M(eq_obj2id, i);
      PXR p0 = PX_ZERO;
      PXR ref0 = PX_ZERO;
      PXR p1 = PX_ZERO;
      PXR ref1 = PX_ZERO;
      // object 0's Jacobian in the row, object 1's in efc_cn_jac
      if (type == PX_EQ_JOINT) {
        p0 = D(qpos, M(jnt_qposadr, id0));
        ref0 = M(qpos0, M(jnt_qposadr, id0));
        for (int k = 0; k < nv; k++) PXK_E(efc_J, r0 * nv + k) = PX_R(0.0);
        PXK_E(efc_J, r0 * nv + M(jnt_dofadr, id0)) = PX_R(1.0);
      } else {
        p0 = D(ten_length, id0);
        ref0 = M(tendon_length0, id0);
        pxk_cnTendonRow(PX_MDARGC r0, id0, PX_R(1.0), 0);
      }
      PXR c = PX_ZERO;
      if (id1 >= 0) {
        for (int k = 0; k < nv; k++) PXK_E(efc_cn_jac, k) = PX_R(0.0);
        if (type == PX_EQ_JOINT) {
          p1 = D(qpos, M(jnt_qposadr, id1));
          ref1 = M(qpos0, M(jnt_qposadr, id1));
          PXK_E(efc_cn_jac, M(jnt_dofadr, id1)) = PX_R(1.0);
        } else {
          p1 = D(ten_length, id1);
          ref1 = M(tendon_length0, id1);
          int adr = M(ten_J_rowadr, id1);
          for (int k = 0; k < M(ten_J_rownnz, id1); k++) {
            PXK_E(efc_cn_jac, M(ten_J_colind, adr + k)) = D(ten_J, adr + k);
          }
        }
        int da = PXK_NEQDATA * i;
        PXR dif = p1 - ref1;
        PXR poly = M(eq_data, da + 1) * dif + M(eq_data, da + 2) * dif * dif;
        poly = poly + M(eq_data, da + 3) * dif * dif * dif;
        poly = poly + M(eq_data, da + 4) * dif * dif * dif * dif;
        c = p0 - ref0 - M(eq_data, da) - poly;
        PXR deriv = M(eq_data, da + 1) + PX_R(2.0) * M(eq_data, da + 2) * dif;
        deriv = deriv + PX_R(3.0) * M(eq_data, da + 3) * dif * dif;
        deriv = deriv + PX_R(4.0) * M(eq_data, da + 4) * dif * dif * dif;
        PXR scl = -deriv;
        for (int k = 0; k < nv; k++) {
          PXR v = PXK_E(efc_J, r0 * nv + k) + PXK_E(efc_cn_jac, k) * scl;
          PXK_E(efc_J, r0 * nv + k) = v;
        }
      } else {
        c = p0 - ref0 - M(eq_data, PXK_NEQDATA * i);
      }
#if PXK_SPARSE_J
      if (pxk_isSparse(PX_MDARG) == 1) {
        pxk_spObjChain(PX_MDARGC r0, type == PX_EQ_TENDON ? 1 : 0, id0, id1);
      }
#endif
      PXK_E(efc_pos, r0) = c;
      PXK_E(efc_margin, r0) = PX_R(0.0);
    }
    if (size > 0) pxk_cnCommit(PX_MDARGC size, PXK_CNSTR_EQUALITY, i, PX_ZERO);
  }
}

// friction loss rows of dofs, then of tendons (mj_instantiateFriction, dense)
PX_FN void pxk_cnFriction(PX_MD) {
  if ((MOPT(disableflags) & PX_DSBL_FRICTIONLOSS) != 0) return;
  int nv = MS(nv);
  for (int i = 0; i < nv; i++) {
    if (M(dof_frictionloss, i) == PX_R(0.0)) continue;
    if (pxk_cnRoom(PX_MDARGC 1) == 0) continue;
    int r0 = PXK_EN(PX_EFC_NEFC);
#if PXK_SPARSE_J
    if (pxk_isSparse(PX_MDARG) == 0)  // the sparse layout reads the chain's columns only
#endif
      for (int k = 0; k < nv; k++) PXK_E(efc_J, r0 * nv + k) = PX_R(0.0);
    PXK_E(efc_J, r0 * nv + i) = PX_R(1.0);
    PXK_E(efc_pos, r0) = PX_R(0.0);
    PXK_E(efc_margin, r0) = PX_R(0.0);
#if PXK_SPARSE_J
    if (pxk_isSparse(PX_MDARG) == 1) pxk_spDofChain(PX_MDARGC r0, i, 1);
#endif
    pxk_cnCommit(PX_MDARGC 1, PXK_CNSTR_FRICTION_DOF, i, M(dof_frictionloss, i));
  }
  for (int i = 0; i < MS(ntendon); i++) {
    if (M(tendon_frictionloss, i) > PX_R(0.0)) {
      if (pxk_cnRoom(PX_MDARGC 1) == 0) continue;
      int r0 = PXK_EN(PX_EFC_NEFC);
      pxk_cnTendonRow(PX_MDARGC r0, i, PX_R(1.0), 0);
#if PXK_SPARSE_J
      if (pxk_isSparse(PX_MDARG) == 1) pxk_spObjChain(PX_MDARGC r0, 1, i, -1);
#endif
      PXK_E(efc_pos, r0) = PX_R(0.0);
      PXK_E(efc_margin, r0) = PX_R(0.0);
      pxk_cnCommit(PX_MDARGC 1, PXK_CNSTR_FRICTION_TENDON, i, M(tendon_frictionloss, i));
    }
  }
}

// one limit row from row PXK_EN(NEFC), its Jacobian already written
PX_FN void pxk_cnLimitRow(PX_MDC int type, int id, PX_REAL dist, PX_REAL margin) {
  int r0 = PXK_EN(PX_EFC_NEFC);
  PXK_E(efc_pos, r0) = dist;
  PXK_E(efc_margin, r0) = margin;
  pxk_cnCommit(PX_MDARGC 1, type, id, PX_ZERO);
}

// joint limits, then tendon limits (mj_instantiateLimit, dense)
PX_FN void pxk_cnLimit(PX_MD) {
  if ((MOPT(disableflags) & PX_DSBL_LIMIT) != 0) return;
  int nv = MS(nv);
  for (int i = 0; i < MS(njnt); i++) {
    if (M(jnt_limited, i) == 0) continue;
    PXR margin = M(jnt_margin, i);
    int type = M(jnt_type, i);
    if (type == PX_JNT_SLIDE || type == PX_JNT_HINGE) {
      PXR value = D(qpos, M(jnt_qposadr, i));
      for (int side = -1; side <= 1; side += 2) {
        PXR sd = PX_TOREAL(side);
        PXR dif = M(jnt_range, 2 * i + (side + 1) / 2) - value;
        PXR dist = sd * dif;
        if (dist < margin) {
          if (pxk_cnRoom(PX_MDARGC 1) == 0) continue;
          int r0 = PXK_EN(PX_EFC_NEFC);
#if PXK_SPARSE_J
          if (pxk_isSparse(PX_MDARG) == 0)  // the sparse layout reads the chain's columns only
#endif
            for (int k = 0; k < nv; k++) PXK_E(efc_J, r0 * nv + k) = PX_R(0.0);
          PXK_E(efc_J, r0 * nv + M(jnt_dofadr, i)) = -sd;
#if PXK_SPARSE_J
          if (pxk_isSparse(PX_MDARG) == 1) pxk_spDofChain(PX_MDARGC r0, M(jnt_dofadr, i), 1);
#endif
          pxk_cnLimitRow(PX_MDARGC PXK_CNSTR_LIMIT_JOINT, i, dist, margin);
        }
      }
    } else if (type == PX_JNT_BALL) {
      int adr = M(jnt_qposadr, i);
      PXR quat[4];
      PXR aa[3];
      PXK_GET(4, quat, D, qpos, adr);
      pxk_normalize4(quat);
      pxk_trnQuat2Vel(aa, quat);
      PXR value = pxk_normalize3(aa);
      PXR rmax = pxk_cnMax(M(jnt_range, 2 * i), M(jnt_range, 2 * i + 1));
      PXR dist = rmax - value;
      if (dist < margin) {
        if (pxk_cnRoom(PX_MDARGC 1) == 0) continue;
        int r0 = PXK_EN(PX_EFC_NEFC);
#if PXK_SPARSE_J
        if (pxk_isSparse(PX_MDARG) == 0)  // the sparse layout reads the chain's columns only
#endif
          for (int k = 0; k < nv; k++) PXK_E(efc_J, r0 * nv + k) = PX_R(0.0);
        for (int k = 0; k < 3; k++) {
          PXR v = aa[k] * PX_R(-1.0);
          PXK_E(efc_J, r0 * nv + M(jnt_dofadr, i) + k) = v;
        }
#if PXK_SPARSE_J
        if (pxk_isSparse(PX_MDARG) == 1) pxk_spDofChain(PX_MDARGC r0, M(jnt_dofadr, i), 3);
#endif
        pxk_cnLimitRow(PX_MDARGC PXK_CNSTR_LIMIT_JOINT, i, dist, margin);
      }
    }
  }
  for (int i = 0; i < MS(ntendon); i++) {
    if (M(tendon_limited, i) == 0) continue;
    PXR value = D(ten_length, i);
    PXR margin = M(tendon_margin, i);
    for (int side = -1; side <= 1; side += 2) {
      PXR sd = PX_TOREAL(side);
      PXR dif = M(tendon_range, 2 * i + (side + 1) / 2) - value;
      PXR dist = sd * dif;
      if (dist < margin) {
        if (pxk_cnRoom(PX_MDARGC 1) == 0) continue;
        int r0 = PXK_EN(PX_EFC_NEFC);
        PXR scl = -sd;
        pxk_cnTendonRow(PX_MDARGC r0, i, scl, 1);
#if PXK_SPARSE_J
        if (pxk_isSparse(PX_MDARG) == 1) pxk_spObjChain(PX_MDARGC r0, 1, i, -1);
#endif
        pxk_cnLimitRow(PX_MDARGC PXK_CNSTR_LIMIT_TENDON, i, dist, margin);
      }
    }
  }
}

// efc_cn_jac rows [ro, ro + nr) = frame rows [fr, fr + nr) times the 3 x nv block at jo, skipping
// zero frame entries (mju_mulMatMat)
PX_FN void pxk_cnFrameMul(PX_MDC int ro, PX_IN(PX_REAL, frame, 9), int fr, int nr, int jo) {
  int nv = MS(nv);
  for (int r = 0; r < nr; r++) {
    for (int k = 0; k < nv; k++) PXK_E(efc_cn_jac, ro + r * nv + k) = PX_R(0.0);
    for (int c = 0; c < 3; c++) {
      PXR f = frame[3 * (fr + r) + c];
      if (f != PX_R(0.0)) {
        for (int k = 0; k < nv; k++) {
          PXR v = PXK_E(efc_cn_jac, ro + r * nv + k) + PXK_E(efc_cn_jac, jo + c * nv + k) * f;
          PXK_E(efc_cn_jac, ro + r * nv + k) = v;
        }
      }
    }
  }
}

#ifdef PX_KERN_C
// C fast path of a contact's Jacobian rows in pxk_cnContact: the rows r0.. of efc_J column by
// column with the same operations per column (the two bodies' Jacobians, their difference, the
// contact-frame rows, the pyramid edges). A column outside both bodies' dof chains has zero
// Jacobians, and its rows come out +0 in the dialect code (0 - 0, 0 + 0 * f, with finite f), so
// only the chain columns are computed, the rest of the rows zeroed (every column when some frame
// or friction entry is not finite; the sparse layout needs no zeros). efc_cn_jac is not written.
PX_FN void pxk_cCnContactJ(const pxModel* m, pxData* d, int r0, int dim, int ell,
                           const PX_REAL* pos, const PX_REAL* frame, const PX_REAL* friction,
                           int b0, int b1) {
  int nv = m->nv;
  int nrow = dim == 1 ? 1 : (ell == 1 ? dim : 2 * (dim - 1));
  PX_REAL* restrict J = d->efc_J + r0 * nv;
  int finite = 1;
  for (int k = 0; k < 9; k++) finite = frame[k] - frame[k] == PX_R(0.0) ? finite : 0;
  for (int k = 0; k < dim - 1; k++) finite = friction[k] - friction[k] == PX_R(0.0) ? finite : 0;
  // the sparse layout reads only the chain's columns (pxk_spPack), all among those written below
  if (pxk_isSparse(m, d) == 0) memset(J, 0, sizeof(PX_REAL) * (size_t)(nrow * nv));
  PX_REAL off0[3];
  PX_REAL off1[3];
  pxk_jacOffset(m, d, off0, pos, b0);
  pxk_jacOffset(m, d, off1, pos, b1);
  int i0 = pxk_jacLastDof(m, d, b0);
  int i1 = pxk_jacLastDof(m, d, b1);
  int nd = dim > 3 ? 6 : 3;
  int nr1 = dim > 1 ? 3 : 1;
  // the columns from the last down: every one, or only the next dof of either chain
  int k = finite == 1 ? (i0 > i1 ? i0 : i1) : nv - 1;
  while (k >= 0) {
    int in0 = k == i0 ? 1 : 0;
    int in1 = k == i1 ? 1 : 0;
    {
      PX_REAL a[6] = {PX_R(0.0), PX_R(0.0), PX_R(0.0), PX_R(0.0), PX_R(0.0), PX_R(0.0)};
      PX_REAL b[6] = {PX_R(0.0), PX_R(0.0), PX_R(0.0), PX_R(0.0), PX_R(0.0), PX_R(0.0)};
      if (in0 == 1) pxk_jacColumn(m, d, a, a + 3, off0, k);
      if (in1 == 1) pxk_jacColumn(m, d, b, b + 3, off1, k);
      PX_REAL dd[6];
      for (int r = 0; r < nd; r++) dd[r] = b[r] - a[r];
      PX_REAL row[6];
      for (int r = 0; r < nr1; r++) {
        row[r] = PX_R(0.0);
        for (int c = 0; c < 3; c++) {
          PX_REAL f = frame[3 * r + c];
          if (f != PX_R(0.0)) row[r] = row[r] + dd[c] * f;
        }
      }
      for (int r = 0; r < dim - 3; r++) {
        row[3 + r] = PX_R(0.0);
        for (int c = 0; c < 3; c++) {
          PX_REAL f = frame[3 * r + c];
          if (f != PX_R(0.0)) row[3 + r] = row[3 + r] + dd[3 + c] * f;
        }
      }
      if (dim == 1) {
        J[k] = row[0];
      } else if (ell == 1) {
        for (int r = 0; r < dim; r++) J[r * nv + k] = row[r];
      } else {
        for (int q = 1; q < dim; q++) {
          PX_REAL f = friction[q - 1];
          PX_REAL nf = -f;
          int r = 2 * (q - 1);
          J[r * nv + k] = row[0] + row[q] * f;
          J[(r + 1) * nv + k] = row[0] + row[q] * nf;
        }
      }
    }
    if (in0 == 1) i0 = m->dof_parentid[i0];
    if (in1 == 1) i1 = m->dof_parentid[i1];
    k = finite == 1 ? (i0 > i1 ? i0 : i1) : k - 1;
  }
}
#endif  // PX_KERN_C

// contact rows (mj_instantiateContact, dense; frictionless and pyramidal cones)
PX_FN void pxk_cnContact(PX_MD) {
  int nv = MS(nv);
  if ((MOPT(disableflags) & PX_DSBL_CONTACT) != 0 || PXK_NCON == 0 || nv == 0) return;
  // efc_cn_jac: jac of geom 0's body [0, 6nv), of geom 1's body [6nv, 12nv), difference
  // [12nv, 18nv) (translation, rotation), contact-frame rows [18nv, 24nv)
  int ja = 0;
  int jb = 6 * nv;
  int jd = 12 * nv;
  int jc = 18 * nv;
  for (int i = 0; i < PXK_NCON; i++) {
    if (PXK_CON(i).exclude != 0) continue;
    int dim = PXK_CON(i).dim;
    int ell = MOPT(cone) == PX_CONE_ELLIPTIC ? 1 : 0;
    int nrow = dim == 1 ? 1 : (ell == 1 ? dim : 2 * (dim - 1));
#if PXK_SPARSE_J
    // the sparse layout: a contact whose bodies share every dof has no rows (MuJoCo's exclude 3)
    int spb0 = M(geom_bodyid, PXK_CON(i).geom[0]);
    int spb1 = M(geom_bodyid, PXK_CON(i).geom[1]);
    int sparse = pxk_isSparse(PX_MDARG);
    if (sparse == 1 && pxk_spMergeChain(PX_MDARGC - 1, spb0, spb1, 1) == 0) {
      PXK_CON(i).efc_address = -1;
      PXK_CON(i).exclude = 3;
      continue;
    }
#endif
    if (pxk_cnRoom(PX_MDARGC nrow) == 0) {
      PXK_CON(i).efc_address = -1;
      continue;
    }
    int r0 = PXK_EN(PX_EFC_NEFC);
    PXK_CON(i).efc_address = r0;
    PXR pos[3];
    PXR frame[9];
    for (int k = 0; k < 3; k++) pos[k] = PXK_CON(i).pos[k];
    for (int k = 0; k < 9; k++) frame[k] = PXK_CON(i).frame[k];
#ifdef PX_KERN_C
    int b0 = M(geom_bodyid, PXK_CON(i).geom[0]);
    int b1 = M(geom_bodyid, PXK_CON(i).geom[1]);
    PXR dist = PXK_CON(i).dist;
    PXR cm = PXK_CON(i).includemargin;
    pxk_cCnContactJ(m, d, r0, dim, ell, pos, frame, PXK_CON(i).friction, b0, b1);
    (void)ja;
    (void)jb;
    (void)jd;
    (void)jc;
    if (dim == 1) {
      PXK_E(efc_pos, r0) = dist;
      PXK_E(efc_margin, r0) = cm;
#if PXK_SPARSE_J
      if (sparse == 1) pxk_spBodyChain(PX_MDARGC r0, spb0, spb1, 1);
#endif
      pxk_cnCommit(PX_MDARGC 1, PXK_CNSTR_CONTACT_FRICTIONLESS, i, PX_ZERO);
    } else if (ell == 1) {
      for (int r = 0; r < dim; r++) {
        PXK_E(efc_pos, r0 + r) = r == 0 ? dist : PX_R(0.0);
        PXK_E(efc_margin, r0 + r) = r == 0 ? cm : PX_R(0.0);
      }
#if PXK_SPARSE_J
      if (sparse == 1) pxk_spBodyChain(PX_MDARGC r0, spb0, spb1, 1);
#endif
      pxk_cnCommit(PX_MDARGC dim, PXK_CNSTR_CONTACT_ELLIPTIC, i, PX_ZERO);
    } else {
      for (int k = 1; k < dim; k++) {
        int r = PXK_EN(PX_EFC_NEFC);
        PXK_E(efc_pos, r) = dist;
        PXK_E(efc_pos, r + 1) = dist;
        PXK_E(efc_margin, r) = cm;
        PXK_E(efc_margin, r + 1) = cm;
#if PXK_SPARSE_J
        if (sparse == 1) pxk_spBodyChain(PX_MDARGC r, spb0, spb1, 1);
#endif
        pxk_cnCommit(PX_MDARGC 2, PXK_CNSTR_CONTACT_PYRAMIDAL, i, PX_ZERO);
      }
    }
#else
    int b0 = M(geom_bodyid, PXK_CON(i).geom[0]);
    int b1 = M(geom_bodyid, PXK_CON(i).geom[1]);
    pxk_cnJac(PX_MDARGC ja, pos, b0);
    pxk_cnJac(PX_MDARGC jb, pos, b1);
    int nd = dim > 3 ? 6 : 3;
    for (int r = 0; r < nd; r++) {
      for (int k = 0; k < nv; k++) {
        PXR v = PXK_E(efc_cn_jac, jb + r * nv + k) - PXK_E(efc_cn_jac, ja + r * nv + k);
        PXK_E(efc_cn_jac, jd + r * nv + k) = v;
      }
    }
    pxk_cnFrameMul(PX_MDARGC jc, frame, 0, dim > 1 ? 3 : 1, jd);
    if (dim > 3) pxk_cnFrameMul(PX_MDARGC jc + 3 * nv, frame, 0, dim - 3, jd + 3 * nv);
    PXR dist = PXK_CON(i).dist;
    PXR cm = PXK_CON(i).includemargin;
    if (dim == 1) {
      for (int k = 0; k < nv; k++) PXK_E(efc_J, r0 * nv + k) = PXK_E(efc_cn_jac, jc + k);
      PXK_E(efc_pos, r0) = dist;
      PXK_E(efc_margin, r0) = cm;
#if PXK_SPARSE_J
      if (sparse == 1) pxk_spBodyChain(PX_MDARGC r0, spb0, spb1, 1);
#endif
      pxk_cnCommit(PX_MDARGC 1, PXK_CNSTR_CONTACT_FRICTIONLESS, i, PX_ZERO);
    } else if (ell == 1) {
      for (int r = 0; r < dim; r++) {
        for (int k = 0; k < nv; k++) {
          PXK_E(efc_J, (r0 + r) * nv + k) = PXK_E(efc_cn_jac, jc + r * nv + k);
        }
        PXK_E(efc_pos, r0 + r) = r == 0 ? dist : PX_R(0.0);
        PXK_E(efc_margin, r0 + r) = r == 0 ? cm : PX_R(0.0);
      }
#if PXK_SPARSE_J
      if (sparse == 1) pxk_spBodyChain(PX_MDARGC r0, spb0, spb1, 1);
#endif
      pxk_cnCommit(PX_MDARGC dim, PXK_CNSTR_CONTACT_ELLIPTIC, i, PX_ZERO);
    } else {
      for (int k = 1; k < dim; k++) {
        int r = PXK_EN(PX_EFC_NEFC);
        PXR f = PXK_CON(i).friction[k - 1];
        PXR nf = -f;
        for (int c = 0; c < nv; c++) {
          PXR p = PXK_E(efc_cn_jac, jc + c) + PXK_E(efc_cn_jac, jc + k * nv + c) * f;
          PXR q = PXK_E(efc_cn_jac, jc + c) + PXK_E(efc_cn_jac, jc + k * nv + c) * nf;
          PXK_E(efc_J, r * nv + c) = p;
          PXK_E(efc_J, (r + 1) * nv + c) = q;
        }
        PXK_E(efc_pos, r) = dist;
        PXK_E(efc_pos, r + 1) = dist;
        PXK_E(efc_margin, r) = cm;
        PXK_E(efc_margin, r + 1) = cm;
#if PXK_SPARSE_J
        if (sparse == 1) pxk_spBodyChain(PX_MDARGC r, spb0, spb1, 1);
#endif
        pxk_cnCommit(PX_MDARGC 2, PXK_CNSTR_CONTACT_PYRAMIDAL, i, PX_ZERO);
      }
    }
#endif  // PX_KERN_C
  }
}

// adhesion forces (mj_adhesion, part of mj_passive): every adhesive contact, with rows or in the
// gap, pulls its geoms together along its normal: qfrc_adhesion = sum over them of
// -adhesion J_n' (J_n: the normal row of the contact Jacobian, as pxk_cnContact builds it), then
// qfrc_passive is summed again with it in mj_passive's order; returns 1 when any contact did
PX_FN int pxk_cnAdhesion(PX_MD) {
  int nv = MS(nv);
  if ((MOPT(disableflags) & PX_DSBL_CONTACT) != 0 || PXK_NCON == 0 || nv == 0) return 0;
  // mj_passive skips every passive force when springs and dampers are both disabled
  if ((MOPT(disableflags) & PX_DSBL_SPRING) != 0 && (MOPT(disableflags) & PX_DSBL_DAMPER) != 0) {
    return 0;
  }
  int any = 0;
  for (int i = 0; i < PXK_NCON; i++) {
    if (PXK_CON(i).adhesion != PX_R(0.0) && PXK_CON(i).exclude <= 1) any = 1;
  }
  if (any == 0) return 0;
  int ja = 0;
  int jb = 6 * nv;
  int jd = 12 * nv;
  int jc = 18 * nv;
  for (int i = 0; i < PXK_NCON; i++) {
    if (PXK_CON(i).adhesion == PX_R(0.0) || PXK_CON(i).exclude > 1) continue;
    PXR pos[3];
    PXR frame[9];
    for (int k = 0; k < 3; k++) pos[k] = PXK_CON(i).pos[k];
    for (int k = 0; k < 9; k++) frame[k] = PXK_CON(i).frame[k];
    pxk_cnJac(PX_MDARGC ja, pos, M(geom_bodyid, PXK_CON(i).geom[0]));
    pxk_cnJac(PX_MDARGC jb, pos, M(geom_bodyid, PXK_CON(i).geom[1]));
    for (int r = 0; r < 3; r++) {
      for (int k = 0; k < nv; k++) {
        PXR v = PXK_E(efc_cn_jac, jb + r * nv + k) - PXK_E(efc_cn_jac, ja + r * nv + k);
        PXK_E(efc_cn_jac, jd + r * nv + k) = v;
      }
    }
    pxk_cnFrameMul(PX_MDARGC jc, frame, 0, 1, jd);
    PXR scl = -PXK_CON(i).adhesion;
    for (int k = 0; k < nv; k++) {
      PXR v = D(qfrc_adhesion, k) + PXK_E(efc_cn_jac, jc + k) * scl;
      D(qfrc_adhesion, k) = v;
    }
  }
  int parts = pxk_psParts(PX_MDARG);
  pxk_psTotals(PX_MDARGC parts / 2, 1, parts % 2);
  return 1;
}

//---------------------------------- parameters ----------------------------------------------------

// approximate diagonal of A = J inv(M) J' from the bodies' and dofs' invweight0 (mj_diagApprox)
PX_FN void pxk_cnDiagApprox(PX_MD) {
  int weldcnt = 0;
  int nefc = PXK_EN(PX_EFC_NEFC);
  for (int i = 0; i < nefc; i++) {
    int id = PXK_E(efc_id, i);
    int type = PXK_E(efc_type, i);
    if (type == PXK_CNSTR_EQUALITY) {
      int et = M(eq_type, id);
      if (et == PX_EQ_CONNECT || et == PX_EQ_WELD) {
        int b1 = M(eq_obj1id, id);
        int b2 = M(eq_obj2id, id);
        if (M(eq_objtype, id) == PX_OBJ_SITE) {
          b1 = M(site_bodyid, b1);
          b2 = M(site_bodyid, b2);
        }
        int rot = 0;
        if (et == PX_EQ_WELD) {
          rot = weldcnt > 2 ? 1 : 0;
          weldcnt = (weldcnt + 1) % 6;
        }
        PXR a = M(body_invweight0, 2 * b1 + rot) + M(body_invweight0, 2 * b2 + rot);
        PXK_E(efc_diagA, i) = a;
      } else {
        int o1 = M(eq_obj1id, id);
        int o2 = M(eq_obj2id, id);
        PXR a = et == PX_EQ_JOINT ? M(dof_invweight0, M(jnt_dofadr, o1)) : M(tendon_invweight0, o1);
        if (o2 >= 0) {
          PXR b =
              et == PX_EQ_JOINT ? M(dof_invweight0, M(jnt_dofadr, o2)) : M(tendon_invweight0, o2);
          a = a + b;
        }
        PXK_E(efc_diagA, i) = a;
      }
    } else if (type == PXK_CNSTR_FRICTION_DOF) {
      PXK_E(efc_diagA, i) = M(dof_invweight0, id);
    } else if (type == PXK_CNSTR_LIMIT_JOINT) {
      PXK_E(efc_diagA, i) = M(dof_invweight0, M(jnt_dofadr, id));
    } else if (type == PXK_CNSTR_FRICTION_TENDON || type == PXK_CNSTR_LIMIT_TENDON) {
      PXK_E(efc_diagA, i) = M(tendon_invweight0, id);
    } else {
      int dim = PXK_CON(id).dim;
      PXR tran = PX_ZERO;
      PXR rot = PX_ZERO;
      for (int side = 0; side < 2; side++) {
        int b = M(geom_bodyid, PXK_CON(id).geom[side]);
        tran += M(body_invweight0, 2 * b) * PX_R(1.0);
        rot += M(body_invweight0, 2 * b + 1) * PX_R(1.0);
      }
      if (type == PXK_CNSTR_CONTACT_FRICTIONLESS) {
        PXK_E(efc_diagA, i) = tran;
      } else if (type == PXK_CNSTR_CONTACT_ELLIPTIC) {
        for (int j = 0; j < dim; j++) PXK_E(efc_diagA, i + j) = j < 3 ? tran : rot;
        i += dim - 1;
      } else {
        for (int j = 0; j < dim - 1; j++) {
          PXR fri = PXK_CON(id).friction[j];
          PXR w = j < 2 ? tran : rot;
          PXR a = tran + fri * fri * w;
          PXK_E(efc_diagA, i + 2 * j) = a;
          PXK_E(efc_diagA, i + 2 * j + 1) = a;
        }
        i += 2 * dim - 3;
      }
    }
  }
}

// solref (2), solreffriction (2) and solimp (5) of row i, checked and clamped (getsolparam)
PX_FN void pxk_cnSolParam(PX_MDC int i, PX_OUT(PX_REAL, ref, 2), PX_OUT(PX_REAL, reff, 2),
                          PX_OUT(PX_REAL, imp, 5)) {
  int id = PXK_E(efc_id, i);
  int type = PXK_E(efc_type, i);
  reff[0] = PX_R(0.0);
  reff[1] = PX_R(0.0);
  if (type == PXK_CNSTR_EQUALITY) {
    PXK_GET(2, ref, M, eq_solref, 2 * id);
    PXK_GET(5, imp, M, eq_solimp, 5 * id);
  } else if (type == PXK_CNSTR_LIMIT_JOINT) {
    PXK_GET(2, ref, M, jnt_solref, 2 * id);
    PXK_GET(5, imp, M, jnt_solimp, 5 * id);
  } else if (type == PXK_CNSTR_FRICTION_DOF) {
    PXK_GET(2, ref, M, dof_solref, 2 * id);
    PXK_GET(5, imp, M, dof_solimp, 5 * id);
  } else if (type == PXK_CNSTR_LIMIT_TENDON) {
    PXK_GET(2, ref, M, tendon_solref_lim, 2 * id);
    PXK_GET(5, imp, M, tendon_solimp_lim, 5 * id);
  } else if (type == PXK_CNSTR_FRICTION_TENDON) {
    PXK_GET(2, ref, M, tendon_solref_fri, 2 * id);
    PXK_GET(5, imp, M, tendon_solimp_fri, 5 * id);
  } else {
    for (int k = 0; k < 2; k++) {
      ref[k] = PXK_CON(id).solref[k];
      reff[k] = PXK_CON(id).solreffriction[k];
    }
    for (int k = 0; k < 5; k++) imp[k] = PXK_CON(id).solimp[k];
  }
  // standard and direct formats cannot be mixed: MuJoCo's defaults replace a mixed solref
  if ((ref[0] > PX_R(0.0)) != (ref[1] > PX_R(0.0))) {
    ref[0] = PX_R(0.02);
    ref[1] = PX_R(1.0);
  }
  PXR h2 = PX_R(2.0) * MOPT(timestep);
  int refsafe = (MOPT(disableflags) & PX_DSBL_REFSAFE) == 0 ? 1 : 0;
  if (refsafe == 1 && ref[0] > PX_R(0.0)) ref[0] = pxk_cnMax(ref[0], h2);
  if ((reff[0] > PX_R(0.0)) != (reff[1] > PX_R(0.0))) {
    reff[0] = PX_R(0.0);
    reff[1] = PX_R(0.0);
  }
  if (refsafe == 1 && reff[0] > PX_R(0.0)) reff[0] = pxk_cnMax(reff[0], h2);
  imp[0] = pxk_cnMin(PXK_MAXIMP, pxk_cnMax(PXK_MINIMP, imp[0]));
  imp[1] = pxk_cnMin(PXK_MAXIMP, pxk_cnMax(PXK_MINIMP, imp[1]));
  imp[2] = pxk_cnMax(PX_ZERO, imp[2]);
  imp[3] = pxk_cnMin(PXK_MAXIMP, pxk_cnMax(PXK_MINIMP, imp[3]));
  imp[4] = pxk_cnMax(PX_R(1.0), imp[4]);
}

// a to the power b, exact for b = 1 and 2 (MuJoCo's power)
PX_FN PX_REAL pxk_cnPower(PX_REAL a, PX_REAL b) {
  if (b == PX_R(1.0)) return a;
  if (b == PX_R(2.0)) {
    PXR r = a * a;
    return r;
  }
  return pxk_pow(a, b);
}

// impedance and its derivative at pos (getimpedance); res = (imp, impP)
PX_FN void pxk_cnImpedance(PX_IN(PX_REAL, solimp, 5), PX_REAL pos, PX_REAL margin,
                           PX_OUT(PX_REAL, res, 2)) {
  if (solimp[0] == solimp[1] || solimp[2] <= PXK_MINVAL) {
    PXR s = solimp[0] + solimp[1];
    res[0] = PX_R(0.5) * s;
    res[1] = PX_R(0.0);
    return;
  }
  PXR pm = pos - margin;
  PXR x = pm / solimp[2];
  PXR sgn = PX_R(1.0);
  if (x < PX_R(0.0)) {
    x = -x;
    sgn = PX_R(-1.0);
  }
  if (x >= PX_R(1.0) || x <= PX_R(0.0)) {
    res[0] = x >= PX_R(1.0) ? solimp[1] : solimp[0];
    res[1] = PX_R(0.0);
    return;
  }
  PXR y = PX_ZERO;
  PXR yP = PX_ZERO;
  if (solimp[4] == PX_R(1.0)) {
    y = x;
    yP = PX_R(1.0);
  } else if (x <= solimp[3]) {
    PXR p1 = solimp[4] - PX_R(1.0);
    PXR a = PX_R(1.0) / pxk_cnPower(solimp[3], p1);
    PXR px = pxk_cnPower(x, solimp[4]);
    y = a * px;
    PXR px1 = pxk_cnPower(x, p1);
    yP = solimp[4] * a * px1;
  } else {
    PXR p1 = solimp[4] - PX_R(1.0);
    PXR om = PX_R(1.0) - solimp[3];
    PXR b = PX_R(1.0) / pxk_cnPower(om, p1);
    PXR omx = PX_R(1.0) - x;
    PXR px = pxk_cnPower(omx, solimp[4]);
    y = PX_R(1.0) - b * px;
    PXR px1 = pxk_cnPower(omx, p1);
    yP = solimp[4] * b * px1;
  }
  PXR w = solimp[1] - solimp[0];
  res[0] = solimp[0] + y * w;
  res[1] = yP * sgn * w / solimp[2];
}

// efc_R, efc_D, efc_KBIP, the contacts' mu, efc_diagA adjusted (mj_makeImpedance)
PX_FN void pxk_cnMakeImpedance(PX_MD) {
  int nefc = PXK_EN(PX_EFC_NEFC);
  PXR ref[2];
  PXR reff[2];
  PXR imp[5];
  PXR ip[2];
  for (int i = 0; i < nefc; i++) {
    pxk_cnSolParam(PX_MDARGC i, ref, reff, imp);
    int id = PXK_E(efc_id, i);
    int type = PXK_E(efc_type, i);
    int dim = 1;
    PXR pos = PXK_E(efc_pos, i);
    if (type == PXK_CNSTR_CONTACT_ELLIPTIC) {
      dim = PXK_CON(id).dim;
    } else if (type == PXK_CNSTR_CONTACT_PYRAMIDAL) {
      dim = 2 * (PXK_CON(id).dim - 1);
    } else if (type == PXK_CNSTR_EQUALITY &&
               (M(eq_type, id) == PX_EQ_WELD || M(eq_type, id) == PX_EQ_CONNECT)) {
      dim = M(eq_type, id) == PX_EQ_WELD ? 6 : 3;
      PXR nn = PX_ZERO;
      PXK_DOT_BODY(nn, PXK_AE, efc_pos, i, PXK_AE, efc_pos, i, dim)
      pos = PX_SQRT(nn);
    }
    pxk_cnImpedance(imp, pos, PXK_E(efc_margin, i), ip);
    for (int j = 0; j < dim; j++) {
      PXR om = PX_R(1.0) - ip[0];
      PXR r = om * PXK_E(efc_diagA, i + j) / ip[0];
      PXK_E(efc_R, i + j) = pxk_cnMax(PXK_MINVAL, r);
      int tp = PXK_E(efc_type, i + j);
      int ellf = (tp == PXK_CNSTR_CONTACT_ELLIPTIC && j > 0) ? 1 : 0;
      PXR r0 = ref[0];
      PXR r1 = ref[1];
      if (ellf == 1 && (reff[0] != PX_R(0.0) || reff[1] != PX_R(0.0))) {
        r0 = reff[0];
        r1 = reff[1];
      }
      int k4 = 4 * (i + j);
      if (tp == PXK_CNSTR_FRICTION_DOF || tp == PXK_CNSTR_FRICTION_TENDON || ellf == 1) {
        PXK_E(efc_KBIP, k4) = PX_R(0.0);
      } else if (r0 > PX_R(0.0)) {
        PXR den = imp[1] * imp[1] * r0 * r0 * r1 * r1;
        PXR k = PX_R(1.0) / pxk_cnMax(PXK_MINVAL, den);
        PXK_E(efc_KBIP, k4) = k;
      } else {
        PXR den = imp[1] * imp[1];
        PXR k = -r0 / pxk_cnMax(PXK_MINVAL, den);
        PXK_E(efc_KBIP, k4) = k;
      }
      if (r1 > PX_R(0.0)) {
        PXR den = imp[1] * r0;
        PXR b = PX_R(2.0) / pxk_cnMax(PXK_MINVAL, den);
        PXK_E(efc_KBIP, k4 + 1) = b;
      } else {
        PXR b = -r1 / pxk_cnMax(PXK_MINVAL, imp[1]);
        PXK_E(efc_KBIP, k4 + 1) = b;
      }
      PXK_E(efc_KBIP, k4 + 2) = ip[0];
      PXK_E(efc_KBIP, k4 + 3) = ip[1];
    }
    i += dim - 1;
  }
  for (int i = PXK_EN(PX_EFC_NE) + PXK_EN(PX_EFC_NF); i < nefc; i++) {
    int type = PXK_E(efc_type, i);
    if (type == PXK_CNSTR_CONTACT_PYRAMIDAL || type == PXK_CNSTR_CONTACT_ELLIPTIC) {
      int id = PXK_E(efc_id, i);
      int dim = PXK_CON(id).dim;
      PXR r1 = PXK_E(efc_R, i) / pxk_cnMax(PXK_MINVAL, MOPT(impratio));
      PXK_E(efc_R, i + 1) = r1;
      PXR q = r1 / PXK_E(efc_R, i);
      PXR mu = PXK_CON(id).friction[0] * PX_SQRT(q);
      PXK_CON(id).mu = mu;
      if (type == PXK_CNSTR_CONTACT_ELLIPTIC) {
        for (int j = 1; j < dim - 1; j++) {
          PXR f0 = PXK_CON(id).friction[0];
          PXR fj = PXK_CON(id).friction[j];
          PXR num = PXK_E(efc_R, i + 1) * f0 * f0;
          PXR den = fj * fj;
          PXK_E(efc_R, i + j + 1) = num / den;
        }
        i += dim - 1;
      } else {
        PXR rpy = PX_R(2.0) * mu * mu * PXK_E(efc_R, i);
        for (int j = 0; j < 2 * (dim - 1); j++) PXK_E(efc_R, i + j) = rpy;
        i += 2 * (dim - 1) - 1;
      }
    }
  }
  for (int i = 0; i < nefc; i++) {
    PXR dd = PX_R(1.0) / PXK_E(efc_R, i);
    PXK_E(efc_D, i) = dd;
  }
  for (int i = 0; i < nefc; i++) {
    PXR ii = PXK_E(efc_KBIP, 4 * i + 2);
    PXR om = PX_R(1.0) - ii;
    PXR a = PXK_E(efc_R, i) * ii / om;
    PXK_E(efc_diagA, i) = a;
  }
}

// mj_makeConstraint (dense): the rows in MuJoCo's order, then their parameters; when the rows
// needed exceed the capacity, none are kept and CNSTRFULL is counted with the number needed
PX_FN void pxk_makeConstraint(PX_MD) {
  PXK_EN(PX_EFC_NEFC) = 0;
  PXK_EN(PX_EFC_NE) = 0;
  PXK_EN(PX_EFC_NF) = 0;
  PXK_EN(PX_EFC_NL) = 0;
  PXK_EN(PX_EFC_NEED) = 0;
  if ((MOPT(disableflags) & PX_DSBL_CONSTRAINT) != 0) return;
  pxk_cnEquality(PX_MDARG);
  pxk_cnFriction(PX_MDARG);
  pxk_cnLimit(PX_MDARG);
  pxk_cnContact(PX_MDARG);
  if (PXK_EN(PX_EFC_NEED) > pxk_cnCapacity(PX_MDARG)) {
    D(warning, 2 * PXK_WARN_CNSTRFULL) = PXK_EN(PX_EFC_NEED);
    D(warning, 2 * PXK_WARN_CNSTRFULL + 1) = D(warning, 2 * PXK_WARN_CNSTRFULL + 1) + 1;
    PXK_EN(PX_EFC_NEFC) = 0;
    PXK_EN(PX_EFC_NE) = 0;
    PXK_EN(PX_EFC_NF) = 0;
    PXK_EN(PX_EFC_NL) = 0;
    for (int i = 0; i < PXK_NCON; i++) PXK_CON(i).efc_address = -1;
    return;
  }
  if (PXK_EN(PX_EFC_NEFC) == 0) return;
#if PXK_SPARSE_J
  // J row supernodes: the 0/1 flags of pxk_spPack summed from the end (rows after r sharing r's
  // columns)
  if (pxk_isSparse(PX_MDARG) == 1) {
    for (int r = PXK_EN(PX_EFC_NEFC) - 2; r >= 0; r--) {
      if (PXK_E(efc_J_rowsuper, r) != 0) {
        PXK_E(efc_J_rowsuper, r) = PXK_E(efc_J_rowsuper, r) + PXK_E(efc_J_rowsuper, r + 1);
      }
    }
  }
#endif
  pxk_cnDiagApprox(PX_MDARG);
  pxk_cnMakeImpedance(PX_MDARG);
}

//---------------------------------- reference -----------------------------------------------------

// res (3) = the 3 x nv block at efc_cn_jac[o] times qvel (mju_mulMatVec)
PX_FN void pxk_cnMulJacQvel(PX_MDC PX_OUT(PX_REAL, res, 3), int o) {
  int nv = MS(nv);
  for (int r = 0; r < 3; r++) {
    PXR s = PX_ZERO;
    PXK_DOT_BODY(s, PXK_AE, efc_cn_jac, o + r * nv, PXK_AD, qvel, 0, nv)
    res[r] = s;
  }
}

// dense mj_jacDot of a point on body into efc_cn_jac[o] (translation rows 0-2, rotation 3-5)
PX_FN void pxk_cnJacDot(PX_MDC int o, PX_IN(PX_REAL, point, 3), int body) {
  int nv = MS(nv);
  for (int k = 0; k < 6 * nv; k++) PXK_E(efc_cn_jac, o + k) = PX_R(0.0);
  PXR offset[3];
  PXR plin[3];
  PXR jp[3];
  PXR jr[3];
  pxk_jacOffset(PX_MDARGC offset, point, body);
  pxk_jacDotPointVel(PX_MDARGC plin, point, body);
  for (int i = pxk_jacLastDof(PX_MDARGC body); i >= 0; i = M(dof_parentid, i)) {
    pxk_jacDotColumn(PX_MDARGC jp, jr, offset, plin, i);
    for (int r = 0; r < 3; r++) {
      PXR a = PXK_E(efc_cn_jac, o + r * nv + i) + jp[r];
      PXK_E(efc_cn_jac, o + r * nv + i) = a;
      PXR b = PXK_E(efc_cn_jac, o + (3 + r) * nv + i) + jr[r];
      PXK_E(efc_cn_jac, o + (3 + r) * nv + i) = b;
    }
  }
}

// res = 0.5 q (0, vel) (mju_derivQuat)
PX_FN void pxk_cnDerivQuat(PX_OUT(PX_REAL, res, 4), PX_IN(PX_REAL, quat, 4),
                           PX_IN(PX_REAL, vel, 3)) {
  PXR a = -vel[0] * quat[1] - vel[1] * quat[2] - vel[2] * quat[3];
  PXR b = vel[0] * quat[0] + vel[1] * quat[3] - vel[2] * quat[2];
  PXR c = -vel[0] * quat[3] + vel[1] * quat[0] + vel[2] * quat[1];
  PXR e = vel[0] * quat[2] - vel[1] * quat[1] + vel[2] * quat[0];
  res[0] = PX_R(0.5) * a;
  res[1] = PX_R(0.5) * b;
  res[2] = PX_R(0.5) * c;
  res[3] = PX_R(0.5) * e;
}

// efc_aref -= Jdot qvel for the rows of connect and weld constraints (mj_Jdotv, dense)
PX_FN void pxk_cnJdotv(PX_MD) {
  int nv = MS(nv);
  int ne = PXK_EN(PX_EFC_NE);
  if (ne == 0 || nv == 0) return;
  int j1 = 0;
  int j2 = 6 * nv;
  int row = 0;
  while (row < ne) {
    int eq = PXK_E(efc_id, row);
    int type = M(eq_type, eq);
    if (type == PX_EQ_CONNECT || type == PX_EQ_WELD) {
      PXR pos1[3];
      PXR pos2[3];
      int body[2];
      pxk_cnAnchors(PX_MDARGC eq, pos1, pos2, body);
      pxk_cnJacDot(PX_MDARGC j1, pos1, body[0]);
      pxk_cnJacDot(PX_MDARGC j2, pos2, body[1]);
      PXR jdv1[3];
      PXR jdv2[3];
      PXR jrdv1[3];
      PXR jrdv2[3];
      for (int k = 0; k < 3; k++) {
        jrdv1[k] = PX_R(0.0);
        jrdv2[k] = PX_R(0.0);
      }
      pxk_cnMulJacQvel(PX_MDARGC jdv1, j1);
      pxk_cnMulJacQvel(PX_MDARGC jdv2, j2);
      if (type == PX_EQ_WELD) {
        pxk_cnMulJacQvel(PX_MDARGC jrdv1, j1 + 3 * nv);
        pxk_cnMulJacQvel(PX_MDARGC jrdv2, j2 + 3 * nv);
      }
      for (int k = 0; k < 3; k++) {
        PXR dj = jdv1[k] - jdv2[k];
        PXR a = PXK_E(efc_aref, row + k) - dj;
        PXK_E(efc_aref, row + k) = a;
      }
      row += 3;
      if (type == PX_EQ_WELD) {
        PXR ts = M(eq_data, PXK_NEQDATA * eq + 10);
        PXR q0r[4];
        PXR negq1[4];
        pxk_cnWeldQuats(PX_MDARGC eq, body, q0r, negq1);
        PXR om1[3];
        PXR om2[3];
        PXR dom[3];
        for (int k = 0; k < 3; k++) {
          om1[k] = D(cvel, 6 * body[0] + k);
          om2[k] = D(cvel, 6 * body[1] + k);
          dom[k] = om1[k] - om2[k];
        }
        PXR qf0[4];
        PXR qf1[4];
        PXR qa[4];
        PXR qb[4];
        if (M(eq_objtype, eq) == PX_OBJ_BODY) {
          PXK_GET(4, qf0, D, xquat, 4 * body[0]);
          PXK_GET(4, qf1, D, xquat, 4 * body[1]);
        } else {
          PXK_GET(4, qa, D, xquat, 4 * body[0]);
          PXK_GET(4, qb, M, site_quat, 4 * M(eq_obj1id, eq));
          pxk_mulQuat(qf0, qa, qb);
          PXK_GET(4, qa, D, xquat, 4 * body[1]);
          PXK_GET(4, qb, M, site_quat, 4 * M(eq_obj2id, eq));
          pxk_mulQuat(qf1, qa, qb);
        }
        PXR qdot0[4];
        pxk_cnDerivQuat(qdot0, qf0, om1);
        PXR qdot0r[4];
        if (M(eq_objtype, eq) == PX_OBJ_BODY) {
          PXK_GET(4, qb, M, eq_data, PXK_NEQDATA * eq + 6);
          pxk_mulQuat(qdot0r, qdot0, qb);
        } else {
          for (int k = 0; k < 4; k++) qdot0r[k] = qdot0[k];
        }
        PXR qdot1[4];
        PXR negqdot1[4];
        pxk_cnDerivQuat(qdot1, qf1, om2);
        negqdot1[0] = qdot1[0];
        negqdot1[1] = -qdot1[1];
        negqdot1[2] = -qdot1[2];
        negqdot1[3] = -qdot1[3];
        PXR djr[3];
        for (int k = 0; k < 3; k++) djr[k] = jrdv1[k] - jrdv2[k];
        PXR ta[4];
        PXR t1[4];
        PXR t2[4];
        PXR t3[4];
        pxk_cnMulQuatAxis(ta, negqdot1, dom);
        pxk_mulQuat(t1, ta, q0r);
        pxk_cnMulQuatAxis(ta, negq1, djr);
        pxk_mulQuat(t2, ta, q0r);
        pxk_cnMulQuatAxis(ta, negq1, dom);
        pxk_mulQuat(t3, ta, qdot0r);
        for (int k = 0; k < 3; k++) {
          PXR s = t1[1 + k] + t2[1 + k] + t3[1 + k];
          PXR c = PX_R(0.5) * s * ts;
          PXR a = PXK_E(efc_aref, row + k) - c;
          PXK_E(efc_aref, row + k) = a;
        }
        row += 3;
      }
    } else {
      while (row < ne && PXK_E(efc_id, row) == eq) row++;
    }
  }
}

// the relative surface velocity of the contacting geoms added to the contact rows of efc_vel, in
// the tangent plane and about the normal (mj_addSurfaceVel)
PX_FN void pxk_cnSurfaceVel(PX_MD) {
  for (int i = 0; i < PXK_NCON; i++) {
    int adr = PXK_CON(i).efc_address;
    if (adr < 0) continue;
    PXR svel[3];
    PXR sang[3];
    for (int k = 0; k < 3; k++) {
      svel[k] = PX_R(0.0);
      sang[k] = PX_R(0.0);
    }
    int isactive = 0;
    for (int side = 0; side < 2; side++) {
      int g = PXK_CON(i).geom[side];
      if (g < 0) continue;
      int nz = 0;
      for (int k = 0; k < 6; k++) {
        if (M(geom_surfacevel, 6 * g + k) != PX_R(0.0)) nz = 1;
      }
      if (nz == 0) continue;
      isactive = 1;
      PXR sgn = side == 1 ? PX_R(1.0) : PX_R(-1.0);
      PXR mat[9];
      PXR v[3];
      PXR vw[3];
      PXR ww[3];
      PXR arm[3];
      PXR wxr[3];
      PXK_GET(9, mat, D, geom_xmat, 9 * g);
      PXK_GET(3, v, M, geom_surfacevel, 6 * g);
      pxk_mulMatVec3(vw, mat, v);
      PXK_GET(3, v, M, geom_surfacevel, 6 * g + 3);
      pxk_mulMatVec3(ww, mat, v);
      for (int k = 0; k < 3; k++) arm[k] = PXK_CON(i).pos[k] - D(geom_xpos, 3 * g + k);
      pxk_cross(wxr, ww, arm);
      for (int k = 0; k < 3; k++) {
        vw[k] += wxr[k];
        svel[k] += vw[k] * sgn;
        sang[k] += ww[k] * sgn;
      }
    }
    if (isactive == 0) continue;
    PXR frame[9];
    PXR cs[6];
    PXR t[3];
    for (int k = 0; k < 9; k++) frame[k] = PXK_CON(i).frame[k];
    pxk_mulMatVec3(t, frame, svel);
    for (int k = 0; k < 3; k++) cs[k] = t[k];
    pxk_mulMatVec3(t, frame, sang);
    for (int k = 0; k < 3; k++) cs[3 + k] = t[k];
    cs[0] = PX_R(0.0);
    cs[4] = PX_R(0.0);
    cs[5] = PX_R(0.0);
    int dim = PXK_CON(i).dim;
    if (dim == 1 || MOPT(cone) != PX_CONE_PYRAMIDAL) {
      for (int j = 0; j < dim; j++) {
        PXR a = PXK_E(efc_vel, adr + j) + cs[j];
        PXK_E(efc_vel, adr + j) = a;
      }
    } else {
      for (int k = 1; k < dim; k++) {
        PXR mu = PXK_CON(i).friction[k - 1];
        PXR up = cs[0] + mu * cs[k];
        PXR dn = cs[0] - mu * cs[k];
        PXR a = PXK_E(efc_vel, adr + 2 * (k - 1)) + up;
        PXK_E(efc_vel, adr + 2 * (k - 1)) = a;
        PXR b = PXK_E(efc_vel, adr + 2 * (k - 1) + 1) + dn;
        PXK_E(efc_vel, adr + 2 * (k - 1) + 1) = b;
      }
    }
  }
}

// efc_vel = J qvel (plus contact surface velocities), efc_aref = -B vel - K I (pos - margin),
// adhesion bias, Jdot qvel (mj_referenceConstraint)
PX_FN void pxk_referenceConstraint(PX_MD) {
  int nv = MS(nv);
  int nefc = PXK_EN(PX_EFC_NEFC);
  PXK_MULJ(efc_vel, qvel)
  pxk_cnSurfaceVel(PX_MDARG);
  for (int i = 0; i < nefc; i++) {
    PXR nb = -PXK_E(efc_KBIP, 4 * i + 1);
    PXR a = nb * PXK_E(efc_vel, i);
    PXR pm = PXK_E(efc_pos, i) - PXK_E(efc_margin, i);
    PXR k = PXK_E(efc_KBIP, 4 * i) * PXK_E(efc_KBIP, 4 * i + 2) * pm;
    PXK_E(efc_aref, i) = a - k;
  }
  for (int i = 0; i < PXK_NCON; i++) {
    PXR adh = PXK_CON(i).adhesion;
    int adr = PXK_CON(i).efc_address;
    if (adh == PX_R(0.0) || adr < 0) continue;
    int dim = PXK_CON(i).dim;
    if (dim == 1 || MOPT(cone) != PX_CONE_PYRAMIDAL) {
      PXR a = PXK_E(efc_aref, adr) + PXK_E(efc_R, adr) * adh;
      PXK_E(efc_aref, adr) = a;
    } else {
      PXR den = PX_TOREAL(2 * (dim - 1));
      PXR edge = adh / den;
      for (int j = 0; j < 2 * (dim - 1); j++) {
        PXR a = PXK_E(efc_aref, adr + j) + PXK_E(efc_R, adr + j) * edge;
        PXK_E(efc_aref, adr + j) = a;
      }
    }
  }
  if (PXK_EN(PX_EFC_NE) > 0) pxk_cnJdotv(PX_MDARG);
}

//---------------------------------- forces on bodies ----------------------------------------------

// a world-frame torque:force pair acting at pos moved to the com of body k's tree
// (mju_transformSpatial of a force, no rotation), added to (sgn 1) or subtracted from cfrc_ext
PX_FN void pxk_cnApplyExt(PX_MDC PX_IN(PX_REAL, frc, 6), PX_IN(PX_REAL, pos, 3), int k, int sgn) {
  int root = M(body_rootid, k);
  PXR dif[3];
  PXR f[3];
  PXR cros[3];
  for (int j = 0; j < 3; j++) {
    dif[j] = D(subtree_com, 3 * root + j) - pos[j];
    f[j] = frc[3 + j];
  }
  pxk_cross(cros, dif, f);
  PXR tran[6];
  for (int j = 0; j < 3; j++) {
    tran[j] = frc[j] - cros[j];
    tran[3 + j] = frc[3 + j];
  }
  for (int j = 0; j < 6; j++) {
    PXR v = sgn == 1 ? D(cfrc_ext, 6 * k + j) + tran[j] : D(cfrc_ext, 6 * k + j) - tran[j];
    D(cfrc_ext, 6 * k + j) = v;
  }
}

// the contact and equality (connect, weld) forces of the last constraint solve added to cfrc_ext
// (the constraint part of mj_rnePostConstraint, with mj_contactForce's decoding)
PX_FN void pxk_cnExtForces(PX_MD) {
  for (int i = 0; i < PXK_NCON; i++) {
    int adr = PXK_CON(i).efc_address;
    if (adr < 0) continue;
    int dim = PXK_CON(i).dim;
    PXR lf[6];
    for (int k = 0; k < 6; k++) lf[k] = PX_R(0.0);
    if (MOPT(cone) == PX_CONE_PYRAMIDAL) {
      if (dim == 1) {
        lf[0] = PXK_E(efc_force, adr);
      } else {
        PXR n = PX_R(0.0);
        for (int k = 0; k < 2 * (dim - 1); k++) n += PXK_E(efc_force, adr + k);
        lf[0] = n;
        for (int k = 0; k < dim - 1; k++) {
          PXR dp = PXK_E(efc_force, adr + 2 * k) - PXK_E(efc_force, adr + 2 * k + 1);
          lf[k + 1] = dp * PXK_CON(i).friction[k];
        }
      }
    } else {
      for (int k = 0; k < dim; k++) lf[k] = PXK_E(efc_force, adr + k);
    }
    lf[0] -= PXK_CON(i).adhesion;
    PXR frame[9];
    PXR a[3];
    PXR b[3];
    PXR t[3];
    PXR frc[6];
    PXR pos[3];
    for (int k = 0; k < 9; k++) frame[k] = PXK_CON(i).frame[k];
    for (int k = 0; k < 3; k++) {
      a[k] = lf[3 + k];
      b[k] = lf[k];
      pos[k] = PXK_CON(i).pos[k];
    }
    pxk_mulMatTVec3(t, frame, a);
    for (int k = 0; k < 3; k++) frc[k] = t[k];
    pxk_mulMatTVec3(t, frame, b);
    for (int k = 0; k < 3; k++) frc[3 + k] = t[k];
    int k1 = M(geom_bodyid, PXK_CON(i).geom[0]);
    if (k1 != 0) pxk_cnApplyExt(PX_MDARGC frc, pos, k1, -1);
    int k2 = M(geom_bodyid, PXK_CON(i).geom[1]);
    if (k2 != 0) pxk_cnApplyExt(PX_MDARGC frc, pos, k2, 1);
  }
  int ne = PXK_EN(PX_EFC_NE);
  int i = 0;
  while (i < ne) {
    int id = PXK_E(efc_id, i);
    int type = M(eq_type, id);
    if (type == PX_EQ_CONNECT || type == PX_EQ_WELD) {
      int weld = type == PX_EQ_WELD ? 1 : 0;
      PXR frc[6];
      for (int k = 0; k < 3; k++) {
        frc[3 + k] = PXK_E(efc_force, i + k);
        frc[k] = weld == 1 ? PXK_E(efc_force, i + 3 + k) : PX_R(0.0);
      }
      int body = M(eq_objtype, id) == PX_OBJ_BODY ? 1 : 0;
      for (int side = 0; side < 2; side++) {
        int obj = side == 0 ? M(eq_obj1id, id) : M(eq_obj2id, id);
        int k = body == 1 ? obj : M(site_bodyid, obj);
        if (k == 0) continue;
        PXR off[3];
        if (body == 1) {
          int o = side == 0 ? 3 * weld : 3 * (1 - weld);
          PXK_GET(3, off, M, eq_data, PXK_NEQDATA * id + o);
        } else {
          PXK_GET(3, off, M, site_pos, 3 * obj);
        }
        PXR mat[9];
        PXR t[3];
        PXR pos[3];
        PXK_GET(9, mat, D, xmat, 9 * k);
        pxk_mulMatVec3(t, mat, off);
        for (int j = 0; j < 3; j++) pos[j] = t[j] + D(xpos, 3 * k + j);
        pxk_cnApplyExt(PX_MDARGC frc, pos, k, side == 0 ? 1 : -1);
      }
      i += weld == 1 ? 6 : 3;
    } else {
      i++;
    }
  }
}

// mj_rnePostConstraint with the forces of the last constraint solve: cfrc_ext from xfrc_applied
// (lane-strided over bodies) plus the contact and connect/weld forces, then cacc and cfrc_int
// (pxk_postAccForces; lane 0). The CPU runs it where the model can have constraint rows
// (px_rnePostConstraintRun), the GPU's sensor pass with rows (shaders/sensorfull.comp).
PX_FN void pxk_rnePostConstraintEfc(PX_MD) {
  for (int i = PX_LANE; i < MS(nbody); i += PX_NLANE) pxk_postExtForce(PX_MDARGC i);
  PX_SYNC();
  if (PX_LANE != 0) return;
  pxk_cnExtForces(PX_MDARG);
  pxk_postAccForces(PX_MDARG);
}

#endif  // PX_KERN_CONSTRAINT_H_
