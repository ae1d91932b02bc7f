"""Text and rich renderings of profiles and profile diffs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .text import cell, format_time, plain
from .words import code_word, word

if TYPE_CHECKING:  # pragma: no cover
    from rich.table import Table

    from ..results.profile import Profile
    from ..results.profile_diff import ProfileDiff


def _bytes(n: float | None) -> str:
    if n is None:
        return ""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n:.0f} B"


def _count(c: float) -> str:
    return f"{c:.0f}" if abs(c - round(c)) < 1e-9 else f"{c:.2f}"


def op_table(p: "Profile", *, view: str = "work", sort: str = "self", limit: int | None = 25,
             lang: str = "en") -> "Table":
    """Full op names (never truncated), calls, self/total time, % of total, device time, FLOPs, memory."""
    from rich.table import Table

    rows = p.rows(view, sort, limit)
    total = p.total_s("top") or sum(r.self_s for r in p.rows("all")) or 1.0
    t = Table(title=cell(word("op_title", lang, label=p.label, view=code_word("vw_", view, lang), device=p.device,
                              steps=p.steps)))
    cols = ["op", "calls", "self_time", "total_time", "pct_self", "device_time", "FLOPs", "bytes_est", "memory"]
    if any(r.input_shapes for r in rows):
        cols.insert(1, "input_shapes")
    for c in cols:
        t.add_column(word(c, lang), justify="left" if c in ("op", "input_shapes") else "right", overflow="fold")
    for r in rows:
        cells: list[Any] = [cell(r.name), _count(r.calls), format_time(r.self_s), format_time(r.total_s), f"{r.self_s / total:.1%}",
                 format_time(r.device_s) if r.device_s else "", f"{r.flops:.3g}" if r.flops else "",
                 _bytes(r.bytes_est), _bytes(r.cpu_mem_bytes + r.device_mem_bytes)]
        if "input_shapes" in cols:
            cells.insert(1, cell(r.input_shapes))
        t.add_row(*cells)
    return t


def kernel_table(p: "Profile", *, limit: int | None = 25, lang: str = "en") -> "Table":
    from rich.table import Table

    t = Table(title=cell(word("kernel_title", lang, label=p.label)))
    for c in ("kernel", "launched_by", "calls", "total_time", "mean_time", "library", "op", "arch", "dtype", "tile",
              "layout", "tc", "fused"):
        t.add_column(word(c, lang), justify="right" if c in ("calls", "total_time", "mean_time") else "left",
                     overflow="fold")
    from ..results.errors import check_limit

    check_limit(limit)
    for k in p.kernels[:limit]:
        d = k.decoded
        t.add_row(cell(k.name), cell(k.launched_by), _count(k.calls), format_time(k.total_s), format_time(k.mean_s),
                  *(cell(d.get(key) or "") for key in ("library", "op", "arch", "dtype", "tile", "layout")),
                  "" if d.get("tensor_cores") is None else word("yes" if d["tensor_cores"] else "no", lang),
                  cell(",".join(d.get("fused_ops") or [])))
    return t


def profile_lines(p: "Profile", *, rows: bool = True, lang: str = "en") -> list[str]:
    """The profile in lines: what one step launches and how long it takes, its top ops and kernels
    (unless ``rows`` is False, as under the tables of them), the peak memory and the trace."""
    unit = word("unit_kernels" if p.kernels else "unit_work_ops", lang)
    lines = [word("profile_head", lang, label=p.label, device=p.device, n=_count(p.work_count), unit=unit,
                  time=format_time(p.step_s))]
    for r in p.rows("work", "self", 15) if rows else ():
        lines.append(word("profile_op", lang, calls=f"{_count(r.calls):>5}", name=f"{r.name:<40}",
                          time=f"{format_time(r.self_s):>10}") + (f"  ~{_bytes(r.bytes_est)}" if r.bytes_est else ""))
    for k in p.kernels[:15] if rows else ():
        lines.append(word("profile_kernel", lang, calls=f"{_count(k.calls):>5}", name=k.name[:100],
                          library=k.decoded.get("library"), op=k.decoded.get("op"), time=format_time(k.total_s)))
    if p.peak_device_bytes is not None:
        lines.append(word("peak_memory_line", lang, bytes=_bytes(p.peak_device_bytes)))
    if p.trace_path:
        lines.append(word("trace_line", lang, path=p.trace_path))
    return [plain(line) for line in lines]


def diff_table(d: "ProfileDiff", lang: str = "en") -> "Table":
    from rich.table import Table

    unit = code_word("unit_", d.unit, lang)
    t = Table(title=cell(word("diff_title", lang, labels=" vs ".join(d.labels), unit=unit)))
    t.add_column(code_word("", d.unit[:-1], lang), overflow="fold")
    for label in d.labels:
        t.add_column(cell(word("calls_of", lang, label=label)), justify="right")
        t.add_column(cell(word("time_of", lang, label=label)), justify="right")
        if d.unit == "ops":
            t.add_column(cell(word("bytes_of", lang, label=label)), justify="right")
    t.add_column(word("only_in_col", lang))
    for r in d.rows:
        cells: list[Any] = [cell(r.name)]
        for i in range(len(d.labels)):
            calls, seconds = r.calls[i], r.time_s[i]
            cells += ["" if calls is None else _count(calls), "" if seconds is None else format_time(seconds)]
            if d.unit == "ops":
                cells.append(_bytes(r.bytes_est[i]))
        only = r.only_in()
        cells.append("" if only is None else cell(d.labels[only]))
        t.add_row(*cells)
    totals = [word("total_row", lang)]
    for i, p in enumerate(d.profiles):
        totals += [_count(p.work_count), format_time(sum(r.time_s[i] or 0 for r in d.rows))]
        if d.unit == "ops":
            totals.append(_bytes(sum(r.bytes_est[i] or 0 for r in d.rows)))
    totals.append("")
    t.add_row(*totals, style="bold")
    return t


def diff_lines(d: "ProfileDiff", lang: str = "en") -> list[str]:
    counts = d.counts()
    sep = word("list_comma", lang)
    unit = code_word("unit_", d.unit, lang)
    lines = [word("per_step_items", lang, items=sep.join(word("diff_count", lang, label=label, n=_count(c), unit=unit)
                                                         for label, c in counts.items()))]
    for i, label in enumerate(d.labels):
        mine = [r for r in d.rows if r.only_in() == i]
        if mine:
            lines.append(word("only_in_line", lang, label=label,
                              items=sep.join(f"{r.name} x{_count(r.calls[i] or 0)}" for r in mine)))
    return [plain(line) for line in lines]
