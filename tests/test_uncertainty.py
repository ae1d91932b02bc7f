"""Honest uncertainty on a machine that changes speed, asserted on the seeded simulated clock."""

import math
import random

import pytest

from measurefirst import benchmark, compare
from measurefirst.measure.engine import EARLY_STOP_SECONDS
from measurefirst.render.findings import finding_words
from measurefirst.measure.simulate import SimSpec, SimWorld


def two_speed_world(seed, stretch_ns, slow=2.2, call_ns=2000.0, noise=0.02):
    """A machine that runs at one of two speeds, switching after random stretches (mean ``stretch_ns``)."""
    w = SimWorld(SimSpec(call_ns=call_ns, timer_ns=50, noise=noise, seed=seed))
    rng = random.Random(seed)
    edges, t, is_slow = [], 0.0, rng.random() < 0.5
    while t < 30e9:
        t += rng.expovariate(1 / stretch_ns)
        edges.append((t, is_slow))
        is_slow = not is_slow

    def drift(now):
        for end, s in edges:
            if now < end:
                return slow if s else 1.0
        return 1.0

    w.drift = drift
    return w


def test_a_run_that_sees_two_speeds_reports_them_and_widens_its_interval():
    w = two_speed_world(seed=0, stretch_ns=0.1e9)
    m = benchmark(w.function(), timer=w.timer(), device="cpu", min_time=1.0)
    codes = [f.code for f in m.findings]
    assert "speed_modes" in codes
    f = next(f for f in m.findings if f.code == "speed_modes")
    assert f.context["stretches"] and f.value == pytest.approx(2.2, rel=0.05)
    assert "changed speed during the run, in stretches" in finding_words(f).message
    assert m.ci_half_width_rel > 0.1  # near half the samples at each speed: the median could be either
    assert m.summary.ci_method == "batch_ranks"
    assert m.ci[0] <= 2004e-9 and m.ci[1] >= 2.2 * 2000e-9 * 0.98


def test_out_of_reach_target_stops_after_about_a_second_with_the_interval_it_has():
    w = SimWorld(SimSpec(call_ns=2e6, timer_ns=50, noise=0.5, seed=4))  # 2 ms calls, very noisy
    m = benchmark(w.function(), timer=w.timer(), device="cpu")
    assert m.stop.reason == "noise" and not m.stop.target_met
    assert EARLY_STOP_SECONDS + 0.25 <= m.stop.seconds <= EARLY_STOP_SECONDS + 0.3
    assert w.now <= 1.5e9  # warm-up included
    f = next(f for f in m.findings if f.code == "noise_floor")
    assert f.value == pytest.approx(m.precision_half_width_rel) and f.value > 0.01  # the interval the rule judged
    # the projection was right: spending the whole budget does not reach the target either
    w2 = SimWorld(SimSpec(call_ns=2e6, timer_ns=50, noise=0.5, seed=4))
    full = benchmark(w2.function(), timer=w2.timer(), device="cpu", stop_early=False)
    assert full.stop.reason == "budget" and not full.stop.target_met and full.stop.seconds > 4


def test_a_steady_machine_keeps_its_precision_and_speed():
    w = SimWorld(SimSpec(call_ns=20_000, timer_ns=50, noise=0.002, seed=1))
    m = benchmark(w.function(), timer=w.timer(), device="cpu")
    assert m.stop.reason == "precision" and m.ci_half_width_rel <= 0.001
    assert w.now <= 0.5e9
    assert "speed_modes" not in [f.code for f in m.findings]


def test_intervals_that_see_the_stretches_cover_the_consensus():
    runs = []
    for seed in range(10):
        w = two_speed_world(seed, stretch_ns=0.1e9)
        runs.append(benchmark(w.function(), timer=w.timer(), device="cpu", min_time=1.0))
    medians = sorted(m.median for m in runs)
    consensus = (medians[4] + medians[5]) / 2
    covered = sum(m.ci[0] <= consensus <= m.ci[1] for m in runs)
    assert covered >= 9


def _regime_pair(seed, period_ns=0.7e9, gap=0.02):
    """Two candidates 2% apart on a quiet machine; under load (every other ``period_ns``) the
    load slows both and the second 4% less than the first, so their ratio flips (a memory-bound
    pair under contention). Paired rounds within one stretch of load agree with each other."""
    w = SimWorld(SimSpec(timer_ns=50, noise=0.01, seed=seed))
    phase = random.Random(seed).random() * 2 * period_ns

    def busy(now):
        return int((now + phase) // period_ns) % 2 == 1

    w.drift = lambda now: 1.8 if busy(now) else 1.0

    def a():
        w.call(100_000)

    def b():
        w.call(100_000 * (1 + gap) * (0.96 if busy(w.now) else 1.0))

    return w, a, b


def test_compare_never_points_the_wrong_way_under_alternating_load():
    for seed in range(10):
        w, a, b = _regime_pair(seed)
        c = compare({"a": a, "b": b}, timer=w.timer(), device="cpu")
        v = c.verdict("b")
        # averaged over the load, b is no faster than a (2% slower idle, ~2% faster busy)
        assert v.verdict != "faster", (seed, v)


def test_compare_ci_holds_for_correlated_rounds():
    """Rounds in stretches that share a ratio (8 stretches of 25 rounds, each stretch's ratio drawn
    around 1.01 with sd 2%): over 200 seeded runs the corrected interval covers 1.01 at least 90% of
    the time, where the signed-rank interval, which assumes independent rounds, rarely does."""
    from measurefirst.results import stats
    from measurefirst.tools.compare import paired_verdict

    base = [100.0] * 200
    covered = covered_iid = 0
    for seed in range(200):
        rng = random.Random(seed)
        levels = [1.01 + 0.02 * rng.gauss(0, 1) for _ in range(8)]
        cand = [100.0 * lv * (1 + 0.001 * rng.gauss(0, 1)) for lv in levels for _ in range(25)]
        v = paired_verdict("b", "a", cand, base)
        covered += v.ratio_ci is None or v.ratio_ci[0] <= 1.01 <= v.ratio_ci[1]
        hl = stats.hodges_lehmann([math.log(c / 100.0) for c in cand])
        covered_iid += math.exp(hl.ci_low) <= 1.01 <= math.exp(hl.ci_high)
    assert covered >= 180
    assert covered_iid <= 100
