"""Workloads, background load, the other tools' estimators and a log helper, shared by the
benchmark scripts."""

from __future__ import annotations

import datetime as dt
import io
import multiprocessing as mp
import os
import sys
import time
import timeit
from typing import Any, Callable

DOCS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs")


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

    def pause(self) -> None:
        """Stop the load processes (SIGSTOP) until :meth:`resume`: the quiet machine, for a truth."""
        import signal

        for p in self.procs:
            if p.pid is not None:
                os.kill(p.pid, signal.SIGSTOP)

    def resume(self) -> None:
        import signal

        for p in self.procs:
            if p.pid is not None:
                os.kill(p.pid, signal.SIGCONT)

    def __exit__(self, *exc: object) -> None:
        self.resume()  # a stopped process would not see SIGTERM until continued
        for p in self.procs:
            p.terminate()
        for p in self.procs:
            p.join()


#: The named loads of the gate's and the run-to-run studies (``--load``), as a study's log says them.
LOADS = {"quiet": "quiet", "busy": "both cores busy (2 busy processes)",
         "drifting": "drifting load (2 processes busy and idle in turns of 0.7 s)"}


def load(name: str) -> Background:
    """The background of a named load (:data:`LOADS`): none, two busy processes, or two busy and idle in turns
    of 0.7 s, in step."""
    return {"quiet": Background(0, burn), "busy": Background(2, burn, settle=1.0),
            "drifting": Background(2, drift, 0.7, settle=1.0)}[name]


# ---- CPU workloads ---------------------------------------------------------------------------------
def matmul_fn(n: int = 256) -> Callable[[], object]:
    import torch

    a = torch.randn(n, n)
    return lambda: a @ a


def add_fn() -> Callable[[], object]:
    import torch

    x = torch.ones(1)
    return lambda: torch.add(x, x)


# ---- the tools users would pick instead --------------------------------------------------------------
def est_timeit(fn: Callable[[], object], repeat: int = 5) -> float:
    """What ``python -m timeit`` reports: autorange, then the minimum of ``repeat`` repeats."""
    t = timeit.Timer(fn)
    number, _ = t.autorange()
    return min(t.repeat(repeat=repeat, number=number)) / number


def est_blocked(fn: Callable[[], object], min_run_time: float = 0.2) -> float:
    import torch.utils.benchmark as tub

    return float(tub.Timer(stmt="fn()", globals={"fn": fn}).blocked_autorange(min_run_time=min_run_time).median)


def est_adaptive(fn: Callable[[], object]) -> float:
    import torch.utils.benchmark as tub

    return float(tub.Timer(stmt="fn()", globals={"fn": fn}).adaptive_autorange().median)


def pytest_benchmark_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("pytest_benchmark") is not None


class _Quiet:
    def __getattr__(self, name: str) -> Callable[..., None]:
        return lambda *args, **kwargs: None


class _Node:
    name = nodeid = "measurefirst-benchmarks"


def est_pytest_benchmark(fn: Callable[[], object], max_time: float = 1.0) -> float:
    """pytest-benchmark's ``benchmark(fn)`` fixture with its default options (calibrated rounds for
    ``max_time`` seconds, at least 5), outside pytest; its median per call."""
    from pytest_benchmark.fixture import BenchmarkFixture
    from pytest_benchmark.utils import NameWrapper

    fixture = BenchmarkFixture(
        _Node(), disable_gc=False, timer=NameWrapper(time.perf_counter), min_rounds=5, min_time=0.000005,
        max_time=max_time, precision=None, confidence=None, warmup=False, warmup_iterations=100000,
        calibration_precision=10, add_stats=lambda stats: None, logger=_Quiet(), warner=lambda *a: None,
        disabled=False, cprofile=False, cprofile_loops=None, cprofile_dump=None)
    fixture(fn)
    return float(fixture.stats.stats.median)


# ---- output ------------------------------------------------------------------------------------------
class Log:
    """Prints, and keeps what was printed for ``--log`` (a file under docs/, written only when asked)."""

    def __init__(self) -> None:
        self.buf = io.StringIO()

    def __call__(self, *parts: object) -> None:
        line = " ".join(str(p) for p in parts)
        print(line, flush=True)
        self.buf.write(line + "\n")

    def save(self, name: str) -> str:
        """Write the log to ``docs/NAME-DATE.txt``, or ``NAME-DATE-2.txt`` and so on where a log of that day is
        already there (a second run the same day must not overwrite a log the docs quote)."""
        stem = os.path.normpath(os.path.join(DOCS, f"{name}-{dt.date.today().isoformat()}"))
        path, k = f"{stem}.txt", 2
        while os.path.exists(path):
            path, k = f"{stem}-{k}.txt", k + 1
        with open(path, "x") as f:
            f.write(f"$ python {' '.join(sys.argv)}\n" + self.buf.getvalue())
        return path


def table(log: Log, header: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    log("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    for r in rows:
        log("  ".join(str(x).ljust(w) for x, w in zip(r, widths)))
