// SPDX-License-Identifier: Apache-2.0
// Entry point of the integration part of the step phase: after forward, the model's integrator
// (Euler or implicitfast) and mj_advance (csrc/kern/phase.h pxk_phIntegrate), then the time, as
// px_step does (csrc/engine/step.c): one workgroup per world, PX_NLANE lanes per world
// (specialization constant 0).
// Built by scripts/build_shaders.sh for fp64 and, with -DPX_FP32, for fp32.
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_GOOGLE_include_directive : require
#ifndef PX_FP32
#extension GL_ARB_gpu_shader_fp64 : require
#endif

layout(local_size_x_id = 0) in;

#include "../shaders/layout.glsl"
#include "kern/prelude_glsl.h"

#include "kern/phase.h"

void main() {
  PxParams p = pxpush.params;
  int wg = int(gl_WorkGroupID.x);

  // bounds check: uniform over the workgroup (one world per workgroup), so barriers stay legal
  if (wg >= p.nworld - pxpush.world0) return;
  pxm = p.model;
  pxd = p.data;
  pxw = pxpush.world0 + wg;
  pxzero = PX_REAL(min(pxw, 0));  // 0, unknown to the compiler (pxw >= 0 is not provable)
  pxk_phIntegrate(PX_MDARG);
  if (PX_LANE == 0) {
    PXR t = p.time.v[pxw] + MOPT(timestep);
    p.time.v[pxw] = t;
  }
}
