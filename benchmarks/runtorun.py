"""Do independent runs agree, and does each run's interval say how far they can disagree?

    python benchmarks/runtorun.py                 # 10 runs per workload, every tool (about 15 minutes)
    python benchmarks/runtorun.py --reference     # also measurefirst with the experimental speed reference
    python benchmarks/runtorun.py --quick         # a smoke run: 2 runs of one workload, short budgets
    python benchmarks/runtorun.py --log           # also write the output to docs/runtorun-DATE.txt
    python benchmarks/runtorun.py --fresh         # each estimate in a new interpreter, as users re-run
    python benchmarks/runtorun.py --fresh --tools "measurefirst,measurefirst bench (CLI)" --workloads add,matmul
    python benchmarks/runtorun.py --fresh --repeats 2 --tools measurefirst   # the few-repetition interval
    python benchmarks/runtorun.py --fresh --load drifting --workloads matmul,copy32 --tools measurefirst

Workloads: a 256x256 matmul, a 1-element torch.add, busy-waits of 20 us and 200 us. For each
workload, --runs independent estimates per tool, the tools interleaved run by run (run 1 of every
tool, then run 2 of every tool, ...) so that they share the machine's states. torch runs on one thread.

Printed per workload and tool: the median estimate and the run-to-run CV of the estimates, seconds
per run; for measurefirst (default options) also how many runs' 95% CIs cover the consensus (the
median of the runs' medians), the median reported CI half-width, and how many runs met the precision
target. Other tools report no interval. With --reference, "measurefirst +reference" runs with
reference=True: its raw estimates, and the CV of its estimates normalized to the machine's fast
state, with whether the normalization lowered the spread. This is a script, not a test: the
machine's noise decides the figures.

--fresh: each estimate comes from a new interpreter (a user re-running), 10 per tool, for a 256x256
matmul, a 1-element add, a 20 us busy-wait and a 32 MB copy; tools: measurefirst (default options,
after the one-time `measurefirst selfcheck --noise` profile when --profile is given; without a profile,
point MEASUREFIRST_PROFILE at a missing file), `measurefirst bench` (the command line, its JSON: it
measures in fresh processes where the machine has no profile), timeit,
torch.utils.benchmark blocked_autorange, pytest-benchmark and pyperf (timeit --fast: its own worker
processes; mean ± std across them as its interval). Printed per workload and tool: the median of the
estimates, their CV, how many of the tool's intervals cover that median, the median relative
half-width and its ratio to 1.96 x CV (at most 3 keeps an interval useful), and seconds per estimate
(inside the interpreter, after imports; pyperf and the command line: the whole command). --tools picks
some of the tools. --load drifting runs two processes busy and idle in turns of 0.7 s, in step, for the whole
study (--load busy: two busy processes), as gate_against.py and discrimination.py do.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from dataclasses import dataclass, field
from typing import Callable

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measurefirst  # noqa: E402
from workloads import (  # noqa: E402  (beside this script)
    LOADS, Log, add_fn, busy_wait, est_blocked, est_pytest_benchmark, est_timeit, load, matmul_fn,
    pytest_benchmark_available, table)

WORKLOADS: dict[str, Callable[[], Callable[[], object]]] = {
    "matmul 256": matmul_fn,
    "add 1-elem": add_fn,
    "busy 20us": lambda: busy_wait(20_000),
    "busy 200us": lambda: busy_wait(200_000),
}
KEYS = {"matmul": "matmul 256", "add": "add 1-elem", "busy20": "busy 20us", "busy200": "busy 200us"}


@dataclass
class Runs:
    """One tool's runs on one workload."""

    estimates: list[float] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    cis: list[tuple[float, float] | None] = field(default_factory=list)
    half_widths: list[float] = field(default_factory=list)
    met: int = 0
    normalized: list[float] = field(default_factory=list)
    factors: list[float] = field(default_factory=list)


