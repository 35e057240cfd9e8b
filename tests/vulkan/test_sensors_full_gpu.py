# SPDX-License-Identifier: Apache-2.0
"""The sensors of the full sensor entry point (shaders/sensorfull.comp) against the CPU executor.

Touch, contact (every data field, the reduce options), joint and tendon limit sensors, camera
rangefinders and mj_rnePostConstraint with the constraint forces (accelerometer, force, torque
with contacts) are computed on the GPU by the same dialect code as on the CPU (csrc/kern/sensor.h,
sensor_ray.h); the executor dispatches sensorfull.comp instead of sensor.comp for models that
have them (px_sensorFullGPU). From identical states, several worlds per batch, `Vulkan.forward`
and `Vulkan.step` must equal the CPU bit for bit in fp64 (every data array, sensordata included,
and the constraint rows and contacts the sensors read); fp32 sensordata within FP32_TOL of the
fp64 CPU. The CPU's readings are MuJoCo's (tests/compat/test_sensor.py,
test_sensor_contact.py), so this ties the GPU's to MuJoCo's.

Every test is slow (`make gpu-check`): a cold lavapipe compiles the sensorfull pipeline alone
for over ten minutes on this machine kind, and the runs with constraint rows add the collision,
row and solver pipelines. The lightest, test_camera_rangefinder_no_rows_fp64, builds only the
forward and sensorfull pipelines: camera rangefinders (perspective and orthographic, over every
geom type) with the constraint stage disabled, where the row and contact sensors read zero rows
and contacts, as on the CPU.
"""

import os

import mujoco
import numpy as np
import pytest

import phalanx
from tests.conftest import fast_subset, shared_model
from tests.vulkan.test_constraint_gpu import assert_constraints, run_worlds
from tests.vulkan.test_step import EULER, RK4, assert_same, cpu_world, random_batch, same_bits

pytestmark = pytest.mark.gpu

OK, WHY = phalanx.vulkan_available()

# fp32 against the fp64 CPU, per sensor: ||gpu32 - cpu64|| / max(||cpu64||, 1) (readings near
# zero compared absolutely); camera rangefinders measured on lavapipe, see test_fp32_camera_close
FP32_TOL = 1e-3

DSBL_CONSTRAINT = int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)
ELLIPTIC = int(mujoco.mjtCone.mjCONE_ELLIPTIC)


def sensor_testdata(name):
    return shared_model("mujoco", "test", "engine", "testdata", "sensor", name)


# touch sites of every shape on bodies in contact, contact sensors with every data field and each
# reduce option (none, mindist, maxforce, netforce; site, geom, body and subtree matches), limit
# sensors of a hinge, a slide and a fixed tendon, and the sensors of mj_rnePostConstraint with the
# contact forces
ROWS_XML = """
<mujoco model="sensor_rows">
  <option timestep="0.005"/>
  <worldbody>
    <geom name="floor" type="plane" size="3 3 .1"/>
    <body name="ball" pos="0 0 .09">
      <freejoint/>
      <geom name="ballgeom" type="sphere" size=".1"/>
      <site name="balltouch" type="sphere" size=".12"/>
    </body>
    <body name="box" pos=".4 0 .04">
      <freejoint/>
      <geom name="boxgeom" type="box" size=".08 .06 .05"/>
      <site name="boxtouch" type="box" size=".09 .07 .06"/>
      <site name="boxbottom" type="capsule" size=".05 .06" pos="0 0 -.05" zaxis="1 0 0"/>
      <site name="boxell" type="ellipsoid" size=".1 .08 .07"/>
      <site name="boxcyl" type="cylinder" size=".1 .07"/>
    </body>
    <body name="arm" pos="-.5 0 .3">
      <joint name="hinge" type="hinge" axis="0 1 0" range="-30 30" limited="true"/>
      <geom name="armgeom" type="capsule" fromto="0 0 0 .2 0 -.2" size=".03"/>
      <body name="tip" pos=".2 0 -.2">
        <joint name="slide" type="slide" axis="1 0 0" range="-.05 .05" limited="true"/>
        <geom name="tipgeom" type="sphere" size=".05"/>
        <site name="tipsite" pos="0 0 0"/>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="fixed" limited="true" range="-.2 .3">
      <joint joint="hinge" coef="1"/>
      <joint joint="slide" coef="2"/>
    </fixed>
  </tendon>
  <sensor>
    <touch site="balltouch"/>
    <touch site="boxtouch"/>
    <touch site="boxbottom"/>
    <touch site="boxell"/>
    <touch site="boxcyl"/>
    <contact name="all"/>
    <contact geom1="ballgeom" data="found force torque dist pos normal tangent" num="3"/>
    <contact body1="box" body2="world" data="found force normal" num="4" reduce="mindist"/>
    <contact body1="box" data="force torque" num="2" reduce="maxforce"/>
    <contact subtree1="arm" data="found force torque pos normal tangent" reduce="netforce"/>
    <contact site="boxtouch" data="found dist" num="2"/>
    <contact geom2="floor" data="force" num="3"/>
    <jointlimitpos joint="hinge"/>
    <jointlimitvel joint="hinge"/>
    <jointlimitfrc joint="hinge"/>
    <jointlimitpos joint="slide"/>
    <jointlimitvel joint="slide"/>
    <jointlimitfrc joint="slide"/>
    <tendonlimitpos tendon="fixed"/>
    <tendonlimitvel tendon="fixed"/>
    <tendonlimitfrc tendon="fixed"/>
    <accelerometer site="tipsite"/>
    <force site="boxtouch"/>
    <torque site="balltouch"/>
    <framelinacc objtype="body" objname="box"/>
  </sensor>
</mujoco>
"""

