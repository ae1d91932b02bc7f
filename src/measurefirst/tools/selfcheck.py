"""measurefirst checks itself on this machine: known durations, the classic traps, the machine.

**Known durations.** On the CPU: busy-waits of 2 µs, 20 µs, 200 µs and 2 ms, each measured by
:func:`~measurefirst.benchmark` (adaptive, and fixed ``warmup=3, trials=10``) and, side by side, by the
references that are installed (``timeit``, ``torch.utils.benchmark``'s ``blocked_autorange``). On CUDA:
``torch.cuda._sleep`` kernels of about 5 µs, 50 µs and 1 ms, with the SM cycles per second calibrated
first against the synchronized wall clock, measured in every mode (events, wall, fixed, CUDA graph,
cold cache) and by the references (``triton.testing.do_bench``, ``do_bench_cudagraph``, the profiler's
kernel-only time, ``blocked_autorange``).

**The truth, and noise.** A shared machine changes speed in stretches of seconds, so a truth measured
before or after an estimate is not the truth *during* it. The CPU busy-wait therefore records its own
start and end on the clock (``time.perf_counter_ns``) on every call, while the estimate runs. The truth
of a row is the median of those self-measured durations plus the median gap between consecutive calls
of the same loop (call, return and loop overhead), both taken from the very calls the estimate timed;
where a method times one call per sample, the gap comes from a tight loop run just before. The busy-wait
reads the host clock itself (:func:`~measurefirst.measure.timers.host_clock`: ``perf_counter_ns`` with
nothing in between), not through a Timer: the truth must not come through the code under test. On CUDA the truth is the profiler's kernel time (CUPTI, independent of
events and of the host clock) and the synchronized wall time per call of a long stream of the same
kernel, taken before and after the rows of each duration.

**Judging a row** (:func:`judge`): PASS when the relative error is within the stated tolerance;
otherwise NOISY when the error is within the tolerance plus the noise measured during that row, because
then the machine, not the tool, may explain it; otherwise FAIL. For benchmark()'s CPU rows the noise is
exact: the busy-wait's own clock, aggregated the way the estimate aggregates its samples (the same
calls, the same samples set aside), shows how far interruptions moved the estimate
(:func:`sampled_truth_ns`); a timer that reads wrong does not move it, so a fault fails however noisy
the machine. Elsewhere the noise is the estimate's CI, the share of time lost to interruptions and the
truth's drift. References are shown, not judged (INFO).

**A busy machine** (:func:`cpu_share`, :func:`off_cpu_allowance`). While each host row and trap runs, the
checking thread's CPU time (:func:`~measurefirst.measure.timers.thread_cpu_clock`) is read beside the wall
clock: a busy-wait spins all the time it is given, so on a quiet core it gets all of it. The time it spent
off the CPU that the busy-wait's own stamps did not see (preemption between the timer's reads and the
call, which the exact noise above cannot count) could lengthen the estimate by up to twice its share of
the sampled calls' true time; a reading *longer* than the truth by no more than the tolerance, the noise
and that is NOISY with the note ``busy``, not FAIL. On a quiet core that time is nil, so a reading too
long fails as before; a reading too short fails however busy the core: load only ever lengthens a reading.
A share under :data:`~measurefirst.results.findings.MIN_CPU_SHARE` makes the machine ``busy`` (a finding),
and a timed trap (the cold first call; the ``.item()`` count when doctor's budget ran out before it could
count) missed while the thread got under it is NOISY too. The least
share, the most tasks seen waiting to run (``/proc/loadavg``) and the machine's state (``quiet``,
``busy``, ``unknown``) are kept in :class:`Machine`.
On CUDA the rows are timed on the GPU and the host thread may block in a synchronize: no share is taken.

**Tolerances** (stated; :func:`cpu_tolerance`, :func:`cuda_tolerance`): CPU 0.5% from 200 µs, 1% at
20 µs, 5% at 2 µs (a call's own overhead is a tenth of a microsecond and varies with the CPU's speed).
Modes that time one call per sample (fixed, cold cache) carry the timer's overhead in every sample by
design: their tolerance adds twice the run's own empty-sample overhead over the truth, and they are
judged only while that overhead is within the base tolerance (shorter calls show the bias, unjudged).
CUDA: events within 1% of the stream truth from 50 µs; at 10 µs and below within 5% of the profiler's
kernel time plus the per-call gap that a stream of launches adds (measured: stream truth over kernel
time); wall 2% from 50 µs; CUDA graph within 1% of the kernel time plus that gap, and within 3% of
``do_bench_cudagraph``. A launch-bound events row (host time per call at least 80% of the device time)
is shown, not judged: the host, not the kernel, sets its time.

**Traps**: a cold first call (a function with a real one-time cost) must be flagged by doctor's
cold-start check, one ``.item()`` per call must be found by its implicit-sync check, and on a GPU the
unsynchronized timer must read far below the truth. Each is detected, or the check fails.

Computation only: the words live in :mod:`measurefirst.render.selfcheck`.
"""

from __future__ import annotations

import array
import glob
import itertools
import math
import os
import statistics
import subprocess
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np
import torch

from ..measure.devices import DeviceLike, cuda_api, environment, machine, resolve_device, synchronizer
from ..measure.devices import Machine as RealMachine
from ..measure.engine import BenchmarkError, Interrupted, benchmark
from ..results.errors import check_flag, check_kind
from ..results.findings import COLD_START_RATIO, MIN_CPU_SHARE, UNSYNCED_WARN_RATIO
from ..results.kinds import Measurement
from ..measure.timers import (Marks, Reading, Timer, host_clock, host_time, make_timer, python_timeit,
                              thread_cpu_clock)
from ..results.selfcheck import (FAIL as FAIL, INFO as INFO, NOISY as NOISY, PASS as PASS, REFERENCES as REFERENCES,
                                 SELFCHECK_SCHEMA_VERSION as SELFCHECK_SCHEMA_VERSION, SKIP as SKIP,
                                 STATUSES as STATUSES, Machine as Machine, Row as Row, SelfCheck as SelfCheck,
                                 Trap as Trap, duration_code as duration_code, machine_state)


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


