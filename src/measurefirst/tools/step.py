"""A model's training step, phase by phase: data, forward (+ loss), backward, optimizer.

Phases are timed on the device timeline with events recorded between them on the current stream,
and the device is synchronized once per step, so the timing does not serialize what the step would
overlap. On the CPU the wall clock is used (the work is synchronous). Warm-up steps (where
``torch.compile`` compiles) are excluded and reported; recompiles during timing are findings.
Throughput and MFU follow from the batch settings, the FLOPs per step and a *dense* peak table.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace
from typing import Any, Callable, Iterable, Iterator, Mapping

import numpy as np
import torch

from ..measure import compiling, progress
from ..results import defaults, stats
from ..measure.devices import DeviceLike, cuda_api, device_name, environment, machine, resolve_device, tf32_matmul_enabled
from ..measure.dtypes import dtype_name, torch_dtype
from ..results.findings import MFU_MAX, STARVATION_FRACTION, TABLE_VERDICT_SLACK, Finding, found, sample_checks
from .targets import STEP_CONTRACT as CONTRACT
from ..measure.timers import Marks, Timer, make_timer
from ..measure.engine import Interrupted
from ..results.comparison import Comparison
from ..results.roofline import Peaks
from ..results.step import (COMPARISON_SCHEMA_VERSION as COMPARISON_SCHEMA_VERSION, FLOPS_SOURCES as FLOPS_SOURCES,
                           NO_TABLE_PEAK_CPU as NO_TABLE_PEAK_CPU, NOT_IN_TABLE as NOT_IN_TABLE, PHASES as PHASES,
                           RANGED_SCHEMA_VERSION as RANGED_SCHEMA_VERSION, SCHEMA_VERSION as SCHEMA_VERSION,
                           RangedStepResult as RangedStepResult, StepComparison as StepComparison,
                           StepResult as StepResult, Throughput as Throughput)


#: Dense (never sparse) peak FLOP/s per GPU model and dtype, from the vendors' datasheets.
#: Patterns are tried in order against ``torch.cuda.get_device_name()``.
DENSE_PEAKS: tuple[tuple[str, str, dict[str, float]], ...] = (
    (r"H100 NVL", "H100 NVL", {"fp32": 60e12, "tf32": 417.5e12, "bf16": 835.5e12, "fp16": 835.5e12,
                               "fp8": 1670.5e12}),
    (r"H200 NVL", "H200 NVL", {"fp32": 60e12, "tf32": 417.5e12, "bf16": 835.5e12, "fp16": 835.5e12,
                               "fp8": 1670.5e12}),
    (r"H100.*PCIe", "H100 PCIe", {"fp32": 51e12, "tf32": 378e12, "bf16": 756e12, "fp16": 756e12, "fp8": 1513e12}),
    (r"H100|GH200", "H100 SXM", {"fp32": 67e12, "tf32": 494.7e12, "bf16": 989.4e12, "fp16": 989.4e12,
                                  "fp8": 1978.9e12}),
    (r"H200", "H200", {"fp32": 67e12, "tf32": 494.7e12, "bf16": 989.4e12, "fp16": 989.4e12, "fp8": 1978.9e12}),
    # GB200 (Grace Blackwell superchip) GPUs run at a higher power limit than HGX B200: 2.5 PFLOP/s
    # dense bf16 per GPU against B200's 2.25.
    (r"\bGB200\b", "GB200", {"tf32": 1250e12, "bf16": 2500e12, "fp16": 2500e12, "fp8": 5000e12}),
    (r"\bB200\b", "B200", {"tf32": 1100e12, "bf16": 2250e12, "fp16": 2250e12, "fp8": 4500e12}),
    (r"\bA100\b", "A100", {"fp32": 19.5e12, "tf32": 156e12, "bf16": 312e12, "fp16": 312e12}),
    (r"L40S", "L40S", {"fp32": 91.6e12, "tf32": 183e12, "bf16": 362e12, "fp16": 362e12, "fp8": 733e12}),
    (r"\bL4\b", "L4", {"fp32": 30.3e12, "tf32": 60e12, "bf16": 121e12, "fp16": 121e12, "fp8": 242.5e12}),
    (r"A10G|\bA10\b", "A10", {"fp32": 31.2e12, "tf32": 62.5e12, "bf16": 125e12, "fp16": 125e12}),
    (r"RTX 4090", "RTX 4090", {"fp32": 82.6e12, "tf32": 82.6e12, "bf16": 165.2e12, "fp16": 165.2e12,
                               "fp8": 330.3e12}),
    (r"V100", "V100", {"fp32": 15.7e12, "fp16": 125e12}),
)

#: The dtypes a step runs in (fp32, or autocast to bf16 or fp16), by their short names.
STEP_DTYPES = defaults.STEP_DTYPES


def dense_peak(name: str, dtype: str) -> tuple[str, float] | None:
    """``(model, FLOP/s)`` from :data:`DENSE_PEAKS` for a device name and ``fp32``/``tf32``/``bf16``/
    ``fp16``/``fp8``, or None when the GPU (or that dtype on it) is not in the table."""
    for pattern, model, peaks in DENSE_PEAKS:
        if re.search(pattern, name):
            return (model, peaks[dtype]) if dtype in peaks else None
    return None


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


def _compile_backend(compile: object) -> str | None:
    """The torch.compile backend that ``compile`` asks for (None: eager, or a model already compiled);
    an unknown name is refused before anything runs (torch would raise InvalidBackend inside warm-up)."""
    if compile is False or (callable(compile) and not isinstance(compile, (bool, str))):
        return None
    if compile is True:
        return "inductor"
    if not isinstance(compile, str) or not compile:
        raise TypeError(f"compile must be False, True, a torch.compile backend name such as 'inductor', or the "
                        f"model already compiled; got {compile!r}")
    from torch._dynamo import list_backends

    if compile not in list_backends(exclude_tags=()):
        raise ValueError(f"compile={compile!r} is not a torch.compile backend; use one of "
                         f"{', '.join(list_backends())}")
    return compile


def benchmark_step(
    model: torch.nn.Module,
    optimizer: torch.optim.Optimizer,
    batches: Any,
    *,
    loss_fn: Callable[[Any, Any], torch.Tensor] | None = None,
    device: DeviceLike = "auto",
    steps: int = 20,
    warmup: int = defaults.STEP_WARMUP,
    grad_accum: int = 1,
    micro_batch: int | None = None,
    seq_len: int | None = None,
    world_size: int = 1,
    flops_per_step: float | str | None = "count",
    dtype: str | torch.dtype = "fp32",
    compile: bool | str | Callable[..., Any] = False,
    label: str = "step",
    measured_peak: "float | Peaks | None" = None,
    timer: Timer | None = None,
) -> StepResult:
    """Time a training step phase by phase (see the module docstring).

    ``flops_per_step``: ``"count"`` (``FlopCounterMode`` over one step), ``"6N"`` (6 x parameters x
    tokens, an approximation labelled as such), a number, or None. ``dtype``: ``fp32``, ``bf16`` or
    ``fp16`` autocast, in any spelling (``bfloat16``, ``torch.bfloat16``, ``half``: :mod:`measurefirst.measure.dtypes`). ``compile``: False, True (inductor), a backend name, or the model already wrapped
    by ``torch.compile``; compilation happens in warm-up and is reported apart. ``measured_peak``: FLOP/s measured on this machine (see
    :func:`measurefirst.tools.roofline.peaks`) for the second MFU, or the :class:`~measurefirst.tools.roofline.Peaks` themselves
    (then an MFU above 100% names how that peak was measured). A measured peak is a measurement that can be wrong:
    an MFU above 100% against it is a warning about the peak; only a datasheet peak makes it an error.
    """
    peak_how: dict[str, Any] = {}
    if measured_peak is not None and not isinstance(measured_peak, (int, float)):
        peak_how = _peak_how(measured_peak)
        measured_peak = float(measured_peak.flops_per_s)
    dtype = _checked_arguments(model, optimizer, dtype, loss_fn, steps=steps, warmup=warmup, grad_accum=grad_accum,
                               world_size=world_size, seq_len=seq_len, micro_batch=micro_batch,
                               flops_per_step=flops_per_step, measured_peak=measured_peak)
    backend = _compile_backend(compile)
    dev = resolve_device(device)
    next_batch = _batch_source(batches)
    loss_of = loss_fn or default_loss
    forward_model, variant = _compiled(model, compile, backend)
    tdev = machine().tensor_device(dev)
    model.to(tdev)
    autocast = _autocast(tdev, dtype)
    cuda = dev.type == "cuda"
    run_step = _Step(forward_model, optimizer, next_batch, loss_of, autocast, tdev, grad_accum)
    timed = _TimedSteps(run_step, make_timer(dev) if timer is None else timer, dev, label)

    # warm-up: compilation, allocation, autotuning happen here, timed apart; what compiled is torch's own
    # account (measurefirst.measure.compiling), not a guess from a slow step
    model.train()
    log = compiling.log_for(timer)
    mark = log.mark()
    warm_times = timed.warm_up(warmup, steps)
    compiled_warm = [e for e in log.since(mark) if not e.runtime]
    compile_s = sum(e.seconds for e in compiled_warm) if compiled_warm else None
    mark = log.mark()
    memory: dict[str, dict[str, int]] | None = {} if cuda else None
    api = timed.api
    stats0 = api.memory_stats(dev) if api is not None else {}
    if api is not None:
        api.reset_peak_memory_stats(dev)
    per_phase, totals = timed.measured(warmup, steps, memory)
    again = [e for e in log.since(mark) if not e.runtime]
    recompiles = len(again)
    stats1 = api.memory_stats(dev) if api is not None else {}
    med = {p: _median(v) for p, v in per_phase.items()}
    step_s = _median(totals)
    peak_phase = None
    if memory:
        peak_phase = max(memory, key=lambda p: memory[p]["peak_allocated"])
    first_batch = run_step.first_batch
    mb = micro_batch if micro_batch is not None else (_leading_dim(first_batch[0]) if first_batch else None)
    tput = _throughput(mb, seq_len, grad_accum, world_size, step_s)
    flops, source = _step_flops(flops_per_step, model, loss_of, first_batch, grad_accum, mb, seq_len, autocast)
    mfu_table, table_peak = _table_mfu(dev, dtype, flops, step_s)
    mfu_measured = None if (flops is None or not measured_peak) else flops / step_s / measured_peak
    findings = _findings(med, totals, recompiles, memory, peak_phase, mfu_table, mfu_measured, run_step.shapes,
                         micro_batch, first_batch, cuda, compile_s, {"peak_flops": measured_peak, **peak_how},
                         next((e.reason for e in again if e.reason), ""))
    return StepResult(
        label=label, device=str(dev), variant=variant, dtype=dtype, steps=steps, warmup_steps=warmup,
        phase_s=med, step_s=step_s, step_samples_s=tuple(totals), warmup_step_s=tuple(warm_times),
        compile_s=compile_s, recompiles=recompiles, memory=memory, peak_phase=peak_phase,
        alloc_retries=(stats1.get("num_alloc_retries", 0) - stats0.get("num_alloc_retries", 0)) if cuda else None,
        ooms=(stats1.get("num_ooms", 0) - stats0.get("num_ooms", 0)) if cuda else None,
        throughput=tput, flops_per_step=flops, flops_source=source, mfu_table=mfu_table, mfu_table_peak=table_peak,
        mfu_measured=mfu_measured, mfu_measured_peak=measured_peak, findings=findings, env=environment(dev))


def _checked_arguments(model: object, optimizer: object, dtype: str | torch.dtype, loss_fn: object,
                       **numbers: Any) -> str:
    """Refuse what benchmark_step cannot run, naming the fix; the dtype's short name."""
    if not isinstance(model, torch.nn.Module):
        raise StepError(f"model is a {type(model).__name__}, not a torch.nn.Module; " + CONTRACT)
    if not isinstance(optimizer, torch.optim.Optimizer):
        raise StepError(f"optimizer is a {type(optimizer).__name__}, not a torch.optim.Optimizer; " + CONTRACT)
    for name, lo in (("steps", 1), ("warmup", 0), ("grad_accum", 1), ("world_size", 1)):
        v = numbers[name]
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise ValueError(f"{name} must be an integer >= {lo}; got {v!r}")
    short = dtype_name(dtype, STEP_DTYPES)
    for name in ("seq_len", "micro_batch"):
        value = numbers[name]
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise ValueError(f"{name} must be a positive integer (or None); got {value!r}")
    for name in ("flops_per_step", "measured_peak"):
        number = numbers[name]
        if isinstance(number, (int, float)) and not isinstance(number, bool) and not (
                math.isfinite(number) and number > 0):
            raise ValueError(f"{name} must be a positive, finite number of FLOPs (or None); got {number!r}")
    if loss_fn is not None and not callable(loss_fn):
        raise TypeError(f"loss_fn must be a function (outputs, targets) -> loss tensor, or None for the default; "
                        f"got {type(loss_fn).__name__}")
    return short


