"""Budgets kept (issue 25): what a budget bounds, stated once and checked with the simulated clock.

The rule (see measurefirst.measure.engine and docs/budgets.md): no call of the function starts after the
deadline, except the first call each function needs (benchmark: the cold call; compare: each candidate's
first call). So a benchmark lasts at most ``budget + one sample + fixed overhead``, a sample planned at
most SAMPLE_BUDGET_SHARE of the budget, or one call when a call is longer; a comparison at most ``budget +
one sample of each candidate + fixed overhead``; a sweep keeps the budget per size. Fixed counts:
``trials`` and ``warmup`` stop at the budget (``stop.reason == "budget"``, finding ``fixed_count_cut``);
a fixed ``number`` whose one sample cannot fit the budget is refused, estimated from the calls before it.
"""

import pytest

import measurefirst
from measurefirst.results import defaults
from measurefirst.measure.engine import OVERHEAD_REPS, SAMPLE_BUDGET_SHARE, BenchmarkError
from measurefirst.results.errors import BudgetError
from measurefirst.measure.simulate import SimWorld

#: The fixed overhead a run may add to its budget on the simulated clock: the overhead probes (each a
#: timer reading) and slack for the clock readings around the calls.
TIMER_NS = 50.0
FIXED_NS = (OVERHEAD_REPS + 100) * TIMER_NS


def _codes(m):
    return [f.code for f in m.findings]


@pytest.mark.parametrize("call_s", [3.0, 0.5, 0.2])
def test_a_call_longer_than_the_budget_is_timed_once_and_said_so(call_s):
    w = SimWorld(call_ns=call_s * 1e9, timer_ns=TIMER_NS)
    m = measurefirst.benchmark(w.function(), timer=w.timer(), device="cpu", budget=0.2)
    # before: four calls (cold, warm-up, calibration trial, sample): 12 s for a 3 s call and a 0.2 s budget
    assert w.calls == 1 and m.n_samples == 1 and m.numbers == (1,)
    assert w.now <= call_s * 1e9 + FIXED_NS
    assert m.stop.reason == "budget" and not m.stop.target_met and m.complete
    (f,) = [f for f in m.findings if f.code == "call_exceeds_budget"]
    assert f.value == pytest.approx(call_s, rel=1e-3) and f.threshold == 0.2
    assert "warmup_not_steady" not in _codes(m)


@pytest.mark.parametrize("budget", [0.05, 0.3, 1.0])
@pytest.mark.parametrize("call_ns,noise", [(1e3, 0.0), (1e5, 0.2), (3e7, 0.0), (1.2e8, 0.1), (4e8, 0.0)])
@pytest.mark.parametrize("repeats", [1, None])
def test_a_benchmark_lasts_at_most_its_budget_plus_one_sample(budget, call_ns, noise, repeats):
    """An unreachable precision and no early stop: the budget alone ends the run, in every phase."""
    w = SimWorld(call_ns=call_ns, noise=noise, timer_ns=TIMER_NS, seed=3)
    m = measurefirst.benchmark(w.function(), timer=w.timer(), device="cpu", budget=budget, precision=1e-6,
                               stop_early=False, repeats=repeats)
    one_sample = max(SAMPLE_BUDGET_SHARE * budget * 1e9, call_ns) * (1 + 4 * noise)
    assert w.now <= budget * 1e9 + one_sample + FIXED_NS
    assert m.stop.reason == "budget"


def test_cold_calls_taken_before_the_engine_count_against_the_budget():
    w = SimWorld(call_ns=1e6, timer_ns=TIMER_NS)
    m = measurefirst.measure.engine.measure(w.function(), w.timer(), measurefirst.Options(budget=0.2), label="x",
                                    device="cpu", cold_ns=5e8)
    assert w.calls == 0 and m.n_samples == 1 and m.stop.reason == "budget"  # the cold call is the one sample


def test_fixed_trials_stop_at_the_budget_and_say_so():
    w = SimWorld(call_ns=1e6, timer_ns=TIMER_NS)
    m = measurefirst.benchmark(w.function(), timer=w.timer(), device="cpu", budget=0.2, trials=10**8)
    assert w.now <= 0.2e9 + 1e6 + FIXED_NS  # before: 10**8 samples
    assert m.stop.reason == "budget" and m.n_samples < 200
    (f,) = [f for f in m.findings if f.code == "fixed_count_cut"]
    assert (f.value, f.threshold, f.context["count"]) == (m.n_samples, 10**8, "trials")


