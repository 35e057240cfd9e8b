// SPDX-License-Identifier: Apache-2.0
// Entry point of the constraint stage, first part (after the forward phase and the collision
// dispatches, shaders/colpairs.comp and colnarrow_*.comp): px_forward's sequence after
// pxk_collision (csrc/engine/forward.c): the adhesive contacts' passive forces (with the smooth
// acceleration again), the constraint rows (csrc/kern/constraint.h), islands, the projection
// (efc_diagA, R, D), the reference acceleration and mj_fwdConstraint's start (efc_b; qacc =
// qacc_smooth without rows). The solvers follow as separate entry points (solprimal.comp,
// soldual.comp) so that a device compiles only the model's. One workgroup per world, one lane
// (the stages are sequential); mode 1 (the step's second forward pass) runs only the worlds
// whose step flag is set.
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
  if (pxk_cnAdhesion(PX_MDARG) != 0) pxk_fwdAcceleration(PX_MDARG);
  pxk_makeConstraint(PX_MDARG);
  pxk_island(PX_MDARG);
  pxk_projectRows(PX_MDARG);
  pxk_referenceConstraint(PX_MDARG);
  pxk_fwdConstraintBegin(PX_MDARG);
  // lavapipe (llvmpipe) caps the loop iterations of an invocation (65535 back edges in all, its
  // loop limiter); past the cap every loop ends after one iteration, silently. A loop whose trip
  // count the compiler cannot know tells whether that happened: the world is flagged (sticky)
  // and the executor reports it
  int probe = 0;
  for (int k = 0; k < 2 + min(pxw, 0); k++) probe++;
  if (probe != 2) PXK_EN(PX_EFC_NTRUNC) = PXK_EN(PX_EFC_NTRUNC) | 1;
}
