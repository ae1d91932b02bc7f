"""measurefirst: correct measurement of PyTorch code by default. Measure first, then optimize."""

import importlib
import sys
from typing import Any


#: Where each public name lives. They are imported on first use, so that ``import measurefirst``
#: (and the ``measurefirst`` command, which Ctrl-C may interrupt while it starts) does not import
#: torch until something needs it.
_EXPORTS = {
    "Comparison": "results.comparison", "Verdict": "results.comparison", "compare": "tools.compare", "CountError": "measure.counting",
    "DeviceError": "measure.devices", "available_devices": "measure.devices", "resolve_device": "measure.devices",
    "Diagnosis": "results.diagnosis", "doctor": "tools.doctor",
    "BenchmarkError": "measure.engine", "Interrupted": "measure.engine", "Options": "measure.engine", "benchmark": "measure.engine",
    "dtype_name": "measure.dtypes",
    "LoadError": "results.loading", "load": "results.loading", "Result": "results.protocol",
    "NoiseProfile": "results.noise", "load_profile": "measure.noise", "noise_profile": "measure.noise",
    "Profile": "profiling", "ProfileDiff": "profiling", "ProfileError": "profiling", "decode_kernel": "profiling",
    "profile": "profiling", "profile_compare": "profiling", "range": "profiling",
    "COUNT_THRESHOLD": "results.regression_checks", "Change": "results.regression", "Regression": "results.regression", "change": "results.regression_checks",
    "check_regression": "results.regression_checks",
    "grid_table": "render.text", "finding_text": "render.findings", "report": "render.report",
    "plot_all": "render.plots", "plot_roofline": "render.plots", "plot_throughput": "render.plots",
    "plot_time": "render.plots",
    "SCHEMA_VERSION": "results.kinds", "Count": "results.kinds", "Finding": "results.kinds", "Measurement": "results.kinds",
    "load_result": "results.kinds", "SimGPU": "measure.simulate", "SimWorld": "measure.simulate",
    "FaultyTimer": "tools.selfcheck", "SelfCheck": "results.selfcheck", "selfcheck": "tools.selfcheck",
    "Store": "results.store", "StoreError": "results.store",
    "ChangeAnalysis": "results.changepoints", "find_changes": "results.changepoints",
    "History": "results.history", "load_history": "results.history", "load_ipython_extension": "notebook",
    "Peaks": "results.roofline", "peaks": "tools.roofline",
    "StepResult": "results.step", "StepComparison": "results.step", "RangedStepResult": "results.step", "benchmark_step": "tools.step", "benchmark_ranged_step": "tools.step",
    "compare_steps": "tools.step",
    "SweepResult": "results.sweep", "sweep": "tools.sweep",
    "CudaEventTimer": "measure.timers", "MpsEventTimer": "measure.timers", "Reading": "measure.timers", "Timer": "measure.timers",
    "WallTimer": "measure.timers",
}


#: Submodules that the documentation shows as ``from measurefirst import progress``: served from their
#: folder without a warning (any other old submodule path warns; see ``_lazy.MOVED``).
_PUBLIC_SUBMODULES = {"progress": "measure.progress"}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        if name in _PUBLIC_SUBMODULES:
            return importlib.import_module(f"{__name__}.{_PUBLIC_SUBMODULES[name]}")
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


from ._version import __version__ as __version__


def _progress_line() -> Any:
    """The renderer's progress line on stderr, for a function asked to show its own
    (:data:`measurefirst.measure.progress.LINE`: the face wires the renderer into the measuring floor)."""
    from .render.progress import ProgressLine

    return ProgressLine()


def _wire_progress() -> None:
    from .measure import progress

    progress.LINE = _progress_line


_wire_progress()

__all__ = [
    "BenchmarkError",
    "COUNT_THRESHOLD",
    "Change",
    "Comparison",
    "Count",
    "CountError",
    "Store",
    "StoreError",
    "ChangeAnalysis",
    "find_changes",
    "History",
    "load_history",
    "load_ipython_extension",
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


from ._lazy import LazyPackage, install

install()  # the module paths of the flat layout, for one release (measurefirst.engine, ...)
sys.modules[__name__].__class__ = LazyPackage
