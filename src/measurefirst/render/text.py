"""Plain-text and rich renderings of measurements. Functions return strings or rich renderables;
they never print."""

from __future__ import annotations

import math
import unicodedata
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from .findings import finding_lines, finding_words

if TYPE_CHECKING:  # pragma: no cover
    from rich.table import Table
    from rich.text import Text

    from ..compare import Comparison
    from ..regression import Change
    from ..results import Count, Measurement
    from ..sweep import SweepResult

_UNITS = (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9))
_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
#: Bidirectional-text controls: they reorder what a terminal shows ("Trojan Source").
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")


def plain(text: object) -> str:
    """User text (a label, a statement, an op or kernel name, an error message) made safe to show:
    control characters (escape sequences, carriage returns, newlines) and bidirectional controls are
    written as visible escapes such as ``\\x1b`` and ``\\n``, so nothing reaches the terminal as a
    command. Rich markup is *not* escaped here: render such text with :func:`cell` or print it with
    ``markup=False``."""
    s = str(text)
    if s.isprintable():
        return s
    out = []
    for ch in s:
        if ch in _NAMED_ESCAPES:
            out.append(_NAMED_ESCAPES[ch])
        elif ch in _BIDI or unicodedata.category(ch) in ("Cc", "Zl", "Zp"):
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)


def cell(text: object, style: str = "") -> "Text":
    """A table cell or title holding user text as plain text: never read as rich markup
    (``[/]``, ``x[idx]`` show as typed), control characters escaped (see :func:`plain`)."""
    from rich.text import Text

    return Text(plain(text), style=style)


def pad_cells(text: str, width: int, align: str = "right") -> str:
    """``text`` padded to ``width`` terminal cells: CJK characters take two cells (rich's ``cell_len``),
    so Chinese headers line up with the numbers under them."""
    from rich.cells import cell_len

    gap = " " * max(0, width - cell_len(text))
    return gap + text if align == "right" else text + gap


def time_unit(seconds: float) -> tuple[str, float]:
    """The unit in which ``seconds`` reads as 1 to 999: ``("ms", 1e-3)`` for 0.0042."""
    if not math.isfinite(seconds) or seconds == 0:
        return "s", 1.0
    for name, scale in _UNITS:
        if abs(seconds) >= scale:
            return name, scale
    return "ns", 1e-9


def decimals_for(value: float, half_width: float | None, *, default_sig: int = 4) -> int:
    """Decimal places (in ``value``'s own unit) that show two significant figures of the CI
    half-width, so the digits printed are the digits the measurement supports."""
    if half_width is None or not math.isfinite(half_width) or half_width <= 0:
        magnitude = math.floor(math.log10(abs(value))) if value else 0
        return max(0, default_sig - 1 - magnitude)
    lead = math.floor(math.log10(half_width))
    return max(0, 1 - lead)


def format_time(seconds: float, half_width: float | None = None, unit: tuple[str, float] | None = None) -> str:
    """``0.0012345`` with half-width ``0.000004`` → ``"1.2345 ms"``-style text with digits that
    match the uncertainty (4 significant figures when it is unknown)."""
    if seconds is None or not math.isfinite(seconds):
        return "n/a"
    name, scale = unit or time_unit(seconds)
    value = seconds / scale
    hw = None if half_width is None else half_width / scale
    places = min(decimals_for(value, hw), 6)
    return f"{value:.{places}f} {name}"


def format_value(value: float, unit: str) -> str:
    """A time (``unit="seconds"``) as :func:`format_time`, or a count per call: ``"444,360 instructions"``."""
    if unit == "seconds":
        return format_time(value)
    return "n/a" if value is None or not math.isfinite(value) else f"{value:,.0f} {unit}"


def format_relative(fraction: float) -> str:
    if not math.isfinite(fraction):
        return "n/a"
    return f"{fraction:.1%}" if fraction >= 0.001 else f"{fraction:.2%}"


