"""The words of the pytest plugin: the header, the end-of-run summary tables, regression and assertion
messages, the pytest-xdist refusal. Functions return strings, lines or rich tables; they never print
(the plugin writes them through pytest's terminal reporter)."""

from __future__ import annotations

import io
from pathlib import Path
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, Sequence

from ..render.findings import finding_lines
from ..render.text import cell, ci_range, format_relative, format_time, plain, time_unit, verdict_word
from ..render.gate import spread_lines
from ..render.words import flag_words, ratio_ci_words, undecided_words, word

if TYPE_CHECKING:  # pragma: no cover
    from rich.table import Table

    from ..tools.compare import Comparison, Verdict
    from .run import Record
    from ..tools.regression import Change


def skip_reason(*, only: bool) -> str:
    if only:
        return "measurefirst: not a measuring test (--mf-only)"
    return "measurefirst: a measuring test (--mf-skip)"


def header_lines(*, device: str, budget: float, simulated: bool, compat: bool, disabled_plugins: Sequence[str],
                 ignored: Sequence[tuple[str, str]], baseline: str | None, threshold: float | None,
                 save: str | None, disabled: bool, worker: str | None) -> list[str]:
    how = "nothing timed (--mf-disable): each measured function runs once" if disabled else (
        f"device {device}, budget {budget:g} s per measurement" + (", simulated clock" if simulated else ""))
    lines = [f"measurefirst: {how}"]
    if baseline is not None:
        gate = (f"; a test fails when slower beyond its CI and {threshold:.1%}" if threshold is not None else "")
        lines.append(f"measurefirst: comparing with {baseline}{gate}")
    if save is not None:
        lines.append(f"measurefirst: saving as @{save}")
    if compat:
        lines.append("measurefirst: providing pytest-benchmark's `benchmark` fixture (--mf)"
                     + (f"; turned off for this run: {', '.join(disabled_plugins)}" if disabled_plugins else ""))
    for flag, instead in ignored:
        lines.append(f"measurefirst: {flag} is not supported under --mf and is ignored; use {instead}")
    if worker is not None:
        lines.append(f"measurefirst: {xdist_worker_warning(worker)}")
    return lines


def xdist_worker_warning(worker: str) -> str:
    return (f"measurefirst refuses to measure under pytest-xdist (worker {worker}): timings taken while other "
            f"workers run in parallel are meaningless. Each measured function ran once and nothing was timed. "
            f"Run the measuring tests in one process: pytest -p no:xdist --mf-only (or -n 0)")


def xdist_summary(workers: Sequence[str]) -> str:
    names = ", ".join(sorted(set(workers)))
    return (f"refused to measure under pytest-xdist: {len(workers)} measuring test(s) ran on workers {names} "
            f"in parallel, so nothing was timed (each measured function ran once). Timings taken while other "
            f"workers run are meaningless: run the measuring tests in one process, e.g. "
            f"pytest -p no:xdist --mf-only (or -n 0)")


def no_saved_runs(ref: str | None, store: Path, saved: Sequence[str]) -> str:
    known = ", ".join(saved[:10]) or "none yet"  # bare names: pytest reads a lone @NAME as a file of arguments
    if ref is None:
        return (f"--mf-compare: no runs saved with --mf-save in {store}; save a baseline first, "
                f"e.g. pytest --mf-save base (or give the store with --mf-store PATH)")
    return (f"--mf-compare {ref}: no runs saved under that name in {store} (saved: {known}); "
            f"save them first with --mf-save {ref[1:].partition('~')[0]}")


def benchmark_without_mf(given: Sequence[str], users: Sequence[str]) -> str:
    """``--mf-*`` options without ``--mf`` while pytest-benchmark times the ``benchmark`` fixture."""
    return (f"{', '.join(given)} without --mf: {len(users)} test(s) use pytest-benchmark's `benchmark` fixture "
            f"(e.g. {users[0]}), which pytest-benchmark times, so these options would not apply to them; add --mf "
            f"(measurefirst then measures them), or leave the --mf-* options out to run pytest-benchmark alone")


def weave_unsupported() -> str:
    return ("benchmark.weave is not supported under --mf (it patches functions with aspectlib while the test "
            "runs); call benchmark(fn, *args) on the function instead")


def regression_line(r: "Record", baseline: str, threshold: float) -> str:
    assert r.change is not None
    return (f"{r.display}: {r.change.words()} than {baseline}, beyond the {threshold:.1%} threshold "
            f"and the noise")


def undecided_line(r: "Record", baseline: str) -> str:
    """``test_a: too noisy to judge against @base (...): the new run: ...; re-run on a quiet machine``."""
    assert r.change is not None
    return plain(word("pt_undecided_line", "en", label=r.display, baseline=baseline, words=r.change.words(),
                      reasons=undecided_words(r.change, "en")))


