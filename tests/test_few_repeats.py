"""Intervals from two or three repetitions: a noise profile's (or the prior's) floor lends the 95% factor
its degrees of freedom, never its smaller scale; the interval lives on the log scale (its lower end is
never 0) and every output shows it by its sides when they differ. Exact, on the simulated clock and with
hand-built spreads; one structural run of pytest-benchmark's ``pedantic(rounds=10)`` on the real clock."""

from __future__ import annotations

import json
import math
import re
from dataclasses import replace

import pytest

from measurefirst import benchmark
from measurefirst.results import stats
from measurefirst.measure.noise import PRIOR_DOF, NoiseProfile, ProfileEntry, apply_profile, lent_dof, profile_key
from measurefirst.measure.simulate import SimSpec, SimWorld
from measurefirst.render.text import FACTOR_FROM, SIDES_AGREE, ci_range, interval_rel, interval_words, time_unit
from measurefirst.results.kinds import Measurement, RunToRun, spread_factor

pytest_plugins = ["pytester"]


def _profile(processes: int = 6, inflation: float = 1.0) -> NoiseProfile:
    """A profile whose busy-wait floor is 0.5% at 20 µs and whose inflation is ``inflation`` exactly."""
    entries = (ProfileEntry("python", 2e-6, 0.02, 0.01, processes), ProfileEntry("python", 20e-6, 0.005, 0.001, processes),
               ProfileEntry("python", 2e-3, 0.001, 0.0002, processes),
               ProfileEntry("compute", 190e-6, 0.05 * inflation, 0.05, processes))
    return NoiseProfile(key=profile_key("cpu", 2), created="2026-01-01T00:00:00+00:00", torch_threads=2,
                        entries=entries, processes=processes)


def _two_repeats() -> Measurement:
    """A 20 µs call measured in two repetitions on the simulated clock, with no profile."""
    w = SimWorld(SimSpec(call_ns=20_000, timer_ns=50, noise=0.01, seed=5))
    m = benchmark(w.function(), timer=w.timer(), device="cpu", budget=1.0, repeats=2, noise_profile=False)
    assert m.run_to_run is not None and m.run_to_run.n == 2 and m.run_to_run.prior_dof == 0
    return m


def _with_cv(m: Measurement, cv: float) -> Measurement:
    """``m`` as if its two repetitions had spread ``cv`` (no floor: the factor of two values alone)."""
    return replace(m, run_to_run=RunToRun(cv=cv, source="repeats", n=2, factor=spread_factor(2)))


def test_two_repetitions_with_a_profile_floor_get_the_pooled_factor():
    m = _two_repeats()
    p = _profile(processes=6)
    out = apply_profile(m, p)
    rr = out.run_to_run
    assert rr.floor == pytest.approx(p.floor(m.median)) and rr.floor > 0 and rr.floor_source == "profile"
    assert rr.prior_dof == p.processes - 1
    # t(0.975, prior_dof + n - 1) x sqrt(1 + 1/n): the conjugate posterior predictive's factor
    assert rr.factor == pytest.approx(stats.t975(p.processes - 1 + 1) * math.sqrt(1 + 1 / 2), rel=1e-12)
    assert rr.factor < m.run_to_run.factor  # two values alone: t(0.975, 1) x sqrt(1.5)
    # the reader recomputes the interval from the stored fields
    r = spread_factor(rr.n, rr.prior_dof) * math.log1p(max(rr.cv, rr.floor))
    lo, hi = out.ci
    plo, phi = out.precision_ci
    assert lo == pytest.approx(out.median * math.exp(-math.hypot(math.log(out.median / plo), r)), rel=1e-12)
    assert hi == pytest.approx(out.median * math.exp(math.hypot(math.log(phi / out.median), r)), rel=1e-12)


def test_the_prior_lends_fewer_degrees_of_freedom_than_its_reference_machine():
    m = _two_repeats()
    p = _profile(processes=6)
    prior = apply_profile(m, p, "prior", 1.0).run_to_run
    own = apply_profile(m, p).run_to_run
    assert prior.prior_dof == PRIOR_DOF < p.processes - 1 == own.prior_dof
    assert own.factor < prior.factor == spread_factor(2, PRIOR_DOF) < spread_factor(2)


def test_the_measured_spread_is_never_pulled_below_itself():
    """A call noisier than the busy-wait floor keeps its own spread: the floor is a lower bound on the
    scale, and the spread used is never below the conjugate pooled scale."""
    floor = _profile().floor(_two_repeats().median)
    m = _with_cv(_two_repeats(), 2 * floor)  # within what chance allows of the floor: it lends its dof
    out = apply_profile(m, _profile(inflation=1.0), inflation=1.0).run_to_run  # the floor's arithmetic alone
    assert out.floor < out.cv == m.run_to_run.cv and out.spread == out.cv and out.prior_dof == 5
    pooled = math.sqrt((out.prior_dof * out.floor ** 2 + (out.n - 1) * out.cv ** 2) / (out.prior_dof + out.n - 1))
    assert out.spread > pooled
    quiet = apply_profile(_with_cv(_two_repeats(), 0.0), _profile(inflation=1.0), inflation=1.0).run_to_run
    assert quiet.spread == quiet.floor > 0  # and never below the floor


