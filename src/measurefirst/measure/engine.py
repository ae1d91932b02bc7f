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

import gc
import inspect
from typing import TYPE_CHECKING, Any, Callable, Literal, Sequence, TypedDict, overload

import torch

from . import compiling
from .compiling import CompileLimit, RecompileRefused
from ..results.errors import BudgetError
from .devices import DeviceLike, environment, is_auto, resolve_device
from ..results.kinds import CompileEvent, Count, Measurement
from .timers import Timer, make_timer
from .options import Options as Options  # re-exported: measurefirst.measure.engine.Options
# re-exported: the rules' numbers and the engine's parts, from measurefirst.measure.engine as before
from .calibrating import (
    CALIBRATION_MAX_NUMBER as CALIBRATION_MAX_NUMBER,
    CALIBRATION_MAX_TRIALS as CALIBRATION_MAX_TRIALS,
    CALIBRATION_ROUNDS as CALIBRATION_ROUNDS,
    CALIBRATION_SETTLED_FACTOR as CALIBRATION_SETTLED_FACTOR,
    FLUSH_FACTOR as FLUSH_FACTOR,
    GRAPH_RECALIBRATIONS as GRAPH_RECALIBRATIONS,
    OVERHEAD_REPS as OVERHEAD_REPS,
    REPEAT_WARMUP_CALLS as REPEAT_WARMUP_CALLS,
    REPEAT_WARMUP_SHARE as REPEAT_WARMUP_SHARE,
    SAMPLE_BUDGET_SHARE as SAMPLE_BUDGET_SHARE,
    WARMUP_BUDGET_SHARE as WARMUP_BUDGET_SHARE,
    WARMUP_MIN_CALLS as WARMUP_MIN_CALLS,
    WARMUP_TOLERANCE as WARMUP_TOLERANCE,
    WARMUP_WINDOW as WARMUP_WINDOW,
    _warmup_falling as _warmup_falling,
    check_number_fits as check_number_fits,
    flush_bytes as flush_bytes,
    loop as loop,
)
from .failures import (
    BenchmarkError as BenchmarkError,
    ColdCallError as ColdCallError,
    Interrupted as Interrupted,
    SetupError as SetupError,
    raised_words as raised_words,
)
from .inputs import (
    check_function as check_function,
    check_label as check_label,
    check_timer as check_timer,
    choose_device as choose_device,
    default_label as default_label,
)
from .sampler import (
    EARLY_STOP_CHECK_SECONDS as EARLY_STOP_CHECK_SECONDS,
    EARLY_STOP_SECONDS as EARLY_STOP_SECONDS,
    Sampler as Sampler,
)
from .samples import (
    BATCH_CHECK_EVERY_UP_TO as BATCH_CHECK_EVERY_UP_TO,
    REPEAT_MIN_SAMPLES as REPEAT_MIN_SAMPLES,
    next_batch_check as next_batch_check,
    repeat_spread as repeat_spread,
)


if TYPE_CHECKING:  # pragma: no cover
    from typing_extensions import Unpack

    from .noise import NoiseProfile


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
    if isinstance(timer, str) and opts.warmup is None and opts.trials is None:  # the real clock, counts not fixed:
        # the kind of work the profile's rules read (one more call, untimed)
        from .workkind import observe

        try:
            m = observe(m, fn, setup, opts.budget)
        except KeyboardInterrupt as exc:  # the run is whole: kept, with its profile as without the kind
            raise Interrupted(_with_profile(m, call["noise_profile"], timer)) from exc
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
