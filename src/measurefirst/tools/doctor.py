"""Audit a function for the classic measurement and performance pitfalls, and explain each.

Every check measures, then states a finding as data (:class:`~measurefirst.results.findings.Finding`: a
catalogue code, severity, the measured value, the threshold, context); the words are the renderer's
(:mod:`measurefirst.render.findings`). The checks a benchmark already makes (cold start, launch-bound,
unstable samples...) are the engine's own (:func:`measurefirst.results.findings.assess`), read from the
measurement doctor takes. Thresholds are named constants in :mod:`measurefirst.results.findings`. A check that
cannot run says why; a function that raises is reported with where it raised, together with the checks
that completed.
"""

from __future__ import annotations

import linecache
import math
import os
import traceback
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

import torch

from ..results import defaults
from ..measure import progress
from ..measure.devices import DeviceLike, cuda_api, environment, machine, resolve_device, tf32_matmul_enabled
from ..measure.engine import BenchmarkError, Interrupted, benchmark, check_label, check_timer, default_label
from ..results.findings import OTHER_LOAD_CORES, TINY_OP_SECONDS, TINY_OPS_MIN_COUNT, UNSYNCED_WARN_RATIO, Finding, found
from ..results.kinds import Measurement, assess
from ..results.diagnosis import (SCHEMA_VERSION as SCHEMA_VERSION, SKIP_BUDGET as SKIP_BUDGET,
                                 SKIP_FUNCTION_FAILED as SKIP_FUNCTION_FAILED, SKIP_INTERRUPTED as SKIP_INTERRUPTED,
                                 SKIP_SIMULATED as SKIP_SIMULATED, Diagnosis as Diagnosis)
from ..measure.timers import Timer, make_timer

#: Ops that force a host-device synchronization on a GPU (visible in a CPU profile too); the
#: renderer says which Python habits produce each.
SYNCING_OPS = ("aten::_local_scalar_dense", "aten::item", "aten::nonzero", "aten::masked_select", "aten::unique",
               "aten::_unique2", "aten::is_nonzero", "aten::equal", "aten::allclose")
#: Syncing ops that torch runs once inside another syncing op (``outer: inner``): one call of the outer op
#: is one synchronization, listed once, under the op the user's code called.
SYNC_OP_INNER = {"aten::item": "aten::_local_scalar_dense", "aten::is_nonzero": "aten::item",
                 "aten::allclose": "aten::item"}
#: The measurement's findings that the ``cold_start`` and ``overhead_bound`` checks report; the
#: ``noise`` check reports the others (unstable samples, drift, preemption...).
_COLD_CODES = ("cold_start",)
_BOUND_CODES = ("launch_bound", "unjoined_stream")
#: The checks that call the function again after the benchmark.
_CALLING_CHECKS = ("unsynchronized_timing", "implicit_syncs", "memory")


def _where(exc: BaseException) -> str:
    """file:line of the innermost frame outside torch and measurefirst."""
    frames = traceback.extract_tb(exc.__traceback__)
    here = str(Path(__file__).parent)
    torch_dir = str(Path(torch.__file__).parent)
    user = [f for f in frames if not f.filename.startswith((here, torch_dir))]
    if not (user or frames):
        return "unknown location"
    f = (user or frames)[-1]
    line = (f.line or "").strip()
    return f"{f.filename}:{f.lineno}" + (f" ({line})" if line else "")


def proc_stat_seconds() -> tuple[float, float] | None:
    """``(busy, steal)``: seconds of CPU time the whole machine has spent working, and seconds its
    virtual CPUs waited while the hypervisor ran someone else (Linux /proc/stat; None elsewhere)."""
    try:
        with open("/proc/stat") as f:
            parts = f.readline().split()[1:]
        ticks = [int(x) for x in parts]
        idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)
        hz = os.sysconf("SC_CLK_TCK")
        steal = ticks[7] if len(ticks) > 7 else 0
        return (sum(ticks[:8]) - idle) / hz, steal / hz
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def cpu_busy_seconds() -> float | None:
    """Seconds of CPU time spent by everything on the machine so far (Linux /proc/stat)."""
    both = proc_stat_seconds()
    return None if both is None else both[0]


def own_cpu_seconds() -> float:
    """CPU seconds this process has used so far (user + system)."""
    t = os.times()
    return t.user + t.system


