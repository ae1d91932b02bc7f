"""Tiny workloads for the counting tests. Standard library only: the counting process imports this
module (often under valgrind), where importing torch would cost tens of seconds."""

from itertools import repeat


def loop(n: int) -> int:
    """``n`` iterations of integer work: no allocation, so each iteration costs the same."""
    x = 0
    for _ in repeat(None, n):
        x ^= 1
    return x


def loop_2000() -> int:
    return loop(2000)


def loop_2100() -> int:
    return loop(2100)


def fails() -> None:
    raise ValueError("boom from the counted function")
