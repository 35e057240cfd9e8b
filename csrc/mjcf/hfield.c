// SPDX-License-Identifier: Apache-2.0
// Height fields (mjCHField::Compile): the name falls back to the file's stem, sizes must be
// positive, elevation comes from the XML or from a file in MuJoCo's binary format (two int32
// dimensions, then nrow x ncol float32 samples; PNG files are not supported yet), and the
// samples are normalized to [0, 1].
//   reads:  c->spec->hfield, compiler meshdir, strippath, the model's directory (c->doc->dir)
//   writes: c->spec->hfield[i].name, nrow, ncol, data
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mjcf/spec.h"

#define PXC_MAX_HFIELD_SAMPLES (1 << 26)

static pxtStatus hfError(pxcCtx* c, const pxcHfield* h, pxtStatus code, const char* msg,
                         const char* detail) {
  return PX_FAIL(c->st, code, "%s:%d: <hfield>: %s%s%s", h->src.file, h->src.line, msg,
                 detail[0] ? " " : "", detail);
}

// file name without directory
static const char* baseName(const char* file) {
  const char* a = strrchr(file, '/');
  const char* b = strrchr(file, '\\');
  return a && (!b || a > b) ? a + 1 : b ? b + 1 : file;
}

// read MuJoCo's custom binary format
static pxtStatus loadCustom(pxcCtx* c, pxcHfield* h, const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) return hfError(c, h, PX_ERR_MJCF, "could not read hfield file", path);
  int dims[2] = {0, 0};
  pxtStatus code = PX_OK;
  if (fread(dims, sizeof(int), 2, f) != 2) {
    code = hfError(c, h, PX_ERR_MJCF, "hfield missing header in file", path);
  } else if (dims[0] < 1 || dims[1] < 1) {
    code = hfError(c, h, PX_ERR_MJCF, "non-positive hfield dimensions in file", path);
  } else if (dims[0] > PXC_MAX_HFIELD_SAMPLES / dims[1]) {
    code = hfError(c, h, PX_ERR_MJCF, "hfield dimensions too large in file", path);
  } else {
    size_t n = (size_t)dims[0] * (size_t)dims[1];
    h->data = (float*)malloc(n * sizeof(float));
    char extra;
    if (!h->data) {
      code = PX_FAIL(c->st, PX_ERR_NOMEM, "out of memory reading '%s'", path);
    } else if (fread(h->data, sizeof(float), n, f) != n || fread(&extra, 1, 1, f) == 1) {
      code = hfError(c, h, PX_ERR_MJCF, "unexpected file size in file", path);
    } else {
      h->nrow = dims[0];
      h->ncol = dims[1];
      for (size_t i = 0; i < n && code == PX_OK; i++) {
        if (!isfinite(h->data[i])) code = hfError(c, h, PX_ERR_MJCF, "non-finite sample in", path);
      }
    }
  }
  fclose(f);
  return code;
}

static pxtStatus compileOne(pxcCtx* c, pxcHfield* h) {
  const pxcSpec* s = c->spec;

  // name from the file when missing
  if (!h->name[0] && h->file[0]) {
    const char* base = baseName(h->file);
    size_t len = strlen(base);
    if (len >= sizeof(h->name)) {
      return hfError(c, h, PX_ERR_MJCF, "file name too long to name the height field", "");
    }
    memcpy(h->name, base, len + 1);
    char* dot = strrchr(h->name, '.');
    if (dot) *dot = 0;
  }
  for (int i = 0; i < 4; i++) {
    if (h->size[i] <= 0) return hfError(c, h, PX_ERR_MJCF, "size parameter is not positive", "");
  }

  // from a file, resolved as meshes are: model directory, then meshdir
  if (h->file[0]) {
    if (h->nrow || h->ncol || h->data) {
      return hfError(c, h, PX_ERR_MJCF, "hfield specified from file and manually", "");
    }
    const char* file = s->strippath ? baseName(h->file) : h->file;
    size_t len = strlen(file);
    if (len >= 4 && !strcmp(file + len - 4, ".png")) {
      return hfError(c, h, PX_ERR_UNSUPPORTED, "PNG height fields are not supported yet:", file);
    }
    const char* dir = c->doc && c->doc->dir ? c->doc->dir : "";
    char path[4096];
    if (file[0] == '/') {
      snprintf(path, sizeof(path), "%s", file);
    } else if (s->meshdir[0] == '/') {
      snprintf(path, sizeof(path), "%s/%s", s->meshdir, file);
    } else {
      snprintf(path, sizeof(path), "%s%s%s%s%s", dir, dir[0] ? "/" : "", s->meshdir,
               s->meshdir[0] ? "/" : "", file);
    }
    pxtStatus code = loadCustom(c, h, path);
    if (code) return code;
  }
  if (h->nrow < 1 || h->ncol < 1 || !h->data) {
    return hfError(c, h, PX_ERR_MJCF, "hfield not specified", "");
  }

  // normalize to [0, 1] in float, as MuJoCo does
  int n = h->nrow * h->ncol;
  float emin = 1e10f, emax = -1e10f;
  for (int i = 0; i < n; i++) {
    emin = fminf(emin, h->data[i]);
    emax = fmaxf(emax, h->data[i]);
  }
  if (emin > emax) return hfError(c, h, PX_ERR_MJCF, "invalid data range in hfield", h->file);
  for (int i = 0; i < n; i++) {
    h->data[i] -= emin;
    if (emax - emin > 1e-14) h->data[i] /= (emax - emin);
  }
  return PX_OK;
}

pxtStatus pxc_compileHfields(pxcCtx* c) {
  for (int i = 0; i < c->spec->nhfield; i++) {
    pxtStatus code = compileOne(c, c->spec->hfield + i);
    if (code) return code;
  }
  return PX_OK;
}
