"""Timers: the only code in measurefirst that reads a clock or records an event.

A timer times one *sample*: a zero-argument ``run`` callable (which calls the user's function
``number`` times) between two clock readings, with the device synchronized before the clock
stops. It can also *mark* points between the phases of a step (:meth:`Timer.marks`): events on a
GPU's timeline, all read after one synchronize. The engine, compare, step timing, doctor and the
profiler's per-step times all go through this protocol, and the clock itself comes from the
machine seam (:func:`measurefirst.measure.devices.machine`), so tests run every path on a simulated clock
and a simulated GPU (:mod:`measurefirst.measure.simulate`).

- :class:`WallTimer`: synchronize, read the host clock, run, synchronize, read again. It also
  counts the involuntary context switches of the process during the sample, so samples in which
  the operating system took the CPU away can be set aside.
- :class:`CudaEventTimer`: CUDA events around ``run`` on the device's current stream (device
  time), the host time ``run`` took to return (launch time), and the host time until a full-device
  synchronize returned (which exposes work left running on another stream).
- :class:`MpsEventTimer`: the same with ``torch.mps.event.Event`` where torch has it.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Callable, Protocol, runtime_checkable

import torch

from ..results import defaults
from .devices import Machine, machine as current_machine, synchronizer

#: Documented resolution of CUDA event timing (about half a microsecond).
CUDA_EVENT_RESOLUTION_NS = 500.0
#: MPS event times are the completion-handler timestamps of Metal command buffers: tens of µs.
MPS_EVENT_RESOLUTION_NS = 20_000.0


@dataclass(frozen=True)
class Reading:
    """One timed sample.

    ``elapsed_ns``: what the timer measures (device time for event timers, wall time otherwise).
    ``host_ns``: for event timers, the host time ``run`` took to return (launch time), else ``None``.
    ``preempted``: involuntary context switches of the process during the sample, or 1 for a sample the
    process spent mostly off the CPU (:func:`preemptions`), ``-1`` if unknown.
    ``synced_ns``: for event timers, host time from before the start event until a synchronize of
    the whole device returned (else ``None``): far above ``elapsed_ns`` when work was left on a
    stream the events do not see.
    ``cpu_ns``: the process's CPU time over the sample, every thread (the CPU's wall timer; else ``None``).
    """

    elapsed_ns: float
    host_ns: float | None = None
    preempted: int = -1
    synced_ns: float | None = None
    cpu_ns: float | None = None


class Marks(Protocol):
    """Timestamps between the phases of one step, read once at the end."""

    def mark(self, name: str) -> None:
        """Mark the end of the phase ``name`` (and the start of the next)."""
        ...

    def read(self) -> list[tuple[str, float]]:
        """Synchronize once; every mark as ``(name, ns since the step started)``, first ``("start", 0)``."""
        ...


@runtime_checkable
class Timer(Protocol):
    """What the engine needs from a clock."""

    kind: str
    resolution_ns: float

    def time(self, run: Callable[[], object], prelude: Callable[[], object] | None = None) -> Reading:
        """Time one call of ``run``; the device is synchronized before the clock stops. ``prelude``
        (a cache flush) is issued just before the clock starts, untimed, without a synchronize
        between it and ``run`` on timers that read the device's own timeline."""
        ...

    def now_ns(self) -> int:
        """A monotonic host clock for budgets, deadlines and unsynchronized readings."""
        ...

    def synchronize(self) -> None:
        """Wait for all queued device work."""
        ...

    def probe(self) -> Callable[[], object]:
        """The cheapest call that does device work: the overhead probe times it."""
        ...

    def marks(self) -> Marks:
        """Synchronize, then start marking a step (the first mark is ``"start"``)."""
        ...


def _nothing() -> None:
    return None


class ClockMarks:
    """Marks on a host clock; ``sync_each`` synchronizes before every mark (the only way a host
    clock sees the end of device work)."""

    def __init__(self, clock: Callable[[], int], sync: Callable[[], None], sync_each: bool) -> None:
        self._clock, self._sync, self._each = clock, sync, sync_each
        sync()
        self._marks: list[tuple[str, int]] = [("start", clock())]

    def mark(self, name: str) -> None:
        if self._each:
            self._sync()
        self._marks.append((name, self._clock()))

    def read(self) -> list[tuple[str, float]]:
        self._sync()
        t0 = self._marks[0][1]
        return [(name, float(t - t0)) for name, t in self._marks]


