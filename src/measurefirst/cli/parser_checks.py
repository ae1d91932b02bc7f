"""The arguments of the commands that check and show: ``doctor`` (a function's pitfalls), ``selfcheck``
(measurefirst's own accuracy, the machine's noise profile), ``peaks`` (the machine's measured peaks) and
``demo`` (the lecture, runnable)."""

from __future__ import annotations

import argparse
from typing import Any

from ..results import defaults as D
from .parser_common import _common, _h, _sub
from .parser_types import _at_least, _seconds


def _add_peaks(sub: Any, lang: str) -> None:
    """``measurefirst peaks``."""
    k = _sub(sub, "peaks", lang)
    k.add_argument("--dtype", default=D.DTYPE, help=_h(lang, "peaks.dtype", dtype=D.DTYPE))
    k.add_argument("--refresh", action="store_true", help=_h(lang, "peaks.refresh"))
    _common(k, store="store_cache")


def _add_doctor(sub: Any, lang: str) -> None:
    """``measurefirst doctor``."""
    dr = _sub(sub, "doctor", lang)
    dr.add_argument("target", metavar="TARGET")
    _common(dr, setup=True, output=True, save="NAME", lang=True)
    dr.add_argument("-b", "--budget", type=_seconds, default=D.DOCTOR_BUDGET_S,
                    help=_h(lang, "doctor.budget", default=f"{D.DOCTOR_BUDGET_S:g}"))
    dr.add_argument("--strict", action="store_true", help=_h(lang, "doctor.strict"))
    dr.add_argument("--simulate", default=None, help=argparse.SUPPRESS)


def _add_demo(sub: Any, lang: str) -> None:
    """``measurefirst demo``."""
    dm = _sub(sub, "demo", lang)
    dm.add_argument("which", nargs="?", choices=(*D.DEMOS, "all"), default="all", help=_h(lang, "demo.which"))
    _common(dm, json=False, store="", lang=True)
    dm.add_argument("--quick", action="store_true", help=_h(lang, "demo.quick"))
    dm.add_argument("--json", action="store_true", help=_h(lang, "demo.json"))


def _add_selfcheck(sub: Any, lang: str) -> None:
    """``measurefirst selfcheck``."""
    sc = _sub(sub, "selfcheck", lang)
    _common(sc, output=True, save="PREFIX", lang=True)
    sc.add_argument("--quick", action="store_true", help=_h(lang, "selfcheck.quick"))
    sc.add_argument("--noise", action="store_true", help=_h(lang, "selfcheck.noise"))
    sc.add_argument("--processes", type=_at_least(2, D.MAX_PROCESSES, ": each is a fresh interpreter"), default=None,
                    metavar="P", help=_h(lang, "selfcheck.processes"))
    sc.add_argument("--threads", type=_at_least(1), default=None, metavar="N", help=_h(lang, "selfcheck.threads"))
    sc.add_argument("--simulate", default=None, help=argparse.SUPPRESS)  # seeded simulated clock, for tests
    sc.add_argument("--fault", type=float, default=None, help=argparse.SUPPRESS)  # scale every timer reading
