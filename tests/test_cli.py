"""The CLI through the hidden simulated clock (exact output) and a few real statements."""

import json
import subprocess
import sys

import pytest

from measurefirst.cli.commands import main

SIM = ["bench", "--simulate", "call=10us,timer=50ns", "--min-time", "0"]


def test_simulated_table_is_exact(capsys):
    assert main(SIM) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if "simulated" in line and "µs" in line)
    cells = [c.strip() for c in row.split("│")][1:-1]
    # (50 ns timer + 5 calls x 10 us) / 5 = 10.01 us; 10 samples of 5 calls; a CI of zero width
    header = ["benchmark", "median", "95% CI", "±", "run to run", "precision", "IQR", "min",
              "samples × calls", "warm-up", "device/timer"]
    assert dict(zip(header, cells)) == {
        "benchmark": "simulated", "median": "10.01 µs", "95% CI": "10.01–10.01 µs", "±": "0.00%",
        "run to run": "±0.00% · 5 reps", "precision": "±0.00%",
        "IQR": "0.000 µs", "min": "10.01 µs", "samples × calls": "16 × 5",
        "warm-up": "4976 calls", "device/timer": "cpu/simulated"}


ZH_HEADER = ["基准", "中位数", "95% 置信区间", "±", "运行间", "精度", "IQR", "最小", "样本数 × 调用数", "预热", "设备/计时器"]


def _header(out):
    return [c.strip() for c in next(line for line in out.splitlines() if "┃" in line).split("┃")][1:-1]


def test_lang_zh_prints_the_chinese_table(capsys):
    assert main(SIM + ["--lang", "zh"]) == 0
    out = capsys.readouterr().out
    assert _header(out) == ZH_HEADER
    row = next(line for line in out.splitlines() if "simulated" in line and "µs" in line)
    assert [c.strip() for c in row.split("│")][1:-1][-2:] == ["4976 次调用", "cpu/simulated"]  # numbers stay numbers


def test_the_language_follows_the_locale(capsys, monkeypatch):
    monkeypatch.setenv("LC_ALL", "zh_CN.UTF-8")
    assert main(SIM) == 0
    assert _header(capsys.readouterr().out) == ZH_HEADER
    assert main(SIM + ["--lang", "en"]) == 0
    assert _header(capsys.readouterr().out)[:3] == ["benchmark", "median", "95% CI"]


def test_json_carries_the_findings_words_in_the_language_asked(capsys):
    argv = ["bench", "--simulate", "call=10us,timer=50ns,cold=5ms", "--min-time", "0", "--json"]
    texts = {}
    for lang in ("en", "zh"):
        assert main(argv + ["--lang", lang]) == 0
        [finding] = json.loads(capsys.readouterr().out)["findings"]
        assert finding["code"] == "cold_start"
        texts[lang] = finding["text"]
    assert texts["zh"]["lang"] == "zh" and texts["zh"]["message"] == "首次调用耗时 5.01 ms，是稳态 10 µs 的 500.5 倍；预热 4976 次后每次调用耗时稳定"
    assert texts["en"]["lang"] == "en" and texts["en"]["message"].startswith("the first call took 5.01 ms")


