"""Measuring across ranks of a ``torch.distributed`` process group (torchrun, or ``--nproc N``).

* :func:`benchmark`: :func:`measurefirst.benchmark` on every rank, gathered, with per-rank medians,
  spread and the straggler (:class:`GroupSummary`, :data:`STRAGGLER_THRESHOLD`).
* :func:`collectives`: all_reduce, all_gather, reduce_scatter, broadcast, all_to_all, send/recv over a
  size sweep, with algorithm and bus bandwidth as nccl-tests defines them (:mod:`.bandwidth`).
* :func:`spawn`: a local gloo group without torchrun.

Every collective measurefirst issues runs under the group's timeout; a rank that fails makes the others
raise :class:`RankFailed` naming it.

The names are imported on first use, so that the command line (whose parser lists the ``collectives``
verb) does not import numpy or torch to start.
"""

import importlib
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .bandwidth import OPS, algbw, bus_factor, busbw, parse_byte_sizes
    from .collectives import CollectivePoint, CollectivesResult, collectives
    from .group import (DEFAULT_TIMEOUT_SECONDS, STRAGGLER_THRESHOLD, GroupSummary, RankFailed, RankResult,
                        benchmark, init_from_env, launched_by_torchrun)
    from .launch import spawn

_EXPORTS = {"OPS": "bandwidth", "algbw": "bandwidth", "bus_factor": "bandwidth", "busbw": "bandwidth",
            "parse_byte_sizes": "bandwidth", "CollectivePoint": "collectives", "CollectivesResult": "collectives",
            "collectives": "collectives", "DEFAULT_TIMEOUT_SECONDS": "group", "STRAGGLER_THRESHOLD": "group",
            "GroupSummary": "group", "RankFailed": "group", "RankResult": "group", "benchmark": "group",
            "init_from_env": "group", "launched_by_torchrun": "group", "spawn": "launch"}

__all__ = ["OPS", "DEFAULT_TIMEOUT_SECONDS", "STRAGGLER_THRESHOLD", "CollectivePoint", "CollectivesResult",
           "GroupSummary", "RankFailed", "RankResult", "algbw", "benchmark", "bus_factor", "busbw", "collectives",
           "init_from_env", "launched_by_torchrun", "parse_byte_sizes", "spawn"]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


from .._lazy import LazyPackage

sys.modules[__name__].__class__ = LazyPackage
