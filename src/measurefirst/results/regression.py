"""The result of a regression check of saved results: a :class:`Regression` holds the :class:`Change` of each
benchmark, and a change the :class:`Disturbance` of a side too noisy to judge it. The types live with the
results (renderers read them); :mod:`measurefirst.results.regression_checks` computes them and re-exports them."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

from .base import ResultBase, shown
from .kinds import Finding
from .protocol import build, migrate

#: Version of a :class:`Regression`'s stored form (see :mod:`measurefirst.results.protocol`); version 1 gave a
#: change's flags in English words; version 4 added a change's ``disturbed`` reasons and each side's
#: run-to-run spread and its source; version 5 added the check's findings (a busbw drop, a new straggler).
SCHEMA_VERSION = 5
#: What makes a change doubtful (:attr:`Change.flags`; the renderer has the words): the two sides ran on
#: different devices, machines, instruction counters, Python or torch versions (the two values are in
#: :attr:`Change.flag_values`), or a side is incomplete.
FLAGS = ("devices", "machines", "counters", "python", "torch", "incomplete")
#: The sources of a run-to-run spread in a change: each side's own (:data:`~measurefirst.results.kinds.RUN_TO_RUN_SOURCES`:
#: repetitions, processes, profile, prior), the saved history of the benchmark, a given figure, or "assumed"
#: (:data:`~measurefirst.results.regression_checks.RUN_TO_RUN_CV`: nothing measured it).
CHANGE_SPREAD_SOURCES = ("repeats", "processes", "profile", "prior", "history", "given", "assumed")


#: The chance that a run of the gate calls any unchanged test slower or faster at its first look, shared by all
#: the comparisons of the run (:func:`look_level`; code against code, :mod:`measurefirst.tools.against`).
SUITE_ERROR = 0.05


def look_level(comparisons: int, second: bool = False) -> float:
    """Each interval's level in a run of ``comparisons``: Bonferroni's share of :data:`SUITE_ERROR` at the first
    look (one: 95%; four: 98.75%), half that at the second, so that the two looks call any unchanged test of the
    run slower or faster at most 7.5% of the time, a false regression at most 3.75% (95% per test instead: a
    suite of 30 unchanged benchmarks would fail about one run in two)."""
    err = SUITE_ERROR / max(1, comparisons)
    return 1.0 - (err / 2.0 if second else err)


@dataclass(frozen=True)
class Disturbance:
    """Why one side of a change (``side``: "base" or "new") cannot judge it: ``code`` (one of
    :data:`~measurefirst.results.regression_checks.DISTURBED_CODES`), the measured ``value`` and the ``limit`` it
    crossed (fractions; for ``two_speeds`` the slow speed over the fast one, minus 1)."""

    side: str
    code: str
    value: float
    limit: float

    @classmethod
    def from_dict(cls, d: Any) -> "Disturbance":
        return build(cls, _non_finite(d) if isinstance(d, dict) else d, "disturbance")


def _non_finite(d: dict[str, Any]) -> dict[str, Any]:
    """A stored object with the non-finite numbers that strict JSON wrote as null (and named in its note,
    see :mod:`measurefirst.results.safeio`) restored, the note dropped."""
    from .safeio import NON_FINITE_KEY

    note = d.get(NON_FINITE_KEY)
    note = note if isinstance(note, dict) else {}
    return {k: float(str(note[k])) if v is None and k in note else v for k, v in d.items() if k != NON_FINITE_KEY}


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
    flags: tuple[str, ...] = ()  # codes from FLAGS (text written by an older measurefirst stays as it is)
    #: what the medians are: "seconds" per call, or a counted event per call ("instructions")
    unit: str = "seconds"
    threshold: float = 0.0
    #: the base's and the new side's values of each flag that has them: {"machines": ("a", "b")}
    flag_values: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: the run-to-run relative standard deviation per run included in the interval (times; 0 for counts,
    #: whose runs count the same, and for checks written before version 3)
    run_to_run: float = 0.0
    #: where ``run_to_run`` came from (one of :data:`CHANGE_SPREAD_SOURCES`; "assumed" when either side's
    #: spread was not measured); empty when none was included
    run_to_run_source: str = ""
    #: the run-to-run spread (relative standard deviation) of each side, base and new, and where each came
    #: from (:data:`CHANGE_SPREAD_SOURCES`); empty for checks written before version 4 and for counts
    run_to_run_spreads: tuple[float, ...] = ()
    run_to_run_sources: tuple[str, ...] = ()
    #: why a side cannot judge the change (:func:`~measurefirst.results.regression_checks.disturbances`): with any,
    #: the change is ``undecided``
    disturbed: tuple[Disturbance, ...] = ()
    #: code against code: the ratio each worker pair measured (fresh processes, one per side), in order;
    #: empty otherwise
    pair_ratios: tuple[float, ...] = ()
    #: the level of the interval ``ci_low``-``ci_high``: 0.95, or code against code's wider one when a run compares
    #: several measurements or looks twice (:func:`look_level`)
    ci_level: float = 0.95

    @property
    def undecided(self) -> bool:
        """A side was disturbed (:attr:`disturbed`): too noisy to judge; never a regression."""
        return bool(self.disturbed)

    @property
    def spread_assumed(self) -> bool:
        """The interval holds an assumed run-to-run spread for a side (nothing measured it)."""
        return "assumed" in self.run_to_run_sources or (not self.run_to_run_sources
                                                         and self.run_to_run_source == "assumed")

    def words(self) -> str:
        """``"12.0% slower (ratio 1.120, 95% CI 1.110–1.130)"`` (in English; see :mod:`measurefirst.render.words`)."""
        return shown(self, "change_words", "en")

    def verdict(self, gate: bool) -> str:
        """``undecided`` when a side was disturbed (too noisy to judge), else ``regression`` (slower beyond
        the CI and the threshold, with a gate on), else ``slower`` or ``faster`` beyond the CI, else ``same``."""
        if self.disturbed:
            return "undecided"
        if self.regression and gate:
            return "regression"
        if self.ci_low > 1:
            return "slower"
        if self.ci_high < 1:
            return "faster"
        return "same"

    @classmethod
    def from_dict(cls, d: Any) -> "Change":
        return build(cls, _non_finite(d) if isinstance(d, dict) else d, "change")


@dataclass(frozen=True)
class Regression(ResultBase):
    """A regression check of saved results: the :class:`Change` of each benchmark found in both
    ``base`` and ``new`` (what they were: files, ``#ID``, ``@NAME~K``), the labels found in one only,
    and whether a gate (``--fail-if-slower``) was set."""

    base: str
    new: str
    changes: tuple[Change, ...]
    unmatched: tuple[str, ...] = ()
    gate: bool = False
    #: what the check found beyond the changes (runs of many ranks: a busbw drop, a new straggler; see
    #: :mod:`measurefirst.results.group_checks`); an error-severity one fails a gate
    findings: tuple[Finding, ...] = ()

    kind: ClassVar[str] = "regression"
    schema_version: ClassVar[int] = SCHEMA_VERSION
    complete: ClassVar[bool] = True

    @property
    def failed(self) -> tuple[Change, ...]:
        """The regressions, when a gate is set (else none fail)."""
        return tuple(c for c in self.changes if c.regression) if self.gate else ()

    @property
    def failing(self) -> bool:
        """Whether the gate fails: a regression, or an error-severity finding, with a gate set."""
        return bool(self.failed) or (self.gate and any(f.severity == "error" for f in self.findings))

    @property
    def undecided(self) -> tuple[Change, ...]:
        """The changes a disturbed run could not judge (too noisy; never regressions)."""
        return tuple(c for c in self.changes if c.undecided)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "schema_version": self.schema_version, "base": self.base, "new": self.new,
                "gate": self.gate, "unmatched": list(self.unmatched),
                "changes": [{**asdict(c), "verdict": c.verdict(self.gate)} for c in self.changes],
                "findings": [f.to_dict() for f in self.findings]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Regression":
        d = migrate(d, cls.kind, SCHEMA_VERSION)
        changes = d.get("changes")
        if not isinstance(changes, list):
            raise ValueError("regression.changes must be a list")
        return build(cls, {**d, "changes": tuple(Change.from_dict(c) for c in changes),
                           "findings": tuple(Finding.from_dict(f) for f in d.get("findings") or ())}, "regression")
