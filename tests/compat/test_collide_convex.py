# SPDX-License-Identifier: Apache-2.0
"""The general convex collider (MuJoCo 3.12's mjc_Convex on native GJK/EPA) against MuJoCo: every
geom-type pair MuJoCo's collision table sends to mjc_Convex, seeded random poses in three zones
(penetrating, within margin + gap, beyond), multiccd on and off, margin zero and positive;
contact count, dist, pos and frame compared per pair (measured: bit-equal, error 0).

MuJoCo's polygon multi-contact (box-mesh and mesh-mesh without margin, multiccd on) clips the
mesh polygons the compiler builds (mesh_poly*, compared with MuJoCo's in test_conformance): it is
covered by test_pair, and test_polygon_multicontact / test_polygon_multicontact_corpus run the
kernel through a stand-alone C harness on MuJoCo's own geom poses (phalanx's polygon arrays,
checked equal to MuJoCo's). Also: degenerate poses, tiny geoms, ccd_iterations/ccd_tolerance
options, a driver-level scene through phalanx.collision."""

import os
import shutil
import subprocess
import zlib

import numpy as np
import pytest

import phalanx
from tests.conftest import fast_subset

mujoco = pytest.importorskip("mujoco")

TOL = 1e-9

# two convex meshes: an irregular hull of 20 points (hill-climbing support, >= 10 vertices) and
# a 6-vertex one (exhaustive search)
_rng = np.random.default_rng(11)
_pts = _rng.normal(size=(20, 3)) * np.array([0.22, 0.15, 0.18])
MESH_BIG = " ".join(f"{v:.6f}" for v in _pts.ravel())
MESH_SMALL = "0.2 0 0  -0.2 0 0  0 0.15 0  0 -0.15 0  0 0 0.25  0.02 0.01 -0.2"
# polygonal hulls: a box (6 quads) and a 16-sided prism (two 16-gons, 16 quads)
MESH_CUBE = " ".join(f"{x * 0.2} {y * 0.15} {z * 0.18}"
                     for x in (-1, 1) for y in (-1, 1) for z in (-1, 1))
_ang = np.arange(16) * 2 * np.pi / 16
MESH_PRISM = " ".join(f"{0.18 * np.cos(t):.6f} {0.18 * np.sin(t):.6f} {h}"
                      for t in _ang for h in (-0.12, 0.12))

GEOMS = {
    "sphere": 'type="sphere" size="0.2"',
    "capsule": 'type="capsule" size="0.12 0.22"',
    "ellipsoid": 'type="ellipsoid" size="0.25 0.14 0.19"',
    "cylinder": 'type="cylinder" size="0.18 0.21"',
    "box": 'type="box" size="0.21 0.14 0.24"',
    "mesh": 'type="mesh" mesh="big"',
    "meshs": 'type="mesh" mesh="small"',
    "meshcube": 'type="mesh" mesh="cube"',
    "meshprism": 'type="mesh" mesh="prism"',
}

# the pairs mjCOLLISIONFUNC sends to mjc_Convex (types ascending)
PAIRS = [("sphere", "ellipsoid"), ("sphere", "mesh"), ("capsule", "ellipsoid"),
         ("capsule", "cylinder"), ("capsule", "mesh"), ("ellipsoid", "ellipsoid"),
         ("ellipsoid", "cylinder"), ("ellipsoid", "box"), ("ellipsoid", "mesh"),
         ("cylinder", "cylinder"), ("cylinder", "box"), ("cylinder", "mesh"), ("box", "mesh"),
         ("mesh", "mesh"), ("meshs", "mesh"), ("box", "meshs"), ("capsule", "meshs"),
         ("box", "meshcube"), ("meshcube", "meshprism"), ("meshprism", "meshprism"),
         ("cylinder", "meshprism")]


# explicit inertia, so tiny geoms make valid bodies
INERTIAL = '<inertial pos="0 0 0" mass="1" diaginertia="0.01 0.01 0.01"/>'


