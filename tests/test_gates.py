"""Gates that never fail unchanged code (issue 23): a change is "slower" only beyond the threshold and
both runs' measured run-to-run spread; a disturbed run gives "undecided" with the reason and the fix,
never a regression. Everything on the seeded simulated clock."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Callable

import pytest

from measurefirst import benchmark
from measurefirst.cli.commands import main
from measurefirst.results.regression_checks import (DISTURBED_CODES, Change, Regression, change, check_regression,
                                     disturbances)
from measurefirst.render.report import fragment
from measurefirst.render.tables import regression_failures, regression_lines
from measurefirst.results.kinds import Measurement
from measurefirst.measure.simulate import SimSpec, SimWorld

MS = 1_000_000  # ns


def run(call_ns: float = MS, *, seed: int = 1, drift: Callable[[int], float] | None = None,
        preempt: float = 0.0, **opts: object) -> Measurement:
    """One benchmark of a 1 ms call with 1% noise on the simulated clock (5 repetitions by default)."""
    w = SimWorld(SimSpec(call_ns=call_ns, noise=0.01, seed=seed, preempt_prob=preempt, preempt_ns=0.3 * call_ns))
    if drift is not None:
        w.drift = drift
    return benchmark(w.function(), timer=w.timer(), label="op", **opts)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def base() -> Measurement:
    return run()


def test_unchanged_code_is_same_with_each_runs_measured_spread(base: Measurement) -> None:
    new = run(seed=2)
    assert base.run_to_run is not None and base.run_to_run.source == "repeats"
    c = change(base, new, threshold=0.05)
    assert c.verdict(True) == "same" and not c.regression and not c.undecided
    assert c.run_to_run_sources == ("repeats", "repeats") and c.run_to_run_source == "repeats"
    assert c.run_to_run_spreads == (base.run_to_run.spread, new.run_to_run.spread)  # type: ignore[union-attr]
    # the precision interval enters once, the spread once: the headline ci (which holds the spread) is not reused
    lo_hw = (c.ratio / c.ci_low) - 1
    assert lo_hw < base.ci_half_width_rel + new.ci_half_width_rel


def test_a_stretch_that_doubles_the_new_runs_times_does_not_fail_the_gate(base: Measurement) -> None:
    # the machine runs at half speed through the middle of the new run (another job took the core)
    new = run(seed=4, drift=lambda now: 2.0 if 80e6 < now < 160e6 else 1.0)
    c = change(base, new, threshold=0.05)
    assert not c.regression
    assert c.verdict(True) == "undecided"
    codes = {d.code for d in c.disturbed}
    assert codes <= set(DISTURBED_CODES) and {"two_speeds", "spread"} <= codes
    assert all(d.side == "new" for d in c.disturbed)
    r = Regression("base.json", "new.json", (c,), gate=True)
    assert r.failed == () and r.undecided == (c,)
    line = regression_lines(r)[0]
    assert line.startswith("undecided: op: too noisy to judge (")
    assert "the new run: its times fall in two speeds" in line and "raise the threshold to" in line
    assert "re-run on a quiet" in line


def test_a_steady_20_percent_slowdown_fails_the_gate(base: Measurement) -> None:
    new = run(1.2 * MS, seed=3)
    c = change(base, new, threshold=0.05)
    assert c.regression and c.verdict(True) == "regression" and not c.disturbed
    assert c.ratio == pytest.approx(1.2, rel=0.01) and c.ci_low > 1.05
    assert regression_failures(Regression("a", "b", (c,), gate=True))[0].startswith("regression: op is 19.")


def test_most_samples_preempted_is_undecided_with_the_reason(base: Measurement) -> None:
    new = run(seed=5, preempt=0.9)
    assert new.n_preempted / new.n_samples > 0.5
    c = change(base, new, threshold=0.05)
    assert c.ratio > 1.2 and not c.regression  # inflated by preemption, and never counted as a regression
    assert c.verdict(True) == "undecided" and c.verdict(False) == "undecided"
    assert c.disturbed[0].code == "preempted" and c.disturbed[0].value == pytest.approx(new.n_preempted / new.n_samples)
    line = regression_lines(Regression("a", "b", (c,), gate=True))[0]
    assert "the new run: 9" in line and "of its samples were preempted (more than 50.0%)" in line
    assert "likely inflated; re-run on a quiet machine" in line


def test_a_disturbed_baseline_is_named_too(base: Measurement) -> None:
    c = change(run(seed=5, preempt=0.9), base, threshold=0.05)
    assert c.undecided and c.disturbed[0].side == "base" and not c.improvement
    assert "the baseline: " in regression_lines(Regression("a", "b", (c,), gate=True))[0]


def test_disturbances_are_a_pure_function_of_the_measurement(base: Measurement) -> None:
    assert disturbances(base, "base", 0.05) == ()
    noisy = replace(base, stop=replace(base.stop, reason="noise"))
    assert [d.code for d in disturbances(noisy, "new", 0.05)] == ["noise_floor"]
    # repetitions that disagree by more than a 0.1% threshold; not checked when the spread is given instead
    fine = disturbances(base, "new", 0.001)
    assert [d.code for d in fine] == ["spread"] and fine[0].limit == 0.001
    assert disturbances(base, "new", 0.001, check_spread=False) == ()
    # precision far from its target (5 x the target) and from the threshold
    strict = replace(base, stop=replace(base.stop, precision=1e-4))
    assert [d.code for d in disturbances(strict, "new", 0.0)] == ["imprecise"]
    assert disturbances(strict, "new", 0.05) == ()


def test_an_old_measurement_without_a_measured_spread_says_assumed_and_how_to_measure_it(base: Measurement) -> None:
    old = run(seed=6, repeats=1)
    assert old.run_to_run is None
    c = change(old, base, threshold=0.05)
    assert c.run_to_run_sources == ("assumed", "repeats") and c.run_to_run_source == "assumed" and c.spread_assumed
    notes = regression_lines(Regression("old.json", "new.json", (c,), gate=True))
    note = next(n for n in notes if "run-to-run" in n)
    assert "base ±2.0% (assumed: not measured; measure it by re-running with repetitions" in note
    assert "saving 8 runs or more" in note and "--run-to-run" in note
    assert "new ±" in note and "(measured from its repetitions)" in note
    # a measurement stored before repetitions existed (schema 1) loads without a spread, and says so
    d = json.loads(base.to_json())
    d.pop("run_to_run"), d.pop("repeats")
    d["schema_version"] = 1
    v1 = Measurement.from_dict(d)
    c = change(v1, v1, threshold=0.05)
    assert c.run_to_run_sources == ("assumed", "assumed")
    assert "(assumed: not measured;" in regression_lines(Regression("a", "b", (c,)))[0]


def test_a_given_spread_rules_and_a_history_spread_is_a_floor(base: Measurement) -> None:
    new = run(seed=2)
    given = change(base, new, threshold=0.05, run_to_run=0.0)
    assert given.run_to_run_sources == ("given", "given")
    history = change(base, new, threshold=0.05, run_to_run=0.03, run_to_run_source="history")
    assert history.run_to_run_sources == ("history", "history") and history.run_to_run_spreads == (0.03, 0.03)
    small = change(base, new, threshold=0.05, run_to_run=1e-6, run_to_run_source="history")
    assert small.run_to_run_sources == ("repeats", "repeats")


def test_stored_form_round_trips_and_old_checks_still_load(base: Measurement) -> None:
    c = change(base, run(seed=5, preempt=0.9), threshold=0.05)
    r = Regression("a", "b", (c,), gate=True)
    d = json.loads(r.to_json())
    assert d["schema_version"] == 5 and d["changes"][0]["verdict"] == "undecided"
    assert d["changes"][0]["disturbed"][0]["code"] == "preempted"
    back = Regression.from_dict(d)
    assert back.changes[0] == c and back.undecided == back.changes
    # version 3 (before disturbances and per-side spreads) loads with none
    v3 = {**d, "schema_version": 3, "changes": [{k: v for k, v in d["changes"][0].items()
                                                  if k not in ("disturbed", "run_to_run_spreads", "run_to_run_sources")}]}
    old = Regression.from_dict(v3)
    assert not old.changes[0].undecided and old.changes[0].run_to_run_sources == ()
    assert isinstance(old.changes[0], Change)


def test_html_report_shows_undecided(base: Measurement) -> None:
    c = change(base, run(seed=5, preempt=0.9), threshold=0.05)
    html = fragment(Regression("a", "b", (c,), gate=True))
    assert "undecided: too noisy to judge" in html and "1 change(s) undecided" in html
    assert "of its samples were preempted" in html


def _write(path: Path, m: Measurement) -> str:
    path.write_text(m.to_json())
    return str(path)


def test_cli_exit_codes_regression_1_undecided_3(tmp_path: Path, base: Measurement,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    a = _write(tmp_path / "base.json", base)
    same = _write(tmp_path / "same.json", run(seed=2))
    slow = _write(tmp_path / "slow.json", run(1.2 * MS, seed=3))
    noisy = _write(tmp_path / "noisy.json", run(seed=4, drift=lambda now: 2.0 if 80e6 < now < 160e6 else 1.0))
    assert main(["compare", a, same, "--fail-if-slower", "5%"]) == 0
    capsys.readouterr()
    assert main(["compare", a, slow, "--fail-if-slower", "5%"]) == 1
    assert "regression: op is 19." in capsys.readouterr().err
    assert main(["compare", a, noisy, "--fail-if-slower", "5%"]) == 3
    out, err = capsys.readouterr()
    assert "undecided" in out and "too noisy to judge" in out
    assert "1 change(s) undecided: too noisy to judge (exit code 3); nothing failed" in err
    assert main(["compare", a, noisy]) == 0  # no gate: report only
    capsys.readouterr()
    assert main(["compare", a, noisy, "--fail-if-slower", "5%", "--json"]) == 3
    d = json.loads(capsys.readouterr().out)
    assert d["changes"][0]["verdict"] == "undecided" and d["changes"][0]["disturbed"]


def test_check_regression_keeps_pairs_by_label(base: Measurement) -> None:
    r = check_regression([base], [run(1.2 * MS, seed=3)], gate=True, threshold=0.05)
    assert [c.verdict(r.gate) for c in r.changes] == ["regression"] and r.failed


def test_a_checks_comparisons_share_one_error_so_more_benchmarks_do_not_fail_more_often(base: Measurement) -> None:
    """Saved numbers against saved numbers: each of m pairs' intervals at 1 - 5%/m (results.regression.look_level),
    every 95% part of it (each run's precision, each side's run-to-run spread) scaled as a normal interval is:
    by z(1 - 2.5%/m) / z(97.5%). One pair stays at 95%; the text view says why four are wider."""
    import math

    from measurefirst.results.stats import normal_quantile

    new = run(seed=2)
    at95 = change(base, new, threshold=0.05)
    at99 = change(base, new, threshold=0.05, level=0.99)
    assert at95.ci_level == 0.95 and at99.ci_level == 0.99 and at99.ratio == at95.ratio
    wider = normal_quantile(0.995) / normal_quantile(0.975)
    assert wider == pytest.approx(2.5758293 / 1.9599640, rel=1e-6)
    assert math.log(at99.ci_high / at99.ratio) == pytest.approx(wider * math.log(at95.ci_high / at95.ratio), rel=1e-9)
    assert math.log(at99.ratio / at99.ci_low) == pytest.approx(wider * math.log(at95.ratio / at95.ci_low), rel=1e-9)
    one = check_regression([base], [new], gate=True, threshold=0.05)
    assert [c.ci_level for c in one.changes] == [0.95]
    four = check_regression([replace(base, label=f"op{i}") for i in range(4)],
                            [replace(new, label=f"op{i}") for i in range(4)], gate=True, threshold=0.05)
    assert {c.ci_level for c in four.changes} == {0.9875}
    assert four.changes[0].ci_high == pytest.approx(
        at95.ratio * math.exp(normal_quantile(1 - 0.0125 / 2) / normal_quantile(0.975) * math.log(at95.ci_high
                                                                                                  / at95.ratio)))
    lines = regression_lines(four)
    assert ("intervals at 98.75% each: the 4 comparisons share one 5% chance that a run calls any unchanged benchmark "
            "slower or faster (Bonferroni), so that a larger suite does not fail more often on noise") in lines
    assert not any("share one" in line for line in regression_lines(one))
    for bad in (1.0, 0.3, float("nan"), True, "0.99"):  # a level that is no confidence: said, with an example
        with pytest.raises(ValueError, match="level must be an interval's confidence from 0.5 to below 1, such as 0.95"):
            change(base, new, level=bad)
    html = fragment(four)  # the report's column says the level is beside each interval, which says it
    assert "CI (its level beside it)" in html and "(98.75%)" in html and "95% CI" not in html
    assert "95% CI" in fragment(one) and "CI (its level beside it)" not in fragment(one)


# ---- the pytest gate ------------------------------------------------------------------------------
pytest_plugins = ["pytester"]

PEDANTIC = """
def work():
    return 2 * 21

