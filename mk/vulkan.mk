# SPDX-License-Identifier: Apache-2.0
# The Vulkan executor: generated GPU layout, embedded SPIR-V, the T4 SPIR-V lint and the C test.
#   make shaders        regenerate shaders/layout.glsl and csrc/vulkan/spirv/*.inc, then lint
#   make shaders-check  fail when regeneration would change a committed file, or the lint fails
#   make gpu-test       build and run tests/c/test_vulkan (skips where no Vulkan device exists)

.PHONY: shaders shaders-check gpu-test

SHADER_DEPS := $(wildcard shaders/*.comp csrc/kern/*.h) csrc/include/px/pxxmacro.h \
               csrc/include/px/pxmodel.h csrc/include/px/pxtype.h scripts/gen_layout.py

shaders:
	@bash scripts/build_shaders.sh

shaders-check:
	@bash scripts/build_shaders.sh --check

# the SPIR-V arrays are dependencies of the C tests (the rule in the Makefile lists only .h)
$(BUILD)/c/test_vulkan: $(wildcard csrc/vulkan/spirv/*.inc csrc/vulkan/*.h)

gpu-test: $(BUILD)/c/test_vulkan
	ASAN_OPTIONS=detect_leaks=1 $(BUILD)/c/test_vulkan
