// SPDX-License-Identifier: Apache-2.0
// Sensor entry point with the geom distance sensors, every narrow-phase routine and GJK/EPA:
// see shaders/sensor_dist.glsl.
#version 460
#define PXL_SNDIST_CONVEX 1
#include "sensor_dist.glsl"
