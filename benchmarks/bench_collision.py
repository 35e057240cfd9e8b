# SPDX-License-Identifier: Apache-2.0
"""Collision detection speed: phalanx.collision against mujoco.mj_collision on the same states.

For each model, MuJoCo steps from its first keyframe (or qpos0) under seeded random controls and
NSTATE states along its trajectory (every STRIDE steps) are kept. Each round runs every state
once in one engine: set qpos (and mocap poses), kinematics (untimed), then the collision call
alone is timed (perf_counter_ns around phalanx.collision / mujoco.mj_collision). Rounds alternate
between the engines; per engine the median over ROUNDS rounds of the mean time per call is kept.
Printed: one JSON line per model (ns per call of each engine, contacts per state, ratio =
phalanx time / MuJoCo time: below 1 means phalanx is faster), then the geometric mean of the
ratios. Both engines run one world on the calling thread.

Models: Gymnasium's (those phalanx collides), MuJoCo's humanoid, 22_humanoids and 100_humanoids,
and a stress scene of our own: hundreds of boxes, spheres and capsules dropped on a plane.

Usage: bench_collision.py [--quick]   (--quick: fewer states and rounds). The machine may be
shared and noisy: medians and ratios only.
"""

import glob
import json
import math
import os
import statistics
import sys
import time

import numpy as np

import phalanx

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared", "models"))
STRIDE = 5


def stress_xml(n=300, seed=0):
    """n free bodies (boxes, spheres, capsules) above a plane, in a loose column"""
    rng = np.random.default_rng(seed)
    side = int(math.ceil(n ** (1 / 3) * 1.3))
    bodies = []
    for i in range(n):
        x, y, z = i % side, (i // side) % side, i // (side * side)
        pos = (0.25 * (x - side / 2), 0.25 * (y - side / 2), 0.2 + 0.25 * z)
        kind = i % 3
        u = rng.uniform
        if kind == 0:
            size = f"{u(.04, .09):.3f} {u(.04, .09):.3f} {u(.04, .09):.3f}"
        elif kind == 1:
            size = f"{u(.04, .09):.3f}"
        else:
            size = f"{u(.03, .05):.3f} {u(.04, .08):.3f}"
        geom = f'<geom type="{("box", "sphere", "capsule")[kind]}" size="{size}"/>'
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        bodies.append(f'<body pos="{pos[0]:.3f} {pos[1]:.3f} {pos[2]:.3f}" '
                      f'quat="{q[0]:.3f} {q[1]:.3f} {q[2]:.3f} {q[3]:.3f}">'
                      f'<freejoint/>{geom}</body>')
    return f"""<mujoco model="stress{n}"><option timestep="0.005"/><size memory="200M"/>
      <worldbody><geom type="plane" size="10 10 .1"/>{''.join(bodies)}</worldbody></mujoco>"""


def models(quick):
    out = []
    for path in sorted(glob.glob(os.path.join(SHARED, "gymnasium", "*.xml"))):
        out.append((os.path.splitext(os.path.basename(path))[0], path, None))
    for name in ("humanoid", "22_humanoids", "100_humanoids"):
        out.append(("mj_" + name, os.path.join(SHARED, "mujoco", "model", "humanoid", name + ".xml"),
                    None))
    out.append(("stress300", None, stress_xml(300)))
    if quick:
        keep = {"ant", "half_cheetah", "mj_humanoid", "mj_22_humanoids", "mj_100_humanoids",
                "stress300"}
        out = [m for m in out if m[0] in keep]
    return out


def trajectory(mujoco, mm, nstate, seed=0):
    md = mujoco.MjData(mm)
    if mm.nkey:
        mujoco.mj_resetDataKeyframe(mm, md, 0)
    rng = np.random.default_rng(seed)
    lo = np.where(mm.actuator_ctrllimited, mm.actuator_ctrlrange[:, 0], -1.0)
    hi = np.where(mm.actuator_ctrllimited, mm.actuator_ctrlrange[:, 1], 1.0)
    states = []
    for i in range(nstate * STRIDE):
        if i % STRIDE == 0:
            states.append((md.qpos.copy(), md.mocap_pos.copy(), md.mocap_quat.copy()))
        if mm.nu:
            md.ctrl[:] = rng.uniform(lo, hi)
        mujoco.mj_step(mm, md)
        if not np.all(np.isfinite(md.qpos)):
            break
    return states


def time_phalanx(pm, pd, states):
    total = 0
    for q, mp, mq in states:
        pd.qpos[:] = q
        if len(mp):
            pd.mocap_pos[:] = mp
            pd.mocap_quat[:] = mq
        phalanx.kinematics(pm, pd)
        t0 = time.perf_counter_ns()
        phalanx.collision(pm, pd)
        total += time.perf_counter_ns() - t0
    return total / len(states)


def time_mujoco(mujoco, mm, md, states):
    total = 0
    for q, mp, mq in states:
        md.qpos[:] = q
        if len(mp):
            md.mocap_pos[:] = mp
            md.mocap_quat[:] = mq
        mujoco.mj_kinematics(mm, md)
        t0 = time.perf_counter_ns()
        mujoco.mj_collision(mm, md)
        total += time.perf_counter_ns() - t0
    return total / len(states)


def bench(mujoco, name, path, xml, nstate, rounds):
    if xml is None:
        mm = mujoco.MjModel.from_xml_path(path)
        pm = phalanx.Model.from_xml_path(path)
    else:
        mm = mujoco.MjModel.from_xml_string(xml)
        pm = phalanx.Model.from_xml_string(xml)
    states = trajectory(mujoco, mm, nstate)
    pd, md = phalanx.Data(pm), mujoco.MjData(mm)
    # the contacts agree (the benchmark times equal work)
    ncon = []
    for q, mp, mq in states:
        pd.qpos[:] = q
        md.qpos[:] = q
        if len(mp):
            pd.mocap_pos[:] = mp
            pd.mocap_quat[:] = mq
            md.mocap_pos[:] = mp
            md.mocap_quat[:] = mq
        phalanx.kinematics(pm, pd)
        phalanx.collision(pm, pd)
        mujoco.mj_kinematics(mm, md)
        mujoco.mj_collision(mm, md)
        ncon.append((pd.ncon, md.ncon))
    same = all(a == b for a, b in ncon)
    tp, tm = [], []
    for _ in range(rounds):
        tp.append(time_phalanx(pm, pd, states))
        tm.append(time_mujoco(mujoco, mm, md, states))
    p, m = statistics.median(tp), statistics.median(tm)
    return {"model": name, "nbody": mm.nbody, "ngeom": mm.ngeom, "states": len(states),
            "ncon_mean": float(np.mean([b for _, b in ncon])), "ncon_equal": same,
            "phalanx_ns": round(p), "mujoco_ns": round(m), "ratio": round(p / m, 3)}


def main():
    import mujoco

    quick = "--quick" in sys.argv
    nstate = 20 if quick else 60
    rounds = 5 if quick else 11
    ratios = []
    for name, path, xml in models(quick):
        try:
            res = bench(mujoco, name, path, xml, nstate, rounds)
        except Exception as e:  # a model phalanx cannot collide yet
            print(json.dumps({"model": name, "skipped": str(e)[:160]}), flush=True)
            continue
        ratios.append(res["ratio"])
        print(json.dumps(res), flush=True)
    if ratios:
        gm = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(json.dumps({"models": len(ratios), "geomean_ratio": round(gm, 3)}), flush=True)


if __name__ == "__main__":
    main()
