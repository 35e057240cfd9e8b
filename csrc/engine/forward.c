// SPDX-License-Identifier: Apache-2.0
// The CPU executor of the kernels: calls the csrc/kern/ stages for one world, in MuJoCo 3.12's
// order (mj_forward), and the utilities of MuJoCo's API built on them (M products and solves,
// Jacobians, object velocities, applied forces).
#include <string.h>

#include "kern/prelude_c.h"

#include "kern/jac.h"
#include "kern/kinematics.h"
#include "kern/actuation.h"
#include "kern/collide.h"
#include "kern/passive.h"
#include "kern/phase.h"
#include "kern/post.h"
#include "kern/smooth.h"
#include "kern/trnbody.h"
#include "kern/solver.h"
#include "kern/tendon.h"
#include "kern/tendonbias.h"
#include "kern/transmission.h"

// accessor of element i of a C array p in the generic kernel bodies (PXK_SOLVELD_BODY, ...)
#define PXK_PTR(p, i) p[i]

void px_kinematics(const pxModel* m, pxData* d) {
  pxk_kinematics(m, d);
}

//---------------------------------- constants -----------------------------------------------------

// dof_M0: the diagonal of M at the kinematics in d (qpos0 when compiling), as mj_setConst does
void px_setM0(pxModel* mw, pxData* d) {
  const pxModel* m = mw;
  double inert[10], cd[6], buf[6];
  pxk_crbBodies(m, d);
  for (int i = 0; i < m->nv; i++) {
    for (int k = 0; k < 10; k++) inert[k] = d->crb[10 * m->dof_bodyid[i] + k];
    for (int k = 0; k < 6; k++) cd[k] = d->cdof[6 * i + k];
    pxk_smMulInertVec(buf, inert, cd);
    double arm = m->dof_armature[i] + pxk_actuatorArmature(m, d, 0, m->dof_jntid[i]);
    double dot = pxk_smDot6(cd, buf);
    mw->dof_M0[i] = arm + dot;
  }
}

//---------------------------------- forward -------------------------------------------------------

#define DSBL(flag) ((m->opt.disableflags & (flag)) != 0)

static int anyNonzero(const double* v, int n) {
  for (int i = 0; i < n; i++) {
    if (v[i] != 0) return 1;
  }
  return 0;
}

// no constraint row can arise (nefc = 0 in MuJoCo whatever the state)
static int constraintNone(const pxModel* m) {
  if (DSBL(PX_DSBL_CONSTRAINT)) return 1;
  if (m->neq > 0 && !DSBL(PX_DSBL_EQUALITY)) return 0;
  if (!DSBL(PX_DSBL_FRICTIONLOSS) && anyNonzero(m->dof_frictionloss, m->nv)) return 0;
  if (!DSBL(PX_DSBL_FRICTIONLOSS) && anyNonzero(m->tendon_frictionloss, m->ntendon)) return 0;
  if (!DSBL(PX_DSBL_LIMIT)) {
    for (int j = 0; j < m->njnt; j++) {
      if (m->jnt_limited[j]) return 0;
    }
    for (int t = 0; t < m->ntendon; t++) {
      if (m->tendon_limited[t]) return 0;
    }
  }
  if (!DSBL(PX_DSBL_CONTACT)) {
    if (m->npair > 0) return 0;
    int ncollide = 0;
    for (int g = 0; g < m->ngeom; g++) ncollide += (m->geom_contype[g] || m->geom_conaffinity[g]);
    if (ncollide > 1) return 0;
  }
  return 1;
}

int px_constraintFree(const pxModel* m) {
  return constraintNone(m);
}

// contacts can arise: the contact stage is on and some geom pair may collide
static int contactPossible(const pxModel* m) {
  if (DSBL(PX_DSBL_CONSTRAINT) || DSBL(PX_DSBL_CONTACT)) return 0;
  if (m->npair > 0) return 1;
  int ncollide = 0;
  for (int g = 0; g < m->ngeom; g++) ncollide += (m->geom_contype[g] || m->geom_conaffinity[g]);
  return ncollide > 1;
}

