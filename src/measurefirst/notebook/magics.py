"""``%mf`` and ``%%mf``: measurefirst where people try an idea first, instead of ``%timeit``.

``%timeit`` in a notebook times a statement with the notebook's variables, but takes no care of the
device (a CUDA call is timed as its launch), reports a best of loops that hides the noise, and keeps
nothing. ``%mf`` times the same statement with :func:`measurefirst.benchmark` (warm-up, device
synchronization, calibrated loops, an interval), and shows the result as the report does:

* ``%mf [options] STATEMENT``: one statement (the notebook's variables are read; names it assigns stay
  inside, as with ``%timeit``); ``%%mf [options] [SETUP]`` times the cell, the rest of its first line run
  once before as setup.
* ``%mf compare [options] "A" "B" ...``: statements interleaved, with a verdict (:func:`measurefirst.compare`).
* ``%mf profile [options] STATEMENT``: where the time goes, op by op (:func:`measurefirst.profile`).
* Options: ``-s SETUP`` (repeatable), ``-b BUDGET`` seconds, ``-p PRECISION`` (``1%`` or ``0.01``), ``-d
  DEVICE``, ``-w WARMUP`` and ``-t TRIALS`` (fixed counts: the classic loop), ``-n NUMBER`` (calls per
  sample), ``-l LABEL``, ``--save NAME`` (the results store), ``-o FILE`` (the result as JSON, written whole
  or not at all), ``--json`` (printed), ``-r`` (return the result object), ``-q`` (no progress line), ``--lang zh``.

While it measures, the cell shows the progress line the terminal shows (the same events and words),
updated in place and emptied at the end.

Bad input is one line in the cell (``error: ...``), never a traceback of measurefirst's frames; code under
test that raises is one line naming its exception. Ctrl-C (the kernel's interrupt) shows what was measured
so far, marked incomplete, and returns it with ``-r``.
"""

from __future__ import annotations

import argparse
import io
import shlex
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

from IPython.core.magic import Magics, line_cell_magic, magics_class

from ..render.progress import ProgressLine
from ..results.errors import UsageError


