// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the mesh file readers (STL, OBJ, MSH) behind the MJCF compiler: the first
// input byte picks the format and the mesh options, the rest is the file's content. It is
// written to a scratch file that a fixed MJCF model loads as a mesh asset (of a free body, so
// that mass, inertia and the convex hull are all computed). As for fuzz_mjcf.c, the load must
// succeed or fail with a status, and never crash, leak, hang or trip a sanitizer.
//
// Built and run by mk/fuzz.mk (`make fuzz-mesh`); the scratch file goes in $PX_FUZZ_SCRATCH
// (the build folder), one per process.
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mjcf/mjcf.h"
#include "px/pxmodel.h"
#include "px/pxstatus.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const char* const kExt[] = {"stl", "obj", "msh"};
  static const char* const kOptions[] = {"",
                                         "inertia=\"exact\"",
                                         "inertia=\"shell\"",
                                         "inertia=\"convex\" maxhullvert=\"6\"",
                                         "scale=\"-1 1 1\"",
                                         "refquat=\"0 1 0 0\" refpos=\"1 2 3\""};
  if (size < 1) return 0;
  const char* dir = getenv("PX_FUZZ_SCRATCH");
  char path[1024];
  snprintf(path, sizeof(path), "%s/mesh%d.%s", dir && dir[0] ? dir : "/tmp", (int)getpid(),
           kExt[data[0] % 3]);
  FILE* f = fopen(path, "wb");
  if (!f) return 0;
  fwrite(data + 1, 1, size - 1, f);
  fclose(f);

  char xml[2048];
  snprintf(xml, sizeof(xml),
           "<mujoco><asset><mesh name=\"m\" file=\"%s\" %s/></asset><worldbody><body>"
           "<freejoint/><geom type=\"mesh\" mesh=\"m\"/></body></worldbody></mujoco>",
           path, kOptions[(data[0] / 3) % 6]);
  pxStatus st;
  px_statusClear(&st);
  pxModel* m = NULL;
  pxtStatus code = pxc_loadXML(NULL, xml, &m, &st);
  if (code == PX_OK) {
    px_freeModel(m);
  } else if (m || !st.msg[0] ||
             (code != PX_ERR_MJCF && code != PX_ERR_UNSUPPORTED && code != PX_ERR_NOMEM)) {
    fprintf(stderr, "fuzz_meshfile: broken status (code %d, message '%.200s')\n", (int)code,
            st.msg);
    abort();
  }
  return 0;
}
