"""A machine's measured roofs (:class:`Peaks`) and where a point sits under them (:class:`Bound`). The types
live with the results (a sweep stores its peaks; renderers read them); :mod:`measurefirst.tools.roofline`
measures and classifies, and re-exports them."""

from __future__ import annotations

from dataclasses import dataclass

from .base import shown

#: Fields of :class:`Peaks` that older files and cache entries lack.
PROVENANCE_FIELDS = ("measured_at", "load", "cpus")


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

    kind: str  # "overhead-bound", "memory-bound", "compute-bound", "unknown"
    fraction: float | None  # achieved fraction of the relevant roof
    roof: str | None  # "memory" or "compute"
