"""Rank-aware measuring inside an initialized ``torch.distributed`` process group.

Every collective measurefirst issues runs under the process group's timeout, and a rank that fails posts
its error in the group's key-value store before it leaves, so the other ranks stop with a
:class:`RankFailed` naming it instead of hanging.
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..results.group import (SCHEMA_VERSION as SCHEMA_VERSION, STRAGGLER_THRESHOLD as STRAGGLER_THRESHOLD,
                             GroupSummary as GroupSummary, RankResult as RankResult)
from ..results.layout import node_words as node_words  # re-exported

if TYPE_CHECKING:  # pragma: no cover
    from typing_extensions import Unpack

    from ..measure.timers import Deadline

    from ..measure.engine import BenchmarkOptions

#: default timeout of every collective measurefirst issues (and of the group it initializes), seconds
DEFAULT_TIMEOUT_SECONDS = 60.0
_FAIL_KEY = "measurefirst/failed/"
#: The fewest seconds between two signs of progress :func:`progress` passes on.
PROGRESS_EVERY_SECONDS = 0.5
_progress_sink: Callable[[], None] | None = None
_next_progress: Deadline | None = None


class RankFailed(RuntimeError):
    """Another rank of the group failed (or this rank did: ``rank`` says which)."""

    def __init__(self, message: str, *, rank: int | None, reports: dict[int, str] | None = None) -> None:
        super().__init__(message)
        self.rank = rank
        #: from :func:`~measurefirst.distributed.spawn`: each rank's own error message, by rank
        self.reports = dict(reports or {})


def dist() -> Any:
    """``torch.distributed``, imported on first use."""
    import torch.distributed as d

    return d


def is_initialized() -> bool:
    d = dist()
    return bool(d.is_available() and d.is_initialized())


def launched_by_torchrun() -> bool:
    return all(k in os.environ for k in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"))


def init_from_env(backend: str = "auto", timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS) -> bool:
    """Initialize the default process group from torchrun's environment (``RANK``, ``WORLD_SIZE``,
    ``MASTER_ADDR``, ``MASTER_PORT``) with a timeout on every collective. Returns True when this call
    initialized it (the caller destroys it), False when it was already initialized."""
    d = dist()
    if d.is_initialized():
        return False
    if backend == "auto":
        import torch

        backend = "nccl" if torch.cuda.is_available() and d.is_nccl_available() else "gloo"
    if backend == "nccl":
        import torch

        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
    d.init_process_group(backend=backend, timeout=datetime.timedelta(seconds=timeout_seconds))
    return True


def on_progress(sink: Callable[[], None] | None) -> None:
    """Have :func:`progress` call ``sink`` (at most every :data:`PROGRESS_EVERY_SECONDS`): :func:`spawn`'s
    ranks send their parent a sign of life, and the parent's timeout runs from the last one."""
    global _progress_sink, _next_progress
    _progress_sink, _next_progress = sink, None


def progress() -> None:
    """Say that this rank is about to enter a collective (or has formed its group): measurefirst's own group
    work calls it, so that a run longer than the timeout is not stopped while its ranks still advance."""
    global _next_progress
    if _progress_sink is None or not (_next_progress is None or _next_progress.passed()):
        return
    from ..measure.timers import Deadline  # not at the top: --help imports this module, and timers numpy

    _next_progress = Deadline(PROGRESS_EVERY_SECONDS)
    _progress_sink()


def node_info() -> dict[str, Any]:
    """Where this rank runs: its host name and local rank (``LOCAL_RANK``, else its global rank)."""
    import socket

    rank = dist().get_rank() if is_initialized() else int(os.environ.get("RANK", "0"))
    return {"host": socket.gethostname(), "local_rank": int(os.environ.get("LOCAL_RANK", rank))}


def gather_nodes() -> tuple[dict[str, Any], ...]:
    """Every rank's :func:`node_info`, by rank (a collective: every rank calls it)."""
    d = dist()
    out: list[Any] = [None] * d.get_world_size()
    with guarded("gathering the ranks' nodes"):
        d.all_gather_object(out, node_info())
    return tuple(out)


def _store() -> Any:
    try:
        from torch.distributed.distributed_c10d import _get_default_store

        return _get_default_store()
    except Exception:  # noqa: BLE001 - no store: errors still stop the group, without the rank's name
        return None


def _post_failure(rank: int, message: str) -> None:
    store = _store()
    if store is not None:
        try:
            store.set(f"{_FAIL_KEY}{rank}", message[:2000])
        except Exception:  # noqa: BLE001 - the store may be gone with the group
            pass


def failed_ranks(world_size: int) -> dict[int, str]:
    """Ranks that posted a failure in the group's store, with their messages."""
    store = _store()
    out: dict[int, str] = {}
    if store is None:
        return out
    for r in range(world_size):
        key = f"{_FAIL_KEY}{r}"
        try:
            if store.check([key]):
                out[r] = bytes(store.get(key)).decode("utf-8", "replace")
        except Exception:  # noqa: BLE001
            break
    return out


