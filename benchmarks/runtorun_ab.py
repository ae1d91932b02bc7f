"""Two checkouts of measurefirst side by side, estimate by estimate, each estimate in a fresh interpreter:
does a change to the interval keep covering where re-runs land, and how wide is it?

    python benchmarks/runtorun_ab.py --before /tmp/before --after . --workloads add,matmul --repeats 2

``--before`` and ``--after`` are checkout roots (each with its own ``benchmarks/runtorun.py``, whose worker
puts that checkout's ``src`` first on the path). Per workload, the two are interleaved run by run, so they
share the machine's states; printed for each: the median estimate, the CV of the estimates, how many of the
intervals cover that median, the median relative half-width and its ratio to 1.96 x CV, and the lowest
ratio of an interval's lower end to its estimate. Set ``MEASUREFIRST_PROFILE`` to a missing file to measure
the no-profile default (the prior). A script, not a test: the machine's noise decides the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys


def cv(values: list[float]) -> float:
    """As runtorun.py computes it: the standard deviation over the mean."""
    return statistics.stdev(values) / statistics.mean(values)


def estimate(root: str, key: str, repeats: int | None) -> dict[str, object]:
    script = os.path.join(root, "benchmarks", "runtorun.py")
    more = [] if repeats is None else [str(repeats)]
    proc = subprocess.run([sys.executable, script, "--worker", "measurefirst", key, *more], check=True,
                          capture_output=True, text=True)
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", required=True, help="the checkout root measured first in each pair")
    ap.add_argument("--after", required=True, help="the checkout root measured second in each pair")
    ap.add_argument("--runs", type=int, default=10, help="estimates per checkout and workload (default 10)")
    ap.add_argument("--workloads", default="add,matmul", help="comma list of runtorun.py's --fresh workloads")
    ap.add_argument("--repeats", type=int, default=None, help="measurefirst's repetitions (default: its default)")
    args = ap.parse_args(argv)
    roots = {"before": os.path.abspath(args.before), "after": os.path.abspath(args.after)}
    for name, root in roots.items():
        if not os.path.isfile(os.path.join(root, "benchmarks", "runtorun.py")):
            ap.error(f"--{name} {root} has no benchmarks/runtorun.py; give a measurefirst checkout root")
    print(f"{args.runs} estimates per checkout, interleaved; repeats={args.repeats or 'default'}; "
          f"MEASUREFIRST_PROFILE={os.environ.get('MEASUREFIRST_PROFILE', '(unset)')}", flush=True)
    for key in args.workloads.split(","):
        results: dict[str, list[dict[str, object]]] = {name: [] for name in roots}
        for i in range(args.runs):
            for name, root in roots.items():
                results[name].append(estimate(root, key, args.repeats))
            print(f"  {key}: {i + 1}/{args.runs}", file=sys.stderr, flush=True)
        for name, rs in results.items():
            est = [float(r["estimate"]) for r in rs]  # type: ignore[arg-type]
            centre, spread = statistics.median(est), cv(est)
            cis = [(float(r["ci"][0]), float(r["ci"][1])) for r in rs]  # type: ignore[index]
            covered = sum(lo <= centre <= hi for lo, hi in cis)
            hw = statistics.median(float(r["half_width"]) for r in rs)  # type: ignore[arg-type]
            low = min(lo / e for (lo, _), e in zip(cis, est))
            print(f"{key:8s} {name:6s} median {centre * 1e6:10.3f} us  CV {spread:6.2%}  covers {covered}/{len(rs)}  "
                  f"median half-width ±{hw:.2%} ({hw / (1.96 * spread):.2f} x 1.96 CV)  lowest low/estimate {low:.3f}",
                  flush=True)


if __name__ == "__main__":
    main()
