// SPDX-License-Identifier: Apache-2.0
// Builtin meshes (<mesh builtin="..." params="...">): MuJoCo 3.12's mjs_makeMesh and the mesh
// makers of its compiler, re-expressed with the same floating-point operations (vertices are
// computed in double or float exactly where MuJoCo does and stored as float). The generated
// vertices, faces and per-vertex frames then go through pxc_meshProcess like inline data.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mjcf/mesh.h"

#define PI 3.14159265358979323846  // MuJoCo's mjPI
#define MINVAL 1e-15               // MuJoCo's mjMINVAL
#define EPS 1e-14                  // MuJoCo's mjEPS (user-side vector utilities)

// the arrays a maker fills; owned until handed to the mesh
typedef struct {
  float* vert;
  int nvert;
  int* face;
  int nface;
  float* normal;  // 9 per vertex (normal, two tangents) or NULL
} Made;

static pxtStatus oom(pxStatus* st, const char* name) {
  return PX_FAIL(st, PX_ERR_NOMEM, "builtin mesh '%s': out of memory", name);
}

static int alloc(Made* r, int nvert, int nface, int frames) {
  r->nvert = nvert;
  r->nface = nface;
  r->vert = (float*)calloc(3 * (size_t)nvert + 1, sizeof(float));
  r->face = (int*)calloc(3 * (size_t)nface + 1, sizeof(int));
  r->normal = frames ? (float*)calloc(9 * (size_t)nvert + 1, sizeof(float)) : NULL;
  return r->vert && r->face && (!frames || r->normal);
}

static void freeMade(Made* r) {
  free(r->vert);
  free(r->face);
  free(r->normal);
  memset(r, 0, sizeof(*r));
}

//---------------------------------- hemisphere ----------------------------------------------------

// quad-projected hemisphere with a bottom cap (MakeHemisphere with faces and cap)
static int makeHemisphere(Made* r, int res) {
  static const double pole[3] = {0, 0, 1};
  static const double equator[4][3] = {{1, 0, 0}, {0, 1, 0}, {-1, 0, 0}, {0, -1, 0}};
  int nvert = 1 + 2 * (res + 1) * (res + 2) + 1;
  int nface = 4 * (res + 1) * (res + 1) + 4 * (res + 1);
  if (!alloc(r, nvert, nface, 0)) return 0;
  float* vert = r->vert;
  vert[0] = (float)pole[0];
  vert[1] = (float)pole[1];
  vert[2] = (float)pole[2];
  int v = 1;
  for (int row = 0; row <= res; row++) {
    for (int side = 0; side < 4; side++) {
      double factor = (double)(row + 1) / (res + 1);
      double start[3], end[3], delta[3];
      for (int i = 0; i < 3; i++) {
        start[i] = pole[i] + factor * (equator[side][i] - pole[i]);
        end[i] = pole[i] + factor * (equator[(side + 1) % 4][i] - pole[i]);
      }
      for (int i = 0; i < 3; i++) delta[i] = (end[i] - start[i]) / (row + 1);
      for (int i = 0; i < row + 1; i++) {
        double p[3];
        for (int j = 0; j < 3; j++) p[j] = start[j] + i * delta[j];
        double norm = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
        for (int j = 0; j < 3; j++) vert[3 * v + j] = (float)(p[j] / norm);
        v++;
      }
    }
  }
  // center of the bottom cap
  vert[3 * (nvert - 1) + 0] = 0;
  vert[3 * (nvert - 1) + 1] = 0;
  vert[3 * (nvert - 1) + 2] = 0;

  int* face = r->face;
  int f = 0;
  for (int k = 0; k < 4; k++) {
    face[f++] = 0;
    face[f++] = 1 + k;
    face[f++] = 1 + (k + 1) % 4;
  }
  for (int row = 0; row < res; row++) {
    int scur = 2 * row * (row + 1) + 1, ccur = 4 * (row + 1);
    int snext = scur + ccur, cnext = 4 * (row + 2);
    for (int side = 0; side < 4; side++) {
      for (int i = 0; i < row + 2; i++) {
        int vc = i + (row + 1) * side;
        int vn = i + (row + 2) * side;
        face[f++] = scur + vc % ccur;
        face[f++] = snext + vn % cnext;
        face[f++] = snext + (vn + 1) % cnext;
        if (i < row + 1) {
          face[f++] = scur + vc % ccur;
          face[f++] = snext + (vn + 1) % cnext;
          face[f++] = scur + (vc + 1) % ccur;
        }
      }
    }
  }
  int start = 2 * res * (res + 1) + 1, count = 4 * (res + 1);
  for (int i = 0; i < count; i++) {
    face[f++] = start + i;
    face[f++] = nvert - 1;
    face[f++] = start + (i + 1) % count;
  }
  return 1;
}