# ---- timers wrapped around a timer -----------------------------------------------------------------
class _Wrapped:
    """A timer around ``inner``: everything but :meth:`time` is the inner timer's."""

    inner: Timer

    def now_ns(self) -> int:
        return self.inner.now_ns()

    def synchronize(self) -> None:
        self.inner.synchronize()

    def probe(self) -> Callable[[], object]:
        return self.inner.probe()

    def marks(self) -> Marks:
        return self.inner.marks()


# ---- the time off the CPU inside the timed windows -----------------------------------------------
class _Watched(_Wrapped):
    """A :class:`~measurefirst.measure.timers.Timer` that adds up, around each reading, how long the thread
    was off the CPU (the wall clock's time less the thread's CPU time): what a busy machine took from inside
    the timed windows, where the busy-wait's own clock cannot see it between calls. It also keeps each
    reading with the busy-wait's calls it spans (``calls``: how many have finished so far), so that each
    sample is matched to its own calls (:meth:`firsts`) even when the engine calls between samples."""

    def __init__(self, inner: Timer, gauge: "_Gauge", calls: Callable[[], int]) -> None:
        self.inner, self.gauge, self.calls, self.off_ns = inner, gauge, calls, 0.0
        self.kind, self.resolution_ns = inner.kind, inner.resolution_ns
        self.readings: list[tuple[float, int, int]] = []  # (elapsed ns, first call, calls)

    def time(self, run: Callable[[], object], prelude: Callable[[], object] | None = None) -> Reading:
        wall, cpu = self.gauge.wall, self.gauge.cpu
        first, w0, c0 = self.calls(), wall(), cpu()
        r = self.inner.time(run, prelude)
        c1, w1 = cpu(), wall()
        self.off_ns += max(0, (w1 - w0) - (c1 - c0))
        self.readings.append((r.elapsed_ns, first, self.calls() - first))
        return r

    def firsts(self, m: Measurement) -> list[int] | None:
        """The first call of each of ``m``'s samples: the readings it recorded, found in order (a sample is
        a reading of the same time over the same number of calls); None if one is not found."""
        out: list[int] = []
        it = iter(self.readings)
        for elapsed, number in zip(m.samples_ns, m.numbers):
            first = next((a for e, a, k in it if e == elapsed and k == number), None)
            if first is None:
                return None
            out.append(first)
        return out



# ---- fault injection ------------------------------------------------------------------------------
class FaultyTimer(_Wrapped):
    """A :class:`~measurefirst.measure.timers.Timer` that scales every reading by ``factor``: a clock that is
    wrong by a known amount, to prove that :func:`selfcheck` catches it."""

    def __init__(self, inner: Timer, factor: float) -> None:
        if not (isinstance(factor, (int, float)) and math.isfinite(factor) and factor > 0):
            raise ValueError(f"the fault factor must be a positive number such as 1.1; got {factor!r}")
        self.inner, self.factor = inner, float(factor)
        self.kind = f"{inner.kind}x{factor:g}"
        self.resolution_ns = inner.resolution_ns

    def time(self, run: Callable[[], object], prelude: Callable[[], object] | None = None) -> Reading:
        r = self.inner.time(run, prelude)
        f = self.factor
        return Reading(r.elapsed_ns * f, None if r.host_ns is None else r.host_ns * f, r.preempted,
                       None if r.synced_ns is None else r.synced_ns * f)



# ---- the busy-wait and its clock ------------------------------------------------------------------
class _Spin:
    """A call of known duration that records its own start and end on every call."""

    def __init__(self, fn: Callable[[], None], entries: "array.array[int]", exits: "array.array[int]",
                 ns: int) -> None:
        self.fn, self.entries, self.exits, self.ns = fn, entries, exits, ns

    def reset(self) -> None:
        del self.entries[:]
        del self.exits[:]

    def truth(self, loop_gap_ns: float) -> Truth:
        return truth_from_stamps(np.array(self.entries, dtype=np.int64),
                                 np.array(self.exits, dtype=np.int64), loop_gap_ns)

    def overrun(self) -> float:
        return overrun_ns(np.array(self.entries, dtype=np.int64), np.array(self.exits, dtype=np.int64), self.ns)

    def sampled(self, m: Measurement, gap_ns: float, firsts: Sequence[int] | None = None) -> float | None:
        return sampled_truth_ns(np.array(self.entries, dtype=np.int64), np.array(self.exits, dtype=np.int64),
                                m.numbers, m.used_mask, gap_ns, firsts)

    def calls(self) -> int:
        """Calls finished since the last :meth:`reset`."""
        return len(self.exits)


def _real_spin(ns: int) -> _Spin:
    # the real machine's clock even under a simulated GPU: a simulated clock moves only with simulated
    # work, so a busy-wait on it would never end (the simulated world spins on its own clock, below)
    clock = host_clock(RealMachine())
    entries: array.array[int] = array.array("q")
    exits: array.array[int] = array.array("q")
    enter, leave = entries.append, exits.append

    def busy_wait() -> None:
        start = clock()
        end = start + ns
        now = start
        while now < end:
            now = clock()
        enter(start)
        leave(now)

    return _Spin(busy_wait, entries, exits, ns)


class _World:
    """Where the known durations run: the real clock, or a seeded simulated one (tests)."""

    def __init__(self, sim: Any = None) -> None:
        self.sim = sim

    @property
    def simulated(self) -> bool:
        return self.sim is not None

    def spin(self, ns: int) -> _Spin:
        if self.sim is None:
            return _real_spin(ns)
        world = self.sim
        entries: array.array[int] = array.array("q")
        exits: array.array[int] = array.array("q")

        def simulated_wait() -> None:
            start = world.now
            world.call(float(ns))
            entries.append(start)
            exits.append(world.now)

        return _Spin(simulated_wait, entries, exits, ns)

    def timer(self, device: torch.device, kind: str = "auto") -> Timer:
        return make_timer(device, kind) if self.sim is None else self.sim.timer()

    def clock(self) -> Callable[[], int]:
        """The clock its timers read (ns): the machine's host clock, or the simulated one."""
        return host_clock() if self.sim is None else self.sim.timer().now_ns

    def gauge(self) -> "_Gauge":
        """How much of a core the checking thread gets: the thread's CPU clock beside the wall clock, on
        the machine or in the simulated world (which counts its preempted and stalled time off the CPU)."""
        if self.sim is None:
            return _Gauge(host_clock(), thread_cpu_clock(), _runnable_others)
        return _Gauge(self.clock(), self.sim.cpu_ns, lambda: None)


