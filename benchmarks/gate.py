"""Does the pytest regression gate never fail unchanged code, and catch a real 20% slowdown? (issue 23)

    python benchmarks/gate.py             # 10 unchanged runs under load, 10 slowed runs quiet (about 10 minutes)
    python benchmarks/gate.py --quick     # a smoke run: 2 and 2
    python benchmarks/gate.py --log       # also write the output to docs/gate-DATE.txt
    python benchmarks/gate.py --runs 20   # more runs per phase

A pytest-benchmark-style suite (pedantic tests of matmul 512 and 768, addmm, conv2d, layer_norm and
softmax; torch on one thread) is written into a temporary folder. Phase 1, "unchanged under load":
``pytest --mf --mf-save base`` once, then the same suite re-run unchanged --runs times with
``--mf-compare base --mf-fail-if-slower 5%`` while two busy processes share the cores; every failed
test is a false alarm (target: 0). Phase 2, "20% slower, quiet": the suite saved again as base with no
background load, then re-run --runs times with the matmul 512 test doing 20% more work (six 512x512
products per call instead of five), each run gated the same way; the target is a failure of
that test in 9 runs of 10 or more (and no other test failing). torch.utils.benchmark measures the
real slowdown of the slowed test function once, for reference. The machine's noise decides the figures:
this is a script, not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workloads import Background, Log, burn, table  # noqa: E402  (beside this script)

SRC = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

SUITE = '''
import os

import pytest
import torch

torch.set_num_threads(1)
torch.manual_seed(0)
SLOW = os.environ.get("GATE_SLOW") == "1"
ROUNDS = int(os.environ.get("GATE_ROUNDS", "20"))

A512, B512 = torch.randn(512, 512), torch.randn(512, 512)
A768, B768 = torch.randn(768, 768), torch.randn(768, 768)
BIAS = torch.randn(512, 512)
IMG, KERNEL = torch.randn(1, 32, 64, 64), torch.randn(32, 32, 3, 3)
ROWS = torch.randn(512, 2048)
LN = torch.nn.LayerNorm(2048)


def matmul_512():
    # five 512 products per call; the slowed variant does six: exactly 20% more of the same work
    for _ in range(6 if SLOW else 5):
        out = A512 @ B512
    return out


def test_matmul_512(benchmark):
    benchmark.pedantic(matmul_512, rounds=ROUNDS, warmup_rounds=2)


def test_matmul_768(benchmark):
    benchmark.pedantic(lambda: A768 @ B768, rounds=ROUNDS, warmup_rounds=2)


def test_addmm(benchmark):
    benchmark.pedantic(lambda: torch.addmm(BIAS, A512, B512), rounds=ROUNDS, warmup_rounds=2)


def test_conv2d(benchmark):
    benchmark.pedantic(lambda: torch.nn.functional.conv2d(IMG, KERNEL, padding=1), rounds=ROUNDS, warmup_rounds=2)


def test_layer_norm(benchmark):
    with torch.no_grad():
        benchmark.pedantic(lambda: LN(ROWS), rounds=ROUNDS, warmup_rounds=2)


def test_softmax(benchmark):
    benchmark.pedantic(lambda: torch.softmax(ROWS, dim=-1), rounds=ROUNDS, warmup_rounds=2)
'''


def pytest_run(folder: str, *args: str, slow: bool = False, rounds: int = 20) -> tuple[int, dict[str, Any]]:
    """Run the suite once under --mf with ``args``; the exit code and the --mf-json report."""
    report = os.path.join(folder, "report.json")
    if os.path.exists(report):
        os.remove(report)
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "GATE_SLOW": "1" if slow else "0", "GATE_ROUNDS": str(rounds),
           "MEASUREFIRST_STORE": os.path.join(folder, "results.db"), "OMP_NUM_THREADS": "1"}
    env.pop("PYTEST_ADDOPTS", None)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "--mf",
                           "--mf-json", report, *args, "test_suite.py"], cwd=folder, env=env,
                          capture_output=True, text=True)
    if not os.path.exists(report):
        raise RuntimeError(f"pytest wrote no report (exit {proc.returncode}):\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}")
    with open(report) as f:
        return proc.returncode, json.load(f)


def verdicts(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Per test: its change against the baseline (ratio, CI, verdict, why undecided)."""
    out = {}
    for b in report["benchmarks"]:
        c = b.get("change") or {}
        verdict = "undecided" if c.get("disturbed") else ("regression" if b.get("regression") else
                                                          "slower" if c.get("ci_low", 0) > 1 else
                                                          "faster" if c.get("ci_high", 2) < 1 else "same")
        out[b["test"]] = {"ratio": c.get("ratio"), "lo": c.get("ci_low"), "hi": c.get("ci_high"), "verdict": verdict,
                          "why": ",".join(sorted({f"{d['side']}:{d['code']}" for d in c.get("disturbed") or ()})),
                          "sources": "/".join(c.get("run_to_run_sources") or ()),
                          "preempted": b["measurement"].get("preempted")}
    return out


def _num(x: float | None) -> str:
    return "inf" if x is None else f"{x:.3f}"


