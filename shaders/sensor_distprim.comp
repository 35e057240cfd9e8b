// SPDX-License-Identifier: Apache-2.0
// Sensor entry point: also the geom distance sensors, primitive routines only
// (shaders/sensor_main.glsl).
#version 460
#define PXL_SN_FULL 1
#define PXL_SN_DIST 1
#include "sensor_main.glsl"
