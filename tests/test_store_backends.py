"""The results store's contract, on both backends: the SQLite file and a PostgreSQL server (a throwaway
one, started from the installed binaries by :mod:`pg_server`; the PostgreSQL cases skip, with the
reason, only where none can start, and fail instead under ``MEASUREFIRST_REQUIRE_PG=1``, as in CI). Same references, listing, pruning, copying, refusal of a foreign
database, and concurrent writers killed mid-save: nothing lost, nothing duplicated."""

from __future__ import annotations

import json
import math
import random
import os
import signal
import sqlite3
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

import pg_server
from measurefirst.cli.commands import main
from measurefirst.results.kinds import Count
from measurefirst.results.store import STORE_SCHEMA, Store, StoreError
from test_store import sim

pytest_plugins = ["pytester"]

SRC = str(Path(__file__).resolve().parent.parent / "src")


@pytest.fixture(scope="session")
def pg():
    server = pg_server.start()
    if isinstance(server, str):
        if os.environ.get("MEASUREFIRST_REQUIRE_PG"):  # CI (.ci/run): the PostgreSQL backend must be tested
            pytest.fail(f"MEASUREFIRST_REQUIRE_PG is set but no PostgreSQL server could start: {server}")
        pytest.skip(f"no PostgreSQL server could start: {server}")
    yield server
    server.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def where(request, tmp_path):
    """A new, empty store's location on each backend."""
    if request.param == "sqlite":
        return str(tmp_path / "r.db")
    return request.getfixturevalue("pg").fresh_schema()


def _on(m, host="h1", when="2026-11-01T00:00:00+00:00"):
    return replace(m, env={**m.env, "hostname": host, "timestamp": when})


_BASE = {}


def _sim(label, k):
    """A measurement labelled ``label``, the ``k``-th of a few distinct ones (measured once each: fast)."""
    if not _BASE:
        _BASE[0] = sim(label="x")
    base = _BASE[0]
    return replace(base, label=label, samples_ns=tuple(x * (1 + k % 3 / 100) for x in base.samples_ns))


def _count(label="n", k=0):
    return Count(label, "instructions", "perf", tuple(range(100 + k, 140 + k)), (0,) * 40, 10, 0)


def test_save_resolve_and_delete_any_kind(where):
    from measurefirst.results.regression_checks import check_regression

    a, b = sim(label="k", seed=1), sim(15_000, label="k", seed=2)
    reg = check_regression([a], [b], base_name="#1", new_name="#2", gate=True)
    with Store(where) as s:
        ids = s.save_many([a, b], commit="c")
        rid = s.save(reg, "k", commit="c")
        cid = s.save(_count(), commit="c")
        assert ids[0] < ids[1] < rid < cid
        assert [(r.name, r.kind) for r in s.list()] == [("k", "measurement"), ("k", "measurement"),
                                                       ("k", "regression"), ("n", "count")]
        assert s.get(ids[0]) == a and s.get(cid) == _count()
        assert s.result(rid).to_dict() == reg.to_dict()
        assert s.resolve(f"#{ids[1]}")[1] == b and s.resolve("@k")[0].id == rid and s.resolve("@k~1")[1] == b
        assert s.latest("k") == (ids[1], b)
        assert s.latest_ids() == {"k": rid, "n": cid} and s.names() == ["k", "n"]
        assert s.list()[0].median == pytest.approx(a.median) and s.list()[0].git_commit == "c"
        assert s.delete(ids[0]) and not s.delete(ids[0])
        with pytest.raises(StoreError, match=f"no run #{ids[0]} in "):
            s.result(ids[0])
        with pytest.raises(StoreError, match="no run named 'zz'"):
            s.latest("zz")
        assert s.save(a) > cid  # ids only grow
    with Store(where, create=False) as s:  # reopened: all there
        assert len(s.list()) == 4


def test_listing_reads_the_latest_and_filters(where):
    runs = [_on(sim(label=f"b{i % 3}", seed=i), host=f"h{i % 2}", when=f"2026-11-{1 + i:02d}T00:00:00+00:00")
            for i in range(25)]
    with Store(where) as s:
        ids = s.save_many(runs, commit="c")
        s.save(_count("b0"), commit="c")
        latest = s.list(limit=20)
        assert [r.id for r in latest] == sorted(latest_id.id for latest_id in latest) and len(latest) == 20
        assert latest[-1].kind == "count" and latest[0].id == ids[6]
        assert s.count() == 26 and len(s.list()) == 26
        assert [r.id for r in s.list("b1", limit=3)] == ids[1::3][-3:]
        assert {r.host for r in s.list(host="h0")} == {"h0"} and s.count(host="h0") == 13
        assert [r.kind for r in s.list("b0", kinds=["count"])] == ["count"]
        assert [r.id for r in s.list(since="2026-11-24")][:2] == [ids[23], ids[24]]
        assert s.count("b0", kinds=["measurement"]) == 9
        assert s.medians("b2") == [pytest.approx(r.median) for r in runs[2::3]]


