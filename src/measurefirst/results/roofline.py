"""A machine's measured roofs (:class:`Peaks`) and where a point sits under them (:class:`Bound`). The types
live with the results (a sweep stores its peaks; renderers read them); :mod:`measurefirst.tools.roofline`
measures the roofs, and re-exports these."""

from __future__ import annotations

import math
from dataclasses import dataclass

from .base import shown
from .findings import ROOF_MAX

#: A point whose time is at most this multiple of the fitted fixed overhead is overhead-bound.
OVERHEAD_BOUND_FACTOR = 2.0
#: Without a fit: a point reaching less than this fraction of its roof is overhead-bound.
OVERHEAD_BOUND_FRACTION = 0.05
#: Fields of :class:`Peaks` that older files and cache entries lack.
PROVENANCE_FIELDS = ("measured_at", "load", "cpus", "cache_bytes")


@dataclass(frozen=True)
class Peaks:
    """Measured roofs: matrix-product FLOP/s and copy bandwidth (bytes/s) on one device and dtype."""

    device: str
    device_name: str
    dtype: str
    flops_per_s: float
    bytes_per_s: float
    matmul_size: int
    copy_bytes: int
    threads: int
    host: str
    #: how it was measured: when (UTC, ISO 8601), the 1-minute load average then and the CPU count
    #: ("" / -1 / 0 when unknown: a cache entry or a file from before they were recorded)
    measured_at: str = ""
    load: float = -1.0
    cpus: int = 0
    #: the device's last-level cache in bytes (0: unknown): a point that moves no more than this may be served
    #: from the cache, which the copy's memory roof (measured four times larger) does not bound
    cache_bytes: int = 0

    @property
    def ridge(self) -> float:
        """Arithmetic intensity (FLOP/byte) where the memory roof meets the compute roof."""
        return self.flops_per_s / self.bytes_per_s

    def attainable(self, intensity: float) -> float:
        return min(self.flops_per_s, intensity * self.bytes_per_s)

    def __str__(self) -> str:
        return shown(self, "peaks")


@dataclass(frozen=True)
class Bound:
    """Where a point sits under the roofline."""

    kind: str  # "overhead-bound", "memory-bound", "cache-bound", "compute-bound", "unknown"
    fraction: float | None  # achieved fraction of the relevant roof
    roof: str | None  # "memory" or "compute"


def classify(seconds: float, flops: float | None, nbytes: float | None, p: Peaks | None, *,
             overhead_s: float | None = None) -> Bound:
    """Classify one point. Overhead-bound when its time is within
    :data:`OVERHEAD_BOUND_FACTOR` x the fitted fixed overhead (or, without a fit, when it reaches
    under :data:`OVERHEAD_BOUND_FRACTION` of its roof); else memory- or compute-bound by which roof
    is lower at its arithmetic intensity, with the achieved fraction of that roof; a memory-bound point that moves no
    more than the device's last-level cache (``p.cache_bytes``) is cache-bound: the memory roof, measured from
    memory, does not bound it, whatever fraction of it it reaches."""
    if p is None or seconds <= 0 or not math.isfinite(seconds):
        return Bound("unknown", None, None)
    flop_rate = None if not flops else flops / seconds
    byte_rate = None if not nbytes else nbytes / seconds
    if flops and nbytes:
        intensity = flops / nbytes
        roof = "compute" if intensity >= p.ridge else "memory"
    elif flops:
        roof = "compute"
    elif nbytes:
        roof = "memory"
    else:
        return Bound("unknown", None, None)
    fraction = (flop_rate / p.flops_per_s) if roof == "compute" else (byte_rate / p.bytes_per_s)  # type: ignore[operator]
    if overhead_s is not None and overhead_s > 0:
        if seconds <= OVERHEAD_BOUND_FACTOR * overhead_s:
            return Bound("overhead-bound", fraction, roof)
    elif fraction < OVERHEAD_BOUND_FRACTION:
        return Bound("overhead-bound", fraction, roof)
    if roof == "memory" and nbytes and 0 < nbytes <= p.cache_bytes:
        return Bound("cache-bound", fraction, roof)
    return Bound(f"{roof}-bound", fraction, roof)


def over_roof(b: Bound) -> bool:
    """A point above its roof (past :data:`~measurefirst.results.findings.ROOF_MAX`): the roof is the wrong number. Not
    a cache-bound point, which no memory roof bounds."""
    return b.fraction is not None and b.fraction > ROOF_MAX and b.kind != "cache-bound"
