// SPDX-License-Identifier: Apache-2.0
// The sparse structures of MuJoCo 3.12's compiled model, and the constants mj_setConst derives
// from the tree and tendon topology alone (no dynamics):
//   nC, nJten, nJmom     ComputeSparseSizes / FinalizeSimple, CountNJten, CountNJmom; nC and
//                        nJten size model arrays, so the model is laid out again once known;
//   B_*                  mj_makeBSparse: per body, its subtree dofs and its ancestors' dofs;
//   D_*, M_*             mj_makeDofDofSparse: D is the full symmetric dof-dof pattern (with the
//                        diagonal's index in D_diag), M its lower triangle, reduced: a simple dof
//                        keeps only its diagonal;
//   mapM2D, mapD2M       mj_makeDofDofMaps: D from M (lower to symmetric; -1 where the reduced M
//   mapM2M               has no element), M from D, and M (CSR) from the legacy qM (dof_Madr);
//   ten_J_*              makeTendonSparse (set0): a fixed tendon's joint dofs in path order,
//                        then sorted; a spatial tendon's distinct dofs of the bodies on its path
//                        and of their ancestors;
//   tendon_treenum/treeid, jnt_actuatorid, tendon_actuatorid, tree_sleep_policy   setFixed: the
//                        first two trees a tendon touches, the one actuator with damping or
//                        armature acting on a joint or tendon (-2 if several), and the policy
//                        of the trees left on auto (never when actuated or tied to others by a
//                        tendon, else allowed).
//   reads:  m's tree (body_*, dof_parentid, dof_simplenum, dof_Madr, jnt_*), sites and geoms,
//           tendons and wraps, actuators, the user sleep policies in tree_sleep_policy
//   writes: sizes nC, nJten, nJmom and the arrays above
// Every row of every pattern lists its columns in increasing order.
#include "mjcf/compile_sparse.h"

#include <stdlib.h>
#include <string.h>

#include "px/pxdata.h"
#include "px/pxmodel.h"

// mjtSleepPolicy values of MuJoCo 3.12
enum {
  SLEEP_AUTO = 0,
  SLEEP_AUTO_NEVER,
  SLEEP_AUTO_ALLOWED,
  SLEEP_NEVER,
  SLEEP_ALLOWED,
  SLEEP_INIT
};

static pxtStatus noMem(pxcCtx* c) {
  return PX_FAIL(c->st, PX_ERR_NOMEM, "compile: out of memory");
}

static void sortInts(int* v, int n) {
  for (int i = 1; i < n; i++) {
    int x = v[i], j = i - 1;
    for (; j >= 0 && v[j] > x; j--) v[j + 1] = v[j];
    v[j + 1] = x;
  }
}

//---------------------------------- sizes ---------------------------------------------------------

// elements of the reduced M: the diagonal, and the ancestors of every dof that is not simple
static int countC(const pxModel* m) {
  int n = m->nv;
  for (int i = 0; i < m->nv; i++) {
    if (m->dof_simplenum[i]) continue;
    for (int j = m->dof_parentid[i]; j >= 0; j = m->dof_parentid[j]) n++;
  }
  return n;
}

// the columns of tendon i's Jacobian row into colind (when not NULL), their number returned; used
// is nv bytes of scratch
static int tendonRow(const pxModel* m, int i, int* colind, char* used) {
  int adr = m->tendon_adr[i], num = m->tendon_num[i];
  if (num > 0 && m->wrap_type[adr] == PX_WRAP_JOINT) {
    if (colind) {
      for (int j = 0; j < num; j++) colind[j] = m->jnt_dofadr[m->wrap_objid[adr + j]];
      sortInts(colind, num);
    }
    return num;
  }
  memset(used, 0, (size_t)m->nv);
  for (int j = 0; j < num; j++) {
    int type = m->wrap_type[adr + j], b = -1;
    if (type == PX_WRAP_SITE) {
      b = m->site_bodyid[m->wrap_objid[adr + j]];
    } else if (type == PX_WRAP_SPHERE || type == PX_WRAP_CYLINDER) {
      b = m->geom_bodyid[m->wrap_objid[adr + j]];
    }
    for (; b > 0; b = m->body_parentid[b]) {
      for (int k = 0; k < m->body_dofnum[b]; k++) used[m->body_dofadr[b] + k] = 1;
    }
  }
  int nnz = 0;
  for (int k = 0; k < m->nv; k++) {
    if (!used[k]) continue;
    if (colind) colind[nnz] = k;
    nnz++;
  }
  return nnz;
}

