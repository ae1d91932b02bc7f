"""The simulated GPU's spec (:class:`GpuSpec`): its costs in nanoseconds, its cache and memory, and the
device properties that ``torch.cuda.get_device_properties`` reports from it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GpuSpec:
    """Costs of the simulated GPU, in nanoseconds (host costs advance the host clock; device costs
    the device timeline).

    launch_ns: host cost of one kernel launch (Python + dispatch + driver). latency_ns: from a
    launch (or an event record) until the device can start it. record_ns: host cost of recording an
    event. sync_ns: host cost of a synchronize once the queue has drained. l2_bytes: the L2 cache;
    a kernel whose inputs are resident runs in its warm time, otherwise in its cold time; a write of
    ``n`` bytes evicts a fraction ``n / (2 * l2_bytes)`` of everything else (so only a flush of at
    least twice the L2 leaves nothing resident). flush_bytes_per_ns: speed of a flush kernel.
    graph_upload_ns: the first replay of a CUDA graph pays this on the device (instantiation and
    upload). graph_launch_ns: host cost of one replay. resolution_ns: event timestamps are multiples
    of this (0.5 µs on CUDA; MPS completion handlers are far coarser). sm_clock_hz: the clock of
    ``_sleep(cycles)``. noise: relative standard deviation of every kernel's device time.
    """

    name: str = "Simulated GPU"
    kind: str = "cuda"
    count: int = 1
    launch_ns: float = 4000.0
    latency_ns: float = 2000.0
    record_ns: float = 500.0
    sync_ns: float = 1000.0
    l2_bytes: int = 50 * 2**20
    flush_bytes_per_ns: float = 3000.0
    graph_upload_ns: float = 200_000.0
    graph_launch_ns: float = 6000.0
    resolution_ns: float = 500.0
    sm_clock_hz: float = 1.98e9
    major: int = 9
    minor: int = 0
    total_memory: int = 80 * 2**30
    noise: float = 0.0
    mps_events: bool = True


class _Props:
    def __init__(self, spec: GpuSpec) -> None:
        self.name = spec.name
        self.major, self.minor = spec.major, spec.minor
        self.total_memory = spec.total_memory
        self.L2_cache_size = spec.l2_bytes
        self.multi_processor_count = 132
