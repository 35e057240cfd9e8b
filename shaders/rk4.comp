// SPDX-License-Identifier: Apache-2.0
// Entry point of the RK4 integrator of the step phase (mj_RungeKutta as px_step runs it in
// csrc/engine/step.c), around the forward passes the host dispatches between the modes: one
// workgroup per world, PX_NLANE lanes per world (specialization constant 0).
//   mode 0: after the step's forward: X[0], F[0] stored, the start time saved, stage 1 state
//   mode 1, 2: after stage mode's forward: F[mode] stored, stage mode + 1 state
//   (each stage's time is the start time + C h, C = 0.5, 0.5, 1)
//   mode 3: after stage 3's forward: F[3] stored, the combined advance, time = start + h
//   mode 4, 5: mode 3 in two halves around mj_advance's history update (models with history
//           buffers; the host dispatches the sensor entry point's mode 4 between them): 4 stores
//           F[3] and restores the initial state and time, 5 advances, time = start + h
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

  int mode = pxpush.mode;
  PXR h = MOPT(timestep);
  if (mode == 5) {
    pxk_phRk4Advance(PX_MDARG);
    if (PX_LANE == 0) {
      PXR t = p.tsave.v[pxw] + h;
      p.time.v[pxw] = t;
    }
    return;
  }
  int s = min(mode, 3);
  if (s == 0) {
    pxk_phRk4Store(PX_MDARGC 0, 1, 1);
    if (PX_LANE == 0) p.tsave.v[pxw] = p.time.v[pxw];
  } else {
    pxk_phRk4Store(PX_MDARGC s, 0, 1);
  }
  if (s < 3) {
    pxk_phRk4Stage(PX_MDARGC s + 1);
    if (PX_LANE == 0) {
      PXR c = s == 2 ? PX_R(1.0) : PX_R(0.5);
      PXR ch = c * h;
      PXR t = p.tsave.v[pxw] + ch;
      p.time.v[pxw] = t;
    }
  } else if (mode == 3) {
    pxk_phRk4Restore(PX_MDARG);
    pxk_phRk4Advance(PX_MDARG);
    if (PX_LANE == 0) {
      PXR t = p.tsave.v[pxw] + h;
      p.time.v[pxw] = t;
    }
  } else {
    pxk_phRk4Restore(PX_MDARG);
    if (PX_LANE == 0) p.time.v[pxw] = p.tsave.v[pxw];
  }
}
