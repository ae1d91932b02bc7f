"""The dashboard (``measurefirst publish -o site/``): a static, self-contained site of a results store,
in the style of the HTML report and in English and Chinese.

``index.html`` lists every benchmark on every machine with its runs, its latest value, its change
against the run before and the latest change point or drift of its whole series (a sortable,
filterable table); each benchmark on each machine has a page with its series over the runs (each run's
interval, the segments' levels and intervals, the change points marked), its change points and drifts
in words (commits linked when a URL template is given), and its latest runs. Nothing is fetched: the
stylesheet, the script and every plot are inline. Data in (:class:`~measurefirst.results.history.
Series`), HTML out; nothing here measures or reads the store.
"""

from __future__ import annotations

import hashlib
import math
import re
from .text_format import html_escape as escape
from typing import TYPE_CHECKING, Sequence
from urllib.parse import quote

from . import svg
from .changes import changes_lines, latest_change, mark_changes, p_text, value_text
from .report import page
from .report_html import Cell, Col, Ctx, Row, figure, filter_box, num, para, table
from .text import ci_range, time_unit
from .words import LANGS, word

if TYPE_CHECKING:  # pragma: no cover
    from ..results.changepoints import ChangeAnalysis
    from ..results.history import Series

#: The runs a benchmark's page lists in its table (every run is in its plot).
RUNS_LISTED = 200
#: Above this many runs a plot draws the series as a line without a dot and an interval per run.
DOTS_UP_TO = 1500


def slug(s: "Series") -> str:
    """The file name of a series' page: its name and machine made safe, and a short hash of both so that
    two names that read alike never share a page."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{s.name}@{s.host}" if s.host else s.name).strip("._")[:80]
    digest = hashlib.sha256(f"{s.name}\0{s.host}".encode()).hexdigest()[:8]
    return f"{safe or 'benchmark'}-{digest}.html"


def commit_link(commit: str | None, template: str | None) -> str:
    """A commit as HTML: linked through ``template`` (``{commit}`` replaced by the id, quoted), else text."""
    if not commit:
        return ""
    short = escape(commit[:12])
    if not template:
        return f"<code>{short}</code>"
    href = escape(template.replace("{commit}", quote(commit.removesuffix("-dirty"), safe="")), quote=True)
    return f'<a href="{href}" rel="noopener"><code>{short}</code></a>'


def _root(lang: str) -> str:
    """Where a language's pages are in the site: the first language at its root, the others in a folder."""
    return "" if lang == LANGS[0] else f"{lang}/"


def _switch(ctx: Ctx, here: str) -> str:
    """Links to the same page in every other language, each named in its own language (``here``: this
    page's path from its language's root)."""
    up = "../" * (here.count("/") + _root(ctx.lang).count("/"))
    return "".join(f'<a class="mf-lang" href="{escape(up + _root(lang) + here, quote=True)}" hreflang="{lang}">'
                   f'{escape(word("lang_name", lang))}</a>' for lang in LANGS if lang != ctx.lang)


def index_page(series: Sequence["Series"], analyses: Sequence["ChangeAnalysis"], *, lang: str, title: str | None,
               generated: str | None) -> str:
    """The site's index: every series in a row, linked to its page."""
    ctx = Ctx(lang, "mf")
    rows = []
    for s, a in zip(series, analyses):
        runs = s.table.runs
        event = runs[-1].point.event
        latest = runs[-1].point.value
        prev = None if len(runs) < 2 else latest / runs[-2].point.value - 1
        last, sign, kind = latest_change(a, runs, lang)
        cls = "" if not kind else "mf-bad" if sign > 0 else "mf-good"
        link = f'<a href="b/{escape(slug(s), quote=True)}">{escape(s.name)}</a>'
        rows.append(Row([Cell(link, None, html=True), Cell(s.host), num(len(runs), str(len(runs))),
                         num(latest, value_text(latest, event)), num(prev, "" if prev is None else f"{prev * 100:+.1f}%"),
                         Cell(last, cls=cls), Cell(runs[-1].created)]))
    cols = [Col(ctx.t("col_benchmark")), Col(ctx.t("publish_machine")), Col(ctx.t("suite_runs"), True),
            Col(ctx.t("suite_latest"), True), Col(ctx.t("vs_previous"), True), Col(ctx.t("suite_last_change")),
            Col(ctx.t("publish_latest_run"))]
    tid = ctx.id("benchmarks")
    changed = sum(1 for a in analyses if a.changes or a.drifts)
    body = (para(ctx.t("publish_index_head", n=len(series), changed=changed)) + filter_box(ctx, tid)
            + table(ctx, "benchmarks", cols, rows, table_id=tid))
    return page(ctx, title or ctx.t("publish_title"), f'<section class="mf-section">{body}</section>',
                generated=generated, header_extra=_switch(ctx, "index.html"))


