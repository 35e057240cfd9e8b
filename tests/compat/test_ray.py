# SPDX-License-Identifier: Apache-2.0
"""Ray casting (MuJoCo 3.12's engine_ray.c) against mujoco: phalanx.rayGeom against
mujoco.mju_rayGeom for every primitive, phalanx.rayMesh / rayHfield against mj_rayMesh /
mj_rayHfield, and phalanx.ray against mj_ray on a scene of every geom type (groups, static,
body exclusion, invisible geoms) and on corpus scenes at states of MuJoCo's own trajectories.
Distances and normals must be bit-equal or within TOL (absolute; relative above 1), geom ids
identical. The worst errors are printed with -s. Degenerate input (zero or NaN vectors, bad
shapes) raises or returns -1, never crashes."""

import glob
import os

import numpy as np
import pytest

import phalanx
from tests.compat.test_conformance import load_both
from tests.conftest import SHARED_MODELS, parametrize_corpus, shared_model

mujoco = pytest.importorskip("mujoco")

TOL = 1e-12
WORST = {}


@pytest.fixture(scope="module", autouse=True)
def report():
    yield
    for k, (n, hits, dist, nrm) in sorted(WORST.items()):
        print(f"\nray {k}: {n} rays ({hits} hits); worst dist error {dist:.2e}, normal {nrm:.2e}")


