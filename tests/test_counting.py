"""Deterministic counts (benchmark(..., count="instructions")): the counters, the result, regression
gates on counts, the command line. Counting runs a fresh process (under valgrind where the kernel
exposes no hardware counters): the functions counted here are tiny and stdlib-only."""

import functools
import json
import os
import pickle
import sys

import pytest

import count_workloads as cw
from measurefirst import BenchmarkError, benchmark, change
from measurefirst.measure import _counters, counting
from measurefirst.cli.commands import main
from measurefirst.results.regression_checks import COUNT_THRESHOLD, steps
from measurefirst.results.kinds import Count, Measurement, Stop, load_result
from measurefirst.render.words import flag_words
from measurefirst.results.store import Store
from measurefirst.render.export import export

PROBLEMS = counting.backend_problems()
NO_BACKEND = PROBLEMS["perf"] is not None and PROBLEMS["callgrind"] is not None
needs_counter = pytest.mark.skipif(
    NO_BACKEND, reason=f"no instruction counter here: perf: {PROBLEMS['perf']}; callgrind: {PROBLEMS['callgrind']}")


def _software_perf_problem():
    try:
        c = _counters.PerfCounter(_counters.PERF_TYPE_SOFTWARE, _counters.PERF_COUNT_SW_TASK_CLOCK)
    except _counters.CounterUnavailable as exc:
        return str(exc)
    c.close()
    return None


SW_PERF = _software_perf_problem()


def make_count(per_call, *, label="f", spread=0.0, backend="callgrind", calls=10):
    """A Count whose repeats read ``per_call`` per call, ± ``spread`` (relative) on the outer two."""
    total = per_call * calls
    counts = (round(total * (1 - spread)), round(total), round(total * (1 + spread)))
    return Count(label=label, event="instructions", backend=backend, counts=counts, baselines=(7000, 7000, 7000),
                 calls=calls, warmup=3, env={"hostname": "h", "python_version": "3.11", "torch_version": "2"})


# ---- counting for real -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def loop_counts():
    """Counts of 2000 and 4000 loop iterations, 3 calls per repeat, 3 repeats each."""
    return {n: benchmark(functools.partial(cw.loop, n), count="instructions", number=3, trials=3, warmup=2,
                         label=f"loop {n}") for n in (2000, 4000)}


@needs_counter
def test_counts_scale_with_the_work(loop_counts):
    a, b = loop_counts[2000], loop_counts[4000]
    assert isinstance(a, Count) and a.event == "instructions" and a.backend in ("perf", "callgrind")
    assert a.per_call > 2000 * 10  # at least ten instructions per iteration
    assert b.per_call / a.per_call == pytest.approx(2.0, rel=0.02)


@needs_counter
def test_repeated_counts_agree(loop_counts):
    for c in loop_counts.values():
        assert c.n_repeats == 3 and c.calls == 3
        assert c.spread < 0.005
        assert "count_spread" not in [w.code for w in c.findings]
    # a second, independent count of the same work agrees too
    again = benchmark(functools.partial(cw.loop, 2000), count="instructions", number=3, trials=2, warmup=2)
    assert again.per_call == pytest.approx(loop_counts[2000].per_call, rel=0.005)


@needs_counter
def test_a_function_that_raises_while_counted_is_a_benchmark_error():
    with pytest.raises(BenchmarkError, match="boom from the counted function") as info:
        benchmark(cw.fails, count="instructions", number=1, trials=1, warmup=1)
    assert info.value.label == "fails"


@pytest.mark.skipif(SW_PERF is not None, reason=f"perf_event_open of a software event fails here: {SW_PERF}")
def test_the_perf_counter_plumbing_on_a_software_event():
    """perf_event_open, enable/disable/reset and read, on the task clock (ns): the same code path as
    hardware instruction counts, which this machine may not expose."""
    short = counting.count_events(functools.partial(cw.loop, 20_000), label="short", calls=2, repeats=3,
                                  backend="perf-task-clock")
    long = counting.count_events(functools.partial(cw.loop, 200_000), label="long", calls=2, repeats=3,
                                 backend="perf-task-clock")
    assert short.backend == "perf-task-clock" and all(c > 0 for c in short.counts)
    assert long.per_call > 3 * short.per_call  # ten times the work takes several times the time


def test_without_a_counter_the_error_names_the_fix(monkeypatch):
    monkeypatch.setattr(counting, "valgrind_path", lambda: None)
    monkeypatch.setattr(_counters, "probe_perf", lambda: "no counters in this test")
    with pytest.raises(counting.CountError, match="apt-get install valgrind"):
        benchmark(cw.loop_2000, count="instructions")
    with pytest.raises(counting.CountError, match="cannot count with callgrind: valgrind is not installed"):
        counting.count_events(cw.loop_2000, label="x", backend="callgrind")


def test_a_lambda_needs_a_module_level_function_or_cloudpickle(monkeypatch):
    monkeypatch.setitem(sys.modules, "cloudpickle", None)  # as if not installed
    monkeypatch.setattr(counting, "choose_backend", lambda backend: "callgrind")
    with pytest.raises(counting.CountError, match="module-level function.*cloudpickle"):
        benchmark(lambda: cw.loop(10), count="instructions")


def test_count_options_are_checked_before_anything_runs():
    with pytest.raises(ValueError, match="count must be one of 'instructions'"):
        benchmark(cw.loop_2000, count="cycles")
    with pytest.raises(ValueError, match="drop setup, cold_cache"):
        benchmark(cw.loop_2000, count="instructions", setup=lambda: None, cold_cache=True)
    with pytest.raises(ValueError, match="calls must be an integer >= 1"):
        benchmark(cw.loop_2000, count="instructions", number=0)