def test_prune_keeps_the_latest_of_each_name_and_vacuum(where, capsys):
    runs = [_on(_sim(f"p{i % 2}", i), when=f"2026-10-{1 + i:02d}T00:00:00+00:00") for i in range(10)]
    with Store(where) as s:
        ids = s.save_many(runs, commit="c")
        with pytest.raises(StoreError, match="--keep-last"):
            s.prune()
        # beyond the latest 3 of each name AND older than Oct 5: ids[0..3] are older, of those only
        # ids[0..3] are beyond the latest 3 of their name
        assert s.prune(keep_last=3, older_than="2026-10-05") == 4
        assert [r.id for r in s.list()] == ids[4:]
        assert s.prune(keep_last=1) == 4
        assert [r.id for r in s.list()] == ids[8:]
        s.vacuum()
        assert [s.get(i) for i in ids[8:]] == runs[8:]
        s.save_many(runs[:4], commit="c")
    assert main(["runs", "prune", "--keep-last", "1", "--store", where]) == 0
    assert "deleted 4 run(s)" in capsys.readouterr().err
    assert main(["runs", "vacuum", "--store", where]) == 0 and "gave the space" in capsys.readouterr().err
    with Store(where, create=False) as s:
        assert [r.name for r in s.list()] == ["p0", "p1"]


def test_prune_filters_narrow_what_is_deleted_never_widen_it(where, capsys):
    # issue 38: `--keep-last 1 --name a` deleted runs of other names; `--machine otherhost` deleted this
    # machine's runs; `--since 2d` deleted runs outside the window
    runs = [_on(_sim(f"n{i % 2}", i), host=f"h{i % 3}", when=f"2026-10-{1 + i:02d}T00:00:00+00:00")
            for i in range(12)]
    with Store(where) as s:
        ids = s.save_many(runs, commit="c")
        cid = s.save(_count("n0"), commit="c")
        by_id = {r.id: r for r in s.list()}
        # the latest 1 of name n0 kept; nothing of n1 touched
        assert s.prune(keep_last=1, name="n0", kinds=["measurement"]) == 5
        left = {r.id for r in s.list()}
        assert {i for i in ids if by_id[i].name == "n1"} <= left and cid in left and ids[10] in left
        # a machine narrows: only h1's runs, beyond the latest 0 of each name
        assert s.prune(keep_last=0, host="h1") == len([i for i in left if by_id[i].host == "h1"])
        assert all(r.host != "h1" for r in s.list())
        # a window narrows: older than Oct 12 AND since Oct 9: only ids[8..10] can go
        left = {r.id for r in s.list()}
        gone = s.prune(older_than="2026-10-12", since="2026-10-09")
        assert gone == len([i for i in left if i in ids[8:11]])
        assert {r.id for r in s.list()} == {i for i in left if i not in ids[8:11]}
        # nothing selected: nothing deleted
        assert s.prune(keep_last=0, name="absent") == 0
    with Store(where, create=False) as s:
        n = len(s.list())
    assert main(["runs", "prune", "--keep-last", "0", "--name", "absent", "--store", where]) == 0
    err = capsys.readouterr().err
    assert "deleted 0 run(s)" in err and "only runs selected by --name absent" in err
    with Store(where, create=False) as s:
        assert len(s.list()) == n


def test_copy_a_store_into_another_and_back(where, tmp_path, capsys):
    src = tmp_path / "src.db"
    runs = [_on(_sim(f"c{i % 2}", i), host=f"h{i}") for i in range(5)]
    with Store(src) as s:
        s.save_many(runs, commit="abc")
        s.save(_count(), "cnt", commit="def")
        before = [(r, s.result(r.id)) for r in s.list()]
    assert main(["runs", "copy", str(src), where]) == 0
    assert "copied 6 run(s)" in capsys.readouterr().err
    back = tmp_path / "back.db"
    assert main(["runs", "copy", where, str(back)]) == 0
    for copy in (where, str(back)):
        with Store(copy, create=False) as s:
            after = [(r, s.result(r.id)) for r in s.list()]
        assert [(replace(r, id=0), m.to_dict()) for r, m in after] == [(replace(r, id=0), m.to_dict())
                                                                       for r, m in before]
    # issue 38: a copy made twice leaves each run once, and says so
    assert main(["runs", "copy", str(src), where]) == 0
    assert "6 run(s) were in" in capsys.readouterr().err
    with Store(where, create=False) as s:
        assert s.count() == 6


def test_a_run_named_twice_is_deleted_once(where, capsys):
    with Store(where) as s:
        ids = s.save_many([_sim("d", 0), _sim("d", 1)], commit="c")
    assert main(["runs", "delete", str(ids[0]), str(ids[0]), "--store", where]) == 0
    assert capsys.readouterr().err.count(f"#{ids[0]}") == 1
    with Store(where, create=False) as s:
        assert [r.id for r in s.list()] == [ids[1]]


def test_a_copy_into_itself_by_another_path_is_refused(tmp_path, capsys):
    (tmp_path / "s").mkdir()
    src = tmp_path / "s" / "src.db"
    with Store(src) as s:
        s.save_many([_sim("x", i) for i in range(3)], commit="c")
    before = src.read_bytes()
    for other in (tmp_path / "s" / ".." / "s" / "src.db", tmp_path / "link.db"):
        if other.name == "link.db":
            other.symlink_to(src)
        assert main(["runs", "copy", str(src), str(other)]) == 2
        assert "are the same store" in capsys.readouterr().err
    assert src.read_bytes() == before


