"""Saved runs written out for other tools (``measurefirst runs export``): ``json`` (each run whole, with its
raw samples), ``csv`` or ``markdown`` (one line per run; the median and CI columns are a measurement's, the
per-call count a count's). Text from the runs (names, labels, commits) is data: control characters are
shown as escapes, a Markdown cell's ``|`` is escaped, and a CSV cell that a spreadsheet would read as a
formula is quoted with a leading ``'`` (OWASP CSV injection)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .markdown import md_text
from .text import plain

if TYPE_CHECKING:  # pragma: no cover
    from ..results.protocol import Result
    from ..results.store import RunRow

FORMATS = ("json", "csv", "markdown", "md")
HEADER = ["id", "name", "created", "device", "device_name", "git_commit", "median_s", "ci_low_s", "ci_high_s",
          "samples", "complete", "findings", "per_call_count", "event"]
#: A CSV cell starting with one of these is read as a formula by spreadsheets.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def export(runs: Iterable[tuple["RunRow", "Result"]], fmt: str) -> str:
    """``runs`` (a store's rows with their results, as :meth:`~measurefirst.results.store.Store.iter_results`
    yields them) in the format ``fmt`` (one of :data:`FORMATS`)."""
    if fmt not in FORMATS:
        raise ValueError(f"export format must be json, csv or markdown; got {fmt!r}")
    pairs = list(runs)
    if fmt == "json":
        from ..results.safeio import strict_json

        return strict_json([{"id": r.id, "name": r.name, "git_commit": r.git_commit, **m.to_dict()}
                            for r, m in pairs], indent=2)
    from ..results.kinds import Count, Measurement

    records = [[r.id, r.name, r.created, r.device, r.device_name, r.git_commit,
                *((m.median, None if m.ci is None else m.ci[0], None if m.ci is None else m.ci[1])
                  if isinstance(m, Measurement) else (None, None, None)),
                r.n_samples, m.complete, " ".join(w.code for w in m.findings),
                *((m.per_call, m.event) if isinstance(m, Count) else (None, None))] for r, m in pairs]
    if fmt == "csv":
        import csv
        import io

        buf = io.StringIO()
        w = csv.writer(buf)
        w.writerow(HEADER)
        w.writerows([[csv_cell(x) for x in rec] for rec in records])
        return buf.getvalue()
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join("" if x is None else (f"{x:.6g}" if isinstance(x, float) else md_text(x))
                                for x in rec) + " |" for rec in records]
    return "\n".join(lines) + "\n"


def csv_cell(x: Any) -> Any:
    """A value as a CSV cell: text with its control characters shown as escapes (``\\x1b``), and a
    leading ``'`` when it would start a formula; numbers as they are."""
    if not isinstance(x, str):
        return x
    text = plain(x)
    return "'" + text if text.startswith(FORMULA_STARTS) else text
