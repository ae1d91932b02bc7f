"""How many worker pairs a 5% slowdown needs at the gate's level, from the pair ratios the gate measured (issue 33).

    python benchmarks/pairs_needed.py            # seeded: the same figures every time (a few seconds)

``benchmarks/gate_against.py --log`` keeps, for each run whose softmax verdict was not "no difference", the ratio
of every worker pair (``docs/gate-against-*.txt``: ``pairs 1.052 0.975 ...``). This script pools those ratios by
head (unchanged; softmax 5% slower), draws ``k`` of them at random (with replacement, seeded) for ``k`` from 4 to
16, and joins them with the interval that binds the gate's (:func:`measurefirst.tools.against.plain_pairs`, at
the level of a run of four comparisons, :func:`measurefirst.results.regression.look_level`), as the gate does
when it fails a test: the interval above 1 and the estimate above the 2% threshold.

Printed per ``k``: the share of draws from the 5% pool that would fail the test (detections) and from the
unchanged pool (false failures). The unchanged pool holds only runs whose verdict was not "no difference" (the
log keeps no other), so its scatter is the wider side of the truth: its false failures are an upper bound. The
draws are independent pairs; the real gate's pairs of one run share that run's minutes. This reads the gate's
measured scatter, not a model of it (``benchmarks/pairs_sim.py`` is the model).
"""

from __future__ import annotations

import glob
import math
import os
import random
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
from measurefirst.results.regression import look_level  # noqa: E402
from measurefirst.tools.against import plain_pairs  # noqa: E402

DOCS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs")
LINE = re.compile(r"^\s+(unchanged|softmax 5% slower) --mf-against: test_softmax ratio .*; pairs ([0-9. ]+)$")
THRESHOLD = 0.02
TESTS = 4  # the suite of gate_against.py: one error for its four comparisons
DRAWS = 4000


def pools() -> dict[str, list[float]]:
    """The logged pair ratios (as logs) by head, from every gate log in docs/."""
    out: dict[str, list[float]] = {"unchanged": [], "softmax 5% slower": []}
    for path in sorted(glob.glob(os.path.join(DOCS, "gate-against-*.txt"))):
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                m = LINE.match(line.rstrip("\n"))
                if m:
                    out[m.group(1)] += [math.log(float(x)) for x in m.group(2).split()]
    return out


def fails(logs: list[float]) -> bool:
    """The gate's regression: the plain mean's interval above 1 and its estimate above the threshold."""
    mean, half = plain_pairs(logs, 0.0, look_level(TESTS))
    return mean - half > 0.0 and mean > math.log1p(THRESHOLD)


def main() -> None:
    rng = random.Random(33)
    pooled = pools()
    print(f"pairs logged: unchanged {len(pooled['unchanged'])}, softmax 5% slower {len(pooled['softmax 5% slower'])} "
          f"(docs/gate-against-*.txt); level {look_level(TESTS):.4f} (one error for {TESTS} comparisons), "
          f"threshold {THRESHOLD:.0%}, {DRAWS} draws per cell")
    print("pairs | 5% slower: caught | unchanged: failed")
    for k in (4, 6, 8, 10, 12, 16):
        caught = sum(fails([rng.choice(pooled["softmax 5% slower"]) for _ in range(k)]) for _ in range(DRAWS))
        false = sum(fails([rng.choice(pooled["unchanged"]) for _ in range(k)]) for _ in range(DRAWS))
        print(f"{k:5d} | {caught / DRAWS:17.1%} | {false / DRAWS:17.2%}")


if __name__ == "__main__":
    main()
