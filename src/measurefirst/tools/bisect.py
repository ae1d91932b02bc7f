"""``measurefirst bisect GOOD BAD TARGET...``: the first commit that made a target slower, found code
against code (:func:`measurefirst.tools.against.against_pairs`) and so noise-aware.

Why ranks: a fresh worker process can land in another speed mode for its whole life (allocator state,
where its memory lies; the mode comes and goes with the minutes). Measured here on a 40 µs softmax made
3.1% slower, one worker in four to eight sat 3-15% slow, so worker pairs' ratios read 0.88-1.18 around
a true 1.031, and the mean of three pairs decided nothing (``benchmarks/bisect_commits.py``: 1 of 10
bisects right). A mode moves one pair far and the rank of that pair by one place: the decisions below
use the pairs' ranks (the median with its sign-test interval, and the two-sample shift with its
rank-sum interval), and they add pairs until the interval decides.

The rules:

* The commits are those on the ancestry path from GOOD to BAD (``git rev-list --ancestry-path``), in
  order; GOOD is the last known fast one, BAD the slow one. A tree with uncommitted changes is refused
  (a bisect must not depend on what is not committed), and every worktree is removed on every way out.
* **The ends.** BAD is compared with GOOD in :data:`ENDS_PAIRS` worker pairs (six: the fewest whose
  median has a 95% interval). BAD is slower when the 95% interval of the pairs' median log-ratio (order
  statistics, :func:`by_ranks`) lies above 0; when it holds 0, :data:`MORE_PAIRS` pairs are added, up to
  :data:`ENDS_MAX_PAIRS`. Below 0, BAD is faster: nothing to find. Still holding 0, the pairs could not
  tell the ends apart: nothing is searched, and the result says that more time would (not that BAD is
  not slower).
* **A step.** The midpoint M of the known-fast commit L and the known-slow commit H is compared against
  both: L → M and M → H, each in ``pairs`` worker pairs (default :data:`FIRST_PAIRS`, four: the fewest
  whose rank-sum interval can decide at 95%). Exactly one side holds the slowdown, so the step asks which
  side's pairs are slower: the shift between the two sides' log-ratios, with its 95% rank-sum interval.
  Above 0, the slowdown is in L..M; below 0, in M..H. When the interval holds 0, :data:`MORE_PAIRS`
  pairs are added to each side, up to :data:`MAX_PAIRS`; a step still undecided goes by the estimate's
  sign and is marked so.
* The answer: the first slow commit, its ratio against the commit before it (the last step's comparison
  of them, all its pairs joined as ``compare --against`` joins them) with the interval, every step's shift,
  and every comparison made (``Regression`` results with their commits, which ``--save`` keeps in the
  history).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..results.regression import Change, Regression
from ..results import stats
from .against import Pairs, against_pairs, join
from .worktree import WorktreeError, dirty, git, resolve_commit, toplevel

#: How a bisect measures: ``(a, b, pairs, budget_per_pair, first_seed)`` compares commit ``b`` against commit
#: ``a`` in ``pairs`` more worker pairs (pair ``k``'s order drawn with seed ``first_seed + k``), one target.
Measure = Callable[[str, str, int, float, int], Pairs]


def target_measure(target: tuple[str, str, str, tuple[str, ...]], label: str, *, cwd: Path,
                   device: str = "auto") -> Measure:
    """The :data:`Measure` of a statement or ``module:function`` (``measurefirst bisect GOOD BAD TARGET``):
    each side a fresh ``measurefirst`` worker in a worktree of its commit."""
    def measure(a: str, b: str, n: int, per_pair: float, seed: int) -> Pairs:
        return against_pairs(a, [target], [label], cwd=cwd, device=device, budget_per_pair=per_pair, pairs=n,
                             head_ref=b, first_seed=seed)
    return measure

#: Worker pairs of a side of a step at its first look (see the module docstring).
FIRST_PAIRS = 4
#: Worker pairs of GOOD against BAD at the first look.
ENDS_PAIRS = 6
#: Pairs added to each comparison at each later look, and the most one comparison of a step gets. Raised from
#: 12 (and the ends' from 20) after the misses of benchmarks/bisect_commits.py: steps still undecided at 12
#: pairs a side, and ends at 20. On seeded simulated pairs (tests/test_bisect_ranks.py's model: a 3.1% change,
#: 0.5% pair noise, each worker 3-15% slow with the given rate; 200 bisects of 64 commits), right answers went
#: from 194 to 200 at a rate of 0.1 and from 165 to 195 at 0.2, for 8% and 35% more pairs on average (only the
#: hard steps take them).
MORE_PAIRS = 2
MAX_PAIRS = 20
#: The most GOOD against BAD gets: more than a step, as the whole search rests on it, and at 30 the median's
#: interval stands eight pairs in other modes on either side (at 20, four; at 12, two).
ENDS_MAX_PAIRS = 30


@dataclass(frozen=True)
class Step:
    """One step of the search: the commits (low, middle, high), the shift of the L → M pairs' log-ratios
    above the M → H pairs' (Hodges-Lehmann) with its 95% rank-sum interval (``None`` ends when the pairs
    were too few), the pairs on each side, and which side the step chose (``"left"``: L..M)."""

    low: str
    mid: str
    high: str
    shift: float
    shift_low: float | None
    shift_high: float | None
    pairs: int
    side: str
    decided: bool


@dataclass
class Bisection:
    """What a bisect found: GOOD → BAD (its change, and its pairs' ranks), the first slow commit (``None``
    when BAD is not slower than GOOD), its change against the commit before it, whether every step was
    decided, every step and every comparison."""

    good: str
    bad: str
    total: Change
    #: GOOD → BAD by its pairs' ranks (:func:`by_ranks`): the median log-ratio and its 95% interval
    ends: stats.PairedEstimate | None = None
    first_slow: str | None = None
    change: Change | None = None
    decided: bool = True
    steps: list[Regression] = field(default_factory=list)
    searched: list[Step] = field(default_factory=list)
    commits: int = 0


def commits_between(good: str, bad: str, repo: Path) -> list[str]:
    """GOOD, then every commit on the ancestry path to BAD, in order (BAD last)."""
    g, b = resolve_commit(good, repo), resolve_commit(bad, repo)
    path = git(["rev-list", "--reverse", "--ancestry-path", f"{g}..{b}"], repo).split()
    if not path or path[-1] != b:
        raise WorktreeError(f"{bad} does not descend from {good}: bisect needs GOOD to be an ancestor of BAD")
    return [g, *path]


def logs(change: Change) -> list[float]:
    """The log-ratios of a comparison's worker pairs (those that measured one)."""
    return [math.log(r) for r in change.pair_ratios if r > 0 and math.isfinite(r)]


