// SPDX-License-Identifier: Apache-2.0
// pxData: a view of one world's state inside world-major batch storage.
//
// Every per-world array of PX_DATA_FIELDS lives in one contiguous (nworld, nrow*ncol) block
// of the batch (pxWorlds). A pxData holds, for one world w, pointers to row w of each block,
// so kernels index d->xpos[3*i+k] as if the world were alone. A single Data is a batch of one.
#ifndef PX_INCLUDE_PX_PXDATA_H_
#define PX_INCLUDE_PX_PXDATA_H_

#include <stddef.h>

#include "px/pxmodel.h"
#include "px/pxstatus.h"

// A contact, with the exact layout of MuJoCo 3.12's mjContact (phalanx.CONTACT_DTYPE in Python).
typedef struct {
  pxtNum dist;               // distance between nearest points; negative: penetration
  pxtNum pos[3];             // contact point, midway between the geoms
  pxtNum frame[9];           // contact frame; normal in [0-2], from geom[0] to geom[1]
  pxtNum includemargin;      // margin for force generation
  pxtNum friction[5];        // tangent1, 2, spin, roll1, 2
  pxtNum solref[2];          // solver reference, normal direction
  pxtNum solreffriction[2];  // solver reference, friction directions
  pxtNum solimp[5];          // solver impedance
  pxtNum adhesion;           // adhesive force along the normal
  pxtNum mu;                 // friction of the regularized cone (set by the constraint stage)
  pxtNum H[36];              // cone Hessian (set by the constraint solver)
  int dim;                   // contact space dimension: 1, 3, 4 or 6
  int geom1, geom2;          // geom ids (deprecated in MuJoCo, kept equal to geom[])
  int geom[2];               // geom ids
  int flex[2];               // flex ids, -1 for geoms
  int elem[2];               // flex element ids, -1 for geoms
  int vert[2];               // flex vertex ids, -1 for geoms
  int exclude;               // 0: include, 1: in gap
  int efc_address;           // first constraint row, -1: none
} pxContact;

// contacts one narrow-phase routine may return (mjMAXCONPAIR)
#define PX_MAXCONPAIR 50

// Constraint rows (csrc/kern/constraint.h) and the Newton solver's scratch (csrc/kern/solver.h)
// of one world: X(type, name, n) with n the elements per world in terms of PXE_ROWS (the row
// capacity nefcmax, px_efcCapacity), PXE_NV (nv), PXE_NC (nC), PXE_NTREE (ntree) and PXE_DUAL
// (the rows of the dual matrices, px_efcDual). Kept out of
// PX_DATA_FIELDS: the GPU layout declares them only for the constraint entry points
// (PX_LAYOUT_EFC, scripts/gen_layout.py), so the other modules do not change. The names
// of MuJoCo's mjData arrays are MuJoCo's; efc_sv_* and efc_cn_* are phalanx scratch.
#define PX_EFC_FIELDS(X)                                                    \
  X(int, efc_type, PXE_ROWS)                                                \
  X(int, efc_id, PXE_ROWS)                                                  \
  X(int, efc_state, PXE_ROWS)                                               \
  X(pxtNum, efc_J, PXE_ROWS* PXE_NV)                                        \
  X(pxtNum, efc_pos, PXE_ROWS)                                              \
  X(pxtNum, efc_margin, PXE_ROWS)                                           \
  X(pxtNum, efc_frictionloss, PXE_ROWS)                                     \
  X(pxtNum, efc_diagA, PXE_ROWS)                                            \
  X(pxtNum, efc_KBIP, 4 * PXE_ROWS)                                         \
  X(pxtNum, efc_D, PXE_ROWS)                                                \
  X(pxtNum, efc_R, PXE_ROWS)                                                \
  X(pxtNum, efc_vel, PXE_ROWS)                                              \
  X(pxtNum, efc_aref, PXE_ROWS)                                             \
  X(pxtNum, efc_b, PXE_ROWS)                                                \
  X(pxtNum, efc_force, PXE_ROWS)                                            \
  /* constraint islands (mj_island): trees, dofs and rows of each island */ \
  X(int, efc_is_tree, PXE_ROWS)                                             \
  X(int, efc_is_island, PXE_ROWS)                                           \
  X(int, efc_is_efc2iefc, PXE_ROWS)                                         \
  X(int, efc_is_iefc2efc, PXE_ROWS)                                         \
  X(int, efc_is_dof2idof, PXE_NV)                                           \
  X(int, efc_is_idof2dof, PXE_NV)                                           \
  X(int, efc_is_parent, PXE_NTREE)                                          \
  X(int, efc_is_treeisland, PXE_NTREE)                                      \
  X(int, efc_is_nv, PXE_NTREE + 1)                                          \
  X(int, efc_is_idofadr, PXE_NTREE)                                         \
  X(int, efc_is_nefc, PXE_NTREE + 1)                                        \
  X(int, efc_is_iefcadr, PXE_NTREE)                                         \
  X(int, efc_is_ne, PXE_NTREE)                                              \
  X(int, efc_is_nf, PXE_NTREE)

