"""Report sections for timings: measurements (and saved runs), comparisons, histories."""

from __future__ import annotations

import math
from .text_format import html_escape as escape
from typing import TYPE_CHECKING, Sequence, Union, cast

from . import svg
from .report_html import Cell, Col, Ctx, Row, figure, findings, kv, num, para, secs, section, table
from .text import ci_range, format_relative, format_time, interval_rel, settled_words, spread_cell, time_unit
from .changes import changes_lines, mark_changes
from .words import verdict_words

if TYPE_CHECKING:  # pragma: no cover
    from ..results.comparison import Comparison
    from ..results.history import History, SavedRun
    from ..results.kinds import Count, Measurement

    Timed = Union[Measurement, SavedRun]
    Counted = Union[Count, SavedRun]

#: Per-measurement sample plots are drawn for at most this many measurements in one section.
MAX_SAMPLE_PLOTS = 6
#: A dot plot spans values this many times apart or more: log axis.
LOG_SPAN = 20.0


def _m(item: "Timed") -> "Measurement":
    """The measurement of a measurement or of a saved run (result types are for typing only here)."""
    inner = getattr(item, "measurement", None)
    return cast("Measurement", item if inner is None else inner)


def _hw(m: "Measurement") -> float | None:
    ci = m.ci
    return None if ci is None else (ci[1] - ci[0]) / 2


def _label_margin(labels: Sequence[str]) -> int:
    return min(240, max(70, 7 * max((len(x) for x in labels), default=4) + 16))


def ci_dot_plot(ctx: Ctx, ms: Sequence["Measurement"], title: str, plot_id: str) -> str:
    """One row per measurement: the median as a dot, the 95% CI as a whisker."""
    ok = [m for m in ms if m.summary is not None]
    if not ok:
        return ""
    values = [m.median for m in ok] + [c for m in ok if m.ci for c in m.ci]
    lo, hi = min(values), max(values)
    log = lo > 0 and hi / lo >= LOG_SPAN
    n = len(ok)
    labels = [m.label for m in ok]
    height = 70 + 30 * n
    plot = svg.Plot.make(values if log else values + [0.0], [-0.6, n - 0.4], xlog=log, height=height,
                         left=_label_margin(labels), ypad=0.0, bottom=44)
    plot.y = svg.Scale(-0.6, n - 0.4, plot.y.a, plot.y.b)  # rows, top to bottom
    for i, m in enumerate(ok):
        row = n - 1 - i
        cls = svg.series_class(i)
        if m.ci:
            plot.xerr(row, m.ci[0], m.ci[1], cls)
        plot.dots([(m.median, row, f"{m.label}: {format_time(m.median, _hw(m))}"
                    + (f" ({ctx.t('ci95')} {ci_range(m.ci, _hw(m), time_unit(m.median))})" if m.ci else ""))],
                  cls, r=5)
    yticks = [(n - 1 - i, m.label) for i, m in enumerate(ok)]
    return figure(plot.svg(title=title, xlabel=ctx.t("time_per_call"), ylabel="", xfmt=svg.seconds,
                           plot_id=plot_id, yticks=yticks), ctx.t("cap_ci_dots"))


def samples_plot(ctx: Ctx, m: "Measurement", plot_id: str) -> str:
    """Every sample's per-call time in sampling order, the median and the CI band; samples set aside
    as preempted drawn apart."""
    per_call = [float(v) / 1e9 for v in m.per_call_ns]
    if len(per_call) < 2 or m.summary is None:
        return ""
    used = [bool(u) for u in m.used_mask]
    idx = list(range(len(per_call)))
    plot = svg.Plot.make(idx, per_call + [m.median], height=220, left=70)
    if m.ci:
        lo_y, hi_y = plot.y(m.ci[0]), plot.y(m.ci[1])
        plot.marks.append(f'<rect class="mf-ciband" x="{plot.x.a:.1f}" y="{min(lo_y, hi_y):.1f}" '
                          f'width="{plot.x.b - plot.x.a:.1f}" height="{max(abs(lo_y - hi_y), 1.0):.1f}"/>')
    plot.dots([(i, v, f"#{i}: {format_time(v)}") for i, v, u in zip(idx, per_call, used) if u], "mf-s0", r=2.2)
    aside = [(i, v, f"#{i}: {format_time(v)} ({ctx.t('preempted')})") for i, v, u in zip(idx, per_call, used) if not u]
    if aside:
        plot.dots(aside, "mf-aside", r=2.6)
        plot.key("mf-aside", ctx.t("preempted"))
    plot.hline(m.median, "mf-s1", ctx.t("median") + " " + format_time(m.median, _hw(m)), dashed=False)
    return figure(plot.svg(title=ctx.t("samples_title", label=m.label), xlabel=ctx.t("sample_index"),
                           ylabel=ctx.t("time_per_call"), yfmt=svg.seconds, plot_id=plot_id))


