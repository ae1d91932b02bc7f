"""compare(): interleaving order, paired statistics and stopping decisions on the simulated clock."""

import math

import pytest

from measurefirst import benchmark
from measurefirst.results import stats
from measurefirst.tools.compare import Comparison, compare, paired_verdict, settled
from measurefirst.measure.engine import BenchmarkError, Interrupted
from measurefirst.measure.simulate import SimSpec, SimWorld


def world(**kw):
    return SimWorld(SimSpec(**{"call_ns": 100_000, "timer_ns": 100, **kw}))


def test_abba_order_and_block_sizes():
    w = world()
    c = compare({"a": w.function(100_000), "b": w.function(100_000), "c": w.function(200_000)},
                timer=w.timer(), device="cpu", min_time=0.0)
    # rounds come in pairs, an order then its reverse; each pair's order is drawn (seeded), so a
    # load that switches in step with a fixed schedule cannot favour one candidate
    pairs = [c.orders[i] for i in range(0, len(c.orders) - 1, 2)]
    assert all(c.orders[i + 1] == tuple(reversed(c.orders[i])) for i in range(0, len(c.orders) - 1, 2))
    assert all(sorted(p) == [0, 1, 2] for p in pairs) and len(set(pairs)) > 1
    # no noise: every verdict settles at the first check, after min_rounds rounds
    assert len(c.orders) == 10 and c.stop.reason == "precision"
    # block = round(5 ms / sample); sample = number * call + overhead
    for m in c.measurements:
        number = m.calibration.number
        per_block = round(5e6 / (number * m.calibration.per_call_estimate_ns + 100))
        assert m.n_samples == 10 * per_block
    assert [v.verdict for v in c.verdicts] == ["baseline", "no difference", "slower"]
    assert c.verdict("c").ratio == pytest.approx(2.0, rel=1e-3)
    assert c.verdict("c").words() == "2.00x slower"


def test_shuffle_order_is_seeded():
    orders = []
    for _ in range(2):
        w = world()
        c = compare({"a": w.function(), "b": w.function(), "c": w.function()}, timer=w.timer(), device="cpu",
                    order="shuffle", seed=3, min_time=0.0)
        orders.append(c.orders)
    assert orders[0] == orders[1]
    assert len(set(orders[0])) > 1


def test_stops_at_the_first_round_where_every_verdict_is_settled():
    w = world(noise=0.05, seed=11)
    c = compare({"a": w.function(100_000), "b": w.function(103_000)}, timer=w.timer(), device="cpu",
                min_time=0.0)
    base, cand = c.block_values_ns
    n = len(c.orders)
    assert settled(paired_verdict("b", "a", cand, base), 0.005)
    for k in range(10, n):
        assert not settled(paired_verdict("b", "a", cand[:k], base[:k]), 0.005), k
    assert c.verdict("b").verdict == "slower"


def test_a_comparison_the_budget_stopped_says_how_long_each_unsettled_verdict_would_take():
    from measurefirst.render.text import comparison_lines
    from measurefirst.results.comparison import Verdict, settle_factor

    # the arithmetic: the half-width over the larger of half the estimated difference and the precision, squared
    near = Verdict("b", "a", 1.01, (0.98, 1.0404), "no difference", 0.0302, 20)
    assert settle_factor(near, 0.005) == pytest.approx((0.0302 / 0.005) ** 2)
    apart = Verdict("b", "a", 1.05, (1.0, 1.10), "no difference", 0.0476, 20)
    assert settle_factor(apart, 0.005) == pytest.approx((0.0476 / (math.log(1.05) / 2)) ** 2)
    assert settle_factor(Verdict("b", "a", 1.05, (1.04, 1.06), "slower", 0.0095, 20), 0.005) is None  # settled
    assert settle_factor(Verdict("b", "a", 1.05, (0.9, 1.2), "undecided", 0.14, 20, "drift"), 0.005) is None
    assert settle_factor(Verdict("b", "a", 1.05, None, "undecided", None, 2, "too_few_rounds"), 0.005) is None
    # a noisy pair 1% apart and a short budget: it stops unsettled and says, per candidate, the budget at this pace
    w = world(noise=0.5, seed=3)
    c = compare({"a": w.function(100_000), "b": w.function(101_000)}, timer=w.timer(), device="cpu",
                budget=0.15, min_time=0.05)
    v = c.verdict("b")
    assert c.stop.reason == "budget" and not c.stop.target_met and not settled(v, 0.005)
    eta = c.settle_seconds()
    factor = settle_factor(v, c.stop.precision)
    assert factor is not None and set(eta) == {"b"} and eta["b"] == pytest.approx(c.stop.seconds * factor)
    shown = f"{eta['b']:.1f}" if eta["b"] < 10 else f"{eta['b']:.0f}"
    en, zh = comparison_lines(c, "en")[-1], comparison_lines(c, "zh")[-1]
    assert f"b would settle within a budget of about {shown} s" in en and f"约需 {shown} 秒的预算" in zh
    w = world()
    settled_run = compare({"a": w.function(100_000), "b": w.function(200_000)}, timer=w.timer(), device="cpu",
                          min_time=0.0)
    assert settled_run.settle_seconds() == {} and "would settle" not in comparison_lines(settled_run)[-1]


