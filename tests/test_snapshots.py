"""Snapshot tests of every renderer, from hand-built results (nothing is measured): a wording or layout
change shows up as a reviewed diff of a golden file in tests/snapshots/.

``MF_UPDATE_SNAPSHOTS=1 ./test.sh tests/test_snapshots.py`` rewrites the golden files; otherwise any
difference fails with a unified diff. Every text renderer is snapshotted in English (``NAME.txt``) and
Chinese (``NAME_zh.txt``); the HTML fragment (``render.report.fragment``, behind every ``_repr_html_``)
is snapshotted in English and Chinese as text: tags, the stylesheet and the script dropped, one line per block, cells joined by `` | ``.
Tables are printed on a fixed console (100 columns, no colour), so the output does not depend on the
terminal."""

from __future__ import annotations

import contextlib
import difflib
import io
import os
import re
from html.parser import HTMLParser
from pathlib import Path
from dataclasses import replace
from types import SimpleNamespace
from typing import Any, Callable

import pytest
from rich.console import Console

from measurefirst.tools.compare import Comparison, paired_verdict
from measurefirst.tools.doctor import Diagnosis
from measurefirst.results.findings import cold_start, launch_bound
from measurefirst.results.fitting import PowerFit
from measurefirst.results.history import History, SavedRun
from measurefirst.profiling.capture import KernelRow, OpRow, Profile
from measurefirst.profiling.diff import diff
from measurefirst.distributed import CollectivePoint, CollectivesResult, GroupSummary, RankResult
from measurefirst.pytest.plugin import ComparisonRecord, ComparisonResult
from measurefirst.pytest.run import Record
from measurefirst.results.pytest_run import PytestBenchmark, PytestComparison, PytestRun
from measurefirst.results.regression_checks import Regression, change
from measurefirst.pytest import report as pytest_words
from measurefirst.render.group_step import group_step_lines
from measurefirst.cli import guard
from measurefirst.measure.engine import BenchmarkError, Interrupted
from measurefirst.render import distributed as distributed_render
from measurefirst.render import doctor as doctor_render
from measurefirst.render import profile as profile_render
from measurefirst.render import step as step_render
from measurefirst.render import tables
from measurefirst.render import text
from measurefirst.render.report import fragment
from measurefirst.render.words import change_words
from measurefirst.render.selfcheck import selfcheck_text
from measurefirst.results.kinds import Calibration, Measurement, RunToRun, Stop, Warmup
from measurefirst.tools.roofline import Peaks
from measurefirst.tools.selfcheck import Machine, Row, SelfCheck, Trap
from measurefirst.tools.step import RangedStepResult, StepResult, Throughput
from measurefirst.tools.sweep import SweepPoint, SweepResult

SNAPSHOTS = Path(__file__).parent / "snapshots"
UPDATE = os.environ.get("MF_UPDATE_SNAPSHOTS") == "1"
ENV = {"device_name": "test cpu", "torch_version": "2.13.0", "hostname": "test", "timestamp": "2026-01-01T00:00:00+00:00"}


# ---- hand-built results ---------------------------------------------------------------------------------
def measurement(label: str, per_call_ns: float, *, n: int = 12, number: int = 10, spread: float = 0.01,
                complete: bool = True, run_to_run: RunToRun | None = None) -> Measurement:
    """Samples spread evenly over ±``spread`` around ``per_call_ns`` (per call, ``number`` calls a sample)."""
    samples = tuple(per_call_ns * number * (1 + spread * (2 * i / (n - 1) - 1)) for i in range(n))
    return Measurement(
        label=label, device="cpu", timer="wall", samples_ns=samples, numbers=(number,) * n, host_ns=None,
        preempted=None, warmup=Warmup(cold_ns=per_call_ns * 40, calls=5, times_ns=(per_call_ns,) * 5, steady=True,
                                      seconds=0.01, rule="steady"),
        calibration=Calibration(number=number, overhead_ns=50.0, resolution_ns=1.0, per_call_estimate_ns=per_call_ns,
                                overhead_share=50.0 / (per_call_ns * number), reason="overhead share"),
        stop=Stop("precision", True, 0.01, 0.5), options={"budget": 5.0, "precision": 0.01}, env=dict(ENV),
        complete=complete, run_to_run=run_to_run)


