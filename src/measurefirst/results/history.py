"""Saved runs as results: one run with where it came from, and the history of one name.

Both are read from the results store (:mod:`measurefirst.results.store`); they hold the full measurements,
so every statistic and every step change can be recomputed and rendered without re-running.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from .base import ResultBase
from .protocol import build, each, migrate
from ..tools.regression import steps
from .kinds import Count, Finding, Measurement, load_result

if TYPE_CHECKING:  # pragma: no cover
    from .store import RunRow, Store

#: Version of the stored forms of :class:`SavedRun` and :class:`History`; version 0 (none written) is the same.
SCHEMA_VERSION = 1


@dataclass(frozen=True)
class SavedRun(ResultBase):
    """A result read from the store (a measurement, or an instruction count), with its run id, name,
    date and git commit."""

    id: int
    name: str
    created: str
    git_commit: str | None
    measurement: Measurement | Count

    kind: ClassVar[str] = "saved_run"
    schema_version: ClassVar[int] = SCHEMA_VERSION

    @property
    def complete(self) -> bool:
        return self.measurement.complete

    @property
    def findings(self) -> tuple[Finding, ...]:
        return self.measurement.findings

    @classmethod
    def from_row(cls, row: "RunRow", m: Measurement | Count) -> "SavedRun":
        return cls(row.id, row.name, row.created, row.git_commit, m)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "schema_version": self.schema_version, "id": self.id, "name": self.name, "created": self.created,
                "git_commit": self.git_commit, "measurement": self.measurement.to_dict()}

    @classmethod
    def from_dict(cls, d: dict[str, Any], where: str = "saved_run") -> "SavedRun":
        d = migrate(d, cls.kind, SCHEMA_VERSION)
        # a run without its date (null or absent) was saved before dates were kept
        return build(cls, {**d, "created": d.get("created") or ""}, where,
                     read={"measurement": lambda v, _: load_result(v)})


@dataclass(frozen=True)
class History(ResultBase):
    """Every saved run of one name, oldest first, with the runs where the time stepped."""

    name: str
    runs: tuple[SavedRun, ...]
    store: str = ""

    kind: ClassVar[str] = "history"
    schema_version: ClassVar[int] = SCHEMA_VERSION

    @property
    def complete(self) -> bool:
        return all(r.complete for r in self.runs)

    @property
    def findings(self) -> tuple[Finding, ...]:
        """The latest run's findings (the older runs' are history)."""
        return self.runs[-1].findings if self.runs else ()

    @property
    def measurements(self) -> list[Measurement | Count]:
        return [r.measurement for r in self.runs]

    def steps(self) -> list[int]:
        """Indices of runs that differ from the run before beyond both CIs (see :func:`regression.steps`)."""
        return steps(self.measurements)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "schema_version": self.schema_version, "name": self.name, "store": self.store,
                "runs": [r.to_dict() for r in self.runs], "steps": self.steps()}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "History":
        d = migrate(d, cls.kind, SCHEMA_VERSION)
        return build(cls, {**d, "store": d.get("store") or ""}, "history",
                     read={"runs": each(SavedRun.from_dict)})


def usable(m: Measurement | Count) -> bool:
    """Whether a result has a value to plot: samples (a measurement) or repeats (a count)."""
    return bool(m.counts) if isinstance(m, Count) else m.summary is not None


def load_history(store: "Store", name: str, last: int | None = None) -> History:
    """The history of ``name`` in ``store``: every run, or the latest ``last`` (only those are read);
    runs without samples are left out (they have no median). A name whose runs mix timings and counts
    keeps the kind of its latest run."""
    from .store import MEASURED_KINDS

    rows = store.list(name, kinds=MEASURED_KINDS, limit=last)
    runs = [SavedRun.from_row(r, m) for r, m in ((r, store.get(r.id)) for r in rows) if usable(m)]
    if runs:
        latest = type(runs[-1].measurement)
        runs = [r for r in runs if isinstance(r.measurement, latest)]
    return History(name, tuple(runs), str(store.path))
