# SPDX-License-Identifier: Apache-2.0
"""Integrators and the state API against mujoco 3.12, from identical states.

Every integrator stage runs alone: mujoco's mj_forward gives the inputs of the stage (the
forward results), they are copied into phalanx's Data, then mujoco's mj_Euler / mj_implicit
and phalanx's stage run once each and the results are compared field by field with
||a - b|| / max(||b||, 1e-12) <= 1e-9.
"""

import copy
import pickle

import mujoco
import numpy as np
import pytest

import phalanx
from tests.conftest import shared_model
from tests.compat._util import rel as _rel


def rel(a, b):
    """The compat tolerance measure on flattened arrays (tests/compat/_util.py)."""
    return _rel(a, b, ravel=True)

TOL = 1e-9

# every joint type, damping, armature, a tendon with damping, and the activation dynamics
JOINTS_XML = """
<mujoco>
  <option timestep="0.01" integrator="{integrator}"/>
  <worldbody>
    <body name="free" pos="0 0 1">
      <freejoint/>
      <geom type="box" size="0.1 0.2 0.3" mass="2"/>
    </body>
    <body name="arm" pos="1 0 1">
      <joint name="ball" type="ball" damping="0.3" armature="0.01"/>
      <geom type="capsule" fromto="0 0 0 0.3 0.1 0" size="0.05"/>
      <body pos="0.3 0.1 0">
        <joint name="hinge" type="hinge" axis="0 1 1" damping="0.5" armature="0.02"/>
        <geom type="capsule" fromto="0 0 0 0 0.3 0.2" size="0.04"/>
        <body pos="0 0.3 0.2">
          <joint name="slide" type="slide" axis="1 0 0" damping="{slidedamp}"/>
          <geom type="sphere" size="0.07"/>
        </body>
      </body>
    </body>
    <body name="free2" pos="-1 0 1">
      <freejoint/>
      <geom type="ellipsoid" size="0.1 0.15 0.2"/>
      <body pos="0 0 0.3">
        <joint type="hinge" axis="1 0 0" damping="0.1"/>
        <geom type="sphere" size="0.05"/>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="t" damping="0.7">
      <joint joint="hinge" coef="1"/>
      <joint joint="slide" coef="-0.5"/>
    </fixed>
  </tendon>
  <actuator>
    <motor joint="hinge" gear="2"/>
    <velocity joint="slide" kv="3"/>
    <position joint="hinge" kp="10" kv="1"/>
    <general joint="slide" dyntype="filter" dynprm="0.3" gaintype="affine" gainprm="1 0 -0.5"/>
    <general joint="hinge" dyntype="filterexact" dynprm="0.2" actlimited="true" actrange="-1 1"
             actearly="true" gaintype="affine" gainprm="2 0 0.4" biastype="affine" biasprm="0 0 -0.2"/>
    <general tendon="t" dyntype="integrator" actlimited="true" actrange="-0.5 0.5"
             biastype="affine" biasprm="0 -1 -0.3"/>
  </actuator>
</mujoco>
"""

# forward results that the integrator stages read
STAGE_INPUTS = ["qpos", "qvel", "act", "ctrl", "act_dot", "qacc", "qacc_warmstart", "qfrc_smooth",
                "qfrc_constraint", "M", "actuator_length", "actuator_force", "actuator_moment",
                "moment_rownnz", "moment_rowadr", "moment_colind", "ten_J", "ten_velocity",
                "xpos", "xmat", "xipos", "ximat", "mocap_pos", "mocap_quat", "qfrc_applied",
                "xfrc_applied", "eq_active", "cdof", "cinert", "cvel", "cdof_dot"]


def worse(w, e):
    """The larger of two errors, NaN winning (max() would hide it)."""
    return e if not e <= w else w


def pair_from_xml(xml):
    return mujoco.MjModel.from_xml_string(xml), phalanx.Model.from_xml_string(xml)


def random_state(mm, rng, md=None):
    """qpos with unit quaternions near qpos0, random qvel/ctrl/act."""
    md = md or mujoco.MjData(mm)
    md.qpos[:] = mm.qpos0 + 0.3 * rng.standard_normal(mm.nq)
    mujoco.mj_normalizeQuat(mm, md.qpos)
    md.qvel[:] = rng.standard_normal(mm.nv)
    md.ctrl[:] = rng.uniform(-1, 1, mm.nu)
    md.act[:] = rng.uniform(-0.4, 0.4, mm.na)
    md.time = 0.25
    return md


