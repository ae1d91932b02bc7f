"""Words and tables for a training step across ranks (:class:`~measurefirst.distributed.step.GroupStepResult`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .findings import finding_lines
from .step import PHASES, phase_word
from .text import format_time, pad_cells, plain
from .words import code_word, word

if TYPE_CHECKING:  # pragma: no cover
    from ..results.group_step import GroupStepResult, RankStep
    from .report_html import Ctx


def rate_text(x: float | None, unit: str) -> str:
    if x is None:
        return f"n/a {unit}"
    for suffix, scale in (("M", 1e6), ("k", 1e3)):
        if x >= scale:
            return f"{x / scale:.3g}{suffix} {unit}"
    return f"{x:.3g} {unit}"


def _mib(r: "RankStep") -> str:
    peak = r.peak_allocated
    return "n/a" if peak is None else f"{peak / 2**20:.0f} MiB"


def rank_rows(g: "GroupStepResult", lang: str = "en") -> tuple[list[str], list[list[str]]]:
    """The per-rank table: header and rows (rank, node, local rank, each phase, step, wait, compute,
    exposed communication, peak memory), shared by the text and the report."""
    head = [word("gs_rank", lang), word("gs_node", lang), word("gs_local", lang),
            *(phase_word(p, lang) for p in PHASES), word("gs_step", lang), word("gs_wait", lang),
            word("gs_compute", lang), word("gs_exposed", lang), word("gs_peak_mem", lang)]
    several = any(r.node_rank for r in g.ranks)  # torchrun's node rank, shown when there is more than node 0
    rows = [[str(r.rank), plain(r.host) + (f" #{r.node_rank}" if several else ""), str(r.local_rank), *(format_time(r.phase_s.get(p, 0.0)) for p in PHASES),
             format_time(r.step_s), format_time(r.wait_s), format_time(r.compute_s), format_time(r.exposed_comm_s),
             _mib(r)] for r in g.ranks]
    return head, rows


def group_line(g: "GroupStepResult", lang: str = "en") -> str:
    """The group's tokens/s and samples/s (sums over the ranks) and MFU."""
    mfu = "n/a" if g.mfu is None else f"{g.mfu:.1%}"
    if g.mfu is None and g.mfu_table_peak.startswith(("none_", "not_")):
        mfu = word("gs_mfu_why", lang, why=code_word("table_peak_", g.mfu_table_peak, lang))
    return word("gs_global", lang, tokens=rate_text(g.tokens_per_s, "tok/s"), samples=rate_text(g.samples_per_s, "samples/s"),
                n=g.world_size, mfu=mfu)


def group_step_lines(g: "GroupStepResult", lang: str = "en") -> list[str]:
    """The head, the per-rank table, how the wait was timed, the group's throughput and MFU, the stragglers."""
    lines = [word("gs_head", lang, label=plain(g.label), n=g.world_size, nodes=len(g.nodes), parallel=g.parallel,
                  backend=g.backend, dtype=g.dtype, steps=g.steps, warmup=g.warmup_steps)]
    head, rows = rank_rows(g, lang)
    from rich.cells import cell_len

    widths = [max(cell_len(x) for x in col) + 2 for col in zip(head, *rows)]
    for row in (head, *rows):
        lines.append("".join("  " + pad_cells(x, w - 2, "left") if i == 1 else pad_cells(x, w)
                             for i, (x, w) in enumerate(zip(row, widths))))
    lines += [code_word("gs_wait_", g.wait_method, lang), group_line(g, lang)]
    if not g.stragglers:
        lines.append(word("gs_no_straggler", lang, t=f"{g.threshold:.0%}"))
    return lines + finding_lines(g.findings, lang)



def group_step_section(ctx: "Ctx", g: "GroupStepResult") -> str:
    """The report's section: the head, the per-rank table (stragglers marked), how the wait was timed,
    the group's throughput and the findings."""
    from .report_html import Col, Row, findings, para, section, table

    head, rows = rank_rows(g, ctx.lang)
    slow = {st.rank for st in g.stragglers}
    cols = [Col(h, numeric=i != 1) for i, h in enumerate(head)]
    body = [para(group_step_lines(g, ctx.lang)[0]), table(ctx, "group-step-ranks", cols,
                                  [Row(r, cls="mf-bad" if i in slow else "") for i, r in enumerate(rows)]),
            para(code_word("gs_wait_", g.wait_method, ctx.lang), "mf-muted"), para(group_line(g, ctx.lang)),
            findings(ctx, g.findings)]
    return section(ctx, ctx.id("group-step"), "group_step", g.label, "".join(body))
