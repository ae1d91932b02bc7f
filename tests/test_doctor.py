"""doctor(): each deliberate pitfall produces its finding; a clean function produces no warnings."""

import json

import pytest
import torch

from measurefirst import doctor
from measurefirst.tools.doctor import Diagnosis
from measurefirst.cli.commands import main
from measurefirst.results.findings import UNSTABLE_IQR_FRACTION
from measurefirst.render.doctor import diagnosis_lines
from measurefirst.render.findings import finding_words
from measurefirst.measure.simulate import SimSpec, SimWorld

# about the machine, not the function: the engine's checks of the samples, and doctor's of the machine
MACHINE_CODES = {"unstable", "drift", "speed_modes", "outliers", "preempted", "precision_not_met", "noise_floor",
                 "few_samples", "warmup_not_steady", "other_load", "cpu_frequency"}


@pytest.mark.realclock  # a cold call 10x the warm ones, on the real clock: the serial phase, with its rerun
def test_lazily_initialised_function_has_a_cold_start():
    state = {}

    def lazy():
        if "table" not in state:
            a = torch.randn(1500, 1500)
            state["table"] = (a @ a)[:64, :64].clone()
        return state["table"].sum()

    d = doctor(lazy, device="cpu", budget=1.0)
    cold = [f for f in d.findings if f.code == "cold_start"]
    assert cold and cold[0].severity == "warning" and cold[0].value >= 10
    assert d.evidence["warmup_calls"] >= 1
    assert "warm up" in finding_words(cold[0]).fix


def test_loop_of_tiny_ops_is_overhead_bound():
    x = torch.ones(4)

    def tiny():
        y = x
        for _ in range(100):
            y = y + 1
        return y

    d = doctor(tiny, device="cpu", budget=1.0)
    f = next(f for f in d.findings if f.code == "many_tiny_ops")
    assert f.severity == "warning" and f.value == 100
    assert "torch.compile" in finding_words(f).fix


def test_noisy_simulated_clock_is_reported():
    world = SimWorld(SimSpec(call_ns=10_000, noise=0.4, seed=3))
    d = doctor(world.function(), timer=world.timer(), budget=0.5)
    assert d.codes() == ["unstable"]  # the engine's own check of the samples, not a second copy of it
    assert d.findings[0].threshold == UNSTABLE_IQR_FRACTION and d.findings[0].value > UNSTABLE_IQR_FRACTION
    assert d.skipped["implicit_syncs"] == "simulated"  # a code; the words are the renderer's
    lines = diagnosis_lines(d)
    assert "  not run: implicit_syncs (simulated clock)" in lines
    assert "  未运行：implicit_syncs（模拟时钟）" in diagnosis_lines(d, "zh")


def test_a_version_1_diagnosis_gets_its_reasons_as_codes_and_keeps_other_text():
    """Version 1 wrote why a check did not run in English words: the known ones load as codes (so they are
    shown in either language), any other text is shown as it is."""
    old = {"kind": "diagnosis", "schema_version": 1, "label": "f", "device": "cpu", "findings": [],
           "checks": ["cold_start"], "skipped": {"memory": "simulated clock", "precision": "not run: the function failed",
                                                 "sync": "cpu: nothing runs asynchronously"}, "error": None}
    d = Diagnosis.from_dict(old)
    assert d.skipped == {"memory": "simulated", "precision": "function_failed",
                         "sync": "cpu: nothing runs asynchronously"}
    assert diagnosis_lines(d, "zh")[2:5] == ["  未运行：memory（模拟时钟）", "  未运行：precision（函数运行失败）",
                                             "  未运行：sync（cpu: nothing runs asynchronously）"]
    assert Diagnosis.from_dict(d.to_dict()) == d and d.to_dict()["schema_version"] == 3
    assert d.measurement is None  # not kept before version 3


def test_quiet_simulated_clock_is_clean():
    world = SimWorld(SimSpec(call_ns=10_000, noise=0.001, seed=3))
    d = doctor(world.function(), timer=world.timer(), budget=0.5)
    assert d.warnings == ()


