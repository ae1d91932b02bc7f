"""Runs of many ranks in the results store: the regression check of two saved runs of collectives or of a
rank group (bench or compare under torchrun), and the history of one name.

* **collectives**: each op and size in both runs is a :class:`~measurefirst.regression.Change` of the time
  (the slowest rank's median per call); at one world size a time ratio is the inverse busbw ratio, so a
  regression is a busbw drop, and each one is a ``busbw_drop`` finding naming the op and the size. A
  collectives run keeps each rank's median, not its samples: the interval holds the run-to-run spread only
  (measured from the name's history when it has :data:`~measurefirst.regression.RUN_TO_RUN_MIN_RUNS` runs,
  else assumed, and the check says so), and the default threshold is :data:`COLLECTIVES_THRESHOLD`.
* **rank groups**: each rank's measurement of each label is paired with the same rank's in the other run
  (:func:`measurefirst.regression.change`, full intervals); a rank that is a straggler now and was not
  before is a ``new_straggler`` finding naming the rank and its node. Both findings fail a gate.

Nothing here measures or prints.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Sequence

from ..findings import Finding, found
from ..protocol import migrate
from ..regression import Change, Regression, change, check_fraction, run_to_run_cv

if TYPE_CHECKING:  # pragma: no cover
    from ..store import Store
    from .collectives import CollectivePoint, CollectivesResult

#: The kinds of results of many ranks: a check or a history of them is this module's.
GROUP_KINDS = ("collectives", "rank_group", "rank_comparison")
#: Default threshold of a check of collectives: a busbw drop beyond this fraction (and beyond the
#: interval) is a regression. Bandwidth over a shared fabric moves more from run to run than a kernel's time.
COLLECTIVES_THRESHOLD = 0.10
#: Version of a :class:`GroupHistory`'s stored form.
SCHEMA_VERSION = 1


def point_label(p: "CollectivePoint") -> str:
    from .bandwidth import human_bytes

    return f"{p.op} {human_bytes(p.size_bytes)}"


def check_groups(base: Any, new: Any, *, base_name: str = "base", new_name: str = "new",
                 threshold: float | None = None, gate: bool = False, run_to_run: float | None = None,
                 run_to_run_source: str = "") -> Regression:
    """The regression check of ``new`` against ``base``, two results of one of :data:`GROUP_KINDS`.
    ``ValueError`` when they cannot be compared (other kinds, other world sizes, nothing in common)."""
    if base.kind != new.kind:
        raise ValueError(f"cannot compare a {base.kind} result with a {new.kind} result")
    if base.kind not in GROUP_KINDS:
        raise ValueError(f"{base.kind} is not a result of many ranks ({', '.join(GROUP_KINDS)})")
    if base.world_size != new.world_size:
        raise ValueError(f"{base_name} ran on {base.world_size} ranks and {new_name} on {new.world_size}: "
                         f"compare runs of the same world size")
    if base.kind == "collectives":
        return _check_collectives(base, new, base_name, new_name, threshold, gate, run_to_run, run_to_run_source)
    return _check_ranks(base, new, base_name, new_name, threshold, gate, run_to_run, run_to_run_source)


def _ok(p: "CollectivePoint") -> bool:
    return p.error is None and math.isfinite(p.seconds) and p.seconds > 0


def point_change(base: "CollectivePoint", new: "CollectivePoint", threshold: float, cv: float, source: str) -> Change:
    """The change of one op and size: the time ratio with an interval of both runs' run-to-run spread
    ``cv`` (a relative standard deviation; its ``source``) added in quadrature on the log scale."""
    from ..stats import Z95

    ratio = new.seconds / base.seconds
    hw = math.hypot(math.log1p(Z95 * cv), math.log1p(Z95 * cv))
    lo, hi = ratio * math.exp(-hw), ratio * math.exp(hw)
    return Change(point_label(new), base.seconds, new.seconds, ratio, lo, hi,
                  regression=lo > 1.0 and ratio > 1.0 + threshold, improvement=hi < 1.0 and ratio < 1 / (1 + threshold),
                  threshold=threshold, run_to_run=cv, run_to_run_source=source,
                  run_to_run_spreads=(cv, cv), run_to_run_sources=(source, source))


def _check_collectives(base: "CollectivesResult", new: "CollectivesResult", base_name: str, new_name: str,
                       threshold: float | None, gate: bool, run_to_run: float | None, source: str) -> Regression:
    from ..regression import RUN_TO_RUN_CV

    if run_to_run is not None:
        check_fraction("run_to_run", run_to_run, "0.02 (2%)")
    threshold = COLLECTIVES_THRESHOLD if threshold is None else threshold
    check_fraction("threshold", threshold, "0.1 (10%)")
    cv, source = (run_to_run, source or "given") if run_to_run is not None else (RUN_TO_RUN_CV, "assumed")
    olds = {(p.op, p.size_bytes, p.dtype): p for p in base.points if _ok(p)}
    news = {(p.op, p.size_bytes, p.dtype): p for p in new.points if _ok(p)}
    changes, findings = [], []
    n = new.world_size
    for key, p in news.items():
        if key not in olds:
            continue
        c = point_change(olds[key], p, threshold, cv, source)
        changes.append(c)
        if c.regression:
            findings.append(found("busbw_drop", 1 - 1 / c.ratio, threshold=threshold, label=p.op,
                                  size=point_label(p).split(" ", 1)[1], base=f"{olds[key].busbw(n) / 1e9:.4g}",
                                  new=f"{p.busbw(n) / 1e9:.4g}"))
    if not changes:
        raise ValueError(f"no collective and size was measured in both {base_name} and {new_name}")
    unmatched = sorted(point_label(p) for k, p in {**olds, **news}.items() if (k in olds) != (k in news))
    return Regression(base_name, new_name, tuple(changes), tuple(unmatched), gate, tuple(findings))


def _check_ranks(base: Any, new: Any, base_name: str, new_name: str, threshold: float | None, gate: bool,
                 run_to_run: float | None, source: str) -> Regression:
    olds = {(m.label, r): m for r, m in base.rank_measurements()}
    news = {(m.label, r): m for r, m in new.rank_measurements()}
    changes = tuple(change(olds[k], m, threshold=threshold, label=f"{k[0]} · rank {k[1]}", run_to_run=run_to_run,
                           run_to_run_source=source) for k, m in news.items() if k in olds)
    if not changes:
        raise ValueError(f"no label was measured on the same rank in both {base_name} and {new_name}")
    unmatched = sorted(f"{k[0]} · rank {k[1]}" for k in {**olds, **news} if (k in olds) != (k in news))
    return Regression(base_name, new_name, changes, tuple(unmatched), gate, straggler_findings(base, new))


def straggler_findings(base: Any, new: Any) -> tuple[Finding, ...]:
    """``new_straggler`` when ``new`` (a rank group) has a straggler that ``base`` did not have."""
    if new.kind != "rank_group":
        return ()
    s, was = new.summary, base.summary.straggler
    if s.straggler is None or s.straggler == was:
        return ()
    from .layout import node_of

    node = node_of(new.nodes, s.straggler) or "?"
    return (found("new_straggler", s.straggler_ratio, threshold=1 + s.threshold, label=new.label, rank=s.straggler,
                  node=node, **({} if was is None else {"before_rank": was})),)


# ---- history -------------------------------------------------------------------------------------
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
class GroupHistory:
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
        """Collectives: the run-to-run spread of the runs' times, the largest over the ops and sizes (a gate must
        not fail unchanged code), or None with fewer than 8 runs of every op and size."""
        if self.result_kind != "collectives":
            return None
        keys = {(p.op, p.size_bytes) for r in self.runs for p in r.result.points}
        cvs = [cv for key in keys
               if (cv := run_to_run_cv([p.seconds for r in self.runs for p in r.result.points
                                        if (p.op, p.size_bytes) == key and _ok(p)])) is not None]
        return max(cvs) if cvs else None

    def busbw_rows(self) -> list[tuple[str, list[float | None]]]:
        """Collectives: each op and size (``"all_reduce 64K"``) with its busbw in bytes/s in each run (None
        where the run did not measure it)."""
        keys = list(dict.fromkeys((p.op, p.size_bytes) for run in self.runs for p in run.result.points))
        rows = []
        for op, size in keys:
            cells: list[float | None] = []
            label = ""
            for run in self.runs:
                p = next((p for p in run.result.points if (p.op, p.size_bytes) == (op, size) and _ok(p)), None)
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

    def to_json(self, indent: int | None = 2) -> str:
        from ..safeio import strict_json

        return strict_json(self.to_dict(), indent=indent)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "GroupHistory":
        from ..protocol import from_dict

        d = migrate(d, cls.kind, SCHEMA_VERSION)
        try:
            runs = tuple(GroupRun(int(r["id"]), str(r["name"]), str(r.get("created") or ""),
                                  None if r.get("git_commit") is None else str(r["git_commit"]), from_dict(r["result"]))
                         for r in d["runs"])
            return cls(str(d["name"]), runs, str(d.get("store") or ""))
        except KeyError as exc:
            raise ValueError(f"group history is missing the field {exc}") from exc

    def __str__(self) -> str:
        from ..render.ranks import group_history_lines

        return "\n".join(group_history_lines(self))

    def _repr_html_(self) -> str:
        from ..render.report import fragment

        return fragment(self)


def load_group_history(store: "Store", name: str, kind: str) -> GroupHistory:
    """The saved runs of ``name`` of ``kind`` (one of :data:`GROUP_KINDS`) in ``store``, oldest first."""
    rows = store.list(name, kinds=[kind])
    return GroupHistory(name, tuple(GroupRun(r.id, r.name, r.created, r.git_commit, store.result(r.id)) for r in rows),
                        str(store.path))


def history_of(store: "Store", name: str) -> Any:
    """The history of ``name``: a :class:`GroupHistory` when its latest run is of many ranks, else a
    :class:`measurefirst.history.History` of its measurements."""
    rows = store.list(name)
    if rows and rows[-1].kind in GROUP_KINDS:
        return load_group_history(store, name, rows[-1].kind)
    from ..history import load_history

    return load_history(store, name)


def saved_group(results: Sequence[Any]) -> bool:
    """Whether ``results`` (what two targets name) are results of many ranks."""
    return any(getattr(r, "kind", None) in GROUP_KINDS for r in results)
