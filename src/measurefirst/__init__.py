"""measurefirst: correct measurement of PyTorch code by default. Measure first, then optimize."""

from .devices import DeviceError, available_devices, resolve_device
from .engine import BenchmarkError, Interrupted, Options, benchmark
from .results import SCHEMA_VERSION, Finding, Measurement
from .timers import CudaEventTimer, MpsEventTimer, Reading, Timer, WallTimer

__version__ = "0.1.0"

__all__ = [
    "BenchmarkError",
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