# camera rangefinders (MuJoCo's test model: a perspective and an orthographic camera over a
# height field, a mesh and every primitive) with the row and contact sensors of ROWS_XML added
RFCAMERA = sensor_testdata("rfcamera.xml")


def rfcamera_xml():
    with open(RFCAMERA) as f:
        xml = f.read()
    extra = """
    <body name="probe" pos="0 0 3">
      <joint name="pj" type="slide" axis="0 0 1" range="-.1 .1" limited="true"/>
      <geom type="sphere" size=".05"/>
      <site name="probesite" type="sphere" size=".06"/>
    </body>
  </worldbody>"""
    sensors = """<sensor>
    <touch site="probesite"/>
    <contact name="all" data="found force"/>
    <jointlimitpos joint="pj"/>
    <jointlimitvel joint="pj"/>
    <jointlimitfrc joint="pj"/>
    <accelerometer site="probesite"/>
    <rangefinder camera="perspective" data="dist dir origin point normal depth"/>"""
    xml = xml.replace("</worldbody>", extra, 1).replace("<sensor>", sensors, 1)
    # the meshes and height field resolve from the model's folder
    return xml.replace("<asset>", '<compiler meshdir="%s"/><asset>' % os.path.dirname(RFCAMERA), 1)


@pytest.fixture(scope="module")
def vk():
    if not OK:
        pytest.skip(f"no Vulkan device: {WHY}")
    # a cold lavapipe compiles the collision and constraint pipelines inside the first call's
    # fence wait: more than the default 600 s on this shared 2-core machine
    os.environ.setdefault("PX_VULKAN_TIMEOUT_S", "3600")
    v = phalanx.Vulkan(validation=2)
    if not v.fp64:
        pytest.skip(f"{v.device} has no shaderFloat64")
    return v


def rows_model(cone=None, integrator=EULER):
    model = phalanx.Model.from_xml_string(ROWS_XML)
    if cone is not None:
        model.opt.cone = cone
    model.opt.integrator = integrator
    return model


def readings(model, data, types):
    """The sensordata of the sensors of the given types (mjtSensor values)."""
    out = []
    for i in range(model.nsensor):
        if model.sensor_type[i] in types:
            a, n = model.sensor_adr[i], model.sensor_dim[i]
            out.append(np.asarray(data.sensordata[a:a + n]))
    return np.concatenate(out)


ROW_TYPES = [int(t) for t in (
    mujoco.mjtSensor.mjSENS_TOUCH, mujoco.mjtSensor.mjSENS_CONTACT,
    mujoco.mjtSensor.mjSENS_JOINTLIMITPOS, mujoco.mjtSensor.mjSENS_JOINTLIMITFRC,
    mujoco.mjtSensor.mjSENS_TENDONLIMITPOS, mujoco.mjtSensor.mjSENS_TENDONLIMITFRC)]