def test_an_interrupted_copy_made_again_holds_each_run_once(where, tmp_path, monkeypatch):
    import measurefirst.results.store as store_mod

    monkeypatch.setattr(store_mod, "COPY_BATCH", 4)
    src = tmp_path / "src.db"
    with Store(src) as s:
        base = _sim("i", 0)  # ten distinct runs
        s.save_many([replace(base, label=f"i{i % 3}", samples_ns=tuple(x * (1 + i / 100) for x in base.samples_ns))
                     for i in range(10)], commit="c")
    calls = {"n": 0}
    real = Store._write_rows

    def stop_on_second(self, rows):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real(self, rows)

    with Store(src, create=False) as s, Store(where) as other:
        monkeypatch.setattr(Store, "_write_rows", stop_on_second)
        with pytest.raises(KeyboardInterrupt):
            s.copy_to(other)
        monkeypatch.setattr(Store, "_write_rows", real)
        assert other.count() == 4  # whole batches only
        ids, held = s.copy_to(other)
        assert (len(ids), held) == (6, 4) and other.count() == 10
        assert s.copy_to(other) == ([], 10)


def test_the_cli_reads_either_backend(where, capsys, monkeypatch):
    with Store(where) as s:
        for i in range(25):
            s.save(_sim("cli", i), commit=f"c{i}")
    assert main(["runs", "--store", where]) == 0
    out = capsys.readouterr()
    assert "the latest 20 runs; there are more" in out.err and out.out.count(" cli ") == 20
    assert main(["runs", "--all", "--store", where]) == 0
    out = capsys.readouterr()
    assert out.out.count(" cli ") == 25 and "there are more" not in out.err
    assert main(["runs", "-n", "25", "--store", where]) == 0 and "there are more" not in capsys.readouterr().err
    monkeypatch.setenv("MEASUREFIRST_STORE", where)
    assert main(["history", "cli", "-n", "5", "--json"]) == 0
    out = capsys.readouterr()
    assert [r["git_commit"] for r in json.loads(out.out)["runs"]] == [f"c{i}" for i in range(20, 25)]
    assert "the latest 5 runs of cli; there are more" in out.err
    assert main(["compare", "@cli", "--json"]) == 0
    change = json.loads(capsys.readouterr().out)["changes"][0]
    assert change["run_to_run_source"] == "history" and change["run_to_run"] > 0  # measured from the saved runs
    monkeypatch.delenv("MEASUREFIRST_STORE")
    assert main(["bench", "1", "--simulate", "call=10us,timer=50ns", "--min-time", "0", "--warmup-time", "0.001",
                 "--save", "simrun", "--store", where]) == 0
    assert "saved 1 run(s)" in capsys.readouterr().err
    with Store(where, create=False) as s:
        assert s.latest("simrun")[1].timer == "simulated" and s.count() == 26


def test_a_history_whose_runs_differ_threefold_is_shown_and_compared(where, capsys):
    """A measured run-to-run spread above 100% (a name whose time changed threefold, back and forth) is
    a real figure, not a typo: history and compare @NAME use it (they failed: "run_to_run is a fraction")."""
    base = _sim("x", 0)
    with Store(where) as s:
        for i in range(10):
            s.save(replace(base, samples_ns=tuple(x * (3 if i % 2 else 1) for x in base.samples_ns)), "jumpy",
                   commit=f"c{i}")
    assert main(["history", "jumpy", "--store", where]) == 0 and "jumpy" in capsys.readouterr().out
    assert main(["compare", "@jumpy", "--json", "--store", where]) == 0
    change = json.loads(capsys.readouterr().out)["changes"][0]
    assert change["run_to_run_source"] == "history" and change["run_to_run"] > 1


def _history_runs():
    """Runs of one name: times with their own run-to-run spread and without, a step up (1.3x), then the
    same as counts under another name."""
    base = _sim("t", 0)
    times = [replace(base, samples_ns=tuple(x * (1.3 if i >= 6 else 1) * (1 + i % 3 / 200) for x in base.samples_ns),
                     run_to_run=None if i % 4 == 1 else base.run_to_run, repeats=None if i % 4 == 1 else base.repeats)
             for i in range(9)]
    return times, [_count("n", k) for k in range(3)] + [_count("n", 400)]


def _no_decoding(monkeypatch):
    def refuse(self, run_id, data):
        raise AssertionError(f"run #{run_id} was decoded")

    monkeypatch.setattr(Store, "_decode", refuse)


def test_a_history_table_is_read_from_the_columns_the_same_as_from_the_runs(where, monkeypatch, capsys):
    """``history NAME`` reads its table from the runs' columns and stored summaries (no sample decoded):
    the same rows, steps and output as the view of the decoded runs, for times and counts."""
    from measurefirst.cli.emit import show
    from measurefirst.render.views import Options, view
    from measurefirst.results.history import load_history, load_history_table

    times, counts = _history_runs()
    assert times[1].run_to_run is None and times[0].run_to_run is not None
    with Store(where) as s:
        s.save_many(times, names=["t"] * len(times), commit="c")
        s.save_many(counts, names=["n"] * len(counts), commit="k")
        decoded = {(name, last): load_history(s, name, last) for name in ("t", "n") for last in (None, 3)}
    assert decoded["t", None].steps() == [6] and decoded["n", None].steps() == [3]
    shown = {}
    for (name, last), h in decoded.items():
        for lang in ("en", "zh"):
            show(view([h], Options(lang=lang)))  # what the command showed when it decoded every run
            shown[name, last, lang] = capsys.readouterr().out
    _no_decoding(monkeypatch)
    with Store(where, create=False) as s:
        for (name, last), h in decoded.items():
            assert load_history_table(s, name, last) == h.table()
    for name, last, lang in shown:
        assert main(["history", name, "--lang", lang, "--store", where, *(["-n", str(last)] if last else [])]) == 0
        assert capsys.readouterr().out == shown[name, last, lang]


