"""pytest-benchmark's statistics of a measurement (seconds per call), as ``benchmark.stats`` and
``--benchmark-json`` give them under ``--mf``."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..results.kinds import Measurement


def compat_stats(m: Measurement) -> dict[str, Any]:
    """pytest-benchmark's statistics of a measurement (seconds per call, over the samples used):
    ``min max mean stddev rounds median iqr q1 q3 iqr_outliers stddev_outliers outliers ld15iqr
    hd15iqr ops total iterations data``."""
    values = (m.per_call_ns[m.used_mask] / 1e9) if m.n_samples else np.zeros(0)
    if values.size == 0:
        return {"rounds": 0, "iterations": 0, "data": []}
    q1, median, q3 = (float(x) for x in np.percentile(values, [25, 50, 75]))
    iqr = q3 - q1
    mean = float(values.mean())
    std = float(values.std(ddof=1)) if values.size > 1 else 0.0
    inside = values[(values >= q1 - 1.5 * iqr) & (values <= q3 + 1.5 * iqr)]
    iqr_out = int(values.size - inside.size)
    std_out = int(((values < mean - std) | (values > mean + std)).sum()) if std > 0 else 0
    numbers = np.asarray(m.numbers)[m.used_mask]
    return {
        "min": float(values.min()), "max": float(values.max()), "mean": mean, "stddev": std,
        "rounds": int(values.size), "median": median, "iqr": iqr, "q1": q1, "q3": q3,
        "iqr_outliers": iqr_out, "stddev_outliers": std_out, "outliers": f"{std_out};{iqr_out}",
        "ld15iqr": float(inside.min()) if inside.size else float(values.min()),
        "hd15iqr": float(inside.max()) if inside.size else float(values.max()),
        "ops": 1.0 / mean if mean > 0 else math.inf, "total": float((values * numbers).sum()),
        "iterations": int(numbers[-1]), "data": [float(x) for x in values],
    }


class CompatStats:
    """``benchmark.stats`` as pytest-benchmark tests read it: ``benchmark.stats["mean"]``,
    ``benchmark.stats.stats.mean``, ``benchmark.stats.stats.rounds`` (seconds per call)."""

    def __init__(self, m: Measurement) -> None:
        self._values = compat_stats(m)
        self.measurement = m

    @property
    def stats(self) -> "CompatStats":
        return self

    def __getitem__(self, key: str) -> Any:
        return self._values[key]

    def __getattr__(self, key: str) -> Any:  # only the fixed keys of compat_stats; anything else raises
        values = self.__dict__.get("_values", {})
        if key in values:
            return values[key]
        raise AttributeError(f"benchmark.stats has no {key!r}; it has: {', '.join(sorted(values))}")

    def as_dict(self) -> dict[str, Any]:
        return dict(self._values)
