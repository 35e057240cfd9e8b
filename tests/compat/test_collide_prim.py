# SPDX-License-Identifier: Apache-2.0
"""The analytic colliders (csrc/kern/collide_prim.h, MuJoCo 3.12's engine_collision_primitive.c)
against MuJoCo: plane-sphere, plane-capsule, plane-cylinder, plane-box, sphere-sphere,
sphere-capsule, sphere-cylinder, capsule-capsule.

Each model holds the two geoms of one pair, each on its own body (a mocap body for the plane, a
free joint otherwise), with geom margins and gaps > 0. The same pose goes to both engines;
MuJoCo runs mj_kinematics + mj_collision, phalanx runs kinematics + _core._narrowphase on the
pair with margin + gap as MuJoCo's driver passes it, and the contacts (count, dist, pos, frame)
are compared: ||ours - ref|| / max(||ref||, 1e-12) <= 1e-9 per field and contact, and the worst
absolute differences are printed (run with -s).

Seeded poses in three zones, classified by the smallest distance a probe model (margin 5)
reports: penetrating (dist < 0), within margin + gap, beyond it. --full: >= 500 poses per zone
and pair; otherwise 30. Degenerate cases: a grid of axis-aligned relative poses (coincident
centres, parallel and perpendicular axes, exact touching), huge coordinates, sizes set to zero
after compiling, NaN poses (no crash, no NaN contact: phalanx drops pre-contacts holding a NaN,
where MuJoCo stores them).
"""

import numpy as np
import pytest

import phalanx
from tests.compat._util import rel

mujoco = pytest.importorskip("mujoco")

TOL = 1e-9

# pair name -> (type1, type2, size variants: (size1, size2, (margin1, gap1), (margin2, gap2)))
PAIRS = {
    "plane-sphere": ("plane", "sphere", [
        ("1 1 .1", ".2", (.03, .01), (.05, .02)),
        ("2 3 .1", "1.3", (.1, 0), (0, .05)),
    ]),
    "plane-capsule": ("plane", "capsule", [
        ("1 1 .1", ".1 .3", (.03, .01), (.05, .02)),
        ("2 3 .1", ".25 .05", (.1, 0), (0, .05)),
    ]),
    "plane-cylinder": ("plane", "cylinder", [
        ("1 1 .1", ".2 .3", (.03, .01), (.05, .02)),
        ("2 3 .1", ".5 .05", (.1, 0), (0, .05)),
    ]),
    "plane-box": ("plane", "box", [
        ("1 1 .1", ".1 .2 .3", (.03, .01), (.05, .02)),
        ("2 3 .1", ".4 .05 .2", (.1, 0), (0, .05)),
    ]),
    "sphere-sphere": ("sphere", "sphere", [
        (".2", ".3", (.03, .01), (.05, .02)),
        (".05", ".6", (.1, 0), (0, .05)),
    ]),
    "sphere-capsule": ("sphere", "capsule", [
        (".15", ".1 .3", (.03, .01), (.05, .02)),
        (".4", ".05 .5", (.1, 0), (0, .05)),
    ]),
    "sphere-cylinder": ("sphere", "cylinder", [
        (".15", ".2 .3", (.03, .01), (.05, .02)),
        (".05", ".5 .1", (.1, 0), (0, .05)),
    ]),
    "capsule-capsule": ("capsule", "capsule", [
        (".1 .3", ".15 .2", (.03, .01), (.05, .02)),
        (".05 .6", ".2 .1", (.1, 0), (0, .05)),
    ]),
}

ZONES = ("penetrating", "within", "beyond")
_SQ = np.sqrt(0.5)
QUATS = [np.array(q) for q in ([1, 0, 0, 0], [0, 1, 0, 0], [_SQ, _SQ, 0, 0], [_SQ, 0, _SQ, 0])]

# worst measured errors per pair, printed at the end of each test
_WORST = {}


def _xml(t1, t2, s1, s2, mg1, mg2):
    g1 = f'<geom type="{t1}" size="{s1}" margin="{mg1[0]}" gap="{mg1[1]}"/>'
    g2 = f'<geom type="{t2}" size="{s2}" margin="{mg2[0]}" gap="{mg2[1]}"/>'
    b1 = f'<body mocap="true">{g1}</body>' if t1 == "plane" else f"<body><freejoint/>{g1}</body>"
    return f"<mujoco><worldbody>{b1}<body><freejoint/>{g2}</body></worldbody></mujoco>"


