"""The package's names for type checkers: the package serves them lazily at run time (``_EXPORTS``,
``__getattr__``), so its ``__init__.py`` imports none of its submodules, not even for typing."""

from .results.comparison import Comparison as Comparison, Verdict as Verdict
from .tools.compare import compare as compare
from .measure.counting import CountError as CountError
from .measure.devices import DeviceError as DeviceError, available_devices as available_devices, resolve_device as resolve_device
from .results.diagnosis import Diagnosis as Diagnosis
from .tools.doctor import doctor as doctor
from .measure.engine import BenchmarkError as BenchmarkError, Interrupted as Interrupted, Options as Options, benchmark as benchmark
from .results.loading import LoadError as LoadError, load as load
from .measure.noise import load_profile as load_profile, noise_profile as noise_profile
from .results.noise import NoiseProfile as NoiseProfile
from .results.protocol import Result as Result
from .profiling import Profile as Profile, ProfileDiff as ProfileDiff, ProfileError as ProfileError, decode_kernel as decode_kernel, profile as profile, profile_compare as profile_compare, range as range
from .measure.dtypes import dtype_name as dtype_name
from .results.regression import Change as Change, Regression as Regression
from .results.regression_checks import COUNT_THRESHOLD as COUNT_THRESHOLD, change as change, check_regression as check_regression
from .render.plots import plot_all as plot_all, plot_roofline as plot_roofline, plot_throughput as plot_throughput, plot_time as plot_time
from .render.findings import finding_text as finding_text
from .render.report import report as report
from .render.text import grid_table as grid_table
from .results.kinds import SCHEMA_VERSION as SCHEMA_VERSION, Count as Count, Finding as Finding, Measurement as Measurement, load_result as load_result
from .results.selfcheck import SelfCheck as SelfCheck
from .tools.selfcheck import FaultyTimer as FaultyTimer, selfcheck as selfcheck
from .measure.simulate import SimGPU as SimGPU, SimWorld as SimWorld
from .results.roofline import Peaks as Peaks
from .tools.roofline import peaks as peaks
from .results.step import RangedStepResult as RangedStepResult, StepComparison as StepComparison, StepResult as StepResult
from .tools.step import benchmark_ranged_step as benchmark_ranged_step, benchmark_step as benchmark_step, compare_steps as compare_steps
from .results.store import Store as Store, StoreError as StoreError
from .results.changepoints import ChangeAnalysis as ChangeAnalysis, find_changes as find_changes
from .results.history import History as History, load_history as load_history
from .notebook import load_ipython_extension as load_ipython_extension
from .results.sweep import SweepResult as SweepResult
from .tools.sweep import sweep as sweep
from .measure.timers import CudaEventTimer as CudaEventTimer, MpsEventTimer as MpsEventTimer, Reading as Reading, Timer as Timer, WallTimer as WallTimer

_EXPORTS: dict[str, str]
def __dir__() -> list[str]: ...
from ._version import __version__ as __version__
__all__: list[str]
