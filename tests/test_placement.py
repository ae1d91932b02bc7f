"""Both workers of an interleaved pair on the same CPUs (:mod:`measurefirst.measure.placement`): which CPUs a
pair takes (pure), the binding of another process's threads and its undoing (a real child process; no clock),
and a pair that only the precision or the budget ends (the simulated clock)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from measurefirst.measure import placement
from measurefirst.measure.placement import cpus_for, intra_op_threads, same_cpus
from measurefirst.tools.against import ready_threads

from test_against import _finish_served, _served


def test_a_pair_takes_as_many_cpus_as_its_threads_a_new_set_each_turn():
    assert cpus_for([0, 1], 1, 0) == [0] and cpus_for([0, 1], 1, 1) == [1] and cpus_for([0, 1], 1, 2) == [0]
    assert cpus_for([0, 1, 2, 3, 4, 5, 6, 7], 2, 3) == [6, 7]
    assert cpus_for([0, 1, 2, 3, 4, 5, 6, 7], 2, 4) == [0, 1]
    assert cpus_for([2, 5, 9], 2, 1) == [9, 2]  # wraps around the CPUs it may use, in their order
    # a pool as large as the machine (or larger), or a single CPU: nothing to choose, nothing bound
    assert cpus_for([0, 1], 2, 0) is None and cpus_for([0, 1], 8, 1) is None and cpus_for([3], 1, 0) is None
    assert cpus_for([], 1, 0) is None
    assert cpus_for([0, 1, 2], 0, 1) == [1]  # a pool that says 0 threads is one thread


def test_the_threads_a_worker_reports_are_the_larger_sides():
    assert ready_threads(("ready", 1, "a", "m", None, {"budget": 1.0, "threads": 2}),
                         ("ready", 1, "a", "m", None, {"threads": 1})) == 2
    # a worker that said nothing (an older one), or nonsense, counts as one thread
    assert ready_threads(("ready", 1, "a", "m", None, {}), ("ready", 1, "a", "m", None)) == 1
    assert ready_threads(("ready", 1, "a", "m", None, {"threads": True}),
                         ("ready", 1, "a", "m", None, {"threads": "4"})) == 1


def test_intra_op_threads_are_torchs_when_imported():
    torch = pytest.importorskip("torch")
    assert intra_op_threads() == torch.get_num_threads()


CHILD = ("import sys, threading; e = threading.Event(); threading.Thread(target=e.wait, daemon=True).start(); "
         "print('up', flush=True); sys.stdin.read(); e.set()")


def _masks(pid: int) -> list[set[int]]:
    return [os.sched_getaffinity(int(t)) for t in os.listdir(f"/proc/{pid}/task")]


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2,
                    reason="binding another process's threads needs Linux and two CPUs")
def test_every_thread_of_both_workers_is_bound_to_one_cpu_and_given_back_its_mask():
    children = [subprocess.Popen([sys.executable, "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
                for _ in range(2)]
    try:
        for c in children:
            assert c.stdout is not None and c.stdout.readline().strip() == b"up"
        before = [_masks(c.pid) for c in children]
        allowed = placement.allowed_cpus()
        with same_cpus([c.pid for c in children], 1, 1) as cpus:
            assert cpus == [allowed[1]]
            for c in children:
                masks = _masks(c.pid)
                assert len(masks) >= 2 and all(mk == {allowed[1]} for mk in masks)  # the main thread and the other
        assert [_masks(c.pid) for c in children] == before
        # a pair whose pool fills the machine is left where it is
        with same_cpus([c.pid for c in children], len(allowed), 0) as cpus:
            assert cpus is None and [_masks(c.pid) for c in children] == before
    finally:
        for c in children:
            c.kill()
            c.wait()


def test_a_worker_of_unknown_process_is_not_bound(monkeypatch: pytest.MonkeyPatch):
    calls: list[object] = []
    monkeypatch.setattr(os, "sched_setaffinity", lambda *a: calls.append(a), raising=False)
    with same_cpus([os.getpid(), None], 1, 0) as cpus:
        assert cpus is None
    assert calls == []


def test_a_pair_is_ended_by_its_precision_or_budget_not_by_a_clear_direction():
    """A head twice as slow, each block 5% noisy: the comparison of two functions stops as soon as the
    direction is clear (at its minimum time), a worker pair of code against code samples on to its
    budget (an estimate joined with others must not stop where it happens to read far)."""
    from measurefirst.measure.remote import RemoteSampler, SumClock
    from measurefirst.measure.engine import Options
    from measurefirst.tools.compare import compare_samplers

    spent = {}
    for direction in (True, False):
        (base, tb, ob), (head, th, oh) = _served(100_000.0, 1), _served(200_000.0, 2)
        clock = SumClock()
        opts = {"budget": 2.0, "precision": 0.0001, "min_time": 0.5}
        states = [RemoteSampler(base, "base", clock, 2.0), RemoteSampler(head, "head", clock, 2.0)]
        for st in states:
            st.begin(opts)
        c = compare_samplers(states, clock, Options(precision=0.0001, budget=2.0, min_time=0.5), seed=3,
                             stop_on_direction=direction)
        assert c.verdicts[1].verdict == "slower"
        spent[direction] = (c.stop.reason, clock.now_ns() / 1e9, len(c.orders))
        _finish_served((base, tb, ob), (head, th, oh))
    assert spent[True][0] == "precision" and spent[True][1] < 1.0
    assert spent[False][0] == "budget" and spent[False][1] >= 1.9 and spent[False][2] > 2 * spent[True][2]
