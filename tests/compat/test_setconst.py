# SPDX-License-Identifier: Apache-2.0
"""The constants MuJoCo 3.12 derives by running the engine (mj_setConst, mj_setLengthRange),
against mujoco: as compiled (the dampratio models of the corpus, the length-range simulation of
a muscle), and recomputed by phalanx.setConst after editing masses, inertias, armature, gears,
qpos0 and damping ratios identically in both, every model field and statistic compared."""

import numpy as np
import pytest

import phalanx
from phalanx import _core
from tests.conftest import shared_model
from tests.compat._util import rel as relerr

mujoco = pytest.importorskip("mujoco")

TOL = 1e-9

DAMPRATIO = [
    ("mujoco", "test", "engine", "testdata", "actuation", "dampratio.xml"),
    ("mujoco", "test", "engine", "testdata", "actuation", "tendon_dampratio.xml"),
    ("mujoco", "test", "engine", "testdata", "actuation", "refsite.xml"),
]

EDITED = [
    ("mujoco", "model", "humanoid", "humanoid.xml"),
    ("gymnasium", "ant.xml"),
    ("gymnasium", "pusher_v5.xml"),
    ("mujoco", "model", "slider_crank", "slider_crank.xml"),
    ("mujoco", "test", "engine", "testdata", "core_smooth", "ten_J3.xml"),
    ("mujoco", "test", "engine", "testdata", "core_smooth", "rne_post", "connect",
     "multiple_constraints.xml"),
    ("mujoco", "test", "engine", "testdata", "core_smooth", "rne_post", "weld",
     "tfratio0_multiple_constraints.xml"),
] + DAMPRATIO

CONST_FIELDS = ("body_subtreemass", "dof_M0", "dof_invweight0", "body_invweight0",
                "tendon_invweight0", "tendon_length0", "actuator_acc0", "actuator_length0",
                "actuator_lengthrange", "actuator_biasprm", "eq_data", "dof_length", "cam_pos0",
                "cam_poscom0", "cam_mat0", "light_pos0", "light_poscom0", "light_dir0",
                "tendon_lengthspring")
STATS = ("meaninertia", "meanmass", "meansize", "extent", "center")


def compare_all(ours, ref, where):
    """Every model field both define, and the statistics; returns the worst relative error of
    the engine-derived ones."""
    worst = {}
    for name in _core.MODEL_FIELDS:
        if not hasattr(ref, name):
            continue
        a, b = getattr(ours, name), getattr(ref, name)
        if isinstance(a, bytes):
            assert a == bytes(b), f"{name} {where}"
            continue
        b = np.asarray(b)
        assert a.shape == b.shape, f"{name}: shape {a.shape} != {b.shape} {where}"
        if a.dtype.kind in "iub" or b.dtype.kind in "iub":
            np.testing.assert_array_equal(a.astype(np.int64), b.astype(np.int64),
                                          err_msg=f"{name} {where}")
        else:
            e = relerr(a, b)
            assert e <= TOL, f"{name}: relative error {e:.3g} {where}"
            if name in CONST_FIELDS:
                worst[name] = e
    for name in STATS:
        e = relerr(np.atleast_1d(getattr(ours.stat, name)), np.atleast_1d(getattr(ref.stat, name)))
        assert e <= TOL, f"stat.{name}: relative error {e:.3g} {where}"
    return worst


@pytest.mark.parametrize("parts", DAMPRATIO, ids=[p[-1] for p in DAMPRATIO])
def test_dampratio_compiled(parts):
    path = shared_model(*parts)
    ours, ref = phalanx.Model.from_xml_path(path), mujoco.MjModel.from_xml_path(path)
    assert np.any(ref.actuator_biasprm[:, 2] < 0)  # some damping came from a ratio
    compare_all(ours, ref, "as compiled")


def edit(m, rng):
    """The same random edits, applied to a phalanx or a mujoco model."""
    scale = rng.uniform(0.5, 2.0, m.nbody)
    scale[0] = 1
    m.body_mass[:] = m.body_mass * scale
    m.body_inertia[:] = m.body_inertia * scale[:, None] * rng.uniform(0.8, 1.25, (m.nbody, 1))
    m.dof_armature[:] = m.dof_armature + rng.uniform(0, 0.05, m.nv)
    if m.nu:
        m.actuator_gear[:, 0] = m.actuator_gear[:, 0] * rng.uniform(0.5, 2.0, m.nu)
        # position-like actuators get a damping ratio again (biasprm[2] > 0)
        pos = m.actuator_gainprm[:, 0] == -m.actuator_biasprm[:, 1]
        m.actuator_biasprm[pos, 2] = rng.uniform(0.2, 1.5, int(pos.sum()))
    for j in range(m.njnt):
        if m.jnt_type[j] in (2, 3):  # slide, hinge
            a = m.jnt_qposadr[j]
            m.qpos0[a] = m.qpos0[a] + rng.uniform(-0.2, 0.2)


