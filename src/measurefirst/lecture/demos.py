"""The lecture's three demonstrations, built only from measurefirst's public API.

Each demo measures live, then narrates: ``emit`` receives the lines as they are ready, and the demo
returns its numbers as data (for tests and ``--json``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import torch
import torch.nn.functional as F

import measurefirst
from measurefirst.fit import FitError
from measurefirst.render.text import format_time, plain, point_issues
from measurefirst.sweep import sweep

from .narration import say

Emit = Callable[[str], None]
DEMOS = ("pitfalls", "scaling", "profiler")


@dataclass
class DemoResult:
    name: str
    data: dict[str, Any] = field(default_factory=dict)


def _ci(m: measurefirst.Measurement) -> str:
    r = m.ci_half_width_rel
    return "n/a" if not math.isfinite(r) else f"{r:.1%}"


def pitfalls(device: torch.device, lang: str, quick: bool, emit: Emit) -> DemoResult:
    res = DemoResult("pitfalls")
    emit("")
    emit("## " + say("pitfalls.title", lang))
    n = 1024 if quick else 4096
    a = torch.randn(n, n, device=device)
    b = torch.randn(n, n, device=device)
    emit(say("pitfalls.trap1", lang, n=n))
    m = measurefirst.benchmark(lambda: a @ b, device=device, label=f"matmul {n}", budget=2.0 if quick else 8.0)
    assert m.warmup is not None and m.warmup.cold_ns is not None
    cold = m.warmup.cold_ns / 1e9
    ratio = cold / m.median
    res.data.update(n=n, cold_s=cold, warm_s=m.median, cold_ratio=ratio, warmup_calls=m.warmup.calls)
    emit(say("pitfalls.trap1.result", lang, cold=format_time(cold), warm=format_time(m.median), ci=_ci(m),
             ratio=ratio, calls=m.warmup.calls))
    emit(say("pitfalls.trap1.lesson", lang))
    if device.type == "cpu":
        emit(say("pitfalls.trap2.cpu", lang, device=str(device)))
        res.data["unsynced_ratio"] = None
    else:
        d = measurefirst.doctor(lambda: a @ b, device=device, budget=1.0 if quick else 3.0)
        naive, truth = d.evidence.get("unsynced_s"), d.evidence.get("median_s")
        ratio2 = d.evidence.get("unsynced_ratio")
        res.data["unsynced_ratio"] = ratio2
        if naive and truth and ratio2:
            emit(say("pitfalls.trap2.gpu", lang, naive=format_time(naive), truth=format_time(truth), ratio=ratio2))
    emit(say("pitfalls.implicit", lang))
    return res


def scaling(device: torch.device, lang: str, quick: bool, emit: Emit) -> DemoResult:
    res = DemoResult("scaling")
    emit("")
    emit("## " + say("scaling.title", lang))
    sizes = [32, 64, 128, 256, 512] if quick else [64, 128, 256, 512, 1024, 2048, 4096]
    ref = 256

    def make(n: int) -> Callable[[], object]:
        x = torch.randn(n, n, device=device)
        y = torch.randn(n, n, device=device)
        return lambda: x @ y

    emit(say("scaling.intro", lang, ref=ref))
    result = sweep(make, sizes, flops=lambda n: 2.0 * n**3, device=device, reference=ref,
                   budget=0.8 if quick else 3.0, label="matmul")
    cols = say("scaling.columns", lang, ref=ref).split("|")
    widths = [6, 12, 9, 16, 10, 9]
    emit("  ".join(c.rjust(w) for c, w in zip(cols, widths)))
    rows = []
    for p in result.series():
        if not p.ok:
            emit(plain(f"{p.n:>6}  failed: {p.error}"))
            continue
        rel, work = result.relative(p)
        assert p.measurement is not None
        row: dict[str, Any] = {"n": p.n, "seconds": p.seconds, "relative": rel, "n3_ratio": work,
               "gflops": (p.flops_per_s or 0) / 1e9}
        rows.append(row)
        issues = point_issues(p.measurement)
        row["issues"] = issues
        cells = [str(p.n), format_time(p.seconds), _ci(p.measurement) + (" !" if issues else ""),
                 "n/a" if rel is None else f"{rel:.3g}x", "n/a" if work is None else f"{work:.3g}x",
                 f"{row['gflops']:.3g}"]
        emit("  ".join(c.rjust(w) for c, w in zip(cells, widths)))
    for row in rows:
        if row["issues"]:
            emit(say("scaling.marked", lang, n=row["n"], why="; ".join(row["issues"])))
    res.data["rows"] = rows
    try:
        f = result.fit()
        cross = "—" if f.crossover is None else f"{f.crossover:.0f}"
        emit(say("scaling.fit", lang, t0=format_time(f.t0), k=f.k, klo=f.k_ci[0], khi=f.k_ci[1], cross=cross))
        res.data["fit"] = {"t0": f.t0, "k": f.k, "k_ci": list(f.k_ci), "crossover": f.crossover,
                           "at_edge": f.at_edge}
        if f.at_edge:
            emit(say("scaling.edge", lang, k=f.k))
    except FitError as exc:
        emit(say("scaling.nofit", lang, why=str(exc)))
        res.data["fit"] = None
    emit(say("scaling.lesson", lang))
    return res


def _manual_gelu(x: torch.Tensor) -> torch.Tensor:
    return 0.5 * x * (1 + torch.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))


def profiler(device: torch.device, lang: str, quick: bool, emit: Emit) -> DemoResult:
    res = DemoResult("profiler")
    emit("")
    emit("## " + say("profiler.title", lang))
    numel = 1 << (18 if quick else 22)
    x = torch.randn(numel, device=device)

    def manual() -> torch.Tensor:
        return _manual_gelu(x)

    def fused() -> torch.Tensor:
        return F.gelu(x, approximate="tanh")

    emit(say("profiler.intro", lang, numel=f"{numel:,}"))
    d = measurefirst.profile_compare({"manual": manual, "fused": fused}, device=device, steps=2)
    pm, pf = d.profiles
    unit = say("kernels" if d.unit == "kernels" else "ops", lang)
    mc = pm.counts("kernels" if d.unit == "kernels" else "work")
    fc = pf.counts("kernels" if d.unit == "kernels" else "work")

    def detail(c: dict[str, float]) -> str:
        return ", ".join(f"{v:.0f} {k.replace('aten::', '')}" for k, v in sorted(c.items(), key=lambda kv: -kv[1]))

    emit(say("profiler.counts", lang, manual=f"{pm.work_count:.0f}", fused=f"{pf.work_count:.0f}", unit=unit,
             detail=detail(mc) if d.unit == "ops" else f"{len(mc)} distinct",
             fdetail=detail(fc) if d.unit == "ops" else f"{len(fc)} distinct"))
    res.data.update(unit=d.unit, manual_counts=mc, fused_counts=fc, manual_count=pm.work_count,
                    fused_count=pf.work_count)
    mb = sum(r.bytes_est for r in pm.work) / 1e6
    fmb = sum(r.bytes_est for r in pf.work) / 1e6
    if mb > 0:
        emit(say("profiler.bytes", lang, mb=f"{mb:.0f}", fmb=f"{fmb:.0f}"))
    c = measurefirst.compare({"manual": manual, "fused": fused}, device=device, budget=2.0 if quick else 5.0)
    v = c.verdict("fused")
    words = v.words()
    if lang == "zh":
        words = (f"快 {v.speedup:.2f} 倍" if v.verdict == "faster" else
                 f"慢 {v.ratio:.2f} 倍" if v.verdict == "slower" else "没有检测到差异")
    emit(say("profiler.time", lang, mt=format_time(c["manual"].median), ft=format_time(c["fused"].median),
             verdict=say("faster", lang, x=words) if v.verdict != "no difference" else words,
             lo=v.ci_low or math.nan, hi=v.ci_high or math.nan))
    res.data.update(speedup=v.speedup, verdict=v.verdict)
    if pm.kernels:
        emit(say("profiler.kernels", lang))
        for k in pm.kernels[:12]:
            dec = k.decoded
            emit(f"  {k.calls:.0f} x {k.name[:90]}  [{dec.get('library')}, {dec.get('op')}"
                 + (f", {dec.get('dtype')}" if dec.get("dtype") else "") + f"]  {format_time(k.total_s)}")
    emit(say("profiler.nsight", lang))
    emit(say("profiler.lesson", lang))
    return res


RUNNERS: dict[str, Callable[[torch.device, str, bool, Emit], DemoResult]] = {
    "pitfalls": pitfalls, "scaling": scaling, "profiler": profiler}


def run(which: str = "all", *, device: Any = "auto", lang: str | None = None, quick: bool = False,
        emit: Emit = print) -> list[DemoResult]:
    """Run one demo (``pitfalls``, ``scaling``, ``profiler``) or ``all``, narrating through ``emit``."""
    from .narration import LANGS, default_lang

    lang = lang or default_lang()
    if lang not in LANGS:
        raise ValueError(f"--lang must be one of {', '.join(LANGS)}; got {lang!r}")
    if which != "all" and which not in DEMOS:
        raise ValueError(f"demo must be one of {', '.join(DEMOS)} or all; got {which!r}")
    dev = measurefirst.resolve_device(device)
    emit(f"# {say('title', lang, device=f'{dev} ({measurefirst.devices.device_name(dev)})')}")
    results = [RUNNERS[name](dev, lang, quick, emit) for name in (DEMOS if which == "all" else (which,))]
    emit("")
    emit(say("done", lang))
    return results