def test_compare_at_name_reads_the_two_runs_it_compares(where, monkeypatch, capsys):
    """``compare @NAME`` decodes its two runs, once each, and reads the others' medians only."""
    with Store(where) as s:
        ids = [s.save(_sim("c", i), commit=f"c{i}") for i in range(10)]
    decoded: list[int] = []
    real = Store._decode
    monkeypatch.setattr(Store, "_decode", lambda self, run_id, data: decoded.append(run_id) or real(self, run_id, data))
    assert main(["compare", "@c", "--json", "--store", where]) == 0
    assert json.loads(capsys.readouterr().out)["changes"][0]["run_to_run_source"] == "history"
    assert sorted(decoded) == ids[-2:]


def test_a_store_of_schema_3_is_migrated_at_once_and_vacuum_fills_the_summaries(where, capsys):
    """The migration to store schema 5 adds the summary column in place, under the write lock, at once: its
    old runs' history rows are read whole until ``runs vacuum`` computes their summaries (decoding
    without a lock, writing in short transactions); a run whose columns do not show what it holds keeps
    none. The history is the same all along."""
    from measurefirst.results.history import load_history, load_history_table

    times, counts = _history_runs()
    with Store(where) as s:
        s.save_many(times, names=["t"] * len(times), commit="c")
        s.save_many(counts, names=["n"] * len(counts), commit="k")
        summaries = [r.summary for r in s.list()]
        s.conn.execute("ALTER TABLE runs DROP COLUMN summary")
        s.conn.execute("UPDATE runs SET n_samples = 3 WHERE id = 2")  # as written by an older measurefirst
        if s.backend == "sqlite":
            s.conn.execute("PRAGMA user_version = 3")
        else:
            s.conn.execute("UPDATE measurefirst_store SET value = '3' WHERE key = 'schema'")
    assert all(summaries) and len(set(summaries)) > 2
    with Store(where) as s:
        assert s.schema == STORE_SCHEMA and {r.summary for r in s.list()} == {None}
        tables = [load_history(s, name).table() for name in ("t", "n")]
        assert [load_history_table(s, name) for name in ("t", "n")] == tables
        new = s.save(times[0], "t", commit="new")
    assert main(["runs", "vacuum", "--store", where]) == 0 and "gave the space" in capsys.readouterr().err
    with Store(where) as s:
        assert [r.summary for r in s.list()][:-1] == [x if i != 1 else None for i, x in enumerate(summaries)]
        assert s.fill_summaries() == 0 and s.row(new).summary == summaries[0]
        assert [load_history_table(s, name) for name in ("t", "n")] == [
            load_history(s, name).table() for name in ("t", "n")]


