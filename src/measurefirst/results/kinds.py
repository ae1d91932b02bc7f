"""Immutable result types and their versioned JSON form.

A :class:`Measurement` keeps every raw sample with its loop count, so statistics can be
recomputed, filtered or merged later without re-running anything.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, Sequence

from .._lazy import deferred
from . import stats
from .findings import Finding as Finding  # re-exported: measurefirst.Finding
from .findings import (COUNT_SPREAD_FRACTION, OVERHEAD_WARN_SHARE, PREEMPTED_FRACTION, UNJOINED_STREAM_MIN_NS,
                       UNJOINED_STREAM_RATIO, cold_start, found, launch_bound, sample_checks)
from .base import ResultBase, shown
from .protocol import build
from .protocol import parse_json as parse_json  # re-exported: read by loading and the store
from .protocol import migrate as migrate_kind

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from .reference import Normalized
else:  # imported on first use: a history read from the store's columns never needs it
    np = deferred("numpy", globals(), "np")

#: Version of the stored JSON form; bump it and add a migration when the form changes.
#: Version 2 added ``run_to_run`` and ``repeats`` (absent in version 1: nothing measured the spread).
#: Version 3 writes the warm-up's rule and the calibration's reason as codes, where version 2 wrote words.
SCHEMA_VERSION = 3
#: Version of a :class:`Count`'s stored form.
COUNT_SCHEMA_VERSION = 1
#: Samples are set aside as preempted only while at most this fraction of them were preempted;
#: beyond it the machine is too busy for that to leave a fair sample, so all are kept (and a
#: warning says so).
MAX_PREEMPTED_FRACTION_TO_DISCARD = 0.5


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


#: Where a run-to-run spread was measured (the codes; their words are in :mod:`measurefirst.render.words`):
#: repetitions inside the call, each with its own warm-up and calibration; fresh worker processes; the
#: store's history of the same benchmark on the same machine; the machine's noise profile (measured by
#: ``selfcheck --noise`` in fresh processes); measurefirst's prior where the machine has no profile
#: (:func:`measurefirst.measure.noise.prior_profile`); or a figure the caller gave.
RUN_TO_RUN_SOURCES = ("repeats", "processes", "history", "profile", "prior", "given")

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


@dataclass(frozen=True)
class RunToRun:
    """How far the next run's median may land from this one's: the relative standard deviation of one
    run's median from run to run (``cv``), *measured* from ``n`` independent values (repetitions,
    processes, saved runs) of the kind ``source`` names, and the 95% factor that goes with that many
    (Student's t with ``n - 1`` degrees of freedom: few values give a wide interval, never a narrow
    one). ``medians_ns`` are the per-call medians it was measured from (repetitions or processes).

    ``floor`` is the spread of fresh processes that the machine's noise profile predicts for a call this
    long (0 without one); ``floor_source`` says where it came from: ``"profile"`` (this machine's),
    ``"prior"`` (measurefirst's prior, where this machine has no profile), or ``""`` (none). The spread used is the larger:
    repetitions inside one process cannot see what changes between processes (address layout,
    allocator state, thread placement), the profile measured exactly that.

    **Few values, with a floor** (``prior_dof``). Two repetitions alone give t(0.975, 1) = 12.7, a
    factor of 15.6 with the centre's own uncertainty: a spread of 20% becomes a factor of 18 either way,
    an interval no one can use. A floor is prior information about the spread's scale, measured from other values: this
    machine's profile from ``P`` fresh processes (``P - 1`` degrees of freedom), measurefirst's prior
    from another machine (worth fewer: :data:`measurefirst.measure.noise.PRIOR_DOF`). Taken as a
    conjugate (scaled inverse chi-square) prior worth ``prior_dof`` values, the posterior predictive of
    the next run is Student's t with ``prior_dof + n - 1`` degrees of freedom and the pooled scale
    ``s^2 = (prior_dof * floor^2 + (n - 1) * cv^2) / (prior_dof + n - 1)``, times ``sqrt(1 + 1/n)``;
    ``factor`` is that t quantile (:func:`spread_factor` of ``n`` and ``prior_dof``). The scale used is
    **not** pulled below the measured ``cv``: the spread stays ``max(cv, floor)``, which is never below the
    pooled ``s``, so the interval is never narrower than the conjugate one. The floor is the spread of
    the quietest work (a busy-wait) of that length, a lower bound on any work's spread, not the scale
    of this one; pooling it would narrow a noisy call's interval by a busy-wait's quiet, and two values
    cannot say which is right. When in doubt, widen: the floor lends its degrees of freedom, never its
    smaller scale. ``prior_dof`` is 0 (and the factor the measured values' own) without a floor, where the
    values contradict the floor (their spread above it beyond chance: :func:`measurefirst.measure.noise.lent_dof`),
    and in files written before it existed. The relative half-width on the log scale is
    ``factor * log(1 + spread)``: the interval runs from ``median / exp(...)`` to ``median * exp(...)``,
    so its lower end is never 0."""

    cv: float
    source: str
    n: int
    factor: float
    medians_ns: tuple[float, ...] = ()
    floor: float = 0.0
    floor_source: str = ""
    #: the degrees of freedom the floor lends the factor (see above; 0: none)
    prior_dof: int = 0

    @property
    def spread(self) -> float:
        """The relative standard deviation used: the larger of the measured ``cv`` and the ``floor``."""
        return max(self.cv, self.floor)

    @property
    def half_width(self) -> float:
        """Relative 95% half-width of where the next run's median lands, from the spread alone."""
        return self.factor * self.spread

    def to_dict(self) -> dict[str, Any]:
        return {"cv": self.cv, "source": self.source, "n": self.n, "factor": self.factor,
                "medians_ns": list(self.medians_ns), "floor": self.floor, "floor_source": self.floor_source,
                "prior_dof": self.prior_dof}


def spread_from_medians(medians_ns: Sequence[float], source: str) -> RunToRun | None:
    """The run-to-run spread measured by independent runs of one thing (the repetitions inside a call, or
    fresh processes): the sample standard deviation of their log medians, as a relative figure
    (``expm1``), with the 95% factor for that many (:func:`spread_factor`); ``None`` with fewer than two
    finite, positive medians."""
    good = [x for x in medians_ns if math.isfinite(x) and x > 0]
    if len(good) < 2:
        return None
    logs = [math.log(x) for x in good]
    mean = sum(logs) / len(logs)
    sd = math.sqrt(sum((x - mean) ** 2 for x in logs) / (len(logs) - 1))
    return RunToRun(cv=math.expm1(sd), source=source, n=len(good), factor=spread_factor(len(good)),
                    medians_ns=tuple(good))


def spread_factor(n: int, prior_dof: int = 0) -> float:
    """The 95% factor for a spread measured from ``n`` independent values: t(0.975, n - 1 + prior_dof),
    inflated by sqrt(1 + 1/n) (the spread's own centre is estimated too), never below the normal
    quantile. ``prior_dof``: the degrees of freedom a floor lends (see :class:`RunToRun`)."""
    if n < 2:
        return math.inf
    return max(stats.t975(n - 1 + max(prior_dof, 0)) * math.sqrt(1.0 + 1.0 / n), stats.Z95)


@dataclass(frozen=True)
class Measurement(ResultBase):
    """The result of :func:`measurefirst.benchmark`: raw samples plus how they were taken.

    Per-call statistics, in seconds, are attributes: ``median``, ``mean``, ``min``, ``max``,
    ``stdev``, ``iqr``, ``ci`` (95% CI of the median), ``outliers``. They are computed from the
    samples that were *used*: all of them, except samples during which the operating system
    preempted the process, when those are a minority (see ``preempted``).
    """

    label: str
    device: str
    timer: str
    samples_ns: tuple[float, ...]
    numbers: tuple[int, ...]
    host_ns: tuple[float, ...] | None
    preempted: tuple[int, ...] | None
    warmup: Warmup | None
    calibration: Calibration | None
    stop: Stop
    options: dict[str, Any] = field(default_factory=dict)
    env: dict[str, Any] = field(default_factory=dict)
    complete: bool = True
    discard_preempted: bool = True
    #: event timers: host ns from the start event until a synchronize of the whole device returned
    synced_ns: tuple[float, ...] | None = None
    #: experimental: the speed reference interleaved with the samples (``reference=True``)
    reference: SpeedReference | None = None
    #: the run-to-run spread: how far the next run may land (``None``: not measured)
    run_to_run: RunToRun | None = None
    #: samples per independent repetition (each with its own warm-up and calibration), in order;
    #: ``None``: one repetition
    repeats: tuple[int, ...] | None = None
    #: read from another tool's file (pytest-benchmark, pyperf): which, and what was recomputed
    imported: Imported | None = None
    #: what torch compiled during the run (``None``: nothing), kept apart from the samples
    compiled: Compiled | None = None
    schema_version: int = SCHEMA_VERSION

    kind = "measurement"

    def __post_init__(self) -> None:
        n = len(self.samples_ns)
        for name in ("numbers", "host_ns", "preempted", "synced_ns"):
            seq = getattr(self, name)
            if seq is not None and len(seq) != n:
                raise ValueError(f"{name} has {len(seq)} entries for {n} samples; each sample needs one")
        if self.repeats is not None and sum(self.repeats) != n:
            raise ValueError(f"repeats count {sum(self.repeats)} samples in all for {n} samples; they must add up")

    @cached_property
    def findings(self) -> tuple[Finding, ...]:
        """What deserves care about this measurement, as data (most important first), derived from
        the samples and options on each load, so an old file gets today's checks (see
        :mod:`measurefirst.results.findings`; the words are in :mod:`measurefirst.render.findings`)."""
        return assess(self)

    @property
    def warnings(self) -> tuple[Finding, ...]:
        """Deprecated: the same tuple as :attr:`findings`."""
        return self.findings

    @cached_property
    def normalized(self) -> "Normalized | None":
        """Experimental: the estimate normalized to the machine's fast state, with the speed factor
        (``None`` without a speed reference). See :mod:`measurefirst.results.reference`."""
        if self.reference is None:
            return None
        from .reference import normalize

        return normalize(self, self.reference)

    # ---- samples ---------------------------------------------------------------------------
    @cached_property
    def per_call_ns(self) -> np.ndarray:
        """Every sample divided by its loop count (nanoseconds per call), in sampling order."""
        if not self.samples_ns:
            return np.zeros(0)
        per_call: np.ndarray = np.asarray(self.samples_ns, dtype=float) / np.asarray(self.numbers, dtype=float)
        return per_call

    @cached_property
    def costly_mask(self) -> np.ndarray:
        """The samples whose preemption cost time (:func:`costly_preemptions`)."""
        return costly_preemptions(self.preempted, self.per_call_ns)

    @cached_property
    def used_mask(self) -> np.ndarray:
        return keep_mask(self.costly_mask, self.discard_preempted)

    @property
    def n_samples(self) -> int:
        return len(self.samples_ns)

    @property
    def n_used(self) -> int:
        return int(self.used_mask.sum())

    @property
    def n_rounds(self) -> int:
        """The samples the statistics describe: :attr:`n_used`, or the rounds of an imported file that kept
        no raw times (its statistics are taken as given)."""
        if self.n_used or self.imported is None:
            return self.n_used
        return self.imported.rounds

    @property
    def loop_counts(self) -> tuple[int, ...]:
        """The distinct calls per sample, smallest first (an imported file without raw times: its iterations)."""
        found = tuple(sorted(set(self.numbers)))
        return found or ((self.imported.iterations,) if self.imported is not None else ())

    @property
    def n_preempted(self) -> int:
        """The samples whose preemption cost time (:attr:`costly_mask`)."""
        return int(self.costly_mask.sum())

    @property
    def total_calls(self) -> int:
        return int(sum(self.numbers))

    @cached_property
    def summary(self) -> stats.Summary | None:
        """Statistics of used per-call times in **seconds**; ``None`` if nothing was measured."""
        values = self.per_call_ns[self.used_mask]
        if values.size == 0:
            return None if self.imported is None else self.imported.summary()
        groups = None
        if self.repeats is not None and len(self.repeats) > 1:
            mask, first, groups = self.used_mask, 0, []
            for c in self.repeats:
                groups.append(int(mask[first:first + c].sum()))
                first += c
        return stats.summarize(values / 1e9, groups=groups)

    def _stat(self, name: str) -> float:
        s = self.summary
        return math.nan if s is None else float(getattr(s, name))

    # ---- per-call statistics in seconds (explicit, no attribute forwarding) ----------------
    @property
    def median(self) -> float:
        return self._stat("median")

    @property
    def mean(self) -> float:
        return self._stat("mean")

    @property
    def min(self) -> float:
        return self._stat("min")

    @property
    def max(self) -> float:
        return self._stat("max")

    @property
    def stdev(self) -> float:
        return self._stat("stdev")

    @property
    def iqr(self) -> float:
        return self._stat("iqr")

    @property
    def outliers(self) -> int:
        s = self.summary
        return 0 if s is None else s.outliers

    @property
    def precision_ci(self) -> tuple[float, float] | None:
        """This run's precision: the 95% confidence interval of the median per-call time from this
        run's own samples, seconds (``None``: too few samples). It says how well this run pinned its own
        median, not where the next run lands (see :attr:`ci`); interleaved comparisons use it, since
        their candidates share the machine's state."""
        s = self.summary
        if s is None or s.ci_low is None or s.ci_high is None:
            return None
        return (s.ci_low, s.ci_high)

    @property
    def precision_half_width_rel(self) -> float:
        """Relative half-width of :attr:`precision_ci` (``inf`` without one)."""
        s = self.summary
        return math.inf if s is None else s.ci_half_width_rel

    @property
    def ci_includes_run_to_run(self) -> bool:
        """Whether :attr:`ci` holds a measured run-to-run spread (else it is this run's precision only)."""
        return self.run_to_run is not None and math.isfinite(self.run_to_run.half_width)

    @property
    def ci_half_width_rel(self) -> float:
        """Relative half-width of the headline interval :attr:`ci`, ``(high - low) / 2 / median``: this run's
        precision alone when no spread was measured (:attr:`ci_includes_run_to_run` says which)."""
        if not self.ci_includes_run_to_run:
            return self.precision_half_width_rel
        ci = self.ci
        med = self.median
        if ci is None or not med > 0 or not self.precision_half_width_rel < math.inf:
            return math.inf
        return (ci[1] - ci[0]) / 2.0 / med

    @property
    def ci_sides_rel(self) -> tuple[float, float] | None:
        """The headline interval's two sides relative to the median, ``(1 - low / median, high / median - 1)``:
        apart, because on the log scale a wide interval reaches further up than down (``None``: no interval)."""
        ci, med = self.ci, self.median
        if ci is None or not med > 0:
            return None
        return (max(0.0, 1.0 - ci[0] / med), max(0.0, ci[1] / med - 1.0))

    @property
    def ci(self) -> tuple[float, float] | None:
        """The headline 95% interval of the median per-call time, seconds: where the next run's median
        may land. On the log scale (spreads are relative: a run as likely half as fast as twice), each
        side of this run's precision interval and the run-to-run part ``factor * log(1 + spread)`` add in
        quadrature; without a measured spread it is the precision interval. ``None``: too few samples."""
        pci = self.precision_ci
        if pci is None or not self.ci_includes_run_to_run:
            return pci
        assert self.run_to_run is not None
        med = self.median
        if not med > 0 or not pci[0] > 0:
            return pci
        r = self.run_to_run.factor * math.log1p(self.run_to_run.spread)
        up = math.hypot(math.log(pci[1] / med), r)  # beyond a float's range (a corrupt file): no upper end
        return (med * math.exp(-math.hypot(math.log(med / pci[0]), r)), med * math.exp(up) if up < 700 else math.inf)

    @property
    def host_median(self) -> float | None:
        """Median host (launch) time per call in seconds, for event timers; else ``None``."""
        if self.host_ns is None or not self.host_ns:
            return None
        per_call = np.asarray(self.host_ns, dtype=float) / np.asarray(self.numbers, dtype=float)
        return float(np.median(per_call)) / 1e9

    @property
    def synced_median(self) -> float | None:
        """Median host time per call until the whole device was idle, seconds (event timers only)."""
        if self.synced_ns is None or not self.synced_ns:
            return None
        per_call = np.asarray(self.synced_ns, dtype=float) / np.asarray(self.numbers, dtype=float)
        return float(np.median(per_call)) / 1e9

    @property
    def target_met(self) -> bool:
        return self.stop.target_met

    # ---- rendering (str and HTML: ResultBase) ------------------------------------------------
    def __repr__(self) -> str:
        return shown(self, "measurement_repr")

    # ---- JSON -------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        d = {
            "schema_version": self.schema_version,
            "kind": "measurement",
            "label": self.label,
            "device": self.device,
            "timer": self.timer,
            "complete": self.complete,
            "discard_preempted": self.discard_preempted,
            "samples_ns": list(self.samples_ns),
            "numbers": list(self.numbers),
            "host_ns": None if self.host_ns is None else list(self.host_ns),
            "preempted": None if self.preempted is None else list(self.preempted),
            "synced_ns": None if self.synced_ns is None else list(self.synced_ns),
            "warmup": None if self.warmup is None else asdict(self.warmup),
            "calibration": None if self.calibration is None else asdict(self.calibration),
            "stop": asdict(self.stop),
            "options": dict(self.options),
            "env": dict(self.env),
        }
        s = self.summary
        # Derived statistics and findings are written for readers of the file; loading recomputes them.
        d["stats_seconds"] = None if s is None else asdict(s)
        d["findings"] = [f.to_dict() for f in self.findings]
        # the two uncertainties, named apart: the headline interval (where the next run may land when a
        # spread was measured, else this run's precision) and this run's precision
        d["interval"] = {"kind": "run_to_run" if self.ci_includes_run_to_run else "precision",
                         "ci_seconds": None if self.ci is None else list(self.ci),
                         "half_width": self.ci_half_width_rel,
                         "sides_rel": None if self.ci_sides_rel is None else list(self.ci_sides_rel),
                         "precision_ci_seconds": None if self.precision_ci is None else list(self.precision_ci),
                         "precision_half_width": self.precision_half_width_rel}
        if self.run_to_run is not None:
            d["run_to_run"] = self.run_to_run.to_dict()
        if self.repeats is not None:
            d["repeats"] = list(self.repeats)
        if self.imported is not None:
            d["imported"] = self.imported.to_dict()
        if self.compiled is not None:
            d["compiled"] = self.compiled.to_dict()
        if self.reference is not None:
            d["reference"] = asdict(self.reference)
            norm = self.normalized
            d["normalized"] = None if norm is None else asdict(norm)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any], path: str = "measurement") -> "Measurement":
        """Rebuild a measurement from its stored form, migrating older schema versions. The whole
        structure is validated: anything missing, ill-typed or inconsistent raises ``ValueError``
        naming the field (and nothing else is raised)."""
        d = migrate(_dict(d, path))
        samples = _num_list(d, "samples_ns", path, minimum=0.0)
        numbers = _int_list(d, "numbers", path, minimum=1)
        host = None if d.get("host_ns") is None else _num_list(d, "host_ns", path, minimum=0.0)
        preempted = None if d.get("preempted") is None else _int_list(d, "preempted", path, minimum=-1)
        synced = None if d.get("synced_ns") is None else _num_list(d, "synced_ns", path, minimum=0.0)
        for name, seq in (("numbers", numbers), ("host_ns", host), ("preempted", preempted), ("synced_ns", synced)):
            if seq is not None and len(seq) != len(samples):
                raise ValueError(f"{path}.{name} has {len(seq)} entries for {len(samples)} samples")
        return cls(
            label=_str(d, "label", path),
            device=_str(d, "device", path),
            timer=_str(d, "timer", path),
            samples_ns=samples,
            numbers=numbers,
            host_ns=host,
            preempted=preempted,
            synced_ns=synced,
            warmup=_warmup(d.get("warmup"), f"{path}.warmup"),
            calibration=_calibration(d.get("calibration"), f"{path}.calibration"),
            stop=_stop(d.get("stop"), f"{path}.stop"),
            options=_opt_dict(d, "options", path),
            env=_opt_dict(d, "env", path),
            complete=_opt_bool(d, "complete", path, True),
            discard_preempted=_opt_bool(d, "discard_preempted", path, True),
            reference=_reference(d.get("reference"), f"{path}.reference"),
            run_to_run=_run_to_run(d.get("run_to_run"), f"{path}.run_to_run"),
            repeats=_repeats(d.get("repeats"), len(samples), f"{path}.repeats"),
            imported=_imported(d.get("imported"), f"{path}.imported"),
            compiled=_compiled(d.get("compiled"), f"{path}.compiled"),
            schema_version=SCHEMA_VERSION,
        )