// The sparse layout of efc_J (MuJoCo's jacobian sparse, or auto with nv >= 60: mj_isSparse) of
// one world: row r holds efc_J_rownnz[r] values at efc_J[efc_J_rowadr[r]...], their columns in
// efc_J_colind (ascending), rows packed in order; efc_J_rowsuper[r]: how many rows after r share
// its columns. PXE_SPJ is 1 in storage made for such a model (px_efcSparse), else 0 (no room).
// efc_is_env: scratch of a large island's solve, the first column of each row of H = M + J'DJ
// (the envelope its Cholesky factor keeps; solver.h, pxk_cSvEnvelope), then the lists its column
// sweeps keep (5 nv in all: pxk_cEnvNext), efc_is_rowlo/hi the first
// and last local column of each of its rows.
// CPU only: the GPU layout (scripts/gen_layout.py) does not declare them and its executor refuses
// the sparse Jacobian by name.
#define PX_EFC_SPARSE(X)                          \
  X(int, efc_J_rownnz, PXE_SPJ* PXE_ROWS)         \
  X(int, efc_J_rowadr, PXE_SPJ* PXE_ROWS)         \
  X(int, efc_J_rowsuper, PXE_SPJ* PXE_ROWS)       \
  X(int, efc_J_colind, PXE_SPJ* PXE_ROWS* PXE_NV) \
  X(int, efc_is_env, PXE_SPJ* PXE_NV * 5)         \
  X(int, efc_is_rowlo, PXE_SPJ* PXE_ROWS)         \
  X(int, efc_is_rowhi, PXE_SPJ* PXE_ROWS)

// every per-world constraint array of the CPU's storage
#define PX_EFC_FIELDS_CPU(X) PX_EFC_FIELDS(X) PX_EFC_SPARSE(X)

