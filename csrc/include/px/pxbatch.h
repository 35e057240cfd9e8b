// SPDX-License-Identifier: Apache-2.0
// pxBatch: N worlds over one shared, frozen pxModel, stepped on a thread pool owned by the batch.
//
// Storage is the world-major pxWorlds of io.c: every per-world array is one (nworld x size)
// block, so world w of field f is row w of that block, and the Python layer exposes each block
// as a (nworld, ...) NumPy view without copying. Next to it the batch keeps, per world, a
// random generator (xoshiro256**, 4 x uint64), a flag word (pxtBatchFlag bits, 0 = healthy) and
// nothing else: the step runs px_step on a stack-built view of each world and allocates nothing.
//
// Threads. nthread workers are created with the batch and joined by pxb_free; 0 means every task
// runs on the caller's thread. A task over n worlds is cut into max(nthread, 1) contiguous chunks
// by a fixed rule ([n t / T, n (t+1) / T)), each world is computed by exactly one thread with no
// shared reduction, so results are bitwise identical for any nthread and equal to stepping each
// world alone. A pxBatch is not itself thread-safe: one call at a time (the Python layer refuses
// concurrent calls).
//
// Error isolation. A world whose step fails or turns bad is flagged with the reason and left
// alone by later steps until it is reset; its neighbours are untouched and pxb_step never fails
// because of a world. Reasons: MuJoCo's warnings BADQPOS, BADQVEL, BADQACC (px_step found a bad
// value and, unless autoreset is disabled, reset the world), BADCTRL (a control was NaN or beyond
// 1e10 and was read as 0), UNSTABLE (qpos, qvel or act NaN or beyond 1e10 after a step), ERROR
// (px_step returned an error status; the message of the lowest such world is kept), CONTACTFULL
// and CNSTRFULL (MuJoCo's warnings: the world's contacts or constraint rows exceeded the
// capacity, nconmax / njmax, and were dropped).
//
// Automatic reset. With autoreset on (pxb_setAutoreset), pxb_step ends by resetting every world
// it flagged in that call, exactly as pxb_reset(mask of those worlds) with the batch's reset
// noise, except that the flag bits stay set until the next pxb_step or pxb_reset so that the
// caller can read why; a world whose bits are set only because of that is stepped again by the
// next pxb_step (which clears them first).
//
// Per-world model parameters. For the fields of PXB_PARAMS the batch may hold a (nworld x size)
// override block; world w then steps on a stack-built shallow copy of the shared model whose
// pointers for those fields (and for the derived constants below) point at row w, every other
// array still pointing into the shared model. Setting a field of the inertial group (masses,
// inertias, armature, actuator gains) recomputes, for the worlds concerned, the constants
// px_setConst derives from them (px_setConstInertia): body_subtreemass, dof_M0,
// body/dof/tendon_invweight0, actuator_acc0, the dampratio -> kv conversion of actuator_biasprm,
// stat.meaninertia, cam_poscom0, light_poscom0. Every other derived constant stays at the shared
// model's value.
#ifndef PX_INCLUDE_PX_PXBATCH_H_
#define PX_INCLUDE_PX_PXBATCH_H_

#include <stdint.h>

#include "px/pxdata.h"
#include "px/pxmodel.h"
#include "px/pxstatus.h"

// reasons a world is flagged (bits of pxBatch.flags)
typedef enum {
  PX_BFLAG_BADQPOS = 1 << 0,
  PX_BFLAG_BADQVEL = 1 << 1,
  PX_BFLAG_BADQACC = 1 << 2,
  PX_BFLAG_BADCTRL = 1 << 3,
  PX_BFLAG_UNSTABLE = 1 << 4,
  PX_BFLAG_ERROR = 1 << 5,
  PX_BFLAG_CONTACTFULL = 1 << 6,
  PX_BFLAG_CNSTRFULL = 1 << 7,
} pxtBatchFlag;
#define PX_NBFLAG 8

// largest number of worlds and of threads a batch accepts
#define PX_MAXWORLD (1 << 24)
#define PX_MAXTHREAD 256

//---------------------------------- thread pool ---------------------------------------------------

typedef struct pxPool_ pxPool;

// a task over the worlds [begin, end), run as chunk `chunk` of a pool run
typedef void (*pxfTask)(void* ctx, int begin, int end, int chunk);

// A pool of nthread workers (0: tasks run on the caller's thread), or NULL with st set.
pxPool* pxb_poolMake(int nthread, pxStatus* st);

