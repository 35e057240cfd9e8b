# SPDX-License-Identifier: Apache-2.0
"""The collision phase of the Vulkan executor (`Vulkan.collision`) against the CPU executor.

One source, two executors: `Vulkan.collision(model, qpos)` runs mj_kinematics and mj_collision
(csrc/kern/collide.h: broad phase, midphase, every narrow-phase routine) per world on the
device. From identical random poses, several worlds per batch, its contact count and contact
records must equal `phalanx.kinematics` + `phalanx.collision` on the CPU bit for bit in fp64
(every field of every record, signs of zero included), and stay within FP32_TOL in fp32.

lavapipe compiles each pipeline with LLVM at its first use: the pair-list entry point and the
primitive narrow phase take about 40 to 70 s together (fp64 or fp32); Mesa's shader cache keeps
them. The general convex (GJK/EPA) and height-field families take far longer there (over 5
minutes of CPU each, docs/gpu_executor.md, "Collision"), so the executor refuses them on a CPU
device unless PX_GPU_CONVEX=1, and test_convex/test_hfield run there only with
PX_TEST_GPU_CONVEX=1. The fast suite runs one fp64 case on primitive geoms; the rest is marked
slow (`make gpu-check`; the sweeps need --full).
"""

import os

import mujoco
import numpy as np
import pytest

import phalanx
from tests.conftest import shared_model

pytestmark = pytest.mark.gpu

OK, WHY = phalanx.vulkan_available()

# fp32 against the fp64 CPU: contact count equal and, per record, the largest absolute error of
# dist, pos and frame (measured: see docs/gpu_executor.md)
FP32_TOL = 1e-4

# the primitive routines: a plane, spheres, capsules and boxes on free bodies crowded together
# (plane-sphere/capsule/box, sphere-sphere/capsule/box, capsule-capsule/box, box-box; a cylinder
# would bring the convex family: capsule-cylinder is GJK/EPA), margins and gaps, an explicit <pair> with its own parameters, an
# <exclude>, two geoms on one body (the midphase), mixed priorities and condims
PRIMS = """
<mujoco model="prims">
  <worldbody>
    <geom type="plane" size="2 2 0.1"/>
    <body pos="0 0 0.2"><freejoint/><geom name="s" type="sphere" size="0.1" margin="0.01" gap="0.005"/></body>
    <body pos="0.1 0 0.2"><freejoint/><geom type="capsule" size="0.06 0.1" priority="1" condim="4"/></body>
    <body name="b1" pos="0 0.1 0.2"><freejoint/><geom name="bx" type="box" size="0.08 0.06 0.1"/></body>
    <body name="b2" pos="0.1 0.1 0.2"><freejoint/>
      <geom type="box" size="0.05 0.07 0.04" condim="6"/>
      <geom type="sphere" size="0.05" pos="0 0 0.08"/>
    </body>
    <body pos="-0.1 0 0.2"><freejoint/><geom type="sphere" size="0.07" solmix="2" priority="-1"/></body>
    <body name="b3" pos="0 -0.1 0.2"><freejoint/><geom type="capsule" size="0.04 0.12" margin="0.02"/></body>
  </worldbody>
  <contact>
    <pair geom1="s" geom2="bx" condim="1" friction="0.3 0.3 0.01 0.001 0.001" margin="0.03"/>
    <exclude body1="b2" body2="b3"/>
  </contact>
</mujoco>
"""

# the general convex collider (GJK/EPA) too: an ellipsoid, a cylinder and a convex mesh with the
# primitives (box-mesh with a margin and without: the polygon multi-contact)
MIXED = """
<mujoco model="mixed">
  <asset>
    <mesh name="tet" vertex="0 0 0  0.2 0 0  0 0.2 0  0 0 0.2  0.15 0.15 0.15"/>
  </asset>
  <worldbody>
    <geom type="plane" size="2 2 0.1"/>
    <body pos="0 0 0.2"><freejoint/><geom type="sphere" size="0.1"/></body>
    <body pos="0.1 0 0.2"><freejoint/><geom type="capsule" size="0.06 0.1"/></body>
    <body pos="0 0.1 0.2"><freejoint/><geom type="box" size="0.08 0.06 0.1"/></body>
    <body pos="0.1 0.1 0.2"><freejoint/><geom type="ellipsoid" size="0.1 0.07 0.05"/></body>
    <body pos="-0.1 0 0.2"><freejoint/><geom type="cylinder" size="0.07 0.08"/></body>
    <body pos="0 -0.1 0.2"><freejoint/><geom type="mesh" mesh="tet" margin="0.002"/></body>
  </worldbody>
</mujoco>
"""