def seed_phalanx(mm, md, pm):
    pd = phalanx.Data(pm)
    for f in STAGE_INPUTS:
        getattr(pd, f)[...] = np.asarray(getattr(md, f)).reshape(getattr(pd, f).shape)
    pd.time = md.time
    return pd


MODELS = {
    "joints": JOINTS_XML.format(integrator="Euler", slidedamp=0.2),
    "humanoid": shared_model("gymnasium", "humanoid.xml"),
    "ant": shared_model("gymnasium", "ant.xml"),
    "walker2d": shared_model("gymnasium", "walker2d.xml"),
}


def load(name, integrator=None):
    src = MODELS[name]
    if src.lstrip().startswith("<"):
        mm, pm = pair_from_xml(src)
    else:
        mm, pm = mujoco.MjModel.from_xml_path(src), phalanx.Model.from_xml_path(src)
    if integrator is not None:
        mm.opt.integrator = integrator
        pm.opt.integrator = integrator
    return mm, pm


#---------------------------------- position utilities ---------------------------------------------

@pytest.mark.asan
@pytest.mark.parametrize("name", ["joints", "humanoid", "ant"])
def test_integrate_differentiate_normalize(name):
    mm, pm = load(name)
    rng = np.random.default_rng(1)
    worst = 0.0
    for _ in range(5):
        q0 = mm.qpos0 + 0.5 * rng.standard_normal(mm.nq)
        v = 3 * rng.standard_normal(mm.nv)
        dt = float(rng.uniform(0.001, 0.5))

        # normalizeQuat on unnormalized quaternions
        a, b = q0.copy(), q0.copy()
        mujoco.mj_normalizeQuat(mm, a)
        phalanx.normalizeQuat(pm, b)
        worst = worse(worst, rel(b, a))

        # integratePos from unnormalized quaternions too
        a2, b2 = q0.copy(), q0.copy()
        mujoco.mj_integratePos(mm, a2, v, dt)
        phalanx.integratePos(pm, b2, v, dt)
        worst = worse(worst, rel(b2, a2))

        # differentiatePos between two normalized configurations
        va, vb = np.zeros(mm.nv), np.zeros(mm.nv)
        mujoco.mj_differentiatePos(mm, va, dt, a, a2)
        phalanx.differentiatePos(pm, vb, dt, a, a2)
        worst = worse(worst, rel(vb, va))
    assert worst <= TOL, worst


@pytest.mark.asan
def test_position_utilities_validate_arguments():
    _, pm = load("joints")
    with pytest.raises(ValueError):
        phalanx.integratePos(pm, np.zeros(pm.nq + 1), np.zeros(pm.nv), 0.1)
    with pytest.raises(TypeError):
        phalanx.normalizeQuat(pm, np.zeros(pm.nq, dtype=np.float32))
    with pytest.raises(ValueError):
        phalanx.differentiatePos(pm, np.zeros(pm.nv), 0.1, np.zeros(pm.nq), np.zeros(3))


#---------------------------------- integrator stages ----------------------------------------------

STEP_OUTPUTS = ["qpos", "qvel", "act", "qacc_warmstart"]


def compare_stage(mm, md, pm, pd, extra):
    errs = {f: rel(getattr(pd, f), getattr(md, f)) for f in STEP_OUTPUTS + extra}
    errs["time"] = abs(pd.time - md.time) / max(abs(md.time), 1e-12)
    return errs


@pytest.mark.asan
@pytest.mark.parametrize("name", ["joints", "humanoid", "walker2d", "ant"])
def test_euler_stage(name):
    mm, pm = load(name, integrator=0)
    rng = np.random.default_rng(2)
    for _ in range(3):
        md = random_state(mm, rng)
        mujoco.mj_forward(mm, md)
        pd = seed_phalanx(mm, md, pm)
        mujoco.mj_Euler(mm, md)
        phalanx._core._euler(pm, pd)
        errs = compare_stage(mm, md, pm, pd, ["qH", "qHDiagInv"])
        assert max(errs.values()) <= TOL, errs


def test_euler_flags():
    """eulerdamp and damper disabled: explicit velocity update; actuator groups disabled."""
    for flags in (1 << 15, 1 << 6, 0):
        mm, pm = load("joints", integrator=0)
        mm.opt.disableflags = pm.opt.disableflags = flags
        mm.opt.disableactuator = pm.opt.disableactuator = 1
        rng = np.random.default_rng(3)
        md = random_state(mm, rng)
        mujoco.mj_forward(mm, md)
        pd = seed_phalanx(mm, md, pm)
        mujoco.mj_Euler(mm, md)
        phalanx._core._euler(pm, pd)
        errs = compare_stage(mm, md, pm, pd, [])
        assert max(errs.values()) <= TOL, (flags, errs)


