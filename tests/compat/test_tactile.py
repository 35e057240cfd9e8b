# SPDX-License-Identifier: Apache-2.0
"""Builtin meshes and the tactile sensor against MuJoCo 3.12 (the oracle).

Builtin meshes (sphere, hemisphere, cone, supersphere, supertorus, wedge, plate): every compiled
model field both engines define, exactly as test_conformance does, plus phalanx's per-vertex
frames (mesh_taxelframe) against MuJoCo's mesh_normal where it holds 3 normals per vertex.
Tactile sensors: sensordata at states along MuJoCo's own trajectories (random applied forces),
set in both engines, ‖Δ‖ / max(‖ref‖, 1e-12) ≤ 1e-9 per sensor. The own model
tests/compat/models/tactile_shapes.xml sinks probes with wedge and plate taxels into a sphere, a
box, a capsule, a cylinder, an ellipsoid, a mesh (skipped by MuJoCo: no octree) and the plane.
Run with -s for the worst errors.
"""

import os

import numpy as np
import pytest

import phalanx
import tests.compat.test_sensor as ts
from tests.conftest import shared_model

mujoco = pytest.importorskip("mujoco")

HERE = os.path.dirname(__file__)
OWN = os.path.join(HERE, "models", "tactile_shapes.xml")
TOL = 1e-9
WORST = {}

BUILTIN_MODELS = [
    OWN,
    shared_model("mujoco", "test", "user", "testdata", "makemesh.xml"),
    shared_model("mujoco", "test", "engine", "testdata", "collision_convex", "perf",
                 "spheremesh.xml"),
    shared_model("mujoco", "test", "engine", "testdata", "sensor", "rfcamera.xml"),
]

# an inline mesh without faces (the hull gives them) and without frames: channel 0 only
LUMPY = """<mujoco><asset><mesh name="lumpy" vertex="0 0 -.1  .1 0 -.05  0 .1 -.05  -.1 0 -.05
    0 -.1 -.05  .05 .05 .02  -.05 .05 .02  .05 -.05 .02  -.05 -.05 .02  0 0 .05"/></asset>
  <worldbody><geom type="plane" size="2 2 .1"/><geom type="box" pos=".25 0 .05" size=".1 .1 .05"/>
    <body pos="0 0 .1"><freejoint/><geom type="sphere" size=".06" solref=".3 1"/>
      <geom name="skin" type="mesh" mesh="lumpy" contype="0" conaffinity="0"/></body>
  </worldbody>
  <sensor><tactile geom="skin" mesh="lumpy"/></sensor></mujoco>"""


@pytest.fixture(scope="module", autouse=True)
def report():
    yield
    if WORST:
        print("\nworst relative error per tactile model (phalanx vs MuJoCo):")
        for k in sorted(WORST):
            print(f"  {k:28s} {WORST[k]:.2e}")


def both_from_path(path):
    return phalanx.Model.from_xml_path(path), mujoco.MjModel.from_xml_path(path)


#---------------------------------- builtin meshes ------------------------------------------------

@pytest.mark.parametrize("path", BUILTIN_MODELS, ids=os.path.basename)
def test_builtin_mesh_fields(path):
    ours, ref = both_from_path(path)
    assert ref.nmesh > 0
    for s in phalanx._core.MODEL_SIZES:
        if hasattr(ref, s):
            assert getattr(ours, s) == getattr(ref, s), s
    for name in phalanx._core.MODEL_FIELDS:
        if hasattr(ref, name) and name != "actuator_lengthrange":
            a, b = getattr(ours, name), getattr(ref, name)
            if isinstance(a, bytes):
                assert a == bytes(b), name
                continue
            a, b = np.asarray(a), np.asarray(b)
            assert a.shape == b.shape, name
            if a.dtype.kind in "iub" or b.dtype.kind in "iub":
                np.testing.assert_array_equal(a.astype(np.int64), b.astype(np.int64), err_msg=name)
            else:
                np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12, err_msg=name)
    # per-vertex frames: MuJoCo's mesh_normal where it holds 3 normals per vertex, bit for bit
    nframe = 0
    frames = np.asarray(ours.mesh_taxelframe)
    assert frames.shape == (ref.nmeshvert, 9)
    for i in range(ref.nmesh):
        nv = ref.mesh_vertnum[i]
        adr = ours.mesh_taxeladr[i]
        if ref.mesh_normalnum[i] == 3 * nv:
            a0 = ref.mesh_normaladr[i]
            want = ref.mesh_normal[a0:a0 + 3 * nv].reshape(nv, 9)
            assert adr == ref.mesh_vertadr[i]
            np.testing.assert_array_equal(frames[adr:adr + nv], want)
            nframe += nv
        else:
            assert adr == -1
            a0 = ref.mesh_vertadr[i]
            assert not frames[a0:a0 + nv].any()
    text = open(path).read()
    assert (nframe > 0) == ('builtin="wedge"' in text or 'builtin="plate"' in text)