@dataclass(frozen=True)
class Count(ResultBase):
    """The result of ``benchmark(fn, count="instructions")``: how many user-space instructions one
    call of ``fn`` executes, counted (not timed) over ``calls`` calls in each of several repeats.

    Counts do not drift with the machine's load or speed, so they make tight CI gates; they do not
    see what makes code slow beyond instructions (cache misses, memory bandwidth, the GPU).
    ``counts`` are per repeat, for ``calls`` calls, with the empty bracket (the counter's own start
    and stop) already subtracted; ``baselines`` keep what was subtracted.
    """

    label: str
    event: str  # "instructions"
    backend: str  # "perf" (hardware counters) or "callgrind"
    counts: tuple[int, ...]
    baselines: tuple[int, ...]
    calls: int
    warmup: int
    device: str = "cpu"
    options: dict[str, Any] = field(default_factory=dict)
    env: dict[str, Any] = field(default_factory=dict)
    complete: bool = True
    schema_version: int = COUNT_SCHEMA_VERSION

    kind = "count"

    def __post_init__(self) -> None:
        if len(self.counts) != len(self.baselines):
            raise ValueError("counts and baselines must have the same length")
        if self.calls < 1:
            raise ValueError(f"calls must be >= 1; got {self.calls}")

    @property
    def findings(self) -> tuple[Finding, ...]:
        """What deserves care about this count, derived from the counts on each load."""
        return assess_count(self)

    @property
    def per_call_counts(self) -> tuple[float, ...]:
        """Each repeat's count divided by its calls."""
        return tuple(c / self.calls for c in self.counts)

    @property
    def per_call(self) -> float:
        """The median over repeats of the events per call (``nan`` without repeats)."""
        return float(np.median(self.per_call_counts)) if self.counts else math.nan

    @property
    def spread(self) -> float:
        """Half the range of the per-call counts over the repeats, relative to ``per_call``: how far
        repeated counts disagree (0 when they are identical)."""
        if not self.counts or not self.per_call > 0:
            return math.inf
        values = self.per_call_counts
        return (max(values) - min(values)) / 2 / self.per_call

    @property
    def n_repeats(self) -> int:
        return len(self.counts)

    def __repr__(self) -> str:
        return (f"<Count {self.label!r}: {self.per_call:,.0f} {self.event}/call over {self.n_repeats} x "
                f"{self.calls} calls [{self.backend}]>")

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": self.schema_version, "kind": self.kind, "label": self.label,
            "event": self.event, "backend": self.backend, "device": self.device,
            "counts": list(self.counts), "baselines": list(self.baselines), "calls": self.calls,
            "warmup": self.warmup, "per_call": self.per_call if self.counts else None,
            "options": dict(self.options), "env": dict(self.env),
            "findings": [f.to_dict() for f in self.findings], "complete": self.complete,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Count":
        return build(cls, migrate_kind(d, "count", COUNT_SCHEMA_VERSION), "count")


