# SPDX-License-Identifier: Apache-2.0
"""Plane against ellipsoid and mesh (MuJoCo 3.12's mjc_PlaneConvex) against MuJoCo: contact
count, order, dist, pos and frame from identical poses, in three zones (penetrating, within
margin+gap, beyond it), on tilted planes, with meshes below and above the hill-climb threshold
(10 vertices) and meshes with interior vertices (hull ids differ from vertex ids). Tolerance 1e-9
absolute (relative above 1); the worst errors are printed with -s."""

import zlib

import mujoco
import numpy as np
import pytest

import phalanx
from tests.compat._contact import mujoco_pair, phalanx_pair, scaled_err

TOL = 1e-9
MARGIN, GAP = 0.03, 0.02

# plane orientations (zaxis of the plane geom) and origins
PLANES = [("0 0 1", "0 0 0"), ("0.3 -0.2 1", "0.1 -0.2 0.05"), ("-1 0.5 0.2", "0 0 0")]


def _fmt(v):
    return " ".join(f"{x:.6g}" for x in np.ravel(v))


def _irregular(n, seed, interior=0):
    """n points on a lumpy ellipsoid (all on the hull), plus interior points listed first."""
    rng = np.random.default_rng(seed)
    d = rng.normal(size=(n, 3))
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    pts = d * np.array([0.25, 0.15, 0.1])
    pts = pts * rng.uniform(0.9, 1.1, size=(n, 1))
    inner = rng.uniform(-0.02, 0.02, size=(interior, 3))
    return np.round(np.vstack([inner, pts]), 4)


_box = np.array([[x, y, z] for x in (-0.2, 0.2) for y in (-0.1, 0.1) for z in (-0.05, 0.05)])
MESHES = {
    "box8": _box,                                    # 8 vertices: exhaustive support search
    "tetra6": np.array([[0, 0, 0], [.1, 0, 0], [0, .1, 0], [0, 0, .1], [.01, .01, .01],
                        [-.1, -.1, -.1]]),           # interior vertices 0 and 4, < 10 vertices
    "lumpy24": _irregular(24, 1),                    # hill climb on the hull graph
    "lumpy40i": _irregular(40, 2, interior=5),       # hill climb, interior vertices first
}
ELLIPSOIDS = {"ell": (0.2, 0.1, 0.05), "sph": (0.1, 0.1, 0.1), "flat": (0.3, 0.3, 0.01)}


def make_xml(kind, key, plane, margin=MARGIN, gap=GAP):
    zaxis, ppos = plane
    asset = ""
    if kind == "mesh":
        asset = f'<asset><mesh name="m" vertex="{_fmt(MESHES[key])}"/></asset>'
        geom = '<geom name="g" type="mesh" mesh="m"'
    else:
        geom = f'<geom name="g" type="ellipsoid" size="{_fmt(ELLIPSOIDS[key])}"'
    return f"""<mujoco>{asset}<worldbody>
      <geom name="plane" type="plane" size="2 2 .1" zaxis="{zaxis}" pos="{ppos}"/>
      <body pos="0 0 1"><freejoint/>{geom} margin="{margin}" gap="{gap}"/></body>
    </worldbody></mujoco>"""


def load(xml):
    ref = mujoco.MjModel.from_xml_string(xml)
    ours = phalanx.Model.from_xml_string(xml)
    return ours, ref, phalanx.Data(ours), mujoco.MjData(ref)


def lowest(ref, dr, qpos):
    """Signed height of geom 1's lowest point above the plane for this qpos (numpy)."""
    dr.qpos[:] = qpos
    mujoco.mj_kinematics(ref, dr)
    n = dr.geom_xmat[0].reshape(3, 3)[:, 2]
    p0 = dr.geom_xpos[0]
    c = dr.geom_xpos[1]
    R = dr.geom_xmat[1].reshape(3, 3)
    if ref.geom_type[1] == mujoco.mjtGeom.mjGEOM_MESH:
        mid = ref.geom_dataid[1]
        a, k = ref.mesh_vertadr[mid], ref.mesh_vertnum[mid]
        v = ref.mesh_vert[a:a + k].astype(np.float64)
        return float(np.min((c + v @ R.T - p0) @ n))
    s = ref.geom_size[1]
    return float(n @ (c - p0) - np.sqrt(np.sum(((R.T @ n) * s) ** 2)))


