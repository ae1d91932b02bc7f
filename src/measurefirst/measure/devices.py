"""Devices: resolve a user's device spec, synchronize, describe the environment.

Everything device-specific that the timers and the engine need lives here, so the
rest of the package talks to one small interface.
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime as _dt
import functools
import os
import platform
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterator, Union

import torch

DeviceLike = Union[str, torch.device, None]

try:  # not on Windows
    import resource as _resource
except ImportError:  # pragma: no cover - Windows
    _resource = None  # type: ignore[assignment]

#: Used when the last-level cache size cannot be read (bytes).
FALLBACK_CPU_LLC_BYTES = 64 * 1024 * 1024
#: Used when a CUDA device does not report its L2 size (bytes; the largest current L2s are ~126 MiB).
FALLBACK_GPU_L2_BYTES = 128 * 1024 * 1024
#: The largest system-level cache of Apple silicon that an MPS flush must evict (M-series Ultra).
MPS_SLC_BYTES = 96 * 1024 * 1024


class DeviceError(ValueError):
    """A device was asked for that this machine does not have, or is misspelt."""


class _RunDelayReader:
    """Reads ``/proc/self/task/*/schedstat`` through file descriptors kept open per thread: the second
    field is the time the thread waited for a CPU while runnable. Open once, each read is a ``pread``
    (measured here: 5 µs for the four threads of a torch process, where listing and opening every file took 71)."""

    def __init__(self) -> None:
        self._fds: dict[int, int] = {}
        self._lock = threading.Lock()

    def _refresh(self) -> None:
        alive = {int(t) for t in os.listdir("/proc/self/task")}
        for tid in [t for t in self._fds if t not in alive]:
            os.close(self._fds.pop(tid))
        for tid in alive - self._fds.keys():
            with contextlib.suppress(OSError):
                self._fds[tid] = os.open(f"/proc/self/task/{tid}/schedstat", os.O_RDONLY)

    def _values(self, refresh: bool) -> dict[int, int] | None:
        with self._lock:
            try:
                if refresh or not self._fds:
                    self._refresh()
                out = {}
                for tid, fd in self._fds.items():
                    with contextlib.suppress(OSError):  # a thread that ended since
                        out[tid] = int(os.pread(fd, 128, 0).split()[1])
                return out or None
            except (OSError, ValueError, IndexError):
                return None

    def read(self, me: int) -> dict[int, int] | None:
        values = self._values(True)
        return None if values is None else {0 if t == me else t: v for t, v in values.items()}

    def total(self, refresh: bool) -> int | None:
        values = self._values(refresh)
        return None if values is None else sum(values.values())

    def forget(self) -> None:
        """After a fork: the descriptors read the parent's threads; the child closes its copies and opens its own."""
        for fd in self._fds.values():
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fds = {}
        self._lock = threading.Lock()


_RUN_DELAYS = _RunDelayReader()
if hasattr(os, "register_at_fork"):  # not on Windows
    os.register_at_fork(after_in_child=_RUN_DELAYS.forget)


# -- the seam between measurefirst and the machine -------------------------------------------------
class Machine:
    """Everything measurefirst reads from the machine: the host clock, context switches, and the
    ``torch.cuda`` / ``torch.mps`` APIs. The simulated GPU (:mod:`measurefirst.measure.simulate`) installs a
    replacement with :func:`use_machine`, so every CUDA and MPS path runs in the ordinary test suite."""

    simulated = False

    @property
    def cuda(self) -> Any:
        return torch.cuda

    @property
    def mps(self) -> Any:
        return getattr(torch, "mps", None)

    def clock_ns(self) -> int:
        return time.perf_counter_ns()

    def process_cpu_ns(self) -> int:
        """The CPU time of this process so far, every thread (ns)."""
        return time.process_time_ns()

    def context_switches(self) -> int | None:
        """Involuntary context switches of this process so far (None where the OS does not say)."""
        if _resource is None:  # pragma: no cover - Windows
            return None
        return int(_resource.getrusage(_resource.RUSAGE_SELF).ru_nivcsw)

    def run_delays_ns(self) -> dict[int, int] | None:
        """How long each thread of this process now alive has waited for a CPU while runnable, so far
        (ns, by thread id, the calling thread's under 0; Linux's ``schedstat``; None where the OS does not
        say)."""
        return _RUN_DELAYS.read(threading.get_native_id())

    def run_delay_ns(self, refresh: bool = True) -> int | None:
        """The sum over this process's threads of :meth:`run_delays_ns` (None where the OS does not say):
        read in a few µs. ``refresh=False`` reads the threads found by the last read (a thread started
        since is left out): what a sample's second reading needs, at the cost of a read per thread."""
        return _RUN_DELAYS.total(refresh)

    def cuda_available(self) -> bool:
        return bool(torch.cuda.is_available())

    def mps_available(self) -> bool:
        backend = getattr(torch.backends, "mps", None)
        return bool(backend is not None and backend.is_available())

    def tensor_device(self, device: torch.device) -> torch.device:
        """Where tensors for ``device`` live (the device itself; the CPU under simulation)."""
        return device

    def probe_kernel(self, device: torch.device) -> Callable[[], object]:
        """The cheapest call that launches device work: what every sample pays at least once."""
        if device.type == "cpu":
            return _no_sync
        buf = torch.zeros(1, device=device)
        return buf.zero_

    def flush_kernel(self, device: torch.device, nbytes: int) -> Callable[[], object]:
        """A call that writes ``nbytes`` on ``device``, evicting its caches."""
        buf = torch.zeros(max(nbytes // 4, 1), dtype=torch.int32, device=device)
        if device.type == "cpu":
            def flush() -> None:
                buf.add_(1)  # read and write every line, evicting what the function left in cache
            return flush
        return buf.zero_

    @contextlib.contextmanager
    def observe(self) -> Iterator[set[str]]:
        """Collect the device types (``"cpu"``, ``"cuda"``, ...) of every tensor the ops inside touch."""
        from torch.utils._python_dispatch import TorchDispatchMode

        seen: set[str] = set()

        def note(x: Any) -> None:
            if isinstance(x, torch.Tensor):
                seen.add(x.device.type)
            elif isinstance(x, (list, tuple)):
                for y in x:
                    note(y)

        class _Observer(TorchDispatchMode):  # type: ignore[no-untyped-call]
            def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
                out = func(*args, **(kwargs or {}))
                note(args)
                note(list((kwargs or {}).values()))
                note(out)
                return out

        with _Observer():  # type: ignore[no-untyped-call]
            yield seen


#: The machine of the current context: the real one, unless :func:`use_machine` installed another for a
#: block (a context variable, not a swapped global: a simulation installed in one thread or task is not
#: seen by another). Read once where a call starts (a timer, a device's synchronizer) and handed down.
_CURRENT: contextvars.ContextVar[Machine] = contextvars.ContextVar("measurefirst_machine", default=Machine())


def machine() -> Machine:
    """The machine measurefirst measures on (the real one unless a simulation is installed)."""
    return _CURRENT.get()


@contextlib.contextmanager
def use_machine(m: Machine) -> Iterator[Machine]:
    """Measure on ``m`` inside the block (the simulated GPU uses this)."""
    token = _CURRENT.set(m)
    try:
        yield m
    finally:
        _CURRENT.reset(token)


def cuda_api() -> Any:
    """The ``torch.cuda``-like API of the current machine (real or simulated)."""
    return machine().cuda



def available_devices() -> list[str]:
    """The device strings usable on this machine, e.g. ``["cpu", "cuda:0", "mps"]``."""
    m = machine()
    found = ["cpu"]
    if m.cuda_available():
        found += [f"cuda:{i}" for i in range(m.cuda.device_count())]
    if m.mps_available():
        found.append("mps")
    return found


def is_auto(device: DeviceLike) -> bool:
    """Whether ``device`` asks for the automatic choice (``"auto"`` in any case, or None)."""
    return device is None or (isinstance(device, str) and device.strip().lower() == "auto")


def resolve_device(device: DeviceLike = "auto") -> torch.device:
    """Turn ``"auto"``, ``"cpu"``, ``"cuda"``, ``"cuda:1"``, ``"mps"`` or a ``torch.device`` into
    a concrete, available ``torch.device`` (CUDA devices always carry an index).

    ``"auto"`` (or ``None``) picks CUDA, then MPS, then the CPU. An unavailable device raises
    :class:`DeviceError` listing the devices that are available.
    """
    m = machine()
    if is_auto(device):
        if m.cuda_available():
            return torch.device("cuda", m.cuda.current_device())
        if m.mps_available():
            return torch.device("mps")
        return torch.device("cpu")
    if not isinstance(device, (str, torch.device)):
        raise TypeError(
            f"device must be a string such as 'auto', 'cpu', 'cuda:0' or 'mps', or a torch.device; "
            f"got {type(device).__name__}"
        )
    try:
        dev = torch.device(device.strip() if isinstance(device, str) else device)
    except (RuntimeError, ValueError) as exc:
        raise DeviceError(
            f"unknown device {device!r}; use 'auto' or one of: {', '.join(available_devices())}"
        ) from exc
    avail = ", ".join(available_devices())
    if dev.type == "cpu":
        return torch.device("cpu")
    if dev.type == "cuda":
        if not m.cuda_available():
            raise DeviceError(f"device {str(device)!r} is not available: no CUDA device; available: {avail}")
        index = m.cuda.current_device() if dev.index is None else dev.index
        if index >= m.cuda.device_count():
            raise DeviceError(
                f"device {str(device)!r} is not available: this machine has "
                f"{m.cuda.device_count()} CUDA device(s); available: {avail}"
            )
        return torch.device("cuda", index)
    if dev.type == "mps":
        if not m.mps_available():
            raise DeviceError(f"device {str(device)!r} is not available: no MPS device; available: {avail}")
        return torch.device("mps")
    raise DeviceError(f"device type {dev.type!r} is not supported; available: {avail}")


def synchronizer(device: torch.device, on: Machine | None = None) -> Callable[[], None]:
    """A zero-argument function that waits until all work queued on ``device`` (of the machine ``on``,
    default the current one) is done."""
    m = on or machine()
    if device.type == "cuda":
        index = device.index
        cuda = m.cuda

        def sync_cuda() -> None:
            cuda.synchronize(index)

        return sync_cuda
    if device.type == "mps":
        return m.mps.synchronize  # type: ignore[no-any-return]
    return _no_sync


def _no_sync() -> None:
    """CPU work is synchronous: nothing to wait for."""


def last_level_cache_bytes(device: torch.device) -> int:
    """Size of the cache that a cold-cache flush must evict: the GPU's L2 on CUDA, the CPU's
    last-level cache otherwise (:func:`known_cache_bytes`; where the device does not say, :data:`FALLBACK_GPU_L2_BYTES`
    on CUDA, :data:`FALLBACK_CPU_LLC_BYTES` otherwise)."""
    return known_cache_bytes(device) or (FALLBACK_GPU_L2_BYTES if device.type == "cuda" else FALLBACK_CPU_LLC_BYTES)


def known_cache_bytes(device: torch.device) -> int:
    """The device's last-level cache as it reports it (0 where it does not: a sweep then calls no point
    cache-bound): the GPU's L2 on CUDA, the CPU's last-level cache otherwise."""
    if device.type == "cuda":
        props = machine().cuda.get_device_properties(device)
        return max(int(getattr(props, "L2_cache_size", 0) or 0), 0)
    if device.type == "mps":
        # Apple GPUs share the system-level cache (up to 96 MiB on Ultra chips), which the CPU's
        # L2 does not describe: size for the largest.
        return max(_cpu_llc_reported(), MPS_SLC_BYTES)
    return _cpu_llc_reported()


@functools.lru_cache(maxsize=1)
def _cpu_llc_reported() -> int:
    best_level, best_size = -1, 0
    base = Path("/sys/devices/system/cpu/cpu0/cache")
    try:
        for index in sorted(base.glob("index*")):
            level = int((index / "level").read_text().strip())
            kind = (index / "type").read_text().strip()
            if kind == "Instruction":
                continue
            size = _parse_size((index / "size").read_text().strip())
            if level > best_level or (level == best_level and size > best_size):
                best_level, best_size = level, size
    except (OSError, ValueError):
        best_size = 0
    if best_size <= 0 and sys.platform == "darwin":  # pragma: no cover - macOS only
        try:
            import subprocess

            out = subprocess.run(
                ["sysctl", "-n", "hw.l3cachesize"], capture_output=True, text=True, timeout=2
            ).stdout.strip() or "0"
            best_size = int(out)
            if best_size <= 0:
                out = subprocess.run(
                    ["sysctl", "-n", "hw.l2cachesize"], capture_output=True, text=True, timeout=2
                ).stdout.strip() or "0"
                best_size = int(out)
        except (OSError, ValueError):
            best_size = 0
    return max(best_size, 0)


def _parse_size(text: str) -> int:
    text = text.strip().upper()
    for suffix, mult in (("K", 1024), ("M", 1024**2), ("G", 1024**3)):
        if text.endswith(suffix):
            return int(float(text[:-1]) * mult)
    return int(text)


@functools.lru_cache(maxsize=1)
def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith(("model name", "hardware", "cpu model")):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    if sys.platform == "darwin":  # pragma: no cover - macOS only
        try:
            import subprocess

            return subprocess.run(
                ["sysctl", "-n", "machdep.cpu.brand_string"], capture_output=True, text=True, timeout=2
            ).stdout.strip() or platform.processor()
        except OSError:
            pass
    return platform.processor() or platform.machine() or "unknown"


def device_name(device: torch.device) -> str:
    if device.type == "cuda":
        return str(machine().cuda.get_device_name(device))
    if device.type == "mps":
        return f"Apple MPS ({cpu_model()})"
    return cpu_model()


def _cuda_driver_version() -> str | None:
    getter = getattr(torch._C, "_cuda_getDriverVersion", None)
    if getter is None:
        return None
    try:
        v = int(getter())
    except Exception:  # noqa: BLE001 - any failure means "unknown"
        return None
    return f"{v // 1000}.{(v % 1000) // 10}" if v > 0 else None


def environment(device: torch.device) -> dict[str, Any]:
    """Metadata recorded with every result: what ran where, and when."""
    env: dict[str, Any] = {
        "device": str(device),
        "device_type": device.type,
        "device_name": device_name(device),
        "torch_version": torch.__version__,
        "cuda_version": torch.version.cuda,
        "cuda_driver_version": None,
        "cpu_model": cpu_model(),
        "cpu_count": os.cpu_count(),
        "torch_num_threads": torch.get_num_threads(),
        "python_version": platform.python_version(),
        "platform": platform.platform(),
        "hostname": socket.gethostname(),
        "timestamp": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "measurefirst_version": getattr(sys.modules.get("measurefirst"), "__version__", None),
    }
    m = machine()
    if m.simulated:
        env["simulated"] = True
    if device.type == "cuda":
        props = m.cuda.get_device_properties(device)
        env["cuda_driver_version"] = _cuda_driver_version()
        env["gpu_capability"] = f"{props.major}.{props.minor}"
        env["gpu_memory_bytes"] = int(props.total_memory)
        env["gpu_l2_bytes"] = int(getattr(props, "L2_cache_size", 0) or 0)
    return env


def tf32_matmul_enabled() -> bool:
    """Whether float32 matrix products on CUDA may use TF32, read from whichever API the user set.

    torch 2.9+ has ``torch.backends.cuda.matmul.fp32_precision`` (``"tf32"``/``"ieee"``/``"none"``);
    once it is set, reading the legacy ``allow_tf32`` or ``get_float32_matmul_precision()`` raises.
    This reads the new API first, falls back to the legacy one, and never raises."""
    matmul = getattr(getattr(torch.backends, "cuda", None), "matmul", None)
    new = getattr(matmul, "fp32_precision", None) if matmul is not None else None
    if isinstance(new, str) and new != "none":
        return new == "tf32"
    generic = getattr(torch.backends, "fp32_precision", None)
    if isinstance(generic, str) and generic not in ("none", ""):
        return generic == "tf32"
    try:
        return bool(getattr(matmul, "allow_tf32", False))
    except RuntimeError:  # mixed legacy and new settings: torch refuses to say
        return False
