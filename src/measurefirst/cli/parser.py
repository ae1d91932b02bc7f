"""The ``measurefirst`` command line's arguments: every command, option, default and choice. The
defaults and the choices are the library's own (:mod:`measurefirst.results.defaults`), so each is written
once; every number is checked here, at the boundary. Building the parser imports nothing heavy.

The parser is assembled here from its parts: the argument types (:mod:`.parser_types`), what the
commands share (:mod:`.parser_common`), and the commands by group: timing code (:mod:`.parser_timing`),
where the time goes (:mod:`.parser_analysis`), checks and shows (:mod:`.parser_checks`) and saved
results (:mod:`.parser_history`).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import NoReturn, Sequence

from ..results.errors import UsageError
from .parser_analysis import VARIANT_RE as VARIANT_RE, _add_kernel, _add_profile, _add_step, _add_sweep
from .parser_checks import _add_demo, _add_doctor, _add_peaks, _add_selfcheck
from .parser_common import _common, _sub
from .parser_history import _add_history, _add_publish, _add_report, _add_runs
from .parser_timing import KIND_DEFAULT as KIND_DEFAULT, _add_bench, _add_bisect, _add_compare
from .parser_types import _at_least as _at_least, _fraction as _fraction, _seconds as _seconds


class Parser(argparse.ArgumentParser):
    """argparse, with its errors raised as one-line :class:`UsageError` (exit 2) instead of a usage
    block on stderr."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message} (see {self.prog} --help)")


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
