"""The timers a self-check wraps around the timer under test: one that adds up how long the checking
thread was off the CPU inside each reading (beside the gauge of its share of a core), and
:class:`FaultyTimer`, a clock wrong by a known factor that the check must catch."""

from __future__ import annotations

import math
from typing import Callable

from ..measure.timers import Marks, Reading, Timer
from ..results.kinds import Measurement
from .selfcheck_rules import cpu_share


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