# ---- PostgreSQL only --------------------------------------------------------------------------------
def test_a_foreign_database_or_schema_is_refused_untouched(pg):
    url = pg.fresh_schema()
    schema = url.rsplit("%3D", 1)[1]
    pg.sql(f"CREATE TABLE {schema}.customers (id int); INSERT INTO {schema}.customers VALUES (1)")
    import psycopg

    def objects():
        with psycopg.connect(url, autocommit=True) as c:
            return c.execute("SELECT relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                             "WHERE n.nspname = %s ORDER BY relname", (schema,)).fetchall()

    before = objects()
    for create in (True, False):
        with pytest.raises(StoreError, match="not a measurefirst results store .*customers.*left untouched"):
            Store(url, create=create)
    assert objects() == before
    with pytest.raises(StoreError, match="no results store at"):
        Store(pg.fresh_schema(), create=False)


def test_credentials_are_never_shown_or_saved(pg, capsys):
    secret = "s3cr3t-Pw"
    url = pg.fresh_schema().replace("postgresql://mf@", f"postgresql://mf:{secret}@")  # trust: any password
    with Store(url) as s:
        rid = s.save(sim(label="x"), commit="c")
        assert secret not in str(s.path) and "mf:***@" in str(s.path) and secret not in repr(s.conn)
        assert secret not in json.dumps(s.result(rid).to_dict()) and secret not in repr(s.list())
    assert main(["runs", "--store", url]) == 0 and main(["runs", "show", "99", "--store", url]) == 2
    out = capsys.readouterr()
    assert secret not in out.out + out.err and "no run #99" in out.err
    bad = f"postgresql://mf:{secret}@/postgres?host={pg.folder}&port=1"
    with pytest.raises(StoreError, match="cannot connect") as info:
        Store(bad)
    assert secret not in str(info.value)
    bad = f"postgresql://mf@/postgres?host={pg.folder}&port=1&password={secret}"
    with pytest.raises(StoreError) as info:
        Store(bad)
    assert secret not in str(info.value)


def test_a_postgresql_table_locked_by_another_session_is_busy_not_a_wait_without_end(pg, monkeypatch, capsys):
    import psycopg

    import measurefirst.results.store_pg as store_pg

    monkeypatch.setattr(store_pg, "LOCK_TIMEOUT_MS", 300)
    url = pg.fresh_schema()
    with Store(url) as s:
        s.save(_sim("busy", 0), commit="c")
        schema = s.conn.execute("SELECT current_schema()").fetchone()[0]
    holder = psycopg.connect(url, autocommit=True)
    try:
        holder.execute("BEGIN")
        holder.execute(f"LOCK TABLE {schema}.runs IN ACCESS EXCLUSIVE MODE")
        with Store(url) as s, pytest.raises(StoreError, match="is busy: locked by another process or session for 0.3 s"):
            s.save(_sim("busy", 1), commit="c")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    with Store(url, create=False) as s:
        assert s.count() == 1


PLUGIN_SUITE = """
def test_k(measure):
    measure(lambda: None, label="k")
"""


def test_the_pytest_plugin_talks_to_postgresql_and_never_prints_the_password(pg, pytester, monkeypatch):
    # issue 38: --mf-store postgresql://... was a file path: SQLite written under ./postgresql:/mf:SECRET@...,
    # the password printed, and a wrong password "worked"
    secret = "s3cr3t-Pw"
    url = pg.fresh_schema().replace("postgresql://mf@", f"postgresql://mf:{secret}@")
    monkeypatch.delenv("MEASUREFIRST_STORE", raising=False)
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    pytester.makepyfile(test_suite=PLUGIN_SUITE)
    sim = "--mf-simulate=call=10ms,seed=1"
    result = pytester.runpytest_subprocess(sim, "-p", "no:cacheprovider", "--mf-save", "pt", "--mf-store", url)
    out = result.stdout.str() + result.stderr.str()
    assert result.ret == 0, out
    assert secret not in out and "mf:***@" in out
    assert not any(p.name.startswith("postgres") for p in pytester.path.iterdir())
    with Store(url, create=False) as s:
        assert [r.name for r in s.list()] == ["pt/test_suite.py::test_k::k"]
    bad = f"postgresql://mf:{secret}@/postgres?host={pg.folder}&port=1"
    result = pytester.runpytest_subprocess(sim, "-p", "no:cacheprovider", "--mf-save", "pt", "--mf-store", bad)
    out = result.stdout.str() + result.stderr.str()
    assert result.ret != 0 and "cannot connect" in out and secret not in out
    result = pytester.runpytest_subprocess(sim, "-p", "no:cacheprovider", "--mf-store", "mysql://u@h/db")
    assert result.ret != 0 and "is a mysql:// URL" in result.stdout.str() + result.stderr.str()
    assert not any(":" in p.name for p in pytester.path.iterdir())


def test_a_store_url_of_another_kind_is_refused_and_sqlite_urls_are_files(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for url in ("mysql://u@h/db", "postgressql://mf@h/db", "http://x/y.db"):
        assert main(["runs", "--store", url]) == 2
        err = capsys.readouterr().err
        assert "URL; a store is a file" in err and len(err.strip().splitlines()) == 1
    monkeypatch.setenv("MEASUREFIRST_STORE", "mysql://u:pw@h/db")
    assert main(["bench", "--simulate", "call=10us,timer=50ns", "--min-time", "0", "--save", "k"]) in (1, 2)
    assert "pw" not in capsys.readouterr().err.replace("mysql://u:***@", "")
    monkeypatch.delenv("MEASUREFIRST_STORE")
    # issue 38's second probe: these became a hidden ./.db, files `sqlite:x.db`, `file:x.db`, a folder `postgresql:`
    for url, said in (("sqlite://x.db", "three slashes"), ("sqlite:x.db", "URL without '//'"),
                      ("file:x.db", "URL without '//'"), ("postgresql:/x", "URL without '//'")):
        assert main(["bench", "--simulate", "call=10us,timer=50ns", "--min-time", "0", "--save", "k", "--store", url]) == 2
        err = capsys.readouterr().err
        assert said in err and url in err and len(err.strip().splitlines()) == 1
    assert os.listdir(tmp_path) == []
    with Store("sqlite:///rel.db") as s:
        s.save(_sim("u", 0), commit="c")
    assert (tmp_path / "rel.db").is_file()
    assert main(["runs", "--store", f"sqlite:///{tmp_path}/rel.db"]) == 0


def test_without_psycopg_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "psycopg", None)
    with pytest.raises(StoreError, match=r"pip install measurefirst\[postgres\]"):
        Store("postgresql://nobody@/nothing")


# ---- SQLite only ------------------------------------------------------------------------------------
def test_listing_history_and_references_use_the_indexes(tmp_path):
    """Every query that ``runs``, ``history``, ``compare @NAME``, ``report @NAME`` and the run-to-run
    spread run (recorded as the store runs them) reads through an index (EXPLAIN QUERY PLAN): no full
    scan of the runs, no sort of them all, and no read of the results' table but by id."""
    from measurefirst.results.history import load_history, load_history_table
    from measurefirst.results.loading import _saved_spread, load_target
    from measurefirst.results.store import MEASURED_KINDS

    path = tmp_path / "r.db"
    with Store(path) as s:
        s.save_many([_on(_sim(f"q{i % 3}", i), host=f"h{i % 2}") for i in range(9)], commit="c")
        seen: list[str] = []
        s.conn.set_trace_callback(seen.append)
        for kw in ({}, {"name": "q1"}, {"kinds": ["count"]}, {"host": "h1"}, {"name": "q1", "kinds": MEASURED_KINDS}):
            s.list(**kw, limit=20)
            s.count(**kw)
        load_history(s, "q1", 20), load_history_table(s, "q1", 20)
        s.resolve("@q1"), s.resolve("@q1~1"), s.resolve("#2"), s.latest("q2", 1), s.resolve_row("@q1~2")
        s.medians("q1"), s.latest_ids()
        s.conn.set_trace_callback(None)
        queries = {q for q in seen if q.lstrip().upper().startswith("SELECT")}
        assert len(queries) >= 10
        for sql in queries:
            plan = [r[3] for r in s.conn.execute("EXPLAIN QUERY PLAN " + sql)]
            if plan == ["SCAN runs"]:  # the latest runs of all: the table read backwards by id, LIMIT rows
                assert "ORDER BY id DESC LIMIT" in sql, sql
                continue
            assert all("USING" in step for step in plan) and not any("TEMP B-TREE" in step for step in plan), \
                (sql, plan)
    # the same through the functions the commands call, on a fresh connection
    assert load_target("@q1", str(path))[0].id == 8
    assert _saved_spread("q1", str(path)) is None  # 3 runs of q1: too few to measure a spread


_SCHEMA_2 = """
CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, created TEXT NOT NULL, device TEXT,
    device_name TEXT, host TEXT, git_commit TEXT, median_s REAL, ci_low_s REAL, ci_high_s REAL, n_samples INTEGER,
    complete INTEGER NOT NULL, data TEXT NOT NULL, kind TEXT NOT NULL DEFAULT 'measurement');
CREATE INDEX runs_by_name ON runs(name, id);
CREATE TABLE peaks (key TEXT PRIMARY KEY, created TEXT NOT NULL, data TEXT NOT NULL);
PRAGMA application_id = 1835430772;
PRAGMA user_version = 2;
"""


def _schema_2_store(path, results):
    """A store as measurefirst wrote it with schema 2 (each result as its JSON text in the runs table)."""
    conn = sqlite3.connect(path)
    conn.executescript(_SCHEMA_2)
    for m in results:
        median = getattr(m, "median", None)
        conn.execute("INSERT INTO runs (name, created, device, host, git_commit, median_s, n_samples, complete, "
                     "data, kind) VALUES (?, ?, 'cpu', 'h', 'c', ?, 3, 1, ?, ?)",
                     (m.label, m.env.get("timestamp", "then") if hasattr(m, "env") else "then", median,
                      m.to_json(indent=None), m.kind))
    conn.commit()
    conn.close()


def test_a_schema_2_store_is_migrated_in_place_every_run_intact(tmp_path):
    path = tmp_path / "old.db"
    results = [_sim(f"m{i}", i) for i in range(4)] + [_count()]
    _schema_2_store(path, results)
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM runs WHERE id = 5")  # the latest id was deleted: it is never given again
    conn.execute("INSERT INTO runs (name, created, complete, data) VALUES ('bad', 'then', 1, '{corrupt')")
    conn.commit()
    old_rows = conn.execute("SELECT id, name, created, device, host, git_commit, median_s, n_samples, kind "
                            "FROM runs ORDER BY id").fetchall()
    conn.close()
    with Store(path) as s:
        assert s.schema == STORE_SCHEMA
        assert [(r.id, r.name, r.created, r.device, r.host, r.git_commit, r.median, r.n_samples, r.kind)
                for r in s.list()] == old_rows
        assert [s.get(i) for i in range(1, 5)] == results[:4]
        with pytest.raises(StoreError, match="run #6 .* cannot be read.*runs delete 6"):
            s.get(6)  # kept as it was, for the error that names it
        assert s.save(sim(label="new"), commit="x") == 7
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == STORE_SCHEMA
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")} >= {"runs", "run_data"}
    conn.close()


COMPACT_FIXTURES = Path(__file__).resolve().parent / "fixtures" / "compact"


def _stored(s, run_id):
    data = s.conn.execute("SELECT data FROM run_data WHERE id = ?", (run_id,)).fetchone()[0]
    return data.tobytes() if isinstance(data, memoryview) else data


def test_a_schema_3_store_is_migrated_to_the_current_compact_form_in_place(where):
    """Results written by the compact format before (MFZ1, committed fixtures) are rewritten in the current
    one when the store is opened: the same dictionaries come back, smaller; one that cannot be read is
    kept as it was."""
    from measurefirst.results.compact import FORMAT, packed_format, unpack
    from measurefirst.results.kinds import Measurement

    runs = ("matmul256", "simgpu")
    docs = [json.loads((COMPACT_FIXTURES / f"{run}.json").read_text()) for run in runs]
    old = [(COMPACT_FIXTURES / f"{run}.mfz1").read_bytes() for run in runs]
    with Store(where) as s:
        ids = [s.save(Measurement.from_dict(doc), commit="c") for doc in docs] + [s.save(_sim("bad", 0), commit="c")]
        for run_id, blob in zip(ids, [*old, b"MFZ1 damaged"]):
            s.conn.execute("UPDATE run_data SET data = ? WHERE id = ?", (blob, run_id))
        s.conn.execute("ALTER TABLE runs DROP COLUMN summary")  # schema 3 had none (schema 5 adds it)
        s.conn.execute("PRAGMA user_version = 3" if s.backend == "sqlite"
                       else "UPDATE measurefirst_store SET value = '3' WHERE key = 'schema'")
    with Store(where) as s:
        assert [r.id for r in s.list()] == ids
        for run_id, doc, blob in zip(ids, docs, old):
            data = _stored(s, run_id)
            assert packed_format(data) == FORMAT and unpack(data) == doc and len(data) < len(blob)
            assert s.get(run_id) == Measurement.from_dict(doc)
        assert _stored(s, ids[2]) == b"MFZ1 damaged"
        with pytest.raises(StoreError, match=f"run #{ids[2]} .* cannot be read"):
            s.get(ids[2])
        schema = (s.conn.execute("PRAGMA user_version").fetchone()[0] if s.backend == "sqlite" else
                  int(s.conn.execute("SELECT value FROM measurefirst_store WHERE key = 'schema'").fetchone()[0]))
        assert schema == STORE_SCHEMA


def test_a_copy_keeps_results_of_an_older_compact_form_in_the_current_one(tmp_path):
    from measurefirst.results.compact import FORMAT, packed_format, unpack
    from measurefirst.results.kinds import Measurement

    doc = json.loads((COMPACT_FIXTURES / "simgpu.json").read_text())
    with Store(tmp_path / "a.db") as s:
        run_id = s.save(Measurement.from_dict(doc), commit="c")
        s.conn.execute("UPDATE run_data SET data = ? WHERE id = ?", ((COMPACT_FIXTURES / "simgpu.mfz1").read_bytes(),
                                                                    run_id))
        with Store(tmp_path / "b.db") as other:
            (copied,), held = s.copy_to(other)
            assert held == 0
            data = _stored(other, copied)
    assert packed_format(data) == FORMAT and unpack(data) == doc


def test_the_compact_form_is_lossless_and_smaller():
    from measurefirst.results.compact import is_packed, pack, unpack

    m = sim(label="c", noise=0.02)
    doc = json.loads(m.to_json(indent=None))
    data = pack(doc)
    assert is_packed(data) and unpack(data) == doc and json.dumps(unpack(data)) == json.dumps(doc)
    assert len(data) < len(m.to_json(indent=None)) / 2
    tricky = {"ints": list(range(-8, 40)), "floats": [0.1 * i for i in range(20)], "whole": [float(i) for i in range(20)],
              "neg_zero": [-0.0] * 20, "mixed": [1, 1.0] * 10, "bools": [True] * 20, "big": [2**70] * 20,
              "nulls": [None, 1.0] * 10, "nested": [[1, 2]] * 20, "short": [1.5, 2],
              "deep": {"x": [3] * 30, "y": "text"}}
    back = unpack(pack(tricky))
    assert back == tricky and json.dumps(back) == json.dumps(tricky)
    assert [type(x) for x in back["mixed"][:2]] == [int, float] and str(back["neg_zero"][0]) == "-0.0"
    with pytest.raises(ValueError, match="not a measurefirst stored result"):
        unpack(data[:40])


# ---- concurrency, both backends -----------------------------------------------------------------------
WRITER = """
import sys
from measurefirst.results.kinds import Measurement
from measurefirst.results.store import Store
where, worker, data, count = sys.argv[1], sys.argv[2], open(sys.argv[3]).read(), int(sys.argv[4])
m = Measurement.from_json(data)
with Store(where) as s:
    for k in range(count):
        s.save(m, "w" + worker, commit=str(k))
        print(k, flush=True)  # acknowledged: it must be there
"""
READER = """
import sys, time
from measurefirst.results.store import Store, StoreError
where, stop = sys.argv[1], sys.argv[2]
import os
reads = 0
while not os.path.exists(stop):
    try:
        with Store(where, create=False) as s:
            for row in s.list(limit=20):
                s.result(row.id)
            reads += 1
    except StoreError as exc:
        if "no results store" not in str(exc):
            raise
print(reads)
"""
WRITERS, SAVES, KILLED = 8, 100, (0, 1)


def test_writers_killed_mid_save_lose_and_duplicate_nothing(where, tmp_path):
    data = tmp_path / "m.json"
    data.write_text(sim(label="k").to_json())
    env = {**os.environ, "PYTHONPATH": SRC}
    stop = tmp_path / "stop"
    reader = subprocess.Popen([sys.executable, "-c", READER, where, str(stop)], stdout=subprocess.PIPE, text=True,
                              env=env)
    # the writers to be killed save without end: killed, never finished first (on a fast machine 100 saves
    # are done before the kill)
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, where, str(i), str(data),
                                 str(10**6 if i in KILLED else SAVES)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
               for i in range(WRITERS)]
    acknowledged = {}
    for i in KILLED:  # killed after some saves, at whatever point of a save it is in
        assert writers[i].stdout is not None
        seen = [writers[i].stdout.readline() for _ in range(20 + 10 * i)]
        os.kill(writers[i].pid, signal.SIGKILL)
        rest = writers[i].stdout.read()  # the lines it printed before it died (some already buffered here)
        writers[i].wait(timeout=60)
        acknowledged[i] = len([x for x in seen + rest.splitlines() if x.strip()])
    results = [w.communicate(timeout=300) for w in writers]
    stop.touch()
    reads = reader.communicate(timeout=120)[0]
    assert reader.returncode == 0 and int(reads) > 0
    for i, w in enumerate(writers):
        assert w.returncode == (-signal.SIGKILL if i in KILLED else 0), results[i][1]
    with Store(where, create=False) as s:
        rows = s.list()
        assert len({r.id for r in rows}) == len(rows)
        for i in range(WRITERS):
            commits = [int(r.git_commit or -1) for r in rows if r.name == f"w{i}"]
            assert len(set(commits)) == len(commits), f"w{i} duplicated"
            if i in KILLED:  # every acknowledged save is there, and at most the one in flight beyond
                assert commits == list(range(len(commits))) and acknowledged[i] <= len(commits) <= acknowledged[i] + 1
            else:
                assert commits == list(range(SAVES))
        assert all(s.result(r.id) is not None for r in rows[-40:])