def regression_failure(records: Sequence["Record"], baseline: str, threshold: float, *,
                       undecided: Sequence["Record"] = ()) -> str:
    """The failure shown for a test whose own assertions passed but whose measurement regressed (or, with
    ``--mf-undecided fail``, could not be judged)."""
    lines = []
    if records:
        lines.append("measurefirst: slower than the baseline beyond the noise and the threshold (--mf-fail-if-slower)")
        lines += ["  " + regression_line(r, baseline, threshold) for r in records]
    if undecided:
        lines.append(word("pt_undecided_fails", "en"))
        lines += ["  " + undecided_line(r, baseline) for r in undecided]
    return "\n".join(lines)


def assertion_failure(claim: str, label: str, than: str, by: float, v: "Verdict", c: "Comparison") -> str:
    """``assert_faster("fused", than="manual", by=1.2)`` failing: what was asked, the verdict, its CI."""
    want = {"faster": f"at least {by:g}x faster than", "slower": f"at least {by:g}x slower than",
            "not slower": "not slower than" if by == 1.0 else f"not more than {by:g}x slower than"}[claim]
    relation = " than " if v.verdict in ("faster", "slower") else " against "
    measured = f"{v.words()}{relation}{than}"
    if v.verdict == "faster":
        measured += f" ({v.speedup:.3f}x)"
    elif v.verdict == "slower":
        measured += f" ({v.ratio:.3f}x)"
    medians = []
    for lab in (label, than):
        m = c[lab]
        if m.summary is not None:
            medians.append(f"{lab} {format_time(m.median)}")
    lines = [f"expected {label} to be {want} {than}",
             f"measured: {measured}",
             f"  {ratio_ci_words(v, 'en')}{v.rounds} interleaved rounds"
             + (f"; medians: {', '.join(medians)}" if medians else "")]
    if v.verdict in ("no difference", "undecided"):
        lines.append("  (a verdict needs the ratio's 95% CI to exclude 1; a larger budget narrows it)")
    return "\n".join(lines)


# ---- the end-of-run summary ------------------------------------------------------------------

def _samples_cell(r: "Record") -> str:
    m = r.measurement
    numbers = m.loop_counts
    calls = str(numbers[0]) if len(numbers) == 1 else f"{numbers[0]}-{numbers[-1]}"
    aside = m.n_samples - m.n_used
    return f"{m.n_rounds} × {calls}" + (f" (+{aside} preempted)" if aside else "")


def change_cell(c: "Change") -> str:
    """Compact: ``1.200x (1.190–1.210)``: the time ratio new/baseline and its 95% CI."""
    return f"{c.ratio:.3f}x ({c.ci_low:.3f}–{c.ci_high:.3f})"


COMPARISON_TITLE = " (interleaved)"


def _group_key(r: "Record") -> str:
    """The table a record goes in: its group, else the candidates of one comparison together (rows
    named by candidate), else its test file."""
    if r.group:
        return f"group {r.group}"
    if r.comparison is not None:
        return r.name.rsplit("::", 1)[0] + COMPARISON_TITLE
    return r.module


def group_table(title: str, records: Sequence["Record"], *, baseline: str | None, gate: bool,
                width: int = 120) -> "Table":
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
        row = {"test": (r.label if _group_key(r).endswith(COMPARISON_TITLE) and r.label else r.display) + mark,
               "median": format_time(m.median, hw, unit) + ("" if ci is None else f" ±{format_relative(m.ci_half_width_rel)}"
                                                            + ("*" if mixed and not m.ci_includes_run_to_run else "")),
               "median_plain": format_time(m.median, hw, unit),
               "95% CI": "n/a" if ci is None else ci_range(ci, hw, unit), "samples": _samples_cell(r),
               "device/timer": f"{m.device}/{m.timer}"}
        style = ""
        if baseline is not None:
            if r.change is not None:
                row["vs"], style = change_cell(r.change), ""
                row["verdict"], style = verdict_word(r.change, gate)
            elif r.baseline_error is not None:
                row["vs"], row["verdict"] = "not comparable", "n/a"
            else:
                row["vs"], row["verdict"] = "no baseline", "new"
        rows.append(row)
        styles.append(style)
    cols = ["test", "median", "95% CI", "samples"] + ([] if one_place else ["device/timer"])
    if baseline is not None:
        cols += ["vs", "verdict"]
    header = {"vs": f"vs {baseline}"}

    def needed(names: list[str]) -> int:
        # cell widths, one space of padding each side, a separator between columns, the edges
        return sum(max([len(header.get(c, c))] + [len(row[c]) for row in rows]) for c in names) + 3 * len(names) + 1

    for optional in ("samples", "device/timer", "95% CI"):
        if needed(cols) > width and optional in cols:
            cols.remove(optional)
    if needed(cols) > width:  # last: the median without its ± (the ratio's CI is in the row)
        cols[cols.index("median")] = "median_plain"
        header["median_plain"] = "median"
    full_title = title + (f" [{next(iter(places))}]" if one_place else "")
    table = Table(title=cell(full_title), title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False,
                  min_width=min(width, len(full_title)))
    for c in cols:
        table.add_column(header.get(c, c), justify="left" if c in ("test", "verdict", "device/timer") else "right",
                         no_wrap=c != "test", overflow="fold")
    for row, style in zip(rows, styles):
        table.add_row(*(cell(row[c], style if c == "verdict" else "") for c in cols))
    if "median" in cols or "95% CI" in cols:  # say which interval the ± and the CI are
        table.caption = ("±, 95% CI: where the next run may land (run to run)" if kinds == {True} else
                         "±, 95% CI: this run's precision (run to run not measured)" if kinds == {False} else
                         "±, 95% CI: where the next run may land (run to run); * this run's precision only")
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
    def simulation(self) -> object | None: ...
    @property
    def gate(self) -> bool: ...
    @property
    def threshold(self) -> float | None: ...
    @property
    def undecided_policy(self) -> str: ...
    @property
    def saved(self) -> tuple[int, str, Path] | None: ...
    @property
    def written(self) -> Sequence[Path]: ...
    @property
    def errors(self) -> Sequence[str]: ...


