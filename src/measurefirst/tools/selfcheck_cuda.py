"""The CUDA check: ``torch.cuda._sleep`` kernels of known duration, their cycle rate calibrated against
the synchronized wall clock, measured in every mode of benchmark() and by the reference tools, each
judged against the profiler's kernel time or a stream of launches."""

from __future__ import annotations

import itertools
import math
import statistics
from typing import Any, Callable

import torch

from ..measure.devices import cuda_api, machine, synchronizer
from ..measure.engine import BenchmarkError, benchmark
from ..measure.timers import Timer, host_time
from ..results.kinds import Measurement
from ..results.selfcheck import FAIL, Row, duration_code
from .selfcheck_rules import (CUDA_DURATIONS_S, CUDA_SHORT_S, GRAPH_VS_DO_BENCH_TOLERANCE, ONE_CALL_OVERHEADS,
                              Progress, cuda_tolerance, sleep_rate, _noise, _overhead_share, _Plan, _QUICK, _row,
                              _skip)


# ---- the CUDA rows ----------------------------------------------------------------------------------
def _wall_s(sync: Callable[[], None], run: Callable[[], object]) -> float:
    """Synchronized host-clock seconds of ``run()`` (the machine's clock: real, or the simulated GPU's)."""
    return host_time(run, sync) / 1e9


def _stream_per_call(fn: Callable[[], object], sync: Callable[[], None], calls: int, batches: int = 3) -> float:
    """Synchronized wall seconds per call over ``calls`` back-to-back launches (median of batches)."""

    def loop() -> None:
        for _ in itertools.repeat(None, calls):
            fn()

    return statistics.median(_wall_s(sync, loop) / calls for _ in range(batches))


def calibrate_sleep(cuda: Any, sync: Callable[[], None], seconds: float, pairs: int) -> float:
    """SM cycles per second of ``cuda._sleep``: a rough guess from one sleep, then ``pairs`` pairs of
    ``seconds``-long and twice as long sleeps against the synchronized wall clock (:func:`sleep_rate`)."""
    probe = 1_000_000
    _wall_s(sync, lambda: cuda._sleep(probe))  # first launch pays its own one-time costs
    rough = probe / max(_wall_s(sync, lambda: cuda._sleep(probe)), 1e-7)
    cycles = max(int(rough * seconds), 1000)
    measured = [(_wall_s(sync, lambda: cuda._sleep(cycles)), _wall_s(sync, lambda: cuda._sleep(2 * cycles)))
                for _ in range(pairs)]
    return sleep_rate(measured, cycles)


def _profiler_kernel_s(fn: Callable[[], object], dev: torch.device, per_step: int) -> float | None:
    """Mean device time of the sleep kernel from the profiler (CUPTI), or None if none was seen."""
    from ..profiling import profile

    def step() -> None:
        for _ in range(per_step):
            fn()

    p = profile(step, device=dev, steps=2, warmup=1, label="selfcheck sleep")
    kernels = [k for k in p.kernels if k.calls > 0]
    if not kernels:
        return None
    k = max(kernels, key=lambda k: k.total_s)
    return k.total_s / k.calls


