"""The lecture's demonstrations, built only from measurefirst's public API.

Each demo measures live, then narrates: ``emit`` receives the lines as they are ready, and the demo
returns its numbers as data (for tests and ``--json``). Every conclusion is *chosen* from what was
measured: the pure ``*_lines`` helpers below take results (or hand-built ones, in tests) and return the
narration, so each branch can be driven without a machine that happens to produce it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import torch
import torch.nn.functional as F

from measurefirst.measure.devices import device_name, resolve_device
from measurefirst.measure.engine import benchmark
from measurefirst.profiling import profile, profile_compare
from measurefirst.results.comparison import Comparison, Verdict
from measurefirst.results.kinds import Measurement
from measurefirst.tools.compare import compare
from measurefirst.tools.doctor import doctor
from measurefirst.tools.step import benchmark_step
from measurefirst.results.fitting import FitError, PowerFit
from measurefirst.profiling.capture import KernelRow, OpRow, Profile
from measurefirst.profiling.kernels import GPU_FAMILIES, decode_kernel
from measurefirst.render.findings import title as finding_title
from measurefirst.render.text import format_time, interval_rel, pad_cells, plain
from measurefirst.render.words import word
from measurefirst.tools.sweep import SweepResult, sweep

from ..results import defaults
from ..measure import progress
from .narration import say

Emit = Callable[[str], None]
DEMOS = defaults.DEMOS

#: Backward within this factor range of the forward reads as "the usual ~2x".
BACKWARD_USUAL = (1.3, 3.0)
#: The lecture's example kernel name (a CUTLASS 3.x fp32 SIMT GEMM for Blackwell B200).
LECTURE_KERNEL = "cutlass3x_sm100_simt_sgemm_f32_f32_f32_f32_f32_64x64x16_1x1x1_4_nnn_align1"
#: A fitted exponent within this distance of 3 reads as "follows n³".
CUBIC_TOLERANCE = 0.35
#: A 95% CI on k wider than this says the fit has no say about the exponent.
K_CI_TOO_WIDE = 2.0
#: A first call at least this many times a warm call is "much slower".
COLD_RATIO_BIG = 1.5
#: A first call faster than a warm call (ratio below this) is a disturbed measurement, not a lesson.
COLD_RATIO_FLOOR = 1.0
#: The profiler's op time per call and the benchmark's time per call differing by more than this factor
#: (either way) is explained in the narration.
PROFILE_GAP_FACTOR = 2.0
#: Scalar-conversion rows (aten::to) under this share of the op time read as "cheap".
TO_ROWS_CHEAP_SHARE = 0.10
#: A scaling row below this share of the best measured rate reads as "the hardware is far from fed".
#: A profile of this many working ops per call or fewer is not "many small ops": its gap is the one op's
#: recording.
FEW_OPS = 2
#: The fitted fixed overhead is named as what the smallest size pays from this share of its time up.
OVERHEAD_SHARE = 0.5
UNDERFED_SHARE = 0.25


@dataclass
class DemoResult:
    name: str
    data: dict[str, Any] = field(default_factory=dict)


def _ci(m: Measurement, pm: bool = False) -> str:
    """A table cell: the headline interval's relative half-width (where the next run may land), ``2.2%``
    (``±2.2%`` with ``pm``); where its two sides differ, as every output shows them (``-31%/+45%``)."""
    if not math.isfinite(m.ci_half_width_rel):
        return "n/a"
    return interval_rel(m, pm=pm)


def _ci_words(m: Measurement, lang: str) -> str:
    """The headline interval in words, saying which it is: run to run (with this run's precision in it),
    or this run's precision alone."""
    r, p = m.ci_half_width_rel, m.precision_half_width_rel
    if not math.isfinite(r):
        return say("ci.na", lang)
    if m.ci_includes_run_to_run:
        return say("ci.run_to_run", lang, rel=_ci(m, pm=True), prec="n/a" if not math.isfinite(p) else f"{p:.1%}")
    return say("ci.precision", lang, rel=_ci(m, pm=True))


def _pct(share: float) -> str:
    """A share as the lecture shows it, in tables and in sentences alike: ``59%`` (``n/a`` when unknown)."""
    return "n/a" if not math.isfinite(share) else f"{share:.0%}"


def interval_kind(ms: Sequence[Measurement]) -> str:
    """Which interval a column of headline CIs shows: ``run_to_run``, ``precision`` or ``mixed``."""
    kinds = {m.ci_includes_run_to_run for m in ms}
    return "mixed" if len(kinds) > 1 else "run_to_run" if kinds == {True} else "precision"


def _ci_cell(m: Measurement, kind: str) -> str:
    """A table cell of the headline interval; in a mixed column, this run's precision is marked ``*``."""
    cell = _ci(m)
    return cell + "*" if kind == "mixed" and not m.ci_includes_run_to_run and cell != "n/a" else cell


def _row(cells: Sequence[str], widths: Sequence[int], left: int = 0) -> str:
    """One table line; the first ``left`` columns are left-aligned, widths in display cells."""
    return "  ".join(pad_cells(c, w, "left" if i < left else "right") for i, (c, w) in enumerate(zip(cells, widths)))


# ---- marks: a number the machine disturbed ------------------------------------------------------

def issue_codes(m: Measurement) -> list[str]:
    """Why a measurement deserves a ``!``: its warning codes (not notes), preempted samples set aside,
    the precision target not met, an incomplete run (the same reasons as ``point_issues``, as codes)."""
    codes = [f.code for f in m.findings if f.severity != "info"]
    if m.n_preempted and m.n_used != m.n_samples and "preempted" not in codes:
        codes.append("preempted")
    if (m.summary is not None and not m.stop.target_met and m.stop.reason not in ("trials", "max_samples")
            and "precision_not_met" not in codes):
        codes.append("precision_not_met")
    if not m.complete and "incomplete" not in codes:
        codes.append("incomplete")
    return codes


def issue_words(m: Measurement, lang: str) -> str:
    parts = []
    for code in issue_codes(m):
        if code == "preempted":
            set_aside = m.n_samples - m.n_used
            parts.append(say("issue.preempted", lang, k=set_aside, n=m.n_samples) if set_aside else
                         say("issue.preempted_kept", lang, k=m.n_preempted, n=m.n_samples))
        else:
            parts.append(plain(finding_title(code, lang)))
    return word("list_sep", lang).join(parts)


def mark_lines(items: Sequence[tuple[str, Measurement]], lang: str) -> list[str]:
    """``! what: read with care — why.`` for each disturbed measurement, then the fix once."""
    lines = [say("marked", lang, what=what, why=issue_words(m, lang)) for what, m in items if issue_codes(m)]
    if lines:
        lines.append(say("disturbed", lang))
    return lines


def _mark(m: Measurement) -> str:
    return " !" if issue_codes(m) else ""


# ---- part 1 -------------------------------------------------------------------------------------

def warmup_lines(m: Measurement, device: str, lang: str) -> tuple[str, list[str]]:
    """(the warm-up's branch: ``settled``/``capped``, its lines): true to ``m.warmup.steady``, and the
    cold/warm ratio read as it was measured."""
    assert m.warmup is not None and m.warmup.cold_ns is not None
    ratio = m.warmup.cold_ns / 1e9 / m.median
    key = ("pitfalls.trap1.inverted" if ratio < COLD_RATIO_FLOOR else
           "pitfalls.trap1.big" if ratio >= COLD_RATIO_BIG else "pitfalls.trap1.small")
    preempted = (say("pitfalls.trap1.preempted", lang, k=m.n_preempted, n=m.n_samples) if m.n_preempted else "")
    lines = [say(key, lang, ratio=ratio, device=device, preempted=preempted)]
    branch = "settled" if m.warmup.steady else "capped"
    lines.append(say(f"pitfalls.trap1.{branch}", lang, calls=m.warmup.calls))
    return branch, lines


def sync_lines(naive: float | None, truth: float | None, ratio: float | None, lang: str) -> list[str]:
    """Trap 2 on a GPU, read as measured: a synchronized time shorter than the unsynchronized one is a
    disturbed measurement, flagged, never narrated as the trap."""
    if not (naive and truth and ratio):
        return []
    key = "pitfalls.trap2.inverted" if ratio < 1.0 else "pitfalls.trap2.gpu"
    return [say(key, lang, naive=format_time(naive), truth=format_time(truth), ratio=ratio)]


def pitfalls(device: torch.device, lang: str, quick: bool, emit: Emit) -> DemoResult:
    res = DemoResult("pitfalls")
    emit("")
    emit("## " + say("pitfalls.title", lang))
    n = 1024 if quick else 4096
    a = torch.randn(n, n, device=device)
    b = torch.randn(n, n, device=device)
    emit(say("pitfalls.trap1", lang, n=n))
    m = benchmark(lambda: a @ b, device=device, label=f"matmul {n}", budget=1.0 if quick else 8.0)
    assert m.warmup is not None and m.warmup.cold_ns is not None
    cold = m.warmup.cold_ns / 1e9
    ratio = cold / m.median
    emit(say("pitfalls.trap1.result", lang, cold=format_time(cold), warm=format_time(m.median) + _mark(m),
             ci=_ci_words(m, lang)))
    branch, lines = warmup_lines(m, str(device), lang)
    for line in lines + mark_lines([(f"{n}x{n}", m)], lang):
        emit(line)
    res.data.update(n=n, cold_s=cold, warm_s=m.median, cold_ratio=ratio, warmup_calls=m.warmup.calls,
                    warmup_steady=m.warmup.steady, warmup=branch, issues=issue_codes(m),
                    cold=("inverted" if ratio < COLD_RATIO_FLOOR else "big" if ratio >= COLD_RATIO_BIG else "small"),
                    wants_budget=bool(issue_codes(m)) or ratio < COLD_RATIO_FLOOR)
    emit(say("pitfalls.trap1.lesson", lang))
    if device.type == "cpu":
        emit(say("pitfalls.trap2.cpu", lang, device=str(device)))
        res.data["unsynced_ratio"] = None
    else:
        d = doctor(lambda: a @ b, device=device, budget=1.0 if quick else 3.0)
        naive, truth = d.evidence.get("unsynced_s"), None if d.measurement is None else d.measurement.median
        ratio2 = d.evidence.get("unsynced_ratio")
        res.data["unsynced_ratio"] = ratio2
        for line in sync_lines(naive, truth, ratio2, lang):
            emit(line)
    emit(say("pitfalls.rules", lang))
    emit(say("pitfalls.implicit", lang))
    emit(say("pitfalls.logging", lang))
    return res


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


# ---- part 3 -------------------------------------------------------------------------------------

def _manual_gelu(x: torch.Tensor) -> torch.Tensor:
    return 0.5 * x * (1 + torch.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))