// The solvers' and the contact Jacobian's scratch (efc_sv_*: the problem one solve sees;
// efc_pg_*: the dual solver's matrices; efc_cn_jac: Jacobians of contact points): written before
// it is read within every forward pass and never read after it, so world storage holds it per
// slot (px_makeWorldsSlots): one per world for a single Data, one per thread for a batch.
#define PX_EFC_SCRATCH(X)                                                                     \
  /* the problem one solve sees (all rows, or one island's), in local indices */              \
  X(int, efc_sv_type, PXE_ROWS)                                                               \
  X(int, efc_sv_id, PXE_ROWS)                                                                 \
  X(int, efc_sv_state, PXE_ROWS)                                                              \
  X(int, efc_sv_oldstate, PXE_ROWS)                                                           \
  X(pxtNum, efc_sv_J, PXE_ROWS* PXE_NV)                                                       \
  X(pxtNum, efc_sv_Dr, PXE_ROWS)                                                              \
  X(pxtNum, efc_sv_R, PXE_ROWS)                                                               \
  X(pxtNum, efc_sv_floss, PXE_ROWS)                                                           \
  X(pxtNum, efc_sv_aref, PXE_ROWS)                                                            \
  X(pxtNum, efc_sv_b, PXE_ROWS)                                                               \
  X(pxtNum, efc_sv_force, PXE_ROWS)                                                           \
  X(pxtNum, efc_sv_Jaref, PXE_ROWS)                                                           \
  X(pxtNum, efc_sv_Jv, PXE_ROWS)                                                              \
  X(pxtNum, efc_sv_quad, 3 * PXE_ROWS)                                                        \
  X(pxtNum, efc_sv_D, PXE_ROWS)                                                               \
  X(pxtNum, efc_sv_qacc, PXE_NV)                                                              \
  X(pxtNum, efc_sv_qacc_smooth, PXE_NV)                                                       \
  X(pxtNum, efc_sv_qfrc_smooth, PXE_NV)                                                       \
  X(pxtNum, efc_sv_qfrc_constraint, PXE_NV)                                                   \
  X(int, efc_sv_Mrownnz, PXE_NV)                                                              \
  X(int, efc_sv_Mrowadr, PXE_NV)                                                              \
  X(int, efc_sv_Mcolind, PXE_NC)                                                              \
  X(pxtNum, efc_sv_M, PXE_NC)                                                                 \
  X(pxtNum, efc_sv_LD, PXE_NC)                                                                \
  X(pxtNum, efc_sv_LDiagInv, PXE_NV)                                                          \
  X(pxtNum, efc_sv_Ma, PXE_NV)                                                                \
  X(pxtNum, efc_sv_Mv, PXE_NV)                                                                \
  X(pxtNum, efc_sv_grad, PXE_NV)                                                              \
  X(pxtNum, efc_sv_Mgrad, PXE_NV)                                                             \
  X(pxtNum, efc_sv_search, PXE_NV)                                                            \
  X(pxtNum, efc_sv_cholupd, PXE_NV)                                                           \
  X(pxtNum, efc_sv_L, PXE_NV* PXE_NV)                                                         \
  X(pxtNum, efc_sv_Lcone, PXE_NV* PXE_NV)                                                     \
  X(pxtNum, efc_sv_LTJ, 6 * PXE_NV)                                                           \
  X(pxtNum, efc_sv_gradold, PXE_NV)                                                           \
  X(pxtNum, efc_sv_Mgradold, PXE_NV)                                                          \
  X(pxtNum, efc_sv_graddif, PXE_NV)                                                           \
  X(pxtNum, efc_sv_Mgraddif, PXE_NV)                                                          \
  /* the dual solver (PGS) and the exact diagonal: Y = J M^-1/2 and AR = Y Y' + R (storage */ \
  /* only in a Data made for a model with PGS, noslip or diagexact: PXE_DUAL rows of them) */ \
  X(pxtNum, efc_pg_Y, PXE_DUAL* PXE_NV)                                                       \
  X(pxtNum, efc_pg_AR, PXE_DUAL* PXE_DUAL)                                                    \
  X(pxtNum, efc_pg_ARinv, PXE_ROWS)                                                           \
  X(pxtNum, efc_pg_prev, PXE_ROWS)                                                            \
  X(pxtNum, efc_pg_mom, PXE_ROWS)                                                             \
  X(int, efc_pg_block, PXE_ROWS)                                                              \
  X(pxtNum, efc_cn_jac, 24 * PXE_NV)                                                          \
  /* a solve's resume point between GPU dispatches (solver.h, "resumable solves") */          \
  X(int, efc_ck_i, 16)                                                                        \
  X(pxtNum, efc_ck_r, 4)

// entries of efc_n (per world): row counts of MuJoCo's mjData and solver statistics
#define PX_EFC_NEFC 0     // nefc: rows
#define PX_EFC_NE 1       // ne: equality rows
#define PX_EFC_NF 2       // nf: friction loss rows
#define PX_EFC_NL 3       // nl: limit rows
#define PX_EFC_NITER 4    // solver iterations (solver_niter[0])
#define PX_EFC_NEED 5     // rows the last constraint stage needed (CNSTRFULL when > nefcmax)
#define PX_EFC_NISLAND 6  // constraint islands of the last solve (0: none formed)
#define PX_EFC_NIDOF 7    // dofs in islands
#define PX_EFC_NTRUNC 8   // GPU only: the device ended a loop early (lavapipe's loop limiter)
#define PX_EFC_NCOUNT 9

typedef struct {
  pxtNum time;
#define X(type, name, nrow, ncol) type* name;
  PX_DATA_FIELDS(X)
#undef X
  pxContact* contact;  // contact records (nconmax + PX_MAXCONPAIR: the tail is narrow-phase room)
  int* ncon;           // number of contacts in `contact` (one int in the world storage)
  int nconmax;         // contact capacity of every world of this storage
  pxtNum* colscr_r;    // collision scratch, reals (px_colScratchReals)
  int* colscr_i;       // collision scratch, ints (px_colScratchInts)
  int nbpmax;          // body-pair capacity of the broad phase (px_bodyPairCapacity)
#define X(type, name, n) type* name;
  PX_EFC_FIELDS_CPU(X)
  PX_EFC_SCRATCH(X)
#undef X
  int* efc_n;       // PX_EFC_NCOUNT counts (nefc, ne, nf, nl, solver iterations, ...)
  int nefcmax;      // constraint row capacity of every world of this storage
  int efcdual;      // rows of the dual solver's Y and AR in this storage (efc_pg_Y, efc_pg_AR)
  int efcsparse;    // 1: this storage holds the sparse layout's arrays (PX_EFC_SPARSE)
  pxStatus status;  // sticky status of this world
  int lazy;         // PX_LAZY_* computed since the last forward pass (CPU sensor history)
} pxData;

