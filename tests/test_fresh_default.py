"""Intervals that hold across fresh processes by default: the simulated per-process level shift that
repetitions cannot see, measurefirst's prior where the machine has no noise profile (the widening, its
source, the finding), a profile preferred when present, and the command line holding the same. Exact,
on the simulated clock (the command line's own check runs a short fixed count on the real one)."""

import math
import statistics

import pytest

from measurefirst import benchmark
from measurefirst.measure import noise, workers
from measurefirst.measure.noise import (
    PRIOR_DOF, PRIOR_INFLATION_RANGE, NoiseProfile, ProfileEntry, for_benchmark, prior_inflation, prior_name, prior_profile,
    profile_key, save_profile)
from measurefirst.measure.simulate import SimSpec, SimWorld, process_level
from measurefirst.render.findings import finding_words
from measurefirst.render.text import interval_words, spread_cell
from measurefirst.results.kinds import Measurement, RunToRun, spread_factor

SHIFT = 0.10  # the simulated fresh-process spread of the level
NOISE = 0.01  # the simulated call-to-call noise


def _world(process: int, seed: int = 5) -> SimWorld:
    return SimWorld(SimSpec(call_ns=20_000, timer_ns=50, noise=NOISE, seed=seed, process=process, process_shift=SHIFT))


def _run(process: int, **kw) -> Measurement:
    w = _world(process)
    return benchmark(w.function(), timer=w.timer(), device="cpu", budget=2.0, noise_profile=False, **kw)


@pytest.fixture
def no_profile(tmp_path, monkeypatch):
    path = tmp_path / "noise.json"
    monkeypatch.setenv(noise.PROFILE_ENV, str(path))
    return path


def _profile(threads: int) -> NoiseProfile:
    entries = (ProfileEntry("python", 2e-6, 0.02, 0.01, 6), ProfileEntry("python", 2e-3, 0.001, 0.0002, 6),
               ProfileEntry("dispatch", 1e-6, 0.19, 0.155, 6), ProfileEntry("compute", 190e-6, 0.0736, 0.0455, 6))
    return NoiseProfile(key=profile_key("cpu", threads), created="2026-01-01T00:00:00+00:00", torch_threads=threads,
                        entries=entries, processes=6)


# ---- the simulated fresh process -------------------------------------------------------------------------------
def test_a_simulated_process_draws_its_level_once_and_another_process_draws_its_own():
    levels = [process_level(SimSpec(seed=5, process=i, process_shift=SHIFT)) for i in range(8)]
    assert len(set(levels)) == 8 and all(lv > 0 for lv in levels)
    assert process_level(SimSpec(seed=5, process=3, process_shift=SHIFT)) == levels[3]  # seeded: the same process
    assert process_level(SimSpec(seed=5, process=3)) == 1.0  # no shift: every process alike
    w = _world(2)
    before = w.now
    w.call()
    assert w.now - before == pytest.approx(20_000 * levels[2], rel=6 * NOISE)


def test_repetitions_cannot_see_the_process_shift_and_fresh_processes_measure_it():
    ms = [_run(i) for i in range(3)]
    levels = [_world(i).level for i in range(3)]
    for m, level in zip(ms, levels):
        assert m.run_to_run is not None and m.run_to_run.source == "repeats"
        assert m.run_to_run.cv < SHIFT / 5  # one process's repetitions share its level
        assert m.median == pytest.approx(20_000e-9 * level, rel=NOISE)
    merged = workers.merge(ms)
    rr = merged.run_to_run
    assert rr is not None and rr.source == "processes" and rr.n == 3 and rr.factor == spread_factor(3)
    expected = math.expm1(statistics.stdev(math.log(lv) for lv in levels))
    assert rr.cv == pytest.approx(expected, rel=0.1)  # the processes' spread is the levels', not the calls'


