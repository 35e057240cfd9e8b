// SPDX-License-Identifier: Apache-2.0
// spec -> pxModel: the body tree half of MuJoCo 3.12's compiler (mjCModel::TryCompile).
//
// What it computes, in MuJoCo's order:
//   1. element order: joints, geoms, sites, cameras and lights sorted stably by body (bodies are
//      already in depth-first pre-order), which is MuJoCo's MakeTreeLists order;
//   2. names: asset names from files, repeated and empty names, nuser_* sizes;
//   3. assets: mesh files loaded and processed (mesh.c), materials and textures resolved;
//   4. per body, in order (mjCBody::Compile): geoms (fromto, mesh frames, sizes, mass and
//      inertia, fluid coefficients), inertia from geoms, mass bounds, free-joint alignment,
//      joints (limits, degrees, axes), sites, cameras, lights;
//   5. sizes (SetSizes, ComputeSparseSizes), the misc sizes (pxc_sizeMisc), one allocation;
//   6. arrays (CopyTree, then pxc_fillMisc for the elements outside the tree), simple bodies;
//      the sparse structures, which need the final simple bodies and tendon paths, in
//      compile_sparse.c (it re-allocates the model once their sizes nC and nJten are known);
//   7. the constants of mj_setConst: sameframe, subtree masses and trees (setFixed, here), then
//      px_setConst (csrc/engine/setconst.c) at qpos0 with contacts disabled: dof_M0,
//      invweights, acc0, lengths, cam/light pos0, poscom0, mat0/dir0, dampratio, statistics
//      and dof_length; then the muscle length ranges by simulation (px_lengthRangeAll).
//   reads:  the spec (c->spec): elements, settings, texture files, the <frame>s of fromto geoms
//           and sites (the parser folds frames into every other pos and quat)
//   writes: every body-tree array of pxModel, names, qpos0, qpos_spring, stat; compile_misc.c:
//           nemax, nout; compile_sparse.c: nC, nJten, nJmom and the sparse structures
// Errors carry file:line of the element; MuJoCo input that phalanx cannot compile exactly is
// PX_ERR_UNSUPPORTED, never silently approximated. Nothing here is thread-shared.
#include "mjcf/spec.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "px/pxdata.h"
#include "px/pxmodel.h"

#include "mjcf/compile_sparse.h"
#include "mjcf/mesh.h"
#include "mjcf/misc.h"
#include "util/eig3.h"
#include "util/quat.h"

static const double kEps = 1e-14;      // mjEPS of MuJoCo's compiler
static const double kMinVal = 1e-15;   // mjMINVAL
static const double kFrameEps = 1e-6;  // kFrameEps / kSameFrameEps
static const double kPi = 3.14159265358979323846;
static const double kMaxVal = 1e10;  // mjMAXVAL
static const int kLoadMultiple = 2;  // mjLOAD_MULTIPLE: names hash map slots per object

// number of size parameters each geom type must have positive (mjGEOMINFO)
static const int kGeomInfo[PX_NGEOMTYPES] = {3, 0, 1, 2, 3, 2, 3, 0, 0};

enum { kInertiaVolume = 0, kInertiaShell = 1 };
enum { kSameNone = 0, kSameBody, kSameInertia, kSameBodyRot, kSameInertiaRot };

//---------------------------------- compiler state ------------------------------------------------

typedef struct {
  double pos[3], quat[4], ipos[3], iquat[4];
  double mass, inertia[3];
  int iposdef;  // ipos defined (an <inertial>, or computed from geoms)
  int weldid, dofnum, subtreedofs, lastdof, mocapid;
  int contype, conaffinity;
  double margin;
  int simple;  // body simple attribute: 0 false, 1 auto
  int sleep;   // body sleep attribute other than auto
  int nsub;    // bodies in the subtree, this one included (descendants follow in pre-order)
  int jadr, jnum, gadr, gnum, sadr, snum, cadr, cnum, ladr, lnum;  // compiled element ranges
} cBody;

typedef struct {
  pxcJoint j;
  const char* tag;             // element name (joint, freejoint)
  int limited, actfrclimited;  // resolved
  int qposadr, dofadr, nq, nv;
} cJoint;

// the <frame>s a fromto element was declared in (identity otherwise): MuJoCo converts the
// segment first and applies the frame after
typedef struct {
  double pos[3], quat[4];
} cFrame;

typedef struct {
  pxcGeom g;
  cFrame frame;
  double mass, inertia[3], aabb[6], fluid[12];
  int matid, meshid, hfieldid;
} cGeom;

typedef struct {
  pxcSite s;
  cFrame frame;
  int matid;
} cSite;

typedef struct {
  pxcCamera k;
  int targetbodyid;
  float intrinsic[4];
} cCam;

typedef struct {
  pxcLight l;
  int targetbodyid, texid;
} cLight;

typedef struct {
  pxcCtx* c;
  pxcSpec* s;

  // compiled elements, in model order
  cBody* body;
  cJoint* jnt;
  cGeom* geom;
  cSite* site;
  cCam* cam;
  cLight* light;

  // assets
  pxcMesh* mesh;
  int* meshhull;    // a geom needs the convex hull
  char** meshname;  // names after the file fallback (owned)
  char** meshfile;  // file as MuJoCo stores it (after strippath; owned, "" inline)
  char** texname;   // texture names after the file fallback (owned)
  char** texfile;   // texture files ("" none; owned)
  int* texskybox;   // texture type is skybox
  pxcSrc* texsrc;   // where each texture was declared

  // from the document
  int strippath;
  float znear;
  cFrame* gframe;     // frame of each spec geom (spec order)
  cFrame* sframe;     // frame of each spec site
  const char** jtag;  // element name of each spec joint
  int* jspec;         // spec index of each compiled joint
  int* gspec;         // spec index of each compiled geom
  int* sspec;         // spec index of each compiled site

  // resolved sizes
  int nuser_body, nuser_jnt, nuser_geom, nuser_site, nuser_cam;
  int nq, nv, ntree, nmocap, nM, nD, nB;
} cc;

//---------------------------------- errors --------------------------------------------------------

// "file:line: <elem>: message", the parser's format
static pxtStatus failAt(cc* k, pxtStatus code, const pxcSrc* src, const char* elem,
                        const char* name, const char* fmt, ...)
    __attribute__((format(printf, 6, 7)));

static pxtStatus failAt(cc* k, pxtStatus code, const pxcSrc* src, const char* elem,
                        const char* name, const char* fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  const char* file = src && src->file ? src->file : "(model)";
  int line = src ? src->line : 0;
  (void)name;  // the message names the element where MuJoCo's does
  return PX_FAIL(k->c->st, code, "%s:%d: <%s>: %s", file, line, elem, msg);
}

#define ERR(src, elem, name, ...) failAt(k, PX_ERR_MJCF, (src), (elem), (name), __VA_ARGS__)
#define UNSUP(src, elem, name, ...) \
  failAt(k, PX_ERR_UNSUPPORTED, (src), (elem), (name), __VA_ARGS__)

static pxtStatus noMem(cc* k) {
  return PX_FAIL(k->c->st, PX_ERR_NOMEM, "compile: out of memory");
}

