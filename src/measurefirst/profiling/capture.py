"""Capture a profile with torch.profiler and turn its events into op and kernel tables.

Views of the op table:

* ``all``: every op the profiler recorded (bookkeeping included), aggregated by name.
* ``top``: only top-level ops (those not called by another op).
* ``work``: the ops that do the work, counted the way the lecture counts kernels: ops that are not
  bookkeeping (:data:`BOOKKEEPING_OPS`: dtype casts, allocations, views; their children are judged
  on their own) and whose subtree holds no other working op. Copies and fills called by a working op
  are part of it (:data:`INTERNAL_OPS`): a Python scalar's conversion inside ``aten::mul`` leaves
  ``0.5 * x`` one ``aten::mul``, and ``aten::linear`` counts as its ``aten::addmm``; a top-level
  ``x.to(torch.half)`` counts as the ``aten::copy_`` that does it. On CUDA the kernels are counted
  from the device activity itself.
"""

from __future__ import annotations

import math
import os
import re
import sys
import tempfile
import threading
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

import torch

from ..results import defaults
from ..measure import progress
from ..measure.devices import DeviceLike, environment, machine, resolve_device
from ..measure.engine import Interrupted, check_label, default_label
from ..results.errors import check_flag
from ..measure.timers import Timer, make_timer
from .kernels import decode_kernel
from ..results.profile import (SCHEMA_VERSION as SCHEMA_VERSION, SORTS as SORTS, VIEWS as VIEWS,
                              KernelRow as KernelRow, OpRow as OpRow, Profile as Profile, sort_rows as sort_rows)

#: Ops that move no data of their own or only manage tensors: left out of the work view.
BOOKKEEPING_OPS = frozenset({
    "aten::to", "aten::_to_copy", "aten::empty", "aten::empty_strided", "aten::empty_like", "aten::resize_",
    "aten::as_strided", "aten::view", "aten::_unsafe_view", "aten::reshape", "aten::_reshape_alias",
    "aten::expand", "aten::expand_as", "aten::t", "aten::transpose", "aten::permute", "aten::detach",
    "aten::detach_", "aten::alias", "aten::slice", "aten::select", "aten::unsqueeze", "aten::squeeze",
    "aten::result_type", "aten::lift_fresh", "aten::lift_fresh_copy", "aten::contiguous", "aten::view_as",
    "aten::numpy_T", "aten::unbind", "aten::split", "aten::chunk", "aten::narrow", "aten::flatten",
    "aten::unflatten", "aten::set_", "aten::is_nonzero", "aten::item", "aten::_local_scalar_dense",
    "aten::resolve_conj", "aten::resolve_neg", "detach", "detach_",
})
#: Ops that are part of their caller's work when called by another working op (``aten::addmm``
#: copying the bias into its output, a scalar's conversion inside ``aten::mul``), and work of their
#: own otherwise (a top-level ``x.to(torch.half)`` ends in ``aten::copy_``).
INTERNAL_OPS = frozenset({"aten::copy_", "aten::fill_", "aten::zero_", "aten::clone"})
#: Ops whose names are profiler or runtime plumbing, never work.
_PLUMBING = re.compile(r"^(\[memory\]|ProfilerStep|cuda[A-Z]\w*|cu[A-Z]\w*|Memcpy|Memset|Activity Buffer Request|"
                       r"Runtime Triggered Module Loading|Lazy Function Loading|measurefirst\.step|"
                       # CUPTI's overhead rows (Kineto names them after CUPTI_ACTIVITY_OVERHEAD_*)
                       r"(?:Command Buffer Full|Buffer Flush|Instrumentation|Resource|Driver Compiler|"
                       r"CUPTI Overhead|Unknown Overhead)$)")
#: The profiler's own chatter on stderr (torch 2.13 prints USDT lines at start and stop).
PROFILER_NOISE = re.compile(
    r"^(USDT:.*profiler_(start|stop)|STAGE:.*(ActivityProfilerController|Completed Stage)|"
    r"\[W\d*.*(CUPTI|kineto|Profiler).*|.*Profiler function .* will be ignored.*|"
    r".*CUPTI_ERROR.*|.*libkineto.*|"
    r"\[W\d*.*CPUAllocator.*allocated before the profiling started.*)\s*$")
