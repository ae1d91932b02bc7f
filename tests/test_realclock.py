"""A few tests on the real clock: orderings with wide margins only (shared, noisy machines)."""

import time

import pytest
import torch

from measurefirst import benchmark

pytestmark = pytest.mark.realclock


def spin(ns):
    clock = time.perf_counter_ns

    def f():
        end = clock() + ns
        while clock() < end:
            pass

    return f


def test_busy_waits_are_ordered_and_roughly_right():
    short = benchmark(spin(20_000), device="cpu", budget=1.0, min_time=0.05)
    long = benchmark(spin(200_000), device="cpu", budget=1.0, min_time=0.05)
    assert short.median < long.median
    assert 150e-6 < long.median < 2e-3  # 200 µs, with a very wide margin for a loaded machine
    assert short.timer == "wall" and short.device == "cpu"


def test_tiny_calls_get_an_inner_loop():
    x = torch.ones(1)
    m = benchmark(lambda: torch.add(x, x), device="cpu", budget=1.0, min_time=0.05)
    assert m.calibration.number > 1
    assert m.median < 1e-3


def test_cold_cache_mode_runs_on_cpu():
    a = torch.randn(64, 64)
    m = benchmark(lambda: a @ a, device="cpu", cold_cache=True, budget=1.0, min_time=0.05)
    assert set(m.numbers) == {1} and m.n_samples > 0
