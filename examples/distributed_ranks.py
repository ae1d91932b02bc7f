"""Measure across ranks: per-rank medians, the straggler, and collective bandwidth (nccl-tests' busbw).

    torchrun --nproc-per-node 2 examples/distributed_ranks.py

Run plainly (``python examples/distributed_ranks.py``) it makes a one-rank gloo group in this process,
so the script still runs as it is (the tests run it).
"""

import os
import time

import torch

from measurefirst.distributed import benchmark, collectives, init_from_env, launched_by_torchrun
from measurefirst.distributed.launch import free_port

if not launched_by_torchrun():  # a one-rank group, for a quick look
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(free_port()), RANK="0", WORLD_SIZE="1")
created = init_from_env("gloo", timeout_seconds=60)
rank = torch.distributed.get_rank()

x = torch.randn(256, 256)


def work() -> None:
    x @ x
    if rank == 1:  # rank 1 is slower on purpose: the summary names it
        end = time.perf_counter() + 0.001
        while time.perf_counter() < end:
            pass


r = benchmark(work, device="cpu", warmup=3, trials=10)
c = collectives(["all_reduce", "all_gather"], [1024, 64 * 1024, 1024 * 1024], warmup=2, trials=5)
if rank == 0:  # only rank 0 prints
    print(r.summary)
    print(c)
if created:
    torch.distributed.destroy_process_group()
