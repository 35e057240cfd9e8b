# SPDX-License-Identifier: Apache-2.0
"""The geom distance sensors (distance, normal, fromto) on the Vulkan executor against the CPU
executor.

They run in a pass of their own after the main sensor pass (shaders/sensor_main.glsl:
pxk_sensorsGeomDist, one call of the distance query): sensor_distprim.comp, with the primitive
narrow-phase routines, for models whose sensor pairs need nothing more, and sensor_dist.comp,
with GJK/EPA and height fields, which a CPU Vulkan device (lavapipe) refuses as pxv_collision
refuses its convex pipeline (unless PX_GPU_CONVEX=1). The runs are slow (`make gpu-check`: the
entry points are built at -O0; a cold lavapipe build of sensor_dist.comp took 9.5 minutes here);
the refusal test is fast. From identical states,
several worlds per batch: `Vulkan.forward` must equal `phalanx.forward` and `Vulkan.step`
repeated `phalanx.step`, every data array bit for bit in fp64 (a delayed distance sensor too:
its history update computes it again); fp32 sensordata within FP32_TOL. The CPU's readings are
MuJoCo's mj_geomDistance (tests/compat/test_geom_distance.py, test_sensor.py).
"""

import mujoco
import numpy as np
import pytest

import phalanx
from tests.conftest import shared_model
from tests.vulkan.test_collision_gpu import allow_convex
from tests.vulkan.test_step import (EULER, IMPLICITFAST, assert_same, cpu_world, random_batch,
                                    same_bits)

pytestmark = pytest.mark.gpu

OK, WHY = phalanx.vulkan_available()

# geom pairs of the primitive routines (with nativeccd, MuJoCo's mj_geomDistance sends the other
# pairs to GJK): sphere-sphere, sphere-capsule, capsule-capsule, sphere-box, capsule-box, plane
# with sphere, capsule, box and cylinder, sphere-cylinder; geoms and bodies (every geom pair of
# two bodies), a cutoff that some worlds exceed, and a delayed distance sensor
PRIM_XML = """
<mujoco model="sensor_dist_prim">
  <option timestep="0.005"/>
  <worldbody>
    <geom name="floor" type="plane" size="3 3 .1" euler="4 -3 0"/>
    <body name="a" pos="0 0 .6">
      <freejoint/>
      <geom name="a_s" type="sphere" size=".1"/>
      <geom name="a_c" type="capsule" size=".05 .15" pos=".2 0 0" euler="0 90 0"/>
    </body>
    <body name="b" pos=".5 .1 .7">
      <joint type="hinge" axis="0 1 0"/>
      <joint type="slide" axis="1 0 0"/>
      <geom name="b_b" type="box" size=".1 .08 .06"/>
      <geom name="b_s" type="sphere" size=".07" pos="0 .2 0"/>
    </body>
    <body name="c" pos="-.4 .2 .5">
      <freejoint/>
      <geom name="c_y" type="cylinder" size=".08 .1"/>
      <geom name="c_c" type="capsule" size=".04 .1" pos="0 .2 0"/>
    </body>
  </worldbody>
  <sensor>
    <distance name="d_ss" geom1="a_s" geom2="b_s" cutoff="2"/>
    <normal name="n_sc" geom1="b_s" geom2="a_c" cutoff="2"/>
    <fromto name="f_cc" geom1="a_c" geom2="c_c" cutoff="2"/>
    <distance name="d_sb" geom1="a_s" geom2="b_b" cutoff="2"/>
    <fromto name="f_cb" geom1="b_b" geom2="a_c" cutoff="2"/>
    <distance name="d_ps" geom1="floor" geom2="a_s" cutoff="1.5"/>
    <normal name="n_pb" geom1="b_b" geom2="floor" cutoff="1.5"/>
    <fromto name="f_py" geom1="floor" geom2="c_y" cutoff="1.5"/>
    <distance name="d_sy" geom1="c_y" geom2="a_s" cutoff="2"/>
    <distance name="d_body" body1="a" body2="b" cutoff=".4"/>
    <fromto name="f_body" body1="b" body2="a" cutoff="2"/>
    <distance name="d_delay" geom1="a_s" geom2="b_b" cutoff="2" delay=".01" nsample="4"
              interp="linear"/>
  </sensor>
</mujoco>
"""

# a model whose sensor pair needs GJK (an ellipsoid), and a box pair (GJK with nativeccd, the
# box-box routine without)
CONVEX_XML = """
<mujoco model="sensor_dist_convex">
  <worldbody>
    <body name="a" pos="0 0 .6">
      <freejoint/>
      <geom name="a_e" type="ellipsoid" size=".1 .07 .05"/>
      <geom name="a_b" type="box" size=".1 .1 .1" pos=".3 0 0"/>
    </body>
    <body name="b" pos=".5 .1 .7">
      <freejoint/>
      <geom name="b_b" type="box" size=".1 .08 .06"/>
    </body>
  </worldbody>
  <sensor>
    <SENSOR/>
  </sensor>
</mujoco>
"""