def _compiled(model: torch.nn.Module, compile: bool | str | Callable[..., Any],
              backend: str | None) -> tuple[Callable[..., Any], str]:
    """The forward to run and the variant's name: the model (eager), the model the caller already compiled
    (compare_steps reuses it), or the model compiled here with ``backend``."""
    if callable(compile) and not isinstance(compile, (bool, str)):
        return compile, "compile"
    if backend is not None:
        return torch.compile(model, backend=backend), f"compile({backend})"
    return model, "eager"


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
        for i in range(steps):
            progress.report("step", self.label, warmup + i + 1, warmup + steps)
            t = self.step(warmup + i, memory)
            for p in PHASES:
                per_phase[p].append(t.get(p, 0.0))
            totals.append(sum(t.values()))
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


def _throughput(mb: int | None, seq_len: int | None, grad_accum: int, world_size: int, step_s: float) -> Throughput:
    """Samples and tokens per second, on one device and over the job (tokens need ``seq_len``)."""
    note = "no_seq_len" if seq_len is None else ""
    samples_dev = None if mb is None else mb * grad_accum / step_s
    return Throughput(mb, seq_len, grad_accum, world_size, samples_dev,
                      None if samples_dev is None else samples_dev * world_size,
                      None if (samples_dev is None or seq_len is None) else samples_dev * seq_len,
                      None if (samples_dev is None or seq_len is None) else samples_dev * seq_len * world_size, note)


