"""Budgets kept, on the real clock (issue 25): each case's wall time beside its budget and the bound
``budget + one call (of each candidate) + fixed overhead`` (see docs/budgets.md).

    PYTHONPATH=src python benchmarks/budget_kept.py
"""

from __future__ import annotations

import time

import torch

import measurefirst


def _sleep(seconds: float):
    def fn() -> None:
        time.sleep(seconds)
    return fn


def _allocate_256mb() -> None:
    torch.ones(2**26, dtype=torch.float32)  # 256 MiB, written


def main() -> None:
    print(f"{'case':<44} {'budget s':>8} {'one call s':>10} {'wall s':>8}  stop")
    cases = [
        ("benchmark(sleep 0.5 s)", 0.2, lambda: measurefirst.benchmark(_sleep(0.5), device="cpu", budget=0.2)),
        ("benchmark(sleep 0.15 s)", 0.2, lambda: measurefirst.benchmark(_sleep(0.15), device="cpu", budget=0.2)),
        ("benchmark(allocate 256 MiB)", 0.2, lambda: measurefirst.benchmark(_allocate_256mb, device="cpu",
                                                                           budget=0.2)),
        ("benchmark(sleep 1 ms, trials=10**8)", 0.2, lambda: measurefirst.benchmark(
            _sleep(0.001), device="cpu", budget=0.2, trials=10**8)),
        ("compare(1 ms, sleep 1 s)", 0.3, lambda: measurefirst.compare(
            {"fast": _sleep(0.001), "slow": _sleep(1.0)}, device="cpu", budget=0.3)),
    ]
    for name, budget, run in cases:
        t0 = time.perf_counter()
        r = run()
        wall = time.perf_counter() - t0
        m = r.measurements[-1] if hasattr(r, "measurements") else r
        print(f"{name:<44} {budget:>8.2f} {m.median:>10.3f} {wall:>8.2f}  {r.stop.reason}")


if __name__ == "__main__":
    main()