#: a spread measured by 5 repetitions in the process, and one where the machine's noise profile set the floor
REPEATS_SPREAD = RunToRun(cv=0.02, source="repeats", n=5, factor=3.0, medians_ns=(1.0, 1.02, 0.98, 1.01, 0.99))
PROFILE_FLOOR = RunToRun(cv=0.001, source="repeats", n=5, factor=3.0, floor=0.004, floor_source="profile")


def comparison() -> Comparison:
    manual, fused, same = measurement("manual", 100_000.0), measurement("fused", 31_000.0), measurement("same", 100_200.0)
    base = [100_000.0 * (1 + 0.002 * ((i * 7) % 5 - 2)) for i in range(40)]
    blocks = (tuple(base), tuple(b * 0.31 * (1 + 0.001 * ((i * 3) % 4 - 1.5)) for i, b in enumerate(base)),
              tuple(b * (1 + 0.004 * ((i * 5) % 7 - 3)) for i, b in enumerate(base)))
    verdicts = tuple(paired_verdict(label, "manual", list(b), list(blocks[0])) for label, b in
                     zip(("fused", "same"), blocks[1:]))
    base_verdict = paired_verdict("manual", "manual", list(blocks[0]), list(blocks[0]))
    return Comparison(labels=("manual", "fused", "same"), baseline="manual", measurements=(manual, fused, same),
                      block_values_ns=blocks, orders=tuple((0, 1, 2) for _ in range(40)),
                      verdicts=(base_verdict.__class__("manual", "manual", 1.0, (1.0, 1.0), "baseline", 0.0, 40),
                                *verdicts),
                      stop=Stop("precision", True, 0.01, 1.0), options={"order": "abba", "budget": 5.0})


PEAKS = Peaks("cpu", "test cpu", "float32", flops_per_s=100e9, bytes_per_s=10e9, matmul_size=1024,
              copy_bytes=64 << 20, threads=2, host="test")


def sweep_result() -> SweepResult:
    """t(n) = 20 µs + 0.04 ns·n³ at six sizes (a fit), and one size that failed."""
    sizes = (32, 64, 128, 256, 512, 1024)
    points = tuple(SweepPoint("matmul", n, measurement(f"matmul n={n}", 20_000.0 + 0.04 * n**3, number=1),
                              flops=2.0 * n**3, bytes=12.0 * n * n) for n in sizes)
    failed = SweepPoint("matmul", 2048, None, error="CUDA out of memory. Tried to allocate 64.00 GiB",
                        flops=2.0 * 2048**3, bytes=12.0 * 2048**2)
    return SweepResult(points=(*points, failed), labels=("matmul",), sizes=(*sizes, 2048), reference=256,
                       device="cpu", peaks=PEAKS, options={"budget": 2.0})


def diagnosis() -> Diagnosis:
    cold, bound = cold_start(80_000.0, 2e-6, 3, audit=True), launch_bound(1.86e-6, 2e-6)
    assert cold is not None and bound is not None
    findings = (cold, bound)
    return Diagnosis(label="tiny_op", device="cpu", findings=findings, checks=("cold_start", "launch_bound", "sync"),
                     skipped={"sync": "cpu: nothing runs asynchronously", "memory": "simulated",
                              "precision": "function_failed"}, evidence={"unsynced_ratio": 1.0}, env=dict(ENV),
                     measurement=measurement("tiny_op", 2_000.0))


def _op(name: str, calls: float, self_us: float, *, work: bool = True, shapes: str = "") -> OpRow:
    return OpRow(name=name, calls=calls, self_s=self_us * 1e-6, total_s=self_us * 1e-6, device_s=0.0, flops=0.0,
                 bytes_est=calls * 1 << 20, cpu_mem_bytes=calls * (1 << 20), device_mem_bytes=0.0, input_shapes=shapes,
                 work=work, top_level=True)


def profiles() -> tuple[Profile, Profile]:
    manual_ops = (_op("aten::mul", 6, 30.0), _op("aten::add", 2, 9.0), _op("aten::tanh", 1, 6.0),
                  _op("aten::to", 2, 1.0, work=False))
    manual = Profile(label="manual", device="cpu", steps=2, ops=manual_ops, work=manual_ops[:3], top=manual_ops,
                     kernels=(), step_s=60e-6, env=dict(ENV))
    fused_ops = (_op("aten::gelu", 1, 12.0),)
    fused = Profile(label="fused", device="cpu", steps=2, ops=fused_ops, work=fused_ops, top=fused_ops, kernels=(),
                    step_s=15e-6, env=dict(ENV))
    return manual, fused


