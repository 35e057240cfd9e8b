# SPDX-License-Identifier: Apache-2.0
# make lint-out: the dynamic PX_OUT lint (scripts/check_px_out.py, docs/kernel_dialect.md): the
# extension built from a copy of csrc/ whose kernel out arrays are poisoned on entry, as GLSL
# leaves them, and a subset of the CPU tests run against it (about 6 minutes on 2 cores; not
# part of `make test`). The build lives in a temporary directory, never in the tree.
.PHONY: lint-out
lint-out: setup
	$(PY) scripts/check_px_out.py $(LINT_OUT_ARGS)
