# SPDX-License-Identifier: Apache-2.0
"""The rangefinder and contact sensors (csrc/kern/sensor_ray.h) against MuJoCo 3.12's.

States come from MuJoCo's own trajectories (tests/compat/test_sensor.py's helpers: random
controls and applied forces, mj_getState over the full integration state); at 50 states both
engines run forward and every sensor's reading must agree: ‖Δ‖ / max(‖ref‖, 1e-12) ≤ 1e-9, or
1e-6 for readings that depend on the constraint solution (the contact sensor's forces and
torques, any acceleration-stage reading of a state with constraint rows). Models: MuJoCo's
sensor test models (contact*.xml; rfcamera.xml uses a builtin mesh phalanx does not compile,
so RF_CAMERA restates it with an explicit mesh), its ray test models, and models of our own:
site rangefinders on every geom type with every data field and a cutoff, perspective (fovy and
intrinsic) and orthographic camera rangefinders, and contact sensors over every object kind
(none, site, geom, body, subtree), every reduce mode, several slots, both friction cones.
(The tactile sensor: test_tactile.py.) Run with -s for the worst error per sensor type."""

import os

import numpy as np
import pytest

import phalanx
import tests.compat.test_sensor as ts
from tests.conftest import shared_model

mujoco = pytest.importorskip("mujoco")

SENSOR_DIR = shared_model("mujoco", "test", "engine", "testdata", "sensor")
RAY_DIR = shared_model("mujoco", "test", "engine", "testdata", "ray")

_rng = np.random.default_rng(4)
ELEV = np.round(_rng.uniform(0, 1, size=(5, 6)), 3)
_rm = np.random.default_rng(9).normal(size=(24, 3))
LUMPY = np.round(_rm / np.linalg.norm(_rm, axis=1, keepdims=True) * [0.2, 0.15, 0.12], 4)


def _fmt(v):
    return " ".join(f"{x:.6g}" for x in np.ravel(v))


ASSETS = f"""<asset>
    <hfield name="hf" nrow="5" ncol="6" size="1.5 1.5 .3 .1" elevation="{_fmt(ELEV)}"/>
    <mesh name="lumpy" vertex="{_fmt(LUMPY)}"/>
  </asset>"""

# rfcamera.xml with an explicit mesh for its builtin supersphere, plus an intrinsic camera
RF_CAMERA = f"""<mujoco model="rangefinder camera">
  {ASSETS}
  <worldbody>
    <geom type="hfield" hfield="hf" pos="0 0 -.3"/>
    <geom type="sphere" pos="0 0 .4" size=".4"/>
    <geom type="mesh" mesh="lumpy" pos="1 0.5 .35" euler="20 0 30"/>
    <geom type="cylinder" pos="-0.8 0.8 .4" size=".4 .5" euler="0 40 0"/>
    <geom type="capsule" pos="0.5 -0.7 -.2" size=".3 .5" zaxis="1 0.5 0"/>
    <geom type="ellipsoid" pos="-0.5 -0.5 .2" size=".4 .3 .25"/>
    <body name="ball" pos=".3 .3 1.2"><freejoint/><geom type="box" size=".1 .15 .12"/></body>
    <body pos="1 0 2" euler="0 20 90" mocap="true">
      <geom type="box" pos="0 0 .3" size=".2 .2 .2"/>
      <camera name="perspective" resolution="5 4" fovy="60"/>
    </body>
    <body pos="-1 0 2" euler="0 -20 -90" mocap="true">
      <geom type="box" pos="0 0 .3" size=".2 .2 .2"/>
      <camera name="orthographic" resolution="4 3" fovy="1.5" projection="orthographic"/>
    </body>
    <body pos="0 -2 1.5" xyaxes="1 0 0 0 .5 .8" mocap="true">
      <camera name="intrinsic" resolution="6 4" sensorsize=".004 .003"
              focalpixel="500 480" principalpixel="1 -2"/>
    </body>
  </worldbody>
  <sensor>
    <rangefinder camera="perspective" data="dist point normal"/>
    <rangefinder camera="orthographic" data="dist point normal"/>
    <rangefinder camera="intrinsic" data="dist dir origin point normal depth"/>
    <rangefinder camera="orthographic" data="dir origin depth"/>
    <rangefinder camera="perspective" data="depth" cutoff="3"/>
  </sensor>
</mujoco>"""

