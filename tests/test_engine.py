"""The measuring loop on a seeded simulated clock: exact counts and stopping decisions."""

import gc
import math

import pytest

from measurefirst import benchmark
from measurefirst.results import stats
from measurefirst.measure.engine import BenchmarkError, Interrupted, _warmup_falling
from measurefirst.measure.simulate import SimSpec, SimWorld


def run(spec: SimSpec, **options):
    world = SimWorld(spec)
    m = benchmark(world.function(), timer=world.timer(), device="cpu", **options)
    return world, m


def test_exact_counts_noise_free():
    # overhead 50 ns; every call 10 us; warm-up needs 0.05 s; number: 50 / (0.001 * 10 us) = 5
    world, m = run(SimSpec(call_ns=10_000, timer_ns=50), min_time=0.0, repeats=1)
    assert m.calibration.overhead_ns == 50
    assert m.warmup.cold_ns == 10_050
    assert m.warmup.calls == math.ceil(0.05e9 / 10_050)  # first call at which 0.05 s have passed
    assert m.warmup.steady
    assert m.calibration.number == 5
    assert m.n_samples == 10  # zero noise: CI width 0 as soon as min_samples is reached
    assert m.stop.reason == "precision" and m.target_met
    assert set(m.samples_ns) == {50 + 5 * 10_000}
    assert m.median == pytest.approx(10_010e-9)
    assert m.findings == ()


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
    assert any(w.code == "cold_start" for w in m.findings)


def test_warmup_cap_reports_not_steady():
    # still falling at the cap: warm-up stops at 0.25 * budget and says so
    # calls cost 1 ms + 100 ms * (4 - i): still falling fast when the cap (0.25 * 2 s) is reached
    spec = SimSpec(call_ns=1_000_000, timer_ns=50, warm_calls=3, warm_extra_ns=3e8)
    world, m = run(spec, budget=2.0, warmup_max_time=1.0, min_time=0.0)
    assert m.warmup.calls == 2  # 301 ms + 201 ms >= 0.5 s, and 201 < 0.95 * 301
    assert not m.warmup.steady
    assert "warmup_not_steady" in [w.code for w in m.findings]


def test_slow_steady_function_hitting_the_cap_is_steady():
    # 300 ms per call: only 4 calls fit under the 1 s cap, all equal: steady, no warning
    world, m = run(SimSpec(call_ns=300_000_000, timer_ns=50), budget=5.0, min_time=0.0)
    assert m.warmup.calls == 4 and m.warmup.steady
    assert "warmup_not_steady" not in [w.code for w in m.findings]


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
    world, m = run(spec, min_time=0.0, precision=0.01, number=1, repeats=1)
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
    m = benchmark(w.function(), timer=w.timer(), number=1, min_time=0.05, warmup_min_time=0.0, budget=0.5,
                  repeats=1)
    per_call = list(m.per_call_ns)
    first = per_call[: int(0.05e9 / 10_000)]
    assert stats.relative_half_width(first) <= 0.01  # the iid rule would have stopped at min_time
    assert stats.batch_half_width(first) > 0.01
    # it kept sampling until the batch medians agreed too, and stopped at the first check that passed
    assert m.n_samples > 2 * len(first)
    assert m.stop.reason == "precision" and stats.median_half_width(per_call) <= 0.01
    assert m.median == pytest.approx(10_050e-9, rel=0.02)


def test_budget_stops_sampling_and_reports_target_not_met():
    spec = SimSpec(call_ns=10_000, timer_ns=50, noise=0.5, seed=3)
    world, m = run(spec, budget=0.02, precision=0.001, number=1, min_time=0.0, warmup_min_time=0.0)
    assert m.stop.reason == "budget"
    assert not m.target_met
    assert world.now >= 0.02e9 > world.now - m.samples_ns[-1]  # the last sample crossed the deadline
    assert "precision_not_met" in [w.code for w in m.findings]


def test_fixed_mode_reproduces_the_classic_loop():
    world, m = run(SimSpec(call_ns=10_000, timer_ns=50, cold_ns=5000), warmup=3, trials=10)
    assert world.calls == 13  # exactly 3 warm-up calls, then 10 timed ones
    assert m.n_samples == 10 and set(m.numbers) == {1}
    assert m.warmup.cold_ns == 15_050 and m.warmup.calls == 2
    assert m.stop.reason == "trials"
    assert m.mean == pytest.approx(10_050e-9)