//---------------------------------- icosphere -----------------------------------------------------

// midpoint table of one subdivision pass: edge (a < b) -> new vertex, open addressing
typedef struct {
  long long* key;
  int* val;
  size_t cap;
} EdgeMap;

static int midpoint(EdgeMap* map, float* vert, int* nvert, int a, int b) {
  int lo = a < b ? a : b, hi = a < b ? b : a;
  long long key = ((long long)lo << 32) | (long long)hi;
  size_t h = (size_t)(((unsigned long long)key * 0x9E3779B97F4A7C15ULL) >> 20) % map->cap;
  while (map->key[h] != -1) {
    if (map->key[h] == key) return map->val[h];
    h = (h + 1) % map->cap;
  }
  const float* v1 = vert + 3 * a;
  const float* v2 = vert + 3 * b;
  float x = (v1[0] + v2[0]) / 2.0f;
  float y = (v1[1] + v2[1]) / 2.0f;
  float z = (v1[2] + v2[2]) / 2.0f;
  float norm = sqrtf(x * x + y * y + z * z);
  x /= norm;
  y /= norm;
  z /= norm;
  int id = (*nvert)++;
  vert[3 * id + 0] = x;
  vert[3 * id + 1] = y;
  vert[3 * id + 2] = z;
  map->key[h] = key;
  map->val[h] = id;
  return id;
}

// icosahedron subdivided subdiv times, vertices pushed to the unit sphere (MakeSphere)
static int makeSphere(Made* r, int subdiv) {
  const float phi = (float)((1.0 + sqrt(5.0)) / 2.0);
  const float ico[36] = {-1.0f, phi,   0.0f, 1.0f, phi,   0.0f,  -1.0f, -phi, 0.0f,
                         1.0f,  -phi,  0.0f, 0.0f, -1.0f, phi,   0.0f,  1.0f, phi,
                         0.0f,  -1.0f, -phi, 0.0f, 1.0f,  -phi,  phi,   0.0f, -1.0f,
                         phi,   0.0f,  1.0f, -phi, 0.0f,  -1.0f, -phi,  0.0f, 1.0f};
  static const int icof[60] = {0, 11, 5,  0, 5,  1, 0, 1, 7, 0, 7,  10, 0, 10, 11, 1, 5, 9, 5, 11,
                               4, 11, 10, 2, 10, 7, 6, 7, 1, 8, 3,  9,  4, 3,  4,  2, 3, 2, 6, 3,
                               6, 8,  3,  8, 9,  4, 9, 5, 2, 4, 11, 6,  2, 10, 8,  6, 7, 9, 8, 1};
  int nface = 20, nvert = 12;
  int maxface = 20, maxvert = 12;
  for (int i = 0; i < subdiv; i++) {
    maxvert += 3 * maxface / 2;  // one new vertex per edge
    maxface *= 4;
  }
  if (!alloc(r, maxvert, maxface, 0)) return 0;
  const double norm = sqrt(1.0 + phi * phi);
  for (int i = 0; i < 36; i++) r->vert[i] = (float)(ico[i] / norm);
  memcpy(r->face, icof, sizeof(icof));
  int* next = (int*)malloc(3 * (size_t)maxface * sizeof(int) + 1);
  EdgeMap map;
  map.cap = 4 * (size_t)maxface + 7;
  map.key = (long long*)malloc(map.cap * sizeof(long long));
  map.val = (int*)malloc(map.cap * sizeof(int));
  int ok = next && map.key && map.val;
  for (int s = 0; ok && s < subdiv; s++) {
    for (size_t k = 0; k < map.cap; k++) map.key[k] = -1;
    int* face = r->face;
    int f = 0;
    for (int j = 0; j < nface; j++) {
      int v1 = face[3 * j], v2 = face[3 * j + 1], v3 = face[3 * j + 2];
      int m12 = midpoint(&map, r->vert, &nvert, v1, v2);
      int m23 = midpoint(&map, r->vert, &nvert, v2, v3);
      int m31 = midpoint(&map, r->vert, &nvert, v3, v1);
      int t[12] = {v1, m12, m31, v2, m23, m12, v3, m31, m23, m12, m23, m31};
      memcpy(next + f, t, sizeof(t));
      f += 12;
    }
    nface *= 4;
    memcpy(r->face, next, 3 * (size_t)nface * sizeof(int));
  }
  free(next);
  free(map.key);
  free(map.val);
  r->nvert = nvert;
  r->nface = nface;
  return ok;
}

