"""The progress line of long work (:mod:`measurefirst.measure.progress`): one line on stderr, redrawn in place,
gone when the work ends. It joins the reports of nested work, outermost first ("compare: fused, 12 of
40 · benchmark: fused · 3.1 s of the budget left"), and redraws at most every :data:`REDRAW_S` of the
measuring clock, or when what is measured changes, so that the terminal costs the measurement nothing
measurable (it is drawn between samples, never inside a timed region)."""

from __future__ import annotations

import sys
from types import TracebackType
from typing import IO, Any

from ..results.progress import TOOLS, Event
from .text import plain
from .words import word

#: Seconds (of the measuring clock) between two redraws of an unchanged item.
REDRAW_S = 0.25


def progress_text(events: dict[str, Event], lang: str) -> str:
    """The line for the latest event of each tool that is reporting (outermost first)."""
    parts, left = [], None
    for tool in TOOLS:
        e = events.get(tool)
        if e is None:
            continue
        part = f"{word('progress.tool.' + tool, lang)}: {plain(e.item)}" if e.item else word("progress.tool." + tool, lang)
        if tool == "first":  # a long first call: how long it has run, not an item (no time: it is over)
            if e.elapsed_s is not None:
                parts.append(word("progress.first", lang, seconds=f"{e.elapsed_s:.0f}"))
            continue
        if e.total > 0:
            part += " (" + word("progress.count", lang, done=min(e.done, e.total), total=e.total) + ")"
        parts.append(part)
        if e.left_s is not None:
            left = e.left_s  # the innermost budget
    if left is not None:
        parts.append(word("progress.left", lang, left=f"{left:.1f}"))
    return " · ".join(parts)


class ProgressLine:
    """A sink for :func:`measurefirst.measure.progress.showing` that draws :func:`progress_text` on a terminal;
    as a context manager, it takes the line away at the block's end:
    ``with ProgressLine(lang) as line, showing(line): ...``."""

    def __init__(self, lang: str = "en", file: IO[str] | None = None, *, terminal: bool | None = None) -> None:
        self.lang = lang
        self.file = file if file is not None else sys.stderr
        self.terminal = terminal  # None: rich asks the file
        self.events: dict[str, Event] = {}
        self._live: Any = None
        self._drawn_at: float | None = None
        self._drawn = ""

    def __call__(self, event: Event) -> None:
        if event.tool not in TOOLS:
            return
        rank = TOOLS.index(event.tool)
        old = self.events.get(event.tool)
        if old is None or old.item != event.item:  # inner work reported for the previous item is over
            for tool in TOOLS[rank + 1:]:
                self.events.pop(tool, None)
        self.events[event.tool] = event
        text = progress_text(self.events, self.lang)
        now = event.elapsed_s
        due = (self._drawn_at is None or now is None or now < self._drawn_at or now - self._drawn_at >= REDRAW_S
               or (old is not None and old.item != event.item) or old is None)
        if text != self._drawn and due:
            self._draw(text)
            self._drawn_at = now

    def _draw(self, text: str) -> None:
        if self._live is None:
            from rich.console import Console
            from rich.live import Live
            from rich.text import Text

            self._text = Text
            self._live = Live(console=Console(file=self.file, highlight=False, force_terminal=self.terminal), auto_refresh=False,
                              transient=True, redirect_stdout=False, redirect_stderr=False)
            self._live.start()
        self._live.update(self._text(text, overflow="ellipsis", no_wrap=True), refresh=True)
        self._drawn = text

    def __enter__(self) -> "ProgressLine":
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def pause(self) -> None:
        """Take the line away while other output is printed; the next report draws it again."""
        self.close()
        self._drawn = ""

    def close(self) -> None:
        """Take the line away (the results are printed after it)."""
        if self._live is not None:
            self._live.stop()
            self._live = None
