"""Module-level functions that fresh worker processes import (benchmark(fn, processes=K) tests)."""

import time


def spin_5us():
    end = time.perf_counter_ns() + 5_000
    while time.perf_counter_ns() < end:
        pass


def fails():
    raise RuntimeError("broken on purpose")


def crashes():
    import os
    import signal

    os.kill(os.getpid(), signal.SIGSEGV)


def never_returns():
    import select

    select.select([], [], [])  # blocks for good: a call that never returns