def _cuda_rows(dev: torch.device, plan: _Plan, timer: Timer | None, references: bool,
               progress: Progress, rows: list[Row], ms: list[Measurement]) -> float:
    """The CUDA rows, appended to ``rows`` and ``ms`` as each is measured (what a Ctrl-C keeps); the sleep
    kernel's calibrated rate."""
    cuda = cuda_api()
    sync = synchronizer(dev)
    simulated = machine().simulated  # the simulated GPU: no profiler, no other tools to compare with
    with cuda.device(dev):
        progress("calibrate", None, "sleep")
        rate = calibrate_sleep(cuda, sync, plan.calibrate_s, plan.calibrate_pairs)
        for d_s in CUDA_DURATIONS_S:
            cycles = max(int(round(d_s * rate)), 1)

            def sleep(c: int = cycles) -> None:
                cuda._sleep(c)

            sleep()
            sync()
            label = f"selfcheck/cuda/{duration_code(d_s)}"
            calls = max(20, int(plan.stream_s / d_s))
            progress("row", d_s, "profiler")
            stream_before = _stream_per_call(sleep, sync, calls)
            sleep_truth = cycles / rate
            kernel: float | None = None
            if simulated:
                rows.append(_skip(d_s, "profiler", "simulated"))
            else:
                try:
                    kernel = _profiler_kernel_s(sleep, dev, per_step=20)
                except Exception as exc:  # noqa: BLE001 - the profiler is a reference; report, go on
                    rows.append(_skip(d_s, "profiler", "error", f"{type(exc).__name__}: {exc}"))
            if kernel is not None:
                rows.append(_row(d_s, "profiler", sleep_truth, "sleep", kernel, None, None, judged=False))
            k_truth, k_source = (kernel, "profiler") if kernel is not None else (sleep_truth, "sleep")
            k_note = "fallback_truth" if kernel is None and not simulated else ""
            results: dict[str, Measurement] = {}
            modes: list[tuple[str, dict[str, Any]]] = [
                ("events", {"budget": plan.budget, "timer": timer or "event"}),
                ("wall", {"budget": plan.budget, "timer": "wall"}),
                ("fixed", {"warmup": 3, "trials": 10, "timer": timer or "event"}),
                ("cuda_graph", {"budget": plan.budget, "cuda_graph": True, "timer": timer or "event"}),
                ("cold_cache", {"budget": plan.budget, "cold_cache": True, "timer": timer or "event"}),
            ]
            for method, kwargs in modes:
                progress("row", d_s, method)
                try:
                    results[method] = benchmark(sleep, device=dev, label=f"{label}/{method}", **kwargs)
                except BenchmarkError as exc:
                    rows.append(Row(d_s, method, None, k_source, None, None, None, None, FAIL, "error", str(exc)))
            stream_after = _stream_per_call(sleep, sync, calls)
            stream = (stream_before + stream_after) / 2
            drift = abs(stream_after - stream_before) / stream if stream > 0 else None
            for method, m in results.items():
                ms.append(m)
                rows.append(_cuda_row(d_s, method, m, (k_truth, k_source, k_note), stream, drift))
            if references and simulated:
                rows += [_skip(d_s, m, "simulated") for m in ("do_bench", "do_bench_cudagraph",
                                                              "graph_vs_do_bench_cudagraph", "blocked_autorange")]
            elif references:
                rows += _cuda_references(sleep, dev, d_s, k_truth, k_source, stream, results.get("cuda_graph"),
                                         plan, progress)
    return rate


def _cuda_row(d_s: float, method: str, m: Measurement, kernel: tuple[float, str, str], stream: float,
              drift: float | None) -> Row:
    """benchmark()'s row for a CUDA sleep of ``d_s`` seconds measured by ``method``, judged against its truth:
    ``kernel`` (the kernel's time, where it came from, a note) or the ``stream`` of launches' time per call."""
    k_truth, k_source, k_note = kernel
    ci = m.precision_half_width_rel
    noise = _noise(ci if math.isfinite(ci) else None, drift)
    base = cuda_tolerance(d_s, method)
    # the host, not the kernel, sets the per-call time: shown, but not judged against the kernel
    launch_bound = "launch_bound" in [f.code for f in m.findings]
    # the per-call gap a stream of launches adds to the bare kernel, as measured here
    gaps = max(0.0, stream / k_truth - 1) if k_truth else 0.0
    if method == "events":
        if d_s <= CUDA_SHORT_S:  # short kernels: against the kernel time, plus the measured gaps
            return _row(d_s, method, k_truth, k_source, m.median, base + gaps, noise,
                        judged=not launch_bound, note="launch_bound" if launch_bound else k_note)
        return _row(d_s, method, stream, "stream", m.median, base, noise,
                    judged=not launch_bound, note="launch_bound" if launch_bound else "")
    if method == "wall":
        return _row(d_s, method, stream, "stream", m.median, base, noise)
    if method in ("fixed", "cold_cache"):  # one call per sample: the overhead is in each
        share = _overhead_share(m, k_truth)
        return _row(d_s, method, k_truth, k_source, m.median, base + ONE_CALL_OVERHEADS * share, noise,
                    judged=share <= base, note=k_note if share <= base else "overhead_bound")
    # cuda_graph: between the bare kernel and the stream of launches
    return _row(d_s, method, k_truth, k_source, m.median, base + gaps, noise, note=k_note)


