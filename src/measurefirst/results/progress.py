"""What long work reports while it runs (:mod:`measurefirst.measure.progress` sends it to a sink;
:mod:`measurefirst.render.progress` draws it): codes, labels and numbers only, no words."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

#: The tools that report, outermost first (a sweep or a comparison runs benchmarks inside it).
TOOLS = ("demo", "selfcheck", "step", "collectives", "sweep", "compare", "profile", "doctor", "bench", "first")


@dataclass(frozen=True)
class Event:
    """One report. ``tool``: one of :data:`TOOLS` (``first``: a first call still running, ``elapsed_s`` into it:
    compiling, or another one-time cost); ``item``: what is measured now (a label, a variant, a
    size, a rank, a section); ``done`` of ``total`` units of the tool's own count (repetitions, rounds,
    sizes, variants; ``total`` 0 when unknown); ``elapsed_s`` and ``budget_s`` by the measuring clock
    (``None`` when the tool has no budget)."""

    tool: str
    item: str
    done: int = 0
    total: int = 0
    elapsed_s: float | None = None
    budget_s: float | None = None

    @property
    def left_s(self) -> float | None:
        """Seconds of the budget left (never below 0), or None without a budget."""
        if self.budget_s is None or self.elapsed_s is None:
            return None
        return max(0.0, self.budget_s - self.elapsed_s)


Sink = Callable[[Event], None]
