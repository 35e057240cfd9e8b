# SPDX-License-Identifier: Apache-2.0
"""The forward and step phases of the Vulkan executor against the CPU executor.

From identical states (random joint positions with unnormalized quaternions, velocities, applied
forces, times), several worlds per batch: `Vulkan.forward` must equal `phalanx.forward` and
`Vulkan.step(nstep=...)` must equal repeated `phalanx.step`, every data array and the time bit
for bit in fp64 (signs of zero included), with 1 lane and with several lanes per world; fp32
must stay within the stated tolerances of the fp64 CPU result. The validation layer stays
silent. Every smooth stage runs (passive forces, actuation with random controls and
activations, tendon armature bias, energy where the case enables it) with the four
integrators; constraints are disabled here (tests/vulkan/test_constraint_gpu.py runs the
constraint stage). The warning counters of the bad-value checks are compared like every other
array.

Runs on whatever Vulkan device is present (Mesa's lavapipe here); skipped where none exists.
lavapipe compiles each pipeline with LLVM at its first use (about a minute for the forward
phase), which Mesa's shader cache keeps for later runs. `make gpu-check` (--full) adds models.
"""

import os

import mujoco
import numpy as np
import pytest

import phalanx
from tests.conftest import SHARED_MODELS, shared_model

pytestmark = pytest.mark.gpu

OK, WHY = phalanx.vulkan_available()

EULER, RK4, IMPLICIT, IMPLICITFAST = 0, 1, 2, 3
INTEGRATOR = {EULER: "euler", RK4: "rk4", IMPLICIT: "implicit", IMPLICITFAST: "implicitfast"}

# (model, integrator): every integrator; free bodies, balls, hinges, slides, motors, muscles and
# spatial tendons with wrapping (arm26), joint damping (Euler's implicit damping), fluid forces
# (swimmer)
FAST = [
    (shared_model("gymnasium", "ant.xml"), IMPLICIT),
    (shared_model("gymnasium", "half_cheetah.xml"), IMPLICITFAST),
    (shared_model("gymnasium", "swimmer.xml"), RK4),
    (shared_model("gymnasium", "swimmer.xml"), IMPLICITFAST),  # fluid force derivatives
    (shared_model("mujoco", "model", "tendon_arm", "arm26.xml"), EULER),
]
FULL = FAST + [
    (shared_model("gymnasium", "ant.xml"), EULER),
    (shared_model("gymnasium", "humanoid.xml"), IMPLICITFAST),
    (shared_model("gymnasium", "humanoid.xml"), RK4),
    (shared_model("gymnasium", "hopper.xml"), EULER),
    (shared_model("gymnasium", "walker2d.xml"), IMPLICIT),
    (shared_model("gymnasium", "reacher.xml"), RK4),
    (shared_model("gymnasium", "inverted_double_pendulum.xml"), IMPLICITFAST),
    (shared_model("gymnasium", "swimmer.xml"), EULER),
    (shared_model("mujoco", "model", "humanoid", "humanoid.xml"), IMPLICIT),
    (shared_model("mujoco", "model", "humanoid", "humanoid.xml"), EULER),
    (shared_model("mujoco", "model", "tendon_arm", "arm26.xml"), RK4),
]

# fp32 against the fp64 CPU: ||gpu32 - cpu64|| / max(||cpu64||, 1e-12) per array and world
FP32_TOL = 2e-5
FP32_FORWARD = ("xpos", "xmat", "cinert", "ten_length", "ten_J", "actuator_moment", "M", "qLD",
                "qfrc_bias", "qfrc_passive", "qfrc_actuator", "act_dot", "cvel", "qacc")

DISABLED = mujoco.mjtDisableBit.mjDSBL_CONSTRAINT

# the inputs of a batch: per world, as the Python arguments of forward/step
INPUTS = ("qvel", "act", "ctrl", "qfrc_applied", "xfrc_applied", "mocap_pos", "mocap_quat")


def pytest_generate_tests(metafunc):
    if "case" in metafunc.fixturenames:
        cases = FULL if metafunc.config.getoption("--full") else FAST
        metafunc.parametrize("case", cases, ids=[
            f"{os.path.relpath(p, SHARED_MODELS)}-{INTEGRATOR[i]}" for p, i in cases])


@pytest.fixture(scope="module")
def vk():
    if not OK:
        pytest.skip(f"no Vulkan device: {WHY}")
    return phalanx.Vulkan(validation=2)


def load(path, integrator):
    model = phalanx.Model.from_xml_path(path)
    model.opt.disableflags = model.opt.disableflags | int(DISABLED)
    model.opt.integrator = integrator
    if integrator != EULER:  # the energy stages (mj_energyPos/Vel) on some cases, cleared on others
        model.opt.enableflags = model.opt.enableflags | int(mujoco.mjtEnableBit.mjENBL_ENERGY)
    if model.nu:
        # muscle constants MuJoCo derives by simulating at compile time (phalanx refuses muscles
        # without them): the same inputs for both executors
        ref = mujoco.MjModel.from_xml_path(path)
        model.actuator_lengthrange[:] = ref.actuator_lengthrange
        model.actuator_acc0[:] = ref.actuator_acc0
    return model


