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


class _FakeEvent:
    """Stands in for a CUDA/MPS event: records the host clock, reports milliseconds between records."""

    def __init__(self):
        self.t = None

    def record(self):
        self.t = time.perf_counter_ns()

    def synchronize(self):
        pass

    def elapsed_time(self, other):
        return (other.t - self.t) / 1e6


def test_event_timer_protocol_with_fake_events():
    from measurefirst.timers import Timer, _EventTimer

    timer = _EventTimer(torch.device("cpu"), _FakeEvent)  # a CPU "device": nothing to synchronize
    assert isinstance(timer, Timer)
    reading = timer.time(spin(100_000))
    assert reading.host_ns is not None and reading.host_ns <= reading.elapsed_ns * 1.5 + 1e5
    assert reading.elapsed_ns >= 90_000
    m = benchmark(spin(20_000), device="cpu", timer=timer, budget=0.5, min_time=0.05)
    assert m.host_median is not None and m.timer == "event"