class _Doctor:
    def __init__(self, fn: Callable[[], object], device: DeviceLike, dev: torch.device, label: str, budget: float,
                 timer: Timer | str) -> None:
        self.fn, self.device, self.label, self.budget, self.timer = fn, device, label, budget, timer
        self.findings: list[Finding] = []
        self.checks: list[str] = []
        self.skipped: dict[str, str] = {}
        self.evidence: dict[str, Any] = {}
        self.error: str | None = None
        self.m: Measurement | None = None
        self.simulated = not isinstance(timer, str)
        self._use(dev)

    def _use(self, dev: torch.device) -> None:
        """Check on ``dev``: the device asked for, or the one benchmark() chose for ``"auto"``."""
        self.dev = dev
        self.cuda = dev.type == "cuda"
        self.clock: Timer = self.timer if isinstance(self.timer, Timer) else make_timer(dev)

    def add(self, f: Finding) -> None:
        self.findings.append(f)

    def take(self, keep: Callable[[str], bool]) -> None:
        """The engine's findings about the measurement whose code ``keep`` accepts."""
        assert self.m is not None
        self.findings += [f for f in assess(self.m, audit=True) if keep(f.code)]

    # -- the checks ----------------------------------------------------------------------------
    def measure(self) -> None:
        """Benchmark once (cold call, warm-up, samples); several checks read this measurement."""
        # warm torch itself first (dispatcher, allocator, the BLAS thread pool), so the cold call
        # measures the function's own first-call cost rather than the process's
        x = torch.ones(128, 128, device=machine().tensor_device(self.dev))
        for _ in range(3):
            ((x @ x) + 1).sum()
        self.clock.synchronize()
        simulated = self.simulated or machine().simulated
        busy0, own0, t0 = cpu_busy_seconds(), own_cpu_seconds(), self.clock.now_ns() / 1e9
        self.m = benchmark(self.fn, device=self.dev if self.simulated else self.device, label=self.label,
                           budget=self.budget, timer=self.timer)
        busy1, own1, t1 = cpu_busy_seconds(), own_cpu_seconds(), self.clock.now_ns() / 1e9
        if str(self.dev) != self.m.device:
            self._use(resolve_device(self.m.device))
        if busy0 is not None and busy1 is not None and t1 > t0 and not simulated:
            self.evidence["other_load_cores"] = max(0.0, ((busy1 - busy0) - (own1 - own0)) / (t1 - t0))

    def cold_start(self) -> None:
        m = self.m
        assert m is not None and m.warmup is not None
        if m.warmup.cold_ns is None or not m.median > 0:
            return
        self.evidence["cold_ratio"] = m.warmup.cold_ns / 1e9 / m.median
        self.evidence["warmup_calls"] = m.warmup.calls
        self.take(lambda code: code in _COLD_CODES)

    def graph_breaks(self) -> None:
        """A function compiled during the audit that runs in pieces: its graph breaks, each with torch's
        reason and the line where it broke (from the frames dynamo compiled to resume after a break)."""
        m = self.m
        assert m is not None
        pieces = [e for e in (m.compiled.compiles if m.compiled is not None else ()) if not e.failed]
        breaks = [e for e in pieces if e.breaks]
        if not breaks:
            return
        first = breaks[0]
        self.add(found("graph_breaks", sum(e.breaks for e in breaks), graphs=len(pieces), where=first.where,
                       reason=first.break_reason or "-",
                       breaks=[{"where": e.where, "reason": e.break_reason} for e in breaks]))

    def unsynced(self) -> None:
        m = self.m
        assert m is not None
        if not self.cuda and self.dev.type != "mps":
            self.add(found("unsynchronized_timing", severity="info", device=self.dev.type))
            return
        naive = []
        clock = self.clock
        for _ in range(5):
            clock.synchronize()
            t0 = clock.now_ns()
            self.fn()
            naive.append((clock.now_ns() - t0) / 1e9)  # the classic mistake, on purpose: no synchronize
        clock.synchronize()
        naive_s = sorted(naive)[len(naive) // 2]
        ratio = m.median / naive_s if naive_s > 0 else math.inf
        self.evidence["unsynced_s"] = naive_s
        self.evidence["unsynced_ratio"] = ratio
        f = found("unsynchronized_timing", ratio, severity="warning" if ratio >= UNSYNCED_WARN_RATIO else "info",
                  unsynced_ns=naive_s * 1e9, synced_ns=m.median * 1e9)
        # below the warning's ratio it is a note that crossed no threshold, so it claims none
        self.add(f if ratio >= UNSYNCED_WARN_RATIO else replace(f, threshold=None))

    def implicit_syncs(self) -> None:
        if self.cuda:
            self._cuda_syncs()
        self._syncing_ops()

    def _cuda_syncs(self) -> None:
        sites: dict[str, int] = {}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            api = cuda_api()
            prev = api.get_sync_debug_mode()
            api.set_sync_debug_mode("warn")
            try:
                self.fn()
            finally:
                api.set_sync_debug_mode(prev)
        for w in caught:
            if "synchroniz" not in str(w.message).lower():
                continue
            line = linecache.getline(w.filename, w.lineno).strip()
            key = f"{w.filename}:{w.lineno}" + (f" ({line})" if line else "")
            sites[key] = sites.get(key, 0) + 1
        total = sum(sites.values())
        self.evidence["cuda_syncs_per_call"] = total
        self.evidence["cuda_sync_sites"] = sites
        if total:
            self.add(found("implicit_syncs", total,
                           sites=dict(sorted(sites.items(), key=lambda kv: -kv[1])[:5])))

    def _syncing_ops(self) -> None:
        from ..profiling.capture import profile

        p = profile(self.fn, device=self.dev, steps=1, warmup=0, label=self.label)
        self.profile = p
        counts = p.counts("all")
        own = {name: counts.get(name, 0) - sum(counts.get(outer, 0) for outer, inner in SYNC_OP_INNER.items()
                                              if inner == name) for name in SYNCING_OPS}
        seen = {name: int(n) for name, n in own.items() if n > 0}
        self.evidence["syncing_ops_per_call"] = seen
        if seen and not self.cuda:
            self.add(found("implicit_syncs", sum(seen.values()), severity="info", ops=seen))

    def overhead_bound(self) -> None:
        m = self.m
        assert m is not None
        if m.host_median is not None and m.median > 0:
            self.evidence["host_over_device"] = m.host_median / m.median
        self.take(lambda code: code in _BOUND_CODES)
        p = getattr(self, "profile", None)
        if p is None:
            return
        n_ops = p.work_count
        self.evidence["work_ops_per_call"] = n_ops
        if n_ops >= TINY_OPS_MIN_COUNT and m.median / n_ops < TINY_OP_SECONDS:
            self.add(found("many_tiny_ops", n_ops, per_op_ns=m.median / n_ops * 1e9, kernels=bool(p.kernels)))

    def noise(self) -> None:
        m = self.m
        assert m is not None
        self.take(lambda code: code not in _COLD_CODES + _BOUND_CODES)
        other = self.evidence.get("other_load_cores")
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        self.evidence["cores"] = cores
        if other is not None and other >= OTHER_LOAD_CORES:
            self.add(found("other_load", other, cores=cores))
        gov = cpu_governor()
        if gov is not None:
            self.evidence["cpu_governor"] = gov
            if gov not in ("performance",):
                self.add(found("cpu_frequency", governor=gov))
        threads = torch.get_num_threads()
        self.evidence["torch_threads"] = threads
        if threads > cores:
            self.add(found("threads", threads, threshold=cores))

    def precision(self) -> None:
        if not self.cuda:
            return
        props = cuda_api().get_device_properties(self.dev)
        tf32_capable = props.major >= 8
        allow = tf32_matmul_enabled()
        self.evidence["tf32"] = {"capable": tf32_capable, "tf32_matmul": allow}
        fp32_mm = fp32_matmuls(self.fn) > 0
        self.evidence["tf32"]["fp32_matmuls_per_call"] = fp32_mm
        if tf32_capable and not allow and fp32_mm:
            self.add(found("tf32_off", gpu=props.name, sm=f"{props.major}{props.minor}"))

    def memory(self) -> None:
        if self.cuda:
            api = cuda_api()
            self.clock.synchronize()
            base = api.memory_allocated(self.dev)
            api.reset_peak_memory_stats(self.dev)
            self.fn()
            self.clock.synchronize()
            peak = api.max_memory_allocated(self.dev) - base
            self.evidence["peak_device_bytes_per_call"] = peak
            self.add(found("memory", peak_bytes=peak, base_bytes=base))
            return
        p = getattr(self, "profile", None)
        if p is not None:
            alloc = sum(r.cpu_mem_bytes for r in p.rows("all"))
            self.evidence["cpu_alloc_bytes_per_call"] = alloc
            self.add(found("memory", alloc_bytes=alloc))


_MATMUL_OPS = frozenset({"mm", "addmm", "bmm", "baddbmm", "addbmm", "matmul", "linear", "_addmm_activation",
                         "convolution", "_convolution", "cudnn_convolution"})


def fp32_matmuls(fn: Callable[[], object]) -> int:
    """How many matrix products (and convolutions) with float32 inputs one call of ``fn`` runs, seen
    through a dispatch mode: what TF32 would speed up. bf16/fp16 products do not count."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class _Spy(TorchDispatchMode):  # type: ignore[no-untyped-call]
        count = 0

        def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            name = func.overloadpacket.__name__
            if name in _MATMUL_OPS and any(isinstance(a, torch.Tensor) and a.dtype == torch.float32
                                           for a in args[:3]):
                _Spy.count += 1
            return func(*args, **(kwargs or {}))

    with _Spy():  # type: ignore[no-untyped-call]
        fn()
    return _Spy.count


def cpu_governor() -> str | None:
    """The CPU frequency governor (Linux cpufreq), or None where it is not visible."""
    try:
        return Path("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor").read_text().strip() or None
    except OSError:
        return None


CHECKS = ("cold_start", "graph_breaks", "unsynchronized_timing", "implicit_syncs", "overhead_bound", "noise", "precision", "memory")


def doctor(fn: Callable[[], object], *, device: DeviceLike = "auto", label: str | None = None, budget: float = defaults.DOCTOR_BUDGET_S,
           timer: Timer | str = "auto") -> Diagnosis:
    """Audit ``fn`` for cold start, unsynchronized timing, implicit syncs, launch/overhead-bound code,
    noise, precision settings and memory. ``timer`` may be a simulated Timer (tests). Ctrl-C raises
    :class:`~measurefirst.measure.engine.Interrupted` holding the diagnosis so far (the checks not run are
    marked ``interrupted``), also where torch's profiler turned the interrupt into an error of its own."""
    if not callable(fn):
        raise TypeError(f"doctor() needs a callable taking no arguments, such as `lambda: step(x)`; got {type(fn).__name__}")
    if (isinstance(budget, bool) or not isinstance(budget, (int, float)) or not math.isfinite(budget)
            or not budget > 0):
        raise ValueError(f"budget must be a positive, finite number of seconds such as 3.0; got {budget!r}")
    check_timer(timer)
    check_label(label)
    dev = resolve_device(device)
    label = label or default_label(fn)
    d = _Doctor(fn, device, dev, label, budget, timer)
    steps: list[tuple[str, Callable[[], None]]] = [
        ("measure", d.measure), ("cold_start", d.cold_start), ("graph_breaks", d.graph_breaks),
        ("unsynchronized_timing", d.unsynced),
        ("implicit_syncs", d.implicit_syncs), ("overhead_bound", d.overhead_bound), ("noise", d.noise),
        ("precision", d.precision), ("memory", d.memory)]
    if d.simulated:  # a simulated clock has no profile, device or memory to look at
        steps = [s for s in steps if s[0] in ("measure", "cold_start", "graph_breaks", "noise")]
        d.skipped.update({c: SKIP_SIMULATED for c in CHECKS if c not in ("cold_start", "graph_breaks", "noise")})
    stopped: KeyboardInterrupt | None = None
    for i, (name, check) in enumerate(steps, 1):
        if name in d.skipped:
            continue
        progress.report("doctor", label, i, len(steps))
        try:
            check()
            if name != "measure":
                d.checks.append(name)
            elif d.m is not None and d.m.stop.reason == "budget" and d.m.median >= budget:
                d.skipped.update({c: SKIP_BUDGET for c in _CALLING_CHECKS if c not in d.skipped})
        except KeyboardInterrupt as exc:  # Ctrl-C: what was found so far is kept (the caller tells a press)
            stopped = exc
            break
        except Exception as exc:  # noqa: BLE001 - the function (or a check) failed: report, keep the rest
            stopped = _interrupt_within(exc)
            if stopped is not None:  # a Ctrl-C that torch's profiler turned into its own error on the way out
                break
            if isinstance(exc, BenchmarkError):
                cause = exc.__cause__ or exc
                d.error = f"{type(cause).__name__}: {cause} at {_where(cause)} (during {name}, {exc.phase})"
                break
            from ..profiling.capture import ProfileError

            cause = exc.__cause__ if isinstance(exc, ProfileError) and exc.__cause__ is not None else exc
            d.error = f"{type(cause).__name__}: {cause} at {_where(cause)} (during {name})"
            break
    if stopped is None and d.error is not None:
        d.add(found("function_failed", error=d.error))
    if stopped is not None or d.error is not None:  # the checks that did not run, and why
        why = SKIP_INTERRUPTED if stopped is not None else SKIP_FUNCTION_FAILED
        d.skipped.update({name: why for name in CHECKS if name not in d.checks and name not in d.skipped})
    diagnosis = Diagnosis(label, str(d.dev), tuple(d.findings), tuple(d.checks), dict(d.skipped), d.error,
                          _jsonable(d.evidence), environment(d.dev), d.m)
    if stopped is not None:
        raise Interrupted(diagnosis) from stopped
    return diagnosis


def _interrupt_within(exc: BaseException) -> KeyboardInterrupt | None:
    """The ``KeyboardInterrupt`` an exception was raised while handling (its causes and contexts), if any."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        if isinstance(e, KeyboardInterrupt):
            return e
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    return None


def _jsonable(x: Any) -> Any:
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


