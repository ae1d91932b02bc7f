"""Code against code vs a saved number: the pytest gate on a busy machine (issue 33).

    python benchmarks/gate_against.py                  # 5 runs per cell, both cores busy (about 12 minutes)
    python benchmarks/gate_against.py --runs 10 --log  # the issue's 10 runs; also docs/gate-against-DATE.txt
    python benchmarks/gate_against.py --load drifting  # both cores busy and idle in turns of 0.7 s
    python benchmarks/gate_against.py --load quiet     # no background load
    python benchmarks/gate_against.py --only-against   # --mf-against (and the once run) only

A throwaway git repository holds a pytest-benchmark suite of torch CPU ops (softmax, a 256 matmul, layer
norm, a 1-element add; torch on one thread). Its base commit is the suite as it is; the head is the
same suite unchanged, or with softmax doing 5% or 20% more work (more rows in the same call). For each
head, each of --runs runs gates it under the load of --load (``busy``: two busy processes, one per
core; ``drifting``: two processes busy and idle in turns of 0.7 s, in step; ``quiet``: none):

* ``--mf-against``: ``pytest --mf --mf-against BASE --mf-fail-if-slower 2%`` (code against code);
* ``--mf-compare``: the base tree saved with ``--mf-save base`` right before, then the head gated with
  ``--mf-compare base --mf-fail-if-slower 2%`` (a saved number, the two trees one after the other:
  the method of ``asv continuous``, with measurefirst's intervals and refusals);
* ``pytest-benchmark``: the base saved with ``--benchmark-save base`` right before, then the head with
  ``--benchmark-compare --benchmark-compare-fail median:2%`` (its defaults otherwise);
* ``once``: the suite measured once (``pytest --mf``, the base save above), for the wall-time ratio.

It prints, per method and head: failed runs of the slowed test (detections), runs where any other
test failed (false failures; for "unchanged", any failure), undecided verdicts, the median wall time
per run and, for ``--mf-against``, the median of each run's wall time over the ``once`` run's beside it. The threshold is 2% so that a 5% slowdown is above it by more than the
noise of the estimate (a threshold equal to the effect would catch it half the time by construction).
The machine decides the figures: this is a script, not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workloads import LOADS, Log, load, table  # noqa: E402  (beside this script)

SRC = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

SUITE = '''
import torch

torch.set_num_threads(1)
torch.manual_seed(0)
ROWS = {rows}
X = torch.randn(ROWS, 1024)
A = torch.randn(256, 256)
LN = torch.nn.LayerNorm(1024)
Y = torch.randn(64, 1024)
ONE = torch.randn(1)


def test_softmax(benchmark):
    benchmark(torch.softmax, X, -1)


def test_matmul(benchmark):
    benchmark(torch.mm, A, A)


def test_layer_norm(benchmark):
    benchmark(LN, Y)


def test_add(benchmark):
    benchmark(torch.add, ONE, 1)
'''
HEADS = {"unchanged": 100, "softmax 5% slower": 105, "softmax 20% slower": 120}


def write(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


def suite_repo(suite: str, prefix: str) -> tuple[str, str]:
    """A throwaway folder and, in it, a git repository whose one commit holds ``suite`` as test_suite.py."""
    tmp = tempfile.mkdtemp(prefix=prefix)
    repo = os.path.join(tmp, "repo")
    os.makedirs(repo)
    git(repo, "init", "-q")
    write(os.path.join(repo, "test_suite.py"), suite)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    return tmp, repo


def git(cwd: str, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@b"}
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def pytest_run(repo: str, *args: str) -> tuple[dict[str, Any], float, int]:
    env = {**os.environ, "PYTHONPATH": SRC, "MEASUREFIRST_STORE": os.path.join(repo, "..", "results.db")}
    env.pop("MEASUREFIRST_PYTEST_SIMULATE", None)
    out = os.path.join(repo, "..", "run.json")
    if os.path.exists(out):
        os.remove(out)
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--mf", *args,
                           "--mf-json", out, "test_suite.py"], cwd=repo, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    data = json.load(open(out)) if os.path.exists(out) else {}
    return data, wall, done.returncode


def pytest_benchmark_run(repo: str, *args: str) -> tuple[dict[str, str], float]:
    """pytest-benchmark alone (measurefirst's plugin off): the tests ``--benchmark-compare-fail`` failed."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEASUREFIRST")}
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:measurefirst",
                           *args, "test_suite.py"], cwd=repo, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    failed = set(re.findall(r"^\s*(test_\w+) \(.*\) - Field", done.stdout + done.stderr, re.M))
    names = ("test_softmax", "test_matmul", "test_layer_norm", "test_add")
    return {n: "regression" if n in failed else "pass" for n in names}, wall


