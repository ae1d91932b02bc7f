"""Part 2 of the lecture, scaling: a matrix product swept over sizes, its table, and the power law fitted
to it read as measured."""

from __future__ import annotations

import math
from typing import Any, Callable

import torch

from measurefirst.results.kinds import Measurement
from measurefirst.results.fitting import FitError, PowerFit
from measurefirst.render.text import format_time
from measurefirst.tools.sweep import SweepResult, sweep

from .demo_numbers import DemoResult, Emit, _ci_cell, _mark, _pct, _row, interval_kind, issue_codes, mark_lines
from .narration import say

#: A fitted exponent within this distance of 3 reads as "follows n³".
CUBIC_TOLERANCE = 0.35
#: A 95% CI on k wider than this says the fit has no say about the exponent.
K_CI_TOO_WIDE = 2.0
#: The fitted fixed overhead is named as what the smallest size pays from this share of its time up.
OVERHEAD_SHARE = 0.5
#: A scaling row below this share of the best measured rate reads as "the hardware is far from fed".
UNDERFED_SHARE = 0.25


# ---- part 2 -------------------------------------------------------------------------------------

def fit_lines(fit: PowerFit | None, lang: str) -> tuple[str, list[str]]:
    """(the lesson's branch, its lines) chosen from the fitted exponent: ``cubic`` (k near 3), ``below``,
    ``above``, or ``unknown`` (no fit, k at the edge of its range, a poor fit or a CI too wide to say)."""
    if fit is None:
        return "unknown", [say("scaling.nofit", lang), say("scaling.lesson.unknown", lang)]
    cross = say("scaling.nocross", lang) if fit.crossover is None else say("scaling.cross", lang,
                                                                            n=f"{fit.crossover:.0f}")
    lines = [say("scaling.fit", lang, t0=format_time(fit.t0), k=fit.k, klo=fit.k_ci[0], khi=fit.k_ci[1],
                 cross=cross)]
    if fit.at_edge:
        return "unknown", lines + [say("scaling.edge", lang, k=fit.k), say("disturbed", lang),
                                   say("scaling.lesson.unknown", lang)]
    if fit.poor or fit.k_ci[1] - fit.k_ci[0] > K_CI_TOO_WIDE:
        return "unknown", lines + [say("scaling.poor", lang, rms=fit.rms_rel_error, klo=fit.k_ci[0],
                                       khi=fit.k_ci[1]), say("disturbed", lang), say("scaling.lesson.unknown", lang)]
    branch = "cubic" if abs(fit.k - 3) <= CUBIC_TOLERANCE else "below" if fit.k < 3 else "above"
    return branch, lines + [say(f"scaling.lesson.{branch}", lang, k=fit.k)]


def scaling_table_lines(result: SweepResult, lang: str, t0: float | None = None
                        ) -> tuple[list[dict[str, Any]], list[tuple[str, Measurement]], list[str]]:
    """(rows as data, the disturbed points, the lines): the sweep's table, its interval column named by the
    kind of interval it holds, the marks with the fix, and the under-fed small size said with the table's
    own strings; the fixed overhead is named as what it pays only where the fitted ``t0`` is at least
    :data:`OVERHEAD_SHARE` of that size's time."""
    kind = interval_kind([p.measurement for p in result.series() if p.ok and p.measurement is not None])
    cols = say("scaling.columns", lang, ref=result.reference, pm=say(f"pm.{kind}", lang)).split("|")
    widths = [6, 12, 14, 16, 10, 9, 8]
    lines = [_row(cols, widths)]
    rows: list[dict[str, Any]] = []
    marked: list[tuple[str, Measurement]] = []
    ok = [p for p in result.series() if p.ok]
    best = max(((p.flops_per_s or 0.0) for p in ok), default=0.0)
    best_gflops = f"{best / 1e9:.3g}"
    for p in result.series():
        if not p.ok or p.measurement is None:
            lines.append(say("scaling.failed", lang, n=p.n))
            continue
        rel, work = result.relative(p)
        gflops = (p.flops_per_s or 0.0) / 1e9
        share = (p.flops_per_s or 0.0) / best if best > 0 else math.nan
        codes = issue_codes(p.measurement)
        row: dict[str, Any] = {"n": p.n, "seconds": p.seconds, "relative": rel, "n3_ratio": work,
                               "gflops": gflops, "share_of_best": share, "issues": codes,
                               "interval": "run_to_run" if p.measurement.ci_includes_run_to_run else "precision"}
        rows.append(row)
        if codes:
            marked.append((f"n={p.n}", p.measurement))
        cells = [str(p.n), format_time(p.seconds) + _mark(p.measurement), _ci_cell(p.measurement, kind),
                 "n/a" if rel is None else f"{rel:.3g}x", "n/a" if work is None else f"{work:.3g}x",
                 f"{gflops:.3g}", _pct(share)]
        lines.append(_row(cells, widths))
    if kind == "mixed":
        lines.append(say("pm.mixed.note", lang))
    lines += mark_lines(marked, lang)
    small = rows[0] if rows else None
    if small is not None and math.isfinite(small["share_of_best"]) and small["share_of_best"] < UNDERFED_SHARE:
        said = {"n": small["n"], "share": _pct(small["share_of_best"]), "best": best_gflops}
        if t0 is None or not small["seconds"] > 0:  # no fit: the rate alone
            lines.append(say("scaling.share.nofit", lang, **said))
        else:
            key = "scaling.share" if t0 >= OVERHEAD_SHARE * small["seconds"] else "scaling.share.other"
            lines.append(say(key, lang, **said, t0=format_time(t0), frac=_pct(t0 / small["seconds"])))
    return rows, marked, lines


def scaling(device: torch.device, lang: str, quick: bool, emit: Emit) -> DemoResult:
    res = DemoResult("scaling")
    emit("")
    emit("## " + say("scaling.title", lang))
    # part 1 measured its product of 4096 (1024 with --quick): no size of it again, so no number is shown twice
    sizes = [32, 64, 128, 256, 512] if quick else [64, 128, 256, 512, 1024, 2048]
    ref = 256

    def make(n: int) -> Callable[[], object]:
        x = torch.randn(n, n, device=device)
        y = torch.randn(n, n, device=device)
        return lambda: x @ y

    emit(say("scaling.intro", lang, ref=ref))
    result = sweep(make, sizes, flops=lambda n: 2.0 * n**3, device=device, reference=ref,
                                budget=0.6 if quick else 3.0, label="matmul")
    fit: PowerFit | None
    try:
        fit = result.fit()
        res.data["fit"] = {"t0": fit.t0, "k": fit.k, "k_ci": list(fit.k_ci), "crossover": fit.crossover,
                           "at_edge": fit.at_edge, "poor": fit.poor}
    except FitError:
        fit = None
        res.data["fit"] = None
    rows, marked, table = scaling_table_lines(result, lang, None if fit is None else fit.t0)
    for line in table:
        emit(line)
    res.data["rows"] = rows
    branch, lines = fit_lines(fit, lang)
    res.data["lesson"] = branch
    res.data["wants_budget"] = bool(marked) or branch == "unknown"
    for line in lines:
        if not (marked and line == say("disturbed", lang)):  # the fix is said once
            emit(line)
    return res
