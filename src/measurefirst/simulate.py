"""A seeded simulated clock, device and function, for exact tests of the engine and the CLI.

Time passes only when something costs time: a simulated call, a timer reading, a sync. So the
engine's decisions (warm-up length, loop count, when to stop) are reproducible to the sample.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, fields, replace
from typing import Callable

from .timers import Reading


@dataclass(frozen=True)
class SimSpec:
    """Costs of the simulated world, in nanoseconds.

    call_ns: steady cost of one call. noise: relative standard deviation of each call's cost.
    timer_ns: cost of reading the clock twice, inside the timed window. sync_ns: cost of a device
    synchronize, inside the window. cold_ns: extra cost of the very first call. warm_calls /
    warm_extra_ns: the calls after the first still pay an extra cost that falls linearly to zero
    over ``warm_calls`` calls. preempt_prob / preempt_ns: each call is preempted by the operating
    system with this probability, which adds ``preempt_ns`` and counts a context switch.
    fail_at / interrupt_at: the call with this 1-based index raises RuntimeError / KeyboardInterrupt
    (0: never), to exercise error handling end to end.
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
    resolution_ns: float = 1.0
    seed: int = 0
    fail_at: int = 0
    interrupt_at: int = 0


class SimWorld:
    """The simulated clock and its function and timer, sharing one notion of ``now``."""

    def __init__(self, spec: SimSpec | None = None, **overrides: float) -> None:
        self.spec = replace(spec or SimSpec(), **overrides)
        self.now = 0
        self.calls = 0
        self.switches = 0
        self._rng = random.Random(self.spec.seed)
        #: optional machine drift: a factor on every call's cost, as a function of ``now`` (ns)
        self.drift: Callable[[int], float] | None = None

    def advance(self, ns: float) -> None:
        self.now += int(round(ns))

    def call(self, call_ns: float | None = None) -> None:
        s = self.spec
        if s.fail_at and self.calls + 1 == s.fail_at:
            raise RuntimeError(f"simulated failure at call {s.fail_at}")
        if s.interrupt_at and self.calls + 1 == s.interrupt_at:
            raise KeyboardInterrupt
        cost = s.call_ns if call_ns is None else call_ns
        if self.drift is not None:
            cost *= self.drift(self.now)
        if s.noise:
            cost *= max(0.05, 1.0 + self._rng.gauss(0.0, s.noise))
        if self.calls == 0:
            cost += s.cold_ns
        elif s.warm_calls and self.calls <= s.warm_calls:
            cost += s.warm_extra_ns * (s.warm_calls - self.calls + 1) / s.warm_calls
        if s.preempt_prob and self._rng.random() < s.preempt_prob:
            cost += s.preempt_ns
            self.switches += 1
        self.calls += 1
        self.advance(cost)

    def function(self, call_ns: float | None = None, name: str = "simulated") -> Callable[[], None]:
        """A simulated user function: each call advances the clock by its cost (``call_ns``, default
        the spec's). Several functions of one world share its clock, noise and drift."""

        def simulated() -> None:
            self.call(call_ns)

        simulated.__name__ = simulated.__qualname__ = name
        return simulated

    def timer(self) -> "SimTimer":
        return SimTimer(self)


class SimTimer:
    """A :class:`~measurefirst.timers.Timer` on the simulated clock."""

    kind = "simulated"

    def __init__(self, world: SimWorld) -> None:
        self.world = world
        self.resolution_ns = world.spec.resolution_ns

    def time(self, run: Callable[[], object]) -> Reading:
        w = self.world
        switches = w.switches
        t0 = w.now
        w.advance(w.spec.timer_ns)
        run()
        w.advance(w.spec.sync_ns)
        return Reading(float(w.now - t0), None, w.switches - switches)

    def now_ns(self) -> int:
        return self.world.now

    def synchronize(self) -> None:
        self.world.advance(self.world.spec.sync_ns)


_UNITS = {"ns": 1.0, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}


def parse_spec(text: str) -> SimSpec:
    """Parse ``"call=10us,noise=0.01,seed=3"`` (times accept ns, us, ms, s; bare numbers are ns)."""
    known = {f.name: f for f in fields(SimSpec)}
    aliases = {"call": "call_ns", "timer": "timer_ns", "sync": "sync_ns", "cold": "cold_ns",
               "warm_extra": "warm_extra_ns", "preempt": "preempt_ns", "resolution": "resolution_ns"}
    values: dict[str, float | int] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        if "=" not in part:
            raise ValueError(f"simulation spec item {part!r} needs the form key=value")
        key, raw = (x.strip() for x in part.split("=", 1))
        key = aliases.get(key, key)
        if key not in known:
            raise ValueError(f"unknown simulation key {key!r}; known: {', '.join(sorted(known))}")
        m = re.fullmatch(r"([0-9.eE+-]+)\s*(ns|us|µs|ms|s)?", raw)
        if not m:
            raise ValueError(f"simulation value {raw!r} for {key} is not a number")
        number = float(m.group(1)) * (_UNITS[m.group(2)] if m.group(2) else 1.0)
        values[key] = int(number) if known[key].type in ("int", int) else number
    return SimSpec(**values)  # type: ignore[arg-type]
