// SPDX-License-Identifier: Apache-2.0
// Expat reader: builds a pxcNode tree with file and line on every element, and splices the
// children of each <include file="..."/> target in place of the include element (as MuJoCo
// does). Include cycles, depth and size limits are checked here.
#include "mjcf/xml.h"

#include <expat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PXC_MAX_DEPTH 200          // element nesting
#define PXC_MAX_INCLUDE_DEPTH 16   // nested includes
#define PXC_MAX_FILE (256L << 20)  // bytes in one file

typedef struct {
  pxcDoc* doc;
  const char* file;
  XML_Parser parser;
  pxcNode* top;  // element being filled
  pxcNode* root;
  int depth;
  pxStatus* st;
  int failed;
} readCtx;

static char* dupStr(const char* s) {
  size_t n = strlen(s) + 1;
  char* r = (char*)malloc(n);
  if (r) memcpy(r, s, n);
  return r;
}

static void freeNode(pxcNode* n) {
  if (!n) return;
  for (int i = 0; i < n->nchild; i++) freeNode(n->child[i]);
  for (int i = 0; i < n->nattr; i++) {
    free(n->attr[i].name);
    free(n->attr[i].value);
  }
  free(n->attr);
  free(n->child);
  free(n->name);
  free(n);
}

static int addChild(pxcNode* parent, pxcNode* child) {
  if (parent->nchild == parent->capchild) {
    int cap = parent->capchild ? 2 * parent->capchild : 4;
    pxcNode** c = (pxcNode**)realloc(parent->child, sizeof(pxcNode*) * (size_t)cap);
    if (!c) return 0;
    parent->child = c;
    parent->capchild = cap;
  }
  parent->child[parent->nchild++] = child;
  child->parent = parent;
  return 1;
}

static void XMLCALL onStart(void* user, const char* name, const char** atts) {
  readCtx* c = (readCtx*)user;
  if (c->failed) return;
  int line = (int)XML_GetCurrentLineNumber(c->parser);
  if (++c->depth > PXC_MAX_DEPTH) {
    PX_FAIL(c->st, PX_ERR_MJCF, "%s:%d: <%s>: elements nested deeper than %d", c->file, line, name,
            PXC_MAX_DEPTH);
    c->failed = 1;
    XML_StopParser(c->parser, XML_FALSE);
    return;
  }
  pxcNode* n = (pxcNode*)calloc(1, sizeof(pxcNode));
  int natt = 0;
  while (atts[2 * natt]) natt++;
  if (n) {
    n->name = dupStr(name);
    n->file = c->file;
    n->line = line;
    n->attr = natt ? (pxcAttr*)calloc((size_t)natt, sizeof(pxcAttr)) : NULL;
    n->nattr = natt;
  }
  if (!n || !n->name || (natt && !n->attr)) {
    freeNode(n);
    PX_FAIL(c->st, PX_ERR_NOMEM, "%s:%d: out of memory", c->file, line);
    c->failed = 1;
    XML_StopParser(c->parser, XML_FALSE);
    return;
  }
  for (int i = 0; i < natt; i++) {
    n->attr[i].name = dupStr(atts[2 * i]);
    n->attr[i].value = dupStr(atts[2 * i + 1]);
  }
  if (c->top) {
    if (!addChild(c->top, n)) {
      freeNode(n);
      PX_FAIL(c->st, PX_ERR_NOMEM, "%s:%d: out of memory", c->file, line);
      c->failed = 1;
      XML_StopParser(c->parser, XML_FALSE);
      return;
    }
  } else {
    c->root = n;
  }
  c->top = n;
}

static void XMLCALL onEnd(void* user, const char* name) {
  (void)name;
  readCtx* c = (readCtx*)user;
  if (c->failed) return;
  c->depth--;
  c->top = c->top->parent;
}

// read a whole file into memory
static char* slurp(const char* path, long* len, pxStatus* st, const char* from, int fromline,
                   const char* shown) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    if (from) {
      PX_FAIL(st, PX_ERR_MJCF, "%s:%d: <include>: cannot open included file '%s' (as '%s')", from,
              fromline, shown, path);
    } else {
      PX_FAIL(st, PX_ERR_MJCF, "cannot open MJCF file '%s'", path);
    }
    return NULL;
  }
  char* buf = NULL;
  long n = 0, cap = 0;
  for (;;) {
    if (n == cap) {
      cap = cap ? 2 * cap : 65536;
      if (cap > PXC_MAX_FILE + 1) cap = PXC_MAX_FILE + 1;
      char* b = (char*)realloc(buf, (size_t)cap + 1);
      if (!b) {
        free(buf);
        fclose(f);
        PX_FAIL(st, PX_ERR_NOMEM, "out of memory reading '%s'", path);
        return NULL;
      }
      buf = b;
    }
    size_t r = fread(buf + n, 1, (size_t)(cap - n), f);
    n += (long)r;
    if (n > PXC_MAX_FILE) {
      free(buf);
      fclose(f);
      if (from) {
        PX_FAIL(st, PX_ERR_MJCF, "%s:%d: <include>: '%s' is larger than %ld bytes", from, fromline,
                shown, PXC_MAX_FILE);
      } else {
        PX_FAIL(st, PX_ERR_MJCF, "'%s' is larger than %ld bytes", path, PXC_MAX_FILE);
      }
      return NULL;
    }
    if (r == 0) break;
  }
  fclose(f);
  buf[n] = 0;
  *len = n;
  return buf;
}

