# SPDX-License-Identifier: Apache-2.0
"""phalanx.collision against mujoco.mj_collision (MuJoCo 3.12): the driver's semantics.

Models of our own exercise every rule of the driver on primitive geoms: parameter mixing by
priority and solmix (positive and negative solref, tiny solmix), condim, margins and gaps (in-gap
contacts kept with exclude = 1), adhesion, <pair> (overrides and the merge that skips the
dynamic duplicate), <exclude>, contype/conaffinity, the parent-child and weld filters (and the
filterparent flag), mocap bodies, the override option, the contact and constraint disable flags.
Both engines see the same qpos; every field of every contact must agree, in MuJoCo's order.
"""

import copy
import pickle

import numpy as np
import pytest

import phalanx
from tests.compat._contact import compare_contacts

mujoco = pytest.importorskip("mujoco")

TOL = 1e-9


def both(xml):
    return phalanx.Model.from_xml_string(xml), mujoco.MjModel.from_xml_string(xml)


def collide_both(pm, mm, qpos, mocap=None):
    pd, md = phalanx.Data(pm), mujoco.MjData(mm)
    pd.qpos[:] = qpos
    md.qpos[:] = qpos
    if mocap is not None:
        pd.mocap_pos[:] = mocap
        md.mocap_pos[:] = mocap
    mujoco.mj_kinematics(mm, md)
    mujoco.mj_collision(mm, md)
    phalanx.kinematics(pm, pd)
    phalanx.collision(pm, pd)
    return pd, md


def random_free_qpos(mm, rng, half=0.5, zmin=0.0):
    q = mm.qpos0.copy()
    for j in range(mm.njnt):
        a = mm.jnt_qposadr[j]
        t = mm.jnt_type[j]
        if t == mujoco.mjtJoint.mjJNT_FREE:
            q[a:a + 3] = rng.uniform(-half, half, 3)
            q[a + 2] += zmin + half
            quat = rng.normal(size=4)
            q[a + 3:a + 7] = quat / np.linalg.norm(quat)
        elif t == mujoco.mjtJoint.mjJNT_HINGE or t == mujoco.mjtJoint.mjJNT_SLIDE:
            q[a] = rng.uniform(-1.5, 1.5)
    return q


def mixing_xml(rng, n=8, types=("sphere",), gaps=True):
    """n free bodies with random contact parameters, and a plane"""
    bodies = []
    for i in range(n):
        t = types[i % len(types)]
        size = {"sphere": "0.2", "capsule": "0.1 0.2", "box": "0.15 0.1 0.2",
                "cylinder": "0.12 0.15", "ellipsoid": "0.2 0.15 0.1"}[t]
        solref = (f"{rng.uniform(0.01, 0.05):.4f} {rng.uniform(0.5, 1.5):.3f}"
                  if rng.random() < 0.7 else f"{-rng.uniform(500, 2000):.1f} {-rng.uniform(5, 50):.2f}")
        solmix = rng.choice(["1", "0.3", "3", "1e-20"])
        attrs = (f'type="{t}" size="{size}" priority="{rng.integers(0, 2)}" '
                 f'condim="{rng.choice([1, 3, 4, 6])}" solmix="{solmix}" solref="{solref}" '
                 f'solimp="{rng.uniform(0.8, 0.9):.3f} {rng.uniform(0.9, 0.99):.3f} '
                 f'{rng.uniform(0.001, 0.01):.4f} 0.5 2" '
                 f'friction="{rng.uniform(0.5, 1.5):.3f} {rng.uniform(0.001, 0.01):.4f} '
                 f'{rng.uniform(1e-5, 1e-3):.6f}" margin="{rng.choice([0, 0.02, 0.05])}" '
                 f'gap="{rng.choice([0, 0, 0.01]) if gaps else 0}"')
        if rng.random() < 0.2:
            attrs += f' adhesion="{rng.uniform(1, 5):.2f}"'
        bodies.append(f'<body name="b{i}"><freejoint/><geom name="g{i}" {attrs}/></body>')
    return ("<mujoco><worldbody>"
            '<geom name="floor" type="plane" size="3 3 .1" solref="0.03 1.1" friction="0.9 0.01 0.001"/>'
            + "".join(bodies) + "</worldbody></mujoco>")


@pytest.mark.parametrize("seed", range(4))
def test_parameter_mixing(seed):
    rng = np.random.default_rng(seed)
    pm, mm = both(mixing_xml(rng, types=("sphere", "capsule", "box")))
    total = 0
    for _ in range(25):
        pd, md = collide_both(pm, mm, random_free_qpos(mm, rng, half=0.4))
        compare_contacts(pd, md, TOL, f"seed {seed}")
        total += md.ncon
    assert total > 50  # the poses bring geoms together


