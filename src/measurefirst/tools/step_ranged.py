"""A step whose phases its own code marks with ``measurefirst.range``: each range timed between its start
and end marks, step after step, and the step from its first mark to its last."""

from __future__ import annotations

from typing import Callable

from ..measure.devices import DeviceLike, resolve_device
from ..measure.timers import Marks, Timer, make_timer
from ..results import defaults
from ..results.step import RangedStepResult
from .step_phases import StepError, _median


class _RangeRecorder:
    """Listens to ``measurefirst.range`` and marks each range's start and end with the timer's marks
    (events on a GPU, read after one synchronize per step; the host clock on the CPU)."""

    def __init__(self, marks: Marks) -> None:
        self.marks = marks
        self.count = 1  # the "start" mark
        self.open: list[tuple[str, int]] = []
        self.spans: list[tuple[str, int, int]] = []
        self.failed_in: str | None = None  # the innermost range an exception left

    def _mark(self, name: str) -> int:
        self.marks.mark(name)
        self.count += 1
        return self.count - 1

    def enter(self, name: str) -> None:
        self.open.append((name, self._mark(f"<{name}")))

    def exit(self, name: str, failed: bool = False) -> None:
        if failed and self.failed_in is None:
            self.failed_in = name
        for i in range(len(self.open) - 1, -1, -1):
            if self.open[i][0] == name:
                _, start = self.open.pop(i)
                self.spans.append((name, start, self._mark(f">{name}")))
                return

    def durations(self) -> tuple[dict[str, float], float]:
        """Seconds per range name (summed over its occurrences) and the whole step (first to last mark)."""
        self._mark("end")
        at = [t for _, t in self.marks.read()]
        out: dict[str, float] = {}
        for name, a, b in self.spans:
            out[name] = out.get(name, 0.0) + (at[b] - at[a]) / 1e9
        return out, (at[-1] - at[0]) / 1e9


def benchmark_ranged_step(step: Callable[[], object], *, device: DeviceLike = "auto", steps: int = 20,
                          warmup: int = defaults.STEP_WARMUP, label: str | None = None,
                          timer: Timer | None = None) -> RangedStepResult:
    """Time a single step callable whose phases are marked with ``with measurefirst.range("forward"):``.
    Each range is timed between its start and end marks (device events on CUDA, recorded on the stream
    without synchronizing between phases), the step from its first to its last mark; ranges with the
    same name add up. Warm-up steps are excluded. ``label`` defaults to the step's name, as in
    :func:`measurefirst.benchmark`."""
    from ..measure.engine import default_label
    from ..profiling.ranges import listener

    if not callable(step):
        raise TypeError(f"step must be a callable taking no arguments; got {type(step).__name__}")
    for name, v, lo in (("steps", steps, 1), ("warmup", warmup, 0)):
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise ValueError(f"{name} must be an integer >= {lo}; got {v!r}")
    label = label or default_label(step)
    dev = resolve_device(device)
    the_timer = make_timer(dev) if timer is None else timer
    per: dict[str, list[float]] = {}
    totals: list[float] = []
    warm: list[float] = []
    for i in range(warmup + steps):
        rec = _RangeRecorder(the_timer.marks())
        token = listener.set(rec)
        try:
            try:
                step()
            except Exception as exc:
                phase = rec.failed_in
                where = f"inside range {phase!r}" if phase else "outside any range"
                raise StepError(f"{label}: the step raised at step {i} ({where}): {type(exc).__name__}: {exc}",
                                phase=phase, step=i) from exc
            phases, total = rec.durations()
        finally:
            listener.reset(token)
        if i < warmup:
            warm.append(total)
            continue
        totals.append(total)
        for name, seconds in phases.items():
            per.setdefault(name, []).append(seconds)
    if not per:
        raise StepError("no measurefirst.range(...) phases were seen inside the step; mark them, e.g. "
                        "`with measurefirst.range('forward'): loss = model(x)`")
    phase_s = {k: _median(v) for k, v in per.items()}
    step_s = _median(totals)
    # nested ranges would be counted twice in the sum, so "outside any range" is then a lower bound
    return RangedStepResult(label, str(dev), steps, warmup, phase_s, step_s, max(0.0, step_s - sum(phase_s.values())),
                            tuple(totals), tuple(warm))
