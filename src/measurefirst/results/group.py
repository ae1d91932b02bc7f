"""The result of a rank-aware benchmark (:func:`measurefirst.distributed.benchmark`): a :class:`RankResult`
on every rank, with the :class:`GroupSummary` of the per-rank medians and the straggler. The types live
with the results (renderers read them); :mod:`measurefirst.distributed.group` measures them and re-exports
them."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, ClassVar

from .base import ResultBase, shown
from .protocol import build, each, of_kind

#: a rank whose median is more than this fraction above the median of the per-rank medians is a straggler
STRAGGLER_THRESHOLD = 0.10
#: Version of a :class:`RankResult`'s stored form; version 0 had a kind but no version (the same form).
SCHEMA_VERSION = 1
#: The kinds of results of many ranks: their check is :func:`measurefirst.results.group_checks.check_groups`, their
#: history :class:`measurefirst.results.group_history.GroupHistory`.
GROUP_KINDS = ("collectives", "rank_group", "rank_comparison", "group_step")


@dataclass(frozen=True)
class GroupSummary:
    """Per-rank medians (seconds per call) and the straggler: the slowest rank against the median of the
    per-rank medians, flagged beyond ``threshold`` (:data:`STRAGGLER_THRESHOLD`)."""

    medians: tuple[float, ...]
    threshold: float = STRAGGLER_THRESHOLD

    kind = "group_summary"

    @property
    def world_size(self) -> int:
        return len(self.medians)

    @property
    def median(self) -> float:
        import statistics  # here: every start of the command imports this module (the parser's options)

        return float(statistics.median(self.medians))

    @property
    def spread(self) -> float:
        """(slowest - fastest) / median of the per-rank medians."""
        return (max(self.medians) - min(self.medians)) / self.median if self.median > 0 else float("nan")

    @property
    def slowest_rank(self) -> int:
        return max(range(len(self.medians)), key=lambda r: self.medians[r])

    @property
    def straggler_ratio(self) -> float:
        """The slowest rank's median over the median of the per-rank medians."""
        return self.medians[self.slowest_rank] / self.median if self.median > 0 else float("nan")

    @property
    def straggler(self) -> int | None:
        """The slowest rank when it is more than ``threshold`` above the median rank, else None."""
        return self.slowest_rank if self.straggler_ratio > 1 + self.threshold else None

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "medians": list(self.medians), "median": self.median, "spread": self.spread,
                "slowest_rank": self.slowest_rank, "straggler_ratio": self.straggler_ratio,
                "straggler": self.straggler, "threshold": self.threshold}

    def __str__(self) -> str:
        return shown(self, "group_summary")


@dataclass(frozen=True)
class RankResult(ResultBase):
    """What :func:`~measurefirst.distributed.benchmark` returns on every rank: its own measurement, every rank's (raw samples
    included) and the group summary."""

    rank: int
    measurement: Any
    measurements: tuple[Any, ...]
    summary: GroupSummary
    #: the process group's backend (gloo, nccl; empty in files written before it was kept)
    backend: str = ""
    #: each rank's node, by rank: ``{"host": ..., "local_rank": ...}`` (empty when not kept)
    nodes: tuple[dict[str, Any], ...] = ()

    kind: ClassVar[str] = "rank_group"
    schema_version: ClassVar[int] = SCHEMA_VERSION

    @property
    def complete(self) -> bool:
        return all(m.complete for m in self.measurements)

    @property
    def world_size(self) -> int:
        return len(self.measurements)

    @property
    def label(self) -> str:
        return str(self.measurement.label)

    @property
    def findings(self) -> tuple[Any, ...]:
        """Every rank's findings (each names its rank's label)."""
        return tuple(f for m in self.measurements for f in m.findings)

    def rank_measurements(self) -> list[tuple[int, Any]]:
        """(rank, measurement) of every rank: what a regression check pairs across runs."""
        return list(enumerate(self.measurements))

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "schema_version": self.schema_version, "rank": self.rank,
                "world_size": self.world_size, "backend": self.backend, "nodes": [dict(n) for n in self.nodes],
                "summary": self.summary.to_dict(), "ranks": [m.to_dict() for m in self.measurements]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "RankResult":
        """Load what :meth:`to_dict` wrote, of any version (the summary's derived figures are recomputed)."""
        from .kinds import Measurement

        d = of_kind(d, cls.kind, SCHEMA_VERSION)
        # every rank's measurement is stored under "ranks"; this rank's is the one its number picks
        r = build(cls, {**d, "measurements": d.get("ranks"), "measurement": None, "backend": d.get("backend") or "",
                        "nodes": d.get("nodes") or []}, "rank_group",
                  read={"measurements": lambda v, _: each(Measurement.from_dict)(v, "rank_group.ranks")})
        if not 0 <= r.rank < len(r.measurements):
            raise ValueError(f"rank_group result: rank {r.rank} is not one of its {len(r.measurements)} ranks")
        return replace(r, measurement=r.measurements[r.rank])