//---------------------------------- superquadrics -------------------------------------------------

static double auxC(double w, double m) {
  return copysign(pow(fabs(cos(w)), m), cos(w));
}
static double auxS(double w, double m) {
  return copysign(pow(fabs(sin(w)), m), sin(w));
}

// superellipsoid (MakeSupersphere)
static int makeSupersphere(Made* r, int res, double e, double n) {
  int nvert = (res - 1) * res + 2;
  int nface = 2 * res * (res - 1);
  if (!alloc(r, nvert, nface, 0)) return 0;
  float* vert = r->vert;
  int k = 0;
  vert[k++] = 0.0f, vert[k++] = 0.0f, vert[k++] = -1.0f;
  for (int i = 1; i < res; i++) {
    double v = -PI / 2 + i * PI / res;
    for (int j = 0; j < res; j++) {
      double u = -PI + j * 2 * PI / res;
      vert[k++] = (float)(auxC(v, n) * auxC(u, e));
      vert[k++] = (float)(auxC(v, n) * auxS(u, e));
      vert[k++] = (float)auxS(v, n);
    }
  }
  vert[k++] = 0.0f, vert[k++] = 0.0f, vert[k++] = 1.0f;

  int* face = r->face;
  int f = 0;
  for (int j = 0; j < res; j++) {
    face[f++] = 0;
    face[f++] = 1 + (j + 1) % res;
    face[f++] = 1 + j;
  }
  for (int i = 0; i < res - 2; i++) {
    for (int j = 0; j < res; j++) {
      int v1 = 1 + i * res + j;
      int v2 = 1 + i * res + (j + 1) % res;
      int v4 = 1 + (i + 1) * res + j;
      int v3 = 1 + (i + 1) * res + (j + 1) % res;
      face[f++] = v1, face[f++] = v2, face[f++] = v4;
      face[f++] = v2, face[f++] = v3, face[f++] = v4;
    }
  }
  int last = 1 + (res - 2) * res;
  for (int j = 0; j < res; j++) {
    face[f++] = last + j;
    face[f++] = last + (j + 1) % res;
    face[f++] = nvert - 1;
  }
  return 1;
}

// supertoroid (MakeSupertorus)
static int makeSupertorus(Made* r, int res, double radius, double s, double t) {
  if (!alloc(r, res * res, 2 * res * res, 0)) return 0;
  for (int i = 0; i < res; i++) {
    for (int j = 0; j < res; j++) {
      double u = 2 * PI * i / res;
      double v = 2 * PI * j / res;
      float* p = r->vert + 3 * (i * res + j);
      p[0] = (float)((1 + radius * auxC(v, s)) * auxC(u, t));
      p[1] = (float)((1 + radius * auxC(v, s)) * auxS(u, t));
      p[2] = (float)(radius * auxS(v, s));
    }
  }
  int f = 0;
  for (int i = 0; i < res; i++) {
    for (int j = 0; j < res; j++) {
      int in = (i + 1) % res, jn = (j + 1) % res;
      int v1 = i * res + j, v2 = in * res + j, v3 = in * res + jn, v4 = i * res + jn;
      r->face[f++] = v1, r->face[f++] = v2, r->face[f++] = v4;
      r->face[f++] = v2, r->face[f++] = v3, r->face[f++] = v4;
    }
  }
  return 1;
}