def test_a_spread_the_floor_cannot_explain_borrows_nothing_from_it():
    """A prior-data conflict: two repetitions spread beyond what the floor allows by chance ((cv/floor)^2
    above the 95% quantile of F(n - 1, dof), 6.61 for F(1, 5)): the floor says nothing about this work's
    scale and lends no degrees of freedom; the factor is the two values' own. Exactly at the edge."""
    m0 = _two_repeats()
    floor = _profile().floor(m0.median)
    edge = math.sqrt(stats.f_quantile(0.95, 1, 5))
    assert edge == pytest.approx(stats.t975(5))  # F(1, d) = t(d)^2
    # the floor's arithmetic alone (no inflation: a run's own is never below the prior's, run_inflation)
    inside = apply_profile(_with_cv(m0, floor * edge * 0.999), _profile(inflation=1.0), inflation=1.0).run_to_run
    outside = apply_profile(_with_cv(m0, floor * edge * 1.001), _profile(inflation=1.0), inflation=1.0).run_to_run
    assert inside.prior_dof == 5 and inside.factor == pytest.approx(spread_factor(2, 5))
    assert outside.prior_dof == 0 and outside.factor == pytest.approx(spread_factor(2))
    far = apply_profile(_with_cv(m0, 0.2), _profile(inflation=1.0))  # 40 times the floor
    # ...and far beyond the profile's work of that length inside a process (issue 35): widened as without a
    # profile, by the prior's inflation, multiplying the spread only up to what its repetitions had (the rest added)
    from measurefirst.measure.noise import prior_inflation, prior_profile
    from measurefirst.results.noise import prior_widening

    reach = max(_profile(inflation=1.0).within_at(m0.median), prior_profile().within_at(m0.median))
    factor = prior_widening(0.2, prior_inflation(m0.median), reach)[0]
    assert far.options["noise_profile_disagrees"] > 0 and 1.0 < factor < prior_inflation(m0.median)
    assert far.run_to_run.prior_dof == 0 and far.run_to_run.spread == pytest.approx(0.2 * factor)
    assert far.ci[0] > 0 and far.ci_sides_rel[1] > 8.0  # honest: two values that far apart bound nothing


def test_the_old_absurd_case_is_bounded_and_its_lower_end_is_not_zero():
    """Two repetitions alone: a factor over 10 either way (the +889% of a pedantic run); with this
    machine's profile and a spread the floor can explain, the next run within a few percent."""
    m0 = _two_repeats()
    floor = _profile().floor(m0.median)
    m = _with_cv(m0, 2 * floor)
    old_down, old_up = m.ci_sides_rel
    assert old_up > 0.1 and m.ci[0] > 0
    new = apply_profile(m, _profile(inflation=1.0), inflation=1.0)  # the floor's dof alone, no inflation
    down, up = new.ci_sides_rel
    assert 0 < down < up and new.ci[0] > 0
    assert up < old_up / 4


@pytest.mark.parametrize("cv", [0.0, 0.02, 0.2, 1.0, 20.0])
def test_the_lower_end_is_positive_and_never_shown_as_zero(cv):
    m = _with_cv(_two_repeats(), cv)
    for x in (m, apply_profile(m, _profile())):
        lo, hi = x.ci
        assert 0 < lo < x.median < hi
        unit = time_unit(x.median)
        low_text = ci_range(x.ci, (hi - lo) / 2, unit).split("–")[0]
        assert float(low_text) > 0, low_text


def test_every_output_shows_the_sides_the_json_holds():
    base = _two_repeats()
    seen = set()
    for cv in (0.0005, 0.02, 0.5):
        m = apply_profile(_with_cv(base, cv), _profile(), inflation=1.0)
        d = json.loads(json.dumps(m.to_dict()))
        down, up = d["interval"]["sides_rel"]
        assert (down, up) == pytest.approx(m.ci_sides_rel, rel=1e-12)
        assert (down, up) == pytest.approx((1 - d["interval"]["ci_seconds"][0] / d["stats_seconds"]["median"],
                                            d["interval"]["ci_seconds"][1] / d["stats_seconds"]["median"] - 1))
        text = interval_rel(m)
        below = 1 / (1 - down)
        if abs(down - up) <= SIDES_AGREE * max(down, up):
            assert text == f"±{d['interval']['half_width']:.1%}" or text == f"±{d['interval']['half_width']:.2%}"
            seen.add("pm")
        elif up >= FACTOR_FROM and max(below, 1 + up) <= (1 + SIDES_AGREE) * min(below, 1 + up):
            assert text == f"×/÷{max(1 + up, below):.3g}"
            seen.add("factor")
        else:
            assert text == f"-{down:.1%}/+{up:.1%}" or text == f"-{down:.2%}/+{up:.2%}"
            seen.add("sides")
        assert f" {text} " in interval_words(m) and text in repr(m)
        assert interval_rel(m, pm=False) == text.removeprefix("±")
    assert seen == {"pm", "sides", "factor"}