@pytest.mark.asan
@pytest.mark.parametrize("name", ["joints", "humanoid", "ant", "walker2d"])
def test_implicitfast_stage(name):
    mm, pm = load(name, integrator=3)
    rng = np.random.default_rng(4)
    for _ in range(3):
        md = random_state(mm, rng)
        mujoco.mj_forward(mm, md)
        pd = seed_phalanx(mm, md, pm)
        mujoco.mj_implicit(mm, md)
        phalanx._core._implicit(pm, pd)
        errs = compare_stage(mm, md, pm, pd, ["qDeriv", "qH", "qHDiagInv"])
        assert max(errs.values()) <= TOL, errs


def test_implicitfast_forcelimited_and_disabled():
    xml = JOINTS_XML.format(integrator="implicitfast", slidedamp=0.2).replace(
        '<velocity joint="slide" kv="3"/>',
        '<velocity joint="slide" kv="3" forcelimited="true" forcerange="-0.1 0.1" group="2"/>')
    mm, pm = pair_from_xml(xml)
    rng = np.random.default_rng(5)
    for disableactuator in (0, 1 << 2):
        mm.opt.disableactuator = pm.opt.disableactuator = disableactuator
        md = random_state(mm, rng)
        mujoco.mj_forward(mm, md)
        pd = seed_phalanx(mm, md, pm)
        mujoco.mj_implicit(mm, md)
        phalanx._core._implicit(pm, pd)
        errs = compare_stage(mm, md, pm, pd, ["qDeriv", "qH"])
        assert max(errs.values()) <= TOL, errs


@pytest.mark.asan
@pytest.mark.parametrize("name", ["joints", "humanoid", "ant", "walker2d"])
def test_implicit_stage(name):
    """The full implicit integrator: qDeriv with the rne derivative (mjd_rne_vel), qLU = M - h
    qDeriv factored by the sparse LU, the solve and the advance."""
    mm, pm = load(name, integrator=2)
    rng = np.random.default_rng(8)
    for _ in range(3):
        md = random_state(mm, rng)
        mujoco.mj_forward(mm, md)
        pd = seed_phalanx(mm, md, pm)
        mujoco.mj_implicit(mm, md)
        phalanx._core._implicit(pm, pd)
        errs = compare_stage(mm, md, pm, pd, ["qDeriv", "qLU"])
        assert max(errs.values()) <= TOL, errs


