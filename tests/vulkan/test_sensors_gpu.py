# SPDX-License-Identifier: Apache-2.0
"""The sensor stages on the Vulkan executor (shaders/sensor.comp) against the CPU executor.

From identical states, several worlds per batch: `Vulkan.forward` must equal `phalanx.forward`
and `Vulkan.step(nstep=...)` repeated `phalanx.step`, every data array (sensordata, the energy
bookkeeping, the lazily computed subtree velocities and mj_rnePostConstraint's cacc, cfrc_int,
cfrc_ext) bit for bit in fp64, with 1 lane and with several; fp32 sensordata within FP32_TOL of
the fp64 CPU per sensor. The CPU's readings are MuJoCo's (tests/compat/test_sensor.py), so this
ties the GPU's to MuJoCo's.

Models: tests/compat/models/sensors_all.xml with the sensor types of the other entry points
removed at load time (REMOVED: the full sensor entry point's touch, camera rangefinders, contact
and limit sensors, tests/vulkan/test_sensors_full_gpu.py; the geom distance sensors' pass,
tests/vulkan/test_sensor_dist_gpu.py), so that it dispatches shaders/sensor.comp alone; a small
model of the energy, clock and user sensors with and without the energy flag (own, below), site
rangefinders over every geom type with every data field (RF_SITE of
tests/compat/test_sensor_contact.py, which ties the CPU's readings to MuJoCo's), and corpus
models with sensors (`--full` adds more); constraints disabled (contact-dependent readings are
test_sensors_full_gpu.py's).
"""

import os
import re

import mujoco
import numpy as np
import pytest

import phalanx
from tests.compat.test_sensor_contact import RF_SITE
from tests.conftest import SHARED_MODELS, shared_model
from tests.vulkan.test_step import (EULER, IMPLICIT, IMPLICITFAST, INTEGRATOR, RK4, assert_same,
                                    cpu_world, random_batch, same_bits)

pytestmark = pytest.mark.gpu

OK, WHY = phalanx.vulkan_available()

HERE = os.path.dirname(os.path.abspath(__file__))
SENSORS_ALL = os.path.join(HERE, "..", "compat", "models", "sensors_all.xml")

# removed from the models of these runs, so that they dispatch shaders/sensor.comp: the types of
# the full sensor entry point (shaders/sensorfull.comp, tests/vulkan/test_sensors_full_gpu.py:
# touch, camera rangefinders, contact, limit sensors) and the geom distance sensors (their own
# entry points, tests/vulkan/test_sensor_dist_gpu.py). Every type runs on the GPU
# (px_sensorCheckGPU refuses none)
REMOVED = ("touch", "rangefinder", "contact", "jointlimitpos", "jointlimitvel", "jointlimitfrc",
           "tendonlimitpos", "tendonlimitvel", "tendonlimitfrc", "distance", "normal", "fromto")
REMOVED_RE = re.compile(r"<(%s)\b[^>]*/>" % "|".join(REMOVED), re.S)

# energy, clock and user sensors (every stage), cutoffs, subtree and acceleration sensors on a
# small chain with joint and tendon springs (so that e_potential has every term)
ENERGY_XML = """
<mujoco model="sensor_energy">
  <option timestep="0.004"/>
  <worldbody>
    <body name="a" pos="0 0 1">
      <joint name="h1" type="hinge" axis="0 1 0" stiffness="3" springref=".2" damping=".05"/>
      <geom type="capsule" fromto="0 0 0 .3 0 0" size=".04"/>
      <site name="sa" pos=".3 0 0"/>
      <body name="b" pos=".3 0 0">
        <joint name="h2" type="hinge" axis="1 0 0" stiffness="1"/>
        <joint name="s2" type="slide" axis="0 0 1" stiffness="5"/>
        <geom type="box" size=".05 .04 .03" pos="0 0 -.1"/>
        <site name="sb" pos="0 0 -.2"/>
      </body>
    </body>
    <body name="f" pos="1 0 1">
      <freejoint/>
      <geom type="sphere" size=".1"/>
      <site name="sf" pos=".05 0 0"/>
    </body>
  </worldbody>
  <tendon>
    <spatial name="t" stiffness="4" springlength=".2 .35">
      <site site="sa"/>
      <site site="sf"/>
    </spatial>
  </tendon>
  <actuator>
    <motor name="m1" joint="h1" gear="2"/>
    <motor name="mt" tendon="t"/>
  </actuator>
  <sensor>
    <e_potential name="pot"/>
    <e_kinetic name="kin"/>
    <clock name="clk" cutoff="0.01"/>
    <user name="upos" dim="2" needstage="pos"/>
    <user name="uvel" dim="1" needstage="vel"/>
    <user name="uacc" dim="3" needstage="acc"/>
    <subtreecom body="a"/>
    <subtreelinvel body="a" cutoff=".3"/>
    <subtreeangmom body="f"/>
    <accelerometer site="sb" cutoff="5"/>
    <force site="sf"/>
    <torque site="sb"/>
    <framelinacc objtype="site" objname="sf"/>
    <frameangvel objtype="body" objname="b" reftype="site" refname="sf"/>
    <tendonpos tendon="t"/>
    <tendonvel tendon="t"/>
    <tendonactuatorfrc tendon="t"/>
    <actuatorfrc actuator="mt" cutoff=".5"/>
  </sensor>
</mujoco>
"""

