# SPDX-License-Identifier: Apache-2.0
"""Sensor readings (sensordata) of phalanx.forward and phalanx.step against MuJoCo 3.12's.

States come from MuJoCo's own trajectories (random controls and applied forces, constraints on):
each state is taken with mj_getState over the full integration state, set in both engines, both
run forward, and every sensor's reading is compared: ‖Δ‖ / max(‖ref‖, 1e-12) ≤ 1e-9, or 1e-6 for
the readings of the acceleration stage of a state with constraint rows (they depend on the
constraint solution, whose iterations may end in other last bits). The models: MuJoCo's sensor
test models, every corpus model with sensors (--full) and tests/compat/models/sensors_all.xml,
which puts every sensor type phalanx computes on every object type MuJoCo accepts, with
reference frames and cutoffs. Steps (Euler, RK4, implicitfast) are compared too: MuJoCo's step
leaves the readings of its first forward evaluation. The rangefinder and contact sensors are
compared in test_sensor_contact.py, the tactile sensor in test_tactile.py.
Run with -s for the worst error per sensor type.
"""

import glob
import os

import numpy as np
import pytest

import phalanx
from tests.conftest import SHARED_MODELS, shared_model

mujoco = pytest.importorskip("mujoco")

TOL = 1e-9
TOL_SOLVE = 1e-6
HERE = os.path.dirname(__file__)
OWN = os.path.join(HERE, "models", "sensors_all.xml")
SENSOR_DIR = shared_model("mujoco", "test", "engine", "testdata", "sensor")

FAST = [
    OWN,
    os.path.join(SENSOR_DIR, "fromto_convex.xml"),
    os.path.join(SENSOR_DIR, "camprojection.xml"),
    os.path.join(SENSOR_DIR, "insidesite.xml"),
    shared_model("mujoco", "model", "car", "car.xml"),
    shared_model("mujoco", "test", "user", "testdata", "robot_arm.xml"),
]

STATE = None  # mujoco.mjtState.mjSTATE_INTEGRATION, set when mujoco is imported
WORST = {}


def corpus_with_sensors():
    paths = set(glob.glob(os.path.join(SENSOR_DIR, "*.xml")))
    for pattern in ("gymnasium/*.xml", "mujoco/model/**/*.xml", "mujoco/test/**/*.xml"):
        for p in glob.glob(os.path.join(SHARED_MODELS, pattern), recursive=True):
            try:
                with open(p, errors="replace") as f:
                    if "<sensor" in f.read():
                        paths.add(p)
            except OSError:
                pass
    return sorted(paths - set(FAST))


def pytest_generate_tests(metafunc):
    if "sensor_model" in metafunc.fixturenames:
        paths = list(FAST)
        marks = [()] * len(paths)
        if metafunc.config.getoption("--full"):
            extra = corpus_with_sensors()
            paths += extra
            marks += [(pytest.mark.slow,)] * len(extra)
        metafunc.parametrize("sensor_model", [
            pytest.param(p, marks=mk, id=os.path.relpath(p, SHARED_MODELS) if p != OWN
                         else "sensors_all.xml") for p, mk in zip(paths, marks)])


@pytest.fixture(scope="module", autouse=True)
def report():
    yield
    if WORST:
        print("\nworst relative error per sensor type (phalanx vs MuJoCo):")
        for k in sorted(WORST):
            print(f"  {k:22s} {WORST[k][0]:.2e}  ({WORST[k][1]})")


def load(path):
    try:
        ref = mujoco.MjModel.from_xml_path(path)
    except Exception as e:  # noqa: BLE001
        pytest.skip(f"mujoco rejects it: {str(e).splitlines()[0][:80]}")
    try:
        ours = phalanx.Model.from_xml_path(path)
    except NotImplementedError as e:
        pytest.skip(f"phalanx does not compile it yet: {str(e)[:100]}")
    return ours, ref


def copy_state(dr, do):
    """MuJoCo's full integration state (mjSTATE_INTEGRATION), the history buffers included"""
    for f in ("qpos", "qvel", "act", "ctrl", "qacc_warmstart", "mocap_pos", "mocap_quat",
              "qfrc_applied", "xfrc_applied", "eq_active", "history"):
        getattr(do, f)[:] = getattr(dr, f)
    do.time = dr.time


