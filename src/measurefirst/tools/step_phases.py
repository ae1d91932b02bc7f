"""One training step, phase by phase: where its batches come from and go, the default loss, the step
that calls back as each phase ends, and the timed steps that mark those ends on a timer (and, on CUDA,
book each phase's peak memory)."""

from __future__ import annotations

import math
from typing import Any, Callable, Iterable, Iterator, Mapping

import torch

from ..measure import progress
from ..measure.devices import cuda_api
from ..measure.dtypes import torch_dtype
from ..measure.timers import Marks, Timer
from ..results.step import PHASES
from .targets import STEP_CONTRACT as CONTRACT


class StepError(RuntimeError):
    """A phase raised (``phase`` and ``step`` say where), or ``build()`` broke the contract."""

    def __init__(self, message: str, *, phase: str | None = None, step: int | None = None) -> None:
        super().__init__(message)
        self.phase, self.step = phase, step


def _get(obj: Any, key: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(key, default)
    return getattr(obj, key, default)


def _batch_source(batches: Any) -> Callable[[], Any]:
    if callable(batches) and not isinstance(batches, torch.Tensor):
        source: Callable[[], Any] = batches
        return source
    if isinstance(batches, Iterable):
        it: Iterator[Any] = iter(batches)
        cached: list[Any] = []

        def next_batch() -> Any:
            nonlocal it
            try:
                b = next(it)
            except StopIteration:
                it = iter(batches)  # a re-iterable source (a list, a DataLoader) starts again
                try:
                    b = next(it)
                except StopIteration:
                    raise StepError("batches is empty; " + CONTRACT) from None
            if not cached:
                cached.append(b)
            return b

        return next_batch
    raise StepError(f"batches is a {type(batches).__name__}; " + CONTRACT)


def _to_device(batch: Any, dev: torch.device) -> Any:
    if isinstance(batch, torch.Tensor):
        return batch.to(dev, non_blocking=True)
    if isinstance(batch, (list, tuple)):
        return type(batch)(_to_device(b, dev) for b in batch)
    if isinstance(batch, Mapping):
        return {k: _to_device(v, dev) for k, v in batch.items()}
    return batch


def default_loss(model: Callable[..., Any], batch: Any) -> torch.Tensor:
    """``batch = (inputs, targets)``: cross-entropy of ``model(inputs)`` over the last dimension."""
    if not (isinstance(batch, (list, tuple)) and len(batch) == 2):
        raise StepError("the default loss needs batches of (inputs, targets); give loss_fn(model, batch) in build()")
    inputs, targets = batch
    logits = model(inputs)
    return torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))


def _leading_dim(batch: Any) -> int | None:
    if isinstance(batch, torch.Tensor):
        return int(batch.shape[0]) if batch.dim() else None
    if isinstance(batch, (list, tuple)) and batch:
        return _leading_dim(batch[0])
    if isinstance(batch, Mapping) and batch:
        return _leading_dim(next(iter(batch.values())))
    return None


def _no_phase(name: str) -> None:
    return None


class _Step:
    """One training step (data, forward + loss, backward, optimizer), calling ``on_phase(name)`` as
    each phase ends: benchmark_step marks the phases there; compare_steps times whole steps."""

    def __init__(self, fwd: Callable[..., Any], optimizer: torch.optim.Optimizer, next_batch: Callable[[], Any],
                 loss_of: Callable[[Any, Any], torch.Tensor], autocast: Any, tdev: torch.device,
                 grad_accum: int) -> None:
        self.fwd, self.optimizer, self.next_batch, self.loss_of = fwd, optimizer, next_batch, loss_of
        self.autocast, self.tdev, self.grad_accum = autocast, tdev, grad_accum
        self.phase = "data"
        self.shapes: set[Any] = set()
        self.first_batch: list[Any] = []

    def __call__(self, on_phase: Callable[[str], None] = _no_phase) -> None:
        self.phase = "data"
        batches_now = []
        for _ in range(self.grad_accum):
            b = _to_device(self.next_batch(), self.tdev)
            batches_now.append(b)
            if not self.first_batch:
                self.first_batch.append(b)
            self.shapes.add(_shape_key(b))
        on_phase("data")
        for b in batches_now:
            self.phase = "forward"
            if self.autocast is not None:
                with self.autocast:
                    loss = self.loss_of(self.fwd, b)
            else:
                loss = self.loss_of(self.fwd, b)
            if not isinstance(loss, torch.Tensor) or loss.dim() != 0:
                raise StepError("loss_fn must return a scalar tensor; " + CONTRACT, phase="forward")
            on_phase("forward")
            self.phase = "backward"
            (loss / self.grad_accum).backward()  # type: ignore[no-untyped-call]
            on_phase("backward")
        self.phase = "optimizer"
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        on_phase("optimizer")



