// SPDX-License-Identifier: Apache-2.0
// The sparse structures of the compiled model and the constants mj_setConst derives from the tree
// and tendon topology alone (compile_sparse.c).
#ifndef PX_MJCF_COMPILE_SPARSE_H_
#define PX_MJCF_COMPILE_SPARSE_H_

#include "mjcf/spec.h"

// Sizes nC, nJten and nJmom; the sparse structures (B_*, M_*, D_*, mapM2D, mapD2M, mapM2M,
// ten_J_*); tendon_treenum/treeid, jnt_actuatorid, tendon_actuatorid, the automatic tree sleep
// policies and names_map, for a model whose other arrays are filled (simple bodies final, user
// sleep policies set). *m is replaced by a re-allocated model when nC or nJten change its layout;
// on error *m is still the caller's to free.
pxtStatus pxc_compileSparse(pxcCtx* c, pxModel** m);

#endif  // PX_MJCF_COMPILE_SPARSE_H_
