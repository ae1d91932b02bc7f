"""The change points of a history in lines of text: its segments with their levels, the changes
between them, its drifts and the runs left out of the search (``measurefirst history NAME --changes``).
Data in (a :class:`~measurefirst.results.changepoints.ChangeAnalysis` and the runs it was read from),
lines out; nothing here measures or reads the store."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, Sequence

from ..results.changepoints import MIN_SEGMENT, WIDE
from .text import ci_range, format_time, time_unit
from .words import word

if TYPE_CHECKING:  # pragma: no cover
    from rich.table import Table

    from .svg import Plot

    from ..results.changepoints import ChangeAnalysis
    from ..results.history import HistoryTable

class RunLike(Protocol):
    """A run as these lines name it: its id and its commit (``None``: no commit known); a history's row or
    saved run."""

    @property
    def id(self) -> int: ...
    @property
    def git_commit(self) -> str | None: ...


def _run(runs: Sequence[RunLike], i: int) -> str:
    return f"#{runs[i].id}"


def value_text(v: float, event: str, half: float | None = None) -> str:
    """A run's value as the change lines and the dashboard show it: a time, or a count with its event."""
    return f"{v:,.0f} {event}" if event else format_time(v, half)


def _interval(lo: float, hi: float, event: str) -> str:
    if event:
        return f"{lo:,.0f}–{hi:,.0f} {event}"
    return ci_range((lo, hi), (hi - lo) / 2, time_unit((lo + hi) / 2))


def p_text(p: float) -> str:
    """A p-value as the change lines and the dashboard show it: ``< 0.0001``, ``= 0.0013``, ``= 0.042``."""
    return "< 0.0001" if p < 1e-4 else f"= {p:.4f}" if p < 0.01 else f"= {p:.3f}"


def _pct(x: float) -> str:
    return f"{x * 100:+.2f}%"


def mark_changes(plot: "Plot", a: "ChangeAnalysis") -> None:
    """Draw an analysis on a plot of its series (x: the run's index, from 0 to ``a.n - 1``; the y range must
    hold the segments' intervals): each segment's level (solid) and its 95% interval (dashed) over its
    runs, and a line at each change point labelled with its ratio."""
    last = max(a.n - 1, 0)
    for seg in a.segments:  # from a little before its first run to a little after its last, inside the axes
        x0, x1 = max(seg.start - 0.4, 0), min(seg.end - 0.6, last)
        plot.polyline([(x0, seg.level), (x1, seg.level)], "mf-s1")
        for edge in (seg.low, seg.high):
            plot.polyline([(x0, edge), (x1, edge)], "mf-s1", dashed=True)
    for c in a.changes:
        plot.vline(c.index - 0.5, "mf-bad" if c.ratio > 1 else "mf-good", f"{c.ratio:.3f}x", dashed=False)


def changes_lines(a: "ChangeAnalysis", runs: Sequence[RunLike], name: str, event: str = "",
                  lang: str = "en", min_segment: int = MIN_SEGMENT) -> list[str]:
    """The analysis in lines: a head, then the segments in order with the change (or the drift) between
    them, then the runs left out. ``runs``: the series' runs (their ids and commits), in order; ``event``: a
    count's event (``""`` for times)."""
    lines = [word("changes_head", lang, name=name, n=a.n, spread=f"{a.spread * 100:.2f}%")]
    if a.n < 2 * min_segment:
        lines.append(word("changes_too_short", lang, n=a.n, need=2 * min_segment))
    at = {c.index: c for c in a.changes}
    drifts = {d.start: d for d in a.drifts}
    for s in a.segments:
        c = at.get(s.start)
        if c is not None:
            commit = runs[c.index].git_commit
            lines.append(word("changes_point_slower" if c.ratio > 1 else "changes_point_faster", lang,
                              run=_run(runs, c.index), commit=(commit or "?")[:12], ratio=f"{c.ratio:.3f}",
                              low=f"{c.low:.3f}", high=f"{c.high:.3f}", p=p_text(c.p_value)))
        lines.append(word("changes_segment", lang, first=_run(runs, s.start), last=_run(runs, s.end - 1),
                          level=value_text(s.level, event, (s.high - s.low) / 2), ci=_interval(s.low, s.high, event),
                          kept=s.runs))
        d = drifts.get(s.start)
        if d is not None:
            lines.append(word("changes_drift", lang, first=_run(runs, d.start), last=_run(runs, d.end - 1),
                              per_run=_pct(d.per_run), low=_pct(d.low), high=_pct(d.high), total=f"{d.total:.3f}"))
    if not a.changes and not a.drifts and a.n >= 2 * min_segment:
        lines.append(word("changes_none", lang, m=min_segment))
    if a.left_out:
        why = {"disturbed": word("changes_why_disturbed", lang), "wide": word("changes_why_wide", lang, wide=f"{WIDE:g}")}
        lines.append(word("changes_left_out", lang, runs=", ".join(
            f"{_run(runs, i)} ({why.get(reason, reason)})" for i, reason in a.left_out)))
    return lines


def latest_change(a: "ChangeAnalysis", runs: Sequence[RunLike], lang: str) -> tuple[str, int, str]:
    """The latest change point or drift of a series in words (the suite table's and the dashboard's last
    column), its direction (1 slower, -1 faster, 0 none) and what it is (``"change"``, ``"drift"``, ``""``).
    A drift that starts at or after the latest change point is the later news."""
    if a.drifts and (not a.changes or a.drifts[-1].start >= a.changes[-1].index):
        d = a.drifts[-1]
        return (word("suite_drift", lang, per_run=_pct(d.per_run), first=f"#{runs[d.start].id}"),
                1 if d.per_run > 0 else -1, "drift")
    if a.changes:
        c = a.changes[-1]
        return (word("suite_change_slower" if c.ratio > 1 else "suite_change_faster", lang, ratio=f"{c.ratio:.3f}",
                     run=f"#{runs[c.index].id}", commit=(runs[c.index].git_commit or "?")[:12]),
                1 if c.ratio > 1 else -1, "change")
    return word("suite_no_change", lang), 0, ""


def suite_table(name: str, tables: Sequence["HistoryTable"], analyses: Sequence["ChangeAnalysis"],
                lang: str = "en") -> "Table":
    """A suite at a glance (``measurefirst history NAME`` where NAME holds ``NAME/...`` benchmarks): one row
    per benchmark with its runs, its latest value, its change against the run before, and the latest
    change point or drift of its whole series (``analyses``: each table's :meth:`HistoryTable.changes`)."""
    from rich.table import Table

    from .text import cell, columns

    table = Table(title=cell(word("suite_of", lang, name=name, n=len(tables))))
    columns(table, (("col_benchmark", "left"), ("suite_runs", "right"), ("suite_latest", "right"),
                    ("vs_previous", "right"), ("suite_last_change", "left")), lang)
    for h, a in zip(tables, analyses):
        runs = h.runs
        event = runs[-1].point.event
        latest = runs[-1].point.value
        prev = "" if len(runs) < 2 else f"{(latest / runs[-2].point.value - 1) * 100:+.1f}%"
        last, sign, kind = latest_change(a, runs, lang)
        style = None if kind != "change" else "red" if sign > 0 else "green"
        table.add_row(cell(h.name[len(name) + 1:]), str(len(runs)), value_text(latest, event), prev,
                      cell(last, style) if style else cell(last))
    return table