class Case:
    """One pair variant: phalanx and MuJoCo models and data, and a MuJoCo probe model (margin 5,
    gap 0) whose contacts classify poses by their smallest distance."""

    def __init__(self, pair, variant):
        t1, t2, variants = PAIRS[pair]
        s1, s2, mg1, mg2 = variants[variant]
        xml = _xml(t1, t2, s1, s2, mg1, mg2)
        self.plane = t1 == "plane"
        self.ref = mujoco.MjModel.from_xml_string(xml)
        self.rd = mujoco.MjData(self.ref)
        self.ours = phalanx.Model.from_xml_string(xml)
        self.od = phalanx.Data(self.ours)
        self.probe = mujoco.MjModel.from_xml_string(_xml(t1, t2, s1, s2, (5, 0), (5, 0)))
        self.pd = mujoco.MjData(self.probe)
        # margin + gap as MuJoCo's driver computes them for a geom-geom pair (sums of the geoms')
        self.margin = (mg1[0] + mg2[0]) + (mg1[1] + mg2[1])
        self.rbound = self.ref.geom_rbound.copy()

    def set_pose(self, pose, d):
        """pose = (pos1, quat1, pos2, quat2) into d (mujoco or phalanx data)."""
        pos1, quat1, pos2, quat2 = pose
        if self.plane:
            d.mocap_pos[0] = pos1
            d.mocap_quat[0] = quat1
            d.qpos[0:3] = pos2
            d.qpos[3:7] = quat2
        else:
            d.qpos[0:3] = pos1
            d.qpos[3:7] = quat1
            d.qpos[7:10] = pos2
            d.qpos[10:14] = quat2

    def min_dist(self, pose):
        self.set_pose(pose, self.pd)
        mujoco.mj_kinematics(self.probe, self.pd)
        mujoco.mj_collision(self.probe, self.pd)
        if self.pd.ncon == 0:
            return np.inf
        return min(c.dist for c in self.pd.contact[:self.pd.ncon])

    def run(self, pose):
        """(ours, mujoco's): each (dist (n,), pos (n,3), frame (n,9))."""
        self.set_pose(pose, self.rd)
        mujoco.mj_kinematics(self.ref, self.rd)
        mujoco.mj_collision(self.ref, self.rd)
        con = [c for c in self.rd.contact[:self.rd.ncon] if tuple(c.geom) == (0, 1)]
        assert len(con) == self.rd.ncon
        ref = (np.array([c.dist for c in con]).reshape(-1),
               np.array([c.pos for c in con]).reshape(-1, 3),
               np.array([c.frame for c in con]).reshape(-1, 9))
        self.set_pose(pose, self.od)
        phalanx.kinematics(self.ours, self.od)
        ours = phalanx._core._narrowphase(self.ours, self.od, 0, 1, self.margin)
        ours = tuple(np.asarray(a, dtype=np.float64) for a in ours)
        return ours, ref


def _rand_quat(rng):
    return rng.normal(size=4) * rng.uniform(0.5, 2)


def _unit_quat(rng):
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


def _rand_pose(case, rng):
    """geom 1 anywhere in the unit box, geom 2 at a random offset up to the bounding radii plus
    margin plus 0.3 (the plane: along a random direction from a point of the plane)"""
    pos1 = rng.uniform(-1, 1, 3)
    quat1 = _unit_quat(rng) if case.plane else _rand_quat(rng)
    reach = case.rbound[1] + case.margin + 0.3
    if not case.plane:
        reach += case.rbound[0]
    direction = rng.normal(size=3)
    direction /= np.linalg.norm(direction)
    pos2 = pos1 + direction * rng.uniform(0, reach)
    return pos1, quat1, pos2, _rand_quat(rng)


def _zone(case, pose):
    d = case.min_dist(pose)
    if d < 0:
        return "penetrating"
    if d <= case.margin:
        return "within"
    return "beyond"


