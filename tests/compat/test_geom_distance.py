# SPDX-License-Identifier: Apache-2.0
"""phalanx.geomDistance against mujoco.mj_geomDistance (MuJoCo 3.12): every pair of geom types
MuJoCo has a routine for (plane, hfield, sphere, capsule, ellipsoid, cylinder, box, mesh), seeded
poses from deep penetration to far apart, both argument orders, distmax negative, zero, small
and large (up to 1e300), the distance and fromto compared within 1e-9 (absolute, scaled by
1 + |ref|; measured: bit-equal). Also the pairs without a routine, the nativeccd-disabled
routes, NaN poses and the argument checks."""

import zlib

import numpy as np
import pytest

import phalanx

mujoco = pytest.importorskip("mujoco")

TOL = 1e-9
DISTMAX = (-0.05, 0.0, 0.02, 0.3, 10.0, 1e300)

_rng = np.random.default_rng(23)
_pts = _rng.normal(size=(20, 3)) * np.array([0.2, 0.14, 0.17])
MESH_BIG = " ".join(f"{v:.6f}" for v in _pts.ravel())
MESH_SMALL = "0.2 0 0  -0.2 0 0  0 0.15 0  0 -0.15 0  0 0 0.25  0.02 0.01 -0.2"
NROW, NCOL = 6, 7
ELEV = np.round(np.random.default_rng(5).uniform(0, 1, size=(NROW, NCOL)), 3)
HSIZE = (1.2, 0.9, 0.4, 0.1)

GEOMS = {
    "sphere": 'type="sphere" size="0.2"',
    "capsule": 'type="capsule" size="0.12 0.22"',
    "ellipsoid": 'type="ellipsoid" size="0.25 0.14 0.19"',
    "cylinder": 'type="cylinder" size="0.18 0.21"',
    "box": 'type="box" size="0.21 0.14 0.24"',
    "mesh": 'type="mesh" mesh="big"',
    "meshs": 'type="mesh" mesh="small"',
}
FREE = ("sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh")
TYPE = {"plane": 0, "hfield": 1, "sphere": 2, "capsule": 3, "ellipsoid": 4, "cylinder": 5,
        "box": 6, "mesh": 7, "meshs": 7}

# every type pair (ascending) MuJoCo's collision table has a routine for, SDF aside
PAIRS = ([("plane", b) for b in FREE] + [("hfield", b) for b in FREE] +
         [(a, b) for i, a in enumerate(FREE) for b in FREE[i:]] + [("meshs", "mesh")])

INERTIAL = '<inertial pos="0 0 0" mass="1" diaginertia="0.01 0.01 0.01"/>'


def _fmt(v):
    return " ".join(f"{x:.6g}" for x in np.ravel(v))


def make_xml(a, b, option="", flags=""):
    asset = f"""<asset>
      <mesh name="big" vertex="{MESH_BIG}"/><mesh name="small" vertex="{MESH_SMALL}"/>
      <hfield name="h" nrow="{NROW}" ncol="{NCOL}" size="{_fmt(HSIZE)}" elevation="{_fmt(ELEV)}"/>
      </asset>"""
    if a == "plane":
        first = '<geom type="plane" size="2 2 0.1" euler="8 -5 20"/>'
    elif a == "hfield":
        first = '<geom type="hfield" hfield="h" pos="0.1 -0.1 -0.2" euler="6 -4 15"/>'
    else:
        first = f'<body><freejoint/>{INERTIAL}<geom {GEOMS[a]}/></body>'
    return f"""<mujoco><option {option}><flag {flags}/></option>{asset}<worldbody>{first}
      <body pos="1 0 0"><freejoint/>{INERTIAL}<geom {GEOMS[b]}/></body>
      </worldbody></mujoco>"""


def _quat(rng):
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


