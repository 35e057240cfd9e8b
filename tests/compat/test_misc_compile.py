# SPDX-License-Identifier: Apache-2.0
"""The MJCF elements outside the body tree against MuJoCo 3.12 (the oracle): tendons, actuators,
sensors, equality constraints, contact pairs and exclusions, keyframes and custom data.

Every tendon_/wrap_/actuator_/sensor_/eq_/pair_/exclude_/key_/numeric_/text_/tuple_ array that
phalanx defines is compared with mujoco's: integers exactly, reals within 1e-9 relative or
1e-12 absolute; so are the sizes and the names of these objects. Models MuJoCo rejects must be
rejected (MJCFError); valid input phalanx cannot compile exactly must be NotImplementedError.
"""

import glob
import re

import numpy as np
import pytest

import phalanx
from phalanx import _core
from tests.compat.test_conformance import lengthrange_not_computed
from tests.conftest import shared_model

mujoco = pytest.importorskip("mujoco")

RTOL, ATOL = 1e-9, 1e-12

PREFIXES = ("tendon_", "wrap_", "actuator_", "sensor_", "eq_", "pair_", "exclude_", "key_",
            "numeric_", "text_", "tuple_")
SIZES = ("nu", "na", "ntendon", "nwrap", "nsensor", "nsensordata", "neq", "nemax", "npair",
         "nexclude", "nkey", "nnumeric", "nnumericdata", "ntext", "ntextdata", "ntuple",
         "ntupledata", "nuser_tendon", "nuser_actuator", "nuser_sensor", "nJten", "nJmom")
NAMED = [("TENDON", "ntendon"), ("ACTUATOR", "nu"), ("SENSOR", "nsensor"), ("EQUALITY", "neq"),
         ("PAIR", "npair"), ("EXCLUDE", "nexclude"), ("NUMERIC", "nnumeric"), ("TEXT", "ntext"),
         ("TUPLE", "ntuple"), ("KEY", "nkey")]


def as_array(v):
    a = np.asarray(v)
    if a.dtype.kind == "S":  # mujoco's text_data
        a = np.frombuffer(a.tobytes(), dtype=np.uint8)
    elif a.dtype.kind == "b":
        a = a.astype(np.uint8)
    return a.reshape(-1)


# every field is compared, the engine-derived ones included (csrc/engine/setconst.c), except the
# length ranges phalanx cannot simulate yet (NaN, see test_conformance.lengthrange_not_computed)
ENGINE_DERIVED = set()


def compare(ours, ref):
    """Every misc field, size and name of two compiled models."""
    for size in SIZES:
        assert getattr(ours, size) == getattr(ref, size), size
    fields = [f for f in _core.MODEL_FIELDS if f.startswith(PREFIXES) and f not in ENGINE_DERIVED]
    assert fields
    for f in fields:
        a, b = as_array(getattr(ours, f)), as_array(getattr(ref, f))
        if f == "actuator_lengthrange":
            keep = np.repeat(~lengthrange_not_computed(ours), 2)
            a, b = a[keep], b[keep]
        assert a.shape == b.shape, f"{f}: shape {a.shape} != {b.shape}"
        if a.dtype.kind in "iub":
            np.testing.assert_array_equal(a, b.astype(a.dtype), err_msg=f)
        else:
            np.testing.assert_allclose(a, b, rtol=RTOL, atol=ATOL, err_msg=f)
    for objtype, size in NAMED:
        for i in range(getattr(ref, size)):
            want = mujoco.mj_id2name(ref, getattr(mujoco.mjtObj, "mjOBJ_" + objtype), i)
            got = phalanx.id2name(ours, getattr(phalanx.ObjType, objtype), i)
            assert (got or None) == (want or None), f"{objtype} {i}: {got!r} != {want!r}"


def check(xml):
    ref = mujoco.MjModel.from_xml_string(xml)
    ours = phalanx.Model.from_xml_string(xml)
    compare(ours, ref)
    return ours, ref


def rejected(xml, match=None):
    """MuJoCo rejects the model; phalanx must reject it as invalid MJCF."""
    with pytest.raises(Exception):
        mujoco.MjModel.from_xml_string(xml)
    with pytest.raises(phalanx.MJCFError, match=match):
        phalanx.Model.from_xml_string(xml)


def unsupported(xml, match=None):
    """MuJoCo accepts the model; phalanx must say it is not supported yet, never be wrong."""
    mujoco.MjModel.from_xml_string(xml)
    with pytest.raises(NotImplementedError, match=match):
        phalanx.Model.from_xml_string(xml)


