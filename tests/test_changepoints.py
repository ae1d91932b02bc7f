"""Change points over a history (issue 36): the search's arithmetic on seeded series, and
``measurefirst history NAME --changes`` on a store of imported runs."""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
from pathlib import Path

import pytest

from measurefirst.results import changepoints as C


def _series(rng: random.Random, n: int, spread: float, *, at: int | None = None, step: float = 0.0,
            outlier: tuple[int, float] | None = None, drift: float = 0.0) -> list[float]:
    out = []
    for i in range(n):
        v = 1e-3 * math.exp(rng.gauss(0.0, spread)) * (1 + drift) ** i
        if at is not None and i >= at:
            v *= 1 + step
        if outlier is not None and i == outlier[0]:
            v *= outlier[1]
        out.append(v)
    return out


def test_unchanged_series_rarely_show_a_change_and_never_a_single_outlier():
    rng = random.Random(1)
    alerts = 0
    for k in range(200):
        a = C.find_changes(_series(rng, 60, (0.01, 0.02, 0.05)[k % 3]))
        alerts += len(a.changes) + len(a.drifts)
        assert len(a.segments) == len(a.changes) + 1
    assert alerts <= 4, alerts  # ALPHA = 0.002 per stretch, one mistake per 100 series at most
    for k in range(100):  # one run 1.3x, 0.7x or 10x off: never a change, whatever its size
        a = C.find_changes(_series(rng, 60, 0.02, outlier=(rng.randrange(60), (1.3, 0.7, 10.0)[k % 3])))
        assert not a.changes, a.changes


def test_a_step_is_found_where_it_is_with_an_interval_that_holds_it():
    rng = random.Random(2)
    found = 0
    for _ in range(100):
        at = rng.randint(10, 50)
        a = C.find_changes(_series(rng, 60, 0.02, at=at, step=0.05))
        near = [c for c in a.changes if abs(c.index - at) <= 2]
        found += bool(near)
        for c in a.changes:  # the levels shown divide to the ratio, and its interval excludes no change
            before = next(s for s in a.segments if s.end == c.index)
            after = next(s for s in a.segments if s.start == c.index)
            assert after.level / before.level == pytest.approx(c.ratio, rel=1e-12)
            assert c.low > 1 or c.high < 1
            assert c.p_value < C.ALPHA * 5
        for s in a.segments:
            assert s.low < s.level < s.high
    assert found >= 90, found


def test_the_arithmetic_of_one_clean_step():
    values = [1.0] * 20 + [1.1] * 20
    noise = [1 + 0.01 * ((i * 7) % 5 - 2) for i in range(40)]  # a spread, deterministic
    a = C.find_changes([v * e for v, e in zip(values, noise)])
    (c,) = a.changes
    assert c.index == 20 and c.ratio == pytest.approx(1.1, rel=0.01)
    assert [(s.start, s.end, s.runs) for s in a.segments] == [(0, 20, 20), (20, 40, 20)]
    assert not a.drifts and not a.left_out


def test_a_slow_drift_is_a_drift_not_a_staircase():
    rng = random.Random(3)
    drifts = steps = 0
    for _ in range(50):
        a = C.find_changes(_series(rng, 60, 0.02, drift=0.002))
        drifts += bool(a.drifts)
        steps += len(a.changes)
        for d in a.drifts:
            assert d.low < d.per_run < d.high and d.total == pytest.approx((1 + d.per_run) ** (d.end - 1 - d.start),
                                                                            rel=1e-9)
    assert drifts >= 42 and steps <= 10, (drifts, steps)
    truth = C.find_changes([1e-3 * 1.002 ** i * (1 + 0.01 * ((i * 7) % 5 - 2)) for i in range(60)])
    (d,) = truth.drifts
    assert (d.start, d.end) == (0, 60) and d.low < 0.002 < d.high


def test_disturbed_and_wide_runs_are_left_out_and_cannot_make_a_change():
    rng = random.Random(4)
    values = _series(rng, 40, 0.01)
    for i in (20, 21, 22, 23, 24):
        values[i] *= 1.5  # five slow runs in a row, each disturbed: not a change
    disturbed = [20 <= i <= 24 for i in range(40)]
    a = C.find_changes(values, disturbed=disturbed)
    assert not a.changes and [i for i, why in a.left_out] == [20, 21, 22, 23, 24]
    assert {why for _, why in a.left_out} == {"disturbed"}
    own = [0.005] * 40
    own[10] = 0.5  # its own interval ±50%: too uncertain to place a change
    a = C.find_changes(values, own=own, disturbed=disturbed)
    assert (10, "wide") in a.left_out
    assert sum(s.runs for s in a.segments) == 40 - 6