def _cuda_references(sleep: Callable[[], None], dev: torch.device, d_s: float, k_truth: float | None,
                     k_source: str, stream: float, graph: Measurement | None, plan: _Plan,
                     progress: Progress) -> list[Row]:
    rows: list[Row] = []
    try:
        import importlib

        tt = importlib.import_module("triton.testing")  # optional: untyped, and absent on most machines
    except Exception as exc:  # noqa: BLE001 - ImportError, or a broken triton install
        detail = f"{type(exc).__name__}: {exc}"
        return [_skip(d_s, "do_bench", "not_installed", detail), _skip(d_s, "do_bench_cudagraph", "not_installed", detail),
                _skip(d_s, "graph_vs_do_bench_cudagraph", "not_installed", detail)] + _blocked_cuda(sleep, d_s, stream, plan,
                                                                                                   progress)
    progress("row", d_s, "do_bench")
    try:
        ms_db = _do_bench(tt.do_bench, sleep, rep=50 if plan is _QUICK else 200)
        rows.append(_row(d_s, "do_bench", k_truth, k_source, ms_db / 1e3, None, None, judged=False))
    except Exception as exc:  # noqa: BLE001 - a reference failing is reported, not fatal
        rows.append(_skip(d_s, "do_bench", "error", f"{type(exc).__name__}: {exc}"))
    progress("row", d_s, "do_bench_cudagraph")
    try:
        cuda = cuda_api()
        with cuda.stream(cuda.Stream(dev)):  # do_bench_cudagraph refuses the default stream
            ms_g = _do_bench(tt.do_bench_cudagraph, sleep, rep=20 if plan is _QUICK else 100)
        rows.append(_row(d_s, "do_bench_cudagraph", k_truth, k_source, ms_g / 1e3, None, None, judged=False))
        if graph is not None:
            ci = graph.precision_half_width_rel
            rows.append(_row(d_s, "graph_vs_do_bench_cudagraph", ms_g / 1e3, "do_bench_cudagraph", graph.median,
                             GRAPH_VS_DO_BENCH_TOLERANCE, ci if math.isfinite(ci) else None))
    except Exception as exc:  # noqa: BLE001
        detail = f"{type(exc).__name__}: {exc}"
        rows += [_skip(d_s, "do_bench_cudagraph", "error", detail), _skip(d_s, "graph_vs_do_bench_cudagraph", "error", detail)]
    return rows + _blocked_cuda(sleep, d_s, stream, plan, progress)


def _do_bench(fn: Callable[..., Any], sleep: Callable[[], None], rep: int) -> float:
    """Median milliseconds from a triton bench function, across the signatures triton has had."""
    try:
        out = fn(sleep, rep=rep, return_mode="median")
    except TypeError:
        out = fn(sleep, rep=rep, quantiles=[0.5])
    if isinstance(out, (list, tuple)):
        out = out[0]
    return float(out)


def _blocked_cuda(sleep: Callable[[], None], d_s: float, stream: float, plan: _Plan, progress: Progress) -> list[Row]:
    progress("row", d_s, "blocked_autorange")
    try:
        import torch.utils.benchmark as tub

        b = tub.Timer(stmt="fn()", globals={"fn": sleep}).blocked_autorange(min_run_time=plan.blocked_min_time)
        return [_row(d_s, "blocked_autorange", stream, "stream", float(b.median), None, None, judged=False)]
    except Exception as exc:  # noqa: BLE001
        return [_skip(d_s, "blocked_autorange", "error", f"{type(exc).__name__}: {exc}")]