STEP_RANGE = "measurefirst.tools.step"
#: Op namespaces whose ops can be work (user ranges and Python frames never are).
_WORK_PREFIXES = ("aten::", "prim::", "mkldnn::", "quantized::", "torchvision::", "c10d::", "_c10d", "triton")

_DTYPE_BYTES = {"float": 4, "double": 8, "c10::Half": 2, "c10::BFloat16": 2, "long int": 8, "int": 4,
                "short int": 2, "signed char": 1, "unsigned char": 1, "bool": 1, "c10::complex<float>": 8,
                "c10::complex<double>": 16, "c10::Float8_e4m3fn": 1, "c10::Float8_e5m2": 1}


class ProfileError(RuntimeError):
    """The profiled function raised (``label`` names it), or the profile could not be written."""

    def __init__(self, message: str, *, label: str = "") -> None:
        super().__init__(message)
        self.label = label


# ---- stderr filtering -----------------------------------------------------------------------
_stderr_lock = threading.Lock()


@contextmanager
def quiet_profiler_stderr() -> Iterator[None]:
    """Send the profiler's own chatter (file descriptor 2) to a buffer, then replay every line that
    is not known noise, so real errors still reach the user."""
    fd = 2  # the C++ side writes to file descriptor 2 whatever sys.stderr is
    try:
        os.fstat(fd)
    except OSError:
        yield
        return
    with _stderr_lock:
        try:
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        saved = os.dup(fd)
        with tempfile.TemporaryFile(mode="w+b") as buf:
            os.dup2(buf.fileno(), fd)
            try:
                yield
            finally:
                try:
                    sys.stderr.flush()
                except (OSError, ValueError):
                    pass
                os.dup2(saved, fd)
                os.close(saved)
                buf.seek(0)
                text = buf.read().decode("utf-8", "replace")
                kept = [line for line in text.splitlines() if line.strip() and not PROFILER_NOISE.match(line)]
                if kept:
                    sys.stderr.write("\n".join(kept) + "\n")
                    sys.stderr.flush()


# ---- capture --------------------------------------------------------------------------------
def _check_writable(path: str | os.PathLike[str] | None, what: str) -> Path | None:
    if path is None:
        return None
    p = Path(path)
    if p.is_dir():
        raise ProfileError(f"{what} path {p} is a directory; give a file name such as {p / 'trace.json'}")
    if p.exists() and not p.is_file():  # a FIFO, a device: the file is written whole and moved into place
        raise ProfileError(f"the {what} {p} is not a regular file (a named pipe or a device): the {what} is written "
                           f"whole and moved into place, which would replace it; give a file such as trace.json")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise ProfileError(f"cannot write the {what} to {p}: folder {parent} does not exist")
    try:
        with tempfile.NamedTemporaryFile(dir=parent, prefix=".mf-check-", delete=True):
            pass
    except OSError as exc:
        raise ProfileError(f"cannot write the {what} to {p}: {exc.strerror or exc}") from exc
    return p


def _bytes_of(shapes: Sequence[Sequence[int]], dtypes: Sequence[str]) -> float:
    total = 0.0
    for shape, dt in zip(shapes, dtypes):
        size = _DTYPE_BYTES.get(dt)
        if size is None or not isinstance(shape, (list, tuple)):
            continue
        if len(shape) == 0:
            continue  # a scalar argument: no traffic worth counting
        total += math.prod(int(s) for s in shape) * size
    return total


