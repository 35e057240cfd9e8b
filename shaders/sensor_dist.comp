// SPDX-License-Identifier: Apache-2.0
// Sensor entry point: the geom distance sensors alone, with GJK/EPA and height fields
// (shaders/sensor_main.glsl).
#version 460
#define PXL_SN_FULL 0
#define PXL_SN_DIST 2
#include "sensor_main.glsl"
