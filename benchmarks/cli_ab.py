"""Two checkouts of measurefirst side by side: the same commands, run interleaved in new processes (A, B,
A, B, ...), so that both see the same load; the median wall seconds of each, and their ratio.

    python benchmarks/cli_ab.py --a /work/main/src --store-a OLD.db --b src --store-b NEW.db \\
        "runs" "history bench7" "compare @bench7" "report @bench7 -o r.html" "--version"

Each command runs once untimed on each side first (bytecode cached, as an installed package has it;
PYTHONDONTWRITEBYTECODE is dropped for the children). A store built by a newer checkout may be refused by an
older one ("written by a newer measurefirst"): give each side its own store. This is a script, not a test.
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time


def run(src: str, store: str | None, args: list[str], folder: str) -> float:
    env = {**os.environ, "PYTHONPATH": src}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    argv = [sys.executable, "-m", "measurefirst", *args, *(["--store", store] if store and args[0] != "--version" else [])]
    t0 = time.perf_counter()
    done = subprocess.run(argv, cwd=folder, env=env, capture_output=True, text=True)
    took = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.strip()[-400:]}")
    return took


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--a", required=True, help="the src folder of checkout A")
    ap.add_argument("--b", required=True, help="the src folder of checkout B")
    ap.add_argument("--store-a")
    ap.add_argument("--store-b")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("commands", nargs="+", help="each a command line, quoted")
    args = ap.parse_args()
    folder = tempfile.mkdtemp(prefix="mf-ab-")
    print(f"{'command':28s} {'A s':>7s} {'B s':>7s} {'B/A':>6s}   (median of {args.repeats}, interleaved)")
    for command in args.commands:
        words = shlex.split(command)
        sides = ((args.a, args.store_a), (args.b, args.store_b))
        for src, store in sides:
            run(src, store, words, folder)
        times: list[list[float]] = [[], []]
        for _ in range(args.repeats):
            for k, (src, store) in enumerate(sides):
                times[k].append(run(src, store, words, folder))
        a, b = statistics.median(times[0]), statistics.median(times[1])
        print(f"{command:28s} {a:7.3f} {b:7.3f} {b / a:6.2f}", flush=True)


if __name__ == "__main__":
    main()
