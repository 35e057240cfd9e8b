// SPDX-License-Identifier: Apache-2.0
// The CPU executor of collision detection (csrc/kern/collide.h): contact capacity, the check
// that every geom pair a model can bring together has a narrow-phase routine, mj_collision and
// the single-pair narrow phase the conformance tests drive, and mj_geomDistance.
#include <limits.h>
#include <string.h>

#include "kern/prelude_c.h"

#include "kern/collide.h"
#include "kern/collide_dist.h"

// calls f(m, g1, g2, ipair, ctx) for every geom pair the static filters let through: <pair>s
// and the geom pairs of colliding body pairs; stops and returns nonzero when f does
typedef int (*pairFn)(const pxModel* m, int g1, int g2, int ipair, void* ctx);

static int staticPairs(const pxModel* m, pairFn f, void* ctx) {
  // (the kernel filters read only the model: no world is passed)
  if ((m->opt.disableflags & (PX_DSBL_CONSTRAINT | PX_DSBL_CONTACT)) || m->nbody < 2) return 0;
  for (int p = 0; p < m->npair; p++) {
    int r = f(m, m->pair_geom1[p], m->pair_geom2[p], p, ctx);
    if (r) return r;
  }
  for (int b1 = 0; b1 < m->nbody; b1++) {
    if (!m->body_geomnum[b1] || (!m->body_contype[b1] && !m->body_conaffinity[b1])) continue;
    for (int b2 = b1 + 1; b2 < m->nbody; b2++) {
      if (!m->body_geomnum[b2] || (!m->body_contype[b2] && !m->body_conaffinity[b2])) continue;
      if (pxk_colBodyPairOff(m, NULL, b1, b2)) continue;
      if (pxk_colExcluded(m, NULL, (b1 << 16) + b2)) continue;
      for (int g1 = m->body_geomadr[b1]; g1 < m->body_geomadr[b1] + m->body_geomnum[b1]; g1++) {
        for (int g2 = m->body_geomadr[b2]; g2 < m->body_geomadr[b2] + m->body_geomnum[b2]; g2++) {
          if (pxk_colBitmaskOff(m->geom_contype[g1], m->geom_conaffinity[g1], m->geom_contype[g2],
                                m->geom_conaffinity[g2])) {
            continue;
          }
          int r = f(m, g1, g2, -1, ctx);
          if (r) return r;
        }
      }
    }
  }
  return 0;
}

static int addMaxContact(const pxModel* m, int g1, int g2, int ipair, void* ctx) {
  long* sum = (long*)ctx;
  double bound = pxk_colMargin(m, NULL, g1, g2, ipair) + pxk_colGap(m, NULL, g1, g2, ipair);
  *sum += pxk_maxContact(m, NULL, g1, g2, bound > 0);
  return *sum >= PX_NCONMAX_CAP;
}

static int countPair(const pxModel* m, int g1, int g2, int ipair, void* ctx) {
  (void)m, (void)g1, (void)g2, (void)ipair;
  *(long*)ctx += 1;
  return 0;
}

long px_colPairCapacity(const pxModel* m) {
  long n = 0;
  staticPairs(m, countPair, &n);
  return n;
}

int px_contactCapacity(const pxModel* m) {
  if (m->nconmax >= 0) return m->nconmax;
  long sum = 0;
  staticPairs(m, addMaxContact, &sum);
  return sum < PX_NCONMAX_CAP ? (int)sum : PX_NCONMAX_CAP;
}

int px_bodyPairCapacity(const pxModel* m) {
  // counted with the parent filter off, so that disabling filterparent after the storage was
  // made (opt.disableflags is read on every call) finds room for the parent-child pairs
  pxModel all = *m;
  all.opt.disableflags |= PX_DSBL_FILTERPARENT;
  long n = 0;
  for (int b1 = 0; b1 < m->nbody; b1++) {
    if (!m->body_contype[b1] && !m->body_conaffinity[b1]) continue;
    for (int b2 = b1 + 1; b2 < m->nbody; b2++) {
      if (!m->body_contype[b2] && !m->body_conaffinity[b2]) continue;
      if (!pxk_colBodyPairOff(&all, NULL, b1, b2)) n++;
    }
  }
  return n < INT_MAX ? (int)n : INT_MAX;
}

// the most geoms on one body (the midphase's trees)
static long maxBodyGeoms(const pxModel* m) {
  long g = 0;
  for (int b = 0; b < m->nbody; b++) g = m->body_geomnum[b] > g ? m->body_geomnum[b] : g;
  return g;
}

