"""What both backends of the results store share (:mod:`measurefirst.results.store_sqlite`,
:mod:`measurefirst.results.store_pg`): an open store's state, the columns its schema gives, and the one-line
:class:`StoreError` each failure of the database becomes (:func:`_guarded`)."""

from __future__ import annotations

import functools
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Callable, ParamSpec, TypeVar

from .errors import StoreError
from .store_refs import ENV_VAR

if TYPE_CHECKING:  # pragma: no cover
    from .store_pg import PgConnection

BUSY_TIMEOUT_MS = 30_000

_P = ParamSpec("_P")
_R = TypeVar("_R")


def _guarded(what: str) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """Turn any sqlite3 error of a Store method into a one-line StoreError saying what to do."""

    def decorate(fn: Callable[_P, _R]) -> Callable[_P, _R]:
        @functools.wraps(fn)
        def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            try:
                return fn(*args, **kwargs)
            except Exception as exc:
                store = args[0]
                assert isinstance(store, StoreBase)
                if not isinstance(exc, store._errors):
                    raise
                raise store._failure(what, exc) from exc

        return wrapper

    return decorate


class StoreBase:
    """An open results store of either backend: where it is, its connection and the schema it holds, and
    how a failure of its database is told (:class:`~measurefirst.results.store.Store` stands on it)."""

    path: Path | str
    backend: str
    schema: int
    read_only: bool
    conn: sqlite3.Connection | PgConnection
    _errors: tuple[type[BaseException], ...]
    _file: Path

    _COLS = "id, name, created, device, device_name, host, git_commit, median_s, ci_low_s, ci_high_s, n_samples, complete"

    def _failure(self, what: str, exc: BaseException) -> StoreError:
        text = str(exc).strip() or type(exc).__name__
        conn = getattr(self, "conn", None)
        if conn is not None and not isinstance(conn, sqlite3.Connection):
            text = " ".join(conn.scrub(text).split())
        low = text.lower()
        where = f"the results store {self.path}"
        if "readonly" in low or "read-only" in low or "unable to open" in low or "permission" in low:
            return StoreError(f"cannot {what}: {where} is read-only or its folder is ({text}); "
                              f"choose a writable file with --store PATH or {ENV_VAR}=PATH")
        if "no such table" in low or "no such column" in low or ("does not exist" in low and "relation" in low):
            return StoreError(f"cannot {what}: {where} is damaged ({text}); move it away and save again, "
                              f"or choose another file with --store PATH")
        if "locked" in low or "busy" in low or "lock timeout" in low:
            from .store_pg import LOCK_TIMEOUT_MS

            wait_ms = BUSY_TIMEOUT_MS if self.backend == "sqlite" else LOCK_TIMEOUT_MS
            return StoreError(f"cannot {what}: {where} is busy: locked by another process or session for "
                              f"{wait_ms / 1000:g} s ({text}); try again")
        if "malformed" in low or "not a database" in low or "corrupt" in low or "disk i/o" in low:
            return StoreError(f"cannot {what}: {where} is damaged ({text}); move it away (sqlite3 .recover "
                              f"may rescue its runs) and save again")
        if "full" in low:
            return StoreError(f"cannot {what}: the disk holding {where} is full ({text}); free space and retry")
        return StoreError(f"cannot {what}: {where} failed: {text}")

    @property
    def _kind_column(self) -> str:
        """The kind of each row: its column, or (a schema 1 store read as it is) told from its median."""
        if self.schema >= 2:
            return "kind"
        return "CASE WHEN median_s IS NULL THEN 'count' ELSE 'measurement' END"

    @property
    def _data_table(self) -> str:
        """Where the results are: their own table, or (a store of schema 1 or 2 read as it is) the runs'."""
        return "run_data" if self.schema >= 3 else "runs"
