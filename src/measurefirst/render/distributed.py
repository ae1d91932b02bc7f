"""Words for distributed results: collectives (nccl-tests' columns) and a rank group's summary, in English
and Chinese. Data in, lines out."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .findings import finding_lines
from .text import gbps
from .words import word

if TYPE_CHECKING:  # pragma: no cover
    from ..results.collectives import CollectivesResult
    from ..results.group import GroupSummary


def collectives_lines(result: "CollectivesResult", lang: str = "en") -> list[str]:
    """The collectives as nccl-tests prints them (its column names kept), then each op's latency-bandwidth fit."""
    n = result.world_size
    lines = [word("co_head", lang, n=n, backend=result.backend, device=result.device),
             f"{'op':<15}{'size':>8}{'count':>11}{'dtype':>9}{'time us':>12}{'algbw GB/s':>12}{'busbw GB/s':>12}"]
    for p in result.points:
        if p.error:
            lines.append(f"{p.op:<15}{p.size:>8}  " + word("error_line", lang, error=p.error))
            continue
        lines.append(f"{p.op:<15}{p.size:>8}{p.count:>11}{p.dtype:>9}{p.seconds * 1e6:>12.1f}"
                     f"{gbps(p.algbw):>12}{gbps(p.busbw(n)):>12}")
    fits = []
    for op in dict.fromkeys(p.op for p in result.points):
        try:
            t0, bw = result.latency_bandwidth(op)
        except ValueError:
            continue
        latency = f"{op:<15}" + word("co_latency", lang, t0=f"{t0 * 1e6:9.1f}")
        if math.isinf(bw):  # time did not grow with size: no bandwidth term to report
            fits.append(latency + word("co_flat", lang))
            continue
        if result.fit_problems(op):  # flat or scattered points: the bandwidth is no figure of these data
            fits.append(latency + word("co_fit_poor", lang))
            continue
        fits.append(latency + word("co_bandwidth", lang, algbw=f"{gbps(bw):>7}", busbw=f"{gbps(bw * result.bus_factor(op)):>7}"))
    if fits:
        lines.append(word("co_fit_head", lang))
        lines += fits
    lines += finding_lines(result.findings, lang)
    return lines


def group_lines(s: "GroupSummary", lang: str = "en") -> list[str]:
    """Each rank's median, the spread across ranks and the slowest rank; the straggler when there is one."""
    lines = [word("rank_median_line", lang, rank=r, us=f"{m * 1e6:.1f}") for r, m in enumerate(s.medians)]
    lines.append(word("rank_spread_line", lang, spread=f"{s.spread:.1%}", rank=s.slowest_rank,
                      x=f"{s.straggler_ratio:.2f}"))
    if s.straggler is not None:
        lines.append(word("rank_straggler_line", lang, rank=s.straggler, t=f"{s.threshold:.0%}"))
    return lines