def _table_mfu(dev: torch.device, dtype: str, flops: float | None, step_s: float) -> tuple[float | None, str]:
    """The MFU against the datasheet's dense peak for this GPU and dtype (TF32 when fp32 matmuls use it), and
    which peak that was (or why there is none)."""
    cuda = dev.type == "cuda"
    peak_dtype = "tf32" if (dtype == "fp32" and cuda and tf32_matmul_enabled()) else dtype
    table = dense_peak(device_name(dev), peak_dtype) if cuda else None
    mfu = None if (flops is None or table is None) else flops / step_s / table[1]
    peak_words = "fp32 (TF32 on)" if peak_dtype == "tf32" else dtype
    table_peak = (f"{table[0]} {peak_words} dense {table[1] / 1e12:.1f} TFLOP/s" if table is not None
                  else (NOT_IN_TABLE if cuda else NO_TABLE_PEAK_CPU))
    return mfu, table_peak


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


def _step_flops(spec: float | str | None, model: torch.nn.Module, loss_of: Callable[[Any, Any], torch.Tensor],
                first_batch: list[Any], grad_accum: int, mb: int | None, seq_len: int | None,
                autocast: Any) -> tuple[float | None, str]:
    if spec is None:
        return None, "not_given"
    if isinstance(spec, (int, float)) and not isinstance(spec, bool):
        return float(spec), "given"
    if spec == "6N":
        if mb is None or seq_len is None:
            return None, "6n_needs_tokens"
        n_params = sum(p.numel() for p in model.parameters())
        return 6.0 * n_params * mb * seq_len * grad_accum, "6n"
    if spec == "count":
        if not first_batch:
            return None, "no_batch"
        from torch.utils.flop_counter import FlopCounterMode

        counter = FlopCounterMode(display=False)
        with counter:
            if autocast is not None:
                with autocast:
                    loss = loss_of(model, first_batch[0])
            else:
                loss = loss_of(model, first_batch[0])
            loss.backward()  # type: ignore[no-untyped-call]
        model.zero_grad(set_to_none=True)
        return float(counter.get_total_flops()) * grad_accum, "counted"
    raise ValueError(f"flops_per_step must be 'count', '6N', a number or None; got {spec!r}")


