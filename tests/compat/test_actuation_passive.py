# SPDX-License-Identifier: Apache-2.0
"""Passive forces (mj_passive) and actuation (mj_fwdActuation) against MuJoCo 3.12.

Each test sets the same random state (qpos with non-unit quaternions, qvel, act, ctrl partly out
of its range) in both engines, runs mujoco's mj_forward, copies the outputs of the stages that
phalanx's force stages read (kinematics, velocities, tendons, transmission) into phalanx's Data,
runs phalanx's stage alone (_core._passive, _core._actuation) and compares every output with
mujoco's: ||ours - ref|| / max(||ref||, 1e-12) <= 1e-9. Models: Gymnasium's tasks (swimmer has
fluid forces), MuJoCo's tendon arm (muscles) and slider crank, and small inline models for each
spring, damper, gravity compensation and fluid variant and each actuator dynamics, gain and
bias type. `--full` adds more random states per model.
"""

import glob
import warnings

import numpy as np
import pytest

import phalanx
from tests.conftest import shared_model
from tests.compat._util import rel as rel_err

mujoco = pytest.importorskip("mujoco")

TOL = 1e-9

# what the stages read, filled from mujoco's mj_forward (the ten_J and actuator_moment arrays
# are sparse in both engines, with the same structure)
PASSIVE_IN = ["qpos", "qvel", "xipos", "ximat", "subtree_com", "cdof", "cvel", "geom_xpos",
              "geom_xmat", "ten_length", "ten_J", "ten_velocity"]
ACTUATION_IN = ["ctrl", "act", "actuator_length", "actuator_velocity", "actuator_moment",
                "moment_rownnz", "moment_rowadr", "moment_colind", "qfrc_gravcomp"]
PASSIVE_OUT = ["qfrc_spring", "qfrc_damper", "qfrc_gravcomp", "qfrc_fluid", "qfrc_passive"]
ACTUATION_OUT = ["act_dot", "actuator_force", "qfrc_actuator"]

CORPUS = sorted(glob.glob(shared_model("gymnasium", "*.xml"))) + [
    shared_model("mujoco", "model", "tendon_arm", "arm26.xml"),
    shared_model("mujoco", "model", "slider_crank", "slider_crank.xml"),
]


def load(xml=None, path=None):
    """(phalanx model, mujoco model), with the constants phalanx does not compute yet
    (actuator_acc0, and actuator_lengthrange of muscles without one) copied from mujoco."""
    if path:
        ref = mujoco.MjModel.from_xml_path(path)
        ours = phalanx.Model.from_xml_path(path)
    else:
        ref = mujoco.MjModel.from_xml_string(xml)
        ours = phalanx.Model.from_xml_string(xml)
    ours.actuator_acc0[:] = ref.actuator_acc0
    ours.actuator_lengthrange[:] = ref.actuator_lengthrange
    return ours, ref


def random_state(ref, rd, seed):
    rng = np.random.default_rng(seed)
    rd.qpos[:] = ref.qpos0 + 0.4 * rng.standard_normal(ref.nq)
    rd.qvel[:] = 1.5 * rng.standard_normal(ref.nv)
    rd.act[:] = rng.uniform(-0.5, 1.5, ref.na)
    lo, hi = ref.actuator_ctrlrange[:, 0], ref.actuator_ctrlrange[:, 1]
    span = np.where(ref.actuator_ctrllimited, hi - lo, 2.0)
    mid = np.where(ref.actuator_ctrllimited, 0.5 * (lo + hi), 0.0)
    rd.ctrl[:] = mid + span * rng.uniform(-0.8, 0.8, ref.nu)  # some of it outside the range


