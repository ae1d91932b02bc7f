"""Progress of long work: what is measured now, how far along, and how much of the budget is left.

Measuring code calls :func:`report` at its own boundaries (a repetition, a round of candidates, a size, a
variant, a section of the lecture), never inside a timed region, with the times of its own (injected)
clock. Nothing is shown unless a sink is installed with :func:`showing`: the command line installs a
one-line display on stderr when stderr is a terminal (:mod:`measurefirst.render.progress`); a library
user may install any callable. The sink lives in a context variable (thread- and task-local, restored on
exit), so nested work reports into the same line: a comparison's rounds and the repetitions inside one
benchmark. Events carry codes, labels and numbers only; the words are the renderer's.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from typing import Callable, Iterator

from ..results.progress import TOOLS as TOOLS, Event as Event, Sink as Sink  # re-exported: the events are data

_SINK: ContextVar[Sink | None] = ContextVar("measurefirst_progress", default=None)


def active() -> bool:
    """Whether a sink is installed (measuring code asks before it reads a clock for a report)."""
    return _SINK.get() is not None


def report(tool: str, item: str, done: int = 0, total: int = 0, elapsed_s: float | None = None,
           budget_s: float | None = None) -> None:
    """Report progress to the installed sink (nothing when none is installed: the cost is one lookup)."""
    sink = _SINK.get()
    if sink is not None:
        sink(Event(tool, item, done, total, elapsed_s, budget_s))


def pause() -> None:
    """Take the sink's display away before other output is printed (it comes back with the next report):
    :mod:`measurefirst.cli.emit` calls this before every line and table it prints."""
    stop = getattr(_SINK.get(), "pause", None)
    if callable(stop):
        stop()


@contextmanager
def showing(sink: Sink | None) -> Iterator[None]:
    """Send the reports made inside the block to ``sink`` (``None``: to nothing)."""
    token = _SINK.set(sink)
    try:
        yield
    finally:
        _SINK.reset(token)


#: What draws a line where a function is asked to show its own progress (``sweep(progress=True)``): a
#: factory of sinks that are context managers, which the package's face (``measurefirst/__init__``) sets
#: to the renderer's line; measuring code never imports a renderer. ``None``: nothing is drawn.
LINE: "Callable[[], AbstractContextManager[Sink]] | None" = None


@contextmanager
def own_line(enabled: bool) -> Iterator[None]:
    """A line of :data:`LINE` for the block, when ``enabled`` and no sink is installed already (the
    caller's line, such as the command line's, takes the reports instead)."""
    if not enabled or active() or LINE is None:
        yield
        return
    with LINE() as line, showing(line):
        yield
