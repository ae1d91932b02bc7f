"""A leaf module: the exception types and argument checks that measuring modules, renderers and the
command line share. It imports nothing from measurefirst, so any module can import it without an
import cycle (a renderer catches :class:`FitError` without importing the fitting code that raises it)."""

from __future__ import annotations


class FitError(ValueError):
    """The data cannot support the fit; the message says why."""


class UsageError(Exception):
    """Bad input on the command line; printed as one line, exit code 2."""


class StoreError(RuntimeError):
    """The results store cannot be used as asked; the message says what to do. (Here, in the leaf module,
    so that the command line can catch it without importing the store, and numpy with it.)"""


def check_limit(limit: int | None) -> None:
    """A row limit is None (all rows) or a whole number >= 0; a negative one would silently drop rows."""
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise ValueError(f"row limit must be a whole number >= 0, or None for all rows; got {limit!r}")


class BudgetError(ValueError):
    """A fixed count (``number``) that cannot fit the time budget: bad input, refused with the fix."""


# ---- one set of argument checks for every public function: each raises with a line naming the fix ----
def check_flag(name: str, value: object) -> None:
    """A switch is True or False: a string such as ``'no'`` would be read as true."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False; got {value!r}")


def check_text(name: str, value: object, example: str, *, optional: bool = False) -> None:
    """Non-empty text (None too when ``optional``)."""
    if value is None and optional:
        return
    if not isinstance(value, str):
        raise TypeError(f"{name} must be text such as {example!r}; got {type(value).__name__}")
    if not value.strip():
        raise ValueError(f"{name} is empty; give text such as {example!r}")


def check_seed(value: object) -> None:
    """A seed is a whole number from 0 to 2**63 - 1 (what every generator accepts)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**63:
        raise ValueError(f"seed must be a whole number from 0 to 2**63-1 such as 0; got {value!r}")


def check_kind(name: str, value: object, kind: type | tuple[type, ...], what: str, *, optional: bool = False) -> None:
    """``value`` is an instance of ``kind`` (None too when ``optional``); ``what`` says how to get one."""
    if value is None and optional:
        return
    if not isinstance(value, kind):
        raise TypeError(f"{name} must be {what}; got {type(value).__name__}")
