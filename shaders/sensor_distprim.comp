// SPDX-License-Identifier: Apache-2.0
// Sensor entry point with the geom distance sensors, primitive routines only: see
// shaders/sensor_dist.glsl.
#version 460
#define PXL_SNDIST_CONVEX 0
#include "sensor_dist.glsl"