// parse text into a tree; file is the name used in messages
static pxcNode* parseText(pxcDoc* doc, const char* file, const char* text, long len, int depth,
                          pxStatus* st) {
  readCtx c;
  memset(&c, 0, sizeof(c));
  c.depth = depth;  // elements above an included file count toward the nesting limit
  c.doc = doc;
  c.file = file;
  c.st = st;
  c.parser = XML_ParserCreate(NULL);
  if (!c.parser) {
    PX_FAIL(st, PX_ERR_NOMEM, "cannot create the XML parser");
    return NULL;
  }
  XML_SetUserData(c.parser, &c);
  XML_SetElementHandler(c.parser, onStart, onEnd);
  if (XML_Parse(c.parser, text, (int)len, 1) == XML_STATUS_ERROR && !c.failed) {
    PX_FAIL(st, PX_ERR_MJCF, "%s:%lu:%lu: XML error: %s", file,
            (unsigned long)XML_GetCurrentLineNumber(c.parser),
            (unsigned long)XML_GetCurrentColumnNumber(c.parser) + 1,
            XML_ErrorString(XML_GetErrorCode(c.parser)));
    c.failed = 1;
  }
  XML_ParserFree(c.parser);
  if (c.failed) {
    freeNode(c.root);
    return NULL;
  }
  if (!c.root) {
    PX_FAIL(st, PX_ERR_MJCF, "%s: empty XML document", file);
    return NULL;
  }
  return c.root;
}

static const char* addFile(pxcDoc* doc, const char* name) {
  char** f = (char**)realloc(doc->files, sizeof(char*) * (size_t)(doc->nfile + 1));
  if (!f) return NULL;
  doc->files = f;
  doc->files[doc->nfile] = dupStr(name);
  return doc->files[doc->nfile++];
}

