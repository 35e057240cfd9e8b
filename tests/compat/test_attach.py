# SPDX-License-Identifier: Apache-2.0
"""Model composition (<model> assets and <attach>) against MuJoCo 3.12 (the oracle).

A child model with its own default classes, assets, joints of every kind, tendons, actuators,
sensors, equality constraints, contact pairs, exclusions and keyframes is attached several times
(inside a <replicate> and a rotated <frame>, and once more with another prefix) into a parent that
has defaults, elements and a keyframe of its own. Every compiled array both engines define must
agree (tests/compat/test_conformance.py's rules). Input MuJoCo rejects must be rejected, and the
composition forms phalanx does not support must raise NotImplementedError naming them.
"""

import pytest

import phalanx
from tests.compat.test_conformance import assert_field, compared_fields

mujoco = pytest.importorskip("mujoco")

CHILD = """
<mujoco model="child">
  <compiler angle="degree"/>
  <default>
    <geom type="capsule" size=".05" rgba=".1 .2 .3 1" friction=".6"/>
    <joint damping=".3" armature=".01"/>
    <default class="stiff"><joint stiffness="4" range="-40 40"/></default>
  </default>
  <asset>
    <texture name="grid" type="2d" builtin="checker" width="8" height="8"/>
    <material name="skin" texture="grid" rgba=".8 .6 .4 1"/>
    <mesh name="tet" vertex="0 0 0  .1 0 0  0 .1 0  0 0 .1"/>
  </asset>
  <worldbody>
    <geom name="ground" type="plane" size="1 1 .1"/>
    <body name="other" pos="2 0 0"><joint name="jo"/><geom size=".1" type="sphere"/></body>
    <body name="torso" pos="0 0 1" euler="0 0 30">
      <freejoint name="root"/>
      <geom name="tg" fromto="0 0 0 0 0 .3" material="skin"/>
      <site name="s0" pos="0 .1 0"/>
      <body name="arm" pos="0 0 .3">
        <joint name="shoulder" class="stiff" axis="0 1 0"/>
        <joint name="twist" type="ball" range="0 60"/>
        <geom name="ag" fromto="0 0 0 .3 0 0"/>
        <geom name="mg" type="mesh" mesh="tet" pos=".3 0 0"/>
        <site name="s1" pos=".3 0 0"/>
        <body name="hand" pos=".3 0 0">
          <joint name="slide" type="slide" axis="1 0 0" range="-.1 .1"/>
          <geom name="hg" size=".04" type="sphere"/>
        </body>
      </body>
    </body>
  </worldbody>
  <contact>
    <pair geom1="tg" geom2="hg" condim="1"/>
    <exclude body1="torso" body2="hand"/>
    <exclude body1="other" body2="torso"/>
  </contact>
  <tendon>
    <fixed name="couple"><joint joint="shoulder" coef="1"/><joint joint="slide" coef="-.5"/></fixed>
    <spatial name="rope"><site site="s0"/><site site="s1"/></spatial>
    <fixed name="outside"><joint joint="jo" coef="1"/></fixed>
  </tendon>
  <equality>
    <joint joint1="shoulder" joint2="slide" polycoef="0 1 0 0 0"/>
    <weld body1="hand"/>
  </equality>
  <actuator>
    <motor name="m_sh" joint="shoulder" gear="2" ctrlrange="-1 1"/>
    <position name="p_rope" tendon="rope" kp="10" ctrlrange="0 .5"/>
    <general name="g_site" site="s1" gear="0 0 1 0 0 0" dyntype="filter" dynprm=".1"/>
    <motor name="m_out" joint="jo"/>
  </actuator>
  <sensor>
    <jointpos name="q_sh" joint="shoulder"/>
    <framepos name="fp" objtype="site" objname="s1" reftype="body" refname="torso"/>
    <tendonpos tendon="rope"/>
    <jointpos joint="jo"/>
  </sensor>
  <keyframe>
    <key name="bent" qpos=".2  0 0 1.2 1 0 0 0  .5  1 0 0 0  .05" CTRL_ACT/>
    <key name="up" time="2" qvel="0 0 0 0 0 0 0 .5 0 0 0 .1"/>
  </keyframe>
</mujoco>
"""