def xml(a, b, margin=0.0, gap=0.0, multiccd=True, option=""):
    flag = "" if multiccd else '<flag multiccd="disable"/>'
    m = f'margin="{margin / 2}" gap="{gap / 2}"'
    return f"""<mujoco><option {option}>{flag}</option>
      <asset><mesh name="big" vertex="{MESH_BIG}"/><mesh name="small" vertex="{MESH_SMALL}"/>
        <mesh name="cube" vertex="{MESH_CUBE}"/><mesh name="prism" vertex="{MESH_PRISM}"/>
      </asset>
      <worldbody>
        <body><freejoint/>{INERTIAL}<geom {GEOMS[a]} {m}/></body>
        <body pos="1 0 0"><freejoint/>{INERTIAL}<geom {GEOMS[b]} {m}/></body>
      </worldbody></mujoco>"""


def _quat(rng):
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


def _mj_contacts(mm, md):
    """MuJoCo's contacts of geom pair (0, 1): dist (n,), pos (n, 3), frame (n, 9)"""
    n = md.ncon
    c = md.contact
    return (np.array(c.dist[:n]), np.array(c.pos[:n]).reshape(n, 3),
            np.array(c.frame[:n]).reshape(n, 9))


class Sweep:
    """Seeded poses of one model, compared between MuJoCo and phalanx; worst errors per zone"""

    def __init__(self, a, b, margin=0.0, gap=0.0, multiccd=True, seed=0, option=""):
        text = xml(a, b, margin, gap, multiccd, option)
        self.mm = mujoco.MjModel.from_xml_string(text)
        self.md = mujoco.MjData(self.mm)
        self.pm = phalanx.Model.from_xml_string(text)
        self.pd = phalanx.Data(self.pm)
        self.bound = margin + gap
        self.rng = np.random.default_rng(seed)
        self.swap = self.mm.geom_type[0] > self.mm.geom_type[1]
        self.rsum = float(self.mm.geom_rbound[0] + self.mm.geom_rbound[1])
        self.err = {"pen": 0.0, "margin": 0.0, "beyond": 0.0}
        self.count = {"pen": 0, "margin": 0, "beyond": 0}
        self.ncon_max = 0

    def pose(self, qpos):
        self.md.qpos[:] = qpos
        mujoco.mj_kinematics(self.mm, self.md)
        mujoco.mj_collision(self.mm, self.md)
        ref = _mj_contacts(self.mm, self.md)
        self.pd.qpos[:] = self.md.qpos
        phalanx.kinematics(self.pm, self.pd)
        g1, g2 = (1, 0) if self.swap else (0, 1)
        ours = phalanx._core._narrowphase(self.pm, self.pd, g1, g2, self.bound)
        return ref, ours

    def random_qpos(self, scale):
        q = np.zeros(14)
        q[0:3] = self.rng.normal(size=3) * 0.05
        q[3:7] = _quat(self.rng)
        u = self.rng.normal(size=3)
        u /= np.linalg.norm(u)
        q[7:10] = q[0:3] + u * scale * self.rsum
        q[10:14] = _quat(self.rng)
        return q

    def compare(self, qpos):
        ref, ours = self.pose(qpos)
        n = len(ref[0])
        assert len(ours[0]) == n, f"count {len(ours[0])} != mujoco's {n} at qpos {list(qpos)}"
        if n == 0:
            return "beyond", 0.0
        e = max(np.max(np.abs(ours[0] - ref[0])), np.max(np.abs(ours[1] - ref[1])),
                np.max(np.abs(ours[2] - ref[2])))
        assert e <= TOL, f"error {e} at qpos {list(qpos)}"
        self.ncon_max = max(self.ncon_max, n)
        return ("pen" if np.min(ref[0]) < 0 else "margin"), float(e)

    def run(self, per_zone):
        """until every reachable zone has per_zone poses (margin zone only with a bound)"""
        zones = ["pen", "beyond"] + (["margin"] if self.bound > 0 else [])
        tries = 0
        while any(self.count[z] < per_zone for z in zones) and tries < 60 * per_zone:
            tries += 1
            # scale of the centre distance by the bounding radii: favour the short zones
            need = [z for z in zones if self.count[z] < per_zone]
            if "margin" in need and self.rng.random() < 0.6:
                scale = self.rng.uniform(0.45, 1.1)
            elif "pen" in need and self.rng.random() < 0.6:
                scale = self.rng.uniform(0.0, 0.7)
            else:
                scale = self.rng.uniform(0.0, 1.3)
            zone, e = self.compare(self.random_qpos(scale))
            self.count[zone] += 1
            self.err[zone] = max(self.err[zone], e)
        return self


