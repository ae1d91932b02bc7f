"""Bad input, verb by verb: exit 2 with one line that says what to do, and nothing measured or printed
on stdout. Then the exits that belong to the code under test (exit 1), and Ctrl-C (130).

Every case here ran code, printed a traceback, exited 0, or measured first before issue 13."""

import os
import json
import sqlite3
import subprocess
import sys

import pytest

from measurefirst.cli.commands import main

SIM = ["--simulate", "call=10us,timer=50ns", "--min-time", "0", "--warmup-time", "0.001"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("bad-input")
    store = d / "r.db"
    assert main(["bench", *SIM, "--save", "k", "--store", str(store)]) == 0
    assert main(["bench", *SIM, "--save", "k", "--store", str(d / "other.db")]) == 0  # a store not in use
    assert main(["bench", *SIM, "-o", str(d / "base.json")]) == 0
    assert main(["bench", *SIM, "-o", str(d / "new.json")]) == 0
    assert main(["bench", *SIM, "x", "y", "-o", str(d / "dup.json")]) == 0  # two results labelled "simulated"
    foreign = d / "foreign.db"
    conn = sqlite3.connect(foreign)
    conn.execute("PRAGMA user_version = 7")
    conn.commit()
    conn.close()
    (d / "genmod.py").write_text("def gen():\n    yield 1\n\nasync def coro():\n    return 1\n")
    (d / "adir").mkdir()
    os.mkfifo(d / "pipe")
    os.mkfifo(d / "pipe.json")
    os.mkfifo(d / "pipe.py")
    (d / "empty.json").write_text("[]")
    return {"d": d, "fifo": str(d / "pipe"), "fifo_json": str(d / "pipe.json"), "fifo_py": str(d / "pipe.py"),
            "empty": str(d / "empty.json"), "store": str(store), "other": str(d / "other.db"), "base": str(d / "base.json"), "new": str(d / "new.json"),
            "dup": str(d / "dup.json"), "foreign": str(foreign), "dir": str(d / "adir"),
            "missing": str(d / "no" / "such" / "x.json"), "gen": str(d / "genmod.py") + ":gen",
            "coro": str(d / "genmod.py") + ":coro"}


CASES = {
    "collectives": [
        (["collectives", "--sizes", "4 parsecs"], "byte count"),
        (["collectives", "--sizes", "1K,4K,...,2K"], "below"),
        (["collectives", "--ops", "all_reduce,gossip"], "unknown gossip"),
        (["collectives", "--trials", "0"], "--trials >= 1"),
        (["collectives", "--nproc", "two"], "invalid int"),
        (["collectives", "-o", "{dir}"], "directory"),
        (["collectives", "--sizes", "1K"], "torchrun"),
    ],
    "bench": [
        (["bench", "1", "--min-time", "1e9", "--budget", "0.3"], "--min-time 1e+09 s is longer than --budget 0.3 s"),
        (["bench", "{fifo_py}:f", "--budget", "0.2"], "is not a regular file (a named pipe"),  # was: no such file
        (["bench", "1", "--budget", "0.2", "--save", "@x"], "cannot start with '@'"),  # issue 38
        (["bench", "1", "--budget", "0.2", "--save", "#1"], "cannot start with '#'"),
        (["bench", "1", "--budget", "0.2", "--label", ""], "a label needs some text"),
        (["bench", "1", "--budget", "0.2", "--save", "x", "--store", "{d}/nodir/s.db"], "does not exist; create it"),
        (["bench", "1", "1", "--budget", "0.2"], "labels must be unique; '1' appears twice"),  # issue 38
        (["bench", "1", "--processes", "10000"], "at most 64: each is a fresh interpreter"),  # issue 38: a hang
        (["bench", "1", "--processes", "64", "--budget", "0.3"], "4.69 ms each"),  # issue 38: 64 start-ups for 0.3 s
        (["bench", *SIM, "-o", "{other}"], "is a SQLite database"),  # issue 38: any store, in use or not
        (["bench", "--compile", "fast", "x"], "invalid choice: 'fast'"),
        (["bench", "--compile-limit", "0", "x"], "positive"),
        (["bench", "--budget", "nan", "x"], "finite"),
        (["bench", "--precision", "5", "x"], "5%"),
        (["bench", "--precision=-1%", "x"], "negative"),
        (["bench", "--min-samples", "1.5", "x"], "whole number"),
        (["bench", "--warmup=-1", "x"], ">= 0"),
        (["bench", "--label", "a", "--label", "b", "x = 1"], "2 --label options for 1 target"),
        (["bench", "x = 1", "-o", "{dir}"], "directory"),
        (["bench", "x = 1", "-o", "{missing}"], "does not exist"),
        (["bench", "x = 1", "-o", "/proc/mf-x.json"], "cannot write"),
        (["bench", "x = 1", "--save", "--store", "/proc/mf-r.db"], "cannot write the results store"),
        (["bench", "x = 1", "--save", "--store", "{foreign}"], "not a measurefirst results store"),
        (["bench", "(a @ a for _ in range(1))"], "generator expression"),
        (["bench", "yield 1"], "yield"),
        (["bench", "{gen}"], "generator function"),
        (["bench", "{coro}"], "coroutine function"),
        (["bench", "x = 1", "--bogus"], "unrecognized arguments"),
        (["bench", "--timer", "gpu", "x"], "invalid choice"),
        (["bench", "--simulate", "call=abc"], "call"),
    ],
    "bisect": [
        (["bisect", "HEAD~1", "HEAD", "print('EXECUTED')", "--budget", "nan"], "finite"),
        (["bisect", "HEAD~1", "HEAD", "print('EXECUTED')", "--against-pairs", "0"], ">= 1"),
        (["bisect", "HEAD~1", "HEAD", "print('EXECUTED')", "-o", "{dir}"], "directory"),
    ],
    "compare": [
        (["compare", "1", "2", "--min-time", "5", "--budget", "0.3"], "is longer than --budget 0.3 s"),  # issue 38
        (["compare", "@k~-1", "--store", "{store}"], "~K counts saved runs back from the latest of @k"),  # issue 38
        (["compare", "@k~x", "--store", "{store}"], "a whole number (@k~1 is the run before the latest); got ~x"),
        (["compare", "@k~9", "--store", "{store}"], "@k~9 names one run: give it and the run to check against"),
        (["compare", "{fifo_json}", "{base}"], "is not a regular file (a named pipe"),  # issue 38: "does not exist"
        (["compare", "1", "2", "--budget", "0.2", "--against-pairs", "5"], "give --against REF, or drop it"),
        (["compare", "#1", "#1", "--store", "{store}", "-o", "{other}"], "is a SQLite database"),
        (["compare", "--compile", "default,default", "print('EXECUTED')"], "names a mode twice"),
        (["compare", "--compile", "default,fast", "x"], "invalid mode 'fast'"),
        (["compare", "print('EXECUTED')"], "or one with --compile"),
        (["compare", "--against", "HEAD", "print('EXECUTED')", "--against-pairs", "0"], ">= 1"),
        (["compare", "print('EXECUTED').json", "{base}"], "does not exist"),
        (["compare", "{base}", "missing.json"], "does not exist"),
        (["compare", "{base}", "{dir}.json"], "does not exist"),
        (["compare", "{base}", "x = 1"], "cannot mix"),
        (["compare", "{base}", "{new}", "--fail-if-slower", "nan"], "finite"),
        (["compare", "{base}", "{new}", "--fail-if-slower", "5"], "5%"),
        (["compare", "{base}", "{new}", "--label", "a"], "--label"),
        (["compare", "{dup}", "{new}"], "labelled 'simulated'"),
        (["compare", "a = 1", "b = 1", "--block-time", "inf"], "finite"),
        (["compare", "a = 1", "b = 1", "--baseline", "zzz"], "--baseline"),
        (["compare", "a = 1", "b = 1", "--label", "p", "--label", "q", "--label", "r"], "3 --label options"),
        (["compare", "#99999999999999999999", "#1", "--store", "{store}"], "2**63"),
        (["compare", "@k~99999999999999999999", "@k", "--store", "{store}"], "whole number"),
        (["compare", "#5", "#1", "--store", "{missing}"], "no results store"),
        (["compare", "@k", "--store", "{foreign}"], "not a measurefirst results store"),
    ],
    "runs": [
        (["runs", "prune", "--keep-last", "1", "--name", "a", "--name", "b", "--store", "{store}"], "given twice"),
        (["runs", "import", "{empty}", "--store", "{d}/n.db"], "holds no benchmark to import"),  # was: no store
        (["runs", "--store", "{d}/typo.db"], "no results store"),
        (["runs", "show", "99999999999999999999", "--store", "{store}"], "beyond SQLite"),
        (["runs", "show", "x", "--store", "{store}"], "whole numbers"),
        (["runs", "show", "--store", "{store}"], "needs one or more run ids"),
        (["runs", "show", "7", "--store", "{store}"], "no run #7"),
        (["runs", "delete", "0", "--store", "{store}"], "whole numbers from 1"),
        (["runs", "--store", "{dir}"], "directory"),
        (["runs", "--store", "{foreign}"], "not a measurefirst results store"),
        (["runs", "list", "a", "b", "--store", "{store}"], "at most one NAME"),
        (["runs", "export", "1", "--format", "xml", "--store", "{store}"], "invalid choice"),
        (["runs", "--since", "yesterday", "--store", "{store}"], "--since takes an age such as 30d"),
        (["runs", "-n", "0", "--store", "{store}"], "must be a whole number >= 1"),
        (["runs", "prune", "--store", "{store}"], "needs --keep-last K, --older-than D or both"),
        (["runs", "prune", "--older-than", "soon", "--store", "{store}"], "--older-than takes an age"),
        (["runs", "prune", "--keep-last", "-1", "--store", "{store}"], "must be a whole number >= 0"),
        (["runs", "copy", "{store}"], "runs copy takes SRC and DST"),
        (["runs", "copy", "{store}", "{store}"], "the same store"),
        (["runs", "copy", "{d}/typo.db", "{d}/new.db"], "no results store"),
        (["runs", "--store", "postgresql://nobody@/none?host={d}&port=1"], "cannot connect to the results store"),
        # issue 38's second probe: an option of another action was ignored (delete --name deleted another name's run)
        (["runs", "delete", "1", "--name", "a", "--store", "{store}"], "runs delete does not take --name"),
        (["runs", "copy", "{store}", "{d}/c.db", "--name", "a"], "runs copy does not take --name"),
        (["runs", "list", "--keep-last", "1", "--store", "{store}"], "does not take --keep-last"),
        (["runs", "export", "1", "--name", "b", "--store", "{store}"], "does not take --name"),
        (["runs", "show", "1", "--older-than", "1d", "--store", "{store}"], "does not take --older-than"),
        (["runs", "vacuum", "--name", "a", "--store", "{store}"], "does not take --name"),
        (["runs", "list", "--format", "csv", "--store", "{store}"], "does not take --format"),
        (["runs", "delete", "1", "99", "--store", "{store}"], "no run #99"),  # checked before run 1 is deleted
        (["runs", "prune", "--keep-last", "1", "--kind", "comparisn", "--store", "{store}"], "is no kind of run"),
        (["runs", "--kind", "measurment", "--store", "{store}"], "is no kind of run"),
    ],
    "history": [
        (["history", "#1", "--store", "{store}"], "a run by its id is `measurefirst runs show 1`"),  # issue 38
        (["history", "@k", "--store", "{store}"], "history takes a NAME, such as k; without the @"),
        (["history", "k", "--store", "{store}", "-o", "{other}"], "is a SQLite database"),
        (["history", "nope", "--store", "{store}"], "no runs named 'nope'"),
        (["history", "k", "--store", "{missing}"], "no results store"),
    ],
    "publish": [
        (["publish", "-o", "{base}", "--store", "{store}"], "is a file; publish writes a site into a folder"),
        (["publish", "-o", "{d}/site", "--store", "{missing}"], "no results store"),
        (["publish", "-o", "{d}/site", "--store", "{store}", "--name", "nope"], "nothing to publish"),
        (["publish", "-o", "{d}/site", "--store", "{store}", "--commit-url", "https://x/{{sha}}"], "with {commit} where"),
        (["publish", "-o", "{d}/site", "--store", "{store}", "--commit-url", "javascript:alert({{commit}})"],
         "http(s) URL"),
        (["publish", "--store", "{store}"], "-o/--output"),
    ],
    "report": [
        (["report", "@k", "-o", "{d}/r.txt", "--store", "{store}"], "say which format with --format html"),  # issue 38
        (["report", "k", "--store", "{store}", "-o", "{other}"], "is a SQLite database"),
        (["report", "@k", "--store", "{store}"], "-o/--output"),
        (["report", "nope", "-o", "{d}/r.html", "--store", "{store}"], "'nope' is not a file, a saved run"),
        (["report", "#999", "-o", "{d}/r.html", "--store", "{store}"], "no run #999"),
        (["report", "@nope~3", "-o", "{d}/r.html", "--store", "{store}"], "no run named 'nope' 3 back"),
        (["report", "k", "-o", "{d}/r.html", "--store", "{missing}"], "no results store"),
        (["report", "@k", "-o", "{dir}", "--store", "{store}"], "directory"),
        (["report", "@k", "-o", "{missing}", "--store", "{store}"], "does not exist"),
        (["report", "{foreign}", "-o", "{d}/r.html"], "not a measurefirst JSON result"),
        (["report", "{base}", "--lang", "fr", "-o", "{d}/r.html"], "invalid choice"),
        (["report", "{base}", "--theme", "blue", "-o", "{d}/r.html"], "invalid choice"),
    ],
    "sweep": [
        (["sweep", "--op", "add", "--no-peaks", "--sizes", "64,128", "-o", "{other}"], "is a SQLite database"),
        (["sweep", "--op", "add", "--no-peaks", "--sizes", "64.7,128"], "not a whole number"),
        (["sweep", "--op", "add", "--no-peaks", "--sizes", "64,128,...,32"], "below 128"),
        (["sweep", "--op", "add", "--no-peaks", "--sizes", "64,128,...,100"], "below 128"),
        (["sweep", "--op", "add", "--no-peaks", "--sizes", "2,3,...,1000000000"], "at most 1000"),
        (["sweep", "--op", "add", "--no-peaks", "--sizes", "9**9**9"], "exponent"),
        (["sweep", "--op", "add", "--no-peaks", "--sizes", "2**41"], "2**40"),
        (["sweep", "--op", "add", "--sizes", "64,128", "--bytes", "10**10**10"], "exponent"),
        (["sweep", "--op", "add", "--sizes", "64,128", "--flops", "1/(n-64)"], "divides by zero at n=64"),
        (["sweep", "--op", "add", "--sizes", "64,128", "--flops", "log(n-64)"], "cannot be evaluated at n=64"),
        (["sweep", "--op", "add", "--sizes", "64,128", "--flops=-n"], ">= 0"),
        (["sweep", "--op", "add", "--no-peaks", "--sizes", "64,128", "--plot", "p.gif"], ".png or .svg"),
        (["sweep", "--op", "add", "--no-peaks", "--sizes", "64,128", "--plot", "/proc/mf-p.png"], "cannot write"),
        (["sweep", "--op", "add", "--no-peaks", "--sizes", "64,128", "--reference", "100"], "not among the sizes"),
        (["sweep", "--op", "add", "--no-peaks", "--sizes", "64,128", "--budget=-1"], "positive"),
        (["sweep"], "give TARGET"),
        (["sweep", "nomodule"], "module:make_fn"),
    ],
    "peaks": [
        (["peaks", "--device", "tpu"], "device"),
        (["peaks", "--store", "{foreign}"], "not a measurefirst results store"),
    ],
    "profile": [
        (["profile", "1", "--steps", "1000000000"], "at most 10000: the profiler keeps every event"),  # issue 38: no end
        (["profile", "1", "--steps", "1", "--trace", "{fifo}"], "is not a regular file"),  # issue 38: was replaced
        (["profile", "1", "--steps", "1", "--trace", "{d}/t.json", "-o", "{d}/t.json"], "is the output file (-o)"),  # issue 38
        (["profile", "x = 1", "-o", "{other}"], "is a SQLite database"),
        (["profile", "x = 1", "--row-limit=-1"], ">= 1"),
        (["profile", "x = 1", "--steps", "0"], ">= 1"),
        (["profile", "x = 1", "--trace", "{dir}"], "directory"),
        (["profile", "x = 1", "--trace", "{missing}"], "does not exist"),
        (["profile", "x = 1", "--label", "a", "--label", "b"], "2 --label options"),
        (["profile", "x = 1", "--vs", "y = 1", "--trace", "t.json"], "--trace takes one target"),
        (["profile", "x = 1", "--view", "some"], "invalid choice"),
        (["profile", "yield 2"], "yield"),
    ],
    "kernel": [
        (["kernel"], "required"),
        (["kernel", "x", "--format", "csv"], "unrecognized"),
    ],
    "doctor": [
        (["doctor", "x = 1", "-o", "{other}"], "is a SQLite database"),
        (["doctor", "x = 1", "-b=-1"], "positive"),
        (["doctor", "x = 1", "-b", "inf"], "finite"),
        (["doctor", "1 +"], "not valid Python"),
    ],
    "demo": [
        (["demo", "nope"], "invalid choice"),
        (["demo", "--lang", "fr"], "invalid choice"),
    ],
    "selfcheck": [
        (["selfcheck", "--quick", "-o", "{other}"], "is a SQLite database"),
        (["selfcheck", "--noise", "--threads", "9999"], "this machine has"),  # issue 38: it ran 9999 threads
        (["selfcheck", "--noise", "--device", "cuda"], "does not apply"),
        (["selfcheck", "--noise", "--processes", "100000"], "at most 64: each is a fresh interpreter"),
        (["selfcheck", "--device", "tpu"], "device"),
        (["selfcheck", "--quick", "-o", "{dir}"], "directory"),
        (["selfcheck", "--quick", "-o", "{missing}"], "does not exist"),
        (["selfcheck", "--quick", "--save", "--store", "{foreign}"], "not a measurefirst results store"),
        (["selfcheck", "--lang", "fr"], "invalid choice"),
        (["selfcheck", "--simulate", "call=abc"], "call"),
        (["selfcheck", "--simulate", "timer=50ns", "--fault", "nan"], "fault factor"),
    ],
    "step": [
        (["step", "examples/tiny_lm.py:build", "--steps", "1000000000"], "at most 100000: a step run has no time"),
        (["step", "examples/tiny_lm.py:build", "--warmup", "1000000000"], "at most 100000"),  # issue 38: no end
        (["step", "m:build", "--ddp", "--timeout=-5"], "positive number of seconds"),  # issue 38
        (["step", "m:build", "--ddp", "--timeout", "nan"], "finite"),
        (["step", "examples/tiny_lm.py:build", "-o", "{other}"], "is a SQLite database"),
        (["step", "examples/tiny_lm.py:build", "--seq-len=-128"], ">= 1"),
        (["step", "examples/tiny_lm.py:build", "--micro-batch", "0"], ">= 1"),
        (["step", "examples/tiny_lm.py:build", "--flops=-1e9"], "positive"),
        (["step", "examples/tiny_lm.py:build", "--flops", "nan"], "positive, finite"),
        (["step", "examples/tiny_lm.py:build", "--variants", "eager,eager"], "twice"),
        (["step", "examples/tiny_lm.py:build", "--variants", "jit"], "--variants"),
        (["step", "examples/tiny_lm.py:build", "--dtypes", "fp8"], "--dtypes"),
        (["step", "notatarget"], "TARGET must be"),
    ],
}


@pytest.mark.parametrize("argv, needle", [case for cases in CASES.values() for case in cases],
                         ids=[f"{verb}-{i}" for verb, cases in CASES.items() for i in range(len(cases))])
def test_bad_input_exits_2_with_one_line_and_measures_nothing(argv, needle, files, capsys):
    args = [a.format(**files) for a in argv]
    code = main(args)
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert code == 2, captured.err
    assert len(lines) == 1 and lines[0].startswith("error: "), captured.err
    assert needle in lines[0]
    assert captured.out == ""
    assert "EXECUTED" not in captured.out


def test_every_verb_has_bad_input_cases():
    from measurefirst.cli.commands import build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert set(sub.choices) == set(CASES)


def test_no_file_is_created_or_modified_by_a_refusal(files):
    d = files["d"]
    assert not (d / "typo.db").exists()  # runs --store typo.db used to create an empty store
    assert not (d / "r.html").exists()  # a report that cannot be made writes nothing
    assert not (d / "site").exists()  # nor a site
    conn = sqlite3.connect(files["foreign"])
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 7
    assert conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0
    conn.close()
    assert os.listdir(files["dir"]) == []
    assert os.path.exists(files["fifo"]) and not os.path.isfile(files["fifo"])  # --trace never replaced the FIFO
    with sqlite3.connect(files["other"]) as conn:  # -o never replaced a store not in use
        assert conn.execute("SELECT count(*) FROM runs").fetchone()[0] == 1
    assert not (d / "c.db").exists()  # runs copy ... --name a (refused) copied nothing
    assert not (d / "nodir").exists()  # issue 38: a store's missing folder was created


# ---- exit 1: the code under test failed; exit 130: Ctrl-C ----------------------------------------------
def _one_error(capsys):
    err = capsys.readouterr().err
    lines = [x for x in err.splitlines() if x.startswith("error:")]
    assert len(lines) == 1, err
    return lines[0]


def test_statement_calling_sys_exit_fails_with_exit_1(capsys):
    assert main(["bench", "import sys; sys.exit(0)", "--budget", "0.2"]) == 1  # was: silent exit 0
    assert "sys.exit(0)" in _one_error(capsys)


def test_target_calling_sys_exit_fails_with_exit_1(tmp_path, capsys):
    (tmp_path / "exits.py").write_text("import sys\ndef f():\n    sys.exit(0)\n")
    assert main(["bench", "x = 1", str(tmp_path / "exits.py") + ":f", "--budget", "0.2", "--min-time", "0.01"]) == 1
    captured = capsys.readouterr()
    assert "sys.exit(0)" in captured.err and "x = 1" in captured.out  # the first target's result is kept


def test_setup_calling_sys_exit_fails_with_exit_1(capsys):
    assert main(["bench", "-s", "raise SystemExit(0)", "x = 1"]) == 1
    assert "setup failed" in _one_error(capsys)


def test_module_exiting_at_import_is_bad_input(tmp_path, capsys):
    (tmp_path / "exits_at_import.py").write_text("import sys\nsys.exit(0)\ndef f():\n    pass\n")
    assert main(["bench", str(tmp_path / "exits_at_import.py") + ":f"]) == 2
    assert "cannot load" in _one_error(capsys)


def test_os_exit_in_a_statement_fails_with_exit_1():
    # in a child process: if the guard failed, os._exit(0) would end the test run itself with status 0
    proc = subprocess.run([sys.executable, "-m", "measurefirst", "bench", "import os; os._exit(0)", "--budget",
                           "0.2"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr
    assert "os._exit(0)" in proc.stderr


def test_the_codes_own_keyboard_interrupt_is_a_failure_not_ctrl_c(capsys):
    assert main(["bench", "raise KeyboardInterrupt", "--budget", "0.2"]) == 1  # was: "interrupted", 130
    assert "KeyboardInterrupt" in _one_error(capsys)


def test_each_command_counts_its_own_ctrl_cs(capsys):
    import signal

    from measurefirst.cli.guard import EXIT_FAILED, EXIT_INTERRUPTED, CtrlC, run

    def interrupted():
        raise KeyboardInterrupt

    first, second, before = CtrlC(), CtrlC(), signal.getsignal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt), first.counted():
        os.kill(os.getpid(), signal.SIGINT)
    assert (first.sigints, second.sigints) == (1, 0)  # counted by the one installed, in no module state
    assert run(interrupted, ("code", ""), ctrl_c=first)[1] == EXIT_INTERRUPTED
    assert run(interrupted, ("code", ""), ctrl_c=second)[1] == run(interrupted, ("code", ""))[1] == EXIT_FAILED
    assert signal.getsignal(signal.SIGINT) is before  # the previous handler is back


def test_a_real_ctrl_c_still_exits_130_with_the_results_so_far(capsys):
    code = main(["bench", "x = 1", "import os, signal; os.kill(os.getpid(), signal.SIGINT)", "--budget", "0.3",
                 "--min-time", "0.01"])
    captured = capsys.readouterr()
    assert code == 130 and "interrupted" in captured.err
    assert "x = 1" in captured.out


def test_sweep_where_every_size_failed_exits_1(tmp_path, capsys, monkeypatch):
    (tmp_path / "failing_sweep.py").write_text("def make(n):\n    raise RuntimeError('no such kernel')\n")
    monkeypatch.chdir(tmp_path)
    code = main(["sweep", "failing_sweep:make", "--sizes", "8,16", "--no-peaks", "--budget", "0.1"])
    assert code == 1  # was 0
    assert "every size failed" in capsys.readouterr().err


def test_unbound_local_in_a_statement_says_statements_run_in_a_function(capsys):
    assert main(["bench", "-s", "x = 0", "x += 1", "--budget", "0.2"]) == 1
    line = _one_error(capsys)
    assert "UnboundLocalError" in line and "statements run inside a function" in line and "global x" in line


def test_help_texts_describe_every_option():
    from measurefirst.cli.commands import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name, p in sub.choices.items():
        assert p.epilog and "examples:" in p.epilog, name
        for action in p._actions:
            if action.option_strings and action.help != "==SUPPRESS==":
                assert action.help, f"{name} {action.option_strings} has no help text"


@pytest.mark.realclock
def test_a_target_that_changes_directory_at_import_moves_no_output(tmp_path, monkeypatch):
    """Issue 38: ``-o rel.json`` (and the store) of a target that calls ``os.chdir()`` when imported landed in
    the folder it moved to; they are anchored where the command started."""
    import sys

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "mf_chdir_target.py").write_text(f"import os\nos.chdir({str(elsewhere)!r})\n\n\ndef f():\n"
                                                 f"    return sum(range(10))\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("MEASUREFIRST_STORE", raising=False)
    try:
        assert main(["bench", "mf_chdir_target:f", "-b", "0.2", "-o", "rel.json", "--save", "r"]) == 0
    finally:
        sys.modules.pop("mf_chdir_target", None)
    assert (tmp_path / "rel.json").is_file() and (tmp_path / ".measurefirst" / "results.db").is_file()
    assert not (elsewhere / "rel.json").exists() and not (elsewhere / ".measurefirst").exists()


def test_a_refused_delete_deletes_nothing_and_a_kind_is_its_code_or_its_shown_name(tmp_path, capsys):
    store = str(tmp_path / "s.db")
    for label in ("a", "b"):
        assert main(["bench", "x", "--min-time", "0", "--simulate", "call=10us,timer=50ns", "--label", label,
                     "--save", label, "--store", store]) == 0
    before = (tmp_path / "s.db").read_bytes()
    assert main(["runs", "delete", "1", "99", "--store", store]) == 2  # issue 38: deleted run 1, then refused
    assert main(["runs", "delete", "2", "--name", "a", "--store", store]) == 2  # run 2 is b's: nothing deleted
    assert (tmp_path / "s.db").read_bytes() == before
    capsys.readouterr()
    # `runs list` shows a measurement's kind as "benchmark": both select it
    for kind in ("measurement", "benchmark", "基准测试"):
        assert main(["runs", "--kind", kind, "--store", store]) == 0
        assert capsys.readouterr().out.count("benchmark") >= 2


def test_a_reader_that_closes_stdout_costs_no_result_and_blames_no_code(tmp_path):
    # issue 38's second probe: `bench ... | head -1` exited 1 with "the code under test called sys.exit(1)" (rich's own
    # broken-pipe exit), and -o and --save, which come after the printing, were never reached
    import subprocess
    import sys

    out, store = tmp_path / "o.json", tmp_path / "s.db"
    argv = [sys.executable, "-m", "measurefirst", "bench", "x", "--min-time", "0", "--simulate", "call=10us,timer=50ns",
            "-o", str(out), "--save", "x", "--store", str(store)]
    for extra in ([], ["--json"]):
        out.unlink(missing_ok=True)
        proc = subprocess.Popen(argv + extra, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
        assert proc.stdout is not None
        proc.stdout.close()  # the reader is gone before anything is printed
        err = proc.communicate(timeout=120)[1].decode()
        assert proc.returncode == 0, err
        assert "sys.exit" not in err and "Traceback" not in err and "BrokenPipe" not in err
        assert json.loads(out.read_text())["kind"] == "measurement"
    with sqlite3.connect(store) as conn:
        assert conn.execute("SELECT count(*) FROM runs").fetchone()[0] == 2


def test_an_empty_statement_times_pass_and_says_so(capsys):
    # issue 38's second probe: `bench ''` was shown as the internal name __measurefirst_stmt__
    assert main(["bench", "", "--budget", "0.2", "--json"]) == 0
    m = json.loads(capsys.readouterr().out)
    assert m["label"] == "pass"


def test_inputs_after_an_option_join_the_others(tmp_path, capsys):
    # issue 38's probe re-run: `report m.json -o r.html more.json` read as argparse's "unrecognized arguments"
    files = []
    for label in ("a", "b"):
        files.append(str(tmp_path / f"{label}.json"))
        assert main(["bench", "x", "--min-time", "0", "--simulate", "call=10us,timer=50ns", "--label", label,
                     "-o", files[-1]]) == 0
    assert main(["report", files[0], "-o", str(tmp_path / "r.html"), files[1]]) == 0
    html = (tmp_path / "r.html").read_text()
    assert ">a<" in html and ">b<" in html
    capsys.readouterr()
    assert main(["bench", "x", "--simulate", "call=10us,timer=50ns", "--min-time", "0", "y", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 2  # both statements measured
    # what looks like an option is still argparse's error
    assert main(["report", files[0], "-o", str(tmp_path / "r2.html"), "--bogus", files[1]]) == 2
    assert "unrecognized arguments: --bogus" in capsys.readouterr().err and not (tmp_path / "r2.html").exists()
