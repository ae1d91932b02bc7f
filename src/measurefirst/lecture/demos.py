"""The lecture's demonstrations, built only from measurefirst's public API.

Each demo measures live, then narrates: ``emit`` receives the lines as they are ready, and the demo
returns its numbers as data (for tests and ``--json``). Every conclusion is *chosen* from what was
measured: the pure ``*_lines`` helpers of each part take results (or hand-built ones, in tests) and
return the narration, so each branch can be driven without a machine that happens to produce it.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import torch

from measurefirst.measure.devices import device_name, resolve_device
from measurefirst.render.text import format_time as format_time

from ..results import defaults
from ..measure import progress
from .demo_compile import (compile_lines as compile_lines, compiled_code as compiled_code,
                           compiled_verdict as compiled_verdict, shape_line as shape_line)
from .demo_kernels import LECTURE_KERNEL as LECTURE_KERNEL, kernel_name_lines as kernel_name_lines, kernels as kernels
from .demo_mlp import (BACKWARD_USUAL as BACKWARD_USUAL, mlp as mlp, phase_lines as phase_lines,
                       step_profile_lines as step_profile_lines)
from .demo_numbers import (DemoResult as DemoResult, Emit as Emit, interval_kind as interval_kind,
                           issue_codes as issue_codes, issue_words as issue_words, mark_lines as mark_lines, _ci as _ci,
                           _ci_words as _ci_words, _pct as _pct)
from .demo_pitfalls import (COLD_RATIO_BIG as COLD_RATIO_BIG, COLD_RATIO_FLOOR as COLD_RATIO_FLOOR,
                            pitfalls as pitfalls, sync_lines as sync_lines, warmup_lines as warmup_lines)
from .demo_profiler import (FEW_OPS as FEW_OPS, PROFILE_GAP_FACTOR as PROFILE_GAP_FACTOR,
                            TO_ROWS_CHEAP_SHARE as TO_ROWS_CHEAP_SHARE, comparison_lines as comparison_lines,
                            kernel_table_lines as kernel_table_lines, op_share as op_share,
                            op_table_lines as op_table_lines, op_time_s as op_time_s,
                            profile_gap_lines as profile_gap_lines, profiler as profiler, to_rows as to_rows,
                            to_rows_line as to_rows_line, verdict_words as verdict_words)
from .demo_scaling import (CUBIC_TOLERANCE as CUBIC_TOLERANCE, K_CI_TOO_WIDE as K_CI_TOO_WIDE,
                           OVERHEAD_SHARE as OVERHEAD_SHARE, UNDERFED_SHARE as UNDERFED_SHARE, fit_lines as fit_lines,
                           scaling as scaling, scaling_table_lines as scaling_table_lines)
from .narration import say

DEMOS = defaults.DEMOS


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
