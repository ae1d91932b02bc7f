"""Report sections for checks and runs: regression checks, selfchecks, measuring pytest runs, ranged
steps, collectives and rank groups. Words from :mod:`.words` (a selfcheck's from :mod:`.selfcheck`)."""

from __future__ import annotations

import math
from .text_format import html_escape as escape
from typing import TYPE_CHECKING, Sequence

from .report_html import Cell, Col, Ctx, Row, badge, bytes_text, count_text, findings, kv, num, para, pct, secs, \
    section, table
from .report_timing import comparison_section, measurements_section
from .selfcheck import COLUMNS, say, selfcheck_lines, selfcheck_rows, selfcheck_title, status_text
from ..results.layout import node_of
from .gate import level_lines, spread_lines, undecided_lines
from .words import bounded, flag_words

if TYPE_CHECKING:  # pragma: no cover
    from ..results.collectives import CollectivesResult
    from ..results.group import RankResult
    from ..results.ranked import RankComparison
    from ..results.group_history import GroupHistory
    from ..results.pytest_run import PytestRun
    from ..results.regression import Change, Regression
    from ..results.selfcheck import SelfCheck
    from ..results.step import RangedStepResult

#: The badge of each verdict of a change (and of a selfcheck's status).
TONE = {"regression": "bad", "slower": "warning", "faster": "good", "same": "muted", "undecided": "warning", "pass": "good",
        "fail": "bad", "noisy": "warning", "info": "muted", "skip": "muted"}


def nested(html: str) -> str:
    """A section shown inside another: a block with a third-level heading (the contents list only
    top-level sections)."""
    assert html.startswith("<section ") and html.endswith("</section>")
    html = html.replace("<h2>", "<h3>", 1).replace("</h2>", "</h3>", 1)
    return '<div class="mf-section mf-nested" ' + html[len("<section "):-len("</section>")] + "</div>"


def _per_call(c: "Change", value: float) -> Cell:
    return secs(value) if c.unit == "seconds" else num(value, f"{count_text(value)} {c.unit}")


def change_cells(ctx: Ctx, c: "Change", gate: bool) -> list[Cell | str]:
    """Base, new, change, ratio with its 95% CI, and the verdict of one change."""
    verdict = c.verdict(gate)
    flags = ", ".join(flag_words(c, flag, ctx.lang) for flag in c.flags)
    return [_per_call(c, c.base_median), _per_call(c, c.new_median), num(c.ratio - 1, f"{c.ratio - 1:+.1%}"),
            num(c.ratio, f"{c.ratio:.3f}"),
            Cell(f"{c.ci_low:.3f}–{c.ci_high:.3f}" + ("" if c.ci_level == 0.95 else f" ({c.ci_level * 100:g}%)"),
                 c.ci_low) if bounded(c) else Cell(ctx.t("no_interval"), None),
            Cell(badge(ctx.t("chg_" + verdict), TONE[verdict]) + (f" {escape(flags)}" if flags else ""), html=True)]


def change_cols(ctx: Ctx, changes: Sequence["Change"] = ()) -> list[Col]:
    """The columns of :func:`change_cells`; the interval's is a 95% CI unless a change's is another (a run's
    comparisons sharing one error), which each cell then names."""
    ci = "ci95" if all(c.ci_level == 0.95 for c in changes) else "ci_other"
    return [Col(ctx.t("chg_base"), True), Col(ctx.t("chg_new"), True), Col(ctx.t("chg_change"), True),
            Col(ctx.t("chg_ratio"), True), Col(ctx.t(ci), True), Col(ctx.t("verdict"))]


