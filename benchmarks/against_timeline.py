"""Where the time of ``pytest --mf --mf-against`` goes (issue 33): the worker pairs' start-up against their
measuring, first look and second look, beside the suite run once.

    python benchmarks/against_timeline.py              # the 4-test suite of gate_against.py, the head unchanged
    python benchmarks/against_timeline.py --tests 16   # 4 sizes of each of its 4 tests
    python benchmarks/against_timeline.py --load busy  # both cores busy meanwhile (or: drifting; default quiet)
    python benchmarks/against_timeline.py --log        # also docs/against-timeline-DATE.txt

A throwaway git repository holds the suite; the head is its base unchanged (every verdict should pass, and
the undecided ones get a second look). A ``conftest.py`` of the head tree (not committed: the base tree's
workers do not load it) times, in the parent, each batch of worker pairs from their start until each pair
is ready (every worker imported torch and collected the tests), and each comparison of a pair. The machine
decides the figures: this is a script, not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gate_against import SUITE, suite_repo  # noqa: E402  (beside this script)
from workloads import Log, load, table  # noqa: E402

SRC = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

SIZED = '''
import pytest
import torch

torch.set_num_threads(1)
torch.manual_seed(0)
SIZES = (256, 512, 1000, 2000)
X = {{n: torch.randn(n, 1024) for n in SIZES}}
A = {{n: torch.randn(n // 4, n // 4) for n in SIZES}}
LN = torch.nn.LayerNorm(1024)


@pytest.mark.parametrize("n", SIZES)
def test_softmax(benchmark, n):
    benchmark(torch.softmax, X[n], -1)


@pytest.mark.parametrize("n", SIZES)
def test_matmul(benchmark, n):
    benchmark(torch.mm, A[n], A[n])


@pytest.mark.parametrize("n", SIZES)
def test_layer_norm(benchmark, n):
    benchmark(LN, X[n])


@pytest.mark.parametrize("n", SIZES)
def test_add(benchmark, n):
    benchmark(torch.add, X[n][0, :1], 1)
'''

CONFTEST = '''
import json, os, time
from measurefirst.pytest import against as PA

T0 = time.perf_counter()
EVENTS = [("conftest", 0, time.time())]
_pairs, _compare = PA.worker_pairs, PA.PairDriver._compare


def worker_pairs(count, sides, log_dir):
    EVENTS.append(("start", count, time.perf_counter() - T0))
    try:
        for k, hello in _pairs(count, sides, log_dir):
            EVENTS.append(("ready", k, time.perf_counter() - T0))
            yield k, hello
    finally:
        EVENTS.append(("stopped", count, time.perf_counter() - T0))


def compare(self, k, b, h, base, head):
    t = time.perf_counter()
    _compare(self, k, b, h, base, head)
    EVENTS.append(("compared", k, time.perf_counter() - t, t - T0))


PA.worker_pairs, PA.PairDriver._compare = worker_pairs, compare


def pytest_unconfigure(config):
    EVENTS.append(("unconfigure", 0, time.time()))
    with open(os.environ["AGAINST_TIMELINE"], "w") as f:
        json.dump(EVENTS, f)
'''


def run(repo: str, *args: str) -> tuple[float, float]:
    """The wall time of ``pytest --mf ARGS`` in ``repo``, and the epoch time it was launched at."""
    env = {**os.environ, "PYTHONPATH": SRC, "MEASUREFIRST_STORE": os.path.join(repo, "..", "results.db"),
           "AGAINST_TIMELINE": os.path.join(repo, "..", "timeline.json")}
    env.pop("MEASUREFIRST_PYTEST_SIMULATE", None)
    t0, launched = time.perf_counter(), time.time()
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--mf", *args, "test_suite.py"],
                   cwd=repo, env=env, capture_output=True, text=True)
    return time.perf_counter() - t0, launched


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tests", type=int, choices=(4, 16), default=4)
    ap.add_argument("--load", choices=("busy", "drifting", "quiet"), default="quiet")
    ap.add_argument("--log", action="store_true")
    args = ap.parse_args()
    log = Log()
    tmp, repo = suite_repo(SUITE.format(rows=1000) if args.tests == 4 else SIZED.format(), "against-timeline-")
    with open(os.path.join(repo, "conftest.py"), "w") as f:  # the head tree only: not committed
        f.write(CONFTEST)
    log(f"against_timeline.py: {args.tests} tests, head = base unchanged, threshold 2%, {args.load}, "
        f"python {sys.version.split()[0]}")
    background = load(args.load)
    with background:
        wall, launched = run(repo, "--mf-against", "HEAD", "--mf-fail-if-slower", "2%")
        events = json.load(open(os.path.join(tmp, "timeline.json")))
        once, _ = run(repo)
    epoch = {e[0]: e[2] for e in events if e[0] in ("conftest", "unconfigure")}
    events = [e for e in events if e[0] not in ("conftest", "unconfigure")]
    rows, looks = [], [i for i, e in enumerate(events) if e[0] == "start"]
    for n, i in enumerate(looks):
        end = looks[n + 1] if n + 1 < len(looks) else len(events)
        part = events[i:end]
        first_ready = next((e[2] for e in part if e[0] == "ready"), part[0][2])
        compared = [e for e in part if e[0] == "compared"]
        measuring = sum(e[2] for e in compared)
        span = (max(e[3] + e[2] for e in compared) - min(e[3] for e in compared)) if compared else 0.0
        rows.append([("first look" if n == 0 else "second look"), str(part[0][1]), f"{first_ready - part[0][2]:.1f} s",
                     str(len(compared)), f"{span:.1f} s", f"{measuring:.1f} s",
                     f"{measuring / len(compared):.2f} s" if compared else ""])
    table(log, ["", "pairs", "start until every pair is ready", "comparisons", "measuring (wall)",
                "comparisons' own time", "per comparison"], rows)
    last = max((e[2] for e in events if e[0] == "stopped"), default=0.0)
    log(f"the parent: {epoch['conftest'] - launched:.1f} s to its conftest (python, pytest, plugins), "
        f"{events[0][2] if events else 0.0:.1f} s more to the first workers' start (collection, the base tree), "
        f"{epoch['unconfigure'] - epoch['conftest'] - last:.1f} s from the last pair's end to its unconfigure "
        f"(its own run of the tests, the records, the summary), "
        f"{launched + wall - epoch['unconfigure']:.1f} s to its exit")
    log(f"--mf-against: {wall:.1f} s; the suite run once (pytest --mf): {once:.1f} s; ratio {wall / once:.2f}x")
    if args.log:
        log("wrote", log.save("against-timeline"))
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