def test_interleaving_defeats_drift_that_fools_a_sequential_run():
    # the machine slows down steadily: +20% per simulated second
    def drifting():
        w = world(noise=0.01, seed=5)
        w.drift = lambda now: 1.0 + 0.2 * now / 1e9
        return w

    w = drifting()
    a = benchmark(w.function(100_000), timer=w.timer(), min_time=0.3)
    b = benchmark(w.function(100_000), timer=w.timer(), min_time=0.3)
    assert b.median / a.median > 1.04  # sequential: B looks >4% slower though it is the same

    w = drifting()
    c = compare({"a": w.function(100_000), "b": w.function(100_000)}, timer=w.timer(), device="cpu")
    v = c.verdict("b")
    assert v.verdict == "no difference"
    assert v.ratio_ci is not None and v.ratio_ci[0] < 1 < v.ratio_ci[1]

    w = drifting()
    c = compare({"a": w.function(100_000), "b": w.function(98_000)}, timer=w.timer(), device="cpu")
    v = c.verdict("b")
    assert v.verdict == "faster" and v.ratio_ci is not None and v.ratio_ci[0] < 0.98 < v.ratio_ci[1]


def test_budget_stops_an_unsettled_comparison():
    w = world(noise=0.3, seed=2)
    c = compare({"a": w.function(100_000), "b": w.function(100_500)}, timer=w.timer(), device="cpu",
                budget=0.5, precision=0.0001)
    assert c.stop.reason == "budget" and not c.stop.target_met
    assert w.now >= 0.5e9


def test_paired_statistics_on_literal_data():
    base = [100.0] * 10
    order = (0.05, 0.01, 0.09, 0.03, 0.07, 0.02, 0.10, 0.04, 0.08, 0.06)  # no trend across rounds
    cand = [100.0 * math.exp(x) for x in order]
    v = paired_verdict("b", "a", cand, base)
    # Hodges-Lehmann of 0.01..0.10 is 0.055; the signed-rank 95% CI (n=10, c=8) is [0.03, 0.08]
    assert v.ratio == pytest.approx(math.exp(0.055))
    assert v.ratio_ci == pytest.approx((math.exp(0.03), math.exp(0.08)))
    # the speed-up and its CI on one scale: 1/ratio, the bounds swapped
    assert v.speedup == pytest.approx(math.exp(-0.055))
    assert v.speedup_ci == pytest.approx((math.exp(-0.08), math.exp(-0.03)))
    assert v.verdict == "slower" and v.words() == "5.7% slower"
    few = paired_verdict("b", "a", cand[:5], base[:5])
    assert few.verdict == "undecided" and few.ratio_ci is None and few.speedup_ci is None
    # the same ratios rising round after round are not independent rounds: no verdict from them
    trend = paired_verdict("b", "a", sorted(cand), base)
    assert trend.verdict == "undecided"


def test_hodges_lehmann_matches_r():
    # R: wilcox.test(1:10, conf.int = TRUE) -> estimate 5.5, CI 3 .. 8
    est = stats.hodges_lehmann(list(range(1, 11)))
    assert (est.estimate, est.ci_low, est.ci_high) == (5.5, 3.0, 8.0)
    assert stats.signed_rank_critical(5) is None
    assert stats.signed_rank_critical(6) == 0 and stats.signed_rank_critical(20) == 52


def test_verdict_words():
    v = paired_verdict("b", "a", [50.0] * 10, [100.0] * 10)
    assert v.verdict == "faster" and v.words() == "2.00x faster"


def test_json_round_trip():
    w = world(noise=0.02, seed=1)
    c = compare({"a": w.function(100_000), "b": w.function(101_000)}, timer=w.timer(), device="cpu")
    back = Comparison.from_dict(__import__("json").loads(c.to_json()))
    assert back == c
    assert "interleaved rounds" in str(c)


def test_bad_input():
    w = world()
    with pytest.raises(ValueError, match="unique"):
        compare([("a", w.function()), ("a", w.function())], timer=w.timer(), device="cpu")
    with pytest.raises(ValueError, match="at least two"):
        compare({"a": w.function()}, timer=w.timer(), device="cpu")
    with pytest.raises(TypeError, match="'b'"):
        compare({"a": w.function(), "b": 3}, timer=w.timer(), device="cpu")
    with pytest.raises(ValueError, match="baseline"):
        compare({"a": w.function(), "b": w.function()}, baseline="z", timer=w.timer(), device="cpu")
    with pytest.raises(ValueError, match="order"):
        compare({"a": w.function(), "b": w.function()}, order="zigzag", timer=w.timer(), device="cpu")


