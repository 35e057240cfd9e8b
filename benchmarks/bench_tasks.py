# SPDX-License-Identifier: Apache-2.0
"""Environment throughput of the Gymnasium MuJoCo v5 tasks: phalanx against Gymnasium and EnvPool.

For every task and every number of environments N, the contenders below each build N copies of
the task, reset them with seed 0 and are then stepped with the same pre-drawn uniform random
actions (16 batches of N actions, cycled), episodes ending and auto-resetting as the task says
(so the resets of quickly falling robots such as Hopper under random actions are part of the
cost, as in training). One measurement steps a contender until BUDGET seconds have passed (at
least one vector step) and reports env steps per second = N * vector steps / elapsed time.
The contenders of one (task, N) are measured in alternating rounds (the order rotates every
round) and the median of ROUNDS rounds is kept, so that load from other processes on the
machine hits them alike.

Contenders (whichever import):

* ``phalanx[T]``: ``phalanx.make_vec(task, num_envs=N, num_threads=T)`` (its C task kernels on
  phalanx's batch; default ``copy=True``), T = 1 (``num_threads=0``: the calling thread, no
  pool) and 2 (a pool of two threads);
* ``gym-sync``: ``gymnasium.make_vec(task, N, vectorization_mode="sync")``, Gymnasium's
  SyncVectorEnv over its own MuJoCo envs (one core), at every N;
* ``gym-async``: the same with ``vectorization_mode="async"`` (one worker process per env), up
  to N = 8 (``--async-max``);
* ``envpool[T]``: ``envpool.make_gymnasium(id, num_envs=N, batch_size=N, num_threads=T)`` where
  envpool imports. EnvPool 1.2.5 has no v5 MuJoCo tasks: it is run on its v4 ids (``Ant-v4``
  for ``Ant-v5``, ...), whose models and rewards are Gymnasium v4's (e.g. Ant-v4's observation
  leaves out the contact forces that Ant-v5's includes), so the comparison is of similar, not
  identical, work.

Printed: one JSON line per (task, N) with the steps/s of every contender, then Markdown tables
of steps/s and of the ratios phalanx / Gymnasium (``phalanx[1]`` against gym-sync at one core
each; ``phalanx[2]`` against the best of gym-sync and gym-async) and phalanx / EnvPool at equal
threads. ``--md FILE`` writes the tables to FILE too.

Usage: bench_tasks.py [--quick] [--tasks Ant-v5,...] [--sizes 1,4,...] [--threads 1,2]
                      [--budget 0.5] [--rounds 3] [--async-max 8] [--md FILE]
Default: the eleven tasks at N = 1, 4, 16, 64, 256, 1024, 4096. --quick: HalfCheetah, Hopper,
Ant and Humanoid at N = 1, 16, 256, 1024. Building Gymnasium's envs dominates the run time at
large N (about 10-20 ms and 1 MB per env); ``--gym-max N`` skips gym-sync above N. A contender
whose envs would not fit in the memory left (from its resident bytes per env at a smaller N) is
left out with a note on stderr. ``--tables-from LOG ...`` prints the tables of saved JSON lines.
"""

import argparse
import json
import statistics
import sys
import time

import numpy as np

TASKS = [
    "Ant-v5", "HalfCheetah-v5", "Hopper-v5", "Walker2d-v5", "Humanoid-v5", "HumanoidStandup-v5",
    "Swimmer-v5", "Reacher-v5", "Pusher-v5", "InvertedPendulum-v5", "InvertedDoublePendulum-v5",
]
SIZES = [1, 4, 16, 64, 256, 1024, 4096]
QUICK_TASKS = ["HalfCheetah-v5", "Hopper-v5", "Ant-v5", "Humanoid-v5"]
QUICK_SIZES = [1, 16, 256, 1024]
NACTIONS = 16


def envpool_id(task):
    return task.replace("-v5", "-v4")


class Contender:
    """One vector env and the pre-drawn actions it is stepped with."""

    def __init__(self, name, env, num_envs, dtype=np.float32, seeded=True):
        self.name = name
        self.env = env
        space = getattr(env, "single_action_space", None) or env.action_space
        low, high = space.low, space.high
        rng = np.random.default_rng(0)
        self.actions = [rng.uniform(low, high, (num_envs,) + low.shape).astype(dtype)
                        for _ in range(NACTIONS)]
        self.num_envs = num_envs
        # EnvPool takes its seed at construction and warns on reset(seed=...)
        env.reset(seed=0) if seeded else env.reset()
        self.k = 0
        self.step()  # warm-up

    def step(self):
        self.env.step(self.actions[self.k % NACTIONS])
        self.k += 1

    def measure(self, budget):
        n = 0
        t0 = time.perf_counter()
        while True:
            self.step()
            n += 1
            elapsed = time.perf_counter() - t0
            if elapsed >= budget:
                return self.num_envs * n / elapsed

    def close(self):
        self.env.close()


