"""The engine's knobs (:class:`Options`), each validated when the options are built: what a run may spend
and when it stops. :mod:`measurefirst.measure.engine` reads them (and re-exports :class:`Options`); the
workers that run a benchmark in fresh processes take them as they are."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..results import defaults


@dataclass(frozen=True)
class Options:
    """Every knob of the engine, validated at construction (see the module docstring for the rules)."""

    precision: float = defaults.PRECISION
    budget: float = defaults.BUDGET_S
    min_time: float = defaults.MIN_TIME_S
    min_samples: int = defaults.MIN_SAMPLES
    max_samples: int | None = None
    warmup: int | None = None
    trials: int | None = None
    number: int | None = None
    warmup_min_time: float = defaults.WARMUP_MIN_TIME_S
    warmup_max_time: float = defaults.WARMUP_MAX_TIME_S
    cold_cache: bool = False
    cuda_graph: bool = False
    discard_preempted: bool = True
    stop_early: bool = True
    #: independent repetitions (see the module docstring); None: :data:`defaults.REPEATS`, 1 in fixed mode
    repeats: int | None = None
    #: seconds of calls that compiled, in all, before the run stops (they are kept off the budget)
    compile_limit: float = defaults.COMPILE_LIMIT_S
    #: refuse to measure through a recompile while sampling (torch's "fail_on_recompile" stance)
    fail_on_recompile: bool = False

    @property
    def repeat_count(self) -> int:
        """The repetitions asked for: ``repeats``, else 1 with a fixed ``trials`` count, else the default."""
        if self.repeats is not None:
            return self.repeats
        return 1 if self.trials is not None else defaults.REPEATS

    def __post_init__(self) -> None:
        def positive(name: str, value: float) -> None:
            if (not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value)
                    or not value > 0):
                raise ValueError(f"{name} must be a positive, finite number; got {value!r}")

        def non_negative(name: str, value: float) -> None:
            if (not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value)
                    or not value >= 0):
                raise ValueError(f"{name} must be zero or a positive, finite number; got {value!r}")

        def count(name: str, value: int | None, minimum: int) -> None:
            if value is None:
                return
            if not isinstance(value, int) or isinstance(value, bool) or not minimum <= value <= defaults.MAX_COUNT:
                raise ValueError(f"{name} must be an integer >= {minimum} (at most {defaults.MAX_COUNT}); got {value!r}")

        positive("precision", self.precision)
        if self.precision >= 1:
            raise ValueError(f"precision is a relative half-width such as 0.01 (1%); got {self.precision!r}")
        positive("budget", self.budget)
        positive("compile_limit", self.compile_limit)
        non_negative("min_time", self.min_time)
        non_negative("warmup_min_time", self.warmup_min_time)
        non_negative("warmup_max_time", self.warmup_max_time)
        count("min_samples", self.min_samples, 1)
        count("max_samples", self.max_samples, 1)
        count("warmup", self.warmup, 0)
        count("trials", self.trials, 1)
        count("number", self.number, 1)
        count("repeats", self.repeats, 1)
        if self.max_samples is not None and self.max_samples < self.min_samples:
            raise ValueError(f"min_samples ({self.min_samples}) is above max_samples ({self.max_samples}); "
                             f"give max_samples >= min_samples")
        if self.repeats is not None and self.repeats > 1 and self.trials is not None:
            raise ValueError("trials=T takes exactly T samples in one run; drop repeats=... (or trials=...)")
        for name in ("cold_cache", "cuda_graph", "discard_preempted", "stop_early", "fail_on_recompile"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"{name} must be True or False; got {getattr(self, name)!r}")
        if self.cold_cache and self.number not in (None, 1):
            raise ValueError("cold_cache times each call alone after a cache flush; drop number=... (or use number=1)")
        if self.cold_cache and self.cuda_graph:
            raise ValueError("cold_cache and cuda_graph cannot be combined: a graph replays many calls without flushes")
