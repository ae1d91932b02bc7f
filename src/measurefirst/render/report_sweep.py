"""Report section for a size sweep: time and throughput vs size (log-log) with the fitted model, the
overhead floor and the crossover, the roofline with the measured peaks, and the table."""

from __future__ import annotations

from .text_format import html_escape as escape
from typing import TYPE_CHECKING

import numpy as np

from ..results.roofline import over_roof
from . import svg
from .report_html import Cell, Col, Ctx, Row, figure, findings, kv, num, para, section, table
from .text import format_time, interval_rel, point_error

if TYPE_CHECKING:  # pragma: no cover
    from ..results.fit import PowerFit
    from ..results.kinds import Measurement
    from ..results.sweep import SweepPoint, SweepResult


def _fit(result: "SweepResult", label: str) -> "PowerFit | None":
    from ..results.errors import FitError

    try:
        return result.fit(label)
    except FitError:
        return None


def _fit_error(result: "SweepResult", label: str) -> str:
    from ..results.errors import FitError

    try:
        result.fit(label)
    except FitError as exc:
        return str(exc)
    return ""


def _measured(result: "SweepResult", label: str) -> list[tuple["SweepPoint", "Measurement"]]:
    """The points of one implementation that have a measurement with samples."""
    return [(p, p.measurement) for p in result.series(label) if p.ok and p.measurement is not None]


def clipped(pts: list[tuple[float, float]], lo: float, hi: float) -> list[tuple[float, float]]:
    """The points of a curve whose y lies within [lo, hi] (the plot's axis): a fitted curve is never
    drawn below the x-axis or above the top."""
    return [(x, y) for x, y in pts if lo <= y <= hi]


def time_plot(ctx: Ctx, result: "SweepResult", plot_id: str) -> str:
    xs: list[float] = []
    ys: list[float] = []
    series: list[tuple[str, list[tuple["SweepPoint", "Measurement"]], "PowerFit | None"]] = []
    for label in result.labels:
        pts = _measured(result, label)
        if not pts:
            continue
        f = _fit(result, label)
        series.append((label, pts, f))
        xs += [p.n for p, _ in pts]
        ys += [m.median for _, m in pts] + [c for _, m in pts if m.ci for c in m.ci]
        if f is not None and f.t0 > 0:
            ys.append(f.t0)
    if not series:
        return ""
    plot = svg.Plot.make(xs, ys, xlog=True, ylog=True, height=380)
    for i, (label, pts, f) in enumerate(series):
        cls = svg.series_class(i)
        for p, m in pts:
            if m.ci:
                plot.yerr(p.n, m.ci[0], m.ci[1], cls)
        if f is not None:
            grid = np.geomspace(min(p.n for p, _ in pts), max(p.n for p, _ in pts), 80)
            # the curve is drawn inside the axes only; a poor fit dashed, without a crossover to read
            plot.polyline(clipped(list(zip(grid.tolist(), f.predict(grid).tolist())), plot.y.lo, plot.y.hi), cls,
                          dashed=f.poor)
            if f.t0 > 0:
                plot.hline(f.t0, cls, ctx.t("overhead_floor", label=label, t0=format_time(f.t0)))
            if f.crossover is not None and not f.poor:
                plot.vline(f.crossover, cls, ctx.t("crossover_at", n=f"{f.crossover:.3g}"))
            plot.key(cls, ctx.t("fit_legend", label=label, k=f"{f.k:.2f}"))
        else:
            plot.key(cls, label)
        plot.dots([(p.n, m.median, f"{label} n={p.n}: {format_time(m.median)}") for p, m in pts], cls)
    return figure(plot.svg(title=ctx.t("sweep_time_title", device=result.device), xlabel=ctx.t("size_n"),
                           ylabel=ctx.t("time_per_call"), yfmt=svg.seconds, plot_id=plot_id), ctx.t("cap_sweep_time"))