# ---- measurefirst's prior, where the machine has no profile ------------------------------------------------------------
def test_the_prior_is_a_measured_profile_with_its_origin_stated():
    prior = prior_profile()
    assert prior is prior_profile()  # parsed once
    assert any(e.kind == "python" for e in prior.entries)  # a floor by call duration
    from measurefirst.measure.noise_prior import PRIOR_INFLATION

    lo, hi = PRIOR_INFLATION_RANGE
    assert set(PRIOR_INFLATION) == {"dispatch", "compute", "memory"} and all(lo <= f <= hi for f in PRIOR_INFLATION.values())
    # read at a call's duration: each kind's factor at its entry, between them in log-duration, the ends beyond
    at = {e.kind: e.seconds for e in prior.entries}
    for kind in PRIOR_INFLATION:
        assert prior_inflation(at[kind]) == pytest.approx(PRIOR_INFLATION[kind], abs=0.005)
    assert prior_inflation(at["dispatch"] / 100) == PRIOR_INFLATION["dispatch"]
    assert prior_inflation(at["memory"] * 100) == PRIOR_INFLATION["memory"]
    middle = prior_inflation(math.sqrt(at["dispatch"] * at["compute"]))
    assert min(PRIOR_INFLATION["dispatch"], PRIOR_INFLATION["compute"]) < middle < max(PRIOR_INFLATION["dispatch"],
                                                                                     PRIOR_INFLATION["compute"])
    import measurefirst.measure.noise_prior as origin

    assert "selfcheck --noise" in (origin.__doc__ or "") and "runtorun.py --fresh" in (origin.__doc__ or "")


def test_without_a_profile_the_prior_widens_the_repetitions_and_says_so(no_profile):
    m = _run(0)
    out = for_benchmark(m, None, real_clock=True, threads=1)
    prior = prior_profile()
    rr, before = out.run_to_run, m.run_to_run
    assert out.samples_ns == m.samples_ns and out.precision_ci == m.precision_ci  # this run's precision stays
    assert rr.source == "repeats" and rr.n == before.n
    # the prior lends PRIOR_DOF degrees of freedom (fewer than its reference machine's processes): not this machine
    assert rr.prior_dof == PRIOR_DOF < prior.processes - 1 and rr.factor == spread_factor(rr.n, PRIOR_DOF)
    factor = prior_inflation(m.median)
    assert rr.cv == pytest.approx(before.cv * factor)
    assert rr.floor == pytest.approx(prior.floor(m.median)) and rr.floor_source == "prior"
    assert out.options["noise_prior"] == prior_name(prior) and "noise_profile" not in out.options
    assert out.options["run_to_run_inflation"] == factor
    assert out.ci_half_width_rel > m.ci_half_width_rel
    f = next(f for f in out.findings if f.code == "no_noise_profile")
    assert f.value == pytest.approx(rr.spread) and f.severity == "info"
    # MEASUREFIRST_PROFILE names a file not written yet: said as such (issue 38), the prior used as without one
    assert f.context["source"] == "repeats" and f.context["status"] == "missing"
    assert f.context["inflation"] == factor and f.context["floor"] == pytest.approx(rr.floor)
    assert "no_noise_profile" not in {g.code for g in m.findings}
    from dataclasses import replace

    from measurefirst.render.text import format_relative

    for lang in ("en", "zh"):
        words = finding_words(f, lang)
        assert "selfcheck --noise" in words.fix and "processes=3" in words.fix
        assert f"{factor:g}" in words.message
        # the spread the note gives is the one the headline gives, written alike (not ±1.75% beside ±1.8%)
        said = f"±{format_relative(rr.spread)}"
        assert said in words.message and said in interval_words(out, lang)
        odd = finding_words(replace(f, value=0.0175, context={**f.context, "floor": 0.00125}), lang).message
        assert "±1.8%" in odd and "±0.1%" in odd and "1.75" not in odd and "0.13" not in odd
    again = Measurement.from_json(out.to_json())  # stored and loaded: the same source, the same finding
    assert again.run_to_run == rr and [g.code for g in again.findings] == [g.code for g in out.findings]