def _err(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return float(np.max(np.abs(a - b) / np.maximum(1.0, np.abs(b)), initial=0.0))


def record(label, d_ours, d_ref, n_ours, n_ref, what):
    ed, en = _err(d_ours, d_ref), _err(n_ours, n_ref)
    assert (d_ours >= 0) == (d_ref >= 0), f"{what}: hit {d_ours} where MuJoCo has {d_ref}"
    assert ed <= TOL, f"{what}: dist {d_ours!r} != MuJoCo's {d_ref!r}"
    assert en <= TOL, f"{what}: normal {n_ours} != MuJoCo's {n_ref}"
    w = WORST.setdefault(label, [0, 0, 0.0, 0.0])
    w[0] += 1
    w[1] += int(d_ref >= 0)
    w[2] = max(w[2], ed)
    w[3] = max(w[3], en)


def random_mat(rng):
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    mat = np.zeros(9)
    mujoco.mju_quat2Mat(mat, q)
    return mat


def rays_at(rng, center, spread, n):
    """n rays from points around center, most aimed at points near it, some random"""
    pnt = center + rng.uniform(-spread, spread, size=(n, 3))
    tgt = center + rng.normal(scale=0.4 * spread, size=(n, 3))
    vec = tgt - pnt
    vec[::5] = rng.normal(size=(len(vec[::5]), 3))
    vec *= rng.uniform(0.2, 3.0, size=(n, 1))
    return pnt, vec


# -------------------------------------------------------------------------------------------------
# primitives (mju_rayGeom)

PRIMS = {"plane": 0, "sphere": 2, "capsule": 3, "ellipsoid": 4, "cylinder": 5, "box": 6}


@pytest.mark.parametrize("name", list(PRIMS))
def test_ray_geom(name):
    gtype = PRIMS[name]
    rng = np.random.default_rng(gtype + 11)
    for trial in range(40):
        pos = rng.uniform(-1, 1, 3)
        mat = random_mat(rng)
        size = rng.uniform(0.05, 0.8, 3)
        if name == "plane" and trial % 3 == 0:
            size[:2] = 0  # infinite plane
        pnt, vec = rays_at(rng, pos, 2.0, 100)
        # rays from inside (the far surface) and axis-aligned in the geom's frame
        pnt[:10] = pos + rng.uniform(-0.02, 0.02, size=(10, 3))
        axes = mat.reshape(3, 3).T
        vec[10:16] = np.vstack([axes, -axes])
        for p, v in zip(pnt, vec):
            nr, no = np.zeros(3), np.zeros(3)
            dr = mujoco.mju_rayGeom(pos, mat, size, p, v, gtype, nr)
            do = phalanx.rayGeom(pos, mat, size, p, v, gtype, no)
            record(f"rayGeom {name}", do, dr, no, nr, f"{name} pos {pos} size {size} p {p} v {v}")


# -------------------------------------------------------------------------------------------------
# a scene of every geom type

_rng = np.random.default_rng(5)
NROW, NCOL = 7, 9
ELEV = np.round(_rng.uniform(0, 1, size=(NROW, NCOL)), 3)
_box = np.array([[x, y, z] for x in (-0.2, 0.2) for y in (-0.1, 0.1) for z in (-0.05, 0.05)])
_rm = np.random.default_rng(9).normal(size=(30, 3))
_lumpy = np.round(_rm / np.linalg.norm(_rm, axis=1, keepdims=True) * [0.3, 0.2, 0.15], 4)


def _fmt(v):
    return " ".join(f"{x:.6g}" for x in np.ravel(v))


SCENE = f"""<mujoco><asset>
  <hfield name="h" nrow="{NROW}" ncol="{NCOL}" size="1.5 1.2 .5 .2" elevation="{_fmt(ELEV)}"/>
  <mesh name="box8" vertex="{_fmt(_box)}"/><mesh name="lumpy" vertex="{_fmt(_lumpy)}"/>
  <material name="clear" rgba="1 1 1 0"/><material name="red" rgba="1 0 0 1"/>
</asset><worldbody>
  <geom name="floor" type="plane" size="4 4 .1" pos="0 0 -0.5"/>
  <geom name="terrain" type="hfield" hfield="h" pos="0.3 -0.2 0" euler="5 -8 20" group="1"/>
  <body name="b1" pos="0 0 1.2"><freejoint/>
    <geom type="sphere" size=".2" group="2"/>
    <geom type="capsule" size=".1 .3" pos=".4 0 0" euler="0 90 0" group="3"/></body>
  <body name="b2" pos="1 .5 1" euler="10 20 30"><freejoint/>
    <geom type="ellipsoid" size=".2 .3 .15"/>
    <geom type="cylinder" size=".15 .25" pos="0 .5 0" group="4" material="red"/></body>
  <body name="b3" pos="-1 .3 1.1" euler="40 -20 10"><freejoint/>
    <geom type="box" size=".2 .25 .1" group="5"/>
    <geom type="mesh" mesh="box8" pos="0 0 .4"/>
    <geom type="mesh" mesh="lumpy" pos=".5 0 .2" euler="30 0 10" group="2"/></body>
  <body name="b4" pos=".2 -1 .9"><freejoint/>
    <geom type="sphere" size=".3" rgba="1 1 1 0"/>
    <geom type="box" size=".2 .2 .2" pos=".6 0 0" material="clear"/>
    <geom type="sphere" size=".15" pos="-.6 0 0" group="7"/></body>
  <geom type="box" size=".3 .3 .3" pos="-1.5 -1.5 .2"/>
</worldbody></mujoco>"""


@pytest.fixture(scope="module")
def scene():
    ref = mujoco.MjModel.from_xml_string(SCENE)
    ours = phalanx.Model.from_xml_string(SCENE)
    md, pd = mujoco.MjData(ref), phalanx.Data(ours)
    rng = np.random.default_rng(3)
    md.qpos[:] = ref.qpos0
    for j in range(4):
        md.qpos[7 * j:7 * j + 3] += rng.uniform(-0.1, 0.1, 3)
        q = md.qpos[7 * j + 3:7 * j + 7] + rng.uniform(-0.3, 0.3, 4)
        md.qpos[7 * j + 3:7 * j + 7] = q / np.linalg.norm(q)
    pd.qpos[:] = md.qpos
    mujoco.mj_kinematics(ref, md)
    phalanx.kinematics(ours, pd)
    assert np.array_equal(pd.geom_xpos, md.geom_xpos)
    assert np.array_equal(pd.geom_xmat, md.geom_xmat)
    return ours, ref, pd, md


def mj_ray(ref, md, p, v, group=None, flg_static=1, bodyexclude=-1):
    gid, n = np.zeros(1, np.int32), np.zeros(3)
    g = None if group is None else np.asarray(group, np.uint8)
    d = mujoco.mj_ray(ref, md, p, v, g, flg_static, bodyexclude, gid, n)
    return d, int(gid[0]), n


FILTERS = [
    (None, 1, -1),
    ([1, 1, 1, 1, 1, 1], 0, -1),
    ([1, 0, 1, 0, 1, 0], 1, 1),
    ([0, 1, 0, 1, 0, 1], 1, 2),
    ([1, 1, 0, 1, 1, 1], 0, 3),
    ([0, 0, 0, 0, 0, 0], 1, -1),
]


def test_ray_scene(scene):
    ours, ref, pd, md = scene
    rng = np.random.default_rng(7)
    hits = set()
    for k in range(4000):
        p = rng.uniform([-2, -2, -0.3], [2, 2, 2.5])
        if k % 2:
            v = pd.geom_xpos[rng.integers(ours.ngeom)] - p
            v += rng.normal(scale=0.1, size=3)
        else:
            v = rng.normal(size=3)
        group, flg_static, bodyexclude = FILTERS[k % len(FILTERS)]
        dr, gr, nr = mj_ray(ref, md, p, v, group, flg_static, bodyexclude)
        no = np.zeros(3)
        do, go = phalanx.ray(ours, pd, p, v, group, flg_static, bodyexclude, normal=no)
        assert go == gr, f"ray {k}: geom {go}, MuJoCo {gr} (p {p}, v {v})"
        record("ray scene", do, dr, no, nr, f"ray {k} p {p} v {v}")
        hits.add(gr)
    # every visible geom type was hit (the invisible ones never)
    hit_types = {int(ref.geom_type[g]) for g in hits if g >= 0}
    assert hit_types == {0, 1, 2, 3, 4, 5, 6, 7}, hit_types
    for name in ("b4",):
        b = ref.body(name).id
        invisible = [g for g in range(ref.ngeom) if ref.geom_bodyid[g] == b][:2]
        assert not hits & set(invisible)


def test_ray_mesh_hfield(scene):
    ours, ref, pd, md = scene
    rng = np.random.default_rng(8)
    for g in range(ref.ngeom):
        t = int(ref.geom_type[g])
        if t not in (mujoco.mjtGeom.mjGEOM_MESH, mujoco.mjtGeom.mjGEOM_HFIELD):
            continue
        center = md.geom_xpos[g]
        spread = 2.0 * float(ref.geom_rbound[g]) if t == mujoco.mjtGeom.mjGEOM_MESH else 2.0
        pnt, vec = rays_at(rng, center, spread, 3000)
        fr = mujoco.mj_rayMesh if t == mujoco.mjtGeom.mjGEOM_MESH else mujoco.mj_rayHfield
        fo = phalanx.rayMesh if t == mujoco.mjtGeom.mjGEOM_MESH else phalanx.rayHfield
        label = "rayMesh" if t == mujoco.mjtGeom.mjGEOM_MESH else "rayHfield"
        for p, v in zip(pnt, vec):
            nr, no = np.zeros(3), np.zeros(3)
            dr = fr(ref, md, g, p, v, nr)
            do = fo(ours, pd, g, p, v, no)
            record(f"{label} scene", do, dr, no, nr, f"geom {g} p {p} v {v}")


# height fields in several poses and shapes, rays from above, below and the sides
@pytest.mark.parametrize("place", [("0 0 0", "0 0 0"), ("0.2 -0.1 0.3", "10 -15 30"),
                                   ("0 0 0", "90 0 0")])
def test_ray_hfield(place):
    rng = np.random.default_rng(hash(place) % 1000)
    nrow, ncol = 11, 6
    elev = np.round(rng.uniform(0, 1, size=(nrow, ncol)), 3)
    xml = f"""<mujoco><asset>
      <hfield name="h" nrow="{nrow}" ncol="{ncol}" size="1.2 .9 .4 .1" elevation="{_fmt(elev)}"/>
      </asset><worldbody><geom type="hfield" hfield="h" pos="{place[0]}" euler="{place[1]}"/>
      </worldbody></mujoco>"""
    ref, ours = mujoco.MjModel.from_xml_string(xml), phalanx.Model.from_xml_string(xml)
    md, pd = mujoco.MjData(ref), phalanx.Data(ours)
    mujoco.mj_kinematics(ref, md)
    phalanx.kinematics(ours, pd)
    pnt, vec = rays_at(rng, md.geom_xpos[0], 1.6, 4000)
    for p, v in zip(pnt, vec):
        nr, no = np.zeros(3), np.zeros(3)
        dr = mujoco.mj_rayHfield(ref, md, 0, p, v, nr)
        do = phalanx.rayHfield(ours, pd, 0, p, v, no)
        record("rayHfield", do, dr, no, nr, f"p {p} v {v}")
        dr2, gr, nr2 = mj_ray(ref, md, p, v)
        no2 = np.zeros(3)
        do2, go = phalanx.ray(ours, pd, p, v, normal=no2)
        assert go == gr
        record("ray hfield", do2, dr2, no2, nr2, f"p {p} v {v}")


# meshes of the corpus: every mesh geom of these models, rays aimed at it
MESH_MODELS = [
    shared_model("mujoco", "model", "mug", "mug.xml"),
    shared_model("mujoco", "model", "cube", "cube_3x3x3.xml"),
    shared_model("mujoco", "model", "replicate", "bunnies.xml"),
    shared_model("mujoco", "test", "engine", "testdata", "collision_convex", "perf", "mixed.xml"),
    shared_model("mujoco", "test", "engine", "testdata", "ray", "mesh.xml"),
    shared_model("mujoco", "test", "engine", "testdata", "ray", "stanford_bunny.xml"),
]
# MuJoCo's ray test models (one geom each; flex.xml and sdf.xml use what phalanx refuses)
RAY_MODELS = [shared_model("mujoco", "test", "engine", "testdata", "ray", f + ".xml") for f in (
    "box", "capsule", "cylinder", "ellipsoid", "hfield", "plane", "sphere")]


@pytest.mark.parametrize("path", MESH_MODELS, ids=lambda p: os.path.relpath(p, SHARED_MODELS))
def test_ray_mesh_corpus(path, full):
    ours, ref = load_both(path)
    md, pd = mujoco.MjData(ref), phalanx.Data(ours)
    mujoco.mj_kinematics(ref, md)
    phalanx.kinematics(ours, pd)
    pd.geom_xpos[:] = md.geom_xpos
    pd.geom_xmat[:] = md.geom_xmat
    rng = np.random.default_rng(len(path))
    meshes = [g for g in range(ref.ngeom) if ref.geom_type[g] == mujoco.mjtGeom.mjGEOM_MESH]
    assert meshes
    nray = 400 if full else 100
    for g in meshes[: None if full else 12]:
        pnt, vec = rays_at(rng, md.geom_xpos[g], 1.5 * float(ref.geom_rbound[g]), nray)
        for p, v in zip(pnt, vec):
            nr, no = np.zeros(3), np.zeros(3)
            dr = mujoco.mj_rayMesh(ref, md, g, p, v, nr)
            do = phalanx.rayMesh(ours, pd, g, p, v, no)
            record("rayMesh corpus", do, dr, no, nr, f"{path} geom {g} p {p} v {v}")


# -------------------------------------------------------------------------------------------------
# mj_ray on corpus scenes at states of MuJoCo's trajectories

FAST = sorted(glob.glob(shared_model("gymnasium", "*.xml"))) + [
    shared_model("mujoco", "model", "humanoid", "humanoid.xml"),
    shared_model("mujoco", "model", "car", "car.xml"),
    shared_model("mujoco", "test", "user", "testdata", "hfield_xml.xml"),
    shared_model("mujoco", "test", "engine", "testdata", "sensor", "rfcamera.xml"),
] + MESH_MODELS + RAY_MODELS


def pytest_generate_tests(metafunc):
    parametrize_corpus(metafunc, "ray_model", FAST)


def trajectory(ref, nstate, stride=4, seed=0):
    md = mujoco.MjData(ref)
    if ref.nkey:
        mujoco.mj_resetDataKeyframe(ref, md, 0)
    rng = np.random.default_rng(seed)
    lo = np.where(ref.actuator_ctrllimited, ref.actuator_ctrlrange[:, 0], -1.0)
    hi = np.where(ref.actuator_ctrllimited, ref.actuator_ctrlrange[:, 1], 1.0)
    for i in range(nstate * stride):
        if i % stride == 0:
            yield md
        md.ctrl[:] = rng.uniform(lo, hi) if ref.nu else 0
        mujoco.mj_step(ref, md)
        if not np.all(np.isfinite(md.qpos)):
            return


def test_ray_corpus(ray_model, full):
    ours, ref = load_both(ray_model)
    if ref.nflex:
        pytest.skip("flex models are refused at compile")
    sdf = [g for g in range(ref.ngeom) if ref.geom_type[g] == mujoco.mjtGeom.mjGEOM_SDF]
    pd = phalanx.Data(ours)
    rel = os.path.relpath(ray_model, SHARED_MODELS)
    rng = np.random.default_rng(len(rel))
    nstate, nray = (50, 60) if full else (10, 30)
    label = "ray corpus"
    for k, md in enumerate(trajectory(ref, nstate, seed=len(rel))):
        mujoco.mj_kinematics(ref, md)
        pd.qpos[:] = md.qpos
        pd.mocap_pos[:] = md.mocap_pos
        pd.mocap_quat[:] = md.mocap_quat
        phalanx.kinematics(ours, pd)
        # the ray alone, on MuJoCo's poses (kinematics is compared in test_conformance.py)
        pd.geom_xpos[:] = md.geom_xpos
        pd.geom_xmat[:] = md.geom_xmat
        # points around the geoms (around the bodies of a model without geoms: no hits)
        pts = md.geom_xpos if ref.ngeom else md.xpos
        lo = pts.min(axis=0) - 1.0
        hi = pts.max(axis=0) + 1.0
        for r in range(nray):
            p = rng.uniform(lo, hi)
            g = rng.integers(len(pts))
            v = pts[g] - p + rng.normal(scale=0.05, size=3) if r % 3 else rng.normal(size=3)
            if np.linalg.norm(v) < 1e-6:
                continue
            group, flg_static, bodyexclude = FILTERS[r % len(FILTERS)]
            if bodyexclude >= ref.nbody:
                bodyexclude = -1
            if sdf:
                with pytest.raises(NotImplementedError, match="signed-distance"):
                    phalanx.ray(ours, pd, p, v, group, flg_static, bodyexclude)
                return
            dr, gr, nr = mj_ray(ref, md, p, v, group, flg_static, bodyexclude)
            no = np.zeros(3)
            do, go = phalanx.ray(ours, pd, p, v, group, flg_static, bodyexclude, normal=no)
            assert go == gr, f"{rel} state {k}: geom {go}, MuJoCo {gr} (p {p}, v {v})"
            record(label, do, dr, no, nr, f"{rel} state {k} p {p} v {v}")


# -------------------------------------------------------------------------------------------------
# degenerate input


def test_ray_degenerate(scene):
    ours, ref, pd, md = scene
    p = np.array([0.0, 0.0, 3.0])
    # MuJoCo's mj_ray stops the process with mju_error here ("vector length is too small")
    with pytest.raises(ValueError, match="too small"):
        phalanx.ray(ours, pd, p, np.zeros(3))
    for bad in (np.array([np.nan, 0, -1.0]), np.array([0, np.inf, -1.0])):
        with pytest.raises(ValueError, match="finite"):
            phalanx.ray(ours, pd, p, bad)
        with pytest.raises(ValueError, match="finite"):
            phalanx.ray(ours, pd, bad, np.array([0, 0, -1.0]))
    with pytest.raises(ValueError, match="pnt has 2 elements; expected 3"):
        phalanx.ray(ours, pd, [0, 0], [0, 0, -1])
    with pytest.raises(ValueError, match="geomgroup has 5 elements; expected 6"):
        phalanx.ray(ours, pd, p, [0, 0, -1], geomgroup=[1] * 5)
    with pytest.raises(TypeError):
        phalanx.ray(ours, pd, p, [0, 0, -1], geomgroup="abc")
    with pytest.raises(TypeError, match="writable C-contiguous float64"):
        phalanx.ray(ours, pd, p, [0, 0, -1], normal=np.zeros(3, np.float32))
    with pytest.raises(ValueError, match="geom type must be a primitive"):
        phalanx.rayGeom(np.zeros(3), np.eye(3).ravel(), np.ones(3), p, [0, 0, -1], 7)
    with pytest.raises(ValueError, match="must be a mesh"):
        phalanx.rayMesh(ours, pd, 0, p, [0, 0, -1])
    with pytest.raises(ValueError, match="must be a height field"):
        phalanx.rayHfield(ours, pd, 0, p, [0, 0, -1])
    with pytest.raises(IndexError):
        phalanx.rayMesh(ours, pd, ours.ngeom, p, [0, 0, -1])
    # the single-geom functions take any vector, as MuJoCo's: zero and NaN give no hit
    mesh = [g for g in range(ref.ngeom) if ref.geom_type[g] == mujoco.mjtGeom.mjGEOM_MESH][0]
    hf = [g for g in range(ref.ngeom) if ref.geom_type[g] == mujoco.mjtGeom.mjGEOM_HFIELD][0]
    for v in (np.zeros(3), np.array([np.nan, 0, -1])):
        for t in PRIMS.values():
            d = phalanx.rayGeom(np.zeros(3), np.eye(3).ravel(), np.ones(3), p, v, t)
            assert d == -1 or np.isnan(d)
        assert phalanx.rayMesh(ours, pd, mesh, p, v) == -1
        assert phalanx.rayHfield(ours, pd, hf, p, v) == -1
        assert phalanx.rayHfield(ours, pd, hf, [np.nan] * 3, [0, 0, -1]) == -1


def test_ray_extreme_values(scene):
    """vectors and points from 1e-300 to 1e300 (norms overflowing to inf included), axis-aligned
    vectors: the same distance (NaN included), geom and normal as mj_ray, no crash"""
    ours, ref, pd, md = scene
    rng = np.random.default_rng(0)
    n = 0
    for k in range(4000):
        p = rng.normal(size=3) * 10.0 ** rng.integers(-20, 20)
        v = rng.normal(size=3) * 10.0 ** rng.integers(-300, 300)
        if k % 7 == 0:
            v[rng.integers(3)] = 0
        if k % 11 == 0:
            v[:2] = 0
        with np.errstate(all="ignore"):
            if not np.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) >= 1e-15:
                continue  # MuJoCo's mju_error
            dr, gr, nr = mj_ray(ref, md, p, v)
        no = np.zeros(3)
        do, go = phalanx.ray(ours, pd, p, v, normal=no)
        assert go == gr and np.array_equal([do], [dr], equal_nan=True), (p, v, do, dr)
        assert np.array_equal(no, nr, equal_nan=True), (p, v, no, nr)
        n += 1
    assert n > 1500


def test_ray_geom_degenerate():
    """zero, negative, tiny and huge sizes, zero and tiny / huge vectors: mju_rayGeom's results
    (NaN included), bit for bit"""
    rng = np.random.default_rng(1)
    for k in range(6000):
        t = list(PRIMS.values())[k % 6]
        pos = rng.normal(size=3)
        mat = random_mat(rng)
        size = rng.choice([0.0, -0.3, 1e-300, 0.5, 1e300], size=3)
        p = rng.normal(size=3) * 3
        v = rng.normal(size=3) * rng.choice([1e-200, 1, 1e200, 0.0])
        nr, no = np.zeros(3), np.zeros(3)
        dr = mujoco.mju_rayGeom(pos, mat, size, p, v, t, nr)
        do = phalanx.rayGeom(pos, mat, size, p, v, t, no)
        assert np.array_equal([do], [dr], equal_nan=True), (t, size, v, do, dr)
        assert np.array_equal(no, nr, equal_nan=True), (t, size, v, no, nr)
