"""Reading what users already have (issue 27, part 3): pytest-benchmark's and pyperf's JSON as measurements,
and ``measurefirst runs import`` of a whole pytest-benchmark history into the store."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import measurefirst
from measurefirst.cli.commands import main
from measurefirst.results.importers import from_pyperf, from_pytest_benchmark, sniff
from measurefirst.results.loading import LoadError, imported_runs
from measurefirst.results.kinds import Measurement
from measurefirst.results.stats import NOTCH_FACTOR, NOTCH_MIN_ROUNDS
from measurefirst.results.store import Store

SUITE = """
import pytest

def work():
    return sum(range(200))

def test_work(benchmark):
    benchmark(work)

def test_pedantic(benchmark):
    benchmark.pedantic(work, rounds=6, iterations=4, warmup_rounds=1)

@pytest.mark.parametrize("n", [10, 20])
def test_sized(benchmark, n):
    benchmark(lambda: sum(range(n)))
"""
#: tiny rounds: the suite runs in well under a second per run
FAST = ["--benchmark-max-time=0.002", "--benchmark-min-rounds=5", "--benchmark-warmup=off"]


def _pytest_benchmark(folder: Path, *args: str) -> None:
    """Run the tiny suite under pytest-benchmark alone, in a fresh process."""
    pytest.importorskip("pytest_benchmark")
    (folder / "test_tiny.py").write_text(SUITE)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                           "test_tiny.py", *FAST, *args], cwd=folder, capture_output=True, text=True, timeout=300,
                          env=env)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]


def _pb_doc(data: list[float] | None, *, rounds: int, iterations: int, name: str = "test_a") -> dict[str, Any]:
    values = np.asarray(data if data is not None else [1e-6] * rounds)
    q1, med, q3 = (float(x) for x in np.percentile(values, [25, 50, 75]))
    stats = {"min": float(values.min()), "max": float(values.max()), "mean": float(values.mean()),
             "stddev": float(values.std(ddof=1)), "rounds": rounds, "median": med, "iqr": q3 - q1, "q1": q1, "q3": q3,
             "iqr_outliers": 0, "stddev_outliers": 0, "outliers": "0;0", "ld15iqr": float(values.min()),
             "hd15iqr": float(values.max()), "ops": 1 / float(values.mean()), "total": float(values.sum()),
             "iterations": iterations}
    if data is not None:
        stats["data"] = list(data)
    return {"machine_info": {"node": "box", "python_version": "3.11.7", "system": "Linux",
                             "cpu": {"brand_raw": "Some CPU", "count": 8}},
            "commit_info": {"id": "abc123", "dirty": True, "branch": "main"},
            "benchmarks": [{"group": None, "name": name, "fullname": f"test_x.py::{name}", "params": None,
                            "param": None, "extra_info": {}, "options": {"timer": "perf_counter"}, "stats": stats}],
            "datetime": "2026-01-02T03:04:05+00:00", "version": "5.3.1"}


def test_raw_times_are_kept_per_round_and_every_statistic_recomputed() -> None:
    rng = np.random.default_rng(7)
    per_call = list(rng.uniform(1e-6, 2e-6, size=40))
    doc = _pb_doc(per_call, rounds=40, iterations=25)
    assert sniff(doc) == "pytest-benchmark"
    [m] = from_pytest_benchmark(doc)
    # pytest-benchmark divides each round by its iterations: a sample is the round's total
    assert m.numbers == (25,) * 40
    assert m.samples_ns == pytest.approx([x * 25 * 1e9 for x in per_call])
    assert m.median == pytest.approx(float(np.median(per_call)))
    assert m.imported is not None and m.imported.recomputed and m.imported.source == "pytest-benchmark"
    assert m.precision_ci is not None and m.precision_ci[0] < m.median < m.precision_ci[1]
    assert m.label == "test_x.py::test_a" and m.options["name"] == "test_a"
    assert m.env["hostname"] == "box" and m.env["cpu_model"] == "Some CPU" and m.env["git_commit"] == "abc123-dirty"
    assert m.env["timestamp"] == doc["datetime"]


def test_without_raw_times_nothing_is_made_up() -> None:
    """No samples; the file's statistics as given; the interval only what its quartiles and rounds support."""
    rng = np.random.default_rng(3)
    values = list(rng.uniform(1e-6, 2e-6, size=30))
    doc = _pb_doc(values, rounds=30, iterations=10)
    del doc["benchmarks"][0]["stats"]["data"]
    [m] = from_pytest_benchmark(doc)
    st = doc["benchmarks"][0]["stats"]
    assert m.samples_ns == () and m.n_rounds == 30 and m.loop_counts == (10,)
    assert m.imported is not None and not m.imported.recomputed
    assert (m.median, m.min, m.mean, m.stdev) == (st["median"], st["min"], st["mean"], st["stddev"])
    half = NOTCH_FACTOR * st["iqr"] / math.sqrt(30)
    assert m.precision_ci == pytest.approx((st["median"] - half, st["median"] + half))
    # too few rounds: no interval at all
    few = _pb_doc(values[:NOTCH_MIN_ROUNDS - 1], rounds=NOTCH_MIN_ROUNDS - 1, iterations=1)
    del few["benchmarks"][0]["stats"]["data"]
    [f] = from_pytest_benchmark(few)
    assert f.precision_ci is None and f.ci is None and math.isinf(f.ci_half_width_rel)
    # the stored form keeps the mark and loads back the same
    back = Measurement.from_dict(json.loads(m.to_json()))
    assert back == m and back.summary == m.summary
    assert "imported from pytest-benchmark without raw times" in str(m)


