# SPDX-License-Identifier: Apache-2.0
"""Batch throughput: physics steps per second of phalanx.Batch against MuJoCo on the same worlds.

For each Gymnasium model (with its contacts, joint limits and the constraint solver in both
engines; ``--no-constraints`` disables the constraint stage in both) and each number of worlds,
three contenders step the same worlds from the same state with the same controls, in alternating
rounds, and the median time of ROUNDS rounds is kept:

* ``phalanx[T]``: ``Batch.step(nsubstep)`` with T = 1 (the calling thread) and 2 pool threads;
* ``mujoco-loop``: a Python loop of ``mujoco.mj_step`` over one MjData per world;
* ``rollout[T]``: ``mujoco.rollout.rollout`` with T MjData (its thread pool), the same steps.

Each measurement does about WORK world-steps (nsubstep = max(1, WORK // num_worlds)). Printed:
one JSON line per (model, num_worlds) with steps/s of each contender, the 2-thread scaling of
phalanx (steps/s with 2 threads / with 1) and the ratios of phalanx's best against the MuJoCo
loop and against rollout's best; then memory per world: ``Batch.nbytes / num_worlds`` (state,
contact and constraint-row capacity, scratch) against MjData's buffer and arena. A number of
worlds whose batch would exceed MAX_BYTES (default 2 GB) is skipped.

Usage: bench_batch.py [--full] [--no-constraints]   (--full: num_worlds 1, 4, 16, 64, 256, 1024,
4096 and seven models; default: 1, 64, 1024 on half_cheetah, hopper, ant and humanoid). The
machine may be shared and noisy: medians and ratios only.
"""

import json
import os
import statistics
import sys
import time

import numpy as np

import phalanx

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = os.path.normpath(os.path.join(ROOT, "..", "shared", "models", "gymnasium"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))
WORK = int(os.environ.get("BENCH_WORK", "8192"))
MAX_BYTES = int(float(os.environ.get("BENCH_MAX_BYTES", "2e9")))


def load(name, constraints):
    import mujoco

    path = os.path.join(MODELS, name + ".xml")
    ref = mujoco.MjModel.from_xml_path(path)
    ours = phalanx.Model.from_xml_path(path)
    if not constraints:
        for m in (ref, ours):
            m.opt.disableflags = m.opt.disableflags | int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)
    return ours, ref


def bench_model(name, worlds_list, constraints=True, threads=(1, 2)):
    import mujoco
    import mujoco.rollout

    ours, ref = load(name, constraints)
    per_world = phalanx.Batch(ours, 16).nbytes / 16
    rows = []
    for nworld in worlds_list:
        if nworld * per_world > MAX_BYTES:
            print(json.dumps({"model": name, "num_worlds": nworld,
                              "skipped": f"batch would need {nworld * per_world / 1e9:.1f} GB"}),
                  flush=True)
            continue
        nsub = max(1, WORK // nworld)
        ctrl = np.random.default_rng(0).uniform(-0.5, 0.5, (nworld, ref.nu))
        batches = {t: phalanx.Batch(ours, nworld, t if t > 1 else 0) for t in threads}
        datas = [mujoco.MjData(ref) for _ in range(nworld)]
        spec = int(mujoco.mjtState.mjSTATE_FULLPHYSICS)
        d0 = mujoco.MjData(ref)
        state0 = np.empty(mujoco.mj_stateSize(ref, spec))
        mujoco.mj_getState(ref, d0, state0, spec)
        init = np.tile(state0, (nworld, 1))
        roll_ctrl = np.repeat(ctrl[:, None, :], nsub, axis=1)
        roll_data = {t: [mujoco.MjData(ref) for _ in range(t)] for t in threads}

        def run_phalanx(t):
            b = batches[t]
            b.reset()
            b.ctrl[:] = ctrl
            t0 = time.perf_counter()
            b.step(nsub)
            return time.perf_counter() - t0

        def run_loop():
            for d, c in zip(datas, ctrl):
                mujoco.mj_resetData(ref, d)
                d.ctrl[:] = c
            step = mujoco.mj_step
            t0 = time.perf_counter()
            for _ in range(nsub):
                for d in datas:
                    step(ref, d)
            return time.perf_counter() - t0

        def run_rollout(t):
            t0 = time.perf_counter()
            mujoco.rollout.rollout(ref, roll_data[t], init, roll_ctrl)
            return time.perf_counter() - t0

        contenders = {f"phalanx[{t}]": (lambda t=t: run_phalanx(t)) for t in threads}
        contenders["mujoco-loop"] = run_loop
        contenders.update({f"rollout[{t}]": (lambda t=t: run_rollout(t)) for t in threads})
        times = {k: [] for k in contenders}
        for _ in range(ROUNDS):
            for k, fn in contenders.items():  # alternating rounds
                times[k].append(fn())
        total = nworld * nsub
        sps = {k: total / statistics.median(v) for k, v in times.items()}
        best_px = max(v for k, v in sps.items() if k.startswith("phalanx"))
        best_roll = max(v for k, v in sps.items() if k.startswith("rollout"))
        row = {"model": name, "constraints": constraints, "num_worlds": nworld, "nsubstep": nsub,
               "steps_per_s": {k: round(v) for k, v in sps.items()},
               "scaling_2_threads": round(sps["phalanx[2]"] / sps["phalanx[1]"], 3),
               "phalanx_best_vs_mujoco_loop": round(best_px / sps["mujoco-loop"], 3),
               "phalanx_best_vs_rollout_best": round(best_px / best_roll, 3)}
        print(json.dumps(row), flush=True)
        rows.append(row)
        del batches

    # memory per world
    d = mujoco.MjData(ref)
    print(json.dumps({"model": name, "bytes_per_world": {
        "phalanx": int(per_world), "mujoco_MjData_buffer": int(d.nbuffer),
        "mujoco_MjData_arena": int(d.narena),
        "mujoco_MjData_total": int(d.nbuffer + d.narena)}}), flush=True)
    return rows


def main():
    full = "--full" in sys.argv
    constraints = "--no-constraints" not in sys.argv
    worlds = [1, 4, 16, 64, 256, 1024, 4096] if full else [1, 64, 1024]
    names = ["half_cheetah", "hopper", "walker2d", "ant", "humanoid", "reacher", "swimmer"] if (
        full) else ["half_cheetah", "hopper", "ant", "humanoid"]
    for name in names:
        bench_model(name, worlds, constraints)


if __name__ == "__main__":
    main()
