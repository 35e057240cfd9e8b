// SPDX-License-Identifier: Apache-2.0
// Counting heap wrappers for the allocation tests of tests/c (test_noalloc, test_task): a test
// binary linked with -Wl,--wrap=malloc,calloc,realloc,free,aligned_alloc,posix_memalign (its
// mk/*.mk sets TEST_LIBS_<test> to $(HEAPCOUNT_LIBS)) routes the library's heap calls through
// these wrappers, which count them in nheap. Include in exactly one file of a test binary.
#ifndef PX_TESTS_C_HEAPCOUNT_H_
#define PX_TESTS_C_HEAPCOUNT_H_

#include <stddef.h>

void* __real_malloc(size_t n);
void* __real_calloc(size_t n, size_t size);
void* __real_realloc(void* p, size_t n);
void __real_free(void* p);
void* __real_aligned_alloc(size_t align, size_t n);
int __real_posix_memalign(void** p, size_t align, size_t n);

static long nheap = 0;  // heap calls (allocations, reallocations and frees) so far

void* __wrap_malloc(size_t n) {
  nheap++;
  return __real_malloc(n);
}
void* __wrap_calloc(size_t n, size_t size) {
  nheap++;
  return __real_calloc(n, size);
}
void* __wrap_realloc(void* p, size_t n) {
  nheap++;
  return __real_realloc(p, n);
}
void __wrap_free(void* p) {
  nheap++;
  __real_free(p);
}
void* __wrap_aligned_alloc(size_t align, size_t n) {
  nheap++;
  return __real_aligned_alloc(align, n);
}
int __wrap_posix_memalign(void** p, size_t align, size_t n) {
  nheap++;
  return __real_posix_memalign(p, align, n);
}

#endif  // PX_TESTS_C_HEAPCOUNT_H_
