// SPDX-License-Identifier: Apache-2.0
// A small XML tree read with expat, with MuJoCo's <include> resolved in place.
#ifndef PX_MJCF_XML_H_
#define PX_MJCF_XML_H_

#include "px/pxstatus.h"

typedef struct pxcNode_ pxcNode;

typedef struct {
  char* name;
  char* value;
  int used;  // set when a reader consumes it; leftovers are "unknown attribute" errors
} pxcAttr;

struct pxcNode_ {
  char* name;
  const char* file;  // file the element was read from (owned by the document)
  int line;
  pxcAttr* attr;
  int nattr;
  pxcNode** child;
  int nchild;
  int capchild;
  pxcNode* parent;
};

typedef struct {
  pxcNode* root;
  char** files;  // every file name read (for messages and include-cycle detection)
  int nfile;
  char* dir;  // directory of the top-level file ("" for strings)
} pxcDoc;

// Read an MJCF file (or a string when path is NULL) with includes resolved. On failure
// returns an error status naming file:line and frees everything.
pxtStatus pxc_xmlRead(pxcDoc* doc, const char* path, const char* text, pxStatus* st);

// Free a document (zeroed or partially built documents are fine).
void pxc_xmlFree(pxcDoc* doc);

// Attribute value of a node, or NULL (marks the attribute used).
const char* pxc_xmlAttr(pxcNode* node, const char* name);

#endif  // PX_MJCF_XML_H_