def measurement_rows(ctx: Ctx, items: Sequence["Timed"]) -> list[Row]:
    rows = []
    for item in items:
        m = _m(item)
        run = getattr(item, "id", None)
        label = (f"#{run} " if run is not None else "") + m.label + ("" if m.complete else f" ({ctx.t('incomplete')})")
        if m.summary is None:
            rows.append(Row([label, Cell(ctx.t("no_samples")), "", "", "", "", "", "", "", num(0), "",
                             f"{m.device} · {m.timer}", ""]))
            continue
        hw = _hw(m)
        unit = time_unit(m.median)
        numbers = m.loop_counts
        calls = str(numbers[0]) if len(numbers) == 1 else f"{numbers[0]}–{numbers[-1]}"
        samples = f"{m.n_rounds} × {calls}" + (f" (+{m.n_samples - m.n_used} {ctx.t('preempted')})"
                                             if m.n_samples != m.n_used else "")
        stop = ctx.t("stop_" + m.stop.reason) + " · " + ctx.t("target_met" if m.stop.target_met else "target_not_met")
        rows.append(Row([
            label, secs(m.median, hw),
            Cell("n/a" if m.ci is None else ci_range(m.ci, hw, unit), None if m.ci is None else m.ci[0]),
            num(m.ci_half_width_rel, interval_rel(m, pm=False)),
            Cell(spread_cell(m, ctx.lang)), num(m.precision_half_width_rel, "±" + format_relative(m.precision_half_width_rel)),
            secs(m.iqr), secs(m.min, hw), secs(m.mean, hw), num(m.n_used, samples),
            "" if m.warmup is None else ctx.t("warmup_calls", calls=m.warmup.calls),
            f"{m.device} · {m.timer}", stop]))
    return rows


def measurement_cols(ctx: Ctx) -> list[Col]:
    return [Col(ctx.t("col_benchmark")), Col(ctx.t("median"), True), Col(ctx.t("ci95"), True), Col("±", True),
            Col(ctx.t("col_run_to_run")), Col(ctx.t("col_precision"), True), Col("IQR", True), Col(ctx.t("min"), True), Col(ctx.t("mean"), True),
            Col(ctx.t("col_samples"), True), Col(ctx.t("col_warmup")), Col(ctx.t("col_device_timer")),
            Col(ctx.t("col_stopped"))]


def measurements_section(ctx: Ctx, items: Sequence["Timed"]) -> str:
    ident = ctx.id("measurements")
    ms = [_m(i) for i in items]
    title = ", ".join(m.label for m in ms[:4]) + (" …" if len(ms) > 4 else "")
    body = [ci_dot_plot(ctx, ms, ctx.t("ci_dots_title"), f"{ident}-dots"),
            table(ctx, f"{ident.removeprefix(ctx.prefix + '-')}-table", measurement_cols(ctx),
                  measurement_rows(ctx, items))]
    body += _saved_and_findings(ctx, items, ms)
    if len(ms) <= MAX_SAMPLE_PLOTS:
        plots = [samples_plot(ctx, m, f"{ident}-samples-{i}") for i, m in enumerate(ms)]
        plots = [p for p in plots if p]
        if plots:
            body.append(f"<h3>{ctx.e('samples_heading')}</h3>" + para(ctx.t("samples_note"), "mf-muted")
                        + f'<div class="mf-grid2">{"".join(plots)}</div>')
    kind = "saved_run" if all(getattr(i, "id", None) is not None for i in items) else "measurement"
    return section(ctx, ident, kind, title, "".join(body), incomplete=any(not m.complete for m in ms))


# ---- comparisons -------------------------------------------------------------------------------
#: The forest plot's verdict words: their font size (the stylesheet's ``.mf-verdict``) and the most width they
#: take at the right of the plot, pixels (longer words wrap onto a second line).
VERDICT_PX, VERDICT_MARGIN = 12.0, 300