def profile(
    fn: Callable[[], object],
    *,
    device: DeviceLike = "auto",
    steps: int = defaults.PROFILE_STEPS,
    warmup: int = defaults.PROFILE_WARMUP,
    label: str | None = None,
    group_by_shape: bool = False,
    trace: str | os.PathLike[str] | None = None,
    memory_snapshot: str | os.PathLike[str] | None = None,
    flops_by_module: bool = False,
    with_stack: bool = False,
    wait: int = 1,
    profiler_warmup: int = 1,
) -> Profile:
    """Profile ``fn()``: ``warmup`` plain calls, then torch.profiler with the schedule ``wait`` skipped
    steps, ``profiler_warmup`` traced-but-discarded steps and ``steps`` active steps (CPU always, CUDA
    activity on a GPU). Tables are per active step; on CUDA ``peak_device_bytes`` is the largest of
    the active steps' own peaks (the peak counter is reset before each step). ``trace`` writes a Chrome/Perfetto trace atomically;
    ``memory_snapshot`` (CUDA) writes a snapshot for https://pytorch.org/memory_viz;
    ``flops_by_module`` counts FLOPs per module with ``FlopCounterMode`` in one extra call."""
    if not callable(fn):
        raise TypeError(f"profile() needs a callable taking no arguments, such as `lambda: model(x)`; got {type(fn).__name__}")
    for name, v, lo in (("steps", steps, 1), ("warmup", warmup, 0), ("wait", wait, 0),
                        ("profiler_warmup", profiler_warmup, 0)):
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise ValueError(f"{name} must be an integer >= {lo}; got {v!r}")
        if v > defaults.PROFILE_MAX_STEPS:
            raise ValueError(f"{name} must be at most {defaults.PROFILE_MAX_STEPS} (the profiler keeps every event of "
                             f"every step in memory, and a profile has no time budget); got {v!r}")
    for name, flag in (("group_by_shape", group_by_shape), ("flops_by_module", flops_by_module),
                       ("with_stack", with_stack)):
        check_flag(name, flag)
    check_label(label)
    label = label or default_label(fn)
    dev = resolve_device(device)
    files = _Files(_check_writable(trace, "trace"), _check_writable(memory_snapshot, "memory snapshot"))
    if files.snapshot is not None and dev.type != "cuda":
        raise ProfileError("memory_snapshot needs a CUDA device (torch.cuda.memory._record_memory_history)")
    m = machine()
    if files.snapshot is not None and m.simulated:
        raise ProfileError("memory_snapshot needs a real CUDA device, not the simulated one")
    timer = make_timer(dev, machine=m)
    from torch.profiler import ProfilerActivity

    activities = [ProfilerActivity.CPU]
    if dev.type == "cuda" and not m.simulated:
        activities.append(ProfilerActivity.CUDA)
    try:
        for _ in range(warmup):
            fn()
        timer.synchronize()
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # sys.exit() and other BaseExceptions too: a failure of the function
        raise ProfileError(f"profile {label!r}: the function raised during warm-up: {type(exc).__name__}: {exc}",
                           label=label) from exc
    try:
        steps_run = _Steps(fn, timer, dev, m.cuda if dev.type == "cuda" else None, label, wait + profiler_warmup)
        stopped: StepsProfiled | None = None
        asked: int | None = None
        try:
            events = steps_run.profiled(activities, wait, profiler_warmup, steps, with_stack, files)
        except StepsProfiled as exc:  # Ctrl-C after some active steps: their tables, raised as Interrupted below
            if not exc.events:
                raise
            events, stopped, asked, steps = exc.events, exc, steps, len(steps_run.times)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            raise ProfileError(f"profile {label!r}: the function raised while profiled: {type(exc).__name__}: "
                               f"{exc}", label=label) from exc
        if stopped is None:  # after Ctrl-C the trace and snapshot may be cut mid-write: none is kept, the tables are
            files.publish()
    finally:  # a failure or Ctrl-C leaves no temporary file behind, and no recording of allocations going on
        files.stop_recording()
        files.clean()
    ops, work, top, kernels = _tables(events, steps, group_by_shape)
    kept = stopped is None  # a profile cut by Ctrl-C keeps its tables only
    module_flops = _flops_by_module(fn) if flops_by_module and kept else None
    step_times, step_peaks = steps_run.times[:steps], steps_run.peaks[:steps]
    result = Profile(label, str(dev), steps, ops, work, top, kernels,
                     sum(step_times) / max(len(step_times), 1), max(step_peaks) if step_peaks else None,
                     None if files.trace is None or not kept else str(files.trace),
                     None if files.snapshot is None or not kept else str(files.snapshot), module_flops,
                     environment(dev), steps_asked=asked)
    if stopped is not None:
        raise Interrupted(result) from stopped
    return result