@pytest.mark.slow
def test_camera_rangefinder_no_rows_fp64(vk):
    """Camera rangefinders bit-equal to the CPU (forward and 2 steps), with the constraint stage
    disabled: the touch, contact and limit sensors read no rows and no contacts (zeros, as on the
    CPU), and mj_rnePostConstraint has no constraint force."""
    model = phalanx.Model.from_xml_string(rfcamera_xml())
    assert model.nsensor == 9
    model.opt.disableflags = model.opt.disableflags | DSBL_CONSTRAINT
    q, inputs = random_batch(model, 3, np.random.default_rng(31))
    out = vk.forward(model, q, **inputs)
    hits = 0
    for w in range(3):
        data = cpu_world(model, q, inputs, w)
        phalanx.forward(model, data)
        assert_same(out, data, w, "forward")
        rf = model.nsensor - 1  # 14 numbers per ray: dist first
        a = model.sensor_adr[rf]
        hits += int(np.sum(data.sensordata[a:a + model.sensor_dim[rf]:14] >= 0))
    assert hits > 0, "no ray hit: nothing compared"
    time = np.array([0.0, 0.5, 1.0])
    out = vk.step(model, q, nstep=2, time=time, **inputs)
    for w in range(3):
        data = cpu_world(model, q, inputs, w, time[w])
        for _ in range(2):
            phalanx.step(model, data)
        assert_same(out, data, w, "2 steps")
    assert vk.validation_messages == 0


def check_rows(vk, model, nworld, seed, nstep, lanes=1, states=None):
    """states: (q, inputs) to start from, else random_batch's."""
    if states is None:
        states = random_batch(model, nworld, np.random.default_rng(seed))
    q, inputs = states
    runs = run_worlds(vk, vk.forward, model, q, inputs, lanes=lanes)
    nonzero = False
    for w, (out, i) in runs.items():
        data = cpu_world(model, q, inputs, w)
        phalanx.forward(model, data)
        assert_constraints(out, data, i, f"forward, {lanes} lanes, world {w}")
        nonzero |= bool(np.any(readings(model, data, ROW_TYPES) != 0))
    assert nonzero, "every row and contact reading is zero: nothing compared"
    runs = run_worlds(vk, vk.step, model, q, inputs, nstep=nstep, lanes=lanes)
    for w, (out, i) in runs.items():
        data = cpu_world(model, q, inputs, w)
        for _ in range(nstep):
            phalanx.step(model, data)
        assert_constraints(out, data, i, f"{nstep} steps, {lanes} lanes, world {w}")
        assert same_bits(out["time"][i], np.float64(data.time)), f"time of world {w}"
    assert vk.validation_messages == 0


# a cold lavapipe cache compiles the collision, rows and primal-solver pipelines: many minutes
@pytest.mark.slow
@pytest.mark.parametrize("cone", ["pyramidal", "elliptic", "elliptic-cg", "elliptic-pgs-noslip"])
def test_rows_fp64(vk, cone):
    """Touch, contact, limit and rnePostConstraint sensors with contacts and limits, forward and 2
    steps, pyramidal and elliptic cones (mj_contactForce's two decodings): Newton, and with
    elliptic cones CG (the cone's line search reaches pxk_svBracket's bracketing) and PGS with
    noslip (the QCQP friction update of pxk_pgElliptic and of noslip)."""
    model = rows_model(None if cone == "pyramidal" else ELLIPTIC)
    if cone == "elliptic-cg":
        model.opt.solver = int(mujoco.mjtSolver.mjSOL_CG)
    if cone == "elliptic-pgs-noslip":
        model.opt.solver = int(mujoco.mjtSolver.mjSOL_PGS)
        model.opt.noslip_iterations = 10
    check_rows(vk, model, 3, 32, 2)


@pytest.mark.slow
def test_rows_lanes_fp64(vk):
    """The sensorfull pass with 4 lanes per world (the narrow phase and constraint stage run on
    one lane whatever the lanes, the forward and sensor passes on four): touch, contact, limit and
    rnePostConstraint sensors with contacts and limits, forward and 2 steps, bit-equal (passed on
    lavapipe: 14m13s with the 4-lane pipelines built cold, GALLIVM_PERF=nopt)."""
    check_rows(vk, rows_model(), 2, 35, 2, lanes=4)


