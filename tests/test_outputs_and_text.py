"""Output files, strict JSON, labels as plain text, marks that explain themselves, start-up
(issue 13, items 2, 4, 10, 13, 14, 15)."""

import json
import math
import os
import signal
import subprocess
import sys

import pytest

from measurefirst.cli.commands import main
from measurefirst.results.safeio import NON_FINITE_KEY, DestinationError, check_destination, strict_json, write_atomic

SIM = ["bench", "--simulate", "call=10us,timer=50ns", "--min-time", "0", "--warmup-time", "0.001"]


def _strict(text):
    return json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} is not JSON"))


# ---- item 2: -o writes exactly where it is told, whole or not at all ---------------------------------------
def test_a_link_at_the_old_temporary_name_is_not_followed(tmp_path, capsys):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (tmp_path / "out.json.tmp").symlink_to(victim)  # the fixed temporary name used before
    assert main(SIM + ["-o", str(tmp_path / "out.json")]) == 0
    assert victim.read_text() == "precious"
    assert _strict((tmp_path / "out.json").read_text())["label"] == "simulated"


def test_a_link_at_the_destination_is_replaced_not_written_through(tmp_path, capsys):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (tmp_path / "out.json").symlink_to(victim)
    assert main(SIM + ["-o", str(tmp_path / "out.json")]) == 0
    assert victim.read_text() == "precious"
    assert not (tmp_path / "out.json").is_symlink()


def test_a_directory_is_refused_and_nothing_is_left_beside_it(tmp_path, capsys):
    (tmp_path / "d").mkdir()
    assert main(SIM + ["-o", str(tmp_path / "d")]) == 2
    assert "directory" in capsys.readouterr().err
    assert sorted(os.listdir(tmp_path)) == ["d"] and os.listdir(tmp_path / "d") == []  # was: d.tmp
    with pytest.raises(DestinationError, match="names no file"):
        check_destination("")


WRITER = """
import sys
from measurefirst.results.safeio import write_atomic
path, me = sys.argv[1], sys.argv[2]
for i in range(25):
    write_atomic(path, (me + ":" + str(i) + "\\n") * 2000)
assert "torch" not in sys.modules
"""


def test_concurrent_writers_of_one_path_all_succeed(tmp_path):
    path = tmp_path / "r.json"
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), f"w{i}"], stderr=subprocess.PIPE, text=True)
             for i in range(4)]
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0, 0], errors  # was: a third of the writes failed
    lines = path.read_text().splitlines()
    assert len(lines) == 2000 and len(set(lines)) == 1  # one writer's whole file, never a mix
    assert os.listdir(tmp_path) == ["r.json"]  # no temporary file left


def test_write_atomic_keeps_the_usual_permissions(tmp_path):
    old = os.umask(0o022)
    try:
        write_atomic(tmp_path / "x.txt", "x")
    finally:
        os.umask(old)
    assert (tmp_path / "x.txt").stat().st_mode & 0o777 == 0o644  # not mkstemp's 0600


def test_ctrl_c_while_writing_a_trace_leaves_no_temporary_file(tmp_path, monkeypatch):
    import torch

    from measurefirst import profile

    real = torch.profiler.profile.export_chrome_trace

    def interrupted_export(self, path):
        real(self, path)
        raise KeyboardInterrupt

    monkeypatch.setattr(torch.profiler.profile, "export_chrome_trace", interrupted_export)
    x = torch.ones(8)
    with pytest.raises(KeyboardInterrupt):
        profile(lambda: x + 1, device="cpu", steps=1, warmup=0, trace=tmp_path / "tr.json")
    assert os.listdir(tmp_path) == []  # was: .tr.json.XXXX.tmp


def test_plots_are_written_atomically_and_checked_before_measuring(tmp_path, capsys, monkeypatch):
    pytest.importorskip("matplotlib")
    (tmp_path / "p-throughput.png").mkdir()  # one of the three files cannot be written
    code = main(["sweep", "--op", "add", "--sizes", "8,16", "--no-peaks", "--plot", str(tmp_path / "p.png"),
                 "--budget", "0.1"])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == "" and "directory" in captured.err  # was: a traceback after the sweep


