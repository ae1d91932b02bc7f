"""Tables of the command line's results that have no renderer of their own elsewhere: regression
checks of saved results, the list of saved runs, a history, decoded kernel names. Data in, rich
tables and lines of text out; nothing here measures or reads the store."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from .text import cell, ci_range, columns, format_time, format_value, plain, time_unit, verdict_word
from .gate import level_lines, spread_lines, undecided_lines
from .words import change_words, code_word, flag_words, word

if TYPE_CHECKING:  # pragma: no cover
    from rich.table import Table

    from ..results.comparison import Verdict
    from ..results.history import History, HistoryTable, SavedRun
    from ..results.kernel import KernelInfo
    from ..results.regression import Regression
    from typing_extensions import TypeIs

    from ..results.kinds import Count, Measurement
    from ..results.store import RunRow


def regression_table(r: "Regression", lang: str = "en") -> "Table":
    from rich.table import Table

    table = Table(title=cell(f"{r.base} → {r.new}"))
    columns(table, (("col_benchmark", "left"), ("col_base", "right"), ("col_new", "right"), ("col_change", "right"),
                    ("verdict", "left")), lang)
    for c in r.changes:
        table.add_row(cell(c.label), format_value(c.base_median, c.unit), format_value(c.new_median, c.unit),
                      cell(change_words(c, lang)), cell(*verdict_word(c, r.gate, lang)))
    return table


def regression_lines(r: "Regression", lang: str = "en") -> list[str]:
    """The notes under the table: why a change is undecided, the run-to-run spread the intervals
    include, what makes a pair doubtful, the labels found on one side only."""
    from .findings import finding_lines

    return ([plain(x) for x in undecided_lines(r.changes, lang)] + spread_lines(r.changes, lang) + level_lines(r.changes, lang)
            + [plain(word("note_flag", lang, label=c.label, flag=flag_words(c, flag, lang)))
               for c in r.changes for flag in c.flags]
            + [plain(word("note_unmatched", lang, label=label)) for label in r.unmatched]
            + finding_lines(r.findings, lang))


def regression_failures(r: "Regression", lang: str = "en") -> list[str]:
    """One line per regression beyond the gate's threshold, then each error-severity finding (a busbw drop, a
    new straggler), then how many changes were undecided (for stderr)."""
    from .findings import finding_line

    errors = [f for f in r.findings if f.severity == "error"] if r.gate else []
    return [plain(word("regression_line", lang, label=c.label, words=change_words(c, lang),
                       threshold=f"{c.threshold:.1%}")) for c in r.failed] + [finding_line(f, lang) for f in errors] + (
        [word("undecided_count", lang, n=len(r.undecided))] if r.gate and r.undecided and not r.failing else [])


def slower_lines(slow: Sequence["Verdict"], lang: str = "en") -> list[str]:
    """One line per candidate of a live comparison slower than its baseline beyond the gate (for stderr)."""
    from .words import verdict_words

    return [plain(word("slower_line", lang, label=v.label, words=verdict_words(v, lang), baseline=v.baseline))
            for v in slow]


def regression_text(r: "Regression", lang: str = "en") -> str:
    lines = [f"{r.base} → {r.new}"]
    lines += [f"  {c.label}: {change_words(c, lang)} [{verdict_word(c, r.gate, lang)[0]}]" for c in r.changes]
    return "\n".join(plain(x) for x in lines + regression_lines(r, lang))


def runs_table(path: Path | str, rows: Sequence["RunRow"], lang: str = "en") -> "Table":
    """The saved runs, each with its kind; a measurement also shows its median and samples."""
    from rich.table import Table

    table = Table(title=cell(path))
    columns(table, (("col_id", "left"), ("name", "left"), ("col_kind", "left"), ("created", "left"),
                    ("device", "left"), ("commit", "left"), ("median", "left"), ("samples_col", "left")), lang)
    for r in rows:
        median = r.median if isinstance(r.median, (int, float)) and not isinstance(r.median, bool) else None
        size = str(r.n_samples) if r.kind in ("measurement", "count") else ""
        table.add_row(str(r.id), cell(r.name), cell(code_word("kind_", r.kind, lang)), cell(r.created),
                      cell(r.device_name or r.device or ""), cell((r.git_commit or "")[:12]),
                      format_time(median) if median else "",
                      cell(size + ("" if r.complete else word("incomplete_paren", lang))))
    return table


def imported_line(path: "Path | str", found: Sequence[tuple["Measurement", Path]], names: Sequence[str], ids: Sequence[int],
                  skipped: int, prefix: str | None = None, lang: str = "en") -> str:
    """What ``runs import`` saved: how many runs of which benchmarks (``names``, one per entry of ``found``),
    from which tool, and what to run next."""
    distinct = list(dict.fromkeys(names))
    tools = sorted({m.imported.source for m, _ in found if m.imported is not None})
    text = word("imported_runs", lang, n=len(ids), k=len(distinct), files=len({p for _, p in found}),
                tool=", ".join(tools), store=path, names=", ".join(distinct[:5]) + (" …" if len(distinct) > 5 else ""))
    text += word("imported_skipped", lang, n=skipped) if skipped else ""
    text += (word("imported_next_prefix", lang, prefix=prefix) if prefix
             else word("imported_next", lang, first=distinct[0]))
    return plain(text)


def _is_count(m: Any) -> "TypeIs[Count]":
    """Whether a saved result is an instruction count (else a time measurement)."""
    return getattr(m, "kind", None) == "count"


def history_table(h: "HistoryTable", lang: str = "en") -> "Table":
    """Every run of one name with its change against the run before; steps marked. From the rows alone
    (:class:`~measurefirst.results.history.HistoryTable`: read from the store's columns, or
    ``History.table()``)."""
    from rich.table import Table

    flagged = set(h.steps())
    counts = any(r.point.event for r in h.runs)
    table = Table(title=cell(word("history_of", lang, name=h.name)))
    columns(table, (("col_id", "left"), ("created", "left"), ("commit", "left"),
                    ("per_call" if counts else "median", "left"), ("ci95", "left"), ("vs_previous", "left"),
                    ("step_col", "left")), lang)
    values = [r.point.value for r in h.runs]
    for i, (r, v) in enumerate(zip(h.runs, values)):
        ratio = v / values[i - 1] if i and values[i - 1] > 0 else math.nan
        prev = "" if i == 0 else ("n/a" if not math.isfinite(ratio) else f"{(ratio - 1) * 100:+.1f}%")
        if r.point.event:
            shown, ci = f"{v:,.0f} {r.point.event}", word("spread_over", lang, spread=f"{r.spread:.2%}", n=r.n)
        else:
            # the digits the interval supports, as every other view of a measurement shows it
            hw = None if r.ci is None else (r.ci[1] - r.ci[0]) / 2
            shown = format_time(v, hw)
            ci = "n/a" if r.ci is None else ci_range(r.ci, hw, time_unit(v))
        step = cell("")
        if i in flagged:
            step = cell(word("step_slower", lang), "red") if v > values[i - 1] else cell(word("step_faster", lang), "green")
        table.add_row(str(r.id), cell(r.created), cell((r.git_commit or "")[:12]), shown, ci, prev, step)
    return table


def saved_run_line(r: "SavedRun", lang: str = "en") -> str:
    """``#3 matmul (2026-01-01 00:00:00): matmul: 1.234 ms ...``: a saved run and its result in one line."""
    from .text import count_line, measurement_line

    m = r.measurement
    line = count_line(m, lang) if _is_count(m) else measurement_line(m, lang)
    return word("saved_run_line", lang, id=r.id, name=r.name, created=r.created, line=line)


def history_lines(h: "History", lang: str = "en") -> list[str]:
    """Every run of one name in a line: its median (``0.00123 s``) or count per call, steps marked."""
    flagged = set(h.steps())
    lines = [word("history_head", lang, name=h.name, n=len(h.runs))]
    for i, r in enumerate(h.runs):
        m = r.measurement
        shown = f"{m.per_call:,.0f} {m.event}" if _is_count(m) else f"{m.median:.6g} s"
        lines.append(word("history_run", lang, id=r.id, created=r.created, value=shown)
                     + (word("history_step_mark", lang) if i in flagged else ""))
    return lines


def kernel_table(infos: Sequence["KernelInfo"], lang: str = "en") -> "Table":
    from rich.table import Table

    t = Table()
    for key in ("name", "library", "op", "arch", "dtype", "tile", "layout", "tensor_cores", "fused_ops"):
        t.add_column(word(key, lang), overflow="fold")
    for i in infos:
        t.add_row(*(cell(getattr(i, k) or "") for k in ("name", "library", "op", "arch", "dtype", "tile", "layout")),
                  "" if i.tensor_cores is None else str(i.tensor_cores).lower(),
                  cell(",".join(str(x) for x in (i.fused_ops or ()))))
    return t