class _Files:
    """The trace and the memory snapshot a profile writes: each to a temporary file beside its
    destination first, moved into place once the profile succeeded (:meth:`publish`); :meth:`clean`
    removes what a failure or Ctrl-C left. The snapshot's recording of CUDA allocations is started by
    :meth:`record_memory` and stopped once, by :meth:`stop_recording`, whichever way the profile ends."""

    def __init__(self, trace: Path | None, snapshot: Path | None) -> None:
        self.trace, self.snapshot = trace, snapshot
        self._tmp_trace: Path | None = None
        self._tmp_snap: Path | None = None
        self._recording = False

    def record_memory(self) -> None:
        """Start recording CUDA allocations for the snapshot (a snapshot is asked on a real CUDA device only:
        checked by :func:`profile`)."""
        if self.snapshot is not None:
            torch.cuda.memory._record_memory_history(max_entries=100_000)
            self._recording = True

    def stop_recording(self) -> None:
        if self._recording:
            self._recording = False
            torch.cuda.memory._record_memory_history(enabled=None)

    def export_trace(self, prof: Any) -> None:
        if self.trace is not None:
            fd, name = tempfile.mkstemp(dir=self.trace.parent, prefix=f".{self.trace.name}.", suffix=".tmp")
            os.close(fd)
            self._tmp_trace = Path(name)
            prof.export_chrome_trace(str(self._tmp_trace))

    def publish(self) -> None:
        """Dump the snapshot and move both files into place (a failure to write is not the function's:
        ProfileError without a label)."""
        try:
            if self.snapshot is not None:
                fd, snap_name = tempfile.mkstemp(dir=self.snapshot.parent, prefix=f".{self.snapshot.name}.",
                                                 suffix=".tmp")
                os.close(fd)
                self._tmp_snap = Path(snap_name)
                torch.cuda.memory._dump_snapshot(str(self._tmp_snap))  # type: ignore[no-untyped-call]
                self.stop_recording()
                os.replace(self._tmp_snap, self.snapshot)
                self._tmp_snap = None
            if self._tmp_trace is not None and self.trace is not None:
                os.replace(self._tmp_trace, self.trace)
                self._tmp_trace = None
        except OSError as exc:
            raise ProfileError(f"cannot write the profile's files: {exc.strerror or exc}") from exc

    def clean(self) -> None:
        for leftover in (self._tmp_trace, self._tmp_snap):
            if leftover is not None:
                try:
                    leftover.unlink()
                except OSError:
                    pass


class StepsProfiled(KeyboardInterrupt):
    """Ctrl-C while profiled: the events of the active steps that ended."""

    def __init__(self, events: list[Any]) -> None:
        super().__init__("profile interrupted")
        self.events = events