@contextmanager
def guarded(what: str) -> Iterator[None]:
    """Run a block of group work: an error raised here is posted for the other ranks, and a collective
    that fails because another rank failed is turned into :class:`RankFailed` naming that rank."""
    d = dist()
    rank, world = d.get_rank(), d.get_world_size()
    progress()
    try:
        yield
    except RankFailed:
        raise
    except Exception as exc:
        # a peer's failure usually surfaces here as a closed connection or a timeout: look for its post
        others = {r: m for r, m in failed_ranks(world).items() if r != rank}
        if others:
            r, msg = sorted(others.items())[0]
            raise RankFailed(f"{what}: rank {r} of {world} failed: {msg}; rank {rank} stopped "
                             f"({type(exc).__name__})", rank=r) from exc
        _post_failure(rank, f"{type(exc).__name__}: {exc}")
        raise RankFailed(f"{what}: rank {rank} of {world} failed: {type(exc).__name__}: {exc}", rank=rank) from exc


def barrier() -> None:
    """A barrier with the group's timeout (``monitored_barrier`` on gloo names a rank that never came)."""
    d = dist()
    progress()
    if d.get_backend() == "gloo":
        d.monitored_barrier(timeout=group_timeout())
    else:
        d.barrier()


def group_timeout() -> datetime.timedelta:
    """The default process group's own timeout (the one it was initialized with, by :func:`init_from_env`
    or by the user), as its gloo backend holds it; torch's default process-group timeout where the group
    does not say."""
    try:
        import torch

        timeout = dist().distributed_c10d._get_default_group()._get_backend(torch.device("cpu")).options._timeout
        if isinstance(timeout, datetime.timedelta):
            return timeout
    except Exception:  # noqa: BLE001 - a private attribute of torch: its default below
        pass
    try:
        from torch.distributed.constants import default_pg_timeout

        return default_pg_timeout
    except ImportError:  # pragma: no cover
        return datetime.timedelta(seconds=DEFAULT_TIMEOUT_SECONDS)


# ---- rank-aware benchmark --------------------------------------------------------------------------


def benchmark(fn: Callable[[], object], *, straggler_threshold: float = STRAGGLER_THRESHOLD,
              **options: Unpack[BenchmarkOptions]) -> RankResult:
    """:func:`measurefirst.benchmark` on every rank of the initialized process group: a barrier, each rank
    measures its own ``fn`` (``options`` as for ``measurefirst.benchmark``), then every rank's result
    (raw samples included) is gathered on all ranks and summarized (per-rank medians, spread, straggler).
    Nothing is printed: render on rank 0 (``if result.rank == 0: print(result.summary)``).

    Raises :class:`RankFailed` on every rank when one rank's ``fn`` raised, naming that rank.
    """
    from ..measure.engine import benchmark as local_benchmark
    from ..results.kinds import Measurement

    gathered = run_on_ranks("benchmark", lambda: local_benchmark(fn, **options).to_dict())
    d = dist()
    rank = d.get_rank()
    ms = tuple(Measurement.from_dict(data) for data, _ in gathered)
    summary = GroupSummary(tuple(x.median for x in ms), straggler_threshold)
    return RankResult(rank, ms[rank], ms, summary, str(d.get_backend()), tuple(node for _, node in gathered))


def run_on_ranks(what: str, work: Callable[[], Any]) -> list[tuple[Any, dict[str, Any]]]:
    """Run ``work()`` on every rank of the initialized group after a barrier, and gather each rank's return
    value (a picklable form of its result) with its node (:func:`node_info`) on every rank, by rank.
    Raises :class:`RankFailed` on every rank when one rank's ``work`` raised, naming that rank."""
    d = dist()
    if not is_initialized():
        raise RuntimeError(f"measurefirst.distributed.{what} needs an initialized process group: run under "
                           "torchrun, or call torch.distributed.init_process_group() (or init_from_env()) first")
    rank, world = d.get_rank(), d.get_world_size()
    with guarded(what):
        barrier()
    status: dict[str, Any]
    try:
        status = {"ok": True, "result": work(), "node": node_info()}
    except Exception as exc:  # noqa: BLE001 - reported to every rank below
        status = {"ok": False, "error": f"{type(exc).__name__}: {exc}", "node": node_info()}
        _post_failure(rank, status["error"])
    gathered: list[Any] = [None] * world
    with guarded(f"{what}: gathering results"):
        d.all_gather_object(gathered, status)
    failed = [(r, s["error"]) for r, s in enumerate(gathered) if not s["ok"]]
    if failed:
        r, msg = failed[0]
        raise RankFailed(f"{what}: rank {r} of {world} failed: {msg}"
                         + ("" if r != rank else " (this rank)"), rank=r)
    return [(s["result"], s["node"]) for s in gathered]
