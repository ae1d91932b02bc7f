"""Nothing lost, nothing hangs, nothing silently wrong, round two (issue 25): each probe that lost or
changed data, injected text or hung, as a case with the one line and the exit code it gets now."""

import hashlib
import re
import os
import shutil
import sqlite3
import stat

import pytest

from measurefirst.cli.commands import main

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
    # the store is named where it is: -o and --store are anchored where the command started (issue 38)
    needle = needle.replace("results store ", f"results store {saved}{os.sep}")
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


# ---- foreign and odd files as the store: refused in one line, never changed, never waited on --------------
def _foreign_wal(d):
    """A foreign SQLite database in WAL mode whose last writes are still in its -wal (not checkpointed)."""
    live = d / "live.db"
    conn = sqlite3.connect(live)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA wal_autocheckpoint=0")
    conn.execute("CREATE TABLE customers (id INTEGER, name TEXT)")
    conn.executemany("INSERT INTO customers VALUES (?, ?)", [(i, f"n{i}") for i in range(200)])
    conn.commit()
    for suffix in ("", "-wal", "-shm"):  # copied while the writer is open: the frames stay in the -wal
        shutil.copyfile(f"{live}{suffix}", d / f"wal.db{suffix}")
    conn.close()
    os.unlink(live)
    return d / "wal.db"


def _foreign_hot_journal(d):
    """A foreign database with a hot journal: a writer died in the middle of a transaction."""
    live = d / "live.db"
    conn = sqlite3.connect(live, isolation_level=None)
    conn.execute("PRAGMA cache_size=1")  # pages spill into the file before the commit
    conn.execute("CREATE TABLE t (x TEXT)")
    conn.executemany("INSERT INTO t VALUES (?)", [("a" * 500,) for _ in range(200)])
    conn.execute("BEGIN")
    conn.execute("UPDATE t SET x = 'b'")
    for suffix in ("", "-journal"):
        shutil.copyfile(f"{live}{suffix}", d / f"hot.db{suffix}")
    conn.execute("ROLLBACK")
    conn.close()
    os.unlink(live)
    return d / "hot.db"


def _device(d):
    _mknod_null(d / "dev.db")
    return d / "dev.db"


def _fifo(d):
    os.mkfifo(d / "fifo.db")
    return d / "fifo.db"


STORES = {"wal": _foreign_wal, "hot": _foreign_hot_journal, "device": _device, "fifo": _fifo}
STORE_CASES = [  # (store, command, what the one line says, exit code)
    ("wal", ["runs"], "not a measurefirst results store (an SQLite database of another program: no tables, "
                      "changes in its -wal)", 2),
    ("wal", ["bench", "1", *SIM, "--save"], "not a measurefirst results store", 2),
    ("hot", ["runs"], "another program: table t, an unfinished transaction in its -journal); it was left untouched", 2),
    ("hot", ["history", "x"], "not a measurefirst results store", 2),
    ("device", ["bench", "1", *SIM, "--save"], "is a character device, not a regular file; give a file", 2),
    ("device", ["runs"], "is a character device, not a regular file", 2),
    ("fifo", ["bench", "1", *SIM, "--save"], "is a FIFO (named pipe), not a regular file; give a file", 2),
    ("fifo", ["runs"], "is a FIFO (named pipe), not a regular file", 2),
]


@pytest.mark.parametrize("kind, argv, needle, code", STORE_CASES, ids=[f"{k}-{a[0]}" for k, a, _, _ in STORE_CASES])
def test_an_odd_file_as_the_store_is_refused_and_left_as_it_was(tmp_path, capsys, kind, argv, needle, code):
    path = STORES[kind](tmp_path)
    files = sorted(os.listdir(tmp_path))
    regular = [f for f in files if stat.S_ISREG(os.stat(tmp_path / f).st_mode)]
    before = {f: _digest(tmp_path / f) for f in regular}
    assert main([*argv, "--store", str(path)]) == code
    line = _one_error(capsys)
    assert needle in line, line
    assert capsys.readouterr().out == ""  # nothing measured
    assert sorted(os.listdir(tmp_path)) == files  # -wal, -shm and the journal kept; nothing created
    assert {f: _digest(tmp_path / f) for f in regular} == before


