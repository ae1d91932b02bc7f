"""Can a method tell two nearly equal functions apart while the machine's load drifts?

    python benchmarks/discrimination.py               # 10 trials per pair (about 15-25 minutes)
    python benchmarks/discrimination.py --trials 3    # a quicker look

Pairs 0.5%, 1% and 2% apart on two workloads: a busy-wait (100 us vs 100.5 / 101 / 102 us) and a
memory-bound tensor copy (n vs n*(1+delta) float32 elements, 32 MB, larger than the caches). While
they run, background processes (one per core) alternate busy and idle every --period seconds
(default 0.3): drift, the case interleaving exists for.

Methods: measurefirst.compare (interleaved, default settings); timeit (autorange, then min of 5
repeats; A then B); torch.utils.benchmark blocked_autorange and adaptive_autorange (A then B).
For each method and pair: how often the pair is ordered correctly, how far the estimated difference
is from the true one (median and worst |estimated delta / true delta|), wall seconds per trial; for
measurefirst also how often its verdict is right, "no difference detected", or wrong, and (busy-wait)
how often the speed-up CI contains the true ratio. torch runs on one thread.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import timeit
from typing import Callable

import torch
import torch.utils.benchmark as tub

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))
import measurefirst  # noqa: E402
from workloads import Background, busy_wait, drift  # noqa: E402  (beside this script)

BUSY_NS = 100_000
COPY_ELEMS = 8 * 1024 * 1024  # 32 MB per float32 buffer


def copiers(n: int, delta: float) -> tuple[Callable[[], object], Callable[[], object]]:
    """Copy n and n*(1+delta) elements between the *same* two buffers, so both candidates use the same
    pages (separate allocations can differ by more than delta in page placement alone)."""
    m = int(n * (1 + delta))
    src = torch.randn(m)
    dst = torch.empty(m)
    src_a, dst_a = src[:n], dst[:n]
    return (lambda: dst_a.copy_(src_a)), (lambda: dst.copy_(src))


def seq_timeit(a: Callable[[], object], b: Callable[[], object]) -> float:
    def one(fn: Callable[[], object]) -> float:
        t = timeit.Timer(fn)
        n, _ = t.autorange()
        return min(t.repeat(5, n)) / n

    return one(b) / one(a)


def seq_blocked(a: Callable[[], object], b: Callable[[], object]) -> float:
    def one(fn: Callable[[], object]) -> float:
        return tub.Timer("fn()", globals={"fn": fn}).blocked_autorange(min_run_time=0.2).median

    return one(b) / one(a)


def seq_adaptive(a: Callable[[], object], b: Callable[[], object]) -> float:
    def one(fn: Callable[[], object]) -> float:
        return tub.Timer("fn()", globals={"fn": fn}).adaptive_autorange().median

    return one(b) / one(a)


def mf_compare(a: Callable[[], object], b: Callable[[], object]) -> tuple[float, measurefirst.compare.Verdict]:
    c = measurefirst.compare({"a": a, "b": b}, device="cpu")
    v = c.verdict("b")
    return v.ratio, v


METHODS = ["measurefirst compare", "timeit (min), A then B", "tub blocked, A then B", "tub adaptive, A then B"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trials", type=int, default=10)
    ap.add_argument("--period", type=float, default=0.3, help="seconds busy, then seconds idle (default 0.3)")
    ap.add_argument("--deltas", default="0.005,0.01,0.02")
    ap.add_argument("--workloads", default="busy,copy")
    ap.add_argument("--no-drift", action="store_true")
    args = ap.parse_args()
    torch.set_num_threads(1)
    deltas = [float(x) for x in args.deltas.split(",")]
    cores = os.cpu_count() or 2
    print(f"torch {torch.__version__}, 1 thread, {cores} cores; drift: "
          + ("none" if args.no_drift else f"{cores} processes busy/idle every {args.period} s")
          + f"; {args.trials} trials per pair", flush=True)
    rows = []
    with Background(0 if args.no_drift else cores, drift, args.period):
        for workload in args.workloads.split(","):
            for delta in deltas:
                if workload == "busy":
                    a, b = busy_wait(BUSY_NS), busy_wait(int(round(BUSY_NS * (1 + delta))))
                    true_ratio = (BUSY_NS * (1 + delta) + 300) / (BUSY_NS + 300)  # ~0.3 us of call overhead
                else:
                    a, b = copiers(COPY_ELEMS, delta)
                    true_ratio = 1 + delta
                stats_: dict[str, dict] = {m: {"ok": 0, "rel": [], "sec": []} for m in METHODS}
                verdicts = {"right": 0, "no difference": 0, "wrong": 0, "ci_has_truth": 0}
                for trial in range(args.trials):
                    for method in METHODS:
                        t0 = time.perf_counter()
                        if method == "measurefirst compare":
                            ratio, v = mf_compare(a, b)
                            if v.verdict == "slower":
                                verdicts["right"] += 1
                            elif v.verdict == "faster":
                                verdicts["wrong"] += 1
                            else:
                                verdicts["no difference"] += 1
                            if v.ci_low is not None and v.ci_low <= true_ratio <= v.ci_high:
                                verdicts["ci_has_truth"] += 1
                        elif method.startswith("timeit"):
                            ratio = seq_timeit(a, b)
                        elif "blocked" in method:
                            ratio = seq_blocked(a, b)
                        else:
                            ratio = seq_adaptive(a, b)
                        st = stats_[method]
                        st["sec"].append(time.perf_counter() - t0)
                        st["ok"] += ratio > 1
                        st["rel"].append((ratio - 1) / (true_ratio - 1))
                    print(f"  {workload} {delta:.1%} trial {trial + 1}/{args.trials} done", file=sys.stderr, flush=True)
                for method in METHODS:
                    st = stats_[method]
                    rel = st["rel"]
                    worst = max(rel, key=lambda r: abs(r - 1))
                    extra = ""
                    if method == "measurefirst compare":
                        extra = (f"verdict right {verdicts['right']}, no-diff {verdicts['no difference']}, "
                                 f"wrong {verdicts['wrong']}")
                        if workload == "busy":
                            extra += f"; CI holds truth {verdicts['ci_has_truth']}/{args.trials}"
                    rows.append((workload, f"{delta:.1%}", method, f"{st['ok']}/{args.trials}",
                                 f"{statistics.median(rel):.2f}", f"{worst:.2f}", f"{statistics.mean(st['sec']):.2f}",
                                 extra))
    header = ("workload", "delta", "method", "ordered right", "est/true (median)", "est/true (worst)",
              "s/trial", "measurefirst verdicts")
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    print()
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    for r in rows:
        print("  ".join(str(x).ljust(w) for x, w in zip(r, widths)))


if __name__ == "__main__":
    main()
