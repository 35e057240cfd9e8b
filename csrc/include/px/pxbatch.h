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
// (px_step returned an error status; the message of the lowest such world is kept).
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
} pxtBatchFlag;
#define PX_NBFLAG 6

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
} pxBatch;

// A batch of nworld worlds over m (reset to qpos0, generators seeded from seed), or NULL with st
// set: PX_ERR_ARG for bad counts, PX_ERR_UNSUPPORTED when px_step cannot run m.
pxBatch* pxb_make(pxModel* m, int nworld, int nthread, uint64_t seed, pxStatus* st);

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

#endif  // PX_INCLUDE_PX_PXBATCH_H_
