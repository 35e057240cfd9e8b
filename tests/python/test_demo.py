# SPDX-License-Identifier: Apache-2.0
"""`make demo`'s script runs on the package's own model and prints what the README shows."""

import os
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
