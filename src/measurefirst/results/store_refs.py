"""How a results store and its saved runs are named: where a store is (a file, ``sqlite:///PATH`` or a
``postgresql://`` URL; ``$MEASUREFIRST_STORE`` else ``.measurefirst/results.db`` by default), run ids, and
the references to saved runs that :func:`parse_ref` reads (``#ID``, ``@NAME``, ``@NAME~K``)."""

from __future__ import annotations

import builtins
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from .errors import StoreError

ENV_VAR = "MEASUREFIRST_STORE"
DEFAULT_PATH = Path(".measurefirst") / "results.db"
#: Run ids are SQLite integers: 1 to 2**63 - 1.
MAX_RUN_ID = 2**63 - 1


def is_url(location: Any) -> bool:
    """Whether a store location is a PostgreSQL URL (``postgresql://...`` or ``postgres://...``)."""
    return isinstance(location, str) and location.startswith(("postgresql://", "postgres://"))


#: ``#12`` (a run id), ``@matmul`` (the latest run of a name), ``@matmul~2`` (two runs before it).
REF_RE = re.compile(r"^(#(?P<id>\d+)|@(?P<name>[^~]+)(~(?P<back>\d+))?)$")
#: ``@NAME~K`` with a K that is not a whole number.
_BAD_BACK_RE = re.compile(r"^@([^~\s]+)~(.*)$")


@dataclass(frozen=True)
class Ref:
    """A reference to a saved run: by ``id``, or by ``name`` and how many runs ``back``."""

    id: int | None = None
    name: str | None = None
    back: int = 0

    def __str__(self) -> str:
        return f"#{self.id}" if self.id is not None else f"@{self.name}" + (f"~{self.back}" if self.back else "")


def parse_ref(text: str) -> Ref | None:
    """``#ID``, ``@NAME`` or ``@NAME~K`` as a :class:`Ref`; ``None`` for anything else (a file name)."""
    m = REF_RE.match(text)
    if m is None:
        bad = _BAD_BACK_RE.match(text)
        if bad is not None:  # issue 38: `@a~-1`, `@a~x` were read as statements ("needs at least two targets")
            raise StoreError(f"{text}: ~K counts saved runs back from the latest of @{bad.group(1)}: a whole number "
                             f"(@{bad.group(1)}~1 is the run before the latest); got ~{bad.group(2)}")
        return None
    if m.group("id"):
        return Ref(id=int(m.group("id")))
    return Ref(name=m.group("name"), back=int(m.group("back") or 0))


def check_run_id(run_id: Any) -> int:
    """``run_id`` as an int, or StoreError: ids are whole numbers from 1 to 2**63 - 1."""
    if isinstance(run_id, bool) or not isinstance(run_id, int) or not 1 <= run_id <= MAX_RUN_ID:
        text = str(run_id)
        raise StoreError(f"run ids are whole numbers from 1 to 2**63-1 (see `measurefirst runs`); "
                         f"got {text if len(text) <= 30 else text[:27] + '...'}")
    return run_id


def parse_run_ids(texts: Iterable[str]) -> builtins.list[int]:
    """Run ids as typed (``12`` or ``#12``); StoreError for anything else."""
    ids = []
    for x in texts:
        digits = x.strip().lstrip("#")
        if not digits.isdigit() or not digits.isascii():
            raise StoreError(f"run ids are whole numbers such as 12 or #12; got {x!r}")
        if len(digits) > 19:
            raise StoreError(f"run id {x[:24]!r}... is beyond SQLite's integers (at most 2**63-1)")
        ids.append(check_run_id(int(digits)))
    return ids


def default_path() -> Path | str:
    """``$MEASUREFIRST_STORE`` (a file, or a PostgreSQL URL), else ``.measurefirst/results.db``."""
    env = os.environ.get(ENV_VAR)
    return DEFAULT_PATH if not env else location(env)


#: A location that starts like a URL (``scheme://``).
_SCHEME_RE = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
#: A known URL scheme followed by a colon without ``//`` (``sqlite:x.db``, ``postgresql:/x``, ``file:x.db``): a
#: URL mistyped, never a file name meant (issue 38: they became files and folders named ``sqlite:x.db``).
_SCHEME_ONLY_RE = re.compile(r"^(sqlite3?|file|postgres(?:ql)?|mysql|mariadb|https?|ftp|s3|gs):(?!//)", re.I)
#: The URL forms that name a file: ``sqlite:///PATH`` and ``file:///PATH`` (three slashes; four for an
#: absolute path).
_FILE_URL_RE = re.compile(r"^(?:sqlite3?|file):///(?=.)", re.I)


def location(where: str | os.PathLike[str] | None) -> Path | str:
    """A store's location as given: a PostgreSQL URL stays text, ``sqlite:///PATH`` is the file PATH,
    anything else is a file path. Any other URL (``mysql://``, a typo such as ``postgressql://``) is a
    :class:`StoreError`: taken as a file path, it would create a file named after the scheme."""
    if where is None:
        return default_path()
    text = os.fspath(where)
    if is_url(text):
        return text
    f = _FILE_URL_RE.match(text)
    if f is not None:
        return Path(text[f.end():])  # sqlite:///rel.db, sqlite:////abs.db, file:///...
    m = _SCHEME_RE.match(text)
    if m is not None:
        from .store_pg import redact

        if m.group(1).lower() in ("sqlite", "sqlite3", "file"):
            raise StoreError(f"the results store {redact(text)} names no file: a {m.group(1)} URL names one with "
                             f"three slashes ({m.group(1)}:///results.db, or four for an absolute path)")
        raise StoreError(f"the results store {redact(text)} is a {m.group(1)}:// URL; a store is a file (such as "
                         f".measurefirst/results.db) or a postgresql:// URL")
    bare = _SCHEME_ONLY_RE.match(text)
    if bare is not None:
        from .store_pg import redact

        shown = redact(text) if "@" in text or "password" in text.lower() else text
        raise StoreError(f"the results store {shown} reads as a {bare.group(1)}: URL without '//'; give a file "
                         f"(such as .measurefirst/results.db, or ./{shown} if that is its name) or a URL such as "
                         f"postgresql://user@host/db or sqlite:///results.db")
    return Path(text)
