# SPDX-License-Identifier: Apache-2.0
"""Bad geometry never crashes collision: degenerate meshes (flat, one triangle, duplicate
vertices) are refused at compile time with a clear error or collide finitely; tiny geoms, huge
coordinates and NaN or infinite poses give no contact or finite contacts, never a crash, a hang
or a NaN contact. Where MuJoCo accepts the model and the poses are finite, the contacts equal
MuJoCo's."""

import numpy as np
import pytest

import phalanx
from tests.compat._contact import compare_contacts

mujoco = pytest.importorskip("mujoco")

# every geom type; margin 0 sends box-mesh and mesh-mesh pairs to MuJoCo's polygon multi-contact
ALL_TYPES = """
<mujoco>
  <default><geom margin="{margin}"/></default>
  <asset>
    <mesh name="tet" vertex="0 0 0  .2 0 0  0 .2 0  0 0 .2"/>
    <mesh name="cube" vertex="-.1 -.1 -.1  .1 -.1 -.1  .1 .1 -.1  -.1 .1 -.1
                              -.1 -.1 .1  .1 -.1 .1  .1 .1 .1  -.1 .1 .1"/>
    <hfield name="hf" nrow="3" ncol="3" size=".5 .5 .1 .05" elevation="0 1 0 1 2 1 0 1 0"/>
  </asset>
  <worldbody>
    <geom type="plane" size="2 2 .1"/>
    <geom type="hfield" hfield="hf" pos="1 1 0"/>
    <body><freejoint/>{I}<geom type="sphere" size="{s}"/></body>
    <body><freejoint/>{I}<geom type="capsule" size="{s} {s}"/></body>
    <body><freejoint/>{I}<geom type="ellipsoid" size="{s} {s2} {s}"/></body>
    <body><freejoint/>{I}<geom type="cylinder" size="{s} {s}"/></body>
    <body><freejoint/>{I}<geom type="box" size="{s} {s2} {s}"/></body>
    <body><freejoint/>{I}<geom type="mesh" mesh="tet"/></body>
    <body><freejoint/>{I}<geom type="mesh" mesh="cube"/></body>
  </worldbody>
</mujoco>
"""


INERTIAL = '<inertial pos="0 0 0" mass="1" diaginertia=".01 .01 .01"/>'


def scene(size, margin=0.001):
    return ALL_TYPES.format(s=size, s2=size * 1.5, I=INERTIAL, margin=margin)


def poses(mm, rng, scale, offset=0.0):
    q = mm.qpos0.copy()
    for j in range(mm.njnt):
        a = mm.jnt_qposadr[j]
        q[a:a + 3] = rng.uniform(-scale, scale, 3) + offset
        quat = rng.normal(size=4)
        q[a + 3:a + 7] = quat / np.linalg.norm(quat)
    return q


def run(pm, q):
    pd = phalanx.Data(pm)
    pd.qpos[:] = q
    phalanx.kinematics(pm, pd)
    phalanx.collision(pm, pd)
    c = pd.contact
    for f in ("dist", "pos", "frame", "friction", "solref", "solimp"):
        assert np.all(np.isfinite(c[f])), f"non-finite contact {f}"
    return pd


@pytest.mark.parametrize("margin", [0.001, 0.0])
@pytest.mark.parametrize("size", [0.1, 1e-6])
def test_all_types_match_mujoco(size, margin):
    xml = scene(size, margin)
    pm, mm = phalanx.Model.from_xml_string(xml), mujoco.MjModel.from_xml_string(xml)
    rng = np.random.default_rng(int(size * 1e7))
    total = 0
    for _ in range(40):
        q = poses(mm, rng, 0.3)
        pd = run(pm, q)
        md = mujoco.MjData(mm)
        md.qpos[:] = q
        mujoco.mj_kinematics(mm, md)
        mujoco.mj_collision(mm, md)
        for f in ("xpos", "xquat", "xmat", "xipos", "ximat", "geom_xpos", "geom_xmat"):
            getattr(pd, f)[:] = getattr(md, f)
        phalanx.collision(pm, pd)
        compare_contacts(pd, md, 1e-9, f"size {size}")
        total += md.ncon
    assert total > 0


@pytest.mark.parametrize("margin", [0.001, 0.0])
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, 1e300, 1e15])
def test_bad_poses(bad, margin):
    pm = phalanx.Model.from_xml_string(scene(0.1, margin))
    rng = np.random.default_rng(0)
    for k in range(20):
        q = poses(pm, rng, 0.3)
        idx = rng.choice(len(q), size=1 + k % 5, replace=False)
        q[idx] = bad
        run(pm, q)
        q[:] = bad
        run(pm, q)


@pytest.mark.parametrize("margin", [0.001, 0.0])
def test_huge_offsets_stay_finite(margin):
    pm = phalanx.Model.from_xml_string(scene(0.1, margin))
    rng = np.random.default_rng(1)
    for offset in (1e6, 1e9, 1e12):
        for _ in range(10):
            run(pm, poses(pm, rng, 0.3, offset))


DEGENERATE = {
    "flat": "0 0 0  1 0 0  0 1 0  1 1 0",
    "triangle": "0 0 0  1 0 0  0 1 0",
    "duplicates": "0 0 0  0 0 0  1 0 0  1 0 0  0 1 0  0 0 1  0 0 1",
    "collinear": "0 0 0  1 0 0  2 0 0  3 0 0",
}


@pytest.mark.parametrize("margin", [0.001, 0.0])
@pytest.mark.parametrize("name", sorted(DEGENERATE))
def test_degenerate_meshes(name, margin):
    xml = f"""<mujoco><default><geom margin="{margin}"/></default>
      <asset><mesh name="m" vertex="{DEGENERATE[name]}"/></asset>
      <worldbody><geom type="plane" size="2 2 .1"/>
        <body><freejoint/><geom type="mesh" mesh="m" mass="1"/></body>
        <body pos="0 0 .5"><freejoint/><geom type="box" size=".3 .3 .3"/></body>
      </worldbody></mujoco>"""
    try:
        pm = phalanx.Model.from_xml_string(xml)
    except (phalanx.MJCFError, NotImplementedError) as e:
        assert str(e)  # a clear message
        return
    rng = np.random.default_rng(2)
    for _ in range(30):
        run(pm, poses(pm, rng, 0.4))
