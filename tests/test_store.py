import multiprocessing as mp
import sqlite3

import pytest

from measurefirst import benchmark
from measurefirst.regression import change, match, steps
from measurefirst.simulate import SimSpec, SimWorld
from measurefirst.store import Store, StoreError


def sim(call_ns=10_000, label="sim", seed=1, noise=0.01):
    w = SimWorld(SimSpec(call_ns=call_ns, timer_ns=50, noise=noise, seed=seed))
    return benchmark(w.function(call_ns), timer=w.timer(), label=label, min_time=0.0, warmup_min_time=0.0)


def test_round_trip_list_show_delete(tmp_path):
    path = tmp_path / "r.db"
    m = sim()
    with Store(path) as s:
        rid = s.save(m, commit="abc123")
        assert s.get(rid) == m
        rows = s.list()
        assert [(r.id, r.name, r.git_commit) for r in rows] == [(rid, "sim", "abc123")]
        assert rows[0].median == pytest.approx(m.median)
        assert s.latest("sim")[0] == rid
        assert s.delete(rid) and not s.delete(rid)
        assert s.list() == []


def test_export_formats(tmp_path):
    with Store(tmp_path / "r.db") as s:
        ids = s.save_many([sim(label="a"), sim(label="b")], commit="c0")
        csv_text = s.export(ids, "csv")
        md = s.export(ids, "markdown")
        js = s.export(ids, "json")
    assert csv_text.splitlines()[0].startswith("id,name,created")
    assert len(csv_text.strip().splitlines()) == 3
    assert md.startswith("| id | name") and md.count("\n") == 4
    assert '"samples_ns"' in js
    with Store(tmp_path / "r.db") as s, pytest.raises(ValueError, match="format"):
        s.export(ids, "xml")


def test_default_path_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("MEASUREFIRST_STORE", str(tmp_path / "env.db"))
    with Store() as s:
        assert s.path == tmp_path / "env.db"
    monkeypatch.delenv("MEASUREFIRST_STORE")
    monkeypatch.chdir(tmp_path)
    with Store() as s:
        assert str(s.path) == ".measurefirst/results.db"
    assert (tmp_path / ".measurefirst" / "results.db").exists()


def test_corrupt_file_is_refused_and_untouched(tmp_path):
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"this is not a database at all" * 10)
    before = bad.read_bytes()
    with pytest.raises(StoreError, match="not a measurefirst results store"):
        Store(bad)
    assert bad.read_bytes() == before


def test_foreign_sqlite_file_is_refused_and_untouched(tmp_path):
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE customers (id INTEGER)")
    conn.commit()
    conn.close()
    before = other.read_bytes()
    with pytest.raises(StoreError, match="customers"):
        Store(other)
    assert other.read_bytes() == before
    conn = sqlite3.connect(other)
    conn.execute("PRAGMA application_id = 1234")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="application id"):
        Store(other)


def test_missing_store_when_reading(tmp_path):
    with pytest.raises(StoreError, match="no results store"):
        Store(tmp_path / "none.db", create=False)
    with Store(tmp_path / "r.db") as s, pytest.raises(StoreError, match="no run named"):
        s.latest("nothing")


def _writer(path, worker, count):
    from measurefirst.store import Store as S

    m = sim(label=f"w{worker}", seed=worker)
    with S(path) as s:
        for _ in range(count):
            s.save(m, commit="x")


def test_concurrent_writers_in_several_processes(tmp_path):
    path = tmp_path / "shared.db"
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(path), i, 15)) for i in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
        assert p.exitcode == 0
    with Store(path) as s:
        rows = s.list()
        assert len(rows) == 60
        assert sorted({r.name for r in rows}) == ["w0", "w1", "w2", "w3"]
        assert len({r.id for r in rows}) == 60


def test_regression_arithmetic():
    base, same, slow = sim(10_000), sim(10_000, seed=2), sim(11_000)
    c = change(base, slow, threshold=0.05)
    assert c.ratio == pytest.approx(1.1, rel=0.01) and c.regression and c.ci_low > 1
    assert "10.0% slower" in c.words()
    assert not change(base, slow, threshold=0.2).regression  # within the threshold
    assert not change(base, same, threshold=0.0).regression
    assert change(slow, base).improvement


def test_match_by_label_and_steps():
    pairs, unmatched = match([sim(label="a"), sim(label="b")], [sim(label="b"), sim(label="c")])
    assert [(x.label, y.label) for x, y in pairs] == [("b", "b")] and unmatched == ["a", "c"]
    hist = [sim(10_000, seed=1), sim(10_000, seed=2), sim(12_000, seed=3), sim(12_000, seed=4)]
    assert steps(hist) == [2]


def test_empty_measurements_are_not_saved_or_compared(tmp_path):
    from measurefirst.results import Measurement, Stop

    empty = Measurement(label="e", device="cpu", timer="wall", samples_ns=(), numbers=(), host_ns=None,
                        preempted=None, warmup=None, calibration=None, stop=Stop("interrupted", False, 0.01, 0.0),
                        complete=False)
    with Store(tmp_path / "r.db") as s, pytest.raises(ValueError, match="no samples"):
        s.save(empty)
    with pytest.raises(ValueError, match="no usable samples"):
        change(sim(), empty)
