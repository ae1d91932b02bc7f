"""Warnings about a measurement, as data: each check has a code, a named threshold and a fix.

The checks read a finished :class:`~measurefirst.results.Measurement` only; they never measure.
"""

from __future__ import annotations

import math

import numpy as np

from . import stats
from .results import Finding, Measurement

#: IQR above this fraction of the median: the samples are unstable.
UNSTABLE_IQR_FRACTION = 0.10
#: A cold first call this many times slower than the steady median is worth saying.
COLD_CALL_RATIO = 10.0
#: Outliers (modified z-score > 3.5) above this fraction of the samples. Timing distributions
#: have long right tails even on a quiet machine, so only a large fraction is worth a warning.
OUTLIER_FRACTION = 0.20
#: Preempted samples above this fraction: the machine is busy.
PREEMPTED_FRACTION = 0.10
#: Calibration keeps timer overhead and resolution under this share of the precision target.
OVERHEAD_SHARE = 0.1
#: ...and a warning is given once they exceed twice that share (a sample is shorter than planned).
OVERHEAD_WARN_SHARE = 2 * OVERHEAD_SHARE
#: The median of the second half of the samples differs from the first half's by more than this:
#: the machine's speed changed during the run (another tenant, frequency scaling, thermal state).
DRIFT_FRACTION = 0.05
#: Fewest used samples for the drift check.
DRIFT_MIN_SAMPLES = 20
#: Host (launch) time at least this fraction of the device time: the GPU waits on the host.
LAUNCH_BOUND_RATIO = 0.8
#: Host time until the whole device is idle above this multiple of both the event time and the
#: launch time (and by more than :data:`UNJOINED_STREAM_MIN_NS` per sample): work ran on a stream
#: the timing events do not see.
UNJOINED_STREAM_RATIO = 1.5
UNJOINED_STREAM_MIN_NS = 20_000.0


#: Fewest used samples for the speed-modes check.
MODES_MIN_SAMPLES = 40


def _ns(value_ns: float) -> str:
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if value_ns >= scale:
            return f"{value_ns / scale:.3g} {unit}"
    return f"{value_ns:.3g} ns"


