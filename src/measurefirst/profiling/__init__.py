"""Profiling: where the time goes. torch.profiler capture, op and kernel tables, diffs, ranges.

The names are imported on first use, so that decoding kernel names (``measurefirst kernel``) does
not import torch."""

import sys
from typing import Any

from .._lazy import LazyPackage, exported


_EXPORTS = {"BOOKKEEPING_OPS": "capture", "KernelRow": "capture", "OpRow": "capture", "Profile": "capture",
            "ProfileError": "capture", "profile": "capture", "DiffRow": "diff", "ProfileDiff": "diff", "diff": "diff",
            "profile_compare": "diff", "KernelInfo": "kernels", "decode_kernel": "kernels", "range": "ranges"}

__all__ = ["BOOKKEEPING_OPS", "DiffRow", "KernelInfo", "KernelRow", "OpRow", "Profile", "ProfileDiff", "ProfileError",
           "decode_kernel", "diff", "profile", "profile_compare", "range"]


__getattr__ = exported(__name__, _EXPORTS)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


sys.modules[__name__].__class__ = LazyPackage
