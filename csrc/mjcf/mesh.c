// SPDX-License-Identifier: Apache-2.0
// Mesh assets for the MJCF compiler: file loaders and MuJoCo's mesh processing.
//
// What MuJoCo 3.12 does, and so what this file reproduces:
//   - STL (stl_decoder plugin): binary only, 1..200000 triangles, |coordinate| <= 2^30, vertices
//     merged when their three floats are bitwise equal, numbered in order of first appearance.
//   - OBJ (obj_decoder plugin over tinyobjloader): numbers through strtold clamped to float
//     range (what the 3.12.0 release binary does), relative (negative) indices, tinyobjloader's
//     ear-clipping triangulation in float arithmetic, and only the first shape ("o"/"g" start
//     new shapes); all "v" lines count as vertices, unreferenced or not; no vertex merging.
//   - MSH: MuJoCo's binary format, read directly by the compiler.
//   - mjCMesh::Process: the convex hull is built on the untransformed vertices; faces keep
//     their indices (a negative scale product swaps the winding); volume, center of mass and
//     inertia follow ComputeVolume / ComputeSurfaceArea / ComputeInertia with the same
//     floating-point operation order, so that results match to the last bit in most cases.
//   - MakePolygons: the hull's coplanar triangles merged into polygons, emitted in the
//     iteration order of MuJoCo's std::unordered_map (libc++'s, reproduced below); normals from
//     the final vertices.
// The compiler-side checks (at least 4 vertices, valid face indices, finite coordinates,
// degenerate hulls, inconsistent orientation for exact inertia, small volume, triangle
// inequality of the principal moments) give MuJoCo's messages, prefixed with the mesh name.
#include "mjcf/mesh.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "px/pxstatus.h"
#include "util/eig3.h"

#include <libqhull_r/qhull_ra.h>
#include "util/quat.h"

#define MINVAL 1e-15  // MuJoCo's mjMINVAL
#define EPS 1e-14     // MuJoCo's mjEPS (user-side vector utilities)

//---------------------------------- growable arrays -----------------------------------------------

typedef struct {
  int* data;
  size_t n, cap;
} IntVec;

typedef struct {
  float* data;
  size_t n, cap;
} FloatVec;

// room for k > 0 more elements of size sz after n: returns the (possibly moved) array and updates
// cap, or returns NULL and leaves data and cap alone on allocation failure
static void* growArray(void* data, size_t* cap, size_t n, size_t k, size_t sz) {
  if (data && n + k <= *cap) return data;
  size_t cap2 = *cap ? *cap : 64;
  while (cap2 < n + k) cap2 *= 2;
  void* p = realloc(data, cap2 * sz);
  if (p) *cap = cap2;
  return p;
}

// grow a typed array field in place; 0 on allocation failure
#define GROW(ptr, cap, n, k) \
  growInto((void*)&(ptr), growArray((ptr), &(cap), (n), (k), sizeof(*(ptr))))

// store a grown array: p is the result of growArray for *slot
static int growInto(void* slot, void* p) {
  if (!p) return 0;
  memcpy(slot, &p, sizeof(p));
  return 1;
}

static int pushInt(IntVec* v, int x) {
  if (!GROW(v->data, v->cap, v->n, 1)) return 0;
  v->data[v->n++] = x;
  return 1;
}

static int pushFloat(FloatVec* v, float x) {
  if (!GROW(v->data, v->cap, v->n, 1)) return 0;
  v->data[v->n++] = x;
  return 1;
}

//---------------------------------- mesh object ---------------------------------------------------

void pxc_meshInit(pxcMesh* mesh) {
  memset(mesh, 0, sizeof(*mesh));
  mesh->quat[0] = 1;
}

void pxc_meshFree(pxcMesh* mesh) {
  if (!mesh) return;
  free(mesh->vert);
  free(mesh->face);
  free(mesh->normal);
  free(mesh->graph);
  free(mesh->polyvertnum);
  free(mesh->polyvert);
  free(mesh->polynormal);
  free(mesh->polymapnum);
  free(mesh->polymap);
  pxc_meshInit(mesh);
}

void pxc_defaultMeshDef(pxcMeshDef* def) {
  memset(def, 0, sizeof(*def));
  def->scale[0] = def->scale[1] = def->scale[2] = 1;
  def->refquat[0] = 1;
  def->inertia = PX_MESH_INERTIA_LEGACY;
  def->maxhullvert = -1;
}

// name for messages
static const char* meshName(const pxcMesh* mesh, const pxcMeshDef* def) {
  if (def && def->name && def->name[0]) return def->name;
  if (mesh->file[0]) return mesh->file;
  return "(unnamed)";
}

// take ownership of loaded arrays; check that the vertices are finite (MuJoCo's
// ProcessVertices)
static pxtStatus setGeometry(pxcMesh* mesh, FloatVec* vert, IntVec* face, const char* what,
                             pxStatus* st) {
  if (vert->n % 3) return PX_FAIL(st, PX_ERR_MJCF, "%s: vertex data must be a multiple of 3", what);
  if (face->n % 3) return PX_FAIL(st, PX_ERR_MJCF, "%s: face data must be a multiple of 3", what);
  for (size_t i = 0; i < vert->n; i++) {
    if (!isfinite(vert->data[i])) {
      return PX_FAIL(st, PX_ERR_MJCF, "%s: vertex coordinate %d is not finite", what, (int)(i / 3));
    }
  }
  if (vert->n / 3 > INT32_MAX || face->n / 3 > INT32_MAX) {
    return PX_FAIL(st, PX_ERR_MJCF, "%s: too many vertices or faces", what);
  }
  mesh->nvert = (int)(vert->n / 3);
  mesh->vert = vert->data;
  mesh->nface = (int)(face->n / 3);
  mesh->face = face->data;
  memset(vert, 0, sizeof(*vert));
  memset(face, 0, sizeof(*face));
  return PX_OK;
}

pxtStatus pxc_meshSetInline(pxcMesh* mesh, const double* vert, int nvert, const int* face,
                            int nface, pxStatus* st) {
  if (mesh->vert || mesh->face || mesh->processed) {
    return PX_FAIL(st, PX_ERR_ARG, "pxc_meshSetInline: mesh is not empty");
  }
  if (nvert < 0 || nface < 0 || (nvert && !vert) || (nface && !face)) {
    return PX_FAIL(st, PX_ERR_ARG, "pxc_meshSetInline: bad sizes (nvert %d, nface %d)", nvert,
                   nface);
  }
  FloatVec fv = {0};
  IntVec iv = {0};
  if (!GROW(fv.data, fv.cap, 0, 3 * (size_t)nvert + 1) ||
      !GROW(iv.data, iv.cap, 0, 3 * (size_t)nface + 1)) {
    free(fv.data);
    free(iv.data);
    return PX_FAIL(st, PX_ERR_NOMEM, "inline mesh: out of memory (%d vertices)", nvert);
  }
  for (size_t i = 0; i < 3 * (size_t)nvert; i++) fv.data[i] = (float)vert[i];
  fv.n = 3 * (size_t)nvert;
  if (nface) memcpy(iv.data, face, 3 * (size_t)nface * sizeof(int));
  iv.n = 3 * (size_t)nface;
  mesh->file[0] = 0;
  pxtStatus code = setGeometry(mesh, &fv, &iv, "inline mesh", st);
  free(fv.data);
  free(iv.data);
  return code;
}

//---------------------------------- file reading --------------------------------------------------

// read a whole file into a NUL-terminated buffer
static pxtStatus readFile(const char* path, char** buf, size_t* size, pxStatus* st) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    return PX_FAIL(st, PX_ERR_MJCF, "mesh file '%s': cannot open: %s", path, strerror(errno));
  }
  size_t n = 0, cap = 0;
  char* data = NULL;
  for (;;) {
    if (!GROW(data, cap, n, 65536 + 1)) {
      free(data);
      fclose(f);
      return PX_FAIL(st, PX_ERR_NOMEM, "mesh file '%s': out of memory", path);
    }
    size_t got = fread(data + n, 1, 65536, f);
    n += got;
    if (got < 65536) break;
  }
  int err = ferror(f);
  fclose(f);
  if (err) {
    free(data);
    return PX_FAIL(st, PX_ERR_MJCF, "mesh file '%s': read error", path);
  }
  data[n] = 0;
  *buf = data;
  *size = n;
  return PX_OK;
}

//---------------------------------- STL -----------------------------------------------------------

// hash table from bitwise vertex keys to vertex index
typedef struct {
  uint32_t key[3];
  int index;  // -1: empty slot
} VertSlot;

typedef struct {
  VertSlot* slot;
  size_t cap;    // power of 2
  size_t count;  // occupied slots (kept at most half of cap)
} VertMap;

static uint64_t hashKey(const uint32_t key[3]) {
  uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < 3; i++) {
    h ^= key[i];
    h *= 1099511628211ull;
    h ^= h >> 29;
  }
  return h;
}

// index of vertex v (bitwise comparison), inserting it into vert if new; -1 on out of memory
// or a full table
static int mapVertex(VertMap* map, FloatVec* vert, const float v[3]) {
  if (2 * (map->count + 1) > map->cap) return -1;
  uint32_t key[3];
  memcpy(key, v, sizeof(key));
  size_t mask = map->cap - 1;
  for (size_t i = hashKey(key) & mask;; i = (i + 1) & mask) {
    VertSlot* s = map->slot + i;
    if (s->index < 0) {
      s->index = (int)(vert->n / 3);
      memcpy(s->key, key, sizeof(key));
      map->count++;
      for (int k = 0; k < 3; k++) {
        if (!pushFloat(vert, v[k])) return -1;
      }
      return s->index;
    }
    if (!memcmp(s->key, key, sizeof(key))) return s->index;
  }
}

