# SPDX-License-Identifier: Apache-2.0
"""Height field against sphere, capsule, ellipsoid, cylinder, box and mesh (MuJoCo 3.12's
mjc_ConvexHField: a prism per grid triangle under the geom's bounding box, each against the geom
with the native GJK/EPA) against MuJoCo: contact count, order, dist, pos and frame from identical
poses. Poses are drawn near the terrain and sorted into three zones by MuJoCo's answers with and
without margin and gap (penetrating, touching only within margin+gap, no contact). Tolerance 1e-9 absolute (relative
above 1); the worst errors are printed with -s."""

import zlib

import mujoco
import numpy as np
import pytest

import phalanx
from tests.compat._contact import mujoco_pair, phalanx_pair, scaled_err

TOL = 1e-9
MARGIN, GAP = 0.03, 0.02

# elevation grid (nrow x ncol), written inline
_rng = np.random.default_rng(5)
NROW, NCOL = 6, 7
ELEV = np.round(_rng.uniform(0, 1, size=(NROW, NCOL)), 3)
HSIZE = (1.2, 0.9, 0.4, 0.1)
# hfield geom placements: (pos, euler)
PLACES = [("0 0 0", "0 0 0"), ("0.2 -0.1 0.3", "10 -15 30")]

_box = np.array([[x, y, z] for x in (-0.2, 0.2) for y in (-0.1, 0.1) for z in (-0.05, 0.05)])
_rm = np.random.default_rng(9).normal(size=(20, 3))
_lumpy = np.round(_rm / np.linalg.norm(_rm, axis=1, keepdims=True) * [0.2, 0.12, 0.08], 4)
GEOMS = {
    "sphere": 'type="sphere" size=".12"',
    "capsule": 'type="capsule" size=".06 .15"',
    "ellipsoid": 'type="ellipsoid" size=".2 .1 .06"',
    "cylinder": 'type="cylinder" size=".1 .08"',
    "box": 'type="box" size=".2 .1 .05"',
    "meshbox": 'type="mesh" mesh="box8"',
    "meshlumpy": 'type="mesh" mesh="lumpy20"',
}


def _fmt(v):
    return " ".join(f"{x:.6g}" for x in np.ravel(v))


def make_xml(key, place, margin=MARGIN, gap=GAP):
    pos, euler = place
    return f"""<mujoco><asset>
      <hfield name="h" nrow="{NROW}" ncol="{NCOL}" size="{_fmt(HSIZE)}" elevation="{_fmt(ELEV)}"/>
      <mesh name="box8" vertex="{_fmt(_box)}"/><mesh name="lumpy20" vertex="{_fmt(_lumpy)}"/>
    </asset><worldbody>
      <geom name="terrain" type="hfield" hfield="h" pos="{pos}" euler="{euler}"/>
      <body pos="0 0 1"><freejoint/><geom name="g" {GEOMS[key]} margin="{margin}" gap="{gap}"/>
      </body></worldbody></mujoco>"""


def load(xml):
    ref = mujoco.MjModel.from_xml_string(xml)
    ours = phalanx.Model.from_xml_string(xml)
    return ours, ref, phalanx.Data(ours), mujoco.MjData(ref)


WORST = {}


def compare(ours, ref, do, dr, q, label, margin=MARGIN + GAP):
    dr.qpos[:] = q
    do.qpos[:] = q
    rd, rp, rf = mujoco_pair(mujoco, ref, dr)
    od, op, of = phalanx_pair(ours, do, margin)
    assert len(od) == len(rd), f"{label}: {len(od)} contacts, MuJoCo {len(rd)} (qpos {list(q)})"
    assert np.all(np.isfinite(od)) and np.all(np.isfinite(op)) and np.all(np.isfinite(of))
    e = {"dist": scaled_err(od, rd), "pos": scaled_err(op, rp), "frame": scaled_err(of, rf)}
    w = WORST.setdefault(label, {"dist": 0.0, "pos": 0.0, "frame": 0.0, "n": 0, "maxcon": 0})
    for k, v in e.items():
        w[k] = max(w[k], v)
    w["n"] += 1
    w["maxcon"] = max(w["maxcon"], len(rd))
    for k, v in e.items():
        assert v <= TOL, f"{label}: {k} error {v:.3g} (qpos {list(q)})"
    return rd