LOCKER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("CREATE TABLE orders (id INTEGER)")
conn.execute("BEGIN EXCLUSIVE")
conn.execute("INSERT INTO orders VALUES (1)")
print("locked", flush=True)
sys.stdin.read()
"""


def test_a_foreign_database_locked_by_another_writer_is_refused_at_once(tmp_path, capsys):
    import subprocess
    import sys
    import time

    path = tmp_path / "other.db"
    other = subprocess.Popen([sys.executable, "-c", LOCKER, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True)
    try:
        assert other.stdout.readline().strip() == "locked"  # another program writing (was: 31-35 s of waiting)
        start = time.monotonic()
        assert main(["runs", "--store", str(path)]) == 2
        took = time.monotonic() - start
    finally:
        other.stdin.close()
        other.wait(30)
    line = _one_error(capsys)
    assert "not a measurefirst results store" in line and "table orders" in line, line
    if os.path.exists("/proc/locks"):
        assert f"in use by process {other.pid} (python" in line, line
    assert took < 5, took


# ---- reading results files: only regular files, within the limit, never a hang -------------------------------
def _big(d):
    path = d / "big.json"
    with open(path, "wb") as f:
        f.truncate(300 * 2**20)  # sparse: 300 MiB long, nothing stored
    return path


LOAD_CASES = [  # (file, what the error says)
    (lambda d: "/dev/zero", "/dev/zero is a character device; give a results file"),
    (_fifo, "fifo.db is a FIFO (named pipe); give a results file"),
    (_big, "big.json is 300 MiB; at most 256 MiB are read"),
]


@pytest.mark.parametrize("make, needle", LOAD_CASES, ids=["dev-zero", "fifo", "300 MiB"])
def test_load_reads_only_regular_files_within_the_limit(tmp_path, make, needle):
    import measurefirst

    with pytest.raises(ValueError, match="give a") as info:
        measurefirst.load(make(tmp_path))
    assert needle in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("make, needle", LOAD_CASES, ids=["dev-zero", "fifo", "300 MiB"])
def test_report_of_an_odd_file_is_one_line(tmp_path, capsys, make, needle):
    assert main(["report", str(make(tmp_path)), "-o", str(tmp_path / "r.html")]) == 2
    line = _one_error(capsys)  # a device or FIFO: "is not a file"; never opened, never a hang
    assert (needle.split(" ", 1)[1] if "MiB" in needle else "is not a file") in line, line


# ---- selfcheck's durations are bounded ------------------------------------------------------------------------
@pytest.mark.parametrize("durations", [[10**15], [2000, 10**9], [10**100]])
def test_selfcheck_refuses_durations_beyond_the_limit(durations):
    from measurefirst.tools.selfcheck import MAX_CPU_DURATION_NS, selfcheck

    with pytest.raises(ValueError, match=f"at most {MAX_CPU_DURATION_NS}.*give shorter busy-waits"):
        selfcheck("cpu", durations_ns=durations)


# ---- text from files is data: never a format string, never a terminal command, never a formula -------------
HOSTILE_FLAGS = ["{base.__class__.__mro__}", "{nosuchkey}", "{base:>200000000}", "{0}", "{", "}{"]


def test_word_shows_an_unknown_key_as_it_is():
    from measurefirst.render.words import word

    for key in HOSTILE_FLAGS:
        assert word(key, "en", base="a", new="b") == key
        assert word(key, "zh") == key


@pytest.fixture()
def hostile_regression(tmp_path):
    """A regression file (compare base.json new.json -o) whose change carries hostile flags."""
    import json

    for name in ("base", "new"):
        assert main(["bench", "1", *SIM, "-o", str(tmp_path / f"{name}.json")]) == 0
    assert main(["compare", str(tmp_path / "base.json"), str(tmp_path / "new.json"), "-o",
                 str(tmp_path / "reg.json")]) == 0
    data = json.loads((tmp_path / "reg.json").read_text())
    change = data["changes"][0]
    change["flags"] = HOSTILE_FLAGS + ["devices"]
    change["flag_values"] = {**{f: ["x86", "arm"] for f in HOSTILE_FLAGS[:3]}, "devices": ["cpu", "{0.__class__}"]}
    (tmp_path / "reg.json").write_text(json.dumps(data))
    return tmp_path / "reg.json"


def test_flags_from_a_file_are_shown_as_data(hostile_regression, capsys, tmp_path):
    import io

    from rich.console import Console

    import measurefirst
    from measurefirst.render.report import report
    from measurefirst.render.views import Options, view

    result = measurefirst.load(hostile_regression)
    for lang in ("en", "zh"):
        console = Console(file=io.StringIO(), width=200)
        for item in view([result], Options(lang=lang)):
            console.print(item, markup=False) if isinstance(item, str) else console.print(item)
        text = console.file.getvalue()
        assert "{base.__class__.__mro__}" in text and "{nosuchkey}" in text and "{0.__class__}" in text
        assert "class 'object'" not in text and "mro" in text
        assert len(text) < 20_000
        html = report([result], lang=lang)
        assert "class &#x27;object" not in html and "class 'object" not in html and len(html) < 2_000_000
    assert main(["report", str(hostile_regression), "-o", str(tmp_path / "r.html")]) == 0
    assert (tmp_path / "r.html").stat().st_size < 2_000_000


HOSTILE_LABELS = ["\x1b]0;pwned\x07\x1b[2J", "a|b\nc", "=cmd|' /C calc'!A0", "+1", "-2", "@SUM(A1)", "\tx", "\rx"]


@pytest.fixture()
def hostile_store(tmp_path):
    store = tmp_path / "h.db"
    for label in HOSTILE_LABELS:
        assert main(["bench", "1", *SIM, "--label", label, "--save", "--store", str(store)]) == 0
    return store


def test_export_markdown_escapes_labels(hostile_store, capsys):
    capsys.readouterr()
    ids = [str(i) for i in range(1, len(HOSTILE_LABELS) + 1)]
    assert main(["runs", "export", *ids, "--format", "markdown", "--store", str(hostile_store)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\r" not in out
    lines = out.splitlines()
    assert len(lines) == 2 + len(HOSTILE_LABELS)  # no label broke a row
    cells = [len(re.split(r"(?<!\\)\|", line)) for line in lines]
    assert len(set(cells)) == 1, cells  # every row has the header's columns
    assert "x1b\\]0;pwned" in out and "a\\|b" in out  # shown as escapes (backslashes doubled for Markdown)


def test_export_csv_defuses_formulas_and_control_characters(hostile_store, capsys):
    import csv
    import io

    capsys.readouterr()
    ids = [str(i) for i in range(1, len(HOSTILE_LABELS) + 1)]
    assert main(["runs", "export", *ids, "--format", "csv", "--store", str(hostile_store)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    rows = list(csv.reader(io.StringIO(out)))
    names = [row[1] for row in rows[1:]]
    assert len(names) == len(HOSTILE_LABELS)
    for name in names:
        assert not name.startswith(("=", "+", "-", "@", "\t", "\r")), name
    assert "'=cmd|' /C calc'!A0" in names and "'+1" in names and "'@SUM(A1)" in names and "'-2" in names


# ---- one rule for a fraction everywhere (issue 25: `--mf-fail-if-slower 5` meant 500%) ---------------
@pytest.mark.parametrize("text", ["5", "500", "0.05", "5%", "0", "1", "1.5", "150%", "-1", "nan", "x"])
def test_the_pytest_options_read_a_fraction_as_the_command_line_does(text):
    import argparse

    from measurefirst.cli.parser import _fraction as cli_fraction
    from pytest_measurefirst import _fraction as pytest_fraction

    def parsed(fn):
        try:
            return fn(text)
        except argparse.ArgumentTypeError:
            return "refused"

    assert parsed(pytest_fraction) == parsed(cli_fraction)
    if text in ("5", "500", "1.5"):
        assert parsed(pytest_fraction) == "refused"


def test_change_refuses_a_threshold_or_spread_that_would_mean_hundreds_of_percent():
    from measurefirst.results.regression_checks import change
    from measurefirst.measure.simulate import SimSpec, SimWorld

    w = SimWorld(SimSpec(call_ns=10_000, timer_ns=50, noise=0.01, seed=1))
    from measurefirst import benchmark

    base = benchmark(w.function(), timer=w.timer(), device="cpu", min_time=0.0)
    new = benchmark(w.function(12_000), timer=w.timer(), device="cpu", min_time=0.0)
    with pytest.raises(ValueError, match=r"would mean 500%; write 0.05 for 5%"):
        change(base, new, threshold=5)
    with pytest.raises(ValueError, match=r"run_to_run is a fraction"):
        change(base, new, run_to_run=5)
    assert change(base, new, threshold=0.05).regression  # a fraction still works


# ---- what cannot be timed by calling it (issue 25: the CLI refused these, the API timed their creation) ----
def _gen():
    yield 1


async def _coro():
    return 1


@pytest.mark.parametrize("fn, kind", [(_gen, "a generator function"), (_coro, "a coroutine function")])
def test_generator_and_coroutine_functions_are_refused_with_the_fix(fn, kind):
    from measurefirst import benchmark, compare

    with pytest.raises(TypeError, match=f"is {kind}: calling it only creates"):
        benchmark(fn)
    with pytest.raises(TypeError, match=f"candidate 'b'.*is {kind}"):
        compare({"a": lambda: None, "b": fn})


def test_a_label_must_be_text():
    from measurefirst import benchmark

    with pytest.raises(TypeError, match="label must be a string"):
        benchmark(lambda: None, label=5)