def pose(ref, dr, rng, zone, flat):
    """qpos with the lowest point at a height drawn from the zone (0 penetrating, 1 within the
    margin+gap, 2 beyond)."""
    q = ref.qpos0.copy()
    q[0:3] = rng.uniform(-0.5, 0.5, 3)
    if flat:
        # plane frame quaternion, turned about the plane normal, slightly tilted
        qp = np.zeros(4)
        mujoco.mju_mat2Quat(qp, dr.geom_xmat[0])
        turn = np.zeros(4)
        mujoco.mju_axisAngle2Quat(turn, np.array([0, 0, 1.0]), rng.uniform(-np.pi, np.pi))
        tilt = np.zeros(4)
        ax = rng.normal(size=3)
        ax /= np.linalg.norm(ax)
        mujoco.mju_axisAngle2Quat(tilt, ax, rng.choice([0.0, 1e-9, 1e-4, 0.02]))
        t1 = np.zeros(4)
        mujoco.mju_mulQuat(t1, qp, turn)
        mujoco.mju_mulQuat(q[3:7], t1, tilt)
    else:
        q[3:7] = rng.normal(size=4)
        q[3:7] /= np.linalg.norm(q[3:7])
    h = lowest(ref, dr, q)
    target = {0: rng.uniform(-0.05, 0.0), 1: rng.uniform(0.0, MARGIN + GAP),
              2: rng.uniform(MARGIN + GAP, 0.2)}[zone]
    n = dr.geom_xmat[0].reshape(3, 3)[:, 2]
    q[0:3] += n * (target - h)
    return q


WORST = {}


def compare(ours, ref, do, dr, q, label, margin=MARGIN + GAP):
    dr.qpos[:] = q
    do.qpos[:] = q
    rd, rp, rf = mujoco_pair(mujoco, ref, dr)
    od, op, of = phalanx_pair(ours, do, margin)
    assert len(od) == len(rd), f"{label}: {len(od)} contacts, MuJoCo {len(rd)}"
    assert np.all(np.isfinite(od)) and np.all(np.isfinite(op)) and np.all(np.isfinite(of))
    e = {"dist": scaled_err(od, rd), "pos": scaled_err(op, rp), "frame": scaled_err(of, rf)}
    w = WORST.setdefault(label, {"dist": 0.0, "pos": 0.0, "frame": 0.0, "n": 0, "ncon": {}})
    for k, v in e.items():
        w[k] = max(w[k], v)
    w["n"] += 1
    w["ncon"][len(rd)] = w["ncon"].get(len(rd), 0) + 1
    for k, v in e.items():
        assert v <= TOL, f"{label}: {k} error {v:.3g} (qpos {list(q)})"
    return len(rd)


def sweep(kind, key, plane, full, seed):
    ours, ref, do, dr = load(make_xml(kind, key, plane))
    mujoco.mj_kinematics(ref, dr)
    rng = np.random.default_rng(seed)
    n = 500 if full else 30
    counts = {0: 0, 1: 0, 2: 0}
    for zone in (0, 1, 2):
        for i in range(n):
            q = pose(ref, dr, rng, zone, flat=(kind == "mesh" and i % 2 == 1))
            counts[zone] += compare(ours, ref, do, dr, q, f"plane-{kind}") > 0
    # penetrating and margin zones always touch, the far zone never
    assert counts[0] == n and counts[1] == n and counts[2] == 0


@pytest.mark.parametrize("plane", PLANES, ids=["flat", "tilt", "steep"])
@pytest.mark.parametrize("key", list(ELLIPSOIDS))
def test_plane_ellipsoid(key, plane, full):
    sweep("ellipsoid", key, plane, full, seed=zlib.crc32(f"{key} {plane}".encode()))


@pytest.mark.parametrize("plane", PLANES, ids=["flat", "tilt", "steep"])
@pytest.mark.parametrize("key", list(MESHES))
def test_plane_mesh(key, plane, full):
    sweep("mesh", key, plane, full, seed=zlib.crc32(f"{key} {plane}".encode()))


@pytest.mark.parametrize("kind,key", [("ellipsoid", "ell"), ("mesh", "box8"),
                                      ("mesh", "lumpy24"), ("mesh", "tetra6")])