// World-major storage of nworld worlds over one model.
typedef struct {
  const pxModel* model;
  int nworld;
  int nslot;  // scratch slots: nworld, or one per thread of a batch (px_makeWorldsSlots)
#define X(type, name, nrow, ncol) type* name; /* (nworld x nrow*ncol) */
  PX_DATA_FIELDS(X)
#undef X
  pxtNum* time;        // (nworld)
  pxContact* contact;  // (nworld, nconmax + PX_MAXCONPAIR)
  int* ncon;           // (nworld)
  int nconmax;         // contact capacity per world (px_contactCapacity)
  pxtNum* colscr_r;    // (nslot, px_colScratchReals): broad-phase scratch, not state
  int* colscr_i;       // (nslot, px_colScratchInts)
  int nbpmax;          // px_bodyPairCapacity
  long ncolscr_r;      // per-world sizes of colscr_r and colscr_i
  long ncolscr_i;
#define X(type, name, n) type* name; /* (nworld, n) */
  PX_EFC_FIELDS_CPU(X)
#undef X
#define X(type, name, n) type* name; /* (nslot, n) */
  PX_EFC_SCRATCH(X)
#undef X
  int* efc_n;     // (nworld, PX_EFC_NCOUNT)
  int nefcmax;    // constraint row capacity per world (px_efcCapacity)
  int efcdual;    // rows of efc_pg_Y and efc_pg_AR (px_efcDual at allocation)
  int efcsparse;  // px_efcSparse at allocation
  void* buffer;
  size_t nbuffer;
} pxWorlds;

// Allocate storage for nworld worlds (reset to qpos0), or NULL with st set: every world with its
// own scratch (collision scratch, PX_EFC_SCRATCH).
pxWorlds* px_makeWorlds(const pxModel* m, int nworld, pxStatus* st);

// The same with nslot >= 1 scratch slots shared by the worlds: a batch keeps one per thread, and
// a thread views each world it computes with its own slot (px_worldViewSlot).
pxWorlds* px_makeWorldsSlots(const pxModel* m, int nworld, int nslot, pxStatus* st);

// Free world storage (NULL is fine).
void px_freeWorlds(pxWorlds* w);

// Point d at world `world` of w, with the world's own scratch when w has a slot per world, else
// with none (NULL scratch pointers: a stage that needs it must be given a slot).
void px_worldView(const pxWorlds* w, int world, pxData* d);

// Point d at world `world` of w with scratch slot `slot` (its thread's).
void px_worldViewSlot(const pxWorlds* w, int world, int slot, pxData* d);

// Reset one world to the model's defaults (qpos0, zero velocities, mocap from body frames).
void px_resetWorld(const pxModel* m, pxWorlds* w, int world);

// Number of elements per world of data array `name`; -1 if unknown.
long px_dataFieldSize(const pxModel* m, const char* name);

// Forward kinematics of one world (CPU executor of csrc/kern/kinematics.h).
void px_kinematics(const pxModel* m, pxData* d);

// Contact capacity per world: <size nconmax> when given, else the sum of MuJoCo's per-pair maxima
// over the geom pairs that pass the static filters, at most PX_NCONMAX_CAP (overflow counts
// CONTACTFULL)
#define PX_NCONMAX_CAP 10000
int px_contactCapacity(const pxModel* m);
// body pairs the broad phase can return (those the static filters pass) and the sizes of the
// per-world collision scratch (csrc/kern/collide_broad.h) for that capacity
int px_bodyPairCapacity(const pxModel* m);
long px_colScratchReals(const pxModel* m);
long px_colScratchInts(const pxModel* m, int nbpmax);
// geom pairs the collision driver may visit in one world (the explicit pairs and every geom
// pair of the body pairs that pass the static filters): the GPU's per-world pair list
long px_colPairCapacity(const pxModel* m);
// test hooks of collide_broad.h: mju_eig3, C's (float) rounding, and mj_broadphase's body pairs
// (returns their number; the signatures are at d->colscr_i + 8 * nbody)
void px_eig3(double eigval[3], double eigvec[9], double quat[4], const double mat[9]);
double px_roundF32(double x);
int px_broadphase(const pxModel* m, pxData* d);
// the midphase's tree of body (as the compiler's bvh_aabb, bvh_child, bvh_nodeid; arrays of
// 6 * ngeomOfBody, 2 * ... and ... entries suffice); returns its number of nodes
int px_bvh(const pxModel* m, pxData* d, int body, double* aabb, int* child, int* nodeid);

