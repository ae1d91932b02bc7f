"""Code against code: the base tree and the head tree measured in two worker interpreters, their
blocks interleaved in one comparison (``pytest --mf --mf-against REF``).

Why: a gate that compares a new run with a number saved at another moment has every change of the
machine between the two moments in its ratio, so on a busy runner it either fails on noise or
refuses to judge. Two workers driven block by block (:func:`measurefirst.tools.compare.compare_samplers`
over :class:`measurefirst.measure.remote.RemoteSampler`) share the machine's load round by round,
as ``compare()`` shares it between two functions.

The rules:

* **Pairs of workers.** A pair is one base worker and one head worker, started together, run one
  after the other's blocks. Fresh interpreters can land in different speed modes (address layout,
  allocator, placement), which no round inside one pair can see: two pairs can agree on a 3% change
  of a 2 µs call that a third does not see. So a comparison is repeated in ``pairs`` pairs (default
  :data:`DEFAULT_PAIRS`), each with its share of the budget and its own seed, and :func:`combine`
  joins them as a random-effects mean: the estimate is the mean of the pairs' log-ratios; its
  variance holds each pair's own (from its interval) and the variance *between* pairs, measured from
  their scatter and never below what two fresh processes spread on this machine (the noise profile's
  floor at the call's duration, or measurefirst's prior), each pair weighed by its own and the
  between-pair variance (:func:`between_pairs`); the 95% factor is Student's t for the pairs'
  own degrees of freedom (``pairs - 1``). The floor bounds the variance from below but lends no
  degrees of freedom (measured on a busy-wait, it is below what real calls spread: docs/benchmarks.md). A
  pair whose own halves disagreed (``drift``) enters with its widened interval; a pair with an estimate
  but no interval of its own (too few batches of rounds, as under a drifting load) enters with the
  largest standard error of the others; with fewer than two estimates (of two or more pairs) the
  comparison is *undecided*. Every pair's workers start at once, before any pair measures
  (:func:`~measurefirst.tools.pool.worker_pairs`). A worker's start-up (importing torch) is most of the gate's
  fixed cost, so each pair has a fork server of its own (:mod:`measurefirst.tools.zygote`, which says why one
  per pair): a fresh interpreter that imports torch and pytest once, from which both workers of the pair are
  forked.
* **The gate's change** (:func:`change_of`): a regression is slower beyond the interval *and* the
  threshold, the rule of :func:`measurefirst.results.regression_checks.change`; an interval that holds both 1
  and ``1 + threshold`` is undecided, and says how much longer it would have needed. A run's comparisons share
  one error (:func:`~measurefirst.results.regression.look_level`): each level is Bonferroni's share of 5%.
* **Workers** (:class:`~measurefirst.tools.pool.WorkerPool`): started with their output in files (the tail is
  shown when one fails or dies), connected back over a local socket with a one-time token, stopped (terminated,
  then killed) on every way out. Each fresh interpreter gets an environment variable of random length, so
  that where its stack lands (the two trees' paths differ in length) is drawn anew per worker: a layout
  that favoured one side would otherwise be a bias in every pair (forked workers share their server's
  stack, whose padding is drawn per pair).
"""

from __future__ import annotations

import math
import os
import statistics
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from ..results import defaults, stats
from ..measure.engine import BenchmarkError, Options
from ..measure.noise import process_floor, robust_log_sd
from ..measure.placement import same_cpus
from ..measure.remote import Channel, RemoteSampler, SumClock
from ..measure.workers import merge
from ..results.comparison import Verdict
from ..results.kinds import Measurement
from ..results.regression import Change, Disturbance, Regression, look_level
from .compare import compare_samplers
from .pool import Side, worker_pairs

if TYPE_CHECKING:  # pragma: no cover
    from ..results.comparison import Comparison

#: Worker pairs per comparison by default (see the module docstring): four, so that the scatter between
#: pairs has three degrees of freedom (three pairs left a 20% slowdown undecided in 5 of 10 drifting runs;
#: ``benchmarks/pairs_sim.py``: four catch it 999 in 1000, three 898).
DEFAULT_PAIRS = 4
#: Worker pairs a comparison left undecided by its first pairs may get at a second look, at most (see
#: :func:`more_pairs`; ``--mf-against-extra-pairs``).
EXTRA_PAIRS = DEFAULT_PAIRS


