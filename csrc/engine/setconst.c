// SPDX-License-Identifier: Apache-2.0
// The model constants MuJoCo 3.12 derives by running the engine (mj_setConst, mj_setLengthRange),
// on the CPU, from the kernels of csrc/kern/ run on one scratch world:
//   px_setConst: sameframe codes, subtree masses, actuator ids of joints and tendons, tree
//     tables, then at qpos0 (cameras and lights fixed): dof_M0, tendon_length0,
//     actuator_length0, body/dof/tendon_invweight0, actuator_acc0, eq_data of body connect and
//     weld constraints, camera and light offsets, the dampratio -> kv conversion of
//     position-like actuators; the statistics (meaninertia from M) and dof_length; then
//     tendon_lengthspring at qpos_spring where it is -1.
//   px_setLengthRange: actuator_lengthrange of one actuator by simulation (mj_setLengthRange).
// Not done here (the compiler's, at compile time only): the tendon and flex sparsity, the tree
// sleep policies, mesh polygon sizes; phalanx has no flexes.
// Products and dot products keep MuJoCo's operation order (mju_dot's four partial sums).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kern/prelude_c.h"

#include "kern/kinematics.h"
#include "kern/smooth.h"
#include "kern/tendon.h"
#include "kern/transmission.h"

static const double kMinVal = 1e-15;       // mjMINVAL
static const double kSameFrameEps = 1e-6;  // the compiler's kFrameEps

//---------------------------------- small helpers -------------------------------------------------

// dot product in mju_dot's order: four interleaved partial sums, then the remainder
static double dotMj(const double* a, const double* b, int n) {
  double r0 = 0, r1 = 0, r2 = 0, r3 = 0;
  int i = 0;
  for (; i <= n - 4; i += 4) {
    r0 += a[i] * b[i];
    r1 += a[i + 1] * b[i + 1];
    r2 += a[i + 2] * b[i + 2];
    r3 += a[i + 3] * b[i + 3];
  }
  double res = (r0 + r2) + (r1 + r3);
  int left = n - i;
  if (left == 3) {
    res += a[i] * b[i] + a[i + 1] * b[i + 1] + a[i + 2] * b[i + 2];
  } else if (left == 2) {
    res += a[i] * b[i] + a[i + 1] * b[i + 1];
  } else if (left == 1) {
    res += a[i] * b[i];
  }
  return res;
}

// res (r1 x r2) = mat1 (r1 x c) * mat2' (r2 x c)
static void mulMatMatT(double* res, const double* mat1, const double* mat2, int r1, int c, int r2) {
  for (int i = 0; i < r1; i++) {
    for (int j = 0; j < r2; j++) res[i * r2 + j] = dotMj(mat1 + i * c, mat2 + j * c, c);
  }
}

// dense row (nv) of a sparse row
static void sparseRow(double* dst, int nv, const double* val, const int* colind, int adr, int nnz) {
  memset(dst, 0, sizeof(double) * (size_t)nv);
  for (int k = 0; k < nnz; k++) dst[colind[adr + k]] = val[adr + k];
}

static int nullVec3(const double* v) {
  return fabs(v[0]) < kSameFrameEps && fabs(v[1]) < kSameFrameEps && fabs(v[2]) < kSameFrameEps;
}

static int sameVec3(const double* a, const double* b) {
  return fabs(a[0] - b[0]) < kSameFrameEps && fabs(a[1] - b[1]) < kSameFrameEps &&
         fabs(a[2] - b[2]) < kSameFrameEps;
}

static int sameQuat(const double* a, const double* b) {
  int plus = fabs(a[0] - b[0]) < kSameFrameEps && fabs(a[1] - b[1]) < kSameFrameEps &&
             fabs(a[2] - b[2]) < kSameFrameEps && fabs(a[3] - b[3]) < kSameFrameEps;
  int minus = fabs(a[0] + b[0]) < kSameFrameEps && fabs(a[1] + b[1]) < kSameFrameEps &&
              fabs(a[2] + b[2]) < kSameFrameEps && fabs(a[3] + b[3]) < kSameFrameEps;
  return plus || minus;
}

static int nullQuat(const double* q) {
  static const double unit[4] = {1, 0, 0, 0};
  return sameQuat(q, unit);
}

//---------------------------------- fixed quantities ----------------------------------------------

// sameframe code of an object at (pos, quat) in body b
static pxtByte frameCode(const pxModel* m, int b, const double* pos, const double* quat) {
  const double* ipos = m->body_ipos + 3 * b;
  const double* iquat = m->body_iquat + 4 * b;
  if (nullVec3(pos) && nullQuat(quat)) return PXK_SAMEFRAME_BODY;
  if (nullQuat(quat)) return PXK_SAMEFRAME_BODYROT;
  if (sameVec3(pos, ipos) && sameQuat(quat, iquat)) return PXK_SAMEFRAME_INERTIA;
  if (sameQuat(quat, iquat)) return PXK_SAMEFRAME_INERTIAROT;
  return PXK_SAMEFRAME_NONE;
}