def test_failing_candidate_is_named_and_partial_results_kept():
    w = world()
    calls = {"n": 0}

    def flaky():
        calls["n"] += 1
        if calls["n"] > 3000:
            raise ValueError("bad input")
        w.call(100_000)

    with pytest.raises(BenchmarkError, match="'flaky'") as info:
        compare({"ok": w.function(), "flaky": flaky}, timer=w.timer(), device="cpu", min_time=5.0)
    partial = info.value.partial
    assert partial is not None and not partial.complete
    assert len(partial.block_values_ns[0]) == len(partial.block_values_ns[1]) == len(partial.orders)


def test_ctrl_c_keeps_complete_rounds():
    w = world()
    calls = {"n": 0}

    def interrupted():
        calls["n"] += 1
        if calls["n"] > 600:
            raise KeyboardInterrupt
        w.call(100_000)

    with pytest.raises(Interrupted) as info:
        compare({"a": w.function(), "b": interrupted}, timer=w.timer(), device="cpu", min_time=5.0)
    c = info.value.partial
    assert isinstance(c, Comparison) and not c.complete and len(c.orders) > 0


def test_a_comparison_file_written_with_ci_low_and_ci_high_loads_as_the_ratio_ci():
    w = world()
    c = compare({"a": w.function(100_000), "b": w.function(50_000)}, timer=w.timer(), device="cpu")
    d = c.to_dict()
    v = c.verdict("b")
    assert tuple(d["verdicts"][1]["ratio_ci"]) == v.ratio_ci
    for old in d["verdicts"]:  # as files were written before ratio_ci: ci_low/ci_high, on the ratio's scale
        lo_hi = old.pop("ratio_ci")
        old["ci_low"], old["ci_high"] = (None, None) if lo_hi is None else lo_hi
    back = Comparison.from_dict(d)
    assert back.verdicts == c.verdicts
    assert back.verdict("b").ratio_ci == v.ratio_ci and v.ratio_ci[1] < 1 < v.speedup_ci[0]


@pytest.mark.parametrize("factor", [11.0, 2.0, 0.5])
def test_large_differences_are_decided_within_half_a_second(factor):
    # far outside every round's spread: the sign test over pairs of rounds decides, before min_time
    w = world(noise=0.05, seed=4)
    c = compare({"a": w.function(100_000), "b": w.function(100_000 * factor)}, timer=w.timer(), device="cpu")
    v = c.verdict("b")
    assert v.verdict == ("slower" if factor > 1 else "faster") and v.reason == "large"
    assert v.ratio_ci is not None and v.ratio_ci[0] < factor < v.ratio_ci[1]
    assert w.now <= 0.5e9 and c.stop.reason == "precision"


def test_large_rule_on_literal_data():
    # twelve rounds 11x apart, rising steadily: too correlated for three batches, but every pair of
    # rounds is far beyond the run's swing; the sign interval of the pairs' means bounds the ratio
    base = [100.0 * (1 + 0.002 * i) for i in range(12)]
    cand = [1100.0 * (1 + 0.003 * i) for i in range(12)]
    v = paired_verdict("b", "a", cand, base)
    assert v.verdict == "slower" and v.reason == "large"
    # the rounds' ratios run from 11.00 to 11.11; the interval spans them and no more
    assert v.ratio == pytest.approx(11.06, abs=0.01)
    assert v.ratio_ci == pytest.approx((11.0, 11.118), abs=0.001)
    # 5.5% apart and rising: not far enough; undecided, and says why
    trend = paired_verdict("b", "a", [100.0 * math.exp(0.01 * i) for i in range(10)], [100.0] * 10)
    assert trend.verdict == "undecided" and trend.reason == "too_few_rounds"
    assert "too few" in trend.words()


