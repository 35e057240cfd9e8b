#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""T4 of docs/gpu.md: lint the SPIR-V modules that phalanx embeds.

Each module (a committed csrc/vulkan/spirv/*.inc C array, or a .spv file) is disassembled with
spirv-dis and checked for the floating-point contract of the kernel dialect:

- every float multiplication (OpFMul and the vector/matrix products) carries the NoContraction
  decoration (`precise`): a contraction (fma) needs an undecorated multiply feeding an
  undecorated add, so with every multiply decorated no driver may fuse anything (error);
- every other float arithmetic instruction (OpFAdd, OpFSub, OpFDiv, OpFRem, OpFMod) carries
  NoContraction too, as docs/gpu.md asks: a miss is a warning (it cannot contract once every
  multiply is decorated, but it marks a `precise` hole in the kernel source, typically real
  arithmetic in a call argument or a condition), an error with --strict;
- no GLSL.std.450 instruction of driver-chosen precision (Sin, Cos, Tan, Asin, Acos, Atan,
  Atan2, Exp, Exp2, Log, Log2, Pow, InverseSqrt, Fma, the hyperbolic functions, Length,
  Distance, Normalize, Cross): the kernels use csrc/kern/libm.h instead;
- no OpDot, no float group reductions (OpGroupNonUniformFAdd/FMul, OpGroupFAdd), no float
  atomics (OpAtomicFAddEXT, OpAtomicFMinEXT, OpAtomicFMaxEXT, or any atomic on a float type);
- modules named *_f32* declare no Float64, Int64 or Int64Atomics capability.

OpFNegate is exact (a sign flip), so it needs no NoContraction; it is reported with --verbose.

Usage: spirv_lint.py [--strict] [--verbose] [MODULE ...]; with no MODULE, every
csrc/vulkan/spirv/*.inc. Exit status 1 when any module has an error; each finding is printed as
`module: error|warning: rule: detail`, with the source line where the module has OpLine
(glslc -g).
"""

import argparse
import glob
import os
import re
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPIRV_DIR = os.path.join(ROOT, "csrc", "vulkan", "spirv")

MULTIPLY = {
    "OpFMul", "OpVectorTimesScalar", "OpMatrixTimesScalar", "OpVectorTimesMatrix",
    "OpMatrixTimesVector", "OpMatrixTimesMatrix", "OpOuterProduct",
}
ARITH = MULTIPLY | {"OpFAdd", "OpFSub", "OpFDiv", "OpFRem", "OpFMod"}
BANNED_EXT = {
    "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Atan2", "Sinh", "Cosh", "Tanh", "Asinh",
    "Acosh", "Atanh", "Exp", "Exp2", "Log", "Log2", "Pow", "InverseSqrt", "Fma", "Length",
    "Distance", "Normalize", "Cross",
}
BANNED_OPS = {
    "OpDot", "OpGroupNonUniformFAdd", "OpGroupNonUniformFMul", "OpGroupFAdd",
    "OpGroupFAddNonUniformAMD", "OpAtomicFAddEXT", "OpAtomicFMinEXT", "OpAtomicFMaxEXT",
}
FP32_BANNED_CAPS = {"Float64", "Int64", "Int64Atomics"}


def load_words(path):
    """The SPIR-V binary of a module: a .spv file, or a glslc -mfmt=c array (.inc)."""
    if path.endswith(".spv"):
        with open(path, "rb") as f:
            return f.read()
    with open(path) as f:
        text = re.sub(r"//[^\n]*", "", f.read())
    words = [int(x, 16) for x in re.findall(r"0x([0-9a-fA-F]+)", text)]
    if not words or words[0] != 0x07230203:
        raise ValueError(f"{path}: no SPIR-V magic number in the array")
    return struct.pack(f"<{len(words)}I", *words)


def disassemble(binary):
    with tempfile.NamedTemporaryFile(suffix=".spv") as f:
        f.write(binary)
        f.flush()
        r = subprocess.run(["spirv-dis", "--raw-id", "--no-color", f.name], capture_output=True,
                           text=True)
    if r.returncode:
        raise ValueError("spirv-dis failed: " + r.stderr.strip())
    return r.stdout.splitlines()


def lint(name, lines, strict=False):
    """Findings [(severity, rule, detail)] and counters of one disassembled module."""
    float_types = set()
    nocontract = set()
    glsl_std = set()
    caps = set()
    files = {}
    where = ""
    arith = []  # (result id, op, line, source location)
    findings = []
    nneg = 0
    for ln in lines:
        s = ln.strip()
        m = re.match(r'(%\d+) = OpString "(.*)"', s)
        if m:
            files[m.group(1)] = m.group(2)
            continue
        m = re.match(r"OpLine (%\d+) (\d+)", s)
        if m:
            where = f" [{files.get(m.group(1), '?')}:{m.group(2)}]"
            continue
        m = re.match(r"(%\d+) = (Op\w+)\s*(.*)", s)
        if m:
            rid, op, rest = m.groups()
            args = rest.split()
            if op == "OpTypeFloat":
                float_types.add(rid)
            elif op in ("OpTypeVector", "OpTypeMatrix") and args and args[0] in float_types:
                float_types.add(rid)
            elif op == "OpExtInstImport" and "GLSL.std.450" in rest:
                glsl_std.add(rid)
            elif op in ARITH and args and args[0] in float_types:
                arith.append((rid, op, s, where))
            elif op == "OpFNegate":
                nneg += 1
            elif op == "OpExtInst" and len(args) >= 3 and args[1] in glsl_std:
                if args[2] in BANNED_EXT:
                    findings.append(("error", "banned GLSL.std.450 instruction", s + where))
            if op in BANNED_OPS:
                findings.append(("error", "banned instruction", s + where))
            elif op.startswith("OpAtomic") and args and args[0] in float_types:
                findings.append(("error", "float atomic", s + where))
            continue
        m = re.match(r"OpDecorate (%\d+) NoContraction", s)
        if m:
            nocontract.add(m.group(1))
            continue
        m = re.match(r"OpCapability (\w+)", s)
        if m:
            caps.add(m.group(1))
            continue
        if re.match(r"(OpAtomicFAddEXT|OpAtomicFMinEXT|OpAtomicFMaxEXT)\b", s):
            findings.append(("error", "float atomic", s + where))
    for rid, op, s, at in arith:
        if rid in nocontract:
            continue
        if op in MULTIPLY:
            findings.append(("error", "float multiply without NoContraction", s + at))
        else:
            findings.append(("error" if strict else "warning",
                             "float arithmetic without NoContraction", s + at))
    if "_f32" in os.path.basename(name):
        for c in sorted(caps & FP32_BANNED_CAPS):
            findings.append(("error", "fp32 module declares capability", c))
    stats = {"float_ops": len(arith), "nocontraction": len(nocontract), "fnegate": nneg,
             "capabilities": sorted(caps)}
    return findings, stats


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("modules", nargs="*")
    ap.add_argument("--verbose", action="store_true", help="print counters and capabilities")
    ap.add_argument("--strict", action="store_true",
                    help="every float add/sub/div without NoContraction is an error too")
    a = ap.parse_args()
    mods = a.modules or sorted(glob.glob(os.path.join(SPIRV_DIR, "*.inc")))
    if not mods:
        print(f"spirv_lint: no modules in {os.path.relpath(SPIRV_DIR, ROOT)}")
        return 1
    bad = 0
    for path in mods:
        rel = os.path.relpath(path, ROOT)
        try:
            findings, stats = lint(path, disassemble(load_words(path)), a.strict)
        except (OSError, ValueError) as e:
            print(f"{rel}: error: {e}")
            bad += 1
            continue
        for sev, rule, detail in findings:
            print(f"{rel}: {sev}: {rule}: {detail}")
        nerr = sum(1 for f in findings if f[0] == "error")
        nwarn = len(findings) - nerr
        bad += nerr > 0
        line = (f"{rel}: {'FAIL' if nerr else 'ok'}: {stats['float_ops']} float ops, "
                f"{stats['float_ops'] - sum(1 for f in findings if 'NoContraction' in f[1])} "
                f"with NoContraction, {nerr} errors, {nwarn} warnings")
        if a.verbose:
            line += (f"; {stats['fnegate']} OpFNegate; capabilities "
                     f"{', '.join(stats['capabilities'])}")
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
