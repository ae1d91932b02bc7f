"""The result of ``measure.compare`` in a test: a comparison with assertions that read as sentences
(``assert_faster``, ``assert_slower``, ``assert_not_slower``), and the record the run keeps of it."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

from ..results.kinds import Stop
from ..tools.compare import Comparison, Verdict, paired_verdict
from . import report as words
from .run import empty_measurement


@dataclass
class ComparisonRecord:
    name: str
    nodeid: str
    comparison: "ComparisonResult"


@dataclass(frozen=True)
class ComparisonResult(Comparison):
    """A :class:`~measurefirst.tools.compare.Comparison` with assertions that read as sentences.

    ``measured`` is False when nothing was timed (``--mf-disable``, pytest-xdist workers): every
    function was called once, and the assertions pass without checking.
    """

    measured: bool = True
    #: the language of a failed assertion's message (``--mf-lang``)
    lang: str = words.LANG

    @classmethod
    def of(cls, c: Comparison, lang: str = words.LANG) -> "ComparisonResult":
        return cls(**{f.name: getattr(c, f.name) for f in fields(Comparison)}, lang=lang)

    @classmethod
    def disabled(cls, prefix: str, labels: tuple[str, ...], base: str, device: str, precision: float,
                 lang: str = words.LANG) -> "ComparisonResult":
        """The result of a comparison that timed nothing (``--mf-disable``, an xdist worker, an ``--mf-against``
        worker): each candidate ran once; every verdict undecided."""
        empty = tuple(empty_measurement(f"{prefix}::{lab}", device, "disabled", precision) for lab in labels)
        verdicts = tuple(Verdict(lab, base, math.nan, None, "baseline" if lab == base else "undecided", None, 0)
                         for lab in labels)
        return cls(labels=labels, baseline=base, measurements=empty, block_values_ns=tuple(() for _ in labels),
                   orders=(), verdicts=verdicts, stop=Stop("disabled", False, precision, 0.0), measured=False,
                   lang=lang)

    def pair(self, label: str, than: str) -> Verdict:
        """``label`` against ``than`` from the rounds they shared (the paired, interleaved verdict;
        for ``than`` the baseline it is the comparison's own verdict)."""
        for x in (label, than):
            if x not in self.labels:
                raise ValueError(f"{x!r} is not one of the candidates: {', '.join(self.labels)}")
        if label == than:
            raise ValueError(f"compare {label!r} with another candidate, not with itself")
        a = self.block_values_ns[self.labels.index(label)]
        b = self.block_values_ns[self.labels.index(than)]
        n = min(len(a), len(b))
        return paired_verdict(label, than, a[:n], b[:n])

    def assert_faster(self, label: str, *, than: str, by: float = 1.0) -> None:
        """Fail unless ``label`` is faster than ``than`` beyond the noise (the ratio's 95% CI excludes
        1) and by at least ``by`` times (the estimate: ``by=1.2`` asks for 1.2x)."""
        __tracebackhide__ = True
        self._check("faster", label, than, by)

    def assert_slower(self, label: str, *, than: str, by: float = 1.0) -> None:
        """Fail unless ``label`` is slower than ``than`` beyond the noise and by at least ``by`` times."""
        __tracebackhide__ = True
        self._check("slower", label, than, by)

    def assert_not_slower(self, label: str, *, than: str, by: float = 1.0) -> None:
        """Fail if ``label`` is slower than ``than`` beyond the noise and by more than ``by`` times
        (``by=1.05`` tolerates 5%): the regression rule of ``--mf-fail-if-slower``."""
        __tracebackhide__ = True
        self._check("not slower", label, than, by)

    def _check(self, claim: str, label: str, than: str, by: float) -> None:
        __tracebackhide__ = True
        if isinstance(by, bool) or not isinstance(by, (int, float)) or not (by >= 1.0 and math.isfinite(by)):
            raise ValueError(f"by is a factor of at least 1 such as 1.2 (1.2x); got {by!r}")
        v = self.pair(label, than)
        if not self.measured:
            return
        if claim == "faster":
            ok = v.verdict == "faster" and v.speedup >= by
        elif claim == "slower":
            ok = v.verdict == "slower" and v.ratio >= by
        else:
            ok = not (v.verdict == "slower" and v.ratio > by)
        if not ok:
            raise AssertionError(words.assertion_failure(claim, label, than, by, v, self, self.lang))
