"""Warm-up and loop-count calibration in numbers (the rules are stated in :mod:`measurefirst.measure.engine`):
their constants, and the small functions that apply them: the loop count a sample needs, whether per-call
time is still falling, a looped call, the size of the cold-cache flush."""

from __future__ import annotations

import itertools
import math
from typing import Callable

import torch

from ..results import stats
from ..results.errors import BudgetError
from .devices import last_level_cache_bytes
from ..results.findings import OVERHEAD_SHARE

OVERHEAD_REPS = 25
WARMUP_MIN_CALLS = 6
WARMUP_WINDOW = 3
WARMUP_TOLERANCE = 0.05
WARMUP_BUDGET_SHARE = 0.25
CALIBRATION_ROUNDS = 3
#: Trial samples at most, growth steps included, and the largest loop count calibration picks.
CALIBRATION_MAX_TRIALS = 12
CALIBRATION_MAX_NUMBER = 10**7
#: Calibration stops re-estimating once the loop count changes by less than this factor.
CALIBRATION_SETTLED_FACTOR = 1.25
#: The cold-cache flush writes this many times the last-level cache (see :func:`flush_bytes`).
FLUSH_FACTOR = 2
#: A repetition after the first warms up again with at least this many calls...
REPEAT_WARMUP_CALLS = 3
#: ...and at least this fraction of its own slice of sampling time.
REPEAT_WARMUP_SHARE = 0.1
#: A sample never plans to last longer than this share of the budget (so that a precision target
#: out of reach cannot make one sample outlast the budget).
SAMPLE_BUDGET_SHARE = 0.1
#: Recaptures of a CUDA graph when a timed replay shows the loop count was planned too small.
GRAPH_RECALIBRATIONS = 2


#: The least a call in the sampling loop costs, whatever it does (a loop step and a call of a C builtin take
#: tens of nanoseconds on today's CPUs; this is below all of them): what a fixed loop count is checked against
#: when the calls timed before it were too short to tell (shorter than the timer's own overhead).
MIN_CALL_NS = 5.0


def check_number_fits(number: int, per_call_ns: float, budget: float) -> None:
    """Refuse a fixed loop count whose one sample would outlast the whole budget, estimated from the calls
    timed before it (``per_call_ns``; 0 when they were too short to tell: then at least :data:`MIN_CALL_NS`
    each; issue 38: `--number 1000000000` of a 30 ns call ran 27 s against a 0.3 s budget)."""
    least = per_call_ns < MIN_CALL_NS
    per_call_ns = max(per_call_ns, MIN_CALL_NS)
    if number * per_call_ns > budget * 1e9:
        fits = max(1, int(budget * 1e9 // per_call_ns))
        about = "at least" if least else "about"
        raise BudgetError(f"number={number} calls of {about} {per_call_ns / 1e9:.3g} s make one sample of {about} "
                          f"{number * per_call_ns / 1e9:.3g} s, longer than the whole {budget:g} s budget: give "
                          f"number={fits} or less (--number), or a budget of at least "
                          f"{number * per_call_ns / 1e9 * 2:.3g} s (--budget)")


def loop(fn: Callable[[], object], number: int) -> Callable[[], None]:
    """``fn`` called ``number`` times (``fn`` itself for one call)."""
    if number == 1:
        return fn  # type: ignore[return-value]
    repeat = itertools.repeat

    def looped() -> None:
        for _ in repeat(None, number):
            fn()

    return looped


def _needed_number(per_call_ns: float, overhead_ns: float, resolution_ns: float, precision: float) -> int:
    """Smallest loop count for which overhead and resolution each bias a sample by at most
    ``OVERHEAD_SHARE * precision``."""
    limit = OVERHEAD_SHARE * precision
    per_call_ns = max(per_call_ns, 1e-3)
    need = max(overhead_ns, resolution_ns) / (limit * per_call_ns)
    return max(1, math.ceil(need - 1e-9))


def _warmup_falling(times: list[float]) -> bool:
    """Whether per-call time is still falling: the median of the last ``w`` calls is more than
    :data:`WARMUP_TOLERANCE` below the median of the ``w`` calls before them, with
    ``w = WARMUP_WINDOW`` (or fewer when only a few slow calls fit under the time cap; with fewer than
    two calls nothing can be judged, which counts as falling)."""
    w = min(WARMUP_WINDOW, len(times) // 2)
    if w == 0:
        return True
    last = stats.median(times[-w:])
    before = stats.median(times[-2 * w:-w])
    return last < (1.0 - WARMUP_TOLERANCE) * before


def flush_bytes(device: torch.device) -> int:
    """Bytes a cold-cache flush writes: twice the last-level cache (GPU L2, Apple SLC, CPU LLC), since
    caches do not evict in strict LRU order and a flush of exactly their size leaves lines behind."""
    return FLUSH_FACTOR * last_level_cache_bytes(device)