def forest_plot(ctx: Ctx, c: "Comparison", plot_id: str) -> str:
    """Each candidate's time ratio against the baseline with its 95% CI, on a log axis; 1 = the baseline."""
    vs = [v for v in c.verdicts if v.verdict != "baseline" and math.isfinite(v.ratio) and v.ratio > 0]
    if not vs:
        return ""
    values = [1.0] + [v.ratio for v in vs] + [x for v in vs for x in (v.ratio_ci or ()) if x]
    lo, hi = min(values), max(values)
    span = max(hi / lo, 1.02)
    lo, hi = lo / span**0.15, hi * span**0.15
    n = len(vs)
    words = [verdict_words(v, ctx.lang) for v in vs]
    labels = [v.label for v in vs]
    width = 720
    right = min(VERDICT_MARGIN, 24 + max(svg.text_px(w, VERDICT_PX) for w in words))
    left = _label_margin(labels)
    height = 100 + 34 * n
    plot = svg.Plot(svg.Scale(lo, hi, left, width - right, log=True), svg.Scale(-0.7, n - 0.3, height - 46, 60),
                    width, height)
    plot.band(lo, 1.0, "mf-faster")
    plot.band(1.0, hi, "mf-slower")
    plot.vline(1.0, "mf-baseline", "", dashed=False)
    for i, v in enumerate(vs):
        row = n - 1 - i
        cls = {"faster": "mf-good", "slower": "mf-bad"}.get(v.verdict, "mf-neutral")
        tip = f"{v.label}: {ctx.t('time_ratio')} {v.ratio:.4f}"
        if v.ratio_ci is not None:
            plot.xerr(row, *v.ratio_ci, cls)
            tip += f" ({ctx.t('ci95')} {v.ratio_ci[0]:.4f}–{v.ratio_ci[1]:.4f})"
        plot.dots([(v.ratio, row, tip)], cls, r=5.5)
        y = plot.y(row)
        lines = svg.wrap(words[i], right - 14, VERDICT_PX)
        plot.marks.append(svg.text_lines(lines, width - right + 10, y + 4, f"mf-verdict {cls}", VERDICT_PX + 2))
    top = plot.y.b - 6
    x1 = plot.x(1.0)
    plot.marks.append(f'<text class="mf-note mf-good" x="{x1 - 6:.1f}" y="{top:.1f}" text-anchor="end">'
                      f'{ctx.e("faster_side")}</text>')
    plot.marks.append(f'<text class="mf-note mf-bad" x="{x1 + 6:.1f}" y="{top:.1f}">{ctx.e("slower_side")}</text>')
    plot.marks.append(f'<text class="mf-note mf-baseline" x="{x1:.1f}" y="{top - 13:.1f}" text-anchor="middle">'
                      f'{ctx.e("baseline_is", label=c.baseline)}</text>')
    yticks = [(n - 1 - i, v.label) for i, v in enumerate(vs)]
    return figure(plot.svg(title=ctx.t("forest_title", baseline=c.baseline), xlabel=ctx.t("time_ratio_axis"),
                           ylabel="", xfmt=svg.ratio, plot_id=plot_id, yticks=yticks), ctx.t("cap_forest"))


