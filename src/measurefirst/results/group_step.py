"""The result of a training step across the ranks of a process group
(:func:`measurefirst.distributed.benchmark_group_step`): a :class:`GroupStepResult` of each rank's
:class:`RankStep`, with its phase stragglers (:class:`PhaseStraggler`) and findings computed on request.
The types live with the results (renderers read them); :mod:`measurefirst.distributed.step` measures them
and re-exports them."""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar

from .base import ResultBase
from .findings import Finding, found
from .group import STRAGGLER_THRESHOLD, GroupSummary
from .protocol import build, each, of_kind

#: A phase's straggler must also be this fraction of the median step slower than the median rank there:
#: a 20% difference of a 10 µs data phase costs the group nothing worth naming.
STRAGGLER_MIN_STEP_FRACTION = 0.05
#: Version of a :class:`GroupStepResult`'s stored form.
SCHEMA_VERSION = 1


def _total(values: Any) -> float | None:
    """The sum of the ranks' figures; None when a rank has none."""
    vs = list(values)
    return None if not vs or any(v is None for v in vs) else float(sum(vs))


@dataclass(frozen=True)
class RankStep:
    """One rank's step: medians over the timed steps (seconds), wait in collectives per phase, memory."""

    rank: int
    host: str
    local_rank: int
    node_rank: int
    phase_s: dict[str, float]
    wait_phase_s: dict[str, float]
    step_s: float
    wait_s: float
    step_samples_s: tuple[float, ...]
    wait_samples_s: tuple[float, ...]
    memory: dict[str, dict[str, int]] | None
    samples_per_s: float | None
    tokens_per_s: float | None
    flops_per_step: float | None
    mfu_table: float | None

    @property
    def compute_phase_s(self) -> dict[str, float]:
        """Each phase's time less the wait in collectives inside it."""
        return {p: max(0.0, s - self.wait_phase_s.get(p, 0.0)) for p, s in self.phase_s.items()}

    @property
    def compute_s(self) -> float:
        """The step's time less its wait in collectives."""
        return max(0.0, self.step_s - self.wait_s)

    @property
    def exposed_comm_s(self) -> float:
        """Step time - compute time: the communication the step did not hide."""
        return self.step_s - self.compute_s

    @property
    def peak_allocated(self) -> int | None:
        return max((m["peak_allocated"] for m in self.memory.values()), default=None) if self.memory else None

    @classmethod
    def from_dict(cls, d: Any, where: str = "group_step.rank") -> "RankStep":
        return build(cls, d, where)



@dataclass(frozen=True)
class PhaseStraggler:
    """The rank slowest to compute ``phase``: ``ratio`` to the median rank, and the ``cost_s`` per step
    (how much longer the others wait in collectives than it does)."""

    phase: str
    rank: int
    ratio: float
    cost_s: float


