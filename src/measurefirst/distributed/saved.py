"""Runs of many ranks in the results store: the regression check of two saved runs of collectives or of a
rank group (bench or compare under torchrun), and the history of one name.

* **collectives**: each op and size in both runs is a :class:`~measurefirst.tools.regression.Change` of the time
  (the slowest rank's median per call); at one world size a time ratio is the inverse busbw ratio, so a
  regression is a busbw drop, and each one is a ``busbw_drop`` finding naming the op and the size. A
  collectives run keeps each rank's median, not its samples: the interval holds the run-to-run spread only
  (measured from the name's history when it has :data:`~measurefirst.tools.regression.RUN_TO_RUN_MIN_RUNS` runs,
  else assumed, and the check says so), and the default threshold is :data:`COLLECTIVES_THRESHOLD`.
* **rank groups**: each rank's measurement of each label is paired with the same rank's in the other run
  (:func:`measurefirst.tools.regression.change`, full intervals); a rank that is a straggler now and was not
  before is a ``new_straggler`` finding naming the rank and its node. Both findings fail a gate.
* **group steps** (``step --ddp/--fsdp``): each rank's step time is a change of its per-step samples (full
  intervals, :func:`~measurefirst.tools.regression.change`); each rank's *compute* time in each phase (the phase less
  its wait in collectives: a slow rank's phase, not the others' wait for it) keeps a median only, so its
  interval holds the run-to-run spread alone, like collectives, and a phase change smaller than
  :data:`~measurefirst.distributed.step.STRAGGLER_MIN_STEP_FRACTION` of the step is never a regression. A
  rank and phase that straggle now and did not before is a ``new_straggler`` finding naming the rank, its node
  and the phase; the group's tokens/s (samples/s without a sequence length) before and after is a
  ``group_throughput`` note.

Nothing here measures or prints.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Sequence

from ..results.findings import Finding, found
from ..results.base import ResultBase
from ..results.collectives import CollectivePoint, CollectivesResult
from ..results.protocol import build, each, migrate
from ..results.regression import Change, Regression
from ..tools.regression import change, check_fraction, run_to_run_cv

if TYPE_CHECKING:  # pragma: no cover
    from ..results.kinds import Measurement
    from ..results.store import Store
    from ..results.group_step import GroupStepResult

#: The kinds of results of many ranks: a check or a history of them is this module's.
GROUP_KINDS = ("collectives", "rank_group", "rank_comparison", "group_step")
#: Default threshold of a check of collectives: a busbw drop beyond this fraction (and beyond the
#: interval) is a regression. Bandwidth over a shared fabric moves more from run to run than a kernel's time.
COLLECTIVES_THRESHOLD = 0.10
#: Version of a :class:`GroupHistory`'s stored form.
SCHEMA_VERSION = 1


def point_label(p: "CollectivePoint") -> str:
    return f"{p.op} {p.size}"


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
    if base.kind == "group_step":
        return _check_steps(base, new, base_name, new_name, threshold, gate, run_to_run, run_to_run_source)
    return _check_ranks(base, new, base_name, new_name, threshold, gate, run_to_run, run_to_run_source)


def _ok(p: "CollectivePoint") -> bool:
    return p.error is None and math.isfinite(p.seconds) and p.seconds > 0


def point_change(base: "CollectivePoint", new: "CollectivePoint", threshold: float, cv: float, source: str) -> Change:
    """The change of one op and size (see :func:`median_change`)."""
    return median_change(point_label(new), base.seconds, new.seconds, threshold, cv, source)


def median_change(label: str, base: float, new: float, threshold: float, cv: float, source: str) -> Change:
    """The change of a time of which each run kept its median only: the ratio with an interval of both runs'
    run-to-run spread ``cv`` (a relative standard deviation; its ``source``) added in quadrature on the log
    scale."""
    from ..measure.stats import Z95

    ratio = new / base
    hw = math.hypot(math.log1p(Z95 * cv), math.log1p(Z95 * cv))
    lo, hi = ratio * math.exp(-hw), ratio * math.exp(hw)
    return Change(label, base, new, ratio, lo, hi,
                  regression=lo > 1.0 and ratio > 1.0 + threshold, improvement=hi < 1.0 and ratio < 1 / (1 + threshold),
                  threshold=threshold, run_to_run=cv, run_to_run_source=source,
                  run_to_run_spreads=(cv, cv), run_to_run_sources=(source, source))


def _spread(run_to_run: float | None, source: str) -> tuple[float, str]:
    """The run-to-run spread of a check of medians and its source: given (or from the history), else assumed."""
    from ..tools.regression import RUN_TO_RUN_CV

    if run_to_run is not None:
        check_fraction("run_to_run", run_to_run, "0.02 (2%)")
        return run_to_run, source or "given"
    return RUN_TO_RUN_CV, "assumed"


def _check_collectives(base: "CollectivesResult", new: "CollectivesResult", base_name: str, new_name: str,
                       threshold: float | None, gate: bool, run_to_run: float | None, source: str) -> Regression:
    threshold = COLLECTIVES_THRESHOLD if threshold is None else threshold
    check_fraction("threshold", threshold, "0.1 (10%)")
    cv, source = _spread(run_to_run, source)
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


def step_measurement(g: "GroupStepResult", rank: int) -> "Measurement":
    """Rank ``rank``'s step times in ``g`` (one sample a timed step) as a measurement, labelled ``step``, with
    the rank's host as its machine."""
    from ..results.kinds import Measurement, Stop

    r = g.ranks[rank]
    return Measurement("step", g.device, "step", tuple(x * 1e9 for x in r.step_samples_s),
                       (1,) * len(r.step_samples_s), None, None, None, None,
                       Stop("trials", True, 0.0, sum(r.step_samples_s)), env={**g.env, "hostname": r.host})


