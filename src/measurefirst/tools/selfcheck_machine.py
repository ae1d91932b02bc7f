"""The machine a self-check ran on: the host clock's steps and the timer's overhead, the CPU's frequency and
throttling, the GPU's state from nvidia-smi, the other load on the machine, and its measured peaks,
read before the check and again after."""

from __future__ import annotations

import glob
import math
import os
import statistics
import subprocess
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import torch

from ..measure.timers import Timer, host_clock
from ..results.selfcheck import Machine
from .selfcheck_rules import OVERHEAD_REPS


# ---- the machine ------------------------------------------------------------------------------------
def _clock_steps() -> tuple[float, float]:
    """(smallest nonzero step, median step) between consecutive reads of the host clock (``perf_counter_ns``)."""
    clock = host_clock()
    reads = [clock() for _ in range(20_000)]
    steps = np.diff(np.asarray(reads, dtype=np.int64))
    nonzero = steps[steps > 0]
    return (float(nonzero.min()) if nonzero.size else math.nan, float(np.median(steps)))


def _timer_overhead_ns(timer: Timer) -> float:
    probe = timer.probe()  # as the engine measures it: the cheapest call that does device work
    return float(statistics.median(timer.time(probe).elapsed_ns for _ in range(OVERHEAD_REPS)))


def _cpu_mhz() -> float | None:
    """Mean current CPU frequency over the cores (cpufreq where present, else /proc/cpuinfo)."""
    freqs = []
    for p in glob.glob("/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_cur_freq"):
        try:
            with open(p) as f:
                freqs.append(int(f.read().strip()) / 1000)
        except (OSError, ValueError):
            pass
    if not freqs:
        try:
            with open("/proc/cpuinfo") as f:
                freqs = [float(line.split(":", 1)[1]) for line in f if line.lower().startswith("cpu mhz")]
        except (OSError, ValueError):
            freqs = []
    return sum(freqs) / len(freqs) if freqs else None


def _throttle_count() -> int | None:
    paths = glob.glob("/sys/devices/system/cpu/cpu[0-9]*/thermal_throttle/core_throttle_count")
    if not paths:
        return None
    total = 0
    for p in paths:
        try:
            with open(p) as f:
                total += int(f.read().strip())
        except (OSError, ValueError):
            return None
    return total


NVIDIA_SMI_FIELDS = ("clocks.sm", "clocks.max.sm", "clocks_throttle_reasons.active", "temperature.gpu", "power.draw")


def nvidia_smi(index: int | None) -> dict[str, str] | None:
    """Clocks, throttle reasons, temperature and power of GPU ``index`` from nvidia-smi, or None.
    Newer drivers call the throttle reasons ``clocks_event_reasons``; older ones lack both: each is tried."""
    for reasons in ("clocks_throttle_reasons.active", "clocks_event_reasons.active", None):
        fields = [f for f in NVIDIA_SMI_FIELDS if f != "clocks_throttle_reasons.active"]
        if reasons is not None:
            fields.insert(2, reasons)
        cmd = ["nvidia-smi", f"--query-gpu={','.join(fields)}", "--format=csv,noheader,nounits"]
        if index is not None:
            cmd.insert(1, f"--id={index}")
        try:
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.SubprocessError):
            return None  # no nvidia-smi here
        if out.returncode == 0 and out.stdout.strip():
            values = [v.strip() for v in out.stdout.strip().splitlines()[0].split(",")]
            got = dict(zip(fields, values))
            if reasons is not None:
                got["clocks_throttle_reasons.active"] = got.pop(reasons)
            return got
    return None


class _Load:
    """Other processes' CPU use and hypervisor steal between start() and stop(), over the wall time on
    ``clock`` (ns)."""

    def __init__(self, clock: Callable[[], int]) -> None:
        from .doctor import own_cpu_seconds, proc_stat_seconds

        self._stat, self._own, self._clock = proc_stat_seconds, own_cpu_seconds, clock
        self.t0 = clock()
        self.s0 = proc_stat_seconds()
        self.own0 = own_cpu_seconds()

    def stop(self) -> tuple[float | None, float | None]:
        s1, own1, t1 = self._stat(), self._own(), self._clock()
        if self.s0 is None or s1 is None or t1 <= self.t0:
            return None, None
        wall = (t1 - self.t0) / 1e9
        other = max(0.0, (s1[0] - self.s0[0]) - (own1 - self.own0)) / wall
        return other, max(0.0, s1[1] - self.s0[1]) / wall


def _peaks(dev: torch.device, quick: bool) -> dict[str, Any]:
    from .roofline import measure_peaks

    dtype = "bfloat16" if dev.type == "cuda" else "float32"
    sizes: tuple[int, ...]
    if dev.type == "cuda":
        sizes = (4096,) if quick else (2048, 4096, 8192)
    else:
        sizes = (256, 512) if quick else (256, 512, 1024)
    p = measure_peaks(dev, dtype, budget=0.3 if quick else 1.0, sizes=sizes)
    return {"dtype": p.dtype, "flops_per_s": p.flops_per_s, "bytes_per_s": p.bytes_per_s,
            "matmul_size": p.matmul_size, "copy_bytes": p.copy_bytes, "threads": p.threads}


@dataclass(frozen=True)
class _Before:
    """The machine's state read before the check (None where not visible, or on a simulated clock)."""

    mhz: float | None
    throttle: int | None
    gpu: dict[str, str] | None
    notes: tuple[str, ...]

    @classmethod
    def read(cls, dev: torch.device, simulated: bool, real: bool) -> "_Before":
        gpu = nvidia_smi(dev.index) if dev.type == "cuda" and real else None
        missing = dev.type == "cuda" and gpu is None and real
        return cls(None if simulated else _cpu_mhz(), None if simulated else _throttle_count(), gpu,
                   ("nvidia_smi_missing",) if missing else ())

    def machine_after(self, dev: torch.device, simulated: bool, **measured: Any) -> Machine:
        """The :class:`Machine` of the check: this state before, the same read again after, and ``measured``."""
        from .doctor import cpu_governor

        throttle_after = None if simulated else _throttle_count()
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        return Machine(
            cpu_governor=None if simulated else cpu_governor(), cpu_mhz_before=self.mhz,
            cpu_mhz_after=None if simulated else _cpu_mhz(),
            throttle_events=None if self.throttle is None or throttle_after is None else throttle_after - self.throttle,
            cores=cores, gpu_before=self.gpu,
            gpu_after=nvidia_smi(dev.index) if dev.type == "cuda" and self.gpu is not None else None, **measured)
