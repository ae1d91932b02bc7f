"""The simulated GPU: a host timeline and a device timeline (:class:`SimGPU`), with its streams, events,
CUDA graphs and kernels, the slices of ``torch.cuda`` and ``torch.mps`` that measurefirst uses, made on it, and
the machine seam that puts it in place of the real ones (:class:`SimMachine`)."""

from __future__ import annotations

import contextlib
import math
import random
from dataclasses import replace
from typing import Any, Callable, Iterator

from .devices import Machine
from .simgpu_spec import GpuSpec, _Props
from .simworld import SimSpec, SimWorld, _nothing


class SimBuffer:
    """A device buffer: what a kernel reads or writes, for the L2 model."""

    def __init__(self, nbytes: int, name: str = "buffer") -> None:
        self.nbytes = int(nbytes)
        self.name = name


class _Stream:
    def __init__(self, gpu: "SimGPU", index: int, name: str) -> None:
        self.gpu, self.device_index, self.name = gpu, index, name
        self.tail = 0.0  # device time at which the last queued item finishes
        self.capturing: "_Graph | None" = None

    # torch.cuda.Stream API
    def wait_stream(self, other: "_Stream") -> None:
        self.tail = max(self.tail, other.tail)

    def wait_event(self, event: "_Event") -> None:
        if event.stamp is not None:
            self.tail = max(self.tail, event.stamp)

    def synchronize(self) -> None:
        self.gpu._host_wait(self.tail)

    def query(self) -> bool:
        return self.gpu.world.now >= self.tail

    @property
    def device(self) -> Any:
        import torch

        return torch.device(self.gpu.spec.kind, self.device_index) if self.gpu.spec.kind == "cuda" else torch.device("mps")


class _Event:
    def __init__(self, gpu: "SimGPU", enable_timing: bool = False, **_: Any) -> None:
        self.gpu, self.enable_timing = gpu, enable_timing
        self.stamp: float | None = None

    def record(self, stream: _Stream | None = None) -> None:
        g = self.gpu
        s = stream if stream is not None else g._current_stream()
        if s.capturing is not None:
            raise RuntimeError("simulated GPU: recording a timing event inside a CUDA graph capture")
        g.world.advance(g.spec.record_ns)
        stamp = max(s.tail, g.world.now + g.spec.latency_ns)
        r = g.spec.resolution_ns
        self.stamp = math.ceil(stamp / r) * r if r > 0 else stamp
        s.tail = max(s.tail, stamp)

    def synchronize(self) -> None:
        if self.stamp is None:
            return
        self.gpu._host_wait(self.stamp)

    def query(self) -> bool:
        return self.stamp is None or self.gpu.world.now >= self.stamp

    def elapsed_time(self, end: "_Event") -> float:
        """Milliseconds from this event to ``end``, as torch reports them."""
        if not (self.enable_timing and end.enable_timing):
            raise RuntimeError("simulated GPU: both events need enable_timing=True")
        if self.stamp is None or end.stamp is None:
            raise RuntimeError("simulated GPU: elapsed_time on an event that was not recorded")
        if self.gpu.world.now < max(self.stamp, end.stamp):
            raise RuntimeError("simulated GPU: elapsed_time before the events completed (synchronize first)")
        return (end.stamp - self.stamp) / 1e6


class _Graph:
    def __init__(self, gpu: "SimGPU") -> None:
        self.gpu = gpu
        self.kernels: list[_Kernel] = []
        self.uploaded = False
        self.device_index: int | None = None

    def replay(self) -> None:
        g = self.gpu
        if self.device_index is None:
            raise RuntimeError("simulated GPU: replay of a graph that was never captured")
        g.world.advance(g.spec.graph_launch_ns)
        s = g._current_stream(self.device_index)
        t = max(s.tail, g.world.now + g.spec.latency_ns)
        if not self.uploaded:
            t += g.spec.graph_upload_ns
            self.uploaded = True
        for k in self.kernels:
            t = k.execute(t)
        s.tail = t
        g.graph_replays += 1

    def reset(self) -> None:
        self.kernels, self.uploaded, self.device_index = [], False, None


