"""The history of one name of runs of many ranks (:data:`~measurefirst.results.group.GROUP_KINDS`: collectives,
rank groups, group steps) in the results store, oldest first, each run checked against the one before
(:func:`measurefirst.results.group_checks.check_groups`), and :func:`history_of`, the history of any name."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from .group_checks import check_groups
from .regression_checks import run_to_run_cv
from .base import ResultBase
from .collectives import point_label, usable
from .findings import Finding
from .group import GROUP_KINDS
from .protocol import build, each, migrate
from .regression import Regression

if TYPE_CHECKING:  # pragma: no cover
    from .store import Store

#: Version of a :class:`GroupHistory`'s stored form.
SCHEMA_VERSION = 1


@dataclass(frozen=True)
class GroupRun:
    """One saved run of many ranks, with its run id, name, date and git commit."""

    id: int
    name: str
    created: str
    git_commit: str | None
    result: Any

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "created": self.created, "git_commit": self.git_commit,
                "result": self.result.to_dict()}


@dataclass(frozen=True)
class GroupHistory(ResultBase):
    """Every saved run of one name of one of :data:`GROUP_KINDS`, oldest first, with the regression check of
    each run against the one before (:meth:`checks`)."""

    name: str
    runs: tuple[GroupRun, ...]
    store: str = ""

    kind: ClassVar[str] = "group_history"
    schema_version: ClassVar[int] = SCHEMA_VERSION

    @property
    def label(self) -> str:
        return self.name

    @property
    def result_kind(self) -> str:
        return str(self.runs[-1].result.kind) if self.runs else ""

    @property
    def complete(self) -> bool:
        return all(r.result.complete for r in self.runs)

    def checks(self) -> list[Regression | None]:
        """The check of each run against the one before (None for the first run, and for a pair that cannot
        be compared: another world size, nothing in common). The spread comes from the history's medians."""
        out: list[Regression | None] = [None]
        cv = self.spread()
        for a, b in zip(self.runs, self.runs[1:]):
            try:
                out.append(check_groups(a.result, b.result, base_name=f"#{a.id}", new_name=f"#{b.id}",
                                        run_to_run=cv, run_to_run_source="history" if cv is not None else ""))
            except ValueError:
                out.append(None)
        return out

    def spread(self) -> float | None:
        """Collectives and group steps (which keep medians): the run-to-run spread of the runs' times, the largest
        over the ops and sizes (the ranks and phases) (a gate must not fail unchanged code), or None with fewer
        than 8 runs of every one."""
        if self.result_kind == "group_step":
            series = [cells for _, cells in self.phase_rows()]
        elif self.result_kind == "collectives":
            keys = {(p.op, p.size_bytes) for r in self.runs for p in r.result.points}
            series = [[p.seconds for r in self.runs for p in r.result.points if (p.op, p.size_bytes) == key and usable(p)]
                      for key in keys]
        else:
            return None
        cvs = [cv for xs in series if (cv := run_to_run_cv([x for x in xs if x is not None])) is not None]
        return max(cvs) if cvs else None

    def phase_rows(self) -> list[tuple[str, list[float | None]]]:
        """Group steps: each rank's step (``"step · rank 1"``) and its compute time in each phase
        (``"backward · rank 1"``), seconds, in each run (None where the run did not have it)."""
        rows: dict[str, list[float | None]] = {}
        for i, run in enumerate(self.runs):
            for r in run.result.ranks:
                for label, x in ((f"step · rank {r.rank}", r.step_s),
                                 *((f"{p} · rank {r.rank}", x) for p, x in r.compute_phase_s.items())):
                    rows.setdefault(label, [None] * len(self.runs))[i] = x
        return list(rows.items())

    def busbw_rows(self) -> list[tuple[str, list[float | None]]]:
        """Collectives: each op and size (``"all_reduce 64K"``) with its busbw in bytes/s in each run (None
        where the run did not measure it)."""
        keys = list(dict.fromkeys((p.op, p.size_bytes) for run in self.runs for p in run.result.points))
        rows = []
        for op, size in keys:
            cells: list[float | None] = []
            label = ""
            for run in self.runs:
                p = next((p for p in run.result.points if (p.op, p.size_bytes) == (op, size) and usable(p)), None)
                cells.append(None if p is None else p.busbw(run.result.world_size))
                label = label or ("" if p is None else point_label(p))
            rows.append((label or op, cells))
        return rows

    @property
    def findings(self) -> tuple[Finding, ...]:
        """The latest check's findings (a busbw drop, a new straggler) and the latest run's own."""
        last = self.checks()[-1] if self.runs else None
        return (*(last.findings if last is not None else ()), *(self.runs[-1].result.findings if self.runs else ()))

    def steps(self) -> list[int]:
        """Indices of runs that regressed against the run before (a slower change or an error finding)."""
        return [i for i, c in enumerate(self.checks())
                if c is not None and (any(x.regression for x in c.changes) or any(f.severity == "error"
                                                                                 for f in c.findings))]

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "schema_version": self.schema_version, "name": self.name, "store": self.store,
                "runs": [r.to_dict() for r in self.runs], "steps": self.steps()}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "GroupHistory":
        from .protocol import from_dict

        def run(v: Any, where: str) -> GroupRun:
            # a run without its date (null or absent) was saved before dates were kept
            return build(GroupRun, {**v, "created": v.get("created") or ""} if isinstance(v, dict) else v, where,
                         read={"result": lambda r, _: from_dict(r)})

        d = migrate(d, cls.kind, SCHEMA_VERSION)
        return build(cls, {**d, "store": d.get("store") or ""}, "group_history", read={"runs": each(run)})


def load_group_history(store: "Store", name: str, kind: str) -> GroupHistory:
    """The saved runs of ``name`` of ``kind`` (one of :data:`GROUP_KINDS`) in ``store``, oldest first."""
    rows = store.list(name, kinds=[kind])
    return GroupHistory(name, tuple(GroupRun(r.id, r.name, r.created, r.git_commit, store.result(r.id)) for r in rows),
                        str(store.path))


def history_of(store: "Store", name: str, last: int | None = None, *, table: bool = False) -> Any:
    """The history of ``name``: a :class:`GroupHistory` when its latest run is of many ranks, else a
    :class:`measurefirst.results.history.History` of its measurements. ``ValueError`` when runs of that name are saved
    but none is of a kind a history shows (or none has samples), saying which kinds they are and what shows
    them; an empty history when there are no runs of that name. ``last``: only the latest runs of a history
    of measurements (only those are read). ``table``: of a history of measurements, only its table
    (:class:`measurefirst.results.history.HistoryTable`, read from the store's columns: no sample is read)."""
    latest = store.list(name, limit=1)
    if latest and latest[-1].kind in GROUP_KINDS:
        return load_group_history(store, name, latest[-1].kind)
    from .history import load_history, load_history_table

    h = (load_history_table if table else load_history)(store, name, last)
    if latest and not h.runs:
        rows = store.list(name)
        from .store import MEASURED_KINDS

        kinds = sorted({r.kind for r in rows})
        why = (f"{'has' if len(rows) == 1 else 'have'} no samples" if set(kinds) <= set(MEASURED_KINDS) else
               f"{'is' if len(rows) == 1 else 'are'} {' and '.join(kinds)}, which a history does not show (it shows "
               f"timings, counts, {', '.join(GROUP_KINDS)})")
        raise ValueError(f"{len(rows)} run{'s' if len(rows) > 1 else ''} named {name!r} in {store.path} {why}; "
                         f"`measurefirst report @{name}` shows the latest, `measurefirst runs list {name}` lists "
                         f"them")
    return h