def _findings(med: dict[str, float], totals: list[float], recompiles: int, memory: dict[str, dict[str, int]] | None,
              peak_phase: str | None, mfu_table: float | None, mfu_measured: float | None, shapes: set[Any],
              micro_batch: int | None, first_batch: list[Any], cuda: bool, compile_s: float | None,
              peak_how: dict[str, Any] | None = None, recompile_reason: str = "") -> tuple[Finding, ...]:
    step_s = _median(totals)
    out: list[Finding] = []
    if step_s > 0 and med.get("data", 0.0) / step_s > STARVATION_FRACTION:
        out.append(found("data_starvation", med["data"] / step_s))
    if recompiles:
        out.append(found("recompile_during_timing", recompiles, reason=recompile_reason))
    if compile_s is not None:
        out.append(found("compile_time", compile_s))
    if cuda and torch.backends.cudnn.benchmark and len(shapes) > 1:
        out.append(found("cudnn_benchmark_varying_shapes", len(shapes)))
    if peak_phase is not None and memory:
        out.append(found("peak_memory_phase", phase=peak_phase, peak_bytes=memory[peak_phase]["peak_allocated"]))
    if mfu_table is not None and mfu_table > MFU_MAX:
        out.append(found("mfu_above_100", mfu_table, peak="table"))
    if mfu_measured is not None and mfu_measured > MFU_MAX:
        # a measured (often cached) peak can be wrong: a warning that names it, never a failed run
        out.append(found("mfu_above_100", mfu_measured, severity="warning", peak="measured", **(peak_how or {})))
    if micro_batch is not None and first_batch:
        seen = _leading_dim(first_batch[0])
        if seen is not None and seen != micro_batch:
            out.append(found("batch_mismatch", seen, threshold=micro_batch))
    # the engine's checks of a benchmark's samples, on the timed steps
    steps_ns = np.asarray(totals, dtype=float) * 1e9
    if steps_ns.size:
        out += sample_checks(steps_ns, stats.summarize(steps_ns))
    return tuple(out)