def test_sides_that_differ_are_shown_apart_and_a_factor_only_where_both_ways_agree():
    from types import SimpleNamespace

    def shown(down: float, up: float) -> str:
        return interval_rel(SimpleNamespace(ci_sides_rel=(down, up), ci_half_width_rel=(down + up) / 2))  # type: ignore[arg-type]

    assert shown(0.053, 0.005) == "-5.3%/+0.5%"  # an interval of order statistics, off centre: not ±2.9%
    assert shown(0.02, 0.021).startswith("±2.")
    wide = shown(0.09, 21.6)  # 11 µs in 10–249 µs: not ×/÷22, which would reach down to 0.5 µs
    assert wide.startswith("-9") and "/+" in wide and "×" not in wide
    assert shown(1 - 1 / 4.2, 3.2) == "×/÷4.2"


def test_an_old_file_without_prior_dof_reads_as_it_was_written():
    m = _two_repeats()
    d = m.to_dict()
    assert d["run_to_run"]["prior_dof"] == 0
    del d["run_to_run"]["prior_dof"]  # as written before the field existed
    back = Measurement.from_dict(d)
    assert back.run_to_run == m.run_to_run and back.ci == m.ci
    pooled = apply_profile(m, _profile())
    again = Measurement.from_dict(json.loads(json.dumps(pooled.to_dict())))
    assert again.run_to_run == pooled.run_to_run and again.run_to_run.prior_dof == 5 and again.ci == pooled.ci
    d = pooled.to_dict()
    d["run_to_run"]["prior_dof"] = -1
    with pytest.raises(ValueError, match=re.escape("run_to_run.prior_dof must be >= 0")):
        Measurement.from_dict(d)


PEDANTIC = """
import pytest

def work():
    return sum(range(200))

# every sample used (a busy machine's preemptions cannot leave a repetition too few to count)
@pytest.mark.measurefirst(discard_preempted=False)
def test_p(benchmark):
    benchmark.pedantic(work, rounds=10)
"""