# site rangefinders on a swinging arm over every geom type, with every data field
RF_SITE = f"""<mujoco model="rangefinder sites">
  {ASSETS}
  <worldbody>
    <geom type="plane" size="3 3 .1" pos="0 0 -.5"/>
    <geom type="hfield" hfield="hf" pos="0 0 -.2" group="1"/>
    <geom type="sphere" pos=".5 0 .3" size=".2"/>
    <geom type="capsule" pos="-.5 .4 .3" size=".1 .3" euler="30 20 0"/>
    <geom type="ellipsoid" pos="0 .6 .3" size=".2 .15 .1"/>
    <geom type="cylinder" pos="-.6 -.4 .3" size=".15 .2"/>
    <geom type="box" pos=".3 -.6 .3" size=".15 .2 .1" euler="0 0 30"/>
    <geom type="mesh" mesh="lumpy" pos="0 0 .35"/>
    <geom type="sphere" pos="0 0 1.5" size=".1" rgba="1 1 1 0"/>
    <geom type="box" pos="0 0 2.2" size=".6 .6 .05"/>
    <body name="arm" pos="0 0 1.2">
      <joint name="yaw" axis="0 0 1" damping=".1"/>
      <joint name="pitch" axis="1 0 0" damping=".1" range="-60 60"/>
      <joint name="roll" axis="0 1 0" damping=".1" range="-60 60"/>
      <geom type="box" size=".05 .05 .05" mass=".5"/>
      <site name="down" pos="0 0 -.06" zaxis="0 0 -1" type="sphere" size=".01"/>
      <site name="tilt" pos=".06 0 0" zaxis="1 .2 -1" type="box" size=".01 .01 .01"/>
      <site name="side" pos="0 .06 0" zaxis="0 1 -1" type="capsule" size=".01 .02"/>
      <site name="up" pos="0 0 .06" type="cylinder" size=".01 .02"/>
    </body>
  </worldbody>
  <actuator>
    <motor joint="yaw" gear="2"/><motor joint="pitch" gear="2"/><motor joint="roll" gear="2"/>
  </actuator>
  <sensor>
    <rangefinder site="down"/>
    <rangefinder site="down" data="dist dir origin point normal depth"/>
    <rangefinder site="tilt" data="dist dir origin point normal depth"/>
    <rangefinder site="side" data="point normal depth"/>
    <rangefinder site="up" data="dist normal"/>
    <rangefinder site="tilt" cutoff=".7"/>
    <rangefinder site="side" data="dist point" cutoff=".5"/>
  </sensor>
</mujoco>"""