// length of the merged dof chains of two bodies (mj_mergeChain)
static int mergeChain(const pxModel* m, int b1, int b2, int skipcommon) {
  b1 = m->body_weldid[b1];
  b2 = m->body_weldid[b2];
  if (m->body_dofnum[b1] == 0 && m->body_dofnum[b2] == 0) return 0;
  int da1 = m->body_dofadr[b1] + m->body_dofnum[b1] - 1;
  int da2 = m->body_dofadr[b2] + m->body_dofnum[b2] - 1;
  int n = 0;
  while (da1 >= 0 || da2 >= 0) {
    int da = da1 > da2 ? da1 : da2;
    if (skipcommon && da1 == da && da2 == da) break;
    if (da1 == da) da1 = m->dof_parentid[da1];
    if (da2 == da) da2 = m->dof_parentid[da2];
    n++;
  }
  return n;
}

// non-zeros of the actuator moment matrix (CountNJmom); needs ten_J_rownnz
static int countJmom(const pxModel* m) {
  static const int kJntDofs[4] = {6, 3, 1, 1};
  int n = 0;
  for (int i = 0; i < m->nu; i++) {
    int id = m->actuator_trnid[2 * i], id1 = m->actuator_trnid[2 * i + 1];
    switch (m->actuator_trntype[i]) {
      case PX_TRN_JOINT:
      case PX_TRN_JOINTINPARENT:
        n += kJntDofs[m->jnt_type[id]];
        break;
      case PX_TRN_SLIDERCRANK:
        n += mergeChain(m, m->site_bodyid[id], m->site_bodyid[id1], 0);
        break;
      case PX_TRN_TENDON:
        n += m->ten_J_rownnz[id];
        break;
      case PX_TRN_SITE:
        n += mergeChain(m, m->site_bodyid[id], id1 >= 0 ? m->site_bodyid[id1] : 0, 1);
        break;
      default:  // body
        n += m->nv;
        break;
    }
  }
  return n;
}

// the model laid out again with sizes nC and nJten: arrays whose size did not change are copied,
// the others (sized by nC or nJten) are left zero for the caller to fill
static pxtStatus relayout(pxcCtx* c, pxModel** pm, int nC, int nJten) {
  pxModel* m = *pm;
  if (m->nC == nC && m->nJten == nJten) return PX_OK;
  pxModel sz = *m;
  sz.nC = nC;
  sz.nJten = nJten;
  pxModel* n = px_makeModel(&sz);
  if (!n) return noMem(c);
#define X(type, name, nrow, ncol)                                              \
  if (n->nrow == m->nrow && m->name) {                                         \
    memcpy(n->name, m->name, sizeof(type) * (size_t)m->nrow * (size_t)(ncol)); \
  }
  PX_MODEL_FIELDS(X)
#undef X
  px_freeModel(m);
  *pm = n;
  return PX_OK;
}

//---------------------------------- dof-dof and body-dof patterns ---------------------------------

// a dof-dof pattern (mj_makeDofDofSparse): lower triangle, plus the upper one when `upper`,
// without the off-diagonal elements of simple dofs when `reduced`; diag may be NULL; remaining
// is nv ints of scratch
static void dofDofSparse(const pxModel* m, int* rownnz, int* rowadr, int* diag, int* colind,
                         int reduced, int upper, int* remaining) {
  int nv = m->nv;
  const int* parent = m->dof_parentid;
  if (!nv) return;
  memset(rownnz, 0, sizeof(int) * (size_t)nv);
  for (int i = nv - 1; i >= 0; i--) {
    rownnz[i]++;
    if (reduced && m->dof_simplenum[i]) continue;
    for (int j = parent[i]; j >= 0; j = parent[j]) {
      rownnz[i]++;
      if (upper) rownnz[j]++;
    }
  }
  rowadr[0] = 0;
  for (int i = 1; i < nv; i++) rowadr[i] = rowadr[i - 1] + rownnz[i - 1];

  // rows fill from their end: a row's ancestors and diagonal come after its descendants were
  // placed, so every row ends up sorted
  memcpy(remaining, rownnz, sizeof(int) * (size_t)nv);
  for (int i = nv - 1; i >= 0; i--) {
    colind[rowadr[i] + --remaining[i]] = i;
    if (reduced && m->dof_simplenum[i]) continue;
    for (int j = parent[i]; j >= 0; j = parent[j]) {
      colind[rowadr[i] + --remaining[i]] = j;
      if (upper) colind[rowadr[j] + --remaining[j]] = i;
    }
  }
  if (diag) {
    for (int i = 0; i < nv; i++) {
      int k = 0;
      while (k < rownnz[i] && colind[rowadr[i] + k] < i) k++;
      diag[i] = k;
    }
  }
}

