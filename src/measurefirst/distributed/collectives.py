"""Collective-communication benchmark: time, algorithm and bus bandwidth per op and size, as nccl-tests
reports them (see :mod:`measurefirst.distributed.bandwidth`), timed with :func:`measurefirst.benchmark`
(wall clock + synchronize on the CPU/gloo, device events on GPUs).

Every rank must issue the same collectives in the same order, so the engine runs with fixed counts
(``warmup``, ``trials``, ``number``) instead of its adaptive stopping rule, with a barrier before every
sample (the engine's untimed ``setup``). Each rank's per-call median is gathered on rank 0; the time
reported is the slowest rank's median, as nccl-tests reports the slowest rank.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from ..measure import progress
from ..measure.dtypes import DTYPE_ALIASES, torch_dtype
from ..results.base import ResultBase
from ..results.protocol import build, migrate
from ..results.findings import Finding
from .bandwidth import OPS, algbw, bus_factor, busbw, elements, human_bytes
from .group import barrier, dist, guarded

if TYPE_CHECKING:  # pragma: no cover
    from ..measure.timers import Deadline

DEFAULT_SIZES = tuple(4**i * 1024 for i in range(8))  # 1K, 4K, ..., 16M
DEFAULT_WARMUP = 5
DEFAULT_TRIALS = 20
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
        from ..results.findings import fit_findings
        from ..tools.fit import NONMONOTONE_DROP, largest_drop

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
        :meth:`measurefirst.tools.fit.PowerFit.problems` says it of a sweep: the points stray from the line
        (``rms``, ``residual``), or fewer than :data:`~measurefirst.tools.fit.MIN_SLOPE_POINTS` sizes lie where the
        bandwidth term is at least the latency (``slope``: flat points say nothing of a bandwidth)."""
        import numpy as np

        from ..tools.fit import MIN_SLOPE_POINTS, POOR_FIT_RESIDUAL, POOR_FIT_RMS

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
        from ..tools.fit import fit_power

        pts = [p for p in self.points if p.op == op and p.error is None]
        return fit_power([p.size_bytes for p in pts], [p.seconds for p in pts])

    def bus_factor(self, op: str) -> float:
        """busbw / algbw of ``op`` on this group (see :func:`measurefirst.distributed.bandwidth.bus_factor`)."""
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


