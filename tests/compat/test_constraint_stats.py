# SPDX-License-Identifier: Apache-2.0
"""Statistics of long runs with contacts and constraints, phalanx against MuJoCo.

Trajectories of contact-rich models diverge between any two engines (and between MuJoCo and
itself under 1e-12 perturbations) after a few hundred steps, so long runs are compared by their
statistics. For each Gymnasium model, 100 seeds x 1000 steps per engine: seed s starts from
qpos0 with qvel = 0.1 N(0, 1) and drives seeded uniform random controls over the control range,
with the energy flag on. Per run the statistics are the means over the run of

* the height of body 1 (the torso of the locomotion models, the first link elsewhere),
* the number of contacts,
* the total energy (potential + kinetic).

Each statistic's mean over the 100 runs must agree between the engines within a two-sample test:
|Δmean| <= z * sqrt(var_a / n + var_b / n), where z is the two-sided 3-sigma level (p = 0.0027)
Bonferroni-corrected over every model and statistic of the sweep. Where both engines give a
constant (no spread, e.g. no contacts at all), the means must be equal to 1e-9.

The fast subset runs two cheap models (hopper, inverted pendulum) at full size; `--full` runs all
eleven.
"""

from statistics import NormalDist

import numpy as np
import pytest

import phalanx
from tests.compat.test_constraint_divergence import GYM
from tests.conftest import fast_subset, shared_model

mujoco = pytest.importorskip("mujoco")

NSEED = 100
NSTEP = 1000
STATS = ("height", "ncon", "energy")
# Bonferroni over every model and statistic of the full sweep
Z = NormalDist().inv_cdf(1 - 0.0027 / (2 * len(GYM) * len(STATS)))
FAST = ("hopper.xml", "inverted_pendulum.xml")


def runs(path):
    """(phalanx stats, mujoco stats), each an (NSEED, 3) array of per-run means."""
    ref = mujoco.MjModel.from_xml_path(path)
    ours = phalanx.Model.from_xml_path(path)
    bit = int(mujoco.mjtEnableBit.mjENBL_ENERGY)
    ref.opt.enableflags |= bit
    ours.opt.enableflags |= bit
    lo = np.where(ref.actuator_ctrllimited, ref.actuator_ctrlrange[:, 0], -1.0)
    hi = np.where(ref.actuator_ctrllimited, ref.actuator_ctrlrange[:, 1], 1.0)
    out_p = np.zeros((NSEED, len(STATS)))
    out_m = np.zeros((NSEED, len(STATS)))
    for s in range(NSEED):
        rng = np.random.default_rng(1000 + s)
        qvel = 0.1 * rng.standard_normal(ref.nv)
        U = rng.uniform(lo, hi, size=(NSTEP, ref.nu))
        dm = mujoco.MjData(ref)
        dp = phalanx.Data(ours)
        dm.qvel[:] = qvel
        dp.qvel[:] = qvel
        acc_m = np.zeros(len(STATS))
        acc_p = np.zeros(len(STATS))
        for t in range(NSTEP):
            dm.ctrl[:] = U[t]
            dp.ctrl[:] = U[t]
            mujoco.mj_step(ref, dm)
            phalanx.step(ours, dp)
            acc_m += (dm.xpos[1, 2], dm.ncon, dm.energy[0] + dm.energy[1])
            acc_p += (dp.xpos[1, 2], dp.ncon, dp.energy[0] + dp.energy[1])
        out_m[s] = acc_m / NSTEP
        out_p[s] = acc_p / NSTEP
    return out_p, out_m


@pytest.mark.compat
@fast_subset(lambda name: name in FAST)
@pytest.mark.parametrize("name", GYM)
def test_long_run_statistics(name, record_property):
    ours, ref = runs(shared_model("gymnasium", name))
    assert np.all(np.isfinite(ours)), "phalanx produced non-finite statistics"
    for k, stat in enumerate(STATS):
        a, b = ours[:, k], ref[:, k]
        delta = abs(a.mean() - b.mean())
        se = np.sqrt(a.var(ddof=1) / NSEED + b.var(ddof=1) / NSEED)
        record_property(f"{stat}_phalanx", float(a.mean()))
        record_property(f"{stat}_mujoco", float(b.mean()))
        record_property(f"{stat}_z", float(delta / se) if se > 0 else 0.0)
        if se == 0:
            assert delta <= 1e-9 * (1 + abs(b.mean())), f"{stat}: constant {a[0]} vs {b[0]}"
        else:
            assert delta <= Z * se, (f"{stat}: mean {a.mean():.6g} vs MuJoCo's {b.mean():.6g}, "
                                     f"|Δ| = {delta / se:.2f} standard errors > {Z:.2f}")
