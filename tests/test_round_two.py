"""Nothing lost, nothing hangs, nothing silently wrong, round two (issue 25): each probe that lost or
changed data, injected text or hung, as a case with the one line and the exit code it gets now."""

import hashlib
import os
import shutil
import sqlite3
import stat

import pytest

from measurefirst.cli import main

SIM = ["--simulate", "call=10us,timer=50ns", "--min-time", "0", "--warmup-time", "0.001"]


def _digest(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def _one_error(capsys):
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("error: "), err
    return err[0]


@pytest.fixture()
def saved(tmp_path, monkeypatch):
    """h.db with three saves of ``mm``, two results files and links to them, in the working directory."""
    monkeypatch.chdir(tmp_path)
    for _ in range(3):
        assert main(["bench", "1", *SIM, "--save", "mm", "--store", "h.db"]) == 0
    assert main(["bench", "1", *SIM, "-o", "base.json"]) == 0
    assert main(["bench", "1", *SIM, "-o", "new.json"]) == 0
    os.link("h.db", "hard.db")
    os.symlink("h.db", "soft.db")
    os.symlink("base.json", "base-link.json")
    (tmp_path / "script.py").write_text("def f():\n    return 1\n")
    return tmp_path


# ---- an output that is the store or an input is refused before anything is measured --------------------
SAME_FILE = [
    (["bench", "1", *SIM, "--save", "mm", "--store", "h.db", "-o", "h.db"], "is the results store h.db"),
    (["bench", "1", *SIM, "--store", "h.db", "-o", "h.db"], "is the results store h.db"),
    (["bench", "1", *SIM, "--save", "mm", "--store", "h.db", "-o", "hard.db"], "is the results store h.db"),
    (["bench", "1", *SIM, "--save", "mm", "--store", "soft.db", "-o", "h.db"], "is the results store soft.db"),
    (["history", "mm", "--store", "h.db", "-o", "h.db"], "is the results store h.db"),
    (["history", "mm", "--store", "h.db", "-o", "soft.db"], "is the results store h.db"),
    (["report", "@mm", "--store", "h.db", "-o", "h.db"], "is the results store h.db"),
    (["report", "base.json", "-o", "base.json"], "is the input file base.json"),
    (["report", "base.json", "-o", "base-link.json"], "is the input file base.json"),
    (["compare", "base.json", "new.json", "-o", "base.json"], "is the input file base.json"),
    (["compare", "base.json", "new.json", "-o", "new.json"], "is the input file new.json"),
    (["bench", "script.py:f", "-o", "script.py"], "is the input file script.py"),
]


@pytest.mark.parametrize("argv, needle", SAME_FILE, ids=[" ".join(a[:1] + a[-2:]) for a, _ in SAME_FILE])
def test_an_output_that_is_the_store_or_an_input_is_refused(saved, capsys, argv, needle):
    before = {name: _digest(saved / name) for name in ("h.db", "base.json", "new.json", "script.py")}
    assert main(argv) == 2
    line = _one_error(capsys)
    assert needle in line and "another path" in line, line
    assert {name: _digest(saved / name) for name in before} == before
    assert os.path.islink(saved / "soft.db") and os.path.islink(saved / "base-link.json")


# ---- a device, FIFO or `-` as the output is streamed to, never replaced -------------------------------------
def _mknod_null(path):
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot make a device here: {exc}")


@pytest.mark.parametrize("via_link", [False, True], ids=["device", "link to a device"])
def test_an_output_onto_a_device_writes_to_it_and_leaves_it_a_device(tmp_path, capsys, via_link):
    _mknod_null(tmp_path / "null")
    target = tmp_path / "null"
    if via_link:
        os.symlink("null", tmp_path / "link")
        target = tmp_path / "link"
    assert main(["bench", "1", *SIM, "-o", str(target)]) == 0
    assert stat.S_ISCHR(os.stat(tmp_path / "null").st_mode)
    assert os.path.islink(tmp_path / "link") == via_link
    assert sorted(os.listdir(tmp_path)) == sorted(["null", *(["link"] if via_link else [])])  # no temporary left


@pytest.mark.parametrize("name", ["-", "/dev/stdout"])
def test_an_output_to_standard_output_streams_the_json(tmp_path, monkeypatch, capsys, name):
    monkeypatch.chdir(tmp_path)
    assert main(["bench", "1", *SIM, "-o", name]) == 0
    assert '"kind": "measurement"' in capsys.readouterr().out
    assert os.listdir(tmp_path) == []  # no file named "-"


def test_an_output_to_a_fifo_streams_to_its_reader(tmp_path, capsys):
    import threading

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(open(fifo, "rb").read()), daemon=True)
    reader.start()
    assert main(["bench", "1", *SIM, "-o", str(fifo)]) == 0
    reader.join(30)
    assert got and b'"kind": "measurement"' in got[0]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