# a small arm with every kind of joint, sites, geoms and cameras to attach things to
WORLD = """
<worldbody>
  <site name="s0" pos="-.2 0 0"/>
  <site name="x0" pos="0 -.2 0"/>
  <geom name="floor" type="plane" size="2 2 .1"/>
  <body name="upper" pos="0 0 1">
    <joint name="shoulder" range="-90 90"/>
    <joint name="twist" type="slide" axis="1 0 0" range="-.1 .2" springref=".05"/>
    <geom name="ucyl" type="cylinder" size=".1 .05"/>
    <geom name="uarm" type="capsule" fromto="0 0 0 .5 0 0" size=".04" priority="1"
          friction=".7 .1 .01" margin=".01"/>
    <site name="s1" pos=".15 .06 0"/>
    <site name="s2" pos=".15 -.06 0"/>
    <site name="s3" pos=".4 .06 0"/>
    <site name="x1" pos=".5 -.2 0"/>
    <site name="in0" pos=".02 .01 0"/>
    <camera name="cam" pos="0 0 1" resolution="4 3"/>
    <body name="fore" pos=".5 0 0" euler="0 10 20">
      <joint name="elbow" springref="15"/>
      <geom name="fsph" type="sphere" size=".08"/>
      <geom name="farm" type="capsule" fromto="0 0 0 .5 0 0" size=".03"/>
      <site name="s4" pos=".11 .05 0"/>
      <site name="s5" pos=".11 -.05 0"/>
      <body name="hand" pos=".5 0 0">
        <joint name="wrist" type="ball" range="0 60"/>
        <geom name="hgeom" type="box" size=".05 .04 .03"/>
        <site name="s6" pos=".05 0 0"/>
      </body>
    </body>
  </body>
  <body name="ball" pos="1 1 1">
    <freejoint name="free"/>
    <geom name="bgeom" size=".1"/>
    <site name="s7"/>
  </body>
  <body name="target" mocap="true" pos="0 1 1" quat="1 0 0 1">
    <geom name="tgeom" size=".05" contype="0" conaffinity="0"/>
  </body>
</worldbody>
"""


def model(body, head=""):
    return f"<mujoco>{head}{WORLD}{body}</mujoco>"


#---------------------------------- tendons --------------------------------------------------------

def test_fixed_tendons():
    check(model("""
<default>
  <tendon stiffness="3 1 2" damping=".5" springlength=".3" rgba="1 0 0 1" user="1 2"/>
  <default class="lim"><tendon limited="true" range="-1 1" margin=".1" solreflimit=".05"
                                frictionloss=".2" solimpfriction=".8 .9"/></default>
</default>
<tendon>
  <fixed name="t0"><joint joint="shoulder" coef="1"/><joint joint="elbow" coef="-.5"/></fixed>
  <fixed class="lim" springlength="-1" armature=".1" actuatorfrclimited="true"
         actuatorfrcrange="-2 3"><joint joint="twist" coef="2"/></fixed>
  <fixed springlength="-1 -1" group="3" user="5"><joint joint="elbow" coef="3"/>
    <joint joint="twist" coef="1"/></fixed>
  <fixed name="auto" range="0 1"><joint joint="shoulder" coef="1"/></fixed>
</tendon>""", "<size nuser_tendon='3'/>"))


def test_spatial_tendons():
    check(model("""
<asset><material name="red" rgba="1 0 0 1"/></asset>
<tendon>
  <spatial name="a" width=".01" material="red" stiffness="1">
    <site site="s0"/><geom geom="ucyl"/><site site="s1"/>
  </spatial>
  <spatial name="b"><site site="s0"/><geom geom="ucyl" sidesite="x0"/><site site="s2"/></spatial>
  <spatial name="c"><site site="s3"/><geom geom="fsph"/><site site="s4"/></spatial>
  <spatial name="d"><site site="s1"/><geom geom="fsph" sidesite="x1"/><site site="s5"/>
    <pulley divisor="2"/><site site="s0"/><site site="s6"/><site site="s7"/></spatial>
  <spatial name="e" springlength=".4 .5" range=".1 2" limited="true">
    <site site="s1"/><site site="s4"/></spatial>
  <spatial name="f" armature=".2"><site site="s2"/><site site="s6"/></spatial>
  <spatial name="g"><site site="s0"/><geom geom="ucyl" sidesite="in0"/><site site="s3"/>
    <geom geom="fsph" sidesite="s4"/><site site="s6"/></spatial>
</tendon>"""))


