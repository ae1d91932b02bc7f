"""Report sections for training steps (phases as a stacked bar, memory per phase, MFU) and for a
doctor's diagnosis."""

from __future__ import annotations

from .text_format import html_escape as escape
from typing import TYPE_CHECKING, Sequence

from . import svg
from ..results.diagnosis import SKIP_INTERRUPTED
from .doctor import skip_words
from .step import flops_source_words, note_words, table_peak_words
from .report_html import Col, Ctx, Row, badge, figure, findings, kv, mib, num, para, pct, secs, section, table
from .text import format_time, measurement_summary

if TYPE_CHECKING:  # pragma: no cover
    from ..results.diagnosis import Diagnosis
    from ..results.step import StepResult

PHASES = ("data", "forward", "backward", "optimizer")


def _rate(x: float | None, unit: str) -> str:
    if x is None:
        return ""
    return svg.si(x, unit)


def phases_plot(ctx: Ctx, results: Sequence["StepResult"], plot_id: str) -> str:
    phases = [p for p in PHASES if any(r.phase_s.get(p) for r in results)]
    phases += [p for r in results for p in r.phase_s if p not in phases and r.phase_s[p]]
    legend = [(svg.series_class(i), ctx.t("phase_" + p) if p in PHASES else p) for i, p in enumerate(phases)]
    rows = []
    for r in results:
        segs = []
        for i, p in enumerate(phases):
            seconds = r.phase_s.get(p, 0.0)
            share = f" ({seconds / r.step_s:.0%})" if r.step_s > 0 else ""
            segs.append((seconds, svg.series_class(i), f"{r.label} · {legend[i][1]}: {format_time(seconds)}{share}"))
        rows.append((r.label, segs))
    if not rows:
        return ""
    return figure(svg.hbars(rows, title=ctx.t("phases_title"), xlabel=ctx.t("time_per_step"), fmt=svg.seconds,
                            legend=legend, plot_id=plot_id), ctx.t("cap_phases"))


def memory_plot(ctx: Ctx, results: Sequence["StepResult"], plot_id: str) -> str:
    with_mem = [r for r in results if r.memory]
    if not with_mem:
        return para(ctx.t("memory_cuda_only"), "mf-muted")
    phases = [p for p in PHASES if any(p in (r.memory or {}) for r in with_mem)]
    legend = [(svg.series_class(i), ctx.t("phase_" + p)) for i, p in enumerate(phases)]
    rows = []
    for r in with_mem:
        mem = r.memory or {}
        rows.append((r.label, [(float(mem.get(p, {}).get("peak_allocated", 0)), svg.series_class(i),
                                f"{r.label} · {legend[i][1]}: {mib(mem.get(p, {}).get('peak_allocated', 0))} "
                                f"({ctx.t('reserved')} {mib(mem.get(p, {}).get('peak_reserved', 0))})")
                               for i, p in enumerate(phases)]))
    return figure(svg.hbars(rows, title=ctx.t("memory_title"), xlabel=ctx.t("peak_allocated"),
                            fmt=lambda v: svg.si(v, "B"), legend=legend, plot_id=plot_id, stacked=False),
                  ctx.t("cap_memory"))