@pytest.mark.parametrize("parts", EDITED, ids=[p[-1] for p in EDITED])
def test_setconst_after_edit(parts):
    path = shared_model(*parts)
    ours, ref = phalanx.Model.from_xml_path(path), mujoco.MjModel.from_xml_path(path)
    edit(ours, np.random.default_rng(7))
    edit(ref, np.random.default_rng(7))
    d_ours, d_ref = phalanx.Data(ours), mujoco.MjData(ref)
    phalanx.setConst(ours, d_ours)
    mujoco.mj_setConst(ref, d_ref)
    worst = compare_all(ours, ref, "after edits and setConst")
    assert worst["dof_invweight0"] <= TOL
    # the scratch data is left at qpos_spring, as MuJoCo leaves it
    np.testing.assert_array_equal(d_ours.qpos, d_ref.qpos)
    # a second setConst changes nothing (the ratios are gains now)
    before = ours.actuator_biasprm.copy(), ours.dof_invweight0.copy()
    phalanx.setConst(ours, d_ours)
    np.testing.assert_array_equal(ours.actuator_biasprm, before[0])
    np.testing.assert_array_equal(ours.dof_invweight0, before[1])


# a muscle on a spatial tendon from the world to an unlimited arm: MuJoCo's length-range
# simulation needs no constraint and converges; a position servo with a damping ratio beside it
LR_XML = """<mujoco>
  <worldbody>
    <site name="s0" pos="0 0 .2"/>
    <body name="upper">
      <joint name="shoulder" axis="0 1 0" damping=".1"/>
      <geom type="capsule" fromto="0 0 0 .5 0 0" size=".05"/>
      <site name="s1" pos=".2 0 .05"/>
      <body pos=".5 0 0">
        <joint name="elbow" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 .4 0 0" size=".04"/>
      </body>
    </body>
  </worldbody>
  <tendon><spatial name="t1"><site site="s0"/><site site="s1"/></spatial></tendon>
  <actuator>
    <muscle name="m1" tendon="t1"/>
    <position name="p" joint="elbow" kp="10" dampratio=".7"/>
    %s
  </actuator>
</mujoco>"""


MUSCLE_PRM = ".75 1.05 -1 200 .5 1.6 1.5 1.3 1.2"


@pytest.mark.parametrize("extra", [
    "",
    "<muscle tendon='t1' lengthrange='.1 .3'/>",
    f"<general tendon='t1' gaintype='muscle' biastype='muscle' dyntype='muscle' "
    f"gainprm='{MUSCLE_PRM}' biasprm='{MUSCLE_PRM}'/>",
], ids=["muscle", "given", "general"])
def test_lengthrange_simulation(extra):
    xml = LR_XML % extra
    ours, ref = phalanx.Model.from_xml_string(xml), mujoco.MjModel.from_xml_string(xml)
    assert ref.actuator_lengthrange[0, 1] > ref.actuator_lengthrange[0, 0]
    worst = compare_all(ours, ref, "as compiled")
    assert worst["actuator_lengthrange"] <= TOL


def test_lengthrange_with_limits():
    # the same muscle with the shoulder limited: MuJoCo simulates with the limit active, and so
    # does phalanx now that it solves constraints
    xml = (LR_XML % "").replace('axis="0 1 0" damping', 'axis="0 1 0" range="-30 30" damping')
    ref = mujoco.MjModel.from_xml_string(xml)
    ours = phalanx.Model.from_xml_string(xml)
    assert np.all(np.isfinite(ours.actuator_lengthrange[0]))
    np.testing.assert_allclose(ours.actuator_lengthrange, ref.actuator_lengthrange, rtol=1e-9,
                               atol=1e-12)
    phalanx.forward(ours, phalanx.Data(ours))


def test_setconst_arguments():
    m = phalanx.Model.from_xml_string(LR_XML % "")
    other = phalanx.Model.from_xml_path(shared_model("gymnasium", "ant.xml"))
    with pytest.raises(TypeError):
        phalanx.setConst(m, m)
    with pytest.raises(ValueError):
        phalanx.setConst(m, phalanx.Data(other))


SPRINGDAMPER = """<mujoco><worldbody>
  <body><joint type="free" springdamper=".2 .7"/><geom size=".1" mass="2"/>
    <body pos=".3 0 0"><joint type="ball" springdamper=".1 1"/><geom size=".1"/>
      <body pos=".3 0 0"><joint springdamper=".3 .5" axis="0 1 0"/><joint type="slide"/>
        <geom size=".05" fromto="0 0 0 .2 0 0" type="capsule"/></body></body></body>
</worldbody></mujoco>"""


def test_springdamper():
    # joint stiffness and damping from (time constant, damping ratio) and dof_invweight0
    ours, ref = phalanx.Model.from_xml_string(SPRINGDAMPER), mujoco.MjModel.from_xml_string(SPRINGDAMPER)
    assert np.all(ref.jnt_stiffness[:3] > 0)
    compare_all(ours, ref, "as compiled")
