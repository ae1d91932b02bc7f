"""Where a pair of worker interpreters runs: both sides of an interleaved pair on the same CPUs.

Why: two workers that take turns block by block share the machine's load only if they share its
CPUs. Left to the scheduler, each sits on the core it last ran on, and what that core suffers is its
own. Measured here on 2026-12-05 (the suite of ``benchmarks/gate_against.py``, a softmax 5% slower at
the head, two processes busy and idle in turns of 0.7 s; each pair's block values dumped): the head
worker of one pair ran the softmax at 800-900 µs for twenty rounds in a row while the base worker, its
blocks 5 ms away, ran at 590 µs. Unbound, 48 pairs read 0.83-1.45 and 14 of them had too few
independent rounds for an interval. With both workers of each pair bound to one CPU, 24 pairs read
1.009-1.084, each with an interval, but for one whose head worker drew a slower mode for the whole
pair (1.156: a fresh process's mode, which the spread between pairs is there to hold).

The rule (:func:`same_cpus`): while a pair measures, every thread of both workers is bound to the
same set of CPUs, as many as the workers' intra-op threads (so a pool of two threads keeps two CPUs:
fewer would starve it), chosen anew per pair (pairs on different CPUs see the machine's other cores as
the user's processes would); the workers' own masks come back afterwards. Nothing is bound where the
set would be every CPU the parent may use, where the platform cannot bind another process's threads
(only Linux can), or where a thread cannot be bound (the pair then runs as it would have).
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Iterator, Sequence


def intra_op_threads() -> int:
    """This process's torch intra-op threads (1 when torch is not imported: nothing to spread)."""
    torch = sys.modules.get("torch")
    get = getattr(torch, "get_num_threads", None)
    try:
        n = int(get()) if callable(get) else 1
    except Exception:  # a torch that cannot say: as if single-threaded
        n = 1
    return max(1, n)


def allowed_cpus() -> list[int]:
    """The CPUs this process may run on, in order (empty where the platform cannot say)."""
    getter = getattr(os, "sched_getaffinity", None)
    if getter is None:
        return []
    try:
        return sorted(int(c) for c in getter(0))
    except OSError:
        return []


def cpus_for(allowed: Sequence[int], threads: int, turn: int) -> list[int] | None:
    """The CPUs a pair takes on its ``turn`` (pair number): ``threads`` of ``allowed`` in a row, starting
    ``turn * threads`` along (wrapping), or ``None`` (no binding) when that would be every CPU or there is
    no CPU to take (pure)."""
    n = len(allowed)
    size = max(1, int(threads))
    if n < 2 or size >= n:
        return None
    start = (turn * size) % n
    return [allowed[(start + i) % n] for i in range(size)]


def _threads_of(pid: int) -> list[int]:
    try:
        return [int(t) for t in os.listdir(f"/proc/{pid}/task")]
    except (OSError, ValueError):
        return []


@contextlib.contextmanager
def same_cpus(pids: Sequence[int | None], threads: int, turn: int) -> Iterator[list[int] | None]:
    """Bind every thread of the processes ``pids`` to the CPUs of :func:`cpus_for` for the ``with``
    block, and give each thread its process's mask back afterwards; yields the CPUs bound (``None``:
    nothing was, see the module docstring)."""
    setter = getattr(os, "sched_setaffinity", None)
    getter = getattr(os, "sched_getaffinity", None)
    cpus = cpus_for(allowed_cpus(), threads, turn)
    known = [p for p in pids if isinstance(p, int) and p > 0]
    if setter is None or getter is None or cpus is None or len(known) != len(pids):
        yield None
        return
    masks: dict[int, set[int]] = {}
    try:
        for pid in known:
            masks[pid] = set(getter(pid))
    except OSError:
        yield None
        return
    bound = True
    try:
        for pid in known:
            for tid in _threads_of(pid):
                try:
                    setter(tid, cpus)
                except OSError:  # a thread that ended meanwhile; a thread we may not bind: no binding at all
                    if tid in _threads_of(pid):
                        bound = False
        if not bound:
            _restore(masks)
        yield cpus if bound else None
    finally:
        if bound:
            _restore(masks)


def _restore(masks: dict[int, set[int]]) -> None:
    setter = getattr(os, "sched_setaffinity")
    for pid, mask in masks.items():
        for tid in _threads_of(pid):  # threads started while bound inherited the binding: they get the mask too
            try:
                setter(tid, mask)
            except OSError:
                pass
