"""The measuring loop: overhead, cold call, warm-up, loop-count calibration, adaptive sampling.

The rules, stated once (and asserted exactly by the tests with a simulated clock):

* **Overhead.** The timer times an empty call :data:`OVERHEAD_REPS` times; the median is the
  timer-plus-sync overhead of one sample.
* **Cold call.** The first call is timed alone and kept apart (``warmup.cold_ns``).
* **Warm-up** (adaptive). Calls are timed one by one until per-call time stops falling: at least
  :data:`WARMUP_MIN_CALLS` calls and ``warmup_min_time`` seconds, and the median of the last
  :data:`WARMUP_WINDOW` calls is no more than :data:`WARMUP_TOLERANCE` below the median of the
  :data:`WARMUP_WINDOW` calls before them. Warm-up ends anyway after ``warmup_max_time`` seconds
  (at most :data:`WARMUP_BUDGET_SHARE` of the budget); the result then says whether the calls that fit
  had stopped falling (judged on shorter windows for slow functions).
* **Loop count.** A sample times ``number`` calls. ``number`` is the smallest count for which the
  measured overhead and the timer's resolution each bias a sample by at most
  ``OVERHEAD_SHARE * precision`` (0.1% at the default 1% target); it is re-estimated from a timed
  trial sample until it settles (at most :data:`CALIBRATION_ROUNDS` rounds). Samples are kept no
  longer than that, so that a preemption spoils one short sample instead of every long one.
* **Stopping.** After each sample, once there are ``min_samples`` samples and ``min_time`` seconds
  of sampling, sampling stops if the 95% CI of the median per-call time is within ±``precision``
  of the median. It stops anyway when the budget (which counts from the start, warm-up included)
  is spent. Samples during which the OS preempted the process are set aside, while they are a
  minority (:data:`~measurefirst.results.kinds.MAX_PREEMPTED_FRACTION_TO_DISCARD`).
* **Stopping early when the target is out of reach** (``stop_early``, on by default). After
  :data:`EARLY_STOP_SECONDS` of sampling, every :data:`EARLY_STOP_CHECK_SECONDS`, the full
  half-width (order statistics and batch ranks) is projected forward as if it shrank with the
  square root of the time; once even that projection reaches ``precision`` only after the budget at
  two checks in a row (the noise estimate has settled on "out of reach"), sampling stops with reason
  ``"noise"``: the machine gives this interval here, and waiting the whole budget would not change
  the answer much (as nvbench stops once its noise estimate settles).
* **Repetitions** (``repeats``, default :data:`~measurefirst.results.defaults.REPEATS`). Sampling is cut into
  independent repetitions, each with its own warm-up (:data:`REPEAT_WARMUP_CALLS` calls and
  :data:`REPEAT_WARMUP_SHARE` of its slice at least) and its own loop-count calibration, each lasting a
  slice of ``min_time / repeats`` seconds (growing with the time already sampled, so a long run makes
  few long repetitions rather than many short ones) and :data:`REPEAT_MIN_SAMPLES` samples at least that
  the OS did not preempt (or three times as many in all).
  The precision rule above is checked only when a repetition ends, and is met only once ``repeats``
  repetitions are done. The spread of the repetitions' medians is this call's measured run-to-run
  spread (:class:`~measurefirst.results.kinds.RunToRun`, source ``"repeats"``); with fewer than two
  repetitions in the budget it is not measured, and the result says so.
* **Fixed mode.** ``warmup=W`` makes exactly W untimed-for-statistics calls (the first of them is
  the cold call); ``trials=T`` takes exactly T samples, ignoring precision. Together they
  reproduce the classic ``warmup=3, trials=10`` loop. Both stop at the budget, and the result says so
  (``stop.reason == "budget"``, finding ``fixed_count_cut``); a fixed ``number`` whose one sample would
  outlast the whole budget (estimated from the calls timed before it) is refused
  (:class:`~measurefirst.results.errors.BudgetError`, a ``ValueError`` naming the largest count that fits).
* **What the budget bounds.** The budget counts from the start (a cold call the caller timed
  included). No call of the function starts after the deadline, in any phase (warm-up, calibration,
  a repetition's own warm-up and calibration, sampling), except the cold call, the one reading a result
  needs: when the deadline passes before sampling begins, the last timed call becomes the one sample
  and the run ends (reason ``"budget"``; finding ``call_exceeds_budget`` when one call is longer than the
  budget). So a call lasts at most ``budget + one sample + fixed overhead`` (the
  :data:`OVERHEAD_REPS` timer probes, the speed reference's probes), where a calibrated sample is
  planned at most :data:`SAMPLE_BUDGET_SHARE` of the budget, or one call when a call is longer; with a
  fixed ``number`` a sample may last up to the whole budget. See docs/budgets.md.
"""

from __future__ import annotations

import bisect
import functools
import gc
import inspect
import itertools
import math
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable, Literal, Sequence, TypedDict, overload

import torch

from . import compiling, progress
from ..results import defaults, stats
from .compiling import CompileLimit, RecompileRefused
from ..results.errors import BudgetError
from .devices import (
    DeviceLike,
    environment,
    is_auto,
    last_level_cache_bytes,
    machine,
    resolve_device,
    synchronizer,
)
from ..results.findings import OVERHEAD_SHARE
from ..results.kinds import (
    MAX_PREEMPTED_FRACTION_TO_DISCARD,
    Calibration,
    CompileEvent,
    Compiled,
    Count,
    SpeedReference,
    Measurement,
    RunToRun,
    Stop,
    Warmup,
    kept_warmup_times,
    spread_from_medians,
    used_mask,
)
from .timers import TIMER_CHOICES, Timer, host_time, make_timer
from .options import Options as Options  # re-exported: measurefirst.measure.engine.Options

OVERHEAD_REPS = 25
WARMUP_MIN_CALLS = 6
WARMUP_WINDOW = 3
WARMUP_TOLERANCE = 0.05
WARMUP_BUDGET_SHARE = 0.25
CALIBRATION_ROUNDS = 3
#: Trial samples at most, growth steps included, and the largest loop count calibration picks.
CALIBRATION_MAX_TRIALS = 12
CALIBRATION_MAX_NUMBER = 10**7
#: Calibration stops re-estimating once the loop count changes by less than this factor.
CALIBRATION_SETTLED_FACTOR = 1.25
#: The cold-cache flush writes this many times the last-level cache (see :func:`flush_bytes`).
FLUSH_FACTOR = 2
#: A repetition after the first warms up again with at least this many calls...
REPEAT_WARMUP_CALLS = 3
#: ...and at least this fraction of its own slice of sampling time.
REPEAT_WARMUP_SHARE = 0.1
#: Fewest samples in a repetition (its median must mean something).
REPEAT_MIN_SAMPLES = 3


if TYPE_CHECKING:  # pragma: no cover
    from typing_extensions import Unpack

    from .noise import NoiseProfile
    from ..results.protocol import Result


class BenchmarkError(RuntimeError):
    """The benchmarked function (or its setup) raised. ``partial`` holds what was measured before
    (a Measurement from benchmark(), a Comparison from compare(); None if nothing was)."""

    def __init__(self, message: str, *, label: str, phase: str, index: int | None,
                 partial: "Result | None" = None) -> None:
        super().__init__(message)
        self.label = label
        self.phase = phase
        self.index = index
        self.partial = partial


class ColdCallError(RuntimeError):
    """Function number ``index`` raised in its observed first call (the exception is the cause)."""

    def __init__(self, index: int) -> None:
        super().__init__(f"function {index} raised in its first call")
        self.index = index


