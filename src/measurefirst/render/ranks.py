"""Words for results of many ranks, in English and Chinese: a rank group (``bench`` under torchrun), a
comparison on every rank with the group's verdict (``compare`` under torchrun), and the history of a name
of such runs or of collectives. Data in, lines out."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from ..results.layout import node_layout, node_of
from .findings import finding_lines
from .text import gbps
from .words import change_words, code_word, verdict_words, word

if TYPE_CHECKING:  # pragma: no cover
    from ..results.group import RankResult
    from ..results.ranked import RankComparison, RankVerdict
    from ..results.group_history import GroupHistory, GroupRun


def on_node(nodes: Sequence[dict[str, Any]], rank: int, lang: str) -> str:
    """`` on host/0`` (empty when the result kept no nodes)."""
    node = node_of(nodes, rank)
    return word("rank_node", lang, node=node) if node else ""


def rank_group_lines(r: "RankResult", lang: str = "en") -> list[str]:
    """One group line (the median rank and the spread, the fastest and slowest rank), then each rank with its
    node, and the straggler when there is one."""
    s = r.summary
    fast = min(range(s.world_size), key=lambda i: s.medians[i])
    lines = [word("rank_group_line", lang, label=r.label, n=s.world_size, backend=r.backend or "?",
                  us=f"{s.median * 1e6:.1f}", spread=f"{s.spread:.1%}", fast=fast, fast_us=f"{s.medians[fast] * 1e6:.1f}",
                  slow=s.slowest_rank, slow_us=f"{s.medians[s.slowest_rank] * 1e6:.1f}")]
    lines += ["  " + word("rank_median_line", lang, rank=i, us=f"{m * 1e6:.1f}") + on_node(r.nodes, i, lang)
              for i, m in enumerate(s.medians)]
    if s.straggler is not None:
        lines.append("  " + word("rank_straggler_line", lang, rank=s.straggler, t=f"{s.threshold:.0%}")
                     + on_node(r.nodes, s.straggler, lang))
    return lines


def group_verdict_words(g: "RankVerdict", lang: str) -> str:
    """The group's verdict of a candidate: ``the ranks disagree``, else the verdict every rank reached."""
    return word("rc_disagree", lang) if g.disagree else verdict_words(g.per_rank[0], lang)


def verdict_code_words(g: "RankVerdict", lang: str) -> str:
    """The group's verdict in one or two words (a table cell, a history line)."""
    return word("rc_disagree", lang) if g.disagree else code_word("chg_", {"no difference": "same"}.get(g.verdict,
                                                                                                        g.verdict), lang)


def rank_comparison_lines(r: "RankComparison", lang: str = "en") -> list[str]:
    """The group's verdict of each candidate, each rank's under it (with its node), then the candidates the
    ranks disagree on, then each rank's own findings under its name."""
    lines = [word("rc_head", lang, n=r.world_size, backend=r.backend or "?")]
    for g in r.verdicts:
        ci = "" if g.ratio_ci is None else word("rc_ci", lang, lo=f"{g.ratio_ci[0]:.3f}", hi=f"{g.ratio_ci[1]:.3f}")
        lines.append(word("rc_line", lang, label=g.label, baseline=g.baseline, verdict=group_verdict_words(g, lang),
                          ratio=f"{g.ratio:.3f}", ci=ci))
        lines += [word("rc_rank_line", lang, rank=i, node=on_node(r.nodes, i, lang), words=verdict_words(v, lang),
                       ratio=f"{v.ratio:.3f}") for i, v in enumerate(g.per_rank)]
    lines += finding_lines([f for f in r.findings if f.code == "ranks_disagree"], lang)
    for i, c in enumerate(r.comparisons):  # each rank's own findings, under its name
        if c.findings:
            lines.append(word("rc_rank_findings", lang, rank=i, node=on_node(r.nodes, i, lang)))
            lines += ["  " + x for x in finding_lines(c.findings, lang)]
    return lines


def group_run_line(run: "GroupRun", lang: str = "en") -> str:
    """One saved run of many ranks: its id, date, world size, backend, node layout and summary."""
    res = run.result
    if res.kind == "group_step":
        return _step_run_line(run, lang)
    common = {"id": run.id, "created": run.created, "n": res.world_size, "backend": res.backend or "?",
              "layout": node_layout(res.nodes) or "?"}
    if res.kind == "rank_group":
        s = res.summary
        return word("gh_group_run", lang, **common, us=f"{s.median * 1e6:.1f}", spread=f"{s.spread:.1%}",
                    straggler="" if s.straggler is None else word("gh_straggler", lang, rank=s.straggler))
    if res.kind == "rank_comparison":
        verdicts = "; ".join(f"{g.label}: {verdict_code_words(g, lang)} ({g.ratio:.3f})" for g in res.verdicts)
        return word("gh_compare_run", lang, **common, verdicts=verdicts)
    return word("gh_coll_run", lang, **common)


def _step_run_line(run: "GroupRun", lang: str) -> str:
    """One saved group step: its world size, backend, parallelism and node layout, the slowest rank's step, the
    group's throughput and the stragglers per phase."""
    from .group_step import rate_text
    from .step import phase_word
    from .text import format_time

    g = run.result
    rate = rate_text(g.tokens_per_s, "tok/s") if g.tokens_per_s is not None else rate_text(g.samples_per_s, "samples/s")
    which = ", ".join(word("gh_phase_straggler", lang, rank=st.rank, phase=phase_word(st.phase, lang))
                      for st in g.stragglers)
    return word("gh_step_run", lang, id=run.id, created=run.created, n=g.world_size, backend=g.backend or "?",
                parallel=g.parallel, layout=node_layout([{"host": r.host} for r in g.ranks]) or "?",
                step=format_time(max(r.step_s for r in g.ranks)), rate=rate,
                stragglers=word("gh_step_stragglers", lang, which=which) if which else "")


def group_history_lines(h: "GroupHistory", lang: str = "en") -> list[str]:
    """The runs of one name (each with its world size, backend and node layout); collectives also as busbw per
    op and size by run; then each run that regressed against the one before, with its changes and findings."""
    lines = [word("gh_head", lang, name=h.name, n=len(h.runs), kind=word("kind_" + h.result_kind, lang))]
    lines += [group_run_line(run, lang) for run in h.runs]
    if h.result_kind == "collectives":
        lines.append(word("gh_busbw", lang))
        lines.append(f"{'':<24}" + "".join(f"{'#' + str(run.id):>12}" for run in h.runs))
        lines += [f"{label:<24}" + "".join(f"{gbps(x):>12}" for x in cells) for label, cells in h.busbw_rows()]
    if h.result_kind == "group_step":
        from .text import format_time

        lines.append(word("gh_phases", lang))
        lines.append(f"{'':<24}" + "".join(f"{'#' + str(run.id):>12}" for run in h.runs))
        lines += [f"{label:<24}" + "".join(f"{'—' if x is None else format_time(x):>12}" for x in cells)
                  for label, cells in h.phase_rows()]
    for run, before, check in zip(h.runs[1:], h.runs, h.checks()[1:]):
        bad = [] if check is None else [c for c in check.changes if c.regression]
        if check is None or not (bad or check.findings):
            continue
        lines.append(word("gh_check", lang, id=run.id, before=before.id))
        lines += [word("gh_regressed", lang, label=c.label, words=change_words(c, lang)) for c in bad]
        lines += ["  " + x for x in finding_lines(check.findings, lang)]
    return lines
