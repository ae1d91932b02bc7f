"""The ``measurefirst`` command line's arguments: every command, option, default and choice. The
defaults and the choices are the library's own (:mod:`measurefirst.results.defaults`), so each is written
once; every number is checked here, at the boundary. Building the parser imports nothing heavy.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import sys
from pathlib import Path
from typing import Any, Callable, NoReturn, Sequence

from ..results import defaults as D
from ..render.words import LANGS, THEMES
from ..results.errors import UsageError
from ..tools.targets import STEP_CONTRACT

#: ``--fail-if-slower`` given alone: each kind's default threshold (argparse converts a string const).
KIND_DEFAULT = -1.0
#: ``measurefirst step --variants``: eager, compile (inductor) or compile:BACKEND.
VARIANT_RE = re.compile(r"^(eager|compile(:[\w.\-]+)?)$")


class Parser(argparse.ArgumentParser):
    """argparse, with its errors raised as one-line :class:`UsageError` (exit 2) instead of a usage
    block on stderr."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message} (see {self.prog} --help)")


# ---- argument types: every number is checked at the boundary ------------------------------------
def _number(text: str) -> float:
    try:
        value = float(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number; got {text!r}")
    return value


def _fraction(text: str) -> float:
    """``0.05`` or ``5%``: finite, not negative. A bare number above 1 is refused as ambiguous
    (``5`` would read as 500%)."""
    t = text.strip()
    try:
        value = float(t[:-1]) / 100.0 if t.endswith("%") else float(t)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a fraction such as 0.01 or 1%, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite fraction such as 0.05 or 5%; got {text!r}")
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative; got {text!r}: write {t.lstrip('-')}")
    if not t.endswith("%") and value > 1:
        raise argparse.ArgumentTypeError(f"{text!r} is ambiguous: write {t}% for {t} percent, "
                                         f"or a fraction such as 0.05")
    return value


def _seconds(text: str) -> float:
    value = _number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds; got {text!r}")
    return value


def _seconds_or_zero(text: str) -> float:
    value = _number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be zero or a positive number of seconds; got {text!r}")
    return value


def _at_least(minimum: int, most: int = D.MAX_COUNT, why: str = "") -> Callable[[str], int]:
    def convert(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if not minimum <= value <= most:
            raise argparse.ArgumentTypeError(f"must be a whole number >= {minimum} (at most {most}{why}); got {text!r}")
        return value

    convert.__name__ = f"integer >= {minimum}"
    return convert


def _path(text: str) -> Path:
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a file name, got an empty string")
    return Path(text)


def _store(text: str) -> Path | str:
    """A results store: a file, or a PostgreSQL URL (postgresql://...), kept as typed; any other URL is
    refused (:func:`measurefirst.results.store.location`)."""
    from ..results.store import StoreError, location

    _path(text)  # not empty
    try:
        return location(text)
    except StoreError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


_EXAMPLES = {
    "bench": """examples:
  measurefirst bench -s "a = torch.randn(1024, 1024, device=device)" "a @ a"
  measurefirst bench mypkg.kernels:fused_step --device cuda:1 --precision 0.5% --budget 10
  measurefirst bench "x.sum()" -s "x = torch.randn(2**24, device=device)" --cold-cache --json -o sum.json
  measurefirst bench "a @ a" -s "a = torch.randn(512, 512)" --save matmul512""",
    "bisect": """examples:
  measurefirst bisect v1.2 main "torch.softmax(x, -1)" -s "x = torch.randn(64, 1024)"
  measurefirst bisect good-sha HEAD mypkg.ops:attention_step --budget 4 --save attention-bisect
  measurefirst bisect v1.2 main -- pytest benchmarks/test_ops.py -k softmax""",
    "compare": """examples:
  measurefirst compare -s "x = torch.randn(2**20)" "x * 2" "x + x" --label mul --label add
  measurefirst compare base.json new.json --fail-if-slower 5%     # regression check of saved files
  measurefirst compare @matmul512 --fail-if-slower 2%             # latest run against the one before
  measurefirst compare "#12" "#15"                                # two saved runs by id
  measurefirst compare --against origin/main mypkg.ops:attention --fail-if-slower 5%   # code against code""",
    "runs": """examples:
  measurefirst runs                      # the latest 20 saved runs (-n N, --all)
  measurefirst runs list matmul512       # the runs of one name (also --kind, --machine, --since 7d)
  measurefirst runs show 12 13
  measurefirst runs export 12 13 --format csv
  measurefirst runs delete 12
  measurefirst runs prune --keep-last 50 --older-than 90d    # then gives the space back
  measurefirst runs copy .measurefirst/results.db postgresql://ci@db.example/bench
  measurefirst runs import .benchmarks         # pytest-benchmark's saved runs, then: compare @test_name""",
    "sweep": """examples:
  measurefirst sweep --op matmul --sizes 64,128,...,2048 --plot mm.png
  measurefirst sweep mypkg.ops:make_add --sizes 2**10,2**12,...,2**24 --flops n --bytes 12*n
  measurefirst sweep --op add --sizes 1000,2000,...,8000 --no-peaks --json -o add.json""",
    "report": """examples:
  measurefirst report @matmul -o report.html                      # the latest saved run of matmul
  measurefirst report matmul -o history.html                      # every saved run of matmul, steps marked
  measurefirst report ab.json sweep.json "#12" -o report.html --lang zh --theme dark""",
    "peaks": """examples:
  measurefirst peaks
  measurefirst peaks --device cuda --dtype bf16 --refresh --json""",
    "profile": """examples:
  measurefirst profile -s "x = torch.randn(2**20, device=device)" "torch.nn.functional.gelu(x)"
  measurefirst profile mypkg.train:step --trace step.json --sort total --row-limit 40 --view all
  measurefirst profile "0.5 * x * (1 + torch.tanh(x))" --vs "torch.tanh(x)" -s "x = torch.randn(2**16)\"""",
    "doctor": """examples:
  measurefirst doctor mypkg.train:step
  measurefirst doctor -s "x = torch.randn(1000)" "x.sum().item()" --json --strict""",
    "demo": """examples:
  measurefirst demo                      # all six parts, in the language of your locale
  measurefirst demo pitfalls --lang zh
  measurefirst demo scaling --quick --json""",
    "step": """examples:
  measurefirst step examples/tiny_lm.py:build
  measurefirst step examples/tiny_lm.py:build --variants eager,compile --dtypes fp32,bf16 --json
  torchrun --nproc-per-node 2 -m measurefirst step examples/tiny_lm.py:build --ddp   # or --fsdp""",
    "kernel": """examples:
  measurefirst kernel ampere_sgemm_128x64_tn "triton_poi_fused_add_mul_tanh_0" --json""",
    "selfcheck": """examples:
  measurefirst selfcheck --quick                 # CPU, under 30 s on 2 cores
  measurefirst selfcheck --device cuda --save    # CUDA sleep kernels; keep the runs to compare later
  measurefirst selfcheck --json -o check.json --lang zh
  measurefirst selfcheck --noise                 # this machine's noise profile (about a minute), saved""",
    "history": """examples:
  measurefirst history matmul512
  measurefirst history matmul512 --changes
  measurefirst history matmul512 --json""",
    "publish": """examples:
  measurefirst publish -o site/
  measurefirst publish -o site/ --store postgresql://ci@db/perf \\
      --commit-url "https://github.com/org/repo/commit/{commit}\"""",
}


def _pct(x: float) -> str:
    """A fraction for a help text (argparse formats help with %): 0.005 -> '0.5%%'."""
    return f"{x * 100:g}%%"


def _dtype_or_none(text: str, allowed: tuple[str, ...]) -> str | None:
    from ..measure.dtypes import dtype_name

    try:
        return dtype_name(text, allowed)
    except ValueError:
        return None


def _comma_list(choices: tuple[str, ...] | None = None, pattern: re.Pattern[str] | None = None,
                words: str = "", dtypes: bool = False) -> Callable[[str], list[str]]:
    """A comma list of distinct items, each one of ``choices`` (or matching ``pattern``); with
    ``dtypes``, any spelling of a dtype (``bf16``, ``bfloat16``) stands for its short name."""

    def convert(text: str) -> list[str]:
        items = [x.strip() for x in text.split(",") if x.strip()]
        if dtypes and choices is not None:
            items = [_dtype_or_none(x, choices) or x for x in items]
        bad = [x for x in items if (choices is not None and x not in choices) or (pattern and not pattern.match(x))]
        if not items or bad:
            raise argparse.ArgumentTypeError(f"takes a comma list of {words}; got {text!r}")
        twice = sorted(x for x in items if items.count(x) > 1)
        if twice:
            raise argparse.ArgumentTypeError(f"lists {twice[0]!r} twice")
        return items

    return convert


def _step_flops(text: str) -> float | str:
    """count, 6N, or a positive number of FLOPs per step."""
    if text in ("count", "6N"):
        return text
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be count, 6N or a number; got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a positive, finite number of FLOPs per step; got {text!r}")
    return value


def _sub(sub: Any, name: str, help_text: str, description: str) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(
        name, help=help_text, description=description, epilog=_EXAMPLES.get(name),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    return parser


_STORE_HELP = ("results store: a file (default .measurefirst/results.db) or a postgresql:// URL; or "
               "$MEASUREFIRST_STORE")
_DEVICE_HELP = "auto (cuda, then mps, then cpu), cpu, cuda, cuda:1 or mps (default auto)"


def _common(p: argparse.ArgumentParser, *, setup: bool = False, device: bool = True, json: bool = True,
            output: bool = False, save: str | None = None, store: str = _STORE_HELP, lang: bool = False) -> None:
    """The options several commands share, with the same meaning everywhere."""
    if setup:
        p.add_argument("-s", "--setup", action="append", default=[], help="setup statement, run once (repeatable)")
    if device:  # the commands that measure
        p.add_argument("-d", "--device", default="auto", help=_DEVICE_HELP)
        p.add_argument("-q", "--quiet", action="store_true",
                       help="no progress line on stderr (it is shown only on a terminal, and never with --json)")
    if json:
        p.add_argument("--json", action="store_true", help="print the result as JSON instead of the table")
    if output:
        p.add_argument("-o", "--output", type=_path, default=None,
                       help="also write the JSON result to this file (atomically)")
    if save is not None:
        p.add_argument("--save", nargs="?", const="", default=None, metavar=save,
                       help=f"save the result in the history store (under {save}; default: each label)")
    if store:
        p.add_argument("--store", type=_store, default=None, help=store)
    if lang:
        p.add_argument("--lang", choices=LANGS, default=None,
                       help="language of the tables, lines and findings' words (also in --json): en or zh "
                            "(default: from the locale, LC_ALL/LC_MESSAGES/LANG)")


def _stopping(p: argparse.ArgumentParser, precision: tuple[float, str], budget: tuple[float, str],
              min_time: tuple[float, str] | None = None) -> None:
    """--precision, --budget and --min-time: each a (default, help) pair."""
    p.add_argument("-p", "--precision", type=_fraction, default=precision[0],
                   help=f"{precision[1]} (default {_pct(precision[0])})")
    p.add_argument("-b", "--budget", type=_seconds, default=budget[0], help=f"{budget[1]} (default {budget[0]:g})")
    if min_time is not None:
        p.add_argument("--min-time", type=_seconds_or_zero, default=min_time[0],
                       help=f"{min_time[1]} (default {min_time[0]:g})")


def _timer(p: argparse.ArgumentParser) -> None:
    p.add_argument("--timer", choices=D.TIMERS, default=D.TIMERS[0], help="auto: events on GPUs, wall clock on the CPU")


def _labels(p: argparse.ArgumentParser) -> None:
    p.add_argument("--label", action="append", default=[], help="label for each target, in order (at most one each)")


#: A value that starts with '-' but that argparse does not take for a negative number (``-5%``, ``-1e3``).
_NEGATIVE_VALUE = re.compile(r"-\.?\d[\w.%+-]*")
_ARGPARSE_NEGATIVE = re.compile(r"-\d+|-\d*\.\d+")


def _attach_negative_values(argv: "Sequence[str]") -> list[str]:
    """``--fail-if-slower -5%`` as ``--fail-if-slower=-5%``: argparse reads ``-5%`` as an unknown option
    ("unrecognized arguments"); attached, the option's own check says what is wrong with the value."""
    out = list(argv)
    for i in range(len(out) - 1, 0, -1):
        prev, value = out[i - 1], out[i]
        if (prev.startswith("--") and "=" not in prev and prev != "--" and _NEGATIVE_VALUE.fullmatch(value)
                and not _ARGPARSE_NEGATIVE.fullmatch(value)):
            out[i - 1:i + 1] = [f"{prev}={value}"]
    return out


def parse_command(parser: argparse.ArgumentParser, argv: "Sequence[str] | None") -> argparse.Namespace | None:
    """The parsed arguments; None (after printing the help) when no command is given."""
    args = parser.parse_args(_attach_negative_values(sys.argv[1:] if argv is None else argv))
    if args.command is None:
        parser.print_help()
        return None
    return _anchored(args)


def _anchored(args: argparse.Namespace) -> argparse.Namespace:
    """``-o`` and the results store (given, from ``MEASUREFIRST_STORE`` or the default) made absolute against
    the folder the command was started in: a target that calls ``os.chdir()`` when imported moved where a
    relative one landed (``-o rel.json`` was written to ``/``)."""
    for name in ("output", "store"):
        value = getattr(args, name, None)
        if isinstance(value, Path) and not value.is_absolute() and str(value) != "-":  # "-": standard output
            setattr(args, name, Path(os.path.abspath(value)))
    if hasattr(args, "store") and args.store is None:
        from ..results.store import StoreError, default_path

        try:
            default = default_path()
        except StoreError:  # MEASUREFIRST_STORE holds no store: said where a store is opened, as before
            return args
        if isinstance(default, Path):
            args.store = Path(os.path.abspath(default))
    return args

def build_parser(version: str) -> argparse.ArgumentParser:
    """The parser (it imports neither numpy, torch nor the store: ``--help`` answers at once)."""
    parser = Parser(
        prog="measurefirst",
        description="Correct measurement of PyTorch code: measure first, then optimize.",
        epilog="Bad input exits 2 with one line saying what to do; a failure of the code under test exits 1; "
               "Ctrl-C shows what was measured so far and exits 130.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_bench(sub)
    _add_compare(sub)
    _add_bisect(sub)
    _add_runs(sub)
    _add_sweep(sub)
    _add_peaks(sub)
    _add_profile(sub)
    _add_doctor(sub)
    _add_demo(sub)
    _add_step(sub)
    _add_kernel(sub)
    _add_selfcheck(sub)
    _add_history(sub)
    _add_report(sub)
    _add_publish(sub)

    from .distributed import add_parser as add_collectives

    add_collectives(sub, _sub, _common, _seconds)
    return parser


def _add_bench(sub: Any) -> None:
    """``measurefirst bench``."""
    b = _sub(
        sub, "bench", "time statements or functions, device-aware (like python -m timeit)",
        "Time each TARGET: a Python statement (run after the -s setup, with `torch` imported and `device` set to "
        "the chosen device string; it runs inside a function, so a name it assigns is local to it) or "
        "module:function / path.py:function naming a function that takes no arguments. Each target is one "
        "row of the table. Every target and every output path is checked before anything is measured.",
    )
    b.add_argument("targets", nargs="*", metavar="TARGET", help="statement, module:function or file.py:function")
    _common(b, setup=True, output=True, save="NAME", lang=True)
    _stopping(b, (D.PRECISION, "stop when the 95%% CI of the median is within ±this, as 0.01 or 1%%"),
              (D.BUDGET_S, "seconds per target at most"), (D.MIN_TIME_S, "seconds of sampling at least"))
    b.add_argument("--min-samples", type=_at_least(1), default=D.MIN_SAMPLES,
                   help=f"samples at least (default {D.MIN_SAMPLES})")
    b.add_argument("--max-samples", type=_at_least(1), default=None, help="samples at most (default: no limit)")
    b.add_argument("--warmup", type=_at_least(0), default=None,
                   help="fixed number of warm-up calls (default: until steady)")
    b.add_argument("--warmup-time", dest="warmup_max_time", type=_seconds_or_zero, default=D.WARMUP_MAX_TIME_S,
                   help=f"cap on adaptive warm-up, seconds (default {D.WARMUP_MAX_TIME_S:g})")
    b.add_argument("--trials", type=_at_least(1), default=None, help="fixed number of samples (default: adaptive)")
    b.add_argument("--repeats", type=_at_least(1), default=None,
                   help=f"independent repetitions inside the call, each with its own warm-up and calibration; "
                        f"their spread is the run-to-run spread the headline interval holds (default "
                        f"{D.REPEATS}; 1 with --trials, and then the interval is this run's precision only)")
    b.add_argument("-n", "--number", type=_at_least(1), default=None, help="calls per sample (default: calibrated)")
    b.add_argument("--cold-cache", action="store_true", help="flush the last-level cache before each sample")
    b.add_argument("--cuda-graph", action="store_true", help="capture the calls in a CUDA graph and time replays")
    _timer(b)
    b.add_argument("--no-stop-early", dest="stop_early", action="store_false",
                   help="spend the whole budget even when the interval has settled wider than --precision "
                        "(default: stop after about a second with the interval this machine gives)")
    b.add_argument("--count", choices=D.COUNT_EVENTS, default=None,
                   help="count instead of timing: user-space instructions per call, in a fresh process "
                        "(hardware counters, else valgrind's callgrind); deterministic, for CI gates. "
                        "--number sets the calls per repeat, --trials the repeats, --warmup the uncounted calls")
    b.add_argument("--keep-preempted", dest="discard_preempted", action="store_false",
                   help="use samples during which the OS preempted the process (default: set them aside)")
    b.add_argument("--processes", type=_at_least(1, D.MAX_PROCESSES, ": each is a fresh interpreter"), default=None,
                   metavar="K",
                   help="measure in K fresh interpreters, one after the other, each with budget/K seconds, and "
                        "take the run-to-run spread from them (default: repetitions in this process)")
    _compiling(b, several=False)
    _labels(b)
    b.add_argument("--simulate", default=None, help=argparse.SUPPRESS)  # seeded simulated clock, for tests


def _compiling(p: argparse.ArgumentParser, *, several: bool) -> None:
    """``--compile [MODE]`` (bench) or ``--compile [MODE ...]`` (compare), and ``--compile-limit``."""
    from ..measure.compiling import MODES

    if several:
        def modes(text: str) -> list[str]:
            out = [m.strip() for m in text.split(",") if m.strip()]
            bad = [m for m in out if m not in MODES]
            if bad or not out:
                raise argparse.ArgumentTypeError(f"invalid mode {bad[0] if bad else text!r} (modes: {', '.join(MODES)})")
            return out

        p.add_argument("--compile", nargs="?", type=modes, const=[], default=None, metavar="MODE[,MODE...]",
                       help="also time each target compiled with torch.compile in each MODE (alone: torch's default "
                            f"mode; modes: {', '.join(MODES)}), interleaved with the eager ones; the table adds each "
                            "one's compile time and the calls until compiling pays for itself")
    else:
        p.add_argument("--compile", nargs="?", choices=MODES, const="default", default=None, metavar="MODE",
                       help="time the target compiled with torch.compile (MODE: one of "
                            f"{', '.join(MODES)}; default mode alone); the compile is shown apart, off the budget")
    if not several:
        p.add_argument("--fail-on-recompile", action="store_true",
                       help="refuse to measure through a recompile while sampling (torch's fail_on_recompile stance) "
                            "instead of taking the sample again")
    p.add_argument("--compile-limit", type=_seconds, default=D.COMPILE_LIMIT_S, metavar="SECONDS",
                   help="seconds of calls that compiled, in all, before the run stops (they are kept off the budget; "
                        f"default {D.COMPILE_LIMIT_S:g})")


def _add_compare(sub: Any) -> None:
    """``measurefirst compare``."""
    c = _sub(
        sub, "compare", "compare candidates interleaved (live), or saved results (regression check)",
        "Live: each TARGET is a statement or module:function, run interleaved with the others; the first is "
        "the baseline. Saved: every TARGET is a results file (*.json), #ID (a saved run), @NAME (its latest run) "
        "or @NAME~K (K runs back); with a single @NAME the latest run is checked against the one before. A "
        "target that looks saved (*.json, #ID, @NAME) is never run as code: a missing file is an error. "
        "--save keeps each measurement and the verdicts; -o writes them.",
    )
    c.add_argument("targets", nargs="+", metavar="TARGET")
    _common(c, setup=True, output=True, save="PREFIX", lang=True)
    _stopping(c, (D.COMPARE_PRECISION, "'no difference' needs the speed-up CI within ±this"),
              (D.COMPARE_BUDGET_S, "seconds at most"),
              (D.COMPARE_MIN_TIME_S, "seconds of rounds at least, enough to see the machine's load change"))
    c.add_argument("--block-time", type=_seconds, default=D.BLOCK_TIME_S,
                   help=f"seconds per block, one candidate's turn in a round (default {D.BLOCK_TIME_S:g})")
    c.add_argument("--order", choices=D.ORDERS, default=D.ORDERS[0],
                   help="order of the candidates in each round: abba (rounds in pairs, an order then its reverse: a "
                        "linear drift hits all alike; each pair's order drawn with the seed) or shuffle (a seeded "
                        "random order per round); default abba")
    c.add_argument("--baseline", default=None, help="label of the baseline (default: the first)")
    _labels(c)
    c.add_argument("--cold-cache", action="store_true",
                   help="flush the last-level cache before each sample (times each call alone)")
    _timer(c)
    _compiling(c, several=True)
    c.add_argument("--fail-if-slower", type=_fraction, nargs="?", const=KIND_DEFAULT, default=None, metavar="FRACTION",
                   help="exit 1 if a candidate or saved result is slower beyond its CI and this threshold "
                        "(5%% or 0.05; a bare number above 1 is refused); alone: the CI decides for times, "
                        "0.5%% more work for counts")
    c.add_argument("--run-to-run", type=_fraction, default=None, metavar="FRACTION",
                   help="saved results: the run-to-run spread of one run's median (relative standard deviation) that "
                        "the intervals include (default: measured from 8 or more saved runs of @NAME, else "
                        f"{_pct(D.RUN_TO_RUN_CV)} assumed)")
    c.add_argument("--against", default=None, metavar="REF",
                   help="code against code: each TARGET measured in REF (a branch, tag or commit, checked out in a "
                        "temporary git worktree, or the path of another checkout) and in this tree, in fresh worker "
                        "interpreters, their rounds interleaved; with --fail-if-slower, exit 1 when this tree is slower")
    c.add_argument("--against-pairs", type=_at_least(1), default=None, metavar="N",
                   help="with --against: worker pairs per target (default 4; fresh interpreters land in different "
                        "speed modes, and the scatter between pairs is in the interval)")
    c.add_argument("--simulate", default=None, help=argparse.SUPPRESS)  # "call=..;call=.." per candidate


def _add_bisect(sub: Any) -> None:
    """``measurefirst bisect``."""
    b = _sub(sub, "bisect", "find the first commit that made a target slower, code against code",
             "GOOD is a commit where TARGET (a statement or module:function) was fast, BAD a later one where it is "
             "slow. Each step compares the midpoint against both ends, each in its own git worktree and pairs of fresh "
             "worker interpreters, rounds interleaved, and goes to the half whose pairs rank slower (a worker that "
             "lands in another speed mode moves one rank, not the answer); a step the ranks cannot decide gets more "
             "pairs. The checkout must have no uncommitted changes; every worktree is removed at the end and "
             "on Ctrl-C. --save keeps every comparison (with its commits) in the history. A benchmark of a pytest "
             "suite is bisected the same way: put `-- pytest FILE -k NAME` after BAD (the arguments must select one "
             "test that uses the measure or benchmark fixture).")
    b.add_argument("good", metavar="GOOD", help="a commit, branch or tag where the target was fast")
    b.add_argument("bad", metavar="BAD", help="a later commit where it is slow")
    b.add_argument("target", metavar="TARGET", nargs="+",
                   help="a statement or module:function (a file.py:function too); or, after --, a pytest command "
                        "line that selects one benchmark: -- pytest FILE -k NAME")
    _common(b, setup=True, output=True, save="NAME", lang=True)
    b.add_argument("-b", "--budget", type=_seconds, default=D.BISECT_BUDGET_S,
                   help=f"seconds of measuring per comparison's first --against-pairs worker pairs, both sides "
                        f"(default {D.BISECT_BUDGET_S:g}; each pair measures BUDGET / N)")
    b.add_argument("--against-pairs", type=_at_least(1), default=None, metavar="N",
                   help="worker pairs of each step's comparisons at the first look (default 4; GOOD against BAD "
                        "starts with 6); 2 more per look while a step's ranks cannot decide, up to 20 (30 for GOOD "
                        "against BAD)")


def _add_runs(sub: Any) -> None:
    """``measurefirst runs``."""
    r = _sub(sub, "runs", "list, show, delete, export, prune, copy or import saved runs",
             "The results history: list the latest saved runs (of one NAME, kind, machine, or since a date), "
             "show or export some by id, delete them, prune old ones (runs matching every rule given are "
             "deleted, then their space is given back; vacuum gives it back alone), or copy every run of one "
             "store into another (SQLite file or PostgreSQL URL, either way). show displays each kind of result "
             "with its own renderer. import brings another tool's history in (pytest-benchmark's .benchmarks folder "
             "or JSON files, pyperf's JSON): each benchmark saved under its name with its run's time and commit. "
             "Only import and copy create a store: otherwise a missing one is an error.")
    r.add_argument("action", nargs="?", choices=("list", "show", "delete", "export", "prune", "vacuum", "copy",
                                                    "import"),
                   default="list", help="list (default), show, delete, export, prune, vacuum, copy or import")
    r.add_argument("ids", nargs="*", help="run ids such as 12 or #12 (show, delete, export), a NAME (list), "
                                          "SRC DST (copy), or files and folders (import)")
    r.add_argument("-n", dest="limit", type=_at_least(1), default=D.RUNS_SHOWN, metavar="N",
                   help=f"list the latest N runs (default {D.RUNS_SHOWN})")
    r.add_argument("--all", action="store_true", help="list every run")
    r.add_argument("--name", default=None, help="list (or prune) only the runs of this name")
    r.add_argument("--kind", default=None,
                   help="list (or prune) only the runs of this kind (measurement, count, regression, ...)")
    r.add_argument("--machine", default=None, help="list (or prune) only the runs saved on this host name")
    r.add_argument("--since", default=None, metavar="WHEN",
                   help="list (or prune) only the runs created since WHEN: an age (7d, 12h, 90m) or a date "
                        "(2026-11-01)")
    r.add_argument("--keep-last", type=_at_least(0), default=None, metavar="K",
                   help="prune: delete the runs beyond the latest K of each name")
    r.add_argument("--older-than", default=None, metavar="AGE",
                   help="prune: delete the runs created before AGE ago (30d, 12h) or before a date")
    r.add_argument("--format", choices=("json", "csv", "markdown"), default="json",
                   help="export format (default json, with raw samples)")
    r.add_argument("--as", dest="import_as", default=None, metavar="NAME",
                   help="import: save each benchmark as NAME/<test node id>, as `pytest --mf --mf-save NAME` does, "
                        "so that `pytest --mf --mf-compare NAME` compares with it (default: under its test name)")
    _common(r, device=False, json=False, lang=True)


def _add_sweep(sub: Any) -> None:
    """``measurefirst sweep``."""
    w = _sub(
        sub, "sweep", "time vs size: throughput, a fitted cost model, the roofline, plots",
        "TARGET is module:make_fn, a function of the size n that builds inputs and returns the callable to "
        "time; or use a built-in sweep with --op. Sizes and the --flops/--bytes expressions are checked, and "
        "evaluated at every size, before anything is measured.",
    )
    w.add_argument("target", nargs="?", metavar="TARGET", help="module:make_fn or file.py:make_fn")
    w.add_argument("--op", choices=D.SWEEP_OPS, default=None, help="a built-in sweep")
    w.add_argument("--sizes", default=None,
                   help="whole numbers: 64,128,...,4096 (doubling), 1000,2000,...,8000 (a constant step) or a "
                        "list; items may be expressions such as 2**10; at most 1000 sizes")
    w.add_argument("--flops", default=None, help="FLOPs per call as an expression of n, e.g. '2*n**3'")
    w.add_argument("--bytes", default=None, help="bytes moved per call as an expression of n, e.g. '12*n**2'")
    w.add_argument("--dtype", default=D.DTYPE, help=f"dtype for built-in sweeps and peaks (default {D.DTYPE})")
    _common(w, output=True, save="PREFIX", lang=True)
    _stopping(w, (D.SWEEP_PRECISION, "target half-width of the 95%% CI per size"),
              (D.SWEEP_BUDGET_S, "seconds per size at most"))
    w.add_argument("--reference", type=_at_least(1), default=None,
                   help="size the others are relative to (default 256, or the smallest)")
    w.add_argument("--no-peaks", action="store_true", help="skip the machine peaks and the roofline")
    w.add_argument("--plot", type=_path, default=None,
                   help="write plots: FILE.png|svg (+ FILE-throughput, FILE-roofline), atomically")


def _add_peaks(sub: Any) -> None:
    """``measurefirst peaks``."""
    k = _sub(sub, "peaks", "measure (or show the cached) matmul FLOP/s and copy bandwidth",
             "The machine's measured peaks: a large matrix product's FLOP/s and a large copy's bytes/s on the "
             "device and dtype, cached in the results store per machine, device, dtype and thread count.")
    k.add_argument("--dtype", default=D.DTYPE,
                   help=f"{D.DTYPE} (default), float16, bfloat16, float64, or fp32, fp16, bf16, fp64")
    k.add_argument("--refresh", action="store_true", help="measure again instead of using the cache")
    _common(k, store=_STORE_HELP + "; holds the cache")


def _add_profile(sub: Any) -> None:
    """``measurefirst profile``."""
    f = _sub(sub, "profile", "where the time goes: op and kernel tables, diffs, traces",
             "TARGET: a statement (after -s setup) or module:function taking no arguments. Runs --warmup plain "
             "calls, then profiles --steps steps; every table is per step.")
    f.add_argument("target", metavar="TARGET")
    f.add_argument("--vs", action="append", default=[], metavar="TARGET",
                   help="profile another and show them side by side (repeatable)")
    _common(f, setup=True, output=True, save="NAME", lang=True)
    f.add_argument("--steps", type=_at_least(1), default=D.PROFILE_STEPS,
                   help=f"profiled (active) steps (default {D.PROFILE_STEPS})")
    f.add_argument("--warmup", type=_at_least(0), default=D.PROFILE_WARMUP,
                   help=f"plain calls before profiling (default {D.PROFILE_WARMUP})")
    f.add_argument("--view", choices=D.VIEWS, default=D.VIEWS[0],
                   help="work: ops that do the work, as the lecture counts them (default); all: every op, "
                        "bookkeeping too; top: top-level ops only")
    f.add_argument("--sort", choices=D.SORTS, default=D.SORTS[0], help="sort the op table by this column (default self time)")
    f.add_argument("--row-limit", type=_at_least(1), default=D.ROW_LIMIT,
                   help=f"rows per table at most (default {D.ROW_LIMIT})")
    f.add_argument("--group-by-shape", action="store_true", help="one row per op and input shape")
    f.add_argument("--trace", type=_path, default=None, help="write a Chrome/Perfetto trace (JSON), atomically")
    f.add_argument("--memory-snapshot", type=_path, default=None, help="CUDA: write a memory snapshot (pickle)")
    f.add_argument("--flops-by-module", action="store_true", help="count FLOPs per module (FlopCounterMode)")
    _labels(f)


def _add_doctor(sub: Any) -> None:
    """``measurefirst doctor``."""
    dr = _sub(sub, "doctor", "audit a function for measurement and performance pitfalls",
              "TARGET: a statement (after -s setup) or module:function taking no arguments. Each finding says "
              "what was measured, why it matters and what to do.")
    dr.add_argument("target", metavar="TARGET")
    _common(dr, setup=True, output=True, save="NAME", lang=True)
    dr.add_argument("-b", "--budget", type=_seconds, default=D.DOCTOR_BUDGET_S,
                    help=f"seconds for the timing checks (default {D.DOCTOR_BUDGET_S:g})")
    dr.add_argument("--strict", action="store_true", help="exit 1 on any warning (for CI)")
    dr.add_argument("--simulate", default=None, help=argparse.SUPPRESS)


def _add_demo(sub: Any) -> None:
    """``measurefirst demo``."""
    dm = _sub(sub, "demo", "the lecture, runnable: timing traps, scaling, profiler, kernel names, a training step (zh/en)",
              "The lecture's five demonstrations, measured live on this machine: pitfalls (warm-up and "
              "synchronization), scaling (time vs size, the fitted cost model), profiler (the op table, 9 ops "
              "against 1), kernels (reading a kernel name) and mlp (a training step phase by phase).")
    dm.add_argument("which", nargs="?", choices=(*D.DEMOS, "all"), default="all", help="which part (default all)")
    _common(dm, json=False, store="", lang=True)
    dm.add_argument("--quick", action="store_true", help="smaller sizes: well under a minute on 2 CPU cores")
    dm.add_argument("--json", action="store_true", help="also print the measured numbers as JSON")


def _add_step(sub: Any) -> None:
    """``measurefirst step``."""
    st = _sub(sub, "step", "time a training step phase by phase: memory, tokens/s, MFU, variants",
              "TARGET is module:build or file.py:build; " + STEP_CONTRACT)
    st.add_argument("target", metavar="TARGET")
    st.add_argument("--variants", type=_comma_list(pattern=VARIANT_RE, words="eager, compile, compile:BACKEND"),
                    default=["eager"], help="comma list of eager, compile, compile:BACKEND")
    st.add_argument("--dtypes", "--dtype", type=_comma_list(D.STEP_DTYPES, dtypes=True, words=", ".join(D.STEP_DTYPES)
                                                             + " (or float32, bfloat16, float16)"),
                    default=[D.STEP_DTYPES[0]], help=f"comma list of {', '.join(D.STEP_DTYPES)} (autocast; "
                                                     "float32, bfloat16, float16 alike)")
    _common(st, output=True, save="NAME", store=_STORE_HELP + "; holds the peaks cache", lang=True)
    st.add_argument("--steps", type=_at_least(1), default=D.COMPARE_STEPS, help=f"timed steps (default {D.COMPARE_STEPS})")
    st.add_argument("--warmup", type=_at_least(0), default=D.STEP_WARMUP,
                    help=f"warm-up steps, not timed (default {D.STEP_WARMUP})")
    st.add_argument("--micro-batch", type=_at_least(1), default=None, help="samples per micro-batch")
    st.add_argument("--seq-len", type=_at_least(1), default=None, help="tokens per sample (gives tokens/s)")
    st.add_argument("--grad-accum", type=_at_least(1), default=1, help="micro-batches per step (default 1)")
    st.add_argument("--world-size", type=_at_least(1), default=1, help="devices in the job (default 1)")
    st.add_argument("--flops", type=_step_flops, default="count",
                    help="count (FlopCounterMode), 6N, or a positive number per step")
    st.add_argument("--no-peaks", action="store_true", help="skip the measured peak (MFU vs the table only)")
    from .distributed import add_step_arguments

    add_step_arguments(st, _seconds)


def _add_kernel(sub: Any) -> None:
    """``measurefirst kernel``."""
    kn = _sub(sub, "kernel", "decode GPU kernel names: library, op, arch, dtype, tile, layout",
              "Decode kernel names as they appear in profiles (cuBLAS, CUTLASS, Triton, flash-attention, NCCL, ...).")
    kn.add_argument("names", nargs="+", metavar="NAME")
    _common(kn, device=False, store="", lang=True)


def _add_selfcheck(sub: Any) -> None:
    """``measurefirst selfcheck``."""
    sc = _sub(sub, "selfcheck", "check measurefirst's own accuracy here: known durations, the classic traps, the machine",
              "Times calls of known duration (CPU busy-waits of 2 us-2 ms; CUDA sleep kernels of 5 us-1 ms) with "
              "benchmark() in every mode and with the reference tools installed, against a truth taken during the "
              "same calls; checks that the classic traps are caught; describes the machine. Exit 0: pass; 1: a "
              "check failed; 3: the machine was too noisy or too busy to judge.")
    _common(sc, output=True, save="PREFIX", lang=True)
    sc.add_argument("--quick", action="store_true", help="shorter budgets: under 30 s on 2 CPU cores")
    sc.add_argument("--noise", action="store_true",
                    help="measure this machine's noise profile instead: how far medians move between fresh "
                         "processes, by call duration and kind of work; saved per machine ($MEASUREFIRST_PROFILE, "
                         "else ~/.cache/measurefirst/noise-HOST.json) and used by every benchmark() on the CPU")
    sc.add_argument("--processes", type=_at_least(2, D.MAX_PROCESSES, ": each is a fresh interpreter"), default=None,
                    metavar="P",
                    help="with --noise: fresh processes (default 6; 2 with --quick)")
    sc.add_argument("--threads", type=_at_least(1), default=None, metavar="N",
                    help="with --noise: torch threads to profile (default: torch's current count); a benchmark "
                         "uses the profile of the threads it runs with, e.g. --threads 1 for torch.set_num_threads(1)")
    sc.add_argument("--simulate", default=None, help=argparse.SUPPRESS)  # seeded simulated clock, for tests
    sc.add_argument("--fault", type=float, default=None, help=argparse.SUPPRESS)  # scale every timer reading


def _add_history(sub: Any) -> None:
    """``measurefirst history``."""
    h = _sub(sub, "history", "the saved series of one benchmark, with step changes flagged",
             "The latest saved runs of NAME (-n, --all), oldest first, with the change against the run before "
             "and the steps (changes beyond both CIs and 2%) flagged.")
    h.add_argument("name")
    h.add_argument("-n", dest="limit", type=_at_least(2), default=None, metavar="N",
                   help=f"the latest N runs (default {D.RUNS_SHOWN}; with --changes, every run)")
    h.add_argument("--all", action="store_true", help="every run")
    h.add_argument("--changes", action="store_true",
                   help="read the series whole: its segments with their levels, the change points between them "
                        "(commit, ratio, interval, p-value) and drifts; one outlier or a disturbed run is not a change")
    _common(h, device=False, output=True, lang=True)


def _add_publish(sub: Any) -> None:
    """``measurefirst publish``."""
    p = _sub(sub, "publish", "a static dashboard of the whole history: every benchmark, its series, its change points",
             "Writes a self-contained site (no network needed to view it) to FOLDER: index.html lists every benchmark "
             "on every machine with its latest value and the latest change point or drift of its whole series; a "
             "page per benchmark and machine shows its series (each run's interval, the segments' levels, the "
             "change points), its changes in words and its latest runs; the same pages in Chinese under zh/. From "
             "SQLite or PostgreSQL; no sample is read.")
    p.add_argument("-o", "--output", type=_path, required=True, metavar="FOLDER",
                   help="the folder to write the site into (made if missing; only the site's own files are replaced)")
    p.add_argument("--name", default=None, help="only this benchmark and the suite under it (NAME/...)")
    p.add_argument("--commit-url", default=None, metavar="TEMPLATE",
                   help="link each commit: a URL with {commit} in it, e.g. https://github.com/org/repo/commit/{commit}")
    p.add_argument("--title", default=None, help="the site's title")
    _common(p, device=False, json=False, lang=True)


def _add_report(sub: Any) -> None:
    """``measurefirst report``."""
    rp = _sub(sub, "report", "one self-contained HTML page of any results: plots, tables, findings (en/zh)",
              "Each TARGET is a results file (the JSON of --json or -o: measurements, comparisons, sweeps, "
              "profiles, steps, doctor), a saved run (#ID, @NAME, @NAME~K) or the name of a history in the "
              "store. The page needs no network: styles, script and SVG plots are inline.")
    rp.add_argument("targets", nargs="+", metavar="TARGET")
    rp.add_argument("-o", "--output", type=_path, required=True,
                    help="the file to write, e.g. report.html (or summary.md with --format markdown)")
    rp.add_argument("--format", choices=("html", "markdown"), default="html",
                    help="html: the page (default); markdown: the tables of pytest runs (--mf-json) and regression "
                         "checks, e.g. for $GITHUB_STEP_SUMMARY")
    rp.add_argument("--lang", choices=LANGS, default=LANGS[0], help="language of the page (default en)")
    rp.add_argument("--theme", choices=THEMES, default=THEMES[0],
                    help="auto follows the system (the page has a toggle); default auto")
    rp.add_argument("--title", default=None, help="the page's title")
    _common(rp, device=False, json=False)
