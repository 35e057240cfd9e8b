# SPDX-License-Identifier: Apache-2.0
"""Actuator and sensor history buffers (nsample, delay, interval, interp) on the Vulkan executor
against the CPU executor.

The buffers are kernel-dialect code (csrc/kern/history.h, sensor_history.h) that both executors
run: the delayed controls in the actuation stage, the sensors read from their buffers in the
sensor stages, the buffers of a world reset, and mj_advance's history update (the sensor entry
point's mode 4, before the integrator's advance; with RK4 between the restore of the initial
state and the advance, shaders/rk4.comp modes 4 and 5). From identical states, several worlds per batch, several steps
(so that the delayed controls and sensors read samples the GPU wrote): every data array, Data's
history included, bit for bit in fp64; fp32 sensordata and history within FP32_TOL of the fp64
CPU. The CPU's buffers are MuJoCo's (tests/compat/test_history.py), so this ties the GPU's to
MuJoCo's.

Models: MuJoCo's test/testdata/delay.xml, tests/compat/models/history_all.xml (delayed controls
with zero-order hold, linear and cubic interpolation, a delayed filter actuator, interval and
phased sensors of the three stages) without the sensor types the GPU refuses, and
tests/compat/models/history_energy.xml (delayed sensors that need MuJoCo's lazy quantities), with
the energy flag on and off; constraints disabled, as in the other step tests.
"""

import os

import mujoco
import numpy as np
import pytest

import phalanx
from tests.conftest import shared_model
from tests.vulkan.test_sensors_gpu import REMOVED_RE
from tests.vulkan.test_step import (EULER, IMPLICIT, IMPLICITFAST, INTEGRATOR, RK4, assert_same,
                                    cpu_world, random_batch, same_bits)

pytestmark = pytest.mark.gpu

OK, WHY = phalanx.vulkan_available()

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = {
    "delay": shared_model("mujoco", "test", "testdata", "delay.xml"),
    "history_all": os.path.join(HERE, "..", "compat", "models", "history_all.xml"),
    "history_energy": os.path.join(HERE, "..", "compat", "models", "history_energy.xml"),
}

DSBL_CONSTRAINT = int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)
DSBL_SENSOR = int(mujoco.mjtDisableBit.mjDSBL_SENSOR)
ENBL_ENERGY = int(mujoco.mjtEnableBit.mjENBL_ENERGY)

# fp32 against the fp64 CPU, per sensor and for the whole history array:
# ||gpu32 - cpu64|| / max(||cpu64||, 1); measured on lavapipe (test_fp32_close, RK4 cases
# included): worst 1.89e-6 at history_all-rk4-noenergy world 0 sensor 6 (force_int, interval and
# delay; 1.01e-6 without the RK4 cases); bound 1e-5
FP32_TOL = 1e-5

# (model, integrator, energy flag) of the fast suite; the slow one adds the rest
FAST = [("delay", EULER, False), ("history_energy", IMPLICITFAST, True),
        ("history_energy", RK4, False)]
SLOW = [("delay", IMPLICIT, True), ("history_all", EULER, False),
        ("history_all", IMPLICITFAST, True), ("history_energy", EULER, False),
        ("delay", RK4, True), ("history_all", RK4, False), ("history_energy", RK4, True)]


@pytest.fixture(scope="module")
def vk():
    if not OK:
        pytest.skip(f"no Vulkan device: {WHY}")
    return phalanx.Vulkan(validation=2)


def load(name, integrator, energy, disable=0):
    with open(MODELS[name]) as f:
        xml = REMOVED_RE.sub("", f.read())
    model = phalanx.Model.from_xml_string(xml)
    assert model.nhistory > 0
    model.opt.disableflags = model.opt.disableflags | DSBL_CONSTRAINT | disable
    model.opt.integrator = integrator
    if energy:
        model.opt.enableflags = model.opt.enableflags | ENBL_ENERGY
    else:
        model.opt.enableflags = model.opt.enableflags & ~ENBL_ENERGY
    return model


def check(vk, model, nworld, nstep, seed, lanes=1):
    q, inputs = random_batch(model, nworld, np.random.default_rng(seed))
    inputs["qvel"] *= 0.3
    # the worlds start at different times (the interval clocks and the delayed reads see them)
    time = np.linspace(0.0, 0.0375, nworld)
    out = vk.step(model, q, nstep=nstep, time=time, lanes=lanes, **inputs)
    moved = False
    for w in range(nworld):
        data = cpu_world(model, q, inputs, w, time[w])
        h0 = data.history.copy()
        for _ in range(nstep):
            phalanx.step(model, data)
        moved |= not np.array_equal(h0, data.history)
        assert_same(out, data, w, f"{nstep} steps, {lanes} lanes")
        assert same_bits(out["time"][w], np.float64(data.time)), f"time of world {w}"
    assert moved, "no history buffer changed: nothing compared"


