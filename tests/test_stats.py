import math

import numpy as np
import pytest

from measurefirst.results import stats


def test_median_ci_ranks_exact_small_n():
    assert stats.median_ci_ranks(5) is None  # no 95% interval exists below 6 samples
    assert stats.median_ci_ranks(6) == (0, 5)  # coverage 1 - 2/64 = 96.9%
    assert stats.median_ci_ranks(10) == (1, 8)  # x(2), x(9): coverage 97.9%
    assert stats.median_ci_ranks(100) == (39, 60)  # textbook x(40), x(61)


def test_median_ci_ranks_coverage_is_at_least_95_percent():
    from math import comb

    for n in (6, 7, 11, 25, 60, 200):
        lo, hi = stats.median_ci_ranks(n)
        tail = sum(comb(n, j) for j in range(lo + 1)) / 2**n
        assert 1 - 2 * tail >= 0.95
        # and the next narrower interval would not be
        tail_narrower = sum(comb(n, j) for j in range(lo + 2)) / 2**n
        assert 1 - 2 * tail_narrower < 0.95
        assert hi == n - 1 - lo


def test_normal_approximation_agrees_with_exact_at_the_switch():
    exact = stats.median_ci_ranks(1000)
    approx = stats.median_ci_ranks(1001)
    assert exact == (468, 531)
    assert approx == (468, 532)


def test_median_ci_on_literal_data():
    values = [5, 3, 9, 1, 7, 2, 8, 4, 10, 6]
    assert stats.median_ci(values) == (2.0, 9.0)
    assert stats.median_ci([1, 2, 3]) is None


def test_relative_half_width():
    values = list(range(1, 11))  # median 5.5, CI 2..9
    assert stats.relative_half_width(values) == pytest.approx(3.5 / 5.5)
    assert math.isinf(stats.relative_half_width([1.0, 2.0]))


def test_outliers_by_modified_z_score():
    mask = stats.outlier_mask([1, 2, 3, 4, 100])
    assert mask.tolist() == [False, False, False, False, True]
    assert stats.outlier_mask([5, 5, 5, 6]).tolist() == [False, False, False, True]  # zero MAD


def test_summarize_literal():
    s = stats.summarize([1, 2, 3, 4, 100])
    assert s.n == 5 and s.median == 3 and s.mean == 22
    assert s.min == 1 and s.max == 100
    assert s.q1 == 2 and s.q3 == 4 and s.iqr == 2
    assert s.outliers == 1
    assert s.ci_low is None and math.isinf(s.ci_half_width_rel)
    assert s.stdev == pytest.approx(np.std([1, 2, 3, 4, 100], ddof=1))


def test_summarize_rejects_empty():
    with pytest.raises(ValueError):
        stats.summarize([])


def test_t_quantiles_match_the_table_and_the_expansion():
    from scipy import stats as ss

    for df in (1, 2, 4, 9, 30, 31, 60, 500):
        assert stats.t975(df) == pytest.approx(float(ss.t.ppf(0.975, df)), rel=1e-4)


def test_autocorrelation_time_tells_independent_from_stretches():
    rng = np.random.default_rng(0)
    assert stats.autocorrelation_time(rng.normal(size=2000)) < 1.5
    blocky = np.repeat(rng.choice([1.5, 3.4], size=20), 100) * (1 + 0.01 * rng.normal(size=2000))
    assert stats.autocorrelation_time(blocky) > 20


def test_batch_interval_widens_with_stretches_and_not_without():
    rng = np.random.default_rng(1)
    steady = rng.normal(10.0, 0.1, size=2000)
    bi = stats.batch_interval(steady)
    assert bi.batches == 10 and bi.half_width < 0.002
    blocky = np.repeat(rng.choice([1.5, 3.4], size=20), 100) * (1 + 0.01 * rng.normal(size=2000))
    wide = stats.batch_interval(blocky)
    assert wide.half_width > 0.1  # honest: the run saw two speeds in long stretches
    assert stats.relative_half_width(sorted(blocky), presorted=True) < 0.05  # what independence claims