def load_result(data: dict[str, Any]) -> "Measurement | Count":
    """A stored measurement or count, by its ``kind``; anything malformed is a ``ValueError``."""
    if not isinstance(data, dict):
        raise ValueError(f"a result must be a JSON object; got {_kind(data)}")
    if data.get("kind") == "count":
        try:
            return Count.from_dict(data)
        except (KeyError, TypeError, IndexError, AttributeError) as exc:
            raise ValueError(f"count result has a missing or malformed field: {exc}") from exc
    return Measurement.from_dict(data)


def measured(result: Any) -> "list[Measurement | Count]":
    """The measurements (or counts) a result of any kind holds: itself, a saved run's, or those of a
    comparison, a sweep, a selfcheck or a history (none for the other kinds)."""
    if isinstance(result, (Measurement, Count)):
        return [result]
    if getattr(result, "kind", None) == "saved_run":
        return measured(result.measurement)
    return list(getattr(result, "measurements", ()))


def costly_preemptions(preempted: tuple[int, ...] | None, per_call: Sequence[float] | np.ndarray) -> np.ndarray:
    """The samples whose preemption cost time. An involuntary context switch during a sample that is no
    slower than the slowest sample without one was a scheduler tick (a kernel thread's turn): it cost
    nothing the samples can see, and the sample is kept. A long call meets a tick in many samples (a
    20 ms call on a quiet machine, one in three) and must not lose them. With no clean sample to compare
    with, every switch counts."""
    n = len(per_call)
    if preempted is None or n == 0:
        return np.zeros(n, dtype=bool)
    hit = np.asarray(preempted[:n]) > 0
    if not hit.any() or hit.all():
        return hit
    values = np.asarray(per_call, dtype=float)
    costly: np.ndarray = hit & (values > values[~hit].max())
    return costly


