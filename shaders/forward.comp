// SPDX-License-Identifier: Apache-2.0
// Entry point of the forward phase (mj_forward without constraints): one workgroup per world,
// PX_NLANE lanes per world (specialization constant 0, default 1), calling the stage sequence
// of csrc/kern/phase.h, which is px_forward's (csrc/engine/forward.c). Mode 1 (the step phase,
// after shaders/check.comp reset a world on a bad acceleration) runs only the worlds whose step
// flag is set.
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

  // bounds and mode checks: uniform over the workgroup (one world per workgroup), so barriers
  // stay legal
  if (wg >= p.nworld - pxpush.world0) return;
  if (pxpush.mode == 1 && p.flag.v[pxpush.world0 + wg] == 0) return;
  pxm = p.model;
  pxd = p.data;
  pxw = pxpush.world0 + wg;
  pxzero = PX_REAL(min(pxw, 0));  // 0, unknown to the compiler (pxw >= 0 is not provable)
  pxk_phForward(PX_MDARG);
}
