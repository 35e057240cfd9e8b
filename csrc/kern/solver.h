// SPDX-License-Identifier: Apache-2.0
// The constraint solver of MuJoCo 3.12's mj_fwdConstraint in the kernel dialect: constraint
// islands (mj_island), the warm start (best of qacc_warmstart and qacc_smooth), then the Newton
// solver (mj_solNewton, dense Jacobian) or CG (mj_solCG) per island, or over all rows when the
// island flag is disabled, with its exact line search, the Hessian H = M + J' D J in a dense
// Cholesky factor kept up to date by rank-one updates, and MuJoCo's stopping rule (improvement,
// gradient and Newton decrement scaled by 1 / (meaninertia max(1, nv)), or by 1 / (the island's
// trace of M)). Frictionless, pyramidal and elliptic contacts (the cone Hessians of the elliptic
// rows in the cone zone added to a second factor, Lcone).
//   reads:  the rows of constraint.h (efc_J, efc_D, efc_R, efc_frictionloss, efc_aref, efc_type,
//           efc_id), M, qLD, qLDiagInv, qfrc_smooth, qacc_smooth, qacc_warmstart
//   writes: qacc, qfrc_constraint, efc_b, efc_force, efc_state, efc_n (solver iterations of
//           island 0, islands, island dofs), the island maps efc_is_*; efc_sv_* hold the problem
//           one solve sees (every row, or one island's rows and dofs, in local indices)
// Sequential on lane 0; every float operation is in MuJoCo's order (engine_solver.c,
// engine_island.c, engine_forward.c, engine_util_blas.c, engine_util_solve.c).
#ifndef PX_KERN_SOLVER_H_
#define PX_KERN_SOLVER_H_

#include "kern/constraint.h"
#include "kern/smooth.h"

// a point of the line search (alpha, cost(alpha) - cost(0), first and second derivative)
#define PXK_LS_ALPHA 0
#define PXK_LS_COST 1
#define PXK_LS_D0 2
#define PXK_LS_D1 3

// the resume point of a solve run in units (efc_ck_i entries, efc_ck_r entries; "resumable
// solves" below)
#define PXK_CK_STAGE 0   // the next unit's kind
#define PXK_CK_ISL 1     // the island (solve) index
#define PXK_CK_ROW 2     // the projection's next row
#define PXK_CK_ITER 3    // the solve's iterations so far
#define PXK_CK_NK 4      // PGS: iterations since the momentum's restart
#define PXK_CK_NBLOCK 5  // PGS: blocks of the sweep
#define PXK_CK_RNG 6     // PGS: the shuffle's generator state (4 entries)
#define PXK_CK_N 16      // efc_ck_i entries
#define PXK_CK_DONE 99   // the stage of a finished solve
#define PXK_CKR_GAUSS 0  // primal: the Gauss cost at the current point (quadGauss[0])
#define PXK_CKR_SCALE 1  // primal: the island's (or the problem's) scale

//---------------------------------- islands -------------------------------------------------------

// canonical root of an active tree, compressing its path (mj_dsuRoot)
PX_FN int pxk_isRoot(PX_MDC int tree) {
  int root = tree;
  while (PXK_E(efc_is_parent, root) != root) root = PXK_E(efc_is_parent, root);
  while (PXK_E(efc_is_parent, tree) != tree) {
    int next = PXK_E(efc_is_parent, tree);
    PXK_E(efc_is_parent, tree) = root;
    tree = next;
  }
  return root;
}

// activate and union two trees, -1 a static endpoint (mj_dsuMerge)
PX_FN void pxk_isMerge(PX_MDC int tree1, int tree2) {
  if (tree1 == -1 && tree2 == -1) return;
  if (tree1 == -1) tree1 = tree2;
  if (tree2 == -1) tree2 = tree1;
  if (PXK_E(efc_is_parent, tree1) == -1) PXK_E(efc_is_parent, tree1) = tree1;
  if (PXK_E(efc_is_parent, tree2) == -1) PXK_E(efc_is_parent, tree2) = tree2;
  if (PXK_E(efc_is_parent, tree1) == PXK_E(efc_is_parent, tree2)) return;
  int root1 = pxk_isRoot(PX_MDARGC tree1);
  int root2 = pxk_isRoot(PX_MDARGC tree2);
  if (root1 < root2) {
    PXK_E(efc_is_parent, root2) = root1;
  } else if (root2 < root1) {
    PXK_E(efc_is_parent, root1) = root2;
  }
}

// the tree iterator of row i (treeIterInit): it = (queued tree, queued tree, Jacobian scan
// index or -1, previous tree of the scan)
PX_FN void pxk_isIterInit(PX_MDC int i, PX_OUT(int, it, 4)) {
  it[0] = -2;
  it[1] = -2;
  it[2] = -1;
  it[3] = -1;
  int type = PXK_E(efc_type, i);
  int id = PXK_E(efc_id, i);
  if (type == PXK_CNSTR_FRICTION_DOF) {
    it[0] = M(dof_treeid, id);
  } else if (type == PXK_CNSTR_LIMIT_JOINT) {
    it[0] = M(dof_treeid, M(jnt_dofadr, id));
  } else if (type == PXK_CNSTR_CONTACT_FRICTIONLESS || type == PXK_CNSTR_CONTACT_PYRAMIDAL ||
             type == PXK_CNSTR_CONTACT_ELLIPTIC) {
    it[0] = M(body_treeid, M(geom_bodyid, PXK_CON(id).geom[0]));
    it[1] = M(body_treeid, M(geom_bodyid, PXK_CON(id).geom[1]));
  } else if (type == PXK_CNSTR_EQUALITY &&
             (M(eq_type, id) == PX_EQ_CONNECT || M(eq_type, id) == PX_EQ_WELD)) {
    int b1 = M(eq_obj1id, id);
    int b2 = M(eq_obj2id, id);
    if (M(eq_objtype, id) == PX_OBJ_SITE) {
      b1 = M(site_bodyid, b1);
      b2 = M(site_bodyid, b2);
    }
    it[0] = M(body_treeid, b1);
    it[1] = M(body_treeid, b2);
  } else {
    it[2] = 0;
  }
}

// the next tree of row i, -2 when none is left (treeNext, dense)
PX_FN int pxk_isNext(PX_MDC int i, PX_INOUT(int, it, 4)) {
  if (it[0] != -2) {
    int tree = it[0];
    it[0] = it[1];
    it[1] = -2;
    return tree;
  }
  if (it[2] == -1) return -2;
  int nv = MS(nv);
  int next = -2;
  int j = it[2];
#if PXK_SPARSE_J
  // the sparse layout: the trees of the row's columns (treeNext, sparse)
  if (pxk_isSparse(PX_MDARG) == 1) {
    int adr = PXK_E(efc_J_rowadr, i);
    int n = PXK_E(efc_J_rownnz, i);
    while (j < n && next == -2) {
      int tj = M(dof_treeid, PXK_E(efc_J_colind, adr + j));
      if (tj != it[3]) {
        next = tj;
      } else {
        j++;
      }
    }
    nv = 0;
  }
#endif
  while (j < nv) {
    if (PXK_E(efc_J, i * nv + j) != PX_R(0.0)) {
      int tj = M(dof_treeid, j);
      if (tj != it[3]) {
        next = tj;
        break;
      }
      j = M(tree_dofadr, tj) + M(tree_dofnum, tj) - 1;
    }
    j++;
  }
  it[2] = j;
  if (next != -2) it[3] = next;
  return next;
}

// constraint islands of the rows (mj_island): the trees each row touches united, islands
// numbered in ascending order of their smallest tree, dofs and rows of each island in index
// order (unconstrained dofs after nidof)
PX_FN void pxk_island(PX_MD) {
  int nv = MS(nv);
  int ntree = MS(ntree);
  int nefc = PXK_EN(PX_EFC_NEFC);
  PXK_EN(PX_EFC_NISLAND) = 0;
  PXK_EN(PX_EFC_NIDOF) = 0;
  if ((MOPT(disableflags) & PX_DSBL_ISLAND) != 0 || nefc == 0) return;
  for (int t = 0; t < ntree; t++) PXK_E(efc_is_parent, t) = -1;
  int ptype = -1;
  int pid = -1;
  int it[4];
  for (int i = 0; i < nefc; i++) {
    if (i > 0 && ptype == PXK_E(efc_type, i) && pid == PXK_E(efc_id, i)) {
      PXK_E(efc_is_tree, i) = PXK_E(efc_is_tree, i - 1);
      continue;
    }
    ptype = PXK_E(efc_type, i);
    pid = PXK_E(efc_id, i);
    pxk_isIterInit(PX_MDARGC i, it);
    int tree1 = pxk_isNext(PX_MDARGC i, it);
    PXK_E(efc_is_tree, i) = 0;
    if (tree1 != -2) {
      int tree2 = pxk_isNext(PX_MDARGC i, it);
      PXK_E(efc_is_tree, i) = tree1 >= 0 ? tree1 : tree2;
      if (tree2 == -2) {
        pxk_isMerge(PX_MDARGC tree1, -1);
      } else {
        while (tree2 != -2) {
          pxk_isMerge(PX_MDARGC tree1, tree2);
          tree1 = tree2;
          tree2 = pxk_isNext(PX_MDARGC i, it);
        }
      }
    }
  }
  // island ids in ascending canonical-root order (mj_dsuAssign)
  int nisland = 0;
  int nidof = 0;
  for (int t = 0; t < ntree; t++) {
    int p = PXK_E(efc_is_parent, t);
    if (p == -1) {
      PXK_E(efc_is_treeisland, t) = -1;
      continue;
    }
    if (p == t) {
      PXK_E(efc_is_treeisland, t) = nisland;
      nisland++;
    } else {
      int pp = PXK_E(efc_is_parent, p);
      PXK_E(efc_is_parent, t) = pp;
      PXK_E(efc_is_treeisland, t) = PXK_E(efc_is_treeisland, pp);
    }
    nidof += M(tree_dofnum, t);
  }
  PXK_EN(PX_EFC_NISLAND) = nisland;
  PXK_EN(PX_EFC_NIDOF) = nisland > 0 ? nidof : 0;
  if (nisland == 0) return;
  // dofs
  for (int k = 0; k <= nisland; k++) PXK_E(efc_is_nv, k) = 0;
  for (int i = 0; i < nv; i++) {
    int isl = PXK_E(efc_is_treeisland, M(dof_treeid, i));
    if (isl >= 0) PXK_E(efc_is_nv, isl) = PXK_E(efc_is_nv, isl) + 1;
  }
  PXK_E(efc_is_idofadr, 0) = 0;
  for (int k = 1; k < nisland; k++) {
    PXK_E(efc_is_idofadr, k) = PXK_E(efc_is_idofadr, k - 1) + PXK_E(efc_is_nv, k - 1);
  }
  for (int k = 0; k <= nisland; k++) PXK_E(efc_is_nefc, k) = 0;  // counters
  for (int i = 0; i < nv; i++) {
    int isl = PXK_E(efc_is_treeisland, M(dof_treeid, i));
    int idof = 0;
    if (isl >= 0) {
      idof = PXK_E(efc_is_idofadr, isl) + PXK_E(efc_is_nefc, isl);
      PXK_E(efc_is_nefc, isl) = PXK_E(efc_is_nefc, isl) + 1;
    } else {
      idof = nidof + PXK_E(efc_is_nefc, nisland);
      PXK_E(efc_is_nefc, nisland) = PXK_E(efc_is_nefc, nisland) + 1;
    }
    PXK_E(efc_is_dof2idof, i) = idof;
    PXK_E(efc_is_idof2dof, idof) = i;
  }
  // rows
  for (int k = 0; k < nisland; k++) {
    PXK_E(efc_is_nefc, k) = 0;
    PXK_E(efc_is_ne, k) = 0;
    PXK_E(efc_is_nf, k) = 0;
  }
  for (int i = 0; i < nefc; i++) {
    int isl = PXK_E(efc_is_treeisland, PXK_E(efc_is_tree, i));
    PXK_E(efc_is_island, i) = isl;
    PXK_E(efc_is_nefc, isl) = PXK_E(efc_is_nefc, isl) + 1;
    int type = PXK_E(efc_type, i);
    if (type == PXK_CNSTR_EQUALITY) {
      PXK_E(efc_is_ne, isl) = PXK_E(efc_is_ne, isl) + 1;
    } else if (type == PXK_CNSTR_FRICTION_DOF || type == PXK_CNSTR_FRICTION_TENDON) {
      PXK_E(efc_is_nf, isl) = PXK_E(efc_is_nf, isl) + 1;
    }
  }
  PXK_E(efc_is_iefcadr, 0) = 0;
  for (int k = 1; k < nisland; k++) {
    PXK_E(efc_is_iefcadr, k) = PXK_E(efc_is_iefcadr, k - 1) + PXK_E(efc_is_nefc, k - 1);
  }
  // efc <-> iefc maps (efc_is_parent, no longer needed, counts the rows placed per island)
  for (int k = 0; k < nisland; k++) PXK_E(efc_is_parent, k) = 0;
  for (int c = 0; c < nefc; c++) {
    int isl = PXK_E(efc_is_island, c);
    int ic = PXK_E(efc_is_iefcadr, isl) + PXK_E(efc_is_parent, isl);
    PXK_E(efc_is_parent, isl) = PXK_E(efc_is_parent, isl) + 1;
    PXK_E(efc_is_efc2iefc, c) = ic;
    PXK_E(efc_is_iefc2efc, ic) = c;
  }
}

//---------------------------------- the problem of one solve --------------------------------------

// global dof of local dof r and global row of local row c of island isl (-1: every dof and row)
PX_FN int pxk_svDof(PX_MDC int isl, int r) {
  return isl < 0 ? r : PXK_E(efc_is_idof2dof, PXK_E(efc_is_idofadr, isl) + r);
}

PX_FN int pxk_svRow(PX_MDC int isl, int c) {
  return isl < 0 ? c : PXK_E(efc_is_iefc2efc, PXK_E(efc_is_iefcadr, isl) + c);
}

#ifdef PX_KERN_C
// The sparse layout's large problems (PXK_ENV_MIN dofs and more: MuJoCo's own threshold for the
// sparse Jacobian) factor H = M + J'DJ within its envelope: efc_is_env[i] is the first column of
// row i of H over M's pattern and every row's chain (whatever the rows' states, so that the
// rank-one updates of the Newton iterations and the cone Hessians stay inside), and a Cholesky
// factor has no entry before it (pxk_svCholFactor, pxk_cCholUpdate and pxk_cCholSolve skip those
// columns). Only the sums' order changes (the dot products start at the envelope), not what is
// summed.
#define PXK_ENV_MIN 60
PX_FN void pxk_cSvEnvelope(pxData* d, int isl, int nv, int nefc) {
  int* restrict env = d->efc_is_env;
  const int* restrict d2i = d->efc_is_dof2idof;
  int idofadr = isl < 0 ? 0 : d->efc_is_idofadr[isl];
  for (int r = 0; r < nv; r++) {
    int first = r;
    int adr = d->efc_sv_Mrowadr[r];
    for (int j = 0; j < d->efc_sv_Mrownnz[r]; j++) {
      int c = d->efc_sv_Mcolind[adr + j];
      first = c < first ? c : first;
    }
    env[r] = first;
  }
  for (int c = 0; c < nefc; c++) {
    int e = isl < 0 ? c : d->efc_is_iefc2efc[d->efc_is_iefcadr[isl] + c];
    int a = d->efc_J_rowadr[e];
    int n = d->efc_J_rownnz[e];
    int lo = nv;
    for (int k = 0; k < n; k++) {
      int col = d->efc_J_colind[a + k];
      int l = isl < 0 ? col : d2i[col] - idofadr;
      lo = l < lo ? l : lo;
    }
    int hi = -1;
    for (int k = 0; k < n; k++) {
      int col = d->efc_J_colind[a + k];
      int l = isl < 0 ? col : d2i[col] - idofadr;
      env[l] = lo < env[l] ? lo : env[l];
      hi = l > hi ? l : hi;
    }
    d->efc_is_rowlo[c] = hi < 0 ? 0 : lo;
    d->efc_is_rowhi[c] = hi;
  }
  // the rows r whose envelope starts before r, in buckets by their first column (ascending
  // within a bucket): env + nv heads, env + 2 nv links, -1 ends
  int* restrict head = env + nv;
  int* restrict link = env + 2 * nv;
  for (int r = 0; r < nv; r++) head[r] = -1;
  for (int r = nv - 1; r >= 0; r--) {
    if (env[r] < r) {
      link[r] = head[env[r]];
      head[env[r]] = r;
    }
  }
}

// the envelope of the problem in efc_sv_* when its factorization keeps one, else NULL: n first
// columns, then pxk_cSvEnvelope's buckets and the column sweeps' lists (pxk_cEnvNext, 7 n in all)
PX_FN int* pxk_cEnv(const pxModel* m, pxData* d, int n) {
  return (n >= PXK_ENV_MIN && pxk_isSparse(m, d) == 1) ? d->efc_is_env : 0;
}

// a sweep over the columns k = 0, 1, .. of an envelope keeps the rows i > k with env[i] <= k (the
// rows whose column k lies inside the envelope) in env[3n ..] (*nact of them, in no particular
// order; each row's place in env[4n ..]): called before column k, it drops row k and adds the
// rows whose envelope starts at k. The callers' row updates at column k are independent of each
// other, so their order does not change any result.
PX_FN void pxk_cEnvNext(int* env, int n, int k, int* nact) {
  const int* head = env + n;
  const int* link = env + 2 * n;
  int* act = env + 3 * n;
  int* pos = env + 4 * n;
  if (env[k] < k) {
    int p = pos[k];
    int last = act[*nact - 1];
    act[p] = last;
    pos[last] = p;
    *nact = *nact - 1;
  }
  for (int i = head[k]; i >= 0; i = link[i]) {
    pos[i] = *nact;
    act[*nact] = i;
    *nact = *nact + 1;
  }
}

// row i of the problem's J (efc_sv_J) times x (nv): within the row's columns on a problem with an
// envelope (only the sum's order changes), else PXK_DOT_BODY's sum
PX_FN PX_REAL pxk_cSvJdot(const pxModel* m, pxData* d, int i, const PX_REAL* x, int nv) {
  const PX_REAL* J = d->efc_sv_J + i * nv;
  if (pxk_cEnv(m, d, nv)) {
    int lo = d->efc_is_rowlo[i];
    return pxk_cDot(J + lo, x + lo, d->efc_is_rowhi[i] + 1 - lo);
  }
  return pxk_cDot(J, x, nv);
}

// C fast path of pxk_svGather: the same copies through local pointers; the rows of J are copied
// whole when the island's dofs are consecutive
PX_FN void pxk_cSvGather(const pxModel* m, pxData* d, int isl, int nv, int nefc) {
  int gnv = m->nv;
  int idofadr = isl < 0 ? 0 : d->efc_is_idofadr[isl];
  const int* restrict i2d = d->efc_is_idof2dof + idofadr;
  const int* restrict d2i = d->efc_is_dof2idof;
  const int* restrict mrownnz = m->M_rownnz;
  const int* restrict mrowadr = m->M_rowadr;
  const int* restrict mcolind = m->M_colind;
  const PX_REAL* restrict gm = d->M;
  const PX_REAL* restrict gld = d->qLD;
  int* restrict rownnz = d->efc_sv_Mrownnz;
  int* restrict rowadr = d->efc_sv_Mrowadr;
  int* restrict colind = d->efc_sv_Mcolind;
  PX_REAL* restrict sm = d->efc_sv_M;
  PX_REAL* restrict sld = d->efc_sv_LD;
  int adr = 0;
  int dof0 = (isl < 0 || nv == 0) ? 0 : i2d[0];
  int consecutive = 1;
  for (int r = 0; r < nv; r++) {
    int dof = isl < 0 ? r : i2d[r];
    if (dof != dof0 + r) consecutive = 0;
    d->efc_sv_qacc[r] = d->qacc[dof];
    d->efc_sv_qacc_smooth[r] = d->qacc_smooth[dof];
    d->efc_sv_qfrc_smooth[r] = d->qfrc_smooth[dof];
    d->efc_sv_qfrc_constraint[r] = d->qfrc_constraint[dof];
    int nnz = mrownnz[dof];
    int gadr = mrowadr[dof];
    rownnz[r] = nnz;
    rowadr[r] = adr;
    if (isl < 0) {
      for (int j = 0; j < nnz; j++) colind[adr + j] = mcolind[gadr + j];
    } else {
      for (int j = 0; j < nnz; j++) colind[adr + j] = d2i[mcolind[gadr + j]] - idofadr;
    }
    for (int j = 0; j < nnz; j++) sm[adr + j] = gm[gadr + j];
    for (int j = 0; j < nnz; j++) sld[adr + j] = gld[gadr + j];
    adr += nnz;
    d->efc_sv_LDiagInv[r] = d->qLDiagInv[dof];
  }
  const int* restrict r2e = isl < 0 ? 0 : d->efc_is_iefc2efc + d->efc_is_iefcadr[isl];
  int sparse = pxk_isSparse(m, d);
  for (int c = 0; c < nefc; c++) {
    int e = isl < 0 ? c : r2e[c];
    d->efc_sv_type[c] = d->efc_type[e];
    d->efc_sv_id[c] = d->efc_id[e];
    d->efc_sv_state[c] = d->efc_state[e];
    d->efc_sv_Dr[c] = d->efc_D[e];
    d->efc_sv_R[c] = d->efc_R[e];
    d->efc_sv_floss[c] = d->efc_frictionloss[e];
    d->efc_sv_aref[c] = d->efc_aref[e];
    d->efc_sv_b[c] = d->efc_b[e];
    d->efc_sv_force[c] = d->efc_force[e];
    PX_REAL* restrict dst = d->efc_sv_J + c * nv;
    if (sparse == 1) {
      // the sparse layout: the row's columns scattered into a zeroed local row
      memset(dst, 0, sizeof(PX_REAL) * (size_t)nv);
      int a = d->efc_J_rowadr[e];
      int n = d->efc_J_rownnz[e];
      const int* restrict ci = d->efc_J_colind + a;
      const PX_REAL* restrict v = d->efc_J + a;
      for (int k = 0; k < n; k++) dst[isl < 0 ? ci[k] : d2i[ci[k]] - idofadr] = v[k];
      continue;
    }
    const PX_REAL* restrict src = d->efc_J + e * gnv;
    if (consecutive == 1) {
      memcpy(dst, src + dof0, sizeof(PX_REAL) * (size_t)nv);
    } else {
      for (int r = 0; r < nv; r++) dst[r] = src[i2d[r]];
    }
  }
  if (sparse == 1 && nv >= PXK_ENV_MIN) pxk_cSvEnvelope(d, isl, nv, nefc);
}
#endif  // PX_KERN_C

