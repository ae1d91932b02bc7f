"""How a measurement fails: the errors the measuring loop raises (the function or its setup raised, its
first call raised, Ctrl-C with what was measured so far) and the words for how the code under test stopped."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ..results.protocol import Result


class BenchmarkError(RuntimeError):
    """The benchmarked function (or its setup) raised. ``partial`` holds what was measured before
    (a Measurement from benchmark(), a Comparison from compare(); None if nothing was)."""

    def __init__(self, message: str, *, label: str, phase: str, index: int | None,
                 partial: "Result | None" = None) -> None:
        super().__init__(message)
        self.label = label
        self.phase = phase
        self.index = index
        self.partial = partial


class ColdCallError(RuntimeError):
    """Function number ``index`` raised in its observed first call (the exception is the cause)."""

    def __init__(self, index: int) -> None:
        super().__init__(f"function {index} raised in its first call")
        self.index = index


class SetupError(RuntimeError):
    """The ``setup`` callable raised (the exception is the ``__cause__``); kept apart so that the
    error names setup, not the function measured after it."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a benchmark. ``partial`` holds what was measured so far, marked incomplete: a
    result of the kind the interrupted call returns (a Measurement from benchmark(), a Comparison from
    compare(), a SweepResult from sweep())."""

    def __init__(self, partial: "Result | None") -> None:
        super().__init__("benchmark interrupted")
        self.partial = partial


def raised_words(exc: BaseException) -> str:
    """How the code under test stopped, for an error message: ``raised``, or ``called sys.exit(0)``."""
    return f"called sys.exit({exc.code!r})" if isinstance(exc, SystemExit) else "raised"