def run_both(ours, ref, seed=0, setup=None):
    """Same state in both engines; mujoco's forward, then phalanx's two stages on its inputs."""
    rd = mujoco.MjData(ref)
    od = phalanx.Data(ours)
    random_state(ref, rd, seed)
    if setup:
        setup(rd)
    mujoco.mj_forward(ref, rd)
    for f in PASSIVE_IN + ACTUATION_IN:
        getattr(od, f)[...] = getattr(rd, f)
    od.ctrl[:] = rd.ctrl  # mujoco leaves ctrl as written
    phalanx._core._passive(ours, od)
    phalanx._core._actuation(ours, od)
    return od, rd


def assert_outputs(od, rd, fields=PASSIVE_OUT + ACTUATION_OUT, nonzero=()):
    errs = {f: rel_err(getattr(od, f), getattr(rd, f)) for f in fields}
    bad = {f: e for f, e in errs.items() if not e <= TOL}
    assert not bad, f"relative errors above {TOL}: {bad}"
    for f in nonzero:  # the case exercises what it claims to
        assert np.linalg.norm(getattr(rd, f)) > 0, f"{f} is zero in mujoco: the case tests nothing"
    return errs


def seeds(full):
    return range(6) if full else range(2)


def pytest_generate_tests(metafunc):
    # --full: every corpus model both engines load (MuJoCo's model and test folders) as well
    if "corpus_path" in metafunc.fixturenames:
        paths = list(CORPUS)
        if metafunc.config.getoption("--full"):
            for sub in ("model", "test"):
                found = glob.glob(shared_model("mujoco", sub, "**", "*.xml"), recursive=True)
                paths += sorted(set(found) - set(paths))
        metafunc.parametrize("corpus_path", paths, ids=[p.split("models/")[-1] for p in paths])


def test_corpus(corpus_path, full):
    if corpus_path in CORPUS:
        ours, ref = load(path=corpus_path)
    else:  # the --full sweep: models either engine rejects are someone else's tests
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ours, ref = load(path=corpus_path)
        except Exception as e:  # noqa: BLE001
            pytest.skip(f"not loaded by both engines: {str(e).splitlines()[0][:80]}")
    for seed in seeds(full):
        try:
            od, rd = run_both(ours, ref, seed)
        except NotImplementedError as e:
            if corpus_path in CORPUS:
                raise
            pytest.skip(str(e))
        if rd.qfrc_adhesion.any():
            # adhesion acts through contacts, which phalanx does not have yet: the rest of
            # qfrc_passive must match
            assert_outputs(od, rd, [f for f in PASSIVE_OUT + ACTUATION_OUT if f != "qfrc_passive"])
            assert rel_err(od.qfrc_passive, rd.qfrc_passive - rd.qfrc_adhesion) <= TOL
        else:
            assert_outputs(od, rd)


def test_swimmer_has_fluid():
    ours, ref = load(path=shared_model("gymnasium", "swimmer.xml"))
    od, rd = run_both(ours, ref, 3)
    assert_outputs(od, rd, nonzero=["qfrc_fluid", "qfrc_actuator"])


def test_arm26_muscles():
    ours, ref = load(path=shared_model("mujoco", "model", "tendon_arm", "arm26.xml"))
    assert (ref.actuator_gaintype == mujoco.mjtGain.mjGAIN_MUSCLE).all()
    od, rd = run_both(ours, ref, 5)
    assert_outputs(od, rd, nonzero=["act_dot", "actuator_force", "qfrc_actuator"])


# ---------------------------------------------------------------------------------------------
# passive forces

