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