def test_a_fixed_warmup_stops_at_the_budget_and_says_so():
    w = SimWorld(call_ns=1e6, timer_ns=TIMER_NS)
    m = measurefirst.benchmark(w.function(), timer=w.timer(), device="cpu", budget=0.2, warmup=10**8)
    assert w.now <= 0.2e9 + 1e6 + FIXED_NS  # before: 10**8 calls
    assert m.stop.reason == "budget" and m.n_samples == 1
    (f,) = [f for f in m.findings if f.code == "fixed_count_cut"]
    assert f.context["count"] == "warmup" and f.threshold == 10**8 and 150 <= f.value <= 200


def test_repetitions_asked_for_that_do_not_fit_the_budget_are_said_cut():
    # issue 38's second probe: `--repeats 1000000000 --budget 0.3` was cut without a word
    w = SimWorld(call_ns=1e6, timer_ns=TIMER_NS)
    m = measurefirst.benchmark(w.function(), timer=w.timer(), device="cpu", budget=0.2, repeats=10**6)
    assert m.stop.reason == "budget" and m.repeats is not None and 2 <= len(m.repeats) < 10**6
    (f,) = [f for f in m.findings if f.code == "fixed_count_cut"]
    assert (f.value, f.threshold, f.context["count"]) == (len(m.repeats), 10**6, "repeats")
    # the default count is the engine's own choice, not a count asked for: a short budget cuts it without a finding
    m = measurefirst.benchmark(w.function(), timer=w.timer(), device="cpu", budget=0.01)
    assert "fixed_count_cut" not in {g.code for g in m.findings}


def test_repetitions_cut_in_a_repetitions_warm_up_are_said_cut_too():
    # issue 38's probe re-run: `bench --repeats 1000000000` said the cut in 3 runs of 4; the fourth's budget ran
    # out while a repetition warmed up, a way out that did not say it. Every budget here ends somewhere else
    for i, budget in enumerate(0.05 + 0.02 * k for k in range(10)):
        w = SimWorld(call_ns=2e5 * (1 + i % 5), timer_ns=TIMER_NS, noise=0.05, seed=i)
        m = measurefirst.benchmark(w.function(), timer=w.timer(), device="cpu", budget=budget, repeats=10**9)
        assert m.stop.reason == "budget" and m.repeats is not None
        (f,) = [f for f in m.findings if f.code == "fixed_count_cut"]
        assert (f.value, f.threshold, f.context["count"]) == (len(m.repeats), 10**9, "repeats")


def test_a_fixed_number_that_cannot_fit_the_budget_is_refused_with_the_fix():
    w = SimWorld(call_ns=1e3, timer_ns=TIMER_NS)
    with pytest.raises(BudgetError, match=r"number=10000 or less \(--number\), or a budget of at least"):
        measurefirst.benchmark(w.function(), timer=w.timer(), device="cpu", budget=0.01, number=10**9)
    assert w.now <= 0.01e9 + FIXED_NS  # refused after the warm-up, before the 10**9 calls (1000 s)
    assert issubclass(BudgetError, ValueError)


def test_a_fixed_number_that_fits_is_kept():
    w = SimWorld(call_ns=1e3, timer_ns=TIMER_NS)
    m = measurefirst.benchmark(w.function(), timer=w.timer(), device="cpu", budget=0.2, number=10**4)
    assert set(m.numbers) == {10**4}


@pytest.mark.parametrize("name", ["number", "trials", "warmup", "min_samples", "max_samples", "repeats"])
def test_counts_beyond_the_limit_are_refused_up_front(name):
    with pytest.raises(ValueError, match=rf"{name} must be an integer >= [01] \(at most {defaults.MAX_COUNT}\)"):
        measurefirst.benchmark(lambda: None, device="cpu", **{name: 99999999999999999999})


