// SPDX-License-Identifier: Apache-2.0
// Narrow-phase entry point, family 2 (hfield routines): see shaders/colnarrow.glsl.
#version 460
#define PXL_FAMILY 2
#define PXK_NARROW_CONVEX 0
#define PXK_NARROW_HFIELD 1
#define PXK_NARROW_PRIM 0
#include "colnarrow.glsl"
