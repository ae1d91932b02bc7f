"""Part 3 of the lecture, the profiler: a hand-written GeLU against the fused one, op by op and kernel by
kernel, the profiler's time against the benchmark's, and the verdict of comparing the two."""

from __future__ import annotations

import math
from typing import Callable, Sequence

import torch
import torch.nn.functional as F

from measurefirst.profiling import profile, profile_compare
from measurefirst.results.comparison import Comparison, Verdict
from measurefirst.results.kinds import Measurement
from measurefirst.tools.compare import compare
from measurefirst.profiling.capture import KernelRow, OpRow, Profile
from measurefirst.profiling.kernels import decode_kernel
from measurefirst.render.text import format_time, plain

from .demo_numbers import DemoResult, Emit, _mark, _pct, _row, issue_codes, mark_lines
from .narration import say

#: The profiler's op time per call and the benchmark's time per call differing by more than this factor
#: (either way) is explained in the narration.
PROFILE_GAP_FACTOR = 2.0
#: Scalar-conversion rows (aten::to) under this share of the op time read as "cheap".
TO_ROWS_CHEAP_SHARE = 0.10
#: A profile of this many working ops per call or fewer is not "many small ops": its gap is the one op's
#: recording.
FEW_OPS = 2


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