def contenders(task, num_envs, args):
    """Yield (name, factory) of every contender that runs at this size."""
    out = []
    try:
        import phalanx

        if hasattr(phalanx, "make_vec"):
            for t in args.threads:
                # one thread is the caller's (num_threads=0: no pool); T > 1 is a pool of T
                out.append((f"phalanx[{t}]", lambda t=t: Contender(
                    f"phalanx[{t}]", phalanx.make_vec(task, num_envs=num_envs,
                                                      num_threads=t if t > 1 else 0, seed=0),
                    num_envs)))
    except ImportError:
        pass
    import gymnasium

    if args.gym_max is None or num_envs <= args.gym_max:
        out.append(("gym-sync", lambda: Contender("gym-sync", gymnasium.make_vec(
            task, num_envs=num_envs, vectorization_mode="sync"), num_envs)))
    if num_envs <= args.async_max:
        # workers from a fork server started while this process is small: forking the
        # benchmark itself fails (ENOMEM) once it has held thousands of envs
        out.append(("gym-async", lambda: Contender("gym-async", gymnasium.make_vec(
            task, num_envs=num_envs, vectorization_mode="async",
            vector_kwargs={"context": "forkserver"}), num_envs)))
    try:
        import envpool

        for t in args.threads:
            out.append((f"envpool[{t}]", lambda t=t: Contender(
                f"envpool[{t}]", envpool.make_gymnasium(
                    envpool_id(task), num_envs=num_envs, batch_size=num_envs, num_threads=t,
                    seed=0), num_envs, np.float64, seeded=False)))
    except ImportError as e:
        if not _NOTED:
            print(f"# EnvPool left out: it does not import ({e})", file=sys.stderr)
            _NOTED.append(True)
    return out


_NOTED = []
_MEMAVAIL_FLOOR = 4 << 30  # keep 4 GiB free (the machine may be shared)


def _meminfo(key):
    """A /proc/meminfo or /proc/self/status entry in bytes (0 where unavailable)."""
    path = "/proc/meminfo" if key == "MemAvailable" else "/proc/self/status"
    try:
        with open(path) as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


# (task, contender) -> largest resident bytes per env seen at N >= 16, to skip a contender whose
# envs would not fit in the memory left (the contenders of one size are alive together)
_PER_ENV = {}


def bench(task, num_envs, args):
    built, build_s = [], {}
    for name, factory in contenders(task, num_envs, args):
        need = _PER_ENV.get((task, name), 0) * num_envs
        avail = _MEMAVAIL_FLOOR and _meminfo("MemAvailable")
        if need and avail and need > avail - _MEMAVAIL_FLOOR:
            print(f"# {task} N={num_envs}: {name} left out: about {need / 2**30:.1f} GiB needed, "
                  f"{avail / 2**30:.1f} GiB available", file=sys.stderr)
            continue
        rss0 = _meminfo("VmRSS")
        t0 = time.perf_counter()
        try:
            built.append(factory())
        except Exception as e:  # a contender that cannot run this task is reported, not fatal
            print(f"# {task} N={num_envs}: {name} unavailable: {type(e).__name__}: {e}",
                  file=sys.stderr)
            continue
        build_s[name] = time.perf_counter() - t0
        if num_envs >= 16:
            per_env = max(_meminfo("VmRSS") - rss0, 0) / num_envs
            _PER_ENV[(task, name)] = max(_PER_ENV.get((task, name), 0), per_env)
    rates = {c.name: [] for c in built}
    for r in range(args.rounds):
        order = built[r % len(built):] + built[:r % len(built)] if built else []
        for c in order:
            rates[c.name].append(c.measure(args.budget))
    for c in built:
        c.close()
    med = {name: statistics.median(v) for name, v in rates.items()}
    return {"task": task, "num_envs": num_envs, "steps_per_s": med,
            "build_s": {k: round(v, 3) for k, v in build_s.items()}}