class _Steps:
    """The profiled calls: each one a step (a :data:`STEP_RANGE` range, its time on the timer and, on CUDA,
    its own peak memory), the first ``skip`` ones (the profiler's wait and warm-up) left out."""

    def __init__(self, fn: Callable[[], object], timer: Timer, dev: torch.device, cuda: Any, label: str,
                 skip: int) -> None:
        self.fn, self.timer, self.dev, self.cuda, self.label, self.skip = fn, timer, dev, cuda, label, skip
        self.times: list[float] = []
        self.peaks: list[int] = []

    def profiled(self, activities: list[Any], wait: int, warmup: int, steps: int, with_stack: bool,
                 files: _Files) -> Any:
        """Run ``steps`` active steps under torch.profiler; the events of the active steps."""
        from torch.profiler import schedule

        collected: dict[str, Any] = {}

        def on_ready(prof: Any) -> None:
            collected["events"] = prof.events()
            files.export_trace(prof)

        files.record_memory()
        stopped: KeyboardInterrupt | None = None
        with quiet_profiler_stderr():
            with torch.profiler.profile(
                activities=activities, schedule=schedule(wait=wait, warmup=warmup, active=steps),
                on_trace_ready=on_ready, record_shapes=True, profile_memory=True, with_flops=True,
                with_stack=with_stack,
            ) as prof:
                try:
                    for i in range(steps + self.skip):
                        progress.report("profile", self.label, i + 1, steps + self.skip)
                        self._step(i)
                        prof.step()
                except KeyboardInterrupt as exc:  # the profiler stops as usual: the active steps so far are kept
                    stopped = exc
        if stopped is not None:
            raise StepsProfiled(self.completed(collected.get("events") or [])) from stopped
        return collected.get("events") or []

    def completed(self, events: Sequence[Any]) -> list[Any]:
        """The events of the active steps that ended (``times``), without those of a step Ctrl-C cut short:
        every event that began after the end of the last whole step's range."""
        ranges = sorted((e for e in events if e.name == STEP_RANGE and not _is_device_event(e)),
                        key=lambda e: e.time_range.start)
        if not self.times or len(ranges) < len(self.times):
            return []
        cutoff = ranges[len(self.times) - 1].time_range.end
        return [e for e in events if e.time_range.start < cutoff]

    def _step(self, i: int) -> None:
        marks = self.timer.marks()  # synchronizes first
        if self.cuda is not None:
            self.cuda.reset_peak_memory_stats(self.dev)  # each step's own peak
        with torch.profiler.record_function(STEP_RANGE):
            self.fn()
        marks.mark("step")
        step_ns = marks.read()[-1][1]
        if i >= self.skip:
            self.times.append(step_ns / 1e9)
            if self.cuda is not None:
                self.peaks.append(int(self.cuda.max_memory_allocated(self.dev)))


def _flops_by_module(fn: Callable[[], object]) -> dict[str, float]:
    from torch.utils.flop_counter import FlopCounterMode

    counter = FlopCounterMode(display=False)
    with counter:
        fn()
    out: dict[str, float] = {}
    for module, per_op in counter.get_flop_counts().items():
        out[str(module)] = float(sum(per_op.values()))
    return out


def _is_device_event(e: Any) -> bool:
    dt = getattr(e, "device_type", None)
    return dt is not None and str(dt).endswith(("CUDA", "PrivateUse1", "XPU"))


def _tables(events: Sequence[Any], steps: int, group_by_shape: bool
            ) -> tuple[tuple[OpRow, ...], tuple[OpRow, ...], tuple[OpRow, ...], tuple[KernelRow, ...]]:
    cpu = [e for e in events if not _is_device_event(e) and not _PLUMBING.match(e.name)]
    # device activity, without the GPU-side copies of user ranges (record_function), which torch's
    # own tables also leave out
    device = [e for e in events if _is_device_event(e) and not getattr(e, "is_user_annotation", False)]

    def op_children(e: Any) -> list[Any]:
        return [c for c in e.cpu_children if not _PLUMBING.match(c.name)]

    def candidate(e: Any) -> bool:
        if e.name in BOOKKEEPING_OPS or not e.name.startswith(_WORK_PREFIXES):
            return False
        if e.name in INTERNAL_OPS:  # a copy or fill inside another working op is part of that op
            p = e.cpu_parent
            while p is not None:
                if p.name not in BOOKKEEPING_OPS and p.name.startswith(_WORK_PREFIXES):
                    return False
                p = p.cpu_parent
        return True

    memo: dict[int, bool] = {}

    def counted_below(e: Any) -> bool:
        """Whether any descendant of ``e`` is itself counted as work."""
        return any(is_work(c) or counted_below(c) for c in op_children(e))

    def is_work(e: Any) -> bool:
        k = id(e)
        if k not in memo:
            memo[k] = candidate(e) and not counted_below(e)
        return memo[k]

    def top_level(e: Any) -> bool:
        p = e.cpu_parent
        while p is not None:
            if not _PLUMBING.match(p.name) and p.name != STEP_RANGE:
                return False
            p = p.cpu_parent
        return True

    def key(e: Any) -> tuple[str, str]:
        return (e.name, str(e.input_shapes) if group_by_shape else "")

    def add(target: dict[tuple[str, str], dict[str, float]], e: Any, inclusive_device: bool = False) -> None:
        a = target[key(e)]
        a["calls"] += 1
        a["self_us"] += e.self_cpu_time_total
        a["total_us"] += e.cpu_time_total
        if inclusive_device:  # top-level ops: their children's kernels are theirs too
            a["device_us"] += getattr(e, "device_time_total", 0.0) or 0.0
        else:
            a["device_us"] += sum(getattr(kern, "duration", 0.0) for kern in getattr(e, "kernels", []) or [])
        a["flops"] += e.flops or 0
        cpu_mem = max(e.self_cpu_memory_usage or 0, 0)
        dev_mem = max(getattr(e, "self_device_memory_usage", 0) or 0, 0)
        a["cpu_mem"] += cpu_mem
        a["dev_mem"] += dev_mem
        # inputs read plus outputs allocated: an estimate of the memory traffic of the call
        a["bytes"] += _bytes_of(e.input_shapes or [], getattr(e, "input_dtypes", None) or []) + cpu_mem + dev_mem

    def table() -> dict[tuple[str, str], dict[str, float]]:
        return defaultdict(lambda: defaultdict(float))

    every, working, tops = table(), table(), table()
    for e in cpu:
        if e.name == STEP_RANGE:
            continue
        add(every, e)
        if is_work(e):
            add(working, e)
        if top_level(e):
            add(tops, e, inclusive_device=True)
    work_keys, top_keys = set(working), set(tops)
    return (_rows(every, steps, work_keys, top_keys), _rows(working, steps, work_keys, top_keys),
            _rows(tops, steps, work_keys, top_keys), _kernel_rows(events, device, steps))


