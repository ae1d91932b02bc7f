"""The findings catalogue: each code once, data only, with words in English and Chinese, and exact
snapshots of those words (MF_UPDATE_SNAPSHOTS=1 rewrites tests/snapshots/findings_{en,zh}.txt)."""

import ast
import dataclasses
import math
import os
from pathlib import Path

import pytest

from measurefirst.results import findings
from measurefirst.results.findings import CATALOGUE, SEVERITIES, Finding, found
from measurefirst.render.findings import FINDING_WORDS, finding_line, finding_text, finding_words, with_words
from measurefirst.render.words import LANGS

SRC = Path(findings.__file__).parent.parent
SNAPSHOTS = Path(__file__).parent / "snapshots"


def _produced_codes():
    """(code, file:line) of every finding built in src: ``found("code", ...)``."""
    out = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "found"
                    and node.args and isinstance(node.args[0], ast.Constant)):
                out.append((node.args[0].value, f"{path.relative_to(SRC)}:{node.lineno}"))
    return out


def test_every_code_built_in_src_is_in_the_catalogue_and_every_catalogue_code_is_built():
    produced = _produced_codes()
    assert [(code, where) for code, where in produced if code not in CATALOGUE] == []
    assert set(CATALOGUE) == {code for code, _ in produced}
    # findings are built through found() (the catalogue's severity and threshold), never by hand
    assert list(_finding_calls_outside_findings_py()) == []
    # each code is built where its catalogue entry says
    sources = {"results/findings.py": ("measurement", "count", "fit"), "results/kinds.py": ("measurement", "count"),
               "results/run_to_run.py": ("measurement",),
               "tools/doctor.py": ("doctor",),
               "tools/step.py": ("step",), "tools/step_peaks.py": ("step",), "results/group_step.py": ("step",), "results/selfcheck.py": ("selfcheck",),
               "results/sweep.py": ("sweep",),
               "results/ranked.py": ("distributed",), "results/group_checks.py": ("distributed",)}
    assert [(code, where) for code, where in produced
            if CATALOGUE[code].source not in sources[where.split(":")[0]]] == []


def _finding_calls_outside_findings_py():
    for path in sorted(SRC.rglob("*.py")):
        if path.name == "findings.py" and path.parent == SRC / "results":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Finding":
                yield f"{path.relative_to(SRC)}:{node.lineno}"


def test_a_finding_is_data_only():
    assert [f.name for f in dataclasses.fields(Finding)] == ["code", "value", "threshold", "severity", "context"]


def _entry(code: str, lang: str) -> dict[str, str]:
    """A code's words in ``lang``, by part (``title``, ``message.cpu``...)."""
    return {k[len(code) + 1:]: v[LANGS.index(lang)] for k, v in FINDING_WORDS.items() if k.startswith(code + ".")}


@pytest.mark.parametrize("code", sorted(CATALOGUE))
def test_every_code_has_words_in_english_and_chinese(code):
    spec = CATALOGUE[code]
    assert spec.severity in SEVERITIES and spec.unit in ("fraction", "ratio", "samples", "calls", "count", "seconds",
                                                         "cores", "threads", "")
    for lang in LANGS:
        entry = _entry(code, lang)
        assert entry["title"] and any(k.split(".")[0] == "message" for k in entry)
        assert any(k.split(".")[0] == "why" and v for k, v in entry.items())
        if spec.severity != "info":
            assert any(k.split(".")[0] == "fix" and v for k, v in entry.items())


def test_named_thresholds_are_the_constants_they_name():
    for code, spec in CATALOGUE.items():
        if spec.threshold_name.isidentifier() and spec.threshold_name.isupper():
            assert getattr(findings, spec.threshold_name) == spec.threshold, code
    assert CATALOGUE["speed_modes"].threshold == findings.stats.MODE_MIN_RATIO


def test_found_takes_the_catalogue_threshold_and_severity_and_refuses_unknown_codes():
    assert found("launch_bound", 0.9) == Finding("launch_bound", 0.9, 0.8, "warning", {})
    assert found("few_samples", 4, threshold=10).threshold == 10.0
    with pytest.raises(KeyError):
        found("cold_call", 12.0)


