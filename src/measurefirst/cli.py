"""Command line: parse, call the library, render. Errors are printed once, as one line.

Exit codes: 0 success, 1 the benchmarked code failed (or a selfcheck check failed), 2 bad usage or input,
3 selfcheck: the machine was too noisy to judge, 130 interrupted.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import inspect
import math
import os
import re
import signal
import sys
import textwrap
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, NoReturn, Sequence, cast

if TYPE_CHECKING:  # pragma: no cover
    from .compare import Comparison
    from .sweep import SweepResult

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130

_TARGET_RE = re.compile(r"^(?P<mod>[\w.]+|[^:\s]+\.py):(?P<attr>[\w.]+)$")
#: A results file larger than this is refused before it is read.
MAX_RESULTS_FILE_BYTES = 256 * 2**20


#: ``--fail-if-slower`` given alone: each kind's default threshold (argparse converts a string const).
_KIND_DEFAULT = -1.0


class UsageError(Exception):
    """Bad input on the command line; printed as one line, exit code 2."""


class SetupFailed(Exception):
    """The user's -s setup raised; printed as one line, exit code 1."""


class UserExit(Exception):
    """The code under test called ``sys.exit()`` or ``os._exit()``: a failure of that code (exit 1),
    never a silent way out of measurefirst with its exit status."""


class _Parser(argparse.ArgumentParser):
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
        raise argparse.ArgumentTypeError(f"must not be negative; got {text!r}")
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


