"""What a measurement keeps besides its samples, each part immutable: how warm-up, calibration and stopping
went, the speed reference timed beside the samples, where a measurement read from another tool's file came
from, and what torch compiled during the run."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

from . import stats

#: How warm-up ended (:attr:`Warmup.rule`): a fixed count of calls, or once per-call time stopped falling.
#: A rule may add ``+cut``: the fixed count was cut at the budget. The words are in
#: :mod:`measurefirst.render.words`; a rule read from an older file may be words, shown as they are.
WARMUP_RULES = ("fixed", "steady")
#: Why a sample holds :attr:`Calibration.number` calls (:attr:`Calibration.reason`): the caller fixed it;
#: cold cache (one call per flush); fixed mode (one call per trial); the smallest count that keeps the
#: overhead and the resolution a small share of a sample. ``adaptive`` may add ``+capped`` (one sample
#: kept a small share of the budget) and ``+graph`` (recalibrated on a timed CUDA graph replay).
CALIBRATION_REASONS = ("caller", "cold_cache", "fixed_mode", "adaptive")


#: The most warm-up call times a result keeps (see :class:`Warmup`).
WARMUP_TIMES_KEPT = 128


def kept_warmup_times(times: "list[float] | tuple[float, ...]") -> tuple[float, ...]:
    """The warm-up times a result keeps: all, up to :data:`WARMUP_TIMES_KEPT`; else the first and the last half."""
    if len(times) <= WARMUP_TIMES_KEPT:
        return tuple(times)
    half = WARMUP_TIMES_KEPT // 2
    return (*times[:half], *times[-half:])


@dataclass(frozen=True)
class Warmup:
    """What warm-up did: the cold first call, then ``calls`` more until steady (``rule``: a code of
    :data:`WARMUP_RULES`). ``times_ns`` holds the warm-up calls' times, all of them up to
    :data:`WARMUP_TIMES_KEPT` calls; of a longer warm-up the first and the last ``WARMUP_TIMES_KEPT // 2``
    (the curve's fall and where it settled: what a reader, the calibration and the plots use). A
    microsecond call warms up over thousands of calls, each timed alone; their times are not samples
    (no statistic reads them) and kept whole they were two thirds of a stored run (issue 29)."""

    cold_ns: float | None  # None: the first call was not observed apart
    calls: int
    times_ns: tuple[float, ...]
    steady: bool
    seconds: float
    rule: str


@dataclass(frozen=True)
class Calibration:
    """How samples were formed: ``number`` calls per sample, chosen from the measured overhead (``reason``: a
    code of :data:`CALIBRATION_REASONS`)."""

    number: int
    overhead_ns: float
    resolution_ns: float
    per_call_estimate_ns: float
    overhead_share: float
    reason: str


@dataclass(frozen=True)
class Stop:
    """Why sampling stopped and whether the precision target was met."""

    reason: str  # "precision", "budget", "noise", "trials", "max_samples", "interrupted", "error"
    target_met: bool
    precision: float
    seconds: float


@dataclass(frozen=True)
class SpeedReference:
    """Experimental (``benchmark(..., reference=True)``): a reference workload timed right after each
    sample, ``number`` calls per reference sample, to track the machine's speed (see
    :mod:`measurefirst.results.reference`). ``overhead_ns`` is the timer overhead subtracted from both."""

    label: str
    samples_ns: tuple[float, ...]
    number: int
    overhead_ns: float


#: The tools whose result files measurefirst reads (:mod:`measurefirst.results.importers`).
IMPORT_SOURCES = ("pytest-benchmark", "pyperf")
#: The statistics a file of another tool may give, per call, in seconds (pytest-benchmark's names).
IMPORTED_STATS = ("min", "max", "mean", "stddev", "median", "q1", "q3", "iqr")


@dataclass(frozen=True)
class Imported:
    """Where a measurement read from another tool's file came from (``source``, one of
    :data:`IMPORT_SOURCES`), and how much of it is ours: ``recomputed`` when the file kept its raw times
    (then every statistic is recomputed from them), else the file's own statistics (``stats_seconds``,
    per call, as given) are taken as is over ``rounds`` rounds of ``iterations`` calls, and no sample is
    made up. ``format_version`` is the tool's version or format version, as the file gives it."""

    source: str
    recomputed: bool
    rounds: int
    iterations: int
    stats_seconds: dict[str, float] = field(default_factory=dict)
    format_version: str = ""
    #: the fewest rounds whose reported quartiles give an interval (:data:`measurefirst.results.stats.NOTCH_MIN_ROUNDS`)
    notch_min_rounds: ClassVar[int] = stats.NOTCH_MIN_ROUNDS

    def summary(self) -> stats.Summary | None:
        """The file's statistics as a summary (seconds per call), its interval the notch of the reported
        quartiles when there are enough rounds (else none); ``None`` without a median."""
        s = self.stats_seconds
        if "median" not in s or self.rounds < 1:
            return None
        med = s["median"]
        q1, q3 = s.get("q1", math.nan), s.get("q3", math.nan)
        iqr = s.get("iqr", q3 - q1)
        ci = stats.notch_interval(med, iqr, self.rounds)
        return stats.Summary(n=self.rounds, median=med, mean=s.get("mean", math.nan), min=s.get("min", math.nan),
                             max=s.get("max", math.nan), stdev=s.get("stddev", math.nan), q1=q1, q3=q3, iqr=iqr,
                             ci_low=None if ci is None else ci[0], ci_high=None if ci is None else ci[1],
                             outliers=0, ci_method="notch" if ci else "none")

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "recomputed": self.recomputed, "rounds": self.rounds,
                "iterations": self.iterations, "stats_seconds": dict(self.stats_seconds),
                "format_version": self.format_version}


