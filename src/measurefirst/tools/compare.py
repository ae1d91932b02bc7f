"""Interleaved comparison of several callables, with a verdict per candidate.

The rules (asserted exactly by the tests with a simulated clock):

* Each candidate is warmed up and calibrated as :func:`~measurefirst.benchmark` does.
* Then sampling runs in **rounds**. A round takes one **block** of each candidate: a few samples
  lasting about ``block_time`` seconds, at least three, and as many for every candidate whose
  samples last about as long (see :func:`block_sizes`). The order inside a round is balanced: ``"abba"`` runs
  rounds in pairs, an order then its reverse (A B, B A), so a linear drift hits every candidate
  alike; each pair's order is drawn (seeded), so that a load switching at a period near the
  schedule's cannot stay in step with it, busy in every block of one candidate (with a fixed
  A B B A A B ... the blocks come two by two with a period of four). ``"shuffle"`` draws a seeded
  random order per round.
* A block's value is the median per-call time of its samples (preempted samples set aside, by the
  same rule as :func:`~measurefirst.benchmark`). For every round, each candidate's **paired
  log-ratio** against the baseline's block of that round is taken; the speed-up estimate is the
  Hodges-Lehmann centre of those log-ratios. Its 95% CI is the wider of the Wilcoxon signed-rank
  interval and a batch-means interval over consecutive rounds, batches as long as four times the
  autocorrelation time of the round series (rounds that share a stretch of machine load are not
  independent). The interval also reaches the estimate of each half of the run and of its quieter
  and busier half (and, when those parts disagree, their intervals): load that follows the rounds
  widens the interval or, when the parts point opposite ways, leaves the verdict *undecided*
  (reason ``drift``), never turns it round. With fewer than three batches the verdict is *undecided*
  (reason ``too_few_rounds``) unless the difference is far outside every swing of the run: then a
  sign test over pairs of rounds decides it (reason ``large``; see :func:`large_difference`). Both map back
  with ``exp``. At least ``min_time`` (1 s) of rounds, since a verdict drawn inside one stretch of
  load can point the wrong way; a ``large`` difference is exempt (it needs six pairs of rounds).
* A candidate is **settled** once its CI excludes 1 with a half-width at most half the observed
  difference (a clear direction), or its half-width is within ``precision`` (nothing larger than
  that is there). Sampling stops when every candidate is settled (after ``min_rounds`` rounds and
  ``min_time`` seconds) or when ``budget`` is spent.
* The verdict: *faster* or *slower* when the CI excludes 1, else *no difference detected*, with the
  smallest difference the run could have detected (the CI's half-width).
"""

from __future__ import annotations

import math
import random
from typing import Any, Callable, Mapping, Protocol, Sequence

import numpy as np

from ..results import defaults, stats
from ..measure import progress
from ..measure.devices import DeviceLike, environment, resolve_device
from ..results.errors import check_seed, check_text
from ..measure.engine import (
    BenchmarkError,
    ColdCallError,
    Interrupted,
    Options,
    Sampler,
    SetupError,
    check_function,
    check_timer,
    choose_device,
    raised_words,
)
from ..results.kinds import CompileEvent, Stop
from ..results.comparison import (SCHEMA_VERSION as SCHEMA_VERSION, Comparison as Comparison, Verdict as Verdict,
                                  settled as settled)
from ..measure.timers import Timer, make_timer
from ..measure.remote import WorkerLost

#: Check the stopping rule after every round up to this many rounds, then every ~2% more rounds.
CHECK_EVERY_ROUND_UP_TO = 100
#: Fewest samples in a block (see :func:`block_sizes`).
MIN_BLOCK_SAMPLES = 3
#: Candidates whose calibrated samples last within this factor of the group's shortest share one
#: block size (see :func:`block_sizes`).
SAME_BLOCK_WITHIN = 1.5
ORDERS = defaults.ORDERS


