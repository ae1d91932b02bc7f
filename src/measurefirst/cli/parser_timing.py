"""The arguments of the commands that time code: ``bench`` (statements or functions), ``compare``
(candidates interleaved, saved results, or code against code) and ``bisect`` (the first slower commit)."""

from __future__ import annotations

import argparse
from typing import Any

from ..results import defaults as D
from .parser_common import _common, _h, _labels, _lang, _pct, _stopping, _sub, _timer
from .parser_types import _at_least, _fraction, _seconds, _seconds_or_zero

#: ``--fail-if-slower`` given alone: each kind's default threshold (argparse converts a string const).
KIND_DEFAULT = -1.0


def _add_bench(sub: Any, lang: str) -> None:
    """``measurefirst bench``."""
    b = _sub(sub, "bench", lang)
    b.add_argument("targets", nargs="*", metavar="TARGET", help=_h(lang, "bench.targets"))
    _common(b, setup=True, output=True, save="NAME", lang=True)
    _stopping(b, "bench", D.PRECISION, D.BUDGET_S, D.MIN_TIME_S)
    b.add_argument("--min-samples", type=_at_least(1), default=D.MIN_SAMPLES,
                   help=_h(lang, "bench.min_samples", default=D.MIN_SAMPLES))
    b.add_argument("--max-samples", type=_at_least(1), default=None, help=_h(lang, "bench.max_samples"))
    b.add_argument("--warmup", type=_at_least(0), default=None, help=_h(lang, "bench.warmup"))
    b.add_argument("--warmup-time", dest="warmup_max_time", type=_seconds_or_zero, default=D.WARMUP_MAX_TIME_S,
                   help=_h(lang, "bench.warmup_time", default=f"{D.WARMUP_MAX_TIME_S:g}"))
    b.add_argument("--trials", type=_at_least(1), default=None, help=_h(lang, "bench.trials"))
    b.add_argument("--repeats", type=_at_least(1), default=None, help=_h(lang, "bench.repeats", default=D.REPEATS))
    b.add_argument("-n", "--number", type=_at_least(1), default=None, help=_h(lang, "bench.number"))
    b.add_argument("--cold-cache", action="store_true", help=_h(lang, "bench.cold_cache"))
    b.add_argument("--cuda-graph", action="store_true", help=_h(lang, "bench.cuda_graph"))
    _timer(b)
    b.add_argument("--no-stop-early", dest="stop_early", action="store_false", help=_h(lang, "bench.no_stop_early"))
    b.add_argument("--count", choices=D.COUNT_EVENTS, default=None, help=_h(lang, "bench.count"))
    b.add_argument("--keep-preempted", dest="discard_preempted", action="store_false",
                   help=_h(lang, "bench.keep_preempted"))
    b.add_argument("--processes", type=_at_least(1, D.MAX_PROCESSES, ": each is a fresh interpreter"), default=None,
                   metavar="K", help=_h(lang, "bench.processes"))
    _compiling(b, several=False)
    _labels(b)
    b.add_argument("--simulate", default=None, help=argparse.SUPPRESS)  # seeded simulated clock, for tests


def _compiling(p: argparse.ArgumentParser, *, several: bool) -> None:
    """``--compile [MODE]`` (bench) or ``--compile [MODE ...]`` (compare), and ``--compile-limit``."""
    from ..measure.compiling import MODES

    lang = _lang(p)
    if several:
        def modes(text: str) -> list[str]:
            out = [m.strip() for m in text.split(",") if m.strip()]
            bad = [m for m in out if m not in MODES]
            if bad or not out:
                raise argparse.ArgumentTypeError(f"invalid mode {bad[0] if bad else text!r} (modes: {', '.join(MODES)})")
            return out

        p.add_argument("--compile", nargs="?", type=modes, const=[], default=None, metavar="MODE[,MODE...]",
                       help=_h(lang, "compile.several", modes=", ".join(MODES)))
    else:
        p.add_argument("--compile", nargs="?", choices=MODES, const="default", default=None, metavar="MODE",
                       help=_h(lang, "compile.one", modes=", ".join(MODES)))
    if not several:
        p.add_argument("--fail-on-recompile", action="store_true", help=_h(lang, "compile.fail_on_recompile"))
    p.add_argument("--compile-limit", type=_seconds, default=D.COMPILE_LIMIT_S, metavar="SECONDS",
                   help=_h(lang, "compile.limit", default=f"{D.COMPILE_LIMIT_S:g}"))


def _add_compare(sub: Any, lang: str) -> None:
    """``measurefirst compare``."""
    c = _sub(sub, "compare", lang)
    c.add_argument("targets", nargs="+", metavar="TARGET")
    _common(c, setup=True, output=True, save="PREFIX", lang=True)
    _stopping(c, "compare", D.COMPARE_PRECISION, D.COMPARE_BUDGET_S, D.COMPARE_MIN_TIME_S)
    c.add_argument("--block-time", type=_seconds, default=D.BLOCK_TIME_S,
                   help=_h(lang, "compare.block_time", default=f"{D.BLOCK_TIME_S:g}"))
    c.add_argument("--order", choices=D.ORDERS, default=D.ORDERS[0], help=_h(lang, "compare.order"))
    c.add_argument("--baseline", default=None, help=_h(lang, "compare.baseline"))
    _labels(c)
    c.add_argument("--cold-cache", action="store_true", help=_h(lang, "compare.cold_cache"))
    _timer(c)
    _compiling(c, several=True)
    c.add_argument("--fail-if-slower", type=_fraction, nargs="?", const=KIND_DEFAULT, default=None, metavar="FRACTION",
                   help=_h(lang, "compare.fail_if_slower"))
    c.add_argument("--run-to-run", type=_fraction, default=None, metavar="FRACTION",
                   help=_h(lang, "compare.run_to_run", default=_pct(D.RUN_TO_RUN_CV)))
    c.add_argument("--against", default=None, metavar="REF", help=_h(lang, "compare.against"))
    c.add_argument("--against-pairs", type=_at_least(1), default=None, metavar="N",
                   help=_h(lang, "compare.against_pairs"))
    c.add_argument("--simulate", default=None, help=argparse.SUPPRESS)  # "call=..;call=.." per candidate


def _add_bisect(sub: Any, lang: str) -> None:
    """``measurefirst bisect``."""
    b = _sub(sub, "bisect", lang)
    b.add_argument("good", metavar="GOOD", help=_h(lang, "bisect.good"))
    b.add_argument("bad", metavar="BAD", help=_h(lang, "bisect.bad"))
    b.add_argument("target", metavar="TARGET", nargs="+", help=_h(lang, "bisect.target"))
    _common(b, setup=True, output=True, save="NAME", lang=True)
    b.add_argument("-b", "--budget", type=_seconds, default=D.BISECT_BUDGET_S,
                   help=_h(lang, "bisect.budget", default=f"{D.BISECT_BUDGET_S:g}"))
    b.add_argument("--against-pairs", type=_at_least(1), default=None, metavar="N",
                   help=_h(lang, "bisect.against_pairs"))
