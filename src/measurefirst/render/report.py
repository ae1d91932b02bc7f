"""The one HTML renderer: a self-contained report of any results, and the fragments behind every
result's ``_repr_html_``.

:func:`report` takes results of any kind (measurements, saved runs, comparisons, sweeps, profiles and
their diffs, step results, diagnoses, histories) and returns one HTML page that needs no network:
the stylesheet, the script and every plot (SVG written here, no matplotlib) are inline. It reads in
English or Chinese, in a light or dark theme (following the system, with a toggle), and on a phone.
:func:`fragment` renders one result the same way for a notebook.
"""

from __future__ import annotations

import datetime as _dt
import itertools
import os
from .text_format import html_escape as escape
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from ..results.errors import check_text
from ..results.protocol import KINDS
from .report_assets import CSS, JS
from .report_checks import (collectives_section, group_history_section, pytest_run_section, rank_comparison_section,
                            rank_group_section, ranged_step_section, regression_section, selfcheck_section)
from .group_step import group_step_section
from .report_html import Ctx, kv, section
from .report_profile import diff_section, profile_section
from .report_step import diagnosis_section, steps_section
from .report_sweep import sweep_section
from .report_timing import comparison_section, counts_section, history_section, measurements_section
from .words import LANGS, THEMES
#: The section renderer of each kind that has a section of its own (measurements, saved runs and
#: step results are grouped; see :func:`_sections`).
SECTIONS: dict[str, Callable[[Ctx, Any], str]] = {
    "comparison": comparison_section, "sweep": sweep_section, "profile": profile_section,
    "profile_diff": diff_section, "diagnosis": diagnosis_section, "history": history_section,
    "regression": regression_section, "selfcheck": selfcheck_section, "pytest_run": pytest_run_section,
    "ranged_step": ranged_step_section, "collectives": collectives_section, "rank_group": rank_group_section,
    "rank_comparison": rank_comparison_section, "group_history": group_history_section,
    "group_step": group_step_section}
_fragments = itertools.count(1)


def kind_of(result: Any) -> str:
    """A result's kind (``measurement``, ``comparison``, …: :data:`measurefirst.results.protocol.KINDS`)."""
    kind = getattr(result, "kind", None)
    if not isinstance(kind, str) or kind not in KINDS:
        raise TypeError(f"cannot report a {type(result).__name__}; give measurefirst results (of the kinds "
                        f"{', '.join(KINDS)})")
    return kind


def _flatten(results: Any) -> list[Any]:
    if isinstance(results, (list, tuple)):
        out: list[Any] = []
        for r in results:
            out.extend(_flatten(r))
        return out
    if kind_of(results) == "step_comparison":  # its steps, then the comparison of their whole steps
        return _flatten([*results.steps, *([] if results.comparison is None else [results.comparison])])
    return [results]


def _group(item: Any) -> str:
    """Which section an item goes to: timings (measurements and saved timings) share one, instruction
    counts (and saved counts) another, step results a third; every other result has its own."""
    kind = kind_of(item)
    if kind == "saved_run":
        return "count" if type(item.measurement).__name__ == "Count" else "timed"
    return "timed" if kind == "measurement" else kind


GROUPED: dict[str, Callable[[Ctx, Any], str]] = {
    "timed": measurements_section, "count": counts_section, "step": steps_section}


def _sections(ctx: Ctx, items: Sequence[Any]) -> list[tuple[str, str, Sequence[Any]]]:
    """(section id, html, its results) per section; consecutive timings, counts and step results
    share a section."""
    out: list[tuple[str, str, Sequence[Any]]] = []
    i = 0
    while i < len(items):
        group = _group(items[i])
        if group in GROUPED:
            j = i
            while j < len(items) and _group(items[j]) == group:
                j += 1
            html = GROUPED[group](ctx, items[i:j])
        else:
            j = i + 1
            html = SECTIONS[group](ctx, items[i])
        ident = html.split('id="', 1)[1].split('"', 1)[0]
        out.append((ident, html, items[i:j]))
        i = j
    return out


