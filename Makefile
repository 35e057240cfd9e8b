# SPDX-License-Identifier: Apache-2.0
# One entry point: `make demo`, `make test`, `make conformance`, `make gpu-check`, `make bench`,
# `make fuzz`, `make lint`. Every target installs what it needs first (scripts/setup.sh).

PY      := .venv/bin/python
PYTEST  := $(PY) -m pytest
export PYTHONPATH := $(CURDIR)/python
CC      ?= cc
CFLAGS_COMMON := -std=c11 -D_POSIX_C_SOURCE=200809L -DVK_NO_PROTOTYPES -Icsrc/include -Icsrc \
                 -ffp-contract=off -fno-fast-math -Wall -Wextra -Werror -Wvla -Wshadow
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g
CSRC_LIB := $(filter-out csrc/python/%,$(shell find csrc -name '*.c' -not -path '*/fuzz/*'))
LIBS     := -lexpat -llapack -lqhull_r -lm -lpthread -ldl
BUILD    := build

.PHONY: all setup build demo test test-c test-py test-asan conformance gpu-check bench fuzz lint \
        format clean pgo-check

all: build

setup:
	@bash scripts/setup.sh

# the extension, built in place into python/phalanx/ with warnings as errors; profile-guided
# with gcc (built, trained by `python -m phalanx._pgo`, built again; PX_PGO=0 builds once)
build: setup
	@PX_DEV=1 $(PY) setup.py -q build_ext --inplace >$(BUILD).log 2>&1 || (cat $(BUILD).log; exit 1)

# the profile-guided build against one without profile feedback: the same trajectories, bit for bit
pgo-check: build
	$(PY) scripts/check_pgo.py

demo: build
	$(PY) examples/demo.py

# the fast suite: C unit tests and a Python smoke subset under ASan+UBSan, the Python tests,
# the format check and the generated-file checks
test: build test-c test-py test-asan lint

test-py: build
	$(PYTEST) -q -m "not slow" tests

# the library (everything but the Python glue) as a static archive built with ASan+UBSan
HDRS     := $(shell find csrc -name '*.h' -o -name '*.inc')
LIB_OBJS := $(patsubst csrc/%.c,$(BUILD)/san/%.o,$(CSRC_LIB))
$(BUILD)/san/%.o: csrc/%.c $(HDRS)
	@mkdir -p $(dir $@)
	@$(CC) $(CFLAGS_COMMON) $(SANFLAGS) -O1 -c $< -o $@
$(BUILD)/libphalanx_san.a: $(LIB_OBJS)
	@rm -f $@ && ar rcs $@ $^

# C unit tests (tests/c/test_*.c), each built with ASan+UBSan against that library
$(BUILD)/c/%: tests/c/%.c $(BUILD)/libphalanx_san.a $(wildcard tests/c/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) $(SANFLAGS) -O1 -Itests/c $< $(BUILD)/libphalanx_san.a $(LIBS) \
	  $(TEST_LIBS_$*) -o $@

C_TESTS := $(patsubst tests/c/%.c,$(BUILD)/c/%,$(wildcard tests/c/test_*.c))
test-c: setup $(C_TESTS)
	@set -e; for t in $(C_TESTS); do ASAN_OPTIONS=detect_leaks=1 $$t; done

# the extension again, with ASan+UBSan, for the smoke subset of the Python tests
$(BUILD)/asan/phalanx/_core.so: $(shell find csrc -name '*.c' -o -name '*.h') setup.py
	@mkdir -p $(BUILD)/asan
	@PX_DEV=1 PX_SANITIZE=address,undefined $(PY) setup.py -q build_ext -b $(BUILD)/asan \
	  -t $(BUILD)/asan/tmp >$(BUILD)/asan.log 2>&1 || (cat $(BUILD)/asan.log; exit 1)

test-asan: build $(BUILD)/asan/phalanx/_core.so
	@cp python/phalanx/*.py $(BUILD)/asan/phalanx/
	@LD_PRELOAD="$$($(CC) -print-file-name=libasan.so) $$($(CC) -print-file-name=libubsan.so)" \
	  ASAN_OPTIONS=detect_leaks=0 PYTHONPATH=$(BUILD)/asan \
	  $(PYTEST) -q -p no:cacheprovider -m asan tests

conformance: build
	$(PYTEST) -q tests/compat --full

# on Mesa's CPU device (lavapipe) the convex and height-field pipelines build only when asked
# (PX_TEST_GPU_CONVEX=1) and without LLVM's optimizer (GALLIVM_PERF=nopt: minutes instead of tens
# of minutes; other drivers ignore it); cold builds outlast the default 600 s fence wait
gpu-check: build gpu-test
	PX_TEST_GPU_CONVEX=1 GALLIVM_PERF=nopt PX_VULKAN_TIMEOUT_S=3600 $(PYTEST) -q tests/vulkan --full

# bench_tasks.py's full sweep (11 tasks x 7 sizes) takes about half an hour: BENCH_TASKS_ARGS=
BENCH_TASKS_ARGS ?= --quick

bench: build
	$(PY) benchmarks/bench_compile.py
	$(PY) benchmarks/bench_step.py
	$(PY) benchmarks/bench_step.py --constraints
	$(PY) benchmarks/bench_batch.py
	$(PY) benchmarks/bench_collision.py
	@$(PY) -m pip install -q -r requirements-bench.txt >/dev/null 2>&1 \
	  || echo "bench: EnvPool could not be installed; bench_tasks.py leaves it out"
	$(PY) benchmarks/bench_tasks.py $(BENCH_TASKS_ARGS)

lint: setup
	@clang-format --dry-run --Werror $$(find csrc tests/c -name '*.c' -o -name '*.h' | grep -v spirv/)
	@bash scripts/check_kern_glsl.sh >/dev/null

format: setup
	@clang-format -i $$(find csrc tests/c -name '*.c' -o -name '*.h' | grep -v spirv/)

clean:
	rm -rf $(BUILD) $(BUILD).log python/phalanx/*.so

-include mk/*.mk