def test_degenerate(kind, key):
    """Centre on the plane, axis-aligned and exactly parallel faces, huge coordinates, zero
    margin, NaN poses (no crash; no NaN contact where MuJoCo gives none)."""
    ours, ref, do, dr = load(make_xml(kind, key, PLANES[0], margin=0, gap=0))
    q = ref.qpos0.copy()
    for pos, quat in [((0, 0, 0), (1, 0, 0, 0)), ((0, 0, 0.05), (1, 0, 0, 0)),
                      ((0, 0, 0.1), (0, 1, 0, 0)), ((0.3, 0.2, 0.0), (0.5, 0.5, 0.5, 0.5)),
                      ((1e7, -1e7, 0.01), (1, 0, 0, 0)), ((1e7, 1e7, -0.01), (0, 0, 0, 1)),
                      ((0, 0, 1e-12), (np.cos(0.3), 0, 0, np.sin(0.3)))]:
        q[0:3], q[3:7] = pos, quat
        compare(ours, ref, do, dr, q, f"plane-{kind}-degenerate", margin=0.0)
    # non-finite poses: MuJoCo returns NaN contacts here; we return none (and do not crash)
    for bad in ([np.nan] * 7, [0, 0, np.nan, 1, 0, 0, 0], [0, 0, 0, np.nan, 0, 0, 0],
                [0, 0, -np.inf, 1, 0, 0, 0], [np.inf, 0, 0, 1, 0, 0, 0]):
        q[:] = bad
        do.qpos[:] = q
        phalanx.kinematics(ours, do)
        dist, pos, frame = phalanx._core._narrowphase(ours, do, 0, 1, 0.0)
        assert len(dist) == 0


def test_driver_scene(full):
    """phalanx.collision on a scene of ellipsoids and meshes over a tilted plane (the movable
    geoms collide only with the plane): ncon and every contact field MuJoCo sets."""
    meshes = "".join(f'<mesh name="{k}" vertex="{_fmt(v)}"/>' for k, v in MESHES.items())
    bodies = ""
    for i, k in enumerate(list(MESHES) + list(ELLIPSOIDS)):
        shape = (f'type="mesh" mesh="{k}"' if k in MESHES else
                 f'type="ellipsoid" size="{_fmt(ELLIPSOIDS[k])}"')
        bodies += (f'<body pos="{i * 0.3 - 1} 0 .5"><freejoint/><geom {shape} contype="2" '
                   f'conaffinity="1" margin="{0.01 * i}" gap="{0.005 * (i % 3)}" '
                   f'friction="{0.5 + 0.1 * i} .01 .001" condim="{(1, 3, 4, 6)[i % 4]}"/></body>')
    xml = f"""<mujoco><asset>{meshes}</asset><worldbody>
      <geom type="plane" size="3 3 .1" zaxis="0.1 -0.2 1" contype="1" conaffinity="2"/>
      {bodies}</worldbody></mujoco>"""
    ours, ref, do, dr = load(xml)
    rng = np.random.default_rng(17)
    nb = ref.nbody - 1
    total = 0
    for trial in range(200 if full else 20):
        q = ref.qpos0.copy()
        for b in range(nb):
            a = 7 * b
            q[a:a + 3] = [b * 0.3 - 1, rng.uniform(-1, 1), rng.uniform(-0.15, 0.25)]
            quat = rng.normal(size=4)
            q[a + 3:a + 7] = quat / np.linalg.norm(quat)
        dr.qpos[:] = q
        do.qpos[:] = q
        mujoco.mj_kinematics(ref, dr)
        mujoco.mj_collision(ref, dr)
        phalanx.kinematics(ours, do)
        phalanx.collision(ours, do)
        assert do.ncon == dr.ncon
        total += dr.ncon
        oc = do.contact[:do.ncon]
        for i in range(dr.ncon):
            rc = dr.contact[i]
            assert (oc["geom1"][i], oc["geom2"][i]) == (rc.geom1, rc.geom2)
            assert oc["dim"][i] == rc.dim
            for f in ("dist", "pos", "frame", "includemargin", "friction", "solref", "solimp"):
                assert scaled_err(oc[f][i], getattr(rc, f)) <= TOL, f
    assert total > 0


def test_report_worst(capsys):
    """Prints the worst errors measured by the tests above (run with -s)."""
    with capsys.disabled():
        for label, w in sorted(WORST.items()):
            print(f"\n{label}: {w['n']} poses, contacts per pose {w['ncon']}, worst dist "
                  f"{w['dist']:.3g} pos {w['pos']:.3g} frame {w['frame']:.3g}")