def regression_section(ctx: Ctx, r: "Regression") -> str:
    ident = ctx.id("regression")
    rows = [Row([c.label, *change_cells(ctx, c, r.gate)]) for c in r.changes]
    thresholds = sorted({c.threshold for c in r.changes})
    pairs = [(ctx.t("chg_base"), r.base), (ctx.t("chg_new"), r.new),
             (ctx.t("chg_gate"), ctx.t("chg_gate_on", t=", ".join(f"{t:.1%}" for t in thresholds)) if r.gate
              else ctx.t("chg_gate_off"))]
    body = [kv(ctx, pairs)]
    if r.failed:
        body.append(f'<p class="mf-bad">{ctx.e("chg_failed", n=len(r.failed))}</p>')
    body += _undecided_paras(ctx, r.undecided)
    body.append(table(ctx, f"{ident.removeprefix(ctx.prefix + '-')}-table", [Col(ctx.t("col_benchmark")),
                                                                           *change_cols(ctx, r.changes)], rows))
    body += [para(line, "mf-muted") for line in spread_lines(r.changes, ctx.lang) + level_lines(r.changes, ctx.lang)]
    if r.unmatched:
        body.append(para(ctx.t("chg_unmatched", labels=", ".join(r.unmatched)), "mf-muted"))
    body.append(findings(ctx, r.findings))
    return section(ctx, ident, "regression", f"{r.base} → {r.new}", "".join(body))


def _undecided_paras(ctx: Ctx, changes: Sequence["Change"]) -> list[str]:
    """How many changes are undecided (too noisy to judge), then each with its reasons and fixes."""
    if not changes:
        return []
    return [para(ctx.t("chg_undecided_n", n=len(changes)), "mf-warning"),
            *(para(line, "mf-warning") for line in undecided_lines(changes, ctx.lang))]


def selfcheck_section(ctx: Ctx, sc: "SelfCheck") -> str:
    ident = ctx.id("selfcheck")
    body = [f'<p>{badge(status_text(sc.status, ctx.lang), TONE[sc.status])} {escape(selfcheck_title(sc, ctx.lang))}</p>',
            table(ctx, f"{ident.removeprefix(ctx.prefix + '-')}-table",
                  [Col(say(f"col.{k}", ctx.lang), k not in ("duration", "method", "verdict")) for k in COLUMNS],
                  [Row(cells, cls=f"mf-{TONE[status]}") for status, cells in selfcheck_rows(sc, ctx.lang)],
                  sortable=False)]
    body += [para(line.strip()) for line in selfcheck_lines(sc, ctx.lang)]
    return section(ctx, ident, "selfcheck", sc.device, "".join(body), incomplete=not sc.complete)


def pytest_run_section(ctx: Ctx, run: "PytestRun") -> str:
    ident = ctx.id("pytest-run")
    gate = run.fail_if_slower is not None
    pairs = [(ctx.t("pt_tests"), ctx.t("pt_counts", n=len(run.benchmarks), c=len(run.comparisons))),
             (ctx.t("chg_base"), run.baseline or ctx.t("pt_no_baseline")),
             (ctx.t("chg_gate"), ctx.t("chg_gate_on", t=f"{run.fail_if_slower:.1%}") if run.fail_if_slower is not None
              else ctx.t("chg_gate_off"))]
    body = [kv(ctx, pairs)]
    if not run.measured:
        body.append(para(ctx.t("pt_not_measured"), "mf-warning"))
    if run.regressions:
        body.append(f'<p class="mf-bad">{ctx.e("chg_failed", n=len(run.regressions))}</p>')
    body += _undecided_paras(ctx, [b.change for b in run.undecided if b.change is not None])
    rows = []
    for b in run.benchmarks:
        m = b.measurement
        change: list[Cell | str] = ["", "", "", "", "", ""] if b.change is None else change_cells(ctx, b.change, gate)
        rows.append(Row([b.test, b.group or "", secs(m.median) if m.summary is not None else ctx.t("no_samples"),
                         *change[2:]], cls="mf-bad" if b.regression else ""))
    changes = [b.change for b in run.benchmarks if b.change is not None]
    cols = [Col(ctx.t("pt_test")), Col(ctx.t("pt_group")), Col(ctx.t("median"), True), *change_cols(ctx, changes)[2:]]
    body.append(table(ctx, f"{ident.removeprefix(ctx.prefix + '-')}-table", cols, rows))
    measured = [b.measurement for b in run.benchmarks if b.measurement.summary is not None]
    if measured:
        body.append(nested(measurements_section(ctx, measured)))
    body += [nested(comparison_section(ctx, c.comparison)) for c in run.comparisons]
    return section(ctx, ident, "pytest_run", run.environment.get("hostname") or "", "".join(body),
                   incomplete=not run.complete)


