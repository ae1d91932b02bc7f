"""Both workers of an interleaved pair on the same CPUs (:mod:`measurefirst.measure.placement`): which CPUs a
pair takes (pure), the binding of another process's threads and its undoing (a real child process; no clock),
and a pair that only the precision or the budget ends (the simulated clock)."""

from __future__ import annotations

import os
import threading
import subprocess
import sys

import pytest

from measurefirst.measure import placement
from measurefirst.measure.placement import CpuShare, bound_to, cpus_for, intra_op_threads
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
        with bound_to([c.pid for c in children], cpus_for(allowed, 1, 1)) as cpus:
            assert cpus == [allowed[1]]
            for c in children:
                masks = _masks(c.pid)
                assert len(masks) >= 2 and all(mk == {allowed[1]} for mk in masks)  # the main thread and the other
        assert [_masks(c.pid) for c in children] == before
        # a pair whose pool fills the machine is left where it is
        with bound_to([c.pid for c in children], cpus_for(allowed, len(allowed), 0)) as cpus:
            assert cpus is None and [_masks(c.pid) for c in children] == before
    finally:
        for c in children:
            c.kill()
            c.wait()


def test_a_worker_of_unknown_process_is_not_bound(monkeypatch: pytest.MonkeyPatch):
    calls: list[object] = []
    monkeypatch.setattr(os, "sched_setaffinity", lambda *a: calls.append(a), raising=False)
    with bound_to([os.getpid(), None], [0]) as cpus:
        assert cpus is None
    assert calls == []


def test_pairs_measuring_at_once_hold_cpus_no_other_pair_holds():
    """Issue 33: pairs of code against code measure at once, one per CPU; each comparison takes CPUs no
    other holds (from where its turn points, as cpus_for picks them), and one that needs the whole machine
    (a pool as wide as it, or an accelerator) waits until it is alone, the others waiting for it."""
    import threading

    share = CpuShare([0, 1, 2, 3])
    assert share.lanes(4) == 4 and share.lanes(2) == 2 and CpuShare([5]).lanes(4) == 1 and CpuShare([]).lanes(3) == 1
    with share.take(1, 1) as a, share.take(1, 1) as b, share.take(2, 1) as c:
        assert a == [1] and b == [2] and c == [3, 0]  # the turn's CPU is taken: the next free ones along
        assert share.free == []
    assert sorted(share.free) == [0, 1, 2, 3]
    with share.take(1, 0, whole=True) as whole:
        assert whole is None and share.free == []  # the whole machine: nothing to bind, no one else measures
    order: list[str] = []

    def whole_machine() -> None:
        with share.take(4, 0) as cpus:
            order.append(f"whole {cpus} {len(share.free)} free")

    with share.take(1, 0):
        waiting = threading.Thread(target=whole_machine)
        waiting.start()
        waiting.join(0.2)  # a wrong share would let it through at once; a slow machine can only make this pass late
        assert waiting.is_alive() and order == []  # three CPUs free of four: the whole-machine comparison waits
        order.append("first")
    waiting.join(60)
    assert order == ["first", "whole None 0 free"] and sorted(share.free) == [0, 1, 2, 3]


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


class _Pool:
    def __init__(self) -> None:
        self.closed = 0
        self.stopped = threading.Event()

    def close(self) -> None:
        self.closed += 1
        self.stopped.set()


def _ready(name: str) -> tuple[object, ...]:
    return ("ready", f"t.py::{name}", name, "fixture", None, {"budget": 1.0, "threads": 1, "device": "cpu"})


def test_pairs_measured_at_once_keep_their_order_and_the_first_error_stops_the_rest(monkeypatch: pytest.MonkeyPatch):
    """Issue 33: the lanes of --mf-against. Pair 1 ends before pair 0, yet the parts are in the pairs' order
    (the join is the same whichever lane ends first); every pair's workers are stopped once it is done; a
    lane's error stops the pairs not yet begun and is raised in the caller."""
    from measurefirst.pytest import against as PA
    from measurefirst.measure.remote import WorkerLost

    monkeypatch.setattr(PA, "compare_pair", lambda base, head, colds, budget, seed, **kw: f"pair {seed}")
    driver = PA.PairDriver(PA.Outcome("ref", 4), 4, budget_per_pair=0.5)
    driver.share = CpuShare([0, 1])
    pair1_done = threading.Event()

    def one_pair(k: int, hello: object, ids: object) -> bool:
        if k == 0:
            assert pair1_done.wait(60)  # pair 0 ends last: the other lane took pairs 1, 2, 3 meanwhile or after
        driver._compare(k, _ready("a"), _ready("a"), None, None)  # type: ignore[arg-type]
        if k == 1:
            pair1_done.set()
        return True

    monkeypatch.setattr(driver, "_pair", one_pair)
    pools = [_Pool() for _ in range(4)]
    driver.drive([(p, {}) for p in pools], ["t.py::a"])  # type: ignore[misc]
    assert driver.parts["a"] == ["pair 0", "pair 1", "pair 2", "pair 3"]
    assert all(p.closed >= 1 for p in pools)

    failing = PA.PairDriver(PA.Outcome("ref", 4), 4, budget_per_pair=0.5)
    failing.share = CpuShare([0, 1])
    ran: list[int] = []
    pools = [_Pool() for _ in range(6)]

    def lost(k: int, hello: object, ids: object) -> bool:
        ran.append(k)
        if k == 0:
            raise WorkerLost("the base worker is gone")
        assert pools[0].stopped.wait(60)  # the other lane's pair ends once the error has stopped every worker
        return True

    monkeypatch.setattr(failing, "_pair", lost)
    with pytest.raises(WorkerLost, match="base worker is gone"):
        failing.drive([(p, {}) for p in pools], ["t.py::a"])  # type: ignore[misc]
    assert sorted(ran) in ([0], [0, 1])  # the pair the other lane had begun (if any) ends; none begins after the error
    assert all(p.closed >= 1 for p in pools)  # every pair's workers stopped, begun or not
