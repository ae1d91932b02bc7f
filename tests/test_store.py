import math
import multiprocessing as mp
import sqlite3
from dataclasses import replace

import pytest

from measurefirst import benchmark
from measurefirst.results.regression_checks import RUN_TO_RUN_CV, change, match, run_to_run_cv, steps
from measurefirst.results.stats import MAD_TO_SIGMA
from measurefirst.measure.simulate import SimSpec, SimWorld
from measurefirst.results.store import STORE_SCHEMA, Store, StoreError
from measurefirst.render.export import export


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
        with pytest.raises(StoreError, match=f"no run #{rid} in "):
            s.delete(rid, must_exist=True)
        assert s.list() == []


def test_export_formats(tmp_path):
    with Store(tmp_path / "r.db") as s:
        ids = s.save_many([sim(label="a"), sim(label="b")], commit="c0")
        csv_text = export(s.iter_results(ids), "csv")
        md = export(s.iter_results(ids), "markdown")
        js = export(s.iter_results(ids), "json")
    assert csv_text.splitlines()[0].startswith("id,name,created")
    assert len(csv_text.strip().splitlines()) == 3
    assert md.startswith("| id | name") and md.count("\n") == 4
    assert '"samples_ns"' in js
    with Store(tmp_path / "r.db") as s, pytest.raises(ValueError, match="format"):
        export(s.iter_results(ids), "xml")


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
    from measurefirst.results.store import Store as S

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
    assert c.words().startswith(f"{(c.ratio - 1) * 100:.1f}% slower")
    assert not change(base, slow, threshold=0.2).regression  # within the threshold
    assert not change(base, same, threshold=0.0).regression
    assert change(slow, base).improvement


def test_the_interval_across_runs_holds_the_run_to_run_spread():
    """A time ratio between two runs: both runs' 95% *precision* intervals and each run's relative run-to-run
    half-width (its own measured one, a given figure x 1.96, or the assumed one x 1.96), added in quadrature
    on the log scale, each counted once; exact arithmetic."""
    def own(*ms):
        return [max(math.log(m.precision_ci[1] / m.median), math.log(m.median / m.precision_ci[0])) for m in ms]

    base, new = sim(10_000), sim(10_200, seed=2)
    assert base.run_to_run is not None and new.run_to_run is not None
    c = change(base, new)
    hw = math.hypot(*own(base, new), math.log1p(base.run_to_run.half_width), math.log1p(new.run_to_run.half_width))
    assert (c.ci_low, c.ci_high) == pytest.approx((c.ratio * math.exp(-hw), c.ratio * math.exp(hw)), rel=1e-12)
    assert c.run_to_run_sources == ("repeats", "repeats")
    assert c.run_to_run == max(base.run_to_run.spread, new.run_to_run.spread)
    for given, source in ((0.05, "given"), (0.0, "")):
        c = change(base, new, run_to_run=given)
        hw = math.hypot(*own(base, new), math.sqrt(2) * math.log1p(1.959963984540054 * given))
        assert (c.ci_low, c.ci_high) == pytest.approx((c.ratio * math.exp(-hw), c.ratio * math.exp(hw)), rel=1e-12)
        assert (c.run_to_run, c.run_to_run_source) == (given, source)
    # one repetition measures no spread: the assumed one, said so
    b1, n1 = (replace(m, run_to_run=None, repeats=None) for m in (base, new))
    c = change(b1, n1)
    hw = math.hypot(*own(b1, n1), math.sqrt(2) * math.log1p(1.959963984540054 * RUN_TO_RUN_CV))
    assert (c.ci_low, c.ci_high) == pytest.approx((c.ratio * math.exp(-hw), c.ratio * math.exp(hw)), rel=1e-12)
    assert (c.run_to_run, c.run_to_run_source, c.run_to_run_sources) == (RUN_TO_RUN_CV, "assumed", ("assumed",) * 2)
    # 2% slower in two runs: beyond the runs' own intervals, not beyond the assumed run-to-run spread
    assert change(b1, n1, run_to_run=0.0).ci_low > 1 and c.ci_low < 1 < c.ci_high
    with pytest.raises(ValueError, match="run_to_run"):
        change(base, new, run_to_run=-0.01)


def test_run_to_run_spread_is_measured_from_a_history_robustly():
    assert run_to_run_cv([1.0, 1.01, 0.99, 1.0, 1.0, 1.01, 0.99]) is None  # too few runs (7 < 8)
    # alternating +-1%: consecutive log differences ~0.02; median abs difference / sqrt(2) x MAD_TO_SIGMA (1.4826)
    medians = [1.0, 1.01, 1.0, 1.01, 1.0, 1.01, 1.0, 1.01]
    d = math.log(1.01)
    assert run_to_run_cv(medians) == pytest.approx(math.expm1(MAD_TO_SIGMA * d / math.sqrt(2)), rel=1e-12)
    # one step change (x1.5) among quiet runs moves the estimate little: it is one difference of many
    quiet = [1.0, 1.001, 0.999, 1.0, 1.001, 0.999, 1.0]
    assert run_to_run_cv(quiet + [1.5 * q for q in quiet]) < 0.002