def test_clean_function_has_no_function_warnings():
    a = torch.randn(256, 256)
    a @ a  # its one-time costs (first use of these pages and sizes) are paid, as in a warmed-up program
    # one thread: on a shared 2-core host the first parallel matmul after a pause waits for a descheduled
    # OpenMP worker (~15 ms, 80x the steady state), a machine effect rather than the function's cold start
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        # the cold call is one sample: on an overloaded host a preemption can land in it. A machine effect
        # does not repeat in every run; a function's cold start would (to doctor every run is a first call)
        for _ in range(3):
            d = doctor(lambda: a @ a, device="cpu", budget=1.0)
            if {f.code for f in d.warnings} <= MACHINE_CODES:
                break
    finally:
        torch.set_num_threads(threads)
    assert {f.code for f in d.warnings} <= MACHINE_CODES
    codes = d.codes()
    assert "unsynchronized_timing" in codes  # explained as not applying on the CPU
    assert next(f for f in d.findings if f.code == "unsynchronized_timing").severity == "info"
    assert set(d.checks) == {"cold_start", "graph_breaks", "unsynchronized_timing", "implicit_syncs", "overhead_bound", "noise",
                             "precision", "memory"}


def test_item_in_the_hot_loop_is_noted_on_cpu():
    x = torch.randn(1000)

    def with_item():
        total = 0.0
        for i in range(5):
            total += (x * i).sum().item()
        return total

    d = doctor(with_item, device="cpu", budget=1.0)
    f = next(f for f in d.findings if f.code == "implicit_syncs")
    # one .item() is one synchronization: aten::item and the aten::_local_scalar_dense it calls are listed once
    assert f.severity == "info" and f.value == 5 and f.context["ops"] == {"aten::item": 5}
    assert ".item()" in finding_words(f).message and "x5" in finding_words(f).message
    assert "_local_scalar_dense" not in finding_words(f).message


def test_each_syncing_call_is_listed_once_under_the_op_the_code_called():
    """Issue 24: "aten::_local_scalar_dense x1, .item() (aten::item) x1" for one .item(). A syncing op that
    torch runs inside another (item inside is_nonzero and allclose, _local_scalar_dense inside item) is the
    same synchronization."""
    x = torch.randn(64)

    def four_syncs():
        a = x.sum().item()
        b = float(x.sum())
        c = torch.allclose(x, x)
        return (a, b, c) if x[0] > -100 else None  # `if tensor:` is one more

    d = doctor(four_syncs, device="cpu", budget=0.5)
    f = next(f for f in d.findings if f.code == "implicit_syncs")
    assert f.context["ops"] == {"aten::item": 2, "aten::allclose": 1, "aten::is_nonzero": 1}
    assert f.value == 4 == sum(d.evidence["syncing_ops_per_call"].values())
    for lang in ("en", "zh"):
        message = finding_words(f, lang).message
        assert message.count("x1") == 2 and message.count("x2") == 1 and "_local_scalar_dense" not in message


def test_doctor_shows_the_functions_measured_time_as_benchmark_prints_it():
    """Issue 24: the doctor measured the function and never said how long it took. The diagnosis carries the
    measurement it took, and shows its time with the interval as benchmark() prints it (text, HTML, JSON)."""
    from measurefirst.render.report import fragment
    from measurefirst.render.text import format_time, measurement_summary

    world = SimWorld(SimSpec(call_ns=250_000, noise=0.02, seed=4))
    d = doctor(world.function(), timer=world.timer(), budget=0.5, label="f")
    m = d.measurement
    assert m is not None and m.ci is not None and m.label == "f"
    time = format_time(m.median, (m.ci[1] - m.ci[0]) / 2)
    for lang in ("en", "zh"):
        summary = measurement_summary(m, lang)
        assert str(m).splitlines()[0] == measurement_summary(m) and summary.startswith("f")
        lines = diagnosis_lines(d, lang)
        assert sum(summary in line for line in lines) == 1, lines  # shown once, exactly as benchmark shows it
        assert time in summary and time in fragment(d, lang=lang)  # the HTML shows the same time
    back = Diagnosis.from_dict(json.loads(d.to_json()))
    assert back == d and back.measurement is not None and back.measurement.median == m.median
    assert "median_s" not in d.evidence  # one number, in one place