def ranged_step_section(ctx: Ctx, r: "RangedStepResult") -> str:
    ident = ctx.id("ranged-step")
    rows = [Row([name, secs(s), num(s / r.step_s if r.step_s > 0 else math.nan,
                                    pct(s / r.step_s) if r.step_s > 0 else "")]) for name, s in r.phase_s.items()]
    rows.append(Row([ctx.t("rs_unmarked"), secs(r.unmarked_s), num(r.unmarked_s / r.step_s if r.step_s > 0 else math.nan,
                                                                   pct(r.unmarked_s / r.step_s) if r.step_s > 0 else "")],
                    cls="mf-muted"))
    pairs = [(ctx.t("device"), r.device), (ctx.t("step"), secs(r.step_s).text),
             (ctx.t("steps_timed"), ctx.t("steps_words", steps=r.steps, warmup=r.warmup_steps,
                                         times=", ".join(secs(x).text for x in r.warmup_step_s) or "—"))]
    body = [kv(ctx, pairs),
            table(ctx, f"{ident.removeprefix(ctx.prefix + '-')}-table",
                  [Col(ctx.t("phase")), Col(ctx.t("median"), True), Col(ctx.t("rs_share"), True)], rows),
            para(ctx.t("rs_note"), "mf-muted")]
    return section(ctx, ident, "ranged_step", r.label, "".join(body))


def collectives_section(ctx: Ctx, c: "CollectivesResult") -> str:
    ident = ctx.id("collectives")
    rows = []
    for p in c.points:
        ok = p.error is None
        rows.append(Row([p.op, num(p.size_bytes, bytes_text(p.size_bytes)), num(p.count, str(p.count)), p.dtype,
                         secs(p.seconds if ok else None), num(p.algbw / 1e9 if ok else None),
                         num(p.busbw(c.world_size) / 1e9 if ok else None), p.error or ""],
                        cls="" if ok else "mf-bad"))
    cols = [Col(ctx.t("co_op")), Col(ctx.t("co_size"), True), Col(ctx.t("co_count"), True), Col("dtype"),
            Col(ctx.t("co_time"), True), Col(ctx.t("co_algbw"), True), Col(ctx.t("co_busbw"), True),
            Col(ctx.t("co_error"))]
    pairs = [(ctx.t("device"), c.device), (ctx.t("co_group"), ctx.t("co_group_words", n=c.world_size, backend=c.backend))]
    body = [kv(ctx, pairs), table(ctx, f"{ident.removeprefix(ctx.prefix + '-')}-table", cols, rows),
            para(ctx.t("co_note"), "mf-muted"), findings(ctx, c.findings)]
    return section(ctx, ident, "collectives", f"{c.backend} × {c.world_size}", "".join(body),
                   incomplete=not c.complete)


def rank_group_section(ctx: Ctx, r: "RankResult") -> str:
    ident = ctx.id("rank-group")
    s = r.summary
    rows = [Row([str(i), node_of(r.nodes, i), secs(m), num(m / s.median if s.median > 0 else math.nan,
                                                         f"{m / s.median:.2f}×" if s.median > 0 else "")],
                cls="mf-bad" if i == s.straggler else "") for i, m in enumerate(s.medians)]
    straggler = (ctx.t("rg_straggler", rank=s.straggler, t=f"{s.threshold:.0%}") if s.straggler is not None
                 else ctx.t("rg_no_straggler", t=f"{s.threshold:.0%}"))
    pairs = [(ctx.t("rg_ranks"), str(s.world_size)), (ctx.t("rg_spread"), pct(s.spread)),
             (ctx.t("rg_slowest"), ctx.t("rg_slowest_words", rank=s.slowest_rank, x=f"{s.straggler_ratio:.2f}"))]
    body = [kv(ctx, pairs), para(straggler, "mf-bad" if s.straggler is not None else ""),
            table(ctx, f"{ident.removeprefix(ctx.prefix + '-')}-table",
                  [Col(ctx.t("rg_rank"), True), Col(ctx.t("rg_node")), Col(ctx.t("median"), True),
                   Col(ctx.t("rg_vs_median"), True)], rows),
            findings(ctx, r.findings), nested(measurements_section(ctx, r.measurements))]
    return section(ctx, ident, "rank_group", r.measurement.label, "".join(body), incomplete=not r.complete)


