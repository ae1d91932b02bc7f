"""The pytest plugin, end to end with pytester: every verdict on the seeded simulated clock
(``--mf-simulate``), so counts and ratios are exact."""

from __future__ import annotations

import re

import gc
import os
import json
from pathlib import Path
from typing import Iterator

import pytest

import measurefirst

pytest_plugins = ["pytester"]

EXAMPLES = Path(__file__).parent.parent / "examples" / "pytest"
#: 10 ms calls with a little seeded noise; manual GeLU costs 16 ms in the comparison, fused 5 ms. (Long
#: simulated calls keep the sample counts, and so the real time each run takes, small.)
SIM = "--mf-simulate=call=10ms,noise=0.002,seed=1;manual=16ms;fused=5ms"


@pytest.fixture
def pt(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.Pytester]:
    """A pytester whose results store lies in its own folder (tests/conftest.py points the
    environment at a shared temporary store)."""
    monkeypatch.setenv("MEASUREFIRST_STORE", str(pytester.path / "results.db"))
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    monkeypatch.delenv("MEASUREFIRST_PYTEST_SIMULATE", raising=False)
    gc.freeze()  # the engine collects garbage before each measurement: skip this process's own objects
    yield pytester
    gc.unfreeze()


def _example(pt: pytest.Pytester, name: str) -> None:
    pt.makepyfile(**{name: (EXAMPLES / f"{name}.py").read_text()})


SUITE = """
import pytest

CALLS = {}

def work(tag):
    CALLS[tag] = CALLS.get(tag, 0) + 1
    return tag

@pytest.mark.measurefirst(group="sizes", budget=0.5)
@pytest.mark.parametrize("n", [1, 2])
def test_sized(measure, n):
    m = measure(lambda: work(f"sized{n}"))
    assert m.label.endswith(f"test_sized[{n}]")

def test_two(measure):
    measure(lambda: work("a"), label="a")
    measure(lambda: work("b"), label="b")

def test_cmp(measure):
    r = measure.compare({"manual": lambda: work("manual"), "fused": lambda: work("fused")})
    r.assert_faster("fused", than="manual", by=3)
    r.assert_not_slower("fused", than="manual")
    r.assert_slower("manual", than="fused", by=3)

def test_plain():
    assert True

def test_counts():
    # under --mf-disable every measured function ran exactly once
    import os
    if os.environ.get("EXPECT_ONCE"):
        assert CALLS == {"sized1": 1, "sized2": 1, "a": 1, "b": 1, "manual": 1, "fused": 1}, CALLS
"""


def test_plugin_is_registered_and_inert(pt: pytest.Pytester) -> None:
    """Installed, the plugin loads in every pytest run, and stays out of the way: it imports neither
    torch nor measurefirst (seconds on a busy machine) and prints nothing."""
    from importlib.metadata import entry_points

    assert "pytest_measurefirst" in [e.value for e in entry_points(group="pytest11") if e.name == "measurefirst"]
    pt.makepyfile("""
        import sys
        def test_a(request):
            assert request.config.pluginmanager.has_plugin("measurefirst")
            assert "torch" not in sys.modules and "measurefirst" not in sys.modules
    """)
    result = pt.runpytest_subprocess()
    result.assert_outcomes(passed=1)
    assert "measurefirst:" not in result.stdout.str() and "- measurefirst -" not in result.stdout.str()


def test_passing_suite_and_summary(pt: pytest.Pytester) -> None:
    pt.makepyfile(test_suite=SUITE)
    result = pt.runpytest(SIM, "-p", "no:cacheprovider")
    result.assert_outcomes(passed=6)
    out = result.stdout.str()
    result.stdout.fnmatch_lines([
        "*- measurefirst -*",
        "6 measurement(s) in 4 test(s); simulated clock",
        "group sizes [[]cpu/simulated[]]*",
        "*test_sized[[]1[]]*10.0* ms ±*",
        "*test_sized[[]2[]]*",
        "test_suite.py [[]cpu/simulated[]]*",
        "*test_two::a*", "*test_two::b*",
        "test_suite.py::test_cmp (interleaved) [[]cpu/simulated[]]*", "* manual *16.0* ms*", "* fused *5.0* ms*",
        "test_cmp: fused: 3.20x faster than manual — time ratio 0.31* (95% CI *), * interleaved rounds",
    ])
    assert "test_plain" not in out.split("- measurefirst -")[1]


