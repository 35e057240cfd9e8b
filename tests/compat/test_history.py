# SPDX-License-Identifier: Apache-2.0
"""Actuator and sensor history buffers (nsample, delay, interval, interp) against MuJoCo 3.12.

The models: MuJoCo's test/testdata/delay.xml, tests/compat/models/history_all.xml (delayed
controls with zero-order hold, linear and cubic interpolation, a delayed filter actuator, a
history without delay; delayed, interval-sampled and phased sensors of the three stages: joint,
frame, accelerometer, force, subtree velocity, touch, actuator force, limit force, clock,
rangefinder, contact, a cutoff; a free box on a floor for contacts; a keyframe with a nonzero
time) and history_energy.xml (the sensors whose inputs MuJoCo computes lazily: energies,
subtree angular momentum, frame accelerations, torque). For every integrator, 200 steps under seeded random
controls compare qpos, qvel, act, actuator_force, qfrc_actuator, sensordata, data.history and
what the sensors compute lazily (energy, subtree_linvel, subtree_angmom, cacc, cfrc_int):
delay.xml bit for bit; the others to a relative error of TOL (the trajectories carry the
last-bit differences of the smooth dynamics phalanx has without history too, e.g. a 1-ulp
xmat of a hinge chain, which grow along 200 steps). With MuJoCo's state copied into phalanx
before every step (mj_getState / setState, history included) the error of one step is checked
to TOL_STEP. Also: the model arrays, the buffers after reset and keyframe reset, sensors
disabled, copy and pickle, the state API and Batch.
Run with -s for the worst error per field.
"""

import copy
import os
import pickle

import numpy as np
import pytest

import phalanx
from tests.conftest import shared_model

mujoco = pytest.importorskip("mujoco")

HERE = os.path.dirname(__file__)
DELAY = shared_model("mujoco", "test", "testdata", "delay.xml")
ALL = os.path.join(HERE, "models", "history_all.xml")
ENERGY = os.path.join(HERE, "models", "history_energy.xml")
MODELS = {"delay": DELAY, "history_all": ALL, "history_energy": ENERGY}
BITWISE = {"delay"}
INTEGRATORS = ["Euler", "RK4", "implicit", "implicitfast"]
FIELDS = ["qpos", "qvel", "act", "actuator_force", "qfrc_actuator", "sensordata", "history",
          "energy", "subtree_linvel", "subtree_angmom", "cacc", "cfrc_int"]
TOL = 1e-9
TOL_STEP = 1e-12
DSBL_SENSOR = 1 << 13
ENBL_ENERGY = 1 << 1
WORST = {}

ARRAYS = ["actuator_history", "actuator_historyadr", "actuator_delay", "sensor_history",
          "sensor_historyadr", "sensor_delay", "sensor_interval"]


@pytest.fixture(scope="module", autouse=True)
def report():
    yield
    if WORST:
        print("\nworst relative error per model/integrator and field (phalanx vs MuJoCo):")
        for k in sorted(WORST):
            print(f"  {k:34s} {WORST[k]:.2e}")


def load(name, integrator="Euler", disable=0, enable=0):
    path = MODELS[name]
    if not os.path.exists(path):
        pytest.skip(f"{path} not present")
    ref = mujoco.MjModel.from_xml_path(path)
    ours = phalanx.Model.from_xml_path(path)
    integ = int(getattr(mujoco.mjtIntegrator, "mjINT_" + integrator.upper()))
    for m in (ref, ours):
        m.opt.integrator = integ
        m.opt.disableflags |= disable
        m.opt.enableflags |= enable
    return ours, ref


def rel(a, b):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    assert a.shape == b.shape, (a.shape, b.shape)
    if a.size == 0:
        return 0.0
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-12))


def compare(do, dr, key, tol, bitwise=False):
    for f in FIELDS:
        a, b = np.asarray(getattr(do, f)), np.asarray(getattr(dr, f))
        if bitwise:
            assert a.tobytes() == b.tobytes(), (key, f, float(np.max(np.abs(a - b))))
        err = rel(a, b)
        WORST[f"{key}/{f}"] = max(WORST.get(f"{key}/{f}", 0.0), err)
        assert err <= tol, (key, f, err)
    assert do.time == dr.time


def controls(ref, rng):
    lo = np.where(ref.actuator_ctrllimited, ref.actuator_ctrlrange[:, 0], -1.0)
    hi = np.where(ref.actuator_ctrllimited, ref.actuator_ctrlrange[:, 1], 1.0)
    # a little beyond the range: clamping of the delayed controls is exercised too
    return rng.uniform(lo - 0.2, hi + 0.2)