#---------------------------------- actuators ------------------------------------------------------

def test_actuator_shortcuts():
    check(model("""
<default>
  <general ctrlrange="-1 1" user="7"/>
  <default class="pos"><position kp="10" kv="2" timeconst=".02"/></default>
  <default class="vel"><velocity kv="3" forcerange="-5 5"/></default>
  <default class="damp"><damper kv="4" ctrlrange="0 1"/></default>
  <default class="cyl"><cylinder area="2" bias="1 2 3" timeconst=".3"/></default>
  <default class="mot"><motor gear="2 0 0 0 0 1" ctrllimited="false"/></default>
</default>
<actuator>
  <motor name="m0" joint="shoulder"/>
  <motor class="mot" joint="twist" forcelimited="true" forcerange="-1 1"/>
  <position class="pos" joint="elbow"/>
  <position class="pos" joint="shoulder" kp="4"/>
  <position joint="twist" kp="3" inheritrange="1.5" ctrlrange="0 0"/>
  <position joint="shoulder" kp="3" inheritrange=".9" ctrlrange="0 0"/>
  <velocity class="vel" joint="elbow"/>
  <velocity joint="shoulder" kv="7"/>
  <intvelocity joint="elbow" kp="5" actrange="-1 1"/>
  <intvelocity joint="twist" kp="2" inheritrange=".5"/>
  <damper class="damp" joint="elbow"/>
  <damper joint="shoulder" kv="1" ctrlrange="0 2"/>
  <cylinder class="cyl" joint="twist"/>
  <cylinder joint="twist" diameter=".5" timeconst=".1"/>
  <adhesion body="hand" gain="5" ctrlrange="0 1"/>
  <muscle name="mus" joint="elbow" lengthrange="-1 1" force="100" timeconst=".02 .05"
          range=".5 1.5"/>
  <general joint="wrist" gear="1 2 3" dyntype="filter" gaintype="affine" biastype="affine"
           gainprm="1 2 3" biasprm="4 5 -6" dynprm=".5" actearly="true" actlimited="true"
           actrange="-3 3" group="2"/>
  <general jointinparent="elbow" dyntype="user" actdim="3"/>
  <general joint="free" damping="1 .5 .1" armature=".2"/>
</actuator>""", "<size nuser_actuator='-1'/>"))


def test_actuator_defaults_accumulate():
    # a default <position kp> sets gainprm/biasprm; later shortcuts read them back
    check(model("""
<default>
  <position kp="10"/>
  <default class="a"><velocity kv="3"/></default>
  <default class="b"><position kv="1"/><motor/></default>
  <default class="c"><damper kv="2"/><default class="d"><damper/></default></default>
  <default class="e"><general gainprm="1"/><muscle scale="300"/></default>
</default>
<actuator>
  <position joint="elbow"/>
  <position joint="elbow" class="a"/>
  <velocity joint="elbow" class="a"/>
  <position joint="elbow" class="b"/>
  <general joint="elbow" class="b"/>
  <damper joint="elbow" class="d" ctrlrange="0 1"/>
  <muscle joint="elbow" class="e" lengthrange="0 1"/>
  <intvelocity joint="elbow" class="a" kv="-1"/>
</actuator>"""))


def test_transmissions():
    check(model("""
<tendon><fixed name="ten" range="-1 2"><joint joint="elbow" coef="1"/></fixed></tendon>
<actuator>
  <motor joint="wrist"/>
  <motor joint="free"/>
  <motor jointinparent="wrist"/>
  <motor tendon="ten"/>
  <position tendon="ten" inheritrange="1"/>
  <motor site="s6"/>
  <motor site="s6" refsite="s0"/>
  <motor site="s4" refsite="s2" gear="1 2 3 4 5 6"/>
  <motor cranksite="s4" slidersite="s0" cranklength=".3"/>
  <position cranksite="s6" slidersite="s5" cranklength=".1"/>
  <general body="ball"/>
  <adhesion body="upper" ctrlrange="0 .5"/>
</actuator>"""))


#---------------------------------- sensors --------------------------------------------------------