# a chain of ball joints under a free body, branches and bodies welded in between: dense LU rows
# with fill, parents welded to the world and to moving bodies (copy/add to parent rows)
BRANCHY_XML = """
<mujoco>
  <option timestep="0.005" integrator="implicit"/>
  <worldbody>
    <body pos="0 0 1">
      <freejoint/>
      <geom type="box" size="0.1 0.1 0.2" pos="0.02 0 0"/>
      <body pos="0.2 0 0">
        <geom type="sphere" size="0.05"/>
        <body pos="0.1 0 0">
          <joint type="ball" damping="0.2"/>
          <geom type="capsule" fromto="0 0 0 0.2 0.1 0" size="0.03"/>
          <body pos="0.2 0.1 0">
            <joint type="hinge" axis="0 0 1"/>
            <joint type="slide" axis="1 0 0"/>
            <geom type="sphere" size="0.04" pos="0 0.02 0"/>
          </body>
          <body pos="0 0.1 0.1">
            <joint type="ball"/>
            <geom type="ellipsoid" size="0.03 0.05 0.07"/>
          </body>
        </body>
      </body>
    </body>
    <body pos="1 0 0">
      <geom type="sphere" size="0.1"/>
      <body pos="0 0 0.3">
        <joint type="hinge" axis="1 1 0" armature="0.1"/>
        <geom type="capsule" fromto="0 0 0 0 0.2 0.2" size="0.03"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


@pytest.mark.asan
def test_implicit_stage_branches_and_welds():
    mm, pm = pair_from_xml(BRANCHY_XML)
    rng = np.random.default_rng(9)
    for _ in range(3):
        md = random_state(mm, rng)
        mujoco.mj_forward(mm, md)
        pd = seed_phalanx(mm, md, pm)
        mujoco.mj_implicit(mm, md)
        phalanx._core._implicit(pm, pd)
        errs = compare_stage(mm, md, pm, pd, ["qDeriv", "qLU"])
        assert max(errs.values()) <= TOL, errs


def test_unsupported_integrator_features_raise():
    _, pm = load("joints", integrator=2)
    pd = phalanx.Data(pm)
    pm.opt.enableflags = 1 << 4
    with pytest.raises(NotImplementedError, match="sleep"):
        phalanx._core._euler(pm, pd)


# every flag that phalanx's forward pass cannot honour yet, disabled in both engines
SMOOTH_ONLY = int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT | mujoco.mjtDisableBit.mjDSBL_SPRING
                  | mujoco.mjtDisableBit.mjDSBL_DAMPER | mujoco.mjtDisableBit.mjDSBL_ACTUATION)


def trajectory_error(mm, pm, nstep, rng):
    """Largest max|d|/(1+|x|) over differentiatePos(qpos), qvel, act and time along nstep steps of
    both engines from the same random state, with random qfrc_applied changing every step."""
    md = random_state(mm, rng)
    pd = phalanx.Data(pm)
    pd.qpos[:], pd.qvel[:], pd.act[:], pd.ctrl[:] = md.qpos, md.qvel, md.act, md.ctrl
    pd.time = md.time
    worst = 0.0
    dq = np.zeros(mm.nv)
    for _ in range(nstep):
        f = rng.normal(size=mm.nv)
        md.qfrc_applied[:] = f
        pd.qfrc_applied[:] = f
        mujoco.mj_step(mm, md)
        phalanx.step(pm, pd)
        mujoco.mj_differentiatePos(mm, dq, 1.0, md.qpos, np.asarray(pd.qpos))
        for a, b in ((dq, 0 * dq), (pd.qvel, md.qvel), (pd.act, md.act), ([pd.time], [md.time])):
            a, b = np.asarray(a, float), np.asarray(b, float)
            if a.size:
                worst = worse(worst, float(np.max(np.abs(a - b) / (1 + np.abs(b)))))
    return worst


@pytest.mark.parametrize("integrator", ["EULER", "RK4", "IMPLICIT", "IMPLICITFAST"])
@pytest.mark.parametrize("name", ["joints", "humanoid", "ant"])
def test_step_trajectory_matches_mujoco(name, integrator):
    """px_step (forward + integrator) stays with mj_step for 200 steps."""
    mm, pm = load(name, int(getattr(mujoco.mjtIntegrator, "mjINT_" + integrator)))
    for model in (mm, pm):
        model.opt.disableflags = model.opt.disableflags | SMOOTH_ONLY
    assert trajectory_error(mm, pm, 200, np.random.default_rng(11)) < 1e-8


@pytest.mark.parametrize("integrator", ["RK4", "IMPLICIT"])
def test_step_trajectory_branches(integrator):
    mm, pm = pair_from_xml(BRANCHY_XML)
    for model in (mm, pm):
        model.opt.integrator = int(getattr(mujoco.mjtIntegrator, "mjINT_" + integrator))
        model.opt.disableflags = model.opt.disableflags | SMOOTH_ONLY
    assert trajectory_error(mm, pm, 200, np.random.default_rng(12)) < 1e-8


#---------------------------------- reset and state ------------------------------------------------

KEY_XML = """
<mujoco>
  <worldbody>
    <body name="m" mocap="true" pos="1 2 3" quat="0 1 0 0"><geom size="0.1"/></body>
    <body pos="0 0 1"><freejoint/><geom size="0.1"/></body>
    <body name="b2"><joint name="h" type="hinge"/><geom size="0.1" pos="0 0 1"/></body>
  </worldbody>
  <equality><connect body1="b2" anchor="0 0 1" active="false"/>
            <joint joint1="h" active="true"/></equality>
  <actuator><general joint="h" dyntype="integrator"/><motor joint="h"/></actuator>
  <keyframe>
    <key time="1.5" qpos="1 2 3 0 1 0 0 0.4" qvel="1 2 3 4 5 6 7" act="0.3" ctrl="0.1 0.2"
         mpos="4 5 6" mquat="0 0 1 0"/>
  </keyframe>