def cuda_span(run: Callable[[], object]) -> Callable[[], float]:
    """One call of ``run`` between two CUDA events recorded on the current stream, without a synchronize
    (the call's device work is not waited for: a step's collectives overlap its compute); returns what
    reads the span, in seconds, once the events are complete (after the step's own synchronize)."""
    import torch

    start = torch.cuda.Event(enable_timing=True)  # type: ignore[no-untyped-call]
    end = torch.cuda.Event(enable_timing=True)  # type: ignore[no-untyped-call]
    start.record()
    run()
    end.record()
    return lambda: float(start.elapsed_time(end)) / 1e3


def host_time(run: Callable[[], object], sync: Callable[[], None] = _nothing) -> float:
    """One call of ``run`` on the machine's host clock, in ns: synchronize, start the clock, call,
    synchronize, stop (no ``sync``: a call that leaves no device work, such as a blocking gloo
    collective). For the calls made before a timer exists (``choose_device`` observes each function's
    cold call to decide the device that the timer is then made for) and beside one (a step's waits in
    collectives)."""
    clock = host_clock()
    sync()
    t0 = clock()
    run()
    sync()
    return float(clock() - t0)


def host_clock(on: Machine | None = None) -> Callable[[], int]:
    """The machine's host clock (ns), for what is timed beside a timer rather than through one: a truth
    that a timer is checked against (selfcheck's busy-waits stamp their own start and end), a workload
    that spins for a while (the noise workloads), the whole run's wall time. On the real machine it is
    ``time.perf_counter_ns`` itself (no call in between, so a busy-wait's granularity is the clock's); under
    a simulation, the simulated clock. ``on``: the machine (default the current one)."""
    m = on or current_machine()
    return time.perf_counter_ns if type(m).clock_ns is Machine.clock_ns else m.clock_ns


def thread_cpu_clock() -> Callable[[], int]:
    """The CPU time the calling thread has been given so far (ns: ``time.thread_time_ns``). Read beside the
    host clock around a stretch of busy work, it says how much of a core the thread got: a busy-wait that
    got 30% of a core was preempted for the rest (selfcheck's check that the machine was quiet enough)."""
    return time.thread_time_ns


def python_timeit(fn: Callable[[], object], repeat: int) -> tuple[int, list[float]]:
    """Python's ``timeit`` on ``fn`` as ``python -m timeit`` runs it: the loop count from ``autorange``, then
    ``repeat`` runs of that many calls (seconds each). A reference that reads its own clock, so it runs
    here, beside the timers (selfcheck shows it next to benchmark())."""
    import timeit

    t = timeit.Timer(fn)
    number, _ = t.autorange()
    return number, t.repeat(repeat=repeat, number=number)


class Deadline:
    """A point on the monotonic clock for a timeout or a time budget: not a measurement, but a clock all
    the same, so it is read here. ``Deadline(seconds)`` passes ``seconds`` from now; ``Deadline(None)``
    never passes."""

    __slots__ = ("_end",)

    def __init__(self, seconds: float | None) -> None:
        self._end = math.inf if seconds is None else time.monotonic() + seconds

    def left(self) -> float:
        """Seconds until it passes (negative once it has; ``inf`` for none)."""
        return self._end - time.monotonic()

    def passed(self) -> bool:
        return time.monotonic() >= self._end

    def sooner(self, seconds: float) -> "Deadline":
        """The earlier of this deadline and one ``seconds`` from now."""
        other = Deadline(seconds)
        return other if other._end < self._end else self


#: A sample of the CPU in which the process got less than this share of one core was starved: counted as
#: preempted though no involuntary switch of the process shows it (see :func:`preemptions`).
STARVED_CPU_SHARE = 0.5
#: ... when its threads waited for a CPU while runnable for at least this share of the sample (summed over
#: the threads): a call that sleeps or blocks by design (``time.sleep``, I/O, a lock) is off the CPU too,
#: but waits for nothing the machine's load decides.
STARVED_WAITED_SHARE = 0.25
#: Samples shorter than this are not judged starved (reading the CPU clock is then a visible part of them).
STARVED_MIN_NS = 100_000.0


def preemptions(switches: int, wall_ns: float, cpu_ns: float | None, waited_ns: float | None = None) -> int:
    """What one sample counts as preemptions: the process's involuntary context switches during it, or,
    with none, one when the process got less than :data:`STARVED_CPU_SHARE` of a core over a sample of
    :data:`STARVED_MIN_NS` or more and its threads waited for a CPU for :data:`STARVED_WAITED_SHARE` of it.
    With both cores busy, a thread of torch's intra-op pool waits for a core while the caller sleeps on
    it: the switch is the other process's, and the call takes a scheduler quantum (issue 35 saw a 186 µs
    product read 16 ms) that the switch count never showed. A call that sleeps is off the CPU as long,
    and waits for no CPU.
    ``cpu_ns``: the process's CPU time over the sample, every thread (``None``: not read). ``waited_ns``: how
    long its threads waited for a CPU while runnable during it, summed (``None``: not read, where the OS does
    not say: the CPU share alone decides)."""
    if switches > 0 or not low_cpu(wall_ns, cpu_ns):
        return switches
    return 1 if waited_ns is None or waited_ns >= STARVED_WAITED_SHARE * wall_ns else 0


