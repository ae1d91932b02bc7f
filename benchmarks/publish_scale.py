"""How long ``measurefirst publish`` takes on a large history (issue 36: a 10,000-run history in ≤ 10 s).

    python benchmarks/publish_scale.py            # 10,000 runs of one benchmark, and 10,000 over 100
    python benchmarks/publish_scale.py --runs 20000

Builds each store from imported pytest-benchmark runs (a 5% step and noise of 2%), then times the
command as a user runs it (a fresh interpreter: ``python -m measurefirst publish -o DIR --store S``), and
prints the wall time, the pages written and the site's size. The machine decides the figures.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
from measurefirst.results.importers import from_pytest_benchmark  # noqa: E402
from measurefirst.results.store import Store  # noqa: E402


def _run(i: int, v: float) -> dict:
    q = v * 0.005
    return {"machine_info": {"node": "ci"}, "commit_info": {"id": f"{i:08x}" + "c" * 32, "dirty": False},
            "datetime": f"2026-{1 + i // 28 % 12:02d}-{1 + i % 28:02d}T00:00:00", "version": "4.0.0",
            "benchmarks": [{"name": "t", "fullname": "t.py::t", "group": None, "params": None,
                            "stats": {"min": v - 4 * q, "max": v + 4 * q, "mean": v, "stddev": q, "rounds": 50,
                                      "median": v, "iqr": 2 * q, "q1": v - q, "q3": v + q, "iqr_outliers": 0,
                                      "stddev_outliers": 0, "outliers": "0;0", "ld15iqr": v - 3 * q,
                                      "hd15iqr": v + 3 * q, "ops": 1 / v, "total": 50 * v, "iterations": 1}}]}


def build(path: str, runs: int, names: int, rng: random.Random) -> None:
    per = runs // names
    with Store(path) as st:
        for k in range(names):
            ms = [from_pytest_benchmark(_run(i, 1e-3 * math.exp(rng.gauss(0, 0.02)) * (1.05 if i >= per // 2 else 1)))[0]
                  for i in range(per)]
            st.save_many(ms, names=[f"suite/bench_{k:03d}"] * per)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=10_000)
    args = ap.parse_args()
    rng = random.Random(36)
    print(f"$ python benchmarks/publish_scale.py --runs {args.runs}")
    print(f"{'history':<34} {'publish wall':>12} {'pages':>6} {'site size':>10}")
    for names in (1, 100):
        with tempfile.TemporaryDirectory() as tmp:
            store = os.path.join(tmp, "s.db")
            build(store, args.runs, names, rng)
            out = os.path.join(tmp, "site")
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "measurefirst", "publish", "-o", out, "--store", store], check=True,
                           capture_output=True)
            wall = time.perf_counter() - t
            files = [os.path.join(d, f) for d, _, fs in os.walk(out) for f in fs]
            size = sum(os.path.getsize(f) for f in files)
            label = f"{args.runs} runs of {names} benchmark(s)"
            print(f"{label:<34} {wall:>10.2f} s {len(files):>6} {size / 2**20:>7.1f} MiB")


if __name__ == "__main__":
    main()
