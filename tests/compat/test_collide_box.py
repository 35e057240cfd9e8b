# SPDX-License-Identifier: Apache-2.0
"""Box colliders (csrc/kern/collide_box.h: sphere-box, capsule-box, box-box) against MuJoCo 3.12.

Two geoms on free bodies, identical qpos in both engines: MuJoCo's mj_kinematics + mj_collision
give the reference contacts of the pair, phalanx.kinematics + _core._narrowphase ours (after
MuJoCo's frame completion). Compared: count, order, dist, pos, frame, to 1e-9 absolute (scaled
by the coordinate magnitude for the huge-coordinate cases); the worst error of each test is
recorded (record_property) and printed in the module's summary (pytest -s).

Poses come in three zones, classified by MuJoCo's result: penetrating (a contact with dist < 0),
within margin + gap (contacts, none penetrating), beyond (no contact, bounding spheres within
reach). Families: random relative poses for every pair; for capsule-box a capsule lying on a
face; for box-box face-on-face (tilted, any yaw), crossed edges (edge-edge axis) and resting
stacks (equal plates, aligned to 1e-3 rad or exactly, edges flush or offset). 30 poses per zone
and family, 500 under --full. Degenerate cases: coincident centres, parallel axes, exactly
touching faces, huge coordinates, tiny sizes, NaN and infinite poses (no crash, no NaN contact).
"""

import math

import mujoco
import numpy as np
import pytest

import phalanx

TOL = 1e-9
ZONES = ("penetrating", "margin", "beyond")
MARGIN = 0.05  # per geom: the pair's margin is the sum, 0.1
GAP = 0.01  # per geom: 0.02 for the pair

# geoms (type, size) of each pair, geom 1 first (MuJoCo's order: type1 <= type2)
PAIRS = {
    "sphere_box": (("sphere", "0.2"), ("box", "0.3 0.2 0.1")),
    "capsule_box": (("capsule", "0.1 0.3"), ("box", "0.3 0.2 0.1")),
    "box_box": (("box", "0.25 0.15 0.1"), ("box", "0.3 0.2 0.1")),
    "box_box_plates": (("box", "0.2 0.2 0.05"), ("box", "0.2 0.2 0.05")),
}
# families of poses per pair
FAMILIES = {
    "sphere_box": ["random", "inside"],
    "capsule_box": ["random", "lying"],
    "box_box": ["random", "face", "edge"],
    "box_box_plates": ["random", "stack"],
}
# inside: the sphere centre inside the box, penetrating by construction
ONLY_PENETRATING = {"inside"}

WORST = {}  # pair -> worst error measured over every test of the module


def _xml(g1, g2, margin=MARGIN, gap=GAP, explicit=False):
    """Two geoms on free bodies; explicit: MuJoCo's version, where the geoms collide only as
    an explicit <pair> (margin and gap the sum of the geoms'), which bypasses the broadphase
    and the midphase: those drop some pairs whose narrow-phase contacts lie within the margin
    (box-box edge contacts measure distance along the separating axis, which can be less than
    the true distance), and phalanx's _narrowphase hook is the narrow phase alone."""
    (t1, s1), (t2, s2) = g1, g2
    off = ' contype="0" conaffinity="0"' if explicit else ""
    pair = (f'<contact><pair geom1="g1" geom2="g2" margin="{margin + margin}" '
            f'gap="{gap + gap}"/></contact>') if explicit else ""
    # explicit inertia: tiny geoms would give bodies too light to compile
    inertial = '<inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>'
    bodies = "".join(
        f'<body><freejoint/>{inertial}<geom name="{name}" type="{t}" size="{s}" '
        f'margin="{margin}" gap="{gap}"{off}/></body>\n'
        for name, t, s in (("g1", t1, s1), ("g2", t2, s2)))
    return f"""<mujoco>
  <option><flag gravity="disable"/></option>
  <worldbody>
{bodies}  </worldbody>
  {pair}
</mujoco>"""


