"""Worker pairs measuring side by side (:mod:`measurefirst.tools.pairs`): CPUs lent to one pair at a time, each
pair driven once in its lane and stopped, an error in one lane stopping every pair. No real clock: the lanes
are threads, and what they wait for is each other."""

from __future__ import annotations

import threading

import pytest

from measurefirst.measure.placement import CpuLeases
from measurefirst.tools.pairs import LANES_ENV, lane_count, side_by_side


def test_a_lease_waits_for_its_own_cpus_only_and_a_pair_bound_to_none_for_all():
    leases = CpuLeases()
    leases._lent = {0}
    assert not leases._free({0}) and not leases._free({0, 1}) and leases._free({1})
    assert not leases._free(None)  # a pair that binds nothing has every CPU: it waits for all
    leases._lent, leases._all = set(), True
    assert not leases._free({1}) and not leases._free(None)
    leases._all = False
    assert leases._free(None) and leases._free({0})


def test_a_second_lease_of_the_same_cpu_is_held_only_after_the_first_is_given_back():
    leases, order = CpuLeases(), []
    held, release = threading.Event(), threading.Event()

    def first() -> None:
        with leases.lease([0]):
            order.append("first in")
            held.set()
            release.wait()
            order.append("first out")

    def second() -> None:
        held.wait()
        with leases.lease([0]):
            order.append("second in")

    a, b = threading.Thread(target=first), threading.Thread(target=second)
    a.start()
    b.start()
    held.wait()
    with leases.lease([1]):  # another CPU is free meanwhile
        order.append("other cpu")
    release.set()
    a.join()
    b.join()
    assert order.index("second in") > order.index("first out")
    assert order.index("other cpu") < order.index("first out")
    assert leases._lent == set() and not leases._all


class FakePool:
    def __init__(self) -> None:
        self.closed = 0

    def close(self) -> None:
        self.closed += 1


def test_each_pair_is_driven_once_in_its_lane_with_one_set_of_leases_and_stopped_after():
    pools = [FakePool() for _ in range(5)]
    pairs = [(p, {"base": (None, [k])}) for k, p in enumerate(pools)]
    seen: list[tuple[int, str, int]] = []
    lent: set[int] = set()

    def drive(k: int, hello: dict, leases: CpuLeases) -> None:
        lent.add(id(leases))
        assert hello["base"][1] == [k - 10]
        seen.append((k, threading.current_thread().name, pools[k - 10].closed))

    side_by_side(pairs, drive, lanes=2, first=10)  # type: ignore[arg-type]
    assert sorted(k for k, _, _ in seen) == [10, 11, 12, 13, 14]
    lane_of = {k: name for k, name, _ in seen}
    assert {lane_of[10], lane_of[12], lane_of[14]} == {"measurefirst-lane0"}
    assert {lane_of[11], lane_of[13]} == {"measurefirst-lane1"}
    assert all(closed == 0 for _, _, closed in seen)  # a pair's workers stop after it, not before
    assert [p.closed for p in pools] == [1] * 5 and len(lent) == 1
    # one lane: the caller's thread, in order
    order: list[int] = []
    side_by_side(pairs, lambda k, h, l: order.append(k), lanes=1)  # type: ignore[arg-type]
    assert order == [0, 1, 2, 3, 4]


def test_an_error_in_one_lane_stops_every_pair_and_is_raised():
    pools = [FakePool() for _ in range(4)]
    pairs = [(p, {}) for p in pools]
    started = threading.Barrier(2)

    def drive(k: int, hello: dict, leases: CpuLeases) -> None:
        if k in (0, 1):
            started.wait()  # both lanes are driving a pair
        if k == 1:
            raise ConnectionError("worker lost")

    with pytest.raises(ConnectionError, match="worker lost"):
        side_by_side(pairs, drive, lanes=2)  # type: ignore[arg-type]
    assert all(p.closed >= 1 for p in pools)  # every pair's workers stopped, the ones never driven too


def test_lanes_follow_the_setting_else_the_cpus():
    assert lane_count(4, {LANES_ENV: "1"}) == 1
    assert lane_count(4, {LANES_ENV: "8"}) == 4  # never more lanes than pairs
    assert lane_count(1, {}) == 1
    got = lane_count(4, {LANES_ENV: "many"})  # not a number: as if unset
    assert 1 <= got <= 4 and got == lane_count(4, {})