def real_slowdown() -> float:
    """The slowed matmul 512 function's time over the unchanged one's, by torch.utils.benchmark."""
    import torch
    from torch.utils.benchmark import Timer

    torch.set_num_threads(1)
    a, b = torch.randn(512, 512), torch.randn(512, 512)
    plain = Timer("for _ in range(5): a @ b", globals={"a": a, "b": b}, num_threads=1).blocked_autorange(min_run_time=2.0)
    slowed = Timer("for _ in range(6): a @ b", globals={"a": a, "b": b}, num_threads=1).blocked_autorange(min_run_time=2.0)
    return float(slowed.median / plain.median)


def phase(log: Log, title: str, folder: str, runs: int, *, slow: bool, load: int, rounds: int) -> Counter[str]:
    """Save the suite as base (quiet), then ``runs`` gated runs (slowed or not, under ``load`` busy processes)."""
    code, _ = pytest_run(folder, "--mf-save", "base", rounds=rounds)
    log(f"\n{title}: saved the unchanged suite as @base (exit {code})")
    rows, tally = [], Counter[str]()
    for i in range(1, runs + 1):
        start = time.time()
        if load:
            with Background(load, burn, settle=0.5):
                code, rep = pytest_run(folder, "--mf-compare", "base", "--mf-fail-if-slower", "5%", slow=slow,
                                       rounds=rounds)
        else:
            code, rep = pytest_run(folder, "--mf-compare", "base", "--mf-fail-if-slower", "5%", slow=slow,
                                   rounds=rounds)
        v = verdicts(rep)
        print(f"  run {i}: exit {code}, {time.time() - start:.0f} s", file=sys.stderr, flush=True)
        failed = sorted(t for t, x in v.items() if x["verdict"] == "regression")
        undecided = sorted(t for t, x in v.items() if x["verdict"] == "undecided")
        tally["runs"] += 1
        tally["runs failed"] += bool(failed)
        tally["tests failed"] += len(failed)
        tally["tests undecided"] += len(undecided)
        tally["matmul_512 failed"] += "test_matmul_512" in failed
        tally["other tests failed"] += len([t for t in failed if t != "test_matmul_512"])
        m = v.get("test_matmul_512", {})
        ratio = "n/a" if m.get("ratio") is None else f"{m['ratio']:.3f} ({_num(m['lo'])}-{_num(m['hi'])})"
        rows.append([str(i), str(code), ",".join(t.removeprefix("test_") for t in failed) or "-",
                     " ".join(f"{t.removeprefix('test_')}[{v[t]['why']}]" for t in undecided) or "-",
                     ratio, m.get("verdict", "n/a"), m.get("sources", ""), f"{time.time() - start:.0f}s"])
    log(f"{title}: {runs} gated run(s), --mf-compare base --mf-fail-if-slower 5%"
        + (f", {load} busy processes sharing the cores" if load else ", no background load"))
    table(log, ["run", "exit", "failed tests", "undecided (side:reason)", "matmul_512 ratio (95% CI)", "verdict",
                "spreads"], [r[:7] for r in rows])
    return tally


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=10, help="gated runs per phase (default 10)")
    ap.add_argument("--rounds", type=int, default=20, help="pedantic rounds per test (default 20)")
    ap.add_argument("--quick", action="store_true", help="a smoke run: 2 runs per phase")
    ap.add_argument("--log", action="store_true", help="also write the output to docs/gate-DATE.txt")
    ap.add_argument("--skip-load", action="store_true", help="only the slowed phase")
    ap.add_argument("--skip-slow", action="store_true", help="only the unchanged-under-load phase")
    args = ap.parse_args()
    runs = 2 if args.quick else args.runs
    log = Log()
    import torch

    log(f"measurefirst gate check: torch {torch.__version__}, {os.cpu_count()} CPU(s), {runs} run(s) per phase, "
        f"{args.rounds} pedantic rounds per test")
    results = {}
    with tempfile.TemporaryDirectory(prefix="mf-gate-") as tmp:
        with open(os.path.join(tmp, "test_suite.py"), "w") as f:
            f.write(SUITE)
        if not args.skip_load:
            results["unchanged, 2 busy processes"] = phase(log, "phase 1 (unchanged code, under load)", tmp, runs,
                                                           slow=False, load=2, rounds=args.rounds)
        if not args.skip_slow:
            log(f"\ntorch.utils.benchmark: the slowed matmul 512 function takes {real_slowdown():.3f}x the unchanged one")
            results["matmul_512 20% slower, quiet"] = phase(log, "phase 2 (matmul 512 20% slower, quiet)", tmp, runs,
                                                            slow=True, load=0, rounds=args.rounds)
    log("\nsummary")
    table(log, ["phase", "runs", "runs failed", "tests failed", "matmul_512 failed", "other tests failed",
                "tests undecided", "target"],
          [[name, str(t["runs"]), str(t["runs failed"]), str(t["tests failed"]), str(t["matmul_512 failed"]),
            str(t["other tests failed"]), str(t["tests undecided"]),
            "0 failures" if "unchanged" in name else f">= {-(-9 * t['runs'] // 10)} of {t['runs']} matmul_512 failed"]
           for name, t in results.items()])
    if args.log:
        log(f"\nwrote {log.save('gate')}")


if __name__ == "__main__":
    main()
