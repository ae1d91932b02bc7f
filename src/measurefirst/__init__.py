"""measurefirst: correct measurement of PyTorch code by default. Measure first, then optimize."""

import importlib
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover - the names below are imported on first use (see __getattr__)
    from .compare import Comparison, Verdict, compare
    from .counting import CountError
    from .devices import DeviceError, available_devices, resolve_device
    from .doctor import Diagnosis, doctor
    from .engine import BenchmarkError, Interrupted, Options, benchmark
    from .loading import LoadError, load
    from .noise import NoiseProfile, load_profile, noise_profile
    from .protocol import Result
    from .profiling import Profile, ProfileDiff, ProfileError, decode_kernel, profile, profile_compare, range
    from .dtypes import dtype_name
    from .regression import COUNT_THRESHOLD, Change, Regression, change, check_regression
    from .render.plots import plot_all, plot_roofline, plot_throughput, plot_time
    from .render.findings import finding_text
    from .render.report import report
    from .render.text import grid_table
    from .results import SCHEMA_VERSION, Count, Finding, Measurement, load_result
    from .selfcheck import FaultyTimer, SelfCheck, selfcheck
    from .simulate import SimGPU, SimWorld
    from .roofline import Peaks, peaks
    from .step import (RangedStepResult, StepComparison, StepResult, benchmark_ranged_step, benchmark_step,
                       compare_steps)
    from .store import Store, StoreError
    from .sweep import SweepResult, sweep
    from .timers import CudaEventTimer, MpsEventTimer, Reading, Timer, WallTimer

#: Where each public name lives. They are imported on first use, so that ``import measurefirst``
#: (and the ``measurefirst`` command, which Ctrl-C may interrupt while it starts) does not import
#: torch until something needs it.
_EXPORTS = {
    "Comparison": "compare", "Verdict": "compare", "compare": "compare", "CountError": "counting",
    "DeviceError": "devices", "available_devices": "devices", "resolve_device": "devices",
    "Diagnosis": "doctor", "doctor": "doctor",
    "BenchmarkError": "engine", "Interrupted": "engine", "Options": "engine", "benchmark": "engine",
    "dtype_name": "dtypes",
    "LoadError": "loading", "load": "loading", "Result": "protocol",
    "NoiseProfile": "noise", "load_profile": "noise", "noise_profile": "noise",
    "Profile": "profiling", "ProfileDiff": "profiling", "ProfileError": "profiling", "decode_kernel": "profiling",
    "profile": "profiling", "profile_compare": "profiling", "range": "profiling",
    "COUNT_THRESHOLD": "regression", "Change": "regression", "Regression": "regression", "change": "regression",
    "check_regression": "regression",
    "grid_table": "render.text", "finding_text": "render.findings", "report": "render.report",
    "plot_all": "render.plots", "plot_roofline": "render.plots", "plot_throughput": "render.plots",
    "plot_time": "render.plots",
    "SCHEMA_VERSION": "results", "Count": "results", "Finding": "results", "Measurement": "results",
    "load_result": "results", "SimGPU": "simulate", "SimWorld": "simulate",
    "FaultyTimer": "selfcheck", "SelfCheck": "selfcheck", "selfcheck": "selfcheck",
    "Store": "store", "StoreError": "store",
    "Peaks": "roofline", "peaks": "roofline",
    "StepResult": "step", "StepComparison": "step", "RangedStepResult": "step", "benchmark_step": "step", "benchmark_ranged_step": "step",
    "compare_steps": "step",
    "SweepResult": "sweep", "sweep": "sweep",
    "CudaEventTimer": "timers", "MpsEventTimer": "timers", "Reading": "timers", "Timer": "timers",
    "WallTimer": "timers",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        if name.startswith("_"):
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        try:  # a submodule, as in measurefirst.sweep
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


__version__ = "0.1.0"

__all__ = [
    "BenchmarkError",
    "COUNT_THRESHOLD",
    "Change",
    "Comparison",
    "Count",
    "CountError",
    "Store",
    "StoreError",
    "Verdict",
    "Profile",
    "ProfileDiff",
    "ProfileError",
    "change",
    "check_regression",
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
    "finding_text",
    "Interrupted",
    "LoadError",
    "load",
    "load_profile",
    "NoiseProfile",
    "noise_profile",
    "Result",
    "Regression",
    "StepComparison",
    "Measurement",
    "MpsEventTimer",
    "Options",
    "Reading",
    "SCHEMA_VERSION",
    "Timer",
    "WallTimer",
    "available_devices",
    "benchmark",
    "benchmark_ranged_step",
    "benchmark_step",
    "compare_steps",
    "peaks",
    "Peaks",
    "RangedStepResult",
    "StepResult",
    "sweep",
    "SweepResult",
    "resolve_device",
    "FaultyTimer",
    "SelfCheck",
    "selfcheck",
    "SimGPU",
    "SimWorld",
    "dtype_name",
    "load_result",
    "plot_all",
    "plot_roofline",
    "plot_throughput",
    "plot_time",
    "__version__",
]


from ._lazy import LazyPackage

sys.modules[__name__].__class__ = LazyPackage
