// SPDX-License-Identifier: Apache-2.0
// CPU entry points of the ray kernels (csrc/kern/ray.h): argument checks and the calls.
#include <math.h>
#include <string.h>

#include "kern/prelude_c.h"

#include "kern/ray.h"
#include "px/pxray.h"

static int finite3(const double v[3]) {
  return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

static pxtStatus checkRay(const char* fn, const double pnt[3], const double vec[3], pxStatus* st) {
  if (!finite3(pnt) || !finite3(vec)) {
    return PX_FAIL(st, PX_ERR_ARG,
                   "%s: pnt and vec must be finite, got pnt (%g, %g, %g) and "
                   "vec (%g, %g, %g)",
                   fn, pnt[0], pnt[1], pnt[2], vec[0], vec[1], vec[2]);
  }
  double len = sqrt(vec[0] * vec[0] + vec[1] * vec[1] + vec[2] * vec[2]);
  if (len < PXK_MINVAL) {
    return PX_FAIL(st, PX_ERR_ARG, "%s: vec length %g is too small (MuJoCo needs at least 1e-15)",
                   fn, len);
  }
  return PX_OK;
}

static void putNormal(double* out, const double n[3]) {
  if (out) memcpy(out, n, 3 * sizeof(double));
}

pxtStatus px_ray(const pxModel* m, pxData* d, const double pnt[3], const double vec[3],
                 const unsigned char* geomgroup, int flg_static, int bodyexclude, double* dist,
                 int* geomid, double normal[3], pxStatus* st) {
  pxtStatus code = checkRay("ray", pnt, vec, st);
  if (code != PX_OK) return code;
  int grp[6] = {1, 1, 1, 1, 1, 1};
  if (geomgroup) {
    for (int k = 0; k < 6; k++) grp[k] = geomgroup[k];
  }
  for (int g = 0; g < m->ngeom; g++) {
    if (m->geom_type[g] == PX_GEOM_SDF &&
        !pxk_rayEliminate(m, d, g, grp, geomgroup != NULL, flg_static != 0, bodyexclude)) {
      return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                     "ray: signed-distance-field geoms (geom %d) are not supported yet", g);
    }
  }
  int gid[1];
  double n[3];
  *dist = pxk_ray(m, d, pnt, vec, grp, geomgroup != NULL, flg_static != 0, bodyexclude, gid, n);
  *geomid = gid[0];
  putNormal(normal, n);
  return PX_OK;
}

pxtStatus px_rayGeom(const double pos[3], const double mat[9], const double size[3],
                     const double pnt[3], const double vec[3], int type, double* dist,
                     double normal[3], pxStatus* st) {
  if (type < PX_GEOM_PLANE || type > PX_GEOM_BOX || type == PX_GEOM_HFIELD) {
    return PX_FAIL(st, PX_ERR_ARG,
                   "rayGeom: geom type must be a primitive (plane 0, sphere 2, capsule 3, "
                   "ellipsoid 4, cylinder 5, box 6), got %d",
                   type);
  }
  double n[3];
  *dist = pxk_rayGeom(pos, mat, size, pnt, vec, type, n);
  putNormal(normal, n);
  return PX_OK;
}

static pxtStatus checkGeom(const pxModel* m, int g, int type, const char* fn, const char* what,
                           pxStatus* st) {
  if (g < 0 || g >= m->ngeom) {
    return PX_FAIL(st, PX_ERR_ARG, "%s: geom id %d out of range [0, %d)", fn, g, m->ngeom);
  }
  if (m->geom_type[g] != type) {
    return PX_FAIL(st, PX_ERR_ARG, "%s: geom %d must be a %s, got geom type %d", fn, g, what,
                   m->geom_type[g]);
  }
  return PX_OK;
}

pxtStatus px_rayMesh(const pxModel* m, pxData* d, int g, const double pnt[3], const double vec[3],
                     double* dist, double normal[3], pxStatus* st) {
  pxtStatus code = checkGeom(m, g, PX_GEOM_MESH, "rayMesh", "mesh", st);
  if (code != PX_OK) return code;
  double n[3];
  *dist = pxk_rayMesh(m, d, g, pnt, vec, n);
  putNormal(normal, n);
  return PX_OK;
}

pxtStatus px_rayHfield(const pxModel* m, pxData* d, int g, const double pnt[3], const double vec[3],
                       double* dist, double normal[3], pxStatus* st) {
  pxtStatus code = checkGeom(m, g, PX_GEOM_HFIELD, "rayHfield", "height field", st);
  if (code != PX_OK) return code;
  double n[3];
  *dist = pxk_rayHfield(m, d, g, pnt, vec, n);
  putNormal(normal, n);
  return PX_OK;
}
