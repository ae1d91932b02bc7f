"""Words for distributed results: collectives (nccl-tests' columns) and a rank group's summary, in English
and Chinese. Data in, lines out."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ..distributed.bandwidth import bus_factor, human_bytes
from .findings import finding_lines
from .words import code_word, word

if TYPE_CHECKING:  # pragma: no cover
    from ..distributed.collectives import CollectivesResult
    from ..distributed.group import GroupSummary, RankResult
    from ..distributed.ranked import RankComparison
    from ..distributed.saved import GroupHistory, GroupRun


def collectives_lines(result: "CollectivesResult", lang: str = "en") -> list[str]:
    """The collectives as nccl-tests prints them (its column names kept), then each op's latency-bandwidth fit."""
    n = result.world_size
    lines = [word("co_head", lang, n=n, backend=result.backend, device=result.device),
             f"{'op':<15}{'size':>8}{'count':>11}{'dtype':>9}{'time us':>12}{'algbw GB/s':>12}{'busbw GB/s':>12}"]
    for p in result.points:
        if p.error:
            lines.append(f"{p.op:<15}{human_bytes(p.size_bytes):>8}  " + word("error_line", lang, error=p.error))
            continue
        lines.append(f"{p.op:<15}{human_bytes(p.size_bytes):>8}{p.count:>11}{p.dtype:>9}{p.seconds * 1e6:>12.1f}"
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
        fits.append(latency + word("co_bandwidth", lang, algbw=f"{gbps(bw):>7}", busbw=f"{gbps(bw * bus_factor(op, n)):>7}"))
    if fits:
        lines.append(word("co_fit_head", lang))
        lines += fits
    lines += finding_lines(result.findings, lang)
    return lines


def gbps(bytes_per_s: float) -> str:
    """A bandwidth in GB/s with four significant digits (``1.000``, ``0.0003412``: never ``0.000``)."""
    if not math.isfinite(bytes_per_s):
        return "n/a"
    text = f"{bytes_per_s / 1e9:#.4g}"
    return text[:-1] if text.endswith(".") else text


def group_lines(s: "GroupSummary", lang: str = "en") -> list[str]:
    """Each rank's median, the spread across ranks and the slowest rank; the straggler when there is one."""
    lines = [word("rank_median_line", lang, rank=r, us=f"{m * 1e6:.1f}") for r, m in enumerate(s.medians)]
    lines.append(word("rank_spread_line", lang, spread=f"{s.spread:.1%}", rank=s.slowest_rank,
                      x=f"{s.straggler_ratio:.2f}"))
    if s.straggler is not None:
        lines.append(word("rank_straggler_line", lang, rank=s.straggler, t=f"{s.threshold:.0%}"))
    return lines


def _node(nodes: tuple[dict[str, object], ...], rank: int, lang: str) -> str:
    from ..distributed.group import node_words

    return word("rank_node", lang, node=node_words(nodes[rank])) if rank < len(nodes) else ""


def rank_group_lines(r: "RankResult", lang: str = "en") -> list[str]:
    """One group line (the median rank and the spread, the fastest and slowest rank), then each rank with its
    node, and the straggler when there is one."""
    s = r.summary
    fast = min(range(s.world_size), key=lambda i: s.medians[i])
    lines = [word("rank_group_line", lang, label=r.label, n=s.world_size, backend=r.backend or "?",
                  us=f"{s.median * 1e6:.1f}", spread=f"{s.spread:.1%}", fast=fast, fast_us=f"{s.medians[fast] * 1e6:.1f}",
                  slow=s.slowest_rank, slow_us=f"{s.medians[s.slowest_rank] * 1e6:.1f}")]
    lines += ["  " + word("rank_median_line", lang, rank=i, us=f"{m * 1e6:.1f}") + _node(r.nodes, i, lang)
              for i, m in enumerate(s.medians)]
    if s.straggler is not None:
        lines.append("  " + word("rank_straggler_line", lang, rank=s.straggler, t=f"{s.threshold:.0%}")
                     + _node(r.nodes, s.straggler, lang))
    return lines


def group_verdict_words(verdict: str, lang: str) -> str:
    from ..distributed.ranked import DISAGREE

    return word("rc_disagree", lang) if verdict == DISAGREE else code_word("chg_", {"no difference": "same"}.get(verdict, verdict), lang)


def rank_comparison_lines(r: "RankComparison", lang: str = "en") -> list[str]:
    """The group's verdict of each candidate, each rank's under it (with its node), then the findings (the
    ranks that disagree first)."""
    from .words import verdict_words

    lines = [word("rc_head", lang, n=r.world_size, backend=r.backend or "?")]
    for g in r.verdicts:
        ci = "" if g.ratio_ci is None else word("rc_ci", lang, lo=f"{g.ratio_ci[0]:.3f}", hi=f"{g.ratio_ci[1]:.3f}")
        verdict = word("rc_disagree", lang) if g.disagree else verdict_words(g.per_rank[0], lang)
        lines.append(word("rc_line", lang, label=g.label, baseline=g.baseline, verdict=verdict, ratio=f"{g.ratio:.3f}",
                          ci=ci))
        lines += [word("rc_rank_line", lang, rank=i, node=_node(r.nodes, i, lang), words=verdict_words(v, lang),
                       ratio=f"{v.ratio:.3f}") for i, v in enumerate(g.per_rank)]
    return lines + finding_lines(r.findings, lang)


def group_run_line(run: "GroupRun", lang: str = "en") -> str:
    """One saved run of many ranks: its id, date, world size, backend, node layout and summary."""
    from ..distributed.group import node_layout

    res = run.result
    common = {"id": run.id, "created": run.created, "n": res.world_size, "backend": res.backend or "?",
              "layout": node_layout(res.nodes) or "?"}
    if res.kind == "rank_group":
        s = res.summary
        return word("gh_group_run", lang, **common, us=f"{s.median * 1e6:.1f}", spread=f"{s.spread:.1%}",
                    straggler="" if s.straggler is None else word("gh_straggler", lang, rank=s.straggler))
    if res.kind == "rank_comparison":
        verdicts = "; ".join(f"{g.label}: {group_verdict_words(g.verdict, lang)} ({g.ratio:.3f})" for g in res.verdicts)
        return word("gh_compare_run", lang, **common, verdicts=verdicts)
    return word("gh_coll_run", lang, **common)


def group_history_lines(h: "GroupHistory", lang: str = "en") -> list[str]:
    """The runs of one name: collectives as busbw per op and size by run, rank groups one line a run; then
    each run that regressed against the one before, with its changes and findings."""
    from .words import change_words

    lines = [word("gh_head", lang, name=h.name, n=len(h.runs), kind=word("kind_" + h.result_kind, lang))]
    if h.result_kind == "collectives":
        keys = list(dict.fromkeys((p.op, p.size_bytes) for run in h.runs for p in run.result.points))
        lines.append(word("gh_busbw", lang))
        lines.append(f"{'op':<15}{'size':>8}" + "".join(f"{'#' + str(run.id):>12}" for run in h.runs))
        for op, size in keys:
            cells = []
            for run in h.runs:
                p = next((p for p in run.result.points if (p.op, p.size_bytes) == (op, size) and p.error is None), None)
                cells.append(f"{gbps(p.busbw(run.result.world_size)) if p is not None else '—':>12}")
            lines.append(f"{op:<15}{human_bytes(size):>8}" + "".join(cells))
    lines += [group_run_line(run, lang) for run in h.runs]
    for run, before, check in zip(h.runs[1:], h.runs, h.checks()[1:]):
        bad = [] if check is None else [c for c in check.changes if c.regression]
        if check is None or not (bad or check.findings):
            continue
        lines.append(word("gh_check", lang, id=run.id, before=before.id))
        lines += [word("gh_regressed", lang, label=c.label, words=change_words(c, lang)) for c in bad]
        lines += ["  " + x for x in finding_lines(check.findings, lang)]
    return lines
