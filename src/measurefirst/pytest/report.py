"""The lines of the pytest plugin: the header, the end-of-run summary tables, regression and assertion
messages, the pytest-xdist refusal. Functions return strings, lines or rich tables; they never print
(the plugin writes them through pytest's terminal reporter). Their words are ``pt_*`` in
:data:`measurefirst.render.words.WORDS`, in the language each function is given (``--mf-lang``; default
English, pytest's own)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, Sequence

from ..render.findings import finding_lines
from ..results.regression import SUITE_ERROR, look_level
from ..render.text import cell, ci_range, format_time, interval_rel, plain, time_unit, verdict_word
from ..render.gate import levels_text, saved_level_lines, spread_lines, suite_level_line
from ..render.words import (LANGS, change_words, flag_words, ratio_cell, ratio_ci_words, undecided_words, verdict_words,
                            word)

if TYPE_CHECKING:
    from .against import Outcome  # pragma: no cover
    from rich.table import Table

    from ..results.comparison import Comparison, Verdict
    from .run import Record
    from ..results.regression import Change


#: The language of the plugin's lines unless ``--mf-lang`` says another.
LANG = LANGS[0]


def _w(lang: str, key: str, **values: Any) -> str:
    return word(key, lang, **values)


def skip_reason(*, only: bool, lang: str = LANG) -> str:
    return "measurefirst: " + _w(lang, "pt_skip_only" if only else "pt_skip_skip")


def header_lines(*, device: str, budget: float, simulated: bool, compat: bool, disabled_plugins: Sequence[str],
                 ignored: Sequence[tuple[str, str]], baseline: str | None, threshold: float | None,
                 save: str | None, disabled: bool, worker: str | None, lang: str = LANG) -> list[str]:
    how = _w(lang, "pt_head_disabled") if disabled else (
        _w(lang, "pt_head_device", device=device, budget=f"{budget:g}") + (_w(lang, "pt_head_simulated") if simulated else ""))
    lines = [f"measurefirst: {how}"]
    if baseline is not None:
        gate = _w(lang, "pt_head_gate", threshold=f"{threshold:.1%}") if threshold is not None else ""
        lines.append("measurefirst: " + _w(lang, "pt_head_compare", baseline=baseline) + gate)
    if save is not None:
        lines.append("measurefirst: " + _w(lang, "pt_head_save", name=save))
    if compat:
        lines.append("measurefirst: " + _w(lang, "pt_head_compat")
                     + (_w(lang, "pt_head_compat_off", plugins=", ".join(disabled_plugins)) if disabled_plugins else ""))
    for flag, instead in ignored:
        lines.append("measurefirst: " + _w(lang, "pt_head_ignored", flag=flag, instead=instead))
    if worker is not None:
        lines.append(f"measurefirst: {xdist_worker_warning(worker, lang)}")
    return lines


def xdist_worker_warning(worker: str, lang: str = LANG) -> str:
    return _w(lang, "pt_xdist_worker", worker=worker)


def xdist_summary(workers: Sequence[str], lang: str = LANG) -> str:
    return _w(lang, "pt_xdist_summary", n=len(workers), workers=", ".join(sorted(set(workers))))


def no_saved_runs(ref: str | None, store: Path | str, saved: Sequence[str], lang: str = LANG) -> str:
    known = ", ".join(saved[:10]) or _w(lang, "pt_none_yet")  # bare names: pytest reads a lone @NAME as a file of arguments
    if ref is None:
        return _w(lang, "pt_no_saved", store=store)
    return _w(lang, "pt_no_saved_named", ref=ref, store=store, known=known, name=ref[1:].partition("~")[0])


def summary_interrupted(lang: str = LANG) -> str:
    return _w(lang, "pt_summary_interrupted")


def benchmark_without_mf(given: Sequence[str], users: Sequence[str], lang: str = LANG) -> str:
    """``--mf-*`` options without ``--mf`` while pytest-benchmark times the ``benchmark`` fixture."""
    return _w(lang, "pt_without_mf", given=", ".join(given), n=len(users), example=users[0])


def weave_unsupported(lang: str = LANG) -> str:
    return _w(lang, "pt_weave")


def regression_line(r: "Record", baseline: str, threshold: float, lang: str = LANG) -> str:
    assert r.change is not None
    return _w(lang, "pt_regression_line", label=r.display, words=change_words(r.change, lang), baseline=baseline,
              threshold=f"{threshold:.1%}")


def undecided_line(r: "Record", baseline: str, lang: str = LANG, *, brief: bool = False) -> str:
    """``test_a: too noisy to judge against @base (...): the new run: ...; re-run on a quiet machine``;
    ``brief``: each reason's fact, the fixes left to ``-v``."""
    assert r.change is not None
    line = plain(_w(lang, "pt_undecided_line", label=r.display, baseline=baseline,
                    words=change_words(r.change, lang), reasons=undecided_words(r.change, lang, brief=brief)))
    return _w(lang, "pt_undecided_brief", line=line) if brief else line


