# SPDX-License-Identifier: Apache-2.0
"""Trajectories of phalanx.step against mujoco.mj_step (MuJoCo 3.12, the oracle).

For each model, with constraints disabled in both engines (collision and the constraint solver
have issues of their own) and everything else on (springs, dampers, fluid, gravity compensation,
actuation), both engines run NSTEP steps from the same state under the same seeded random
controls, for each integrator. The error at a step is max |Δ| / (1 + |x|) over
differentiatePos(qpos), qvel and act. MuJoCo's own sensitivity sets the bar: it is run again from
the initial state perturbed by 1e-12 in 8 random directions, and the median step at which those
runs leave 1e-8 of the unperturbed one is its self-divergence time T. phalanx must stay within
1e-8 of MuJoCo for at least T / 2 steps and at least 100 (or the whole run).

`make test` runs a fast subset; `--full` sweeps every corpus model phalanx can step, reporting
why the others are skipped.
"""


import numpy as np
import pytest

import phalanx
from tests.conftest import parametrize_corpus, shared_model

mujoco = pytest.importorskip("mujoco")

NSTEP = 1000
TOL = 1e-8
NPERTURB = 8
INTEGRATORS = ["EULER", "RK4", "IMPLICITFAST", "IMPLICIT"]

FAST = [shared_model("gymnasium", f) for f in ("ant.xml", "half_cheetah.xml", "hopper.xml",
                                               "swimmer.xml", "reacher.xml")] + [
    shared_model("mujoco", "model", "humanoid", "humanoid.xml"),
]


def pytest_generate_tests(metafunc):
    parametrize_corpus(metafunc, "dyn_model", FAST)


def load_pair(path, integrator, constraints=False):
    """(phalanx, mujoco) models with the integrator set and constraints off (unless asked for);
    skips, naming the reason, where either engine cannot load or phalanx cannot step the model."""
    try:
        ref = mujoco.MjModel.from_xml_path(path)
    except Exception as e:  # noqa: BLE001
        pytest.skip(f"mujoco rejects it: {str(e).splitlines()[0][:80]}")
    try:
        ours = phalanx.Model.from_xml_path(path)
    except NotImplementedError as e:
        pytest.skip(f"phalanx does not compile it yet: {str(e)[:100]}")
    bits = 0 if constraints else int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)
    code = int(getattr(mujoco.mjtIntegrator, "mjINT_" + integrator))
    for m in (ours, ref):
        m.opt.disableflags = m.opt.disableflags | bits
        m.opt.integrator = code
    try:
        phalanx.step(ours, phalanx.Data(ours))
    except NotImplementedError as e:
        return ours, ref, str(e)
    return ours, ref, None


def controls(ref, rng):
    lo = np.where(ref.actuator_ctrllimited, ref.actuator_ctrlrange[:, 0], -1.0)
    hi = np.where(ref.actuator_ctrllimited, ref.actuator_ctrlrange[:, 1], 1.0)
    return rng.uniform(lo, hi, size=(NSTEP, ref.nu))


def initial_state(ref, rng):
    d = mujoco.MjData(ref)
    mujoco.mj_resetData(ref, d)
    d.qvel[:] = 0.1 * rng.standard_normal(ref.nv)
    return d


def mujoco_run(ref, d0, U, dq=None, dv=None):
    """qpos, qvel, act along NSTEP mj_steps from d0 (optionally perturbed)."""
    d = mujoco.MjData(ref)
    d.qpos[:], d.qvel[:], d.act[:] = d0.qpos, d0.qvel, d0.act
    if dq is not None:
        mujoco.mj_integratePos(ref, d.qpos, dq, 1.0)
        d.qvel[:] += dv
    out = np.zeros((NSTEP, ref.nq + ref.nv + ref.na))
    for t in range(NSTEP):
        d.ctrl[:] = U[t]
        mujoco.mj_step(ref, d)
        out[t] = np.concatenate([d.qpos, d.qvel, d.act])
    return out


def phalanx_run(ours, d0, U):
    d = phalanx.Data(ours)
    d.qpos[:], d.qvel[:], d.act[:] = d0.qpos, d0.qvel, d0.act
    out = np.zeros((NSTEP, ours.nq + ours.nv + ours.na))
    for t in range(NSTEP):
        d.ctrl[:] = U[t]
        phalanx.step(ours, d)
        out[t] = np.concatenate([d.qpos, d.qvel, d.act])
    return out


def first_exit(ref, traj, base, tol=TOL):
    """First step at which traj leaves tol of base (NSTEP if never)."""
    nq = ref.nq
    dq = np.zeros(ref.nv)
    for t in range(NSTEP):
        mujoco.mj_differentiatePos(ref, dq, 1.0, base[t, :nq], traj[t, :nq])
        rest = traj[t, nq:] - base[t, nq:]
        err = max(np.max(np.abs(dq), initial=0.0),
                  np.max(np.abs(rest) / (1 + np.abs(base[t, nq:])), initial=0.0))
        if not np.isfinite(err) or err > tol:
            return t
    return NSTEP


def divergence(path, integrator, tol=TOL, constraints=False):
    """(phalanx's steps within tol of MuJoCo, the median of MuJoCo's own under 1e-12
    perturbations, None) or (None, None, the reason phalanx refuses the model)."""
    ours, ref, refused = load_pair(path, integrator, constraints)
    if refused:
        return None, None, refused
    rng = np.random.default_rng(20261126)
    d0 = initial_state(ref, rng)
    U = controls(ref, rng)
    base = mujoco_run(ref, d0, U)
    selfs = []
    for _ in range(NPERTURB):
        dq = rng.standard_normal(ref.nv)
        dv = rng.standard_normal(ref.nv)
        dq *= 1e-12 / np.linalg.norm(dq)
        dv *= 1e-12 / np.linalg.norm(dv)
        selfs.append(first_exit(ref, mujoco_run(ref, d0, U, dq, dv), base, tol))
    return first_exit(ref, phalanx_run(ours, d0, U), base, tol), float(np.median(selfs)), None


@pytest.mark.compat
@pytest.mark.parametrize("integrator", INTEGRATORS)
def test_trajectory_divergence(dyn_model, integrator, record_property):
    ours_t, self_t, refused = divergence(dyn_model, integrator)
    if refused:
        if dyn_model in FAST and integrator in ("EULER", "RK4"):
            pytest.fail(f"phalanx refuses a fast-subset model: {refused}")
        pytest.skip(f"phalanx cannot step it yet: {refused[:120]}")
    record_property("phalanx_steps", ours_t)
    record_property("mujoco_self_steps", self_t)
    need = max(0.5 * self_t, min(100, NSTEP))
    assert ours_t >= need, (f"phalanx left 1e-8 of MuJoCo after {ours_t} steps; MuJoCo's own "
                            f"median under 1e-12 perturbations: {self_t} (need {need})")
