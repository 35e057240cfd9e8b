// SPDX-License-Identifier: Apache-2.0
// Unit tests for the mesh compiler (csrc/mjcf/mesh.c) and the 3x3 eigen solver
// (csrc/util/eig3.c): analytic cases, files from MuJoCo's model directory, error paths, and
// reference numbers produced by MuJoCo itself (tests/c/mesh_refs.h, from gen_mesh_refs.py).
// Run from the repository root: model files are read through ../shared/models/mujoco.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "px/pxstatus.h"
#include "mjcf/mesh.h"
#include "util/eig3.h"

#include "harness.h"
#include "mesh_refs.h"

//---------------------------------- helpers -------------------------------------------------------

static const double kCubeV[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                    {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
static const int kCubeF[12][3] = {{0, 2, 1}, {0, 3, 2}, {4, 5, 6}, {4, 6, 7}, {0, 1, 5}, {0, 5, 4},
                                  {1, 2, 6}, {1, 6, 5}, {2, 3, 7}, {2, 7, 6}, {3, 0, 4}, {3, 4, 7}};
static const double kTetV[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
static const int kTetF[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};

static char tmpdir[64];  // scratch directory for generated files

// write a file in tmpdir; returns its path in buf
static const char* writeTmp(char* buf, size_t n, const char* name, const void* data, size_t size) {
  snprintf(buf, n, "%s/%s", tmpdir, name);
  FILE* f = fopen(buf, "wb");
  if (f) {
    fwrite(data, 1, size, f);
    fclose(f);
  }
  return buf;
}

// binary STL with the given triangles (9 floats each)
static size_t makeSTL(unsigned char* buf, const float* tri, int ntri, int declared) {
  memset(buf, 0, 84);
  memcpy(buf, "solid binary header", 19);
  memcpy(buf + 80, &declared, 4);
  for (int i = 0; i < ntri; i++) {
    memset(buf + 84 + 50 * i, 0, 50);
    memcpy(buf + 84 + 50 * i + 12, tri + 9 * i, 36);
  }
  return 84 + 50 * (size_t)ntri;
}

// process inline data; returns the status code
static pxtStatus processInline(pxcMesh* m, const double* v, int nv, const int* f, int nf, int mode,
                               int needhull, const double scale[3], pxStatus* st) {
  pxc_meshInit(m);
  px_statusClear(st);
  pxtStatus code = pxc_meshSetInline(m, v, nv, f, nf, st);
  if (code != PX_OK) return code;
  pxcMeshDef def;
  pxc_defaultMeshDef(&def);
  def.inertia = mode;
  def.needhull = needhull;
  def.name = "inline";
  if (scale) memcpy(def.scale, scale, sizeof(def.scale));
  return pxc_meshProcess(m, &def, st);
}

// matrix-vector product with a column of R (row-major 3x3)
static void column(double out[3], const double R[9], int c) {
  out[0] = R[c];
  out[1] = R[3 + c];
  out[2] = R[6 + c];
}

static double maxAbs(const double* a, int n) {
  double m = 0;
  for (int i = 0; i < n; i++) m = fmax(m, fabs(a[i]));
  return m;
}

static unsigned fnv(const int* x, int n) {
  unsigned h = 2166136261u;
  for (int i = 0; i < n; i++) {
    h ^= (unsigned)x[i];
    h *= 16777619u;
  }
  return h;
}

//---------------------------------- eigen solver --------------------------------------------------

static int test_eig3_analytic(void) {
  double ev[3], R[9], q[4];

  // identity: no rotation
  const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  pxu_eig3(ev, R, q, I);
  ENSURE(q[0] == 1 && q[1] == 0 && q[2] == 0 && q[3] == 0);
  ENSURE(ev[0] == 1 && ev[1] == 1 && ev[2] == 1);

  // diagonal, increasing: sorted into decreasing order
  const double D[9] = {1, 0, 0, 0, 2, 0, 0, 0, 3};
  pxu_eig3(ev, R, q, D);
  ENSURE_NEAR(ev[0], 3, 1e-15);
  ENSURE_NEAR(ev[1], 2, 1e-15);
  ENSURE_NEAR(ev[2], 1, 1e-15);

  // general symmetric: M v = lambda v up to MuJoCo's stopping rule (rotations below about
  // 1.4e-6 rad are not applied), R orthonormal, |q| = 1
  const double M[9] = {2, 0.3, -0.1, 0.3, 1.5, 0.2, -0.1, 0.2, 1};
  pxu_eig3(ev, R, q, M);
  ENSURE(ev[0] >= ev[1] && ev[1] >= ev[2]);
  for (int c = 0; c < 3; c++) {
    double v[3], Mv[3];
    column(v, R, c);
    for (int r = 0; r < 3; r++) Mv[r] = M[3 * r] * v[0] + M[3 * r + 1] * v[1] + M[3 * r + 2] * v[2];
    for (int r = 0; r < 3; r++) ENSURE_NEAR(Mv[r], ev[c] * v[r], 1e-6);
    for (int c2 = 0; c2 < 3; c2++) {
      double w[3];
      column(w, R, c2);
      ENSURE_NEAR(v[0] * w[0] + v[1] * w[1] + v[2] * w[2], c == c2, 1e-12);
    }
  }
  ENSURE_NEAR(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1, 1e-14);
  return 0;
}

// MuJoCo's own results: the compiler path (fullinertia) bit for bit, mju_eig3 to roundoff
static int test_eig3_refs(void) {
  int n = (int)(sizeof(kEigRefs) / sizeof(kEigRefs[0])), nbody = 0, exact = 0;
  for (int i = 0; i < n; i++) {
    const EigRef* r = kEigRefs + i;
    double ev[3], R[9], q[4];
    pxu_eig3(ev, R, q, r->mat);
    double scale = fmax(maxAbs(r->mat, 9), 1e-300);
    for (int k = 0; k < 3; k++) ENSURE_NEAR(ev[k] / scale, r->eigval[k] / scale, 1e-12);
    for (int k = 0; k < 4; k++) ENSURE_NEAR(q[k], r->quat[k], 1e-12);
    if (r->hasbody) {
      nbody++;
      int same = 1;
      for (int k = 0; k < 3; k++) {
        ENSURE_NEAR(ev[k] / scale, r->bodyinertia[k] / scale, 1e-14);
        same &= ev[k] == r->bodyinertia[k];
      }
      for (int k = 0; k < 4; k++) {
        ENSURE_NEAR(q[k], r->bodyquat[k], 1e-14);
        same &= q[k] == r->bodyquat[k];
      }
      exact += same;
    }
  }
  printf("eig3: %d matrices; compiler path %d/%d bit-exact\n", n, exact, nbody);
  return 0;
}

//---------------------------------- analytic meshes -----------------------------------------------

static int test_cube(void) {
  pxStatus st;
  pxcMesh m;
  for (int mode = 0; mode < 4; mode++) {
    pxtStatus code = processInline(&m, kCubeV[0], 8, kCubeF[0], 12, mode, 1, NULL, &st);
    ENSURE(code == PX_OK);
    if (code != PX_OK) {
      fprintf(stderr, "cube mode %d: %s\n", mode, st.msg);
      pxc_meshFree(&m);
      continue;
    }
    ENSURE(m.nvert == 8 && m.nface == 12);
    ENSURE(m.szgraph == 2 + 3 * 8 + 6 * 12 && m.graph[0] == 8 && m.graph[1] == 12);
    for (int k = 0; k < 3; k++) ENSURE_NEAR(m.pos[k], 0.5, 1e-15);
    if (mode == PX_MESH_INERTIA_SHELL) {
      ENSURE_NEAR(pxc_meshVolumeRef(&m), 6, 1e-14);
      for (int k = 0; k < 3; k++) ENSURE_NEAR(m.eigval[k], 5.0 / 3.0, 1e-14);
    } else {
      ENSURE_NEAR(pxc_meshVolumeRef(&m), 1, 1e-14);
      for (int k = 0; k < 3; k++) ENSURE_NEAR(m.eigval[k], 1.0 / 6.0, 1e-14);
      for (int k = 0; k < 3; k++) ENSURE_NEAR(m.boxsz[k], 0.5, 1e-14);
    }
    for (int i = 0; i < 24; i++) ENSURE_NEAR(fabs(m.vert[i]), 0.5f, 1e-7);
    for (int k = 0; k < 3; k++) {
      ENSURE_NEAR(m.aamm[k], -0.5, 1e-7);
      ENSURE_NEAR(m.aamm[k + 3], 0.5, 1e-7);
    }
    pxc_meshFree(&m);
  }
  return 0;
}

static int test_tetrahedron(void) {
  pxStatus st;
  pxcMesh m;
  for (int mode = 0; mode < 3; mode++) {
    pxtStatus code = processInline(&m, kTetV[0], 4, kTetF[0], 4, mode, 1, NULL, &st);
    ENSURE(code == PX_OK);
    if (code != PX_OK) {
      pxc_meshFree(&m);
      continue;
    }
    ENSURE(m.szgraph == 2 + 3 * 4 + 6 * 4);
    ENSURE_NEAR(m.volume, 1.0 / 6.0, 1e-15);
    for (int k = 0; k < 3; k++) ENSURE_NEAR(m.pos[k], 0.25, 1e-15);
    ENSURE_NEAR(m.eigval[0], 1.0 / 60.0, 1e-15);
    ENSURE_NEAR(m.eigval[1], 1.0 / 96.0, 1e-15);
    ENSURE_NEAR(m.eigval[2], 1.0 / 96.0, 1e-15);

    // the largest principal axis (first column of the mesh frame) is the symmetry axis (1,1,1)
    const double* q = m.quat;
    double ax[3] = {q[0] * q[0] + q[1] * q[1] - q[2] * q[2] - q[3] * q[3],
                    2 * (q[1] * q[2] + q[0] * q[3]), 2 * (q[1] * q[3] - q[0] * q[2])};
    ENSURE_NEAR(fabs(ax[0] + ax[1] + ax[2]), sqrt(3.0), 1e-12);
    pxc_meshFree(&m);
  }
  return 0;
}

// no faces: the hull's triangles become the faces; left-handed scale keeps the volume positive
static int test_hull_faces_and_scale(void) {
  pxStatus st;
  pxcMesh m;
  ENSURE(processInline(&m, kCubeV[0], 8, NULL, 0, PX_MESH_INERTIA_LEGACY, 0, NULL, &st) == PX_OK);
  ENSURE(m.nface == 12 && m.szgraph == 98);
  ENSURE_NEAR(m.volume, 1, 1e-14);
  pxc_meshFree(&m);

  const double s[3] = {-2, 1, 1};
  ENSURE(processInline(&m, kTetV[0], 4, kTetF[0], 4, PX_MESH_INERTIA_EXACT, 0, s, &st) == PX_OK);
  ENSURE_NEAR(m.volume, 2.0 / 6.0, 1e-15);
  ENSURE_NEAR(m.pos[0], -0.5, 1e-15);
  ENSURE(m.face[0] == 0 && m.face[1] == 1 && m.face[2] == 2);  // winding swapped
  ENSURE(m.szgraph == 0);
  pxc_meshFree(&m);
  return 0;
}

//---------------------------------- files ---------------------------------------------------------

static int test_model_files(void) {
  pxStatus st;
  pxcMesh m;
  pxcMeshDef def;

  // binary STL: 12 triangles, 8 distinct vertices after merging, a cube of side 2
  pxc_meshInit(&m);
  ENSURE(pxc_meshLoadFile(&m, MESH_REF_MODELS "/test/user/testdata/cube.stl", &st) == PX_OK);
  ENSURE(m.nvert == 8 && m.nface == 12);
  pxc_defaultMeshDef(&def);
  ENSURE(pxc_meshProcess(&m, &def, &st) == PX_OK);
  ENSURE_NEAR(m.volume, 8, 1e-12);
  pxc_meshFree(&m);

  // OBJ with vertices only: the faces come from the convex hull
  pxc_meshInit(&m);
  ENSURE(pxc_meshLoadFile(&m, MESH_REF_MODELS "/test/user/testdata/cube.obj", &st) == PX_OK);
  ENSURE(m.nvert == 8 && m.nface == 0);
  ENSURE(pxc_meshProcess(&m, &def, &st) == PX_OK);
  ENSURE(m.nface == 12 && m.szgraph == 98);
  ENSURE_NEAR(m.volume, 1, 1e-6);
  pxc_meshFree(&m);

  // OBJ with quads: each quad becomes two triangles
  pxc_meshInit(&m);
  ENSURE(pxc_meshLoadFile(&m, MESH_REF_MODELS "/test/user/testdata/torus_quads.obj", &st) == PX_OK);
  ENSURE(m.nvert == 576 && m.nface == 2 * 576);
  def.inertia = PX_MESH_INERTIA_EXACT;
  ENSURE(pxc_meshProcess(&m, &def, &st) == PX_OK);
  ENSURE(m.volume > 0 && m.szgraph == 0);
  pxc_meshFree(&m);
  return 0;
}

// every case of mesh_refs.h against MuJoCo's compiled model
static int test_mesh_refs(void) {
  int n = (int)(sizeof(kMeshRefs) / sizeof(kMeshRefs[0])), exact = 0;
  for (int i = 0; i < n; i++) {
    const MeshRef* r = kMeshRefs + i;
    pxStatus st;
    pxcMesh m;
    pxc_meshInit(&m);
    px_statusClear(&st);
    pxtStatus code;
    if (r->file) {
      char path[1024];
      snprintf(path, sizeof(path), "%s/%s", MESH_REF_MODELS, r->file);
      code = pxc_meshLoadFile(&m, path, &st);
    } else {
      int nv = (int)(sizeof(kCloud) / sizeof(kCloud[0]));
      double v[3 * (sizeof(kCloud) / sizeof(kCloud[0]))];
      for (int k = 0; k < 3 * nv; k++) v[k] = kCloud[k / 3][k % 3];
      code = pxc_meshSetInline(&m, v, nv, NULL, 0, &st);
    }
    pxcMeshDef def;
    pxc_defaultMeshDef(&def);
    memcpy(def.scale, r->scale, sizeof(def.scale));
    def.inertia = r->mode;
    def.maxhullvert = r->maxhullvert;
    def.needhull = r->needhull;
    def.name = r->name;
    if (r->hasref) {
      memcpy(def.refpos, r->refpos, sizeof(def.refpos));
      memcpy(def.refquat, r->refquat, sizeof(def.refquat));
    }
    if (code == PX_OK) code = pxc_meshProcess(&m, &def, &st);
    ENSURE(code == PX_OK);
    if (code != PX_OK) {
      fprintf(stderr, "%s: %s\n", r->name, st.msg);
      pxc_meshFree(&m);
      continue;
    }

    // sizes and integer data: identical
    ENSURE(m.nvert == r->nvert && m.nface == r->nface && m.szgraph == r->szgraph);
    ENSURE(fnv(m.face, 3 * m.nface) == r->facehash);
    ENSURE(fnv(m.graph, m.szgraph) == r->graphhash);

    // float data: within 1e-6 of the mesh's size
    double vsum = 0, vscale = r->vertabs / (3.0 * r->nvert);
    int same = 1;
    for (int k = 0; k < 3 * m.nvert; k++) vsum += m.vert[k];
    ENSURE_NEAR(vsum, r->vertsum, 1e-6 * r->vertabs);
    for (int s = 0; s < MESH_REF_NSAMPLE; s++) {
      for (int k = 0; k < 3; k++) {
        float v = m.vert[3 * r->sample[s] + k];
        ENSURE_NEAR(v, r->samplev[s][k], 1e-6 * vscale);
        same &= v == r->samplev[s][k];
      }
    }
    for (int k = 0; k < 3; k++) {
      ENSURE_NEAR(m.pos[k], r->pos[k], 1e-6 * vscale);
      same &= m.pos[k] == r->pos[k];
    }
    for (int k = 0; k < 4; k++) {
      ENSURE_NEAR(m.quat[k], r->quat[k], 1e-6);
      same &= m.quat[k] == r->quat[k];
    }

    // geom mass and inertia at density 1, as MuJoCo's mjCGeom computes them
    double mass = pxc_meshVolumeRef(&m);
    const double* b = m.boxsz;
    double in[3] = {mass * (b[1] * b[1] + b[2] * b[2]) / 3, mass * (b[0] * b[0] + b[2] * b[2]) / 3,
                    mass * (b[0] * b[0] + b[1] * b[1]) / 3};
    for (int j = 0; j < 2; j++) {  // decreasing, like the body inertia
      for (int k = 0; k < 2 - j; k++) {
        if (in[k] < in[k + 1]) {
          double t = in[k];
          in[k] = in[k + 1];
          in[k + 1] = t;
        }
      }
    }
    ENSURE_NEAR(mass, r->mass, 1e-6 * r->mass);
    for (int k = 0; k < 3; k++) ENSURE_NEAR(in[k], r->inertia[k], 1e-6 * r->inertia[0]);
    same &= mass == r->mass;
    exact += same;
    pxc_meshFree(&m);
  }
  printf("mesh refs: %d cases; %d bit-exact in vertices, pos, quat and mass\n", n, exact);
  return 0;
}

//---------------------------------- errors --------------------------------------------------------

// load and process a file; returns the first failing code and leaves the message in st
static pxtStatus loadProcess(const char* path, int mode, pxStatus* st) {
  pxcMesh m;
  pxc_meshInit(&m);
  px_statusClear(st);
  pxtStatus code = pxc_meshLoadFile(&m, path, st);
  if (code == PX_OK) {
    pxcMeshDef def;
    pxc_defaultMeshDef(&def);
    def.inertia = mode;
    def.name = "m";
    code = pxc_meshProcess(&m, &def, st);
  }
  pxc_meshFree(&m);
  return code;
}

static int test_file_errors(void) {
  char path[256];
  pxStatus st;

  // missing file: names the file and the reason
  ENSURE(loadProcess("/nonexistent/dir/x.stl", 2, &st) == PX_ERR_MJCF);
  ENSURE(strstr(st.msg, "/nonexistent/dir/x.stl") && strstr(st.msg, "cannot open"));

  // unsupported extension
  ENSURE(loadProcess(writeTmp(path, sizeof(path), "a.ply", "ply", 3), 2, &st) ==
         PX_ERR_UNSUPPORTED);

  // STL: truncated, zero triangles, empty, non-finite, too large
  float tri[12 * 9];
  for (int i = 0; i < 12; i++) {
    for (int j = 0; j < 3; j++) {
      for (int k = 0; k < 3; k++) tri[9 * i + 3 * j + k] = (float)kCubeV[kCubeF[i][j]][k];
    }
  }
  unsigned char stl[84 + 50 * 12];
  size_t n = makeSTL(stl, tri, 12, 12);
  ENSURE(loadProcess(writeTmp(path, sizeof(path), "ok.stl", stl, n), 2, &st) == PX_OK);
  ENSURE(loadProcess(writeTmp(path, sizeof(path), "trunc.stl", stl, n - 7), 2, &st) == PX_ERR_MJCF);
  ENSURE(strstr(st.msg, "trunc.stl") && strstr(st.msg, "wrong size"));
  n = makeSTL(stl, tri, 0, 0);
  ENSURE(loadProcess(writeTmp(path, sizeof(path), "zero.stl", stl, n), 2, &st) == PX_ERR_MJCF);
  ENSURE(strstr(st.msg, "number of faces"));
  ENSURE(loadProcess(writeTmp(path, sizeof(path), "empty.stl", "", 0), 2, &st) == PX_ERR_MJCF);
  ENSURE(strstr(st.msg, "empty"));
  tri[4] = NAN;
  n = makeSTL(stl, tri, 12, 12);
  ENSURE(loadProcess(writeTmp(path, sizeof(path), "nan.stl", stl, n), 2, &st) == PX_ERR_MJCF);
  ENSURE(strstr(st.msg, "not finite"));
  tri[4] = 3e9f;
  n = makeSTL(stl, tri, 12, 12);
  ENSURE(loadProcess(writeTmp(path, sizeof(path), "big.stl", stl, n), 2, &st) == PX_ERR_MJCF);
  ENSURE(strstr(st.msg, "maximum bounds"));

  // ASCII STL is rejected, as MuJoCo 3.12 rejects it
  const char* ascii =
      "solid t\nfacet normal 0 0 0\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n"
      "vertex 0 1 0\nendloop\nendfacet\nendsolid t\n";
  ENSURE(loadProcess(writeTmp(path, sizeof(path), "a.stl", ascii, strlen(ascii)), 2, &st) ==
         PX_ERR_MJCF);
  ENSURE(strstr(st.msg, "ASCII STL"));

  // OBJ: zero index, index out of range, non-finite, relative indices, polygon
  const char* cube = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n";
  char obj[1024];
  snprintf(obj, sizeof(obj), "%sf 0 1 2\n", cube);
  ENSURE(loadProcess(writeTmp(path, sizeof(path), "z.obj", obj, strlen(obj)), 2, &st) ==
         PX_ERR_MJCF);
  ENSURE(strstr(st.msg, "z.obj") && strstr(st.msg, "line 9"));
  snprintf(obj, sizeof(obj), "%sf 1 2 30\n", cube);
  ENSURE(loadProcess(writeTmp(path, sizeof(path), "r.obj", obj, strlen(obj)), 2, &st) ==
         PX_ERR_MJCF);
  ENSURE(strstr(st.msg, "vertex index 29 does not exist"));
  snprintf(obj, sizeof(obj), "%sv nan 0 0\n", cube);
  ENSURE(loadProcess(writeTmp(path, sizeof(path), "n.obj", obj, strlen(obj)), 2, &st) ==
         PX_ERR_MJCF);
  ENSURE(strstr(st.msg, "vertex coordinate 8 is not finite"));
  snprintf(obj, sizeof(obj),
           "%sf -8 -5 -6 -7\nf -4 -3 -2 -1\nf 1 2 6 5\nf 2 3 7 6\n"
           "f 3 4 8 7\nf 4 1 5 8\n",
           cube);
  pxcMesh m;
  pxc_meshInit(&m);
  ENSURE(pxc_meshLoadFile(&m, writeTmp(path, sizeof(path), "q.obj", obj, strlen(obj)), &st) ==
         PX_OK);
  ENSURE(m.nvert == 8 && m.nface == 12 && m.face[0] == 0 && m.face[1] == 3 && m.face[2] == 2);
  pxcMeshDef def;
  pxc_defaultMeshDef(&def);
  def.inertia = PX_MESH_INERTIA_EXACT;
  ENSURE(pxc_meshProcess(&m, &def, &st) == PX_OK);
  ENSURE_NEAR(m.volume, 1, 1e-14);
  ENSURE(pxc_meshProcess(&m, &def, &st) == PX_ERR_ARG);  // twice
  pxc_meshFree(&m);
  return 0;
}

static int test_process_errors(void) {
  pxStatus st;
  pxcMesh m;

  // fewer than 4 vertices
  ENSURE(processInline(&m, kTetV[0], 3, NULL, 0, 2, 0, NULL, &st) == PX_ERR_MJCF);
  ENSURE(strstr(st.msg, "at least 4 vertices"));
  pxc_meshFree(&m);

  // degenerate hulls
  const double same[12] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  ENSURE(processInline(&m, same, 4, NULL, 0, 2, 0, NULL, &st) == PX_ERR_MJCF);
  ENSURE(strstr(st.msg, "colocated"));
  pxc_meshFree(&m);
  const double line[12] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3};
  ENSURE(processInline(&m, line, 4, NULL, 0, 2, 0, NULL, &st) == PX_ERR_MJCF);
  ENSURE(strstr(st.msg, "collinear"));
  pxc_meshFree(&m);
  const double flat[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0};
  ENSURE(processInline(&m, flat, 4, NULL, 0, 2, 0, NULL, &st) == PX_ERR_MJCF);
  ENSURE(strstr(st.msg, "coplanar"));
  pxc_meshFree(&m);

  // inconsistent orientation (exact only) and negative volume
  int bad[4][3];
  memcpy(bad, kTetF, sizeof(bad));
  bad[0][1] = 1, bad[0][2] = 2;
  ENSURE(processInline(&m, kTetV[0], 4, bad[0], 4, 1, 0, NULL, &st) == PX_ERR_MJCF);
  ENSURE(strstr(st.msg, "inconsistent orientation"));
  pxc_meshFree(&m);
  ENSURE(processInline(&m, kTetV[0], 4, bad[0], 4, 2, 0, NULL, &st) == PX_OK);
  pxc_meshFree(&m);
  int inv[4][3];
  for (int i = 0; i < 4; i++)
    inv[i][0] = kTetF[i][0], inv[i][1] = kTetF[i][2], inv[i][2] = kTetF[i][1];
  ENSURE(processInline(&m, kTetV[0], 4, inv[0], 4, 1, 0, NULL, &st) == PX_ERR_MJCF);
  ENSURE(strstr(st.msg, "negative"));
  pxc_meshFree(&m);

  // face index out of range, bad options
  int oob[3] = {0, 1, 9};
  ENSURE(processInline(&m, kTetV[0], 4, oob, 1, 2, 0, NULL, &st) == PX_ERR_MJCF);
  ENSURE(strstr(st.msg, "vertex index 9 does not exist"));
  pxc_meshFree(&m);
  pxc_meshInit(&m);
  ENSURE(pxc_meshSetInline(&m, kTetV[0], 4, kTetF[0], 4, &st) == PX_OK);
  pxcMeshDef def;
  pxc_defaultMeshDef(&def);
  def.maxhullvert = 3;
  ENSURE(pxc_meshProcess(&m, &def, &st) == PX_ERR_ARG);
  def.maxhullvert = -1;
  def.inertia = 7;
  ENSURE(pxc_meshProcess(&m, &def, &st) == PX_ERR_ARG);
  pxc_meshFree(&m);
  const double nanv[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, NAN};
  pxc_meshInit(&m);
  ENSURE(pxc_meshSetInline(&m, nanv, 4, NULL, 0, &st) == PX_ERR_MJCF);
  pxc_meshFree(&m);
  return 0;
}

int main(void) {
  snprintf(tmpdir, sizeof(tmpdir), "/tmp/px_test_mesh_XXXXXX");
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 2;
  }
  RUN_TEST(test_eig3_analytic);
  RUN_TEST(test_eig3_refs);
  RUN_TEST(test_cube);
  RUN_TEST(test_tetrahedron);
  RUN_TEST(test_hull_faces_and_scale);
  RUN_TEST(test_model_files);
  RUN_TEST(test_mesh_refs);
  RUN_TEST(test_file_errors);
  RUN_TEST(test_process_errors);

  // remove the scratch files
  const char* names[] = {"a.ply",   "ok.stl",  "trunc.stl", "zero.stl", "empty.stl",
                         "nan.stl", "big.stl", "a.stl",     "cut.stl",  "z.obj",
                         "r.obj",   "n.obj",   "q.obj"};
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    char path[256];
    snprintf(path, sizeof(path), "%s/%s", tmpdir, names[i]);
    unlink(path);
  }
  rmdir(tmpdir);
  return TEST_SUMMARY();
}
