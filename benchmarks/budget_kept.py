"""Budgets kept, on the real clock (issue 25): each case's wall time beside its budget and the bound
``budget + one call (of each candidate) + fixed overhead`` (see docs/budgets.md).

    PYTHONPATH=src python benchmarks/budget_kept.py             # the real clock
    PYTHONPATH=src python benchmarks/budget_kept.py --simulated # exact, on the simulated clock
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


def simulated() -> None:
    """The same cases on the simulated clock: exact simulated seconds and calls of the function."""
    from measurefirst.measure.simulate import SimWorld

    print(f"{'case (simulated)':<44} {'budget s':>8} {'one call s':>10} {'total s':>8} {'calls':>6}  stop")
    for call_s in (3.0, 0.5, 0.15, 0.05):
        w = SimWorld(call_ns=call_s * 1e9)
        m = measurefirst.benchmark(w.function(), timer=w.timer(), device="cpu", budget=0.2)
        print(f"{'benchmark':<44} {0.2:>8.2f} {call_s:>10.3f} {w.now / 1e9:>8.3f} {w.calls:>6}  {m.stop.reason}")
    w = SimWorld(call_ns=1e6)
    c = measurefirst.compare({"fast": w.function(1e6, "fast"), "slow": w.function(2e9, "slow")}, timer=w.timer(),
                             device="cpu", budget=0.3)
    print(f"{'compare(1 ms, 2 s)':<44} {0.3:>8.2f} {2.0:>10.3f} {w.now / 1e9:>8.3f} {w.calls:>6}  {c.stop.reason}")


if __name__ == "__main__":
    import sys

    simulated() if "--simulated" in sys.argv[1:] else main()
