"""Change points over a history: where a benchmark's level moved, by how much, and how sure that is.

Pairwise checks (a run against the one before) ask the wrong question of a series: one noisy run is
flagged twice (up, then down), and a slow drift of 1% a run is never flagged at all. This module reads
the series whole, as Apache Otava (E-divisive means) and asv's ``step_detect`` do, and, unlike them,
with each run's own uncertainty:

* **The values** are the logs of the runs' medians (a time's, or a count's events per call), so a
  change is a ratio. A run that was disturbed (preempted, drifting: the codes ``compare`` refuses to
  judge) and a run whose own 95% interval is more than :data:`WIDE` times the series' run-to-run
  spread take no part in the search: a disturbed run is not a change. They still show, and the segment
  levels weigh every kept run by ``1 / (own variance + run-to-run variance)``.
* **The run-to-run spread** (:func:`series_spread`) is read from the differences of neighbouring runs
  (their median absolute deviation, which a few change points and outliers barely move).
* **The search** is binary segmentation: in a stretch of ``n`` runs, the values are clipped to within
  :data:`CLIP` run-to-run deviations of the stretch's median (one far run then weighs as one run a
  little off, so a single outlier is never a change, whatever its size), and every split leaving at
  least :data:`MIN_SEGMENT` runs on each side is scored by how many standard errors its two means
  differ; the best split is a change point when its score exceeds what :data:`ALPHA` of unchanged
  stretches of ``n`` runs reach (:func:`critical`: simulated, the spread read from each simulated
  series as from a real one, up to :data:`EXACT_UP_TO` runs; the Brownian bridge's tail beyond, which
  is conservative), and each side is searched again. Then every change point is tried again between
  its neighbours (the split re-placed where it scores best, dropped when it no longer passes), until
  none moves. (Ranks were tried first: they cannot see a change four or five runs from an end of a
  60-run series at all, as five ranks can only reach a score of 3.7.)
* **A drift**: a chain of change points in one direction is a drift when one straight line fits its
  stretch at least as well as the steps do, counting a parameter per level and per change point's
  place (the Bayesian information criterion, variance known); and a segment with no change point is tested for a
  monotone trend (Mann-Kendall, at :data:`ALPHA`) and called a drift when a line beats its flat level
  the same way.
* **What is reported**: each segment's level (the weighted mean of its kept runs, clipped as the search
  clips them) with its 95% interval (from the weights, the variance the search used); each change with
  its ratio (the next level over this one, so the levels shown divide to it) and interval, and its
  p-value (how often unchanged stretches of that length score as high); each drift with its change per
  run and over its stretch.

Everything here is arithmetic on numbers the store keeps (no sample is read), so a history of 10,000
runs answers in well under a second.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import asdict, dataclass
from functools import lru_cache
from statistics import NormalDist
from typing import Any, Sequence

from . import stats

#: The fewest runs on each side of a change point: a change needs this many runs after it to be seen.
MIN_SEGMENT = 4
#: The chance that a stretch with no change shows one (per stretch searched; one per unchanged series).
ALPHA = 0.002
#: A run whose own 95% half-width (log) exceeds this many times the series' run-to-run 95% half-width is
#: too uncertain to place a change: left out of the search (and weighed by its interval in the levels).
WIDE = 3.0
#: Values are clipped to within this many run-to-run deviations of their stretch's median before the
#: means of a split are compared (:func:`best_split`): one far run weighs as one run a little off.
CLIP = 3.0
#: Stretches up to this many runs use critical values simulated from random orders; longer ones the
#: Brownian bridge's tail (:func:`_bridge_tail`).
EXACT_UP_TO = 200
#: Random orders simulated per stretch length (seeded: the same critical value on every machine).
SIMULATIONS = 20_000
Z95 = stats.Z95


@dataclass(frozen=True)
class Segment:
    """Runs ``start`` to ``end - 1`` (indices into the series) at one level: the weighted mean of its
    kept runs (in the series' unit) with its 95% interval; ``runs``: how many runs were kept."""

    start: int
    end: int
    level: float
    low: float
    high: float
    runs: int


@dataclass(frozen=True)
class ChangePoint:
    """The level changes at run ``index`` (the first run of the new segment): ``ratio`` = new level / old
    level with its 95% interval; ``p_value``: how often a random order of the stretch scores as high."""

    index: int
    ratio: float
    low: float
    high: float
    p_value: float


@dataclass(frozen=True)
class Drift:
    """Runs ``start`` to ``end - 1`` move steadily: ``per_run`` is the relative change per run (a line
    through the logs) with its 95% interval, ``total`` the ratio over the stretch."""

    start: int
    end: int
    per_run: float
    low: float
    high: float
    total: float


@dataclass(frozen=True)
class ChangeAnalysis:
    """What :func:`find_changes` found in a series of ``n`` runs: the segments (in order, covering every
    run), the change points between them, the drifts, the runs left out of the search (``(index,
    why)``: ``"disturbed"`` or ``"wide"``), and the run-to-run spread used (relative standard deviation)."""

    n: int
    segments: tuple[Segment, ...]
    changes: tuple[ChangePoint, ...]
    drifts: tuple[Drift, ...]
    left_out: tuple[tuple[int, str], ...]
    spread: float

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "spread": self.spread, "segments": [asdict(s) for s in self.segments],
                "changes": [asdict(c) for c in self.changes], "drifts": [asdict(d) for d in self.drifts],
                "left_out": [list(x) for x in self.left_out]}