def random_pose(ref, dr, rng):
    """A pose over the terrain: lowest point roughly at the local surface height +- 0.1."""
    mujoco.mj_kinematics(ref, dr)
    R = dr.geom_xmat[0].reshape(3, 3)
    p0 = dr.geom_xpos[0]
    u = rng.uniform(-1.05, 1.05, 2) * HSIZE[:2]
    c = np.clip(np.round((u[0] + HSIZE[0]) / (2 * HSIZE[0]) * (NCOL - 1)), 0, NCOL - 1)
    r = np.clip(np.round((u[1] + HSIZE[1]) / (2 * HSIZE[1]) * (NROW - 1)), 0, NROW - 1)
    h = ref.hfield_data[int(r) * NCOL + int(c)] * HSIZE[2]
    local = np.array([u[0], u[1], h + rng.uniform(-0.15, 0.3)])
    q = ref.qpos0.copy()
    q[0:3] = p0 + R @ local
    quat = rng.normal(size=4)
    q[3:7] = quat / np.linalg.norm(quat)
    return q


def sweep(key, place, full, margin=MARGIN, gap=GAP):
    ours, ref, do, dr = load(make_xml(key, place, margin, gap))
    # the same without margin and gap sorts the poses: hfield contact distances are measured
    # between the inflated shapes, so they are negative whenever there is a contact
    ref0 = mujoco.MjModel.from_xml_string(make_xml(key, place, margin=0, gap=0))
    dr0 = mujoco.MjData(ref0)
    rng = np.random.default_rng(zlib.crc32(f"{key} {place}".encode()))
    n = 500 if full else 30
    zones = [0, 0 if margin + gap > 0 else n, 0]
    tries = 0
    while min(zones) < n and tries < 40 * n:
        tries += 1
        q = random_pose(ref, dr, rng)
        dr.qpos[:] = q
        dr0.qpos[:] = q
        bare = len(mujoco_pair(mujoco, ref0, dr0)[0])
        zone = 0 if bare else (1 if len(mujoco_pair(mujoco, ref, dr)[0]) else 2)
        if zones[zone] >= n:
            continue
        compare(ours, ref, do, dr, q, f"hfield-{key}" + ("" if margin + gap > 0 else "-nomargin"),
                margin=margin + gap)
        zones[zone] += 1
    assert min(zones) >= n, f"zones filled {zones} after {tries} tries"


@pytest.mark.parametrize("place", PLACES, ids=["level", "tilted"])
@pytest.mark.parametrize("key", list(GEOMS))
def test_hfield(key, place, full):
    sweep(key, place, full)


@pytest.mark.parametrize("key", ["sphere", "box", "meshlumpy"])
def test_hfield_degenerate(key):
    """Edges and corners of the field, outside it, flat on it, far above, huge coordinates; no
    crash and no NaN contact for NaN poses."""
    ours, ref, do, dr = load(make_xml(key, PLACES[0], margin=0, gap=0))
    q = ref.qpos0.copy()
    for pos, quat in [((0, 0, 0.2), (1, 0, 0, 0)), ((HSIZE[0], HSIZE[1], 0.2), (1, 0, 0, 0)),
                      ((-HSIZE[0], 0, 0.1), (0, 1, 0, 0)), ((HSIZE[0] + 0.3, 0, 0.1), (1, 0, 0, 0)),
                      ((0, 0, 5.0), (1, 0, 0, 0)), ((0.1, 0.2, -0.09), (0.5, 0.5, 0.5, 0.5)),
                      ((1e7, 0, 0), (1, 0, 0, 0))]:
        q[0:3], q[3:7] = pos, quat
        compare(ours, ref, do, dr, q, f"hfield-{key}-degenerate", margin=0.0)
    for bad in ([np.nan] * 7, [0, 0, np.nan, 1, 0, 0, 0], [0, 0, 0.1, np.nan, 0, 0, 0]):
        q[:] = bad
        do.qpos[:] = q
        phalanx.kinematics(ours, do)
        dist, pos, frame = phalanx._core._narrowphase(ours, do, 0, 1, 0.0)
        assert np.all(np.isfinite(dist)) and np.all(np.isfinite(pos))


@pytest.mark.parametrize("key", ["box", "meshbox", "meshlumpy", "capsule"])
def test_hfield_no_margin(key, full):
    """Zero margin: boxes and meshes against prisms are discrete shapes for the GJK."""
    sweep(key, PLACES[1], full, margin=0.0, gap=0.0)


