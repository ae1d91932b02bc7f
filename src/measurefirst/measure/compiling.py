"""One-time costs that torch accounts for itself: what ``torch.compile`` compiled during a call.

Why: the first call of a compiled function is the compiler (dynamo traces it, inductor generates and
builds code, Triton may autotune): seconds to minutes, where the steady call takes microseconds. A
benchmark that charges that call to its budget measures the compiler instead of the code; a sample
that spans a recompile (a new input shape failed a guard) is a few seconds in a column of
microseconds. The engine asks this module after every call it makes whether torch compiled anything
meanwhile, and

* charges a call that compiled to compiling, not to the budget (the deadline moves by the call's
  time), and leaves it out of warm-up's steadiness test;
* takes a sample that spanned a compile again (the compiled graph is cached now), and keeps the
  compiles with the phase they fell in, so the result shows compile time apart and names the guard
  that failed;
* stops at ``compile_limit`` seconds of compiling in all (:class:`CompileLimit`).

What it reads is torch's own accounting, not a guess from a slow call: the compilation metrics that
dynamo records for every frame it compiles (``torch._dynamo.utils.get_compilation_metrics()``: time,
recompile reason, graph breaks, inductor's FX-graph cache hits and misses). It reads them only when
torch's compiler is loaded (``torch._dynamo`` in ``sys.modules``): a process that never compiles
pays one dictionary lookup per call. Tests inject a simulated compiler: a timer that has a
``compile_log`` (:class:`~measurefirst.measure.simulate.SimTimer` of a world whose spec compiles)
is read instead of torch's.
"""

from __future__ import annotations

import contextlib
import re
import sys
from dataclasses import replace
from typing import Any, Callable, Iterator, NamedTuple, Protocol, Sequence

from ..results.kinds import CompileEvent

#: How many times a sample that spanned a compile is taken again before it is kept as it is (a
#: function that compiles on every call: torch's own recompile limit then falls back to eager).
RESAMPLE_AFTER_COMPILE = 3


class CompileLog(Protocol):
    """Where compile events come from: a mark now, and the events recorded since a mark."""

    def mark(self) -> object: ...

    def since(self, mark: object) -> list[CompileEvent]: ...


class TorchCompileLog:
    """torch's compilation metrics (see the module docstring). A mark is the number of records and the
    last one (torch keeps the last 64, far more than one call compiles), and the graph breaks counted so
    far by reason."""

    def _records(self) -> Sequence[Any]:
        utils = sys.modules.get("torch._dynamo.utils")
        if utils is None:
            return ()
        records = getattr(utils, "_compilation_metrics", None)
        return records if records is not None else ()

    def _breaks(self) -> dict[str, int]:
        utils = sys.modules.get("torch._dynamo.utils")
        counters = getattr(utils, "counters", None) if utils is not None else None
        try:
            return dict(counters["graph_break"]) if counters is not None else {}
        except Exception:  # noqa: BLE001 - torch changed its counters: no reasons, the events still count
            return {}

    def mark(self) -> object:
        records = self._records()
        if not records:
            return _Mark(0, 0, ())
        return _Mark(len(records), id(records[-1]), tuple(self._breaks().items()))

    def since(self, mark: object) -> list[CompileEvent]:
        records = self._records()
        if not records:
            return []
        size, last, before = (mark.size, mark.last, dict(mark.breaks)) if isinstance(mark, _Mark) else (0, 0, {})
        if len(records) == size and id(records[-1]) == last:
            return []  # the common case: nothing new, O(1)
        new: list[Any] = []
        for r in reversed(records):  # the records after the marked last one (all of them when it is gone)
            if id(r) == last:
                break
            new.append(r)
        reasons = [k for k, n in self._breaks().items() if n > before.get(k, 0)]
        # a frame that resumes after a graph break goes with the break's reason (torch counts the reasons)
        out = []
        for e in (event_of(r) for r in reversed(new)):
            if e.breaks and reasons:
                e = replace(e, break_reason=break_words(reasons.pop(0)))
            out.append(e)
        return out


class _Mark(NamedTuple):
    size: int
    last: int
    breaks: tuple[tuple[str, int], ...]


#: The code name dynamo gives the frame that resumes a function after a graph break at a line.
RESUME = re.compile(r"torch_dynamo_resume_in_(?P<fn>.+)_at_(?P<line>\d+)$")


def break_words(reason: str) -> str:
    """torch's graph-break reason, shortened to what names it: the first line and its explanation."""
    lines = [x.strip() for x in reason.strip().splitlines() if x.strip()]
    if not lines:
        return ""
    explained = next((x for x in lines[1:] if x.startswith("Explanation:")), "")
    return lines[0] + (f" ({explained[len('Explanation:'):].strip()})" if explained else "")


