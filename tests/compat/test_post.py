# SPDX-License-Identifier: Apache-2.0
"""Post-step quantities and energy against MuJoCo 3.12 from identical states, constraints
disabled in both engines: mj_rnePostConstraint (cacc, cfrc_int, cfrc_ext) after mj_forward with
random xfrc_applied, mj_objectAcceleration for every object with a frame (world and local),
mj_rne with and without acceleration, mj_jacDot, mj_jacPointAxis, mj_jacSubtreeCom, and the
energy array (mj_energyPos, mj_energyVel) after mj_forward and after mj_step with the energy flag
(Euler, RK4, implicitfast). Tolerance: ||ours - ref|| / max(||ref||, 1e-12) <= 1e-9, field by
field; the worst error of each test is recorded (record_property)."""

import glob
import os

import mujoco
import numpy as np
import pytest

import phalanx
from tests.conftest import SHARED_MODELS, shared_model
from tests.compat._util import rel

TOL = 1e-9
DSBL = mujoco.mjtDisableBit
ENBL_ENERGY = int(mujoco.mjtEnableBit.mjENBL_ENERGY)

# joint and tendon springs (free, hinge, ball, slide; polynomial stiffness; a tendon dead band)
SPRINGS = """
<mujoco>
  <option><flag energy="enable" constraint="disable"/></option>
  <worldbody>
    <body pos="0 0 1">
      <joint name="free" type="free" stiffness="2 0.5 0.3" damping="0.4"/>
      <geom type="box" size=".1 .2 .05"/>
      <site name="s0" pos=".1 0 0"/>
      <body pos="0 0 -.3">
        <joint name="hinge" axis="0 1 0" stiffness="2 0.5 0.1" springref="0.2"/>
        <geom type="capsule" size=".05 .1"/>
        <camera name="c0" pos="0 .2 0"/>
        <body pos="0 0 -.3">
          <joint name="ball" type="ball" stiffness="1.5 0 0.4"/>
          <geom type="sphere" size=".07"/>
          <body pos="0 0 -.2">
            <joint name="slide" type="slide" axis="1 0 0" stiffness="4" springref="-0.1"/>
            <joint name="hinge2" axis="0 0 1"/>
            <geom type="sphere" size=".05"/>
          </body>
        </body>
      </body>
    </body>
    <body pos="1 0 0">
      <geom type="box" size=".1 .1 .1"/>
    </body>
  </worldbody>
  <tendon>
    <fixed name="deadband" stiffness="3 0.1 0.2" springlength="-0.1 0.1">
      <joint joint="hinge" coef="1"/>
      <joint joint="slide" coef="-0.5"/>
    </fixed>
    <fixed name="plain" stiffness="1" springlength="0.05">
      <joint joint="slide" coef="2"/>
    </fixed>
  </tendon>
</mujoco>"""

MODELS = [
    shared_model("gymnasium", "ant.xml"),
    shared_model("gymnasium", "humanoid.xml"),
    shared_model("gymnasium", "half_cheetah.xml"),
    shared_model("mujoco", "model", "cube", "cube_3x3x3.xml"),  # ball joints, nv 66
    "SPRINGS",
]
FULL_EXTRA = sorted(glob.glob(os.path.join(SHARED_MODELS, "gymnasium", "*.xml")))


def pytest_generate_tests(metafunc):
    if "path" in metafunc.fixturenames:
        paths = MODELS
        if metafunc.config.getoption("--full"):
            paths = MODELS + [p for p in FULL_EXTRA if p not in MODELS]
        ids = [p if p == "SPRINGS" else os.path.relpath(p, SHARED_MODELS) for p in paths]
        metafunc.parametrize("path", paths, ids=ids)


def load(path, energy=True):
    """(phalanx, mujoco) models with constraints disabled and (energy) the energy flag set."""
    if path == "SPRINGS":
        ours, ref = phalanx.Model.from_xml_string(SPRINGS), mujoco.MjModel.from_xml_string(SPRINGS)
    else:
        ours, ref = phalanx.Model.from_xml_path(path), mujoco.MjModel.from_xml_path(path)
    for m in (ours, ref):
        m.opt.disableflags = m.opt.disableflags | int(DSBL.mjDSBL_CONSTRAINT)
        if energy:
            m.opt.enableflags = m.opt.enableflags | ENBL_ENERGY
        else:
            m.opt.enableflags = m.opt.enableflags & ~ENBL_ENERGY
    try:
        phalanx.forward(ours, phalanx.Data(ours))
    except NotImplementedError as e:
        pytest.skip(f"forward not supported: {str(e)[:100]}")
    return ours, ref


