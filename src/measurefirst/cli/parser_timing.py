"""The arguments of the commands that time code: ``bench`` (statements or functions), ``compare``
(candidates interleaved, saved results, or code against code) and ``bisect`` (the first slower commit)."""

from __future__ import annotations

import argparse
from typing import Any

from ..results import defaults as D
from .parser_common import _common, _labels, _pct, _stopping, _sub, _timer
from .parser_types import _at_least, _fraction, _seconds, _seconds_or_zero

#: ``--fail-if-slower`` given alone: each kind's default threshold (argparse converts a string const).
KIND_DEFAULT = -1.0


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