class Stats:
    def __init__(self):
        self.poses = 0
        self.contacts = 0
        self.bitequal = 0
        self.abs = {"dist": 0.0, "pos": 0.0, "frame": 0.0}
        self.rel = 0.0
        self.ties = 0
        self.nan = 0
        self.dropped = 0

    def add(self, ours, ref, what, margin=None, broadphase_drops=False):
        od, op, of = ours
        rd, rp, rf = ref
        # phalanx drops pre-contacts holding a NaN (degenerate sizes: 0/0), MuJoCo stores them
        keep = ~(np.isnan(rd) | np.isnan(rp).any(axis=1) | np.isnan(rf).any(axis=1))
        if not keep.all():
            self.nan += int((~keep).sum())
            rd, rp, rf = rd[keep], rp[keep], rf[keep]
        if broadphase_drops and rd.shape[0] == 0 and od.shape[0] > 0:
            # MuJoCo's sweep-and-prune works in single precision: from ~1e7 off the origin it
            # drops pairs of close geoms; nothing of MuJoCo's to compare with
            self.dropped += 1
            return
        if margin is not None and rd.shape[0] == 0 and od.shape[0] > 0 and np.all(
                np.abs(od - margin) <= 1e-12):
            # MuJoCo's broad phase (bounding boxes) dropped a pair whose contacts sit exactly at
            # margin + gap: a tie its filters break the other way, not a collider difference
            self.ties += 1
            return
        assert od.shape[0] == rd.shape[0], f"{what}: {od.shape[0]} contacts, mujoco {rd.shape[0]}"
        self.poses += 1
        for i in range(rd.shape[0]):
            self.contacts += 1
            same = True
            for name, a, b in (("dist", od[i:i + 1], rd[i:i + 1]), ("pos", op[i], rp[i]),
                               ("frame", of[i], rf[i])):
                assert np.all(np.isfinite(a)) == np.all(np.isfinite(b)), f"{what}: {name} {a} {b}"
                err = rel(a, b)
                assert err <= TOL, f"{what}: contact {i} {name} rel err {err:.3g}: {a} vs {b}"
                self.rel = max(self.rel, err)
                self.abs[name] = max(self.abs[name], float(np.max(np.abs(a - b))))
                same = same and np.array_equal(a, b)
            self.bitequal += same

    def line(self):
        ties = f" ({self.ties} margin ties MuJoCo's broad phase drops)" if self.ties else ""
        if self.nan:
            ties += f" ({self.nan} NaN contacts of MuJoCo's that phalanx drops)"
        if self.dropped:
            ties += f" ({self.dropped} poses MuJoCo's single-precision broad phase drops)"
        return (f"{self.poses} poses{ties}, {self.contacts} contacts, {self.bitequal} bit-equal; "
                f"worst "
                f"abs dist {self.abs['dist']:.3g} pos {self.abs['pos']:.3g} frame "
                f"{self.abs['frame']:.3g}, worst rel {self.rel:.3g}")


@pytest.mark.parametrize("pair", list(PAIRS))
def test_zones(pair, full):
    """seeded random poses in the three zones, both size variants"""
    per_variant = 250 if full else 15
    stats = {z: Stats() for z in ZONES}
    for variant in range(len(PAIRS[pair][2])):
        case = Case(pair, variant)
        rng = np.random.default_rng(1000 * list(PAIRS).index(pair) + variant)
        want = {z: per_variant for z in ZONES}
        tries = 0
        while any(want.values()):
            tries += 1
            assert tries < 400 * per_variant, f"cannot fill zones {want}"
            pose = _rand_pose(case, rng)
            z = _zone(case, pose)
            if not want[z]:
                continue
            want[z] -= 1
            ours, ref = case.run(pose)
            stats[z].add(ours, ref, f"{pair} v{variant} {z} pose {pose}")
            # within margin + gap MuJoCo reports at least one contact, beyond it none
            if z == "beyond":
                assert ref[0].shape[0] == 0
            else:
                assert ref[0].shape[0] > 0
    for z in ZONES:
        print(f"\n{pair} {z}: {stats[z].line()}", end="")
        _WORST[(pair, z)] = stats[z]


def _grid_poses(case, full):
    """axis-aligned relative poses: each pair of quaternions of QUATS (identity, 180 and 90
    degrees about x, 90 about y), offsets along x, z and diagonals with lengths that hit
    coincident centres and exact touching for the sizes above"""
    scalars = [0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7, 0.75, 0.9]
    dirs = [np.array(v, dtype=float) for v in ([1, 0, 0], [0, 0, 1], [0, 0, -1], [1, 1, 0],
                                               [1, 0, 1])]
    poses = []
    for q1 in QUATS:
        for q2 in QUATS:
            for dv in dirs:
                for s in scalars:
                    poses.append((np.zeros(3), q1, dv * s, q2))
    if not full:
        poses = poses[::5]
    return poses


@pytest.mark.parametrize("pair", list(PAIRS))
def test_degenerate_grid(pair, full):
    st = Stats()
    for variant in range(len(PAIRS[pair][2])):
        case = Case(pair, variant)
        for pose in _grid_poses(case, full):
            ours, ref = case.run(pose)
            st.add(ours, ref, f"{pair} v{variant} grid pose {pose}", case.margin)
    print(f"\n{pair} grid: {st.line()}", end="")