// replace every <include> below node by the children of the included file's root
static pxtStatus expandIncludes(pxcDoc* doc, pxcNode* node, const char** chain, int nchain,
                                pxStatus* st) {
  for (int i = 0; i < node->nchild; i++) {
    pxcNode* ch = node->child[i];
    if (strcmp(ch->name, "include")) {
      pxtStatus s = expandIncludes(doc, ch, chain, nchain, st);
      if (s) return s;
      continue;
    }
    if (ch->nchild) {
      return PX_FAIL(st, PX_ERR_MJCF, "%s:%d: <include>: cannot have child elements", ch->file,
                     ch->line);
    }
    const char* fname = NULL;
    for (int a = 0; a < ch->nattr; a++) {
      if (!strcmp(ch->attr[a].name, "file")) {
        fname = ch->attr[a].value;
      } else {
        return PX_FAIL(st, PX_ERR_MJCF, "%s:%d: <include>: unknown attribute '%s'", ch->file,
                       ch->line, ch->attr[a].name);
      }
    }
    if (!fname || !fname[0]) {
      return PX_FAIL(st, PX_ERR_MJCF, "%s:%d: <include>: missing required attribute 'file'",
                     ch->file, ch->line);
    }
    char path[4096];
    if (fname[0] == '/' || !doc->dir[0]) {
      snprintf(path, sizeof(path), "%s", fname);
    } else {
      snprintf(path, sizeof(path), "%s/%s", doc->dir, fname);
    }
    for (int k = 0; k < nchain; k++) {
      if (!strcmp(chain[k], path)) {
        return PX_FAIL(st, PX_ERR_MJCF, "%s:%d: <include>: include cycle: '%s' includes itself",
                       ch->file, ch->line, fname);
      }
    }
    for (int k = 0; k < doc->nfile; k++) {
      if (!strcmp(doc->files[k], path)) {
        return PX_FAIL(st, PX_ERR_MJCF, "%s:%d: <include>: file '%s' already included", ch->file,
                       ch->line, fname);
      }
    }
    if (nchain >= PXC_MAX_INCLUDE_DEPTH) {
      return PX_FAIL(st, PX_ERR_MJCF, "%s:%d: <include>: includes nested deeper than %d", ch->file,
                     ch->line, PXC_MAX_INCLUDE_DEPTH);
    }
    long len = 0;
    char* text = slurp(path, &len, st, ch->file, ch->line, fname);
    if (!text) return st->code;
    const char* stored = addFile(doc, path);
    if (!stored) {
      free(text);
      return PX_FAIL(st, PX_ERR_NOMEM, "out of memory");
    }
    int depth = 0;
    for (const pxcNode* p = node; p; p = p->parent) depth++;
    pxcNode* sub = parseText(doc, stored, text, len, depth, st);
    free(text);
    if (!sub) return st->code;
    if (strcmp(sub->name, "mujoco")) {
      pxtStatus s = PX_FAIL(st, PX_ERR_MJCF,
                            "%s:%d: <include>: included file '%s' must have a <mujoco> root "
                            "element, not <%s>",
                            ch->file, ch->line, fname, sub->name);
      freeNode(sub);
      return s;
    }
    chain[nchain] = stored;
    pxtStatus s = expandIncludes(doc, sub, chain, nchain + 1, st);
    if (s) {
      freeNode(sub);
      return s;
    }

    // splice: the include's slot takes the included children
    int nnew = node->nchild - 1 + sub->nchild;
    pxcNode** c = (pxcNode**)malloc(sizeof(pxcNode*) * (size_t)(nnew ? nnew : 1));
    if (!c) {
      freeNode(sub);
      return PX_FAIL(st, PX_ERR_NOMEM, "out of memory");
    }
    int k = 0, nspliced = sub->nchild;
    for (int j = 0; j < i; j++) c[k++] = node->child[j];
    for (int j = 0; j < sub->nchild; j++) {
      c[k++] = sub->child[j];
      sub->child[j]->parent = node;
    }
    for (int j = i + 1; j < node->nchild; j++) c[k++] = node->child[j];
    free(node->child);
    node->child = c;
    node->nchild = nnew;
    node->capchild = nnew;
    sub->nchild = 0;
    freeNode(sub);
    freeNode(ch);
    i += nspliced - 1;  // the spliced children were expanded above
  }
  return PX_OK;
}

pxtStatus pxc_xmlRead(pxcDoc* doc, const char* path, const char* text, pxStatus* st) {
  memset(doc, 0, sizeof(*doc));
  long len = 0;
  char* owned = NULL;
  const char* name = "<string>";
  if (path) {
    owned = slurp(path, &len, st, NULL, 0, path);
    if (!owned) return st->code;
    text = owned;
    name = path;
    const char* slash = strrchr(path, '/');
    doc->dir = dupStr(path);
    if (doc->dir) doc->dir[slash ? slash - path : 0] = 0;
    if (doc->dir && !slash) doc->dir[0] = 0;
  } else {
    if (!text) return PX_FAIL(st, PX_ERR_ARG, "no MJCF text given");
    size_t n = strlen(text);
    if (n > (size_t)PXC_MAX_FILE) {
      return PX_FAIL(st, PX_ERR_MJCF, "MJCF text of %zu bytes is larger than %ld bytes", n,
                     PXC_MAX_FILE);
    }
    len = (long)n;
    doc->dir = dupStr("");
  }
  const char* stored = addFile(doc, name);
  if (!doc->dir || !stored) {
    free(owned);
    pxc_xmlFree(doc);
    return PX_FAIL(st, PX_ERR_NOMEM, "out of memory");
  }
  doc->root = parseText(doc, stored, text, len, 0, st);
  free(owned);
  if (!doc->root) {
    pxtStatus s = st->code;
    pxc_xmlFree(doc);
    return s;
  }
  const char* chain[PXC_MAX_INCLUDE_DEPTH + 1];
  chain[0] = stored;
  pxtStatus s = expandIncludes(doc, doc->root, chain, 1, st);
  if (s) pxc_xmlFree(doc);
  return s;
}

void pxc_xmlFree(pxcDoc* doc) {
  freeNode(doc->root);
  for (int i = 0; i < doc->nfile; i++) free(doc->files[i]);
  free(doc->files);
  free(doc->dir);
  memset(doc, 0, sizeof(*doc));
}

const char* pxc_xmlAttr(pxcNode* node, const char* name) {
  for (int i = 0; i < node->nattr; i++) {
    if (!strcmp(node->attr[i].name, name)) {
      node->attr[i].used = 1;
      return node->attr[i].value;
    }
  }
  return NULL;
}
