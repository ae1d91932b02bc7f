"""A model's training step, phase by phase: data, forward (+ loss), backward, optimizer.

Phases are timed on the device timeline with events recorded between them on the current stream,
and the device is synchronized once per step, so the timing does not serialize what the step would
overlap. On the CPU the wall clock is used (the work is synchronous). Warm-up steps (where
``torch.compile`` compiles) are excluded and reported; recompiles during timing are findings.
Throughput and MFU follow from the batch settings, the FLOPs per step and a *dense* peak table.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Callable, Iterable, Mapping

import numpy as np
import torch

from ..measure import compiling
from ..results import defaults, stats
from ..measure.devices import DeviceLike, environment, machine, resolve_device
from ..measure.dtypes import dtype_name
from ..results.findings import MFU_MAX, STARVATION_FRACTION, TABLE_VERDICT_SLACK, Finding, found, sample_checks
from .targets import STEP_CONTRACT as CONTRACT
from ..measure.timers import Timer, make_timer
from ..measure.engine import Interrupted
from ..results.comparison import Comparison
from ..results.roofline import Peaks
from ..results.step import (COMPARISON_SCHEMA_VERSION as COMPARISON_SCHEMA_VERSION, FLOPS_SOURCES as FLOPS_SOURCES,
                           NO_TABLE_PEAK_CPU as NO_TABLE_PEAK_CPU, NOT_IN_TABLE as NOT_IN_TABLE, PHASES as PHASES,
                           RANGED_SCHEMA_VERSION as RANGED_SCHEMA_VERSION, SCHEMA_VERSION as SCHEMA_VERSION,
                           RangedStepResult as RangedStepResult, StepComparison as StepComparison,
                           StepResult as StepResult, Throughput as Throughput)
from .step_peaks import (DENSE_PEAKS as DENSE_PEAKS, above_measured_peak as above_measured_peak,
                         dense_peak as dense_peak, measured_peak_records as measured_peak_records,
                         measured_peaks as measured_peaks, with_fresh_peaks as with_fresh_peaks,
                         with_measured_peak as with_measured_peak, _peak_how, _step_flops as _step_flops, _table_mfu,
                         _throughput)
from .step_phases import (StepError as StepError, default_loss as default_loss, _autocast as _autocast,
                          _batch_source as _batch_source, _get, _leading_dim, _median as _median, _Step as _Step,
                          StepsStopped, _TimedSteps, _to_device as _to_device)
from .step_ranged import benchmark_ranged_step as benchmark_ranged_step


#: The dtypes a step runs in (fp32, or autocast to bf16 or fp16), by their short names.
STEP_DTYPES = defaults.STEP_DTYPES


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
    stopped: StepsStopped | None = None
    try:
        per_phase, totals = timed.measured(warmup, steps, memory)
    except StepsStopped as exc:  # Ctrl-C after some steps: the result of those steps, raised as Interrupted below
        per_phase, totals, stopped, steps = exc.per_phase, exc.totals, exc, len(exc.totals)
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
    result = StepResult(
        label=label, device=str(dev), variant=variant, dtype=dtype, steps=steps, warmup_steps=warmup,
        phase_s=med, step_s=step_s, step_samples_s=tuple(totals), warmup_step_s=tuple(warm_times),
        compile_s=compile_s, recompiles=recompiles, memory=memory, peak_phase=peak_phase,
        alloc_retries=(stats1.get("num_alloc_retries", 0) - stats0.get("num_alloc_retries", 0)) if cuda else None,
        ooms=(stats1.get("num_ooms", 0) - stats0.get("num_ooms", 0)) if cuda else None,
        throughput=tput, flops_per_step=flops, flops_source=source, mfu_table=mfu_table, mfu_table_peak=table_peak,
        mfu_measured=mfu_measured, mfu_measured_peak=measured_peak, findings=findings, env=environment(dev))
    if stopped is not None:
        raise Interrupted(result) from stopped
    return result


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
        if name in ("steps", "warmup") and v > defaults.STEP_MAX_STEPS:
            raise ValueError(f"{name} must be at most {defaults.STEP_MAX_STEPS} (a step run has no time budget: its "
                             f"steps are counted); got {v!r}")
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
        if isinstance(exc, Interrupted) and isinstance(exc.partial, StepResult):  # a variant's steps so far
            results.append(exc.partial)
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