def gpu_profile() -> Profile:
    kernels = (KernelRow("ampere_sgemm_128x64_tn", "aten::mm", 2, 40e-6, 20e-6,
                         {"library": "cuBLAS", "op": "gemm", "arch": "sm80", "dtype": "f32", "tile": "128x64",
                          "layout": "tn", "tensor_cores": False, "fused_ops": []}),)
    ops = (_op("aten::mm", 2, 10.0),)
    return Profile(label="mm", device="cuda:0", steps=3, ops=ops, work=ops, top=ops, kernels=kernels, step_s=50e-6,
                   peak_device_bytes=8 << 20, env=dict(ENV))


def step_result(label: str, fwd_s: float, **changes: Any) -> StepResult:
    phases = {"data": 1e-4, "forward": fwd_s, "backward": 5e-4, "optimizer": 2e-4}
    step = sum(phases.values())
    r = StepResult(
        label=label, device="cuda:0", variant="eager", dtype="bf16", steps=5, warmup_steps=2, phase_s=phases,
        step_s=step, step_samples_s=(step,) * 5, warmup_step_s=(step * 3, step), compile_s=None, recompiles=0,
        memory={p: {"peak_allocated": (i + 1) << 20, "allocated_delta": 0} for i, p in enumerate(phases)},
        peak_phase="optimizer", alloc_retries=0, ooms=0,
        throughput=Throughput(micro_batch=8, seq_len=128, grad_accum=1, world_size=1, samples_per_s_device=8 / step,
                              samples_per_s_global=8 / step, tokens_per_s_device=8 * 128 / step,
                              tokens_per_s_global=8 * 128 / step),
        flops_per_step=3e10, flops_source="given", mfu_table=3e10 / step / 989.4e12, mfu_table_peak="H100 SXM bf16",
        mfu_measured=None, mfu_measured_peak=None, findings=(), env=dict(ENV))
    return replace(r, **changes)


def step_codes() -> list[StepResult]:
    """Steps whose FLOPs source, throughput note and datasheet peak are codes the renderer has words for,
    and one with a version 1 file's free text (shown as it is)."""
    no_seq = Throughput(micro_batch=8, seq_len=None, grad_accum=1, world_size=1, samples_per_s_device=8e3,
                        samples_per_s_global=8e3, tokens_per_s_device=None, tokens_per_s_global=None, note="no_seq_len")
    return [step_result("cpu", 3e-4, device="cpu", flops_source="6n_needs_tokens", flops_per_step=None, mfu_table=None,
                        mfu_table_peak="none_cpu", throughput=no_seq),
            step_result("gpu", 3e-4, flops_source="counted", mfu_table=None, mfu_table_peak="not_in_table"),
            step_result("old", 3e-4, flops_source="an older text", mfu_table=None, mfu_table_peak="an older peak",
                        throughput=replace(no_seq, note="an older note"))]


def regression_changes() -> list[tuple[str, Any]]:
    base = measurement("matmul", 100_000.0)
    return [("slower", change(base, measurement("matmul", 120_000.0))),
            ("faster", change(base, measurement("matmul", 80_000.0))),
            ("same", change(base, measurement("matmul", 100_100.0)))]


def regression_check() -> Regression:
    """A gated check: matmul 20% slower (a regression), add unchanged, one label in the base only."""
    return Regression("a.json", "@matmul", (change(measurement("matmul", 100_000.0), measurement("matmul", 120_000.0),
                                                   threshold=0.05),
                                            change(measurement("add", 12_000.0), measurement("add", 12_010.0),
                                                   threshold=0.05)), ("old_only",), gate=True)


