# SPDX-License-Identifier: Apache-2.0
"""The velocity derivatives of fluid forces (inertia-box and ellipsoid models, wind) and of muscle
gains under the implicit integrators, against mujoco 3.12 from identical states.

Stage tests: mujoco's mj_forward gives the inputs of mj_implicit, they are copied into phalanx's
Data, then mujoco's mj_implicit and phalanx's implicit stage run once each and qDeriv, the
factored matrix (qLU for implicit; qH and qHDiagInv for implicitfast) and the stepped state are
compared with ||a - b|| / max(||b||, 1e-12) <= 1e-9 (measured: bit-equal). Trajectory tests:
phalanx.step against mj_step for 200 steps from the same state.
"""

import mujoco
import numpy as np
import pytest

import phalanx
from tests.compat.test_integrate import STAGE_INPUTS, STEP_OUTPUTS, random_state, rel
from tests.conftest import shared_model

TOL = 1e-9

# inputs of the fluid and muscle derivatives beyond those of the other implicit stages
FLUID_INPUTS = ["geom_xpos", "geom_xmat", "subtree_com", "actuator_velocity"]

# a standalone free ellipsoid (its B is not symmetrized by implicitfast), a ball-jointed body with
# ellipsoid-model geoms of every semi-axes kind and one geom outside the model, a hinge chain, a
# body on two joints and a free tree with the inertia-box model; muscles on a joint, on a tendon
# (activation, actearly) and without dynamics (gain times ctrl), one force-limited
FLUID_XML = """
<mujoco>
  <option timestep="0.005" integrator="implicit" density="{density}" viscosity="{viscosity}"
          wind="{wind}" jacobian="{jacobian}"/>
  <worldbody>
    <body pos="0 0 1">
      <freejoint/>
      <geom type="ellipsoid" size="0.1 0.15 0.3" fluidshape="ellipsoid"
            fluidcoef="0.4 0.3 1.2 1.1 0.9"/>
    </body>
    <body pos="1 0 1">
      <joint name="ball" type="ball" damping="0.3"/>
      <geom type="capsule" fromto="0 0 0 0.3 0.1 0" size="0.05" fluidshape="ellipsoid"/>
      <geom type="box" size="0.05 0.06 0.07" pos="0.1 0 0" fluidshape="ellipsoid"/>
      <geom type="sphere" size="0.03" pos="0 0.1 0"/>
      <body pos="0.3 0.1 0">
        <joint name="hinge" type="hinge" axis="0 1 1" damping="0.5"/>
        <geom type="cylinder" fromto="0 0 0 0 0.3 0.2" size="0.04" fluidshape="ellipsoid"/>
        <body pos="0 0.3 0.2">
          <joint name="slide" type="slide" axis="1 0 0"/>
          <joint name="hinge2" type="hinge" axis="0 0 1"/>
          <geom type="box" size="0.07 0.02 0.05"/>
        </body>
      </body>
    </body>
    <body pos="-1 0 1">
      <freejoint/>
      <geom type="box" size="0.1 0.15 0.2"/>
      <body pos="0 0 0.3">
        <joint type="hinge" axis="1 0 0"/>
        <geom type="ellipsoid" size="0.05 0.08 0.1" fluidshape="ellipsoid"
              fluidcoef="0.5 0.2 1.5 1 1"/>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="t">
      <joint joint="hinge" coef="1"/>
      <joint joint="slide" coef="-0.5"/>
    </fixed>
  </tendon>
  <actuator>
    <muscle joint="hinge" lengthrange="-1 1" ctrllimited="true" ctrlrange="0 1"
            forcelimited="true" forcerange="-0.5 0"/>
    <general tendon="t" dyntype="muscle" dynprm="0.01 0.04 0" gaintype="muscle"
             gainprm="0.75 1.05 30 200 0.5 1.6 1.5 1.3 1.2" biastype="muscle"
             biasprm="0.75 1.05 30 200 0.5 1.6 1.5 1.3 1.2" lengthrange="-1.2 0.8"
             actearly="true"/>
    <general joint="hinge2" gaintype="muscle" gainprm="0.75 1.05 -1 150 0.5 1.6 1.5 1.3 1.2"
             biastype="muscle" biasprm="0.75 1.05 -1 150 0.5 1.6 1.5 1.3 1.2"
             lengthrange="-1 1"/>
    <motor joint="slide" gear="2"/>
  </actuator>
</mujoco>
"""


