"""Pure statistics on samples: no clocks, no devices, no printing.

All functions take plain sequences of floats (any unit) and return floats in the same unit.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

#: Two-sided 95% normal quantile.
Z95 = 1.959963984540054
#: Modified z-score above which a sample counts as an outlier (Iglewicz and Hoaglin).
OUTLIER_MODIFIED_Z = 3.5
#: Scale that makes the MAD a consistent estimator of the standard deviation for normal data.
MAD_TO_SIGMA = 1.482602218505602
#: Up to this many samples the median's confidence interval uses exact binomial ranks.
EXACT_RANKS_UP_TO = 1000
#: Fewest samples for which a 95% distribution-free CI of the median exists.
MIN_SAMPLES_FOR_CI = 6


def median(values: Sequence[float]) -> float:
    if len(values) == 0:
        raise ValueError("median of no values")
    return float(np.median(np.asarray(values, dtype=float)))


@functools.lru_cache(maxsize=4096)
def median_ci_ranks(n: int, confidence: float = 0.95) -> tuple[int, int] | None:
    """0-based ranks ``(lo, hi)`` into the sorted sample whose order statistics bound a
    distribution-free confidence interval of the median.

    The interval ``[x_(lo), x_(hi)]`` covers the true median with probability
    ``1 - 2 * P(B <= lo)`` for ``B ~ Binomial(n, 1/2)``, which is at least ``confidence``.
    Exact up to :data:`EXACT_RANKS_UP_TO` samples, normal approximation beyond.
    Returns ``None`` when no such interval exists (fewer than 6 samples at 95%).
    """
    if n <= 0:
        return None
    alpha_half = (1.0 - confidence) / 2.0
    if n <= EXACT_RANKS_UP_TO:
        # cumulative P(B <= j) for j = 0, 1, ...; find the largest lo with P(B <= lo - 1) <= alpha/2
        log_half_n = -n * math.log(2.0)
        cum = 0.0
        best_j = -1  # largest j with P(B <= j) <= alpha/2
        for j in range(n // 2 + 1):
            cum += math.exp(math.lgamma(n + 1) - math.lgamma(j + 1) - math.lgamma(n - j + 1) + log_half_n)
            if cum > alpha_half + 1e-15:
                break
            best_j = j
        if best_j < 0:
            return None
        # 1-based ranks r = j + 1 and n - j: coverage 1 - 2 P(B <= j)
        return best_j, n - best_j - 1
    z = _normal_quantile(1.0 - alpha_half)
    j = int(math.floor(n / 2.0 - z * math.sqrt(n) / 2.0))  # 1-based lower rank
    j = max(j, 1)
    return j - 1, n - j


def _normal_quantile(p: float) -> float:
    if abs(p - 0.975) < 1e-12:
        return Z95
    # Acklam's rational approximation is more than we need; bisection on erf is exact enough.
    lo, hi = -10.0, 10.0
    for _ in range(100):
        mid = (lo + hi) / 2
        if 0.5 * (1 + math.erf(mid / math.sqrt(2))) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def median_ci(values: Sequence[float], confidence: float = 0.95, *, presorted: bool = False) -> tuple[float, float] | None:
    """Distribution-free confidence interval of the median, or ``None`` with too few samples."""
    ranks = median_ci_ranks(len(values), confidence)
    if ranks is None:
        return None
    s = values if presorted else sorted(values)
    return float(s[ranks[0]]), float(s[ranks[1]])


def relative_half_width(values: Sequence[float], confidence: float = 0.95, *, presorted: bool = False) -> float:
    """Half the width of the median's CI divided by the median; ``inf`` when no CI exists."""
    ci = median_ci(values, confidence, presorted=presorted)
    if ci is None:
        return math.inf
    s = values if presorted else sorted(values)
    n = len(s)
    med = (s[(n - 1) // 2] + s[n // 2]) / 2.0
    if med <= 0:
        return math.inf
    return (ci[1] - ci[0]) / 2.0 / med


#: Time-correlated noise (a machine whose speed changes for stretches of the run) makes the
#: order-statistic CI too narrow, since it assumes independent samples. So the samples, in the
#: order they were taken, are also cut into this many consecutive batches, and the spread of the
#: batch medians gives a second half-width (t-distribution, batches - 1 degrees of freedom).
CI_BATCHES = 10
#: The batch check needs at least this many samples per batch.
MIN_PER_BATCH = 5
#: t quantile 0.975 with CI_BATCHES - 1 = 9 degrees of freedom.
T975_BATCHES = 2.2621571627409915


def batch_half_width(values_in_order: Sequence[float]) -> float:
    """Relative half-width of the median's 95% CI from the medians of consecutive batches; 0 when
    there are too few samples for the check (fewer than ``CI_BATCHES * MIN_PER_BATCH``)."""
    n = len(values_in_order)
    if n < CI_BATCHES * MIN_PER_BATCH:
        return 0.0
    a = np.asarray(values_in_order, dtype=float)
    meds = np.array([np.median(part) for part in np.array_split(a, CI_BATCHES)])
    med = float(np.median(a))
    if med <= 0:
        return math.inf
    return T975_BATCHES * float(meds.std(ddof=1)) / math.sqrt(CI_BATCHES) / med


def median_half_width(values_in_order: Sequence[float]) -> float:
    """The stopping rule's relative half-width: the wider of the order-statistic CI and the
    batch-median CI (see :data:`CI_BATCHES`)."""
    return max(relative_half_width(sorted(values_in_order), presorted=True), batch_half_width(values_in_order))


def outlier_mask(values: Sequence[float], threshold: float = OUTLIER_MODIFIED_Z) -> np.ndarray:
    """Boolean mask of samples whose modified z-score ``|x - median| / (1.4826 MAD)`` exceeds
    ``threshold``. With a zero MAD, every sample different from the median is an outlier."""
    a = np.asarray(values, dtype=float)
    if a.size == 0:
        return np.zeros(0, dtype=bool)
    med = np.median(a)
    dev = np.abs(a - med)
    scale = MAD_TO_SIGMA * np.median(dev)
    if scale == 0:
        return dev > 0
    return dev / scale > threshold


@dataclass(frozen=True)
class Summary:
    """Descriptive statistics of per-call times (same unit as the input)."""

    n: int
    median: float
    mean: float
    min: float
    max: float
    stdev: float
    q1: float
    q3: float
    iqr: float
    ci_low: float | None
    ci_high: float | None
    outliers: int
    ci_method: str = "order statistics"

    @property
    def ci_half_width_rel(self) -> float:
        if self.ci_low is None or self.ci_high is None or self.median <= 0:
            return math.inf
        return (self.ci_high - self.ci_low) / 2.0 / self.median


def summarize(values: Sequence[float], confidence: float = 0.95) -> Summary:
    """Statistics of ``values``, given in the order they were measured (the order matters only for
    the CI's batch check; see :data:`CI_BATCHES`)."""
    ordered = np.asarray(values, dtype=float)
    a = np.sort(ordered)
    n = int(a.size)
    if n == 0:
        raise ValueError("cannot summarize zero samples")
    q1, med, q3 = (float(x) for x in np.percentile(a, [25, 50, 75]))
    ci = median_ci(a, confidence, presorted=True)
    method = "order statistics"
    if ci is not None and confidence == 0.95 and med > 0:
        batch = batch_half_width(ordered)
        if batch * med > (ci[1] - ci[0]) / 2:
            ci = (med * (1 - batch), med * (1 + batch))
            method = "batch medians"
    return Summary(
        n=n,
        median=med,
        mean=float(a.mean()),
        min=float(a[0]),
        max=float(a[-1]),
        stdev=float(a.std(ddof=1)) if n > 1 else 0.0,
        q1=q1,
        q3=q3,
        iqr=q3 - q1,
        ci_low=None if ci is None else ci[0],
        ci_high=None if ci is None else ci[1],
        outliers=int(outlier_mask(a).sum()),
        ci_method=method,
    )


# ---- paired comparisons -----------------------------------------------------------------------
#: Up to this many pairs the signed-rank distribution is computed exactly.
EXACT_SIGNED_RANK_UP_TO = 60


@functools.lru_cache(maxsize=256)
def signed_rank_critical(n: int, confidence: float = 0.95) -> int | None:
    """Largest ``c`` with ``P(T <= c) <= (1 - confidence) / 2`` for the Wilcoxon signed-rank
    statistic ``T`` of ``n`` pairs; ``None`` when no such ``c`` exists (n < 6 at 95%)."""
    alpha_half = (1.0 - confidence) / 2.0
    total = n * (n + 1) // 2
    if n <= 0:
        return None
    if n <= EXACT_SIGNED_RANK_UP_TO:
        counts = np.zeros(total + 1)
        counts[0] = 1.0
        for k in range(1, n + 1):
            counts[k:] = counts[k:] + counts[:-k].copy()
        cdf = np.cumsum(counts) / 2.0**n
        ok = np.flatnonzero(cdf <= alpha_half + 1e-15)
        return int(ok[-1]) if ok.size else None
    mean = total / 2.0
    sd = math.sqrt(n * (n + 1) * (2 * n + 1) / 24.0)
    return max(int(math.floor(mean - _normal_quantile(1.0 - alpha_half) * sd - 0.5)), 0)


@dataclass(frozen=True)
class PairedEstimate:
    """Hodges-Lehmann estimate of the centre of paired differences, with its signed-rank CI."""

    n: int
    estimate: float
    ci_low: float | None
    ci_high: float | None


def hodges_lehmann(differences: Sequence[float], confidence: float = 0.95) -> PairedEstimate:
    """Median of the Walsh averages ``(d_i + d_j) / 2, i <= j`` and the distribution-free
    confidence interval that inverts the Wilcoxon signed-rank test (as R's ``wilcox.test``)."""
    d = np.asarray(differences, dtype=float)
    n = int(d.size)
    if n == 0:
        raise ValueError("no paired differences")
    i, j = np.triu_indices(n)
    walsh = np.sort((d[i] + d[j]) / 2.0)
    est = float(np.median(walsh))
    c = signed_rank_critical(n, confidence)
    if c is None:
        return PairedEstimate(n, est, None, None)
    return PairedEstimate(n, est, float(walsh[c]), float(walsh[walsh.size - 1 - c]))