class _Kernel:
    def __init__(self, gpu: "SimGPU", ns: float, cold_ns: float | None, reads: tuple[SimBuffer, ...],
                 writes: tuple[SimBuffer, ...], alloc: int, first_ns: float, name: str) -> None:
        self.gpu, self.ns, self.cold_ns, self.reads, self.writes = gpu, ns, cold_ns, reads, writes
        self.alloc, self.first_ns, self.name = alloc, first_ns, name
        self.runs = 0

    def execute(self, start: float) -> float:
        """Run on the device from ``start``; returns when it ends."""
        g = self.gpu
        ns = self.ns
        if self.cold_ns is not None and self.reads:
            resident = g._resident_fraction(self.reads)
            ns = self.ns * resident + self.cold_ns * (1.0 - resident)
        if self.runs == 0:
            ns += self.first_ns
        self.runs += 1
        if g.throttle is not None:
            ns *= g.throttle(start)
        if g.spec.noise:
            ns *= max(0.05, 1.0 + g._rng.gauss(0.0, g.spec.noise))
        for b in self.reads + self.writes:
            g._touch(b)
        g.kernels_run += 1
        return start + ns

    def __call__(self) -> None:
        self.gpu._launch(self)


class _DeviceState:
    def __init__(self) -> None:
        self.allocated = 0
        self.peak = 0
        self.num_alloc_retries = 0
        self.num_ooms = 0