def t_factor(df: int, level: float = 0.95) -> float:
    """Student's t two-sided quantile for ``df`` degrees of freedom at ``level`` (``inf`` below 1)."""
    if df < 1:
        return math.inf
    if level == 0.95:
        return stats.t975(df)
    return math.sqrt(stats.f_quantile(level, 1, df))  # F(1, d) = t(d)^2


def floor_variance(floor: float) -> float:
    """The least variance of one pair's log-ratio: each side's fresh process draws its own mode, spread as
    ``floor`` (relative) says."""
    return 2.0 * math.log1p(floor) ** 2


def between_pairs(logs: Sequence[float], ses: Sequence[float], floor: float, floor_dof: int,
                  level: float = 0.95) -> tuple[float, float]:
    """The random-effects mean of the pairs' log-ratios ``logs`` (standard errors ``ses``) and its
    half-width at ``level`` (see the module docstring); ``floor``: one fresh process's spread (relative), the least
    variance between pairs; ``floor_dof``: the degrees of freedom of a single pair's factor, which only
    the floor bounds. ``inf`` when nothing bounds the spread between pairs (one pair and no floor).

    The arithmetic is meta-analysis's for few studies: the variance between pairs ``tau2`` by
    DerSimonian and Laird's moments, never below the floor's; each pair weighed by ``1 / (se^2 + tau2)``
    (a pair whose own halves were disturbed, with a wide interval, counts less instead of widening the
    whole); the mean's variance the larger of ``1 / sum(w)`` and the weighted scatter of the pairs about
    it over ``k - 1`` (Hartung-Knapp-Sidik-Jonkman, taken as the larger so that pairs agreeing by chance
    cannot narrow it); the factor Student's t for ``k - 1``."""
    k = len(logs)
    floor_var = floor_variance(floor)
    if k < 2:
        if floor_dof < 1 or not (floor_var > 0 or ses[0] > 0):
            return logs[0], math.inf
        return logs[0], t_factor(floor_dof, level) * math.sqrt(ses[0] ** 2 + floor_var)
    own = [max(se * se, 1e-18) for se in ses]
    w0 = [1.0 / v for v in own]
    fixed = sum(w * x for w, x in zip(w0, logs)) / sum(w0)
    q = sum(w * (x - fixed) ** 2 for w, x in zip(w0, logs))
    scale = sum(w0) - sum(w * w for w in w0) / sum(w0)
    tau2 = max((q - (k - 1)) / scale if scale > 0 else 0.0, floor_var, 0.0)
    w = [1.0 / (v + tau2) for v in own]
    total = sum(w)
    mean = sum(wi * x for wi, x in zip(w, logs)) / total
    hksj = sum(wi * (x - mean) ** 2 for wi, x in zip(w, logs)) / ((k - 1) * total)
    return mean, t_factor(k - 1, level) * math.sqrt(max(1.0 / total, hksj))


def combine(verdicts: Sequence[Verdict], label: str, baseline: str, *, floor: float = 0.0,
            floor_dof: int = 0, level: float = 0.95) -> Verdict:
    """One verdict from the same comparison in several worker pairs (see the module docstring), its
    interval at ``level``."""
    rounds = sum(v.rounds for v in verdicts)
    rated = [v for v in verdicts if v.ratio > 0 and math.isfinite(v.ratio)]
    ratio = math.exp(sum(math.log(v.ratio) for v in rated) / len(rated)) if rated else math.nan
    missing = next((v for v in verdicts if v.ratio_ci is None), None)
    if len(rated) < min(2, len(verdicts)) or (len(verdicts) == 1 and verdicts[0].ratio_ci is None):
        reason = missing.reason if missing is not None and missing.reason else "too_few_rounds"
        return Verdict(label, baseline, ratio, None, "undecided", None, rounds, reason)
    # a pair too short for an interval of its own (too few batches of rounds: under a drifting load) still
    # has its estimate; it enters with the largest standard error of the others (none: the scatter between
    # the pairs, which holds each pair's own noise, carries it), instead of leaving the others too few
    own = [(math.log(v.ratio_ci[1]) - math.log(v.ratio_ci[0])) / 2.0 / stats.Z95 if v.ratio_ci is not None
           else None for v in rated]
    widest = max((se for se in own if se is not None), default=0.0)
    ses = [widest if se is None else se for se in own]
    logs = [math.log(v.ratio) for v in rated]
    mean, half = between_pairs(logs, ses, floor, floor_dof, level)
    ratio = math.exp(mean)
    lo, hi = math.exp(mean - half), math.exp(mean + half)
    if len(logs) >= 2:  # the interval holds the plain mean's too (see plain_pairs)
        plain, plain_half = plain_pairs(logs, floor, level)
        lo, hi = min(lo, math.exp(plain - plain_half)), max(hi, math.exp(plain + plain_half))
    if not (lo > 0 and math.isfinite(hi)):
        return Verdict(label, baseline, ratio, None, "undecided", None, rounds, "processes")
    detectable = (hi - lo) / 2.0 / ratio
    verdict = "faster" if hi < 1.0 else "slower" if lo > 1.0 else "no difference"
    return Verdict(label, baseline, ratio, (lo, hi), verdict, detectable, rounds, None)