def contact_model(cone):
    return f"""<mujoco model="contact sensors">
  <option cone="{cone}" gravity="1 .5 -9.81"/>
  {ASSETS}
  <default><geom condim="4"/></default>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 .1"/>
    <geom name="wall" type="box" size=".05 1 .3" pos=".6 0 .3"/>
    <site name="zone" type="box" size=".3 .3 .2" pos=".4 0 0"/>
    <site name="ball" type="sphere" size=".25" pos="-.2 0 0"/>
    <body name="arm" pos="0 0 .3">
      <joint name="slide" type="slide" axis="1 0 0" damping="1"/>
      <geom name="a1" type="capsule" size=".05 .2" euler="0 90 0" mass=".3"/>
      <body name="hand" pos=".25 0 0">
        <joint name="hinge" axis="0 1 0" damping=".2"/>
        <geom name="a2" type="box" size=".06 .06 .06" pos="0 0 -.1" condim="6"/>
        <geom name="a3" type="sphere" size=".05" pos="0 0 -.27" condim="3"/>
      </body>
    </body>
    <body name="b1" pos="0 0 .079"><freejoint/>
      <geom name="s1" size=".08" mass="1"/></body>
    <body name="b2" pos=".3 .1 .099"><freejoint/>
      <geom name="k1" type="box" size=".08 .06 .05"/>
      <geom name="k2" type="ellipsoid" size=".05 .04 .03" pos="0 0 -.07" condim="1"/></body>
    <body name="b3" pos="-.3 -.1 .049"><freejoint/>
      <geom name="c1" type="cylinder" size=".07 .05"/></body>
  </worldbody>
  <actuator><motor joint="slide" gear="5"/><motor joint="hinge"/></actuator>
  <sensor>
    <contact name="all" num="6"/>
    <contact name="all_fields" data="found force torque dist pos normal tangent" num="4"/>
    <contact name="world" body1="world" num="3" data="found force normal"/>
    <contact name="floor" geom1="floor" num="4" reduce="mindist" data="dist pos"/>
    <contact name="floor_force" geom2="floor" num="3" reduce="maxforce" data="force torque"/>
    <contact name="floor_net" geom1="floor" reduce="netforce"
             data="found force torque dist pos normal tangent"/>
    <contact name="b2" body1="b2" data="force torque normal tangent" num="3"/>
    <contact name="b2_flipped" body2="b2" data="force torque normal tangent" num="3"/>
    <contact name="b2_world" body1="b2" body2="world" data="force normal" num="2"/>
    <contact name="world_b2" body1="world" body2="b2" data="force normal" num="2"/>
    <contact name="arm_tree" subtree1="arm" num="3" data="found force pos"/>
    <contact name="hand_floor" subtree1="hand" geom2="floor" data="found force normal"/>
    <contact name="zone" site="zone" num="3"/>
    <contact name="zone_floor" site="zone" geom2="floor" reduce="maxforce"/>
    <contact name="ball_net" site="ball" reduce="netforce" data="found force torque pos"/>
    <contact name="k2" geom1="k2" data="found force torque" num="2"/>
    <contact name="none" body1="b1" body2="b3" data="found force"/>
  </sensor>
</mujoco>"""


OWN = {
    "rf_camera": RF_CAMERA,
    "rf_site": RF_SITE,
    "contact_pyramidal": contact_model("pyramidal"),
    "contact_elliptic": contact_model("elliptic"),
}
FILES = [os.path.join(SENSOR_DIR, f) for f in (
    "contact.xml", "contact_net.xml", "contact_sorted.xml", "contact_subtree.xml",
    "contact_subtree_partial.xml")] + [os.path.join(RAY_DIR, "ray_swing.xml")]
MODELS = sorted(OWN) + FILES

WORST = ts.WORST


def load_model(key):
    if key in OWN:
        return phalanx.Model.from_xml_string(OWN[key]), mujoco.MjModel.from_xml_string(OWN[key])
    return ts.load(key)


@pytest.fixture(scope="module", autouse=True)
def report():
    yield
    if WORST:
        print("\nworst relative error per sensor type (phalanx vs MuJoCo):")
        for k in sorted(WORST):
            print(f"  {k:22s} {WORST[k][0]:.2e}  ({WORST[k][1]})")


def compare(ref, dr, do, what, rel):
    """ts.compare, with the contact sensor's force and torque at the solver tolerance"""
    a_ours, a_ref = np.asarray(do.sensordata), np.asarray(dr.sensordata)
    for i in range(ref.nsensor):
        if ref.sensor_type[i] != mujoco.mjtSensor.mjSENS_CONTACT or dr.nefc == 0:
            continue
        adr, dim = ref.sensor_adr[i], ref.sensor_dim[i]
        a, b = a_ours[adr:adr + dim], a_ref[adr:adr + dim]
        err = float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-12))
        key = "contact (solve)"
        if not err <= WORST.get(key, (-1.0, ""))[0]:
            WORST[key] = (err, rel)
        assert err <= ts.TOL_SOLVE, f"{what}: sensor {i} (contact): {err:.3e}; {a} vs {b}"
    # everything else, and the contact sensors' non-force fields, as test_sensor.py does
    return ts.compare(ref, dr, do, what, rel)


def exercised(ref, dr, nonzero):
    for i in range(ref.nsensor):
        v = dr.sensordata[ref.sensor_adr[i]:ref.sensor_adr[i] + ref.sensor_dim[i]]
        if np.any((v != 0) & (v != -1)):
            nonzero.add(i)


