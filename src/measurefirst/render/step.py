"""Words and tables for model-step results."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from .findings import finding_words
from .text import cell, format_time, plain

if TYPE_CHECKING:  # pragma: no cover
    from rich.table import Table

    from ..step import StepComparison, StepResult


def _rate(x: float | None, unit: str) -> str:
    if x is None:
        return "n/a"
    for suffix, scale in (("M", 1e6), ("k", 1e3)):
        if x >= scale:
            return f"{x / scale:.3g}{suffix} {unit}"
    return f"{x:.3g} {unit}"


def step_table(results: Sequence["StepResult"], comparison: Any = None) -> "Table":
    from rich.table import Table

    t = Table(title="training step, per phase (median of the timed steps)")
    cols = ["variant", "data", "forward", "backward", "optimizer", "step", "tokens/s (dev)", "samples/s (dev)",
            "MFU (table)", "MFU (measured)", "compile", "peak mem", "verdict"]
    for c in cols:
        t.add_column(c, justify="left" if c in ("variant", "verdict") else "right")
    for r in results:
        peak = ""
        if r.memory and r.peak_phase:
            peak = f"{r.memory[r.peak_phase]['peak_allocated'] / 2**20:.0f} MiB ({r.peak_phase})"
        verdict = ""
        if comparison is not None:
            v = comparison.verdict(r.label)
            verdict = v.words()
        t.add_row(cell(r.label), *(format_time(r.phase_s[p]) for p in ("data", "forward", "backward", "optimizer")),
                  format_time(r.step_s), _rate(r.throughput.tokens_per_s_device, "tok/s"),
                  _rate(r.throughput.samples_per_s_device, "/s"),
                  "n/a" if r.mfu_table is None else f"{r.mfu_table:.1%}",
                  "n/a" if r.mfu_measured is None else f"{r.mfu_measured:.1%}",
                  "" if r.compile_s is None else f"{r.compile_s:.2f} s", cell(peak), cell(verdict))
    return t


def step_lines(results: Sequence["StepResult"]) -> list[str]:
    lines = []
    for r in results:
        tp = r.throughput
        lines.append(f"{r.label} on {r.device}: step {format_time(r.step_s)} (median of {r.steps}; "
                     f"{r.warmup_steps} warm-up steps excluded: "
                     + ", ".join(format_time(w) for w in r.warmup_step_s) + ")")
        lines.append("  phases: " + ", ".join(f"{p} {format_time(s)}" for p, s in r.phase_s.items()))
        lines.append(f"  throughput: {_rate(tp.samples_per_s_device, 'samples/s')} per device, "
                     f"{_rate(tp.samples_per_s_global, 'samples/s')} global"
                     + (f"; {_rate(tp.tokens_per_s_device, 'tokens/s')} per device, "
                        f"{_rate(tp.tokens_per_s_global, 'tokens/s')} global" if tp.tokens_per_s_device else "")
                     + f" (micro-batch {tp.micro_batch}, seq {tp.seq_len}, accum {tp.grad_accum}, world {tp.world_size})"
                     + (f" — {tp.note}" if tp.note else ""))
        flops = "n/a" if r.flops_per_step is None else f"{r.flops_per_step:.4g}"
        lines.append(f"  FLOPs/step {flops} ({r.flops_source}); MFU vs {r.mfu_table_peak}: "
                     + ("n/a" if r.mfu_table is None else f"{r.mfu_table:.1%}")
                     + "; vs measured peak: "
                     + ("n/a" if r.mfu_measured is None else
                        f"{r.mfu_measured:.1%} of {r.mfu_measured_peak / 1e9:.1f} GFLOP/s"))  # type: ignore[operator]
        for f in r.findings:
            w = finding_words(f)
            lines.append(f"  {f.severity} [{f.code}] {w.message}" + (f" — fix: {w.fix}" if w.fix else ""))
    return [plain(line) for line in lines]


def step_comparison_text(result: "StepComparison") -> str:
    """The lines of each step, then the interleaved comparison's (when there is one)."""
    lines = step_lines(result.steps)
    if result.comparison is not None:
        lines += str(result.comparison).splitlines()
    return "\n".join(lines)