def test_the_priors_factor_multiplies_repetitions_only_up_to_its_references_spread():
    from measurefirst.results.noise import prior_widening

    assert prior_widening(0.01, 5.1, 0.017) == (5.1, 0.0)  # within the reference's spread: the factor as measured
    assert prior_widening(0.017, 5.1, 0.017) == (5.1, 0.0)
    assert prior_widening(0.01701, 5.1, 0.017)[0] == 5.1  # continuous where it stops multiplying
    factor, within = prior_widening(0.03, 5.1, 0.017)
    assert within == 0.017 and factor == round(math.sqrt((5.1 * 0.017) ** 2 + 0.03**2 - 0.017**2) / 0.03, 2) == 3.01
    assert 1.0 <= prior_widening(0.5, 5.1, 0.017)[0] <= 1.02  # load far beyond it: about the run's own spread
    assert prior_widening(0.03, 1.0, 0.017) == (1.0, 0.0) and prior_widening(0.03, 5.1, 0.0) == (5.1, 0.0)


def test_a_run_spread_by_load_is_not_multiplied_by_the_prior_and_says_so(no_profile):
    from dataclasses import replace

    m = _run(0)
    within = prior_profile().within_at(m.median, "compute")
    noisy = replace(m, run_to_run=replace(m.run_to_run, cv=4 * within), options={**m.options, "work_kind": "compute"})
    out = for_benchmark(noisy, None, real_clock=True, threads=1)
    plain = prior_inflation(m.median, "compute")
    factor = out.options["run_to_run_inflation"]
    assert 1.0 < factor < plain and out.options["run_to_run_full_inflation"] == plain
    assert out.options["run_to_run_multiplied_to"] == within
    assert out.run_to_run.cv == pytest.approx(4 * within * factor)
    assert out.run_to_run.cv == pytest.approx(math.sqrt((plain * within) ** 2 + 15 * within**2), rel=0.01)
    said = interval_words(out, "en")
    assert f"widened {factor:g}x" in said and f"{plain:g}x up to" in said and "added once" in said
    assert f"放宽 {factor:g} 倍" in interval_words(out, "zh")
    quiet = replace(noisy, run_to_run=replace(m.run_to_run, cv=within / 2))  # within it: the factor as measured
    out = for_benchmark(quiet, None, real_clock=True, threads=1)
    assert out.options["run_to_run_inflation"] == plain and "run_to_run_multiplied_to" not in out.options
    assert "added once" not in interval_words(out, "en")


def test_the_prior_is_the_spread_of_a_run_that_measured_none(no_profile):
    m = _run(0, repeats=1)
    assert m.run_to_run is None
    out = for_benchmark(m, None, real_clock=True, threads=1)
    prior = prior_profile()
    floor = prior.floor(m.median)
    assert out.run_to_run == RunToRun(cv=floor, source="prior", n=prior.processes,
                                      factor=spread_factor(prior.processes), floor=floor, floor_source="prior")
    f = next(f for f in out.findings if f.code == "no_noise_profile")
    assert f.context["source"] == "prior" and "one repetition" in finding_words(f, "en").message
    assert spread_cell(out, "en").endswith("· prior")
    # the spread is the prior's floor itself: its figure and its source said once, not again as a floor
    from measurefirst.render.text import format_relative, spread_source_words

    said = spread_source_words(out, "en")
    assert "prior" in said and "at least" not in said and str(out).splitlines()[0].count(f"±{format_relative(floor)}") == 1


def test_fresh_processes_keep_their_spread_and_take_the_prior_as_a_floor(no_profile):
    merged = workers.merge([_run(i) for i in range(3)])
    out = for_benchmark(merged, None, real_clock=True, threads=1)
    rr = out.run_to_run
    assert rr.source == "processes" and rr.cv == merged.run_to_run.cv  # measured: not inflated
    assert rr.floor == pytest.approx(prior_profile().floor(merged.median)) and rr.floor_source == "prior"
    assert "run_to_run_inflation" not in out.options
    f = next(f for f in out.findings if f.code == "no_noise_profile")
    assert f.context["source"] == "processes"