// the checks px_forward and the GPU share: everything but the constraint stage
static pxtStatus smoothCheck(const pxModel* m, pxStatus* st) {
  if (m->opt.enableflags & PX_ENBL_SLEEP) {
    return PX_FAIL(st, PX_ERR_UNSUPPORTED, "forward: sleep (enableflags sleep) is not supported");
  }
  // tendon armature on a spatial tendon that wraps around a geom: MuJoCo's mj_tendonDot cannot
  // differentiate the wrap (it raises an error), so neither engine computes the bias force
  for (int i = 0; i < m->ntendon; i++) {
    if (m->tendon_armature[i] == 0 && pxk_actuatorArmature(m, NULL, 1, i) == 0) continue;
    for (int j = m->tendon_adr[i]; j < m->tendon_adr[i] + m->tendon_num[i]; j++) {
      if (m->wrap_type[j] == PX_WRAP_SPHERE || m->wrap_type[j] == PX_WRAP_CYLINDER) {
        return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                       "forward: tendon %d has armature and wraps around a geom; the bias force "
                       "of tendon armature with geom wrapping is not supported (MuJoCo 3.12 "
                       "raises 'geom wrapping not supported')",
                       i);
      }
    }
  }
  // body transmissions with contacts: forwardRun computes them after the constraint rows
  pxtStatus code = px_transmissionForwardSupported(m, st);
  if (code != PX_OK) return code;
  return px_actuationCheck(m, st);
}

// the constraint stage of the CPU (kern/constraint.h, kern/solver.h): what it refuses by name
static pxtStatus constraintCheck(const pxModel* m, pxStatus* st) {
  if (constraintNone(m)) return PX_OK;
  if (m->opt.solver != PX_SOL_NEWTON && m->opt.solver != PX_SOL_CG && m->opt.solver != PX_SOL_PGS) {
    return PX_FAIL(st, PX_ERR_ARG, "forward: invalid constraint solver %d", m->opt.solver);
  }
  if (m->opt.jacobian != PX_JAC_DENSE && m->opt.jacobian != PX_JAC_SPARSE &&
      m->opt.jacobian != PX_JAC_AUTO) {
    return PX_FAIL(st, PX_ERR_ARG, "forward: invalid jacobian option %d", m->opt.jacobian);
  }
  if (!DSBL(PX_DSBL_EQUALITY)) {
    for (int i = 0; i < m->neq; i++) {
      int t = m->eq_type[i];
      if (t != PX_EQ_CONNECT && t != PX_EQ_WELD && t != PX_EQ_JOINT && t != PX_EQ_TENDON) {
        return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                       "forward: equality %d: flex equality constraints are not supported yet", i);
      }
    }
  }
  if (contactPossible(m)) {
    pxtStatus code = px_collisionCheck(m, st);
    if (code != PX_OK) return code;
  }
  return PX_OK;
}

pxtStatus px_forwardCheck(const pxModel* m, pxStatus* st) {
  pxtStatus code = smoothCheck(m, st);
  if (code != PX_OK) return code;
  // the history buffers run on the GPU too (csrc/kern/history.h); with sensors disabled the
  // history update still computes the sensors with a buffer, which px_sensorCheckGPU checks
  code = px_sensorCheckGPU(m, st);
  if (code != PX_OK) return code;
  // the constraint stage runs on the GPU too (shaders/constraint.comp, solprimal.comp,
  // soldual.comp), with the CPU's refusals; the GPU executor refuses more by name (the contact
  // families its forward pass does not collide yet)
  return constraintCheck(m, st);
}

pxtStatus px_dynamicsCheckCPU(const pxModel* m, pxStatus* st) {
  pxtStatus code = smoothCheck(m, st);
  if (code != PX_OK) return code;
  return constraintCheck(m, st);
}

pxtStatus px_forwardCheckCPU(const pxModel* m, pxStatus* st) {
  pxtStatus code = px_dynamicsCheckCPU(m, st);
  if (code != PX_OK) return code;
  return px_sensorCheck(m, st);
}

static int dualNeeded(const pxModel* m) {
  return m->opt.solver == PX_SOL_PGS || m->opt.noslip_iterations > 0 ||
         (m->opt.enableflags & PX_ENBL_DIAGEXACT) != 0;
}

int px_efcDual(const pxModel* m) {
  if (!dualNeeded(m)) return 0;
  int n = px_efcCapacity(m);
  return n < PX_NEFCDUAL_CAP ? n : PX_NEFCDUAL_CAP;
}

int px_efcSparse(const pxModel* m) {
  int j = m->opt.jacobian;
  return m->nv > 0 && (j == PX_JAC_SPARSE || (j == PX_JAC_AUTO && m->nv >= 60)) ? 1 : 0;
}

