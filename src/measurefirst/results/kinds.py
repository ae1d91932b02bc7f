"""Immutable result types and their versioned JSON form.

A :class:`Measurement` keeps every raw sample with its loop count, so statistics can be
recomputed, filtered or merged later without re-running anything.

A measurement's parts, its run-to-run spread, its sample masks and its stored form read back are in
:mod:`~measurefirst.results.measurement_parts`, :mod:`~measurefirst.results.run_to_run`,
:mod:`~measurefirst.results.sample_masks` and :mod:`~measurefirst.results.measurement_json`.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from .._lazy import deferred
from . import stats
from .findings import Finding as Finding  # re-exported: measurefirst.Finding
from .findings import (COUNT_SPREAD_FRACTION, OVERHEAD_WARN_SHARE, PREEMPTED_FRACTION, UNJOINED_STREAM_MIN_NS,
                       UNJOINED_STREAM_RATIO, cold_repetition, cold_start, found, launch_bound, sample_checks)
from .base import ResultBase, shown
from .protocol import build
from .protocol import parse_json as parse_json  # re-exported: read by loading and the store
from .protocol import migrate as migrate_kind
from .measurement_json import MAX_STORED_NS as MAX_STORED_NS
from .measurement_json import SCHEMA_VERSION as SCHEMA_VERSION
from .measurement_json import _dict, _kind, _short, measurement_fields
from .measurement_json import migrate as migrate
from .measurement_parts import (CALIBRATION_REASONS as CALIBRATION_REASONS, COMPILE_CACHES as COMPILE_CACHES,
                                COMPILE_PHASES as COMPILE_PHASES, IMPORT_SOURCES as IMPORT_SOURCES,
                                IMPORTED_STATS as IMPORTED_STATS, WARMUP_RULES as WARMUP_RULES,
                                WARMUP_TIMES_KEPT as WARMUP_TIMES_KEPT, Calibration as Calibration,
                                CompileEvent as CompileEvent, Compiled as Compiled, Imported as Imported,
                                SpeedReference as SpeedReference, Stop as Stop, Warmup as Warmup,
                                kept_warmup_times as kept_warmup_times)
from .run_to_run import spread_findings
from .run_to_run import (RUN_TO_RUN_SOURCES as RUN_TO_RUN_SOURCES, RunToRun as RunToRun,
                         spread_factor as spread_factor, spread_from_medians as spread_from_medians)
from .sample_masks import (MAX_PREEMPTED_FRACTION_TO_DISCARD as MAX_PREEMPTED_FRACTION_TO_DISCARD,
                           costly_preemptions as costly_preemptions, keep_mask as keep_mask, used_mask as used_mask)

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from .reference import Normalized
else:  # imported on first use: a history read from the store's columns never needs it
    np = deferred("numpy", globals(), "np")

#: Version of a :class:`Count`'s stored form.
COUNT_SCHEMA_VERSION = 1


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
    #: the process's CPU time per call, every thread, over the samples used (the CPU's wall timer; ``None``:
    #: not read). Far below the median when the process waited for a core (see ``starved_low``)
    cpu_per_call_ns: float | None = None
    #: the most one thread (any; any but the caller) waited for a CPU, runnable, over the sampling (None: unread)
    cpu_wait_share: float | None = None
    pool_wait_share: float | None = None
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
        if self.cpu_per_call_ns is not None:
            d.update(cpu_per_call_ns=self.cpu_per_call_ns, cpu_wait_share=self.cpu_wait_share,
                     pool_wait_share=self.pool_wait_share)
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
        return cls(**measurement_fields(d, path))


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
            "findings": [f.to_dict() for f in self.findings], "complete": self.complete}

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
    """The measurements (or counts) a result holds: itself, a saved run's, a comparison's, a sweep's, a history's..."""
    if isinstance(result, (Measurement, Count)):
        return [result]
    if getattr(result, "kind", None) == "saved_run":
        return measured(result.measurement)
    return list(getattr(result, "measurements", ()))


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


# ---- the findings of a measurement and of a count (the catalogue: measurefirst.results.findings) ------
def assess(m: Measurement, *, audit: bool = False) -> tuple[Finding, ...]:
    """Every finding about ``m`` (its :attr:`~Measurement.findings`), most important first, from its samples and options
    alone; ``audit``: as doctor reads it (a slow first call is a warning about the user's own timing)."""
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
    if cut in ("trials", "warmup", "repeats") and isinstance(m.options.get(cut), int):
        out.append(found("fixed_count_cut", m.options.get("budget_cut_done"), threshold=m.options[cut], count=cut,
                         budget=budget))
    if m.warmup is not None and not m.warmup.steady and m.stop.reason != "budget":
        out.append(found("warmup_not_steady", m.warmup.calls))
    c = m.compiled
    compiled_cold = c is not None and any(e.phase == "cold call" for e in c.compiles)
    cold = None if m.warmup is None else cold_start(m.warmup.cold_ns, s.median, m.warmup.calls, audit=audit)
    if cold is not None and not compiled_cold:  # a first call that compiled is said by "compiled"
        out.append(cold)
    reps = m.run_to_run.medians_ns if m.run_to_run is not None and m.run_to_run.source == "repeats" else ()
    out.extend(f for f in (cold_repetition(m.warmup, reps),) if f is not None)
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
    out += spread_findings(m.run_to_run, m.options, m.cpu_per_call_ns, m.median * 1e9, m.env,
                           m.n_preempted / m.n_samples if m.n_samples else 0.0, m.cpu_wait_share, m.pool_wait_share)
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
