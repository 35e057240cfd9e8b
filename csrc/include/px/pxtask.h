// SPDX-License-Identifier: Apache-2.0
// Gymnasium MuJoCo v5 tasks on a pxBatch (csrc/batch/task.c over csrc/tasks/tasks.h).
//
// A task step runs, on the batch's pool: the position each world's displacement reward needs
// (read before the step), pxb_step's frame_skip physics steps, then per world
// px_rnePostConstraint (Gymnasium calls mj_rnePostConstraint after mj_step), the observation and
// the reward, termination and infos. The caller owns the buffers: pre (nworld x 2), obs
// (nworld x obs_dim), out (nworld x PXT_NOUT); nothing is allocated.
//
// A task reset applies mj_resetData, then the task's reset noise drawn from each world's own
// generator (uniform and normal draws; Reacher's goal and Pusher's cylinder by rejection, as
// Gymnasium does), px_forward and the observation.
#ifndef PX_INCLUDE_PX_PXTASK_H_
#define PX_INCLUDE_PX_PXTASK_H_

#include <stdint.h>

#include "px/pxbatch.h"

#define PXT_SPEC_NPRM 32  // = PXT_NPRM of csrc/tasks/tasks.h
#define PXT_SPEC_NOUT 16  // = PXT_NOUT

typedef struct {
  int task;                   // PXT_ANT ... PXT_INVERTEDDOUBLEPENDULUM
  int obs_dim;                // length of one world's observation
  double noise;               // reset_noise_scale (ignored by Reacher and Pusher)
  double prm[PXT_SPEC_NPRM];  // PXT_P_* slots
} pxTaskSpec;

// Check a spec against the batch's model (task id, obs_dim, body indices); PX_OK or PX_ERR_ARG.
pxtStatus pxb_taskCheck(const pxBatch* b, const pxTaskSpec* t, pxStatus* st);

// Step the healthy worlds in mask (NULL: all) frame_skip times and evaluate the task on them.
// Returns the number of worlds pxb_step flagged.
int pxb_taskStep(pxBatch* b, const pxTaskSpec* t, int frame_skip, const uint8_t* mask, double* pre,
                 double* obs, double* out);

// Reset the worlds in mask (NULL: all) with the task's noise, forward them, observe them.
// Returns the number of worlds px_forward flagged.
int pxb_taskReset(pxBatch* b, const pxTaskSpec* t, const uint8_t* mask, double* obs);

// The observation of the worlds in mask (NULL: all) from their current Data.
void pxb_taskObserve(pxBatch* b, const pxTaskSpec* t, const uint8_t* mask, double* obs);

// A standard normal draw (Box-Muller on two uniform draws) and a uniform one in [lo, hi).
double pxb_rngNormal(uint64_t s[4]);
double pxb_rngUniform(uint64_t s[4], double lo, double hi);

#endif  // PX_INCLUDE_PX_PXTASK_H_
