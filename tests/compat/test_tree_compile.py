# SPDX-License-Identifier: Apache-2.0
"""The body tree compiler (csrc/mjcf/compile.c) against MuJoCo 3.12 (the oracle).

Every body_/jnt_/dof_/tree_/geom_/site_/cam_/light_/mesh_/mat_ array, qpos0 and qpos_spring, the
tree sizes, the names and the compile-time statistics are compared with mujoco's: integers
exactly, reals within 1e-9 relative or 1e-12 absolute. Small inline models cover the compiler's
rules one by one (fromto in frames, inertia from geoms, shell inertia, fluid coefficients, free
joint alignment, cameras and lights, limits in degrees, user data, materials, meshes). Models
MuJoCo rejects must raise MJCFError naming file:line; valid input phalanx cannot compile exactly
must raise NotImplementedError.
"""

import glob
import re

import numpy as np
import pytest

import phalanx
from phalanx import _core
from tests.conftest import shared_model

mujoco = pytest.importorskip("mujoco")

RTOL, ATOL = 1e-9, 1e-12

PREFIXES = ("qpos0", "qpos_spring", "body_", "jnt_", "dof_", "tree_", "geom_", "site_", "cam_",
            "light_", "mesh_", "mat_")
ENGINE_DERIVED = set()  # dof_M0 and the invweights are compiled too (px_setConst)
SIZES = ("nq", "nv", "nbody", "njnt", "ngeom", "nsite", "ncam", "nlight", "nmesh", "nmeshvert",
         "nmeshface", "nmeshgraph", "ntex", "nmat", "nmocap", "ntree", "nM", "nD", "nB",
         "nuser_body", "nuser_jnt", "nuser_geom", "nuser_site", "nuser_cam", "nnames", "npaths",
         "nconmax", "njmax")
NAMED = [("BODY", "nbody"), ("JOINT", "njnt"), ("GEOM", "ngeom"), ("SITE", "nsite"),
         ("CAMERA", "ncam"), ("LIGHT", "nlight"), ("MESH", "nmesh"), ("TEXTURE", "ntex"),
         ("MATERIAL", "nmat")]

MODELS = sorted(glob.glob(shared_model("gymnasium", "*.xml"))) + [
    shared_model("mujoco", "model", "humanoid", "humanoid.xml"),
]


def as_array(v):
    a = np.asarray(v)
    if a.dtype.kind == "b":
        a = a.astype(np.uint8)
    return a.reshape(-1)


def compare(ours, ref):
    """Every body-tree field, size, name and statistic of two compiled models."""
    for size in SIZES:
        assert getattr(ours, size) == getattr(ref, size), size
    fields = [f for f in _core.MODEL_FIELDS
              if f.startswith(PREFIXES) and f not in ENGINE_DERIVED and hasattr(ref, f)]
    assert fields
    for f in fields:
        a, b = as_array(getattr(ours, f)), as_array(getattr(ref, f))
        assert a.shape == b.shape, f"{f}: shape {a.shape} != {b.shape}"
        if a.dtype.kind in "iub":
            np.testing.assert_array_equal(a, b.astype(a.dtype), err_msg=f)
        else:
            np.testing.assert_allclose(a, b, rtol=RTOL, atol=ATOL, err_msg=f)
    for objtype, size in NAMED:
        for i in range(getattr(ref, size)):
            want = mujoco.mj_id2name(ref, getattr(mujoco.mjtObj, "mjOBJ_" + objtype), i)
            got = phalanx.id2name(ours, getattr(phalanx.ObjType, objtype), i)
            assert got == want, f"{objtype} {i}: name {got!r} != {want!r}"
    assert ours.names[:len(bytes(ref.names))] == bytes(ref.names)[:len(ours.names)]
    stat = ["meanmass", "meansize", "extent"]
    for s in stat:
        np.testing.assert_allclose(getattr(ours.stat, s), getattr(ref.stat, s), rtol=RTOL,
                                   atol=ATOL, err_msg=f"stat.{s}")
    np.testing.assert_allclose(ours.stat.center, ref.stat.center, rtol=RTOL, atol=ATOL,
                               err_msg="stat.center")


@pytest.mark.parametrize("path", MODELS, ids=lambda p: p.split("/models/")[-1])
def test_tree_model(path):
    ref = mujoco.MjModel.from_xml_path(path)
    ours = phalanx.Model.from_xml_path(path)
    compare(ours, ref)


