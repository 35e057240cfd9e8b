#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generate shaders/layout.glsl, the GPU view of the model and of batch data, from the X-macro
tables of csrc/include/px/pxxmacro.h, the option struct of csrc/include/px/pxmodel.h and the
enums of csrc/include/px/pxtype.h.

The layout (its C twin is csrc/vulkan/kinematics_gpu.c, which computes the same offsets from the
same X-macros; docs/gpu_executor.md describes both):

- every array lives in a device buffer reached by a buffer device address; one reference type
  per element kind and access: model arrays are read-only (`PxmReal`, `PxmInt`, `PxmFloat`),
  data arrays read-write (`PxdReal`, ...). Real arrays hold PXL_REAL (double, or float under
  PX_FP32); uint8/bool/char model fields are uploaded widened to int;
- `PxModel` (std430): every model size as an int in PX_MODEL_SIZES order, then every pxOption
  field as `opt_<name>` in struct order (reals as PXL_REAL, ints as int), then one reference per
  model array in PX_MODEL_FIELDS order;
- `PxData` (std430): one reference per data array in PX_DATA_FIELDS order; a block holds all
  worlds, world-major: element i of world w is at `w * PXS_<field> + i`;
- `PxParams` (std430): model and data references, nworld, references to the (nworld) blocks
  of simulation times, of per-world step flags and of RK4 start times; the push constant holds
  the address of the parameter block, the index of the first world of the dispatch and the
  entry point's mode;
- the enum values of pxtype.h as `const int` (PX_JNT_HINGE, PX_CAMLIGHT_TRACK, ...);
- globals `pxm`, `pxd`, `pxw` used by the M/D/MS/MOPT macros of csrc/kern/prelude_glsl.h;
- `pxl_zeroWorld()`, every data array of the current world set to zero (mj_resetData).