def trajectory(ref, nstate, seed=3, every=2):
    """nstate full integration states along a MuJoCo trajectory from the first keyframe (or the
    reset state) under random controls and applied forces"""
    global STATE
    STATE = mujoco.mjtState.mjSTATE_INTEGRATION
    rng = np.random.default_rng(seed)
    dr = mujoco.MjData(ref)
    if ref.nkey:
        mujoco.mj_resetDataKeyframe(ref, dr, 0)
    size = mujoco.mj_stateSize(ref, STATE)
    out = []
    for t in range(nstate * every):
        if t % 10 == 0:
            if ref.nu:
                lo = np.where(ref.actuator_ctrllimited, ref.actuator_ctrlrange[:, 0], -1.0)
                hi = np.where(ref.actuator_ctrllimited, ref.actuator_ctrlrange[:, 1], 1.0)
                dr.ctrl[:] = rng.uniform(lo, hi)
            dr.qfrc_applied[:] = rng.normal(size=ref.nv) * 0.5
            dr.xfrc_applied[1:] = rng.normal(size=(ref.nbody - 1, 6)) * 0.5
        mujoco.mj_step(ref, dr)
        if t % every == every - 1:
            s = np.empty(size)
            mujoco.mj_getState(ref, dr, s, STATE)
            out.append(s)
    return out


def stype(ref, i):
    return mujoco.mjtSensor(ref.sensor_type[i]).name[len("mjSENS_"):].lower()


def compare(ref, dr, do, what, rel):
    """every sensor's reading; returns the worst error"""
    worst = 0.0
    a_ours, a_ref = np.asarray(do.sensordata), np.asarray(dr.sensordata)
    assert a_ours.shape == a_ref.shape
    for i in range(ref.nsensor):
        adr, dim = ref.sensor_adr[i], ref.sensor_dim[i]
        a, b = a_ours[adr:adr + dim], a_ref[adr:adr + dim]
        err = float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-12))
        solve = ref.sensor_needstage[i] == mujoco.mjtStage.mjSTAGE_ACC and dr.nefc > 0
        tol = TOL_SOLVE if solve else TOL
        key = stype(ref, i) + (" (solve)" if solve else "")
        if not err <= WORST.get(key, (-1.0, ""))[0]:
            WORST[key] = (err, rel)
        worst = max(worst, err)
        assert err <= tol, (f"{what}: sensor {i} ({stype(ref, i)}): relative error {err:.3e}; "
                            f"phalanx {a}, mujoco {b}")
    return worst


@pytest.mark.compat
def test_forward_readings(sensor_model, full):
    ours, ref = load(sensor_model)
    do, dr = phalanx.Data(ours), mujoco.MjData(ref)
    try:
        phalanx.forward(ours, do)
    except NotImplementedError as e:
        if sensor_model in FAST:
            raise
        pytest.skip(f"phalanx refuses it: {str(e)[:120]}")
    # both engines evaluated once before the states: MuJoCo's e_kinetic sensor with the energy
    # flag reads the previous evaluation's kinetic energy
    mujoco.mj_forward(ref, dr)
    rel = os.path.relpath(sensor_model, SHARED_MODELS) if sensor_model != OWN else "sensors_all"
    nstate = 50 if full or sensor_model == OWN else 8
    for k, s in enumerate(trajectory(ref, nstate)):
        mujoco.mj_setState(ref, dr, s, STATE)
        mujoco.mj_forward(ref, dr)
        copy_state(dr, do)
        phalanx.forward(ours, do)
        compare(ref, dr, do, f"state {k}", rel)


