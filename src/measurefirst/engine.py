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
  minority (:data:`~measurefirst.results.MAX_PREEMPTED_FRACTION_TO_DISCARD`).
* **Fixed mode.** ``warmup=W`` makes exactly W untimed-for-statistics calls (the first of them is
  the cold call); ``trials=T`` takes exactly T samples, ignoring precision and budget. Together they
  reproduce the classic ``warmup=3, trials=10`` loop.
"""

from __future__ import annotations

import bisect
import gc
import itertools
import math
from dataclasses import dataclass, replace
from typing import Any, Callable

import torch

from . import stats
from .devices import DeviceLike, environment, last_level_cache_bytes, resolve_device
from .findings import OVERHEAD_SHARE, assess
from .results import (
    MAX_PREEMPTED_FRACTION_TO_DISCARD,
    Calibration,
    Measurement,
    Stop,
    Warmup,
    used_mask,
)
from .timers import TIMER_CHOICES, Timer, make_timer

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
#: On the CPU the cold-cache buffer is this many times the last-level cache.
CPU_FLUSH_FACTOR = 2


class BenchmarkError(RuntimeError):
    """The benchmarked function (or its setup) raised. ``partial`` holds what was measured before
    (a Measurement from benchmark(), a Comparison from compare(); None if nothing was)."""

    def __init__(self, message: str, *, label: str, phase: str, index: int | None,
                 partial: Any = None) -> None:
        super().__init__(message)
        self.label = label
        self.phase = phase
        self.index = index
        self.partial = partial


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a benchmark. ``measurement`` holds what was measured so far, marked incomplete
    (a Measurement from benchmark(), a Comparison from compare())."""

    def __init__(self, measurement: Any) -> None:
        super().__init__("benchmark interrupted")
        self.measurement = measurement


@dataclass(frozen=True)
class Options:
    """Every knob of the engine, validated at construction (see the module docstring for the rules)."""

    precision: float = 0.01
    budget: float = 5.0
    min_time: float = 0.2
    min_samples: int = 10
    max_samples: int | None = None
    warmup: int | None = None
    trials: int | None = None
    number: int | None = None
    warmup_min_time: float = 0.05
    warmup_max_time: float = 1.0
    cold_cache: bool = False
    cuda_graph: bool = False
    discard_preempted: bool = True

    def __post_init__(self) -> None:
        def positive(name: str, value: float) -> None:
            if (not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value)
                    or not value > 0):
                raise ValueError(f"{name} must be a positive, finite number; got {value!r}")

        def non_negative(name: str, value: float) -> None:
            if (not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value)
                    or not value >= 0):
                raise ValueError(f"{name} must be zero or a positive, finite number; got {value!r}")

        def count(name: str, value: int | None, minimum: int) -> None:
            if value is None:
                return
            if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
                raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}")

        positive("precision", self.precision)
        if self.precision >= 1:
            raise ValueError(f"precision is a relative half-width such as 0.01 (1%); got {self.precision!r}")
        positive("budget", self.budget)
        non_negative("min_time", self.min_time)
        non_negative("warmup_min_time", self.warmup_min_time)
        non_negative("warmup_max_time", self.warmup_max_time)
        count("min_samples", self.min_samples, 1)
        count("max_samples", self.max_samples, 1)
        count("warmup", self.warmup, 0)
        count("trials", self.trials, 1)
        count("number", self.number, 1)
        if self.cold_cache and self.number not in (None, 1):
            raise ValueError("cold_cache times each call alone after a cache flush; drop number=... (or use number=1)")
        if self.cold_cache and self.cuda_graph:
            raise ValueError("cold_cache and cuda_graph cannot be combined: a graph replays many calls without flushes")


def default_label(fn: Callable[..., Any]) -> str:
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__
    return "lambda" if name == "<lambda>" else str(name)


def _loop(fn: Callable[[], object], number: int) -> Callable[[], None]:
    if number == 1:
        return fn  # type: ignore[return-value]
    repeat = itertools.repeat

    def loop() -> None:
        for _ in repeat(None, number):
            fn()

    return loop


