"""Regression checks between saved results: which benchmark got slower, beyond its CI and a threshold.

Saved runs were not interleaved, so the ratio of two medians gets an approximate CI: in log space the
half-widths of the two runs' *precision* intervals (their own samples) and the *run-to-run* half-widths
of both runs (how far a run's median lands from the next one's: measured by the runs' repetitions or
worker processes, by the saved history of the benchmark, or given) add in quadrature. Each part is
counted once: a measurement's headline interval already holds its run-to-run spread, so the precision
interval is what enters here. Where nothing measured a run's spread (an old file, ``repeats=1``), a
conservative figure is assumed and the check says so (:data:`RUN_TO_RUN_CV`, source ``"assumed"``).

A gate must never fail unchanged code: a run that was *disturbed* (most samples preempted, two speeds,
stopped at the noise floor, precision far from met, or a run-to-run spread beyond the threshold; see
:func:`disturbances`) cannot judge a change, so the change is ``undecided`` with the reason, never a
regression. Counts (``benchmark(..., count=...)``) compare the same way, their interval being the range
of their repeats, with a tight default threshold (:data:`COUNT_THRESHOLD`): counts do not drift with the
machine's load.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence, TypeVar

from . import defaults, stats
from .errors import check_kind
from .comparison import Comparison, Verdict
from .kinds import MAX_PREEMPTED_FRACTION_TO_DISCARD, Count, Measurement
from .regression import (CHANGE_SPREAD_SOURCES as CHANGE_SPREAD_SOURCES, FLAGS as FLAGS,
                                  SCHEMA_VERSION as SCHEMA_VERSION, Change as Change, Disturbance as Disturbance,
                                  Regression as Regression, look_level)


#: Default threshold of a regression check on counts: more work per call than this fraction is a
#: regression (an unchanged program counts the same to well within 0.1% from run to run).
COUNT_THRESHOLD = 0.005
#: Default threshold on times: the CI alone decides.
TIME_THRESHOLD = 0.0

R = TypeVar("R", Measurement, Count)

#: A step in a history: consecutive runs whose medians differ by more than this fraction and
#: whose ratio CI excludes 1.
STEP_FRACTION = 0.02
#: Two saved runs sample the machine's state as well as the code: clocks, other load, memory
#: placement and heat change between runs, and a run's own interval cannot see that. Independent runs
#: of one benchmark on this project's shared 2-core host had a run-to-run CV of 3.7% (256x256 matmul)
#: to 7.5% (1-element add) (docs/benchmarks.md); quiet GPU servers vary by about 1%. Unless a history
#: of the benchmark measures it (:func:`run_to_run_cv`), a time ratio across runs assumes this relative
#: standard deviation per run on top of both runs' intervals (see :func:`change`).
RUN_TO_RUN_CV = defaults.RUN_TO_RUN_CV
#: Fewest saved runs of one benchmark from which :func:`run_to_run_cv` estimates the spread.
RUN_TO_RUN_MIN_RUNS = 8

# ---- a disturbed run cannot judge a change (see :func:`disturbances`) -------------------------------
#: More than this fraction of a run's samples preempted by the operating system: other processes shared
#: the cores for most of the run, and the samples left cannot be trusted (the measurement kept them all,
#: :data:`~measurefirst.results.kinds.MAX_PREEMPTED_FRACTION_TO_DISCARD`).
DISTURBED_PREEMPTED_FRACTION = MAX_PREEMPTED_FRACTION_TO_DISCARD
#: A run whose precision half-width exceeds this many times its own target (and the gate's threshold)
#: was far from pinning its median.
DISTURBED_PRECISION_FACTOR = 5.0
#: Without a threshold, a run-to-run spread (relative standard deviation) beyond this fraction, or two
#: speeds further apart than it, disturb a run; with one, the threshold is the limit.
DISTURBED_SPREAD = 0.10
#: Fewest used samples for the two-speed check (:func:`measurefirst.results.stats.two_modes` needs 20).
DISTURBED_MODES_MIN_SAMPLES = 20
#: The codes of what disturbs a run (:attr:`Disturbance.code`; the words, with the fix, are in
#: :mod:`measurefirst.render.words` under ``undecided_<code>``).
DISTURBED_CODES = ("preempted", "two_speeds", "noise_floor", "imprecise", "spread",
                   # code against code (measurefirst.tools.against): the pair's interval, or its worker pairs
                   "interleaved", "processes")


def disturbances(m: Measurement, side: str = "new", threshold: float = 0.0, *,
                 check_spread: bool = True) -> tuple[Disturbance, ...]:
    """What makes the run ``m`` unfit to judge a change of ``threshold`` (a fraction; 0: none), most
    telling first (a pure function of the measurement):

    * ``preempted``: more than :data:`DISTURBED_PREEMPTED_FRACTION` of its samples were preempted;
    * ``two_speeds``: its used per-call times fall in two speeds (:func:`measurefirst.results.stats.two_modes`)
      further apart than the threshold (:data:`DISTURBED_SPREAD` without one);
    * ``noise_floor``: sampling stopped at the machine's noise floor (stop reason ``"noise"``);
    * ``imprecise``: its precision half-width exceeds both :data:`DISTURBED_PRECISION_FACTOR` times its
      target and the threshold (a merely imprecise run widens the interval, which the check already holds:
      only one far from its target is disturbed);
    * ``spread``: its measured run-to-run spread exceeds the threshold (:data:`DISTURBED_SPREAD` without
      one); not checked (``check_spread=False``) when the caller gave the spread to use instead.
    """
    out: list[Disturbance] = []
    if m.summary is None:
        return ()
    if m.preempted is not None and m.n_samples:
        frac = m.n_preempted / m.n_samples
        if frac > DISTURBED_PREEMPTED_FRACTION:
            out.append(Disturbance(side, "preempted", frac, DISTURBED_PREEMPTED_FRACTION))
    limit = threshold if threshold > 0 else DISTURBED_SPREAD
    used = m.per_call_ns[m.used_mask]
    modes = stats.two_modes(used) if used.size >= DISTURBED_MODES_MIN_SAMPLES else None
    if modes is not None and modes.fast > 0 and modes.slow / modes.fast - 1 > limit:
        out.append(Disturbance(side, "two_speeds", modes.slow / modes.fast - 1, limit))
    if m.stop.reason == "noise":
        out.append(Disturbance(side, "noise_floor", m.precision_half_width_rel, m.stop.precision))
    target = m.stop.precision if m.stop.precision > 0 else defaults.PRECISION
    far = max(DISTURBED_PRECISION_FACTOR * target, threshold)
    if m.stop.reason != "noise" and m.precision_half_width_rel > far:
        out.append(Disturbance(side, "imprecise", m.precision_half_width_rel, far))
    rtr = m.run_to_run
    if check_spread and rtr is not None and math.isfinite(rtr.spread) and rtr.spread > limit:
        out.append(Disturbance(side, "spread", rtr.spread, limit))
    return tuple(out)




def _log_half_width(m: Measurement) -> float:
    """The log half-width of ``m``'s *precision* interval (its own samples; the run-to-run part is added
    apart, once)."""
    ci = m.precision_ci
    if ci is None or m.median <= 0 or ci[0] <= 0:
        return math.inf
    return max(math.log(ci[1] / m.median), math.log(m.median / ci[0]))


@dataclass(frozen=True)
class StepPoint:
    """What a change between two runs needs of each run, and nothing more, so that a history can be
    read from the store's columns without a sample: its ``value`` (a time's median in seconds, or a
    count's events per call), its own precision as a log half-width, the count's ``event`` (``""`` for
    a time), and a time's own measured run-to-run spread (relative standard deviation, relative 95%
    half-width, source), or None when it measured none; and what disturbs a time (:func:`disturbances`
    codes at the default threshold: a history marks no step where ``compare`` of the same two runs is
    undecided)."""

    value: float
    log_half_width: float
    event: str = ""
    own: tuple[float, float, str] | None = None
    disturbed: tuple[str, ...] = ()


def step_point(m: Measurement | Count) -> StepPoint:
    """What a change needs of ``m`` (see :class:`StepPoint`)."""
    if isinstance(m, Count):
        return StepPoint(m.per_call, _count_log_half_width(m), m.event)
    own = m.run_to_run
    return StepPoint(m.median, _log_half_width(m), "",
                     (own.spread, own.half_width, own.source) if own is not None and math.isfinite(own.half_width)
                     else None, tuple(d.code for d in disturbances(m, threshold=TIME_THRESHOLD)))


def side_spread(p: StepPoint, *, floor: tuple[float, str] | None = None,
                given: float | None = None) -> tuple[float, float, str]:
    """One side's run-to-run part of a change: (relative standard deviation, relative 95% half-width,
    source). A ``given`` figure wins; else the larger of the run's own measured spread (``p.own``: the
    measurement's :attr:`~measurefirst.results.kinds.Measurement.run_to_run`) and ``floor`` (a spread
    measured from the saved history, with its source); else :data:`RUN_TO_RUN_CV`, "assumed"."""
    if given is not None:
        return given, stats.Z95 * given, "given"
    found: list[tuple[float, float, str]] = []
    if p.own is not None:
        found.append(p.own)
    if floor is not None:
        found.append((floor[0], stats.Z95 * floor[0], floor[1]))
    if not found:
        return RUN_TO_RUN_CV, stats.Z95 * RUN_TO_RUN_CV, "assumed"
    return max(found, key=lambda f: f[1])


#: A threshold or a spread is a fraction from 0 to this: above it, ``5`` would silently mean 500% (the
#: command line refuses a bare ``5`` as ambiguous and asks for ``5%``; the API and pytest follow one rule).
MAX_FRACTION = 1.0


def check_fraction(name: str, value: Any, example: str) -> None:
    """``value`` is a finite fraction from 0 to :data:`MAX_FRACTION`; else ``ValueError`` naming the fix."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite fraction >= 0 such as {example}; got {value!r}")
    if value > MAX_FRACTION:
        raise ValueError(f"{name} is a fraction: {value!r} would mean {value:.0%}; write {value / 100:g} for "
                         f"{value:g}% (such as {example})")


