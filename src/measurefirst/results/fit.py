"""The cost models fitted to a sweep's points: a :class:`PowerFit` (``t(n) = t0 + c * n**k``) and a
:class:`ComplexityFit` (the best complexity class), with the thresholds that judge a fit. The types live
with the results (renderers read them); :mod:`measurefirst.results.fitting` fits them and re-exports them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from .base import shown
from .findings import MIN_SLOPE_POINTS, NONMONOTONE_DROP

#: Exponents searched for the power law (a fine grid; the optimum is then refined).
K_GRID = np.linspace(0.0, 6.0, 1201)
#: Above this rms relative error the points do not follow one power law (cache regimes, noise).
POOR_FIT_RMS = 0.10
#: A single point further than this (relative) from the fitted curve: the model ignores it (Huber
#: weights let a fit pass by a point that contradicts it; a law drawn past it is not a law of the data).
POOR_FIT_RESIDUAL = 0.25


@dataclass(frozen=True)
class PowerFit:
    """``t(n) = t0 + c * n**k``: fixed overhead ``t0`` (seconds), exponent ``k`` with its 95% CI,
    coefficient ``c`` and the crossover size where the work term equals the overhead."""

    t0: float
    c: float
    k: float
    k_ci: tuple[float, float]
    crossover: float | None
    rms_rel_error: float
    n_points: int
    #: the largest relative distance of one point from the curve
    max_rel_residual: float = 0.0
    #: how many points lie where the work term is at least the overhead (-1: not computed)
    slope_points: int = -1
    #: the largest fraction by which a larger size ran faster than a smaller one (0: monotone)
    drop: float = 0.0
    #: the largest exponent searched (:data:`K_GRID`)
    k_max: ClassVar[float] = float(K_GRID[-1])

    def predict(self, n: float | np.ndarray) -> np.ndarray:
        t: np.ndarray = self.t0 + self.c * np.power(np.asarray(n, dtype=float), self.k)
        return t

    @property
    def at_edge(self) -> bool:
        """True when the exponent sits at the top of the searched range (:data:`K_GRID`): the true
        exponent may be larger, and the times more likely reflect a change of regime (caches, memory,
        swapping, a throttled machine) than one power law."""
        step = float(K_GRID[1] - K_GRID[0])
        return self.k >= self.k_max - step / 2

    @property
    def poor(self) -> bool:
        """True when the points contradict the model: any of :meth:`problems`."""
        return bool(self.problems())

    def problems(self) -> list[tuple[str, float, float]]:
        """Why the points contradict the model, each as ``(reason, value, threshold)``: ``rms`` (they
        stray by more than :data:`POOR_FIT_RMS`), ``residual`` (one point further than
        :data:`POOR_FIT_RESIDUAL` from the curve), ``slope`` (fewer than :data:`MIN_SLOPE_POINTS`
        points where the work term dominates, so the exponent rests on too few of them; only when the
        fit claims a work term) and ``drop`` (a larger size faster by :data:`NONMONOTONE_DROP` or more)."""
        out: list[tuple[str, float, float]] = []
        if self.rms_rel_error > POOR_FIT_RMS:
            out.append(("rms", self.rms_rel_error, POOR_FIT_RMS))
        if self.max_rel_residual > POOR_FIT_RESIDUAL:
            out.append(("residual", self.max_rel_residual, POOR_FIT_RESIDUAL))
        if 0 <= self.slope_points < MIN_SLOPE_POINTS and self.c > 0 and self.k > 0:
            out.append(("slope", float(self.slope_points), float(MIN_SLOPE_POINTS)))
        if self.drop >= NONMONOTONE_DROP:
            out.append(("drop", self.drop, NONMONOTONE_DROP))
        return out

    def __str__(self) -> str:
        return shown(self, "power_fit")


@dataclass(frozen=True)
class ComplexityFit:
    """The best class with its overhead and coefficient, and each class's score."""

    best: str
    t0: float
    c: float
    rms_rel_error: dict[str, float]
    aic: dict[str, float]

    def __str__(self) -> str:
        return shown(self, "complexity_fit")