def test_fixed_trials_with_adaptive_warmup_and_fixed_number():
    world, m = run(SimSpec(call_ns=10_000, timer_ns=50), trials=7, number=3)
    assert m.n_samples == 7 and set(m.numbers) == {3}


def test_max_samples():
    world, m = run(SimSpec(call_ns=10_000, timer_ns=50, noise=0.5, seed=1), max_samples=12, precision=0.0001,
                   min_time=0.0)
    assert m.n_samples == 12 and m.stop.reason == "max_samples"


def test_preempted_samples_are_set_aside_while_a_minority():
    spec = SimSpec(call_ns=10_000, timer_ns=50, preempt_prob=0.2, preempt_ns=1_000_000, seed=5)
    world, m = run(spec, number=1, min_time=0.0, min_samples=50)
    assert 0 < m.n_preempted < m.n_samples / 2
    assert m.n_used == m.n_samples - m.n_preempted
    assert m.median == pytest.approx(10_050e-9) and m.max == pytest.approx(10_050e-9)
    world, kept = run(spec, number=1, min_time=0.0, min_samples=50, discard_preempted=False)
    assert kept.n_used == kept.n_samples and kept.mean > 2 * kept.median


def test_a_switch_that_cost_nothing_is_a_tick_and_the_sample_is_kept():
    from measurefirst.results.kinds import costly_preemptions

    # a 20 ms call on a quiet machine: a third of the samples meet a scheduler tick that costs 20 µs
    spec = SimSpec(call_ns=20_000_000, timer_ns=50, noise=0.01, preempt_prob=0.33, preempt_ns=20_000, seed=3)
    world, m = run(spec, number=1, min_time=0.0, min_samples=15, max_samples=15, precision=0.0001)
    switched = sum(1 for p in m.preempted if p > 0)
    assert switched >= 3 and m.n_preempted == 0 and m.n_used == m.n_samples == 15
    assert "preempted" not in [w.code for w in m.findings]
    # a real preemption (1 ms on a 10 µs call) costs time: set aside, counted
    assert list(costly_preemptions((0, 1, 0, 1), [10.0, 1010.0, 10.5, 10.2])) == [False, True, False, False]
    assert list(costly_preemptions((1, 1), [10.0, 12.0])) == [True, True]  # nothing clean to compare with
    assert list(costly_preemptions(None, [1.0])) == [False]


def test_a_starved_thread_pool_is_seen_without_a_switch_of_the_caller():
    from measurefirst.measure.timers import STARVED_CPU_SHARE, STARVED_MIN_NS, STARVED_WAITED_SHARE, preemptions

    # both cores busy: each 200 µs product waits 16 ms for a core, and no involuntary switch of ours shows it
    spec = SimSpec(call_ns=200_000, timer_ns=50, starve_prob=1.0, starve_ns=16_000_000, seed=2)
    world, m = run(spec, number=1, min_time=0.0, budget=0.5)
    assert world.switches == 0 and m.n_preempted == m.n_samples > 0
    assert "preempted" in [w.code for w in m.findings]
    # the rule: a share of a core below the line, on a sample long enough to judge
    assert preemptions(0, 1e6, 0.4e6) == 1 and preemptions(0, 1e6, 0.6e6) == 0
    assert preemptions(0, STARVED_MIN_NS / 2, 0.0) == 0 and preemptions(3, 1e6, 1e6) == 3
    assert preemptions(0, 1e6, None) == 0 and STARVED_CPU_SHARE == 0.5
    # off the CPU without waiting for one (a sleep, I/O): not preempted; waiting a quarter of it: preempted
    assert preemptions(0, 1e6, 0.1e6, 0.0) == 0 and preemptions(0, 1e6, 0.1e6, 0.24e6) == 0
    assert preemptions(0, 1e6, 0.1e6, STARVED_WAITED_SHARE * 1e6) == 1 and STARVED_WAITED_SHARE == 0.25
    assert preemptions(2, 1e6, 0.1e6, 0.0) == 2  # a switch of ours still counts


