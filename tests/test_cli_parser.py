"""The command line's defaults and choices are the library's own: each is written once
(measurefirst.results.defaults), so a change there changes both, and the two cannot drift apart."""

from __future__ import annotations

import inspect
from dataclasses import fields

import pytest

from measurefirst import benchmark, compare, doctor, profile, sweep
from measurefirst.cli.commands import build_parser
from measurefirst.measure.engine import Options
from measurefirst.profiling.capture import SORTS, VIEWS
from measurefirst.tools.step import STEP_DTYPES, benchmark_step, compare_steps
from measurefirst.tools.sweep import builtin
from measurefirst.measure.timers import TIMER_CHOICES


def _args(*argv: str):
    return build_parser().parse_args(list(argv))


def _defaults(fn) -> dict[str, object]:
    return {k: p.default for k, p in inspect.signature(fn).parameters.items() if p.default is not p.empty}


def test_bench_defaults_are_the_engines():
    args, opts, sig = _args("bench", "x"), Options(), _defaults(benchmark)
    shared = [f.name for f in fields(Options) if hasattr(args, f.name)]
    assert set(f.name for f in fields(Options)) - set(shared) == {"warmup_min_time"}  # a flag for every other
    for name in shared:
        assert getattr(args, name) == getattr(opts, name) == sig[name], name
    assert args.timer == sig["timer"] == TIMER_CHOICES[0]


@pytest.mark.parametrize("argv, fn, names", [
    (("compare", "a", "b"), compare, {"precision", "budget", "min_time", "block_time", "order", "timer"}),
    (("sweep", "--op", "add"), sweep, {"budget", "precision"}),
    (("profile", "x"), profile, {"steps", "warmup"}),
    (("doctor", "x"), doctor, {"budget"}),
    (("step", "m:build"), compare_steps, {"steps", "warmup"}),
])
def test_command_defaults_are_the_functions(argv, fn, names):
    args, sig = _args(*argv), _defaults(fn)
    assert {n: getattr(args, n) for n in names} == {n: sig[n] for n in names}


def test_choices_are_the_librarys():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices
    choices = {name: {a.dest: a.choices for a in p._actions if a.choices} for name, p in sub.items()}
    assert tuple(choices["bench"]["timer"]) == tuple(choices["compare"]["timer"]) == TIMER_CHOICES
    assert (tuple(choices["profile"]["view"]), tuple(choices["profile"]["sort"])) == (VIEWS, SORTS)
    for op in choices["sweep"]["op"]:
        assert callable(builtin(op, "float32", "cpu")[0])  # every op the command offers, the library builds
    assert _args("step", "m:build", "--dtypes", ",".join(STEP_DTYPES)).dtypes == list(STEP_DTYPES)
    # any spelling of a dtype is its short name, under either option name
    assert _args("step", "m:build", "--dtype", "bfloat16,float16").dtypes == ["bf16", "fp16"]
    assert _defaults(benchmark_step)["warmup"] == _args("step", "m:build").warmup


def test_the_command_line_stays_thin():
    """cli.py is glue (parse, one library call, emit): the guard, loading and simulation live elsewhere."""
    from pathlib import Path

    import measurefirst.cli.commands as cli

    assert len(Path(cli.__file__).read_text().splitlines()) < 350
