# SPDX-License-Identifier: Apache-2.0
# tests/c/test_task.c counts the library's heap calls during the task entries, as test_noalloc
TEST_LIBS_test_task := -Wl,--wrap=malloc -Wl,--wrap=calloc -Wl,--wrap=realloc \
                       -Wl,--wrap=free -Wl,--wrap=aligned_alloc -Wl,--wrap=posix_memalign
