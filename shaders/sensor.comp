// SPDX-License-Identifier: Apache-2.0
// Entry point of the sensor stages (mj_sensorPos, mj_sensorVel, mj_sensorAcc with their lazy
// quantities and MuJoCo's energy bookkeeping: pxk_sensors of csrc/kern/sensor.h, which
// px_sensors runs on the CPU) after a forward pass: one workgroup per world, PX_NLANE lanes per
// world (specialization constant 0). The geom distance sensors are left out (PXK_SN_NOGEOMDIST:
// the host refuses them, px_sensorCheckGPU), and so is the collision code they would need.
//   mode 0: before forward: energy[1] saved in the world's tsave (ke_in, read by an e_kinetic
//           sensor under the energy flag); dispatched only when the model needs it
//   mode 2: after forward: the sensors, clock = the world's time, ke_in = tsave
//   mode 1, 3: the same as 0, 2 on the worlds whose step flag is set (the step's second forward
//           pass after a bad acceleration reset the world)
//   mode 4: mj_advance's history update before the integrator (csrc/kern/history.h,
//           sensor_history.h): the control buffers, then the sensor buffers, the delayed sensors
//           computed again at the current state; dispatched only for models with history
//           buffers (Euler and the implicit integrators)
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

#define PXK_SN_NOGEOMDIST
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
