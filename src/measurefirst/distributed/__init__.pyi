"""The package's names for type checkers: the package serves them lazily at run time (``_EXPORTS``,
``__getattr__``), so its ``__init__.py`` imports none of its submodules, not even for typing."""

from ..results.bandwidth import OPS as OPS, algbw as algbw, bus_factor as bus_factor, busbw as busbw, parse_byte_sizes as parse_byte_sizes
from .collectives import CollectivePoint as CollectivePoint, CollectivesResult as CollectivesResult, collectives as collectives
from .group import DEFAULT_TIMEOUT_SECONDS as DEFAULT_TIMEOUT_SECONDS, STRAGGLER_THRESHOLD as STRAGGLER_THRESHOLD, GroupSummary as GroupSummary, RankFailed as RankFailed, RankResult as RankResult, benchmark as benchmark, init_from_env as init_from_env, launched_by_torchrun as launched_by_torchrun
from .launch import spawn as spawn
from .ranked import RankComparison as RankComparison, compare as compare
from .step import GroupStepResult as GroupStepResult, benchmark_group_step as benchmark_group_step

_EXPORTS: dict[str, str]
__all__: list[str]
