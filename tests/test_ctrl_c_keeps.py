"""Ctrl-C keeps what was measured (issue 38): ``step`` and ``selfcheck`` with ``--save`` and ``-o`` exit 130
with the steps or rows measured before it saved, written and shown, marked incomplete (they exited 130 with
nothing saved and nothing written)."""

import json
import os
import signal
import sqlite3
import sys
from pathlib import Path

from measurefirst.cli.commands import main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

BUILD = f"""
import os, signal, sys
sys.path.insert(0, {str(EXAMPLES)!r})
from tiny_lm import build as real

CALLS = [0]


def build():
    CALLS[0] += 1
    if CALLS[0] == 2:  # Ctrl-C while the second candidate is built: the first was measured
        os.kill(os.getpid(), signal.SIGINT)
    return real()
"""


def test_ctrl_c_in_step_keeps_the_steps_measured(tmp_path, capsys):
    (tmp_path / "ctrlc_lm.py").write_text(BUILD)
    out, store = tmp_path / "step.json", tmp_path / "r.db"
    code = main(["step", f"{tmp_path / 'ctrlc_lm.py'}:build", "--dtypes", "fp32,bf16", "--steps", "3", "--warmup", "1",
                 "--no-peaks", "--save", "s", "--store", str(store), "-o", str(out)])
    captured = capsys.readouterr()
    assert code == 130, captured.err
    doc = json.loads(out.read_text())
    assert [s["label"] for s in doc["steps"]] == ["eager/fp32"] and doc["stopped"] is True
    with sqlite3.connect(store) as conn:
        assert conn.execute("SELECT count(*) FROM runs").fetchone()[0] == 1
    assert "eager/fp32" in captured.out


def test_ctrl_c_in_selfcheck_keeps_the_rows_checked(tmp_path, capsys, monkeypatch):
    import measurefirst.render.selfcheck as shown

    real, calls = shown.progress_line, [0]

    def line(stage, s, method, lang):
        calls[0] += 1
        if calls[0] == 4:  # after the first rows: Ctrl-C
            os.kill(os.getpid(), signal.SIGINT)
        return real(stage, s, method, lang)

    monkeypatch.setattr(shown, "progress_line", line)
    out, store = tmp_path / "sc.json", tmp_path / "r.db"
    code = main(["selfcheck", "--simulate", "timer=50ns", "--quick", "--save", "--store", str(store), "-o", str(out)])
    captured = capsys.readouterr()
    assert code == 130, captured.err
    doc = json.loads(out.read_text())
    assert doc["complete"] is False and 1 <= len(doc["rows"]) < 8
    with sqlite3.connect(store) as conn:
        assert conn.execute("SELECT count(*) FROM runs").fetchone()[0] == len(doc["measurements"]) >= 1
    assert "interrupted" in captured.err


# issue 38's second probe: Ctrl-C in the one variant of a step, or in a profile, kept nothing
ONE_VARIANT = """
import os, signal
import torch

CALLS = [0]


def build():
    model = torch.nn.Linear(8, 4)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)

    def batches():
        CALLS[0] += 1
        if CALLS[0] == 6:  # the 1 warm-up step and 4 timed ones done, Ctrl-C in the data phase of the next
            os.kill(os.getpid(), signal.SIGINT)
        return torch.randn(2, 8), torch.randint(0, 4, (2,))

    return {"model": model, "optimizer": opt, "batches": batches}


def work():
    CALLS[0] += 1
    if CALLS[0] == 9:  # 3 warm-up calls, the profiler's wait and warm-up steps, 3 active steps, then Ctrl-C in the 4th
        os.kill(os.getpid(), signal.SIGINT)
    return torch.randn(64, 64) @ torch.randn(64, 64)
"""


def test_ctrl_c_in_the_steps_of_one_variant_keeps_the_steps_timed(tmp_path, capsys):
    (tmp_path / "one.py").write_text(ONE_VARIANT)
    out, store = tmp_path / "step.json", tmp_path / "r.db"
    code = main(["step", f"{tmp_path / 'one.py'}:build", "--steps", "50", "--warmup", "1", "--no-peaks",
                 "--save", "s", "--store", str(store), "-o", str(out)])
    captured = capsys.readouterr()
    assert code == 130, captured.err
    doc = json.loads(out.read_text())
    assert doc["stopped"] is True and [s["steps"] for s in doc["steps"]] == [4]
    assert len(doc["steps"][0]["step_samples_s"]) == 4
    with sqlite3.connect(store) as conn:
        assert conn.execute("SELECT count(*) FROM runs").fetchone()[0] == 1


def test_ctrl_c_in_a_profile_keeps_the_whole_steps_profiled(tmp_path, capsys):
    (tmp_path / "one.py").write_text(ONE_VARIANT)
    out, store = tmp_path / "p.json", tmp_path / "r.db"
    code = main(["profile", f"{tmp_path / 'one.py'}:work", "--steps", "50", "--warmup", "3", "--device", "cpu",
                 "--save", "p", "--store", str(store), "-o", str(out)])
    captured = capsys.readouterr()
    assert code == 130, captured.err
    doc = json.loads(out.read_text())
    assert doc["steps"] == 3 and doc["steps_asked"] == 50
    # the cut step's ops are left out: one matmul per whole step
    mm = [r for r in doc["ops"] if r["name"] == "aten::mm"]
    assert mm and mm[0]["calls"] == 1
    with sqlite3.connect(store) as conn:
        assert conn.execute("SELECT count(*) FROM runs").fetchone()[0] == 1
    assert "interrupted" in captured.err