def ci_range(ci: tuple[float, float], half_width: float | None, unit: tuple[str, float]) -> str:
    """``"260.78–262.48 µs"``: both ends in one unit, with the digits the half-width supports."""
    lo, hi = (format_time(x, half_width, unit).rsplit(" ", 1)[0] for x in ci)
    return f"{lo}–{hi} {unit[0]}"


def ci_text(m: "Measurement") -> str:
    ci = m.ci
    if ci is None:
        return "CI n/a (too few samples)"
    unit = time_unit(m.median)
    hw = (ci[1] - ci[0]) / 2
    return f"95% CI {ci_range(ci, hw, unit)}"


def measurement_line(m: "Measurement") -> str:
    """One-paragraph summary: ``"matmul: 1.234 ms ±0.4% (95% CI …), median of 412 samples × 3 calls [cpu, wall]"``."""
    if m.summary is None:
        return plain(f"{m.label}: no samples{'' if m.complete else ' (interrupted)'} [{m.device}, {m.timer}]")
    ci = m.ci
    hw = None if ci is None else (ci[1] - ci[0]) / 2
    numbers = sorted(set(m.numbers))
    calls = f"{numbers[0]} call{'s' if numbers[0] != 1 else ''}" if len(numbers) == 1 else f"{numbers[0]}-{numbers[-1]} calls"
    used = m.n_used
    parts = [f"{m.label}: {format_time(m.median, hw)}"]
    if ci is not None:
        parts.append(f" ±{format_relative(m.ci_half_width_rel)} ({ci_text(m)})")
    parts.append(f", median of {used} samples × {calls} [{m.device}, {m.timer}]")
    if m.n_samples != used:
        parts.append(f"; {m.n_samples - used} preempted samples set aside")
    if m.host_median is not None:
        parts.append(f"; host launch {format_time(m.host_median)} per call")
    if not m.complete:
        parts.append(" — INCOMPLETE (interrupted)")
    lines = ["".join(parts)]
    lines += reference_lines(m)
    lines += ["  " + line for line in finding_lines(sorted(m.findings, key=lambda f: f.severity == "info"))]
    return "\n".join(plain(line) for line in lines)


def reference_lines(m: "Measurement") -> list[str]:
    """The experimental speed reference, in words (nothing without one)."""
    if m.reference is None:
        return []
    norm = m.normalized
    if norm is None:
        return [f"  speed reference ({m.reference.label}, experimental): no usable reference samples"]
    state = "two speeds seen" if norm.two_speeds else "one speed seen"
    return [f"  speed reference ({m.reference.label}, experimental): {format_time(norm.median)} normalized to the "
            f"machine's fast state; median speed factor {norm.speed_factor:.3f} ({state}; raw median "
            f"{format_time(m.median)})"]


def count_line(c: "Count") -> str:
    """``"loop: 444,360 instructions per call (±0.03% over 3 repeats × 10 calls) [cpu, callgrind]"``."""
    if not c.counts:
        return f"{c.label}: no counts [{c.device}, {c.backend}]"
    lines = [f"{c.label}: {c.per_call:,.0f} {c.event} per call (±{format_relative(c.spread)} over {c.n_repeats} "
             f"repeats × {c.calls} calls) [{c.device}, {c.backend}]"]
    lines += ["  " + line for line in finding_lines(c.findings)]
    return "\n".join(plain(line) for line in lines)


def count_table(counts: Iterable["Count"], *, title: str | None = None) -> "Table":
    """A rich table with one row per count: events per call, the repeats' spread, how they were counted."""
    from rich.table import Table

    table = Table(title=title, show_lines=False)
    for col, justify in (("benchmark", "left"), ("per call", "right"), ("event", "left"), ("±", "right"),
                         ("min", "right"), ("max", "right"), ("repeats", "right"), ("calls/repeat", "right"),
                         ("backend", "left")):
        table.add_column(col, justify=justify)  # type: ignore[arg-type]
    for c in counts:
        if not c.counts:
            table.add_row(c.label, "n/a", c.event, "", "", "", "0", str(c.calls), c.backend)
            continue
        per = c.per_call_counts
        table.add_row(c.label, f"{c.per_call:,.0f}", c.event, format_relative(c.spread), f"{min(per):,.0f}",
                      f"{max(per):,.0f}", str(c.n_repeats), str(c.calls), c.backend)
    return table