def selfcheck_result() -> SelfCheck:
    """One known duration: the adaptive estimate passes, the fixed loop fails, a reference is shown, one is
    not installed; one trap caught, one that does not apply on the CPU."""
    rows = (Row(2e-5, "adaptive", 2.0e-5, "self", 2.01e-5, 0.005, 0.02, 0.001, "pass"),
            Row(2e-5, "fixed", 2.0e-5, "self", 2.1e-5, 0.05, 0.02, 0.002, "fail"),
            Row(2e-5, "timeit", 2.0e-5, "self", 1.98e-5, -0.01, None, None, "info"),
            Row(2e-5, "do_bench", None, "self", None, None, None, None, "skip", "not_installed"))
    traps = (Trap("cold_start", "pass", 40.0, 10.0), Trap("unsynchronized_timer", "skip", note="not_applicable"))
    machine = Machine("wall", timer_resolution_ns=1.0, timer_resolution_measured_ns=30.0, clock_read_ns=25.0,
                      timer_overhead_ns=60.0, cpu_governor="performance", cpu_mhz_before=3000.0, cpu_mhz_after=2990.0,
                      throttle_events=0, other_load_cores=0.1, steal_cores=0.0, cores=2,
                      notes=("nvidia_smi_missing", "peaks_failed: RuntimeError: no BLAS", "a_newer_code"))
    return SelfCheck("cpu", True, rows, traps, machine, env=dict(ENV), seconds=4.2)


def ranged_step() -> RangedStepResult:
    return RangedStepResult("train_step", "cpu", 3, 1, {"forward": 3e-4, "backward": 5e-4, "optimizer": 1e-4}, 1e-3,
                            1e-4, (1e-3, 0.98e-3, 1.02e-3), (4e-3,))


def collectives() -> CollectivesResult:
    return CollectivesResult(2, "gloo", "cpu", (
        CollectivePoint("all_reduce", 1024, 256, "float32", 1e-4, (1e-4, 0.9e-4), 3),
        CollectivePoint("all_reduce", 4096, 1024, "float32", float("nan"), (), 0, "timed out")), env=dict(ENV))


def rank_group() -> RankResult:
    ms = (measurement("allreduce", 100_000.0), measurement("allreduce", 140_000.0))
    return RankResult(1, ms[1], ms, GroupSummary(tuple(m.median for m in ms)))


def group_step() -> Any:
    """Two ranks on two nodes under DDP (report_kinds.group_step): rank 1's backward the straggler."""
    import report_kinds

    return report_kinds.group_step()


def pytest_records() -> tuple[list[Record], ComparisonRecord]:
    """Three measuring tests of one file (one slower than its baseline beyond the 5% gate) and one comparison."""
    c = comparison()
    slow = Record("tests/test_ops.py::test_matmul", "tests/test_ops.py::test_matmul", "tests/test_ops.py", None,
                  measurement("matmul", 250_000.0), "measure",
                  change=change(measurement("matmul", 200_000.0), measurement("matmul", 250_000.0), threshold=0.05),
                  regression=True)
    same = Record("tests/test_ops.py::test_add[1024]", "tests/test_ops.py::test_add[1024]", "tests/test_ops.py", None,
                  measurement("add", 12_000.0), "measure", param="1024", params={"n": 1024}, group="small",
                  change=change(measurement("add", 12_000.0), measurement("add", 12_010.0), threshold=0.05))
    cand = [Record(f"tests/test_ops.py::test_gelu::{m.label}", "tests/test_ops.py::test_gelu", "tests/test_ops.py",
                   m.label, m, "compare", comparison=0) for m in c.measurements]
    return [slow, same, *cand], ComparisonRecord("tests/test_ops.py::test_gelu", "tests/test_ops.py::test_gelu",
                                                 ComparisonResult.of(c))


def pytest_run() -> PytestRun:
    """The same run as ``--mf-json`` writes it."""
    records, cr = pytest_records()
    return PytestRun(tuple(PytestBenchmark(r.name, r.display, r.nodeid, r.measurement, r.label, r.group, r.mode, r.param,
                                           r.params, r.extra_info, r.comparison, r.change, r.regression)
                           for r in records), (PytestComparison(cr.name, cr.nodeid, comparison()),),
                     baseline="@base", fail_if_slower=0.05, environment=dict(ENV))


