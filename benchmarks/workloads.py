"""Workloads shared by the benchmark scripts."""

from __future__ import annotations

import time
from typing import Callable


def busy_wait(ns: int) -> Callable[[], None]:
    """A call of known duration: spins on the clock for ``ns`` nanoseconds (plus the call's own
    overhead, a fraction of a microsecond)."""
    clock = time.perf_counter_ns

    def spin() -> None:
        end = clock() + ns
        while clock() < end:
            pass

    return spin