static char* dupStr(const char* s) {
  size_t n = strlen(s) + 1;
  char* d = (char*)malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

//---------------------------------- MuJoCo's compiler math (user_util) ----------------------------
// Operation for operation as mjuu_*, so that compiled values agree to the last bit.

// normalize, return the previous norm; tiny vectors are left alone, near-unit ones too
static double normVec(double* vec, int n) {
  double nrm = 0;
  for (int i = 0; i < n; i++) nrm += vec[i] * vec[i];
  if (nrm < kEps) return 0;
  nrm = sqrt(nrm);
  if (fabs(nrm - 1) > kEps) {
    for (int i = 0; i < n; i++) vec[i] /= nrm;
  }
  return nrm;
}

// product of unit quaternions, normalized
static void mulQuat(double* res, const double* a, const double* b) {
  double t[4];
  t[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
  t[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
  t[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
  t[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
  normVec(t, 4);
  memcpy(res, t, sizeof(t));
}

// res = mat * vec
static void mulMatVec(double* res, const double* mat, const double* v) {
  double t[3] = {mat[0] * v[0] + mat[1] * v[1] + mat[2] * v[2],
                 mat[3] * v[0] + mat[4] * v[1] + mat[5] * v[2],
                 mat[6] * v[0] + mat[7] * v[1] + mat[8] * v[2]};
  memcpy(res, t, sizeof(t));
}

static void rotVecQuat(double* res, const double* v, const double* q) {
  if (v[0] == 0 && v[1] == 0 && v[2] == 0) {
    res[0] = res[1] = res[2] = 0;
  } else if (q[0] == 1 && q[1] == 0 && q[2] == 0 && q[3] == 0) {
    memmove(res, v, 3 * sizeof(double));
  } else {
    double t[3] = {q[0] * v[0] + q[2] * v[2] - q[3] * v[1], q[0] * v[1] + q[3] * v[0] - q[1] * v[2],
                   q[0] * v[2] + q[1] * v[1] - q[2] * v[0]};
    double r[3] = {v[0] + 2 * (q[2] * t[2] - q[3] * t[1]), v[1] + 2 * (q[3] * t[0] - q[1] * t[2]),
                   v[2] + 2 * (q[1] * t[1] - q[2] * t[0])};
    memcpy(res, r, sizeof(r));
  }
}

static void cross3(double* a, const double* b, const double* c) {
  double t[3] = {b[1] * c[2] - b[2] * c[1], b[2] * c[0] - b[0] * c[2], b[0] * c[1] - b[1] * c[0]};
  memcpy(a, t, sizeof(t));
}

// (pos, quat) := (pos, quat) * (childpos, childquat)
static void frameAccum(double* pos, double* quat, const double* childpos, const double* childquat) {
  double mat[9], vec[3];
  pxu_quat2Mat(mat, quat);
  mulMatVec(vec, mat, childpos);
  pos[0] += vec[0];
  pos[1] += vec[1];
  pos[2] += vec[2];
  mulQuat(quat, quat, childquat);
}

// (childpos, childquat) := (pos, quat) * (childpos, childquat)
static void frameAccumChild(const double* pos, const double* quat, double* childpos,
                            double* childquat) {
  double p[3] = {pos[0], pos[1], pos[2]};
  double q[4] = {quat[0], quat[1], quat[2], quat[3]};
  frameAccum(p, q, childpos, childquat);
  memcpy(childpos, p, sizeof(p));
  memcpy(childquat, q, sizeof(q));
}

static void frameInvert(double* newpos, double* newquat, const double* pos, const double* quat) {
  double mat[9];
  double neg[4] = {quat[0], -quat[1], -quat[2], -quat[3]};
  pxu_quat2Mat(mat, neg);
  mulMatVec(newpos, mat, pos);
  newpos[0] = -newpos[0];
  newpos[1] = -newpos[1];
  newpos[2] = -newpos[2];
  newquat[0] = quat[0];
  newquat[1] = -quat[1];
  newquat[2] = -quat[2];
  newquat[3] = -quat[3];
}

// minimal rotation from (0,0,1) to vec
static void z2Quat(double* quat, const double* vec) {
  double z[3] = {0, 0, 1};
  cross3(quat + 1, z, vec);
  double s = normVec(quat + 1, 3);
  if (s < 1e-10) {
    quat[1] = 1;
    quat[2] = quat[3] = 0;
  }
  double ang = atan2(s, vec[2]);
  quat[0] = cos(ang / 2);
  quat[1] *= sin(ang / 2);
  quat[2] *= sin(ang / 2);
  quat[3] *= sin(ang / 2);
}

// diagonal inertia in a rotated frame -> full inertia (xx, yy, zz, xy, xz, yz)
static void globalInertia(double* global, const double* local, const double* quat) {
  double mat[9];
  pxu_quat2Mat(mat, quat);
  double t[9] = {mat[0] * local[0], mat[3] * local[0], mat[6] * local[0],
                 mat[1] * local[1], mat[4] * local[1], mat[7] * local[1],
                 mat[2] * local[2], mat[5] * local[2], mat[8] * local[2]};
  global[0] = mat[0] * t[0] + mat[1] * t[3] + mat[2] * t[6];
  global[1] = mat[3] * t[1] + mat[4] * t[4] + mat[5] * t[7];
  global[2] = mat[6] * t[2] + mat[7] * t[5] + mat[8] * t[8];
  global[3] = mat[0] * t[1] + mat[1] * t[4] + mat[2] * t[7];
  global[4] = mat[0] * t[2] + mat[1] * t[5] + mat[2] * t[8];
  global[5] = mat[3] * t[2] + mat[4] * t[5] + mat[5] * t[8];
}

// parallel-axis correction of a point mass at vec
static void offCenter(double* res, double mass, const double* vec) {
  res[0] = mass * (vec[1] * vec[1] + vec[2] * vec[2]);
  res[1] = mass * (vec[0] * vec[0] + vec[2] * vec[2]);
  res[2] = mass * (vec[0] * vec[0] + vec[1] * vec[1]);
  res[3] = -mass * vec[0] * vec[1];
  res[4] = -mass * vec[0] * vec[2];
  res[5] = -mass * vec[1] * vec[2];
}

// principal axes of a full inertia; returns 0 when an eigenvalue is not positive
static int fullInertia(double* quat, double* inertia, const double* full) {
  double eigval[3], eigvec[9], q[4];
  double mat[9] = {full[0], full[3], full[4], full[3], full[1], full[5], full[4], full[5], full[2]};
  pxu_eig3(eigval, eigvec, q, mat);
  if (eigval[2] < kEps) return 0;
  memcpy(quat, q, sizeof(q));
  memcpy(inertia, eigval, sizeof(eigval));
  return 1;
}

static int isNullVec(const double* v) {
  return fabs(v[0]) < kFrameEps && fabs(v[1]) < kFrameEps && fabs(v[2]) < kFrameEps;
}

static int isSameVec(const double* a, const double* b) {
  return fabs(a[0] - b[0]) < kFrameEps && fabs(a[1] - b[1]) < kFrameEps &&
         fabs(a[2] - b[2]) < kFrameEps;
}

static int isSameQuat(const double* a, const double* b) {
  int minus = fabs(a[0] - b[0]) < kFrameEps && fabs(a[1] - b[1]) < kFrameEps &&
              fabs(a[2] - b[2]) < kFrameEps && fabs(a[3] - b[3]) < kFrameEps;
  int plus = fabs(a[0] + b[0]) < kFrameEps && fabs(a[1] + b[1]) < kFrameEps &&
             fabs(a[2] + b[2]) < kFrameEps && fabs(a[3] + b[3]) < kFrameEps;
  return minus || plus;
}

static int isZeroQuat(const double* q) {
  return !q[0] && !q[1] && !q[2] && !q[3];
}

static int isNullQuat(const double* q) {
  static const double unit[4] = {1, 0, 0, 0};
  return isSameQuat(q, unit);
}

//---------------------------------- geom volume, inertia and fluid (mjCGeom) ----------------------

// volume, or surface area for shell inertia, of a primitive geom
static double geomVolume(const cc* k, const cGeom* x, int typeinertia) {
  const double* size = x->g.size;
  if (x->g.type == PX_GEOM_MESH) return pxc_meshVolumeRef(k->mesh + x->meshid);
  int shell = typeinertia == kInertiaShell;
  switch (x->g.type) {
    case PX_GEOM_SPHERE: {
      double r = size[0];
      return shell ? 4 * kPi * r * r : 4 * kPi * r * r * r / 3;
    }
    case PX_GEOM_CAPSULE: {
      double h = 2 * size[1], r = size[0];
      return shell ? 4 * kPi * r * r + 2 * kPi * r * h : kPi * (r * r * h + 4 * r * r * r / 3);
    }
    case PX_GEOM_CYLINDER: {
      double h = 2 * size[1], r = size[0];
      return shell ? 2 * kPi * r * r + 2 * kPi * r * h : kPi * r * r * h;
    }
    case PX_GEOM_ELLIPSOID: {
      if (!shell) return 4 * kPi * size[0] * size[1] * size[2] / 3;
      double p = 1.6075;  // Thomsen's approximation of the surface
      double t = pow(size[0] * size[1], p) + pow(size[1] * size[2], p) + pow(size[2] * size[0], p);
      return 4 * kPi * pow(t / 3, 1 / p);
    }
    case PX_GEOM_HFIELD:
    case PX_GEOM_BOX:
      return shell ? 8 * (size[0] * size[1] + size[1] * size[2] + size[2] * size[0])
                   : size[0] * size[1] * size[2] * 8;
    default:
      return 0;
  }
}

// capsule inertia, volume or shell
static void capsuleInertia(double* I, double mass, const double* size, int shell) {
  double hh = size[1], h = 2 * size[1], r = size[0];
  if (!shell) {
    double ms = mass * 4 * r / (4 * r + 3 * h);  // mass*(sphere_vol/total_vol)
    double mc = mass - ms;
    I[0] = I[1] = mc * (3 * r * r + h * h) / 12;
    I[2] = mc * r * r / 2;
    double si = 2 * ms * r * r / 5;
    I[0] += si + ms * h * (3 * r + 2 * h) / 8;
    I[1] += si + ms * h * (3 * r + 2 * h) / 8;
    I[2] += si;
    return;
  }
  double as = 4 * kPi * r * r, ac = 2 * kPi * r * h, at = as + ac;
  double ms = mass * as / at, mc = mass - ms;
  I[0] = I[1] = mc * (6 * r * r + h * h) / 12;
  I[2] = mc * r * r;
  double si = 2 * ms * r * r / 3;
  double hcom = r / 2, hpos = hh + hcom;
  I[0] += si + ms * (hpos * hpos - hcom * hcom);
  I[1] += si + ms * (hpos * hpos - hcom * hcom);
  I[2] += si;
}

static void cylinderInertia(double* I, double mass, const double* size, int shell) {
  double hh = size[1], h = 2 * hh, r = size[0];
  if (!shell) {
    I[0] = I[1] = mass * (3 * r * r + h * h) / 12;
    I[2] = mass * r * r / 2;
    return;
  }
  double ad = kPi * r * r, ac = 2 * kPi * r * h, at = 2 * ad + ac;
  double md = mass * ad / at, mc = mass - 2 * md;
  I[0] = I[1] = mc * (6 * r * r + h * h) / 12;
  I[2] = mc * r * r;
  double idx = md * r * r / 4 + md * hh * hh, idz = md * r * r / 2;
  I[0] += 2 * idx;
  I[1] += 2 * idx;
  I[2] += 2 * idz;
}

static void ellipsoidInertia(double* I, double mass, const double* size, int shell) {
  double s00 = size[0] * size[0], s11 = size[1] * size[1], s22 = size[2] * size[2];
  if (!shell) {
    I[0] = mass * (s11 + s22) / 5;
    I[1] = mass * (s00 + s22) / 5;
    I[2] = mass * (s00 + s11) / 5;
    return;
  }
  // expanded minus solid ellipsoid
  double eps = 1e-6;
  double va = 4 * kPi * size[0] * size[1] * size[2] / 3;
  double ae = size[0] + eps, be = size[1] + eps, ce = size[2] + eps;
  double vb = 4 * kPi * ae * be * ce / 3;
  double density = mass / (vb - va);
  double ma = va * density, mb = vb * density;
  double ia[3] = {ma * (s11 + s22) / 5, ma * (s00 + s22) / 5, ma * (s00 + s11) / 5};
  double ib[3] = {mb * (be * be + ce * ce) / 5, mb * (ae * ae + ce * ce) / 5,
                  mb * (ae * ae + be * be) / 5};
  I[0] = ib[0] - ia[0];
  I[1] = ib[1] - ia[1];
  I[2] = ib[2] - ia[2];
}

static void boxInertia(double* I, double mass, const double* size, int shell) {
  double s00 = size[0] * size[0], s11 = size[1] * size[1], s22 = size[2] * size[2];
  if (!shell) {
    I[0] = mass * (s11 + s22) / 3;
    I[1] = mass * (s00 + s22) / 3;
    I[2] = mass * (s00 + s11) / 3;
    return;
  }
  double lx = 2 * size[0], ly = 2 * size[1], lz = 2 * size[2];
  double a0 = lx * ly, a1 = ly * lz, a2 = lz * lx, at = 2 * (a0 + a1 + a2);
  double m0 = mass * a0 / at;
  double ix0 = m0 * ly * ly / 12, iy0 = m0 * lx * lx / 12, iz0 = m0 * (lx * lx + ly * ly) / 12;
  double m1 = mass * a1 / at;
  double ix1 = m1 * (ly * ly + lz * lz) / 12, iy1 = m1 * lz * lz / 12, iz1 = m1 * ly * ly / 12;
  double m2 = mass * a2 / at;
  double ix2 = m2 * lz * lz / 12, iy2 = m2 * (lx * lx + lz * lz) / 12, iz2 = m2 * lx * lx / 12;
  I[0] = 2 * (m0 * s22 + m2 * s11 + ix0 + ix1 + ix2);
  I[1] = 2 * (m0 * s22 + m1 * s00 + iy0 + iy1 + iy2);
  I[2] = 2 * (m1 * s00 + m2 * s11 + iz0 + iz1 + iz2);
}

// diagonal inertia of a geom from its mass (mjCGeom::SetInertia)
static void geomInertia(const cc* k, cGeom* x, int typeinertia) {
  double* I = x->inertia;
  double mass = x->mass;
  int shell = typeinertia == kInertiaShell;
  switch (x->g.type) {
    case PX_GEOM_MESH: {
      const double* b = k->mesh[x->meshid].boxsz;
      I[0] = mass * (b[1] * b[1] + b[2] * b[2]) / 3;
      I[1] = mass * (b[0] * b[0] + b[2] * b[2]) / 3;
      I[2] = mass * (b[0] * b[0] + b[1] * b[1]) / 3;
      return;
    }
    case PX_GEOM_SPHERE:
      I[0] = I[1] = I[2] = 2 * mass * x->g.size[0] * x->g.size[0] / (shell ? 3 : 5);
      return;
    case PX_GEOM_CAPSULE:
      capsuleInertia(I, mass, x->g.size, shell);
      return;
    case PX_GEOM_CYLINDER:
      cylinderInertia(I, mass, x->g.size, shell);
      return;
    case PX_GEOM_ELLIPSOID:
      ellipsoidInertia(I, mass, x->g.size, shell);
      return;
    case PX_GEOM_HFIELD:
    case PX_GEOM_BOX:
      boxInertia(I, mass, x->g.size, shell);
      return;
    default:
      I[0] = I[1] = I[2] = 0;
      return;
  }
}

// added-mass coefficient of an ellipsoid (Gauss-Kronrod quadrature, mjCGeom::GetAddedMassKappa)
static double addedMassKappa(double dx, double dy, double dz) {
  static const double w[15] = {0.01146766, 0.03154605, 0.05239501, 0.07032663, 0.08450236,
                               0.09517529, 0.10221647, 0.10474107, 0.10221647, 0.09517529,
                               0.08450236, 0.07032663, 0.05239501, 0.03154605, 0.01146766};
  static const double l[15] = {
      7.865151709349917e-08, 1.7347976913907274e-05, 0.0003548008144506193, 0.002846636252924549,
      0.014094260903596077,  0.053063261727396636,   0.17041978741317773,   0.5,
      1.4036301548686991,    3.9353484827022642,     11.644841677041734,    39.53187807410903,
      177.5711362220801,     1429.4772912937397,     54087.416549217705};
  static const double d[15] = {
      5.538677720489877e-05, 0.002080868285293228, 0.016514126520723166, 0.07261900344370877,
      0.23985243401862602,   0.6868318249020725,   1.8551129519182894,   5.0,
      14.060031152313941,    43.28941239611009,    156.58546376397112,   747.9826085305024,
      5827.4042950027115,    116754.0197944512,    25482945.327264845};
  double ix = 1.0 / (dx * dx), iy = 1.0 / (dy * dy), iz = 1.0 / (dz * dz);
  double scale = pow(dx * dx * dx * dy * dz, 0.4);
  double kappa = 0.0;
  for (int i = 0; i < 15; ++i) {
    double lambda = scale * l[i];
    double denom =
        (1 + lambda * ix) * sqrt((1 + lambda * ix) * (1 + lambda * iy) * (1 + lambda * iz));
    kappa += scale * d[i] / denom * w[i];
  }
  return kappa * ix;
}

// geom_fluid: flag, 5 user coefficients, virtual mass and inertia (mjCGeom::SetFluidCoefs)
static void fluidCoefs(cGeom* x) {
  const double* s = x->g.size;
  double dx, dy, dz;
  switch (x->g.type) {
    case PX_GEOM_SPHERE:
      dx = dy = dz = s[0];
      break;
    case PX_GEOM_CAPSULE:
      dx = dy = s[0], dz = s[1] + s[0];
      break;
    case PX_GEOM_CYLINDER:
      dx = dy = s[0], dz = s[1];
      break;
    default:
      dx = s[0], dy = s[1], dz = s[2];
  }
  double volume = 4.0 / 3.0 * kPi * dx * dy * dz;
  double kx = addedMassKappa(dx, dy, dz);
  double ky = addedMassKappa(dy, dz, dx);
  double kz = addedMassKappa(dz, dx, dy);
#define SQ(v) ((v) * (v))
  double ixf = SQ(dy * dy - dz * dz) * fabs(kz - ky) /
               fmax(kEps, fabs(2 * (dy * dy - dz * dz) + (dy * dy + dz * dz) * (ky - kz)));
  double iyf = SQ(dz * dz - dx * dx) * fabs(kx - kz) /
               fmax(kEps, fabs(2 * (dz * dz - dx * dx) + (dz * dz + dx * dx) * (kz - kx)));
  double izf = SQ(dx * dx - dy * dy) * fabs(ky - kx) /
               fmax(kEps, fabs(2 * (dx * dx - dy * dy) + (dx * dx + dy * dy) * (kx - ky)));
#undef SQ
  double* f = x->fluid;
  f[0] = x->g.fluidshape;
  for (int i = 0; i < 5; i++) f[1 + i] = x->g.fluidcoef[i];
  f[6] = volume * kx / fmax(kEps, 2 - kx);
  f[7] = volume * ky / fmax(kEps, 2 - ky);
  f[8] = volume * kz / fmax(kEps, 2 - kz);
  f[9] = volume * ixf / 5;
  f[10] = volume * iyf / 5;
  f[11] = volume * izf / 5;
}

// axis-aligned box in the geom frame, (center, half-size)
static void geomAABB(const cc* k, cGeom* x) {
  const double* s = x->g.size;
  double a[6] = {0, 0, 0, 0, 0, 0};
  switch (x->g.type) {
    case PX_GEOM_SPHERE:
      a[3] = a[4] = a[5] = s[0];
      break;
    case PX_GEOM_CAPSULE:
      a[3] = a[4] = s[0];
      a[5] = s[0] + s[1];
      break;
    case PX_GEOM_CYLINDER:
      a[3] = a[4] = s[0];
      a[5] = s[1];
      break;
    case PX_GEOM_MESH:
      memcpy(a, k->mesh[x->meshid].aamm, sizeof(a));
      break;
    case PX_GEOM_HFIELD: {
      const double* hs = k->s->hfield[x->hfieldid].size;
      a[0] = -hs[0];
      a[1] = -hs[1];
      a[2] = -hs[3];
      a[3] = hs[0];
      a[4] = hs[1];
      a[5] = hs[2];
      break;
    }
    case PX_GEOM_PLANE:
      a[0] = a[1] = a[2] = -kMaxVal;
      a[3] = a[4] = kMaxVal;
      a[5] = 0;
      break;
    default:
      a[3] = s[0];
      a[4] = s[1];
      a[5] = s[2];
  }
  if (x->g.type == PX_GEOM_SPHERE || x->g.type == PX_GEOM_CAPSULE ||
      x->g.type == PX_GEOM_CYLINDER || x->g.type == PX_GEOM_BOX || x->g.type == PX_GEOM_ELLIPSOID) {
    a[0] = -a[3];
    a[1] = -a[4];
    a[2] = -a[5];
  }
  for (int i = 0; i < 3; i++) {
    x->aabb[i] = (a[3 + i] + a[i]) / 2;
    x->aabb[3 + i] = (a[3 + i] - a[i]) / 2;
  }
}

// radius of the bounding sphere (mjCGeom::GetRBound)
static double geomRBound(const cc* k, const cGeom* x) {
  const double* s = x->g.size;
  switch (x->g.type) {
    case PX_GEOM_SPHERE:
      return s[0];
    case PX_GEOM_CAPSULE:
      return s[0] + s[1];
    case PX_GEOM_CYLINDER:
      return sqrt(s[0] * s[0] + s[1] * s[1]);
    case PX_GEOM_ELLIPSOID:
      return fmax(fmax(s[0], s[1]), s[2]);
    case PX_GEOM_BOX:
      return sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]);
    case PX_GEOM_HFIELD: {
      const double* h = k->s->hfield[x->hfieldid].size;
      return sqrt(h[0] * h[0] + h[1] * h[1] + fmax(h[2] * h[2], h[3] * h[3]));
    }
    case PX_GEOM_MESH: {
      const double* a = k->mesh[x->meshid].aamm;
      double h[3];
      for (int i = 0; i < 3; i++) h[i] = fmax(fabs(a[i]), fabs(a[3 + i]));
      return sqrt(h[0] * h[0] + h[1] * h[1] + h[2] * h[2]);
    }
    default:
      return 0;
  }
}

//---------------------------------- elements (mjCGeom/mjCSite/... ::Compile) ----------------------

// size parameters must be positive (checksize)
static pxtStatus checkSize(cc* k, const pxcSrc* src, const char* elem, const char* name, int type,
                           const double* size) {
  if (type == PX_GEOM_PLANE) {
    if (size[2] <= 0) return ERR(src, elem, name, "plane size(3) must be positive");
  } else {
    for (int i = 0; i < kGeomInfo[type]; i++) {
      if (size[i] <= 0) return ERR(src, elem, name, "size %d must be positive in %s", i, elem);
    }
  }
  return PX_OK;
}

// fromto: pos, quat and size from the segment (geoms and sites). pos, quat and fromto come
// with the enclosing frame folded in; the segment is computed in the frame, then the frame is
// applied, as MuJoCo does.
static pxtStatus applyFromto(cc* k, const pxcSrc* src, const char* elem, const char* name, int type,
                             const cFrame* frame, const double* fromto, double* pos, double* quat,
                             double* size) {
  if (type != PX_GEOM_CAPSULE && type != PX_GEOM_CYLINDER && type != PX_GEOM_ELLIPSOID &&
      type != PX_GEOM_BOX) {
    return ERR(src, elem, name, "fromto requires capsule, cylinder, box or ellipsoid in geom");
  }
  const double* fp = frame->pos;
  const double* fq = frame->quat;
  int inframe = fp[0] || fp[1] || fp[2] || fq[0] != 1 || fq[1] || fq[2] || fq[3];

  // fromto and pos are in the frame's coordinates (the parser does not fold them)
  const double* local = fromto;
  if (pos[0] || pos[1] || pos[2])
    return ERR(src, elem, name, "both pos and fromto defined in geom");

  // the segment in the frame
  double vec[3] = {local[0] - local[3], local[1] - local[4], local[2] - local[5]};
  size[1] = normVec(vec, 3) / 2;
  if (size[1] < kEps) return ERR(src, elem, name, "fromto points too close in geom");
  if (type == PX_GEOM_ELLIPSOID || type == PX_GEOM_BOX) {
    size[2] = size[1];
    size[1] = size[0];
  }
  for (int i = 0; i < 3; i++) pos[i] = (local[i] + local[3 + i]) / 2;
  z2Quat(quat, vec);
  if (inframe) frameAccumChild(frame->pos, frame->quat, pos, quat);
  return PX_OK;
}

static pxtStatus compileGeom(cc* k, cGeom* x, int inferinertia) {
  pxcGeom* g = &x->g;
  const pxcSrc* src = &g->src;
  const char* nm = g->name;
  if (g->user.n > k->nuser_geom) {
    return ERR(src, "geom", nm, "user has more values than nuser_geom in geom");
  }
  if (g->type < 0 || g->type >= PX_NGEOMTYPES) return ERR(src, "geom", nm, "invalid type in geom");
  if (g->condim != 1 && g->condim != 3 && g->condim != 4 && g->condim != 6) {
    return ERR(src, "geom", nm, "invalid condim in geom (%d; expected 1, 3, 4 or 6)", g->condim);
  }
  if (g->type == PX_GEOM_SDF) return UNSUP(src, "geom", nm, "sdf geoms are not supported");
  if ((g->type == PX_GEOM_HFIELD) != (x->hfieldid >= 0)) {
    return ERR(src, "geom", nm, "hfield geom '%s' must have valid hfieldid", nm);
  }
  if (g->type == PX_GEOM_MESH && x->meshid < 0) {
    return ERR(src, "geom", nm, "mesh geom must have valid meshid (no mesh attribute)");
  }
  if (x->meshid >= 0 && g->type != PX_GEOM_MESH) {
    return UNSUP(src, "geom", nm,
                 "fitting a primitive geom to a mesh (type with a mesh attribute) is not "
                 "supported");
  }

  // plane only in static bodies (a mocap weld root is static)
  int weld = k->body[g->body].weldid;
  if (g->type == PX_GEOM_PLANE && weld != 0 && !k->s->body[weld].mocap) {
    return ERR(src, "geom", nm, "plane only allowed in static bodies");
  }

  if (isZeroQuat(g->quat)) return ERR(src, "geom", nm, "zero quaternion is not allowed");
  normVec(g->quat, 4);
  if (g->hasfromto) {
    TRY(applyFromto(k, src, "geom", nm, g->type, &x->frame, g->fromto, g->pos, g->quat, g->size));
  }

  // mesh: the geom frame absorbs the mesh frame
  int typeinertia = g->shellinertia ? kInertiaShell : kInertiaVolume;
  if (x->meshid >= 0) {
    const pxcMesh* mesh = k->mesh + x->meshid;
    if (g->hasfromto) return ERR(src, "geom", nm, "fromto cannot be used with mesh geom");
    if (typeinertia == kInertiaShell) {
      return ERR(src, "geom", nm, "for mesh geoms, inertia should be specified in the mesh asset");
    }
    double zero[3] = {0, 0, 0}, meshpos[3];
    rotVecQuat(meshpos, zero, mesh->quat);
    for (int i = 0; i < 3; i++) meshpos[i] += mesh->pos[i];
    frameAccum(g->pos, g->quat, meshpos, mesh->quat);

    // surface velocity in the compiled frame
    double* sv = g->surfacevel;
    if (sv[0] || sv[1] || sv[2] || sv[3] || sv[4] || sv[5]) {
      double wxp[3], tmp[3];
      cross3(wxp, sv + 3, meshpos);
      for (int i = 0; i < 3; i++) sv[i] += wxp[i];
      double inv[4] = {mesh->quat[0], -mesh->quat[1], -mesh->quat[2], -mesh->quat[3]};
      rotVecQuat(tmp, sv, inv);
      memcpy(sv, tmp, sizeof(tmp));
      rotVecQuat(tmp, sv + 3, inv);
      memcpy(sv + 3, tmp, sizeof(tmp));
    }
  }

  TRY(checkSize(k, src, "geom", nm, g->type, g->size));
  if (g->type == PX_GEOM_HFIELD) {
    const double* hs = k->s->hfield[x->hfieldid].size;
    g->size[0] = hs[0];
    g->size[1] = hs[1];
    g->size[2] = 0.25 * hs[2] + 0.5 * hs[3];
  } else if (g->type == PX_GEOM_MESH) {
    const double* a = k->mesh[x->meshid].aamm;
    for (int i = 0; i < 3; i++) g->size[i] = fmax(fabs(a[i]), fabs(a[3 + i]));
  }
  for (int i = 0; i < 3; i++) {
    if (isnan(g->size[i])) return ERR(src, "geom", nm, "nan size in geom");
  }
  geomAABB(k, x);

  // mass and inertia: from an explicit mass (NaN when not given), else from density
  if (inferinertia) {
    double density = g->density;
    if (!isnan(g->mass)) {
      if (g->mass == 0) {
        x->mass = 0;
        density = 0;
      } else if (geomVolume(k, x, typeinertia) > kEps) {
        x->mass = g->mass;
        density = g->mass / geomVolume(k, x, typeinertia);
        geomInertia(k, x, typeinertia);
      }
    } else if (density == 0) {
      x->mass = 0;
    } else {
      x->mass = density * geomVolume(k, x, typeinertia);
      geomInertia(k, x, typeinertia);
    }
    if (x->mass < 0 || x->inertia[0] < 0 || x->inertia[1] < 0 || x->inertia[2] < 0 || density < 0) {
      return ERR(src, "geom", nm, "mass, inertia or density are negative in geom");
    }
  }
  if (g->fluidshape > 0) fluidCoefs(x);
  return PX_OK;
}

static pxtStatus compileJoint(cc* k, cJoint* x) {
  pxcJoint* j = &x->j;
  const pxcSrc* src = &j->src;
  const char* nm = j->name;
  const pxcSpec* s = k->s;
  static const char* const kLimitMsg =
      "joint has `range` but not `limited`. set the autolimits=\"true\" compiler option, "
      "specify `limited` explicitly (\"true\" or \"false\"), or remove the `range` attribute.";
  static const char* const kActMsg =
      "joint has `actuatorfrcrange` but not `actuatorfrclimited`. set the autolimits=\"true\" "
      "compiler option, specify `actuatorfrclimited` explicitly (\"true\" or \"false\"), or "
      "remove the `actuatorfrcrange` attribute.";
  if (j->user.n > k->nuser_jnt) {
    return ERR(src, x->tag, nm, "user has more values than nuser_jnt in joint");
  }
  if (j->springdamper[0] || j->springdamper[1]) {
    if (j->springdamper[0] <= 0 || j->springdamper[1] <= 0) {
      return ERR(src, x->tag, nm, "when defined, springdamper values must be positive in joint");
    }
    // stiffness and damping from the invweights at qpos0: autoSpringDamper, after px_setConst
  }

  // limits: free joints never, auto needs autolimits when a range is given
  x->limited = j->limited;
  if (j->type == PX_JNT_FREE) {
    x->limited = 0;
  } else if (x->limited == 2) {
    int hasrange = !(j->range[0] == 0 && j->range[1] == 0);
    if (!s->autolimits && hasrange) return ERR(src, x->tag, nm, "%s", kLimitMsg);
  }
  x->limited = x->limited == 1 || (x->limited == 2 && j->range[0] < j->range[1]);
  if (x->limited) {
    if (j->range[0] >= j->range[1] && j->type != PX_JNT_BALL) {
      return ERR(src, x->tag, nm, "range[0] should be smaller than range[1] in joint");
    }
    if (j->range[0] && j->type == PX_JNT_BALL) {
      return ERR(src, x->tag, nm, "range[0] should be 0 in ball joint");
    }
    if (s->degree && (j->type == PX_JNT_HINGE || j->type == PX_JNT_BALL)) {
      if (j->range[0]) j->range[0] *= kPi / 180.0;
      if (j->range[1]) j->range[1] *= kPi / 180.0;
    }
  }

  // actuator force limits: none for free and ball joints
  x->actfrclimited = j->actfrclimited;
  if (j->type == PX_JNT_FREE || j->type == PX_JNT_BALL) {
    x->actfrclimited = 0;
  } else if (x->actfrclimited == 2) {
    int hasrange = !(j->actfrcrange[0] == 0 && j->actfrcrange[1] == 0);
    if (!s->autolimits && hasrange) return ERR(src, x->tag, nm, "%s", kActMsg);
  }
  x->actfrclimited =
      x->actfrclimited == 1 || (x->actfrclimited == 2 && j->actfrcrange[0] < j->actfrcrange[1]);
  if (x->actfrclimited && j->actfrcrange[0] >= j->actfrcrange[1]) {
    return ERR(src, x->tag, nm, "actfrcrange[0] should be smaller than actfrcrange[1] in joint");
  }

  // axis (frames already applied by the parser), pos
  if (j->type == PX_JNT_FREE || j->type == PX_JNT_BALL) {
    j->axis[0] = j->axis[1] = 0;
    j->axis[2] = 1;
  }
  if (normVec(j->axis, 3) < kEps) return ERR(src, x->tag, nm, "axis too small in joint");
  if (j->type == PX_JNT_FREE) j->pos[0] = j->pos[1] = j->pos[2] = 0;

  // reference angles in radians
  if (j->type == PX_JNT_HINGE && s->degree) {
    j->ref *= kPi / 180.0;
    j->springref *= kPi / 180.0;
  }
  x->nv = j->type == PX_JNT_FREE ? 6 : j->type == PX_JNT_BALL ? 3 : 1;
  x->nq = j->type == PX_JNT_FREE ? 7 : j->type == PX_JNT_BALL ? 4 : 1;
  return PX_OK;
}

static pxtStatus compileSite(cc* k, cSite* x) {
  pxcSite* st = &x->s;
  const pxcSrc* src = &st->src;
  const char* nm = st->name;
  if (st->user.n > k->nuser_site) {
    return ERR(src, "site", nm, "user has more values than nuser_site in site");
  }
  if (st->type < 0 || st->type >= PX_NGEOMTYPES)
    return ERR(src, "site", nm, "invalid type in site");
  if (st->type == PX_GEOM_MESH || st->type == PX_GEOM_HFIELD || st->type == PX_GEOM_PLANE) {
    return ERR(src, "site", nm, "meshes, hfields and planes not allowed in site");
  }
  if (isZeroQuat(st->quat)) return ERR(src, "site", nm, "zero quaternion is not allowed");
  if (st->hasfromto) {
    TRY(applyFromto(k, src, "site", nm, st->type, &x->frame, st->fromto, st->pos, st->quat,
                    st->size));
  }
  normVec(st->quat, 4);
  return checkSize(k, src, "site", nm, st->type, st->size);
}

static int findBody(const pxcSpec* s, const char* name) {
  for (int i = 0; i < s->nbody; i++) {
    if (!strcmp(s->body[i].name, name)) return i;
  }
  return -1;
}

static pxtStatus compileCamera(cc* k, cCam* x) {
  pxcCamera* cm = &x->k;
  const pxcSrc* src = &cm->src;
  const char* nm = cm->name;
  if (cm->user.n > k->nuser_cam) {
    return ERR(src, "camera", nm, "user has more values than nuser_cam in camera");
  }
  if (isZeroQuat(cm->quat)) return ERR(src, "camera", nm, "zero quaternion is not allowed");
  normVec(cm->quat, 4);
  x->targetbodyid = -1;
  if (cm->target[0]) {
    x->targetbodyid = findBody(k->s, cm->target);
    if (x->targetbodyid < 0) {
      return ERR(src, "camera", nm, "unknown target body '%s' in camera", cm->target);
    }
  }
  if (cm->fovy >= 180) return ERR(src, "camera", nm, "fovy too large in camera (%g)", cm->fovy);

  // intrinsics from sensor size, resolution, focal and principal lengths or pixels
  int hasintrinsic = cm->focal[0] || cm->focal[1] || cm->focalpixel[0] || cm->focalpixel[1] ||
                     cm->principal[0] || cm->principal[1] || cm->principalpixel[0] ||
                     cm->principalpixel[1];
  int hassensor = cm->sensorsize[0] > 0 && cm->sensorsize[1] > 0;
  if (hasintrinsic && !hassensor) {
    return ERR(src, "camera", nm, "focal/principal require sensorsize in camera");
  }
  if (hassensor && (cm->resolution[0] <= 0 || cm->resolution[1] <= 0)) {
    return ERR(src, "camera", nm, "sensorsize requires positive resolution in camera");
  }
  memset(x->intrinsic, 0, sizeof(x->intrinsic));
  if (hassensor) {
    float density[2] = {(float)cm->resolution[0] / cm->sensorsize[0],
                        (float)cm->resolution[1] / cm->sensorsize[1]};
    x->intrinsic[0] = cm->focalpixel[0] ? cm->focalpixel[0] / density[0] : cm->focal[0];
    x->intrinsic[1] = cm->focalpixel[1] ? cm->focalpixel[1] / density[1] : cm->focal[1];
    x->intrinsic[2] = cm->principalpixel[0] ? cm->principalpixel[0] / density[0] : cm->principal[0];
    x->intrinsic[3] = cm->principalpixel[1] ? cm->principalpixel[1] / density[1] : cm->principal[1];
    cm->fovy = atan2f(cm->sensorsize[1] / 2, x->intrinsic[1]) * 360.0 / kPi;  // float, as MuJoCo
  } else {
    x->intrinsic[0] = k->znear;
    x->intrinsic[1] = k->znear;
  }
  return PX_OK;
}

static int findName(char* const* names, int n, const char* name) {
  for (int i = 0; i < n; i++) {
    if (!strcmp(names[i], name)) return i;
  }
  return -1;
}

static pxtStatus compileLight(cc* k, cLight* x) {
  pxcLight* l = &x->l;
  const pxcSrc* src = &l->src;
  const char* nm = l->name;
  if (normVec(l->dir, 3) < kEps) return ERR(src, "light", nm, "zero direction in light");
  if (l->softness < 0 || l->softness > 1) {
    return ERR(src, "light", nm, "light softness must be in [0, 1]");
  }
  x->targetbodyid = -1;
  x->texid = -1;
  if (l->target[0]) {
    x->targetbodyid = findBody(k->s, l->target);
    if (x->targetbodyid < 0) {
      return ERR(src, "light", nm, "unknown target body '%s' in light", l->target);
    }
  }
  if (l->texture[0]) {
    x->texid = findName(k->texname, k->s->ntexture, l->texture);
    if (x->texid < 0) return ERR(src, "light", nm, "unknown texture '%s' in light", l->texture);
  }
  return PX_OK;
}

//---------------------------------- bodies (mjCBody::Compile) -------------------------------------

// inertial frame, mass and inertia from the geoms (mjCBody::InertiaFromGeom)
static pxtStatus inertiaFromGeom(cc* k, int b) {
  cBody* body = k->body + b;
  const pxcSpec* s = k->s;
  int sel[2] = {-1, -1}, nsel = 0;
  for (int i = body->gadr; i < body->gadr + body->gnum; i++) {
    const cGeom* x = k->geom + i;
    if (x->g.group >= s->inertiagrouprange[0] && x->g.group <= s->inertiagrouprange[1] &&
        x->mass > kEps) {
      if (nsel < 2) sel[nsel] = i;
      nsel++;
    }
  }
  if (nsel == 0) return PX_OK;

  // one geom: copy its frame and inertia
  if (nsel == 1) {
    const cGeom* x = k->geom + sel[0];
    memcpy(body->ipos, x->g.pos, sizeof(body->ipos));
    memcpy(body->iquat, x->g.quat, sizeof(body->iquat));
    body->mass = x->mass;
    memcpy(body->inertia, x->inertia, sizeof(body->inertia));
    body->iposdef = 1;
    return PX_OK;
  }

  // several geoms: total mass, center of mass, combined inertia, principal axes
  double com[3] = {0, 0, 0}, toti[6] = {0, 0, 0, 0, 0, 0};
  body->mass = 0;
  for (int pass = 0; pass < 2; pass++) {
    for (int i = body->gadr; i < body->gadr + body->gnum; i++) {
      const cGeom* x = k->geom + i;
      if (x->g.group < s->inertiagrouprange[0] || x->g.group > s->inertiagrouprange[1] ||
          x->mass <= kEps) {
        continue;
      }
      if (pass == 0) {
        body->mass += x->mass;
        for (int d = 0; d < 3; d++) com[d] += x->mass * x->g.pos[d];
      } else {
        double inert0[6], inert1[6];
        double dpos[3] = {x->g.pos[0] - body->ipos[0], x->g.pos[1] - body->ipos[1],
                          x->g.pos[2] - body->ipos[2]};
        globalInertia(inert0, x->inertia, x->g.quat);
        offCenter(inert1, x->mass, dpos);
        for (int d = 0; d < 6; d++) toti[d] = toti[d] + inert0[d] + inert1[d];
      }
    }
    if (pass == 0) {
      if (body->mass < kEps) {
        return ERR(&s->body[b].src, "body", s->body[b].name,
                   "body mass is too small, cannot compute center of mass");
      }
      for (int d = 0; d < 3; d++) body->ipos[d] = com[d] / body->mass;
      body->iposdef = 1;
    }
  }
  if (!fullInertia(body->iquat, body->inertia, toti)) {
    return ERR(&s->body[b].src, "body", s->body[b].name,
               "error 'inertia must have positive eigenvalues' in alternative for principal axes");
  }
  return PX_OK;
}

// free-joint alignment: move the inertial frame into the body frame
static void alignFree(cc* k, cBody* body, double* ipos_inv, double* iquat_inv) {
  frameAccum(body->pos, body->quat, body->ipos, body->iquat);
  frameInvert(ipos_inv, iquat_inv, body->ipos, body->iquat);
  body->ipos[0] = body->ipos[1] = body->ipos[2] = 0;
  body->iquat[0] = 1;
  body->iquat[1] = body->iquat[2] = body->iquat[3] = 0;
  for (int i = body->gadr; i < body->gadr + body->gnum; i++) {
    frameAccumChild(ipos_inv, iquat_inv, k->geom[i].g.pos, k->geom[i].g.quat);
  }
}

static pxtStatus compileBody(cc* k, int b) {
  const pxcSpec* s = k->s;
  const pxcBody* sb = s->body + b;
  cBody* body = k->body + b;
  const pxcSrc* src = &sb->src;
  const char* nm = sb->name;
  if (sb->user.n > k->nuser_body) {
    return ERR(src, "body", nm, "user has more values than nuser_body in body");
  }
  if (isZeroQuat(body->quat) || isZeroQuat(body->iquat)) {
    return ERR(src, "body", nm, "zero quaternion is not allowed");
  }
  normVec(body->quat, 4);
  normVec(body->iquat, 4);
  if (sb->hasinertial && sb->fullinertia &&
      !fullInertia(body->iquat, body->inertia, sb->fullinertia6)) {
    return ERR(src, "body", nm, "error 'inertia must have positive eigenvalues' in fullinertia");
  }

  // geoms, then the inertial frame from them where asked
  for (int i = body->gadr; i < body->gadr + body->gnum; i++) {
    int group = k->geom[i].g.group;
    int infer = b > 0 && (!sb->hasinertial || s->inertiafromgeom == 1) &&
                group >= s->inertiagrouprange[0] && group <= s->inertiagrouprange[1];
    TRY(compileGeom(k, k->geom + i, infer));
  }
  if (b > 0 && (s->inertiafromgeom == 1 || (!body->iposdef && s->inertiafromgeom == 2))) {
    TRY(inertiaFromGeom(k, b));
  }
  if (!body->iposdef) {
    memcpy(body->ipos, body->pos, sizeof(body->ipos));
    memcpy(body->iquat, body->quat, sizeof(body->iquat));
  }

  // mass bounds and physical inertia
  if (b > 0) {
    double* I = body->inertia;
    body->mass = fmax(body->mass, s->boundmass);
    for (int i = 0; i < 3; i++) I[i] = fmax(I[i], s->boundinertia);
    if (body->mass < 0 || I[0] < 0 || I[1] < 0 || I[2] < 0) {
      return ERR(src, "body", nm, "mass and inertia cannot be negative");
    }
    if (I[0] + I[1] < I[2] || I[0] + I[2] < I[1] || I[1] + I[2] < I[0]) {
      if (!s->balanceinertia) {
        return ERR(src, "body", nm, "inertia must satisfy A + B >= C; use 'balanceinertia' to fix");
      }
      I[0] = I[1] = I[2] = (I[0] + I[1] + I[2]) / 3.0;
    }
  }

  // collision summary of the geoms
  body->contype = body->conaffinity = 0;
  body->margin = 0;
  for (int i = body->gadr; i < body->gadr + body->gnum; i++) {
    body->contype |= k->geom[i].g.contype;
    body->conaffinity |= k->geom[i].g.conaffinity;
    body->margin = fmax(body->margin, k->geom[i].g.margin + k->geom[i].g.gap);
  }

  // free-joint alignment, phase 1
  int haschild = body->nsub > 1;
  const pxcJoint* j0 = body->jnum ? &k->jnt[body->jadr].j : NULL;
  int align = body->jnum == 1 && j0->type == PX_JNT_FREE && !haschild &&
              (j0->align == 1 || (j0->align == 2 && s->alignfree));
  double ipos_inv[3] = {0, 0, 0}, iquat_inv[4] = {1, 0, 0, 0};
  if (align) alignFree(k, body, ipos_inv, iquat_inv);

  // joints
  body->dofnum = 0;
  int hasball = 0;
  for (int i = body->jadr; i < body->jadr + body->jnum; i++) {
    TRY(compileJoint(k, k->jnt + i));
    body->dofnum += k->jnt[i].nv;
  }
  if (body->dofnum > 6) return ERR(src, "body", nm, "more than 6 dofs in body '%s'", nm);
  for (int i = body->jadr; i < body->jadr + body->jnum; i++) {
    int type = k->jnt[i].j.type;
    if ((type == PX_JNT_BALL || type == PX_JNT_HINGE) && hasball) {
      return ERR(src, "body", nm, "ball followed by rotation in body '%s'", nm);
    }
    if (type == PX_JNT_BALL) hasball = 1;
  }
  int nfree = 0;
  for (int i = body->jadr; i < body->jadr + body->jnum; i++)
    nfree += k->jnt[i].j.type == PX_JNT_FREE;
  if (nfree > 1 || (nfree == 1 && body->jnum > 1)) {
    return ERR(src, "body", nm, "free joint can only appear by itself");
  }
  if (nfree && sb->parent != 0) {
    const cJoint* j = k->jnt + body->jadr;
    return ERR(&j->j.src, j->tag, j->j.name, "free joint can only be used on top level");
  }
  if (sb->mocap && (body->dofnum || (b > 0 && sb->parent != 0))) {
    return ERR(src, "body", nm, "mocap body '%s' is not a fixed child of world", nm);
  }

  // sites, cameras, lights
  for (int i = body->sadr; i < body->sadr + body->snum; i++) TRY(compileSite(k, k->site + i));
  for (int i = body->cadr; i < body->cadr + body->cnum; i++) TRY(compileCamera(k, k->cam + i));
  for (int i = body->ladr; i < body->ladr + body->lnum; i++) TRY(compileLight(k, k->light + i));

  // free-joint alignment, phase 2
  if (align) {
    for (int i = body->sadr; i < body->sadr + body->snum; i++) {
      frameAccumChild(ipos_inv, iquat_inv, k->site[i].s.pos, k->site[i].s.quat);
    }
    for (int i = body->cadr; i < body->cadr + body->cnum; i++) {
      frameAccumChild(ipos_inv, iquat_inv, k->cam[i].k.pos, k->cam[i].k.quat);
    }
    for (int i = body->ladr; i < body->ladr + body->lnum; i++) {
      double unit[4] = {1, 0, 0, 0};
      frameAccumChild(ipos_inv, iquat_inv, k->light[i].l.pos, unit);
      rotVecQuat(k->light[i].l.dir, k->light[i].l.dir, iquat_inv);
    }
  }
  return PX_OK;
}

// a moving body needs mass and inertia, its own or in a welded child (CheckBodyMassInertia)
static int bodyMassOk(const cc* k, int b) {
  const cBody* body = k->body + b;
  if (body->mass >= kMinVal && body->inertia[0] >= kMinVal && body->inertia[1] >= kMinVal &&
      body->inertia[2] >= kMinVal) {
    return 1;
  }
  for (int i = b + 1; i < b + body->nsub; i++) {
    if (k->s->body[i].parent != b || k->body[i].jnum) continue;
    if (bodyMassOk(k, i)) return 1;
  }
  return 0;
}

//---------------------------------- file names ----------------------------------------------------

// name without directory and extension (mjuu_strippath, mjuu_stripext)
static void fileStem(char* out, size_t len, const char* file) {
  const char* a = strrchr(file, '/');
  const char* b = strrchr(file, '\\');
  const char* base = a && (!b || a > b) ? a + 1 : b ? b + 1 : file;
  snprintf(out, len, "%s", base);
  char* dot = strrchr(out, '.');
  if (dot) *dot = 0;
}

// MuJoCo's FilePath::PathReduce: keep the absolute prefix, drop "." segments, fold "dir/.."
// (not into a leading ".."), join with '/'
static void pathReduce(char* out, size_t len, const char* in) {
  size_t plen = 0;
  if (in[0] == '/' || in[0] == '\\') {
    plen = 1;
  } else {
    const char* a = strstr(in, ":/");
    const char* b = strstr(in, ":\\");
    const char* c = a ? a : b;
    if (c) plen = (size_t)(c - in) + 2;
  }
  char* work = dupStr(in + plen);
  const char** seg = (const char**)calloc(strlen(in) + 2, sizeof(char*));
  if (!work || !seg) {
    snprintf(out, len, "%s", in);
    free(work);
    free(seg);
    return;
  }
  int n = 0;
  char* p = work;
  for (char* q = work;; q++) {
    int end = !*q;
    if (end || *q == '/' || *q == '\\') {
      *q = 0;
      if (end) {
        seg[n++] = p;  // the last piece is kept as is
        break;
      }
      if (!strcmp(p, "..") && n && strcmp(seg[n - 1], "..")) {
        n--;
      } else if (strcmp(p, ".")) {
        seg[n++] = p;
      }
      p = q + 1;
    }
  }
  size_t w = (size_t)snprintf(out, len, "%.*s", (int)plen, in);
  for (int i = 0; i < n && w < len; i++) {
    w += (size_t)snprintf(out + w, len - w, "%s%s", i ? "/" : "", seg[i]);
  }
  free(work);
  free(seg);
}

static const char* stripPath(const char* file) {
  const char* a = strrchr(file, '/');
  const char* b = strrchr(file, '\\');
  return a && (!b || a > b) ? a + 1 : b ? b + 1 : file;
}

// what the spec keeps for the compiler beside the elements: file paths, frames of fromto
// elements, joint element names, body simple and sleep
static pxtStatus readSpecExtras(cc* k) {
  const pxcSpec* s = k->s;
  k->strippath = s->strippath;
  k->znear = s->znear;
  for (int i = 0; i < s->nbody; i++) {
    k->body[i].simple = s->body[i].simple || i == 0;
    k->body[i].sleep = s->body[i].sleep != 0;
  }
  for (int i = 0; i < s->ntexture; i++) {
    char reduced[1024] = "";
    if (s->texture[i].file[0]) pathReduce(reduced, sizeof(reduced), s->texture[i].file);
    k->texfile[i] = dupStr(reduced);
    if (!k->texfile[i]) return noMem(k);
    k->texskybox[i] = s->texture[i].skybox;
    k->texsrc[i] = s->texture[i].src;
  }
  for (int i = 0; i < s->njnt; i++) k->jtag[i] = s->jnt[i].freeelem ? "freejoint" : "joint";
  for (int i = 0; i < s->ngeom; i++) {
    cFrame* f = k->gframe + i;
    memcpy(f->pos, s->geom[i].framepos, sizeof(f->pos));
    memcpy(f->quat, s->geom[i].framequat, sizeof(f->quat));
  }
  for (int i = 0; i < s->nsite; i++) {
    cFrame* f = k->sframe + i;
    memcpy(f->pos, s->site[i].framepos, sizeof(f->pos));
    memcpy(f->quat, s->site[i].framequat, sizeof(f->quat));
  }
  return PX_OK;
}

//---------------------------------- element order, names and assets -------------------------------

// stable counting sort of n elements by body: order[k] is the spec index of compiled element k;
// fill is scratch of nbody ints
static void sortByBody(int nbody, int n, const int* bodyof, int* order, int* adr, int* num,
                       int* fill) {
  memset(num, 0, sizeof(int) * (size_t)nbody);
  memset(fill, 0, sizeof(int) * (size_t)nbody);
  for (int i = 0; i < n; i++) num[bodyof[i]]++;
  int a = 0;
  for (int b = 0; b < nbody; b++) {
    adr[b] = a;
    a += num[b];
  }
  for (int i = 0; i < n; i++) order[adr[bodyof[i]] + fill[bodyof[i]]++] = i;
}

#define ORDER(list, field, cfield, cnt, adrf, numf)                         \
  do {                                                                      \
    for (int i = 0; i < (cnt); i++) bodyof[i] = s->list[i].body;            \
    sortByBody(s->nbody, (cnt), bodyof, order, adr, num, fill);             \
    for (int i = 0; i < (cnt); i++) k->field[i].cfield = s->list[order[i]]; \
    for (int b = 0; b < s->nbody; b++) {                                    \
      k->body[b].adrf = adr[b];                                             \
      k->body[b].numf = num[b];                                             \
    }                                                                       \
  } while (0)

// allocate the compiled elements and put them in model order
static pxtStatus makeElements(cc* k) {
  pxcSpec* s = k->s;
  int nmax = s->nbody;
  if (s->njnt > nmax) nmax = s->njnt;
  if (s->ngeom > nmax) nmax = s->ngeom;
  if (s->nsite > nmax) nmax = s->nsite;
  if (s->ncam > nmax) nmax = s->ncam;
  if (s->nlight > nmax) nmax = s->nlight;
  k->body = (cBody*)calloc((size_t)s->nbody + 1, sizeof(cBody));
  k->jnt = (cJoint*)calloc((size_t)s->njnt + 1, sizeof(cJoint));
  k->geom = (cGeom*)calloc((size_t)s->ngeom + 1, sizeof(cGeom));
  k->site = (cSite*)calloc((size_t)s->nsite + 1, sizeof(cSite));
  k->cam = (cCam*)calloc((size_t)s->ncam + 1, sizeof(cCam));
  k->light = (cLight*)calloc((size_t)s->nlight + 1, sizeof(cLight));
  k->jspec = (int*)calloc((size_t)s->njnt + 1, sizeof(int));
  k->gspec = (int*)calloc((size_t)s->ngeom + 1, sizeof(int));
  k->sspec = (int*)calloc((size_t)s->nsite + 1, sizeof(int));
  int* bodyof = (int*)calloc((size_t)nmax + 1, sizeof(int));
  int* order = (int*)calloc((size_t)nmax + 1, sizeof(int));
  int* adr = (int*)malloc(sizeof(int) * ((size_t)s->nbody + 1));
  int* num = (int*)malloc(sizeof(int) * ((size_t)s->nbody + 1));
  int* fill = (int*)malloc(sizeof(int) * ((size_t)s->nbody + 1));
  if (!k->body || !k->jnt || !k->geom || !k->site || !k->cam || !k->light || !k->jspec ||
      !k->gspec || !k->sspec || !bodyof || !order || !adr || !num || !fill) {
    free(bodyof);
    free(order);
    free(adr);
    free(num);
    free(fill);
    return noMem(k);
  }
  ORDER(jnt, jnt, j, s->njnt, jadr, jnum);
  memcpy(k->jspec, order, sizeof(int) * (size_t)s->njnt);
  ORDER(geom, geom, g, s->ngeom, gadr, gnum);
  memcpy(k->gspec, order, sizeof(int) * (size_t)s->ngeom);
  ORDER(site, site, s, s->nsite, sadr, snum);
  memcpy(k->sspec, order, sizeof(int) * (size_t)s->nsite);
  ORDER(cam, cam, k, s->ncam, cadr, cnum);
  ORDER(light, light, l, s->nlight, ladr, lnum);
  free(bodyof);
  free(order);
  free(adr);
  free(num);
  free(fill);

  // bodies: frames and inertials from the spec, weld roots
  for (int b = 0; b < s->nbody; b++) {
    const pxcBody* sb = s->body + b;
    cBody* body = k->body + b;
    memcpy(body->pos, sb->pos, sizeof(body->pos));
    memcpy(body->quat, sb->quat, sizeof(body->quat));
    if (sb->hasinertial) {
      memcpy(body->ipos, sb->ipos, sizeof(body->ipos));
      memcpy(body->iquat, sb->iquat, sizeof(body->iquat));
      memcpy(body->inertia, sb->inertia, sizeof(body->inertia));
      body->mass = sb->mass;
      body->iposdef = 1;
    } else {
      body->iquat[0] = 1;
    }
    if (b > 0 && sb->parent >= b) {
      return PX_FAIL(k->c->st, PX_ERR_INTERNAL, "compile: body %d precedes its parent", b);
    }
    body->weldid = b == 0 ? 0 : (body->jnum || sb->mocap) ? b : k->body[sb->parent].weldid;
  }
  for (int b = s->nbody - 1; b >= 0; b--) {
    k->body[b].nsub++;
    if (b > 0) k->body[s->body[b].parent].nsub += k->body[b].nsub;
  }
  for (int i = 0; i < s->ngeom; i++) {
    k->geom[i].meshid = k->geom[i].matid = k->geom[i].hfieldid = -1;
  }
  for (int i = 0; i < s->nsite; i++) k->site[i].matid = -1;
  return PX_OK;
}

// error for a repeated non-empty name among n names, at the second element
static pxtStatus checkRepeated(cc* k, const char* type, int n,
                               const char* (*get)(cc*, int, const pxcSrc**)) {
  for (int i = 0; i < n; i++) {
    const pxcSrc* src = NULL;
    const char* a = get(k, i, &src);
    if (!a[0]) continue;
    for (int j = i + 1; j < n; j++) {
      if (!strcmp(a, get(k, j, &src))) {
        return ERR(src, type, a, "repeated name '%s' in %s", a, type);
      }
    }
  }
  return PX_OK;
}

static const char* nameBody(cc* k, int i, const pxcSrc** src) {
  *src = &k->s->body[i].src;
  return k->s->body[i].name;
}
static const char* nameJnt(cc* k, int i, const pxcSrc** src) {
  *src = &k->jnt[i].j.src;
  return k->jnt[i].j.name;
}
static const char* nameGeom(cc* k, int i, const pxcSrc** src) {
  *src = &k->geom[i].g.src;
  return k->geom[i].g.name;
}
static const char* nameSite(cc* k, int i, const pxcSrc** src) {
  *src = &k->site[i].s.src;
  return k->site[i].s.name;
}
static const char* nameCam(cc* k, int i, const pxcSrc** src) {
  *src = &k->cam[i].k.src;
  return k->cam[i].k.name;
}
static const char* nameLight(cc* k, int i, const pxcSrc** src) {
  *src = &k->light[i].l.src;
  return k->light[i].l.name;
}
static const char* nameMesh(cc* k, int i, const pxcSrc** src) {
  *src = &k->s->mesh[i].src;
  return k->meshname[i];
}
static const char* nameHfield(cc* k, int i, const pxcSrc** src) {
  *src = &k->s->hfield[i].src;
  return k->s->hfield[i].name;
}
static const char* nameTex(cc* k, int i, const pxcSrc** src) {
  *src = k->texsrc + i;
  return k->texname[i];
}
static const char* nameMat(cc* k, int i, const pxcSrc** src) {
  *src = &k->s->mat[i].src;
  return k->s->mat[i].name;
}

// asset names (file fallback), empty and repeated names, references by name
static pxtStatus resolveNames(cc* k) {
  pxcSpec* s = k->s;
  char stem[1024];
  TRY(pxc_compileHfields(k->c));
  k->meshname = (char**)calloc((size_t)s->nmesh + 1, sizeof(char*));
  k->meshfile = (char**)calloc((size_t)s->nmesh + 1, sizeof(char*));
  k->texname = (char**)calloc((size_t)s->ntexture + 1, sizeof(char*));
  k->texfile = (char**)calloc((size_t)s->ntexture + 1, sizeof(char*));
  k->texskybox = (int*)calloc((size_t)s->ntexture + 1, sizeof(int));
  k->texsrc = (pxcSrc*)calloc((size_t)s->ntexture + 1, sizeof(pxcSrc));
  k->gframe = (cFrame*)calloc((size_t)s->ngeom + 1, sizeof(cFrame));
  k->sframe = (cFrame*)calloc((size_t)s->nsite + 1, sizeof(cFrame));
  if (!k->meshname || !k->meshfile || !k->texname || !k->texfile || !k->texskybox || !k->texsrc ||
      !k->gframe || !k->sframe) {
    return noMem(k);
  }
  k->jtag = (const char**)calloc((size_t)s->njnt + 1, sizeof(char*));
  if (!k->jtag) return noMem(k);
  for (int i = 0; i < s->njnt; i++) k->jtag[i] = "joint";
  TRY(readSpecExtras(k));
  for (int i = 0; i < s->njnt; i++) k->jnt[i].tag = k->jtag[k->jspec[i]];
  for (int i = 0; i < s->ngeom; i++) k->geom[i].frame = k->gframe[k->gspec[i]];
  for (int i = 0; i < s->nsite; i++) k->site[i].frame = k->sframe[k->sspec[i]];
  for (int i = 0; i < s->nmesh; i++) {
    const pxcMeshSpec* ms = s->mesh + i;
    char file[1024];
    pathReduce(file, sizeof(file), ms->file);
    fileStem(stem, sizeof(stem), file);
    k->meshname[i] = dupStr(ms->name[0] ? ms->name : stem);
    k->meshfile[i] = dupStr(k->strippath ? stripPath(file) : file);
    if (!k->meshname[i] || !k->meshfile[i]) return noMem(k);
    if (!k->meshname[i][0]) return ERR(&ms->src, "mesh", "", "empty name in mesh");
  }
  for (int i = 0; i < s->ntexture; i++) {
    fileStem(stem, sizeof(stem), k->texfile[i]);
    k->texname[i] = dupStr(s->texture[i].name[0] ? s->texture[i].name : stem);
    if (!k->texname[i]) return noMem(k);
    if (!k->texname[i][0] && !k->texskybox[i]) {
      return ERR(k->texsrc + i, "texture", "", "empty name in texture");
    }
  }
  for (int i = 0; i < s->nmat; i++) {
    if (!s->mat[i].name[0]) return ERR(&s->mat[i].src, "material", "", "empty name in material");
  }
  TRY(checkRepeated(k, "body", s->nbody, nameBody));
  TRY(checkRepeated(k, "joint", s->njnt, nameJnt));
  TRY(checkRepeated(k, "geom", s->ngeom, nameGeom));
  TRY(checkRepeated(k, "site", s->nsite, nameSite));
  TRY(checkRepeated(k, "camera", s->ncam, nameCam));
  TRY(checkRepeated(k, "light", s->nlight, nameLight));
  TRY(checkRepeated(k, "mesh", s->nmesh, nameMesh));
  TRY(checkRepeated(k, "hfield", s->nhfield, nameHfield));
  TRY(checkRepeated(k, "texture", s->ntexture, nameTex));
  TRY(checkRepeated(k, "material", s->nmat, nameMat));

  // references: geom meshes and materials, site materials
  for (int i = 0; i < s->ngeom; i++) {
    cGeom* x = k->geom + i;
    if (x->g.hfield[0]) {
      for (int h = 0; h < s->nhfield && x->hfieldid < 0; h++) {
        if (!strcmp(s->hfield[h].name, x->g.hfield)) x->hfieldid = h;
      }
      if (x->hfieldid < 0) {
        return ERR(&x->g.src, "geom", x->g.name, "hfield '%s' not found in geom %d", x->g.hfield,
                   i);
      }
    }
    if (x->g.mesh[0]) {
      x->meshid = findName(k->meshname, s->nmesh, x->g.mesh);
      if (x->meshid < 0) {
        return ERR(&x->g.src, "geom", x->g.name, "mesh '%s' not found in geom %d", x->g.mesh, i);
      }
    }
    if (x->g.material[0]) {
      for (int m = 0; m < s->nmat && x->matid < 0; m++) {
        if (!strcmp(s->mat[m].name, x->g.material)) x->matid = m;
      }
      if (x->matid < 0) {
        return ERR(&x->g.src, "geom", x->g.name, "material '%s' not found in geom %d",
                   x->g.material, i);
      }
    }
  }
  for (int i = 0; i < s->nsite; i++) {
    cSite* x = k->site + i;
    if (!x->s.material[0]) continue;
    for (int m = 0; m < s->nmat && x->matid < 0; m++) {
      if (!strcmp(s->mat[m].name, x->s.material)) x->matid = m;
    }
    if (x->matid < 0) {
      return ERR(&x->s.src, "site", x->s.name, "material '%s' not found in site %d", x->s.material,
                 i);
    }
  }
  for (int i = 0; i < s->nmat; i++) {
    const pxcMaterial* mt = s->mat + i;
    if (mt->texture[0] && findName(k->texname, s->ntexture, mt->texture) < 0) {
      return ERR(&mt->src, "material", mt->name, "texture '%s' not found in material %d",
                 mt->texture, i);
    }
  }
  return PX_OK;
}

// path of a mesh file: compiler meshdir joined with the file, relative to the model's directory
static void meshPath(const cc* k, int i, char* path, size_t len) {
  const char* file = k->meshfile[i];
  const char* meshdir = k->s->meshdir;
  const char* dir = k->c->doc && k->c->doc->dir ? k->c->doc->dir : "";
  char rel[2048];
  if (file[0] == '/' || !meshdir[0]) {
    snprintf(rel, sizeof(rel), "%s", file);
  } else {
    size_t n = strlen(meshdir);
    int sep = meshdir[n - 1] == '/' || meshdir[n - 1] == '\\';
    snprintf(rel, sizeof(rel), "%s%s%s", meshdir, sep ? "" : "/", file);
  }
  if (rel[0] == '/' || !dir[0]) {
    snprintf(path, len, "%s", rel);
  } else {
    snprintf(path, len, "%s/%s", dir, rel);
  }
}

// load and process every mesh asset (MuJoCo compiles all, used or not)
static pxtStatus compileMeshes(cc* k) {
  pxcSpec* s = k->s;
  k->mesh = (pxcMesh*)calloc((size_t)s->nmesh + 1, sizeof(pxcMesh));
  k->meshhull = (int*)calloc((size_t)s->nmesh + 1, sizeof(int));
  if (!k->mesh || !k->meshhull) return noMem(k);
  for (int i = 0; i < s->nmesh; i++) pxc_meshInit(k->mesh + i);

  // a colliding mesh geom (contype, conaffinity or an explicit pair) needs the convex hull
  for (int i = 0; i < s->ngeom; i++) {
    const cGeom* x = k->geom + i;
    if (x->meshid < 0 || x->g.type != PX_GEOM_MESH) continue;
    int inpair = 0;
    for (int p = 0; p < s->npair && x->g.name[0]; p++) {
      inpair |= !strcmp(s->pair[p].geom1, x->g.name) || !strcmp(s->pair[p].geom2, x->g.name);
    }
    if (x->g.contype || x->g.conaffinity || inpair) k->meshhull[x->meshid] = 1;
  }

  for (int i = 0; i < s->nmesh; i++) {
    const pxcMeshSpec* ms = s->mesh + i;
    pxcMesh* mesh = k->mesh + i;
    pxtStatus code;
    int inertia = ms->inertia;
    if (ms->builtin) {
      if (ms->file[0] || ms->nvertex || ms->nface) {
        return ERR(&ms->src, "mesh", k->meshname[i],
                   "a builtin mesh cannot be combined with a file or inline data in phalanx");
      }
      code = pxc_meshBuiltin(mesh, ms->builtin < 0 ? 0 : ms->builtin, ms->params, ms->nparams,
                             &inertia, k->meshname[i], k->c->st);
    } else if (ms->file[0]) {
      if (ms->nvertex || ms->nface) {
        return ERR(&ms->src, "mesh", k->meshname[i], "file and inline data cannot be combined");
      }
      char path[4096];
      meshPath(k, i, path, sizeof(path));
      code = pxc_meshLoadFile(mesh, path, k->c->st);
    } else {
      if (ms->nvertex % 3 || ms->nface % 3) {
        return ERR(&ms->src, "mesh", k->meshname[i], "vertex and face data must be multiples of 3");
      }
      code =
          pxc_meshSetInline(mesh, ms->vertex, ms->nvertex / 3, ms->face, ms->nface / 3, k->c->st);
    }
    if (code == PX_OK) {
      pxcMeshDef def;
      pxc_defaultMeshDef(&def);
      memcpy(def.scale, ms->scale, sizeof(def.scale));
      memcpy(def.refpos, ms->refpos, sizeof(def.refpos));
      memcpy(def.refquat, ms->refquat, sizeof(def.refquat));
      def.inertia = inertia;
      def.maxhullvert = ms->maxhullvert;
      def.needhull = k->meshhull[i];
      def.name = k->meshname[i];
      code = pxc_meshProcess(mesh, &def, k->c->st);
    }
    if (code != PX_OK) {
      // keep the mesh module's message, add where the mesh was declared
      char msg[sizeof(k->c->st->msg)];
      snprintf(msg, sizeof(msg), "%s", k->c->st->msg);
      return failAt(k, code, &ms->src, "mesh", k->meshname[i], "%s", msg);
    }
  }
  return PX_OK;
}

// nuser_*: -1 means the largest count given
static int nuserOf(int given, int n, const pxcUser* first, size_t stride) {
  if (given >= 0) return given;
  int nuser = 0;
  for (int i = 0; i < n; i++) {
    const pxcUser* u = (const pxcUser*)(const void*)((const char*)first + stride * (size_t)i);
    if (u->n > nuser) nuser = u->n;
  }
  return nuser;
}

//---------------------------------- sizes (SetSizes, ComputeSparseSizes) --------------------------

// append a path to m->paths (when m is given) at adr; its address into *pathadr; -1 if none
static int addPath(pxModel* m, int adr, const char* path, int* pathadr) {
  if (m) *pathadr = -1;
  if (!path[0]) return adr;
  int n = (int)strlen(path) + 1;
  if (m) {
    memcpy(m->paths + adr, path, (size_t)n);
    *pathadr = adr;
  }
  return adr + n;
}

// the asset paths in MuJoCo's order (CopyPaths: height fields, meshes, textures): the number of
// chars, and with m, paths and *_pathadr filled
static int pathList(cc* k, pxModel* m) {
  const pxcSpec* s = k->s;
  int adr = 0, unused;
  for (int i = 0; i < s->nhfield; i++) {
    const char* f = s->hfield[i].file;
    adr = addPath(m, adr, s->strippath ? stripPath(f) : f, m ? m->hfield_pathadr + i : &unused);
  }
  for (int i = 0; i < s->nmesh; i++) {
    adr = addPath(m, adr, k->meshfile[i], m ? m->mesh_pathadr + i : &unused);
  }
  for (int i = 0; i < s->ntexture; i++) {
    adr = addPath(m, adr, k->texfile[i], m ? m->tex_pathadr + i : &unused);
  }
  return adr;
}

static pxtStatus treeSizes(cc* k, pxModel* sz) {
  const pxcSpec* s = k->s;
  int nbody = s->nbody;

  // qpos and dof addresses, kinematic trees (first joint of a body with static ancestry)
  k->nq = k->nv = k->ntree = 0;
  for (int i = 0; i < s->njnt; i++) {
    cJoint* x = k->jnt + i;
    x->qposadr = k->nq;
    x->dofadr = k->nv;
    k->nq += x->nq;
    k->nv += x->nv;
    int b = x->j.body;
    if (i == k->body[b].jadr) {
      int stat = 1;
      for (int a = s->body[b].parent; a > 0 && stat; a = s->body[a].parent) {
        stat = k->body[a].jnum == 0;
      }
      k->ntree += stat;
    }
  }

  // dof parents (last dof of the parent chain), nM, nD
  int* dofparent = (int*)malloc(sizeof(int) * ((size_t)k->nv + 1));
  if (!dofparent) return noMem(k);
  for (int b = 0; b < nbody; b++) {
    cBody* body = k->body + b;
    int cur = b == 0 ? -1 : k->body[s->body[b].parent].lastdof;
    for (int i = body->jadr; i < body->jadr + body->jnum; i++) {
      for (int d = 0; d < k->jnt[i].nv; d++) {
        dofparent[k->jnt[i].dofadr + d] = cur;
        cur = k->jnt[i].dofadr + d;
      }
    }
    body->lastdof = cur;
  }
  k->nM = 0;
  for (int i = 0; i < k->nv; i++) {
    for (int j = i; j != -1; j = dofparent[j]) k->nM++;
  }
  free(dofparent);
  k->nD = 2 * k->nM - k->nv;

  // nB: subtree dofs of every body plus the dofs of its ancestors
  for (int b = nbody - 1; b >= 0; b--) k->body[b].subtreedofs += k->body[b].dofnum;
  for (int b = nbody - 1; b > 0; b--) {
    k->body[s->body[b].parent].subtreedofs += k->body[b].subtreedofs;
  }
  k->nB = 0;
  for (int b = 0; b < nbody; b++) {
    k->nB += k->body[b].subtreedofs;
    for (int a = b > 0 ? s->body[b].parent : 0; a > 0; a = s->body[a].parent) {
      k->nB += k->body[a].dofnum;
    }
  }
  if (k->nv == 0) k->nM = k->nD = k->nB = 0;

  // bodies with gravity compensation
  for (int b = 0; b < nbody; b++) sz->ngravcomp += s->body[b].gravcomp > 0;

  // mocap bodies
  k->nmocap = 0;
  for (int b = 0; b < nbody; b++) k->body[b].mocapid = s->body[b].mocap ? k->nmocap++ : -1;

  sz->nq = k->nq;
  sz->nv = k->nv;
  sz->nbody = nbody;
  sz->njnt = s->njnt;
  sz->ngeom = s->ngeom;
  sz->nsite = s->nsite;
  sz->ncam = s->ncam;
  sz->nlight = s->nlight;
  sz->nmesh = s->nmesh;
  sz->ntex = s->ntexture;
  sz->nmat = s->nmat;
  sz->nmocap = k->nmocap;
  sz->ntree = k->ntree;
  sz->nM = k->nM;
  sz->nD = k->nD;
  sz->nB = k->nB;
  sz->nuser_body = k->nuser_body;
  sz->nuser_jnt = k->nuser_jnt;
  sz->nuser_geom = k->nuser_geom;
  sz->nuser_site = k->nuser_site;
  sz->nuser_cam = k->nuser_cam;
  sz->nconmax = s->nconmax;
  sz->njmax = s->njmax;
  for (int i = 0; i < s->nmesh; i++) {
    sz->nmeshvert += k->mesh[i].nvert;
    sz->nmeshface += k->mesh[i].nface;
    sz->nmeshgraph += k->mesh[i].szgraph;
    sz->nmeshpoly += k->mesh[i].npoly;
    sz->nmeshpolyvert += k->mesh[i].npolyvert;
    sz->nmeshpolymap += k->mesh[i].npolymap;
  }

  sz->nhfield = s->nhfield;
  for (int i = 0; i < s->nhfield; i++) sz->nhfielddata += s->hfield[i].nrow * s->hfield[i].ncol;

  // paths of asset files (height fields, meshes, textures), at least one byte
  sz->npaths = pathList(k, NULL);
  if (sz->npaths == 0) sz->npaths = 1;
  return PX_OK;
}

//---------------------------------- names (CopyNames) ---------------------------------------------

// name of object id of a type, "" when unnamed
static const char* objName(cc* k, int type, int id) {
  const pxcSpec* s = k->s;
  const char* name = NULL;
  switch (type) {
    case PX_OBJ_BODY:
      name = s->body[id].name;
      break;
    case PX_OBJ_JOINT:
      name = k->jnt[id].j.name;
      break;
    case PX_OBJ_GEOM:
      name = k->geom[id].g.name;
      break;
    case PX_OBJ_SITE:
      name = k->site[id].s.name;
      break;
    case PX_OBJ_CAMERA:
      name = k->cam[id].k.name;
      break;
    case PX_OBJ_LIGHT:
      name = k->light[id].l.name;
      break;
    case PX_OBJ_MESH:
      name = k->meshname[id];
      break;
    case PX_OBJ_HFIELD:
      name = s->hfield[id].name;
      break;
    case PX_OBJ_TEXTURE:
      name = k->texname[id];
      break;
    case PX_OBJ_MATERIAL:
      name = s->mat[id].name;
      break;
    default:
      name = pxc_miscName(s, type, id);
  }
  return name ? name : "";
}

// object types of the name table in MuJoCo's order, with their counts and address arrays
typedef struct {
  int type;
  int n;
  int* adr;
} nameList;

static int nameLists(const pxModel* m, nameList* out) {
  nameList l[] = {{PX_OBJ_BODY, m->nbody, m->name_bodyadr},
                  {PX_OBJ_JOINT, m->njnt, m->name_jntadr},
                  {PX_OBJ_GEOM, m->ngeom, m->name_geomadr},
                  {PX_OBJ_SITE, m->nsite, m->name_siteadr},
                  {PX_OBJ_CAMERA, m->ncam, m->name_camadr},
                  {PX_OBJ_LIGHT, m->nlight, m->name_lightadr},
                  {PX_OBJ_MESH, m->nmesh, m->name_meshadr},
                  {PX_OBJ_HFIELD, m->nhfield, m->name_hfieldadr},
                  {PX_OBJ_TEXTURE, m->ntex, m->name_texadr},
                  {PX_OBJ_MATERIAL, m->nmat, m->name_matadr},
                  {PX_OBJ_PAIR, m->npair, m->name_pairadr},
                  {PX_OBJ_EXCLUDE, m->nexclude, m->name_excludeadr},
                  {PX_OBJ_EQUALITY, m->neq, m->name_eqadr},
                  {PX_OBJ_TENDON, m->ntendon, m->name_tendonadr},
                  {PX_OBJ_ACTUATOR, m->nu, m->name_actuatoradr},
                  {PX_OBJ_SENSOR, m->nsensor, m->name_sensoradr},
                  {PX_OBJ_NUMERIC, m->nnumeric, m->name_numericadr},
                  {PX_OBJ_TEXT, m->ntext, m->name_textadr},
                  {PX_OBJ_TUPLE, m->ntuple, m->name_tupleadr},
                  {PX_OBJ_KEY, m->nkey, m->name_keyadr}};
  int n = (int)(sizeof(l) / sizeof(l[0]));
  memcpy(out, l, sizeof(l));
  return n;
}

static const char* modelName(const pxcSpec* s) {
  return s->modelname[0] ? s->modelname : "MuJoCo Model";
}

// bytes of the names buffer and slots of the names hash map; also checks repeated names of the
// misc objects
static pxtStatus countNames(cc* k, pxModel* sz) {
  static const char* const kType[] = {
      "unknown",  "body",  "xbody",   "joint",    "dof",    "geom",     "site",
      "camera",   "light", "flex",    "mesh",     "skin",   "hfield",   "texture",
      "material", "pair",  "exclude", "equality", "tendon", "actuator", "sensor",
      "numeric",  "text",  "tuple",   "key",      "plugin"};
  nameList l[32];
  int nl = nameLists(sz, l);
  int total = (int)strlen(modelName(k->s)) + 1;
  sz->nnames_map = 0;
  for (int t = 0; t < nl; t++) {
    sz->nnames_map += kLoadMultiple * l[t].n;
    for (int i = 0; i < l[t].n; i++) {
      const char* a = objName(k, l[t].type, i);
      total += (int)strlen(a) + 1;
      if (l[t].type < PX_OBJ_PAIR || !a[0]) continue;
      for (int j = i + 1; j < l[t].n; j++) {
        if (!strcmp(a, objName(k, l[t].type, j))) {
          return PX_FAIL(k->c->st, PX_ERR_MJCF, "repeated name '%s' in %s", a, kType[l[t].type]);
        }
      }
    }
  }
  sz->nnames = total;
  return PX_OK;
}

// MuJoCo's name hash (mj_hashString: djb2 with xor, over signed chars)
static uint64_t hashName(const char* s, uint64_t n) {
  uint64_t h = 5381;
  int c;
  while ((c = *s++)) h = ((h << 5) + h) ^ (uint64_t)(int64_t)c;
  return h % n;
}

static void copyNames(cc* k, pxModel* m) {
  nameList l[32];
  int nl = nameLists(m, l);
  const char* model = modelName(k->s);
  int adr = (int)strlen(model) + 1;
  memcpy(m->names, model, (size_t)adr);
  int* map = m->names_map;
  for (int i = 0; i < m->nnames_map; i++) map[i] = -1;
  for (int t = 0; t < nl; t++) {
    for (int i = 0; i < l[t].n; i++) {
      const char* a = objName(k, l[t].type, i);
      int len = (int)strlen(a) + 1;
      l[t].adr[i] = adr;
      memcpy(m->names + adr, a, (size_t)len);
      adr += len;

      // hash map of this type's names (kLoadMultiple slots per object, linear probing)
      if (!a[0]) continue;
      uint64_t size = (uint64_t)(kLoadMultiple * l[t].n);
      uint64_t j = hashName(a, size);
      while (map[j] != -1) j = (j + 1) % size;
      map[j] = i;
    }
    map += kLoadMultiple * l[t].n;
  }
}

//---------------------------------- arrays (CopyTree) ---------------------------------------------

static void copyUser(double* dst, const pxcUser* u, int nuser) {
  for (int i = 0; i < nuser; i++) dst[i] = i < u->n ? u->v[i] : 0;
}

static void fillJoints(cc* k, pxModel* m, int b, int* dofadr) {
  cBody* body = k->body + b;
  int rotfound = 0;
  for (int jid = body->jadr; jid < body->jadr + body->jnum; jid++) {
    const cJoint* x = k->jnt + jid;
    const pxcJoint* j = &x->j;
    m->jnt_type[jid] = j->type;
    m->jnt_group[jid] = j->group;
    m->jnt_limited[jid] = (pxtBool)x->limited;
    m->jnt_actfrclimited[jid] = (pxtBool)x->actfrclimited;
    m->jnt_actgravcomp[jid] = (pxtBool)j->actgravcomp;
    m->jnt_qposadr[jid] = x->qposadr;
    m->jnt_dofadr[jid] = x->dofadr;
    m->jnt_bodyid[jid] = b;
    memcpy(m->jnt_pos + 3 * jid, j->pos, 3 * sizeof(double));
    memcpy(m->jnt_axis + 3 * jid, j->axis, 3 * sizeof(double));
    m->jnt_stiffness[jid] = j->stiffness[0];
    memcpy(m->jnt_stiffnesspoly + 2 * jid, j->stiffness + 1, 2 * sizeof(double));
    memcpy(m->jnt_range + 2 * jid, j->range, 2 * sizeof(double));
    memcpy(m->jnt_actfrcrange + 2 * jid, j->actfrcrange, 2 * sizeof(double));
    memcpy(m->jnt_solref + 2 * jid, j->solref_limit, 2 * sizeof(double));
    memcpy(m->jnt_solimp + 5 * jid, j->solimp_limit, 5 * sizeof(double));
    m->jnt_margin[jid] = j->margin;
    copyUser(m->jnt_user + k->nuser_jnt * jid, &j->user, k->nuser_jnt);

    // a body is not simple with a second rotation, an offset joint or a misaligned axis
    int aligned =
        (fabs(j->axis[0]) > kEps) + (fabs(j->axis[1]) > kEps) + (fabs(j->axis[2]) > kEps) == 1;
    if (rotfound || !isNullVec(j->pos) ||
        ((j->type == PX_JNT_HINGE || j->type == PX_JNT_SLIDE) && !aligned)) {
      m->body_simple[b] = 0;
    }
    if (j->type == PX_JNT_BALL || j->type == PX_JNT_HINGE) rotfound = 1;

    // qpos0 and qpos_spring
    int q = x->qposadr;
    switch (j->type) {
      case PX_JNT_FREE:
        memcpy(m->qpos0 + q, body->pos, 3 * sizeof(double));
        memcpy(m->qpos0 + q + 3, body->quat, 4 * sizeof(double));
        memcpy(m->qpos_spring + q, m->qpos0 + q, 7 * sizeof(double));
        break;
      case PX_JNT_BALL:
        m->qpos0[q] = m->qpos_spring[q] = 1;
        break;
      default:
        m->qpos0[q] = j->ref;
        m->qpos_spring[q] = j->springref;
    }

    // dofs
    for (int d = 0; d < x->nv; d++) {
      int v = (*dofadr)++;
      m->dof_bodyid[v] = b;
      m->dof_jntid[v] = jid;
      memcpy(m->dof_solref + 2 * v, j->solref_friction, 2 * sizeof(double));
      memcpy(m->dof_solimp + 5 * v, j->solimp_friction, 5 * sizeof(double));
      m->dof_frictionloss[v] = j->frictionloss;
      m->dof_armature[v] = j->armature;
      m->dof_damping[v] = j->damping[0];
      memcpy(m->dof_dampingpoly + 2 * v, j->damping + 1, 2 * sizeof(double));
      m->dof_parentid[v] = body->lastdof;
      body->lastdof = v;
    }
  }
}

static void fillGeoms(cc* k, pxModel* m, int b) {
  const cBody* body = k->body + b;
  for (int gid = body->gadr; gid < body->gadr + body->gnum; gid++) {
    const cGeom* x = k->geom + gid;
    const pxcGeom* g = &x->g;
    m->geom_type[gid] = g->type;
    m->geom_contype[gid] = g->contype;
    m->geom_conaffinity[gid] = g->conaffinity;
    m->geom_condim[gid] = g->condim;
    m->geom_bodyid[gid] = b;
    m->geom_dataid[gid] = x->meshid >= 0 ? x->meshid : x->hfieldid;
    m->geom_matid[gid] = x->matid;
    m->geom_group[gid] = g->group;
    m->geom_priority[gid] = g->priority;
    m->geom_plugin[gid] = -1;
    memcpy(m->geom_size + 3 * gid, g->size, 3 * sizeof(double));
    memcpy(m->geom_aabb + 6 * gid, x->aabb, 6 * sizeof(double));
    memcpy(m->geom_pos + 3 * gid, g->pos, 3 * sizeof(double));
    memcpy(m->geom_quat + 4 * gid, g->quat, 4 * sizeof(double));
    memcpy(m->geom_friction + 3 * gid, g->friction, 3 * sizeof(double));
    m->geom_solmix[gid] = g->solmix;
    memcpy(m->geom_solref + 2 * gid, g->solref, 2 * sizeof(double));
    memcpy(m->geom_solimp + 5 * gid, g->solimp, 5 * sizeof(double));
    m->geom_margin[gid] = g->margin;
    m->geom_gap[gid] = g->gap;
    memcpy(m->geom_surfacevel + 6 * gid, g->surfacevel, 6 * sizeof(double));
    m->geom_adhesion[gid] = g->adhesion;
    memcpy(m->geom_fluid + 12 * gid, x->fluid, 12 * sizeof(double));
    copyUser(m->geom_user + k->nuser_geom * gid, &g->user, k->nuser_geom);
    memcpy(m->geom_rgba + 4 * gid, g->rgba, 4 * sizeof(float));
    m->geom_rbound[gid] = geomRBound(k, x);
  }
}

static void fillSitesCamerasLights(cc* k, pxModel* m, int b) {
  const cBody* body = k->body + b;
  for (int sid = body->sadr; sid < body->sadr + body->snum; sid++) {
    const pxcSite* st = &k->site[sid].s;
    m->site_type[sid] = st->type;
    m->site_bodyid[sid] = b;
    m->site_matid[sid] = k->site[sid].matid;
    m->site_group[sid] = st->group;
    memcpy(m->site_size + 3 * sid, st->size, 3 * sizeof(double));
    memcpy(m->site_pos + 3 * sid, st->pos, 3 * sizeof(double));
    memcpy(m->site_quat + 4 * sid, st->quat, 4 * sizeof(double));
    copyUser(m->site_user + k->nuser_site * sid, &st->user, k->nuser_site);
    memcpy(m->site_rgba + 4 * sid, st->rgba, 4 * sizeof(float));
  }
  for (int cid = body->cadr; cid < body->cadr + body->cnum; cid++) {
    const cCam* x = k->cam + cid;
    const pxcCamera* cm = &x->k;
    m->cam_bodyid[cid] = b;
    m->cam_mode[cid] = cm->mode;
    m->cam_targetbodyid[cid] = x->targetbodyid;
    memcpy(m->cam_pos + 3 * cid, cm->pos, 3 * sizeof(double));
    memcpy(m->cam_quat + 4 * cid, cm->quat, 4 * sizeof(double));
    m->cam_projection[cid] = cm->projection;
    m->cam_fovy[cid] = cm->fovy;
    m->cam_ipd[cid] = cm->ipd;
    memcpy(m->cam_resolution + 2 * cid, cm->resolution, 2 * sizeof(int));
    m->cam_output[cid] = cm->output;
    memcpy(m->cam_sensorsize + 2 * cid, cm->sensorsize, 2 * sizeof(float));
    memcpy(m->cam_intrinsic + 4 * cid, x->intrinsic, 4 * sizeof(float));
    copyUser(m->cam_user + k->nuser_cam * cid, &cm->user, k->nuser_cam);
  }
  for (int lid = body->ladr; lid < body->ladr + body->lnum; lid++) {
    const cLight* x = k->light + lid;
    const pxcLight* l = &x->l;
    m->light_bodyid[lid] = b;
    m->light_mode[lid] = l->mode;
    m->light_targetbodyid[lid] = x->targetbodyid;
    m->light_type[lid] = l->type;
    m->light_texid[lid] = x->texid;
    m->light_castshadow[lid] = (pxtBool)l->castshadow;
    m->light_active[lid] = (pxtBool)l->active;
    memcpy(m->light_pos + 3 * lid, l->pos, 3 * sizeof(double));
    memcpy(m->light_dir + 3 * lid, l->dir, 3 * sizeof(double));
    m->light_bulbradius[lid] = l->bulbradius;
    m->light_intensity[lid] = l->intensity;
    m->light_range[lid] = l->range;
    memcpy(m->light_attenuation + 3 * lid, l->attenuation, 3 * sizeof(float));
    m->light_cutoff[lid] = l->cutoff;
    m->light_softness[lid] = l->softness;
    m->light_exponent[lid] = l->exponent;
    memcpy(m->light_ambient + 3 * lid, l->ambient, 3 * sizeof(float));
    memcpy(m->light_diffuse + 3 * lid, l->diffuse, 3 * sizeof(float));
    memcpy(m->light_specular + 3 * lid, l->specular, 3 * sizeof(float));
  }
}

static void fillTree(cc* k, pxModel* m) {
  const pxcSpec* s = k->s;
  int jntadr = 0, dofadr = 0;
  for (int i = 0; i < s->nbody; i++) {
    cBody* body = k->body + i;
    int par = i > 0 ? s->body[i].parent : -1;
    m->body_parentid[i] = i > 0 ? par : 0;
    m->body_weldid[i] = body->weldid;
    m->body_mocapid[i] = body->mocapid;
    m->body_jntnum[i] = body->jnum;
    m->body_jntadr[i] = body->jnum ? jntadr : -1;
    m->body_dofnum[i] = body->dofnum;
    m->body_dofadr[i] = body->dofnum ? dofadr : -1;
    m->body_geomnum[i] = body->gnum;
    m->body_geomadr[i] = body->gnum ? body->gadr : -1;
    memcpy(m->body_pos + 3 * i, body->pos, 3 * sizeof(double));
    memcpy(m->body_quat + 4 * i, body->quat, 4 * sizeof(double));
    memcpy(m->body_ipos + 3 * i, body->ipos, 3 * sizeof(double));
    memcpy(m->body_iquat + 4 * i, body->iquat, 4 * sizeof(double));
    m->body_mass[i] = body->mass;
    memcpy(m->body_inertia + 3 * i, body->inertia, 3 * sizeof(double));
    m->body_gravcomp[i] = s->body[i].gravcomp;
    copyUser(m->body_user + k->nuser_body * i, &s->body[i].user, k->nuser_body);
    m->body_plugin[i] = -1;
    m->body_contype[i] = body->contype;
    m->body_conaffinity[i] = body->conaffinity;
    m->body_margin[i] = body->margin;
    m->body_rootid[i] = (i == 0 || par == 0) ? i : m->body_rootid[par];
    body->lastdof = par >= 0 ? k->body[par].lastdof : -1;

    // simple: inertial frame is the body frame, and the body is a root or the child of a
    // static child of the world; never a parent (except the world)
    int same = isNullVec(m->body_ipos + 3 * i) && isNullQuat(m->body_iquat + 4 * i);
    int pid = m->body_parentid[i];
    m->body_simple[i] = (pxtByte)(same && (m->body_rootid[i] == i || (m->body_parentid[pid] == 0 &&
                                                                      m->body_dofnum[pid] == 0)));
    if (!body->simple) m->body_simple[i] = 0;
    if (m->body_parentid[i] > 0) m->body_simple[m->body_parentid[i]] = 0;

    fillJoints(k, m, i, &dofadr);
    jntadr += body->jnum;
    if (m->body_simple[i] && m->body_dofnum[i]) {
      m->body_simple[i] = 2;
      for (int j = body->jadr; j < body->jadr + body->jnum; j++) {
        if (k->jnt[j].j.type != PX_JNT_SLIDE) m->body_simple[i] = 1;
      }
    }
    fillGeoms(k, m, i);
    fillSitesCamerasLights(k, m, i);
  }

  // kinematic trees, dof addresses in M
  int ntree = 0;
  for (int i = 0; i < m->nv; i++) {
    if (m->dof_parentid[i] == -1) ntree++;
    m->dof_treeid[i] = ntree - 1;
  }
  for (int i = 0; i < s->nbody; i++) {
    int w = m->body_weldid[i];
    m->body_treeid[i] = m->body_dofnum[w] ? m->dof_treeid[m->body_dofadr[w]] : -1;
  }
  int madr = 0;
  for (int i = 0; i < m->nv; i++) {
    m->dof_Madr[i] = madr;
    for (int j = i; j >= 0; j = m->dof_parentid[j]) madr++;
  }
}

// tree sleep policies given by the user (mjtSleepPolicy: auto, never, allowed, init); a policy
// other than auto belongs on the first body of a moving tree
static pxtStatus setSleep(cc* k, pxModel* m) {
  static const int kPolicy[4] = {0, 3, 4, 5};
  for (int i = 0; i < m->ntree; i++) m->tree_sleep_policy[i] = 0;
  for (int i = 1; i < m->nbody; i++) {
    int tree = m->body_treeid[i];
    if (!k->body[i].sleep) continue;
    if (tree == -1 || tree == m->body_treeid[i - 1]) {
      return ERR(&k->s->body[i].src, "body", k->s->body[i].name,
                 "sleep policy only allowed for movable root bodies");
    }
    m->tree_sleep_policy[tree] = kPolicy[k->s->body[i].sleep];
  }
  return PX_OK;
}

// per mesh, the graph vertex (local id) farthest along each of the 27 directions (-1, 0, 1)^3 to
// the corners, edges and faces of a cube, in float as MuJoCo computes it; 0 without a graph
static void meshExtrema(pxModel* m, int i) {
  int* ext = m->mesh_extrema + 27 * i;
  memset(ext, 0, 27 * sizeof(int));
  if (m->mesh_graphadr[i] < 0) return;
  const int* graph = m->mesh_graph + m->mesh_graphadr[i];
  const int* globalid = graph + 2 + graph[0];
  const float* vert = m->mesh_vert + 3 * m->mesh_vertadr[i];
  float best[27];
  for (int d = 0; d < 27; d++) best[d] = -FLT_MAX;
  for (int v = 0; v < graph[0]; v++) {
    const float* p = vert + 3 * globalid[v];
    for (int d = 0; d < 27; d++) {
      float dot =
          p[0] * (float)(d / 9 - 1) + p[1] * (float)(d / 3 % 3 - 1) + p[2] * (float)(d % 3 - 1);
      if (dot > best[d]) {
        best[d] = dot;
        ext[d] = v;
      }
    }
  }
}

static void fillAssets(cc* k, pxModel* m) {
  const pxcSpec* s = k->s;
  int vadr = 0, fadr = 0, gadr = 0, hadr = 0, padr = 0, pvadr = 0, pmadr = 0;
  for (int i = 0; i < s->nhfield; i++) {
    const pxcHfield* h = s->hfield + i;
    memcpy(m->hfield_size + 4 * i, h->size, 4 * sizeof(double));
    m->hfield_nrow[i] = h->nrow;
    m->hfield_ncol[i] = h->ncol;
    m->hfield_adr[i] = hadr;
    memcpy(m->hfield_data + hadr, h->data, sizeof(float) * (size_t)(h->nrow * h->ncol));
    hadr += h->nrow * h->ncol;
  }
  for (int i = 0; i < s->nmesh; i++) {
    const pxcMesh* me = k->mesh + i;
    m->mesh_vertadr[i] = vadr;
    m->mesh_vertnum[i] = me->nvert;
    m->mesh_faceadr[i] = fadr;
    m->mesh_facenum[i] = me->nface;
    m->mesh_graphadr[i] = me->szgraph ? gadr : -1;
    memcpy(m->mesh_scale + 3 * i, s->mesh[i].scale, 3 * sizeof(double));
    memcpy(m->mesh_pos + 3 * i, me->pos, 3 * sizeof(double));
    memcpy(m->mesh_quat + 4 * i, me->quat, 4 * sizeof(double));
    if (me->nvert) memcpy(m->mesh_vert + 3 * vadr, me->vert, 3 * sizeof(float) * (size_t)me->nvert);
    if (me->nface) memcpy(m->mesh_face + 3 * fadr, me->face, 3 * sizeof(int) * (size_t)me->nface);
    if (me->szgraph) memcpy(m->mesh_graph + gadr, me->graph, sizeof(int) * (size_t)me->szgraph);
    meshExtrema(m, i);

    // per-vertex frames (phalanx's mesh_taxelframe, at the mesh's vertex rows: MuJoCo's
    // mesh_normal when it holds 3 normals per vertex)
    m->mesh_taxeladr[i] = -1;
    if (me->nnormal && me->nnormal == 3 * me->nvert) {
      m->mesh_taxeladr[i] = vadr;
      memcpy(m->mesh_taxelframe + 9 * vadr, me->normal, 9 * sizeof(float) * (size_t)me->nvert);
    }

    // polygons (CopyPolygons, CopyPolygonMap, CopyPolygonNormals)
    m->mesh_polyadr[i] = padr;
    m->mesh_polynum[i] = me->npoly;
    if (me->npoly)
      memcpy(m->mesh_polynormal + 3 * padr, me->polynormal, 3 * sizeof(double) * (size_t)me->npoly);
    for (int p = 0, a = pvadr; p < me->npoly; p++) {
      m->mesh_polyvertadr[padr + p] = a;
      m->mesh_polyvertnum[padr + p] = me->polyvertnum[p];
      a += me->polyvertnum[p];
    }
    if (me->npolyvert)
      memcpy(m->mesh_polyvert + pvadr, me->polyvert, sizeof(int) * (size_t)me->npolyvert);
    for (int v = 0, a = pmadr; v < me->nvert; v++) {
      int n = me->polymapnum ? me->polymapnum[v] : 0;
      m->mesh_polymapadr[vadr + v] = a;
      m->mesh_polymapnum[vadr + v] = n;
      a += n;
    }
    if (me->npolymap)
      memcpy(m->mesh_polymap + pmadr, me->polymap, sizeof(int) * (size_t)me->npolymap);
    padr += me->npoly;
    pvadr += me->npolyvert;
    pmadr += me->npolymap;
    vadr += me->nvert;
    fadr += me->nface;
    gadr += me->szgraph;
  }
  pathList(k, m);
  for (int i = 0; i < s->nmat; i++) {
    const pxcMaterial* mt = s->mat + i;
    for (int r = 0; r < 10; r++) m->mat_texid[10 * i + r] = -1;
    if (mt->texture[0]) m->mat_texid[10 * i + 1] = findName(k->texname, s->ntexture, mt->texture);
    m->mat_texuniform[i] = (pxtBool)mt->texuniform;
    memcpy(m->mat_texrepeat + 2 * i, mt->texrepeat, 2 * sizeof(float));
    m->mat_emission[i] = mt->emission;
    m->mat_specular[i] = mt->specular;
    m->mat_shininess[i] = mt->shininess;
    m->mat_reflectance[i] = mt->reflectance;
    m->mat_metallic[i] = mt->metallic;
    m->mat_roughness[i] = mt->roughness;
    memcpy(m->mat_rgba + 4 * i, mt->rgba, 4 * sizeof(float));
  }
}

//---------------------------------- constants (mj_setConst without dynamics) ----------------------

// sameframe codes of an object at (pos, quat) in body b
static pxtByte sameFrame(const pxModel* m, int b, const double* pos, const double* quat) {
  const double* ipos = m->body_ipos + 3 * b;
  const double* iquat = m->body_iquat + 4 * b;
  if (isNullVec(pos) && isNullQuat(quat)) return kSameBody;
  if (isNullQuat(quat)) return kSameBodyRot;
  if (isSameVec(pos, ipos) && isSameQuat(quat, iquat)) return kSameInertia;
  if (isSameQuat(quat, iquat)) return kSameInertiaRot;
  return kSameNone;
}

// sameframe, subtree masses, tree address tables (setSameframe, setFixed)
static void setFixed(pxModel* m) {
  m->body_sameframe[0] = kSameBody;
  for (int i = 1; i < m->nbody; i++) {
    const double* ipos = m->body_ipos + 3 * i;
    const double* iquat = m->body_iquat + 4 * i;
    m->body_sameframe[i] = isNullVec(ipos) && isNullQuat(iquat) ? kSameBody
                           : isNullQuat(iquat)                  ? kSameBodyRot
                                                                : kSameNone;
  }
  for (int i = 0; i < m->ngeom; i++) {
    m->geom_sameframe[i] =
        sameFrame(m, m->geom_bodyid[i], m->geom_pos + 3 * i, m->geom_quat + 4 * i);
  }
  for (int i = 0; i < m->nsite; i++) {
    m->site_sameframe[i] =
        sameFrame(m, m->site_bodyid[i], m->site_pos + 3 * i, m->site_quat + 4 * i);
  }
  for (int i = 0; i < m->nbody; i++) m->body_subtreemass[i] = m->body_mass[i];
  for (int i = m->nbody - 1; i > 0; i--) {
    m->body_subtreemass[m->body_parentid[i]] += m->body_subtreemass[i];
  }
  int cur = -1;
  for (int i = 1; i < m->nbody; i++) {
    int t = m->body_treeid[i];
    if (t == -1) continue;
    if (t > cur) {
      m->tree_bodyadr[++cur] = i;
      m->tree_bodynum[cur] = 0;
    }
    m->tree_bodynum[cur]++;
  }
  cur = -1;
  for (int i = 0; i < m->nv; i++) {
    if (m->dof_treeid[i] > cur) {
      m->tree_dofadr[++cur] = i;
      m->tree_dofnum[cur] = 0;
    }
    m->tree_dofnum[cur]++;
  }
}

// bodies touched by tendons with armature are not simple; dof_simplenum (FinalizeSimple)
static void finalizeSimple(pxModel* m) {
  for (int i = 0; i < m->ntendon; i++) {
    if (m->tendon_armature[i] == 0) continue;
    for (int j = m->tendon_adr[i]; j < m->tendon_adr[i] + m->tendon_num[i]; j++) {
      int obj = m->wrap_objid[j];
      if (m->wrap_type[j] == PX_WRAP_SITE) m->body_simple[m->site_bodyid[obj]] = 0;
      if (m->wrap_type[j] == PX_WRAP_CYLINDER || m->wrap_type[j] == PX_WRAP_SPHERE) {
        m->body_simple[m->geom_bodyid[obj]] = 0;
      }
    }
  }
  int count = 0;
  for (int i = m->nv - 1; i >= 0; i--) {
    count = m->body_simple[m->dof_bodyid[i]] ? count + 1 : 0;
    m->dof_simplenum[i] = count;
  }
}

// joint stiffness and damping from springdamper (time constant, damping ratio) and the average
// inverse inertia at qpos0 (AutoSpringDamper)
static void autoSpringDamper(cc* k, pxModel* m) {
  for (int n = 0; n < m->njnt; n++) {
    const double* sd = k->s->jnt[k->jspec[n]].springdamper;
    double timeconst = sd[0], dampratio = sd[1];
    if (timeconst <= 0 || dampratio <= 0) continue;
    int adr = m->jnt_dofadr[n], type = m->jnt_type[n];
    int ndim = type == PX_JNT_FREE ? 6 : type == PX_JNT_BALL ? 3 : 1;
    double inertia = 0;
    for (int i = 0; i < ndim; i++) inertia += m->dof_invweight0[adr + i];
    inertia = ((double)ndim) / fmax(kMinVal, inertia);
    double stiffness = inertia / fmax(kMinVal, timeconst * timeconst * dampratio * dampratio);
    double damping = 2 * inertia / fmax(kMinVal, timeconst);
    m->jnt_stiffness[n] = stiffness;
    for (int i = 0; i < ndim; i++) m->dof_damping[adr + i] = damping;
  }
}

// the constants of mj_setConst (csrc/engine/setconst.c) on a scratch world with contacts
// disabled and sleep off, as MuJoCo's compiler runs it, then the muscle length ranges
// (LengthRange with the default <lengthrange> options)
static pxtStatus setConst0(cc* k, pxModel* m) {
  pxWorlds* w = px_makeWorlds(m, 1, k->c->st);
  if (!w) return k->c->st->code;
  pxData d;
  px_worldView(w, 0, &d);
  int disable = m->opt.disableflags, enable = m->opt.enableflags;
  m->opt.disableflags |= PX_DSBL_CONTACT;
  m->opt.enableflags &= ~PX_ENBL_SLEEP;
  pxtStatus code = px_setConst(m, &d, k->c->st);
  if (code == PX_OK) autoSpringDamper(k, m);
  if (code == PX_OK) {
    pxLROpt opt;
    px_defaultLROpt(&opt);
    code = px_lengthRangeAll(m, &d, &opt, k->c->st);
  }
  m->opt.disableflags = disable;
  m->opt.enableflags = enable;
  px_freeWorlds(w);
  return code;
}

//---------------------------------- entry point ---------------------------------------------------

static void freeStrings(char** list, int n) {
  if (!list) return;
  for (int i = 0; i < n; i++) free(list[i]);
  free(list);
}

static void freeCompiler(cc* k) {
  const pxcSpec* s = k->s;
  if (k->mesh) {
    for (int i = 0; i < s->nmesh; i++) pxc_meshFree(k->mesh + i);
  }
  free(k->mesh);
  free(k->meshhull);
  freeStrings(k->meshname, s->nmesh);
  freeStrings(k->meshfile, s->nmesh);
  freeStrings(k->texname, s->ntexture);
  freeStrings(k->texfile, s->ntexture);
  free(k->texskybox);
  free(k->texsrc);
  free(k->gframe);
  free(k->sframe);
  free(k->jtag);
  free(k->jspec);
  free(k->gspec);
  free(k->sspec);
  free(k->body);
  free(k->jnt);
  free(k->geom);
  free(k->site);
  free(k->cam);
  free(k->light);
}

// everything up to the sizes: order, names, assets, elements
static pxtStatus compileElements(cc* k) {
  pxcSpec* s = k->s;
  if (s->nbody < 1) return PX_FAIL(k->c->st, PX_ERR_INTERNAL, "compile: spec has no world body");
  if (s->nbody >= 65534) {
    return PX_FAIL(k->c->st, PX_ERR_MJCF, "number of bodies plus flexes must be less than 65534");
  }
  TRY(makeElements(k));
  TRY(resolveNames(k));

  // user data sizes
#define NUSER(given, n, list) \
  ((n) ? nuserOf((given), (n), &(list)[0].user, sizeof((list)[0])) : ((given) < 0 ? 0 : (given)))
  k->nuser_body = NUSER(s->nuser_body, s->nbody, s->body);
  k->nuser_jnt = NUSER(s->nuser_jnt, s->njnt, s->jnt);
  k->nuser_geom = NUSER(s->nuser_geom, s->ngeom, s->geom);
  k->nuser_site = NUSER(s->nuser_site, s->nsite, s->site);
  k->nuser_cam = NUSER(s->nuser_cam, s->ncam, s->cam);
#undef NUSER

  TRY(compileMeshes(k));
  for (int b = 0; b < s->nbody; b++) TRY(compileBody(k, b));
  return PX_OK;
}

pxtStatus pxc_compile(pxcCtx* c, pxModel** out) {
  *out = NULL;
  cc kc;
  cc* k = &kc;
  memset(k, 0, sizeof(*k));
  k->c = c;
  k->s = c->spec;
  pxcSpec* s = c->spec;
  pxModel* m = NULL;
  pxtStatus code = compileElements(k);

  // sizes of the tree, then of everything else
  pxModel sz;
  memset(&sz, 0, sizeof(sz));
  if (code == PX_OK) code = treeSizes(k, &sz);
  for (int b = 1; code == PX_OK && b < s->nbody; b++) {
    if (k->body[b].jnum && !bodyMassOk(k, b)) {
      code = ERR(&s->body[b].src, "body", s->body[b].name,
                 "mass and inertia of moving bodies must be larger than mjMINVAL");
    }
  }
  if (code == PX_OK) {
    sz.opt = s->opt;
    sz.stat.extent = 2;
    sz.stat.meaninertia = 1;
    sz.stat.meanmass = 1;
    sz.stat.meansize = 0.2;
    int* nvert = (int*)calloc((size_t)s->nmesh + 1, sizeof(int));
    if (!nvert) {
      code = noMem(k);
    } else {
      for (int i = 0; i < s->nmesh; i++) nvert[i] = k->mesh[i].nvert;
      c->nmeshc = s->nmesh;
      c->meshname = k->meshname;
      c->meshnvert = nvert;
      code = pxc_sizeMisc(c, &sz);
      c->nmeshc = 0;
      c->meshname = NULL;
      c->meshnvert = NULL;
      free(nvert);
    }
  }
  if (code == PX_OK) code = countNames(k, &sz);
  if (code == PX_OK && px_modelBytes(&sz) > PX_MAX_MODEL_BYTES) {
    code = PX_FAIL(c->st, PX_ERR_NOMEM,
                   "the compiled model would need %zu bytes, more than phalanx's limit of %zu "
                   "(look at <size nuser_*> and the asset sizes)",
                   px_modelBytes(&sz), PX_MAX_MODEL_BYTES);
  }
  if (code == PX_OK) {
    m = px_makeModel(&sz);
    if (!m) code = noMem(k);
  }

  // arrays: the tree, the assets, total mass, fixed constants, then the misc elements
  if (code == PX_OK) {
    copyNames(k, m);
    fillTree(k, m);
    fillAssets(k, m);
    code = setSleep(k, m);
  }
  if (code == PX_OK) {
    if (s->settotalmass > 0) {
      double total = 0;
      for (int i = 1; i < m->nbody; i++) total += m->body_mass[i];
      double scale = fmax(kMinVal, s->settotalmass / fmax(kMinVal, total));
      for (int i = 1; i < m->nbody; i++) {
        m->body_mass[i] *= scale;
        for (int d = 0; d < 3; d++) m->body_inertia[3 * i + d] *= scale;
      }
    }
    setFixed(m);
    code = pxc_fillMisc(c, m);
  }
  if (code == PX_OK) {
    finalizeSimple(m);
    code = pxc_compileSparse(c, &m);
  }

  // kinematics at qpos0: camera and light offsets, statistics, dof_length
  if (code == PX_OK) code = setConst0(k, m);
  if (code == PX_OK) {
    if (s->stat_given & 1) m->stat.meaninertia = s->stat.meaninertia;
    if (s->stat_given & 2) m->stat.meanmass = s->stat.meanmass;
    if (s->stat_given & 4) m->stat.meansize = s->stat.meansize;
    if (s->stat_given & 8) m->stat.extent = s->stat.extent;
    if (s->stat_given & 16) memcpy(m->stat.center, s->stat.center, sizeof(m->stat.center));
  }
  freeCompiler(k);
  if (code != PX_OK) {
    px_freeModel(m);
    return code;
  }
  *out = m;
  return PX_OK;
}
