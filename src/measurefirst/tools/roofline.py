"""Machine peaks (matrix-product FLOP/s, copy bandwidth) and roofline classification.

Peaks are *measured* on the chosen device and dtype with :func:`~measurefirst.benchmark`, and cached
per machine, device, dtype and thread count in the results store.
"""

from __future__ import annotations

import json
import socket
from dataclasses import asdict, replace
from typing import Any

import torch

from ..measure.devices import DeviceLike, device_name, known_cache_bytes, last_level_cache_bytes, resolve_device
from ..measure.dtypes import torch_dtype
from ..results.roofline import (OVERHEAD_BOUND_FACTOR as OVERHEAD_BOUND_FACTOR,
                                OVERHEAD_BOUND_FRACTION as OVERHEAD_BOUND_FRACTION, PROVENANCE_FIELDS as PROVENANCE_FIELDS,
                                Bound as Bound, Peaks as Peaks, classify as classify)

#: A cached peak measured while the 1-minute load average exceeded this fraction of the CPUs is measured
#: again once the machine's load has fallen under this fraction of the load then (other processes shared
#: the cores it timed; a 1-minute average takes most of a minute of quiet to halve).
PEAK_LOAD_FRACTION = 0.5


def _cache_key(device: torch.device, dtype: torch.dtype) -> str:
    return json.dumps([socket.gethostname(), device_name(device), str(device), str(dtype).replace("torch.", ""),
                       torch.get_num_threads(), torch.__version__])


def measure_peaks(device: DeviceLike = "auto", dtype: str | torch.dtype = "float32", *, budget: float = 1.0,
                  sizes: tuple[int, ...] | None = None) -> Peaks:
    """Measure the peaks now: the best matmul FLOP/s over a few sizes, and the bandwidth of copying a
    buffer four times the last-level cache (read + write bytes counted)."""
    dev = resolve_device(device)
    dt = torch_dtype(dtype)
    if sizes is None:
        sizes = (1024, 2048, 4096, 8192) if dev.type == "cuda" else (256, 512, 1024)
    from ..measure.engine import benchmark

    best, best_n = 0.0, sizes[0]
    for n in sizes:
        try:
            a = torch.randn(n, n, device=dev).to(dt)
        except RuntimeError:
            break
        m = benchmark(lambda: a @ a, device=dev, budget=budget, min_time=0.1)  # noqa: B023 - called here
        rate = 2.0 * n**3 / m.median
        if rate > best:
            best, best_n = rate, n
    nbytes = max(4 * last_level_cache_bytes(dev), 64 * 2**20)
    if dev.type == "cuda":
        nbytes = max(nbytes, 1024 * 2**20)
    elems = nbytes // 4
    src = torch.empty(elems, dtype=torch.float32, device=dev).fill_(1.0)
    dst = torch.empty_like(src)
    m = benchmark(lambda: dst.copy_(src), device=dev, budget=budget, min_time=0.1)
    bw = 2.0 * elems * 4 / m.median
    return Peaks(str(dev), device_name(dev), str(dt).replace("torch.", ""), best, bw, best_n, elems * 4,
                 torch.get_num_threads(), socket.gethostname(), *conditions(), cache_bytes=known_cache_bytes(dev))


def conditions() -> tuple[str, float, int]:
    """How the machine stands now, as a peak records it: the UTC time (ISO 8601), the 1-minute load
    average (-1 where the platform has none) and the CPU count."""
    import datetime
    import os

    try:
        load = float(os.getloadavg()[0])
    except (AttributeError, OSError):
        load = -1.0
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()
    return now, load, int(os.cpu_count() or 0)


def peaks(device: DeviceLike = "auto", dtype: str | torch.dtype = "float32", *, refresh: bool = False,
          store: Any = None, budget: float = 1.0) -> Peaks:
    """The machine's peaks, from the cache in the results store unless ``refresh`` (then re-measured
    and cached). ``store``: a :class:`~measurefirst.results.store.Store`, a path, or None for the default."""
    from ..results.store import Store

    dev = resolve_device(device)
    dt = torch_dtype(dtype)
    key = _cache_key(dev, dt)
    own = not isinstance(store, Store)
    st = Store(store) if own else store
    try:
        if not refresh:
            cached = st.get_peaks(key)
            if cached is not None:
                try:
                    p = Peaks(**cached)
                except TypeError:
                    pass  # a cache entry of another version or damaged: measure again
                else:
                    if not stale(p, conditions()[1]):  # an entry from before the cache was recorded gets it now
                        return p if p.cache_bytes else replace(p, cache_bytes=known_cache_bytes(dev))
        p = measure_peaks(dev, dt, budget=budget)
        st.put_peaks(key, asdict(p))
        return p
    finally:
        if own:
            st.close()


def stale(p: Peaks, load_now: float) -> bool:
    """Whether a cached peak should be measured again: it does not say how it was measured (an entry from
    before that was recorded), or it was measured under load (above :data:`PEAK_LOAD_FRACTION` of the
    CPUs) and the load has fallen under that fraction of its value then (``load_now``, the 1-minute load
    average; -1 when unknown)."""
    if not p.measured_at or p.cpus <= 0 or p.load < 0:
        return True
    return p.load > PEAK_LOAD_FRACTION * p.cpus and 0 <= load_now < PEAK_LOAD_FRACTION * p.load