static pxtStatus setSameframe(pxModel* m, pxStatus* st) {
  for (int i = 1; i < m->nbody; i++) {
    const double* ipos = m->body_ipos + 3 * i;
    const double* iquat = m->body_iquat + 4 * i;
    m->body_sameframe[i] = nullVec3(ipos) && nullQuat(iquat) ? PXK_SAMEFRAME_BODY
                           : nullQuat(iquat)                 ? PXK_SAMEFRAME_BODYROT
                                                             : PXK_SAMEFRAME_NONE;
  }
  for (int i = 0; i < m->ngeom; i++) {
    m->geom_sameframe[i] =
        frameCode(m, m->geom_bodyid[i], m->geom_pos + 3 * i, m->geom_quat + 4 * i);
  }
  for (int i = 0; i < m->nsite; i++) {
    m->site_sameframe[i] =
        frameCode(m, m->site_bodyid[i], m->site_pos + 3 * i, m->site_quat + 4 * i);
  }
  for (int i = 1; i < m->nbody; i++) {
    if (m->body_simple[i] > 0 && m->body_sameframe[i] != PXK_SAMEFRAME_BODY) {
      return PX_FAIL(st, PX_ERR_ARG,
                     "setConst: body %d is compiled as simple but sameframe no longer holds, "
                     "use body/simple='false'",
                     i);
    }
  }
  return PX_OK;
}

// tree of the body a wrap object is attached to, -1 for pulleys and static bodies
int px_wrapTree(const pxModel* m, int j) {
  int obj = m->wrap_objid[j], body = -1;
  switch (m->wrap_type[j]) {
    case PX_WRAP_JOINT:
      body = m->jnt_bodyid[obj];
      break;
    case PX_WRAP_SITE:
      body = m->site_bodyid[obj];
      break;
    case PX_WRAP_SPHERE:
    case PX_WRAP_CYLINDER:
      body = m->geom_bodyid[obj];
      break;
    default:
      break;
  }
  return body >= 0 ? m->body_treeid[body] : -1;
}

// per tendon, the trees along its path: how many, and the first two; mark is ntree chars of
// scratch
void px_tendonTrees(pxModel* m, char* mark) {
  for (int i = 0; i < m->ntendon; i++) {
    memset(mark, 0, (size_t)m->ntree);
    m->tendon_treenum[i] = 0;
    m->tendon_treeid[2 * i] = m->tendon_treeid[2 * i + 1] = -1;
    for (int w = m->tendon_adr[i]; w < m->tendon_adr[i] + m->tendon_num[i]; w++) {
      int t = px_wrapTree(m, w);
      if (t == -1 || mark[t]) continue;
      mark[t] = 1;
      if (m->tendon_treenum[i] < 2) m->tendon_treeid[2 * i + m->tendon_treenum[i]] = t;
      m->tendon_treenum[i]++;
    }
  }
}

// per joint and tendon, the actuator adding damping or armature to it; -1 none, -2 several
void px_actuatorIds(pxModel* m) {
  for (int i = 0; i < m->njnt; i++) m->jnt_actuatorid[i] = -1;
  for (int i = 0; i < m->ntendon; i++) m->tendon_actuatorid[i] = -1;
  for (int i = 0; i < m->nu; i++) {
    if (m->actuator_damping[i] == 0 && m->actuator_dampingpoly[2 * i] == 0 &&
        m->actuator_dampingpoly[2 * i + 1] == 0 && m->actuator_armature[i] == 0) {
      continue;
    }
    int t = m->actuator_trntype[i], id = m->actuator_trnid[2 * i];
    int* slot = t == PX_TRN_JOINT || t == PX_TRN_JOINTINPARENT ? m->jnt_actuatorid + id
                : t == PX_TRN_TENDON                           ? m->tendon_actuatorid + id
                                                               : NULL;
    if (slot) *slot = *slot == -1 ? i : -2;
  }
}

// subtree masses, gravcomp count, actuator ids of joints and tendons, tree tables (setFixed
// without the sleep policies, which only the compiler sets)
// body_subtreemass from body_mass, leaves first
static void setSubtreeMass(pxModel* m) {
  for (int i = 0; i < m->nbody; i++) m->body_subtreemass[i] = m->body_mass[i];
  for (int i = m->nbody - 1; i > 0; i--) {
    m->body_subtreemass[m->body_parentid[i]] += m->body_subtreemass[i];
  }
}