def test_builtin_meshes_cover_every_kind():
    """makemesh.xml and the own model hold every builtin kind with several parameter sets; the
    meshes with frames are the wedges and plates, also under refquat and a negative scale"""
    text = open(BUILTIN_MODELS[1]).read() + open(OWN).read()
    for kind in ("sphere", "hemisphere", "cone", "supersphere", "supertorus", "wedge", "plate"):
        assert f'builtin="{kind}"' in text, kind
    ours = phalanx.Model.from_xml_path(OWN)
    assert (np.asarray(ours.mesh_taxeladr) >= 0).sum() == 4 and "refquat" in open(OWN).read()


BAD_BUILTIN = [
    ('builtin="sphere" params="5"', "cannot be greater than 4"),
    ('builtin="sphere" params="1 2"', "requires 1 parameter"),
    ('builtin="hemisphere" params="-1"', "cannot be negative"),
    ('builtin="supersphere" params="2 1 1"', "must be greater than 2"),
    ('builtin="supertorus" params="10 1.5 1 1"', "radius must be in"),
    ('builtin="wedge" params="3 3 200 45 0"', "fov[0]"),
    ('builtin="wedge" params="3 3 45 45 2"', "gamma"),
    ('builtin="plate" params="0 3"', "resolutions must be positive"),
    ('builtin="cone" params="3"', "requires 2 parameters"),
    ('builtin="none" params="1"', "Unsupported mesh type"),
    ('builtin="sphere"', "params"),
]


@pytest.mark.parametrize("attrs,msg", BAD_BUILTIN, ids=[a for a, _ in BAD_BUILTIN])
def test_bad_builtin_rejected_like_mujoco(attrs, msg):
    xml = (f'<mujoco><asset><mesh name="m" {attrs}/></asset><worldbody>'
           '<geom type="mesh" mesh="m"/></worldbody></mujoco>')
    with pytest.raises(ValueError):
        mujoco.MjModel.from_xml_string(xml)
    with pytest.raises(phalanx.MJCFError, match=msg.replace("[", r"\[")):
        phalanx.Model.from_xml_string(xml)


#---------------------------------- tactile sensor ------------------------------------------------

def compare_trajectory(ours, ref, label, nstate, every=5, seed=3):
    do, dr = phalanx.Data(ours), mujoco.MjData(ref)
    worst = 0.0
    nonzero = np.zeros(3, dtype=int)
    for k, s in enumerate(ts.trajectory(ref, nstate, seed=seed, every=every)):
        mujoco.mj_setState(ref, dr, s, ts.STATE)
        mujoco.mj_forward(ref, dr)
        ts.copy_state(dr, do)
        phalanx.forward(ours, do)
        a_ours, a_ref = np.asarray(do.sensordata), np.asarray(dr.sensordata)
        for i in range(ref.nsensor):
            adr, dim = ref.sensor_adr[i], ref.sensor_dim[i]
            a, b = a_ours[adr:adr + dim], a_ref[adr:adr + dim]
            err = float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-12))
            worst = max(worst, err)
            assert err <= TOL, f"{label} state {k} sensor {i}: relative error {err:.3e}"
            nonzero += np.count_nonzero(b.reshape(3, -1), axis=1)
    WORST[label] = max(WORST.get(label, 0.0), worst)
    return nonzero


@pytest.mark.compat
def test_tactile_own_model():
    ours, ref = both_from_path(OWN)
    nonzero = compare_trajectory(ours, ref, "tactile_shapes.xml", 100)
    assert (nonzero > 1000).all(), nonzero  # depth and both slip channels read


@pytest.mark.compat
def test_tactile_step_readings():
    """phalanx's own steps (Euler) from a shared state read what MuJoCo's read"""
    ours, ref = both_from_path(OWN)
    do, dr = phalanx.Data(ours), mujoco.MjData(ref)
    for k, s in enumerate(ts.trajectory(ref, 20, every=10)):
        mujoco.mj_setState(ref, dr, s, ts.STATE)
        ts.copy_state(dr, do)
        mujoco.mj_step(ref, dr)
        phalanx.step(ours, do)
        for i in range(ref.nsensor):
            adr, dim = ref.sensor_adr[i], ref.sensor_dim[i]
            a, b = np.asarray(do.sensordata)[adr:adr + dim], dr.sensordata[adr:adr + dim]
            err = float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-12))
            assert err <= TOL, f"step {k} sensor {i}: relative error {err:.3e}"


def test_own_model_touches_every_primitive():
    """along the compared trajectory each probe's taxels read while the probe touches only its
    target (sphere, box, capsule, cylinder, ellipsoid, plane): every SDF is exercised; while a
    probe touches only the mesh geom, its readings are zero (MuJoCo skips meshes without octree)"""
    ref = mujoco.MjModel.from_xml_path(OWN)
    dr = mujoco.MjData(ref)
    names = ["sphere", "box", "capsule", "cylinder", "ellipsoid", "mesh", "plane"]
    hit, meshonly = set(), 0
    for s in ts.trajectory(ref, 100, every=5):
        mujoco.mj_setState(ref, dr, s, ts.STATE)
        mujoco.mj_forward(ref, dr)
        for k, target in enumerate(names):
            probe = ref.body(f"probe{k}").id
            others = set()
            for c in dr.contact[:dr.ncon]:
                for a, b in ((c.geom1, c.geom2), (c.geom2, c.geom1)):
                    if ref.body_weldid[ref.geom_bodyid[a]] == probe:
                        others.add(ref.geom(b).name)
            data = np.concatenate([dr.sensor(f"wedge{k}").data, dr.sensor(f"plate{k}").data])
            if others == {target} and np.any(data != 0):
                hit.add(target)
            if others == {"mesh"}:
                meshonly += 1
                assert not np.any(data != 0)
    assert hit == set(names) - {"mesh"}, hit
    assert meshonly > 0


