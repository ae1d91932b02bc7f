"""How every part of the lecture shows a measured number: what a demo returns, its table cells, its
interval in words, and a mark with the reason on each number the machine disturbed."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from measurefirst.results.kinds import Measurement
from measurefirst.render.findings import title as finding_title
from measurefirst.render.text import interval_rel, pad_cells, plain
from measurefirst.render.words import word

from .narration import say

Emit = Callable[[str], None]


@dataclass
class DemoResult:
    name: str
    data: dict[str, Any] = field(default_factory=dict)


def _ci(m: Measurement, pm: bool = False) -> str:
    """A table cell: the headline interval's relative half-width (where the next run may land), ``2.2%``
    (``±2.2%`` with ``pm``); where its two sides differ, as every output shows them (``-31%/+45%``)."""
    if not math.isfinite(m.ci_half_width_rel):
        return "n/a"
    return interval_rel(m, pm=pm)


def _ci_words(m: Measurement, lang: str) -> str:
    """The headline interval in words, saying which it is: run to run (with this run's precision in it),
    or this run's precision alone."""
    r, p = m.ci_half_width_rel, m.precision_half_width_rel
    if not math.isfinite(r):
        return say("ci.na", lang)
    if m.ci_includes_run_to_run:
        return say("ci.run_to_run", lang, rel=_ci(m, pm=True), prec="n/a" if not math.isfinite(p) else f"{p:.1%}")
    return say("ci.precision", lang, rel=_ci(m, pm=True))


def _pct(share: float) -> str:
    """A share as the lecture shows it, in tables and in sentences alike: ``59%`` (``n/a`` when unknown)."""
    return "n/a" if not math.isfinite(share) else f"{share:.0%}"


def interval_kind(ms: Sequence[Measurement]) -> str:
    """Which interval a column of headline CIs shows: ``run_to_run``, ``precision`` or ``mixed``."""
    kinds = {m.ci_includes_run_to_run for m in ms}
    return "mixed" if len(kinds) > 1 else "run_to_run" if kinds == {True} else "precision"


def _ci_cell(m: Measurement, kind: str) -> str:
    """A table cell of the headline interval; in a mixed column, this run's precision is marked ``*``."""
    cell = _ci(m)
    return cell + "*" if kind == "mixed" and not m.ci_includes_run_to_run and cell != "n/a" else cell


def _row(cells: Sequence[str], widths: Sequence[int], left: int = 0) -> str:
    """One table line; the first ``left`` columns are left-aligned, widths in display cells."""
    return "  ".join(pad_cells(c, w, "left" if i < left else "right") for i, (c, w) in enumerate(zip(cells, widths)))


# ---- marks: a number the machine disturbed ------------------------------------------------------

def issue_codes(m: Measurement) -> list[str]:
    """Why a measurement deserves a ``!``: its warning codes (not notes), preempted samples set aside,
    the precision target not met, an incomplete run (the same reasons as ``point_issues``, as codes)."""
    codes = [f.code for f in m.findings if f.severity != "info"]
    if m.n_preempted and m.n_used != m.n_samples and "preempted" not in codes:
        codes.append("preempted")
    if (m.summary is not None and not m.stop.target_met and m.stop.reason not in ("trials", "max_samples")
            and "precision_not_met" not in codes):
        codes.append("precision_not_met")
    if not m.complete and "incomplete" not in codes:
        codes.append("incomplete")
    return codes


def issue_words(m: Measurement, lang: str) -> str:
    parts = []
    for code in issue_codes(m):
        if code == "preempted":
            set_aside = m.n_samples - m.n_used
            parts.append(say("issue.preempted", lang, k=set_aside, n=m.n_samples) if set_aside else
                         say("issue.preempted_kept", lang, k=m.n_preempted, n=m.n_samples))
        else:
            parts.append(plain(finding_title(code, lang)))
    return word("list_sep", lang).join(parts)


def mark_lines(items: Sequence[tuple[str, Measurement]], lang: str) -> list[str]:
    """``! what: read with care — why.`` for each disturbed measurement, then the fix once."""
    lines = [say("marked", lang, what=what, why=issue_words(m, lang)) for what, m in items if issue_codes(m)]
    if lines:
        lines.append(say("disturbed", lang))
    return lines


def _mark(m: Measurement) -> str:
    return " !" if issue_codes(m) else ""
