"""Part 6 of the lecture, compiled code: the hand-written GeLU compiled by ``torch.compile`` against the
hand-written and fused ones, what the first call's compile costs, and a new shape."""

from __future__ import annotations

import math

import torch

from measurefirst.measure.engine import benchmark
from measurefirst.results.comparison import Comparison, Verdict
from measurefirst.results.kinds import Measurement
from measurefirst.tools.compare import compare
from measurefirst.render.text import format_time

from .demo_numbers import DemoResult, Emit, _mark, issue_codes, mark_lines
from .demo_profiler import _gelus, _manual_gelu
from .narration import say


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