def test_own_model_exercises_everything():
    """sensors_all.xml holds every type phalanx computes; along its trajectory every type but
    user reads nonzero values somewhere (the comparisons are not of zeros), and cutoffs clip"""
    ref = mujoco.MjModel.from_xml_path(OWN)
    types = {stype(ref, i) for i in range(ref.nsensor)}
    # (rangefinder and contact: test_sensor_contact.py; tactile: test_tactile.py; plugin: not
    # computed)
    computed = {n[len("mjSENS_"):].lower() for n in mujoco.mjtSensor.__members__} - {
        "rangefinder", "contact", "tactile", "plugin"}
    assert computed <= types, computed - types
    dr = mujoco.MjData(ref)
    nonzero, clipped = set(), set()
    for s in trajectory(ref, 50):
        mujoco.mj_setState(ref, dr, s, STATE)
        mujoco.mj_forward(ref, dr)
        for i in range(ref.nsensor):
            v = dr.sensordata[ref.sensor_adr[i]:ref.sensor_adr[i] + ref.sensor_dim[i]]
            if np.any(v != 0):
                nonzero.add(stype(ref, i))
            if ref.sensor_cutoff[i] > 0 and np.any(np.abs(v) == ref.sensor_cutoff[i]):
                clipped.add(i)
    assert types - nonzero == {"user"}, types - nonzero
    assert len(clipped) >= 10, clipped


@pytest.mark.compat
@pytest.mark.parametrize("integrator", ["EULER", "RK4", "IMPLICITFAST"])
def test_step_readings(integrator):
    """after a step, sensordata holds the readings of the step's first forward evaluation (RK4's
    inner evaluations compute none), in both engines; energy likewise"""
    ours, ref = load(OWN)
    for m in (ours, ref):
        m.opt.integrator = int(getattr(mujoco.mjtIntegrator, "mjINT_" + integrator))
    do, dr = phalanx.Data(ours), mujoco.MjData(ref)
    for k, s in enumerate(trajectory(ref, 12, seed=5)):
        mujoco.mj_setState(ref, dr, s, STATE)
        copy_state(dr, do)
        mujoco.mj_step(ref, dr)
        phalanx.step(ours, do)
        compare(ref, dr, do, f"{integrator} step {k}", "sensors_all step")
        np.testing.assert_array_equal(np.asarray(do.energy), dr.energy)


@pytest.mark.compat
@pytest.mark.parametrize("flags", ["energy", "none"])
def test_energy_bookkeeping(flags):
    """e_potential / e_kinetic readings and what forward leaves in energy, with and without the
    energy flag, along a sequence of forward passes in both engines"""
    ours, ref = load(OWN)
    if flags == "energy":
        for m in (ours, ref):
            m.opt.enableflags = m.opt.enableflags | int(mujoco.mjtEnableBit.mjENBL_ENERGY)
    do, dr = phalanx.Data(ours), mujoco.MjData(ref)
    mujoco.mj_forward(ref, dr)
    phalanx.forward(ours, do)
    for k, s in enumerate(trajectory(ref, 10, seed=9)):
        mujoco.mj_setState(ref, dr, s, STATE)
        copy_state(dr, do)
        mujoco.mj_forward(ref, dr)
        phalanx.forward(ours, do)
        compare(ref, dr, do, f"{flags} state {k}", "sensors_all energy")
        np.testing.assert_allclose(np.asarray(do.energy), dr.energy, rtol=1e-12, atol=0)


@pytest.mark.compat
@pytest.mark.parametrize("flag", ["CONSTRAINT", "CONTACT", "LIMIT", "GRAVITY"])
def test_disabled_stages(flag):
    """readings with parts of the model disabled (no constraint rows, contacts or limits)"""
    ours, ref = load(OWN)
    for m in (ours, ref):
        m.opt.disableflags = m.opt.disableflags | int(getattr(mujoco.mjtDisableBit,
                                                               "mjDSBL_" + flag))
    do, dr = phalanx.Data(ours), mujoco.MjData(ref)
    for k, s in enumerate(trajectory(ref, 10, seed=11)):
        mujoco.mj_setState(ref, dr, s, STATE)
        mujoco.mj_forward(ref, dr)
        copy_state(dr, do)
        phalanx.forward(ours, do)
        compare(ref, dr, do, f"{flag} disabled, state {k}", "sensors_all " + flag.lower())


def test_sensor_disabled():
    """with the sensor disable flag neither engine touches sensordata"""
    ours, ref = load(OWN)
    for m in (ours, ref):
        m.opt.disableflags = m.opt.disableflags | int(mujoco.mjtDisableBit.mjDSBL_SENSOR)
    do, dr = phalanx.Data(ours), mujoco.MjData(ref)
    dr.sensordata[:] = np.arange(ref.nsensordata)
    np.asarray(do.sensordata)[:] = np.arange(ref.nsensordata)
    mujoco.mj_forward(ref, dr)
    phalanx.forward(ours, do)
    np.testing.assert_array_equal(np.asarray(do.sensordata), dr.sensordata)