def regression_failure(records: Sequence["Record"], baseline: str, threshold: float, *,
                       undecided: Sequence["Record"] = (), lang: str = LANG) -> str:
    """The failure shown for a test whose own assertions passed but whose measurement regressed (or, with
    ``--mf-undecided fail``, could not be judged)."""
    lines = []
    if records:
        lines.append(_w(lang, "pt_regression_fails"))
        lines += ["  " + regression_line(r, baseline, threshold, lang) for r in records]
    if undecided:
        lines.append(_w(lang, "pt_undecided_fails"))
        lines += ["  " + undecided_line(r, baseline, lang) for r in undecided]
    return "\n".join(lines)


def assertion_failure(claim: str, label: str, than: str, by: float, v: "Verdict", c: "Comparison",
                      lang: str = LANG) -> str:
    """``assert_faster("fused", than="manual", by=1.2)`` failing: what was asked, the verdict, its CI."""
    want = _w(lang, {"faster": "pt_want_faster", "slower": "pt_want_slower",
               "not slower": "pt_want_not_slower" if by == 1.0 else "pt_want_not_slower_by"}[claim], by=f"{by:g}")
    measured = _w(lang, "pt_measured_than" if v.verdict in ("faster", "slower") else "pt_measured_against",
                  words=verdict_words(v, lang), than=than)
    if v.verdict in ("faster", "slower"):
        measured = _w(lang, "pt_measured_ratio", measured=measured,
                      ratio=f"{v.speedup if v.verdict == 'faster' else v.ratio:.3f}")
    medians = []
    for lab in (label, than):
        m = c[lab]
        if m.summary is not None:
            medians.append(f"{lab} {format_time(m.median)}")
    lines = [_w(lang, "pt_expected", label=label, want=want, than=than), measured,
             "  " + _w(lang, "pt_rounds", ci=ratio_ci_words(v, lang), rounds=v.rounds)
             + (_w(lang, "pt_medians", medians=", ".join(medians)) if medians else "")]
    if v.verdict in ("no difference", "undecided"):
        lines.append("  " + _w(lang, "pt_verdict_needs"))
    return "\n".join(lines)


# ---- the end-of-run summary ------------------------------------------------------------------

def _samples_cell(r: "Record", lang: str) -> str:
    m = r.measurement
    numbers = m.loop_counts
    calls = str(numbers[0]) if len(numbers) == 1 else f"{numbers[0]}-{numbers[-1]}"
    aside = m.n_samples - m.n_used
    cell = f"{m.n_rounds} × {calls}"
    return _w(lang, "pt_preempted_cell", cell=cell, n=aside) if aside else cell


def _group_key(r: "Record", lang: str) -> tuple[str, bool]:
    """The table a record goes in (its title, and whether it holds the candidates of one comparison): its
    group, else the candidates of one comparison together (rows named by candidate), else its test file."""
    if r.group:
        return _w(lang, "pt_group_title", group=r.group), False
    if r.comparison is not None:
        return _w(lang, "pt_interleaved_title", name=r.name.rsplit("::", 1)[0]), True
    return r.module, False