class CellProgress(ProgressLine):
    """The progress line in the cell's output: the same events and words as the terminal's line, drawn in
    one output updated in place, emptied when the work ends (``-q`` turns it off)."""

    def _draw(self, text: str) -> None:
        from IPython import display

        show: Callable[..., Any] = getattr(display, "display")
        data = {"text/plain": text}
        if self._live is None:
            self._live = show(data, raw=True, display_id=True)
        else:
            self._live.update(data, raw=True)
        self._drawn = text

    def close(self) -> None:
        if self._live is not None:
            self._live.update({"text/plain": ""}, raw=True)
        self._drawn = ""


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting (a notebook cell must not end the kernel)."""

    def error(self, message: str) -> Any:
        raise UsageError(f"%mf: {message}")

    def exit(self, status: int = 0, message: str | None = None) -> Any:
        raise UsageError(f"%mf: {message.strip() if message else 'see %mf?'}")


def _parser() -> _Parser:
    from ..cli.parser import _at_least, _fraction, _seconds

    p = _Parser(prog="%mf", add_help=False)
    p.add_argument("-s", "--setup", action="append", default=[])
    p.add_argument("-b", "--budget", type=_seconds, default=None)
    p.add_argument("-p", "--precision", type=_fraction, default=None)
    p.add_argument("-d", "--device", default="auto")
    p.add_argument("-w", "--warmup", type=_at_least(0), default=None)
    p.add_argument("-t", "--trials", type=_at_least(1), default=None)
    p.add_argument("-n", "--number", type=_at_least(1), default=None)
    p.add_argument("-l", "--label", action="append", default=[])
    p.add_argument("--save", default=None)
    p.add_argument("-o", "--output", default=None)
    p.add_argument("--json", action="store_true")
    p.add_argument("-r", dest="ret", action="store_true")
    p.add_argument("-q", "--quiet", action="store_true")
    p.add_argument("--lang", choices=("en", "zh"), default="en")
    return p


def _token(text: str) -> tuple[str, int]:
    """The first shell word of ``text`` (quotes removed) and how many characters it took with the blanks
    after it; ``("", len)`` when nothing is left."""
    stream = io.StringIO(text)
    lex = shlex.shlex(stream, posix=True)
    lex.whitespace_split = True
    lex.commenters = ""
    try:
        word = lex.get_token()
    except ValueError as exc:
        raise UsageError(f"%mf: {exc} in {text!r}") from None
    return (word or ""), stream.tell()


def split_options(line: str) -> tuple[argparse.Namespace, str]:
    """The options at the start of ``line`` and the statement after them, as written (its quotes and
    spaces kept). Options end at the first word that is not one of them, or at ``--``."""
    parser = _parser()
    taking = {a for act in parser._actions for a in act.option_strings if act.nargs != 0}
    flags = {a for act in parser._actions for a in act.option_strings}
    rest, opts = line.strip(), []
    while rest:
        first = rest.split(None, 1)[0]
        key = first.split("=", 1)[0]
        if first == "--":
            rest = rest[2:].strip()
            break
        if key not in flags:
            break
        word, used = _token(rest)
        opts.append(word)
        rest = rest[used:].lstrip()
        if key in taking and "=" not in first:
            if not rest:
                raise UsageError(f"%mf: {first} needs a value")
            value, used = _token(rest)
            opts.append(value)
            rest = rest[used:].lstrip()
    return parser.parse_args(opts), rest.strip()


@magics_class
class MeasureMagics(Magics):
    """``%mf`` / ``%%mf`` (see the module docstring)."""

    @line_cell_magic
    def mf(self, line: str, cell: str | None = None) -> Any:
        from ..render.words import word

        lang = "en"
        try:
            head = line.strip().split(None, 1)
            verb = head[0] if head and head[0] in ("compare", "profile") else "bench"
            rest = head[1] if verb != "bench" and len(head) > 1 else ("" if verb != "bench" else line)
            opts, statement = split_options(rest)
            lang = opts.lang
            if cell is not None:  # %%mf: the cell is the statement, the rest of the line its setup
                if statement:
                    opts.setup.insert(0, statement)
                statement = cell
            return self._run(verb, opts, statement)
        except UsageError as exc:
            print(word("error_line", lang, error=exc), file=sys.stderr)
            return None

    # ----------------------------------------------------------------------------------------------
    def _namespace(self, opts: argparse.Namespace) -> dict[str, Any]:
        """A copy of the notebook's variables with the setup run in it (the notebook's own untouched)."""
        import textwrap

        ns = dict(self.shell.user_ns) if self.shell is not None else {}
        for s in opts.setup:
            try:
                exec(compile(textwrap.dedent(s), "<setup>", "exec"), ns)
            except SyntaxError as exc:
                raise UsageError(f"setup {s!r} is not valid Python: {exc.msg}") from None
            except Exception as exc:  # the user's setup failed: one line naming it
                raise UsageError(f"setup {s!r} raised {type(exc).__name__}: {exc}") from None
        return ns

    def _statements(self, verb: str, statement: str) -> list[str]:
        if verb == "compare":
            try:
                found = shlex.split(statement)
            except ValueError as exc:
                raise UsageError(f"%mf compare: {exc}; quote each statement: %mf compare \"a @ b\" \"torch.mm(a, b)\"")
            if len(found) < 2:
                raise UsageError("%mf compare takes two statements or more, each in quotes: "
                                 "%mf compare \"a @ b\" \"torch.mm(a, b)\"")
            return found
        if not statement.strip():
            raise UsageError(f"%mf {'' if verb == 'bench' else verb + ' '}needs a statement, e.g. %mf a @ a")
        return [statement]

    def _run(self, verb: str, opts: argparse.Namespace, statement: str) -> Any:
        from ..tools.targets import TargetError, load_target
        from ..measure.devices import DeviceError
        from ..measure.engine import BenchmarkError, Interrupted

        statements = self._statements(verb, statement)
        if opts.label and len(opts.label) != len(statements):
            raise UsageError(f"%mf: {len(opts.label)} -l/--label for {len(statements)} statement(s)")
        self._check_output(opts)
        ns = self._namespace(opts)
        fns: list[tuple[str, Callable[[], object]]] = []
        for i, s in enumerate(statements):
            try:
                label, fn = load_target(s, ns)
            except TargetError as exc:
                raise UsageError(str(exc)) from None
            fns.append((opts.label[i] if opts.label else label, fn))
        from ..measure.progress import showing

        try:
            with CellProgress(opts.lang) as line, showing(None if opts.quiet else line):
                result = self._measure(verb, opts, fns)
        except Interrupted as exc:
            result = exc.partial
            if result is None:
                raise UsageError("interrupted before anything was measured") from None
        except (BenchmarkError, DeviceError, ValueError, TypeError) as exc:
            raise UsageError(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from None
        self._keep(opts, result)
        if opts.json:
            print(result.to_json())
        elif not opts.ret:
            self._display(result)
        return result if opts.ret else None

    def _measure(self, verb: str, opts: argparse.Namespace, fns: list[tuple[str, Callable[[], object]]]) -> Any:
        from ..measure.engine import benchmark
        from ..profiling import profile
        from ..tools.compare import compare

        extra: dict[str, Any] = {}
        if opts.budget is not None:
            extra["budget"] = opts.budget
        if opts.precision is not None:
            extra["precision"] = opts.precision
        if verb == "compare":
            return compare(fns, device=opts.device, **extra)
        if verb == "profile":
            return profile(fns[0][1], device=opts.device, label=fns[0][0])
        for key in ("warmup", "trials", "number"):  # fixed counts: exact (the classic loop), or an error
            if getattr(opts, key) is not None:
                extra[key] = getattr(opts, key)
        return benchmark(fns[0][1], device=opts.device, label=fns[0][0], **extra)

    def _check_output(self, opts: argparse.Namespace) -> None:
        """``-o`` and ``--save`` checked before anything is measured."""
        from ..results.safeio import DestinationError, check_destination

        if opts.output is not None:
            try:
                check_destination(Path(opts.output), "output file (-o)")
            except DestinationError as exc:
                raise UsageError(str(exc)) from None

    def _keep(self, opts: argparse.Namespace, result: Any) -> None:
        """``-o FILE`` and ``--save NAME``: the result kept (an error here is said, the result still shown)."""
        from ..render.words import word
        from ..results.safeio import DestinationError, write_atomic
        from ..results.store import Store, StoreError

        if opts.output is not None:
            try:
                write_atomic(opts.output, result.to_json() + "\n", "output file")
            except DestinationError as exc:
                print(word("error_line", opts.lang, error=exc), file=sys.stderr)
        if opts.save is not None:
            try:
                with Store() as store:
                    store.save(result, opts.save)
            except (StoreError, ValueError) as exc:
                print(word("error_line", opts.lang, error=exc), file=sys.stderr)

    def _display(self, result: Any) -> None:
        from IPython import display

        show: Callable[[Any], None] = getattr(display, "display")
        show(result)
