"""Can a method tell two nearly equal functions apart while the machine's load drifts?

    python benchmarks/discrimination.py               # 20 trials per pair and load period (hours)
    python benchmarks/discrimination.py --workloads copy --deltas 0.01,0.02 --methods measurefirst
                                                      # the memory-bound pairs, compare alone (minutes)
    python benchmarks/discrimination.py --workloads copy-apart,gather --deltas 0.02 --methods measurefirst
                                                      # copies of buffers of their own, random gathers
    python benchmarks/discrimination.py --trials 3    # a quicker look
    python benchmarks/discrimination.py --quick       # a smoke run (seconds): 1 trial, 2% pairs, 1 period
    python benchmarks/discrimination.py --log         # also write the output to docs/discrimination-DATE.txt

Pairs 0.5%, 1% and 2% apart on two workloads: a busy-wait (100 us vs 100.5 / 101 / 102 us) and a
memory-bound tensor copy (n vs n*(1+delta) float32 elements, 32 MB, larger than the caches: 32 MB
vs 32.6 MB at 2%). The busy-wait's true ratio is known. The copy's is measured on the very same
tensors with the load paused, around every trial: the background processes are stopped (SIGSTOP),
the two copies are timed interleaved 300 times (A B, B A, ...), the load continues (SIGCONT); the
same again after the trial; the trial's truth is the median of those 600 paired ratios. (A pair's
ratio depends on where its buffers landed, not only on its sizes, so the size ratio is not the
truth; and it moves over minutes even with the load paused, 0.99 to 1.05 for one pair here, so one
truth for all trials would not do.) ``copy-apart``: the same copy with buffers of its own per candidate,
as two implementations would have (their ratio is where their pages landed, often far from the size
ratio); ``gather``: n/8 and n/8 * (1+delta) random elements of a 32 MB table (``index_select``, the
same indices and output buffer), a latency-bound random read; truths measured as the copy's.
Background processes
(one per core) alternate busy and idle every period (default 0.3 s and 0.7 s): drift, the case
interleaving exists for.

Methods: measurefirst.compare (interleaved, default settings); timeit (autorange, then min of 5
repeats; A then B); torch.utils.benchmark blocked_autorange and adaptive_autorange (A then B).
For each method and pair: how often the pair is ordered correctly, how far the estimated difference
is from the true one (median and worst |estimated delta / true delta|), wall seconds per trial; for
measurefirst also its verdicts (right direction, wrong direction, undecided, "no difference") and
how often its CI contains the true ratio (an undecided verdict without a CI counts as not
containing it), and how often the CI meets the span between the truth measured just before and
just after the trial (how far the quiet ratio itself moved meanwhile). torch runs on one thread.
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
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measurefirst  # noqa: E402
from workloads import Background, Log, busy_wait, drift, est_adaptive, est_blocked, est_timeit, table  # noqa: E402

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


def separate_copiers(n: int, delta: float) -> tuple[Callable[[], object], Callable[[], object]]:
    """Copy n and n*(1+delta) elements, each between buffers of its own (as two implementations would):
    their pages land apart, so the pair's ratio is rarely the size ratio (the quiet truth says what it is)."""
    m = int(n * (1 + delta))
    src_a, dst_a, src_b, dst_b = torch.randn(n), torch.empty(n), torch.randn(m), torch.empty(m)
    return (lambda: dst_a.copy_(src_a)), (lambda: dst_b.copy_(src_b))


def gatherers(n: int, delta: float) -> tuple[Callable[[], object], Callable[[], object]]:
    """Gather n/8 and n/8*(1+delta) random elements of one table of n float32 elements (a random read
    through memory, latency-bound: an embedding lookup's pattern), the same indices and output buffer."""
    k = n // 8
    m = int(k * (1 + delta))
    table = torch.randn(n)
    idx = torch.randint(0, n, (m,))
    out = torch.empty(m)
    idx_a, out_a = idx[:k], out[:k]
    return (lambda: torch.index_select(table, 0, idx_a, out=out_a)), (lambda: torch.index_select(table, 0, idx, out=out))