def cv(values: list[float]) -> float:
    return statistics.stdev(values) / statistics.mean(values) if len(values) > 1 else float("nan")


def pct(x: float) -> str:
    return "n/a" if x != x else f"{x * 100:.2f}%"


# ---- --fresh: every estimate in a new interpreter ------------------------------------------------------
FRESH: dict[str, tuple[str, str]] = {
    "matmul": ("import torch; torch.set_num_threads(1); a = torch.randn(256, 256)", "a @ a"),
    "add": ("import torch; torch.set_num_threads(1); x = torch.ones(1)", "torch.add(x, x)"),
    "busy20": ("import time, torch; torch.set_num_threads(1); pc = time.perf_counter_ns", "e = pc() + 20000\nwhile pc() < e: pass"),
    "copy32": ("import torch; torch.set_num_threads(1); src = torch.randn(8 * 1024 * 1024); dst = torch.empty_like(src)",
               "dst.copy_(src)"),
}
FRESH_NAMES = {"matmul": "matmul 256", "add": "add 1-elem", "busy20": "busy 20us", "copy32": "copy 32 MB"}
FRESH_TOOLS = ("measurefirst", "measurefirst bench (CLI)", "timeit (min)", "tub blocked_autorange", "pytest-benchmark",
               "pyperf --fast")


def _fresh_fn(key: str) -> Callable[[], object]:
    setup, stmt = FRESH[key]
    ns: dict[str, object] = {}
    exec(setup, ns)  # noqa: S102 - the script's own workloads
    exec("def fn():\n" + "".join(f"    {line}\n" for line in stmt.split("\n")), ns)  # noqa: S102
    fn = ns["fn"]
    assert callable(fn)
    return fn


def fresh_worker(tool: str, key: str, repeats: int | None = None) -> None:
    """One estimate, in this (new) interpreter; prints one JSON line. ``repeats``: measurefirst's
    repetitions (default: its default)."""
    import json

    fn = _fresh_fn(key)
    out: dict[str, object] = {}
    t0 = time.perf_counter()
    if tool == "measurefirst":
        m = measurefirst.benchmark(fn, device="cpu", **({} if repeats is None else {"repeats": repeats}))
        out.update(estimate=m.median, ci=m.ci, half_width=m.ci_half_width_rel,
                   precision=m.precision_half_width_rel,
                   spread=None if m.run_to_run is None else m.run_to_run.spread,
                   source=None if m.run_to_run is None else m.run_to_run.source)
    elif tool == "timeit (min)":
        out["estimate"] = est_timeit(fn, 5)
    elif tool == "tub blocked_autorange":
        out["estimate"] = est_blocked(fn, 0.2)
    elif tool == "pytest-benchmark":
        out["estimate"] = est_pytest_benchmark(fn, 1.0)
    out["seconds"] = time.perf_counter() - t0
    print(json.dumps(out))


def _run_fresh(tool: str, key: str, repeats: int | None = None) -> dict[str, object]:
    import json
    import subprocess
    import tempfile

    if tool == "measurefirst bench (CLI)":  # the command line: it can re-run its target in fresh processes
        setup, stmt = FRESH[key]
        t0 = time.perf_counter()
        more = [] if repeats is None else ["--repeats", str(repeats)]
        proc = subprocess.run([sys.executable, "-m", "measurefirst", "bench", "-s", setup, stmt, "--device", "cpu",
                               "--json", *more], check=True, capture_output=True, text=True, env=_cli_env())
        seconds = time.perf_counter() - t0
        d = json.loads(proc.stdout)
        rr = d.get("run_to_run") or {}
        inf = float("inf")  # JSON holds an unbounded interval as null
        iv = d["interval"]
        return {"estimate": d["stats_seconds"]["median"], "ci": iv["ci_seconds"] or [0.0, inf],
                "half_width": inf if iv["half_width"] is None else iv["half_width"],
                "precision": inf if iv["precision_half_width"] is None else iv["precision_half_width"],
                "spread": max(rr.get("cv", 0.0), rr.get("floor", 0.0)) if rr else None,
                "source": f"{rr.get('source')}+{rr.get('floor_source') or '-'}" if rr else None, "seconds": seconds}
    if tool == "pyperf --fast":
        setup, stmt = FRESH[key]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "out.json")
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-m", "pyperf", "timeit", "--fast", "--quiet", "-o", path, "-s", setup,
                            *stmt.split("\n")], check=True, stdout=subprocess.DEVNULL)
            seconds = time.perf_counter() - t0
            import pyperf

            bench = pyperf.Benchmark.load(path)
            mean, std = bench.mean(), bench.stdev()
            return {"estimate": bench.median(), "ci": [mean - std, mean + std], "half_width": std / mean,
                    "seconds": seconds}
    more = [] if repeats is None else [str(repeats)]
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", tool, key, *more], check=True,
                          capture_output=True, text=True)
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def _cli_env() -> dict[str, str]:
    """The environment of the command-line tool: this checkout's package first on the path."""
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH", "")) if p)}