def _needed_number(per_call_ns: float, overhead_ns: float, resolution_ns: float, precision: float) -> int:
    """Smallest loop count for which overhead and resolution each bias a sample by at most
    ``OVERHEAD_SHARE * precision``."""
    limit = OVERHEAD_SHARE * precision
    per_call_ns = max(per_call_ns, 1e-3)
    need = max(overhead_ns, resolution_ns) / (limit * per_call_ns)
    return max(1, math.ceil(need - 1e-9))


#: See :meth:`_Run._half_width`.
BATCH_CHECK_EVERY_UP_TO = 100


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


class _Run:
    """Mutable state of one benchmark while it runs; turned into a Measurement at the end."""

    def __init__(self, fn: Callable[[], object], timer: Timer, opts: Options, label: str,
                 device: str, env: dict[str, Any], setup: Callable[[], object] | None,
                 flush: Callable[[], object] | None,
                 capture: Callable[[Callable[[], object], int], Callable[[], object]] | None) -> None:
        self.fn, self.timer, self.opts, self.label = fn, timer, opts, label
        self.device, self.env, self.setup, self.flush, self.capture = device, env, setup, flush, capture
        self.phase = "start"
        self.index: int | None = None
        self.samples: list[float] = []
        self.numbers: list[int] = []
        self.hosts: list[float] = []
        self.preempted: list[int] = []
        self.sorted_all: list[float] = []
        self.sorted_clean: list[float] = []
        self.batch_check_at = 0  # the batch-median check runs again once there are this many samples
        self.warmup: Warmup | None = None
        self.calibration: Calibration | None = None
        self.t_begin = timer.now_ns()
        self.t_sampling = self.t_begin
        self.has_host = False
        self.has_preempt = False

    # -- phases --------------------------------------------------------------------------------
    def elapsed_s(self) -> float:
        return (self.timer.now_ns() - self.t_begin) / 1e9

    def _time_call(self, run: Callable[[], object]) -> float:
        if self.setup is not None:
            self.setup()
        return self.timer.time(run).elapsed_ns

    def measure_overhead(self) -> float:
        self.phase = "overhead"

        def empty() -> None:
            return None

        return stats.median([self.timer.time(empty).elapsed_ns for _ in range(OVERHEAD_REPS)])

    def do_warmup(self) -> None:
        opts, times = self.opts, []
        t0 = self.timer.now_ns()
        cold: float | None = None
        if opts.warmup is not None:
            self.phase = "warm-up"
            for i in range(opts.warmup):
                self.index = i
                t = self._time_call(self.fn)
                if i == 0:
                    cold = t
                else:
                    times.append(t)
            self.warmup = Warmup(cold, max(opts.warmup - 1, 0), tuple(times), True,
                                 (self.timer.now_ns() - t0) / 1e9, f"fixed: {opts.warmup} calls")
            return
        self.phase, self.index = "cold call", 0
        cold = self._time_call(self.fn)
        self.phase = "warm-up"
        cap_ns = min(opts.warmup_max_time, WARMUP_BUDGET_SHARE * opts.budget) * 1e9
        min_ns = min(opts.warmup_min_time * 1e9, cap_ns)
        w0 = self.timer.now_ns()
        steady = False
        while True:
            self.index = len(times) + 1
            times.append(self._time_call(self.fn))
            spent = self.timer.now_ns() - w0
            falling = _warmup_falling(times)
            if len(times) >= WARMUP_MIN_CALLS and spent >= min_ns and not falling:
                steady = True
                break
            if spent >= cap_ns:
                steady = not falling
                break
        rule = (f"until steady: >= {WARMUP_MIN_CALLS} calls and {min_ns / 1e9:g} s, last {WARMUP_WINDOW} "
                f"calls' median not {WARMUP_TOLERANCE:.0%} below the {WARMUP_WINDOW} before; cap {cap_ns / 1e9:g} s")
        self.warmup = Warmup(cold, len(times), tuple(times), steady, (self.timer.now_ns() - t0) / 1e9, rule)

    def calibrate(self, overhead_ns: float) -> int:
        opts = self.opts
        res = float(self.timer.resolution_ns)
        recent = list(self.warmup.times_ns[-WARMUP_WINDOW:]) if self.warmup and self.warmup.times_ns else []
        if not recent and self.warmup and self.warmup.cold_ns is not None:
            recent = [self.warmup.cold_ns]
        estimate = max(stats.median(recent) - overhead_ns, 0.0) if recent else 0.0
        if opts.number is not None:
            number, reason = opts.number, "fixed by the caller"
        elif opts.cold_cache:
            number, reason = 1, "cold cache: each call timed alone after a flush"
        elif opts.trials is not None and opts.warmup is not None:
            number, reason = 1, "fixed mode: one call per trial"
        else:
            self.phase = "calibration"
            # A call shorter than the overhead cannot be estimated from single calls: grow the
            # count tenfold until a trial sample's net time is at least the overhead.
            number = 1 if estimate < overhead_ns else _needed_number(estimate, overhead_ns, res, opts.precision)
            rounds = 0
            for attempt in range(CALIBRATION_MAX_TRIALS):
                self.index = attempt
                sample = self._time_call(_loop(self.fn, number))
                net = sample - overhead_ns
                if net < max(overhead_ns, res) and number < CALIBRATION_MAX_NUMBER:
                    number = min(number * 10, CALIBRATION_MAX_NUMBER)
                    continue
                estimate = max(net, 0.0) / number
                new = _needed_number(estimate, overhead_ns, res, opts.precision)
                settled = max(new, number) / min(new, number) < CALIBRATION_SETTLED_FACTOR
                number = min(new, CALIBRATION_MAX_NUMBER)
                rounds += 1
                if settled or rounds >= CALIBRATION_ROUNDS:
                    break
            reason = (f"smallest count with overhead and resolution each under "
                      f"{OVERHEAD_SHARE * opts.precision:.2%} of a sample")
        self.calibration = Calibration(number, overhead_ns, res, estimate, OVERHEAD_SHARE * opts.precision, reason)
        return number

    def sample(self, run: Callable[[], object], number: int) -> Stop:
        opts = self.opts
        self.phase = "sampling"
        deadline = self.t_begin + opts.budget * 1e9
        self.t_sampling = start = self.timer.now_ns()
        precision = opts.precision
        while True:
            self.take_sample(run, number)
            n = len(self.samples)
            if opts.trials is not None:
                if n >= opts.trials:
                    return Stop("trials", True, precision, (self.timer.now_ns() - start) / 1e9)
                continue
            now = self.timer.now_ns()
            hw = math.inf
            if n >= opts.min_samples and now - start >= opts.min_time * 1e9:
                hw = self._half_width()
                if hw <= precision:
                    return Stop("precision", True, precision, (now - start) / 1e9)
            if opts.max_samples is not None and n >= opts.max_samples:
                return Stop("max_samples", self._final_half_width() <= precision, precision, (now - start) / 1e9)
            if now >= deadline:
                met = self._final_half_width() <= precision and n >= opts.min_samples
                return Stop("budget", met, precision, (now - start) / 1e9)

    def take_sample(self, run: Callable[[], object], number: int) -> None:
        """Flush (cold cache), set up, time one sample of ``number`` calls, and record it."""
        self.index = len(self.samples)
        if self.flush is not None:
            self.flush()
        if self.setup is not None:
            self.setup()
        r = self.timer.time(run)
        self._record(r.elapsed_ns, number, r.host_ns, r.preempted)

    def _used_in_order(self) -> list[float]:
        per_call = [s / k for s, k in zip(self.samples, self.numbers)]
        mask = used_mask(tuple(self.preempted), len(per_call), self.opts.discard_preempted)
        return [v for v, keep in zip(per_call, mask) if keep]

    def _final_half_width(self) -> float:
        return stats.median_half_width(self._used_in_order())

    def _record(self, elapsed_ns: float, number: int, host_ns: float | None, preempted: int) -> None:
        self.samples.append(elapsed_ns)
        self.numbers.append(number)
        if host_ns is not None:
            self.has_host = True
            self.hosts.append(host_ns)
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
        if hw > self.opts.precision or n < self.batch_check_at:
            return max(hw, self.opts.precision * 1.000001) if n < self.batch_check_at else hw
        batch = stats.batch_half_width(self._used_in_order())
        if batch > self.opts.precision:
            self.batch_check_at = next_batch_check(n)
        return max(hw, batch)

    def result(self, stop: Stop, complete: bool) -> Measurement:
        opts = self.opts
        options = {k: getattr(opts, k) for k in opts.__dataclass_fields__}
        m = Measurement(
            label=self.label, device=self.device, timer=self.timer.kind,
            samples_ns=tuple(self.samples), numbers=tuple(self.numbers),
            host_ns=tuple(self.hosts) if self.has_host and len(self.hosts) == len(self.samples) else None,
            preempted=tuple(self.preempted) if self.has_preempt else None,
            warmup=self.warmup, calibration=self.calibration, stop=stop,
            options=options, env=self.env, complete=complete, discard_preempted=opts.discard_preempted,
        )
        findings = assess(m, min_samples=opts.min_samples, fixed_trials=opts.trials is not None)
        return replace(m, warnings=findings)

    def partial(self, reason: str) -> Measurement:
        spent = (self.timer.now_ns() - self.t_sampling) / 1e9 if self.samples else 0.0
        return self.result(Stop(reason, False, self.opts.precision, spent), complete=False)