// Run fn over [0, n) cut into max(nthread, 1) contiguous chunks; returns when all are done.
void pxb_poolRun(pxPool* pool, pxfTask fn, void* ctx, int n);

// Stop and join the workers, free the pool (NULL is fine).
void pxb_poolFree(pxPool* pool);

//---------------------------------- random numbers ------------------------------------------------

// xoshiro256** state of one world, seeded by splitmix64 from seed + world (Gymnasium's vector
// seeding: env i gets seed + i)
void pxb_rngSeed(uint64_t s[4], uint64_t seed);
uint64_t pxb_rngNext(uint64_t s[4]);

// uniform in [-1, 1): 2 u - 1 with u = (next >> 11) * 2^-53
double pxb_rngSymmetric(uint64_t s[4]);

//---------------------------------- batch ---------------------------------------------------------

typedef struct pxbParams_ pxbParams;

typedef struct {
  pxModel* model;     // shared; frozen (model->frozen counts the batches) while the batch lives
  pxWorlds* worlds;   // world-major state of nworld worlds
  int nworld;         // number of worlds
  int nthread;        // number of pool workers (0: the caller's thread)
  pxPool* pool;       // the workers
  uint64_t* rng;      // (nworld x 4) xoshiro256** states
  int* flags;         // (nworld) pxtBatchFlag bits; 0 = healthy
  pxStatus* chunkst;  // (max(nthread, 1)) first error per chunk of the last task
  int* chunkworld;    // (max(nthread, 1)) world of that error, -1 if none
  pxStatus status;    // the lowest world's error of the last step (code PX_OK if none)
  int errworld;       // that world, -1 if none
  pxbParams* params;  // per-world model parameters (NULL: every world uses model as is)
  int autoreset;      // reset the worlds pxb_step flags at its end (pxb_setAutoreset)
  int autokey;        // its keyframe (-1: none) and noise scales
  double autoqpos, autoqvel;
  uint8_t* autoflagged;  // (nworld) worlds the last pxb_step flagged and reset; NULL until used
} pxBatch;

// A batch of nworld worlds over m (reset to qpos0, generators seeded from seed), or NULL with st
// set: PX_ERR_ARG for bad counts, PX_ERR_UNSUPPORTED when px_step cannot run m.
pxBatch* pxb_make(pxModel* m, int nworld, int nthread, uint64_t seed, pxStatus* st);
// The same with per-world contact and constraint-row capacities: nconmax, njmax >= 0 replace the
// model's (<size nconmax/njmax> or the static bounds, px_contactCapacity / px_efcCapacity), -1
// keeps them. Contacts or rows beyond a capacity flag the world (contactfull, cnstrfull), as
// beyond the model's own.
pxBatch* pxb_makeCap(pxModel* m, int nworld, int nthread, uint64_t seed, int nconmax, int njmax,
                     pxStatus* st);

// For the batch's own passes (batch.c, task.c): run fn over the worlds on the pool and collect,
// into b->status / b->errworld, the error of the lowest failed world that a task recorded with
// pxb_chunkError (the first failed world of its chunk); nflagged[chunk] (cleared first) counts
// the worlds each chunk flagged, and their sum is returned.
int pxb_runCollect(pxBatch* b, pxfTask fn, void* ctx, int* nflagged);
void pxb_chunkError(pxBatch* b, int chunk, int w, const pxStatus* st);

// Join the pool, free the storage and unfreeze the model (NULL is fine).
void pxb_free(pxBatch* b);

// Step every healthy world whose mask entry is nonzero (mask NULL: all) nsubstep times with
// px_step. With ctrl_noise > 0 each stepped world first adds ctrl_noise * U[-1, 1) from its
// generator to each control (once per call, actuator order). A world that turns bad stops at that
// substep and is flagged. Returns the number of worlds flagged by this call.
int pxb_step(pxBatch* b, int nsubstep, const uint8_t* mask, double ctrl_noise);

// mj_resetData (key < 0) or mj_resetDataKeyframe (key) of every world whose mask entry is nonzero
// (NULL: all), clearing its flags; then, for each such world from its generator, qpos moved by a
// velocity of nv draws qpos_noise * U[-1, 1) over unit time (px_integratePos: plain addition for
// hinge and slide joints, valid quaternions for ball and free joints) when qpos_noise > 0, and
// qvel set to nv draws qvel_noise * U[-1, 1) when qvel_noise > 0.
void pxb_reset(pxBatch* b, const uint8_t* mask, int key, double qpos_noise, double qvel_noise);

