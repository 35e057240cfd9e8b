# SPDX-License-Identifier: Apache-2.0
# The Vulkan executor (docs/gpu_executor.md): the generated GPU layout, the embedded SPIR-V, the
# T4 SPIR-V lint and the C parity test.
#   make shaders        regenerate shaders/layout.glsl and csrc/vulkan/spirv/*.inc, then lint
#   make shaders-check  fail when regeneration would change a committed file or the lint fails
#                       (part of `make lint`)
#   make gpu-test       build and run tests/c/test_vulkan (device tests skip without Vulkan)
# `make build` regenerates the committed outputs when a kernel header, a shader or the X-macro
# tables are newer (glslc comes with scripts/setup.sh).

.PHONY: shaders shaders-check gpu-test

SHADER_DEPS := $(filter-out shaders/layout.glsl,$(wildcard shaders/*.comp shaders/*.glsl csrc/kern/*.h)) csrc/include/px/pxxmacro.h \
               csrc/include/px/pxmodel.h csrc/include/px/pxtype.h scripts/gen_layout.py \
               scripts/build_shaders.sh
SPIRV_INC   := $(foreach c,$(wildcard shaders/*.comp),\
                 $(patsubst shaders/%.comp,csrc/vulkan/spirv/%_f64.inc,$(c)) \
                 $(patsubst shaders/%.comp,csrc/vulkan/spirv/%_f32.inc,$(c)))

shaders:
	@bash scripts/build_shaders.sh

shaders-check:
	@bash scripts/build_shaders.sh --check

$(SPIRV_INC) shaders/layout.glsl &: $(SHADER_DEPS)
	@bash scripts/build_shaders.sh

build: $(SPIRV_INC)
lint: shaders-check

gpu-test: $(BUILD)/c/test_vulkan
	ASAN_OPTIONS=detect_leaks=1 $(BUILD)/c/test_vulkan
