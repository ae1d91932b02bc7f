"""The experimental speed reference (benchmark(..., reference=...)), on the seeded simulated clock."""

import statistics

import pytest

from measurefirst import benchmark
from measurefirst.results.reference import BUILTIN_LABEL, reference_number, reference_work
from measurefirst.results.kinds import Measurement
from measurefirst.measure.simulate import SimSpec, SimWorld


def slowing_world():
    """Fast for the first 40 ms of every 120 ms, 1.8x slower for the rest: most samples are slow."""
    w = SimWorld(SimSpec(call_ns=20_000, timer_ns=50, seed=1))
    w.drift = lambda now: 1.0 if (now % 120_000_000) < 40_000_000 else 1.8
    return w


def test_the_normalized_estimate_recovers_the_fast_state_exactly():
    w = slowing_world()
    m = benchmark(w.function(), timer=w.timer(), device="cpu", reference=w.function(1000, "reference"), repeats=1)
    n = m.calibration.number
    fast = (n * 20_000 + 50) / n / 1e9  # what a sample reads per call in the fast state
    assert m.median == pytest.approx((n * 36_000 + 50) / n / 1e9, rel=1e-12)  # the raw median: slow
    norm = m.normalized
    assert norm.median == pytest.approx(fast, rel=1e-12)
    assert norm.speed_factor == pytest.approx(1.8, rel=1e-12) and norm.two_speeds
    assert norm.fast_reference_ns == pytest.approx(1000.0)
    # one reference sample after each sample, each about as long as a sample
    assert len(m.reference.samples_ns) == m.n_samples and m.reference.label == "reference"
    assert statistics.median(m.reference.samples_ns) == pytest.approx(statistics.median(m.samples_ns), rel=0.05)
    assert reference_number(72_000, 1800) == 40 and reference_number(10, 1800) == 1
    assert "normalized to the machine's fast state; median speed factor 1.800" in str(m)


def test_the_raw_statistics_are_those_of_the_samples_alone():
    w = slowing_world()
    m = benchmark(w.function(), timer=w.timer(), device="cpu", reference=w.function(1000, "reference"),
                  trials=200)
    plain = Measurement(m.label, m.device, m.timer, m.samples_ns, m.numbers, m.host_ns, m.preempted, m.warmup,
                        m.calibration, m.stop)
    assert (m.median, m.ci, m.iqr) == (plain.median, plain.ci, plain.iqr)
    assert plain.normalized is None


def test_on_a_steady_machine_the_speed_factor_is_one():
    w = SimWorld(SimSpec(call_ns=20_000, timer_ns=50, noise=0.01, seed=3))
    m = benchmark(w.function(), timer=w.timer(), device="cpu", reference=w.function(2000, "reference"))
    assert m.normalized.speed_factor == pytest.approx(1.0, abs=0.01) and not m.normalized.two_speeds
    assert m.normalized.median == pytest.approx(m.median, rel=0.02)


def test_the_reference_round_trips_through_json():
    w = slowing_world()
    m = benchmark(w.function(), timer=w.timer(), device="cpu", reference=w.function(1000, "reference"), trials=50)
    back = Measurement.from_json(m.to_json())
    assert back.reference == m.reference
    assert back.normalized == m.normalized
    assert "reference" not in benchmark(w.function(), timer=w.timer(), device="cpu", trials=20).to_dict()


def test_the_builtin_reference_and_bad_values():
    reference_work()  # runs, allocates nothing worth saying
    w = SimWorld(SimSpec(call_ns=20_000, timer_ns=50, seed=1))
    with pytest.raises(TypeError, match="reference must be True, False or a callable"):
        benchmark(w.function(), timer=w.timer(), device="cpu", reference="yes")
    m = benchmark(lambda: sum(range(100)), device="cpu", reference=True, trials=20, warmup=2)
    assert m.reference.label == BUILTIN_LABEL and m.normalized is not None


def test_a_reference_sample_that_read_no_time_is_left_out_not_the_whole_normalization():
    import dataclasses

    from measurefirst.results.reference import normalize

    w = slowing_world()
    m = benchmark(w.function(), timer=w.timer(), device="cpu", reference=w.function(1000, "reference"), repeats=1)
    ref = m.reference
    lost = list(ref.samples_ns)
    lost[0] = lost[5] = ref.overhead_ns  # two clock readings lost to the noise: no time beyond the overhead
    kept = normalize(m, dataclasses.replace(ref, samples_ns=tuple(lost)))
    assert kept is not None and kept.median == pytest.approx(m.normalized.median, rel=1e-12)
    assert kept.speed_factor == pytest.approx(m.normalized.speed_factor, rel=1e-12)
    none = normalize(m, dataclasses.replace(ref, samples_ns=tuple(ref.overhead_ns for _ in ref.samples_ns)))
    assert none is None
