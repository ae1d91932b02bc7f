"""Running the code under test for the command line: its failures, ``sys.exit()`` and Ctrl-C keep what
was measured so far (marked incomplete) and become an exit code, with one line saying why.

A Ctrl-C is told apart from the code under test raising ``KeyboardInterrupt`` itself by counting
SIGINTs: each command has its own :class:`CtrlC`, which counts while :meth:`CtrlC.counted` is active and is
handed to the runs of the code under test (the simulated clock's ``interrupt_at`` stands for a Ctrl-C).
Nothing here measures.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from contextlib import contextmanager
from argparse import Namespace
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

from .emit import OutputClosed, say, silence_stdout

if TYPE_CHECKING:  # pragma: no cover
    from ..results.protocol import Result
    from ..render.views import Options
from ..results.errors import StoreError, UsageError
from ..tools.targets import SetupFailed, UserExit, exits_are_failures

#: The exit statuses of the command line: success, the measured code failed (or a selfcheck check
#: failed), bad usage or input, selfcheck: too noisy to judge, interrupted.
EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_NOISY, EXIT_INTERRUPTED = 0, 1, 2, 3, 130

class CtrlC:
    """The Ctrl-Cs of one command: the SIGINTs that came while :meth:`counted` was active."""

    def __init__(self) -> None:
        self.sigints = 0

    def _on_sigint(self, signum: int, frame: Any) -> None:
        """The first Ctrl-C raises ``KeyboardInterrupt``; a later one, which comes while the first is being
        handled (what was measured kept and shown), is counted and ignored, so that it cannot lose the partial
        results or end the process by the signal instead of with EXIT_INTERRUPTED. The run cannot hang on it:
        the budget bounds what is left."""
        self.sigints += 1
        if self.sigints == 1:
            signal.default_int_handler(signum, frame)

    @contextmanager
    def counted(self) -> Iterator["CtrlC"]:
        """Count Ctrl-Cs (SIGINT still raises ``KeyboardInterrupt``) until the block ends; the previous
        handler is restored. Outside the main thread no handler can be installed: nothing is counted."""
        main_thread = threading.current_thread() is threading.main_thread()
        previous = signal.signal(signal.SIGINT, self._on_sigint) if main_thread else None
        try:
            yield self
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)

    def pressed(self, simulated: bool = False) -> bool:
        """Whether the KeyboardInterrupt being handled came from Ctrl-C (a SIGINT), not from the code under
        test raising it; on the simulated clock an interruption stands for a Ctrl-C."""
        return self.sigints > 0 or simulated


def first(code: int, other: int) -> int:
    """``code`` unless it is success, then ``other``: the first failure wins."""
    return code if code != EXIT_OK else other


def run(call: Callable[[], Any], who: tuple[str, str], *, ctrl_c: CtrlC | None = None, simulated: bool = False,
        lang: str = "en") -> tuple[Any, int]:
    """``call()`` and EXIT_OK; or, when the code under test fails or Ctrl-C stops it, what was measured
    so far (marked incomplete, ``None`` when nothing was) and the exit code, with one line in ``lang``
    saying why (the failure's own message stays as it was raised). ``who`` names the code under test: a
    ``who_`` word of the vocabulary and a label (``("benchmark", "matmul")``). ``ctrl_c``: the command's
    Ctrl-Cs (None: none counted, so a ``KeyboardInterrupt`` is the code's own unless ``simulated``)."""
    from ..measure.engine import BenchmarkError, Interrupted
    from ..render.words import word

    pressed = (ctrl_c or CtrlC()).pressed

    code_words = word("who_" + who[0], lang, label=who[1])

    def failed(exc: BaseException) -> None:
        hint = word("hint_unbound_local", lang) if isinstance(exc.__cause__, UnboundLocalError) else ""
        say(word("failed_line", lang, error=exc, hint=hint))

    try:
        return call(), EXIT_OK
    except BenchmarkError as exc:
        failed(exc)
        return exc.partial, EXIT_FAILED
    except Interrupted as exc:
        if pressed(simulated):
            say(word("interrupted_partial", lang))
            return exc.partial, EXIT_INTERRUPTED
        say(word("raised_interrupt", lang, who=code_words))
        return exc.partial, EXIT_FAILED
    except KeyboardInterrupt:
        say(word("interrupted", lang) if pressed(simulated) else word("code_raised_interrupt", lang))
        return None, EXIT_INTERRUPTED if pressed(simulated) else EXIT_FAILED
    except RuntimeError as exc:
        from ..measure.counting import CountError
        from ..profiling import ProfileError
        from ..tools.step import StepError

        if isinstance(exc, CountError):  # no instruction counter here: say which to install
            raise UsageError(str(exc)) from exc
        if isinstance(exc, (StepError, ProfileError)):  # the code under test raised, or the input is wrong
            if (exc.phase if isinstance(exc, StepError) else exc.label) in (None, ""):
                raise UsageError(str(exc)) from exc
            failed(exc)
            return None, EXIT_FAILED
        raise
    except SystemExit as exc:
        say(word("called_exit", lang, who=code_words, code=repr(exc.code)))
        return None, EXIT_FAILED


def lang_of(args: Any) -> str:
    """The language a command speaks: its ``--lang``, else the locale's."""
    from ..render.words import default_lang

    return getattr(args, "lang", None) or default_lang()


def error(text: str, lang: str = "en") -> None:
    """One error line on stderr (markup and control characters taken out); ``text`` is an error's own
    message, as it was raised."""
    from ..render.text import plain
    from ..render.words import word

    print(word("error_line", lang, error=plain(text)), file=sys.stderr)


@contextmanager
def progress_shown(args: Any) -> Iterator[None]:
    """A progress line on stderr while a command works (:mod:`measurefirst.measure.progress`): only when stderr
    is a terminal, on rank 0, and neither ``--quiet`` nor ``--json`` (whose reader wants the streams clean)."""
    if (getattr(args, "quiet", False) or getattr(args, "json", False) or not sys.stderr.isatty()
            or os.environ.get("RANK", "0") != "0"):  # under torchrun, rank 0 speaks for the group
        yield
        return
    from ..measure.progress import showing
    from ..render.progress import ProgressLine

    with ProgressLine(lang_of(args)) as line, showing(line):
        yield


def command(parse: Callable[[], Namespace | None], call: Callable[[Namespace], int]) -> int:
    """A command's exit status: ``call(parse())``, with Ctrl-C counted (the command's :class:`CtrlC` handed
    down as ``args.ctrl_c``, for :func:`run`); bad input (an option, a file, a
    device...) is one error line and EXIT_USAGE, a failure or ``sys.exit()`` of the code under test one
    line and EXIT_FAILED, Ctrl-C EXIT_INTERRUPTED. ``parse`` returns ``None`` when there is nothing to
    run (help was printed): EXIT_USAGE. argparse's own exits (``--help``, ``--version``) pass through.
    The lines are in the command's language (:func:`lang_of`)."""
    from ..render.words import word

    lang = lang_of(None)
    ctrl_c = CtrlC()
    try:
        with ctrl_c.counted():
            try:
                args = parse()
            except UsageError as exc:
                error(str(exc), lang)
                return EXIT_USAGE
            if args is None:
                return EXIT_USAGE
            args.ctrl_c = ctrl_c
            lang = lang_of(args)
            try:
                with exits_are_failures(), progress_shown(args):
                    return call(args)
            except (OutputClosed, BrokenPipeError):  # the reader of stdout left (`| head`): nothing more to say
                silence_stdout()
                return EXIT_OK
            except (UsageError, StoreError, ValueError, TypeError) as exc:
                error(str(exc), lang)
                return EXIT_USAGE
            except (SetupFailed, UserExit) as exc:
                error(str(exc), lang)
                return EXIT_FAILED
            except SystemExit as exc:  # argparse is done: this came from the code under test
                print(word("called_exit", lang, who=word("who_code", lang), code=repr(exc.code)), file=sys.stderr)
                return EXIT_FAILED
    except KeyboardInterrupt:
        if ctrl_c.pressed():
            print(word("interrupted", lang), file=sys.stderr)
            return EXIT_INTERRUPTED
        print(word("raised_interrupt", lang, who=word("who_code", lang)), file=sys.stderr)
        return EXIT_FAILED


def emit_results(args: Namespace, results: Sequence["Result"], code: int = EXIT_OK,
                 options: "Options | None" = None) -> int:
    """The one way out of every command that produces results (see :mod:`measurefirst.cli.emit`), in the
    language of ``--lang`` (or the locale)."""
    from dataclasses import replace

    from .emit import emit
    from ..render.views import Options

    options = replace(options or Options(), lang=lang_of(args))
    ok = not results or emit(results, json=getattr(args, "json", False), output=getattr(args, "output", None),
                             save=getattr(args, "save", None), store=getattr(args, "store", None), options=options)
    return first(code, EXIT_OK if ok else EXIT_USAGE)


def run_command(args: Namespace, who: tuple[str, str], call: Callable[[], Any]) -> tuple[Any, int]:
    """:func:`run` with the command's Ctrl-C handling, simulated clock and language."""
    return run(call, who, ctrl_c=getattr(args, "ctrl_c", None), simulated=bool(getattr(args, "simulate", None)),
               lang=lang_of(args))
