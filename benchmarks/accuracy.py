"""How right and how repeatable are the estimates? measurefirst side by side with the tools users
would otherwise pick: timeit (autorange, then repeat, min), torch.utils.benchmark's
blocked_autorange and adaptive_autorange.

    python benchmarks/accuracy.py            # full run, a few minutes on 2 cores
    python benchmarks/accuracy.py --quick    # fewer repetitions

It prints one table:
  (a) relative error on busy-waits of known duration (2 us, 20 us, 200 us, 2 ms). The true
      per-call time also holds the call's own overhead (a fraction of a us), so at 2 us every tool
      reads a few % high: compare the tools with each other there.
  (b) run-to-run coefficient of variation over independent estimates of a 256x256 matmul and of a
      1-element torch.add;
  (c) wall seconds per estimate;
  (d) (a) and (b) again while other processes keep every core busy, with each estimate's shift
      from the quiet one.
torch runs on one thread. This is a script, not a test: the machine's noise decides the figures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from typing import Callable

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))
import measurefirst  # noqa: E402
from workloads import (Background, add_fn, burn, busy_wait, est_adaptive, est_blocked,  # noqa: E402
                       est_timeit, matmul_fn)  # (beside this script)

Estimator = Callable[[Callable[[], object]], float]


def est_measurefirst(fn: Callable[[], object]) -> float:
    return measurefirst.benchmark(fn, device="cpu").median


TOOLS: dict[str, Estimator] = {
    "measurefirst": est_measurefirst,
    "timeit (min)": est_timeit,
    "tub blocked_autorange": est_blocked,
    "tub adaptive_autorange": est_adaptive,
}


def run_condition(reps_err: int, reps_cv: int, durations_ns: list[int]) -> dict:
    """Every tool on every workload, interleaving tools within each repetition."""
    out: dict = {"err": {}, "cv": {}, "sec": {}}
    for d in durations_ns:
        fn = busy_wait(d)
        per_tool: dict[str, list[float]] = {t: [] for t in TOOLS}
        for _ in range(reps_err):
            for name, est in TOOLS.items():
                per_tool[name].append(est(fn))
        for name, vals in per_tool.items():
            out["err"][(name, d)] = (statistics.median(vals) - d * 1e-9) / (d * 1e-9)
    for wname, make in (("matmul 256", matmul_fn), ("add 1-elem", add_fn)):
        per_tool = {t: [] for t in TOOLS}
        secs: dict[str, list[float]] = {t: [] for t in TOOLS}
        for _ in range(reps_cv):
            fn = make()
            for name, est in TOOLS.items():
                t0 = time.perf_counter()
                per_tool[name].append(est(fn))
                secs[name].append(time.perf_counter() - t0)
        for name in TOOLS:
            vals = per_tool[name]
            out["cv"][(name, wname)] = (statistics.mean(vals), statistics.stdev(vals) / statistics.mean(vals))
            out["sec"][(name, wname)] = statistics.mean(secs[name])
    return out


def fmt_pct(x: float) -> str:
    return f"{x * 100:+.2f}%"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="3 estimates per workload instead of 8")
    ap.add_argument("--no-load", action="store_true", help="skip part (d)")
    args = ap.parse_args()
    torch.set_num_threads(1)
    reps_err, reps_cv = (1, 3) if args.quick else (3, 8)
    durations = [2_000, 20_000, 200_000, 2_000_000]
    cores = os.cpu_count() or 2
    print(f"torch {torch.__version__}, 1 thread; {cores} cores; {reps_err} estimate(s) per duration, "
          f"{reps_cv} per CV workload", flush=True)
    quiet = run_condition(reps_err, reps_cv, durations)
    loaded = None
    if not args.no_load:
        with Background(cores, burn, settle=0.5):
            loaded = run_condition(reps_err, reps_cv, durations)

    cols = ["tool"] + [f"err {d // 1000 if d >= 1000 else d}{'us' if d < 1_000_000 else ''}" if d < 1_000_000
                       else f"err {d // 1_000_000}ms" for d in durations]
    cols += ["CV matmul", "CV add", "s/est matmul", "s/est add"]
    if loaded:
        cols += [f"busy err {d // 1000}us" if d < 1_000_000 else f"busy err {d // 1_000_000}ms" for d in durations]
        cols += ["busy CV matmul", "busy CV add", "busy shift matmul", "busy shift add"]
    rows = []
    for name in TOOLS:
        row = [name] + [fmt_pct(quiet["err"][(name, d)]) for d in durations]
        row += [f"{quiet['cv'][(name, w)][1] * 100:.2f}%" for w in ("matmul 256", "add 1-elem")]
        row += [f"{quiet['sec'][(name, w)]:.2f}" for w in ("matmul 256", "add 1-elem")]
        if loaded:
            row += [fmt_pct(loaded["err"][(name, d)]) for d in durations]
            row += [f"{loaded['cv'][(name, w)][1] * 100:.2f}%" for w in ("matmul 256", "add 1-elem")]
            row += [fmt_pct(loaded["cv"][(name, w)][0] / quiet["cv"][(name, w)][0] - 1)
                    for w in ("matmul 256", "add 1-elem")]
        rows.append(row)
    # transpose: one line per metric, one column per tool, so the table stays readable
    names = [r[0] for r in rows]
    width = max(len(c) for c in cols) + 2
    colw = max(max(len(n) for n in names), 10) + 2
    print()
    print("metric".ljust(width) + "".join(n.rjust(colw) for n in names))
    for i, c in enumerate(cols[1:], start=1):
        print(c.ljust(width) + "".join(r[i].rjust(colw) for r in rows))
    for w in ("matmul 256", "add 1-elem"):
        print(f"median estimate, {w} (quiet): " + ", ".join(
            f"{n} {quiet['cv'][(n, w)][0] * 1e6:.3f} us" for n in names))


if __name__ == "__main__":
    main()
