"""Report sections for profiles: op and kernel tables (sortable, filterable) and the diff of profiles."""

from __future__ import annotations

from .text_format import html_escape as escape
from typing import TYPE_CHECKING

from . import svg
from .report_html import (Cell, Col, Ctx, Row, bytes_text, count_text, figure, filter_box, kv, num, para, secs,
                          section, table)
from .text import format_time

if TYPE_CHECKING:  # pragma: no cover
    from ..results.profile import OpRow, Profile
    from ..results.profile_diff import ProfileDiff

#: Bars in a "where the time goes" chart.
TOP_BARS = 12
VIEWS = ("work", "top", "all")


def _op_cells(ctx: Ctx, r: "OpRow", total: float, shapes: bool) -> list[Cell | str]:
    cells: list[Cell | str] = [Cell(r.name)]
    if shapes:
        cells.append(Cell(r.input_shapes))
    cells += [num(r.calls, count_text(r.calls)), secs(r.self_s), secs(r.total_s),
              num(r.self_s / total if total else None, f"{r.self_s / total:.1%}" if total else ""),
              secs(r.device_s) if r.device_s else Cell(""), num(r.flops or None, f"{r.flops:.3g}" if r.flops else ""),
              num(r.bytes_est or None, bytes_text(r.bytes_est)),
              num(r.cpu_mem_bytes + r.device_mem_bytes or None, bytes_text(r.cpu_mem_bytes + r.device_mem_bytes))]
    return cells


def op_table(ctx: Ctx, p: "Profile", name: str) -> str:
    """Every view's rows in one table; the view selector shows one view at a time (work first)."""
    shapes = any(r.input_shapes for r in p.ops)
    total = p.total_s("top") or sum(r.self_s for r in p.ops) or 1.0
    cols = [Col(ctx.t("op"))] + ([Col(ctx.t("input_shapes"))] if shapes else []) + [
        Col(ctx.t("calls"), True), Col(ctx.t("self_time"), True), Col(ctx.t("total_time"), True),
        Col(ctx.t("pct_self"), True), Col(ctx.t("device_time"), True), Col("FLOPs", True),
        Col(ctx.t("bytes_est"), True), Col(ctx.t("memory"), True)]
    rows = []
    for view in VIEWS:
        for r in p.rows(view, "self"):
            attrs = {"data-view": view}
            if view != "work":
                attrs["hidden"] = ""
            rows.append(Row(_op_cells(ctx, r, total, shapes), attrs))
    tid = ctx.id(name)
    views = [(v, ctx.t("view_" + v)) for v in VIEWS]
    return filter_box(ctx, tid, views) + table(ctx, name, cols, rows, table_id=tid)


def kernel_table(ctx: Ctx, p: "Profile", name: str) -> str:
    cols = [Col(ctx.t("kernel")), Col(ctx.t("launched_by")), Col(ctx.t("calls"), True), Col(ctx.t("total_time"), True),
            Col(ctx.t("mean_time"), True), Col(ctx.t("library")), Col("op"), Col("arch"), Col("dtype"), Col("tile"),
            Col("layout"), Col("TC"), Col(ctx.t("fused"))]
    rows = []
    for k in p.kernels:
        d = k.decoded
        tc = d.get("tensor_cores")
        rows.append(Row([Cell(k.name, cls="mf-long"), k.launched_by, num(k.calls, count_text(k.calls)),
                         secs(k.total_s), secs(k.mean_s), str(d.get("library") or ""), str(d.get("op") or ""),
                         str(d.get("arch") or ""), str(d.get("dtype") or ""), str(d.get("tile") or ""),
                         str(d.get("layout") or ""), "" if tc is None else ctx.t("yes" if tc else "no"),
                         ", ".join(d.get("fused_ops") or [])]))
    tid = ctx.id(name)
    return filter_box(ctx, tid) + table(ctx, name, cols, rows, table_id=tid)


def time_bars(ctx: Ctx, p: "Profile", plot_id: str) -> str:
    """Where the time goes: the top working ops by self time (kernels by device time on a GPU)."""
    if p.kernels:
        items = [(k.name, k.total_s) for k in p.kernels[:TOP_BARS]]
        title = ctx.t("top_kernels")
    else:
        items = [(r.name, r.self_s) for r in p.rows("work", "self", TOP_BARS)]
        title = ctx.t("top_ops")
    items = [(n, s) for n, s in items if s > 0]
    if not items:
        return ""
    rows = [(n, [(s, "mf-s0", f"{n}: {format_time(s)}")]) for n, s in items]
    return figure(svg.hbars(rows, title=title, xlabel=ctx.t("time_per_step"), fmt=svg.seconds, plot_id=plot_id))