def pytest_summary() -> str:
    """The end-of-run summary of a gated run against @base (tables on the fixed console), the header and a
    failed assertion."""
    records, cr = pytest_records()
    session = SimpleNamespace(records=records, baseline=SimpleNamespace(label="@base"), disabled_calls=0,
                              measuring=True, worker=None, simulation=None, comparisons=[cr], gate=True,
                              threshold=0.05, saved=(4, "new", Path("results.db")), written=[Path("out/run.json")],
                              errors=[], against=None, noise_status=lambda: None)
    head, tables, lines = pytest_words.session_summary(session, width=100)  # type: ignore[arg-type]
    header = pytest_words.header_lines(device="cpu", budget=1.0, simulated=True, compat=True, disabled_plugins=("benchmark",),
                                       ignored=(("--benchmark-max-time", "--mf-budget"),), baseline="@base",
                                       threshold=0.05, save="new", disabled=False, worker=None)
    c = cr.comparison
    failure = pytest_words.assertion_failure("faster", "same", "manual", 1.2, c.verdict("same"), c)
    return "\n".join([*header, *head]) + "\n" + pytest_words.render_tables(tables, width=100, color=False) \
        + "\n".join([*lines, pytest_words.regression_failure(records[:1], "@base", 0.05), failure]) + "\n"


def history() -> History:
    """Three saved runs of one name; the third steps up."""
    runs = tuple(SavedRun(i + 1, "matmul", f"2026-01-0{i + 1} 00:00:00", None, measurement("matmul", ns))
                 for i, ns in enumerate((100_000.0, 100_100.0, 130_000.0)))
    return History("matmul", runs)


def guard_lines(lang: str) -> str:
    """What the command line says on stderr when the code under test fails, exits or is interrupted."""

    def raises(exc: BaseException) -> Any:
        def call() -> Any:
            raise exc
        return call

    unbound = BenchmarkError("benchmark: 'x += 1' raised UnboundLocalError: x", label="x += 1", phase="cold call",
                             index=0)
    unbound.__cause__ = UnboundLocalError("x")
    cases = [(raises(unbound), ("benchmark", "x += 1"), False), (raises(Interrupted(None)), ("sweep", "mm"), True),
             (raises(Interrupted(None)), ("candidate", ""), False), (raises(KeyboardInterrupt()), ("step", ""), True),
             (raises(KeyboardInterrupt()), ("step", ""), False), (raises(SystemExit(3)), ("profiled", ""), False)]
    out = io.StringIO()
    with contextlib.redirect_stderr(out):
        codes = [guard.run(call, who, simulated=simulated, lang=lang)[1] for call, who, simulated in cases]
    assert codes == [1, 130, 1, 130, 1, 1]
    return out.getvalue()


# ---- rendering ------------------------------------------------------------------------------------------
def console_text(*renderables: Any) -> str:
    out = io.StringIO()
    console = Console(file=out, width=100, color_system=None, force_terminal=False, legacy_windows=False)
    for r in renderables:
        console.print(r)
    return out.getvalue()


class _Text(HTMLParser):
    BLOCKS = {"div", "section", "p", "li", "tr", "table", "ul", "ol", "h1", "h2", "h3", "h4", "figure", "figcaption",
              "details", "summary", "header", "footer", "svg", "dl", "dt", "dd", "br", "caption", "g", "text", "title"}
    SKIP = {"style", "script"}

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = [""]
        self.skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.SKIP:
            self.skipping += 1
        elif tag in self.BLOCKS:
            self.lines.append("")
        elif tag in ("td", "th") and self.lines[-1].strip():
            self.lines[-1] += " | "

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP:
            self.skipping -= 1
        elif tag in self.BLOCKS:
            self.lines.append("")

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.lines[-1] += data


def html_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    lines = [re.sub(r"\s+", " ", line).strip() for line in parser.lines]
    return "\n".join(line for line in lines if line) + "\n"