def measure(fn: Callable[[], object], timer: Timer, opts: Options, *, label: str, device: str,
            env: dict[str, Any] | None = None, setup: Callable[[], object] | None = None,
            flush: Callable[[], object] | None = None,
            capture: Callable[[Callable[[], object], int], Callable[[], object]] | None = None) -> Measurement:
    """Run the measuring loop with an injected timer. :func:`benchmark` is the friendly front end."""
    state = _Run(fn, timer, opts, label, device, env or {}, setup, flush, capture)
    gc_was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        overhead = state.measure_overhead()
        state.do_warmup()
        number = state.calibrate(overhead)
        run: Callable[[], object] = _loop(fn, number)
        if capture is not None:
            state.phase, state.index = "CUDA graph capture", None
            run = capture(fn, number)
        stop = state.sample(run, number)
        return state.result(stop, complete=True)
    except KeyboardInterrupt as exc:
        raise Interrupted(state.partial("interrupted")) from exc
    except Exception as exc:
        where = f" at {state.phase} {state.index}" if state.index is not None else f" during {state.phase}"
        if state.phase == "sampling":
            where = f" at sample {state.index}"
        hint = ""
        if state.phase == "CUDA graph capture":
            hint = " (a CUDA graph cannot capture host syncs such as .item(), .cpu() or print(tensor); drop cuda_graph=True)"
        raise BenchmarkError(
            f"benchmark {label!r}: the function raised{where}: {type(exc).__name__}: {exc}{hint}",
            label=label, phase=state.phase, index=state.index,
            partial=state.partial("error") if state.samples else None,
        ) from exc
    finally:
        if gc_was_enabled:
            gc.enable()


