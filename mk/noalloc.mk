# SPDX-License-Identifier: Apache-2.0
# tests/c/test_noalloc.c counts the library's heap calls: the linker routes the library's
# references to the allocator through the test's __wrap_* functions
TEST_LIBS_test_noalloc := -Wl,--wrap=malloc -Wl,--wrap=calloc -Wl,--wrap=realloc \
                          -Wl,--wrap=free -Wl,--wrap=aligned_alloc -Wl,--wrap=posix_memalign