// the ints end with the small-model pair cache of collide.h (pxk_fastFB, pxk_fastInts)
long px_colScratchReals(const pxModel* m) {
  return 10L * m->nbody + 12L * m->ngeom + 3L * maxBodyGeoms(m);
}

long px_colScratchInts(const pxModel* m, int nbpmax) {
  long g = maxBodyGeoms(m);
  return pxk_fastFB(m->nbody, m->ngeom, nbpmax, g) + pxk_fastInts(m->nbody, nbpmax);
}

static const char* geomTypeName(int t) {
  static const char* const names[PX_NGEOMTYPES] = {
      "plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh", "sdf"};
  return t >= 0 && t < PX_NGEOMTYPES ? names[t] : "unknown";
}

typedef struct {
  int g1, g2;
  const char* why;
} missingPair;

// 1 when MuJoCo sends the pair of geom types (ascending) to its general convex collider
// (mjc_Convex or mjc_ConvexHField), whose algorithm the nativeccd flag selects
static int convexRoute(int t1, int t2) {
  int r = pxk_narrowRoute(t1, t2);
  return r == PXK_NR_CONVEX || r == PXK_NR_HFIELD;
}

// the first static geom pair phalanx cannot collide as MuJoCo does, with the reason
static int findMissing(const pxModel* m, int g1, int g2, int ipair, void* ctx) {
  (void)ipair;
  missingPair* mp = (missingPair*)ctx;
  int t1 = m->geom_type[g1], t2 = m->geom_type[g2];
  if (t1 > t2) {
    int t = t1;
    t1 = t2;
    t2 = t;
  }
  mp->g1 = g1;
  mp->g2 = g2;
  if (!pxk_narrowExists(t1, t2)) return 0;
  if (!pxk_narrowSupported(t1, t2)) {
    mp->why = "collider";
    return 1;
  }
  if (convexRoute(t1, t2) && (m->opt.disableflags & PX_DSBL_NATIVECCD)) {
    mp->why = "collider with nativeccd disabled (MuJoCo's libccd path)";
    return 1;
  }
  if (convexRoute(t1, t2) && m->opt.ccd_iterations > PXK_CCD_MAXIT) {
    mp->why = "collider with ccd_iterations above 256";
    return 1;
  }
  return 0;
}

// 1 when findMissing cannot find a pair, judged from the geom types present alone: every pair
// of present types has a routine and none can meet findMissing's option- or margin-dependent
// refusals (keep in step with findMissing). It spares the walk over all body pairs, which costs
// O(nbody^2 nexclude) per call (98 ms on 100_humanoids); 0 sends the check to the full walk.
static int typesSurelyCollide(const pxModel* m) {
  int present[PX_NGEOMTYPES] = {0};
  for (int g = 0; g < m->ngeom; g++) {
    int t = m->geom_type[g];
    if (t < 0 || t >= PX_NGEOMTYPES) return 0;
    if (m->geom_contype[g] || m->geom_conaffinity[g]) present[t] = 1;
  }
  for (int p = 0; p < m->npair; p++) {
    present[m->geom_type[m->pair_geom1[p]]] = 1;
    present[m->geom_type[m->pair_geom2[p]]] = 1;
  }
  for (int t1 = 0; t1 < PX_NGEOMTYPES; t1++) {
    for (int t2 = t1; t2 < PX_NGEOMTYPES; t2++) {
      if (!present[t1] || !present[t2] || !pxk_narrowExists(t1, t2)) continue;
      if (!pxk_narrowSupported(t1, t2)) return 0;
      if (convexRoute(t1, t2) &&
          ((m->opt.disableflags & PX_DSBL_NATIVECCD) || m->opt.ccd_iterations > PXK_CCD_MAXIT)) {
        return 0;
      }
    }
  }
  return 1;
}

pxtStatus px_collisionCheck(const pxModel* m, pxStatus* st) {
  if (m->opt.enableflags & PX_ENBL_SLEEP) {
    return PX_FAIL(st, PX_ERR_UNSUPPORTED, "collision: sleep (enableflags sleep) is not supported");
  }
  if (m->nbody > 32767) {
    return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                   "collision: %d bodies; the broad phase's body-pair signatures hold 32767",
                   m->nbody);
  }
  if (typesSurelyCollide(m)) return PX_OK;
  missingPair mp;
  if (staticPairs(m, findMissing, &mp)) {
    int t1 = m->geom_type[mp.g1], t2 = m->geom_type[mp.g2];
    return PX_FAIL(
        st, PX_ERR_UNSUPPORTED, "collision: the %s-%s %s (geoms %d and %d) is not supported yet",
        geomTypeName(t1 < t2 ? t1 : t2), geomTypeName(t1 < t2 ? t2 : t1), mp.why, mp.g1, mp.g2);
  }
  return PX_OK;
}