static int mapInit(VertMap* map, size_t nmax) {
  map->cap = 16;
  while (map->cap < 2 * nmax + 16) map->cap *= 2;
  map->slot = malloc(map->cap * sizeof(VertSlot));
  if (!map->slot) return 0;
  for (size_t i = 0; i < map->cap; i++) map->slot[i].index = -1;
  return 1;
}

// add one STL triangle, merging vertices; checks MuJoCo's coordinate bound
static pxtStatus stlTriangle(VertMap* map, FloatVec* vert, IntVec* face, const float tri[9],
                             const char* path, pxStatus* st) {
  for (int j = 0; j < 3; j++) {
    const float* v = tri + 3 * j;
    const double bound = 1073741824.0;  // 2^30
    if (fabs(v[0]) > bound || fabs(v[1]) > bound || fabs(v[2]) > bound) {
      return PX_FAIL(st, PX_ERR_MJCF, "mesh file '%s': vertex in STL file exceeds maximum bounds",
                     path);
    }
    int id = mapVertex(map, vert, v);
    if (id < 0 || !pushInt(face, id)) {
      return PX_FAIL(st, PX_ERR_NOMEM, "mesh file '%s': out of memory", path);
    }
  }
  return PX_OK;
}

static pxtStatus loadBinarySTL(pxcMesh* mesh, const char* buf, const char* path, pxStatus* st) {
  int32_t nfaces;
  memcpy(&nfaces, buf + 80, 4);
  FloatVec vert = {0};
  IntVec face = {0};
  VertMap map = {0};
  pxtStatus code = PX_OK;
  if (!mapInit(&map, 3 * (size_t)nfaces)) {
    code = PX_FAIL(st, PX_ERR_NOMEM, "mesh file '%s': out of memory", path);
  }
  for (int i = 0; i < nfaces && code == PX_OK; i++) {
    float tri[9];
    memcpy(tri, buf + 84 + 50 * (size_t)i + 12, sizeof(tri));
    code = stlTriangle(&map, &vert, &face, tri, path, st);
  }
  if (code == PX_OK) code = setGeometry(mesh, &vert, &face, path, st);
  free(map.slot);
  free(vert.data);
  free(face.data);
  return code;
}

static pxtStatus loadSTL(pxcMesh* mesh, const char* buf, size_t size, const char* path,
                         pxStatus* st) {
  if (!size) return PX_FAIL(st, PX_ERR_MJCF, "mesh file '%s': STL file is empty", path);

  // binary STL: 80-byte header, triangle count, 50 bytes per triangle
  int32_t nfaces = 0;
  if (size >= 84) memcpy(&nfaces, buf + 80, 4);
  int binary = size >= 84 && nfaces >= 1 && nfaces <= 200000 && (size_t)nfaces * 50 == size - 84;
  if (binary) return loadBinarySTL(mesh, buf, path, st);

  // ASCII STL (starts with "solid" and is text): rejected, as MuJoCo does
  const char* p = buf;
  while (p < buf + size && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) p++;
  if ((size_t)(buf + size - p) >= 5 && !strncmp(p, "solid", 5) && !memchr(buf, 0, size)) {
    return PX_FAIL(st, PX_ERR_MJCF,
                   "mesh file '%s': ASCII STL is not supported (MuJoCo rejects it too); "
                   "convert it to binary STL",
                   path);
  }

  // MuJoCo's messages for bad binary files
  if (size < 84)
    return PX_FAIL(st, PX_ERR_MJCF, "mesh file '%s': invalid header in STL file", path);
  if (nfaces < 1 || nfaces > 200000) {
    return PX_FAIL(st, PX_ERR_MJCF,
                   "mesh file '%s': number of faces should be between 1 and "
                   "200000 in STL file (header says %d)",
                   path, nfaces);
  }
  return PX_FAIL(st, PX_ERR_MJCF,
                 "mesh file '%s': STL file has wrong size: %zu bytes, expected "
                 "84 + 50*%d = %zu (truncated or corrupt)",
                 path, size, nfaces, 84 + 50 * (size_t)nfaces);
}

//---------------------------------- MSH -----------------------------------------------------------

static pxtStatus loadMSH(pxcMesh* mesh, const char* buf, size_t size, const char* path,
                         pxStatus* st) {
  if (!size) return PX_FAIL(st, PX_ERR_MJCF, "mesh file '%s': MSH file is empty", path);
  if (size < 16)
    return PX_FAIL(st, PX_ERR_MJCF, "mesh file '%s': missing header in MSH file", path);
  int32_t nv, nn, nt, nf;
  memcpy(&nv, buf, 4);
  memcpy(&nn, buf + 4, 4);
  memcpy(&nt, buf + 8, 4);
  memcpy(&nf, buf + 12, 4);
  if (nv < 4 || nf < 0 || nn < 0 || nt < 0 || (nn > 0 && nn != nv) || (nt > 0 && nt != nv)) {
    return PX_FAIL(st, PX_ERR_MJCF, "mesh file '%s': invalid sizes in MSH file", path);
  }
  if ((size_t)nv >= INT32_MAX / 4 / 3 || (size_t)nn >= INT32_MAX / 4 / 3 ||
      (size_t)nt >= INT32_MAX / 4 / 2 || (size_t)nf >= INT32_MAX / 4 / 3) {
    return PX_FAIL(st, PX_ERR_MJCF, "mesh file '%s': too large sizes in MSH file", path);
  }
  size_t expect = 16 + 4 * (3 * (size_t)nv + 3 * (size_t)nn + 2 * (size_t)nt + 3 * (size_t)nf);
  if (size != expect) {
    return PX_FAIL(st, PX_ERR_MJCF,
                   "mesh file '%s': unexpected file size in MSH file (%zu "
                   "bytes, expected %zu)",
                   path, size, expect);
  }
  FloatVec vert = {0};
  IntVec face = {0};
  if (!GROW(vert.data, vert.cap, 0, 3 * (size_t)nv) ||
      !GROW(face.data, face.cap, 0, 3 * (size_t)nf + 1)) {
    free(vert.data);
    free(face.data);
    return PX_FAIL(st, PX_ERR_NOMEM, "mesh file '%s': out of memory", path);
  }
  memcpy(vert.data, buf + 16, 12 * (size_t)nv);
  vert.n = 3 * (size_t)nv;
  memcpy(face.data, buf + 16 + 4 * (3 * (size_t)nv + 3 * (size_t)nn + 2 * (size_t)nt),
         12 * (size_t)nf);
  face.n = 3 * (size_t)nf;
  pxtStatus code = setGeometry(mesh, &vert, &face, path, st);
  free(vert.data);
  free(face.data);
  if (code == PX_OK) mesh->msh = 1;
  return code;
}

//---------------------------------- OBJ (tinyobjloader semantics) ---------------------------------

#define OBJ_SPACE(x) ((x) == ' ' || (x) == '\t')
#define OBJ_NEWLINE(x) ((x) == '\r' || (x) == '\n' || (x) == '\0')

// one real number of a v line, as MuJoCo 3.12's build of tinyobjloader reads it: strtold from
// the token (so hex, inf and nan are accepted and a missing or bad number is 0), clamped to
// +-FLT_MAX (NaN passes through and is rejected later), rounded to float
static float objParseReal(const char** token) {
  *token += strspn(*token, " \t");
  const char* end = *token + strcspn(*token, " \t\r");
  long double val = strtold(*token, NULL);
  const long double hi = FLT_MAX, lo = -(long double)FLT_MAX;
  if (val > hi) val = hi;
  if (lo > val) val = lo;
  *token = end;
  return (float)val;
}

// one index of an f/l/p line (i, i/j, i//k, i/j/k); 0 on a zero index (invalid)
static int objParseTriple(const char** token, int nv, int* v_idx) {
  int idx = (int)strtol(*token, NULL, 10);
  if (idx == 0) return 0;
  *v_idx = idx > 0 ? idx - 1 : nv + idx;
  *token += strcspn(*token, "/ \t\r");
  if ((*token)[0] != '/') return 1;
  (*token)++;

  // i//k
  if ((*token)[0] == '/') {
    (*token)++;
    if ((int)strtol(*token, NULL, 10) == 0) return 0;
    *token += strcspn(*token, "/ \t\r");
    return 1;
  }

  // i/j/k or i/j
  if ((int)strtol(*token, NULL, 10) == 0) return 0;
  *token += strcspn(*token, "/ \t\r");
  if ((*token)[0] != '/') return 1;
  (*token)++;
  if ((int)strtol(*token, NULL, 10) == 0) return 0;
  *token += strcspn(*token, "/ \t\r");
  return 1;
}

// point-in-triangle test of tinyobjloader (float)
static int objInTriangle(const float* vx, const float* vy, float tx, float ty) {
  int c = 0;
  for (int i = 0, j = 2; i < 3; j = i++) {
    if (((vy[i] > ty) != (vy[j] > ty)) &&
        (tx < (vx[j] - vx[i]) * (ty - vy[i]) / (vy[j] - vy[i]) + vx[i])) {
      c = !c;
    }
  }
  return c;
}

// coordinate k of vertex index vi, or -1 if out of range (size_t arithmetic as tinyobjloader)
static int objInRange(int vi, size_t k, size_t nfloat) {
  return (size_t)vi * 3 + k < nfloat;
}

