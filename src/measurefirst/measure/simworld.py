"""The simulated world: its costs (:class:`SimSpec`), its clock and the functions that cost time on it
(:class:`SimWorld`), the simulated compiler's record, and the timer that reads its clock (:class:`SimTimer`)."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace
from typing import Any, Callable

from ..results.kinds import CompileEvent
from .timers import ClockMarks, Marks, Reading, preemptions


@dataclass(frozen=True)
class SimSpec:
    """Costs of the simulated world, in nanoseconds.

    call_ns: steady cost of one call. noise: relative standard deviation of each call's cost.
    timer_ns: cost of reading the clock twice, inside the timed window. sync_ns: cost of a device
    synchronize, inside the window. cold_ns: extra cost of the very first call. warm_calls /
    warm_extra_ns: the calls after the first still pay an extra cost that falls linearly to zero
    over ``warm_calls`` calls. preempt_prob / preempt_ns: each call is preempted by the operating
    system with this probability, which adds ``preempt_ns`` and counts a context switch.
    stall_prob / stall_ns: each timed sample is descheduled inside the timed window but outside the call
    (between the clock read and the call) with this probability, which adds ``stall_ns`` and counts a
    context switch: time a busy machine takes that the function's own clock cannot see.
    starve_prob / starve_ns: each call waits this long off the CPU with this probability *without* an
    involuntary switch of this process (a thread of torch's pool waiting for a core another process holds,
    while the caller sleeps on it): only the process's CPU time against the clock shows it.
    sleep_ns: each call sleeps this long by design (``time.sleep``, I/O): off the CPU, but not waiting for one.
    Preempted, stalled, starved and slept time is off the CPU: :meth:`SimWorld.cpu_ns` does not count it; all
    but the sleep is time a thread waited for a CPU (:attr:`SimWorld.waited_ns`, Linux's run delay).
    fail_at / interrupt_at: the call with this 1-based index raises RuntimeError / KeyboardInterrupt
    (0: never), to exercise error handling end to end.
    process / process_shift: what a fresh process changes (address layout, allocator state, thread
    placement): every call of the world costs ``level`` times more, one factor drawn per ``process``
    (seeded by ``seed`` and ``process``) from a log-normal of standard deviation ``log(1 + process_shift)``.
    Repetitions inside one world never see it; worlds of different ``process`` do (:attr:`SimWorld.level`).
    compile_ns / recompile_at / recompile_ns: a simulated ``torch.compile``: the first call compiles
    (``compile_ns`` more, one event in the world's :attr:`SimWorld.compile_log`, a cache miss); the call
    with the 1-based index ``recompile_at`` (0: never) fails a guard and compiles again (``recompile_ns``,
    reason "size of x changed from 4096 to 4097").
    """

    call_ns: float = 10_000.0
    noise: float = 0.0
    timer_ns: float = 50.0
    sync_ns: float = 0.0
    cold_ns: float = 0.0
    warm_calls: int = 0
    warm_extra_ns: float = 0.0
    preempt_prob: float = 0.0
    preempt_ns: float = 0.0
    stall_prob: float = 0.0
    stall_ns: float = 0.0
    starve_prob: float = 0.0
    starve_ns: float = 0.0
    sleep_ns: float = 0.0
    resolution_ns: float = 1.0
    seed: int = 0
    fail_at: int = 0
    interrupt_at: int = 0
    process: int = 0
    process_shift: float = 0.0
    compile_ns: float = 0.0
    recompile_at: int = 0
    recompile_ns: float = 0.0


class SimWorld:
    """The simulated clock and its function and timer, sharing one notion of ``now``."""

    def __init__(self, spec: SimSpec | None = None, **overrides: Any) -> None:
        self.spec = replace(spec or SimSpec(), **overrides)
        self.now = 0
        self.calls = 0
        self.switches = 0
        #: simulated time this process spent off the CPU (preempted or stalled)
        self.off_cpu_ns = 0
        #: time the caller (0) and a thread of its pool (1) waited for a CPU while runnable (Linux's run delay)
        self.waited_ns = {0: 0, 1: 0}
        self._rng = random.Random(self.spec.seed)
        #: this simulated process's level: the factor on every call that only a fresh process draws anew
        self.level = process_level(self.spec)
        #: optional machine drift: a factor on every call's cost, as a function of ``now`` (ns)
        self.drift: Callable[[int], float] | None = None
        #: what the simulated compiler compiled (see SimSpec's compile_ns)
        self.compile_log = SimCompileLog()

    def advance(self, ns: float) -> None:
        self.now += int(round(ns))

    def cpu_ns(self) -> int:
        """The simulated thread's CPU time so far (ns): the clock less the time spent off the CPU."""
        return self.now - self.off_cpu_ns

    def deschedule(self, ns: float, *, involuntary: bool = True, waiting: bool = True) -> None:
        """Off the CPU for ``ns``: the clock moves, the CPU time does not. Preempted (``involuntary``): one
        context switch of the caller, which waited for a CPU; else, ``waiting``: a thread of its pool waited
        for a CPU while the caller slept on it (a starved pool); neither: it slept by design."""
        self.switches += involuntary
        self.off_cpu_ns += int(round(ns))
        if waiting:
            self.waited_ns[0 if involuntary else 1] += int(round(ns))
        self.advance(ns)

    def call(self, call_ns: float | None = None) -> None:
        s = self.spec
        if s.fail_at and self.calls + 1 == s.fail_at:
            raise RuntimeError(f"simulated failure at call {s.fail_at}")
        if s.interrupt_at and self.calls + 1 == s.interrupt_at:
            raise KeyboardInterrupt
        cost = (s.call_ns if call_ns is None else call_ns) * self.level
        if self.drift is not None:
            cost *= self.drift(self.now)
        if s.noise:
            cost *= max(0.05, 1.0 + self._rng.gauss(0.0, s.noise))
        if self.calls == 0 and s.compile_ns:
            cost += s.compile_ns
            self.compile_log.events.append(CompileEvent(s.compile_ns / 1e9, "simulated", "<simulated>:1", misses=1))
        if s.recompile_at and self.calls + 1 == s.recompile_at:
            cost += s.recompile_ns
            self.compile_log.events.append(CompileEvent(s.recompile_ns / 1e9, "simulated", "<simulated>:1",
                                                        reason=RECOMPILE_REASON, misses=1))
        if self.calls == 0:
            cost += s.cold_ns
        elif s.warm_calls and self.calls <= s.warm_calls:
            cost += s.warm_extra_ns * (s.warm_calls - self.calls + 1) / s.warm_calls
        preempted = bool(s.preempt_prob and self._rng.random() < s.preempt_prob)
        starved = bool(s.starve_prob and self._rng.random() < s.starve_prob)
        self.calls += 1
        self.advance(cost)
        if preempted:
            self.deschedule(s.preempt_ns)
        if starved:
            self.deschedule(s.starve_ns, involuntary=False)
        if s.sleep_ns:
            self.deschedule(s.sleep_ns, involuntary=False, waiting=False)

    def function(self, call_ns: float | None = None, name: str = "simulated") -> Callable[[], None]:
        """A simulated user function: each call advances the clock by its cost (``call_ns``, default
        the spec's). Several functions of one world share its clock, noise and drift."""

        def simulated() -> None:
            self.call(call_ns)

        simulated.__name__ = simulated.__qualname__ = name
        return simulated

    def timer(self) -> "SimTimer":
        return SimTimer(self)


#: The guard the simulated compiler reports failing at ``recompile_at`` (torch's wording).
RECOMPILE_REASON = "tensor 'x' size mismatch at index 0. expected 4096, actual 4097"


class SimCompileLog:
    """The simulated compiler's record (:class:`~measurefirst.measure.compiling.CompileLog`): a mark is a
    position in its list of events."""

    def __init__(self) -> None:
        self.events: list[CompileEvent] = []

    def mark(self) -> object:
        return len(self.events)

    def since(self, mark: object) -> list[CompileEvent]:
        return list(self.events[mark if isinstance(mark, int) else 0:])


def process_level(spec: SimSpec) -> float:
    """The level factor of the simulated process ``spec.process`` (1 without ``process_shift``): its own
    seeded draw, so that a world's repetitions share it and another process's world does not."""
    if not spec.process_shift:
        return 1.0
    rng = random.Random(f"{spec.seed}/process/{spec.process}")
    return math.exp(rng.gauss(0.0, math.log1p(spec.process_shift)))


class SimTimer:
    """A :class:`~measurefirst.measure.timers.Timer` on the simulated clock of a synchronous (CPU-like) world."""

    kind = "simulated"

    def __init__(self, world: SimWorld) -> None:
        self.world = world
        self.resolution_ns = world.spec.resolution_ns
        #: the world's compiler, read by the engine instead of torch's (measurefirst.measure.compiling)
        self.compile_log = world.compile_log

    def time(self, run: Callable[[], object], prelude: Callable[[], object] | None = None) -> Reading:
        w = self.world
        if prelude is not None:
            prelude()
        switches, cpu, waited = w.switches, w.cpu_ns(), sum(w.waited_ns.values())
        t0 = w.now
        w.advance(w.spec.timer_ns)
        if w.spec.stall_prob and w._rng.random() < w.spec.stall_prob:
            w.deschedule(w.spec.stall_ns)
        run()
        w.advance(w.spec.sync_ns)
        wall = float(w.now - t0)
        used = float(w.cpu_ns() - cpu)
        gap = float(sum(w.waited_ns.values()) - waited)
        return Reading(wall, None, preemptions(w.switches - switches, wall, used, gap), None, used)

    def run_delays_ns(self) -> dict[int, int] | None:
        return dict(self.world.waited_ns)

    def now_ns(self) -> int:
        return self.world.now

    def synchronize(self) -> None:
        self.world.advance(self.world.spec.sync_ns)

    def probe(self) -> Callable[[], object]:
        return _nothing

    def marks(self) -> Marks:
        return ClockMarks(self.now_ns, self.synchronize, False)


def _nothing() -> None:
    return None
