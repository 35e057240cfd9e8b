# SPDX-License-Identifier: Apache-2.0
"""The tactile sensor on the Vulkan executor (csrc/kern/tactile.h in shaders/sensor.comp) against
the CPU executor, and the CPU's readings against MuJoCo 3.12 at the same states.

Models like tests/compat/models/tactile_shapes.xml, cut to what the GPU's forward pass collides:
one free probe (a ball with wedge taxels, and a welded pad with plate taxels, under refquat and a
negative scale in every other model) sinking into a sphere, a box, a capsule or the plane, plus a
ball carrying the frameless inline mesh `lumpy` (channel 0 only) on the plane; the cylinder has a
model of its own with ball probes only (a box against a cylinder is a convex-family pair, whose
pipeline lavapipe compiles only with PX_TEST_GPU_CONVEX=1); test_tactile_shapes_fp64_bitwise
runs tactile_shapes.xml itself, convex-family contacts included. Worlds are states along MuJoCo's own
trajectory under random applied forces (so the probes press in and slide). From identical
states, `Vulkan.forward` must equal `phalanx.forward` and `Vulkan.step(nstep=...)` repeated
`phalanx.step`, every data array bit for bit in fp64 (tests/vulkan/test_step.py's assert_same),
with every channel read somewhere; and the CPU's sensordata after forward equals MuJoCo's
mj_forward bit for bit. fp32 sensordata against the fp64 CPU within FP32_TOL (test_fp32_close,
measured on lavapipe).

A cold lavapipe compiles the collision and constraint pipelines first (over 10 minutes on this
shared machine), so the contact tests are slow (`make gpu-check`). The fast subset holds a check
that compiles only the forward and sensor pipelines (contacts disabled: every reading zero, as
on the CPU).
"""

import os

import mujoco
import numpy as np
import pytest

import phalanx
from tests.vulkan.test_collision_gpu import allow_convex
from tests.vulkan.test_constraint_gpu import run_worlds
from tests.vulkan.test_step import assert_same, cpu_world, same_bits

pytestmark = pytest.mark.gpu

OK, WHY = phalanx.vulkan_available()

ASSET = """<asset>
  <mesh name="wedge" builtin="wedge" params="12 10 180 90 0" scale=".1 .1 .1"/>
  <mesh name="wedgefov" builtin="wedge" params="9 7 60 40 .5" scale=".12 .1 .11"
        refquat="0 1 0 0"/>
  <mesh name="plate" builtin="plate" params="8 7" scale=".07 .06 .02"/>
  <mesh name="plater" builtin="plate" params="6 9" scale=".07 .06 -.02" refquat=".9 .1 .2 0"/>
  <mesh name="lumpy" vertex="0 0 -.1  .1 0 -.05  0 .1 -.05  -.1 0 -.05  0 -.1 -.05  .05 .05 .02
                             -.05 .05 .02  .05 -.05 .02  -.05 -.05 .02  0 0 .05"/>
</asset>"""

TARGET = {
    "sphere": 'type="sphere" size=".12"',
    "box": 'type="box" size=".15 .12 .1" euler="0 0 20"',
    "capsule": 'type="capsule" size=".08 .2" euler="0 90 10"',
    "cylinder": 'type="cylinder" size=".15 .1"',
    "plane": None,
}


def tactile_xml(target, other=False):
    """A probe over `target` (the plane: none) and the lumpy ball; `other` picks the second
    wedge and plate meshes (field of view, refquat, negative scale)"""
    wedge, plate = ("wedgefov", "plater") if other else ("wedge", "plate")
    pad = target != "cylinder"  # a box against a cylinder: a convex-family pair
    world = ""
    if TARGET[target]:
        world = f'<geom name="target" pos="0 0 .1" {TARGET[target]}/>'
    probe = f"""<body name="probe" pos=".04 .03 .33" euler="7 5 0"><freejoint/>
      <geom name="ball" class="probe" type="sphere" size=".1"/>"""
    sensors = f'<tactile name="wedge" geom="ball" mesh="{wedge}"/>'
    if pad:
        probe += """<body name="pad" pos=".13 0 -.02" euler="0 15 0">
        <geom name="pad" class="probe" type="box" size=".07 .06 .02"/></body>"""
        sensors += f'<tactile name="plate" geom="pad" mesh="{plate}"/>'
    probe += "</body>"
    return f"""<mujoco model="tactile_{target}"><option timestep="0.002"/>
  <default><default class="probe"><geom solref=".4 1" density="300"/></default></default>
  {ASSET}
  <worldbody><geom name="plane" type="plane" size="10 10 .1"/>{world}{probe}
    <body name="lumpy" pos=".6 .6 .12"><freejoint/>
      <geom name="lumpyball" class="probe" type="sphere" size=".1"/></body>
  </worldbody>
  <sensor>{sensors}<tactile name="lumpy" geom="lumpyball" mesh="lumpy"/></sensor>
</mujoco>"""