// triangulate one polygon the way tinyobjloader does (float ear clipping); 0 on out of memory
static int objTriangulate(const float* v, size_t nfloat, const int* poly, int npoly, IntVec* tri,
                          int* scratch) {
  size_t n = (size_t)npoly;
  if (n < 3) return 1;

  // the two axes to work in, from the first corner that is not degenerate
  size_t axes[2] = {1, 2};
  for (size_t k = 0; k < n; k++) {
    int i0 = poly[k % n], i1 = poly[(k + 1) % n], i2 = poly[(k + 2) % n];
    if (!objInRange(i0, 2, nfloat) || !objInRange(i1, 2, nfloat) || !objInRange(i2, 2, nfloat)) {
      continue;
    }
    const float* a = v + 3 * (size_t)i0;
    const float* b = v + 3 * (size_t)i1;
    const float* c = v + 3 * (size_t)i2;
    float e0x = b[0] - a[0], e0y = b[1] - a[1], e0z = b[2] - a[2];
    float e1x = c[0] - b[0], e1y = c[1] - b[1], e1z = c[2] - b[2];
    float cx = fabsf(e0y * e1z - e0z * e1y);
    float cy = fabsf(e0z * e1x - e0x * e1z);
    float cz = fabsf(e0x * e1y - e0y * e1x);
    if (cx > FLT_EPSILON || cy > FLT_EPSILON || cz > FLT_EPSILON) {
      if (!(cx > cy && cx > cz)) {
        axes[0] = 0;
        if (cz > cx && cz > cy) axes[1] = 1;
      }
      break;
    }
  }

  // signed area in the projection plane
  float area = 0;
  for (size_t k = 0; k < n; k++) {
    int i0 = poly[k % n], i1 = poly[(k + 1) % n];
    if (!objInRange(i0, axes[0], nfloat) || !objInRange(i0, axes[1], nfloat) ||
        !objInRange(i1, axes[0], nfloat) || !objInRange(i1, axes[1], nfloat)) {
      continue;
    }
    float v0x = v[3 * (size_t)i0 + axes[0]], v0y = v[3 * (size_t)i0 + axes[1]];
    float v1x = v[3 * (size_t)i1 + axes[0]], v1y = v[3 * (size_t)i1 + axes[1]];
    area += (v0x * v1y - v0y * v1x) * 0.5f;
  }

  // ear clipping on a copy of the polygon
  int* rem = scratch;
  memcpy(rem, poly, n * sizeof(int));
  size_t nrem = n, guess = 0, iterleft = n, prevnrem = n;
  while (nrem > 3 && iterleft > 0) {
    size_t np = nrem;
    if (guess >= np) guess -= np;
    if (prevnrem != np) {
      prevnrem = np;
      iterleft = np;
    } else {
      iterleft--;
    }

    // candidate ear
    int ind[3];
    float vx[3], vy[3];
    for (int k = 0; k < 3; k++) {
      ind[k] = rem[(guess + (size_t)k) % np];
      if (!objInRange(ind[k], axes[0], nfloat) || !objInRange(ind[k], axes[1], nfloat)) {
        vx[k] = vy[k] = 0.0f;
      } else {
        vx[k] = v[3 * (size_t)ind[k] + axes[0]];
        vy[k] = v[3 * (size_t)ind[k] + axes[1]];
      }
    }
    float e0x = vx[1] - vx[0], e0y = vy[1] - vy[0];
    float e1x = vx[2] - vx[1], e1y = vy[2] - vy[1];
    float cross = e0x * e1y - e0y * e1x;
    if (cross * area < 0.0f) {
      guess++;
      continue;
    }

    // reject if another vertex lies inside
    int overlap = 0;
    for (size_t other = 3; other < np; other++) {
      size_t idx = (guess + other) % np;
      if (idx >= nrem) continue;
      int ovi = rem[idx];
      if (!objInRange(ovi, axes[0], nfloat) || !objInRange(ovi, axes[1], nfloat)) continue;
      if (objInTriangle(vx, vy, v[3 * (size_t)ovi + axes[0]], v[3 * (size_t)ovi + axes[1]])) {
        overlap = 1;
        break;
      }
    }
    if (overlap) {
      guess++;
      continue;
    }

    // emit the ear, remove its middle vertex
    for (int k = 0; k < 3; k++) {
      if (!pushInt(tri, ind[k])) return 0;
    }
    for (size_t r = (guess + 1) % np; r + 1 < np; r++) rem[r] = rem[r + 1];
    nrem--;
  }
  if (nrem == 3) {
    for (int k = 0; k < 3; k++) {
      if (!pushInt(tri, rem[k])) return 0;
    }
  }
  return 1;
}

// OBJ parser state; only the first shape's faces are kept (MuJoCo's obj_decoder)
typedef struct {
  FloatVec v;    // vertex coordinates
  IntVec fidx;   // pending faces: vertex indices
  IntVec fnum;   // pending faces: vertex counts
  IntVec lidx;   // pending lines: vertex indices
  IntVec lnum;   // pending lines: vertex counts
  int npoint;    // pending point records
  IntVec tri;    // current shape: triangles
  IntVec slidx;  // current shape: line vertex indices
  IntVec slnum;  // current shape: line vertex counts
  int spoint;    // current shape: point records
  int done;      // first shape found: later primitives are parsed but dropped
  int* scratch;  // ear-clipping workspace
  size_t nscratch;
} ObjState;

// tinyobjloader's exportGroupsToShape: flush pending primitives into the current shape;
// returns 1 if there was anything to flush, -1 on out of memory
static int objExport(ObjState* s) {
  if (!s->fnum.n && !s->lnum.n && !s->npoint) return 0;
  size_t adr = 0;
  for (size_t i = 0; i < s->fnum.n; i++) {
    int n = s->fnum.data[i];
    if (n < 3) {  // nothing to triangulate (and fidx may still be empty: no NULL + 0)
      adr += (size_t)(n > 0 ? n : 0);
      continue;
    }
    if (!objTriangulate(s->v.data, s->v.n, s->fidx.data + adr, n, &s->tri, s->scratch)) return -1;
    adr += (size_t)n;
  }
  for (size_t i = 0; i < s->lidx.n; i++) {
    if (!pushInt(&s->slidx, s->lidx.data[i])) return -1;
  }
  for (size_t i = 0; i < s->lnum.n; i++) {
    if (!pushInt(&s->slnum, s->lnum.data[i])) return -1;
  }
  s->spoint += s->npoint;
  return 1;
}

// close the current shape (g, o, end of file) and clear the pending primitives; push=1 keeps
// the shape as the first one (later shapes are never used), push=0 discards it
static void objCloseShape(ObjState* s, int push) {
  s->fidx.n = s->fnum.n = s->lidx.n = s->lnum.n = 0;
  s->npoint = 0;
  if (push) {
    s->done = 1;
  } else {
    s->tri.n = s->slidx.n = s->slnum.n = 0;
    s->spoint = 0;
  }
}

static void objFree(ObjState* s) {
  free(s->v.data);
  free(s->fidx.data);
  free(s->fnum.data);
  free(s->lidx.data);
  free(s->lnum.data);
  free(s->tri.data);
  free(s->slidx.data);
  free(s->slnum.data);
  free(s->scratch);
}

// parse the index list of an f, l or p line into (idx, num); 0 on a parse error
static int objIndexList(const char* token, int nv, IntVec* idx, IntVec* num, int* nout, int* oom) {
  int n = 0;
  while (!OBJ_NEWLINE(token[0])) {
    int vi;
    if (!objParseTriple(&token, nv, &vi)) return 0;
    if (idx && !pushInt(idx, vi)) *oom = 1;
    n++;
    token += strspn(token, " \t\r");
  }
  if (num && !pushInt(num, n)) *oom = 1;
  *nout = n;
  return 1;
}

static pxtStatus loadOBJ(pxcMesh* mesh, char* buf, size_t size, const char* path, pxStatus* st) {
  ObjState s;
  memset(&s, 0, sizeof(s));
  pxtStatus code = PX_OK;
  int oom = 0;
  size_t lineno = 0;
  char* p = buf;
  char* end = buf + size;
  while (p < end && code == PX_OK && !oom) {
    // split off one line (\n, \r\n or \r)
    char* line = p;
    while (p < end && *p != '\n' && *p != '\r') p++;
    if (p < end) {
      if (*p == '\r' && p + 1 < end && p[1] == '\n') *p++ = 0;
      *p++ = 0;
    }
    lineno++;
    const char* token = line + strspn(line, " \t");
    if (token[0] == '\0' || token[0] == '#') continue;
    int nv = (int)(s.v.n / 3);

    if (token[0] == 'v' && OBJ_SPACE(token[1])) {
      // vertex (extra color values are ignored)
      token += 2;
      for (int k = 0; k < 3; k++) {
        if (!pushFloat(&s.v, objParseReal(&token))) oom = 1;
      }
    } else if ((token[0] == 'f' || token[0] == 'l' || token[0] == 'p') && OBJ_SPACE(token[1])) {
      // face, line or point list
      char kind = token[0];
      token += 2;
      if (kind == 'f') token += strspn(token, " \t");
      IntVec* idx = kind == 'f' ? &s.fidx : kind == 'l' ? &s.lidx : NULL;
      IntVec* num = kind == 'f' ? &s.fnum : kind == 'l' ? &s.lnum : NULL;
      int n = 0;
      if (s.done) idx = num = NULL;
      if (!objIndexList(token, nv, idx, num, &n, &oom)) {
        code = PX_FAIL(st, PX_ERR_MJCF,
                       "mesh file '%s': could not parse OBJ file: zero or "
                       "missing index in '%c' line %zu",
                       path, kind, lineno);
        break;
      }
      if (kind == 'p' && !s.done) s.npoint++;
      if (kind == 'f' && (size_t)n > s.nscratch) {
        free(s.scratch);
        s.scratch = malloc((size_t)n * sizeof(int));
        s.nscratch = s.scratch ? (size_t)n : 0;
        if (!s.scratch) oom = 1;
      }
    } else if ((token[0] == 'g' || token[0] == 'o') && OBJ_SPACE(token[1])) {
      // new group or object: close the current shape
      if (!s.done) {
        int r = objExport(&s);
        if (r < 0) oom = 1;
        int push = token[0] == 'g' ? s.tri.n > 0 : (s.tri.n > 0 || s.slnum.n > 0 || s.spoint > 0);
        objCloseShape(&s, push);
      }
    }
    // vn, vt, usemtl, mtllib, s, t and unknown lines: ignored
  }

  // end of file: the last shape counts if it had pending primitives or triangles
  if (code == PX_OK && !oom && !s.done) {
    int r = objExport(&s);
    if (r < 0) oom = 1;
    objCloseShape(&s, r > 0 || s.tri.n > 0);
  }
  if (code == PX_OK && oom) code = PX_FAIL(st, PX_ERR_NOMEM, "mesh file '%s': out of memory", path);

  // faces of the first shape; lines become degenerate triangles (i1, i2, i2) as in MuJoCo
  IntVec face = {0};
  if (code == PX_OK && s.done) {
    if (s.tri.n) {
      face = s.tri;
      memset(&s.tri, 0, sizeof(s.tri));
    } else if (s.slnum.n) {
      size_t adr = 0;
      for (size_t l = 0; l < s.slnum.n && !oom; l++) {
        int n = s.slnum.data[l];
        for (int k = 0; k + 1 < n && !oom; k++) {
          int i1 = s.slidx.data[adr + (size_t)k], i2 = s.slidx.data[adr + (size_t)k + 1];
          oom = !pushInt(&face, i1) || !pushInt(&face, i2) || !pushInt(&face, i2);
        }
        adr += (size_t)n;
      }
      if (oom) code = PX_FAIL(st, PX_ERR_NOMEM, "mesh file '%s': out of memory", path);
    }
  }
  if (code == PX_OK) code = setGeometry(mesh, &s.v, &face, path, st);
  free(face.data);
  objFree(&s);
  return code;
}

