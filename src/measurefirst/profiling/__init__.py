"""Profiling: where the time goes. torch.profiler capture, op and kernel tables, diffs, ranges.

The names are imported on first use, so that decoding kernel names (``measurefirst kernel``) does
not import torch."""

import importlib
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .capture import BOOKKEEPING_OPS, KernelRow, OpRow, Profile, ProfileError, profile
    from .diff import DiffRow, ProfileDiff, diff, profile_compare
    from .kernels import KernelInfo, decode_kernel
    from .ranges import range

_EXPORTS = {"BOOKKEEPING_OPS": "capture", "KernelRow": "capture", "OpRow": "capture", "Profile": "capture",
            "ProfileError": "capture", "profile": "capture", "DiffRow": "diff", "ProfileDiff": "diff", "diff": "diff",
            "profile_compare": "diff", "KernelInfo": "kernels", "decode_kernel": "kernels", "range": "ranges"}

__all__ = ["BOOKKEEPING_OPS", "DiffRow", "KernelInfo", "KernelRow", "OpRow", "Profile", "ProfileDiff", "ProfileError",
           "decode_kernel", "diff", "profile", "profile_compare", "range"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


from .._lazy import LazyPackage

sys.modules[__name__].__class__ = LazyPackage