</mujoco>
"""

STATE_FIELDS = ["qpos", "qvel", "act", "ctrl", "mocap_pos", "mocap_quat", "qacc_warmstart",
                "qfrc_applied", "xfrc_applied", "eq_active", "qacc", "act_dot", "xpos"]


def test_reset_and_keyframe():
    mm, pm = pair_from_xml(KEY_XML)
    md, pd = mujoco.MjData(mm), phalanx.Data(pm)
    rng = np.random.default_rng(6)
    for d in (md, pd):
        d.time = 3.0
        d.qvel[:] = 1
        d.qfrc_applied[:] = 2
        d.xfrc_applied[:] = 3
        d.eq_active[:] = [True, False]
        d.xpos[:] = 1
        d.qacc[:] = 4
    pd.qpos[:] = md.qpos[:] = rng.standard_normal(mm.nq)
    mujoco.mj_resetData(mm, md)
    phalanx.resetData(pm, pd)
    assert pd.time == md.time == 0
    for f in STATE_FIELDS:
        assert np.array_equal(np.asarray(getattr(pd, f)), np.asarray(getattr(md, f))), f
    mujoco.mj_resetDataKeyframe(mm, md, 0)
    phalanx.resetDataKeyframe(pm, pd, 0)
    assert pd.time == md.time == 1.5
    for f in STATE_FIELDS:
        assert np.array_equal(np.asarray(getattr(pd, f)), np.asarray(getattr(md, f))), f


@pytest.mark.asan
def test_state_roundtrip():
    mm, pm = pair_from_xml(KEY_XML)
    md, pd = mujoco.MjData(mm), phalanx.Data(pm)
    mujoco.mj_resetDataKeyframe(mm, md, 0)
    phalanx.resetDataKeyframe(pm, pd, 0)
    rng = np.random.default_rng(7)
    for d in (md, pd):
        d.qacc_warmstart[:] = [1, 2, 3, 4, 5, 6, 7]
        d.qfrc_applied[:] = -1
        d.xfrc_applied[1] = [1, 2, 3, 4, 5, 6]
    assert phalanx.mjSTATE_INTEGRATION == mujoco.mjtState.mjSTATE_INTEGRATION
    for spec in [1, 2, 6, int(mujoco.mjtState.mjSTATE_PHYSICS), int(mujoco.mjtState.mjSTATE_USER),
                 int(mujoco.mjtState.mjSTATE_INTEGRATION), int(rng.integers(0, 1 << 14))]:
        n = mujoco.mj_stateSize(mm, spec)
        assert phalanx.stateSize(pm, spec) == n
        a, b = np.empty(n), np.empty(n)
        mujoco.mj_getState(mm, md, a, spec)
        phalanx.getState(pm, pd, b, spec)
        assert np.array_equal(a, b), spec

        # set a perturbed state in both, read everything back
        s = a + rng.standard_normal(n)
        if spec & phalanx.mjSTATE_EQ_ACTIVE:
            pass  # booleans: any nonzero is true in both
        mujoco.mj_setState(mm, md, s, spec)
        phalanx.setState(pm, pd, s, spec)
        full = int(mujoco.mjtState.mjSTATE_INTEGRATION)
        a2, b2 = np.empty(mujoco.mj_stateSize(mm, full)), np.empty(phalanx.stateSize(pm, full))
        mujoco.mj_getState(mm, md, a2, full)
        phalanx.getState(pm, pd, b2, full)
        assert np.array_equal(a2, b2), spec
    with pytest.raises(ValueError):
        phalanx.stateSize(pm, 1 << 14)


@pytest.mark.asan
def test_copy_and_pickle():
    _, pm = pair_from_xml(KEY_XML)
    pd = phalanx.Data(pm)
    phalanx.resetDataKeyframe(pm, pd, 0)
    pd.qacc[:] = np.arange(pm.nv)
    for m2 in (pickle.loads(pickle.dumps(pm)), copy.copy(pm), copy.deepcopy(pm)):
        assert isinstance(m2, phalanx.Model)
        assert m2._to_bytes() == pm._to_bytes()
        assert not m2.frozen
    for d2 in (pickle.loads(pickle.dumps(pd)), copy.copy(pd), copy.deepcopy(pd)):
        assert isinstance(d2, phalanx.Data)
        assert d2.time == 1.5
        assert d2._to_bytes() == pd._to_bytes()
        d2.qpos[0] = 99
        assert pd.qpos[0] != 99
    d3 = phalanx.copyData(phalanx.Data(pm), pm, pd)
    assert d3._to_bytes() == pd._to_bytes()
    with pytest.raises(ValueError):
        phalanx.Model._from_bytes(b"nonsense")
