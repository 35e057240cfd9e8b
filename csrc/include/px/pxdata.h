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

typedef struct {
  pxtNum time;
#define X(type, name, nrow, ncol) type* name;
  PX_DATA_FIELDS(X)
#undef X
  pxStatus status;  // sticky status of this world
} pxData;

// World-major storage of nworld worlds over one model.
typedef struct {
  const pxModel* model;
  int nworld;
#define X(type, name, nrow, ncol) type* name; /* (nworld x nrow*ncol) */
  PX_DATA_FIELDS(X)
#undef X
  pxtNum* time;  // (nworld)
  void* buffer;
  size_t nbuffer;
} pxWorlds;

// Allocate storage for nworld worlds (reset to qpos0), or NULL with st set.
pxWorlds* px_makeWorlds(const pxModel* m, int nworld, pxStatus* st);

// Free world storage (NULL is fine).
void px_freeWorlds(pxWorlds* w);

// Point d at world `world` of w.
void px_worldView(const pxWorlds* w, int world, pxData* d);

// Reset one world to the model's defaults (qpos0, zero velocities, mocap from body frames).
void px_resetWorld(const pxModel* m, pxWorlds* w, int world);

// Number of elements per world of data array `name`; -1 if unknown.
long px_dataFieldSize(const pxModel* m, const char* name);

// Forward kinematics of one world (CPU executor of csrc/kern/kinematics.h).
void px_kinematics(const pxModel* m, pxData* d);

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

#endif  // PX_INCLUDE_PX_PXDATA_H_