class _Gauge:
    """The checking thread's share of a core over each stretch it measures (:meth:`start` .. :meth:`stop`),
    and the most other tasks seen ready to run at once at their ends."""

    def __init__(self, wall: Callable[[], int], cpu: Callable[[], int], runnable: Callable[[], int | None]) -> None:
        self.wall, self.cpu, self.runnable = wall, cpu, runnable
        self.shares: list[float] = []
        self.most_runnable: int | None = None

    def start(self) -> tuple[int, int]:
        self._look()
        return self.wall(), self.cpu()

    def stop(self, started: tuple[int, int]) -> tuple[float, float, float | None]:
        """(wall ns, CPU ns, share of a core) since ``started``."""
        wall_ns, cpu_ns = float(self.wall() - started[0]), float(self.cpu() - started[1])
        self._look()
        share = cpu_share(wall_ns, cpu_ns)
        if share is not None:
            self.shares.append(share)
        return wall_ns, cpu_ns, share

    def _look(self) -> None:
        n = self.runnable()
        if n is not None and (self.most_runnable is None or n > self.most_runnable):
            self.most_runnable = n


def _runnable_others() -> int | None:
    """Other tasks ready to run right now (``/proc/loadavg``'s running count, less this one); None elsewhere."""
    try:
        with open("/proc/loadavg") as f:
            return max(0, int(f.read().split()[3].split("/")[0]) - 1)
    except (OSError, ValueError, IndexError):
        return None


def _loop_gap(spin: _Spin, calls: int) -> float:
    """Median gap between consecutive calls in the loop the engine uses (a local itertools.repeat loop)."""
    fn = spin.fn
    spin.reset()
    for _ in itertools.repeat(None, calls):
        fn()
    e = np.array(spin.entries, dtype=np.int64)
    x = np.array(spin.exits, dtype=np.int64)
    gap = float(np.median(e[1:] - x[:-1])) if e.size > 1 else 0.0
    spin.reset()
    return max(gap, 0.0)


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


def _nothing(stage: str, duration_s: float | None, method: str) -> None:
    """No progress report."""


# ---- the CPU rows -----------------------------------------------------------------------------------
def _cpu_rows(world: _World, durations_ns: Sequence[int], plan: _Plan, timer: Timer | None,
              references: bool, progress: Progress, device_type: str,
              gauge: _Gauge, rows: list[Row], ms: list[Measurement]) -> None:
    """The CPU rows, appended to ``rows`` and ``ms`` as each is measured (what a Ctrl-C keeps)."""
    cpu = torch.device("cpu")
    for ns in durations_ns:
        d_s = ns / 1e9
        tol = cpu_tolerance(ns)
        spin = world.spin(ns)
        gap_calls = max(20, min(2000, int(plan.gap_calls_s * 1e9 / ns)))
        label = f"selfcheck/{device_type}/{duration_code(d_s)}"

        def run_measured(method: str, fixed: bool) -> None:
            progress("row", d_s, method)
            gap = _loop_gap(spin, gap_calls) if not world.simulated else 0.0
            spin.reset()
            the_timer = _Watched(timer if timer is not None else world.timer(cpu), gauge, spin.calls)
            started = gauge.start()
            try:
                if fixed:
                    m = benchmark(spin.fn, device=cpu, label=f"{label}/{method}", warmup=3, trials=10, timer=the_timer)
                else:
                    m = benchmark(spin.fn, device=cpu, label=f"{label}/{method}", budget=plan.budget, timer=the_timer)
            except BenchmarkError as exc:
                rows.append(Row(d_s, method, None, "self", None, None, tol, None, FAIL, "error", str(exc)))
                return
            share = gauge.stop(started)[2]
            truth = spin.truth(gap)
            sampled = spin.sampled(m, truth.gap_ns, the_timer.firsts(m))
            # how far the time off the CPU that the busy-wait did not see could lengthen it (0 on a quiet core)
            off = (off_cpu_allowance(the_timer.off_ns, spin.overrun(), sum(m.numbers) * truth.per_call_ns)
                   if share is not None else None)
            spin.reset()
            ms.append(m)
            # the machine's share of the error: how far the interruptions moved the very samples the
            # estimate used, on the busy-wait's own clock (a wrong timer does not move this)
            moved = truth.stolen if sampled is None else abs(sampled - truth.per_call_ns) / truth.per_call_ns
            # one call per sample carries the timer's overhead by design: the tolerance says so, and a
            # call shorter than that makes the row a demonstration of the bias, not a check
            overhead = _overhead_share(m, truth.per_call_ns / 1e9) if fixed else 0.0
            rows.append(_row(d_s, method, truth.per_call_ns / 1e9, "self", m.median, tol + ONE_CALL_OVERHEADS * overhead,
                             _noise(moved, truth.drift), judged=overhead <= tol,
                             note="" if overhead <= tol else "overhead_bound", share=share, off_cpu=off))

        run_measured("adaptive", fixed=False)
        run_measured("fixed", fixed=True)
        if not references:
            continue
        if world.simulated:
            rows += [_skip(d_s, "timeit", "simulated"), _skip(d_s, "blocked_autorange", "simulated")]
            continue
        # timeit, as `python -m timeit` reports: autorange, then the best of `repeat` runs
        progress("row", d_s, "timeit")
        gap = _loop_gap(spin, gap_calls)
        spin.reset()
        started = gauge.start()
        number, runs = python_timeit(spin.fn, plan.timeit_repeat)
        share = gauge.stop(started)[2]
        truth = spin.truth(gap)
        spin.reset()
        best = min(runs) / number
        spread = (statistics.median(runs) - min(runs)) / min(runs) if min(runs) > 0 else None
        rows.append(_row(d_s, "timeit", truth.per_call_ns / 1e9, "self", best, None,
                         _noise(spread, truth.stolen, truth.drift), judged=False, share=share))
        progress("row", d_s, "blocked_autorange")
        try:
            import torch.utils.benchmark as tub
        except ImportError as exc:  # pragma: no cover - part of torch
            rows.append(_skip(d_s, "blocked_autorange", "not_installed", str(exc)))
            continue
        gap = _loop_gap(spin, gap_calls)
        spin.reset()
        started = gauge.start()
        b = tub.Timer(stmt="fn()", globals={"fn": spin.fn}).blocked_autorange(min_run_time=plan.blocked_min_time)
        share = gauge.stop(started)[2]
        truth = spin.truth(gap)
        spin.reset()
        spread_b = float(b.iqr / b.median / 2) if b.median > 0 else None
        rows.append(_row(d_s, "blocked_autorange", truth.per_call_ns / 1e9, "self", float(b.median), None,
                         _noise(spread_b, truth.stolen, truth.drift), judged=False, share=share))