def _import_suite(folder, runs=12):
    """A pytest-benchmark history of 3 benchmarks over ``runs`` runs; test_softmax 10% slower from run 6 on."""
    rng = random.Random(1)
    machine = folder / ".benchmarks" / "Linux-CPython-3.11-64bit"
    machine.mkdir(parents=True)
    for i in range(runs):
        bms = []
        for name, base in (("test_softmax", 40e-6), ("test_matmul", 200e-6), ("test_add", 5e-6)):
            med = base * math.exp(rng.gauss(0, 0.01)) * (1.1 if name == "test_softmax" and i >= 6 else 1)
            q = med * 0.01
            bms.append({"name": name, "fullname": f"test_ops.py::{name}", "group": None, "params": None,
                        "stats": {"min": med - 3 * q, "max": med + 5 * q, "mean": med, "stddev": q, "rounds": 100,
                                  "median": med, "iqr": 2 * q, "q1": med - q, "q3": med + q, "iqr_outliers": 0,
                                  "stddev_outliers": 0, "outliers": "0;0", "ld15iqr": med - 3 * q,
                                  "hd15iqr": med + 3 * q, "ops": 1 / med, "total": 100 * med, "iterations": 1}})
        data = {"machine_info": {"node": "ci-1"}, "commit_info": {"id": f"{i:02d}" + "ab" * 19, "dirty": False},
                "datetime": f"2026-11-{i + 1:02d}T10:00:00", "version": "4.0.0", "benchmarks": bms}
        (machine / f"{i + 1:04d}_run.json").write_text(json.dumps(data))
    return folder / ".benchmarks"