def _pt(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("MEASUREFIRST_STORE", str(pytester.path / "results.db"))
    monkeypatch.setenv("MEASUREFIRST_PROFILE", str(pytester.path / "no-profile.json"))
    monkeypatch.delenv("MEASUREFIRST_PYTEST_SIMULATE", raising=False)
    pytester.makepyfile(test_p=PEDANTIC)
    return pytester


def _the_measurement(path) -> Measurement:
    data = json.loads(path.read_text())
    (b,) = data["benchmarks"]
    return Measurement.from_dict(b["measurement"])


def test_pedantic_rounds_on_the_simulated_clock_show_the_json_interval(pytester, monkeypatch):
    pt = _pt(pytester, monkeypatch)
    result = pt.runpytest("--mf", "--mf-simulate=call=10ms,noise=0.05,seed=2", "--mf-json", "run.json",
                          "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    m = _the_measurement(pt.path / "run.json")
    assert m.repeats == (5, 5) and m.run_to_run.n == 2 and m.run_to_run.factor == spread_factor(2)
    assert m.ci[0] > 0
    result.stdout.fnmatch_lines([f"*test_p*{interval_rel(m)}*"])


@pytest.mark.realclock
def test_pedantic_rounds_on_the_real_clock_get_the_prior(pytester, monkeypatch):
    """``benchmark.pedantic(rounds=10)``: two repetitions of five rounds, merged; the prior (no profile
    here) applies to the merged spread, as benchmark() applies it to its own repetitions'."""
    pt = _pt(pytester, monkeypatch)
    result = pt.runpytest("--mf", "--mf-json", "run.json", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    m = _the_measurement(pt.path / "run.json")
    rr = m.run_to_run
    assert m.repeats == (5, 5) and rr.source == "repeats" and rr.n == 2 and not m.discard_preempted
    # the prior lends its degrees of freedom unless the two repetitions spread beyond what it explains
    assert rr.floor_source == "prior" and rr.prior_dof == lent_dof(rr.cv, 2, rr.floor, PRIOR_DOF)
    assert rr.factor == spread_factor(2, rr.prior_dof)
    assert "noise_prior" in m.options and m.ci[0] > 0
    result.stdout.fnmatch_lines([f"*test_p*{interval_rel(m)}*"])


def test_the_lecture_shows_a_wide_interval_by_its_sides_too():
    from measurefirst.lecture import demos

    narrow = apply_profile(_with_cv(_two_repeats(), 0.0005), _profile())
    wide = apply_profile(_with_cv(_two_repeats(), 0.5), _profile())
    assert demos._ci(narrow) == f"{narrow.ci_half_width_rel:.1%}"
    assert demos._ci(wide) == interval_rel(wide, pm=False) and demos._ci_words(wide, "en").startswith(demos._ci(wide))
    assert interval_rel(wide) in demos._ci_words(wide, "zh")


@pytest.mark.parametrize("d1, d2, table", [(1, 2, 18.51), (1, 5, 6.61), (4, 5, 5.19), (2, 10, 4.10), (10, 2, 19.40),
                                           (3, 30, 2.92)])
def test_f_quantile_matches_the_printed_table(d1, d2, table):
    """The 95% points of F that the conflict rule reads (a printed table's values, to its two decimals)."""
    assert stats.f_quantile(0.95, d1, d2) == pytest.approx(table, abs=0.006)
    with pytest.raises(ValueError):
        stats.f_quantile(1.0, d1, d2)


def test_ctrl_c_in_a_pedantic_repetition_keeps_the_rounds_of_every_repetition():
    from measurefirst.measure.engine import Interrupted
    from measurefirst.pytest.pedantic import _repeated, pedantic_split

    w = SimWorld(SimSpec(call_ns=20_000, timer_ns=50, noise=0.01, seed=4))
    fn, timer = w.function(), w.timer()
    split = pedantic_split(15)
    assert split == [5, 5, 5]
    runs: list[int] = []

    def run(o):
        runs.append(o["trials"])
        m = benchmark(fn, timer=timer, label="t", device="cpu", number=1, warmup=0, trials=o["trials"],
                      noise_profile=False)
        if len(runs) == 3:  # Ctrl-C in the third repetition, after two of its rounds
            partial = replace(m, samples_ns=m.samples_ns[:2], numbers=m.numbers[:2], host_ns=None, preempted=None,
                              synced_ns=None, complete=False)
            raise Interrupted(partial)
        return m

    with pytest.raises(Interrupted) as info:
        _repeated(run, {"trials": 15, "number": 1}, split, real_clock=False)
    kept = info.value.partial
    assert isinstance(kept, Measurement)
    assert kept.n_samples == 12 and kept.repeats == (5, 5, 2)  # both repetitions done, and the interrupted one's
    assert kept.complete is False and kept.stop.reason == "interrupted"


def test_a_fixed_warm_up_that_leaves_the_first_repetition_cold_is_named():
    """pytest-benchmark's pedantic runs take no warm-up rounds by default: with the warm-up fixed, a first
    repetition slower than each of the others, by 10% of their median or more, is named with its ratio and the fix;
    the samples stay (the counts asked for are exact). Warmed past the slow calls, or warmed up adaptively, nothing
    is named."""
    import statistics

    from measurefirst.pytest.pedantic import merge_repetitions
    from measurefirst.render.findings import finding_words
    from measurefirst.results.findings import COLD_REPETITION_RATIO

    def run(**kw):  # four repetitions of five rounds in one world, as benchmark.pedantic(rounds=20) takes them
        w = SimWorld(SimSpec(call_ns=10_000, timer_ns=50, noise=0.002, seed=3, warm_calls=25, warm_extra_ns=8_000))
        parts = [benchmark(w.function(), timer=w.timer(), device="cpu", number=5, trials=5, noise_profile=False,
                           **(kw if i == 0 else {**kw, "warmup": 0})) for i in range(4)]
        return merge_repetitions(parts, trials=20)

    cold = run(warmup=0)
    assert cold.n_samples == 20 and cold.repeats == (5, 5, 5, 5)  # the counts asked for, all kept
    f = next(f for f in cold.findings if f.code == "cold_repetition")
    first, *rest = cold.run_to_run.medians_ns
    assert f.value == pytest.approx(first / statistics.median(rest)) and f.value >= COLD_REPETITION_RATIO
    assert first > max(rest) and f.context == {"warmup": 0, "repeats": 4}
    words = finding_words(f, "en")
    assert f"{f.value:.2f}x" in words.message and "warmup_rounds=N" in words.fix
    assert "warmup_rounds=N" in finding_words(f, "zh").fix
    warm = run(warmup=30)  # warmed past the slow calls: nothing to name
    assert "cold_repetition" not in {g.code for g in warm.findings}
    adaptive = run()  # measurefirst warms up until steady
    assert adaptive.warmup.rule != "fixed" and "cold_repetition" not in {g.code for g in adaptive.findings}
