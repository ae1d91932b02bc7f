"""Pure statistics on samples: no clocks, no devices, no printing.

All functions take plain sequences of floats (any unit) and return floats in the same unit.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence, Union

from .._lazy import deferred

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    #: A series of numbers: a list or a numpy array.
    Values = Union[Sequence[float], np.ndarray]
else:  # imported on first use: the commands that only read the store's columns never need it
    np = deferred("numpy", globals(), "np")

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


def median(values: Values) -> float:
    """The median; of a list or tuple, in Python (the very value numpy gives: the middle value, or the
    mean of the two middle ones; NaN when one is NaN), so that a few numbers need no numpy."""
    if len(values) == 0:
        raise ValueError("median of no values")
    if isinstance(values, (list, tuple)):
        xs = sorted(float(x) for x in values)
        if any(x != x for x in xs):
            return math.nan
        k = len(xs) // 2
        return xs[k] if len(xs) % 2 else (xs[k - 1] + xs[k]) / 2
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
    z = normal_quantile(1.0 - alpha_half)
    j = int(math.floor(n / 2.0 - z * math.sqrt(n) / 2.0))  # 1-based lower rank
    j = max(j, 1)
    return j - 1, n - j


def normal_quantile(p: float) -> float:
    """The standard normal distribution's quantile at ``p``."""
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


def median_ci(values: Values, confidence: float = 0.95, *, presorted: bool = False) -> tuple[float, float] | None:
    """Distribution-free confidence interval of the median, or ``None`` with too few samples."""
    ranks = median_ci_ranks(len(values), confidence)
    if ranks is None:
        return None
    s = values if presorted else sorted(values)
    return float(s[ranks[0]]), float(s[ranks[1]])


def relative_half_width(values: Values, confidence: float = 0.95, *, presorted: bool = False) -> float:
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
#: order they were taken, are also cut into consecutive batches, each at least
#: :data:`BATCH_TAU_FACTOR` times the series' integrated autocorrelation time long (so that batches
#: are nearly independent), at most :data:`CI_BATCHES` of them; how much the fraction of each batch
#: below the median varies gives a second interval (see :func:`batch_interval`). On a steady machine the
#: autocorrelation time is about one sample and this is the classic 10-batch method; on a machine
#: that changes speed in stretches, the batches grow with the stretches and the interval widens.
CI_BATCHES = 10
#: Fewest batches for an interval over consecutive rounds of a comparison (:mod:`measurefirst.compare`).
MIN_BATCHES = 3
#: Fewest batches for the median's interval: with three, t(2) = 4.30 turns the interval into the
#: sample's minimum and maximum (a 3 µs call once printed ±2119%); five give t(4) = 2.78. A run whose
#: speed changes in stretches so long that five batches of :data:`BATCH_TAU_FACTOR` autocorrelation
#: times do not fit is *not bounded* by its samples (:attr:`BatchInterval.bounded`): the stopping rule
#: keeps sampling, and the result says so instead of printing the extremes.
MIN_CI_BATCHES = 5
#: The batch interval's rank window is at most this far either side of the median (the quartiles):
#: batch fractions that swing more than that leave the median unbounded by this run (see above).
MAX_RANK_DELTA = 0.25
#: The batch check needs at least this many samples per batch (and ``CI_BATCHES`` times as many
#: samples in all before it runs).
MIN_PER_BATCH = 5
#: A batch lasts at least this many autocorrelation times.
BATCH_TAU_FACTOR = 4.0
#: The sign series counts as time-correlated above this autocorrelation time (in samples).
CORRELATED_TAU = 2.0