# ---- the summary ---------------------------------------------------------------------------
def _envs(item: Any) -> list[dict[str, Any]]:
    """The environment records a result carries (its own, or its measurements')."""
    kind = kind_of(item)
    if kind in ("measurement", "count"):
        return [item.env]
    if kind == "saved_run":
        return [item.measurement.env]
    if kind in ("comparison", "sweep", "rank_group", "pytest_run"):
        return [m.env for m in item.measurements]
    if kind == "history":
        return [r.measurement.env for r in item.runs]
    if kind == "profile_diff":
        return [p.env for p in item.profiles]
    if kind == "rank_comparison":
        return [m.env for _, m in item.rank_measurements()]
    if kind == "group_history":
        return [e for run in item.runs for e in _envs(run.result)]
    return [getattr(item, "env", {}) or {}]


def _describe(ctx: Ctx, item: Any) -> str:
    return f"{ctx.t('kind_' + kind_of(item))}: {_name(ctx, item)}"


def _describe_all(ctx: Ctx, items: Sequence[Any]) -> str:
    """A section's entry in the contents: its kind, then every result in it (each variant of a step)."""
    return f"{ctx.t('kind_' + kind_of(items[0]))}: {', '.join(_name(ctx, i) for i in items)}"


def _name(ctx: Ctx, item: Any) -> str:
    kind = kind_of(item)
    if kind in ("measurement", "count"):
        name = item.label
    elif kind == "saved_run":
        name = f"#{item.id} {item.name}"
    elif kind == "comparison":
        name = " · ".join(item.labels) + f" ({ctx.t('baseline')}: {item.baseline})"
    elif kind == "sweep":
        name = ", ".join(item.labels) + " · " + ctx.t("n_sizes", n=len(item.sizes))
    elif kind == "profile_diff":
        name = " vs ".join(item.labels)
    elif kind == "history":
        name = f"{item.name} · {ctx.t('n_runs', n=len(item.runs))}"
    elif kind == "regression":
        name = f"{item.base} → {item.new}"
    elif kind == "selfcheck":
        name = item.device
    elif kind == "pytest_run":
        name = ctx.t("pt_counts", n=len(item.benchmarks), c=len(item.comparisons))
    elif kind == "collectives":
        name = f"{item.backend} × {item.world_size}"
    elif kind == "rank_group":
        name = item.measurement.label
    elif kind == "group_step":
        name = f"{item.label} · {item.parallel} × {item.world_size}"
    else:
        name = item.label
    return str(name)


def _join(values: Iterable[Any]) -> str:
    seen: list[str] = []
    for v in values:
        if v not in (None, "") and str(v) not in seen:
            seen.append(str(v))
    return ", ".join(seen)


def summary(ctx: Ctx, items: Sequence[Any], version: str) -> str:
    envs = [e for item in items for e in _envs(item) if e]
    stamps = sorted(str(e["timestamp"]) for e in envs if e.get("timestamp"))
    when = "" if not stamps else (stamps[0] if stamps[0] == stamps[-1] else f"{stamps[0]} – {stamps[-1]}")
    devices = _join(f"{e.get('device', '')} ({e['device_name']})" if e.get("device_name") else e.get("device")
                    for e in envs)
    recorded = _join(e.get("measurefirst_version") for e in envs)
    simulated = any(e.get("simulated") for e in envs)
    pairs = [(ctx.t("what"), "; ".join(_describe(ctx, i) for i in items)),
             (ctx.t("device"), (devices or ctx.t("not_recorded")) + (f" — {ctx.t('simulated')}" if simulated else "")),
             (ctx.t("host"), _join(e.get("hostname") for e in envs)),
             (ctx.t("cpu"), _join(e.get("cpu_model") for e in envs)),
             (ctx.t("threads"), _join(e.get("torch_num_threads") for e in envs)),
             (ctx.t("torch"), _join(e.get("torch_version") for e in envs)),
             ("CUDA", _join(e.get("cuda_version") for e in envs)),
             ("Python", _join(e.get("python_version") for e in envs)),
             (ctx.t("platform"), _join(e.get("platform") for e in envs)),
             (ctx.t("when"), when or ctx.t("not_recorded")),
             (ctx.t("version"), ctx.t("version_words", recorded=recorded or ctx.t("not_recorded"), now=version))]
    incomplete = [i for i in items if getattr(i, "complete", True) is False]
    note = f'<p class="mf-warning">{ctx.e("has_incomplete", n=len(incomplete))}</p>' if incomplete else ""
    return section(ctx, ctx.id("summary"), "summary", "", kv(ctx, pairs) + note)


