"""Collective-communication benchmark: time, algorithm and bus bandwidth per op and size, as nccl-tests
reports them (see :mod:`measurefirst.results.bandwidth`), timed with :func:`measurefirst.benchmark`
(wall clock + synchronize on the CPU/gloo, device events on GPUs).

Every rank must issue the same collectives in the same order, so the engine runs with fixed counts
(``warmup``, ``trials``, ``number``) instead of its adaptive stopping rule, with a barrier before every
sample (the engine's untimed ``setup``). Each rank's per-call median is gathered on rank 0; the time
reported is the slowest rank's median, as nccl-tests reports the slowest rank.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ..measure import progress
from ..measure.dtypes import DTYPE_ALIASES, torch_dtype
from ..results.collectives import (SCHEMA_VERSION as SCHEMA_VERSION, CollectivePoint as CollectivePoint,
                                   CollectivesResult as CollectivesResult)
from ..results.bandwidth import OPS, bus_factor, elements
from .group import barrier, dist, guarded

if TYPE_CHECKING:  # pragma: no cover
    from ..measure.timers import Deadline

DEFAULT_SIZES = tuple(4**i * 1024 for i in range(8))  # 1K, 4K, ..., 16M
DEFAULT_WARMUP = 5
DEFAULT_TRIALS = 20


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
