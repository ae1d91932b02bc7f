"""The last stage of the command line (parse → library → renderer → emit): every command that
produces results lets them out by :func:`emit`. JSON (``--json``) or the results' renderers
(:mod:`measurefirst.render.views`) on stdout, then ``-o FILE`` (atomically), then ``--save [PREFIX]``
to the results store (:func:`measurefirst.results.store.to_save`). :func:`check` tests the destinations before
anything is measured; one that still fails afterwards is one line on stderr and costs none of the
results already shown.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:  # pragma: no cover
    from ..results.protocol import Result
    from ..render.views import Options, View


class OutputClosed(Exception):
    """Standard output was closed by its reader (``measurefirst bench ... | head -1``): what is left to print
    goes nowhere, but the results are still written (``-o``) and saved (``--save``)."""


def silence_stdout() -> None:
    """Point standard output at the null device, once its reader has gone, so that nothing more fails on it
    (Python's own flush at exit included)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # pragma: no cover - a stdout without a descriptor
        pass


def console(stderr: bool = False) -> Any:
    """A rich console on stdout (or stderr), ``MEASUREFIRST_WIDTH`` wide when not a terminal. A reader that
    closes the pipe is :class:`OutputClosed` (rich's own handling exits with status 1, which read as the code
    under test calling ``sys.exit(1)``; issue 38)."""
    from rich.console import Console

    from ..measure.progress import pause

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            silence_stdout()
            raise OutputClosed("standard output was closed")

    pause()  # a progress line on the terminal gives way to what is printed
    stream = sys.stderr if stderr else sys.stdout
    try:
        wanted = int(os.environ.get("MEASUREFIRST_WIDTH", "160"))
    except ValueError:
        wanted = 160
    return _Console(file=stream, width=None if stream.isatty() else max(40, min(wanted, 1000)), highlight=False,
                    soft_wrap=False)


def say(text: str, *, err: bool = True, style: str | None = None) -> None:
    """Print one line as it is (on stderr unless ``err`` is False): no markup, control characters escaped."""
    from ..render.text import plain

    console(err).print(plain(text), markup=False, style=style, soft_wrap=True)


def narrate(line: str) -> None:
    """One line of the lecture on stdout: a ``# heading`` in bold, any other line as it is."""
    if line.startswith("#"):
        say(line.lstrip("# ").strip(), err=False, style="bold")
    else:
        say(line, err=False)


def show(items: "View") -> None:
    """A view on stdout: its tables, and its lines as they are."""
    out = console()
    for item in items:
        if isinstance(item, str):
            say(item, err=False)
        else:
            out.print(item)


def check(output: Path | None, save: str | None, store: Path | None, *paths: tuple[Path | None, str],
          what: str = "output file (-o)", inputs: Sequence[tuple[Any, str]] = ()) -> None:
    """Before measuring: every file to write can be written and is neither the results store nor one
    of the command's ``inputs`` (``(path, what)`` pairs), and with ``save`` the store can be opened
    (created) for writing. Raises DestinationError or StoreError saying what to do."""
    from ..results.safeio import check_destination, check_not_inputs
    from ..results.store import Store, StoreError, default_path

    read = [(store if store is not None else default_path(), "results store"), *inputs]
    written: list[tuple[Any, str]] = []  # two outputs of one command are two files (-o t.json --trace t.json)
    for path, name in ((output, what), *paths):
        if path is not None:
            check_not_inputs(path, [*read, *written], name)
            check_destination(path, name)
            written.append((path, name))
    if save is not None:
        with Store(store) as st:
            if st.read_only:
                raise StoreError(f"cannot save: the results store {st.path} is read-only; choose a writable "
                                 f"file with --store PATH")


def read_files(args: Any) -> list[tuple[str, str]]:
    """The files a command reads (results files, scripts of ``file.py:fn`` targets) that exist: an
    output must not replace one of them."""
    found = []
    for target in [*(getattr(args, "targets", None) or []), *(getattr(args, "vs", None) or []),
                   getattr(args, "target", None)]:
        if isinstance(target, str):
            for path in dict.fromkeys((target, target.rsplit(":", 1)[0])):
                if path and os.path.isfile(path):
                    found.append((path, "input file"))
    return found


def check_args(args: Any, *paths: tuple[Any, str], what: str = "output file (-o)") -> None:
    """:func:`check` for a command's parsed arguments: its ``-o``, ``--save`` and ``--store``, the other
    ``paths`` it writes, and the files it reads (:func:`read_files`)."""
    check(getattr(args, "output", None), getattr(args, "save", None), getattr(args, "store", None), *paths, what=what,
          inputs=read_files(args))


def emit(results: Sequence["Result"], *, json: bool = False, output: Path | None = None, save: str | None = None,
         store: Path | None = None, options: "Options | None" = None) -> bool:
    """Show, write and save ``results``; False when a file or the store failed (said on stderr)."""
    from ..render.findings import with_words
    from ..render.views import Options, view
    from ..render.words import word
    from ..results.safeio import DestinationError, strict_json, write_atomic

    options = options or Options()
    text = ""
    if json or output is not None:  # the findings' data and their words; only when shown or written
        data = results[0].to_dict() if len(results) == 1 else [r.to_dict() for r in results]
        text = strict_json(with_words(data, options.lang), indent=2)
    try:
        if json:
            sys.stdout.write(text + "\n")
            sys.stdout.flush()
        else:
            show(view(results, options))
    except BrokenPipeError:  # the reader closed the pipe: the results are still written and saved below
        silence_stdout()
    except OutputClosed:  # the console silenced it already
        pass
    ok = True
    if output is not None:
        try:
            write_atomic(output, text + "\n", "output file")
        except DestinationError as exc:
            say(word("error_line", options.lang, error=exc))
            ok = False
    return (save_results(results, save, store, options.lang) if save is not None else True) and ok


def save_results(results: Sequence["Result"], prefix: str, store: Path | None, lang: str = "en") -> bool:
    """Save what ``--save PREFIX`` keeps of ``results``; when the store fails after measuring, the
    results go to a fallback file the error names (and False is returned). Said in ``lang``."""
    from ..render.words import word
    from ..results.store import Store, StoreError, keep_unsaved, to_save

    kept, names, empty = to_save(results, prefix)
    for label in empty:
        say(word("not_saved", lang, label=label))
    if not kept:
        return True
    try:
        with Store(store) as st:
            ids = st.save_many(kept, names=names)
    except (StoreError, OSError, ValueError) as exc:
        fallback = keep_unsaved(kept)
        where = word("kept_in", lang, path=fallback) if fallback else word("kept_nowhere", lang)
        say(word("save_failed", lang, error=exc, where=where))
        return False
    say(word("saved_runs", lang, n=len(ids), path=st.path, runs=word("list_comma", lang).join(f"#{i} {n}" for i, n in zip(ids, names))))
    return True


def write_plots(result: Any, base: str, lang: str) -> bool:
    """Write a sweep's plots (``--plot BASE``) and say where, or why not (matplotlib missing, a bad
    destination); False when they could not be written."""
    from ..render.plots import plot_all
    from ..render.words import word
    from ..results.safeio import DestinationError

    try:
        say(word("plots_written", lang, files=", ".join(str(f) for f in plot_all(result, base))))
    except (ValueError, ImportError, DestinationError, OSError) as exc:
        say(word("plots_failed", lang, error=exc))
        return False
    return True


def report_format(output: Any) -> str:
    """``report``'s format when ``--format`` is not given, from ``-o``'s name: ``.md`` is Markdown, ``.html``
    (or ``.htm``, or a stream) HTML; any other name is refused (issue 38: `-o r.txt` and `-o r.md` silently got
    HTML)."""
    from ..results.errors import UsageError
    from ..results.safeio import is_stream

    suffix = Path(str(output)).suffix.lower() if output is not None and str(output) != "-" else ".html"
    if suffix in (".md", ".markdown"):
        return "markdown"
    if suffix in (".html", ".htm") or is_stream(output):
        return "html"
    raise UsageError(f"report -o {output}: say which format with --format html or --format markdown (a name ending "
                     f"in .html or .md says it too)")