def run(ours, ref, do, dr, nstep, seed, key, tol, bitwise=False):
    rng = np.random.default_rng(seed)
    for _ in range(nstep):
        c = controls(ref, rng)
        dr.ctrl[:] = c
        do.ctrl[:] = c
        mujoco.mj_step(ref, dr)
        phalanx.step(ours, do)
        compare(do, dr, key, tol, bitwise)


@pytest.mark.parametrize("name", MODELS)
def test_model_arrays_equal_mujoco(name):
    ours, ref = load(name)
    assert ours.nhistory == ref.nhistory > 0
    for f in ARRAYS:
        a, b = np.asarray(getattr(ours, f)), np.asarray(getattr(ref, f))
        assert a.tobytes() == b.tobytes(), f


@pytest.mark.parametrize("name", MODELS)
def test_reset_buffers_equal_mujoco(name):
    ours, ref = load(name)
    do, dr = phalanx.Data(ours), mujoco.MjData(ref)
    assert np.asarray(do.history).shape == (ref.nhistory,)
    assert np.asarray(do.history).tobytes() == dr.history.tobytes()
    run(ours, ref, do, dr, 7, 1, name, TOL)
    phalanx.resetData(ours, do)
    mujoco.mj_resetData(ref, dr)
    assert np.asarray(do.history).tobytes() == dr.history.tobytes()
    for k in range(ref.nkey):
        phalanx.resetDataKeyframe(ours, do, k)
        mujoco.mj_resetDataKeyframe(ref, dr, k)
        assert np.asarray(do.history).tobytes() == dr.history.tobytes()
        assert do.time == dr.time


@pytest.mark.parametrize("integrator", INTEGRATORS)
@pytest.mark.parametrize("name", MODELS)
def test_trajectory(name, integrator):
    ours, ref = load(name, integrator)
    do, dr = phalanx.Data(ours), mujoco.MjData(ref)
    run(ours, ref, do, dr, 200, 7, f"{name}/{integrator}", TOL, name in BITWISE)


@pytest.mark.parametrize("integrator", ["Euler", "RK4"])
def test_trajectory_from_keyframe(integrator):
    # the keyframe's time (0.3) is after the reset buffers' samples (before 0)
    ours, ref = load("history_all", integrator)
    do, dr = phalanx.Data(ours), mujoco.MjData(ref)
    phalanx.resetDataKeyframe(ours, do, 0)
    mujoco.mj_resetDataKeyframe(ref, dr, 0)
    run(ours, ref, do, dr, 100, 8, f"history_all/key/{integrator}", TOL)


@pytest.mark.parametrize("integrator", INTEGRATORS)
@pytest.mark.parametrize("name", ["history_all", "history_energy"])
def test_one_step_from_mujoco_state(name, integrator):
    # MuJoCo's integration state (history included) set in phalanx before every step: the error
    # of one step, not accumulated
    ours, ref = load(name, integrator)
    do, dr = phalanx.Data(ours), mujoco.MjData(ref)
    spec = int(mujoco.mjtState.mjSTATE_INTEGRATION)
    state = np.empty(mujoco.mj_stateSize(ref, spec))
    rng = np.random.default_rng(9)
    for _ in range(150):
        dr.ctrl[:] = controls(ref, rng)
        mujoco.mj_getState(ref, dr, state, spec)
        phalanx.setState(ours, do, state, spec)
        mujoco.mj_step(ref, dr)
        phalanx.step(ours, do)
        compare(do, dr, f"{name}/{integrator}/1step", TOL_STEP)


def test_energy_flag_and_sensors_disabled():
    # with the energy flag the energies are not computed lazily; with sensors disabled the
    # history update still computes the delayed sensors (MuJoCo's mj_advance does)
    for integrator in ("Euler", "RK4"):
        ours, ref = load("history_energy", integrator, enable=ENBL_ENERGY)
        do, dr = phalanx.Data(ours), mujoco.MjData(ref)
        run(ours, ref, do, dr, 100, 10, f"history_energy/energy/{integrator}", TOL)
        ours, ref = load("history_all", integrator, disable=DSBL_SENSOR)
        do, dr = phalanx.Data(ours), mujoco.MjData(ref)
        run(ours, ref, do, dr, 100, 11, f"history_all/nosensor/{integrator}", TOL)
        assert np.any(np.asarray(do.history) != 0)


