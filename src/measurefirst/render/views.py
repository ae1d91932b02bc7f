"""What the command line shows of a result of any kind: its tables and its lines, chosen by the
result's ``kind``. One renderer per kind, used by the command that produced the result and by
``measurefirst runs show``; consecutive measurements (or counts) share one table."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Sequence, Union

from ..results.profile import ROW_LIMIT, SORTS, VIEWS
from .words import LANGS

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import RenderableType

    #: A view: rich renderables (tables) and plain lines of text, in the order they are shown.
    View = list[Union[RenderableType, str]]


@dataclass(frozen=True)
class Options:
    """How to show results: the language of every word (``en`` or ``zh``) and the profile table's view."""

    lang: str = LANGS[0]
    view: str = VIEWS[0]
    sort: str = SORTS[0]
    limit: int = ROW_LIMIT


def view(results: Sequence[Any], options: Options = Options()) -> View:
    """Every result in turn; consecutive measurements and counts as one table each, then their findings."""
    out: View = []
    i = 0
    while i < len(results):
        if results[i].kind in ("measurement", "count"):
            j = i
            while j < len(results) and results[j].kind in ("measurement", "count"):
                j += 1
            out += _measurements(results[i:j], options)
            i = j
            continue
        out += _VIEWS[results[i].kind](results[i], options)
        i += 1
    return out


def _measurements(ms: Sequence[Any], options: Options) -> View:
    from .findings import finding_lines
    from .text import count_table, measurement_table
    from .words import word

    lang = options.lang
    counts = [m for m in ms if m.kind == "count"]
    out: View = [count_table(counts, lang=lang)] if counts else []
    if len(counts) < len(ms):
        out.append(measurement_table([m for m in ms if m.kind != "count"], lang=lang))
    return out + [word("labelled_line", lang, label=m.label, line=line) for m in ms
                  for line in finding_lines(m.findings, lang)]


def _saved_run(r: Any, options: Options) -> View:
    from .words import word

    return [word("saved_run_header", options.lang, id=r.id, name=r.name, created=r.created),
            *_measurements([r.measurement], options)]


def _history(h: Any, options: Options) -> View:
    from .tables import history_table

    return [history_table(h.table(), options.lang)]


def _comparison(c: Any, options: Options) -> View:
    from .text import comparison_lines, comparison_table, issue_lines

    lang = options.lang
    return [comparison_table(c, lang=lang), *comparison_lines(c, lang), *issue_lines(c.measurements, lang)]


def _sweep(r: Any, options: Options) -> View:
    from .text import issue_lines, sweep_lines, sweep_table

    lang = options.lang
    return [*(sweep_table(r, label, lang) for label in r.labels), *sweep_lines(r, points=False, lang=lang),
            *issue_lines(r.measurements, lang)]


def _profile(p: Any, options: Options) -> View:
    from .profile import kernel_table, op_table, profile_lines
    from .words import word

    lang = options.lang
    out: View = [op_table(p, view=options.view, sort=options.sort, limit=options.limit, lang=lang)]
    if p.kernels:
        out.append(kernel_table(p, limit=options.limit, lang=lang))
    return out + profile_lines(p, rows=False, lang=lang) + [word("flops_module", lang, module=mod, flops=f"{fl:.4g}")
                                                            for mod, fl in (p.flops_by_module or {}).items()]


def _profile_diff(d: Any, options: Options) -> View:
    from .profile import diff_lines, diff_table

    return [diff_table(d, options.lang), *diff_lines(d, options.lang)]


def _step(r: Any, options: Options) -> View:
    from .step import step_lines, step_table

    return [step_table([r], lang=options.lang), *step_lines([r], options.lang)]


def _step_comparison(sc: Any, options: Options) -> View:
    from .step import step_comparison_text, step_table

    return [step_table(sc.steps, sc.comparison, options.lang), *step_comparison_text(sc, options.lang).splitlines()]


def _selfcheck(sc: Any, options: Options) -> View:
    from .selfcheck import selfcheck_lines, selfcheck_table

    return [selfcheck_table(sc, options.lang), *selfcheck_lines(sc, options.lang)]


def _regression(r: Any, options: Options) -> View:
    from .tables import regression_lines, regression_table

    return [regression_table(r, options.lang), *regression_lines(r, options.lang)]


def _diagnosis(d: Any, options: Options) -> View:
    from .doctor import diagnosis_lines

    return list(diagnosis_lines(d, options.lang))


def _collectives(c: Any, options: Options) -> View:
    from .distributed import collectives_lines

    return list(collectives_lines(c, options.lang))


def _rank_group(r: Any, options: Options) -> View:
    from .ranks import rank_group_lines

    return list(rank_group_lines(r, options.lang))


def _rank_comparison(r: Any, options: Options) -> View:
    from .ranks import rank_comparison_lines

    return list(rank_comparison_lines(r, options.lang))


def _group_history(h: Any, options: Options) -> View:
    from .ranks import group_history_lines

    return list(group_history_lines(h, options.lang))


def _group_step(g: Any, options: Options) -> View:
    from .group_step import group_step_lines

    return list(group_step_lines(g, options.lang))


def _pytest_run(r: Any, options: Options) -> View:
    """What ``pytest --mf-json`` wrote: its measurements as one table, then each comparison."""
    out = _measurements(list(r.measurements), options) if r.benchmarks else []
    for c in r.comparisons:
        out += _comparison(c.comparison, options)
    return out


def _ranged_step(r: Any, options: Options) -> View:
    from .step import ranged_step_line

    return [ranged_step_line(r, options.lang)]


_VIEWS: dict[str, Callable[[Any, Options], View]] = {
    "saved_run": _saved_run, "history": _history, "comparison": _comparison, "sweep": _sweep,
    "profile": _profile, "profile_diff": _profile_diff, "step": _step, "step_comparison": _step_comparison,
    "selfcheck": _selfcheck, "regression": _regression, "diagnosis": _diagnosis, "collectives": _collectives,
    "rank_group": _rank_group, "ranged_step": _ranged_step, "rank_comparison": _rank_comparison,
    "group_history": _group_history, "group_step": _group_step, "pytest_run": _pytest_run}
