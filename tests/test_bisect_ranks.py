"""measurefirst bisect decides by the worker pairs' ranks (tools/bisect.py): the exact rank-sum
distribution, the two-sample shift and its interval, the ends and step rules, and whole bisects over
simulated pairs in which some workers land in another speed mode (seeded; no clock, no process)."""

from __future__ import annotations

import itertools
import math
import random
from pathlib import Path
from typing import Any

import pytest

from measurefirst.results import stats
from measurefirst.results.regression import Change, Regression
from measurefirst.tools import bisect as B


def _brute_critical(n: int, m: int, confidence: float = 0.95) -> int | None:
    """The same critical value by counting every ordering of n + m values."""
    counts: dict[int, int] = {}
    for firsts in itertools.combinations(range(n + m), n):
        u = sum(sum(1 for j in range(n + m) if j not in firsts and j < i) for i in firsts)
        counts[u] = counts.get(u, 0) + 1
    total, cdf, best = math.comb(n + m, n), 0, None
    for u in sorted(counts):
        cdf += counts[u]
        if cdf / total <= (1 - confidence) / 2 + 1e-15:
            best = u
    return best


@pytest.mark.parametrize("n,m", [(3, 3), (4, 4), (4, 6), (5, 5), (6, 6), (3, 7), (7, 5)])
def test_the_rank_sum_critical_value_is_exact(n: int, m: int):
    assert stats.rank_sum_critical(n, m) == _brute_critical(n, m)


def test_the_rank_sum_critical_values_match_the_tables():
    # two-sided 5%: the usual table of the Mann-Whitney U
    assert [stats.rank_sum_critical(k, k) for k in (4, 5, 6, 8, 10)] == [0, 2, 5, 13, 23]
    assert stats.rank_sum_critical(3, 3) is None  # 1/20 > 2.5%: three against three cannot decide


def test_the_shift_is_the_median_difference_and_one_far_value_barely_moves_it():
    xs, ys = [1.0, 2.0, 3.0, 4.0, 5.0], [0.0, 0.5, 1.0, 1.5, 2.0]
    est = stats.hodges_lehmann_shift(xs, ys)
    assert est.estimate == pytest.approx(2.0)
    assert est.ci_low is not None and est.ci_high is not None and est.ci_low < 2.0 < est.ci_high
    far = stats.hodges_lehmann_shift(xs[:-1] + [500.0], ys)
    assert far.estimate == pytest.approx(2.0, abs=0.5)
    assert stats.hodges_lehmann_shift([1.0, 2.0, 3.0], [0.0, 0.1, 0.2]).ci_low is None
    with pytest.raises(ValueError):
        stats.hodges_lehmann_shift([], [1.0])


def _change(ratios: list[float]) -> Change:
    return Change("f", 1.0, 1.0, 1.0, 0.9, 1.1, False, False, pair_ratios=tuple(ratios))


def test_the_ends_need_six_pairs_and_a_mode_costs_only_a_rank():
    assert B.ends_check(_change([1.03] * 5))[1] is None  # five pairs give the median no 95% interval
    assert B.ends_check(_change([1.03, 1.031, 1.029, 1.032, 1.028, 1.03]))[1] is True
    assert B.ends_check(_change([0.97, 0.971, 0.969, 0.972, 0.968, 0.97]))[1] is False
    one_off = [1.03, 1.031, 1.029, 1.032, 1.028, 1.03, 1.031, 1.029, 1.03, 0.85]  # a base worker in a slow mode
    est, slower = B.ends_check(_change(one_off))
    assert slower is True and est is not None and math.exp(est.estimate) == pytest.approx(1.03, abs=0.002)
    assert est.ci_low is not None and math.exp(est.ci_low) > 1.02  # the far pair moved the interval one rank
    assert B.ends_check(_change([1.0, 1.001, 0.999, 1.002, 0.998, 1.0, 1.001, 1.12]))[1] is None
    assert B.ends_check(_change([]))[1] is None


def test_a_step_goes_to_the_half_whose_pairs_rank_slower():
    slow, same = [1.03, 1.031, 1.029, 1.15], [1.0, 1.001, 0.999, 1.002]
    assert B.step_side(_change(slow), _change(same))[1] == "left"
    assert B.step_side(_change(same), _change(slow))[1] == "right"
    crossed = [1.0, 1.001, 0.999, 1.06]  # a pair of the fast half with its base worker in a slow mode
    assert B.step_side(_change(slow), _change(crossed))[1] is None  # four against four: every difference must agree
    est, side = B.step_side(_change(slow + [1.032, 1.028]), _change(crossed + [1.0, 0.998]))
    assert side == "left" and est.ci_low is not None and est.ci_low > 0


