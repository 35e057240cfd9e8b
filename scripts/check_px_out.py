# SPDX-License-Identifier: Apache-2.0
"""Dynamic lint for the kernel dialect's PX_OUT arrays (docs/kernel_dialect.md, "Rules").

In GLSL a `PX_OUT` array (`out`) is undefined on entry to the callee and copied back whole on
return; in C it is the caller's array, untouched where the callee does not write. A callee that
leaves an element unwritten on some path whose caller reads it afterwards, or that reads its own
out array before writing it, is therefore correct on the CPU and silently wrong on the GPU.

This script makes the C build behave like the GPU in that respect: it copies the sources into a
temporary directory, rewrites every `PX_FN` function definition with `PX_OUT` parameters in the
kernel headers (csrc/kern/*.h) so that its out arrays are poisoned on entry over their declared
length, builds the CPython extension from that copy and runs a subset of the CPU tests against it
once per poison value. The CPU tests compare with MuJoCo, mostly bit for bit,
so a test that fails only in the poisoned build names a PX_OUT parameter whose unwritten elements
are read. The repository's tree is never written.

The poison values are read at load time from PX_OUT_POISON / PX_OUT_POISON_INT, so one build
serves several test passes (PASSES: NaN, a tiny negative and a huge positive real, each with an
int sentinel). The instrumented functions no test ran are listed (nothing checked them).

Usage: .venv/bin/python scripts/check_px_out.py [--poison REAL[,INT]]... [--timeout S] [--keep]
       [--list] [pytest ids...]
Exit status: 0 when every test passes in the poisoned build, 1 otherwise.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# csrc/tasks/tasks.h is left out: its C callers (csrc/batch/task.c) pass obs buffers of obs_dim
# elements for PX_OUT(obs, PXT_MAXOBS), so poisoning the declared length would overrun them
HEADER_GLOBS = [("csrc", "kern")]

# the fast subsets of the files that run the kernels (smooth dynamics, collision incl. geom
# distance, constraints and solvers, sensors incl. tactile and rays, integrators)
DEFAULT_TESTS = [
    "tests/compat/test_smooth.py",
    "tests/compat/test_forward.py",
    "tests/compat/test_dynamics.py",
    "tests/compat/test_actuation_passive.py",
    "tests/compat/test_tendon_transmission.py",
    "tests/compat/test_tendon_armature.py",
    "tests/compat/test_implicit_fluid.py",
    "tests/compat/test_integrate.py",
    "tests/compat/test_post.py",
    "tests/compat/test_collide_prim.py",
    "tests/compat/test_collide_plane.py",
    "tests/compat/test_collide_box.py",
    "tests/compat/test_collide_convex.py",
    "tests/compat/test_collide_hfield.py",
    "tests/compat/test_collision_broad.py",
    "tests/compat/test_geom_distance.py",
    "tests/compat/test_constraint.py",
    "tests/compat/test_sensor.py",
    "tests/compat/test_sensor_contact.py",
    "tests/compat/test_tactile.py",
    "tests/compat/test_ray.py",
    "tests/compat/test_history.py",
    "tests/compat/test_collision.py",
    "tests/compat/test_collision_corpus.py",
    "tests/compat/test_collision_robust.py",
    "tests/compat/test_constraint_divergence.py",
    "tests/compat/test_constraint_stats.py",
    "tests/compat/test_hfield.py",
    "tests/compat/test_setconst.py",
    "tests/compat/test_conformance.py",
    "tests/batch/test_batch.py",
    "tests/python/test_api.py",
]

REAL_TYPES = {"PX_REAL", "double", "float"}
INT_TYPES = {"int", "PX_UINT", "uint"}

# the poison values, one test pass each (real, int): NaN spreads through arithmetic, but a
# comparison with NaN is false, so a NaN candidate is quietly never chosen; the finite values catch
# elements that are only compared (a tiny negative passes sign tests and wins minimizations, a huge
# positive wins maximizations), and ints that are read as indices or flags
PASSES = [("nan", "-1000000007"), ("-1e-300", "1000000007"), ("1e300", "-1")]

# the poison is read at run time, so one build serves every pass
POISON_DECL = """
/* check_px_out.py: the poison of PX_OUT arrays, set from PX_OUT_POISON[_INT] at load time */
extern double pxo_poison_real;
extern int pxo_poison_int;
extern unsigned char pxo_hit[];
"""
POISON_SRC = """// SPDX-License-Identifier: Apache-2.0
// check_px_out.py: the PX_OUT poison values, read from the environment at load time
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
double pxo_poison_real;
int pxo_poison_int;
unsigned char pxo_hit[NFN];
__attribute__((constructor)) static void pxo_init(void) {
  const char *r = getenv("PX_OUT_POISON");
  const char *i = getenv("PX_OUT_POISON_INT");
  pxo_poison_real = r ? strtod(r, NULL) : NAN;
  pxo_poison_int = i ? atoi(i) : -1000000007;
}
// the indices of the instrumented functions that ran, appended to $PX_OUT_HITS at exit
__attribute__((destructor)) static void pxo_fini(void) {
  const char *path = getenv("PX_OUT_HITS");
  FILE *f = path ? fopen(path, "a") : NULL;
  if (!f) return;
  for (int k = 0; k < NFN; k++)
    if (pxo_hit[k]) fprintf(f, "%d\\n", k);
  fclose(f);
}
"""


def _match_paren(text, i):
    """Index of the parenthesis closing the one at text[i]."""
    depth = 0
    for j in range(i, len(text)):
        c = text[j]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return j
    raise ValueError("unbalanced parentheses")


def _split_top(text):
    """Split on the commas outside parentheses."""
    parts, depth, cur = [], 0, []
    for c in text:
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        if c == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
    parts.append("".join(cur).strip())
    return parts


def _out_params(params):
    """(type, name, len) of every PX_OUT(...) in a parameter list's text."""
    res = []
    for mt in re.finditer(r"\bPX_OUT\s*\(", params):
        o = mt.end() - 1
        args = _split_top(params[o + 1 : _match_paren(params, o)])
        if len(args) != 3:
            raise ValueError(f"PX_OUT with {len(args)} arguments: {args}")
        res.append(tuple(args))
    return res