# the height-field collider (GJK/EPA on prisms): a sphere, a capsule, a box, an ellipsoid, a
# cylinder and a convex mesh over a small terrain; contype/conaffinity let them touch the terrain
# only, so that the height-field family is the only one (one pipeline)
HFIELD = """
<mujoco model="hfield">
  <asset>
    <hfield name="h" nrow="4" ncol="5" size="0.4 0.3 0.1 0.05"
            elevation="0 0.2 0.5 0.3 0.1  0.3 0.6 0.9 0.4 0.2  0.1 0.5 1 0.6 0.3  0 0.2 0.4 0.2 0"/>
    <mesh name="tet" vertex="0 0 0  0.12 0 0  0 0.12 0  0 0 0.12  0.09 0.09 0.09"/>
  </asset>
  <default><geom contype="2" conaffinity="1"/></default>
  <worldbody>
    <geom type="hfield" hfield="h" contype="1" conaffinity="2"/>
    <body pos="-0.2 -0.1 0.1"><freejoint/><geom type="sphere" size="0.06"/></body>
    <body pos="0 -0.1 0.12"><freejoint/><geom type="capsule" size="0.04 0.06" margin="0.01"/></body>
    <body pos="0.2 -0.1 0.1"><freejoint/><geom type="box" size="0.05 0.04 0.03"/></body>
    <body pos="-0.2 0.1 0.1"><freejoint/><geom type="ellipsoid" size="0.06 0.04 0.03"/></body>
    <body pos="0 0.1 0.12"><freejoint/><geom type="cylinder" size="0.04 0.05"/></body>
    <body pos="0.2 0.1 0.1"><freejoint/><geom type="mesh" mesh="tet"/></body>
  </worldbody>
</mujoco>
"""


def gymnasium(name):
    return lambda: phalanx.Model.from_xml_path(shared_model("gymnasium", name))


def mujoco_model(*parts):
    return lambda: phalanx.Model.from_xml_path(shared_model("mujoco", *parts))


def mixed():
    return phalanx.Model.from_xml_string(MIXED)


def prims():
    return phalanx.Model.from_xml_string(PRIMS)


def hfield():
    return phalanx.Model.from_xml_string(HFIELD)


@pytest.fixture(scope="module")
def vk():
    if not OK:
        pytest.skip(f"no Vulkan device: {WHY}")
    return phalanx.Vulkan()


def random_poses(model, nworld, rng, spread):
    """qpos0 with free bodies moved by up to `spread` and every rotation random (unit
    quaternions), hinges and slides uniform in [-1, 1]."""
    q = np.tile(model.qpos0, (nworld, 1))
    for j in range(model.njnt):
        a, t = model.jnt_qposadr[j], model.jnt_type[j]
        if t == 0:
            q[:, a:a + 3] += rng.uniform(-spread, spread, (nworld, 3))
            qq = rng.normal(size=(nworld, 4))
            q[:, a + 3:a + 7] = qq / np.linalg.norm(qq, axis=1)[:, None]
        elif t == 1:
            qq = rng.normal(size=(nworld, 4))
            q[:, a:a + 4] = qq / np.linalg.norm(qq, axis=1)[:, None]
        else:
            q[:, a] = rng.uniform(-1, 1, nworld)
    return q


def cpu_contacts(model, qpos):
    data = phalanx.Data(model)
    data.qpos[:] = qpos
    phalanx.kinematics(model, data)
    phalanx.collision(model, data)
    return data.ncon, np.array(data.contact)


def record_bytes(c):
    return np.ascontiguousarray(c).view(np.uint8)


def same_fields(a, b):
    """Every field of two record arrays bit for bit (signs of zero included); the 4 padding bytes
    at the end of each record are not compared (the CPU's struct copies carry whatever they
    held)."""
    return all(np.array_equal(np.ascontiguousarray(a[f]).view(np.uint8),
                              np.ascontiguousarray(b[f]).view(np.uint8)) for f in a.dtype.names)


def cpu_device(vk):
    return "llvmpipe" in vk.device.lower() or "lavapipe" in vk.device.lower()