def session_summary(s: "Session", *, refused_by_workers: Sequence[str] = (), width: int = 120,
                    verbose: bool = False) -> tuple[list[str], list["Table"], list[str]]:
    """Lines before the tables, the tables (one per group: the group's name, else the test file), and
    lines after them; all empty when nothing was measured and nothing went wrong (the plugin stays
    quiet)."""
    head: list[str] = []
    tables: list["Table"] = []
    lines: list[str] = []
    measured = [r for r in s.records if r.measurement.summary is not None]
    baseline = None if s.baseline is None else s.baseline.label
    if refused_by_workers:
        head.append(xdist_summary(refused_by_workers))
    if s.disabled_calls and not s.measuring and s.worker is None:
        head.append(f"nothing timed (--mf-disable): {s.disabled_calls} measured function(s) ran once each")
    if measured:
        groups: dict[str, list["Record"]] = {}
        for r in measured:
            groups.setdefault(_group_key(r), []).append(r)
        tests = len({r.nodeid for r in measured})
        title = f"{len(measured)} measurement(s) in {tests} test(s)"
        if baseline is not None:
            spread = any(r.change is not None and r.change.run_to_run > 0 for r in measured)
            title += (f", compared with {baseline} (time ratio new/baseline, 95% CI"
                      + ("; with both runs' run-to-run spreads" if spread else "") + ")")
        if s.simulation is not None:
            title += "; simulated clock"
        head.append(title)
        tables = [group_table(key, rs, baseline=baseline, gate=s.gate, width=width) for key, rs in groups.items()]
        for cr in s.comparisons:
            c = cr.comparison
            prefix = cr.name.split("::", 1)[1] if "::" in cr.name else cr.name
            for v in c.verdicts:
                if v.verdict == "baseline":
                    continue
                relation = " than " if v.verdict in ("faster", "slower") else " against "
                lines.append(f"{prefix}: {v.label}: {v.words()}{relation}{v.baseline} — "
                             f"{ratio_ci_words(v, 'en')}{v.rounds} interleaved rounds")
        flagged = [r for r in measured if any(f.severity != "info" for f in r.measurement.findings)]
        if flagged:
            lines.append("findings (! in the tables" + ("" if verbose else "; -v shows how to fix each") + "):")
        for r in flagged:
            found = [f for f in r.measurement.findings if f.severity != "info"]
            lines += [plain(f"  {r.display}: {line}") for line in finding_lines(found, fix=verbose)]
            if r.change is not None:
                for flag in r.change.flags:
                    lines.append(f"{r.display}: note: {flag_words(r.change, flag, 'en')}")
            if r.baseline_error is not None:
                lines.append(f"{r.display}: not compared with {baseline}: {r.baseline_error}")
        if baseline is not None:
            lines += [plain(line) for line in spread_lines([r.change for r in measured if r.change is not None])]
        if s.threshold is not None and baseline is not None:
            slow = [r for r in measured if r.regression]
            noisy = [r for r in measured if r.undecided]
            for r in slow:
                lines.append("REGRESSION " + regression_line(r, baseline, s.threshold))
            for r in noisy:
                lines.append("UNDECIDED " + undecided_line(r, baseline))
            if not slow:
                lines.append(f"no regression beyond {s.threshold:.1%} and the noise against {baseline}"
                             + (word("pt_undecided_tail", "en", n=len(noisy),
                                     policy=word(f"pt_undecided_{s.undecided_policy}", "en")) if noisy else ""))
    if s.saved is not None:
        n, name, path = s.saved
        lines.append(f"saved {n} measurement(s) as @{name} in {path} (compare with: --mf-compare {name})")
    for path in s.written:
        lines.append(f"wrote {path}")
    for err in s.errors:
        lines.append(f"error: {err}")
    return head, tables, lines


def render_tables(tables: Sequence[Any], *, width: int, color: bool) -> str:
    """Rich tables as terminal text (colour only when the terminal has it)."""
    from rich.console import Console

    buf = io.StringIO()
    console = Console(file=buf, width=max(width, 60), force_terminal=color, color_system="standard" if color else None,
                      highlight=False, emoji=False, soft_wrap=False)
    for t in tables:
        console.print(t)
    return buf.getvalue()