def low_cpu(wall_ns: float, cpu_ns: float | None) -> bool:
    """Whether a sample is long enough to judge (:data:`STARVED_MIN_NS`) and the process got less than
    :data:`STARVED_CPU_SHARE` of a core over it: the samples :func:`preemptions` asks the threads' waits of."""
    return cpu_ns is not None and wall_ns >= STARVED_MIN_NS and cpu_ns < STARVED_CPU_SHARE * wall_ns


class WallTimer:
    """Synchronize, then the host clock; counts preemptions where the OS reports them (and, on the CPU, a
    sample the process spent mostly off the CPU: :func:`preemptions`)."""

    kind = "wall"

    def __init__(self, device: torch.device | None = None, *, count_preemptions: bool = True,
                 machine: Machine | None = None) -> None:
        m = machine or current_machine()
        self._device = device or torch.device("cpu")
        self._sync = synchronizer(self._device, m)
        self._clock = m.clock_ns
        self._switches = m.context_switches if count_preemptions and m.context_switches() is not None else None
        # a GPU's synchronize may sleep: the process's CPU time says nothing about a device's work
        self._cpu = m.process_cpu_ns if self._switches is not None and self._device.type == "cpu" else None
        self._delay = m.run_delays_ns if self._cpu is not None else None
        self._waited = m.run_delay_ns if self._cpu is not None and m.run_delay_ns() is not None else None
        #: the last sample was long enough to be judged starved: the next one reads the threads' waits
        self._long = True
        self._probe = m.probe_kernel(self._device)
        self.resolution_ns = _clock_resolution_ns(m.simulated)

    def time(self, run: Callable[[], object], prelude: Callable[[], object] | None = None) -> Reading:
        sync, clock, switches = self._sync, self._clock, self._switches
        if prelude is not None:
            prelude()
        sync()
        cpu = self._cpu
        if switches is not None:
            # the threads' waits are read outside the timed window, only around samples long enough to judge
            waited = self._waited if self._long else None
            w0 = waited() if waited is not None else None
            s0 = switches()
            c0 = cpu() if cpu is not None else 0
            t0 = clock()
            run()
            sync()
            t1 = clock()
            c1 = cpu() if cpu is not None else 0
            s1 = switches()
            if s0 is None or s1 is None:
                return Reading(float(t1 - t0), None, -1)
            wall = float(t1 - t0)
            self._long = wall >= STARVED_MIN_NS
            used = float(c1 - c0) if cpu is not None else None
            w1 = waited(False) if waited is not None and w0 is not None and low_cpu(wall, used) else None
            gap = float(w1 - w0) if w1 is not None and w0 is not None else None
            return Reading(wall, None, preemptions(s1 - s0, wall, used, gap), None, used)
        t0 = clock()
        run()
        sync()
        t1 = clock()
        return Reading(float(t1 - t0))

    def now_ns(self) -> int:
        return self._clock()

    def run_delays_ns(self) -> dict[int, int] | None:
        """How long each of the process's threads has waited for a CPU so far (the machine's run delay;
        ``None`` where it does not say, and on a device: its synchronize may sleep)."""
        return self._delay() if self._delay is not None else None

    def synchronize(self) -> None:
        self._sync()

    def probe(self) -> Callable[[], object]:
        return self._probe

    def marks(self) -> Marks:
        return ClockMarks(self._clock, self._sync, self._device.type != "cpu")


def _clock_resolution_ns(simulated: bool) -> float:
    if simulated:
        return 1.0
    import time

    return max(time.get_clock_info("perf_counter").resolution * 1e9, 1.0)


class _EventMarks:
    def __init__(self, new_event: Callable[[], Any], record: Callable[[Any], None], sync: Callable[[], None]) -> None:
        self._new, self._record, self._sync = new_event, record, sync
        sync()
        self._marks: list[tuple[str, Any]] = []
        self.mark("start")

    def mark(self, name: str) -> None:
        e = self._new()
        self._record(e)
        self._marks.append((name, e))

    def read(self) -> list[tuple[str, float]]:
        self._sync()
        first = self._marks[0][1]
        return [(name, 0.0 if i == 0 else float(first.elapsed_time(e)) * 1e6)
                for i, (name, e) in enumerate(self._marks)]