// Constraint row capacity per world: <size njmax> when given, else the static bound (every
// equality's rows, a row per dof and tendon with friction loss, two per limited hinge, slide and
// tendon, one per limited ball joint, and px_contactCapacity contacts of the largest pyramid the
// model's condims make), at most PX_NEFCMAX_CAP; 0 when the constraint flag is disabled (as the
// contact capacity). Rows beyond it: MuJoCo's CNSTRFULL, no rows.
#define PX_NEFCMAX_CAP 20000
int px_efcCapacity(const pxModel* m);

// Rows of the dual solver's matrices Y = J M^-1/2 and AR = J M^-1 J' + R that world storage holds
// (nefcmax x nv and nefcmax^2) for a model with solver PGS, noslip or diagexact, else 0: the row
// capacity, at most PX_NEFCDUAL_CAP (such a model's rows beyond it: CNSTRFULL, as beyond nefcmax)
#define PX_NEFCDUAL_CAP 4096
int px_efcDual(const pxModel* m);
// 1 when the model's constraint Jacobian is sparse (MuJoCo's mj_isSparse: jacobian sparse, or auto
// with nv >= 60), so that world storage holds the arrays of PX_EFC_SPARSE
int px_efcSparse(const pxModel* m);
pxtStatus px_collisionCheck(const pxModel* m, pxStatus* st);
pxtStatus px_collision(const pxModel* m, pxData* d, pxStatus* st);
int px_narrowphase(const pxModel* m, pxData* d, int g1, int g2, double margin);
// Smallest distance between geoms geom1 and geom2 up to distmax (mj_geomDistance) into *dist;
// fromto (6, may be NULL) gets the closest points, on geom1 then on geom2 (zeros when none was
// found within distmax). PX_ERR_ARG for geom ids out of range, PX_ERR_UNSUPPORTED for a pair
// MuJoCo measures with code phalanx lacks (libccd when nativeccd is disabled).
pxtStatus px_geomDistance(const pxModel* m, pxData* d, int geom1, int geom2, double distmax,
                          double* fromto, double* dist, pxStatus* st);

// Tendon lengths, paths and Jacobians (ten_length, ten_J, ten_wrapadr/num, wrap_obj/xpos) of one
// world after kinematics (CPU executor of csrc/kern/tendon.h).
void px_tendon(const pxModel* m, pxData* d);

// PX_OK when px_transmission can compute every actuator of m exactly, else PX_ERR_UNSUPPORTED
// with st naming the first that it cannot (body transmissions where contacts can exist).
pxtStatus px_transmissionSupported(const pxModel* m, pxStatus* st);

// The same for px_forward, which computes body transmissions after its constraint rows
// (csrc/kern/trnbody.h).
pxtStatus px_transmissionForwardSupported(const pxModel* m, pxStatus* st);

// Actuator lengths and sparse moments of one world after px_tendon (csrc/kern/transmission.h);
// fails as px_transmissionSupported does, computing nothing.
pxtStatus px_transmission(const pxModel* m, pxData* d, pxStatus* st);

// ten_velocity and actuator_velocity (zero with actuation disabled) of one world: the sparse
// rows of ten_J and actuator_moment times qvel.
void px_tendonVelocity(const pxModel* m, pxData* d);
//---------------------------------- integration (csrc/engine/step.c) ------------------------------

// PX_OK, or an error naming the integrator feature of this model that phalanx does not support.
pxtStatus px_integratorCheck(const pxModel* m, pxStatus* st);

// mj_resetData on one world view (d->time is set to 0: copy it back into the pxWorlds).
void px_resetData(const pxModel* m, pxData* d);

// mj_resetDataKeyframe: reset, then the keyframe's state when 0 <= key < nkey.
pxtStatus px_resetDataKeyframe(const pxModel* m, pxData* d, int key);

