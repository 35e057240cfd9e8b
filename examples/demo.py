# SPDX-License-Identifier: Apache-2.0
"""The main job (for now): load the package's own robot, print its sizes, and print body
positions for a few joint configurations computed by phalanx's kinematics. It grows into
training an agent as stepping, contacts and the vector env land."""

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


if __name__ == "__main__":
    main()