MAKERS = {"copy": copiers, "copy-apart": separate_copiers, "gather": gatherers}


TRUTH_PAIRS = 300


def quiet_ratios(a: Callable[[], object], b: Callable[[], object], load: Background,
                 pairs: int = TRUTH_PAIRS) -> list[float]:
    """The pair's time ratios on the quiet machine: the load stopped, ``pairs`` interleaved pairs of
    calls (A B, then B A, ...), each pair's ratio b / a (the truth is their median)."""
    clock = time.perf_counter_ns
    load.pause()
    try:
        for _ in range(5):  # warm
            a(), b()
        ratios = []
        for i in range(pairs):
            t = {}
            for name, fn in ((("a", a), ("b", b)) if i % 2 == 0 else (("b", b), ("a", a))):
                t0 = clock()
                fn()
                t[name] = clock() - t0
            ratios.append(t["b"] / t["a"])
    finally:
        load.resume()
    return ratios


def quiet_truth(a: Callable[[], object], b: Callable[[], object], load: Background,
                pairs: int = TRUTH_PAIRS) -> float:
    """The median of :func:`quiet_ratios`."""
    return statistics.median(quiet_ratios(a, b, load, pairs))


def seq(est: Callable[[Callable[[], object]], float]) -> Callable[[Callable[[], object], Callable[[], object]], float]:
    """A then B with one of the other tools: the ratio of their estimates."""
    return lambda a, b: est(b) / est(a)


def mf_compare(a: Callable[[], object], b: Callable[[], object], **opts: object) -> measurefirst.Verdict:
    return measurefirst.compare({"a": a, "b": b}, device="cpu", **opts).verdict("b")