def test_sensors():
    check(model("""
<tendon><fixed name="ten" limited="true" range="-1 1"><joint joint="elbow" coef="1"/></fixed>
</tendon>
<actuator><motor name="act" joint="elbow"/></actuator>
<sensor>
  <touch site="s1" name="touch" noise=".1" cutoff="2" user="1 2 3"/>
  <accelerometer site="s2"/><velocimeter site="s3"/><gyro site="s4"/>
  <force site="s5"/><torque site="s6"/><magnetometer site="s7"/>
  <camprojection site="s7" camera="cam"/>
  <rangefinder site="s1"/><rangefinder camera="cam" data="dist point normal"/>
  <jointpos joint="elbow"/><jointvel joint="twist"/>
  <tendonpos tendon="ten"/><tendonvel tendon="ten"/>
  <actuatorpos actuator="act"/><actuatorvel actuator="act"/><actuatorfrc actuator="act"/>
  <jointactuatorfrc joint="shoulder"/><tendonactuatorfrc tendon="ten"/>
  <ballquat joint="wrist"/><ballangvel joint="wrist"/>
  <jointlimitpos joint="shoulder"/><jointlimitvel joint="wrist"/><jointlimitfrc joint="twist"/>
  <tendonlimitpos tendon="ten"/><tendonlimitvel tendon="ten"/><tendonlimitfrc tendon="ten"/>
  <framepos objtype="site" objname="s1"/>
  <framequat objtype="body" objname="fore" reftype="xbody" refname="upper"/>
  <framexaxis objtype="geom" objname="farm" reftype="camera" refname="cam"/>
  <frameyaxis objtype="camera" objname="cam"/>
  <framezaxis objtype="xbody" objname="hand" reftype="site" refname="s0"/>
  <framelinvel objtype="site" objname="s6" reftype="geom" refname="fsph"/>
  <frameangvel objtype="body" objname="ball"/>
  <framelinacc objtype="site" objname="s6"/><frameangacc objtype="body" objname="hand"/>
  <subtreecom body="upper"/><subtreelinvel body="fore"/><subtreeangmom body="world"/>
  <insidesite site="s0" objtype="body" objname="ball"/>
  <distance geom1="fsph" geom2="bgeom" cutoff="1"/>
  <normal body1="fore" geom2="bgeom"/>
  <fromto body1="fore" body2="ball"/>
  <contact/>
  <contact geom1="fsph" body2="ball" data="found force torque dist" num="3" reduce="mindist"/>
  <contact site="s6" subtree2="upper" data="pos normal tangent" reduce="netforce"/>
  <contact subtree1="upper" geom2="floor"/>
  <e_potential/><e_kinetic/><clock name="clock"/>
  <user dim="2" name="u1"/>
  <user dim="3" objtype="body" objname="hand" datatype="axis" needstage="vel" noise=".5"/>
  <user dim="4" objtype="foo" objname="bar" datatype="quaternion" needstage="none"/>
</sensor>""", "<size nuser_sensor='4'/>"))


def test_history_buffers():
    # nsample, delay, interval (with phase) and interp of actuators and sensors: history arrays
    # and nhistory (the engine runs them: tests/compat/test_history.py)
    check(model("""
<actuator><general joint='elbow' nsample='3' delay='.01'/>
  <motor joint='twist' nsample='5' delay='.004' interp='cubic'/><motor joint='elbow' nsample='2'/>
</actuator>
<sensor><jointpos joint='elbow' nsample='2'/><jointpos joint='elbow' interval='.1'/>
  <framepos objtype='site' objname='s1' nsample='4' delay='.003' interval='.01 -.005'
            interp='linear'/>
  <accelerometer site='s2' nsample='3' delay='.002'/>
</sensor>"""))


#---------------------------------- equality constraints -------------------------------------------

def test_equalities():
    check(model("""
<tendon><fixed name="t1"><joint joint="shoulder" coef="2"/></fixed>
  <fixed name="t2"><joint joint="elbow" coef="1"/></fixed></tendon>
<default><equality solref=".05 2" solimp=".8"/>
  <default class="off"><equality active="false"/></default></default>
<equality>
  <connect name="c1" body1="fore" anchor="0 0 1"/>
  <connect body1="fore" body2="hand" anchor=".1 .2 .3" class="off"/>
  <connect site1="s4" site2="s7"/>
  <weld body1="hand"/>
  <weld body1="fore" body2="ball" anchor="1 2 3" torquescale="4"/>
  <weld body1="fore" body2="hand" relpose="1 2 3 1 1 0 0"/>
  <weld body1="hand" relpose="1 2 3 0 0 0 0"/>
  <weld site1="s6" site2="s0" solref="-100 -10"/>
  <joint joint1="elbow"/>
  <joint joint1="elbow" joint2="shoulder" polycoef="1 2 3"/>
  <tendon tendon1="t1" tendon2="t2" polycoef="0 1 0 0 .5" active="false"/>
  <tendon tendon1="t2"/>
</equality>"""))