SPRINGS = """
<mujoco>
  <worldbody>
    <body pos="0 0 1">
      <joint name="free" type="free" stiffness="2 0.5 0.3" damping="0.4 0.1 0.02"/>
      <geom type="box" size=".1 .2 .05"/>
      <body pos="0 0 -.3">
        <joint name="hinge" axis="0 1 0" stiffness="2 0.5 0.1" damping="0.3 0.2 0.05"
               springref="0.2"/>
        <geom type="capsule" size=".05 .1"/>
        <body pos="0 0 -.3">
          <joint name="ball" type="ball" stiffness="1.5 0 0.4" damping="0.1 0.3 0"/>
          <geom type="sphere" size=".07"/>
          <body pos="0 0 -.2">
            <joint name="slide" type="slide" axis="1 0 0" stiffness="4" damping="0.7"
                   springref="-0.1"/>
            <geom type="sphere" size=".05"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="deadband" stiffness="3 0.1 0.2" damping="0.5 0.1 0.1"
           springlength="-0.1 0.1">
      <joint joint="hinge" coef="1"/>
      <joint joint="slide" coef="-0.5"/>
    </fixed>
    <fixed name="plain" stiffness="1" damping="0.2" springlength="0.05">
      <joint joint="slide" coef="2"/>
    </fixed>
  </tendon>
</mujoco>"""


@pytest.mark.asan
def test_joint_and_tendon_springs_dampers_polynomials():
    ours, ref = load(SPRINGS)
    for seed in range(4):
        od, rd = run_both(ours, ref, seed)
        assert_outputs(od, rd, nonzero=["qfrc_spring", "qfrc_damper", "qfrc_passive"])


@pytest.mark.parametrize("flags", ["spring", "damper", "spring damper"])
def test_spring_damper_disable_flags(flags):
    ours, ref = load(SPRINGS)
    bits = 0
    for f in flags.split():
        bits |= int(getattr(mujoco.mjtDisableBit, "mjDSBL_" + f.upper()))
    ref.opt.disableflags = bits
    ours.opt.disableflags = bits
    od, rd = run_both(ours, ref, 1)
    assert_outputs(od, rd)


def test_tendon_deadband_inside_and_outside():
    ours, ref = load(SPRINGS)
    seen = set()
    for seed in range(12):
        od, rd = run_both(ours, ref, seed)
        assert_outputs(od, rd)
        ln = rd.ten_length[0]
        seen.add("below" if ln < -0.1 else "above" if ln > 0.1 else "inside")
    assert seen == {"below", "above", "inside"}


GRAVCOMP = """
<mujoco>
  <option gravity="0.5 -1 -9.81"/>
  <worldbody>
    <body pos="0 0 1" gravcomp="1">
      <joint type="free"/>
      <geom type="box" size=".1 .2 .05" mass="2"/>
      <body pos="0 .1 -.3" gravcomp="0.4">
        <joint name="h1" axis="0 1 0" actuatorgravcomp="true"/>
        <geom type="capsule" size=".05 .1"/>
        <body pos="0 0 -.3" gravcomp="0.7">
          <joint name="b" type="ball" actuatorgravcomp="true"/>
          <geom type="sphere" size=".07"/>
          <body pos="0.1 0 -.2">
            <joint name="s" type="slide" axis="1 0 1"/>
            <geom type="sphere" size=".05"/>
          </body>
        </body>
      </body>
    </body>
    <body pos="1 0 0" gravcomp="0.3">
      <joint name="h2" axis="1 0 0" actuatorfrcrange="-0.5 0.5" actuatorgravcomp="true"/>
      <geom type="box" size=".2 .1 .1"/>
    </body>
  </worldbody>
  <actuator>
    <motor joint="h1" gear="2"/>
    <motor joint="h2"/>
  </actuator>
</mujoco>"""


@pytest.mark.asan
def test_gravcomp_passive_and_through_actuators():
    ours, ref = load(GRAVCOMP)
    for seed in range(3):
        od, rd = run_both(ours, ref, seed)
        assert_outputs(od, rd, nonzero=["qfrc_gravcomp", "qfrc_passive", "qfrc_actuator"])
        # joints with actuatorgravcomp: the compensation goes to qfrc_actuator, not qfrc_passive
        assert ref.jnt_actgravcomp.any() and not ref.jnt_actgravcomp.all()


