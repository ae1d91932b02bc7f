"""The result of a collective-communication benchmark (:func:`measurefirst.distributed.collectives`): a
:class:`CollectivesResult` of :class:`CollectivePoint` (one op at one size), with its bandwidths, fits and
findings computed on request. The types live with the results (renderers read them);
:mod:`measurefirst.distributed.collectives` measures them and re-exports them."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

from .bandwidth import algbw, bus_factor, busbw, human_bytes
from .base import ResultBase
from .findings import Finding
from .protocol import build, migrate

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class CollectivePoint:
    op: str
    size_bytes: int
    count: int
    dtype: str
    seconds: float  # the slowest rank's median per call
    rank_seconds: tuple[float, ...]
    samples: int
    error: str | None = None

    @property
    def algbw(self) -> float:
        """bytes per second"""
        return algbw(self.size_bytes, self.seconds)

    def busbw(self, n: int) -> float:
        return busbw(self.op, self.size_bytes, self.seconds, n)

    @property
    def size(self) -> str:
        """The size as nccl-tests writes it (``64K``, ``16M``; bytes when not a whole unit)."""
        return human_bytes(self.size_bytes)


def point_label(p: CollectivePoint) -> str:
    """``"all_reduce 64K"``: the op and its size, as checks and histories name a point."""
    return f"{p.op} {p.size}"


def usable(p: CollectivePoint) -> bool:
    """The point measured a time (no error, a finite positive median)."""
    return p.error is None and math.isfinite(p.seconds) and p.seconds > 0


@dataclass(frozen=True)
class CollectivesResult(ResultBase):
    world_size: int
    backend: str
    device: str
    points: tuple[CollectivePoint, ...]
    env: dict[str, Any] = field(default_factory=dict)
    schema_version: int = SCHEMA_VERSION

    kind: ClassVar[str] = "collectives"

    @property
    def findings(self) -> tuple["Finding", ...]:
        """Per op: times that fall as the message grows (``nonmonotone_sizes``) and a latency/bandwidth
        fit its points contradict (``poor_fit``, ``fit_slope_points``: see :meth:`fit_problems`)."""
        from .fitting import largest_drop
        from .findings import NONMONOTONE_DROP, fit_findings

        out: list[Finding] = []
        for op in dict.fromkeys(p.op for p in self.points):
            pts = [p for p in self.points if p.op == op and p.error is None and math.isfinite(p.seconds)]
            drop = largest_drop([p.size_bytes for p in pts], [p.seconds for p in pts])
            problems = [("drop", drop, NONMONOTONE_DROP)] if drop >= NONMONOTONE_DROP else []
            try:
                problems += self.fit_problems(op)
            except ValueError:
                pass
            out += fit_findings(problems, label=op)
        return tuple(out)

    def fit_problems(self, op: str) -> list[tuple[str, float, float]]:
        """Why :meth:`latency_bandwidth` should not be read as a law of ``op``'s times, as
        :meth:`measurefirst.results.fitting.PowerFit.problems` says it of a sweep: the points stray from the line
        (``rms``, ``residual``), or fewer than :data:`~measurefirst.results.fitting.MIN_SLOPE_POINTS` sizes lie where the
        bandwidth term is at least the latency (``slope``: flat points say nothing of a bandwidth)."""
        import numpy as np

        from .findings import MIN_SLOPE_POINTS
        from .fit import POOR_FIT_RESIDUAL, POOR_FIT_RMS

        t0, bw = self.latency_bandwidth(op)
        pts = [p for p in self.points if p.op == op and p.error is None and math.isfinite(p.seconds)]
        s = np.array([p.size_bytes for p in pts], dtype=float)
        t = np.array([p.seconds for p in pts], dtype=float)
        term = s / bw if math.isfinite(bw) else np.zeros_like(s)
        rel = (t - (t0 + term)) / t
        out: list[tuple[str, float, float]] = []
        rms = float(np.sqrt(np.mean(rel**2)))
        if rms > POOR_FIT_RMS:
            out.append(("rms", rms, POOR_FIT_RMS))
        worst = float(np.max(np.abs(rel)))
        if worst > POOR_FIT_RESIDUAL:
            out.append(("residual", worst, POOR_FIT_RESIDUAL))
        slope = int(np.sum(term >= max(t0, 0.0)))
        if math.isfinite(bw) and slope < MIN_SLOPE_POINTS:
            out.append(("slope", float(slope), float(MIN_SLOPE_POINTS)))
        return out

    @property
    def complete(self) -> bool:
        """False when some sizes failed, or the budget ran out before every op and size was measured."""
        return all(p.error is None for p in self.points) and not self.env.get("skipped")

    @property
    def nodes(self) -> tuple[dict[str, Any], ...]:
        """Each rank's node (``{"host": ..., "local_rank": ...}``), by rank; empty when not kept."""
        return tuple(dict(n) for n in self.env.get("nodes") or ())

    def fit(self, op: str) -> Any:
        """The sweep's ``t0 + c·n^k`` fit of ``op``'s times over size (bytes): ``t0`` is the latency;
        with ``k`` near 1, ``1/c`` is the asymptotic algorithm bandwidth in bytes/s."""
        from .fitting import fit_power

        pts = [p for p in self.points if p.op == op and p.error is None]
        return fit_power([p.size_bytes for p in pts], [p.seconds for p in pts])

    def bus_factor(self, op: str) -> float:
        """busbw / algbw of ``op`` on this group (see :func:`measurefirst.results.bandwidth.bus_factor`)."""
        return bus_factor(op, self.world_size)

    def latency_bandwidth(self, op: str) -> tuple[float, float]:
        """The linear model ``t = t0 + size / bw`` fitted to ``op``'s times (least squares on relative
        errors): the latency ``t0`` in seconds and the asymptotic algorithm bandwidth ``bw`` in bytes/s
        (``inf`` when time does not grow with size). Needs two sizes or more."""
        import numpy as np

        pts = [p for p in self.points if p.op == op and p.error is None]
        if len({p.size_bytes for p in pts}) < 2:
            raise ValueError(f"{op}: a latency/bandwidth fit needs at least two sizes")
        s = np.array([p.size_bytes for p in pts], dtype=float)
        t = np.array([p.seconds for p in pts], dtype=float)
        a = np.stack([np.ones_like(s), s], axis=1) / t[:, None]
        (t0, per_byte), *_ = np.linalg.lstsq(a, np.ones_like(t), rcond=None)
        return float(t0), (1.0 / float(per_byte) if per_byte > 0 else float("inf"))

    def to_dict(self) -> dict[str, Any]:
        n = self.world_size
        return {"kind": self.kind, "schema_version": self.schema_version, "world_size": n,
                "backend": self.backend, "device": self.device, "env": self.env,
                "points": [{"op": p.op, "size_bytes": p.size_bytes, "count": p.count, "dtype": p.dtype,
                            "seconds": p.seconds, "rank_seconds": list(p.rank_seconds), "samples": p.samples,
                            "algbw_bytes_per_s": None if p.error else p.algbw,
                            "busbw_bytes_per_s": None if p.error else p.busbw(n),
                            "error": p.error} for p in self.points],
                "findings": [f.to_dict() for f in self.findings]}  # for readers; loading recomputes them

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "CollectivesResult":
        """Load what :meth:`to_dict` wrote (the bandwidths it adds are recomputed)."""
        d = migrate(d, cls.kind, SCHEMA_VERSION)
        points = d.get("points")
        if not (isinstance(points, (list, tuple)) and all(isinstance(p, dict) for p in points)):
            raise ValueError("collectives.points must be a list of objects")
        # null is a strict JSON writer's NaN: a size that timed out has no time
        points = [{**p, "seconds": _real(p.get("seconds")),
                   "rank_seconds": [_real(x) for x in p["rank_seconds"]] if isinstance(p.get("rank_seconds"), list)
                   else p.get("rank_seconds")} for p in points]
        return build(cls, {**d, "points": points}, "collectives")


def _real(v: Any) -> Any:
    """A stored number; null (a strict JSON writer's NaN) is NaN (anything else is checked by ``build``)."""
    return math.nan if v is None else v
