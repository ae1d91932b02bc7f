"""benchmark(fn, processes=K): the merge arithmetic (pure), the refusals, and short real runs in fresh
worker processes (structure only)."""

import json
import math
import statistics

import pytest

from measurefirst import benchmark
from measurefirst.cli.commands import main
from measurefirst.measure.engine import BenchmarkError
from measurefirst.results.kinds import Measurement, RunToRun, Stop, spread_factor
from measurefirst.measure.simulate import SimSpec, SimWorld
from measurefirst.measure.workers import merge, process_spread

import worker_helpers


def made(per_call_ns, *, number=10, preempted=None, host=False, budget=0.5, rr_cv=0.01, label="f"):
    n = len(per_call_ns)
    return Measurement(
        label=label, device="cpu", timer="wall", samples_ns=tuple(x * number for x in per_call_ns),
        numbers=(number,) * n, host_ns=tuple(float(x) for x in per_call_ns) if host else None,
        preempted=preempted, warmup=None, calibration=None, stop=Stop("precision", True, 0.01, 0.25),
        options={"budget": budget, "precision": 0.01}, env={"hostname": "h"},
        run_to_run=RunToRun(cv=rr_cv, source="repeats", n=5, factor=spread_factor(5)))


def test_merge_concatenates_the_processes_and_measures_their_spread():
    a = made([100.0, 101.0, 99.0], preempted=(0, 1, 0), host=True)
    b = made([110.0, 111.0, 109.0, 112.0])
    c = made([95.0, 96.0], host=True)
    m = merge([a, b, c], budget=1.5)
    assert m.samples_ns == a.samples_ns + b.samples_ns + c.samples_ns
    assert m.numbers == (10,) * 9 and m.repeats == (3, 4, 2)
    assert m.preempted == (0, 1, 0, -1, -1, -1, -1, -1, -1)  # unknown where a process did not say
    assert m.host_ns is None  # not every process had it
    medians = [99.5, 110.5, 95.5]  # the preempted sample of the first process is set aside
    sd = statistics.stdev([math.log(x) for x in medians])
    rr = m.run_to_run
    assert rr.source == "processes" and rr.n == 3 and rr.factor == spread_factor(3)
    assert rr.cv == pytest.approx(math.expm1(sd)) and rr.medians_ns == pytest.approx(tuple(medians))
    assert m.options["processes"] == 3 and m.options["budget"] == 1.5 and m.options["process_budget"] == 0.5
    assert m.env["processes"] == 3 and m.stop.seconds == pytest.approx(0.75) and m.stop.target_met
    assert m.complete and m.label == "f"
    assert Measurement.from_json(m.to_json()).run_to_run == rr  # it stores
    assert merge([a, b], budget=1.0, complete=False).complete is False


def test_merge_of_one_process_keeps_its_own_repetitions():
    a = made([100.0, 101.0, 99.0])
    m = merge([a])
    assert m.run_to_run == a.run_to_run and m.repeats is None and m.options["processes"] == 1


def test_process_spread_needs_two_usable_medians():
    assert process_spread([100.0]) is None
    assert process_spread([100.0, math.nan]) is None
    rr = process_spread([100.0, 100.0])
    assert rr.cv == 0.0 and rr.n == 2
    with pytest.raises(ValueError):
        merge([])


def _closure():
    x = 1
    return lambda: x + 1


def test_a_lambda_or_closure_is_refused_with_the_fix():
    for fn in (lambda: None, _closure()):
        with pytest.raises(ValueError, match=r"processes=K runs fn in fresh interpreters; pass a module-level "
                                             r"function, or use the CLI: measurefirst bench 'stmt' -s 'setup' "
                                             r"--processes K"):
            benchmark(fn, processes=2, device="cpu")

    def local():
        pass

    with pytest.raises(ValueError, match="a local function"):
        benchmark(local, processes=2, device="cpu")
    with pytest.raises(ValueError, match="setup"):
        benchmark(worker_helpers.spin_5us, setup=lambda: None, processes=2, device="cpu")


