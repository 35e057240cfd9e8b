// SPDX-License-Identifier: Apache-2.0
// Sensor entry point: also the sensors that read constraint rows and contacts, camera rangefinders
// (shaders/sensor_main.glsl).
#version 460
#define PXL_SN_FULL 1
#define PXL_SN_DIST 0
#include "sensor_main.glsl"
