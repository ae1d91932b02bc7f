"""Kernel-name families of fused attention: FlashAttention (FA2, PyTorch's vendored copy, FA3), the
CUTLASS-based memory-efficient kernels (xFormers) and cuDNN's SDPA kernels."""

from __future__ import annotations

import re

from .kernel_grammar import _arch_from_text, _cpp_dtype, _Fields, _first, _Name, _TILE3


def _flash(n: _Name, m: re.Match[str]) -> _Fields | None:
    return {"op": "attention", "tensor_cores": True, "arch": _arch_from_text(n.text),
            "dtype": _cpp_dtype(n.targs or n.text)}


_FMHA = re.compile(r"fmha_cutlass[FB]_(bf16|f16|f32)_(?:not)?aligned_(\d+x\d+)(?:_k\d+)?"
                   r"(?:_(?:rf|gmem|seqaligned|dropout|causal))*_sm(\d+)")


def _mem_efficient(n: _Name, m: re.Match[str]) -> _Fields | None:
    fm = _FMHA.search(n.text)
    if fm:
        dtype: str | None = fm.group(1)
        tile: str | None = fm.group(2)
        arch_num: int | None = int(fm.group(3))
    else:
        dtype = _cpp_dtype(n.targs or n.text)
        tile = None
        arch = _arch_from_text(n.text)
        arch_num = int(arch[2:]) if arch else None
    tensor_cores: bool | None = None
    if arch_num is not None and dtype is not None:
        if arch_num >= 80:
            tensor_cores = True
        elif arch_num >= 70:
            tensor_cores = dtype in ("f16", "bf16")
        else:
            tensor_cores = False
    return {"op": "attention", "dtype": dtype, "tile": tile,
            "arch": f"sm{arch_num}" if arch_num is not None else None,
            "tensor_cores": tensor_cores}


def _cudnn_sdpa(n: _Name, m: re.Match[str]) -> _Fields | None:
    tokens = n.base.lower().split("_")
    arch = next((t for t in tokens if re.fullmatch(r"sm\d{2,3}", t)), None)
    dtype = "fp8" if any(t in ("fp8", "e4m3", "e5m2", "f8") for t in tokens) else None
    return {"op": "attention", "arch": arch, "dtype": dtype, "tile": _first(tokens, _TILE3),
            "tensor_cores": True}
