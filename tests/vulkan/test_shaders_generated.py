# SPDX-License-Identifier: Apache-2.0
"""The committed GPU files regenerate unchanged, and the T4 SPIR-V lint passes and bites.

shaders/layout.glsl comes from the X-macro tables (scripts/gen_layout.py) and
csrc/vulkan/spirv/*.inc from shaders/*.comp (scripts/build_shaders.sh, glslc); both are
committed so that the extension builds without glslc. These tests fail when a table, a kernel
header or a shader changed without `make shaders`. No Vulkan device is needed.
"""

import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HAVE_TOOLS = bool(shutil.which("glslc") and shutil.which("spirv-dis"))


def run(cmd, **kw):
    env = dict(os.environ, PY=sys.executable)
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=env, **kw)


def test_layout_regenerates_unchanged():
    r = run([sys.executable, "scripts/gen_layout.py", "--check"])
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.skipif(not HAVE_TOOLS, reason="glslc or spirv-dis not installed")
def test_spirv_regenerates_unchanged_and_lints():
    r = run(["bash", "scripts/build_shaders.sh", "--check"])
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 errors" in r.stdout


SHADER = """#version 460
#extension GL_EXT_buffer_reference : require
layout(local_size_x = 1) in;
layout(buffer_reference, std430) buffer B { double v[]; };
layout(push_constant) uniform P { B b; } pc;
void main() {
  %s double r = pc.b.v[1] * pc.b.v[2] + pc.b.v[3];
  pc.b.v[0] = r;
}
"""


@pytest.mark.skipif(not HAVE_TOOLS, reason="glslc or spirv-dis not installed")
@pytest.mark.parametrize("qualifier,ok", [("precise", True), ("", False)])
def test_lint_requires_nocontraction(tmp_path, qualifier, ok):
    # without `precise`, spirv-opt (-O) fuses the multiply-add into Fma: the lint must fail
    comp = tmp_path / "t.comp"
    comp.write_text(SHADER % qualifier)
    spv = tmp_path / "t_f64.spv"
    subprocess.run(["glslc", "--target-env=vulkan1.2", "-O", str(comp), "-o", str(spv)],
                   check=True)
    r = run([sys.executable, "scripts/spirv_lint.py", "--strict", str(spv)])
    assert (r.returncode == 0) == ok, r.stdout + r.stderr