METHODS: dict[str, Callable[[Callable[[], object], Callable[[], object]], float]] = {
    "timeit (min), A then B": seq(est_timeit),
    "tub blocked, A then B": seq(est_blocked),
    "tub adaptive, A then B": seq(est_adaptive),
}
MF = "measurefirst compare"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--periods", default="0.3,0.7", help="load periods: seconds busy, then as long idle (default 0.3,0.7)")
    ap.add_argument("--deltas", default="0.005,0.01,0.02")
    ap.add_argument("--workloads", default="busy,copy",
                    help="busy, copy (one pair of buffers), copy-apart (buffers of its own each), gather")
    ap.add_argument("--methods", default="all", help="'all', or 'measurefirst' for measurefirst.compare alone")
    ap.add_argument("--no-drift", action="store_true", help="no background load")
    ap.add_argument("--quick", action="store_true", help="a smoke run: 1 trial, 2%% pairs, one 0.3 s period, short budgets")
    ap.add_argument("--log", action="store_true", help="also write the output to docs/discrimination-DATE.txt")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    trials, periods = args.trials, [float(x) for x in args.periods.split(",")]
    deltas = [float(x) for x in args.deltas.split(",")]
    methods = dict(METHODS) if args.methods == "all" else {}
    mf_opts: dict = {}
    copy_elems = COPY_ELEMS
    if args.quick:
        trials, periods, deltas = 1, [0.3], [0.02]
        methods = {"tub blocked, A then B": seq(lambda fn: est_blocked(fn, 0.02))}
        mf_opts = {"budget": 1.0, "min_time": 0.3}
        copy_elems = COPY_ELEMS // 8
    cores = os.cpu_count() or 2
    log = Log()
    log(f"torch {torch.__version__}, 1 thread, {cores} cores; drift: "
        + ("none" if args.no_drift else f"{cores} processes busy/idle, periods {', '.join(f'{p:g} s' for p in periods)}")
        + f"; {trials} trials per pair and period" + (" (quick smoke run: short budgets)" if args.quick else ""))
    pairs = []
    for workload in args.workloads.split(","):
        if workload != "busy" and workload not in MAKERS:
            ap.error(f"unknown workload {workload!r}; choose busy, {', '.join(MAKERS)}")
        for delta in deltas:
            if workload == "busy":
                a, b = busy_wait(BUSY_NS), busy_wait(int(round(BUSY_NS * (1 + delta))))
            else:
                a, b = MAKERS[workload](copy_elems, delta)
            pairs.append((workload, delta, a, b))
    rows = []
    for period in periods:
        with Background(0 if args.no_drift else cores, drift, period, settle=0.5) as load:
            for workload, delta, a, b in pairs:
                n_truth = 30 if args.quick else TRUTH_PAIRS
                st = {m: {"ok": 0, "rel": [], "sec": []} for m in [MF, *methods]}
                verdicts = {"right": 0, "wrong": 0, "undecided": 0, "no difference": 0, "ci": 0, "span": 0}
                truths = []
                for trial in range(trials):
                    if workload == "busy":
                        truth = (BUSY_NS * (1 + delta) + 300) / (BUSY_NS + 300)  # ~0.3 us of call overhead
                        before = []
                    else:
                        # the quiet ratio moves over minutes (seen: 0.99 to 1.05 for one pair), so
                        # each trial gets its own truth: 300 pairs just before and 300 just after
                        before = quiet_ratios(a, b, load, n_truth)
                        truth = statistics.median(before)
                    got: dict[str, float] = {}
                    for method in st:
                        t0 = time.perf_counter()
                        if method == MF:
                            v = mf_compare(a, b, **mf_opts)
                            got[method] = v.ratio
                        else:
                            got[method] = methods[method](a, b)
                        st[method]["sec"].append(time.perf_counter() - t0)
                    span = (truth, truth)
                    if workload != "busy":
                        after = quiet_ratios(a, b, load, n_truth)
                        truth = statistics.median(before + after)
                        span = (min(statistics.median(before), statistics.median(after)),
                                max(statistics.median(before), statistics.median(after)))
                    truths.append(truth)
                    verdicts["span"] += v.ratio_ci is not None and v.ratio_ci[0] <= span[1] and span[0] <= v.ratio_ci[1]
                    if v.verdict in ("faster", "slower"):
                        verdicts["right" if (v.verdict == "slower") == (truth > 1) else "wrong"] += 1
                    else:
                        verdicts[v.verdict] = verdicts.get(v.verdict, 0) + 1
                    verdicts["ci"] += v.ratio_ci is not None and v.ratio_ci[0] <= truth <= v.ratio_ci[1]
                    for method, ratio in got.items():
                        st[method]["ok"] += (ratio > 1) == (truth > 1)
                        st[method]["rel"].append((ratio - 1) / (truth - 1))
                    print(f"  period {period:g} s, {workload} {delta:.1%}: trial {trial + 1}/{trials}: truth {truth:.4f}, "
                          f"compare {v.verdict} {v.ratio:.4f} CI {v.ratio_ci}", file=sys.stderr, flush=True)
                how = "known" if workload == "busy" else f"per trial: median of {n_truth} quiet pairs before and after"
                log(f"truth, period {period:g} s, {workload} {delta:.1%}: {min(truths):.4f} to {max(truths):.4f} ({how})")
                truth_col = f"{min(truths):.4f}" if workload == "busy" else f"{min(truths):.3f}-{max(truths):.3f}"
                for method, s in st.items():
                    worst = max(s["rel"], key=lambda r: abs(r - 1))
                    extra = ["", "", "", "", "", ""]
                    if method == MF:
                        extra = [str(verdicts["right"]), str(verdicts["wrong"]), str(verdicts["undecided"]),
                                 str(verdicts["no difference"]), f"{verdicts['ci']}/{trials}",
                                 f"{verdicts['span']}/{trials}"]
                    rows.append([f"{period:g} s", workload, f"{delta:.1%}", truth_col, method, f"{s['ok']}/{trials}",
                                 f"{statistics.median(s['rel']):.2f}", f"{worst:.2f}",
                                 f"{statistics.mean(s['sec']):.2f}", *extra])
    log()
    table(log, ["period", "workload", "delta", "truth", "method", "ordered right", "est/true (median)",
                "est/true (worst)", "s/trial", "right", "wrong", "undecided", "no diff", "CI holds truth",
                "CI meets before-after"], rows)
    if args.log:
        print(f"log written to {log.save('discrimination')}", file=sys.stderr)


if __name__ == "__main__":
    main()