int px_efcCapacity(const pxModel* m) {
  if (m->njmax >= 0) return m->njmax;
  // as px_contactCapacity: storage made while the constraint stage is disabled holds no row
  if (DSBL(PX_DSBL_CONSTRAINT)) return 0;
  long n = 0;
  for (int i = 0; i < m->neq; i++) {
    int t = m->eq_type[i];
    n += t == PX_EQ_CONNECT ? 3 : t == PX_EQ_WELD ? 6 : 1;
  }
  for (int i = 0; i < m->nv; i++) n += m->dof_frictionloss[i] != 0;
  for (int i = 0; i < m->ntendon; i++) {
    n += m->tendon_frictionloss[i] > 0;
    n += 2 * (m->tendon_limited[i] != 0);
  }
  for (int j = 0; j < m->njnt; j++) {
    if (!m->jnt_limited[j]) continue;
    n += m->jnt_type[j] == PX_JNT_BALL ? 1 : m->jnt_type[j] == PX_JNT_FREE ? 0 : 2;
  }
  int dim = 1;
  for (int g = 0; g < m->ngeom; g++) dim = m->geom_condim[g] > dim ? m->geom_condim[g] : dim;
  for (int p = 0; p < m->npair; p++) dim = m->pair_dim[p] > dim ? m->pair_dim[p] : dim;
  int rows = dim == 1 ? 1 : (m->opt.cone == PX_CONE_ELLIPTIC ? dim : 2 * (dim - 1));
  n += (long)px_contactCapacity(m) * rows;
  return n < PX_NEFCMAX_CAP ? (int)n : PX_NEFCMAX_CAP;
}

static pxtStatus forwardRun(const pxModel* m, pxData* d, pxStatus* st);

pxtStatus px_forward(const pxModel* m, pxData* d, pxStatus* st) {
  return px_forwardSkip(m, d, 0, st);
}

// mj_forwardSkip: the sensors (mj_sensorPos, mj_sensorVel, mj_sensorAcc) read only what the
// stages leave and change nothing they read but energy (px_sensors keeps MuJoCo's energy
// bookkeeping), so they all run after the constraint stage, whose rows the limit sensors of the
// position and velocity stages read
pxtStatus px_forwardSkip(const pxModel* m, pxData* d, int skipsensor, pxStatus* st) {
  pxtStatus code = px_forwardCheckCPU(m, st);
  if (code != PX_OK) return code;
  return px_forwardSkipChecked(m, d, skipsensor, st);
}

pxtStatus px_forwardSkipChecked(const pxModel* m, pxData* d, int skipsensor, pxStatus* st) {
  double ke_in = d->energy[1];
  pxtStatus code = forwardRun(m, d, st);
  if (code != PX_OK) return code;
  // MuJoCo's lazy-evaluation flags as this pass leaves them (read by the sensor history update):
  // the energies are computed with the energy flag; the subtree velocities are cleared by the
  // velocity stage; mj_rnePostConstraint's flag is cleared only by a pass with sensors
  int keep = skipsensor ? (d->lazy & PX_LAZY_RNEPOST) : 0;
  d->lazy =
      keep | ((m->opt.enableflags & PX_ENBL_ENERGY) ? PX_LAZY_ENERGYPOS | PX_LAZY_ENERGYVEL : 0);
  if (!skipsensor) px_sensors(m, d, ke_in);
  return PX_OK;
}

// 1 when some actuator has a body transmission (adhesion)
static int trnBodyAny(const pxModel* m) {
  for (int i = 0; i < m->nu; i++) {
    if (m->actuator_trntype[i] == PX_TRN_BODY) return 1;
  }
  return 0;
}

static pxtStatus forwardRun(const pxModel* m, pxData* d, pxStatus* st) {
  // the stage sequence the GPU forward runs too (kern/phase.h): position, energy, velocity,
  // actuation, acceleration with no constraint rows (qacc = qacc_smooth)
  pxk_phForward(m, d);
  // the constraint stage (CPU only): collision and rows need the position stages, the reference
  // acceleration the velocity stages, the solver qacc_smooth; of the smooth outputs only the
  // passive forces of adhesive contacts depend on them (handled below), so they run after the
  // smooth sequence (MuJoCo interleaves them)
  if (constraintNone(m)) {
    if (d->efc_n) memset(d->efc_n, 0, PX_EFC_NCOUNT * sizeof(int));
    if (d->ncon) *d->ncon = 0;
    return PX_OK;
  }
  if (dualNeeded(m) && d->efcdual < (d->nefcmax < PX_NEFCDUAL_CAP ? d->nefcmax : PX_NEFCDUAL_CAP)) {
    return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                   "forward: this Data was made while the model used neither the PGS solver, "
                   "noslip nor diagexact, so it has no room for their matrices; make a new Data");
  }
  if (px_efcSparse(m) && !d->efcsparse) {
    return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                   "forward: this Data was made while the model used the dense constraint "
                   "Jacobian, so it has no room for the sparse one (jacobian sparse, or auto with "
                   "nv >= 60); make a new Data");
  }
  pxk_collision(m, d);
  // adhesive contacts add passive forces (mj_passive runs after the collision in MuJoCo), so the
  // smooth acceleration is computed again with them
  if (pxk_cnAdhesion(m, d)) pxk_fwdAcceleration(m, d);
  pxk_makeConstraint(m, d);
  // body transmissions (adhesion actuators) read the contacts and rows (MuJoCo's mj_transmission
  // runs after mj_makeConstraint): their moments, then what reads the moments again
  if (trnBodyAny(m) && *d->ncon > 0) {
    pxk_transmissionContacts(m, d);
    pxk_tendonVelocity(m, d);
    pxk_actuation(m, d);
    pxk_fwdAcceleration(m, d);
  }
  pxk_island(m, d);
  pxk_projectConstraint(m, d);
  pxk_referenceConstraint(m, d);
  pxk_fwdConstraint(m, d);
  return PX_OK;
}