def used_mask(preempted: tuple[int, ...] | None, per_call: Sequence[float] | np.ndarray, discard: bool) -> np.ndarray:
    """Which samples the statistics use: all but those whose preemption cost time
    (:func:`costly_preemptions`), while those are a minority."""
    return keep_mask(costly_preemptions(preempted, per_call), discard)


def keep_mask(costly: np.ndarray, discard: bool) -> np.ndarray:
    """:func:`used_mask` from the samples whose preemption cost time."""
    n = len(costly)
    if not discard or n == 0 or costly.sum() > MAX_PREEMPTED_FRACTION_TO_DISCARD * n:
        return np.ones(n, dtype=bool)
    kept: np.ndarray = ~costly
    return kept


# ---- schema migration -----------------------------------------------------------------------
def migrate(d: dict[str, Any]) -> dict[str, Any]:
    """Bring a stored measurement up to :data:`SCHEMA_VERSION`, one version at a time (see
    :func:`measurefirst.results.protocol.migrate`)."""
    return migrate_kind(d, "measurement", SCHEMA_VERSION)


# ---- loading: parse and validate, raising only ValueError ----------------------------------------
def measurements_in(item: Any, path: str) -> "list[Measurement | Count]":
    """The measurements (or instruction counts) in one parsed results document of a kind defined here:
    a measurement, a count, a comparison's or ``pytest --mf-json``'s measurements. Raises ``ValueError``
    (only) naming what is wrong, also for a kind that holds no measurements.
    :func:`measurefirst.results.loading.load_measurements` reads the kinds defined elsewhere (sweep, selfcheck)."""
    if not isinstance(item, dict):
        raise ValueError(f"{path} is {_kind(item)}, not a measurefirst result object")
    kind = item.get("kind")
    if kind == "measurement":
        return [Measurement.from_dict(item, path)]
    if kind == "count":
        return [load_result(item)]
    if kind == "comparison":
        d = migrate(item)
        ms = d.get("measurements")
        if not isinstance(ms, (list, tuple)):
            raise ValueError(f"{path}.measurements must be a list")
        return [Measurement.from_dict(m, f"{path}.measurements[{j}]") for j, m in enumerate(ms)]
    if kind == "pytest_run":  # pytest --mf-json: the measurements that have samples
        benchmarks = item.get("benchmarks")
        if not isinstance(benchmarks, list):
            raise ValueError(f"{path}.benchmarks must be a list")
        out: list[Measurement | Count] = []
        for j, b in enumerate(benchmarks):
            m = _dict(_dict(b, f"{path}.benchmarks[{j}]").get("measurement"), f"{path}.benchmarks[{j}].measurement")
            if m.get("samples_ns"):
                out.append(Measurement.from_dict(m, f"{path}.benchmarks[{j}].measurement"))
        return out
    raise ValueError(f"{path} has no \"kind\" of measurement, count, comparison, sweep or selfcheck "
                     f"(got {_short(kind)}); is it a measurefirst results file?")


