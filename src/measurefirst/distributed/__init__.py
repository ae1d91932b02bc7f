"""Measuring across ranks of a ``torch.distributed`` process group (torchrun, or ``--nproc N``).

* :func:`benchmark`: :func:`measurefirst.benchmark` on every rank, gathered, with per-rank medians,
  spread and the straggler (:class:`GroupSummary`, :data:`STRAGGLER_THRESHOLD`).
* :func:`collectives`: all_reduce, all_gather, reduce_scatter, broadcast, all_to_all, send/recv over a
  size sweep, with algorithm and bus bandwidth as nccl-tests defines them (:mod:`.bandwidth`).
* :func:`compare`: :func:`measurefirst.compare` on every rank, gathered, with one verdict per candidate for
  the group (:class:`RankComparison`; "ranks disagree" when they do).
* :func:`benchmark_group_step`: a training step on every rank under DDP or FSDP2: per-rank phases, wait in
  collectives, global tokens/s, stragglers per phase (:class:`GroupStepResult`, :mod:`.step`).
* :func:`spawn`: a local gloo group without torchrun.

Saved runs of many ranks (collectives, rank groups) have regression checks and histories of their own
(:mod:`.saved`): a busbw drop or a new straggler is a regression.

Every collective measurefirst issues runs under the group's timeout; a rank that fails makes the others
raise :class:`RankFailed` naming it.
"""

from __future__ import annotations

import sys
from typing import Any

from .._lazy import LazyPackage, exported


#: Where each public name lives: imported on first use, so that ``measurefirst collectives --help`` (which
#: reads the option defaults from .bandwidth and .group) does not import numpy and torch.
_EXPORTS = {
    "OPS": "measurefirst.results.bandwidth", "algbw": "measurefirst.results.bandwidth", "bus_factor": "measurefirst.results.bandwidth", "busbw": "measurefirst.results.bandwidth",
    "parse_byte_sizes": "measurefirst.results.bandwidth", "CollectivePoint": "collectives", "CollectivesResult": "collectives",
    "collectives": "collectives", "DEFAULT_TIMEOUT_SECONDS": "group", "STRAGGLER_THRESHOLD": "group",
    "GroupSummary": "group", "RankFailed": "group", "RankResult": "group", "benchmark": "group",
    "init_from_env": "group", "launched_by_torchrun": "group", "spawn": "launch",
    "RankComparison": "ranked", "compare": "ranked", "GroupStepResult": "step", "benchmark_group_step": "step"}


__getattr__ = exported(__name__, _EXPORTS)


__all__ = ["OPS", "DEFAULT_TIMEOUT_SECONDS", "STRAGGLER_THRESHOLD", "CollectivePoint", "CollectivesResult",
           "GroupStepResult", "GroupSummary", "RankComparison", "RankFailed", "RankResult", "algbw", "benchmark",
           "benchmark_group_step", "bus_factor", "busbw", "collectives", "compare", "init_from_env",
           "launched_by_torchrun", "parse_byte_sizes", "spawn"]

sys.modules[__name__].__class__ = LazyPackage