def _poison_code(outs, fn, idx):
    lines = ["\n#ifdef PX_KERN_C /* check_px_out.py: poison the out arrays, as GLSL leaves them */",
             f"  pxo_hit[{idx}] = 1;"]
    for typ, name, length in outs:
        if typ in REAL_TYPES or typ in INT_TYPES:
            v = "pxo_poison_real" if typ in REAL_TYPES else "pxo_poison_int"
            val = f"({typ}){v}"
        else:
            raise ValueError(f"{fn}: PX_OUT of unknown type {typ}")
        lines.append(f"  for (int pxo_i = 0; pxo_i < ({length}); ++pxo_i) {name}[pxo_i] = {val};")
    lines.append("#endif")
    return "\n".join(lines) + "\n"


def instrument(text, path, first):
    """Return (new text, [(function, [params])]) with the out arrays poisoned on entry."""
    out, pos, found = [], 0, []
    # a definition at the start of a line (macro-generated functions carry no PX_OUT)
    for m in re.finditer(r"^PX_FN\b[^;{(]*?\b(\w+)\s*\(", text, re.M):
        if m.start() < pos:
            continue
        fn = m.group(1)
        o = m.end() - 1
        c = _match_paren(text, o)
        k = c + 1
        while k < len(text) and text[k].isspace():
            k += 1
        if k >= len(text) or text[k] != "{":
            continue  # a prototype
        outs = _out_params(text[o + 1 : c])
        if not outs:
            continue
        out.append(text[pos : k + 1])
        out.append(_poison_code(outs, fn, first + len(found)))
        pos = k + 1
        found.append((fn, [p[1] for p in outs]))
    out.append(text[pos:])
    n_decl = len(re.findall(r"\bPX_OUT\s*\(", text))
    n_done = sum(len(p) for _, p in found)
    if n_decl != n_done:  # the preludes, which define the macro, are not passed here
        raise ValueError(f"{path}: {n_decl} PX_OUT but {n_done} instrumented: parser missed some")
    return "".join(out), found


def prepare(tmp):
    """Copy what setup.py needs into tmp and instrument the kernel headers there."""
    shutil.copy2(os.path.join(ROOT, "setup.py"), tmp)
    ignore_py = shutil.ignore_patterns("*.so", "__pycache__", "build")
    shutil.copytree(os.path.join(ROOT, "csrc"), os.path.join(tmp, "csrc"), ignore=ignore_py)
    shutil.copytree(os.path.join(ROOT, "python"), os.path.join(tmp, "python"), ignore=ignore_py)
    prelude = os.path.join(tmp, "csrc", "kern", "prelude_c.h")
    with open(prelude) as f:
        text = f.read()
    k = text.index("#define PX_KERN_C 1")
    with open(prelude, "w") as f:
        f.write(text[:k] + POISON_DECL + text[k:])
    total = []
    for parts in HEADER_GLOBS:
        d = os.path.join(tmp, *parts)
        for name in sorted(os.listdir(d)):
            if not name.endswith(".h") or name.startswith("prelude"):
                continue
            p = os.path.join(d, name)
            with open(p) as f:
                text = f.read()
            new, found = instrument(text, p, len(total))
            if found:
                with open(p, "w") as f:
                    f.write(new)
                total += [(os.path.join(*parts, name), fn, ps) for fn, ps in found]
    with open(os.path.join(tmp, "csrc", "pxo_poison.c"), "w") as f:
        f.write(POISON_SRC.replace("NFN", str(max(len(total), 1))))
    return total