class Worst:
    """The largest relative error seen, each check asserted against TOL."""

    def __init__(self):
        self.err = 0.0

    def __call__(self, name, ours, ref):
        err = rel(ours, ref)
        assert err <= TOL, f"{name}: relative error {err:.3g}"
        self.err = max(self.err, err)


def random_state(ref, rng, do, dr):
    """The same random qpos (unnormalized quaternions), qvel, ctrl and xfrc_applied (some bodies
    left without) in both Data."""
    q = ref.qpos0.copy()
    for j in range(ref.njnt):
        a, t = ref.jnt_qposadr[j], ref.jnt_type[j]
        if t == mujoco.mjtJoint.mjJNT_FREE:
            q[a:a + 3] = rng.uniform(-1, 1, 3)
            q[a + 3:a + 7] = rng.normal(size=4) * rng.uniform(0.5, 2)
        elif t == mujoco.mjtJoint.mjJNT_BALL:
            q[a:a + 4] = rng.normal(size=4) * rng.uniform(0.5, 2)
        else:
            lo, hi = ref.jnt_range[j] if ref.jnt_limited[j] else (-np.pi, np.pi)
            q[a] = rng.uniform(lo, hi)
    v = rng.normal(size=ref.nv) * 2
    xf = rng.normal(size=(ref.nbody, 6)) * 3
    xf[rng.uniform(size=ref.nbody) < 0.3] = 0
    xf[:, rng.integers(6)] = 0  # a zero component
    u = rng.uniform(-1, 1, ref.nu)
    for d in (do, dr):
        d.qpos[:] = q
        d.qvel[:] = v
        d.xfrc_applied[:] = xf
        d.ctrl[:] = u
        d.act[:] = 0


def forward_both(ours, ref, do, dr):
    phalanx.forward(ours, do)
    mujoco.mj_forward(ref, dr)


def objects(ref):
    return [(mujoco.mjtObj.mjOBJ_BODY, ref.nbody), (mujoco.mjtObj.mjOBJ_XBODY, ref.nbody),
            (mujoco.mjtObj.mjOBJ_GEOM, ref.ngeom), (mujoco.mjtObj.mjOBJ_SITE, ref.nsite),
            (mujoco.mjtObj.mjOBJ_CAMERA, ref.ncam)]


def test_rne_post_constraint(path, record_property):
    ours, ref = load(path)
    do, dr = phalanx.Data(ours), mujoco.MjData(ref)
    rng = np.random.default_rng(5)
    worst = Worst()
    for trial in range(4):
        if trial == 3:  # without gravity: the world acceleration is zero
            for m in (ours, ref):
                m.opt.disableflags = m.opt.disableflags | int(DSBL.mjDSBL_GRAVITY)
        random_state(ref, rng, do, dr)
        forward_both(ours, ref, do, dr)
        worst("qacc", do.qacc, dr.qacc)
        phalanx.rnePostConstraint(ours, do)
        mujoco.mj_rnePostConstraint(ref, dr)
        for f in ("cacc", "cfrc_int", "cfrc_ext"):
            worst(f"{f} (state {trial})", getattr(do, f), getattr(dr, f))
        assert np.any(dr.cfrc_ext != 0) or not np.any(dr.xfrc_applied[1:] != 0)

        # objectAcceleration reads cacc: every object with a frame, world and local orientation
        for objtype, n in objects(ref):
            for i in range(n):
                for local in (0, 1):
                    ro, rr = np.zeros(6), np.zeros(6)
                    phalanx.objectAcceleration(ours, do, objtype, i, ro, local)
                    mujoco.mj_objectAcceleration(ref, dr, objtype, i, rr, local)
                    worst(f"objectAcceleration {objtype} {i} local={local}", ro, rr)

        for flg_acc in (0, 1):
            ro, rr = np.zeros(ref.nv), np.zeros(ref.nv)
            phalanx.rne(ours, do, flg_acc, ro)
            mujoco.mj_rne(ref, dr, flg_acc, rr)
            worst(f"rne flg_acc={flg_acc}", ro, rr)
    record_property("worst_rel_err", worst.err)