# ---- item 10: strict JSON everywhere -------------------------------------------------------------------------
def test_strict_json_writes_null_with_a_note():
    text = strict_json({"a": math.inf, "b": [1.0, math.nan], "c": {"d": -math.inf}, "e": "x"})
    data = _strict(text)
    assert data["a"] is None and data["b"] == [1.0, None] and data["c"]["d"] is None
    assert data[NON_FINITE_KEY] == {"a": "inf", "b[1]": "nan"} and data["c"][NON_FINITE_KEY] == {"d": "-inf"}


def test_compare_json_never_prints_infinity(tmp_path, capsys):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for path, call in ((a, "10us"), (b, "12us")):  # one sample each: no CI, so the ratio's CI is infinite
        assert main(["bench", "--simulate", f"call={call}", "--trials", "1", "--warmup", "1", "-o", str(path)]) == 0
    capsys.readouterr()
    assert main(["compare", str(a), str(b), "--json"]) == 0
    out = capsys.readouterr().out
    assert "Infinity" not in out and "NaN" not in out  # was: "ci_high": Infinity
    change = _strict(out)["changes"][0]  # the regression check: one change per benchmark
    assert change["ci_high"] is None and change[NON_FINITE_KEY] == {"ci_high": "inf"}


def test_a_measurement_with_non_finite_values_still_writes_strict_json():
    from measurefirst.tools.doctor import Diagnosis
    from measurefirst.results.kinds import Finding, Measurement
    from measurefirst.measure.simulate import SimWorld
    import measurefirst

    w = SimWorld(call_ns=1e4)
    m = measurefirst.benchmark(w.function(), timer=w.timer(), device="cpu", min_time=0.0, trials=1)
    data = _strict(m.to_json())  # was: ValueError "Out of range float values are not JSON compliant"
    assert data["stats_seconds"]["ci_low"] is None
    back = Measurement.from_json(m.to_json())
    assert back.samples_ns == m.samples_ns
    d = Diagnosis("x", "cpu", (Finding("unstable", value=math.inf, threshold=math.nan),), ())
    data = _strict(strict_json(d.to_dict()))
    assert data["findings"][0]["value"] is None and data["findings"][0]["threshold"] is None
    assert Diagnosis.from_dict(data).findings[0].value is None


# ---- item 4: labels are plain text everywhere -------------------------------------------------------------
@pytest.mark.parametrize("label, shown", [("[/]", "[/]"), ("x[idx]", "x[idx]"), ("x[mask]", "x[mask]"),
                                          ("[bold red]", "[bold red]"), ("a\x1b[31mb", "a\\x1b[31mb"),
                                          ("two\nlines", "two\\nlines"), ("rtl\u202eevil", "rtl\\u202eevil")])
def test_labels_are_shown_as_typed(label, shown, tmp_path, capsys):
    store = tmp_path / "r.db"
    out = tmp_path / "r.json"
    assert main(SIM + ["--label", label, "--save", "--store", str(store), "-o", str(out)]) == 0  # was: a crash
    printed = capsys.readouterr()
    assert shown in printed.out and "\x1b" not in printed.out + printed.err and "\u202e" not in printed.out
    assert json.loads(out.read_text())["label"] == label  # the data keeps the label as given
    for argv in (["runs", "--store", str(store)], ["runs", "show", "1", "--store", str(store)],
                 ["history", label, "--store", str(store)], ["compare", str(out), str(out)],
                 ["kernel", label]):
        assert main(argv) == 0, argv
        printed = capsys.readouterr()
        assert shown in printed.out, argv
        assert "\x1b" not in printed.out + printed.err and "\u202e" not in printed.out


def test_profile_label_is_plain_text(capsys):
    assert main(["profile", "x + 1", "-s", "x = torch.ones(4)", "--label", "[/]", "--steps", "1", "--warmup",
                 "0"]) == 0
    assert "[/]" in capsys.readouterr().out


def test_more_labels_than_targets_is_an_error(capsys):
    assert main(SIM + ["--label", "a", "--label", "b"]) == 2  # was: the second label silently ignored
    assert "2 --label options for 1 target" in capsys.readouterr().err


