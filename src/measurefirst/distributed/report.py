"""Text rendering of collectives results (nccl-tests' columns): data in, str out."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .bandwidth import human_bytes

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
            f = result.fit(op)
        except ValueError:
            continue
        bw = f"{1 / f.c / 1e9:.3f} GB/s algbw" if abs(f.k - 1) < 0.15 and f.c > 0 else f"k={f.k:.2f}"
        fits.append(f"{op:<15} latency t0 {f.t0 * 1e6:.1f} us, asymptotic {bw}")
    if fits:
        lines.append("fit t(size) = t0 + c*size^k:")
        lines += fits
    return "\n".join(lines)