def test_equality_sites_only():
    # site connects need no kinematics: eq_data is zeroed
    check(model("""<equality><connect site1="s1" site2="s7"/><weld site1="s1" site2="s7"/>
</equality>"""))


#---------------------------------- contact --------------------------------------------------------

def test_pairs_and_excludes():
    check(model("""
<default><pair condim="4" friction="2 1"/><default class="p"><pair margin=".2" gap=".1"
  solreffriction=".1 2" solimp=".5 .6"/></default></default>
<contact>
  <pair name="p0" geom1="bgeom" geom2="farm"/>
  <pair geom1="fsph" geom2="ucyl" class="p"/>
  <pair name="p2" geom1="floor" geom2="bgeom" condim="1" friction="1 2 3 4 5"/>
  <pair geom1="hgeom" geom2="floor" condim="6" solref="-1 -2"/>
  <exclude name="e0" body1="ball" body2="upper"/>
  <exclude body1="hand" body2="world"/>
  <exclude name="e2" body1="upper" body2="fore"/>
</contact>"""))


#---------------------------------- keyframes and custom data --------------------------------------

def test_keyframes():
    check(model("""
<actuator><motor joint="elbow"/><position joint="twist" timeconst=".1"/></actuator>
<keyframe>
  <key name="home"/>
  <key time="2" qpos="0 .1 .2 1 1 1 0 1 2 3 2 0 0 0" qvel="1 2 3 4 5 6 7 8 9 10 11 12"
       act="3" ctrl="1 2" mpos="1 2 3" mquat="0 0 0 2"/>
  <key name="q" qpos="0 0 0 0 0 0 0 0 0 0 1 1 1 1"/>
  <key qpos="0 0 0 0 0 0 0 0 0 0 0 0 0 0"/>
</keyframe>""", "<size nkey='6'/>"))


def test_short_keyframes():
    # MuJoCo pads short lists: qpos from the joints' reference, the rest with zeros
    check("""<mujoco><compiler angle="radian"/><worldbody><body>
  <joint name="a"/><joint name="b" type="slide" ref=".3"/><joint name="c" ref=".2"/>
  <joint name="d" type="ball"/><geom size=".1"/></body></worldbody>
<actuator><motor joint="a"/><general joint="b" dyntype="integrator"/></actuator>
<keyframe><key qpos="1"/><key qpos="1 2 3 0 1"/><key qvel="1 2" act="" ctrl="3"/></keyframe>
</mujoco>""")


def test_custom():
    check(model("""
<custom>
  <numeric name="n1" data="1 2 3"/>
  <numeric name="n2" size="5" data="4 5"/>
  <numeric name="n3" size="2"/>
  <text name="t1" data="hello world"/>
  <tuple name="tu"><element objtype="body" objname="fore" prm=".5"/>
    <element objtype="site" objname="s3"/><element objtype="xbody" objname="hand" prm="2"/>
    <element objtype="numeric" objname="n2"/><element objtype="tuple" objname="tu"/></tuple>
  <text name="t2" data="x"/>
</custom>"""))


def test_nuser_longest():
    check(model("""
<tendon><fixed user="1 2 3"><joint joint="elbow" coef="1"/></fixed>
  <fixed><joint joint="elbow" coef="1"/></fixed></tendon>
<actuator><motor joint="elbow" user="1"/><motor joint="elbow" user="1 2 3 4"/></actuator>
<sensor><clock user="9 8"/><clock/></sensor>"""))


#---------------------------------- corpus models --------------------------------------------------

GYM = sorted(glob.glob(shared_model("gymnasium", "*.xml")))


@pytest.mark.parametrize("path", GYM + [shared_model("mujoco", "model", "slider_crank",
                                                     "slider_crank.xml")],
                         ids=lambda p: p.split("models/")[-1])
def test_corpus(path):
    ref = mujoco.MjModel.from_xml_path(path)
    compare(phalanx.Model.from_xml_path(path), ref)


def test_pair_adhesion():
    # pair_adhesion is a compiled field like any other (the contact stage that reads it is later)
    check(model("<contact><pair geom1='fsph' geom2='bgeom' adhesion='1'/></contact>"))