def plain_pairs(logs: Sequence[float], floor: float, level: float = 0.95) -> tuple[float, float]:
    """The plain mean of two or more pairs' log-ratios and its half-width at ``level`` (each pair one value,
    their spread floored as in :func:`between_pairs`, t for ``k - 1``); :func:`combine`'s interval holds it too,
    so that precise pairs that share a bias cannot outweigh the rest (measured: docs/benchmarks.md)."""
    k = len(logs)
    mean = sum(logs) / k
    var = sum((x - mean) ** 2 for x in logs) / (k - 1)
    return mean, t_factor(k - 1, level) * math.sqrt(max(var, floor_variance(floor)) / k)


def compare_pair(base: Channel, head: Channel, colds: Sequence[float | None], budget_s: float, seed: int,
                 threads: int = 1) -> "Comparison":
    """One pair's interleaved comparison of the samplers its two workers serve (``budget_s`` for the
    pair; the plugin's minimum time of rounds and the comparison's precision), both workers bound to the
    same CPUs meanwhile (:func:`measurefirst.measure.placement.same_cpus`, as many as ``threads``, the
    workers' intra-op threads; the pair's ``seed`` picks which). Only the precision or the budget ends a
    pair, not a clear direction: a pair is one estimate of several, and pairs stopped early because they
    looked clearly slower would be the ones that happened to read high. Raises
    :class:`~measurefirst.measure.engine.BenchmarkError` when a side's function raised (its ``label``
    names the side, ``__cause__`` the :class:`~measurefirst.measure.remote.RemoteError`)."""
    min_time = min(defaults.COMPARE_MIN_TIME_S, defaults.COMPARE_MIN_TIME_SHARE * budget_s)
    opts = {"budget": budget_s, "precision": defaults.COMPARE_PRECISION, "min_time": min_time}
    clock = SumClock()
    states = [RemoteSampler(base, "base", clock, budget_s), RemoteSampler(head, "head", clock, budget_s)]
    options = Options(precision=defaults.COMPARE_PRECISION, budget=budget_s, min_time=min_time)
    with same_cpus([base.pid, head.pid], threads, seed):
        for st in states:
            st.begin(opts)
        return compare_samplers(states, clock, options, colds=list(colds), seed=seed, stop_on_direction=False)


def join(parts: Sequence["Comparison"], label: str, *, threshold: float, machine: bool = True,
         level: float = 0.95) -> tuple[Change, Measurement]:
    """The change of head against base from the pairs' comparisons of one measurement (:func:`combine`
    with this machine's floor, or the prior's when ``machine`` is False: a simulated clock; its interval
    at ``level``), and the head's measurement merged over its fresh processes, named ``label``."""
    verdict, base, head, _ = _joined(parts, label, machine, level)
    change = change_of(verdict, base, head, threshold=threshold, label=label)
    return replace(change, pair_ratios=tuple(c.verdicts[1].ratio for c in parts), ci_level=level), head


def _joined(parts: Sequence["Comparison"], label: str, machine: bool, level: float
            ) -> tuple[Verdict, Measurement, Measurement, float]:
    """The verdict, base and head of :func:`join`, and the floor the verdict was joined with."""
    head = replace(merge([c.measurements[1] for c in parts]), label=label)
    base = merge([c.measurements[0] for c in parts])
    floor, floor_dof, _ = process_floor(head.median, device=head.device.split(":")[0], machine=machine)
    verdict = combine([c.verdicts[1] for c in parts], label, "base", floor=floor, floor_dof=floor_dof, level=level)
    return verdict, base, head, floor