def test_short_and_bad_series():
    assert C.find_changes([]).segments == ()
    a = C.find_changes([1.0, 1.1, 1.2])
    assert not a.changes and len(a.segments) == 1
    a = C.find_changes([1.0, math.nan, -1.0, 1.0])
    assert [i for i, _ in a.left_out] == [1, 2]
    with pytest.raises(ValueError, match="as long as each other"):
        C.find_changes([1.0, 2.0], own=[0.1])
    with pytest.raises(ValueError, match="min_segment"):
        C.find_changes([1.0], min_segment=1)
    with pytest.raises(ValueError, match="alpha"):
        C.find_changes([1.0], alpha=0.7)


def test_critical_values_grow_with_the_stretch_and_shrink_with_the_spread_s_precision():
    crit = C.critical(60, 60)
    assert 3.5 < crit < 5.0
    assert C.critical(30, 60) < C.critical(60, 60)
    assert C.critical(20, 200) < C.critical(20, 20)  # a spread read from 200 runs is surer than from 20
    assert C.critical(30, 200) < C.critical(100, 200) < C.critical(200, 200) < C.critical(201, 201)  # the tail: above
    assert C.p_value(crit + 0.5, 60, 60) < C.ALPHA < C.p_value(crit - 0.5, 60, 60)
    assert C._bridge_tail(C.critical(1000, 1000), 1000, C.MIN_SEGMENT) == pytest.approx(C.ALPHA, rel=1e-3)


def test_a_long_series_answers_quickly_enough_and_finds_its_step():
    rng = random.Random(6)
    a = C.find_changes(_series(rng, 3000, 0.02, at=1700, step=0.03))
    (c,) = a.changes
    assert abs(c.index - 1700) <= 5 and c.low < 1.03 < c.high


# -- the command line --------------------------------------------------------------------------------
def _store(tmp_path: Path) -> Path:
    from measurefirst.results.importers import from_pytest_benchmark
    from measurefirst.results.store import Store

    rng = random.Random(7)
    path = tmp_path / "h.db"
    with Store(path) as st:
        for i, v in enumerate(_series(rng, 40, 0.02, at=25, step=0.10)):
            q = v * 0.005
            data = {"machine_info": {"node": "h"}, "commit_info": {"id": f"c{i:02d}" + "f" * 37, "dirty": False},
                    "datetime": f"2026-11-{1 + i % 28:02d}T00:00:00", "version": "4.0.0",
                    "benchmarks": [{"name": "test_x", "fullname": "t.py::test_x", "group": None, "params": None,
                                    "stats": {"min": v - 4 * q, "max": v + 4 * q, "mean": v, "stddev": 1.5 * q,
                                              "rounds": 50, "median": v, "iqr": 2 * q, "q1": v - q, "q3": v + q,
                                              "iqr_outliers": 0, "stddev_outliers": 0, "outliers": "0;0",
                                              "ld15iqr": v - 3 * q, "hd15iqr": v + 3 * q, "ops": 1 / v,
                                              "total": 50 * v, "iterations": 1}}]}
            st.save(from_pytest_benchmark(data)[0], "x", commit=data["commit_info"]["id"])
    return path


def _mf(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "measurefirst", *args], capture_output=True, text=True, timeout=120)


def test_history_changes_on_the_command_line_and_in_json(tmp_path: Path):
    store = _store(tmp_path)
    done = _mf("history", "x", "--changes", "--store", str(store))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "change points of x: 40 run(s)" in out
    assert "runs #1 to #25:" in out and "runs #26 to #40:" in out
    line = next(x for x in out.splitlines() if "change at" in x)
    assert "▲ change at #26 (commit c25fffffffff): 1.1" in line and "slower" in line
    assert "#40" in out  # --changes reads every run, not the latest 20
    zh = _mf("history", "x", "--changes", "--store", str(store), "--lang", "zh").stdout
    assert "x 的变化点：40 次运行" in zh and "▲ 变化于 #26" in zh
    data = json.loads(_mf("history", "x", "--all", "--json", "--store", str(store)).stdout)
    (c,) = data["changes"]["changes"]
    assert c["index"] == 25 and c["low"] > 1
    ratio = float(line.split("): ")[1].split("x")[0])
    assert ratio == pytest.approx(c["ratio"], abs=5e-4)  # the number shown is the JSON's
