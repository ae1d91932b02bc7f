"""``str()`` and ``_repr_html_()`` of a result of any kind, chosen by its ``kind``: the one dispatch that
:class:`measurefirst.results.base.ResultBase` imports when a result is first shown. One text renderer per
kind (a kind without one shows its ``repr``); the HTML is the report's fragment of every kind."""

from __future__ import annotations

from importlib import import_module
from typing import Any


def text(result: Any, kind: str | None = None, *args: Any) -> str:
    """The result in words (English unless ``args`` say otherwise), as ``str(result)`` shows it: the
    renderer that :data:`TEXT` names for ``kind`` (default: the result's own ``kind``), imported now
    (results never import a renderer before one is shown), called with ``result`` and ``args``."""
    key = result.kind if kind is None else kind
    where = TEXT.get(key) or PARTS.get(key)
    if where is None:
        return repr(result)
    module, function, lines = where
    shown = getattr(import_module(f".{module}", __package__), function)(result, *args)
    return "\n".join(shown) if lines else str(shown)


#: the kinds whose Markdown (``render.markdown``: the tables of a CI summary) a notebook may show
MARKDOWN_KINDS = ("pytest_run", "regression")


def markdown(result: Any) -> str | None:
    """The result as Markdown (``_repr_markdown_``) for the kinds of :data:`MARKDOWN_KINDS`, else ``None``."""
    if getattr(result, "kind", None) not in MARKDOWN_KINDS:
        return None
    return str(import_module(".markdown", __package__).markdown([result]))


def html(result: Any) -> str:
    """The result as an HTML fragment for a notebook (see :func:`measurefirst.render.report.fragment`)."""
    fragment = import_module(".report", __package__).fragment  # by name, as TEXT: no renderer before one is shown
    return str(fragment(result))


#: kind -> (renderer module, function, whether it returns lines); ``rank_group`` and ``pytest_run`` have none
#: (their ``repr`` is what ``str`` shows).
TEXT: dict[str, tuple[str, str, bool]] = {
    "measurement": ("text", "measurement_line", False),
    "count": ("text", "count_line", False),
    "comparison": ("text", "comparison_lines", True),
    "sweep": ("text", "sweep_lines", True),
    "profile": ("profile", "profile_lines", True),
    "profile_diff": ("profile", "diff_lines", True),
    "diagnosis": ("doctor", "diagnosis_lines", True),
    "step": ("step", "step_text", False),
    "step_comparison": ("step", "step_comparison_text", False),
    "ranged_step": ("step", "ranged_step_line", False),
    "selfcheck": ("selfcheck", "selfcheck_text", False),
    "saved_run": ("tables", "saved_run_line", False),
    "history": ("tables", "history_lines", True),
    "regression": ("tables", "regression_text", False),
    "collectives": ("distributed", "collectives_lines", True),
    "rank_comparison": ("ranks", "rank_comparison_lines", True),
    "group_history": ("ranks", "group_history_lines", True),
    "group_step": ("group_step", "group_step_lines", True),
}

#: The parts of results that show themselves in words too (``results.base.shown(obj, part)``): a fit, the
#: machine's peaks, a verdict, a change, a group's summary, a measurement's ``repr``; as :data:`TEXT`.
PARTS: dict[str, tuple[str, str, bool]] = {
    "measurement_repr": ("text", "measurement_repr", False),
    "power_fit": ("text", "fit_text", False),
    "complexity_fit": ("text", "complexity_text", False),
    "peaks": ("text", "peaks_text", False),
    "verdict_words": ("words", "verdict_words", False),
    "change_words": ("words", "change_words", False),
    "group_summary": ("distributed", "group_lines", True),
}