def test_old_files_with_words_load_the_words_are_kept_only_for_unknown_codes():
    old = {"code": "unstable", "message": "old words", "value": 0.5, "threshold": 0.1, "fix": "old fix",
           "severity": "warning", "explanation": "old why"}
    f = Finding.from_dict(old)
    assert f == Finding("unstable", 0.5, 0.1, "warning", {})
    assert finding_words(f).message == "the samples' IQR is 50.0% of the median"
    gone = Finding.from_dict({"code": "retired_code", "message": "what it said", "fix": "what to do"})
    assert gone.context == {"message": "what it said", "fix": "what to do"}
    w = finding_words(gone, "zh")
    assert (w.title, w.message, w.fix) == ("retired_code", "what it said", "what to do")
    with pytest.raises(ValueError, match="severity"):
        Finding.from_dict({"code": "unstable", "severity": "fatal"})
    with pytest.raises(ValueError, match="code"):
        Finding.from_dict({"message": "no code"})


def test_json_with_text_keeps_the_data_and_adds_the_words():
    data = {"kind": "diagnosis", "findings": (found("threads", 8, threshold=2).to_dict(),),
            "nested": [{"findings": [found("unstable", 0.5).to_dict()]}]}
    out = with_words(data, "zh")
    assert out["findings"][0]["value"] == 8.0 and out["findings"][0]["text"] == finding_text(found("threads", 8, threshold=2), "zh")
    assert out["findings"][0]["text"]["message"] == "torch 在 2 个可用核上使用 8 个线程"
    assert out["nested"][0]["findings"][0]["text"]["title"] == "样本不稳定"


def test_missing_or_non_finite_numbers_read_n_a():
    assert finding_words(Finding("unstable", math.nan, 0.1)).message == "the samples' IQR is n/a of the median"
    assert finding_words(found("drift", 0.1)).message == "per-call time moved from n/a (first half) to n/a (second half)"


