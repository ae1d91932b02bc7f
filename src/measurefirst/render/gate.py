"""The words of a regression gate's notes, shared by the text tables, the HTML report and the pytest
summary: the run-to-run spread each interval holds (its source named beside the figure) and why a change is
undecided. Data in, lines out (labels are not made safe here: the caller does, as its medium needs)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from .words import change_words, code_word, undecided_words, word

if TYPE_CHECKING:  # pragma: no cover
    from ..results.regression import Change


def _span(values: Sequence[float]) -> str:
    """``2.0%``, or ``1.2%–3.4%`` for values that differ."""
    lo, hi = f"{min(values):.1%}", f"{max(values):.1%}"
    return lo if lo == hi else f"{lo}–{hi}"


def spread_lines(changes: Sequence["Change"], lang: str = "en") -> list[str]:
    """The run-to-run spreads the intervals include, one line per kind of source (each side's source
    named beside its figure; an assumed one says it was not measured and how to measure it)."""
    groups: dict[tuple[str, ...], list["Change"]] = {}
    for c in changes:
        if c.run_to_run <= 0:
            continue
        key = c.run_to_run_sources if len(c.run_to_run_sources) == 2 else (c.run_to_run_source,) * 2
        groups.setdefault(key, []).append(c)
    lines = []
    for (base_source, new_source), cs in sorted(groups.items()):
        base = [c.run_to_run_spreads[0] if len(c.run_to_run_spreads) == 2 else c.run_to_run for c in cs]
        new = [c.run_to_run_spreads[1] if len(c.run_to_run_spreads) == 2 else c.run_to_run for c in cs]
        if base_source == new_source:
            line = word("note_run_to_run", lang, cv=_span([*base, *new]), source=code_word("rtr_", base_source, lang))
        else:
            line = word("note_run_to_run_sides", lang, base=_span(base), new=_span(new),
                        base_source=code_word("rtr_", base_source, lang),
                        new_source=code_word("rtr_", new_source, lang))
        if len(groups) > 1:  # lines of different sources: each says which benchmarks it is about
            shown = [c.label for c in cs[:NAMED_UP_TO]]
            more = len(cs) - len(shown)
            labels = ", ".join(shown) + (word("and_more", lang, n=more) if more else "")
            line += word("note_applies", lang, labels=labels)
        lines.append(line)
    return lines


def suite_level_line(comparisons: int, lang: str = "en") -> str:
    """Why a run of ``comparisons`` has intervals wider than 95%: they share one error, each at the first look's
    level (:func:`~measurefirst.results.regression.look_level`)."""
    from ..results.regression import SUITE_ERROR, look_level

    return word("against_suite_level", lang, n=comparisons, level=f"{look_level(comparisons) * 100:g}",
                err=f"{SUITE_ERROR * 100:g}")


def level_lines(changes: Sequence["Change"], lang: str = "en") -> list[str]:
    """Where two or more changes share one error (their intervals wider than 95%), :func:`suite_level_line` for
    them; none otherwise."""
    if len(changes) < 2 or all(c.ci_level == 0.95 for c in changes):
        return []
    return [suite_level_line(len(changes), lang)]


def levels_text(changes: Sequence["Change"]) -> str:
    """The levels of the changes' intervals, in percent: ``95``, ``99`` or ``98.75/99.375`` (two looks)."""
    return "/".join(f"{x * 100:g}" for x in sorted({c.ci_level for c in changes})) or "95"


def saved_level_lines(changes: Sequence["Change"], baseline: str, lang: str = "en") -> list[str]:
    """Where the saved-number gate's changes share one error (a run of several measuring tests: their level
    above 95%), the line that says why; none otherwise."""
    from ..results.regression import SUITE_ERROR

    if not changes or all(c.ci_level == 0.95 for c in changes):
        return []
    return [word("pt_suite_level", lang, level=levels_text(changes), err=f"{SUITE_ERROR * 100:g}", baseline=baseline)]


#: A note about some of the benchmarks names this many of them, then counts the rest.
NAMED_UP_TO = 3


def undecided_lines(changes: Sequence["Change"], lang: str = "en") -> list[str]:
    """One line per undecided change: too noisy to judge, why, and the fix."""
    return [word("undecided_line", lang, label=c.label, words=change_words(c, lang),
                 reasons=undecided_words(c, lang)) for c in changes if c.undecided]
