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


def test_demo_steps_and_the_centre_of_mass_falls_freely():
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "demo.py")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    rows = re.findall(r"t = ([0-9.]+) s .* com z = ([-+0-9.]+)  \(free fall: ([-+0-9.]+)\)",
                      out.stdout)
    assert [float(t) for t, _, _ in rows] == [0.25, 0.5, 0.75, 1.0]
    for _, com, fall in rows:
        # without contacts only gravity moves the centre of mass (armature aside)
        assert abs(float(com) - float(fall)) < 1e-4 * (1 + abs(float(fall)))