def throughput_plot(ctx: Ctx, result: "SweepResult", plot_id: str) -> str:
    use_flops = any(p.flops for p in result.points)
    if not use_flops and not any(p.bytes for p in result.points):
        return ""
    unit = "FLOP/s" if use_flops else "B/s"
    xs: list[float] = []
    ys: list[float] = []
    lines = []
    for label in result.labels:
        pairs: list[tuple[float, float]] = []
        for p in result.series(label):
            rate = p.flops_per_s if use_flops else p.bytes_per_s
            if p.ok and rate:
                pairs.append((float(p.n), rate))
        if pairs:
            lines.append((label, pairs))
            xs += [n for n, _ in pairs]
            ys += [r for _, r in pairs]
    if not lines:
        return ""
    peak = None
    if result.peaks is not None:
        peak = result.peaks.flops_per_s if use_flops else result.peaks.bytes_per_s
        ys.append(peak)
    plot = svg.Plot.make(xs, ys, xlog=True, ylog=True, height=340)
    for i, (label, pairs) in enumerate(lines):
        cls = svg.series_class(i)
        plot.polyline(pairs, cls)
        plot.dots([(n, r, f"{label} n={n}: {svg.si(r, unit)}") for n, r in pairs], cls)
        plot.key(cls, label)
    if peak is not None:
        plot.hline(peak, "mf-roof", ctx.t("measured_peak", value=svg.si(peak, unit)), dashed=True)
    return figure(plot.svg(title=ctx.t("throughput_title"), xlabel=ctx.t("size_n"), ylabel=unit,
                           yfmt=lambda v: svg.si(v), plot_id=plot_id))


def roofline_plot(ctx: Ctx, result: "SweepResult", plot_id: str) -> str:
    pk = result.peaks
    if pk is None:
        return ""
    pts = [(p, p.intensity, p.flops_per_s) for p in result.points if p.ok]
    placed = [(p, x, y) for p, x, y in pts if x and y]
    if not placed:
        return ""
    intens = [x for _, x, _ in placed] + [pk.ridge]
    lo, hi = min(intens) / 4, max(intens) * 4
    ys = [y for _, _, y in placed] + [pk.flops_per_s, lo * pk.bytes_per_s]
    plot = svg.Plot.make([lo, hi], ys, xlog=True, ylog=True, height=360, xpad=0.0)
    plot.polyline([(lo, lo * pk.bytes_per_s), (pk.ridge, pk.flops_per_s), (hi, pk.flops_per_s)], "mf-roof")
    plot.key("mf-roof", ctx.t("roofline_measured"))
    plot.vline(pk.ridge, "mf-roof", ctx.t("ridge_at", x=f"{pk.ridge:.3g}"), bottom=True)
    for i, label in enumerate(result.labels):
        mine = [(p, x, y) for p, x, y in placed if p.label == label]
        if not mine:
            continue
        cls = svg.series_class(i)
        plot.dots([(x, y, f"{label} n={p.n}: {svg.si(y, 'FLOP/s')}, {x:.3g} FLOP/B") for p, x, y in mine], cls)
        for p, x, y in mine:
            plot.label(x, y, str(p.n), cls, dx=5, dy=-5)
        plot.key(cls, label)
    title = ctx.t("roofline_title", device=pk.device_name, dtype=pk.dtype)
    return figure(plot.svg(title=title, xlabel=ctx.t("intensity_axis"), ylabel="FLOP/s", yfmt=lambda v: svg.si(v),
                           plot_id=plot_id), ctx.t("cap_roofline"))


