// SPDX-License-Identifier: Apache-2.0
// Sensor entry point: every sensor type but the geom distance sensors and those of sensorfull.comp
// (shaders/sensor_main.glsl).
#version 460
#define PXL_SN_FULL 0
#define PXL_SN_DIST 0
#include "sensor_main.glsl"
