# SPDX-License-Identifier: Apache-2.0
"""Tendon armature against mujoco 3.12 from identical states: the inertia it adds to M and the
velocity-product force it adds to qfrc_bias (mj_tendonBias through mj_tendonDot), alone, in the
forward pass and along step trajectories; ||a - b|| / max(||b||, 1e-12) <= 1e-9."""

import os

import mujoco
import numpy as np
import pytest

import phalanx
from tests.compat.test_integrate import SMOOTH_ONLY, random_state, rel, trajectory_error
from tests.conftest import shared_model

TOL = 1e-9
TESTDATA = ("mujoco", "test", "engine", "testdata", "core_smooth")

# spatial tendons through sites on moving, welded and world bodies, two sites on one body, a
# pulley (divisor), a branch of ball and free joints; a fixed tendon; an actuator armature that
# the tendon inherits
OWN_XML = """
<mujoco>
  <compiler angle="radian"/>
  <option timestep="0.002" integrator="{integrator}" jacobian="{jacobian}"/>
  <worldbody>
    <site name="w0" pos="0 0 2"/>
    <body pos="0 0 1">
      <freejoint/>
      <geom type="box" size="0.1 0.1 0.2" pos="0.03 0 0"/>
      <site name="a0" pos="0.1 0 0.2"/>
      <site name="a1" pos="-0.1 0 0.2"/>
      <body pos="0.2 0 0">
        <geom type="sphere" size="0.05"/>
        <site name="weld" pos="0.05 0 0"/>
        <body pos="0.1 0 0">
          <joint name="ball" type="ball" damping="0.1"/>
          <geom type="capsule" fromto="0 0 0 0.3 0.1 0" size="0.03"/>
          <site name="b0" pos="0.3 0.1 0"/>
          <body pos="0.3 0.1 0">
            <joint name="h" type="hinge" axis="0 0 1"/>
            <geom type="capsule" fromto="0 0 0 0 0.2 0" size="0.03"/>
            <site name="c0" pos="0 0.2 0"/>
          </body>
        </body>
        <body pos="0 0.2 0">
          <joint name="s" type="slide" axis="0 1 0"/>
          <geom type="sphere" size="0.04"/>
          <site name="d0" pos="0 0.05 0"/>
        </body>
      </body>
    </body>
  </worldbody>
  <tendon>
    <spatial armature="0.3">
      <site site="w0"/><site site="a0"/><site site="a1"/><site site="b0"/><site site="c0"/>
    </spatial>
    <spatial armature="0.2">
      <site site="weld"/><site site="b0"/>
      <pulley divisor="2"/>
      <site site="weld"/><site site="d0"/>
    </spatial>
    <fixed name="fx" armature="0.5"><joint joint="h" coef="1"/><joint joint="s" coef="-2"/></fixed>
    <spatial name="act">
      <site site="a0"/><site site="d0"/>
    </spatial>
  </tendon>
  <actuator>
    <motor tendon="act" armature="0.7" gear="1.5"/>
  </actuator>
</mujoco>
"""


def own(integrator="Euler", jacobian="dense"):
    xml = OWN_XML.format(integrator=integrator, jacobian=jacobian)
    mm, pm = mujoco.MjModel.from_xml_string(xml), phalanx.Model.from_xml_string(xml)
    return mm, pm


def corpus(name):
    path = shared_model(*TESTDATA, name)
    return mujoco.MjModel.from_xml_path(path), phalanx.Model.from_xml_path(path)


CORPUS = ["ten_armature_0.xml", "ten_armature_1.xml", "ten_armature_2.xml", "ten_armature_3.xml",
          "ten_armature_4.xml", "ten_armature_offtree.xml"]


def pairs():
    out = [("own-dense",) + own(), ("own-sparse",) + own(jacobian="sparse")]
    for name in CORPUS:
        if os.path.exists(shared_model(*TESTDATA, name)):
            out.append((name,) + corpus(name))
    return out