class Pair:
    """One two-geom model in both engines, seeded poses, the worst errors"""

    def __init__(self, a, b, option="", flags="", seed=0):
        text = make_xml(a, b, option, flags)
        self.a, self.b = a, b
        self.mm = mujoco.MjModel.from_xml_string(text)
        self.md = mujoco.MjData(self.mm)
        self.pm = phalanx.Model.from_xml_string(text)
        self.pd = phalanx.Data(self.pm)
        self.rng = np.random.default_rng(seed)
        self.rsum = float(self.mm.geom_rbound[1] + (self.mm.geom_rbound[0] if a not in (
            "plane", "hfield") else 0.0))
        self.worst = 0.0
        self.nclose = 0  # results below distmax (a closest pair found)
        self.npen = 0

    def random_qpos(self):
        rng = self.rng
        q = np.zeros(self.mm.nq)
        if self.a == "plane":
            q[0:2] = rng.normal(size=2) * 0.5
            q[2] = rng.uniform(-1.0, 1.6) * self.rsum
            q[3:7] = _quat(rng)
        elif self.a == "hfield":
            q[0] = rng.uniform(-1.3, 1.3)
            q[1] = rng.uniform(-1.0, 1.0)
            q[2] = rng.uniform(-0.3, 0.6)
            q[3:7] = _quat(rng)
        else:
            q[0:3] = rng.normal(size=3) * 0.05
            q[3:7] = _quat(rng)
            u = rng.normal(size=3)
            u /= np.linalg.norm(u)
            q[7:10] = q[0:3] + u * rng.uniform(0.0, 1.6) * self.rsum
            q[10:14] = _quat(rng)
        return q

    def set(self, qpos):
        self.md.qpos[:] = qpos
        mujoco.mj_kinematics(self.mm, self.md)
        self.pd.qpos[:] = self.md.qpos
        phalanx.kinematics(self.pm, self.pd)

    def compare(self, g1, g2, distmax, what=""):
        ref_ft = np.zeros(6)
        ref = mujoco.mj_geomDistance(self.mm, self.md, g1, g2, distmax, ref_ft)
        ft = np.full(6, 7.0)
        ours = phalanx.geomDistance(self.pm, self.pd, g1, g2, distmax, ft)
        assert isinstance(ours, float)
        assert ours == phalanx.geomDistance(self.pm, self.pd, g1, g2, distmax)
        e = max(abs(ours - ref) / (1 + abs(ref)),
                float(np.max(np.abs(ft - ref_ft) / (1 + np.abs(ref_ft)))))
        assert e <= TOL, (f"{self.a}-{self.b} {what} geoms ({g1}, {g2}) distmax {distmax}: "
                          f"dist {ours!r} vs mujoco {ref!r}, fromto {ft.tolist()} vs "
                          f"{ref_ft.tolist()} at qpos {self.md.qpos.tolist()}")
        self.worst = max(self.worst, e)
        if ref < distmax:
            self.nclose += 1
        if ref < 0:
            self.npen += 1
        return ref

    def sweep(self, nposes):
        for _ in range(nposes):
            self.set(self.random_qpos())
            for distmax in DISTMAX:
                self.compare(0, 1, distmax)
                self.compare(1, 0, distmax)
        return self


def _seed(*parts):
    return zlib.crc32(" ".join(map(str, parts)).encode())