def event_of(record: Any) -> CompileEvent:
    """A :class:`CompileEvent` from one of torch's ``CompilationMetrics`` (fields it lacks read as empty).
    A frame dynamo compiled to resume a function after a graph break counts one break, at the line where
    the function broke."""

    def num(name: str) -> float:
        v = getattr(record, name, None)
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else 0.0

    seconds = num("duration_us") / 1e6 or num("entire_frame_compile_time_s")
    if getattr(record, "is_runtime", False):
        seconds = seconds or (num("runtime_triton_autotune_time_us") + num("runtime_cudagraphify_time_us")) / 1e6
    filename = str(getattr(record, "co_filename", None) or "")
    line = getattr(record, "co_firstlineno", None)
    name = str(getattr(record, "co_name", None) or "")
    breaks = 0  # counted on the resuming frames (torch's num_graph_breaks counts the same break again, when set)
    resume = RESUME.match(name)
    if resume:
        name, line, breaks = resume.group("fn"), int(resume.group("line")), 1
    return CompileEvent(
        seconds=max(seconds, 0.0), name=name,
        where=f"{filename}:{line}" if filename and line else f"line {line}" if line else filename,
        reason=re.sub(r"^\d+/\d+: ", "", str(getattr(record, "recompile_reason", None) or "").strip()),
        breaks=breaks,
        # a hit of AOTAutograd's cache skips inductor (no FX-graph lookup at all); a miss there with an FX-graph
        # hit is still mostly warm: the code generation and the C++/Triton build are what a cold cache pays
        hits=int(num("inductor_fx_local_cache_hit_count") + num("inductor_fx_remote_cache_hit_count")
                 + num("aotautograd_local_cache_hit_count") + num("aotautograd_remote_cache_hit_count")),
        misses=int(num("inductor_fx_local_cache_miss_count") + num("inductor_fx_remote_cache_miss_count")),
        runtime=bool(getattr(record, "is_runtime", False)),
        failed=str(getattr(record, "fail_type", None) or ""))


_TORCH = TorchCompileLog()


def compiled_anything() -> bool:
    """Whether torch's compiler has compiled a frame in this process (its metrics hold a record)."""
    return bool(_TORCH._records())


def log_for(timer: object) -> CompileLog:
    """The compile log that goes with ``timer``: a simulated world's own, else torch's."""
    log = getattr(timer, "compile_log", None)
    return log if log is not None else _TORCH


class RecompileRefused(RuntimeError):
    """A recompile while sampling, with ``fail_on_recompile=True``."""

    def __init__(self, reason: str) -> None:
        super().__init__(f"torch.compile compiled again while sampling ({reason or 'no reason given'}), and "
                         f"fail_on_recompile=True refuses to measure through it; compile with dynamic=True, mark the "
                         f"varying dimension with torch._dynamo.mark_dynamic, or keep the inputs' shapes fixed")
        self.reason = reason


@contextlib.contextmanager
def failing_on_recompile(on: bool) -> Iterator[None]:
    """torch's own ``fail_on_recompile`` stance inside the block, when ``on`` and torch's compiler is
    loaded (its error then names the guard); nothing otherwise (a simulated compiler: the engine refuses
    after the fact, :class:`RecompileRefused`)."""
    compiler = sys.modules.get("torch.compiler")
    stance = getattr(compiler, "set_stance", None) if on and "torch._dynamo" in sys.modules else None
    if stance is None:
        yield
        return
    with stance("fail_on_recompile"):
        yield


#: Seconds between two reports of a first call still running (see :func:`ticking`).
TICK_S = 1.0


@contextlib.contextmanager
def ticking(clock: Callable[[], int], active: bool) -> Iterator[None]:
    """While the block runs (a first call, which may be torch compiling for a minute), report every
    :data:`TICK_S` seconds how long it has run, as a progress event ``first`` (``active``: a progress sink
    is installed; nothing otherwise), and once it ends a report without a time (the line drops it). A
    thread that waits between reports, in the caller's context (the
    sink is a context variable); it reads the measuring clock, and stops with the block. Nothing is timed
    while it reports but the first call, which is no sample."""
    if not active:
        yield
        return
    import contextvars
    import threading

    from . import progress

    done = threading.Event()
    t0 = clock()
    ticked = []

    def tick() -> None:
        while not done.wait(TICK_S):
            ticked.append(True)
            progress.report("first", "", elapsed_s=(clock() - t0) / 1e9)

    thread = threading.Thread(target=contextvars.copy_context().run, args=(tick,), daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        if ticked:  # the first call is over: the line drops it
            progress.report("first", "", elapsed_s=None)


class CompileLimit(RuntimeError):
    """Compiling went on past ``compile_limit`` seconds in all."""

    def __init__(self, seconds: float, limit: float, events: int) -> None:
        super().__init__(f"compiling took {seconds:.1f} s in {events} compile(s), beyond compile_limit={limit:g} s; "
                         f"give compile_limit= more seconds (--compile-limit on the command line), or compile less: "
                         f"fixed input shapes, dynamic=True")
        self.seconds, self.limit, self.events = seconds, limit, events


#: What ``compile=`` takes besides True: torch.compile's modes (``"default"`` is torch's default mode).
MODES = ("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs", "lite")


def check_compile(compile: object) -> str | None:
    """The torch.compile mode that ``compile`` asks for (``None``: do not compile): False, True (torch's
    default mode), or one of :data:`MODES`. Anything else is refused with the modes named."""
    if compile is False or compile is None:
        return None
    if compile is True:
        return "default"
    if isinstance(compile, str) and compile in MODES:
        return compile
    raise ValueError(f"compile takes True, False or a torch.compile mode ({', '.join(MODES)}); got {compile!r}")


def compiled(fn: Callable[[], object], mode: str) -> Callable[[], object]:
    """``fn`` wrapped by ``torch.compile`` in ``mode`` (compiled on its first call, which the engine
    keeps off the budget)."""
    import torch

    wrapped: Callable[[], object] = torch.compile(fn, mode=None if mode == "default" else mode)
    return wrapped


def compiled_label(label: str, mode: str) -> str:
    """The label of a compiled variant: ``f (compiled)``, ``f (compiled: max-autotune)``."""
    return f"{label} (compiled)" if mode == "default" else f"{label} (compiled: {mode})"