CASES = [("sphere", False), ("box", True), ("capsule", False), ("plane", True),
         ("cylinder", False)]

# fp32 against the fp64 CPU, per sensor: ||gpu32 - cpu64|| / max(||cpu64||, 1). Measured on
# lavapipe (test_fp32_close, 5 models x 3 worlds after forward, the same contact counts): worst
# 4.96e-7 at sphere world 0 sensor 1 (the plate); bound 5e-6, 10x. (A taxel at a surface could
# read in one precision and not the other; none did at these states.)
FP32_TOL = 5e-6


@pytest.fixture(scope="module")
def vk():
    if not OK:
        pytest.skip(f"no Vulkan device: {WHY}")
    # a cold lavapipe compiles the collision and constraint pipelines inside the first call's
    # fence wait: more than the default 600 s on this shared 2-core machine
    os.environ.setdefault("PX_VULKAN_TIMEOUT_S", "3600")
    return phalanx.Vulkan(validation=2)


def mujoco_states(xml, nworld, seed, start=150, every=40):
    """(qpos, inputs) of nworld states along MuJoCo's trajectory of xml under random applied
    forces: qvel and xfrc_applied as MuJoCo had them, the other inputs zero"""
    ref = mujoco.MjModel.from_xml_string(xml)
    dr = mujoco.MjData(ref)
    rng = np.random.default_rng(seed)
    q, v, f = [], [], []
    for t in range(start + every * nworld):
        if t % 10 == 0:
            dr.xfrc_applied[1:] = rng.normal(size=(ref.nbody - 1, 6)) * 0.5
        mujoco.mj_step(ref, dr)
        if t >= start and (t - start) % every == every - 1:
            q.append(dr.qpos.copy())
            v.append(dr.qvel.copy())
            f.append(dr.xfrc_applied.copy())
    return ref, np.array(q), {"qvel": np.array(v), "xfrc_applied": np.array(f)}


def channels_read(model, sensordata):
    """per channel, the number of nonzero readings over the tactile sensors"""
    n = np.zeros(3, dtype=int)
    for i in range(model.nsensor):
        a, dim = model.sensor_adr[i], model.sensor_dim[i]
        n += np.count_nonzero(np.asarray(sensordata)[a:a + dim].reshape(3, -1), axis=1)
    return n


@pytest.mark.slow
@pytest.mark.parametrize("target,other", CASES, ids=[c[0] for c in CASES])
def test_tactile_fp64_bitwise(vk, target, other):
    if not vk.fp64:
        pytest.skip(f"{vk.device} has no shaderFloat64")
    xml = tactile_xml(target, other)
    ref, q, inputs = mujoco_states(xml, 3, seed=len(target))
    model = phalanx.Model.from_xml_string(xml)
    read = np.zeros(3, dtype=int)
    for w, (out, i) in run_worlds(vk, vk.forward, model, q, inputs).items():
        data = cpu_world(model, q, inputs, w)
        phalanx.forward(model, data)
        assert_same(out, data, i, f"{target}: forward, world {w}")
        read += channels_read(model, data.sensordata)
        # the CPU's readings are MuJoCo's
        dr = mujoco.MjData(ref)
        dr.qpos[:], dr.qvel[:], dr.xfrc_applied[:] = q[w], inputs["qvel"][w], inputs[
            "xfrc_applied"][w]
        mujoco.mj_forward(ref, dr)
        assert same_bits(np.asarray(data.sensordata), dr.sensordata), f"{target}: MuJoCo, {w}"
    assert (read > 0).all(), f"{target}: a channel never read: {read}"
    nstep = 3
    for w, (out, i) in run_worlds(vk, vk.step, model, q, inputs, nstep=nstep).items():
        data = cpu_world(model, q, inputs, w)
        for _ in range(nstep):
            phalanx.step(model, data)
        assert_same(out, data, i, f"{target}: {nstep} steps, world {w}")
        assert same_bits(out["time"][i], np.float64(data.time)), f"time of world {w}"
    assert vk.validation_messages == 0