# ---- the CUDA rows ----------------------------------------------------------------------------------
def _wall_s(sync: Callable[[], None], run: Callable[[], object]) -> float:
    """Synchronized host-clock seconds of ``run()`` (the machine's clock: real, or the simulated GPU's)."""
    return host_time(run, sync) / 1e9


def _stream_per_call(fn: Callable[[], object], sync: Callable[[], None], calls: int, batches: int = 3) -> float:
    """Synchronized wall seconds per call over ``calls`` back-to-back launches (median of batches)."""

    def loop() -> None:
        for _ in itertools.repeat(None, calls):
            fn()

    return statistics.median(_wall_s(sync, loop) / calls for _ in range(batches))


def calibrate_sleep(cuda: Any, sync: Callable[[], None], seconds: float, pairs: int) -> float:
    """SM cycles per second of ``cuda._sleep``: a rough guess from one sleep, then ``pairs`` pairs of
    ``seconds``-long and twice as long sleeps against the synchronized wall clock (:func:`sleep_rate`)."""
    probe = 1_000_000
    _wall_s(sync, lambda: cuda._sleep(probe))  # first launch pays its own one-time costs
    rough = probe / max(_wall_s(sync, lambda: cuda._sleep(probe)), 1e-7)
    cycles = max(int(rough * seconds), 1000)
    measured = [(_wall_s(sync, lambda: cuda._sleep(cycles)), _wall_s(sync, lambda: cuda._sleep(2 * cycles)))
                for _ in range(pairs)]
    return sleep_rate(measured, cycles)


def _profiler_kernel_s(fn: Callable[[], object], dev: torch.device, per_step: int) -> float | None:
    """Mean device time of the sleep kernel from the profiler (CUPTI), or None if none was seen."""
    from ..profiling import profile

    def step() -> None:
        for _ in range(per_step):
            fn()

    p = profile(step, device=dev, steps=2, warmup=1, label="selfcheck sleep")
    kernels = [k for k in p.kernels if k.calls > 0]
    if not kernels:
        return None
    k = max(kernels, key=lambda k: k.total_s)
    return k.total_s / k.calls


def _cuda_rows(dev: torch.device, plan: _Plan, timer: Timer | None, references: bool,
               progress: Progress, rows: list[Row], ms: list[Measurement]) -> float:
    """The CUDA rows, appended to ``rows`` and ``ms`` as each is measured (what a Ctrl-C keeps); the sleep
    kernel's calibrated rate."""
    cuda = cuda_api()
    sync = synchronizer(dev)
    simulated = machine().simulated  # the simulated GPU: no profiler, no other tools to compare with
    with cuda.device(dev):
        progress("calibrate", None, "sleep")
        rate = calibrate_sleep(cuda, sync, plan.calibrate_s, plan.calibrate_pairs)
        for d_s in CUDA_DURATIONS_S:
            cycles = max(int(round(d_s * rate)), 1)

            def sleep(c: int = cycles) -> None:
                cuda._sleep(c)

            sleep()
            sync()
            label = f"selfcheck/cuda/{duration_code(d_s)}"
            calls = max(20, int(plan.stream_s / d_s))
            progress("row", d_s, "profiler")
            stream_before = _stream_per_call(sleep, sync, calls)
            sleep_truth = cycles / rate
            kernel: float | None = None
            if simulated:
                rows.append(_skip(d_s, "profiler", "simulated"))
            else:
                try:
                    kernel = _profiler_kernel_s(sleep, dev, per_step=20)
                except Exception as exc:  # noqa: BLE001 - the profiler is a reference; report, go on
                    rows.append(_skip(d_s, "profiler", "error", f"{type(exc).__name__}: {exc}"))
            if kernel is not None:
                rows.append(_row(d_s, "profiler", sleep_truth, "sleep", kernel, None, None, judged=False))
            k_truth, k_source = (kernel, "profiler") if kernel is not None else (sleep_truth, "sleep")
            k_note = "fallback_truth" if kernel is None and not simulated else ""
            results: dict[str, Measurement] = {}
            modes: list[tuple[str, dict[str, Any]]] = [
                ("events", {"budget": plan.budget, "timer": timer or "event"}),
                ("wall", {"budget": plan.budget, "timer": "wall"}),
                ("fixed", {"warmup": 3, "trials": 10, "timer": timer or "event"}),
                ("cuda_graph", {"budget": plan.budget, "cuda_graph": True, "timer": timer or "event"}),
                ("cold_cache", {"budget": plan.budget, "cold_cache": True, "timer": timer or "event"}),
            ]
            for method, kwargs in modes:
                progress("row", d_s, method)
                try:
                    results[method] = benchmark(sleep, device=dev, label=f"{label}/{method}", **kwargs)
                except BenchmarkError as exc:
                    rows.append(Row(d_s, method, None, k_source, None, None, None, None, FAIL, "error", str(exc)))
            stream_after = _stream_per_call(sleep, sync, calls)
            stream = (stream_before + stream_after) / 2
            drift = abs(stream_after - stream_before) / stream if stream > 0 else None
            for method, m in results.items():
                ms.append(m)
                rows.append(_cuda_row(d_s, method, m, (k_truth, k_source, k_note), stream, drift))
            if references and simulated:
                rows += [_skip(d_s, m, "simulated") for m in ("do_bench", "do_bench_cudagraph",
                                                              "graph_vs_do_bench_cudagraph", "blocked_autorange")]
            elif references:
                rows += _cuda_references(sleep, dev, d_s, k_truth, k_source, stream, results.get("cuda_graph"),
                                         plan, progress)
    return rate