def _check_steps(base: "GroupStepResult", new: "GroupStepResult", base_name: str, new_name: str,
                 threshold: float | None, gate: bool, run_to_run: float | None, source: str) -> Regression:
    from dataclasses import replace

    from ..results.group_step import STRAGGLER_MIN_STEP_FRACTION

    cv, phase_source = _spread(run_to_run, source)
    t = 0.0 if threshold is None else threshold
    check_fraction("threshold", t, "0.05 (5%)")
    changes: list[Change] = []
    unmatched: list[str] = []
    for old, now in zip(base.ranks, new.ranks):
        label = f"step · rank {now.rank}"
        try:
            changes.append(change(step_measurement(base, old.rank), step_measurement(new, now.rank),
                                  threshold=threshold, label=label, run_to_run=run_to_run, run_to_run_source=source))
        except ValueError:  # no step samples on a side
            unmatched.append(label)
        was, comp = old.compute_phase_s, now.compute_phase_s
        for phase in dict.fromkeys([*was, *comp]):
            label = f"{phase} · rank {now.rank}"
            if not (was.get(phase, 0.0) > 0 and comp.get(phase, 0.0) > 0):
                unmatched.append(label)
                continue
            c = median_change(label, was[phase], comp[phase], t, cv, phase_source)
            if abs(comp[phase] - was[phase]) < STRAGGLER_MIN_STEP_FRACTION * old.step_s:  # too small to cost the step
                c = replace(c, regression=False, improvement=False)
            changes.append(c)
    return Regression(base_name, new_name, tuple(changes), tuple(unmatched), gate,
                      (*straggler_findings(base, new), *throughput_findings(base, new)))


def throughput_findings(base: "GroupStepResult", new: "GroupStepResult") -> tuple[Finding, ...]:
    """A ``group_throughput`` note: the group's tokens/s (else samples/s) in both runs."""
    for unit, a, b in (("tokens", base.tokens_per_s, new.tokens_per_s),
                       ("samples", base.samples_per_s, new.samples_per_s)):
        if a and b:
            return (found("group_throughput", b / a - 1, label=new.label, unit=unit, base=a, new=b),)
    return ()


def straggler_findings(base: Any, new: Any) -> tuple[Finding, ...]:
    """``new_straggler`` when ``new`` (a rank group) has a straggler that ``base`` did not have; for group steps,
    each phase whose straggler is new (naming the phase)."""
    if new.kind == "group_step":
        return _phase_stragglers(base, new)
    if new.kind != "rank_group":
        return ()
    s, was = new.summary, base.summary.straggler
    if s.straggler is None or s.straggler == was:
        return ()
    from ..results.layout import node_of

    node = node_of(new.nodes, s.straggler) or "?"
    return (found("new_straggler", s.straggler_ratio, threshold=1 + s.threshold, label=new.label, rank=s.straggler,
                  node=node, **({} if was is None else {"before_rank": was})),)


def _phase_stragglers(base: "GroupStepResult", new: "GroupStepResult") -> tuple[Finding, ...]:
    from ..results.layout import node_words

    was = {st.phase: st.rank for st in base.stragglers}
    out = []
    for st in new.stragglers:
        if was.get(st.phase) == st.rank:
            continue
        r = new.ranks[st.rank]
        before: dict[str, Any] = {} if st.phase not in was else {"before_rank": was[st.phase]}
        out.append(found("new_straggler", st.ratio, threshold=1 + new.threshold, label=new.label, rank=st.rank,
                         node=node_words({"host": r.host, "local_rank": r.local_rank}), phase=st.phase,
                         cost_ns=st.cost_s * 1e9, **before))
    return tuple(out)


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
            series = [[p.seconds for r in self.runs for p in r.result.points if (p.op, p.size_bytes) == key and _ok(p)]
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

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "GroupHistory":
        from ..results.protocol import from_dict

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
    from ..results.history import load_history, load_history_table

    h = (load_history_table if table else load_history)(store, name, last)
    if latest and not h.runs:
        rows = store.list(name)
        from ..results.store import MEASURED_KINDS

        kinds = sorted({r.kind for r in rows})
        why = (f"{'has' if len(rows) == 1 else 'have'} no samples" if set(kinds) <= set(MEASURED_KINDS) else
               f"{'is' if len(rows) == 1 else 'are'} {' and '.join(kinds)}, which a history does not show (it shows "
               f"timings, counts, {', '.join(GROUP_KINDS)})")
        raise ValueError(f"{len(rows)} run{'s' if len(rows) > 1 else ''} named {name!r} in {store.path} {why}; "
                         f"`measurefirst report @{name}` shows the latest, `measurefirst runs list {name}` lists "
                         f"them")
    return h


def saved_group(results: Sequence[Any]) -> bool:
    """Whether ``results`` (what two targets name) are results of many ranks."""
    return any(getattr(r, "kind", None) in GROUP_KINDS for r in results)
