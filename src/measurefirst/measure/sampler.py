"""The measuring state of one callable (:class:`Sampler`): its phases one by one (overhead, cold call,
warm-up, loop-count calibration, preparing the timed call, one sample, samples until the stopping rule
says so) and the Measurement they make. The rules they follow are stated in :mod:`measurefirst.measure.engine`."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Callable, Sequence

import torch

from . import compiling, progress
from ..results import stats
from .calibrating import (
    CALIBRATION_MAX_NUMBER,
    CALIBRATION_MAX_TRIALS,
    CALIBRATION_ROUNDS,
    CALIBRATION_SETTLED_FACTOR,
    GRAPH_RECALIBRATIONS,
    OVERHEAD_REPS,
    REPEAT_WARMUP_CALLS,
    REPEAT_WARMUP_SHARE,
    SAMPLE_BUDGET_SHARE,
    WARMUP_BUDGET_SHARE,
    WARMUP_MIN_CALLS,
    WARMUP_WINDOW,
    _needed_number,
    _warmup_falling,
    check_number_fits,
    flush_bytes,
    loop,
)
from .compiling import CompileLimit, RecompileRefused
from .devices import machine
from .failures import SetupError
from ..results.findings import OVERHEAD_SHARE
from ..results.kinds import (
    Calibration,
    CompileEvent,
    Compiled,
    SpeedReference,
    Measurement,
    Stop,
    Warmup,
    kept_warmup_times,
)
from .options import Options
from .samples import SampleRecord
from .timers import Timer

#: Stopping early (see the module docstring): sampling time before the first check, seconds, and
#: time between checks; the earliest stop is at the second check.
EARLY_STOP_SECONDS = 0.75
EARLY_STOP_CHECK_SECONDS = 0.25


class Sampler(SampleRecord):
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
        self.cpus: list[float] = []
        self.delay_begin: dict[int, int] | None = None  # each thread's run delay when sampling began (ns)
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
        # once sampling has begun, a compile is a recompile while measuring, in a later repetition's warm-up too
        phase = "sampling" if self.samples else self.phase
        self.compiles.extend(replace(e, phase=phase, call=self.index) for e in events)
        self.compile_ns += elapsed_ns
        if self.opts.fail_on_recompile and phase == "sampling":
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
        self._record(r.elapsed_ns, self.number, r.host_ns, r.preempted, r.synced_ns, r.cpu_ns)
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
        self.delay_begin = self.run_delay()
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
                return self._budget_stop(n, (now - start) / 1e9)
            if repeats > 1 and rep_done:
                # the next repetition: its own warm-up and calibration, a slice that grows with the run
                slice_ns = max(base_slice_ns, (now - start) / repeats)
                times = self.rewarm(slice_ns)
                if self.adaptive:
                    self.calibrate(self.overhead_ns, times)
                if self.past_deadline():  # the repetition's warm-up spent the budget: no sample starts after it
                    return self._budget_stop(n, (self.timer.now_ns() - start) / 1e9)
                self.prepare()
                self.phase = "sampling"
                rep_start, rep_first = self.timer.now_ns(), len(self.samples)

    def _budget_stop(self, n: int, seconds: float) -> Stop:
        """Sampling ended by the budget after ``n`` samples: a count of repetitions asked for and not all
        run is said cut (``fixed_count_cut``), whichever phase the budget ran out in."""
        opts = self.opts
        if opts.repeats is not None and len(self.repeat_counts) < opts.repeats:
            self.notes["budget_cut"], self.notes["budget_cut_done"] = "repeats", len(self.repeat_counts)
        met = self._final_half_width() <= opts.precision and n >= opts.min_samples
        return Stop("budget", met, opts.precision, seconds)

    def report(self) -> None:
        """Where the run stands, for a progress line (:mod:`measurefirst.progress`): the repetition, and
        the time spent of the budget (between samples: nothing is timed while it is drawn)."""
        if not progress.active():
            return
        repeats = self.opts.repeat_count
        done = min(len(self.repeat_counts) + 1, repeats) if repeats > 1 else 0
        elapsed_s = (self.timer.now_ns() - self.t_begin) / 1e9
        progress.report("bench", self.label, done, repeats if repeats > 1 else 0, elapsed_s, self.opts.budget)

    def result(self, stop: Stop, complete: bool) -> Measurement:
        opts = self.opts
        options = {k: getattr(opts, k) for k in opts.__dataclass_fields__}
        options.update(self.notes)
        n = len(self.samples)
        waits = self.wait_shares()
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
            cpu_per_call_ns=self.cpu_per_call(),
            cpu_wait_share=waits[0], pool_wait_share=waits[1],
        )

    def run_delay(self) -> dict[int, int] | None:
        """The timer's reading of how long each of the process's threads has waited for a CPU (None: not read)."""
        read = getattr(self.timer, "run_delays_ns", None)
        value = read() if callable(read) else None
        return value if isinstance(value, dict) else None

    def wait_shares(self) -> tuple[float | None, float | None]:
        """The largest share of the sampling phase's wall time that one of the process's threads spent
        waiting for a CPU while runnable (a thread started meanwhile: since it started), any thread and any
        but the caller's (its pool's), or ``None`` where it was not read."""
        end, wall = self.run_delay(), self.timer.now_ns() - self.t_sampling
        if self.delay_begin is None or end is None or not wall > 0 or not self.samples:
            return None, None
        begin = self.delay_begin
        shares = {t: min(1.0, max(0.0, (d - begin.get(t, 0)) / wall)) for t, d in end.items()}
        return max(shares.values(), default=0.0), max((v for t, v in shares.items() if t != 0), default=0.0)

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