@pytest.mark.realclock
def test_a_real_sleep_is_not_preempted_and_reads_its_waits_cheaply():
    # the real clock, a quiet or busy machine alike: a sleep waits for no CPU (issue 35's false "preempted
    # 100%"); the bound is wide (a busy machine can delay a wake-up by a few ms: rarely a quarter of 20 ms)
    import time

    from measurefirst.measure.devices import Machine

    m = benchmark(lambda: time.sleep(0.02), device="cpu", number=1, min_time=0.0, min_samples=3, max_samples=8, budget=2.0)
    assert m.n_samples >= 3 and m.n_preempted <= m.n_samples // 2
    assert Machine().run_delay_ns() is not None and Machine().run_delay_ns(False) is not None


def test_preempted_majority_keeps_everything_and_warns():
    spec = SimSpec(call_ns=10_000, timer_ns=50, preempt_prob=0.8, preempt_ns=1000, seed=5)
    world, m = run(spec, number=1, min_time=0.0, budget=0.2)
    assert m.n_used == m.n_samples
    codes = [w.code for w in m.findings]
    assert "preempted" in codes


def test_setup_runs_before_each_sample_untimed():
    world = SimWorld(SimSpec(call_ns=10_000, timer_ns=50))
    calls = []

    def setup():
        calls.append(world.now)
        world.advance(1_000_000)  # 1 ms of setup that must not be timed

    m = benchmark(world.function(), timer=world.timer(), setup=setup, min_time=0.0)
    assert len(calls) >= m.n_samples
    assert set(m.samples_ns) == {50 + m.calibration.number * 10_000}


def test_gc_is_disabled_while_timing_and_restored():
    world = SimWorld(SimSpec(call_ns=10_000))
    seen = []

    def fn():
        seen.append(gc.isenabled())
        world.call()

    assert gc.isenabled()
    benchmark(fn, timer=world.timer(), min_time=0.0)
    assert not any(seen) and gc.isenabled()


def test_function_error_carries_label_phase_index_and_partial_results():
    world = SimWorld(SimSpec(call_ns=10_000, timer_ns=50))

    def fn():
        if world.calls == 6000:
            raise ZeroDivisionError("boom")
        world.call()

    with pytest.raises(BenchmarkError) as info:
        benchmark(fn, timer=world.timer(), label="mine", min_time=1.0)
    err = info.value
    assert err.label == "mine" and err.phase == "sampling"
    assert "'mine'" in str(err) and "ZeroDivisionError: boom" in str(err) and f"sample {err.index}" in str(err)
    assert isinstance(err.__cause__, ZeroDivisionError)
    assert err.partial is not None and err.partial.n_samples == err.index and not err.partial.complete


def test_error_during_warmup_names_the_phase():
    world = SimWorld(SimSpec(call_ns=10_000, fail_at=3))
    with pytest.raises(BenchmarkError, match="warm-up 2") as info:
        benchmark(world.function(), timer=world.timer())
    assert info.value.partial is None


def test_ctrl_c_returns_partial_measurement():
    world = SimWorld(SimSpec(call_ns=10_000, timer_ns=50, interrupt_at=5100))
    with pytest.raises(Interrupted) as info:
        benchmark(world.function(), timer=world.timer(), min_time=1.0)
    m = info.value.partial
    assert isinstance(info.value, KeyboardInterrupt)
    assert m is not None and not m.complete and m.n_samples > 0
    assert m.stop.reason == "interrupted"
    assert "incomplete" in [w.code for w in m.findings]
    assert "INCOMPLETE" in str(m)


@pytest.mark.parametrize(
    "kwargs, name",
    [({"precision": 0}, "precision"), ({"precision": -0.1}, "precision"), ({"budget": -1}, "budget"),
     ({"number": 0}, "number"), ({"trials": 0}, "trials"), ({"min_samples": 0}, "min_samples"),
     ({"warmup": -1}, "warmup"), ({"cold_cache": True, "number": 5}, "cold_cache"),
     ({"precision": 1.5}, "precision")],
)
def test_invalid_options_name_the_option(kwargs, name):
    with pytest.raises(ValueError, match=name):
        benchmark(lambda: None, device="cpu", **kwargs)