def _count_log_half_width(c: Count) -> float:
    if not c.counts or not c.per_call > 0:
        return math.inf
    per = c.per_call_counts
    return max(math.log(max(per) / c.per_call), math.log(c.per_call / max(min(per), 1e-300)))


def _change_counts(base: Count, new: Count, threshold: float | None, label: str | None) -> Change:
    if base.event != new.event:
        raise ValueError(f"cannot compare counts of {base.event} with counts of {new.event}")
    for side, c in (("base", base), ("new", new)):
        if not (c.per_call > 0 and math.isfinite(c.per_call)):
            raise ValueError(f"the {side} count {c.label!r} has no counts; count it again before comparing")
    threshold = COUNT_THRESHOLD if threshold is None else threshold
    check_fraction("threshold", threshold, "0.005 (0.5%)")
    ratio, lo, hi = _interval(step_point(base), step_point(new), ())
    differ = {"counters": (base.backend, new.backend),
              **{key.split("_")[0]: (base.env.get(key), new.env.get(key))
                 for key in ("hostname", "python_version", "torch_version")}}
    return Change(label or new.label, base.per_call, new.per_call, ratio, lo, hi,
                  regression=lo > 1.0 and ratio > 1.0 + threshold,
                  improvement=hi < 1.0 and ratio < 1.0 / (1.0 + threshold), unit=new.event, threshold=threshold,
                  **_flags(differ, base.complete and new.complete))


