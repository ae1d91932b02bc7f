"""Plain-text and rich renderings of measurements. Functions return strings or rich renderables;
they never print."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from ..results.roofline import over_roof
from ..results.sample_masks import MAX_PREEMPTED_FRACTION_TO_DISCARD
from .findings import finding_lines, finding_words
# re-exported: user text made safe, and numbers in their units, from measurefirst.render.text as before
from .text_format import (cell as cell, decimals_for as decimals_for, format_relative as format_relative,
                          format_time as format_time, format_value as format_value, gbps as gbps,
                          pad_cells as pad_cells, plain as plain, time_unit as time_unit)
from .words import WORDS, code_word, ratio_ci_words, verdict_words, word

if TYPE_CHECKING:  # pragma: no cover
    from rich.table import Table

    from ..results.comparison import Comparison
    from ..results.fit import ComplexityFit, PowerFit
    from ..results.regression import Change
    from ..results.kinds import Count, Measurement
    from ..results.roofline import Peaks
    from ..results.sweep import SweepPoint, SweepResult

#: The headline interval is shown as ``±x%`` while its two sides differ by at most this fraction of the
#: wider one, as ``-a%/+b%`` where they differ more, and as a factor ``×/÷f`` from :data:`FACTOR_FROM` up (the
#: next run may take twice as long or more) where the factors down and up also agree that well.
SIDES_AGREE = 0.10
FACTOR_FROM = 1.0


def interval_rel(m: "Measurement", pm: bool = True) -> str:
    """The headline interval relative to the median, as every output shows it (the numbers are the JSON's
    ``interval.half_width`` and ``interval.sides_rel``): ``±2.2%`` (``2.2%`` with ``pm=False``, for a
    column headed ``±``) while the sides nearly agree, ``-31%/+45%`` where they differ (an interval of order
    statistics need not sit evenly around the median: ``-5.3%/+0.5%``), ``×/÷4.2`` when the next run may
    take twice as long or more and the interval reaches as far down as up, as a factor. A relative figure
    above 100% below the median cannot be shown."""
    sides = m.ci_sides_rel
    if (sides is None or not all(math.isfinite(x) for x in sides)
            or abs(sides[0] - sides[1]) <= SIDES_AGREE * max(sides)):
        text = format_relative(m.ci_half_width_rel)
        return "±" + text if pm and text != "n/a" else text
    down, up = sides
    below = 1.0 / (1.0 - down) if down < 1.0 else math.inf
    if up >= FACTOR_FROM and max(below, 1.0 + up) <= (1.0 + SIDES_AGREE) * min(below, 1.0 + up):
        return f"×/÷{max(1.0 + up, below):.3g}"
    return f"-{format_relative(down)}/+{format_relative(up)}"


def ci_range(ci: tuple[float, float], half_width: float | None, unit: tuple[str, float]) -> str:
    """``"260.78–262.48 µs"``: both ends in one unit, with the digits the half-width supports, and the
    lower end with two significant figures at least (a wide interval's lower end is never shown as 0)."""
    lo, hi = (format_time(x, half_width, unit).rsplit(" ", 1)[0] for x in ci)
    low = ci[0] / unit[1]
    if low > 0 and math.isfinite(low) and low < 10 ** (1 - decimals_for(low, None if half_width is None
                                                                      else half_width / unit[1])):
        lo = f"{low:.2g}"
    return f"{lo}–{hi} {unit[0]}"


def ci_text(m: "Measurement", lang: str = "en") -> str:
    ci = m.ci
    if ci is None:
        return word("ci_na_few", lang)
    unit = time_unit(m.median)
    hw = (ci[1] - ci[0]) / 2
    return word("ci_text", lang, range=ci_range(ci, hw, unit))


def spread_source_words(m: "Measurement", lang: str = "en") -> str:
    """Where the run-to-run spread came from: ``"5 repetitions in this process"``, with the noise
    profile's floor when it set one, and the hint to profile fresh processes when only repetitions
    inside one process measured it."""
    rr = m.run_to_run
    if rr is None:
        return ""
    text = code_word("rtr_src_", rr.source, lang, n=rr.n)
    # the floor, where it set the spread, unless the spread is the floor itself (one repetition: said once)
    kind = m.options.get("noise_floor_kind")
    if rr.floor > 0 and rr.floor >= rr.cv and rr.source != rr.floor_source:
        if kind in ("compute", "memory"):  # the profile's fresh processes of that kind of work set it
            text += word("rtr_floor_kind", lang, floor=format_relative(rr.floor), kind=word(f"bound_{kind}", lang),
                         work=word(f"noise.kind.{kind}", lang))
        else:
            text += word("rtr_floor_prior" if rr.floor_source == "prior" else "rtr_floor", lang,
                         floor=format_relative(rr.floor))
    elif rr.floor_source == "prior" and rr.source == "repeats":
        factor = f"{float(m.options.get('run_to_run_inflation', 1.0)):g}"
        within = m.options.get("run_to_run_multiplied_to")
        if isinstance(within, (int, float)) and within > 0:  # the prior's factor stopped at its reference's spread
            text += word("rtr_widened_prior_load", lang, factor=factor, within=format_relative(float(within)),
                         prior=f"{float(m.options.get('run_to_run_full_inflation', 1.0)):g}")
        else:
            text += word("rtr_widened_prior", lang, factor=factor)
    elif rr.source == "repeats" and not rr.floor_source:
        text += word("rtr_in_process_only", lang)
    if rr.starved > max(rr.cv, rr.floor) and m.summary is not None:  # the spread is the starvation's
        low = m.median / math.exp(rr.factor * math.log1p(rr.starved))
        starved = m.n_samples > 0 and m.n_preempted / m.n_samples > MAX_PREEMPTED_FRACTION_TO_DISCARD
        text += word("rtr_starved" if starved else "rtr_oversubscribed", lang, spread=format_relative(rr.starved),
                     low=format_time(low))
    return text


def spread_cell(m: "Measurement", lang: str = "en") -> str:
    """A table's run-to-run cell: ``"±0.7% · 5 reps"`` (or ``"· profile"`` where the machine's noise
    profile set the figure, ``"· prior"`` where measurefirst's prior set or widened it), or ``"not measured"``."""
    if not m.ci_includes_run_to_run:
        return word("rtr_not_measured", lang)
    assert m.run_to_run is not None
    rr = m.run_to_run
    source = rr.floor_source if rr.floor > rr.cv and rr.floor_source else rr.source
    if rr.floor_source == "prior" and rr.source == "repeats":  # the prior widened the repetitions' figure
        source = "prior"
    if rr.starved > max(rr.cv, rr.floor):
        source = "starved"
    return f"±{format_relative(rr.spread)} · " + code_word("rtr_short_", source, lang, n=rr.n)


def interval_words(m: "Measurement", lang: str = "en") -> str:
    """The headline interval, named: ``±2.2% run to run (…; spread ±0.7% per run from 5 repetitions in
    this process; this run's precision ±0.4%)``, or, with no spread measured, ``±0.4% this run's
    precision (…; run to run: not measured: how to measure it)``."""
    if m.ci_includes_run_to_run:
        assert m.run_to_run is not None
        return word("m_ci_next", lang, rel=interval_rel(m), ci=ci_text(m, lang),
                    spread=format_relative(m.run_to_run.spread), source=spread_source_words(m, lang),
                    prec=precision_words(m, lang))
    return word("m_ci_prec", lang, rel=interval_rel(m), ci=ci_text(m, lang),
                how=word("rtr_how" if m.imported is None else "rtr_how_imported", lang))


def precision_words(m: "Measurement", lang: str = "en") -> str:
    """This run's precision, ``"0.4%"``, or why its samples could not bound the median."""
    s = m.summary
    if s is not None and not s.ci_bounded:
        return word("prec_unbounded", lang)
    return format_relative(m.precision_half_width_rel)


def calls_words(numbers: "Iterable[int]", lang: str = "en") -> str:
    """``"1 call"``, ``"10 calls"`` or ``"5-10 calls"``: the calls per sample."""
    ns = sorted(set(numbers))
    if len(ns) > 1:
        return word("calls_range", lang, lo=ns[0], hi=ns[-1])
    return word("call_one" if ns[0] == 1 else "warmup_calls", lang, calls=ns[0])


def measurement_repr(m: "Measurement") -> str:
    """``repr(measurement)``: ``<Measurement 'label': median 1.23 µs ±0.4%, 100 samples × 8 calls [cpu, perf_counter]>``."""
    if m.summary is None:
        return f"<Measurement {m.label!r}: no samples [{m.device}, {m.timer}]>"
    return (f"<Measurement {m.label!r}: median {format_time(m.median)} "
            f"{interval_rel(m)}, {m.n_rounds} samples × {m.loop_counts[-1]} calls "
            f"[{m.device}, {m.timer}]{'' if m.complete else ' incomplete'}"
            f"{', ' + str(len(m.findings)) + ' finding(s)' if m.findings else ''}>")


def measurement_line(m: "Measurement", lang: str = "en") -> str:
    """One-paragraph summary: ``"matmul: 1.234 ms ±0.4% (95% CI …), median of 412 samples × 3 calls [cpu, wall]"``,
    then the speed reference and the findings."""
    lines = [measurement_summary(m, lang)]
    if m.summary is not None:
        lines += reference_lines(m, lang)
        lines += ["  " + line for line in finding_lines(sorted(m.findings, key=lambda f: f.severity == "info"), lang)]
    return "\n".join(plain(line) for line in lines)


def measurement_summary(m: "Measurement", lang: str = "en") -> str:
    """The first line of :func:`measurement_line`: the time with its interval, as every output shows it."""
    where = f"{m.device}, {m.timer}"
    if m.summary is None:
        state = "" if m.complete else word("interrupted_paren", lang)
        return plain(word("m_no_samples", lang, label=m.label, state=state, where=where))
    ci = m.ci
    hw = None if ci is None else (ci[1] - ci[0]) / 2
    used = m.n_used
    parts = [word("m_head", lang, label=m.label, time=format_time(m.median, hw))]
    if ci is not None:
        parts.append(interval_words(m, lang))
    parts.append(word("m_median_of", lang, used=m.n_rounds, calls=calls_words(m.loop_counts, lang), where=where))
    if m.imported is not None:
        parts.append(word("m_imported_recomputed" if m.imported.recomputed else "m_imported_as_given", lang,
                          tool=m.imported.source, n=m.imported.notch_min_rounds))
    if m.n_samples != used:
        parts.append(word("m_preempted", lang, n=m.n_samples - used))
    if m.host_median is not None:
        parts.append(word("m_host", lang, time=format_time(m.host_median)))
    if not m.complete:
        parts.append(word("m_incomplete", lang))
    return plain("".join(parts))


def reference_lines(m: "Measurement", lang: str = "en") -> list[str]:
    """The experimental speed reference, in words (nothing without one)."""
    if m.reference is None:
        return []
    norm = m.normalized
    if norm is None:
        return [word("ref_none", lang, label=m.reference.label)]
    state = word("two_speeds_seen" if norm.two_speeds else "one_speed_seen", lang)
    return [word("ref_line", lang, label=m.reference.label, time=format_time(norm.median),
                 factor=f"{norm.speed_factor:.3f}", state=state, raw=format_time(m.median))]


def count_line(c: "Count", lang: str = "en") -> str:
    """``"loop: 444,360 instructions per call (±0.03% over 3 repeats × 10 calls) [cpu, callgrind]"``."""
    where = f"{c.device}, {c.backend}"
    if not c.counts:
        return word("count_none", lang, label=c.label, where=where)
    lines = [word("count_line", lang, label=c.label, value=f"{c.per_call:,.0f}", event=c.event,
                  spread=format_relative(c.spread), repeats=c.n_repeats, calls=c.calls, where=where)]
    lines += ["  " + line for line in finding_lines(c.findings, lang)]
    return "\n".join(plain(line) for line in lines)


def columns(table: "Table", cols: "Iterable[tuple[str, str]]", lang: str) -> None:
    """Add the columns named by vocabulary keys (a key the vocabulary lacks is shown as it is, as ``±``),
    each with its justification (``left`` or ``right``)."""
    for key, justify in cols:
        table.add_column(word(key, lang), justify=justify)  # type: ignore[arg-type]


def count_table(counts: Iterable["Count"], *, title: str | None = None, lang: str = "en") -> "Table":
    """A rich table with one row per count: events per call, the repeats' spread, how they were counted."""
    from rich.table import Table

    table = Table(title=title, show_lines=False)
    columns(table, (("col_benchmark", "left"), ("per_call", "right"), ("event", "left"), ("±", "right"),
                    ("min", "right"), ("max", "right"), ("repeats", "right"), ("calls_per_repeat", "right"),
                    ("col_backend", "left")), lang)
    for c in counts:
        if not c.counts:
            table.add_row(c.label, "n/a", c.event, "", "", "", "0", str(c.calls), c.backend)
            continue
        per = c.per_call_counts
        table.add_row(c.label, f"{c.per_call:,.0f}", c.event, format_relative(c.spread), f"{min(per):,.0f}",
                      f"{max(per):,.0f}", str(c.n_repeats), str(c.calls), c.backend)
    return table


def measurement_table(measurements: Iterable["Measurement"], *, title: str | None = None,
                      lang: str = "en") -> "Table":
    """A rich table with one row per measurement: median, the headline CI and its two parts (run to run,
    this run's precision), spread, samples, how they were taken (the mean is in the JSON and the report)."""
    from rich.table import Table

    table = Table(title=None if title is None else cell(title), show_lines=False)
    columns(table, (("col_benchmark", "left"), ("median", "right"), ("ci95", "right"), ("±", "right"),
                    ("col_run_to_run", "left"), ("col_precision", "right"),
                    ("IQR", "right"), ("min", "right"), ("samples_calls", "right"),
                    ("col_warmup", "right"), ("device_timer", "left")), lang)
    for m in measurements:
        if m.summary is None:
            table.add_row(cell(m.label), "n/a", "", "", "", "", "", "", "0", "", cell(f"{m.device}/{m.timer}"))
            continue
        unit = time_unit(m.median)
        ci = m.ci
        hw = None if ci is None else (ci[1] - ci[0]) / 2
        ci_cell = "n/a" if ci is None else ci_range(ci, hw, unit)
        numbers = m.loop_counts
        warm = "" if m.warmup is None else word("warmup_calls", lang, calls=m.warmup.calls)
        label = m.label + ("" if m.complete else word("incomplete_paren", lang))
        samples = f"{m.n_rounds}" + (word("preempted_paren", lang, n=m.n_samples - m.n_used)
                                   if m.n_samples != m.n_used else "")
        table.add_row(
            cell(label), format_time(m.median, hw, unit), ci_cell, interval_rel(m, pm=False),
            spread_cell(m, lang), "±" + format_relative(m.precision_half_width_rel),
            format_time(m.iqr, None, unit), format_time(m.min, hw, unit),
            samples + " × " + (str(numbers[0]) if len(numbers) == 1 else f"{numbers[0]}-{numbers[-1]}"), warm,
            cell(f"{m.device}/{m.timer}"),
        )
    return table


def comparison_lines(c: "Comparison", lang: str = "en") -> list[str]:
    """The verdicts in words, one line per candidate, then how the comparison stopped."""
    lines = []
    for v in c.verdicts:
        if v.verdict == "baseline":
            continue
        ci = ratio_ci_words(v, lang)
        lines.append(plain(word("cmp_than" if v.verdict in ("faster", "slower") else "cmp_against", lang,
                                label=v.label, words=verdict_words(v, lang), baseline=v.baseline, ci=ci,
                                rounds=word("rounds", lang, n=v.rounds))))
    lines.append(word("stopped_line", lang, reason=code_word("reason_", c.stop.reason, lang),
                      seconds=f"{c.stop.seconds:.2f}", settled=settled_words(c, lang),
                      state="" if c.complete else word("m_incomplete", lang)))
    return lines


def settled_words(c: "Comparison", lang: str = "en") -> str:
    """Whether every verdict settled; when the budget stopped it first, how long each unsettled one would
    take at this pace (:meth:`~measurefirst.results.comparison.Comparison.settle_seconds`)."""
    text = word("all_settled" if c.stop.target_met else "not_all_settled", lang)
    for label, seconds in c.settle_seconds().items():
        shown = f"{seconds:.1f}" if seconds < 10 else f"{seconds:.0f}"
        text += word("settle_eta_sep", lang) + word("settle_eta", lang, label=label, seconds=shown)
    return text


def comparison_table(c: "Comparison", *, title: str | None = None, lang: str = "en") -> "Table":
    """One row per candidate: median and CI, the speed-up against the baseline with its CI, the verdict."""
    from rich.table import Table

    table = Table(title=None if title is None else cell(title))
    columns(table, (("col_candidate", "left"), ("median", "right"), ("ci95_precision", "right")), lang)
    table.add_column(cell(word("vs_baseline", lang, baseline=c.baseline)), justify="right")
    columns(table, (("speedup_ci", "right"), ("verdict", "left")), lang)
    if c.compiled:
        columns(table, (("col_compile", "right"), ("col_break_even", "right")), lang)
    best = min((m.median for m in c.measurements), default=math.nan)
    marked = False
    for m, v in zip(c.measurements, c.verdicts):
        unit = time_unit(m.median)
        ci = m.ci
        hw = None if ci is None else (ci[1] - ci[0]) / 2
        style = _relative_style(m.median / best if best > 0 else math.nan)
        # the speed-up and its CI, on one scale
        speedup_ci = "" if v.speedup_ci is None or v.verdict == "baseline" else f"{v.speedup_ci[0]:.4f}–{v.speedup_ci[1]:.4f}"
        vs = word("baseline", lang) if v.verdict == "baseline" else f"{v.speedup:.3f}x"
        mark = " !" if point_issues(m) else ""
        marked = marked or bool(mark)
        row: list[Any] = [cell(m.label + mark), cell(format_time(m.median, hw, unit), style),
               "n/a" if ci is None else ci_range(ci, hw, unit), vs, speedup_ci, cell(verdict_words(v, lang))]
        if c.compiled:
            row += compile_cells(c, m, lang)
        table.add_row(*row)
    if marked:
        table.caption = word("mark_caption", lang)
    return table


def compile_cells(c: "Comparison", m: "Measurement", lang: str = "en") -> list[str]:
    """A candidate's compile time before sampling (torch's accounting, with the cache's state) and the
    calls until compiling pays for itself against the baseline (:meth:`Comparison.break_even`)."""
    if m.compiled is None or not m.compiled.compiles:
        return ["", ""]
    compile_s = f"{m.compiled.first_s:.2f} s"
    if m.compiled.cache in ("cold", "warm"):
        compile_s += f" ({word('cache_' + m.compiled.cache, lang)})"
    calls = c.break_even(m.label)
    if calls is None:
        return [compile_s, ""]
    return [compile_s, word("never_pays", lang) if math.isinf(calls) else f"{math.ceil(calls):,}"]


def point_issues(m: "Measurement", lang: str = "en") -> list[str]:
    """Why a measurement deserves a ``!`` mark: its warnings (not notes), preempted samples set aside,
    a precision target not met, or an incomplete run. Empty when it reads clean."""
    issues = [word("issue_finding", lang, code=f.code, message=finding_words(f, lang).message)
              for f in m.findings if f.severity != "info"]
    if m.n_preempted and m.n_used != m.n_samples:
        issues.append(word("issue_preempted", lang, k=m.n_samples - m.n_used, n=m.n_samples))
    # the target, unless a finding already said it: against the interval the stopping rule judged
    said = any(f.code in ("precision_not_met", "noise_floor") for f in m.findings)
    rel = m.precision_half_width_rel
    if (m.summary is not None and not m.stop.target_met and m.stop.reason not in ("trials", "max_samples")
            and not said and not rel <= m.stop.precision):
        issues.append(word("issue_precision", lang, target=f"{m.stop.precision:.1%}", got=format_relative(rel),
                           reason=code_word("reason_", m.stop.reason, lang)))
    if not m.complete:
        issues.append(word("issue_incomplete", lang))
    return issues


def issue_lines(measurements: Iterable["Measurement"], lang: str = "en") -> list[str]:
    """``label: issue`` for every ``!``-marked measurement (see :func:`point_issues`)."""
    return [plain(word("issue_line", lang, label=m.label, issue=issue)) for m in measurements
            for issue in point_issues(m, lang)]


def _relative_style(ratio: float) -> str:
    """Colour against the best: green for the best, yellow within 10%, red beyond 50%."""
    if not math.isfinite(ratio):
        return "default"
    if ratio <= 1.0 + 1e-12:
        return "bold green"
    if ratio <= 1.1:
        return "green"
    if ratio <= 1.5:
        return "yellow"
    return "red"


def grid_table(cells: "Mapping[tuple[str, str], Measurement]", *, title: str | None = None,
               row_name: str = "", lang: str = "en") -> "Table":
    """A torch.utils.benchmark-style table: rows x columns (e.g. implementation x size), each cell
    the median with its CI half-width, coloured against the best of its column; ``!`` marks a cell
    whose measurement carries warnings."""
    from rich.table import Table

    rows: list[str] = []
    cols: list[str] = []
    for r, c in cells:
        if r not in rows:
            rows.append(r)
        if c not in cols:
            cols.append(c)
    table = Table(title=None if title is None else cell(title))
    table.add_column(cell(row_name))
    for c in cols:
        table.add_column(cell(c), justify="right")
    best = {c: min((m.median for (r2, c2), m in cells.items() if c2 == c and m.summary is not None),
                   default=math.nan) for c in cols}
    marked = False
    for r in rows:
        out: list[Any] = [cell(r)]
        for c in cols:
            m = cells.get((r, c))
            if m is None or m.summary is None:
                out.append("")
                continue
            ci = m.ci
            hw = None if ci is None else (ci[1] - ci[0]) / 2
            mark = " !" if point_issues(m) else ""
            marked = marked or bool(mark)
            style = _relative_style(m.median / best[c] if best[c] > 0 else math.nan)
            text = cell(format_time(m.median, hw), style)
            text.append(f" {interval_rel(m)}{mark}")
            out.append(text)
        table.add_row(*out)
    if marked:
        table.caption = word("mark_caption", lang)
    return table


def sweep_table(result: "SweepResult", label: str | None = None, lang: str = "en") -> "Table":
    """The lecture's table for one implementation: n, time, relative to the reference size, the
    work ratio, throughput, intensity and the roofline class."""
    from rich.table import Table

    from ..results.errors import FitError

    series = result.series(label)
    name = series[0].label if series else (label or "")
    overhead = None
    try:
        overhead = result.fit(name).t0
    except FitError:
        pass
    table = Table(title=cell(word("on_device", lang, name=name, device=result.device)))
    columns(table, (("n", "right"), ("time", "right"), ("pm_run_to_run", "right")), lang)
    table.add_column(word("vs_reference", lang, n=result.reference), justify="right")
    columns(table, (("work_ratio", "right"), ("GFLOP/s", "right"), ("GB/s", "right"), ("FLOP/B", "right"),
                    ("bound", "left"), ("of_roof", "right")), lang)
    marked = False
    for p in series:
        if not p.ok:
            table.add_row(str(p.n), cell(word("failed", lang), "red"), "", "", "", "", "", "", cell(point_error(p, lang)), "")
            continue
        m = p.measurement
        assert m is not None
        mark = " !" if point_issues(m) else ""
        marked = marked or bool(mark)
        rel, work = result.relative(p)
        b = result.bound(p, overhead)
        table.add_row(
            f"{p.n}{mark}", format_time(m.median, None if m.ci is None else (m.ci[1] - m.ci[0]) / 2),
            interval_rel(m, pm=False), "" if rel is None else f"{rel:.3g}x",
            "" if work is None else f"{work:.3g}x",
            "" if p.flops_per_s is None else f"{p.flops_per_s / 1e9:.3g}",
            "" if p.bytes_per_s is None else f"{p.bytes_per_s / 1e9:.3g}",
            "" if p.intensity is None else f"{p.intensity:.3g}",
            "" if b.kind == "unknown" else code_word("bound_", b.kind.split("-")[0], lang),
            "" if b.fraction is None else f"{b.fraction:.0%}" + (" !" if over_roof(b) else ""),
        )
    if marked:
        table.caption = word("mark_caption", lang)
    return table


def peaks_text(p: "Peaks", lang: str = "en") -> str:
    """``"test cpu (cpu, float32, 2 threads): matmul 100.0 GFLOP/s (n=1024), copy 10.0 GB/s (64 MiB), ridge 10.0 FLOP/byte"``."""
    text = word("peaks_text", lang, name=p.device_name, device=p.device, dtype=p.dtype, threads=p.threads,
                flops=f"{p.flops_per_s / 1e9:.1f}", n=p.matmul_size, bw=f"{p.bytes_per_s / 1e9:.1f}",
                mib=f"{p.copy_bytes / 2**20:.0f}", ridge=f"{p.ridge:.1f}")
    if p.cache_bytes > 0:  # what "in cache" is measured against
        text += word("peaks_cache", lang, mib=f"{p.cache_bytes / 2**20:.3g}")
    if p.measured_at:  # how the ceiling was measured, so that a wrong one can be told
        text += word("peaks_how", lang, when=p.measured_at, load="n/a" if p.load < 0 else f"{p.load:.2f}",
                     cpus=p.cpus or "n/a")
    return text


def fit_text(f: "PowerFit", lang: str = "en") -> str:
    """The fitted ``t(n) = t0 + c·n^k`` in words, with its exponent's CI, crossover and error."""
    cross = word("none_in_range", lang) if f.crossover is None else f"n ≈ {f.crossover:.3g}"
    text = word("fit_text", lang, t0=format_time(f.t0), c=f"{f.c:.3g}", k=f"{f.k:.3f}", klo=f"{f.k_ci[0]:.3f}",
                khi=f"{f.k_ci[1]:.3f}", cross=cross, rms=f"{f.rms_rel_error:.1%}", n=f.n_points)
    if f.at_edge:
        text += word("fit_at_edge", lang, k=f"{f.k_max:g}")
    if f.poor:
        text += word("fit_poor", lang)
    return text


def complexity_text(cx: "ComplexityFit", lang: str = "en") -> str:
    """``"O(n³) + overhead: t(n) ≈ 20.00 µs + 0.04·g(n) (rms error 0.1%)"``."""
    return word("complexity_text", lang, best=cx.best, t0=format_time(cx.t0), c=f"{cx.c:.3g}",
                rms=f"{cx.rms_rel_error[cx.best]:.1%}")


def sweep_lines(result: "SweepResult", *, points: bool = True, lang: str = "en") -> list[str]:
    """Plain-text summary: per implementation, each point (unless ``points`` is False, as under a
    table of them), the fitted model and the complexity class."""
    from ..results.errors import FitError

    lines = []
    if result.peaks is not None:
        lines.append(word("peaks_line", lang, peaks=peaks_text(result.peaks, lang)))
    for label in result.labels:
        lines.append(plain(word("series_head", lang, label=label)))
        for p in result.series(label) if points else ():
            if not p.ok:
                lines.append(plain(word("point_failed", lang, n=p.n, error=point_error(p, lang))))
                continue
            rel, work = result.relative(p)
            extra = "" if rel is None else word("point_rel", lang, rel=f"{rel:.3g}", ref=result.reference)
            extra += "" if work is None else word("point_work", lang, work=f"{work:.3g}")
            sep = word("list_comma", lang)
            extra += "" if p.flops_per_s is None else f"{sep}{p.flops_per_s / 1e9:.3g} GFLOP/s"
            extra += "" if p.bytes_per_s is None else f"{sep}{p.bytes_per_s / 1e9:.3g} GB/s"
            issues = point_issues(p.measurement, lang) if p.measurement is not None else []
            extra += "" if not issues else " ! " + word("list_sep", lang).join(issues)
            lines.append(plain(word("point_line", lang, n=p.n, time=format_time(p.seconds), extra=extra)))
        try:
            lines.append(word("fit_line", lang, fit=fit_text(result.fit(label), lang)))
        except FitError as exc:
            lines.append(word("fit_none", lang, error=exc))
        try:
            lines.append(word("complexity_line", lang, cx=complexity_text(result.complexity(label), lang)))
        except FitError:
            pass
    checks = result.checks()
    if checks:  # what the sweep's numbers say against each other: a rate above its roof, a fit its points contradict
        lines += [plain(line) for line in finding_lines(checks, lang)]
    if not result.complete:
        lines.append(word("sweep_incomplete", lang))
    return lines


def verdict_word(c: "Change", gate: bool, lang: str = "en") -> tuple[str, str]:
    """The verdict of a saved-baseline comparison (:meth:`Change.verdict`) and its style, as
    ``measurefirst compare`` shows it."""
    verdict = c.verdict(gate)
    style = {"regression": "bold red", "slower": "red", "faster": "green", "same": "", "undecided": "yellow"}[verdict]
    return word(f"reg_{verdict}", lang), style


def point_error(p: "SweepPoint", lang: str = "en") -> str:
    """Why a size failed: the error's text, in what its code says (``out of memory: ...``) when it has one."""
    key = f"sweep_error_{p.error_code}"
    return word(key, lang, error=p.error or "") if key in WORDS else p.error or ""


def failed_sizes_lines(result: "SweepResult", lang: str = "en") -> list[str]:
    """The sizes of a sweep that failed, with their errors, in one line (none when every size ran)."""
    failed = [p for p in result.points if not p.ok]
    if not failed:
        return []
    errors = word("list_sep", lang).join(word("size_error", lang, n=p.n, error=point_error(p, lang)) for p in failed)
    if len(failed) == len(result.points):
        return [word("sizes_all_failed", lang, errors=errors)]
    return [word("sizes_failed", lang, n=len(failed), errors=errors)]
