"""The rules a self-check keeps: the durations it checks, its stated tolerances, the truth of a busy-wait
from its own stamps, how a row is judged against them, and how long a quick and a full check spend."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from ..results.kinds import Measurement
from ..results.selfcheck import FAIL, INFO, NOISY, PASS, SKIP, Row


#: CPU busy-waits, nanoseconds.
CPU_DURATIONS_NS = (2_000, 20_000, 200_000, 2_000_000)
#: The longest CPU busy-wait ``durations_ns`` may ask for (100 ms): each is spun for many samples.
MAX_CPU_DURATION_NS = 100_000_000
#: CUDA sleep kernels, seconds (the cycle counts come from the calibration).
CUDA_DURATIONS_S = (5e-6, 50e-6, 1e-3)
#: CPU tolerance by duration: (from this many ns, relative tolerance), longest first.
CPU_TOLERANCES = ((200_000, 0.005), (20_000, 0.01), (0, 0.05))
#: CUDA tolerances: events (and graph, cold cache, fixed before their overhead) from 50 µs, and below.
CUDA_EVENTS_TOLERANCE, CUDA_SHORT_TOLERANCE, CUDA_SHORT_S, CUDA_LONG_S = 0.01, 0.05, 10e-6, 50e-6
#: The synchronized wall clock carries a sync per sample: a little looser.
CUDA_WALL_TOLERANCE = 0.02
#: CUDA graph mode against triton's ``do_bench_cudagraph``.
GRAPH_VS_DO_BENCH_TOLERANCE = 0.03
#: A sample of one call (fixed mode, cold cache) carries up to this many times the empty-sample overhead:
#: the clock reads and sync, plus the call's own entry and exit, colder than inside a loop. Such a row
#: is judged only while one overhead is within the base tolerance (else it shows the bias, unjudged).
ONE_CALL_OVERHEADS = 2.0
#: Samples of the timer's empty-call overhead (as the engine takes).
OVERHEAD_REPS = 25


# ---- pure parts: tolerances, truths, judging ------------------------------------------------------
def cpu_tolerance(duration_ns: float) -> float:
    """The stated CPU tolerance for a busy-wait of ``duration_ns``."""
    for start, tol in CPU_TOLERANCES:
        if duration_ns >= start:
            return tol
    return CPU_TOLERANCES[-1][1]


def cuda_tolerance(duration_s: float, method: str) -> float:
    """The stated CUDA tolerance for a mode before any per-sample overhead is added."""
    if method == "graph_vs_do_bench_cudagraph":
        return GRAPH_VS_DO_BENCH_TOLERANCE
    if duration_s < CUDA_LONG_S:
        return CUDA_SHORT_TOLERANCE
    return CUDA_WALL_TOLERANCE if method == "wall" else CUDA_EVENTS_TOLERANCE


def judge(rel_error: float | None, tolerance: float, noise: float | None, busy: float | None = None) -> str:
    """PASS within the tolerance; NOISY when the error is within the tolerance plus the noise measured
    during the row (the machine may explain it), or when the machine was busy (``busy``: how far the time
    the thread spent off the CPU could lengthen the estimate, :func:`off_cpu_allowance`) and the estimate
    is too *long* by no more than the tolerance, the noise and that; else FAIL. A missing estimate fails."""
    if rel_error is None or not math.isfinite(rel_error):
        return FAIL
    e = abs(rel_error)
    if e <= tolerance:
        return PASS
    n = noise if noise is not None else 0.0
    if not math.isfinite(n) or e <= tolerance + n:
        return NOISY
    if busy is not None and rel_error > 0 and (not math.isfinite(busy) or rel_error <= tolerance + n + busy):
        return NOISY  # load only lengthens a reading: a reading too short is a fault however busy
    return FAIL


def cpu_share(wall_ns: float, cpu_ns: float) -> float | None:
    """The share of a core a thread got over ``wall_ns``: its CPU time over the wall time (at most 1;
    None for no wall time)."""
    if not wall_ns > 0:
        return None
    return min(1.0, max(0.0, cpu_ns / wall_ns))


def off_cpu_allowance(off_ns: float, seen_ns: float, calls_ns: float) -> float:
    """How far a thread's time off the CPU inside the timed windows (``off_ns``) could lengthen a median of
    samples, relative to the truth: that time less what the busy-wait's own clock saw (``seen_ns``, already
    in the noise), over the true time of the calls the samples made (``calls_ns``), twice (a median
    carries at most twice the mean of what is spread over the samples). Infinite when nothing was sampled."""
    unseen = max(0.0, off_ns - seen_ns)
    if unseen == 0.0:
        return 0.0
    return 2.0 * unseen / calls_ns if calls_ns > 0 else math.inf


@dataclass(frozen=True)
class Truth:
    """The per-call truth of a busy-wait, from the calls an estimate timed.

    A spin can only overrun its duration, never fall short, so the shortest spin is an uninterrupted one:
    calls within :data:`CLEAN_MARGIN_NS` of it are *clean*. ``self_ns``: median duration of the
    clean spins; ``gap_ns``: median gap between consecutive calls of one loop (or the tight-loop gap
    measured before, when the method timed one call per sample); ``stolen``: the time lost to
    interruptions as a share of the per-call time: the mean excess over ``self_ns`` (each counted at most
    once the call's duration), or, when more than a quarter of the calls were interrupted, the excess of
    the :data:`INTERRUPTED_QUANTILE` quantile, whichever is larger (the median of the clean calls does not
    move however many calls were interrupted; an estimate built on medians of samples does); ``drift``:
    change of the clean median between the first and second half of the calls; ``clean``: their share.
    """

    per_call_ns: float
    self_ns: float
    gap_ns: float
    stolen: float
    drift: float
    calls: int
    clean: float = 1.0


#: A spin within this of the shortest one was not interrupted (a spin overruns by one clock read, well
#: under this; a timer-tick interrupt takes longer).
CLEAN_MARGIN_NS = 1000.0
#: The noise includes this quantile of the calls' interruptions: zero while at most a quarter of the
#: calls were interrupted, the typical interruption once most were (what a median then carries).
INTERRUPTED_QUANTILE = 0.75
#: Gaps larger than this (or 3x the tight-loop gap) are boundaries between samples, not loop overhead.
GAP_BOUNDARY_NS = 1000.0


def truth_from_stamps(entries: Sequence[int] | np.ndarray, exits: Sequence[int] | np.ndarray,
                      loop_gap_ns: float) -> Truth:
    """The truth of a run from each call's start and end on the clock (see :class:`Truth`)."""
    e = np.asarray(entries, dtype=np.int64)
    x = np.asarray(exits, dtype=np.int64)
    if e.size == 0 or e.size != x.size:
        raise ValueError("truth needs one start and one end per call, and at least one call")
    own = (x - e).astype(float)
    floor = float(own.min())
    is_clean = own <= floor + CLEAN_MARGIN_NS
    clean = own[is_clean]
    self_ns = float(np.median(clean))
    gap = float(loop_gap_ns)
    if e.size > 2:
        gaps = (e[1:] - x[:-1]).astype(float)
        # with no loop gap at all (a simulated clock) every nonzero gap is a sample boundary
        limit = max(3.0 * loop_gap_ns, loop_gap_ns + GAP_BOUNDARY_NS) if loop_gap_ns > 0 else 0.0
        inner = gaps[gaps <= limit]
        if inner.size >= 0.5 * gaps.size:
            gap = float(np.median(inner))
    per_call = self_ns + gap
    stolen = 0.0
    if per_call > 0:
        excess = np.clip(own - self_ns, 0.0, None)
        # the share of time lost, each interruption counted at most one call's duration; and, once more
        # than a quarter of the calls were interrupted, how far that moves a median (uncapped: a median
        # of samples that nearly all hold an interruption carries all of it)
        stolen = max(float(np.mean(np.minimum(excess, per_call))), float(np.quantile(excess, INTERRUPTED_QUANTILE)))
        stolen /= per_call
    drift = 0.0
    h = own.size // 2
    first, second = own[:h][is_clean[:h]], own[h:][is_clean[h:]]
    if own.size >= 20 and first.size and second.size and per_call > 0:
        drift = abs(float(np.median(first)) - float(np.median(second))) / per_call
    return Truth(per_call, self_ns, gap, stolen, drift, int(e.size), float(clean.size) / own.size)


def overrun_ns(entries: Sequence[int] | np.ndarray, exits: Sequence[int] | np.ndarray, duration_ns: float) -> float:
    """The time the busy-wait's own clock saw it lose: how far the calls that overran their ``duration_ns``
    by more than :data:`CLEAN_MARGIN_NS` overran it, in all (a spin that ends late was interrupted, even
    when every call was)."""
    own = np.asarray(exits, dtype=np.int64) - np.asarray(entries, dtype=np.int64)
    late = own[own > duration_ns + CLEAN_MARGIN_NS]
    return float(np.sum(late - duration_ns))


def sampled_truth_ns(entries: Sequence[int] | np.ndarray, exits: Sequence[int] | np.ndarray,
                     numbers: Sequence[int], used: Sequence[bool] | np.ndarray, gap_ns: float,
                     firsts: Sequence[int] | None = None) -> float | None:
    """The truth as the estimator aggregates it: sample ``i`` is ``numbers[i]`` calls from call
    ``firsts[i]`` (default: the samples are the last ``sum(numbers)`` calls, back to back); its per-call
    time on the busy-wait's own clock is the span from its first call's start to its last call's end, plus
    one loop gap, over its calls; the median over the samples the estimate ``used`` (preempted ones set
    aside). Interruptions move it exactly as they move the estimate, so ``|sampled - truth| / truth`` is
    the machine's share of the error. None if the calls do not add up."""
    e = np.asarray(entries, dtype=np.int64)
    x = np.asarray(exits, dtype=np.int64)
    counts = [int(k) for k in numbers]
    total = sum(counts)
    if not counts or total > e.size or len(used) != len(counts):
        return None
    if firsts is None:
        starts = [int(a) for a in np.cumsum([0] + counts[:-1]) + (e.size - total)]
    elif len(firsts) != len(counts) or any(a < 0 or a + k > e.size for a, k in zip(firsts, counts)):
        return None
    else:
        starts = [int(a) for a in firsts]
    per_call = [(float(x[a + k - 1] - e[a]) + gap_ns) / k for a, k in zip(starts, counts)]
    kept = [v for v, u in zip(per_call, used) if u]
    return float(np.median(kept)) if kept else None


def sleep_rate(pairs: Sequence[tuple[float, float]], cycles: float) -> float:
    """SM cycles per second from pairs of synchronized wall times (seconds) of ``cycles`` and
    ``2 * cycles`` sleeps: the slope cancels the launch and sync latency; the median resists noise."""
    slopes = [(t2 - t1) / cycles for t1, t2 in pairs if t2 > t1]
    if not slopes:
        raise RuntimeError("sleep calibration failed: a longer sleep never took longer (is the GPU clock stuck?)")
    return 1.0 / statistics.median(slopes)


def _overhead_share(m: Measurement, truth_s: float | None) -> float:
    """The run's own empty-sample overhead as a share of the truth (measured in the same stretch)."""
    if m.calibration is None or not truth_s:
        return 0.0
    return m.calibration.overhead_ns / 1e9 / truth_s


def _rel(estimate: float | None, truth: float | None) -> float | None:
    if estimate is None or truth is None or not truth > 0 or not math.isfinite(estimate):
        return None
    return (estimate - truth) / truth


def _noise(*parts: float | None) -> float:
    vals = [p for p in parts if p is not None]
    return max(vals) if vals else 0.0


def _row(duration_s: float, method: str, truth_s: float | None, source: str, estimate_s: float | None,
         tolerance: float | None, noise: float | None, *, judged: bool = True, note: str = "",
         detail: str = "", share: float | None = None, off_cpu: float | None = None) -> Row:
    err = _rel(estimate_s, truth_s)
    if not judged or tolerance is None:
        status = INFO
    else:
        status = judge(err, tolerance, noise, off_cpu)
        if status == NOISY and judge(err, tolerance, noise) == FAIL:
            note = "busy"  # a fault on a quiet core; on this busy one, not judged
    return Row(duration_s, method, truth_s, source, estimate_s, err, tolerance, noise, status, note, detail,
               share, off_cpu)


def _skip(duration_s: float, method: str, note: str, detail: str = "", source: str = "") -> Row:
    return Row(duration_s, method, None, source, None, None, None, None, SKIP, note, detail)


# ---- plan -----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Plan:
    budget: float  # adaptive benchmark() budget, seconds
    timeit_repeat: int
    blocked_min_time: float
    doctor_budget: float
    gap_calls_s: float  # seconds of tight loop for the loop gap
    stream_s: float  # CUDA: seconds per stream-truth batch
    calibrate_s: float  # CUDA: seconds per calibration sleep
    calibrate_pairs: int


_QUICK = _Plan(budget=1.0, timeit_repeat=3, blocked_min_time=0.2, doctor_budget=0.5, gap_calls_s=0.01,
               stream_s=0.01, calibrate_s=0.01, calibrate_pairs=3)
_FULL = _Plan(budget=3.0, timeit_repeat=5, blocked_min_time=0.5, doctor_budget=1.5, gap_calls_s=0.03,
              stream_s=0.03, calibrate_s=0.03, calibrate_pairs=7)

Progress = Callable[[str, "float | None", str], None]