def test_benchmark_keywords_are_written_once_and_the_signature_is_made_from_them():
    import inspect
    from dataclasses import fields

    from measurefirst.measure.engine import BENCHMARK_KEYWORDS, CALL_DEFAULTS, BenchmarkOptions, Options

    hints = {k: getattr(v, "__forward_arg__", v) for k, v in BenchmarkOptions.__annotations__.items()}
    for f in fields(Options):  # the engine's knobs are benchmark's keywords, with the same types
        assert hints[f.name] == f.type, f.name
    assert set(BENCHMARK_KEYWORDS) == {f.name for f in fields(Options)} | set(CALL_DEFAULTS)
    params = inspect.signature(benchmark).parameters
    assert list(params) == ["fn", *BENCHMARK_KEYWORDS, "count"]
    assert {k: params[k].default for k in CALL_DEFAULTS} == CALL_DEFAULTS
    assert all(params[f.name].default == getattr(Options(), f.name) for f in fields(Options))


def test_an_unknown_keyword_is_refused_naming_the_nearest_one():
    with pytest.raises(TypeError, match="unexpected keyword argument 'precison'; did you mean 'precision'"):
        benchmark(lambda: None, device="cpu", precison=0.1)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="the keywords are: device, label"):
        benchmark(lambda: None, zzz=1)  # type: ignore[call-overload]


def test_non_callable_is_a_type_error_that_says_what_to_pass():
    with pytest.raises(TypeError, match="lambda"):
        benchmark(42)  # type: ignore[arg-type]


def test_cuda_graph_on_cpu_is_refused():
    with pytest.raises(ValueError, match="CUDA"):
        benchmark(lambda: None, device="cpu", cuda_graph=True)


def test_timer_option_validation():
    with pytest.raises(ValueError, match="timer"):
        benchmark(lambda: None, device="cpu", timer="sundial")
    with pytest.raises(ValueError, match="wall"):
        benchmark(lambda: None, device="cpu", timer="event")


def test_drift_during_the_run_is_reported():
    world = SimWorld(SimSpec(call_ns=10_000, timer_ns=50))

    def fn():  # the machine slows down by 30% half-way through sampling
        world.call()
        if world.now > 0.05e9:
            world.advance(3_000)

    m = benchmark(fn, timer=world.timer(), number=1, min_time=0.1, warmup_min_time=0.0, precision=0.5)
    drift = [w for w in m.findings if w.code == "drift"]
    assert drift and drift[0].value == pytest.approx(0.3, abs=0.01)
    world, steady = run(SimSpec(call_ns=10_000, timer_ns=50, noise=0.02, seed=4), min_time=0.05)
    assert "drift" not in [w.code for w in steady.findings]


# ---- repetitions: the run-to-run spread a call measures itself ----------------------------------------
def test_repetitions_cut_the_run_and_the_precision_rule_waits_for_all_of_them():
    # zero noise: each repetition needs REPEAT_MIN_SAMPLES samples and min_time / repeats seconds;
    # 10 us calls (number 5, 50 us samples), min_time 0.01 s: a slice of 2 ms is 40 samples
    world, m = run(SimSpec(call_ns=10_000, timer_ns=50), min_time=0.01, repeats=5)
    assert m.repeats is not None and len(m.repeats) == 5
    assert sum(m.repeats) == m.n_samples
    per_sample_ns = 5 * 10_000 + 50
    for count in m.repeats:
        assert count == math.ceil(0.002e9 / per_sample_ns)
    assert m.stop.reason == "precision"
    rr = m.run_to_run
    assert rr is not None and rr.source == "repeats" and rr.n == 5 and rr.cv == 0.0
    assert rr.factor == pytest.approx(stats.t975(4) * math.sqrt(1 + 1 / 5))
    assert m.ci_includes_run_to_run