@pytest.mark.parametrize("key", ["box", "meshbox", "ellipsoid", "cylinder"])
def test_hfield_fine_grid(key, full):
    """A 31 x 31 field under geoms larger than its cells, lying nearly flat: many prisms per
    geom, up to MuJoCo's 50 contacts per pair."""
    rng = np.random.default_rng(zlib.crc32(key.encode()))
    elev = np.round(rng.uniform(0, 1, size=(31, 31)), 3)
    shape = GEOMS[key].replace('".2 .1 .05"', '".3 .25 .05"').replace('".1 .08"', '".3 .05"')
    shape = shape.replace('".2 .1 .06"', '".35 .3 .06"')
    xml = f"""<mujoco><asset>
      <hfield name="h" nrow="31" ncol="31" size="1 1 .05 .1" elevation="{_fmt(elev)}"/>
      <mesh name="box8" vertex="{_fmt(_box * 1.6)}"/><mesh name="lumpy20" vertex="{_fmt(_lumpy)}"/>
    </asset><worldbody><geom type="hfield" hfield="h"/>
      <body><freejoint/><geom {shape} margin=".01" gap=".005"/></body></worldbody></mujoco>"""
    ours, ref, do, dr = load(xml)
    most = 0
    for trial in range(200 if full else 20):
        q = ref.qpos0.copy()
        q[0:3] = [rng.uniform(-0.6, 0.6), rng.uniform(-0.6, 0.6), rng.uniform(0.0, 0.06)]
        ax = rng.normal(size=3)
        ax /= np.linalg.norm(ax)
        mujoco.mju_axisAngle2Quat(q[3:7], ax, rng.uniform(0, 0.1))
        most = max(most, len(compare(ours, ref, do, dr, q, f"hfield-{key}-fine", margin=0.015)))
    assert most > 8


def test_hfield_small_grid(full):
    """A 2 x 3 field (one row of cells) with margin on the field geom too, geoms overhanging its
    edges."""
    xml = f"""<mujoco><asset><hfield name="h" nrow="2" ncol="3" size=".3 .2 .1 .05"
      elevation="0 1 .5 .2 .8 0"/></asset><worldbody>
      <geom type="hfield" hfield="h" margin=".01"/>
      <body><freejoint/><geom type="box" size=".2 .15 .05" margin=".02" gap=".01"/></body>
      </worldbody></mujoco>"""
    ours, ref, do, dr = load(xml)
    rng = np.random.default_rng(23)
    for trial in range(300 if full else 40):
        q = ref.qpos0.copy()
        q[0:3] = [rng.uniform(-0.5, 0.5), rng.uniform(-0.4, 0.4), rng.uniform(-0.05, 0.25)]
        quat = rng.normal(size=4)
        q[3:7] = quat / np.linalg.norm(quat)
        compare(ours, ref, do, dr, q, "hfield-box-small", margin=0.04)


def test_driver_scene(full):
    """phalanx.collision on terrain with one geom of every type the height field collides with
    (the movable geoms collide only with the terrain): ncon and every contact field MuJoCo sets."""
    bodies = ""
    for i, k in enumerate(GEOMS):
        bodies += (f'<body><freejoint/><geom {GEOMS[k]} contype="2" conaffinity="1" '
                   f'margin="{0.01 * (i % 3)}" gap="{0.005 * (i % 2)}" '
                   f'friction="{0.5 + 0.1 * i} .01 .001" condim="{(1, 3, 4, 6)[i % 4]}"/></body>')
    xml = f"""<mujoco><asset>
      <hfield name="h" nrow="{NROW}" ncol="{NCOL}" size="{_fmt(HSIZE)}" elevation="{_fmt(ELEV)}"/>
      <mesh name="box8" vertex="{_fmt(_box)}"/><mesh name="lumpy20" vertex="{_fmt(_lumpy)}"/>
    </asset><worldbody>
      <geom type="hfield" hfield="h" euler="5 -5 10" contype="1" conaffinity="2"/>
      {bodies}</worldbody></mujoco>"""
    ours, ref, do, dr = load(xml)
    rng = np.random.default_rng(29)
    total = 0
    for trial in range(200 if full else 20):
        q = ref.qpos0.copy()
        for b in range(ref.nbody - 1):
            a = 7 * b
            q[a:a + 3] = [rng.uniform(-1, 1), rng.uniform(-0.8, 0.8), rng.uniform(0.0, 0.45)]
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
            print(f"\n{label}: {w['n']} poses, up to {w['maxcon']} contacts, worst dist "
                  f"{w['dist']:.3g} pos {w['pos']:.3g} frame {w['frame']:.3g}")
