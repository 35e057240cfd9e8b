// SPDX-License-Identifier: Apache-2.0
// The body of the narrow-phase entry points shaders/colnarrow_{prim,convex,hfield}.comp, each
// of which defines PXL_FAMILY (0, 1, 2) and which of PXK_NARROW_CONVEX, PXK_NARROW_HFIELD and
// PXK_NARROW_PRIM (the primitive routines, on unless set to 0) is on before including this file.
//
// The narrow phase of the geom pairs that shaders/colpairs.comp listed, in the list's order:
// each pair's contacts land after those of the pairs before it (pxk_colPair of
// csrc/kern/collide.h). The routines are split over three entry points, since lavapipe's
// compiler (LLVM, after NIR inlines every call) runs out of memory on one module holding all
// of them: family 0 the primitive routines (planes, spheres, capsules, boxes, ...), family 1
// the general convex collider (pxk_colConvex, GJK/EPA), family 2 the height field collider
// (pxk_colConvexHField, GJK/EPA too). Each world keeps a cursor into its list; a dispatch of
// family F collides the pairs from the cursor on while they belong to F and end before the
// dispatch's chunk (mode + 1) * PXL_COLCHUNK, then moves the cursor past them. The executor
// records, for each chunk, the three families PXL_COLCHUNK times over (enough when families
// alternate at every pair): a dispatch with nothing to do returns at once. Short dispatches
// also keep each invocation under lavapipe's loop budget (loops end silently after about
// 65535 iterations in one invocation).
// One workgroup per world; lane 0 works (the executor runs these with 1 lane).
// The GJK/EPA polytope is sized for PXK_CCD_MAXIT iterations below (MuJoCo's default
// ccd_iterations is 35); the executor refuses models that ask for more (PXV_CCD_MAXIT). GLSL
// copies array arguments in and out of every call, so the sizes of these scratch arrays decide
// how big the module becomes after inlining.
// Built by scripts/build_shaders.sh at -O0 (glslc's optimizer crashes on the convex routines)
// for fp64 and, with -DPX_FP32, for fp32.
#extension GL_EXT_buffer_reference : require
#extension GL_GOOGLE_include_directive : require
#ifndef PX_FP32
#extension GL_ARB_gpu_shader_fp64 : require
#endif

layout(local_size_x_id = 0) in;

#include "../shaders/layout.glsl"
#include "kern/prelude_glsl.h"

#define PXK_CCD_MAXIT 50
// the polygon multi-contact's capacities (PXV_MCC_MAX; the CPU's are 512): polygons met at a
// mesh vertex and vertices of a mesh polygon; the executor refuses meshes beyond them
#define PXK_MCC_DEG 32
#define PXK_MCC_POLY 32
#include "kern/collide.h"

// pairs per chunk (the executor's PXV_COLCHUNK)
#define PXL_COLCHUNK 16

// the family of geom pair (g1, g2): 2 height field, 1 general convex, 0 the others (by the
// narrow-phase route, csrc/kern/collide.h)
int pxl_family(int g1, int g2) {
  int ta = M(geom_type, g1);
  int tb = M(geom_type, g2);
  int r = pxk_narrowRoute(ta < tb ? ta : tb, ta < tb ? tb : ta);
  if (r == PXK_NR_HFIELD) return 2;
  if (r == PXK_NR_CONVEX) return 1;
  return 0;
}

void main() {
  PxParams p = pxpush.params;
  int wg = int(gl_WorkGroupID.x);

  if (wg >= p.nworld - pxpush.world0) return;
  pxm = p.model;
  pxd = p.data;
  pxw = pxpush.world0 + wg;
  pxzero = PX_REAL(min(pxw, 0));  // 0, unknown to the compiler (pxw >= 0 is not provable)
  pxl_collisionWorld(p);
  if (PX_LANE != 0) return;
  int n = pxpairs.v[pxpairbase];
  int end = (pxpush.mode + 1) * PXL_COLCHUNK;
  if (end > n) end = n;
  int i = pxpairs.v[pxpairbase + 1];
  while (i < end) {
    int g1 = pxpairs.v[pxpairbase + 2 + 3 * i];
    int g2 = pxpairs.v[pxpairbase + 3 + 3 * i];
    int ipair = pxpairs.v[pxpairbase + 4 + 3 * i];
    if (pxl_family(g1, g2) != PXL_FAMILY) break;
    pxk_colPair(PX_MDARGC g1, g2, ipair);
    i++;
  }
  pxpairs.v[pxpairbase + 1] = i;
}
