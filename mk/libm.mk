# SPDX-License-Identifier: Apache-2.0
# tests/c/test_libm.c checks csrc/kern/libm.h against MPFR
TEST_LIBS_test_libm := -lmpfr -lgmp