def series_page(s: "Series", a: "ChangeAnalysis", *, lang: str, commit_url: str | None, title: str | None,
                generated: str | None) -> str:
    """One benchmark on one machine: its plot, its changes in words and a table of its latest runs."""
    ctx = Ctx(lang, "mf")
    runs = s.table.runs
    event = runs[-1].point.event
    values = [r.point.value for r in runs]
    cis = [r.ci for r in runs]
    ys = values + [x for ci in cis if ci for x in ci] + [x for seg in a.segments for x in (seg.low, seg.high)]
    ys = [y for y in ys if y > 0 and math.isfinite(y)]
    log = bool(ys) and max(ys) / min(ys) >= 10  # a series that spans ten times: a log axis
    plot = svg.Plot.make(list(range(len(runs))), ys, ylog=log, height=320)
    plot.polyline([(i, v) for i, v in enumerate(values)], "mf-s0")
    if len(runs) <= DOTS_UP_TO:
        for i, ci in enumerate(cis):
            if ci:
                plot.yerr(i, ci[0], ci[1], "mf-s0")
        tips = [f"#{r.id} {r.created} {(r.git_commit or '')[:12]}: {value_text(r.point.value, event)}" for r in runs]
        plot.dots([(i, v, tip) for i, (v, tip) in enumerate(zip(values, tips))], "mf-s0", r=3)
    mark_changes(plot, a)
    every = max(1, math.ceil(len(runs) / 10))
    xticks = [(i, f"#{r.id}") for i, r in enumerate(runs) if i % every == 0 or i == len(runs) - 1]
    heading = f"{s.name} · {s.host}" if s.host else s.name
    body = [figure(plot.svg(title=heading, xlabel=ctx.t("run"), ylabel=ctx.t("per_call_of", event=event) if event
                            else ctx.t("median_per_call"), yfmt=svg.si if event else svg.seconds,
                            plot_id=ctx.id("plot"), xticks=xticks), ctx.t("publish_caption"))]
    lines = changes_lines(a, runs, s.name, event, lang)
    body.append('<div class="mf-changes">' + "".join(para(x.strip()) for x in lines) + "</div>")
    if a.changes:
        rows = []
        for c in a.changes:
            r = runs[c.index]
            rows.append(Row([Cell(f"#{r.id}"), Cell(commit_link(r.git_commit, commit_url), None, html=True),
                             Cell(r.created), num(c.ratio, f"{c.ratio:.3f}x", "mf-bad" if c.ratio > 1 else "mf-good"),
                             Cell(f"{c.low:.3f}–{c.high:.3f}"), Cell(p_text(c.p_value).lstrip("= "))]))
        cols = [Col(ctx.t("run")), Col(ctx.t("git_commit")), Col(ctx.t("created")), Col(ctx.t("publish_ratio"), True),
                Col(ctx.t("ci95")), Col(ctx.t("publish_p"))]
        body.append(f"<h3>{ctx.e('publish_changes_heading')}</h3>" + table(ctx, "changes", cols, rows))
    shown = runs[-RUNS_LISTED:]
    rows = []
    for r in reversed(shown):
        v = r.point.value
        hw = None if r.ci is None else (r.ci[1] - r.ci[0]) / 2
        interval = "" if r.ci is None or event else ci_range(r.ci, hw, time_unit(v))
        rows.append(Row([Cell(f"#{r.id}", r.id), Cell(r.created), Cell(commit_link(r.git_commit, commit_url), None,
                                                                        html=True),
                         num(v, value_text(v, event, hw)), Cell(interval)]))
    cols = [Col(ctx.t("run"), True), Col(ctx.t("created")), Col(ctx.t("git_commit")),
            Col(ctx.t("per_call") if event else ctx.t("median"), True), Col(ctx.t("ci95"))]
    body.append(f"<h3>{ctx.e('publish_runs_heading', shown=len(shown), n=len(runs))}</h3>" + table(ctx, "runs", cols, rows))
    back = f'<p><a href="../index.html">{ctx.e("publish_back")}</a></p>'
    html = back + f'<section class="mf-section">{"".join(body)}</section>'
    return page(ctx, heading if title is None else f"{title}: {heading}", html, generated=generated,
                header_extra=_switch(ctx, f"b/{slug(s)}"))


def site(series: Sequence["Series"], *, commit_url: str | None = None, title: str | None = None,
         generated: str | None = None) -> dict[str, str]:
    """Every page of the dashboard, by its path in the site: ``index.html`` and ``b/<slug>`` in the first
    language (English), the same under ``zh/`` in Chinese (each other language under its code)."""
    analyses = [s.table.changes() for s in series]
    out: dict[str, str] = {}
    for lang in LANGS:
        root = _root(lang)
        out[root + "index.html"] = index_page(series, analyses, lang=lang, title=title, generated=generated)
        for s, a in zip(series, analyses):
            out[f"{root}b/{slug(s)}"] = series_page(s, a, lang=lang, commit_url=commit_url, title=title,
                                                    generated=generated)
    return out
