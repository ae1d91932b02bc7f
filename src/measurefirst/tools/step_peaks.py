"""What a training step's throughput and MFU come from: the datasheets' dense peaks, the FLOPs per step,
and the peaks measured on the machine (measured again when an MFU is above one)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, Callable, Iterable

import torch

from ..measure.devices import DeviceLike, device_name, tf32_matmul_enabled
from ..results.findings import MFU_MAX, found
from ..results.roofline import Peaks
from ..results.step import NO_TABLE_PEAK_CPU, NOT_IN_TABLE, StepComparison, StepResult, Throughput


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


def dense_peak(name: str, dtype: str) -> tuple[str, float] | None:
    """``(model, FLOP/s)`` from :data:`DENSE_PEAKS` for a device name and ``fp32``/``tf32``/``bf16``/
    ``fp16``/``fp8``, or None when the GPU (or that dtype on it) is not in the table."""
    for pattern, model, peaks in DENSE_PEAKS:
        if re.search(pattern, name):
            return (model, peaks[dtype]) if dtype in peaks else None
    return None


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