// the problem of island isl (or of every row, isl = -1) into efc_sv_*: dof vectors, the block of
// M and of its factor (mju_blockSparse), the rows and their block of J (mju_block)
PX_FN void pxk_svGather(PX_MDC int isl, int nv, int nefc) {
#ifdef PX_KERN_C
  pxk_cSvGather(m, d, isl, nv, nefc);
#else
  int gnv = MS(nv);
  int idofadr = isl < 0 ? 0 : PXK_E(efc_is_idofadr, isl);
  int adr = 0;
  for (int r = 0; r < nv; r++) {
    int dof = pxk_svDof(PX_MDARGC isl, r);
    PXK_E(efc_sv_qacc, r) = D(qacc, dof);
    PXK_E(efc_sv_qacc_smooth, r) = D(qacc_smooth, dof);
    PXK_E(efc_sv_qfrc_smooth, r) = D(qfrc_smooth, dof);
    PXK_E(efc_sv_qfrc_constraint, r) = D(qfrc_constraint, dof);
    int nnz = M(M_rownnz, dof);
    int gadr = M(M_rowadr, dof);
    PXK_E(efc_sv_Mrownnz, r) = nnz;
    PXK_E(efc_sv_Mrowadr, r) = adr;
    for (int j = 0; j < nnz; j++) {
      int col = M(M_colind, gadr + j);
      PXK_E(efc_sv_Mcolind, adr + j) = isl < 0 ? col : PXK_E(efc_is_dof2idof, col) - idofadr;
      PXK_E(efc_sv_M, adr + j) = D(M, gadr + j);
      PXK_E(efc_sv_LD, adr + j) = D(qLD, gadr + j);
    }
    adr += nnz;
    PXK_E(efc_sv_LDiagInv, r) = D(qLDiagInv, dof);
  }
  for (int c = 0; c < nefc; c++) {
    int e = pxk_svRow(PX_MDARGC isl, c);
    PXK_E(efc_sv_type, c) = PXK_E(efc_type, e);
    PXK_E(efc_sv_id, c) = PXK_E(efc_id, e);
    PXK_E(efc_sv_state, c) = PXK_E(efc_state, e);
    PXK_E(efc_sv_Dr, c) = PXK_E(efc_D, e);
    PXK_E(efc_sv_R, c) = PXK_E(efc_R, e);
    PXK_E(efc_sv_floss, c) = PXK_E(efc_frictionloss, e);
    PXK_E(efc_sv_aref, c) = PXK_E(efc_aref, e);
    PXK_E(efc_sv_b, c) = PXK_E(efc_b, e);
    PXK_E(efc_sv_force, c) = PXK_E(efc_force, e);
#if PXK_SPARSE_J
    // the sparse layout: the row's columns scattered into a zeroed local row
    if (pxk_isSparse(PX_MDARG) == 1) {
      for (int r = 0; r < nv; r++) PXK_E(efc_sv_J, c * nv + r) = PX_R(0.0);
      int a = PXK_E(efc_J_rowadr, e);
      for (int k = 0; k < PXK_E(efc_J_rownnz, e); k++) {
        int col = PXK_E(efc_J_colind, a + k);
        int r = isl < 0 ? col : PXK_E(efc_is_dof2idof, col) - idofadr;
        PXK_E(efc_sv_J, c * nv + r) = PXK_E(efc_J, a + k);
      }
      continue;
    }
#endif
    for (int r = 0; r < nv; r++) {
      PXK_E(efc_sv_J, c * nv + r) = PXK_E(efc_J, e * gnv + pxk_svDof(PX_MDARGC isl, r));
    }
  }
#endif  // PX_KERN_C
}

// the solve's results back: qacc, qfrc_constraint, efc_force, efc_state
PX_FN void pxk_svScatter(PX_MDC int isl, int nv, int nefc) {
  for (int r = 0; r < nv; r++) {
    int dof = pxk_svDof(PX_MDARGC isl, r);
    D(qacc, dof) = PXK_E(efc_sv_qacc, r);
    D(qfrc_constraint, dof) = PXK_E(efc_sv_qfrc_constraint, r);
  }
  for (int c = 0; c < nefc; c++) {
    int e = pxk_svRow(PX_MDARGC isl, c);
    PXK_E(efc_force, e) = PXK_E(efc_sv_force, c);
    PXK_E(efc_state, e) = PXK_E(efc_sv_state, c);
  }
}

//---------------------------------- solver --------------------------------------------------------

#ifdef PX_KERN_C
// C fast paths of the dense and sparse products below: the same floating-point operations in the
// same order per element as the dialect code they replace, through local pointers, two elements
// at a time where the elements are independent.

// y[k] = y[k] + x[k] * s for k < n (y and x distinct)
PX_FN void pxk_cAxpy(PX_REAL* restrict y, const PX_REAL* restrict x, PX_REAL s, int n) {
  int k = 0;
#ifdef PX_SSE2
  __m128d s2 = _mm_set1_pd(s);
  for (; k + 2 <= n; k += 2) {
    _mm_storeu_pd(y + k, _mm_add_pd(_mm_loadu_pd(y + k), _mm_mul_pd(_mm_loadu_pd(x + k), s2)));
  }
#endif
  for (; k < n; k++) y[k] = y[k] + x[k] * s;
}

// PXK_SVMULM_BODY: res = M vec with the problem's block of M; res[i] is accumulated in a local
// (no other term of row i writes it: the row's other columns are below the diagonal)
PX_FN void pxk_cSvMulM(pxData* d, PX_REAL* restrict res, const PX_REAL* restrict vec, int nv) {
  const int* restrict rowadr = d->efc_sv_Mrowadr;
  const int* restrict rownnz = d->efc_sv_Mrownnz;
  const int* restrict colind = d->efc_sv_Mcolind;
  const PX_REAL* restrict mat = d->efc_sv_M;
  for (int i = 0; i < nv; i++) {
    int s = rowadr[i];
    int dg = rownnz[i] - 1;
    PX_REAL vi = vec[i];
    PX_REAL ri = mat[s + dg] * vi;
    for (int k = dg - 1; k >= 0; k--) {
      int j = colind[s + k];
      PX_REAL val = mat[s + k];
      ri = ri + val * vec[j];
      res[j] = res[j] + val * vi;
    }
    res[i] = ri;
  }
}

// PXK_CHOLUPDATE_BODY on factor L (n x n) and vector x (consumed); returns the rank. The two loops
// over the rows below k are fused: each row's L is updated before its x, as in the two loops.
PX_FN int pxk_cCholUpdate(PX_REAL* restrict L, PX_REAL* restrict x, int n, int plus, int* env) {
  int rank = n;
  int nact = 0;
  for (int k = 0; k < n; k++) {
    if (env) pxk_cEnvNext(env, n, k, &nact);
    PX_REAL xk = x[k];
    if (xk == PX_R(0.0)) continue;
    PX_REAL lkk = L[k * (n + 1)];
    PX_REAL ll = lkk * lkk;
    PX_REAL xx = xk * xk;
    PX_REAL nxx = -xx;
    PX_REAL tmp = plus == 1 ? ll + xx : ll + nxx;
    if (tmp < PXK_MINVAL) {
      tmp = PXK_MINVAL;
      rank = rank - 1;
    }
    PX_REAL r = PX_SQRT(tmp);
    PX_REAL c = r / lkk;
    PX_REAL cinv = PX_R(1.0) / c;
    PX_REAL s = xk / lkk;
    L[k * (n + 1)] = r;
    int i = k + 1;
    if (env) {
      // the rows whose envelope starts after k hold 0 at column k and in x (pxk_cSvEnvelope):
      // only the rows inside it at column k
      const int* act = env + 3 * n;
      for (int j = 0; j < nact; j++) {
        i = act[j];
        PX_REAL sx = s * x[i];
        PX_REAL a = plus == 1 ? L[i * n + k] + sx : L[i * n + k] - sx;
        PX_REAL v = a * cinv;
        L[i * n + k] = v;
        x[i] = c * x[i] - s * v;
      }
      continue;
    }
#ifdef PX_SSE2
    __m128d s2 = _mm_set1_pd(s);
    __m128d c2 = _mm_set1_pd(c);
    __m128d ci2 = _mm_set1_pd(cinv);
    for (; i + 2 <= n; i += 2) {
      PX_REAL* p0 = L + i * n + k;
      PX_REAL* p1 = p0 + n;
      __m128d xv = _mm_loadu_pd(x + i);
      __m128d lv = _mm_loadh_pd(_mm_load_sd(p0), p1);
      __m128d sx = _mm_mul_pd(s2, xv);
      __m128d a = plus == 1 ? _mm_add_pd(lv, sx) : _mm_sub_pd(lv, sx);
      __m128d v = _mm_mul_pd(a, ci2);
      _mm_storel_pd(p0, v);
      _mm_storeh_pd(p1, v);
      _mm_storeu_pd(x + i, _mm_sub_pd(_mm_mul_pd(c2, xv), _mm_mul_pd(s2, v)));
    }
#endif
    for (; i < n; i++) {
      PX_REAL sx = s * x[i];
      PX_REAL a = plus == 1 ? L[i * n + k] + sx : L[i * n + k] - sx;
      PX_REAL v = a * cinv;
      L[i * n + k] = v;
      x[i] = c * x[i] - s * v;
    }
  }
  return rank;
}

// PXK_CHOLSOLVE_BODY: x = inv(L L') g with the dense factor L (n x n); the backward pass keeps
// x[i] in a local while it subtracts the terms of rows i + 1.. in order (within an envelope:
// by rows, below)
PX_FN void pxk_cCholSolve(const PX_REAL* restrict L, const PX_REAL* restrict g, PX_REAL* restrict x,
                          int n, int* env) {
  for (int i = 0; i < n; i++) x[i] = g[i];
  if (env) {
    // within the envelope (pxk_cSvEnvelope)
    for (int i = 0; i < n; i++) {
      int f = env[i];
      if (i > f) x[i] = x[i] - pxk_cDot(L + i * n + f, x + f, i - f);
      x[i] = x[i] / L[i * (n + 1)];
    }
    // the backward pass by rows (as MuJoCo's sparse mju_cholSolveSparse): x[i] final, then its
    // term taken from the x[j] of row i's envelope, j < i (each x[j] collects its terms from
    // i = n - 1 down, where the dense pass sums them from i = j + 1 up)
    for (int i = n - 1; i >= 0; i--) {
      PX_REAL xi = x[i] / L[i * (n + 1)];
      x[i] = xi;
      int f = env[i];
      if (i > f) pxk_cAxpy(x + f, L + i * n + f, -xi, i - f);
    }
    return;
  }
  for (int i = 0; i < n; i++) {
    if (i > 0) {
      PX_REAL dt = pxk_cDot(L + i * n, x, i);
      x[i] = x[i] - dt;
    }
    x[i] = x[i] / L[i * (n + 1)];
  }
  for (int i = n - 1; i >= 0; i--) {
    PX_REAL xi = x[i];
    for (int j = i + 1; j < n; j++) xi = xi - L[j * n + i] * x[j];
    x[i] = xi / L[i * (n + 1)];
  }
}
#endif  // PX_KERN_C

// the rows i.. of an elliptic contact in mj_constraintUpdate: force, state (replicated over
// the contact's rows), the cone Hessian into the contact's H when coneH is 1; returns the cost
PX_FN PX_REAL pxk_svElliptic(PX_MDC int i, int useB, int coneH) {
  int id = PXK_E(efc_sv_id, i);
  int dim = PXK_CON(id).dim;
  PXR mu = PXK_CON(id).mu;
  PXR u[6];
  PXR jar0 = useB == 1 ? PXK_E(efc_sv_b, i) : PXK_E(efc_sv_Jaref, i);
  u[0] = jar0 * mu;
  for (int j = 1; j < dim; j++) {
    PXR jar = useB == 1 ? PXK_E(efc_sv_b, i + j) : PXK_E(efc_sv_Jaref, i + j);
    u[j] = jar * PXK_CON(id).friction[j - 1];
  }
  PXR n = u[0];
  PXR tt = PX_ZERO;
  PXK_DOT_BODY(tt, PXK_AL, u, 1, PXK_AL, u, 1, dim - 1)
  PXR t = PX_SQRT(tt);
  PXR mt = mu * t;
  PXR mn = mu * n;
  PXR bot = mn + t;
  PXR s = PX_ZERO;
  if (n >= mt || (t <= PX_R(0.0) && n >= PX_R(0.0))) {
    for (int j = 0; j < dim; j++) PXK_E(efc_sv_force, i + j) = PX_R(0.0);
    PXK_E(efc_sv_state, i) = PXK_CNSTRSTATE_SATISFIED;
  } else if (bot <= PX_R(0.0) || (t <= PX_R(0.0) && n < PX_R(0.0))) {
    for (int j = 0; j < dim; j++) {
      PXR jar = useB == 1 ? PXK_E(efc_sv_b, i + j) : PXK_E(efc_sv_Jaref, i + j);
      PXR c = PX_R(0.5) * PXK_E(efc_sv_Dr, i + j) * jar * jar;
      s += c;
    }
    PXK_E(efc_sv_state, i) = PXK_CNSTRSTATE_QUADRATIC;
  } else {
    PXR mm = mu * mu;
    PXR den = mm * (PX_R(1.0) + mm);
    PXR dm = PXK_E(efc_sv_Dr, i) / den;
    PXR nmt = n - mt;
    PXR c = PX_R(0.5) * dm * nmt * nmt;
    s += c;
    PXR ndm = -dm;
    PXR f0 = ndm * nmt * mu;
    PXK_E(efc_sv_force, i) = f0;
    PXR nf0 = -f0;
    for (int j = 1; j < dim; j++) {
      PXR fj = nf0 / t * u[j] * PXK_CON(id).friction[j - 1];
      PXK_E(efc_sv_force, i + j) = fj;
    }
    PXK_E(efc_sv_state, i) = PXK_CNSTRSTATE_CONE;
    if (coneH == 1) {
      PXR h[36];
      for (int k = 0; k < 36; k++) h[k] = PXK_CON(id).H[k];
      PXR nmu = -mu;
      PXR scl = nmu / t;
      h[0] = PX_R(1.0);
      for (int j = 1; j < dim; j++) h[j] = scl * u[j];
      PXR t3 = t * t * t;
      scl = mn / t3;
      for (int k = 1; k < dim; k++) {
        for (int j = k; j < dim; j++) h[k * dim + j] = scl * u[j] * u[k];
      }
      PXR mnt = mn / t;
      scl = mm - mnt;
      for (int j = 1; j < dim; j++) h[j * (dim + 1)] += scl;
      for (int k = 0; k < dim; k++) {
        PXR wk = k == 0 ? mu : PXK_CON(id).friction[k - 1];
        scl = dm * wk;
        for (int j = k; j < dim; j++) {
          PXR wj = j == 0 ? mu : PXK_CON(id).friction[j - 1];
          PXR f = scl * wj;
          h[k * dim + j] *= f;
        }
      }
      for (int k = 0; k < dim; k++) {
        for (int j = k + 1; j < dim; j++) h[j * dim + k] = h[k * dim + j];
      }
      for (int k = 0; k < 36; k++) PXK_CON(id).H[k] = h[k];
    }
  }
  for (int j = 1; j < dim; j++) PXK_E(efc_sv_state, i + j) = PXK_E(efc_sv_state, i);
  return s;
}

// Body of the constraint update over the problem's rows (mj_constraintUpdate without J'):
// efc_sv_force and efc_sv_state from jar (efc_sv_Jaref, or efc_sv_b when useB is 1), the cost added
// to s (a PXR local of the caller); shared by pxk_svUpdate and the sparse warm start
#define PXK_SVUPDATE_ROWS(s, nefc, ne, nf, useB, coneH)                \
  for (int i = 0; i < nefc; i++) {                                     \
    PXR jar = useB == 1 ? PXK_E(efc_sv_b, i) : PXK_E(efc_sv_Jaref, i); \
    PXR nd = -PXK_E(efc_sv_Dr, i);                                     \
    PXK_E(efc_sv_force, i) = nd * jar;                                 \
  }                                                                    \
  for (int i = 0; i < nefc; i++) {                                     \
    PXR jar = useB == 1 ? PXK_E(efc_sv_b, i) : PXK_E(efc_sv_Jaref, i); \
    PXR dd = PXK_E(efc_sv_Dr, i);                                      \
    if (i < ne) {                                                      \
      PXR c = PX_R(0.5) * dd * jar * jar;                              \
      s += c;                                                          \
      PXK_E(efc_sv_state, i) = PXK_CNSTRSTATE_QUADRATIC;               \
      continue;                                                        \
    }                                                                  \
    if (i < ne + nf) {                                                 \
      PXR r = PXK_E(efc_sv_R, i);                                      \
      PXR f = PXK_E(efc_sv_floss, i);                                  \
      PXR nr = -r;                                                     \
      PXR lo = nr * f;                                                 \
      PXR hi = r * f;                                                  \
      if (jar <= lo) {                                                 \
        PXR a = PX_R(-0.5) * r * f * f;                                \
        PXR b = f * jar;                                               \
        PXR c = a - b;                                                 \
        s += c;                                                        \
        PXK_E(efc_sv_force, i) = f;                                    \
        PXK_E(efc_sv_state, i) = PXK_CNSTRSTATE_LINEARNEG;             \
      } else if (jar >= hi) {                                          \
        PXR a = PX_R(-0.5) * r * f * f;                                \
        PXR b = f * jar;                                               \
        PXR c = a + b;                                                 \
        s += c;                                                        \
        PXR nf2 = -f;                                                  \
        PXK_E(efc_sv_force, i) = nf2;                                  \
        PXK_E(efc_sv_state, i) = PXK_CNSTRSTATE_LINEARPOS;             \
      } else {                                                         \
        PXR c = PX_R(0.5) * dd * jar * jar;                            \
        s += c;                                                        \
        PXK_E(efc_sv_state, i) = PXK_CNSTRSTATE_QUADRATIC;             \
      }                                                                \
      continue;                                                        \
    }                                                                  \
    if (PXK_E(efc_sv_type, i) == PXK_CNSTR_CONTACT_ELLIPTIC) {         \
      PXR c = pxk_svElliptic(PX_MDARGC i, useB, coneH);                \
      s += c;                                                          \
      i += PXK_CON(PXK_E(efc_sv_id, i)).dim - 1;                       \
      continue;                                                        \
    }                                                                  \
    if (jar >= PX_R(0.0)) {                                            \
      PXK_E(efc_sv_force, i) = PX_R(0.0);                              \
      PXK_E(efc_sv_state, i) = PXK_CNSTRSTATE_SATISFIED;               \
    } else {                                                           \
      PXR c = PX_R(0.5) * dd * jar * jar;                              \
      s += c;                                                          \
      PXK_E(efc_sv_state, i) = PXK_CNSTRSTATE_QUADRATIC;               \
    }                                                                  \
  }                                                                    \
  {}

