"""Tables of the command line's results that have no renderer of their own elsewhere: regression
checks of saved results, the list of saved runs, a history, decoded kernel names. Data in, rich
tables and lines of text out; nothing here measures or reads the store."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from .text import cell, format_time, format_value, plain, verdict_word

if TYPE_CHECKING:  # pragma: no cover
    from rich.table import Table

    from ..history import History
    from ..profiling.kernels import KernelInfo
    from ..regression import Regression
    from ..store import RunRow


def regression_table(r: "Regression") -> "Table":
    from rich.table import Table

    table = Table(title=cell(f"{r.base} → {r.new}"))
    for col in ("benchmark", "base", "new", "change", "verdict"):
        table.add_column(col, justify="left" if col in ("benchmark", "verdict") else "right")
    for c in r.changes:
        table.add_row(cell(c.label), format_value(c.base_median, c.unit), format_value(c.new_median, c.unit),
                      cell(c.words()), cell(*verdict_word(c, r.gate)))
    return table


def regression_lines(r: "Regression") -> list[str]:
    """The notes under the table: what makes a pair doubtful, the labels found on one side only."""
    return ([plain(f"note: {c.label}: {flag}") for c in r.changes for flag in c.flags]
            + [plain(f"note: {label} is in only one of the two") for label in r.unmatched])


def regression_failures(r: "Regression") -> list[str]:
    """One line per regression beyond the gate's threshold (for stderr)."""
    return [plain(f"regression: {c.label} is {c.words()}, beyond the {c.threshold:.1%} threshold") for c in r.failed]


def regression_text(r: "Regression") -> str:
    lines = [f"{r.base} → {r.new}"]
    lines += [f"  {c.label}: {c.words()} [{verdict_word(c, r.gate)[0]}]" for c in r.changes]
    return "\n".join(plain(x) for x in lines + regression_lines(r))


def runs_table(path: Path, rows: Sequence["RunRow"]) -> "Table":
    """The saved runs: a measurement shows its median and samples, any other kind its kind."""
    from rich.table import Table

    table = Table(title=cell(path))
    for col in ("id", "name", "created", "device", "commit", "median", "samples"):
        table.add_column(col)
    for r in rows:
        median = r.median if isinstance(r.median, (int, float)) and not isinstance(r.median, bool) else None
        size = str(r.n_samples) if r.kind in ("measurement", "count") else r.kind
        table.add_row(str(r.id), cell(r.name), cell(r.created), cell(r.device_name or r.device or ""),
                      cell((r.git_commit or "")[:12]), format_time(median) if median else "n/a",
                      cell(size + ("" if r.complete else " (incomplete)")))
    return table


def history_table(h: "History") -> "Table":
    """Every run of one name with its change against the run before; steps marked."""
    from rich.table import Table

    from ..results import Count

    flagged = set(h.steps())
    counts = any(isinstance(r.measurement, Count) for r in h.runs)
    table = Table(title=cell(f"history of {h.name}"))
    for col in ("id", "created", "commit", "per call" if counts else "median", "95% CI", "vs previous", "step"):
        table.add_column(col)
    values = [m.per_call if isinstance(m, Count) else m.median for m in h.measurements]
    for i, (r, v) in enumerate(zip(h.runs, values)):
        m = r.measurement
        ratio = v / values[i - 1] if i and values[i - 1] > 0 else math.nan
        prev = "" if i == 0 else ("n/a" if not math.isfinite(ratio) else f"{(ratio - 1) * 100:+.1f}%")
        if isinstance(m, Count):
            shown, ci = f"{v:,.0f} {m.event}", f"±{m.spread:.2%} over {m.n_repeats} repeats"
        else:
            shown = format_time(v)
            ci = "n/a" if m.ci is None else f"{format_time(m.ci[0])} – {format_time(m.ci[1])}"
        step = cell("")
        if i in flagged:
            step = cell("▲ slower", "red") if v > values[i - 1] else cell("▼ faster", "green")
        table.add_row(str(r.id), cell(r.created), cell((r.git_commit or "")[:12]), shown, ci, prev, step)
    return table


def kernel_table(infos: Sequence["KernelInfo"]) -> "Table":
    from rich.table import Table

    t = Table()
    for c in ("name", "library", "op", "arch", "dtype", "tile", "layout", "tensor cores", "fused ops"):
        t.add_column(c, overflow="fold")
    for i in infos:
        t.add_row(*(cell(getattr(i, k) or "") for k in ("name", "library", "op", "arch", "dtype", "tile", "layout")),
                  "" if i.tensor_cores is None else str(i.tensor_cores).lower(),
                  cell(",".join(str(x) for x in (i.fused_ops or ()))))
    return t