def sweep_section(ctx: Ctx, result: "SweepResult") -> str:
    ident = ctx.id("sweep")
    short = ident.removeprefix(ctx.prefix + "-")
    body = [time_plot(ctx, result, f"{ident}-time")]
    fits = []
    for label in result.labels:
        f = _fit(result, label)
        if f is None:
            fits.append(f"<li><b>{escape(label)}</b>: {ctx.e('no_fit')} — {escape(_fit_error(result, label))}</li>")
            continue
        cross = ctx.t("none_in_range") if f.crossover is None else f"n ≈ {f.crossover:.3g}"
        text = ctx.t("fit_words", t0=format_time(f.t0), c=f"{f.c:.3g}", k=f"{f.k:.3f}", klo=f"{f.k_ci[0]:.3f}",
                     khi=f"{f.k_ci[1]:.3f}", cross=cross, rms=f"{f.rms_rel_error:.1%}", n=f.n_points)
        extra = ""
        if f.poor:
            extra = f' — <span class="mf-warning">{ctx.e("poor_fit")}</span>'
        try:
            cx = result.complexity(label)
            extra += f' — <span class="mf-muted">{ctx.e("complexity", best=cx.best)}</span>'
        except ValueError:
            pass
        fits.append(f"<li><b>{escape(label)}</b>: {escape(text)}{extra}</li>")
    body.append(f'<ul class="mf-fits">{"".join(fits)}</ul>')
    checks = result.checks()  # a rate above its roof, a fit its points contradict
    if checks:
        body.append(findings(ctx, checks))
    body.append(throughput_plot(ctx, result, f"{ident}-throughput"))
    body.append(roofline_plot(ctx, result, f"{ident}-roofline"))
    if result.peaks is not None:
        pk = result.peaks
        body.append(kv(ctx, [(ctx.t("peaks"), f"{pk.device_name} ({pk.device}, {pk.dtype}, {pk.threads} threads)"),
                             (ctx.t("peak_matmul"), f"{pk.flops_per_s / 1e9:.1f} GFLOP/s (n={pk.matmul_size})"),
                             (ctx.t("peak_copy"), f"{pk.bytes_per_s / 1e9:.1f} GB/s"),
                             (ctx.t("ridge"), f"{pk.ridge:.1f} FLOP/B")]
                          + ([(ctx.t("peaks_measured"), ctx.t("peaks_how", when=pk.measured_at,
                                                              load="n/a" if pk.load < 0 else f"{pk.load:.2f}",
                                                              cpus=pk.cpus or "n/a").lstrip("; ；"))]
                             if pk.measured_at else [])))
    elif any(p.flops or p.bytes for p in result.points):
        body.append(para(ctx.t("no_peaks"), "mf-muted"))
    cols = [Col(ctx.t("impl")), Col("n", True), Col(ctx.t("time"), True), Col("±", True),
            Col(ctx.t("vs_reference", n=result.reference), True), Col(ctx.t("work_ratio"), True),
            Col("GFLOP/s", True), Col("GB/s", True), Col("FLOP/B", True), Col(ctx.t("bound")),
            Col(ctx.t("of_roof"), True)]
    rows = []
    for label in result.labels:
        f = _fit(result, label)
        for p in result.series(label):
            m = p.measurement
            if not p.ok or m is None:
                rows.append(Row([label, num(p.n, str(p.n)), Cell(ctx.t("failed"), cls="mf-bad"), "", "", "", "", "",
                                 "", Cell(point_error(p, ctx.lang)), ""], cls="mf-failed"))
                continue
            rel, work = result.relative(p)
            b = result.bound(p, None if f is None else f.t0)
            hw = None if m.ci is None else (m.ci[1] - m.ci[0]) / 2
            rows.append(Row([
                label, num(p.n, str(p.n)), Cell(format_time(m.median, hw), m.median),
                num(m.ci_half_width_rel, interval_rel(m, pm=False)),
                num(rel, "" if rel is None else f"{rel:.3g}×"), num(work, "" if work is None else f"{work:.3g}×"),
                num(None if p.flops_per_s is None else p.flops_per_s / 1e9),
                num(None if p.bytes_per_s is None else p.bytes_per_s / 1e9), num(p.intensity),
                Cell("" if b.kind == "unknown" else ctx.t("bound_" + b.kind.split("-")[0])),
                num(b.fraction, "" if b.fraction is None else f"{b.fraction:.0%}",
                    cls="mf-bad" if over_roof(b) else "")]))
    body.append(table(ctx, f"{short}-table", cols, rows))
    failed = [p for p in result.points if not p.ok]
    if failed:
        body.append(para(ctx.t("failed_sizes", n=len(failed)), "mf-warning"))
    warned = [(p, m) for p in result.points if (m := p.measurement) is not None and m.findings]
    for p, m in warned[:8]:
        body.append(f"<h3>{escape(ctx.t('findings_of', label=m.label))}</h3>" + findings(ctx, m.findings))
    if len(warned) > 8:
        body.append(para(ctx.t("more_findings", n=len(warned) - 8), "mf-muted"))
    title = ", ".join(result.labels) + " · " + ctx.t("n_sizes", n=len(result.sizes))
    return section(ctx, ident, "sweep", title, "".join(body), incomplete=not result.complete)