// the body-dof pattern (mj_makeBSparse): a body's subtree dofs and its ancestors' dofs; count is
// nbody ints of scratch
static void bodyDofSparse(pxModel* m, int* count) {
  int nbody = m->nbody;
  const int* parent = m->body_parentid;
  int *rownnz = m->B_rownnz, *rowadr = m->B_rowadr, *colind = m->B_colind;
  memset(rownnz, 0, sizeof(int) * (size_t)nbody);
  for (int i = nbody - 1; i > 0; i--) {
    rownnz[i] += m->body_dofnum[i];
    rownnz[parent[i]] += rownnz[i];
  }
  for (int i = 0; i < nbody; i++) {
    for (int j = parent[i]; j > 0; j = parent[j]) rownnz[i] += m->body_dofnum[j];
  }
  rowadr[0] = 0;
  for (int i = 1; i < nbody; i++) rowadr[i] = rowadr[i - 1] + rownnz[i - 1];

  // own dofs, passed up to every ancestor, then the ancestors' dofs; each row sorted
  memset(count, 0, sizeof(int) * (size_t)nbody);
  for (int i = nbody - 1; i > 0; i--) {
    for (int k = 0; k < m->body_dofnum[i]; k++) {
      colind[rowadr[i] + count[i]++] = m->body_dofadr[i] + k;
    }
    int par = parent[i];
    for (int k = 0; k < count[i]; k++) colind[rowadr[par] + count[par]++] = colind[rowadr[i] + k];
  }
  for (int i = 0; i < nbody; i++) {
    for (int par = parent[i]; par > 0; par = parent[par]) {
      for (int k = 0; k < m->body_dofnum[par]; k++) {
        colind[rowadr[i] + count[i]++] = m->body_dofadr[par] + k;
      }
    }
    if (count[i] > 1) sortInts(colind + rowadr[i], count[i]);
  }
}

// the index maps between the legacy qM, M and D (mj_makeDofDofMaps); cursor is nv ints of scratch
static void dofDofMaps(pxModel* m, int* cursor) {
  int nv = m->nv;
  if (!nv) return;

  // mapM2D: for each element of D, its element in M (the lower twin for the upper triangle), -1
  // where the reduced M has none (mju_lower2SymMap)
  for (int k = 0; k < m->nD; k++) m->mapM2D[k] = -1;
  memcpy(cursor, m->D_rowadr, sizeof(int) * (size_t)nv);
  for (int i = 0; i < nv; i++) {
    for (int k = m->M_rowadr[i]; k < m->M_rowadr[i] + m->M_rownnz[i]; k++) {
      int j = m->M_colind[k];
      if (j > i) break;
      int rows[2] = {i, j}, cols[2] = {j, i};
      for (int t = 0; t < (j != i ? 2 : 1); t++) {
        int r = rows[t], end = m->D_rowadr[r] + m->D_rownnz[r], p = cursor[r];
        while (p < end && m->D_colind[p] < cols[t]) p++;
        if (p < end && m->D_colind[p] == cols[t]) m->mapM2D[p++] = k;
        cursor[r] = p;
      }
    }
  }

  // mapD2M: for each element of M, its element in D (mju_sparseMap)
  for (int i = 0; i < nv; i++) {
    int d = m->D_rowadr[i], end = m->D_rowadr[i] + m->D_rownnz[i];
    for (int k = m->M_rowadr[i]; k < m->M_rowadr[i] + m->M_rownnz[i]; k++) {
      while (d < end && m->D_colind[d] < m->M_colind[k]) d++;
      m->mapD2M[k] = d++;
    }
  }

  // mapM2M: for each element of M, its index in the legacy qM, whose row i starts at dof_Madr[i]
  // with the diagonal and goes up the ancestors (copyM2Sparse of the identity)
  memcpy(cursor, m->M_rownnz, sizeof(int) * (size_t)nv);
  for (int i = nv - 1; i >= 0; i--) {
    int adr = m->dof_Madr[i];
    m->mapM2M[m->M_rowadr[i] + --cursor[i]] = adr++;
    if (m->dof_simplenum[i]) continue;
    for (int j = m->dof_parentid[i]; j >= 0; j = m->dof_parentid[j]) {
      m->mapM2M[m->M_rowadr[i] + --cursor[i]] = adr++;
    }
  }
}

//---------------------------------- tendons, actuators, sleep -------------------------------------

// a tree left on auto that an actuator or a coupling tendon acts on never sleeps
static void sleepNever(pxModel* m, int tree) {
  if (tree != -1 && m->tree_sleep_policy[tree] == SLEEP_AUTO) {
    m->tree_sleep_policy[tree] = SLEEP_AUTO_NEVER;
  }
}