static pxtStatus setFixed(pxModel* m, pxStatus* st) {
  setSubtreeMass(m);
  int ngravcomp = 0;
  for (int i = 0; i < m->nbody; i++) ngravcomp += (m->body_gravcomp[i] > 0);
  m->ngravcomp = ngravcomp;

  // largest mesh polygon and largest number of polygons at a mesh vertex (MuJoCo's mj_setConst)
  int npolygonmax = 0, nmeshdegmax = 0;
  for (int i = 0; i < m->nmeshpoly; i++) {
    if (m->mesh_polyvertnum[i] > npolygonmax) npolygonmax = m->mesh_polyvertnum[i];
  }
  for (int i = 0; i < m->nmeshvert; i++) {
    if (m->mesh_polymapnum[i] > nmeshdegmax) nmeshdegmax = m->mesh_polymapnum[i];
  }
  m->npolygonmax = npolygonmax;
  m->nmeshdegmax = nmeshdegmax;

  px_actuatorIds(m);

  for (int i = 0; i < m->nbody; i++) {
    int weld = m->body_weldid[i];
    m->body_treeid[i] = m->body_dofnum[weld] ? m->dof_treeid[m->body_dofadr[weld]] : -1;
  }
  memset(m->tree_bodynum, 0, sizeof(int) * (size_t)m->ntree);
  int cur = -1;
  for (int i = 1; i < m->nbody; i++) {
    int t = m->body_treeid[i];
    if (t == -1) continue;
    if (t > cur) m->tree_bodyadr[++cur] = i;
    m->tree_bodynum[cur]++;
  }
  memset(m->tree_dofnum, 0, sizeof(int) * (size_t)m->ntree);
  cur = -1;
  for (int i = 0; i < m->nv; i++) {
    if (m->dof_treeid[i] > cur) m->tree_dofadr[++cur] = i;
    m->tree_dofnum[cur]++;
  }

  char* mark = (char*)calloc((size_t)m->ntree + 1, 1);
  if (!mark) return PX_FAIL(st, PX_ERR_NOMEM, "setConst: out of memory");
  px_tendonTrees(m, mark);
  free(mark);
  return PX_OK;
}

//---------------------------------- quantities at qpos0 -------------------------------------------

// eq_data of body connect and weld constraints from the body frames in d
void px_equalityData(pxModel* m, const pxData* d) {
  for (int i = 0; i < m->neq; i++) {
    double* data = m->eq_data + 11 * i;
    int id1 = m->eq_obj1id[i], id2 = m->eq_obj2id[i];
    if (m->eq_type[i] == PX_EQ_CONNECT) {
      if (m->eq_objtype[i] == PX_OBJ_SITE) {
        memset(data, 0, 11 * sizeof(double));  // unused
        continue;
      }
      if (m->eq_objtype[i] != PX_OBJ_BODY) continue;
      // anchor (body1 frame) in the global frame, then in body2's frame
      const double* R1 = d->xmat + 9 * id1;
      const double* R2 = d->xmat + 9 * id2;
      double pos[3];
      for (int k = 0; k < 3; k++) {
        pos[k] = R1[3 * k] * data[0] + R1[3 * k + 1] * data[1] + R1[3 * k + 2] * data[2];
      }
      for (int k = 0; k < 3; k++) pos[k] += d->xpos[3 * id1 + k];
      for (int k = 0; k < 3; k++) pos[k] -= d->xpos[3 * id2 + k];
      for (int k = 0; k < 3; k++) {
        data[3 + k] = R2[k] * pos[0] + R2[3 + k] * pos[1] + R2[6 + k] * pos[2];
      }
    } else if (m->eq_type[i] == PX_EQ_WELD && m->eq_objtype[i] == PX_OBJ_BODY) {
      if (data[6] || data[7] || data[8] || data[9]) {
        // relative pose given: keep it, normalized (mju_normalize4)
        double* q = data + 6;
        double norm = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        if (norm < kMinVal) {
          q[0] = 1;
          q[1] = q[2] = q[3] = 0;
        } else if (fabs(norm - 1) > kMinVal) {
          double inv = 1 / norm;
          for (int k = 0; k < 4; k++) q[k] *= inv;
        }
        continue;
      }
      // anchor (body2 frame) in body1's frame, relative orientation neg(xquat1) * xquat2
      const double* R1 = d->xmat + 9 * id1;
      const double* R2 = d->xmat + 9 * id2;
      double pos[3];
      for (int k = 0; k < 3; k++) {
        pos[k] = R2[3 * k] * data[0] + R2[3 * k + 1] * data[1] + R2[3 * k + 2] * data[2];
      }
      for (int k = 0; k < 3; k++) pos[k] += d->xpos[3 * id2 + k];
      for (int k = 0; k < 3; k++) pos[k] -= d->xpos[3 * id1 + k];
      for (int k = 0; k < 3; k++) {
        data[3 + k] = R1[k] * pos[0] + R1[3 + k] * pos[1] + R1[6 + k] * pos[2];
      }
      const double* a = d->xquat + 4 * id1;
      const double* b = d->xquat + 4 * id2;
      double q[4] = {a[0], -a[1], -a[2], -a[3]};
      data[6] = q[0] * b[0] - q[1] * b[1] - q[2] * b[2] - q[3] * b[3];
      data[7] = q[0] * b[1] + q[1] * b[0] + q[2] * b[3] - q[3] * b[2];
      data[8] = q[0] * b[2] - q[1] * b[3] + q[2] * b[0] + q[3] * b[1];
      data[9] = q[0] * b[3] + q[1] * b[2] - q[2] * b[1] + q[3] * b[0];
    }
  }
}