def _gelus(x: torch.Tensor) -> tuple[Callable[[], torch.Tensor], Callable[[], torch.Tensor]]:
    """The lecture's two GeLUs on ``x``, as calls to time: the hand-written one and the fused ``F.gelu``."""

    def manual() -> torch.Tensor:
        return _manual_gelu(x)

    def fused() -> torch.Tensor:
        return F.gelu(x, approximate="tanh")

    return manual, fused


def verdict_words(v: Verdict, lang: str) -> tuple[str, str]:
    """(branch: ``faster``/``same``/``slower``/``undecided``, the sentence), the same claim in both languages."""
    if ((v.verdict == "faster" and not v.ratio < 1) or (v.verdict == "slower" and not v.ratio > 1)
            or (v.verdict == "no difference" and not math.isfinite(v.ratio))):
        return "undecided", say("verdict.contradicts", lang, verdict=v.verdict, r=v.ratio)
    if v.verdict == "faster":  # a speed-up, with the speed-up's CI
        s = v.speedup
        lo, hi = v.speedup_ci or (math.nan, math.nan)
        return "faster", (say("verdict.faster.x", lang, x=s, lo=lo, hi=hi) if s >= 1.5 else
                          say("verdict.faster.pct", lang, p=(s - 1) * 100, lo=lo, hi=hi))
    lo, hi = v.ratio_ci or (math.nan, math.nan)
    if v.verdict == "slower":
        r = v.ratio
        return "slower", (say("verdict.slower.x", lang, x=r, lo=lo, hi=hi) if r >= 1.5 else
                          say("verdict.slower.pct", lang, p=(r - 1) * 100, lo=lo, hi=hi))
    if v.verdict == "no difference" and v.detectable is not None and math.isfinite(v.detectable):
        return "same", say("verdict.same", lang, d=v.detectable)
    if v.verdict == "no difference":
        return "undecided", say("verdict.nodetect", lang)
    return "undecided", say("verdict.undecided.drift" if v.reason == "drift" else "verdict.undecided", lang,
                            rounds=v.rounds)