def _kind(v: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null",
            int: "a number", float: "a number"}.get(type(v), type(v).__name__)


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


def _dict(v: Any, path: str) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise ValueError(f"{path} must be an object; got {_kind(v)}")
    return v


def _str(d: dict[str, Any], key: str, path: str) -> str:
    if key not in d:
        raise ValueError(f"{path} has no {key!r}")
    v = d[key]
    if not isinstance(v, str):
        raise ValueError(f"{path}.{key} must be a string; got {_kind(v)}")
    return v


def _opt_str(d: dict[str, Any], key: str, path: str, default: str) -> str:
    v = d.get(key)
    if v is None:
        return default
    if not isinstance(v, str):
        raise ValueError(f"{path}.{key} must be a string; got {_kind(v)}")
    return v


def _opt_bool(d: dict[str, Any], key: str, path: str, default: bool) -> bool:
    v = d.get(key, default)
    if not isinstance(v, bool):
        raise ValueError(f"{path}.{key} must be true or false; got {_short(v)}")
    return v


def _opt_dict(d: dict[str, Any], key: str, path: str) -> dict[str, Any]:
    v = d.get(key)
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise ValueError(f"{path}.{key} must be an object; got {_kind(v)}")
    return dict(v)


#: Longest time a stored sample may claim: 1e18 ns is 31 years; beyond it the file is damaged.
MAX_STORED_NS = 1e18


