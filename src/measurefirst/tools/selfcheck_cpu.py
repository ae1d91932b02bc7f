"""The CPU check: a busy-wait of known duration that records its own start and end on the clock, the world
it runs in (the real clock or a seeded simulated one), and its rows: benchmark() and the reference tools
measuring it, each judged against its own stamps."""

from __future__ import annotations

import array
import itertools
import statistics
from typing import Any, Callable, Sequence

import numpy as np
import torch

from ..measure.devices import Machine as RealMachine
from ..measure.engine import BenchmarkError, benchmark
from ..measure.timers import Timer, host_clock, make_timer, python_timeit, thread_cpu_clock
from ..results.kinds import Measurement
from ..results.selfcheck import FAIL, Row, duration_code
from .selfcheck_clocks import _Gauge, _runnable_others, _Watched
from .selfcheck_rules import (ONE_CALL_OVERHEADS, Progress, Truth, cpu_tolerance, off_cpu_allowance, overrun_ns,
                              sampled_truth_ns, truth_from_stamps, _noise, _overhead_share, _Plan, _row, _skip)


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
