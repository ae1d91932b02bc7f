"""Measuring across ranks of a ``torch.distributed`` process group (torchrun, or ``--nproc N``).

* :func:`benchmark`: :func:`measurefirst.benchmark` on every rank, gathered, with per-rank medians,
  spread and the straggler (:class:`GroupSummary`, :data:`STRAGGLER_THRESHOLD`).
* :func:`collectives`: all_reduce, all_gather, reduce_scatter, broadcast, all_to_all, send/recv over a
  size sweep, with algorithm and bus bandwidth as nccl-tests defines them (:mod:`.bandwidth`).
* :func:`benchmark_group_step`: a training step on every rank under DDP or FSDP2: per-rank phases, wait in
  collectives, global tokens/s, stragglers per phase (:class:`GroupStepResult`, :mod:`.step`).
* :func:`spawn`: a local gloo group without torchrun.

Every collective measurefirst issues runs under the group's timeout; a rank that fails makes the others
raise :class:`RankFailed` naming it.
"""

from __future__ import annotations

from .bandwidth import OPS, algbw, bus_factor, busbw, parse_byte_sizes
from .collectives import CollectivePoint, CollectivesResult, collectives
from .group import (DEFAULT_TIMEOUT_SECONDS, STRAGGLER_THRESHOLD, GroupSummary, RankFailed, RankResult, benchmark,
                    init_from_env, launched_by_torchrun)
from .launch import spawn
from .step import GroupStepResult, benchmark_group_step

__all__ = ["OPS", "DEFAULT_TIMEOUT_SECONDS", "STRAGGLER_THRESHOLD", "CollectivePoint", "CollectivesResult",
           "GroupStepResult", "GroupSummary", "RankFailed", "RankResult", "algbw", "benchmark", "benchmark_group_step",
           "bus_factor", "busbw", "collectives", "init_from_env", "launched_by_torchrun", "parse_byte_sizes", "spawn"]