def test_gravcomp_gravity_disabled():
    ours, ref = load(GRAVCOMP)
    bit = int(mujoco.mjtDisableBit.mjDSBL_GRAVITY)
    ref.opt.disableflags = bit
    ours.opt.disableflags = bit
    od, rd = run_both(ours, ref, 2)
    assert_outputs(od, rd)
    assert not od.qfrc_gravcomp.any()


FLUID_BOX = """
<mujoco>
  <option density="1.2" viscosity="0.02" wind="0.5 -0.3 0.2"/>
  <worldbody>
    <body pos="0 0 1">
      <joint type="free"/>
      <geom type="box" size=".1 .2 .05"/>
      <geom type="sphere" size=".05" pos=".1 0 0"/>
      <body pos="0 0 -.3">
        <joint axis="0 1 0"/>
        <geom type="capsule" size=".05 .1"/>
        <body pos="0 0 -.3">
          <joint type="ball"/>
          <geom type="cylinder" size=".07 .02"/>
        </body>
      </body>
    </body>
    <body pos="1 0 0">
      <geom type="box" size=".2 .1 .1"/>
    </body>
    <body mocap="true" pos="0 1 0">
      <geom type="sphere" size=".1"/>
    </body>
  </worldbody>
</mujoco>"""

FLUID_ELLIPSOID = """
<mujoco>
  <option density="1.2" viscosity="0.02" wind="0.5 -0.3 0.2"/>
  <default><geom fluidshape="ellipsoid"/></default>
  <worldbody>
    <body pos="0 0 1">
      <joint type="free"/>
      <geom type="box" size=".1 .2 .05" fluidcoef="0.5 0.25 1.5 1.0 1.0"/>
      <geom type="ellipsoid" size=".05 .08 .12" pos=".1 0 0" fluidcoef="0.4 0.3 1.2 0.8 0.6"/>
      <geom type="sphere" size=".04" pos="-.1 0 0" fluidshape="none"/>
      <body pos="0 0 -.3">
        <joint axis="0 1 0"/>
        <geom type="capsule" size=".05 .1"/>
        <body pos="0 0 -.3">
          <joint type="ball"/>
          <geom type="cylinder" size=".07 .02"/>
          <body pos="0 0 -.2">
            <joint type="slide" axis="0 0 1"/>
            <geom type="sphere" size=".05"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>"""


@pytest.mark.parametrize("name,xml", [("box", FLUID_BOX), ("ellipsoid", FLUID_ELLIPSOID)])
@pytest.mark.parametrize("medium", ["both", "density", "viscosity"])
def test_fluid(name, xml, medium):
    ours, ref = load(xml)
    for m in (ours, ref):
        if medium == "density":
            m.opt.viscosity = 0
        if medium == "viscosity":
            m.opt.density = 0
    for seed in range(2):
        od, rd = run_both(ours, ref, seed)
        assert_outputs(od, rd, nonzero=["qfrc_fluid", "qfrc_passive"])


@pytest.mark.asan
def test_fluid_without_wind():
    ours, ref = load(FLUID_ELLIPSOID)
    ours.opt.wind[:] = 0
    ref.opt.wind[:] = 0
    od, rd = run_both(ours, ref, 4)
    assert_outputs(od, rd, nonzero=["qfrc_fluid"])


# ---------------------------------------------------------------------------------------------
# actuation

