"""Regression checks between saved results: which benchmark got slower, beyond its CI and a threshold.

Saved runs were not interleaved, so the ratio of two medians gets an approximate CI: in log space
the half-widths of the two medians' CIs add in quadrature.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from .results import Measurement

#: A step in a history: consecutive runs whose medians differ by more than this fraction and
#: whose ratio CI excludes 1.
STEP_FRACTION = 0.02


@dataclass(frozen=True)
class Change:
    """``new`` against ``base`` for one benchmark. ``ratio`` = median(new) / median(base)."""

    label: str
    base_median: float
    new_median: float
    ratio: float
    ci_low: float
    ci_high: float
    regression: bool
    improvement: bool
    flags: tuple[str, ...] = ()

    def words(self) -> str:
        pct = (self.ratio - 1) * 100
        direction = "slower" if pct > 0 else "faster"
        sig = "" if (self.ci_low > 1 or self.ci_high < 1) else " (within noise)"
        return f"{abs(pct):.1f}% {direction}{sig} (ratio {self.ratio:.3f}, 95% CI {self.ci_low:.3f}–{self.ci_high:.3f})"


def _log_half_width(m: Measurement) -> float:
    ci = m.ci
    if ci is None or m.median <= 0 or ci[0] <= 0:
        return math.inf
    return max(math.log(ci[1] / m.median), math.log(m.median / ci[0]))


def change(base: Measurement, new: Measurement, *, threshold: float = 0.0, label: str | None = None) -> Change:
    """Compare two saved measurements; a regression is slower beyond the CI *and* the threshold.
    A side without samples cannot be compared: ``ValueError`` says which. ``threshold`` is a fraction
    (0.05 for 5%): finite and not negative, else ``ValueError`` (a NaN threshold would pass everything)."""
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not math.isfinite(threshold) \
            or threshold < 0:
        raise ValueError(f"threshold must be a finite fraction >= 0 such as 0.05 (5%); got {threshold!r}")
    for side, m in (("base", base), ("new", new)):
        if not (m.median > 0 and math.isfinite(m.median)):
            raise ValueError(f"the {side} result {m.label!r} has no usable samples (interrupted or failed run); "
                             f"re-run it before comparing")
    ratio = new.median / base.median
    hw = math.hypot(_log_half_width(base), _log_half_width(new))
    lo, hi = (ratio * math.exp(-hw), ratio * math.exp(hw)) if math.isfinite(hw) else (0.0, math.inf)
    flags = []
    if base.env.get("device_name") != new.env.get("device_name") or base.device.split(":")[0] != new.device.split(":")[0]:
        flags.append(f"different devices: {base.env.get('device_name') or base.device} vs "
                     f"{new.env.get('device_name') or new.device}")
    if base.env.get("hostname") != new.env.get("hostname"):
        flags.append(f"different machines: {base.env.get('hostname')} vs {new.env.get('hostname')}")
    if not base.complete or not new.complete:
        flags.append("incomplete run")
    return Change(label or new.label, base.median, new.median, ratio, lo, hi,
                  regression=lo > 1.0 and ratio > 1.0 + threshold,
                  improvement=hi < 1.0 and ratio < 1.0 / (1.0 + threshold), flags=tuple(flags))


def match(base: Sequence[Measurement], new: Sequence[Measurement]) -> tuple[list[tuple[Measurement, Measurement]], list[str]]:
    """Pair measurements by label; also return the labels found on one side only. A label that
    appears twice on one side cannot be paired: ``ValueError`` names it."""
    for side, ms in (("base", base), ("new", new)):
        labels = [m.label for m in ms]
        dupes = sorted({x for x in labels if labels.count(x) > 1})
        if dupes:
            raise ValueError(f"the {side} results hold {labels.count(dupes[0])} measurements labelled {dupes[0]!r}; "
                             f"labels must be unique to be matched")
    b = {m.label: m for m in base}
    n = {m.label: m for m in new}
    if len(base) == 1 and len(new) == 1:
        return [(base[0], new[0])], []
    pairs = [(b[k], n[k]) for k in n if k in b]
    unmatched = sorted(set(b) ^ set(n))
    return pairs, unmatched


def steps(history: Sequence[Measurement]) -> list[int]:
    """Indices i where run i differs from run i-1 beyond both CIs and :data:`STEP_FRACTION`."""
    out = []
    for i in range(1, len(history)):
        c = change(history[i - 1], history[i])
        if (c.ci_low > 1 or c.ci_high < 1) and abs(c.ratio - 1) > STEP_FRACTION:
            out.append(i)
    return out