Usage: gen_layout.py [--check] [--out PATH]. --check compares with the committed file and exits 1
(printing a diff) when regeneration would change it.
"""

import argparse
import difflib
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
XMACRO = os.path.join(ROOT, "csrc", "include", "px", "pxxmacro.h")
MODELH = os.path.join(ROOT, "csrc", "include", "px", "pxmodel.h")
TYPEH = os.path.join(ROOT, "csrc", "include", "px", "pxtype.h")
DATAH = os.path.join(ROOT, "csrc", "include", "px", "pxdata.h")
EXECUTOR = os.path.join(ROOT, "csrc", "vulkan", "kinematics_gpu.c")
OUT = os.path.join(ROOT, "shaders", "layout.glsl")

# X-macro element type -> (GLSL element kind, bytes on the host)
KINDS = {
    "pxtNum": "Real",
    "int": "Int",
    "float": "Float",
    "pxtByte": "Int",  # uint8, widened on upload
    "pxtBool": "Int",  # bool (uint8), widened on upload
    "char": "Int",  # char, widened on upload
}
GLSL_ELEM = {"Real": "PXL_REAL", "Int": "int", "Float": "float"}


def macro_body(text, name):
    """The continuation lines of `#define name(X) \\ ...`, comments stripped."""
    m = re.search(r"#define\s+" + name + r"\(X\)((?:.*\\\n)*.*)\n", text)
    if not m:
        sys.exit(f"gen_layout: {name} not found in {XMACRO}")
    body = m.group(1).replace("\\\n", "\n")
    return re.sub(r"/\*.*?\*/", "", body, flags=re.S)


def parse_fields(text, name):
    """[(type, name, nrow, ncol)] of an X(type, name, nrow, ncol) table."""
    fields = []
    for t, n, r, c in re.findall(r"X\(\s*(\w+)\s*,\s*(\w+)\s*,\s*(\w+)\s*,\s*([^)]*\)?)\s*\)",
                                 macro_body(text, name)):
        if t not in KINDS:
            sys.exit(f"gen_layout: {name}: field {n} has unknown type {t}")
        fields.append((t, n, r, c.strip()))
    return fields


# size symbols of the PX_EFC_FIELDS / PX_EFC_SCRATCH tables of pxdata.h -> GLSL
EFC_SIZES = {"PXE_ROWS": "pxnefcmax", "PXE_NV": "(pxm.nv)", "PXE_NC": "(pxm.nC)",
             "PXE_NTREE": "(pxm.ntree)", "PXE_DUAL": "pxefcdual"}


def parse_efc(text, name):
    """[(type, name, n)] of an X(type, name, n) table of pxdata.h (constraint rows, scratch)."""
    fields = []
    for t, n, e in re.findall(r"X\(\s*(\w+)\s*,\s*(\w+)\s*,\s*([^)]*)\)", macro_body(text, name)):
        if t not in ("pxtNum", "int"):
            sys.exit(f"gen_layout: {name}: field {n} has unsupported type {t}")
        expr = re.sub(r"\s*\*\s*", " * ", re.sub(r"\s+", " ", e.strip()))
        for tok in re.findall(r"[A-Za-z_]\w*", expr):
            if tok not in EFC_SIZES:
                sys.exit(f"gen_layout: {name}: unknown size {tok} in {e}")
        glsl = re.sub(r"[A-Za-z_]\w*", lambda mm: EFC_SIZES[mm.group(0)], expr)
        fields.append((t, n, expr, glsl))
    return fields


def parse_stat(text):
    """[(name, count)] of the pxStatistic struct (reals), in declaration order."""
    m = re.search(r"typedef struct \{([^{}]*)\}\s*pxStatistic;", text)
    if not m:
        sys.exit(f"gen_layout: pxStatistic not found in {MODELH}")
    out = []
    for t, n, cnt in re.findall(r"^\s*(\w+)\s+(\w+)(?:\[(\d+)\])?;", m.group(1), flags=re.M):
        if t != "pxtNum":
            sys.exit(f"gen_layout: pxStatistic.{n} has unsupported type {t}")
        out.append((n, int(cnt) if cnt else 1))
    return out


def parse_sizes(text):
    return re.findall(r"X\((\w+)\)", macro_body(text, "PX_MODEL_SIZES"))


def parse_options(text):
    """[(kind, name, count)] of the pxOption struct, in declaration order."""
    m = re.search(r"typedef struct \{(.*?)\}\s*pxOption;", text, flags=re.S)
    if not m:
        sys.exit(f"gen_layout: pxOption not found in {MODELH}")
    opts = []
    for t, n, cnt in re.findall(r"^\s*(\w+)\s+(\w+)(?:\[(\d+)\])?;", m.group(1), flags=re.M):
        if t not in ("pxtNum", "int"):
            sys.exit(f"gen_layout: pxOption.{n} has unsupported type {t}")
        opts.append(("Real" if t == "pxtNum" else "Int", n, int(cnt) if cnt else 1))
    return opts


def parse_contact(text):
    """[(kind, name, count)] of the pxContact struct (mjContact's layout), in declaration order."""
    m = re.search(r"typedef struct \{(.*?)\}\s*pxContact;", text, flags=re.S)
    if not m:
        sys.exit(f"gen_layout: pxContact not found in {DATAH}")
    body = re.sub(r"//[^\n]*", "", m.group(1))
    out = []
    for t, names in re.findall(r"^\s*(\w+)\s+([^;]+);", body, flags=re.M):
        if t not in ("pxtNum", "int"):
            sys.exit(f"gen_layout: pxContact field of unsupported type {t}")
        for item in names.split(","):
            mm = re.fullmatch(r"\s*(\w+)(?:\[(\d+)\])?\s*", item)
            if not mm:
                sys.exit(f"gen_layout: cannot parse pxContact field {item!r}")
            out.append(("Real" if t == "pxtNum" else "Int", mm.group(1),
                        int(mm.group(2)) if mm.group(2) else 1))
    return out


def check_executor_options(opts):
    """The C twin's option list (OPT_R/OPT_I in kinematics_gpu.c) must be pxOption's."""
    if not os.path.exists(EXECUTOR):
        return
    with open(EXECUTOR) as f:
        listed = re.findall(r"\bOPT_([RI])\((\w+)\),", f.read())
    want = [("R" if k == "Real" else "I", n) for k, n, _ in opts]
    if listed != want:
        sys.exit(f"gen_layout: the option list of {os.path.relpath(EXECUTOR, ROOT)} differs from "
                 f"pxOption:\n  listed  {listed}\n  pxOption {want}")


def parse_enums(text):
    """[(name, value)] of every enum in pxtype.h, values evaluated as C would."""
    text = re.sub(r"//[^\n]*", "", text)
    out = []
    for body in re.findall(r"\benum\s*\{(.*?)\}", text, flags=re.S):
        nxt = 0
        env = {}
        for item in body.split(","):
            item = item.strip()
            if not item:
                continue
            m = re.fullmatch(r"(\w+)(?:\s*=\s*(.+))?", item, flags=re.S)
            if not m:
                sys.exit(f"gen_layout: cannot parse enum item {item!r} in {TYPEH}")
            name, expr = m.group(1), m.group(2)
            if expr is not None:
                if not re.fullmatch(r"[\w\s()<>|+\-*]+", expr):
                    sys.exit(f"gen_layout: unsupported enum value {expr!r}")
                nxt = int(eval(expr, {"__builtins__": {}}, env))
            env[name] = nxt
            out.append((name, nxt))
            nxt += 1
    return out


def glsl_expr(expr, sizes):
    """A ncol or nrow expression with MSZ(size) -> (pxm.size)."""
    out = re.sub(r"MSZ\((\w+)\)", r"(pxm.\1)", expr)
    for tok in re.findall(r"[A-Za-z_]\w*", out):
        if tok != "pxm" and tok not in sizes:
            sys.exit(f"gen_layout: unknown size {tok} in {expr}")
    return out


def generate():
    with open(XMACRO) as f:
        xtext = f.read()
    with open(MODELH) as f:
        mtext = f.read()
    sizes = parse_sizes(xtext)
    mfields = parse_fields(xtext, "PX_MODEL_FIELDS")
    dfields = parse_fields(xtext, "PX_DATA_FIELDS")
    opts = parse_options(mtext)
    stats = parse_stat(mtext)
    check_executor_options(opts)
    with open(TYPEH) as f:
        enums = parse_enums(f.read())
    with open(DATAH) as f:
        dtext = f.read()
    cfields = parse_contact(dtext)
    efields = parse_efc(dtext, "PX_EFC_FIELDS") + parse_efc(dtext, "PX_EFC_SCRATCH")

    L = []
    w = L.append
    w("// SPDX-License-Identifier: Apache-2.0")
    w("// GENERATED by scripts/gen_layout.py from px/pxxmacro.h, pxmodel.h and pxtype.h:")
    w("// do not edit; run `make shaders`. The GPU view of the model and of world-major batch data")
    w("// (docs/gpu_executor.md); csrc/vulkan/kinematics_gpu.c fills it with the same offsets.")
    w("#ifndef PX_SHADERS_LAYOUT_GLSL_")
    w("#define PX_SHADERS_LAYOUT_GLSL_")
    w("")
    w("#extension GL_EXT_buffer_reference : require")
    w("")
    w("#ifdef PX_FP32")
    w("#define PXL_REAL float")
    w("#else")
    w("#define PXL_REAL double")
    w("#endif")
    w("")
    w("// enum values of px/pxtype.h")
    for n, v in enums:
        w(f"const int {n} = {v};")
    w("")
    w("// element arrays: model arrays read-only, data arrays read-write (all 64-byte aligned)")
    used = sorted({KINDS[t] for t, _, _, _ in mfields}, key=["Real", "Int", "Float"].index)
    for k in used:
        w(f"layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer Pxm{k} "
          f"{{ {GLSL_ELEM[k]} v[]; }};")
    dused = sorted({KINDS[t] for t, _, _, _ in dfields}, key=["Real", "Int", "Float"].index)
    for k in dused:
        w(f"layout(buffer_reference, std430, buffer_reference_align = 16) buffer Pxd{k} "
          f"{{ {GLSL_ELEM[k]} v[]; }};")
    w("")
    w("// a contact record: pxContact's fields (MuJoCo's mjContact) in struct order, reals as")
    w("// PXL_REAL; std430 packs it as C does (reals first, then ints; stride rounded to a real)")
    w("struct PxContact {")
    for k, n, cnt in cfields:
        arr = f"[{cnt}]" if cnt > 1 else ""
        w(f"  {GLSL_ELEM[k]} {n}{arr};")
    w("};")
    w("layout(buffer_reference, std430, buffer_reference_align = 16) buffer PxdContact "
      "{ PxContact v[]; };")
    if "Int" not in dused:
        w("layout(buffer_reference, std430, buffer_reference_align = 16) buffer PxdInt "
          "{ int v[]; };")
    w("")
    w("// the model: sizes, options, one reference per array")
    w("layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer PxModel {")
    w(f"  // sizes ({len(sizes)} ints)")
    for s in sizes:
        w(f"  int {s};")
    w("  // options (pxOption, in struct order)")
    for k, n, cnt in opts:
        arr = f"[{cnt}]" if cnt > 1 else ""
        w(f"  {GLSL_ELEM[k]} opt_{n}{arr};")
    w(f"  // arrays ({len(mfields)})")
    for t, n, r, c in mfields:
        w(f"  Pxm{KINDS[t]} {n};  // ({r} x {c}) {t}")
    w("};")
    w("")
    w("// batch data: one reference per array, each a (nworld x PXS_<field>) world-major block")
    w("layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer PxData {")
    for t, n, r, c in dfields:
        w(f"  Pxd{KINDS[t]} {n};  // ({r} x {c}) {t}")
    w("};")
    w("")
    w("#ifdef PX_LAYOUT_EFC")
    w("// the constraint rows and solver scratch of every world (PX_EFC_FIELDS and PX_EFC_SCRATCH of")
    w("// px/pxdata.h, one slot per world), declared only where PX_LAYOUT_EFC is defined (the")
    w("// constraint stage's entry points), so that the other modules do not change")
    w("layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer PxEfc {")
    for t, n, e, _ in efields:
        w(f"  Pxd{KINDS[t]} {n};  // (nworld x {e}) {t}")
    w("};")
    w("#endif")
    w("")
    w("// the parameter block of a dispatch")
    w("layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer PxParams {")
    w("  PxModel model;")
    w("  PxData data;")
    w("  int nworld;  // worlds in the batch")
    w("  PxdReal time;  // (nworld) simulation time of each world (pxWorlds.time)")
    w("  PxdInt flag;   // (nworld) per-world flag of the step phase (1: run forward again)")
    w("  PxdReal tsave;  // (nworld) the time at the start of an RK4 step")
    w("  PxdContact contact;  // (nworld x (nconmax + PXK_MAXCONPAIR)) contact records")
    w("  PxdInt ncon;  // (nworld) contacts of each world")
    w("  PxdReal colscr_r;  // (nworld x ncolscr_r) collision scratch, reals")
    w("  PxdInt colscr_i;  // (nworld x ncolscr_i) collision scratch, ints")
    w("  int nconmax;  // contact capacity of a world (records per world: nconmax + 50)")
    w("  int nbpmax;  // body-pair capacity of the broad phase")
    w("  int ncolscr_r;  // scratch reals per world (px_colScratchReals)")
    w("  int ncolscr_i;  // scratch ints per world (px_colScratchInts)")
    w("  PxdInt colpairs;  // (nworld x (2 + 3 * ncolpairs)) geom pairs to collide: count, cursor,")
    w("                    // then (g1, g2, ipair) in the driver's order")
    w("  int ncolpairs;  // pair capacity of a world (px_colPairCapacity)")
    w("#ifdef PX_LAYOUT_EFC")
    w("  PxEfc efc;  // constraint rows and solver scratch")
    w("  PxdInt efc_n;  // (nworld x PX_EFC_NCOUNT) row counts and solver statistics")
    w("  int nefcmax;  // row capacity of a world (px_efcCapacity)")
    w("  int efcdual;  // rows of the dual matrices (px_efcDual)")
    w("  PxdReal stat;  // the model statistics (pxStatistic's reals in struct order)")
    w("#endif")
    w("};")
    w("")
    w("// push constant: the parameter block, the batch index of the dispatch's first world and the")
    w("// entry point's mode (0 unless the entry point says otherwise)")
    w("layout(push_constant, std430) uniform PxPush {")
    w("  PxParams params;")
    w("  int world0;")
    w("  int mode;")
    w("} pxpush;")
    w("")
    w("// world strides of the data arrays (elements per world)")
    for t, n, r, c in dfields:
        if r not in sizes:
            sys.exit(f"gen_layout: {n}: unknown row size {r}")
        w(f"#define PXS_{n} (pxm.{r}" + ("" if c == "1" else f" * {glsl_expr(c, sizes)}") + ")")
    w("")
    w("// the model, the batch data and the current world, set by the entry point")
    w("PxModel pxm;")
    w("PxData pxd;")
    w("int pxw;")
    w("")
    w("// this world's contact records, count and collision scratch (the PXK_CON, PXK_NCON,")
    w("// PXK_SCR_R, PXK_SCR_I macros of prelude_glsl.h); set by pxl_collisionWorld")
    w("PxdContact pxcon;")
    w("PxdInt pxncon;")
    w("PxdReal pxscrr;")
    w("PxdInt pxscri;")
    w("PxdInt pxpairs;")
    w("int pxpairbase;")
    w("int pxnpairmax;")
    w("int pxconbase;")
    w("int pxnconmax;")
    w("int pxscrrbase;")
    w("int pxscribase;")
    w("int pxnbpmax;")
    w("")
    w("// bind the collision globals to world pxw of parameter block p (after pxw is set)")
    w("void pxl_collisionWorld(PxParams p) {")
    w("  pxcon = p.contact;")
    w("  pxncon = p.ncon;")
    w("  pxscrr = p.colscr_r;")
    w("  pxscri = p.colscr_i;")
    w("  pxnconmax = p.nconmax;")
    w("  pxnbpmax = p.nbpmax;")
    w("  pxconbase = pxw * (p.nconmax + 50);")
    w("  pxscrrbase = pxw * p.ncolscr_r;")
    w("  pxscribase = pxw * p.ncolscr_i;")
    w("  pxpairs = p.colpairs;")
    w("  pxnpairmax = p.ncolpairs;")
    w("  pxpairbase = pxw * (2 + 3 * p.ncolpairs);")
    w("}")
    w("")
    w("#ifdef PX_LAYOUT_EFC")
    w("// entries of efc_n (px/pxdata.h)")
    for n, v in re.findall(r"#define\s+(PX_EFC_N\w+)\s+(\d+)", dtext):
        w(f"const int {n} = {v};")
    w("")
    w("// this world's constraint rows (the PXK_E, PXK_EN, PXK_NEFCMAX, PXK_NEFCDUAL macros of")
    w("// prelude_glsl.h); set by pxl_efcWorld")
    w("// offsets of the model statistics in p.stat (MSTAT of prelude_glsl.h)")
    o = 0
    for n, cnt in stats:
        w(f"const int PXSTAT_{n} = {o};")
        o += cnt
    w("")
    w("PxEfc pxefc;")
    w("PxdReal pxstat;")
    w("PxdInt pxefcn;")
    w("int pxnefcmax;")
    w("int pxefcdual;")
    w("")
    w("// world strides of the constraint arrays (elements per world)")
    for t, n, e, g in efields:
        w(f"#define PXES_{n} ({g})")
    w("")
    w("// bind the constraint globals to world pxw of parameter block p (after pxw is set)")
    w("void pxl_efcWorld(PxParams p) {")
    w("  pxefc = p.efc;")
    w("  pxefcn = p.efc_n;")
    w("  pxnefcmax = p.nefcmax;")
    w("  pxefcdual = p.efcdual;")
    w("  pxstat = p.stat;")
    w("}")
    w("#endif")
    w("")
    w("// every data array of the current world set to zero, lane-strided (the first part of")
    w("// mj_resetData; callers put a barrier after it)")
    w("void pxl_zeroWorld() {")
    w("  int lane = int(gl_LocalInvocationID.x);")
    w("  int nlane = int(gl_WorkGroupSize.x);")
    for t, n, r, c in dfields:
        zero = "PXL_REAL(0)" if KINDS[t] == "Real" else ("0.0" if KINDS[t] == "Float" else "0")
        w(f"  for (int i = lane; i < PXS_{n}; i += nlane) pxd.{n}.v[pxw * PXS_{n} + i] = {zero};")
    w("}")
    w("")
    w("#endif  // PX_SHADERS_LAYOUT_GLSL_")
    return "\n".join(L) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="fail if the committed file differs")
    ap.add_argument("--out", default=OUT)
    a = ap.parse_args()
    text = generate()
    if a.check:
        old = open(a.out).read() if os.path.exists(a.out) else ""
        if old != text:
            sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), text.splitlines(True),
                                                       a.out, "regenerated"))
            print(f"gen_layout: {os.path.relpath(a.out, ROOT)} is stale; run `make shaders`")
            return 1
        return 0
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
