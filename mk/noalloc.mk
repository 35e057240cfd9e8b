# SPDX-License-Identifier: Apache-2.0
# the allocation tests (tests/c/test_noalloc.c, tests/c/test_task.c) count the library's heap
# calls: the linker routes the library's references to the allocator through the counting
# __wrap_* functions of tests/c/heapcount.h
HEAPCOUNT_LIBS := -Wl,--wrap=malloc -Wl,--wrap=calloc -Wl,--wrap=realloc \
                  -Wl,--wrap=free -Wl,--wrap=aligned_alloc -Wl,--wrap=posix_memalign
TEST_LIBS_test_noalloc := $(HEAPCOUNT_LIBS)
TEST_LIBS_test_task := $(HEAPCOUNT_LIBS)