DSBL_CONSTRAINT = int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)
DSBL_NATIVECCD = int(mujoco.mjtDisableBit.mjDSBL_NATIVECCD)

# fp32 against the fp64 CPU per sensor: ||gpu32 - cpu64|| / max(||cpu64||, 1); measured on
# lavapipe (test_fp32_close): worst 2.51e-7 at 4 steps world 1 sensor 4 (f_cb, box-capsule
# fromto); bound 2e-6, 8x
FP32_TOL = 2e-6


@pytest.fixture(scope="module")
def vk():
    if not OK:
        pytest.skip(f"no Vulkan device: {WHY}")
    return phalanx.Vulkan(validation=2)


def load(xml=None, integrator=EULER):
    xml = xml or PRIM_XML
    model = phalanx.Model.from_xml_string(xml)
    model.opt.disableflags = model.opt.disableflags | DSBL_CONSTRAINT
    model.opt.integrator = integrator
    return model


def batch(model, nworld, seed):
    q, inputs = random_batch(model, nworld, np.random.default_rng(seed))
    # positions near the model's (random_batch puts free bodies anywhere in [-1, 1]^3)
    q = np.tile(model.qpos0, (nworld, 1)) + 0.15 * (q - np.tile(model.qpos0, (nworld, 1)))
    inputs["qvel"] *= 0.5
    return q, inputs


@pytest.mark.slow
def test_prim_fp64_bitwise(vk):
    if not vk.fp64:
        pytest.skip(f"{vk.device} has no shaderFloat64")
    model = load()
    nworld = 4
    q, inputs = batch(model, nworld, 41)
    out = vk.forward(model, q, **inputs)
    below = 0
    for w in range(nworld):
        data = cpu_world(model, q, inputs, w)
        phalanx.forward(model, data)
        below += int(np.sum(data.sensordata[:1] < 2))
        assert_same(out, data, w, "forward")
    assert below > 0, "no distance below its cutoff: nothing compared"
    out = vk.step(model, q, nstep=6, **inputs)
    for w in range(nworld):
        data = cpu_world(model, q, inputs, w)
        for _ in range(6):
            phalanx.step(model, data)
        assert_same(out, data, w, "6 steps")
        assert same_bits(out["time"][w], np.float64(data.time))
    assert vk.validation_messages == 0


@pytest.mark.slow
def test_prim_lanes_implicitfast_bitwise(vk):
    if not vk.fp64:
        pytest.skip(f"{vk.device} has no shaderFloat64")
    model = load(integrator=IMPLICITFAST)
    q, inputs = batch(model, 3, 42)
    out = vk.step(model, q, nstep=4, lanes=4, **inputs)
    for w in range(3):
        data = cpu_world(model, q, inputs, w)
        for _ in range(4):
            phalanx.step(model, data)
        assert_same(out, data, w, "4 steps, 4 lanes")
    assert vk.validation_messages == 0


def fp32_worst(vk, model, q, inputs, steps, tol):
    """The worst per-sensor error ||gpu32 - cpu64|| / max(||cpu64||, 1) of fp32 sensordata after
    forward and after each step count in `steps`, every world's within tol (a number, or a
    function of the sensor type)."""
    nworld = q.shape[0]
    worst = (0.0, "")
    for nstep in (0,) + tuple(steps):
        if nstep == 0:
            out = vk.forward(model, q, precision="fp32", **inputs)
        else:
            out = vk.step(model, q, nstep=nstep, precision="fp32", **inputs)
        for w in range(nworld):
            data = cpu_world(model, q, inputs, w)
            if nstep == 0:
                phalanx.forward(model, data)
            for _ in range(nstep):
                phalanx.step(model, data)
            for i in range(model.nsensor):
                a, n = model.sensor_adr[i], model.sensor_dim[i]
                g = np.asarray(out["sensordata"][w][a:a + n], float)
                c = data.sensordata[a:a + n]
                err = np.linalg.norm(g - c) / max(np.linalg.norm(c), 1.0)
                where = f"{nstep} steps world {w} sensor {i} (type {model.sensor_type[i]})"
                worst = max(worst, (err, where))
                bound = tol(model.sensor_type[i]) if callable(tol) else tol
                assert err <= bound, f"{where}: {err:.2g}"
    assert vk.validation_messages == 0
    return worst