// the part of set0 that depends on masses, inertias, armature and gains: body/dof/tendon
// invweight0, actuator_acc0 and the dampratio -> kv conversion; the stages at qpos0 have run in
// d; scratch holds 13 nv numbers
static void set0Inertial(pxModel* m, const pxData* d, double* scratch) {
  int nv = m->nv;
  double* jac = scratch;           // 6 nv
  double* tmp = scratch + 6 * nv;  // 6 nv
  double* moment = scratch + 12 * nv;
  double A[36] = {0};

  // body_invweight0: translational and rotational averages of J inv(M) J' at the com
  m->body_invweight0[0] = m->body_invweight0[1] = 0;
  for (int i = 1; i < m->nbody; i++) {
    if (m->body_dofnum[m->body_weldid[i]] == 0) {
      m->body_invweight0[2 * i] = m->body_invweight0[2 * i + 1] = 0;
    } else if (m->body_simple[i] == 2) {
      m->body_invweight0[2 * i] = 1 / fmax(kMinVal, m->body_mass[i]);
      m->body_invweight0[2 * i + 1] = 0;
    } else {
      if (nv) {
        px_jac(m, d, jac, jac + 3 * nv, d->xipos + 3 * i, i);
        px_solveM(m, d, tmp, jac, 6);
        mulMatMatT(A, jac, tmp, 6, nv, 6);
      }
      m->body_invweight0[2 * i] = (A[0] + A[7] + A[14]) / 3;
      m->body_invweight0[2 * i + 1] = (A[21] + A[28] + A[35]) / 3;
    }
  }

  // dof_invweight0: the same per joint, from unit Jacobians
  for (int i = 0; i < m->njnt; i++) {
    int id = m->jnt_dofadr[i], b = m->jnt_bodyid[i];
    if (m->body_simple[b] == 2) {
      m->dof_invweight0[id] = 1 / fmax(kMinVal, m->body_mass[b]);
      continue;
    }
    int type = m->jnt_type[i];
    int dnum = type == PX_JNT_FREE ? 6 : type == PX_JNT_BALL ? 3 : 1;
    if (nv) {
      memset(jac, 0, sizeof(double) * (size_t)(dnum * nv));
      for (int j = 0; j < dnum; j++) jac[j * (nv + 1) + id] = 1;
      px_solveM(m, d, tmp, jac, dnum);
      mulMatMatT(A, jac, tmp, dnum, nv, dnum);
    }
    if (dnum == 6) {
      double t = (A[0] + A[7] + A[14]) / 3, r = (A[21] + A[28] + A[35]) / 3;
      for (int k = 0; k < 3; k++) {
        m->dof_invweight0[id + k] = t;
        m->dof_invweight0[id + 3 + k] = r;
      }
    } else if (dnum == 3) {
      double r = (A[0] + A[4] + A[8]) / 3;
      for (int k = 0; k < 3; k++) m->dof_invweight0[id + k] = r;
    } else {
      m->dof_invweight0[id] = A[0];
    }
  }

  // tendon_invweight0 = J inv(M) J', actuator_acc0 = |inv(M) moment|
  if (nv) {
    for (int i = 0; i < m->ntendon; i++) {
      sparseRow(tmp, nv, d->ten_J, m->ten_J_colind, m->ten_J_rowadr[i], m->ten_J_rownnz[i]);
      px_solveM(m, d, tmp + nv, tmp, 1);
      m->tendon_invweight0[i] = dotMj(tmp, tmp + nv, nv);
    }
    for (int i = 0; i < m->nout; i++) {
      sparseRow(moment, nv, d->actuator_moment, d->moment_colind, d->moment_rowadr[i],
                d->moment_rownnz[i]);
      px_solveM(m, d, tmp, moment, 1);
      m->actuator_acc0[i] = sqrt(dotMj(tmp, tmp, nv));
    }
  } else {
    memset(m->tendon_invweight0, 0, sizeof(double) * (size_t)m->ntendon);
    memset(m->actuator_acc0, 0, sizeof(double) * (size_t)m->nout);
  }

  // position-like actuators with biasprm[2] > 0: a damping ratio, converted to -kv from the
  // inertia reflected through the transmission, sum(dof_M0 / moment^2)
  for (int i = 0; i < m->nu; i++) {
    double* biasprm = m->actuator_biasprm + 10 * i;
    const double* gainprm = m->actuator_gainprm + 10 * i;
    int pid = m->actuator_gaintype[i] == PX_GAIN_PID;
    if (!pid && gainprm[0] != -biasprm[1]) continue;
    if (biasprm[2] <= 0) continue;
    int row = m->actuator_outadr[i];
    int nnz = d->moment_rownnz[row], adr = d->moment_rowadr[row];
    double mass = 0;
    for (int j = 0; j < nnz; j++) {
      double trn = fabs(d->actuator_moment[adr + j]);
      double trn2 = trn * trn;
      if (trn2 > kMinVal) mass += m->dof_M0[d->moment_colind[adr + j]] / trn2;
    }
    double kp = pid ? -biasprm[1] : gainprm[0];
    double damping = biasprm[2] * 2 * sqrt(kp * mass);
    biasprm[2] = -damping;
  }
}