def _configs():
    for a, b in PAIRS:
        for multiccd in (True, False):
            for margin, gap in ((0.0, 0.0), (0.06, 0.02)):
                yield a, b, margin, gap, multiccd


CONFIGS = list(_configs())


@pytest.mark.parametrize("a,b,margin,gap,multiccd", CONFIGS,
                         ids=[f"{a}-{b}-m{m}-{'multi' if mc else 'single'}"
                              for a, b, m, g, mc in _configs()])
def test_pair(a, b, margin, gap, multiccd, full):
    per_zone = 500 if full else 20
    seed = zlib.crc32(f"{a}{b}{margin}{multiccd}".encode())
    s = Sweep(a, b, margin, gap, multiccd, seed=seed).run(per_zone)
    for zone in ("pen", "beyond") + (("margin",) if margin + gap > 0 else ()):
        assert s.count[zone] >= per_zone, f"only {s.count[zone]} poses in zone {zone}"


def _degenerate_poses(s):
    q = np.zeros(14)
    q[3] = q[10] = 1
    coincident = q.copy()
    parallel = q.copy()
    parallel[7:10] = [0.05, 0.0, 0.1]
    stacked = q.copy()
    stacked[7:10] = [0.0, 0.0, 0.3]
    huge = s.random_qpos(0.5)
    huge[0:3] += 1e6
    huge[7:10] += 1e6
    big = s.random_qpos(0.5)
    big[0:3] += 1e3
    big[7:10] += 1e3
    return [coincident, parallel, stacked, huge, big]


