"""Findings as data: one catalogue of every code, with its severity, its named threshold and its unit,
and the checks that read a finished result.

A :class:`Finding` holds no words: a code, the measured value, the threshold it crossed, a severity
and a small JSON-able ``context`` (a source line, counts, a phase name...). The words (title,
message, why it matters, the fix; English and Chinese) live in :mod:`measurefirst.render.findings`.

This module imports no result module, not even for typing, so every result module can import
:class:`Finding` and the checks from here. The checks of a measurement and of a count
(:func:`measurefirst.results.kinds.assess`, :func:`~measurefirst.results.kinds.assess_count`) live
with those types: they read the stored samples only, so a result loaded from an old file gets
today's findings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._lazy import deferred
from . import stats
from .sample_masks import MAX_PREEMPTED_FRACTION_TO_DISCARD, STARVED_WAIT_SHARE

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from .measurement_parts import Warmup
else:  # imported on first use (by the checks): the catalogue alone needs no numpy
    np = deferred("numpy", globals(), "np")

#: Fewest points where the work term ``c·n^k`` is at least the overhead ``t0`` for the exponent to be
#: read from the data (two points always lie on some power law).
MIN_SLOPE_POINTS = 3
#: A larger size at least this fraction faster than a smaller one: the sizes' times are not monotone
#: (a disturbed run, or a change of algorithm between sizes); the model ``t0 + c·n^k`` cannot bend down.
NONMONOTONE_DROP = 0.20

SEVERITIES = ("info", "warning", "error")

# ---- thresholds: a measurement -------------------------------------------------------------------
#: IQR above this fraction of the median: the samples are unstable.
UNSTABLE_IQR_FRACTION = 0.10
#: A cold first call at least this many times slower than the steady median is worth saying (a note
#: on a benchmark, which excluded it; a warning in a doctor's audit of the user's own timing).
COLD_START_RATIO = 10.0
#: ...and, in a doctor's audit, at least this many times: a note.
COLD_START_NOTE_RATIO = 2.0
#: With the warm-up a fixed count (``warmup=``, pedantic's ``warmup_rounds``), a first repetition at least this many times
#: the others' median, and slower than every one of them, was likely taken cold (pedantic's default is no warm-up).
COLD_REPETITION_RATIO = 1.10
#: Outliers (modified z-score > 3.5) above this fraction of the samples. Timing distributions
#: have long right tails even on a quiet machine, so only a large fraction is worth a warning.
OUTLIER_FRACTION = 0.20
#: Preempted samples above this fraction: the machine is busy.
PREEMPTED_FRACTION = 0.10
#: Calibration keeps timer overhead and resolution under this share of the precision target.
OVERHEAD_SHARE = 0.1
#: ...and a warning is given once they exceed twice that share (a sample is shorter than planned).
OVERHEAD_WARN_SHARE = 2 * OVERHEAD_SHARE
#: The median of the second half of the samples differs from the first half's by more than this:
#: the machine's speed changed during the run (another tenant, frequency scaling, thermal state).
DRIFT_FRACTION = 0.05
#: Fewest used samples for the drift check.
DRIFT_MIN_SAMPLES = 20
#: Fewest used samples for the speed-modes check.
MODES_MIN_SAMPLES = 40
#: Host (launch) time at least this fraction of the device time: the GPU waits on the host.
LAUNCH_BOUND_RATIO = 0.8
#: Host time until the whole device is idle above this multiple of both the event time and the
#: launch time (and by more than :data:`UNJOINED_STREAM_MIN_NS` per sample): work ran on a stream
#: the timing events do not see.
UNJOINED_STREAM_RATIO = 1.5
UNJOINED_STREAM_MIN_NS = 20_000.0

# ---- thresholds: doctor --------------------------------------------------------------------------
#: A timer without synchronization reading under 1/this of the truth: a warning.
UNSYNCED_WARN_RATIO = 2.0
#: Many tiny ops: at least this many working ops per call...
TINY_OPS_MIN_COUNT = 20
#: ...averaging under this many seconds each.
TINY_OP_SECONDS = 20e-6
#: Other processes using at least this many cores while we measured.
OTHER_LOAD_CORES = 0.5
#: selfcheck: the checking thread got at least this share of a core (its CPU time over the wall time) while
#: a row or a trap ran, or the machine was too busy for a wrong reading there to count as a fault.
MIN_CPU_SHARE = 0.9

# ---- thresholds: a training step -----------------------------------------------------------------
#: Data time above this fraction of the step: the input pipeline starves the compute.
STARVATION_FRACTION = 0.10
#: Model FLOP utilisation above this is impossible: an input is wrong.
MFU_MAX = 1.0
#: The phase table's step ratio may sit this far outside the interleaved verdict's CI (as a factor)
#: before the two are called contradictory.
TABLE_VERDICT_SLACK = 1.1

# ---- thresholds: ceilings and fits (sweeps, collectives) -------------------------------------------
#: A rate above this fraction of its roof (a measured peak FLOP/s or bandwidth) is impossible: the roof
#: is wrong (measured under load, with other threads or another dtype), not the point.
ROOF_MAX = 1.0

# ---- thresholds: an instruction count ------------------------------------------------------------
#: Repeated counts of the same calls may differ by this fraction (half their range over the median)
#: before the work is said to vary between calls.
COUNT_SPREAD_FRACTION = 0.005


@dataclass(frozen=True)
class Code:
    """One catalogue entry: the default severity, the unit of ``value`` and ``threshold``, and the
    threshold: a named constant (``threshold_name`` names it) or, where the name is an option such as
    ``options.precision``, a value each finding carries."""

    severity: str
    unit: str  # "fraction", "ratio", "samples", "calls", "count", "seconds", "cores", "threads", "" (no value)
    threshold: float | None = None
    threshold_name: str = ""
    source: str = "measurement"  # what produces it: measurement, doctor, step, selfcheck, count, sweep, fit


_D, _S = "doctor", "step"

#: Every finding code, once.
CATALOGUE: dict[str, Code] = {
    # a measurement (assess)
    "incomplete": Code("warning", "samples"),
    "noise_floor": Code("warning", "fraction", None, "options.precision"),
    "precision_not_met": Code("warning", "fraction", None, "options.precision"),
    "few_samples": Code("warning", "samples", None, "options.min_samples"),
    "unstable": Code("warning", "fraction", UNSTABLE_IQR_FRACTION, "UNSTABLE_IQR_FRACTION"),
    "drift": Code("warning", "fraction", DRIFT_FRACTION, "DRIFT_FRACTION"),
    "speed_modes": Code("warning", "ratio", stats.MODE_MIN_RATIO, "stats.MODE_MIN_RATIO"),
    "outliers": Code("warning", "fraction", OUTLIER_FRACTION, "OUTLIER_FRACTION"),
    "preempted": Code("warning", "fraction", PREEMPTED_FRACTION, "PREEMPTED_FRACTION"),
    "starved": Code("warning", "fraction", MAX_PREEMPTED_FRACTION_TO_DISCARD, "MAX_PREEMPTED_FRACTION_TO_DISCARD"),
    "oversubscribed": Code("warning", "fraction", STARVED_WAIT_SHARE, "STARVED_WAIT_SHARE"),
    "warmup_not_steady": Code("warning", "calls"),
    "call_exceeds_budget": Code("warning", "seconds", None, "options.budget"),
    "fixed_count_cut": Code("warning", "count", None, "options.trials, options.warmup or options.repeats"),
    "cold_start": Code("info", "ratio", COLD_START_RATIO, "COLD_START_RATIO"),
    "cold_repetition": Code("warning", "ratio", COLD_REPETITION_RATIO, "COLD_REPETITION_RATIO"),
    "compiled": Code("info", "seconds"),
    "recompiled": Code("warning", "count", 0.0, ""),
    "near_resolution": Code("warning", "fraction", None, "OVERHEAD_WARN_SHARE * options.precision"),
    "overhead_bias": Code("warning", "fraction", None, "OVERHEAD_WARN_SHARE * options.precision"),
    "no_noise_profile": Code("info", "fraction"),
    "noise_profile_disagrees": Code("info", "ratio", None, "F(n - 1, P - 1) at 95%"),
    "auto_device_cpu": Code("info", ""),
    "no_device_work": Code("warning", ""),
    "graph_setup": Code("info", ""),
    "unjoined_stream": Code("warning", "ratio", UNJOINED_STREAM_RATIO, "UNJOINED_STREAM_RATIO"),
    "launch_bound": Code("warning", "fraction", LAUNCH_BOUND_RATIO, "LAUNCH_BOUND_RATIO"),
    # doctor
    "unsynchronized_timing": Code("warning", "ratio", UNSYNCED_WARN_RATIO, "UNSYNCED_WARN_RATIO", _D),
    "implicit_syncs": Code("warning", "count", 0.0, "", _D),
    "many_tiny_ops": Code("warning", "count", float(TINY_OPS_MIN_COUNT), "TINY_OPS_MIN_COUNT", _D),
    "other_load": Code("warning", "cores", OTHER_LOAD_CORES, "OTHER_LOAD_CORES", _D),
    "cpu_frequency": Code("info", "", None, "", _D),
    "threads": Code("warning", "threads", None, "available cores", _D),
    "tf32_off": Code("info", "", None, "", _D),
    "memory": Code("info", "", None, "", _D),
    "function_failed": Code("error", "", None, "", _D),
    "graph_breaks": Code("warning", "count", 0.0, "", _D),
    # a training step
    "data_starvation": Code("warning", "fraction", STARVATION_FRACTION, "STARVATION_FRACTION", _S),
    "recompile_during_timing": Code("warning", "count", 0.0, "", _S),
    "compile_time": Code("info", "seconds", None, "", _S),
    "cudnn_benchmark_varying_shapes": Code("warning", "count", 1.0, "", _S),
    "peak_memory_phase": Code("info", "", None, "", _S),
    "mfu_above_100": Code("error", "fraction", MFU_MAX, "MFU_MAX", _S),
    "batch_mismatch": Code("warning", "samples", None, "micro_batch", _S),
    "table_contradicts_verdict": Code("warning", "ratio", TABLE_VERDICT_SLACK, "TABLE_VERDICT_SLACK", _S),
    "rank_straggler": Code("warning", "fraction", None, "distributed.STRAGGLER_THRESHOLD", _S),
    # selfcheck
    "selfcheck_failed": Code("error", "fraction", None, "the row's tolerance", "selfcheck"),
    "selfcheck_trap_missed": Code("error", "", None, "the trap's threshold", "selfcheck"),
    "selfcheck_noisy": Code("warning", "fraction", None, "the row's tolerance", "selfcheck"),
    "selfcheck_busy": Code("warning", "fraction", MIN_CPU_SHARE, "MIN_CPU_SHARE", "selfcheck"),
    # an instruction count
    "count_spread": Code("warning", "fraction", COUNT_SPREAD_FRACTION, "COUNT_SPREAD_FRACTION", "count"),
    # ceilings and fits: a sweep, collectives
    "roof_exceeded": Code("warning", "fraction", ROOF_MAX, "ROOF_MAX", "sweep"),
    "poor_fit": Code("warning", "fraction", None, "fit.POOR_FIT_RMS or fit.POOR_FIT_RESIDUAL", "fit"),
    "fit_slope_points": Code("warning", "count", float(MIN_SLOPE_POINTS), "fit.MIN_SLOPE_POINTS", "fit"),
    "nonmonotone_sizes": Code("warning", "fraction", NONMONOTONE_DROP, "fit.NONMONOTONE_DROP", "fit"),
    # many ranks: a group comparison, a regression check of collectives or of a rank group
    "ranks_disagree": Code("warning", "count", None, "", "distributed"),
    "busbw_drop": Code("error", "fraction", None, "the check's threshold", "distributed"),
    "new_straggler": Code("error", "ratio", None, "1 + the group's straggler threshold", "distributed"),
    "group_throughput": Code("info", "fraction", None, "", "distributed"),
}


@dataclass(frozen=True)
class Finding:
    """A finding as data: a catalogue ``code``, the measured ``value``, the ``threshold`` it crossed,
    the ``severity`` and a small JSON-able ``context``. No words: see
    :func:`measurefirst.render.findings.finding_text`."""

    code: str
    value: float | None = None
    threshold: float | None = None
    severity: str = "warning"  # "info", "warning" or "error"
    context: dict[str, Any] = field(default_factory=dict, hash=False)

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "value": self.value, "threshold": self.threshold, "severity": self.severity,
                "context": dict(self.context)}

    @classmethod
    def from_dict(cls, d: Any, path: str = "finding") -> "Finding":
        """Rebuild a finding; a missing or ill-typed field raises ValueError naming it. Files written
        before the catalogue carry ``message``, ``fix`` and ``explanation``: they are ignored for
        known codes and kept in ``context`` for an unknown one (its only words)."""
        if not isinstance(d, dict):
            raise ValueError(f"{path} must be an object; got {type(d).__name__}")
        code = d.get("code")
        if not isinstance(code, str):
            raise ValueError(f"{path}.code must be a string; got {type(code).__name__}")
        severity = d.get("severity", CATALOGUE[code].severity if code in CATALOGUE else "warning")
        if severity not in SEVERITIES:
            raise ValueError(f"{path}.severity must be one of {', '.join(SEVERITIES)}; got {severity!r}")
        context = d.get("context") or {}
        if not isinstance(context, dict):
            raise ValueError(f"{path}.context must be an object; got {type(context).__name__}")
        context = dict(context)
        if code not in CATALOGUE:
            context.update({k: d[k] for k in ("message", "fix", "explanation") if isinstance(d.get(k), str) and d[k]})
        return cls(code, _number(d.get("value"), f"{path}.value"), _number(d.get("threshold"), f"{path}.threshold"),
                   severity, context)


def _number(x: Any, path: str) -> float | None:
    if x is None:
        return None
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise ValueError(f"{path} must be a number or null; got {type(x).__name__}")
    return float(x)


def found(code: str, value: float | None = None, *, threshold: float | None = None, severity: str | None = None,
          **context: Any) -> Finding:
    """A finding of a catalogue ``code`` (KeyError for any other): the catalogue's threshold and
    severity unless given (a threshold that is an option, a severity that depends on the case)."""
    spec = CATALOGUE[code]
    return Finding(code, None if value is None else float(value),
                   spec.threshold if threshold is None else float(threshold), severity or spec.severity, context)


# ---- the checks --------------------------------------------------------------------------------

def sample_checks(used_ns: np.ndarray, s: stats.Summary) -> list[Finding]:
    """What the spread of per-call times says (``used_ns`` in sampling order, ``s`` their summary):
    unstable samples, drift, two speeds, many outliers. Used for a benchmark's samples and a training
    step's timed steps alike."""
    out: list[Finding] = []
    if s.median > 0 and s.iqr / s.median > UNSTABLE_IQR_FRACTION:
        out.append(found("unstable", s.iqr / s.median))
    if used_ns.size >= DRIFT_MIN_SAMPLES:
        half = used_ns.size // 2
        first, second = float(np.median(used_ns[:half])), float(np.median(used_ns[half:]))
        if first > 0 and abs(second / first - 1) > DRIFT_FRACTION:
            out.append(found("drift", second / first - 1, first_ns=first, second_ns=second))
    modes = stats.two_modes(used_ns) if used_ns.size >= MODES_MIN_SAMPLES else None
    if modes is not None:
        out.append(found("speed_modes", modes.slow / modes.fast, fast_ns=modes.fast, slow_ns=modes.slow,
                         fast_fraction=modes.fast_fraction, slow_fraction=modes.slow_fraction,
                         stretches=bool(stats.autocorrelation_time(used_ns) > stats.CORRELATED_TAU)))
    if s.n and s.outliers / s.n > OUTLIER_FRACTION:
        out.append(found("outliers", s.outliers / s.n, outliers=s.outliers, n=s.n))
    return out


