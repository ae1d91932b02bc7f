"""Timers: one protocol, three clocks.

A timer times one *sample*: a zero-argument ``run`` callable (which calls the user's function
``number`` times) between two clock readings, with the device synchronized before the clock
stops. The engine only knows this protocol, so tests substitute a simulated clock
(:mod:`measurefirst.simulate`).

- :class:`WallTimer`: synchronize, read ``perf_counter_ns``, run, synchronize, read again. On
  Linux and macOS it also counts the involuntary context switches of the process during the
  sample, so samples in which the operating system took the CPU away can be set aside.
- :class:`CudaEventTimer`: CUDA events around ``run`` on the current stream (device time), plus the
  host time ``run`` took to return (launch time).
- :class:`MpsEventTimer`: the same with ``torch.mps.event.Event`` where torch has it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Protocol, runtime_checkable

import torch

from .devices import synchronizer

try:  # not on Windows
    import resource as _resource

    _RUSAGE_SELF = _resource.RUSAGE_SELF
    _getrusage = _resource.getrusage
except ImportError:  # pragma: no cover - Windows
    _getrusage = None  # type: ignore[assignment]
    _RUSAGE_SELF = 0

#: Documented resolution of CUDA event timing (about half a microsecond).
CUDA_EVENT_RESOLUTION_NS = 500.0
#: MPS events resolve no better than CUDA's (a conservative figure).
MPS_EVENT_RESOLUTION_NS = 1000.0


@dataclass(frozen=True)
class Reading:
    """One timed sample.

    ``elapsed_ns``: what the timer measures (device time for event timers, wall time otherwise).
    ``host_ns``: for event timers, the host time ``run`` took to return (launch time), else ``None``.
    ``preempted``: involuntary context switches of the process during the sample, ``-1`` if unknown.
    """

    elapsed_ns: float
    host_ns: float | None = None
    preempted: int = -1


@runtime_checkable
class Timer(Protocol):
    """What the engine needs from a clock."""

    kind: str
    resolution_ns: float

    def time(self, run: Callable[[], object]) -> Reading:
        """Time one call of ``run``; the device is synchronized before the clock stops."""
        ...

    def now_ns(self) -> int:
        """A monotonic clock for budgets and deadlines (not for samples)."""
        ...

    def synchronize(self) -> None:
        """Wait for all queued device work."""
        ...


def _perf_counter_resolution_ns() -> float:
    return max(time.get_clock_info("perf_counter").resolution * 1e9, 1.0)


class WallTimer:
    """Synchronize, then ``time.perf_counter_ns``; counts preemptions where the OS reports them."""

    kind = "wall"

    def __init__(self, device: torch.device | None = None, *, count_preemptions: bool = True) -> None:
        self._sync = synchronizer(device or torch.device("cpu"))
        self.resolution_ns = _perf_counter_resolution_ns()
        self._count = count_preemptions and _getrusage is not None

    def time(self, run: Callable[[], object]) -> Reading:
        sync = self._sync
        clock = time.perf_counter_ns
        sync()
        if self._count:
            switches = _getrusage(_RUSAGE_SELF).ru_nivcsw
            t0 = clock()
            run()
            sync()
            t1 = clock()
            return Reading(float(t1 - t0), None, _getrusage(_RUSAGE_SELF).ru_nivcsw - switches)
        t0 = clock()
        run()
        sync()
        t1 = clock()
        return Reading(float(t1 - t0))

    def now_ns(self) -> int:
        return time.perf_counter_ns()

    def synchronize(self) -> None:
        self._sync()


class _EventTimer:
    """Two timing events around ``run``: device time in ``elapsed_ns``, launch time in ``host_ns``."""

    kind = "event"
    resolution_ns = CUDA_EVENT_RESOLUTION_NS

    def __init__(self, start: Any, end: Any, sync: Callable[[], None]) -> None:
        self._start, self._end, self._sync = start, end, sync

    def time(self, run: Callable[[], object]) -> Reading:
        clock = time.perf_counter_ns
        # drain setup or cache-flush work first, so no backlog hides the sample's launch gaps
        self._sync()
        self._start.record()
        h0 = clock()
        run()
        h1 = clock()
        self._end.record()
        self._end.synchronize()
        return Reading(self._start.elapsed_time(self._end) * 1e6, float(h1 - h0))

    def now_ns(self) -> int:
        return time.perf_counter_ns()

    def synchronize(self) -> None:
        self._sync()


class CudaEventTimer(_EventTimer):
    """CUDA events on the device's current stream."""

    kind = "cuda-event"
    resolution_ns = CUDA_EVENT_RESOLUTION_NS

    def __init__(self, device: torch.device) -> None:
        if device.type != "cuda":
            raise ValueError(f"CUDA event timer needs a CUDA device, got {device}")
        self._device = device
        with torch.cuda.device(device):
            super().__init__(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True),
                             synchronizer(device))

    def time(self, run: Callable[[], object]) -> Reading:
        with torch.cuda.device(self._device):  # events record on this device's current stream
            return super().time(run)


def mps_events_available() -> bool:
    event_mod = getattr(getattr(torch, "mps", None), "event", None)
    return event_mod is not None and hasattr(event_mod, "Event")


class MpsEventTimer(_EventTimer):
    """MPS events (``torch.mps.event.Event``)."""

    kind = "mps-event"
    resolution_ns = MPS_EVENT_RESOLUTION_NS

    def __init__(self) -> None:
        if not mps_events_available():
            raise RuntimeError("this torch has no MPS events; use timer='wall'")
        super().__init__(torch.mps.event.Event(enable_timing=True), torch.mps.event.Event(enable_timing=True),
                         torch.mps.synchronize)


TIMER_CHOICES = ("auto", "wall", "event")


def make_timer(device: torch.device, kind: str = "auto") -> Timer:
    """The timer for ``device``: events on GPUs (``"auto"`` or ``"event"``), wall clock on the CPU."""
    if kind not in TIMER_CHOICES:
        raise ValueError(f"timer must be one of {', '.join(TIMER_CHOICES)}; got {kind!r}")
    if kind == "wall" or device.type == "cpu":
        if kind == "event":
            raise ValueError("timer='event' needs a GPU device (cuda or mps); on the CPU use timer='wall'")
        return WallTimer(device)
    if device.type == "cuda":
        return CudaEventTimer(device)
    if device.type == "mps":
        if mps_events_available():
            return MpsEventTimer()
        if kind == "event":
            raise ValueError("this torch has no MPS events; upgrade torch or use timer='wall'")
        return WallTimer(device)
    raise ValueError(f"no timer for device type {device.type!r}")