def assess(m: Measurement, *, min_samples: int, fixed_trials: bool) -> tuple[Finding, ...]:
    """All the warnings that apply to ``m``, most important first."""
    out: list[Finding] = []
    s = m.summary
    precision = m.stop.precision
    if not m.complete:
        out.append(Finding(
            "incomplete", f"interrupted after {m.n_samples} samples; statistics cover those only",
            m.n_samples, None, "let the benchmark finish, or give it a smaller budget"))
    if s is None:
        return tuple(out)
    if m.stop.reason == "noise":
        rel = m.ci_half_width_rel
        out.append(Finding(
            "noise_floor",
            f"stopped after {m.stop.seconds:.2f} s of sampling: the 95% CI settled at ±{rel:.2%}, and the "
            f"±{precision:.2%} target was out of reach within the budget; this machine gives ±{rel:.1%} here",
            rel, precision,
            "to compare two versions, use measurefirst compare (interleaved) rather than two separate runs; "
            "a quieter machine, pinned cores (taskset) or more work per call narrow it; stop_early=False "
            "(--no-stop-early) spends the whole budget"))
    if not fixed_trials and m.stop.reason in ("budget", "max_samples") and not m.stop.target_met:
        rel = m.ci_half_width_rel
        out.append(Finding(
            "precision_not_met",
            "the 95% CI of the median is ±" + ("undefined (too few samples)" if math.isinf(rel) else f"{rel:.2%}")
            + f", wider than the ±{precision:.2%} target",
            None if math.isinf(rel) else rel, precision,
            "give it more time (budget=... / --budget) or accept a looser precision "
            "(precision=... / --precision); a quieter machine also helps"))
    if not fixed_trials and m.n_used < min_samples:
        out.append(Finding(
            "few_samples", f"only {m.n_used} samples were used (minimum {min_samples})",
            m.n_used, min_samples, "raise the budget so that more samples fit"))
    if s.median > 0 and s.iqr / s.median > UNSTABLE_IQR_FRACTION:
        out.append(Finding(
            "unstable", f"the samples' IQR is {s.iqr / s.median:.1%} of the median",
            s.iqr / s.median, UNSTABLE_IQR_FRACTION,
            "close other programs, check power/thermal settings, pin the process to cores (taskset), "
            "or make the inputs larger so each call does more work"))
    used = m.per_call_ns[m.used_mask]
    if used.size >= DRIFT_MIN_SAMPLES:
        half = used.size // 2
        first, second = float(np.median(used[:half])), float(np.median(used[half:]))
        if first > 0 and abs(second / first - 1) > DRIFT_FRACTION:
            out.append(Finding(
                "drift", f"per-call time moved from {first:.4g} ns (first half) to {second:.4g} ns (second half)",
                second / first - 1, DRIFT_FRACTION,
                "the machine's speed changed during the run (other load, another tenant, frequency or thermal "
                "changes): repeat the measurement, and compare candidates interleaved rather than one after the other"))
    modes = stats.two_modes(used) if used.size >= MODES_MIN_SAMPLES else None
    if modes is not None:
        tau = stats.autocorrelation_time(used)
        changed = tau > stats.CORRELATED_TAU
        out.append(Finding(
            "speed_modes",
            f"{_ns(modes.fast)} for {modes.fast_fraction:.0%} of samples, {_ns(modes.slow)} for "
            f"{modes.slow_fraction:.0%}" + (": the machine changed speed during the run, in stretches"
                                            if changed else ": two modes, alternating sample to sample"),
            modes.slow / modes.fast, stats.MODE_MIN_RATIO,
            "the interval was widened for it; pin the process (taskset), stop other load, check CPU frequency "
            "scaling or GPU clocks; compare versions interleaved (measurefirst compare), never across runs"
            if changed else "two code paths or cache states alternate: look at what differs between calls"))
    if s.n and s.outliers / s.n > OUTLIER_FRACTION:
        out.append(Finding(
            "outliers", f"{s.outliers} of {s.n} samples ({s.outliers / s.n:.1%}) are outliers",
            s.outliers / s.n, OUTLIER_FRACTION,
            "look for other load on the machine; the median is robust to them, the mean is not"))
    if m.preempted is not None and m.n_samples:
        frac = m.n_preempted / m.n_samples
        if frac > PREEMPTED_FRACTION:
            kept_all = m.n_used == m.n_samples
            msg = (f"the operating system preempted the process during {frac:.0%} of the samples; "
                   + ("too many to set aside, so all were kept and the times are likely inflated"
                      if kept_all else "those samples were set aside"))
            out.append(Finding("preempted", msg, frac, PREEMPTED_FRACTION,
                               "other processes compete for the CPU: stop them, or use fewer torch threads "
                               "(torch.set_num_threads) than free cores"))
    if m.warmup is not None and not m.warmup.steady:
        out.append(Finding(
            "warmup_not_steady",
            f"warm-up stopped at its time cap after {m.warmup.calls} calls while per-call time could still be falling",
            m.warmup.calls, None, "raise warmup_max_time (--warmup-time), or warm up the function yourself first"))
    if m.warmup is not None and m.warmup.cold_ns is not None and s.median > 0:
        ratio = m.warmup.cold_ns / 1e9 / s.median
        if ratio > COLD_CALL_RATIO:
            out.append(Finding(
                "cold_call", f"the first call was {ratio:.0f}x slower than the steady state (excluded)",
                ratio, COLD_CALL_RATIO,
                "in your own timing loops always warm up before starting the clock", severity="info"))
    if m.calibration is not None and m.numbers:
        sample_ns = float(np.median(np.asarray(m.samples_ns, dtype=float)))
        cal = m.calibration
        limit = OVERHEAD_WARN_SHARE * precision
        if sample_ns > 0 and cal.resolution_ns / sample_ns > limit:
            out.append(Finding(
                "near_resolution",
                f"a sample lasts {sample_ns:.0f} ns, only {sample_ns / cal.resolution_ns:.0f}x the timer's resolution",
                cal.resolution_ns / sample_ns, limit,
                "let measurefirst choose the loop count (drop number=...), or time more work per call"))
        if sample_ns > 0 and cal.overhead_ns / sample_ns > limit:
            out.append(Finding(
                "overhead_bias",
                f"timer overhead ({cal.overhead_ns:.0f} ns) is {cal.overhead_ns / sample_ns:.2%} of a sample",
                cal.overhead_ns / sample_ns, limit,
                "let measurefirst choose the loop count (drop number=...); with cold_cache each call is "
                "timed alone, so time more work per call"))
    choice = str(m.options.get("auto_device") or "")
    if choice.startswith("cpu"):
        out.append(Finding(
            "auto_device_cpu", "device='auto' chose the CPU: the observed first call touched no GPU tensor",
            None, None, "pass device='cuda' (and move the inputs there) if the GPU was meant", severity="info"))
    elif choice == "no tensor op seen":
        out.append(Finding(
            "no_device_work", f"the observed first call ran no tensor op, yet it is timed on {m.device}",
            None, None, "check that the function does the work (returns a lazy object? a generator?), or pass "
            "device='cpu' for plain Python", severity="warning"))
    if m.options.get("cuda_graph") and m.options.get("setup_given"):
        out.append(Finding(
            "graph_setup", "setup runs before every replay of a CUDA graph, which replays the tensors it captured",
            None, None, "write new inputs into the captured tensors (x.copy_(...)); tensors that setup rebinds "
            "are not seen by the graph", severity="info"))
    host = m.host_median
    synced = m.synced_median
    if synced is not None and host is not None and s.median > 0:
        seen = max(host, s.median)
        per_sample_gap_ns = (synced - seen) * 1e9 * float(np.median(np.asarray(m.numbers, dtype=float)))
        if synced > UNJOINED_STREAM_RATIO * seen and per_sample_gap_ns > UNJOINED_STREAM_MIN_NS:
            out.append(Finding(
                "unjoined_stream",
                f"the device stayed busy {synced / seen:.1f}x longer than the timed events saw: work ran on a "
                "stream the current stream never waited for, and is missing from the time",
                synced / seen, UNJOINED_STREAM_RATIO,
                "join side streams before returning (torch.cuda.current_stream().wait_stream(side)), or "
                "time with timer='wall', which synchronizes the whole device"))
    if host is not None and s.median > 0 and host / s.median >= LAUNCH_BOUND_RATIO:
        out.append(Finding(
            "launch_bound",
            f"launching took {host / s.median:.0%} of the device time: the GPU waits on the host",
            host / s.median, LAUNCH_BOUND_RATIO,
            "fuse small ops, use torch.compile or CUDA graphs (cuda_graph=True), or batch more work per call"))
    return tuple(out)