def test_reset_clears_sensordata():
    ours, ref = load(OWN)
    do, dr = phalanx.Data(ours), mujoco.MjData(ref)
    mujoco.mj_forward(ref, dr)
    phalanx.forward(ours, do)
    assert np.any(np.asarray(do.sensordata) != 0)
    mujoco.mj_resetData(ref, dr)
    phalanx.resetData(ours, do)
    np.testing.assert_array_equal(np.asarray(do.sensordata), dr.sensordata)


@pytest.mark.compat
def test_batch_sensordata():
    """Batch worlds compute the same readings, bit for bit, with 1 or 2 threads, and equal to
    MuJoCo's after a step from each world's state"""
    ours, ref = load(OWN)
    states = trajectory(ref, 4, seed=13)
    out = []
    for nthread in (0, 2):
        b = phalanx.Batch(ours, len(states), nthread)
        dr = mujoco.MjData(ref)
        for w, s in enumerate(states):
            mujoco.mj_setState(ref, dr, s, STATE)
            for f in ("qpos", "qvel", "act", "ctrl", "qacc_warmstart", "qfrc_applied",
                      "xfrc_applied"):
                getattr(b, f)[w] = getattr(dr, f)
            b.time[w] = dr.time
        assert b.step(1) == 0
        out.append(np.array(b.sensordata))
    np.testing.assert_array_equal(out[0], out[1])
    dr = mujoco.MjData(ref)
    for w, s in enumerate(states):
        mujoco.mj_setState(ref, dr, s, STATE)
        mujoco.mj_step(ref, dr)
        for i in range(ref.nsensor):
            adr, dim = ref.sensor_adr[i], ref.sensor_dim[i]
            a, r = out[0][w, adr:adr + dim], dr.sensordata[adr:adr + dim]
            solve = ref.sensor_needstage[i] == mujoco.mjtStage.mjSTAGE_ACC and dr.nefc > 0
            err = np.linalg.norm(a - r) / max(np.linalg.norm(r), 1e-12)
            assert err <= (TOL_SOLVE if solve else TOL), (w, i, stype(ref, i), a, r)


BAD = {
    # a cutoff on quaternion or axis data
    "quat_cutoff": ('<body><joint name="b" type="ball"/><geom size=".1"/></body>',
                    '<ballquat joint="b" cutoff="1"/>', "ballquat"),
    "axis_cutoff": ('<body name="x"><geom size=".1"/></body>',
                    '<framexaxis objtype="body" objname="x" cutoff="1"/>', "framexaxis"),
    # a ball sensor on a hinge
    "ballquat_hinge": ('<body><joint name="h"/><geom size=".1"/></body>',
                       '<ballquat joint="h"/>', "ballquat"),
    "unknown_joint": ('<body><joint name="h"/><geom size=".1"/></body>',
                      '<jointpos joint="nosuch"/>', "jointpos"),
    "unknown_camera": ('<body><geom size=".1"/><site name="s"/></body>',
                       '<camprojection site="s" camera="nosuch"/>', "camprojection"),
    "touch_no_site": ('<body><geom size=".1"/></body>', '<touch/>', "touch"),
    "distance_both": ('<body name="a"><geom name="g" size=".1"/></body>'
                      '<body name="b"><geom name="h" size=".1"/></body>',
                      '<distance geom1="g" body1="a" geom2="h"/>', "distance"),
    "negative_cutoff": ('<body><joint name="h"/><geom size=".1"/></body>',
                        '<jointpos joint="h" cutoff="-1"/>', "jointpos"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_sensor_specs(case):
    """malformed sensors MuJoCo's compiler rejects are MJCF errors naming the sensor element"""
    body, sensor, tag = BAD[case]
    xml = f"<mujoco><worldbody>{body}</worldbody><sensor>{sensor}</sensor></mujoco>"
    with pytest.raises(Exception):
        mujoco.MjModel.from_xml_string(xml)
    with pytest.raises(phalanx.MJCFError, match=f"<{tag}>"):
        phalanx.Model.from_xml_string(xml)
