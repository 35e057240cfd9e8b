// SPDX-License-Identifier: Apache-2.0
// Entry point of the state checks of the step phase (mj_checkPos, mj_checkVel, mj_checkAcc with
// MuJoCo's autoreset, as px_step runs them in csrc/engine/step.c): one workgroup per world,
// PX_NLANE lanes per world (specialization constant 0).
//   mode 0 (before forward): a NaN or a value beyond 1e10 in qpos or qvel resets the world
//          (mj_resetData, time included) unless autoreset is disabled; clears the step flag.
//   mode 1 (after forward): the same test on qacc; a reset sets the step flag, and forward then
//          runs again on the flagged worlds (shaders/forward.comp, mode 1).
// Every lane tests every value (read only), so all lanes take the same branches.
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

  int bad = 0;
  if (pxpush.mode == 0) {
    int badpos;
    int badvel;
    PXK_PH_ANYBAD(badpos, qpos, MS(nq))
    PXK_PH_ANYBAD(badvel, qvel, MS(nv))
    bad = badpos + badvel;
  } else {
    PXK_PH_ANYBAD(bad, qacc, MS(nv))
  }
  int reset = bad != 0 && (MOPT(disableflags) & PX_DSBL_AUTORESET) == 0 ? 1 : 0;
  PX_SYNC();  // every lane has read before any lane writes
  if (reset != 0) {
    pxl_zeroWorld();
    PX_SYNC();
    pxk_phResetRest(PX_MDARG);
  }
  if (PX_LANE == 0) {
    if (reset != 0) p.time.v[pxw] = PX_R(0.0);
    p.flag.v[pxw] = pxpush.mode == 1 ? reset : 0;
  }
}
