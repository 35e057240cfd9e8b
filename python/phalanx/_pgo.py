# SPDX-License-Identifier: Apache-2.0
"""The training run of the profile-guided build (setup.py): `python -m phalanx._pgo`.

setup.py builds the extension once with gcc's `-fprofile-generate`, runs this module on that
build, and builds it again with `-fprofile-use`, so the compiler lays out branches and inlines
by what the step does. The workload is the package's own: its MJCF (the eleven Gymnasium tasks
and the crawler) stepped with each solver, cone, integrator and Jacobian layout, the tasks'
vector envs on one and two threads, and a long chain lying on a floor for the sparse Jacobian's
large islands. No benchmark model of the repository is read. Profile feedback changes no result:
the build keeps `-ffp-contract=off` and no fast-math, so every floating-point operation and its
order stay as written (`make pgo-check` compares the trajectories of the two builds bit for bit;
docs/speed.md).
"""

import os
import sys

import numpy as np

import phalanx
from phalanx.tasks import TASK_IDS, make_vec

# MuJoCo's enumerations (mjtSolver, mjtCone, mjtIntegrator, mjtJacobian)
PGS, CG, NEWTON = 0, 1, 2
PYRAMIDAL, ELLIPTIC = 0, 1
EULER, RK4, IMPLICIT, IMPLICITFAST = 0, 1, 2, 3
DENSE, SPARSE = 0, 1

# (solver, cone, integrator, jacobian) on top of each model's own settings (None keeps its own)
VARIANTS = (
    (None, None, None, None),
    (NEWTON, PYRAMIDAL, EULER, DENSE),
    (CG, ELLIPTIC, IMPLICITFAST, DENSE),
    (PGS, PYRAMIDAL, RK4, DENSE),
    (NEWTON, ELLIPTIC, IMPLICIT, SPARSE),
    (PGS, ELLIPTIC, EULER, SPARSE),
)


def _chain(links=34):
    """A free chain of capsules joined by ball joints, dropped onto a floor: one island of
    6 + 3 * (links - 1) dofs, past MuJoCo's sparse-Jacobian threshold (60)."""
    body = ""
    for i in range(links - 1, 0, -1):
        body = (f'<body pos="0.2 0 0"><joint type="ball" damping="0.1" range="0 60"/>'
                f'<geom type="capsule" fromto="0 0 0 0.2 0 0" size="0.04"/>{body}</body>')
    return ('<mujoco><option timestep="0.004"/><worldbody>'
            '<geom type="plane" size="20 20 0.1"/>'
            f'<body pos="-3 0 0.3"><freejoint/><geom type="capsule" fromto="0 0 0 0.2 0 0" '
            f'size="0.04"/>{body}</body></worldbody></mujoco>')


def _roll(model, steps, rng):
    data = phalanx.Data(model)
    data.qvel[:] = 0.1 * rng.standard_normal(model.nv)
    for k in range(steps):
        if model.nu and k % 10 == 0:
            data.ctrl[:] = rng.uniform(-1.0, 1.0, model.nu)
        phalanx.step(model, data)


def _models():
    root = phalanx.asset_path("gymnasium")
    paths = sorted(os.path.join(root, f) for f in os.listdir(root) if f.endswith(".xml"))
    return [phalanx.asset_path("crawler.xml")] + paths


def main(steps=150):
    rng = np.random.default_rng(0)
    for path in _models():
        for solver, cone, integrator, jacobian in VARIANTS:
            model = phalanx.Model.from_xml_path(path)
            for name, value in (("solver", solver), ("cone", cone), ("integrator", integrator),
                                ("jacobian", jacobian)):
                if value is not None:
                    setattr(model.opt, name, value)
            # the model's own settings weigh most: they are what the tasks run
            _roll(model, 4 * steps if solver is None else steps // 3, rng)
    chain = phalanx.Model.from_xml_string(_chain())
    _roll(chain, 4 * steps, rng)
    for env_id in TASK_IDS:
        for threads in (1, 2):
            env = make_vec(env_id, num_envs=16, num_threads=threads, seed=0)
            env.reset(seed=0)
            low, high = env.single_action_space.low, env.single_action_space.high
            for _ in range(steps):
                env.step(rng.uniform(low, high, (16,) + low.shape))
            env.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