#: The states of inductor's cache over a run (:attr:`Compiled.cache`).
COMPILE_CACHES = ("cold", "warm", "mixed", "none")
#: The phases of a run a compile can fall in (the engine's phase names).
COMPILE_PHASES = ("cold call", "warm-up", "calibration", "sampling", "CUDA graph capture", "")


@dataclass(frozen=True)
class CompileEvent:
    """One frame torch compiled (or a one-time cost at run time: autotuning, recording a CUDA graph),
    in torch's own accounting: ``seconds``; the frame's ``name`` and ``where`` (file:line); why it was
    compiled again (``reason``: the guard that failed; empty for a first compile); graph ``breaks``;
    inductor's FX-graph cache ``hits`` and ``misses``; ``runtime``: a cost at run time, not a compile;
    ``failed``: the exception's type when compiling failed (torch ran the frame eagerly). ``phase``
    and ``call``: where in the run it fell (one of :data:`COMPILE_PHASES`; the call or sample index).
    A frame that resumes a function after a graph break has ``breaks`` 1, ``where`` the line of the
    break and ``break_reason`` torch's reason."""

    seconds: float
    name: str = ""
    where: str = ""
    reason: str = ""
    breaks: int = 0
    hits: int = 0
    misses: int = 0
    runtime: bool = False
    failed: str = ""
    phase: str = ""
    call: int | None = None
    #: the graph break this frame resumes after, in torch's words (shortened)
    break_reason: str = ""


@dataclass(frozen=True)
class Compiled:
    """What torch compiled during a run (see :mod:`measurefirst.measure.compiling`): the ``events``;
    ``calls_s``, the time of the calls that compiled (kept off the budget and out of the samples);
    ``resampled``, samples taken again because they spanned a compile."""

    calls_s: float
    events: tuple[CompileEvent, ...]
    resampled: int = 0
    #: measured in fresh processes (``processes=K``): each one's compile before sampling and its cache's
    #: state, in process order (with ``compile=``, the first starts from an empty inductor cache)
    per_process: tuple[tuple[float, str], ...] = ()

    @property
    def compiles(self) -> tuple[CompileEvent, ...]:
        """The compiles proper (not run-time one-time costs)."""
        return tuple(e for e in self.events if not e.runtime)

    @property
    def seconds(self) -> float:
        """Compile time in torch's accounting, every compile of the run."""
        return sum(e.seconds for e in self.compiles)

    @property
    def first_s(self) -> float:
        """Compile time before sampling (the first call, warm-up, calibration)."""
        return sum(e.seconds for e in self.compiles if e.phase != "sampling")

    @property
    def graphs(self) -> int:
        """Frames compiled (each a graph, or several where it broke)."""
        return sum(1 for e in self.compiles if not e.failed)

    @property
    def breaks(self) -> int:
        return sum(e.breaks for e in self.compiles)

    @property
    def recompiles(self) -> tuple[CompileEvent, ...]:
        """Compiles during sampling: a guard failed while the function was timed."""
        return tuple(e for e in self.compiles if e.phase == "sampling")

    @property
    def cache(self) -> str:
        """Inductor's FX-graph cache over the run: ``"cold"`` (only misses), ``"warm"`` (only hits),
        ``"mixed"``, or ``"none"`` (no lookups: another backend, or the cache is off)."""
        hits = sum(e.hits for e in self.events)
        misses = sum(e.misses for e in self.events)
        if hits and misses:
            return "mixed"
        return "warm" if hits else "cold" if misses else "none"

    def to_dict(self) -> dict[str, Any]:
        d = {"calls_s": self.calls_s, "resampled": self.resampled, "seconds": self.seconds,
             "graphs": self.graphs, "breaks": self.breaks, "cache": self.cache,
             "events": [asdict(e) for e in self.events]}
        if self.per_process:
            d["per_process"] = [[s, c] for s, c in self.per_process]
        return d