def ratios(row, threads):
    sps = row["steps_per_s"]
    out = {}
    gym_best = max([sps[k] for k in ("gym-sync", "gym-async") if k in sps], default=None)
    for t in threads:
        ph = sps.get(f"phalanx[{t}]")
        if ph is None:
            continue
        # equal cores: one thread against the single-process SyncVectorEnv; more threads against
        # the best Gymnasium vector env (async uses one process per env)
        ref = sps.get("gym-sync") if t == 1 else gym_best
        if ref:
            out[f"phalanx[{t}]/gym"] = ph / ref
        ep = sps.get(f"envpool[{t}]")
        if ep:
            out[f"phalanx[{t}]/envpool[{t}]"] = ph / ep
    return out


def fmt(x):
    if x >= 1e6:
        return f"{x / 1e6:.2f}M"
    if x >= 1e3:
        return f"{x / 1e3:.1f}k"
    return f"{x:.0f}"


def tables(rows, threads):
    names = []
    for row in rows:
        for k in row["steps_per_s"]:
            if k not in names:
                names.append(k)
    lines = ["### Env steps per second (median)", "",
             "| task | N | " + " | ".join(names) + " |",
             "|---|---:|" + "---:|" * len(names)]
    for row in rows:
        sps = row["steps_per_s"]
        lines.append(f"| {row['task']} | {row['num_envs']} | "
                     + " | ".join(fmt(sps[k]) if k in sps else "-" for k in names) + " |")
    rnames = []
    for row in rows:
        for k in ratios(row, threads):
            if k not in rnames:
                rnames.append(k)
    if not rnames:
        return "\n".join(lines) + "\n"
    lines += ["", "### Ratios", "",
              "| task | N | " + " | ".join(rnames) + " |",
              "|---|---:|" + "---:|" * len(rnames)]
    for row in rows:
        rt = ratios(row, threads)
        lines.append(f"| {row['task']} | {row['num_envs']} | "
                     + " | ".join(f"{rt[k]:.2f}" if k in rt else "-" for k in rnames) + " |")
    # the goals: >= 10x Gymnasium's best vector env, >= 2x EnvPool, at equal cores
    lines += ["", "### Goals", "", "| ratio | goal | rows meeting it | median | min | max |",
              "|---|---:|---:|---:|---:|---:|"]
    for k in rnames:
        vals = [ratios(row, threads)[k] for row in rows if k in ratios(row, threads)]
        goal = 2.0 if "envpool" in k else 10.0
        lines.append(f"| {k} | {goal:g} | {sum(v >= goal for v in vals)} / {len(vals)} | "
                     f"{statistics.median(vals):.2f} | {min(vals):.2f} | {max(vals):.2f} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="fewer tasks and sizes")
    p.add_argument("--tasks", help="comma-separated task ids (default: all eleven)")
    p.add_argument("--sizes", help="comma-separated numbers of envs")
    p.add_argument("--threads", default="1,2", help="phalanx and EnvPool thread counts")
    p.add_argument("--budget", type=float, default=0.5, help="seconds per measurement")
    p.add_argument("--rounds", type=int, default=3, help="alternating rounds (median kept)")
    p.add_argument("--async-max", type=int, default=8, help="largest N for gym-async")
    p.add_argument("--gym-max", type=int, default=None, help="largest N for gym-sync")
    p.add_argument("--md", help="also write the Markdown tables to this file")
    p.add_argument("--tables-from", nargs="+", metavar="LOG",
                   help="only print the tables of the JSON lines of earlier runs (in order)")
    args = p.parse_args(argv)
    args.threads = [int(t) for t in args.threads.split(",")]
    if args.tables_from:
        rows = []
        for path in args.tables_from:
            with open(path) as f:
                rows += [json.loads(line) for line in f if line.startswith("{")]
        text = tables(rows, args.threads)
        print(text)
        if args.md:
            with open(args.md, "w") as f:
                f.write(text)
        return
    tasks = args.tasks.split(",") if args.tasks else (QUICK_TASKS if args.quick else TASKS)
    sizes = ([int(s) for s in args.sizes.split(",")] if args.sizes
             else (QUICK_SIZES if args.quick else SIZES))
    bad = [t for t in tasks if t not in TASKS]
    if bad:
        p.error(f"unknown task(s) {bad}; expected some of {TASKS}")

    rows = []
    for task in tasks:
        for n in sizes:
            row = bench(task, n, args)
            row["ratios"] = ratios(row, args.threads)
            print(json.dumps(row), flush=True)
            rows.append(row)
    text = tables(rows, args.threads)
    print(text)
    if args.md:
        with open(args.md, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