def test_jacobian_utilities(path, record_property):
    ours, ref = load(path)
    do, dr = phalanx.Data(ours), mujoco.MjData(ref)
    rng = np.random.default_rng(9)
    random_state(ref, rng, do, dr)
    forward_both(ours, ref, do, dr)
    nv = ref.nv
    worst = Worst()
    for b in range(ref.nbody):
        p, ax = rng.normal(size=3), rng.normal(size=3)
        jo, jr = [np.zeros((3, nv)) for _ in range(2)], [np.zeros((3, nv)) for _ in range(2)]
        phalanx.jacDot(ours, do, jo[0], jo[1], p, b)
        mujoco.mj_jacDot(ref, dr, jr[0], jr[1], p, b)
        worst(f"jacDot jacp body {b}", jo[0], jr[0])
        worst(f"jacDot jacr body {b}", jo[1], jr[1])
        phalanx.jacPointAxis(ours, do, jo[0], jo[1], p, ax, b)
        mujoco.mj_jacPointAxis(ref, dr, jr[0], jr[1], p, ax, b)
        worst(f"jacPointAxis jacPoint body {b}", jo[0], jr[0])
        worst(f"jacPointAxis jacAxis body {b}", jo[1], jr[1])
        phalanx.jacSubtreeCom(ours, do, jo[0], b)
        mujoco.mj_jacSubtreeCom(ref, dr, jr[0], b)
        worst(f"jacSubtreeCom body {b}", jo[0], jr[0])
    # one output skipped
    jo = np.zeros((3, nv))
    phalanx.jacDot(ours, do, None, jo, np.zeros(3), ref.nbody - 1)
    mujoco.mj_jacDot(ref, dr, None, jr[1], np.zeros(3), ref.nbody - 1)
    worst("jacDot jacr alone", jo, jr[1])
    phalanx.jacPointAxis(ours, do, None, jo, np.zeros(3), np.ones(3), ref.nbody - 1)
    mujoco.mj_jacPointAxis(ref, dr, jr[0], jr[1], np.zeros(3), np.ones(3), ref.nbody - 1)
    worst("jacPointAxis jacAxis alone", jo, jr[1])
    record_property("worst_rel_err", worst.err)


def test_energy_forward(path, record_property):
    ours, ref = load(path)
    do, dr = phalanx.Data(ours), mujoco.MjData(ref)
    rng = np.random.default_rng(2)
    worst = Worst()
    for trial in range(3):
        random_state(ref, rng, do, dr)
        forward_both(ours, ref, do, dr)
        assert dr.energy[1] > 0
        worst(f"energy (state {trial})", do.energy, dr.energy)
        # the public functions, whatever the flag
        do.energy[:] = 0
        phalanx.energyPos(ours, do)
        phalanx.energyVel(ours, do)
        worst("energyPos/energyVel", do.energy, dr.energy)
    # gravity and springs disabled in turn
    for bit in (DSBL.mjDSBL_GRAVITY, DSBL.mjDSBL_SPRING):
        for m in (ours, ref):
            m.opt.disableflags = m.opt.disableflags | int(bit)
        forward_both(ours, ref, do, dr)
        worst(f"energy without {bit.name}", do.energy, dr.energy)
    # without the flag mj_forward clears both entries
    for m in (ours, ref):
        m.opt.enableflags = m.opt.enableflags & ~ENBL_ENERGY
    forward_both(ours, ref, do, dr)
    assert np.all(do.energy == 0) and np.all(dr.energy == 0)
    record_property("worst_rel_err", worst.err)


@pytest.mark.parametrize("integrator", ["Euler", "RK4", "implicitfast"])
def test_energy_step(integrator, record_property):
    """Energy after mj_step from identical states (the forward pass of the step computes it; RK4
    leaves its last stage's), stepping a few times, each step restarted from MuJoCo's state."""
    ours, ref = load("SPRINGS")
    value = int(getattr(mujoco.mjtIntegrator, "mjINT_" + integrator.upper()))
    ours.opt.integrator = ref.opt.integrator = value
    do, dr = phalanx.Data(ours), mujoco.MjData(ref)
    rng = np.random.default_rng(4)
    random_state(ref, rng, do, dr)
    worst = Worst()
    for k in range(5):
        phalanx.step(ours, do)
        mujoco.mj_step(ref, dr)
        worst(f"energy after step {k}", do.energy, dr.energy)
        worst(f"qpos after step {k}", do.qpos, dr.qpos)
        do.qpos[:], do.qvel[:], do.act[:] = dr.qpos, dr.qvel, dr.act
        do.time = dr.time
    record_property("worst_rel_err", worst.err)


