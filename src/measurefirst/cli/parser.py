"""The ``measurefirst`` command line's arguments: every command, option, default and choice. The
defaults and the choices are the library's own (:mod:`measurefirst.results.defaults`), so each is written
once; every number is checked here, at the boundary. Building the parser imports nothing heavy.

The parser is assembled here from its parts: the argument types (:mod:`.parser_types`), what the
commands share (:mod:`.parser_common`), and the commands by group: timing code (:mod:`.parser_timing`),
where the time goes (:mod:`.parser_analysis`), checks and shows (:mod:`.parser_checks`) and saved
results (:mod:`.parser_history`). The help is in the language the command line asks for (``--lang``, else
the locale: :mod:`.help_text`), its words in the words table.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import Any, NoReturn, Sequence

from ..render.words import LANGS, word
from ..results.errors import UsageError
from .help_text import formatter_for, help_lang, leading_lang
from .parser_analysis import VARIANT_RE as VARIANT_RE, _add_kernel, _add_profile, _add_step, _add_sweep
from .parser_checks import _add_demo, _add_doctor, _add_peaks, _add_selfcheck
from .parser_common import _common, _sub
from .parser_history import _add_history, _add_publish, _add_report, _add_runs
from .parser_timing import KIND_DEFAULT as KIND_DEFAULT, _add_bench, _add_bisect, _add_compare
from .parser_types import _at_least as _at_least, _fraction as _fraction, _seconds as _seconds


class Parser(argparse.ArgumentParser):
    """argparse, with its errors raised as one-line :class:`UsageError` (exit 2) instead of a usage
    block on stderr; its help in ``lang`` (argparse's own words too, from the words table; English is
    argparse's, as it always was)."""

    def __init__(self, *args: Any, lang: str = LANGS[0], **kwargs: Any) -> None:
        self.lang = lang  # before argparse adds -h
        kwargs["formatter_class"] = formatter_for(kwargs.get("formatter_class", argparse.HelpFormatter), lang)
        super().__init__(*args, **kwargs)
        if lang != LANGS[0]:
            self._positionals.title = word("help.argparse.positionals", lang)
            self._optionals.title = word("help.argparse.options", lang)

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        action = super().add_argument(*args, **kwargs)
        if self.lang != LANGS[0] and isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
            own = "help" if isinstance(action, argparse._HelpAction) else "version"
            action.help = word(f"help.argparse.{own}", self.lang)
        return action

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
    """The parsed arguments; None (after printing the help) when no command is given. ``--lang`` before the
    command is the command's default language (``measurefirst --lang zh bench`` as ``bench --lang zh``)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    first = leading_lang(argv)
    if first is not None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for command in action._name_parser_map.values():
                    command.set_defaults(lang=first)
    args, extras = parser.parse_known_args(_attach_negative_values(argv))
    if extras:
        _intermixed(parser, args, extras, argv)
    vars(args).pop("first_lang", None)  # read above, before the command's defaults were set
    vars(args).pop("_given_once", None)  # parser_types.Once's bookkeeping
    if args.command is None:
        parser.print_help()
        return None
    _consistent(args)
    return _anchored(args)


def _intermixed(parser: argparse.ArgumentParser, args: argparse.Namespace, extras: list[str],
                argv: "Sequence[str]") -> None:
    """Inputs given after an option (``report a.json -o r.html b.json``: argparse's "unrecognized
    arguments: b.json") join the command's list of them, where it has one list and none of them looks
    like an option; anything else is argparse's error, as before."""
    command = next((a.choices.get(str(args.command)) for a in parser._actions
                    if isinstance(a, argparse._SubParsersAction) and isinstance(a.choices, dict)), None)
    lists = [a for a in (command._actions if command is not None else [])
             if not a.option_strings and a.nargs in ("+", "*")]
    if len(lists) != 1 or any(e.startswith("-") for e in extras) or "--" in argv:
        parser.error(f"unrecognized arguments: {' '.join(extras)}")
    (action,) = lists
    convert = action.type if callable(action.type) else str
    assert command is not None
    try:
        values = [convert(e) for e in extras]
    except (TypeError, ValueError, argparse.ArgumentTypeError) as exc:
        command.error(f"argument {action.metavar or action.dest}: {exc}")
    setattr(args, action.dest, list(getattr(args, action.dest) or []) + values)


def _consistent(args: argparse.Namespace) -> None:
    """Options that contradict each other are refused, not let one win without a word (issue 38:
    ``--min-time 1e9 --budget 0.3`` ran 0.3 s): a ``--min-time`` typed longer than the ``--budget``; more
    ``--processes`` than the budget can give a warm-up each."""
    from ..measure.workers import share_refusal
    from .parser_types import GivenDefault

    min_time, budget = getattr(args, "min_time", None), getattr(args, "budget", None)
    processes = getattr(args, "processes", None) if args.command == "bench" else None
    refused = (share_refusal(processes, budget, "--budget")
               if isinstance(processes, int) and isinstance(budget, (int, float)) else None)
    if refused is not None:
        raise UsageError(refused)
    if (isinstance(min_time, float) and not isinstance(min_time, GivenDefault) and isinstance(budget, (int, float))
            and min_time > budget):
        raise UsageError(f"--min-time {min_time:g} s is longer than --budget {budget:g} s: the budget ends sampling "
                         f"first, so the minimum would not hold; give --min-time at most {budget:g} s, or a larger "
                         f"--budget")


def command_lang(argv: "Sequence[str] | None") -> str:
    """The language of the help of the command line ``argv`` (``sys.argv[1:]`` when None): see
    :func:`measurefirst.cli.help_text.help_lang`."""
    return help_lang(sys.argv[1:] if argv is None else argv)


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

def build_parser(version: str, lang: str = LANGS[0]) -> argparse.ArgumentParser:
    """The parser, its help in ``lang`` (it imports neither numpy, torch nor the store: ``--help`` answers
    at once)."""
    parser = Parser(prog="measurefirst", description=word("help.top.description", lang),
                    epilog=word("help.top.epilog", lang), lang=lang)
    parser.add_argument("--version", action="version", version=f"%(prog)s {version}")
    # the help's language, given before the command (a command's own --lang comes after it): not listed,
    # so that the help without it reads as it always did
    parser.add_argument("--lang", dest="first_lang", choices=LANGS, default=argparse.SUPPRESS,
                        help=argparse.SUPPRESS)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add in (_add_bench, _add_compare, _add_bisect, _add_runs, _add_sweep, _add_peaks, _add_profile, _add_doctor,
                _add_demo, _add_step, _add_kernel, _add_selfcheck, _add_history, _add_report, _add_publish):
        add(sub, lang)

    from .distributed import add_parser as add_collectives

    add_collectives(sub, _sub, _common, _seconds, lang)
    return parser