// efc_force and efc_state from jar (efc_sv_Jaref, or efc_sv_b when useB is 1), qfrc_constraint =
// J' efc_force; returns the constraint cost (mj_constraintUpdate without elliptic cones)
PX_FN PX_REAL pxk_svUpdate(PX_MDC int nv, int nefc, int ne, int nf, int useB, int coneH) {
  PXR s = PX_ZERO;
  PXK_SVUPDATE_ROWS(s, nefc, ne, nf, useB, coneH)
  // qfrc_constraint = J' force (mju_mulMatTVec: rows of zero force skipped)
#ifdef PX_KERN_C
  // C fast path: the same element-wise updates, two elements at a time
  PX_REAL* restrict qc = d->efc_sv_qfrc_constraint;
  const PX_REAL* restrict frc = d->efc_sv_force;
  for (int k = 0; k < nv; k++) qc[k] = PX_R(0.0);
  // on a problem with an envelope, each row's columns only (the rest adds zeros)
  int ranged = pxk_cEnv(m, d, nv) ? 1 : 0;
  for (int i = 0; i < nefc; i++) {
    PX_REAL f = frc[i];
    if (f == PX_R(0.0)) continue;
    int lo = ranged == 1 ? d->efc_is_rowlo[i] : 0;
    int len = ranged == 1 ? d->efc_is_rowhi[i] + 1 - lo : nv;
    pxk_cAxpy(qc + lo, d->efc_sv_J + i * nv + lo, f, len);
  }
#else
  for (int k = 0; k < nv; k++) PXK_E(efc_sv_qfrc_constraint, k) = PX_R(0.0);
  for (int i = 0; i < nefc; i++) {
    PXR f = PXK_E(efc_sv_force, i);
    if (f != PX_R(0.0)) {
      for (int k = 0; k < nv; k++) {
        PXR q = PXK_E(efc_sv_qfrc_constraint, k) + PXK_E(efc_sv_J, i * nv + k) * f;
        PXK_E(efc_sv_qfrc_constraint, k) = q;
      }
    }
  }
#endif  // PX_KERN_C
  return s;
}

// Body of res = M vec with the problem's block of M (mju_mulSymVecSparse); res and vec are
// efc_sv_ arrays
#define PXK_SVMULM_BODY(res, vec, nv)                           \
  for (int k_ = 0; k_ < (nv); k_++) PXK_E(res, k_) = PX_R(0.0); \
  for (int i_ = 0; i_ < (nv); i_++) {                           \
    int s_ = PXK_E(efc_sv_Mrowadr, i_);                         \
    int dg_ = PXK_E(efc_sv_Mrownnz, i_) - 1;                    \
    PXR vi_ = PXK_E(vec, i_);                                   \
    PXR t_ = PXK_E(efc_sv_M, s_ + dg_) * vi_;                   \
    PXK_E(res, i_) = t_;                                        \
    for (int k_ = dg_ - 1; k_ >= 0; k_--) {                     \
      int j_ = PXK_E(efc_sv_Mcolind, s_ + k_);                  \
      PXR val_ = PXK_E(efc_sv_M, s_ + k_);                      \
      PXR lo_ = PXK_E(res, i_) + val_ * PXK_E(vec, j_);         \
      PXK_E(res, i_) = lo_;                                     \
      PXR up_ = PXK_E(res, j_) + val_ * vi_;                    \
      PXK_E(res, j_) = up_;                                     \
    }                                                           \
  }

// efc_sv_Mgrad = inv(M) efc_sv_grad with the problem's block of the factor (mj_solveLD)
PX_FN void pxk_svSolveM(PX_MDC int nv) {
  for (int i = 0; i < nv; i++) PXK_E(efc_sv_Mgrad, i) = PXK_E(efc_sv_grad, i);
  for (int k = nv - 1; k >= 0; k--) {
    int nnz = PXK_E(efc_sv_Mrownnz, k);
    if (nnz == 1) continue;
    PXR xk = PXK_E(efc_sv_Mgrad, k);
    if (xk != PX_R(0.0)) {
      int s = PXK_E(efc_sv_Mrowadr, k);
      for (int a = s; a < s + nnz - 1; a++) {
        int c = PXK_E(efc_sv_Mcolind, a);
        PXR t = PXK_E(efc_sv_Mgrad, c) - PXK_E(efc_sv_LD, a) * xk;
        PXK_E(efc_sv_Mgrad, c) = t;
      }
    }
  }
  for (int k = 0; k < nv; k++) {
    PXR t = PXK_E(efc_sv_Mgrad, k) * PXK_E(efc_sv_LDiagInv, k);
    PXK_E(efc_sv_Mgrad, k) = t;
  }
  for (int k = 0; k < nv; k++) {
    int nnz = PXK_E(efc_sv_Mrownnz, k) - 1;
    if (nnz <= 0) continue;
    int s = PXK_E(efc_sv_Mrowadr, k);
    PXR r0 = PX_ZERO;
    PXR r1 = PX_ZERO;
    PXR r2 = PX_ZERO;
    PXR r3 = PX_ZERO;
    int i = 0;
    for (; i <= nnz - 4; i += 4) {
      r0 += PXK_E(efc_sv_LD, s + i) * PXK_E(efc_sv_Mgrad, PXK_E(efc_sv_Mcolind, s + i));
      r1 += PXK_E(efc_sv_LD, s + i + 1) * PXK_E(efc_sv_Mgrad, PXK_E(efc_sv_Mcolind, s + i + 1));
      r2 += PXK_E(efc_sv_LD, s + i + 2) * PXK_E(efc_sv_Mgrad, PXK_E(efc_sv_Mcolind, s + i + 2));
      r3 += PXK_E(efc_sv_LD, s + i + 3) * PXK_E(efc_sv_Mgrad, PXK_E(efc_sv_Mcolind, s + i + 3));
    }
    PXR dot = (r0 + r2) + (r1 + r3);
    for (; i < nnz; i++) {
      dot += PXK_E(efc_sv_LD, s + i) * PXK_E(efc_sv_Mgrad, PXK_E(efc_sv_Mcolind, s + i));
    }
    PXR t = PXK_E(efc_sv_Mgrad, k) - dot;
    PXK_E(efc_sv_Mgrad, k) = t;
  }
}

// H = M + J' diag(efc_sv_D) J in the lower triangle of efc_sv_L (mju_sqrMatTD_impl without
// the upper triangle, then mju_addToSymSparse), D = efc_D on quadratic rows, else 0
PX_FN void pxk_svMakeHessian(PX_MDC int nv, int nefc) {
  for (int i = 0; i < nefc; i++) {
    PXK_E(efc_sv_D, i) =
        PXK_E(efc_sv_state, i) == PXK_CNSTRSTATE_QUADRATIC ? PXK_E(efc_sv_Dr, i) : PX_R(0.0);
  }
#ifdef PX_KERN_C
  // C fast path: the same element-wise updates through local pointers, two at a time
  PX_REAL* restrict hl = d->efc_sv_L;
  const int* env = pxk_cEnv(m, d, nv);
  int ranged = env ? 1 : 0;
  if (ranged == 1) {
    // on a problem with an envelope, only its entries: nothing reads L outside it
    // (pxk_svCholFactor, pxk_cCholUpdate, pxk_cCholSolve)
    for (int i = 0; i < nv; i++) {
      for (int k = env[i]; k <= i; k++) hl[i * nv + k] = PX_R(0.0);
    }
  } else {
    for (int k = 0; k < nv * nv; k++) hl[k] = PX_R(0.0);
  }
  for (int j = 0; j < nefc; j++) {
    PX_REAL dj = d->efc_sv_D[j];
    if (dj == PX_R(0.0)) continue;
    const PX_REAL* restrict jj = d->efc_sv_J + j * nv;
    // on a problem with an envelope, from the row's first column (the rest adds zeros)
    int lo = ranged == 1 ? d->efc_is_rowlo[j] : 0;
    int hi = ranged == 1 ? d->efc_is_rowhi[j] : nv - 1;
    for (int i = lo; i <= hi; i++) {
      PX_REAL t = jj[i];
      if (t == PX_R(0.0)) continue;
      PX_REAL scl = t * dj;
      pxk_cAxpy(hl + i * nv + lo, jj + lo, scl, i + 1 - lo);
    }
  }
  const int* restrict mra = d->efc_sv_Mrowadr;
  const int* restrict mrn = d->efc_sv_Mrownnz;
  const int* restrict mci = d->efc_sv_Mcolind;
  const PX_REAL* restrict mm = d->efc_sv_M;
  for (int i = 0; i < nv; i++) {
    int start = mra[i];
    PX_REAL* restrict hi = hl + i * nv;
    for (int a = start; a < start + mrn[i]; a++) hi[mci[a]] = hi[mci[a]] + mm[a];
  }
#else
  for (int k = 0; k < nv * nv; k++) PXK_E(efc_sv_L, k) = PX_R(0.0);
  for (int j = 0; j < nefc; j++) {
    PXR dj = PXK_E(efc_sv_D, j);
    if (dj == PX_R(0.0)) continue;
    for (int i = 0; i < nv; i++) {
      PXR t = PXK_E(efc_sv_J, j * nv + i);
      if (t == PX_R(0.0)) continue;
      PXR scl = t * dj;
      for (int c = 0; c <= i; c++) {
        PXR h = PXK_E(efc_sv_L, i * nv + c) + PXK_E(efc_sv_J, j * nv + c) * scl;
        PXK_E(efc_sv_L, i * nv + c) = h;
      }
    }
  }
  for (int i = 0; i < nv; i++) {
    int start = PXK_E(efc_sv_Mrowadr, i);
    for (int a = start; a < start + PXK_E(efc_sv_Mrownnz, i); a++) {
      int j = PXK_E(efc_sv_Mcolind, a);
      PXR h = PXK_E(efc_sv_L, i * nv + j) + PXK_E(efc_sv_M, a);
      PXK_E(efc_sv_L, i * nv + j) = h;
    }
  }
#endif  // PX_KERN_C
}