def build(tmp, jobs):
    env = dict(os.environ)
    env.pop("PX_DEV", None)  # the poisoning loops need not satisfy -Werror
    env["PX_PGO"] = "0"  # one build: no profile-guided training run on the poisoned code
    cmd = [sys.executable, "setup.py", "-q", "build_ext", "--inplace", "-j", str(jobs)]
    r = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stdout.write(r.stdout[-5000:] + r.stderr[-20000:])
        sys.exit("check_px_out: the poisoned build failed")


def run_tests(tmp, tests, timeout, extra, poison):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(tmp, "python")
    env["PX_OUT_POISON"], env["PX_OUT_POISON_INT"] = poison
    env["PX_OUT_HITS"] = os.path.join(tmp, "hits.txt")
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not slow",
           "-rfE"] + extra + tests
    try:
        r = subprocess.run(cmd, cwd=ROOT, env=env, timeout=timeout, capture_output=True, text=True)
    except subprocess.TimeoutExpired as e:
        tail = (e.stdout or b"")[-4000:]
        sys.stdout.write(tail.decode() if isinstance(tail, bytes) else tail)
        print(f"\ncheck_px_out: FAIL: the tests did not finish in {timeout} s (a hang?)")
        return 1, None
    return r.returncode, r.stdout + r.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("tests", nargs="*", help=f"pytest ids (default: {len(DEFAULT_TESTS)} files)")
    ap.add_argument("--timeout", type=float, default=1500, help="seconds for each test pass")
    ap.add_argument("--jobs", type=int, default=2, help="parallel compile jobs")
    ap.add_argument("--keep", action="store_true", help="keep the temporary build directory")
    ap.add_argument("--list", action="store_true", help="list the instrumented functions and stop")
    ap.add_argument("--poison", action="append", metavar="REAL[,INT]",
                    help="a poison pass, repeatable; write --poison=-1e-300,5 for a negative "
                    "value (default: " + " ".join(",".join(p) for p in PASSES) + ")")
    ap.add_argument("--pytest-args", default="", help="extra pytest arguments (one string)")
    args = ap.parse_args()
    args.passes = PASSES
    if args.poison:
        args.passes = [(p.split(",") + ["-1000000007"])[:2] for p in args.poison]

    tmp = tempfile.mkdtemp(prefix="px_out_check_")
    t0 = time.monotonic()
    try:
        fns = prepare(tmp)
        nparam = sum(len(ps) for _, _, ps in fns)
        print(f"check_px_out: poisoned {nparam} PX_OUT parameters in {len(fns)} functions")
        if args.list:
            for path, fn, ps in fns:
                print(f"  {path}: {fn}({', '.join(ps)})")
            return 0
        build(tmp, args.jobs)
        t1 = time.monotonic()
        print(f"check_px_out: built the poisoned extension in {t1 - t0:.0f} s", flush=True)
        bad = 0
        for poison in args.passes:
            t1 = time.monotonic()
            tag = f"poison real {poison[0]}, int {poison[1]}"
            rc, log = run_tests(tmp, args.tests or DEFAULT_TESTS, args.timeout,
                                args.pytest_args.split(), poison)
            if log is not None:
                lines = log.splitlines()
                failed = [ln for ln in lines if ln.startswith(("FAILED ", "ERROR "))]
                summary = [ln for ln in lines if re.search(r"\d+ (passed|failed)", ln)]
                if rc != 0 and not failed:
                    sys.stdout.write(log[-8000:])  # a crash or a collection error
                for ln in failed:
                    print(f"  [{poison[0]}] {ln}")
                res = summary[-1].strip("= ") if summary else f"rc {rc}"
            else:
                res = "timed out"
            print(f"check_px_out: {tag}: {res} ({time.monotonic() - t1:.0f} s)", flush=True)
            bad += rc != 0
        print(f"check_px_out: total {time.monotonic() - t0:.0f} s")
        hits = set()
        if os.path.exists(os.path.join(tmp, "hits.txt")):
            with open(os.path.join(tmp, "hits.txt")) as f:
                hits = {int(ln) for ln in f if ln.strip()}
        cold = [(path, fn) for k, (path, fn, _) in enumerate(fns) if k not in hits]
        print(f"check_px_out: {len(fns) - len(cold)} of {len(fns)} instrumented functions ran; "
              f"not run by these tests (unchecked): {len(cold)}")
        for path, fn in cold:
            print(f"  {path}: {fn}")
        if bad:
            print("check_px_out: FAIL: the tests above read PX_OUT elements their callee left "
                  "unwritten (undefined on the GPU); fix the kernel or make the parameter PX_INOUT")
            return 1
        print("check_px_out: OK: no test reads an unwritten PX_OUT element")
        return 0
    finally:
        if args.keep:
            print(f"check_px_out: build kept in {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