// lengths, the inertial part (set0Inertial), equality data, camera and light offsets (set0); the
// stages at qpos0 have run in d; scratch holds 13 nv numbers
static void set0Derived(pxModel* m, const pxData* d, double* scratch) {
  memcpy(m->tendon_length0, d->ten_length, sizeof(double) * (size_t)m->ntendon);
  memcpy(m->actuator_length0, d->actuator_length, sizeof(double) * (size_t)m->nout);
  set0Inertial(m, d, scratch);
  px_equalityData(m, d);

  // camera and light offsets from their body and the target's subtree com
  for (int i = 0; i < m->ncam; i++) {
    int id = m->cam_bodyid[i], id1 = m->cam_targetbodyid[i];
    const double* com = d->subtree_com + 3 * (id1 >= 0 ? id1 : id);
    for (int c = 0; c < 3; c++) {
      m->cam_pos0[3 * i + c] = d->cam_xpos[3 * i + c] - d->xpos[3 * id + c];
      m->cam_poscom0[3 * i + c] = d->cam_xpos[3 * i + c] - com[c];
    }
    memcpy(m->cam_mat0 + 9 * i, d->cam_xmat + 9 * i, 9 * sizeof(double));
  }
  for (int i = 0; i < m->nlight; i++) {
    int id = m->light_bodyid[i], id1 = m->light_targetbodyid[i];
    const double* com = d->subtree_com + 3 * (id1 >= 0 ? id1 : id);
    for (int c = 0; c < 3; c++) {
      m->light_pos0[3 * i + c] = d->light_xpos[3 * i + c] - d->xpos[3 * id + c];
      m->light_poscom0[3 * i + c] = d->light_xpos[3 * i + c] - com[c];
    }
    memcpy(m->light_dir0 + 3 * i, d->light_xdir + 3 * i, 3 * sizeof(double));
  }
}

//---------------------------------- statistics ----------------------------------------------------

static void updateBox(double* xmin, double* xmax, const double* pos, double radius) {
  for (int i = 0; i < 3; i++) {
    xmin[i] = fmin(xmin[i], pos[i] - radius);
    xmax[i] = fmax(xmax[i], pos[i] + radius);
  }
}

static double dist3(const double* a, const double* b) {
  double d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
  return sqrt(d0 * d0 + d1 * d1 + d2 * d2);
}

// stat.meaninertia: the mean diagonal of M at qpos0 (in d)
static void setMeanInertia(pxModel* m, const pxData* d) {
  if (m->nv) {
    m->stat.meaninertia = 0;
    for (int i = 0; i < m->nv; i++) {
      m->stat.meaninertia += d->M[m->M_rowadr[i] + m->M_rownnz[i] - 1];
    }
    m->stat.meaninertia /= m->nv;
  }
}