class _EventTimer:
    """Two timing events around ``run``: device time in ``elapsed_ns``, launch time in ``host_ns``."""

    kind = "event"
    resolution_ns = CUDA_EVENT_RESOLUTION_NS

    def __init__(self, device: torch.device, new_event: Callable[[], Any], m: Machine) -> None:
        self._device = device
        self._new_event = new_event
        self._start, self._end = new_event(), new_event()
        self._sync = synchronizer(device, m)
        self._clock = m.clock_ns
        self._probe = m.probe_kernel(device)

    def _record(self, event: Any) -> None:
        event.record()

    def time(self, run: Callable[[], object], prelude: Callable[[], object] | None = None) -> Reading:
        clock = self._clock
        # drain earlier work (setup), so no backlog hides the sample's launch gaps; a prelude (a cache
        # flush) is then queued right before the start event: the device is still busy with it while
        # the host launches ``run``, so the sample holds no launch latency (as triton's do_bench)
        self._sync()
        if prelude is not None:
            prelude()
        self._record(self._start)
        h0 = clock()
        run()
        h1 = clock()
        self._record(self._end)
        self._end.synchronize()
        self._sync()  # the whole device: work left on another stream shows in synced_ns
        h2 = clock()
        return Reading(float(self._start.elapsed_time(self._end)) * 1e6, float(h1 - h0), -1, float(h2 - h0))

    def now_ns(self) -> int:
        return self._clock()

    def synchronize(self) -> None:
        self._sync()

    def probe(self) -> Callable[[], object]:
        return self._probe

    def marks(self) -> Marks:
        return _EventMarks(self._new_event, self._record, self._sync)


class CudaEventTimer(_EventTimer):
    """CUDA events on the device's current stream."""

    kind = "cuda-event"
    resolution_ns = CUDA_EVENT_RESOLUTION_NS

    def __init__(self, device: torch.device, *, machine: Machine | None = None) -> None:
        if device.type != "cuda":
            raise ValueError(f"CUDA event timer needs a CUDA device, got {device}")
        m = machine or current_machine()
        cuda = m.cuda
        self._cuda = cuda

        def new_event() -> Any:
            with cuda.device(device):
                return cuda.Event(enable_timing=True)

        super().__init__(device, new_event, m)

    def _record(self, event: Any) -> None:
        # on this device's current stream, whichever GPU is current for the caller
        event.record(self._cuda.current_stream(self._device))

    def time(self, run: Callable[[], object], prelude: Callable[[], object] | None = None) -> Reading:
        with self._cuda.device(self._device):
            return super().time(run, prelude)


def mps_events_available(on: Machine | None = None) -> bool:
    event_mod = getattr((on or current_machine()).mps, "event", None)
    return event_mod is not None and hasattr(event_mod, "Event")


class MpsEventTimer(_EventTimer):
    """MPS events (``torch.mps.event.Event``)."""

    kind = "mps-event"
    resolution_ns = MPS_EVENT_RESOLUTION_NS

    def __init__(self, *, machine: Machine | None = None) -> None:
        m = machine or current_machine()
        if not mps_events_available(m):
            raise RuntimeError("this torch has no MPS events; use timer='wall'")
        mps = m.mps
        super().__init__(torch.device("mps"), lambda: mps.event.Event(enable_timing=True), m)


TIMER_CHOICES = defaults.TIMERS


def make_timer(device: torch.device, kind: str = "auto", *, machine: Machine | None = None) -> Timer:
    """The timer for ``device``: events on GPUs (``"auto"`` or ``"event"``), wall clock on the CPU. The
    timer reads ``machine`` (default: the current one, :func:`~measurefirst.measure.devices.machine`) from
    then on: its clock, its device's synchronize and events are handed to it here."""
    if kind not in TIMER_CHOICES:
        raise ValueError(f"timer must be one of {', '.join(TIMER_CHOICES)}; got {kind!r}")
    m = machine or current_machine()
    if kind == "wall" or device.type == "cpu":
        if kind == "event":
            raise ValueError("timer='event' needs a GPU device (cuda or mps); on the CPU use timer='wall'")
        return WallTimer(device, machine=m)
    if device.type == "cuda":
        return CudaEventTimer(device, machine=m)
    if device.type == "mps":
        if mps_events_available(m):
            return MpsEventTimer(machine=m)
        if kind == "event":
            raise ValueError("this torch has no MPS events; upgrade torch or use timer='wall'")
        return WallTimer(device, machine=m)
    raise ValueError(f"no timer for device type {device.type!r}")