def allow_convex(vk, monkeypatch):
    """On a CPU device the convex and height-field families run only when asked."""
    if cpu_device(vk):
        if os.environ.get("PX_TEST_GPU_CONVEX") != "1":
            pytest.skip("set PX_TEST_GPU_CONVEX=1 (lavapipe takes minutes to compile GJK/EPA)")
        monkeypatch.setenv("PX_GPU_CONVEX", "1")


def pair_runs(c):
    """The contacts grouped by geom pair, in order: [(geom pair, first index, count)]."""
    runs = []
    for i, g in enumerate(map(tuple, c["geom"])):
        if runs and runs[-1][0] == g:
            runs[-1][2] += 1
        else:
            runs.append([g, i, 1])
    return runs


# geom types whose pairs may yield several points of one touch: flat faces (a box, a cylinder's
# caps, a mesh: the polygon multi-contact, multiccd) and height fields (one point per prism)
MULTI_TYPES = {int(mujoco.mjtGeom.mjGEOM_BOX), int(mujoco.mjtGeom.mjGEOM_CYLINDER),
               int(mujoco.mjtGeom.mjGEOM_MESH), int(mujoco.mjtGeom.mjGEOM_HFIELD)}


# geom types of the pairs that run GJK/EPA (ellipsoids, cylinders, meshes) or a height field's
# prisms through it; in fp32 their contact points and frames are looser than the analytic
# routines': the EPA polytope stops at fp32 resolution, far above ccd_tolerance, and where faces
# are nearly parallel (a cylinder's cap on a prism) the normal is ill-conditioned. Measured on
# lavapipe (test_convex, test_hfield): dist within 5.3e-7, pos within 2.5e-4, frame within 2.6e-3
# (ellipsoid-cylinder) and 2.3e-2 (cylinder on a height field)
CCD_TYPES = {int(mujoco.mjtGeom.mjGEOM_ELLIPSOID), int(mujoco.mjtGeom.mjGEOM_CYLINDER),
             int(mujoco.mjtGeom.mjGEOM_MESH), int(mujoco.mjtGeom.mjGEOM_HFIELD)}
FP32_TOL_CCD = {"pos": 1e-3, "frame": 5e-2}


def types_of(model, pair):
    return {int(model.geom_type[g]) for g in pair}


def compare_fp32(model, got, ref, where):
    """fp32 GPU contacts against the fp64 CPU's: the same geom pairs in the same order, each
    pair's records within FP32_TOL field by field (FP32_TOL_CCD's bounds for the GJK/EPA and
    height-field pairs' points and frames); worst error returned. A pair may differ in its
    number of points only where a flat face or a height field takes part and one side has several
    points (the points of one touch, whose count depends on alignment and clipping thresholds that
    fp32 rounding crosses); then its deepest points must agree."""
    rg, rr = pair_runs(got), pair_runs(ref)
    assert [r[0] for r in rg] == [r[0] for r in rr], f"{where}: geom pairs differ"
    worst = 0.0
    for (pair, ig, ng), (_, ir, nr) in zip(rg, rr):
        fields = ("dist", "pos", "frame", "includemargin", "friction", "solref", "solimp")
        a, b = got[ig:ig + ng], ref[ir:ir + nr]
        for f in ("dim", "exclude", "efc_address"):
            assert len(set(a[f]) | set(b[f])) == 1, f"{where}: pair {pair}: {f} differs"
        if ng != nr:
            assert types_of(model, pair) & MULTI_TYPES and max(ng, nr) > 1, \
                f"{where}: pair {pair}: {ng} contacts on the GPU, {nr} on the CPU"
            a, b = a[np.argsort(a["dist"])][:1], b[np.argsort(b["dist"])][:1]
            fields = ("dist", "frame", "includemargin", "friction", "solref", "solimp")
        ccd = bool(types_of(model, pair) & CCD_TYPES)
        for f in fields:
            err = float(np.max(np.abs(a[f] - b[f])))
            tol = FP32_TOL_CCD.get(f, FP32_TOL) if ccd else FP32_TOL
            assert err <= tol, f"{where}: pair {pair}: fp32 {f} off by {err:.3g} (bound {tol:g})"
            worst = max(worst, err)
    return worst


