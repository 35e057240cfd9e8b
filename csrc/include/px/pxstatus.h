// SPDX-License-Identifier: Apache-2.0
// Status codes and the status record every fallible phalanx function fills in.
#ifndef PX_INCLUDE_PX_PXSTATUS_H_
#define PX_INCLUDE_PX_PXSTATUS_H_

typedef enum {
  PX_OK = 0,
  PX_ERR_ARG,          // bad argument at an API boundary
  PX_ERR_NOMEM,        // allocation failed
  PX_ERR_ARENA,        // per-world arena too small
  PX_ERR_MJCF,         // malformed or invalid MJCF (message has file:line)
  PX_ERR_UNSUPPORTED,  // valid MuJoCo input that phalanx does not support yet
  PX_ERR_VULKAN,       // Vulkan unavailable or failed
  PX_ERR_INTERNAL      // broken internal invariant
} pxtStatus;

typedef struct {
  pxtStatus code;
  char msg[1024];
  const char* func;  // C function that set the status
  int line;          // C source line that set the status
} pxStatus;

// Set st (may be NULL) and return code, so that `return PX_FAIL(st, ...)` reads naturally.
pxtStatus px_fail(pxStatus* st, pxtStatus code, const char* func, int line, const char* fmt, ...)
    __attribute__((format(printf, 5, 6)));

#define PX_FAIL(st, code, ...) px_fail((st), (code), __func__, __LINE__, __VA_ARGS__)

// Reset a status record to PX_OK.
void px_statusClear(pxStatus* st);

#endif  // PX_INCLUDE_PX_PXSTATUS_H_
