"""CLI: live compare (simulated), regression checks on saved results, runs and history."""

import json

from measurefirst.cli.commands import main


def test_live_compare_simulated(capsys):
    assert main(["compare", "--simulate", "call=100us,noise=0.01,seed=2;call=110us", "x"]) == 0
    out = capsys.readouterr().out
    # the simulated clock makes every figure exact
    assert out.splitlines()[3:] == [
        "│ sim0      │ 100.032 µs │  99.979–100.078 µs │ baseline │                 │ baseline     │",
        "│ sim1      │ 110.038 µs │ 109.989–110.095 µs │   0.909x │   0.9087–0.9096 │ 10.0% slower │",
        "└───────────┴────────────┴────────────────────┴──────────┴─────────────────┴──────────────┘",
        "sim1: 10.0% slower than sim0 — time ratio 1.0999 (95% CI 1.0994–1.1005), 101 interleaved rounds",
        "stopped by precision after 1.01 s (every verdict settled)",
    ]


def test_live_compare_fail_if_slower(capsys):
    code = main(["compare", "--simulate", "call=100us,noise=0.01,seed=2;call=110us", "--fail-if-slower", "5%", "x"])
    assert code == 1
    assert "regression: sim1" in capsys.readouterr().err
    assert main(["compare", "--simulate", "call=100us,noise=0.01,seed=2;call=110us",
                 "--fail-if-slower", "20%", "x"]) == 0


