"""Workloads shared by the benchmark scripts."""

from __future__ import annotations

import multiprocessing as mp
import time
from typing import Any, Callable


def busy_wait(ns: int) -> Callable[[], None]:
    """A call of known duration: spins on the clock for ``ns`` nanoseconds (plus the call's own
    overhead, a fraction of a microsecond)."""
    clock = time.perf_counter_ns

    def spin() -> None:
        end = clock() + ns
        while clock() < end:
            pass

    return spin


def burn() -> None:  # pragma: no cover - runs in a child process
    """Keep one core busy."""
    while True:
        pass


def drift(period: float) -> None:  # pragma: no cover - runs in a child process
    """Busy for ``period`` seconds, idle for ``period``, in step with the wall clock (so all such
    processes switch together)."""
    while True:
        now = time.time()
        switch = (int(now / period) + 1) * period
        if int(now / period) % 2 == 0:
            while time.time() < switch:
                pass
        else:
            time.sleep(max(0.0, switch - now))


class Background:
    """``n`` other processes running ``target(*args)`` for the duration of a ``with`` block."""

    def __init__(self, n: int, target: Callable[..., None], *args: Any, settle: float = 0.0) -> None:
        self.n, self.target, self.args, self.settle = n, target, args, settle
        self.procs: list[Any] = []

    def __enter__(self) -> "Background":
        ctx = mp.get_context("spawn")
        self.procs = [ctx.Process(target=self.target, args=self.args, daemon=True) for _ in range(self.n)]
        for p in self.procs:
            p.start()
        time.sleep(self.settle)  # let them get going (this is the harness, not a test)
        return self

    def __exit__(self, *exc: object) -> None:
        for p in self.procs:
            p.terminate()
        for p in self.procs:
            p.join()