@pytest.mark.parametrize("pair", list(PAIRS))
@pytest.mark.parametrize("shift", [1e5, 1e6, 1e9])
def test_huge_coordinates(pair, shift):
    """random close poses moved far from the origin (both geoms by the same shift)"""
    case = Case(pair, 0)
    rng = np.random.default_rng(7)
    st = Stats()
    off = np.array([shift, -shift, 0.5 * shift])
    for _ in range(40):
        p1, q1, p2, q2 = _rand_pose(case, rng)
        ours, ref = case.run((p1 + off, q1, p2 + off, q2))
        st.add(ours, ref, f"{pair} shift {shift}", broadphase_drops=shift > 1e6)
    print(f"\n{pair} shift {shift:g}: {st.line()}", end="")


@pytest.mark.parametrize("pair", list(PAIRS))
def test_zero_size(pair):
    """sizes set to zero after compiling (the compiler rejects them): same contacts as MuJoCo"""
    st = Stats()
    t1, t2, variants = PAIRS[pair]
    nsize = {"plane": 0, "sphere": 1, "capsule": 2, "cylinder": 2, "box": 3}
    rng = np.random.default_rng(11)
    for g in (0, 1):
        tg = t1 if g == 0 else t2
        for k in range(nsize[tg]):
            case = Case(pair, 0)
            case.ref.geom_size[g, k] = 0
            case.ours.geom_size[g, k] = 0
            for pose in _grid_poses(case, False)[::3] + [_rand_pose(case, rng) for _ in range(20)]:
                ours, ref = case.run(pose)
                st.add(ours, ref, f"{pair} size[{g},{k}] = 0 pose {pose}", case.margin)
    print(f"\n{pair} zero sizes: {st.line()}", end="")


@pytest.mark.parametrize("pair", list(PAIRS))
def test_nan_pose(pair):
    """NaN in a position, a quaternion, or everywhere: no crash, no NaN contact (MuJoCo stores
    NaN contacts, or its broad phase drops the pair)"""
    case = Case(pair, 0)
    rng = np.random.default_rng(3)
    for which in ("pos1", "quat1", "pos2", "quat2", "all"):
        for _ in range(5):
            pose = list(_rand_pose(case, rng))
            idx = {"pos1": [0], "quat1": [1], "pos2": [2], "quat2": [3], "all": [0, 1, 2, 3]}
            for i in idx[which]:
                pose[i] = pose[i].copy()
                pose[i][rng.integers(len(pose[i]))] = np.nan
            ours, ref = case.run(tuple(pose))
            for a in ours:
                assert np.all(np.isfinite(a)), f"{pair} NaN {which}: {ours}"


def _contacts(d):
    """data's contacts as records of the C layout: phalanx.CONTACT_DTYPE (580 bytes) lacks the
    4 bytes of tail padding of the C record (584, as mjContact), so data.contact misreads every
    record past the first; the aligned dtype has the C size"""
    dt = np.dtype([(f, phalanx.CONTACT_DTYPE.fields[f][0]) for f in phalanx.CONTACT_DTYPE.names],
                  align=True)
    return d._contact_bytes[: d.ncon * dt.itemsize].view(dt)


@pytest.mark.parametrize("pair", list(PAIRS))
def test_collision_driver(pair, full):
    """phalanx.collision end to end (filters, these colliders, parameters, frame completion):
    data.ncon and every contact field against MuJoCo's d.contact, random poses of all zones"""
    fields = ["dist", "pos", "frame", "includemargin", "friction", "solref", "solimp", "dim",
              "exclude", "geom"]
    n = 0
    for variant in range(len(PAIRS[pair][2])):
        case = Case(pair, variant)
        rng = np.random.default_rng(5000 + 10 * list(PAIRS).index(pair) + variant)
        for _ in range(200 if full else 20):
            pose = _rand_pose(case, rng)
            case.set_pose(pose, case.rd)
            mujoco.mj_kinematics(case.ref, case.rd)
            mujoco.mj_collision(case.ref, case.rd)
            case.set_pose(pose, case.od)
            phalanx.kinematics(case.ours, case.od)
            phalanx.collision(case.ours, case.od)
            assert case.od.ncon == case.rd.ncon, f"{pair} pose {pose}"
            con = _contacts(case.od)
            for i in range(case.rd.ncon):
                ours, ref = con[i], case.rd.contact[i]
                for f in fields:
                    a = np.asarray(ours[f], dtype=float)
                    b = np.asarray(getattr(ref, f), dtype=float)
                    assert rel(a, b) <= TOL, f"{pair} contact {i} {f}: {a} vs {b}"
                n += 1
    print(f"\n{pair} driver: {n} contacts", end="")
