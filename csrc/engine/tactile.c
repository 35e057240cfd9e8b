// SPDX-License-Identifier: Apache-2.0
// The tactile sensor (MuJoCo 3.12's mjSENS_TACTILE case of mj_sensorAcc and its taxel loop), CPU
// only. Its taxels are the vertices of a mesh placed by a geom's frame; for every geom in contact
// with that geom's weld body, a taxel inside the other geom reads its penetration depth from the
// other geom's signed distance (channel 0: the largest over the geoms) and, where the mesh has
// per-vertex frames (builtin wedge and plate: mesh_taxelframe), the absolute tangential slip
// velocities along the two tangents (channels 1 and 2: summed over the geoms). The signed
// distances are MuJoCo's analytic ones (mjc_distance on a single geom) for plane, sphere,
// capsule, ellipsoid, cylinder and box, with the same floating-point operations. Mesh geoms have
// no octree in any model phalanx loads (MuJoCo builds one only for meshes of sdf geoms, which
// phalanx refuses), so they are skipped exactly as MuJoCo skips meshes without one; the compiler
// refuses models whose height fields could touch the sensor (MuJoCo has no distance for them).
//
// Scratch: the tail of the world's collision scratch (px_tactileScratchReals/Ints more values
// than the collision code uses), so the step allocates nothing.
#include <math.h>

#include "kern/prelude_c.h"
#include "kern/libm.h"
#include "kern/spatial.h"

static int isTactile(const pxModel* m, int i) {
  return m->sensor_type[i] == PX_SENS_TACTILE;
}

long px_tactileScratchReals(const pxModel* m) {
  long n = 0;
  for (int i = 0; i < m->nsensor; i++) {
    if (isTactile(m, i) && m->sensor_dim[i] > n) n = m->sensor_dim[i];
  }
  return n;
}

long px_tactileScratchInts(const pxModel* m) {
  for (int i = 0; i < m->nsensor; i++) {
    if (isTactile(m, i)) return m->ngeom;
  }
  return 0;
}

// signed distance of the local point x to geom g (MuJoCo's geomDistance for primitive types)
static double geomDistance(const pxModel* m, int g, const double x[3]) {
  const double* size = m->geom_size + 3 * g;
  double a[3], b[3];
  switch (m->geom_type[g]) {
    case PX_GEOM_PLANE:
      return x[2];
    case PX_GEOM_SPHERE:
      return sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]) - size[0];
    case PX_GEOM_BOX: {
      a[0] = fabs(x[0]) - size[0];
      a[1] = fabs(x[1]) - size[1];
      a[2] = fabs(x[2]) - size[2];
      if (a[0] >= 0 || a[1] >= 0 || a[2] >= 0) {
        b[0] = a[0] > 0 ? a[0] : 0;
        b[1] = a[1] > 0 ? a[1] : 0;
        b[2] = a[2] > 0 ? a[2] : 0;
        double m12 = a[1] > a[2] ? a[1] : a[2];
        double m012 = a[0] > m12 ? a[0] : m12;
        return sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]) + (m012 < 0 ? m012 : 0);
      }
      // inside: a unit field turning from radial to the face normals (radialField3d)
      b[0] = -size[0] / a[0];
      b[1] = -size[1] / a[1];
      b[2] = -size[2] / a[2];
      pxk_normalize3(b);
      if (x[0] < 0) b[0] = -b[0];
      if (x[1] < 0) b[1] = -b[1];
      if (x[2] < 0) b[2] = -b[2];
      double t[3];
      t[0] = -a[0] / fabs(b[0]);
      t[1] = -a[1] / fabs(b[1]);
      t[2] = -a[2] / fabs(b[2]);
      double t12 = t[1] < t[2] ? t[1] : t[2];
      double tmin = t[0] < t12 ? t[0] : t12;
      return -tmin * sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
    }
    case PX_GEOM_CAPSULE: {
      a[0] = x[0];
      a[1] = x[1];
      double z = x[2] < -size[1] ? -size[1] : (x[2] > size[1] ? size[1] : x[2]);
      a[2] = x[2] - z;
      return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]) - size[0];
    }
    case PX_GEOM_ELLIPSOID: {
      a[0] = x[0] / size[0];
      a[1] = x[1] / size[1];
      a[2] = x[2] / size[2];
      b[0] = a[0] / size[0];
      b[1] = a[1] / size[1];
      b[2] = a[2] / size[2];
      double k0 = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
      double k1 = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
      return k0 * (k0 - 1.0) / k1;
    }
    case PX_GEOM_CYLINDER: {
      a[0] = sqrt(x[0] * x[0] + x[1] * x[1]) - size[0];
      a[1] = fabs(x[2]) - size[1];
      b[0] = a[0] > 0 ? a[0] : 0;
      b[1] = a[1] > 0 ? a[1] : 0;
      double mx = a[0] > a[1] ? a[0] : a[1];
      return (mx < 0 ? mx : 0) + sqrt(b[0] * b[0] + b[1] * b[1]);
    }
    default:  // not reached: meshes are skipped, height fields and sdf geoms refused
      return 0;
  }
}