def run_to_run_cv(medians: Sequence[float]) -> float | None:
    """The relative standard deviation of one run's median from run to run, measured from the medians of
    saved runs of one benchmark, oldest first (None with fewer than :data:`RUN_TO_RUN_MIN_RUNS` usable).
    Robust to a step change and to slow drift: the scaled median absolute difference of consecutive
    runs' log medians, over sqrt(2)."""
    logs = [math.log(m) for m in medians if isinstance(m, (int, float)) and math.isfinite(m) and m > 0]
    if len(logs) < RUN_TO_RUN_MIN_RUNS:
        return None
    mad = stats.median([abs(b - a) for a, b in zip(logs, logs[1:])])
    return math.expm1(stats.MAD_TO_SIGMA * mad / math.sqrt(2))


def change(base: Measurement | Count, new: Measurement | Count, *, threshold: float | None = None,
           label: str | None = None, run_to_run: float | None = None, run_to_run_source: str = "",
           level: float = 0.95) -> Change:
    """Compare two saved measurements (or two counts); a regression is slower (more work) beyond the
    CI *and* the threshold (default: 0 for times, :data:`COUNT_THRESHOLD` for counts). A side
    without samples, or a time against a count, cannot be compared: ``ValueError`` says why.

    Two runs of a time differ by more than their samples say, so the interval of a time ratio also holds
    each run's run-to-run spread (:func:`side_spread`): its own measured one (repetitions, processes),
    ``run_to_run`` with ``run_to_run_source="history"`` as a floor (:func:`run_to_run_cv` measures it from
    saved runs), any other ``run_to_run`` instead ("given"), else :data:`RUN_TO_RUN_CV` ("assumed", and
    the change says so). A disturbed side (:func:`disturbances`) makes the change ``undecided``: neither
    a regression nor an improvement. ``level``: the interval's (a gate's run of several comparisons shares one
    error: :func:`~measurefirst.results.regression.look_level`); each part's 95% half-width is scaled by the
    normal quantiles' ratio."""
    for side, m in (("base", base), ("new", new)):
        check_kind(side, m, (Measurement, Count), "a Measurement or a Count (as benchmark() or load() return)")
    check_kind("label", label, str, "text such as 'matmul'", optional=True)
    if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0.5 <= level < 1:
        raise ValueError(f"level must be an interval's confidence from 0.5 to below 1, such as 0.95; got {level!r}")
    if isinstance(base, Count) or isinstance(new, Count):
        if not (isinstance(base, Count) and isinstance(new, Count)):
            raise ValueError(f"cannot compare a time with a count ({base.label!r} vs {new.label!r}): compare "
                             "counts with counts (bench --count) and times with times")
        return _change_counts(base, new, threshold, label)
    threshold = TIME_THRESHOLD if threshold is None else threshold
    check_fraction("threshold", threshold, "0.05 (5%)")
    for side, m in (("base", base), ("new", new)):
        if not (m.median > 0 and math.isfinite(m.median)):
            raise ValueError(f"the {side} result {m.label!r} has no usable samples (interrupted or failed run); "
                             f"re-run it before comparing")
    if run_to_run is not None and run_to_run_source == "history":  # measured, not typed: any size is real
        if not (run_to_run >= 0 and math.isfinite(run_to_run)):
            raise ValueError(f"run_to_run measured from the history must be a finite fraction >= 0; got {run_to_run!r}")
    elif run_to_run is not None:
        check_fraction("run_to_run", run_to_run, "0.02 (2%)")
    # a figure measured from the saved history is a floor under each run's own; any other given one rules
    floor = None if run_to_run is None or run_to_run_source != "history" else (float(run_to_run), "history")
    given = None if run_to_run is None or floor is not None else float(run_to_run)
    points = step_point(base), step_point(new)
    sides = [side_spread(p, floor=floor, given=given) for p in points]
    ratio, lo, hi = _interval(*points, sides, level)
    disturbed = (disturbances(base, "base", threshold, check_spread=given is None)
                 + disturbances(new, "new", threshold, check_spread=given is None))
    same_device = (base.env.get("device_name") == new.env.get("device_name")
                   and base.device.split(":")[0] == new.device.split(":")[0])
    differ = {"devices": (base.env.get("device_name") or base.device, new.env.get("device_name") or new.device)
              if not same_device else (None, None), "hostname": (base.env.get("hostname"), new.env.get("hostname"))}
    cv = max(cv for cv, _, _ in sides)
    sources = tuple(source for _, _, source in sides)
    source = "assumed" if "assumed" in sources else max(sides, key=lambda x: x[1])[2]
    return Change(label or new.label, base.median, new.median, ratio, lo, hi,
                  regression=not disturbed and lo > 1.0 and ratio > 1.0 + threshold,
                  improvement=not disturbed and hi < 1.0 and ratio < 1.0 / (1.0 + threshold), threshold=threshold,
                  run_to_run=float(cv), run_to_run_source=source if cv > 0 else "",
                  run_to_run_spreads=tuple(float(c) for c, _, _ in sides), run_to_run_sources=sources,
                  disturbed=disturbed, ci_level=level, **_flags(differ, base.complete and new.complete))