# ==================================================================================================
# The statistics
# ==================================================================================================

def _median(xs: Sequence[float]) -> float:
    return float(stats.median(xs)) if len(xs) else math.nan


def series_spread(logs: Sequence[float]) -> float | None:
    """The run-to-run standard deviation of a series of log values, from its neighbours' differences:
    1.4826 × their median absolute deviation / √2 (``None`` below three values)."""
    if len(logs) < 3:
        return None
    d = [b - a for a, b in zip(logs, logs[1:])]
    m = _median(d)
    return stats.MAD_TO_SIGMA * _median([abs(x - m) for x in d]) / math.sqrt(2.0)


def _clipped(xs: Sequence[float], tau: float) -> list[float]:
    """``xs`` clipped to within :data:`CLIP` run-to-run deviations ``tau`` of their median."""
    mid = _median(xs)
    return [min(max(x, mid - CLIP * tau), mid + CLIP * tau) for x in xs]


def best_split(xs: Sequence[float], tau: float, m: int = MIN_SEGMENT,
               ws: Sequence[float] | None = None) -> tuple[int, float]:
    """The split ``k`` (``xs[:k]`` against ``xs[k:]``, each side at least ``m``) whose means differ most
    in standard errors, ``xs`` clipped to within :data:`CLIP` run-to-run deviations ``tau`` of their median
    (so that one far run moves a side's mean by at most ``CLIP · tau / m``), and that score (``(0, 0.0)``
    when too short or ``tau`` is 0). ``ws``: each value's weight, 1 / its variance (default ``1 / tau²``):
    the means are weighted, and a side's variance is 1 / its weights' sum."""
    n = len(xs)
    if n < 2 * m or not tau > 0:
        return 0, 0.0
    c = _clipped(xs, tau)
    w = list(ws) if ws is not None else [1.0 / tau ** 2] * n
    total, wtotal = sum(wi * ci for wi, ci in zip(w, c)), sum(w)
    best, at, left, wleft = 0.0, 0, 0.0, 0.0
    for k in range(1, n - m + 1):
        left += w[k - 1] * c[k - 1]
        wleft += w[k - 1]
        if k < m:
            continue
        wright = wtotal - wleft
        diff = left / wleft - (total - left) / wright
        score = abs(diff) / math.sqrt(1.0 / wleft + 1.0 / wright)
        if score > best + 1e-12:
            best, at = score, k
    return at, best