class Pair:
    """The two-geom model in both engines."""

    def __init__(self, g1, g2, margin=MARGIN, gap=GAP):
        self.mm = mujoco.MjModel.from_xml_string(_xml(g1, g2, margin, gap, explicit=True))
        self.md = mujoco.MjData(self.mm)
        self.pm = phalanx.Model.from_xml_string(_xml(g1, g2, margin, gap))
        self.pd = phalanx.Data(self.pm)
        mm = self.mm
        # margin + gap as MuJoCo's driver passes it to the collider (pair values)
        self.margin = float(mm.pair_margin[0]) + float(mm.pair_gap[0])
        self.reach = float(mm.geom_rbound[0] + mm.geom_rbound[1]) + self.margin

    def ref(self, q):
        md = self.md
        md.qpos[:] = q
        mujoco.mj_kinematics(self.mm, md)
        mujoco.mj_collision(self.mm, md)
        n = md.ncon
        con = md.contact
        g = (int(con.geom[0][0]), int(con.geom[0][1])) if n else (0, 1)
        for i in range(n):
            assert (int(con.geom[i][0]), int(con.geom[i][1])) == g
        return g, (np.array(con.dist[:n]), np.array(con.pos[:n]).reshape(n, 3),
                   np.array(con.frame[:n]).reshape(n, 9))

    def ours(self, q, g):
        self.pd.qpos[:] = q
        phalanx.kinematics(self.pm, self.pd)
        dist, pos, frame = phalanx._core._narrowphase(self.pm, self.pd, g[0], g[1], self.margin)
        return np.asarray(dist), np.asarray(pos), np.asarray(frame)

    def compare(self, q, scale=1.0):
        """Zone of pose q and the largest absolute difference (over the count's agreement)."""
        g, ref = self.ref(q)
        got = self.ours(q, g)
        n = ref[0].shape[0]
        assert got[0].shape == (n,), f"count {got[0].shape[0]} != mujoco's {n}"
        assert got[1].shape == (n, 3) and got[2].shape == (n, 9)
        err = 0.0
        for a, b in zip(got, ref):
            if n:
                err = max(err, float(np.max(np.abs(a - b))))
        assert err <= TOL * scale, f"contacts differ by {err:.3g} (n = {n})"
        zone = "beyond" if n == 0 else ("penetrating" if ref[0].min() < 0 else "margin")
        return zone, err


# ---------------------------------------------------------------- poses


def _quat(axis, angle):
    axis = np.asarray(axis, dtype=float)
    axis = axis / np.linalg.norm(axis)
    return np.r_[math.cos(angle / 2), math.sin(angle / 2) * axis]


