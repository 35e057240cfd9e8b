# SPDX-License-Identifier: Apache-2.0
"""The main job: load the package's own crawler, print its sizes and body positions for a few
joint configurations computed by phalanx's kinematics, step it onto its floor with contacts and
the constraint solver, then run Gymnasium's Ant-v5 task (the package's own MJCF) on 256 worlds
at once with random actions, as an RL library's rollout would."""

import time

import numpy as np

import phalanx


def main():
    path = phalanx.asset_path("crawler.xml")
    model = phalanx.Model.from_xml_path(path)
    data = phalanx.Data(model)
    print(f"model: {path}")
    sizes = ("nq", "nv", "nu", "nbody", "njnt", "ngeom", "nsite", "ncam", "nlight")
    print("sizes: " + ", ".join(f"{s}={getattr(model, s)}" for s in sizes))
    print(f"total mass: {model.body_subtreemass[0]:.4f} kg")

    rng = np.random.default_rng(0)
    configs = {"qpos0": model.qpos0.copy()}
    for k in range(2):
        q = model.qpos0.copy()
        lo, hi = model.jnt_range[1:, 0], model.jnt_range[1:, 1]
        q[7:] = rng.uniform(lo, hi)
        configs[f"random {k}"] = q
    for label, q in configs.items():
        data.qpos[:] = q
        phalanx.kinematics(model, data)
        print(f"\nconfiguration {label}:")
        for b in range(1, model.nbody):
            body = data.body(b)
            x, y, z = body.xpos
            print(f"  {body.name:18s} xpos = ({x:+.4f}, {y:+.4f}, {z:+.4f})")
        print(f"  subtree com of torso: {np.array2string(data.subtree_com[1], precision=4)}")

    # dynamics: RK4 steps under sinusoidal motor commands, with contacts, joint limits and the
    # constraint solver: the crawler drops onto the floor and hops on its shins
    phalanx.resetData(model, data)
    print(f"\nstepping {model.opt.timestep * 1000:.0f} ms RK4 steps with contacts:")
    most = 0
    for step in range(1, 401):
        data.ctrl[:] = np.sin(2 * np.pi * 2.0 * data.time + np.arange(model.nu))
        phalanx.step(model, data)
        most = max(most, data.ncon)
        if step % 100 == 0:
            torso = data.body("torso").xpos
            print(f"  t = {data.time:.3f} s  torso = ({torso[0]:+.4f}, {torso[1]:+.4f}, "
                  f"{torso[2]:+.4f})  most contacts in the last 0.5 s = {most}")
            most = 0

    # the main job: a Gymnasium task on many worlds at once (the package's own Ant MJCF, the
    # observation and reward computed in C, the step on a thread pool)
    num_envs, nstep = 256, 50
    env = phalanx.make_vec("Ant-v5", num_envs=num_envs, seed=0)
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    total = np.zeros(num_envs)
    done = 0
    t0 = time.perf_counter()
    for _ in range(nstep):
        actions = rng.uniform(-1, 1, size=env.action_space.shape)
        obs, rewards, terminations, truncations, infos = env.step(actions)
        total += rewards
        done += int(np.sum(terminations | truncations))
    elapsed = time.perf_counter() - t0
    env.close()
    print(f"\nAnt-v5: {num_envs} envs x {nstep} steps of random actions, observation "
          f"{obs.shape[1:]} float64")
    print(f"  mean return {total.mean():+.3f}, episodes ended {done}, "
          f"{num_envs * nstep / elapsed:,.0f} env steps/s on this machine")

if __name__ == "__main__":
    main()