def _flags(differ: dict[str, tuple[Any, Any]], complete: bool) -> dict[str, Any]:
    """A change's ``flags`` and ``flag_values``: each pair of values in ``differ`` that differ (the host name
    is the ``machines`` flag), and ``incomplete`` when a side is."""
    values = {("machines" if key == "hostname" else key): (str(a), str(b)) for key, (a, b) in differ.items() if a != b}
    return {"flags": (*values, *(() if complete else ("incomplete",))), "flag_values": values}


def match(base: Sequence[R], new: Sequence[R]) -> tuple[list[tuple[R, R]], list[str]]:
    """Pair measurements (or counts) by label; also return the labels found on one side only. A label
    that appears twice on one side cannot be paired: ``ValueError`` names it."""
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


def _interval(base: StepPoint, new: StepPoint, sides: Sequence[tuple[float, float, str]],
              level: float = 0.95) -> tuple[float, float, float]:
    """The ratio new/base and its interval at ``level``: each run's own precision and each side's run-to-run
    half-width (``sides``: none for counts), 95% ones, added in quadrature on the log scale, then scaled from
    95% to ``level`` as a normal interval is."""
    ratio = new.value / base.value
    hw = math.hypot(base.log_half_width, new.log_half_width, *(math.log1p(h) for _, h, _ in sides))
    if level != 0.95:
        hw *= stats.normal_quantile((1.0 + level) / 2.0) / stats.normal_quantile(0.975)
    lo, hi = (ratio * math.exp(-hw), ratio * math.exp(hw)) if math.isfinite(hw) else (0.0, math.inf)
    return ratio, lo, hi


