"""A training step across the ranks of a process group, under DDP or FSDP2 (``fully_shard``).

Every rank runs :func:`measurefirst.tools.step.benchmark_step` on its own model replica (or shard); the
per-rank results (phase times, peak memory per phase, throughput) are gathered on every rank into a
:class:`GroupStepResult`.

**Time waiting in collectives** is measured with hooks around the communication: a DDP communication
hook (``register_comm_hook``) around each bucket's all-reduce, and FSDP2's custom all-gather and
reduce-scatter (``set_custom_all_gather`` / ``set_custom_reduce_scatter``). Each collective is waited
on where it is issued and timed on the rank's own clock: the host clock around the blocking call on
the CPU (gloo returns when the collective is done, peers included), CUDA events around it on the
issuing stream on GPUs (NCCL's kernels spin until every peer has arrived). The time is exact on both
backends; the price is that the step runs without overlapping communication with compute, so the
exposed communication reported (step time - compute time) is what a job that overlaps nothing would
pay: an upper bound for one that overlaps.

A rank's **compute time** in a phase is the phase's time less the wait inside it. The **straggler** of
a phase is the rank whose compute time there is more than :data:`STRAGGLER_THRESHOLD` above the median
rank's (and by more than :data:`STRAGGLER_MIN_STEP_FRACTION` of the step); its **cost** to the group is
how much longer the other ranks wait per step than it does.

A rank that raises is named on every rank (:class:`~measurefirst.distributed.RankFailed`); a rank that
hangs is named by the ranks left waiting for it when the group's timeout ends their collective.
"""

from __future__ import annotations

import os
import socket
import time
from dataclasses import asdict
from typing import Any, Callable, cast

from ..results.group_step import (SCHEMA_VERSION as SCHEMA_VERSION,
                                  STRAGGLER_MIN_STEP_FRACTION as STRAGGLER_MIN_STEP_FRACTION,
                                  GroupStepResult as GroupStepResult, PhaseStraggler as PhaseStraggler,
                                  RankStep as RankStep)
from .group import STRAGGLER_THRESHOLD, RankFailed, _post_failure, dist, failed_ranks, guarded, progress

#: ``parallel``: how the model is spread over the ranks.
PARALLEL = ("ddp", "fsdp")
#: How the wait in collectives was measured (:attr:`GroupStepResult.wait_method`; the renderer has the
#: words): a DDP communication hook, FSDP2's custom all-gather and reduce-scatter.
WAIT_METHODS = {"ddp": "ddp_comm_hook", "fsdp": "fsdp2_custom_comm"}
#: After its collective timed out, a rank waits this long for the others to say where they are before it
#: names the ranks that said nothing (hung).
HANG_GRACE_SECONDS = 2.0
_WAITING_KEY = "measurefirst/waiting/"


# ---- measuring ------------------------------------------------------------------------------------
class _WaitClock:
    """Times each collective it is handed (blocking) and books the time to the phase that ends next."""

    def __init__(self, cuda: bool) -> None:
        self.cuda = cuda
        self.active = False
        self.pending: list[Any] = []  # seconds (CPU) or a CUDA span's reader, since the last phase mark
        self.step: dict[str, list[Any]] = {}
        self.steps: list[dict[str, list[Any]]] = []

    def timed(self, run: Callable[[], object]) -> None:
        progress()  # before the collective and its clock: spawn's parent counts its timeout from here
        if not self.active:
            run()
            return
        from ..measure.timers import cuda_span, host_time

        if self.cuda:
            self.pending.append(cuda_span(run))
            return
        self.pending.append(host_time(run) / 1e9)

    def begin(self) -> None:
        self.active, self.pending, self.step = True, [], {}

    def phase_end(self, name: str) -> None:
        self.step.setdefault(name, []).extend(self.pending)
        self.pending = []

    def end(self) -> None:
        self.active = False
        self.steps.append(self.step)

    def seconds(self, i: int) -> dict[str, float]:
        """Step ``i``'s wait per phase (after its marks were read: CUDA events are complete)."""
        return {p: sum(x() if callable(x) else x for x in xs) for p, xs in self.steps[i].items()}


class _WaitMarks:
    def __init__(self, marks: Any, clock: _WaitClock) -> None:
        self.marks, self.clock = marks, clock

    def mark(self, name: str) -> None:
        self.marks.mark(name)
        self.clock.phase_end(name)

    def read(self) -> list[tuple[str, float]]:
        out: list[tuple[str, float]] = self.marks.read()
        self.clock.end()
        return out


class _WaitTimer:
    """The step's timer, telling the wait clock where each step and phase begins and ends."""

    def __init__(self, timer: Any, clock: _WaitClock) -> None:
        self.timer, self.clock = timer, clock
        self.kind, self.resolution_ns = timer.kind, timer.resolution_ns

    def time(self, run: Callable[[], object], prelude: Callable[[], object] | None = None) -> Any:
        return self.timer.time(run, prelude)

    def marks(self) -> _WaitMarks:
        m = self.timer.marks()
        self.clock.begin()
        return _WaitMarks(m, self.clock)


