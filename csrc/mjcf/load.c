// SPDX-License-Identifier: Apache-2.0
// pxc_loadXML: document -> spec -> model, freeing every intermediate on every path.
#include "mjcf/mjcf.h"

#include <string.h>

#include "mjcf/spec.h"
#include "mjcf/xml.h"

pxtStatus pxc_loadXML(const char* path, const char* text, pxModel** out, pxStatus* st) {
  if (out) *out = NULL;
  if (!out || !st) return PX_FAIL(st, PX_ERR_ARG, "pxc_loadXML: out and st are required");
  if (!path && !text) return PX_FAIL(st, PX_ERR_ARG, "pxc_loadXML: no path and no text");
  px_statusClear(st);

  // read the document, parse it, compile the spec
  pxcDoc doc;
  pxcSpec spec;
  memset(&doc, 0, sizeof(doc));
  memset(&spec, 0, sizeof(spec));
  pxcCtx ctx;
  memset(&ctx, 0, sizeof(ctx));
  ctx.st = st;
  ctx.spec = &spec;
  ctx.doc = &doc;
  pxtStatus code = pxc_xmlRead(&doc, path, text, st);
  if (code == PX_OK) code = pxc_parse(&ctx, doc.root);
  if (code == PX_OK) code = pxc_compile(&ctx, out);

  // the spec points into the document (file names): free it first
  pxc_freeSpec(&spec);
  pxc_xmlFree(&doc);
  return code;
}