@pytest.mark.asan
def test_energy_flag_from_xml():
    """<flag energy="enable"/> compiles into opt.enableflags and is honoured by forward."""
    ours = phalanx.Model.from_xml_string(SPRINGS)
    ref = mujoco.MjModel.from_xml_string(SPRINGS)
    assert ours.opt.enableflags == ref.opt.enableflags == ENBL_ENERGY
    assert ours.opt.disableflags == ref.opt.disableflags
    do, dr = phalanx.Data(ours), mujoco.MjData(ref)
    phalanx.forward(ours, do)
    mujoco.mj_forward(ref, dr)
    assert dr.energy[0] != 0
    assert rel(do.energy, dr.energy) <= TOL
    phalanx.resetData(ours, do)
    assert np.all(do.energy == 0)


@pytest.mark.asan
def test_asan_smoke():
    """The post-step functions once on the spring model and a ball-joint model, under ASan."""
    test_rne_post_constraint("SPRINGS", lambda *a: None)
    test_jacobian_utilities("SPRINGS", lambda *a: None)
    test_energy_forward(shared_model("mujoco", "model", "cube", "cube_3x3x3.xml"),
                        lambda *a: None)


@pytest.mark.asan
def test_rne_post_constraint_refuses_what_forward_refuses():
    # with constraints, cfrc_ext carries the last solve's contact and equality forces
    # (tests/compat/test_constraint.py); a model forward refuses is refused here too
    ours = phalanx.Model.from_xml_path(shared_model("gymnasium", "ant.xml"))
    d = phalanx.Data(ours)
    phalanx.forward(ours, d)
    phalanx.rnePostConstraint(ours, d)
    ours.opt.enableflags |= int(mujoco.mjtEnableBit.mjENBL_SLEEP)
    with pytest.raises(NotImplementedError, match="sleep"):
        phalanx.rnePostConstraint(ours, d)
    ours.opt.enableflags = 0
    ours.opt.disableflags |= int(DSBL.mjDSBL_CONSTRAINT)
    phalanx.rnePostConstraint(ours, d)


@pytest.mark.asan
def test_argument_checks():
    ours = phalanx.Model.from_xml_path(shared_model("gymnasium", "hopper.xml"))
    d = phalanx.Data(ours)
    nv = ours.nv
    with pytest.raises(ValueError, match="no spatial frame"):
        phalanx.objectAcceleration(ours, d, phalanx.ObjType.JOINT, 0, np.zeros(6), 0)
    with pytest.raises(IndexError, match="object id"):
        phalanx.objectAcceleration(ours, d, phalanx.ObjType.BODY, ours.nbody, np.zeros(6), 0)
    with pytest.raises(ValueError, match="res has"):
        phalanx.objectAcceleration(ours, d, phalanx.ObjType.BODY, 0, np.zeros(5), 0)
    with pytest.raises(ValueError, match="result has"):
        phalanx.rne(ours, d, 1, np.zeros(nv + 1))
    with pytest.raises(IndexError, match="body id"):
        phalanx.jacDot(ours, d, None, None, np.zeros(3), -1)
    with pytest.raises(ValueError, match="axis has"):
        phalanx.jacPointAxis(ours, d, None, None, np.zeros(3), np.zeros(2), 1)
    with pytest.raises(ValueError, match="jacp has"):
        phalanx.jacSubtreeCom(ours, d, np.zeros(3 * nv - 1), 1)
    with pytest.raises(TypeError, match="jacp must be"):
        phalanx.jacSubtreeCom(ours, d, None, 1)
    ours.opt.enableflags = int(mujoco.mjtEnableBit.mjENBL_SLEEP)
    with pytest.raises(NotImplementedError, match="sleep"):
        phalanx.rne(ours, d, 0, np.zeros(nv))
    with pytest.raises(NotImplementedError, match="sleep"):
        phalanx.energyPos(ours, d)