def test_other_refusals():
    w = SimWorld(SimSpec(call_ns=1000, timer_ns=50, seed=1))
    with pytest.raises(ValueError, match="Timer instance"):
        benchmark(worker_helpers.spin_5us, processes=2, timer=w.timer(), device="cpu")
    for bad in (0, True, 1.5):
        with pytest.raises(ValueError, match="processes must be an integer >= 1"):
            benchmark(worker_helpers.spin_5us, processes=bad, device="cpu")
    with pytest.raises(ValueError, match="count="):
        benchmark(worker_helpers.spin_5us, processes=2, count="instructions")
    # issue 38: more processes than the budget can give a warm-up each (before: each started, for 5 ms)
    with pytest.raises(ValueError, match=r"10 processes share the budget of 0.1 s: 10 ms each, .* give a budget of "
                                         r"at least 0.5 s \(budget= / --budget\), or at most 2 processes"):
        benchmark(worker_helpers.spin_5us, processes=10, budget=0.1, device="cpu")


@pytest.mark.realclock
def test_two_fresh_processes_for_real():
    from measurefirst.measure.progress import showing

    events: list = []
    with showing(events.append):
        m = benchmark(worker_helpers.spin_5us, processes=2, device="cpu", budget=0.6, min_time=0.1)
    # a progress line says which process starts (--processes 64 took minutes without a word)
    shown = [(e.item, e.done, e.total) for e in events if e.tool == "bench"]
    assert shown[:2] == [("spin_5us", 0, 2), ("spin_5us", 1, 2)]
    assert len(m.repeats) == 2 and sum(m.repeats) == m.n_samples and all(r > 0 for r in m.repeats)
    assert m.run_to_run.source == "processes" and m.run_to_run.n == 2 and len(m.run_to_run.medians_ns) == 2
    assert m.options["processes"] == 2 and m.options["process_budget"] == pytest.approx(0.3)
    assert 4e-6 < m.median < 100e-6 and m.ci_includes_run_to_run
    assert m.label == "spin_5us"


@pytest.mark.realclock
def test_a_failing_worker_is_a_benchmark_error_naming_it():
    with pytest.raises(BenchmarkError, match=r"broken on purpose.*worker process 1 of 2"):
        benchmark(worker_helpers.fails, processes=2, device="cpu", budget=0.4)


@pytest.mark.realclock
def test_cli_bench_processes_rebuilds_a_statement(capsys):
    code = main(["bench", "x + 1", "-s", "x = 1", "--processes", "2", "-b", "0.4", "--min-time", "0.05", "-d", "cpu",
                 "--json", "--repeats", "2"])
    assert code == 0
    out = capsys.readouterr()
    # issue 38: both given, the line says whose spread it is
    assert "--processes 2 and --repeats 2: the run-to-run spread is the 2 fresh processes'" in out.err
    d = json.loads(out.out)
    d = d[0] if isinstance(d, list) else d
    assert d["options"]["processes"] == 2 and d["run_to_run"]["source"] == "processes" and len(d["repeats"]) == 2


def test_cli_bench_processes_refuses_the_simulated_clock(capsys):
    assert main(["bench", "--simulate", "call=10us", "--processes", "2"]) == 2
    assert "simulated" in capsys.readouterr().err


def test_a_workers_exit_status_is_said_in_words():
    from measurefirst.measure.workers import exit_words

    assert exit_words(3) == "exit 3"
    assert exit_words(-11).startswith("killed by SIGSEGV: a crash in native code")
    assert exit_words(-9).startswith("killed by SIGKILL (the out-of-memory killer")
    assert exit_words(-15) == "killed by SIGTERM"
    assert exit_words(-200) == "killed by signal 200"


def test_a_worker_killed_by_a_signal_is_named_and_one_that_never_returns_is_stopped(monkeypatch):
    """Issue 38: a worker's SIGSEGV read "exit -11"; ``time.sleep(1000)`` with ``--processes 2 --budget 2`` held
    the command for the start-up's 300 s grace."""
    from measurefirst.measure import workers

    with pytest.raises(BenchmarkError, match=r"worker process 1 of 2 failed \(killed by SIGSEGV: a crash in native"):
        benchmark(worker_helpers.crashes, processes=2, device="cpu", budget=0.4)
    monkeypatch.setattr(workers, "MEASURE_GRACE_S", 0.5)
    with pytest.raises(BenchmarkError, match=r"worker process 1 of 2 was still measuring 1 s after it started "
                                             r"\(its share of the budget is 0.2 s\).*stopped"):
        benchmark(worker_helpers.never_returns, processes=2, device="cpu", budget=0.4)