def comparison_section(ctx: Ctx, c: "Comparison") -> str:
    ident = ctx.id("comparison")
    lines = []
    for v in c.verdicts:
        if v.verdict == "baseline":
            continue
        cls = {"faster": "mf-good", "slower": "mf-bad"}.get(v.verdict, "mf-neutral")
        ci = "" if v.ratio_ci is None else ctx.t("ratio_ci_words", ratio=f"{v.ratio:.4f}", lo=f"{v.ratio_ci[0]:.4f}",
                                                   hi=f"{v.ratio_ci[1]:.4f}")
        lines.append(f'<li><b>{escape(v.label)}</b>: <span class="mf-verdict {cls}">'
                     f'{escape(verdict_words(v, ctx.lang))}</span> {ctx.e("against", baseline=v.baseline)}'
                     f'<span class="mf-muted"> — {escape(ci)}{escape(ctx.t("rounds", n=v.rounds))}</span></li>')
    body = [f'<ul class="mf-verdicts">{"".join(lines)}</ul>', forest_plot(ctx, c, f"{ident}-forest")]
    rows = []
    for m, v in zip(c.measurements, c.verdicts):
        hw = _hw(m)
        base = v.verdict == "baseline"
        rows.append(Row([
            m.label, secs(m.median, hw),
            Cell("n/a" if m.ci is None else ci_range(m.ci, hw, time_unit(m.median)), None if m.ci is None else m.ci[0]),
            num(1.0 if base else v.ratio, ctx.t("baseline") if base else f"{v.ratio:.4f}"),
            Cell("" if base or v.ratio_ci is None else f"{v.ratio_ci[0]:.4f}–{v.ratio_ci[1]:.4f}",
                 None if base or v.ratio_ci is None else v.ratio_ci[0]),
            num(1.0 if base else v.speedup, "" if base else f"{v.speedup:.3f}×"),
            Cell(verdict_words(v, ctx.lang), cls={"faster": "mf-good", "slower": "mf-bad"}.get(v.verdict, ""))]))
    cols = [Col(ctx.t("col_candidate")), Col(ctx.t("median"), True), Col(ctx.t("ci95"), True),
            Col(ctx.t("time_ratio"), True), Col(ctx.t("ratio_ci"), True), Col(ctx.t("speedup"), True),
            Col(ctx.t("verdict"))]
    body.append(table(ctx, f"{ident.removeprefix(ctx.prefix + '-')}-table", cols, rows))
    stop = c.stop
    body.append(kv(ctx, [(ctx.t("rounds_label"), str(len(c.orders))),
                         (ctx.t("order"), str(c.options.get("order", ""))),
                         (ctx.t("col_stopped"), ctx.t("stop_" + stop.reason) + f" · {stop.seconds:.2f} s · "
                          + settled_words(c, ctx.lang)),
                         (ctx.t("precision"), format_relative(stop.precision))]))
    for m in c.measurements:
        if m.findings:
            body.append(f"<h3>{escape(ctx.t('findings_of', label=m.label))}</h3>" + findings(ctx, m.findings))
    title = " · ".join(c.labels)
    return section(ctx, ident, "comparison", title, "".join(body), incomplete=not c.complete)


# ---- history -----------------------------------------------------------------------------------
# ---- instruction counts ------------------------------------------------------------------------
def _c(item: "Counted") -> "Count":
    inner = getattr(item, "measurement", None)
    return cast("Count", item if inner is None else inner)


def _per_call_range(c: "Count") -> tuple[float, float] | None:
    per = c.per_call_counts
    return (min(per), max(per)) if per else None


def _count_text(v: float) -> str:
    return f"{v:,.0f}" if math.isfinite(v) else "n/a"


def count_dot_plot(ctx: Ctx, cs: Sequence["Count"], plot_id: str) -> str:
    """One row per count: the median per call over the repeats as a dot, their range as a whisker."""
    ok = [c for c in cs if c.counts]
    if not ok:
        return ""
    values = [v for c in ok for v in (c.per_call, *(_per_call_range(c) or ()))]
    log = min(values) > 0 and max(values) / min(values) >= LOG_SPAN
    n = len(ok)
    plot = svg.Plot.make(values if log else values + [0.0], [-0.6, n - 0.4], xlog=log, height=70 + 30 * n,
                         left=_label_margin([c.label for c in ok]), ypad=0.0, bottom=44)
    plot.y = svg.Scale(-0.6, n - 0.4, plot.y.a, plot.y.b)
    for i, c in enumerate(ok):
        row, cls = n - 1 - i, svg.series_class(i)
        rng = _per_call_range(c)
        if rng:
            plot.xerr(row, rng[0], rng[1], cls)
        plot.dots([(c.per_call, row, f"{c.label}: {_count_text(c.per_call)} {c.event} "
                    f"(±{format_relative(c.spread)})")], cls, r=5)
    event = ok[0].event
    return figure(plot.svg(title=ctx.t("counts_title", event=event), xlabel=ctx.t("per_call_of", event=event),
                           ylabel="", xfmt=svg.si, plot_id=plot_id,
                           yticks=[(n - 1 - i, c.label) for i, c in enumerate(ok)]), ctx.t("cap_counts"))