//---------------------------------- wedge and plate (taxel grids) ---------------------------------

// n evenly spaced values from lo to hi, accumulated as MuJoCo's LinSpace does
static void linSpace(double lo, double hi, int n, double* out) {
  double inc = n > 1 ? (hi - lo) / (n - 1) : 0;
  for (int i = 0; i < n; i++) {
    out[i] = lo;
    lo += inc;
  }
}

static double fovea(double x, double gamma) {
  if (!gamma) return x;
  double g = 0 > (1 < gamma ? 1 : gamma) ? 0 : (1 < gamma ? 1 : gamma);
  return g * pow(x, 5) + (1 - g) * x;
}

// MuJoCo's mjuu_normvec on 3 values
static void normVec3(double* v) {
  double nrm = 0;
  for (int i = 0; i < 3; i++) nrm += v[i] * v[i];
  if (nrm < EPS) return;
  nrm = sqrt(nrm);
  if (fabs(nrm - 1) > EPS) {
    for (int i = 0; i < 3; i++) v[i] /= nrm;
  }
}

// spherical wedge of taxels with their tangent frames (MakeWedge); no faces (hull)
static int makeWedge(Made* r, const int res[2], const double fov[2], double gamma) {
  double* xe = (double*)malloc(((size_t)res[0] + (size_t)res[1] + 2) * sizeof(double));
  if (!xe) return 0;
  double* ye = xe + res[0] + 1;
  linSpace(-1, 1, res[0] + 1, xe);
  linSpace(-1, 1, res[1] + 1, ye);
  for (int i = 0; i < res[0] + 1; i++) xe[i] = fovea(xe[i], gamma);
  for (int i = 0; i < res[1] + 1; i++) ye[i] = fovea(ye[i], gamma);
  double sx = fov[0] * PI / 180, sy = fov[1] * PI / 180;
  for (int i = 0; i < res[0] + 1; i++) xe[i] = sx * xe[i];
  for (int i = 0; i < res[1] + 1; i++) ye[i] = sy * ye[i];
  if (!alloc(r, res[0] * res[1], 0, 1)) {
    free(xe);
    return 0;
  }
  for (int i = 0; i < res[0]; i++) {
    for (int j = 0; j < res[1]; j++) {
      int v = i * res[1] + j;
      double a = 0.5 * (xe[i + 1] + xe[i]);
      double e = 0.5 * (ye[j + 1] + ye[j]);
      double rad = 1;
      float* p = r->vert + 3 * v;
      p[0] = (float)(rad * cos(e) * sin(a));
      p[1] = (float)(rad * sin(e));
      p[2] = (float)(-rad * cos(e) * cos(a));
      double ta[3] = {rad * cos(e) * cos(a), 0, rad * cos(e) * sin(a)};
      double te[3] = {-rad * sin(e) * sin(a), rad * cos(e), rad * sin(e) * cos(a)};
      normVec3(ta);
      normVec3(te);
      float* mat = r->normal + 9 * v;
      for (int k = 0; k < 3; k++) {
        mat[3 + k] = (float)ta[k];
        mat[6 + k] = (float)te[k];
      }
      double n[3] = {te[1] * ta[2] - te[2] * ta[1], te[2] * ta[0] - te[0] * ta[2],
                     te[0] * ta[1] - te[1] * ta[0]};
      for (int k = 0; k < 3; k++) mat[k] = (float)n[k];
    }
  }
  free(xe);
  return 1;
}

