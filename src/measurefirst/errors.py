"""A leaf module: the exception types and argument checks that measuring modules, renderers and the
command line share. It imports nothing from measurefirst, so any module can import it without an
import cycle (a renderer catches :class:`FitError` without importing the fitting code that raises it)."""

from __future__ import annotations


class FitError(ValueError):
    """The data cannot support the fit; the message says why."""


class StoreError(RuntimeError):
    """The results store cannot be used as asked; the message says what to do."""


class UsageError(Exception):
    """Bad input on the command line; printed as one line, exit code 2."""


def check_limit(limit: int | None) -> None:
    """A row limit is None (all rows) or a whole number >= 0; a negative one would silently drop rows."""
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise ValueError(f"row limit must be a whole number >= 0, or None for all rows; got {limit!r}")