def _cuda_row(d_s: float, method: str, m: Measurement, kernel: tuple[float, str, str], stream: float,
              drift: float | None) -> Row:
    """benchmark()'s row for a CUDA sleep of ``d_s`` seconds measured by ``method``, judged against its truth:
    ``kernel`` (the kernel's time, where it came from, a note) or the ``stream`` of launches' time per call."""
    k_truth, k_source, k_note = kernel
    ci = m.precision_half_width_rel
    noise = _noise(ci if math.isfinite(ci) else None, drift)
    base = cuda_tolerance(d_s, method)
    # the host, not the kernel, sets the per-call time: shown, but not judged against the kernel
    launch_bound = "launch_bound" in [f.code for f in m.findings]
    # the per-call gap a stream of launches adds to the bare kernel, as measured here
    gaps = max(0.0, stream / k_truth - 1) if k_truth else 0.0
    if method == "events":
        if d_s <= CUDA_SHORT_S:  # short kernels: against the kernel time, plus the measured gaps
            return _row(d_s, method, k_truth, k_source, m.median, base + gaps, noise,
                        judged=not launch_bound, note="launch_bound" if launch_bound else k_note)
        return _row(d_s, method, stream, "stream", m.median, base, noise,
                    judged=not launch_bound, note="launch_bound" if launch_bound else "")
    if method == "wall":
        return _row(d_s, method, stream, "stream", m.median, base, noise)
    if method in ("fixed", "cold_cache"):  # one call per sample: the overhead is in each
        share = _overhead_share(m, k_truth)
        return _row(d_s, method, k_truth, k_source, m.median, base + ONE_CALL_OVERHEADS * share, noise,
                    judged=share <= base, note=k_note if share <= base else "overhead_bound")
    # cuda_graph: between the bare kernel and the stream of launches
    return _row(d_s, method, k_truth, k_source, m.median, base + gaps, noise, note=k_note)


def _cuda_references(sleep: Callable[[], None], dev: torch.device, d_s: float, k_truth: float | None,
                     k_source: str, stream: float, graph: Measurement | None, plan: _Plan,
                     progress: Progress) -> list[Row]:
    rows: list[Row] = []
    try:
        import importlib

        tt = importlib.import_module("triton.testing")  # optional: untyped, and absent on most machines
    except Exception as exc:  # noqa: BLE001 - ImportError, or a broken triton install
        detail = f"{type(exc).__name__}: {exc}"
        return [_skip(d_s, "do_bench", "not_installed", detail), _skip(d_s, "do_bench_cudagraph", "not_installed", detail),
                _skip(d_s, "graph_vs_do_bench_cudagraph", "not_installed", detail)] + _blocked_cuda(sleep, d_s, stream, plan,
                                                                                                   progress)
    progress("row", d_s, "do_bench")
    try:
        ms_db = _do_bench(tt.do_bench, sleep, rep=50 if plan is _QUICK else 200)
        rows.append(_row(d_s, "do_bench", k_truth, k_source, ms_db / 1e3, None, None, judged=False))
    except Exception as exc:  # noqa: BLE001 - a reference failing is reported, not fatal
        rows.append(_skip(d_s, "do_bench", "error", f"{type(exc).__name__}: {exc}"))
    progress("row", d_s, "do_bench_cudagraph")
    try:
        cuda = cuda_api()
        with cuda.stream(cuda.Stream(dev)):  # do_bench_cudagraph refuses the default stream
            ms_g = _do_bench(tt.do_bench_cudagraph, sleep, rep=20 if plan is _QUICK else 100)
        rows.append(_row(d_s, "do_bench_cudagraph", k_truth, k_source, ms_g / 1e3, None, None, judged=False))
        if graph is not None:
            ci = graph.precision_half_width_rel
            rows.append(_row(d_s, "graph_vs_do_bench_cudagraph", ms_g / 1e3, "do_bench_cudagraph", graph.median,
                             GRAPH_VS_DO_BENCH_TOLERANCE, ci if math.isfinite(ci) else None))
    except Exception as exc:  # noqa: BLE001
        detail = f"{type(exc).__name__}: {exc}"
        rows += [_skip(d_s, "do_bench_cudagraph", "error", detail), _skip(d_s, "graph_vs_do_bench_cudagraph", "error", detail)]
    return rows + _blocked_cuda(sleep, d_s, stream, plan, progress)


def _do_bench(fn: Callable[..., Any], sleep: Callable[[], None], rep: int) -> float:
    """Median milliseconds from a triton bench function, across the signatures triton has had."""
    try:
        out = fn(sleep, rep=rep, return_mode="median")
    except TypeError:
        out = fn(sleep, rep=rep, quantiles=[0.5])
    if isinstance(out, (list, tuple)):
        out = out[0]
    return float(out)


def _blocked_cuda(sleep: Callable[[], None], d_s: float, stream: float, plan: _Plan, progress: Progress) -> list[Row]:
    progress("row", d_s, "blocked_autorange")
    try:
        import torch.utils.benchmark as tub

        b = tub.Timer(stmt="fn()", globals={"fn": sleep}).blocked_autorange(min_run_time=plan.blocked_min_time)
        return [_row(d_s, "blocked_autorange", stream, "stream", float(b.median), None, None, judged=False)]
    except Exception as exc:  # noqa: BLE001
        return [_skip(d_s, "blocked_autorange", "error", f"{type(exc).__name__}: {exc}")]


