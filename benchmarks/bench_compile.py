# SPDX-License-Identifier: Apache-2.0
"""Compile time of phalanx against mujoco on the same models, in the same run.

Each model is compiled alternately by both engines, REPEAT times; the median time per engine
and the ratio mujoco/phalanx (> 1: phalanx faster) are printed, one JSON line per model plus a
summary with the geometric mean of the ratios. The machine is shared and noisy: only medians and
ratios are reported.
"""

import glob
import json
import os
import statistics
import sys
import time

import phalanx

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = os.path.normpath(os.path.join(ROOT, "..", "shared", "models"))
REPEAT = int(os.environ.get("BENCH_REPEAT", "15"))


def timed(fn, path):
    t0 = time.perf_counter()
    fn(path)
    return time.perf_counter() - t0


def main():
    import mujoco

    paths = sorted(glob.glob(os.path.join(MODELS, "gymnasium", "*.xml")))
    paths.append(os.path.join(MODELS, "mujoco", "model", "humanoid", "humanoid.xml"))
    ratios = []
    for path in paths:
        try:
            phalanx.Model.from_xml_path(path)
        except (NotImplementedError, phalanx.MJCFError) as e:
            print(json.dumps({"model": os.path.relpath(path, MODELS), "skipped": str(e)[:120]}))
            continue
        ours, theirs = [], []
        for _ in range(REPEAT):
            ours.append(timed(phalanx.Model.from_xml_path, path))
            theirs.append(timed(mujoco.MjModel.from_xml_path, path))
        mo, mt = statistics.median(ours), statistics.median(theirs)
        ratios.append(mt / mo)
        print(json.dumps({"model": os.path.relpath(path, MODELS), "phalanx_ms": round(mo * 1e3, 3),
                          "mujoco_ms": round(mt * 1e3, 3), "ratio_mujoco_over_phalanx":
                          round(mt / mo, 2)}))
    if ratios:
        geo = 1.0
        for r in ratios:
            geo *= r
        geo **= 1.0 / len(ratios)
        print(json.dumps({"models": len(ratios), "repeat": REPEAT,
                          "geomean_ratio_mujoco_over_phalanx": round(geo, 2)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
