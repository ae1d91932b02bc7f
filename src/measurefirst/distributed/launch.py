"""Start a local process group without torchrun: ``spawn(task, nproc)`` runs ``task(*args)`` on ``nproc``
processes (torch.multiprocessing, gloo, MASTER_ADDR=127.0.0.1, a free port) and returns each rank's
return value; a failing rank makes the call raise :class:`RankFailed` naming it, and a group that stops
advancing for ``timeout_seconds`` is stopped."""

from __future__ import annotations

import math
import os
import queue as queue_mod
import socket
from collections.abc import Callable, Sequence
from typing import Any

from .group import DEFAULT_TIMEOUT_SECONDS, RankFailed

#: The most ranks :func:`spawn` starts on one machine.
MAX_RANKS = 1024

#: Seconds the ranks may take to start (a fresh interpreter importing torch) before all of them are up;
#: not counted in ``timeout_seconds``, which runs from then and again from each sign of progress.
STARTUP_SECONDS = 120.0
#: Seconds the parent waits beyond ``timeout_seconds`` (and, once a rank has failed, for the others to say
#: why they stopped) before it stops the ranks still running.
REPORT_GRACE_SECONDS = 5.0
#: Seconds a rank is given to end after SIGTERM before SIGKILL.
KILL_GRACE_SECONDS = 1.0
#: Words in a rank's error that say it stopped because a peer went away (gloo, c10d), not why the group failed.
_PEER_ERRORS = ("Connection closed by peer", "Connection reset by peer", "Broken pipe", "Socket Timeout",
                "timed out", "Timed out")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _worker(rank: int, world: int, port: int, timeout_seconds: float, task: Callable[..., Any],
            args: Sequence[Any], results: Any) -> None:
    os.environ.update({"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port), "RANK": str(rank),
                       "WORLD_SIZE": str(world), "LOCAL_RANK": str(rank), "LOCAL_WORLD_SIZE": str(world)})
    from .group import dist, init_from_env, on_progress, progress

    dist()  # imports torch.distributed: start-up, not counted in the timeout
    results.put((rank, "up", None, None, False))
    on_progress(lambda: results.put((rank, "progress", None, None, False)))
    try:
        init_from_env("gloo", timeout_seconds)
        progress()  # the group formed
        value = task(*args)
        results.put((rank, "ok", value, None, False))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent
        named = exc.rank if isinstance(exc, RankFailed) else rank
        text = f"{type(exc).__name__}: {exc}"
        results.put((rank, "failed", text, named, named != rank or _peer_error(exc)))
    finally:
        # the report reaches the parent before the group is torn down (which may block, holding the GIL)
        results.close()
        results.join_thread()
        d = dist()
        if d.is_initialized():
            try:
                d.destroy_process_group()
            except Exception:  # noqa: BLE001
                pass


def _peer_error(exc: BaseException) -> bool:
    """Whether ``exc`` (or what it wraps) says only that a peer went away: a consequence, not the cause."""
    seen: BaseException | None = exc
    while seen is not None:
        if any(words in str(seen) for words in _PEER_ERRORS):
            return True
        seen = seen.__cause__
    return False


def check_spawn(nproc: object, timeout_seconds: object) -> None:
    """Refuse a rank count or a timeout that cannot start a group, before any rank is spawned."""
    if isinstance(nproc, bool) or not isinstance(nproc, int) or not 1 <= nproc <= MAX_RANKS:
        raise ValueError(f"--nproc must be a whole number from 1 to {MAX_RANKS}; got {nproc!r}")
    if (isinstance(timeout_seconds, bool) or not isinstance(timeout_seconds, (int, float))
            or not math.isfinite(timeout_seconds) or not timeout_seconds > 0):
        raise ValueError(f"--timeout must be a positive, finite number of seconds such as 60; got {timeout_seconds!r}")


