"""Cost models fitted to (size, seconds) points: ``t(n) = t0 + c * n**k`` and complexity classes.

Pure numpy; no clocks. Errors are taken as *relative* (timings spread in proportion to their size),
so every fit minimises squared relative residuals, made robust by Huber re-weighting.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

import numpy as np

from .errors import FitError as FitError  # measurefirst.results.fitting.FitError, as before
from .findings import MIN_SLOPE_POINTS as MIN_SLOPE_POINTS  # thresholds live with the findings they set
from .findings import NONMONOTONE_DROP as NONMONOTONE_DROP
from .fit import (K_GRID as K_GRID, POOR_FIT_RESIDUAL as POOR_FIT_RESIDUAL, POOR_FIT_RMS as POOR_FIT_RMS,
                           ComplexityFit as ComplexityFit, PowerFit as PowerFit)

#: Huber threshold on relative residuals, in robust standard deviations.
HUBER_C = 1.345
#: Fewest points for a power-law fit: three parameters need at least one residual degree of freedom.
MIN_POINTS = 4
#: t quantiles 0.975 for small degrees of freedom (index = dof); normal beyond.
_T975 = [math.inf, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
         2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086]


def _t975(dof: int) -> float:
    return _T975[dof] if dof < len(_T975) else 1.96


def _two_param(n: np.ndarray, t: np.ndarray, g: np.ndarray, w: np.ndarray) -> tuple[float, float]:
    """Weighted non-negative least squares of t ≈ t0 + c g with relative weights."""
    W = w / t  # relative residuals
    A = np.stack([np.ones_like(g), g], axis=1) * W[:, None]
    b = t * W
    sol, *_ = np.linalg.lstsq(A, b, rcond=None)
    t0, c = float(sol[0]), float(sol[1])
    if t0 >= 0 and c >= 0:
        return t0, c
    # clamp one parameter at zero and refit the other
    c_only = max(float(np.dot(A[:, 1], b) / max(np.dot(A[:, 1], A[:, 1]), 1e-300)), 0.0)
    t0_only = max(float(np.dot(A[:, 0], b) / max(np.dot(A[:, 0], A[:, 0]), 1e-300)), 0.0)
    r_c = np.sum((b - A[:, 1] * c_only) ** 2)
    r_t = np.sum((b - A[:, 0] * t0_only) ** 2)
    return (0.0, c_only) if r_c <= r_t else (t0_only, 0.0)


def _two_param_grid(t: np.ndarray, G: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_two_param` for every row of ``G`` at once (closed-form 2x2 normal equations)."""
    W2 = (w / t**2)[None, :]
    a11 = np.sum(W2, axis=1)
    a12 = np.sum(W2 * G, axis=1)
    a22 = np.sum(W2 * G * G, axis=1)
    b1 = np.sum(W2 * t[None, :], axis=1)
    b2 = np.sum(W2 * G * t[None, :], axis=1)
    det = a11 * a22 - a12 * a12
    with np.errstate(divide="ignore", invalid="ignore"):
        t0 = (a22 * b1 - a12 * b2) / det
        c = (a11 * b2 - a12 * b1) / det
        c_only = np.maximum(b2 / a22, 0.0)
        t0_only = np.maximum(b1 / a11, 0.0)

    def rss(t0v: np.ndarray, cv: np.ndarray) -> np.ndarray:
        pred = t0v[:, None] + cv[:, None] * G
        total: np.ndarray = np.sum(W2 * (t[None, :] - pred) ** 2, axis=1)
        return total

    bad = ~(np.isfinite(t0) & np.isfinite(c) & (t0 >= 0) & (c >= 0))
    use_c = rss(np.zeros_like(c_only), c_only) <= rss(t0_only, np.zeros_like(t0_only))
    t0 = np.where(bad, np.where(use_c, 0.0, t0_only), t0)
    c = np.where(bad, np.where(use_c, c_only, 0.0), c)
    return t0, c


def _huber_weights(rel: np.ndarray) -> np.ndarray:
    scale = 1.4826 * float(np.median(np.abs(rel - np.median(rel))))
    if scale <= 0:
        return np.ones_like(rel)
    u = np.abs(rel) / (HUBER_C * scale)
    return np.where(u <= 1, 1.0, 1.0 / np.maximum(u, 1e-12))


