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

from typing import Any, Sequence

import torch

from ..measure.devices import DeviceLike, environment, machine, resolve_device
from ..measure.engine import Interrupted
from ..results.errors import check_flag, check_kind
from ..results.kinds import Measurement
from ..measure.timers import Timer
from ..results.selfcheck import (FAIL as FAIL, INFO as INFO, NOISY as NOISY, PASS as PASS, REFERENCES as REFERENCES,
                                 SELFCHECK_SCHEMA_VERSION as SELFCHECK_SCHEMA_VERSION, SKIP as SKIP,
                                 STATUSES as STATUSES, Machine as Machine, Row as Row, SelfCheck as SelfCheck,
                                 Trap as Trap, duration_code as duration_code, machine_state)
from .selfcheck_clocks import FaultyTimer as FaultyTimer
from .selfcheck_cpu import _cpu_rows, _World
from .selfcheck_cuda import calibrate_sleep as calibrate_sleep, _cuda_rows
from .selfcheck_machine import (NVIDIA_SMI_FIELDS as NVIDIA_SMI_FIELDS, nvidia_smi as nvidia_smi, _Before, _clock_steps,
                                _Load, _peaks, _timer_overhead_ns)
from .selfcheck_rules import (CLEAN_MARGIN_NS as CLEAN_MARGIN_NS, CPU_DURATIONS_NS as CPU_DURATIONS_NS,
                              CPU_TOLERANCES as CPU_TOLERANCES, CUDA_DURATIONS_S as CUDA_DURATIONS_S,
                              CUDA_EVENTS_TOLERANCE as CUDA_EVENTS_TOLERANCE, CUDA_LONG_S as CUDA_LONG_S,
                              CUDA_SHORT_S as CUDA_SHORT_S, CUDA_SHORT_TOLERANCE as CUDA_SHORT_TOLERANCE,
                              CUDA_WALL_TOLERANCE as CUDA_WALL_TOLERANCE, GAP_BOUNDARY_NS as GAP_BOUNDARY_NS,
                              GRAPH_VS_DO_BENCH_TOLERANCE as GRAPH_VS_DO_BENCH_TOLERANCE,
                              INTERRUPTED_QUANTILE as INTERRUPTED_QUANTILE, MAX_CPU_DURATION_NS as MAX_CPU_DURATION_NS,
                              ONE_CALL_OVERHEADS as ONE_CALL_OVERHEADS, OVERHEAD_REPS as OVERHEAD_REPS,
                              Progress as Progress, Truth as Truth, cpu_share as cpu_share,
                              cpu_tolerance as cpu_tolerance, cuda_tolerance as cuda_tolerance, judge as judge,
                              off_cpu_allowance as off_cpu_allowance,
                              overrun_ns as overrun_ns, sampled_truth_ns as sampled_truth_ns, sleep_rate as sleep_rate,
                              truth_from_stamps as truth_from_stamps, _FULL, _QUICK, _skip)
from .selfcheck_traps import _sync_trap as _sync_trap, _timed_trap as _timed_trap, _traps


def _nothing(stage: str, duration_s: float | None, method: str) -> None:
    """No progress report."""


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


__all__ = ["SelfCheck", "Row", "Trap", "Machine", "FaultyTimer", "Truth", "selfcheck", "judge", "truth_from_stamps",
           "sampled_truth_ns", "cpu_share", "off_cpu_allowance",
           "sleep_rate", "cpu_tolerance", "cuda_tolerance", "duration_code", "calibrate_sleep",
           "STATUSES", "PASS", "FAIL", "NOISY", "INFO", "SKIP"]