def test_pyperf_runs_are_processes_and_values_are_per_call() -> None:
    doc = {"version": "1.0", "metadata": {"name": "fib", "loops": 8, "inner_loops": 2, "hostname": "box",
                                         "unit": "second"},
           "benchmarks": [{"runs": [
               {"metadata": {"calibrate_loops": 8}, "warmups": [[1, 1e-3]]},  # a calibration run: no values
               {"metadata": {"date": "2026-01-01 10:00:00"}, "warmups": [[8, 9e-6]], "values": [1.0e-5, 1.1e-5, 1.2e-5]},
               {"metadata": {"date": "2026-01-01 10:00:01"}, "values": [1.3e-5, 1.4e-5, 1.5e-5]},
           ]}]}
    assert sniff(doc) == "pyperf"
    [m] = from_pyperf(doc)
    assert m.label == "fib" and m.numbers == (16,) * 6 and m.repeats == (3, 3)
    assert m.per_call_ns == pytest.approx([1.0e4, 1.1e4, 1.2e4, 1.3e4, 1.4e4, 1.5e4])
    assert m.run_to_run is not None and m.run_to_run.source == "processes" and m.run_to_run.n == 2
    assert m.env["timestamp"] == "2026-01-01T10:00:01"
    assert "git_commit" not in m.env  # the file names no commit
    # issue 36: a commit named in the metadata (pyperformance's commit_id) is kept, and only a commit id
    doc["metadata"] |= {"commit_id": "0A1B2C3D4E5F", "commit_branch": "main"}
    [m] = from_pyperf(doc)
    assert m.env["git_commit"] == "0a1b2c3d4e5f" and m.env["commit_branch"] == "main"
    doc["metadata"]["commit_id"] = "$(rm -rf /)"
    assert "git_commit" not in from_pyperf(doc)[0].env