// in-place Cholesky factor of efc_sv_L (mju_cholFactor with mindiag mjMINVAL)
PX_FN void pxk_svCholFactor(PX_MDC int n) {
#ifdef PX_KERN_C
  int* env = pxk_cEnv(m, d, n);
  if (env) {
    // within the envelope (pxk_cSvEnvelope): the sums start at the later of the two rows' first
    // columns; the rows starting after j keep their 0 at column j
    PX_REAL* L = d->efc_sv_L;
    const int* act = env + 3 * n;
    int nact = 0;
    for (int j = 0; j < n; j++) {
      pxk_cEnvNext(env, n, j, &nact);
      int fj = env[j];
      PX_REAL tmp = L[j * (n + 1)];
      if (j > fj) tmp = tmp - pxk_cDot(L + j * n + fj, L + j * n + fj, j - fj);
      int deficient = tmp < PXK_MINVAL ? 1 : 0;
      if (deficient == 1) tmp = PXK_MINVAL;
      L[j * (n + 1)] = PX_SQRT(tmp);
      if (deficient == 1) {
        for (int i = j + 1; i < n; i++) L[i * n + j] = PX_R(0.0);
        continue;
      }
      PX_REAL inv = PX_R(1.0) / L[j * (n + 1)];
      for (int a = 0; a < nact; a++) {
        int i = act[a];
        int fi = env[i];
        int f = fi > fj ? fi : fj;
        PX_REAL dt = j > f ? pxk_cDot(L + i * n + f, L + j * n + f, j - f) : PX_R(0.0);
        L[i * n + j] = (L[i * n + j] - dt) * inv;
      }
    }
    return;
  }
#endif  // PX_KERN_C
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

// Body of mju_cholUpdate: rank-one update (plus = 1) or downdate of the factor in efc_sv_ array
// Lf with the vector at element xo of efc_sv_ array xf, which is consumed; rank is an int local
#define PXK_CHOLUPDATE_BODY(Lf, xf, xo, n, plus, rank)                                          \
  rank = n;                                                                                     \
  for (int k_ = 0; k_ < (n); k_++) {                                                            \
    PXR xk_ = PXK_E(xf, (xo) + k_);                                                             \
    if (xk_ != PX_R(0.0)) {                                                                     \
      PXR lkk_ = PXK_E(Lf, k_ * ((n) + 1));                                                     \
      PXR ll_ = lkk_ * lkk_;                                                                    \
      PXR xx_ = xk_ * xk_;                                                                      \
      PXR nxx_ = -xx_;                                                                          \
      PXR tmp_ = (plus) == 1 ? ll_ + xx_ : ll_ + nxx_;                                          \
      if (tmp_ < PXK_MINVAL) {                                                                  \
        tmp_ = PXK_MINVAL;                                                                      \
        rank = rank - 1;                                                                        \
      }                                                                                         \
      PXR r_ = PX_SQRT(tmp_);                                                                   \
      PXR c_ = r_ / lkk_;                                                                       \
      PXR cinv_ = PX_R(1.0) / c_;                                                               \
      PXR s_ = xk_ / lkk_;                                                                      \
      PXK_E(Lf, k_*((n) + 1)) = r_;                                                             \
      for (int i_ = k_ + 1; i_ < (n); i_++) {                                                   \
        PXR sx_ = s_ * PXK_E(xf, (xo) + i_);                                                    \
        PXR a_ = (plus) == 1 ? PXK_E(Lf, i_ * (n) + k_) + sx_ : PXK_E(Lf, i_ * (n) + k_) - sx_; \
        PXR v_ = a_ * cinv_;                                                                    \
        PXK_E(Lf, i_*(n) + k_) = v_;                                                            \
      }                                                                                         \
      for (int i_ = k_ + 1; i_ < (n); i_++) {                                                   \
        PXR v_ = c_ * PXK_E(xf, (xo) + i_) - s_ * PXK_E(Lf, i_ * (n) + k_);                     \
        PXK_E(xf, (xo) + i_) = v_;                                                              \
      }                                                                                         \
    }                                                                                           \
  }

// rank-one update of efc_sv_L with efc_sv_cholupd; returns the rank
PX_FN int pxk_svCholUpdate(PX_MDC int n, int plus) {
#ifdef PX_KERN_C
  return pxk_cCholUpdate(d->efc_sv_L, d->efc_sv_cholupd, n, plus, pxk_cEnv(m, d, n));
#else
  int rank = n;
  PXK_CHOLUPDATE_BODY(efc_sv_L, efc_sv_cholupd, 0, n, plus, rank)
  return rank;
#endif  // PX_KERN_C
}

// Body of mju_cholSolve: efc_sv_Mgrad = inv(L L') efc_sv_grad with the factor in Lf
#define PXK_CHOLSOLVE_BODY(Lf, n)                                                            \
  for (int i_ = 0; i_ < (n); i_++) PXK_E(efc_sv_Mgrad, i_) = PXK_E(efc_sv_grad, i_);         \
  for (int i_ = 0; i_ < (n); i_++) {                                                         \
    if (i_ > 0) {                                                                            \
      PXR dt_ = PX_ZERO;                                                                     \
      PXK_DOT_BODY(dt_, PXK_AE, Lf, i_*(n), PXK_AE, efc_sv_Mgrad, 0, i_)                     \
      PXR v_ = PXK_E(efc_sv_Mgrad, i_) - dt_;                                                \
      PXK_E(efc_sv_Mgrad, i_) = v_;                                                          \
    }                                                                                        \
    PXR w_ = PXK_E(efc_sv_Mgrad, i_) / PXK_E(Lf, i_ * ((n) + 1));                            \
    PXK_E(efc_sv_Mgrad, i_) = w_;                                                            \
  }                                                                                          \
  for (int i_ = (n)-1; i_ >= 0; i_--) {                                                      \
    for (int j_ = i_ + 1; j_ < (n); j_++) {                                                  \
      PXR v_ = PXK_E(efc_sv_Mgrad, i_) - PXK_E(Lf, j_ * (n) + i_) * PXK_E(efc_sv_Mgrad, j_); \
      PXK_E(efc_sv_Mgrad, i_) = v_;                                                          \
    }                                                                                        \
    PXR w_ = PXK_E(efc_sv_Mgrad, i_) / PXK_E(Lf, i_ * ((n) + 1));                            \
    PXK_E(efc_sv_Mgrad, i_) = w_;                                                            \
  }

// efc_sv_Mgrad = inv(H) efc_sv_grad: the factor with cones (Lcone) when some row is in the cone
PX_FN void pxk_svCholSolve(PX_MDC int n, int ncone) {
#ifdef PX_KERN_C
  pxk_cCholSolve(ncone > 0 ? d->efc_sv_Lcone : d->efc_sv_L, d->efc_sv_grad, d->efc_sv_Mgrad, n,
                 pxk_cEnv(m, d, n));
#else
  if (ncone > 0) {
    PXK_CHOLSOLVE_BODY(efc_sv_Lcone, n)
  } else {
    PXK_CHOLSOLVE_BODY(efc_sv_L, n)
  }
#endif  // PX_KERN_C
}

// Cholesky factor of a local dim x dim matrix in place (mju_cholFactor, mindiag mjMINVAL)
PX_FN int pxk_svCholLocal(PX_INOUT(PX_REAL, a, 36), int n, PX_REAL mindiag) {
  int rank = n;
  for (int j = 0; j < n; j++) {
    PXR tmp = a[j * (n + 1)];
    if (j > 0) {
      PXR dt = PX_ZERO;
      PXK_DOT_BODY(dt, PXK_AL, a, j * n, PXK_AL, a, j * n, j)
      tmp = tmp - dt;
    }
    int deficient = tmp < mindiag ? 1 : 0;
    if (deficient == 1) {
      tmp = mindiag;
      rank = rank - 1;
    }
    a[j * (n + 1)] = PX_SQRT(tmp);
    if (deficient == 1) {
      for (int i = j + 1; i < n; i++) a[i * n + j] = PX_R(0.0);
    } else {
      PXR inv = PX_R(1.0) / a[j * (n + 1)];
      for (int i = j + 1; i < n; i++) {
        PXR dt = PX_ZERO;
        PXK_DOT_BODY(dt, PXK_AL, a, i * n, PXK_AL, a, j * n, j)
        PXR v = (a[i * n + j] - dt) * inv;
        a[i * n + j] = v;
      }
    }
  }
  return rank;
}

// Lcone = the factor of H plus the cone Hessians of the rows in the cone (HessianCone, dense)
PX_FN void pxk_svHessianCone(PX_MDC int nv, int nefc) {
  for (int k = 0; k < nv * nv; k++) PXK_E(efc_sv_Lcone, k) = PXK_E(efc_sv_L, k);
  PXR local[36];
  for (int i = 0; i < nefc; i++) {
    if (PXK_E(efc_sv_state, i) == PXK_CNSTRSTATE_CONE) {
      int id = PXK_E(efc_sv_id, i);
      int dim = PXK_CON(id).dim;
      for (int k = 0; k < dim * dim; k++) local[k] = PXK_CON(id).H[k];
      pxk_svCholLocal(local, dim, PXK_MINVAL);
      for (int k = 0; k < dim * nv; k++) PXK_E(efc_sv_LTJ, k) = PX_R(0.0);
      for (int r = 0; r < dim; r++) {
        for (int c = 0; c <= r; c++) {
          PXR l = local[r * dim + c];
          for (int k = 0; k < nv; k++) {
            PXR v = PXK_E(efc_sv_LTJ, c * nv + k) + PXK_E(efc_sv_J, (i + r) * nv + k) * l;
            PXK_E(efc_sv_LTJ, c * nv + k) = v;
          }
        }
      }
      for (int r = 0; r < dim; r++) {
#ifdef PX_KERN_C
        pxk_cCholUpdate(d->efc_sv_Lcone, d->efc_sv_LTJ + r * nv, nv, 1, pxk_cEnv(m, d, nv));
#else
        int rank = nv;
        PXK_CHOLUPDATE_BODY(efc_sv_Lcone, efc_sv_LTJ, r * nv, nv, 1, rank)
#endif  // PX_KERN_C
      }
      i += dim - 1;
    }
  }
}

// rows in the cone state
PX_FN int pxk_svNcone(PX_MDC int nefc) {
  int n = 0;
  for (int i = 0; i < nefc; i++) n += PXK_E(efc_sv_state, i) == PXK_CNSTRSTATE_CONE ? 1 : 0;
  return n;
}

// H recomputed from the states and factored, cones added (FactorizeHessian, dense)
PX_FN void pxk_svFactorHessian(PX_MDC int nv, int nefc) {
  pxk_svMakeHessian(PX_MDARGC nv, nefc);
  pxk_svCholFactor(PX_MDARGC nv);
  if (pxk_svNcone(PX_MDARGC nefc) > 0) pxk_svHessianCone(PX_MDARGC nv, nefc);
}

// the factor updated for the rows whose state entered or left the quadratic zone, refactored
// from scratch when an update loses rank (HessianIncremental, dense)
PX_FN void pxk_svHessianIncremental(PX_MDC int nv, int nefc) {
  for (int i = 0; i < nefc; i++) {
    int olds = PXK_E(efc_sv_oldstate, i);
    int news = PXK_E(efc_sv_state, i);
    int flag = -1;
    if (olds != PXK_CNSTRSTATE_QUADRATIC && news == PXK_CNSTRSTATE_QUADRATIC) {
      flag = 1;
    } else if (olds == PXK_CNSTRSTATE_QUADRATIC && news != PXK_CNSTRSTATE_QUADRATIC) {
      flag = 0;
    }
    if (flag != -1) {
      PXR sd = PX_SQRT(PXK_E(efc_sv_Dr, i));
      for (int k = 0; k < nv; k++) {
        PXR v = PXK_E(efc_sv_J, i * nv + k) * sd;
        PXK_E(efc_sv_cholupd, k) = v;
      }
      int rank = pxk_svCholUpdate(PX_MDARGC nv, flag);
      if (rank < nv) {
        pxk_svFactorHessian(PX_MDARGC nv, nefc);
        return;
      }
    }
  }
  if (pxk_svNcone(PX_MDARGC nefc) > 0) pxk_svHessianCone(PX_MDARGC nv, nefc);
}

// efc_force, efc_state, qfrc_constraint at efc_sv_Jaref, plus the Gauss cost, which is returned
// (PrimalUpdateConstraint; the caller keeps it as quadGauss[0])
PX_FN PX_REAL pxk_svUpdateConstraint(PX_MDC int nv, int nefc, int ne, int nf, int coneH) {
  pxk_svUpdate(PX_MDARGC nv, nefc, ne, nf, 0, coneH);
  PXR g = PX_ZERO;
  for (int i = 0; i < nv; i++) {
    PXR a = PXK_E(efc_sv_qacc, i) - PXK_E(efc_sv_qacc_smooth, i);
    PXR b = PXK_E(efc_sv_Ma, i) - PXK_E(efc_sv_qfrc_smooth, i);
    PXR t = PX_R(0.5) * b * a;
    g += t;
  }
  return g;
}

// grad = Ma - qfrc_smooth - qfrc_constraint (PrimalUpdateGrad)
PX_FN void pxk_svGrad(PX_MDC int nv) {
  for (int i = 0; i < nv; i++) {
    PXR g = PXK_E(efc_sv_Ma, i) - PXK_E(efc_sv_qfrc_smooth, i) - PXK_E(efc_sv_qfrc_constraint, i);
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
PX_FN void pxk_svPrepare(PX_MDC int nv, int nefc, PX_INOUT(PX_REAL, qg, 3)) {
  PXR a = PX_ZERO;
  PXR b = PX_ZERO;
  PXR c = PX_ZERO;
  PXK_DOT_BODY(a, PXK_AE, efc_sv_search, 0, PXK_AE, efc_sv_Ma, 0, nv)
  PXK_DOT_BODY(b, PXK_AE, efc_sv_qfrc_smooth, 0, PXK_AE, efc_sv_search, 0, nv)
  PXK_DOT_BODY(c, PXK_AE, efc_sv_search, 0, PXK_AE, efc_sv_Mv, 0, nv)
  qg[1] = a - b;
  qg[2] = PX_R(0.5) * c;
  for (int i = 0; i < nefc; i++) {
    PXR jv = PXK_E(efc_sv_Jv, i);
    PXR jaref = PXK_E(efc_sv_Jaref, i);
    PXR dd = PXK_E(efc_sv_Dr, i);
    PXR dj0 = dd * jaref;
    PXR q0 = jaref * dj0;
    PXR q1 = jv * dj0;
    PXR q2 = jv * dd * jv;
    if (PXK_E(efc_sv_type, i) == PXK_CNSTR_CONTACT_ELLIPTIC) {
      int id = PXK_E(efc_sv_id, i);
      int dim = PXK_CON(id).dim;
      PXR mu = PXK_CON(id).mu;
      for (int j = 1; j < dim; j++) {
        PXR dj = PXK_E(efc_sv_Dr, i + j);
        PXR aj = PXK_E(efc_sv_Jaref, i + j);
        PXR vj = PXK_E(efc_sv_Jv, i + j);
        PXR djj = dj * aj;
        q0 += aj * djj;
        q1 += vj * djj;
        PXR w = vj * dj * vj;
        q2 += w;
      }
      PXR u0 = jaref * mu;
      PXR v0 = jv * mu;
      PXR uu = PX_ZERO;
      PXR uv = PX_ZERO;
      PXR vv = PX_ZERO;
      for (int j = 1; j < dim; j++) {
        PXR f = PXK_CON(id).friction[j - 1];
        PXR uj = PXK_E(efc_sv_Jaref, i + j) * f;
        PXR vj = PXK_E(efc_sv_Jv, i + j) * f;
        uu += uj * uj;
        uv += uj * vj;
        vv += vj * vj;
      }
      PXK_E(efc_sv_quad, 3 * i + 3) = u0;
      PXK_E(efc_sv_quad, 3 * i + 4) = v0;
      PXK_E(efc_sv_quad, 3 * i + 5) = uu;
      PXK_E(efc_sv_quad, 3 * i + 6) = uv;
      PXK_E(efc_sv_quad, 3 * i + 7) = vv;
      PXR mm = mu * mu;
      PXR den = mm * (PX_R(1.0) + mm);
      PXK_E(efc_sv_quad, 3 * i + 8) = dd / den;
      q0 *= PX_R(0.5);
      q2 *= PX_R(0.5);
      PXK_E(efc_sv_quad, 3 * i) = q0;
      PXK_E(efc_sv_quad, 3 * i + 1) = q1;
      PXK_E(efc_sv_quad, 3 * i + 2) = q2;
      i += dim - 1;
      continue;
    }
    q0 *= PX_R(0.5);
    q2 *= PX_R(0.5);
    PXK_E(efc_sv_quad, 3 * i) = q0;
    PXK_E(efc_sv_quad, 3 * i + 1) = q1;
    PXK_E(efc_sv_quad, 3 * i + 2) = q2;
  }
}

// cost(alpha) - cost(0) of an elliptic cone from its quadratics at element q of efc_sv_quad
// (ellipticCostDif)
PX_FN PX_REAL pxk_svEllipticCostDif(PX_MDC int q, PX_REAL alpha, PX_REAL mu, PX_REAL dm) {
  PXR u0 = PXK_E(efc_sv_quad, q + 3);
  PXR v0 = PXK_E(efc_sv_quad, q + 4);
  PXR uu = PXK_E(efc_sv_quad, q + 5);
  PXR uv = PXK_E(efc_sv_quad, q + 6);
  PXR vv = PXK_E(efc_sv_quad, q + 7);
  PXR qd0 = PXK_E(efc_sv_quad, q);
  PXR qd1 = PXK_E(efc_sv_quad, q + 1);
  PXR qd2 = PXK_E(efc_sv_quad, q + 2);
  int z0 = 0;
  PXR t0 = PX_ZERO;
  if (uu <= PX_R(0.0)) {
    z0 = u0 < PX_R(0.0) ? 2 : 1;
  } else {
    t0 = PX_SQRT(uu);
    PXR mt0 = mu * t0;
    PXR b0 = mu * u0 + t0;
    if (u0 >= mt0) {
      z0 = 1;
    } else if (b0 <= PX_R(0.0)) {
      z0 = 2;
    } else {
      z0 = 3;
    }
  }
  PXR n = u0 + alpha * v0;
  PXR tw = PX_R(2.0) * uv + alpha * vv;
  PXR tsqr = uu + alpha * tw;
  int za = 0;
  PXR t = PX_ZERO;
  if (tsqr <= PX_R(0.0)) {
    za = n < PX_R(0.0) ? 2 : 1;
  } else {
    t = PX_SQRT(tsqr);
    PXR mt = mu * t;
    PXR b = mu * n + t;
    if (n >= mt) {
      za = 1;
    } else if (b <= PX_R(0.0)) {
      za = 2;
    } else {
      za = 3;
    }
  }
  if (z0 == 1 && za == 1) return PX_ZERO;
  if (z0 == 2 && za == 2) {
    PXR c = alpha * alpha * qd2 + alpha * qd1;
    return c;
  }
  if (z0 == 3 && za == 3) {
    PXR tsd = alpha * tw;
    PXR td = tsd / (t + t0);
    PXR rd = alpha * v0 - mu * td;
    PXR r0 = u0 - mu * t0;
    PXR c = PX_R(0.5) * dm * rd * (PX_R(2.0) * r0 + rd);
    return c;
  }
  if (z0 == 3 && za == 2) {
    PXR dq = alpha * (alpha * qd2 + qd1);
    PXR b0 = mu * u0 + t0;
    PXR g0 = PX_R(0.5) * dm * b0 * b0;
    PXR c = dq + g0;
    return c;
  }
  if (z0 == 2 && za == 3) {
    PXR dq = alpha * (alpha * qd2 + qd1);
    PXR b = mu * n + t;
    PXR g = PX_R(0.5) * dm * b * b;
    PXR c = dq - g;
    return c;
  }
  if (z0 == 1 && za == 2) {
    PXR c = alpha * alpha * qd2 + alpha * qd1 + qd0;
    return c;
  }
  if (z0 == 1 && za == 3) {
    PXR r = n - mu * t;
    PXR c = PX_R(0.5) * dm * r * r;
    return c;
  }
  if (z0 == 3 && za == 1) {
    PXR r0 = u0 - mu * t0;
    PXR c = PX_R(-0.5) * dm * r0 * r0;
    return c;
  }
  if (z0 == 2 && za == 1) {
    PXR c = -qd0;
    return c;
  }
  return PX_ZERO;
}

// cost(alpha) - cost(0) and its derivatives at p[ALPHA] into p (PrimalEval, no elliptic cones)
PX_FN void pxk_svEval(PX_MDC int nefc, int ne, int nf, PX_INOUT(PX_REAL, p, 4),
                      PX_IN(PX_REAL, qg, 3)) {
  PXR alpha = p[PXK_LS_ALPHA];
  PXR cost = PX_ZERO;
  PXR d0 = PX_ZERO;
  PXR d1 = PX_ZERO;
  PXR t0 = PX_ZERO;
  PXR t1 = qg[1];
  PXR t2 = qg[2];
  for (int i = 0; i < nefc; i++) {
    if (i < ne) {
      t1 += PXK_E(efc_sv_quad, 3 * i + 1);
      t2 += PXK_E(efc_sv_quad, 3 * i + 2);
      continue;
    }
    PXR start = PXK_E(efc_sv_Jaref, i);
    PXR dir = PXK_E(efc_sv_Jv, i);
    PXR x = start + alpha * dir;
    if (i < ne + nf) {
      PXR f = PXK_E(efc_sv_floss, i);
      PXR dd = PXK_E(efc_sv_Dr, i);
      PXR rf = PXK_E(efc_sv_R, i) * f;
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
    if (PXK_E(efc_sv_type, i) == PXK_CNSTR_CONTACT_ELLIPTIC) {
      int id = PXK_E(efc_sv_id, i);
      int dim = PXK_CON(id).dim;
      PXR mu = PXK_CON(id).mu;
      int q = 3 * i;
      PXR u0 = PXK_E(efc_sv_quad, q + 3);
      PXR v0 = PXK_E(efc_sv_quad, q + 4);
      PXR uu = PXK_E(efc_sv_quad, q + 5);
      PXR uv = PXK_E(efc_sv_quad, q + 6);
      PXR vv = PXK_E(efc_sv_quad, q + 7);
      PXR dm = PXK_E(efc_sv_quad, q + 8);
      PXR dc = pxk_svEllipticCostDif(PX_MDARGC q, alpha, mu, dm);
      cost += dc;
      PXR n = u0 + alpha * v0;
      PXR tw = PX_R(2.0) * uv + alpha * vv;
      PXR tsqr = uu + alpha * tw;
      PXR qd1 = PXK_E(efc_sv_quad, q + 1);
      PXR qd2 = PXK_E(efc_sv_quad, q + 2);
      int bottom = 0;
      if (tsqr <= PX_R(0.0)) {
        if (n < PX_R(0.0)) bottom = 1;
      } else {
        PXR t = PX_SQRT(tsqr);
        PXR mt = mu * t;
        PXR b = mu * n + t;
        if (n >= mt) {
          bottom = 0;
        } else if (b <= PX_R(0.0)) {
          bottom = 1;
        } else {
          PXR n1 = v0;
          PXR w = uv + alpha * vv;
          PXR t1v = w / t;
          PXR tt = t * t;
          PXR t2v = vv / t - w * t1v / tt;
          PXR a = n - mt;
          PXR bb = n1 - mu * t1v;
          PXR g1 = dm * a * bb;
          d0 += g1;
          PXR nmu = -mu;
          PXR e = bb * bb + a * (nmu * t2v);
          PXR g2 = dm * e;
          d1 += g2;
        }
      }
      if (bottom == 1) {
        PXR g1 = PX_R(2.0) * alpha * qd2 + qd1;
        d0 += g1;
        PXR g2 = PX_R(2.0) * qd2;
        d1 += g2;
      }
      i += dim - 1;
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
PX_FN void pxk_svNewtonPoint(PX_MDC int nefc, int ne, int nf, PX_IN(PX_REAL, p, 4),
                             PX_OUT(PX_REAL, pn, 4), PX_IN(PX_REAL, qg, 3)) {
  PXR step = p[PXK_LS_D0] / p[PXK_LS_D1];
  pn[PXK_LS_ALPHA] = p[PXK_LS_ALPHA] - step;
  pxk_svEval(PX_MDARGC nefc, ne, nf, pn, qg);
}

// bracket point p moved to the candidate (rows of cand) that improves it, its Newton point
// into pn; returns 0 when no candidate did (updateBracket)
PX_FN int pxk_svBracket(PX_MDC int nefc, int ne, int nf, PX_INOUT(PX_REAL, p, 4),
                        PX_IN(PX_REAL, cand, 12), PX_INOUT(PX_REAL, pn, 4), PX_IN(PX_REAL, qg, 3)) {
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
  if (flag != 0) pxk_svNewtonPoint(PX_MDARGC nefc, ne, nf, p, pn, qg);
  return flag;
}

// MuJoCo's exact line search along efc_sv_search (PrimalSearch): returns alpha and sets
// res[0] = the improvement (cost(0) - cost(alpha)); Mv, Jv and the quadratics are set here
PX_FN PX_REAL pxk_svSearch(PX_MDC int nv, int nefc, int ne, int nf, PX_REAL scale,
                           PX_INOUT(PX_REAL, qg, 3), PX_OUT(PX_REAL, res, 1)) {
  res[0] = PX_R(0.0);
  PXR ss = PX_ZERO;
  PXK_DOT_BODY(ss, PXK_AE, efc_sv_search, 0, PXK_AE, efc_sv_search, 0, nv)
  PXR snorm = PX_SQRT(ss);
  if (snorm < PXK_MINVAL) return PX_ZERO;
  PXR tol = MOPT(tolerance) * MOPT(ls_tolerance);
  PXR gtol = tol * snorm / scale;
  int lsmax = MOPT(ls_iterations);
#ifdef PX_KERN_C
  pxk_cSvMulM(d, d->efc_sv_Mv, d->efc_sv_search, nv);
#else
  PXK_SVMULM_BODY(efc_sv_Mv, efc_sv_search, nv)
#endif  // PX_KERN_C
#ifdef PX_KERN_C
  for (int i = 0; i < nefc; i++) d->efc_sv_Jv[i] = pxk_cSvJdot(m, d, i, d->efc_sv_search, nv);
#else
  for (int i = 0; i < nefc; i++) {
    PXR s = PX_ZERO;
    PXK_DOT_BODY(s, PXK_AE, efc_sv_J, i * nv, PXK_AE, efc_sv_search, 0, nv)
    PXK_E(efc_sv_Jv, i) = s;
  }
#endif  // PX_KERN_C
  pxk_svPrepare(PX_MDARGC nv, nefc, qg);
  int lsiter = 0;
  PXR p0[4];
  PXR p1[4];
  PXR p2[4];
  PXR pmid[4];
  PXR p1n[4];
  PXR p2n[4];
  PXR cand[12];
  p0[PXK_LS_ALPHA] = PX_R(0.0);
  pxk_svEval(PX_MDARGC nefc, ne, nf, p0, qg);
  lsiter++;
  pxk_svNewtonPoint(PX_MDARGC nefc, ne, nf, p0, p1, qg);
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
    pxk_svEval(PX_MDARGC nefc, ne, nf, p1, qg);
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
  pxk_svNewtonPoint(PX_MDARGC nefc, ne, nf, p1, p1n, qg);
  lsiter++;
  while (lsiter < lsmax) {
    PXR sum = p1[PXK_LS_ALPHA] + p2[PXK_LS_ALPHA];
    pmid[PXK_LS_ALPHA] = PX_R(0.5) * sum;
    pxk_svEval(PX_MDARGC nefc, ne, nf, pmid, qg);
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
    int b1 = pxk_svBracket(PX_MDARGC nefc, ne, nf, p1, cand, p1n, qg);
    if (b1 != 0) lsiter++;
    int b2 = pxk_svBracket(PX_MDARGC nefc, ne, nf, p2, cand, p2n, qg);
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
PX_FN PX_REAL pxk_svDecrement(PX_MDC int nv, PX_REAL scale) {
  PXR dt = PX_ZERO;
  PXK_DOT_BODY(dt, PXK_AE, efc_sv_grad, 0, PXK_AE, efc_sv_Mgrad, 0, nv)
  PXR v = PX_R(0.5) * scale * dt;
  return v > PX_R(0.0) ? v : PX_ZERO;
}

// scale times the norm of grad
PX_FN PX_REAL pxk_svGradNorm(PX_MDC int nv, PX_REAL scale) {
  PXR gg = PX_ZERO;
  PXK_DOT_BODY(gg, PXK_AE, efc_sv_grad, 0, PXK_AE, efc_sv_grad, 0, nv)
  PXR v = scale * PX_SQRT(gg);
  return v;
}

// the CG search direction: -Mgrad + beta search with MuJoCo's Hager-Zhang beta (a restart to
// steepest descent when conjugacy is lost, the dynamic lower bound)
PX_FN void pxk_svCGDirection(PX_MDC int nv) {
  for (int i = 0; i < nv; i++) {
    PXR a = PXK_E(efc_sv_grad, i) - PXK_E(efc_sv_gradold, i);
    PXK_E(efc_sv_graddif, i) = a;
    PXR b = PXK_E(efc_sv_Mgrad, i) - PXK_E(efc_sv_Mgradold, i);
    PXK_E(efc_sv_Mgraddif, i) = b;
  }
  PXR beta = PX_ZERO;
  PXR dy = PX_ZERO;
  PXK_DOT_BODY(dy, PXK_AE, efc_sv_search, 0, PXK_AE, efc_sv_graddif, 0, nv)
  if (dy < PXK_MINVAL) {
    beta = PX_ZERO;
  } else {
    PXR yMy = PX_ZERO;
    PXR yMg = PX_ZERO;
    PXR dg = PX_ZERO;
    PXK_DOT_BODY(yMy, PXK_AE, efc_sv_graddif, 0, PXK_AE, efc_sv_Mgraddif, 0, nv)
    PXK_DOT_BODY(yMg, PXK_AE, efc_sv_graddif, 0, PXK_AE, efc_sv_Mgrad, 0, nv)
    PXK_DOT_BODY(dg, PXK_AE, efc_sv_search, 0, PXK_AE, efc_sv_grad, 0, nv)
    PXR q = yMy / dy;
    PXR hz = (yMg - PX_R(2.0) * q * dg) / dy;
    PXR dd = PX_ZERO;
    PXR gg = PX_ZERO;
    PXK_DOT_BODY(dd, PXK_AE, efc_sv_search, 0, PXK_AE, efc_sv_search, 0, nv)
    PXK_DOT_BODY(gg, PXK_AE, efc_sv_grad, 0, PXK_AE, efc_sv_grad, 0, nv)
    PXR dn = PX_SQRT(dd);
    PXR gn = PX_SQRT(gg);
    PXR m1 = pxk_cnMin(PX_R(0.01), gn);
    PXR den = dn * m1;
    PXR eta = PX_R(-1.0) / pxk_cnMax(PXK_MINVAL, den);
    beta = pxk_cnMax(eta, hz);
  }
  for (int i = 0; i < nv; i++) {
    PXR nm = -PXK_E(efc_sv_Mgrad, i);
    PXR v = nm + beta * PXK_E(efc_sv_search, i);
    PXK_E(efc_sv_search, i) = v;
  }
}

// the primal solvers' start on the problem in efc_sv_* from its qacc (mj_solPrimal before its
// iterations, dense): Newton (newton = 1) or CG; keeps the Gauss cost in efc_ck_r; returns 1 when
// the start already meets the tolerance
PX_FN int pxk_solPrimalStart(PX_MDC int nv, int nefc, int ne, int nf, PX_REAL scale, int newton) {
  PXR tol = MOPT(tolerance);
  int coneH = (newton == 1 && MOPT(cone) == PX_CONE_ELLIPTIC) ? 1 : 0;
#ifdef PX_KERN_C
  pxk_cSvMulM(d, d->efc_sv_Ma, d->efc_sv_qacc, nv);
#else
  PXK_SVMULM_BODY(efc_sv_Ma, efc_sv_qacc, nv)
#endif  // PX_KERN_C
#ifdef PX_KERN_C
  for (int i = 0; i < nefc; i++) d->efc_sv_Jaref[i] = pxk_cSvJdot(m, d, i, d->efc_sv_qacc, nv);
#else
  for (int i = 0; i < nefc; i++) {
    PXR s = PX_ZERO;
    PXK_DOT_BODY(s, PXK_AE, efc_sv_J, i * nv, PXK_AE, efc_sv_qacc, 0, nv)
    PXK_E(efc_sv_Jaref, i) = s;
  }
#endif  // PX_KERN_C
  for (int i = 0; i < nefc; i++) {
    PXR v = PXK_E(efc_sv_Jaref, i) - PXK_E(efc_sv_aref, i);
    PXK_E(efc_sv_Jaref, i) = v;
  }
  PXK_E(efc_ck_r, PXK_CKR_GAUSS) = pxk_svUpdateConstraint(PX_MDARGC nv, nefc, ne, nf, coneH);
  pxk_svGrad(PX_MDARGC nv);
  // Mgrad = M \ grad: the CG direction and the convergence certificate
  pxk_svSolveM(PX_MDARGC nv);
  int flgGap = pxk_svDecrement(PX_MDARGC nv, scale) < tol ? 1 : 0;
  int flgGradient = pxk_svGradNorm(PX_MDARGC nv, scale) < tol ? 1 : 0;
  int done = (flgGap == 1 && (newton == 0 || flgGradient == 1)) ? 1 : 0;
  if (done == 0 && newton == 1) {
    pxk_svFactorHessian(PX_MDARGC nv, nefc);
    pxk_svCholSolve(PX_MDARGC nv, pxk_svNcone(PX_MDARGC nefc));
    done = (flgGradient == 1 && pxk_svDecrement(PX_MDARGC nv, scale) < tol) ? 1 : 0;
  }
  if (done == 0) {
    for (int i = 0; i < nv; i++) {
      PXR v = PXK_E(efc_sv_Mgrad, i) * PX_R(-1.0);
      PXK_E(efc_sv_search, i) = v;
    }
  }
  return done;
}

// one iteration of the primal solver (mj_solPrimal's loop body): the line search, the step, the
// constraint update, the Hessian (Newton) and the next direction; the Gauss cost carried in
// efc_ck_r. Returns 0 to go on, 1 to stop after this counted iteration, 2 to stop without
// counting it (no step)
PX_FN int pxk_solPrimalIter(PX_MDC int nv, int nefc, int ne, int nf, PX_REAL scale, int newton) {
  PXR tol = MOPT(tolerance);
  PXR qg[3];
  PXR impr[1];
  int coneH = (newton == 1 && MOPT(cone) == PX_CONE_ELLIPTIC) ? 1 : 0;
  qg[0] = PXK_E(efc_ck_r, PXK_CKR_GAUSS);
  qg[1] = PX_ZERO;
  qg[2] = PX_ZERO;
  PXR alpha = pxk_svSearch(PX_MDARGC nv, nefc, ne, nf, scale, qg, impr);
  if (alpha == PX_R(0.0)) return 2;
  for (int i = 0; i < nv; i++) {
    PXR a = PXK_E(efc_sv_qacc, i) + PXK_E(efc_sv_search, i) * alpha;
    PXK_E(efc_sv_qacc, i) = a;
  }
  for (int i = 0; i < nv; i++) {
    PXR a = PXK_E(efc_sv_Ma, i) + PXK_E(efc_sv_Mv, i) * alpha;
    PXK_E(efc_sv_Ma, i) = a;
  }
  for (int i = 0; i < nefc; i++) {
    PXR a = PXK_E(efc_sv_Jaref, i) + PXK_E(efc_sv_Jv, i) * alpha;
    PXK_E(efc_sv_Jaref, i) = a;
  }
  if (newton == 0) {
    for (int i = 0; i < nv; i++) {
      PXK_E(efc_sv_gradold, i) = PXK_E(efc_sv_grad, i);
      PXK_E(efc_sv_Mgradold, i) = PXK_E(efc_sv_Mgrad, i);
    }
  }
  for (int i = 0; i < nefc; i++) PXK_E(efc_sv_oldstate, i) = PXK_E(efc_sv_state, i);
  PXK_E(efc_ck_r, PXK_CKR_GAUSS) = pxk_svUpdateConstraint(PX_MDARGC nv, nefc, ne, nf, coneH);
  if (newton == 1) pxk_svHessianIncremental(PX_MDARGC nv, nefc);
  pxk_svGrad(PX_MDARGC nv);
  if (newton == 1) {
    pxk_svCholSolve(PX_MDARGC nv, pxk_svNcone(PX_MDARGC nefc));
  } else {
    pxk_svSolveM(PX_MDARGC nv);
  }
  PXR improvement = scale * impr[0];
  PXR gradient = pxk_svGradNorm(PX_MDARGC nv, scale);
  PXR decrement = newton == 1 ? pxk_svDecrement(PX_MDARGC nv, scale) : PX_ZERO;
  if ((improvement > PX_R(0.0) && improvement < tol) || gradient < tol ||
      (newton == 1 && decrement < tol)) {
    return 1;
  }
  if (newton == 1) {
    for (int i = 0; i < nv; i++) {
      PXR v = PXK_E(efc_sv_Mgrad, i) * PX_R(-1.0);
      PXK_E(efc_sv_search, i) = v;
    }
  } else {
    pxk_svCGDirection(PX_MDARGC nv);
  }
  return 0;
}

// M qacc into efc_sv_Ma (the warm start's Gauss cost)
#ifdef PX_KERN_C
#define PXK_SVWARM_MULM(nv) pxk_cSvMulM(d, d->efc_sv_Ma, d->efc_sv_qacc, nv);
#else
#define PXK_SVWARM_MULM(nv) PXK_SVMULM_BODY(efc_sv_Ma, efc_sv_qacc, nv)
#endif  // PX_KERN_C

// Body of the warm start on the problem of every row: JAREF a statement setting efc_sv_Jaref = J
// qacc for every row, UPDATE(useB) the constraint update returning the cost; shared by
// pxk_svWarmstart and the sparse layout's pxk_spWarmstart
#define PXK_SVWARM_BODY(nv, nefc, JAREF, UPDATE)                                         \
  if ((MOPT(disableflags) & PX_DSBL_WARMSTART) == 0) {                                   \
    for (int i = 0; i < nv; i++) PXK_E(efc_sv_qacc, i) = D(qacc_warmstart, i);           \
    JAREF                                                                                \
    for (int i = 0; i < nefc; i++) {                                                     \
      PXR v = PXK_E(efc_sv_Jaref, i) - PXK_E(efc_sv_aref, i);                            \
      PXK_E(efc_sv_Jaref, i) = v;                                                        \
    }                                                                                    \
    PXR cw = UPDATE(0);                                                                  \
    PXK_SVWARM_MULM(nv)                                                                  \
    for (int i = 0; i < nv; i++) {                                                       \
      PXR a = PXK_E(efc_sv_Ma, i) - PXK_E(efc_sv_qfrc_smooth, i);                        \
      PXR b = PXK_E(efc_sv_qacc, i) - PXK_E(efc_sv_qacc_smooth, i);                      \
      PXR t = PX_R(0.5) * a * b;                                                         \
      cw += t;                                                                           \
    }                                                                                    \
    PXR cs = UPDATE(1);                                                                  \
    if (cw > cs) {                                                                       \
      for (int i = 0; i < nv; i++) PXK_E(efc_sv_qacc, i) = PXK_E(efc_sv_qacc_smooth, i); \
    }                                                                                    \
    if (PXK_EN(PX_EFC_NISLAND) > 0) {                                                    \
      for (int i = PXK_EN(PX_EFC_NIDOF); i < nv; i++) {                                  \
        int dof = PXK_E(efc_is_idof2dof, i);                                             \
        PXK_E(efc_sv_qacc, dof) = PXK_E(efc_sv_qacc_smooth, dof);                        \
      }                                                                                  \
    }                                                                                    \
  } else {                                                                               \
    for (int i = 0; i < nv; i++) PXK_E(efc_sv_qacc, i) = PXK_E(efc_sv_qacc_smooth, i);   \
    for (int i = 0; i < nefc; i++) PXK_E(efc_sv_force, i) = PX_R(0.0);                   \
  }                                                                                      \
  {}

// the warm start on the problem of every row (engine_forward.c's warmstart for the primal
// solvers): qacc = qacc_warmstart unless qacc_smooth has the lower total cost (and qacc_smooth
// for dofs outside every island); qacc_smooth and zero forces when disabled
PX_FN void pxk_svWarmstart(PX_MDC int nv, int nefc, int ne, int nf) {
#define PXK_SVWARM_JAREF                                                 \
  for (int i = 0; i < nefc; i++) {                                       \
    PXR s = PX_ZERO;                                                     \
    PXK_DOT_BODY(s, PXK_AE, efc_sv_J, i* nv, PXK_AE, efc_sv_qacc, 0, nv) \
    PXK_E(efc_sv_Jaref, i) = s;                                          \
  }
#define PXK_SVWARM_UPDATE(u) pxk_svUpdate(PX_MDARGC nv, nefc, ne, nf, u, 0)
  PXK_SVWARM_BODY(nv, nefc, PXK_SVWARM_JAREF, PXK_SVWARM_UPDATE)
#undef PXK_SVWARM_JAREF
#undef PXK_SVWARM_UPDATE
}

#if PXK_SPARSE_J
// the sparse layout's constraint update of the problem of every row (pxk_svUpdate with J' force
// from efc_J's rows, whose columns are the problem's: isl -1); skipping the columns outside a
// row's chain adds only zeros, so qfrc_constraint is what the dense product gives
PX_FN PX_REAL pxk_spUpdate(PX_MDC int nv, int nefc, int ne, int nf, int useB) {
  PXR s = PX_ZERO;
  PXK_SVUPDATE_ROWS(s, nefc, ne, nf, useB, 0)
  for (int k = 0; k < nv; k++) PXK_E(efc_sv_qfrc_constraint, k) = PX_R(0.0);
  for (int i = 0; i < nefc; i++) {
    PXR f = PXK_E(efc_sv_force, i);
    if (f != PX_R(0.0)) {
      int a = PXK_E(efc_J_rowadr, i);
      for (int k = 0; k < PXK_E(efc_J_rownnz, i); k++) {
        int c = PXK_E(efc_J_colind, a + k);
        PXR q = PXK_E(efc_sv_qfrc_constraint, c) + PXK_E(efc_J, a + k) * f;
        PXK_E(efc_sv_qfrc_constraint, c) = q;
      }
    }
  }
  return s;
}

// the warm start over every row with the sparse layout (MuJoCo's sparse products): the dof
// vectors gathered without the rows' dense block, J qacc and J' force from efc_J's rows
PX_FN void pxk_spWarmstart(PX_MDC int nv, int nefc, int ne, int nf) {
  pxk_svGather(PX_MDARGC - 1, nv, 0);
  for (int c = 0; c < nefc; c++) {
    PXK_E(efc_sv_type, c) = PXK_E(efc_type, c);
    PXK_E(efc_sv_id, c) = PXK_E(efc_id, c);
    PXK_E(efc_sv_state, c) = PXK_E(efc_state, c);
    PXK_E(efc_sv_Dr, c) = PXK_E(efc_D, c);
    PXK_E(efc_sv_R, c) = PXK_E(efc_R, c);
    PXK_E(efc_sv_floss, c) = PXK_E(efc_frictionloss, c);
    PXK_E(efc_sv_aref, c) = PXK_E(efc_aref, c);
    PXK_E(efc_sv_b, c) = PXK_E(efc_b, c);
    PXK_E(efc_sv_force, c) = PXK_E(efc_force, c);
  }
#define PXK_SPWARM_JAREF                      \
  for (int i = 0; i < nefc; i++) {            \
    PXR s = PX_ZERO;                          \
    PXK_SPDOT_BODY(s, PXK_AE, i, efc_sv_qacc) \
    PXK_E(efc_sv_Jaref, i) = s;               \
  }
#define PXK_SPWARM_UPDATE(u) pxk_spUpdate(PX_MDARGC nv, nefc, ne, nf, u)
  PXK_SVWARM_BODY(nv, nefc, PXK_SPWARM_JAREF, PXK_SPWARM_UPDATE)
#undef PXK_SPWARM_JAREF
#undef PXK_SPWARM_UPDATE
  pxk_svScatter(PX_MDARGC - 1, nv, nefc);
}
#endif  // PXK_SPARSE_J

//---------------------------------- dual solver (PGS) ---------------------------------------------

PXK_DEFINE_SOLVEM(pxk_solveM_qacc, qacc)

// sqrt(D)^-1 of M's factor into efc_sv_cholupd (the scale of Y's columns)
PX_FN void pxk_projectScale(PX_MD) {
  int nv = MS(nv);
  for (int i = 0; i < nv; i++) {
    int dg = M(M_rowadr, i) + M(M_rownnz, i) - 1;
    PXR sq = PX_SQRT(D(qLD, dg));
    PXK_E(efc_sv_cholupd, i) = PX_R(1.0) / sq;
  }
}

// row r of Y = J M^-1/2 (mj_solveM2 on row r of J; rows are independent, and each row sees the
// operations of MuJoCo's dof-major loops in their order), after pxk_projectScale
PX_FN void pxk_projectY(PX_MDC int r) {
  int nv = MS(nv);
#if PXK_SPARSE_J
  // the sparse layout: the row scattered into a zeroed dense row of Y
  if (pxk_isSparse(PX_MDARG) == 1) {
    for (int k = 0; k < nv; k++) PXK_E(efc_pg_Y, r * nv + k) = PX_R(0.0);
    int a = PXK_E(efc_J_rowadr, r);
    for (int k = 0; k < PXK_E(efc_J_rownnz, r); k++) {
      PXK_E(efc_pg_Y, r * nv + PXK_E(efc_J_colind, a + k)) = PXK_E(efc_J, a + k);
    }
  } else
#endif
    for (int k = 0; k < nv; k++) PXK_E(efc_pg_Y, r * nv + k) = PXK_E(efc_J, r * nv + k);
  for (int i = nv - 1; i > 0; i--) {
    if (M(dof_simplenum, i) != 0) continue;
    int start = M(M_rowadr, i);
    int end = start + M(M_rownnz, i) - 1;
    PXR xi = PXK_E(efc_pg_Y, r * nv + i);
    if (xi != PX_R(0.0)) {
      for (int a = start; a < end; a++) {
        int c = r * nv + M(M_colind, a);
        PXR v = PXK_E(efc_pg_Y, c) - D(qLD, a) * xi;
        PXK_E(efc_pg_Y, c) = v;
      }
    }
  }
  for (int i = 0; i < nv; i++) {
    PXR v = PXK_E(efc_pg_Y, r * nv + i) * PXK_E(efc_sv_cholupd, i);
    PXK_E(efc_pg_Y, r * nv + i) = v;
  }
}

#ifdef PX_KERN_C
// C fast path of pxk_projectY for the rows r and r + 1 of the dense layout: each row sees the
// dialect's operations in its order, the two rows' interleaved so that their dependency chains
// (every dof's term flows into its ancestors' entries) overlap
PX_FN void pxk_cProjectY2(const pxModel* m, pxData* d, int r, int nv) {
  PX_REAL* restrict y0 = d->efc_pg_Y + r * nv;
  PX_REAL* restrict y1 = y0 + nv;
  const PX_REAL* restrict ld = d->qLD;
  const int* restrict colind = m->M_colind;
  memcpy(y0, d->efc_J + r * nv, sizeof(PX_REAL) * (size_t)nv);
  memcpy(y1, d->efc_J + (r + 1) * nv, sizeof(PX_REAL) * (size_t)nv);
  for (int i = nv - 1; i > 0; i--) {
    if (m->dof_simplenum[i] != 0) continue;
    int start = m->M_rowadr[i];
    int end = start + m->M_rownnz[i] - 1;
    PX_REAL x0 = y0[i];
    PX_REAL x1 = y1[i];
    int n0 = x0 != PX_R(0.0) ? 1 : 0;
    int n1 = x1 != PX_R(0.0) ? 1 : 0;
    if (n0 == 1 && n1 == 1) {
      for (int a = start; a < end; a++) {
        int c = colind[a];
        PX_REAL l = ld[a];
        y0[c] = y0[c] - l * x0;
        y1[c] = y1[c] - l * x1;
      }
    } else if (n0 == 1) {
      for (int a = start; a < end; a++) y0[colind[a]] = y0[colind[a]] - ld[a] * x0;
    } else if (n1 == 1) {
      for (int a = start; a < end; a++) y1[colind[a]] = y1[colind[a]] - ld[a] * x1;
    }
  }
  const PX_REAL* restrict sc = d->efc_sv_cholupd;
  for (int i = 0; i < nv; i++) {
    y0[i] = y0[i] * sc[i];
    y1[i] = y1[i] * sc[i];
  }
}

// rows r.. of Y (pxk_projectY); returns how many: two on the dense layout, else one
PX_FN int pxk_cProjectYRows(const pxModel* m, pxData* d, int r, int nefc) {
  if (r + 1 < nefc && pxk_isSparse(m, d) == 0) {
    pxk_cProjectY2(m, d, r, m->nv);
    return 2;
  }
  pxk_projectY(m, d, r);
  return 1;
}
#endif  // PX_KERN_C

#ifdef PX_KERN_C
// C fast path of pxk_projectARLower: the dialect's operations in its order per entry AR[i][k]
// (k <= i): +0, then + Y[k][j] Y[i][j] over j ascending where Y[i][j] is not zero. The nonzero
// entries of row i are listed first (64 columns at a time, so no branch per entry: a row's zero
// pattern defeats branch prediction), then each entry sums over the list in a register, four
// entries at a time, reading rows of Y where the dialect reads its columns
#define PXK_AR_CHUNK 64
PX_FN void pxk_cProjectARLower(pxData* d, int i, int nv, int nefc) {
  const PX_REAL* restrict yi = d->efc_pg_Y + i * nv;
  const PX_REAL* restrict y = d->efc_pg_Y;
  PX_REAL* restrict ar = d->efc_pg_AR + i * nefc;
  int idx[PXK_AR_CHUNK];
  PX_REAL val[PXK_AR_CHUNK];
  for (int k = 0; k < nefc; k++) ar[k] = PX_R(0.0);
  for (int j0 = 0; j0 < nv; j0 += PXK_AR_CHUNK) {
    int j1 = j0 + PXK_AR_CHUNK < nv ? j0 + PXK_AR_CHUNK : nv;
    int n = 0;
    for (int j = j0; j < j1; j++) {
      PX_REAL t = yi[j];
      idx[n] = j;
      val[n] = t;
      n += t == PX_R(0.0) ? 0 : 1;  // NaN counts, as in the dialect's test
    }
    if (n == 0) continue;
    int k = 0;
    for (; k + 4 <= i + 1; k += 4) {
      const PX_REAL* y0 = y + k * nv;
      const PX_REAL* y1 = y0 + nv;
      const PX_REAL* y2 = y1 + nv;
      const PX_REAL* y3 = y2 + nv;
      PX_REAL s0 = ar[k], s1 = ar[k + 1], s2 = ar[k + 2], s3 = ar[k + 3];
      for (int q = 0; q < n; q++) {
        int j = idx[q];
        PX_REAL t = val[q];
        s0 = s0 + y0[j] * t;
        s1 = s1 + y1[j] * t;
        s2 = s2 + y2[j] * t;
        s3 = s3 + y3[j] * t;
      }
      ar[k] = s0;
      ar[k + 1] = s1;
      ar[k + 2] = s2;
      ar[k + 3] = s3;
    }
    for (; k <= i; k++) {
      const PX_REAL* y0 = y + k * nv;
      PX_REAL s0 = ar[k];
      for (int q = 0; q < n; q++) s0 = s0 + y0[idx[q]] * val[q];
      ar[k] = s0;
    }
  }
}
#undef PXK_AR_CHUNK
#endif  // PX_KERN_C

// row i of AR = Y Y' (mju_sqrMatTD of Y' with its upper triangle): row i cleared, its lower
// triangle accumulated; after every row of Y
PX_FN void pxk_projectARLower(PX_MDC int i) {
  int nv = MS(nv);
  int nefc = PXK_EN(PX_EFC_NEFC);
#ifdef PX_KERN_C
  pxk_cProjectARLower(d, i, nv, nefc);
#else
  for (int k = 0; k < nefc; k++) PXK_E(efc_pg_AR, i * nefc + k) = PX_R(0.0);
  for (int j = 0; j < nv; j++) {
    PXR t = PXK_E(efc_pg_Y, i * nv + j);
    if (t == PX_R(0.0)) continue;
    for (int k = 0; k <= i; k++) {
      PXR v = PXK_E(efc_pg_AR, i * nefc + k) + PXK_E(efc_pg_Y, k * nv + j) * t;
      PXK_E(efc_pg_AR, i * nefc + k) = v;
    }
  }
#endif  // PX_KERN_C
}

// row i of AR's upper triangle from the lower one, then R on its diagonal; after every lower row
PX_FN void pxk_projectARUpper(PX_MDC int i) {
  int nefc = PXK_EN(PX_EFC_NEFC);
  for (int j = i + 1; j < nefc; j++)
    PXK_E(efc_pg_AR, i * nefc + j) = PXK_E(efc_pg_AR, j * nefc + i);
  PXR v = PXK_E(efc_pg_AR, i * (nefc + 1)) + PXK_E(efc_R, i);
  PXK_E(efc_pg_AR, i * (nefc + 1)) = v;
}

// Y = J M^-1/2 and, with diagexact, the exact diagonal of A (then the impedance again): the part
// of mj_projectConstraint that the reference acceleration depends on (the GPU's rows entry runs
// it for diagexact models; the dual solvers' AR follows in their entry, pxk_dualRun)
PX_FN void pxk_projectExact(PX_MD) {
  int nv = MS(nv);
  int nefc = PXK_EN(PX_EFC_NEFC);
  int exact = (MOPT(enableflags) & PX_ENBL_DIAGEXACT) != 0 ? 1 : 0;
  pxk_projectScale(PX_MDARG);
#ifdef PX_KERN_C
  for (int r = 0; r < nefc;) r += pxk_cProjectYRows(m, d, r, nefc);
#else
  for (int r = 0; r < nefc; r++) pxk_projectY(PX_MDARGC r);
#endif  // PX_KERN_C
  if (exact == 1) {
    for (int i = 0; i < nefc; i++) {
      PXR a = PX_ZERO;
      PXK_DOT_BODY(a, PXK_AE, efc_pg_Y, i * nv, PXK_AE, efc_pg_Y, i * nv, nv)
      PXK_E(efc_diagA, i) = a;
    }
    pxk_cnMakeImpedance(PX_MDARG);
  }
}

// Y = J M^-1/2 (mj_solveM2 on the rows of J), the exact diagonal of A when diagexact (then the
// impedance again), AR = Y Y' + diag(R) for the dual solver (mj_projectConstraint, dense)
PX_FN void pxk_projectConstraint(PX_MD) {
  int nefc = PXK_EN(PX_EFC_NEFC);
  int dual = (MOPT(solver) == PX_SOL_PGS || MOPT(noslip_iterations) > 0) ? 1 : 0;
  int exact = (MOPT(enableflags) & PX_ENBL_DIAGEXACT) != 0 ? 1 : 0;
  if (nefc == 0 || (dual == 0 && exact == 0)) return;
  pxk_projectExact(PX_MDARG);
  if (dual == 1) {
    for (int i = 0; i < nefc; i++) pxk_projectARLower(PX_MDARGC i);
    for (int i = 0; i < nefc; i++) pxk_projectARUpper(PX_MDARGC i);
  }
}

#ifdef PX_KERN_C
// 1 when island isl's row list is 0, 1, .., nefc - 1
PX_FN int pxk_cRowsAll(const pxData* d, int isl, int nefc) {
  const int* list = d->efc_is_iefc2efc + d->efc_is_iefcadr[isl];
  for (int c = 0; c < nefc; c++) {
    if (list[c] != c) return 0;
  }
  return 1;
}

// 1 when island isl is the whole problem in order: dofs 0, 1, .., nv - 1 and rows 0, .., nefc - 1
PX_FN int pxk_cIslandAll(const pxData* d, int isl, int nv, int nefc) {
  if (d->efc_is_nv[isl] != nv || d->efc_is_nefc[isl] != nefc) return 0;
  const int* dofs = d->efc_is_idof2dof + d->efc_is_idofadr[isl];
  for (int r = 0; r < nv; r++) {
    if (dofs[r] != r) return 0;
  }
  return pxk_cRowsAll(d, isl, nefc);
}
#endif  // PX_KERN_C

// global row of list position c of island isl (-1: every row)
PX_FN int pxk_pgRow(PX_MDC int isl, int c) {
  return isl < 0 ? c : PXK_E(efc_is_iefc2efc, PXK_E(efc_is_iefcadr, isl) + c);
}

// the dual constraint states of the listed rows from efc_force (dualState, no elliptic cones);
// returns the number of active rows
PX_FN int pxk_pgState(PX_MDC int isl, int ne, int nf, int nefc) {
  int nactive = ne + nf;
  for (int c = 0; c < nefc; c++) {
    int i = pxk_pgRow(PX_MDARGC isl, c);
    PXR f = PXK_E(efc_force, i);
    if (c < ne) {
      PXK_E(efc_state, i) = PXK_CNSTRSTATE_QUADRATIC;
    } else if (c < ne + nf) {
      PXR fl = PXK_E(efc_frictionloss, i);
      PXR nfl = -fl;
      if (f <= nfl) {
        PXK_E(efc_state, i) = PXK_CNSTRSTATE_LINEARPOS;
      } else if (f >= fl) {
        PXK_E(efc_state, i) = PXK_CNSTRSTATE_LINEARNEG;
      } else {
        PXK_E(efc_state, i) = PXK_CNSTRSTATE_QUADRATIC;
      }
    } else if (PXK_E(efc_type, i) == PXK_CNSTR_CONTACT_ELLIPTIC) {
      int id = PXK_E(efc_id, i);
      int dim = PXK_CON(id).dim;
      PXR mu = PXK_CON(id).mu;
      PXR fr[6];
      fr[0] = f / mu;
      for (int j = 1; j < dim; j++) fr[j] = PXK_E(efc_force, i + j) / PXK_CON(id).friction[j - 1];
      PXR tt = PX_ZERO;
      PXK_DOT_BODY(tt, PXK_AL, fr, 1, PXK_AL, fr, 1, dim - 1)
      PXR t = PX_SQRT(tt);
      PXR mn = mu * fr[0];
      PXR bot = fr[0] + mu * t;
      int st = PXK_CNSTRSTATE_CONE;
      if (mn >= t) {
        st = PXK_CNSTRSTATE_SATISFIED;
      } else if (bot <= PX_R(0.0)) {
        st = PXK_CNSTRSTATE_QUADRATIC;
      }
      if (st != PXK_CNSTRSTATE_SATISFIED) nactive += dim;
      for (int j = 0; j < dim; j++) PXK_E(efc_state, pxk_pgRow(PX_MDARGC isl, c + j)) = st;
      c += dim - 1;
    } else if (f <= PX_R(0.0)) {
      PXK_E(efc_state, i) = PXK_CNSTRSTATE_SATISFIED;
    } else {
      PXK_E(efc_state, i) = PXK_CNSTRSTATE_QUADRATIC;
      nactive++;
    }
  }
  return nactive;
}

// the high 32 bits of the 64-bit product of a and b, from 16-bit halves (no 64-bit integers:
// the fp32 shaders may not declare Int64)
PX_FN PX_UINT pxk_pgMulHi(PX_UINT a, PX_UINT b) {
  PX_UINT a0 = a & 0xffffu;
  PX_UINT a1 = a >> 16u;
  PX_UINT b0 = b & 0xffffu;
  PX_UINT b1 = b >> 16u;
  PX_UINT t = a0 * b0;
  PX_UINT m1 = a1 * b0 + (t >> 16u);
  PX_UINT m2 = a0 * b1 + (m1 & 0xffffu);
  return a1 * b1 + (m1 >> 16u) + (m2 >> 16u);
}

// the next number of MuJoCo's PCG32 generator (pcg32_next), in 32-bit words: st = (state low,
// state high, increment low, increment high); state = state * 6364136223846793005 + (increment
// | 1) modulo 2^64, the output from the old state
PX_FN PX_UINT pxk_pgRand(PX_INOUT(PX_UINT, st, 4)) {
#ifdef PX_KERN_C
  // C: the same arithmetic in 64-bit words
  uint64_t old = ((uint64_t)st[1] << 32) | st[0];
  uint64_t inc = (((uint64_t)st[3] << 32) | st[2]) | 1u;
  uint64_t next = old * 6364136223846793005ull + inc;
  st[0] = (PX_UINT)next;
  st[1] = (PX_UINT)(next >> 32);
  PX_UINT cxs = (PX_UINT)(((old >> 18u) ^ old) >> 27u);
  PX_UINT crot = (PX_UINT)(old >> 59u);
  return (cxs >> crot) | (cxs << ((0u - crot) & 31u));
#else
  PX_UINT lo = st[0];
  PX_UINT hi = st[1];
  PX_UINT clo = 0x4c957f2du;  // 6364136223846793005 = 0x5851f42d4c957f2d
  PX_UINT chi = 0x5851f42du;
  PX_UINT plo = lo * clo;
  PX_UINT phi = pxk_pgMulHi(lo, clo) + lo * chi + hi * clo;
  PX_UINT ilo = st[2] | 1u;
  PX_UINT nlo = plo + ilo;
  PX_UINT carry = nlo < plo ? 1u : 0u;
  st[0] = nlo;
  st[1] = phi + st[3] + carry;
  // xorshift: (((old >> 18) ^ old) >> 27) truncated to 32 bits, rotated by old >> 59
  PX_UINT xlo = ((lo >> 18u) | (hi << 14u)) ^ lo;
  PX_UINT xhi = (hi >> 18u) ^ hi;
  PX_UINT xs = (xlo >> 27u) | (xhi << 5u);
  PX_UINT rot = hi >> 27u;
  PX_UINT nrot = (0u - rot) & 31u;
  return (xs >> rot) | (xs << nrot);
#endif  // PX_KERN_C
}

// local cholesky solve (mju_cholSolve) of res = inv(L L') vec, n <= 6
PX_FN void pxk_qcCholSolve(PX_OUT(PX_REAL, res, 6), PX_IN(PX_REAL, a, 36), PX_IN(PX_REAL, vec, 6),
                           int n) {
  for (int i = 0; i < n; i++) res[i] = vec[i];
  for (int i = 0; i < n; i++) {
    if (i > 0) {
      PXR dt = PX_ZERO;
      PXK_DOT_BODY(dt, PXK_AL, a, i * n, PXK_AL, res, 0, i)
      res[i] = res[i] - dt;
    }
    res[i] = res[i] / a[i * (n + 1)];
  }
  for (int i = n - 1; i >= 0; i--) {
    for (int j = i + 1; j < n; j++) {
      PXR v = res[i] - a[j * n + i] * res[j];
      res[i] = v;
    }
    res[i] = res[i] / a[i * (n + 1)];
  }
}

// minimize 0.5 x'Ax + b'x subject to sum (x_i / d_i)^2 <= r^2 (mju_QCQP2, mju_QCQP3 and mju_QCQP
// for n = 2, 3 and more); returns 1 when the constraint is active
PX_FN int pxk_qcqp(PX_OUT(PX_REAL, res, 6), PX_IN(PX_REAL, ain, 25), PX_IN(PX_REAL, bin, 5),
                   PX_IN(PX_REAL, dd, 5), PX_REAL r, int n) {
  PXR rr = r * r;
  PXR la = PX_ZERO;
  PXR v[6];
  for (int k = 0; k < 6; k++) v[k] = PX_R(0.0);
  if (n == 2) {
    PXR b1 = bin[0] * dd[0];
    PXR b2 = bin[1] * dd[1];
    PXR a11 = ain[0] * dd[0] * dd[0];
    PXR a22 = ain[3] * dd[1] * dd[1];
    PXR a12 = ain[1] * dd[0] * dd[1];
    for (int iter = 0; iter < 20; iter++) {
      PXR det = (a11 + la) * (a22 + la) - a12 * a12;
      if (det < PX_R(1e-10)) {
        res[0] = PX_R(0.0);
        res[1] = PX_R(0.0);
        return 0;
      }
      PXR detinv = PX_R(1.0) / det;
      PXR p11 = (a22 + la) * detinv;
      PXR p22 = (a11 + la) * detinv;
      PXR na12 = -a12;
      PXR p12 = na12 * detinv;
      PXR np11 = -p11;
      PXR np12 = -p12;
      v[0] = np11 * b1 - p12 * b2;
      v[1] = np12 * b1 - p22 * b2;
      PXR val = v[0] * v[0] + v[1] * v[1] - rr;
      if (val < PX_R(1e-10)) break;
      PXR deriv =
          PX_R(-2.0) * (p11 * v[0] * v[0] + PX_R(2.0) * p12 * v[0] * v[1] + p22 * v[1] * v[1]);
      PXR nval = -val;
      PXR delta = nval / deriv;
      if (delta < PX_R(1e-10)) break;
      la += delta;
    }
  } else if (n == 3) {
    PXR b1 = bin[0] * dd[0];
    PXR b2 = bin[1] * dd[1];
    PXR b3 = bin[2] * dd[2];
    PXR a11 = ain[0] * dd[0] * dd[0];
    PXR a22 = ain[4] * dd[1] * dd[1];
    PXR a33 = ain[8] * dd[2] * dd[2];
    PXR a12 = ain[1] * dd[0] * dd[1];
    PXR a13 = ain[2] * dd[0] * dd[2];
    PXR a23 = ain[5] * dd[1] * dd[2];
    for (int iter = 0; iter < 20; iter++) {
      PXR p11 = (a22 + la) * (a33 + la) - a23 * a23;
      PXR p22 = (a11 + la) * (a33 + la) - a13 * a13;
      PXR p33 = (a11 + la) * (a22 + la) - a12 * a12;
      PXR p12 = a13 * a23 - a12 * (a33 + la);
      PXR p13 = a12 * a23 - a13 * (a22 + la);
      PXR p23 = a12 * a13 - a23 * (a11 + la);
      PXR det = (a11 + la) * p11 + a12 * p12 + a13 * p13;
      if (det < PX_R(1e-10)) {
        res[0] = PX_R(0.0);
        res[1] = PX_R(0.0);
        res[2] = PX_R(0.0);
        return 0;
      }
      PXR detinv = PX_R(1.0) / det;
      p11 *= detinv;
      p22 *= detinv;
      p33 *= detinv;
      p12 *= detinv;
      p13 *= detinv;
      p23 *= detinv;
      PXR np11 = -p11;
      PXR np12 = -p12;
      PXR np13 = -p13;
      v[0] = np11 * b1 - p12 * b2 - p13 * b3;
      v[1] = np12 * b1 - p22 * b2 - p23 * b3;
      v[2] = np13 * b1 - p23 * b2 - p33 * b3;
      PXR val = v[0] * v[0] + v[1] * v[1] + v[2] * v[2] - rr;
      if (val < PX_R(1e-10)) break;
      PXR t1 = p11 * v[0] * v[0] + p22 * v[1] * v[1] + p33 * v[2] * v[2];
      PXR t2 = p12 * v[0] * v[1] + p13 * v[0] * v[2] + p23 * v[1] * v[2];
      PXR deriv = PX_R(-2.0) * t1 - PX_R(4.0) * t2;
      PXR nval = -val;
      PXR delta = nval / deriv;
      if (delta < PX_R(1e-10)) break;
      la += delta;
    }
  } else {
    PXR a[25];
    for (int z_ = 0; z_ < 25; z_++) a[z_] = PX_R(0.0);
    PXR b[6];
    for (int z_ = 0; z_ < 6; z_++) b[z_] = PX_R(0.0);
    PXR ala[36];
    for (int z_ = 0; z_ < 36; z_++) ala[z_] = PX_R(0.0);
    PXR tmp[6];
    for (int z_ = 0; z_ < 6; z_++) tmp[z_] = PX_R(0.0);
    for (int i = 0; i < n; i++) {
      b[i] = bin[i] * dd[i];
      for (int j = 0; j < n; j++) a[j + i * n] = ain[j + i * n] * dd[i] * dd[j];
    }
    for (int iter = 0; iter < 20; iter++) {
      for (int k = 0; k < n * n; k++) ala[k] = a[k];
      for (int i = 0; i < n; i++) ala[i * (n + 1)] += la;
      if (pxk_svCholLocal(ala, n, PX_R(1e-10)) < n) {
        for (int i = 0; i < n; i++) res[i] = PX_R(0.0);
        return 0;
      }
      pxk_qcCholSolve(v, ala, b, n);
      for (int i = 0; i < n; i++) v[i] = v[i] * PX_R(-1.0);
      PXR vv = PX_ZERO;
      PXK_DOT_BODY(vv, PXK_AL, v, 0, PXK_AL, v, 0, n)
      PXR val = vv - rr;
      if (val < PX_R(1e-10)) break;
      pxk_qcCholSolve(tmp, ala, v, n);
      PXR vt = PX_ZERO;
      PXK_DOT_BODY(vt, PXK_AL, v, 0, PXK_AL, tmp, 0, n)
      PXR deriv = PX_R(-2.0) * vt;
      PXR nval = -val;
      PXR delta = nval / deriv;
      if (delta < PX_R(1e-10)) break;
      la += delta;
    }
  }
  for (int i = 0; i < n; i++) res[i] = v[i] * dd[i];
  return la != PX_R(0.0) ? 1 : 0;
}

// scale the friction f (dim - 1) of a contact onto (feasible = 0) or into the friction ellipsoid
// of normal force `normal` (projectEllipsoid)
PX_FN void pxk_pgEllipsoid(PX_INOUT(PX_REAL, f, 6), PX_REAL normal, PX_IN(PX_REAL, mu, 5), int dim,
                           int feasible) {
  PXR s = PX_ZERO;
  for (int j = 0; j < dim - 1; j++) {
    PXR t = f[j] * f[j] / (mu[j] * mu[j]);
    s += t;
  }
  PXR n2 = normal * normal;
  if (feasible == 0 || s > n2) {
    PXR q = n2 / pxk_cnMax(PXK_MINVAL, s);
    PXR scl = PX_SQRT(q);
    for (int j = 0; j < dim - 1; j++) f[j] *= scl;
  }
}

// the friction of elliptic contact rows i.. from the QCQP (solveQCQP): efc_force[i + 1..]
PX_FN void pxk_pgQCQP(PX_MDC int i, int dim, PX_IN(PX_REAL, ac, 25), PX_IN(PX_REAL, bc, 5),
                      PX_IN(PX_REAL, mu, 5)) {
  PXR v[6];
  PXR fn = PXK_E(efc_force, i);
  int isactive = pxk_qcqp(v, ac, bc, mu, fn, dim - 1);
  if (isactive == 1) pxk_pgEllipsoid(v, fn, mu, dim, 0);
  for (int j = 0; j < dim - 1; j++) PXK_E(efc_force, i + 1 + j) = v[j];
}

// 0.5 delta' A delta + delta' res over n (costChange for a block)
PX_FN PX_REAL pxk_pgCostChange(PX_IN(PX_REAL, a, 36), PX_IN(PX_REAL, dl, 6), PX_IN(PX_REAL, res, 6),
                               int n) {
  PXR q = PX_ZERO;
  for (int k = 0; k < n; k++) {
    PXR dt = PX_ZERO;
    PXK_DOT_BODY(dt, PXK_AL, a, k * n, PXK_AL, dl, 0, n)
    q += dl[k] * dt;
  }
  PXR lin = PX_ZERO;
  PXK_DOT_BODY(lin, PXK_AL, dl, 0, PXK_AL, res, 0, n)
  PXR c = PX_R(0.5) * q + lin;
  return c;
}

// one PGS update of the elliptic contact block at list position c, global row i (the normal or
// ray update, then the friction from the QCQP); returns the cost change
PX_FN PX_REAL pxk_pgElliptic(PX_MDC int c, int i) {
  int gnefc = PXK_EN(PX_EFC_NEFC);
  int id = PXK_E(efc_id, i);
  int dim = PXK_CON(id).dim;
  PXR mu[5];
  for (int j = 0; j < 5; j++) mu[j] = PXK_CON(id).friction[j];
  PXR res[6];
  for (int z_ = 0; z_ < 6; z_++) res[z_] = PX_R(0.0);
  PXR old[6];
  for (int z_ = 0; z_ < 6; z_++) old[z_] = PX_R(0.0);
  PXR ath[36];
  for (int z_ = 0; z_ < 36; z_++) ath[z_] = PX_R(0.0);
  for (int j = 0; j < dim; j++) {
    PXR dt = PX_ZERO;
    PXK_DOT_BODY(dt, PXK_AE, efc_pg_AR, (i + j) * gnefc, PXK_AE, efc_force, 0, gnefc)
    res[j] = PXK_E(efc_b, i + j) + dt;
    old[j] = PXK_E(efc_force, i + j);
    for (int k = 0; k < dim; k++) ath[j * dim + k] = PXK_E(efc_pg_AR, (i + j) * gnefc + i + k);
  }
  if (PXK_E(efc_force, i) < PXK_MINVAL) {
    PXR step = res[0] * PXK_E(efc_pg_ARinv, c);
    PXR f = PXK_E(efc_force, i) - step;
    if (f < PX_R(0.0)) f = PX_R(0.0);
    PXK_E(efc_force, i) = f;
    for (int j = 1; j < dim; j++) PXK_E(efc_force, i + j) = PX_R(0.0);
  } else {
    PXR v[6];
    for (int z_ = 0; z_ < 6; z_++) v[z_] = PX_R(0.0);
    PXR v1[6];
    for (int z_ = 0; z_ < 6; z_++) v1[z_] = PX_R(0.0);
    for (int j = 0; j < dim; j++) v[j] = PXK_E(efc_force, i + j);
    for (int r = 0; r < dim; r++) {
      PXR dt = PX_ZERO;
      PXK_DOT_BODY(dt, PXK_AL, ath, r * dim, PXK_AL, v, 0, dim)
      v1[r] = dt;
    }
    PXR denom = PX_ZERO;
    PXK_DOT_BODY(denom, PXK_AL, v, 0, PXK_AL, v1, 0, dim)
    if (denom >= PXK_MINVAL) {
      PXR vr = PX_ZERO;
      PXK_DOT_BODY(vr, PXK_AL, v, 0, PXK_AL, res, 0, dim)
      PXR nvr = -vr;
      PXR x = nvr / denom;
      PXR nrm = PXK_E(efc_force, i) + x * v[0];
      if (nrm < PX_R(0.0)) {
        PXR nv0 = -v[0];
        x = nv0 / PXK_E(efc_force, i);
      }
      for (int j = 0; j < dim; j++) {
        PXR f = PXK_E(efc_force, i + j) + x * v[j];
        PXK_E(efc_force, i + j) = f;
      }
    }
  }
  PXR ac[25];
  for (int z_ = 0; z_ < 25; z_++) ac[z_] = PX_R(0.0);
  PXR bc[5];
  for (int z_ = 0; z_ < 5; z_++) bc[z_] = PX_R(0.0);
  int n = dim - 1;
  for (int j = 0; j < n; j++) {
    for (int k = 0; k < n; k++) ac[j * n + k] = ath[(j + 1) * dim + 1 + k];
  }
  // each bc[j] stored once, from locals (the same operations as storing res[1 + j] and updating
  // it in place twice): in that form the GPU build on lavapipe (glslc -O, Mesa 22.3.6) stored
  // the j = 0 result into bc[1] and left bc[0] at res[1], a miscompile not located further
  for (int j = 0; j < n; j++) {
    PXR dt = PX_ZERO;
    PXK_DOT_BODY(dt, PXK_AL, ac, j * n, PXK_AL, old, 1, n)
    PXR b0 = res[1 + j] - dt;
    PXR dn = PXK_E(efc_force, i) - old[0];
    PXR t = ath[(j + 1) * dim] * dn;
    PXR b1 = b0 + t;
    bc[j] = b1;
  }
  if (PXK_E(efc_force, i) < PXK_MINVAL) {
    for (int j = 1; j < dim; j++) PXK_E(efc_force, i + j) = PX_R(0.0);
  } else {
    pxk_pgQCQP(PX_MDARGC i, dim, ac, bc, mu);
  }
  PXR dl[6];
  for (int z_ = 0; z_ < 6; z_++) dl[z_] = PX_R(0.0);
  for (int j = 0; j < dim; j++) dl[j] = PXK_E(efc_force, i + j) - old[j];
  PXR change = pxk_pgCostChange(ath, dl, res, dim);
  if (change > PX_R(1e-10)) {
    for (int j = 0; j < dim; j++) PXK_E(efc_force, i + j) = old[j];
    change = PX_ZERO;
  }
  return change;
}

// projected Gauss-Seidel over the listed rows (solPGS): Nesterov momentum with adaptive restart,
// a shuffled sweep order from MuJoCo's fixed seed, the cost-change guard. Its start: the inverse
// diagonal, the states, the blocks, the generator; the iteration state (iteration, restart
// count, blocks, generator) into ck (PXK_CK_ITER ... of efc_ck_i)
PX_FN void pxk_pgStart(PX_MDC int isl, int ne, int nf, int nefc, PX_INOUT(int, ck, 16)) {
  int gnefc = PXK_EN(PX_EFC_NEFC);
  for (int c = 0; c < nefc; c++) {
    int i = pxk_pgRow(PX_MDARGC isl, c);
    PXR a = PX_R(1.0) / PXK_E(efc_pg_AR, i * (gnefc + 1));
    PXK_E(efc_pg_ARinv, c) = a;
    PXK_E(efc_pg_prev, c) = PXK_E(efc_force, i);
  }
  pxk_pgState(PX_MDARGC isl, ne, nf, nefc);
  int nblocks = 0;
  for (int c = 0; c < nefc;) {
    PXK_E(efc_pg_block, nblocks) = c;
    nblocks++;
    int i = pxk_pgRow(PX_MDARGC isl, c);
    c += PXK_E(efc_type, i) == PXK_CNSTR_CONTACT_ELLIPTIC ? PXK_CON(PXK_E(efc_id, i)).dim : 1;
  }
  PX_UINT rng[4];
  rng[0] = 0u;
  rng[1] = 0u;
  rng[2] = 1u;
  rng[3] = 0u;
  pxk_pgRand(rng);
  ck[PXK_CK_ITER] = 0;
  ck[PXK_CK_NK] = 0;
  ck[PXK_CK_NBLOCK] = nblocks;
  for (int k = 0; k < 4; k++) ck[PXK_CK_RNG + k] = PX_INT(rng[k]);
}

// one PGS iteration (the loop body of solPGS) from the state in ck; returns 1 when the
// improvement is below the tolerance (the solve ends after this counted iteration)
PX_FN int pxk_pgIter(PX_MDC int isl, int ne, int nf, int nefc, PX_INOUT(int, ck, 16)) {
  int gnefc = PXK_EN(PX_EFC_NEFC);
  int gnv = MS(nv);
  PXR nvr = PX_TOREAL(gnv > 1 ? gnv : 1);
  PXR den = MSTAT(meaninertia) * nvr;
  PXR scale = PX_R(1.0) / den;
  int iter = ck[PXK_CK_ITER];
  int nk = ck[PXK_CK_NK];
  int nblocks = ck[PXK_CK_NBLOCK];
  PX_UINT rng[4];
  for (int k = 0; k < 4; k++) rng[k] = PX_TOUINT(ck[PXK_CK_RNG + k]);
  PXR beta = PX_ZERO;
  if (iter > 0) {
    PXR a = PX_TOREAL(nk - 1);
    PXR b = PX_TOREAL(nk + 2);
    beta = a / b;
  }
  if (beta > PX_R(0.0)) {
    for (int c = 0; c < nefc; c++) {
      int i = pxk_pgRow(PX_MDARGC isl, c);
      PXR fs = PXK_E(efc_force, i);
      PXR dlt = fs - PXK_E(efc_pg_prev, c);
      PXR f = fs + beta * dlt;
      PXK_E(efc_force, i) = f;
      PXK_E(efc_pg_prev, c) = fs;
    }
    for (int c = ne; c < ne + nf; c++) {
      int i = pxk_pgRow(PX_MDARGC isl, c);
      PXR fl = PXK_E(efc_frictionloss, i);
      PXR nfl = -fl;
      PXR f = PXK_E(efc_force, i);
      PXK_E(efc_force, i) = f < nfl ? nfl : (f > fl ? fl : f);
    }
    for (int c = ne + nf; c < nefc;) {
      int i = pxk_pgRow(PX_MDARGC isl, c);
      if (PXK_E(efc_type, i) == PXK_CNSTR_CONTACT_ELLIPTIC) {
        int id = PXK_E(efc_id, i);
        int dim = PXK_CON(id).dim;
        if (PXK_E(efc_force, i) < PX_R(0.0)) {
          for (int j = 0; j < dim; j++) PXK_E(efc_force, i + j) = PX_R(0.0);
        } else {
          PXR f[6];
          PXR mu[5];
          for (int j = 0; j < 5; j++) mu[j] = PXK_CON(id).friction[j];
          for (int j = 0; j < dim - 1; j++) f[j] = PXK_E(efc_force, i + 1 + j);
          pxk_pgEllipsoid(f, PXK_E(efc_force, i), mu, dim, 1);
          for (int j = 0; j < dim - 1; j++) PXK_E(efc_force, i + 1 + j) = f[j];
        }
        c += dim;
      } else {
        if (PXK_E(efc_force, i) < PX_R(0.0)) PXK_E(efc_force, i) = PX_R(0.0);
        c++;
      }
    }
  } else {
    for (int c = 0; c < nefc; c++)
      PXK_E(efc_pg_prev, c) = PXK_E(efc_force, pxk_pgRow(PX_MDARGC isl, c));
  }
  for (int c = 0; c < nefc; c++)
    PXK_E(efc_pg_mom, c) = PXK_E(efc_force, pxk_pgRow(PX_MDARGC isl, c));
  PXR improvement = PX_ZERO;
  // shuffle the visiting order (Fisher-Yates)
  for (int k = nblocks - 1; k > 0; k--) {
    PX_UINT rnd = pxk_pgRand(rng);
    int j = PX_INT(rnd % PX_TOUINT(k + 1));
    int tmp = PXK_E(efc_pg_block, k);
    PXK_E(efc_pg_block, k) = PXK_E(efc_pg_block, j);
    PXK_E(efc_pg_block, j) = tmp;
  }
  for (int bi = 0; bi < nblocks; bi++) {
    int c = PXK_E(efc_pg_block, bi);
    int i = pxk_pgRow(PX_MDARGC isl, c);
    if (PXK_E(efc_type, i) == PXK_CNSTR_CONTACT_ELLIPTIC) {
      PXR ch = pxk_pgElliptic(PX_MDARGC c, i);
      improvement -= ch;
      continue;
    }
    PXR dt = PX_ZERO;
    PXK_DOT_BODY(dt, PXK_AE, efc_pg_AR, i * gnefc, PXK_AE, efc_force, 0, gnefc)
    PXR res = PXK_E(efc_b, i) + dt;
    PXR old = PXK_E(efc_force, i);
    PXR step = res * PXK_E(efc_pg_ARinv, c);
    PXR f = old - step;
    if (c >= ne && c < ne + nf) {
      PXR fl = PXK_E(efc_frictionloss, i);
      PXR nfl = -fl;
      if (f < nfl) {
        f = nfl;
      } else if (f > fl) {
        f = fl;
      }
    } else if (c >= ne + nf) {
      if (f < PX_R(0.0)) f = PX_R(0.0);
    }
    PXR athis = PX_R(1.0) / PXK_E(efc_pg_ARinv, c);
    PXR delta = f - old;
    PXR change = PX_R(0.5) * delta * delta * athis + delta * res;
    if (change > PX_R(1e-10)) {
      f = old;
      change = PX_ZERO;
    }
    PXK_E(efc_force, i) = f;
    improvement -= change;
  }
  pxk_pgState(PX_MDARGC isl, ne, nf, nefc);
  improvement *= scale;
  int restart = 0;
  if (iter > 0) {
    PXR dot = PX_ZERO;
    for (int c = 0; c < nefc; c++) {
      int i = pxk_pgRow(PX_MDARGC isl, c);
      PXR corr = PXK_E(efc_force, i) - PXK_E(efc_pg_mom, c);
      PXR extr = PXK_E(efc_pg_mom, c) - PXK_E(efc_pg_prev, c);
      dot += corr * extr;
    }
    restart = dot < PX_R(0.0) ? 1 : 0;
  }
  nk = restart == 1 ? 0 : nk + 1;
  iter++;
  ck[PXK_CK_ITER] = iter;
  ck[PXK_CK_NK] = nk;
  for (int k = 0; k < 4; k++) ck[PXK_CK_RNG + k] = PX_INT(rng[k]);
  return improvement < MOPT(tolerance) ? 1 : 0;
}

// the PGS warm start: the forces of qacc_warmstart unless zero forces cost less (warmstart)
PX_FN void pxk_pgWarmstart(PX_MD) {
  int nv = MS(nv);
  int nefc = PXK_EN(PX_EFC_NEFC);
  int ne = PXK_EN(PX_EFC_NE);
  int nf = PXK_EN(PX_EFC_NF);
  pxk_svGather(PX_MDARGC - 1, nv, nefc);
  if ((MOPT(disableflags) & PX_DSBL_WARMSTART) == 0) {
    for (int i = 0; i < nv; i++) PXK_E(efc_sv_qacc, i) = D(qacc_warmstart, i);
    for (int i = 0; i < nefc; i++) {
      PXR s = PX_ZERO;
      PXK_DOT_BODY(s, PXK_AE, efc_sv_J, i * nv, PXK_AE, efc_sv_qacc, 0, nv)
      PXR v = s - PXK_E(efc_sv_aref, i);
      PXK_E(efc_sv_Jaref, i) = v;
    }
    pxk_svUpdate(PX_MDARGC nv, nefc, ne, nf, 0, 0);
    PXR cw = PX_ZERO;
    PXK_DOT_BODY(cw, PXK_AE, efc_sv_force, 0, PXK_AE, efc_sv_b, 0, nefc)
    PXR q = PX_ZERO;
    for (int r = 0; r < nefc; r++) {
      PXR a = PX_ZERO;
      PXK_DOT_BODY(a, PXK_AE, efc_pg_AR, r * nefc, PXK_AE, efc_sv_force, 0, nefc)
      PXK_E(efc_sv_Jv, r) = a;
    }
    PXK_DOT_BODY(q, PXK_AE, efc_sv_force, 0, PXK_AE, efc_sv_Jv, 0, nefc)
    PXR hq = PX_R(0.5) * q;
    cw += hq;
    if (cw > PX_R(0.0)) {
      for (int i = 0; i < nefc; i++) PXK_E(efc_sv_force, i) = PX_R(0.0);
      for (int i = 0; i < nv; i++) PXK_E(efc_sv_qfrc_constraint, i) = PX_R(0.0);
    }
    if (PXK_EN(PX_EFC_NISLAND) > 0) {
      for (int i = PXK_EN(PX_EFC_NIDOF); i < nv; i++) {
        int dof = PXK_E(efc_is_idof2dof, i);
        PXK_E(efc_sv_qacc, dof) = PXK_E(efc_sv_qacc_smooth, dof);
      }
    }
  } else {
    for (int i = 0; i < nv; i++) PXK_E(efc_sv_qacc, i) = PXK_E(efc_sv_qacc_smooth, i);
    for (int i = 0; i < nefc; i++) PXK_E(efc_sv_force, i) = PX_R(0.0);
  }
  pxk_svScatter(PX_MDARGC - 1, nv, nefc);
}

// qfrc_constraint = J' efc_force and qacc = qacc_smooth + inv(M) qfrc_constraint (dualFinish)
PX_FN void pxk_dualFinish(PX_MD) {
  int nv = MS(nv);
  int nefc = PXK_EN(PX_EFC_NEFC);
  for (int k = 0; k < nv; k++) D(qfrc_constraint, k) = PX_R(0.0);
  for (int i = 0; i < nefc; i++) {
    PXR f = PXK_E(efc_force, i);
#if PXK_SPARSE_J
    // the sparse layout: the row's columns only (mju_mulMatTVecSparse)
    if (pxk_isSparse(PX_MDARG) == 1) {
      if (f != PX_R(0.0)) {
        int a = PXK_E(efc_J_rowadr, i);
        for (int k = 0; k < PXK_E(efc_J_rownnz, i); k++) {
          int col = PXK_E(efc_J_colind, a + k);
          PXR q = D(qfrc_constraint, col) + PXK_E(efc_J, a + k) * f;
          D(qfrc_constraint, col) = q;
        }
      }
      continue;
    }
#endif
    if (f != PX_R(0.0)) {
      for (int k = 0; k < nv; k++) {
        PXR q = D(qfrc_constraint, k) + PXK_E(efc_J, i * nv + k) * f;
        D(qfrc_constraint, k) = q;
      }
    }
  }
  for (int k = 0; k < nv; k++) D(qacc, k) = D(qfrc_constraint, k);
  pxk_solveM_qacc(PX_MDARGC 0);
  for (int k = 0; k < nv; k++) {
    PXR a = D(qacc, k) + D(qacc_smooth, k);
    D(qacc, k) = a;
  }
}

// residual of row i of the dual problem: b + AR force, minus R force (residual with flg_subR)
PX_FN PX_REAL pxk_nsResidual(PX_MDC int i) {
  int gnefc = PXK_EN(PX_EFC_NEFC);
  PXR dt = PX_ZERO;
  PXK_DOT_BODY(dt, PXK_AE, efc_pg_AR, i * gnefc, PXK_AE, efc_force, 0, gnefc)
  PXR r = PXK_E(efc_b, i) + dt;
  PXR rf = PXK_E(efc_R, i) * PXK_E(efc_force, i);
  r = r - rf;
  return r;
}

// the noslip solver over the listed rows (solNoSlip): projected Gauss-Seidel on the friction of
// dofs, tendons and contacts (pyramidal pairs, elliptic QCQP) with A = AR - R, the contact normal
// forces held; returns the number of iterations
PX_FN int pxk_solNoSlip(PX_MDC int isl, int ne, int nf, int nefc) {
  int gnefc = PXK_EN(PX_EFC_NEFC);
  int gnv = MS(nv);
  PXR nvr = PX_TOREAL(gnv > 1 ? gnv : 1);
  PXR den = MSTAT(meaninertia) * nvr;
  PXR scale = PX_R(1.0) / den;
  for (int c = 0; c < nefc; c++) {
    int i = pxk_pgRow(PX_MDARGC isl, c);
    PXR a = PXK_E(efc_pg_AR, i * (gnefc + 1)) - PXK_E(efc_R, i);
    PXK_E(efc_pg_ARinv, c) = PX_R(1.0) / pxk_cnMax(PXK_MINVAL, a);
  }
  pxk_pgState(PX_MDARGC isl, ne, nf, nefc);
  int iter = 0;
  while (iter < MOPT(noslip_iterations)) {
    PXR improvement = PX_ZERO;
    if (iter == 0) {
      for (int c = 0; c < nefc; c++) {
        int i = pxk_pgRow(PX_MDARGC isl, c);
        PXR f = PXK_E(efc_force, i);
        PXR t = PX_R(0.5) * f * f * PXK_E(efc_R, i);
        improvement += t;
      }
    }
    for (int c = ne; c < ne + nf; c++) {
      int i = pxk_pgRow(PX_MDARGC isl, c);
      PXR res = pxk_nsResidual(PX_MDARGC i);
      PXR old = PXK_E(efc_force, i);
      PXR step = res * PXK_E(efc_pg_ARinv, c);
      PXR f = old - step;
      PXR fl = PXK_E(efc_frictionloss, i);
      PXR nfl = -fl;
      if (f < nfl) {
        f = nfl;
      } else if (f > fl) {
        f = fl;
      }
      PXK_E(efc_force, i) = f;
      PXR delta = f - old;
      PXR ch = PX_R(0.5) * delta * delta / PXK_E(efc_pg_ARinv, c) + delta * res;
      improvement -= ch;
    }
    for (int c = ne + nf; c < nefc; c++) {
      int i = pxk_pgRow(PX_MDARGC isl, c);
      if (PXK_E(efc_type, i) == PXK_CNSTR_CONTACT_ELLIPTIC) {
        int id = PXK_E(efc_id, i);
        int dim = PXK_CON(id).dim;
        int n = dim - 1;
        PXR mu[5];
        for (int z_ = 0; z_ < 5; z_++) mu[z_] = PX_R(0.0);
        for (int j = 0; j < 5; j++) mu[j] = PXK_CON(id).friction[j];
        PXR res[6];
        for (int z_ = 0; z_ < 6; z_++) res[z_] = PX_R(0.0);
        PXR old[6];
        for (int z_ = 0; z_ < 6; z_++) old[z_] = PX_R(0.0);
        PXR ac[36];
        for (int z_ = 0; z_ < 36; z_++) ac[z_] = PX_R(0.0);
        PXR bc[5];
        for (int z_ = 0; z_ < 5; z_++) bc[z_] = PX_R(0.0);
        for (int j = 0; j < n; j++) {
          res[j] = pxk_nsResidual(PX_MDARGC i + 1 + j);
          old[j] = PXK_E(efc_force, i + 1 + j);
          for (int k = 0; k < n; k++)
            ac[j * n + k] = PXK_E(efc_pg_AR, (i + 1 + j) * gnefc + i + 1 + k);
        }
        for (int j = 0; j < n; j++) {
          PXR a = ac[j * (n + 1)] - PXK_E(efc_R, i + 1 + j);
          ac[j * (n + 1)] = pxk_cnMax(PX_R(1e-10), a);
        }
        for (int j = 0; j < n; j++) {
          PXR dt = PX_ZERO;
          PXK_DOT_BODY(dt, PXK_AL, ac, j * n, PXK_AL, old, 0, n)
          bc[j] = res[j] - dt;
        }
        if (PXK_E(efc_force, i) < PXK_MINVAL) {
          for (int j = 1; j < dim; j++) PXK_E(efc_force, i + j) = PX_R(0.0);
        } else {
          PXR ac25[25];
          for (int z_ = 0; z_ < 25; z_++) ac25[z_] = PX_R(0.0);
          for (int k = 0; k < n * n; k++) ac25[k] = ac[k];
          pxk_pgQCQP(PX_MDARGC i, dim, ac25, bc, mu);
        }
        PXR dl[6];
        for (int z_ = 0; z_ < 6; z_++) dl[z_] = PX_R(0.0);
        for (int j = 0; j < n; j++) dl[j] = PXK_E(efc_force, i + 1 + j) - old[j];
        PXR change = pxk_pgCostChange(ac, dl, res, n);
        if (change > PX_R(1e-10)) {
          for (int j = 0; j < n; j++) PXK_E(efc_force, i + 1 + j) = old[j];
          change = PX_ZERO;
        }
        improvement -= change;
        c += dim - 1;
        continue;
      }
      if (PXK_E(efc_type, i) != PXK_CNSTR_CONTACT_PYRAMIDAL) continue;
      int dim = PXK_CON(PXK_E(efc_id, i)).dim;
      for (int j = i; j < i + 2 * (dim - 1); j += 2) {
        PXR res[2];
        PXR old[2];
        PXR ac[4];
        PXR bc[2];
        for (int k = 0; k < 2; k++) {
          res[k] = pxk_nsResidual(PX_MDARGC j + k);
          old[k] = PXK_E(efc_force, j + k);
          for (int l = 0; l < 2; l++) ac[2 * k + l] = PXK_E(efc_pg_AR, (j + k) * gnefc + j + l);
        }
        for (int k = 0; k < 2; k++) {
          PXR a = ac[3 * k] - PXK_E(efc_R, j + k);
          ac[3 * k] = pxk_cnMax(PX_R(1e-10), a);
        }
        for (int k = 0; k < 2; k++) {
          PXR dt = PX_ZERO;
          PXK_DOT_BODY(dt, PXK_AL, ac, 2 * k, PXK_AL, old, 0, 2)
          bc[k] = res[k] - dt;
        }
        PXR f0 = old[0];
        PXR f1 = old[1];
        PXR sum = f0 + f1;
        PXR dif = f0 - f1;
        PXR mid = PX_R(0.5) * sum;
        PXR y = PX_R(0.5) * dif;
        PXR k1 = ac[0] + ac[3] - ac[1] - ac[2];
        PXR ad = ac[0] - ac[3];
        PXR k0 = mid * ad + bc[0] - bc[1];
        if (k1 < PXK_MINVAL) {
          f0 = mid;
          f1 = mid;
        } else {
          PXR nk0 = -k0;
          y = nk0 / k1;
          PXR nmid = -mid;
          if (y < nmid) {
            f0 = PX_R(0.0);
            f1 = PX_R(2.0) * mid;
          } else if (y > mid) {
            f0 = PX_R(2.0) * mid;
            f1 = PX_R(0.0);
          } else {
            f0 = mid + y;
            f1 = mid - y;
          }
        }
        // costChange (dim 2): 0.5 delta' A delta + delta' res, restored when positive
        PXR dl[2];
        dl[0] = f0 - old[0];
        dl[1] = f1 - old[1];
        PXR q = PX_ZERO;
        for (int k = 0; k < 2; k++) {
          PXR dt = PX_ZERO;
          PXK_DOT_BODY(dt, PXK_AL, ac, 2 * k, PXK_AL, dl, 0, 2)
          q += dl[k] * dt;
        }
        PXR lin = PX_ZERO;
        PXK_DOT_BODY(lin, PXK_AL, dl, 0, PXK_AL, res, 0, 2)
        PXR change = PX_R(0.5) * q + lin;
        if (change > PX_R(1e-10)) {
          f0 = old[0];
          f1 = old[1];
          change = PX_ZERO;
        }
        PXK_E(efc_force, j) = f0;
        PXK_E(efc_force, j + 1) = f1;
        improvement -= change;
      }
      c += 2 * (dim - 1) - 1;
    }
    pxk_pgState(PX_MDARGC isl, ne, nf, nefc);
    improvement *= scale;
    iter++;
    if (improvement < MOPT(noslip_tolerance)) break;
  }
  return iter;
}

// mj_fwdConstraint's start: qfrc_constraint and the iteration count cleared, qacc = qacc_smooth
// without rows, else efc_b = J qacc_smooth - aref; returns the row count (the GPU runs the
// solvers below as separate entry points after it, shaders/constraint.comp)
PX_FN int pxk_fwdConstraintBegin(PX_MD) {
  int nv = MS(nv);
  int nefc = PXK_EN(PX_EFC_NEFC);
  for (int i = 0; i < nv; i++) D(qfrc_constraint, i) = PX_R(0.0);
  PXK_EN(PX_EFC_NITER) = 0;
  if (nefc == 0) {
    for (int i = 0; i < nv; i++) D(qacc, i) = D(qacc_smooth, i);
    return 0;
  }
  PXK_MULJ(efc_b, qacc_smooth)
  for (int i = 0; i < nefc; i++) {
    PXR v = PXK_E(efc_b, i) - PXK_E(efc_aref, i);
    PXK_E(efc_b, i) = v;
  }
  return nefc;
}

//---------------------------------- resumable solves ----------------------------------------------
// The solves run as units of work (the warm start, an island's start, one iteration, one row of
// the projection) from a resume point in efc_ck_i and efc_ck_r (stage, island, iteration, the
// PGS generator; the Gauss cost and the scale), so that a device that caps the loop iterations of
// an invocation (Mesa's lavapipe: 65535, after which every loop ends at once) can run one solve
// over several dispatches: a run does units while their estimated loop iterations fit its budget
// (at least one unit), and the next dispatch resumes where it stopped. The CPU runs every unit in
// one call (budget -1). The units are the solver's code in its order, so the results are the
// same however a solve is cut.

// a * b + c, saturated at 2^30 (the loop-iteration estimates of the units, c small)
PX_FN int pxk_ckMad(int a, int b, int c) {
  int big = 1073741824;
  if (a <= 0 || b <= 0) return c;
  if (a > (big - c) / b) return big;
  return a * b + c;
}

// charges a unit of `cost` loop iterations to a run with budget `budget` (negative: none) that
// has used used[0]; returns 0 when the unit does not fit and is not the run's first
PX_FN int pxk_ckCharge(int budget, int cost, PX_INOUT(int, used, 1)) {
  if (budget < 0) return 1;
  if (used[0] > 0 && cost > budget - used[0]) return 0;
  used[0] = cost > budget - used[0] ? budget : used[0] + cost;
  return 1;
}

// a solve from its start (stage 0, or `stage`)
PX_FN void pxk_ckReset(PX_MDC int stage) {
  for (int k = 0; k < PXK_CK_N; k++) PXK_E(efc_ck_i, k) = 0;
  PXK_E(efc_ck_i, PXK_CK_STAGE) = stage;
}

// 1 when the solve has finished
PX_FN int pxk_ckDone(PX_MD) {
  return PXK_E(efc_ck_i, PXK_CK_STAGE) == PXK_CK_DONE ? 1 : 0;
}

// the warm start and the primal solver (Newton or CG), per island or over every row, resumable
// (above): units are the warm start (stage 0), an island's start (1) and one iteration (2), with
// the island's end (3) after its last; returns 1 when the solve has finished
PX_FN int pxk_primalRun(PX_MDC int budget) {
  int nv = MS(nv);
  int nc = MS(nC);
  int nefc = PXK_EN(PX_EFC_NEFC);
  int ne = PXK_EN(PX_EFC_NE);
  int nf = PXK_EN(PX_EFC_NF);
  int nisland = PXK_EN(PX_EFC_NISLAND);
  int newton = MOPT(solver) == PX_SOL_NEWTON ? 1 : 0;
  int lsmax = MOPT(ls_iterations) > 0 ? MOPT(ls_iterations) : 0;
  // per island, or once over every row (isl = -1); one call site of each unit, so that the GPU
  // build inlines it once
  int islands = (MOPT(disableflags) & PX_DSBL_ISLAND) == 0 && nisland > 0 ? 1 : 0;
  int nsolve = islands == 1 ? nisland : 1;
  int ck[PXK_CK_N];
  for (int k = 0; k < PXK_CK_N; k++) ck[k] = PXK_E(efc_ck_i, k);
#ifdef PX_KERN_C
  int warmed = 0;  // 1 once this call's dense warm start left every row's problem in efc_sv_*
#endif             // PX_KERN_C
  int used[1];
  used[0] = 0;
  while (ck[PXK_CK_STAGE] != PXK_CK_DONE) {
    int stage = ck[PXK_CK_STAGE];
    int k = ck[PXK_CK_ISL];
    if (stage == 1 && k >= nsolve) {
      ck[PXK_CK_STAGE] = PXK_CK_DONE;
      continue;
    }
    int isl = islands == 1 ? k : -1;
    int kk = k < nsolve ? k : 0;
    int inv = islands == 1 ? PXK_E(efc_is_nv, kk) : nv;
    int inefc = islands == 1 ? PXK_E(efc_is_nefc, kk) : nefc;
    int ine = islands == 1 ? PXK_E(efc_is_ne, kk) : ne;
    int inf = islands == 1 ? PXK_E(efc_is_nf, kk) : nf;
    int cost = 0;
    if (stage == 0) {
      cost = pxk_ckMad(nefc, 4 * nv + 120, 12 * nv + 3 * nc + 200);
    } else if (stage == 1) {
      cost = pxk_ckMad(inefc, 2 * inv * inv + 12 * inv + 150,
                       inv * inv * inv + 6 * inv * inv + 6 * nc + 300);
    } else if (stage == 2) {
      cost = pxk_ckMad(inefc, 3 * inv * inv + 14 * inv + 10 * lsmax + 200,
                       2 * inv * inv * inv + 8 * inv * inv + 6 * nc + 60 * lsmax + 400);
    }
    if (pxk_ckCharge(budget, cost, used) == 0) break;
    if (stage == 0) {
#if PXK_SPARSE_J
      if (pxk_isSparse(PX_MDARG) == 1) {
        pxk_spWarmstart(PX_MDARGC nv, nefc, ne, nf);
      } else
#endif
      {
        pxk_svGather(PX_MDARGC - 1, nv, nefc);
        pxk_svWarmstart(PX_MDARGC nv, nefc, ne, nf);
        pxk_svScatter(PX_MDARGC - 1, nv, nefc);
#ifdef PX_KERN_C
        warmed = 1;
#endif  // PX_KERN_C
      }
      ck[PXK_CK_STAGE] = 1;
      ck[PXK_CK_ISL] = 0;
    } else if (stage == 1) {
#ifdef PX_KERN_C
      // the first island holding every dof and row in order right after the warm start: its
      // gather would copy back what the warm start's gather and scatter left (the warm start
      // writes only qacc, forces, states and qfrc_constraint, which its scatter copies out)
      if (warmed == 1 && k == 0 && (isl < 0 || pxk_cIslandAll(d, isl, nv, nefc) == 1)) {
        warmed = 0;
      } else {
        pxk_svGather(PX_MDARGC isl, inv, inefc);
      }
#else
      pxk_svGather(PX_MDARGC isl, inv, inefc);
#endif  // PX_KERN_C
      PXR scale = PX_ZERO;
      if (islands == 1) {
        PXR inertia = PX_ZERO;
        for (int i = 0; i < inv; i++) {
          int dg = PXK_E(efc_sv_Mrowadr, i) + PXK_E(efc_sv_Mrownnz, i) - 1;
          inertia += PXK_E(efc_sv_M, dg);
        }
        scale = PX_R(1.0) / inertia;
      } else {
        PXR nvr = PX_TOREAL(nv > 1 ? nv : 1);
        PXR den = MSTAT(meaninertia) * nvr;
        scale = PX_R(1.0) / den;
      }
      PXK_E(efc_ck_r, PXK_CKR_SCALE) = scale;
      int done = pxk_solPrimalStart(PX_MDARGC inv, inefc, ine, inf, scale, newton);
      ck[PXK_CK_ITER] = 0;
      ck[PXK_CK_STAGE] = (done == 1 || MOPT(iterations) <= 0) ? 3 : 2;
    } else if (stage == 2) {
      PXR scale = PXK_E(efc_ck_r, PXK_CKR_SCALE);
      int r = pxk_solPrimalIter(PX_MDARGC inv, inefc, ine, inf, scale, newton);
      if (r != 2) ck[PXK_CK_ITER] = ck[PXK_CK_ITER] + 1;
      if (r != 0 || ck[PXK_CK_ITER] >= MOPT(iterations)) ck[PXK_CK_STAGE] = 3;
    }
    if (ck[PXK_CK_STAGE] == 3) {
      if (k == 0) PXK_EN(PX_EFC_NITER) = ck[PXK_CK_ITER];
      // MuJoCo gathers an island's forces, accelerations and constraint forces back, not its
      // constraint states
      if (islands == 1) {
        for (int c = 0; c < inefc; c++) {
          PXK_E(efc_sv_state, c) = PXK_E(efc_state, pxk_svRow(PX_MDARGC k, c));
        }
      }
      pxk_svScatter(PX_MDARGC isl, inv, inefc);
      ck[PXK_CK_ISL] = k + 1;
      ck[PXK_CK_STAGE] = 1;
    }
  }
  for (int k = 0; k < PXK_CK_N; k++) PXK_E(efc_ck_i, k) = ck[k];
  return ck[PXK_CK_STAGE] == PXK_CK_DONE ? 1 : 0;
}

// the warm start and the primal solver (Newton or CG), per island or over every row, in one call
PX_FN void pxk_primalSolve(PX_MD) {
  pxk_ckReset(PX_MDARGC 0);
  pxk_primalRun(PX_MDARGC - 1);
}

// the projection's part before the reference acceleration: Y and the exact diagonal with
// diagexact (the GPU's rows entry; AR, which only the dual solvers read, follows in their entry,
// pxk_dualRun)
PX_FN void pxk_projectRows(PX_MD) {
  int exact = (MOPT(enableflags) & PX_ENBL_DIAGEXACT) != 0 ? 1 : 0;
  if (PXK_EN(PX_EFC_NEFC) > 0 && exact == 1) pxk_projectExact(PX_MDARG);
}

// mj_fwdConstraint's dual part, resumable (above): the projection's AR (stages 0 to 3: the scale,
// each row of Y, each row of AR's lower triangle, then of its upper one; the CPU computes them in
// pxk_projectConstraint and starts at stage 4), the PGS warm start (4), per island or over every
// row its start (5) and iterations (6), noslip (7, one unit per island), then qfrc_constraint and
// qacc from the forces (8); returns 1 when finished
PX_FN int pxk_dualRun(PX_MDC int budget) {
  int nv = MS(nv);
  int nc = MS(nC);
  int nefc = PXK_EN(PX_EFC_NEFC);
  int nisland = PXK_EN(PX_EFC_NISLAND);
  int pgs = MOPT(solver) == PX_SOL_PGS ? 1 : 0;
  int noslip = MOPT(noslip_iterations) > 0 ? MOPT(noslip_iterations) : 0;
  // loop iterations per row of a sweep beyond the residual's: an elliptic block's QCQP (up to
  // 20 Newton steps on its friction) is the largest
  int cone = MOPT(cone) == PX_CONE_ELLIPTIC ? 1200 : 40;
  // per island, or once over every row (isl = -1): one call site of each unit
  int islands = (MOPT(disableflags) & PX_DSBL_ISLAND) == 0 && nisland > 0 ? 1 : 0;
  int nsolve = islands == 1 ? nisland : 1;
  int ck[PXK_CK_N];
  for (int k = 0; k < PXK_CK_N; k++) ck[k] = PXK_E(efc_ck_i, k);
#ifdef PX_KERN_C
  int allIsl = -1;  // the island whose row list `all` describes (pxk_cRowsAll)
  int all = 0;
#endif  // PX_KERN_C
  int used[1];
  used[0] = 0;
  while (ck[PXK_CK_STAGE] != PXK_CK_DONE) {
    int stage = ck[PXK_CK_STAGE];
    int k = ck[PXK_CK_ISL];
    int row = ck[PXK_CK_ROW];
    // moves that do no work
    if (stage >= 1 && stage <= 3 && row >= nefc) {
      ck[PXK_CK_STAGE] = stage + 1;
      ck[PXK_CK_ROW] = 0;
      continue;
    }
    if (stage == 4 && pgs == 0) {
      ck[PXK_CK_STAGE] = 7;
      continue;
    }
    if ((stage == 5 || stage == 7) && k >= nsolve) {
      ck[PXK_CK_STAGE] = stage == 5 ? 7 : 8;
      ck[PXK_CK_ISL] = 0;
      continue;
    }
    if (stage == 7 && noslip == 0) {
      ck[PXK_CK_STAGE] = 8;
      continue;
    }
    if (stage == 8 && pgs == 0 && noslip == 0) {
      ck[PXK_CK_STAGE] = PXK_CK_DONE;
      continue;
    }
    int isl = islands == 1 ? k : -1;
    int kk = k < nsolve ? k : 0;
    int ine = islands == 1 ? PXK_E(efc_is_ne, kk) : PXK_EN(PX_EFC_NE);
    int inf = islands == 1 ? PXK_E(efc_is_nf, kk) : PXK_EN(PX_EFC_NF);
    int inefc = islands == 1 ? PXK_E(efc_is_nefc, kk) : nefc;
#ifdef PX_KERN_C
    // C: the PGS start and iterations see their rows only through pxk_pgRow, so an island whose
    // list is every row in order runs them as the whole problem (no list lookups; same rows)
    // (the list is checked once per island and call, not per iteration)
    if ((stage == 5 || stage == 6) && isl >= 0 && k < nsolve && inefc == nefc) {
      if (allIsl != isl) {
        allIsl = isl;
        all = pxk_cRowsAll(d, isl, nefc);
      }
      if (all == 1) isl = -1;
    }
#endif  // PX_KERN_C
    int cost = 0;
    if (stage == 0) {
      cost = nv + 20;
    } else if (stage == 1) {
      cost = 2 * nv + nc + 20;
    } else if (stage == 2) {
      cost = pxk_ckMad(row + 2, nv, nefc + 20);
    } else if (stage == 3) {
      cost = nefc + 20;
    } else if (stage == 4) {
      cost = pxk_ckMad(nefc, nefc + 3 * nv + 60, 4 * nv + nc + 100);
    } else if (stage == 5) {
      cost = pxk_ckMad(inefc, 20, 100);
    } else if (stage == 6) {
      cost = pxk_ckMad(inefc, nefc + cone, 200);
    } else if (stage == 7) {
      cost = pxk_ckMad(pxk_ckMad(inefc, nefc + cone, 500), noslip, 0);
    } else {
      cost = pxk_ckMad(nefc, nv + 2, 3 * nv + 2 * nc + 50);
    }
    if (pxk_ckCharge(budget, cost, used) == 0) break;
    if (stage == 0) {
      pxk_projectScale(PX_MDARG);
      ck[PXK_CK_STAGE] = 1;
      ck[PXK_CK_ROW] = 0;
    } else if (stage == 1) {
#ifdef PX_KERN_C
      ck[PXK_CK_ROW] = row + pxk_cProjectYRows(m, d, row, nefc);
#else
      pxk_projectY(PX_MDARGC row);
      ck[PXK_CK_ROW] = row + 1;
#endif  // PX_KERN_C
    } else if (stage == 2) {
      pxk_projectARLower(PX_MDARGC row);
      ck[PXK_CK_ROW] = row + 1;
    } else if (stage == 3) {
      pxk_projectARUpper(PX_MDARGC row);
      ck[PXK_CK_ROW] = row + 1;
    } else if (stage == 4) {
      pxk_pgWarmstart(PX_MDARG);
      ck[PXK_CK_STAGE] = 5;
      ck[PXK_CK_ISL] = 0;
    } else if (stage == 5) {
      pxk_pgStart(PX_MDARGC isl, ine, inf, inefc, ck);
      ck[PXK_CK_STAGE] = MOPT(iterations) > 0 ? 6 : 5;
      if (MOPT(iterations) <= 0) {
        if (k == 0) PXK_EN(PX_EFC_NITER) = 0;
        ck[PXK_CK_ISL] = k + 1;
      }
    } else if (stage == 6) {
      int stop = pxk_pgIter(PX_MDARGC isl, ine, inf, inefc, ck);
      if (stop == 1 || ck[PXK_CK_ITER] >= MOPT(iterations)) {
        if (k == 0) PXK_EN(PX_EFC_NITER) = ck[PXK_CK_ITER];
        ck[PXK_CK_ISL] = k + 1;
        ck[PXK_CK_STAGE] = 5;
      }
    } else if (stage == 7) {
      int iter = pxk_solNoSlip(PX_MDARGC isl, ine, inf, inefc);
      if (k == 0) PXK_EN(PX_EFC_NITER) = PXK_EN(PX_EFC_NITER) + iter;
      ck[PXK_CK_ISL] = k + 1;
    } else {
      pxk_dualFinish(PX_MDARG);
      ck[PXK_CK_STAGE] = PXK_CK_DONE;
    }
  }
  for (int k = 0; k < PXK_CK_N; k++) PXK_E(efc_ck_i, k) = ck[k];
  return ck[PXK_CK_STAGE] == PXK_CK_DONE ? 1 : 0;
}

// mj_fwdConstraint's dual part, after pxk_fwdConstraintBegin (and pxk_primalSolve for Newton and
// CG) and pxk_projectConstraint: the PGS solve, noslip, and for either qfrc_constraint and qacc
// from the forces, in one call
PX_FN void pxk_fwdConstraintDual(PX_MD) {
  pxk_ckReset(PX_MDARGC 4);
  pxk_dualRun(PX_MDARGC - 1);
}

// mj_fwdConstraint (after pxk_fwdAcceleration, pxk_island and pxk_projectConstraint): qacc,
// qfrc_constraint, efc_b, efc_force, efc_state from the Newton, CG or PGS solver, then noslip;
// per island unless the island flag is disabled (with islands and a primal solver, MuJoCo leaves
// efc_state as the warm start's last update left it)
PX_FN void pxk_fwdConstraint(PX_MD) {
  if (pxk_fwdConstraintBegin(PX_MDARG) == 0) return;
  if (MOPT(solver) != PX_SOL_PGS) pxk_primalSolve(PX_MDARG);
  pxk_fwdConstraintDual(PX_MDARG);
}

#endif  // PX_KERN_SOLVER_H_
