"""Profiling: where the time goes. torch.profiler capture, op and kernel tables, diffs, ranges."""

from .capture import BOOKKEEPING_OPS, KernelRow, OpRow, Profile, ProfileError, profile
from .diff import DiffRow, ProfileDiff, diff, profile_compare
from .kernels import KernelInfo, decode_kernel
from .ranges import range

__all__ = ["BOOKKEEPING_OPS", "DiffRow", "KernelInfo", "KernelRow", "OpRow", "Profile", "ProfileDiff", "ProfileError",
           "decode_kernel", "diff", "profile", "profile_compare", "range"]
