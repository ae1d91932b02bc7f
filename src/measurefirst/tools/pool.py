"""Worker interpreters for code against code (:mod:`measurefirst.tools.against`): started in pairs, one per
side, each forked from its pair's fork server (:mod:`measurefirst.tools.zygote`) or a fresh interpreter,
connected back over a local socket with a one-time token, and stopped (terminated, then killed) on every way
out: the end, an error, Ctrl-C."""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Generator, Mapping, Sequence

from ..measure.remote import ENV_VAR, Channel, WorkerLost
from .zygote import Process, Zygote, enabled, preloadable, tree_roots

#: Seconds a worker may take to start and connect back (importing torch on a busy machine is slow).
CONNECT_TIMEOUT_S = 300.0
#: Seconds between two looks at the workers while waiting for them to connect (the wait is counted in
#: these steps: no clock is read outside the timers).
ACCEPT_POLL_S = 0.2
#: Each worker's environment gets a variable of a random length below this (see :meth:`WorkerPool.start`).
LAYOUT_PAD_MAX = 4096
LAYOUT_PAD_VAR = "MEASUREFIRST_LAYOUT_PAD"
#: Characters of a worker's output shown when it fails.
OUTPUT_TAIL_CHARS = 3000


@dataclass
class Worker:
    """One worker interpreter: its side (``base`` or ``head``), process and output file."""

    side: str
    process: Process
    log: Path

    def tail(self) -> str:
        try:
            text = self.log.read_text(errors="replace")
        except OSError:
            return ""
        return text[-OUTPUT_TAIL_CHARS:]

    def describe(self) -> str:
        code = self.process.poll()
        status = "" if code is None else f"; it exited with status {code}"
        tail = self.tail().strip()
        return f"{status}; its last output:\n{tail}" if tail else status

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class WorkerPool:
    """Starts worker interpreters that connect back (``ENV_VAR``), and stops them all on close."""

    def __init__(self, log_dir: Path, reply_timeout_s: float, name: str = "pair") -> None:
        self.log_dir, self.reply_timeout_s, self.name = log_dir, reply_timeout_s, name
        self.zygote: Zygote | None = None
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(ACCEPT_POLL_S)
        self.token = secrets.token_hex(16)
        self.workers: list[Worker] = []
        self.channels: list[Channel] = []
        self.closed = False

    def start(self, side: str, argv: Sequence[str], cwd: Path, env: Mapping[str, str]) -> Worker:
        """Start one worker: forked by this pool's server when it has one that is ready (and ``argv`` is
        ``python -m module ...``), else a fresh interpreter."""
        host, port = self.server.getsockname()[:2]
        log = self.log_dir / f"{self.name}-{side}-{len(self.workers)}.log"
        # a padding of random length moves the process's stack (the environment sits above it): the two trees'
        # paths differ in length, and a layout that favoured one side in every pair would be a bias no number
        # of pairs averages out; drawn anew per worker, it is part of the spread between pairs instead (a forked
        # pair shares its server's stack: the server's own padding is drawn per pair)
        full_env = {**env, ENV_VAR: f"{host}:{port}:{self.token}:{side}", LAYOUT_PAD_VAR: _pad()}
        process: Process | None = None
        if self.zygote is not None and len(argv) >= 3 and argv[0] == sys.executable and argv[1] == "-m":
            process = self.zygote.fork(argv[2], argv[3:], cwd, full_env, log)
        if process is None:
            with open(log, "wb") as out:
                process = subprocess.Popen(list(argv), cwd=cwd, env=full_env, stdout=out, stderr=subprocess.STDOUT,
                                           stdin=subprocess.DEVNULL)
        worker = Worker(side, process, log)
        self.workers.append(worker)
        return worker

    def serve_forks(self, sides: Sequence["Side"]) -> None:
        """Start this pool's fork server (:mod:`measurefirst.tools.zygote`) where workers may be forked and
        there is something to preload; :meth:`forks_ready` waits for it."""
        if not enabled(os.environ) or not sides:
            return
        worker = sides[0].argv[2] if len(sides[0].argv) >= 3 and sides[0].argv[1] == "-m" else None
        modules = preloadable(tree_roots([(s.cwd, s.env) for s in sides]), worker)
        if modules:
            env = {k: v for k, v in sides[0].env.items() if k != "PYTHONPATH"}
            if os.environ.get("PYTHONPATH"):
                env["PYTHONPATH"] = os.environ["PYTHONPATH"]
            self.zygote = Zygote(modules, {**env, LAYOUT_PAD_VAR: _pad()}, self.log_dir / f"{self.name}-server.log")

    def forks_ready(self) -> None:
        """Wait for the fork server's imports; one that failed leaves fresh interpreters to this pool."""
        if self.zygote is not None and not self.zygote.ready():
            self.zygote = None

    def accept(self, workers: Sequence[Worker]) -> dict[str, tuple[Channel, Any]]:
        """Wait until each of ``workers`` connects and says hello; its channel and the hello's payload
        by side. A worker that exits first, or a wait past :data:`CONNECT_TIMEOUT_S`, raises
        :class:`WorkerLost` with its output."""
        pending = {w.side: w for w in workers}
        out: dict[str, tuple[Channel, Any]] = {}
        waited = 0.0
        while pending:
            try:
                sock, _ = self.server.accept()
            except (socket.timeout, TimeoutError):
                waited += ACCEPT_POLL_S
                for w in pending.values():
                    if w.process.poll() is not None:
                        raise WorkerLost(f"the {w.side} worker ended before it connected{w.describe()}") from None
                if waited > CONNECT_TIMEOUT_S:
                    w = next(iter(pending.values()))
                    raise WorkerLost(f"the {w.side} worker did not connect within {CONNECT_TIMEOUT_S:.0f} s"
                                     f"{w.describe()}") from None
                continue
            sock.settimeout(None)
            conn = Connection(sock.detach())
            if not conn.poll(30.0):
                conn.close()
                continue
            hello = conn.recv()
            if not (isinstance(hello, tuple) and len(hello) >= 4 and hello[0] == "hello" and hello[1] == self.token
                    and hello[2] in pending):
                conn.close()
                continue
            worker = pending.pop(hello[2])
            channel = Channel(conn, worker.side, worker.describe, self.reply_timeout_s, pid=worker.process.pid)
            self.channels.append(channel)
            out[worker.side] = (channel, hello[3])
        return out

    def close(self) -> None:
        """Close the connections, stop the workers, close the socket (idempotent)."""
        if self.closed:
            return
        self.closed = True
        for channel in self.channels:
            try:
                channel.conn.close()
            except OSError:
                pass
        for w in self.workers:
            w.stop()
        if self.zygote is not None:
            self.zygote.close()
        self.server.close()