def comparison_lines(c: Comparison, device: str, lang: str, manual: str = "9", fused: str = "1",
                     unit: str = "") -> tuple[str, list[str]]:
    """The time line, marks on disturbed numbers, and the lesson chosen from the verdict; ``manual`` and
    ``fused`` are the counts the profile showed (in ``unit``), as it showed them."""
    branch, words = verdict_words(c.verdict("fused"), lang)
    m, f = c["manual"], c["fused"]
    lines = [say("profiler.time", lang, mt=format_time(m.median) + _mark(m), ft=format_time(f.median) + _mark(f),
                 verdict=words)]
    lines += mark_lines([(say("profiler.table.manual", lang), m), (say("profiler.table.fused", lang), f)], lang)
    lines.append(say(f"profiler.lesson.{branch}", lang, device=device, manual=manual, fused=fused,
                     unit=unit or say("ops", lang)))
    return branch, lines


def op_share(row: OpRow, total_s: float) -> str:
    """An op's share of the view's whole self time, as the table and the lesson under it both show it."""
    return _pct(row.self_s / total_s if total_s > 0 else math.nan)


def op_table_lines(rows: Sequence[OpRow], lang: str, title: str, total_s: float | None = None) -> list[str]:
    """The profiler's table: op, calls, self time, share of the self time, bytes (per call). ``total_s``:
    the self time the shares are of (the whole view's, when ``rows`` shows only its top); default the rows'."""
    total = sum(r.self_s for r in rows) if total_s is None else total_s
    widths = [22, 8, 12, 7, 10]
    lines = [f"  {title}", "  " + _row(say("profiler.table.columns", lang).split("|"), widths, left=1)]
    for r in rows:
        mb = f"{r.bytes_est / 1e6:.2f} MB" if r.bytes_est > 0 else "—"
        lines.append("  " + _row([plain(r.name)[:22], f"{r.calls:.0f}", format_time(r.self_s),
                                  op_share(r, total), mb], widths, left=1))
    return lines