def counts_section(ctx: Ctx, items: Sequence["Counted"]) -> str:
    ident = ctx.id("counts")
    cs = [_c(i) for i in items]
    rows = []
    for item, c in zip(items, cs):
        run = getattr(item, "id", None)
        label = (f"#{run} " if run is not None else "") + c.label + ("" if c.complete else f" ({ctx.t('incomplete')})")
        rng = _per_call_range(c)
        rows.append(Row([label, num(c.per_call if c.counts else None, _count_text(c.per_call)), c.event,
                         num(c.spread if c.counts else None, format_relative(c.spread) if c.counts else ""),
                         num(None if rng is None else rng[0], "" if rng is None else _count_text(rng[0])),
                         num(None if rng is None else rng[1], "" if rng is None else _count_text(rng[1])),
                         num(c.n_repeats, f"{c.n_repeats} × {c.calls}"), c.backend, c.device]))
    cols = [Col(ctx.t("col_benchmark")), Col(ctx.t("per_call"), True), Col(ctx.t("event")), Col("±", True),
            Col(ctx.t("min"), True), Col(ctx.t("max"), True), Col(ctx.t("repeats_calls"), True),
            Col(ctx.t("backend")), Col(ctx.t("device"))]
    body = [count_dot_plot(ctx, cs, f"{ident}-dots"),
            table(ctx, f"{ident.removeprefix(ctx.prefix + '-')}-table", cols, rows)]
    body += _saved_and_findings(ctx, items, cs)
    title = ", ".join(c.label for c in cs[:4]) + (" …" if len(cs) > 4 else "")
    kind = "saved_run" if all(getattr(i, "id", None) is not None for i in items) else "count"
    return section(ctx, ident, kind, title, "".join(body), incomplete=any(not c.complete for c in cs))


# ---- history -----------------------------------------------------------------------------------
def _is_count(m: object) -> bool:
    return type(m).__name__ == "Count"


def _value(m: "Measurement | Count") -> float:
    return cast("Count", m).per_call if _is_count(m) else cast("Measurement", m).median


def _interval(m: "Measurement | Count") -> tuple[float, float] | None:
    """A timing's 95% CI, or the range of a count's repeats."""
    return _per_call_range(cast("Count", m)) if _is_count(m) else cast("Measurement", m).ci


def _value_text(m: "Measurement | Count") -> str:
    if _is_count(m):
        c = cast("Count", m)
        return f"{_count_text(c.per_call)} {c.event}"
    t = cast("Measurement", m)
    return format_time(t.median, _hw(t))


def _interval_text(m: "Measurement | Count") -> str:
    iv = _interval(m)
    if iv is None:
        return "n/a"
    if _is_count(m):
        return f"{_count_text(iv[0])}–{_count_text(iv[1])}"
    t = cast("Measurement", m)
    return ci_range(iv, _hw(t), time_unit(t.median))


