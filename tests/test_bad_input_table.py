"""Bad input as a table (issue 25, round two): each case -> the one line it gets and the exit code.

The library raises ``ValueError`` or ``TypeError`` with a one-line message naming the fix, *before*
anything runs: a bad option is the caller's bad option, never blamed on the code under test. The
command line prints that line as ``error: ...`` and exits 2 (1 when the code under test failed).
Each case was a silent acceptance, a traceback or a cryptic line before.
"""

from __future__ import annotations

import json
import os
import stat

import pytest
import torch

import measurefirst as mf
from measurefirst.cli.commands import main
from measurefirst.measure.simulate import SimSpec, SimWorld
from measurefirst.tools.step import benchmark_step, compare_steps
from measurefirst.results.store import Store

import report_kinds

SIM = ["--simulate", "call=10us,timer=50ns", "--min-time", "0", "--warmup-time", "0.001"]


def _world():
    return SimWorld(SimSpec(call_ns=10_000, timer_ns=50, seed=1))


def _sim(**more):
    return {"timer": _world().timer(), "min_time": 0.0, "budget": 0.2, **more}


def _fn():
    return _world().function()


class _Ran(Exception):
    """Raised by a function that must never be called: the option is checked first."""


def _never():
    raise _Ran("the function ran although an option was bad")


def _tiny_step(**kw):
    model = torch.nn.Linear(4, 2)
    opt = torch.optim.SGD(model.parameters(), 0.1)
    return benchmark_step(model, opt, [(torch.randn(3, 4), torch.randn(3, 2))], steps=1, warmup=0, device="cpu", **kw)


def _measurement():
    return report_kinds.measurements()[0]


def _gen():
    yield 1


async def _coro():
    return 1


# ---- the library: (case, call, exception type, words the one line holds) --------------------------------
API = [
    ("compare label ''", lambda: mf.compare({"": _fn(), "b": _fn()}, device="cpu", **_sim()), ValueError,
     "label is empty"),
    ("compare label 5", lambda: mf.compare({5: _fn(), "b": _fn()}, device="cpu", **_sim()), TypeError,
     "label must be text"),
    ("compare(None)", lambda: mf.compare(None, device="cpu"), TypeError, "candidates must be a mapping"),
    ("seed 'x'", lambda: mf.compare({"a": _fn(), "b": _fn()}, device="cpu", seed="x", **_sim()), ValueError,
     "seed must be a whole number"),
    ("seed 1.5", lambda: mf.compare({"a": _fn(), "b": _fn()}, device="cpu", seed=1.5, **_sim()), ValueError,
     "seed must be a whole number"),
    ("seed 2**70", lambda: mf.compare({"a": _fn(), "b": _fn()}, device="cpu", seed=2**70, **_sim()), ValueError,
     "from 0 to 2**63-1"),
    ("sweep peaks 'x'", lambda: mf.sweep(lambda n: _never, [1, 2], device="cpu", peaks="x", **_sim()), TypeError,
     "peaks must be a Peaks"),
    ("sweep sizes [128, 64]", lambda: mf.sweep(lambda n: _never, [128, 64], device="cpu", **_sim()), ValueError,
     "sizes must increase; 64 comes after 128"),
    ("sweep flops 1/0", lambda: mf.sweep(lambda n: _never, [1, 2], device="cpu", flops=lambda n: 1 / 0, **_sim()),
     ValueError, "flops(n) raised at n=1: ZeroDivisionError"),
    ("min_samples > max_samples", lambda: mf.benchmark(_never, min_samples=10, max_samples=5, **_sim()), ValueError,
     "give max_samples >= min_samples"),
    ("selfcheck quick 'yes'", lambda: mf.selfcheck(simulate=_world(), quick="yes", durations_ns=(20_000,),
                                                    references=False), TypeError, "quick must be True or False"),
    ("selfcheck simulate 'x'", lambda: mf.selfcheck(simulate="x", quick=True), TypeError,
     "simulate must be a measurefirst.measure.simulate.SimWorld"),
    ("selfcheck durations 10**15", lambda: mf.selfcheck("cpu", durations_ns=[10**15]), ValueError,
     "durations_ns must be at most"),
    ("profile group_by_shape 'yes'", lambda: mf.profile(_never, device="cpu", group_by_shape="yes"), TypeError,
     "group_by_shape must be True or False"),
    ("profile with_stack 'no'", lambda: mf.profile(_never, device="cpu", with_stack="no"), TypeError,
     "with_stack must be True or False"),
    ("report generated 5", lambda: mf.report(_measurement(), generated=5), TypeError, "generated must be text"),
    ("report title 5", lambda: mf.report(_measurement(), title=5), TypeError, "title must be text"),
    ("change(5, m)", lambda: mf.change(5, _measurement()), TypeError, "base must be a Measurement or a Count"),
    ("change threshold 5", lambda: mf.change(_measurement(), _measurement(), threshold=5), ValueError,
     "would mean 500%"),
    ("doctor timer 'gpu'", lambda: mf.doctor(_never, device="cpu", timer="gpu"), ValueError,
     "timer must be one of auto, wall, event"),
    ("step loss_fn 5", lambda: _tiny_step(loss_fn=5), TypeError, "loss_fn must be a function"),
    ("step compile 'x'", lambda: _tiny_step(compile="x"), ValueError, "'x' is not a torch.compile backend"),
    ("compare_steps compile:x", lambda: compare_steps(_never, variants=["compile:x"], device="cpu"), ValueError,
     "'x' is not a torch.compile backend"),
    ("benchmark generator function", lambda: mf.benchmark(_gen, **_sim()), TypeError, "lambda: list(gen())"),
    ("benchmark coroutine function", lambda: mf.benchmark(_coro, **_sim()), TypeError, "asyncio.run"),
    ("benchmark label 5", lambda: mf.benchmark(_never, label=5, **_sim()), TypeError, "label must be a string"),
]