def test_mm(benchmark):
    assert benchmark.pedantic(work, rounds=20, warmup_rounds=2) == 42

def test_other(benchmark):
    benchmark.pedantic(work, rounds=20)
"""
PT_SIM = "--mf-simulate=call=2ms,noise=0.002,seed=1"


@pytest.fixture
def pt(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("MEASUREFIRST_STORE", str(pytester.path / "results.db"))
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    monkeypatch.delenv("MEASUREFIRST_PYTEST_SIMULATE", raising=False)
    return pytester


def test_pytest_gate_pedantic_rounds_measure_their_spread_and_a_disturbed_run_is_undecided(pt: pytest.Pytester) -> None:
    pt.makepyfile(test_suite=PEDANTIC)
    assert pt.runpytest("--mf", PT_SIM, "--mf-save", "base", "--mf-json", "base.json").ret == 0
    m = json.loads((pt.path / "base.json").read_text())["benchmarks"][0]["measurement"]
    # 20 pedantic rounds, taken as 4 repetitions of 5: their spread is measured
    assert m["repeats"] == [5, 5, 5, 5] and m["run_to_run"]["source"] == "repeats" and len(m["samples_ns"]) == 20
    gate = ("--mf-compare", "base", "--mf-fail-if-slower", "5%")

    same = pt.runpytest("--mf", PT_SIM, *gate)
    same.assert_outcomes(passed=2)
    same.stdout.fnmatch_lines(["*test_mm*1.00*x*same*", "no regression beyond 5.0% and the noise against @base"])

    slow = pt.runpytest("--mf", PT_SIM + ";test_mm=2.4ms", *gate)
    slow.assert_outcomes(passed=1, failed=1)
    slow.stdout.fnmatch_lines(["REGRESSION test_mm: 20.0% slower*"])

    # most calls preempted (other processes on the cores): times inflated ~40%, undecided, never a failure
    busy = PT_SIM + ",preempt_prob=0.9,preempt=1ms"
    noisy = pt.runpytest("--mf", busy, *gate)
    noisy.assert_outcomes(passed=2)
    noisy.stdout.fnmatch_lines([
        "*test_mm*1.4*x*undecided*",
        "UNDECIDED test_mm: too noisy to judge against @base (4*% slower*): the new run: * of its samples were "
        "preempted (more than 50.0%)*(-v: the fixes)",
        "no regression beyond 5.0% and the noise against @base; 2 undecided: too noisy to judge (they pass; "
        "--mf-undecided fail makes them fail)"])
    assert "re-run on a quiet machine" not in noisy.stdout.str()  # the fix waits for -v
    pt.runpytest("--mf", busy, *gate, "-v").stdout.fnmatch_lines(["UNDECIDED test_mm: *re-run on a quiet machine*"])
    strict = pt.runpytest("--mf", busy, *gate, "--mf-undecided", "fail", "--mf-json", "new.json")
    strict.assert_outcomes(failed=2)
    strict.stdout.fnmatch_lines(["measurefirst: too noisy to judge against the baseline (--mf-undecided fail)",
                                 "  test_mm: too noisy to judge against @base*"])
    from measurefirst import load

    run_ = load(pt.path / "new.json")
    assert len(run_.undecided) == 2 and run_.regressions == ()  # type: ignore[union-attr]
    assert run_.benchmarks[0].change.verdict(True) == "undecided"  # type: ignore[union-attr]