ACTUATORS = """
<mujoco>
  <worldbody>
    <site name="ref" pos="0.3 0.1 1.2"/>
    <body pos="0 0 1">
      <joint name="j0" axis="0 1 0" range="-2 2" actuatorfrcrange="-3 3"/>
      <geom type="capsule" size=".05 .2" fromto="0 0 0 0 0 -.4"/>
      <site name="tip" pos="0 0 -.4"/>
      <body pos="0 0 -.4">
        <joint name="j1" axis="1 0 0" range="-1.5 1.5"/>
        <geom type="capsule" size=".04 .2" fromto="0 0 0 0 0 -.3"/>
        <site name="tip2" pos="0 0 -.3"/>
        <body pos="0 0 -.3">
          <joint name="j2" type="slide" axis="0 0 1" range="-.1 .1"/>
          <geom type="sphere" size=".05"/>
        </body>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="t0" actuatorfrclimited="true" actuatorfrcrange="-1 2">
      <joint joint="j0" coef="1"/>
      <joint joint="j1" coef="0.5"/>
    </fixed>
    <spatial name="t1" range="0.1 2"><site site="ref"/><site site="tip2"/></spatial>
  </tendon>
  <actuator>
    <motor name="motor" joint="j0" gear="2" ctrlrange="-1 1"/>
    <motor name="unlimited" joint="j1" ctrllimited="false"/>
    <position name="servo" joint="j1" kp="5" kv="1" ctrlrange="-1 1"/>
    <velocity name="vel" joint="j2" kv="3"/>
    <general name="integrator" joint="j0" dyntype="integrator" gainprm="2" actlimited="true"
             actrange="-0.4 0.6" ctrlrange="-1 1"/>
    <general name="early" joint="j1" dyntype="integrator" gainprm="2" actearly="true"
             actlimited="true" actrange="-0.3 0.3"/>
    <general name="filter" joint="j2" dyntype="filter" dynprm="0.05" gaintype="affine"
             gainprm="1 0.5 0.2" biastype="affine" biasprm="0.1 -1 -0.2" forcelimited="true"
             forcerange="-0.7 0.8"/>
    <general name="exact" joint="j0" dyntype="filterexact" dynprm="0.03" actearly="true"
             gainprm="3" forcelimited="true" forcerange="-2 1"/>
    <general name="exact_late" joint="j1" dyntype="filterexact" dynprm="0.3" gainprm="1.5"/>
    <general name="on_t0" tendon="t0" gainprm="4"/>
    <general name="on_t0b" tendon="t0" gainprm="-2" biastype="affine" biasprm="0.3 0 0"/>
    <general name="user" joint="j2" dyntype="user" gaintype="user" biastype="user"/>
    <muscle name="m_joint" joint="j1" lengthrange="-1.5 1.5"/>
    <muscle name="m_smooth" tendon="t1" tausmooth="0.3" force="30"/>
    <general name="m_early" tendon="t1" dyntype="muscle" dynprm="0.02 0.05" actearly="true"
             actlimited="true" actrange="0 1" gaintype="muscle"
             gainprm="0.6 1.3 -1 150 0.5 1.6 1.5 1.5 1.6" biastype="muscle"
             biasprm="0.6 1.3 -1 150 0.5 1.6 1.5 1.5 1.6"/>
    <general name="m_general" tendon="t1" dyntype="muscle" dynprm="0.01 0.04 0.1"
             gaintype="muscle" gainprm="0.75 1.05 -1 200 0.5 1.6 1.5 1.3 1.2"
             biastype="muscle" biasprm="0.75 1.05 -1 200 0.5 1.6 1.5 1.3 1.2"/>
  </actuator>
</mujoco>"""


@pytest.mark.asan
def test_every_dynamics_gain_and_bias():
    ours, ref = load(ACTUATORS)
    types = {(int(d), int(g), int(b)) for d, g, b in
             zip(ref.actuator_dyntype, ref.actuator_gaintype, ref.actuator_biastype)}
    dyn, gain, bias = mujoco.mjtDyn, mujoco.mjtGain, mujoco.mjtBias
    for t in [dyn.mjDYN_NONE, dyn.mjDYN_INTEGRATOR, dyn.mjDYN_FILTER, dyn.mjDYN_FILTEREXACT,
              dyn.mjDYN_MUSCLE, dyn.mjDYN_USER]:
        assert any(x[0] == t for x in types)
    for t in [gain.mjGAIN_FIXED, gain.mjGAIN_AFFINE, gain.mjGAIN_MUSCLE, gain.mjGAIN_USER]:
        assert any(x[1] == t for x in types)
    for t in [bias.mjBIAS_NONE, bias.mjBIAS_AFFINE, bias.mjBIAS_MUSCLE, bias.mjBIAS_USER]:
        assert any(x[2] == t for x in types)
    for seed in range(6):
        od, rd = run_both(ours, ref, seed)
        assert_outputs(od, rd, nonzero=["act_dot", "actuator_force", "qfrc_actuator"])


