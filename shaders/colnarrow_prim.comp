// SPDX-License-Identifier: Apache-2.0
// Narrow-phase entry point, family 0 (prim routines): see shaders/colnarrow.glsl.
#version 460
#define PXL_FAMILY 0
#define PXK_NARROW_CONVEX 0
#define PXK_NARROW_HFIELD 0
#include "colnarrow.glsl"