# the energy sensors present (both, only e_kinetic, only e_potential): the bookkeeping of energy
# differs in each
ENERGY_VARIANTS = {
    "both": ENERGY_XML,
    "kinetic": ENERGY_XML.replace('<e_potential name="pot"/>', ""),
    "potential": ENERGY_XML.replace('<e_kinetic name="kin"/>', ""),
}

# (model loader name, integrator) of the fast suite; --full adds corpus models
FAST = [
    ("sensors_all", EULER),
    ("sensors_all", RK4),
    ("energy:both", IMPLICITFAST),
    ("energy:kinetic", RK4),
    ("energy:potential", EULER),
    ("rf_site", EULER),
]
FULL = FAST + [
    ("rf_site", RK4),
    ("sensors_all", IMPLICIT),
    ("energy:both", EULER),
    ("energy:both", RK4),
    ("energy:kinetic", IMPLICIT),
    ("energy:potential", IMPLICITFAST),
    (shared_model("mujoco", "model", "car", "car.xml"), EULER),
    (shared_model("mujoco", "test", "engine", "testdata", "sensor", "camprojection.xml"), EULER),
    (shared_model("mujoco", "test", "engine", "testdata", "sensor", "insidesite.xml"), RK4),
    (shared_model("mujoco", "test", "engine", "testdata", "core_smooth", "ten_armature_4.xml"),
     IMPLICITFAST),
    (shared_model("mujoco", "test", "engine", "testdata", "core_smooth", "rne_post", "connect",
                  "force_free.xml"), EULER),
]

# fp32 against the fp64 CPU, per sensor: ||gpu32 - cpu64|| / max(||cpu64||, 1) (readings near
# zero compared absolutely); measured on lavapipe, see test_fp32_close
FP32_TOL = 5e-5

DSBL_CONSTRAINT = int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)
ENBL_ENERGY = int(mujoco.mjtEnableBit.mjENBL_ENERGY)


def case_id(case):
    name, integrator = case
    if os.path.isabs(name):
        name = os.path.relpath(name, SHARED_MODELS)
    return f"{name}-{INTEGRATOR[integrator]}"


def pytest_generate_tests(metafunc):
    if "case" in metafunc.fixturenames:
        cases = FULL if metafunc.config.getoption("--full") else FAST
        metafunc.parametrize("case", cases, ids=[case_id(c) for c in cases])


@pytest.fixture(scope="module")
def vk():
    if not OK:
        pytest.skip(f"no Vulkan device: {WHY}")
    return phalanx.Vulkan(validation=2)


def gpu_xml(path):
    """The model's XML with the sensor types of REMOVED removed."""
    with open(path) as f:
        return REMOVED_RE.sub("", f.read())


def load(name, integrator, energy=None):
    if name == "sensors_all":
        model = phalanx.Model.from_xml_string(gpu_xml(SENSORS_ALL))
    elif name == "rf_site":
        model = phalanx.Model.from_xml_string(RF_SITE)
    elif name.startswith("energy:"):
        model = phalanx.Model.from_xml_string(ENERGY_VARIANTS[name[7:]])
    else:
        # corpus models, read in place (their meshes and includes resolve from their folder)
        model = phalanx.Model.from_xml_path(name)
    assert model.nsensor > 0
    model.opt.disableflags = model.opt.disableflags | DSBL_CONSTRAINT
    model.opt.integrator = integrator
    if energy is None:  # the energy flag on some cases, off on others
        energy = integrator in (IMPLICITFAST, RK4)
    if energy:
        model.opt.enableflags = model.opt.enableflags | ENBL_ENERGY
    else:
        model.opt.enableflags = model.opt.enableflags & ~ENBL_ENERGY
    return model


def check_forward(vk, model, q, inputs, lanes=1):
    out = vk.forward(model, q, lanes=lanes, **inputs)
    nonzero = False
    for w in range(q.shape[0]):
        data = cpu_world(model, q, inputs, w)
        phalanx.forward(model, data)
        nonzero |= bool(np.any(data.sensordata != 0))
        assert_same(out, data, w, f"forward, {lanes} lanes")
    assert nonzero, "every reading is zero: nothing compared"