W = "<mujoco>{pre}<worldbody>{body}</worldbody></mujoco>"

INLINE = {
    "fromto_in_frames": """<mujoco><worldbody>
      <body pos="0 0 1"><freejoint/>
        <frame pos="1 2 3" euler="10 20 30">
          <geom type="capsule" size=".1" fromto="0 0 0 1 0 0"/>
          <geom type="box" size=".1 .2 .3" fromto="0 0.1 0 1 1 0"/>
          <frame pos="0 1 0" axisangle="1 1 0 45">
            <geom type="ellipsoid" size=".1 .2 .3" fromto="0 0.1 0 1 1 1"/>
            <geom type="cylinder" size=".1" fromto="0 0.1 0.2 0 0 1"/>
            <site type="capsule" size=".1" fromto="0 0.1 0.2 0 0 1"/>
            <site type="box" size=".1 .2 .2" pos="1 2 3" euler="1 2 3"/>
            <camera pos="1 0 0" euler="5 6 7"/>
            <light pos="0 0 1" dir="1 1 1"/>
          </frame>
        </frame>
      </body>
      <replicate count="3" offset="0.5 0 0" euler="0 0 30">
        <body><joint/><geom type="capsule" size=".05" fromto="0 0 0 0 .3 .3"/></body>
      </replicate>
    </worldbody></mujoco>""",
    "inertials": """<mujoco><compiler boundmass="0.01" boundinertia="0.001"
        balanceinertia="true"/><worldbody>
      <body><joint/><inertial pos="1 2 3" mass="2" fullinertia="1 2 3 0.1 0.2 0.3"/></body>
      <body><joint/><inertial pos="1 2 3" quat="1 2 3 4" mass="2" diaginertia="1 1 3"/></body>
      <body><joint/><inertial pos="0 0 0" mass="0" diaginertia="0 0 0"/>
        <body><geom size=".1"/></body></body>
      <body><joint type="slide"/><geom size=".1" pos="1 0 0"/>
        <geom type="box" size=".1 .2 .3" pos="0 1 0" euler="10 20 30"/>
        <geom size=".2" group="4"/></body>
    </worldbody></mujoco>""",
    "inertiafromgeom_true": """<mujoco><compiler inertiafromgeom="true"
        inertiagrouprange="0 2"/><worldbody>
      <body><joint/><inertial pos="1 2 3" mass="2" diaginertia="1 1 1"/>
        <geom size=".1" pos="1 0 0"/><geom size=".1" group="3"/></body>
      <body><joint/><inertial pos="1 2 3" mass="2" diaginertia="1 1 1"/>
        <geom size=".1" group="3"/></body>
    </worldbody></mujoco>""",
    "inertiafromgeom_false": """<mujoco><compiler inertiafromgeom="false"/><worldbody>
      <body pos="1 2 3" euler="1 2 3"><joint/><inertial pos="0 0 0" mass="2"
        diaginertia="1 1 1"/><geom size=".1" pos="1 0 0"/></body>
      <body pos="1 2 3"><geom size=".1" pos="1 0 0"/></body>
    </worldbody></mujoco>""",
    "masses": W.format(pre="", body="""
      <body><joint/><geom type="sphere" size=".1" shellinertia="true"/></body>
      <body><joint/><geom type="capsule" size=".1 .3" shellinertia="true"/></body>
      <body><joint/><geom type="cylinder" size=".1 .3" shellinertia="true"/></body>
      <body><joint/><geom type="ellipsoid" size=".1 .2 .3" shellinertia="true"/></body>
      <body><joint/><geom type="box" size=".1 .2 .3" shellinertia="true"/></body>
      <body><joint/><geom type="capsule" size=".1 .3" mass="3"/></body>
      <body><joint/><geom type="cylinder" size=".1 .3" density="10"/>
        <geom type="ellipsoid" size=".1 .2 .3" mass="2" pos="1 0 0"/></body>
      <body><joint/><geom type="box" size=".1 .2 .3" density="0"/><geom size=".1" mass="0"/>
        <geom size=".3"/></body>"""),
    "fluid": W.format(pre='<option density="1.2" viscosity="0.001"/>', body="""
      <body><freejoint/><geom type="sphere" size=".1" fluidshape="ellipsoid"/></body>
      <body><freejoint/><geom type="capsule" size=".1 .3" fluidshape="ellipsoid"
        fluidcoef="1 2 3 4 5"/></body>
      <body><freejoint/><geom type="cylinder" size=".1 .3" fluidshape="ellipsoid"/></body>
      <body><freejoint/><geom type="box" size=".1 .2 .3" fluidshape="ellipsoid"/></body>"""),
    "alignfree": W.format(pre='<compiler alignfree="true"/>', body="""
      <body pos="1 2 3" euler="10 20 30"><freejoint/><geom size=".1" pos="1 0 0"/>
        <geom type="box" size=".1 .2 .3" pos="0 1 0"/><site pos="1 1 1"/>
        <camera pos="0 0 1" euler="1 2 3"/><light pos="1 0 0" dir="0 1 0"/></body>
      <body pos="1 2 3"><freejoint align="false"/><geom size=".1" pos="1 0 0"/>
        <geom type="box" size=".1 .2 .3" pos="0 1 0"/></body>"""),
    "mocap_and_planes": W.format(pre="", body="""
      <body mocap="true" pos="1 2 3" quat="1 1 0 0"><geom type="plane" size="1 1 .1"/>
        <body><geom size=".1"/></body></body>
      <body pos="0 0 1"><geom size=".1"/><body><joint/><geom size=".1"/></body></body>
      <geom type="plane" size="0 0 1"/>"""),
    "cameras_lights": """<mujoco><visual><map znear="0.05"/></visual><worldbody>
      <light pos="0 0 3" dir="0 0 -1" mode="trackcom"/>
      <body name="a" pos="1 0 1"><joint/><geom size=".1" pos=".1 0 0"/>
        <camera mode="track" pos="0 -2 1" xyaxes="1 0 0 0 1 2"/>
        <camera mode="trackcom" pos="0 -2 1"/>
        <camera mode="targetbody" target="b" pos="0 -2 1"/>
        <camera mode="targetbodycom" target="b" pos="0 -2 1" fovy="60" resolution="640 480"/>
        <camera sensorsize="0.01 0.02" resolution="100 200" focal="0.01 0.02"
          principalpixel="10 20"/>
        <light mode="targetbody" target="b" pos="0 0 2" directional="true" castshadow="false"
          attenuation="1 2 3" cutoff="30" exponent="2" ambient=".1 .2 .3"/>
        <body name="b" pos="0 1 0"><joint axis="1 0 0"/><geom size=".1" pos="0 0 .3"/></body>
      </body>
    </worldbody></mujoco>""",
    "joints_degrees": W.format(pre='<compiler angle="degree"/>', body="""
      <body><joint type="ball" range="0 90"/><geom size=".1"/>
        <body pos="0 0 1"><joint range="-45 45" ref="10" springref="20" stiffness="3"
          damping="2" armature=".1" frictionloss=".2" margin=".01" axis="1 1 0" pos="0 0 .1"/>
          <joint type="slide" range="-1 1" ref=".5" limited="false"
            actuatorfrcrange="-3 3"/><geom size=".1"/></body>
        <body pos="0 0 2"><joint range="-45 45" limited="false" actuatorfrclimited="true"
          actuatorfrcrange="-1 2"/><geom size=".1"/></body>
      </body>"""),
    "user_data": W.format(pre='<size nuser_jnt="3" nuser_site="2"/>', body="""
      <body user="1 2 3"><joint user="1"/><geom size=".1" user="1 2"/><site user="5"/>
        <camera user="1 2 3 4"/></body>
      <body user="1"><joint user="1 2 3"/><geom size=".1"/><site user="5 6"/></body>"""),
    "materials": """<mujoco><asset>
      <texture type="skybox" builtin="gradient" rgb1="1 1 1" rgb2="0 0 0" width="32" height="32"/>
      <texture name="t1" type="2d" builtin="checker" width="32" height="32"/>
      <material name="m1" texture="t1" texrepeat="2 3" texuniform="true" emission=".1"
        reflectance=".4" metallic=".5" roughness=".6" rgba="1 0 0 .5"/>
      <material name="m2"/>
    </asset><worldbody><light texture="t1"/>
      <geom size=".1" material="m1"/><site material="m2"/>
      <body><joint/><geom size=".1" material="m2" rgba="0 1 0 1"/></body>
    </worldbody></mujoco>""",
    "totalmass_statistic": W.format(
        pre='<compiler settotalmass="10"/><statistic meanmass="3" extent="7" center="1 2 3"/>',
        body="""<body><joint/><geom size=".1"/><body pos="1 0 0"><joint/>
          <geom type="box" size=".1 .2 .3"/></body></body>"""),
    "simple_bodies": W.format(pre="", body="""
      <body><joint type="slide"/><joint type="slide" axis="1 0 0"/><geom size=".1"/></body>
      <body simple="false"><joint type="slide"/><geom size=".1"/></body>
      <body><geom size=".1"/><body><joint/><geom size=".1"/></body></body>
      <body><joint/><geom size=".1" pos="1 0 0"/></body>
      <body><joint pos="0 0 1"/><geom size=".1"/></body>"""),
    "geom_attributes": W.format(pre='<compiler eulerseq="ZYX" angle="radian"/>', body="""
      <body euler="1 2 3"><joint/><geom size=".1" euler="0.1 0.2 0.3"/><site euler="1 0 1"/></body>
      <body quat="2 0 0 0"><joint/><geom type="box" size=".1 .1 .1" quat="1 2 3 4" margin=".1"
        gap=".05"/><geom size=".1" margin=".3" contype="2" conaffinity="4" condim="6"
        priority="2" group="3" friction="1 .1 .01" solmix="2" solref=".1 2"
        solimp=".8 .9 .01 .4 3" surfacevel="1 2 3 4 5 6" adhesion="1"/></body>"""),
    "meshes": """<mujoco><asset>
      <mesh name="tet" vertex="0 0 0 1 0 0 0 1 0 0 0 1" scale="1 2 3"/>
      <mesh name="cube" vertex="-1 -1 -1 1 -1 -1 1 1 -1 -1 1 -1 -1 -1 1 1 -1 1 1 1 1 -1 1 1"
        face="0 2 1 0 3 2 4 5 6 4 6 7 0 1 5 0 5 4 2 3 7 2 7 6 1 2 6 1 6 5 0 4 7 0 7 3"
        refpos=".1 .2 .3" refquat="1 .1 0 0"/>
      <mesh name="hull" vertex="-1 -1 -1 1 -1 -1 1 1 -1 -1 1 -1 -1 -1 1 1 -1 1 1 1 1 -1 1 1"
        inertia="convex"/>
    </asset><worldbody>
      <body pos="0 0 1"><freejoint/><geom type="mesh" mesh="tet" pos="1 0 0" euler="10 20 30"/>
        <geom type="mesh" mesh="cube" contype="0" conaffinity="0" surfacevel="1 0 0 0 0 1"/></body>
      <body pos="0 0 2"><joint/><geom type="mesh" mesh="hull" mass="2"/></body>
    </worldbody></mujoco>""",
    "trees": W.format(pre="", body="""
      <body><geom size=".1"/><body><joint/><joint type="slide"/><geom size=".1"/>
        <body><geom size=".1"/><body><joint type="ball"/><geom size=".1"/></body></body></body>
      </body>
      <body><freejoint/><geom size=".1"/></body>
      <body><joint/><geom size=".1"/><body><joint/><geom size=".1"/></body>
        <body><joint/><geom size=".1"/></body></body>"""),
    "empty": "<mujoco/>",
    "world_only": W.format(pre="", body='<geom size=".1"/><site/><camera/><light/>'),
}