def _num(v: Any, path: str, *, none: bool = False, finite: bool = True, minimum: float | None = None,
         maximum: float | None = None) -> Any:
    """A JSON number (not a boolean) as float; None passes when ``none`` (as None) . Non-finite
    numbers are refused when ``finite``."""
    if v is None and none:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError(f"{path} must be a number; got {_short(v)}")
    try:
        x = float(v)
    except OverflowError:
        raise ValueError(f"{path} is too large a number") from None
    if finite and not math.isfinite(x):
        raise ValueError(f"{path} must be finite; got {x!r}")
    if minimum is not None and not x >= minimum:
        raise ValueError(f"{path} must be >= {minimum:g}; got {x!r}")
    if maximum is not None and not x <= maximum:
        raise ValueError(f"{path} must be <= {maximum:g}; got {x!r}")
    return x


def _real(v: Any, path: str) -> float:
    """A float field that a strict JSON writer may have stored as null (non-finite): null → NaN."""
    return math.nan if v is None else float(_num(v, path, finite=False))


def _int(v: Any, path: str, minimum: int | None = None) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        if isinstance(v, float) and v.is_integer() and abs(v) < 2**53:
            v = int(v)
        else:
            raise ValueError(f"{path} must be an integer; got {_short(v)}")
    if minimum is not None and v < minimum:
        raise ValueError(f"{path} must be >= {minimum}; got {v}")
    return int(v)


def _num_list(d: dict[str, Any], key: str, path: str, minimum: float | None = None) -> tuple[float, ...]:
    v = d.get(key)
    if not isinstance(v, (list, tuple)):
        raise ValueError(f"{path}.{key} must be a list of numbers; got {_kind(v)}")
    return tuple(_num(x, f"{path}.{key}[{i}]", minimum=minimum, maximum=MAX_STORED_NS) for i, x in enumerate(v))


def _int_list(d: dict[str, Any], key: str, path: str, minimum: int | None = None) -> tuple[int, ...]:
    v = d.get(key)
    if not isinstance(v, (list, tuple)):
        raise ValueError(f"{path}.{key} must be a list of integers; got {_kind(v)}")
    return tuple(_int(x, f"{path}.{key}[{i}]", minimum) for i, x in enumerate(v))


def _reference(d: Any, path: str) -> "SpeedReference | None":
    if d is None:
        return None
    d = _dict(d, path)
    number = d.get("number")
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise ValueError(f"{path}.number must be an integer >= 1; got {number!r}")
    return SpeedReference(_str(d, "label", path), _num_list(d, "samples_ns", path, minimum=0.0), number,
                          float(_num(d.get("overhead_ns"), f"{path}.overhead_ns")))


def _run_to_run(v: Any, path: str) -> RunToRun | None:
    if v is None:
        return None
    d = _dict(v, path)
    source = _str(d, "source", path)
    if source not in RUN_TO_RUN_SOURCES:
        raise ValueError(f"{path}.source must be one of {', '.join(RUN_TO_RUN_SOURCES)}; got {_short(source)}")
    floor_source = _opt_str(d, "floor_source", path, "")
    medians = d.get("medians_ns") or []
    if not isinstance(medians, list):
        raise ValueError(f"{path}.medians_ns must be a list of numbers; got {_kind(medians)}")
    return RunToRun(cv=float(_num(d.get("cv"), f"{path}.cv", minimum=0.0)), source=source,
                    n=_int(d.get("n"), f"{path}.n", 0),
                    factor=float(_num(d.get("factor"), f"{path}.factor", minimum=0.0, finite=False)),
                    medians_ns=tuple(_num(x, f"{path}.medians_ns[{i}]", minimum=0.0) for i, x in enumerate(medians)),
                    floor=float(_num(d.get("floor", 0.0), f"{path}.floor", minimum=0.0)), floor_source=floor_source,
                    prior_dof=_int(d.get("prior_dof", 0), f"{path}.prior_dof", 0))


