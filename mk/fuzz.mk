# SPDX-License-Identifier: Apache-2.0
# libFuzzer for the MJCF front end, built with clang under ASan, UBSan and LeakSanitizer:
# tests/fuzz/fuzz_mjcf.c takes each input as MJCF text; tests/fuzz/fuzz_meshfile.c takes it as a
# mesh file (STL, OBJ, MSH) that a fixed model loads.
#
#   make fuzz                   fuzz MJCF text for FUZZ_SECONDS (default 600) from fresh seeds
#   make fuzz FUZZ_SECONDS=60   a shorter run; FUZZ_JOBS=2 fuzzes in two processes
#   make fuzz-mesh              the same for mesh files
#   make fuzz-regress           replay tests/fuzz/regressions/*.xml and tests/bad_mjcf/*.xml once each
#
# Corpora live in build/fuzz/corpus and build/fuzz/mesh/corpus, seeded from tests/bad_mjcf and
# ../shared/models/gymnasium (plus FUZZ_EXTRA_SEEDS, files or folders), resp. from the mesh files
# of tests/bad_mjcf/assets, tests/fuzz/regressions/assets and ../shared/models/mujoco; nothing is
# written into the repository. Inputs that fail are written next to the corpus as crash-*,
# leak-*, timeout-*, oom-*; the run goes on after each one and ends by listing them with their
# distinct reports. Minimize one and keep it as a regression input (see
# tests/fuzz/regressions/README.md):
#   cd tests/bad_mjcf && ../../build/fuzz/fuzz_mjcf -minimize_crash=1 -runs=20000 \
#       -exact_artifact_path=../fuzz/regressions/NAME.xml ../../build/fuzz/crash-...
# MJCF text has no folder of its own: its include and mesh files are relative to the working
# directory, so the MJCF fuzzer runs from tests/bad_mjcf, where the seeds' files resolve.
#
# Every sanitizer report stops the input and counts. While a known report is being fixed,
# FUZZ_RECOVER=<UBSan checks> (e.g. pointer-overflow) builds second binaries in which those
# checks print and go on, so that fuzzing can look past them.

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 600
FUZZ_JOBS    ?= 1
FUZZ_RECOVER ?=
FUZZ_EXTRA_SEEDS ?=
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_SUFFIX  := $(if $(FUZZ_RECOVER),_recover)
FUZZ_BIN     := $(FUZZ_DIR)/fuzz_mjcf$(FUZZ_SUFFIX)
FUZZ_MESH_BIN := $(FUZZ_DIR)/fuzz_meshfile$(FUZZ_SUFFIX)
FUZZ_SEEDS   := $(wildcard tests/bad_mjcf/*.xml) $(wildcard $(CURDIR)/../shared/models/gymnasium/*.xml)
FUZZ_MESH_SEEDS = $(wildcard tests/bad_mjcf/assets/*.stl tests/bad_mjcf/assets/*.obj \
                  tests/fuzz/regressions/assets/*) \
                  $(shell find $(CURDIR)/../shared/models/mujoco -size -64k \( -name '*.stl' \
                    -o -name '*.obj' -o -name '*.msh' \) 2>/dev/null | sort)
# clang warns about other things than gcc: warnings stay on, but do not fail this build
FUZZ_CFLAGS  := $(filter-out -Werror,$(CFLAGS_COMMON)) -O1 -g -fno-omit-frame-pointer \
                -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
                $(if $(FUZZ_RECOVER),-fsanitize-recover=$(FUZZ_RECOVER))
# per-input time limit (s) and memory limit (MB)
FUZZ_OPTS    := -timeout=20 -rss_limit_mb=2048
# a single allocation over 1 GiB fails (returns NULL) instead of aborting, so that the loader's
# out-of-memory paths run: a load that fails with PX_ERR_NOMEM is a clean failure, not a finding
FUZZ_ENV     := ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:max_allocation_size_mb=1024 \
                UBSAN_OPTIONS=print_stacktrace=1
FUZZ_REGRESS := $(wildcard tests/fuzz/regressions/*.xml) $(wildcard tests/bad_mjcf/*.xml)
FUZZ_DEPS    := $(CSRC_LIB) $(wildcard csrc/*/*.h csrc/include/px/*.h)

.PHONY: fuzz fuzz-build fuzz-mesh fuzz-regress

$(FUZZ_DIR)/fuzz_%$(FUZZ_SUFFIX): tests/fuzz/fuzz_%.c $(FUZZ_DEPS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $< $(CSRC_LIB) $(LIBS) -o $@

fuzz-build: setup $(FUZZ_BIN) $(FUZZ_MESH_BIN)

# fuzzRun(binary, working directory, output folder, options, environment): fork mode with -ignore_*, so
# that the run goes on after a failing input and keeps every artifact; at the end, the first
# crash and leak inputs are replayed to print their distinct reports
define fuzzRun
	@echo "fuzz: $(FUZZ_SECONDS) s in $(FUZZ_JOBS) process(es); log in $(3)/fuzz.log"
	@cd $(2) && $(5) $(FUZZ_ENV) $(CURDIR)/$(1) $(FUZZ_OPTS) $(4) -artifact_prefix=$(CURDIR)/$(3)/ \
	  -max_total_time=$(FUZZ_SECONDS) -fork=$(FUZZ_JOBS) -ignore_crashes=1 -ignore_timeouts=1 \
	  -ignore_ooms=1 $(CURDIR)/$(3)/corpus >$(CURDIR)/$(3)/fuzz.log 2>&1; \
	  rc=$$?; grep -E '^#[0-9]+' $(CURDIR)/$(3)/fuzz.log | tail -n 1; \
	  grep -E '^INFO: fuzzed for|^INFO: exiting' $(CURDIR)/$(3)/fuzz.log; \
	  found=$$(ls $(CURDIR)/$(3) | grep -E '^(crash|leak|timeout|oom)-' || true); \
	  if [ -z "$$found" ]; then echo "fuzz: no failing input"; exit $$rc; fi; \
	  echo "fuzz: $$(echo "$$found" | wc -l) failing inputs in $(3)/ (first 10):"; \
	  echo "$$found" | head -n 10; echo "fuzz: distinct reports of the first 30 crash/leak inputs:"; \
	  for a in $$(echo "$$found" | grep -E '^(crash|leak)-' | head -n 30); do \
	    $(5) $(FUZZ_ENV) $(CURDIR)/$(1) -runs=1 $(CURDIR)/$(3)/$$a 2>&1 | \
	      grep -m 1 -E '^SUMMARY|^==[0-9]+== ?ERROR'; \
	  done | sed -E 's/==[0-9]+==/==/; s/ in $$//' | sort | uniq -c; exit 1
endef

fuzz: fuzz-build
	@rm -rf $(FUZZ_DIR)/corpus $(FUZZ_DIR)/crash-* $(FUZZ_DIR)/leak-* $(FUZZ_DIR)/timeout-* \
	  $(FUZZ_DIR)/oom-* $(FUZZ_DIR)/slow-unit-* && mkdir -p $(FUZZ_DIR)/corpus
	@cp $(FUZZ_SEEDS) $(FUZZ_DIR)/corpus/
	@for s in $(FUZZ_EXTRA_SEEDS); do cp -r "$$s" $(FUZZ_DIR)/corpus/; done
	$(call fuzzRun,$(FUZZ_BIN),tests/bad_mjcf,$(FUZZ_DIR),-max_len=65536 \
	  -dict=$(CURDIR)/tests/fuzz/mjcf.dict,)

# a seed is one byte for the format (0 STL, 1 OBJ, 2 MSH) followed by the file's content
fuzz-mesh: fuzz-build
	@rm -rf $(FUZZ_DIR)/mesh && mkdir -p $(FUZZ_DIR)/mesh/corpus $(FUZZ_DIR)/mesh/scratch
	@i=0; for s in $(FUZZ_MESH_SEEDS); do i=$$((i + 1)); \
	  case "$$s" in *.stl|*.STL) p='\000';; *.obj|*.OBJ) p='\001';; *) p='\002';; esac; \
	  { printf "$$p"; cat "$$s"; } >$(FUZZ_DIR)/mesh/corpus/seed$$i; done
	$(call fuzzRun,$(FUZZ_MESH_BIN),$(FUZZ_DIR)/mesh,$(FUZZ_DIR)/mesh,-max_len=262144,\
	  PX_FUZZ_SCRATCH=$(CURDIR)/$(FUZZ_DIR)/mesh/scratch)

# each input in its own run, so that one failure does not hide the next, and from its own
# folder, so that its include and mesh files resolve as they do when the file is loaded by path
fuzz-regress: fuzz-build
	@failed=0; for f in $(addprefix $(CURDIR)/,$(FUZZ_REGRESS)); do \
	  if ! (cd "$$(dirname "$$f")" && $(FUZZ_ENV) $(CURDIR)/$(FUZZ_BIN) $(FUZZ_OPTS) -runs=1 "$$f" \
	      >$(CURDIR)/$(FUZZ_DIR)/regress.log 2>&1); then \
	    failed=$$((failed + 1)); echo "fuzz-regress: FAIL $${f#$(CURDIR)/}"; \
	    { grep -m 1 -E 'ERROR|runtime error' $(CURDIR)/$(FUZZ_DIR)/regress.log; \
	      grep -m 1 -E '^ +#[0-9]+ .*/csrc/' $(CURDIR)/$(FUZZ_DIR)/regress.log; } | sed 's/^ */    /'; \
	  fi; \
	done; echo "fuzz-regress: $(words $(FUZZ_REGRESS)) inputs, $$failed failing"; [ $$failed = 0 ]
