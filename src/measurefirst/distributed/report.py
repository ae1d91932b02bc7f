"""Text rendering of collectives results (nccl-tests' columns): data in, str out."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .bandwidth import bus_factor, human_bytes

if TYPE_CHECKING:
    from .collectives import CollectivesResult


def collectives_table(result: "CollectivesResult") -> str:
    n = result.world_size
    lines = [f"collectives on {n} ranks, backend {result.backend}, device {result.device} "
             f"(time: slowest rank's median per call; size: nccl-tests' total buffer)",
             f"{'op':<15}{'size':>8}{'count':>11}{'dtype':>9}{'time us':>12}{'algbw GB/s':>12}{'busbw GB/s':>12}"]
    for p in result.points:
        if p.error:
            lines.append(f"{p.op:<15}{human_bytes(p.size_bytes):>8}  error: {p.error}")
            continue
        lines.append(f"{p.op:<15}{human_bytes(p.size_bytes):>8}{p.count:>11}{p.dtype:>9}{p.seconds * 1e6:>12.1f}"
                     f"{p.algbw / 1e9:>12.3f}{p.busbw(n) / 1e9:>12.3f}")
    ops = list(dict.fromkeys(p.op for p in result.points))
    fits = []
    for op in ops:
        try:
            t0, bw = result.latency_bandwidth(op)
        except ValueError:
            continue
        factor = bus_factor(op, n)
        if math.isinf(bw):  # time did not grow with size: no bandwidth term to report
            fits.append(f"{op:<15}latency t0 {t0 * 1e6:9.1f} us   (time does not grow with size)")
            continue
        fits.append(f"{op:<15}latency t0 {t0 * 1e6:9.1f} us   asymptotic algbw {bw / 1e9:7.3f} GB/s"
                    f"   busbw {bw * factor / 1e9:7.3f} GB/s")
    if fits:
        lines.append("fit t(size) = t0 + size/bw (least squares on relative error):")
        lines += fits
    return "\n".join(lines)