def by_ranks(change: Change) -> stats.PairedEstimate | None:
    """A comparison by its pairs' ranks: the median of their log-ratios with its 95% distribution-free
    interval (order statistics: the sign test inverted; none below six pairs); ``None`` when no pair
    measured a ratio. A pair far off, in either direction, moves neither by more than one rank."""
    xs = logs(change)
    if not xs:
        return None
    ci = stats.median_ci(xs)
    return stats.PairedEstimate(len(xs), stats.median(xs), None if ci is None else ci[0], None if ci is None else ci[1])


def ends_check(change: Change) -> tuple[stats.PairedEstimate | None, bool | None]:
    """GOOD → BAD by its pairs' ranks (:func:`by_ranks`), and whether BAD is slower by it: ``True``
    (interval above 0), ``False`` (below 0), ``None`` (it holds 0, or the pairs are too few for an
    interval)."""
    est = by_ranks(change)
    if est is None:
        return None, None
    if est.ci_low is None or est.ci_high is None:
        return est, None
    return est, True if est.ci_low > 0 else False if est.ci_high < 0 else None


def step_side(left: Change, right: Change) -> tuple[stats.PairedEstimate, str | None]:
    """The shift of the left comparison's pair log-ratios above the right one's, and the side it decides
    (``"left"``, ``"right"``, or ``None`` while its interval holds 0)."""
    est = stats.hodges_lehmann_shift(logs(left) or [0.0], logs(right) or [0.0])
    if est.ci_low is not None and est.ci_low > 0:
        return est, "left"
    if est.ci_high is not None and est.ci_high < 0:
        return est, "right"
    return est, None


