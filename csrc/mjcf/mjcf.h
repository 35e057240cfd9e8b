// SPDX-License-Identifier: Apache-2.0
// The MJCF front end in one call: read the document (includes resolved), parse it into a spec
// and compile the spec into a model.
#ifndef PX_MJCF_MJCF_H_
#define PX_MJCF_MJCF_H_

#include "px/pxmodel.h"
#include "px/pxstatus.h"

// Load an MJCF model from the file at path, or from text when path is NULL (mesh files are then
// relative to the working directory). On success *out owns the model (px_freeModel); on failure
// *out is NULL and st says why (PX_ERR_MJCF with file:line, PX_ERR_UNSUPPORTED, ...).
pxtStatus pxc_loadXML(const char* path, const char* text, pxModel** out, pxStatus* st);

#endif  // PX_MJCF_MJCF_H_
