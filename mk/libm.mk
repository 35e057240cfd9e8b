# SPDX-License-Identifier: Apache-2.0
# tests/c/test_libm.c checks csrc/kern/libm.h against correctly rounded MPFR values
TEST_LIBS_test_libm := -lmpfr -lgmp

# the same test on the fp32 variant of the kernels (not part of test-c; it needs no library
# sources): make build/c/test_libm_fp32 && ./build/c/test_libm_fp32
$(BUILD)/c/test_libm_fp32: tests/c/test_libm.c csrc/kern/libm.h csrc/kern/prelude_c.h tests/c/harness.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) $(SANFLAGS) -O1 -DPX_FP32 -Itests/c $< -lmpfr -lgmp -lm -o $@