#: A worker that says nothing for this long (one phase of a measurement, or a test's own run between
#: two measurements) is lost: a hung test.
REPLY_TIMEOUT_S = 600.0


@dataclass(frozen=True)
class Side:
    """How to start one side's worker: its name (``base``/``head``), command, folder and environment."""

    name: str
    argv: tuple[str, ...]
    cwd: Path
    env: Mapping[str, str]


def _pad() -> str:
    return "x" * secrets.randbelow(LAYOUT_PAD_MAX)


def worker_pairs(count: int, sides: Sequence[Side], log_dir: Path
                 ) -> Generator[tuple[int, dict[str, tuple[Channel, Any]]], None, None]:
    """Pair ``k`` of ``count``: its channels and hello payloads by side. Every pair's workers start at
    once and each says hello only when it is ready to measure, so that no worker is starting (importing
    torch, collecting tests) while another measures: measured here, the start-up of the next pair
    beside a pair that measured a softmax on torch's two threads stretched one side's calls from 23 µs to
    12 ms (a starved thread pool), in blocks the other side did not share. Every worker is stopped on
    the way out (the end, an error, Ctrl-C, or a caller that stops early)."""
    pools = [WorkerPool(log_dir, reply_timeout_s=REPLY_TIMEOUT_S, name=f"pair{k}") for k in range(count)]
    try:
        for pool in pools:  # every server imports at once, then forks its pair
            pool.serve_forks(sides)
        for pool in pools:
            pool.forks_ready()
        started = [[pool.start(s.name, s.argv, s.cwd, s.env) for s in sides] for pool in pools]
        hellos = [pool.accept(workers) for pool, workers in zip(pools, started)]
        for k, (pool, hello) in enumerate(zip(pools, hellos)):
            yield k, hello
            pool.close()
    finally:
        for pool in pools:
            pool.close()