def test_tendon_and_joint_force_limits_bite():
    ours, ref = load(ACTUATORS)
    hit_tendon = hit_joint = False
    for seed in range(8):
        od, rd = run_both(ours, ref, seed)
        assert_outputs(od, rd)
        on_t0 = [i for i in range(ref.nu) if ref.actuator_trntype[i] == 3
                 and ref.actuator_trnid[i, 0] == 0]
        total = rd.actuator_force[on_t0].sum()
        hit_tendon |= bool(np.isclose(total, -1) or np.isclose(total, 2))
        hit_joint |= bool(abs(rd.qfrc_actuator[0]) == 3)
    assert hit_tendon and hit_joint


def test_clampctrl_disabled_and_actuation_disabled():
    ours, ref = load(ACTUATORS)
    for bit in ["mjDSBL_CLAMPCTRL", "mjDSBL_ACTUATION", "mjDSBL_GRAVITY"]:
        b = int(getattr(mujoco.mjtDisableBit, bit))
        ref.opt.disableflags = b
        ours.opt.disableflags = b
        od, rd = run_both(ours, ref, 7)
        fields = PASSIVE_OUT + (ACTUATION_OUT if bit != "mjDSBL_ACTUATION" else
                                ["actuator_force", "qfrc_actuator"])
        assert_outputs(od, rd, fields)


def test_disabled_actuator_groups():
    xml = ACTUATORS.replace('name="servo"', 'name="servo" group="2"').replace(
        'name="m_smooth"', 'name="m_smooth" group="3"')
    ours, ref = load(xml)
    ref.opt.disableactuator = (1 << 2) | (1 << 3)
    ours.opt.disableactuator = (1 << 2) | (1 << 3)
    od, rd = run_both(ours, ref, 2)
    assert_outputs(od, rd)
    assert od.actuator_force[2] == 0 and od.actuator_force[13] == 0


ACTUATOR_DAMPING = """
<mujoco>
  <worldbody>
    <body>
      <joint name="a" axis="0 1 0" damping="0.1"/>
      <geom type="capsule" size=".05 .2" fromto="0 0 0 0 0 -.4"/>
      <body pos="0 0 -.4">
        <joint name="b" axis="1 0 0"/>
        <geom type="capsule" size=".04 .2" fromto="0 0 0 0 0 -.3"/>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="t" damping="0.05"><joint joint="a" coef="1"/><joint joint="b" coef="-1"/></fixed>
  </tendon>
  <actuator>
    <motor joint="a" gear="3" damping="0.2 0.1 0.05"/>
    <position joint="b" kp="2" damping="0.4"/>
    <motor joint="b" gear="-2" damping="0.1 0 0.3"/>
    <motor tendon="t" gear="1.5" damping="0.3 0.2 0"/>
  </actuator>
</mujoco>"""


def test_actuator_damping_on_joints_and_tendons():
    ours, ref = load(ACTUATOR_DAMPING)
    assert (ref.jnt_actuatorid < -1).any() and (ref.jnt_actuatorid >= 0).any()
    for seed in range(3):
        od, rd = run_both(ours, ref, seed)
        assert_outputs(od, rd, nonzero=["qfrc_damper", "qfrc_actuator"])


