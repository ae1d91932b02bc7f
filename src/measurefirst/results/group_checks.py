"""Runs of many ranks in the results store: the regression check of two saved runs of collectives or of a
rank group (bench or compare under torchrun). The history of one name is
:mod:`measurefirst.results.group_history`'s, which checks each run against the one before with
:func:`check_groups`.

* **collectives**: each op and size in both runs is a :class:`~measurefirst.results.regression_checks.Change` of the time
  (the slowest rank's median per call); at one world size a time ratio is the inverse busbw ratio, so a
  regression is a busbw drop, and each one is a ``busbw_drop`` finding naming the op and the size. A
  collectives run keeps each rank's median, not its samples: the interval holds the run-to-run spread only
  (measured from the name's history when it has :data:`~measurefirst.results.regression_checks.RUN_TO_RUN_MIN_RUNS` runs,
  else assumed, and the check says so), and the default threshold is :data:`COLLECTIVES_THRESHOLD`.
* **rank groups**: each rank's measurement of each label is paired with the same rank's in the other run
  (:func:`measurefirst.results.regression_checks.change`, full intervals); a rank that is a straggler now and was not
  before is a ``new_straggler`` finding naming the rank and its node. Both findings fail a gate.
* **group steps** (``step --ddp/--fsdp``): each rank's step time is a change of its per-step samples (full
  intervals, :func:`~measurefirst.results.regression_checks.change`); each rank's *compute* time in each phase (the phase less
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
from typing import TYPE_CHECKING, Any

from .findings import Finding, found
from .collectives import CollectivePoint, CollectivesResult, point_label, usable
from .group import GROUP_KINDS as GROUP_KINDS
from .regression import Change, Regression
from .regression_checks import change, check_fraction

if TYPE_CHECKING:  # pragma: no cover
    from .kinds import Measurement
    from .group_step import GroupStepResult

#: Default threshold of a check of collectives: a busbw drop beyond this fraction (and beyond the
#: interval) is a regression. Bandwidth over a shared fabric moves more from run to run than a kernel's time.
COLLECTIVES_THRESHOLD = 0.10


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


def point_change(base: "CollectivePoint", new: "CollectivePoint", threshold: float, cv: float, source: str) -> Change:
    """The change of one op and size (see :func:`median_change`)."""
    return median_change(point_label(new), base.seconds, new.seconds, threshold, cv, source)


def median_change(label: str, base: float, new: float, threshold: float, cv: float, source: str) -> Change:
    """The change of a time of which each run kept its median only: the ratio with an interval of both runs'
    run-to-run spread ``cv`` (a relative standard deviation; its ``source``) added in quadrature on the log
    scale."""
    from .stats import Z95

    ratio = new / base
    hw = math.hypot(math.log1p(Z95 * cv), math.log1p(Z95 * cv))
    lo, hi = ratio * math.exp(-hw), ratio * math.exp(hw)
    return Change(label, base, new, ratio, lo, hi,
                  regression=lo > 1.0 and ratio > 1.0 + threshold, improvement=hi < 1.0 and ratio < 1 / (1 + threshold),
                  threshold=threshold, run_to_run=cv, run_to_run_source=source,
                  run_to_run_spreads=(cv, cv), run_to_run_sources=(source, source))


def _spread(run_to_run: float | None, source: str) -> tuple[float, str]:
    """The run-to-run spread of a check of medians and its source: given (or from the history), else assumed."""
    from .regression_checks import RUN_TO_RUN_CV

    if run_to_run is not None:
        check_fraction("run_to_run", run_to_run, "0.02 (2%)")
        return run_to_run, source or "given"
    return RUN_TO_RUN_CV, "assumed"


def _check_collectives(base: "CollectivesResult", new: "CollectivesResult", base_name: str, new_name: str,
                       threshold: float | None, gate: bool, run_to_run: float | None, source: str) -> Regression:
    threshold = COLLECTIVES_THRESHOLD if threshold is None else threshold
    check_fraction("threshold", threshold, "0.1 (10%)")
    cv, source = _spread(run_to_run, source)
    olds = {(p.op, p.size_bytes, p.dtype): p for p in base.points if usable(p)}
    news = {(p.op, p.size_bytes, p.dtype): p for p in new.points if usable(p)}
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
    from .kinds import Measurement, Stop

    r = g.ranks[rank]
    return Measurement("step", g.device, "step", tuple(x * 1e9 for x in r.step_samples_s),
                       (1,) * len(r.step_samples_s), None, None, None, None,
                       Stop("trials", True, 0.0, sum(r.step_samples_s)), env={**g.env, "hostname": r.host})


def _check_steps(base: "GroupStepResult", new: "GroupStepResult", base_name: str, new_name: str,
                 threshold: float | None, gate: bool, run_to_run: float | None, source: str) -> Regression:
    from dataclasses import replace

    from .group_step import STRAGGLER_MIN_STEP_FRACTION

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
    from .layout import node_of

    node = node_of(new.nodes, s.straggler) or "?"
    return (found("new_straggler", s.straggler_ratio, threshold=1 + s.threshold, label=new.label, rank=s.straggler,
                  node=node, **({} if was is None else {"before_rank": was})),)


def _phase_stragglers(base: "GroupStepResult", new: "GroupStepResult") -> tuple[Finding, ...]:
    from .layout import node_words

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