def op_time_s(p: Profile) -> float:
    """The profiler's op time per call: every op's self time, summed (each moment counted once)."""
    return sum(r.self_s for r in p.rows("all"))


def profile_gap_lines(items: Sequence[tuple[str, Profile, Measurement]], lang: str
                      ) -> tuple[list[float], list[str]]:
    """(the ratios profile op time / benchmark time, the lines): where the two differ by more than
    :data:`PROFILE_GAP_FACTOR` either way, why, with the measured ratio and the benchmark's own string."""
    ratios, lines = [], []
    for what, p, m in items:
        pt = op_time_s(p)
        ratio = pt / m.median if m.median > 0 and pt > 0 else math.nan
        ratios.append(ratio)
        if not math.isfinite(ratio) or 1 / PROFILE_GAP_FACTOR <= ratio <= PROFILE_GAP_FACTOR:
            continue
        ops = sum(r.calls for r in p.rows("work"))  # the ops that do the work, per call
        key = "profiler.gap.under" if ratio < 1 else "profiler.gap.over" if ops > FEW_OPS else "profiler.gap.over.few"
        lines.append(say(key, lang, what=what, pt=format_time(pt), bt=format_time(m.median), ratio=ratio,
                         ops=f"{ops:.0f}"))
    return ratios, lines


def kernel_table_lines(kernels: Sequence[KernelRow], lang: str, limit: int = 12) -> list[str]:
    """Kernels with their launching op and decoded library, arch (and the GPUs it means), dtype, tile."""
    widths = [5, 18, 12, 30, 8, 12, 10]
    cols = say("profiler.kernels.columns", lang).split("|")
    lines = ["  " + _row(cols[:7], widths) + "  " + cols[7]]
    for k in list(kernels)[:limit]:
        info = decode_kernel(k.name)
        arch = "—" if not info.arch else info.arch + (f" {info.gpu}" if info.gpu else "")
        lines.append("  " + _row([f"{k.calls:.0f}", plain(k.launched_by)[:18], info.library, arch[:30],
                                  info.dtype or "—", info.tile or "—", format_time(k.total_s)], widths)
                     + "  " + plain(k.name)[:80])
    return lines