def test_mf_lang_zh_writes_the_summary_in_chinese_with_the_same_numbers(pt: pytest.Pytester) -> None:
    from measurefirst.render.words import word

    pt.makepyfile(test_suite=SUITE)
    def summary(*extra: str) -> str:  # measurefirst's part, without pytest's own last line (its wall time)
        out = pt.runpytest(SIM, "-p", "no:cacheprovider", *extra).stdout.str()
        return out.split("- measurefirst -")[1].rsplit("\n=", 1)[0]

    en, zh = summary(), summary("--mf-lang", "zh")
    assert word("pt_title", "zh", n=6, tests=4) in zh and word("pt_title", "en", n=6, tests=4) not in zh
    assert word("pt_col_test", "zh") in zh and word("pt_col_median", "zh") in zh
    numbers = re.compile(r"\d+\.\d+")
    assert numbers.findall(en) and sorted(numbers.findall(en)) == sorted(numbers.findall(zh))  # the same figures


def test_mf_lang_refuses_a_language_it_does_not_speak(pt: pytest.Pytester) -> None:
    pt.makepyfile(test_suite=SUITE)
    result = pt.runpytest(SIM, "-p", "no:cacheprovider", "--mf-lang", "fr")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--mf-lang: choose one of en, zh; got 'fr'" in result.stderr.str()


def test_the_help_names_every_language_and_no_hard_coded_spread(pt: pytest.Pytester) -> None:
    from measurefirst.render.words import LANGS

    out = pt.runpytest("--help").stdout.str()
    helped = " ".join(out[out.index("--mf-lang"):].split("--mf-", 2)[1].split())
    assert all(lang in helped for lang in LANGS)
    spread = " ".join(out[out.index("--mf-run-to-run"):].split("--mf-", 2)[1].split())
    assert not re.search(r"\d+(\.\d+)?%", spread)  # the default spread is measurefirst's, not a copy of it


def test_quiet_when_nothing_measures(pt: pytest.Pytester) -> None:
    pt.makepyfile("def test_a():\n    pass\n")
    result = pt.runpytest(SIM, "--mf-budget", "0.5")
    result.assert_outcomes(passed=1)
    assert "- measurefirst -" not in result.stdout.str()
    result.stdout.fnmatch_lines(["measurefirst: device auto, budget 0.5 s per measurement, simulated clock"])


def test_assertion_failure_names_verdict_and_ci(pt: pytest.Pytester) -> None:
    pt.makepyfile("""
        def test_cmp(measure):
            r = measure.compare({"manual": lambda: None, "fused": lambda: None})
            r.assert_faster("fused", than="manual", by=4)
    """)
    result = pt.runpytest(SIM)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "E * AssertionError: expected fused to be at least 4x faster than manual",
        "E * measured: 3.20x faster than manual (3.2*x)",
        "E * time ratio 0.31* (95% CI 0.31*–0.31*), * interleaved rounds; medians: fused 5.00* ms, manual 16.0* ms",
    ])


