"""measurefirst: correct measurement of PyTorch code by default. Measure first, then optimize."""

from .compare import Comparison, Verdict, compare
from .devices import DeviceError, available_devices, resolve_device
from .doctor import Diagnosis, doctor
from .engine import BenchmarkError, Interrupted, Options, benchmark
from .profiling import Profile, ProfileDiff, ProfileError, decode_kernel, profile, profile_compare, range
from .regression import Change, change
from .render.report import report
from .render.text import grid_table
from .results import SCHEMA_VERSION, Finding, Measurement
from .store import Store, StoreError
from .timers import CudaEventTimer, MpsEventTimer, Reading, Timer, WallTimer

__version__ = "0.1.0"

__all__ = [
    "BenchmarkError",
    "Change",
    "Comparison",
    "Store",
    "StoreError",
    "Verdict",
    "Profile",
    "ProfileDiff",
    "ProfileError",
    "change",
    "compare",
    "decode_kernel",
    "Diagnosis",
    "doctor",
    "profile",
    "profile_compare",
    "range",
    "report",
    "grid_table",
    "CudaEventTimer",
    "DeviceError",
    "Finding",
    "Interrupted",
    "Measurement",
    "MpsEventTimer",
    "Options",
    "Reading",
    "SCHEMA_VERSION",
    "Timer",
    "WallTimer",
    "available_devices",
    "benchmark",
    "resolve_device",
    "__version__",
]