def measurement_table(measurements: Iterable["Measurement"], *, title: str | None = None) -> "Table":
    """A rich table with one row per measurement: median, CI, spread, samples, how they were taken."""
    from rich.table import Table

    table = Table(title=None if title is None else cell(title), show_lines=False)
    for col, justify in (("benchmark", "left"), ("median", "right"), ("95% CI", "right"), ("±", "right"),
                         ("IQR", "right"), ("min", "right"), ("mean", "right"), ("samples", "right"),
                         ("calls/sample", "right"), ("warm-up", "right"), ("device/timer", "left")):
        table.add_column(col, justify=justify)  # type: ignore[arg-type]
    for m in measurements:
        if m.summary is None:
            table.add_row(cell(m.label), "n/a", "", "", "", "", "", "0", "", "", cell(f"{m.device}/{m.timer}"))
            continue
        unit = time_unit(m.median)
        ci = m.ci
        hw = None if ci is None else (ci[1] - ci[0]) / 2
        ci_cell = "n/a" if ci is None else ci_range(ci, hw, unit)
        numbers = sorted(set(m.numbers))
        warm = "" if m.warmup is None else f"{m.warmup.calls} calls"
        label = m.label + ("" if m.complete else " (incomplete)")
        samples = f"{m.n_used}" + (f" (+{m.n_samples - m.n_used} preempted)" if m.n_samples != m.n_used else "")
        table.add_row(
            cell(label), format_time(m.median, hw, unit), ci_cell, format_relative(m.ci_half_width_rel),
            format_time(m.iqr, None, unit), format_time(m.min, hw, unit), format_time(m.mean, hw, unit),
            samples, str(numbers[0]) if len(numbers) == 1 else f"{numbers[0]}-{numbers[-1]}", warm,
            cell(f"{m.device}/{m.timer}"),
        )
    return table


def comparison_lines(c: "Comparison") -> list[str]:
    """The verdicts in words, one line per candidate, then how the comparison stopped."""
    lines = []
    for v in c.verdicts:
        if v.verdict == "baseline":
            continue
        relation = " than " if v.verdict in ("faster", "slower") else " against "
        lines.append(plain(f"{v.label}: {v.words()}{relation}{v.baseline} — {v.ci_words()}, "
                           f"{v.rounds} interleaved rounds"))
    state = "" if c.complete else " — INCOMPLETE (interrupted)"
    lines.append(f"stopped by {c.stop.reason} after {c.stop.seconds:.2f} s "
                 f"({'every verdict settled' if c.stop.target_met else 'not every verdict settled'}){state}")
    return lines


def comparison_table(c: "Comparison", *, title: str | None = None) -> "Table":
    """One row per candidate: median and CI, the speed-up against the baseline with its CI, the verdict."""
    from rich.table import Table

    table = Table(title=None if title is None else cell(title))
    for col, justify in (("candidate", "left"), ("median", "right"), ("95% CI", "right"),
                         (cell("vs " + c.baseline), "right"), ("speed-up 95% CI", "right"), ("verdict", "left")):
        table.add_column(col, justify=justify)  # type: ignore[arg-type]
    best = min((m.median for m in c.measurements), default=math.nan)
    marked = False
    for m, v in zip(c.measurements, c.verdicts):
        unit = time_unit(m.median)
        ci = m.ci
        hw = None if ci is None else (ci[1] - ci[0]) / 2
        style = _relative_style(m.median / best if best > 0 else math.nan)
        # the speed-up and its CI, on one scale
        speedup_ci = "" if v.speedup_ci is None or v.verdict == "baseline" else f"{v.speedup_ci[0]:.4f}–{v.speedup_ci[1]:.4f}"
        vs = "baseline" if v.verdict == "baseline" else f"{v.speedup:.3f}x"
        mark = " !" if point_issues(m) else ""
        marked = marked or bool(mark)
        table.add_row(cell(m.label + mark), cell(format_time(m.median, hw, unit), style),
                      "n/a" if ci is None else ci_range(ci, hw, unit), vs, speedup_ci, cell(v.words()))
    if marked:
        table.caption = MARK_CAPTION
    return table