#: The large-difference rule: the sign-test interval's bound nearest 1 must lie at least this many
#: times the widest swing of the run (see :func:`large_difference`) away from 1.
LARGE_EFFECT_SPREADS = 2.0
#: ... and at least this far from 1 (a 25% difference): a run that falls wholly inside one stretch of
#: steady load sees no swing, yet load can move a memory-bound pair's ratio by several percent
#: (issue 23 saw about 10%) in the same direction in every round.
LARGE_EFFECT_MIN_LOG = math.log(1.25)
#: Rounds on each side of a round whose block times give its load level (the round itself left out,
#: so that its own noise does not choose its stratum).
LOAD_NEIGHBOURS = 2
#: Fewest rounds in a stratum (a half of the run, or its quieter or busier half) for its own interval.
MIN_STRATUM_ROUNDS = 6


def _pair_means(log_ratios: Sequence[float]) -> np.ndarray:
    """The mean log-ratio of each pair of consecutive rounds (an order and its reverse under
    ``"abba"``), sorted; an odd last round left out."""
    a = np.asarray(log_ratios, dtype=float)
    m = int(a.size) // 2
    return np.sort(a[: 2 * m].reshape(m, 2).mean(axis=1))


def large_difference(log_ratios: Sequence[float], log_base: Sequence[float], log_cand: Sequence[float]
                     ) -> tuple[float, float] | None:
    """The sign-test interval of the median log-ratio, when the difference is far outside every
    swing of the run; else ``None``.

    The units are pairs of consecutive rounds (under ``"abba"`` an order and its reverse, the order
    drawn per pair): a load in step with the schedule biases a pair one way or the other as its
    order falls, so pairs, not rounds, are what the order randomizes. The interval is the
    distribution-free CI of the median of the pairs' mean log-ratios, ``[u_(k), u_(m+1-k)]`` with
    ``k`` from the binomial: with ``m`` pairs all on one side of 1 and ``k = 1``, chance alone would
    do that with probability ``2 * 0.5**m`` (3.1% at six pairs, twelve rounds). A sign test counts
    its units as independent; pairs that share a stretch of machine load are not, so the rule asks
    for more: the interval's bound nearest 1 must be at least
    :data:`LARGE_EFFECT_SPREADS` times the widest *swing* of the run: the spread of the pairs'
    log-ratios, and the spread (between the same ranks from either end) of the rounds' log-ratios
    and of each candidate's own log block times across rounds. The argument:
    load moves a round's log-ratio only by changing between that round's two blocks, and by at
    most how much it changes block times, which the spread of block times across the rounds shows
    (the load at any moment of the run lands in some block). A ratio beyond twice that cannot have
    been put on its side by the load, whatever the correlation between rounds and load phases; the
    sign test then only has to rule out noise that is small beside the effect. The bound must also
    be at least 25% from 1 (:data:`LARGE_EFFECT_MIN_LOG`), since a run inside one stretch of steady
    load shows no swing at all while that load may shift the ratio a little. (A load locked to
    the schedule, busy during every block of one candidate and never the other's, is invisible to
    any statistic of the rounds; a real machine's load does not keep such step.)"""
    units = _pair_means(log_ratios)
    ranks = stats.median_ci_ranks(int(units.size))
    if ranks is None:
        return None
    r_lo, r_hi = ranks
    lo, hi = float(units[r_lo]), float(units[r_hi])
    if lo <= 0.0 <= hi:
        return None
    swing = hi - lo
    for x in (log_ratios, log_base, log_cand):
        s = np.sort(np.asarray(x, dtype=float))
        swing = max(swing, float(s[-1 - r_lo] - s[r_lo]))
    if min(abs(lo), abs(hi)) < max(LARGE_EFFECT_SPREADS * swing, LARGE_EFFECT_MIN_LOG):
        return None
    return lo, hi