def fresh_main(runs: int, keys: list[str], log: "Log", profile: bool, only: list[str] | None = None,
               repeats: int | None = None) -> None:
    import subprocess

    tools = [t for t in FRESH_TOOLS if (t != "pytest-benchmark" or pytest_benchmark_available())
             and (only is None or t in only)]
    try:
        import pyperf  # noqa: F401
    except ImportError:
        if "pyperf --fast" in tools:
            tools.remove("pyperf --fast")
        log("pyperf is not installed: its column is left out (pip install pyperf)")
    if profile:
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "measurefirst", "selfcheck", "--noise", "--threads", "1"], check=True,
                       stdout=subprocess.DEVNULL)
        log(f"one-time calibration: measurefirst selfcheck --noise --threads 1 ({time.perf_counter() - t0:.0f} s)")
        from measurefirst.measure.noise import read_profile

        measured = read_profile(threads=1)[0]
        if measured is not None:
            for e in measured.entries:
                log(f"  profile: {e.kind} {e.seconds * 1e6:.3g} us: fresh-process spread {pct(e.cv)}, in-process "
                    f"{'-' if e.within_cv is None else pct(e.within_cv)}, inflation at that length "
                    f"{measured.inflation(e.seconds):.2f}")
    log(f"torch {torch.__version__}, 1 thread, {os.cpu_count()} cores; {runs} estimates per tool and workload, "
        "each in a new interpreter, tools interleaved estimate by estimate"
        + ("" if repeats is None else f"; measurefirst with repeats={repeats}"))
    for key in keys:
        results: dict[str, list[dict[str, object]]] = {t: [] for t in tools}
        for i in range(runs):
            for tool in tools:
                results[tool].append(_run_fresh(tool, key, repeats))
            print(f"  {FRESH_NAMES[key]}: estimate {i + 1}/{runs} done", file=sys.stderr, flush=True)
        rows, lines = [], []
        for tool, rs in results.items():
            est = [float(r["estimate"]) for r in rs]  # type: ignore[arg-type]
            consensus = statistics.median(est)
            spread = cv(est)
            # each estimate over the median, in run order; * where its interval missed
            marks = ["" if r.get("ci") is None or float(r["ci"][0]) <= consensus <= float(r["ci"][1])  # type: ignore[index]
                     else "*" for r in rs]
            lines.append(f"  {tool}: estimate / median: " + " ".join(f"{x / consensus:.4f}{m}" for x, m in zip(est, marks)))
            row = [tool, f"{consensus * 1e6:.3f} us", pct(spread)]
            cis = [r.get("ci") for r in rs]
            if all(ci is not None for ci in cis):
                covered = sum(float(ci[0]) <= consensus <= float(ci[1]) for ci in cis)  # type: ignore[index]
                hw = statistics.median(float(r["half_width"]) for r in rs)  # type: ignore[arg-type]
                row += [f"{covered}/{len(rs)}", f"±{pct(hw)}", f"{hw / (1.96 * spread):.2f}" if spread > 0 else "-"]
            else:
                row += ["-", "-", "-"]
            if tool.startswith("measurefirst"):
                srcs = sorted({str(r.get("source")) for r in rs})
                row.append(f"±{pct(statistics.median(float(r['precision']) for r in rs))} / "  # type: ignore[arg-type]
                           f"{pct(statistics.median(float(r['spread'] or 0) for r in rs))} ({','.join(srcs)})")  # type: ignore[arg-type]
            else:
                row.append("")
            row.append(f"{statistics.mean(float(r['seconds']) for r in rs):.2f}")  # type: ignore[arg-type]
            rows.append(row)
        log()
        log(f"{FRESH_NAMES[key]}:")
        table(log, ["tool", "median estimate", "CV of estimates", "interval covers median", "median half-width",
                    "half-width / (1.96 CV)", "precision / spread (source)", "s/estimate"], rows)
        for line in lines:
            log(line)


