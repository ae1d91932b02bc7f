"""The result of ``compare`` on every rank of a process group (:func:`measurefirst.distributed.compare`): a
:class:`RankComparison` of every rank's comparison, with the group's :class:`RankVerdict` per candidate.
The types live with the results (renderers read them); :mod:`measurefirst.distributed.ranked` compares on
the ranks and re-exports them."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Sequence

from .base import ResultBase
from .findings import Finding, found
from .protocol import build, each, migrate

if TYPE_CHECKING:  # pragma: no cover
    from .comparison import Comparison, Verdict

#: The group verdict of a candidate whose ranks reached different verdicts.
DISAGREE = "ranks disagree"
#: Version of a :class:`RankComparison`'s stored form.
SCHEMA_VERSION = 1


@dataclass(frozen=True)
class RankVerdict:
    """One candidate against the baseline for the whole group: ``verdict`` is the verdict every rank
    reached, else :data:`DISAGREE`; ``ratio`` the median of the ranks' ratios (time(candidate) /
    time(baseline)); ``ratio_ci`` the hull of the ranks' intervals (None when a rank has none);
    ``per_rank`` each rank's own verdict, by rank."""

    label: str
    baseline: str
    verdict: str
    ratio: float
    ratio_ci: tuple[float, float] | None
    per_rank: tuple["Verdict", ...]

    @property
    def disagree(self) -> bool:
        return self.verdict == DISAGREE

    @property
    def split(self) -> str:
        """``"0: undecided · 1: faster"``: each rank's verdict code."""
        return " · ".join(f"{r}: {v.verdict}" for r, v in enumerate(self.per_rank))


def group_verdict(per_rank: Sequence["Verdict"]) -> RankVerdict:
    """The group's verdict of one candidate from each rank's (pure: tested on hand-built verdicts)."""
    first = per_rank[0]
    kinds = {v.verdict for v in per_rank}
    cis = [v.ratio_ci for v in per_rank]
    hull = None if any(ci is None for ci in cis) else (min(ci[0] for ci in cis if ci is not None),
                                                        max(ci[1] for ci in cis if ci is not None))
    return RankVerdict(first.label, first.baseline, first.verdict if len(kinds) == 1 else DISAGREE,
                       float(statistics.median(v.ratio for v in per_rank)), hull, tuple(per_rank))


@dataclass(frozen=True)
class RankComparison(ResultBase):
    """What :func:`~measurefirst.distributed.compare` returns on every rank: every rank's :class:`~measurefirst.tools.compare.Comparison`
    (raw samples and block values included), by rank, with the group's backend and each rank's node."""

    rank: int
    comparisons: tuple["Comparison", ...]
    backend: str = ""
    nodes: tuple[dict[str, Any], ...] = ()

    kind: ClassVar[str] = "rank_comparison"
    schema_version: ClassVar[int] = SCHEMA_VERSION

    @property
    def world_size(self) -> int:
        return len(self.comparisons)

    @property
    def comparison(self) -> "Comparison":
        """This rank's own comparison."""
        return self.comparisons[self.rank]

    @property
    def label(self) -> str:
        return " · ".join(self.comparison.labels)

    @property
    def complete(self) -> bool:
        return all(c.complete for c in self.comparisons)

    @property
    def verdicts(self) -> tuple[RankVerdict, ...]:
        """The group's verdict of each candidate but the baseline, in the order of the candidates."""
        c = self.comparison
        return tuple(group_verdict([comp.verdict(label) for comp in self.comparisons])
                     for label in c.labels if label != c.baseline)

    @property
    def findings(self) -> tuple[Finding, ...]:
        """Each candidate the ranks disagree on (``ranks_disagree``), then every rank's findings."""
        disagree = [found("ranks_disagree", len({v.verdict for v in g.per_rank}), label=g.label, split=g.split)
                    for g in self.verdicts if g.disagree]
        return (*disagree, *(f for c in self.comparisons for f in c.findings))

    def rank_measurements(self) -> list[tuple[int, Any]]:
        """(rank, measurement) of every candidate on every rank: what a regression check pairs across runs."""
        return [(r, m) for r, c in enumerate(self.comparisons) for m in c.measurements]

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "schema_version": self.schema_version, "rank": self.rank,
                "world_size": self.world_size, "backend": self.backend, "nodes": [dict(n) for n in self.nodes],
                "verdicts": [{"label": g.label, "baseline": g.baseline, "verdict": g.verdict, "ratio": g.ratio,
                              "ratio_ci": None if g.ratio_ci is None else list(g.ratio_ci)}
                             for g in self.verdicts],  # for readers; loading recomputes them
                "comparisons": [c.to_dict() for c in self.comparisons],
                "findings": [f.to_dict() for f in self.findings]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "RankComparison":
        from .comparison import Comparison

        d = migrate(d, cls.kind, SCHEMA_VERSION)
        r = build(cls, {**d, "backend": d.get("backend") or "", "nodes": d.get("nodes") or []}, "rank_comparison",
                  {"Comparison": Comparison}, read={"comparisons": each(lambda v, _: Comparison.from_dict(v))})
        if not 0 <= r.rank < len(r.comparisons):
            raise ValueError(f"rank_comparison result: rank {r.rank} is not one of its {len(r.comparisons)} ranks")
        if len({c.labels for c in r.comparisons}) != 1:
            raise ValueError("rank_comparison result: the ranks compared different candidates")
        return r
