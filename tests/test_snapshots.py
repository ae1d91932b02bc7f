"""Snapshot tests of every renderer, from hand-built results (nothing is measured): a wording or layout
change shows up as a reviewed diff of a golden file in tests/snapshots/.

``MF_UPDATE_SNAPSHOTS=1 ./test.sh tests/test_snapshots.py`` rewrites the golden files; otherwise any
difference fails with a unified diff. Every text renderer is snapshotted in English (``NAME.txt``) and
Chinese (``NAME_zh.txt``); the HTML fragment (``render.report.fragment``, behind every ``_repr_html_``)
is snapshotted in English and Chinese as text: tags, the stylesheet and the script dropped, one line per block, cells joined by `` | ``.
Tables are printed on a fixed console (100 columns, no colour), so the output does not depend on the
terminal."""

from __future__ import annotations

import difflib
import io
import os
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Callable

import pytest
from rich.console import Console

from measurefirst.compare import Comparison, paired_verdict
from measurefirst.doctor import Diagnosis
from measurefirst.findings import cold_start, launch_bound
from measurefirst.fit import PowerFit
from measurefirst.profiling.capture import KernelRow, OpRow, Profile
from measurefirst.profiling.diff import diff
from measurefirst.regression import change
from measurefirst.render import doctor as doctor_render
from measurefirst.render import profile as profile_render
from measurefirst.render import step as step_render
from measurefirst.render import text
from measurefirst.render.report import fragment
from measurefirst.render.words import change_words
from measurefirst.results import Calibration, Measurement, Stop, Warmup
from measurefirst.roofline import Peaks
from measurefirst.step import StepResult, Throughput
from measurefirst.sweep import SweepPoint, SweepResult

SNAPSHOTS = Path(__file__).parent / "snapshots"
UPDATE = os.environ.get("MF_UPDATE_SNAPSHOTS") == "1"
ENV = {"device_name": "test cpu", "torch_version": "2.13.0", "hostname": "test", "timestamp": "2026-01-01T00:00:00+00:00"}


# ---- hand-built results ---------------------------------------------------------------------------------
def measurement(label: str, per_call_ns: float, *, n: int = 12, number: int = 10, spread: float = 0.01,
                complete: bool = True) -> Measurement:
    """Samples spread evenly over ±``spread`` around ``per_call_ns`` (per call, ``number`` calls a sample)."""
    samples = tuple(per_call_ns * number * (1 + spread * (2 * i / (n - 1) - 1)) for i in range(n))
    return Measurement(
        label=label, device="cpu", timer="wall", samples_ns=samples, numbers=(number,) * n, host_ns=None,
        preempted=None, warmup=Warmup(cold_ns=per_call_ns * 40, calls=5, times_ns=(per_call_ns,) * 5, steady=True,
                                      seconds=0.01, rule="steady"),
        calibration=Calibration(number=number, overhead_ns=50.0, resolution_ns=1.0, per_call_estimate_ns=per_call_ns,
                                overhead_share=50.0 / (per_call_ns * number), reason="overhead share"),
        stop=Stop("precision", True, 0.01, 0.5), options={"budget": 5.0, "precision": 0.01}, env=dict(ENV),
        complete=complete)


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
                     skipped={"sync": "cpu: nothing runs asynchronously"}, evidence={"median_s": 2e-6}, env=dict(ENV))


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


def step_result(label: str, fwd_s: float) -> StepResult:
    phases = {"data": 1e-4, "forward": fwd_s, "backward": 5e-4, "optimizer": 2e-4}
    step = sum(phases.values())
    return StepResult(
        label=label, device="cuda:0", variant="eager", dtype="bf16", steps=5, warmup_steps=2, phase_s=phases,
        step_s=step, step_samples_s=(step,) * 5, warmup_step_s=(step * 3, step), compile_s=None, recompiles=0,
        memory={p: {"peak_allocated": (i + 1) << 20, "allocated_delta": 0} for i, p in enumerate(phases)},
        peak_phase="optimizer", alloc_retries=0, ooms=0,
        throughput=Throughput(micro_batch=8, seq_len=128, grad_accum=1, world_size=1, samples_per_s_device=8 / step,
                              samples_per_s_global=8 / step, tokens_per_s_device=8 * 128 / step,
                              tokens_per_s_global=8 * 128 / step),
        flops_per_step=3e10, flops_source="given", mfu_table=3e10 / step / 989.4e12, mfu_table_peak="H100 SXM bf16",
        mfu_measured=None, mfu_measured_peak=None, findings=(), env=dict(ENV))


def regression_changes() -> list[tuple[str, Any]]:
    base = measurement("matmul", 100_000.0)
    return [("slower", change(base, measurement("matmul", 120_000.0))),
            ("faster", change(base, measurement("matmul", 80_000.0))),
            ("same", change(base, measurement("matmul", 100_100.0)))]


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
    "step": lambda: [step_result("eager", 3e-4), step_result("fused", 1.8e-4)],
}
for _kind, _make in HTML_KINDS.items():
    for _lang in ("en", "zh"):
        CASES[f"html_{_kind}_{_lang}"] = (lambda make=_make, lang=_lang: html_text(fragment(make(), lang=lang)))


def test_the_sweep_has_a_fit_and_the_comparison_verdicts() -> None:
    """The hand-built results are what the snapshots claim to show."""
    fit = sweep_result().fit("matmul")
    assert isinstance(fit, PowerFit) and fit.k == pytest.approx(3.0, abs=0.01)
    assert [v.verdict for v in comparison().verdicts] == ["baseline", "faster", "no difference"]


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


def test_every_word_has_both_languages_with_the_same_placeholders() -> None:
    import string

    from measurefirst.render.words import WORDS

    def fields(template: str) -> list[str]:
        return sorted({name for _, name, _, _ in string.Formatter().parse(template) if name})

    for key, (en, zh) in WORDS.items():
        assert en and zh, f"{key}: both languages needed"
        assert fields(en) == fields(zh), f"{key}: {fields(en)} in English, {fields(zh)} in Chinese"
        assert zh == en or not (zh.isascii() and any(c.isalpha() for c in zh)), f"{key}: Chinese left in English: {zh!r}"
