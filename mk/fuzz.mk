# SPDX-License-Identifier: Apache-2.0
# libFuzzer for the MJCF front end (tests/fuzz/fuzz_mjcf.c), built with clang under ASan,
# UBSan and LeakSanitizer.
#
#   make fuzz                   fuzz for FUZZ_SECONDS (default 600) from a fresh copy of the seeds
#   make fuzz FUZZ_SECONDS=60   a shorter run; FUZZ_JOBS=2 fuzzes in two processes
#   make fuzz-regress           replay tests/fuzz/regressions/* and tests/bad_mjcf/*.xml once each
#
# Every sanitizer report stops the input and counts as a crash. While a known report is being
# fixed, FUZZ_RECOVER=<checks> (e.g. pointer-overflow,nonnull-attribute) builds those UBSan checks
# to print and go on instead (rebuild with `rm build/fuzz/fuzz_mjcf` when changing it).
#
# The corpus lives in build/fuzz/corpus (seeded from tests/bad_mjcf and
# ../shared/models/gymnasium, never written into the repository); crash, leak, timeout and
# out-of-memory inputs are written to build/fuzz/ as crash-*, leak-*, timeout-*, oom-*. Keep a
# fixed crash as a regression input: minimize it first
#   build/fuzz/fuzz_mjcf -minimize_crash=1 -runs=20000 -exact_artifact_path=tests/fuzz/regressions/NAME crash-...
# (run from tests/bad_mjcf, as below). The target loads MJCF text, whose include and mesh
# files are relative to the working directory: it runs from tests/bad_mjcf so that the seeds'
# files resolve.

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 600
FUZZ_JOBS    ?= 1
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_BIN     := $(FUZZ_DIR)/fuzz_mjcf
FUZZ_SEEDS   := $(wildcard tests/bad_mjcf/*.xml) $(wildcard $(CURDIR)/../shared/models/gymnasium/*.xml)
# clang warns about other things than gcc: warnings stay on, but do not fail this build
FUZZ_CFLAGS  := $(filter-out -Werror,$(CFLAGS_COMMON)) -O1 -g -fno-omit-frame-pointer \
                -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
                $(if $(FUZZ_RECOVER),-fsanitize-recover=$(FUZZ_RECOVER))
# per-input time limit (s), memory limit (MB) and longest input (bytes); a single allocation
# over 1 GiB fails (returns NULL) instead of aborting, so that the loader's out-of-memory paths
# run: a load that fails with PX_ERR_NOMEM is a clean failure, not a finding
FUZZ_OPTS    := -timeout=20 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
                -dict=$(CURDIR)/tests/fuzz/mjcf.dict
FUZZ_ENV     := ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:max_allocation_size_mb=1024 \
                UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
FUZZ_REGRESS := $(filter-out %README.md,$(wildcard tests/fuzz/regressions/*)) \
                $(wildcard tests/bad_mjcf/*.xml)

.PHONY: fuzz fuzz-build fuzz-regress

$(FUZZ_BIN): tests/fuzz/fuzz_mjcf.c $(CSRC_LIB) $(wildcard csrc/*/*.h csrc/include/px/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $< $(CSRC_LIB) $(LIBS) -o $@

fuzz-build: setup $(FUZZ_BIN)

fuzz: fuzz-build
	@rm -rf $(FUZZ_DIR)/corpus $(FUZZ_DIR)/crash-* $(FUZZ_DIR)/leak-* $(FUZZ_DIR)/timeout-* \
	  $(FUZZ_DIR)/oom-* && mkdir -p $(FUZZ_DIR)/corpus
	@cp $(FUZZ_SEEDS) $(FUZZ_DIR)/corpus/
	@echo "fuzzing for $(FUZZ_SECONDS) s ($(FUZZ_JOBS) process(es)); log in $(FUZZ_DIR)/fuzz.log"
	@cd tests/bad_mjcf && $(FUZZ_ENV) $(CURDIR)/$(FUZZ_BIN) $(FUZZ_OPTS) \
	  -max_total_time=$(FUZZ_SECONDS) -fork=$(FUZZ_JOBS) -ignore_crashes=1 -ignore_timeouts=1 \
	  -ignore_ooms=1 -artifact_prefix=$(CURDIR)/$(FUZZ_DIR)/ $(CURDIR)/$(FUZZ_DIR)/corpus \
	  >$(CURDIR)/$(FUZZ_DIR)/fuzz.log 2>&1; rc=$$?; tail -n 25 $(CURDIR)/$(FUZZ_DIR)/fuzz.log; \
	  found=$$(ls $(CURDIR)/$(FUZZ_DIR) | grep -E '^(crash|leak|timeout|oom)-' || true); \
	  if [ -n "$$found" ]; then echo "fuzz: inputs that fail, in $(FUZZ_DIR)/:"; \
	    echo "$$found"; exit 1; fi; exit $$rc

fuzz-regress: fuzz-build
	cd tests/bad_mjcf && $(FUZZ_ENV) $(CURDIR)/$(FUZZ_BIN) $(FUZZ_OPTS) \
	  -artifact_prefix=$(CURDIR)/$(FUZZ_DIR)/ $(addprefix $(CURDIR)/,$(FUZZ_REGRESS))
