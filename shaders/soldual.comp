// SPDX-License-Identifier: Apache-2.0
// Entry point of the constraint stage, the dual part: the PGS solver and noslip, then
// qfrc_constraint and qacc from the forces (pxk_fwdConstraintDual of csrc/kern/solver.h), after
// shaders/constraint.comp (and solprimal.comp), on the worlds with rows; dispatched only for
// models with the PGS solver or noslip iterations. One workgroup per world, one lane; mode 1
// runs only the worlds whose step flag is set.
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

#include "kern/constraint.h"
#include "kern/solver.h"

// the loop iterations one dispatch may spend on a solve's units (estimates, csrc/kern/solver.h)
// on a device with a loop budget: lavapipe's is 65535 per invocation
#define PXK_CK_BUDGET 56000

void main() {
  PxParams p = pxpush.params;
  int wg = int(gl_WorkGroupID.x);
  if (wg >= p.nworld - pxpush.world0) return;
  if ((pxpush.mode & 1) == 1 && p.flag.v[pxpush.world0 + wg] == 0) return;
  pxm = p.model;
  pxd = p.data;
  pxw = pxpush.world0 + wg;
  pxzero = PX_REAL(min(pxw, 0));  // 0, unknown to the compiler (pxw >= 0 is not provable)
  pxl_collisionWorld(p);
  pxl_efcWorld(p);
  if (PXK_EN(PX_EFC_NEFC) == 0) return;
  // mode bit 1: a later dispatch of the same solve (resume, or return when finished); bit 2: a
  // device with a loop budget (lavapipe): run units of the solve within PXK_CK_BUDGET loop
  // iterations; bit 3: the last dispatch of the solve: unfinished, the world is flagged
  if ((pxpush.mode & 2) == 0) {
    pxk_ckReset(PX_MDARGC 0);
  } else if (pxk_ckDone(PX_MDARG) == 1) {
    return;
  }
  int done = pxk_dualRun(PX_MDARGC (pxpush.mode & 4) != 0 ? PXK_CK_BUDGET : -1);
  if (done == 0 && (pxpush.mode & 8) != 0) {
    PXK_EN(PX_EFC_NTRUNC) = PXK_EN(PX_EFC_NTRUNC) | 1;
  }
  // lavapipe (llvmpipe) caps the loop iterations of an invocation (65535 back edges in all, its
  // loop limiter); past the cap every loop ends after one iteration, silently. A loop whose trip
  // count the compiler cannot know tells whether that happened: the world is flagged (sticky)
  // and the executor reports it
  int probe = 0;
  for (int k = 0; k < 2 + min(pxw, 0); k++) probe++;
  if (probe != 2) PXK_EN(PX_EFC_NTRUNC) = PXK_EN(PX_EFC_NTRUNC) | 1;
}