// rectangle of taxels at z = -1 with identity frames (MakeRect)
static int makePlate(Made* r, const int res[2]) {
  if (!alloc(r, res[0] * res[1], 2 * (res[0] - 1) * (res[1] - 1), 1)) return 0;
  for (int i = 0; i < res[0]; i++) {
    for (int j = 0; j < res[1]; j++) {
      int v = i * res[1] + j;
      double dx = 2. / res[0];
      double dy = 2. / res[1];
      r->vert[3 * v + 0] = (float)(-1 + (i + 0.5) * dx);
      r->vert[3 * v + 1] = (float)(-1 + (j + 0.5) * dy);
      r->vert[3 * v + 2] = -1;
      r->normal[9 * v + 0] = 1;
      r->normal[9 * v + 4] = 1;
      r->normal[9 * v + 8] = 1;
      if (i > 0 && j > 0) {
        int* f = r->face + 6 * ((i - 1) * (res[1] - 1) + j - 1);
        f[0] = (i - 1) * res[1] + j - 1;
        f[1] = i * res[1] + j - 1;
        f[2] = (i - 1) * res[1] + j;
        f[3] = i * res[1] + j;
        f[4] = (i - 1) * res[1] + j;
        f[5] = i * res[1] + j - 1;
      }
    }
  }
  return 1;
}

// discrete cone or frustum: nedge points on the bottom circle, nedge on the top (radius > 0)
// or the apex; no faces (hull) (MakeCone)
static int makeCone(Made* r, int nedge, double radius) {
  int nvert = nedge + (radius > 0 ? nedge : 1);
  if (!alloc(r, nvert, 0, 0)) return 0;
  for (int i = 0; i < nedge; i++) {
    r->vert[3 * i + 0] = (float)cos(2 * i * PI / nedge);
    r->vert[3 * i + 1] = (float)sin(2 * i * PI / nedge);
    r->vert[3 * i + 2] = -1;
  }
  if (radius > 0) {
    for (int i = nedge; i < 2 * nedge; i++) {
      r->vert[3 * i + 0] = (float)(radius * cos(2 * i * PI / nedge));
      r->vert[3 * i + 1] = (float)(radius * sin(2 * i * PI / nedge));
      r->vert[3 * i + 2] = 1;
    }
  } else {
    r->vert[3 * nedge + 2] = 1;
  }
  return 1;
}

//---------------------------------- entry point ---------------------------------------------------

#define BAD(...) PX_FAIL(st, PX_ERR_MJCF, __VA_ARGS__)

