// SPDX-License-Identifier: Apache-2.0
// Ray casting (MuJoCo 3.12's engine_ray.c; CPU executor of csrc/kern/ray.h, csrc/engine/ray.c).
// Distances are along vec in units of |vec|; -1 means no hit. Normals are unit surface normals
// at the hit in world coordinates, zeros without a hit; normal may be NULL.
#ifndef PX_PXRAY_H_
#define PX_PXRAY_H_

#include "px/pxdata.h"
#include "px/pxmodel.h"
#include "px/pxstatus.h"

// mj_ray: the nearest geom hit by pnt + x vec, x >= 0, among the visible geoms (alpha of the
// geom's or its material's rgba nonzero) not on body bodyexclude, not static unless flg_static,
// and in a group whose geomgroup flag (6 entries, NULL: all groups) is nonzero. *dist gets the
// distance (-1: none), *geomid the geom (-1: none). PX_ERR_ARG for a NaN or infinite pnt or vec
// and a vec shorter than mjMINVAL (MuJoCo's error); PX_ERR_UNSUPPORTED for a model with
// signed-distance-field geoms the ray could reach.
pxtStatus px_ray(const pxModel* m, pxData* d, const double pnt[3], const double vec[3],
                 const unsigned char* geomgroup, int flg_static, int bodyexclude, double* dist,
                 int* geomid, double normal[3], pxStatus* st);

// mju_rayGeom: a primitive (plane, sphere, capsule, ellipsoid, cylinder, box) of pose (pos, mat)
// and size; PX_ERR_ARG for another type
pxtStatus px_rayGeom(const double pos[3], const double mat[9], const double size[3],
                     const double pnt[3], const double vec[3], int type, double* dist,
                     double normal[3], pxStatus* st);

// mj_rayMesh and mj_rayHfield: geom g of the model (PX_ERR_ARG for another geom type)
pxtStatus px_rayMesh(const pxModel* m, pxData* d, int g, const double pnt[3], const double vec[3],
                     double* dist, double normal[3], pxStatus* st);
pxtStatus px_rayHfield(const pxModel* m, pxData* d, int g, const double pnt[3], const double vec[3],
                       double* dist, double normal[3], pxStatus* st);

#endif  // PX_PXRAY_H_
