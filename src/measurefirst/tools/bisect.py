"""``measurefirst bisect GOOD BAD TARGET...``: the first commit that made a target slower, found code
against code (:func:`measurefirst.tools.against.against_targets`) and so noise-aware.

The rules:

* The commits are those on the ancestry path from GOOD to BAD (``git rev-list --ancestry-path``), in
  order; GOOD is the last known fast one, BAD the slow one. A tree with uncommitted changes is refused
  (a bisect must not depend on what is not committed), and every worktree is removed on every way out.
* First BAD is compared with GOOD. When BAD is not slower beyond its interval, there is nothing to find:
  the result says so.
* Then a binary search: the midpoint M of the known-fast commit L and the known-slow commit H is
  compared against both ends, L → M and M → H, each interleaved in fresh worker pairs. The slowdown lies
  on the side whose ratio is larger. The step is **decided** when that side's interval lies above 1 and
  the other's holds 1; otherwise it is compared again with twice the worker pairs (at most
  :data:`RETRIES` times), and a step still undecided goes by the larger estimate and is marked so.
* The answer: the first slow commit, its ratio against the commit before it (the last step's
  comparison) with the interval, and every comparison made (``Regression`` results with their commits,
  which ``--save`` keeps in the history).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..results.regression import Change, Regression
from .against import DEFAULT_PAIRS, against_targets
from .worktree import WorktreeError, dirty, git, resolve_commit, toplevel

#: Comparisons of one step again, with twice the worker pairs each time, before it goes by the estimate.
RETRIES = 2


@dataclass
class Bisection:
    """What a bisect found: the first slow commit (``None`` when BAD is not slower than GOOD), its change
    against the commit before it, whether every step was decided, and every comparison made."""

    good: str
    bad: str
    total: Change
    first_slow: str | None = None
    change: Change | None = None
    decided: bool = True
    steps: list[Regression] = field(default_factory=list)
    commits: int = 0


def commits_between(good: str, bad: str, repo: Path) -> list[str]:
    """GOOD, then every commit on the ancestry path to BAD, in order (BAD last)."""
    g, b = resolve_commit(good, repo), resolve_commit(bad, repo)
    path = git(["rev-list", "--reverse", "--ancestry-path", f"{g}..{b}"], repo).split()
    if not path or path[-1] != b:
        raise WorktreeError(f"{bad} does not descend from {good}: bisect needs GOOD to be an ancestor of BAD")
    return [g, *path]


def _slower(c: Change) -> bool:
    return c.ci_low > 1.0


def _holds_one(c: Change) -> bool:
    return c.ci_low <= 1.0 <= c.ci_high


def bisect(good: str, bad: str, target: tuple[str, str, str, tuple[str, ...]], label: str, *, cwd: Path,
           budget: float, pairs: int = DEFAULT_PAIRS, device: str = "auto",
           step: Callable[[Regression], None] | None = None) -> Bisection:
    """Find the first commit between GOOD and BAD that made ``target`` slower (see the module docstring);
    ``step`` is told each comparison as it is made (for progress and saving)."""
    repo = toplevel(cwd)
    changed = dirty(repo)
    if changed:
        raise WorktreeError(f"the checkout has uncommitted changes ({', '.join(changed[:3])}"
                            f"{', ...' if len(changed) > 3 else ''}); commit or stash them before a bisect")
    commits = commits_between(good, bad, repo)
    steps: list[Regression] = []

    def compare(a: str, b: str, k: int) -> Change:
        r = against_targets(a, [target], [label], cwd=cwd, device=device, budget=budget * k, pairs=pairs * k,
                            head_ref=b)
        steps.append(r)
        if step is not None:
            step(r)
        return r.changes[0]

    total = compare(commits[0], commits[-1], 1)
    out = Bisection(good, bad, total, steps=steps, commits=len(commits) - 1)
    if not _slower(total):
        return out
    lo, hi = 0, len(commits) - 1
    last = total
    while hi - lo > 1:
        mid = (lo + hi) // 2
        k = 1
        while True:
            left, right = compare(commits[lo], commits[mid], k), compare(commits[mid], commits[hi], k)
            in_left = _slower(left) and _holds_one(right)
            in_right = _slower(right) and _holds_one(left)
            if in_left or in_right or k > 2 ** (RETRIES - 1):
                break
            k *= 2
        if not (in_left or in_right):
            out.decided = False
            in_left = math.log(left.ratio) >= math.log(right.ratio)
        if in_left:
            hi, last = mid, left
        else:
            lo, last = mid, right
    out.first_slow, out.change = commits[hi], last
    return out


def subject(commit: str, repo: Path) -> str:
    """The commit's short id and subject line."""
    return git(["log", "-1", "--format=%h %s", commit], repo)