SHAPES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "compat", "models",
                      "tactile_shapes.xml")


@pytest.mark.slow
def test_tactile_shapes_fp64_bitwise(vk, monkeypatch):
    """tests/compat/models/tactile_shapes.xml itself: seven probes on a sphere, box, capsule,
    cylinder, ellipsoid, mesh and the plane, whose contacts need the convex narrow-phase family
    in the GPU's forward pass (on lavapipe only with PX_TEST_GPU_CONVEX=1): forward and 3 steps
    bit for bit, at 3 states of MuJoCo's trajectory."""
    if not vk.fp64:
        pytest.skip(f"{vk.device} has no shaderFloat64")
    allow_convex(vk, monkeypatch)
    with open(SHAPES) as f:
        xml = f.read()
    ref, q, inputs = mujoco_states(xml, 3, seed=7)
    model = phalanx.Model.from_xml_string(xml)
    read = np.zeros(3, dtype=int)
    out = vk.forward(model, q, **inputs)
    for w in range(q.shape[0]):
        data = cpu_world(model, q, inputs, w)
        phalanx.forward(model, data)
        assert_same(out, data, w, f"tactile_shapes: forward, world {w}")
        read += channels_read(model, data.sensordata)
    assert (read > 0).all(), f"tactile_shapes: a channel never read: {read}"
    out = vk.step(model, q, nstep=3, **inputs)
    for w in range(q.shape[0]):
        data = cpu_world(model, q, inputs, w)
        for _ in range(3):
            phalanx.step(model, data)
        assert_same(out, data, w, f"tactile_shapes: 3 steps, world {w}")
    assert vk.validation_messages == 0


@pytest.mark.slow
def test_fp32_close(vk):
    """fp32 sensordata after forward against the fp64 CPU, per sensor within FP32_TOL (the same
    contacts: counts equal). Measured on lavapipe: worst 4.96e-7 at sphere world 0 sensor 1
    (6m24s with the fp32 forward, collision, constraint and sensor pipelines built cold,
    GALLIVM_PERF=nopt)."""
    worst = (0.0, "")
    for target, other in CASES:
        xml = tactile_xml(target, other)
        _, q, inputs = mujoco_states(xml, 3, seed=len(target))
        model = phalanx.Model.from_xml_string(xml)
        out = vk.forward(model, q, precision="fp32", **inputs)
        for w in range(q.shape[0]):
            data = cpu_world(model, q, inputs, w)
            phalanx.forward(model, data)
            assert out["ncon"][w] == data.ncon, f"{target}: contacts of world {w}"
            for i in range(model.nsensor):
                a, n = model.sensor_adr[i], model.sensor_dim[i]
                g = np.asarray(out["sensordata"][w][a:a + n], float)
                c = np.asarray(data.sensordata[a:a + n], float)
                err = np.linalg.norm(g - c) / max(np.linalg.norm(c), 1.0)
                worst = max(worst, (err, f"{target} world {w} sensor {i}"))
                assert err <= FP32_TOL, f"{target} world {w} sensor {i}: {err:.3g}"
    print(f"\nfp32 tactile worst relative error {worst[0]:.3g} at {worst[1]}")
    assert vk.validation_messages == 0


def test_no_contacts_fast(vk):
    """Contacts disabled (no collision or constraint pipeline): the tactile sensors run on the
    GPU, no longer refused, and read zero as on the CPU, after forward and after steps; with
    sensors disabled their data stays untouched."""
    if not vk.fp64:
        pytest.skip(f"{vk.device} has no shaderFloat64")
    xml = tactile_xml("box", True)
    _, q, inputs = mujoco_states(xml, 2, seed=1, start=40, every=20)
    model = phalanx.Model.from_xml_string(xml)
    model.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)
    out = vk.forward(model, q, **inputs)
    out2 = vk.step(model, q, nstep=2, **inputs)
    for w in range(q.shape[0]):
        data = cpu_world(model, q, inputs, w)
        phalanx.forward(model, data)
        assert_same(out, data, w, f"forward, world {w}")
        for _ in range(2):
            phalanx.step(model, data)
        assert_same(out2, data, w, f"2 steps, world {w}")
    assert not np.any(out["sensordata"]) and not np.any(out2["sensordata"])
    assert vk.validation_messages == 0