# ---- traps --------------------------------------------------------------------------------------------
class _OneTimeCost:
    """A function with a real one-time cost: the first call builds a table (and, on a GPU, runs a long
    kernel standing in for compilation or autotuning); later calls read it back with one ``.item()``."""

    def __init__(self, dev: torch.device, first_sleep_cycles: int = 0) -> None:
        self.dev, self.cycles = dev, first_sleep_cycles
        self.table: torch.Tensor | None = None

    def __call__(self) -> float:
        if self.table is None:
            self.table = torch.linspace(0, 1, 1 << 22, device=machine().tensor_device(self.dev)).sin_().cumsum(0)
            if self.cycles:
                cuda_api()._sleep(self.cycles)
        return float(self.table[:64].sum().item())


def _traps(dev: torch.device, plan: _Plan, rate: float | None, progress: Progress, gauge: _Gauge) -> list[Trap]:
    from .doctor import doctor

    traps: list[Trap] = []
    progress("trap", None, "cold_start")
    fn = _OneTimeCost(dev, int(0.02 * rate) if dev.type == "cuda" and rate else 0)
    started = gauge.start()
    try:
        d = doctor(fn, device=dev, label="selfcheck one-time cost + .item()", budget=plan.doctor_budget)
    except Exception as exc:  # noqa: BLE001 - a broken check is a failed check, said once
        detail = f"{type(exc).__name__}: {exc}"
        return [Trap("cold_start", FAIL, note="error", detail=detail), Trap("implicit_sync", FAIL, note="error",
                                                                             detail=detail)]
    # the host's share of a core while doctor timed it (on a GPU the thread may block in a synchronize)
    share = gauge.stop(started)[2] if dev.type == "cpu" else None
    if d.error is not None:
        traps += [Trap("cold_start", FAIL, note="error", detail=d.error),
                  Trap("implicit_sync", FAIL, note="error", detail=d.error)]
    else:
        ratio = d.evidence.get("cold_ratio")
        caught = any(f.code == "cold_start" and f.severity in ("warning", "error") for f in d.findings)
        traps.append(_timed_trap("cold_start", caught, ratio, COLD_START_RATIO, share))
        progress("trap", None, "implicit_sync")
        traps.append(_sync_trap(d.evidence, d.skipped, dev, share))
    progress("trap", None, "unsynchronized_timer")
    if dev.type == "cpu":
        traps.append(Trap("unsynchronized_timer", SKIP, note="not_applicable"))
        return traps
    if dev.type == "cuda" and rate:
        cycles = int(1e-3 * rate)

        def work() -> None:
            cuda_api()._sleep(cycles)
    else:
        a = torch.randn(2048, 2048, device=machine().tensor_device(dev))

        def work() -> None:
            a @ a

    try:
        u = doctor(work, device=dev, label="selfcheck asynchronous work", budget=plan.doctor_budget)
        ratio_u = u.evidence.get("unsynced_ratio")
        caught_u = any(f.code == "unsynchronized_timing" and f.severity == "warning" for f in u.findings)
        traps.append(Trap("unsynchronized_timer", PASS if caught_u else FAIL, ratio_u, UNSYNCED_WARN_RATIO,
                          note="" if u.error is None else "error", detail=u.error or ""))
    except Exception as exc:  # noqa: BLE001
        traps.append(Trap("unsynchronized_timer", FAIL, note="error", detail=f"{type(exc).__name__}: {exc}"))
    return traps


def _sync_trap(evidence: dict[str, Any], skipped: dict[str, str], dev: torch.device, share: float | None) -> Trap:
    """One ``.item()`` per call, counted by doctor's implicit-sync check. A count is not a time: a wrong
    count fails however busy the machine. But doctor counts only once its measurement left budget for it;
    a check it skipped for the budget was not run, which on a busy core is too busy to judge."""
    if "implicit_syncs" in skipped:
        return _timed_trap("implicit_sync", False, None, 1.0, share)
    syncs = evidence.get("cuda_syncs_per_call") if dev.type == "cuda" else sum(
        (evidence.get("syncing_ops_per_call") or {}).values())
    count = float(syncs) if syncs is not None else 0.0
    return Trap("implicit_sync", PASS if count == 1 else FAIL, count, 1.0, cpu_share=share)


def _timed_trap(code: str, caught: bool, value: float | None, threshold: float, share: float | None) -> Trap:
    """A trap that takes time to find (a timing, or a check that needs doctor's budget): detected, missed,
    or missed while the thread got under :data:`~measurefirst.results.findings.MIN_CPU_SHARE` of a core (too
    busy to judge: ``noisy``, note ``busy``)."""
    if caught:
        return Trap(code, PASS, value, threshold, cpu_share=share)
    if share is not None and share < MIN_CPU_SHARE:
        return Trap(code, NOISY, value, threshold, note="busy", cpu_share=share)
    return Trap(code, FAIL, value, threshold, cpu_share=share)


# ---- the machine ------------------------------------------------------------------------------------
def _clock_steps() -> tuple[float, float]:
    """(smallest nonzero step, median step) between consecutive reads of the host clock (``perf_counter_ns``)."""
    clock = host_clock()
    reads = [clock() for _ in range(20_000)]
    steps = np.diff(np.asarray(reads, dtype=np.int64))
    nonzero = steps[steps > 0]
    return (float(nonzero.min()) if nonzero.size else math.nan, float(np.median(steps)))


def _timer_overhead_ns(timer: Timer) -> float:
    probe = timer.probe()  # as the engine measures it: the cheapest call that does device work
    return float(statistics.median(timer.time(probe).elapsed_ns for _ in range(OVERHEAD_REPS)))


