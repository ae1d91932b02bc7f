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
def _tiny_parts() -> dict[str, Any]:
    """A small MLP, 4 batches of 16: fast enough for 2-rank groups on 2 CPU cores."""
    import torch

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
    g = torch.Generator().manual_seed(1)
    batches = [(torch.randn(16, 64, generator=g), torch.randint(0, 10, (16,), generator=g)) for _ in range(4)]
    return {"model": model, "optimizer": torch.optim.SGD(model.parameters(), lr=0.01), "batches": batches}


def group_step_task(parallel: str, slow_rank: int | None, delay_s: float, fail: str = "") -> dict[str, Any]:
    """A 2-rank step of a small MLP under DDP or FSDP2; ``slow_rank`` sleeps ``delay_s`` in every backward (a
    real delay: the other rank really waits for it), or with ``fail`` raises ("raise") or hangs ("hang") in
    its backward at the third step."""
    import torch

    from measurefirst.distributed.group import dist
    from measurefirst.distributed.step import benchmark_group_step

    torch.set_num_threads(1)
    parts = _tiny_parts()
    rank = dist().get_rank()
    slept: list[float] = []
    if rank == slow_rank:
        calls = [0]

        def hook(module: Any, grad_in: Any, grad_out: Any) -> None:
            calls[0] += 1
            if fail and calls[0] == 3:
                if fail == "raise":
                    raise RuntimeError("rank gave up in backward")
                time.sleep(3600)
            if delay_s:  # the delay as it really happened: a loaded machine oversleeps
                t0 = time.perf_counter()
                time.sleep(delay_s)
                slept.append(time.perf_counter() - t0)

        parts["model"][2].register_full_backward_hook(hook)
    from measurefirst.distributed import RankFailed

    t0 = time.monotonic()
    try:
        r = benchmark_group_step(parts["model"], parts["optimizer"], parts["batches"], parallel=parallel,
                                 device="cpu", steps=5, warmup=1, micro_batch=16, seq_len=8, flops_per_step=None,
                                 label="mlp")
    except RankFailed as exc:  # how long it took this rank to name the culprit, for the test
        raise RankFailed(f"{exc} [after {time.monotonic() - t0:.1f} s]", rank=exc.rank) from exc
    # rank 1's median sleep, gathered for rank 0
    gathered: list[Any] = [None, None]
    dist().all_gather_object(gathered, sorted(slept)[len(slept) // 2] if slept else 0.0)
    return {**r.to_dict(), "slept": max(gathered)}


def group_step_both_task(delay_s: float) -> list[dict[str, Any]]:
    """:func:`group_step_task` under DDP, then FSDP2, then rank 1 raising in its backward, in one group (one
    start-up for all three): what each rank's RankFailed said comes last."""
    from measurefirst.distributed import RankFailed

    out = [group_step_task(p, 1, delay_s) for p in ("ddp", "fsdp")]
    t0 = time.monotonic()
    try:
        group_step_task("ddp", 1, 0.0, "raise")
    except RankFailed as exc:
        return out + [{"rank": exc.rank, "message": str(exc), "seconds": time.monotonic() - t0}]
    return out + [{"rank": None, "message": "no rank failed", "seconds": time.monotonic() - t0}]


def build() -> dict[str, Any]:
    """The build() contract of ``measurefirst step`` for the small MLP (the two-node launch)."""
    return {**_tiny_parts(), "micro_batch": 16, "seq_len": 8}


def raising_before_measuring_task() -> None:
    """Rank 1 raises before any collective (no guarded block), while rank 0 enters a collective."""
    from measurefirst.distributed import collectives
    from measurefirst.distributed.group import dist

    if dist().get_rank() == 1:
        raise ValueError("rank 1 has no data")
    collectives(["all_reduce"], [1024], warmup=1, trials=2)


def advancing_task(seconds: float) -> int:
    """A barrier, then a short sleep (a step that takes a while), for at least ``seconds`` of wall time
    (a fixed count, so that every rank calls as many barriers): a run longer than the timeout that still
    advances. Returns the number of barriers passed."""
    from measurefirst.distributed.group import barrier

    n = round(seconds / 0.1)
    for _ in range(n):
        barrier()
        time.sleep(0.1)
    barrier()
    return n


def hung_rank_task() -> None:
    """Rank 1 never returns (it waits on an event nobody sets); rank 0 returns at once."""
    import threading

    from measurefirst.distributed.group import dist

    if dist().get_rank() == 1:
        threading.Event().wait()