def _ddp(model: Any, clock: _WaitClock, device: Any) -> Any:
    import torch
    from torch.nn.parallel import DistributedDataParallel

    d = dist()
    world = d.get_world_size()
    ddp = DistributedDataParallel(model, device_ids=[device] if device.type == "cuda" else None)

    def hook(state, bucket):  # type: ignore[no-untyped-def]  # DDP reads the annotations: none is accepted
        buf = bucket.buffer()
        clock.timed(lambda: d.all_reduce(buf))
        fut: Any = torch.futures.Future()
        fut.set_result(buf.div_(world))
        return fut

    ddp.register_comm_hook(None, hook)
    return ddp


def _fsdp(model: Any, clock: _WaitClock, device: Any) -> Any:
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import FSDPModule, fully_shard

    try:
        from torch.distributed.fsdp._fully_shard._fsdp_collectives import DefaultAllGather, DefaultReduceScatter
    except ImportError as exc:  # pragma: no cover - an older torch
        raise RuntimeError("--fsdp needs a torch whose FSDP2 has set_custom_all_gather (2.9 or newer)") from exc

    class TimedAllGather(DefaultAllGather):
        def __call__(self, output_tensor: Any, input_tensor: Any, group: Any, async_op: bool = False) -> None:
            clock.timed(lambda: DefaultAllGather.__call__(self, output_tensor, input_tensor, group, False))

    class TimedReduceScatter(DefaultReduceScatter):
        def __call__(self, output_tensor: Any, input_tensor: Any, group: Any, op: Any,  # type: ignore[override]
                     async_op: bool = False) -> None:
            clock.timed(lambda: DefaultReduceScatter.__call__(self, output_tensor, input_tensor, group, op, False))

    mesh = init_device_mesh(device.type, (dist().get_world_size(),))
    if not isinstance(model, FSDPModule):
        for child in model.children():  # each child holding parameters is a unit, then the root
            if any(True for _ in child.parameters()):
                fully_shard(child, mesh=mesh)
        fully_shard(model, mesh=mesh)
    for m in model.modules():
        if isinstance(m, FSDPModule):
            m.set_custom_all_gather(TimedAllGather())
            m.set_custom_reduce_scatter(TimedReduceScatter())
    return model


def _place() -> tuple[str, int, int]:
    """This rank's host name, local rank and node rank (torchrun's ``GROUP_RANK``; 0 when not set)."""
    env = os.environ
    return socket.gethostname(), int(env.get("LOCAL_RANK", dist().get_rank())), int(env.get("GROUP_RANK", 0))