pxtStatus pxc_meshBuiltin(pxcMesh* mesh, int builtin, const double* params, int nparams,
                          int* inertia, const char* name, pxStatus* st) {
  if (mesh->vert || mesh->face || mesh->processed) {
    return PX_FAIL(st, PX_ERR_ARG, "pxc_meshBuiltin: mesh is not empty");
  }
  Made r;
  memset(&r, 0, sizeof(r));
  int ok;
  const double* p = params;
  switch (builtin) {
    case PX_MESH_BUILTIN_HEMISPHERE: {
      if (nparams != 1) return BAD("Hemisphere mesh type requires 1 parameter");
      int res = (int)p[0];
      if (res < 0) return BAD("Hemisphere resolution cannot be negative");
      if (res > 10) return BAD("Hemisphere resolution cannot be greater than 10");
      ok = makeHemisphere(&r, res);
      break;
    }
    case PX_MESH_BUILTIN_SPHERE: {
      if (nparams != 1) return BAD("Sphere mesh type requires 1 parameter");
      int subdiv = (int)p[0];
      if (subdiv < 0) return BAD("Sphere subdivision cannot be negative");
      if (subdiv > 4) return BAD("Sphere subdivision cannot be greater than 4");
      ok = makeSphere(&r, subdiv);
      break;
    }
    case PX_MESH_BUILTIN_SUPERSPHERE: {
      if (nparams != 3) return BAD("Supersphere mesh type requires 3 parameters");
      int res = (int)p[0];
      if (res < 3) return BAD("Supersphere resolution must be greater than 2");
      if (p[1] < 0) return BAD("Supersphere 'e' cannot be negative");
      if (p[2] < 0) return BAD("Supersphere 'n' cannot be negative");
      if (res > 4096) return BAD("Supersphere resolution %d is above phalanx's limit 4096", res);
      ok = makeSupersphere(&r, res, p[1], p[2]);
      break;
    }
    case PX_MESH_BUILTIN_SUPERTORUS: {
      if (nparams != 4) return BAD("Supertorus mesh type requires 4 parameters");
      int res = (int)p[0];
      if (res < 3) return BAD("Supertorus resolution must be greater than 3");
      if (p[1] <= 0 || p[1] > 1) return BAD("Supertorus radius must be in (0, 1]");
      if (p[2] <= 0) return BAD("Supertorus 's' must be greater than 0");
      if (p[3] <= 0) return BAD("Supertorus 't' must be greater than 0");
      if (res > 4096) return BAD("Supertorus resolution %d is above phalanx's limit 4096", res);
      ok = makeSupertorus(&r, res, p[1], p[2], p[3]);
      break;
    }
    case PX_MESH_BUILTIN_WEDGE: {
      if (nparams != 5) return BAD("Wedge builtin mesh types require 5 parameters");
      int res[2] = {(int)p[0], (int)p[1]};
      double fov[2] = {p[2], p[3]};
      if (fov[0] <= 0 || fov[0] > 180)
        return BAD("fov[0] must be a float between (0, 180] degrees");
      if (fov[1] <= 0 || fov[1] > 90)
        return BAD("`fov[1]` must be a float between (0, 90] degrees");
      if (res[0] <= 0 || res[1] <= 0) {
        return BAD("Horizontal and vertical resolutions must be positive");
      }
      if (p[4] < 0 || p[4] > 1) return BAD("`gamma` must be a nonnegative float between [0, 1]");
      if ((long long)res[0] * res[1] > 16777216) {
        return BAD("Wedge resolution %d x %d is above phalanx's limit of 2^24 vertices", res[0],
                   res[1]);
      }
      ok = makeWedge(&r, res, fov, p[4]);
      break;
    }
    case PX_MESH_BUILTIN_PLATE: {
      if (nparams != 2) return BAD("Plate builtin mesh type requires 2 parameters");
      int res[2] = {(int)p[0], (int)p[1]};
      if (res[0] <= 0 || res[1] <= 0) {
        return BAD("Horizontal and vertical resolutions must be positive");
      }
      if ((long long)res[0] * res[1] > 16777216) {
        return BAD("Plate resolution %d x %d is above phalanx's limit of 2^24 vertices", res[0],
                   res[1]);
      }
      *inertia = PX_MESH_INERTIA_SHELL;
      ok = makePlate(&r, res);
      break;
    }
    case PX_MESH_BUILTIN_CONE: {
      if (nparams != 2) return BAD("Cone mesh type requires 2 parameters");
      int nedge = (int)p[0];
      if (nedge < 0 || nedge > 16777216) {
        return BAD("Cone mesh: number of edges %d outside phalanx's range [0, 2^24]", nedge);
      }
      ok = makeCone(&r, nedge, p[1]);
      break;
    }
    default:
      return BAD("Unsupported mesh type");
  }
  (void)name;
  if (!ok) {
    freeMade(&r);
    return oom(st, name ? name : "");
  }
  for (int i = 0; i < 3 * r.nvert; i++) {
    if (!isfinite(r.vert[i])) {
      freeMade(&r);
      return BAD("builtin mesh: vertex coordinate %d is not finite", i / 3);
    }
  }
  mesh->vert = r.vert;
  mesh->nvert = r.nvert;
  mesh->face = r.face;
  mesh->nface = r.nface;
  mesh->normal = r.normal;
  mesh->nnormal = r.normal ? 3 * r.nvert : 0;
  mesh->file[0] = 0;
  return PX_OK;
}