def rank_comparison_section(ctx: Ctx, r: "RankComparison") -> str:
    """The group's verdict of each candidate, and each rank's ratio, interval and verdict with its node."""
    from .ranks import verdict_code_words
    from .words import verdict_words

    ident = ctx.id("rank-comparison")
    rows = []
    for g in r.verdicts:
        tone = "warning" if g.disagree else TONE.get({"no difference": "same"}.get(g.verdict, g.verdict), "muted")
        rows.append(Row([g.label, ctx.t("rc_group"), "", num(g.ratio, f"{g.ratio:.3f}"),
                         Cell("" if g.ratio_ci is None else f"{g.ratio_ci[0]:.3f}–{g.ratio_ci[1]:.3f}",
                              None if g.ratio_ci is None else g.ratio_ci[0]),
                         Cell(badge(verdict_code_words(g, ctx.lang), tone), html=True)]))
        rows += [Row([g.label, str(i), node_of(r.nodes, i), num(v.ratio, f"{v.ratio:.3f}"),
                      Cell("" if v.ratio_ci is None else f"{v.ratio_ci[0]:.3f}–{v.ratio_ci[1]:.3f}",
                           None if v.ratio_ci is None else v.ratio_ci[0]), verdict_words(v, ctx.lang)])
                 for i, v in enumerate(g.per_rank)]
    cols = [Col(ctx.t("col_benchmark")), Col(ctx.t("rg_rank")), Col(ctx.t("rg_node")), Col(ctx.t("rc_ratio"), True),
            Col(ctx.t("ci95"), True), Col(ctx.t("rc_verdict"))]
    pairs = [(ctx.t("rc_group"), ctx.t("rc_group_words", n=r.world_size, backend=r.backend or "?")),
             (ctx.t("baseline"), r.comparison.baseline)]
    body = [kv(ctx, pairs), table(ctx, f"{ident.removeprefix(ctx.prefix + '-')}-table", cols, rows),
            findings(ctx, r.findings), nested(comparison_section(ctx, r.comparison))]
    return section(ctx, ident, "rank_comparison", r.label, "".join(body), incomplete=not r.complete)


def group_history_section(ctx: Ctx, h: "GroupHistory") -> str:
    """Every run of one name of many ranks (collectives: busbw per op and size by run; rank groups: a row a
    run), then the checks of each run against the one before that found something."""
    from .ranks import group_run_line

    ident = ctx.id("group-history")
    rows: list[Row] = []
    cols: list[Col] = []
    if h.result_kind == "collectives":
        rows = [Row([label, *(num(None if x is None else x / 1e9) for x in cells)]) for label, cells in h.busbw_rows()]
        cols = [Col(ctx.t("co_op")), *(Col(f"#{run.id} {ctx.t('co_busbw')}", True) for run in h.runs)]
    elif h.result_kind == "group_step":
        rows = [Row([label, *(secs(x) for x in cells)]) for label, cells in h.phase_rows()]
        cols = [Col(ctx.t("gh_compute")), *(Col(f"#{run.id}", True) for run in h.runs)]
    runs = table(ctx, f"{ident.removeprefix(ctx.prefix + '-')}-runs", [Col(ctx.t("gh_run")), Col(ctx.t("gh_summary"))],
                 [Row([f"#{run.id}", group_run_line(run, ctx.lang)]) for run in h.runs])
    checks = [c for c in h.checks() if c is not None and (c.findings or any(x.regression for x in c.changes))]
    body = [runs, *([table(ctx, f"{ident.removeprefix(ctx.prefix + '-')}-table", cols, rows)] if rows else []),
            *(nested(regression_section(ctx, c)) for c in checks)]
    return section(ctx, ident, "group_history", h.name, "".join(body), incomplete=not h.complete)