def main(argv: list[str] | None = None) -> None:
    if argv is None and len(sys.argv) in (4, 5) and sys.argv[1] == "--worker":
        fresh_worker(sys.argv[2], sys.argv[3], int(sys.argv[4]) if len(sys.argv) == 5 else None)
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=10, help="independent runs per tool and workload (default 10)")
    ap.add_argument("--workloads", default="matmul,add,busy20,busy200", help="comma list of " + ",".join(KEYS))
    ap.add_argument("--reference", action="store_true", help="also measurefirst with reference=True (experimental)")
    ap.add_argument("--quick", action="store_true", help="a smoke run: 2 runs of the 20 us busy-wait, short budgets")
    ap.add_argument("--log", action="store_true", help="also write the output to docs/runtorun-DATE.txt")
    ap.add_argument("--fresh", action="store_true", help="each estimate in a new interpreter (matmul, add, busy20, "
                    "copy32), every tool, as users re-run")
    ap.add_argument("--tools", default=None, help="with --fresh: a comma list of the tools to run (default: all): "
                    + ", ".join(FRESH_TOOLS))
    ap.add_argument("--profile", action="store_true", help="with --fresh: run `measurefirst selfcheck --noise` "
                    "first (the one-time calibration measurefirst asks for)")
    ap.add_argument("--repeats", type=int, default=None, help="with --fresh: measurefirst's repetitions per estimate "
                    "(default: its default; 2 checks the few-repetition interval)")
    ap.add_argument("--load", choices=("quiet", "drifting", "busy"), default="quiet", help="with --fresh: background "
                    "load for the whole study (drifting: two processes busy and idle in turns of 0.7 s; busy: two "
                    "busy processes; default quiet: none)")
    args = ap.parse_args(argv)
    if args.repeats is not None and (not args.fresh or args.repeats < 1):
        ap.error("--repeats goes with --fresh and is a whole number >= 1, such as 2")
    if args.load != "quiet" and not args.fresh:
        ap.error("--load goes with --fresh")
    torch.set_num_threads(1)
    if args.fresh:
        keys = ["busy20"] if args.quick else (["matmul", "add", "busy20", "copy32"] if args.workloads ==
                                               ap.get_default("workloads") else args.workloads.split(","))
        unknown = [k for k in keys if k not in FRESH]
        if unknown:
            ap.error(f"unknown workload {unknown[0]!r} for --fresh; choose from {', '.join(FRESH)}")
        only = None if args.tools is None else [t.strip() for t in args.tools.split(",")]
        if only is not None and any(t not in FRESH_TOOLS for t in only):
            ap.error(f"unknown tool in --tools {args.tools!r}; choose from {', '.join(FRESH_TOOLS)}")
        log = Log()
        if args.load != "quiet":
            log(f"load: {LOADS[args.load]}")
        with load(args.load):
            fresh_main(2 if args.quick else args.runs, keys, log, args.profile, only, args.repeats)
        if args.log:
            print(f"log written to {log.save('runtorun-fresh')}", file=sys.stderr)
        return
    runs, keys = args.runs, args.workloads.split(",")
    # tool options: the defaults a user gets, or short ones for a smoke run
    mf_opts: dict = {"device": "cpu"}
    timeit_repeat, blocked_time, pb_time = 5, 0.2, 1.0
    if args.quick:
        runs, keys = 2, ["busy20"]
        mf_opts.update(budget=1.0, min_time=0.05, warmup_max_time=0.05)
        timeit_repeat, blocked_time, pb_time = 1, 0.02, 0.02
    unknown = [k for k in keys if k not in KEYS]
    if unknown:
        ap.error(f"unknown workload {unknown[0]!r}; choose from {', '.join(KEYS)}")

    def mf(fn: Callable[[], object], r: Runs, **extra: object) -> float:
        m = measurefirst.benchmark(fn, **mf_opts, **extra)
        r.cis.append(m.ci)
        r.half_widths.append(m.ci_half_width_rel)
        r.met += m.target_met
        if m.normalized is not None:
            r.normalized.append(m.normalized.median)
            r.factors.append(m.normalized.speed_factor)
        return m.median

    tools: dict[str, Callable[[Callable[[], object], Runs], float]] = {
        "measurefirst": mf,
        "timeit (min)": lambda fn, r: est_timeit(fn, timeit_repeat),
        "tub blocked_autorange": lambda fn, r: est_blocked(fn, blocked_time),
    }
    if pytest_benchmark_available():
        tools["pytest-benchmark"] = lambda fn, r: est_pytest_benchmark(fn, pb_time)
    if args.reference:
        tools["measurefirst +reference"] = lambda fn, r: mf(fn, r, reference=True)

    log = Log()
    log(f"torch {torch.__version__}, 1 thread, {os.cpu_count()} cores; {runs} runs per tool and workload, "
        f"tools interleaved run by run" + (" (quick smoke run: short budgets)" if args.quick else ""))
    if not pytest_benchmark_available():
        log("pytest-benchmark is not installed: its column is left out (pip install pytest-benchmark)")
    for key in keys:
        name = KEYS[key]
        fn = WORKLOADS[name]()
        results = {t: Runs() for t in tools}
        for i in range(runs):
            for tool, estimate in tools.items():
                t0 = time.perf_counter()
                results[tool].estimates.append(estimate(fn, results[tool]))
                results[tool].seconds.append(time.perf_counter() - t0)
            print(f"  {name}: run {i + 1}/{runs} done", file=sys.stderr, flush=True)
        rows = []
        for tool, r in results.items():
            consensus = statistics.median(r.estimates)
            row = [tool, f"{consensus * 1e6:.3f} us", pct(cv(r.estimates)), f"{statistics.mean(r.seconds):.2f}"]
            if r.cis:
                covered = sum(ci is not None and ci[0] <= consensus <= ci[1] for ci in r.cis)
                row += [f"{covered}/{len(r.cis)}", f"±{pct(statistics.median(r.half_widths))}", f"{r.met}/{len(r.cis)}"]
            else:
                row += ["-", "-", "-"]
            if r.normalized:
                lower = cv(r.normalized) < cv(r.estimates)
                row += [f"{statistics.median(r.normalized) * 1e6:.3f} us", pct(cv(r.normalized)),
                        f"{statistics.median(r.factors):.3f}", "yes" if lower else "no"]
            else:
                row += ["", "", "", ""]
            rows.append(row)
        log()
        log(f"{name}:")
        table(log, ["tool", "median estimate", "run-to-run CV", "s/run", "CI covers consensus", "median CI",
                    "precision met", "normalized", "normalized CV", "speed factor", "normalizing lowers CV"], rows)
    if args.log:
        print(f"log written to {log.save('runtorun')}", file=sys.stderr)


if __name__ == "__main__":
    main()
