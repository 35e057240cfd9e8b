// SPDX-License-Identifier: Apache-2.0
// Entry point of the sensor stages with every sensor type the GPU computes (pxk_sensors of
// csrc/kern/sensor.h, as shaders/sensor.comp) plus those that read the constraint rows and
// contacts (touch, contact, the joint and tendon limit sensors; PXK_SN_EFC), camera rangefinders
// (PXK_SN_CAMERA) and mj_rnePostConstraint with the constraint forces. It declares the constraint
// blocks (PX_LAYOUT_EFC) and binds the contacts, so it is larger than sensor.comp: the executor
// dispatches it instead of sensor.comp only for the models that need it (px_sensorFullGPU). Modes
// as sensor.comp's; one workgroup per world, PX_NLANE lanes per world (specialization constant 0).
// Without a constraint stage the executor uploads zero row and contact counts (the CPU's state).
// On a device that stops long loops (lavapipe's loop limiter: 65535 loop iterations per
// invocation) the world is flagged (2 in efc_n's PX_EFC_NTRUNC) and the executor reports it.
// Built by scripts/build_shaders.sh for fp64 and, with -DPX_FP32, for fp32.
#version 460
#extension GL_EXT_buffer_reference : require
#extension GL_GOOGLE_include_directive : require
#ifndef PX_FP32
#extension GL_ARB_gpu_shader_fp64 : require
#endif

layout(local_size_x_id = 0) in;

#define PX_LAYOUT_EFC 1
#include "../shaders/layout.glsl"
#include "kern/prelude_glsl.h"

#define PXK_SN_NOGEOMDIST
#define PXK_SN_EFC 1
#define PXK_SN_CAMERA 1
#include "kern/sensor.h"

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
  if (mode < 2) {
    if (PX_LANE == 0) p.tsave.v[pxw] = D(energy, 1);
    return;
  }
  pxl_collisionWorld(p);
  pxl_efcWorld(p);
  PXR time = p.time.v[pxw];
  PXR ke_in = p.tsave.v[pxw];
  pxk_sensors(time, ke_in);
  // the loop limiter's probe (shaders/constraint.comp): a loop whose trip count the compiler
  // cannot know runs once instead of twice when the invocation's budget is spent
  int probe = 0;
  for (int k = 0; k < 2 + min(pxw, 0); k++) probe++;
  if (probe != 2) PXK_EN(PX_EFC_NTRUNC) = PXK_EN(PX_EFC_NTRUNC) | 2;
}