def _at_least(minimum: int) -> Callable[[str], int]:
    def convert(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be a whole number >= {minimum}; got {text!r}")
        return value

    convert.__name__ = f"integer >= {minimum}"
    return convert


def _path(text: str) -> Path:
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a file name, got an empty string")
    return Path(text)


_EXAMPLES = {
    "bench": """examples:
  measurefirst bench -s "a = torch.randn(1024, 1024, device=device)" "a @ a"
  measurefirst bench mypkg.kernels:fused_step --device cuda:1 --precision 0.5% --budget 10
  measurefirst bench "x.sum()" -s "x = torch.randn(2**24, device=device)" --cold-cache --json -o sum.json
  measurefirst bench "a @ a" -s "a = torch.randn(512, 512)" --save matmul512""",
    "compare": """examples:
  measurefirst compare -s "x = torch.randn(2**20)" "x * 2" "x + x" --label mul --label add
  measurefirst compare base.json new.json --fail-if-slower 5%     # regression check of saved files
  measurefirst compare @matmul512 --fail-if-slower 2%             # latest run against the one before
  measurefirst compare "#12" "#15"                                # two saved runs by id""",
    "runs": """examples:
  measurefirst runs                      # list every saved run
  measurefirst runs list matmul512       # the runs of one name
  measurefirst runs show 12 13
  measurefirst runs export 12 13 --format csv
  measurefirst runs delete 12""",
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
  measurefirst demo                      # all five parts, in the language of your locale
  measurefirst demo pitfalls --lang zh
  measurefirst demo scaling --quick --json""",
    "step": """examples:
  measurefirst step examples/tiny_lm.py:build
  measurefirst step examples/tiny_lm.py:build --variants eager,compile --dtypes fp32,bf16 --json""",
    "kernel": """examples:
  measurefirst kernel ampere_sgemm_128x64_tn "triton_poi_fused_add_mul_tanh_0" --json""",
    "selfcheck": """examples:
  measurefirst selfcheck --quick                 # CPU, under 30 s on 2 cores
  measurefirst selfcheck --device cuda --save    # CUDA sleep kernels; keep the runs to compare later
  measurefirst selfcheck --json -o check.json --lang zh""",
    "history": """examples:
  measurefirst history matmul512
  measurefirst history matmul512 --json""",
}


def _sub(sub: Any, name: str, help_text: str, description: str) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = sub.add_parser(
        name, help=help_text, description=description, epilog=_EXAMPLES.get(name),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    return parser


_STORE_HELP = "results store file (default .measurefirst/results.db, or $MEASUREFIRST_STORE)"
_DEVICE_HELP = "auto (cuda, then mps, then cpu), cpu, cuda, cuda:1 or mps (default auto)"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="measurefirst",
        description="Correct measurement of PyTorch code: measure first, then optimize.",
        epilog="Bad input exits 2 with one line saying what to do; a failure of the code under test exits 1; "
               "Ctrl-C shows what was measured so far and exits 130.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    b = _sub(
        sub, "bench", "time statements or functions, device-aware (like python -m timeit)",
        "Time each TARGET: a Python statement (run after the -s setup, with `torch` imported and `device` set to "
        "the chosen device string; it runs inside a function, so a name it assigns is local to it) or "
        "module:function / path.py:function naming a function that takes no arguments. Each target is one "
        "row of the table. Every target and every output path is checked before anything is measured.",
    )
    b.add_argument("targets", nargs="*", metavar="TARGET", help="statement, module:function or file.py:function")
    b.add_argument("-s", "--setup", action="append", default=[], help="setup statement, run once (repeatable)")
    b.add_argument("-d", "--device", default="auto", help=_DEVICE_HELP)
    b.add_argument("-p", "--precision", type=_fraction, default=0.01,
                   help="stop when the 95%% CI of the median is within ±this, as 0.01 or 1%% (default 1%%)")
    b.add_argument("-b", "--budget", type=_seconds, default=5.0, help="seconds per target at most (default 5)")
    b.add_argument("--min-time", type=_seconds_or_zero, default=0.2,
                   help="seconds of sampling at least (default 0.2)")
    b.add_argument("--min-samples", type=_at_least(1), default=10, help="samples at least (default 10)")
    b.add_argument("--max-samples", type=_at_least(1), default=None, help="samples at most (default: no limit)")
    b.add_argument("--warmup", type=_at_least(0), default=None,
                   help="fixed number of warm-up calls (default: until steady)")
    b.add_argument("--warmup-time", type=_seconds_or_zero, default=1.0,
                   help="cap on adaptive warm-up, seconds (default 1)")
    b.add_argument("--trials", type=_at_least(1), default=None, help="fixed number of samples (default: adaptive)")
    b.add_argument("-n", "--number", type=_at_least(1), default=None, help="calls per sample (default: calibrated)")
    b.add_argument("--cold-cache", action="store_true", help="flush the last-level cache before each sample")
    b.add_argument("--cuda-graph", action="store_true", help="capture the calls in a CUDA graph and time replays")
    b.add_argument("--timer", choices=("auto", "wall", "event"), default="auto",
                   help="auto: events on GPUs, wall clock on the CPU")
    b.add_argument("--no-stop-early", action="store_true",
                   help="spend the whole budget even when the interval has settled wider than --precision "
                        "(default: stop after about a second with the interval this machine gives)")
    b.add_argument("--count", choices=("instructions",), default=None,
                   help="count instead of timing: user-space instructions per call, in a fresh process "
                        "(hardware counters, else valgrind's callgrind); deterministic, for CI gates. "
                        "--number sets the calls per repeat, --trials the repeats, --warmup the uncounted calls")
    b.add_argument("--keep-preempted", action="store_true",
                   help="use samples during which the OS preempted the process (default: set them aside)")
    b.add_argument("--label", action="append", default=[], help="label for each target, in order (at most one each)")
    b.add_argument("--json", action="store_true", help="print the results as JSON instead of a table")
    b.add_argument("-o", "--output", type=_path, default=None,
                   help="also write the JSON results to this file (atomically)")
    b.add_argument("--save", nargs="?", const="", default=None, metavar="NAME",
                   help="save the results in the history store (under NAME, default: each label)")
    b.add_argument("--store", type=_path, default=None, help=_STORE_HELP)
    b.add_argument("--simulate", default=None, help=argparse.SUPPRESS)  # seeded simulated clock, for tests

    c = _sub(
        sub, "compare", "compare candidates interleaved (live), or saved results (regression check)",
        "Live: each TARGET is a statement or module:function, run interleaved with the others; the first is "
        "the baseline. Saved: every TARGET is a results file (*.json), #ID (a saved run), @NAME (its latest run) "
        "or @NAME~K (K runs back); with a single @NAME the latest run is checked against the one before. A "
        "target that looks saved (*.json, #ID, @NAME) is never run as code: a missing file is an error.",
    )
    c.add_argument("targets", nargs="+", metavar="TARGET")
    c.add_argument("-s", "--setup", action="append", default=[], help="setup statement, run once (repeatable)")
    c.add_argument("-d", "--device", default="auto", help=_DEVICE_HELP)
    c.add_argument("-p", "--precision", type=_fraction, default=0.005,
                   help="'no difference' needs the speed-up CI within ±this (default 0.5%%)")
    c.add_argument("-b", "--budget", type=_seconds, default=5.0, help="seconds at most (default 5)")
    c.add_argument("--min-time", type=_seconds_or_zero, default=1.0,
                   help="seconds of rounds at least (default 1.0: enough to see the machine's load change)")
    c.add_argument("--block-time", type=_seconds, default=0.005,
                   help="seconds per block, one candidate's turn in a round (default 0.005)")
    c.add_argument("--order", choices=("abba", "shuffle"), default="abba",
                   help="order of the candidates in each round: abba (forwards, then backwards: a linear drift "
                        "hits all alike) or shuffle (a seeded random order per round); default abba")
    c.add_argument("--baseline", default=None, help="label of the baseline (default: the first)")
    c.add_argument("--label", action="append", default=[], help="label for each target, in order (at most one each)")
    c.add_argument("--cold-cache", action="store_true",
                   help="flush the last-level cache before each sample (times each call alone)")
    c.add_argument("--timer", choices=("auto", "wall", "event"), default="auto",
                   help="auto: events on GPUs, wall clock on the CPU")
    c.add_argument("--fail-if-slower", type=_fraction, nargs="?", const=_KIND_DEFAULT, default=None, metavar="FRACTION",
                   help="exit 1 if a candidate or saved result is slower beyond its CI and this threshold "
                        "(5%% or 0.05; a bare number above 1 is refused); alone: the CI decides for times, "
                        "0.5%% more work for counts")
    c.add_argument("--json", action="store_true", help="print JSON instead of the table")
    c.add_argument("-o", "--output", type=_path, default=None, help="also write the JSON to this file (atomically)")
    c.add_argument("--save", nargs="?", const="", default=None, metavar="PREFIX",
                   help="save each candidate's measurement in the history store")
    c.add_argument("--store", type=_path, default=None, help=_STORE_HELP)
    c.add_argument("--simulate", default=None, help=argparse.SUPPRESS)  # "call=..;call=.." per candidate

    r = _sub(sub, "runs", "list, show, delete or export saved runs",
             "The results history: list the saved runs (all, or those of one NAME), show or export some by id, "
             "or delete them. Never creates a store: a missing one is an error.")
    r.add_argument("action", nargs="?", choices=("list", "show", "delete", "export"), default="list",
                   help="list (default), show, delete or export")
    r.add_argument("ids", nargs="*", help="run ids such as 12 or #12 (show, delete, export), or a NAME (list)")
    r.add_argument("--format", choices=("json", "csv", "markdown"), default="json",
                   help="export format (default json, with raw samples)")
    r.add_argument("--store", type=_path, default=None, help=_STORE_HELP)

    w = _sub(
        sub, "sweep", "time vs size: throughput, a fitted cost model, the roofline, plots",
        "TARGET is module:make_fn, a function of the size n that builds inputs and returns the callable to "
        "time; or use a built-in sweep with --op. Sizes and the --flops/--bytes expressions are checked, and "
        "evaluated at every size, before anything is measured.",
    )
    w.add_argument("target", nargs="?", metavar="TARGET", help="module:make_fn or file.py:make_fn")
    w.add_argument("--op", choices=("matmul", "add", "copy", "gelu"), default=None, help="a built-in sweep")
    w.add_argument("--sizes", default=None,
                   help="whole numbers: 64,128,...,4096 (doubling), 1000,2000,...,8000 (a constant step) or a "
                        "list; items may be expressions such as 2**10; at most 1000 sizes")
    w.add_argument("--flops", default=None, help="FLOPs per call as an expression of n, e.g. '2*n**3'")
    w.add_argument("--bytes", default=None, help="bytes moved per call as an expression of n, e.g. '12*n**2'")
    w.add_argument("--dtype", default="float32", help="dtype for built-in sweeps and peaks (default float32)")
    w.add_argument("-d", "--device", default="auto", help=_DEVICE_HELP)
    w.add_argument("-b", "--budget", type=_seconds, default=2.0, help="seconds per size at most (default 2)")
    w.add_argument("-p", "--precision", type=_fraction, default=0.01,
                   help="target half-width of the 95%% CI per size (default 1%%)")
    w.add_argument("--reference", type=_at_least(1), default=None,
                   help="size the others are relative to (default 256, or the smallest)")
    w.add_argument("--no-peaks", action="store_true", help="skip the machine peaks and the roofline")
    w.add_argument("--plot", type=_path, default=None,
                   help="write plots: FILE.png|svg (+ FILE-throughput, FILE-roofline), atomically")
    w.add_argument("--json", action="store_true", help="print JSON instead of the tables")
    w.add_argument("-o", "--output", type=_path, default=None, help="also write the JSON to this file (atomically)")
    w.add_argument("--save", nargs="?", const="", default=None, metavar="PREFIX",
                   help="save each size's measurement in the history store")
    w.add_argument("--store", type=_path, default=None, help=_STORE_HELP)

    k = _sub(sub, "peaks", "measure (or show the cached) matmul FLOP/s and copy bandwidth",
             "The machine's measured peaks: a large matrix product's FLOP/s and a large copy's bytes/s on the "
             "device and dtype, cached in the results store per machine, device, dtype and thread count.")
    k.add_argument("-d", "--device", default="auto", help=_DEVICE_HELP)
    k.add_argument("--dtype", default="float32", help="float32 (default), float16, bfloat16, ...")
    k.add_argument("--refresh", action="store_true", help="measure again instead of using the cache")
    k.add_argument("--json", action="store_true", help="print JSON")
    k.add_argument("--store", type=_path, default=None, help=_STORE_HELP + "; holds the cache")

    f = _sub(sub, "profile", "where the time goes: op and kernel tables, diffs, traces",
             "TARGET: a statement (after -s setup) or module:function taking no arguments. Runs --warmup plain "
             "calls, then profiles --steps steps; every table is per step.")
    f.add_argument("target", metavar="TARGET")
    f.add_argument("--vs", action="append", default=[], metavar="TARGET",
                   help="profile another and show them side by side (repeatable)")
    f.add_argument("-s", "--setup", action="append", default=[], help="setup statement, run once (repeatable)")
    f.add_argument("-d", "--device", default="auto", help=_DEVICE_HELP)
    f.add_argument("--steps", type=_at_least(1), default=3, help="profiled (active) steps (default 3)")
    f.add_argument("--warmup", type=_at_least(0), default=2, help="plain calls before profiling (default 2)")
    f.add_argument("--view", choices=("work", "all", "top"), default="work",
                   help="work: ops that do the work, as the lecture counts them (default); all: every op, "
                        "bookkeeping too; top: top-level ops only")
    f.add_argument("--sort", choices=("self", "total", "calls", "device", "flops", "bytes", "name", "memory"),
                   default="self", help="sort the op table by this column (default self time)")
    f.add_argument("--row-limit", type=_at_least(1), default=25, help="rows per table at most (default 25)")
    f.add_argument("--group-by-shape", action="store_true", help="one row per op and input shape")
    f.add_argument("--trace", type=_path, default=None, help="write a Chrome/Perfetto trace (JSON), atomically")
    f.add_argument("--memory-snapshot", type=_path, default=None, help="CUDA: write a memory snapshot (pickle)")
    f.add_argument("--flops-by-module", action="store_true", help="count FLOPs per module (FlopCounterMode)")
    f.add_argument("--label", action="append", default=[], help="label for each target, in order (at most one each)")
    f.add_argument("--json", action="store_true", help="print JSON")

    dr = _sub(sub, "doctor", "audit a function for measurement and performance pitfalls",
              "TARGET: a statement (after -s setup) or module:function taking no arguments. Each finding says "
              "what was measured, why it matters and what to do.")
    dr.add_argument("target", metavar="TARGET")
    dr.add_argument("-s", "--setup", action="append", default=[], help="setup statement, run once (repeatable)")
    dr.add_argument("-d", "--device", default="auto", help=_DEVICE_HELP)
    dr.add_argument("-b", "--budget", type=_seconds, default=3.0, help="seconds for the timing checks (default 3)")
    dr.add_argument("--json", action="store_true", help="print JSON")
    dr.add_argument("--strict", action="store_true", help="exit 1 on any warning (for CI)")
    dr.add_argument("--simulate", default=None, help=argparse.SUPPRESS)

    dm = _sub(sub, "demo", "the lecture, runnable: timing traps, scaling, profiler, kernel names, a training step (zh/en)",
              "The lecture's five demonstrations, measured live on this machine: pitfalls (warm-up and "
              "synchronization), scaling (time vs size, the fitted cost model), profiler (the op table, 9 ops "
              "against 1), kernels (reading a kernel name) and mlp (a training step phase by phase).")
    dm.add_argument("which", nargs="?", choices=("pitfalls", "scaling", "profiler", "kernels", "mlp", "all"), default="all",
                    help="which part (default all)")
    dm.add_argument("-d", "--device", default="auto", help=_DEVICE_HELP)
    dm.add_argument("--lang", choices=("zh", "en"), default=None, help="zh or en (default: from the locale)")
    dm.add_argument("--quick", action="store_true", help="smaller sizes: well under a minute on 2 CPU cores")
    dm.add_argument("--json", action="store_true", help="also print the measured numbers as JSON")

    st = _sub(sub, "step", "time a training step phase by phase: memory, tokens/s, MFU, variants",
              "TARGET is module:build or file.py:build; build() returns model, optimizer and batches.")

    def step_help(parser: argparse.ArgumentParser = st) -> str:
        # the full contract lives in measurefirst.step (which imports torch): read it only for --help
        parser.description = "TARGET is module:build or file.py:build; " + _step_contract()
        return _Parser.format_help(parser)

    setattr(st, "format_help", step_help)
    st.add_argument("target", metavar="TARGET")
    st.add_argument("--variants", default="eager", help="comma list of eager, compile, compile:BACKEND")
    st.add_argument("--dtypes", default="fp32", help="comma list of fp32, bf16, fp16 (autocast)")
    st.add_argument("-d", "--device", default="auto", help=_DEVICE_HELP)
    st.add_argument("--steps", type=_at_least(1), default=10, help="timed steps (default 10)")
    st.add_argument("--warmup", type=_at_least(0), default=3, help="warm-up steps, not timed (default 3)")
    st.add_argument("--micro-batch", type=_at_least(1), default=None, help="samples per micro-batch")
    st.add_argument("--seq-len", type=_at_least(1), default=None, help="tokens per sample (gives tokens/s)")
    st.add_argument("--grad-accum", type=_at_least(1), default=1, help="micro-batches per step (default 1)")
    st.add_argument("--world-size", type=_at_least(1), default=1, help="devices in the job (default 1)")
    st.add_argument("--flops", default="count", help="count (FlopCounterMode), 6N, or a positive number per step")
    st.add_argument("--no-peaks", action="store_true", help="skip the measured peak (MFU vs the table only)")
    st.add_argument("--json", action="store_true", help="print JSON")
    st.add_argument("--store", type=_path, default=None, help=_STORE_HELP + "; holds the peaks cache")

    kn = _sub(sub, "kernel", "decode GPU kernel names: library, op, arch, dtype, tile, layout",
              "Decode kernel names as they appear in profiles (cuBLAS, CUTLASS, Triton, flash-attention, NCCL, ...).")
    kn.add_argument("names", nargs="+", metavar="NAME")
    kn.add_argument("--json", action="store_true", help="print JSON")

    sc = _sub(sub, "selfcheck", "check measurefirst's own accuracy here: known durations, the classic traps, the machine",
              "Times calls of known duration (CPU busy-waits of 2 us-2 ms; CUDA sleep kernels of 5 us-1 ms) with "
              "benchmark() in every mode and with the reference tools installed, against a truth taken during the "
              "same calls; checks that the classic traps are caught; describes the machine. Exit 0: pass; 1: a "
              "check failed; 3: the machine was too noisy to judge.")
    sc.add_argument("-d", "--device", default="auto", help=_DEVICE_HELP)
    sc.add_argument("--quick", action="store_true", help="shorter budgets: under 30 s on 2 CPU cores")
    sc.add_argument("--lang", choices=("zh", "en"), default=None, help="default: from the locale")
    sc.add_argument("--json", action="store_true", help="print the result as JSON instead of the table")
    sc.add_argument("-o", "--output", type=_path, default=None, help="also write the JSON result to this file")
    sc.add_argument("--save", nargs="?", const="", default=None, metavar="PREFIX",
                    help="save the measurements in the history store (compare later with measurefirst compare)")
    sc.add_argument("--store", type=_path, default=None, help=_STORE_HELP)
    sc.add_argument("--simulate", default=None, help=argparse.SUPPRESS)  # seeded simulated clock, for tests
    sc.add_argument("--fault", type=float, default=None, help=argparse.SUPPRESS)  # scale every timer reading

    h = _sub(sub, "history", "the saved series of one benchmark, with step changes flagged",
             "Every saved run of NAME, oldest first, with the change against the run before and the steps "
             "(changes beyond both CIs and 2%) flagged.")
    h.add_argument("name")
    h.add_argument("--store", type=_path, default=None, help=_STORE_HELP)
    h.add_argument("--json", action="store_true", help="print JSON")

    rp = _sub(sub, "report", "one self-contained HTML page of any results: plots, tables, findings (en/zh)",
              "Each TARGET is a results file (the JSON of --json or -o: measurements, comparisons, sweeps, "
              "profiles, steps, doctor), a saved run (#ID, @NAME, @NAME~K) or the name of a history in the "
              "store. The page needs no network: styles, script and SVG plots are inline.")
    rp.add_argument("targets", nargs="+", metavar="TARGET")
    rp.add_argument("-o", "--output", type=_path, required=True, help="the HTML file to write, e.g. report.html")
    rp.add_argument("--lang", choices=("en", "zh"), default="en", help="language of the page (default en)")
    rp.add_argument("--theme", choices=("auto", "light", "dark"), default="auto",
                    help="auto follows the system (the page has a toggle); default auto")
    rp.add_argument("--title", default=None, help="the page's title")
    rp.add_argument("--store", type=_path, default=None, help=_STORE_HELP)

    from .distributed.cli import add_parser as add_collectives

    add_collectives(sub, _sub)
    return parser


def _version() -> str:
    from . import __version__

    return __version__


def _console(stderr: bool = False) -> Any:
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    try:
        wanted = int(os.environ.get("MEASUREFIRST_WIDTH", "160"))
    except ValueError:
        wanted = 160
    width = None if stream.isatty() else max(40, min(wanted, 1000))
    return Console(file=stream, width=width, highlight=False, soft_wrap=False)


def _say(console: Any, text: str, style: str | None = None) -> None:
    """Print one line of text as it is: no rich markup, control characters escaped."""
    from .render.text import plain

    console.print(plain(text), markup=False, style=style, soft_wrap=True)  # one line, never wrapped


def _dumps(obj: Any) -> str:
    from .safeio import strict_json

    return strict_json(obj, indent=2)


# ---- destinations: checked before anything is measured -------------------------------------------
def _check_destination(path: Path | None, what: str) -> None:
    if path is None:
        return
    from .safeio import DestinationError, check_destination

    try:
        check_destination(path, what)
    except DestinationError as exc:
        raise UsageError(str(exc)) from None


def _check_store(args: argparse.Namespace) -> None:
    """With --save, open (and if need be create) the store now: a foreign, damaged or read-only store
    costs no measurement."""
    if getattr(args, "save", None) is None:
        return
    from .store import Store

    with Store(args.store) as store:
        if store.read_only:
            from .store import StoreError

            raise StoreError(f"cannot save: the results store {store.path} is read-only; choose a writable "
                             f"file with --store PATH")


def _write_output(path: Path, text: str) -> None:
    from .safeio import DestinationError, write_atomic

    try:
        write_atomic(path, text + "\n", "output file")
    except DestinationError as exc:
        raise UsageError(str(exc)) from None


def _check_labels(labels: Sequence[str], n_targets: int) -> None:
    if len(labels) > n_targets:
        raise UsageError(f"{len(labels)} --label options for {n_targets} target(s); give at most one label per "
                         f"target, in order")


# ---- user code: statements, targets, setup -------------------------------------------------------
_CO_ASYNC_OR_GENERATOR = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


def _user_exit(exc: SystemExit) -> NoReturn:
    raise UserExit(f"the code called sys.exit({exc.code!r}); code under measurement must return, not exit")


def _load_target(target: str, namespace: dict[str, Any]) -> tuple[str, Callable[[], object]]:
    m = _TARGET_RE.match(target.strip())
    if m:
        attr, obj = _load_callable(target.strip())
        if inspect.isgeneratorfunction(obj) or inspect.iscoroutinefunction(obj) or inspect.isasyncgenfunction(obj):
            kind = "a coroutine function" if inspect.iscoroutinefunction(obj) else "a generator function"
            raise UsageError(f"{target} is {kind}: calling it only creates a {kind.split()[1]} object, so the "
                             f"time would be that of creating it; time a function that runs it to the end")
        try:
            sig = inspect.signature(obj)
            required = [p.name for p in sig.parameters.values()
                        if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        except (TypeError, ValueError):
            required = []
        if required:
            raise UsageError(f"{target} needs arguments ({', '.join(required)}); benchmark a function that takes none, "
                             f"e.g. one that builds its inputs in setup and calls {attr}")
        return attr, obj
    text = textwrap.dedent(target).strip() or "pass"
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        raise UsageError(f"statement {target!r} is not valid Python: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise UsageError(f"statement {target!r} is not valid Python: {type(exc).__name__}") from None
    if len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr) and isinstance(tree.body[0].value, ast.GeneratorExp):
        raise UsageError(f"statement {target!r} is a generator expression: evaluating it only creates the "
                         f"generator, so the time would be that of creating it; time list(...) of it instead")
    # The statement becomes the body of a function. SystemExit inside it is turned into a failure of
    # the statement; a try block costs nothing when nothing is raised (Python 3.11+).
    body = textwrap.indent(text, " " * 8)
    source = ("def __measurefirst_stmt__():\n    try:\n" + body + "\n"
              "    except SystemExit as __measurefirst_exc__:\n        __measurefirst_exit__(__measurefirst_exc__)\n")
    try:
        code = compile(source, "<statement>", "exec")
    except SyntaxError as exc:
        raise UsageError(f"statement {target!r} is not valid Python: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise UsageError(f"statement {target!r} is not valid Python: {type(exc).__name__}") from None
    namespace["__measurefirst_exit__"] = _user_exit
    exec(code, namespace)
    fn = namespace.pop("__measurefirst_stmt__")
    if fn.__code__.co_flags & _CO_ASYNC_OR_GENERATOR:
        raise UsageError(f"statement {target!r} contains yield or await: as a function body it only creates a "
                         f"generator, so the time would be that of creating it; time code that runs to the end")
    return target.strip(), fn


def _prepare(args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    """The resolved device string and the namespace the -s setup ran in."""
    from .devices import DeviceError, resolve_device

    try:
        device = str(resolve_device(args.device))
    except DeviceError as exc:
        raise UsageError(str(exc)) from exc
    try:
        return device, _run_setup(args.setup, device)
    except (UsageError, KeyboardInterrupt):
        raise
    except SystemExit as exc:
        raise SetupFailed(f"setup failed: it called sys.exit({exc.code!r})") from None
    except BaseException as exc:  # noqa: BLE001 - the user's setup failed
        raise SetupFailed(f"setup failed: {type(exc).__name__}: {exc}") from exc


def _run_setup(setups: Sequence[str], device: str) -> dict[str, Any]:
    import torch

    namespace: dict[str, Any] = {"torch": torch, "device": device, "__name__": "__measurefirst__"}
    for s in setups:
        try:
            code = compile(textwrap.dedent(s), "<setup>", "exec")
        except SyntaxError as exc:
            raise UsageError(f"setup {s!r} is not valid Python: {exc.msg}") from exc
        except (ValueError, RecursionError, MemoryError) as exc:
            raise UsageError(f"setup {s!r} is not valid Python: {type(exc).__name__}") from None
        exec(code, namespace)
    return namespace


def _failure_hint(exc: BaseException) -> str:
    """Words to add to the error of a statement that failed in a way statements typically do."""
    cause = exc.__cause__
    if isinstance(cause, UnboundLocalError):
        return (" (statements run inside a function, so a name the statement assigns, as in x += 1, is local "
                "to it: assign it in -s setup and write `global x; x += 1`, or time a module:function)")
    return ""


# ---- Ctrl-C: a real one, or the code under test raising KeyboardInterrupt -------------------------
_SIGINT_COUNT = 0


def _on_sigint(signum: int, frame: Any) -> None:
    global _SIGINT_COUNT
    _SIGINT_COUNT += 1
    signal.default_int_handler(signum, frame)


def _ctrl_c(args: argparse.Namespace | None = None) -> bool:
    """Whether the KeyboardInterrupt being handled came from Ctrl-C (a SIGINT), not from the code
    under test raising it. The simulated clock's ``interrupt_at`` stands for a Ctrl-C."""
    return _SIGINT_COUNT > 0 or bool(args is not None and getattr(args, "simulate", None))


def _raised_interrupt(label: str) -> str:
    return (f"{label!r} raised KeyboardInterrupt itself (no Ctrl-C was pressed); code under measurement "
            f"must not raise it")


def cmd_bench(args: argparse.Namespace) -> int:
    from . import benchmark
    from .engine import BenchmarkError, Interrupted

    out, err = _console(), _console(stderr=True)
    if not args.targets and not args.simulate:
        raise UsageError('give a statement or module:function to time, e.g. measurefirst bench -s "a = torch.randn(512, 512)" "a @ a"')
    timer: Any = args.timer
    device = args.device
    targets = args.targets or ["simulated"]
    _check_labels(args.label, len(targets))
    _check_destination(args.output, "output file (-o)")
    _check_store(args)
    if args.simulate:
        from .simulate import SimWorld, parse_spec

        try:
            spec = parse_spec(args.simulate)
        except ValueError as exc:
            raise UsageError(str(exc)) from exc
        device = "cpu"
    else:
        device, namespace = _prepare(args)
    results = []
    code = EXIT_OK
    jobs = []  # every target is loaded before anything is measured: a bad one costs no results
    for i, target in enumerate(targets):
        fn: Callable[[], object]
        if args.simulate:
            world = SimWorld(spec)
            label, fn, job_timer = "simulated", world.function(), world.timer()
        else:
            (label, fn), job_timer = _load_target(target, namespace), timer
        jobs.append((args.label[i] if i < len(args.label) else label, fn, job_timer))
    if args.count is not None:
        if args.simulate:
            raise UsageError("--count counts real instructions; it cannot be simulated")
        jobs = [(label, _count_target(target, args.setup, device), timer)
                for (label, _, timer), target in zip(jobs, targets)]
    try:
        for label, fn, job_timer in jobs:
            try:
                if args.count is not None:
                    results.append(benchmark(fn, count=args.count, device=device, label=label, warmup=args.warmup,
                                             trials=args.trials, number=args.number))
                    continue
                m = benchmark(
                    fn, device=device, label=label, precision=args.precision, budget=args.budget,
                    min_time=args.min_time, min_samples=args.min_samples, max_samples=args.max_samples,
                    warmup=args.warmup, trials=args.trials, number=args.number,
                    warmup_max_time=args.warmup_time, cold_cache=args.cold_cache, cuda_graph=args.cuda_graph,
                    timer=job_timer, discard_preempted=not args.keep_preempted, stop_early=not args.no_stop_early,
                )
            except BenchmarkError as exc:
                if exc.partial is not None:
                    results.append(exc.partial)
                _say(err, f"error: {exc}{_failure_hint(exc)}")
                code = EXIT_FAILED
                break
            except SystemExit as exc:  # a module:function target called sys.exit()
                _say(err, f"error: benchmark {label!r}: the code called sys.exit({exc.code!r}); code under "
                          f"measurement must return, not exit")
                code = EXIT_FAILED
                break
            results.append(m)
    except Interrupted as exc:
        if exc.partial is not None:
            results.append(exc.partial)
        if _ctrl_c(args):
            _say(err, "interrupted: showing what was measured so far (marked incomplete)")
            code = EXIT_INTERRUPTED
        else:
            _say(err, "error: " + _raised_interrupt(getattr(exc.partial, "label", "a target")))
            code = EXIT_FAILED
    except KeyboardInterrupt:
        _say(err, "interrupted" if _ctrl_c(args) else "error: the code under test raised KeyboardInterrupt")
        code = EXIT_INTERRUPTED if _ctrl_c(args) else EXIT_FAILED
    except (ValueError, TypeError) as exc:
        raise UsageError(str(exc)) from exc
    except RuntimeError as exc:
        from .counting import CountError

        if not isinstance(exc, CountError):
            raise
        raise UsageError(str(exc)) from exc
    code = _first_failure(code, _emit(args, results, out, err))
    if args.save is not None and results:
        code = _first_failure(code, _save(args, results, err))
    return code


def _first_failure(code: int, other: int) -> int:
    return code if code != EXIT_OK else other


def _count_target(target: str, setups: Sequence[str], device: str) -> Any:
    """What --count sends to the counting process: the target, rebuilt there as it was loaded here."""
    from ._counters import Target

    m = _TARGET_RE.match(target.strip())
    if m is None:
        return Target("statement", "", target, tuple(setups), device)
    mod, attr = m.group("mod"), m.group("attr")
    if mod.endswith(".py"):
        return Target("file", str(Path(mod).resolve()), attr)
    return Target("module", mod, attr)


def _save(args: argparse.Namespace, results: list[Any], err: Any) -> int:
    """Save to the store; if that fails after measuring, the results go to a fallback file it names."""
    from .store import Store, StoreError

    empty = [(not m.counts) if m.kind == "count" else m.summary is None for m in results]
    skipped = [m.label for m, e in zip(results, empty) if e]
    results = [m for m, e in zip(results, empty) if not e]
    for label in skipped:
        _say(err, f"not saved: {label} has no samples")
    if not results:
        return EXIT_OK
    names = [(args.save + (f"/{m.label}" if len(results) > 1 else "")) if args.save else m.label for m in results]
    try:
        with Store(args.store) as store:
            ids = store.save_many(results, names=names)
    except (StoreError, OSError, ValueError) as exc:
        fallback = _write_fallback(results)
        where = (f"they are kept in {fallback} (a results file: measurefirst compare reads it)" if fallback
                 else "and no fallback file could be written either; the results above are all there is")
        _say(err, f"error: the results were not saved: {exc}; {where}")
        return EXIT_USAGE
    _say(err, f"saved {len(ids)} run(s) to {store.path}: " + ", ".join(f"#{i} {n}" for i, n in zip(ids, names)))
    return EXIT_OK


def _write_fallback(results: list[Any]) -> Path | None:
    import tempfile
    import time

    from .safeio import DestinationError, write_atomic

    name = f"measurefirst-unsaved-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.json"
    text = _dumps([m.to_dict() for m in results])
    for folder in (Path.cwd(), Path(tempfile.gettempdir())):
        try:
            return write_atomic(folder / name, text + "\n", "fallback results file")
        except (DestinationError, OSError):
            continue
    return None


def _emit(args: argparse.Namespace, results: list[Any], out: Any, err: Any) -> int:
    from .render.text import finding_lines, measurement_table

    if not results:
        return EXIT_OK
    payload = [m.to_dict() for m in results]

    def show() -> None:
        from .render.text import count_table

        counts = [m for m in results if m.kind == "count"]
        if counts:
            out.print(count_table(counts))
        if len(counts) < len(results):
            out.print(measurement_table([m for m in results if m.kind != "count"]))
        for m in results:
            for line in finding_lines(m.warnings):
                _say(out, f"{m.label}: {line}")

    return _deliver(args, _dumps(payload if len(payload) > 1 else payload[0]), show, out, err)


def _deliver(args: argparse.Namespace, text: str, show: Callable[[], None], out: Any, err: Any) -> int:
    """Print the results (JSON with --json, else ``show()``), then write ``-o``: a file that cannot be
    written is reported in one line (exit 2) and costs none of the results already shown."""
    if args.json:
        out.file.write(text + "\n")
        out.file.flush()
    else:
        show()
    if args.output is not None:
        try:
            _write_output(args.output, text)
        except UsageError as exc:
            _say(err, f"error: {exc}")
            return EXIT_USAGE
    return EXIT_OK


def _looks_saved(target: str) -> bool:
    """A saved result: #ID, @NAME, @NAME~K, or a file name ending in .json (never run as code)."""
    from .store import parse_ref

    return parse_ref(target) is not None or target.strip().lower().endswith(".json")


def _load_ref(target: str, store_path: Path | None) -> list[Any]:
    from .results import load_measurements, measured, parse_json
    from .store import Store, parse_ref

    ref = parse_ref(target)
    if ref is None:
        path = Path(target)
        try:
            size = path.stat().st_size
            if size > MAX_RESULTS_FILE_BYTES:
                raise UsageError(f"results file {target} is {size / 2**20:.0f} MiB; at most "
                                 f"{MAX_RESULTS_FILE_BYTES // 2**20} MiB are read")
            raw = path.read_bytes()
        except OSError as exc:
            raise UsageError(f"cannot read results file {target}: {exc.strerror or exc}") from None
        try:
            found = load_measurements(parse_json(raw), source=path.name)
        except ValueError as exc:
            raise UsageError(f"{target} is not a valid measurefirst results file: {exc}") from None
        if not found:
            raise UsageError(f"{target} holds no measurements")
        labels = [x.label for x in found]
        dupes = sorted({x for x in labels if labels.count(x) > 1})
        if dupes:
            raise UsageError(f"{target} holds {labels.count(dupes[0])} results labelled {dupes[0]!r}; labels must "
                             f"be unique within a file to be matched (re-run with distinct --label)")
        return found
    with Store(store_path, create=False) as store:
        result = store.resolve(ref)[1]
    found = measured(result)
    if not found:
        raise UsageError(f"{target} is a {result.kind}, which holds no measurements to compare")
    return found


def cmd_compare_saved(args: argparse.Namespace) -> int:
    from .regression import check
    from .render.tables import regression_failures, regression_lines, regression_table
    from .store import parse_ref

    out = _console()
    refs = list(args.targets)
    if args.label:
        raise UsageError("--label names live targets; saved results keep the labels they were saved with")
    if len(refs) == 1:
        ref = parse_ref(refs[0])
        if ref is None or ref.name is None or ref.back:
            raise UsageError("with one target, give @NAME: its latest run is checked against the one before")
        refs = [f"@{ref.name}~1", refs[0]]
    if len(refs) != 2:
        raise UsageError("a regression check takes BASE and NEW (files, #ID or @NAME)")
    _check_destination(args.output, "output file (-o)")
    base, new = (_load_ref(t, args.store) for t in refs)
    threshold = None if args.fail_if_slower in (None, _KIND_DEFAULT) else args.fail_if_slower
    names = {r.name for r in map(parse_ref, refs) if r is not None and r.name}
    try:
        result = check(base, new, base_name=refs[0], new_name=refs[1], threshold=threshold,
                       gate=args.fail_if_slower is not None, label=names.pop() if len(names) == 1 else None)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc

    def show() -> None:
        out.print(regression_table(result))
        for line in regression_lines(result):
            _say(out, line)

    code = _deliver(args, result.to_json(), show, out, _console(stderr=True))
    for line in regression_failures(result):
        _say(_console(stderr=True), line)
    return _first_failure(EXIT_FAILED if result.failed else EXIT_OK, code)


def cmd_compare(args: argparse.Namespace) -> int:
    if not args.simulate:
        saved = [t for t in args.targets if _looks_saved(t)]
        if saved:
            live = [t for t in args.targets if not _looks_saved(t)]
            if live:
                raise UsageError(f"cannot mix saved results ({saved[0]}) with live targets ({live[0]}); compare "
                                 f"files, #ID and @NAME with each other, or statements and functions live")
            from .store import parse_ref

            missing = [t for t in saved if parse_ref(t) is None and not Path(t).is_file()]
            if missing:
                what = "is a directory" if Path(missing[0]).is_dir() else "does not exist"
                raise UsageError(f"results file {missing[0]} {what}; a target ending in .json is read as a results "
                                 f"file, never run")
            return cmd_compare_saved(args)
    from .compare import compare
    from .engine import BenchmarkError, Interrupted
    from .render.text import comparison_lines, comparison_table, issue_lines

    out, err = _console(), _console(stderr=True)
    timer: Any = args.timer
    _check_destination(args.output, "output file (-o)")
    _check_store(args)
    if args.simulate:
        from .simulate import SimWorld, parse_spec

        try:
            specs = [parse_spec(part) for part in args.simulate.split(";")]
        except ValueError as exc:
            raise UsageError(str(exc)) from exc
        _check_labels(args.label, len(specs))
        world = SimWorld(specs[0])
        candidates: list[tuple[str, Callable[[], object]]]
        candidates = [(f"sim{i}", world.function(sp.call_ns, f"sim{i}")) for i, sp in enumerate(specs)]
        timer, device = world.timer(), "cpu"
    else:
        if len(args.targets) < 2:
            raise UsageError("compare needs at least two targets")
        _check_labels(args.label, len(args.targets))
        device, namespace = _prepare(args)
        candidates = [_load_target(t, namespace) for t in args.targets]
    candidates = [((args.label[i] if i < len(args.label) else label), fn)
                  for i, (label, fn) in enumerate(candidates)]
    labels = [c[0] for c in candidates]
    dupes = sorted({x for x in labels if labels.count(x) > 1})
    if dupes:
        raise UsageError(f"labels must be unique; {dupes[0]!r} appears twice (use --label)")
    if args.baseline is not None and args.baseline not in labels:
        raise UsageError(f"--baseline {args.baseline!r} is not one of the labels: {', '.join(map(repr, labels))}")
    code = EXIT_OK
    result = None
    try:
        result = compare(candidates, baseline=args.baseline, device=device, precision=args.precision,
                         budget=args.budget, min_time=args.min_time, block_time=args.block_time, order=args.order,
                         cold_cache=args.cold_cache, timer=timer)
    except BenchmarkError as exc:
        result = cast("Comparison | None", exc.partial)
        _say(err, f"error: {exc}{_failure_hint(exc)}")
        code = EXIT_FAILED
    except Interrupted as exc:
        result = cast("Comparison | None", exc.partial)
        if _ctrl_c(args):
            _say(err, "interrupted: showing what was measured so far (marked incomplete)")
            code = EXIT_INTERRUPTED
        else:
            _say(err, "error: a candidate raised KeyboardInterrupt itself (no Ctrl-C was pressed); code under "
                      "measurement must not raise it")
            code = EXIT_FAILED
    except SystemExit as exc:
        _say(err, f"error: a candidate called sys.exit({exc.code!r}); code under measurement must return, not exit")
        code = EXIT_FAILED
    except (ValueError, TypeError) as exc:
        raise UsageError(str(exc)) from exc
    if result is None:
        return code

    def show() -> None:
        out.print(comparison_table(result))
        for line in comparison_lines(result):
            _say(out, line)
        for line in issue_lines(result.measurements):
            _say(out, line)

    code = _first_failure(code, _deliver(args, _dumps(result.to_dict()), show, out, err))
    if args.save is not None:
        code = _first_failure(code, _save(argparse.Namespace(save=args.save, store=args.store),
                                          list(result.measurements), err))
    if code == EXIT_OK and args.fail_if_slower is not None:
        limit = 0.0 if args.fail_if_slower == _KIND_DEFAULT else args.fail_if_slower
        slow = [v for v in result.verdicts if v.verdict == "slower" and v.ratio > 1 + limit]
        for v in slow:
            _say(err, f"regression: {v.label} is {v.words()} than {v.baseline}")
        code = EXIT_FAILED if slow else code
    return code


def _run_ids(texts: Sequence[str]) -> list[int]:
    from .store import check_run_id

    ids = []
    for x in texts:
        digits = x.strip().lstrip("#")
        if not digits.isdigit() or not digits.isascii():
            raise UsageError(f"run ids are whole numbers such as 12 or #12; got {x!r}")
        if len(digits) > 19:
            raise UsageError(f"run id {x[:24]!r}... is beyond SQLite's integers (at most 2**63-1)")
        ids.append(check_run_id(int(digits)))
    return ids


def cmd_runs(args: argparse.Namespace) -> int:
    from rich.table import Table

    from .render.text import cell, format_time
    from .store import Store

    out = _console()
    if args.action == "list" and len(args.ids) > 1:
        raise UsageError("runs list takes at most one NAME")
    ids = [] if args.action == "list" else _run_ids(args.ids)
    if args.action != "list" and not ids:
        raise UsageError(f"runs {args.action} needs one or more run ids (see `measurefirst runs`)")
    with Store(args.store, create=False) as store:
        if args.action == "list":
            rows = store.list(args.ids[0] if args.ids else None)
            table = Table(title=cell(store.path))
            for col in ("id", "name", "created", "device", "commit", "median", "samples"):
                table.add_column(col)
            for r in rows:
                median = r.median if isinstance(r.median, (int, float)) and not isinstance(r.median, bool) else None
                table.add_row(str(r.id), cell(r.name), cell(r.created), cell(r.device_name or r.device or ""),
                              cell((r.git_commit or "")[:12]), format_time(median) if median else "n/a",
                              cell(f"{r.n_samples}" + ("" if r.complete else " (incomplete)")))
            out.print(table)
            return EXIT_OK
        if args.action == "show":
            for i in ids:
                _say(out, f"#{i} {store.get(i)}")
        elif args.action == "delete":
            if store.read_only:
                raise UsageError(f"cannot delete: the results store {store.path} is read-only")
            for i in ids:
                if not store.delete(i):
                    raise UsageError(f"no run #{i} in {store.path}")
                _say(_console(stderr=True), f"deleted run #{i}")
        else:
            out.file.write(store.export(ids, args.format))
    return EXIT_OK


def cmd_history(args: argparse.Namespace) -> int:
    from .history import load_history
    from .render.tables import history_table
    from .store import Store

    out = _console()
    with Store(args.store, create=False) as store:
        h = load_history(store, args.name)
        if not h.runs:
            raise UsageError(f"no runs named {args.name!r} in {store.path}; saved names: "
                             + (", ".join(map(repr, store.names()[:10])) or "none yet"))
    if args.json:
        out.file.write(h.to_json() + "\n")
    else:
        out.print(history_table(h))
    return EXIT_OK


def _plot_paths(path: Path) -> list[Path]:
    return [path, path.with_name(f"{path.stem}-throughput{path.suffix}"),
            path.with_name(f"{path.stem}-roofline{path.suffix}")]


def cmd_sweep(args: argparse.Namespace) -> int:
    from .devices import DeviceError, resolve_device
    from .engine import Interrupted
    from .render.text import issue_lines, sweep_lines, sweep_table
    from .roofline import peaks as get_peaks
    from .sweep import builtin, parse_sizes, sweep, work_table

    out, err = _console(), _console(stderr=True)
    if args.op and args.target:
        raise UsageError("give either TARGET or --op, not both")
    if not args.op and not args.target:
        raise UsageError("give TARGET (module:make_fn) or --op matmul|add|copy|gelu")
    if args.target and not _TARGET_RE.match(args.target):
        raise UsageError("TARGET must be module:make_fn (a function of n returning the callable to time)")
    _check_destination(args.output, "output file (-o)")
    if args.plot is not None:
        from .render.plots import FORMATS

        if args.plot.suffix.lower() not in FORMATS:
            raise UsageError(f"--plot {args.plot} must end in .png or .svg")
        for p in _plot_paths(args.plot):
            _check_destination(p, "plot")
    _check_store(args)
    try:
        sizes = parse_sizes(args.sizes) if args.sizes else None
        dev = resolve_device(args.device)
        if args.op:
            make, flops, nbytes, default_sizes = builtin(args.op, args.dtype, dev)
            label = args.op
            sizes = sizes or default_sizes
        else:
            label, make = _load_callable(args.target)
            flops = nbytes = None
        if sizes is None:
            raise UsageError("give --sizes, e.g. --sizes 64,128,...,4096")
        if args.flops:
            flops = args.flops
        if args.bytes:
            nbytes = args.bytes
        work_table(sizes, flops, nbytes)  # every expression at every size, before anything is measured
        if args.reference is not None and args.reference not in sizes:
            raise UsageError(f"--reference {args.reference} is not among the sizes")
        pk = None
        if not args.no_peaks and (flops or nbytes):
            _say(err, "measuring machine peaks (cached afterwards; --no-peaks skips) ...")
            pk = get_peaks(dev, args.dtype, store=args.store)
        try:
            result = sweep({label: make}, sizes, flops=flops, bytes=nbytes, device=dev, reference=args.reference,
                           peaks=pk, budget=args.budget, precision=args.precision, progress=True)
            code = EXIT_OK
        except Interrupted as exc:
            result = cast("SweepResult", exc.partial)
            _say(err, "interrupted: showing the sizes that finished (marked incomplete)")
            code = EXIT_INTERRUPTED
    except (DeviceError, ValueError, TypeError) as exc:
        raise UsageError(str(exc)) from exc

    def show() -> None:
        for lab in result.labels:
            out.print(sweep_table(result, lab))
        for line in sweep_lines(result):
            if line.lstrip().startswith(("fit:", "complexity:", "peaks:", "INCOMPLETE")) or line.endswith(":"):
                _say(out, line)
        for line in issue_lines(result.measurements):
            _say(out, line)

    code = _first_failure(code, _deliver(args, result.to_json(), show, out, err))
    if args.plot is not None:
        from .render.plots import plot_all
        from .safeio import DestinationError

        try:
            files = plot_all(result, args.plot)
            _say(err, "plots: " + ", ".join(str(f) for f in files))
        except (ValueError, ImportError, DestinationError, OSError) as exc:
            _say(err, f"error: plots not written: {exc}")
            code = _first_failure(code, EXIT_USAGE)
    if args.save is not None:
        code = _first_failure(code, _save(argparse.Namespace(save=args.save, store=args.store),
                                          list(result.measurements), err))
    failed = [p for p in result.points if not p.ok]
    if failed and code in (EXIT_OK, EXIT_FAILED):
        every = len(failed) == len(result.points)
        _say(err, ("error: every size failed: " if every else f"{len(failed)} size(s) failed: ")
             + "; ".join(f"n={p.n}: {p.error}" for p in failed))
        if every:
            code = EXIT_FAILED
    return code


def _load_callable(target: str) -> tuple[str, Any]:
    """module:attr or file.py:attr → (attr, object), without calling or checking its signature."""
    m = _TARGET_RE.match(target)
    if m is None:
        raise UsageError(f"{target!r} is not module:function or file.py:function")
    mod_name, attr = m.group("mod"), m.group("attr")
    try:
        if mod_name.endswith(".py"):
            path = Path(mod_name)
            if not path.is_file():
                raise UsageError(f"no such file: {mod_name}")
            spec = importlib.util.spec_from_file_location(path.stem, path)
            if spec is None or spec.loader is None:
                raise UsageError(f"cannot load {mod_name} as a Python module")
            module = importlib.util.module_from_spec(spec)
            sys.modules.setdefault(path.stem, module)
            try:
                spec.loader.exec_module(module)
            except (UsageError, KeyboardInterrupt):
                raise
            except BaseException as exc:  # noqa: BLE001 - the user's file failed to load (sys.exit too)
                raise UsageError(f"cannot load {mod_name}: {type(exc).__name__}: {exc}") from exc
        else:
            if os.getcwd() not in sys.path:
                sys.path.insert(0, os.getcwd())
            try:
                module = importlib.import_module(mod_name)
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # noqa: BLE001 - ImportError, or the module raised (or exited) importing
                raise UsageError(f"cannot import {mod_name!r}: {type(exc).__name__}: {exc}") from exc
    except UserExit as exc:
        raise UsageError(f"cannot load {mod_name}: {exc}") from exc
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise UsageError(f"{mod_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise UsageError(f"{target} is a {type(obj).__name__}, not a function")
    return attr, obj


def cmd_peaks(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from .devices import DeviceError
    from .roofline import peaks as get_peaks

    try:
        p = get_peaks(args.device, args.dtype, refresh=args.refresh, store=args.store)
    except (DeviceError, ValueError, TypeError) as exc:
        raise UsageError(str(exc)) from exc
    out = _console()
    if args.json:
        out.file.write(_dumps(asdict(p)) + "\n")
    else:
        _say(out, str(p))
    return EXIT_OK


def cmd_profile(args: argparse.Namespace) -> int:
    from .profiling import ProfileError, diff, profile
    from .render.profile import diff_lines, diff_table, kernel_table, op_table, profile_lines

    out, err = _console(), _console(stderr=True)
    targets = [args.target] + list(args.vs)
    if args.trace is not None and len(targets) > 1:
        raise UsageError("--trace takes one target; profile the others separately")
    _check_labels(args.label, len(targets))
    _check_destination(args.trace, "trace")
    _check_destination(args.memory_snapshot, "memory snapshot")
    device, namespace = _prepare(args)
    loaded = [_load_target(t, namespace) for t in targets]
    labels = [args.label[i] if i < len(args.label) else label for i, (label, _) in enumerate(loaded)]
    if len(set(labels)) != len(labels):
        raise UsageError("labels must be unique; use --label")
    try:
        profiles = {lab: profile(fn, device=device, steps=args.steps, warmup=args.warmup, label=lab,
                                 group_by_shape=args.group_by_shape, trace=args.trace,
                                 memory_snapshot=args.memory_snapshot, flops_by_module=args.flops_by_module)
                    for lab, (_, fn) in zip(labels, loaded)}
    except ProfileError as exc:
        if exc.label:
            _say(err, f"error: {exc}{_failure_hint(exc)}")
            return EXIT_FAILED
        raise UsageError(str(exc)) from exc
    except (ValueError, TypeError) as exc:
        raise UsageError(str(exc)) from exc
    if len(profiles) > 1:
        d = diff(profiles)
        if args.json:
            out.file.write(_dumps(d.to_dict()) + "\n")
            return EXIT_OK
        out.print(diff_table(d))
        for line in diff_lines(d):
            _say(out, line)
        return EXIT_OK
    p = next(iter(profiles.values()))
    if args.json:
        out.file.write(p.to_json() + "\n")
        return EXIT_OK
    out.print(op_table(p, view=args.view, sort=args.sort, limit=args.row_limit))
    if p.kernels:
        out.print(kernel_table(p, limit=args.row_limit))
    lines = profile_lines(p)
    for line in lines[:1] + [x for x in lines if x.strip().startswith(("peak", "trace"))]:
        _say(out, line)
    if p.flops_by_module:
        for mod, fl in p.flops_by_module.items():
            _say(out, f"FLOPs {mod}: {fl:.4g}")
    return EXIT_OK


def cmd_doctor(args: argparse.Namespace) -> int:
    from .doctor import doctor

    timer: Any = "auto"
    if args.simulate:
        from .simulate import SimWorld, parse_spec

        try:
            world = SimWorld(parse_spec(args.simulate))
        except ValueError as exc:
            raise UsageError(str(exc)) from exc
        fn: Callable[[], object]
        label, fn, timer, device = "simulated", world.function(), world.timer(), "cpu"
    else:
        device, namespace = _prepare(args)
        label, fn = _load_target(args.target, namespace)
    try:
        d = doctor(fn, device=device, label=label, budget=args.budget, timer=timer)
    except (ValueError, TypeError) as exc:
        raise UsageError(str(exc)) from exc
    out = _console()
    if args.json:
        out.file.write(_dumps(d.to_dict()) + "\n")
    else:
        for line in str(d).splitlines():
            _say(out, line)
    if d.error is not None:
        return EXIT_FAILED
    return EXIT_FAILED if (args.strict and d.warnings) else EXIT_OK


def cmd_demo(args: argparse.Namespace) -> int:
    from .devices import DeviceError
    from .lecture import run

    out = _console()

    def emit(line: str) -> None:
        if line.startswith("#"):
            _say(out, line.lstrip("# ").strip(), style="bold")
        else:
            _say(out, line)

    try:
        results = run(args.which, device=args.device, lang=args.lang, quick=args.quick, emit=emit)
    except (DeviceError, ValueError) as exc:
        raise UsageError(str(exc)) from exc
    if args.json:
        out.file.write(_dumps({r.name: r.data for r in results}) + "\n")
    return EXIT_OK


EXIT_NOISY = 3


def cmd_selfcheck(args: argparse.Namespace) -> int:
    from .devices import DeviceError, resolve_device
    from .lecture.narration import default_lang
    from .render.selfcheck import progress_line, selfcheck_lines, selfcheck_table
    from .selfcheck import FAIL, NOISY, FaultyTimer, selfcheck
    from .timers import Timer, make_timer

    out, err = _console(), _console(stderr=True)
    lang = args.lang or default_lang()
    _check_destination(args.output, "output file (-o)")
    _check_store(args)
    world = None
    try:
        if args.simulate is not None:
            from .simulate import SimWorld, parse_spec

            world = SimWorld(parse_spec(args.simulate))
        timer: Timer | None = None
        if args.fault is not None:
            base = world.timer() if world is not None else make_timer(resolve_device(args.device))
            timer = FaultyTimer(base, args.fault)

        def progress(stage: str, duration_s: float | None, method: str) -> None:
            _say(err, progress_line(stage, duration_s, method, lang))

        result = selfcheck(args.device, quick=args.quick, timer=timer, simulate=world, progress=progress)
    except (DeviceError, ValueError, TypeError) as exc:
        raise UsageError(str(exc)) from exc

    def show() -> None:
        out.print(selfcheck_table(result, lang))
        for line in selfcheck_lines(result, lang):
            _say(out, line)

    code = {FAIL: EXIT_FAILED, NOISY: EXIT_NOISY}.get(result.status, EXIT_OK)
    code = _first_failure(code, _deliver(args, result.to_json(), show, out, err))
    if args.save is not None and result.measurements:
        code = _first_failure(code, _save(argparse.Namespace(save=args.save, store=args.store),
                                          list(result.measurements), err))
    return code


def _step_contract() -> str:
    from .step import CONTRACT

    return CONTRACT


_VARIANT_RE = re.compile(r"^(eager|compile(:[\w.\-]+)?)$")


def cmd_step(args: argparse.Namespace) -> int:
    from .devices import DeviceError, resolve_device
    from .render.step import step_table
    from .step import StepError, compare_steps

    out, err = _console(), _console(stderr=True)
    try:
        dev = resolve_device(args.device)
    except DeviceError as exc:
        raise UsageError(str(exc)) from exc
    if not _TARGET_RE.match(args.target):
        raise UsageError("TARGET must be module:build or file.py:build; " + _step_contract())
    flops: Any = args.flops
    if flops not in ("count", "6N"):
        try:
            flops = float(flops)
        except ValueError:
            raise UsageError(f"--flops must be count, 6N or a number; got {args.flops!r}") from None
        if not (math.isfinite(flops) and flops > 0):
            raise UsageError(f"--flops must be a positive, finite number of FLOPs per step; got {args.flops!r}")
    dtypes = [d.strip() for d in args.dtypes.split(",") if d.strip()]
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    bad = [d for d in dtypes if d not in ("fp32", "bf16", "fp16")]
    if not dtypes or bad:
        raise UsageError(f"--dtypes takes a comma list of fp32, bf16, fp16; got {args.dtypes!r}")
    bad = [v for v in variants if not _VARIANT_RE.match(v)]
    if not variants or bad:
        raise UsageError(f"--variants takes a comma list of eager, compile, compile:BACKEND; got {args.variants!r}")
    for name, items in (("--variants", variants), ("--dtypes", dtypes)):
        if len(set(items)) != len(items):
            raise UsageError(f"{name} lists {sorted(x for x in items if items.count(x) > 1)[0]!r} twice")
    _, build = _load_callable(args.target)
    peak_by_dtype: dict[str, float] | None = None
    if not args.no_peaks:
        from .roofline import peaks

        try:
            peak_by_dtype = {d: peaks(dev, "float32" if d == "fp32" else d, store=args.store).flops_per_s
                             for d in dtypes}
        except (ValueError, TypeError) as exc:
            raise UsageError(str(exc)) from exc
    try:
        sc = compare_steps(
            build, variants=variants, dtypes=dtypes, device=dev, steps=args.steps,
            warmup=args.warmup, micro_batch=args.micro_batch, seq_len=args.seq_len, grad_accum=args.grad_accum,
            world_size=args.world_size, flops_per_step=flops, measured_peak=peak_by_dtype)
    except StepError as exc:
        if exc.phase is None:
            raise UsageError(str(exc)) from exc
        _say(err, f"error: {exc}")
        return EXIT_FAILED
    except (ValueError, TypeError) as exc:
        raise UsageError(str(exc)) from exc
    if args.json:
        out.file.write(sc.to_json() + "\n")
        return EXIT_OK
    out.print(step_table(sc.steps, sc.comparison))
    for line in str(sc).splitlines():
        _say(out, line)
    return EXIT_FAILED if any(f.severity == "error" for f in sc.findings) else EXIT_OK


def cmd_kernel(args: argparse.Namespace) -> int:
    from rich.table import Table

    from .profiling.kernels import decode_kernel
    from .render.text import cell

    infos = [decode_kernel(n) for n in args.names]
    out = _console()
    if args.json:
        out.file.write(_dumps([i.to_dict() for i in infos]) + "\n")
        return EXIT_OK
    t = Table()
    for c in ("name", "library", "op", "arch", "dtype", "tile", "layout", "tensor cores", "fused ops"):
        t.add_column(c, overflow="fold")
    for i in infos:
        d = i.to_dict()
        t.add_row(*(cell(d[k] or "") for k in ("name", "library", "op", "arch", "dtype", "tile", "layout")),
                  "" if d["tensor_cores"] is None else str(d["tensor_cores"]).lower(),
                  cell(",".join(str(x) for x in (d["fused_ops"] or ()))))  # type: ignore[attr-defined]
    out.print(t)
    return EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    from .loading import LoadError, load_targets
    from .render.report import report, write

    _check_destination(args.output, "report")  # before reading anything
    try:
        results = load_targets(list(args.targets), args.store)
        html = report(results, lang=args.lang, theme=args.theme, title=args.title)
    except (LoadError, ValueError, TypeError) as exc:
        raise UsageError(str(exc)) from exc
    path = write(args.output, html)  # whole or not at all; DestinationError is reported in one line
    print(f"wrote {path} ({len(results)} result(s), {len(html) / 1024:.0f} KiB, lang {args.lang})", file=sys.stderr)
    return EXIT_OK


@contextmanager
def _exits_are_failures() -> Iterator[None]:
    """While measurefirst runs the user's code, ``os._exit()`` raises :class:`UserExit` instead of
    ending the process with the code's exit status (a forked child still exits for real)."""
    real = os._exit
    pid = os.getpid()

    def guarded(status: int) -> NoReturn:
        if os.getpid() != pid:
            real(status)
        raise UserExit(f"the code called os._exit({status!r}); code under measurement must return, not exit")

    setattr(os, "_exit", guarded)
    try:
        yield
    finally:
        setattr(os, "_exit", real)


def _error(text: str) -> None:
    from .render.text import plain

    print(f"error: {plain(text)}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """The ``measurefirst`` command. Returns the exit status (see the module docstring)."""
    global _SIGINT_COUNT
    _SIGINT_COUNT = 0
    previous: Any = None
    in_main_thread = threading.current_thread() is threading.main_thread()
    try:
        if in_main_thread:
            previous = signal.signal(signal.SIGINT, _on_sigint)
        return _main(argv)
    except KeyboardInterrupt:
        if _ctrl_c():
            print("interrupted", file=sys.stderr)
            return EXIT_INTERRUPTED
        _error("the code under test raised KeyboardInterrupt itself (no Ctrl-C was pressed); code under "
               "measurement must not raise it")
        return EXIT_FAILED
    finally:
        if in_main_thread and previous is not None:
            signal.signal(signal.SIGINT, previous)


def cmd_collectives(args: argparse.Namespace) -> int:
    from .distributed.cli import cmd_collectives as run

    return run(args)


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except UsageError as exc:
        _error(str(exc))
        return EXIT_USAGE
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    from .safeio import DestinationError
    from .store import StoreError

    commands = {"bench": cmd_bench, "compare": cmd_compare, "runs": cmd_runs, "history": cmd_history,
                "sweep": cmd_sweep, "peaks": cmd_peaks, "profile": cmd_profile, "kernel": cmd_kernel,
                "doctor": cmd_doctor, "demo": cmd_demo, "step": cmd_step, "selfcheck": cmd_selfcheck,
                "collectives": cmd_collectives, "report": cmd_report}
    try:
        with _exits_are_failures():
            return commands[args.command](args)
    except (UsageError, StoreError, DestinationError) as exc:
        _error(str(exc))
        return EXIT_USAGE
    except (SetupFailed, UserExit) as exc:
        _error(str(exc))
        return EXIT_FAILED
    except SystemExit as exc:  # argparse is done: this came from the code under test
        _error(f"the code under test called sys.exit({exc.code!r}); code under measurement must return, not exit")
        return EXIT_FAILED
