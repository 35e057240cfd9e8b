# SPDX-License-Identifier: Apache-2.0
"""The constraint stage on the Vulkan executor against the CPU executor.

`Vulkan.forward` and `Vulkan.step` of models with constraint rows run collision (the pair list and
the narrow phase of the pair families present: primitive, convex, height field), the rows (shaders/constraint.comp: csrc/kern/constraint.h, islands,
projection, reference acceleration) and the model's solver (shaders/solprimal.comp: Newton, CG;
shaders/soldual.comp: PGS, noslip) between the smooth pass and the sensors, the sequence of
px_forward (csrc/engine/forward.c). From identical states (random joint positions, velocities,
controls, applied forces: bodies below the floor, so many contacts and limits), several worlds
per batch, every data array, the contact records and the constraint rows must equal the CPU's
bit for bit in fp64 (signs of zero included); fp32 stays within a stated tolerance of the fp64
CPU. The Gymnasium models with primitive collision run as they are (their own integrator,
solver and cone: Newton with the pyramidal cone, and humanoid with PGS).

Runs on whatever Vulkan device is present (Mesa's lavapipe here); skipped where none exists.
lavapipe compiles each pipeline at its first use (on a cold cache on this shared 2-core machine
the first hopper call took over 10 minutes: the primal solver's pipeline alone several minutes of
CPU), so the fence wait is raised to an hour and the parity runs are in `make gpu-check`
(`--full`); the fast subset (`make test`) holds the refusals, which compile nothing.
"""

import os

import mujoco
import numpy as np
import pytest

import phalanx
from tests.conftest import shared_model
from tests.vulkan.test_collision_gpu import (CCD_TYPES, HFIELD, MIXED, allow_convex, cpu_device,
                                             random_poses)
from tests.vulkan.test_step import assert_same, cpu_world, random_batch, rel, same_bits

pytestmark = pytest.mark.gpu

OK, WHY = phalanx.vulkan_available()

# fp32 against the fp64 CPU: ||gpu32 - cpu64|| / max(||cpu64||, 1e-12) per array and world,
# after a forward pass (the solver's output qacc and the smooth input qacc_smooth)
FP32_TOL = 1e-3
FP32_FORWARD = ("qacc_smooth", "qacc", "qfrc_constraint")

# the constraint arrays MuJoCo's mjData has (phalanx.Data views of the first nefc rows)
EFC = ("efc_type", "efc_id", "efc_state", "efc_J", "efc_pos", "efc_margin", "efc_frictionloss",
       "efc_diagA", "efc_KBIP", "efc_D", "efc_R", "efc_vel", "efc_aref", "efc_b", "efc_force")
# efc_n entries and the Data attribute of each (PX_EFC_NEED, entry 5, has none)
EFC_N = {0: "nefc", 1: "ne", 2: "nf", 3: "nl", 4: "solver_niter", 6: "nisland", 7: "nidof"}


def gym(name):
    return shared_model("gymnasium", name)


@pytest.fixture(scope="module")
def vk():
    if not OK:
        pytest.skip(f"no Vulkan device: {WHY}")
    # a cold lavapipe compiles the collision and constraint pipelines inside the first call's
    # fence wait: more than the default 600 s on this shared 2-core machine
    os.environ.setdefault("PX_VULKAN_TIMEOUT_S", "3600")
    v = phalanx.Vulkan(validation=2)
    if not v.fp64:
        pytest.skip(f"{v.device} has no shaderFloat64")
    return v


def load(path, solver=None):
    model = phalanx.Model.from_xml_path(path)
    if solver is not None:
        model.opt.solver = solver
    return model


def assert_constraints(out, data, w, what):
    """Every data array, the row counts, the nefc rows of every mjData efc array and the ncon
    contact records (every field) bit for bit."""
    assert_same(out, data, w, what)
    for k, attr in EFC_N.items():
        assert out["efc_n"][w][k] == getattr(data, attr), f"{what}: {attr} of world {w}"
    nefc = data.nefc
    for name in EFC:
        cpu = np.ascontiguousarray(getattr(data, name)).ravel()
        gpu = out[name][w][:cpu.size]
        if not same_bits(gpu, cpu):
            diff = np.max(np.abs(gpu.astype(float) - cpu.astype(float)), initial=0)
            pytest.fail(f"{what}: {name} differs in world {w} ({nefc} rows, max |diff| {diff:.3g})")
    assert out["ncon"][w] == data.ncon, f"{what}: ncon of world {w}"
    gpu, cpu = out["contact"][w][:data.ncon], data.contact
    for field in phalanx.CONTACT_DTYPE.names:
        assert same_bits(gpu[field], np.asarray(cpu[field])), f"{what}: contact {field}, world {w}"


