// SPDX-License-Identifier: Apache-2.0
// The CPU executor of collision detection (csrc/kern/collide.h): contact capacity, the check
// that every geom pair a model can bring together has a narrow-phase routine, mj_collision and
// the single-pair narrow phase the conformance tests drive.
#include <string.h>

#include "kern/prelude_c.h"

#include "kern/collide.h"

// Contact capacity per world when <size nconmax> is absent: the sum of MuJoCo's per-pair maxima
// over the geom pairs that pass the static filters, capped (overflow counts CONTACTFULL)
#define PX_NCONMAX_CAP 10000

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

int px_contactCapacity(const pxModel* m) {
  if (m->nconmax >= 0) return m->nconmax;
  long sum = 0;
  staticPairs(m, addMaxContact, &sum);
  return sum < PX_NCONMAX_CAP ? (int)sum : PX_NCONMAX_CAP;
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
  if (t1 == PX_GEOM_HFIELD) return t2 != PX_GEOM_HFIELD;
  if (t1 == PX_GEOM_PLANE) return 0;
  if (t1 == PX_GEOM_SPHERE) return t2 == PX_GEOM_ELLIPSOID || t2 == PX_GEOM_MESH;
  if (t1 == PX_GEOM_CAPSULE) return t2 != PX_GEOM_CAPSULE && t2 != PX_GEOM_BOX;
  if (t1 == PX_GEOM_BOX) return t2 == PX_GEOM_MESH;
  return 1;
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

pxtStatus px_collisionCheck(const pxModel* m, pxStatus* st) {
  if (m->opt.enableflags & PX_ENBL_SLEEP) {
    return PX_FAIL(st, PX_ERR_UNSUPPORTED, "collision: sleep (enableflags sleep) is not supported");
  }
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