def _imported(v: Any, path: str) -> Imported | None:
    if v is None:
        return None
    d = _dict(v, path)
    source = _str(d, "source", path)
    if source not in IMPORT_SOURCES:
        raise ValueError(f"{path}.source must be one of {', '.join(IMPORT_SOURCES)}; got {_short(source)}")
    given = _opt_dict(d, "stats_seconds", path)
    unknown = sorted(set(given) - set(IMPORTED_STATS))
    if unknown:
        raise ValueError(f"{path}.stats_seconds has unknown statistic {_short(unknown[0])}; known: "
                         f"{', '.join(IMPORTED_STATS)}")
    return Imported(source=source, recomputed=_opt_bool(d, "recomputed", path, False),
                    rounds=_int(d.get("rounds"), f"{path}.rounds", 0),
                    iterations=_int(d.get("iterations"), f"{path}.iterations", 1),
                    stats_seconds={k: float(_num(x, f"{path}.stats_seconds.{k}", minimum=0.0))
                                   for k, x in given.items()},
                    format_version=_opt_str(d, "format_version", path, ""))


def _compiled(v: Any, path: str) -> Compiled | None:
    if v is None:
        return None
    d = _dict(v, path)
    events = d.get("events")
    if not isinstance(events, list):
        raise ValueError(f"{path}.events must be a list of compiles; got {_kind(events)}")
    out = []
    for i, e in enumerate(events):
        ep = f"{path}.events[{i}]"
        e = _dict(e, ep)
        phase = _opt_str(e, "phase", ep, "")
        if phase not in COMPILE_PHASES:
            raise ValueError(f"{ep}.phase must be one of {', '.join(repr(p) for p in COMPILE_PHASES)}; got {_short(phase)}")
        call = e.get("call")
        out.append(CompileEvent(seconds=float(_num(e.get("seconds"), f"{ep}.seconds", minimum=0.0)),
                                name=_opt_str(e, "name", ep, ""), where=_opt_str(e, "where", ep, ""),
                                reason=_opt_str(e, "reason", ep, ""), breaks=_int(e.get("breaks", 0), f"{ep}.breaks", 0),
                                hits=_int(e.get("hits", 0), f"{ep}.hits", 0),
                                misses=_int(e.get("misses", 0), f"{ep}.misses", 0),
                                runtime=_opt_bool(e, "runtime", ep, False), failed=_opt_str(e, "failed", ep, ""),
                                phase=phase, call=None if call is None else _int(call, f"{ep}.call", 0),
                                break_reason=_opt_str(e, "break_reason", ep, "")))
    per = d.get("per_process") or []
    if not isinstance(per, list) or not all(isinstance(x, list) and len(x) == 2 and isinstance(x[1], str)
                                            and x[1] in COMPILE_CACHES for x in per):
        raise ValueError(f"{path}.per_process must be a list of [seconds, cache] pairs (cache one of "
                         f"{', '.join(COMPILE_CACHES)}); got {_short(per)}")
    return Compiled(calls_s=float(_num(d.get("calls_s"), f"{path}.calls_s", minimum=0.0)), events=tuple(out),
                    resampled=_int(d.get("resampled", 0), f"{path}.resampled", 0),
                    per_process=tuple((float(_num(x[0], f"{path}.per_process[{i}][0]", minimum=0.0)), x[1])
                                      for i, x in enumerate(per)))


def _repeats(v: Any, n: int, path: str) -> tuple[int, ...] | None:
    if v is None:
        return None
    if not isinstance(v, list):
        raise ValueError(f"{path} must be a list of sample counts; got {_kind(v)}")
    counts = tuple(_int(x, f"{path}[{i}]", 0) for i, x in enumerate(v))
    if sum(counts) != n:
        raise ValueError(f"{path} counts {sum(counts)} samples in all for {n} samples; they must add up")
    return counts


def _warmup(v: Any, path: str) -> Warmup | None:
    if v is None:
        return None
    d = _dict(v, path)
    times = d.get("times_ns")
    if not isinstance(times, (list, tuple)):
        raise ValueError(f"{path}.times_ns must be a list of numbers; got {_kind(times)}")
    cold = _num(d.get("cold_ns"), f"{path}.cold_ns", none=True, minimum=0.0, maximum=MAX_STORED_NS)
    return Warmup(cold_ns=cold, calls=_int(d.get("calls"), f"{path}.calls", 0),
                  times_ns=tuple(_num(x, f"{path}.times_ns[{i}]", minimum=0.0, maximum=MAX_STORED_NS)
                                 for i, x in enumerate(times)),
                  steady=_opt_bool(d, "steady", path, True), seconds=_real(d.get("seconds"), f"{path}.seconds"),
                  rule=_opt_str(d, "rule", path, ""))


def _calibration(v: Any, path: str) -> Calibration | None:
    if v is None:
        return None
    d = _dict(v, path)
    return Calibration(number=_int(d.get("number"), f"{path}.number", 1),
                       overhead_ns=_real(d.get("overhead_ns"), f"{path}.overhead_ns"),
                       resolution_ns=_real(d.get("resolution_ns"), f"{path}.resolution_ns"),
                       per_call_estimate_ns=_real(d.get("per_call_estimate_ns"), f"{path}.per_call_estimate_ns"),
                       overhead_share=_real(d.get("overhead_share"), f"{path}.overhead_share"),
                       reason=_opt_str(d, "reason", path, ""))


def _stop(v: Any, path: str) -> Stop:
    d = _dict(v, path)
    target_met = d.get("target_met")
    if not isinstance(target_met, bool):
        raise ValueError(f"{path}.target_met must be true or false; got {_short(target_met)}")
    return Stop(reason=_str(d, "reason", path), target_met=target_met,
                precision=_real(d.get("precision"), f"{path}.precision"),
                seconds=_real(d.get("seconds"), f"{path}.seconds"))