@pytest.mark.parametrize("call, kind, needle", [c[1:] for c in API], ids=[c[0] for c in API])
def test_the_library_refuses_bad_input_with_one_line_naming_the_fix(call, kind, needle):
    with pytest.raises(kind) as info:
        call()
    message = str(info.value)
    assert type(info.value) in (ValueError, TypeError) and needle in message and "\n" not in message, message


@pytest.fixture()
def store_case(tmp_path):
    """A store holding a result of every kind; returns ``(path, {kind: run id})``."""
    path = tmp_path / "runs.db"
    kinds = report_kinds.every_kind(tmp_path)
    with Store(path) as s:
        ids = {kind: s.save(r[0] if isinstance(r, list) else r, kind) for kind, r in kinds.items()}
    return path, ids


def test_save_refuses_what_is_not_a_result_or_a_name(tmp_path):
    with Store(tmp_path / "s.db") as s:
        with pytest.raises(TypeError, match="save\\(\\) takes a result"):
            s.save(5, "x")
        with pytest.raises(TypeError, match="name must be text"):
            s.save(_measurement(), name=5)
        assert s.list() == []  # nothing saved


def test_runs_show_shows_a_run_of_every_kind(store_case, capsys):
    path, ids = store_case
    for kind, run_id in ids.items():
        assert main(["runs", "show", str(run_id), "--store", str(path)]) == 0, kind
        assert capsys.readouterr().out.startswith(f"#{run_id} {kind}"), kind


# ---- files: (case, what the file holds, words of the line) ------------------------------------------------
def _selfcheck_status(value):
    doc = json.loads(report_kinds.selfcheck_result().to_json())
    doc["rows"][0]["status"] = value
    return doc


def _profile_label(value):
    doc = json.loads(report_kinds.profiles()[0].to_json())
    doc["label"] = value
    return doc


FILES = [
    ('{"kind": []}', {"kind": []}, "no \"kind\" measurefirst knows"),
    ("selfcheck status 1e300", _selfcheck_status(1e300), "status must be text"),
    ("selfcheck status 'bogus'", _selfcheck_status("bogus"), "status must be one of pass, fail"),
    ("profile label a list", _profile_label(["a"]), "profile.label must be text"),
    ("count of 1.5 instructions", {**json.loads(report_kinds.counts()[0].to_json()), "counts": [1.5, 2, 3]},
     "count.counts[0] must be a whole number"),
]


@pytest.mark.parametrize("verb", ["report", "compare"])
@pytest.mark.parametrize("doc, needle", [c[1:] for c in FILES], ids=[c[0] for c in FILES])
def test_a_malformed_file_is_one_line_naming_the_field(tmp_path, capsys, verb, doc, needle):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match=needle.replace("(", "\\(").replace("[", "\\[")):
        mf.load(bad)
    argv = ["report", str(bad), "-o", str(tmp_path / "r.html")] if verb == "report" else ["compare", str(bad), str(bad)]
    assert main(argv) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and "bad.json" in err[0], err
    assert verb == "compare" or needle in err[0], err  # compare reads the measurements in a file: its own words


# ---- the command line: (case, argv, exit code, words of the line) ------------------------------------------
def _build_raises():
    raise RuntimeError("no model here")


CLI = [
    ("--fail-if-slower -5%", ["compare", "1", "2", *SIM, "--fail-if-slower", "-5%"], 2,
     "--fail-if-slower: must not be negative; got '-5%': write 5%"),
    ("--precision -1%", ["bench", "1", *SIM, "--precision", "-1%"], 2, "must not be negative"),
    ("--sizes ''", ["sweep", "--op", "matmul", "--sizes", ""], 2, "--sizes is empty"),
    ("--sizes decreasing", ["sweep", "--op", "matmul", "--sizes", "128,64"], 2, "sizes must increase"),
    ("--fail-if-slower 5", ["compare", "1", "2", *SIM, "--fail-if-slower", "5"], 2, "'5' is ambiguous"),
    ("step build() raises", ["step", "bad_input_table_build.py:build", "--steps", "1"], 1,
     "build() raised: RuntimeError: no model here"),
    ("step --variants compile:x", ["step", "bad_input_table_build.py:build", "--variants", "compile:x"], 2,
     "'x' is not a torch.compile backend"),
]


@pytest.mark.parametrize("argv, code, needle", [c[1:] for c in CLI], ids=[c[0] for c in CLI])
def test_the_command_line_gives_one_line_and_the_exit_code(tmp_path, monkeypatch, capsys, argv, code, needle):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad_input_table_build.py").write_text("def build():\n    raise RuntimeError('no model here')\n")
    assert main(argv) == code
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error: ")]
    assert len(err) == 1 and needle in err[0], err


def test_a_character_device_as_the_store_is_refused_and_leaves_no_journal(tmp_path, capsys):
    """Was: "cannot rollback - no transaction is active", and a store.db-journal left beside it."""
    dev = tmp_path / "store.db"
    try:
        os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot make a device here: {exc}")
    assert main(["bench", "1", *SIM, "--save", "x", "--store", str(dev)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "not a regular file" in err[0] and "rollback" not in err[0], err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store.db"] and stat.S_ISCHR(os.stat(dev).st_mode)