def test_an_imported_suite_answers_as_a_suite_and_keeps_what_it_came_with(where, tmp_path, capsys):
    # issue 36: `runs import .benchmarks --as X` is addressable as X (history X, compare @X: one row per benchmark)
    folder = _import_suite(tmp_path)
    assert main(["runs", "import", str(folder), "--as", "ops", "--store", where]) == 0
    capsys.readouterr()
    assert main(["runs", "--all", "--store", where]) == 0
    out = capsys.readouterr().out
    assert "11ababababab" in out and " 100 " in out and " 0 " not in out  # its commit and its rounds
    assert main(["history", "ops", "--store", where]) == 0
    out = capsys.readouterr().out
    assert "suite ops: 3 benchmark(s)" in out
    row = next(x for x in out.splitlines() if "test_softmax" in x)
    assert "▲ 1.1" in row and "(commit 06ababababab)" in row
    assert all("none" in x for x in out.splitlines() if "test_add" in x or "test_matmul" in x)
    assert main(["history", "ops", "--changes", "--store", where]) == 0
    out = capsys.readouterr().out
    assert out.count("change points of ops/test_ops.py::") == 3 and out.count("▲ change at") == 1
    assert main(["history", "ops", "--json", "--store", where]) == 0
    histories = json.loads(capsys.readouterr().out)
    assert sorted(h["name"] for h in histories) == [f"ops/test_ops.py::test_{n}" for n in ("add", "matmul", "softmax")]
    soft = next(h for h in histories if h["name"].endswith("softmax"))
    assert [c["index"] for c in soft["changes"]["changes"]] == [6]
    assert main(["compare", "@ops~6", "@ops", "--fail-if-slower", "5%", "--json", "--store", where]) == 1
    changes = {c["label"]: c for c in json.loads(capsys.readouterr().out)["changes"]}
    assert set(changes) == {"test_ops.py::test_softmax", "test_ops.py::test_matmul", "test_ops.py::test_add"}
    assert changes["test_ops.py::test_softmax"]["regression"] and not changes["test_ops.py::test_add"]["regression"]
    # the suite's three comparisons share one 5% error: each interval at 1 - 5%/3 (results.regression.look_level)
    assert [c["ci_level"] for c in changes.values()] == pytest.approx([1 - 0.05 / 3] * 3)
    assert main(["compare", "@ops", "--json", "--store", where]) in (0, 3)
    assert len(json.loads(capsys.readouterr().out)["changes"]) == 3