def random_batch(model, nworld, rng):
    """Per-world inputs: positions (quaternions unnormalized), velocities, forces, controls."""
    q = np.tile(model.qpos0, (nworld, 1))
    for j in range(model.njnt):
        a, t = model.jnt_qposadr[j], model.jnt_type[j]
        if t == 0:
            q[:, a:a + 3] = rng.uniform(-1, 1, (nworld, 3))
            q[:, a + 3:a + 7] = rng.normal(size=(nworld, 4)) * rng.uniform(0.5, 2, (nworld, 1))
        elif t == 1:
            q[:, a:a + 4] = rng.normal(size=(nworld, 4)) * rng.uniform(0.5, 2, (nworld, 1))
        else:
            q[:, a] = rng.uniform(-1, 1, nworld)
    inputs = {
        "qvel": rng.normal(size=(nworld, model.nv)),
        "act": rng.uniform(0, 1, (nworld, model.na)),
        "ctrl": rng.uniform(-1, 1, (nworld, model.nu)),
        "qfrc_applied": rng.normal(size=(nworld, model.nv)),
        "xfrc_applied": rng.normal(size=(nworld, model.nbody, 6)) * 0.5,
        "mocap_pos": rng.normal(size=(nworld, model.nmocap, 3)),
        "mocap_quat": rng.normal(size=(nworld, model.nmocap, 4)),
    }
    inputs["qvel"][0] = 0  # a world at rest: zeros through every stage
    inputs["xfrc_applied"][:, 0] = 0  # the world body takes no force
    return q, inputs


def cpu_world(model, q, inputs, w, time=0.0):
    """A CPU Data holding world w of a batch: q[w], each input array's row w, the time."""
    data = phalanx.Data(model)
    data.qpos[:] = q[w]
    for name, v in inputs.items():
        getattr(data, name)[:] = v[w]
    data.time = time
    return data


def same_bits(a, b):
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a.view(np.uint8),
                                                                        b.view(np.uint8))


def assert_same(out, data, w, what):
    for name in phalanx._core.DATA_FIELDS:
        cpu = getattr(data, name)
        if not same_bits(out[name][w], cpu):
            diff = np.max(np.abs(out[name][w].astype(float) - cpu.astype(float)), initial=0)
            pytest.fail(f"{what}: {name} differs in world {w} (max |diff| {diff:.3g})")


def rel(a, b):
    a, b = np.asarray(a, float).ravel(), np.asarray(b, float).ravel()
    return np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-12)


def test_forward_fp64_bitwise(vk, case):
    if not vk.fp64:
        pytest.skip(f"{vk.device} has no shaderFloat64")
    model = load(*case)
    q, inputs = random_batch(model, 3, np.random.default_rng(11))
    out = vk.forward(model, q, **inputs)
    for w in range(3):
        data = cpu_world(model, q, inputs, w)
        phalanx.forward(model, data)
        assert_same(out, data, w, "forward")
    assert vk.validation_messages == 0


def test_step_fp64_bitwise(vk, case):
    if not vk.fp64:
        pytest.skip(f"{vk.device} has no shaderFloat64")
    model = load(*case)
    q, inputs = random_batch(model, 3, np.random.default_rng(12))
    time = np.array([0.0, 0.25, -3.5])
    nstep = 3
    out = vk.step(model, q, nstep=nstep, time=time, **inputs)
    for w in range(3):
        data = cpu_world(model, q, inputs, w, time[w])
        for _ in range(nstep):
            phalanx.step(model, data)
        assert_same(out, data, w, f"{nstep} steps")
        assert same_bits(out["time"][w], np.float64(data.time)), f"time of world {w}"
    assert vk.validation_messages == 0


# more lanes and fp32 compile more pipeline sets, minutes each on a cold lavapipe cache: they run
# in `make gpu-check`, not in `make test` (where tests/c/test_vulkan.c covers 32 lanes for kinematics)
@pytest.mark.slow
@pytest.mark.parametrize("lanes", [4, 32])
def test_lanes_bitwise(vk, lanes):
    """Several lanes per world (lane-strided loops, barriers between stages): the same bits."""
    if not vk.fp64:
        pytest.skip(f"{vk.device} has no shaderFloat64")
    for path, integrator in FAST:
        model = load(path, integrator)
        q, inputs = random_batch(model, 2, np.random.default_rng(13))
        out = vk.forward(model, q, lanes=lanes, **inputs)
        for w in range(2):
            data = cpu_world(model, q, inputs, w)
            phalanx.forward(model, data)
            assert_same(out, data, w, f"{os.path.basename(path)}: forward, {lanes} lanes")
        out = vk.step(model, q, nstep=2, lanes=lanes, **inputs)
        for w in range(2):
            data = cpu_world(model, q, inputs, w)
            for _ in range(2):
                phalanx.step(model, data)
            assert_same(out, data, w, f"{os.path.basename(path)}: 2 steps, {lanes} lanes")
    assert vk.validation_messages == 0