def verdicts(data: dict[str, Any], log: Any = None, method: str = "") -> dict[str, str]:
    out = {}
    for b in data.get("benchmarks", []):
        ch = b.get("change")
        name = b["name"].split("::")[-1]
        shown = ch is not None and (ch.get("regression") or ch.get("improvement") or ch.get("disturbed"))
        if shown and log is not None and (not ch.get("disturbed") or name == "test_softmax"):
            ci = ("no interval" if ch.get("ci_low") is None or ch.get("ci_high") is None
                  else f"{ch['ci_low']:.3f}-{ch['ci_high']:.3f}")
            reason = ",".join(str(d.get("code", "")) for d in ch.get("disturbed") or [] if isinstance(d, dict))
            pairs = " ".join(f"{r:.3f}" for r in ch.get("pair_ratios") or ())
            log(f"  {method}: {name} ratio {ch['ratio']:.3f} ({ci}{'; ' + reason if reason else ''}) "
                f"{'regression' if ch.get('regression') else 'improvement' if ch.get('improvement') else 'undecided'}"
                + (f"; pairs {pairs}" if pairs else ""))
        if ch is None:
            out[name] = "none"
        elif ch.get("disturbed"):
            out[name] = "undecided"
        else:
            out[name] = "regression" if ch.get("regression") else "pass"
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--load", choices=("busy", "drifting", "quiet"), default="busy")
    ap.add_argument("--log", action="store_true")
    ap.add_argument("--only-against", action="store_true",
                    help="--mf-against and the once run only (no saved-number gates): about half the time")
    ap.add_argument("--head", action="append", choices=tuple(HEADS), dest="heads",
                    help="only this head (repeat for several; default: all three)")
    ap.add_argument("--pairs", type=int, default=None,
                    help="--mf-against-pairs for the --mf-against runs (default: the plugin's)")
    args = ap.parse_args()
    pairs = () if args.pairs is None else ("--mf-against-pairs", str(args.pairs))
    log = Log()
    tmp, repo = suite_repo(SUITE.format(rows=1000), "gate-against-")
    base = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True).stdout.strip()
    log(f"gate_against.py: {args.runs} run(s) per cell, {LOADS[args.load]}, threshold 2%, python {sys.version.split()[0]}"
        + ("" if args.pairs is None else f", --mf-against-pairs {args.pairs}"))
    rows = []
    background = load(args.load)
    methods = ("--mf-against", "once") if args.only_against else ("--mf-against", "--mf-compare", "pytest-benchmark",
                                                                   "once")
    with background:
        for head, rows_pct in HEADS.items():
            if args.heads and head not in args.heads:
                continue
            suite = os.path.join(repo, "test_suite.py")
            cells: dict[str, dict[str, Any]] = {m: {"caught": 0, "false": 0, "undecided": 0, "walls": [],
                                                    "ratios": []} for m in methods}
            for run in range(args.runs):
                write(suite, SUITE.format(rows=rows_pct * 10))
                data, wall_against, _ = pytest_run(repo, "--mf-against", base, "--mf-fail-if-slower", "2%", *pairs)
                _score(cells["--mf-against"], verdicts(data, log, f"{head} --mf-against"), wall_against, head)
                write(suite, SUITE.format(rows=1000))
                _, wall_save, _ = pytest_run(repo, "--mf-save", "base")
                cells["once"]["walls"].append(wall_save)
                cells["--mf-against"]["ratios"].append(wall_against / wall_save)
                if args.only_against:
                    log(f"  {head} run {run + 1}: --mf-against {wall_against:.1f} s, once {wall_save:.1f} s")
                    continue
                write(suite, SUITE.format(rows=rows_pct * 10))
                data, wall, _ = pytest_run(repo, "--mf-compare", "base", "--mf-fail-if-slower", "2%")
                _score(cells["--mf-compare"], verdicts(data, log, f"{head} --mf-compare"), wall, head)
                write(suite, SUITE.format(rows=1000))
                shutil.rmtree(os.path.join(repo, ".benchmarks"), ignore_errors=True)
                pytest_benchmark_run(repo, "--benchmark-save=base")
                write(suite, SUITE.format(rows=rows_pct * 10))
                v, wall = pytest_benchmark_run(repo, "--benchmark-compare", "--benchmark-compare-fail=median:2%")
                _score(cells["pytest-benchmark"], v, wall, head)
                log(f"  {head} run {run + 1}: --mf-against {wall_against:.1f} s, once {wall_save:.1f} s; "
                    f"pytest-benchmark {', '.join(k for k, x in v.items() if x == 'regression') or 'no failure'}")
            for method, c in cells.items():
                if method == "once":
                    rows.append([head, method, "", "", "", f"{statistics.median(c['walls']):.1f} s", ""])
                    continue
                caught = "" if head == "unchanged" else f"{c['caught']}/{args.runs}"
                times = f"{statistics.median(c['ratios']):.2f}x" if c["ratios"] else ""
                rows.append([head, method, caught, f"{c['false']}/{args.runs}", str(c["undecided"]),
                             f"{statistics.median(c['walls']):.1f} s", times])
    table(log, ["head", "method", "slowdown caught", "runs with a false failure", "undecided verdicts",
                "median wall", "wall / once"], rows)
    shutil.rmtree(tmp, ignore_errors=True)
    if args.log:
        log("wrote", log.save("gate-against"))


def _score(cell: dict[str, Any], v: dict[str, str], wall: float, head: str) -> None:
    cell["walls"].append(wall)
    slowed = head != "unchanged"
    if slowed and v.get("test_softmax") == "regression":
        cell["caught"] += 1
    others = [k for k, x in v.items() if x == "regression" and not (slowed and k == "test_softmax")]
    if others:
        cell["false"] += 1
    cell["undecided"] += sum(1 for x in v.values() if x == "undecided")


if __name__ == "__main__":
    main()
