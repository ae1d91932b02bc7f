"""Text and rich renderings of profiles and profile diffs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .text import cell, format_time, plain

if TYPE_CHECKING:  # pragma: no cover
    from rich.table import Table

    from ..profiling.capture import Profile
    from ..profiling.diff import ProfileDiff


def _bytes(n: float | None) -> str:
    if n is None:
        return ""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n:.0f} B"


def _count(c: float) -> str:
    return f"{c:.0f}" if abs(c - round(c)) < 1e-9 else f"{c:.2f}"


def op_table(p: "Profile", *, view: str = "work", sort: str = "self", limit: int | None = 25) -> "Table":
    """Full op names (never truncated), calls, self/total time, % of total, device time, FLOPs, memory."""
    from rich.table import Table

    rows = p.rows(view, sort, limit)
    total = p.total_s("top") or sum(r.self_s for r in p.rows("all")) or 1.0
    t = Table(title=cell(f"{p.label}: {view} ops per step ({p.device}, {p.steps} steps)"))
    cols = ["op", "calls", "self", "total", "% self", "device", "FLOPs", "bytes (est.)", "memory"]
    if any(r.input_shapes for r in rows):
        cols.insert(1, "input shapes")
    for c in cols:
        t.add_column(c, justify="left" if c in ("op", "input shapes") else "right", overflow="fold")
    for r in rows:
        cells: list[Any] = [cell(r.name), _count(r.calls), format_time(r.self_s), format_time(r.total_s), f"{r.self_s / total:.1%}",
                 format_time(r.device_s) if r.device_s else "", f"{r.flops:.3g}" if r.flops else "",
                 _bytes(r.bytes_est), _bytes(r.cpu_mem_bytes + r.device_mem_bytes)]
        if "input shapes" in cols:
            cells.insert(1, cell(r.input_shapes))
        t.add_row(*cells)
    return t


def kernel_table(p: "Profile", *, limit: int | None = 25) -> "Table":
    from rich.table import Table

    t = Table(title=cell(f"{p.label}: kernels per step"))
    for c in ("kernel", "launched by", "calls", "total", "mean", "library", "op", "arch", "dtype", "tile",
              "layout", "TC", "fused"):
        t.add_column(c, justify="right" if c in ("calls", "total", "mean") else "left", overflow="fold")
    from ..errors import check_limit

    check_limit(limit)
    for k in p.kernels[:limit]:
        d = k.decoded
        t.add_row(cell(k.name), cell(k.launched_by), _count(k.calls), format_time(k.total_s), format_time(k.mean_s),
                  *(cell(d.get(key) or "") for key in ("library", "op", "arch", "dtype", "tile", "layout")),
                  "" if d.get("tensor_cores") is None else ("yes" if d["tensor_cores"] else "no"),
                  cell(",".join(d.get("fused_ops") or [])))
    return t


def profile_lines(p: "Profile", *, rows: bool = True) -> list[str]:
    """The profile in lines: what one step launches and how long it takes, its top ops and kernels
    (unless ``rows`` is False, as under the tables of them), the peak memory and the trace."""
    unit = "kernels" if p.kernels else "work ops"
    lines = [f"{p.label} on {p.device}: {_count(p.work_count)} {unit} per step, one step "
             f"{format_time(p.step_s)} under the profiler"]
    for r in p.rows("work", "self", 15) if rows else ():
        lines.append(f"  {_count(r.calls):>5} x {r.name:<40} self {format_time(r.self_s):>10}"
                     + (f"  ~{_bytes(r.bytes_est)}" if r.bytes_est else ""))
    for k in p.kernels[:15] if rows else ():
        lines.append(f"  {_count(k.calls):>5} x kernel {k.name[:100]} ({k.decoded.get('library')}, "
                     f"{k.decoded.get('op')}) {format_time(k.total_s)}")
    if p.peak_device_bytes is not None:
        lines.append(f"  peak device memory {_bytes(p.peak_device_bytes)}")
    if p.trace_path:
        lines.append(f"  trace: {p.trace_path} (open in https://ui.perfetto.dev or chrome://tracing)")
    return [plain(line) for line in lines]


def diff_table(d: "ProfileDiff") -> "Table":
    from rich.table import Table

    t = Table(title=cell(f"{' vs '.join(d.labels)}: {d.unit} per step"))
    t.add_column(d.unit[:-1], overflow="fold")
    for label in d.labels:
        t.add_column(cell(f"{label} calls"), justify="right")
        t.add_column(cell(f"{label} time"), justify="right")
        if d.unit == "ops":
            t.add_column(cell(f"{label} bytes"), justify="right")
    t.add_column("only in")
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
    totals = ["total"]
    for i, p in enumerate(d.profiles):
        totals += [_count(p.work_count), format_time(sum(r.time_s[i] or 0 for r in d.rows))]
        if d.unit == "ops":
            totals.append(_bytes(sum(r.bytes_est[i] or 0 for r in d.rows)))
    totals.append("")
    t.add_row(*totals, style="bold")
    return t


def diff_lines(d: "ProfileDiff") -> list[str]:
    counts = d.counts()
    lines = [", ".join(f"{label}: {_count(c)} {d.unit}" for label, c in counts.items()) + " per step"]
    for i, label in enumerate(d.labels):
        mine = [r for r in d.rows if r.only_in() == i]
        if mine:
            lines.append(f"only in {label}: " + ", ".join(f"{r.name} x{_count(r.calls[i] or 0)}" for r in mine))
    return [plain(line) for line in lines]