def test_a_profile_when_present_is_preferred_to_the_prior(no_profile):
    m = _run(0)
    p = _profile(threads=1)
    save_profile(p, no_profile)
    out = for_benchmark(m, None, real_clock=True, threads=1)
    assert out.run_to_run.floor_source == "profile" and out.options["noise_profile"] == p.key
    # the inflation at the call's duration (issue 35), never below the prior's (run_inflation)
    assert out.run_to_run.cv == pytest.approx(m.run_to_run.cv * max(p.inflation(m.median), prior_inflation(m.median)))
    assert "noise_prior" not in out.options and "no_noise_profile" not in {f.code for f in out.findings}
    # a profile of other threads, or a damaged file, is not used: the prior, and the note says why
    out = for_benchmark(m, None, real_clock=True, threads=2)
    assert out.run_to_run.floor_source == "prior" and out.options["noise_profile_ignored"] == "other_threads"
    assert next(f for f in out.findings if f.code == "no_noise_profile").context["status"] == "other_threads"
    no_profile.write_text("garbage")
    out = for_benchmark(m, None, real_clock=True, threads=1)
    assert out.run_to_run.floor_source == "prior" and out.options["noise_profile_ignored"] == "corrupt"


def test_no_prior_on_a_simulated_clock_nor_with_noise_profile_false(no_profile):
    m = _run(0)
    assert for_benchmark(m, None, real_clock=False, threads=1) is m  # a simulated clock has no machine
    assert for_benchmark(m, False, real_clock=True, threads=1) is m
    w = _world(0)
    assert benchmark(w.function(), timer=w.timer(), device="cpu", budget=2.0).run_to_run.floor_source == ""


def test_every_renderer_keeps_the_precision_apart_from_the_run_to_run_part(no_profile):
    m = _run(0)
    out = for_benchmark(m, None, real_clock=True, threads=1)
    for lang, prior_words in (("en", "measurefirst's prior"), ("zh", "measurefirst 的先验")):
        text = interval_words(out, lang)
        assert prior_words in text
        assert f"{prior_inflation(m.median):g}" in text
    assert spread_cell(out, "en").endswith("· prior") and spread_cell(m, "en").endswith("· 5 reps")
    en = interval_words(out, "en")
    assert "this run's precision" in en and "run to run" in en
    d = out.to_dict()
    assert d["interval"]["precision_half_width"] == pytest.approx(m.precision_half_width_rel)
    assert d["interval"]["half_width"] > d["interval"]["precision_half_width"]
    assert d["run_to_run"]["floor_source"] == "prior"


# ---- the command line: the same default, said in its output ---------------------------------------------------------
def test_bench_without_a_profile_holds_the_prior_and_notes_the_fix(no_profile, capsys):
    from measurefirst.cli.commands import main

    args = ["bench", "sum(range(50))", "--device", "cpu", "--trials", "5", "--number", "10", "--warmup", "1"]
    assert main([*args, "--json"]) == 0
    m = Measurement.from_json(capsys.readouterr().out)
    prior = prior_profile()
    assert m.run_to_run.source == "prior" and m.run_to_run.cv == pytest.approx(prior.floor(m.median))
    assert "no_noise_profile" in {f.code for f in m.findings}
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "[no_noise_profile]" in out and "measurefirst's prior" in out and "precision" in out  # its own column
    save_profile(_profile(threads=__import__("torch").get_num_threads()), no_profile)
    assert main([*args, "--json"]) == 0
    m = Measurement.from_json(capsys.readouterr().out)
    assert m.run_to_run.source == "profile" and "no_noise_profile" not in {f.code for f in m.findings}


def test_the_prior_takes_per_workload_the_widest_of_the_profiles_measured(monkeypatch):
    import os

    monkeypatch.syspath_prepend(os.path.join(os.path.dirname(__file__), "..", "benchmarks"))
    from noise_prior import combine

    a, b = _profile(threads=1), _profile(threads=1)
    wide = ProfileEntry("dispatch", 1.1e-6, 0.40, 0.2, 6)
    b = NoiseProfile(key=b.key, created="2026-02-01T00:00:00+00:00", torch_threads=1, processes=4,
                     entries=tuple(wide if e.kind == "dispatch" else e for e in b.entries))
    prior = NoiseProfile.from_dict(combine([a, b]))
    assert [e.kind for e in prior.entries] == [e.kind for e in a.entries]
    assert prior.entry("dispatch") == wide and prior.entry("compute") == a.entry("compute")
    assert prior.processes == 4 and prior.created == "2026-02-01T00:00:00+00:00"
