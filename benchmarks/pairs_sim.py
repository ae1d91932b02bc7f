"""How worker pairs are joined into one interval (``pytest --mf-against``), on seeded simulated pairs (issue 33).

    python benchmarks/pairs_sim.py            # 4000 gates per cell, seeded: the same figures every time

Each simulated pair is a base and a head process; each process lands in its own speed mode (a normal
spread ``sd`` between processes, and with probability ``p_slow`` a slow mode of 5-12%), and the pair's
own rounds add a small noise (0.5%). A gate's verdict comes from ``k`` such pairs joined by:

* ``old``: the rule before 2026-12-05: the plain mean, the noise floor lending its degrees of freedom;
* ``new``: :func:`measurefirst.tools.against.between_pairs` (DerSimonian-Laird, Hartung-Knapp, t(k - 1)).

Printed per workload model and true change: the share of gates that call a regression (R: slower beyond
the 95% interval and 2%) and an improvement (I). At a true change of 0 both are wrong verdicts (nominal
2.5% each side at most); at 5% and 20% R is the detection rate. This is a model of the machine, not the
machine: ``benchmarks/gate_against.py`` measures the real gate.
"""

from __future__ import annotations

import math
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
from measurefirst.results import stats  # noqa: E402
from measurefirst.measure.noise import lent_dof  # noqa: E402
from measurefirst.tools.against import between_pairs  # noqa: E402

MODELS = {  # name: (pair spread between processes, share of processes in a slow mode, that mode's range, floor)
    "softmax-like": (0.01, 0.12, (0.05, 0.12), 0.0005),
    "add-like": (0.04, 0.0, (0.0, 0.0), 0.011),
}


def old_rule(logs: list[float], ses: list[float], floor: float, floor_dof: int) -> tuple[float, float]:
    """The rule before 2026-12-05: the plain mean, t with the floor's degrees of freedom lent."""
    k = len(logs)
    mean = sum(logs) / k
    within = sum(s * s for s in ses) / k
    observed = sum((x - mean) ** 2 for x in logs) / (k - 1)
    dof = (k - 1) + lent_dof(math.expm1(math.sqrt(observed / 2)), k, floor, floor_dof)
    return mean, stats.t975(dof) * math.sqrt((within + max(observed - within, 2 * math.log1p(floor) ** 2)) / k)


def pair(delta: float, sd: float, p_slow: float, slow: tuple[float, float]) -> float:
    def process() -> float:
        mode = math.log1p(random.uniform(*slow)) if random.random() < p_slow else 0.0
        return random.gauss(0, sd / math.sqrt(2)) + mode
    return math.log1p(delta) + process() - process() + random.gauss(0, 0.005)


def gate(rule: str, k: int, delta: float, model: tuple[float, float, tuple[float, float], float]) -> str:
    sd, p_slow, slow, floor = model
    logs = [pair(delta, sd, p_slow, slow) for _ in range(k)]
    mean, half = (old_rule if rule == "old" else between_pairs)(logs, [0.005] * k, floor, 2)
    if mean - half > 0 and math.exp(mean) > 1.02:
        return "R"
    if mean + half < 0 and math.exp(mean) < 1 / 1.02:
        return "I"
    return "U"


def main() -> None:
    random.seed(1)
    n = 4000
    for name, model in MODELS.items():
        for delta in (0.0, 0.05, 0.20):
            cells = []
            for rule, k in (("old", 3), ("new", 3), ("new", 4), ("new", 5)):
                got = [gate(rule, k, delta, model) for _ in range(n)]
                cells.append(f"{rule} k={k}: R {got.count('R') / n:.3f} I {got.count('I') / n:.3f}")
            print(f"{name:13s} change {delta:4.0%}  " + " | ".join(cells))


if __name__ == "__main__":
    main()
