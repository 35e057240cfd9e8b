# SPDX-License-Identifier: Apache-2.0
"""The geom distance sensors (distance, normal, fromto) on the Vulkan executor against the CPU
executor.

They run in their own sensor entry points (shaders/sensor_main.glsl, with every sensor of
sensorfull.comp too): sensor_distprim.comp, with the primitive narrow-phase routines, for models
whose sensor pairs need nothing more, and sensor_dist.comp, with GJK/EPA and height fields, which
a CPU Vulkan device (lavapipe) refuses as pxv_collision refuses its convex pipeline (unless
PX_GPU_CONVEX=1). The runs are slow (`make gpu-check`: the entry points are built at -O0 and a
cold lavapipe compiles them for tens of minutes); the refusal test is fast. From identical states,
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
from tests.vulkan.test_step import EULER, IMPLICITFAST, assert_same, random_batch, same_bits

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


def cpu_world(model, q, inputs, w, time=0.0):
    data = phalanx.Data(model)
    data.qpos[:] = q[w]
    for name, v in inputs.items():
        getattr(data, name)[:] = v[w]
    data.time = time
    return data


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


@pytest.mark.slow
def test_fp32_close(vk):
    """fp32 sensordata after forward and 4 steps within FP32_TOL of the fp64 CPU per sensor
    (measured on lavapipe: worst 2.51e-7 at 4 steps world 1 sensor 4; 14m06s with the fp32
    sensor_distprim pipeline built cold, GALLIVM_PERF=nopt)."""
    model = load()
    q, inputs = batch(model, 3, 43)
    worst = (0.0, "")
    for nstep in (0, 4):
        if nstep == 0:
            out = vk.forward(model, q, precision="fp32", **inputs)
        else:
            out = vk.step(model, q, nstep=nstep, precision="fp32", **inputs)
        for w in range(3):
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
                where = f"{nstep} steps world {w} sensor {i}"
                worst = max(worst, (err, where))
                assert err <= FP32_TOL, f"{where}: {err:.2g}"
    print(f"\nfp32 geom distance worst relative error {worst[0]:.3g} at {worst[1]}")
    assert vk.validation_messages == 0


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