class SetupError(RuntimeError):
    """The ``setup`` callable raised (the exception is the ``__cause__``); kept apart so that the
    error names setup, not the function measured after it."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a benchmark. ``partial`` holds what was measured so far, marked incomplete: a
    result of the kind the interrupted call returns (a Measurement from benchmark(), a Comparison from
    compare(), a SweepResult from sweep())."""

    def __init__(self, partial: "Result | None") -> None:
        super().__init__("benchmark interrupted")
        self.partial = partial


def raised_words(exc: BaseException) -> str:
    """How the code under test stopped, for an error message: ``raised``, or ``called sys.exit(0)``."""
    return f"called sys.exit({exc.code!r})" if isinstance(exc, SystemExit) else "raised"


def check_number_fits(number: int, per_call_ns: float, budget: float) -> None:
    """Refuse a fixed loop count whose one sample would outlast the whole budget, estimated from the calls
    timed before it (``per_call_ns``; 0 when none was: then nothing can be judged)."""
    if per_call_ns > 0 and number * per_call_ns > budget * 1e9:
        fits = max(1, int(budget * 1e9 // per_call_ns))
        raise BudgetError(f"number={number} calls of about {per_call_ns / 1e9:.3g} s make one sample of about "
                          f"{number * per_call_ns / 1e9:.3g} s, longer than the whole {budget:g} s budget: give "
                          f"number={fits} or less (--number), or a budget of at least "
                          f"{number * per_call_ns / 1e9 * 2:.3g} s (--budget)")


def default_label(fn: Callable[..., Any]) -> str:
    """The label of a function given without one, the same in every measuring function (``benchmark``,
    ``sweep``, ``profile``, ``doctor``, ``benchmark_ranged_step``): its ``__qualname__`` (``Model.forward``,
    ``outer.<locals>.inner``), the wrapped function's for a ``functools.partial``, ``lambda`` for a lambda wherever it is defined."""
    if isinstance(fn, functools.partial):
        return default_label(fn.func)
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__
    return "lambda" if str(name).endswith("<lambda>") else str(name)


def loop(fn: Callable[[], object], number: int) -> Callable[[], None]:
    """``fn`` called ``number`` times (``fn`` itself for one call)."""
    if number == 1:
        return fn  # type: ignore[return-value]
    repeat = itertools.repeat

    def looped() -> None:
        for _ in repeat(None, number):
            fn()

    return looped


def _needed_number(per_call_ns: float, overhead_ns: float, resolution_ns: float, precision: float) -> int:
    """Smallest loop count for which overhead and resolution each bias a sample by at most
    ``OVERHEAD_SHARE * precision``."""
    limit = OVERHEAD_SHARE * precision
    per_call_ns = max(per_call_ns, 1e-3)
    need = max(overhead_ns, resolution_ns) / (limit * per_call_ns)
    return max(1, math.ceil(need - 1e-9))


#: See :meth:`Sampler._half_width`.
BATCH_CHECK_EVERY_UP_TO = 100
#: Stopping early (see the module docstring): sampling time before the first check, seconds, and
#: time between checks; the earliest stop is at the second check.
EARLY_STOP_SECONDS = 0.75
EARLY_STOP_CHECK_SECONDS = 0.25
#: A sample never plans to last longer than this share of the budget (so that a precision target
#: out of reach cannot make one sample outlast the budget).
SAMPLE_BUDGET_SHARE = 0.1
#: Recaptures of a CUDA graph when a timed replay shows the loop count was planned too small.
GRAPH_RECALIBRATIONS = 2


def next_batch_check(n: int) -> int:
    return n + (1 if n < BATCH_CHECK_EVERY_UP_TO else max(1, n // 50))


def _warmup_falling(times: list[float]) -> bool:
    """Whether per-call time is still falling: the median of the last ``w`` calls is more than
    :data:`WARMUP_TOLERANCE` below the median of the ``w`` calls before them, with
    ``w = WARMUP_WINDOW`` (or fewer when only a few slow calls fit under the time cap; with fewer than
    two calls nothing can be judged, which counts as falling)."""
    w = min(WARMUP_WINDOW, len(times) // 2)
    if w == 0:
        return True
    last = stats.median(times[-w:])
    before = stats.median(times[-2 * w:-w])
    return last < (1.0 - WARMUP_TOLERANCE) * before


def flush_bytes(device: torch.device) -> int:
    """Bytes a cold-cache flush writes: twice the last-level cache (GPU L2, Apple SLC, CPU LLC), since
    caches do not evict in strict LRU order and a flush of exactly their size leaves lines behind."""
    return FLUSH_FACTOR * last_level_cache_bytes(device)


class Sampler:
    """The measuring state of one callable: the public sampler that :func:`benchmark` and
    :func:`~measurefirst.compare` compose (overhead, cold call, warm-up, calibration, preparing the
    timed call, one sample, one block of samples), turned into a Measurement at the end."""

    def __init__(self, fn: Callable[[], object], timer: Timer, opts: Options, *, label: str,
                 device: torch.device | str, env: dict[str, Any] | None = None,
                 setup: Callable[[], object] | None = None, t_begin: int | None = None,
                 reference: Callable[[], object] | None = None, reference_label: str = "",
                 cold_compiles: Sequence[CompileEvent] = ()) -> None:
        dev = torch.device(device)
        self.fn, self.timer, self.opts, self.label = fn, timer, opts, label
        self.device, self.env, self.setup = str(dev), env or {}, setup
        self.flush = machine().flush_kernel(dev, flush_bytes(dev)) if opts.cold_cache else None
        self._dev = dev
        self.phase = "start"
        self.index: int | None = None
        self.samples: list[float] = []
        self.numbers: list[int] = []
        self.hosts: list[float] = []
        self.synced: list[float] = []
        self.preempted: list[int] = []
        self.sorted_all: list[float] = []
        self.sorted_clean: list[float] = []
        self.batch_check_at = 0  # the batch-median check runs again once there are this many samples
        self.warmup: Warmup | None = None
        self.calibration: Calibration | None = None
        self.run: Callable[[], object] | None = None
        self.number = 0
        self.adaptive = False  # the loop count was calibrated (not fixed by the caller or the mode)
        self.notes: dict[str, Any] = {}
        self.t_begin = timer.now_ns() if t_begin is None else t_begin
        self.t_sampling = self.t_begin
        self.has_host = False
        self.has_preempt = False
        #: experimental speed reference (see measurefirst.results.reference): its call, loop and samples
        self.reference, self.reference_label = reference, reference_label
        self.reference_run: Callable[[], object] | None = None
        self.reference_number = 0
        self.reference_samples: list[float] = []
        #: samples per finished repetition (see the module docstring), and the overhead to recalibrate with
        self.repeat_counts: list[int] = []
        self.overhead_ns = 0.0
        #: the last timed call of the function (ns, calls): the one sample when the budget runs out first
        self.last_call: tuple[float, int] | None = None
        #: what torch compiled during the calls made here (see measurefirst.measure.compiling): each event
        #: with the phase and call it fell in; the time of the calls that compiled, kept off the budget;
        #: samples taken again because they spanned a compile; the compiles of a cold call timed by the caller
        self.compile_log = compiling.log_for(timer)
        self._compile_mark: object = None
        self.compiles: list[CompileEvent] = []
        self.compile_ns = 0.0
        #: time off the budget that is not this sampler's own compiling: in a comparison, the other
        #: candidates' compiles (the session sets it; they share one budget)
        self.off_budget_ns = 0.0
        #: of compile_ns, the cold call the caller timed (not a call timed here)
        self.compile_given_ns = 0.0
        self.resampled = 0
        self.just_compiled = False
        self.cold_compiles = tuple(cold_compiles)

    # -- phases --------------------------------------------------------------------------------
    @property
    def deadline_ns(self) -> float:
        """When the budget is spent: ``budget`` seconds after the start, not counting calls that compiled."""
        return self.t_begin + self.opts.budget * 1e9 + self.compile_ns + self.off_budget_ns

    def _compiled(self, elapsed_ns: float, events: Sequence[CompileEvent] | None = None) -> bool:
        """Whether torch compiled during the call just timed (``elapsed_ns``; ``events``: given by the
        caller who timed it, else read from the compile log since the mark taken before the call): its
        events are kept with the phase and the call's time moves off the budget; past ``compile_limit``
        seconds of compiling in all, stop. (The log is the process's: a mark taken before each call
        keeps another candidate's compile from being read as this one's.)"""
        if events is None:
            events = self.compile_log.since(self._compile_mark)
        self.just_compiled = bool(events)
        if not events:
            return False
        self.compiles.extend(replace(e, phase=self.phase, call=self.index) for e in events)
        self.compile_ns += elapsed_ns
        if self.opts.fail_on_recompile and self.phase == "sampling":
            raise RecompileRefused(next((e.reason for e in events if e.reason), ""))
        if self.compile_ns > self.opts.compile_limit * 1e9:
            raise CompileLimit(self.compile_ns / 1e9, self.opts.compile_limit, len(self.compiles))
        return True

    def _set_up(self) -> None:
        if self.setup is not None:
            try:
                self.setup()
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # sys.exit() and other BaseExceptions too: a failure of the setup
                raise SetupError(f"setup raised: {type(exc).__name__}: {exc}") from exc

    def past_deadline(self) -> bool:
        """Whether the budget is spent: no call of the function starts after this (see the module docstring)."""
        return self.timer.now_ns() >= self.deadline_ns

    def _time_call(self, run: Callable[[], object], number: int = 1) -> float:
        """One timed call (set up first); ``just_compiled`` says whether torch compiled during it."""
        self._set_up()
        self._compile_mark = self.compile_log.mark()
        elapsed = self.timer.time(run).elapsed_ns
        self.last_call = (elapsed, number)
        self._compiled(elapsed)
        return elapsed

    def stop_at_deadline(self) -> Stop:
        """The budget ran out before sampling began: the last timed call (the cold call, a warm-up call or a
        calibration trial) becomes the one sample, and the run ends (reason ``"budget"``)."""
        assert self.last_call is not None
        self.notes.setdefault("budget_cut", self.phase)
        self._record(self.last_call[0], self.last_call[1], None, -1)
        self._close_repeat(0)
        return Stop("budget", False, self.opts.precision, 0.0)

    def measure_overhead(self) -> float:
        """Median time of the cheapest timed call (on a GPU: one tiny kernel launch, which every
        sample pays at least once)."""
        self.phase = "overhead"
        probe = self.timer.probe()
        self.overhead_ns = stats.median([self.timer.time(probe).elapsed_ns for _ in range(OVERHEAD_REPS)])
        return self.overhead_ns

    def warm_up(self, cold_ns: float | None = None) -> None:
        """The cold call (timed here, or already timed by the caller: ``cold_ns``), then warm-up."""
        opts, times = self.opts, []
        t0 = self.timer.now_ns()
        cold: float | None = cold_ns
        if opts.warmup is not None:
            self.phase = "warm-up"
            start = 0 if cold is None else 1
            if cold is not None:
                self.last_call = (cold, 1)
                self._cold_given(cold)
            rule = "fixed"  # a code (words in render/words.py); the counts are in options and notes
            for i in range(start, opts.warmup):
                if i > 0 and self.past_deadline():  # stopped at the budget: the result says so
                    self.notes["budget_cut"] = "warmup"
                    self.notes["budget_cut_done"] = i
                    rule = "fixed+cut"
                    break
                self.index = i
                t = self._time_call(self.fn)
                if i == 0:
                    cold = t
                else:
                    times.append(t)
            self.warmup = Warmup(cold, len(times), kept_warmup_times(times), True, (self.timer.now_ns() - t0) / 1e9, rule)
            return
        if cold is None:
            self.phase, self.index = "cold call", 0
            with compiling.ticking(self.timer.now_ns, progress.active()):  # "first call: 12 s so far ..."
                cold = self._time_call(self.fn)
        else:
            self.last_call = (cold, 1)
            self._cold_given(cold)
        self.phase = "warm-up"
        cap_ns = min(opts.warmup_max_time, WARMUP_BUDGET_SHARE * opts.budget) * 1e9
        min_ns = min(opts.warmup_min_time * 1e9, cap_ns)
        w0 = self.timer.now_ns()
        steady = False
        calls = 0
        while True:
            if self.past_deadline():  # the cold call (or the calls so far) spent the budget
                steady = not _warmup_falling(times)
                break
            calls += 1
            self.index = calls
            t = self._time_call(self.fn)
            if self.just_compiled:  # compiling (again): not a step of the warm-up curve, not its time
                w0 += int(t)
                continue
            times.append(t)
            spent = self.timer.now_ns() - w0
            falling = _warmup_falling(times)
            if len(times) >= WARMUP_MIN_CALLS and spent >= min_ns and not falling:
                steady = True
                break
            if spent >= cap_ns:
                steady = not falling
                break
        self.warmup = Warmup(cold, len(times), kept_warmup_times(times), steady, (self.timer.now_ns() - t0) / 1e9, "steady")

    def _cold_given(self, cold_ns: float) -> None:
        """A cold call the caller timed (``choose_device``): its compiles (the caller's ``cold_compiles``)
        are this run's, and its time off the budget."""
        events = list(self.cold_compiles)
        phase, self.phase, self.index = self.phase, "cold call", 0
        if self._compiled(cold_ns, events):
            self.compile_given_ns += cold_ns
        self.phase = phase

    def _budget_number(self, per_call_ns: float) -> int:
        return max(1, int(SAMPLE_BUDGET_SHARE * self.opts.budget * 1e9 // max(per_call_ns, 1e-3)))

    def rewarm(self, slice_ns: float) -> list[float]:
        """A later repetition's own warm-up: :data:`REPEAT_WARMUP_CALLS` timed calls at least, and
        :data:`REPEAT_WARMUP_SHARE` of the repetition's slice; the call times (for its calibration)."""
        self.phase = "warm-up"
        times: list[float] = []
        w0 = self.timer.now_ns()
        while len(times) < REPEAT_WARMUP_CALLS or self.timer.now_ns() - w0 < REPEAT_WARMUP_SHARE * slice_ns:
            self.index = len(times)
            t = self._time_call(self.fn)
            if self.just_compiled:
                w0 += int(t)
            else:
                times.append(t)
            if self.timer.now_ns() >= self.deadline_ns:
                break
        return times

    def calibrate(self, overhead_ns: float, recent_ns: list[float] | None = None) -> int:
        """Choose ``number``, the calls per sample (see the module docstring), from the last warm-up
        calls (``recent_ns``: a later repetition's own; default: the warm-up's)."""
        opts = self.opts
        res = float(self.timer.resolution_ns)
        if recent_ns is not None:
            recent = list(recent_ns[-WARMUP_WINDOW:])
        else:
            recent = list(self.warmup.times_ns[-WARMUP_WINDOW:]) if self.warmup and self.warmup.times_ns else []
        if not recent and self.warmup and self.warmup.cold_ns is not None:
            recent = [self.warmup.cold_ns]
        estimate = max(stats.median(recent) - overhead_ns, 0.0) if recent else 0.0
        capped = False
        if opts.number is not None:
            number, reason = opts.number, "caller"
            check_number_fits(number, estimate, opts.budget)
        elif opts.cold_cache:
            number, reason = 1, "cold_cache"
        elif opts.trials is not None and opts.warmup is not None:
            number, reason = 1, "fixed_mode"
        else:
            self.adaptive = True
            self.phase = "calibration"
            # A call shorter than the overhead cannot be estimated from single calls: grow the
            # count tenfold until a trial sample's net time is at least the overhead.
            if estimate <= 0 or estimate < overhead_ns:
                number = 1
            else:
                number = min(_needed_number(estimate, overhead_ns, res, opts.precision), CALIBRATION_MAX_NUMBER,
                             self._budget_number(estimate))
            rounds = 0
            for attempt in range(CALIBRATION_MAX_TRIALS):
                if self.past_deadline():
                    break
                self.index = attempt
                sample = self._time_call(loop(self.fn, number), number)
                if self.just_compiled:  # a trial that compiled says nothing of the call's time
                    continue
                net = sample - overhead_ns
                if (net < max(overhead_ns, res) and number < CALIBRATION_MAX_NUMBER
                        and self.timer.now_ns() < self.deadline_ns):
                    number = min(number * 10, CALIBRATION_MAX_NUMBER)
                    continue
                estimate = max(net, 0.0) / number
                new = min(_needed_number(estimate, overhead_ns, res, opts.precision), CALIBRATION_MAX_NUMBER)
                limit = self._budget_number(estimate)
                if new > limit:
                    new, capped = limit, True
                settled = max(new, number) / min(new, number) < CALIBRATION_SETTLED_FACTOR
                number = new
                rounds += 1
                if settled or rounds >= CALIBRATION_ROUNDS or self.timer.now_ns() >= self.deadline_ns:
                    break
            reason = "adaptive+capped" if capped else "adaptive"
        if self.calibration is None:  # a repetition's own calibration changes the loop count, not the record
            self.calibration = Calibration(number, overhead_ns, res, estimate, OVERHEAD_SHARE * opts.precision,
                                           reason)
        self.number = number
        return number

    def prepare(self) -> Callable[[], object]:
        """The timed call: ``number`` calls in a loop, or replays of a CUDA graph of them. A graph is
        replayed once untimed (its first replay uploads it), then timed once to check ``number``:
        replays drop the per-launch host cost that the eager calibration saw, so a loop count
        planned on eager calls can be far too small; the graph is captured again with the count
        that the replay asks for."""
        assert self.calibration is not None
        if self.reference is not None:
            self._prepare_reference()
        if not self.opts.cuda_graph:
            self.run = loop(self.fn, self.number)
            return self.run
        self.phase, self.index = "CUDA graph capture", None
        cal = self.calibration
        replay = _capture_graph(self._dev, self.fn, self.number)
        replay()  # the first replay pays the graph's upload: never timed
        self.timer.synchronize()
        for _ in range(GRAPH_RECALIBRATIONS if self.adaptive else 0):
            net = self.timer.time(replay).elapsed_ns - cal.overhead_ns
            per_call = max(net, 0.0) / self.number
            new = min(_needed_number(per_call, cal.overhead_ns, cal.resolution_ns, self.opts.precision),
                      CALIBRATION_MAX_NUMBER, self._budget_number(per_call))
            if new <= self.number * CALIBRATION_SETTLED_FACTOR:
                break
            self.number = new
            self.calibration = replace(cal, number=new, per_call_estimate_ns=per_call,
                                       reason=cal.reason if cal.reason.endswith("+graph") else cal.reason + "+graph")
            self.phase = "CUDA graph capture"
            replay = _capture_graph(self._dev, self.fn, self.number)
            replay()
            self.timer.synchronize()
        self.run = replay
        return replay

    def _prepare_reference(self) -> None:
        """Loop the reference so that one of its samples lasts about as long as a measured sample."""
        from ..results.reference import REFERENCE_PROBES, reference_number

        assert self.reference is not None and self.calibration is not None
        cal = self.calibration
        self.phase = "reference calibration"
        probe = stats.median([self.timer.time(self.reference).elapsed_ns - cal.overhead_ns
                              for _ in range(REFERENCE_PROBES)])
        self.reference_number = reference_number(self.number * cal.per_call_estimate_ns, probe)
        self.reference_run = loop(self.reference, self.reference_number)

    def take_sample(self) -> None:
        """Set up, then flush (cold cache; right before the clock starts), time one sample, record it
        (then, with a speed reference, time one reference sample)."""
        assert self.run is not None, "call prepare() first"
        self.index = len(self.samples)
        for attempt in range(compiling.RESAMPLE_AFTER_COMPILE + 1):
            self._set_up()
            self._compile_mark = self.compile_log.mark()
            r = self.timer.time(self.run, self.flush)
            # a sample that spanned a compile (a guard failed: a new shape, a new dtype) is seconds of
            # compiler in a column of calls: taken again, the graph is cached by now
            if not self._compiled(r.elapsed_ns) or attempt == compiling.RESAMPLE_AFTER_COMPILE:
                break
            self.resampled += 1
        self._record(r.elapsed_ns, self.number, r.host_ns, r.preempted, r.synced_ns)
        if self.reference_run is not None:
            self.reference_samples.append(self.timer.time(self.reference_run).elapsed_ns)

    def take_block(self, count: int, deadline_ns: float = math.inf) -> float:
        """``count`` samples (fewer once ``deadline_ns`` has passed; at least one); their median
        per-call time (preempted samples set aside)."""
        first = len(self.samples)
        for _ in range(count):
            self.take_sample()
            if self.timer.now_ns() >= deadline_ns:
                break
        per_call = [s / n for s, n in zip(self.samples[first:], self.numbers[first:])]
        pre = self.preempted[first:]
        clean = [v for v, p in zip(per_call, pre) if p <= 0] if self.opts.discard_preempted else per_call
        return float(stats.median(clean if clean else per_call))

    def sample_until_stop(self) -> Stop:
        """Sample until the stopping rule says so (see the module docstring)."""
        opts = self.opts
        self.phase = "sampling"
        deadline = self.deadline_ns
        self.t_sampling = start = self.timer.now_ns()
        precision = opts.precision
        next_settle_check = start + EARLY_STOP_SECONDS * 1e9
        out_of_reach_before = False
        repeats = opts.repeat_count
        base_slice_ns = opts.min_time * 1e9 / repeats
        slice_ns = base_slice_ns
        rep_start, rep_first = start, 0
        while True:
            self.take_sample()
            n = len(self.samples)
            self.report()
            if opts.trials is not None:
                now = self.timer.now_ns()
                if n >= opts.trials:
                    self._close_repeat(rep_first)
                    return Stop("trials", True, precision, (now - start) / 1e9)
                if now >= deadline:  # stopped at the budget: the result says so
                    self._close_repeat(rep_first)
                    self.notes["budget_cut"], self.notes["budget_cut_done"] = "trials", n
                    return Stop("budget", False, precision, (now - start) / 1e9)
                continue
            now = self.timer.now_ns()
            hw = math.inf
            # (only with repetitions: _repeat_has_enough scans the repetition's samples)
            rep_done = repeats > 1 and now - rep_start >= slice_ns and self._repeat_has_enough(rep_first)
            if repeats > 1 and rep_done:
                self._close_repeat(rep_first)
            enough = len(self.repeat_counts) >= repeats if repeats > 1 else True
            if enough and (repeats == 1 or rep_done) and n >= opts.min_samples and now - start >= opts.min_time * 1e9:
                hw = self._half_width()
                if hw <= precision:
                    if repeats == 1:
                        self._close_repeat(rep_first)
                    return Stop("precision", True, precision, (now - start) / 1e9)
            if opts.stop_early and now >= next_settle_check and n >= opts.min_samples:
                next_settle_check = now + EARLY_STOP_CHECK_SECONDS * 1e9
                full = self._final_half_width()
                projected_ns = (now - start) * (full / precision) ** 2
                out_of_reach = full > precision and start + projected_ns > deadline
                if out_of_reach and out_of_reach_before and (repeats == 1 or len(self.repeat_counts) >= repeats):
                    self._close_repeat(rep_first)
                    return Stop("noise", False, precision, (now - start) / 1e9)
                out_of_reach_before = out_of_reach
            if opts.max_samples is not None and n >= opts.max_samples:
                self._close_repeat(rep_first)
                return Stop("max_samples", self._final_half_width() <= precision, precision, (now - start) / 1e9)
            if now >= deadline:
                self._close_repeat(rep_first)
                met = self._final_half_width() <= precision and n >= opts.min_samples
                return Stop("budget", met, precision, (now - start) / 1e9)
            if repeats > 1 and rep_done:
                # the next repetition: its own warm-up and calibration, a slice that grows with the run
                slice_ns = max(base_slice_ns, (now - start) / repeats)
                times = self.rewarm(slice_ns)
                if self.adaptive:
                    self.calibrate(self.overhead_ns, times)
                if self.past_deadline():  # the repetition's warm-up spent the budget: no sample starts after it
                    met = self._final_half_width() <= precision and n >= opts.min_samples
                    return Stop("budget", met, precision, (self.timer.now_ns() - start) / 1e9)
                self.prepare()
                self.phase = "sampling"
                rep_start, rep_first = self.timer.now_ns(), len(self.samples)

    def report(self) -> None:
        """Where the run stands, for a progress line (:mod:`measurefirst.progress`): the repetition, and
        the time spent of the budget (between samples: nothing is timed while it is drawn)."""
        if not progress.active():
            return
        repeats = self.opts.repeat_count
        done = min(len(self.repeat_counts) + 1, repeats) if repeats > 1 else 0
        elapsed_s = (self.timer.now_ns() - self.t_begin) / 1e9
        progress.report("bench", self.label, done, repeats if repeats > 1 else 0, elapsed_s, self.opts.budget)

    def _repeat_has_enough(self, first: int) -> bool:
        """Whether the repetition that began at sample ``first`` has :data:`REPEAT_MIN_SAMPLES` samples that
        were not preempted (its median must come from samples the statistics use), or three times as many
        in all (on a machine that preempts nearly every sample, all are kept)."""
        total = len(self.samples) - first
        clean = sum(1 for p in self.preempted[first:] if p <= 0) if self.opts.discard_preempted else total
        return clean >= REPEAT_MIN_SAMPLES or total >= 3 * REPEAT_MIN_SAMPLES

    def _close_repeat(self, first: int) -> None:
        """End the repetition that began at sample ``first`` (nothing when it is already closed)."""
        if len(self.samples) > first and sum(self.repeat_counts) == first:
            self.repeat_counts.append(len(self.samples) - first)

    def run_to_run(self) -> RunToRun | None:
        """The spread of the finished repetitions' medians (see :func:`repeat_spread`)."""
        per_call = self._used_per_call()
        return repeat_spread(per_call, self.repeat_counts, self._used_mask(per_call))

    def _used_per_call(self) -> list[float]:
        return [s / k for s, k in zip(self.samples, self.numbers)]

    def _used_mask(self, per_call: list[float] | None = None) -> list[bool]:
        per_call = self._used_per_call() if per_call is None else per_call
        return [bool(x) for x in used_mask(tuple(self.preempted), per_call, self.opts.discard_preempted)]

    def _used_in_order(self) -> list[float]:
        per_call = self._used_per_call()
        return [v for v, keep in zip(per_call, self._used_mask(per_call)) if keep]

    def _final_half_width(self) -> float:
        if len(self.repeat_counts) > 1:
            return max(stats.relative_half_width(sorted(self._used_in_order()), presorted=True),
                       stats.batch_half_width(self._level_adjusted()))
        return stats.median_half_width(self._used_in_order())

    def _level_adjusted(self) -> list[float]:
        """The used per-call times with the level shifts between finished repetitions taken out (see
        :func:`stats.level_adjusted`; samples of the repetition under way count as one more group)."""
        used = self._used_mask()
        groups, first = [], 0
        for c in [*self.repeat_counts, len(self.samples) - sum(self.repeat_counts)]:
            groups.append(sum(used[first:first + c]))
            first += c
        return [float(x) for x in stats.level_adjusted(self._used_in_order(), groups)]

    def _record(self, elapsed_ns: float, number: int, host_ns: float | None, preempted: int,
                synced_ns: float | None = None) -> None:
        self.samples.append(elapsed_ns)
        self.numbers.append(number)
        if host_ns is not None:
            self.has_host = True
            self.hosts.append(host_ns)
        if synced_ns is not None:
            self.synced.append(synced_ns)
        self.preempted.append(preempted)
        if preempted >= 0:
            self.has_preempt = True
        per_call = elapsed_ns / number
        bisect.insort(self.sorted_all, per_call)
        if preempted <= 0:
            bisect.insort(self.sorted_clean, per_call)

    def _half_width(self) -> float:
        """The stopping rule's half-width: order statistics after every sample; while that meets
        the target, also the batch-median check (on a schedule: after every sample up to
        :data:`BATCH_CHECK_EVERY_UP_TO` samples, then every 2% more samples)."""
        n = len(self.sorted_all)
        use_clean = (self.opts.discard_preempted
                     and n - len(self.sorted_clean) <= MAX_PREEMPTED_FRACTION_TO_DISCARD * n)
        values = self.sorted_clean if use_clean else self.sorted_all
        hw = stats.relative_half_width(values, presorted=True)
        if len(self.repeat_counts) > 1:  # checked when a repetition ends: the batch check too
            return max(hw, stats.batch_half_width(self._level_adjusted()))
        if hw > self.opts.precision or n < self.batch_check_at:
            return max(hw, self.opts.precision * 1.000001) if n < self.batch_check_at else hw
        batch = stats.batch_half_width(self._used_in_order())
        if batch > self.opts.precision:
            self.batch_check_at = next_batch_check(n)
        return max(hw, batch)

    def result(self, stop: Stop, complete: bool) -> Measurement:
        opts = self.opts
        options = {k: getattr(opts, k) for k in opts.__dataclass_fields__}
        options.update(self.notes)
        n = len(self.samples)
        return Measurement(
            label=self.label, device=self.device, timer=self.timer.kind,
            samples_ns=tuple(self.samples), numbers=tuple(self.numbers),
            host_ns=tuple(self.hosts) if self.has_host and len(self.hosts) == n else None,
            preempted=tuple(self.preempted) if self.has_preempt else None,
            warmup=self.warmup, calibration=self.calibration, stop=stop,
            options=options, env=self.env, complete=complete, discard_preempted=opts.discard_preempted,
            synced_ns=tuple(self.synced) if self.synced and len(self.synced) == n else None,
            reference=None if self.reference_run is None or self.calibration is None else SpeedReference(
                self.reference_label, tuple(self.reference_samples), self.reference_number,
                self.calibration.overhead_ns),
            run_to_run=self.run_to_run() if complete else None,
            repeats=tuple(self.repeat_counts) if len(self.repeat_counts) > 1 and sum(self.repeat_counts) == n
            else None,
            compiled=self.compiled_record(),
        )

    def compiled_record(self) -> Compiled | None:
        """What torch compiled during this run (None: nothing)."""
        if not self.compiles:
            return None
        return Compiled(calls_s=self.compile_ns / 1e9,
                        events=tuple(self.compiles),
                        resampled=self.resampled)

    def partial(self, reason: str) -> Measurement:
        spent = (self.timer.now_ns() - self.t_sampling) / 1e9 if self.samples else 0.0
        return self.result(Stop(reason, False, self.opts.precision, spent), complete=False)


def repeat_spread(per_call: list[float], counts: list[int], used: list[bool]) -> RunToRun | None:
    """The run-to-run spread measured by repetitions (:func:`~measurefirst.results.kinds.spread_from_medians`
    of the repetitions with :data:`REPEAT_MIN_SAMPLES` used samples or more); ``None`` with fewer than two."""
    return spread_from_medians(stats.group_medians(per_call, counts, used, REPEAT_MIN_SAMPLES), "repeats")


def measure(fn: Callable[[], object], timer: Timer, opts: Options, *, label: str, device: str | torch.device,
            env: dict[str, Any] | None = None, setup: Callable[[], object] | None = None,
            cold_ns: float | None = None, notes: dict[str, Any] | None = None,
            reference: Callable[[], object] | None = None, reference_label: str = "",
            cold_compiles: Sequence[CompileEvent] = ()) -> Measurement:
    """Run the measuring loop with an injected timer. :func:`benchmark` is the friendly front end."""
    # a cold call timed by the caller (choose_device) counts against the budget too (unless it compiled)
    t_begin = timer.now_ns() - int(cold_ns or 0)
    state = Sampler(fn, timer, opts, label=label, device=device, env=env, setup=setup, reference=reference,
                    reference_label=reference_label, t_begin=t_begin, cold_compiles=cold_compiles)
    state.notes.update(notes or {})
    gc_was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        state.report()  # a progress line names the run before its warm-up, however long that takes
        overhead = state.measure_overhead()
        state.warm_up(cold_ns)
        state.calibrate(overhead)
        if state.past_deadline():
            return state.result(state.stop_at_deadline(), complete=True)
        state.prepare()
        with compiling.failing_on_recompile(opts.fail_on_recompile):
            stop = state.sample_until_stop()
        return state.result(stop, complete=True)
    except KeyboardInterrupt as exc:
        raise Interrupted(state.partial("interrupted")) from exc
    except BudgetError:
        raise
    except (CompileLimit, RecompileRefused) as exc:
        raise BenchmarkError(
            f"benchmark {label!r}: during {state.phase}, {exc}",
            label=label, phase=state.phase, index=state.index,
            partial=state.partial("error") if state.samples else None) from exc
    except SetupError as exc:
        cause = exc.__cause__ or exc
        raise BenchmarkError(
            f"benchmark {label!r}: setup raised during {state.phase}: {type(cause).__name__}: {cause}",
            label=label, phase="setup", index=state.index,
            partial=state.partial("error") if state.samples else None,
        ) from cause
    except BaseException as exc:  # SystemExit and other BaseExceptions too: the library's own error, with the partial
        where = f" at {state.phase} {state.index}" if state.index is not None else f" during {state.phase}"
        if state.phase == "sampling":
            where = f" at sample {state.index}"
        hint = ""
        if state.phase == "CUDA graph capture":
            hint = " (a CUDA graph cannot capture host syncs such as .item(), .cpu() or print(tensor); drop cuda_graph=True)"
        raise BenchmarkError(
            f"benchmark {label!r}: the function {raised_words(exc)}{where}: {type(exc).__name__}: {exc}{hint}",
            label=label, phase=state.phase, index=state.index,
            partial=state.partial("error") if state.samples else None,
        ) from exc
    finally:
        if gc_was_enabled:
            gc.enable()


def _capture_graph(device: torch.device, fn: Callable[[], object], number: int) -> Callable[[], object]:
    """Capture ``number`` calls of ``fn`` in a CUDA graph on ``device`` (warmed up on a side stream,
    as torch's docs ask), on a capture stream made on that device: torch's default capture stream is
    created once, on whichever GPU was current at its first use."""
    cuda = machine().cuda
    with cuda.device(device):
        side = cuda.Stream(device)
        side.wait_stream(cuda.current_stream(device))
        with cuda.stream(side):
            for _ in range(3):
                fn()
        cuda.current_stream(device).wait_stream(side)
        graph = cuda.CUDAGraph()
        with cuda.graph(graph, stream=cuda.Stream(device)):
            for _ in range(number):
                fn()
        cuda.synchronize(device)

    def replay() -> None:
        with cuda.device(device):
            graph.replay()

    return replay


def choose_device(fns: list[Callable[[], object]], setup: Callable[[], object] | None,
                  device: DeviceLike, *, compiles: list[list[CompileEvent]] | None = None
                  ) -> tuple[torch.device, list[float | None], dict[str, Any]]:
    """Resolve ``device``. For ``"auto"`` on a machine with a GPU, each function's first (cold) call
    is observed: if none of them touched a tensor on the GPU but some touched CPU tensors, the CPU
    is chosen (timing CPU work with GPU events reads nothing); if no tensor op was seen at all, the
    GPU stays and a finding says so. Returns the device, each function's cold-call time (ns, None
    when not observed) and notes for the result's options; ``compiles``, when given, gets what torch
    compiled during each cold call (for :class:`Sampler`'s ``cold_compiles``)."""
    dev = resolve_device(device)
    if not is_auto(device) or dev.type == "cpu":
        return dev, [None] * len(fns), {}
    m = machine()
    sync = synchronizer(dev)
    seen: set[str] = set()
    colds: list[float | None] = []
    for index, fn in enumerate(fns):
        if setup is not None:
            try:
                setup()
            except KeyboardInterrupt:
                raise
            except BaseException as exc:
                raise SetupError(f"setup raised: {type(exc).__name__}: {exc}") from exc
        failed: list[BaseException] = []

        def cold(fn: Callable[[], object] = fn) -> None:
            try:
                with m.observe() as touched:
                    fn()
            except KeyboardInterrupt:
                raise
            except BaseException as exc:
                failed.append(exc)
                return
            seen.update(touched)

        log = compiling.log_for(None)
        mark = log.mark()
        elapsed = host_time(cold, sync)
        if failed:
            raise ColdCallError(index) from failed[0]
        colds.append(elapsed)
        if compiles is not None:
            compiles.append(log.since(mark))
    # what "auto" chose, as a code: "device" (the call worked there), "cpu" (it touched only tensors of
    # the types in "auto_device_seen"), "none" (no tensor op at all)
    if dev.type in seen:
        return dev, colds, {"auto_device": "device", "auto_device_seen": sorted(seen)}
    if seen:
        return torch.device("cpu"), colds, {"auto_device": "cpu", "auto_device_seen": sorted(seen)}
    return dev, colds, {"auto_device": "none", "auto_device_seen": []}


def check_function(fn: object, what: str = "benchmark()") -> None:
    """Refuse what cannot be timed by calling it: a non-callable, or a generator or coroutine function
    (calling one only creates the generator or coroutine, so the time would be that of creating it)."""
    import inspect

    if not callable(fn):
        raise TypeError(f"{what} needs a callable that takes no arguments, such as `lambda: a @ b`; "
                        f"got {type(fn).__name__}. Wrap an expression in a lambda.")
    if inspect.isgeneratorfunction(fn) or inspect.iscoroutinefunction(fn) or inspect.isasyncgenfunction(fn):
        kind = "a coroutine function" if inspect.iscoroutinefunction(fn) else "a generator function"
        raise TypeError(f"{what}: {getattr(fn, '__name__', 'the function')} is {kind}: calling it only creates a "
                        f"{kind.split()[1]} object, so the time would be that of creating it; time a function that "
                        f"runs it to the end (e.g. `lambda: list(gen())` or `lambda: asyncio.run(coro())`)")


def check_label(label: object) -> None:
    """A label is text (or None for the function's name)."""
    if label is not None and not isinstance(label, str):
        raise TypeError(f"label must be a string such as 'matmul 512'; got {type(label).__name__}")


def check_timer(timer: object) -> None:
    """Refuse anything but a timer name or a Timer instance, naming the choices."""
    if isinstance(timer, str):
        if timer not in TIMER_CHOICES:
            raise ValueError(f"timer must be one of {', '.join(TIMER_CHOICES)} or a Timer; got {timer!r}")
    elif not isinstance(timer, Timer):
        raise TypeError(f"timer must be 'auto', 'wall', 'event' or a Timer instance; got {type(timer).__name__}")


def _count(fn: Callable[[], object], event: str, *, device: DeviceLike, label: str | None,
           setup: Callable[[], object] | None, warmup: int | None, trials: int | None, number: int | None,
           cold_cache: bool, cuda_graph: bool, timer: str | Timer, reference: bool | Callable[[], object]) -> Count:
    """``benchmark(..., count=...)``: count instead of timing (see :mod:`measurefirst.measure.counting`)."""
    from . import counting

    if not isinstance(event, str) or event not in counting.EVENTS:
        raise ValueError(f"count must be one of {', '.join(repr(e) for e in counting.EVENTS)}; got {event!r}")
    unsupported = [name for name, given in (("setup", setup is not None), ("cold_cache", cold_cache),
                                            ("cuda_graph", cuda_graph), ("timer", timer != "auto"),
                                            ("reference", reference is not False)) if given]
    if unsupported:
        raise ValueError(f"count={event!r} counts calls of the function alone in a fresh process; drop "
                         f"{', '.join(unsupported)} (build inputs when the function's module is imported)")
    dev = torch.device("cpu") if is_auto(device) else resolve_device(device)
    if dev.type != "cpu":
        raise ValueError(f"count={event!r} counts CPU instructions; device {dev} work is not counted: pass "
                         "device='cpu' (or time it on the device instead)")
    name = label or default_label(fn)
    try:
        return counting.count_events(
            fn, label=name, event=event, calls=counting.DEFAULT_CALLS if number is None else number,
            repeats=counting.DEFAULT_REPEATS if trials is None else trials,
            warmup=counting.DEFAULT_WARMUP if warmup is None else warmup, env=environment(dev))
    except counting.CountedCallRaised as exc:
        raise BenchmarkError(f"benchmark {name!r}: the function raised while counting: {exc}", label=name,
                             phase="counting", index=None) from None


class BenchmarkOptions(TypedDict, total=False):
    """The keywords of :func:`benchmark` besides ``count``, each with its type: written once here. The
    engine's knobs (:class:`Options`'s fields, same names and types) take :class:`Options`'s defaults,
    the others :data:`CALL_DEFAULTS`; benchmark's typing overloads and its run-time signature
    (``inspect.signature``, ``help``) are made from this table."""

    device: DeviceLike
    label: str | None
    setup: Callable[[], object] | None
    precision: float
    budget: float
    min_time: float
    min_samples: int
    max_samples: int | None
    warmup: int | None
    trials: int | None
    number: int | None
    warmup_min_time: float
    warmup_max_time: float
    cold_cache: bool
    cuda_graph: bool
    timer: str | Timer
    discard_preempted: bool
    stop_early: bool
    reference: bool | Callable[[], object]
    repeats: int | None
    compile_limit: float
    fail_on_recompile: bool
    compile: bool | str
    processes: int | None
    noise_profile: NoiseProfile | Literal[False] | None


#: The defaults of benchmark()'s keywords that are not engine knobs (those are :class:`Options`'s).
CALL_DEFAULTS: BenchmarkOptions = {"device": "auto", "label": None, "setup": None, "timer": "auto",
                                   "reference": False, "compile": False, "processes": None, "noise_profile": None}
#: Every keyword benchmark() takes besides ``count``, in the order of its signature.
BENCHMARK_KEYWORDS: tuple[str, ...] = tuple(BenchmarkOptions.__annotations__)


@overload
def benchmark(fn: Callable[[], object], *, count: None = None, **options: Unpack[BenchmarkOptions]) -> Measurement: ...


@overload
def benchmark(fn: Callable[[], object], *, count: str, **options: Unpack[BenchmarkOptions]) -> Count: ...


def benchmark(fn: Callable[[], object], *, count: str | None = None,
              **options: Unpack[BenchmarkOptions]) -> Measurement | Count:
    """Measure how long ``fn()`` takes, correctly: warmed up, synchronized, calibrated, adaptive.

    Every keyword is optional: its type is in :class:`BenchmarkOptions`, its default is :class:`Options`'s
    (the engine's knobs, from :mod:`measurefirst.results.defaults`) or :data:`CALL_DEFAULTS`'s, and
    ``help(benchmark)`` (``inspect.signature``) shows the whole signature with the defaults.

    Args:
        fn: a callable taking no arguments, e.g. ``lambda: a @ b``.
        device: ``"auto"`` (cuda, then mps, then cpu; on a GPU machine the first call is observed, and a
            function that touches only CPU tensors is timed on the CPU), ``"cpu"``, ``"cuda"``, ``"cuda:1"``, ``"mps"``
            or a ``torch.device``: the device to synchronize and to time on.
        label: name in reports (default: the function's name).
        setup: called before every sample, not timed. With ``cuda_graph=True`` the graph replays the
            tensors it captured: a setup that makes *new* tensors (``x = torch.randn(...)``) is not seen
            by the replays; write into the captured ones instead (``x.copy_(...)``, ``x.normal_()``).
        precision: stop once the 95% CI of the median is within ±precision (relative).
        budget: seconds after which sampling stops whatever the precision (warm-up included).
        min_time, min_samples: sampling lasts at least this long and this many samples.
        max_samples: stop after this many samples.
        warmup, trials: fixed counts (``warmup=3, trials=10`` is the classic loop).
        number: calls per sample; default: calibrated from the measured overhead.
        warmup_min_time, warmup_max_time: bounds on adaptive warm-up, in seconds.
        cold_cache: flush the last-level cache before every sample (after ``setup``, so a setup that
            touches the inputs cannot warm them again): twice the GPU L2 / Apple SLC / CPU LLC.
        cuda_graph: capture ``number`` calls in a CUDA graph and time its replays.
        timer: ``"auto"`` (events on GPUs, wall clock on the CPU), ``"wall"``, ``"event"``, or a
            :class:`~measurefirst.measure.timers.Timer` instance (tests inject a simulated one).
        discard_preempted: set aside samples during which the OS preempted the process.
        stop_early: stop after about a second when the interval has settled wider than ``precision``
            and would not reach it within the budget (reason ``"noise"``); False uses the whole budget.
        reference: experimental. Interleave a fixed reference workload (``True``: a pure-Python
            integer loop; or your own callable) with the samples, and report next to the raw estimate
            the estimate normalized to the machine's fast state, with the speed factor
            (``m.reference``; see :mod:`measurefirst.results.reference`). The raw statistics do not change.
        repeats: independent repetitions inside the call, each with its own warm-up and calibration
            (default 5; 1 with ``trials``). Their spread is the measured run-to-run spread
            (``m.run_to_run``) that the headline interval ``m.ci`` holds beside this run's precision
            (``m.precision_ci``). ``repeats=1`` measures no spread: ``m.ci`` is then the precision alone.
        count: ``"instructions"`` counts instead of timing: the user-space instructions per call, in a
            fresh process (hardware counters, else valgrind's callgrind), for CI gates; returns a
            :class:`~measurefirst.results.kinds.Count`. ``number`` sets the calls per repeat (default 10),
            ``trials`` the repeats (default 3), ``warmup`` the uncounted calls first (default 3); see
            :mod:`measurefirst.measure.counting`.
        compile: ``True`` or a ``torch.compile`` mode (``"reduce-overhead"``, ``"max-autotune"``, ...): time
            ``torch.compile(fn, mode=...)`` instead of ``fn`` (labelled ``fn (compiled)``). Whether or
            not measurefirst compiled it, a call during which torch compiled is kept off the budget and out
            of the samples, and the result shows the compile apart (``m.compiled``; see
            :mod:`measurefirst.measure.compiling`).
        compile_limit: seconds of calls that compiled, in all, before the run stops with an error naming
            this option (default 1800).
        fail_on_recompile: refuse to measure through a recompile while sampling (torch's own
            ``fail_on_recompile`` stance; its error names the guard) instead of taking the sample again.
        processes: measure in this many fresh interpreters (with ``compile=``: each compiles ``fn``, all on an
            inductor cache made empty for the call, so the first shows a cold compile and the next ones a
            warm one: ``m.compiled.per_process``), one after the other, each with ``budget /
            processes`` of the budget (their start-up not counted), merged into one Measurement whose
            run-to-run spread comes from the processes (source ``"processes"``); ``fn`` (and ``setup``)
            must be module-level functions (see :mod:`measurefirst.measure.workers`).
        noise_profile: the machine's noise profile applied to the run-to-run spread (see
            :mod:`measurefirst.measure.noise`): None (default) uses the one ``measurefirst selfcheck --noise``
            saved for this machine, on the real CPU clock only; a :class:`~measurefirst.measure.noise.NoiseProfile`
            is applied whatever the timer; False applies none.

    Returns:
        a :class:`~measurefirst.results.kinds.Measurement` (a :class:`~measurefirst.results.kinds.Count` with ``count``).

    Raises:
        TypeError: ``fn`` is not callable.
        ValueError: an invalid option.
        DeviceError: the device is unavailable.
        BenchmarkError: ``fn`` raised (with ``.partial`` results).
        Interrupted: Ctrl-C, a ``KeyboardInterrupt`` with ``.partial``.
    """
    call = _checked_call(fn, count, options)
    label, setup, timer, device = call["label"], call["setup"], call["timer"], call["device"]
    if count is not None:
        return _count(fn, count, device=device, label=label, setup=setup, warmup=call.get("warmup"),
                      trials=call.get("trials"), number=call.get("number"), cold_cache=call.get("cold_cache", False),
                      cuda_graph=call.get("cuda_graph", False), timer=timer, reference=call["reference"])
    opts = engine_options(options)
    check_timer(timer)
    ref_fn, ref_label = _reference(call["reference"])
    label = label or default_label(fn)
    mode = compiling.check_compile(call["compile"])
    if mode is not None:
        label = label if call["label"] else compiling.compiled_label(label, mode)
    if call["processes"] is not None:  # each worker compiles fn itself, on a fresh inductor cache they share
        from . import workers

        return _with_profile(workers.run(fn, call["processes"], opts, label=label, device=device, setup=setup,
                                         timer=timer, reference=call["reference"], failed=BenchmarkError,
                                         interrupted=Interrupted, compile=mode), call["noise_profile"], timer)
    if mode is not None:
        fn = compiling.compiled(fn, mode)
    cold_compiles: list[list[CompileEvent]] = []
    dev, the_timer, cold_ns, notes = _device_and_timer(fn, setup, device, timer, label, cold_compiles)
    if opts.cuda_graph and setup is not None:
        notes["setup_given"] = True
    if opts.cuda_graph and dev.type != "cuda":
        raise ValueError(f"cuda_graph=True needs a CUDA device; the device is {dev}")
    m = measure(fn, the_timer, opts, label=label, device=dev, env=environment(dev), setup=setup, cold_ns=cold_ns,
                notes=notes, reference=ref_fn, reference_label=ref_label,
                cold_compiles=cold_compiles[0] if cold_compiles else ())
    return _with_profile(m, call["noise_profile"], timer)


def _signature() -> inspect.Signature:
    """benchmark()'s signature as ``inspect`` and ``help`` show it, made from :class:`BenchmarkOptions`."""
    engine = Options()
    annotations = {name: getattr(hint, "__forward_arg__", hint) for name, hint in BenchmarkOptions.__annotations__.items()}
    keyword = inspect.Parameter.KEYWORD_ONLY
    return inspect.Signature(
        [inspect.Parameter("fn", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation="Callable[[], object]")]
        + [inspect.Parameter(name, keyword, annotation=annotations[name],
                             default=CALL_DEFAULTS[name] if name in CALL_DEFAULTS else getattr(engine, name))  # type: ignore[literal-required]
           for name in BENCHMARK_KEYWORDS]
        + [inspect.Parameter("count", keyword, annotation="str | None", default=None)],
        return_annotation="Measurement | Count")


benchmark.__signature__ = _signature()  # type: ignore[attr-defined]


def _checked_call(fn: object, count: object, options: BenchmarkOptions) -> BenchmarkOptions:
    """benchmark()'s keywords with the defaults filled in, after refusing what cannot be run: an unknown
    keyword (naming the nearest one), a function that cannot be timed, a bad label or setup."""
    unknown = [name for name in options if name not in BENCHMARK_KEYWORDS]
    if unknown:
        import difflib

        near = difflib.get_close_matches(unknown[0], (*BENCHMARK_KEYWORDS, "count"), n=1)
        hint = f"did you mean {near[0]!r}?" if near else f"the keywords are: {', '.join(BENCHMARK_KEYWORDS)}, count"
        raise TypeError(f"benchmark() got an unexpected keyword argument {unknown[0]!r}; {hint}")
    check_function(fn)
    call: BenchmarkOptions = {**CALL_DEFAULTS, **options}
    check_label(call["label"])
    setup = call["setup"]
    if setup is not None and not callable(setup):
        raise TypeError(f"setup must be a callable taking no arguments; got {type(setup).__name__}")
    if count is not None and call["processes"] is not None:
        raise ValueError(f"count={count!r} already counts in a fresh process; drop processes=...")
    compiling.check_compile(call["compile"])
    return call


def engine_options(options: BenchmarkOptions) -> Options:
    """The engine's knobs among benchmark()'s keywords, validated (defaults: :class:`Options`'s)."""
    knobs: dict[str, Any] = {name: value for name, value in options.items() if name in Options.__dataclass_fields__}
    return Options(**knobs)


def _device_and_timer(fn: Callable[[], object], setup: Callable[[], object] | None, device: DeviceLike,
                      timer: str | Timer, label: str, compiles: list[list[CompileEvent]] | None = None
                      ) -> tuple[torch.device, Timer, float | None, dict[str, Any]]:
    """The device and the timer to measure with, the cold call's time (ns; None when not observed) and
    the notes for the result's options. A timer given by name is made for the device that
    :func:`choose_device` resolves (observing the cold call for ``"auto"``); a timer instance is used as
    given."""
    if not isinstance(timer, str):
        return resolve_device(device), timer, None, {}
    try:
        dev, colds, notes = choose_device([fn], setup, device, compiles=compiles)
    except KeyboardInterrupt as exc:
        raise Interrupted(None) from exc
    except (SetupError, ColdCallError) as exc:
        cause = exc.__cause__ or exc
        what = "setup" if isinstance(exc, SetupError) else "the function"
        raise BenchmarkError(f"benchmark {label!r}: {what} raised during cold call: {type(cause).__name__}: "
                             f"{cause}", label=label, phase="setup" if isinstance(exc, SetupError) else "cold call",
                             index=0) from cause
    return dev, make_timer(dev, timer), colds[0], notes


def _with_profile(m: Measurement, noise_profile: "NoiseProfile | Literal[False] | None",
                  timer: str | Timer) -> Measurement:
    """``m`` with the machine's noise profile applied to its run-to-run spread (see :mod:`measurefirst.measure.noise`)."""
    from .noise import for_benchmark

    return for_benchmark(m, noise_profile, real_clock=isinstance(timer, str), threads=torch.get_num_threads())


def _reference(reference: bool | Callable[[], object]) -> tuple[Callable[[], object] | None, str]:
    """The speed reference's call and label (``True``: the built-in one; ``False``: none)."""
    if reference is False:
        return None, ""
    if reference is True:
        from ..results.reference import BUILTIN_LABEL, reference_work

        return reference_work, BUILTIN_LABEL
    if not callable(reference):
        raise TypeError(f"reference must be True, False or a callable taking no arguments; got {type(reference).__name__}")
    return reference, default_label(reference)
