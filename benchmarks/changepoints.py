"""Change points over a history: ``measurefirst history NAME --changes`` beside the pairwise steps of
``measurefirst history`` and beside Apache Otava (E-divisive means with a t-test, used at MongoDB and
DataStax) on the same synthetic series (issue 36).

    pip install --no-deps apache-otava     # the benchmark's only extra (numpy and scipy are enough for it)
    python benchmarks/changepoints.py                  # 100 series per case, 60 runs each (a few minutes)
    python benchmarks/changepoints.py --series 20      # quicker
    python benchmarks/changepoints.py --log            # also write docs/changepoints-DATE.txt

Every series is saved as real runs: pytest-benchmark files (median, quartiles, rounds, commit) imported
into a fresh SQLite store the way ``measurefirst runs import`` imports them, read back as the history
``measurefirst history`` reads (the store's columns, no sample), then judged three ways:

* **measurefirst** ``--changes``: :meth:`HistoryTable.changes` (segments, change points, drifts);
* **pairwise steps**: :meth:`HistoryTable.steps`, the runs ``history`` marks ▲/▼ against the run before;
* **Otava** ``compute_change_points`` with its defaults (window 50, p ≤ 0.001), on the same medians.

The cases: unchanged series at run-to-run spreads of 1, 2, 3 and 5%; steps of 2, 5 and 10% at spreads of
1, 2 and 5%, placed uniformly between run 10 and run N-10; a single outlier (1.3x or 0.7x) at 2%; slow
drifts of 0.1% and 0.2% a run at 2%. Each run's own precision (its interval from its own rounds) is
0.5% of its median. A step counts as found when a change point lies within ±2 runs of it; every other
change point is a false alert. F1 is over the step, unchanged and outlier cases together.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
from workloads import Log, table  # noqa: E402  (beside this script)

from measurefirst.results.history import load_history_table  # noqa: E402
from measurefirst.results.importers import from_pytest_benchmark  # noqa: E402
from measurefirst.results.store import Store  # noqa: E402

NEAR = 2  # runs: a change point this close to the true one finds it


def _file(i: int, median: float, own: float) -> dict:
    """A pytest-benchmark file of one run: its median with quartiles ``own`` apart, 50 rounds, a commit."""
    q = median * own
    stats = {"min": median - 4 * q, "max": median + 4 * q, "mean": median, "stddev": 1.48 * q, "rounds": 50,
             "median": median, "iqr": 2 * q, "q1": median - q, "q3": median + q, "iqr_outliers": 0,
             "stddev_outliers": 0, "outliers": "0;0", "ld15iqr": median - 3 * q, "hd15iqr": median + 3 * q,
             "ops": 1 / median, "total": 50 * median, "iterations": 1}
    return {"machine_info": {"node": "bench"}, "commit_info": {"id": f"{i:08d}" + "a" * 32, "dirty": False},
            "datetime": f"2026-{1 + i // 28 % 12:02d}-{1 + i % 28:02d}T00:00:00", "version": "4.0.0",
            "benchmarks": [{"name": "test_op", "fullname": "t.py::test_op", "group": None, "params": None,
                            "stats": stats}]}


def series(rng: random.Random, n: int, spread: float, *, step: float = 0.0, at: int | None = None,
           outlier: float | None = None, drift: float = 0.0) -> tuple[list[float], int | None, int | None]:
    """A series of medians (seconds), where its step is and where its outlier is (``None``: none)."""
    where = rng.randint(10, n - 10) if step else None
    bad = rng.randrange(n) if outlier else None
    out = []
    for i in range(n):
        v = 1e-3 * math.exp(rng.gauss(0.0, spread)) * (1 + drift) ** i
        if where is not None and i >= where:
            v *= 1 + step
        if i == bad and outlier:
            v *= outlier
        out.append(v)
    return out, where, bad


CASES = ([("unchanged", {"spread": s}) for s in (0.01, 0.02, 0.03, 0.05)]
         + [("step", {"spread": s, "step": d}) for s in (0.01, 0.02, 0.05) for d in (0.02, 0.05, 0.10)]
         + [("outlier", {"spread": 0.02, "outlier": o}) for o in (1.3, 0.7)]
         + [("drift", {"spread": 0.02, "drift": d}) for d in (0.001, 0.002)])


def judge(found: list[int], where: int | None) -> tuple[int, int, int | None]:
    """(true positives, false alerts, location error) of change points ``found`` for a step at ``where``."""
    if where is None:
        return 0, len(found), None
    near = [f for f in found if abs(f - where) <= NEAR]
    if not near:
        return 0, len(found), None
    best = min(near, key=lambda f: abs(f - where))
    return 1, len(found) - 1, abs(best - where)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--series", type=int, default=100, help="series per case (default 100)")
    ap.add_argument("--runs", type=int, default=60, help="runs per series (default 60)")
    ap.add_argument("--seed", type=int, default=36)
    ap.add_argument("--log", action="store_true", help="also write docs/changepoints-DATE.txt")
    args = ap.parse_args()
    try:
        from otava.analysis import compute_change_points
    except ImportError:
        compute_change_points = None
        print("Otava is not installed (pip install --no-deps apache-otava): its column stays empty")
    log = Log()
    rng = random.Random(args.seed)
    methods = ["measurefirst --changes", "pairwise steps", "Otava"]
    totals = {m: [0, 0, 0] for m in methods}  # TP, FP, FN over step/unchanged/outlier
    rows = []
    seconds = {m: 0.0 for m in methods}
    drift_rows = []
    with tempfile.TemporaryDirectory() as tmp, Store(os.path.join(tmp, "h.db")) as store:
        for case, kw in CASES:
            stats = {m: [0, 0, 0, []] for m in methods}  # TP, FP, series with a false alert, errors
            at_outlier = {m: 0 for m in methods}  # change points within NEAR runs of a single outlier
            drifts = {m: 0 for m in methods}
            for k in range(args.series):
                values, where, bad = series(rng, args.runs, kw["spread"], step=kw.get("step", 0.0),
                                            outlier=kw.get("outlier"), drift=kw.get("drift", 0.0))
                name = f"{case}-{k}-{kw}"
                ms = [from_pytest_benchmark(_file(i, v, 0.005))[0] for i, v in enumerate(values)]
                store.save_many(ms, names=[name] * len(ms))
                h = load_history_table(store, name)
                t = time.perf_counter()
                a = h.changes()
                seconds[methods[0]] += time.perf_counter() - t
                t = time.perf_counter()
                steps = h.steps()
                seconds[methods[1]] += time.perf_counter() - t
                found = {methods[0]: [c.index for c in a.changes], methods[1]: steps}
                drifts[methods[0]] += bool(a.drifts)
                if compute_change_points is not None:
                    t = time.perf_counter()
                    cps, _ = compute_change_points([r.point.value for r in h.runs], window_len=50, max_pvalue=0.001)
                    seconds[methods[2]] += time.perf_counter() - t
                    found[methods[2]] = [int(c.index) for c in cps]
                for m, f in found.items():
                    if bad is not None:  # a change point at the outlier (it, or the run after it, starts a segment)
                        at_outlier[m] += sum(1 for x in f if bad - NEAR <= x <= bad + 1 + NEAR)
                    tp, fp, err = judge(f, where)
                    st = stats[m]
                    st[0] += tp
                    st[1] += fp
                    st[2] += fp > 0
                    if err is not None:
                        st[3].append(err)
                    if case == "drift":
                        drifts[m] += 0 if m == methods[0] else bool(f)
                    elif case in ("step", "unchanged", "outlier"):
                        totals[m][0] += tp
                        totals[m][1] += fp
                        totals[m][2] += (where is not None) - tp
            label = case + " " + ", ".join(f"{k2} {v:g}" for k2, v in kw.items())
            for m in methods:
                if m == "Otava" and compute_change_points is None:
                    continue
                tp, fp, bad, errs = stats[m]
                if case == "drift":
                    what = (f"drift reported in {drifts[m]}/{args.series}" if m == methods[0] else
                            f"some change point in {drifts[m]}/{args.series}")
                    drift_rows.append([label, m, what, f"{fp} change point(s)"])
                    continue
                found_s = (f"{tp}/{args.series}" if case == "step" else
                           f"{at_outlier[m]} at the outlier" if case == "outlier" else "-")
                err = f"{sum(errs) / len(errs):.2f}" if errs else "-"
                rows.append([label, m, found_s, str(fp), f"{100 * bad / args.series:.0f}", err])
    log(f"$ python benchmarks/changepoints.py --series {args.series} --runs {args.runs} --seed {args.seed}")
    log(f"{args.series} series per case, {args.runs} runs each, saved as imported pytest-benchmark runs")
    table(log, ["case", "method", "step found (±2 runs) or at the outlier", "false alerts", "series with a false alert (%)",
                "mean location error (runs)"], rows)
    log("")
    table(log, ["case", "method", "seen as", "change points"], drift_rows)
    log("")
    summary = []
    for m in methods:
        if m == "Otava" and compute_change_points is None:
            continue
        tp, fp, fn = totals[m]
        precision = tp / (tp + fp) if tp + fp else 0.0
        recall = tp / (tp + fn) if tp + fn else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        summary.append([m, f"{precision:.3f}", f"{recall:.3f}", f"{f1:.3f}", f"{seconds[m]:.2f} s"])
    table(log, ["method", "precision", "recall", "F1", "time judging (all series)"], summary)
    if args.log:
        print("written:", log.save("changepoints"))


if __name__ == "__main__":
    main()