def to_rows(p: Profile) -> list[OpRow]:
    return [r for r in p.rows("all") if r.name in ("aten::to", "aten::_to_copy")]


def to_rows_line(p: Profile, lang: str) -> str:
    """The scalar-conversion rows, called cheap only when their share of the op time is."""
    conv = to_rows(p)
    if not conv:
        return say("profiler.no_to_rows", lang)
    t, total = sum(r.self_s for r in conv), op_time_s(p)
    share = t / total if total > 0 else math.nan
    values = dict(calls=f"{sum(r.calls for r in conv):.0f}", time=format_time(t))
    if math.isfinite(share) and share < TO_ROWS_CHEAP_SHARE:
        return say("profiler.to_rows", lang, **values)
    return say("profiler.to_rows.costly", lang, share=_pct(share), **values)


def profiler(device: torch.device, lang: str, quick: bool, emit: Emit) -> DemoResult:
    res = DemoResult("profiler")
    emit("")
    emit("## " + say("profiler.title", lang))
    numel = 1 << (18 if quick else 22)
    x = torch.randn(numel, device=device)
    manual, fused = _gelus(x)
    emit(say("profiler.intro", lang, numel=f"{numel:,}"))
    d = profile_compare({"manual": manual, "fused": fused}, device=device, steps=2)
    pm, pf = d.profiles
    unit = say("kernels" if d.unit == "kernels" else "ops", lang)
    mc = pm.counts("kernels" if d.unit == "kernels" else "work")
    fc = pf.counts("kernels" if d.unit == "kernels" else "work")
    emit(say("profiler.table", lang))
    for line in (op_table_lines(pm.rows("work"), lang, say("profiler.table.manual", lang))
                 + op_table_lines(pf.rows("work"), lang, say("profiler.table.fused", lang))):
        emit(line)
    manual_n, fused_n = f"{pm.work_count:.0f}", f"{pf.work_count:.0f}"
    emit(say("profiler.counts", lang, manual=manual_n, fused=fused_n, unit=unit))
    res.data.update(unit=d.unit, manual_counts=mc, fused_counts=fc, manual_count=pm.work_count,
                    fused_count=pf.work_count,
                    manual_table=[(r.name, r.calls) for r in pm.rows("work")],
                    fused_table=[(r.name, r.calls) for r in pf.rows("work")])
    emit(say("profiler.full", lang))
    for line in op_table_lines(pm.rows("all", limit=14), lang, say("profiler.table.manual", lang), op_time_s(pm)):
        emit(line)
    conv = to_rows(pm)
    emit(to_rows_line(pm, lang))
    res.data["to_rows"] = {r.name: r.calls for r in conv}
    mb = sum(r.bytes_est for r in pm.work) / 1e6
    fmb = sum(r.bytes_est for r in pf.work) / 1e6
    if mb > 0:
        emit(say("profiler.bytes", lang, mb=f"{mb:.0f}", fmb=f"{fmb:.0f}"))
    c = compare({"manual": manual, "fused": fused}, device=device, budget=1.5 if quick else 5.0)
    branch, lines = comparison_lines(c, str(device), lang, manual_n, fused_n, unit)
    for line in lines:
        emit(line)
    ratios, gap = profile_gap_lines([(say("profiler.table.manual", lang), pm, c["manual"]),
                                     (say("profiler.table.fused", lang), pf, c["fused"])], lang)
    for line in gap:
        emit(line)
    v = c.verdict("fused")
    res.data.update(speedup=v.speedup, verdict=v.verdict, lesson=branch, profile_over_benchmark=ratios,
                    wants_budget=branch == "undecided" or bool(issue_codes(c["manual"]) or issue_codes(c["fused"])))
    if pm.kernels:
        emit(say("profiler.kernels", lang))
        for line in kernel_table_lines(pm.kernels, lang) + kernel_table_lines(pf.kernels, lang):
            emit(line)
        n = 1024 if quick else 4096
        a = torch.randn(n, n, device=device)
        pg = profile(lambda: a @ a, device=device, steps=2, label="matmul")
        emit(say("profiler.gemm", lang))
        for line in kernel_table_lines(pg.kernels, lang):
            emit(line)
        res.data["gemm_kernels"] = [decode_kernel(k.name).to_dict() for k in pg.kernels]
    emit(say("profiler.nsight", lang))
    return res