def test_a_statement_target_rebuilds_in_the_child_as_the_cli_loads_it():
    t = _counters.Target("statement", "", "y = x * 2", ("x = 21",), "cpu")
    clone = pickle.loads(pickle.dumps(t))
    assert clone() is None and clone._fn is not None
    f = _counters.Target("file", os.path.join(os.path.dirname(__file__), "count_workloads.py"), "loop_2000")
    assert pickle.loads(pickle.dumps(f))() == 0
    assert pickle.loads(pickle.dumps(_counters.Target("module", "count_workloads", "loop_2100")))() == 0


# ---- the result, regression gates, the store --------------------------------------------------------
def test_count_round_trips_through_json_and_load_result():
    c = make_count(444_360.0, spread=0.001)
    back = Count.from_json(c.to_json())
    assert back == c
    assert load_result(json.loads(c.to_json())) == c
    assert json.loads(c.to_json())["per_call"] == pytest.approx(444_360.0)
    assert c.spread == pytest.approx(0.001, rel=1e-3)
    assert "444,360 instructions per call" in str(c)
    with pytest.raises(ValueError, match="newer than this measurefirst"):
        Count.from_dict({**c.to_dict(), "schema_version": 99})


def test_regression_on_counts_uses_a_tight_default_threshold():
    base = make_count(1_000_000)
    assert not change(base, make_count(1_003_000)).regression  # +0.3%: within the 0.5% default
    worse = change(base, make_count(1_010_000))
    assert worse.regression and worse.unit == "instructions" and worse.threshold == COUNT_THRESHOLD
    assert "1.0% more instructions" in worse.words()
    assert change(base, make_count(990_000)).improvement
    assert change(base, make_count(1_003_000), threshold=0.001).regression  # an explicit threshold wins
    # repeats that disagree widen the interval: a change inside it is no regression
    assert not change(make_count(1_000_000, spread=0.02), make_count(1_010_000, spread=0.02)).regression
    c = change(base, make_count(1_000_000, backend="perf"))
    assert c.flags == ("counters",) and c.flag_values == {"counters": ("callgrind", "perf")}
    assert flag_words(c, "counters", "en") == "different counters: callgrind vs perf (counts differ between them)"
    assert flag_words(c, "counters", "zh") == "计数器不同：callgrind 与 perf（两者的计数不可比）"
    m = Measurement("f", "cpu", "wall", (1.0,) * 10, (1,) * 10, None, None, None, None, Stop("trials", True, 0.01, 1))
    with pytest.raises(ValueError, match="cannot compare a time with a count"):
        change(m, base)
    assert steps([base, make_count(1_000_100), make_count(1_020_000)]) == [2]


def test_the_store_keeps_counts(tmp_path):
    with Store(tmp_path / "r.db") as s:
        ids = s.save_many([make_count(1000.0), make_count(1100.0)], names=["loop", "loop"])
        assert s.get(ids[0]) == make_count(1000.0)
        assert s.latest("loop")[1].per_call == pytest.approx(1100.0)
        assert "per_call_count" in export(s.iter_results(ids), "csv").splitlines()[0]


# ---- the command line -------------------------------------------------------------------------------
def test_cli_compare_gates_on_count_files(tmp_path, capsys):
    a, b, c = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    a.write_text(make_count(1_000_000).to_json())
    b.write_text(make_count(1_002_000).to_json())
    c.write_text(make_count(1_020_000).to_json())
    assert main(["compare", str(a), str(b), "--fail-if-slower"]) == 0
    assert "1,002,000 instructions" in capsys.readouterr().out
    assert main(["compare", str(a), str(c), "--fail-if-slower"]) == 1
    assert "beyond the 0.5% threshold" in capsys.readouterr().err
    assert main(["compare", str(a), str(c), "--fail-if-slower", "5%"]) == 0


def test_cli_history_of_counts(tmp_path, capsys):
    store = tmp_path / "r.db"
    with Store(store) as s:
        s.save_many([make_count(1000.0), make_count(1000.0), make_count(1100.0)], names=["loop"] * 3)
    assert main(["history", "loop", "--store", str(store)]) == 0
    out = capsys.readouterr().out
    assert "1,100 instructions" in out and "+10.0%" in out and "slower" in out
    assert main(["history", "loop", "--store", str(store), "--json"]) == 0
    h = json.loads(capsys.readouterr().out)
    assert h["steps"] == [2] and h["runs"][2]["measurement"]["per_call"] == pytest.approx(1100.0)


@needs_counter
def test_cli_bench_count_end_to_end(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(os.path.dirname(__file__))  # module targets import from the working directory
    out = tmp_path / "n.json"
    code = main(["bench", "--count", "instructions", "count_workloads:loop_2000", "--number", "2", "--trials", "2",
                 "--warmup", "1", "-o", str(out), "--save", "--store", str(tmp_path / "r.db")])
    assert code == 0
    text = capsys.readouterr().out
    assert "instructions" in text and "loop_2000" in text
    data = json.loads(out.read_text())
    assert data["kind"] == "count" and data["calls"] == 2 and len(data["counts"]) == 2
    assert main(["compare", str(out), str(out), "--fail-if-slower"]) == 0
    with Store(tmp_path / "r.db") as s:
        assert isinstance(s.latest("loop_2000")[1], Count)