@pytest.mark.compat
def test_tactile_inline_mesh_without_frames():
    ours, ref = phalanx.Model.from_xml_string(LUMPY), mujoco.MjModel.from_xml_string(LUMPY)
    assert ref.mesh_normalnum[0] != 3 * ref.mesh_vertnum[0] and ours.mesh_taxeladr[0] == -1
    nonzero = compare_trajectory(ours, ref, "inline mesh", 60, every=3)
    assert nonzero[0] > 0 and nonzero[1] == nonzero[2] == 0, nonzero


@pytest.mark.compat
def test_tactile_sensor_disabled_and_contacts_disabled():
    for bit in ("mjDSBL_CONTACT", "mjDSBL_SENSOR"):
        ours, ref = both_from_path(OWN)
        flag = int(getattr(mujoco.mjtDisableBit, bit))
        for m in (ours, ref):
            m.opt.disableflags = m.opt.disableflags | flag
        compare_trajectory(ours, ref, "tactile_shapes.xml " + bit, 10)


def test_tactile_corpus_model_refused_for_its_plugin():
    path = shared_model("mujoco", "model", "tactile", "tactile.xml")
    with pytest.raises(NotImplementedError, match="plugins"):
        phalanx.Model.from_xml_path(path)


SENSOR_BODY = """<mujoco><asset><mesh name="p" builtin="plate" params="3 3"/>{asset}</asset>
  <worldbody>{world}<body><freejoint/><geom name="g" size=".1" {gattr}/></body></worldbody>
  <sensor><tactile geom="g" mesh="{mesh}" {sattr}/></sensor></mujoco>"""


@pytest.mark.parametrize("case", [
    dict(sattr='cutoff=".1"'), dict(sattr='noise=".1"'),
    dict(gattr='contype="0" conaffinity="0"'), dict(mesh="nosuch"),
])
def test_tactile_invalid_rejected_like_mujoco(case):
    xml = SENSOR_BODY.format(asset="", world="", gattr=case.get("gattr", ""),
                             mesh=case.get("mesh", "p"), sattr=case.get("sattr", ""))
    with pytest.raises(ValueError):
        mujoco.MjModel.from_xml_string(xml)
    with pytest.raises(phalanx.MJCFError):
        phalanx.Model.from_xml_string(xml)


def test_tactile_refusals_by_name():
    """what phalanx cannot decide like MuJoCo is refused by name: a tactile mesh from an OBJ file
    (MuJoCo's frames come from the file's normals) and a colliding height field (MuJoCo raises an
    error when it touches the sensor)"""
    hf = SENSOR_BODY.format(asset='<hfield name="h" nrow="2" ncol="2" size="1 1 .1 .1"/>',
                            world='<geom type="hfield" hfield="h"/>', gattr="", mesh="p",
                            sattr="")
    mujoco.MjModel.from_xml_string(hf)
    with pytest.raises(NotImplementedError, match="height field"):
        phalanx.Model.from_xml_string(hf)
    obj = shared_model("mujoco", "model", "mug", "mug.obj")
    xml = SENSOR_BODY.format(asset=f'<mesh name="o" file="{obj}"/>', world="", gattr="",
                             mesh="o", sattr="")
    mujoco.MjModel.from_xml_string(xml)
    with pytest.raises(NotImplementedError, match="OBJ or MSH"):
        phalanx.Model.from_xml_string(xml)


def test_tactile_batch_threads_bitwise():
    """a batch computes the tactile readings with each thread's scratch: bitwise the same for 0, 1
    and 3 threads and the same as phalanx.step on each world alone"""
    m = phalanx.Model.from_xml_path(OWN)
    nworld, nstep = 5, 300
    out = []
    for nthread in (0, 1, 3):
        b = phalanx.Batch(m, nworld, nthread, seed=5)
        b.reset(qpos_noise=0.02, qvel_noise=0.5)
        start = (np.array(b.qpos), np.array(b.qvel))
        assert b.step(nstep) == 0
        out.append(np.array(b.sensordata))
    assert np.any(out[0] != 0)
    for got in out[1:]:
        assert got.tobytes() == out[0].tobytes()
    for w in range(nworld):
        d = phalanx.Data(m)
        d.qpos[:], d.qvel[:] = start[0][w], start[1][w]
        for _ in range(nstep):
            phalanx.step(m, d)
        assert np.array(d.sensordata).tobytes() == out[0][w].tobytes(), w