@pytest.mark.parametrize("a,b", PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_pair(a, b, full):
    nposes = 150 if full else 20
    p = Pair(a, b, seed=_seed(a, b)).sweep(nposes)
    # the sweep reaches both penetration and separation within distmax
    assert p.npen > 0 or a == "hfield", f"{a}-{b}: no penetrating pose"
    # (a height field's pre-contacts measure to its prisms: mostly negative)
    assert p.nclose > p.npen or a == "hfield", f"{a}-{b}: no separated pose within distmax"
    assert p.nclose > 0
    print(f"{a}-{b}: {nposes} poses x {2 * len(DISTMAX)}, worst {p.worst:.3e}, "
          f"{p.npen} penetrating, {p.nclose} within distmax")


# the convex routes without native ccd: mjc_BoxBox is MuJoCo's own routine, the rest use libccd
@pytest.mark.parametrize("a,b", [("box", "box"), ("plane", "mesh"), ("sphere", "box"),
                                 ("capsule", "capsule")])
def test_nativeccd_disabled(a, b, full):
    p = Pair(a, b, flags='nativeccd="disable"', seed=_seed(a, b, "noccd"))
    p.sweep(60 if full else 10)


@pytest.mark.parametrize("a,b", [("sphere", "ellipsoid"), ("hfield", "box"), ("mesh", "mesh")])
def test_nativeccd_disabled_libccd_refused(a, b):
    p = Pair(a, b, flags='nativeccd="disable"')
    p.set(p.random_qpos())
    with pytest.raises(NotImplementedError, match="nativeccd"):
        phalanx.geomDistance(p.pm, p.pd, 0, 1, 1.0)


def test_ccd_iterations_refused():
    p = Pair("box", "box", option='ccd_iterations="300"')
    p.set(p.random_qpos())
    with pytest.raises(NotImplementedError, match="ccd_iterations"):
        phalanx.geomDistance(p.pm, p.pd, 0, 1, 1.0)
    # the analytic routes do not run GJK
    q = Pair("sphere", "box", option='ccd_iterations="300"')
    q.set(q.random_qpos())
    q.compare(0, 1, 1.0)


@pytest.mark.parametrize("option", ['ccd_iterations="8"', 'ccd_tolerance="1e-3"',
                                    'ccd_iterations="200" ccd_tolerance="1e-10"'])
@pytest.mark.parametrize("a,b", [("box", "box"), ("capsule", "mesh"), ("ellipsoid", "cylinder")])
def test_ccd_options(a, b, option, full):
    Pair(a, b, option=option, seed=_seed(a, b, option)).sweep(40 if full else 8)


def test_no_routine():
    """plane-plane and plane-hfield: MuJoCo has no routine, the distance is distmax"""
    text = f"""<mujoco><asset>
      <hfield name="h" nrow="{NROW}" ncol="{NCOL}" size="{_fmt(HSIZE)}" elevation="{_fmt(ELEV)}"/>
      </asset><worldbody><geom type="plane" size="1 1 .1"/><geom type="plane" size="1 1 .1"/>
      <geom type="hfield" hfield="h"/><geom type="hfield" hfield="h" pos="0 0 .1"/>
      </worldbody></mujoco>"""
    mm = mujoco.MjModel.from_xml_string(text)
    md = mujoco.MjData(mm)
    pm = phalanx.Model.from_xml_string(text)
    pd = phalanx.Data(pm)
    mujoco.mj_kinematics(mm, md)
    phalanx.kinematics(pm, pd)
    for g1, g2 in ((0, 1), (1, 0), (0, 2), (2, 0), (2, 3), (0, 0)):
        ft = np.ones(6)
        ref_ft = np.ones(6)
        ref = mujoco.mj_geomDistance(mm, md, g1, g2, 0.5, ref_ft)
        assert phalanx.geomDistance(pm, pd, g1, g2, 0.5, ft) == ref == 0.5
        assert np.array_equal(ft, ref_ft)


def test_degenerate():
    """coincident centres and aligned axes, one geom just touching, huge coordinates"""
    for a, b in PAIRS:
        p = Pair(a, b, seed=_seed(a, b, "degenerate"))
        q = np.zeros(p.mm.nq)
        q[3] = 1
        poses = [q.copy()]
        if p.mm.nq == 14:
            q[10] = 1
            poses = [q.copy()]
            for off in ([0, 0, 0.3], [0.4, 0, 0], [0, 1e-12, 0]):
                t = q.copy()
                t[7:10] = off
                poses.append(t)
        else:
            for z in (0.0, 1e-12, 0.3):
                t = q.copy()
                t[2] = z
                poses.append(t)
        far = p.random_qpos()
        far[0:3] += 1e5
        if p.mm.nq == 14:
            far[7:10] += 1e5
        poses.append(far)
        for qq in poses:
            p.set(qq)
            for distmax in DISTMAX:
                p.compare(0, 1, distmax, "degenerate")
                p.compare(1, 0, distmax, "degenerate")


@pytest.mark.parametrize("a,b", PAIRS, ids=[f"{a}-{b}" for a, b in PAIRS])
def test_nan_pose(a, b):
    """NaN (and inf) poses: no crash, a float back, fromto written"""
    p = Pair(a, b, seed=_seed(a, b, "nan"))
    for bad in (np.nan, np.inf):
        for k in range(3):
            q = p.random_qpos()
            idx = [0, 3, p.mm.nq - 4][k]
            q[idx] = bad
            p.pd.qpos[:] = q
            phalanx.kinematics(p.pm, p.pd)
            for distmax in DISTMAX:
                for g1, g2 in ((0, 1), (1, 0)):
                    ft = np.zeros(6)
                    r = phalanx.geomDistance(p.pm, p.pd, g1, g2, distmax, ft)
                    assert isinstance(r, float)
                    assert not (r > distmax)


def test_arguments():
    p = Pair("sphere", "box")
    p.set(p.random_qpos())
    pm, pd = p.pm, p.pd
    assert "geomDistance" in phalanx.__all__
    ft = np.zeros(6)
    d1 = phalanx.geomDistance(pm, pd, 0, 1, 10.0, ft)
    d2 = phalanx.geomDistance(pm, pd, 0, 1, 10.0, fromto=None)
    assert d1 == d2
    # any float64 array of 6 elements, as MuJoCo's bindings take
    ft2 = np.zeros((2, 3))
    assert phalanx.geomDistance(pm, pd, 0, 1, 10.0, ft2) == d1
    assert np.array_equal(ft2.ravel(), ft)
    for bad in (np.zeros(5), np.zeros(7), np.zeros(6, np.float32), np.zeros(6, np.int64),
                np.zeros(12)[::2], [0.0] * 6):
        with pytest.raises(ValueError, match="fromto"):
            phalanx.geomDistance(pm, pd, 0, 1, 10.0, bad)
    ro = np.zeros(6)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        phalanx.geomDistance(pm, pd, 0, 1, 10.0, ro)
    for g1, g2 in ((-1, 0), (0, 2), (5, 1)):
        with pytest.raises((IndexError, ValueError)):
            phalanx.geomDistance(pm, pd, g1, g2, 1.0)
    with pytest.raises(TypeError):
        phalanx.geomDistance(pm, pm, 0, 1, 1.0)