// the linear part of mju_transformSpatial of the motion vector cvel[body] from the com of the
// body's tree to pos
static void linearVelocity(const pxModel* m, const pxData* d, int body, const double pos[3],
                           double out[3]) {
  const double* v = d->cvel + 6 * body;
  const double* com = d->subtree_com + 3 * m->body_rootid[body];
  double dif[3] = {pos[0] - com[0], pos[1] - com[1], pos[2] - com[2]};
  double cros[3];
  pxk_cross(cros, dif, v);
  for (int k = 0; k < 3; k++) out[k] = v[3 + k] - cros[k];
}

void px_sensorTactile(const pxModel* m, pxData* d, int i) {
  int mesh = m->sensor_objid[i];
  int geom = m->sensor_refid[i];
  int weld = m->body_weldid[m->geom_bodyid[geom]];
  int nvert = m->mesh_vertnum[mesh];
  int dim = m->sensor_dim[i];
  double* out = d->sensordata + m->sensor_adr[i];
  for (int k = 0; k < dim; k++) out[k] = 0;
  if (nvert <= 0 || !d->ncon || !d->colscr_r || !d->colscr_i) return;
  int nchannel = dim / nvert;

  // the geoms touching the weld body, once each, in contact order
  int* geoms = d->colscr_i + (px_colScratchInts(m, d->nbpmax) - px_tactileScratchInts(m));
  int ngeom = 0;
  for (int c = 0; c < d->ncon[0]; c++) {
    int g1 = d->contact[c].geom[0], g2 = d->contact[c].geom[1];
    int b1 = m->body_weldid[m->geom_bodyid[g1]];
    int b2 = m->body_weldid[m->geom_bodyid[g2]];
    for (int side = 0; side < 2; side++) {
      int b = side ? b2 : b1, other = side ? g1 : g2;
      if (b != weld) continue;
      int seen = 0;
      for (int k = 0; k < ngeom; k++) seen |= geoms[k] == other;
      if (!seen) geoms[ngeom++] = other;
    }
  }
  if (ngeom == 0) return;

  double* frc = d->colscr_r + (px_colScratchReals(m) - px_tactileScratchReals(m));
  for (int k = 0; k < 3 * nvert; k++) frc[k] = 0;
  const float* vert = m->mesh_vert + 3 * m->mesh_vertadr[mesh];
  int tadr = m->mesh_taxeladr[mesh];
  const float* frame = tadr >= 0 ? m->mesh_taxelframe + 9 * tadr : NULL;
  const double* mquat = m->mesh_quat + 4 * mesh;
  const double* gpos = d->geom_xpos + 3 * geom;
  const double* gmat = d->geom_xmat + 9 * geom;

  for (int j = 0; j < nvert; j++) {
    double pos[3] = {vert[3 * j], vert[3 * j + 1], vert[3 * j + 2]};
    double xpos[3];
    pxk_mulMatVec3(xpos, gmat, pos);
    for (int k = 0; k < 3; k++) xpos[k] += gpos[k];
    for (int c = 0; c < ngeom; c++) {
      int g = geoms[c];
      if (m->geom_type[g] == PX_GEOM_MESH) continue;  // no octree (see the top of this file)

      // taxel in the other geom's frame, its depth there
      double tmp[3], lpos[3];
      for (int k = 0; k < 3; k++) tmp[k] = xpos[k] - d->geom_xpos[3 * g + k];
      pxk_mulMatTVec3(lpos, d->geom_xmat + 9 * g, tmp);
      double dist = geomDistance(m, g, lpos);
      double depth = dist < 0 ? dist : 0;
      if (depth == 0) continue;

      // relative velocity of the taxel on the sensor's body and the other geom's center
      double vs[3], vo[3], vrel[3];
      linearVelocity(m, d, weld, xpos, vs);
      int body = m->geom_bodyid[g];
      linearVelocity(m, d, body, d->geom_xpos + 3 * g, vo);
      for (int k = 0; k < 3; k++) vrel[k] = vs[k] - vo[k];

      double nd = -depth;
      frc[j] = frc[j] > nd ? frc[j] : nd;
      if (frame) {
        const float* f = frame + 9 * j;
        double t1[3] = {f[3], f[4], f[5]}, t2[3] = {f[6], f[7], f[8]};
        pxk_rotVecQuat(t1, t1, mquat);
        pxk_rotVecQuat(t2, t2, mquat);
        frc[nvert + j] += fabs(pxk_dot3(vrel, t1));
        frc[2 * nvert + j] += fabs(pxk_dot3(vrel, t2));
      }
    }
  }

  // channels with a nonzero reading are added to the (zeroed) output
  for (int ch = 0; ch < nchannel && ch < 3; ch++) {
    const double* f = frc + ch * nvert;
    int nonzero = 0;
    for (int k = 0; k < nvert; k++) nonzero |= f[k] != 0;
    if (!nonzero) continue;
    for (int k = 0; k < nvert; k++) out[ch * nvert + k] += f[k];
  }
}
