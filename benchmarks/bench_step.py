# SPDX-License-Identifier: Apache-2.0
"""Single-thread step speed of phalanx against mujoco on the same models, in the same run.

By default contacts and all other constraints are disabled in both engines (the smooth-dynamics
benchmark); with --constraints they are on (the full step: collision, constraint rows, solver),
and the humanoid scenes of MuJoCo's model/humanoid (1, 22 and 100 humanoids) join the set. Both
engines keep each model's own settings, MuJoCo's default `jacobian="auto"` included (the sparse
constraint Jacobian at nv >= 60: the 22 and 100 humanoids); --dense asks for the dense one in both.
Features phalanx's step does not support yet are disabled in both and named in the output.
Each model is stepped alternately by both engines for ROUNDS rounds of NSTEP steps
from the same state (one Python call per step in both: `mujoco.mj_step` and `phalanx.step`); the
median time per step and the ratio mujoco/phalanx (> 1: phalanx faster) are printed, one JSON line
per model, then the geometric mean. The machine is shared and noisy: only medians and ratios.

Usage: bench_step.py [--full] [--constraints] [--dense] [--only NAME]   (--full: every corpus
model phalanx can step, else the Gymnasium models and MuJoCo's humanoid; --only: the models whose
path contains NAME)
"""

import glob
import json
import os
import statistics
import sys
import time

import numpy as np

import phalanx

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = os.path.normpath(os.path.join(ROOT, "..", "shared", "models"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "7"))
NSTEP = int(os.environ.get("BENCH_NSTEP", "500"))

# flags tried in turn until phalanx can step the model (disabled in both engines)
FALLBACK = ("spring", "damper", "actuation", "gravity")


def disable(models, names, constraints=False):
    import mujoco

    bits = 0 if constraints else int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)
    for n in names:
        bits |= int(getattr(mujoco.mjtDisableBit, "mjDSBL_" + n.upper()))
    for m in models:
        m.opt.disableflags = m.opt.disableflags | bits


def prepare(path, constraints=False, dense_jac=False):
    """(phalanx model, mujoco model, settings changed in both) or a reason string."""
    import mujoco

    try:
        spec = mujoco.MjSpec.from_file(path)
        # the dense Jacobian of the large scenes (--dense) needs more than the model's arena (100
        # humanoids: MuJoCo's own mj_stackAlloc overflow at 100 MB); no effect on the physics
        if constraints:
            spec.memory = max(spec.memory, 512 << 20)
        ref = spec.compile()
        ours = phalanx.Model.from_xml_path(path)
    except Exception as e:  # noqa: BLE001 - reported, not hidden
        return f"{type(e).__name__}: {str(e).splitlines()[0][:100]}"
    disabled = [] if constraints else ["constraint"]
    disable((ours, ref), [], constraints)
    dense = int(mujoco.mjtJacobian.mjJAC_DENSE)
    if dense_jac and constraints and ref.nv >= 60 and ref.opt.jacobian != dense:
        ours.opt.jacobian = ref.opt.jacobian = dense
        disabled.append("jacobian=dense")
    for extra in (None,) + FALLBACK:
        if extra:
            disabled.append(extra)
            disable((ours, ref), [x for x in disabled if x in FALLBACK], constraints)
        try:
            phalanx.step(ours, phalanx.Data(ours))
            return ours, ref, disabled
        except NotImplementedError as e:
            reason = str(e)
    return f"NotImplementedError: {reason[:100]}"


def run_mujoco(ref, state, nstep):
    import mujoco

    d = mujoco.MjData(ref)
    d.qpos[:], d.qvel[:], d.ctrl[:] = state
    step = mujoco.mj_step
    t0 = time.perf_counter()
    for _ in range(nstep):
        step(ref, d)
    return (time.perf_counter() - t0) / nstep, np.array(d.qpos)


def run_phalanx(ours, state, nstep):
    d = phalanx.Data(ours)
    d.qpos[:], d.qvel[:], d.ctrl[:] = state
    step = phalanx.step
    t0 = time.perf_counter()
    for _ in range(nstep):
        step(ours, d)
    return (time.perf_counter() - t0) / nstep, np.array(d.qpos)


def main(argv):
    full = "--full" in argv
    constraints = "--constraints" in argv
    only = argv[argv.index("--only") + 1] if "--only" in argv else None
    if full:
        paths = sorted(set(glob.glob(os.path.join(MODELS, "**", "*.xml"), recursive=True)))
    else:
        paths = sorted(glob.glob(os.path.join(MODELS, "gymnasium", "*.xml")))
        scenes = ["humanoid.xml"] + (["22_humanoids.xml", "100_humanoids.xml"] if constraints
                                     else [])
        paths += [os.path.join(MODELS, "mujoco", "model", "humanoid", f) for f in scenes]
    ratios = []
    rng = np.random.default_rng(0)
    for path in paths:
        rel = os.path.relpath(path, MODELS)
        if only and only not in path:
            continue
        got = prepare(path, constraints, "--dense" in argv)
        if isinstance(got, str):
            print(json.dumps({"model": rel, "skipped": got}))
            continue
        ours, ref, changed = got
        state = (ref.qpos0.copy(), 0.1 * rng.standard_normal(ref.nv),
                 rng.uniform(-1, 1, ref.nu))
        mine, theirs = [], []
        for _ in range(ROUNDS):
            t, q_ref = run_mujoco(ref, state, NSTEP)
            theirs.append(t)
            t, q_ours = run_phalanx(ours, state, NSTEP)
            mine.append(t)
        mo, mt = statistics.median(mine), statistics.median(theirs)
        ratios.append(mt / mo)
        drift = float(np.max(np.abs(q_ours - q_ref)))
        print(json.dumps({"model": rel, "nv": ref.nv, "changed": changed,
                          "phalanx_us": round(mo * 1e6, 3), "mujoco_us": round(mt * 1e6, 3),
                          "ratio_mujoco_over_phalanx": round(mt / mo, 2),
                          f"max_qpos_diff_after_{NSTEP}": drift}), flush=True)
    if ratios:
        geo = float(np.exp(np.mean(np.log(ratios))))
        print(json.dumps({"models": len(ratios), "rounds": ROUNDS, "nstep": NSTEP,
                          "constraints": constraints,
                          "geomean_ratio_mujoco_over_phalanx": round(geo, 2)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