def _cpu_mhz() -> float | None:
    """Mean current CPU frequency over the cores (cpufreq where present, else /proc/cpuinfo)."""
    freqs = []
    for p in glob.glob("/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_cur_freq"):
        try:
            with open(p) as f:
                freqs.append(int(f.read().strip()) / 1000)
        except (OSError, ValueError):
            pass
    if not freqs:
        try:
            with open("/proc/cpuinfo") as f:
                freqs = [float(line.split(":", 1)[1]) for line in f if line.lower().startswith("cpu mhz")]
        except (OSError, ValueError):
            freqs = []
    return sum(freqs) / len(freqs) if freqs else None


def _throttle_count() -> int | None:
    paths = glob.glob("/sys/devices/system/cpu/cpu[0-9]*/thermal_throttle/core_throttle_count")
    if not paths:
        return None
    total = 0
    for p in paths:
        try:
            with open(p) as f:
                total += int(f.read().strip())
        except (OSError, ValueError):
            return None
    return total


NVIDIA_SMI_FIELDS = ("clocks.sm", "clocks.max.sm", "clocks_throttle_reasons.active", "temperature.gpu", "power.draw")


def nvidia_smi(index: int | None) -> dict[str, str] | None:
    """Clocks, throttle reasons, temperature and power of GPU ``index`` from nvidia-smi, or None.
    Newer drivers call the throttle reasons ``clocks_event_reasons``; older ones lack both: each is tried."""
    for reasons in ("clocks_throttle_reasons.active", "clocks_event_reasons.active", None):
        fields = [f for f in NVIDIA_SMI_FIELDS if f != "clocks_throttle_reasons.active"]
        if reasons is not None:
            fields.insert(2, reasons)
        cmd = ["nvidia-smi", f"--query-gpu={','.join(fields)}", "--format=csv,noheader,nounits"]
        if index is not None:
            cmd.insert(1, f"--id={index}")
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.SubprocessError):
            return None  # no nvidia-smi here
        if out.returncode == 0 and out.stdout.strip():
            values = [v.strip() for v in out.stdout.strip().splitlines()[0].split(",")]
            got = dict(zip(fields, values))
            if reasons is not None:
                got["clocks_throttle_reasons.active"] = got.pop(reasons)
            return got
    return None


class _Load:
    """Other processes' CPU use and hypervisor steal between start() and stop(), over the wall time on
    ``clock`` (ns)."""

    def __init__(self, clock: Callable[[], int]) -> None:
        from .doctor import own_cpu_seconds, proc_stat_seconds

        self._stat, self._own, self._clock = proc_stat_seconds, own_cpu_seconds, clock
        self.t0 = clock()
        self.s0 = proc_stat_seconds()
        self.own0 = own_cpu_seconds()

    def stop(self) -> tuple[float | None, float | None]:
        s1, own1, t1 = self._stat(), self._own(), self._clock()
        if self.s0 is None or s1 is None or t1 <= self.t0:
            return None, None
        wall = (t1 - self.t0) / 1e9
        other = max(0.0, (s1[0] - self.s0[0]) - (own1 - self.own0)) / wall
        return other, max(0.0, s1[1] - self.s0[1]) / wall


def _peaks(dev: torch.device, quick: bool) -> dict[str, Any]:
    from .roofline import measure_peaks

    dtype = "bfloat16" if dev.type == "cuda" else "float32"
    sizes: tuple[int, ...]
    if dev.type == "cuda":
        sizes = (4096,) if quick else (2048, 4096, 8192)
    else:
        sizes = (256, 512) if quick else (256, 512, 1024)
    p = measure_peaks(dev, dtype, budget=0.3 if quick else 1.0, sizes=sizes)
    return {"dtype": p.dtype, "flops_per_s": p.flops_per_s, "bytes_per_s": p.bytes_per_s,
            "matmul_size": p.matmul_size, "copy_bytes": p.copy_bytes, "threads": p.threads}


