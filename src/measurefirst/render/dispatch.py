"""``str()`` and ``_repr_html_()`` of a result of any kind, chosen by its ``kind``: the one dispatch that
:class:`measurefirst.results.base.ResultBase` imports when a result is first shown. One text renderer per
kind (a kind without one shows its ``repr``); the HTML is the report's fragment of every kind."""

from __future__ import annotations

from typing import Any, Callable


def text(result: Any) -> str:
    """The result in words (English), as ``str(result)`` shows it."""
    show = _TEXT.get(result.kind)
    return repr(result) if show is None else show(result)


def html(result: Any) -> str:
    """The result as an HTML fragment for a notebook (see :func:`measurefirst.render.report.fragment`)."""
    from .report import fragment

    return fragment(result)


def _measurement(m: Any) -> str:
    from .text import measurement_line

    return measurement_line(m)


def _count(c: Any) -> str:
    from .text import count_line

    return count_line(c)


def _comparison(c: Any) -> str:
    from .text import comparison_lines

    return "\n".join(comparison_lines(c))


def _sweep(r: Any) -> str:
    from .text import sweep_lines

    return "\n".join(sweep_lines(r))


def _profile(p: Any) -> str:
    from .profile import profile_lines

    return "\n".join(profile_lines(p))


def _profile_diff(d: Any) -> str:
    from .profile import diff_lines

    return "\n".join(diff_lines(d))


def _diagnosis(d: Any) -> str:
    from .doctor import diagnosis_lines

    return "\n".join(diagnosis_lines(d))


def _step(r: Any) -> str:
    from .step import step_lines

    return "\n".join(step_lines([r]))


def _step_comparison(sc: Any) -> str:
    from .step import step_comparison_text

    return step_comparison_text(sc)


def _ranged_step(r: Any) -> str:
    from .step import ranged_step_line

    return ranged_step_line(r)


def _selfcheck(sc: Any) -> str:
    from .selfcheck import selfcheck_text

    return selfcheck_text(sc)


def _saved_run(r: Any) -> str:
    from .tables import saved_run_line

    return saved_run_line(r)


def _history(h: Any) -> str:
    from .tables import history_lines

    return "\n".join(history_lines(h))


def _regression(r: Any) -> str:
    from .tables import regression_text

    return regression_text(r)


def _collectives(c: Any) -> str:
    from .distributed import collectives_lines

    return "\n".join(collectives_lines(c))


def _rank_comparison(r: Any) -> str:
    from .ranks import rank_comparison_lines

    return "\n".join(rank_comparison_lines(r))


def _group_history(h: Any) -> str:
    from .ranks import group_history_lines

    return "\n".join(group_history_lines(h))


def _group_step(g: Any) -> str:
    from .group_step import group_step_lines

    return "\n".join(group_step_lines(g))


#: kind -> its text; ``rank_group`` and ``pytest_run`` have none (their ``repr`` is what ``str`` shows).
_TEXT: dict[str, Callable[[Any], str]] = {
    "measurement": _measurement, "count": _count, "comparison": _comparison, "sweep": _sweep,
    "profile": _profile, "profile_diff": _profile_diff, "diagnosis": _diagnosis, "step": _step,
    "step_comparison": _step_comparison, "ranged_step": _ranged_step, "selfcheck": _selfcheck,
    "saved_run": _saved_run, "history": _history, "regression": _regression, "collectives": _collectives,
    "rank_comparison": _rank_comparison, "group_history": _group_history, "group_step": _group_step}
