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


def ranked_task() -> dict[str, Any]:
    """Candidate b is slowed on rank 1 (4 ms against a's 2 ms) and faster on rank 0 (1 ms): each rank's
    interleaved comparison decides, and the group's verdict is that the ranks disagree. Rank 1 is also the
    straggler of a group benchmark of b; and collectives with a spent budget measure nothing."""
    from measurefirst.distributed import benchmark, collectives
    from measurefirst.distributed.group import dist
    from measurefirst.distributed import compare

    rank = dist().get_rank()
    b_seconds = 0.004 if rank == 1 else 0.001
    c = compare({"a": lambda: time.sleep(0.002), "b": lambda: time.sleep(b_seconds)}, device="cpu", budget=1.5,
                min_time=0.3)
    g = benchmark(lambda: time.sleep(b_seconds), device="cpu", label="b", warmup=2, trials=8, number=1)
    spent = collectives(["all_reduce"], [1024, 4096], warmup=0, trials=1, budget=1e-9)
    return {"comparison": c.to_dict(), "group": g.to_dict(), "spent": spent.to_dict()}
