"""One vocabulary of floating-point dtypes for the library and the command line: ``bf16`` and
``bfloat16`` (and ``torch.bfloat16``) are the same thing everywhere. A leaf module: torch is imported
only to hand back a ``torch.dtype``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    import torch

#: Every accepted spelling and the short name it means. ``tf32`` is fp32 storage with TF32 matrix
#: products: a name for peaks and MFU, not a storage type.
DTYPE_ALIASES = {"fp32": "fp32", "float32": "fp32", "float": "fp32", "bf16": "bf16", "bfloat16": "bf16",
                 "fp16": "fp16", "float16": "fp16", "half": "fp16", "fp64": "fp64", "float64": "fp64",
                 "double": "fp64", "tf32": "tf32"}
#: The short names that are storage types, and torch's name for each.
TORCH_NAMES = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16", "fp64": "float64"}


def dtype_name(dtype: "str | torch.dtype", allowed: Sequence[str] = tuple(TORCH_NAMES)) -> str:
    """The short name (``fp32``, ``bf16``, ``fp16``, ``fp64``, ``tf32``) of any accepted spelling:
    ``bf16``, ``bfloat16``, ``torch.bfloat16`` (the string or the dtype), any case. ``allowed``: the
    short names the caller supports; any other raises ``ValueError`` listing them."""
    key = str(dtype).strip().lower().removeprefix("torch.")
    name = DTYPE_ALIASES.get(key)
    if name is None or name not in allowed:
        spellings = ", ".join(f"{short} ({'/'.join(k for k, v in DTYPE_ALIASES.items() if v == short and k != short)})"
                              for short in allowed)
        raise ValueError(f"unknown dtype {dtype!r}; use one of: {spellings}")
    return name


def torch_dtype(dtype: "str | torch.dtype", allowed: Sequence[str] = tuple(TORCH_NAMES)) -> "torch.dtype":
    """The ``torch.dtype`` of any accepted spelling (see :func:`dtype_name`); a storage type only."""
    import torch

    name = dtype_name(dtype, [a for a in allowed if a in TORCH_NAMES])
    result: torch.dtype = getattr(torch, TORCH_NAMES[name])
    return result