def test_simulated_json(capsys):
    assert main(SIM + ["--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["kind"] == "measurement"
    assert data["numbers"] == [5] * sum(data["repeats"]) and len(data["repeats"]) == 5
    assert data["run_to_run"]["source"] == "repeats" and data["interval"]["kind"] == "run_to_run"
    assert data["stats_seconds"]["median"] == pytest.approx(10.01e-6)
    assert data["stop"]["reason"] == "precision" and data["stop"]["target_met"]


def test_output_file_written_whole(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(SIM + ["-o", str(out)]) == 0
    assert json.loads(out.read_text())["label"] == "simulated"
    assert not list(tmp_path.glob("*.tmp"))


def test_fixed_mode_from_the_cli(capsys):
    assert main(SIM + ["--warmup", "3", "--trials", "10", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["samples_ns"]) == 10 and data["warmup"]["calls"] == 2


def test_failure_prints_one_line_and_exits_1(capsys):
    code = main(["bench", "--simulate", "call=10us,fail_at=9000", "--min-time", "1"])
    captured = capsys.readouterr()
    assert code == 1
    # one line on stderr, and nothing else there (the simulated clock makes the sample number exact)
    assert captured.err == ("error: benchmark 'simulated': the function raised at sample 803: RuntimeError: simulated "
                            "failure at call 9000\n")
    # what was measured before the failure is shown, marked
    row = next(line for line in captured.out.splitlines() if line.startswith("│ simulated"))
    assert row.split("│")[1].strip() == "simulated (incomplete)" and row.split("│")[9].strip() == "803 × 5"


def test_the_status_lines_speak_the_command_s_language(capsys):
    """The line saying why is in --lang's language; the failure's own message stays as it was raised."""
    assert main(["bench", "--simulate", "call=10us,fail_at=9000", "--min-time", "1", "--lang", "zh"]) == 1
    assert capsys.readouterr().err == ("错误：benchmark 'simulated': the function raised at sample 803: RuntimeError: "
                                       "simulated failure at call 9000\n")
    assert main(["bench", "--simulate", "call=10us,interrupt_at=9000", "--min-time", "1", "--lang", "zh"]) == 130
    assert capsys.readouterr().err == "已中断：显示目前已测得的部分（标记为未完成）\n"
    assert main(["bench", "--device", "nonesuch", "1", "--lang", "zh"]) == 2
    assert capsys.readouterr().err.startswith("错误：unknown device 'nonesuch'")


def test_ctrl_c_prints_partial_results_marked_incomplete(capsys):
    code = main(["bench", "--simulate", "call=10us,interrupt_at=9000", "--min-time", "1"])
    captured = capsys.readouterr()
    assert code == 130
    assert captured.err == "interrupted: showing what was measured so far (marked incomplete)\n"
    row = next(line for line in captured.out.splitlines() if line.startswith("│ simulated"))
    assert row.split("│")[1].strip() == "simulated (incomplete)" and row.split("│")[9].strip() == "803 × 5"


@pytest.mark.parametrize("argv, needle", [
    (["bench", "--precision", "0", "x = 1"], "precision"),
    (["bench", "--budget", "-1", "x = 1"], "budget"),
    (["bench", "--number", "0", "x = 1"], "number"),
    (["bench", "1 +"], "not valid Python"),
    (["bench", "no_such_module_xyz:fn"], "cannot import"),
    (["bench", "--device", "tpu", "x = 1"], "device"),
    (["bench"], "give a statement"),
    (["bench", "--precision", "abc", "x"], "fraction"),
])
def test_bad_input_exits_2_with_one_line(argv, needle, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("error:") and needle in err[0]


def test_statement_and_setup_on_the_real_clock(capsys):
    code = main(["bench", "-s", "a = torch.ones(8, device=device)", "a + a", "--budget", "0.5",
                 "--min-time", "0.02", "--json"])
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert data["label"] == "a + a" and data["device"] == "cpu"


def test_statement_that_raises_exits_1(capsys):
    assert main(["bench", "1 / 0", "--budget", "0.5"]) == 1
    err = capsys.readouterr().err
    assert "ZeroDivisionError" in err and "cold call" in err


def test_module_function_target(tmp_path, capsys, monkeypatch):
    (tmp_path / "mf_target_mod.py").write_text(
        "import torch\nx = torch.ones(4)\ndef f():\n    return x * 2\ndef g(n):\n    return n\n")
    monkeypatch.chdir(tmp_path)
    assert main(["bench", "mf_target_mod:f", "--budget", "0.5", "--min-time", "0.02", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["label"] == "f"
    assert main(["bench", "mf_target_mod:g"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("error: mf_target_mod:g needs arguments (n)")
    assert main(["bench", str(tmp_path / "mf_target_mod.py") + ":f", "--budget", "0.3", "--json"]) == 0


def test_console_script_entry_point():
    proc = subprocess.run([sys.executable, "-m", "measurefirst", "bench", "--simulate", "call=1ms",
                           "--min-time", "0", "--warmup-time", "0"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "simulated" in proc.stdout


def test_infinite_options_are_refused(capsys):
    for opt in ("--budget", "--min-time", "--warmup-time"):
        assert main(["bench", "--simulate", "call=10us", opt, "inf", "x"]) == 2
        assert "finite" in capsys.readouterr().err


def test_a_bad_target_is_found_before_anything_is_measured(capsys):
    assert main(["bench", "x = 1", "no_such_module_zz:f", "--budget", "0.5"]) == 2
    captured = capsys.readouterr()
    assert "cannot import" in captured.err and captured.out == ""


def test_unwritable_output_is_refused_before_measuring(tmp_path, capsys):
    code = main(SIM + ["-o", str(tmp_path / "missing" / "r.json")])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert captured.err.count("\n") == 1 and "does not exist" in captured.err


def test_output_failing_after_measuring_keeps_the_printed_results(tmp_path, capsys, monkeypatch):
    import errno
    import os

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    code = main(SIM + ["-o", str(tmp_path / "r.json")])
    captured = capsys.readouterr()
    assert code == 2  # was 0: an error printed, and success reported
    assert "simulated" in captured.out and "No space left" in captured.err
    assert list(tmp_path.iterdir()) == []  # no partial file, no temporary file


def test_module_that_fails_to_import_is_one_line(tmp_path, capsys, monkeypatch):
    (tmp_path / "mf_broken_mod.py").write_text("raise RuntimeError('broken at import')\n")
    monkeypatch.chdir(tmp_path)
    assert main(["bench", "mf_broken_mod:f"]) == 2
    captured = capsys.readouterr()
    assert captured.err == "error: cannot import 'mf_broken_mod': RuntimeError: broken at import\n"
    assert captured.out == ""
