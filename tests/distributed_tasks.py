"""Module-level tasks for the 2-rank distributed tests (spawned processes import them by name)."""

from __future__ import annotations

import time
from typing import Any


def busy(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def straggler_task() -> dict[str, Any]:
    """Rank 1's function takes three times as long as rank 0's (it sleeps: on a loaded machine a
    busy-wait of either rank stretches with the load, a sleep much less)."""
    from measurefirst.distributed import benchmark
    from measurefirst.distributed.group import dist

    rank = dist().get_rank()
    wait = 0.003 * (3 if rank == 1 else 1)
    r = benchmark(lambda: time.sleep(wait), device="cpu", warmup=2, trials=8, number=1)
    return {"rank": r.rank, "straggler": r.summary.straggler, "ratio": r.summary.straggler_ratio,
            "medians": list(r.summary.medians), "samples": [m.n_samples for m in r.measurements]}


def raising_benchmark_task() -> None:
    from measurefirst.distributed import benchmark
    from measurefirst.distributed.group import dist

    rank = dist().get_rank()

    def fn() -> None:
        if rank == 1:
            raise ValueError("boom on purpose")
        busy(0.0005)

    benchmark(fn, device="cpu", warmup=2, trials=5, number=1)


def dying_rank_task() -> None:
    """Rank 1 raises between collectives while rank 0 enters the next one."""
    from measurefirst.distributed import collectives
    from measurefirst.distributed.group import dist, guarded

    if dist().get_rank() == 1:
        with guarded("test"):
            raise RuntimeError("rank 1 gave up")
    collectives(["all_reduce"], [1024], warmup=1, trials=2)


def collectives_task() -> dict[str, Any]:
    from measurefirst.distributed import collectives

    return collectives(sizes=[4096], warmup=1, trials=3).to_dict()


def raising_before_measuring_task() -> None:
    """Rank 1 raises before any collective (no guarded block), while rank 0 enters a collective."""
    from measurefirst.distributed import collectives
    from measurefirst.distributed.group import dist

    if dist().get_rank() == 1:
        raise ValueError("rank 1 has no data")
    collectives(["all_reduce"], [1024], warmup=1, trials=2)


def hung_rank_task() -> None:
    """Rank 1 never returns (it waits on an event nobody sets); rank 0 returns at once."""
    import threading

    from measurefirst.distributed.group import dist

    if dist().get_rank() == 1:
        threading.Event().wait()