// mj_integratePos, mj_normalizeQuat, mj_differentiatePos on plain arrays of nq / nv numbers.
void px_integratePos(const pxModel* m, pxtNum* qpos, const pxtNum* qvel, pxtNum dt);
void px_normalizeQuat(const pxModel* m, pxtNum* qpos);
void px_differentiatePos(const pxModel* m, pxtNum* qvel, pxtNum dt, const pxtNum* qpos1,
                         const pxtNum* qpos2);

// One integrator step from the forward results already in d (mj_Euler; mj_implicit for the
// implicit and implicitfast integrators), advancing d->time. Errors go to d->status.
pxtStatus px_euler(const pxModel* m, pxData* d);
pxtStatus px_implicit(const pxModel* m, pxData* d);

// mj_step, mj_step1, mj_step2 (px_forward, then the model's integrator; RK4 in px_step).
pxtStatus px_step(const pxModel* m, pxData* d);
pxtStatus px_step1(const pxModel* m, pxData* d);
pxtStatus px_step2(const pxModel* m, pxData* d);
// dof_M0 (the diagonal inertia of MuJoCo's simple dofs) from the kinematics in d (compiler).
void px_setM0(pxModel* m, pxData* d);

// Topology tables mj_setConst and the compiler share: the tree of wrap object w's body (-1 for
// pulleys and static bodies); tendon_treenum/treeid (mark: ntree chars of scratch);
// jnt_actuatorid and tendon_actuatorid (the actuator adding damping or armature; -2 several).
int px_wrapTree(const pxModel* m, int w);
void px_tendonTrees(pxModel* m, char* mark);
void px_actuatorIds(pxModel* m);

//---------------------------------- constants (csrc/engine/setconst.c) ----------------------------

// mj_setConst: every constant MuJoCo derives from the model by running the engine at qpos0
// (sameframe, subtree masses, trees, dof_M0, invweights, actuator_acc0, tendon/actuator_length0,
// eq_data, camera/light offsets, dampratio -> kv, statistics, dof_length) and at qpos_spring
// (tendon_lengthspring where -1). d is scratch (left at qpos_spring, as MuJoCo leaves it).
pxtStatus px_setConst(pxModel* m, pxData* d, pxStatus* st);

// The constants of px_setConst that depend on masses, inertias, armature and actuator gains,
// computed exactly as px_setConst computes them: body_subtreemass, dof_M0, body/dof/tendon
// invweight0, actuator_acc0, the dampratio -> kv conversion of actuator_biasprm,
// stat.meaninertia, cam_poscom0 and light_poscom0. It writes no other array of m (m may be a
// shallow copy sharing the rest); m's cam_mode and light_mode must all be fixed (a shallow copy
// points them at scratch; px_setConst fixes them the same way during its pass), else it does
// nothing. d is scratch, scratch holds 13 nv numbers. The caller has run
// px_transmissionSupported.
void px_setConstInertia(pxModel* m, pxData* d, double* scratch);

// eq_data of body connect and weld constraints from the body frames in d (part of px_setConst).
void px_equalityData(pxModel* m, const pxData* d);

// mjLROpt and its modes: options of the actuator length-range computation.
typedef enum {
  PX_LRMODE_NONE = 0,
  PX_LRMODE_MUSCLE,
  PX_LRMODE_MUSCLEUSER,
  PX_LRMODE_ALL
} pxtLRMode;
typedef struct {
  int mode, useexisting, uselimit;
  double accel, maxforce, timeconst, timestep, inttotal, interval, tolrange;
} pxLROpt;
void px_defaultLROpt(pxLROpt* opt);

// 1 when actuator i's lengthrange is to be computed under opt (mode, useexisting).
int px_lengthRangeNeeded(const pxModel* m, int i, const pxLROpt* opt);

// mj_setLengthRange: actuator_lengthrange of actuator i by simulation with the model's options
// (d is scratch). PX_ERR_MJCF with MuJoCo's message when it does not converge,
// PX_ERR_UNSUPPORTED when the simulation needs what px_forward lacks (constraints).
pxtStatus px_setLengthRange(pxModel* m, pxData* d, int i, const pxLROpt* opt, pxStatus* st);

// the compiler's LengthRange: every actuator, under the options MuJoCo's compiler sets
// (friction loss, contact, spring, damper, gravity, actuation disabled; opt->timestep).
pxtStatus px_lengthRangeAll(pxModel* m, pxData* d, const pxLROpt* opt, pxStatus* st);

// PX_OK when the GPU's forward (the smooth stages, no constraint stage) supports this model and
// its options, or the unsupported feature in st: models where constraint rows can arise are
// refused by name.
pxtStatus px_forwardCheck(const pxModel* m, pxStatus* st);

