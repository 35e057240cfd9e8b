// SPDX-License-Identifier: Apache-2.0
// First entry point of the collision phase: mj_kinematics, then the collision driver
// (csrc/kern/collide.h: broad phase, midphase, filters, explicit pairs) which, instead of
// colliding each geom pair it visits, records it with its <pair> index in this world's pair
// list (PXK_COLPAIR). shaders/colnarrow.comp then collides the listed pairs in order, in chunks
// over several dispatches. One workgroup per world, PX_NLANE lanes per world (specialization
// constant 0); the kinematics uses every lane, the driver runs on lane 0 (its walk is sequential).
// A list that overflows its capacity (px_colPairCapacity, which should never happen) stores
// -1 as its count; the executor reports it.
// Mode 1 (the step's forward pass on the worlds check.comp reset): the other worlds keep their
// contacts.
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

// append geom pair (g1, g2) with <pair> index ipair (-1: none) to this world's list
void pxl_pushPair(int g1, int g2, int ipair) {
  int n = pxpairs.v[pxpairbase];
  if (n < 0) return;
  if (n >= pxnpairmax) {
    pxpairs.v[pxpairbase] = -1;
    return;
  }
  pxpairs.v[pxpairbase + 2 + 3 * n] = g1;
  pxpairs.v[pxpairbase + 3 + 3 * n] = g2;
  pxpairs.v[pxpairbase + 4 + 3 * n] = ipair;
  pxpairs.v[pxpairbase] = n + 1;
}
#define PXK_COLPAIR(g1, g2, ipair) pxl_pushPair(g1, g2, ipair)

#include "kern/kinematics.h"
#include "kern/collide.h"

void main() {
  PxParams p = pxpush.params;
  int wg = int(gl_WorkGroupID.x);

  // bounds check: uniform over the workgroup (one world per workgroup), so barriers stay legal
  if (wg >= p.nworld - pxpush.world0) return;
  pxm = p.model;
  pxd = p.data;
  pxw = pxpush.world0 + wg;
  pxzero = PX_REAL(min(pxw, 0));  // 0, unknown to the compiler (pxw >= 0 is not provable)
  pxl_collisionWorld(p);
  // mode 1 (the step's second forward pass): a world whose step flag is not set keeps its
  // contacts; its pair list is emptied so that the narrow phase leaves them alone
  if (pxpush.mode == 1 && p.flag.v[pxw] == 0) {
    if (PX_LANE == 0) {
      pxpairs.v[pxpairbase] = 0;
      pxpairs.v[pxpairbase + 1] = 0;
    }
    return;
  }
  pxk_kinematics(PX_MDARG);
  PX_SYNC();
  if (PX_LANE == 0) {
    pxpairs.v[pxpairbase] = 0;
    pxpairs.v[pxpairbase + 1] = 0;
    pxk_collision(PX_MDARG);
  }
}