@pytest.mark.slow
def test_fp32_close(vk):
    """fp32 sensordata after forward and 4 steps within FP32_TOL of the fp64 CPU per sensor
    (measured on lavapipe: worst 2.51e-7 at 4 steps world 1 sensor 4; 14m06s with the fp32
    sensor_distprim pipeline built cold, GALLIVM_PERF=nopt)."""
    model = load()
    q, inputs = batch(model, 3, 43)
    worst = fp32_worst(vk, model, q, inputs, (4,), FP32_TOL)
    print(f"\nfp32 geom distance worst relative error {worst[0]:.3g} at {worst[1]}")


def test_convex_refused_on_cpu_device(vk, monkeypatch):
    """Sensor pairs that need GJK/EPA (an ellipsoid; a box pair with nativeccd) are refused on a
    CPU Vulkan device, naming the pairs and PX_GPU_CONVEX, before any GPU work."""
    if "llvmpipe" not in vk.device.lower() and "lavapipe" not in vk.device.lower():
        pytest.skip(f"{vk.device} is not a CPU Vulkan device")
    monkeypatch.delenv("PX_GPU_CONVEX", raising=False)
    for sensor in ('<distance geom1="a_e" geom2="b_b"/>', '<fromto geom1="a_b" geom2="b_b"/>',
                   '<normal body1="a" body2="b"/>'):
        model = load(CONVEX_XML.replace("<SENSOR/>", sensor))
        q = np.tile(model.qpos0, (2, 1))
        v = np.zeros((2, model.nv))
        for run in (vk.forward, vk.step):
            with pytest.raises(NotImplementedError,
                               match="geom distance sensors with convex .GJK/EPA. or "
                                     "height-field pairs on the CPU Vulkan device .*PX_GPU_CONVEX"):
                run(model, q, v)
        phalanx.forward(model, phalanx.Data(model))  # the CPU computes it


@pytest.mark.slow
def test_box_pair_without_nativeccd_fp64(vk):
    """Without nativeccd the box pair runs the box-box routine: the primitive entry point (not
    refused), bit-equal to the CPU (slow: it builds sensor_distprim.comp)."""
    model = load(CONVEX_XML.replace("<SENSOR/>", '<fromto geom1="a_b" geom2="b_b"/>'))
    model.opt.disableflags = model.opt.disableflags | DSBL_NATIVECCD
    if not vk.fp64:
        pytest.skip(f"{vk.device} has no fp64")
    q, inputs = batch(model, 2, 44)
    out = vk.forward(model, q, **inputs)
    for w in range(2):
        data = cpu_world(model, q, inputs, w)
        phalanx.forward(model, data)
        assert_same(out, data, w, "forward, box-box without nativeccd")


# MuJoCo's geom distance test models: capsule pairs only (sensor_distprim.comp), and models with
# GJK/EPA or height-field pairs (a mesh, an ellipsoid, a height field: sensor_dist.comp)
CORPUS = ["fromto_body_body.xml", "fromto_primitive.xml", "fromto_capsule_ellipsoid.xml",
          "fromto_convex.xml"]
CORPUS_GJK = CORPUS[1:]


@pytest.mark.slow
@pytest.mark.parametrize("name", CORPUS)
def test_corpus_fp64(vk, monkeypatch, name):
    """MuJoCo's fromto test models (every sensor and pair they hold), constraints disabled:
    forward and 2 Euler steps bit-equal to the CPU, 2 worlds near the models' poses (on lavapipe
    with PX_GPU_CONVEX=1 for the GJK/EPA entry point)."""
    if not vk.fp64:
        pytest.skip(f"{vk.device} has no fp64")
    if name in CORPUS_GJK:
        allow_convex(vk, monkeypatch)
    with open(shared_model("mujoco", "test", "engine", "testdata", "sensor", name)) as f:
        model = load(f.read())
    q, inputs = batch(model, 2, 45)
    out = vk.forward(model, q, **inputs)
    for w in range(2):
        data = cpu_world(model, q, inputs, w)
        phalanx.forward(model, data)
        assert np.any(np.asarray(data.sensordata) != 0), f"{name}: every reading zero"
        assert_same(out, data, w, f"{name}: forward")
    out = vk.step(model, q, nstep=2, **inputs)
    for w in range(2):
        data = cpu_world(model, q, inputs, w)
        for _ in range(2):
            phalanx.step(model, data)
        assert_same(out, data, w, f"{name}: 2 steps")
    assert vk.validation_messages == 0