// statistics and dof_length from the stages at qpos0 in d (setStat); size: nbody scratch
static void setStat(pxModel* m, const pxData* d, double* size) {
  double xmin[3] = {1e10, 1e10, 1e10}, xmax[3] = {-1e10, -1e10, -1e10};
  for (int i = 1; i < m->nbody; i++) {
    updateBox(xmin, xmax, d->xpos + 3 * i, 0);
    updateBox(xmin, xmax, d->xipos + 3 * i, 0);
  }
  for (int i = 0; i < m->njnt; i++) updateBox(xmin, xmax, d->xanchor + 3 * i, 0);
  for (int i = 0; i < m->nsite; i++) updateBox(xmin, xmax, d->site_xpos + 3 * i, 0);
  for (int i = 0; i < m->ngeom; i++) {
    double rbound = 0;
    const double* gs = m->geom_size + 3 * i;
    if (m->geom_rbound[i] > 0) {
      rbound = m->geom_rbound[i];
    } else if (m->geom_type[i] == PX_GEOM_PLANE) {
      rbound = (gs[0] || gs[1]) ? fmax(gs[0], gs[1]) * 0.1 : 0.01;
    } else if (m->geom_type[i] == PX_GEOM_HFIELD) {
      const double* hs = m->hfield_size + 4 * m->geom_dataid[i];
      rbound = fmax(hs[0], fmax(hs[1], fmax(hs[2], hs[3]))) * 0.1;
    }
    updateBox(xmin, xmax, d->geom_xpos + 3 * i, rbound);
  }
  for (int i = 0; i < 3; i++) m->stat.center[i] = (xmin[i] + xmax[i]) * 0.5;
  if (xmax[0] > xmin[0]) {
    m->stat.extent =
        fmax(1e-5, fmax(xmax[0] - xmin[0], fmax(xmax[1] - xmin[1], xmax[2] - xmin[2])));
  }

  // body size: largest com-joint distance, then geom bounds around the com
  memset(size, 0, sizeof(double) * (size_t)m->nbody);
  for (int i = 0; i < m->njnt; i++) {
    int id = m->jnt_bodyid[i];
    size[id] = fmax(size[id], dist3(d->xipos + 3 * id, d->xanchor + 3 * i));
    id = m->body_parentid[id];
    size[id] = fmax(size[id], dist3(d->xipos + 3 * id, d->xanchor + 3 * i));
  }
  size[0] = 0;
  for (int i = 1; i < m->nbody; i++) {
    for (int g = m->body_geomadr[i]; g < m->body_geomadr[i] + m->body_geomnum[i]; g++) {
      if (m->geom_rbound[g] > 0) {
        size[i] = fmax(size[i], m->geom_rbound[g] + dist3(d->xipos + 3 * i, d->geom_xpos + 3 * g));
      }
    }
  }
  if (m->nbody > 1) {
    m->stat.meansize = 0;
    for (int i = 1; i < m->nbody; i++) {
      size[i] = fmax(size[i], 1e-5);
      m->stat.meansize += size[i] / (m->nbody - 1);
    }
  }

  // rotational dofs take the body's length, translational ones 1
  for (int i = 0; i < m->nv; i++) {
    int jnt = m->dof_jntid[i];
    int type = m->jnt_type[jnt];
    m->dof_length[i] = 1;
    if (type == PX_JNT_BALL || type == PX_JNT_HINGE ||
        (type == PX_JNT_FREE && i - m->jnt_dofadr[jnt] >= 3)) {
      m->dof_length[i] = size[m->dof_bodyid[i]];
    }
  }
  m->stat.extent = fmax(m->stat.extent, 2 * m->stat.meansize);
  if (m->nbody > 1) {
    m->stat.meanmass = 0;
    for (int i = 1; i < m->nbody; i++) m->stat.meanmass += m->body_mass[i];
    m->stat.meanmass /= (m->nbody - 1);
  }
  setMeanInertia(m, d);
}

//---------------------------------- entry points --------------------------------------------------

pxtStatus px_setConst(pxModel* m, pxData* d, pxStatus* st) {
  pxtStatus code = px_transmissionSupported(m, st);
  if (code != PX_OK) return code;
  size_t nscratch = 13 * (size_t)m->nv + (size_t)m->nbody + (size_t)m->ncam + (size_t)m->nlight;
  double* scratch = (double*)malloc(sizeof(double) * (nscratch + 1));
  int* mode = (int*)malloc(sizeof(int) * ((size_t)m->ncam + (size_t)m->nlight + 1));
  if (!scratch || !mode) {
    free(scratch);
    free(mode);
    return PX_FAIL(st, PX_ERR_NOMEM, "setConst: out of memory");
  }
  code = setSameframe(m, st);
  if (code == PX_OK) code = setFixed(m, st);
  if (code != PX_OK) {
    free(scratch);
    free(mode);
    return code;
  }

  // the stages at qpos0, cameras and lights fixed
  for (int i = 0; i < m->ncam; i++) {
    mode[i] = m->cam_mode[i];
    m->cam_mode[i] = PX_CAMLIGHT_FIXED;
  }
  for (int i = 0; i < m->nlight; i++) {
    mode[m->ncam + i] = m->light_mode[i];
    m->light_mode[i] = PX_CAMLIGHT_FIXED;
  }
  if (m->nq) memcpy(d->qpos, m->qpos0, sizeof(double) * (size_t)m->nq);
  pxk_kinematics(m, d);
  px_setM0(m, d);
  pxk_tendon(m, d);
  pxk_makeM(m, d);
  pxk_factorM(m, d);
  pxk_transmission(m, d);
  for (int i = 0; i < m->ncam; i++) m->cam_mode[i] = mode[i];
  for (int i = 0; i < m->nlight; i++) m->light_mode[i] = mode[m->ncam + i];
  set0Derived(m, d, scratch);
  setStat(m, d, scratch + 13 * (size_t)m->nv);

  // tendon lengths at qpos_spring where the spring length is -1 (setSpring)
  if (m->nq) memcpy(d->qpos, m->qpos_spring, sizeof(double) * (size_t)m->nq);
  pxk_kinematics(m, d);
  pxk_tendon(m, d);
  pxk_transmission(m, d);
  for (int i = 0; i < m->ntendon; i++) {
    if (m->tendon_lengthspring[2 * i] == -1 && m->tendon_lengthspring[2 * i + 1] == -1) {
      m->tendon_lengthspring[2 * i] = m->tendon_lengthspring[2 * i + 1] = d->ten_length[i];
    }
  }
  free(scratch);
  free(mode);
  return PX_OK;
}

