// SPDX-License-Identifier: Apache-2.0
// Narrow-phase entry point, family 1 (convex routines): see shaders/colnarrow.glsl.
#version 460
#define PXL_FAMILY 1
#define PXK_NARROW_CONVEX 1
#define PXK_NARROW_HFIELD 0
#define PXK_NARROW_PRIM 0
#include "colnarrow.glsl"