# the child's controls and activations in keyframes, set per test
CTRL_ACT = 'ctrl="0 .5 .2 0" act=".3"'

PARENT = """
<mujoco model="parent">
  <compiler angle="degree"/>
  <default><geom size=".2" rgba="1 0 0 1"/></default>
  <asset>
    <material name="floor" rgba=".5 .5 .5 1"/>
    <model name="kid" file="child.xml"/>
  </asset>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 .1" material="floor"/>
    <replicate count="2" euler="0 0 90" sep="#">
      <frame pos="1 0 0" euler="0 10 0">
        <attach model="kid" body="torso" prefix="k/"/>
      </frame>
    </replicate>
    <body name="base" pos="0 0 .5">
      <joint name="base_slide" type="slide"/>
      <geom type="box" size=".1 .1 .1"/>
      <attach model="kid" body="arm" prefix="solo_"/>
    </body>
  </worldbody>
  <tendon><fixed name="own"><joint joint="base_slide" coef="1"/></fixed></tendon>
  <actuator><motor name="own_m" joint="base_slide"/></actuator>
  OWN_KEYS
</mujoco>
"""

OWN_KEYS = '<keyframe><key name="mine" time="1"/></keyframe>'

# the same without the replicated attachment (keyframes with controls, the parent's own keys)
SOLO = PARENT[:PARENT.index("    <replicate")] + PARENT[PARENT.index("    <body name=\"base\""):]


def write(tmp_path, parent, ctrl_act="", own_keys="", child_option=""):
    child = CHILD.replace("CTRL_ACT", ctrl_act)
    child = child.replace("</compiler>", "").replace('<compiler angle="degree"/>',
                                                      '<compiler angle="degree"/>' + child_option)
    (tmp_path / "child.xml").write_text(child)
    p = tmp_path / "parent.xml"
    p.write_text(parent.replace("OWN_KEYS", own_keys))
    return str(p)


def compare_models(ours, ref):
    for s in phalanx._core.MODEL_SIZES:
        if hasattr(ref, s):
            assert getattr(ours, s) == getattr(ref, s), s
    for name in compared_fields(ours, ref):
        assert_field(name, getattr(ours, name), getattr(ref, name))
    for t, n in (("BODY", ref.nbody), ("JOINT", ref.njnt), ("GEOM", ref.ngeom),
                 ("TENDON", ref.ntendon), ("ACTUATOR", ref.nu), ("SENSOR", ref.nsensor),
                 ("MATERIAL", ref.nmat), ("MESH", ref.nmesh), ("KEY", ref.nkey)):
        ot = getattr(phalanx.ObjType, t)
        for i in range(n):
            name = mujoco.mj_id2name(ref, getattr(mujoco.mjtObj, "mjOBJ_" + t), i)
            assert ours.id2name(ot, i) == (name or None), (t, i)


def load_both(path):
    return phalanx.Model.from_xml_path(path), mujoco.MjModel.from_xml_path(path)


def test_attach_matches_mujoco(tmp_path):
    ours, ref = load_both(write(tmp_path, PARENT))
    # the composition is really there: three copies, renamed, misc elements and keys merged
    assert ref.nbody == 1 + 2 * 3 + 1 + 2 and ref.nu == 1 + 2 * 3 + 2 and ref.nkey == 4
    compare_models(ours, ref)


def test_attach_keyframes_with_controls_and_own_keys(tmp_path):
    ours, ref = load_both(write(tmp_path, SOLO, ctrl_act=CTRL_ACT, own_keys=OWN_KEYS))
    assert ref.nkey == 3 and ref.key_ctrl.any() and ref.key_act.any()
    compare_models(ours, ref)