//---------------------------------- loader entry point --------------------------------------------

pxtStatus pxc_meshLoadFile(pxcMesh* mesh, const char* path, pxStatus* st) {
  if (mesh->vert || mesh->face || mesh->processed) {
    return PX_FAIL(st, PX_ERR_ARG, "pxc_meshLoadFile: mesh is not empty");
  }
  if (!path || !path[0]) return PX_FAIL(st, PX_ERR_ARG, "pxc_meshLoadFile: empty path");

  // format from the extension
  const char* dot = strrchr(path, '.');
  const char* slash = strrchr(path, '/');
  if (dot && slash && dot < slash) dot = NULL;
  int kind = 0;
  if (dot && !strcasecmp(dot, ".stl")) kind = 1;
  if (dot && !strcasecmp(dot, ".obj")) kind = 2;
  if (dot && !strcasecmp(dot, ".msh")) kind = 3;
  if (!kind) {
    return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                   "mesh file '%s': unsupported format '%s' (supported: "
                   ".stl, .obj, .msh)",
                   path, dot ? dot : "");
  }

  char* buf = NULL;
  size_t size = 0;
  pxtStatus code = readFile(path, &buf, &size, st);
  if (code != PX_OK) return code;
  snprintf(mesh->file, sizeof(mesh->file), "%s", path);
  if (kind == 1) code = loadSTL(mesh, buf, size, path, st);
  if (kind == 2) code = loadOBJ(mesh, buf, size, path, st);
  if (kind == 3) code = loadMSH(mesh, buf, size, path, st);
  free(buf);
  if (code != PX_OK) pxc_meshFree(mesh);
  return code;
}

//---------------------------------- small vector helpers (MuJoCo's user_util) ---------------------