def test_function_that_raises_reports_where_and_what_completed():
    x = torch.ones(8)

    def fails_under_the_profiler():
        if torch.autograd.profiler._is_profiler_enabled:
            raise ValueError("not while profiled")
        return x * 2

    d = doctor(fails_under_the_profiler, device="cpu", budget=0.5)
    assert d.error is not None and "ValueError: not while profiled" in d.error
    assert "test_doctor.py" in d.error
    assert d.checks[:3] == ("cold_start", "graph_breaks", "unsynchronized_timing")
    assert d.skipped["overhead_bound"] == "function_failed"
    assert "  not run: overhead_bound (the function failed)" in diagnosis_lines(d)
    assert d.findings[-1].code == "function_failed" and d.findings[-1].severity == "error"


def test_cli_doctor_strict_and_json(capsys, tmp_path):
    assert main(["doctor", "--simulate", "call=10us,noise=0.001", "x", "--strict"]) == 0
    assert main(["doctor", "--simulate", "call=10us,noise=0.4,seed=2", "x", "--strict"]) == 1
    assert main(["doctor", "--simulate", "call=10us,noise=0.4,seed=2", "x"]) == 0
    capsys.readouterr()
    assert main(["doctor", "-s", "y = torch.ones(4)", "y + 1", "--json", "--budget", "0.5"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["kind"] == "diagnosis" and data["label"] == "y + 1"
    assert all({"code", "severity", "value", "threshold", "context", "text"} <= set(f) for f in data["findings"])
    assert all(set(f["text"]) == {"lang", "title", "message", "why", "fix"} for f in data["findings"])
    assert main(["doctor", "1/0", "--budget", "0.5"]) == 1
    assert "ZeroDivisionError" in capsys.readouterr().out


def test_fp32_matmul_detection_ignores_low_precision_products():
    from measurefirst.tools.doctor import fp32_matmuls

    a = torch.randn(16, 16)
    lin = torch.nn.Linear(16, 16)
    assert fp32_matmuls(lambda: a @ a) == 1
    assert fp32_matmuls(lambda: lin(a)) == 1
    assert fp32_matmuls(lambda: a.bfloat16() @ a.bfloat16()) == 0
    assert fp32_matmuls(lambda: a + a) == 0


@pytest.mark.parametrize("how", ["plain", "turned into another error"])
def test_ctrl_c_keeps_the_checks_done_and_exits_130(monkeypatch, capsys, how):
    """Issue 38: doctor exited 1 on Ctrl-C ("the function failed"), because torch's profiler turned the
    interrupt into an AssertionError of its own on the way out; now the checks done so far are shown, the
    others marked as stopped, exit 130 (the simulated clock stands for a press)."""
    from measurefirst.cli import main
    from measurefirst.measure.engine import Interrupted
    from measurefirst.tools import doctor as doctor_module

    def stop(self):
        if how == "plain":
            raise KeyboardInterrupt
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise AssertionError("Profiler must be initialized before starting trace")

    monkeypatch.setattr(doctor_module._Doctor, "graph_breaks", stop)
    w = SimWorld(SimSpec(seed=3))
    with pytest.raises(Interrupted) as caught:
        doctor(w.function(), timer=w.timer(), device="cpu", budget=0.5)
    d = caught.value.partial
    assert d.checks == ("cold_start",) and d.error is None and d.measurement is not None and not d.complete
    assert d.skipped["graph_breaks"] == "interrupted" and d.skipped["noise"] == "interrupted"
    lines = str(d).splitlines()
    assert "  not run: graph_breaks (stopped by Ctrl-C)" in lines
    assert lines[-1].endswith("in the checks run before Ctrl-C; the others did not run")
    assert main(["doctor", "1 + 1", "--simulate", "call=10us", "--budget", "0.5"]) == 130
    out = capsys.readouterr()
    assert "not run: graph_breaks (stopped by Ctrl-C)" in out.out and "the function failed" not in out.out + out.err