@pytest.mark.parametrize("a,b", PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
@pytest.mark.parametrize("multiccd", [True, False], ids=["multi", "single"])
def test_degenerate(a, b, multiccd):
    """coincident centres, parallel axes, huge coordinates: as MuJoCo; NaN pose: no NaN contact"""
    s = Sweep(a, b, 0.06, 0.02, multiccd, seed=5)
    for q in _degenerate_poses(s):
        s.compare(q)
    s0 = Sweep(a, b, 0.0, 0.0, multiccd, seed=6)
    for q in _degenerate_poses(s0):
        s0.compare(q)
    for k in (0, 3, 7, 10):
        q = s.random_qpos(0.3)
        q[k] = np.nan
        _, ours = s.pose(q)
        for arr in ours:
            assert np.all(np.isfinite(arr))


@pytest.mark.parametrize("pair", [("sphere", "ellipsoid"), ("ellipsoid", "box"),
                                  ("capsule", "cylinder"), ("cylinder", "mesh")])
def test_tiny_geoms(pair):
    """geoms of size 1e-6 (MuJoCo rejects zero sizes) against a regular one"""
    a, b = pair
    saved = dict(GEOMS)
    try:
        tiny = {"sphere": 'type="sphere" size="1e-6"',
                "ellipsoid": 'type="ellipsoid" size="1e-6 2e-6 1e-6"',
                "capsule": 'type="capsule" size="1e-6 1e-6"',
                "cylinder": 'type="cylinder" size="1e-6 1e-6"'}
        GEOMS[a] = tiny[a]
        for margin in (0.0, 0.05):
            Sweep(a, b, margin, 0.0, True, seed=7).run(10)
    finally:
        GEOMS.clear()
        GEOMS.update(saved)


OPTIONS = ['ccd_iterations="5"', 'ccd_iterations="200"', 'ccd_tolerance="1e-10"',
           'ccd_tolerance="1e-3"', 'ccd_tolerance="1e-10" ccd_iterations="200"']


@pytest.mark.parametrize("option", OPTIONS)
@pytest.mark.parametrize("a,b", [("ellipsoid", "ellipsoid"), ("cylinder", "cylinder"),
                                 ("ellipsoid", "mesh"), ("capsule", "cylinder"), ("box", "mesh")])
def test_ccd_options(option, a, b, full):
    """GJK/EPA iteration limit and tolerance from <option> (EPA up to 200 iterations)"""
    for margin in (0.06, 0.0):
        Sweep(a, b, margin, 0.0, True, seed=9, option=option).run(100 if full else 10)


# ---- polygon multi-contact on MuJoCo's own poses -----------------------------------------------
# A stand-alone C harness compiles csrc/kern/collide.h, fills the model arrays it reads from
# phalanx's model (the polygon arrays checked equal to MuJoCo's first), runs pxk_colConvex on
# MuJoCo's geom poses and compares the contacts.

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

HARNESS = r"""
#include <stdio.h>
#include <stdlib.h>
#include "kern/prelude_c.h"
#include "kern/collide.h"

static const char* dir;

static void* load(const char* name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.bin", dir, name);
  FILE* f = fopen(path, "rb");
  if (!f) exit(3);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  void* p = malloc(n > 0 ? (size_t)n : 8);
  if (n > 0 && fread(p, 1, (size_t)n, f) != (size_t)n) exit(4);
  fclose(f);
  return p;
}

int main(int argc, char** argv) {
  static pxModel mm;
  static pxData dd;
  pxModel* m = &mm;
  pxData* d = &dd;
  if (argc < 3) return 2;
  dir = argv[1];
  long nrec = atol(argv[2]);
#define LD(f) m->f = load(#f)
  LD(geom_size); LD(geom_type); LD(geom_dataid); LD(geom_rbound); LD(mesh_vertadr);
  LD(mesh_vertnum); LD(mesh_graphadr); LD(mesh_extrema); LD(mesh_vert); LD(mesh_graph);
  LD(mesh_polynum); LD(mesh_polyadr); LD(mesh_polynormal); LD(mesh_polyvertadr);
  LD(mesh_polyvertnum); LD(mesh_polyvert); LD(mesh_polymapadr); LD(mesh_polymapnum);
  LD(mesh_polymap);
  double* opt = load("opt");
  m->opt.ccd_tolerance = opt[0];
  m->opt.ccd_iterations = (int)opt[1];
  m->opt.disableflags = (int)opt[2];
  int ngeom = (int)opt[3];
  double* xpos = load("xpos");  // per pose: geom_xpos (ngeom x 3)
  double* xmat = load("xmat");  // per pose: geom_xmat (ngeom x 9)
  double* recs = load("recs");  // per record: pose, g1, g2, margin
  d->contact = calloc(64, sizeof(pxContact));
  char path[4096];
  snprintf(path, sizeof path, "%s/out.bin", dir);
  FILE* out = fopen(path, "wb");
  for (long r = 0; r < nrec; r++) {
    long p = (long)recs[4 * r];
    d->geom_xpos = xpos + 3 * ngeom * p;
    d->geom_xmat = xmat + 9 * ngeom * p;
    double rec[1 + 5 * 13] = {0};
    int n = pxk_colConvex(m, d, (int)recs[4 * r + 1], (int)recs[4 * r + 2], recs[4 * r + 3], 0);
    rec[0] = n;
    for (int i = 0; i < n; i++) {
      double fr[9];
      for (int k = 0; k < 9; k++) fr[k] = d->contact[i].frame[k];
      pxk_makeFrame(fr);
      rec[1 + 13 * i] = d->contact[i].dist;
      for (int k = 0; k < 3; k++) rec[2 + 13 * i + k] = d->contact[i].pos[k];
      for (int k = 0; k < 9; k++) rec[5 + 13 * i + k] = fr[k];
    }
    fwrite(rec, sizeof rec, 1, out);
  }
  fclose(out);
  return 0;
}
"""


@pytest.fixture(scope="module")
def harness(tmp_path_factory):
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler")
    d = tmp_path_factory.mktemp("polyharness")
    (d / "harness.c").write_text(HARNESS)
    exe = str(d / "harness")
    subprocess.run([cc, "-std=c11", "-O1", "-ffp-contract=off", "-D_POSIX_C_SOURCE=200809L",
                    "-I" + os.path.join(ROOT, "csrc", "include"),
                    "-I" + os.path.join(ROOT, "csrc"), str(d / "harness.c"), "-o", exe, "-lm"],
                   check=True)
    return exe


def _aligned_qpos(s):
    """nearly aligned faces: small tilts, the second geom offset along an axis"""
    q = s.random_qpos(0.5)
    ax = s.rng.integers(3)
    for o in (3, 10):
        v = s.rng.normal(size=3) * s.rng.choice([0.0, 0.01, 0.04])
        q[o:o + 4] = [1.0, *v]
        q[o:o + 4] /= np.linalg.norm(q[o:o + 4])
    q[7:10] = q[0:3] + s.rng.normal(size=3) * 0.05
    q[7 + ax] = q[ax] + s.rng.choice([-1, 1]) * s.rng.uniform(0.2, 0.45)
    return q


POLY_PAIRS = [("box", "mesh"), ("mesh", "mesh"), ("meshs", "mesh"), ("box", "meshs"),
              ("box", "meshcube"), ("meshcube", "meshprism"), ("meshprism", "meshprism"),
              ("box", "meshprism"), ("meshcube", "meshcube")]


def _run_harness(harness, tmp_path, pm, mm, xpos, xmat, recs):
    """pxk_colConvex of records (pose, g1, g2, margin) through the harness: (nrec, 66) rows of
    count, then per contact dist, pos, frame"""
    def dump(name, arr, dt):
        np.ascontiguousarray(np.asarray(arr), dtype=dt).tofile(str(tmp_path / f"{name}.bin"))

    for f in ("geom_size", "geom_rbound"):
        dump(f, getattr(pm, f), np.float64)
    for f in ("geom_type", "geom_dataid", "mesh_vertadr", "mesh_vertnum", "mesh_graphadr",
              "mesh_extrema", "mesh_graph"):
        dump(f, getattr(pm, f), np.int32)
    dump("mesh_vert", pm.mesh_vert, np.float32)
    for f in ("mesh_polynum", "mesh_polyadr", "mesh_polyvertadr", "mesh_polyvertnum",
              "mesh_polyvert", "mesh_polymapadr", "mesh_polymapnum", "mesh_polymap"):
        assert np.array_equal(np.asarray(getattr(pm, f)), getattr(mm, f)), f
        dump(f, getattr(pm, f), np.int32)
    assert np.array_equal(np.asarray(pm.mesh_polynormal), mm.mesh_polynormal)
    dump("mesh_polynormal", pm.mesh_polynormal, np.float64)
    dump("opt", [mm.opt.ccd_tolerance, mm.opt.ccd_iterations, mm.opt.disableflags, mm.ngeom],
         np.float64)
    dump("xpos", xpos, np.float64)
    dump("xmat", xmat, np.float64)
    dump("recs", recs, np.float64)
    subprocess.run([harness, str(tmp_path), str(len(recs))], check=True)
    return np.fromfile(str(tmp_path / "out.bin")).reshape(len(recs), 66)


def _check_rows(out, refs):
    """every record's contacts equal MuJoCo's (count, dist, pos, frame); returns how many records
    had more than one contact"""
    multi = 0
    for r, ref in enumerate(refs):
        n = int(out[r, 0])
        assert n == len(ref[0]), f"record {r}: {n} contacts, mujoco {len(ref[0])}"
        multi += n > 1
        for i in range(n):
            o = out[r, 1 + 13 * i:14 + 13 * i]
            assert abs(o[0] - ref[0][i]) <= TOL
            assert np.max(np.abs(o[1:4] - ref[1][i])) <= TOL
            assert np.max(np.abs(o[4:13] - ref[2][i])) <= TOL
    return multi


@pytest.mark.parametrize("a,b", POLY_PAIRS, ids=[f"{a}-{b}" for a, b in POLY_PAIRS])
def test_polygon_multicontact(a, b, harness, tmp_path, full):
    """MuJoCo's multicontact (box-mesh, mesh-mesh without margin, multiccd) through the harness"""
    npose = 600 if full else 60
    s = Sweep(a, b, 0.0, 0.0, True, seed=zlib.crc32(f"poly{a}{b}".encode()))
    refs, xpos, xmat, recs = [], [], [], []
    for p in range(npose):
        q = _aligned_qpos(s) if p % 2 else s.random_qpos(s.rng.uniform(0.0, 0.9))
        s.md.qpos[:] = q
        mujoco.mj_kinematics(s.mm, s.md)
        mujoco.mj_collision(s.mm, s.md)
        refs.append(_mj_contacts(s.mm, s.md))
        xpos.append(s.md.geom_xpos.copy())
        xmat.append(s.md.geom_xmat.copy())
        recs.append([p, 0, 1, 0.0])
    out = _run_harness(harness, tmp_path, s.pm, s.mm, xpos, xmat, recs)
    assert _check_rows(out, refs) > 0


# MuJoCo's convex-collision test models and mesh scenes: every box/mesh pair MuJoCo finds in
# contact along its own trajectory, through the harness
POLY_CORPUS = ["box_boxmesh", "conemesh_box", "edge_edge", "long_box", "multiple_objects",
               "dice", "dice_boxmesh", "perf/boxmesh", "perf/mixed", "stacked_boxes"]
CONVEX_TYPES = {(2, 4), (2, 7), (3, 4), (3, 5), (3, 7), (4, 4), (4, 5), (4, 6), (4, 7), (5, 5),
                (5, 6), (5, 7), (6, 7), (7, 7)}


@fast_subset(lambda name: name in POLY_CORPUS[:3])
@pytest.mark.parametrize("name", POLY_CORPUS)
def test_polygon_multicontact_corpus(name, harness, tmp_path, full):
    from tests.conftest import SHARED_MODELS, shared_model
    from tests.compat.test_collision_corpus import mujoco_states
    from tests.compat.test_conformance import load_both

    path = shared_model("mujoco", "test", "engine", "testdata", "collision_convex",
                        *f"{name}.xml".split("/"))
    if not os.path.exists(path):
        pytest.skip("corpus model not present")
    pm, mm = load_both(path)
    md = mujoco.MjData(mm)
    rel = os.path.relpath(path, SHARED_MODELS)
    refs, xpos, xmat, recs = [], [], [], []
    for k, (q, mp, mq) in enumerate(mujoco_states(mm, 50 if full else 10, seed=len(rel))):
        md.qpos[:] = q
        md.mocap_pos[:] = mp
        md.mocap_quat[:] = mq
        mujoco.mj_kinematics(mm, md)
        mujoco.mj_collision(mm, md)
        xpos.append(md.geom_xpos.copy())
        xmat.append(md.geom_xmat.copy())
        groups = {}
        for i in range(md.ncon):
            c = md.contact[i]
            groups.setdefault((c.geom1, c.geom2), []).append(i)
        for (g1, g2), idx in groups.items():
            if (mm.geom_type[g1], mm.geom_type[g2]) not in CONVEX_TYPES or mm.npair:
                continue
            margin = (mm.geom_margin[g1] + mm.geom_margin[g2] + mm.geom_gap[g1] +
                      mm.geom_gap[g2])
            recs.append([k, g1, g2, margin])
            refs.append((md.contact.dist[idx].copy(), md.contact.pos[idx].copy(),
                         md.contact.frame[idx].copy()))
    if not recs:
        pytest.skip("no convex pair in contact")
    out = _run_harness(harness, tmp_path, pm, mm, xpos, xmat, recs)
    _check_rows(out, refs)
