"""Part 4 of the lecture, kernel names: the lecture's example kernel read field by field, and the GPU
families its architecture means."""

from __future__ import annotations

from typing import Any

import torch

from measurefirst.profiling.kernels import GPU_FAMILIES, decode_kernel
from measurefirst.render.text import plain

from .demo_numbers import DemoResult, Emit
from .narration import say

#: The lecture's example kernel name (a CUTLASS 3.x fp32 SIMT GEMM for Blackwell B200).
LECTURE_KERNEL = "cutlass3x_sm100_simt_sgemm_f32_f32_f32_f32_f32_64x64x16_1x1x1_4_nnn_align1"


# ---- part 4 -------------------------------------------------------------------------------------

def kernel_name_lines(name: str, lang: str) -> tuple[dict[str, Any], list[str]]:
    """The lecture's kernel name read field by field: library, architecture (and the GPUs it means),
    operation and core type, data type, tile."""
    info = decode_kernel(name)
    fields = info.to_dict()
    fields["gpu"] = info.gpu
    lines = [f"  {plain(name)}", "  - " + say("kernels.library", lang, v=info.library)]
    if info.arch:
        lines.append("  - " + say("kernels.arch", lang, v=info.arch, family=info.gpu or "?"))
    cores = say("kernels.tensorop" if info.tensor_cores else "kernels.simt", lang)
    lines.append("  - " + say("kernels.op", lang, v=info.op, cores=cores))
    if info.dtype:
        lines.append("  - " + say("kernels.dtype", lang, v=info.dtype))
    if info.tile:
        dims = (info.tile.split("x") + ["?", "?", "?"])[:3]
        lines.append("  - " + say("kernels.tile", lang, v=info.tile, m=dims[0], n=dims[1], k=dims[2]))
    return fields, lines


def kernels(device: torch.device, lang: str, quick: bool, emit: Emit) -> DemoResult:
    res = DemoResult("kernels")
    emit("")
    emit("## " + say("kernels.title", lang))
    emit(say("kernels.intro", lang))
    fields, lines = kernel_name_lines(LECTURE_KERNEL, lang)
    for line in lines:
        emit(line)
    table = "; ".join(f"{a} {GPU_FAMILIES[a]}" for a in ("sm70", "sm80", "sm86", "sm89", "sm90", "sm100", "sm120"))
    emit(say("kernels.families", lang, table=table))
    res.data["example"] = fields
    if device.type == "cpu":
        emit(say("kernels.cpu", lang))
    emit(say("kernels.lesson", lang))
    return res
