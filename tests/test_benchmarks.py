"""The benchmark scripts' smoke runs (--quick): they run end to end and print their tables. The
figures themselves depend on the machine; the scripts are run in full on a quiet machine."""

from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).parent.parent / "benchmarks"


@pytest.fixture()
def scripts(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import discrimination
    import runtorun
    import workloads

    return runtorun, discrimination, workloads


@pytest.mark.realclock
def test_runtorun_quick_prints_every_tool_and_writes_a_log_only_when_asked(scripts, capsys, tmp_path, monkeypatch):
    runtorun, _, workloads = scripts
    monkeypatch.setattr(workloads, "DOCS", str(tmp_path))
    runtorun.main(["--quick", "--reference"])
    out = capsys.readouterr().out
    assert "busy 20us:" in out and "CI covers consensus" in out
    for tool in ("measurefirst ", "timeit (min)", "tub blocked_autorange", "measurefirst +reference"):
        assert tool in out
    assert ("pytest-benchmark  " in out) == workloads.pytest_benchmark_available()
    line = next(x for x in out.splitlines() if x.startswith("measurefirst +reference"))
    assert line.rstrip().endswith(("yes", "no"))  # the normalized columns are filled
    assert list(tmp_path.iterdir()) == []
    runtorun.main(["--quick", "--log"])
    logs = list(tmp_path.glob("runtorun-*.txt"))
    assert len(logs) == 1 and "CI covers consensus" in logs[0].read_text()


@pytest.mark.realclock
def test_discrimination_quick_measures_the_copy_truth_then_runs_under_load(scripts, capsys):
    _, discrimination, _ = scripts
    discrimination.main(["--quick"])
    out = capsys.readouterr().out
    assert "truth, period 0.3 s, busy 2.0%" in out and "truth, period 0.3 s, copy 2.0%" in out
    assert "quiet pairs before and after" in out  # the copy's truth: the load paused, around the trial
    rows = [x for x in out.splitlines() if x.startswith("0.3 s")]
    assert len(rows) == 4  # busy and copy, measurefirst and one other tool
    mf = [r.split() for r in rows if "measurefirst compare" in r]
    # right, wrong, undecided, no difference (counts that add up to the one trial), CI coverage twice
    assert len(mf) == 2 and all(sum(int(x) for x in r[-6:-2]) == 1 and r[-2].endswith("/1") and r[-1].endswith("/1")
                                for r in mf)


def test_the_scripts_refuse_unknown_workloads(scripts, capsys):
    runtorun, discrimination, _ = scripts
    with pytest.raises(SystemExit):
        runtorun.main(["--workloads", "nope", "--runs", "1"])
    assert "unknown workload 'nope'" in capsys.readouterr().err


def test_repeats_goes_with_fresh_and_the_ab_script_wants_two_checkouts(scripts, capsys, tmp_path):
    runtorun, _, _ = scripts
    with pytest.raises(SystemExit):
        runtorun.main(["--repeats", "2"])
    assert "--repeats goes with --fresh" in capsys.readouterr().err
    import runtorun_ab

    with pytest.raises(SystemExit):
        runtorun_ab.main(["--before", str(tmp_path), "--after", str(BENCHMARKS.parent)])
    assert "has no benchmarks/runtorun.py; give a measurefirst checkout root" in capsys.readouterr().err