def check(vk, model, nworld, seed, spread, precision, min_contacts=1):
    rng = np.random.default_rng(seed)
    q = random_poses(model, nworld, rng, spread)
    out = vk.collision(model, q, precision=precision)
    assert out["ncon"].shape == (nworld,)
    assert out["contact"].dtype == phalanx.CONTACT_DTYPE
    total, worst = 0, 0.0
    for w in range(nworld):
        n, ref = cpu_contacts(model, q[w])
        ngpu = int(out["ncon"][w])
        if precision == "fp64":
            assert ngpu == n, f"world {w}: {ngpu} contacts on the GPU, {n} on the CPU"
            assert same_fields(out["contact"][w][:n], ref), f"world {w}: records differ"
        else:
            worst = max(worst, compare_fp32(model, out["contact"][w][:ngpu], ref, f"world {w}"))
        total += n
        # records past ncon stay zero
        assert not np.any(record_bytes(out["contact"][w][ngpu:]))
    assert total >= min_contacts, "too few contacts for a meaningful comparison"
    return total, worst


def test_humanoid_fp64(vk):
    """gymnasium humanoid (capsules, spheres, a plane): 6 worlds, bit-equal contacts."""
    check(vk, gymnasium("humanoid.xml")(), 6, 1, 0.3, "fp64", min_contacts=3)


CASES = [
    ("ant", gymnasium("ant.xml"), 0.3, 8),
    ("humanoid", gymnasium("humanoid.xml"), 0.3, 8),
    ("mujoco-humanoid", mujoco_model("model", "humanoid", "humanoid.xml"), 0.3, 8),
    ("prims", prims, 0.15, 8),
]


@pytest.mark.slow
@pytest.mark.parametrize("name,make,spread,nworld", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("precision", ["fp64", "fp32"])
def test_collision(vk, full, name, make, spread, nworld, precision):
    if not full:
        pytest.skip("compiles the narrow-phase pipelines: make gpu-check (--full)")
    total, worst = check(vk, make(), nworld, 7, spread, precision)
    if precision == "fp32":
        print(f"{name}: fp32 worst abs error {worst:.3g} over {total} contacts")
        assert worst <= FP32_TOL, f"{name}: fp32 error {worst:.3g} over {total} contacts"


@pytest.mark.slow
@pytest.mark.parametrize("precision", ["fp64", "fp32"])
def test_convex(vk, monkeypatch, precision):
    """The general convex family (GJK/EPA, the polygon multi-contact) with the primitive one:
    an ellipsoid, a cylinder and a convex mesh among primitives."""
    allow_convex(vk, monkeypatch)
    total, worst = check(vk, mixed(), 8, 7, 0.15, precision, min_contacts=8)
    if precision == "fp32":
        print(f"mixed: fp32 worst abs error {worst:.3g} over {total} contacts")


@pytest.mark.slow
@pytest.mark.parametrize("precision", ["fp64", "fp32"])
def test_hfield(vk, monkeypatch, precision):
    """The height-field family alone: six convex shapes over a terrain."""
    allow_convex(vk, monkeypatch)
    total, worst = check(vk, hfield(), 8, 5, 0.08, precision, min_contacts=8)
    if precision == "fp32":
        print(f"hfield: fp32 worst abs error {worst:.3g} over {total} contacts")


@pytest.mark.slow
def test_many_pairs(vk, full):
    """22 humanoids: a long narrow phase (hundreds of geom pairs per world), split into chunks;
    the count must match the CPU's (lavapipe ends long loops silently)."""
    if not full:
        pytest.skip("make gpu-check (--full)")
    check(vk, mujoco_model("model", "humanoid", "22_humanoids.xml")(), 2, 3, 0.0, "fp64",
          min_contacts=10)


def test_convex_refused_on_cpu_device(vk, monkeypatch):
    """On a CPU Vulkan device the convex and height-field families are refused by name at once
    (their pipelines take minutes to compile there), never a seeming hang."""
    if not cpu_device(vk):
        pytest.skip(f"{vk.device} is not Mesa's CPU device")
    monkeypatch.delenv("PX_GPU_CONVEX", raising=False)
    for model in (mixed(), hfield()):
        q = np.tile(model.qpos0, (2, 1))
        with pytest.raises(NotImplementedError, match="(convex|height-field) .*PX_GPU_CONVEX=1"):
            vk.collision(model, q)


def test_arguments(vk):
    model = gymnasium("humanoid.xml")()
    q = np.tile(model.qpos0, (2, 1))
    with pytest.raises(ValueError):
        vk.collision(model, q, precision="fp16")
    with pytest.raises(ValueError):
        vk.collision(model, q[:, :-1])
