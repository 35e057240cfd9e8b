// SPDX-License-Identifier: Apache-2.0
// Body of the sensor entry points: the sensor stages (mj_sensorPos, mj_sensorVel, mj_sensorAcc
// with their lazy quantities and MuJoCo's energy bookkeeping: pxk_sensors of csrc/kern/sensor.h,
// which px_sensors runs on the CPU) after a forward pass, and mj_advance's history update. One
// workgroup per world, PX_NLANE lanes per world (specialization constant 0). The executor picks
// one of the first two per model (csrc/vulkan/kinematics_gpu.c, sensorPhase), the smaller that
// holds the model's sensors, and for a model with geom distance sensors dispatches one of the
// last two after it (distPhase):
//   sensor.comp          PXL_SN_FULL 0: every type but those below (the tactile sensor,
//                        csrc/kern/tactile.h, reads the contact records the forward pass left)
//   sensorfull.comp      PXL_SN_FULL 1: also the sensors that read the constraint rows and
//                        contacts (touch, contact, joint and tendon limit sensors; PXK_SN_EFC),
//                        camera rangefinders (PXK_SN_CAMERA) and mj_rnePostConstraint with the
//                        constraint forces; declares the constraint blocks (PX_LAYOUT_EFC).
//                        Without a constraint stage the executor uploads zero row and contact
//                        counts (the CPU's state)
//   sensor_distprim.comp PXL_SN_DIST 1: the geom distance sensors alone (pxk_sensorsGeomDist of
//                        csrc/kern/sensor_history.h, csrc/kern/collide_dist.h), primitive
//                        routines only; the two entry points above leave them out
//                        (PXK_SN_NOGEOMDIST). One lane works
//   sensor_dist.comp     PXL_SN_DIST 2: the same with GJK/EPA and height fields (refused on CPU
//                        Vulkan devices unless PX_GPU_CONVEX=1, as pxv_collision's convex
//                        pipeline)
// The distance entry points hold one call of the distance query, since every call site inlines
// the narrow-phase routines it reaches (the sensor entry points once held them as well, at three
// call sites: lavapipe's compiler then ran out of memory). The queries use the world's collision
// scratch and narrow-phase contact room and run on lane 0 in sensor order.
//   mode 0: before forward: energy[1] saved in the world's tsave (ke_in, read by an e_kinetic
//           sensor under the energy flag); dispatched only when the model needs it (not to the
//           distance entry points)
//   mode 2: after forward: the sensors, clock = the world's time, ke_in = tsave
//   mode 1, 3: the same as 0, 2 on the worlds whose step flag is set (the step's second forward
//           pass after a bad acceleration reset the world)
//   mode 4: mj_advance's history update before the integrator (csrc/kern/history.h,
//           sensor_history.h): the control buffers, then the sensor buffers, the delayed sensors
//           computed again at the current state (the distance entry points: their sensors'
//           samples only); dispatched only for models with history buffers (with RK4 between
//           shaders/rk4.comp's modes 4 and 5)
// With PXL_SN_FULL or PXL_SN_DIST, on a device that stops long loops (lavapipe's loop limiter:
// 65535 loop iterations per invocation) the world is flagged (2 in efc_n's PX_EFC_NTRUNC) and the
// executor reports it.
// Built by scripts/build_shaders.sh for fp64 and, with -DPX_FP32, for fp32.
#extension GL_EXT_buffer_reference : require
#extension GL_GOOGLE_include_directive : require
#ifndef PX_FP32
#extension GL_ARB_gpu_shader_fp64 : require
#endif

layout(local_size_x_id = 0) in;

#if PXL_SN_FULL || PXL_SN_DIST
#define PX_LAYOUT_EFC 1
#endif
#include "../shaders/layout.glsl"
#include "kern/prelude_glsl.h"

#if PXL_SN_DIST == 0
#define PXK_SN_NOGEOMDIST
#else
#define PXK_CCD_MAXIT 50
#define PXK_MCC_DEG 32
#define PXK_MCC_POLY 32
#endif
#if PXL_SN_DIST == 1
#define PXK_NARROW_CONVEX 0
#define PXK_NARROW_HFIELD 0
#define PXK_DIST_CCD 0
#endif
#if PXL_SN_FULL
#define PXK_SN_EFC 1
#define PXK_SN_CAMERA 1
#endif
#include "kern/sensor_history.h"

void main() {
  PxParams p = pxpush.params;
  int wg = int(gl_WorkGroupID.x);

  // bounds and mode checks: uniform over the workgroup (one world per workgroup), so barriers
  // stay legal
  if (wg >= p.nworld - pxpush.world0) return;
  int mode = pxpush.mode;
  if ((mode & 1) == 1 && p.flag.v[pxpush.world0 + wg] == 0) return;
  pxm = p.model;
  pxd = p.data;
  pxw = pxpush.world0 + wg;
  pxzero = PX_REAL(min(pxw, 0));  // 0, unknown to the compiler (pxw >= 0 is not provable)
#if PXL_SN_DIST
  if (mode < 2) return;
  pxl_collisionWorld(p);  // the collision scratch and the narrow-phase contact room
  pxl_efcWorld(p);
  pxk_sensorsGeomDist(mode == 4 ? 1 : 0);
#else
  if (mode < 2) {
    if (PX_LANE == 0) p.tsave.v[pxw] = D(energy, 1);
    return;
  }
  pxl_collisionWorld(p);  // the contact records (tactile, contact and touch sensors read them)
#if PXL_SN_FULL
  pxl_efcWorld(p);
#endif
  if (mode == 4) {
    int lazy = pxk_histForwardLazy();
    pxk_histAdvanceCtrl();
    pxk_histAdvanceSensors(lazy);
  } else {
    PXR time = p.time.v[pxw];
    PXR ke_in = p.tsave.v[pxw];
    pxk_sensors(time, ke_in);
  }
#endif
#if PXL_SN_FULL || PXL_SN_DIST
  // the loop limiter's probe (shaders/constraint.comp): a loop whose trip count the compiler
  // cannot know runs once instead of twice when the invocation's budget is spent
  int probe = 0;
  for (int k = 0; k < 2 + min(pxw, 0); k++) probe++;
  if (probe != 2) PXK_EN(PX_EFC_NTRUNC) = PXK_EN(PX_EFC_NTRUNC) | 2;
#endif
}