def _qmul(a, b):
    res = np.zeros(4)
    mujoco.mju_mulQuat(res, np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    return res


def _qrot(quat, vec):
    res = np.zeros(3)
    mujoco.mju_rotVecQuat(res, np.asarray(vec, dtype=float), np.asarray(quat, dtype=float))
    return res


def _unit(rng, n=3):
    v = rng.normal(size=n)
    return v / np.linalg.norm(v)


def _qpos(p1, q1, p2, q2):
    return np.r_[p1, q1, p2, q2]


def _target(rng, zone, margin, pen=0.03, far=0.15):
    """A surface offset aiming at the zone (the zone itself is MuJoCo's verdict)."""
    if zone == "penetrating":
        return -rng.uniform(0, pen)
    if zone == "margin":
        return rng.uniform(0, margin)
    return margin + rng.uniform(0, far)


def _sizes(pair):
    return [np.array([float(x) for x in s.split()]) for _, s in PAIRS[pair]]


def pose(pair, family, zone, rng, margin, reach):
    s1, s2 = _sizes(pair)
    p1 = rng.normal(size=3) * 0.2
    if family == "random":
        # unnormalized quaternions (both engines normalize), centre distance within reach
        q1 = rng.normal(size=4) * rng.uniform(0.5, 2)
        q2 = rng.normal(size=4) * rng.uniform(0.5, 2)
        return _qpos(p1, q1, p1 + _unit(rng) * rng.uniform(0, reach), q2)
    if family == "inside":
        # sphere centre inside the box
        q2 = _unit(rng, 4)
        local = rng.uniform(-1, 1, 3) * s2
        return _qpos(_qrot(q2, local) + p1, _unit(rng, 4), p1, q2)
    if family == "lying":
        # capsule nearly parallel to a face of the box, above it, anywhere along it
        q2 = _unit(rng, 4)
        a = rng.integers(3)
        side = rng.choice([-1.0, 1.0])
        normal = np.zeros(3)
        normal[a] = side
        tilt = rng.uniform(-0.3, 0.3) if rng.uniform() < 0.7 else rng.uniform(-1e-3, 1e-3)
        # capsule axis: in the face plane at a random yaw, then tilted out of it
        u, v = (a + 1) % 3, (a + 2) % 3
        yaw = rng.uniform(-math.pi, math.pi)
        ax = np.zeros(3)
        ax[u], ax[v] = math.cos(yaw), math.sin(yaw)
        ax = math.cos(tilt) * ax + math.sin(tilt) * normal
        # quaternion turning the capsule's z onto ax (box frame), then to the world
        c = np.cross([0, 0, 1.0], ax)
        qc = _quat(c, math.atan2(np.linalg.norm(c), ax[2])) if np.linalg.norm(c) > 1e-12 else \
            np.array([1.0, 0, 0, 0])
        lift = s2[a] + s1[0] + abs(math.sin(tilt)) * s1[1] + _target(rng, zone, margin)
        local = rng.uniform(-1.2, 1.2, 3) * s2
        local[a] = side * lift
        return _qpos(_qrot(q2, local) + p1, _qmul(q2, qc), p1, q2)
    if family == "face":
        # box 2 on face a of box 1 (box 2's own axis a along it), any yaw, tilted up to 0.05
        q1 = _unit(rng, 4)
        a = rng.integers(3)
        side = rng.choice([-1.0, 1.0])
        normal = np.zeros(3)
        normal[a] = side
        yaw = _quat(normal, rng.uniform(-math.pi, math.pi))
        tilt = _quat(_unit(rng), rng.uniform(-0.05, 0.05))
        local = rng.uniform(-0.8, 0.8, 3) * s1
        local[a] = side * (s1[a] + s2[a] + _target(rng, zone, margin))
        return _qpos(p1, q1, _qrot(q1, local) + p1, _qmul(q1, _qmul(yaw, tilt)))
    if family == "edge":
        # frame F; box 1 turned 45 deg (+-0.2) about F's x, box 2 about F's y and then about F's
        # z: an edge of each faces the other across F's z, crossing at an angle
        qf = _unit(rng, 4)
        a1 = math.pi / 4 + rng.uniform(-0.2, 0.2)
        a2 = math.pi / 4 + rng.uniform(-0.2, 0.2)
        q1 = _qmul(qf, _quat([1, 0, 0], a1))
        spin = _quat([0, 0, 1], rng.uniform(-1.2, 1.2))
        q2 = _qmul(qf, _qmul(spin, _quat([0, 1, 0], a2)))
        h1 = s1[1] * math.sin(a1) + s1[2] * math.cos(a1)
        h2 = s2[0] * math.sin(a2) + s2[2] * math.cos(a2)
        local = np.r_[rng.uniform(-0.05, 0.05, 2), h1 + h2 + _target(rng, zone, margin, 0.02)]
        return _qpos(p1, q1, _qrot(qf, local) + p1, q2)
    if family == "stack":
        # equal plates resting on each other: aligned exactly or to 1e-3 rad, flush or offset
        q1 = np.array([1.0, 0, 0, 0]) if rng.uniform() < 0.3 else _unit(rng, 4)
        mode = rng.integers(3)
        if mode == 0:
            q21 = np.array([1.0, 0, 0, 0])
        elif mode == 1:
            q21 = _quat([0, 0, 1], rng.uniform(-1e-3, 1e-3))
        else:
            q21 = _qmul(_quat([0, 0, 1], rng.uniform(-1e-3, 1e-3)),
                        _quat(_unit(rng), rng.uniform(-1e-3, 1e-3)))
        shift = np.zeros(2) if rng.uniform() < 0.3 else rng.uniform(-0.5, 0.5, 2) * s1[:2]
        local = np.r_[shift, s1[2] + s2[2] + _target(rng, zone, margin, 1e-3, 0.05)]
        return _qpos(p1, q1, _qrot(q1, local) + p1, _qmul(q1, q21))
    raise ValueError(family)


# ---------------------------------------------------------------- tests


@pytest.fixture(scope="module", autouse=True)
def summary():
    yield
    for pair in sorted(WORST):
        print(f"\ncollide_box {pair}: worst |ours - mujoco| = {WORST[pair]:.3g}")


def _record(pair, err):
    WORST[pair] = max(WORST.get(pair, 0.0), err)


def _cases():
    for pair, fams in FAMILIES.items():
        for fam in fams:
            for zone in ZONES:
                if fam in ONLY_PENETRATING and zone != "penetrating":
                    continue
                yield pair, fam, zone


@pytest.mark.parametrize("pair,family,zone", list(_cases()))
def test_poses(pair, family, zone, full, record_property):
    """Seeded poses until the zone holds 30 (500 under --full) of the family."""
    want = 500 if full else 30
    p = Pair(*PAIRS[pair])
    seed = [pair, family, zone].__repr__().encode()
    rng = np.random.default_rng(list(seed))
    got, tries, worst = 0, 0, 0.0
    while got < want:
        tries += 1
        assert tries <= 100 * want, f"only {got} poses of {want} reached zone {zone}"
        z, err = p.compare(pose(pair, family, zone, rng, p.margin, p.reach))
        worst = max(worst, err)
        got += z == zone
    _record(pair, worst)
    record_property("worst_err", worst)
    record_property("poses", tries)


def _identity():
    return np.array([1.0, 0, 0, 0])


def test_coincident_centres(record_property):
    rng = np.random.default_rng(7)
    worst = 0.0
    for pair in PAIRS:
        p = Pair(*PAIRS[pair])
        for k in range(40):
            c = rng.normal(size=3) if k % 2 else np.zeros(3)
            q1 = _identity() if k < 4 else _unit(rng, 4)
            q2 = _identity() if k < 2 or k == 4 else _unit(rng, 4)
            z, err = p.compare(_qpos(c, q1, c, q2))
            assert z != "beyond", (pair, k)
            worst = max(worst, err)
            _record(pair, err)
    record_property("worst_err", worst)


def test_parallel_axes(record_property):
    """Capsule along each box axis (the edge tests' determinant vanishes); boxes aligned in
    every way (parallel edges, the edge axes skipped); faces exactly touching."""
    worst = 0.0
    rng = np.random.default_rng(11)
    p = Pair(*PAIRS["capsule_box"])
    turns = [_identity(), _quat([0, 1, 0], math.pi / 2), _quat([1, 0, 0], math.pi / 2)]
    for qc in turns:
        for k in range(60):
            qb = _identity() if k < 20 else _unit(rng, 4)
            local = rng.uniform(-0.5, 0.5, 3) if k % 3 else np.array([0.0, 0.0, 0.35])
            pos = _qrot(qb, local)
            z, err = p.compare(_qpos(pos, _qmul(qb, qc), np.zeros(3), qb))
            worst = max(worst, err)
            _record("capsule_box", err)
    for pair in ("box_box", "box_box_plates"):
        p = Pair(*PAIRS[pair])
        s1, s2 = _sizes(pair)
        for a in range(3):
            for side in (-1.0, 1.0):
                for h in (0.0, -1e-12, 1e-12, -0.01, p.margin, p.margin + 1e-9):
                    for shift in (0.0, 0.1, s1[(a + 1) % 3] + s2[(a + 1) % 3]):
                        q = _identity() if shift != 0.1 else _unit(rng, 4)
                        local = np.zeros(3)
                        local[a] = side * (s1[a] + s2[a] + h)
                        local[(a + 1) % 3] = shift
                        z, err = p.compare(_qpos(np.zeros(3), q, _qrot(q, local), q))
                        worst = max(worst, err)
                        _record(pair, err)
    record_property("worst_err", worst)


@pytest.mark.parametrize("offset", [1e3, 1e6, 1e8])
def test_huge_coordinates(offset, record_property):
    worst = 0.0
    for pair in PAIRS:
        p = Pair(*PAIRS[pair])
        rng = np.random.default_rng(int(offset) % 1000 + 3)
        for fam in FAMILIES[pair]:
            for zone in ZONES:
                if fam in ONLY_PENETRATING and zone != "penetrating":
                    continue
                for _ in range(5):
                    q = pose(pair, fam, zone, rng, p.margin, p.reach)
                    shift = offset * _unit(rng)
                    q[0:3] += shift
                    q[7:10] += shift
                    _, err = p.compare(q, scale=offset)
                    worst = max(worst, err / offset)
    record_property("worst_err_relative", worst)


def test_tiny_sizes(record_property):
    """Sizes near the smallest MuJoCo compiles: thin plates, a capsule of negligible length."""
    worst = 0.0
    rng = np.random.default_rng(5)
    tiny = [
        (("sphere", "1e-9"), ("box", "0.3 0.2 1e-9")),
        (("capsule", "0.1 1e-9"), ("box", "0.3 0.2 0.1")),
        (("capsule", "1e-9 0.3"), ("box", "1e-9 0.2 0.1")),
        (("box", "0.25 0.15 1e-9"), ("box", "0.3 0.2 1e-9")),
        (("box", "1e-9 1e-9 1e-9"), ("box", "0.3 0.2 0.1")),
    ]
    for g1, g2 in tiny:
        p = Pair(g1, g2)
        for _ in range(200):
            q = np.r_[rng.normal(size=3) * 0.1, _unit(rng, 4), np.zeros(3), _unit(rng, 4)]
            q[7:10] = q[0:3] + _unit(rng) * rng.uniform(0, p.reach)
            _, err = p.compare(q)
            worst = max(worst, err)
    record_property("worst_err", worst)


@pytest.mark.parametrize("pair", list(PAIRS))
def test_nan_poses(pair):
    """NaN or infinite positions and quaternions: no crash, no NaN in our contacts; where
    MuJoCo's contacts are finite, the same contacts."""
    p = Pair(*PAIRS[pair])
    base = _qpos([0.0, 0, 0], _identity(), [0.1, 0.05, 0.2], _identity())
    for bad in (np.nan, np.inf, -np.inf):
        for idx in [[0], [2], [0, 1, 2], [3], [3, 4, 5, 6], [7], [9], [7, 8, 9], [10], [12],
                    [10, 11, 12, 13]]:
            q = base.copy()
            q[idx] = bad
            g, ref = p.ref(q)
            got = p.ours(q, g)
            for a in got:
                assert np.all(np.isfinite(a)), f"non-finite contact for {bad} at {idx}"
            if all(np.all(np.isfinite(a)) for a in ref) and got[0].shape == ref[0].shape:
                for a, b in zip(got, ref):
                    assert np.array_equal(a, b)