// PX_OK when px_forward (the CPU, with the constraint stage) supports this model and its
// options, or the unsupported feature in st (the sparse Jacobian, flex equalities, geom pairs
// without a collider and the sensor types not computed are refused by name).
pxtStatus px_forwardCheckCPU(const pxModel* m, pxStatus* st);
// ... without the sensors (px_sensorCheck): what the dynamics of px_forward needs
pxtStatus px_dynamicsCheckCPU(const pxModel* m, pxStatus* st);

// Forward dynamics of one world (mj_forward): position, velocity, actuation and acceleration
// stages, then collision, constraint rows (efc_*), constraint islands and the Newton solver (per
// island, or over all rows with the island flag disabled). Fails, computing nothing, on an
// unsupported model.
pxtStatus px_forward(const pxModel* m, pxData* d, pxStatus* st);

// One stage alone by name (kinematics, crb, makeM, factorM, comVel, rne, subtreeVel,
// acceleration); 0 for an unknown name.
int px_stage(const pxModel* m, pxData* d, const char* name);

// MuJoCo's utilities (the stages they read must have run; arrays are dense, row-major):
// dst (nv x nv) = M expanded from the sparse M (nC); res = M vec; x = inv(M) y for n vectors
// of nv (x may be y); Jacobians (3 x nv, NULL to skip) of a global point attached to body;
// 6D object velocity (mjtObj body, xbody, geom, site, camera); J' force + J' torque at point
// added into qfrc (nv, force/torque NULL to skip); subtree_linvel and subtree_angmom.
void px_fullM(const pxModel* m, double* dst, const double* M);
void px_mulM(const pxModel* m, const pxData* d, double* res, const double* vec);
void px_solveM(const pxModel* m, const pxData* d, double* x, const double* y, int n);
void px_jac(const pxModel* m, const pxData* d, double* jacp, double* jacr, const double point[3],
            int body);
void px_objectVelocity(const pxModel* m, const pxData* d, int objtype, int objid, double res[6],
                       int flg_local);
void px_applyFT(const pxModel* m, const pxData* d, const double* force, const double* torque,
                const double point[3], int body, double* qfrc);
void px_subtreeVel(const pxModel* m, pxData* d);

// Passive forces of one world (CPU executor of csrc/kern/passive.h, MuJoCo's mj_passive):
// qfrc_spring, qfrc_damper, qfrc_gravcomp, qfrc_fluid, qfrc_passive from the position and
// velocity stages' outputs (cdof, cvel, subtree_com, ten_J, ten_velocity, ...).
void px_passive(const pxModel* m, pxData* d);

// PX_OK when px_actuation implements every actuator of m; otherwise PX_ERR_UNSUPPORTED (or
// PX_ERR_ARG for invalid types) naming the actuator and the feature. Call once per model before
// px_actuation.
pxtStatus px_actuationCheck(const pxModel* m, pxStatus* st);

// Actuation of one world (CPU executor of csrc/kern/actuation.h, MuJoCo's mj_fwdActuation):
// act_dot, actuator_force, qfrc_actuator (and the BADCTRL row of warning) from ctrl, act, the
// transmission (actuator_length/velocity/moment) and qfrc_gravcomp of px_passive.
void px_actuation(const pxModel* m, pxData* d);

// Nonzero when no constraint row can arise for m whatever the state (MuJoCo's nefc is 0): the
// constraint stage is disabled, or the model has nothing it would act on.
int px_constraintFree(const pxModel* m);

// mj_rnePostConstraint (CPU executor of csrc/kern/post.h): cacc, cfrc_int and cfrc_ext from the
// forward results (cdof, cdof_dot, cinert, cvel, qvel, qacc, xfrc_applied) and the last constraint
// solve (contact and connect/weld forces). Refused, computing nothing, for a model px_forward
// refuses.
pxtStatus px_rnePostConstraintCheck(const pxModel* m, pxStatus* st);
pxtStatus px_rnePostConstraint(const pxModel* m, pxData* d, pxStatus* st);
// ... without the check (the model passed px_forwardCheckCPU)
void px_rnePostConstraintRun(const pxModel* m, pxData* d);