# ---- the front end ------------------------------------------------------------------------------------
def selfcheck(device: DeviceLike = "auto", quick: bool = False, *, timer: Timer | None = None,
              simulate: Any = None, durations_ns: Sequence[int] | None = None, references: bool = True,
              traps: bool = True, peaks: bool = True, progress: Progress | None = None,
              fault: float | None = None) -> SelfCheck:
    """Check measurefirst's own accuracy on this machine (see the module docstring for what and how).

    Args:
        device: ``"auto"``, ``"cpu"``, ``"cuda"``, ``"cuda:1"`` or ``"mps"``. On CUDA the sleep kernels are
            checked; on the CPU and MPS the host busy-waits (MPS has no kernel of known duration).
        quick: shorter budgets (well under 30 s on two CPU cores).
        timer: a :class:`~measurefirst.measure.timers.Timer` for the benchmark() rows instead of the default
            (e.g. :class:`FaultyTimer`, to see a fault caught).
        simulate: a :class:`~measurefirst.measure.simulate.SimWorld`: the busy-waits and the timer run on its
            seeded clock (exact tests); references, traps and the machine's figures are skipped.
        durations_ns: the CPU busy-waits to check (default 2 µs, 20 µs, 200 µs, 2 ms).
        references, traps, peaks: include the reference tools, the traps, the measured machine peaks.
        progress: called with ``(stage, duration_s, method)`` before each step (for a progress line).
        fault: a clock wrong by this factor (:class:`FaultyTimer` around ``timer`` or the default one), to
            see the fault caught.

    Returns:
        a :class:`SelfCheck`; ``status`` is ``pass``, ``fail`` or ``noisy`` (too noisy to judge).
    """
    _check_arguments(timer, simulate, quick, references)
    durations_ns = _checked_durations(durations_ns)
    plan = _QUICK if quick else _FULL
    progress = progress or _nothing
    world = _World(simulate)
    dev = torch.device("cpu") if world.simulated else resolve_device(device)
    real = not world.simulated and not machine().simulated  # the simulated GPU (devices.use_machine): no real tools
    clock = timer.now_ns if timer is not None else world.clock()  # the clock of the timer given, or the world's
    t_start = clock()
    load = _Load(clock)
    gauge = world.gauge()
    before = _Before.read(dev, world.simulated, real)
    timer_dev = dev if dev.type == "cuda" else torch.device("cpu")  # MPS: the host busy-waits run on the CPU
    if fault is not None:
        timer = FaultyTimer(timer if timer is not None else world.timer(timer_dev), fault)

    progress("machine", None, "timer")
    host_timer: Timer = timer if timer is not None else world.timer(timer_dev)
    overhead_ns = _timer_overhead_ns(host_timer)
    resolution_measured, clock_read = _clock_steps() if real else (None, None)

    rate: float | None = None
    rows: list[Row] = []
    ms: list[Measurement] = []
    trap_rows: list[Trap] = []
    notes = list(before.notes)
    peak_figures = None

    def result(complete: bool) -> SelfCheck:
        other, steal = load.stop() if not world.simulated else (None, None)
        least = min(gauge.shares) if gauge.shares else None
        mach = before.machine_after(
            dev, world.simulated, timer=host_timer.kind, timer_resolution_ns=float(host_timer.resolution_ns),
            timer_resolution_measured_ns=resolution_measured, clock_read_ns=clock_read, timer_overhead_ns=overhead_ns,
            other_load_cores=other, steal_cores=steal, sleep_cycles_per_s=rate, peaks=peak_figures,
            notes=tuple(notes), cpu_share=least, runnable=gauge.most_runnable, state=machine_state(least))
        return SelfCheck(device=str(dev), quick=quick, rows=tuple(rows), traps=tuple(trap_rows), machine=mach,
                         measurements=tuple(ms), env=environment(dev), seconds=(clock() - t_start) / 1e9,
                         simulated=world.simulated, complete=complete)

    try:
        if dev.type == "cuda":
            rate = _cuda_rows(dev, plan, timer, references, progress, rows, ms)
        else:
            _cpu_rows(world, durations_ns or CPU_DURATIONS_NS, plan, timer, references, progress, dev.type, gauge,
                      rows, ms)
            if dev.type == "mps":
                rows.append(_skip(CUDA_DURATIONS_S[1], "events", "not_applicable"))

        if traps and real:
            trap_rows = _traps(dev, plan, rate, progress, gauge)
        elif traps:
            trap_rows = [Trap(code, SKIP, note="simulated")
                         for code in ("cold_start", "implicit_sync", "unsynchronized_timer")]

        if peaks and real:
            progress("machine", None, "peaks")
            try:
                peak_figures = _peaks(dev, quick)
            except Exception as exc:  # noqa: BLE001 - the peaks are context, not a check
                notes.append(f"peaks_failed: {type(exc).__name__}: {exc}")
    except KeyboardInterrupt as exc:  # Ctrl-C: the rows checked so far, marked incomplete
        if not rows:
            raise
        raise Interrupted(result(complete=False)) from exc
    return result(complete=True)


def _check_arguments(timer: object, simulate: object, quick: object, references: object) -> None:
    """Refuse a timer that is not a Timer, a world that is not a SimWorld, a flag that is not a bool."""
    from ..measure.simulate import SimWorld

    check_kind("timer", timer, Timer, "a measurefirst Timer (see measurefirst.measure.timers)", optional=True)
    check_kind("simulate", simulate, SimWorld, "a measurefirst.measure.simulate.SimWorld (tests), or None for the real clock",
               optional=True)
    for name, flag in (("quick", quick), ("references", references)):
        check_flag(name, flag)


def _checked_durations(durations_ns: Sequence[int] | None) -> tuple[int, ...] | None:
    """The CPU busy-waits asked for, refused unless positive integers of at most :data:`MAX_CPU_DURATION_NS`."""
    if durations_ns is None:
        return None
    durations_ns = tuple(durations_ns)
    if not durations_ns or any(isinstance(d, bool) or not isinstance(d, int) or d <= 0 for d in durations_ns):
        raise ValueError(f"durations_ns must be positive integers such as (2000, 200000); got {durations_ns!r}")
    longest = max(durations_ns)
    if longest > MAX_CPU_DURATION_NS:
        got = str(longest) if longest < 10**30 else "more than 10**30"
        raise ValueError(f"durations_ns must be at most {MAX_CPU_DURATION_NS} (100 ms: each is spun for many "
                         f"samples); got {got}: give shorter busy-waits such as (2000, 200000)")
    return durations_ns


@dataclass(frozen=True)
class _Before:
    """The machine's state read before the check (None where not visible, or on a simulated clock)."""

    mhz: float | None
    throttle: int | None
    gpu: dict[str, str] | None
    notes: tuple[str, ...]

    @classmethod
    def read(cls, dev: torch.device, simulated: bool, real: bool) -> "_Before":
        gpu = nvidia_smi(dev.index) if dev.type == "cuda" and real else None
        missing = dev.type == "cuda" and gpu is None and real
        return cls(None if simulated else _cpu_mhz(), None if simulated else _throttle_count(), gpu,
                   ("nvidia_smi_missing",) if missing else ())

    def machine_after(self, dev: torch.device, simulated: bool, **measured: Any) -> Machine:
        """The :class:`Machine` of the check: this state before, the same read again after, and ``measured``."""
        from .doctor import cpu_governor

        throttle_after = None if simulated else _throttle_count()
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        return Machine(
            cpu_governor=None if simulated else cpu_governor(), cpu_mhz_before=self.mhz,
            cpu_mhz_after=None if simulated else _cpu_mhz(),
            throttle_events=None if self.throttle is None or throttle_after is None else throttle_after - self.throttle,
            cores=cores, gpu_before=self.gpu,
            gpu_after=nvidia_smi(dev.index) if dev.type == "cuda" and self.gpu is not None else None, **measured)


__all__ = ["SelfCheck", "Row", "Trap", "Machine", "FaultyTimer", "Truth", "selfcheck", "judge", "truth_from_stamps",
           "sampled_truth_ns", "cpu_share", "off_cpu_allowance",
           "sleep_rate", "cpu_tolerance", "cuda_tolerance", "duration_code", "calibrate_sleep",
           "STATUSES", "PASS", "FAIL", "NOISY", "INFO", "SKIP"]