def fluid_xml(density=1000.0, viscosity=0.1, wind="0.4 -0.3 0.2", jacobian="dense"):
    return FLUID_XML.format(density=density, viscosity=viscosity, wind=wind, jacobian=jacobian)


def seed(mm, md, pm):
    pd = phalanx.Data(pm)
    for f in STAGE_INPUTS + FLUID_INPUTS:
        getattr(pd, f)[...] = np.asarray(getattr(md, f)).reshape(getattr(pd, f).shape)
    pd.time = md.time
    return pd


def stage_errors(mm, pm, integrator, seed_=3, nstate=3, vscale=2.0):
    """Largest relative error of each compared field over nstate random states."""
    mm.opt.integrator = pm.opt.integrator = integrator
    fields = STEP_OUTPUTS + (["qDeriv", "qLU"] if integrator == 2 else
                             ["qDeriv", "qH", "qHDiagInv"])
    rng = np.random.default_rng(seed_)
    worst = dict.fromkeys(fields, 0.0)
    for _ in range(nstate):
        md = random_state(mm, rng)
        md.qvel[:] *= vscale
        mujoco.mj_forward(mm, md)
        pd = seed(mm, md, pm)
        mujoco.mj_implicit(mm, md)
        phalanx._core._implicit(pm, pd)
        assert np.linalg.norm(md.qDeriv) > 0
        for f in fields:
            e = rel(getattr(pd, f), getattr(md, f))
            worst[f] = max(worst[f], e if np.isfinite(e) else np.inf)
    return worst


def pair(xml):
    return mujoco.MjModel.from_xml_string(xml), phalanx.Model.from_xml_string(xml)


@pytest.mark.asan
@pytest.mark.parametrize("integrator", [2, 3], ids=["implicit", "implicitfast"])
@pytest.mark.parametrize("jacobian", ["dense", "sparse"])
@pytest.mark.parametrize("density,viscosity", [(1.2, 0.0), (0.0, 0.05), (1000.0, 0.1)])
def test_fluid_muscle_stage(integrator, jacobian, density, viscosity):
    mm, pm = pair(fluid_xml(density, viscosity, jacobian=jacobian))
    errs = stage_errors(mm, pm, integrator)
    assert max(errs.values()) <= TOL, errs


def test_fluid_derivative_is_nonzero():
    """The fluid and muscle terms carry real weight in qDeriv here (no vacuous comparison)."""
    mm = mujoco.MjModel.from_xml_string(fluid_xml())
    md = random_state(mm, np.random.default_rng(3))
    md.qvel[:] *= 2

    def qderiv():
        d = mujoco.MjData(mm)
        d.qpos[:], d.qvel[:], d.act[:], d.ctrl[:] = md.qpos, md.qvel, md.act, md.ctrl
        mujoco.mj_forward(mm, d)
        mujoco.mj_implicit(mm, d)
        return d.qDeriv.copy()

    full = qderiv()
    mm.opt.density = mm.opt.viscosity = 0
    nofluid = qderiv()
    mm.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_ACTUATION)
    noact = qderiv()
    assert np.linalg.norm(full - nofluid) > 0.5 * np.linalg.norm(full)
    assert np.linalg.norm(nofluid - noact) > 1.0


@pytest.mark.parametrize("integrator", [2, 3], ids=["implicit", "implicitfast"])
@pytest.mark.parametrize("flags", ["spring", "damper", "both"])
def test_fluid_stage_passive_flags(integrator, flags):
    """mjd_passive_vel adds the fluid terms unless both springs and dampers are disabled."""
    bits = {"spring": mujoco.mjtDisableBit.mjDSBL_SPRING,
            "damper": mujoco.mjtDisableBit.mjDSBL_DAMPER,
            "both": mujoco.mjtDisableBit.mjDSBL_SPRING | mujoco.mjtDisableBit.mjDSBL_DAMPER}
    mm, pm = pair(fluid_xml())
    mm.opt.disableflags = pm.opt.disableflags = int(bits[flags])
    errs = stage_errors(mm, pm, integrator, seed_=6, nstate=2)
    assert max(errs.values()) <= TOL, errs


