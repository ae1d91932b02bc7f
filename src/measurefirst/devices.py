"""Devices: resolve a user's device spec, synchronize, describe the environment.

Everything device-specific that the timers and the engine need lives here, so the
rest of the package talks to one small interface.
"""

from __future__ import annotations

import datetime as _dt
import functools
import os
import platform
import socket
import sys
from pathlib import Path
from typing import Any, Callable, Union

import torch

DeviceLike = Union[str, torch.device, None]

#: Used when the last-level cache size cannot be read (bytes).
FALLBACK_CPU_LLC_BYTES = 64 * 1024 * 1024


class DeviceError(ValueError):
    """A device was asked for that this machine does not have, or is misspelt."""


def available_devices() -> list[str]:
    """The device strings usable on this machine, e.g. ``["cpu", "cuda:0", "mps"]``."""
    found = ["cpu"]
    if torch.cuda.is_available():
        found += [f"cuda:{i}" for i in range(torch.cuda.device_count())]
    if _mps_available():
        found.append("mps")
    return found


def _mps_available() -> bool:
    backend = getattr(torch.backends, "mps", None)
    return bool(backend is not None and backend.is_available())


def resolve_device(device: DeviceLike = "auto") -> torch.device:
    """Turn ``"auto"``, ``"cpu"``, ``"cuda"``, ``"cuda:1"``, ``"mps"`` or a ``torch.device`` into
    a concrete, available ``torch.device`` (CUDA devices always carry an index).

    ``"auto"`` (or ``None``) picks CUDA, then MPS, then the CPU. An unavailable device raises
    :class:`DeviceError` listing the devices that are available.
    """
    if device is None or (isinstance(device, str) and device.strip().lower() == "auto"):
        if torch.cuda.is_available():
            return torch.device("cuda", torch.cuda.current_device())
        if _mps_available():
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
        if not torch.cuda.is_available():
            raise DeviceError(f"device {str(device)!r} is not available: no CUDA device; available: {avail}")
        index = torch.cuda.current_device() if dev.index is None else dev.index
        if index >= torch.cuda.device_count():
            raise DeviceError(
                f"device {str(device)!r} is not available: this machine has "
                f"{torch.cuda.device_count()} CUDA device(s); available: {avail}"
            )
        return torch.device("cuda", index)
    if dev.type == "mps":
        if not _mps_available():
            raise DeviceError(f"device {str(device)!r} is not available: no MPS device; available: {avail}")
        return torch.device("mps")
    raise DeviceError(f"device type {dev.type!r} is not supported; available: {avail}")


def synchronizer(device: torch.device) -> Callable[[], None]:
    """A zero-argument function that waits until all work queued on ``device`` is done."""
    if device.type == "cuda":
        index = device.index

        def sync_cuda() -> None:
            torch.cuda.synchronize(index)

        return sync_cuda
    if device.type == "mps":
        return torch.mps.synchronize
    return _no_sync


def _no_sync() -> None:
    """CPU work is synchronous: nothing to wait for."""


def last_level_cache_bytes(device: torch.device) -> int:
    """Size of the cache that a cold-cache flush must evict: the GPU's L2 on CUDA, the CPU's
    last-level cache otherwise (falls back to :data:`FALLBACK_CPU_LLC_BYTES`)."""
    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        size = int(getattr(props, "L2_cache_size", 0) or 0)
        return size if size > 0 else 50 * 1024 * 1024
    return cpu_llc_bytes()


@functools.lru_cache(maxsize=1)
def cpu_llc_bytes() -> int:
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
    return best_size if best_size > 0 else FALLBACK_CPU_LLC_BYTES


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
        return torch.cuda.get_device_name(device)
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
    }
    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        env["cuda_driver_version"] = _cuda_driver_version()
        env["gpu_capability"] = f"{props.major}.{props.minor}"
        env["gpu_memory_bytes"] = int(props.total_memory)
        env["gpu_l2_bytes"] = int(getattr(props, "L2_cache_size", 0) or 0)
    return env