def more_pairs(parts: Sequence["Comparison"], label: str, *, threshold: float, most: int, machine: bool = True,
               comparisons: int = 1) -> int:
    """How many worker pairs to add to a comparison at its second look (0: none). A comparison its
    first pairs left undecided gets the fewest pairs, from two to ``most``, with which it would decide
    if its estimate stayed where it is: the interval's half-width shrinks as the square root of the
    pairs, and its t factor moves from the first look's (:func:`look_level` of the run's ``comparisons``,
    ``k - 1`` degrees of freedom) to the second's (wider, more degrees of freedom). One that even ``most``
    more would not decide (an estimate on the line, pairs in different modes, no interval) gets none: the
    gate says how many it would need instead. Where the pairs' typical one would decide with fewer (one pair in
    another speed mode: :func:`pairs_if_typical`), the fewer are asked."""
    if most < 2 or len(parts) < 2:
        return 0
    verdict, base, head, floor = _joined(parts, label, machine, look_level(comparisons))
    if not change_of(verdict, base, head, threshold=threshold, label=label).undecided:
        return 0
    asked = pairs_to_decide(verdict, len(parts), threshold=threshold, most=most, comparisons=comparisons)
    ratios = [c.verdicts[1].ratio for c in parts]
    logs = [math.log(r) for r in ratios if r > 0 and math.isfinite(r)]
    typical = pairs_if_typical(logs, floor, threshold=threshold, most=most, comparisons=comparisons)
    return min((n for n in (asked, typical) if n > 0), default=0)


def pairs_if_typical(logs: Sequence[float], floor: float, *, threshold: float, most: int, comparisons: int = 1
                     ) -> int:
    """The fewest pairs, from two to ``most``, after which the plain mean's interval (:func:`plain_pairs`, at the
    second look's level) would decide if the new pairs landed as the typical pair so far: at the pairs' median
    log-ratio, spread as their median absolute deviation says (:func:`~measurefirst.measure.noise.robust_log_sd`,
    the floor at least), ``logs`` the first pairs'. Where one pair of four landed in another speed mode
    (measured under a drifting load: 1.071, 1.155, 1.049, 1.051 for a softmax made 5% slower), the scatter says
    that four more could not decide and the typical pair that they could. Only how many pairs are asked rests on
    it: the interval is the rule's."""
    k = len(logs)
    if k < 3 or threshold <= 0:
        return 0
    center = statistics.median(logs)
    least = floor_variance(floor)
    spread = max(robust_log_sd(logs) ** 2, least)
    line = math.log1p(threshold)
    for m in range(2, most + 1):
        n = k + m
        mean = (sum(logs) + m * center) / n
        var = (sum((x - mean) ** 2 for x in logs) + m * (spread + (center - mean) ** 2)) / (n - 1)
        half = t_factor(n - 1, look_level(comparisons, second=True)) * math.sqrt(max(var, least) / n)
        if mean - half > 0.0 or mean + half <= line:
            return m
    return 0


def pairs_to_decide(v: Verdict, k: int, *, threshold: float, most: int, comparisons: int = 1) -> int:
    """The arithmetic of :func:`more_pairs` for an undecided verdict ``v`` of ``k`` pairs, its interval at the
    first look's level of a run of ``comparisons`` (pure)."""
    factor = longer_factor(v, threshold)
    if v.ratio_ci is None or not math.isfinite(factor) or k < 2:
        return 0
    half = (math.log(v.ratio_ci[1]) - math.log(v.ratio_ci[0])) / 2.0
    gap = half / math.sqrt(factor)
    first, second = look_level(comparisons), look_level(comparisons, second=True)
    for m in range(2, most + 1):
        if half * math.sqrt(k / (k + m)) * t_factor(k + m - 1, second) / t_factor(k - 1, first) <= gap:
            return m
    return 0


def longer_factor(v: Verdict, threshold: float) -> float:
    """How many times the worker pairs (or rounds) an undecided verdict would need to decide: (the interval's
    half-width (log) over the distance of its estimate from the line it can leave by)^2. An interval holding
    both 1 and ``1 + threshold`` decides when its low end passes 1 or its high end falls below ``1 + threshold``,
    whichever comes first. ``inf`` when the estimate sits on the line it must leave by."""
    if v.ratio_ci is None or not (v.ratio > 0 and math.isfinite(v.ratio)):
        return math.inf
    lo, hi = v.ratio_ci
    half = (math.log(hi) - math.log(lo)) / 2.0
    est = math.log(v.ratio)
    line = math.log1p(threshold) if threshold > 0 else 0.0
    gap = max(est, line - est)
    if gap <= 0:
        return math.inf
    return max(1.0, (half / gap) ** 2)