def _kernel_rows(events: Sequence[Any], device: Sequence[Any], steps: int) -> tuple[KernelRow, ...]:
    """The device kernels per step, each with the op that launched it, longest first."""
    # a kernel's linked_correlation_id names the front-end op that launched it (torch matches them the
    # same way): CPU, synchronous events that are not themselves linked to another event
    by_id = {e.id: e for e in events if not _is_device_event(e) and not e.is_async
             and getattr(e, "linked_correlation_id", 0) == 0 and not _PLUMBING.match(e.name)}
    kern_agg: dict[tuple[str, str], dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for d in device:
        launcher = _launching_op(by_id.get(getattr(d, "linked_correlation_id", -1)))
        ka = kern_agg[(d.name, launcher)]
        ka["calls"] += 1
        ka["total_us"] += d.time_range.end - d.time_range.start
    return tuple(sorted((KernelRow(name, launcher, a["calls"] / steps, a["total_us"] / 1e6 / steps,
                                   a["total_us"] / 1e6 / a["calls"], decode_kernel(name).to_dict())
                         for (name, launcher), a in kern_agg.items()), key=lambda k: (-k.total_s, k.name)))


def _launching_op(runtime: Any) -> str:
    p = runtime
    while p is not None:
        if p.name.startswith("aten::") and p.name not in BOOKKEEPING_OPS:
            return str(p.name)
        p = p.cpu_parent
    p = runtime
    while p is not None:
        if not _PLUMBING.match(p.name):
            return str(p.name)
        p = p.cpu_parent
    return "" if runtime is None else runtime.name


def _rows(agg: Mapping[tuple[str, str], Mapping[str, float]], steps: int, work_keys: set[tuple[str, str]],
          top_keys: set[tuple[str, str]]) -> tuple[OpRow, ...]:
    rows = [OpRow(
        name=k[0], calls=a["calls"] / steps, self_s=a["self_us"] / 1e6 / steps, total_s=a["total_us"] / 1e6 / steps,
        device_s=a["device_us"] / 1e6 / steps, flops=a["flops"] / steps, bytes_est=a["bytes"] / steps,
        cpu_mem_bytes=a["cpu_mem"] / steps, device_mem_bytes=a["dev_mem"] / steps, input_shapes=k[1],
        work=k in work_keys, top_level=k in top_keys) for k, a in agg.items()]
    return tuple(sort_rows(rows, "self"))