// the compiler's choice for the trees left on auto (setFixed); mark is ntree chars of scratch
static pxtStatus sleepPolicy(pxcCtx* c, pxModel* m, char* mark) {
  for (int i = 0; i < m->nu; i++) {
    int id = m->actuator_trnid[2 * i], b = -1;
    switch (m->actuator_trntype[i]) {
      case PX_TRN_JOINT:
      case PX_TRN_JOINTINPARENT:
        b = m->jnt_bodyid[id];
        break;
      case PX_TRN_SO3:
        b = m->actuator_trnid[2 * i + 1] >= 0 ? m->site_bodyid[id] : m->jnt_bodyid[id];
        break;
      case PX_TRN_SITE:
      case PX_TRN_SLIDERCRANK:
        b = m->site_bodyid[id];
        break;
      case PX_TRN_BODY:
        b = id;
        break;
      case PX_TRN_TENDON:
        for (int w = m->tendon_adr[id]; w < m->tendon_adr[id] + m->tendon_num[id]; w++) {
          sleepNever(m, px_wrapTree(m, w));
        }
        break;
      default:
        break;
    }
    if (b != -1) sleepNever(m, m->body_treeid[b]);
  }

  // tendons across more than two trees, or across two with a spring, damper or actuator
  for (int i = 0; i < m->ntendon; i++) {
    int n = m->tendon_treenum[i];
    const double* sp = m->tendon_stiffnesspoly + 2 * i;
    const double* dp = m->tendon_dampingpoly + 2 * i;
    int passive = m->tendon_stiffness[i] != 0 || sp[0] != 0 || sp[1] != 0 ||
                  m->tendon_damping[i] != 0 || dp[0] != 0 || dp[1] != 0 ||
                  m->tendon_actuatorid[i] != -1;
    if (n < 2 || (n == 2 && !passive)) continue;
    memset(mark, 0, (size_t)m->ntree);
    for (int w = m->tendon_adr[i]; w < m->tendon_adr[i] + m->tendon_num[i]; w++) {
      int t = px_wrapTree(m, w);
      if (t == -1 || mark[t]) continue;
      mark[t] = 1;
      int policy = m->tree_sleep_policy[t];
      if (policy == SLEEP_ALLOWED || policy == SLEEP_INIT) {
        return PX_FAIL(c->st, PX_ERR_MJCF,
                       n > 2 ? "tree %d connected to tendon %d which spans more than 2 trees, "
                               "sleeping not allowed"
                             : "tree %d connected to tendon %d with non-zero stiffness or "
                               "damping, sleeping not allowed",
                       t, i);
      }
      sleepNever(m, t);
    }
  }
  for (int i = 0; i < m->ntree; i++) {
    if (m->tree_sleep_policy[i] == SLEEP_AUTO) m->tree_sleep_policy[i] = SLEEP_AUTO_ALLOWED;
  }
  return PX_OK;
}

//---------------------------------- entry point ---------------------------------------------------

pxtStatus pxc_compileSparse(pxcCtx* c, pxModel** pm) {
  pxModel* m = *pm;
  size_t nscratch = (size_t)m->nv + (size_t)m->nbody + (size_t)m->ntree + 1;
  int* scratch = (int*)malloc(sizeof(int) * nscratch);
  char* used = (char*)malloc(nscratch);
  if (!scratch || !used) {
    free(scratch);
    free(used);
    return noMem(c);
  }

  // sizes, then the arrays they size
  int nJten = 0;
  for (int i = 0; i < m->ntendon; i++) {
    m->ten_J_rownnz[i] = tendonRow(m, i, NULL, used);
    m->ten_J_rowadr[i] = nJten;
    nJten += m->ten_J_rownnz[i];
  }
  m->nJmom = countJmom(m);
  pxtStatus code = relayout(c, pm, countC(m), nJten);
  m = *pm;
  if (code == PX_OK) {
    for (int i = 0; i < m->ntendon; i++) {
      if (m->ten_J_rownnz[i]) tendonRow(m, i, m->ten_J_colind + m->ten_J_rowadr[i], used);
    }
    dofDofSparse(m, m->D_rownnz, m->D_rowadr, m->D_diag, m->D_colind, 0, 1, scratch);
    bodyDofSparse(m, scratch);
    dofDofSparse(m, m->M_rownnz, m->M_rowadr, NULL, m->M_colind, 1, 0, scratch);
    dofDofMaps(m, scratch);
    px_tendonTrees(m, used);
    px_actuatorIds(m);
    code = sleepPolicy(c, m, used);
  }
  free(scratch);
  free(used);
  return code;
}
