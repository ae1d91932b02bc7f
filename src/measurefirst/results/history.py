"""Saved runs as results: one run with where it came from, and the history of one name.

Both are read from the results store (:mod:`measurefirst.results.store`); they hold the full measurements,
so every statistic and every step change can be recomputed and rendered without re-running.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Sequence

from .base import ResultBase
from .changepoints import ChangeAnalysis, find_changes
from .protocol import build, each, migrate
from .regression_checks import StepPoint, point_steps, step_point, steps
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

    def changes(self) -> ChangeAnalysis:
        """The series read whole: segments, change points and drifts, each run weighed by its own
        precision, disturbed runs left out (:func:`measurefirst.results.changepoints.find_changes`)."""
        return changes_of([step_point(m) for m in self.measurements])

    def table(self) -> "HistoryTable":
        """What the history's table shows of each run (:class:`HistoryTable`)."""
        return HistoryTable(self.name, tuple(HistoryRow.of(r) for r in self.runs), self.store)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "schema_version": self.schema_version, "name": self.name, "store": self.store,
                "runs": [r.to_dict() for r in self.runs], "steps": self.steps(), "changes": self.changes().to_dict()}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "History":
        d = migrate(d, cls.kind, SCHEMA_VERSION)
        return build(cls, {**d, "store": d.get("store") or ""}, "history",
                     read={"runs": each(SavedRun.from_dict)})


@dataclass(frozen=True)
class HistoryRow:
    """One run of a history as its table shows it, with what its step needs: from the run's
    measurement (:meth:`of`) or from the store's columns and the run's stored summary
    (:func:`load_history_table`, no sample read); the same numbers either way."""

    id: int
    created: str
    git_commit: str | None
    #: the value (a time's median, seconds, or a count's events per call), its precision, the count's event
    point: StepPoint
    #: a time's headline 95% interval (seconds)
    ci: tuple[float, float] | None = None
    #: a count's spread over its repeats, and how many repeats
    spread: float = 0.0
    n: int = 0

    @classmethod
    def of(cls, r: SavedRun) -> "HistoryRow":
        m = r.measurement
        if isinstance(m, Count):
            return cls(r.id, r.created, r.git_commit, step_point(m), None, m.spread, m.n_repeats)
        return cls(r.id, r.created, r.git_commit, step_point(m), m.ci)


@dataclass(frozen=True)
class HistoryTable:
    """The rows of a history's table (:class:`HistoryRow`), oldest first: what ``measurefirst history NAME``
    shows, read from the store's columns without a sample (:func:`load_history_table`), or from a
    :class:`History` (:meth:`History.table`)."""

    name: str
    runs: tuple[HistoryRow, ...]
    store: str = ""

    def steps(self) -> list[int]:
        """The same indices as :meth:`History.steps`, from the rows."""
        return point_steps([r.point for r in self.runs])

    def changes(self) -> ChangeAnalysis:
        """The same analysis as :meth:`History.changes`, from the rows."""
        return changes_of([r.point for r in self.runs])


def changes_of(points: "list[StepPoint]") -> ChangeAnalysis:
    """:func:`~measurefirst.results.changepoints.find_changes` of a history's points: each run's value, its
    own 95% log half-width, and whether it was disturbed."""
    return find_changes([p.value for p in points], [p.log_half_width for p in points],
                        [bool(p.disturbed) for p in points])


def _row(r: "RunRow") -> HistoryRow | None:
    """A run's history row from its columns and stored summary; None when they cannot tell (the run is
    then read whole)."""
    from .store import read_summary

    found = read_summary(r)
    if found is None:
        return None
    point, spread = found
    if point.event:
        return HistoryRow(r.id, r.created, r.git_commit, point, None, spread, r.n_samples)
    ci = None if r.ci_low is None or r.ci_high is None else (r.ci_low, r.ci_high)
    return HistoryRow(r.id, r.created, r.git_commit, point, ci)


def load_history_table(store: "Store", name: str, last: int | None = None) -> HistoryTable:
    """:func:`load_history`'s table: the same rows, from the runs' columns and stored summaries (a run
    saved without one is read whole); runs without samples left out, and the kind of the latest kept."""
    from .store import MEASURED_KINDS

    return _table(store, name, store.list(name, kinds=MEASURED_KINDS, limit=last))


def _table(store: "Store", name: str, listed: Sequence["RunRow"]) -> HistoryTable:
    """The history table of the runs ``listed`` (oldest first)."""
    rows: list[HistoryRow] = []
    kinds: list[str] = []
    for r in listed:
        if r.summary == "":  # saved without samples
            continue
        row = _row(r)
        if row is None:
            m = store.get(r.id)
            if not usable(m):
                continue
            row = HistoryRow.of(SavedRun.from_row(r, m))
        rows.append(row)
        kinds.append(r.kind)
    kept = tuple(row for row, kind in zip(rows, kinds) if kind == kinds[-1])
    return HistoryTable(name, kept, str(store.path))


@dataclass(frozen=True)
class Series:
    """The history of one benchmark on one machine (``host``; ``""`` when the runs did not say), as a
    dashboard shows it: runs of different machines are never one series."""

    name: str
    host: str
    table: HistoryTable


def load_series(store: "Store", under: str | None = None) -> list[Series]:
    """Every benchmark of the store (or of the suite ``under``: that name and ``under/...``) split by
    machine, each from the runs' columns (no sample read), sorted by name then machine; series without a
    usable run left out."""
    from .store import MEASURED_KINDS

    out: list[Series] = []
    for name in sorted(store.names()):
        if under is not None and not (name == under or name.startswith(under + "/")):
            continue
        by_host: dict[str, list["RunRow"]] = {}
        for r in store.list(name, kinds=MEASURED_KINDS):
            by_host.setdefault(r.host or "", []).append(r)
        for host in sorted(by_host):
            table = _table(store, name, by_host[host])
            if table.runs:
                out.append(Series(name, host, table))
    return out


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


def load_suite_tables(store: "Store", members: Sequence[str]) -> list[HistoryTable]:
    """The history table of each benchmark of a suite (``members``: their full names), every run, those
    with runs only."""
    tables = [load_history_table(store, m) for m in members]
    return [t for t in tables if t.runs]
