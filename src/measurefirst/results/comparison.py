"""The result of :func:`measurefirst.compare`: a :class:`Comparison` of candidates, a :class:`Verdict` per
candidate. The types live with the results (renderers read them); :mod:`measurefirst.tools.compare`
computes them and re-exports them."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

from .base import ResultBase, shown
from .kinds import Finding, Measurement, Stop
from .protocol import build, migrate


@dataclass(frozen=True)
class Verdict:
    """One candidate against the baseline. ``ratio`` is time(candidate) / time(baseline) and
    ``ratio_ci`` its 95% CI (low, high); ``speedup`` is 1 / ratio and ``speedup_ci`` its CI on the
    same scale (1 / the ratio's bounds, swapped). None without a CI (too few rounds)."""

    label: str
    baseline: str
    ratio: float
    ratio_ci: tuple[float, float] | None
    verdict: str  # "faster", "slower", "no difference", "baseline", "undecided"
    detectable: float | None  # relative half-width of the ratio's CI: the smallest difference detectable
    rounds: int
    #: Why: for ``"undecided"``, ``"too_few_rounds"`` (too few independent batches of rounds for a CI)
    #: or ``"drift"`` (the run's parts, by time or by load, point in opposite directions); for a
    #: decided verdict, ``"large"`` when the sign test over rounds decided a difference far outside
    #: every swing of the run (see :func:`large_difference`); else None. Files written before this
    #: field load with None.
    reason: str | None = None

    @property
    def speedup(self) -> float:
        """time(baseline) / time(candidate): above 1 means the candidate is faster."""
        return 1.0 / self.ratio if self.ratio > 0 else math.inf

    @property
    def speedup_ci(self) -> tuple[float, float] | None:
        """The 95% CI of :attr:`speedup`: (1 / ratio CI high, 1 / ratio CI low)."""
        if self.ratio_ci is None:
            return None
        lo, hi = self.ratio_ci
        return (1.0 / hi if hi > 0 else math.inf, 1.0 / lo if lo > 0 else math.inf)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Verdict":
        """A verdict as :meth:`Comparison.to_dict` writes it. Files written before ``ratio_ci`` carry
        ``ci_low``/``ci_high``, which were on the ratio's scale too."""
        if isinstance(d, dict) and "ratio_ci" not in d and "ci_low" in d:
            lo, hi = d.get("ci_low"), d.get("ci_high")
            d = {**d, "ratio_ci": None if lo is None or hi is None else [lo, hi]}
        return build(cls, d, "verdict")

    def words(self) -> str:
        """``"2.3x faster"``, ``"1.8% slower"``, ``"no difference detected (could have detected ±0.4%)"`` (in
        English; :func:`measurefirst.render.words.verdict_words` has both languages)."""
        return shown(self, "verdict_words", "en")


def settled(v: Verdict, precision: float, direction: bool = True) -> bool:
    """Whether a verdict may end the comparison: its interval within ``precision``, or (``direction``) a
    difference whose interval's half-width is at most half the difference. Without ``direction`` only the
    precision ends it (``measurefirst.tools.against``: a pair's estimate joins others, and a pair stopped
    because it looked clearly slower, early, would be the pairs that happened to read high)."""
    if v.verdict == "baseline":
        return True
    if v.ratio_ci is None or v.detectable is None:
        return False
    if direction and v.verdict in ("faster", "slower") and v.detectable <= abs(math.log(v.ratio)) / 2.0:
        return True
    return v.verdict != "undecided" and v.detectable <= precision


def settle_factor(v: Verdict, precision: float) -> float | None:
    """How many times its rounds a verdict that did not settle (:func:`settled`) would need to, were its
    estimate to stay where it is: an interval's half-width shrinks as the square root of the rounds, so the
    square of its half-width over the larger of the half-widths that would settle it: half the estimated
    difference (a clear direction) or ``precision`` (nothing larger is there). ``None`` for a verdict with
    no interval, an undecided one (its parts disagree: more rounds of the same need not settle it) or one
    settled already."""
    if v.verdict in ("baseline", "undecided") or v.ratio_ci is None or v.detectable is None or settled(v, precision):
        return None
    if not (v.detectable > 0 and math.isfinite(v.detectable) and v.ratio > 0):
        return None
    target = max(abs(math.log(v.ratio)) / 2.0, precision)
    return (v.detectable / target) ** 2 if target > 0 else None


#: Version of a :class:`Comparison`'s stored form (see :mod:`measurefirst.results.protocol`).
SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Comparison(ResultBase):
    """Result of :func:`compare`: per-candidate measurements, the round order, the verdicts."""

    labels: tuple[str, ...]
    baseline: str
    measurements: tuple[Measurement, ...]
    block_values_ns: tuple[tuple[float, ...], ...]  # [candidate][round]: block median per call
    orders: tuple[tuple[int, ...], ...]  # the order of candidates in each round
    verdicts: tuple[Verdict, ...]
    stop: Stop
    options: dict[str, Any] = field(default_factory=dict)
    complete: bool = True
    schema_version: int = SCHEMA_VERSION

    kind: ClassVar[str] = "comparison"

    @property
    def findings(self) -> tuple[Finding, ...]:
        """Every candidate's findings, in the order of the candidates."""
        return tuple(f for m in self.measurements for f in m.findings)

    def __getitem__(self, label: str) -> Measurement:
        return self.measurements[self.labels.index(label)]

    def verdict(self, label: str) -> Verdict:
        return self.verdicts[self.labels.index(label)]

    @property
    def compiled(self) -> bool:
        """Whether any candidate compiled (then the table shows compile time and the break-even)."""
        return any(m.compiled is not None and m.compiled.compiles for m in self.measurements)

    def break_even(self, label: str) -> float | None:
        """Calls until compiling ``label`` pays for itself against the baseline: its compile time before
        sampling (torch's accounting) over the time it saves per call (the baseline's median less its
        own). ``inf`` when it is not faster; ``None`` when it did not compile or is the baseline."""
        m = self[label]
        if label == self.baseline or m.compiled is None or not m.compiled.compiles:
            return None
        saved = self[self.baseline].median - m.median
        return m.compiled.first_s / saved if saved > 0 else math.inf

    def settle_seconds(self) -> dict[str, float]:
        """For a comparison the budget stopped: each candidate that did not settle, the seconds of rounds
        in all that would settle it at this pace (:func:`settle_factor` times the seconds spent), were its
        estimate to stay where it is. Empty when the comparison settled or stopped for another reason."""
        if self.stop.target_met or self.stop.reason != "budget" or not self.stop.seconds > 0:
            return {}
        out: dict[str, float] = {}
        for v in self.verdicts:
            factor = settle_factor(v, self.stop.precision)
            if factor is not None and math.isfinite(factor):
                out[v.label] = self.stop.seconds * max(factor, 1.0)
        return out

    def __repr__(self) -> str:
        parts = ", ".join(f"{v.label}: {v.words()}" for v in self.verdicts if v.verdict != "baseline")
        return f"<Comparison vs {self.baseline!r}: {parts}; {len(self.orders)} rounds>"

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": self.schema_version, "kind": self.kind, "labels": list(self.labels),
            "baseline": self.baseline, "measurements": [m.to_dict() for m in self.measurements],
            "block_values_ns": [list(b) for b in self.block_values_ns],
            "orders": [list(o) for o in self.orders], "verdicts": [asdict(v) for v in self.verdicts],
            "stop": asdict(self.stop), "options": dict(self.options), "complete": self.complete,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Comparison":
        """Load a comparison; anything malformed is a ValueError that says what is wrong."""
        if not isinstance(d, dict):
            raise ValueError(f"a comparison must be a JSON object; got {type(d).__name__}")
        d = migrate(d, cls.kind, SCHEMA_VERSION)
        stored, verdicts = d.get("measurements"), d.get("verdicts")
        if not (isinstance(stored, (list, tuple)) and isinstance(verdicts, (list, tuple))):
            raise ValueError("comparison.measurements and comparison.verdicts must be lists")
        c = build(cls, {**d, "measurements": tuple(Measurement.from_dict(m, f"comparison.measurements[{i}]")
                                                   for i, m in enumerate(stored)),
                        "verdicts": tuple(Verdict.from_dict(v) for v in verdicts)}, "comparison")
        if len(c.measurements) != len(c.labels) or len(c.block_values_ns) != len(c.labels):
            raise ValueError("comparison result: labels, measurements and block values differ in number")
        if c.baseline not in c.labels:
            raise ValueError(f"comparison result: baseline {c.baseline!r} is not one of its labels")
        return c