class StepsStopped(KeyboardInterrupt):
    """Ctrl-C after some timed steps: each phase's seconds and each step's total of those steps."""

    def __init__(self, per_phase: dict[str, list[float]], totals: list[float]) -> None:
        super().__init__("steps interrupted")
        self.per_phase = {p: v[:len(totals)] for p, v in per_phase.items()}
        self.totals = totals


class _TimedSteps:
    """Runs one step at a time, marking its phases on the timer, and on CUDA books each phase's peak memory."""

    def __init__(self, run_step: "_Step", timer: Timer, dev: torch.device, label: str) -> None:
        self.run_step, self.timer, self.dev, self.label = run_step, timer, dev, label
        self.api = cuda_api() if dev.type == "cuda" else None

    def warm_up(self, warmup: int, steps: int) -> list[float]:
        """The ``warmup`` steps' seconds (``steps`` timed ones follow: the progress counts both)."""
        warm_times: list[float] = []
        for i in range(warmup):
            progress.report("step", self.label, i + 1, warmup + steps)
            warm_times.append(sum(self.step(i, None).values()))
        return warm_times

    def measured(self, warmup: int, steps: int,
                 memory: dict[str, dict[str, int]] | None) -> tuple[dict[str, list[float]], list[float]]:
        """The timed steps, after ``warmup`` ones: each phase's seconds, step by step, and each step's total."""
        per_phase: dict[str, list[float]] = {p: [] for p in PHASES}
        totals: list[float] = []
        try:
            for i in range(steps):
                progress.report("step", self.label, warmup + i + 1, warmup + steps)
                t = self.step(warmup + i, memory)
                for p in PHASES:
                    per_phase[p].append(t.get(p, 0.0))
                totals.append(sum(t.values()))
        except KeyboardInterrupt as exc:  # Ctrl-C (in a phase or in the user's batches): the steps timed are kept
            if not totals:
                raise
            raise StepsStopped(per_phase, totals) from exc
        return per_phase, totals

    def step(self, i: int, memory: dict[str, dict[str, int]] | None) -> dict[str, float]:
        """Step ``i``'s seconds by phase (``memory``: where to book the phases' peaks, None: not booked)."""
        marks = self.timer.marks()

        def phase_done(name: str) -> None:
            marks.mark(name)
            self._book_memory(memory, name)

        try:
            self.run_step(phase_done)
        except StepError as exc:
            exc.step = i
            raise
        except Exception as exc:
            raise StepError(f"{self.label}: the {self.run_step.phase} phase raised at step {i}: "
                            f"{type(exc).__name__}: {exc}", phase=self.run_step.phase, step=i) from exc
        return _phase_seconds(marks)

    def _book_memory(self, memory: dict[str, dict[str, int]] | None, phase: str) -> None:
        api, dev = self.api, self.dev
        if memory is None or api is None:
            return
        peak = int(api.max_memory_allocated(dev))
        reserved = int(api.max_memory_reserved(dev))
        cur = memory.setdefault(phase, {"peak_allocated": 0, "peak_reserved": 0})
        cur["peak_allocated"] = max(cur["peak_allocated"], peak)
        cur["peak_reserved"] = max(cur["peak_reserved"], reserved)
        api.reset_peak_memory_stats(dev)  # the next phase's peak starts from here



def _autocast(tdev: torch.device, dtype: str) -> Any:
    return torch.autocast(device_type=tdev.type, dtype=torch_dtype(dtype)) if dtype != "fp32" else None


def _phase_seconds(marks: Marks) -> dict[str, float]:
    """Seconds per phase name (phases that repeat, as with gradient accumulation, add up)."""
    out: dict[str, float] = {}
    read = marks.read()
    for (_, a), (name, b) in zip(read, read[1:]):
        out[name] = out.get(name, 0.0) + (b - a) / 1e9
    return out


def _shape_key(batch: Any) -> Any:
    if isinstance(batch, torch.Tensor):
        return tuple(batch.shape)
    if isinstance(batch, (list, tuple)):
        return tuple(_shape_key(b) for b in batch)
    if isinstance(batch, Mapping):
        return tuple(sorted((k, _shape_key(v)) for k, v in batch.items()))
    return None


def _median(v: list[float]) -> float:
    s = sorted(v)
    n = len(s)
    return (s[(n - 1) // 2] + s[n // 2]) / 2 if n else math.nan
