"""The sample masks: which samples a measurement's statistics use, all but those whose preemption by the
operating system cost time, while those are a minority."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from .._lazy import deferred

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
else:  # imported on first use: a history read from the store's columns never needs it
    np = deferred("numpy", globals(), "np")

#: Samples are set aside as preempted only while at most this fraction of them were preempted;
#: beyond it the machine is too busy for that to leave a fair sample, so all are kept (and a
#: warning says so).
MAX_PREEMPTED_FRACTION_TO_DISCARD = 0.5


def costly_preemptions(preempted: tuple[int, ...] | None, per_call: Sequence[float] | np.ndarray) -> np.ndarray:
    """The samples whose preemption cost time. An involuntary context switch during a sample that is no
    slower than the slowest sample without one was a scheduler tick (a kernel thread's turn): it cost
    nothing the samples can see, and the sample is kept. A long call meets a tick in many samples (a
    20 ms call on a quiet machine, one in three) and must not lose them. With no clean sample to compare
    with, every switch counts."""
    n = len(per_call)
    if preempted is None or n == 0:
        return np.zeros(n, dtype=bool)
    hit = np.asarray(preempted[:n]) > 0
    if not hit.any() or hit.all():
        return hit
    values = np.asarray(per_call, dtype=float)
    costly: np.ndarray = hit & (values > values[~hit].max())
    return costly


def used_mask(preempted: tuple[int, ...] | None, per_call: Sequence[float] | np.ndarray, discard: bool) -> np.ndarray:
    """Which samples the statistics use: all but those whose preemption cost time
    (:func:`costly_preemptions`), while those are a minority."""
    return keep_mask(costly_preemptions(preempted, per_call), discard)


def keep_mask(costly: np.ndarray, discard: bool) -> np.ndarray:
    """:func:`used_mask` from the samples whose preemption cost time."""
    n = len(costly)
    if not discard or n == 0 or costly.sum() > MAX_PREEMPTED_FRACTION_TO_DISCARD * n:
        return np.ones(n, dtype=bool)
    kept: np.ndarray = ~costly
    return kept


#: A starved run's interval reaches at least this many times below its median (:func:`starved_low`).
STARVED_MIN_FACTOR = 2.0
#: A run whose samples were mostly preempted is starved when one of its threads waited for a CPU, runnable,
#: at least this share of the sampling's wall time (a sleep or I/O by design waits for none).
STARVED_WAIT_SHARE = 0.25
#: The largest share of a run's waits counted: a thread that waited the whole time says the work took
#: next to nothing, and the interval stops at 1/100 of the median.
MAX_WAIT_SHARE = 0.99


def starved_low(cpu_per_call_ns: float | None, median_ns: float, threads: int, costly_fraction: float,
                wait_share: float | None = None) -> float | None:
    """How low a call of a run that waited for a core may go with the cores free (ns), or ``None`` when
    the run did not wait (pure). With both cores busy, a thread of torch's pool waits a scheduler quantum
    for a core in every call, every sample alike, so the samples agree on a time that is the scheduler's,
    not the work's (issue 35: a 186 µs product read 16 ms with a tight interval; the next run measured
    186 µs). Measured here in that state: every sample preempted, and each of the two threads waiting
    about half the time for a CPU; the process's CPU time was the whole wall time, because the pool's
    threads spin at their barrier, so neither figure shows the 186 µs.

    A run is starved when most of its samples were preempted at a cost (more than
    :data:`MAX_PREEMPTED_FRACTION_TO_DISCARD`, so none was set aside) and, where each thread's run delay
    was read (``wait_share``: the most one thread waited for a CPU while runnable, over the sampling's wall
    time; Linux), a thread waited at least :data:`STARVED_WAIT_SHARE` of the time (a call that sleeps or
    waits on I/O by design is off the CPU too, but waits for no CPU); then without the wait a call takes at
    most the median times ``1 - wait_share``. Where the waits were not read, it needs a pool (``threads`` >
    1), and the CPU time per call spread over the threads is the figure. Either way the figure is at least
    :data:`STARVED_MIN_FACTOR` below the median: how far below, nothing in the run can tell (see above),
    so the interval is never left tight."""
    if not (median_ns > 0) or costly_fraction <= MAX_PREEMPTED_FRACTION_TO_DISCARD:
        return None
    if wait_share is not None:
        if wait_share < STARVED_WAIT_SHARE:
            return None
        low = median_ns * (1.0 - min(wait_share, MAX_WAIT_SHARE))
    elif cpu_per_call_ns is not None and threads >= 2:
        low = cpu_per_call_ns / threads
    else:
        return None
    return min(low, median_ns / STARVED_MIN_FACTOR)


def oversubscribed(pool_wait: float | None, threads: int, costly_fraction: float) -> bool:
    """Whether a run that was not starved (its costly preemptions a minority, set aside) ran where a fresh
    run can be (pure): a pool of torch threads (``threads`` > 1), a thread of which other than the caller
    waited for a CPU at least :data:`STARVED_WAIT_SHARE` of the time (``pool_wait``; a call that keeps to
    the caller's thread, such as a small op below torch's grain, has no pool at work to starve). Measured here with both cores busy and torch's two threads
    (``benchmarks/starved.py``): runs that read the 256² product at 183 µs, each thread waiting half the
    time, and the next fresh run starved at 16 ms a call, 87x away; the run cannot tell which the next
    will be, so its interval is not left tight either. A single thread's preemptions are set aside and its
    samples hold (no pool to starve)."""
    return (pool_wait is not None and pool_wait >= STARVED_WAIT_SHARE and threads >= 2
            and costly_fraction <= MAX_PREEMPTED_FRACTION_TO_DISCARD)