def _peak_how(pk: "Peaks") -> dict[str, Any]:
    """How a measured peak was measured, as a finding's context."""
    return {"dtype": pk.dtype, "threads": pk.threads, "measured_at": pk.measured_at or None,
            "load": None if pk.load < 0 else pk.load, "cpus": pk.cpus or None}


def with_measured_peak(r: StepResult, peak: "Peaks") -> StepResult:
    """``r`` with its second MFU against ``peak`` (a peak measured again after the step ran above the
    first): ``mfu_measured`` and the ``mfu_above_100`` finding of the measured peak follow it."""
    findings = tuple(f for f in r.findings if not (f.code == "mfu_above_100" and f.context.get("peak") == "measured"))
    if r.flops_per_step is None or not r.step_s > 0:
        return replace(r, mfu_measured_peak=peak.flops_per_s, findings=findings)
    mfu = r.flops_per_step / r.step_s / peak.flops_per_s
    if mfu > MFU_MAX:
        findings += (found("mfu_above_100", mfu, severity="warning", peak="measured",
                           **{"peak_flops": peak.flops_per_s, **_peak_how(peak)}),)
    return replace(r, mfu_measured=mfu, mfu_measured_peak=peak.flops_per_s, findings=findings)


def measured_peaks(device: DeviceLike, dtypes: Iterable[str], store: Any = None) -> dict[str, float]:
    """The measured matrix-product peak (FLOP/s) of each step dtype (``fp32``, ``bf16``, ``fp16``) on
    ``device``, cached in the results ``store`` (see :func:`measurefirst.tools.roofline.peaks`)."""
    from .roofline import peaks

    return {d: p.flops_per_s for d, p in measured_peak_records(device, dtypes, store).items()}


def measured_peak_records(device: DeviceLike, dtypes: Iterable[str], store: Any = None) -> "dict[str, Peaks]":
    """:func:`measured_peaks` with how each was measured (the :class:`~measurefirst.tools.roofline.Peaks`)."""
    from .roofline import peaks

    return {d: peaks(device, "float32" if d == "fp32" else d, store=store) for d in dtypes}