def _make_flush(device: torch.device) -> Callable[[], object]:
    if device.type == "cuda":
        nbytes = last_level_cache_bytes(device)  # exactly the L2, as nvbench does
        buf = torch.empty(nbytes // 4, dtype=torch.int32, device=device)
        return buf.zero_
    nbytes = CPU_FLUSH_FACTOR * last_level_cache_bytes(device)
    buf = torch.zeros(nbytes // 4, dtype=torch.int32, device=device)

    def flush() -> None:
        buf.add_(1)  # read and write every line, evicting what the function left in cache

    return flush


def _cuda_graph_capture(device: torch.device) -> Callable[[Callable[[], object], int], Callable[[], object]]:
    """Capture on ``device`` (not whichever GPU happens to be current), replay there too."""

    def capture(fn: Callable[[], object], number: int) -> Callable[[], object]:
        with torch.cuda.device(device):
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(3):
                    fn()
            torch.cuda.current_stream().wait_stream(side)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                for _ in range(number):
                    fn()
            torch.cuda.synchronize(device)

        def replay() -> None:
            with torch.cuda.device(device):
                graph.replay()

        return replay

    return capture


def benchmark(
    fn: Callable[[], object],
    *,
    device: DeviceLike = "auto",
    label: str | None = None,
    setup: Callable[[], object] | None = None,
    precision: float = 0.01,
    budget: float = 5.0,
    min_time: float = 0.2,
    min_samples: int = 10,
    max_samples: int | None = None,
    warmup: int | None = None,
    trials: int | None = None,
    number: int | None = None,
    warmup_min_time: float = 0.05,
    warmup_max_time: float = 1.0,
    cold_cache: bool = False,
    cuda_graph: bool = False,
    timer: str | Timer = "auto",
    discard_preempted: bool = True,
) -> Measurement:
    """Measure how long ``fn()`` takes, correctly: warmed up, synchronized, calibrated, adaptive.

    Args:
        fn: a callable taking no arguments, e.g. ``lambda: a @ b``.
        device: ``"auto"`` (cuda, then mps, then cpu), ``"cpu"``, ``"cuda"``, ``"cuda:1"``, ``"mps"``
            or a ``torch.device``: the device to synchronize and to time on.
        label: name in reports (default: the function's name).
        setup: called before every sample, not timed.
        precision: stop once the 95% CI of the median is within ±precision (relative).
        budget: seconds after which sampling stops whatever the precision (warm-up included).
        min_time, min_samples: sampling lasts at least this long and this many samples.
        max_samples: stop after this many samples.
        warmup, trials: fixed counts (``warmup=3, trials=10`` is the classic loop).
        number: calls per sample; default: calibrated from the measured overhead.
        warmup_min_time, warmup_max_time: bounds on adaptive warm-up, in seconds.
        cold_cache: flush the last-level cache (GPU L2 / CPU LLC) before every sample.
        cuda_graph: capture ``number`` calls in a CUDA graph and time its replays.
        timer: ``"auto"`` (events on GPUs, wall clock on the CPU), ``"wall"``, ``"event"``, or a
            :class:`~measurefirst.timers.Timer` instance (tests inject a simulated one).
        discard_preempted: set aside samples during which the OS preempted the process.

    Returns:
        a :class:`~measurefirst.results.Measurement`.

    Raises:
        TypeError: ``fn`` is not callable. ValueError: an invalid option. DeviceError: the device is
        unavailable. BenchmarkError: ``fn`` raised (with ``.partial`` results). Interrupted: Ctrl-C
        (a ``KeyboardInterrupt`` with ``.measurement``).
    """
    if not callable(fn):
        raise TypeError(
            f"benchmark() needs a callable that takes no arguments, such as `lambda: a @ b`; "
            f"got {type(fn).__name__}. Wrap an expression in a lambda."
        )
    if setup is not None and not callable(setup):
        raise TypeError(f"setup must be a callable taking no arguments; got {type(setup).__name__}")
    opts = Options(precision=precision, budget=budget, min_time=min_time, min_samples=min_samples,
                   max_samples=max_samples, warmup=warmup, trials=trials, number=number,
                   warmup_min_time=warmup_min_time, warmup_max_time=warmup_max_time,
                   cold_cache=cold_cache, cuda_graph=cuda_graph, discard_preempted=discard_preempted)
    dev = resolve_device(device)
    if isinstance(timer, str):
        if timer not in TIMER_CHOICES:
            raise ValueError(f"timer must be one of {', '.join(TIMER_CHOICES)} or a Timer; got {timer!r}")
        the_timer = make_timer(dev, timer)
    elif isinstance(timer, Timer):
        the_timer = timer
    else:
        raise TypeError(f"timer must be 'auto', 'wall', 'event' or a Timer instance; got {type(timer).__name__}")
    if cuda_graph and dev.type != "cuda":
        raise ValueError(f"cuda_graph=True needs a CUDA device; the device is {dev}")
    flush = _make_flush(dev) if cold_cache else None
    capture = _cuda_graph_capture(dev) if cuda_graph else None
    return measure(fn, the_timer, opts, label=label or default_label(fn), device=str(dev),
                   env=environment(dev), setup=setup, flush=flush, capture=capture)
