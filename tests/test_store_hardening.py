"""The results store against foreign, damaged, read-only and concurrent use (issue 13, items 6, 7, 13, 15)."""

import json
import os
import sqlite3
import subprocess

import pytest

from measurefirst.cli.commands import main
from measurefirst.measure.simulate import SimWorld
from measurefirst.results.store import APPLICATION_ID, Store, StoreError

SIM = ["--simulate", "call=10us,timer=50ns", "--min-time", "0", "--warmup-time", "0.001"]


def _m(label="k"):
    import measurefirst

    w = SimWorld(call_ns=10_000.0, timer_ns=50.0)
    return measurefirst.benchmark(w.function(), timer=w.timer(), device="cpu", label=label, min_time=0.0,
                                  warmup_min_time=0.0)


def _sqlite(path, *statements):
    conn = sqlite3.connect(path)
    for s in statements:
        conn.execute(s)
    conn.commit()
    conn.close()


def _one_error(capsys):
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("error: "), err
    return err[0]


# ---- item 7: only a new or empty file becomes a store ---------------------------------------------------
@pytest.mark.parametrize("statements, needle", [
    (["PRAGMA user_version = 7"], "user_version 7"),  # no tables at all: was taken over
    (["CREATE VIEW v AS SELECT 1"], "view v"),  # only a view: was taken over
    (["CREATE TABLE t (x)", "DROP TABLE t"], "no tables"),  # emptied, but another program's file
    (["CREATE TABLE customers (id INTEGER)"], "customers"),
])
def test_a_foreign_sqlite_file_is_never_modified(tmp_path, statements, needle):
    path = tmp_path / "other.db"
    _sqlite(path, *statements)
    before, mtime = path.read_bytes(), path.stat().st_mtime_ns
    for create in (True, False):
        with pytest.raises(StoreError, match="not a measurefirst results store") as info:
            Store(path, create=create)
        assert needle in str(info.value) and "left untouched" in str(info.value)
    assert path.read_bytes() == before and path.stat().st_mtime_ns == mtime
    assert sorted(os.listdir(tmp_path)) == ["other.db"]  # no journal, WAL or shm left either


def test_only_a_new_or_empty_file_becomes_a_store(tmp_path):
    empty = tmp_path / "empty.db"
    empty.touch()
    for path in (empty, tmp_path / "new.db"):
        with Store(path) as s:
            s.save(_m(), commit="x")
        conn = sqlite3.connect(path)
        assert conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        conn.close()


# ---- item 6: stored data that cannot be read is one line, never a traceback --------------------------------
@pytest.fixture()
def store(tmp_path):
    path = tmp_path / "r.db"
    with Store(path) as s:
        s.save_many([_m("a"), _m("b"), _m("c")], commit="x")
    return path


@pytest.mark.parametrize("data, needle", [
    ('{"kind": "measurement", "schema_version": 99}', "upgrade measurefirst"),
    ("{corrupt", "not a measurefirst JSON result"),
    ('{"kind": "measurement", "schema_version": 1, "label": "a"}', "samples_ns"),
    ('{"kind": "measurement", "schema_version": 0}', "schema_version 0"),
])
def test_unreadable_rows_name_the_run_and_the_fix(store, data, needle, capsys):
    _sqlite(store, f"UPDATE run_data SET data = '{data}' WHERE id = 2")
    with Store(store) as s:
        assert s.get(1).label == "a"
        with pytest.raises(StoreError, match=needle) as info:
            s.get(2)
        assert "run #2" in str(info.value) and "runs delete 2" in str(info.value)
    assert main(["runs", "show", "2", "--store", str(store)]) == 2
    assert "run #2" in _one_error(capsys)
    assert main(["history", "b", "--json", "--store", str(store)]) == 2  # the whole runs: read, and refused
    assert needle in _one_error(capsys)
    assert main(["history", "b", "--store", str(store)]) == 0  # its table: the run's columns, which are intact
    assert "history of b" in capsys.readouterr().out
    assert main(["runs", "delete", "2", "--store", str(store)]) == 0  # the fix it names works


def test_a_dropped_table_is_a_damaged_store(store, capsys):
    _sqlite(store, "DROP TABLE runs")
    for argv in (["runs"], ["history", "a"], ["compare", "#1", "#3"], ["runs", "show", "1"]):
        assert main(argv + ["--store", str(store)]) == 2
        assert "damaged" in _one_error(capsys)
    with Store(store) as s, pytest.raises(StoreError, match="damaged"):
        s.save(_m(), commit="x")


def test_ids_beyond_sqlite_integers(store, capsys):
    with Store(store) as s:
        for bad in (2**63, -1, 0, 99999999999999999999, True, "1"):
            with pytest.raises(StoreError, match="whole numbers from 1"):
                s.get(bad)  # was: OverflowError
    assert main(["runs", "show", "99999999999999999999", "--store", str(store)]) == 2
    assert "2**63" in _one_error(capsys)
    assert main(["runs", "show", "9223372036854775807", "--store", str(store)]) == 2
    assert "no run #9223372036854775807" in _one_error(capsys)


def test_a_store_of_a_newer_schema_is_refused(store, capsys):
    _sqlite(store, "PRAGMA user_version = 99")
    assert main(["runs", "--store", str(store)]) == 2
    assert "newer measurefirst" in _one_error(capsys)