# ---- the findings of a measurement and of a count (the catalogue: measurefirst.results.findings) ------
def assess(m: Measurement, *, audit: bool = False) -> tuple[Finding, ...]:
    """Every finding about a measurement (what its :attr:`~Measurement.findings` are): every finding about ``m``, most important first, from its samples and options alone.
    ``audit``: as doctor reads it (a slow first call is a warning about the user's own timing)."""
    out: list[Finding] = []
    s = m.summary
    precision = m.stop.precision
    fixed_trials = m.options.get("trials") is not None
    if not m.complete:
        out.append(found("incomplete", m.n_samples))
    if s is None:
        return tuple(out)
    rel = m.precision_half_width_rel  # the interval the stopping rule judged: this run's precision
    if m.stop.reason == "noise":
        out.append(found("noise_floor", rel, threshold=precision, seconds=m.stop.seconds))
    if not fixed_trials and m.stop.reason in ("budget", "max_samples") and not m.stop.target_met \
            and not rel <= precision:
        out.append(found("precision_not_met", None if math.isinf(rel) else rel, threshold=precision))
    min_samples = m.options.get("min_samples")
    if not fixed_trials and isinstance(min_samples, int) and m.n_used < min_samples:
        out.append(found("few_samples", m.n_used, threshold=min_samples))
    used = m.per_call_ns[m.used_mask]
    out += sample_checks(used, s)
    if m.preempted is not None and m.n_samples:
        frac = m.n_preempted / m.n_samples
        if frac > PREEMPTED_FRACTION:
            out.append(found("preempted", frac, kept_all=m.n_used == m.n_samples))
    budget = m.options.get("budget")
    if m.stop.reason == "budget" and isinstance(budget, (int, float)) and s.median >= budget:
        # one call outlasted the whole budget: it was timed once (or a few times), and the run ended
        out.append(found("call_exceeds_budget", s.median, threshold=float(budget), samples=m.n_samples))
    cut = m.options.get("budget_cut")
    if cut in ("trials", "warmup") and isinstance(m.options.get(cut), int):
        out.append(found("fixed_count_cut", m.options.get("budget_cut_done"), threshold=m.options[cut], count=cut,
                         budget=budget))
    if m.warmup is not None and not m.warmup.steady and m.stop.reason != "budget":
        out.append(found("warmup_not_steady", m.warmup.calls))
    c = m.compiled
    compiled_cold = c is not None and any(e.phase == "cold call" for e in c.compiles)
    cold = None if m.warmup is None else cold_start(m.warmup.cold_ns, s.median, m.warmup.calls, audit=audit)
    if cold is not None and not compiled_cold:  # a first call that compiled is said by "compiled"
        out.append(cold)
    if c is not None and c.compiles:
        first = [e for e in c.compiles if e.phase != "sampling"]
        if first and len(c.per_process) >= 2:  # fresh processes: the first one's compile beside the next ones'
            (s0, c0), rest = c.per_process[0], c.per_process[1:]
            out.append(found("compiled", s0, graphs=sum(1 for e in first if not e.failed) // len(c.per_process),
                             breaks=sum(e.breaks for e in first), cache=c0, calls_s=c.calls_s,
                             processes=len(c.per_process), next_s=float(np.median([x for x, _ in rest])),
                             next_cache=rest[0][1], median_ns=s.median * 1e9))
        elif first:
            out.append(found("compiled", c.first_s, graphs=sum(1 for e in first if not e.failed),
                             breaks=sum(e.breaks for e in first), cache=c.cache, calls_s=c.calls_s,
                             cold_ns=None if m.warmup is None else m.warmup.cold_ns, median_ns=s.median * 1e9))
        again = c.recompiles
        if again:
            out.append(found("recompiled", len(again), reason=again[0].reason or "", where=again[0].where,
                             seconds=sum(e.seconds for e in again), resampled=c.resampled))
    if m.calibration is not None and m.numbers:
        sample_ns = float(np.median(np.asarray(m.samples_ns, dtype=float)))
        cal = m.calibration
        limit = OVERHEAD_WARN_SHARE * precision
        if sample_ns > 0 and cal.resolution_ns / sample_ns > limit:
            out.append(found("near_resolution", cal.resolution_ns / sample_ns, threshold=limit, sample_ns=sample_ns,
                             resolution_ns=cal.resolution_ns))
        if sample_ns > 0 and cal.overhead_ns / sample_ns > limit:
            out.append(found("overhead_bias", cal.overhead_ns / sample_ns, threshold=limit,
                             overhead_ns=cal.overhead_ns))
    rr = m.run_to_run
    if rr is not None and rr.floor_source == "prior":  # no noise profile here: the interval holds a prior
        out.append(found("no_noise_profile", rr.spread, source=rr.source, floor=rr.floor,
                         inflation=m.options.get("run_to_run_inflation"),
                         status=str(m.options.get("noise_profile_ignored") or "absent")))
    choice = str(m.options.get("auto_device") or "")  # a code; files before it was one held English words
    if choice == "cpu" or choice.startswith("cpu:"):
        out.append(found("auto_device_cpu"))
    elif choice in ("none", "no tensor op seen"):
        out.append(found("no_device_work", device=m.device))
    if m.options.get("cuda_graph") and m.options.get("setup_given"):
        out.append(found("graph_setup"))
    host = m.host_median
    synced = m.synced_median
    if synced is not None and host is not None and s.median > 0:
        seen = max(host, s.median)
        per_sample_gap_ns = (synced - seen) * 1e9 * float(np.median(np.asarray(m.numbers, dtype=float)))
        if synced > UNJOINED_STREAM_RATIO * seen and per_sample_gap_ns > UNJOINED_STREAM_MIN_NS:
            out.append(found("unjoined_stream", synced / seen))
    bound = launch_bound(host, s.median)
    if bound is not None:
        out.append(bound)
    return tuple(out)


def assess_count(c: Count) -> tuple[Finding, ...]:
    """Findings about an instruction count: repeats that disagree (the work varies between calls)."""
    if c.counts and c.spread > COUNT_SPREAD_FRACTION:
        return (found("count_spread", c.spread, min=min(c.per_call_counts), max=max(c.per_call_counts)),)
    return ()
