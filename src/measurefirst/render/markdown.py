"""Results as Markdown: the table a pull request shows (``measurefirst report --format markdown``, e.g.
appended to GitHub Actions' ``$GITHUB_STEP_SUMMARY``). A pytest run (``pytest --mf-json``) gives each
benchmark's median, its interval and its change against the baseline with the verdict; a regression
check (``compare A B -o``) each change. Other kinds are counted and left to the HTML report."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from .text import format_time, interval_rel, plain, time_unit, verdict_word
from .words import ratio_cell, word

if TYPE_CHECKING:  # pragma: no cover
    from ..results.pytest_run import PytestRun
    from ..results.regression import Change, Regression


def md_cell(x: Any) -> str:
    """A value as a Markdown table cell: control characters (newlines, escape sequences) shown as escapes,
    ``|`` escaped, so that neither the table nor the terminal is broken."""
    return plain(x).replace("\\", "\\\\").replace("|", "\\|")


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    return (["| " + " | ".join(md_cell(h) for h in header) + " |", "|" + "---|" * len(header)]
            + ["| " + " | ".join(md_cell(c) for c in row) + " |" for row in rows])


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
    header = [word("pt_test", lang), word("median", lang), "±"]
    if run.baseline is not None:
        header += [f"{word('col_change', lang)} ({_at(run.baseline)})", word("verdict", lang)]
    rows = []
    for b in run.benchmarks:
        m = b.measurement
        row = [b.name, format_time(m.median, None, time_unit(m.median)), interval_rel(m, pm=False)]
        if run.baseline is not None:
            row += list(_change(b.change, gate, lang)) if b.change is not None else ["", word("chg_new", lang)]
        rows.append(row)
    return _table(header, rows)


def regression_lines(r: "Regression", lang: str) -> list[str]:
    header = [word("col_benchmark", lang), word("col_base", lang), word("col_new", lang), word("col_change", lang),
              word("verdict", lang)]
    rows = []
    for c in r.changes:
        unit = time_unit(c.base_median)
        base, new = ((format_time(c.base_median, None, unit), format_time(c.new_median, None, unit))
                     if c.unit == "seconds" else (f"{c.base_median:,.0f}", f"{c.new_median:,.0f}"))
        rows.append([c.label, base, new, *_change(c, r.gate, lang)])
    return _table(header, rows)


def markdown(results: Sequence[Any], lang: str = "en") -> str:
    """Every pytest run and regression check among ``results`` as Markdown tables, a heading each."""
    out: list[str] = []
    others = 0
    for r in results:
        kind = getattr(r, "kind", "")
        if kind == "pytest_run":
            title = (word("md_pytest_run", lang, n=len(r.benchmarks)) if r.fail_if_slower is None or r.baseline is None
                     else word("md_pytest_gate", lang, n=len(r.benchmarks), baseline=_at(r.baseline),
                               threshold=f"{r.fail_if_slower:.1%}"))
            out += [f"### {title}", ""] + pytest_run_lines(r, lang) + [""]
            if r.regressions:
                out += [word("md_regressions", lang, n=len(r.regressions),
                             names=", ".join(b.name for b in r.regressions)), ""]
        elif kind == "regression":
            out += [f"### {word('md_regression', lang, base=r.base, new=r.new)}", ""] + regression_lines(r, lang) + [""]
        else:
            others += 1
    if others:
        out += [word("md_others", lang, n=others), ""]
    return "\n".join(out)
