// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the MJCF front end: every input is taken as MJCF text and loaded with
// pxc_loadXML, which must either return a model (freed here) or fail with a status that names
// what is wrong. Whatever the bytes, it must not crash, leak (LeakSanitizer), hang (-timeout),
// or trip AddressSanitizer or UndefinedBehaviorSanitizer.
//
// Built and run by mk/fuzz.mk (`make fuzz`, `make fuzz-regress`) with
//   clang -fsanitize=fuzzer,address,undefined
// from the directory tests/bad_mjcf, so that the include and mesh file names in the seed corpus
// resolve (MJCF text has no directory of its own: its files are relative to the working
// directory). Nothing is ever written by the target.
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mjcf/mjcf.h"
#include "px/pxmodel.h"
#include "px/pxstatus.h"

// a failed invariant of the loader's contract: abort so that libFuzzer records the input
static void contractBroken(const char* what, const pxStatus* st) {
  fprintf(stderr, "fuzz_mjcf: %s (code %d, message '%.200s')\n", what, (int)st->code, st->msg);
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // the text stops at the first NUL, as a C string does (and as Python's str argument cannot
  // contain one); the rest of the input is ignored
  char* text = (char*)malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = 0;

  pxStatus st;
  px_statusClear(&st);
  pxModel* m = (pxModel*)(uintptr_t)1;  // must be overwritten on every path
  pxtStatus code = pxc_loadXML(NULL, text, &m, &st);

  // the contract of pxc_loadXML (csrc/mjcf/mjcf.h)
  if (code != st.code) contractBroken("returned code differs from the status code", &st);
  if (code == PX_OK) {
    if (!m) contractBroken("success without a model", &st);
    px_freeModel(m);
  } else {
    if (m) contractBroken("failure with a model", &st);
    if (memchr(st.msg, 0, sizeof(st.msg)) == NULL) {
      contractBroken("status message is not terminated", &st);
    }
    if (!st.msg[0]) contractBroken("failure without a message", &st);
    if (code != PX_ERR_MJCF && code != PX_ERR_UNSUPPORTED && code != PX_ERR_NOMEM) {
      contractBroken("failure with an unexpected status code", &st);
    }
  }
  free(text);
  return 0;
}