# ---- part 4 -------------------------------------------------------------------------------------

def kernel_name_lines(name: str, lang: str) -> tuple[dict[str, Any], list[str]]:
    """The lecture's kernel name read field by field: library, architecture (and the GPUs it means),
    operation and core type, data type, tile."""
    info = decode_kernel(name)
    fields = info.to_dict()
    fields["gpu"] = info.gpu
    lines = [f"  {plain(name)}", "  - " + say("kernels.library", lang, v=info.library)]
    if info.arch:
        lines.append("  - " + say("kernels.arch", lang, v=info.arch, family=info.gpu or "?"))
    cores = say("kernels.tensorop" if info.tensor_cores else "kernels.simt", lang)
    lines.append("  - " + say("kernels.op", lang, v=info.op, cores=cores))
    if info.dtype:
        lines.append("  - " + say("kernels.dtype", lang, v=info.dtype))
    if info.tile:
        dims = (info.tile.split("x") + ["?", "?", "?"])[:3]
        lines.append("  - " + say("kernels.tile", lang, v=info.tile, m=dims[0], n=dims[1], k=dims[2]))
    return fields, lines


def kernels(device: torch.device, lang: str, quick: bool, emit: Emit) -> DemoResult:
    res = DemoResult("kernels")
    emit("")
    emit("## " + say("kernels.title", lang))
    emit(say("kernels.intro", lang))
    fields, lines = kernel_name_lines(LECTURE_KERNEL, lang)
    for line in lines:
        emit(line)
    table = "; ".join(f"{a} {GPU_FAMILIES[a]}" for a in ("sm70", "sm80", "sm86", "sm89", "sm90", "sm100", "sm120"))
    emit(say("kernels.families", lang, table=table))
    res.data["example"] = fields
    if device.type == "cpu":
        emit(say("kernels.cpu", lang))
    emit(say("kernels.lesson", lang))
    return res


# ---- part 5 -------------------------------------------------------------------------------------

def phase_lines(phase_s: dict[str, float], lang: str, step_s: float | None = None
                ) -> tuple[dict[str, Any], list[str]]:
    """The step's phases as a table, the dominant phase, backward against forward read as measured, and
    (given ``step_s``) the whole step, said apart from the phases' sum where the two strings differ."""
    total = sum(phase_s.values()) or math.nan
    widths = [10, 12, 7]
    lines = ["  " + _row(say("mlp.columns", lang).split("|"), widths, left=1)]
    for name, t in phase_s.items():
        share = t / total if math.isfinite(total) else math.nan
        lines.append("  " + _row([say(f"mlp.phase.{name}", lang), format_time(t), _pct(share)], widths, left=1))
    info: dict[str, Any] = {"dominant": None, "backward_ratio": None}
    if phase_s and math.isfinite(total):
        dom = max(phase_s, key=lambda k: phase_s[k])
        info["dominant"] = dom
        lines.append(say("mlp.dominant", lang, phase=say(f"mlp.phase.{dom}", lang), share=_pct(phase_s[dom] / total)))
    fwd, bwd = phase_s.get("forward"), phase_s.get("backward")
    if fwd and bwd and fwd > 0:
        r = bwd / fwd
        info["backward_ratio"] = r
        branch = "inverted" if r < 1.0 else "usual" if BACKWARD_USUAL[0] <= r <= BACKWARD_USUAL[1] else "unusual"
        info["backward"] = branch
        lines.append(say(f"mlp.ratio.{branch}", lang, r=r))
    if step_s is not None:
        step, whole = format_time(step_s), format_time(total) if math.isfinite(total) else "n/a"
        lines.append(say("mlp.step", lang, t=step) if step == whole else
                     say("mlp.step.sum", lang, t=step, sum=whole))
    return info, lines