// Sensors (CPU executor of csrc/kern/sensor.h, MuJoCo's mj_sensorPos/Vel/Acc): px_sensorCheck
// refuses by name the sensor types not computed (plugin) and user sensors with history;
// px_sensors computes sensordata after a forward pass (px_forward calls it) with the lazily
// computed energy, subtree velocities and mj_rnePostConstraint; ke_in is energy[1] as
// it was when the forward pass started (an e_kinetic sensor with the energy flag reads it, as
// MuJoCo's does).
pxtStatus px_sensorCheck(const pxModel* m, pxStatus* st);
// ... and for the GPU executor (shaders/sensor_main.glsl): the same (every type has a GPU entry
// point; csrc/vulkan/kinematics_gpu.c refuses what the geom distance entry points lack on a
// device)
pxtStatus px_sensorCheckGPU(const pxModel* m, pxStatus* st);
// 1 if the GPU's sensor pass needs the constraint blocks (shaders/sensorfull.comp: the sensors
// that read constraint rows or contacts, camera rangefinders, mj_rnePostConstraint with
// constraint forces), 0 if shaders/sensor.comp computes the model's sensors (with sensors
// disabled: the sensors with a history buffer, which the history update computes)
int px_sensorFullGPU(const pxModel* m);
void px_sensors(const pxModel* m, pxData* d, double ke_in);

// Actuator and sensor history buffers (Data's history; MuJoCo 3.12's mju_historyInsert,
// mju_historyRead, mj_readCtrl and the history part of mj_resetData and mj_advance), in the
// kernel dialect (csrc/kern/history.h, sensor_history.h): the actuation and sensor stages read
// them themselves; these are the CPU executor's other entry points.
// the buffers as mj_resetData leaves them (times on the timestep grid before 0, values zero)
void px_resetHistory(const pxModel* m, pxData* d);
// mj_advance's history update (before the state advances): controls, then sensors (the sensors
// of a delay recomputed at the current state)
void px_advanceCtrlHistory(const pxModel* m, pxData* d);
void px_advanceSensorHistory(const pxModel* m, pxData* d);
// what the history buffers of this model need that phalanx lacks: an error naming it
pxtStatus px_historyCheck(const pxModel* m, pxStatus* st);
// px_sensors' record of the quantities it computed lazily (PX_LAZY_*), read by the sensor
// history update as MuJoCo's flg_subtreevel, flg_rnepost, flg_energypos, flg_energyvel
#define PX_LAZY_SUBTREEVEL 1
#define PX_LAZY_RNEPOST 2
#define PX_LAZY_ENERGYPOS 4
#define PX_LAZY_ENERGYVEL 8

// px_forward with skipsensor nonzero: no sensor (mj_forwardSkip, as RK4's inner passes run it)
pxtStatus px_forwardSkip(const pxModel* m, pxData* d, int skipsensor, pxStatus* st);
// the same without the model checks, for a caller whose step already passed them with this
// model (RK4's inner passes): the model cannot change within a step
pxtStatus px_forwardSkipChecked(const pxModel* m, pxData* d, int skipsensor, pxStatus* st);

// mj_rne: result (nv) = the inverse-dynamics bias (flg_acc = 0) or, with flg_acc, M qacc + bias;
// uses the scratch rne_cacc and rne_cfrc. Refused with the sleep enable flag.
pxtStatus px_rne(const pxModel* m, pxData* d, int flg_acc, double* result, pxStatus* st);

// mj_energyPos (gravity, joint and tendon springs; refused with the sleep enable flag) and
// mj_energyVel (0.5 qvel' M qvel) into d->energy[0] and [1], whatever the energy flag says
// (px_forward runs them with the flag, as mj_forward does).
pxtStatus px_energyPos(const pxModel* m, pxData* d, pxStatus* st);
pxtStatus px_energyVel(const pxModel* m, pxData* d, pxStatus* st);

// mj_objectAcceleration (reads cacc: run px_rnePostConstraint first), mj_jacDot,
// mj_jacPointAxis (either output may be NULL) and mj_jacSubtreeCom on dense 3 x nv arrays.
void px_objectAcceleration(const pxModel* m, const pxData* d, int objtype, int objid, double res[6],
                           int flg_local);
void px_jacDot(const pxModel* m, const pxData* d, double* jacp, double* jacr, const double point[3],
               int body);
void px_jacPointAxis(const pxModel* m, const pxData* d, double* jacPoint, double* jacAxis,
                     const double point[3], const double axis[3], int body);
void px_jacSubtreeCom(const pxModel* m, const pxData* d, double* jacp, int body);

#endif  // PX_INCLUDE_PX_PXDATA_H_
