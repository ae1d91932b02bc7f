"""Part 1 of the lecture, the pitfalls: a cold first call against the warm ones, and (on a GPU) a timer
that does not synchronize."""

from __future__ import annotations

import torch

from measurefirst.measure.engine import benchmark
from measurefirst.results.kinds import Measurement
from measurefirst.tools.doctor import doctor
from measurefirst.render.text import format_time

from .demo_numbers import DemoResult, Emit, _ci_words, _mark, issue_codes, mark_lines
from .narration import say

#: A first call at least this many times a warm call is "much slower".
COLD_RATIO_BIG = 1.5
#: A first call faster than a warm call (ratio below this) is a disturbed measurement, not a lesson.
COLD_RATIO_FLOOR = 1.0


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
