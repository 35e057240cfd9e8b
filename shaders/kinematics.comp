// SPDX-License-Identifier: Apache-2.0
// Entry point of the kinematics phase: one workgroup per world, PX_NLANE lanes per world
// (specialization constant 0, default 1), calling csrc/kern/kinematics.h as the CPU does.
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

// dialect fixes pending in the shared headers (see docs/gpu_executor.md, "open"); each is a
// no-op once the prelude has it. glslang cannot paste `1.0##lf`, and double(x) of a literal
// keeps its double value (checked: double(0.1) and 0.1lf give the same SPIR-V constant);
// `half` is a reserved word in GLSL
#ifndef PX_FP32
#undef PX_R
#define PX_R(x) double(x)
#endif
#define half pxk_half_
// out/inout array parameters must be precise too: glslang does not carry `precise` from the
// caller's local into the callee, and without NoContraction spirv-opt fuses mul+add into Fma
#undef PX_OUT
#undef PX_INOUT
#define PX_OUT(T, name, len) out precise T name[len]
#define PX_INOUT(T, name, len) inout precise T name[len]
// lanes share a world through buffer memory: barrier() alone orders shared memory only, so the
// writes of one lane are made visible to the others with memoryBarrierBuffer() first
#undef PX_SYNC
#define PX_SYNC() pxl_sync()
void pxl_sync() {
  memoryBarrierBuffer();
  barrier();
}
#include "kern/kinematics.h"

void main() {
  PxParams p = pxpush.params;
  int wg = int(gl_WorkGroupID.x);

  // bounds check: uniform over the workgroup (one world per workgroup), so barriers stay legal
  if (wg >= p.nworld - pxpush.world0) return;
  pxm = p.model;
  pxd = p.data;
  pxw = pxpush.world0 + wg;
  pxk_kinematics(PX_MDARG);
}