def mlp(device: torch.device, lang: str, quick: bool, emit: Emit) -> DemoResult:
    res = DemoResult("mlp")
    emit("")
    emit("## " + say("mlp.title", lang))
    d, h, b = (256, 1024, 64) if quick else (1024, 4096, 256)
    steps = 10 if quick else 30
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(d, h), torch.nn.GELU(), torch.nn.Linear(h, d)).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(b, d, device=device)
    y = torch.randn(b, d, device=device)

    def loss_fn(m: torch.nn.Module, batch: Any) -> torch.Tensor:
        out: torch.Tensor = F.mse_loss(m(batch[0]), batch[1])
        return out

    emit(say("mlp.intro", lang, d=d, h=h, b=b, steps=steps))
    r = benchmark_step(model, opt, lambda: (x, y), loss_fn=loss_fn, device=device, steps=steps,
                                    warmup=2, flops_per_step=None, label="mlp")
    info, lines = phase_lines(dict(r.phase_s), lang, r.step_s)
    for line in lines:
        emit(line)

    def step() -> None:
        opt.zero_grad(set_to_none=True)
        loss_fn(model, (x, y)).backward()  # type: ignore[no-untyped-call]
        opt.step()

    p = profile(step, device=device, steps=2, warmup=2, label="mlp step")
    for line in step_profile_lines(p, lang):
        emit(line)
    res.data.update(phase_s=dict(r.phase_s), step_s=r.step_s, work_counts=p.counts("work"), **info)
    return res


def step_profile_lines(p: Profile, lang: str, limit: int = 6) -> list[str]:
    """The step's top ops and the lesson under them: each share is of the whole work view's self time,
    computed once, so the table and the lesson show the same string."""
    top = p.rows("work", limit=limit)
    total = sum(row.self_s for row in p.rows("work"))
    lines = [say("mlp.profile", lang, n=len(top))] + op_table_lines(top, lang, "mlp", total)[1:]
    if top and total > 0:
        lines.append(say("mlp.lesson", lang, top=plain(top[0].name), share=op_share(top[0], total)))
    return lines


# ---- part 6 -------------------------------------------------------------------------------------

def compiled_verdict(v: Verdict, lang: str) -> tuple[str, str]:
    """(branch: ``faster``/``slower``/``same``/``undecided``, the sentence) for the compiled GeLU against the
    hand-written one, as measured (a verdict that contradicts its ratio is undecided)."""
    if ((v.verdict == "faster" and not v.ratio < 1) or (v.verdict == "slower" and not v.ratio > 1)):
        return "undecided", say("verdict.contradicts", lang, verdict=v.verdict, r=v.ratio)
    if v.verdict == "faster":
        lo, hi = v.speedup_ci or (math.nan, math.nan)
        return "faster", say("compile.faster", lang, x=v.speedup, lo=lo, hi=hi)
    if v.verdict == "slower":
        lo, hi = v.ratio_ci or (math.nan, math.nan)
        return "slower", say("compile.slower", lang, x=v.ratio, lo=lo, hi=hi)
    if v.verdict == "no difference":
        return "same", say("compile.same", lang)
    return "undecided", say("compile.undecided", lang, rounds=v.rounds)


def compile_lines(c: Comparison, lang: str) -> tuple[str, list[str]]:
    """What the comparison of the hand-written, fused and compiled GeLU says: the first call's compile
    (torch's accounting, the cache's state), the steady times, the verdict, and the calls until compiling
    pays for itself (chosen from the measured break-even)."""
    k = c["compiled"]
    info = k.compiled
    lines = []
    if info is not None and info.compiles:
        lines.append(say("compile.first", lang, graphs=info.graphs, seconds=f"{info.first_s:.2f}",
                         cache=say(f"compile.cache.{info.cache}", lang), steady=format_time(k.median) + _mark(k)))
    else:
        lines.append(say("compile.first.none", lang, steady=format_time(k.median) + _mark(k)))
    branch, words = compiled_verdict(c.verdict("compiled"), lang)
    lines.append(say("compile.times", lang, manual=format_time(c["manual"].median) + _mark(c["manual"]),
                     fused=format_time(c["fused"].median) + _mark(c["fused"]), verdict=words))
    calls = c.break_even("compiled")
    if branch == "faster" and calls is not None and math.isfinite(calls):
        lines.append(say("compile.pays", lang, calls=f"{math.ceil(calls):,}"))
    elif calls is not None:
        lines.append(say("compile.never", lang))
    lines += mark_lines([(say("profiler.table.manual", lang), c["manual"]), (say("profiler.table.fused", lang),
                                                                             c["fused"]),
                         (say("compile.label", lang), k)], lang)
    return branch, lines