// the inertial constants of px_setConst alone, computed by the same code in the same order;
// writes only body_subtreemass, dof_M0, body/dof/tendon_invweight0, actuator_acc0,
// actuator_biasprm (dampratio -> kv), stat.meaninertia, cam_poscom0 and light_poscom0 of m, so
// that m may be a shallow copy whose other arrays are shared; m's camera and light modes must
// read fixed (the caller points them at scratch), as px_setConst sets them (else nothing is done)
void px_setConstInertia(pxModel* m, pxData* d, double* scratch) {
  for (int i = 0; i < m->ncam; i++) {
    if (m->cam_mode[i] != PX_CAMLIGHT_FIXED) return;
  }
  for (int i = 0; i < m->nlight; i++) {
    if (m->light_mode[i] != PX_CAMLIGHT_FIXED) return;
  }
  setSubtreeMass(m);
  if (m->nq) memcpy(d->qpos, m->qpos0, sizeof(double) * (size_t)m->nq);
  pxk_kinematics(m, d);
  px_setM0(m, d);
  pxk_tendon(m, d);
  pxk_makeM(m, d);
  pxk_factorM(m, d);
  pxk_transmission(m, d);
  set0Inertial(m, d, scratch);
  setMeanInertia(m, d);

  // the camera and light offsets from the target's subtree com (as set0Derived)
  for (int i = 0; i < m->ncam; i++) {
    int id = m->cam_bodyid[i], id1 = m->cam_targetbodyid[i];
    const double* com = d->subtree_com + 3 * (id1 >= 0 ? id1 : id);
    for (int c = 0; c < 3; c++) m->cam_poscom0[3 * i + c] = d->cam_xpos[3 * i + c] - com[c];
  }
  for (int i = 0; i < m->nlight; i++) {
    int id = m->light_bodyid[i], id1 = m->light_targetbodyid[i];
    const double* com = d->subtree_com + 3 * (id1 >= 0 ? id1 : id);
    for (int c = 0; c < 3; c++) m->light_poscom0[3 * i + c] = d->light_xpos[3 * i + c] - com[c];
  }
}

void px_defaultLROpt(pxLROpt* opt) {
  opt->mode = PX_LRMODE_MUSCLE;
  opt->useexisting = 1;
  opt->uselimit = 0;
  opt->accel = 20;
  opt->maxforce = 0;
  opt->timeconst = 1;
  opt->timestep = 0.01;
  opt->inttotal = 10;
  opt->interval = 2;
  opt->tolrange = 0.05;
}

int px_lengthRangeNeeded(const pxModel* m, int i, const pxLROpt* opt) {
  int muscle =
      m->actuator_gaintype[i] == PX_GAIN_MUSCLE || m->actuator_biastype[i] == PX_BIAS_MUSCLE;
  int user = m->actuator_gaintype[i] == PX_GAIN_USER || m->actuator_biastype[i] == PX_BIAS_USER;
  if (opt->mode == PX_LRMODE_NONE || (opt->mode == PX_LRMODE_MUSCLE && !muscle) ||
      (opt->mode == PX_LRMODE_MUSCLEUSER && !muscle && !user)) {
    return 0;
  }
  int out = m->actuator_outadr[i];
  if (opt->useexisting && m->actuator_lengthrange[2 * out] < m->actuator_lengthrange[2 * out + 1]) {
    return 0;
  }
  return 1;
}

// one step of the length-range simulation: damp qvel, push the actuator with a force giving
// the acceleration opt->accel along its moment, return its length (evalAct)
static pxtStatus lrStep(const pxModel* m, pxData* d, int i, int side, const pxLROpt* opt,
                        double* moment, double* len) {
  int nv = m->nv, out = m->actuator_outadr[i];
  double decay = exp(-m->opt.timestep / fmax(0.01, opt->timeconst));
  for (int k = 0; k < nv; k++) d->qvel[k] = d->qvel[k] * decay;
  pxtStatus code = px_step1(m, d);
  if (code != PX_OK) return code;
  sparseRow(moment, nv, d->actuator_moment, d->moment_colind, d->moment_rowadr[out],
            d->moment_rownnz[out]);
  px_solveM(m, d, d->qfrc_applied, moment, 1);
  double nrm = sqrt(dotMj(d->qfrc_applied, d->qfrc_applied, nv));
  double scl = (2 * side - 1) * opt->accel / fmax(kMinVal, nrm);
  for (int k = 0; k < nv; k++) d->qfrc_applied[k] = moment[k] * scl;
  nrm = sqrt(dotMj(d->qfrc_applied, d->qfrc_applied, nv));
  if (opt->maxforce > 0 && nrm > opt->maxforce) {
    scl = opt->maxforce / fmax(kMinVal, nrm);
    for (int k = 0; k < nv; k++) d->qfrc_applied[k] = d->qfrc_applied[k] * scl;
  }
  code = px_step2(m, d);
  if (code != PX_OK) return code;
  *len = d->actuator_length[out];
  return PX_OK;
}

static pxtStatus lengthRange(pxModel* m, pxData* d, int i, const pxLROpt* opt, pxStatus* st);