def check_step(vk, model, q, inputs, nstep, lanes=1):
    time = np.linspace(0.0, 1.75, q.shape[0])
    out = vk.step(model, q, nstep=nstep, time=time, lanes=lanes, **inputs)
    for w in range(q.shape[0]):
        data = cpu_world(model, q, inputs, w, time[w])
        for _ in range(nstep):
            phalanx.step(model, data)
        assert_same(out, data, w, f"{nstep} steps, {lanes} lanes")
        assert same_bits(out["time"][w], np.float64(data.time)), f"time of world {w}"


def test_forward_step_fp64_bitwise(vk, case):
    if not vk.fp64:
        pytest.skip(f"{vk.device} has no shaderFloat64")
    model = load(*case)
    q, inputs = random_batch(model, 3, np.random.default_rng(21))
    check_forward(vk, model, q, inputs)
    check_step(vk, model, q, inputs, nstep=3)
    assert vk.validation_messages == 0


def test_one_world_and_flags(vk):
    """One world; the energy flag on and off on the same model; the sensor flag disabled (no
    sensor dispatch: sensordata untouched, as on the CPU)."""
    if not vk.fp64:
        pytest.skip(f"{vk.device} has no shaderFloat64")
    for energy in (False, True):
        model = load("energy:both", EULER, energy=energy)
        q, inputs = random_batch(model, 1, np.random.default_rng(22))
        check_forward(vk, model, q, inputs)
        check_step(vk, model, q, inputs, nstep=2)
    model.opt.disableflags = model.opt.disableflags | int(mujoco.mjtDisableBit.mjDSBL_SENSOR)
    out = vk.step(model, q, nstep=2, **inputs)
    data = cpu_world(model, q, inputs, 0)
    for _ in range(2):
        phalanx.step(model, data)
    assert_same(out, data, 0, "sensor disabled")
    assert not np.any(out["sensordata"])
    assert vk.validation_messages == 0


def test_autoreset_bitwise(vk):
    """A bad acceleration resets the world after forward; forward and its sensors run again (the
    step's second pass, on the flagged worlds only), with energy[1] as the reset left it."""
    if not vk.fp64:
        pytest.skip(f"{vk.device} has no shaderFloat64")
    model = load("energy:both", RK4)
    q, inputs = random_batch(model, 3, np.random.default_rng(23))
    inputs["qfrc_applied"][1, 0] = 1e13  # finite state, acceleration beyond 1e10
    inputs["qvel"][2, 1] = np.nan  # bad velocity: reset before forward
    check_step(vk, model, q, inputs, nstep=2)
    assert vk.validation_messages == 0


# more lanes compile another pipeline set (minutes on a cold lavapipe cache)
@pytest.mark.slow
@pytest.mark.parametrize("lanes", [4, 32])
def test_lanes_bitwise(vk, lanes):
    if not vk.fp64:
        pytest.skip(f"{vk.device} has no shaderFloat64")
    for name, integrator in (("sensors_all", RK4), ("energy:both", IMPLICITFAST),
                             ("energy:kinetic", EULER)):
        model = load(name, integrator)
        q, inputs = random_batch(model, 2, np.random.default_rng(24))
        check_forward(vk, model, q, inputs, lanes=lanes)
        check_step(vk, model, q, inputs, nstep=2, lanes=lanes)
    assert vk.validation_messages == 0


def sensor_errors(model, gpu, cpu):
    """Per sensor: ||gpu - cpu|| / max(||cpu||, 1), with the sensor's name or index."""
    errs = []
    for i in range(model.nsensor):
        a, n = model.sensor_adr[i], model.sensor_dim[i]
        g, c = np.asarray(gpu[a:a + n], float), np.asarray(cpu[a:a + n], float)
        errs.append((np.linalg.norm(g - c) / max(np.linalg.norm(c), 1.0), i))
    return errs


@pytest.mark.slow
def test_fp32_close(vk, full):
    """fp32 sensordata against the fp64 CPU after forward and after 1 and 3 steps, per sensor
    within FP32_TOL (measured on lavapipe: at most 9.3e-6, the accelerometer of sensors_all after 3
    Euler steps, the same with --full; see docs/gpu_executor.md)."""
    worst = (0.0, "")
    for name, integrator in FULL if full else FAST:
        model = load(name, integrator)
        q, inputs = random_batch(model, 3, np.random.default_rng(25))
        for nstep in (0, 1, 3):
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
                for err, i in sensor_errors(model, out["sensordata"][w], data.sensordata):
                    where = f"{case_id((name, integrator))} {nstep} steps sensor {i} " \
                            f"(type {model.sensor_type[i]})"
                    worst = max(worst, (err, where))
                    assert err <= FP32_TOL, f"{where}: {err:.2g}"
    print(f"\nfp32 sensordata worst relative error {worst[0]:.3g} at {worst[1]}")
    assert vk.validation_messages == 0


