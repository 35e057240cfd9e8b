# SPDX-License-Identifier: Apache-2.0
"""`make demo`'s script runs on the package's own model and prints what the README shows."""

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_demo_runs():
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "demo.py")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "sizes: nq=15, nv=14, nu=8, nbody=10" in text
    assert "configuration qpos0:" in text and "configuration random 1:" in text
    assert "front_left_shin    xpos = (+0.5000, +0.4000, +0.6000)" in text


def test_demo_steps_with_contacts_and_runs_the_task():
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "demo.py")],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    rows = re.findall(r"t = ([0-9.]+) s  torso = \(([-+0-9.]+), ([-+0-9.]+), ([-+0-9.]+)\)  "
                      r"most contacts in the last 0.5 s = (\d+)", out.stdout)
    assert [float(r[0]) for r in rows] == [0.5, 1.0, 1.5, 2.0]
    for _, x, y, z, ncon in rows:
        # on the floor: the shins touch it and hold the torso above it
        assert int(ncon) > 0
        assert 0.2 < float(z) < 0.7
    assert re.search(r"Ant-v5: 256 envs x 50 steps of random actions, observation \(105,\)",
                     out.stdout)
    assert re.search(r"mean return [-+][0-9.]+, episodes ended \d+, [0-9,]+ env steps/s",
                     out.stdout)