def run_worlds(vk, method, model, q, inputs, **kw):
    """{world: (the result dict, its index)} of one batch call (every world must run: lavapipe's
    loop budget is met by running a solve over several dispatches, csrc/kern/solver.h)."""
    out = method(model, q, **inputs, **kw)
    return {w: (out, w) for w in range(q.shape[0])}


def batch(model, nworld, seed, mild):
    """random_batch's states, or (mild) the model's reference pose with a tenth of its
    velocities and forces: fewer contacts"""
    q, inputs = random_batch(model, nworld, np.random.default_rng(seed))
    if mild:
        q = np.tile(model.qpos0, (nworld, 1))
        for k in ("qvel", "qfrc_applied", "xfrc_applied"):
            inputs[k] = inputs[k] * 0.1
    return q, inputs


def check_forward(vk, model, nworld, seed, lanes=1, mild=False):
    q, inputs = batch(model, nworld, seed, mild)
    runs = run_worlds(vk, vk.forward, model, q, inputs, lanes=lanes)
    rows = []
    for w, (out, i) in runs.items():
        data = cpu_world(model, q, inputs, w)
        phalanx.forward(model, data)
        assert_constraints(out, data, i, f"forward, {lanes} lanes, world {w}")
        rows.append(data.nefc)
    assert vk.validation_messages == 0
    return rows


def check_step(vk, model, nworld, seed, nstep, lanes=1, mild=False):
    q, inputs = batch(model, nworld, seed, mild)
    runs = run_worlds(vk, vk.step, model, q, inputs, nstep=nstep, lanes=lanes)
    for w, (out, i) in runs.items():
        data = cpu_world(model, q, inputs, w)
        for _ in range(nstep):
            phalanx.step(model, data)
        assert_constraints(out, data, i, f"{nstep} steps, {lanes} lanes, world {w}")
        assert same_bits(out["time"][i], np.float64(data.time)), f"time of world {w}"
    assert vk.validation_messages == 0


# a cold lavapipe cache compiles the rows and primal-solver pipelines first: over 10 minutes
@pytest.mark.slow
def test_hopper_fp64(vk):
    """Hopper (Newton, pyramidal cone, joint limits, foot contacts, RK4): forward and 2 steps."""
    model = load(gym("hopper.xml"))
    rows = check_forward(vk, model, 2, 21)
    assert max(rows) > 0  # rows arise: contacts, limits
    check_step(vk, model, 2, 22, 2)


@pytest.mark.slow
def test_hopper_staged_fp64(vk, monkeypatch):
    """The shaders in a device-local copy of the worlds' buffer, copied in before the dispatches
    and back after them (a discrete GPU's layout, forced with PX_VULKAN_STAGING=1 on any device):
    hopper's forward and steps with rows give the CPU's bits (tests/c/test_vulkan.c checks that
    the knob takes effect)."""
    monkeypatch.setenv("PX_VULKAN_STAGING", "1")
    model = load(gym("hopper.xml"))
    rows = check_forward(vk, model, 2, 31)
    assert max(rows) > 0
    check_step(vk, model, 2, 32, 2)


SLOW = [
    ("ant.xml", None),  # world 0: 103 rows
    ("half_cheetah.xml", None),
    ("walker2d.xml", None),
    ("walker2d.xml", mujoco.mjtSolver.mjSOL_PGS),  # 59 and 43 rows, 100 iterations
    ("humanoid.xml", None),  # PGS; world 0: 120 rows
    ("hopper.xml", mujoco.mjtSolver.mjSOL_CG),
]


@pytest.mark.slow
@pytest.mark.parametrize("name,solver", SLOW, ids=[f"{n}-{s}" for n, s in SLOW])
def test_gymnasium_fp64(vk, name, solver):
    """The other Gymnasium models with primitive collision, and the other solvers, from random
    states (on lavapipe the larger solves run over several dispatches)."""
    model = load(gym(name), None if solver is None else int(solver))
    rows = check_forward(vk, model, 3, 23)
    assert max(rows) > 0
    check_step(vk, model, 3, 24, 2)


