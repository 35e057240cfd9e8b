// SPDX-License-Identifier: Apache-2.0
// pxv_: the Vulkan executor of the kernels (docs/gpu.md, docs/gpu_executor.md).
//
// Vulkan is loaded at run time (volk); nothing here needs a Vulkan driver to link or import, and
// every entry point fails with a status (PX_ERR_VULKAN, the VkResult name, the call and the
// reasons per device) instead of crashing where none exists. A context owns one instance, one
// device, one compute queue and the pipelines built so far; use it from one thread at a time.
//
// The executor runs the same csrc/kern/ sources as the CPU, compiled to SPIR-V (fp64, and fp32
// for devices without shaderFloat64), over a pxWorlds batch in its own world-major layout, and
// matches the CPU bit for bit in fp64 where the device's double arithmetic is IEEE (lavapipe).
#ifndef PX_INCLUDE_PX_PXVULKAN_H_
#define PX_INCLUDE_PX_PXVULKAN_H_

#include "px/pxdata.h"
#include "px/pxmodel.h"
#include "px/pxstatus.h"

typedef struct pxvContext_ pxvContext;

// Context creation options; start from pxv_defaultContextDef().
typedef struct {
  int validation;      // 0: off; 1: VK_LAYER_KHRONOS_validation, warnings and errors counted
                       // (pxv_validationMessages); 2: also synchronization validation; 3: also
                       // GPU-assisted validation
  const char* device;  // NULL or "": the best device; "#<index>": that physical device;
                       // otherwise a substring of the device name (e.g. "llvmpipe")
  int requireFloat64;  // nonzero: reject devices without shaderFloat64
} pxvContextDef;

// Timings of the last call of a phase, in milliseconds (host clock).
typedef struct {
  double pipeline;  // pipeline creation (0 when cached)
  double upload;    // buffer creation and upload of the model and the worlds
  double execute;   // command recording, submit and wait on the fence
  double download;  // read-back of every data block into the worlds
  int staged;       // 1: the shaders worked in a device-local copy of the worlds' buffer
} pxvTiming;

// Defaults: no validation, device from the environment variable PX_VULKAN_DEVICE (else the
// best), shaderFloat64 not required.
pxvContextDef pxv_defaultContextDef(void);

// 1 when a Vulkan loader and a usable compute device exist; else 0 with the reason in why
// (may be NULL). PX_VULKAN_DISABLE=1 in the environment makes it report 0 (tests, CPU-only use).
int pxv_available(char* why, int len);

// Create a context on the best device (PX_VULKAN_DEVICE selects another); validation as in
// pxvContextDef. On failure *out is NULL and st says why.
pxtStatus pxv_contextCreate(pxvContext** out, int validation, pxStatus* st);

// Create a context from explicit options.
pxtStatus pxv_contextCreateDef(pxvContext** out, const pxvContextDef* def, pxStatus* st);

// Destroy a context and everything it owns (NULL and partially built contexts are fine).
void pxv_contextDestroy(pxvContext* ctx);

// Name of the device in use.
const char* pxv_deviceName(const pxvContext* ctx);

// One line per physical device: accepted, chosen, or the reason it was rejected.
const char* pxv_deviceReport(const pxvContext* ctx);

// Nonzero when the device runs fp64 shaders (shaderFloat64).
int pxv_hasFloat64(const pxvContext* ctx);

// Warnings and errors reported by the validation layer so far (0 without validation).
int pxv_validationMessages(const pxvContext* ctx);

// The last validation message ("" if none).
const char* pxv_lastValidationMessage(const pxvContext* ctx);

// Forward kinematics (csrc/kern/kinematics.h) of every world of w on the GPU: uploads the model
// and every data block of w, runs one workgroup per world, and reads every PX_DATA_FIELDS
// block back into w. precision64: 1 fp64 (PX_ERR_UNSUPPORTED without shaderFloat64), 0 fp32,
// -1 fp64 where available. In fp32, elements the GPU left unchanged keep their double value.
// w->model must be m.
pxtStatus pxv_kinematics(pxvContext* ctx, const pxModel* m, pxWorlds* w, int precision64,
                         pxStatus* st);

// The same with `lanes` invocations per world (1, 2, 4, 8, 16 or 32; a specialization constant).
pxtStatus pxv_kinematicsLanes(pxvContext* ctx, const pxModel* m, pxWorlds* w, int precision64,
                              int lanes, pxStatus* st);

// Forward dynamics (mj_forward without constraint rows: csrc/kern/phase.h, the stage order of
// px_forward) of every world of w on the GPU, `lanes` invocations per world, then the sensors
// (shaders/sensor.comp) where the model has some and the sensor flag is on; uploads and reads
// back every data block as pxv_kinematicsLanes does. Fails before any GPU work, as px_forward
// does, on a model px_forwardCheck refuses (with the sensor types the GPU does not compute).
pxtStatus pxv_forward(pxvContext* ctx, const pxModel* m, pxWorlds* w, int precision64, int lanes,
                      pxStatus* st);

// nstep steps (mj_step: forward, then the model's integrator (Euler, implicit, implicitfast or
// RK4), with MuJoCo's autoreset on bad values) of every world of w on the GPU, w->time advanced
// and read back with every data block. Fails before any GPU work on a model px_integratorCheck
// or px_forwardCheck refuses. The sensors are those of the step's first forward pass (RK4's inner
// passes compute none), as in px_step. nstep is 1 to 100000 (one step records 5 dispatches, RK4
// 11, plus one or two per sensor-computing forward pass, per chunk of worlds in one command
// buffer).
pxtStatus pxv_step(pxvContext* ctx, const pxModel* m, pxWorlds* w, int precision64, int lanes,
                   int nstep, pxStatus* st);

// Collision (mj_kinematics, then mj_collision: csrc/kern/collide.h, the broad phase, midphase
// and narrow phase in MuJoCo's contact order) of every world of w on the GPU, `lanes`
// invocations per world for the kinematics (the collision itself runs on one lane); every data
// block, w->ncon and the contact records w->contact (the first ncon of each world) are read
// back. Fails before any GPU work on a model px_collisionCheck refuses, and on a model with
// general convex or height field pairs that asks for more than PXV_CCD_MAXIT EPA iterations
// (opt.ccd_iterations; the GPU build's polytope is smaller than the CPU's). The narrow phase
// runs in chunked dispatches split by routine family (docs/gpu_executor.md, "Collision").
#define PXV_CCD_MAXIT 50
// mesh polygons of more vertices, or mesh vertices on more polygons, than this are refused too
// (the GPU's polygon multi-contact scratch; the CPU's holds 512)
#define PXV_MCC_MAX 32
pxtStatus pxv_collision(pxvContext* ctx, const pxModel* m, pxWorlds* w, int precision64, int lanes,
                        pxStatus* st);

// Timings of the last pxv_kinematics, pxv_forward or pxv_step call.
void pxv_lastTiming(const pxvContext* ctx, pxvTiming* out);

#endif  // PX_INCLUDE_PX_PXVULKAN_H_