def test_disable_calls_each_function_once(pt: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    pt.makepyfile(test_suite=SUITE)
    monkeypatch.setenv("EXPECT_ONCE", "1")
    result = pt.runpytest("--mf-disable", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=6)
    result.stdout.fnmatch_lines(["nothing timed (--mf-disable): 6 measured function(s) ran once each"])
    assert "measurement(s) in" not in result.stdout.str()


def test_only_and_skip(pt: pytest.Pytester) -> None:
    pt.makepyfile(test_suite=SUITE)
    result = pt.runpytest(SIM, "--mf-only")
    result.assert_outcomes(passed=4, skipped=2)
    result = pt.runpytest(SIM, "--mf-skip", "-rs")
    result.assert_outcomes(passed=2, skipped=4)
    result.stdout.fnmatch_lines(["SKIPPED * measurefirst: a measuring test (--mf-skip)"])


def test_done_when_save_compare_and_a_20_percent_regression(pt: pytest.Pytester) -> None:
    """The example file: save a baseline, compare with it (passes), then one function 20% slower fails
    the run, naming the test and the ratio; the others stay within the noise."""
    _example(pt, "test_gelu")
    saved = pt.runpytest(SIM, "--mf-save", "base")
    saved.assert_outcomes(passed=5)
    saved.stdout.fnmatch_lines(["saved 6 measurement(s) as @base in *results.db (compare with: --mf-compare base)"])

    same = pt.runpytest(SIM, "--mf-compare", "base", "--mf-fail-if-slower", "5%")
    same.assert_outcomes(passed=5)
    same.stdout.fnmatch_lines([
        "measurefirst: comparing with @base; a test fails when slower beyond its CI and 5.0%",
        # five measuring tests share one 5% error: each interval at 99% (results.regression.look_level)
        "6 measurement(s) in 5 test(s), compared with @base (time ratio new/baseline, 99% CI; with both runs' "
        "run-to-run spreads); simulated clock",
        "*test_manual_gelu[[]4096[]]*1.000x (0.99*–1.00*)*same*",  # the runs' CIs and their measured spreads
        # the candidates of a comparison took no repetitions: their spread is assumed, and said so
        "note: the intervals include a run-to-run spread of ±2.0% per run (assumed: not measured; measure it by "
        "re-running with repetitions*",
        "note: the intervals include a run-to-run spread of ±*% per run (measured from its repetitions)*",
        "no regression beyond 5.0% and the noise against @base",
        "intervals at 99% each: the run's measuring tests share one 5% chance that it calls any unchanged benchmark "
        "slower or faster than @base (Bonferroni), so that a larger suite does not fail more often on noise",
    ])

    slower = pt.runpytest(SIM + ";test_manual_gelu=12ms", "--mf-compare=@base", "--mf-fail-if-slower", "5%")
    assert slower.ret == 1
    slower.assert_outcomes(passed=3, failed=2)
    slower.stdout.fnmatch_lines([
        "*_ test_manual_gelu[[]4096[]] _*",
        "measurefirst: slower than the baseline beyond the noise and the threshold (--mf-fail-if-slower)",
        "  test_manual_gelu[[]4096[]]: 19.9% slower (ratio 1.199, 99% CI 1.19*–1.20*) than @base, beyond the 5.0% "
        "threshold and the noise",
    ])
    slower.stdout.fnmatch_lines([
        "*test_manual_gelu[[]65536[]]*1.200x (1.19*–1.20*)*REGRESSION*",
        "REGRESSION test_manual_gelu[[]4096[]]: 19.9% slower (ratio 1.199, *",
        "FAILED test_gelu.py::test_manual_gelu[[]4096[]] - measurefirst: slower than the b*",
    ])
    # a user who knows the runs agree (a deterministic machine) gives the spread: here none, so the runs' own CIs
    exact = pt.runpytest(SIM, "--mf-compare", "base", "--mf-run-to-run", "0")
    exact.assert_outcomes(passed=5)
    exact.stdout.fnmatch_lines([
        "6 measurement(s) in 5 test(s), compared with @base (time ratio new/baseline, 99% CI); simulated clock",
        "*test_manual_gelu[[]4096[]]*1.000x (0.99*–1.00*)*same*"])
    # a slowdown within the threshold is not a regression, even though it is beyond the noise (8%: beyond the
    # runs' CIs and their measured run-to-run spreads, within the 10% threshold)
    within = pt.runpytest(SIM + ";test_manual_gelu=10.8ms", "--mf-compare=@base", "--mf-fail-if-slower", "10%")
    within.assert_outcomes(passed=5)
    within.stdout.fnmatch_lines(["*test_manual_gelu[[]4096[]]*1.079x (1.07*–1.08*)*slower*"])
    # 3% slower: beyond the runs' measured spreads (the simulated machine is steady), within the 5% threshold
    drift = pt.runpytest(SIM + ";test_manual_gelu=10.3ms", "--mf-compare=@base", "--mf-fail-if-slower", "5%")
    drift.assert_outcomes(passed=5)
    drift.stdout.fnmatch_lines(["*test_manual_gelu[[]4096[]]*1.0*x (1.02*–1.03*)*slower*"])


def test_compare_without_gate_and_latest(pt: pytest.Pytester) -> None:
    pt.makepyfile("def test_a(measure):\n    measure(lambda: None)\n")
    assert pt.runpytest(SIM, "--mf-save", "one").ret == 0
    result = pt.runpytest(SIM + ";test_a=20ms", "--mf-compare")  # each test's latest saved run; no gate
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*test_a*ms ±*x (*–*)*slower*"])


def test_usage_errors(pt: pytest.Pytester) -> None:
    pt.makepyfile("def test_a(measure):\n    measure(lambda: None)\n")
    result = pt.runpytest(SIM, "--mf-fail-if-slower", "5%")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--mf-fail-if-slower needs a baseline: add --mf-against REF*--mf-compare NAME*"])
    assert pt.runpytest(SIM, "--mf-save", "base").ret == 0
    result = pt.runpytest(SIM, "--mf-compare=@nope")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--mf-compare @nope: no runs saved under that name in * (saved: base)*"])
    result = pt.runpytest(SIM, "--mf-save", "a/b")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    for flag, value in (("--mf-against-pairs", "0"), ("--mf-against-extra-pairs", "2")):  # issue 38: were ignored
        result = pt.runpytest(SIM, flag, value)
        assert result.ret == pytest.ExitCode.USAGE_ERROR
        result.stderr.fnmatch_lines([f"*{flag} counts the worker pairs of --mf-against REF*"])
    pt.makepyfile(test_marker="""
        import pytest
        @pytest.mark.measurefirst(budgett=1)
        def test_b(measure):
            measure(lambda: None)
    """)
    result = pt.runpytest(SIM, "test_marker.py")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*unknown option(s) budgett*"])


def test_json_report_refuses_a_missing_folder_and_never_follows_a_planted_link(pt: pytest.Pytester) -> None:
    """Issue 25: ``--mf-json`` wrote through ``FILE.tmp<PID>`` (a link planted there was followed), left
    it behind on failure, and created missing folders."""
    pt.makepyfile(test_suite=SUITE)
    result = pt.runpytest(SIM, "--mf-json", "nowhere/run.json", "-k", "cmp")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*folder nowhere does not exist; create it first*"])
    assert not (pt.path / "nowhere").exists()
    victim = pt.path / "victim.txt"
    victim.write_text("keep")
    for pid_guess in range(os.getpid() - 50, os.getpid() + 200):  # the old name: FILE.tmp<PID>
        os.symlink(victim, pt.path / f"run.json.tmp{pid_guess}")
    result = pt.runpytest(SIM, "--mf-json", "run.json", "-k", "cmp")
    result.assert_outcomes(passed=1)
    assert victim.read_text() == "keep"
    assert json.loads((pt.path / "run.json").read_text())["kind"] == "pytest_run"
    assert not [p for p in pt.path.iterdir() if p.name.startswith(".run.json.")]  # no temporary file left


def test_json_report_and_baseline_from_it(pt: pytest.Pytester) -> None:
    pt.makepyfile(test_suite=SUITE)
    pt.mkdir("out")
    result = pt.runpytest(SIM, "--mf-json", "out/run.json", "-k", "sized or cmp")
    result.assert_outcomes(passed=3)
    data = json.loads((pt.path / "out" / "run.json").read_text())
    assert data["kind"] == "pytest_run" and data["simulated"] and data["measured"]
    names = [b["name"] for b in data["benchmarks"]]
    assert names == ["test_suite.py::test_sized[1]", "test_suite.py::test_sized[2]",
                     "test_suite.py::test_cmp::manual", "test_suite.py::test_cmp::fused"]
    first = data["benchmarks"][0]
    assert first["group"] == "sizes" and first["param"] == "1" and first["params"] == {"n": 1}
    assert first["measurement"]["options"]["budget"] == 0.5
    assert data["benchmarks"][2]["comparison"] == 0 and data["comparisons"][0]["comparison"]["kind"] == "comparison"
    from measurefirst import Measurement

    m = Measurement.from_dict(first["measurement"])
    assert m.n_samples > 10 and abs(m.median - 10e-3) < 1e-4
    # a result kind like the others: loaded back exactly, by its kind
    run = measurefirst.load(pt.path / "out" / "run.json")
    assert type(run).__name__ == "PytestRun" and json.loads(run.to_json()) == data
    assert [b.test for b in run.benchmarks] == ["test_sized[1]", "test_sized[2]", "test_cmp::manual", "test_cmp::fused"]
    # the JSON file is a baseline too, for --mf-compare and for `measurefirst compare`
    again = pt.runpytest(SIM + ";test_sized=11ms", "--mf-compare", "out/run.json", "--mf-fail-if-slower", "5%",
                         "--mf-json", "out/new.json", "-k", "sized or cmp")
    again.assert_outcomes(passed=1, failed=2)
    new = json.loads((pt.path / "out" / "new.json").read_text())
    assert [b["regression"] for b in new["benchmarks"]] == [True, True, False, False]
    assert abs(new["benchmarks"][0]["change"]["ratio"] - 1.1) < 0.005
    from measurefirst.cli.commands import main

    assert main(["compare", "out/run.json", "out/new.json", "--fail-if-slower", "5%"]) == 1


def test_xdist_worker_refuses_to_measure(pt: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    pt.makepyfile(test_suite=SUITE)
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw3")
    monkeypatch.setenv("EXPECT_ONCE", "1")
    result = pt.runpytest(SIM, "-p", "no:cacheprovider")
    result.assert_outcomes(passed=6)
    out = result.stdout.str()
    assert "measurement(s) in" not in out
    result.stdout.fnmatch_lines([
        "*MeasureFirstWarning: measurefirst refuses to measure under pytest-xdist (worker gw3): timings taken "
        "while other workers run in parallel are meaningless*",
    ])


def test_xdist_controller_says_so(pt: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    pt.makepyfile("def test_a(measure):\n    assert measure(lambda: 1).summary is None\n")
    result = pt.runpytest_subprocess("-n", "1", SIM)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([
        "*refused to measure under pytest-xdist: 1 measuring test(s) ran on workers gw0 in parallel, so nothing "
        "was timed*pytest -p no:xdist --mf-only (or -n 0)",
    ])


BENCHMARK_STYLE_COUNTS = """
import pytest

CALLS = {"n": 0}

def work(n):
    CALLS["n"] += 1
    return n * 2

def test_pedantic_exact(benchmark):
    CALLS["n"] = 0
    assert benchmark.pedantic(work, args=(21,), rounds=7, iterations=3, warmup_rounds=2) == 42
    assert CALLS["n"] == (2 + 7) * 3
    assert benchmark.stats.stats.rounds == 7 and benchmark.stats["iterations"] == 3
    assert benchmark.measurement.numbers == (3,) * 7

def test_setup_teardown(benchmark):
    seen = []
    r = benchmark.pedantic(work, setup=lambda: ((5,), {}), teardown=lambda n: seen.append(n), rounds=4,
                           warmup_rounds=1)
    assert r == 10 and seen == [5] * 5

@pytest.mark.benchmark(group="plain", min_rounds=12, max_time=0.3)
def test_plain(benchmark):
    assert benchmark(work, 4) == 8
    assert benchmark.measurement.options["budget"] == 0.3 and benchmark.measurement.options["min_samples"] == 12
    with pytest.raises(Exception, match="can only be used once"):
        benchmark(work, 1)
"""


def test_pedantic_is_exact_on_the_real_clock(pt: pytest.Pytester) -> None:
    pt.makepyfile(test_counts=BENCHMARK_STYLE_COUNTS)
    result = pt.runpytest("--mf", "--mf-budget", "0.3", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["*group plain [[]cpu/wall[]]*", "*test_plain*"])


def test_pedantic_rounds_the_os_preempted_are_kept_not_set_aside(pt: pytest.Pytester) -> None:
    # a simulated clock that preempts a third of the calls: every round of the test is in benchmark.stats (the
    # rounds are the test's), the preempted ones counted as such; a marker may still ask to set them aside
    pt.makepyfile(test_pre="""
import pytest

def work():
    return 1

def test_kept(benchmark):
    benchmark.pedantic(work, rounds=30)
    m = benchmark.measurement
    assert benchmark.stats.stats.rounds == 30 and len(benchmark.stats["data"]) == 30
    assert m.n_samples == 30 and 0 < sum(m.preempted) < 30 and bool(m.used_mask.all())

@pytest.mark.measurefirst(discard_preempted=True)
def test_set_aside_on_request(benchmark):
    benchmark.pedantic(work, rounds=30)
    m = benchmark.measurement
    assert m.n_samples == 30 and benchmark.stats.stats.rounds == 30 - sum(m.preempted) < 30
""")
    result = pt.runpytest("--mf", "--mf-simulate=call=10ms,noise=0.002,seed=3,preempt_prob=0.33,preempt=30ms",
                          "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)


def test_pedantic_rounds_are_not_cut_by_the_budget(pt: pytest.Pytester) -> None:
    # five rounds of 20 ms against a 10 ms budget: all five run (the test counted them), whatever the load
    pt.makepyfile(test_cut="""
import time

def spin():
    t = time.perf_counter()
    while time.perf_counter() - t < 0.02:
        pass

def test_rounds(benchmark):
    benchmark.pedantic(spin, rounds=5)
    m = benchmark.measurement
    assert m.n_samples == 5 and m.stop.reason == "trials" and "budget_cut" not in m.options
""")
    result = pt.runpytest("--mf", "--mf-budget", "0.01", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_pytest_benchmark_file_runs_unchanged_under_mf(pt: pytest.Pytester) -> None:
    _example(pt, "test_benchmark_style")
    result = pt.runpytest("--mf", SIM, "--benchmark-json", "bench.json")
    result.assert_outcomes(passed=5)
    out = result.stdout.str()
    if _has_pytest_benchmark():
        result.stdout.fnmatch_lines(["measurefirst: providing pytest-benchmark's `benchmark` fixture (--mf); "
                                     "turned off for this run: pytest-benchmark"])
    assert "Name (time in" not in out  # pytest-benchmark's own table: it is off
    result.stdout.fnmatch_lines([
        "group sort [[]cpu/simulated[]]*", "*test_sort[[]1000[]]*20 × 5*", "*test_sort[[]10000[]]*20 × 5*",
        "group reduce [[]cpu/simulated[]]*", "*test_sum_with_setup*10 × 1*",
    ])
    data = json.loads((pt.path / "bench.json").read_text())  # pytest-benchmark's shape
    sort = next(b for b in data["benchmarks"] if b["name"] == "test_sort[1000]")
    assert sort["group"] == "sort" and sort["extra_info"] == {"n": 1000} and sort["params"] == {"n": 1000}
    assert sort["stats"]["rounds"] == 20 and sort["stats"]["iterations"] == 5
    assert abs(sort["stats"]["median"] - 10e-3) < 1e-4 and "measurement" in sort["measurefirst"]
    # and with --benchmark-disable each function runs once, nothing timed
    result = pt.runpytest("--mf", "--benchmark-disable")
    result.assert_outcomes(passed=5)
    result.stdout.fnmatch_lines(["nothing timed (--mf-disable): 5 measured function(s) ran once each"])


def _has_pytest_benchmark() -> bool:
    import importlib.util

    return importlib.util.find_spec("pytest_benchmark") is not None


def test_without_mf_pytest_benchmark_keeps_its_fixture(pt: pytest.Pytester) -> None:
    if not _has_pytest_benchmark():
        pytest.skip("pytest-benchmark is not installed")
    pt.makepyfile("""
        def test_a(benchmark):
            assert type(benchmark).__module__ == "pytest_benchmark.fixture"
            benchmark.pedantic(lambda: None, rounds=2)
    """)
    result = pt.runpytest("--benchmark-disable")
    result.assert_outcomes(passed=1)
    assert "measurefirst:" not in result.stdout.str() and "- measurefirst -" not in result.stdout.str()


def test_benchmark_options_without_pytest_benchmark(pt: pytest.Pytester) -> None:
    """Without pytest-benchmark (here: blocked), --mf still understands --benchmark-only and friends."""
    pt.makepyfile("""
        def test_b(benchmark):
            assert benchmark(lambda x: x + 1, 1) == 2
        def test_plain():
            pass
    """)
    result = pt.runpytest("-p", "no:benchmark", "--mf", SIM, "--benchmark-only")
    result.assert_outcomes(passed=1, skipped=1)
    assert "turned off for this run" not in result.stdout.str()



def test_the_printed_compare_hint_works_when_pasted(pt: pytest.Pytester) -> None:
    """After --mf-save, the hint it prints is pasted as it is into a fresh pytest process (where pytest reads a
    lone @NAME as a file of arguments) and compares with the saved runs."""
    import shlex

    pt.makepyfile("def test_a(measure):\n    measure(lambda: None)\n")
    saved = pt.runpytest_subprocess(SIM, "--mf-save", "base")
    assert saved.ret == 0
    hint = next(line for line in saved.stdout.lines if "compare with:" in line)
    pasted = shlex.split(hint.split("compare with:", 1)[1].strip().rstrip(")"))
    assert pasted[0] == "--mf-compare"
    again = pt.runpytest_subprocess(SIM, *pasted)
    assert again.ret == 0, again.stderr.str()
    again.stdout.fnmatch_lines(["*compared with @base*"])


def test_mf_options_without_mf_on_pytest_benchmark_tests_are_an_error(pt: pytest.Pytester) -> None:
    """pytest-benchmark times its own `benchmark` fixture: a gate asked for without --mf would never close;
    the error names the fix, and with --mf the same options measure and compare."""
    if not _has_pytest_benchmark():
        pytest.skip("pytest-benchmark is not installed")
    pt.makepyfile("def test_b(benchmark):\n    benchmark(lambda: None)\n")
    assert pt.runpytest(SIM, "--mf", "--mf-save", "base").ret == 0
    result = pt.runpytest("--mf-compare", "base", "--mf-fail-if-slower", "5%")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--mf-compare, --mf-fail-if-slower without --mf: 1 test(s) use pytest-benchmark's "
                                 "`benchmark` fixture (e.g. test_*.py::test_b)*add --mf*"])
    assert "no tests ran" in result.stdout.str()
    fixed = pt.runpytest(SIM, "--mf", "--mf-compare", "base", "--mf-fail-if-slower", "5%")
    fixed.assert_outcomes(passed=1)
    fixed.stdout.fnmatch_lines(["*compared with @base*"])
    # tests that measure with measurefirst's own fixture need no --mf, pytest-benchmark or not
    pt.makepyfile("def test_b(measure):\n    measure(lambda: None)\n")
    assert pt.runpytest(SIM, "--mf-compare", "base").ret == 0


def test_a_missing_baseline_or_store_names_what_to_give(pt: pytest.Pytester) -> None:
    pt.makepyfile("def test_a(measure):\n    measure(lambda: None)\n")
    result = pt.runpytest(SIM, "--mf-compare", "base")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--mf-compare: no runs saved with --mf-save in *; save a baseline first, e.g. "
                                 "pytest --mf-save base (or give the store with --mf-store PATH)"])
    assert pt.runpytest(SIM, "--mf-save", "one").ret == 0 and pt.runpytest(SIM, "--mf-save", "two").ret == 0
    result = pt.runpytest(SIM, "--mf-compare", "three")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--mf-compare @three: no runs saved under that name in * (saved: one, two)*"])


def test_mf_benchmark_json_is_read_by_pytest_benchmark_and_by_measurefirst(pt: pytest.Pytester) -> None:
    """`pytest --mf --benchmark-json F`: pytest-benchmark's own `compare` reads F, and measurefirst loads
    each benchmark back as the measurement it took (not an import of the summary)."""
    import subprocess
    import sys

    if not _has_pytest_benchmark():
        pytest.skip("pytest-benchmark is not installed")
    pt.makepyfile("def test_b(benchmark):\n    benchmark(lambda: None)\n"
                  "def test_p(benchmark):\n    benchmark.pedantic(lambda: None, rounds=7, iterations=3)\n")
    assert pt.runpytest(SIM, "--mf", "--benchmark-json", "f.json").ret == 0
    theirs = subprocess.run([sys.executable, "-c", "from pytest_benchmark.cli import main; main()", "compare",
                             str(pt.path / "f.json")], capture_output=True, text=True, timeout=120)
    assert theirs.returncode == 0, theirs.stderr
    assert "test_b" in theirs.stdout and "test_p" in theirs.stdout
    ours = measurefirst.load(pt.path / "f.json")
    assert isinstance(ours, list) and [m.imported for m in ours] == [None, None]
    assert [m.label.split("::")[-1] for m in ours] == ["test_b", "test_p"]
    assert ours[1].n_samples == 7 and set(ours[1].numbers) == {3}


def test_a_noise_profile_named_but_missing_is_said_in_the_summary(pt: pytest.Pytester, monkeypatch) -> None:
    # issue 38's probe re-run: `MEASUREFIRST_PROFILE=/nonexistent/p.json pytest --mf` passed without a word (the CLI
    # says it); said in the summary, so that -q shows it too
    monkeypatch.setenv("MEASUREFIRST_PROFILE", str(pt.path / "nowhere" / "p.json"))
    pt.makepyfile("def test_a(benchmark):\n    benchmark(len, 'x')\n")
    result = pt.runpytest("--mf", "--mf-budget", "0.1", "-q", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["MEASUREFIRST_PROFILE names a noise profile that does not exist*"])


def test_ctrl_c_in_the_end_of_run_summary_is_one_line_and_keeps_the_json(pt: pytest.Pytester) -> None:
    # issue 38's probe re-run: Ctrl-C landing in pytest's end-of-run summary while another plugin imported
    # (hypothesis's) printed pytest's traceback; a KeyboardInterrupt raised there is what the signal gives
    pt.makeconftest("def pytest_terminal_summary(terminalreporter):\n    raise KeyboardInterrupt\n")
    pt.makepyfile("def test_a(benchmark):\n    benchmark(len, 'x')\n")
    result = pt.runpytest_subprocess("--mf", "--mf-budget", "0.1", "--mf-simulate=call=10us,noise=0.01,seed=1",
                                     "--mf-json", "out.json", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["interrupted while the end-of-run summary was written*"])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    assert "test_a" in (pt.path / "out.json").read_text()


def test_ctrl_c_while_a_test_measures_keeps_what_it_measured(pt: pytest.Pytester) -> None:
    # issue 38: Ctrl-C in a measuring test kept nothing of it ("benchmarks": [] in --mf-json, nothing saved);
    # now its partial measurement is kept, marked incomplete, as the CLI keeps one. The function sends the
    # SIGINT itself at its 1500th call of 1 ms: past a warm-up capped at 1 s, inside the sampling, however busy
    # the machine (a count, not a time: so it needs no serial phase)
    pt.makepyfile('''
import os, signal, time
CALLS = [0]

def one_ms():
    CALLS[0] += 1
    if CALLS[0] == 1500:
        os.kill(os.getpid(), signal.SIGINT)
    end = time.perf_counter() + 1e-3
    while time.perf_counter() < end:
        pass

import pytest

@pytest.mark.measurefirst(min_time=10)  # no stop before 10 s of sampling: the SIGINT at 1.5 s is in it
def test_a(benchmark):
    benchmark(one_ms)
''')
    result = pt.runpytest_subprocess("--mf", "--mf-budget", "20", "--mf-json", "out.json", "--mf-save", "cut",
                                     "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    doc = json.loads((pt.path / "out.json").read_text())
    (bench,) = doc["benchmarks"]
    assert bench["name"].endswith("test_a") and bench["measurement"]["complete"] is False
    assert bench["measurement"]["stop"]["reason"] == "interrupted"
    assert len(bench["measurement"]["samples_ns"]) >= 1
    result.stdout.fnmatch_lines(["*test_a: warning *incomplete*: interrupted after * samples*",
                                 "saved 1 measurement(s) as @cut in *"])


def test_ctrl_c_while_the_plugin_starts_is_one_line(pt: pytest.Pytester) -> None:
    # issue 38's Ctrl-C class, found re-checking the probe: a SIGINT while --mf imported torch came before
    # pytest's terminal reporter existed, so pytest printed nothing at all and exited 2
    pt.makeconftest("import measurefirst.pytest.session as s\n\n"
                    "def interrupted(self):\n    raise KeyboardInterrupt\n\n"
                    "s.MeasureSession.configure = interrupted\n")
    pt.makepyfile("def test_a(benchmark):\n    benchmark(len, 'x')\n")
    result = pt.runpytest_subprocess("--mf", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stderr.fnmatch_lines(["measurefirst: interrupted while it started (importing torch and its plugin); "
                                 "nothing was measured"])


def test_ctrl_c_in_a_tests_comparison_keeps_its_rounds(pt: pytest.Pytester) -> None:
    # issue 38: as above, for measure.compare: the rounds measured before Ctrl-C are kept, marked incomplete
    pt.makepyfile('''
import os, signal, time
import pytest
CALLS = [0]

def spin(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass

def a():
    CALLS[0] += 1
    if CALLS[0] == 1500:
        os.kill(os.getpid(), signal.SIGINT)
    spin(1e-3)

def b():
    spin(1e-3)

@pytest.mark.measurefirst(min_time=10)
def test_pair(measure):
    measure.compare({"a": a, "b": b})
''')
    result = pt.runpytest_subprocess("--mf-budget", "20", "--mf-json", "out.json", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    doc = json.loads((pt.path / "out.json").read_text())
    assert sorted(b["label"] for b in doc["benchmarks"]) == ["a", "b"]
    assert all(b["measurement"]["complete"] is False and b["measurement"]["samples_ns"] for b in doc["benchmarks"])
    (cmp,) = doc["comparisons"]
    assert cmp["comparison"]["stop"]["reason"] == "interrupted"