def check_forward(vk, model, nworld, seed):
    q, inputs = random_batch(model, nworld, np.random.default_rng(seed))
    out = vk.forward(model, q, **inputs)
    for w in range(nworld):
        data = cpu_world(model, q, inputs, w, 0.0)
        phalanx.forward(model, data)
        assert_same(out, data, w, "forward")


def case_id(case):
    name, integrator, energy = case
    return f"{name}-{INTEGRATOR[integrator]}-{'energy' if energy else 'noenergy'}"


@pytest.mark.parametrize("case", FAST, ids=[case_id(c) for c in FAST])
def test_step_fp64_bitwise(vk, case):
    if not vk.fp64:
        pytest.skip(f"{vk.device} has no shaderFloat64")
    model = load(*case)
    check_forward(vk, model, 2, 30)
    check(vk, model, 3, 12, 31)
    assert vk.validation_messages == 0


@pytest.mark.slow
@pytest.mark.parametrize("case", SLOW, ids=[case_id(c) for c in SLOW])
def test_step_fp64_bitwise_more(vk, case):
    if not vk.fp64:
        pytest.skip(f"{vk.device} has no shaderFloat64")
    model = load(*case)
    check(vk, model, 3, 12, 32)
    assert vk.validation_messages == 0


@pytest.mark.slow
def test_lanes_bitwise(vk):
    if not vk.fp64:
        pytest.skip(f"{vk.device} has no shaderFloat64")
    model = load("history_energy", EULER, True)
    check(vk, model, 2, 8, 33, lanes=4)
    assert vk.validation_messages == 0


@pytest.mark.slow
def test_fp32_close(vk):
    """fp32 sensordata (per sensor) and history (whole array) after 12 steps within FP32_TOL of
    the fp64 CPU (measured on lavapipe: see FP32_TOL).

    The worlds start off the interval grid (times 0.0013 + k 0.0011): an interval sensor whose
    next sample is due exactly at a step's time (its clock k * interval equal to the accumulated
    time, as with a start at 0 and an interval a multiple of the timestep) is a tie that each
    precision breaks by its own last bit (`due <= time`, no tolerance in MuJoCo either), so the
    fp32 sensor may sample one step later or earlier than the fp64 one; that is fp32's
    resolution, not compared here. Delays that are multiples of the timestep stay: a read at a
    sample's time finds that sample in fp32 too (csrc/kern/history.h, PXK_HIST_MINVAL)."""
    worst = (0.0, "")
    bad = []
    for name, integrator, energy in FAST + SLOW:
        model = load(name, integrator, energy)
        q, inputs = random_batch(model, 3, np.random.default_rng(34))
        inputs["qvel"] *= 0.3
        time = 0.0013 + 0.0011 * np.arange(3)
        out = vk.step(model, q, nstep=12, time=time, precision="fp32", **inputs)
        for w in range(3):
            data = cpu_world(model, q, inputs, w, time[w])
            for _ in range(12):
                phalanx.step(model, data)
            errs = []
            for i in range(model.nsensor):
                a, n = model.sensor_adr[i], model.sensor_dim[i]
                g = np.asarray(out["sensordata"][w][a:a + n], float)
                c = data.sensordata[a:a + n]
                errs.append((np.linalg.norm(g - c) / max(np.linalg.norm(c), 1.0), f"sensor {i}"))
            g, c = np.asarray(out["history"][w], float), data.history
            errs.append((np.linalg.norm(g - c) / max(np.linalg.norm(c), 1.0), "history"))
            for err, what in errs:
                where = f"{case_id((name, integrator, energy))} world {w} {what}"
                worst = max(worst, (err, where))
                if not err <= FP32_TOL:
                    bad.append(f"{where}: {err:.2g}")
    print(f"\nfp32 history worst relative error {worst[0]:.3g} at {worst[1]}")
    assert not bad, "; ".join(bad)
    assert vk.validation_messages == 0


@pytest.mark.parametrize("case", FAST, ids=[case_id(c) for c in FAST])
def test_sensors_disabled_fp64_bitwise(vk, case):
    """With the sensor flag off the forward passes compute no sensors, but the history update
    still takes samples of the sensors with a buffer (the delayed ones computed again at the
    current state, with the lazy quantities they need): the same bits as the CPU, whose
    buffers tests/compat/test_history.py compares with MuJoCo's in this mode."""
    if not vk.fp64:
        pytest.skip(f"{vk.device} has no shaderFloat64")
    model = load(*case, disable=DSBL_SENSOR)
    check(vk, model, 3, 12, 35)
    assert vk.validation_messages == 0