@dataclass(frozen=True)
class GroupStepResult(ResultBase):
    """A training step on every rank of a group: per-rank phases, waits and memory; the group's throughput,
    MFU and stragglers (see the module docstring)."""

    label: str
    parallel: str
    backend: str
    device: str
    dtype: str
    steps: int
    warmup_steps: int
    wait_method: str
    ranks: tuple[RankStep, ...]
    threshold: float = STRAGGLER_THRESHOLD
    mfu_table_peak: str = ""
    env: dict[str, Any] = field(default_factory=dict)

    kind: ClassVar[str] = "group_step"
    schema_version: ClassVar[int] = SCHEMA_VERSION
    #: a group step is measured on every rank or raises (RankFailed)
    complete: ClassVar[bool] = True

    @property
    def world_size(self) -> int:
        return len(self.ranks)

    @property
    def nodes(self) -> tuple[tuple[str, int], ...]:
        """The nodes (host name, torchrun's node rank), in the order of their first rank."""
        return tuple(dict.fromkeys((r.host, r.node_rank) for r in self.ranks))

    @property
    def tokens_per_s(self) -> float | None:
        """Global tokens/s: the sum over ranks (None when a rank's is unknown)."""
        return _total(r.tokens_per_s for r in self.ranks)

    @property
    def samples_per_s(self) -> float | None:
        return _total(r.samples_per_s for r in self.ranks)

    @property
    def mfu(self) -> float | None:
        """The group's MFU against the datasheet peak of every device: the ranks' achieved FLOP/s over
        the world's peak (the mean of the ranks' MFU), None without FLOPs or a peak."""
        values = [r.mfu_table for r in self.ranks]
        return None if not values or any(v is None for v in values) else sum(v for v in values if v) / len(values)

    def summary(self, phase: str | None = None) -> GroupSummary:
        """The ranks' compute times in ``phase`` (the whole step's when None), with their straggler."""
        return GroupSummary(tuple(r.compute_phase_s.get(phase, 0.0) if phase else r.compute_s for r in self.ranks),
                            self.threshold)

    @property
    def stragglers(self) -> tuple[PhaseStraggler, ...]:
        """Per phase, the rank slower to compute it than the median rank by more than the threshold (and by
        :data:`STRAGGLER_MIN_STEP_FRACTION` of the step), with its cost to the others: what they wait in
        collectives beyond its own wait, itself more than that fraction of the step (a rank the others do
        not wait for is no straggler, whatever its compute)."""
        if self.world_size < 2:
            return ()
        step = statistics.median(r.step_s for r in self.ranks)
        out = []
        for phase in self.ranks[0].phase_s:
            s = self.summary(phase)
            if s.straggler is None or s.medians[s.straggler] - s.median <= STRAGGLER_MIN_STEP_FRACTION * step:
                continue
            others = [r.wait_s for r in self.ranks if r.rank != s.straggler]
            cost = max(0.0, statistics.median(others) - self.ranks[s.straggler].wait_s)
            if cost <= STRAGGLER_MIN_STEP_FRACTION * step:  # the others do not wait for it: it sets no pace
                continue
            out.append(PhaseStraggler(phase, s.straggler, s.straggler_ratio, cost))
        return tuple(out)

    @property
    def findings(self) -> tuple[Finding, ...]:
        """A ``rank_straggler`` per phase straggler (its node named), recomputed from the stored data."""
        return tuple(found("rank_straggler", st.ratio - 1, threshold=self.threshold, rank=st.rank, phase=st.phase,
                           host=self.ranks[st.rank].host, local_rank=self.ranks[st.rank].local_rank,
                           node_rank=self.ranks[st.rank].node_rank,
                           cost_ns=st.cost_s * 1e9) for st in self.stragglers)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "schema_version": self.schema_version, "label": self.label,
                "parallel": self.parallel, "backend": self.backend, "device": self.device, "dtype": self.dtype,
                "steps": self.steps, "warmup_steps": self.warmup_steps, "wait_method": self.wait_method,
                "threshold": self.threshold, "mfu_table_peak": self.mfu_table_peak, "env": dict(self.env),
                "ranks": [asdict(r) for r in self.ranks],
                # derived, for readers of the JSON (recomputed on loading)
                "tokens_per_s": self.tokens_per_s, "samples_per_s": self.samples_per_s, "mfu": self.mfu,
                "findings": [f.to_dict() for f in self.findings]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "GroupStepResult":
        """Load what :meth:`to_dict` wrote, of any version (derived figures and findings are recomputed)."""
        d = of_kind(d, cls.kind, SCHEMA_VERSION)
        g = build(cls, {**d, "mfu_table_peak": d.get("mfu_table_peak") or "", "env": d.get("env") or {}}, "group_step",
                  read={"ranks": each(RankStep.from_dict)})
        if [r.rank for r in g.ranks] != list(range(len(g.ranks))) or not g.ranks:
            raise ValueError("group_step result: its ranks must be 0..n-1 in order")
        return g