def test_tendon_arm():
    # muscles without a lengthrange: MuJoCo computes actuator_lengthrange by a simulation with
    # the joint limits active (the constraint stage); so does phalanx, to MuJoCo's values
    path = shared_model("mujoco", "model", "tendon_arm", "arm26.xml")
    ref = mujoco.MjModel.from_xml_path(path)
    ours = phalanx.Model.from_xml_path(path)
    assert not lengthrange_not_computed(ours).any()
    np.testing.assert_allclose(ours.actuator_lengthrange, ref.actuator_lengthrange, rtol=1e-9)
    phalanx.forward(ours, phalanx.Data(ours))
    # with the sparse Jacobian the simulation runs it too, to MuJoCo's values
    xml = open(path).read().replace('solver="Newton"', 'solver="Newton" jacobian="sparse"')
    ours = phalanx.Model.from_xml_string(xml)
    assert not lengthrange_not_computed(ours).any()
    np.testing.assert_allclose(ours.actuator_lengthrange,
                               mujoco.MjModel.from_xml_string(xml).actuator_lengthrange, rtol=1e-9)
    # ranges left NaN ("not computed", as when the simulation meets what phalanx refuses):
    # stepping the muscles is refused, naming why
    ours = phalanx.Model.from_xml_path(path)
    ours.actuator_lengthrange[:] = np.nan
    assert lengthrange_not_computed(ours).all()
    ours.opt.disableflags = ours.opt.disableflags | int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)
    with pytest.raises(NotImplementedError, match="lengthrange"):
        phalanx.forward(ours, phalanx.Data(ours))

    # with the lengthranges given, everything else must match too
    xml = open(path).read()
    xml = re.sub(r'<muscle name="(\w+)" tendon="(\w+)"/>',
                 r'<muscle name="\1" tendon="\2" lengthrange=".1 .5"/>', xml)
    check(xml)


def test_replicate_references():
    # MuJoCo copies a tendon that refers into a <replicate>; phalanx says it cannot yet
    path = shared_model("mujoco", "model", "replicate", "tendon.xml")
    mujoco.MjModel.from_xml_path(path)
    with pytest.raises(NotImplementedError, match="replicate"):
        phalanx.Model.from_xml_path(path)


#---------------------------------- rejections -----------------------------------------------------

