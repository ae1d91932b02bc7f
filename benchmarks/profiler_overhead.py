"""What does profiling cost? The time of a step with and without measurefirst.profile(), and the
post-processing time (building the op tables) for a step with many tiny ops.

    python benchmarks/profiler_overhead.py
"""

from __future__ import annotations

import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))
import measurefirst  # noqa: E402
from measurefirst.profiling import capture  # noqa: E402


def mlp_step(model: torch.nn.Module, x: torch.Tensor) -> None:
    model(x).sum().backward()


def main() -> None:
    torch.manual_seed(0)
    model = torch.nn.Sequential(*[torch.nn.Linear(256, 256) for _ in range(8)])
    x = torch.randn(64, 256)
    step = lambda: mlp_step(model, x)  # noqa: E731
    plain = measurefirst.benchmark(step, device="cpu", budget=3.0)
    t0 = time.perf_counter()
    p = measurefirst.profile(step, device="cpu", steps=5)
    wall = time.perf_counter() - t0
    print(f"MLP training step, {len(list(model.parameters()))} parameters tensors:")
    print(f"  unprofiled step      {plain.median * 1e3:8.3f} ms (median, ±{plain.ci_half_width_rel:.1%})")
    print(f"  step under profiler  {p.step_s * 1e3:8.3f} ms ({p.step_s / plain.median:.2f}x)")
    print(f"  profile() wall time  {wall:8.3f} s for 2 warm-up + 7 profiled steps, tables included")

    for n_ops in (1_000, 10_000):
        xs = torch.ones(4)

        def many_tiny() -> None:
            y = xs
            for _ in range(n_ops):
                y = y + 1

        t0 = time.perf_counter()
        p = measurefirst.profile(many_tiny, device="cpu", steps=1, warmup=0)
        total = time.perf_counter() - t0
        plain_s = measurefirst.benchmark(many_tiny, device="cpu", budget=2.0).median
        # post-processing alone: rebuild the tables from the captured events
        collected = {}
        with capture.quiet_profiler_stderr():
            with torch.profiler.profile(record_shapes=True, profile_memory=True, with_flops=True) as prof:
                many_tiny()
        t1 = time.perf_counter()
        events = prof.events()
        t2 = time.perf_counter()
        capture._tables(events, 1, False)
        t3 = time.perf_counter()
        print(f"{n_ops:>6} tiny ops: step {plain_s * 1e3:.2f} ms unprofiled; profile() {total:.2f} s in all; "
              f"torch event parsing {t2 - t1:.2f} s; measurefirst tables {t3 - t2:.3f} s; "
              f"work ops counted {p.work_count:.0f}")
        del collected


if __name__ == "__main__":
    main()
