"""Building blocks of the HTML report: the context (language, ids), escaping, tables, findings.

Every word a person reads comes from :mod:`measurefirst.render.words` (a finding's from
:mod:`measurefirst.render.findings`); this module only assembles.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from .text_format import html_escape as escape
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from .findings import finding_words
from .text import format_time
from .words import LANGS, word

if TYPE_CHECKING:  # pragma: no cover
    from ..results.findings import Finding


@dataclass
class Ctx:
    """What every section needs: the language and a prefix that keeps element ids unique."""

    lang: str = "en"
    prefix: str = "mf"
    used_ids: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        if self.lang not in LANGS:
            raise ValueError(f"lang must be one of {', '.join(LANGS)}; got {self.lang!r}")

    def t(self, key: str, **values: Any) -> str:
        """The words for ``key`` in this language (plain text, not escaped)."""
        return word(key, self.lang, **values)

    def e(self, key: str, **values: Any) -> str:
        """The words for ``key``, escaped for HTML."""
        return escape(self.t(key, **values))

    def id(self, name: str) -> str:
        """A unique element id built from ``name``."""
        base = f"{self.prefix}-{name}"
        ident, n = base, 2
        while ident in self.used_ids:
            ident, n = f"{base}-{n}", n + 1
        self.used_ids.add(ident)
        return ident


@dataclass(frozen=True)
class Cell:
    """A table cell: the text shown and, for sorting, a number (``None``: sorts last)."""

    text: str
    sort: float | None = None
    cls: str = ""
    html: bool = False  # ``text`` is already HTML


@dataclass(frozen=True)
class Col:
    header: str
    numeric: bool = False
    title: str = ""


@dataclass(frozen=True)
class Row:
    cells: Sequence[Cell | str]
    attrs: dict[str, str] = field(default_factory=dict)
    cls: str = ""


def num(value: float | None, text: str | None = None, cls: str = "") -> Cell:
    """A numeric cell; ``text`` defaults to ``%.4g``."""
    if value is None or not math.isfinite(value):
        return Cell(text if text is not None else "", None, cls)
    return Cell(text if text is not None else f"{value:.4g}", float(value), cls)


def secs(value: float | None, half_width: float | None = None) -> Cell:
    if value is None or not math.isfinite(value):
        return Cell("", None)
    return Cell(format_time(value, half_width), float(value))


def table(ctx: Ctx, name: str, cols: Sequence[Col], rows: Iterable[Row], *, sortable: bool = True,
          caption: str = "", table_id: str | None = None) -> str:
    """A table whose headers sort it on a click (numbers by value, text alphabetically)."""
    tid = table_id or ctx.id(name)
    head = []
    for c in cols:
        attrs = ""
        if sortable:
            attrs = f' data-sort="{"num" if c.numeric else "text"}" tabindex="0" aria-sort="none"'
        if c.title:
            attrs += f' title="{escape(c.title)}"'
        klass = ' class="mf-num"' if c.numeric else ""
        head.append(f"<th{klass}{attrs}>{escape(c.header)}</th>")
    body = []
    for r in rows:
        attrs = "".join(f' {k}="{escape(v)}"' for k, v in r.attrs.items())
        klass = f' class="{r.cls}"' if r.cls else ""
        cells = []
        for col, value in zip(cols, r.cells):
            cell = value if isinstance(value, Cell) else Cell(str(value))
            sort = "" if cell.sort is None else f' data-v="{cell.sort!r}"'
            classes = " ".join(x for x in ("mf-num" if col.numeric else "", cell.cls) if x)
            klass_c = f' class="{classes}"' if classes else ""
            inner = cell.text if cell.html else escape(cell.text)
            cells.append(f"<td{klass_c}{sort}>{inner}</td>")
        body.append(f"<tr{klass}{attrs}>{''.join(cells)}</tr>")
    cap = f"<caption>{escape(caption)}</caption>" if caption else ""
    return (f'<div class="mf-scroll"><table class="mf-table" id="{tid}">{cap}<thead><tr>{"".join(head)}</tr>'
            f'</thead><tbody>{"".join(body)}</tbody></table></div>')


def filter_box(ctx: Ctx, table_id: str, views: Sequence[tuple[str, str]] = ()) -> str:
    """A text filter (and an optional view selector) for a table: rows whose text holds the query."""
    fid = ctx.id(f"{table_id}-filter".removeprefix(ctx.prefix + "-"))
    out = [f'<div class="mf-controls"><label for="{fid}">{ctx.e("filter")}</label>'
           f'<input type="search" id="{fid}" data-filter="{table_id}" placeholder="{ctx.e("filter_hint")}">']
    if views:
        vid = ctx.id(f"{table_id}-view".removeprefix(ctx.prefix + "-"))
        opts = "".join(f'<option value="{escape(v)}">{escape(label)}</option>' for v, label in views)
        out.append(f'<label for="{vid}">{ctx.e("view")}</label>'
                   f'<select id="{vid}" data-view-for="{table_id}">{opts}</select>')
    out.append(f'<span class="mf-count" data-count-for="{table_id}"></span></div>')
    return "".join(out)


def badge(text: str, kind: str) -> str:
    return f'<span class="mf-badge mf-{kind}">{escape(text)}</span>'


def findings(ctx: Ctx, items: Sequence["Finding"], *, owner: str = "") -> str:
    """The findings as a list: severity, what was found (with the measured value), why, and the fix."""
    if not items:
        return ""
    order = {"error": 0, "warning": 1, "info": 2}
    lis = []
    for f in sorted(items, key=lambda f: order.get(f.severity, 3)):
        w = finding_words(f, ctx.lang)
        sev = f.severity if f.severity in order else "warning"
        parts = [badge(ctx.t(f"sev_{sev}"), sev), f' <b>{escape(w.title)}</b> <code>{escape(f.code)}</code>']
        if owner:
            parts.append(f' <span class="mf-muted">· {escape(owner)}</span>')
        evidence = w.message
        shown = value_vs_threshold(f.value, f.threshold)
        if shown is not None:
            evidence += f" ({ctx.t('value_vs_threshold', value=shown[0], threshold=shown[1])})"
        parts.append(f'<div class="mf-evidence">{escape(evidence)}</div>')
        if w.why:
            parts.append(f'<div class="mf-why"><b>{ctx.e("why")}</b> {escape(w.why)}</div>')
        if w.fix:
            parts.append(f'<div class="mf-fix"><b>{ctx.e("fix")}</b> {escape(w.fix)}</div>')
        lis.append(f'<li class="mf-finding mf-f-{sev}">{"".join(parts)}</li>')
    return f'<ul class="mf-findings">{"".join(lis)}</ul>'


def value_vs_threshold(value: float | None, threshold: float | None) -> tuple[str, str] | None:
    """A finding's value and threshold as its evidence shows them: three significant digits, more where three
    would show a value that crossed its threshold as the threshold itself (``0.1`` against ``0.1``)."""
    if value is None or threshold is None or not (math.isfinite(value) and math.isfinite(threshold)):
        return None
    for digits in range(3, 10):
        shown = (f"{value:.{digits}g}", f"{threshold:.{digits}g}")
        if shown[0] != shown[1] or value == threshold:
            break
    return shown


def kv(ctx: Ctx, pairs: Sequence[tuple[str, str]]) -> str:
    """A definition list of (label, value) pairs; empty values are left out."""
    items = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in pairs if v)
    return f'<dl class="mf-kv">{items}</dl>'


def section(ctx: Ctx, ident: str, kind_key: str, title: str, body: str, *, incomplete: bool = False) -> str:
    flag = " " + badge(ctx.t("incomplete"), "warning") if incomplete else ""
    return (f'<section class="mf-section" id="{ident}" data-kind="{escape(kind_key)}">'
            f'<h2><span class="mf-kind">{ctx.e("kind_" + kind_key)}</span> {escape(title)}{flag}</h2>'
            f"{body}</section>")


def figure(svg: str, caption: str = "") -> str:
    cap = f"<figcaption>{escape(caption)}</figcaption>" if caption else ""
    return f'<figure class="mf-figure">{svg}{cap}</figure>'


def para(text: str, cls: str = "") -> str:
    klass = f' class="{cls}"' if cls else ""
    return f"<p{klass}>{escape(text)}</p>"


def bytes_text(n: float | None) -> str:
    if n is None or not math.isfinite(n):
        return ""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if abs(n) >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n:.0f} B"


def mib(n: float | None) -> str:
    return "" if n is None else f"{n / 2**20:.1f} MiB"


def count_text(c: float) -> str:
    return f"{c:.0f}" if abs(c - round(c)) < 1e-9 else f"{c:.2f}"


def pct(x: float | None) -> str:
    return "" if x is None or not math.isfinite(x) else f"{x:.1%}"