// px_forward of every world whose mask entry is nonzero (NULL: all); a failure flags the world
// with PX_BFLAG_ERROR. Returns the number of worlds flagged by this call.
int pxb_forward(pxBatch* b, const uint8_t* mask);

// Reseed the generators of the worlds in mask (NULL: all): world w from seed + w.
void pxb_seed(pxBatch* b, const uint8_t* mask, uint64_t seed);

// Name of flag bit `bit` (0 <= bit < PX_NBFLAG), e.g. "badqacc"; NULL if out of range.
const char* pxb_flagName(int bit);

// Automatic reset (see above): on (on != 0) or off, with pxb_reset's key and noise arguments.
// Returns PX_ERR_ARG (st set) for a key out of range or bad noise, PX_ERR_NOMEM.
pxtStatus pxb_setAutoreset(pxBatch* b, int on, int key, double qpos_noise, double qvel_noise,
                           pxStatus* st);

//---------------------------------- per-world model parameters ------------------------------------

// X(field, size name, columns, group): the model arrays a batch can override per world; group 1:
// inertial (setting it recomputes the derived constants), 0: read directly by the step
#define PXB_PARAMS(X)            \
  X(body_mass, nbody, 1, 1)      \
  X(body_inertia, nbody, 3, 1)   \
  X(dof_armature, nv, 1, 1)      \
  X(actuator_gainprm, nu, 10, 1) \
  X(actuator_biasprm, nu, 10, 1) \
  X(dof_damping, nv, 1, 0)       \
  X(jnt_stiffness, njnt, 1, 0)   \
  X(geom_friction, ngeom, 3, 0)  \
  X(geom_solref, ngeom, 2, 0)    \
  X(geom_solimp, ngeom, 5, 0)    \
  X(actuator_forcerange, nu, 2, 0)

// X(field, size name, columns): the derived constants recomputed per world (read-only)
#define PXB_DERIVED(X)             \
  X(body_subtreemass, nbody, 1)    \
  X(dof_M0, nv, 1)                 \
  X(body_invweight0, nbody, 2)     \
  X(dof_invweight0, nv, 1)         \
  X(tendon_invweight0, ntendon, 1) \
  X(actuator_acc0, nout, 1)        \
  X(cam_poscom0, ncam, 3)          \
  X(light_poscom0, nlight, 3)

// Parameter ids: the PXB_PARAMS arrays, then opt.gravity and opt.timestep (settable), then the
// PXB_DERIVED arrays and stat.meaninertia (read-only).
int pxb_paramCount(void);
const char* pxb_paramName(int id);
int pxb_paramIndex(const char* name);  // -1 for an unknown name
int pxb_paramReadOnly(int id);         // 1 for the derived constants
int pxb_paramInertial(int id);         // 1 when setting it recomputes the derived constants

// Shape of parameter id per world: nrow x ncol numbers; returns the number of axes behind the
// world axis (0: a scalar such as opt.timestep, 1: ncol == 1, 2: a matrix).
int pxb_paramShape(const pxModel* m, int id, int* nrow, int* ncol);

// Set settable parameter id of the worlds in mask (NULL: all) from values, (nworld x size) of
// which row w is used for world w. Every value must be finite (masses, inertias and armature >=
// 0, the timestep > 0); otherwise nothing changes and PX_ERR_ARG is returned. Derived constants
// are not recomputed here: call pxb_setConst afterwards (inertial parameters).
pxtStatus pxb_setParam(pxBatch* b, int id, const double* values, const uint8_t* mask, pxStatus* st);

// The checks of pxb_setParam alone (nothing changes).
pxtStatus pxb_checkParam(const pxBatch* b, int id, const double* values, const uint8_t* mask,
                         pxStatus* st);

// px_setConstInertia for every world in mask (NULL: all), on the pool. PX_ERR_NOMEM possible.
pxtStatus pxb_setConst(pxBatch* b, const uint8_t* mask, pxStatus* st);

// Drop every override: all worlds use the shared model again.
void pxb_clearParams(pxBatch* b);

// Current values of parameter id (overridden or the shared model's), (nworld x size) into out.
void pxb_getParam(const pxBatch* b, int id, double* out);

// 1 if parameter id is overridden (for derived ones: recomputed per world).
int pxb_paramIsSet(const pxBatch* b, int id);

// The model world w steps on: b->model itself when nothing is overridden, else *scratch filled
// as a shallow copy pointing at world w's rows.
const pxModel* pxb_worldModel(const pxBatch* b, int w, pxModel* scratch);

#endif  // PX_INCLUDE_PX_PXBATCH_H_