@lru_cache(maxsize=None)
def _known(n: int, m: int) -> tuple[float, ...]:
    """The best split's score (:func:`best_split`) over :data:`SIMULATIONS` series of ``n`` runs with no
    change, normal noise of a known spread (seeded: the same values on every machine)."""
    import numpy as np

    rng = np.random.default_rng(20261205 + 1000 * n + m)
    out = []
    k = np.arange(m, n - m + 1, dtype=float)
    scale = np.sqrt(1.0 / k + 1.0 / (n - k))
    chunk = max(1, 2_000_000 // n)
    done = 0
    while done < SIMULATIONS:
        rows = min(chunk, SIMULATIONS - done)
        x = rng.standard_normal((rows, n))
        mid = np.median(x, axis=1, keepdims=True)
        sums = np.cumsum(np.clip(x, mid - CLIP, mid + CLIP), axis=1)
        left = sums[:, m - 1:n - m]
        diff = left / k - (sums[:, -1:] - left) / (n - k)
        out.append(np.max(np.abs(diff) / scale, axis=1))
        done += rows
    return tuple(float(v) for v in np.concatenate(out))


#: The factor by which clipping at :data:`CLIP` standard deviations shrinks a normal variable's root mean
#: square: E[min(|X|, c)²] = 2Φ(c) - 1 - 2cφ(c) + 2c²(1 - Φ(c)).
_CLIP_RMS = math.sqrt(math.erf(CLIP / math.sqrt(2.0)) - 2.0 * CLIP * math.exp(-CLIP * CLIP / 2.0) / math.sqrt(2.0 * math.pi)
                      + CLIP * CLIP * math.erfc(CLIP / math.sqrt(2.0)))


def residual_spread(z: Sequence[float], cuts: Sequence[int], rough: float) -> float:
    """The run-to-run standard deviation read again once the levels are known: the root mean square of
    each run's distance from its segment's median (``cuts``: the segments' starts after the first), each
    distance clipped at :data:`CLIP` times the ``rough`` spread, corrected for the clipping. Near twice as
    efficient as :func:`series_spread`, so the search's critical values can be lower for the same
    false alarm rate."""
    edges = [0, *cuts, len(z)]
    total, dof = 0.0, 0
    for a, b in zip(edges, edges[1:]):
        mid = _median(z[a:b])
        total += sum(min(abs(x - mid), CLIP * rough) ** 2 for x in z[a:b])
        dof += b - a - 1
    return math.sqrt(total / max(dof, 1)) / _CLIP_RMS


@lru_cache(maxsize=None)
def _read_spread(total: int) -> tuple[float, ...]:
    """The spread the search reads (:func:`residual_spread` over :func:`series_spread`, as :func:`find_changes`
    reads it) from :data:`SIMULATIONS` unchanged series of ``total`` runs of unit spread: how far it misses
    the true one (seeded)."""
    import numpy as np

    rng = np.random.default_rng(7 + total)
    out = []
    chunk = max(1, 2_000_000 // total)
    done = 0
    while done < SIMULATIONS:
        rows = min(chunk, SIMULATIONS - done)
        x = rng.standard_normal((rows, total))
        d = np.diff(x, axis=1)
        dm = np.median(d, axis=1, keepdims=True)
        rough = stats.MAD_TO_SIGMA * np.median(np.abs(d - dm), axis=1, keepdims=True) / math.sqrt(2.0)
        r = np.minimum(np.abs(x - np.median(x, axis=1, keepdims=True)), CLIP * rough)
        out.append(np.sqrt(np.sum(r * r, axis=1) / (total - 1)) / _CLIP_RMS)
        done += rows
    return tuple(float(v) for v in np.concatenate(out))


@lru_cache(maxsize=None)
def _simulated(n: int, m: int, total: int) -> tuple[float, ...]:
    """The best split's score over unchanged stretches of ``n`` runs when the spread is read from the
    ``total`` runs of the series (so a short series' uncertain spread widens its critical values), sorted."""
    import numpy as np

    known = np.asarray(_known(n, m))
    spread = np.asarray(_read_spread(max(total, n)))
    np.random.default_rng(11 + n + total).shuffle(spread)
    return tuple(float(v) for v in np.sort(known / np.maximum(spread, 1e-12)))


def _bridge_tail(c: float, n: int, m: int) -> float:
    """P(the best standardised split of ``n`` runs scores above ``c``) for long stretches: the
    standardised Brownian bridge's maximum over t in [m/n, 1 - m/n] (the Vostrikova / Siegmund
    approximation: c·φ(c)·log(((1-t0)/t0)²) + 4·φ(c)/c; above the simulated values, so conservative)."""
    t0 = m / n
    phi = math.exp(-c * c / 2.0) / math.sqrt(2.0 * math.pi)
    return min(1.0, c * phi * math.log(((1.0 - t0) / t0) ** 2) + 4.0 * phi / c)


def _grid(total: int) -> int:
    """Series lengths read alike for the spread's uncertainty (every length to 64, then steps of 1/8)."""
    if total <= 64:
        return total
    step = 1 << (int(math.log2(total)) - 3)
    return min(EXACT_UP_TO, total // step * step)


def p_value(score: float, n: int, total: int, m: int = MIN_SEGMENT) -> float:
    """How often the best split of ``n`` unchanged runs, of a series of ``total`` runs, scores ``score``
    or more."""
    if n < 2 * m:
        return 1.0
    if n <= EXACT_UP_TO:
        sims = _simulated(n, m, _grid(total))
        above = len(sims) - bisect.bisect_left(sims, score - 1e-9)
        return (above + 1) / (len(sims) + 1)
    return _bridge_tail(score, n, m)


def critical(n: int, total: int, m: int = MIN_SEGMENT, alpha: float = ALPHA) -> float:
    """The score the best split of ``n`` runs, of a series of ``total`` runs, must exceed to be a change
    point at level ``alpha``."""
    if n <= EXACT_UP_TO:
        sims = _simulated(n, m, _grid(total))
        return sims[min(len(sims) - 1, int(math.ceil((1.0 - alpha) * len(sims))) - 1)]
    lo, hi = 1.0, 12.0
    for _ in range(60):
        mid = (lo + hi) / 2.0
        lo, hi = (mid, hi) if _bridge_tail(mid, n, m) > alpha else (lo, mid)
    return hi


# ==================================================================================================
# The search
# ==================================================================================================

def _segmentation(z: Sequence[float], ws: Sequence[float], tau: float, m: int, alpha: float) -> list[int]:
    """Binary segmentation of ``z`` on ranks, then every change point re-placed between its neighbours
    until none moves (see the module docstring); the change points as split positions, sorted."""
    cps: list[int] = []
    todo = [(0, len(z))]
    while todo:
        a, b = todo.pop()
        k, score = best_split(z[a:b], tau, m, ws[a:b])
        if k and score > critical(b - a, len(z), m, alpha):
            cps.append(a + k)
            todo += [(a, a + k), (a + k, b)]
    cps.sort()
    for _ in range(4 * len(cps) + 4):
        moved = False
        for j in range(len(cps)):
            a = cps[j - 1] if j else 0
            b = cps[j + 1] if j + 1 < len(cps) else len(z)
            k, score = best_split(z[a:b], tau, m, ws[a:b])
            if not k or score <= critical(b - a, len(z), m, alpha):
                del cps[j]
                moved = True
                break
            if a + k != cps[j]:
                cps[j] = a + k
                moved = True
        if not moved:
            break
    return cps


def _level(ys: Sequence[float], ws: Sequence[float], tau: float) -> tuple[float, float]:
    """A segment's level: the weighted mean of its logs clipped as :func:`best_split` clips them, and its
    standard error (1 / √ the weights' sum: the variance the search used, so a change it found has an
    interval that excludes no change)."""
    c = _clipped(ys, tau)
    total = sum(ws)
    return sum(w * y for w, y in zip(ws, c)) / total, 1.0 / math.sqrt(total)


def _line(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float, float, float]:
    """Least squares ``y = a + b·x``: (a, b, residual sum of squares, the slope's standard error)."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx > 0 else 0.0
    a = my - b * mx
    rss = sum((y - a - b * x) ** 2 for x, y in zip(xs, ys))
    se = math.sqrt(rss / (n - 2) / sxx) if n > 2 and sxx > 0 else math.inf
    return a, b, rss, se


def _steps_rss(ys: Sequence[float], cuts: Sequence[int]) -> float:
    """The residual sum of squares of a level per piece (``cuts``: the pieces' starts after the first)."""
    out, edges = 0.0, [0, *cuts, len(ys)]
    for a, b in zip(edges, edges[1:]):
        piece = ys[a:b]
        mean = sum(piece) / len(piece)
        out += sum((y - mean) ** 2 for y in piece)
    return out


def _mann_kendall(ys: Sequence[float]) -> float:
    """Mann-Kendall's trend statistic, standardised (ties ignored in the variance: conservative enough)."""
    n = len(ys)
    s = sum((ys[j] > ys[i]) - (ys[j] < ys[i]) for i in range(n) for j in range(i + 1, n))
    var = n * (n - 1) * (2 * n + 5) / 18.0
    return 0.0 if var <= 0 or s == 0 else (s - (1 if s > 0 else -1)) / math.sqrt(var)


def find_changes(values: Sequence[float], own: Sequence[float] | None = None,
                 disturbed: Sequence[bool] | None = None, *, min_segment: int = MIN_SEGMENT,
                 alpha: float = ALPHA) -> ChangeAnalysis:
    """The segments, change points and drifts of a series of positive ``values`` (oldest first; a time's
    medians or a count's events per call), given each run's own 95% log half-width ``own`` (0 or
    infinite when unknown) and whether it was ``disturbed`` (see the module docstring). A value that is
    not a positive finite number is left out as disturbed."""
    n = len(values)
    if not (isinstance(min_segment, int) and min_segment >= 2):
        raise ValueError(f"min_segment takes a number of runs of at least 2; got {min_segment!r}")
    if not (0.0 < alpha < 0.5):
        raise ValueError(f"alpha takes a probability between 0 and 0.5; got {alpha!r}")
    own = list(own) if own is not None else [0.0] * n
    disturbed = list(disturbed) if disturbed is not None else [False] * n
    if len(own) != n or len(disturbed) != n:
        raise ValueError("values, own and disturbed must be as long as each other")
    logs = [math.log(v) if v > 0 and math.isfinite(v) else math.nan for v in values]
    left: list[tuple[int, str]] = [(i, "disturbed") for i in range(n) if disturbed[i] or not math.isfinite(logs[i])]
    kept = [i for i in range(n) if not (disturbed[i] or not math.isfinite(logs[i]))]
    tau = series_spread([logs[i] for i in kept]) or 0.0
    own_sd = [max(0.0, o) / Z95 if math.isfinite(o) else 0.0 for o in own]  # unknown: the spread alone
    if tau > 0:
        wide = [i for i in kept if own_sd[i] > WIDE * tau]
        left += [(i, "wide") for i in wide]
        kept = [i for i in kept if i not in set(wide)]
    left.sort()
    if not kept:
        return ChangeAnalysis(n, (), (), (), tuple(left), tau)
    z = [logs[i] for i in kept]
    if tau > 0:  # the spread read again around the levels a first search finds (see residual_spread)
        rough = tau
        first = _segmentation(z, [1.0 / (own_sd[i] ** 2 + rough ** 2) for i in kept], rough, min_segment, alpha)
        tau = residual_spread(z, first, rough)
    floor = max(tau, 1e-9)
    ws = [1.0 / (own_sd[i] ** 2 + floor ** 2) for i in kept]
    cuts = _segmentation(z, ws, floor, min_segment, alpha)

    # chains of change points in one direction: a drift when a line fits as well as the steps
    edges = [0, *cuts, len(z)]
    means = [sum(z[a:b]) / (b - a) for a, b in zip(edges, edges[1:])]
    drifts_at: list[tuple[int, int]] = []  # (first piece, last piece) of each drift, pieces of ``edges``
    j = 0
    while j < len(cuts):
        sign = means[j + 1] > means[j]
        e = j
        while e + 1 < len(cuts) and (means[e + 2] > means[e + 1]) == sign:
            e += 1
        a, b = edges[j], edges[e + 2]
        piece = z[a:b]
        xs = [float(x) for x in range(len(piece))]
        k = e - j + 1  # change points in the chain
        # Bayesian information criterion, variance known: the steps estimate k + 1 levels and k places
        step_cost = _steps_rss(piece, [c - a for c in cuts[j:e + 1]]) / floor ** 2 + (2 * k + 1) * math.log(len(piece))
        line_cost = _line(xs, piece)[2] / floor ** 2 + 2 * math.log(len(piece))
        if line_cost <= step_cost:
            drifts_at.append((j, e + 1))
        j = e + 1
    drifted_cuts = {c for f, l in drifts_at for c in cuts[f:l]}
    final_cuts = [c for c in cuts if c not in drifted_cuts]
    chains = {(edges[f], edges[l + 1]) for f, l in drifts_at}  # each chain's stretch is one final segment

    # a segment with no change point may still drift: Mann-Kendall, and a line that beats the flat level
    crit = NormalDist().inv_cdf(1.0 - alpha / 2.0)
    edges = [0, *final_cuts, len(z)]
    spans: list[tuple[int, int]] = []
    for a, b in zip(edges, edges[1:]):
        piece = z[a:b]
        if (a, b) in chains:
            spans.append((a, b))
        elif len(piece) >= 2 * min_segment and abs(_mann_kendall(piece)) > crit:
            xs = [float(x) for x in range(len(piece))]
            mean = sum(piece) / len(piece)
            flat = sum((y - mean) ** 2 for y in piece) / floor ** 2 + math.log(len(piece))
            if _line(xs, piece)[2] / floor ** 2 + 2 * math.log(len(piece)) < flat:  # noqa: SIM102
                spans.append((a, b))
    drifts: list[Drift] = []
    for a, b in spans:
        piece = z[a:b]
        xs = [float(kept[i]) for i in range(a, b)]
        _, slope, _, se = _line(xs, piece)
        t = stats.t975(len(piece) - 2)
        drifts.append(Drift(kept[a], kept[b - 1] + 1, math.expm1(slope), math.expm1(slope - t * se),
                            math.expm1(slope + t * se), math.exp(slope * (xs[-1] - xs[0]))))

    # segments over every run (left-out runs belong to the segment they fall in) and the changes between
    starts = [0] + [kept[c] for c in final_cuts]
    ends = starts[1:] + [n]
    segments: list[Segment] = []
    levels: list[tuple[float, float]] = []
    for (a, b), s, e in zip(zip([0, *final_cuts], [*final_cuts, len(z)]), starts, ends):
        mean, se = _level(z[a:b], ws[a:b], floor)
        segments.append(Segment(s, e, math.exp(mean), math.exp(mean - Z95 * se), math.exp(mean + Z95 * se), b - a))
        levels.append((mean, se))
    changes: list[ChangePoint] = []
    bounds = [0, *final_cuts, len(z)]
    for j, c in enumerate(final_cuts):
        (m0, s0), (m1, s1) = levels[j], levels[j + 1]
        d, se = m1 - m0, math.sqrt(s0 ** 2 + s1 ** 2)
        score = best_split(z[bounds[j]:bounds[j + 2]], floor, min_segment, ws[bounds[j]:bounds[j + 2]])[1]
        changes.append(ChangePoint(kept[c], math.exp(d), math.exp(d - Z95 * se), math.exp(d + Z95 * se),
                                   p_value(score, bounds[j + 2] - bounds[j], len(z), min_segment)))
    return ChangeAnalysis(n, tuple(segments), tuple(changes), tuple(drifts), tuple(left), tau)
