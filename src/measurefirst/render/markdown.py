"""Results as Markdown: the table a pull request shows (``measurefirst report --format markdown``, e.g.
appended to GitHub Actions' ``$GITHUB_STEP_SUMMARY``). A pytest run (``pytest --mf-json``) gives each
benchmark's median, its interval and its change against the baseline with the verdict; a regression
check (``compare A B -o``) each change. Other kinds are counted and left to the HTML report."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from .gate import level_lines, saved_level_lines
from .text import format_time, interval_rel, plain, time_unit, verdict_word
from .words import ratio_cell, word

if TYPE_CHECKING:  # pragma: no cover
    from ..results.pytest_run import PytestRun
    from ..results.regression import Change, Regression


def md_cell(x: Any) -> str:
    """Our own text (words, numbers) as a Markdown table cell: control characters (newlines, escape
    sequences) shown as escapes, ``|`` escaped, so that neither the table nor the terminal is broken."""
    return plain(x).replace("\\", "\\\\").replace("|", "\\|")


#: Markdown's active punctuation, escaped with a backslash in text we did not write (``<``, ``>`` and
#: ``&`` become entities): no link, image, emphasis, code span, heading or HTML survives.
_MD_ACTIVE = "`*[]()!~|#"
_MD_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def md_text(x: Any) -> str:
    """Text measurefirst did not write (a label, a test or run name, a commit or baseline name) as inert
    Markdown, in a cell or a line: control characters shown as escapes (a newline cannot start a line of
    its own), HTML (``<script>``, ``<img onerror=...>``, ``<!--``) as entities, and every character that
    makes a link, an image (a remote tracker), emphasis or a table cell escaped. It reads the same."""
    out = []
    for ch in plain(x):
        if ch in _MD_ENTITIES:
            out.append(_MD_ENTITIES[ch])
        elif ch == "\\" or ch in _MD_ACTIVE:
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "".join(out)


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A table of cells made safe already (:func:`md_cell` or :func:`md_text`)."""
    return (["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
            + ["| " + " | ".join(row) + " |" for row in rows])


def _at(baseline: str) -> str:
    """A baseline as the plugin names it: ``@main`` (a saved name), or as given: a file, or code at a commit
    (``origin/main (1a2b3c4d5e)``, ``--mf-against``)."""
    code = baseline.endswith(")") and " (" in baseline
    return baseline if code or baseline.startswith("@") or baseline.endswith(".json") else f"@{baseline}"


def _change(c: "Change", gate: bool, lang: str) -> tuple[str, str]:
    verdict, _ = verdict_word(c, gate, lang)
    return ratio_cell(c, lang), (f"**{verdict}**" if c.regression else verdict)


def pytest_run_lines(run: "PytestRun", lang: str) -> list[str]:
    gate = run.fail_if_slower is not None
    header = [md_cell(word("pt_test", lang)), md_cell(word("median", lang)), "±"]
    if run.baseline is not None:
        header += [f"{md_cell(word('col_change', lang))} ({md_text(_at(run.baseline))})",
                   md_cell(word("verdict", lang))]
    rows = []
    for b in run.benchmarks:
        m = b.measurement
        row = [md_text(b.name), md_cell(format_time(m.median, None, time_unit(m.median))),
               md_cell(interval_rel(m, pm=False))]
        if run.baseline is not None:
            row += [md_cell(x) for x in (_change(b.change, gate, lang) if b.change is not None
                                         else ("", word("chg_new", lang)))]
        rows.append(row)
    return _table(header, rows)


def regression_lines(r: "Regression", lang: str) -> list[str]:
    header = [md_cell(word(w, lang)) for w in ("col_benchmark", "col_base", "col_new", "col_change", "verdict")]
    rows = []
    for c in r.changes:
        unit = time_unit(c.base_median)
        base, new = ((format_time(c.base_median, None, unit), format_time(c.new_median, None, unit))
                     if c.unit == "seconds" else (f"{c.base_median:,.0f}", f"{c.new_median:,.0f}"))
        rows.append([md_text(c.label), *(md_cell(x) for x in (base, new, *_change(c, r.gate, lang)))])
    return _table(header, rows)


def suite_level_lines(changes: Sequence["Change"], baseline: str | None, lang: str) -> list[str]:
    """Where the changes' intervals are wider than 95% because the run's comparisons share one error
    (:func:`~measurefirst.results.regression.look_level`), the line that says why: code against code's (their
    pairs' ratios kept) counts them; the saved-number gate's shares it among the run's measuring tests."""
    paired = [c for c in changes if c.pair_ratios]
    lines = level_lines(paired, lang) if paired else saved_level_lines(changes, md_text(_at(baseline or "")), lang)
    return lines + [""] if lines else []


def markdown(results: Sequence[Any], lang: str = "en") -> str:
    """Every pytest run and regression check among ``results`` as Markdown tables, a heading each."""
    out: list[str] = []
    others = 0
    for r in results:
        kind = getattr(r, "kind", "")
        if kind == "pytest_run":
            title = (word("md_pytest_run", lang, n=len(r.benchmarks)) if r.fail_if_slower is None or r.baseline is None
                     else word("md_pytest_gate", lang, n=len(r.benchmarks), baseline=md_text(_at(r.baseline)),
                               threshold=f"{r.fail_if_slower:.1%}"))
            out += [f"### {title}", ""] + pytest_run_lines(r, lang) + [""]
            out += suite_level_lines([b.change for b in r.benchmarks if b.change is not None], r.baseline, lang)
            if r.regressions:
                out += [word("md_regressions", lang, n=len(r.regressions),
                             names=", ".join(md_text(b.name) for b in r.regressions)), ""]
        elif kind == "regression":
            title = word("md_regression", lang, base=md_text(r.base), new=md_text(r.new))
            out += [f"### {title}", ""] + regression_lines(r, lang) + [""]
        else:
            others += 1
    if others:
        out += [word("md_others", lang, n=others), ""]
    return "\n".join(out)
