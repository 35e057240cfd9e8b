# SPDX-License-Identifier: Apache-2.0
"""The main job (for now): load the package's own robot, print its sizes, print body positions
for a few joint configurations computed by phalanx's kinematics, then step it (contacts and the
other constraints are disabled until their issue lands: the crawler falls freely while its motors
move the legs, and its centre of mass follows the free-fall parabola whatever the legs do, up to
the small share of the joints' armature, a rotor inertia that belongs to no body). It
grows into training an agent as contacts and the vector env land."""

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

    # dynamics: RK4 steps under sinusoidal motor commands, constraints disabled
    model.opt.disableflags = model.opt.disableflags | 1  # mjDSBL_CONSTRAINT
    phalanx.resetData(model, data)
    phalanx.forward(model, data)
    com0 = data.subtree_com[1].copy()
    g = model.opt.gravity[2]
    print(f"\nstepping {model.opt.timestep * 1000:.0f} ms RK4 steps, constraints disabled:")
    for step in range(1, 201):
        data.ctrl[:] = np.sin(2 * np.pi * 2.0 * data.time + np.arange(model.nu))
        phalanx.step(model, data)
        if step % 50 == 0:
            phalanx.forward(model, data)
            t = data.time
            fall = com0[2] + 0.5 * g * t * t
            print(f"  t = {t:.3f} s  torso z = {data.body('torso').xpos[2]:+.4f}  "
                  f"com z = {data.subtree_com[1][2]:+.6f}  (free fall: {fall:+.6f})  "
                  f"hips = {np.array2string(data.qpos[7::2], precision=3)}")


if __name__ == "__main__":
    main()