def test_the_command_line_refuses_a_loop_count_that_would_overflow(capsys):
    from measurefirst.cli.commands import main

    # before: "the function raised at sample 0: OverflowError"
    assert main(["bench", "1", "--number", "99999999999999999999"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f">= 1 (at most {defaults.MAX_COUNT})" in err[0] and "--number" in err[0]


@pytest.mark.parametrize("slow_s", [2.0, 0.35])
def test_a_comparison_lasts_at_most_its_budget_plus_one_call_of_each(slow_s):
    w = SimWorld(timer_ns=TIMER_NS)
    c = measurefirst.compare({"a": w.function(1e6, "a"), "b": w.function(slow_s * 1e9, "b")}, timer=w.timer(),
                             device="cpu", budget=0.3)
    assert w.now <= 0.3e9 + slow_s * 1e9 + 1e6 + 2 * FIXED_NS  # before: 8.05 s for a 2 s candidate
    assert c.stop.reason == "budget" and len(c.orders) == 1
    assert "call_exceeds_budget" in [f.code for f in c["b"].findings]


@pytest.mark.parametrize("block_time", [0.001, 0.05, 10.0])
def test_a_comparison_keeps_its_budget_whatever_the_blocks(block_time):
    w = SimWorld(timer_ns=TIMER_NS)
    calls = {"a": 2e7, "b": 3e7}
    c = measurefirst.compare({k: w.function(v, k) for k, v in calls.items()}, timer=w.timer(), device="cpu",
                             budget=0.4, precision=1e-6, block_time=block_time)
    one_sample_each = sum(max(SAMPLE_BUDGET_SHARE * 0.4e9, v) for v in calls.values())
    assert w.now <= 0.4e9 + one_sample_each + 2 * FIXED_NS
    assert c.stop.reason == "budget"


def test_a_sweep_keeps_the_budget_per_size():
    w = SimWorld(timer_ns=TIMER_NS)
    sizes = [1, 2, 4]
    r = measurefirst.sweep(lambda n: w.function(n * 1e8), sizes, timer=w.timer(), device="cpu", budget=0.15)
    assert w.now <= sum(0.15e9 + n * 1e8 + FIXED_NS for n in sizes)  # before: four calls per size
    assert [p.measurement.stop.reason for p in r.points] == ["budget"] * 3


# ---- the code under test raising a BaseException ------------------------------------------------------
class Custom(BaseException):
    pass


def _raising(w, at, exc):
    """A simulated call that raises ``exc`` at its own call number ``at``."""
    own = [0]

    def fn():
        w.call()
        own[0] += 1
        if own[0] == at:
            raise exc
    return fn


def _raising_after(w, at_ns, exc):
    """A simulated call that raises ``exc`` once the simulated clock has passed ``at_ns``."""
    def fn():
        w.call()
        if w.now > at_ns:
            raise exc
    return fn


@pytest.mark.parametrize("exc", [SystemExit(3), Custom("stop"), GeneratorExit()])
def test_a_base_exception_from_the_function_is_the_library_s_error_with_the_partial(exc):
    w = SimWorld(call_ns=1e5, timer_ns=TIMER_NS)
    with pytest.raises(BenchmarkError, match=type(exc).__name__) as info:
        measurefirst.benchmark(_raising(w, 3000, exc), timer=w.timer(), device="cpu", budget=1.0,
                               precision=1e-6, stop_early=False)
    assert info.value.phase == "sampling" and info.value.partial is not None and info.value.partial.n_samples > 0
    assert info.value.__cause__ is exc


def test_a_base_exception_from_setup_names_the_setup():
    w = SimWorld(call_ns=1e5, timer_ns=TIMER_NS)
    with pytest.raises(BenchmarkError, match="setup raised") as info:
        measurefirst.benchmark(w.function(), setup=lambda: (_ for _ in ()).throw(SystemExit(2)), timer=w.timer(),
                               device="cpu", budget=1.0)
    assert info.value.phase == "setup"


def test_a_base_exception_in_a_comparison_keeps_the_rounds_so_far():
    w = SimWorld(timer_ns=TIMER_NS)
    with pytest.raises(BenchmarkError, match="candidate 'b'.*SystemExit") as info:
        measurefirst.compare({"a": w.function(1e5, "a"), "b": _raising_after(w, 4e9, SystemExit(0))}, timer=w.timer(),
                             device="cpu", budget=5.0, precision=1e-6)
    assert info.value.partial is not None and len(info.value.partial.orders) > 0


def test_a_base_exception_while_profiled_is_a_profile_error():
    from measurefirst.profiling import ProfileError

    def fn():
        raise SystemExit(4)

    with pytest.raises(ProfileError, match="SystemExit: 4"):
        measurefirst.profile(fn, device="cpu", warmup=0, steps=1)


def test_the_command_line_prints_one_line_for_a_system_exit(capsys):
    from measurefirst.cli.commands import main

    code = main(["bench", "if n[0] == 50: raise SystemExit(3)\nn[0] += 1", "-s", "n = [0]", "--device", "cpu",
                 "--budget", "1", "--min-time", "0"])
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() + captured.out.splitlines() if "SystemExit" in line
             or "exit" in line.lower()]
    assert code == 1 and len(lines) == 1, captured


# ---- a second Ctrl-C -------------------------------------------------------------------------------------
_FIRST_AT_SAMPLE_5 = """
import os, signal
import measurefirst.measure.engine as E
take = E.Sampler.take_sample
def take_sample(self):
    take(self)
    if len(self.samples) == 5:  # the first Ctrl-C, while measuring (min_samples is 10)
        os.kill(os.getpid(), signal.SIGINT)
E.Sampler.take_sample = take_sample
"""
_SECOND = {
    # the second Ctrl-C while the partial result is made, or while the "interrupted" line is printed
    "keeping the partial": "import measurefirst.measure.engine as G\nkeep = G.Sampler.partial\n"
                           "def again(self, reason):\n    os.kill(os.getpid(), signal.SIGINT)\n"
                           "    return keep(self, reason)\nG.Sampler.partial = again\n",
    "saying so": "import measurefirst.cli.guard as G\nsay = G.say\n"
                 "def again(text):\n    os.kill(os.getpid(), signal.SIGINT)\n    say(text)\nG.say = again\n",
}


@pytest.mark.parametrize("when", list(_SECOND))
def test_a_second_ctrl_c_still_exits_130_with_the_partial_kept(when):
    """Real SIGINTs to a child process, sent by the child itself at fixed points (the 5th sample, then
    while the first is handled): deterministic, no sleeps. Before: the second one lost the partial or ended
    the process by the signal (-2)."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    proc = subprocess.run([sys.executable, "-m", "measurefirst", "bench", "x = 1", "--device", "cpu",
                           "-s", _FIRST_AT_SAMPLE_5 + _SECOND[when], "--budget", "30"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 130, (proc.returncode, proc.stderr[-2000:])
    assert "interrupted" in proc.stderr and "x = 1" in proc.stdout


def test_a_step_comparison_keeps_its_budget(monkeypatch):
    """compare_steps' interleaved comparison on the simulated GPU, each step (0.4 s) longer than the
    0.3 s compare_budget: one call of each candidate, one round (before: four calls of each)."""
    import importlib
    import sys
    from pathlib import Path

    from measurefirst.tools import step as step_mod
    from measurefirst.measure.simulate import SimGPU

    sys.path.insert(0, str(Path(__file__).parent))
    from sim_step import sim_step_parts

    compare_mod = importlib.import_module("measurefirst.tools.compare")
    g = SimGPU(name="NVIDIA H100 80GB HBM3")
    calls, inside = [], []
    real_call, real_compare = step_mod._Step.__call__, compare_mod.compare

    def counted(self, *args):
        calls.append(bool(inside))
        return real_call(self, *args)

    def compare(*args, **kwargs):
        inside.append(True)
        try:
            return real_compare(*args, **kwargs)
        finally:
            inside.clear()

    monkeypatch.setattr(step_mod._Step, "__call__", counted)
    monkeypatch.setattr(compare_mod, "compare", compare)

    def build():
        model, opt, batches, loss_fn = sim_step_parts(g, fwd_us=400_000.0)
        return {"model": model, "optimizer": opt, "batches": batches, "loss_fn": loss_fn}

    with g.installed():
        sc = step_mod.compare_steps(build, dtypes=("fp32", "bf16"), device="cuda", steps=2, warmup=1,
                                    compare_budget=0.3)
    assert sum(calls) == 2  # in the comparison: one call of each candidate
    assert sc.comparison is not None and sc.comparison.stop.reason == "budget" and len(sc.comparison.orders) == 1


def test_doctor_calls_a_function_longer_than_its_budget_once():
    """doctor's audits that call the function again are skipped, and say why (before: a profiled call
    and more after the benchmark). The call count is exact: a 0.3 s sleep outlasts a 0.05 s budget."""
    import time

    calls = []

    def slow():
        calls.append(1)
        time.sleep(0.3)

    d = measurefirst.doctor(slow, device="cpu", budget=0.05)
    assert len(calls) == 1 and d.error is None
    assert {c: d.skipped[c] for c in ("implicit_syncs", "memory")} == {"implicit_syncs": "budget", "memory": "budget"}