# the convex (GJK/EPA, polygon multi-contact) and height-field narrow-phase families in the
# forward pass: Gymnasium's pusher (capsule-cylinder pairs) and the collision tests' scenes
CONVEX = {
    "pusher_v5": (lambda: load(gym("pusher_v5.xml")), None),
    "mixed": (lambda: phalanx.Model.from_xml_string(MIXED), 0.15),
    "hfield": (lambda: phalanx.Model.from_xml_string(HFIELD), 0.08),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CONVEX))
def test_convex_contacts_fp64(vk, monkeypatch, name):
    """Forward and 2 steps with contacts of the convex and height-field families (their
    narrow-phase entry points dispatched in pair order with the primitive one, as
    Vulkan.collision does): every array and row bit for bit. The scenes' free bodies start at
    random poses near their reference (so that they touch), with a tenth of random_batch's
    velocities and forces."""
    allow_convex(vk, monkeypatch)
    make, spread = CONVEX[name]
    model = make()
    nworld = 3
    rng = np.random.default_rng(27)
    q, inputs = random_batch(model, nworld, rng)
    if spread is not None:
        q = random_poses(model, nworld, rng, spread)
        for k in ("qvel", "qfrc_applied", "xfrc_applied"):
            inputs[k] = inputs[k] * 0.1
    convex = 0
    for w in range(nworld):
        data = cpu_world(model, q, inputs, w)
        phalanx.forward(model, data)
        types = model.geom_type[np.asarray(data.contact["geom"]).reshape(-1, 2)]
        convex += int(np.sum(np.any(np.isin(types, list(CCD_TYPES)), axis=1)))
    assert convex > 0, "no contact of a convex-family geom: nothing compared"
    out = vk.forward(model, q, **inputs)
    for w in range(nworld):
        data = cpu_world(model, q, inputs, w)
        phalanx.forward(model, data)
        assert_constraints(out, data, w, f"{name} forward, world {w}")
    out = vk.step(model, q, nstep=2, **inputs)
    for w in range(nworld):
        data = cpu_world(model, q, inputs, w)
        for _ in range(2):
            phalanx.step(model, data)
        assert_constraints(out, data, w, f"{name} 2 steps, world {w}")
    assert vk.validation_messages == 0


@pytest.mark.slow
def test_lanes_fp64(vk):
    """Several lanes in the smooth and collision passes (the constraint stage runs on one)."""
    model = load(gym("ant.xml"))
    check_forward(vk, model, 2, 25, lanes=4)
    check_step(vk, model, 2, 26, 2, lanes=4)


@pytest.mark.slow
def test_autoreset_fp64(vk):
    """A world reset after a bad acceleration runs forward again (with its constraint stage)
    alone: the others keep their contacts and rows."""
    model = load(gym("hopper.xml"))
    q, inputs = random_batch(model, 3, np.random.default_rng(27))
    inputs["qfrc_applied"][1, 2] = 1e13  # finite state, acceleration beyond 1e10
    out = vk.step(model, q, nstep=2, **inputs)
    for w in range(3):
        data = cpu_world(model, q, inputs, w)
        for _ in range(2):
            phalanx.step(model, data)
        assert_constraints(out, data, w, "autoreset")
    assert vk.validation_messages == 0


@pytest.mark.slow
@pytest.mark.parametrize("name", ["hopper.xml", "ant.xml", "humanoid.xml"])
def test_fp32_close(vk, name):
    """fp32 on the device against the fp64 CPU after forward: the same rows (counts), the
    accelerations within FP32_TOL."""
    model = load(gym(name))
    q, inputs = random_batch(model, 3, np.random.default_rng(28))
    out = vk.forward(model, q, precision="fp32", **inputs)
    for w in range(3):
        data = cpu_world(model, q, inputs, w)
        phalanx.forward(model, data)
        assert out["ncon"][w] == data.ncon
        assert out["efc_n"][w][0] == data.nefc
        for arr in FP32_FORWARD:
            err = rel(out[arr][w], getattr(data, arr))
            assert err <= FP32_TOL, f"{os.path.basename(name)}: forward {arr} {err:.2g}"