@pytest.mark.parametrize("name", sorted(INLINE))
def test_tree_inline(name):
    xml = INLINE[name]
    compare(phalanx.Model.from_xml_string(xml), mujoco.MjModel.from_xml_string(xml))


# models MuJoCo rejects: (body, message part); phalanx must raise MJCFError at <string>:line
REJECTED = {
    "zero_radius": ('<geom size="0"/>', "size 0 must be positive"),
    "capsule_one_size": ('<geom type="capsule" size=".1"/>', "size 1 must be positive"),
    "plane_size": ('<geom type="plane" size="1 1 0"/>', "plane size(3) must be positive"),
    "condim": ('<geom size=".1" condim="2"/>', "invalid condim"),
    "negative_mass": ('<body><joint/><geom size=".1" mass="-1.5"/></body>', "negative"),
    "negative_density": ('<body><joint/><geom size=".1" density="-1"/></body>', "negative"),
    "abc_inertia": ('<body><joint/><inertial pos="0 0 0" mass="1" diaginertia="1 1 3"/></body>',
                    "A + B >= C"),
    "fullinertia": ('<body><joint/><inertial pos="0 0 0" mass="1" fullinertia="1 1 1 2 0 0"/>'
                    "</body>", "positive eigenvalues"),
    "free_not_top": ('<body><joint/><geom size=".1"/><body><freejoint/><geom size=".1"/></body>'
                     "</body>", "top level"),
    "unknown_material": ('<geom size=".1" material="nope"/>', "material 'nope' not found"),
    "unknown_mesh": ('<geom type="mesh" mesh="nope"/>', "mesh 'nope' not found"),
    "unknown_target": ('<body><camera target="nope" mode="targetbody"/></body>',
                       "unknown target body"),
    "range_order": ('<body><joint limited="true" range="1 0"/><geom size=".1"/></body>',
                    "range[0] should be smaller"),
    "ball_range": ('<body><joint type="ball" limited="true" range="1 2"/><geom size=".1"/></body>',
                   "range[0] should be 0"),
    "massless": ("<body><joint/></body>", "mass and inertia of moving bodies"),
    "ball_then_hinge": ('<body><joint type="ball"/><joint/><geom size=".1"/></body>',
                        "ball followed by rotation"),
    "mocap_child": ('<body><joint/><geom size=".1"/><body mocap="true"><geom size=".1"/></body>'
                    "</body>", "not a fixed child of world"),
    "moving_plane": ('<body><joint/><geom type="plane" size="1 1 1"/><geom size=".1"/></body>',
                     "plane only allowed in static bodies"),
    "fromto_sphere": ('<geom size=".1" fromto="0 0 0 1 0 0"/>', "fromto requires"),
    "fromto_and_pos": ('<geom type="capsule" size=".1" pos="1 0 0" fromto="0 0 0 1 0 0"/>',
                       "both pos and fromto"),
    "fromto_and_pos_in_frame": ('<frame pos="1 2 3" euler="0 30 0"><geom type="capsule" '
                                'size=".1" pos="1 0 0" fromto="0 0 0 1 0 0"/></frame>',
                                "both pos and fromto"),
    "site_plane": ('<site type="plane"/>', "planes not allowed in site"),
    "repeated_name": ('<geom name="a" size=".1"/><geom name="a" size=".1"/>',
                      "repeated name 'a' in geom"),
    "fovy": ('<camera fovy="180"/>', "fovy too large"),
    "light_direction": ('<light dir="0 0 0"/>', "zero direction"),
    "joint_axis": ('<body><joint axis="0 0 0"/><geom size=".1"/></body>', "axis too small"),
}


