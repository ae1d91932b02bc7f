"""The result of :func:`measurefirst.doctor`: a :class:`Diagnosis` (its findings as data, the checks that
ran and why others did not). The type lives with the results (renderers read it);
:mod:`measurefirst.tools.doctor` runs the checks and re-exports it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any, ClassVar

from .base import ResultBase
from .findings import Finding
from .kinds import Measurement
from .protocol import build, migrate

#: Why a check did not run (the values of :attr:`Diagnosis.skipped`; the renderer has the words): the clock
#: is simulated (no profile, device or memory to look at), or the function failed before the check.
SKIP_SIMULATED, SKIP_FUNCTION_FAILED = "simulated", "function_failed"
#: One call outlasted the budget: the checks that would call the function again are not run.
SKIP_BUDGET = "budget"
#: Ctrl-C stopped the doctor before the check (what it found so far is kept and shown, exit 130).
SKIP_INTERRUPTED = "interrupted"
#: Version of a :class:`Diagnosis`'s stored form; version 0 (none written) is version 1's form; version 1
#: gave the reasons a check did not run in English words (see :data:`measurefirst.results.protocol.SKIP_WORDS_V1`);
#: version 3 carries the function's measurement (absent from older forms: not kept then).
SCHEMA_VERSION = 3


@dataclass(frozen=True)
class Diagnosis(ResultBase):
    """What :func:`~measurefirst.doctor` found. ``findings`` are data; ``str()`` explains them in words."""

    label: str
    device: str
    findings: tuple[Finding, ...]
    checks: tuple[str, ...]  # the checks that completed
    skipped: dict[str, str] = field(default_factory=dict)  # check -> why it did not run: a SKIP_ code
    error: str | None = None  # the function's failure, with where it happened
    evidence: dict[str, Any] = field(default_factory=dict)
    env: dict[str, Any] = field(default_factory=dict)
    measurement: Measurement | None = None  # the function's own time, as benchmark() measured it

    kind: ClassVar[str] = "diagnosis"
    schema_version: ClassVar[int] = SCHEMA_VERSION

    @property
    def complete(self) -> bool:
        """False when the function failed or Ctrl-C stopped the doctor, so that some checks could not run."""
        return self.error is None and SKIP_INTERRUPTED not in self.skipped.values()

    @property
    def warnings(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity in ("warning", "error"))

    @property
    def ok(self) -> bool:
        return self.error is None and not self.warnings

    def codes(self) -> list[str]:
        return [f.code for f in self.findings]

    def __repr__(self) -> str:
        return (f"<Diagnosis {self.label!r} on {self.device}: {len(self.warnings)} warning(s), "
                f"{len(self.findings)} finding(s){', failed' if self.error else ''}>")

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "schema_version": self.schema_version, **asdict(replace(self, measurement=None)),
                "measurement": None if self.measurement is None else self.measurement.to_dict()}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Diagnosis":
        """Load a diagnosis written by :meth:`to_dict` (``measurefirst doctor --json``)."""
        if not isinstance(d, dict) or d.get("kind") != cls.kind:
            raise ValueError("not a measurefirst diagnosis (missing \"kind\": \"diagnosis\")")
        d = migrate(d, cls.kind, SCHEMA_VERSION)
        findings = d.get("findings") or []
        if not isinstance(findings, (list, tuple)):
            raise ValueError(f"diagnosis.findings must be a list; got {type(findings).__name__}")
        measurement = d.get("measurement")
        return build(cls, {**d, "findings": tuple(Finding.from_dict(f, f"diagnosis.findings[{i}]")
                                                  for i, f in enumerate(findings)),
                           "measurement": None if measurement is None else Measurement.from_dict(measurement)},
                     "diagnosis")
