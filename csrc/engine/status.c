// SPDX-License-Identifier: Apache-2.0
// Status records: errors are values, never exit or abort.
#include "px/pxstatus.h"

#include <stdarg.h>
#include <stdio.h>

pxtStatus px_fail(pxStatus* st, pxtStatus code, const char* func, int line, const char* fmt, ...) {
  if (st) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st->msg, sizeof(st->msg), fmt, ap);
    va_end(ap);
    st->code = code;
    st->func = func;
    st->line = line;
  }
  return code;
}

void px_statusClear(pxStatus* st) {
  if (st) {
    st->code = PX_OK;
    st->msg[0] = 0;
    st->func = 0;
    st->line = 0;
  }
}