def profile_section(ctx: Ctx, p: "Profile") -> str:
    ident = ctx.id("profile")
    short = ident.removeprefix(ctx.prefix + "-")
    unit = ctx.t("kernels_unit" if p.kernels else "ops_unit")
    body = [kv(ctx, [(ctx.t("device"), p.device), (ctx.t("profiled_steps"), str(p.steps)),
                     (ctx.t("work_per_step"), f"{count_text(p.work_count)} {unit}"),
                     (ctx.t("step_under_profiler"), format_time(p.step_s)),
                     (ctx.t("peak_device_memory"), "" if p.peak_device_bytes is None
                      else bytes_text(p.peak_device_bytes)),
                     (ctx.t("trace_file"), p.trace_path or "")]),
            time_bars(ctx, p, f"{ident}-bars"),
            f"<h3>{ctx.e('ops_heading')}</h3>", para(ctx.t("ops_note"), "mf-muted"), op_table(ctx, p, f"{short}-ops")]
    if p.kernels:
        body += [f"<h3>{ctx.e('kernels_heading')}</h3>", kernel_table(ctx, p, f"{short}-kernels")]
    if p.flops_by_module:
        rows = [Row([mod, num(fl, f"{fl:.4g}")]) for mod, fl in p.flops_by_module.items()]
        body += [f"<h3>{ctx.e('flops_by_module')}</h3>",
                 table(ctx, f"{short}-modules", [Col(ctx.t("module")), Col("FLOPs", True)], rows)]
    return section(ctx, ident, "profile", p.label, "".join(body))


def diff_section(ctx: Ctx, d: "ProfileDiff") -> str:
    ident = ctx.id("diff")
    short = ident.removeprefix(ctx.prefix + "-")
    unit = ctx.t("kernels_unit" if d.unit == "kernels" else "ops_unit")
    counts = d.counts()
    body = [para(ctx.t("diff_counts", items=", ".join(f"{label}: {count_text(c)} {unit}"
                                                       for label, c in counts.items())))]
    only = []
    for i, label in enumerate(d.labels):
        mine = [r for r in d.rows if r.only_in() == i]
        if mine:
            only.append(f"<li>{ctx.e('only_in', label=label)} "
                        + ", ".join(f"<code>{escape(r.name)}</code> ×{count_text(r.calls[i] or 0)}" for r in mine)
                        + "</li>")
    if only:
        body.append(f'<ul class="mf-only">{"".join(only)}</ul>')
    top = list(d.rows[:TOP_BARS])
    if any(t for r in top for t in r.time_s):
        rows = [(r.name, [(t or 0.0, svg.series_class(i), f"{d.labels[i]} · {r.name}: {format_time(t or 0.0)}")
                          for i, t in enumerate(r.time_s)]) for r in top]
        legend = [(svg.series_class(i), label) for i, label in enumerate(d.labels)]
        body.append(figure(svg.hbars(rows, title=ctx.t("diff_bars", unit=unit), xlabel=ctx.t("time_per_step"),
                                     fmt=svg.seconds, legend=legend, plot_id=f"{ident}-bars", stacked=False)))
    cols = [Col(ctx.t("kernel") if d.unit == "kernels" else ctx.t("op"))]
    for label in d.labels:
        cols += [Col(ctx.t("calls_of", label=label), True), Col(ctx.t("time_of", label=label), True)]
        if d.unit == "ops":
            cols.append(Col(ctx.t("bytes_of", label=label), True))
    cols.append(Col(ctx.t("only_in_col")))
    rows2 = []
    for r in d.rows:
        cells: list[Cell | str] = [Cell(r.name, cls="mf-long")]
        for i in range(len(d.labels)):
            c, t = r.calls[i], r.time_s[i]
            cells += [num(c, "" if c is None else count_text(c)), secs(t)]
            if d.unit == "ops":
                cells.append(num(r.bytes_est[i], bytes_text(r.bytes_est[i])))
        o = r.only_in()
        cells.append("" if o is None else d.labels[o])
        rows2.append(Row(cells))
    tid = ctx.id(f"{short}-table")
    body += [f"<h3>{ctx.e('diff_heading', unit=unit)}</h3>", filter_box(ctx, tid),
             table(ctx, f"{short}-table", cols, rows2, table_id=tid)]
    for p in d.profiles:
        body.append(f'<details class="mf-more"><summary>{ctx.e("profile_of", label=p.label)}</summary>'
                    f'{op_table(ctx, p, f"{short}-ops-{_slug(p.label)}")}</details>')
    return section(ctx, ident, "profile_diff", " vs ".join(d.labels), "".join(body))


def _slug(text: str) -> str:
    out = "".join(ch if ch.isalnum() else "-" for ch in text.lower()).strip("-")
    return out[:30] or "x"