INVALID = [
    ("<default><motor name='x'/></default>", "name"),
    ("<default><motor joint='elbow'/></default>", "joint"),
    ("<default><position kp='1'/><position kv='1'/></default>", "position"),
    ("<default><tendon armature='1'/></default>", "armature"),
    ("<default><equality body1='fore'/></default>", "body1"),
    ("<default><pair geom1='fsph'/></default>", "geom1"),
    ("<actuator><motor joint='elbow' dyntype='filter'/></actuator>", "dyntype"),
    ("<actuator><motor joint='nope'/></actuator>", "nope"),
    ("<actuator><motor/></actuator>", "missing transmission target"),
    ("<actuator><motor joint='elbow' class='nope'/></actuator>", "nope"),
    ("<actuator><position joint='elbow' kv='1' dampratio='1'/></actuator>", "dampratio"),
    ("<actuator><position joint='elbow' kv='-1'/></actuator>", "negative"),
    ("<actuator><position joint='elbow' inheritrange='1' ctrlrange='0 1'/></actuator>",
     "inheritrange"),
    ("<actuator><position joint='wrist' inheritrange='1'/></actuator>", "hinge and slide"),
    ("<actuator><motor joint='elbow' ctrlrange='1 0' ctrllimited='true'/></actuator>",
     "control range"),
    ("<actuator><damper joint='elbow' kv='-1'/></actuator>", "negative"),
    ("<actuator><damper joint='elbow' ctrlrange='-1 1'/></actuator>", "negative"),
    ("<actuator><motor site='s1' damping='1'/></actuator>", "damping"),
    ("<actuator><motor cranksite='s1' slidersite='s2'/></actuator>", "crank length"),
    ("<actuator><motor cranksite='s1' cranklength='1'/></actuator>", "slider"),
    ("<actuator><motor joint='elbow' refsite='s1'/></actuator>", "refsite"),
    ("<actuator><general joint='elbow' actdim='2'/></actuator>", "actdim"),
    ("<actuator><general joint='elbow' dyntype='filter' actdim='0'/></actuator>", "actdim"),
    ("<actuator><general joint='elbow' actrange='0 1' actlimited='true'/></actuator>",
     "dyntype"),
    ("<actuator><muscle joint='elbow' lmin='2' lengthrange='0 1'/></actuator>", "lmin"),
    ("<actuator><motor joint='elbow' user='1 2'/></actuator><size nuser_actuator='1'/>", "user"),
    ("<tendon><fixed><joint joint='elbow'/></fixed></tendon>", "coef"),
    ("<tendon><fixed/></tendon>", "empty"),
    ("<tendon><spatial><site site='s1'/></spatial></tendon>", "two objects"),
    ("<tendon><spatial><site site='s1'/><geom geom='farm'/><site site='s2'/></spatial></tendon>",
     "sphere or cylinder"),
    ("<tendon><spatial><site site='s1'/><geom geom='fsph'/></spatial></tendon>", "bracketed"),
    ("<tendon><spatial><site site='s1'/><pulley divisor='1'/><site site='s2'/></spatial>"
     "</tendon>", "pulley"),
    ("<tendon><spatial><site site='s1'/><site site='s1'/></spatial></tendon>", "repeated"),
    ("<tendon><spatial><joint joint='elbow' coef='1'/></spatial></tendon>", "joint"),
    ("<tendon><fixed springlength='2 1'><joint joint='elbow' coef='1'/></fixed></tendon>",
     "springlength"),
    ("<tendon><fixed range='1 0' limited='true'><joint joint='elbow' coef='1'/></fixed>"
     "</tendon>", "limits"),
    ("<tendon><spatial material='nope'><site site='s1'/><site site='s2'/></spatial></tendon>",
     "material"),
    ("<equality><connect body1='fore'/></equality>", None),
    ("<equality><connect site1='s1' body1='fore' anchor='0 0 0'/></equality>", None),
    ("<equality><weld body1='fore' body2='fore'/></equality>", "repeated"),
    ("<equality><joint joint1='wrist'/></equality>", "HINGE"),
    ("<equality><distance geom1='fsph' geom2='bgeom'/></equality>", None),
    ("<equality><tendon tendon1='nope'/></equality>", "nope"),
    ("<contact><pair geom1='fsph' geom2='nope'/></contact>", "nope"),
    ("<contact><pair geom1='fsph' geom2='farm' condim='2'/></contact>", "condim"),
    ("<contact><exclude body1='fore'/></contact>", "body2"),
    ("<sensor><jointpos joint='wrist'/></sensor>", "slide or hinge"),
    ("<sensor><ballquat joint='elbow'/></sensor>", "ball"),
    ("<sensor><jointlimitpos joint='elbow'/></sensor>", "limited"),
    ("<sensor><framepos objtype='body' objname='fore' reftype='body'/></sensor>", "together"),
    ("<sensor><framequat objtype='body' objname='fore' cutoff='1'/></sensor>", "cutoff"),
    ("<sensor><distance geom1='fsph' geom2='fsph'/></sensor>", "different"),
    ("<sensor><contact data='force found'/></sensor>", "order"),
    ("<sensor><contact num='0'/></sensor>", "num"),
    ("<sensor><touch site='s1' noise='-1'/></sensor>", "noise"),
    ("<sensor><user dim='2' datatype='axis'/></sensor>", "AXIS"),
    ("<sensor><touch site='nope'/></sensor>", "nope"),
    ("<sensor><touch/></sensor>", "site"),
    ("<keyframe><key qpos='" + "0 " * 15 + "'/></keyframe>", "qpos"),
    ("<keyframe><key act='1'/></keyframe>", "act"),
    ("<keyframe><key mpos='1 2 3 4'/></keyframe>", "mpos"),
    # a default <position kp> leaves gainprm[0] = 10: the muscle range becomes (10, 1.05)
    ("<default><position kp='10'/></default><actuator><muscle joint='elbow' lengthrange='0 1'/>"
     "</actuator>", "range"),
    ("<keyframe><key ctrl='1'/></keyframe>", "ctrl"),
    ("<custom><numeric name='n' size='1' data='1 2'/></custom>", "data"),
    ("<custom><numeric name='n'/></custom>", "size"),
    ("<custom><text name='t' data=''/></custom>", "empty"),
    ("<custom><tuple name='t'><element objtype='foo' objname='x'/></tuple></custom>", "type"),
    ("<custom><tuple name='t'><element objtype='body' objname='x'/></tuple></custom>", "x"),
    ("<custom><tuple name='t'/></custom>", "empty"),
]