def test_two_modes_are_found_with_their_fractions():
    rng = np.random.default_rng(2)
    x = np.concatenate([1.52 * (1 + 0.01 * rng.normal(size=620)), 3.41 * (1 + 0.01 * rng.normal(size=380))])
    modes = stats.two_modes(rng.permutation(x))
    assert modes.fast == pytest.approx(1.52, rel=0.01) and modes.fast_fraction == pytest.approx(0.62, abs=0.01)
    assert modes.slow == pytest.approx(3.41, rel=0.01) and modes.slow_fraction == pytest.approx(0.38, abs=0.01)
    assert stats.two_modes(rng.normal(10, 0.5, size=1000)) is None


def test_the_median_interval_is_never_the_samples_min_and_max():
    """A 3 µs call once printed ±2119% (2–145 µs) from 2,499 samples: three batches, t(2) = 4.30, and the
    rank window reached both ends. Now: five batches at least, and a run too short for its correlation is
    'not bounded' (quartile ends, infinite half-width), never stretched to the extremes."""
    rng = np.random.default_rng(7)
    # stretches of 625 samples at either of two speeds, plus one 145 µs outlier
    x = np.repeat([2.0, 3.0, 3.0, 2.0], 625)[:2499] * (1 + 0.02 * rng.normal(size=2499))
    x[100] = 145.0
    bi = stats.batch_interval(x)
    assert bi.batches >= stats.MIN_CI_BATCHES
    assert not bi.bounded and math.isinf(bi.half_width)
    assert bi.low >= np.quantile(x, 0.25) - 1e-12 and bi.high <= np.quantile(x, 0.75) + 1e-12
    s = stats.summarize(x)
    assert not s.ci_bounded and math.isinf(s.ci_half_width_rel)
    assert s.ci_high < 145.0 and s.ci_low > x.min()
    # an independent series of the same length is bounded, and narrow
    y = 3.0 * (1 + 0.02 * rng.normal(size=2499))
    by = stats.batch_interval(y)
    assert by.bounded and by.half_width < 0.01 and stats.summarize(y).ci_bounded


def test_level_shifts_between_repetitions_are_taken_out_of_the_precision():
    rng = np.random.default_rng(3)
    levels = [1.0, 1.03, 0.98, 1.01, 0.99]
    parts = [lvl * (1 + 0.001 * rng.normal(size=200)) for lvl in levels]
    x = np.concatenate(parts)
    adjusted = stats.level_adjusted(x, [200] * 5)
    pooled = float(np.median(x))
    for i in range(5):
        assert float(np.median(adjusted[i * 200:(i + 1) * 200])) == pytest.approx(pooled, rel=1e-12)
    with_groups = stats.summarize(x, groups=[200] * 5)
    without = stats.summarize(x)
    assert with_groups.ci_half_width_rel < 0.002 < without.ci_half_width_rel  # the shifts widened it, as stretches


def test_the_median_of_a_list_is_numpys_to_the_bit_without_numpy():
    """A list or tuple is taken in Python (a history's few medians need no numpy): the very value
    ``np.median`` gives (equal as numbers: a zero's sign may differ), odd and even counts, infinities,
    subnormals and NaN included."""
    import random

    r = random.Random(1)
    for trial in range(5000):
        xs = [r.choice([r.random(), r.lognormvariate(0, 3), r.uniform(-1e300, 1e300), float(r.randint(-2, 2)), 5e-324,
                        -0.0]) for _ in range(r.randint(1, 30))]
        xs[0] = [xs[0], math.inf, -math.inf, math.nan][trial % 4] if trial % 7 == 0 else xs[0]
        for values in (xs, tuple(xs)):
            got, want = stats.median(values), float(np.median(np.asarray(xs, dtype=float)))
            assert (got != got and want != want) or got == want, xs