static double dot3(const double* a, const double* b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(double* a, const double* b, const double* c) {
  a[0] = b[1] * c[2] - b[2] * c[1];
  a[1] = b[2] * c[0] - b[0] * c[2];
  a[2] = b[0] * c[1] - b[1] * c[0];
}

static void normVec4(double* vec) {
  double nrm = 0;
  for (int i = 0; i < 4; i++) nrm += vec[i] * vec[i];
  if (nrm < EPS) return;
  nrm = sqrt(nrm);
  if (fabs(nrm - 1) > EPS) {
    for (int i = 0; i < 4; i++) vec[i] /= nrm;
  }
}

// area of a triangle, its unit normal (if normal) and center (if center); 0 for tiny triangles
static double triangle(double* normal, double* center, const double* v1, const double* v2,
                       const double* v3) {
  double nloc[3];
  double* n = normal ? normal : nloc;
  if (center) {
    center[0] = (v1[0] + v2[0] + v3[0]) / 3;
    center[1] = (v1[1] + v2[1] + v3[1]) / 3;
    center[2] = (v1[2] + v2[2] + v3[2]) / 3;
  }
  double b[3] = {v2[0] - v1[0], v2[1] - v1[1], v2[2] - v1[2]};
  double c[3] = {v3[0] - v1[0], v3[1] - v1[1], v3[2] - v1[2]};
  cross3(n, b, c);
  double len = sqrt(dot3(n, n));
  if (len < MINVAL) return 0;
  if (normal) {
    normal[0] /= len;
    normal[1] /= len;
    normal[2] /= len;
  }
  return 0.5 * len;
}

//---------------------------------- convex hull (Qhull) -------------------------------------------

// MuJoCo's checks for degenerate point sets, before calling Qhull
static pxtStatus checkHullPoints(const double* dvert, int nvert, const char* name, pxStatus* st) {
  // second vertex distinct from vertex 0
  int v1 = -1;
  double len1 = 0;
  for (int i = 1; i < nvert; i++) {
    const double* a = dvert + 3 * i;
    len1 = sqrt((a[0] - dvert[0]) * (a[0] - dvert[0]) + (a[1] - dvert[1]) * (a[1] - dvert[1]) +
                (a[2] - dvert[2]) * (a[2] - dvert[2]));
    if (len1 > MINVAL) {
      v1 = i;
      break;
    }
  }
  if (v1 < 0) {
    return PX_FAIL(st, PX_ERR_MJCF,
                   "mesh '%s' has colocated vertices, cannot compute convex "
                   "hull. Consider using a small sphere instead",
                   name);
  }

  // first non-collinear triple
  double edge1[3] = {dvert[3 * v1] - dvert[0], dvert[3 * v1 + 1] - dvert[1],
                     dvert[3 * v1 + 2] - dvert[2]};
  double normal[3] = {0, 0, 0};
  int collinear = 1;
  for (int i = 1; i < nvert && collinear; i++) {
    if (i == v1) continue;
    double edge2[3] = {dvert[3 * i] - dvert[0], dvert[3 * i + 1] - dvert[1],
                       dvert[3 * i + 2] - dvert[2]};
    double len2 = sqrt(dot3(edge2, edge2));
    if (len2 < MINVAL) continue;
    cross3(normal, edge1, edge2);
    double norm = sqrt(dot3(normal, normal));
    if (norm > MINVAL * len1 * len2) {
      normal[0] /= norm;
      normal[1] /= norm;
      normal[2] /= norm;
      collinear = 0;
    }
  }
  if (collinear) {
    return PX_FAIL(st, PX_ERR_MJCF,
                   "mesh '%s' has collinear vertices, cannot compute convex "
                   "hull. Consider using a thin capsule instead",
                   name);
  }

  // a vertex off the plane
  double d = dot3(normal, dvert);
  for (int i = 0; i < nvert; i++) {
    if (fabs(dot3(normal, dvert + 3 * i) - d) > MINVAL * len1) return PX_OK;
  }
  return PX_FAIL(st, PX_ERR_MJCF,
                 "mesh '%s' has coplanar vertices, cannot compute convex hull. "
                 "Consider using a primitive geom type (plane or thin box) instead",
                 name);
}

// fill mesh->graph from a finished Qhull run (MuJoCo's MakeGraph layout); 0: internal error
static int fillGraph(qhT* qh, pxcMesh* mesh) {
  facetT *facet, **facetp;
  vertexT *vertex, *vertex1, **vertex1p;
  int nvert = mesh->nvert;
  int numvert = qh->num_vertices, numface = qh->num_facets;
  int* graph = malloc((size_t)(2 + 3 * numvert + 6 * numface) * sizeof(int));
  int* hullid = malloc((size_t)nvert * sizeof(int));
  if (!graph || !hullid) {
    free(graph);
    free(hullid);
    return -1;
  }
  graph[0] = numvert;
  graph[1] = numface;
  int* vert_edgeadr = graph + 2;
  int* vert_globalid = graph + 2 + numvert;
  int* edge_localid = graph + 2 + 2 * numvert;
  int* face_globalid = graph + 2 + 3 * numvert + 3 * numface;
  int ok = 1, i = 0, adr = 0;

  // per hull vertex: global id, then the ids of its neighbors, then -1
  FORALLvertices {
    int pid = qh_pointid(qh, vertex->point);
    if (pid < 0 || pid >= nvert || i >= numvert) {
      ok = 0;
      break;
    }
    vert_edgeadr[i] = adr;
    vert_globalid[i] = pid;
    int start = adr;
    FOREACHsetelement_(facetT, vertex->neighbors, facet) {
      int cnt = 0;
      FOREACHsetelement_(vertexT, facet->vertices, vertex1) {
        cnt++;
        int pid1 = qh_pointid(qh, vertex1->point);
        if (pid1 < 0 || pid1 >= nvert) {
          ok = 0;
          break;
        }
        if (pid != pid1) {
          int j = start;
          while (j < adr && edge_localid[j] != pid1) j++;
          if (j >= adr) {
            if (adr >= numvert + 3 * numface) {
              ok = 0;
              break;
            }
            edge_localid[adr++] = pid1;
          }
        }
      }
      if (cnt != 3 || !ok) ok = 0;
      if (!ok) break;
    }
    if (!ok || adr >= numvert + 3 * numface) {
      ok = 0;
      break;
    }
    edge_localid[adr++] = -1;
    i++;
  }
  if (ok && (adr != numvert + 3 * numface || i != numvert)) ok = 0;

  // triangles, oriented outward
  adr = 0;
  FORALLfacets {
    if (!ok) break;
    int ii = 0;
    int ind[3] = {0, 1, 2};
    if (facet->toporient) {
      ind[0] = 1;
      ind[1] = 0;
    }
    FOREACHsetelement_(vertexT, facet->vertices, vertex1) {
      if (ii >= 3 || adr >= 3 * numface) {
        ok = 0;
        break;
      }
      face_globalid[adr + ind[ii++]] = qh_pointid(qh, vertex1->point);
    }
    adr += 3;
  }
  if (ok && adr != 3 * numface) ok = 0;

  // neighbor ids: global (point) ids to local (hull vertex) ids
  if (ok) {
    for (int k = 0; k < nvert; k++) hullid[k] = -1;
    for (int k = 0; k < numvert; k++) hullid[vert_globalid[k]] = k;
    for (int k = 0; k < numvert + 3 * numface && ok; k++) {
      if (edge_localid[k] >= 0) {
        edge_localid[k] = hullid[edge_localid[k]];
        if (edge_localid[k] < 0) ok = 0;
      }
    }
  }
  free(hullid);
  if (!ok) {
    free(graph);
    return 0;
  }
  mesh->graph = graph;
  mesh->szgraph = 2 + 3 * numvert + 6 * numface;
  return 1;
}

// run Qhull; the setjmp frame is kept in this small function (nothing local changes after it)
static int runQhull(qhT* qh, double* dvert, int nvert, char* options, pxcMesh* mesh) {
  if (setjmp(qh->errexit)) return -2;
  qh->NOerrexit = False;
  qh_initflags(qh, options);
  qh_init_B(qh, dvert, nvert, 3, False);
  qh_qhull(qh);
  qh_triangulate(qh);
  qh_vertexneighbors(qh);
  qh->NOerrexit = True;
  return fillGraph(qh, mesh);
}

static pxtStatus makeGraph(pxcMesh* mesh, double* dvert, int maxhullvert, const char* name,
                           pxStatus* st) {
  if (mesh->nvert < 4) return PX_OK;
  pxtStatus code = checkHullPoints(dvert, mesh->nvert, name, st);
  if (code != PX_OK) return code;

  // Qhull options as in MuJoCo: triangulated output; "TA" counts points added after the
  // initial simplex, "Q9" picks the furthest point across facets
  char options[64] = "qhull Qt";
  if (maxhullvert > -1) {
    snprintf(options, sizeof(options), "qhull Qt Q9 TA%d", maxhullvert - 4);
  }

  // Qhull reports errors on a FILE*: capture them in memory for the message
  char* errbuf = NULL;
  size_t errlen = 0;
  FILE* ferr = open_memstream(&errbuf, &errlen);
  qhT* qh = calloc(1, sizeof(qhT));
  if (!qh) {
    if (ferr) fclose(ferr);
    free(errbuf);
    return PX_FAIL(st, PX_ERR_NOMEM, "mesh '%s': out of memory for Qhull", name);
  }
  qh_zero(qh, ferr ? ferr : stderr);
  qh_init_A(qh, stdin, stdout, ferr ? ferr : stderr, 0, NULL);
  int r = runQhull(qh, dvert, mesh->nvert, options, mesh);
  qh->NOerrexit = True;
  int curlong, totlong;
  qh_freeqhull(qh, !qh_ALL);
  qh_memfreeshort(qh, &curlong, &totlong);
  free(qh);
  if (ferr) fclose(ferr);

  // first line of Qhull's message
  if (errbuf) {
    char* nl = strchr(errbuf, '\n');
    if (nl) *nl = 0;
  }
  const char* qmsg = errbuf && errbuf[0] ? errbuf : "no message";
  if (r == -2) {
    code = PX_FAIL(st, PX_ERR_MJCF, "mesh '%s': qhull error: %s", name, qmsg);
  } else if (r == -1) {
    code = PX_FAIL(st, PX_ERR_NOMEM, "mesh '%s': out of memory for the convex hull graph", name);
  } else if (r == 0) {
    code = PX_FAIL(st, PX_ERR_INTERNAL, "mesh '%s': could not construct convex hull graph", name);
  }
  free(errbuf);
  return code;
}

//---------------------------------- polygons (MuJoCo's MakePolygons) ------------------------------
// Hull triangles whose normals round to the same (azimuth, polar) angle pair, in steps of 0.01
// rad, are merged into polygons: each group keeps its boundary edges (an edge shared by two of
// its triangles cancels) labelled by connected component ("island"), and each component's
// boundary, walked edge to edge, is one polygon. MuJoCo keeps the groups in a
// std::unordered_map keyed by the angle pair and emits them in the map's iteration order; its
// release library uses LLVM's libc++, so the polygon order is that of libc++'s hash table,
// which polyTable below reproduces: the hash of a double is its bit pattern (0 for +-0), a pair
// hashes to the XOR of the two, buckets grow 0 -> 2 -> prime >= 2n+1 when the size would
// exceed them, and a node enters at the front of its bucket's run, or at the front of the list
// when its bucket is empty.

#define POLY_ANGLE_TOL 0.01
#define POLY_PI 3.14159265358979323846

// one group of coplanar triangles: boundary edges as (from, to, island) triples
typedef struct {
  double key[2];
  uint64_t hash;
  int next;  // next node in iteration order, -1 at the end
  IntVec edge;
  int nisland;
} PolyNode;

// libc++-style hash table over PolyNode; "links" are 0 for the list head, node index + 1 else
typedef struct {
  PolyNode* node;
  size_t n, cap;
  int first;    // first node in iteration order, -1 if none
  int* bucket;  // per bucket: link preceding the bucket's run, -1 if empty
  size_t nbucket;
} PolyTable;

static uint64_t hashDouble(double x) {
  if (x == 0) return 0;
  uint64_t h;
  memcpy(&h, &x, sizeof(h));
  return h;
}

static size_t constrainHash(uint64_t h, size_t nb) {
  if (!(nb & (nb - 1))) return (size_t)(h & (nb - 1));
  return h < nb ? (size_t)h : (size_t)(h % nb);
}

static size_t nextPrime(size_t n) {
  if (n <= 2) return 2;
  for (;; n++) {
    int prime = n % 2 != 0;
    for (size_t d = 3; prime && d * d <= n; d += 2) prime = n % d != 0;
    if (prime) return n;
  }
}

static int linkNext(const PolyTable* t, int link) {
  return link == 0 ? t->first : t->node[link - 1].next;
}

static void setLinkNext(PolyTable* t, int link, int next) {
  if (link == 0) {
    t->first = next;
  } else {
    t->node[link - 1].next = next;
  }
}

// redistribute the nodes over nb buckets, keeping runs of equal buckets together (libc++)
static int polyRehash(PolyTable* t, size_t nb) {
  int* bucket = malloc(nb * sizeof(int));
  if (!bucket) return 0;
  free(t->bucket);
  t->bucket = bucket;
  t->nbucket = nb;
  for (size_t i = 0; i < nb; i++) bucket[i] = -1;
  int pp = 0, cp = t->first;
  if (cp < 0) return 1;
  size_t phash = constrainHash(t->node[cp].hash, nb);
  bucket[phash] = pp;
  pp = cp + 1;
  for (cp = t->node[cp].next; cp >= 0; cp = linkNext(t, pp)) {
    size_t chash = constrainHash(t->node[cp].hash, nb);
    if (chash == phash) {
      pp = cp + 1;
    } else if (bucket[chash] < 0) {
      bucket[chash] = pp;
      pp = cp + 1;
      phash = chash;
    } else {
      setLinkNext(t, pp, t->node[cp].next);
      t->node[cp].next = linkNext(t, bucket[chash]);
      setLinkNext(t, bucket[chash], cp);
    }
  }
  return 1;
}

// node with this key, or -1
static int polyFind(const PolyTable* t, const double key[2], uint64_t hash) {
  if (!t->nbucket) return -1;
  size_t chash = constrainHash(hash, t->nbucket);
  int link = t->bucket[chash];
  if (link < 0) return -1;
  for (int nd = linkNext(t, link); nd >= 0; nd = t->node[nd].next) {
    const PolyNode* p = t->node + nd;
    if (p->hash != hash && constrainHash(p->hash, t->nbucket) != chash) break;
    if (p->hash == hash && p->key[0] == key[0] && p->key[1] == key[1]) return nd;
  }
  return -1;
}

// append a node for a new key (not present), linked where libc++'s emplace puts it; -1: no memory
static int polyInsert(PolyTable* t, const double key[2], uint64_t hash) {
  if (!GROW(t->node, t->cap, t->n, 1)) return -1;
  size_t nb = t->nbucket;
  if ((float)(t->n + 1) > (float)nb * 1.0f || nb == 0) {
    size_t grow = 2 * nb + !(nb > 2 && !(nb & (nb - 1)));
    size_t need = (size_t)ceilf((float)(t->n + 1) / 1.0f);
    size_t want = grow > need ? grow : need;
    if (want == 1) {
      want = 2;
    } else if (want & (want - 1)) {
      want = nextPrime(want);
    }
    if (want > nb && !polyRehash(t, want)) return -1;
    nb = t->nbucket;
  }
  int id = (int)t->n++;
  PolyNode* p = t->node + id;
  memset(p, 0, sizeof(*p));
  p->key[0] = key[0];
  p->key[1] = key[1];
  p->hash = hash;
  size_t chash = constrainHash(hash, nb);
  int pn = t->bucket[chash];
  if (pn < 0) {
    p->next = t->first;
    t->first = id;
    t->bucket[chash] = 0;
    if (p->next >= 0) t->bucket[constrainHash(t->node[p->next].hash, nb)] = id + 1;
  } else {
    p->next = linkNext(t, pn);
    setLinkNext(t, pn, id);
  }
  return id;
}

static void polyTableFree(PolyTable* t) {
  for (size_t i = 0; i < t->n; i++) free(t->node[i].edge.data);
  free(t->node);
  free(t->bucket);
}

// rounded normal angles of triangle (v1, v2, v3); 0 for a degenerate triangle
static int polyKey(double key[2], const double* v1, const double* v2, const double* v3) {
  double d12[3] = {v2[0] - v1[0], v2[1] - v1[1], v2[2] - v1[2]};
  double d13[3] = {v3[0] - v1[0], v3[1] - v1[1], v3[2] - v1[2]};
  double nrm[3];
  cross3(nrm, d12, d13);
  double len = sqrt(dot3(nrm, nrm));
  if (len < MINVAL) return 0;

  // + 0.0 turns -0 into +0 (atan2 tells them apart)
  for (int k = 0; k < 3; k++) nrm[k] = nrm[k] / len + 0.0;
  key[0] = 0;
  key[1] = 0;
  if (fabs(nrm[2]) > 1.0 - 1e-7) {
    if (nrm[2] < 0) key[1] = round(POLY_PI / POLY_ANGLE_TOL);
    return 1;
  }
  key[0] = round(atan2(nrm[1], nrm[0]) / POLY_ANGLE_TOL);
  key[1] = round(acos(nrm[2]) / POLY_ANGLE_TOL);
  return 1;
}

// remove edge triple i
static void polyEraseEdge(IntVec* e, size_t i) {
  memmove(e->data + 3 * i, e->data + 3 * i + 3, (e->n - 3 * i - 3) * sizeof(int));
  e->n -= 3;
}

// first edge (to, from) reversed of (from, to): its index, or -1
static long polyFindEdge(const IntVec* e, int from, int to) {
  for (size_t i = 0; 3 * i < e->n; i++) {
    if (e->data[3 * i] == to && e->data[3 * i + 1] == from) return (long)i;
  }
  return -1;
}

// islands a and b meet: keep the smaller label, shift the labels above the larger one down
static void polyCombine(PolyNode* p, int* a, int* b) {
  if (*b < *a) {
    int tmp = *a;
    *a = *b;
    *b = tmp;
  }
  for (size_t k = 0; 3 * k < p->edge.n; k++) {
    int* isl = p->edge.data + 3 * k + 2;
    if (*isl == *b) {
      *isl = *a;
    } else if (*isl > *b) {
      (*isl)--;
    }
  }
}

static int pushEdge(IntVec* e, int from, int to, int island) {
  return pushInt(e, from) && pushInt(e, to) && pushInt(e, island);
}

// add triangle (v1, v2, v3) to a group: shared edges cancel, islands it touches merge; 0: no memory
static int polyAddFace(PolyNode* p, int v1, int v2, int v3) {
  int vv[3] = {v1, v2, v3}, add[3] = {1, 1, 1};
  int island = -1;
  for (int s = 0; s < 3; s++) {
    long i = polyFindEdge(&p->edge, vv[s], vv[(s + 1) % 3]);
    if (i < 0) continue;
    int other = p->edge.data[3 * i + 2];
    if (island == -1) {
      island = other;
    } else if (other != island) {
      p->nisland--;
      polyCombine(p, &island, &other);
    }
    add[s] = 0;
    polyEraseEdge(&p->edge, (size_t)i);
  }
  if (island == -1) island = p->nisland++;
  for (int s = 0; s < 3; s++) {
    if (add[s] && !pushEdge(&p->edge, vv[s], vv[(s + 1) % 3], island)) return 0;
  }
  return 1;
}

// append the boundary loops of a group (polygons with 3 or more vertices) to out/num; 0: no memory
static int polyPaths(const PolyNode* p, IntVec* out, IntVec* num) {
  const int* e = p->edge.data;
  int ne = (int)(p->edge.n / 3);
  if (ne == 3) {
    return pushInt(out, e[0]) && pushInt(out, e[3]) && pushInt(out, e[6]) && pushInt(num, 3);
  }
  for (int isl = 0; isl < p->nisland; isl++) {
    size_t start = out->n;
    int j = 0;
    while (j < ne && e[3 * j + 2] != isl) j++;
    if (j == ne) continue;
    if (!pushInt(out, e[3 * j]) || !pushInt(out, e[3 * j + 1])) return 0;
    int head = e[3 * j], next = e[3 * j + 1], closed = 0;

    // follow the edge leaving the current vertex (MuJoCo's scan starts at edge 1)
    for (int l = 0; l < ne && !closed; l++) {
      for (int k = 1; k < ne; k++) {
        if (e[3 * k + 2] == isl && e[3 * k] == next) {
          next = e[3 * k + 1];
          if (next == head) {
            closed = 1;
          } else if (!pushInt(out, next)) {
            return 0;
          }
          break;
        }
      }
    }
    int len = (int)(out->n - start);
    if (!closed || len < 3) {
      out->n = start;
    } else if (!pushInt(num, len)) {
      return 0;
    }
  }
  return 1;
}

// build mesh->poly* from the hull triangles (dvert: untransformed vertices); 0: no memory
static int makePolygons(pxcMesh* mesh, const double* dvert) {
  const int* graph = mesh->graph;
  int nface = graph[1];
  const int* face = graph + 2 + 3 * graph[0] + 3 * nface;
  PolyTable t;
  memset(&t, 0, sizeof(t));
  t.first = -1;
  IntVec vert = {0}, num = {0};
  int ok = 1;
  for (int i = 0; i < nface && ok; i++) {
    const int* f = face + 3 * i;
    double key[2];
    if (!polyKey(key, dvert + 3 * f[0], dvert + 3 * f[1], dvert + 3 * f[2])) continue;
    uint64_t hash = hashDouble(key[0]) ^ hashDouble(key[1]);
    int nd = polyFind(&t, key, hash);
    if (nd >= 0) {
      ok = polyAddFace(t.node + nd, f[0], f[1], f[2]);
    } else {
      nd = polyInsert(&t, key, hash);
      ok = nd >= 0 && pushEdge(&t.node[nd].edge, f[0], f[1], 0) &&
           pushEdge(&t.node[nd].edge, f[1], f[2], 0) && pushEdge(&t.node[nd].edge, f[2], f[0], 0);
      if (ok) t.node[nd].nisland = 1;
    }
  }
  for (int nd = t.first; nd >= 0 && ok; nd = t.node[nd].next)
    ok = polyPaths(t.node + nd, &vert, &num);
  polyTableFree(&t);

  // vertex -> polygon map, in polygon order
  int nvert = mesh->nvert, npoly = (int)num.n;
  mesh->polymapnum = ok ? calloc((size_t)nvert + 1, sizeof(int)) : NULL;
  mesh->polymap = ok ? malloc(vert.n * sizeof(int) + 1) : NULL;
  mesh->polynormal = ok ? calloc(3 * (size_t)npoly + 1, sizeof(double)) : NULL;
  int* fill = ok ? calloc((size_t)nvert + 1, sizeof(int)) : NULL;
  if (!mesh->polymapnum || !mesh->polymap || !mesh->polynormal || !fill) {
    free(vert.data);
    free(num.data);
    free(fill);
    return 0;
  }
  mesh->npoly = npoly;
  mesh->npolyvert = (int)vert.n;
  mesh->polyvertnum = num.data;
  mesh->polyvert = vert.data;
  mesh->npolymap = (int)vert.n;
  if (!mesh->polyvertnum) mesh->polyvertnum = calloc(1, sizeof(int));
  if (!mesh->polyvert) mesh->polyvert = calloc(1, sizeof(int));
  for (size_t k = 0; k < vert.n; k++) mesh->polymapnum[vert.data[k]]++;
  for (int v = 1; v < nvert; v++) fill[v] = fill[v - 1] + mesh->polymapnum[v - 1];
  for (int i = 0, adr = 0; i < npoly; i++) {
    for (int j = 0; j < num.data[i]; j++) {
      int v = vert.data[adr + j];
      mesh->polymap[fill[v]++] = i;
    }
    adr += num.data[i];
  }
  free(fill);
  return mesh->polyvertnum && mesh->polyvert;
}

// polygon normals from the first three vertices of each polygon (mjuu_makenormal), on the final
// (principal-frame, double) vertices
static void polygonNormals(pxcMesh* mesh, const double* dvert) {
  for (int i = 0, adr = 0; i < mesh->npoly; i++) {
    const int* pv = mesh->polyvert + adr;
    const double* a = dvert + 3 * pv[0];
    const double* b = dvert + 3 * pv[1];
    const double* c = dvert + 3 * pv[2];
    double ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double ac[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double* n = mesh->polynormal + 3 * i;
    cross3(n, ab, ac);
    double len = sqrt(dot3(n, n));
    if (len < EPS) {
      n[0] = 1;
      n[1] = 0;
      n[2] = 0;
    } else {
      n[0] /= len;
      n[1] /= len;
      n[2] /= len;
    }
    adr += mesh->polyvertnum[i];
  }
}

//---------------------------------- mass properties -----------------------------------------------

// area-weighted centroid of the faces; returns the total area
static double faceCentroid(double facecen[3], const double* dvert, const int* face, int nface) {
  double total = 0;
  for (int i = 0; i < nface; i++) {
    double center[3];
    const int* f = face + 3 * i;
    double area = triangle(NULL, center, dvert + 3 * f[0], dvert + 3 * f[1], dvert + 3 * f[2]);
    facecen[0] += area * center[0];
    facecen[1] += area * center[1];
    facecen[2] += area * center[2];
    total += area;
  }
  if (total >= MINVAL) {
    facecen[0] /= total;
    facecen[1] /= total;
    facecen[2] /= total;
  }
  return total;
}

// volume and center of mass from pyramids to facecen (legacy: unsigned pyramid volumes)
static double computeVolume(double com[3], const double facecen[3], const double* dvert,
                            const int* face, int nface, int legacy) {
  double total = 0;
  com[0] = com[1] = com[2] = 0;
  for (int i = 0; i < nface; i++) {
    double normal[3], center[3];
    const int* f = face + 3 * i;
    double area = triangle(normal, center, dvert + 3 * f[0], dvert + 3 * f[1], dvert + 3 * f[2]);
    double vec[3] = {center[0] - facecen[0], center[1] - facecen[1], center[2] - facecen[2]};
    double volume = dot3(vec, normal) * area / 3;
    if (legacy) volume = fabs(volume);
    total += volume;
    com[0] += volume * (center[0] * 3.0 / 4.0 + facecen[0] / 4.0);
    com[1] += volume * (center[1] * 3.0 / 4.0 + facecen[1] / 4.0);
    com[2] += volume * (center[2] * 3.0 / 4.0 + facecen[2] / 4.0);
  }
  if (total >= MINVAL) {
    com[0] /= total;
    com[1] /= total;
    com[2] /= total;
  }
  return total;
}

// surface area and center of mass of the faces
static double computeSurface(double com[3], const double facecen[3], const double* dvert,
                             const int* face, int nface) {
  double total = 0;
  com[0] = com[1] = com[2] = 0;
  for (int i = 0; i < nface; i++) {
    double center[3];
    const int* f = face + 3 * i;
    double area = triangle(NULL, center, dvert + 3 * f[0], dvert + 3 * f[1], dvert + 3 * f[2]);
    total += area;
    com[0] += area * (center[0] * 3.0 / 4.0 + facecen[0] / 4.0);
    com[1] += area * (center[1] * 3.0 / 4.0 + facecen[1] / 4.0);
    com[2] += area * (center[2] * 3.0 / 4.0 + facecen[2] / 4.0);
  }
  if (total >= MINVAL) {
    com[0] /= total;
    com[1] /= total;
    com[2] /= total;
  }
  return total;
}

// inertia about com per unit density (xx, yy, zz, xy, xz, yz); returns the recomputed
// volume (or area for shell)
static double computeInertia(double inert[6], const double com[3], const double* dvert, int nvert,
                             const int* face, int nface, int mode, double* centered) {
  static const int k[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};
  for (int i = 0; i < nvert; i++) {
    centered[3 * i + 0] = dvert[3 * i + 0] - com[0];
    centered[3 * i + 1] = dvert[3 * i + 1] - com[1];
    centered[3 * i + 2] = dvert[3 * i + 2] - com[2];
  }
  double P[6] = {0, 0, 0, 0, 0, 0};
  double total = 0;
  double C = (mode == PX_MESH_INERTIA_SHELL) ? 12 : 20;
  for (int i = 0; i < nface; i++) {
    const double* D = centered + 3 * face[3 * i + 0];
    const double* E = centered + 3 * face[3 * i + 1];
    const double* F = centered + 3 * face[3 * i + 2];
    double normal[3], center[3];
    double area = triangle(normal, center, D, E, F);
    double volume = (mode == PX_MESH_INERTIA_SHELL) ? area : dot3(center, normal) * area / 3;
    if (mode == PX_MESH_INERTIA_LEGACY) volume = fabs(volume);
    total += volume;
    for (int j = 0; j < 6; j++) {
      int a = k[j][0], b = k[j][1];
      P[j] += volume / C *
              (2 * (D[a] * D[b] + E[a] * E[b] + F[a] * F[b]) + D[a] * E[b] + D[b] * E[a] +
               D[a] * F[b] + D[b] * F[a] + E[a] * F[b] + E[b] * F[a]);
    }
  }
  inert[0] = P[1] + P[2];
  inert[1] = P[0] + P[2];
  inert[2] = P[0] + P[1];
  inert[3] = -P[3];
  inert[4] = -P[4];
  inert[5] = -P[5];
  return total;
}

// pair comparison for the half-edge check
static int cmpEdge(const void* a, const void* b) {
  const int* x = a;
  const int* y = b;
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  if (x[1] != y[1]) return x[1] < y[1] ? -1 : 1;
  return 0;
}

// exact inertia needs consistently oriented faces: no directed edge may appear twice
static pxtStatus checkOrientation(const pxcMesh* mesh, const double* dvert, const char* name,
                                  pxStatus* st) {
  int* edge = malloc((size_t)mesh->nface * 6 * sizeof(int) + 1);
  if (!edge) return PX_FAIL(st, PX_ERR_NOMEM, "mesh '%s': out of memory", name);
  size_t n = 0;
  for (int i = 0; i < mesh->nface; i++) {
    const int* f = mesh->face + 3 * i;
    if (triangle(NULL, NULL, dvert + 3 * f[0], dvert + 3 * f[1], dvert + 3 * f[2]) > sqrt(MINVAL)) {
      for (int j = 0; j < 3; j++) {
        edge[2 * n] = f[j];
        edge[2 * n + 1] = f[(j + 1) % 3];
        n++;
      }
    }
  }
  qsort(edge, n, 2 * sizeof(int), cmpEdge);
  pxtStatus code = PX_OK;
  for (size_t i = 0; i + 1 < n; i++) {
    if (edge[2 * i] == edge[2 * i + 2] && edge[2 * i + 1] == edge[2 * i + 3]) {
      code = PX_FAIL(st, PX_ERR_MJCF,
                     "faces of mesh '%s' have inconsistent orientation. Please "
                     "check the faces containing the vertices %d and %d.",
                     name, edge[2 * i] + 1, edge[2 * i + 1] + 1);
      break;
    }
  }
  free(edge);
  return code;
}

//---------------------------------- processing ----------------------------------------------------

// MuJoCo's CheckInitialMesh
static pxtStatus checkMesh(const pxcMesh* mesh, const char* name, pxStatus* st) {
  if (mesh->nvert < 4) {
    return PX_FAIL(st, PX_ERR_MJCF, "mesh '%s': at least 4 vertices required (got %d)", name,
                   mesh->nvert);
  }
  for (int i = 0; i < 3 * mesh->nface; i++) {
    if (mesh->face[i] >= mesh->nvert || mesh->face[i] < 0) {
      return PX_FAIL(st, PX_ERR_MJCF,
                     "mesh '%s': in face %d, vertex index %d does not exist "
                     "(%d vertices)",
                     name, i / 3, mesh->face[i], mesh->nvert);
    }
  }
  return PX_OK;
}

// refpos, refquat and scale (MuJoCo's ApplyTransformations)
static void transformVertices(double* dvert, int nvert, const pxcMeshDef* def) {
  const double* rp = def->refpos;
  if (rp[0] != 0 || rp[1] != 0 || rp[2] != 0) {
    for (int i = 0; i < nvert; i++) {
      dvert[3 * i + 0] -= rp[0];
      dvert[3 * i + 1] -= rp[1];
      dvert[3 * i + 2] -= rp[2];
    }
  }
  const double* rq = def->refquat;
  if (rq[0] != 1 || rq[1] != 0 || rq[2] != 0 || rq[3] != 0) {
    double q[4] = {rq[0], rq[1], rq[2], rq[3]};
    double m[9];
    normVec4(q);
    pxu_quat2Mat(m, q);
    for (int i = 0; i < nvert; i++) {
      double* v = dvert + 3 * i;
      double t[3] = {m[0] * v[0] + m[3] * v[1] + m[6] * v[2],
                     m[1] * v[0] + m[4] * v[1] + m[7] * v[2],
                     m[2] * v[0] + m[5] * v[1] + m[8] * v[2]};
      v[0] = t[0], v[1] = t[1], v[2] = t[2];
    }
  }
  const double* s = def->scale;
  if (s[0] != 1 || s[1] != 1 || s[2] != 1) {
    for (int i = 0; i < nvert; i++) {
      dvert[3 * i + 0] *= s[0];
      dvert[3 * i + 1] *= s[1];
      dvert[3 * i + 2] *= s[2];
    }
  }
}

// the user normals under refquat and scale (normals are covectors: divided by the scale), each
// then normalized in float (MuJoCo's ApplyTransformations)
static void transformNormals(pxcMesh* mesh, const pxcMeshDef* def) {
  const double* rq = def->refquat;
  if (rq[0] != 1 || rq[1] != 0 || rq[2] != 0 || rq[3] != 0) {
    double q[4] = {rq[0], rq[1], rq[2], rq[3]};
    double m[9];
    normVec4(q);
    pxu_quat2Mat(m, q);
    for (int i = 0; i < mesh->nnormal; i++) {
      float* n = mesh->normal + 3 * i;
      double v[3] = {n[0], n[1], n[2]};
      n[0] = (float)(m[0] * v[0] + m[3] * v[1] + m[6] * v[2]);
      n[1] = (float)(m[1] * v[0] + m[4] * v[1] + m[7] * v[2]);
      n[2] = (float)(m[2] * v[0] + m[5] * v[1] + m[8] * v[2]);
    }
  }
  const double* s = def->scale;
  if (s[0] != 1 || s[1] != 1 || s[2] != 1) {
    for (int i = 0; i < mesh->nnormal; i++) {
      for (int k = 0; k < 3; k++) mesh->normal[3 * i + k] = (float)(mesh->normal[3 * i + k] / s[k]);
    }
  }
  for (int i = 0; i < mesh->nnormal; i++) {
    float* n = mesh->normal + 3 * i;
    float len = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
    if (len > MINVAL) {
      float scl = 1 / sqrtf(len);
      n[0] *= scl;
      n[1] *= scl;
      n[2] *= scl;
    } else {
      n[0] = 0;
      n[1] = 0;
      n[2] = 1;
    }
  }
}

// volume, center of mass, principal inertia and frame; fills mesh->pos, quat, volume/surface,
// eigval, boxsz
static pxtStatus massProperties(pxcMesh* mesh, const double* dvert, int mode, const char* name,
                                double* work, pxStatus* st) {
  const int* face = mesh->face;
  int nface = mesh->nface;
  const int* hface = mode == PX_MESH_INERTIA_CONVEX
                         ? mesh->graph + 2 + 3 * (mesh->graph[0] + mesh->graph[1])
                         : face;
  int nhface = mode == PX_MESH_INERTIA_CONVEX ? mesh->graph[1] : nface;

  // reference point: area-weighted centroid of the faces
  double facecen[3] = {0, 0, 0};
  if (faceCentroid(facecen, dvert, face, nface) < MINVAL) {
    return PX_FAIL(st, PX_ERR_MJCF, "mesh surface area is too small: %s", name);
  }

  // center of mass and volume (or area)
  double com[3] = {0, 0, 0};
  if (mode == PX_MESH_INERTIA_SHELL) {
    mesh->surface = computeSurface(com, facecen, dvert, face, nface);
    if (mesh->surface < MINVAL) {
      return PX_FAIL(st, PX_ERR_MJCF, "mesh surface area is too small: %s", name);
    }
  } else {
    mesh->volume =
        computeVolume(com, facecen, dvert, hface, nhface, mode == PX_MESH_INERTIA_LEGACY);
    if (mesh->volume < MINVAL) {
      if (mesh->volume < 0) {
        return PX_FAIL(st, PX_ERR_MJCF, "mesh volume is negative (misoriented triangles): %s",
                       name);
      }
      return PX_FAIL(st, PX_ERR_MJCF,
                     "mesh volume is too small: %s . Try setting inertia to "
                     "shell",
                     name);
    }
  }

  // inertia about the center of mass; the volume (or area) is recomputed on the way
  double inert[6];
  double total = computeInertia(inert, com, dvert, mesh->nvert, hface, nhface, mode, work);
  if (mode == PX_MESH_INERTIA_SHELL) {
    mesh->surface = total;
  } else {
    mesh->volume = total;
  }

  // principal axes
  double eigvec[9], quat[4];
  double full[9] = {inert[0], inert[3], inert[4], inert[3], inert[1],
                    inert[5], inert[4], inert[5], inert[2]};
  double* ev = mesh->eigval;
  pxu_eig3(ev, eigvec, quat, full);
  if (ev[2] <= 0) {
    return PX_FAIL(st, PX_ERR_MJCF, "eigenvalue of mesh inertia must be positive: %s", name);
  }
  const double atol = 1e-9, rtol = 1e-6;
  if (ev[0] + ev[1] < ev[2] * (1.0 - rtol) - atol || ev[0] + ev[2] < ev[1] * (1.0 - rtol) - atol ||
      ev[1] + ev[2] < ev[0] * (1.0 - rtol) - atol) {
    return PX_FAIL(st, PX_ERR_MJCF, "eigenvalues of mesh inertia violate A + B >= C: %s", name);
  }

  // equivalent inertia box
  double volume = mode == PX_MESH_INERTIA_SHELL ? mesh->surface : mesh->volume;
  mesh->boxsz[0] = 0.5 * sqrt(6 * (ev[1] + ev[2] - ev[0]) / volume);
  mesh->boxsz[1] = 0.5 * sqrt(6 * (ev[0] + ev[2] - ev[1]) / volume);
  mesh->boxsz[2] = 0.5 * sqrt(6 * (ev[0] + ev[1] - ev[2]) / volume);
  for (int i = 0; i < 3; i++) mesh->pos[i] = com[i];
  for (int i = 0; i < 4; i++) mesh->quat[i] = quat[i];
  return PX_OK;
}

pxtStatus pxc_meshProcess(pxcMesh* mesh, const pxcMeshDef* def, pxStatus* st) {
  pxcMeshDef dflt;
  if (!def) {
    pxc_defaultMeshDef(&dflt);
    def = &dflt;
  }
  const char* name = meshName(mesh, def);
  int mode = def->inertia;
  if (mesh->processed) return PX_FAIL(st, PX_ERR_ARG, "mesh '%s': already processed", name);
  if (mode < PX_MESH_INERTIA_CONVEX || mode > PX_MESH_INERTIA_SHELL) {
    return PX_FAIL(st, PX_ERR_ARG, "mesh '%s': invalid inertia mode %d", name, mode);
  }
  if (def->maxhullvert != -1 && def->maxhullvert < 4) {
    return PX_FAIL(st, PX_ERR_ARG, "mesh '%s': maxhullvert must be larger than 3 (got %d)", name,
                   def->maxhullvert);
  }
  for (int i = 0; i < 3; i++) {
    if (!isfinite(def->scale[i]) || !isfinite(def->refpos[i])) {
      return PX_FAIL(st, PX_ERR_ARG, "mesh '%s': non-finite scale or refpos", name);
    }
  }
  pxtStatus code = checkMesh(mesh, name, st);
  if (code != PX_OK) return code;

  // work in double; work2 holds centered vertices for the inertia
  int nvert = mesh->nvert;
  double* dvert = malloc(6 * (size_t)nvert * sizeof(double));
  if (!dvert) return PX_FAIL(st, PX_ERR_NOMEM, "mesh '%s': out of memory", name);
  double* work = dvert + 3 * (size_t)nvert;
  for (int i = 0; i < 3 * nvert; i++) dvert[i] = mesh->vert[i];

  // exact inertia needs consistently oriented faces
  if (mode == PX_MESH_INERTIA_EXACT) code = checkOrientation(mesh, dvert, name, st);

  // convex hull on the untransformed vertices; a mesh without faces takes the hull's
  if (code == PX_OK && (def->needhull || mode == PX_MESH_INERTIA_CONVEX || mesh->nface == 0)) {
    code = makeGraph(mesh, dvert, def->maxhullvert, name, st);
  }
  if (code == PX_OK && mesh->nface == 0) {
    int numface = mesh->graph[1];
    free(mesh->face);
    mesh->face = malloc(3 * (size_t)numface * sizeof(int) + 1);
    if (!mesh->face) {
      code = PX_FAIL(st, PX_ERR_NOMEM, "mesh '%s': out of memory", name);
    } else {
      memcpy(mesh->face, mesh->graph + 2 + 3 * (mesh->graph[0] + numface),
             3 * (size_t)numface * sizeof(int));
      mesh->nface = numface;
    }
  }

  // polygons of the hull (merged coplanar triangles), on the untransformed vertices
  if (code == PX_OK && mesh->szgraph && !makePolygons(mesh, dvert)) {
    code = PX_FAIL(st, PX_ERR_NOMEM, "mesh '%s': out of memory for the mesh polygons", name);
  }

  // left-handed scale: reverse the winding (an MSH file was already reversed at load in
  // MuJoCo, so its faces end up unchanged)
  int righthand = def->scale[0] * def->scale[1] * def->scale[2] > 0;
  if (code == PX_OK && !righthand && !mesh->msh) {
    for (int i = 0; i < mesh->nface; i++) {
      int tmp = mesh->face[3 * i + 1];
      mesh->face[3 * i + 1] = mesh->face[3 * i + 2];
      mesh->face[3 * i + 2] = tmp;
    }
  }

  // user transformation, then mass properties
  if (code == PX_OK) {
    transformVertices(dvert, nvert, def);
    transformNormals(mesh, def);
    code = massProperties(mesh, dvert, mode, name, work, st);
  }

  // move to the principal frame: subtract the center of mass, rotate by the inverse quat
  if (code == PX_OK) {
    double neg[4] = {mesh->quat[0], -mesh->quat[1], -mesh->quat[2], -mesh->quat[3]};
    double m[9];
    pxu_quat2Mat(m, neg);
    double* a = mesh->aamm;
    a[0] = a[1] = a[2] = 1e10;
    a[3] = a[4] = a[5] = -1e10;
    for (int i = 0; i < nvert; i++) {
      double* v = dvert + 3 * i;
      v[0] -= mesh->pos[0];
      v[1] -= mesh->pos[1];
      v[2] -= mesh->pos[2];
      double t[3] = {m[0] * v[0] + m[1] * v[1] + m[2] * v[2],
                     m[3] * v[0] + m[4] * v[1] + m[5] * v[2],
                     m[6] * v[0] + m[7] * v[1] + m[8] * v[2]};
      for (int k = 0; k < 3; k++) {
        v[k] = t[k];
        a[k] = fmin(a[k], v[k]);
        a[k + 3] = fmax(a[k + 3], v[k]);
      }
    }

    // user normals into the principal frame (MuJoCo's Rotate)
    for (int i = 0; i < mesh->nnormal; i++) {
      float* nr = mesh->normal + 3 * i;
      double v[3] = {nr[0], nr[1], nr[2]};
      for (int k = 0; k < 3; k++) {
        nr[k] = (float)(m[3 * k + 0] * v[0] + m[3 * k + 1] * v[1] + m[3 * k + 2] * v[2]);
      }
    }

    // polygon normals on the final vertices, then narrow back to float
    polygonNormals(mesh, dvert);
    for (int i = 0; i < 3 * nvert; i++) mesh->vert[i] = (float)dvert[i];
    mesh->inertia = mode;
    mesh->processed = 1;
  }
  free(dvert);
  return code;
}