# ---- documents -----------------------------------------------------------------------------
def _version() -> str:
    from .._version import __version__

    return str(__version__)


def report(results: Any, *, lang: str = "en", theme: str = "auto", title: str | None = None,
           generated: str | None = None) -> str:
    """One self-contained HTML page for ``results`` (one result or a list, of any kinds).

    ``lang``: ``"en"`` or ``"zh"``. ``theme``: ``"auto"`` (follows the system, with a toggle on the
    page), ``"light"`` or ``"dark"``. ``generated``: the time stamp written in the footer (default now).
    """
    if lang not in LANGS:
        raise ValueError(f"lang must be one of {', '.join(LANGS)}; got {lang!r}")
    if theme not in THEMES:
        raise ValueError(f"theme must be one of {', '.join(THEMES)}; got {theme!r}")
    check_text("title", title, "Matmul on the A100", optional=True)
    check_text("generated", generated, "2026-12-01T10:00:00+00:00", optional=True)
    items = _flatten(results)
    if not items:
        raise ValueError("nothing to report: give at least one result")
    ctx = Ctx(lang, "mf")
    version = _version()
    head = summary(ctx, items, version)
    parts = _sections(ctx, items)
    toc = "".join(f'<li><a href="#{ident}">{escape(_describe_all(ctx, its))}</a></li>' for ident, _, its in parts)
    body = (f'<nav class="mf-toc" aria-label="{ctx.e("contents")}"><ol>{toc}</ol></nav>\n'
            + head + "\n" + "\n".join(html for _, html, _ in parts))
    return page(ctx, title or ctx.t("report_title"), body, theme=theme, generated=generated, version=version)


def page(ctx: Ctx, title: str, body: str, *, theme: str = "auto", generated: str | None = None,
         version: str | None = None, header_extra: str = "") -> str:
    """The shell of every page measurefirst writes (the report, the dashboard's pages): the inline
    stylesheet and script, the title, the theme toggle (``header_extra`` beside it: a language switch),
    ``body`` (HTML), and a footer with the version and the time it was made (``generated``, default now)."""
    version = version or _version()
    stamp = generated or _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
    labels = "".join(f' data-label-{t}="{ctx.e("theme_" + t)}"' for t in THEMES)
    button = (f'<button type="button" class="mf-theme" data-state="{theme}"{labels} '
              f'title="{ctx.e("theme_toggle")}">{ctx.e("theme_" + theme)}</button>')
    fixed = ' data-theme-fixed="1"' if theme != "auto" else ""
    return (
        f'<!DOCTYPE html>\n<html lang="{"zh-CN" if ctx.lang == "zh" else "en"}" class="mf-report" '
        f'data-theme="{theme}"{fixed}>\n<head>\n<meta charset="utf-8">\n'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta name="color-scheme" content="light dark">\n<meta name="generator" content="measurefirst {version}">\n'
        f"<title>{escape(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
        f'<div class="mf-wrap">\n<header class="mf-head"><h1>{escape(title)}</h1>{header_extra}{button}</header>\n'
        + body
        + f'\n<footer>{ctx.e("footer", version=version, when=stamp)}</footer>\n</div>\n'
        f"<script>{JS}</script>\n</body>\n</html>\n"
    )


def fragment(result: Any, *, lang: str = "en") -> str:
    """One result as an HTML fragment for a notebook (``_repr_html_``): the same sections as the
    report, with the stylesheet scoped to the fragment and ids unique on the page."""
    ctx = Ctx(lang, f"mf{next(_fragments)}")
    body = "".join(html for _, html, _ in _sections(ctx, _flatten(result)))
    return (f'<div class="mf-report mf-fragment" data-theme="auto"><style>{CSS}</style>{body}'
            f"<script>{JS}</script></div>")


def write(path: str | os.PathLike[str], html: str) -> Path:
    """Write ``html`` to ``path`` whole or not at all (:func:`measurefirst.results.safeio.write_atomic`: a
    unique temporary file beside it, then a rename); a path that cannot be written raises
    :class:`~measurefirst.results.safeio.DestinationError` saying why."""
    from ..results.safeio import write_atomic

    return write_atomic(path, html, "report")