def steps(history: Sequence[Measurement | Count]) -> list[int]:
    """Indices i where run i differs from run i-1 beyond both CIs and :data:`STEP_FRACTION` (times)
    or :data:`COUNT_THRESHOLD` (counts), neither run disturbed (:attr:`StepPoint.disturbed`)."""
    return point_steps([step_point(m) for m in history])


def point_steps(points: Sequence[StepPoint]) -> list[int]:
    """:func:`steps` from what each run's change needs (:class:`StepPoint`): the same indices, for a
    history read from the store's columns. The spread floor is measured from the times' values."""
    out = []
    cv = run_to_run_cv([p.value for p in points if not p.event])
    floor = None if cv is None else (cv, "history")
    for i in range(1, len(points)):
        base, new = points[i - 1], points[i]
        if bool(base.event) != bool(new.event) or base.event != new.event:
            raise ValueError(f"cannot compare {base.event or 'a time'} with {new.event or 'a time'}: a history "
                             f"holds runs of one kind")
        if not (base.value > 0 and math.isfinite(base.value) and new.value > 0 and math.isfinite(new.value)):
            raise ValueError("a run of this history has no usable samples (interrupted or failed run)")
        sides = () if new.event else [side_spread(p, floor=floor) for p in (base, new)]
        ratio, lo, hi = _interval(base, new, sides)
        step = COUNT_THRESHOLD if new.event else STEP_FRACTION
        if (lo > 1 or hi < 1) and abs(ratio - 1) > step and not (base.disturbed or new.disturbed):
            out.append(i)
    return out


def check_regression(base: Sequence[Measurement | Count], new: Sequence[Measurement | Count], *, base_name: str = "base",
          new_name: str = "new", threshold: float | None = None, gate: bool = False,
          label: str | None = None, run_to_run: float | None = None, run_to_run_source: str = "") -> Regression:
    """The regression check of ``new`` against ``base``, paired by label (``label`` renames a single
    pair), the pairs' intervals at the level of a run of that many comparisons (:func:`look_level`: they share
    one error). ``ValueError`` when no label is in both, or a pair cannot be compared."""
    pairs, unmatched = match(base, new)  # type: ignore[type-var]  # times with times, counts with counts
    if not pairs:
        raise ValueError(f"no benchmark label appears in both {base_name} and {new_name}")
    level = look_level(len(pairs))  # the pairs' comparisons share one error, so that more do not fail more often
    changes = tuple(change(b, n, threshold=threshold, label=label if len(pairs) == 1 else None, run_to_run=run_to_run,
                           run_to_run_source=run_to_run_source, level=level) for b, n in pairs)
    return Regression(base_name, new_name, changes, tuple(unmatched), gate)


def slower(comparison: "Comparison", threshold: float | None = None) -> list["Verdict"]:
    """The candidates of a live comparison that are slower than the baseline beyond the CI and
    ``threshold`` (default :data:`TIME_THRESHOLD`)."""
    limit = TIME_THRESHOLD if threshold is None else threshold
    return [v for v in comparison.verdicts if v.verdict == "slower" and v.ratio > 1 + limit]