def group_table(title: str, records: Sequence["Record"], *, baseline: str | None, gate: bool,
                width: int = 120, lang: str = LANG) -> "Table":
    """One group's measurements: the median ±CI half-width, the 95% CI, samples × calls per sample;
    with a baseline, the time ratio against it (new/baseline, with its 95% CI) and the verdict. Columns
    that do not fit in ``width`` are left out: samples first, then the CI range (the ± stays)."""
    from rich import box
    from rich.table import Table

    places = {f"{r.measurement.device}/{r.measurement.timer}" for r in records}
    one_place = len(places) == 1
    rows: list[dict[str, str]] = []
    styles: list[str] = []
    kinds = {r.measurement.ci_includes_run_to_run for r in records}
    mixed = len(kinds) > 1
    for r in records:
        m = r.measurement
        unit = time_unit(m.median)
        ci = m.ci
        hw = None if ci is None else (ci[1] - ci[0]) / 2
        mark = " !" if any(f.severity != "info" for f in m.findings) else ""
        row = {"test": (r.label if _group_key(r, lang)[1] and r.label else r.display) + mark,
               "median": format_time(m.median, hw, unit) + ("" if ci is None else f" {interval_rel(m)}"
                                                            + ("*" if mixed and not m.ci_includes_run_to_run else "")),
               "median_plain": format_time(m.median, hw, unit),
               "95% CI": _w(lang, "pt_na") if ci is None else ci_range(ci, hw, unit), "samples": _samples_cell(r, lang),
               "device/timer": f"{m.device}/{m.timer}"}
        style = ""
        if baseline is not None:
            if r.change is not None:
                row["vs"], style = ratio_cell(r.change, lang), ""
                row["verdict"], style = verdict_word(r.change, gate, lang)
            elif r.baseline_error is not None:
                row["vs"], row["verdict"] = _w(lang, "pt_not_comparable"), _w(lang, "pt_na")
            else:
                row["vs"], row["verdict"] = _w(lang, "pt_no_baseline_row"), _w(lang, "pt_new")
        rows.append(row)
        styles.append(style)
    cols = ["test", "median", "95% CI", "samples"] + ([] if one_place else ["device/timer"])
    if baseline is not None:
        cols += ["vs", "verdict"]
    header = {"test": _w(lang, "pt_col_test"), "median": _w(lang, "pt_col_median"), "median_plain": _w(lang, "pt_col_median"),
              "95% CI": _w(lang, "pt_col_ci"), "samples": _w(lang, "pt_col_samples"), "device/timer": _w(lang, "pt_col_device"),
              "vs": _w(lang, "pt_col_vs", baseline=baseline), "verdict": _w(lang, "pt_col_verdict")}

    def needed(names: list[str]) -> int:
        # cell widths, one space of padding each side, a separator between columns, the edges
        return sum(max([len(header[c])] + [len(row[c]) for row in rows]) for c in names) + 3 * len(names) + 1

    for optional in ("samples", "device/timer", "95% CI"):
        if needed(cols) > width and optional in cols:
            cols.remove(optional)
    if needed(cols) > width:  # last: the median without its ± (the ratio's CI is in the row)
        cols[cols.index("median")] = "median_plain"
    full_title = title + (f" [{next(iter(places))}]" if one_place else "")
    table = Table(title=cell(full_title), title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False,
                  min_width=min(width, len(full_title)))
    for c in cols:
        table.add_column(header[c], justify="left" if c in ("test", "verdict", "device/timer") else "right",
                         no_wrap=c != "test", overflow="fold")
    for row, style in zip(rows, styles):
        table.add_row(*(cell(row[c], style if c == "verdict" else "") for c in cols))
    if "median" in cols or "95% CI" in cols:  # say which interval the ± and the CI are
        table.caption = _w(lang, "pt_caption_run_to_run" if kinds == {True} else
                           "pt_caption_precision" if kinds == {False} else "pt_caption_mixed")
        table.caption_justify = "left"
    return table