def test_a_damaged_file_when_saving_costs_no_measurement(tmp_path, capsys):
    bad = tmp_path / "r.db"
    bad.write_bytes(b"SQLite format 3\x00" + b"\x07" * 4000)  # a truncated, damaged database
    before = bad.read_bytes()
    assert main(["bench", *SIM, "--save", "--store", str(bad)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1
    assert bad.read_bytes() == before


# ---- item 6: a save that fails after measuring keeps the results ------------------------------------------
def test_a_failed_save_after_measuring_prints_and_keeps_the_results(tmp_path, capsys, monkeypatch):
    store = tmp_path / "r.db"
    original = Store.save_many

    def read_only_by_now(self, *args, **kwargs):  # the store went read-only while measuring
        self.read_only = True
        return original(self, *args, **kwargs)

    monkeypatch.setattr(Store, "save_many", read_only_by_now)
    monkeypatch.chdir(tmp_path)
    code = main(["bench", *SIM, "--save", "k", "--store", str(store)])
    captured = capsys.readouterr()
    assert code == 2
    assert "simulated" in captured.out  # printed
    line = _one_error_text(captured.err)
    assert "not saved" in line and "read-only" in line
    kept = list(tmp_path.glob("measurefirst-unsaved-*.json"))
    assert len(kept) == 1 and str(kept[0].name) in line
    assert json.loads(kept[0].read_text())[0]["label"] == "simulated"
    monkeypatch.undo()
    assert main(["compare", str(kept[0]), str(kept[0])]) == 0  # the fallback file is a results file


def _one_error_text(err):
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


# ---- items 13, 15: read-only stores and folders --------------------------------------------------------
@pytest.fixture()
def read_only_dir(tmp_path):
    """A folder that cannot be written even by root: a read-only tmpfs (needs mount rights), or a
    folder without write permission for an unprivileged user."""
    d = tmp_path / "ro"
    d.mkdir()
    if os.geteuid() != 0:
        yield d, lambda: os.chmod(d, 0o555)
        os.chmod(d, 0o755)
        return
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(d)], capture_output=True).returncode:
        pytest.skip("root without mount rights: a read-only folder cannot be made")
    try:
        yield d, lambda: subprocess.run(["mount", "-o", "remount,ro", str(d)], check=True)
    finally:
        subprocess.run(["umount", str(d)], capture_output=True)


def test_a_valid_store_in_a_read_only_folder_is_read_not_refused(read_only_dir, capsys):
    d, make_read_only = read_only_dir
    assert main(["bench", *SIM, "--save", "k", "--store", str(d / "r.db")]) == 0
    make_read_only()
    capsys.readouterr()
    assert main(["runs", "--store", str(d / "r.db")]) == 0  # was: "not a measurefirst results store"
    assert "k" in capsys.readouterr().out
    assert main(["history", "k", "--store", str(d / "r.db")]) == 0
    assert main(["runs", "show", "1", "--store", str(d / "r.db")]) == 0
    capsys.readouterr()
    # saving there is refused before anything is measured; so is -o
    assert main(["bench", *SIM, "--save", "--store", str(d / "r.db")]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "read-only" in _one_error_text(captured.err)
    assert main(["bench", *SIM, "-o", str(d / "x.json")]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "cannot write" in _one_error_text(captured.err)
    assert main(["sweep", "--op", "add", "--sizes", "8,16", "--no-peaks", "--plot", str(d / "p.png")]) == 2
    assert captured.out == "" and "cannot write" in _one_error(capsys)
    assert main(["bench", *SIM, "--save", "--store", str(d / "new.db")]) == 2
    assert "cannot write the results store" in _one_error(capsys)


# ---- concurrent writers, creating the store together --------------------------------------------------
WRITER = """
import sys
from measurefirst.results.kinds import Measurement
from measurefirst.results.store import Store
path, worker, data = sys.argv[1], sys.argv[2], open(sys.argv[3]).read()
m = Measurement.from_json(data)
with Store(path) as s:
    for _ in range(10):
        s.save(m, "w" + worker, commit="x")
assert "torch" not in sys.modules  # a quick process: the store needs no torch
"""


@pytest.mark.parametrize("start", ["missing", "zero-byte"])
def test_concurrent_writers_create_one_store_together(tmp_path, start):
    path = tmp_path / "shared.db"
    if start == "zero-byte":
        path.touch()
    data = tmp_path / "m.json"
    data.write_text(_m().to_json())
    import sys

    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(i), str(data)], stderr=subprocess.PIPE,
                              text=True) for i in range(4)]
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0, 0], errors
    with Store(path) as s:
        rows = s.list()
        assert len(rows) == 40 and len({r.id for r in rows}) == 40
        assert sorted({r.name for r in rows}) == ["w0", "w1", "w2", "w3"]
        assert s.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_a_schema_1_store_in_a_read_only_folder_is_read_as_it_is(read_only_dir):
    from test_store import _schema_1_store, sim

    d, make_read_only = read_only_dir
    m = sim(label="t")
    _schema_1_store(d / "old.db", [m])
    make_read_only()
    with Store(d / "old.db", create=False) as s:
        assert s.read_only and [(r.kind, r.name) for r in s.list()] == [("measurement", "t")] and s.get(1) == m