def test_copy_and_pickle_keep_history():
    ours, ref = load("history_all", "RK4")
    do, dr = phalanx.Data(ours), mujoco.MjData(ref)
    run(ours, ref, do, dr, 40, 12, "history_all/copy", TOL)
    for clone in (copy.copy(do), copy.deepcopy(do), pickle.loads(pickle.dumps(do))):
        assert np.asarray(clone.history).tobytes() == np.asarray(do.history).tobytes()
    c1, c2 = copy.copy(do), pickle.loads(pickle.dumps(do))
    dr2 = copy.copy(dr)
    rng = np.random.default_rng(13)
    for _ in range(30):
        c = controls(ref, rng)
        for d in (do, c1, c2, dr2):
            d.ctrl[:] = c
        for d in (do, c1, c2):
            phalanx.step(ours, d)
        mujoco.mj_step(ref, dr2)
    for d in (c1, c2):
        for f in FIELDS:
            assert np.asarray(getattr(d, f)).tobytes() == np.asarray(getattr(do, f)).tobytes(), f
    compare(do, dr2, "history_all/copy", TOL)


def test_state_api_history():
    ours, ref = load("history_all")
    do, dr = phalanx.Data(ours), mujoco.MjData(ref)
    run(ours, ref, do, dr, 30, 14, "history_all/state", TOL)
    for spec in (mujoco.mjtState.mjSTATE_HISTORY, mujoco.mjtState.mjSTATE_PHYSICS,
                 mujoco.mjtState.mjSTATE_INTEGRATION):
        spec = int(spec)
        n = mujoco.mj_stateSize(ref, spec)
        assert phalanx.stateSize(ours, spec) == n
        a, b = np.empty(n), np.empty(n)
        phalanx.getState(ours, do, a, spec)
        mujoco.mj_getState(ref, dr, b, spec)
        assert rel(a, b) <= TOL
    spec = int(mujoco.mjtState.mjSTATE_HISTORY)
    h = np.asarray(do.history).copy()
    d2 = phalanx.Data(ours)
    phalanx.setState(ours, d2, h, spec)
    assert np.asarray(d2.history).tobytes() == h.tobytes()


def test_history_view_is_writable_and_checked():
    ours, _ = load("delay")
    do = phalanx.Data(ours)
    assert "history" in dir(do)
    h = np.asarray(do.history)
    do.history[0] = 0.5
    assert h[0] == 0.5
    with pytest.raises(ValueError):
        do.history = np.zeros(ours.nhistory + 1)


def test_batch_worlds_equal_single_world_steps():
    ours, _ = load("history_all", "implicitfast")
    nworld = 3
    rng = np.random.default_rng(15)
    ctrl = rng.uniform(-1.2, 1.2, (20, nworld, ours.nu))
    b = phalanx.Batch(ours, nworld, 2, seed=1)
    b.reset()
    assert b.history.shape == (nworld, ours.nhistory)
    assert "history" in dir(b)
    fresh = np.asarray(phalanx.Data(ours).history)
    assert all(b.history[w].tobytes() == fresh.tobytes() for w in range(nworld))
    for k in range(20):
        b.ctrl[:] = ctrl[k]
        assert b.step(1) == 0
    for w in range(nworld):
        d = phalanx.Data(ours)
        for k in range(20):
            d.ctrl[:] = ctrl[k, w]
            phalanx.step(ours, d)
        assert np.asarray(d.history).tobytes() == b.history[w].tobytes()
        assert np.asarray(d.sensordata).tobytes() == b.sensordata[w].tobytes()
        assert np.asarray(d.qpos).tobytes() == b.qpos[w].tobytes()
    b.reset()
    assert all(b.history[w].tobytes() == fresh.tobytes() for w in range(nworld))


@pytest.mark.parametrize("integrator", INTEGRATORS)
def test_step1_step2(integrator):
    # controls set between step1 and step2 enter the buffers at step2's history update
    ours, ref = load("history_all", integrator)
    do, dr = phalanx.Data(ours), mujoco.MjData(ref)
    rng = np.random.default_rng(16)
    for _ in range(100):
        mujoco.mj_step1(ref, dr)
        phalanx.step1(ours, do)
        c = controls(ref, rng)
        dr.ctrl[:] = c
        do.ctrl[:] = c
        mujoco.mj_step2(ref, dr)
        phalanx.step2(ours, do)
        compare(do, dr, f"history_all/step12/{integrator}", TOL)


def test_nonpositive_timestep_refused():
    # MuJoCo's mj_resetData raises for history buffers without a positive timestep
    ours, _ = load("delay")
    do = phalanx.Data(ours)
    ours.opt.timestep = 0
    with pytest.raises(ValueError, match="positive timestep"):
        phalanx.step(ours, do)
    with pytest.raises(ValueError, match="positive timestep"):
        phalanx.forward(ours, do)