def test_a_slower_stretch_between_repetitions_shows_in_the_spread_and_the_headline_interval():
    w = SimWorld(SimSpec(call_ns=10_000, timer_ns=50, noise=0.002, seed=5))
    # the machine is 10% slower for 5 ms out of every 20 ms: repetitions land on either speed
    w.drift = lambda now: 1.1 if (now // 5_000_000) % 4 == 1 else 1.0
    m = benchmark(w.function(), timer=w.timer(), number=1, min_time=0.05, warmup_min_time=0.0, budget=1.0,
                  repeats=6)
    rr = m.run_to_run
    assert rr is not None and rr.n >= 2
    logs = [math.log(x) for x in rr.medians_ns]
    mean = sum(logs) / len(logs)
    sd = math.sqrt(sum((x - mean) ** 2 for x in logs) / (len(logs) - 1))
    assert rr.cv == pytest.approx(math.expm1(sd))
    lo, hi = m.ci
    plo, phi = m.precision_ci
    med, r = m.median, rr.factor * math.log1p(rr.spread)
    assert lo == pytest.approx(med * math.exp(-math.hypot(math.log(med / plo), r)), rel=1e-12)
    assert hi == pytest.approx(med * math.exp(math.hypot(math.log(phi / med), r)), rel=1e-12)
    assert m.ci_half_width_rel == pytest.approx((hi - lo) / 2 / med, rel=1e-12)
    assert m.ci_half_width_rel >= m.precision_half_width_rel
    assert lo <= plo and hi >= phi


def test_stretches_longer_than_a_repetition_go_to_the_run_to_run_spread_and_the_headline_covers_them():
    # the same machine as above (1.6x slower for 20 ms of every 60 ms), with repetitions of 10 ms: each
    # repetition sits mostly in one speed, so the spread between them holds the stretches
    w = SimWorld(SimSpec(call_ns=10_000, timer_ns=50, noise=0.01, seed=3))
    w.drift = lambda now: 1.6 if (now // 20_000_000) % 3 == 0 else 1.0
    m = benchmark(w.function(), timer=w.timer(), number=1, min_time=0.05, warmup_min_time=0.0, budget=0.5)
    assert m.run_to_run is not None and m.run_to_run.cv > 0.05
    lo, hi = m.ci
    assert lo <= 10_050e-9 <= hi  # the fast speed's time is inside where the next run may land


def test_fixed_trials_make_one_repetition_and_measure_no_spread():
    world, m = run(SimSpec(call_ns=10_000, timer_ns=50), warmup=3, trials=10)
    assert m.n_samples == 10 and m.repeats is None and m.run_to_run is None
    assert m.ci == m.precision_ci and not m.ci_includes_run_to_run


def test_repeats_and_trials_together_are_refused_with_the_fix():
    with pytest.raises(ValueError, match="drop repeats"):
        run(SimSpec(call_ns=10_000, timer_ns=50), trials=10, repeats=3)


def test_a_repetition_ends_only_with_enough_samples_the_statistics_use():
    # one sample in three is preempted: each repetition still holds REPEAT_MIN_SAMPLES clean samples, so all
    # five count towards the spread (its 95% factor is the one for 5, not for the 2 that had enough)
    from measurefirst.measure.engine import REPEAT_MIN_SAMPLES

    w = SimWorld(call_ns=2e6, timer_ns=50, preempt_prob=0.34, preempt_ns=1e5, seed=2)
    m = benchmark(w.function(), timer=w.timer(), device="cpu", number=1, min_time=0.02, warmup_min_time=0.0)
    assert m.repeats is not None and len(m.repeats) >= 5
    first = 0
    for count in m.repeats[:-1]:
        clean = sum(1 for p in m.preempted[first:first + count] if p <= 0)
        assert clean >= REPEAT_MIN_SAMPLES or count >= 3 * REPEAT_MIN_SAMPLES
        first += count
    assert m.run_to_run is not None and m.run_to_run.n >= 5


def test_a_long_warmup_keeps_the_first_and_last_call_times_and_counts_them_all():
    """A 10 us call warms up over 0.05 s: 5,000 calls, each timed alone. The result counts them all and keeps
    the times of the first 64 (the fall: 20 warming calls) and the last 64 (where it settled), not 5,000."""
    from measurefirst.results.kinds import WARMUP_TIMES_KEPT, kept_warmup_times

    spec = SimSpec(call_ns=10_000, timer_ns=50, warm_calls=20, warm_extra_ns=50_000, cold_ns=1_000_000)
    world, m = run(spec, min_time=0.0, repeats=1)
    w = m.warmup
    assert w.calls > 10 * WARMUP_TIMES_KEPT and len(w.times_ns) == WARMUP_TIMES_KEPT
    assert w.times_ns[0] > w.times_ns[19] > w.times_ns[20] == w.times_ns[-1] == 10_050  # the fall, then steady
    assert m.calibration.number == 5  # chosen from the last calls, as before: 50 ns / (0.001 * 10 us)
    assert kept_warmup_times(list(range(300))) == (*range(64), *range(236, 300))
    assert kept_warmup_times([1.0, 2.0]) == (1.0, 2.0)