// the simulation runs with sensors disabled: MuJoCo's computes them, but they are outputs that
// change nothing the range reads, and sensor types phalanx does not compute would refuse it
pxtStatus px_setLengthRange(pxModel* m, pxData* d, int i, const pxLROpt* opt, pxStatus* st) {
  int save = m->opt.disableflags;
  m->opt.disableflags |= PX_DSBL_SENSOR;
  pxtStatus code = lengthRange(m, d, i, opt, st);
  m->opt.disableflags = save;
  return code;
}

static pxtStatus lengthRange(pxModel* m, pxData* d, int i, const pxLROpt* opt, pxStatus* st) {
  if (i < 0 || i >= m->nu) return PX_FAIL(st, PX_ERR_ARG, "invalid actuator index %d", i);
  if (!px_lengthRangeNeeded(m, i, opt)) return PX_OK;
  int out = m->actuator_outadr[i], id = m->actuator_trnid[2 * i], trn = m->actuator_trntype[i];
  if (opt->uselimit) {
    if ((trn == PX_TRN_JOINT || trn == PX_TRN_JOINTINPARENT) && m->jnt_limited[id]) {
      memcpy(m->actuator_lengthrange + 2 * out, m->jnt_range + 2 * id, 2 * sizeof(double));
      return PX_OK;
    }
    if (trn == PX_TRN_TENDON && m->tendon_limited[id]) {
      memcpy(m->actuator_lengthrange + 2 * out, m->tendon_range + 2 * id, 2 * sizeof(double));
      return PX_OK;
    }
  }

  // the simulation needs px_forward: name what it lacks
  pxStatus fst;
  px_statusClear(&fst);
  if (px_forwardCheckCPU(m, &fst) != PX_OK || px_integratorCheck(m, &fst) != PX_OK) {
    // not computable yet (the simulation needs what phalanx lacks, e.g. limits): NaN marks the
    // range as not computed, and the actuation stage refuses to run such a muscle, naming why
    m->actuator_lengthrange[2 * out] = NAN;
    m->actuator_lengthrange[2 * out + 1] = NAN;
    (void)st;
    return PX_OK;
  }
  double* moment = (double*)malloc(sizeof(double) * ((size_t)m->nv + 1));
  if (!moment) return PX_FAIL(st, PX_ERR_NOMEM, "setLengthRange: out of memory");
  double lmin[2] = {0, 0}, lmax[2] = {0, 0};
  for (int side = 0; side < 2; side++) {
    px_resetData(m, d);
    px_statusClear(&d->status);
    int updated = 0;
    while (d->time < opt->inttotal) {
      double len = 0;
      pxtStatus code = lrStep(m, d, i, side, opt, moment, &len);
      if (code != PX_OK) {
        free(moment);
        return PX_FAIL(st, code, "actuator %d: lengthrange simulation: %s", i, d->status.msg);
      }
      if (d->time == 0) {
        free(moment);
        return PX_FAIL(st, PX_ERR_MJCF, "Unstable lengthrange simulation in actuator %d", i);
      }
      if (d->time > opt->inttotal - opt->interval) {
        if (len < lmin[side] || !updated) lmin[side] = len;
        if (len > lmax[side] || !updated) lmax[side] = len;
        updated = 1;
      }
    }
    // MuJoCo indexes this store by actuator, not by output (the same while outputs are 1 each)
    m->actuator_lengthrange[2 * i + side] = side == 0 ? lmin[side] : lmax[side];
  }
  free(moment);
  double lo = m->actuator_lengthrange[2 * out], hi = m->actuator_lengthrange[2 * out + 1];
  double dif = hi - lo;
  if (dif <= 0) {
    return PX_FAIL(st, PX_ERR_MJCF, "Invalid lengthrange (%g, %g) in actuator %d", lo, hi, i);
  }
  for (int side = 0; side < 2; side++) {
    if (lmax[side] - lmin[side] > opt->tolrange * dif) {
      return PX_FAIL(st, PX_ERR_MJCF,
                     "Lengthrange computation did not converge in actuator %d:\n  eval (%g, %g)\n"
                     "  range (%g, %g)",
                     i, lmin[side], lmax[side], lo, hi);
    }
  }
  return PX_OK;
}

pxtStatus px_lengthRangeAll(pxModel* m, pxData* d, const pxLROpt* opt, pxStatus* st) {
  int need = 0;
  for (int i = 0; i < m->nu; i++) need |= px_lengthRangeNeeded(m, i, opt);
  if (!need) return PX_OK;
  pxOption save = m->opt;
  m->opt.enableflags &= ~PX_ENBL_SLEEP;  // the compiler's data never sleeps
  m->opt.disableflags = PX_DSBL_FRICTIONLOSS | PX_DSBL_CONTACT | PX_DSBL_SPRING | PX_DSBL_DAMPER |
                        PX_DSBL_GRAVITY | PX_DSBL_ACTUATION;
  if (opt->timestep > 0) m->opt.timestep = opt->timestep;
  pxtStatus code = PX_OK;
  for (int i = 0; i < m->nu && code == PX_OK; i++) code = px_setLengthRange(m, d, i, opt, st);
  m->opt = save;
  return code;
}