PAIRS_XML = """
<mujoco>
  <worldbody>
    <geom name="floor" type="plane" size="3 3 .1"/>
    <body name="a"><freejoint/>
      <geom name="a1" type="sphere" size=".2"/>
      <geom name="a2" type="capsule" size=".1 .2" pos=".2 0 0" contype="2" conaffinity="2"/>
    </body>
    <body name="b"><freejoint/>
      <geom name="b1" type="sphere" size=".2"/>
      <geom name="b2" type="box" size=".1 .1 .1" pos="0 .2 0" contype="0" conaffinity="0"/>
    </body>
    <body name="c"><freejoint/><geom name="c1" type="sphere" size=".25"/></body>
    <body name="d"><freejoint/><geom name="d1" type="capsule" size=".1 .3" contype="4" conaffinity="1"/></body>
  </worldbody>
  <contact>
    <pair geom1="a1" geom2="b1" condim="6" friction="2 2 .1 .01 .01" solref="0.05 2"
          solreffriction="0.04 1.5" solimp="0.8 0.9 0.002 0.6 3" margin="0.03" gap="0.01"/>
    <pair geom1="b2" geom2="c1" condim="1"/>
    <pair geom1="floor" geom2="d1" margin="0.05"/>
    <exclude body1="a" body2="c"/>
  </contact>
</mujoco>
"""


def test_pairs_and_exclude():
    rng = np.random.default_rng(7)
    pm, mm = both(PAIRS_XML)
    seen = set()
    for _ in range(200):
        pd, md = collide_both(pm, mm, random_free_qpos(mm, rng, half=0.35))
        compare_contacts(pd, md, TOL, "pairs")
        seen.update(tuple(sorted(g)) for g in np.array(md.contact.geom).reshape(-1, 2))
    # the explicit pairs, dynamic pairs and the plane all produced contacts
    ids = {n: mujoco.mj_name2id(mm, mujoco.mjtObj.mjOBJ_GEOM, n) for n in
           ("a1", "b1", "b2", "c1", "floor", "d1")}
    for a, b in (("a1", "b1"), ("b2", "c1"), ("floor", "d1")):
        assert tuple(sorted((ids[a], ids[b]))) in seen


TREE_XML = """
<mujoco>
  <option><flag filterparent="{fp}"/></option>
  <worldbody>
    <geom name="floor" type="plane" size="3 3 .1"/>
    <body name="base" pos="0 0 .3"><freejoint/>
      <geom type="box" size=".3 .1 .05"/>
      <body name="link1" pos=".3 0 0"><joint type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto=".05 0 0 .25 0 0" size=".06"/>
        <body name="link2" pos=".3 0 0"><joint type="hinge" axis="0 1 0"/>
          <geom type="capsule" fromto=".05 0 0 .25 0 0" size=".06"/>
          <body name="welded" pos=".3 0 0"><geom type="sphere" size=".08"/></body>
        </body>
      </body>
      <body name="link3" pos="-.3 0 0"><joint type="hinge" axis="0 0 1"/>
        <geom type="sphere" size=".12"/>
      </body>
    </body>
    <body name="mocap" mocap="true" pos=".5 0 .3"><geom type="box" size=".1 .1 .1"/></body>
    <body name="mocap2" mocap="true" pos=".5 0 .5"><geom type="sphere" size=".15"/></body>
  </worldbody>
</mujoco>
"""


@pytest.mark.parametrize("fp", ["enable", "disable"])
def test_tree_filters(fp):
    rng = np.random.default_rng(3)
    pm, mm = both(TREE_XML.replace("{fp}", fp))
    total = 0
    for _ in range(100):
        q = random_free_qpos(mm, rng, half=0.2)
        q[2] = rng.uniform(0.05, 0.4)
        # hinges within +-2 rad: parent and child capsules (which collide with filterparent
        # disabled) then never cross, where their normal is ill-conditioned in both engines
        q[7:] = rng.uniform(-2, 2, mm.nq - 7)
        mocap = np.array([[rng.uniform(-.6, .6), rng.uniform(-.3, .3), rng.uniform(.1, .5)]
                          for _ in range(2)])
        pd, md = collide_both(pm, mm, q, mocap)
        compare_contacts(pd, md, TOL, f"filterparent {fp}")
        total += md.ncon
    assert total > 100


def test_override_option():
    # without geom gaps: with override MuJoCo's broad phase inflates by o_margin alone and ignores
    # gaps that the narrow phase adds (tests/compat/test_collision_broad.py covers that quirk)
    rng = np.random.default_rng(11)
    xml = mixing_xml(rng, types=("sphere", "capsule", "box"), gaps=False).replace(
        "<mujoco>", '<mujoco><option o_margin="0.04" o_solref="0.03 0.8" '
        'o_solimp="0.7 0.8 0.01 0.4 2" o_friction="0.7 0.7 0.02 0.001 0.002">'
        '<flag override="enable"/></option>')
    pm, mm = both(xml)
    total = 0
    for _ in range(30):
        pd, md = collide_both(pm, mm, random_free_qpos(mm, rng, half=0.4))
        compare_contacts(pd, md, TOL, "override")
        total += md.ncon
    assert total > 30