class _Labelled(Protocol):
    @property
    def label(self) -> str: ...


class _Compared(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def comparison(self) -> "Comparison": ...


class Session(Protocol):
    """What the summary reads of the plugin's session (the plugin's ``MeasureSession`` is one; this
    module does not import the plugin, which imports it)."""

    @property
    def records(self) -> Sequence["Record"]: ...
    @property
    def comparisons(self) -> Sequence[_Compared]: ...
    @property
    def baseline(self) -> _Labelled | None: ...
    @property
    def disabled_calls(self) -> int: ...
    @property
    def measuring(self) -> bool: ...
    @property
    def worker(self) -> str | None: ...
    @property
    def against(self) -> "Outcome | None": ...
    @property
    def simulation(self) -> object | None: ...
    @property
    def gate(self) -> bool: ...
    @property
    def threshold(self) -> float | None: ...
    @property
    def undecided_policy(self) -> str: ...
    @property
    def saved(self) -> tuple[int, str, Path | str] | None: ...
    @property
    def written(self) -> Sequence[Path]: ...
    @property
    def errors(self) -> Sequence[str]: ...
    def noise_status(self) -> str | None: ...


def session_summary(s: "Session", *, refused_by_workers: Sequence[str] = (), width: int = 120,
                    verbose: bool = False, lang: str = LANG) -> tuple[list[str], list["Table"], list[str]]:
    """Lines before the tables, the tables (one per group: the group's name, else the test file), and
    lines after them; all empty when nothing was measured and nothing went wrong (the plugin stays
    quiet)."""
    head: list[str] = []
    tables: list["Table"] = []
    lines: list[str] = []
    measured = [r for r in s.records if r.measurement.summary is not None]
    baseline = None if s.baseline is None else s.baseline.label
    if refused_by_workers:
        head.append(xdist_summary(refused_by_workers, lang))
    if s.disabled_calls and not s.measuring and s.worker is None and s.against is None:
        head.append(_w(lang, "pt_disabled_calls", n=s.disabled_calls))
    if measured:
        groups: dict[tuple[str, bool], list["Record"]] = {}
        for r in measured:
            groups.setdefault(_group_key(r, lang), []).append(r)
        title = _w(lang, "pt_title", n=len(measured), tests=len({r.nodeid for r in measured}))
        if baseline is not None:
            spread = any(r.change is not None and r.change.run_to_run > 0 for r in measured)
            changes = [r.change for r in measured if r.change is not None]
            title += _w(lang, "pt_title_compared", baseline=baseline, spread=_w(lang, "pt_title_spread") if spread else "",
                        level=levels_text(changes))
        if s.simulation is not None:
            title += _w(lang, "pt_title_simulated")
        head.append(title)
        status = s.noise_status()
        if status is not None:  # MEASUREFIRST_PROFILE names no usable profile: said, as the CLI says it (issue 38)
            head.append(_w(lang, "noise.status." + status))
        tables = [group_table(key, rs, baseline=baseline, gate=s.gate, width=width, lang=lang) for (key, _), rs in groups.items()]
        for cr in s.comparisons:
            c = cr.comparison
            prefix = cr.name.split("::", 1)[1] if "::" in cr.name else cr.name
            for v in c.verdicts:
                if v.verdict == "baseline":
                    continue
                measured_words = _w(lang, "pt_relation_than" if v.verdict in ("faster", "slower") else "pt_relation_against",
                                    words=verdict_words(v, lang), baseline=v.baseline)
                lines.append(_w(lang, "pt_verdict_line", prefix=prefix, label=v.label, measured=measured_words,
                                ci=ratio_ci_words(v, lang), rounds=v.rounds))
        flagged = [r for r in measured if any(f.severity != "info" for f in r.measurement.findings)]
        if flagged:
            lines.append(_w(lang, "pt_findings_verbose" if verbose else "pt_findings"))
        for r in flagged:
            found = [f for f in r.measurement.findings if f.severity != "info"]
            lines += [plain(_w(lang, "pt_finding_line", label=r.display, line=line))
                      for line in finding_lines(found, lang, fix=verbose)]
            if r.change is not None:
                for flag in r.change.flags:
                    lines.append(_w(lang, "pt_flag_line", label=r.display, flag=flag_words(r.change, flag, lang)))
            if r.baseline_error is not None:
                lines.append(_w(lang, "pt_not_compared", label=r.display, baseline=baseline, error=r.baseline_error))
        if baseline is not None:
            lines += [plain(line) for line in spread_lines([r.change for r in measured if r.change is not None], lang)]
        if s.threshold is not None and baseline is not None:
            slow = [r for r in measured if r.regression]
            noisy = [r for r in measured if r.undecided]
            for r in slow:
                lines.append(_w(lang, "pt_regression", line=regression_line(r, baseline, s.threshold, lang)))
            for r in noisy:
                lines.append(_w(lang, "pt_undecided", line=undecided_line(r, baseline, lang, brief=not verbose)))
            if not slow:
                tail = _w(lang, "pt_undecided_tail", n=len(noisy), policy=_w(lang, f"pt_undecided_{s.undecided_policy}"))
                lines.append(_w(lang, "pt_no_regression", threshold=f"{s.threshold:.1%}", baseline=baseline,
                                tail=tail if noisy else ""))
        if s.against is None and baseline is not None:  # the saved-number gate's comparisons share one error
            lines += saved_level_lines([r.change for r in measured if r.change is not None], baseline, lang)
    if s.against is not None:
        lines += against_lines(s.against, lang)
    elif s.threshold is not None and baseline is not None and any(r.undecided for r in measured):
        lines.append(_w(lang, "pt_try_against"))
    if s.saved is not None:
        n, name, path = s.saved
        lines.append(_w(lang, "pt_saved", n=n, name=name, path=path))
    for path in s.written:
        lines.append(_w(lang, "pt_wrote", path=path))
    for err in s.errors:
        lines.append(_w(lang, "pt_error", error=err))
    return head, tables, lines


def against_lines(o: "Outcome", lang: str = LANG) -> list[str]:
    """What a run of code against code compared, and what it could not: tests of one side only, tests
    that failed on a side, measurements the two sides made differently."""
    lines = [_w(lang, "pt_against_done", n=len(o.compared), base=o.label, pairs=o.pairs)]
    if o.comparisons > 1:
        lines.append(suite_level_line(o.comparisons, lang))
    for key, ids in (("pt_against_only_head", o.only_head), ("pt_against_only_base", o.only_base),
                     ("pt_against_skipped", o.skipped), ("pt_against_mismatched", o.mismatched)):
        if ids:
            lines.append(_w(lang, key, n=len(ids), base=o.label, tests=", ".join(ids)))
    if o.second_look:
        tests = ", ".join(_w(lang, "pt_against_pairs_of", test=t, pairs=n) for t, n in o.second_look.items())
        lines.append(_w(lang, "pt_against_second_look", n=len(o.second_look), pairs=o.pairs,
                        level=f"{look_level(o.comparisons, second=True) * 100:g}", err=f"{SUITE_ERROR * 150:g}",
                        tests=tests))
    for nodeid, sides in o.failed.items():
        for side, text in sides.items():
            lines.append(plain(_w(lang, "pt_against_failed", test=nodeid, side=_w(lang, f"pt_against_side_{side}"),
                                  base=o.label, text=text)))
    return lines


def render_tables(tables: Sequence[Any], *, width: int, color: bool) -> str:
    """Rich tables as terminal text (colour only when the terminal has it)."""
    from rich.console import Console

    buf = io.StringIO()
    console = Console(file=buf, width=max(width, 60), force_terminal=color, color_system="standard" if color else None,
                      highlight=False, emoji=False, soft_wrap=False)
    for t in tables:
        console.print(t)
    return buf.getvalue()
