# SPDX-License-Identifier: Apache-2.0
# libFuzzer for the MJCF front end (tests/fuzz/fuzz_mjcf.c), built with clang under ASan,
# UBSan and LeakSanitizer.
#
#   make fuzz                   fuzz for FUZZ_SECONDS (default 600) from a fresh copy of the seeds
#   make fuzz FUZZ_SECONDS=60   a shorter run; FUZZ_JOBS=2 fuzzes in two processes
#   make fuzz-regress           replay tests/fuzz/regressions/* and tests/bad_mjcf/*.xml, each once
#
# The corpus lives in build/fuzz/corpus, seeded from tests/bad_mjcf and
# ../shared/models/gymnasium (plus FUZZ_EXTRA_SEEDS, files or folders) and never written into the
# repository. Inputs that fail are written to build/fuzz/ as crash-*, leak-*, timeout-*, oom-*;
# the run goes on after each one and ends by listing them with their distinct reports. Minimize
# one and keep it as a regression input (see tests/fuzz/regressions/README.md):
#   cd tests/bad_mjcf && ../../build/fuzz/fuzz_mjcf -minimize_crash=1 -runs=20000 \
#       -exact_artifact_path=../fuzz/regressions/NAME.xml ../../build/fuzz/crash-...
# The target loads MJCF text, whose include and mesh files are relative to the working
# directory: it runs from tests/bad_mjcf so that the seeds' files resolve.
#
# Every sanitizer report stops the input and counts. While a known report is being fixed,
# FUZZ_RECOVER=<UBSan checks> (e.g. pointer-overflow) builds a second binary in which those
# checks print and go on, so that fuzzing can look past them.

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 600
FUZZ_JOBS    ?= 1
FUZZ_RECOVER ?=
FUZZ_EXTRA_SEEDS ?=
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_BIN     := $(FUZZ_DIR)/fuzz_mjcf$(if $(FUZZ_RECOVER),_recover)
FUZZ_SEEDS   := $(wildcard tests/bad_mjcf/*.xml) $(wildcard $(CURDIR)/../shared/models/gymnasium/*.xml)
# clang warns about other things than gcc: warnings stay on, but do not fail this build
FUZZ_CFLAGS  := $(filter-out -Werror,$(CFLAGS_COMMON)) -O1 -g -fno-omit-frame-pointer \
                -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
                $(if $(FUZZ_RECOVER),-fsanitize-recover=$(FUZZ_RECOVER))
# per-input time limit (s), memory limit (MB) and longest input (bytes)
FUZZ_OPTS    := -timeout=20 -rss_limit_mb=2048 -max_len=65536 \
                -dict=$(CURDIR)/tests/fuzz/mjcf.dict -artifact_prefix=$(CURDIR)/$(FUZZ_DIR)/
# a single allocation over 1 GiB fails (returns NULL) instead of aborting, so that the loader's
# out-of-memory paths run: a load that fails with PX_ERR_NOMEM is a clean failure, not a finding
FUZZ_ENV     := ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:max_allocation_size_mb=1024 \
                UBSAN_OPTIONS=print_stacktrace=1
FUZZ_REGRESS := $(filter-out %README.md,$(wildcard tests/fuzz/regressions/*)) \
                $(wildcard tests/bad_mjcf/*.xml)

.PHONY: fuzz fuzz-build fuzz-regress

$(FUZZ_BIN): tests/fuzz/fuzz_mjcf.c $(CSRC_LIB) $(wildcard csrc/*/*.h csrc/include/px/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $< $(CSRC_LIB) $(LIBS) -o $@

fuzz-build: setup $(FUZZ_BIN)

# fork mode with -ignore_*: the run goes on after a failing input and keeps every artifact; at
# the end, the first crash and leak inputs are replayed to print their distinct reports
fuzz: fuzz-build
	@rm -rf $(FUZZ_DIR)/corpus $(FUZZ_DIR)/crash-* $(FUZZ_DIR)/leak-* $(FUZZ_DIR)/timeout-* \
	  $(FUZZ_DIR)/oom-* $(FUZZ_DIR)/slow-unit-* && mkdir -p $(FUZZ_DIR)/corpus
	@cp $(FUZZ_SEEDS) $(FUZZ_DIR)/corpus/
	@for s in $(FUZZ_EXTRA_SEEDS); do cp -r "$$s" $(FUZZ_DIR)/corpus/; done
	@echo "fuzz: $(FUZZ_SECONDS) s in $(FUZZ_JOBS) process(es); log in $(FUZZ_DIR)/fuzz.log"
	@cd tests/bad_mjcf && $(FUZZ_ENV) $(CURDIR)/$(FUZZ_BIN) $(FUZZ_OPTS) \
	  -max_total_time=$(FUZZ_SECONDS) -fork=$(FUZZ_JOBS) -ignore_crashes=1 -ignore_timeouts=1 \
	  -ignore_ooms=1 $(CURDIR)/$(FUZZ_DIR)/corpus >$(CURDIR)/$(FUZZ_DIR)/fuzz.log 2>&1; \
	  rc=$$?; grep -E '^#[0-9]+' $(CURDIR)/$(FUZZ_DIR)/fuzz.log | tail -n 1; \
	  grep -E '^INFO: fuzzed for|^INFO: exiting' $(CURDIR)/$(FUZZ_DIR)/fuzz.log; \
	  cd $(CURDIR)/$(FUZZ_DIR) && found=$$(ls | grep -E '^(crash|leak|timeout|oom)-' || true); \
	  if [ -z "$$found" ]; then echo "fuzz: no failing input"; exit $$rc; fi; \
	  echo "fuzz: $$(echo "$$found" | wc -l) failing inputs in $(FUZZ_DIR)/ (first 10):"; \
	  echo "$$found" | head -n 10; echo "fuzz: distinct reports of the first 30 crash/leak inputs:"; \
	  for a in $$(echo "$$found" | grep -E '^(crash|leak)-' | head -n 30); do \
	    (cd $(CURDIR)/tests/bad_mjcf && $(FUZZ_ENV) $(CURDIR)/$(FUZZ_BIN) -runs=1 \
	      $(CURDIR)/$(FUZZ_DIR)/$$a 2>&1 | grep -m 1 -E '^SUMMARY|^==[0-9]+== ?ERROR'); \
	  done | sed -E 's/==[0-9]+==/==/; s/ in $$//' | sort | uniq -c; exit 1

# each input in its own run, so that one failure does not hide the next
fuzz-regress: fuzz-build
	@cd tests/bad_mjcf && failed=0; for f in $(addprefix $(CURDIR)/,$(FUZZ_REGRESS)); do \
	  if ! $(FUZZ_ENV) $(CURDIR)/$(FUZZ_BIN) $(FUZZ_OPTS) -runs=1 "$$f" \
	      >$(CURDIR)/$(FUZZ_DIR)/regress.log 2>&1; then \
	    failed=$$((failed + 1)); echo "fuzz-regress: FAIL $${f#$(CURDIR)/}"; \
	    { grep -m 1 -E 'ERROR|runtime error' $(CURDIR)/$(FUZZ_DIR)/regress.log; \
	      grep -m 1 -E '^ +#[0-9]+ .*/csrc/' $(CURDIR)/$(FUZZ_DIR)/regress.log; } | sed 's/^ */    /'; \
	  fi; \
	done; echo "fuzz-regress: $(words $(FUZZ_REGRESS)) inputs, $$failed failing"; [ $$failed = 0 ]
