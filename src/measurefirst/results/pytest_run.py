"""The result of a measuring pytest run (``pytest --mf-json PATH``): every measurement the tests made,
with its baseline change, and every comparison they made. A result kind like the others
(:mod:`measurefirst.results.protocol`): ``measurefirst.load`` reads it, the store keeps it, the HTML report
renders it. Nothing here imports pytest; :mod:`measurefirst.pytest.run` re-exports it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from .base import ResultBase
from .findings import Finding
from .protocol import build, of_kind

if TYPE_CHECKING:  # pragma: no cover
    from .comparison import Comparison
    from .regression import Change
    from .kinds import Measurement

#: Version of a :class:`PytestRun`'s stored form (version 1 is what ``--mf-json`` first wrote; it gave a
#: baseline change's flags in English words; version 4 added a change's disturbed reasons, which make it
#: undecided, and each side's run-to-run spread).
SCHEMA_VERSION = 4


@dataclass(frozen=True)
class PytestBenchmark:
    """One measurement a test made: ``name`` is unique in the run (nodeid, nodeid::label, nodeid#2),
    ``test`` the name without its file; ``comparison`` indexes :attr:`PytestRun.comparisons`."""

    name: str
    test: str
    nodeid: str
    measurement: "Measurement"
    label: str | None = None
    group: str | None = None
    mode: str = "measure"
    param: str | None = None
    params: dict[str, Any] | None = None
    extra_info: dict[str, Any] = field(default_factory=dict)
    comparison: int | None = None
    change: "Change | None" = None
    regression: bool = False

    def to_dict(self) -> dict[str, Any]:
        from dataclasses import asdict

        change = None if self.change is None else {**asdict(self.change), "flags": list(self.change.flags)}
        return {"name": self.name, "test": self.test, "nodeid": self.nodeid, "label": self.label,
                "group": self.group, "mode": self.mode, "param": self.param, "params": self.params,
                "extra_info": self.extra_info, "comparison": self.comparison, "change": change,
                "regression": self.regression, "measurement": self.measurement.to_dict()}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "PytestBenchmark":
        from .regression import Change
        from .kinds import Measurement

        if not isinstance(d, dict) or "measurement" not in d:
            raise ValueError("a pytest_run benchmark must be a JSON object holding its measurement")
        change = d.get("change")
        return build(cls, {**d, "test": d.get("test") or d.get("name"), "measurement": Measurement.from_dict(
                               d["measurement"], "pytest_run.benchmark.measurement"),
                           "change": None if change is None else Change.from_dict(change)}, "pytest_run.benchmark",
                     {"Measurement": Measurement, "Change": Change})


@dataclass(frozen=True)
class PytestComparison:
    """A comparison a test made (``measure.compare``), named like a benchmark."""

    name: str
    nodeid: str
    comparison: "Comparison"


@dataclass(frozen=True)
class PytestRun(ResultBase):
    """What ``pytest --mf-json`` writes: the run's settings, its benchmarks and its comparisons."""

    benchmarks: tuple[PytestBenchmark, ...]
    comparisons: tuple[PytestComparison, ...] = ()
    measured: bool = True
    simulated: bool = False
    baseline: str | None = None
    fail_if_slower: float | None = None
    environment: dict[str, Any] = field(default_factory=dict)
    measurefirst_version: str = ""

    kind: ClassVar[str] = "pytest_run"
    schema_version: ClassVar[int] = SCHEMA_VERSION

    @property
    def measurements(self) -> tuple["Measurement", ...]:
        return tuple(b.measurement for b in self.benchmarks)

    @property
    def complete(self) -> bool:
        return all(m.complete for m in self.measurements) and all(c.comparison.complete for c in self.comparisons)

    @property
    def findings(self) -> tuple["Finding", ...]:
        return tuple(f for m in self.measurements for f in m.findings)

    @property
    def regressions(self) -> tuple[PytestBenchmark, ...]:
        """The benchmarks slower than the baseline beyond the CI and the threshold (with a gate on)."""
        return tuple(b for b in self.benchmarks if b.regression)

    @property
    def undecided(self) -> tuple[PytestBenchmark, ...]:
        """The benchmarks whose change a disturbed run could not judge (too noisy; they never fail)."""
        return tuple(b for b in self.benchmarks if b.change is not None and b.change.undecided)

    def to_dict(self) -> dict[str, Any]:
        return {"schema_version": self.schema_version, "kind": self.kind,
                "measurefirst_version": self.measurefirst_version, "measured": self.measured,
                "simulated": self.simulated, "baseline": self.baseline, "fail_if_slower": self.fail_if_slower,
                "environment": self.environment, "benchmarks": [b.to_dict() for b in self.benchmarks],
                "comparisons": [{"name": c.name, "nodeid": c.nodeid, "comparison": c.comparison.to_dict()}
                                for c in self.comparisons]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "PytestRun":
        """Load what :meth:`to_dict` (``pytest --mf-json``) wrote, of any version."""
        from .comparison import Comparison

        d = of_kind(d, cls.kind, SCHEMA_VERSION)
        benchmarks, comparisons = d.get("benchmarks"), d.get("comparisons") or []
        if not (isinstance(benchmarks, (list, tuple)) and isinstance(comparisons, (list, tuple))
                and all(isinstance(c, dict) for c in comparisons)):
            raise ValueError("pytest_run.benchmarks and pytest_run.comparisons must be lists of objects")
        return build(cls, {**d, "benchmarks": tuple(PytestBenchmark.from_dict(b) for b in benchmarks),
                           "comparisons": tuple(build(PytestComparison, {**c, "comparison": Comparison.from_dict(
                               c.get("comparison"))}, "pytest_run.comparison", {"Comparison": Comparison})
                               for c in comparisons)}, "pytest_run")

    def __repr__(self) -> str:
        return (f"<PytestRun {len(self.benchmarks)} benchmark(s), {len(self.comparisons)} comparison(s), "
                f"{len(self.regressions)} regression(s)>")
