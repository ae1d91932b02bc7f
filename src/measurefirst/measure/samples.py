"""The samples a sampler has taken and what its stopping rule reads from them: the samples used (the
preempted ones set aside while they are a minority), the repetitions and their spread, and the relative
half-width of the median's interval."""

from __future__ import annotations

import bisect

from ..results import stats
from ..results.kinds import MAX_PREEMPTED_FRACTION_TO_DISCARD, RunToRun, spread_from_medians, used_mask
from .options import Options

#: Fewest samples in a repetition (its median must mean something).
REPEAT_MIN_SAMPLES = 3
#: See :meth:`Sampler._half_width`.
BATCH_CHECK_EVERY_UP_TO = 100


def next_batch_check(n: int) -> int:
    return n + (1 if n < BATCH_CHECK_EVERY_UP_TO else max(1, n // 50))


class SampleRecord:
    """The samples of a :class:`~measurefirst.measure.sampler.Sampler` (the attributes its constructor sets)
    and what they say: recording one, the repetitions, the half-widths that the stopping rule checks."""

    opts: Options
    samples: list[float]
    numbers: list[int]
    hosts: list[float]
    synced: list[float]
    preempted: list[int]
    cpus: list[float]
    sorted_all: list[float]
    sorted_clean: list[float]
    batch_check_at: int
    has_host: bool
    has_preempt: bool
    repeat_counts: list[int]

    def _repeat_has_enough(self, first: int) -> bool:
        """Whether the repetition that began at sample ``first`` has :data:`REPEAT_MIN_SAMPLES` samples that
        were not preempted (its median must come from samples the statistics use), or three times as many
        in all (on a machine that preempts nearly every sample, all are kept)."""
        total = len(self.samples) - first
        clean = sum(1 for p in self.preempted[first:] if p <= 0) if self.opts.discard_preempted else total
        return clean >= REPEAT_MIN_SAMPLES or total >= 3 * REPEAT_MIN_SAMPLES

    def _close_repeat(self, first: int) -> None:
        """End the repetition that began at sample ``first`` (nothing when it is already closed)."""
        if len(self.samples) > first and sum(self.repeat_counts) == first:
            self.repeat_counts.append(len(self.samples) - first)

    def run_to_run(self) -> RunToRun | None:
        """The spread of the finished repetitions' medians (see :func:`repeat_spread`)."""
        per_call = self._used_per_call()
        return repeat_spread(per_call, self.repeat_counts, self._used_mask(per_call))

    def _used_per_call(self) -> list[float]:
        return [s / k for s, k in zip(self.samples, self.numbers)]

    def _used_mask(self, per_call: list[float] | None = None) -> list[bool]:
        per_call = self._used_per_call() if per_call is None else per_call
        return [bool(x) for x in used_mask(tuple(self.preempted), per_call, self.opts.discard_preempted)]

    def cpu_per_call(self) -> float | None:
        """The process's CPU time per call (ns, every thread) over the samples the statistics use, where
        every sample's was read (``None`` otherwise)."""
        if not self.samples or len(self.cpus) != len(self.samples):
            return None
        used = self._used_mask()
        calls = sum(k for k, u in zip(self.numbers, used) if u)
        return sum(c for c, u in zip(self.cpus, used) if u) / calls if calls else None

    def _used_in_order(self) -> list[float]:
        per_call = self._used_per_call()
        return [v for v, keep in zip(per_call, self._used_mask(per_call)) if keep]

    def _final_half_width(self) -> float:
        if len(self.repeat_counts) > 1:
            return max(stats.relative_half_width(sorted(self._used_in_order()), presorted=True),
                       stats.batch_half_width(self._level_adjusted()))
        return stats.median_half_width(self._used_in_order())

    def _level_adjusted(self) -> list[float]:
        """The used per-call times with the level shifts between finished repetitions taken out (see
        :func:`stats.level_adjusted`; samples of the repetition under way count as one more group)."""
        used = self._used_mask()
        groups, first = [], 0
        for c in [*self.repeat_counts, len(self.samples) - sum(self.repeat_counts)]:
            groups.append(sum(used[first:first + c]))
            first += c
        return [float(x) for x in stats.level_adjusted(self._used_in_order(), groups)]

    def _record(self, elapsed_ns: float, number: int, host_ns: float | None, preempted: int,
                synced_ns: float | None = None, cpu_ns: float | None = None) -> None:
        if cpu_ns is not None and len(self.cpus) == len(self.samples):  # one per sample, or none kept
            self.cpus.append(cpu_ns)
        self.samples.append(elapsed_ns)
        self.numbers.append(number)
        if host_ns is not None:
            self.has_host = True
            self.hosts.append(host_ns)
        if synced_ns is not None:
            self.synced.append(synced_ns)
        self.preempted.append(preempted)
        if preempted >= 0:
            self.has_preempt = True
        per_call = elapsed_ns / number
        bisect.insort(self.sorted_all, per_call)
        if preempted <= 0:
            bisect.insort(self.sorted_clean, per_call)

    def _half_width(self) -> float:
        """The stopping rule's half-width: order statistics after every sample; while that meets
        the target, also the batch-median check (on a schedule: after every sample up to
        :data:`BATCH_CHECK_EVERY_UP_TO` samples, then every 2% more samples)."""
        n = len(self.sorted_all)
        use_clean = (self.opts.discard_preempted
                     and n - len(self.sorted_clean) <= MAX_PREEMPTED_FRACTION_TO_DISCARD * n)
        values = self.sorted_clean if use_clean else self.sorted_all
        hw = stats.relative_half_width(values, presorted=True)
        if len(self.repeat_counts) > 1:  # checked when a repetition ends: the batch check too
            return max(hw, stats.batch_half_width(self._level_adjusted()))
        if hw > self.opts.precision or n < self.batch_check_at:
            return max(hw, self.opts.precision * 1.000001) if n < self.batch_check_at else hw
        batch = stats.batch_half_width(self._used_in_order())
        if batch > self.opts.precision:
            self.batch_check_at = next_batch_check(n)
        return max(hw, batch)


def repeat_spread(per_call: list[float], counts: list[int], used: list[bool]) -> RunToRun | None:
    """The run-to-run spread measured by repetitions (:func:`~measurefirst.results.kinds.spread_from_medians`
    of the repetitions with :data:`REPEAT_MIN_SAMPLES` used samples or more); ``None`` with fewer than two."""
    return spread_from_medians(stats.group_medians(per_call, counts, used, REPEAT_MIN_SAMPLES), "repeats")
