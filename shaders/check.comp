// SPDX-License-Identifier: Apache-2.0
// Entry point of the state checks of the step phase (mj_checkPos, mj_checkVel, mj_checkAcc with
// MuJoCo's autoreset, as px_step runs them in csrc/engine/step.c): one workgroup per world,
// PX_NLANE lanes per world (specialization constant 0).
//   mode 0 (before forward): a NaN or a value beyond 1e10 in qpos or qvel counts the BADQPOS or
//          BADQVEL warning and resets the world (mj_resetData, time included) unless autoreset
//          is disabled; clears the step flag.
//   mode 1 (after forward): the same test on qacc (BADQACC); a reset sets the step flag, and
//          forward then runs again on the flagged worlds (shaders/forward.comp, mode 1).
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

// mj_resetData of the current world, time included, between barriers
void resetWorld(PxParams p) {
  PX_SYNC();
  pxl_zeroWorld();
  PX_SYNC();
  pxk_phResetRest(PX_MDARG);
  if (PX_LANE == 0) p.time.v[pxw] = PX_R(0.0);
}

// mj_checkPos/Vel/Acc after the first bad index i of an array: count the warning, reset unless
// autoreset is disabled, count it again (the count survives the reset)
void badValue(PxParams p, int warn, int i, int autoreset) {
  pxk_phWarn(PX_MDARGC warn, i);
  if (autoreset != 0) resetWorld(p);
  PX_SYNC();
  pxk_phWarn(PX_MDARGC warn, i);
}

void main() {
  PxParams p = pxpush.params;
  int wg = int(gl_WorkGroupID.x);

  // bounds check: uniform over the workgroup (one world per workgroup), so barriers stay legal
  if (wg >= p.nworld - pxpush.world0) return;
  pxm = p.model;
  pxd = p.data;
  pxw = pxpush.world0 + wg;
  pxzero = PX_REAL(min(pxw, 0));  // 0, unknown to the compiler (pxw >= 0 is not provable)

  int autoreset = (MOPT(disableflags) & PX_DSBL_AUTORESET) == 0 ? 1 : 0;
  int flag = 0;
  if (pxpush.mode == 0) {
    // qpos, then qvel (after a reset, qvel is zero and passes)
    int ip;
    int iv;
    PXK_PH_FIRSTBAD(ip, qpos, MS(nq))
    PXK_PH_FIRSTBAD(iv, qvel, MS(nv))
    PX_SYNC();  // every lane has read before any lane writes
    if (ip >= 0) badValue(p, PX_WARN_BADQPOS, ip, autoreset);
    if (iv >= 0 && (ip < 0 || autoreset == 0)) badValue(p, PX_WARN_BADQVEL, iv, autoreset);
  } else {
    int ia;
    PXK_PH_FIRSTBAD(ia, qacc, MS(nv))
    PX_SYNC();
    if (ia >= 0) {
      badValue(p, PX_WARN_BADQACC, ia, autoreset);
      flag = autoreset;
    }
  }
  if (PX_LANE == 0) p.flag.v[pxw] = flag;
}