ROTATIONAL_SERVOS = """
<mujoco>
  <worldbody>
    <site name="r" pos="0 0 1"/>
    <body pos="0 0 1">
      <joint name="ball" type="ball"/>
      <geom type="box" size=".1 .2 .05"/>
      <site name="s" pos=".1 0 0"/>
    </body>
  </worldbody>
  <actuator>
    <position joint="ball" kp="3" gear="0 0 1" ctrlrange="-10 10"/>
    <position site="s" refsite="r" gear="0 0 0 0 0 2" kp="2" ctrllimited="false"/>
  </actuator>
</mujoco>"""


def test_rotational_servo_setpoints_wrap():
    try:
        ours, ref = load(ROTATIONAL_SERVOS)
    except NotImplementedError as e:
        pytest.skip(f"phalanx does not compile this model yet: {e}")

    def far_setpoints(rd):
        rd.ctrl[:] = [7.5, -9.0]  # several periods away from the length

    for seed in range(3):
        od, rd = run_both(ours, ref, seed, setup=far_setpoints)
        assert_outputs(od, rd, nonzero=["actuator_force"])


# ---------------------------------------------------------------------------------------------
# bad controls, unsupported features

@pytest.mark.asan
def test_bad_ctrl_zeroes_controls_and_counts_warning():
    ours, ref = load(ACTUATORS)
    bad = int(mujoco.mjtWarning.mjWARN_BADCTRL)
    rd = od = None
    for value in [np.nan, np.inf, 2e10]:
        def poison(rd, value=value):
            rd.ctrl[1] = value  # the unlimited motor: clamping cannot hide it

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            od, rd = run_both(ours, ref, 3, setup=poison)
        assert any("CTRL at ACTUATOR 1" in str(w.message) for w in caught)
        assert_outputs(od, rd, nonzero=["actuator_force"])
        assert od.warning[bad, 1] == rd.warning[bad].number == 1
        assert od.warning[bad, 0] == rd.warning[bad].lastinfo == 1
        assert np.array_equal(od.ctrl, rd.ctrl, equal_nan=True)  # ctrl left as written
    # the count goes on in the same Data, as MuJoCo's does
    phalanx._core._actuation(ours, od)
    mujoco.mj_forward(ref, rd)
    assert od.warning[bad, 1] == rd.warning[bad].number == 2


def test_huge_ctrl_clamped_is_not_bad():
    ours, ref = load(ACTUATORS)

    def huge(rd):
        rd.ctrl[0] = 1e12  # motor with ctrlrange: clamped first, so not bad

    od, rd = run_both(ours, ref, 1, setup=huge)
    assert_outputs(od, rd)
    assert od.warning[int(mujoco.mjtWarning.mjWARN_BADCTRL), 1] == 0


def test_muscle_constants_not_computed_are_refused():
    # ranges the compiler's length-range simulation could not compute are left NaN (when the
    # simulation meets what phalanx refuses); the actuation stage then refuses the muscles,
    # naming why
    path = shared_model("mujoco", "model", "tendon_arm", "arm26.xml")
    ours = phalanx.Model.from_xml_path(path)
    ours.actuator_lengthrange[:] = np.nan
    od = phalanx.Data(ours)
    with pytest.raises(NotImplementedError, match="lengthrange"):
        phalanx._core._actuation(ours, od)
    ours.actuator_lengthrange[:] = mujoco.MjModel.from_xml_path(path).actuator_lengthrange
    phalanx._core._actuation(ours, od)  # acc0 is compiled: with the ranges given, it runs
    # with the sparse Jacobian the simulation runs, to MuJoCo's ranges
    xml = ACTUATORS.split("<actuator>")[0] + """<actuator>
    <muscle tendon="t1" force="10"/></actuator></mujoco>"""
    xml = xml.replace("<mujoco>", '<mujoco><option jacobian="sparse"/>')
    ours = phalanx.Model.from_xml_string(xml)
    np.testing.assert_allclose(ours.actuator_lengthrange,
                               mujoco.MjModel.from_xml_string(xml).actuator_lengthrange, rtol=1e-9)
    phalanx._core._actuation(ours, phalanx.Data(ours))