def _validate(sizes: Sequence[float], seconds: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    n = np.asarray(sizes, dtype=float)
    t = np.asarray(seconds, dtype=float)
    if n.shape != t.shape:
        raise FitError("sizes and times differ in length")
    ok = np.isfinite(n) & np.isfinite(t) & (n > 0) & (t > 0)
    return n[ok], t[ok]


def fit_power(sizes: Sequence[float], seconds: Sequence[float]) -> PowerFit:
    """Robust fit of ``t0 + c n^k`` (t0, c >= 0). Raises :class:`FitError` when underdetermined."""
    n, t = _validate(sizes, seconds)
    if len(np.unique(n)) < MIN_POINTS:
        raise FitError(f"a fit of t0 + c·n^k needs at least {MIN_POINTS} distinct sizes with results; "
                       f"got {len(np.unique(n))}. Add sizes to the sweep")
    w = np.ones_like(t)
    best = None
    G = np.power(n[None, :], K_GRID[:, None])  # one row per exponent
    for _ in range(5):  # IRLS with Huber weights
        t0s, cs = _two_param_grid(t, G, w)
        pred = t0s[:, None] + cs[:, None] * G
        scores_a = np.sum(w[None, :] * ((t[None, :] - pred) / t[None, :]) ** 2, axis=1)
        i = int(np.argmin(scores_a))
        k, t0, c = float(K_GRID[i]), float(t0s[i]), float(cs[i])
        rel = (t - (t0 + c * n**k)) / t
        new_w = _huber_weights(rel)
        best = (k, t0, c, scores_a, w)
        if np.allclose(new_w, w):
            break
        w = new_w
    assert best is not None
    k, t0, c, scores_a, w = best
    dof = len(n) - 3
    rss_min = float(scores_a.min())
    # profile CI: exponents whose best RSS stays within an F(1, dof) margin of the minimum
    limit = rss_min * (1.0 + _t975(dof) ** 2 / dof) if rss_min > 0 else 0.0
    inside = K_GRID[scores_a <= limit + 1e-300]
    k_ci = (float(inside.min()), float(inside.max())) if inside.size else (k, k)
    step = float(K_GRID[1] - K_GRID[0])
    if rss_min == 0:
        k_ci = (k - step, k + step)
    crossover = (t0 / c) ** (1.0 / k) if (c > 0 and t0 > 0 and k > 0) else None
    rel = (t - (t0 + c * n**k)) / t
    slope = int(np.sum(c * n**k >= t0)) if c > 0 else 0
    return PowerFit(t0, c, k, k_ci, crossover, float(np.sqrt(np.mean(rel**2))), int(len(n)),
                    float(np.max(np.abs(rel))), slope, largest_drop(n, t))


def largest_drop(sizes: Sequence[float] | np.ndarray, seconds: Sequence[float] | np.ndarray) -> float:
    """The largest fraction by which a larger size ran faster than any smaller one:
    ``1 - t(big) / max t(smaller)``; 0 when the times never fall as the size grows."""
    order = np.argsort(np.asarray(sizes, dtype=float), kind="stable")
    t = np.asarray(seconds, dtype=float)[order]
    worst, slowest = 0.0, -math.inf
    for x in t:
        if slowest > 0:
            worst = max(worst, 1.0 - float(x) / slowest)
        slowest = max(slowest, float(x))
    return worst


COMPLEXITY_CLASSES: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "O(1)": lambda n: np.zeros_like(n),
    "O(log n)": lambda n: np.log2(n),
    "O(n)": lambda n: n,
    "O(n log n)": lambda n: n * np.log2(n),
    "O(n^2)": lambda n: n**2,
    "O(n^3)": lambda n: n**3,
}


def fit_complexity(sizes: Sequence[float], seconds: Sequence[float]) -> ComplexityFit:
    """Pick among O(1), O(log n), O(n), O(n log n), O(n²), O(n³), each plus a fixed overhead, by
    AIC on relative residuals (Google Benchmark's complexity fit, with the overhead term)."""
    n, t = _validate(sizes, seconds)
    m = len(np.unique(n))
    if m < 3:
        raise FitError(f"a complexity fit needs at least 3 distinct sizes with results; got {m}")
    rms, aic, params = {}, {}, {}
    w = np.ones_like(t)
    for name, g_of in COMPLEXITY_CLASSES.items():
        g = g_of(n)
        if name == "O(1)":
            t0 = float(np.sum(1 / t) / np.sum(1 / t**2))  # relative least squares of a constant
            c, k_params = 0.0, 1
        else:
            t0, c = _two_param(n, t, g, w)
            k_params = 2
        pred = t0 + c * g
        rel = (t - pred) / t
        rss = float(np.sum(rel**2))
        rms[name] = float(np.sqrt(np.mean(rel**2)))
        aic[name] = len(n) * math.log(max(rss / len(n), 1e-300)) + 2 * k_params
        params[name] = (t0, c)
    best = min(aic, key=lambda k: aic[k])
    return ComplexityFit(best, params[best][0], params[best][1], rms, aic)