def _make(op: str, count: int, dtype: Any, device: Any, rank: int, world: int) -> Callable[[], object]:
    import torch

    d = dist()
    if op == "all_reduce":
        buf = torch.ones(count, dtype=dtype, device=device)
        return lambda: d.all_reduce(buf)
    if op == "broadcast":
        buf = torch.ones(count, dtype=dtype, device=device)
        return lambda: d.broadcast(buf, src=0)
    if op == "all_gather":
        out = torch.empty(count, dtype=dtype, device=device)
        inp = torch.ones(count // world, dtype=dtype, device=device)
        gather = getattr(d, "all_gather_single", None) or d.all_gather_into_tensor  # renamed in torch 2.13
        return lambda: gather(out, inp)
    if op == "reduce_scatter":
        inp = torch.ones(count, dtype=dtype, device=device)
        out = torch.empty(count // world, dtype=dtype, device=device)
        if d.get_backend() == "gloo":  # gloo has no reduce_scatter_tensor: a list of chunks
            chunks = list(inp.chunk(world))
            return lambda: d.reduce_scatter(out, chunks)
        return lambda: d.reduce_scatter_tensor(out, inp)
    if op == "all_to_all":
        inp = torch.ones(count, dtype=dtype, device=device)
        out = torch.empty(count, dtype=dtype, device=device)
        return lambda: d.all_to_all_single(out, inp)
    if op == "send_recv":
        send = torch.ones(count, dtype=dtype, device=device)
        recv = torch.empty(count, dtype=dtype, device=device)
        to, frm = (rank + 1) % world, (rank - 1) % world

        def send_recv() -> None:
            ops = [d.P2POp(d.isend, send, to), d.P2POp(d.irecv, recv, frm)]
            for w in d.batch_isend_irecv(ops):
                w.wait()

        return send_recv
    raise ValueError(f"unknown collective {op!r}; choose from {', '.join(OPS)}")


#: Every rank must make the same number of calls (each one a collective): no rank may stop at a time budget
#: on its own (see measurefirst.measure.engine), so the fixed counts run whole; the group's timeout bounds the run.
LOCKSTEP_BUDGET_S = 1e9


def resolve_dtype(dtype: Any) -> Any:
    """The torch dtype named by ``dtype`` (bf16 and bfloat16 alike; integer types by torch's name, int32), or
    a ValueError naming the choices: checked before any rank is started."""
    import torch

    if isinstance(dtype, str):
        tdtype = torch_dtype(dtype) if dtype.lower() in DTYPE_ALIASES else getattr(torch, dtype, None)
    else:
        tdtype = dtype
    if not isinstance(tdtype, torch.dtype):
        raise ValueError(f"dtype {dtype!r} is not a torch dtype such as float32, bfloat16 or int32")
    return tdtype


def collectives(ops: Sequence[str] = OPS, sizes: Sequence[int] = DEFAULT_SIZES, dtype: Any = "float32",
                *, warmup: int = DEFAULT_WARMUP, trials: int = DEFAULT_TRIALS, number: int = 1,
                device: Any = None, budget: float | None = None) -> CollectivesResult:
    """Time each collective in ``ops`` at each total buffer size in ``sizes`` (bytes, nccl-tests' size)
    on the initialized process group. Returns the same :class:`CollectivesResult` on every rank.

    With ``budget`` (seconds), rank 0 stops the sweep once that much time is spent (every rank follows
    it): the ops and sizes left are counted in ``env["skipped"]`` and the result is incomplete."""
    import torch

    from ..measure.engine import benchmark
    from ..measure.timers import Deadline

    d = dist()
    if not d.is_available() or not d.is_initialized():
        raise RuntimeError("collectives() needs an initialized process group: run under torchrun (or use "
                           "`measurefirst collectives --nproc N`), or call init_process_group() first")
    for op in ops:
        bus_factor(op, 1)  # validates the name
    tdtype = resolve_dtype(dtype)
    rank, world = d.get_rank(), d.get_world_size()
    backend = str(d.get_backend())
    if device is None:
        device = torch.device("cuda", torch.cuda.current_device()) if backend == "nccl" else torch.device("cpu")
    device = torch.device(device)
    element = torch.empty((), dtype=tdtype).element_size()
    rows: list[tuple[str, int, int, float, int, str | None]] = []
    deadline, skipped = Deadline(budget), 0
    for op in ops:
        if op == "send_recv" and world < 2:
            continue
        for size in sizes:
            count = elements(op, size, element, world)
            if count == 0:
                continue
            if budget is not None and (skipped or _spent(deadline)):
                skipped += 1
                continue
            progress.report("collectives", f"{op} {size}", len(rows) + 1, len(ops) * len(sizes))
            with guarded(f"collectives {op} {size} bytes"):
                fn = _make(op, count, tdtype, device, rank, world)
                barrier()
                m = benchmark(fn, device=device, label=f"{op} {size}", setup=barrier, warmup=warmup,
                              trials=trials, number=number, stop_early=False, discard_preempted=False,
                              budget=LOCKSTEP_BUDGET_S)
                rows.append((op, count * element, count, m.median, m.n_samples, None))
    with guarded("collectives: gathering results on rank 0"):
        medians = [r[3] for r in rows]
        gathered: list[Any] = [None] * world if rank == 0 else []
        d.gather_object(medians, gathered if rank == 0 else None, dst=0)
        box: list[Any] = [gathered]
        d.broadcast_object_list(box, src=0)
        gathered = box[0]
    points = tuple(CollectivePoint(op, size, count, str(tdtype).replace("torch.", ""),
                                   max(g[i] for g in gathered), tuple(g[i] for g in gathered), n, err)
                   for i, (op, size, count, _, n, err) in enumerate(rows))
    from .group import gather_nodes

    env = {"torch": torch.__version__, "warmup": warmup, "trials": trials, "number": number,
           "nodes": list(gather_nodes()), **({"budget": budget, "skipped": skipped} if budget is not None else {})}
    return CollectivesResult(world, backend, str(device), points, env)


def _spent(budget: "Deadline") -> bool:
    """Whether rank 0's ``budget`` has passed (every rank gets rank 0's answer)."""
    d = dist()
    box = [budget.passed() if d.get_rank() == 0 else None]
    with guarded("collectives: the budget"):
        d.broadcast_object_list(box, src=0)
    return bool(box[0])