def history_section(ctx: Ctx, h: "History") -> str:
    ident = ctx.id("history")
    runs = list(h.runs)
    flagged = set(h.steps())
    body = []
    if not runs:
        body.append(para(ctx.t("history_empty")))
        return section(ctx, ident, "history", h.name, "".join(body))
    counts = _is_count(runs[-1].measurement)
    anchors = [f"#{ident}-run-{r.id}" for r in runs]
    meds = [_value(r.measurement) for r in runs]
    cis = [_interval(r.measurement) for r in runs]
    found = h.changes()
    vals = meds + [x for ci in cis if ci for x in ci] + [x for seg in found.segments for x in (seg.low, seg.high)]
    log = min(vals) > 0 and max(vals) / min(vals) >= LOG_SPAN
    plot = svg.Plot.make(list(range(len(runs))), vals if log else vals + [0.0], ylog=log, height=320)
    for i, ci in enumerate(cis):
        if ci:
            plot.yerr(i, ci[0], ci[1], "mf-s0")
    plot.polyline([(i, v) for i, v in enumerate(meds)], "mf-s0")
    tips = [f"#{r.id} {r.created} {(r.git_commit or '')[:12]}: {_value_text(r.measurement)}" for r in runs]
    plot.dots([(i, v, t) for i, (v, t) in enumerate(zip(meds, tips))], "mf-s0", r=4, hrefs=anchors)
    for i in sorted(flagged):
        slower = meds[i] > meds[i - 1]
        cls = "mf-bad" if slower else "mf-good"
        plot.vline(i - 0.5, cls, ctx.t("step_slower" if slower else "step_faster"))
        plot.dots([(i, meds[i], ctx.t("step_slower" if slower else "step_faster") + " — " + tips[i])], cls, r=6,
                  hrefs=[anchors[i]], shape="up" if slower else "down")
    event = cast("Count", runs[-1].measurement).event if counts else ""
    mark_changes(plot, found)
    every = max(1, math.ceil(len(runs) / 10))
    xticks = [(i, f"#{r.id}") for i, r in enumerate(runs) if i % every == 0 or i == len(runs) - 1]
    ylabel = ctx.t("per_call_of", event=event) if counts else ctx.t("median_per_call")
    body.append(figure(plot.svg(title=ctx.t("history_title", name=h.name), xlabel=ctx.t("run"), ylabel=ylabel,
                                yfmt=svg.si if counts else svg.seconds, plot_id=f"{ident}-plot", xticks=xticks),
                       ctx.t("cap_history_counts" if counts else "cap_history")))
    lines = changes_lines(found, runs, h.name, event, ctx.lang)
    body.append(f'<div class="mf-changes">{"".join(para(x.strip()) for x in lines)}</div>')
    rows = []
    for i, r in enumerate(runs):
        m = r.measurement
        prev = None if i == 0 else meds[i] / meds[i - 1] - 1
        step = ""
        if i in flagged:
            step = ctx.t("step_slower" if meds[i] > meds[i - 1] else "step_faster")
        iv = cis[i]
        rows.append(Row([
            Cell(f'<a href="{anchors[i]}">#{r.id}</a>', r.id, html=True), Cell(r.created),
            Cell((r.git_commit or "")[:12]), Cell(str(m.env.get("device_name") or m.device)),
            num(meds[i], _value_text(m)), Cell(_interval_text(m), None if iv is None else iv[0]),
            num(prev, "" if prev is None else f"{prev * 100:+.1f}%"),
            Cell(step, cls="mf-bad" if step and meds[i] > meds[i - 1] else ("mf-good" if step else ""))],
            cls="mf-step" if i in flagged else ""))
    cols = [Col(ctx.t("run"), True), Col(ctx.t("created")), Col(ctx.t("git_commit")), Col(ctx.t("device")),
            Col(ctx.t("per_call") if counts else ctx.t("median"), True),
            Col(ctx.t("range") if counts else ctx.t("ci95"), True), Col(ctx.t("vs_previous"), True),
            Col(ctx.t("step_change"))]
    body.append(table(ctx, f"{ident.removeprefix(ctx.prefix + '-')}-table", cols, rows))
    body.append(f"<h3>{ctx.e('runs_heading')}</h3>")
    for r, anchor in zip(runs, anchors):
        m = r.measurement
        if _is_count(m):
            c = cast("Count", m)
            how = [(ctx.t("repeats_calls"), f"{c.n_repeats} × {c.calls}"), (ctx.t("backend"), c.backend)]
        else:
            t = cast("Measurement", m)
            how = [(ctx.t("col_samples"), f"{t.n_rounds} × {t.loop_counts[0]}"),
                   (ctx.t("col_device_timer"), f"{t.device} · {t.timer}")]
        inner = kv(ctx, [(ctx.t("per_call") if _is_count(m) else ctx.t("median"), _value_text(m)),
                         (ctx.t("range") if _is_count(m) else ctx.t("ci95"), _interval_text(m)), *how,
                         (ctx.t("git_commit"), r.git_commit or ""),
                         (ctx.t("host"), str(m.env.get("hostname") or "")),
                         (ctx.t("torch"), str(m.env.get("torch_version") or ""))])
        inner += findings(ctx, m.findings)
        body.append(f'<details class="mf-run" id="{anchor[1:]}"><summary>#{r.id} · {escape(r.created)} · '
                    f'{escape(_value_text(m))}</summary>{inner}</details>')
    return section(ctx, ident, "history", h.name, "".join(body))


def _saved_and_findings(ctx: Ctx, items: Sequence["Timed | Counted"],
                        results: Sequence["Measurement | Count"]) -> list[str]:
    """Under a table of measurements or counts: each saved run's id, time and commit, then each result's
    findings."""
    out = []
    for item in items:
        run = getattr(item, "id", None)
        if run is not None:
            out.append(kv(ctx, [(ctx.t("saved_run"), f"#{run} {getattr(item, 'name', '')}"),
                                (ctx.t("created"), getattr(item, "created", "")),
                                (ctx.t("git_commit"), getattr(item, "git_commit", None) or "")]))
    for r in results:
        if r.findings:
            out.append(f"<h3>{escape(ctx.t('findings_of', label=r.label))}</h3>" + findings(ctx, r.findings))
    return out
