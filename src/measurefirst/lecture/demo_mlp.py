"""Part 5 of the lecture, a training step: a small MLP's step timed phase by phase, and its profile's top
ops."""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn.functional as F

from measurefirst.profiling import profile
from measurefirst.tools.step import benchmark_step
from measurefirst.profiling.capture import Profile
from measurefirst.render.text import format_time, plain

from .demo_numbers import DemoResult, Emit, _pct, _row
from .demo_profiler import op_share, op_table_lines
from .narration import say

#: Backward within this factor range of the forward reads as "the usual ~2x".
BACKWARD_USUAL = (1.3, 3.0)


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
