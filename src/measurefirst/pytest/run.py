"""What the plugin records of each measurement a test made (:class:`Record`). The result of the run,
:class:`~measurefirst.results.pytest_run.PytestRun`, lives with the results and is re-exported here.
Nothing here imports pytest.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..results.kinds import Measurement, Stop
from ..results.pytest_run import (SCHEMA_VERSION as SCHEMA_VERSION, PytestBenchmark as PytestBenchmark,
                                  PytestComparison as PytestComparison, PytestRun as PytestRun)

if TYPE_CHECKING:  # pragma: no cover
    from ..results.regression import Change


@dataclass
class Record:
    """One measurement made by a test, with what the summary, the store and the JSON need."""

    name: str  # unique in the run: nodeid, nodeid::label, nodeid#2
    nodeid: str
    module: str  # the file part of the node id
    label: str | None  # candidate or explicit label
    measurement: Measurement
    mode: str  # "measure", "compare", "benchmark", "pedantic"
    param: str | None = None
    params: dict[str, Any] | None = None
    group: str | None = None
    extra_info: dict[str, Any] = field(default_factory=dict)
    comparison: int | None = None  # index into the session's comparisons
    change: Change | None = None
    baseline_missing: bool = False
    baseline_error: str | None = None
    regression: bool = False  # slower beyond the CI and the threshold, with a gate on
    undecided: bool = False  # a run too noisy to judge the change, with a gate on (never a regression)

    @property
    def display(self) -> str:
        """The name without its file: ``test_gelu[1024]``, ``TestA::test_b::fused``."""
        prefix = self.module + "::"
        return self.name[len(prefix):] if self.name.startswith(prefix) else self.name


def empty_measurement(name: str, device: str, reason: str, precision: float) -> Measurement:
    """A measurement with no samples: the function ran once and nothing was timed."""
    return Measurement(label=name, device=device, timer="none", samples_ns=(), numbers=(), host_ns=None,
                       preempted=None, warmup=None, calibration=None, stop=Stop(reason, False, precision, 0.0))