def _lines(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


#: Every text renderer with words, as a function of the language: ``NAME.txt`` holds the English,
#: ``NAME_zh.txt`` the Chinese.
TEXT_CASES: dict[str, Callable[[str], str]] = {
    "measurement_line": lambda lang: _lines([text.measurement_line(measurement("matmul", 250_000.0), lang),
                                             text.measurement_line(measurement("add", 12_000.0, complete=False), lang)]),
    "measurement_line_spread": lambda lang: _lines([
        text.measurement_line(measurement("matmul", 250_000.0, run_to_run=REPEATS_SPREAD), lang),
        text.measurement_line(measurement("busy", 20_000.0, run_to_run=PROFILE_FLOOR), lang)]),
    "measurement_table": lambda lang: console_text(text.measurement_table(
        [measurement("matmul", 250_000.0), measurement("add", 12_000.0)], title="two", lang=lang)),
    "comparison_lines": lambda lang: _lines(text.comparison_lines(comparison(), lang)),
    "comparison_table": lambda lang: console_text(text.comparison_table(comparison(), title="gelu", lang=lang)),
    "sweep_lines": lambda lang: _lines(text.sweep_lines(sweep_result(), lang=lang)),
    "sweep_table": lambda lang: console_text(text.sweep_table(sweep_result(), lang=lang)),
    "grid_table": lambda lang: console_text(text.grid_table(
        {(impl, str(n)): measurement(f"{impl} {n}", per * n) for impl, per in (("naive", 3.0), ("blas", 1.0))
         for n in (1000, 4000)},
        title="grid", row_name="implementation", lang=lang)),
    "diagnosis_lines": lambda lang: _lines(doctor_render.diagnosis_lines(diagnosis(), lang)),
    "profile_lines": lambda lang: _lines(profile_render.profile_lines(profiles()[0], lang=lang)),
    "op_table": lambda lang: console_text(profile_render.op_table(profiles()[0], view="all", lang=lang)),
    "kernel_table": lambda lang: console_text(profile_render.kernel_table(gpu_profile(), lang=lang)),
    "diff_lines": lambda lang: _lines(profile_render.diff_lines(diff(dict(zip(("manual", "fused"), profiles()))), lang)),
    "diff_table": lambda lang: console_text(profile_render.diff_table(diff(dict(zip(("manual", "fused"), profiles()))),
                                                                      lang)),
    "step_lines": lambda lang: _lines(step_render.step_lines([step_result("eager", 3e-4), step_result("fused", 1.8e-4)],
                                                             lang)),
    "step_table": lambda lang: console_text(step_render.step_table([step_result("eager", 3e-4),
                                                                    step_result("fused", 1.8e-4)], lang=lang)),
    "step_codes": lambda lang: _lines(step_render.step_lines(step_codes(), lang)),
    "ranged_step_line": lambda lang: step_render.ranged_step_line(ranged_step(), lang) + "\n",
    "collectives_lines": lambda lang: _lines(distributed_render.collectives_lines(collectives(), lang)),
    "group_lines": lambda lang: _lines(distributed_render.group_lines(rank_group().summary, lang)),
    "group_step_lines": lambda lang: _lines(group_step_lines(group_step(), lang)),
    "guard_lines": guard_lines,
    "history_lines": lambda lang: _lines([*tables.history_lines(history(), lang),
                                          tables.saved_run_line(history().runs[0], lang)]),
    "regression": lambda lang: "".join(f"{name}: {text.verdict_word(c, True, lang)[0]} (no gate: "
                                       f"{text.verdict_word(c, False, lang)[0]}): {change_words(c, lang)}\n"
                                       for name, c in regression_changes()),
}
CASES: dict[str, Callable[[], str]] = {}
for _name, _render in TEXT_CASES.items():
    for _lang in ("en", "zh"):
        CASES[_name if _lang == "en" else f"{_name}_zh"] = (lambda render=_render, lang=_lang: render(lang))
HTML_KINDS: dict[str, Callable[[], Any]] = {
    "measurement": lambda: measurement("matmul", 250_000.0), "comparison": comparison, "sweep": sweep_result,
    "diagnosis": diagnosis, "profile": lambda: profiles()[0],
    "profile_diff": lambda: diff(dict(zip(("manual", "fused"), profiles()))),
    "step": lambda: [step_result("eager", 3e-4), step_result("fused", 1.8e-4)], "step_codes": step_codes,
    "regression": regression_check, "selfcheck": selfcheck_result, "ranged_step": ranged_step,
    "collectives": collectives, "rank_group": rank_group, "group_step": group_step,
    "pytest_run": pytest_run,
}
for _lang in ("en", "zh"):
    CASES[f"selfcheck_{_lang}"] = lambda lang=_lang: selfcheck_text(selfcheck_result(), lang, width=100) + "\n"
CASES["pytest_summary"] = pytest_summary
for _kind, _make in HTML_KINDS.items():
    for _lang in ("en", "zh"):
        CASES[f"html_{_kind}_{_lang}"] = (lambda make=_make, lang=_lang: html_text(fragment(make(), lang=lang)))


def test_the_sweep_has_a_fit_and_the_comparison_verdicts() -> None:
    """The hand-built results are what the snapshots claim to show."""
    fit = sweep_result().fit("matmul")
    assert isinstance(fit, PowerFit) and fit.k == pytest.approx(3.0, abs=0.01)
    assert [v.verdict for v in comparison().verdicts] == ["baseline", "faster", "no difference"]


def test_a_version_1_step_result_loads_its_words_as_codes() -> None:
    """Version 1 wrote where the FLOPs came from, the throughput's note and a missing datasheet peak in English
    words: the known ones load as codes (shown in either language), any other text is shown as it is."""
    from measurefirst.tools.step import FLOPS_SOURCES

    cpu, gpu, old = step_codes()
    v1 = [{**r.to_dict(), "schema_version": 1} for r in (cpu, gpu, old)]
    v1[0].update(flops_source="6N needs micro_batch and seq_len", mfu_table_peak="CPU: no datasheet peak",
                 throughput={**v1[0]["throughput"],
                             "note": "tokens/s needs seq_len (the tokens per sample); samples/s shown instead"})
    v1[1].update(flops_source="FlopCounterMode (forward + backward)",
                 mfu_table_peak="NVIDIA Z9: not in the dense-peak table (no guess)")
    loaded = [StepResult.from_dict(d) for d in v1]
    assert loaded == [cpu, gpu, old] and all(r.to_dict()["schema_version"] == 2 for r in loaded)
    assert step_render.step_lines(loaded, "zh") == step_render.step_lines(step_codes(), "zh")
    assert [step_render.flops_source_words(code, "zh") for code in FLOPS_SOURCES] == [
        "未提供", "用户给定", "6·N·tokens（近似）", "6N 需要 micro_batch 和 seq_len", "没有见到批次",
        "FlopCounterMode（前向 + 反向）"]
    assert [StepResult.from_dict({**step_result("x", 3e-4, flops_source=words).to_dict(),
                                  "schema_version": 1}).flops_source
            for words in ("not given", "given", "6·N·tokens (approximation)", "no batch seen")] == [
        "not_given", "given", "6n", "no_batch"]


def test_the_views_of_ranged_steps_rank_groups_and_collectives_speak_the_language() -> None:
    from measurefirst.render.views import Options, view

    assert view([ranged_step()], Options(lang="zh")) == [step_render.ranged_step_line(ranged_step(), "zh")]
    from measurefirst.render.ranks import rank_group_lines

    assert view([rank_group()], Options(lang="zh")) == rank_group_lines(rank_group(), "zh")
    assert view([collectives()], Options(lang="zh")) == distributed_render.collectives_lines(collectives(), "zh")
    assert str(ranged_step()) == step_render.ranged_step_line(ranged_step())
    assert str(rank_group().summary) == "\n".join(distributed_render.group_lines(rank_group().summary))
    assert view([group_step()], Options(lang="zh")) == group_step_lines(group_step(), "zh")
    assert str(group_step()) == "\n".join(group_step_lines(group_step()))


@pytest.mark.parametrize("name", sorted(CASES))
def test_snapshot(name: str) -> None:
    got = CASES[name]()
    path = SNAPSHOTS / f"{name}.txt"
    if UPDATE:
        SNAPSHOTS.mkdir(exist_ok=True)
        path.write_text(got, encoding="utf-8")
        return
    assert path.exists(), f"no golden file {path.name}: run MF_UPDATE_SNAPSHOTS=1 ./test.sh tests/test_snapshots.py"
    want = path.read_text(encoding="utf-8")
    if got != want:
        delta = "".join(difflib.unified_diff(want.splitlines(keepends=True), got.splitlines(keepends=True),
                                             f"{path.name} (golden)", f"{path.name} (now)"))
        pytest.fail(f"{name} changed (MF_UPDATE_SNAPSHOTS=1 rewrites the golden file after review):\n{delta}",
                    pytrace=False)


def test_every_golden_file_has_a_case() -> None:
    # findings_{en,zh}.txt belong to tests/test_findings_catalogue.py (every catalogue code, both languages)
    assert sorted(p.stem for p in SNAPSHOTS.glob("*.txt") if not p.stem.startswith("findings_")) == sorted(CASES)