#: Caption of a table with ``!`` marks; the marked rows' issues are listed after the table.
MARK_CAPTION = "! = read with care: warnings, preempted samples set aside or the precision target not met (listed below)"


def point_issues(m: "Measurement") -> list[str]:
    """Why a measurement deserves a ``!`` mark: its warnings (not notes), preempted samples set aside,
    a precision target not met, or an incomplete run. Empty when it reads clean."""
    issues = [f"{f.code}: {finding_words(f).message}" for f in m.findings if f.severity != "info"]
    if m.n_preempted and m.n_used != m.n_samples:
        issues.append(f"{m.n_samples - m.n_used} of {m.n_samples} samples preempted by the OS and set aside")
    if m.summary is not None and not m.stop.target_met and m.stop.reason not in ("trials", "max_samples"):
        issues.append(f"precision target ±{m.stop.precision:.1%} not met "
                      f"(±{format_relative(m.ci_half_width_rel)}, stopped by {m.stop.reason})")
    if not m.complete:
        issues.append("incomplete (interrupted or failed)")
    return issues


def issue_lines(measurements: Iterable["Measurement"]) -> list[str]:
    """``label: issue`` for every ``!``-marked measurement (see :func:`point_issues`)."""
    return [plain(f"! {m.label}: {issue}") for m in measurements for issue in point_issues(m)]


def _relative_style(ratio: float) -> str:
    """Colour against the best: green for the best, yellow within 10%, red beyond 50%."""
    if not math.isfinite(ratio):
        return "default"
    if ratio <= 1.0 + 1e-12:
        return "bold green"
    if ratio <= 1.1:
        return "green"
    if ratio <= 1.5:
        return "yellow"
    return "red"


def grid_table(cells: "Mapping[tuple[str, str], Measurement]", *, title: str | None = None,
               row_name: str = "") -> "Table":
    """A torch.utils.benchmark-style table: rows x columns (e.g. implementation x size), each cell
    the median with its CI half-width, coloured against the best of its column; ``!`` marks a cell
    whose measurement carries warnings."""
    from rich.table import Table

    rows: list[str] = []
    cols: list[str] = []
    for r, c in cells:
        if r not in rows:
            rows.append(r)
        if c not in cols:
            cols.append(c)
    table = Table(title=None if title is None else cell(title))
    table.add_column(cell(row_name))
    for c in cols:
        table.add_column(cell(c), justify="right")
    best = {c: min((m.median for (r2, c2), m in cells.items() if c2 == c and m.summary is not None),
                   default=math.nan) for c in cols}
    marked = False
    for r in rows:
        out: list[Any] = [cell(r)]
        for c in cols:
            m = cells.get((r, c))
            if m is None or m.summary is None:
                out.append("")
                continue
            ci = m.ci
            hw = None if ci is None else (ci[1] - ci[0]) / 2
            mark = " !" if point_issues(m) else ""
            marked = marked or bool(mark)
            style = _relative_style(m.median / best[c] if best[c] > 0 else math.nan)
            text = cell(format_time(m.median, hw), style)
            text.append(f" ±{format_relative(m.ci_half_width_rel)}{mark}")
            out.append(text)
        table.add_row(*out)
    if marked:
        table.caption = MARK_CAPTION
    return table