def benchmark_group_step(model: Any, optimizer: Any, batches: Any, *, parallel: str = "ddp",
                         loss_fn: Callable[[Any, Any], Any] | None = None, device: Any = "auto", steps: int = 10,
                         warmup: int = 3, grad_accum: int = 1, micro_batch: int | None = None,
                         seq_len: int | None = None, flops_per_step: float | str | None = "count",
                         dtype: str = "fp32", label: str = "step",
                         straggler_threshold: float = STRAGGLER_THRESHOLD) -> GroupStepResult:
    """A training step on every rank of the initialized process group (torchrun, or
    :func:`~measurefirst.distributed.spawn`), the model wrapped with DDP or FSDP2 (``parallel``): each
    rank's phases, wait in collectives, memory and throughput, gathered on every rank (see the module
    docstring). ``model`` is the unwrapped module; under FSDP the optimizer's parameter groups (settings kept)
    are given the sharded parameters, by name. FLOPs are counted on the
    unwrapped model, one rank's micro-batch. Raises :class:`RankFailed` on every rank that can, naming the
    rank that raised or hung."""
    import torch

    from ..tools import step as single
    from ..measure.devices import machine, resolve_device
    from ..measure.dtypes import dtype_name
    from ..measure.timers import Timer, make_timer

    if parallel not in PARALLEL:
        raise ValueError(f"parallel must be one of {', '.join(PARALLEL)}; got {parallel!r}")
    d = dist()
    if not (d.is_available() and d.is_initialized()):
        raise RuntimeError("benchmark_group_step needs an initialized process group: run under torchrun, or call "
                           "measurefirst.distributed.init_from_env() first")
    rank, world = d.get_rank(), d.get_world_size()
    host, local_rank, node_rank = _place()
    if device == "auto":
        device = f"cuda:{torch.cuda.current_device()}" if torch.cuda.is_available() else "cpu"
    dev = resolve_device(device)
    tdev = machine().tensor_device(dev)
    model.to(tdev)
    loss_of = loss_fn or single.default_loss
    flops: float | str | None = flops_per_step
    if flops_per_step in ("count", "6N"):
        first = single._to_device(single._batch_source(batches)(), tdev)
        flops = single._step_flops(flops_per_step, model, loss_of, [first], grad_accum, micro_batch, seq_len,
                                   single._autocast(tdev, dtype_name(dtype, single.STEP_DTYPES)))[0]
    clock = _WaitClock(dev.type == "cuda")
    names = {id(p): n for n, p in model.named_parameters()}
    wrapped = (_ddp if parallel == "ddp" else _fsdp)(model, clock, tdev)
    if parallel == "fsdp":  # fully_shard replaced the parameters: the optimizer's groups take the sharded ones
        sharded = dict(wrapped.named_parameters())
        for group_ in optimizer.param_groups:
            group_["params"] = [sharded[names[id(p)]] for p in group_["params"]]
    with guarded("step"):
        from .group import barrier

        barrier()
    try:
        r = single.benchmark_step(wrapped, optimizer, batches, loss_fn=loss_fn, device=dev, steps=steps, warmup=warmup,
                                  grad_accum=grad_accum, micro_batch=micro_batch, seq_len=seq_len, world_size=world,
                                  flops_per_step=flops, dtype=dtype, label=label,
                                  timer=cast("Timer", _WaitTimer(make_timer(dev), clock)))
    except Exception as exc:
        raise _named(exc, rank, world) from exc
    waits = [clock.seconds(i) for i in range(warmup, warmup + steps)]
    mine = RankStep(rank, host, local_rank, node_rank, dict(r.phase_s),
                    {p: single._median([w.get(p, 0.0) for w in waits]) for p in r.phase_s}, r.step_s,
                    single._median([sum(w.values()) for w in waits]), r.step_samples_s,
                    tuple(sum(w.values()) for w in waits), r.memory, r.throughput.samples_per_s_device,
                    r.throughput.tokens_per_s_device, r.flops_per_step, r.mfu_table)
    gathered: list[Any] = [None] * world
    with guarded("step: gathering results"):
        d.all_gather_object(gathered, asdict(mine))
    return GroupStepResult(label, parallel, str(d.get_backend()), str(dev), r.dtype, steps, warmup,
                           WAIT_METHODS[parallel], tuple(RankStep.from_dict(g) for g in gathered),
                           straggler_threshold, r.mfu_table_peak, r.env)


def _named(exc: Exception, rank: int, world: int) -> RankFailed:
    """The error to raise for ``exc``: a peer's posted failure, the peers that never came (hung) when this
    rank waited in a collective until the timeout, or this rank's own failure (posted for the others)."""
    where = _where(exc)
    others = {r: m for r, m in failed_ranks(world).items() if r != rank}
    if others:
        r, msg = sorted(others.items())[0]
        return RankFailed(f"step: rank {r} of {world} failed: {msg}; rank {rank} stopped{where}", rank=r)
    if _in_collective(exc):
        hung = _silent_ranks(rank, world)
        if hung:
            host, local, _ = _place()
            return RankFailed(f"step: rank {hung[0]} of {world} never reached the collective that rank {rank} "
                              f"({host}, local rank {local}) waited in{where} until the group's timeout: it hangs "
                              f"or is far slower", rank=hung[0])
    _post_failure(rank, f"{type(exc).__name__}: {exc}")
    return RankFailed(f"step: rank {rank} of {world} failed: {exc}", rank=rank)


def _where(exc: Exception) -> str:
    phase, step = getattr(exc, "phase", None), getattr(exc, "step", None)
    return "" if phase is None else f" ({phase} phase, step {step})"


def _in_collective(exc: BaseException) -> bool:
    """Whether ``exc`` came from a collective that failed (a timeout, a closed connection), not from user code:
    a ``torch.distributed`` error, or a backend's own (gloo's errors name its source file, NCCL's name NCCL)."""
    dist_error = getattr(dist(), "DistError", ())
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, dist_error) or any(w in str(cause).lower() for w in ("third_party/gloo", "nccl")):
            return True
        cause = cause.__cause__ or cause.__context__
    return False


def _silent_ranks(rank: int, world: int) -> list[int]:
    """Post that this rank waited in a collective, give the others :data:`HANG_GRACE_SECONDS` to post the
    same (or a failure), and return the ranks that posted nothing: they never reached it."""
    from .group import _store

    store = _store()
    if store is None:
        return []
    try:
        store.set(f"{_WAITING_KEY}{rank}", "1")
    except Exception:  # noqa: BLE001 - the store may be gone with the group
        return []
    from ..measure.timers import Deadline

    deadline = Deadline(HANG_GRACE_SECONDS)
    silent: list[int] = []
    while not deadline.passed():
        silent = []
        for r in range(world):
            try:
                if not store.check([f"{_WAITING_KEY}{r}"]) and r not in failed_ranks(world):
                    silent.append(r)
            except Exception:  # noqa: BLE001
                return []
        if not silent:
            return []
        time.sleep(0.1)  # the others' timeouts end about now: poll the store, not the clock of any result
    return silent