# ---- snapshots -----------------------------------------------------------------------------------
#: One hand-built finding per code and variant: what each one reads, exactly.
EXAMPLES = [
    found("incomplete", 37),
    found("noise_floor", 0.0234, threshold=0.01, seconds=1.27),
    found("precision_not_met", 0.0156, threshold=0.01),
    found("precision_not_met", None, threshold=0.01),
    found("few_samples", 4, threshold=10),
    found("unstable", 0.234),
    found("drift", 0.081, first_ns=1234.5, second_ns=1334.5),
    found("speed_modes", 2.2, fast_ns=2000.0, slow_ns=4400.0, fast_fraction=0.55, slow_fraction=0.45, stretches=True),
    found("speed_modes", 1.5, fast_ns=2000.0, slow_ns=3000.0, fast_fraction=0.5, slow_fraction=0.5, stretches=False),
    found("outliers", 0.25, outliers=25, n=100),
    found("preempted", 0.6, kept_all=True),
    found("preempted", 0.15, kept_all=False),
    found("starved", 0.95, low_ns=200000.0, factor=81.0, cpu_ns=9.2e6, median_ns=16.2e6, threads=2, widened=True,
          waited=0.9877),
    found("starved", 0.9, low_ns=200000.0, factor=40.5, cpu_ns=9.2e6, median_ns=8.1e6, threads=2, widened=False,
          waited=0.9753),
    found("starved", 0.9, low_ns=200050.0, factor=40.5, cpu_ns=400100.0, median_ns=8.1e6, threads=2, widened=True,
          waited=None),
    found("starved", 0.9, low_ns=200050.0, factor=40.5, cpu_ns=400100.0, median_ns=8.1e6, threads=2, widened=False,
          waited=None),
    found("oversubscribed", 0.5, threads=2, factor=2.0, widened=True),
    found("oversubscribed", 0.31, threads=8, factor=2.0, widened=False),
    found("warmup_not_steady", 812),
    found("call_exceeds_budget", 3.0, threshold=0.2, samples=1),
    found("fixed_count_cut", 37, threshold=100000000, count="trials", budget=5.0),
    found("fixed_count_cut", 2100, threshold=100000000, count="warmup", budget=0.2),
    found("fixed_count_cut", 255, threshold=1000000, count="repeats", budget=0.3),
    found("cold_start", 36.7, severity="info", cold_ns=101812.0, median_ns=2774.0, warmup_calls=598),
    found("cold_start", 36.7, severity="warning", cold_ns=101812.0, median_ns=2774.0, warmup_calls=598),
    found("cold_repetition", 1.41, warmup=0, repeats=4),
    found("compiled", 29.9, graphs=1, breaks=0, cache="cold", calls_s=30.1, cold_ns=30.1e9, median_ns=16600.0),
    found("compiled", 5.5, graphs=1, breaks=0, cache="warm", calls_s=5.6, cold_ns=5.6e9, median_ns=16600.0),
    found("compiled", 0.4, graphs=2, breaks=1, cache="none", calls_s=0.5, cold_ns=0.5e9, median_ns=16600.0),
    found("compiled", 18.0, graphs=1, breaks=0, cache="cold", calls_s=21.2, processes=2, next_s=2.91,
          next_cache="warm", median_ns=16600.0),
    found("recompiled", 1, reason="tensor 'x' size mismatch at index 0. expected 4096, actual 4097",
          where="model.py:3", seconds=2.1, resampled=1),
    found("near_resolution", 0.05, threshold=0.002, sample_ns=600.0, resolution_ns=30.0),
    found("overhead_bias", 0.0041, threshold=0.002, overhead_ns=41.0),
    found("no_noise_profile", 0.03, source="repeats", floor=0.016, inflation=3.0, status="absent"),
    found("no_noise_profile", 0.02, source="processes", floor=0.016, inflation=None, status="absent"),
    found("no_noise_profile", 0.016, source="prior", floor=0.016, inflation=None, status="corrupt"),
    found("noise_profile_disagrees", 5.0, threshold=2.28, cv=0.385, within=0.077, inflation=3.0),
    found("auto_device_cpu"),
    found("no_device_work", device="cuda:0"),
    found("graph_setup"),
    found("unjoined_stream", 3.2),
    found("launch_bound", 0.93, host_ns=9300.0, device_ns=10000.0),
    found("unsynchronized_timing", 48.1, unsynced_ns=21000.0, synced_ns=1010100.0),
    found("unsynchronized_timing", severity="info", device="cpu"),
    found("implicit_syncs", 7, sites={"train.py:12 (loss.item())": 5, "train.py:20 (print(x))": 2}),
    found("implicit_syncs", 5, severity="info", ops={"aten::_local_scalar_dense": 5}),
    found("many_tiny_ops", 100, per_op_ns=1500.0, kernels=False),
    found("many_tiny_ops", 240, per_op_ns=4200.0, kernels=True),
    found("other_load", 1.4, cores=2),
    found("cpu_frequency", governor="powersave"),
    found("threads", 8, threshold=2),
    found("tf32_off", gpu="NVIDIA H100 80GB HBM3", sm="90"),
    found("memory", peak_bytes=64 * 2**20, base_bytes=512 * 2**20),
    found("memory", alloc_bytes=3 * 2**20),
    found("function_failed", error="ValueError: bad shape at model.py:3 (x.view(-1, 7)) (during measure)"),
    found("graph_breaks", 1, graphs=2, where="model.py:4",
          reason="Failed to trace builtin operator (Dynamo does not know how to trace builtin operator `print`)",
          breaks=[{"where": "model.py:4", "reason": "Failed to trace builtin operator"}]),
    found("data_starvation", 0.31),
    found("recompile_during_timing", 2),
    found("recompile_during_timing", 1, reason="tensor 'x' size mismatch at index 0. expected 64, actual 48"),
    found("compile_time", 14.237),
    found("cudnn_benchmark_varying_shapes", 5),
    found("peak_memory_phase", phase="optimizer", peak_bytes=1536 * 2**20),
    found("mfu_above_100", 1.7, peak="table"),
    found("mfu_above_100", 2.3, severity="warning", peak="measured", peak_flops=35.3e9, dtype="float32", threads=2,
          measured_at="2026-11-30T09:12:00+00:00", load=3.1, cpus=2),
    found("mfu_above_100", 1.4, severity="warning", peak="measured", peak_flops=1e9),
    found("batch_mismatch", 16, threshold=32),
    found("table_contradicts_verdict", 1.62, baseline="eager/fp32", ci_low=0.91, ci_high=0.97),
    found("table_contradicts_verdict", 5.4, baseline="eager/fp32", verdict_ratio=0.55, rounds=37),
    found("rank_straggler", 0.18, threshold=0.10, rank=3, phase="backward", host="node-b", local_rank=1,
          cost_ns=41e6),
    found("selfcheck_failed", 0.112, threshold=0.05, row="200us adaptive wall"),
    found("selfcheck_trap_missed", 1.5, threshold=10.0, trap="cold_start"),
    found("selfcheck_noisy", 0.061, threshold=0.05, row="2us fixed wall", noise=0.08),
    found("selfcheck_busy", 0.18),
    found("count_spread", 0.0123, min=443_901.0, max=444_990.0),
    found("roof_exceeded", 1.86, label="matmul", n=512, points=3, roof="compute", peak=44.8e9, unit="FLOP/s",
          rate=83.3e9, dtype="float32", threads=2, measured_at="2026-11-30T09:12:00+00:00", load=3.1, cpus=2),
    found("roof_exceeded", 1.3, label="copy", n=2**22, points=1, roof="memory", peak=10e9, unit="B/s", rate=13e9,
          dtype="float32", threads=2, measured_at=None, load=None, cpus=None),
    found("poor_fit", 0.31, threshold=0.10, reason="rms", label="matmul"),
    found("poor_fit", 0.97, threshold=0.25, reason="residual", label="matmul"),
    found("fit_slope_points", 2, reason="slope", label="matmul"),
    found("nonmonotone_sizes", 0.23, reason="drop", label="all_reduce"),
    found("ranks_disagree", 2, label="fused", split="0: no difference · 1: slower"),
    found("busbw_drop", 0.5, threshold=0.1, label="all_reduce", size="64K", base="0.1616", new="0.08081"),
    found("new_straggler", 1.52, threshold=1.1, label="matmul", rank=3, node="node-b/1"),
    found("new_straggler", 1.52, threshold=1.1, label="matmul", rank=3, node="node-b/1", before_rank=0),
    found("new_straggler", 1.3, threshold=1.1, label="tiny_lm", rank=1, node="node-b/0", phase="backward",
          cost_ns=9e6),
    found("new_straggler", 1.3, threshold=1.1, label="tiny_lm", rank=1, node="node-b/0", phase="backward",
          cost_ns=9e6, before_rank=0),
    found("group_throughput", -0.187, label="tiny_lm", unit="tokens", base=48_760.0, new=39_640.0),
    found("group_throughput", 0.02, label="tiny_lm", unit="samples", base=761.9, new=777.1),
]


def _snapshot(lang):
    blocks = []
    for f in EXAMPLES:
        w = finding_words(f, lang)
        blocks.append("\n".join([f"[{f.code}] {f.severity}: {w.title}", f"  message: {w.message}", f"  why: {w.why}",
                                 f"  fix: {w.fix}", f"  line: {finding_line(f, lang)}"]))
    return "\n\n".join(blocks) + "\n"


def test_examples_cover_every_code_and_variant():
    assert {f.code for f in EXAMPLES} == set(CATALOGUE)
    for code in CATALOGUE:
        entry = _entry(code, "en")
        seen = {finding_words(f).message for f in EXAMPLES if f.code == code}
        assert len(seen) == len([k for k in entry if k.startswith("message")]), code


@pytest.mark.parametrize("lang", LANGS)
def test_the_words_of_every_finding_match_the_snapshot(lang):
    path = SNAPSHOTS / f"findings_{lang}.txt"
    text = _snapshot(lang)
    if os.environ.get("MF_UPDATE_SNAPSHOTS") == "1":
        path.write_text(text, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == text, f"run MF_UPDATE_SNAPSHOTS=1 pytest {__file__} and review the diff"