def test_a_real_pyperf_file_loads(tmp_path: Path) -> None:
    out = tmp_path / "p.json"
    proc = subprocess.run([sys.executable, "-m", "pyperf", "timeit", "--processes", "2", "--values", "3", "--loops", "10",
                           "--warmups", "1", "-o", str(out), "sum(range(20))"], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    m = measurefirst.load(out)
    assert isinstance(m, Measurement) and m.imported is not None and m.imported.source == "pyperf"
    assert m.n_samples == 6 and set(m.numbers) == {10} and m.repeats == (3, 3)


def test_real_pytest_benchmark_files_both_modes_with_and_without_raw_times(tmp_path: Path) -> None:
    _pytest_benchmark(tmp_path, "--benchmark-json=with.json", "--benchmark-save-data")
    doc = json.loads((tmp_path / "with.json").read_text())
    found = measurefirst.load(tmp_path / "with.json")
    assert isinstance(found, list) and len(found) == len(doc["benchmarks"]) == 4
    by = {m.options["name"]: m for m in found}
    ped = by["test_pedantic"]
    raw = next(b for b in doc["benchmarks"] if b["name"] == "test_pedantic")["stats"]
    assert ped.n_samples == 6 and set(ped.numbers) == {4}  # pedantic: rounds and iterations honoured
    assert ped.per_call_ns / 1e9 == pytest.approx(raw["data"])
    assert ped.median == pytest.approx(raw["median"])
    # --benchmark-json always has the raw times; an autosaved run has them only with --benchmark-save-data
    _pytest_benchmark(tmp_path, "--benchmark-autosave")
    [saved] = (tmp_path / ".benchmarks").rglob("0001_*.json")
    bare = measurefirst.load(saved)
    assert isinstance(bare, list) and len(bare) == 4
    assert all(m.samples_ns == () and m.median > 0 and m.imported and not m.imported.recomputed for m in bare)
    # every command that takes results reads it
    assert main(["report", str(saved), str(tmp_path / "with.json"), "-o", str(tmp_path / "r.html")]) == 0
    assert main(["compare", str(tmp_path / "with.json"), str(saved)]) == 0


def test_done_when_a_benchmarks_folder_of_three_runs_imports_and_compare_gives_a_verdict(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for _ in range(3):
        _pytest_benchmark(tmp_path, "--benchmark-autosave")
    files = sorted((tmp_path / ".benchmarks").rglob("*.json"))
    assert len(files) == 3
    store = str(tmp_path / "s.db")
    assert main(["runs", "import", str(tmp_path / ".benchmarks"), "--store", store]) == 0
    out = capsys.readouterr().err  # status lines go to stderr
    assert "imported 12 run(s) of 4 benchmark(s) from 3 pytest-benchmark file(s)" in out
    with Store(store, create=False) as s:
        rows = s.list("test_work")
        assert len(rows) == 3 and [r.created for r in rows] == sorted(r.created for r in rows)
    assert main(["compare", "@test_work", "--store", store]) == 0
    table = capsys.readouterr().out
    assert "@test_work~1 → @test_work" in table
    assert any(v in table for v in ("same", "faster", "slower", "undecided"))
    assert main(["history", "test_work", "--store", store]) == 0
    assert main(["report", "test_work", "--store", store, "-o", str(tmp_path / "h.html")]) == 0
    assert main(["runs", "show", "1", "--store", store]) == 0
    # importing again saves nothing twice
    capsys.readouterr()
    assert main(["runs", "import", str(tmp_path / ".benchmarks"), "--store", store]) == 0
    again = capsys.readouterr().err
    assert "imported 0 run(s)" in again and "12 already imported, skipped" in again
    # as a baseline for `pytest --mf --mf-compare NAME`: saved as NAME/<node id>
    assert main(["runs", "import", str(tmp_path / ".benchmarks"), "--store", store, "--as", "base"]) == 0
    with Store(store, create=False) as s:
        assert len(s.list("base/test_tiny.py::test_work")) == 3


def test_bad_input_is_refused_before_anything_is_saved(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "s.db"
    assert main(["runs", "import", str(tmp_path / "nope"), "--store", str(store)]) == 2
    assert "does not exist" in capsys.readouterr().err and not store.exists()
    good = tmp_path / "good.json"
    good.write_text(json.dumps(_pb_doc([1e-6] * 5, rounds=5, iterations=1)))
    broken = _pb_doc([1e-6] * 5, rounds=5, iterations=1)
    del broken["benchmarks"][0]["stats"]["rounds"]
    (tmp_path / "broken.json").write_text(json.dumps(broken))
    assert main(["runs", "import", str(good), str(tmp_path / "broken.json"), "--store", str(store)]) == 2
    err = capsys.readouterr().err
    assert "stats.rounds must be a whole number" in err and len(err.strip().splitlines()) == 1
    assert not store.exists()
    mine = tmp_path / "mine.json"
    [theirs] = from_pytest_benchmark(_pb_doc([1e-6] * 5, rounds=5, iterations=1))
    mine.write_text(replace(theirs, imported=None).to_json())
    with pytest.raises(LoadError, match="not another tool's"):
        imported_runs([good, mine])
    assert main(["runs", "import", "--store", str(store)]) == 2
    assert main(["runs", "list", "--as", "x", "--store", str(store)]) == 2
    assert main(["runs", "import", str(good), "--as", "a/b", "--store", str(store)]) == 2
    (tmp_path / "empty").mkdir()
    assert main(["runs", "import", str(tmp_path / "empty"), "--store", str(store)]) == 2
    assert "no *.json files in" in capsys.readouterr().err and not store.exists()


def test_a_pytest_benchmark_file_is_a_baseline_for_pytest_mf(tmp_path: Path) -> None:
    """`pytest --mf --mf-compare FILE` takes pytest-benchmark's own JSON: its benchmarks match by node id."""
    _pytest_benchmark(tmp_path, "--benchmark-autosave")
    [saved] = (tmp_path / ".benchmarks").rglob("0001_*.json")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                           "test_tiny.py", "--mf", "--mf-simulate=call=1us", "--mf-compare", str(saved)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "4 measurement(s) in 4 test(s), compared with" in proc.stdout


@pytest.mark.parametrize("change, needle", [
    (lambda d: d["benchmarks"][0]["stats"].update(median=1e308), "stats.median must be a number of seconds above 0"),
    # issue 38's second probe: a time of 0 and a file without its date were saved (the latter as made now)
    (lambda d: d["benchmarks"][0]["stats"].update(data=[0.0, 0.0, 0.0]), "a call takes some time"),
    (lambda d: d.pop("datetime"), "datetime is missing: without when the run was made"),
    (lambda d: d["benchmarks"][0]["stats"].update(median=5e-6), "lies outside min-max"),
    (lambda d: d["benchmarks"][0]["stats"].update(rounds=10**18), "stats.rounds must be a whole number from 1 to"),
    (lambda d: d.update(datetime="garbage"), "datetime must be an ISO date"),
    (lambda d: d.update(datetime="99999-01-01T00:00:00"), "datetime must be an ISO date"),
    (lambda d: d["benchmarks"][0].update(name="n" * 50_000), "name must be a name of 1 to 4096 characters"),
])
def test_values_no_measurement_has_are_refused_on_import(change, needle, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    # issue 38: each of these was accepted and saved
    doc = _pb_doc([1e-6, 2e-6, 3e-6], rounds=3, iterations=1)
    change(doc)
    path, store = tmp_path / "bad.json", tmp_path / "s.db"
    path.write_text(json.dumps(doc))
    assert main(["runs", "import", str(path), "--store", str(store)]) == 2
    err = capsys.readouterr().err
    assert needle in err and len(err.strip().splitlines()) == 1 and not store.exists()


def test_a_file_named_twice_is_imported_once_and_pyperf_gzip_files_are_read(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    # issue 38: `runs import a.json b.json a.json` saved a's runs twice; pyperf's f.json.gz was refused
    import gzip

    doc = {"version": "1.0", "metadata": {"name": "fib", "loops": 8, "hostname": "box", "unit": "second"},
           "benchmarks": [{"runs": [{"metadata": {"date": f"2026-01-0{d} 10:00:00"}, "values": [1.0e-5, 1.1e-5, 1.2e-5]}
                                    for d in (1, 2)]}]}
    a, b = tmp_path / "a.json", tmp_path / "b.json.gz"
    a.write_text(json.dumps(doc))
    doc["benchmarks"][0]["runs"][1]["metadata"]["date"] = "2026-01-03 10:00:00"
    b.write_bytes(gzip.compress(json.dumps(doc).encode()))
    store = str(tmp_path / "s.db")
    assert main(["runs", "import", str(a), str(b), str(a), str(tmp_path / "." / "a.json"), "--store", store]) == 0
    assert "imported 2 run(s) of 1 benchmark(s) from 2 pyperf file(s)" in capsys.readouterr().err
    with Store(store, create=False) as s:
        assert [r.created for r in s.list("fib")] == ["2026-01-02T10:00:00", "2026-01-03T10:00:00"]
    assert main(["runs", "import", str(tmp_path), "--store", str(tmp_path / "t.db")]) == 0  # the folder finds .json.gz
    assert "from 2 pyperf file(s)" in capsys.readouterr().err
    bad = tmp_path / "bad.json.gz"
    bad.write_bytes(gzip.compress(b"{}")[:12])
    assert main(["runs", "import", str(bad), "--store", store]) == 2
    assert "is a damaged gzip file" in capsys.readouterr().err


def test_the_same_run_in_two_files_of_one_import_is_saved_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # issue 38's second probe: `cp a.json c.json; runs import a.json c.json` saved the run twice (a later import
    # of either was already found)
    doc = {"version": "1.0", "metadata": {"name": "fib", "loops": 8, "hostname": "box", "unit": "second"},
           "benchmarks": [{"runs": [{"metadata": {"date": "2026-01-02 10:00:00"}, "values": [1.0e-5, 1.1e-5, 1.2e-5]}]}]}
    a, c = tmp_path / "a.json", tmp_path / "c.json"
    a.write_text(json.dumps(doc))
    c.write_text(json.dumps(doc))
    store = str(tmp_path / "s.db")
    assert main(["runs", "import", str(a), str(c), "--store", store]) == 0
    capsys.readouterr()
    with Store(store, create=False) as s:
        assert len(s.list("fib")) == 1