def test_autoreset_bitwise(vk):
    """mj_step's bad-value handling: NaN velocity resets before forward, a huge acceleration
    resets after forward and forward runs again; with autoreset disabled the step goes on."""
    if not vk.fp64:
        pytest.skip(f"{vk.device} has no shaderFloat64")
    model = load(shared_model("gymnasium", "ant.xml"), EULER)
    q, inputs = random_batch(model, 4, np.random.default_rng(14))
    inputs["qvel"][1, 2] = np.nan  # bad velocity
    q[2, 0] = 2e10  # bad position
    inputs["qfrc_applied"][3, 7] = 1e13  # finite state, acceleration beyond 1e10
    time = np.full(4, 1.5)
    for flags in (model.opt.disableflags,
                  model.opt.disableflags | int(mujoco.mjtDisableBit.mjDSBL_AUTORESET)):
        model.opt.disableflags = flags
        worlds = range(4) if flags & int(mujoco.mjtDisableBit.mjDSBL_AUTORESET) == 0 else (0, 3)
        out = vk.step(model, q, nstep=2, time=time, **inputs)
        for w in worlds:  # without autoreset, NaN payloads are not compared
            data = cpu_world(model, q, inputs, w, time[w])
            for _ in range(2):
                phalanx.step(model, data)
            assert_same(out, data, w, f"autoreset flags {flags:#x}")
            assert same_bits(out["time"][w], np.float64(data.time))
    assert vk.validation_messages == 0


@pytest.mark.slow
def test_fp32_close(vk, full):
    """fp32 on the device against the fp64 CPU, 3 worlds per model: forward's arrays and the
    state after 1 and 3 steps within FP32_TOL (measured on lavapipe: at most 3.9e-6 on the fast
    models, swimmer's qacc; 7.7e-6 with --full, gymnasium humanoid's qacc after 3 steps; time
    within 7e-10)."""
    for path, integrator in FULL if full else FAST:
        model = load(path, integrator)
        q, inputs = random_batch(model, 3, np.random.default_rng(15))
        out = vk.forward(model, q, precision="fp32", **inputs)
        for w in range(3):
            data = cpu_world(model, q, inputs, w)
            phalanx.forward(model, data)
            for name in FP32_FORWARD:
                err = rel(out[name][w], getattr(data, name))
                assert err <= FP32_TOL, f"{os.path.basename(path)}: forward {name} {err:.2g}"
        for nstep in (1, 3):
            out = vk.step(model, q, nstep=nstep, precision="fp32", **inputs)
            for w in range(3):
                data = cpu_world(model, q, inputs, w)
                for _ in range(nstep):
                    phalanx.step(model, data)
                for name in ("qpos", "qvel", "act", "qacc"):
                    err = rel(out[name][w], getattr(data, name))
                    where = f"{os.path.basename(path)}: {nstep} steps"
                    assert err <= FP32_TOL, f"{where} {name} {err:.2g}"
                assert abs(out["time"][w] - data.time) <= 1e-8
    assert vk.validation_messages == 0


def test_bad_arguments(vk):
    model = load(shared_model("gymnasium", "ant.xml"), EULER)
    q = np.tile(model.qpos0, (2, 1))
    v = np.zeros((2, model.nv))
    with pytest.raises(ValueError, match=r"Vulkan.forward: qvel has shape \(2, 3\); expected "):
        vk.forward(model, q, np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"Vulkan.step: qfrc_applied has shape \(3, 14\)"):
        vk.step(model, q, v, qfrc_applied=np.zeros((3, model.nv)))
    with pytest.raises(ValueError, match=r"xfrc_applied has shape \(2, 14, 5\); expected "
                                         r"\(nworld, 14, 6\)"):
        vk.step(model, q, v, xfrc_applied=np.zeros((2, model.nbody, 5)))
    with pytest.raises(ValueError, match="nstep"):
        vk.step(model, q, v, nstep=0)
    with pytest.raises(ValueError, match="time"):
        vk.step(model, q, v, time=np.zeros(3))
    with pytest.raises(ValueError, match="precision"):
        vk.forward(model, q, v, precision="fp16")
    with pytest.raises(ValueError, match="lanes"):
        vk.forward(model, q, v, lanes=3)
    with pytest.raises(TypeError):
        vk.step(model, q)
    with pytest.raises(TypeError):
        vk.forward("model", q, v)
