"""Start a local process group without torchrun: ``spawn(task, nproc)`` runs ``task(*args)`` on ``nproc``
processes (torch.multiprocessing, gloo, MASTER_ADDR=127.0.0.1, a free port) and returns each rank's
return value; a failing rank makes the call raise :class:`RankFailed` naming it, within ``timeout_seconds``."""

from __future__ import annotations

import os
import queue as queue_mod
import socket
import time
from collections.abc import Callable, Sequence
from typing import Any

from .group import DEFAULT_TIMEOUT_SECONDS, RankFailed

#: extra seconds the parent waits for the ranks beyond their collectives' timeout
SPAWN_GRACE_SECONDS = 30.0
#: once a rank has reported a failure, seconds the parent waits for the others before it stops them (a rank
#: that hangs would otherwise hold the parent until the deadline)
FAILED_GRACE_SECONDS = 5.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _worker(rank: int, world: int, port: int, timeout_seconds: float, task: Callable[..., Any],
            args: Sequence[Any], results: Any) -> None:
    os.environ.update({"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "RANK": str(rank),
                       "WORLD_SIZE": str(world), "LOCAL_RANK": str(rank), "LOCAL_WORLD_SIZE": str(world)})
    from .group import dist, init_from_env

    try:
        init_from_env("gloo", timeout_seconds)
        value = task(*args)
        results.put((rank, True, value, None))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent
        named = exc.rank if isinstance(exc, RankFailed) else rank
        results.put((rank, False, f"{type(exc).__name__}: {exc}", named))
    finally:
        d = dist()
        if d.is_initialized():
            try:
                d.destroy_process_group()
            except Exception:  # noqa: BLE001
                pass


def spawn(task: Callable[..., Any], nproc: int, args: Sequence[Any] = (), *,
          timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS) -> list[Any]:
    """Run ``task(*args)`` (a module-level function) on ranks 0..nproc-1 of a fresh gloo group."""
    import torch.multiprocessing as mp

    if nproc < 1:
        raise ValueError(f"--nproc must be at least 1; got {nproc}")
    ctx = mp.get_context("spawn")
    results = ctx.Queue()
    port = free_port()
    procs = [ctx.Process(target=_worker, args=(r, nproc, port, timeout_seconds, task, tuple(args), results),
                         daemon=True) for r in range(nproc)]
    for p in procs:
        p.start()
    deadline = time.monotonic() + timeout_seconds + SPAWN_GRACE_SECONDS
    got: dict[int, tuple[bool, Any, Any]] = {}
    try:
        while len(got) < nproc:
            try:
                rank, ok, value, named = results.get(timeout=max(0.1, min(1.0, deadline - time.monotonic())))
                got[rank] = (ok, value, named)
                if not ok:
                    deadline = min(deadline, time.monotonic() + FAILED_GRACE_SECONDS)
            except queue_mod.Empty:
                dead = [r for r, p in enumerate(procs) if r not in got and not p.is_alive()]
                if dead:
                    time.sleep(0.5)  # a last message may still be in the pipe
                    while True:
                        try:
                            rank, ok, value, named = results.get_nowait()
                            got[rank] = (ok, value, named)
                        except queue_mod.Empty:
                            break
                    dead = [r for r in dead if r not in got]
                    if dead:
                        raise RankFailed(f"rank {dead[0]} of {nproc} died (exit code {procs[dead[0]].exitcode}) "
                                         f"without reporting", rank=dead[0])
                if time.monotonic() > deadline:
                    missing = [r for r in range(nproc) if r not in got]
                    if any(not ok for ok, _, _ in got.values()):
                        break  # a rank failed and named the culprit: the others are stopped below
                    raise RankFailed(f"ranks {missing} of {nproc} did not finish within "
                                     f"{timeout_seconds + SPAWN_GRACE_SECONDS:g} s", rank=missing[0])
    finally:
        for p in procs:
            p.join(timeout=5)
            if p.is_alive():
                p.terminate()
    failures = sorted((r, v, named) for r, (ok, v, named) in got.items() if not ok)
    if failures:
        # the rank that raised first names itself; the others name it too
        culprit = next((f for f in failures if f[2] == f[0]), failures[0])
        what = "failed" if culprit[2] == culprit[0] else "reported"  # a rank that named another (one that hangs)
        raise RankFailed(f"rank {culprit[0]} of {nproc} {what}: {culprit[1]}", rank=culprit[2],
                         reports={r: str(v) for r, v, _ in failures})
    return [got[r][1] for r in range(nproc)]
