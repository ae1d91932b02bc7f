"""Immutable result types and their versioned JSON form.

A :class:`Measurement` keeps every raw sample with its loop count, so statistics can be
recomputed, filtered or merged later without re-running anything.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from functools import cached_property
from typing import Any, Callable

import numpy as np

from . import stats

#: Version of the stored JSON form; bump it and add a migration when the form changes.
SCHEMA_VERSION = 1
#: Samples are set aside as preempted only while at most this fraction of them were preempted;
#: beyond it the machine is too busy for that to leave a fair sample, so all are kept (and a
#: warning says so).
MAX_PREEMPTED_FRACTION_TO_DISCARD = 0.5


@dataclass(frozen=True)
class Finding:
    """A warning as data: what was found, the measured value, the threshold, the fix.

    The words that explain a code live in :mod:`measurefirst.render.text`; ``message`` is a short
    plain-text statement for logs and JSON.
    """

    code: str
    message: str
    value: float | None = None
    threshold: float | None = None
    fix: str = ""
    severity: str = "warning"  # "info", "warning" or "error"
    explanation: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Finding":
        return cls(**{k: d.get(k) for k in ("code", "message", "value", "threshold")},
                   fix=d.get("fix", ""), severity=d.get("severity", "warning"), explanation=d.get("explanation", ""))


@dataclass(frozen=True)
class Warmup:
    """What warm-up did: the cold first call, then ``calls`` more until steady."""

    cold_ns: float
    calls: int
    times_ns: tuple[float, ...]
    steady: bool
    seconds: float
    rule: str


@dataclass(frozen=True)
class Calibration:
    """How samples were formed: ``number`` calls per sample, chosen from the measured overhead."""

    number: int
    overhead_ns: float
    resolution_ns: float
    per_call_estimate_ns: float
    overhead_share: float
    reason: str


@dataclass(frozen=True)
class Stop:
    """Why sampling stopped and whether the precision target was met."""

    reason: str  # "precision", "budget", "noise", "trials", "max_samples", "interrupted", "error"
    target_met: bool
    precision: float
    seconds: float


@dataclass(frozen=True)
class Measurement:
    """The result of :func:`measurefirst.benchmark`: raw samples plus how they were taken.

    Per-call statistics, in seconds, are attributes: ``median``, ``mean``, ``min``, ``max``,
    ``stdev``, ``iqr``, ``ci`` (95% CI of the median), ``outliers``. They are computed from the
    samples that were *used*: all of them, except samples during which the operating system
    preempted the process, when those are a minority (see ``preempted``).
    """

    label: str
    device: str
    timer: str
    samples_ns: tuple[float, ...]
    numbers: tuple[int, ...]
    host_ns: tuple[float, ...] | None
    preempted: tuple[int, ...] | None
    warmup: Warmup | None
    calibration: Calibration | None
    stop: Stop
    options: dict[str, Any] = field(default_factory=dict)
    env: dict[str, Any] = field(default_factory=dict)
    warnings: tuple[Finding, ...] = ()
    complete: bool = True
    discard_preempted: bool = True
    #: event timers: host ns from the start event until a synchronize of the whole device returned
    synced_ns: tuple[float, ...] | None = None
    schema_version: int = SCHEMA_VERSION

    def __post_init__(self) -> None:
        if len(self.samples_ns) != len(self.numbers):
            raise ValueError("samples_ns and numbers must have the same length")

    # ---- samples ---------------------------------------------------------------------------
    @cached_property
    def per_call_ns(self) -> np.ndarray:
        """Every sample divided by its loop count (nanoseconds per call), in sampling order."""
        if not self.samples_ns:
            return np.zeros(0)
        return np.asarray(self.samples_ns, dtype=float) / np.asarray(self.numbers, dtype=float)

    @cached_property
    def used_mask(self) -> np.ndarray:
        return used_mask(self.preempted, len(self.samples_ns), self.discard_preempted)

    @property
    def n_samples(self) -> int:
        return len(self.samples_ns)

    @property
    def n_used(self) -> int:
        return int(self.used_mask.sum())

    @property
    def n_preempted(self) -> int:
        if self.preempted is None:
            return 0
        return int(sum(1 for p in self.preempted if p > 0))

    @property
    def total_calls(self) -> int:
        return int(sum(self.numbers))

    @cached_property
    def summary(self) -> stats.Summary | None:
        """Statistics of used per-call times in **seconds**; ``None`` if nothing was measured."""
        values = self.per_call_ns[self.used_mask]
        if values.size == 0:
            return None
        return stats.summarize(values / 1e9)

    def _stat(self, name: str) -> float:
        s = self.summary
        return math.nan if s is None else float(getattr(s, name))

    # ---- per-call statistics in seconds (explicit, no attribute forwarding) ----------------
    @property
    def median(self) -> float:
        return self._stat("median")

    @property
    def mean(self) -> float:
        return self._stat("mean")

    @property
    def min(self) -> float:
        return self._stat("min")

    @property
    def max(self) -> float:
        return self._stat("max")

    @property
    def stdev(self) -> float:
        return self._stat("stdev")

    @property
    def iqr(self) -> float:
        return self._stat("iqr")

    @property
    def outliers(self) -> int:
        s = self.summary
        return 0 if s is None else s.outliers

    @property
    def ci(self) -> tuple[float, float] | None:
        """95% confidence interval of the median per-call time, seconds (``None``: too few samples)."""
        s = self.summary
        if s is None or s.ci_low is None or s.ci_high is None:
            return None
        return (s.ci_low, s.ci_high)

    @property
    def ci_half_width_rel(self) -> float:
        s = self.summary
        return math.inf if s is None else s.ci_half_width_rel

    @property
    def host_median(self) -> float | None:
        """Median host (launch) time per call in seconds, for event timers; else ``None``."""
        if self.host_ns is None or not self.host_ns:
            return None
        per_call = np.asarray(self.host_ns, dtype=float) / np.asarray(self.numbers, dtype=float)
        return float(np.median(per_call)) / 1e9

    @property
    def synced_median(self) -> float | None:
        """Median host time per call until the whole device was idle, seconds (event timers only)."""
        if self.synced_ns is None or not self.synced_ns:
            return None
        per_call = np.asarray(self.synced_ns, dtype=float) / np.asarray(self.numbers, dtype=float)
        return float(np.median(per_call)) / 1e9

    @property
    def target_met(self) -> bool:
        return self.stop.target_met

    # ---- rendering --------------------------------------------------------------------------
    def __str__(self) -> str:
        from .render.text import measurement_line

        return measurement_line(self)

    def __repr__(self) -> str:
        if self.summary is None:
            return f"<Measurement {self.label!r}: no samples [{self.device}, {self.timer}]>"
        from .render.text import format_relative, format_time

        return (f"<Measurement {self.label!r}: median {format_time(self.median)} "
                f"±{format_relative(self.ci_half_width_rel)}, {self.n_used} samples × {self.numbers[-1]} calls "
                f"[{self.device}, {self.timer}]{'' if self.complete else ' incomplete'}"
                f"{', ' + str(len(self.warnings)) + ' warning(s)' if self.warnings else ''}>")

    def _repr_html_(self) -> str:
        from .render.report import fragment

        return fragment(self)

    # ---- JSON -------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        d = {
            "schema_version": self.schema_version,
            "kind": "measurement",
            "label": self.label,
            "device": self.device,
            "timer": self.timer,
            "complete": self.complete,
            "discard_preempted": self.discard_preempted,
            "samples_ns": list(self.samples_ns),
            "numbers": list(self.numbers),
            "host_ns": None if self.host_ns is None else list(self.host_ns),
            "preempted": None if self.preempted is None else list(self.preempted),
            "synced_ns": None if self.synced_ns is None else list(self.synced_ns),
            "warmup": None if self.warmup is None else asdict(self.warmup),
            "calibration": None if self.calibration is None else asdict(self.calibration),
            "stop": asdict(self.stop),
            "options": dict(self.options),
            "env": dict(self.env),
            "warnings": [w.to_dict() for w in self.warnings],
        }
        s = self.summary
        # Derived statistics are written for readers of the file; loading recomputes them.
        d["stats_seconds"] = None if s is None else asdict(s)
        return d

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False, default=_json_default)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Measurement":
        d = migrate(d)
        warmup = d.get("warmup")
        calib = d.get("calibration")
        return cls(
            label=d["label"],
            device=d["device"],
            timer=d["timer"],
            samples_ns=tuple(float(x) for x in d["samples_ns"]),
            numbers=tuple(int(x) for x in d["numbers"]),
            host_ns=None if d.get("host_ns") is None else tuple(float(x) for x in d["host_ns"]),
            preempted=None if d.get("preempted") is None else tuple(int(x) for x in d["preempted"]),
            synced_ns=None if d.get("synced_ns") is None else tuple(float(x) for x in d["synced_ns"]),
            warmup=None if warmup is None else Warmup(**{**warmup, "times_ns": tuple(warmup["times_ns"])}),
            calibration=None if calib is None else Calibration(**calib),
            stop=Stop(**d["stop"]),
            options=dict(d.get("options") or {}),
            env=dict(d.get("env") or {}),
            warnings=tuple(Finding.from_dict(w) for w in d.get("warnings") or ()),
            complete=bool(d.get("complete", True)),
            discard_preempted=bool(d.get("discard_preempted", True)),
            schema_version=SCHEMA_VERSION,
        )

    @classmethod
    def from_json(cls, text: str) -> "Measurement":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"not a measurefirst JSON result: {exc}") from exc
        if not isinstance(data, dict) or data.get("kind") != "measurement":
            raise ValueError("not a measurefirst measurement (missing \"kind\": \"measurement\")")
        return cls.from_dict(data)


def used_mask(preempted: tuple[int, ...] | None, n: int, discard: bool) -> np.ndarray:
    """Which samples the statistics use: all but the preempted ones, while those are a minority."""
    mask = np.ones(n, dtype=bool)
    if not discard or preempted is None or n == 0:
        return mask
    hit = np.asarray(preempted) > 0
    if hit.sum() > MAX_PREEMPTED_FRACTION_TO_DISCARD * n:
        return mask
    return ~hit


def _json_default(obj: Any) -> Any:
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating,)):
        return float(obj)
    return str(obj)


# ---- schema migration -----------------------------------------------------------------------
_MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {}


def migrate(d: dict[str, Any]) -> dict[str, Any]:
    """Bring a stored result up to :data:`SCHEMA_VERSION`, one version at a time."""
    version = d.get("schema_version")
    if not isinstance(version, int):
        raise ValueError("result has no integer schema_version; is it a measurefirst file?")
    if version > SCHEMA_VERSION:
        raise ValueError(
            f"result has schema_version {version}, newer than this measurefirst understands "
            f"({SCHEMA_VERSION}); upgrade measurefirst"
        )
    while version < SCHEMA_VERSION:
        d = _MIGRATIONS[version](d)
        version = d["schema_version"]
    return d
