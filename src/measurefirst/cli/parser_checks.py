"""The arguments of the commands that check and show: ``doctor`` (a function's pitfalls), ``selfcheck``
(measurefirst's own accuracy, the machine's noise profile), ``peaks`` (the machine's measured peaks) and
``demo`` (the lecture, runnable)."""

from __future__ import annotations

import argparse
from typing import Any

from ..results import defaults as D
from .parser_common import _STORE_HELP, _common, _sub
from .parser_types import _at_least, _seconds


def _add_peaks(sub: Any) -> None:
    """``measurefirst peaks``."""
    k = _sub(sub, "peaks", "measure (or show the cached) matmul FLOP/s and copy bandwidth",
             "The machine's measured peaks: a large matrix product's FLOP/s and a large copy's bytes/s on the "
             "device and dtype, cached in the results store per machine, device, dtype and thread count.")
    k.add_argument("--dtype", default=D.DTYPE,
                   help=f"{D.DTYPE} (default), float16, bfloat16, float64, or fp32, fp16, bf16, fp64")
    k.add_argument("--refresh", action="store_true", help="measure again instead of using the cache")
    _common(k, store=_STORE_HELP + "; holds the cache")


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