def cold_start(cold_ns: float | None, median_s: float, calls: int, *, audit: bool) -> Finding | None:
    """The cold first call against the steady state: a note from :data:`COLD_START_RATIO` on a
    benchmark (which excluded it); in an ``audit`` of the user's own timing (doctor), a warning from
    there and a note from :data:`COLD_START_NOTE_RATIO`."""
    if cold_ns is None or not median_s > 0:
        return None
    ratio = cold_ns / 1e9 / median_s
    context = {"cold_ns": cold_ns, "median_ns": median_s * 1e9, "warmup_calls": calls}
    if ratio >= COLD_START_RATIO:
        return found("cold_start", ratio, severity="warning" if audit else "info", **context)
    if audit and ratio >= COLD_START_NOTE_RATIO:
        return found("cold_start", ratio, threshold=COLD_START_NOTE_RATIO, severity="info", **context)
    return None


def cold_repetition(warmup: "Warmup | None", medians_ns: tuple[float, ...]) -> Finding | None:
    """The first of three or more repetitions (``medians_ns``, their per-call medians in order) at least
    :data:`COLD_REPETITION_RATIO` times the others' median and slower than each of them, where the warm-up was a
    fixed count (``warmup.rule`` ``"fixed"``): its samples were likely taken before the function was warm, and they
    widen the run-to-run interval (the samples stay: counts asked for are exact)."""
    if warmup is None or warmup.rule != "fixed" or len(medians_ns) < 3 or not all(v > 0 for v in medians_ns):
        return None
    warmup_calls, first, rest = warmup.calls, medians_ns[0], medians_ns[1:]
    ratio = first / stats.median(list(rest))
    if ratio < COLD_REPETITION_RATIO or first <= max(rest):
        return None
    return found("cold_repetition", ratio, warmup=warmup_calls, repeats=len(medians_ns))


def launch_bound(host_s: float | None, device_s: float) -> Finding | None:
    """Host launch time at least :data:`LAUNCH_BOUND_RATIO` of the device time: the GPU waits on the host."""
    if host_s is None or not device_s > 0 or host_s / device_s < LAUNCH_BOUND_RATIO:
        return None
    return found("launch_bound", host_s / device_s, host_ns=host_s * 1e9, device_ns=device_s * 1e9)


def fit_findings(problems: list[tuple[str, float, float]], **context: Any) -> list[Finding]:
    """The findings of a fit's :meth:`~measurefirst.results.fitting.PowerFit.problems` (``rms``/``residual``:
    ``poor_fit``; ``slope``: ``fit_slope_points``; ``drop``: ``nonmonotone_sizes``), each with its value
    and threshold and ``context`` (the series' label or op)."""
    out = []
    for reason, value, threshold in problems:
        if reason == "slope":
            out.append(found("fit_slope_points", value, threshold=threshold, reason=reason, **context))
        elif reason == "drop":
            out.append(found("nonmonotone_sizes", value, threshold=threshold, reason=reason, **context))
        else:
            out.append(found("poor_fit", value, threshold=threshold, reason=reason, **context))
    return out