def forward_errors(mm, pm, rng, fields):
    for m in (mm, pm):
        m.opt.disableflags = m.opt.disableflags | SMOOTH_ONLY
    md = random_state(mm, rng)
    pd = phalanx.Data(pm)
    pd.qpos[:], pd.qvel[:], pd.act[:], pd.ctrl[:] = md.qpos, md.qvel, md.act, md.ctrl
    mujoco.mj_forward(mm, md)
    phalanx.forward(pm, pd)
    return md, pd, {f: rel(getattr(pd, f), getattr(md, f)) for f in fields}


@pytest.mark.parametrize("case", range(8))
def test_forward_with_tendon_armature(case):
    cases = pairs()
    if case >= len(cases):
        pytest.skip("corpus model absent")
    name, mm, pm = cases[case]
    rng = np.random.default_rng(20 + case)
    for _ in range(3):
        md, pd, errs = forward_errors(mm, pm, rng, ["M", "qLD", "qfrc_bias", "qacc", "ten_J",
                                                    "ten_velocity"])
        assert max(errs.values()) <= TOL, (name, errs)


@pytest.mark.asan
@pytest.mark.parametrize("jacobian", ["dense", "sparse"])
def test_tendon_bias_stage(jacobian):
    """The tendon bias alone: mujoco's qfrc_bias minus its rne part (mj_rne from the same state)
    against phalanx's tendonBias stage added to zero."""
    mm, pm = own(jacobian=jacobian)
    rng = np.random.default_rng(3)
    for _ in range(3):
        md, pd, _ = forward_errors(mm, pm, rng, [])
        rne = np.zeros(mm.nv)
        mujoco.mj_rne(mm, md, 0, rne)
        ref = md.qfrc_bias - rne
        assert np.linalg.norm(ref) > 1e-3  # the term is there
        pd.qfrc_bias[:] = 0
        phalanx._core._stage(pm, pd, "tendonBias")
        assert rel(pd.qfrc_bias, ref) <= 1e-9


def test_sparse_jacobian_path_is_taken():
    """nv >= 60 with jacobian auto, or jacobian sparse, sums the chain terms one by one; the two
    settings give (slightly) different sums in mujoco, and phalanx follows each."""
    mm, pm = own(jacobian="sparse")
    md, pd, errs = forward_errors(mm, pm, np.random.default_rng(4), ["qfrc_bias"])
    assert errs["qfrc_bias"] <= TOL


@pytest.mark.parametrize("integrator", ["Euler", "RK4", "implicit", "implicitfast"])
def test_trajectory_with_tendon_armature(integrator):
    mm, pm = own(integrator=integrator)
    for m in (mm, pm):
        m.opt.disableflags = m.opt.disableflags | SMOOTH_ONLY
    assert trajectory_error(mm, pm, 150, np.random.default_rng(5)) < 1e-8


def test_geom_wrap_with_armature_is_named():
    """Both compilers reject armature on a tendon wrapping a geom; set after compiling, phalanx's
    forward pass names it (MuJoCo's mj_tendonDot raises)."""
    xml = """
    <mujoco>
      <worldbody>
        <site name="s0" pos="0 0 1"/>
        <body><joint type="hinge"/><geom name="g" type="sphere" size="0.1" pos="0 0 0.5"/>
          <site name="s1" pos="0.3 0 0"/></body>
      </worldbody>
      <tendon><spatial armature="{a}"><site site="s0"/><geom geom="g"/><site site="s1"/>
      </spatial></tendon>
    </mujoco>"""
    with pytest.raises(phalanx.MJCFError, match="geom wrapping"):
        phalanx.Model.from_xml_string(xml.format(a=1))
    pm = phalanx.Model.from_xml_string(xml.format(a=0))
    pm.tendon_armature[0] = 1
    pm.opt.disableflags = pm.opt.disableflags | SMOOTH_ONLY
    with pytest.raises(NotImplementedError, match="geom wrapping"):
        phalanx.forward(pm, phalanx.Data(pm))