@pytest.mark.slow
def test_loop_budget(vk, monkeypatch):
    """ant's 103-row world: on lavapipe (65535 loop iterations per invocation, then every loop
    ends at once) the Newton solve runs over several dispatches and equals the CPU bit for bit;
    the same solve in one dispatch (PX_VULKAN_SOLVE_DISPATCHES=0) runs past the limiter there,
    which the shader detects: an error naming the cause, never a wrong result. On another device
    both are bit-equal to the CPU."""
    model = load(gym("ant.xml"))
    q, inputs = random_batch(model, 3, np.random.default_rng(23))  # world 0 of test_gymnasium
    q, inputs = q[:1], {k: v[:1] for k, v in inputs.items()}
    data = cpu_world(model, q, inputs, 0)
    phalanx.forward(model, data)
    assert data.nefc == 103
    out = vk.forward(model, q, **inputs)
    assert_constraints(out, data, 0, "forward, resumable solve")
    monkeypatch.setenv("PX_VULKAN_SOLVE_DISPATCHES", "0")
    if "llvmpipe" not in vk.device:
        out = vk.forward(model, q, **inputs)
        assert_constraints(out, data, 0, "forward, one dispatch")
        return
    with pytest.raises(NotImplementedError, match="ended a loop of the constraint stage early"):
        vk.forward(model, q, **inputs)


@pytest.mark.slow
def test_solve_dispatches(vk, monkeypatch):
    """The resumable solves cut anywhere give the same bits: humanoid (PGS, 120 rows in world 0)
    and ant (Newton) with the loop budget on and 1 or 2 dispatches per solve too few (the named
    error), and with the budget on a device that has none (PX_VULKAN_SOLVE_DISPATCHES)."""
    for name, nd in (("humanoid.xml", "400"), ("ant.xml", "40")):
        model = load(gym(name))
        q, inputs = random_batch(model, 2, np.random.default_rng(23))
        monkeypatch.setenv("PX_VULKAN_SOLVE_DISPATCHES", nd)
        out = vk.forward(model, q, **inputs)
        for w in range(2):
            data = cpu_world(model, q, inputs, w)
            phalanx.forward(model, data)
            assert_constraints(out, data, w, f"{name}: {nd} dispatches per solve, world {w}")
        monkeypatch.setenv("PX_VULKAN_SOLVE_DISPATCHES", "1")
        with pytest.raises(NotImplementedError, match="ended a loop of the constraint stage"):
            vk.forward(model, q[:1], **{k: v[:1] for k, v in inputs.items()})
    assert vk.validation_messages == 0


def test_refusals(vk, monkeypatch):
    """What the GPU's forward pass does not run is refused by name, before any GPU work: on
    every device, adhesion actuators (body transmissions) where contacts can exist (the CPU
    computes them after its rows) and the sparse constraint Jacobian; on a CPU Vulkan device, contacts of the convex family unless
    PX_GPU_CONVEX=1 (their pipeline's cold compile takes minutes there;
    test_convex_contacts_fp64 runs them)."""
    adhesion = phalanx.Model.from_xml_string("""<mujoco><worldbody>
      <geom type="plane" size="5 5 .1"/>
      <body name="pad" pos="0 0 .1"><freejoint/><geom type="box" size=".1 .1 .02"/></body>
      </worldbody><actuator><adhesion body="pad" ctrlrange="0 1"/></actuator></mujoco>""")
    q = np.tile(adhesion.qpos0, (2, 1))
    v = np.zeros((2, adhesion.nv))
    for run in (vk.forward, vk.step):
        with pytest.raises(NotImplementedError,
                           match="body transmission .adhesion actuator 0. with contacts is not "
                                 "supported on the GPU"):
            run(adhesion, q, v)
    phalanx.forward(adhesion, phalanx.Data(adhesion))  # the CPU computes it
    xml = """<mujoco><worldbody><geom type="plane" size="5 5 .1"/>
      <body pos="0 0 1"><freejoint/><geom type="ellipsoid" size=".1 .2 .3"/></body>
      <body pos="0 0 2"><freejoint/><geom type="ellipsoid" size=".1 .2 .3"/></body>
      </worldbody></mujoco>"""
    model = phalanx.Model.from_xml_string(xml)
    q = np.tile(model.qpos0, (2, 1))
    v = np.zeros((2, model.nv))
    model.opt.jacobian = 1  # mjJAC_SPARSE
    for run in (vk.forward, vk.step):
        with pytest.raises(NotImplementedError, match="sparse constraint Jacobian .* on the GPU"):
            run(model, q, v)
    phalanx.forward(model, phalanx.Data(model))  # the CPU computes it
    model.opt.jacobian = 0
    if cpu_device(vk):
        monkeypatch.delenv("PX_GPU_CONVEX", raising=False)
        for run in (vk.forward, vk.step):
            with pytest.raises(NotImplementedError, match="convex .*PX_GPU_CONVEX=1"):
                run(model, q, v)