def t975(df: int) -> float:
    """The 0.975 quantile of Student's t with ``df`` degrees of freedom (exact table to 30, then the
    Cornish-Fisher expansion)."""
    table = (12.706204736, 4.30265273, 3.182446305, 2.776445105, 2.570581836, 2.446911851, 2.364624252,
             2.306004135, 2.262157163, 2.228138852, 2.200985160, 2.178812830, 2.160368656, 2.144786688,
             2.131449546, 2.119905299, 2.109815578, 2.100922040, 2.093024054, 2.085963447, 2.079613845,
             2.073873068, 2.068657610, 2.063898562, 2.059538553, 2.055529439, 2.051830516, 2.048407142,
             2.045229642, 2.042272456)
    if df < 1:
        return math.inf
    if df <= len(table):
        return table[df - 1]
    z = Z95
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the regularized incomplete beta function (modified Lentz)."""
    tiny, c, d = 1e-300, 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-14:
            break
    return h


def beta_cdf(x: float, a: float, b: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


def f_quantile(p: float, d1: int, d2: int) -> float:
    """The ``p`` quantile of Fisher's F with ``d1`` and ``d2`` degrees of freedom (bisection on
    :func:`beta_cdf`; ``F(1, d) = t(d)^2``)."""
    if not (0.0 < p < 1.0 and d1 >= 1 and d2 >= 1):
        raise ValueError(f"f_quantile needs 0 < p < 1 and degrees of freedom >= 1; got {p}, {d1}, {d2}")

    def cdf(f: float) -> float:
        return beta_cdf(d1 * f / (d1 * f + d2), d1 / 2.0, d2 / 2.0)

    lo, hi = 0.0, 1.0
    while cdf(hi) < p:
        hi *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        lo, hi = (mid, hi) if cdf(mid) < p else (lo, mid)
        if hi - lo <= 1e-12 * hi:
            break
    return (lo + hi) / 2.0


def _average_ranks(a: np.ndarray) -> np.ndarray:
    order = np.argsort(a, kind="stable")
    s = a[order]
    starts = np.flatnonzero(np.concatenate(([True], s[1:] != s[:-1])))
    ends = np.concatenate((starts[1:], [s.size]))
    ranks = np.empty(s.size)
    ranks[order] = np.repeat((starts + ends - 1) / 2.0, ends - starts)
    return ranks


def autocorrelation_time(values_in_order: Values) -> float:
    """Integrated autocorrelation time, in samples, of the series' ranks (robust to outliers, and
    sensitive to a machine that sits in one speed for stretches, whichever speed holds the median):
    ``1 + 2 * sum(rho_k)`` over Geyer's initial positive sequence. About 1 for independent samples;
    about the length of a stretch when the machine changes speed in stretches."""
    a = np.asarray(values_in_order, dtype=float)
    n = int(a.size)
    if n < 8:
        return 1.0
    modes = two_modes(a)
    if modes is not None:
        # two speeds: the series of which speed each sample ran at (within a speed, the noise
        # around the median would hide how long the machine stayed there)
        x = (a > math.sqrt(modes.fast * modes.slow)).astype(float)
    else:
        x = _average_ranks(a)  # ranks: robust to outliers; ties share their average rank
    x = x - x.mean()
    var = float(np.dot(x, x)) / n
    if var <= 0:
        return 1.0
    size = 1 << (2 * n - 1).bit_length()
    f = np.fft.rfft(x, size)
    acf = np.fft.irfft(f * np.conj(f), size)[:n] / (n * var)
    tau = -1.0
    for k in range(0, n - 1, 2):
        pair = acf[k] + acf[k + 1]
        if pair <= 0:
            break
        tau += 2.0 * pair
    return float(min(max(tau, 1.0), n))


@dataclass(frozen=True)
class BatchInterval:
    """The batch-median interval of a series: relative half-width, batches used, samples per batch,
    and the autocorrelation time that chose them."""

    half_width: float
    batches: int
    per_batch: int
    tau: float
    low: float
    high: float
    #: whether the batches were long enough to be nearly independent and their fractions agreed
    #: within :data:`MAX_RANK_DELTA`; else ``half_width`` is infinite and ``low``/``high`` are the
    #: quartiles, shown for what they are (the run is too short for its correlation)
    bounded: bool = True


def batch_interval(values_in_order: Values) -> BatchInterval | None:
    """Relative half-width of the median's 95% CI from consecutive batches whose length follows
    the autocorrelation time (see :data:`CI_BATCHES`); ``None`` with fewer than
    ``CI_BATCHES * MIN_PER_BATCH`` samples.

    Each batch gives the fraction of its samples below the overall median; the spread of those
    fractions across batches (t-distribution, batches - 1 degrees of freedom) says how far the
    median's rank could be off, and the interval is read from the pooled sample at those ranks. On
    independent samples this is the order-statistic interval; on a machine that ran at two speeds
    in stretches, the fractions swing between batches and the interval spans what the run saw
    (batch *medians* would snap to one speed each and hide it).

    Never degenerate: at least :data:`MIN_CI_BATCHES` batches; when fewer batches of
    :data:`BATCH_TAU_FACTOR` autocorrelation times fit, or the rank window would reach past
    :data:`MAX_RANK_DELTA`, the interval is marked not ``bounded`` (infinite half-width, the quartiles
    as its ends) rather than stretched to the sample's minimum and maximum."""
    a = np.asarray(values_in_order, dtype=float)
    n = int(a.size)
    if n < CI_BATCHES * MIN_PER_BATCH:
        return None
    tau = autocorrelation_time(a)
    wanted = max(MIN_PER_BATCH, math.ceil(BATCH_TAU_FACTOR * tau))
    per_batch = max(wanted, math.ceil(n / CI_BATCHES))
    m = max(MIN_CI_BATCHES, min(CI_BATCHES, n // per_batch))
    independent = n // wanted >= MIN_CI_BATCHES
    s = np.sort(a)
    med = float(np.median(s))
    if med <= 0:
        return BatchInterval(math.inf, m, n // m, tau, -math.inf, math.inf, False)
    below = np.array([(np.count_nonzero(part < med) + 0.5 * np.count_nonzero(part == med)) / part.size
                      for part in np.array_split(a, m)])
    delta = t975(m - 1) * float(below.std(ddof=1)) / math.sqrt(m)
    bounded = independent and delta <= MAX_RANK_DELTA
    delta = min(delta, MAX_RANK_DELTA)
    lo = float(np.quantile(s, 0.5 - delta))
    hi = float(np.quantile(s, 0.5 + delta))
    hw = max(hi - med, med - lo) / med if bounded else math.inf
    return BatchInterval(hw, m, n // m, tau, lo, hi, bounded)


def batch_half_width(values_in_order: Values) -> float:
    """Relative half-width of :func:`batch_interval`; 0 when there are too few samples for it."""
    bi = batch_interval(values_in_order)
    return 0.0 if bi is None else bi.half_width


def median_half_width(values_in_order: Values) -> float:
    """The stopping rule's relative half-width: the wider of the order-statistic CI and the
    batch-median CI (see :data:`CI_BATCHES`)."""
    return max(relative_half_width(sorted(values_in_order), presorted=True), batch_half_width(values_in_order))


#: Two modes of per-call time count as the machine running at two speeds when the slower mode's
#: median is at least this much above the faster's...
MODE_MIN_RATIO = 1.15
#: ...each holds at least this fraction of the samples...
MODE_MIN_FRACTION = 0.1
#: ...and the gap between the modes is this many times their own spread (MAD) at least.
MODE_SEPARATION = 4.0


@dataclass(frozen=True)
class Modes:
    """Two modes of a sample: their medians and the fraction of samples in each (fast first)."""

    fast: float
    fast_fraction: float
    slow: float
    slow_fraction: float


def two_modes(values: Values) -> Modes | None:
    """The split of ``values`` into a fast and a slow group that best separates them (Otsu's
    method on log values), when the two are clearly apart; else ``None``."""
    a = np.sort(np.asarray(values, dtype=float))
    n = int(a.size)
    if n < 20 or a[0] <= 0:
        return None
    logs = np.log(a)
    csum = np.cumsum(logs)
    total = csum[-1]
    lo, hi = max(1, int(MODE_MIN_FRACTION * n)), min(n - 1, int((1 - MODE_MIN_FRACTION) * n))
    if hi <= lo:
        return None
    k = np.arange(lo, hi + 1)
    mean1 = csum[k - 1] / k
    mean2 = (total - csum[k - 1]) / (n - k)
    between = k * (n - k) * (mean1 - mean2) ** 2
    split = int(k[int(np.argmax(between))])
    fast, slow = a[:split], a[split:]
    mf, ms = float(np.median(fast)), float(np.median(slow))
    spread = float(np.median(np.abs(fast - mf)) + np.median(np.abs(slow - ms)))
    if ms < MODE_MIN_RATIO * mf or (ms - mf) < MODE_SEPARATION * spread:
        return None
    return Modes(mf, split / n, ms, (n - split) / n)


def outlier_mask(values: Values, threshold: float = OUTLIER_MODIFIED_Z) -> np.ndarray:
    """Boolean mask of samples whose modified z-score ``|x - median| / (1.4826 MAD)`` exceeds
    ``threshold``. With a zero MAD, every sample different from the median is an outlier."""
    a = np.asarray(values, dtype=float)
    if a.size == 0:
        return np.zeros(0, dtype=bool)
    med = float(np.median(a))
    dev: np.ndarray = np.abs(a - med)
    scale = MAD_TO_SIGMA * float(np.median(dev))
    mask: np.ndarray = dev > 0 if scale == 0 else dev / scale > threshold
    return mask


#: A median known only from reported quartiles (a file without raw times): its 95% interval is the notch
#: ``median ± 1.57 · IQR / √n`` (McGill, Tukey & Larsen 1978), given from at least this many values; with
#: fewer, the quartiles do not support an interval and none is given.
NOTCH_MIN_ROUNDS = 5
NOTCH_FACTOR = 1.57


def notch_interval(median: float, iqr: float, n: int) -> tuple[float, float] | None:
    """The notch interval of a median from its IQR and ``n`` values (see :data:`NOTCH_FACTOR`); ``None`` with
    fewer than :data:`NOTCH_MIN_ROUNDS` values or no finite IQR."""
    if n < NOTCH_MIN_ROUNDS or not math.isfinite(iqr) or iqr < 0 or not math.isfinite(median):
        return None
    half = NOTCH_FACTOR * iqr / math.sqrt(n)
    return (max(median - half, 0.0), median + half)


#: How a summary's CI was found: the order statistics of the sorted samples; widened to the batch ranks
#: (correlated samples); not bounded by the samples (its ends the quartiles); the notch of the quartiles a
#: file of another tool reported; none.
CI_METHODS = ("order_statistics", "batch_ranks", "unbounded", "notch", "none")


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
    #: how the CI was found, a code of :data:`CI_METHODS` (the words are in :mod:`measurefirst.render.words`)
    ci_method: str = "order_statistics"
    #: False when the samples cannot bound the median (see :attr:`BatchInterval.bounded`): the CI's ends
    #: are then the quartiles and its half-width is infinite
    ci_bounded: bool = True

    @property
    def ci_half_width_rel(self) -> float:
        if self.ci_low is None or self.ci_high is None or self.median <= 0 or not self.ci_bounded:
            return math.inf
        return (self.ci_high - self.ci_low) / 2.0 / self.median


def level_adjusted(values_in_order: Values, groups: Sequence[int]) -> np.ndarray:
    """``values_in_order`` with each consecutive group (``groups`` values each) scaled so that its median
    is the pooled median: repetitions that warmed up and calibrated anew differ by level shifts (a new
    loop count, another stretch of the machine), which are the run-to-run spread they measure; left in,
    the autocorrelation check would mistake them for one long stretch inside the run."""
    a = np.asarray(values_in_order, dtype=float)
    med = float(np.median(a)) if a.size else 0.0
    out, first = [], 0
    for c in groups:
        part = a[first:first + c]
        first += c
        if part.size:
            pm = float(np.median(part))
            out.append(part * (med / pm) if pm > 0 else part)
    return np.concatenate(out) if out else a


def group_medians(values_in_order: Values, counts: Sequence[int], used: Sequence[bool] | np.ndarray | None = None,
                  min_per_group: int = 3) -> list[float]:
    """The median of each consecutive group of ``counts`` values (only the ``used`` ones), for groups with
    at least ``min_per_group`` of them."""
    a = np.asarray(values_in_order, dtype=float)
    keep = np.ones(a.size, dtype=bool) if used is None else np.asarray(used, dtype=bool)
    out, first = [], 0
    for c in counts:
        part = a[first:first + c][keep[first:first + c]]
        first += c
        if part.size >= min_per_group:
            out.append(float(np.median(part)))
    return out


def summarize(values: Values, confidence: float = 0.95, *, groups: Sequence[int] | None = None) -> Summary:
    """Statistics of ``values``, given in the order they were measured (the order matters only for
    the CI's batch check; see :data:`CI_BATCHES`). ``groups``: the values of each independent repetition
    (consecutive counts); the batch check then runs on :func:`level_adjusted` values, since the shifts
    between repetitions are the run-to-run spread, reported apart."""
    ordered = np.asarray(values, dtype=float)
    in_order = ordered if groups is None or len(groups) < 2 else level_adjusted(ordered, groups)
    a = np.sort(ordered)
    n = int(a.size)
    if n == 0:
        raise ValueError("cannot summarize zero samples")
    q1, med, q3 = (float(x) for x in np.percentile(a, [25, 50, 75]))
    ci = median_ci(a, confidence, presorted=True)
    method = "order_statistics"
    bounded = True
    if ci is not None and confidence == 0.95 and med > 0:
        bi = batch_interval(in_order)
        if bi is not None and not bi.bounded:
            ci, bounded = (min(ci[0], bi.low), max(ci[1], bi.high)), False
            method = "unbounded"
        elif bi is not None and (bi.low < ci[0] or bi.high > ci[1]):
            ci = (min(ci[0], bi.low), max(ci[1], bi.high))
            method = "batch_ranks"
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
        ci_bounded=bounded,
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
    return max(int(math.floor(mean - normal_quantile(1.0 - alpha_half) * sd - 0.5)), 0)


@dataclass(frozen=True)
class PairedEstimate:
    """Hodges-Lehmann estimate of the centre of paired differences, with its signed-rank CI."""

    n: int
    estimate: float
    ci_low: float | None
    ci_high: float | None


def hodges_lehmann(differences: Values, confidence: float = 0.95) -> PairedEstimate:
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


@functools.lru_cache(maxsize=256)
def rank_sum_critical(n: int, m: int, confidence: float = 0.95) -> int | None:
    """Largest ``c`` with ``P(U <= c) <= (1 - confidence) / 2`` for the Mann-Whitney statistic ``U`` of
    two independent samples of ``n`` and ``m`` values (exact); ``None`` when no such ``c`` exists (e.g.
    three against three at 95%)."""
    if n <= 0 or m <= 0:
        return None
    alpha_half = (1.0 - confidence) / 2.0
    # ways[i][j][u]: orderings of i values of the first sample and j of the second with statistic u
    ways = [[np.zeros(i * j + 1) for j in range(m + 1)] for i in range(n + 1)]
    for i in range(n + 1):
        for j in range(m + 1):
            if i == 0 or j == 0:
                ways[i][j][0] = 1.0
                continue
            w = np.zeros(i * j + 1)
            w[j:] += ways[i - 1][j][: i * j + 1 - j]  # the largest value is from the first sample: beats j
            w[: (i * (j - 1)) + 1] += ways[i][j - 1]
            ways[i][j] = w
    cdf = np.cumsum(ways[n][m]) / math.comb(n + m, n)
    ok = np.flatnonzero(cdf <= alpha_half + 1e-15)
    return int(ok[-1]) if ok.size else None


def hodges_lehmann_shift(xs: Values, ys: Values, confidence: float = 0.95) -> PairedEstimate:
    """How far ``xs`` lie above ``ys``: the median of all differences ``x_i - y_j`` and the
    distribution-free confidence interval that inverts the Mann-Whitney test (as R's ``wilcox.test``
    with two samples). One value far off on either side moves neither much (a fresh process that
    landed in another speed mode)."""
    x, y = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
    if x.size == 0 or y.size == 0:
        raise ValueError("two samples needed")
    diffs = np.sort((x[:, None] - y[None, :]).ravel())
    est = float(np.median(diffs))
    c = rank_sum_critical(int(x.size), int(y.size), confidence)
    if c is None:
        return PairedEstimate(int(diffs.size), est, None, None)
    return PairedEstimate(int(diffs.size), est, float(diffs[c]), float(diffs[diffs.size - 1 - c]))