# ---- item 14: marks explain themselves; a fit at the edge is flagged ------------------------------------------
def test_sweep_marks_preempted_points_and_the_fit_at_the_edge(capsys):
    from measurefirst.results.fitting import fit_power
    from measurefirst.render.text import sweep_lines, sweep_table
    from measurefirst.render.words import word
    from measurefirst.measure.simulate import SimWorld
    from measurefirst.tools.sweep import sweep
    from rich.console import Console

    w = SimWorld(call_ns=1000.0, timer_ns=50.0, preempt_prob=0.2, preempt_ns=50_000.0, seed=5)
    result = sweep(lambda n: w.function(1000.0 * n), [1, 2, 4, 8], timer=w.timer(), device="cpu", min_time=0.0,
                   warmup_min_time=0.0, label="sim")
    console = Console(width=200, record=True)
    console.print(sweep_table(result))
    text = console.export_text()
    assert " !" in text and word("mark_caption", "en")[:18] in text  # was: preempted points shown with no mark
    assert any("preempted by the OS" in line for line in sweep_lines(result))
    edge = fit_power([1, 2, 4, 8, 16], [n**8 * 1e-9 for n in (1, 2, 4, 8, 16)])
    assert edge.at_edge and "edge of the searched range" in str(edge)  # was: k = 6.000 without a word
    assert not fit_power([1, 2, 4, 8, 16], [n**3 * 1e-9 for n in (1, 2, 4, 8, 16)]).at_edge


def test_compare_explains_its_marks(capsys):
    code = main(["compare", "--simulate", "call=100us,noise=0.01,seed=2,preempt_prob=0.2,preempt_ns=500us;call=110us",
                 "x", "--budget", "1"])
    out = capsys.readouterr().out
    assert code == 0
    assert " !" in out and "! = read with care" in out  # was: unexplained "!"
    assert any(line.startswith("! sim") and "preempted" in line for line in out.splitlines())


# ---- item 15: start-up --------------------------------------------------------------------------------------
def test_importing_measurefirst_does_not_import_torch():
    code = ("import sys, measurefirst, measurefirst.cli.commands; from measurefirst.cli.commands import main; "
            "main(['kernel', 'ampere_sgemm_128x64_tn']); assert 'torch' not in sys.modules")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_ctrl_c_during_start_up_is_one_line_exit_130(monkeypatch, capsys):
    import measurefirst.cli.commands as cli

    def interrupted_parser(lang="en"):
        os.kill(os.getpid(), signal.SIGINT)  # a real SIGINT while the command starts
        raise AssertionError("not reached")

    monkeypatch.setattr(cli, "build_parser", interrupted_parser)
    before = signal.getsignal(signal.SIGINT)  # default_int_handler, or SIG_IGN in a background job
    assert cli.main(["bench", "x"]) == 130
    assert capsys.readouterr().err == "interrupted\n"  # was: a traceback
    assert signal.getsignal(signal.SIGINT) is before  # the handler is restored


def test_public_names_still_resolve():
    import measurefirst

    for name in measurefirst.__all__:
        assert getattr(measurefirst, name) is not None
    import measurefirst.tools.compare  # noqa: F401 - the submodule of the same name
    import measurefirst.tools.doctor  # noqa: F401

    assert callable(measurefirst.compare) and callable(measurefirst.doctor)
    from measurefirst.profiling import diff

    assert callable(diff)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_with_no_reader_is_an_error_not_a_wait_without_end(tmp_path, monkeypatch):
    # issue 38's second probe: `-o p.json` (bench, sweep --plot, report, history, pytest --mf-json) to a FIFO nobody
    # read waited forever; with a reader it streams as before
    import threading

    from measurefirst.results import safeio

    monkeypatch.setattr(safeio, "FIFO_READER_WAIT_S", 0.3)
    monkeypatch.setattr(safeio, "FIFO_PAUSE_S", 0.05)
    fifo = tmp_path / "p.json"
    os.mkfifo(fifo)
    with pytest.raises(safeio.DestinationError, match=r"named pipe \(FIFO\) and nothing read it for 0 s; start its reader"):
        safeio.write_atomic(fifo, '{"a": 1}')
    monkeypatch.setattr(safeio, "FIFO_READER_WAIT_S", 60.0)  # with a reader: the write waits for its thread to start
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    safeio.write_atomic(fifo, '{"a": 1}')  # the reader may open before or after: the write waits for it
    reader.join(timeout=30)
    assert got == [b'{"a": 1}'] and fifo.is_fifo()  # streamed, never replaced by a file