# height-field pairs and a delayed GJK pair of our own (sensor_dist.comp): a tilted height field
# (reached through its body: MuJoCo refuses a height-field geom as a sensor's geom) against a
# sphere, a box, a capsule and a body's geoms, two bodies' geoms (GJK pairs among them), and an
# ellipsoid-box fromto (GJK with nativeccd) with a delay, whose samples the history update's
# distance pass computes
HF_XML = """
<mujoco model="sensor_dist_hfield">
  <option timestep="0.005"/>
  <asset>
    <hfield name="h" nrow="5" ncol="6" size=".8 .6 .3 .1"
            elevation=".1 .5 .2 .9 .4 .3  .7 .2 .6 .1 .8 .5  .3 .9 .4 .7 .2 .6
                       .5 .1 .8 .3 .6 .9  .2 .7 .1 .5 .4 .8"/>
  </asset>
  <worldbody>
    <body name="ground" euler="3 -2 10">
      <geom name="terrain" type="hfield" hfield="h"/>
    </body>
    <body name="a" pos="0 0 .6">
      <freejoint/>
      <geom name="a_s" type="sphere" size=".1"/>
      <geom name="a_e" type="ellipsoid" size=".1 .07 .05" pos=".25 0 0"/>
    </body>
    <body name="b" pos=".3 .2 .55">
      <freejoint/>
      <geom name="b_b" type="box" size=".1 .08 .06"/>
      <geom name="b_c" type="capsule" size=".04 .1" pos="0 .2 0" euler="0 90 0"/>
    </body>
  </worldbody>
  <sensor>
    <distance name="d_hs" body1="ground" geom2="a_s" cutoff="1"/>
    <fromto name="f_bh" geom1="b_b" body2="ground" cutoff="1"/>
    <normal name="n_hc" body1="ground" geom2="b_c" cutoff="1"/>
    <distance name="d_body" body1="b" body2="ground" cutoff="1"/>
    <distance name="d_ab" body1="b" body2="a" cutoff="1"/>
    <fromto name="f_eb" geom1="a_e" geom2="b_b" cutoff="1" delay=".01" nsample="4"
            interp="linear"/>
  </sensor>
</mujoco>
"""

# fp32 against the fp64 CPU through the GJK/EPA entry point (test_fp32_gjk_close), per sensor as
# FP32_TOL. Measured on lavapipe: distance readings at most 1.5e-6 (HF_XML's distance between
# two bodies, GJK pairs); normal and fromto at most 1.07e-4 (fromto_convex.xml's ellipsoid-mesh
# fromto after 2 steps; 9.3e-5 fromto_capsule_ellipsoid.xml's): in fp32 GJK stops at fp32's
# resolution, far above ccd_tolerance, and on a curved surface a distance settled to 1e-7 still
# lets the witness points slide along it (tangential error about sqrt(radius x distance
# error)). Bounds about 5x.
FP32_GJK_TOL_DIST = 1e-5
FP32_GJK_TOL_POINTS = 5e-4
SENS_GEOMDIST = int(mujoco.mjtSensor.mjSENS_GEOMDIST)


@pytest.mark.slow
def test_gjk_hfield_fp64(vk, monkeypatch):
    """HF_XML: forward and 6 Euler steps bit-equal to the CPU, every data array and `history`,
    3 worlds; the CPU's readings are MuJoCo's (tests/compat/test_geom_distance.py)."""
    if not vk.fp64:
        pytest.skip(f"{vk.device} has no fp64")
    allow_convex(vk, monkeypatch)
    model = load(HF_XML)
    q, inputs = batch(model, 3, 46)
    out = vk.forward(model, q, **inputs)
    for w in range(3):
        data = cpu_world(model, q, inputs, w)
        phalanx.forward(model, data)
        assert np.all(data.sensordata[:1] < 1), "the height-field distance beyond its cutoff"
        assert_same(out, data, w, "forward")
    out = vk.step(model, q, nstep=6, **inputs)
    for w in range(3):
        data = cpu_world(model, q, inputs, w)
        for _ in range(6):
            phalanx.step(model, data)
        assert np.any(data.history != 0)
        assert_same(out, data, w, "6 steps")
    assert vk.validation_messages == 0


@pytest.mark.slow
def test_fp32_gjk_close(vk, monkeypatch):
    """fp32 through the GJK/EPA entry point: MuJoCo's fromto models with GJK pairs and HF_XML,
    3 worlds after forward and 2 Euler steps, per sensor within FP32_GJK_TOL_DIST (distance) or
    FP32_GJK_TOL_POINTS (normal, fromto) of the fp64 CPU."""
    allow_convex(vk, monkeypatch)
    worst = (0.0, "")
    for name in CORPUS_GJK + ["HF_XML"]:
        if name == "HF_XML":
            model = load(HF_XML)
        else:
            with open(shared_model("mujoco", "test", "engine", "testdata", "sensor", name)) as f:
                model = load(f.read())
        q, inputs = batch(model, 3, 47)
        err, where = fp32_worst(
            vk, model, q, inputs, (2,),
            lambda t: FP32_GJK_TOL_DIST if t == SENS_GEOMDIST else FP32_GJK_TOL_POINTS)
        worst = max(worst, (err, f"{name} {where}"))
    print(f"\nfp32 GJK/EPA geom distance worst relative error {worst[0]:.3g} at {worst[1]}")