# MuJoCo's contact sensor test models (primitive collision)
CORPUS = ["contact.xml", "contact_net.xml", "contact_sorted.xml", "contact_subtree_partial.xml"]


@pytest.mark.slow
@fast_subset(lambda name: False)
@pytest.mark.parametrize("name", CORPUS)
def test_corpus_fp64(vk, name):
    """MuJoCo's contact sensor models (--full), RK4: forward and 2 steps from 2 states of
    MuJoCo's own trajectory (random states rarely put contact_net.xml's bodies in contact)."""
    model = phalanx.Model.from_xml_path(sensor_testdata(name))
    model.opt.integrator = RK4
    check_rows(vk, model, 2, 33, 2, states=trajectory_states(sensor_testdata(name), (150, 300)))


def trajectory_states(path, steps):
    """(q, inputs) of the states after the given numbers of mj_step from the model's reference
    pose (MuJoCo, unforced)."""
    mm = mujoco.MjModel.from_xml_path(path)
    md = mujoco.MjData(mm)
    q, v = [], []
    for k in range(max(steps) + 1):
        if k in steps:
            q.append(md.qpos.copy())
            v.append(md.qvel.copy())
        mujoco.mj_step(mm, md)
    return np.array(q), {"qvel": np.array(v)}


def sensor_errors(model, gpu, cpu):
    """Per sensor: ||gpu - cpu|| / max(||cpu||, 1), with the sensor's index."""
    errs = []
    for i in range(model.nsensor):
        a, n = model.sensor_adr[i], model.sensor_dim[i]
        g, c = np.asarray(gpu[a:a + n], float), np.asarray(cpu[a:a + n], float)
        errs.append((np.linalg.norm(g - c) / max(np.linalg.norm(c), 1.0), i))
    return errs


def fp32_worst(vk, label, model, seed):
    """The worst per-sensor error of fp32 sensordata after forward against the fp64 CPU over 3
    worlds (those whose fp32 contact and row counts match the CPU's), each within FP32_TOL."""
    worst = (0.0, "")
    q, inputs = random_batch(model, 3, np.random.default_rng(seed))
    out = vk.forward(model, q, precision="fp32", **inputs)
    for w in range(3):
        data = cpu_world(model, q, inputs, w)
        phalanx.forward(model, data)
        rows = "ncon" in out  # a model with constraint rows: the contacts and counts too
        if rows and (out["ncon"][w] != data.ncon or out["efc_n"][w][0] != data.nefc):
            continue  # another contact or row set in fp32: readings not comparable
        for err, i in sensor_errors(model, out["sensordata"][w], data.sensordata):
            where = f"{label} world {w} sensor {i} (type {model.sensor_type[i]})"
            worst = max(worst, (err, where))
            assert err <= FP32_TOL, f"{where}: {err:.2g}"
    print(f"\nfp32 sensordata worst relative error {worst[0]:.3g} at {worst[1]}")
    assert worst[1], "no world compared"
    assert vk.validation_messages == 0


@pytest.mark.slow
def test_fp32_camera_close(vk):
    """fp32 camera rangefinders (and the zero row sensors) after forward, the constraint stage
    disabled: per sensor within FP32_TOL of the fp64 CPU (measured on lavapipe: at most 3.5e-7,
    the accelerometer; ray distances within 2.2e-7, the same hits; docs/sensors.md)."""
    cam = phalanx.Model.from_xml_string(rfcamera_xml())
    cam.opt.disableflags = cam.opt.disableflags | DSBL_CONSTRAINT
    fp32_worst(vk, "rfcamera", cam, 34)


@pytest.mark.slow
def test_fp32_rows_close(vk):
    """fp32 row and contact sensors after a forward pass with contacts and limits, in the worlds
    whose fp32 contact and row counts match the CPU's: per sensor within FP32_TOL.

    Measured on lavapipe: worst 1.11e-4 (world 2, a force sensor), 3 worlds compared (14m37s
    with its fp32 pipelines built cold). Before the pxk_svBracket fix (docs/gpu_executor.md,
    "Elliptic cones": an out array copied back undefined) this failed: the fp32 Newton solve of
    world 1 stopped at 0 iterations and its touch sensor read 98024 against the CPU's 1352."""
    fp32_worst(vk, "rows", rows_model(), 34)
