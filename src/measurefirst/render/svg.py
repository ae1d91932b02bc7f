"""A small SVG plotting kit for the HTML report: scales, ticks, axes, marks. No matplotlib.

Plots are strings of inline SVG with a ``viewBox`` and a size, so they scale with the page. Colours
come from CSS classes (``mf-s0`` … ``mf-s7`` for series, ``mf-axis``, ``mf-grid`` …) that the
report's stylesheet sets for light and dark themes; nothing here names a colour.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass, field
from .text_format import html_escape as escape
from typing import Callable, Iterable, Sequence

Formatter = Callable[[float], str]
#: Series classes cycle through this many colours.
SERIES_COLOURS = 8


def _num(v: float) -> str:
    """A coordinate with at most one decimal: short SVG."""
    r = round(v, 1)
    return str(int(r)) if r == int(r) else f"{r:.1f}"


def si(value: float, unit: str = "") -> str:
    """``1.5e9`` → ``"1.5 G"`` + unit; three significant figures."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}{(' ' + unit) if unit else ''}"
    for prefix, scale in (("P", 1e15), ("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3), ("", 1.0),
                          ("m", 1e-3), ("µ", 1e-6), ("n", 1e-9)):
        if abs(value) >= scale:
            text = f"{value / scale:.3g}"
            return f"{text} {prefix}{unit}".rstrip() if (prefix or unit) else text
    return f"{value:.3g}{(' ' + unit) if unit else ''}"


def seconds(value: float) -> str:
    """Tick label for a time in seconds: ``"250 µs"``."""
    return si(value, "s")


def plain(value: float) -> str:
    """Tick label for a count or size: ``1024``, ``1.5e+06`` → ``1.5M``."""
    if abs(value) >= 1e5:
        return si(value)
    return f"{value:g}"


def ratio(value: float) -> str:
    return f"{value:.3g}×"


@dataclass
class Scale:
    """Maps data values in [lo, hi] (linear or log10) to pixels in [a, b]."""

    lo: float
    hi: float
    a: float
    b: float
    log: bool = False

    def __post_init__(self) -> None:
        if self.log:
            self.lo = max(self.lo, 1e-300)
            self.hi = max(self.hi, self.lo * 1.0001)
        if not self.hi > self.lo:
            pad = abs(self.lo) * 0.1 or 1.0
            self.lo, self.hi = self.lo - pad, self.hi + pad
            if self.log and self.lo <= 0:
                self.lo = self.hi / 100

    def __call__(self, v: float) -> float:
        if self.log:
            v = max(v, 1e-300)
            t = (math.log10(v) - math.log10(self.lo)) / (math.log10(self.hi) - math.log10(self.lo))
        else:
            t = (v - self.lo) / (self.hi - self.lo)
        return self.a + t * (self.b - self.a)

    def ticks(self, count: int = 5) -> list[float]:
        return log_ticks(self.lo, self.hi) if self.log else linear_ticks(self.lo, self.hi, count)


def linear_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    """Round-numbered ticks (1, 2, 5 × 10^k steps) inside [lo, hi]."""
    span = hi - lo
    if span <= 0 or not math.isfinite(span):
        return [lo]
    raw = span / max(count, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step - 1e-9) * step
    out = []
    v = first
    while v <= hi + step * 1e-9:
        out.append(0.0 if abs(v) < step * 1e-9 else v)
        v += step
    return out


def log_ticks(lo: float, hi: float) -> list[float]:
    """Powers of ten inside [lo, hi]; with 1, 2 and 5 multiples when the range spans under two decades."""
    a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    mults = (1.0,) if b - a > 2 else (1.0, 2.0, 5.0)
    out = [m * 10.0**e for e in range(a, b + 1) for m in mults if lo * (1 - 1e-9) <= m * 10.0**e <= hi * (1 + 1e-9)]
    if len(out) < 2:  # less than one decade and no round number inside: the ends
        out = sorted(set(out) | {lo, hi})
    if len(out) > 8:
        keep = math.ceil(len(out) / 8)
        out = out[::keep]
    return out


def padded(values: Iterable[float], log: bool, pad: float = 0.06) -> tuple[float, float]:
    """Data range with a margin on both sides (in log space for log scales)."""
    vals = [v for v in values if math.isfinite(v) and (v > 0 or not log)]
    if not vals:
        return (1.0, 10.0) if log else (0.0, 1.0)
    lo, hi = min(vals), max(vals)
    if log:
        llo, lhi = math.log10(lo), math.log10(hi)
        span = (lhi - llo) or 1.0
        return 10 ** (llo - pad * span), 10 ** (lhi + pad * span)
    span = (hi - lo) or (abs(hi) or 1.0)
    return lo - pad * span, hi + pad * span


@dataclass
class Plot:
    """An x-y plot: add marks, then :meth:`svg`. Coordinates are data values."""

    x: Scale
    y: Scale
    width: int = 640
    height: int = 360
    marks: list[str] = field(default_factory=list)
    legend: list[tuple[str, str]] = field(default_factory=list)  # (css class, text)

    @classmethod
    def make(cls, xs: Sequence[float], ys: Sequence[float], *, xlog: bool = False, ylog: bool = False,
             width: int = 640, height: int = 360, left: int = 78, right: int = 16, top: int = 46,
             bottom: int = 52, xpad: float = 0.06, ypad: float = 0.08) -> "Plot":
        xlo, xhi = padded(xs, xlog, xpad)
        ylo, yhi = padded(ys, ylog, ypad)
        return cls(Scale(xlo, xhi, left, width - right, xlog), Scale(ylo, yhi, height - bottom, top, ylog),
                   width, height)

    # -- marks -------------------------------------------------------------------------------
    def polyline(self, pts: Sequence[tuple[float, float]], cls: str, dashed: bool = False) -> None:
        good = [(a, b) for a, b in pts if math.isfinite(a) and math.isfinite(b)]
        if len(good) < 2:
            return
        d = " ".join(f"{_num(self.x(a))},{_num(self.y(b))}" for a, b in good)
        dash = ' stroke-dasharray="6 4"' if dashed else ""
        self.marks.append(f'<polyline class="mf-line {cls}" fill="none" points="{d}"{dash}/>')

    def dots(self, pts: Sequence[tuple[float, float, str]], cls: str, r: float = 4.0,
             hrefs: Sequence[str] | None = None, shape: str = "circle") -> None:
        """Points with a hover title each; ``hrefs``: an in-page link per point; ``shape``: circle,
        up (a triangle pointing up) or down."""
        for i, (a, b, tip) in enumerate(pts):
            if not (math.isfinite(a) and math.isfinite(b)):
                continue
            cx, cy = self.x(a), self.y(b)
            if shape == "circle":
                mark = f'<circle class="mf-dot {cls}" cx="{_num(cx)}" cy="{_num(cy)}" r="{r:g}">'
                end = "</circle>"
            else:
                s = 1.6 * r
                tip_y, base_y = (cy - s, cy + s * 0.8) if shape == "up" else (cy + s, cy - s * 0.8)
                mark = (f'<path class="mf-dot {cls}" d="M{_num(cx)} {_num(tip_y)}L{_num(cx + s)} {_num(base_y)}'
                        f'H{_num(cx - s)}Z">')
                end = "</path>"
            item = f"{mark}<title>{escape(tip)}</title>{end}"
            if hrefs is not None and i < len(hrefs) and hrefs[i]:
                item = f'<a href="{escape(hrefs[i])}">{item}</a>'
            self.marks.append(item)

    def yerr(self, a: float, lo: float, hi: float, cls: str, cap: float = 4.0) -> None:
        if not all(math.isfinite(v) for v in (a, lo, hi)):
            return
        x, y0, y1 = self.x(a), self.y(lo), self.y(hi)
        self.marks.append(f'<path class="mf-err {cls}" d="M{_num(x)} {_num(y0)}V{_num(y1)}'
                          f'M{_num(x - cap)} {_num(y0)}h{_num(2 * cap)}M{_num(x - cap)} {_num(y1)}h{_num(2 * cap)}"/>')

    def xerr(self, b: float, lo: float, hi: float, cls: str, cap: float = 5.0) -> None:
        if not all(math.isfinite(v) for v in (b, lo, hi)):
            return
        y, x0, x1 = self.y(b), self.x(lo), self.x(hi)
        self.marks.append(f'<path class="mf-err {cls}" d="M{_num(x0)} {_num(y)}H{_num(x1)}'
                          f'M{_num(x0)} {_num(y - cap)}v{_num(2 * cap)}M{_num(x1)} {_num(y - cap)}v{_num(2 * cap)}"/>')

    def hline(self, b: float, cls: str, label: str = "", dashed: bool = True) -> None:
        if not math.isfinite(b) or not self._inside_y(b):
            return
        y = self.y(b)
        dash = ' stroke-dasharray="5 4"' if dashed else ""
        self.marks.append(f'<line class="mf-ref {cls}" x1="{_num(self.x.a)}" x2="{_num(self.x.b)}" '
                          f'y1="{_num(y)}" y2="{_num(y)}"{dash}/>')
        if label:
            self.marks.append(f'<text class="mf-note {cls}" x="{_num(self.x.b - 4)}" y="{_num(y - 5)}" '
                              f'text-anchor="end">{escape(label)}</text>')

    def vline(self, a: float, cls: str, label: str = "", dashed: bool = True, bottom: bool = False) -> None:
        """A vertical line at ``a``, labelled at the top of the plot (or at its ``bottom``)."""
        if not math.isfinite(a) or not self._inside_x(a):
            return
        x = self.x(a)
        dash = ' stroke-dasharray="5 4"' if dashed else ""
        self.marks.append(f'<line class="mf-ref {cls}" x1="{_num(x)}" x2="{_num(x)}" '
                          f'y1="{_num(self.y.a)}" y2="{_num(self.y.b)}"{dash}/>')
        if label:
            anchor = "end" if x > (self.x.a + self.x.b) / 2 else "start"
            dx = -4 if anchor == "end" else 4
            y = self.y.a - 6 if bottom else self.y.b + 12
            self.marks.append(f'<text class="mf-note {cls}" x="{_num(x + dx)}" y="{_num(y)}" '
                              f'text-anchor="{anchor}">{escape(label)}</text>')

    def band(self, a0: float, a1: float, cls: str) -> None:
        """A vertical band between two x values (clipped to the plot)."""
        x0, x1 = sorted((self.x(max(a0, self.x.lo)), self.x(min(a1, self.x.hi))))
        if x1 - x0 <= 0:
            return
        self.marks.append(f'<rect class="mf-band {cls}" x="{_num(x0)}" y="{_num(self.y.b)}" '
                          f'width="{_num(x1 - x0)}" height="{_num(self.y.a - self.y.b)}"/>')

    def label(self, a: float, b: float, text: str, cls: str = "", dx: float = 6, dy: float = -6,
              anchor: str = "start") -> None:
        if not (math.isfinite(a) and math.isfinite(b)):
            return
        self.marks.append(f'<text class="mf-note {cls}" x="{_num(self.x(a) + dx)}" y="{_num(self.y(b) + dy)}" '
                          f'text-anchor="{anchor}">{escape(text)}</text>')

    def key(self, cls: str, text: str) -> None:
        self.legend.append((cls, text))

    def _inside_x(self, a: float) -> bool:
        lo, hi = sorted((self.x.lo, self.x.hi))
        return lo <= a <= hi

    def _inside_y(self, b: float) -> bool:
        lo, hi = sorted((self.y.lo, self.y.hi))
        return lo <= b <= hi

    # -- output ------------------------------------------------------------------------------
    def svg(self, *, title: str, xlabel: str, ylabel: str, xfmt: Formatter = plain, yfmt: Formatter = plain,
            plot_id: str = "", xticks: Sequence[tuple[float, str]] | None = None,
            yticks: Sequence[tuple[float, str]] | None = None) -> str:
        """The plot as SVG. ``xticks``/``yticks`` replace the automatic ticks with (value, label) pairs
        (categories, run ids)."""
        x, y = self.x, self.y
        parts = [f'<rect class="mf-plotbg" x="{_num(x.a)}" y="{_num(y.b)}" width="{_num(x.b - x.a)}" '
                 f'height="{_num(y.a - y.b)}"/>']
        for v, text in (xticks if xticks is not None else [(v, xfmt(v)) for v in x.ticks()]):
            px = x(v)
            parts.append(f'<line class="mf-grid" x1="{_num(px)}" x2="{_num(px)}" y1="{_num(y.a)}" y2="{_num(y.b)}"/>')
            parts.append(f'<text class="mf-tick" x="{_num(px)}" y="{_num(y.a + 16)}" '
                         f'text-anchor="middle">{escape(text)}</text>')
        for v, text in (yticks if yticks is not None else [(v, yfmt(v)) for v in y.ticks()]):
            py = y(v)
            parts.append(f'<line class="mf-grid" x1="{_num(x.a)}" x2="{_num(x.b)}" y1="{_num(py)}" y2="{_num(py)}"/>')
            parts.append(f'<text class="mf-tick" x="{_num(x.a - 6)}" y="{_num(py + 4)}" '
                         f'text-anchor="end">{escape(text)}</text>')
        parts.append(f'<path class="mf-axis" d="M{_num(x.a)} {_num(y.b)}V{_num(y.a)}H{_num(x.b)}"/>')
        parts.extend(self.marks)
        if xlabel:
            parts.append(f'<text class="mf-axlabel" x="{_num((x.a + x.b) / 2)}" y="{self.height - 10}" '
                         f'text-anchor="middle">{escape(xlabel)}</text>')
        if ylabel:
            parts.append(f'<text class="mf-axlabel" transform="translate(14 {_num((y.a + y.b) / 2)}) rotate(-90)" '
                         f'text-anchor="middle">{escape(ylabel)}</text>')
        legend, rows = _legend(self.legend, x.a, self.width - 8)
        extra = max(0, rows - 1) * LEGEND_ROW
        head = [f'<text class="mf-plottitle" x="{_num(x.a)}" y="18">{escape(title)}</text>'] + legend
        if extra:
            parts = [f'<g transform="translate(0 {extra})">'] + parts + ["</g>"]
        return frame(head + parts, self.width, self.height + extra, title, plot_id)


#: Height of one row of a plot's legend, pixels.
LEGEND_ROW = 14


def _legend(items: Sequence[tuple[str, str]], left: float, right: float) -> tuple[list[str], int]:
    """The legend in rows under the title, left to right; returns its marks and its number of rows."""
    out: list[str] = []
    x, row = left, 0
    for cls, text in items:
        w = 22 + 6.2 * len(text) + 14
        if x + w > right and x > left:
            x, row = left, row + 1
        yy = 34 + LEGEND_ROW * row
        out.append(f'<line class="mf-line mf-key {cls}" x1="{_num(x)}" x2="{_num(x + 16)}" '
                   f'y1="{_num(yy - 4)}" y2="{_num(yy - 4)}"/>')
        out.append(f'<text class="mf-legend" x="{_num(x + 20)}" y="{_num(yy)}">{escape(text)}</text>')
        x += w
    return out, (row + 1 if items else 0)


def text_px(text: str, size: float) -> float:
    """A generous estimate of ``text``'s width in pixels at font size ``size`` (bold sans-serif): a wide (CJK)
    character one em, any other 0.62 em."""
    return sum(size if unicodedata.east_asian_width(ch) in "WF" else 0.62 * size for ch in text)


def wrap(text: str, max_px: float, size: float) -> list[str]:
    """``text`` in lines no wider than ``max_px`` by :func:`text_px`, broken at spaces or between wide
    characters (a single word wider than that keeps a line of its own). A line broken at a space keeps it, so
    that the lines joined read as the text."""
    lines: list[str] = []
    line = ""
    for token in re.findall(r"[^\s\u2E80-\uFFEF]+\s*|[\u2E80-\uFFEF]\s*|\s+", text):
        if line and text_px((line + token).rstrip(), size) > max_px:
            lines.append(line)
            line = token.lstrip()
        else:
            line += token
    return lines + [line.rstrip()] if line.strip() else lines


def text_lines(lines: Sequence[str], x: float, y: float, cls: str, line_px: float) -> str:
    """One ``<text>`` of several lines (from :func:`wrap`) centred on ``y``, each line a ``tspan``."""
    first = y - (len(lines) - 1) * line_px / 2
    spans = "".join(f'<tspan x="{_num(x)}" y="{_num(first + i * line_px)}">{escape(t)}</tspan>'
                    for i, t in enumerate(lines))
    return f'<text class="{cls}" x="{_num(x)}" y="{_num(first)}">{spans}</text>'


def frame(parts: Sequence[str], width: int, height: int, title: str, plot_id: str = "") -> str:
    ident = f' id="{escape(plot_id)}"' if plot_id else ""
    return (f'<svg class="mf-plot"{ident} viewBox="0 0 {width} {height}" '
            f'width="{width}" height="{height}" role="img" aria-label="{escape(title)}">'
            f'<title>{escape(title)}</title>' + "".join(parts) + "</svg>")


def series_class(i: int) -> str:
    return f"mf-s{i % SERIES_COLOURS}"


def hbars(rows: Sequence[tuple[str, Sequence[tuple[float, str, str]]]], *, title: str, xlabel: str,
          fmt: Formatter, legend: Sequence[tuple[str, str]] = (), width: int = 640, plot_id: str = "",
          stacked: bool = True) -> str:
    """Horizontal bars, one row per label; each row a list of ``(value, css class, hover text)``
    segments, stacked end to end (``stacked``) or drawn as thin bars one under another."""
    label_w = min(220, max(60, 7 * max((len(r[0]) for r in rows), default=4) + 12))
    left, right, top = label_w, 20, 34 + 16 * math.ceil(len(legend) / 4)
    per_row = 26 if stacked else 10 + 12 * max((len(s) for _, s in rows), default=1)
    height = top + per_row * len(rows) + 44
    totals = [sum(v for v, _, _ in segs) if stacked else max((v for v, _, _ in segs), default=0.0)
              for _, segs in rows]
    hi = max([t for t in totals if math.isfinite(t)] + [0.0]) or 1.0
    sx = Scale(0.0, hi * 1.05, left, width - right)
    parts = [f'<rect class="mf-plotbg" x="{left}" y="{top}" width="{width - right - left}" '
             f'height="{per_row * len(rows)}"/>']
    for v in linear_ticks(0.0, hi * 1.05, 4):
        px = sx(v)
        parts.append(f'<line class="mf-grid" x1="{_num(px)}" x2="{_num(px)}" y1="{top}" '
                     f'y2="{top + per_row * len(rows)}"/>')
        parts.append(f'<text class="mf-tick" x="{_num(px)}" y="{top + per_row * len(rows) + 16}" '
                     f'text-anchor="middle">{escape(fmt(v))}</text>')
    for i, (name, segs) in enumerate(rows):
        y0 = top + per_row * i
        parts.append(f'<text class="mf-tick" x="{left - 6}" y="{y0 + per_row / 2 + 4:.1f}" '
                     f'text-anchor="end">{escape(_clip(name, label_w // 7))}<title>{escape(name)}</title></text>')
        at = 0.0
        for j, (v, cls, tip) in enumerate(segs):
            if not math.isfinite(v) or v <= 0:
                continue
            if stacked:
                x0, w, yy, hh = sx(at), sx(at + v) - sx(at), y0 + 4, per_row - 8
                at += v
            else:
                x0, w, yy, hh = sx(0.0), sx(v) - sx(0.0), y0 + 5 + 12 * j, 10
            parts.append(f'<rect class="mf-bar {cls}" x="{_num(x0)}" y="{_num(yy)}" width="{_num(max(w, 0.5))}" '
                         f'height="{hh}"><title>{escape(tip)}</title></rect>')
    parts.append(f'<path class="mf-axis" d="M{left} {top}V{top + per_row * len(rows)}"/>')
    parts.append(f'<text class="mf-axlabel" x="{(left + width - right) / 2:.1f}" y="{height - 10}" '
                 f'text-anchor="middle">{escape(xlabel)}</text>')
    parts.append(f'<text class="mf-plottitle" x="{left}" y="18">{escape(title)}</text>')
    for k, (cls, text) in enumerate(legend):
        xx = left + (k % 4) * 140
        yy = 30 + 16 * (k // 4)
        parts.append(f'<rect class="mf-bar mf-key {cls}" x="{xx}" y="{yy - 9}" width="10" height="10"/>')
        parts.append(f'<text class="mf-legend" x="{xx + 14}" y="{yy}">{escape(text)}</text>')
    return frame(parts, width, height, title, plot_id)


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: max(n - 1, 1)] + "…"
