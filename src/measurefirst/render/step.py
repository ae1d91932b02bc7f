"""Words and tables for model-step results."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from .findings import finding_words
from .text import cell, columns, comparison_lines, format_time, plain
from .words import code_word, verdict_words, word

if TYPE_CHECKING:  # pragma: no cover
    from rich.table import Table

    from ..results.step import RangedStepResult, StepComparison, StepResult


def _rate(x: float | None, unit: str) -> str:
    if x is None:
        return "n/a"
    for suffix, scale in (("M", 1e6), ("k", 1e3)):
        if x >= scale:
            return f"{x / scale:.3g}{suffix} {unit}"
    return f"{x:.3g} {unit}"


def phase_word(phase: str, lang: str = "en") -> str:
    """A phase's name: data, forward, backward, optimizer (数据, 前向, 反向, 优化器); any other as it is."""
    return code_word("phase_", phase, lang)


def flops_source_words(source: str, lang: str = "en") -> str:
    """Where a step's FLOPs came from, in words (text written by an older measurefirst, as it is)."""
    return code_word("flops_src_", source, lang)


def note_words(note: str, lang: str = "en") -> str:
    """A step throughput's note in words (text written by an older measurefirst, as it is)."""
    return code_word("tput_", note, lang)


def table_peak_words(r: "StepResult", lang: str = "en") -> str:
    """The datasheet peak the MFU is against: the table's row, or why there is none."""
    if r.mfu_table_peak == "not_in_table":
        return word("table_peak_not_in_table", lang, name=r.env.get("device_name") or r.device)
    return code_word("table_peak_", r.mfu_table_peak, lang)


PHASES = ("data", "forward", "backward", "optimizer")


def step_table(results: Sequence["StepResult"], comparison: Any = None, lang: str = "en") -> "Table":
    from rich.table import Table

    t = Table(title=word("step_title", lang))
    columns(t, (("variant", "left"), *((f"phase_{p}", "right") for p in PHASES), ("step", "right"),
                ("tokens_dev", "right"), ("samples_dev", "right"), ("mfu_table_short", "right"),
                ("mfu_measured_short", "right"), ("compile", "right"), ("peak_mem", "right"), ("verdict", "left")), lang)
    for r in results:
        peak = ""
        if r.memory and r.peak_phase:
            peak = word("peak_cell", lang, mib=f"{r.memory[r.peak_phase]['peak_allocated'] / 2**20:.0f}",
                        phase=phase_word(r.peak_phase, lang))
        verdict = "" if comparison is None else verdict_words(comparison.verdict(r.label), lang)
        t.add_row(cell(r.label), *(format_time(r.phase_s[p]) for p in PHASES),
                  format_time(r.step_s), _rate(r.throughput.tokens_per_s_device, "tok/s"),
                  _rate(r.throughput.samples_per_s_device, "/s"),
                  "n/a" if r.mfu_table is None else f"{r.mfu_table:.1%}",
                  "n/a" if r.mfu_measured is None else f"{r.mfu_measured:.1%}",
                  "" if r.compile_s is None else f"{r.compile_s:.2f} s", cell(peak), cell(verdict))
    return t


def step_text(r: "StepResult") -> str:
    """One step result in words, as ``str(r)`` shows it: the table of :func:`step_lines` for it alone."""
    return "\n".join(step_lines([r]))


def step_lines(results: Sequence["StepResult"], lang: str = "en") -> list[str]:
    lines = []
    sep = word("list_comma", lang)
    for r in results:
        tp = r.throughput
        lines.append(word("step_head", lang, label=r.label, device=r.device, time=format_time(r.step_s), steps=r.steps,
                          warmup=r.warmup_steps, times=sep.join(format_time(w) for w in r.warmup_step_s)))
        lines.append(word("phases_line", lang, phases=sep.join(f"{phase_word(p, lang)} {format_time(s)}"
                                                              for p, s in r.phase_s.items())))
        tokens = "" if not tp.tokens_per_s_device else word(
            "tokens_part", lang, dev=_rate(tp.tokens_per_s_device, "tokens/s"), glob=_rate(tp.tokens_per_s_global, "tokens/s"))
        lines.append(word("throughput_line", lang, dev=_rate(tp.samples_per_s_device, "samples/s"),
                          glob=_rate(tp.samples_per_s_global, "samples/s"), tokens=tokens,
                          batch=word("batch_short", lang, mb=tp.micro_batch, seq=tp.seq_len, accum=tp.grad_accum,
                                     world=tp.world_size),
                          note=word("note_tail", lang, note=note_words(tp.note, lang)) if tp.note else ""))
        measured = "n/a" if r.mfu_measured is None else word(
            "mfu_of_peak", lang, mfu=f"{r.mfu_measured:.1%}", peak=f"{r.mfu_measured_peak / 1e9:.1f}")  # type: ignore[operator]
        lines.append(word("mfu_line", lang, flops="n/a" if r.flops_per_step is None else f"{r.flops_per_step:.4g}",
                          source=flops_source_words(r.flops_source, lang), peak=table_peak_words(r, lang),
                          table="n/a" if r.mfu_table is None else f"{r.mfu_table:.1%}", measured=measured))
        for f in r.findings:
            w = finding_words(f, lang)
            lines.append(f"  {w.severity} [{f.code}] {w.message}" + (word("fix_tail", lang, fix=w.fix) if w.fix else ""))
    return [plain(line) for line in lines]


def step_comparison_text(result: "StepComparison", lang: str = "en") -> str:
    """The lines of each step, then the interleaved comparison's (when there is one)."""
    lines = step_lines(result.steps, lang)
    if result.comparison is not None:
        lines += comparison_lines(result.comparison, lang)
    return "\n".join(lines)


def ranged_step_line(r: "RangedStepResult", lang: str = "en") -> str:
    """A step timed by its ranges, in one line: the step, each range, the time outside any range."""
    sep = word("list_comma", lang)
    return plain(word("ranged_line", lang, label=r.label, device=r.device, time=format_time(r.step_s), steps=r.steps,
                      warmup=r.warmup_steps, phases=sep.join(f"{phase_word(k, lang)} {format_time(v)}"
                                                             for k, v in r.phase_s.items()),
                      unmarked=format_time(r.unmarked_s)))
