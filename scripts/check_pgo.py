# SPDX-License-Identifier: Apache-2.0
"""`make pgo-check`: the profile-guided extension (setup.py's default build, python/phalanx/)
against one built without profile feedback (PX_PGO=0, into build/nopgo/): the same trajectories
bit for bit. Each build steps every MJCF the package ships (the crawler and the eleven Gymnasium
tasks' models) under every solver with random controls, and the Gymnasium vector envs on two
threads; qpos, qvel, efc_force, observations and rewards are hashed, and the hashes must agree.
Prints one line per model and exits 1 on a difference."""

import glob
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOPGO = os.path.join(ROOT, "build", "nopgo")

# run in each build's interpreter: prints "<name> <hash>" lines
WORKLOAD = r"""
import hashlib, os, numpy as np, phalanx
from phalanx.tasks import TASK_IDS, make_vec
root = phalanx.asset_path("gymnasium")
paths = [phalanx.asset_path("crawler.xml")] + sorted(
    os.path.join(root, f) for f in os.listdir(root) if f.endswith(".xml"))
for path in paths:
    h = hashlib.sha1()
    for solver in (0, 1, 2):
        m = phalanx.Model.from_xml_path(path)
        m.opt.solver = solver
        d = phalanx.Data(m)
        rng = np.random.default_rng(solver)
        d.qvel[:] = 0.1 * rng.standard_normal(m.nv)
        for k in range(300):
            if m.nu:
                d.ctrl[:] = rng.uniform(-1, 1, m.nu)
            phalanx.step(m, d)
            h.update(d.efc_force[:d.nefc].tobytes())
        h.update(d.qpos.tobytes() + d.qvel.tobytes())
    print(os.path.basename(path), h.hexdigest())
for env_id in TASK_IDS:
    env = make_vec(env_id, num_envs=8, num_threads=2, seed=0)
    h = hashlib.sha1()
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(100):
        a = rng.uniform(env.single_action_space.low, env.single_action_space.high,
                        (8,) + env.single_action_space.shape)
        obs, rew, term, trunc, _ = env.step(a)
        h.update(obs.tobytes() + rew.tobytes() + term.tobytes())
    env.close()
    print(env_id, h.hexdigest())
"""


def run(pythonpath):
    env = dict(os.environ, PYTHONPATH=pythonpath)
    r = subprocess.run([sys.executable, "-c", WORKLOAD], env=env, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"check_pgo: the workload failed under {pythonpath}:\n{r.stderr[-3000:]}")
    return dict(line.split() for line in r.stdout.splitlines())


def main():
    shutil.rmtree(NOPGO, ignore_errors=True)
    pkg = os.path.join(NOPGO, "lib", "phalanx")
    env = dict(os.environ, PX_PGO="0")
    cmd = [sys.executable, "setup.py", "-q", "build_ext", "-b", os.path.join(NOPGO, "lib"),
           "-t", os.path.join(NOPGO, "temp")]
    r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("check_pgo: the build without profile feedback failed:\n" + r.stderr[-3000:])
    src = os.path.join(ROOT, "python", "phalanx")
    for f in glob.glob(os.path.join(src, "*.py")):
        shutil.copy2(f, pkg)
    shutil.copytree(os.path.join(src, "assets"), os.path.join(pkg, "assets"))
    pgo = run(os.path.join(ROOT, "python"))
    plain = run(os.path.join(NOPGO, "lib"))
    bad = 0
    for name, digest in pgo.items():
        same = plain.get(name) == digest
        bad += 0 if same else 1
        print(f"{name:32s} {digest[:16]} {'identical' if same else 'DIFFERS: ' + plain.get(name, '?')[:16]}")
    print(f"check_pgo: {len(pgo) - bad} of {len(pgo)} identical")
    return 1 if bad or not pgo else 0


if __name__ == "__main__":
    sys.exit(main())