def shape_line(m: Measurement, n: int, lang: str) -> tuple[str, str]:
    """(branch, the sentence) for a call of the compiled GeLU on a new shape: compiled again (with torch's
    guard), or not (dynamic shapes already in use)."""
    again = [e for e in (m.compiled.compiles if m.compiled is not None else ()) if e.phase != "sampling"]
    if not again:
        return "none", say("compile.shape.none", lang, n=f"{n:,}")
    reason = next((e.reason for e in again if e.reason), "")
    return "again", say("compile.shape", lang, n=f"{n:,}", seconds=f"{sum(e.seconds for e in again):.2f}",
                        reason=reason or "-")


def compiled_code(device: torch.device, lang: str, quick: bool, emit: Emit) -> DemoResult:
    res = DemoResult("compile")
    emit("")
    emit("## " + say("compile.title", lang))
    numel = 1 << (16 if quick else 20)
    x = torch.randn(numel, device=device)
    manual, fused = _gelus(x)
    # the lecture shows a first compile: torch.compile keeps what it compiled per function for the process's
    # life (a second run would find it), so start from a clean compiler (inductor's cache on disk stays)
    torch.compiler.reset()
    gelu = torch.compile(_manual_gelu)  # not called yet: its first call, inside compare(), is the compiler

    def compiled() -> torch.Tensor:
        return gelu(x)

    emit(say("compile.intro", lang, numel=f"{numel:,}"))
    c = compare({"manual": manual, "fused": fused, "compiled": compiled}, device=device,
                             budget=1.5 if quick else 5.0)
    branch, lines = compile_lines(c, lang)
    for line in lines:
        emit(line)
    y = torch.randn(numel + 1, device=device)
    m = benchmark(lambda: gelu(y), device=device, budget=0.5 if quick else 2.0, label="compiled, new shape")
    shape, line = shape_line(m, numel + 1, lang)
    emit(line)
    emit(say("compile.lesson", lang))
    info = c["compiled"].compiled
    res.data.update(numel=numel, verdict=c.verdict("compiled").verdict, lesson=branch, shape=shape,
                    compile_s=None if info is None else info.first_s, cache=None if info is None else info.cache,
                    break_even=c.break_even("compiled"), steady_s=c["compiled"].median,
                    wants_budget=branch == "undecided" or any(issue_codes(x) for x in c.measurements))
    return res


RUNNERS: dict[str, Callable[[torch.device, str, bool, Emit], DemoResult]] = {
    "pitfalls": pitfalls, "scaling": scaling, "profiler": profiler, "kernels": kernels,
    "mlp": mlp, "compile": compiled_code}


def quick_advice_lines(results: Sequence[DemoResult], quick: bool, lang: str) -> list[str]:
    """The advice to run without --quick: only in quick mode, only when a demo had a disturbed or
    undecided number, and once for the whole lecture."""
    return [say("advice.quick", lang)] if quick and any(r.data.get("wants_budget") for r in results) else []


def run(which: str = "all", *, device: Any = "auto", lang: str | None = None, quick: bool = False,
        emit: Emit = print) -> list[DemoResult]:
    """Run one demo (``pitfalls``, ``scaling``, ``profiler``, ``kernels``, ``mlp``, ``compile``) or ``all``,
    narrating through ``emit``."""
    from ..render.words import LANGS, default_lang

    lang = lang or default_lang()
    if lang not in LANGS:
        raise ValueError(f"--lang must be one of {', '.join(LANGS)}; got {lang!r}")
    if which != "all" and which not in DEMOS:
        raise ValueError(f"demo must be one of {', '.join(DEMOS)} or all; got {which!r}")
    dev = resolve_device(device)
    emit(f"# {say('title', lang, device=f'{dev} ({device_name(dev)})')}")
    names = DEMOS if which == "all" else (which,)
    results: list[DemoResult] = []
    for i, name in enumerate(names):
        progress.report("demo", name, i + 1, len(names))
        results.append(RUNNERS[name](dev, lang, quick, emit))
    for line in quick_advice_lines(results, quick, lang):
        emit(line)
    emit("")
    emit(say("done", lang))
    return results