def sweep_table(result: "SweepResult", label: str | None = None) -> "Table":
    """The lecture's table for one implementation: n, time, relative to the reference size, the
    work ratio, throughput, intensity and the roofline class."""
    from rich.table import Table

    from ..errors import FitError

    series = result.series(label)
    name = series[0].label if series else (label or "")
    overhead = None
    try:
        overhead = result.fit(name).t0
    except FitError:
        pass
    table = Table(title=cell(f"{name} on {result.device}"))
    cols = ["n", "time", "±", f"vs n={result.reference}", "work ratio", "GFLOP/s", "GB/s", "FLOP/B", "bound",
            "of roof"]
    for col in cols:
        table.add_column(cell(col), justify="left" if col in ("bound",) else "right")
    marked = False
    for p in series:
        if not p.ok:
            table.add_row(str(p.n), cell("failed", "red"), "", "", "", "", "", "", cell(p.error or ""), "")
            continue
        m = p.measurement
        assert m is not None
        mark = " !" if point_issues(m) else ""
        marked = marked or bool(mark)
        rel, work = result.relative(p)
        b = result.bound(p, overhead)
        table.add_row(
            str(p.n), format_time(m.median, None if m.ci is None else (m.ci[1] - m.ci[0]) / 2) + mark,
            format_relative(m.ci_half_width_rel), "" if rel is None else f"{rel:.3g}x",
            "" if work is None else f"{work:.3g}x",
            "" if p.flops_per_s is None else f"{p.flops_per_s / 1e9:.3g}",
            "" if p.bytes_per_s is None else f"{p.bytes_per_s / 1e9:.3g}",
            "" if p.intensity is None else f"{p.intensity:.3g}",
            "" if b.kind == "unknown" else b.kind, "" if b.fraction is None else f"{b.fraction:.0%}",
        )
    if marked:
        table.caption = MARK_CAPTION
    return table


def sweep_lines(result: "SweepResult", *, points: bool = True) -> list[str]:
    """Plain-text summary: per implementation, each point (unless ``points`` is False, as under a
    table of them), the fitted model and the complexity class."""
    from ..errors import FitError

    lines = []
    if result.peaks is not None:
        lines.append(f"peaks: {result.peaks}")
    for label in result.labels:
        lines.append(plain(f"{label}:"))
        for p in result.series(label) if points else ():
            if not p.ok:
                lines.append(plain(f"  n={p.n}: failed — {p.error}"))
                continue
            rel, work = result.relative(p)
            extra = "" if rel is None else f", {rel:.3g}x the n={result.reference} time"
            extra += "" if work is None else f" (work {work:.3g}x)"
            extra += "" if p.flops_per_s is None else f", {p.flops_per_s / 1e9:.3g} GFLOP/s"
            extra += "" if p.bytes_per_s is None else f", {p.bytes_per_s / 1e9:.3g} GB/s"
            issues = point_issues(p.measurement) if p.measurement is not None else []
            extra += "" if not issues else " ! " + "; ".join(issues)
            lines.append(plain(f"  n={p.n}: {format_time(p.seconds)}{extra}"))
        try:
            f = result.fit(label)
            lines.append(f"  fit: {f}")
        except FitError as exc:
            lines.append(f"  fit: none — {exc}")
        try:
            lines.append(f"  complexity: {result.complexity(label)}")
        except FitError:
            pass
    if not result.complete:
        lines.append("INCOMPLETE (interrupted): the sizes above are the ones that finished")
    return lines


def verdict_word(c: "Change", gate: bool) -> tuple[str, str]:
    """The verdict of a saved-baseline comparison (:meth:`Change.verdict`) and its style, as
    ``measurefirst compare`` shows it."""
    return {"regression": ("REGRESSION", "bold red"), "slower": ("slower", "red"), "faster": ("faster", "green"),
            "same": ("same", "")}[c.verdict(gate)]