def _simulate(monkeypatch: pytest.MonkeyPatch, commits: int, slow_at: int, *, rng: random.Random, effect: float,
              mode_rate: float) -> tuple[B.Bisection, list[int]]:
    """A bisect over ``commits`` simulated commits, commit ``slow_at`` making the call ``effect`` slower; each
    worker lands in a slow mode (3-15%) with probability ``mode_rate``, and a pair's ratio has 0.5% noise."""
    shas = [f"c{i}" for i in range(commits + 1)]
    looks: list[int] = []

    def speed(sha: str) -> float:
        return 1.0 + effect if int(sha[1:]) >= slow_at else 1.0

    def worker() -> float:
        return 1.0 + rng.uniform(0.03, 0.15) if rng.random() < mode_rate else 1.0

    def measure(a: str, head_ref: str, pairs: int, per_pair: float, seed: int) -> B.Pairs:
        looks.append(pairs)
        ratios = [speed(head_ref) * worker() / (speed(a) * worker()) * math.exp(rng.gauss(0.0, 0.005))
                  for _ in range(pairs)]
        return B.Pairs([ratios], a, head_ref)  # type: ignore[list-item]

    def join(parts: Any, label: str, threshold: float) -> tuple[Change, None]:
        return _change(list(parts)), None

    monkeypatch.setattr(B, "toplevel", lambda cwd: cwd)
    monkeypatch.setattr(B, "dirty", lambda repo: [])
    monkeypatch.setattr(B, "commits_between", lambda good, bad, repo: shas)
    monkeypatch.setattr(B, "join", join)
    said: list[Regression] = []
    found = B.bisect(shas[0], shas[-1], measure, "mod:f", cwd=Path("."), budget=2.0, step=said.append)
    assert len(said) == len(looks) and all(len(r.changes[0].pair_ratios) >= 4 for r in said)
    return found, looks


def test_bisect_by_ranks_names_a_3_percent_commit_though_workers_land_in_slow_modes(monkeypatch: pytest.MonkeyPatch):
    rng = random.Random(33)
    right = wrong_decided = nothing = 0
    for _ in range(100):  # one worker in ten in a slow mode, as measured here on a busy day
        slow_at = rng.randint(1, 64)
        found, looks = _simulate(monkeypatch, 64, slow_at, rng=rng, effect=0.031, mode_rate=0.1)
        assert found.commits == 64
        if found.first_slow is None:  # the ends stayed undecided at 30 pairs: said, never a wrong commit
            nothing += 1
            assert found.ends is not None and sum(looks) == B.ENDS_MAX_PAIRS and not found.searched
            continue
        assert len(found.searched) == 6 and all(s.pairs <= B.MAX_PAIRS for s in found.searched)
        right += found.first_slow == f"c{slow_at}"
        wrong_decided += found.decided and found.first_slow != f"c{slow_at}"
    assert right >= 97 and nothing <= 2, (right, nothing)  # 12 and 20 pairs at most: 90 and 8 held here
    assert wrong_decided == 0


def test_a_busier_day_still_names_the_commit(monkeypatch: pytest.MonkeyPatch):
    # one worker in five in a slow mode: with at most 12 pairs a step (20 at the ends) 165 of 200 were right
    # on these seeds, 17 stopped at the ends; with 20 (30) the steps and the ends decide
    rng = random.Random(1)
    right = nothing = 0
    for _ in range(200):
        slow_at = rng.randint(1, 64)
        found, _ = _simulate(monkeypatch, 64, slow_at, rng=rng, effect=0.031, mode_rate=0.2)
        nothing += found.first_slow is None
        right += found.first_slow == f"c{slow_at}"
    assert right >= 190 and nothing <= 6, (right, nothing)


def test_an_unchanged_range_is_not_bisected(monkeypatch: pytest.MonkeyPatch):
    rng = random.Random(7)
    found_any = 0
    for _ in range(100):
        found, looks = _simulate(monkeypatch, 8, 10 ** 6, rng=rng, effect=0.0, mode_rate=0.1)
        found_any += found.first_slow is not None
        assert found.ends is not None
        if found.first_slow is None:
            assert sum(looks) <= B.ENDS_MAX_PAIRS and not found.searched
    assert found_any <= 8, found_any  # the ends' 95% interval: about 5 in 100 go on to search