@pytest.mark.parametrize("name", sorted(REJECTED))
def test_tree_rejected(name):
    body, part = REJECTED[name]
    xml = W.format(pre="", body=body)
    with pytest.raises(ValueError):
        mujoco.MjModel.from_xml_string(xml)
    with pytest.raises(phalanx.MJCFError, match=r"<string>:1: .*" + re.escape(part)):
        phalanx.Model.from_xml_string(xml)


def test_tree_autolimits_off():
    xml = ('<mujoco><compiler autolimits="false"/><worldbody><body><joint range="0 1"/>'
           '<geom size=".1"/></body></worldbody></mujoco>')
    with pytest.raises(ValueError):
        mujoco.MjModel.from_xml_string(xml)
    with pytest.raises(phalanx.MJCFError, match="but not `limited`"):
        phalanx.Model.from_xml_string(xml)


# valid MuJoCo input phalanx cannot compile exactly
UNSUPPORTED = {
    "mesh_fitting": None,
}


@pytest.mark.parametrize("name", sorted(UNSUPPORTED))
def test_tree_unsupported(name):
    xml = W.format(pre="", body=UNSUPPORTED[name]) if UNSUPPORTED[name] else (
        '<mujoco><asset><mesh name="t" vertex="0 0 0 1 0 0 0 1 0 0 0 1"/></asset>'
        '<worldbody><geom type="box" mesh="t"/></worldbody></mujoco>')
    mujoco.MjModel.from_xml_string(xml)
    with pytest.raises(NotImplementedError, match="<string>:1: "):
        phalanx.Model.from_xml_string(xml)