def compare_steps(build: Callable[[], Any], *, variants: Iterable[str] = ("eager",), dtypes: Iterable[str] = ("fp32",),
                  device: DeviceLike = "auto", steps: int = defaults.COMPARE_STEPS, warmup: int = defaults.STEP_WARMUP,
                  compare_budget: float | None = None,
                  measured_peak: "float | Peaks | Mapping[str, float | Peaks] | None" = None,
                  **settings: Any) -> StepComparison:
    """Each (variant, dtype) built fresh by ``build()``, timed with :func:`benchmark_step`, then one
    interleaved :func:`measurefirst.compare` of their whole steps for a verdict per variant against the
    first. ``variants``: ``eager``, ``compile`` (inductor) or ``compile:BACKEND``. ``compare_budget``
    defaults to enough time for about 30 rounds of every candidate's step (5 s at least).
    ``measured_peak``: one FLOP/s figure, or one per dtype (``{"fp32": ..., "bf16": ...}``). A dtype
    in any spelling (``bf16``, ``bfloat16``); labels use the short name (``eager/bf16``). Ctrl-C after a variant
    was measured raises :class:`~measurefirst.measure.engine.Interrupted` with the steps measured so far."""
    results: list[StepResult] = []
    candidates: dict[str, Callable[[], object]] = {}
    peak_of: "dict[str, float | Peaks | None]" = (
        {dtype_name(k, STEP_DTYPES): v for k, v in measured_peak.items()} if isinstance(measured_peak, Mapping)
        else dict.fromkeys(STEP_DTYPES, measured_peak))
    variants, dtypes = list(variants), [dtype_name(d, STEP_DTYPES) for d in dtypes]
    backends: dict[str, bool | str] = {}
    for variant in variants:  # every variant checked before anything is built or run
        if variant == "eager":
            backends[variant] = False
        elif variant == "compile" or variant.startswith("compile:"):
            backends[variant] = _compile_backend(variant.split(":", 1)[1] if ":" in variant else True) or False
        else:
            raise ValueError(f"variant must be eager, compile or compile:BACKEND; got {variant!r}")
    try:
        return _measure_steps(build, variants, dtypes, backends, results, candidates, peak_of, device=device,
                              steps=steps, warmup=warmup, compare_budget=compare_budget, settings=settings)
    except KeyboardInterrupt as exc:  # Ctrl-C (or the code's own): the steps measured so far are kept
        if not results:
            raise
        partial = exc.partial if isinstance(exc, Interrupted) and isinstance(exc.partial, Comparison) else None
        raise Interrupted(StepComparison(tuple(results), partial, stopped=True)) from exc


def _measure_steps(build: Callable[[], Any], variants: list[str], dtypes: list[str], backends: dict[str, bool | str],
                   results: list[StepResult], candidates: dict[str, Callable[[], object]],
                   peak_of: "dict[str, float | Peaks | None]", *, device: DeviceLike, steps: int, warmup: int,
                   compare_budget: float | None, settings: dict[str, Any]) -> StepComparison:
    """The measuring of :func:`compare_steps`; ``results`` and ``candidates`` grow as each is measured (what a
    Ctrl-C keeps)."""
    from .compare import compare

    for variant in variants:
        for dt in dtypes:
            try:
                built = build()
            except Exception as exc:  # noqa: BLE001 - the user's build(): one line naming it, exit 1
                raise StepError(f"build() raised: {type(exc).__name__}: {exc}; fix build() so that it returns the "
                                f"model, optimizer and batches", phase="build") from exc
            parts = _unpack(built)
            comp = backends[variant]
            label = f"{variant}/{dt}"
            fwd: Any = parts["model"]
            if comp:
                fwd = torch.compile(parts["model"], backend="inductor" if comp is True else comp)
            r = benchmark_step(parts["model"], parts["optimizer"], parts["batches"], loss_fn=parts.get("loss_fn"),
                               device=device, steps=steps, warmup=warmup, dtype=dt, compile=fwd if comp else False,
                               label=label, measured_peak=peak_of.get(dt),
                               micro_batch=_first_set(settings.get("micro_batch"), parts.get("micro_batch")),
                               seq_len=_first_set(settings.get("seq_len"), parts.get("seq_len")),
                               **{k: v for k, v in settings.items() if k not in ("micro_batch", "seq_len")})
            results.append(replace(r, variant=f"compile({'inductor' if comp is True else comp})" if comp else r.variant))
            tdev = machine().tensor_device(resolve_device(device))
            candidates[label] = _Step(fwd, parts["optimizer"], _batch_source(parts["batches"]),
                                      parts.get("loss_fn") or default_loss, _autocast(tdev, dt), tdev, 1)
    comparison = None
    if len(candidates) > 1:
        budget = compare_budget if compare_budget is not None else max(5.0, 30 * sum(r.step_s for r in results)
                                                                         + 10 * max(r.step_s for r in results))
        comparison = compare(candidates, device=device, budget=budget, min_rounds=6, min_time=min(1.0, budget / 3),
                             block_time=0.001)
        results[:] = _check_table_against_verdicts(results, list(candidates), comparison)
    return StepComparison(tuple(results), comparison)