@pytest.mark.parametrize("flag", ["contact", "constraint"])
def test_disable_flags(flag):
    rng = np.random.default_rng(1)
    xml = mixing_xml(rng).replace("<mujoco>", f'<mujoco><option><flag {flag}="disable"/></option>')
    pm, mm = both(xml)
    pd, md = collide_both(pm, mm, random_free_qpos(mm, rng, half=0.2))
    assert md.ncon == 0 and pd.ncon == 0


def test_capacity_overflow_warns():
    rng = np.random.default_rng(5)
    xml = mixing_xml(rng).replace("<mujoco>", '<mujoco><size nconmax="3"/>')
    pm, mm = both(xml)
    for _ in range(50):
        q = random_free_qpos(mm, rng, half=0.15)
        pd, md = collide_both(pm, mm, q)
        if md.ncon > 3:
            break
    assert md.ncon > 3, "no pose with more contacts than the capacity"
    # phalanx keeps the first contacts in MuJoCo's order and counts CONTACTFULL
    assert pd.nconmax == 3 and pd.ncon <= 3
    assert pd.warning[mujoco.mjtWarning.mjWARN_CONTACTFULL, 1] >= 1
    ref = np.array(md.contact.geom)[:pd.ncon]
    assert np.array_equal(pd.contact.geom, ref)


def test_nan_pose_gives_no_nan_contact():
    rng = np.random.default_rng(2)
    pm, _ = both(mixing_xml(rng, types=("sphere", "capsule", "box")))
    pd = phalanx.Data(pm)
    pd.qpos[:] = np.nan
    phalanx.kinematics(pm, pd)
    phalanx.collision(pm, pd)
    assert np.all(np.isfinite(pd.contact.dist))
    pd.qpos[:] = 1e300
    phalanx.kinematics(pm, pd)
    phalanx.collision(pm, pd)
    assert np.all(np.isfinite(pd.contact.frame))


def test_contacts_survive_copy_and_pickle():
    rng = np.random.default_rng(9)
    pm, mm = both(mixing_xml(rng))
    for _ in range(50):
        pd, md = collide_both(pm, mm, random_free_qpos(mm, rng, half=0.2))
        if pd.ncon:
            break
    assert pd.ncon > 0
    for other in (copy.copy(pd), pickle.loads(pickle.dumps(pd))):
        assert other.ncon == pd.ncon
        assert other.contact.tobytes() == pd.contact.tobytes()
    fresh = phalanx.Data(pm)
    phalanx.copyData(fresh, pm, pd)
    assert fresh.contact.tobytes() == pd.contact.tobytes()
    phalanx.resetData(pm, fresh)
    assert fresh.ncon == 0


def test_contact_dtype_is_mjcontact():
    pm, _ = both(PAIRS_XML)
    pd = phalanx.Data(pm)
    # the record stride of the C buffer (capacity plus 50 records of narrow-phase room)
    assert len(pd._contact_bytes) == (pd.nconmax + 50) * phalanx.CONTACT_DTYPE.itemsize == \
        (pd.nconmax + 50) * 584
    names = [n for n in dir(mujoco.MjContact()) if not n.startswith("_")]
    for f in phalanx.CONTACT_DTYPE.names:
        assert f in names


@pytest.mark.parametrize("option,pair,message", [
    ('<flag nativeccd="disable"/>', ("ellipsoid", "cylinder"), "nativeccd disabled"),
    ('', ("ellipsoid", "cylinder"), "ccd_iterations above 256"),
])
def test_refused_by_name(option, pair, message):
    # collision routes phalanx does not have raise NotImplementedError naming them, never run
    # another algorithm silently
    iters = ' ccd_iterations="300"' if "iterations" in message else ""
    sizes = {"ellipsoid": 'size=".1 .2 .3"', "cylinder": 'size=".1 .2"', "box": 'size=".1 .1 .1"',
             "mesh": 'mesh="m"'}
    bodies = "".join(f'<body><freejoint/><geom type="{t}" {sizes[t]}/></body>' for t in pair)
    xml = (f'<mujoco><option{iters}>{option}</option><asset><mesh name="m" '
           'vertex="0 0 0 .2 0 0 0 .2 0 0 0 .2"/></asset>'
           f"<worldbody>{bodies}</worldbody></mujoco>")
    pm = phalanx.Model.from_xml_string(xml)
    pd = phalanx.Data(pm)
    with pytest.raises(NotImplementedError, match=message):
        phalanx.collision(pm, pd)
