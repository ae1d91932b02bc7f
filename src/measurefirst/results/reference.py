"""Experimental: a speed reference interleaved with the samples (``benchmark(..., reference=True)``).

On a machine whose speed changes during a run (another tenant, frequency scaling), two runs of the
same code disagree by more than either run's interval. A fixed reference workload, timed right after
each sample, tracks the machine's speed sample by sample; dividing each sample by that speed gives the
time the call would have taken in the machine's *fast state*. The rules:

* **The reference.** ``True``: :func:`reference_work`, a pure-Python integer loop (no allocation, no
  memory traffic); or any callable. Its loop count is chosen so that a reference sample lasts about
  as long as a measured sample (at least one call).
* **The speed factor** of sample *i* is the reference's net time per call right after it (the timer
  overhead measured by calibration subtracted) over the reference's *fast state*: the faster mode's
  median when the reference times split into two modes (:func:`measurefirst.results.stats.two_modes`), else
  their median. 1 means the fast state; 1.8 means 1.8x slower than it.
* **The normalized estimate** is the median over the used samples of the per-call time with the
  sample's net time divided by its speed factor (the timer overhead is added back unscaled).
* The raw statistics (``median``, ``ci``...) do not change: the normalized estimate is reported next
  to them, with the median speed factor. Whether it lowers the run-to-run spread depends on how
  alike the reference and the measured code respond to what slows the machine (a pure-Python loop
  and a memory-bound copy need not): ``benchmarks/runtorun.py --reference`` measures it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from . import stats

#: Iterations of the built-in reference call (a few microseconds on a current CPU).
REFERENCE_ITERATIONS = 200
#: Reference calls timed to estimate its per-call time before sampling.
REFERENCE_PROBES = 5
BUILTIN_LABEL = "python-int-loop"


def reference_work() -> None:
    """The built-in reference: integer arithmetic in a Python loop, nothing allocated."""
    x = 0
    for i in range(REFERENCE_ITERATIONS):
        x = (x + i) & 0xFF


@dataclass(frozen=True)
class Normalized:
    """A measurement normalized to the machine's fast state (see the module docstring)."""

    median: float  # seconds per call, normalized
    speed_factor: float  # median over used samples of the reference's time over its fast state
    fast_reference_ns: float  # the reference's fast state, ns per call
    two_speeds: bool  # the reference's times split into two modes


def reference_number(sample_ns: float, reference_call_ns: float) -> int:
    """Reference calls per sample: about as long as a measured sample, at least one."""
    if not (reference_call_ns > 0 and math.isfinite(sample_ns)):
        return 1
    return max(1, round(sample_ns / reference_call_ns))


def fast_state(reference_per_call_ns: np.ndarray) -> tuple[float, bool]:
    """The reference's fast state (ns per call) and whether it saw two speeds."""
    modes = stats.two_modes(reference_per_call_ns)
    if modes is not None:
        return modes.fast, True
    return float(np.median(reference_per_call_ns)), False


class Sampled(Protocol):
    """What :func:`normalize` reads of a measurement (:class:`measurefirst.results.kinds.Measurement`)."""

    @property
    def samples_ns(self) -> tuple[float, ...]: ...
    @property
    def numbers(self) -> tuple[int, ...]: ...
    @property
    def used_mask(self) -> np.ndarray: ...


class Reference(Protocol):
    """What :func:`normalize` reads of the reference (:class:`measurefirst.results.kinds.SpeedReference`)."""

    @property
    def samples_ns(self) -> tuple[float, ...]: ...
    @property
    def number(self) -> int: ...
    @property
    def overhead_ns(self) -> float: ...


def normalize(m: Sampled, ref: Reference) -> Normalized | None:
    """``m`` normalized to the fast state of the reference interleaved with it; None when there is
    nothing to normalize (no samples, or no used sample whose reference read any time). A sample
    whose reference read no time (at or below the timer's overhead: a clock tick lost to the noise)
    says nothing about the machine's speed and is left out, not the whole normalization."""
    n = min(len(ref.samples_ns), len(m.samples_ns))
    if n == 0:
        return None
    ref_net = (np.asarray(ref.samples_ns[:n], dtype=float) - ref.overhead_ns) / ref.number
    used = m.used_mask[:n] & (ref_net > 0)
    if not used.any():
        return None
    fast, two = fast_state(ref_net[ref_net > 0])
    factors = np.where(ref_net > 0, ref_net, fast) / fast
    samples = np.asarray(m.samples_ns[:n], dtype=float)
    numbers = np.asarray(m.numbers[:n], dtype=float)
    normalized = ((samples - ref.overhead_ns) / factors + ref.overhead_ns) / numbers
    return Normalized(float(np.median(normalized[used])) / 1e9, float(np.median(factors[used])), fast, two)