def test_live_compare_statements(capsys):
    code = main(["compare", "-s", "a = torch.ones(64)", "a + a", "a * a", "--budget", "1", "--min-time", "0.05",
                 "--json"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["kind"] == "comparison" and data["labels"] == ["a + a", "a * a"]


def test_duplicate_labels_are_refused(capsys):
    assert main(["compare", "a = 1", "a = 1"]) == 2
    assert "appears twice" in capsys.readouterr().err


def test_failing_candidate_exits_1_with_its_label(capsys):
    assert main(["compare", "x = 1", "1 / 0", "--budget", "1"]) == 1
    assert "'1 / 0'" in capsys.readouterr().err


def _bench_save(store, spec, name):
    return main(["bench", "--simulate", spec, "--min-time", "0", "--warmup-time", "0.01", "--save", name,
                 "--store", str(store)])


def test_save_then_regression_check_by_name(tmp_path, capsys):
    store = tmp_path / "r.db"
    assert _bench_save(store, "call=10us,noise=0.01,seed=1", "kernel") == 0
    assert _bench_save(store, "call=10us,noise=0.01,seed=2", "kernel") == 0
    assert main(["compare", "@kernel", "--fail-if-slower", "5%", "--store", str(store)]) == 0
    assert _bench_save(store, "call=12us,noise=0.01,seed=3", "kernel") == 0
    capsys.readouterr()
    assert main(["compare", "@kernel", "--fail-if-slower", "5%", "--store", str(store)]) == 1
    err = capsys.readouterr().err
    assert "regression: kernel is 20.0% slower" in err  # 12 us / 10 us, 1% noise
    assert main(["compare", "#1", "#2", "--store", str(store)]) == 0  # no threshold: report only
    capsys.readouterr()

    assert main(["history", "kernel", "--store", str(store), "--json"]) == 0
    hist = json.loads(capsys.readouterr().out)
    assert hist["kind"] == "history" and len(hist["runs"]) == 3 and hist["steps"] == [2]
    assert main(["history", "kernel", "--store", str(store)]) == 0
    assert "slower" in capsys.readouterr().out


def test_regression_check_between_json_files(tmp_path, capsys):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert main(["bench", "--simulate", "call=10us,noise=0.01,seed=1", "--min-time", "0", "-o", str(a)]) == 0
    assert main(["bench", "--simulate", "call=10.1us,noise=0.01,seed=2", "--min-time", "0", "-o", str(b)]) == 0
    capsys.readouterr()
    assert main(["compare", str(a), str(b), "--fail-if-slower", "5%"]) == 0  # 1% slower: under the threshold
    capsys.readouterr()
    # two separate runs whose repetitions measured their spread: a 0.1% gate is finer than the runs' repetitions
    # agree, so the change is undecided (too noisy to judge, exit code 3), never a regression...
    assert main(["compare", str(a), str(b), "--fail-if-slower", "0.1%", "--json"]) == 3
    change = json.loads(capsys.readouterr().out)["changes"][0]
    assert change["verdict"] == "undecided" and {d["code"] for d in change["disturbed"]} == {"spread"}
    assert change["run_to_run_sources"] == ["repeats", "repeats"]
    # ...unless the user knows the runs agree better (a deterministic machine): then 1% is beyond the noise
    assert main(["compare", str(a), str(b), "--fail-if-slower", "0.1%", "--run-to-run", "0", "--json"]) == 1
    c = tmp_path / "c.json"
    assert main(["bench", "--simulate", "call=11us,noise=0.01,seed=3", "--min-time", "0", "-o", str(c)]) == 0
    capsys.readouterr()
    assert main(["compare", str(a), str(c), "--fail-if-slower", "5%"]) == 1  # 10% slower: beyond both
    out = capsys.readouterr().out
    assert "note: the intervals include a run-to-run spread of ±" in out and "(measured from its repetitions)" in out


def test_runs_list_show_export_delete(tmp_path, capsys):
    store = tmp_path / "r.db"
    assert _bench_save(store, "call=10us", "k") == 0
    capsys.readouterr()
    assert main(["runs", "--store", str(store)]) == 0
    assert "k" in capsys.readouterr().out
    assert main(["runs", "show", "1", "--store", str(store)]) == 0
    out = capsys.readouterr().out  # each kind shown by its own renderer: a measurement as its table
    assert out.startswith("#1 k: measurement, ") and "┃ benchmark" in out and "│ simulated" in out
    assert main(["runs", "export", "1", "--format", "csv", "--store", str(store)]) == 0
    assert capsys.readouterr().out.startswith("id,name")
    assert main(["runs", "delete", "1", "--store", str(store)]) == 0
    assert main(["runs", "delete", "1", "--store", str(store)]) == 2
    assert main(["runs", "show", "x", "--store", str(store)]) == 2


def test_corrupt_store_is_one_line_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.db"
    bad.write_text("garbage" * 50)
    assert main(["runs", "--store", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not a measurefirst results store" in err[0]
    assert bad.read_text() == "garbage" * 50


def test_missing_name(tmp_path, capsys):
    store = tmp_path / "r.db"
    assert _bench_save(store, "call=10us", "k") == 0
    assert main(["compare", "@nope", "--store", str(store)]) == 2
    assert "no run named 'nope'" in capsys.readouterr().err


def test_unwritable_output_is_refused_before_comparing(tmp_path, capsys):
    code = main(["compare", "--simulate", "call=100us,noise=0.01,seed=2;call=110us", "x",
                 "-o", str(tmp_path / "missing" / "c.json")])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == "" and "cannot write" in captured.err


def test_output_failing_after_comparing_keeps_the_printed_comparison(tmp_path, capsys, monkeypatch):
    import os

    monkeypatch.setattr(os, "replace", lambda *a: (_ for _ in ()).throw(OSError(5, "Input/output error")))
    code = main(["compare", "--simulate", "call=100us,noise=0.01,seed=2;call=110us", "x",
                 "-o", str(tmp_path / "c.json")])
    captured = capsys.readouterr()
    assert code == 2 and "slower than sim0" in captured.out and "Input/output error" in captured.err
    assert list(tmp_path.iterdir()) == []


def test_regression_check_honours_output_and_save(tmp_path, capsys, monkeypatch):
    """`compare A.json B.json -o out.json --save` writes the check and keeps it in the store (was: both
    silently ignored); `runs show` displays it with its own renderer."""
    import measurefirst

    monkeypatch.chdir(tmp_path)
    a, b, out, store = "a.json", "b.json", tmp_path / "out.json", tmp_path / "r.db"
    assert main(["bench", "--simulate", "call=10us,noise=0.01,seed=1", "--min-time", "0", "-o", a]) == 0
    assert main(["bench", "--simulate", "call=12us,noise=0.01,seed=2", "--min-time", "0", "-o", b]) == 0
    capsys.readouterr()
    assert main(["compare", a, b, "--fail-if-slower", "5%", "-o", str(out), "--save", "nightly",
                 "--store", str(store)]) == 1
    captured = capsys.readouterr()
    assert f"saved 1 run(s) to {store}: #1 nightly" in captured.err and "regression: simulated is 19.9% slower" \
        in captured.err
    check = measurefirst.load(out)
    assert check.kind == "regression" and check.gate and [c.label for c in check.failed] == ["simulated"]
    assert json.loads(out.read_text())["changes"][0]["verdict"] == "regression"
    assert main(["runs", "--store", str(store)]) == 0
    assert "regression" in capsys.readouterr().out  # the samples column names the kind
    assert main(["runs", "show", "1", "--store", str(store)]) == 0
    shown = capsys.readouterr().out
    assert shown.startswith("#1 nightly: regression, ") and "a.json → b.json" in shown and "REGRESSION" in shown


def test_live_compare_saves_each_measurement_and_the_verdicts(tmp_path, capsys):
    store = tmp_path / "r.db"
    assert main(["compare", "--simulate", "call=100us,noise=0.01,seed=2;call=110us", "x", "--save", "ab",
                 "--store", str(store)]) == 0
    assert "saved 3 run(s)" in capsys.readouterr().err
    from measurefirst.results.store import Store

    with Store(store) as s:
        assert [(r.name, r.kind) for r in s.list()] == [("ab/sim0", "measurement"), ("ab/sim1", "measurement"),
                                                        ("ab", "comparison")]
        assert s.resolve("@ab")[1].verdict("sim1").verdict == "slower"


NO_TORCH = """
import sys
from measurefirst.cli.commands import main
a, b, out, store = sys.argv[1:5]
codes = [main(["compare", a, b, "-o", out, "--save", "--store", store]), main(["runs", "--store", store]),
         main(["runs", "show", "1", "--store", store]), main(["runs", "export", "1", "--store", store]),
         main(["report", a, b, "-o", out + ".html"]), main(["kernel", "ampere_sgemm_128x64_tn"])]
assert codes == [0] * 6, codes
assert "torch" not in sys.modules, "a command that does not measure imported torch"
"""


def test_commands_that_do_not_measure_do_not_import_torch(tmp_path):
    import subprocess
    import sys

    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert main(["bench", "--simulate", "call=10us,noise=0.01,seed=1", "--min-time", "0", "-o", str(a)]) == 0
    assert main(["bench", "--simulate", "call=10us,noise=0.01,seed=2", "--min-time", "0", "-o", str(b)]) == 0
    proc = subprocess.run([sys.executable, "-c", NO_TORCH, str(a), str(b), str(tmp_path / "c.json"),
                           str(tmp_path / "r.db")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