@pytest.mark.asan
@pytest.mark.parametrize("integrator", [2, 3], ids=["implicit", "implicitfast"])
@pytest.mark.parametrize("variant", ["plain", "wind", "sparse"])
def test_swimmer_stage(integrator, variant):
    """gymnasium's swimmer: the inertia-box model with density and viscosity."""
    path = shared_model("gymnasium", "swimmer.xml")
    mm, pm = mujoco.MjModel.from_xml_path(path), phalanx.Model.from_xml_path(path)
    if variant == "wind":
        mm.opt.wind[:] = pm.opt.wind[:] = [0.3, -0.2, 0.1]
    if variant == "sparse":
        mm.opt.jacobian = pm.opt.jacobian = int(mujoco.mjtJacobian.mjJAC_SPARSE)
    errs = stage_errors(mm, pm, integrator, seed_=4, vscale=1.0)
    assert max(errs.values()) <= TOL, errs


@pytest.mark.parametrize("integrator", [2, 3], ids=["implicit", "implicitfast"])
@pytest.mark.parametrize("name", [("balloons", "balloons.xml"), ("tendon_arm", "arm26.xml")],
                         ids=["balloons", "arm26"])
def test_corpus_stage(integrator, name):
    """Ellipsoid-model balloons on tendons (density, viscosity) and the muscle-driven arm. arm26's
    muscle length ranges come from MuJoCo's length-range simulation, which needs the constraint
    solver phalanx does not have yet (its values are NaN there): they are copied from mujoco, an
    input of the stage like the others."""
    path = shared_model("mujoco", "model", *name)
    mm, pm = mujoco.MjModel.from_xml_path(path), phalanx.Model.from_xml_path(path)
    pm.actuator_lengthrange[...] = mm.actuator_lengthrange
    errs = stage_errors(mm, pm, integrator, seed_=5, vscale=1.0)
    assert max(errs.values()) <= TOL, errs


@pytest.mark.parametrize("integrator", ["IMPLICIT", "IMPLICITFAST"])
@pytest.mark.parametrize("jacobian", ["dense", "sparse"])
def test_fluid_muscle_trajectory(integrator, jacobian):
    """phalanx.step stays with mj_step for 200 steps (constraints off, everything else on)."""
    mm, pm = pair(fluid_xml(jacobian=jacobian))
    for m in (mm, pm):
        m.opt.integrator = int(getattr(mujoco.mjtIntegrator, "mjINT_" + integrator))
        m.opt.disableflags = m.opt.disableflags | int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)
    rng = np.random.default_rng(13)
    md = random_state(mm, rng)
    pd = phalanx.Data(pm)
    pd.qpos[:], pd.qvel[:], pd.act[:], pd.ctrl[:] = md.qpos, md.qvel, md.act, md.ctrl
    pd.time = md.time
    dq = np.zeros(mm.nv)
    worst = 0.0
    for _ in range(200):
        u = rng.uniform(0, 1, mm.nu)
        md.ctrl[:] = u
        pd.ctrl[:] = u
        mujoco.mj_step(mm, md)
        phalanx.step(pm, pd)
        mujoco.mj_differentiatePos(mm, dq, 1.0, md.qpos, np.asarray(pd.qpos))
        e = float(np.max(np.abs(dq)))
        worst = max(worst, e if np.isfinite(e) else np.inf)
        for a, b in ((pd.qvel, md.qvel), (pd.act, md.act)):
            a, b = np.asarray(a, float), np.asarray(b, float)
            e = float(np.max(np.abs(a - b) / (1 + np.abs(b))))
            worst = max(worst, e if np.isfinite(e) else np.inf)
    assert np.all(np.isfinite(md.qvel))
    assert worst < 1e-8, worst