def steps_section(ctx: Ctx, results: Sequence["StepResult"]) -> str:
    ident = ctx.id("step")
    short = ident.removeprefix(ctx.prefix + "-")
    body = [phases_plot(ctx, results, f"{ident}-phases"), memory_plot(ctx, results, f"{ident}-memory")]
    cols = [Col(ctx.t("variant")), Col("dtype")] + [Col(ctx.t("phase_" + p), True) for p in PHASES] + [
        Col(ctx.t("step"), True), Col(ctx.t("tokens_s"), True), Col(ctx.t("samples_s"), True),
        Col(ctx.t("mfu_table"), True), Col(ctx.t("mfu_measured"), True), Col(ctx.t("compile"), True),
        Col(ctx.t("peak_memory"), True), Col(ctx.t("recompiles"), True)]
    rows = []
    for r in results:
        peak = None
        peak_text = ""
        if r.memory and r.peak_phase:
            peak = float(r.memory[r.peak_phase]["peak_allocated"])
            peak_text = f"{mib(peak)} ({ctx.t('phase_' + r.peak_phase) if r.peak_phase in PHASES else r.peak_phase})"
        tp = r.throughput
        rows.append(Row([r.label, r.dtype] + [secs(r.phase_s.get(p)) for p in PHASES] + [
            secs(r.step_s), num(tp.tokens_per_s_device, _rate(tp.tokens_per_s_device, "tok/s")),
            num(tp.samples_per_s_device, _rate(tp.samples_per_s_device, "/s")),
            num(r.mfu_table, pct(r.mfu_table) or "n/a"), num(r.mfu_measured, pct(r.mfu_measured) or "n/a"),
            num(r.compile_s, "" if r.compile_s is None else f"{r.compile_s:.2f} s"), num(peak, peak_text),
            num(r.recompiles, str(r.recompiles))]))
    body.append(table(ctx, f"{short}-table", cols, rows))
    for r in results:
        tp = r.throughput
        flops = "n/a" if r.flops_per_step is None else f"{r.flops_per_step:.4g} ({flops_source_words(r.flops_source, ctx.lang)})"
        measured = ("n/a" if r.mfu_measured is None or r.mfu_measured_peak is None else
                    f"{r.mfu_measured:.1%} · {r.mfu_measured_peak / 1e9:.1f} GFLOP/s")
        pairs = [(ctx.t("device"), f"{r.device} · {r.env.get('device_name', '')}".strip(" ·")),
                 (ctx.t("steps_timed"), ctx.t("steps_words", steps=r.steps, warmup=r.warmup_steps,
                                              times=", ".join(format_time(w) for w in r.warmup_step_s))),
                 (ctx.t("flops_step"), flops),
                 (ctx.t("mfu_table"), ("n/a" if r.mfu_table is None else f"{r.mfu_table:.1%}") + f" · {table_peak_words(r, ctx.lang)}"),
                 (ctx.t("mfu_measured"), measured),
                 (ctx.t("batch"), ctx.t("batch_words", mb=tp.micro_batch, seq=tp.seq_len, accum=tp.grad_accum,
                                        world=tp.world_size)),
                 (ctx.t("throughput"), ", ".join(x for x in (
                     _rate(tp.samples_per_s_device, "samples/s"), _rate(tp.tokens_per_s_device, "tokens/s"),
                     ctx.t("global_rate", rate=_rate(tp.tokens_per_s_global or tp.samples_per_s_global,
                                                     "tokens/s" if tp.tokens_per_s_global else "samples/s"))
                     if tp.world_size > 1 else "") if x))]
        if tp.note:
            pairs.append((ctx.t("note"), note_words(tp.note, ctx.lang)))
        if r.alloc_retries is not None:
            pairs.append((ctx.t("alloc_retries"), f"{r.alloc_retries} · OOM {r.ooms}"))
        body.append(f"<h3>{escape(r.label)}</h3>" + kv(ctx, pairs) + findings(ctx, r.findings))
    title = ", ".join(r.label for r in results)
    return section(ctx, ident, "step", title, "".join(body))


def diagnosis_section(ctx: Ctx, d: "Diagnosis") -> str:
    ident = ctx.id("doctor")
    verdict = ctx.t("doctor_ok") if d.ok else ctx.t("doctor_warnings", n=len(d.warnings))
    stopped = SKIP_INTERRUPTED in d.skipped.values()
    if stopped:
        verdict = ctx.t("doctor_stopped", verdict=verdict)
    body = [f'<p>{badge(verdict, "good" if d.ok and not stopped else "warning")}</p>']
    if d.error:
        body.append(f'<p class="mf-bad">{ctx.e("function_failed")} {escape(d.error)}</p>')
    body.append(findings(ctx, d.findings) or para(ctx.t("no_findings")))
    pairs = [(ctx.t("doctor_time"), measurement_summary(d.measurement, ctx.lang))] if d.measurement else []
    pairs += [(ctx.t("device"), d.device), (ctx.t("checks_run"), ", ".join(d.checks) or "—")]
    pairs += [(ctx.t("not_run", check=c), skip_words(why, ctx.lang)) for c, why in d.skipped.items()]
    body.append(kv(ctx, pairs))
    return section(ctx, ident, "diagnosis", d.label, "".join(body))

