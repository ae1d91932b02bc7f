"""User text made safe to show in a terminal, and times, values and bandwidths written in their units: the
formatting every text renderer shares. Functions return strings or rich text; they never print."""

from __future__ import annotations

import math
import unicodedata
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from rich.text import Text

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


def html_escape(text: object, quote: bool = True) -> str:
    """Text for an HTML page (the report, a published page, an SVG chart): ``html.escape``'s entities, and
    control characters other than newlines and tabs (escape sequences, a bell: raw bytes a terminal that
    shows the file would obey) and bidirectional controls as visible escapes, as :func:`plain` writes
    them."""
    from html import escape

    s = str(text)
    if not s.isprintable():
        s = "".join(ch if ch in "\n\t" else plain(ch) for ch in s)
    return escape(s, quote=quote)


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


def gbps(bytes_per_s: float | None) -> str:
    """A bandwidth in GB/s with four significant digits (``1.000``, ``0.0003412``: never ``0.000``); ``—`` when
    not measured, ``n/a`` when not finite."""
    if bytes_per_s is None:
        return "—"
    if not math.isfinite(bytes_per_s):
        return "n/a"
    text = f"{bytes_per_s / 1e9:#.4g}"
    return text[:-1] if text.endswith(".") else text


def format_relative(fraction: float) -> str:
    if not math.isfinite(fraction):
        return "n/a"
    return f"{fraction:.1%}" if fraction >= 0.001 else f"{fraction:.2%}"