def _strata(log_base: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Pairs of complementary masks over the rounds: (first half, second half) in time, and (quieter,
    busier) by the load level around each round: the baseline's mean log block time in the
    :data:`LOAD_NEIGHBOURS` rounds on each side, the round itself left out (selecting rounds by
    their own block times would bias their log-ratio by their own noise; and the candidate's
    times carry the ratio itself, so where the ratio varies smoothly from round to round its
    neighbours would sort the rounds by their ratio, a split that disagrees by construction)."""
    n = int(log_base.size)
    half = np.arange(n) < n // 2
    out = [(half, ~half)]
    level = log_base
    w = LOAD_NEIGHBOURS
    if n >= 2 * w + 2:
        csum = np.concatenate(([0.0], np.cumsum(level)))
        idx = np.arange(n)
        lo_i, hi_i = np.maximum(idx - w, 0), np.minimum(idx + w + 1, n)
        around = (csum[hi_i] - csum[lo_i] - level) / (hi_i - lo_i - 1)
        busy = around > float(np.median(around))
        out.append((~busy, busy))
    return out


def paired_verdict(label: str, baseline: str, cand_ns: Sequence[float], base_ns: Sequence[float]) -> Verdict:
    """Verdict from block values paired by round (pure: used by :func:`compare` and the tests).

    The log-ratio of each round (candidate's block over the baseline's) is the datum; the estimate is
    their Hodges-Lehmann centre. The interval is the widest of:

    * the Wilcoxon signed-rank interval (assumes independent rounds);
    * a batch-means interval over consecutive rounds whose batches follow the autocorrelation time
      of the round series (rounds that share a stretch of machine load are not independent). With
      too few batches for it (fewer than three), a difference far outside every swing of the run is
      still decided, by the sign test over rounds of :func:`large_difference`; anything else is
      ``"undecided"`` (reason ``"too_few_rounds"``);
    * the rounds cut two ways, the first and second half of the run, and its quieter and busier half
      (by the load around each round, see :func:`_strata`): the interval reaches every part's
      estimate, and when the two parts' own intervals do not overlap (the ratio changed with the
      load: a memory-bound pair can slow down unequally under load), both parts' intervals. When the
      two parts point in opposite directions, each with its interval clear of 1, the verdict is
      ``"undecided"`` with reason ``"drift"`` (the interval is kept). So load that follows the rounds
      widens the interval or makes the comparison wait (the stopping rule keeps sampling); it never
      turns the verdict round."""
    a = np.log(np.asarray(cand_ns, dtype=float)) - np.log(np.asarray(base_ns, dtype=float))
    if a.size == 0:
        return Verdict(label, baseline, math.nan, None, "undecided", None, 0, "too_few_rounds")
    n = int(a.size)
    est = stats.hodges_lehmann(a)
    ratio = math.exp(est.estimate)
    if est.ci_low is None or est.ci_high is None:
        return Verdict(label, baseline, ratio, None, "undecided", None, n, "too_few_rounds")
    lb = np.log(np.asarray(base_ns, dtype=float))
    lc = np.log(np.asarray(cand_ns, dtype=float))
    lo_log, hi_log = est.ci_low, est.ci_high
    reason: str | None = None
    big = large_difference(a, lb, lc)
    tau = stats.autocorrelation_time(a)
    if tau > stats.CORRELATED_TAU or n >= stats.CI_BATCHES * stats.MIN_PER_BATCH:
        per = max(math.ceil(stats.BATCH_TAU_FACTOR * tau), math.ceil(n / stats.CI_BATCHES), 1)
        m = min(stats.CI_BATCHES, n // per)
        if m >= stats.MIN_BATCHES:
            means = np.array([part.mean() for part in np.array_split(a, m)])
            centre = float(means.mean())
            hw = stats.t975(m - 1) * float(means.std(ddof=1)) / math.sqrt(m)
            lo_log, hi_log = min(lo_log, centre - hw), max(hi_log, centre + hw)
        elif big is None:
            return Verdict(label, baseline, ratio, None, "undecided", None, n, "too_few_rounds")
    if big is not None:
        lo_log, hi_log = min(lo_log, big[0]), max(hi_log, big[1])
        reason = "large"
    opposite = False
    for first, second in _strata(lb):
        if min(int(first.sum()), int(second.sum())) < MIN_STRATUM_ROUNDS:
            continue
        p1, p2 = stats.hodges_lehmann(a[first]), stats.hodges_lehmann(a[second])
        lo_log, hi_log = min(lo_log, p1.estimate, p2.estimate), max(hi_log, p1.estimate, p2.estimate)
        if p1.ci_low is None or p1.ci_high is None or p2.ci_low is None or p2.ci_high is None:
            continue
        if p1.ci_high < p2.ci_low or p2.ci_high < p1.ci_low:
            lo_log, hi_log = min(lo_log, p1.ci_low, p2.ci_low), max(hi_log, p1.ci_high, p2.ci_high)
            opposite = opposite or p1.ci_low > 0.0 > p2.ci_high or p2.ci_low > 0.0 > p1.ci_high
    lo, hi = math.exp(lo_log), math.exp(hi_log)
    detectable = (hi - lo) / 2.0 / ratio
    if opposite:
        return Verdict(label, baseline, ratio, (lo, hi), "undecided", detectable, n, "drift")
    verdict = "faster" if hi < 1.0 else "slower" if lo > 1.0 else "no difference"
    return Verdict(label, baseline, ratio, (lo, hi), verdict, detectable, n, reason)


def block_sizes(sample_ns: Sequence[float], block_time: float) -> list[int]:
    """Samples per block for each candidate, from its calibrated sample length (pure).

    A block's value is the median of its samples, so a sample stretched by the operating system
    (another process on the core) moves it only when most of the block's samples are stretched:
    every block has at least :data:`MIN_BLOCK_SAMPLES`. And candidates whose samples last about as
    long (within :data:`SAME_BLOCK_WITHIN`, the close comparisons that are hard to call) get the
    *same* count, so interruptions hit their blocks alike: a block of one sample against a block
    of three is a one-sample median against a three-sample one, and under load the first is
    stretched far more often, which alone made a memory-bound pair (two copies of about a
    millisecond, the sample counts from calibrations taken at different moments of the load) point
    the wrong way (issue 23)."""
    order = sorted(range(len(sample_ns)), key=lambda i: sample_ns[i])
    out = [0] * len(sample_ns)
    group: list[int] = []

    def close_group() -> None:
        if group:
            mid = float(np.exp(np.mean(np.log([sample_ns[j] for j in group]))))
            for j in group:
                out[j] = max(MIN_BLOCK_SAMPLES, int(round(block_time * 1e9 / mid)))

    for i in order:
        if group and sample_ns[i] > SAME_BLOCK_WITHIN * sample_ns[group[0]]:
            close_group()
            group = []
        group.append(i)
    close_group()
    return out


def _normalize(candidates: Mapping[str, Callable[[], object]] | Sequence[tuple[str, Callable[[], object]]],
               least: int = 2) -> list[tuple[str, Callable[[], object]]]:
    if not isinstance(candidates, (Mapping, list, tuple)):
        raise TypeError("candidates must be a mapping {label: callable} or a list of (label, callable) pairs, "
                        f"such as {{'manual': f, 'fused': g}}; got {type(candidates).__name__}")
    items = list(candidates.items()) if isinstance(candidates, Mapping) else list(candidates)
    if len(items) < least:
        raise ValueError("compare() needs at least two candidates, e.g. {'manual': f, 'fused': g} (or one, with "
                         "compile=...: eager against compiled)")
    seen: set[str] = set()
    out = []
    for item in items:
        if not (isinstance(item, tuple) and len(item) == 2):
            raise TypeError("candidates must be a mapping {label: callable} or (label, callable) pairs")
        label, fn = item
        check_text("a candidate's label", label, "manual")
        if label in seen:
            raise ValueError(f"candidate labels must be unique; {label!r} appears twice")
        seen.add(label)
        if not callable(fn):
            raise TypeError(f"candidate {label!r} is a {type(fn).__name__}, not a callable taking no arguments")
        check_function(fn, f"compare(): candidate {label!r}")
        out.append((label, fn))
    return out


def compare(
    candidates: Mapping[str, Callable[[], object]] | Sequence[tuple[str, Callable[[], object]]],
    *,
    baseline: str | None = None,
    device: DeviceLike = "auto",
    precision: float = defaults.COMPARE_PRECISION,
    budget: float = defaults.COMPARE_BUDGET_S,
    min_rounds: int = 10,
    min_time: float = defaults.COMPARE_MIN_TIME_S,
    block_time: float = defaults.BLOCK_TIME_S,
    order: str = "abba",
    seed: int = 0,
    setup: Callable[[], object] | None = None,
    cold_cache: bool = False,
    timer: str | Timer = "auto",
    discard_preempted: bool = True,
    compile: bool | str | Sequence[str] = False,
    compile_limit: float = defaults.COMPILE_LIMIT_S,
) -> Comparison:
    """Compare labelled callables interleaved, and say which is faster and by how much.

    Args:
        candidates: ``{"manual": f, "fused": g}`` or ``[("manual", f), ("fused", g)]``.
        baseline: the label the others are compared with (default: the first).
        precision: a verdict of "no difference" needs the speed-up CI within ±precision.
        budget: seconds at most, warm-up included. min_rounds, min_time: at least this much. The
            default second of rounds is there to see the machine's load change: rounds that all fall
            in one stretch of load look independent and can agree on the wrong direction.
        block_time: seconds per block (one candidate's turn in a round).
        order: ``"abba"`` (forwards and backwards in turn) or ``"shuffle"`` (seeded).
        setup, cold_cache, timer, discard_preempted, device: as in :func:`~measurefirst.benchmark`.
        compile: True, a torch.compile mode, or several: each candidate is also timed compiled in each
            mode (``f (compiled)``, ``f (compiled: max-autotune)``), interleaved with the eager ones; the
            table then shows each one's compile time and the calls until compiling pays for itself
            against the baseline. Compiling is kept off the budget whatever the candidate (see
            :mod:`measurefirst.measure.compiling`). compile_limit: as in :func:`~measurefirst.benchmark`.

    Raises BenchmarkError (with the failing candidate's label and ``.partial``: the comparison so
    far) when a candidate raises, and :class:`~measurefirst.measure.engine.Interrupted` on Ctrl-C.
    """
    items = _with_compiled(_normalize(candidates, 1 if compile not in (False, None, ()) else 2), compile)
    labels = [label for label, _ in items]
    base = labels[0] if baseline is None else baseline
    if base not in labels:
        raise ValueError(f"baseline {base!r} is not one of the candidates: {', '.join(labels)}")
    if order not in ORDERS:
        raise ValueError(f"order must be one of {', '.join(ORDERS)}; got {order!r}")
    check_seed(seed)
    if not (isinstance(min_rounds, int) and min_rounds >= 6):
        raise ValueError(f"min_rounds must be an integer >= 6 (a 95% CI needs six pairs); got {min_rounds!r}")
    if (isinstance(block_time, bool) or not isinstance(block_time, (int, float)) or not math.isfinite(block_time)
            or not block_time > 0):
        raise ValueError(f"block_time must be a positive, finite number of seconds such as 0.005; got {block_time!r}")
    opts = Options(precision=precision, budget=budget, min_time=min_time, cold_cache=cold_cache,
                   discard_preempted=discard_preempted, compile_limit=compile_limit)
    check_timer(timer)
    colds: list[float | None] = [None] * len(items)
    cold_compiles: list[list[CompileEvent]] = []
    if isinstance(timer, str):
        try:
            dev, colds, _ = choose_device([fn for _, fn in items], setup, device, compiles=cold_compiles)
        except KeyboardInterrupt as exc:
            raise Interrupted(None) from exc
        except SetupError as exc:
            cause = exc.__cause__ or exc
            raise BenchmarkError(f"compare: setup raised: {type(cause).__name__}: {cause}", label="setup",
                                 phase="setup", index=0) from cause
        except ColdCallError as exc:
            cause = exc.__cause__ or exc
            bad = labels[exc.index]
            raise BenchmarkError(f"compare: candidate {bad!r} raised during its cold call: {type(cause).__name__}: "
                                 f"{cause}", label=bad, phase="cold call", index=0) from cause
        the_timer = make_timer(dev, timer)
    else:
        dev = resolve_device(device)
        the_timer = timer
    env = environment(dev)
    t_begin = the_timer.now_ns()  # one budget for the whole comparison
    states = [Sampler(fn, the_timer, opts, label=label, device=dev, env=env, setup=setup, t_begin=t_begin,
                      cold_compiles=cold_compiles[i] if i < len(cold_compiles) else ())
              for i, (label, fn) in enumerate(items)]
    session = _Session(states, labels.index(base), the_timer, opts, colds, min_rounds, block_time, order, seed)
    return session.run()


def _with_compiled(items: list[tuple[str, Callable[[], object]]], compile: bool | str | Sequence[str]
                   ) -> list[tuple[str, Callable[[], object]]]:
    """The candidates, each followed by its compiled variant in each mode ``compile`` asks for."""
    from ..measure import compiling

    asked = [compile] if isinstance(compile, (bool, str)) or compile is None else list(compile)
    modes = [m for m in (compiling.check_compile(a) for a in asked) if m is not None]
    if len(set(modes)) != len(modes):
        raise ValueError(f"compile names a mode twice: {', '.join(modes)}")
    out = []
    for label, fn in items:
        out.append((label, fn))
        out += [(compiling.compiled_label(label, mode), compiling.compiled(fn, mode)) for mode in modes]
    return out


class Clock(Protocol):
    """What a comparison reads of time: now, in nanoseconds (a :class:`Timer`, or the clock of
    samplers that run elsewhere: :class:`measurefirst.measure.remote.SumClock`)."""

    def now_ns(self) -> int: ...


def compare_samplers(states: Sequence[Any], clock: Clock, opts: Options, *, baseline: int = 0,
                     colds: Sequence[float | None] | None = None, min_rounds: int = 10,
                     block_time: float = defaults.BLOCK_TIME_S, order: str = "abba", seed: int = 0,
                     stop_on_direction: bool = True) -> Comparison:
    """The interleaved comparison of :func:`compare` over samplers built by the caller: each has
    :class:`~measurefirst.measure.engine.Sampler`'s phases (``measure_overhead``, ``warm_up``, ``calibrate``,
    ``prepare``, ``take_block``, ``stop_at_deadline``, ``result``), such as samplers of the same test in
    two worker interpreters (:class:`measurefirst.measure.remote.RemoteSampler`); ``clock`` gives the
    time the budget and the stopping rule read; ``stop_on_direction=False``: only the precision or the
    budget ends it (see :func:`settled`)."""
    if order not in ORDERS:
        raise ValueError(f"order must be one of {', '.join(ORDERS)}; got {order!r}")
    check_seed(seed)
    cold = list(colds) if colds is not None else [None] * len(states)
    session = _Session(list(states), baseline, clock, opts, cold, min_rounds, block_time, order, seed)
    session.direction = stop_on_direction
    return session.run()


class _Session:
    def __init__(self, states: list[Any], base: int, timer: Clock, opts: Options,
                 colds: Sequence[float | None], min_rounds: int, block_time: float, order: str, seed: int) -> None:
        self.labels = [str(st.label) for st in states]
        self.base, self.timer, self.opts = base, timer, opts
        self.min_rounds, self.block_time, self.order = min_rounds, block_time, order
        self.colds = list(colds)
        self.rng = random.Random(seed)
        t_begin = min([int(st.t_begin) for st in states] + [timer.now_ns()])  # one budget for the whole comparison
        self.states = states
        self.blocks: list[list[float]] = [[] for _ in states]
        self.orders: list[tuple[int, ...]] = []
        self.t_begin = t_begin
        self.options = {"precision": opts.precision, "budget": opts.budget, "min_rounds": min_rounds,
                        "min_time": opts.min_time, "block_time": block_time, "order": order, "seed": seed,
                        "cold_cache": opts.cold_cache, "discard_preempted": opts.discard_preempted}
        self.current = 0
        self.direction = True  # a clear direction ends the comparison (see settled)

    def run(self) -> Comparison:
        import gc

        gc_was = gc.isenabled()
        gc.collect()
        gc.disable()
        try:
            return self._run()
        except KeyboardInterrupt as exc:
            try:
                partial: Comparison | None = self._partial("interrupted")
            except WorkerLost:  # a worker's sampler was interrupted mid-request: its samples are not to be had
                partial = None
            raise Interrupted(partial) from exc
        except SetupError as exc:
            cause = exc.__cause__ or exc
            state = self.states[self.current]
            raise BenchmarkError(
                f"compare: setup raised (before a sample of {state.label!r}): {type(cause).__name__}: {cause}",
                label="setup", phase="setup", index=state.index, partial=self._partial("error"),
            ) from cause
        except BaseException as exc:  # SystemExit and other BaseExceptions too, with the comparison so far
            state = self.states[self.current]
            raise BenchmarkError(
                f"compare: candidate {state.label!r} {raised_words(exc)} during {state.phase}: {type(exc).__name__}: "
                f"{exc}",
                label=state.label, phase=state.phase, index=state.index, partial=self._partial("error"),
            ) from exc
        finally:
            if gc_was:
                gc.enable()

    def _run(self) -> Comparison:
        opts = self.opts
        self.current = 0
        overhead = self.states[0].measure_overhead()
        sample_ns = []
        for i, st in enumerate(self.states):
            self.current = i
            self._report(i, 0)
            self._share_compiles()
            st.warm_up(self.colds[i])  # every candidate's first call is timed, even past the deadline
            number = st.calibrate(overhead)
            if not st.past_deadline():
                st.prepare()
            assert st.calibration is not None
            sample_ns.append(max(st.calibration.per_call_estimate_ns * number + overhead, 1.0))
        self._share_compiles()
        if self.states[-1].past_deadline():
            return self._one_round_at_deadline()
        per_block = block_sizes(sample_ns, self.block_time)
        deadline = self._deadline()
        start = self.timer.now_ns()
        for st in self.states:
            st.phase = "sampling"
            st.t_sampling = start
        next_check = self.min_rounds
        k = len(self.states)
        pair: tuple[int, ...] = tuple(range(k))
        while True:
            r = len(self.orders)
            if self.order == "abba":
                if r % 2 == 0:
                    pair = tuple(self.rng.sample(range(k), k))
                order = pair if r % 2 == 0 else tuple(reversed(pair))
            else:
                order = tuple(self.rng.sample(range(k), k))
            for i in order:
                self.current = i
                self._report(i, r + 1)
                self.blocks[i].append(self.states[i].take_block(per_block[i], deadline))
            self.orders.append(order)
            rounds = r + 1
            now = self.timer.now_ns()
            deadline = self._deadline()  # a recompile while sampling moves it
            if rounds >= next_check:
                verdicts = self._verdicts()
                # min_time guards against a verdict drawn inside one stretch of load; a difference
                # far outside every swing of the run (reason "large") needs no such guard
                long_enough = now - start >= opts.min_time * 1e9 or all(
                    v.verdict == "baseline" or v.reason == "large" for v in verdicts)
                if long_enough and all(settled(v, opts.precision, self.direction) for v in verdicts):
                    return self._result(Stop("precision", True, opts.precision, (now - start) / 1e9), True)
                if now - start >= opts.min_time * 1e9:
                    next_check = rounds + (1 if rounds < CHECK_EVERY_ROUND_UP_TO else max(1, rounds // 50))
            if now >= deadline:
                verdicts = self._verdicts()
                met = all(settled(v, opts.precision, self.direction) for v in verdicts)
                return self._result(Stop("budget", met, opts.precision, (now - start) / 1e9), True)

    def _compiling_ns(self) -> float:
        return sum(float(getattr(st, "compile_ns", 0.0)) for st in self.states)

    def _share_compiles(self) -> None:
        """The candidates share one budget, and none of their compiling is charged to it (see
        :mod:`measurefirst.measure.compiling`): each one's deadline moves by the others' compiles too."""
        total = self._compiling_ns()
        for st in self.states:
            if hasattr(st, "off_budget_ns"):
                st.off_budget_ns = total - float(st.compile_ns)

    def _deadline(self) -> float:
        self._share_compiles()
        return self.t_begin + self.opts.budget * 1e9 + self._compiling_ns()

    def _one_round_at_deadline(self) -> Comparison:
        """The budget ran out before sampling began: each candidate's last timed call is its one sample, in
        one round, and the comparison ends there (reason ``"budget"``)."""
        for i, st in enumerate(self.states):
            st.stop_at_deadline()
            st.t_sampling = self.timer.now_ns()
            self.blocks[i].append(st.samples[-1] / st.numbers[-1])
        self.orders.append(tuple(range(len(self.states))))
        return self._result(Stop("budget", False, self.opts.precision, 0.0), True)

    def _report(self, i: int, rounds: int) -> None:
        """Candidate ``i`` is measured next, in round ``rounds`` (0: its warm-up), for a progress line: between
        blocks, so nothing is timed while it is drawn."""
        if progress.active():
            progress.report("compare", self.labels[i], rounds, 0, (self.timer.now_ns() - self.t_begin) / 1e9,
                            self.opts.budget)

    def _verdicts(self) -> list[Verdict]:
        base_label = self.labels[self.base]
        out = []
        for i, label in enumerate(self.labels):
            if i == self.base:
                out.append(Verdict(label, base_label, 1.0, (1.0, 1.0), "baseline", 0.0, len(self.blocks[i])))
                continue
            n = min(len(self.blocks[i]), len(self.blocks[self.base]))
            out.append(paired_verdict(label, base_label, self.blocks[i][:n], self.blocks[self.base][:n]))
        return out

    def _result(self, stop: Stop, complete: bool) -> Comparison:
        measurements = []
        for st in self.states:
            if st.calibration is None or not st.samples:
                continue
            measurements.append(st.result(Stop(stop.reason, stop.target_met, stop.precision, stop.seconds),
                                          complete=complete))
        labels = tuple(st.label for st in self.states if st.calibration is not None and st.samples)
        return Comparison(
            labels=labels, baseline=self.labels[self.base], measurements=tuple(measurements),
            block_values_ns=tuple(tuple(b) for b, st in zip(self.blocks, self.states) if st.samples),
            orders=tuple(self.orders), verdicts=tuple(self._verdicts()), stop=stop, options=self.options,
            complete=complete,
        )

    def _partial(self, reason: str) -> Comparison | None:
        if not self.orders:
            return None
        # keep only complete rounds, so every candidate has the same number of blocks
        n = len(self.orders)
        for b in self.blocks:
            del b[n:]
        spent = (self.timer.now_ns() - self.t_begin) / 1e9
        return self._result(Stop(reason, False, self.opts.precision, spent), complete=False)