pxtStatus px_collision(const pxModel* m, pxData* d, pxStatus* st) {
  pxtStatus code = px_collisionCheck(m, st);
  if (code != PX_OK) return code;
  pxk_collision(m, d);
  return PX_OK;
}

int px_narrowphase(const pxModel* m, pxData* d, int g1, int g2, double margin) {
  int adr = d->nconmax;
  int n = pxk_narrow(m, d, g1, g2, margin, adr);
  for (int i = adr; i < adr + n; i++) {
    double frame[9];
    memcpy(frame, d->contact[i].frame, sizeof(frame));
    pxk_makeFrame(frame);
    memcpy(d->contact[i].frame, frame, sizeof(frame));
  }
  return n;
}

pxtStatus px_geomDistance(const pxModel* m, pxData* d, int geom1, int geom2, double distmax,
                          double* fromto, double* dist, pxStatus* st) {
  if (geom1 < 0 || geom2 < 0 || geom1 >= m->ngeom || geom2 >= m->ngeom) {
    return PX_FAIL(st, PX_ERR_ARG, "geomDistance: geom ids must be in [0, %d), got %d and %d",
                   m->ngeom, geom1, geom2);
  }
  int t1 = m->geom_type[geom1], t2 = m->geom_type[geom2];
  if (t1 > t2) {
    int t = t1;
    t1 = t2;
    t2 = t;
  }
  // the routes MuJoCo takes through code phalanx does not have
  const char* why = NULL;
  if (pxk_narrowExists(t1, t2) && t2 != PX_GEOM_SDF) {
    if (!pxk_narrowSupported(t1, t2)) {
      why = "collider";
    } else if (convexRoute(t1, t2) && (m->opt.disableflags & PX_DSBL_NATIVECCD)) {
      why = "collider with nativeccd disabled (MuJoCo's libccd path)";
    } else if ((convexRoute(t1, t2) || pxk_narrowRoute(t1, t2) == PXK_NR_BOXBOX) &&
               m->opt.ccd_iterations > PXK_CCD_MAXIT &&
               !(m->opt.disableflags & PX_DSBL_NATIVECCD)) {
      why = "distance with ccd_iterations above 256";
    }
  }
  if (why) {
    return PX_FAIL(st, PX_ERR_UNSUPPORTED,
                   "geomDistance: the %s-%s %s (geoms %d and %d) is not supported yet",
                   geomTypeName(t1), geomTypeName(t2), why, geom1, geom2);
  }
  double ft[6];
  *dist = pxk_geomDistance(m, d, geom1, geom2, distmax, ft);
  if (fromto) memcpy(fromto, ft, sizeof(ft));
  return PX_OK;
}

void px_eig3(double eigval[3], double eigvec[9], double quat[4], const double mat[9]) {
  pxk_eig3(eigval, eigvec, quat, mat);
}

double px_roundF32(double x) {
  return pxk_roundF32(x);
}

int px_broadphase(const pxModel* m, pxData* d) {
  if (m->nbody < 2) return 0;
  return pxk_broadphase(m, d);
}

int px_bvh(const pxModel* m, pxData* d, int body, double* aabb, int* child, int* nodeid) {
  int nmax = 0;
  for (int b = 0; b < m->nbody; b++) nmax = m->body_geomnum[b] > nmax ? m->body_geomnum[b] : nmax;
  if (m->body_geomnum[body] == 0) return 0;
  pxk_bvhBuildAll(m, d, nmax);
  int n = d->colscr_i[pxk_bvhIB(m, d) + 1 + body];
  int ti = pxk_bvhTI(m, d), tb = 2 * m->ngeom, s = 2 * m->body_geomadr[body];
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < 6; k++) aabb[6 * i + k] = d->colscr_r[10 * m->nbody + 6 * (s + i) + k];
    child[2 * i] = d->colscr_i[ti + s + i];
    child[2 * i + 1] = d->colscr_i[ti + tb + s + i];
    nodeid[i] = d->colscr_i[ti + 2 * tb + s + i];
  }
  return n;
}
