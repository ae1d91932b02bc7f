"""Does ``measurefirst bisect`` name the commit that made a function 3% slower? (issue 33)

    python benchmarks/bisect_commits.py               # 3 tries, quiet (about 10 minutes)
    python benchmarks/bisect_commits.py --tries 10    # the issue's 10 tries
    python benchmarks/bisect_commits.py --busy        # with two busy processes on the cores
    python benchmarks/bisect_commits.py --log         # also write docs/bisect-DATE.txt
    python benchmarks/bisect_commits.py --try 2       # try 2 alone (its seed), again

A throwaway git repository of 64 commits holds ``mod.py`` whose ``f()`` is a softmax over 64 rows of a
1024-wide tensor on one torch thread; each commit changes a comment, and one commit, drawn with the try's
seed, makes ``f`` do 3% more work (66 rows of the same width instead of 64: 3.1%). Each try bisects the
whole range two ways:

* ``measurefirst bisect GOOD BAD mod:f`` (code against code, worker pairs interleaved, each step decided
  by the pairs' ranks);
* what a user would script for ``git bisect run``: ``python -m timeit`` (best of 5) on GOOD and BAD, the
  threshold halfway, then each midpoint timed the same way and called slow above the threshold.

It prints, per try, the commit each way named (right or wrong) and its wall time; then how many of the
tries each way got right. The machine decides the figures: this is a script, not a test.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workloads import Background, Log, burn, table  # noqa: E402  (beside this script)

SRC = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
COMMITS = 64
MODULE = '''import torch

torch.set_num_threads(1)
X = torch.randn({rows}, 1024)
# revision {i}


def f():
    return torch.softmax(X, -1)
'''


def git(cwd: str, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@b"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout.strip()


def make_repo(path: str, slow_at: int) -> list[str]:
    os.makedirs(path)
    git(path, "init", "-q")
    shas = []
    for i in range(COMMITS + 1):  # commit 0 is GOOD; commits 1..64 are the range
        with open(os.path.join(path, "mod.py"), "w") as f:
            f.write(MODULE.format(rows=66 if i >= slow_at else 64, i=i))
        git(path, "add", "-A")
        git(path, "commit", "-qm", f"revision {i}")
        shas.append(git(path, "rev-parse", "HEAD"))
    return shas


def measurefirst_bisect(repo: str, slow_at: int = -1) -> tuple[str | None, float]:
    env = {**os.environ, "PYTHONPATH": SRC}
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "measurefirst", "bisect", "HEAD~64", "HEAD", "mod:f"], cwd=repo,
                          env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    said = done.stdout + done.stderr
    m = re.search(r"first slow commit .*?: (\w+) revision (\d+): median ratio", said)
    if m is None or m.group(2) != str(slow_at):  # not the slow commit: every line it said, for the reader
        print("  measurefirst bisect said:\n    " + "\n    ".join(said.strip().splitlines() or ["(nothing)"]),
              file=sys.stderr)
    return (m.group(2) if m else None), wall


def timeit_at(repo: str, sha: str) -> float:
    """Best of 5 of ``python -m timeit`` at ``sha`` (a checkout of the file, as a git bisect run script does)."""
    git(repo, "checkout", "-q", sha)
    out = subprocess.run([sys.executable, "-m", "timeit", "-r", "5", "-s", "import mod", "mod.f()"], cwd=repo,
                         capture_output=True, text=True, env={**os.environ, "PYTHONPATH": repo}).stdout
    m = re.search(r"best of 5: ([\d.]+) (\w+)", out)
    assert m, out
    return float(m.group(1)) * {"nsec": 1e-9, "usec": 1e-6, "msec": 1e-3, "sec": 1.0}[m.group(2)]


def timeit_bisect(repo: str, shas: list[str]) -> tuple[str | None, float]:
    t0 = time.perf_counter()
    good, bad = timeit_at(repo, shas[0]), timeit_at(repo, shas[-1])
    threshold = (good + bad) / 2
    lo, hi = 0, len(shas) - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if timeit_at(repo, shas[mid]) > threshold:
            hi = mid
        else:
            lo = mid
    git(repo, "checkout", "-q", shas[-1])
    return str(hi), time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tries", type=int, default=3)
    ap.add_argument("--try", dest="only", type=int, default=None, help="run only this try (its seed): again, alone")
    ap.add_argument("--busy", action="store_true", help="two busy processes on the cores")
    ap.add_argument("--log", action="store_true")
    args = ap.parse_args()
    log = Log()
    load = "two busy processes" if args.busy else "quiet"
    log(f"bisect_commits.py: {args.tries} tries, {COMMITS} commits, one making f 3.1% slower (66 rows instead of 64), {load}")
    rows, right = [], {"measurefirst bisect": 0, "timeit + git bisect": 0}
    with (Background(2, burn, settle=1.0) if args.busy else Background(0, burn)):
        for t in (range(args.tries) if args.only is None else [args.only]):
            slow_at = random.Random(t).randint(1, COMMITS)
            with tempfile.TemporaryDirectory(prefix="bisect-bench-") as tmp:
                repo = os.path.join(tmp, "repo")
                shas = make_repo(repo, slow_at)
                for way, run in (("measurefirst bisect", lambda: measurefirst_bisect(repo, slow_at)),
                                 ("timeit + git bisect", lambda: timeit_bisect(repo, shas))):
                    found, wall = run()
                    ok = found == str(slow_at)
                    right[way] += ok
                    rows.append([str(t), str(slow_at), way, str(found), "right" if ok else "WRONG", f"{wall:.0f} s"])
                    print(" ".join(rows[-1]), file=sys.stderr, flush=True)  # progress; the table comes at the end
    table(log, ["try", "slow commit", "way", "named", "", "wall"], rows)
    for way, n in right.items():
        log(f"{way}: {n}/{args.tries if args.only is None else 1} right")
    if args.log:
        log("wrote", log.save("bisect"))


if __name__ == "__main__":
    main()