@pytest.mark.parametrize("ctrl_act, own_keys", [(CTRL_ACT, ""), ("", OWN_KEYS)])
def test_attach_replicated_keyframe_rules_are_named(tmp_path, ctrl_act, own_keys):
    path = write(tmp_path, PARENT, ctrl_act=ctrl_act, own_keys=own_keys)
    mujoco.MjModel.from_xml_path(path)  # valid input
    with pytest.raises(NotImplementedError, match="<replicate>"):
        phalanx.Model.from_xml_path(path)


@pytest.mark.parametrize("parent", [PARENT, SOLO])
def test_attach_keyframes_and_kinematics(tmp_path, parent):
    ours, ref = load_both(write(tmp_path, parent))
    d_ours, d_ref = phalanx.Data(ours), mujoco.MjData(ref)
    for k in range(ref.nkey):
        d_ours.qpos[:] = ref.key_qpos[k]
        mujoco.mj_resetDataKeyframe(ref, d_ref, k)
        mujoco.mj_kinematics(ref, d_ref)
        phalanx.kinematics(ours, d_ours)
        for f in ("xpos", "xquat", "geom_xpos", "site_xpos"):
            assert_field(f, getattr(d_ours, f), getattr(d_ref, f))


@pytest.mark.parametrize("edit, error, words", [
    ('model="kid" body="hand"', phalanx.MJCFError, None),  # a valid baseline
    ('model="nokid" body="torso"', phalanx.MJCFError, "unknown model asset 'nokid'"),
    ('model="kid" body="nobody"', phalanx.MJCFError, "body 'nobody' not found in model 'kid'"),
    ('model="kid" frame="f"', NotImplementedError, "attaching a frame"),
    ('model="kid"', NotImplementedError, "attaching a whole model"),
])
def test_attach_errors(tmp_path, edit, error, words):
    parent = PARENT.replace('model="kid" body="arm"', edit)
    path = write(tmp_path, parent)
    if words is None:  # the baseline edit keeps a valid model that both engines load
        load_both(path)
        return
    with pytest.raises(error, match=words):
        phalanx.Model.from_xml_path(path)
    if error is phalanx.MJCFError:
        with pytest.raises(ValueError):
            mujoco.MjModel.from_xml_path(path)


def test_attach_conflict_error(tmp_path):
    parent = PARENT.replace('<compiler angle="degree"/>',
                            '<compiler angle="degree" conflict="error"/><option timestep=".01"/>')
    # the child's option differs and is set explicitly (an unset one would not conflict)
    unset = write(tmp_path, parent)
    compare_models(phalanx.Model.from_xml_path(unset), mujoco.MjModel.from_xml_path(unset))
    path = write(tmp_path, parent, child_option='<option timestep=".002"/>')
    with pytest.raises(ValueError, match="conflict"):
        mujoco.MjModel.from_xml_path(path)
    with pytest.raises(phalanx.MJCFError, match="parent.xml:[0-9]+: <attach>: attach conflict"):
        phalanx.Model.from_xml_path(path)


def test_attach_angle_unit_mismatch_is_named(tmp_path):
    parent = PARENT.replace('<compiler angle="degree"/>', '<compiler angle="radian"/>')
    with pytest.raises(NotImplementedError, match="compiler angle unit"):
        phalanx.Model.from_xml_path(write(tmp_path, parent))


def test_replicate_with_keyframes_is_named(tmp_path):
    # MuJoCo 3.12 copies the keyframes once per replica (suffixed); phalanx says it cannot
    xml = """<mujoco><worldbody><replicate count="2" sep="#"><body><joint/><geom size=".1"/>
      </body></replicate></worldbody><keyframe><key name="k" time="1"/></keyframe></mujoco>"""
    assert mujoco.MjModel.from_xml_string(xml).nkey == 3
    with pytest.raises(NotImplementedError, match="keyframes in a model with <replicate>"):
        phalanx.Model.from_xml_string(xml)


def test_missing_model_file(tmp_path):
    p = tmp_path / "parent.xml"
    p.write_text(PARENT)
    with pytest.raises(phalanx.MJCFError, match="child.xml"):
        phalanx.Model.from_xml_path(str(p))