def _phased(seed, quiet_a, quiet_b, busy_a, busy_b, period_ns):
    """Two candidates on a machine whose load switches every ``period_ns``; under load each slows by
    its own factor (a memory-bound pair need not slow down alike)."""
    w = world(noise=0.02, seed=seed)

    def busy():
        return int(w.now // period_ns) % 2 == 1

    return w, (lambda: w.call(quiet_a * (busy_a if busy() else 1.0))), (lambda: w.call(quiet_b * (busy_b if busy() else 1.0)))


@pytest.mark.parametrize("seed", [0, 1])
def test_load_that_changes_the_ratio_makes_the_verdict_wait_never_flip(seed):
    # quiet: b is 1% slower (the truth); loaded (every other 0.3 s): b slows less than a, 3.5%
    # faster; the rounds mixed would say "faster", the wrong way
    w, a, b = _phased(seed, 100_000, 101_000, 1.5, 1.5 * 0.965 / 1.01, 0.3e9)
    v = compare({"a": a, "b": b}, timer=w.timer(), device="cpu").verdict("b")
    assert v.verdict == "undecided" and v.reason == "drift"
    assert v.ratio_ci is not None and v.ratio_ci[0] <= 1.01 <= v.ratio_ci[1]
    assert "load" in v.words()


@pytest.mark.parametrize("truth", [0.99, 1.01])
@pytest.mark.parametrize("seed", [3, 4])
def test_load_in_step_with_the_rounds_never_gives_the_wrong_direction(seed, truth):
    # the load switches every 10.2 ms: near the length of two blocks, so with a fixed A B B A A B...
    # schedule it would stay busy in one candidate's blocks for a while (and did: "27% slower" for a
    # candidate 1% faster, decided in 0.2 s)
    w = world(noise=0.02, seed=seed)
    w.drift = lambda now: 1.3 if int(now // 10.2e6) % 2 == 1 else 1.0
    v = compare({"a": w.function(100_000), "b": w.function(100_000 * truth)}, timer=w.timer(),
                device="cpu").verdict("b")
    wrong = "slower" if truth < 1 else "faster"
    assert v.verdict != wrong and v.reason != "large"
    assert v.ratio_ci is not None and v.ratio_ci[0] <= truth <= v.ratio_ci[1]


def test_a_one_percent_difference_on_a_steady_machine_is_still_found():
    for seed in range(3):
        w = world(noise=0.05, seed=seed)
        v = compare({"a": w.function(100_000), "b": w.function(101_000)}, timer=w.timer(), device="cpu").verdict("b")
        assert v.verdict == "slower" and v.reason is None
        assert v.ratio_ci is not None and v.ratio_ci[0] < 1.01 < v.ratio_ci[1]


def test_a_verdict_written_before_reason_loads_with_none():
    w = world()
    c = compare({"a": w.function(100_000), "b": w.function(50_000)}, timer=w.timer(), device="cpu")
    assert c.verdict("b").reason == "large"
    d = c.to_dict()
    for old in d["verdicts"]:
        old.pop("reason")
    back = Comparison.from_dict(d)
    assert back.verdict("b").reason is None and back.verdict("b").ratio_ci == c.verdict("b").ratio_ci


def test_block_sizes_give_close_candidates_the_same_count_and_at_least_three():
    from measurefirst.tools.compare import block_sizes

    # 3.4 ms and 3.3 ms samples in 5 ms blocks were 1 and 2 samples: a one-sample "median" against
    # a two-sample one, hit unequally by every interruption
    assert block_sizes([3.4e6, 3.3e6], 0.005) == [3, 3]
    assert block_sizes([1.0e6, 1.2e6], 0.005) == [5, 5]  # 5 ms / 1.095 ms (their geometric mean)
    assert block_sizes([100e3, 100e3, 200e3], 0.005) == [50, 50, 25]  # 2x apart: each its own


def test_interruptions_the_timer_cannot_see_hit_both_candidates_alike():
    # calls of ~3.4 ms, one in ten stretched by 30 ms (not counted as a context switch, so not set
    # aside): b is 3% faster
    import random

    for seed in (0, 3):
        w = world(noise=0.02, seed=seed)
        rng = random.Random(seed + 100)

        def make(ns):
            return lambda: w.call(ns + (30e6 if rng.random() < 0.1 else 0.0))

        c = compare({"a": make(3.4e6), "b": make(3.3e6)}, timer=w.timer(), device="cpu")
        v = c.verdict("b")
        assert [m.n_samples for m in c.measurements] == [3 * len(c.orders)] * 2
        assert v.verdict == "faster" and v.ratio_ci is not None and v.ratio_ci[0] < 3.3 / 3.4 < v.ratio_ci[1]


def test_undecided_verdicts_say_why_in_both_languages():
    from measurefirst.tools.compare import Verdict
    from measurefirst.lecture.demos import verdict_words as lecture_words
    from measurefirst.render.words import verdict_words

    drift = Verdict("b", "a", 1.0, (0.9, 1.1), "undecided", 0.1, 100, "drift")
    few = Verdict("b", "a", 1.0, None, "undecided", None, 8, "too_few_rounds")
    assert "load" in verdict_words(drift, "en") and "负载" in verdict_words(drift, "zh")
    assert "too few" in verdict_words(few, "en") and "不足" in verdict_words(few, "zh")
    assert "load" in lecture_words(drift, "en")[1] and "负载" in lecture_words(drift, "zh")[1]
    assert "too few" in lecture_words(few, "en")[1]