@pytest.mark.compat
@pytest.mark.parametrize("key", MODELS, ids=lambda k: os.path.basename(k))
def test_readings(key, full):
    ours, ref = load_model(key)
    do, dr = phalanx.Data(ours), mujoco.MjData(ref)
    mujoco.mj_forward(ref, dr)
    phalanx.forward(ours, do)
    nonzero = set()
    for k, s in enumerate(ts.trajectory(ref, 50)):
        mujoco.mj_setState(ref, dr, s, ts.STATE)
        if ref.nmocap:
            # move the mocap cameras around
            rng = np.random.default_rng(k)
            dr.mocap_pos[:] += rng.normal(scale=0.2, size=dr.mocap_pos.shape)
            q = dr.mocap_quat + rng.normal(scale=0.1, size=dr.mocap_quat.shape)
            dr.mocap_quat[:] = q / np.linalg.norm(q, axis=1, keepdims=True)
        mujoco.mj_forward(ref, dr)
        ts.copy_state(dr, do)
        phalanx.forward(ours, do)
        compare(ref, dr, do, f"{os.path.basename(key)} state {k}", os.path.basename(key))
        exercised(ref, dr, nonzero)
    # the comparisons are not of empty readings: every sensor reads something somewhere, but
    # the deliberately empty ones
    empty = {i for i in range(ref.nsensor) if mujoco.mj_id2name(
        ref, mujoco.mjtObj.mjOBJ_SENSOR, i) in ("none",)}
    if key in OWN:
        assert set(range(ref.nsensor)) - empty <= nonzero, set(range(ref.nsensor)) - nonzero


@pytest.mark.compat
def test_step_readings():
    """phalanx.step leaves the readings of its forward pass, as mj_step, contacts included"""
    for key in ("contact_pyramidal", "rf_site"):
        ours, ref = load_model(key)
        do, dr = phalanx.Data(ours), mujoco.MjData(ref)
        for k, s in enumerate(ts.trajectory(ref, 10, seed=2)):
            mujoco.mj_setState(ref, dr, s, ts.STATE)
            ts.copy_state(dr, do)
            mujoco.mj_step(ref, dr)
            phalanx.step(ours, do)
            compare(ref, dr, do, f"{key} step {k}", key + " step")


def test_contact_reduce_orders():
    """the sorted reductions against a direct computation from MuJoCo's own contacts: mindist
    slots hold the smallest distances ascending, maxforce the largest force norms descending"""
    ours, ref = load_model("contact_pyramidal")
    dr = mujoco.MjData(ref)
    sid = mujoco.mj_name2id(ref, mujoco.mjtObj.mjOBJ_SENSOR, "floor")
    checked = 0
    for s in ts.trajectory(ref, 30, seed=4):
        mujoco.mj_setState(ref, dr, s, ts.STATE)
        mujoco.mj_forward(ref, dr)
        floor = mujoco.mj_name2id(ref, mujoco.mjtObj.mjOBJ_GEOM, "floor")
        d = sorted(c.dist for c in dr.contact[:dr.ncon] if floor in (c.geom1, c.geom2))
        n = min(4, len(d))
        got = dr.sensordata[ref.sensor_adr[sid]:ref.sensor_adr[sid] + 4 * 4:4][:n]
        np.testing.assert_array_equal(got, d[:n])
        checked += n
    assert checked > 10


@pytest.mark.compat
@pytest.mark.parametrize("flag", ["CONSTRAINT", "CONTACT", "FRICTIONLOSS"])
def test_contact_disabled_parts(flag):
    """contacts without constraint rows (zero forces), no contacts at all, and the readings with
    other rows disabled, as MuJoCo's"""
    ours, ref = load_model("contact_elliptic")
    bit = int(getattr(mujoco.mjtDisableBit, "mjDSBL_" + flag))
    for m in (ours, ref):
        m.opt.disableflags = m.opt.disableflags | bit
    do, dr = phalanx.Data(ours), mujoco.MjData(ref)
    for k, s in enumerate(ts.trajectory(ref, 10, seed=6)):
        mujoco.mj_setState(ref, dr, s, ts.STATE)
        mujoco.mj_forward(ref, dr)
        ts.copy_state(dr, do)
        phalanx.forward(ours, do)
        compare(ref, dr, do, f"{flag} state {k}", "contact_elliptic " + flag)