@pytest.mark.parametrize("body,match", INVALID, ids=[x[0][:60] for x in INVALID])
def test_rejected(body, match):
    rejected(model(body), match=match)


UNSUPPORTED = [
    ("<actuator><orientation joint='wrist'/></actuator>", "orientation"),
    ("<actuator><pid joint='elbow' kp='1'/></actuator>", "pid"),
    ("<actuator><dcmotor joint='elbow' motorconst='1' resistance='1'/></actuator>", "dcmotor"),
    ("<keyframe><key qpos='1 2'/></keyframe>", "qpos"),
    ("<keyframe><key mpos='1'/></keyframe>", "mpos"),
]


# elements phalanx does not compile yet, whatever MuJoCo makes of them (plugins need libraries)
UNSUPPORTED_ELEMENTS = [
    ("<actuator><plugin plugin='mujoco.pid' joint='elbow'/></actuator>", "plugin"),
    ("<sensor><plugin plugin='mujoco.sensor.touch_grid'/></sensor>", "plugin"),
    ("<equality><flex flex='f'/></equality>", "flex"),
    ("<equality><flexvert flex='f'/></equality>", "flex"),
    ("<default><dcmotor/></default>", "dcmotor"),
    ("<actuator><general joint='elbow' input='pos'/></actuator>", "input"),
    ("<actuator><general joint='wrist' gaintype='so3' biastype='so3'/></actuator>", "so3"),
]


@pytest.mark.parametrize("body,match", UNSUPPORTED_ELEMENTS,
                         ids=[x[0][:60] for x in UNSUPPORTED_ELEMENTS])
def test_unsupported_elements(body, match):
    with pytest.raises(NotImplementedError, match=match):
        phalanx.Model.from_xml_string(model(body))


MUSCLE = """<mujoco><worldbody><body><joint name="j" range="-1 1"/>
  <geom type="capsule" size=".1" fromto="0 0 0 1 0 0"/></body></worldbody>
<actuator>%s</actuator></mujoco>"""


@pytest.mark.parametrize("act", [
    "<muscle joint='j'/>",
    "<general joint='j' gaintype='muscle' biastype='muscle' dyntype='muscle' "
    "gainprm='.75 1.05 -1 200 .5 1.6 1.5 1.3 1.2' biasprm='.75 1.05 -1 200 .5 1.6 1.5 1.3 1.2'/>",
])
def test_muscle_lengthrange(act):
    # MuJoCo computes actuator_lengthrange by simulation when it is not given, here with the
    # joint limit active (the constraint stage); given, or on an unlimited joint (where the
    # simulation does not converge, as in MuJoCo), every field matches too
    check(MUSCLE % act)
    ours = phalanx.Model.from_xml_string(MUSCLE % act)
    assert not np.isnan(ours.actuator_lengthrange).any()
    phalanx.forward(ours, phalanx.Data(ours))
    check(MUSCLE % act.replace("/>", " lengthrange='-.5 .5'/>"))
    unlimited = MUSCLE.replace(' range="-1 1"', "") % act
    with pytest.raises(Exception, match="did not converge in actuator 0"):
        mujoco.MjModel.from_xml_string(unlimited)
    with pytest.raises(phalanx.MJCFError, match="did not converge in actuator 0"):
        phalanx.Model.from_xml_string(unlimited)


@pytest.mark.parametrize("act", [
    "<position joint='elbow' kp='5' dampratio='1'/>",
    "<position joint='shoulder' kp='5' dampratio='.3' gear='2'/>",
    "<position site='s1' kp='5' dampratio='1' gear='0 1 0 0 0 1'/>",
    "<general joint='elbow' gainprm='5' biastype='affine' biasprm='0 -5 .8'/>",
    "<general joint='elbow' gainprm='5' biastype='affine' biasprm='0 -4 .8'/>",
])
def test_dampratio(act):
    # position-like actuators (gainprm[0] == -biasprm[1]) with biasprm[2] > 0: a damping ratio,
    # converted to -kv from the reflected inertia at qpos0 by mj_setConst
    check(model("<actuator>%s</actuator>" % act))


def test_dampratio_default():
    check(model("<default><position dampratio='.5'/></default><actuator>"
                "<position joint='elbow'/><position joint='twist' kp='3'/></actuator>"))


@pytest.mark.parametrize("body,match", UNSUPPORTED, ids=[x[0][:60] for x in UNSUPPORTED])
def test_unsupported(body, match):
    unsupported(model(body), match=match)