def test_match_by_label_and_steps():
    pairs, unmatched = match([sim(label="a"), sim(label="b")], [sim(label="b"), sim(label="c")])
    assert [(x.label, y.label) for x, y in pairs] == [("b", "b")] and unmatched == ["a", "c"]
    hist = [sim(10_000, seed=1), sim(10_000, seed=2), sim(12_000, seed=3), sim(12_000, seed=4)]
    assert steps(hist) == [2]


def test_a_history_marks_no_step_where_compare_of_the_same_runs_is_undecided(tmp_path):
    from measurefirst.results.history import load_history, load_history_table

    quiet = sim(15000, seed=3)
    disturbed = replace(quiet, preempted=tuple([1] * quiet.n_samples))  # every sample preempted: undecided
    assert change(sim(10000, seed=2), disturbed).verdict(False) == "undecided"
    assert steps([sim(10000, seed=1), sim(10000, seed=2), quiet]) == [2]
    assert steps([sim(10000, seed=1), sim(10000, seed=2), disturbed, sim(15000, seed=4)]) == []
    with Store(tmp_path / "r.db") as s:  # the table read from the store's columns says the same
        for m in (sim(10000, seed=1), sim(10000, seed=2), disturbed, sim(15000, seed=4)):
            s.save(m, name="h")
        assert load_history_table(s, "h").steps() == load_history(s, "h").steps() == []


def test_empty_measurements_are_not_saved_or_compared(tmp_path):
    from measurefirst.results.kinds import Measurement, Stop

    empty = Measurement(label="e", device="cpu", timer="wall", samples_ns=(), numbers=(), host_ns=None,
                        preempted=None, warmup=None, calibration=None, stop=Stop("interrupted", False, 0.01, 0.0),
                        complete=False)
    with Store(tmp_path / "r.db") as s, pytest.raises(ValueError, match="no samples"):
        s.save(empty)
    with pytest.raises(ValueError, match="no usable samples"):
        change(sim(), empty)


_SCHEMA_1 = """
CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, created TEXT NOT NULL, device TEXT,
    device_name TEXT, host TEXT, git_commit TEXT, median_s REAL, ci_low_s REAL, ci_high_s REAL, n_samples INTEGER,
    complete INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX runs_by_name ON runs(name, id);
PRAGMA application_id = 1835430772;
PRAGMA user_version = 1;
"""


def _schema_1_store(path, results):
    """A store as measurefirst wrote it before the kind column (store schema 1)."""
    conn = sqlite3.connect(path)
    conn.executescript(_SCHEMA_1)
    for m in results:
        median = getattr(m, "median", None)
        conn.execute("INSERT INTO runs (name, created, device, median_s, n_samples, complete, data) "
                     "VALUES (?, 'then', 'cpu', ?, 3, 1, ?)", (m.label, median, m.to_json(indent=None)))
    conn.commit()
    conn.close()


def test_a_schema_1_store_is_migrated_in_place_and_its_runs_stay_readable(tmp_path):
    from measurefirst.results.kinds import Count

    path = tmp_path / "old.db"
    m = sim(label="t")
    c = Count("n", "instructions", "perf", (100, 102), (0, 0), 10, 0)
    _schema_1_store(path, [m, c])
    with Store(path) as s:
        assert [(r.id, r.kind) for r in s.list()] == [(1, "measurement"), (2, "count")]
        assert s.get(1) == m and s.get(2) == c
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == STORE_SCHEMA
    assert conn.execute("SELECT kind FROM runs ORDER BY id").fetchall() == [("measurement",), ("count",)]
    conn.close()


def test_any_kind_is_saved_listed_resolved_and_kept_apart_from_histories(tmp_path):
    from measurefirst.results.regression_checks import check_regression

    a, b = sim(label="k", seed=1), sim(15_000, label="k", seed=2)
    reg = check_regression([a], [b], base_name="#1", new_name="#2", gate=True)
    with Store(tmp_path / "r.db") as s:
        ids = s.save_many([a, b], commit="c")
        rid = s.save(reg, "k", commit="c")
        assert [(r.id, r.name, r.kind) for r in s.list()] == [(1, "k", "measurement"), (2, "k", "measurement"),
                                                             (3, "k", "regression")]
        assert s.result(rid).to_dict() == reg.to_dict() and s.result(rid).failed == reg.failed
        assert s.resolve(f"#{rid}")[1].kind == "regression" and s.resolve("@k")[0].id == rid
        assert s.resolve("@k~1")[1] == b
        assert s.latest("k") == (ids[1], b)  # a benchmark's latest measurement, not the check saved under its name
        with pytest.raises(StoreError, match="run #3 in .* is a regression, not a measurement; "
                                             "`measurefirst runs show 3` displays it"):
            s.get(rid)
        assert s.save(reg) == 4 and s.list()[-1].name == "regression"  # no label: named after its kind


def test_parse_ref():
    from measurefirst.results.store import Ref, parse_ref

    assert parse_ref("#12") == Ref(id=12) and parse_ref("@mm") == Ref(name="mm")
    assert parse_ref("@mm~3") == Ref(name="mm", back=3) and str(Ref(name="mm", back=3)) == "@mm~3"
    assert parse_ref("a.json") is None and parse_ref("#x") is None
