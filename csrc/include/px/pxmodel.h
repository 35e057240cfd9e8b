// SPDX-License-Identifier: Apache-2.0
// pxModel: the compiled model, one allocation shared read-only by every world.
#ifndef PX_INCLUDE_PX_PXMODEL_H_
#define PX_INCLUDE_PX_PXMODEL_H_

#include <stddef.h>

#include "px/pxtype.h"
#include "px/pxxmacro.h"

// physics options (MuJoCo 3.12's mjOption, same names and defaults)
typedef struct {
  pxtNum timestep;
  pxtNum impratio;
  pxtNum tolerance;
  pxtNum ls_tolerance;
  pxtNum noslip_tolerance;
  pxtNum ccd_tolerance;
  pxtNum sleep_tolerance;
  pxtNum gravity[3];
  pxtNum wind[3];
  pxtNum magnetic[3];
  pxtNum density;
  pxtNum viscosity;
  pxtNum o_margin;
  pxtNum o_solref[2];
  pxtNum o_solimp[5];
  pxtNum o_friction[5];
  int integrator;
  int cone;
  int jacobian;
  int solver;
  int iterations;
  int ls_iterations;
  int noslip_iterations;
  int ccd_iterations;
  int disableflags;
  int enableflags;
  int disableactuator;
  int sdf_initpoints;
  int sdf_iterations;
} pxOption;

// model statistics (mjStatistic)
typedef struct {
  pxtNum meaninertia;
  pxtNum meanmass;
  pxtNum meansize;
  pxtNum extent;
  pxtNum center[3];
} pxStatistic;

typedef struct pxModel_ {
  // sizes
#define X(name) int name;
  PX_MODEL_SIZES(X)
#undef X
  size_t nbuffer;  // bytes in buffer
  int frozen;      // nonzero while shared by a batch or a GPU upload: writes are refused

  pxOption opt;
  pxStatistic stat;

  // arrays, all inside buffer
#define X(type, name, nrow, ncol) type* name;
  PX_MODEL_FIELDS(X)
#undef X

  void* buffer;  // 64-byte aligned block holding every array
} pxModel;

// Largest model buffer phalanx allocates (1 GiB).
#define PX_MAX_MODEL_BYTES ((size_t)1 << 30)

// Bytes of the array buffer of a model with these sizes.
size_t px_modelBytes(const pxModel* sizes);

// Allocate a model with the sizes already set in *sizes (arrays zeroed); NULL on failure or
// when the buffer would exceed PX_MAX_MODEL_BYTES.
pxModel* px_makeModel(const pxModel* sizes);

// Free a model (NULL is fine).
void px_freeModel(pxModel* m);

// Deep copy of a model; NULL on failure.
pxModel* px_copyModel(const pxModel* m);

// Number of elements of model array `name` (for views and tests); -1 if unknown.
long px_modelFieldSize(const pxModel* m, const char* name);

// Default options and statistics (MuJoCo's).
void px_defaultOption(pxOption* opt);

// Id of the object of type `type` named `name`, or -1.
int px_name2id(const pxModel* m, int type, const char* name);

// Name of object `id` of type `type`, or NULL.
const char* px_id2name(const pxModel* m, int type, int id);

#endif  // PX_INCLUDE_PX_PXMODEL_H_