class SimGPU:
    """A seeded, fast simulated GPU (``kind="cuda"`` or ``"mps"``) on a :class:`SimWorld`'s host clock.

    ``with gpu.installed():`` makes measurefirst see it in place of ``torch.cuda`` / ``torch.mps``
    (tensors stay on the CPU): ``benchmark``, ``compare``, ``sweep``, ``benchmark_step``, ``doctor``
    and ``profile``'s step times then run their CUDA (or MPS) paths on it, exactly and reproducibly.
    User code launches simulated work with :meth:`kernel`, :meth:`sync_op` (an ``.item()``-style
    implicit synchronization) and side streams from ``gpu.cuda.Stream()``.
    """

    def __init__(self, world: SimWorld | None = None, spec: GpuSpec | None = None, **overrides: Any) -> None:
        self.world = world or SimWorld(SimSpec(timer_ns=0.0))
        self.spec = replace(spec or GpuSpec(), **overrides)
        if self.spec.kind not in ("cuda", "mps"):
            raise ValueError(f"GpuSpec.kind must be 'cuda' or 'mps'; got {self.spec.kind!r}")
        n = self.spec.count if self.spec.kind == "cuda" else 1
        self._rng = random.Random(self.world.spec.seed + 1)
        self._default = [_Stream(self, i, "default") for i in range(n)]
        self._current: list[_Stream] = list(self._default)
        self._streams: list[_Stream] = list(self._default)
        self._device_index = 0
        self._state = [_DeviceState() for _ in range(n)]
        self._cache: dict[int, tuple[SimBuffer, float]] = {}  # id -> (buffer, resident fraction)
        self._default_capture_stream: _Stream | None = None
        self._observers: list[set[str]] = []
        self.sync_debug_mode = 0
        #: optional throttling: a factor on every kernel's device time, as a function of its start (ns)
        self.throttle: Callable[[float], float] | None = None
        self.kernels_run = 0
        self.launches = 0
        self.syncs = 0
        self.implicit_syncs = 0
        self.graph_replays = 0
        self.cuda = _CudaAPI(self)
        self.mps = _MpsAPI(self)

    # -- what user code calls ----------------------------------------------------------------------
    def buffer(self, nbytes: int, name: str = "buffer") -> SimBuffer:
        return SimBuffer(nbytes, name)

    def kernel(self, ns: float, *, cold_ns: float | None = None, reads: tuple[SimBuffer, ...] | list[SimBuffer] = (),
               writes: tuple[SimBuffer, ...] | list[SimBuffer] = (), alloc: int = 0, first_ns: float = 0.0,
               name: str = "kernel") -> Callable[[], None]:
        """A kernel: each call launches it on the current stream (host cost ``launch_ns``; device
        time ``ns``, or ``cold_ns`` when its inputs are not resident in L2; ``first_ns`` extra on
        its first run; ``alloc`` bytes of temporary memory while it is queued)."""
        k = _Kernel(self, float(ns), None if cold_ns is None else float(cold_ns), tuple(reads), tuple(writes),
                    int(alloc), float(first_ns), name)
        return k

    def sync_op(self, name: str = "item") -> Callable[[], None]:
        """An ``.item()``-style call: waits for the device, and warns under ``set_sync_debug_mode``."""

        def item() -> None:
            self.implicit_syncs += 1
            if self.sync_debug_mode == 1:
                import warnings

                warnings.warn("called a synchronizing CUDA operation", UserWarning, stacklevel=2)
            elif self.sync_debug_mode == 2:
                raise RuntimeError("called a synchronizing CUDA operation")
            self._synchronize_device(self._device_index)

        item.__name__ = name
        return item

    def hold(self, nbytes: int) -> None:
        """Allocate ``nbytes`` that stay allocated (activations, optimizer state) until :meth:`release`."""
        st = self._state[self._device_index]
        st.allocated += int(nbytes)
        st.peak = max(st.peak, st.allocated)

    def release(self, nbytes: int) -> None:
        st = self._state[self._device_index]
        st.allocated = max(0, st.allocated - int(nbytes))

    def installed(self) -> Any:
        """Context manager: measurefirst measures on this simulated GPU inside the block."""
        from .devices import use_machine

        return use_machine(SimMachine(self))

    # -- the model ----------------------------------------------------------------------------------
    def _current_stream(self, index: int | None = None) -> _Stream:
        return self._current[self._device_index if index is None else index]

    def _host_wait(self, until: float) -> None:
        w = self.world
        if until > w.now:
            w.advance(until - w.now)
        w.advance(self.spec.sync_ns)
        self.syncs += 1

    def _synchronize_device(self, index: int) -> None:
        for s in self._streams:
            if s.capturing is not None and s.device_index == index:
                raise RuntimeError("simulated GPU: synchronize while a stream is capturing a CUDA graph "
                                   "(operation not permitted when stream is capturing)")
        self._host_wait(max(s.tail for s in self._streams if s.device_index == index))

    def _launch(self, k: _Kernel) -> None:
        self.launches += 1
        for seen in self._observers:
            seen.add(self.spec.kind)
        w = self.world
        w.advance(self.spec.launch_ns)
        s = self._current_stream()
        st = self._state[s.device_index]
        if k.alloc:
            st.peak = max(st.peak, st.allocated + k.alloc)
        if s.capturing is not None:
            s.capturing.kernels.append(k)
            return
        start = max(s.tail, w.now + self.spec.latency_ns)
        s.tail = k.execute(start)

    def _resident_fraction(self, bufs: tuple[SimBuffer, ...]) -> float:
        total = sum(b.nbytes for b in bufs)
        if total <= 0:
            return 1.0
        return sum(b.nbytes * self._cache.get(id(b), (b, 0.0))[1] for b in bufs) / total

    def _touch(self, b: SimBuffer) -> None:
        evict = min(1.0, b.nbytes / (2.0 * self.spec.l2_bytes))
        for key, (buf, frac) in list(self._cache.items()):
            if key != id(b):
                left = frac * (1.0 - evict)
                if left < 1e-9:
                    del self._cache[key]
                else:
                    self._cache[key] = (buf, left)
        self._cache[id(b)] = (b, 1.0 if b.nbytes <= self.spec.l2_bytes else self.spec.l2_bytes / b.nbytes)

    def _flush(self, nbytes: int) -> Callable[[], None]:
        buf = SimBuffer(nbytes, "flush")
        return self.kernel(nbytes / self.spec.flush_bytes_per_ns, writes=(buf,), name="flush")

    def _sleep_kernel(self, cycles: int) -> None:
        self._launch(_Kernel(self, cycles / self.spec.sm_clock_hz * 1e9, None, (), (), 0, 0.0, "sleep"))


