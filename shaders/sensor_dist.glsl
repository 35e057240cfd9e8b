// SPDX-License-Identifier: Apache-2.0
// Body of the sensor entry points with the geom distance sensors (distance, normal, fromto):
// shaders/sensor.comp's modes (0-3: the sensor stages of a forward pass, 4: the history update)
// with csrc/kern/collide_dist.h compiled in, dispatched instead of shaders/sensor.comp only for
// models that have such sensors (the collision code makes this pipeline much slower to build).
// The distance queries use the world's collision scratch and narrow-phase contact room, bound
// with pxl_collisionWorld, and run on lane 0 in sensor order (pxk_snSerial).
//   sensor_distprim.comp: the primitive routines only (PXL_SNDIST_CONVEX 0: no GJK/EPA, no
//                         height field); the host picks it when no sensor pair needs more
//   sensor_dist.comp:     every routine (the host refuses it on CPU Vulkan devices, as
//                         pxv_collision refuses its convex pipeline, unless PX_GPU_CONVEX=1)
#extension GL_EXT_buffer_reference : require
#extension GL_GOOGLE_include_directive : require
#ifndef PX_FP32
#extension GL_ARB_gpu_shader_fp64 : require
#endif

layout(local_size_x_id = 0) in;

#include "../shaders/layout.glsl"
#include "kern/prelude_glsl.h"

#define PXK_CCD_MAXIT 50
#define PXK_MCC_DEG 32
#define PXK_MCC_POLY 32
#if PXL_SNDIST_CONVEX == 0
#define PXK_NARROW_CONVEX 0
#define PXK_NARROW_HFIELD 0
#define PXK_DIST_CCD 0
#endif
#include "kern/sensor_history.h"

void main() {
  PxParams p = pxpush.params;
  int wg = int(gl_WorkGroupID.x);

  // bounds and mode checks: uniform over the workgroup (one world per workgroup), so barriers
  // stay legal
  if (wg >= p.nworld - pxpush.world0) return;
  int mode = pxpush.mode;
  if ((mode & 1) == 1 && mode < 4 && p.flag.v[pxpush.world0 + wg] == 0) return;
  pxm = p.model;
  pxd = p.data;
  pxw = pxpush.world0 + wg;
  pxzero = PX_REAL(min(pxw, 0));  // 0, unknown to the compiler (pxw >= 0 is not provable)
  pxl_collisionWorld(p);
  if (mode == 4) {
    int lazy = pxk_histForwardLazy();
    pxk_histAdvanceCtrl();
    pxk_histAdvanceSensors(lazy);
    return;
  }
  if (mode < 2) {
    if (PX_LANE == 0) p.tsave.v[pxw] = D(energy, 1);
    return;
  }
  PXR time = p.time.v[pxw];
  PXR ke_in = p.tsave.v[pxw];
  pxk_sensors(time, ke_in);
}