// one stage alone (tests); 0 for an unknown name
int px_stage(const pxModel* m, pxData* d, const char* name) {
  if (!strcmp(name, "kinematics")) {
    pxk_kinematics(m, d);
  } else if (!strcmp(name, "crb")) {
    pxk_crb(m, d);
  } else if (!strcmp(name, "makeM")) {
    pxk_makeM(m, d);
  } else if (!strcmp(name, "factorM")) {
    pxk_factorM(m, d);
  } else if (!strcmp(name, "comVel")) {
    pxk_comVel(m, d);
  } else if (!strcmp(name, "rne")) {
    pxk_rneBias(m, d);
  } else if (!strcmp(name, "tendonBias")) {
    pxk_tendonBias(m, d);
  } else if (!strcmp(name, "subtreeVel")) {
    pxk_subtreeVel(m, d);
  } else if (!strcmp(name, "acceleration")) {
    pxk_fwdAcceleration(m, d);
  } else {
    return 0;
  }
  return 1;
}

//---------------------------------- utilities -----------------------------------------------------

void px_fullM(const pxModel* m, double* dst, const double* M) {
  int nv = m->nv;
  memset(dst, 0, sizeof(double) * (size_t)nv * (size_t)nv);
  for (int i = 0; i < nv; i++) {
    int adr = m->M_rowadr[i];
    for (int j = 0; j < m->M_rownnz[i]; j++) {
      int c = m->M_colind[adr + j];
      if (c <= i) {
        dst[i * nv + c] = M[adr + j];
        dst[c * nv + i] = M[adr + j];
      }
    }
  }
}

void px_mulM(const pxModel* m, const pxData* dc, double* res, const double* vec) {
  pxData* d = (pxData*)dc;  // read only: the accessor macros need a mutable pointer type
  PXK_MULM_BODY(PXK_PTR, res, 0, PXK_PTR, vec, 0)
}

void px_solveM(const pxModel* m, const pxData* dc, double* x, const double* y, int n) {
  pxData* d = (pxData*)dc;
  if (x != y) memmove(x, y, sizeof(double) * (size_t)n * (size_t)m->nv);
  for (int v = 0; v < n; v++) {
    double* xv = x + (size_t)v * (size_t)m->nv;
    PXK_SOLVELD_BODY(PXK_PTR, xv, 0)
  }
}

void px_jac(const pxModel* m, const pxData* dc, double* jacp, double* jacr, const double point[3],
            int body) {
  pxData* d = (pxData*)dc;
  int nv = m->nv;
  double offset[3], jp[3], jr[3], pt[3] = {point[0], point[1], point[2]};
  if (jacp) memset(jacp, 0, sizeof(double) * 3 * (size_t)nv);
  if (jacr) memset(jacr, 0, sizeof(double) * 3 * (size_t)nv);
  pxk_jacOffset(m, d, offset, pt, body);
  for (int i = pxk_jacLastDof(m, d, body); i >= 0; i = m->dof_parentid[i]) {
    pxk_jacColumn(m, d, jp, jr, offset, i);
    for (int r = 0; r < 3; r++) {
      if (jacp) jacp[r * nv + i] = jp[r];
      if (jacr) jacr[r * nv + i] = jr[r];
    }
  }
}

void px_objectVelocity(const pxModel* m, const pxData* dc, int objtype, int objid, double res[6],
                       int flg_local) {
  pxk_objectVelocity(m, (pxData*)dc, res, objtype, objid, flg_local);
}

void px_applyFT(const pxModel* m, const pxData* dc, const double* force, const double* torque,
                const double point[3], int body, double* qfrc) {
  pxData* d = (pxData*)dc;
  double f[3] = {0, 0, 0}, t[3] = {0, 0, 0}, p[3] = {point[0], point[1], point[2]};
  if (force) memcpy(f, force, sizeof f);
  if (torque) memcpy(t, torque, sizeof t);
  PXK_APPLYFT_BODY(PXK_PTR, qfrc, 0, f, t, p, body, force != NULL, torque != NULL)
}

void px_subtreeVel(const pxModel* m, pxData* d) {
  pxk_subtreeVel(m, d);
}
