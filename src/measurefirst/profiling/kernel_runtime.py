"""Kernel-name families that are not math: CUDA runtime activities (copy-engine transfers, memsets,
host API calls) and NCCL's collective kernels."""

from __future__ import annotations

import re

from .kernel_grammar import _Fields, _Name


_MEM_ACTIVITY = re.compile(r"^\[?\s*(?:CUDA\s+)?mem(cpy|set)\b", re.IGNORECASE)
_CUDA_API = re.compile(r"^cu(?:da)?[A-Z]\w*$")


def _cuda_runtime(n: _Name, m: re.Match[str]) -> _Fields | None:
    activity = _MEM_ACTIVITY.match(n.raw)
    if activity:
        return {"op": "mem" + activity.group(1).lower()}
    lowered = n.raw.lower()
    op = "memcpy" if "memcpy" in lowered else "memset" if "memset" in lowered else "other"
    return {"op": op}


_NCCL_DTYPE: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), dtype) for pattern, dtype in (
        (r"(?:^|_)(?:__nv_)?(?:bfloat16|bf16)(?:_|$)", "bf16"),
        (r"(?:^|_)f8e[45]m[23](?:_|$)|(?:^|_)fp8", "fp8"),
        (r"(?:^|_)(?:f16|half)(?:_|$)", "f16"),
        (r"(?:^|_)(?:f32|float)(?:_|$)", "f32"),
        (r"(?:^|_)(?:f64|double)(?:_|$)", "f64"),
        (r"(?:^|_)(?:i8|int8_t)(?:_|$)", "int8"),
    ))


def _nccl(n: _Name, m: re.Match[str]) -> _Fields | None:
    head = n.base or n.raw
    dtype = next((d for pattern, d in _NCCL_DTYPE if pattern.search(head)), None)
    return {"op": "collective", "dtype": dtype}