def change_of(v: Verdict, base: Measurement, head: Measurement, *, threshold: float, label: str) -> Change:
    """The gate's :class:`Change` from an interleaved verdict of head against base (see the module
    docstring): ``ratio`` is the verdict's (the paired estimate, not the ratio of the two medians). With a
    threshold, an interval that holds both 1 and ``1 + threshold`` cannot say whether the head is
    unchanged or slower beyond the threshold: undecided, with how much longer it would need."""
    straddles = (threshold > 0 and v.ratio_ci is not None and v.verdict == "no difference"
                 and v.ratio_ci[0] <= 1.0 < 1.0 + threshold < v.ratio_ci[1])
    if v.verdict == "undecided" or v.ratio_ci is None or straddles:
        lo, hi = v.ratio_ci if v.ratio_ci is not None else (math.nan, math.nan)
        half = (hi - lo) / 2.0 / v.ratio if v.ratio_ci is not None and v.ratio > 0 else math.inf
        if v.reason == "processes":
            spread = hi / lo - 1.0 if v.ratio_ci is not None and lo > 0 else math.inf
            disturbed = (Disturbance("pair", "processes", spread, threshold),)
        else:
            factor = longer_factor(v, threshold)
            need = half / math.sqrt(factor) if math.isfinite(factor) else 0.0
            disturbed = (Disturbance("pair", "interleaved", half, need),)
        return Change(label, base.median, head.median, v.ratio, lo, hi, regression=False, improvement=False,
                      threshold=threshold, disturbed=disturbed, run_to_run_source="")
    lo, hi = v.ratio_ci
    return Change(label, base.median, head.median, v.ratio, lo, hi,
                  regression=lo > 1.0 and v.ratio > 1.0 + threshold,
                  improvement=hi < 1.0 and v.ratio < 1.0 / (1.0 + threshold), threshold=threshold)


class TargetFailed(RuntimeError):
    """A target failed on a side (to load, or while measured): ``label``, ``side`` and the worker's words."""

    def __init__(self, label: str, side: str, words: str) -> None:
        super().__init__(f"{label}: failed on the {side} side: {words}")
        self.label, self.side, self.words = label, side, words


def against_targets(ref: str, targets: Sequence[tuple[str, str, str, tuple[str, ...]]], labels: Sequence[str], *,
                    cwd: Path, device: str = "auto", timer: str = "auto", threads: int = 0,
                    budget: float = defaults.COMPARE_BUDGET_S, pairs: int = DEFAULT_PAIRS,
                    threshold: float | None = None, head_ref: str | None = None) -> Regression:
    """``measurefirst compare --against REF TARGET...``: each target (``kind, where, name, setups`` as
    :class:`~measurefirst.measure._counters.Target` takes them; a file relative to ``cwd``) measured in
    the tree of REF and in this one, ``pairs`` worker pairs interleaved, as ``pytest --mf-against``
    does; ``budget`` per target (both sides, all pairs). The changes of head against base, as a
    regression check (gated with ``threshold``). ``head_ref``: another REF instead of this tree (a
    second worktree; ``measurefirst bisect``). A target that fails on a side raises
    :class:`TargetFailed` once every worker is stopped and the worktrees removed."""
    if not (isinstance(pairs, int) and 1 <= pairs <= 16):
        raise ValueError(f"pairs takes a number of worker pairs from 1 to 16; got {pairs!r}")
    measured = against_pairs(ref, targets, labels, cwd=cwd, device=device, timer=timer, threads=threads,
                             budget_per_pair=budget / pairs, pairs=pairs, head_ref=head_ref)
    changes = tuple(join(measured.parts[i], label, threshold=threshold or 0.0, level=look_level(len(labels)))[0]
                    for i, label in enumerate(labels))
    return Regression(base=measured.base, new=measured.head, changes=changes, gate=threshold is not None)


@dataclass
class Pairs:
    """What :func:`against_pairs` measured: each target's comparisons, one per worker pair, and what the
    two sides were (``base``: REF's commit; ``head``: "this tree" or the second REF's commit); ``labels``: the
    targets' names where the workers named them (a pytest benchmark's), else ``None``."""

    parts: list[list["Comparison"]]
    base: str
    head: str
    labels: list[str] | None = None


