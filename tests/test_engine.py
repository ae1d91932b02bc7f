"""The measuring loop on a seeded simulated clock: exact counts and stopping decisions."""

import gc
import math

import pytest

from measurefirst import benchmark, stats
from measurefirst.engine import (
    OVERHEAD_REPS,
    BenchmarkError,
    Interrupted,
    Options,
    _warmup_falling,
    measure,
)
from measurefirst.simulate import SimSpec, SimWorld


def run(spec: SimSpec, **options):
    world = SimWorld(spec)
    m = benchmark(world.function(), timer=world.timer(), device="cpu", **options)
    return world, m


def test_exact_counts_noise_free():
    # overhead 50 ns; every call 10 us; warm-up needs 0.05 s; number: 50 / (0.001 * 10 us) = 5
    world, m = run(SimSpec(call_ns=10_000, timer_ns=50), min_time=0.0)
    assert m.calibration.overhead_ns == 50
    assert m.warmup.cold_ns == 10_050
    assert m.warmup.calls == math.ceil(0.05e9 / 10_050)  # first call at which 0.05 s have passed
    assert m.warmup.steady
    assert m.calibration.number == 5
    assert m.n_samples == 10  # zero noise: CI width 0 as soon as min_samples is reached
    assert m.stop.reason == "precision" and m.target_met
    assert set(m.samples_ns) == {50 + 5 * 10_000}
    assert m.median == pytest.approx(10_010e-9)
    assert m.warnings == ()


def test_min_time_sets_the_sample_count():
    world, m = run(SimSpec(call_ns=10_000, timer_ns=50), min_time=0.01)
    assert m.n_samples == math.ceil(0.01e9 / 50_050)


def test_warmup_runs_until_per_call_time_stops_falling():
    # calls 1..20 after the cold one pay an extra 2500 ns * (21 - i); by hand: falling through call 24
    spec = SimSpec(call_ns=10_000, timer_ns=50, warm_calls=20, warm_extra_ns=50_000, cold_ns=1_000_000)
    world, m = run(spec, warmup_min_time=0.0, min_time=0.0)
    assert m.warmup.calls == 25
    times = list(m.warmup.times_ns)
    assert all(_warmup_falling(times[:k]) for k in range(6, 25))
    assert not _warmup_falling(times)
    assert m.warmup.cold_ns == 1_010_050
    assert any(w.code == "cold_call" for w in m.warnings)


def test_warmup_cap_reports_not_steady():
    # still falling at the cap: warm-up stops at 0.25 * budget and says so
    # calls cost 1 ms + 10 ms * (31 - i): still falling fast when the cap (0.25 * 2 s) is reached
    spec = SimSpec(call_ns=1_000_000, timer_ns=50, warm_calls=30, warm_extra_ns=3e8)
    world, m = run(spec, budget=2.0, warmup_max_time=1.0, min_time=0.0)
    assert m.warmup.calls == 2  # 300 ms + 290 ms >= 0.5 s
    assert not m.warmup.steady
    assert "warmup_not_steady" in [w.code for w in m.warnings]


def test_calibration_from_overhead_and_resolution():
    fast = dict(min_time=0.0, warmup_min_time=0.0)
    world, m = run(SimSpec(call_ns=100, timer_ns=200), **fast)
    assert m.calibration.number == 2000  # 200 / (0.001 * 100)
    world, m = run(SimSpec(call_ns=100, timer_ns=200, resolution_ns=1000), **fast)
    assert m.calibration.number == 10_000  # resolution dominates: 1000 / (0.001 * 100)
    world, m = run(SimSpec(call_ns=100, timer_ns=200), precision=0.05, **fast)
    assert m.calibration.number == 400  # a looser target needs shorter samples: 200 / (0.005 * 100)


def test_calibration_grows_for_calls_shorter_than_the_overhead():
    world, m = run(SimSpec(call_ns=10, timer_ns=200, warm_calls=0), min_time=0.0, warmup_min_time=0.0)
    assert m.calibration.number == 20_000  # 200 / (0.001 * 10)
    assert m.median == pytest.approx((200 + 20_000 * 10) / 20_000 * 1e-9)


def test_overhead_is_measured_not_assumed():
    world, m = run(SimSpec(call_ns=10_000, timer_ns=300, sync_ns=700), min_time=0.0)
    assert m.calibration.overhead_ns == 1000
    assert m.calibration.number == 100  # 1000 / (0.001 * 10_000)


def test_adaptive_stop_is_the_first_sample_meeting_the_target():
    spec = SimSpec(call_ns=10_000, timer_ns=50, noise=0.05, seed=7)
    world, m = run(spec, min_time=0.0, precision=0.01, number=1)
    per_call = list(m.per_call_ns)
    n = m.n_samples
    assert m.stop.reason == "precision"
    assert stats.median_half_width(per_call) <= 0.01
    for k in range(10, n):
        assert stats.median_half_width(per_call[:k]) > 0.01, k
    assert n > 10  # noise made it take more than the minimum


def test_time_correlated_noise_widens_the_ci_and_delays_the_stop():
    # the machine alternates between normal and 1.6x slower speed (20 ms slow, 40 ms normal): samples
    # within a stretch agree, so the order-statistic CI alone would stop early, falsely narrow
    w = SimWorld(SimSpec(call_ns=10_000, timer_ns=50, noise=0.01, seed=3))
    w.drift = lambda now: 1.6 if (now // 20_000_000) % 3 == 0 else 1.0
    m = benchmark(w.function(), timer=w.timer(), number=1, min_time=0.05, warmup_min_time=0.0, budget=0.5)
    per_call = list(m.per_call_ns)
    first = per_call[: int(0.05e9 / 10_000)]
    assert stats.relative_half_width(first) <= 0.01  # the iid rule would have stopped at min_time
    assert stats.batch_half_width(first) > 0.01
    # it kept sampling until the batch medians agreed too, and stopped at the first check that passed
    assert m.n_samples > 2 * len(first)
    assert m.stop.reason == "precision" and stats.median_half_width(per_call) <= 0.01
    assert m.median == pytest.approx(10_050e-9, rel=0.02)