def _check_table_against_verdicts(results: list[StepResult], labels: list[str],
                                  comparison: "Comparison") -> list[StepResult]:
    """The per-phase tables are measured one variant after another, the verdicts in interleaved
    rounds. When a table's step ratio against the first variant falls outside the verdict's CI, the
    machine's speed changed between the tables: say so on that result, and that the verdict holds."""
    base = results[0].step_s
    out = [results[0]]
    for r, label in zip(results[1:], labels[1:]):
        v = comparison.verdict(label)
        ratio = r.step_s / base if base > 0 else math.nan
        # without a CI (too few rounds), only a table that is off by a wide margin is called out, and the
        # finding says the verdict is undecided: it cites no interval the verdict did not produce
        lo, hi = v.ratio_ci if v.ratio_ci is not None else (v.ratio / TABLE_VERDICT_SLACK, v.ratio * TABLE_VERDICT_SLACK)
        if math.isfinite(ratio) and math.isfinite(lo) and math.isfinite(hi) and (
                ratio < lo / TABLE_VERDICT_SLACK or ratio > hi * TABLE_VERDICT_SLACK):
            if v.ratio_ci is None:
                f = found("table_contradicts_verdict", ratio, baseline=labels[0], verdict_ratio=v.ratio,
                          rounds=v.rounds)
            else:
                f = found("table_contradicts_verdict", ratio, baseline=labels[0], ci_low=lo, ci_high=hi)
            r = replace(r, findings=r.findings + (f,))
        out.append(r)
    return out


def _first_set(*values: Any) -> Any:
    return next((v for v in values if v is not None), None)


def _unpack(parts: Any) -> dict[str, Any]:
    out = {k: _get(parts, k) for k in ("model", "optimizer", "batches", "loss_fn", "micro_batch", "seq_len")}
    missing = [k for k in ("model", "optimizer", "batches") if out[k] is None]
    if missing:
        raise StepError(f"build() returned {type(parts).__name__} without {', '.join(missing)}; " + CONTRACT)
    return out


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


def above_measured_peak(result: "StepComparison") -> set[str]:
    """The dtypes whose step's MFU is above a *measured* peak (``mfu_above_100``): that peak is the wrong
    number and is worth measuring again."""
    return {r.dtype for r in result.steps if any(f.code == "mfu_above_100" and f.context.get("peak") == "measured"
                                                 for f in r.findings)}


def with_fresh_peaks(result: "StepComparison", device: Any, store: Any = None) -> "StepComparison":
    """``result`` with the MFU of each step above its measured peak recomputed against that peak measured
    again now (:func:`with_measured_peak`)."""
    from dataclasses import replace

    from .roofline import peaks

    above = above_measured_peak(result)
    fresh = {d: peaks(device, "float32" if d == "fp32" else d, store=store, refresh=True) for d in sorted(above)}
    return replace(result, steps=tuple(with_measured_peak(r, fresh[r.dtype]) if r.dtype in fresh else r
                                       for r in result.steps))
