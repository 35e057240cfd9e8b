# SPDX-License-Identifier: Apache-2.0
"""Trajectories with contacts and constraints on, against MuJoCo's own sensitivity.

The measure is test_dynamics.py's, with everything on: both engines run 1000 steps from the same
state under the same seeded random controls; the error at a step is max |Δ| / (1 + |x|) over
differentiatePos(qpos), qvel and act. MuJoCo is run again from the initial state perturbed by
1e-12 in 8 random directions; the median step at which those runs leave 1e-6 of the unperturbed
run is its self-divergence time T. phalanx must stay within 1e-6 of MuJoCo for at least T / 2
steps and at least 20 (or the whole run).

The fast subset is Gymnasium's models and MuJoCo's 22 humanoids (the sparse Jacobian) with the
Euler integrator (and RK4 on two); `--full` runs
every integrator on every corpus model with contacts or constraints that phalanx can step.
"""

import pytest

from tests.compat.test_dynamics import INTEGRATORS, NSTEP, divergence
from tests.conftest import fast_subset, parametrize_corpus, shared_model

mujoco = pytest.importorskip("mujoco")

TOL = 1e-6
MIN_STEPS = 20
GYM = ["ant.xml", "half_cheetah.xml", "hopper.xml", "walker2d_v5.xml", "humanoid.xml",
       "humanoidstandup.xml", "pusher_v5.xml", "swimmer.xml", "reacher.xml",
       "inverted_pendulum.xml", "inverted_double_pendulum.xml"]
# and MuJoCo's 22 humanoids (nv 594: the sparse Jacobian, MuJoCo's default there)
FAST = [shared_model("gymnasium", f) for f in GYM] + [
    shared_model("mujoco", "model", "humanoid", "22_humanoids.xml")]
FAST_RK4 = {shared_model("gymnasium", f) for f in ("ant.xml", "hopper.xml")}


def pytest_generate_tests(metafunc):
    parametrize_corpus(metafunc, "cons_traj_model", FAST)


def has_constraints(path):
    """Whether MuJoCo's model can produce constraint rows (contacts, limits, equalities,
    friction loss): the models this test is about."""
    m = mujoco.MjModel.from_xml_path(path)
    contacts = m.npair > 0 or sum(1 for g in range(m.ngeom)
                                  if m.geom_contype[g] or m.geom_conaffinity[g]) > 1
    return bool(contacts or m.neq or m.jnt_limited.any() or m.tendon_limited.any()
                or m.dof_frictionloss.any() or m.tendon_frictionloss.any())


@pytest.mark.compat
@fast_subset(lambda cons_traj_model, integrator: integrator == "EULER"
             or (integrator == "RK4" and cons_traj_model in FAST_RK4))
@pytest.mark.parametrize("integrator", INTEGRATORS)
def test_constrained_divergence(cons_traj_model, integrator, record_property):
    try:
        relevant = has_constraints(cons_traj_model)
    except Exception as e:  # noqa: BLE001
        pytest.skip(f"mujoco rejects it: {str(e).splitlines()[0][:80]}")
    if not relevant:
        if cons_traj_model in FAST:
            pytest.fail("a fast-subset model without constraints: the fast subset is wrong")
        pytest.skip("no contacts or constraints: test_dynamics.py covers it")
    ours_t, self_t, refused = divergence(cons_traj_model, integrator, tol=TOL, constraints=True)
    if refused:
        if cons_traj_model in FAST:
            pytest.fail(f"phalanx refuses a fast-subset model: {refused}")
        pytest.skip(f"phalanx cannot step it yet: {refused[:120]}")
    record_property("phalanx_steps", ours_t)
    record_property("mujoco_self_steps", self_t)
    need = min(max(0.5 * self_t, MIN_STEPS), NSTEP)
    assert ours_t >= need, (f"phalanx left 1e-6 of MuJoCo after {ours_t} steps; MuJoCo's own "
                            f"median under 1e-12 perturbations: {self_t} (need {need})")