def bisect(good: str, bad: str, measure: Measure, label: str, *, cwd: Path, budget: float,
           pairs: int = FIRST_PAIRS, step: Callable[[Regression], None] | None = None) -> Bisection:
    """Find the first commit between GOOD and BAD that made the target of ``measure`` slower (see the module
    docstring; :func:`target_measure` for a statement or function, :func:`measurefirst.pytest.against.
    test_measure` for a pytest benchmark); ``label``: the target's name, unless the pairs name it
    (:attr:`Pairs.labels`); ``budget``: seconds of measuring per ``pairs`` worker pairs (so each pair measures
    ``budget / pairs``); ``step`` is told each comparison when a look at it ends (for progress and saving)."""
    repo = toplevel(cwd)
    changed = dirty(repo)
    if changed:
        raise WorktreeError(f"the checkout has uncommitted changes ({', '.join(changed[:3])}"
                            f"{', ...' if len(changed) > 3 else ''}); commit or stash them before a bisect")
    commits = commits_between(good, bad, repo)
    per_pair = budget / pairs
    made: dict[tuple[str, str], tuple[Pairs, Regression]] = {}

    def look(a: str, b: str, n: int) -> Change:
        """Compare commit ``b`` against ``a`` in ``n`` more worker pairs; the change over all pairs so far."""
        before = made.get((a, b))
        seed = len(before[0].parts[0]) if before is not None else 0
        more = measure(a, b, n, per_pair, seed)
        if before is not None:
            more = Pairs([before[0].parts[0] + more.parts[0]], more.base, more.head, more.labels)
        change = join(more.parts[0], more.labels[0] if more.labels else label, threshold=0.0)[0]
        r = Regression(base=more.base, new=more.head, changes=(change,), gate=False)
        made[(a, b)] = (more, r)
        if step is not None:
            step(r)
        return change

    def count(a: str, b: str) -> int:
        return len(made[(a, b)][0].parts[0])

    first, last = commits[0], commits[-1]
    total = look(first, last, ENDS_PAIRS)
    ends, slower = ends_check(total)
    while slower is None and count(first, last) < ENDS_MAX_PAIRS:
        total = look(first, last, MORE_PAIRS)
        ends, slower = ends_check(total)
    out = Bisection(good, bad, total, ends=ends, commits=len(commits) - 1)
    if not slower:
        out.steps = [r for _, r in made.values()]
        return out
    lo, hi = 0, len(commits) - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        a, m, b = commits[lo], commits[mid], commits[hi]
        left, right = look(a, m, pairs), look(m, b, pairs)
        est, side = step_side(left, right)
        while side is None and count(a, m) < MAX_PAIRS:
            left, right = look(a, m, MORE_PAIRS), look(m, b, MORE_PAIRS)
            est, side = step_side(left, right)
        decided = side is not None
        if side is None:
            out.decided = False
            side = "left" if est.estimate >= 0 else "right"
        out.searched.append(Step(a, m, b, est.estimate, est.ci_low, est.ci_high, count(a, m), side, decided))
        if side == "left":
            hi, out.change = mid, left
        else:
            lo, out.change = mid, right
    out.first_slow = commits[hi]
    out.steps = [r for _, r in made.values()]
    return out


def subject(commit: str, repo: Path) -> str:
    """The commit's short id and subject line."""
    return git(["log", "-1", "--format=%h %s", commit], repo)