def spawn(task: Callable[..., Any], nproc: int, args: Sequence[Any] = (), *,
          timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS) -> list[Any]:
    """Run ``task(*args)`` (a module-level function) on ranks 0..nproc-1 of a fresh gloo group.

    ``timeout_seconds`` bounds each of the group's collectives, and how long the group may go without a sign
    of progress: from the moment every rank is up (the ranks' start-up, a fresh interpreter importing torch,
    is not counted; at most :data:`STARTUP_SECONDS`), and again from each sign any rank sends
    (:func:`~measurefirst.distributed.group.progress`: the group formed, and measurefirst's own group work
    before each collective and barrier), so that a long run that still advances is not stopped, and a rank
    left waiting in a collective for a hung one has its whole timeout to name it. When the group has sent
    none for ``timeout_seconds``, :class:`RankFailed` is raised at most :data:`REPORT_GRACE_SECONDS` plus
    :data:`KILL_GRACE_SECONDS` later, naming the ranks that did not finish, and the ranks still running
    are stopped. Once one rank fails, the others get :data:`REPORT_GRACE_SECONDS` to say why they stopped;
    the error names the first rank that failed of its own accord (a rank that only saw a peer go away,
    ``Connection closed by peer``, is not the cause), and ``reports`` holds every rank's own message."""
    import torch.multiprocessing as mp

    from ..measure.timers import Deadline

    check_spawn(nproc, timeout_seconds)
    ctx = mp.get_context("spawn")
    results = ctx.Queue()
    port = free_port()
    procs = [ctx.Process(target=_worker, args=(r, nproc, port, timeout_seconds, task, tuple(args), results),
                         daemon=True) for r in range(nproc)]
    for p in procs:
        p.start()
    # the timeout runs from when every rank is up (start-up, at most STARTUP_SECONDS, not counted)
    deadline = Deadline(STARTUP_SECONDS)
    ups: set[int] = set()
    up = False
    got: dict[int, tuple[bool, Any, Any, bool]] = {}
    order: list[int] = []  # the ranks in the order their failures arrived

    def take(message: tuple[int, str, Any, Any, bool]) -> None:
        nonlocal deadline, up
        rank, kind, value, named, peer = message
        if kind == "up":
            ups.add(rank)
            if len(ups) == nproc and not order:
                up, deadline = True, Deadline(timeout_seconds + REPORT_GRACE_SECONDS)
            return
        if kind == "progress" or kind == "ok":  # the group advances: the timeout runs again from here
            if up and not order:
                deadline = Deadline(timeout_seconds + REPORT_GRACE_SECONDS)
            if kind == "progress":
                return
        got[rank] = (kind == "ok", value, named, peer)
        if kind != "ok":
            order.append(rank)
            # one rank failed: the others get a short grace to say why they stopped, then are stopped
            deadline = deadline.sooner(REPORT_GRACE_SECONDS)

    try:
        while len(got) < nproc:
            try:
                take(results.get(timeout=max(0.05, min(1.0, deadline.left()))))
                continue
            except queue_mod.Empty:
                pass
            dead = [r for r, p in enumerate(procs) if r not in got and not p.is_alive()]
            if dead:
                _drain(results, take)
                dead = [r for r in dead if r not in got]
                if dead and not order:
                    raise RankFailed(f"rank {dead[0]} of {nproc} died (exit code {procs[dead[0]].exitcode}) "
                                     f"without reporting", rank=dead[0])
            if deadline.passed():
                break
    finally:
        _stop(procs)
    _drain(results, take)
    failures = [(r, *got[r][1:]) for r in order]
    if failures:
        # the first rank that failed of its own accord (not because a peer went away) names itself
        own = [f for f in failures if f[2] == f[0] and not f[3]]
        culprit = (own or [f for f in failures if f[2] == f[0]] or failures)[0]
        what = "failed" if culprit[2] == culprit[0] else "reported"  # a rank that named another (one that hangs)
        raise RankFailed(f"rank {culprit[0]} of {nproc} {what}: {culprit[1]}", rank=culprit[2],
                         reports={r: str(v) for r, v, _, _ in failures})
    missing = [r for r in range(nproc) if r not in got]
    if missing:
        what = (f"did not finish: no sign of progress from the group for {timeout_seconds:g} s (the timeout)" if up
                else f"did not start within {STARTUP_SECONDS:g} s")
        raise RankFailed(f"rank{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing))} of {nproc} {what}",
                         rank=missing[0])
    return [got[r][1] for r in range(nproc)]


def _drain(results: Any, take: Callable[[Any], None]) -> None:
    """Take the messages already in the queue (a rank's last one may still be in the pipe)."""
    while True:
        try:
            take(results.get(timeout=0.2))
        except queue_mod.Empty:
            return


def _stop(procs: list[Any]) -> None:
    """End every rank still running: SIGTERM, then SIGKILL after :data:`KILL_GRACE_SECONDS`."""
    for p in procs:
        if p.is_alive():
            p.terminate()
    from ..measure.timers import Deadline

    end = Deadline(KILL_GRACE_SECONDS)
    for p in procs:
        p.join(timeout=max(0.0, end.left()))
        if p.is_alive():
            p.kill()
            p.join(timeout=KILL_GRACE_SECONDS)