def against_pairs(ref: str, targets: Sequence[tuple[str, str, str, tuple[str, ...]]], labels: Sequence[str], *,
                  cwd: Path, device: str = "auto", timer: str = "auto", threads: int = 0,
                  budget_per_pair: float, pairs: int, head_ref: str | None = None, first_seed: int = 0) -> Pairs:
    """The worker pairs of :func:`against_targets`, each target's comparisons not yet joined (a caller that
    adds pairs until it can decide joins them all: ``measurefirst bisect``); pair ``k``'s order is drawn
    with seed ``first_seed + k``."""
    from .worktree import Tree, here, WorktreeError, toplevel

    cwd = cwd.resolve()
    try:
        top = toplevel(cwd)
    except WorktreeError:
        top = cwd
    parts: dict[int, list["Comparison"]] = {i: [] for i in range(len(targets))}
    argv = (sys.executable, "-m", "measurefirst.measure._worker", "serve")
    with Tree.of(ref, cwd) as tree, (Tree.of(head_ref, cwd) if head_ref is not None else here(top)) as mine, \
            tempfile.TemporaryDirectory(prefix="measurefirst-against-") as temp:
        sides = [Side("base", argv, tree.mirror(cwd, top), tree_env(tree.root, os.environ)),
                 Side("head", argv, mine.mirror(cwd, top), tree_env(mine.root, os.environ))]
        for k, hello in worker_pairs(pairs, sides, Path(temp)):
            base, head = hello["base"][0], hello["head"][0]
            for ch in (base, head):
                ch.send(("targets", [list(t) for t in targets], device, timer, threads))
            for i, label in enumerate(labels):
                ev = {"base": base.request(("measure", i)), "head": head.request(("measure", i))}
                failed = next((side for side in ("base", "head") if ev[side][0] == "end"), None)
                if failed is None:
                    try:
                        parts[i].append(compare_pair(base, head, [ev["base"][4], ev["head"][4]], budget_per_pair,
                                                     first_seed + k, threads=ready_threads(ev["base"], ev["head"])))
                    except BenchmarkError as exc:
                        failed, words = exc.label, str(exc.__cause__ or exc)
                    for ch in (base, head):
                        ch.send(("done",) if failed is None else ("abort",))
                        ev[ch.name] = ch.recv()
                else:
                    words = str(ev[failed][3])
                    for ch in (base, head):
                        if ev[ch.name][0] == "ready":
                            ch.send(("abort",))
                            ch.recv()
                if failed is not None:
                    raise TargetFailed(label, failed, words)
            for ch in (base, head):
                ch.send(("bye",))
        label_base = tree.label_commit
    label_head = "this tree" if head_ref is None else mine.label_commit
    return Pairs([parts[i] for i in range(len(targets))], label_base, label_head)


def ready_threads(*readies: tuple[Any, ...]) -> int:
    """The most intra-op threads the workers' ``ready`` messages report (their sixth item's ``threads``;
    1 where a worker did not say)."""
    counts = [r[5].get("threads", 1) if len(r) > 5 and isinstance(r[5], dict) else 1 for r in readies]
    return max([int(c) for c in counts if isinstance(c, int) and not isinstance(c, bool) and c > 0] or [1])


def tree_env(root: Path, base_env: Mapping[str, str]) -> dict[str, str]:
    """The environment of a worker that must import ``root``'s code first: ``root/src`` (when there is
    one) and ``root`` ahead of everything on ``PYTHONPATH`` (ahead of an installed or editable copy).

    Where ``PYTHONDONTWRITEBYTECODE`` is set (common in CI containers, and then pip installs torch
    without its compiled bytecode too), every worker would compile torch's and the plugins' sources
    anew (and pytest rewrite the plugins' asserts): measured here, 3.1 s of CPU per worker instead of
    1.9 s, six workers at once. The workers write their bytecode to :func:`pycache_dir` instead
    (``PYTHONPYCACHEPREFIX``), never beside any source, unless a prefix is set already."""
    env = dict(base_env)
    front = [str(root / "src")] if (root / "src").is_dir() else []
    front.append(str(root))
    rest = env.get("PYTHONPATH", "")
    env["PYTHONPATH"] = os.pathsep.join(front + ([rest] if rest else []))
    if env.get("PYTHONDONTWRITEBYTECODE") and not env.get("PYTHONPYCACHEPREFIX"):
        del env["PYTHONDONTWRITEBYTECODE"]
        env["PYTHONPYCACHEPREFIX"] = str(pycache_dir(env))
    return env


def pycache_dir(env: Mapping[str, str]) -> Path:
    """Where workers keep compiled bytecode: ``$XDG_CACHE_HOME/measurefirst/pycache`` (``~/.cache``
    when unset)."""
    cache = env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(cache) / "measurefirst" / "pycache"