class _Nvtx:
    def range_push(self, name: str) -> int:
        return 0

    def range_pop(self) -> int:
        return 0


class _CudaAPI:
    """The slice of ``torch.cuda`` that measurefirst uses, on a :class:`SimGPU`."""

    def __init__(self, gpu: SimGPU) -> None:
        self._gpu = gpu
        self.nvtx = _Nvtx()

    # devices
    def is_available(self) -> bool:
        return self._gpu.spec.kind == "cuda"

    def device_count(self) -> int:
        return len(self._gpu._default)

    def current_device(self) -> int:
        return self._gpu._device_index

    def _index(self, device: Any) -> int:
        if device is None:
            return self._gpu._device_index
        if isinstance(device, int):
            return device
        idx = getattr(device, "index", None)
        if idx is None and isinstance(device, str):
            idx = int(device.split(":")[1]) if ":" in device else None
        return self._gpu._device_index if idx is None else int(idx)

    def set_device(self, device: Any) -> None:
        self._gpu._device_index = self._index(device)

    @contextlib.contextmanager
    def device(self, device: Any) -> Iterator[None]:
        g = self._gpu
        prev = g._device_index
        g._device_index = self._index(device)
        try:
            yield
        finally:
            g._device_index = prev

    def get_device_properties(self, device: Any = None) -> _Props:
        return _Props(self._gpu.spec)

    def get_device_name(self, device: Any = None) -> str:
        return self._gpu.spec.name

    def get_device_capability(self, device: Any = None) -> tuple[int, int]:
        return self._gpu.spec.major, self._gpu.spec.minor

    # streams and events
    def synchronize(self, device: Any = None) -> None:
        self._gpu._synchronize_device(self._index(device))

    def current_stream(self, device: Any = None) -> _Stream:
        return self._gpu._current_stream(self._index(device))

    def default_stream(self, device: Any = None) -> _Stream:
        return self._gpu._default[self._index(device)]

    def Stream(self, device: Any = None, priority: int = 0) -> _Stream:  # noqa: N802 - torch's name
        g = self._gpu
        s = _Stream(g, self._index(device), f"stream{len(g._streams)}")
        g._streams.append(s)
        return s

    @contextlib.contextmanager
    def stream(self, stream: _Stream | None) -> Iterator[None]:
        g = self._gpu
        if stream is None:
            yield
            return
        prev_dev, prev = g._device_index, g._current[stream.device_index]
        g._device_index = stream.device_index  # torch.cuda.stream also switches the current device
        g._current[stream.device_index] = stream
        try:
            yield
        finally:
            g._current[stream.device_index] = prev
            g._device_index = prev_dev

    def Event(self, enable_timing: bool = False, **kw: Any) -> _Event:  # noqa: N802 - torch's name
        return _Event(self._gpu, enable_timing)

    # graphs
    def CUDAGraph(self) -> _Graph:  # noqa: N802 - torch's name
        return _Graph(self._gpu)

    @contextlib.contextmanager
    def graph(self, cuda_graph: _Graph, pool: Any = None, stream: _Stream | None = None,
              capture_error_mode: str = "global") -> Iterator[None]:
        g = self._gpu
        if stream is None:
            # torch.cuda.graph keeps one default capture stream, made on whichever GPU was current
            # at its first use
            if g._default_capture_stream is None:
                g._default_capture_stream = self.Stream()
            stream = g._default_capture_stream
        if stream.device_index != g._device_index:
            raise RuntimeError(f"simulated GPU: capture stream is on cuda:{stream.device_index} but the capture "
                               f"runs on cuda:{g._device_index} (pass stream= on the right device)")
        self.synchronize()
        cuda_graph.reset()
        cuda_graph.device_index = stream.device_index
        stream.wait_stream(g._current[stream.device_index])
        with self.stream(stream):
            stream.capturing = cuda_graph
            try:
                yield
            finally:
                stream.capturing = None

    # memory
    def memory_allocated(self, device: Any = None) -> int:
        return self._gpu._state[self._index(device)].allocated

    def max_memory_allocated(self, device: Any = None) -> int:
        return self._gpu._state[self._index(device)].peak

    def max_memory_reserved(self, device: Any = None) -> int:
        peak = self._gpu._state[self._index(device)].peak
        block = 2 * 2**20
        return -(-peak // block) * block

    def reset_peak_memory_stats(self, device: Any = None) -> None:
        st = self._gpu._state[self._index(device)]
        st.peak = st.allocated

    def memory_stats(self, device: Any = None) -> dict[str, int]:
        st = self._gpu._state[self._index(device)]
        return {"num_alloc_retries": st.num_alloc_retries, "num_ooms": st.num_ooms,
                "allocated_bytes.all.current": st.allocated, "allocated_bytes.all.peak": st.peak}

    def empty_cache(self) -> None:
        return None

    # sync debug mode and sleep
    def get_sync_debug_mode(self) -> int:
        return self._gpu.sync_debug_mode

    def set_sync_debug_mode(self, mode: int | str) -> None:
        modes = {"default": 0, "warn": 1, "error": 2}
        self._gpu.sync_debug_mode = modes[mode] if isinstance(mode, str) else int(mode)

    def _sleep(self, cycles: int) -> None:
        self._gpu._sleep_kernel(cycles)


class _MpsEvents:
    def __init__(self, gpu: SimGPU) -> None:
        self._gpu = gpu

    def Event(self, enable_timing: bool = False) -> _Event:  # noqa: N802 - torch's name
        return _Event(self._gpu, enable_timing)


class _MpsAPI:
    """The slice of ``torch.mps`` that measurefirst uses, on a :class:`SimGPU` of kind ``"mps"``."""

    def __init__(self, gpu: SimGPU) -> None:
        self._gpu = gpu
        self.event = _MpsEvents(gpu) if gpu.spec.mps_events else None

    def synchronize(self) -> None:
        self._gpu._synchronize_device(0)


class SimMachine(Machine):
    """The machine seam (:class:`measurefirst.measure.devices.Machine`) with a simulated GPU and host clock."""

    simulated = True

    def __init__(self, gpu: SimGPU) -> None:
        self.gpu = gpu

    @property
    def cuda(self) -> Any:
        if self.gpu.spec.kind != "cuda":
            raise RuntimeError("simulated machine has no CUDA device")
        return self.gpu.cuda

    @property
    def mps(self) -> Any:
        return self.gpu.mps if self.gpu.spec.kind == "mps" else None

    def clock_ns(self) -> int:
        return self.gpu.world.now

    def context_switches(self) -> int | None:
        return self.gpu.world.switches

    def process_cpu_ns(self) -> int:
        return self.gpu.world.cpu_ns()

    def run_delays_ns(self) -> dict[int, int] | None:
        return dict(self.gpu.world.waited_ns)

    def run_delay_ns(self, refresh: bool = True) -> int | None:
        return sum(self.gpu.world.waited_ns.values())

    def cuda_available(self) -> bool:
        return self.gpu.spec.kind == "cuda"

    def mps_available(self) -> bool:
        return self.gpu.spec.kind == "mps"

    def tensor_device(self, device: Any) -> Any:
        import torch

        return torch.device("cpu")

    def probe_kernel(self, device: Any) -> Callable[[], object]:
        if device.type == "cpu":
            return _nothing
        return self.gpu.kernel(0.0, name="probe")

    def flush_kernel(self, device: Any, nbytes: int) -> Callable[[], object]:
        if device.type == "cpu":
            return super().flush_kernel(device, nbytes)
        return self.gpu._flush(nbytes)

    @contextlib.contextmanager
    def observe(self) -> Iterator[set[str]]:
        with super().observe() as seen:
            self.gpu._observers.append(seen)
            try:
                yield seen
            finally:
                self.gpu._observers.remove(seen)
