"""Results history: an embedded SQLite file, safe with several writers, or a PostgreSQL server shared by
a team (:mod:`measurefirst.results.store_pg`): one :class:`Store`, two backends, the same tables and guarantees.

Default location: ``.measurefirst/results.db`` in the working directory; the environment variable
``MEASUREFIRST_STORE`` or an explicit location (a file, or a ``postgresql://`` URL) overrides it. Each
run row keeps a result of any kind (a measurement, a count, a comparison, a sweep, a regression check,
...) with its kind, its environment and the git commit of the working directory; the result itself,
raw samples included, is kept compact and lossless (:mod:`measurefirst.results.compact`) in a table of its own,
read only for the runs shown. Listing, histories and references read through indexes (name, kind,
machine, date), so that their answers do not grow with the store. Saved runs are named by
:func:`parse_ref`'s references: ``#ID``, ``@NAME`` (the latest run of a name) and ``@NAME~K`` (K runs
before it); :meth:`Store.resolve` reads them.

A store of an older schema is migrated in place when it is opened for writing, under the write lock, in
one transaction (every run keeps its id); one that can only be read is read as it is.

Only a file that does not exist yet, or an empty (zero-byte) one, becomes a store (on PostgreSQL: an
empty schema). Any other file that is not a measurefirst store (corrupt, or another program's database,
even an SQLite file with no tables) raises :class:`StoreError` and is never modified. Every failure of
the database (a read-only file or folder, a damaged file, a dropped table, a row that cannot be read,
an id beyond SQLite's integers) is a :class:`StoreError` with one line saying what to do. A valid store
that cannot be written (a read-only folder) is opened read-only for the commands that only read.
"""

from __future__ import annotations

import builtins
import functools
import json
import os
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, ParamSpec, TypeAlias, TypeVar
from urllib.parse import quote

from .errors import StoreError as StoreError  # measurefirst.results.store.StoreError, as before
from .errors import check_text
from .protocol import Result, from_dict

if TYPE_CHECKING:  # pragma: no cover  (imported where used: listing runs needs neither numpy nor results)
    from .regression_checks import StepPoint
    from .kinds import Count, Measurement

    #: What a run of a benchmark name holds: a time measurement or a count (``benchmark(..., count=...)``).
    Measured: TypeAlias = "Measurement | Count"
#: The kinds of :data:`Measured`: a history, ``latest`` and ``get`` read only these.
MEASURED_KINDS = ("measurement", "count")

#: Identifies our SQLite files (PRAGMA application_id): ASCII "mfst".
APPLICATION_ID = 0x6D667374
#: Schema 2 added the ``kind`` column; schema 3 keeps each run's result compact (:mod:`measurefirst.results.compact`)
#: in a table of its own (``run_data``), so that listing reads small rows only, and indexes the kind, the
#: machine and the date; schema 4 keeps every result in compact format 2 (1.5 to 4.5 times smaller);
#: schema 5 adds the ``summary`` column (what a history row needs beyond the median, CI and repeats:
#: :func:`summary_of`), so that a history reads no sample (the runs of an older store get theirs from
#: :meth:`Store.fill_summaries`, which ``runs vacuum`` runs). Older stores are migrated when opened for
#: writing.
STORE_SCHEMA = 5
#: The first schema whose runs have a summary column.
SUMMARY_SCHEMA = 5
#: Runs given their summary per transaction by :meth:`Store.fill_summaries`.
SUMMARY_BATCH = 200
ENV_VAR = "MEASUREFIRST_STORE"
DEFAULT_PATH = Path(".measurefirst") / "results.db"
BUSY_TIMEOUT_MS = 30_000
#: Run ids are SQLite integers: 1 to 2**63 - 1.
MAX_RUN_ID = 2**63 - 1
#: Runs copied per transaction by :meth:`Store.copy_to`.
COPY_BATCH = 500

_P = ParamSpec("_P")
_R = TypeVar("_R")

#: The tables of a schema 3 store; ``{id}``, ``{blob}`` and ``{real}`` are the backend's types.
SCHEMA_TABLES = """
CREATE TABLE IF NOT EXISTS runs (
    id {id},
    name TEXT NOT NULL,
    created TEXT NOT NULL,
    device TEXT,
    device_name TEXT,
    host TEXT,
    git_commit TEXT,
    median_s {real},
    ci_low_s {real},
    ci_high_s {real},
    n_samples BIGINT,
    complete INTEGER NOT NULL,
    kind TEXT NOT NULL DEFAULT 'measurement',
    summary TEXT
);
CREATE TABLE IF NOT EXISTS run_data (
    id BIGINT PRIMARY KEY,
    data {blob} NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_by_name ON runs(name, id);
CREATE INDEX IF NOT EXISTS runs_by_name_kind ON runs(name, kind, id);
CREATE INDEX IF NOT EXISTS runs_by_kind ON runs(kind, id);
CREATE INDEX IF NOT EXISTS runs_by_host ON runs(host, id);
CREATE INDEX IF NOT EXISTS runs_by_created ON runs(created, id);
CREATE TABLE IF NOT EXISTS peaks (
    key TEXT PRIMARY KEY,
    created TEXT NOT NULL,
    data TEXT NOT NULL
);
"""
#: A new SQLite store's page: several compact results fit in one (with 4 KiB pages, one 3 KiB result
#: would take a page of its own).
PAGE_BYTES = 16384
_SQLITE_TYPES = {"id": "INTEGER PRIMARY KEY AUTOINCREMENT", "blob": "BLOB", "real": "REAL"}


def schema_statements(types: dict[str, str]) -> builtins.list[str]:
    """The statements that create a store's tables and indexes, with the backend's column types."""
    return [x.strip() for x in SCHEMA_TABLES.format(**types).split(";") if x.strip()]


def is_url(location: Any) -> bool:
    """Whether a store location is a PostgreSQL URL (``postgresql://...`` or ``postgres://...``)."""
    return isinstance(location, str) and location.startswith(("postgresql://", "postgres://"))


#: ``#12`` (a run id), ``@matmul`` (the latest run of a name), ``@matmul~2`` (two runs before it).
REF_RE = re.compile(r"^(#(?P<id>\d+)|@(?P<name>[^~]+)(~(?P<back>\d+))?)$")


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


def _guarded(what: str) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """Turn any sqlite3 error of a Store method into a one-line StoreError saying what to do."""

    def decorate(fn: Callable[_P, _R]) -> Callable[_P, _R]:
        @functools.wraps(fn)
        def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            try:
                return fn(*args, **kwargs)
            except Exception as exc:
                store = args[0]
                assert isinstance(store, Store)
                if not isinstance(exc, store._errors):
                    raise
                raise store._failure(what, exc) from exc

        return wrapper

    return decorate


@dataclass(frozen=True)
class RunRow:
    """One saved run, without loading its samples."""

    id: int
    name: str
    created: str
    device: str | None
    device_name: str | None
    host: str | None
    git_commit: str | None
    median: float | None
    ci_low: float | None
    ci_high: float | None
    n_samples: int
    complete: bool
    kind: str = "measurement"
    #: What the run's history row needs beyond these columns (JSON; ``""``: no samples, no row; None: not
    #: kept, read the run whole): see :func:`summary_of`.
    summary: str | None = None


def default_path() -> Path | str:
    """``$MEASUREFIRST_STORE`` (a file, or a PostgreSQL URL), else ``.measurefirst/results.db``."""
    env = os.environ.get(ENV_VAR)
    return DEFAULT_PATH if not env else location(env)


#: A location that starts like a URL (``scheme://``).
_SCHEME_RE = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


def location(where: str | os.PathLike[str] | None) -> Path | str:
    """A store's location as given: a PostgreSQL URL stays text, ``sqlite:///PATH`` is the file PATH,
    anything else is a file path. Any other URL (``mysql://``, a typo such as ``postgressql://``) is a
    :class:`StoreError`: taken as a file path, it would create a file named after the scheme."""
    if where is None:
        return default_path()
    text = os.fspath(where)
    if is_url(text):
        return text
    m = _SCHEME_RE.match(text) if isinstance(text, str) else None
    if m is not None:
        if m.group(1).lower() == "sqlite" and len(text) > len("sqlite:///"):
            return Path(text[len("sqlite:///"):])  # sqlite:///rel.db, sqlite:////abs.db
        from .store_pg import redact

        raise StoreError(f"the results store {redact(text)} is a {m.group(1)}:// URL; a store is a file (such as "
                         f".measurefirst/results.db) or a postgresql:// URL")
    return Path(text)


def git_commit(cwd: str | os.PathLike[str] | None = None) -> str | None:
    """The commit checked out in ``cwd`` (with ``-dirty`` when there are changes), or None."""
    import subprocess

    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, timeout=5)
        if head.returncode != 0:
            return None
        commit = head.stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=cwd,
                               capture_output=True, text=True, timeout=5)
        return commit + ("-dirty" if dirty.returncode == 0 and dirty.stdout.strip() else "")
    except (OSError, subprocess.SubprocessError):
        return None


class Store:
    """The results history. Use as a context manager, or call :meth:`close`."""

    def __init__(self, path: str | os.PathLike[str] | None = None, *, create: bool = True) -> None:
        where = location(path)
        self.read_only = False
        #: The database's own errors, each turned into a one-line StoreError.
        self._errors: tuple[type[BaseException], ...] = (sqlite3.Error,)
        #: Where the store is, as shown in messages (a PostgreSQL URL without its password).
        self.path: Path | str
        if isinstance(where, str):
            from .store_pg import PgConnection, redact

            self.path, self.backend, self.schema = redact(where), "postgresql", STORE_SCHEMA
            self.conn: sqlite3.Connection | PgConnection = PgConnection.open(where, create=create, tables=SCHEMA_TABLES,
                                                                              version=STORE_SCHEMA,
                                                                              migrate=to_current_schema)
            self._errors = (sqlite3.Error, self.conn.error)
            return
        self.path = self._file = where
        self.backend = "sqlite"
        if self._file.is_dir():
            raise StoreError(f"the results store {self.path} is a directory; give a file such as "
                             f"{self._file / 'results.db'} with --store PATH or {ENV_VAR}=PATH")
        exists = self._file.exists()
        if exists:
            _check_regular(self._file)  # before opening: a FIFO would block, a device is no database
        if exists and not create and self._file.stat().st_size == 0:
            exists = False
        if not exists and not create:
            raise StoreError(f"no results store at {self.path}; save a run first (measurefirst bench --save), "
                             f"or give the right file with --store PATH")
        ours = False
        if exists:
            ours = self._check_header()
        else:
            from .safeio import DestinationError, check_destination

            try:
                self._file.parent.mkdir(parents=True, exist_ok=True)
                check_destination(self._file, "results store", stream_ok=False)
            except DestinationError as exc:
                raise StoreError(f"{exc} (--store PATH or {ENV_VAR}=PATH)") from exc
            except OSError as exc:
                raise StoreError(f"cannot create the results store {self.path}: {exc.strerror or exc}; "
                                 f"choose another file with --store PATH or {ENV_VAR}=PATH") from exc
        try:
            self._open(create)
        except StoreError:
            self._close_quietly()
            raise
        except sqlite3.DatabaseError as exc:
            self._close_quietly()
            if not ours:
                if isinstance(exc, sqlite3.OperationalError):
                    raise StoreError(f"cannot open the results store {self.path}: {exc}; choose another file "
                                     f"with --store PATH or {ENV_VAR}=PATH") from exc
                raise self._foreign(str(exc)) from exc
            if create:
                raise self._failure("open the results store for writing", exc) from exc
            self._open_read_only(exc)

    # -- opening -----------------------------------------------------------------------------
    def _open(self, create: bool) -> None:
        """Connect and initialise; a store that another process holds for a moment (creating it, or
        switching it to WAL) is waited for, up to the busy timeout, rather than refused."""
        import time

        waited, pause = 0.0, 0.005  # the wait counted in the pauses slept (no clock read outside the timers)
        while True:
            try:
                self.conn = self._connect(f"file:{quote(str(self._file.absolute()))}"
                                          + ("" if create else "?mode=rw"))
                self.conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
                self._init()
                return
            except sqlite3.OperationalError as exc:
                transient = "locked" in str(exc).lower() or "busy" in str(exc).lower()
                if not transient or waited >= BUSY_TIMEOUT_MS / 1000:
                    raise
                self._close_quietly()
                time.sleep(pause)
                waited += pause
                pause = min(pause * 2, 0.2)

    def _connect(self, uri: str) -> sqlite3.Connection:
        return sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)

    def _close_quietly(self) -> None:
        conn = getattr(self, "conn", None)
        if conn is not None:
            conn.close()

    def _open_read_only(self, why: sqlite3.Error) -> None:
        """A valid store that cannot be opened for writing (a read-only file or folder, where SQLite
        cannot create its WAL side files): open it read-only for reading."""
        base = f"file:{quote(str(self._file.absolute()))}?mode=ro"
        for uri in (base, base + "&immutable=1"):
            try:
                self.conn = self._connect(uri)
                app_id = self.conn.execute("PRAGMA application_id").fetchone()[0]
                if app_id != APPLICATION_ID:
                    raise self._foreign(f"SQLite application id {app_id:#x}")
                self._check_version()
                self.read_only = True
                return
            except sqlite3.DatabaseError:
                self._close_quietly()
        raise self._failure("open the results store", why)

    def _foreign(self, why: str) -> StoreError:
        return StoreError(
            f"{self.path} is not a measurefirst results store ({why}); it was left untouched. "
            f"Move it away, or choose another file with --store PATH or {ENV_VAR}=PATH"
        )

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

    def _check_header(self) -> bool:
        """True for one of ours; False for an empty file or an SQLite file without an application id
        (decided under the write lock); StoreError for anything else."""
        try:
            with open(self._file, "rb") as f:
                header = f.read(100)
        except OSError as exc:
            raise StoreError(f"cannot read the results store {self.path}: {exc.strerror or exc}") from exc
        if len(header) < 100 or not header.strip(b"\x00"):
            # empty (e.g. made by touch: it becomes a store), or being written by the process creating
            # a store right now: SQLite decides under its locks (it never writes to a file it cannot read)
            return False
        if not header.startswith(b"SQLite format 3\x00"):
            raise self._foreign("not an SQLite file")
        app_id = int.from_bytes(header[68:72], "big")
        if app_id not in (0, APPLICATION_ID):
            raise self._foreign(f"SQLite application id {app_id:#x}")
        if app_id == 0:
            # a whole SQLite header without our id: another program's database (a store being created
            # writes its first page, id included, at once). Looked at read-only and immutable, so that
            # its bytes, its -wal and -shm and a hot journal stay as they are and no lock is waited for.
            raise self._foreign(self._describe_foreign())
        return True

    def _describe_foreign(self) -> str:
        """What a foreign SQLite file holds, read without modifying it or waiting for its locks."""
        what = "an SQLite database of another program"
        # immutable: the main file alone, no locks taken or waited for, no -wal, -shm or journal
        # opened (a read-only connection would still write to the -shm)
        try:
            conn = sqlite3.connect(f"file:{quote(str(self._file.absolute()))}?mode=ro&immutable=1", uri=True,
                                   timeout=0, isolation_level=None)
            try:
                objects = [f"{r[0]} {r[1]}" for r in conn.execute("SELECT type, name FROM sqlite_master")]
                version = conn.execute("PRAGMA user_version").fetchone()[0]
            finally:
                conn.close()
            what += ": " + (", ".join(objects[:8]) if objects else "no tables") + (f", user_version {version}"
                                                                                 if version else "")
        except sqlite3.Error:
            pass
        for side, words in (("-wal", "changes in its -wal"), ("-journal", "an unfinished transaction in its -journal")):
            try:
                if os.stat(f"{self.path}{side}").st_size > 0:
                    what += f", {words}"
            except OSError:
                pass
        holders = _lock_holders(self._file)
        return what + (f"; in use by {holders}" if holders else "")

    def _init(self) -> None:
        c = self.conn
        if c.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID:
            self._check_version()
            c.execute("PRAGMA journal_mode=WAL")
            if self.schema < STORE_SCHEMA:
                self._migrate()
                self._check_version()
            if c.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='peaks'").fetchone() is None:
                c.execute("CREATE TABLE IF NOT EXISTS peaks (key TEXT PRIMARY KEY, created TEXT NOT NULL, "
                          "data TEXT NOT NULL)")
            return
        # Not (yet) ours: decide under the write lock, so that a store another process is creating at
        # this very moment is seen whole (its tables and its application id together), never half.
        c.execute(f"PRAGMA page_size = {PAGE_BYTES}")  # writes nothing; used only if this becomes a new store
        c.execute("BEGIN IMMEDIATE")
        try:
            app_id = c.execute("PRAGMA application_id").fetchone()[0]
            if app_id != APPLICATION_ID:
                if app_id != 0:
                    raise self._foreign(f"SQLite application id {app_id:#x}")
                # only an empty database (a new or zero-byte file) becomes a store; under the write
                # lock nothing uncommitted is in the file, so its size is the committed state
                objects = [f"{r[0]} {r[1]}" for r in c.execute("SELECT type, name FROM sqlite_master")]
                version = c.execute("PRAGMA user_version").fetchone()[0]
                if objects or version or self._file.stat().st_size != 0:
                    raise self._foreign("an SQLite database of another program: "
                                        + (", ".join(objects) if objects else "no tables")
                                        + (f", user_version {version}" if version else ""))
                for statement in schema_statements(_SQLITE_TYPES):
                    c.execute(statement)
                c.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                c.execute(f"PRAGMA user_version = {STORE_SCHEMA}")
            c.execute("COMMIT")
        except BaseException:
            c.execute("ROLLBACK")
            raise
        self._check_version()
        c.execute("PRAGMA journal_mode=WAL")

    def _migrate(self) -> None:
        """Bring a store of schema 1, 2 or 3 to :data:`STORE_SCHEMA` in place, under the write lock, in one
        transaction: every run keeps its id, its columns and its result (made compact, in the format
        this version writes: :func:`repack`; a result that cannot be read is kept as it was, for the
        error that names it), and gains an empty summary column (:meth:`fill_summaries` fills it). A
        store that cannot be written is read as it is."""
        from .compact import pack
        from .kinds import parse_json

        c = self.conn
        c.execute("BEGIN IMMEDIATE")
        try:
            version = c.execute("PRAGMA user_version").fetchone()[0]
            if version == 1:
                c.execute("ALTER TABLE runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'measurement'")
                for run_id, data in c.execute("SELECT id, data FROM runs").fetchall():
                    kind = _kind_of(data)
                    if kind != "measurement":
                        c.execute("UPDATE runs SET kind = ? WHERE id = ?", (kind, run_id))
            if version in (1, 2):
                seq = c.execute("SELECT seq FROM sqlite_sequence WHERE name = 'runs'").fetchone()
                c.execute("ALTER TABLE runs RENAME TO runs_schema_2")
                c.execute("DROP INDEX IF EXISTS runs_by_name")
                for statement in schema_statements(_SQLITE_TYPES):
                    c.execute(statement)
                columns = self._COLS + ", kind"
                c.execute(f"INSERT INTO runs ({columns}) SELECT {columns} FROM runs_schema_2 ORDER BY id")
                for run_id, data in c.execute("SELECT id, data FROM runs_schema_2 ORDER BY id"):
                    try:
                        packed: Any = pack(parse_json(data))
                    except (ValueError, TypeError):
                        packed = data if isinstance(data, (str, bytes)) else ""
                    c.execute("INSERT INTO run_data (id, data) VALUES (?, ?)", (run_id, packed))
                c.execute("DROP TABLE runs_schema_2")
                if seq is not None:  # ids of deleted runs are never given again
                    c.execute("UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'runs'", (seq[0],))
            if version == 3:
                repack(c)
            if version in (3, 4):  # schemas 1 and 2 were rebuilt above, with the column
                add_summary_column(c)
            if version < STORE_SCHEMA:
                c.execute(f"PRAGMA user_version = {STORE_SCHEMA}")
            c.execute("COMMIT")
        except BaseException:
            c.execute("ROLLBACK")
            raise

    @_guarded("fill the runs' summaries")
    def fill_summaries(self) -> int:
        """Give each run of a time or a count saved without its summary (by a measurefirst before store
        schema 5) the summary :func:`summary_of` keeps, so that its history row is read from the columns
        too; how many were given one. Each batch of :data:`SUMMARY_BATCH` runs is read and decoded without
        a lock, then written in a short transaction of its own: writers wait for none of the decoding. A
        run that cannot be read, or whose columns do not show what it holds, keeps none (a history reads
        it whole). :meth:`vacuum` calls it."""
        if self.schema < SUMMARY_SCHEMA or self.read_only:
            return 0
        c = self.conn
        last, filled = 0, 0
        while True:
            batch = c.execute(
                "SELECT r.id, r.median_s, r.ci_low_s, r.ci_high_s, r.n_samples, d.data FROM runs AS r LEFT JOIN "
                "run_data AS d ON d.id = r.id WHERE r.id > ? AND r.summary IS NULL AND "
                "r.kind IN ('measurement', 'count') ORDER BY r.id LIMIT ?", (last, SUMMARY_BATCH)).fetchall()
            if not batch:
                return filled
            found = [(summary, int(r[0])) for r in batch
                     if (summary := self._summary(int(r[0]), r[5], r[1:5])) is not None]
            if found:
                c.execute("BEGIN IMMEDIATE")
                try:
                    for summary, run_id in found:
                        c.execute("UPDATE runs SET summary = ? WHERE id = ? AND summary IS NULL", (summary, run_id))
                    c.execute("COMMIT")
                except BaseException:
                    c.execute("ROLLBACK")
                    raise
            filled += len(found)
            last = int(batch[-1][0])

    def _summary(self, run_id: int, data: Any, columns: tuple[Any, ...]) -> str | None:
        """The summary of the run ``run_id`` that holds ``data``, if its ``columns`` (median, CI, samples)
        are what the result shows; else None (a result that cannot be read included)."""
        from .kinds import Count, Measurement

        try:
            m = self._decode(run_id, data)
        except StoreError:
            return None
        if isinstance(m, Count):
            shown: tuple[Any, ...] = (None, None, None, m.n_repeats)
        elif isinstance(m, Measurement):
            ci = m.ci
            shown = (_finite(m.median), None if ci is None else ci[0], None if ci is None else ci[1],
                     m.n_samples or m.n_rounds)
        else:
            return None
        return summary_of(m) if tuple(columns) == shown else None

    @property
    def _kind_column(self) -> str:
        """The kind of each row: its column, or (a schema 1 store read as it is) told from its median."""
        if self.schema >= 2:
            return "kind"
        return "CASE WHEN median_s IS NULL THEN 'count' ELSE 'measurement' END"

    def _check_version(self) -> None:
        version = self.conn.execute("PRAGMA user_version").fetchone()[0]
        self.schema = version
        if version > STORE_SCHEMA:
            raise StoreError(f"{self.path} was written by a newer measurefirst (store schema {version}); upgrade")
        if version < 1:
            raise StoreError(f"{self.path} has store schema {version}, which no measurefirst wrote; "
                             f"it is damaged: move it away")

    @property
    def _data_table(self) -> str:
        """Where the results are: their own table, or (a store of schema 1 or 2 read as it is) the runs'."""
        return "run_data" if self.schema >= 3 else "runs"

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing -----------------------------------------------------------------------------
    def save(self, m: Result, name: str | None = None, *, commit: str | None = None) -> int:
        """Save one result of any kind under ``name`` (default: its label, else its kind); returns the
        run id."""
        check_text("name", name, "matmul", optional=True)
        return self.save_many([m], names=[name] if name else None, commit=commit)[0]

    def save_many(self, ms: Iterable[Result], *, names: builtins.list[str] | None = None,
                  commit: str | None = None) -> builtins.list[int]:
        """Save results in one transaction (all or none); returns their run ids. Only a measurement
        fills the row's median and CI columns; a count's samples column holds its repeats."""
        from .kinds import Count, Measurement

        ms = list(ms)
        for m in ms:
            if not (isinstance(getattr(m, "kind", None), str) and callable(getattr(m, "to_dict", None))):
                raise TypeError(f"save() takes a result such as benchmark(), compare() or load() return; got "
                                f"{type(m).__name__}")
        for name in names or ():
            check_text("name", name, "matmul")
        if commit is not None and commit != "":  # "": no commit (an imported run whose file names none)
            check_text("commit", commit, "3f2c1a9")
        if self.read_only:
            raise StoreError(f"cannot save: the results store {self.path} is read-only (its folder cannot be "
                             f"written); choose a writable file with --store PATH or {ENV_VAR}=PATH")
        empty = [m.label for m in ms if isinstance(m, (Measurement, Count)) and not has_samples(m)]
        if empty:
            raise ValueError(f"{empty[0]!r} has no samples (an interrupted or failed run); nothing to save")
        commit = commit if commit is not None else git_commit()
        return self._insert(ms, names, commit)

    @_guarded("save")
    def _insert(self, ms: builtins.list[Result], names: builtins.list[str] | None,
                commit: str | None) -> builtins.list[int]:
        from .compact import pack
        from .kinds import Count, Measurement

        rows = []
        for i, m in enumerate(ms):
            name = names[i] if names and i < len(names) and names[i] else default_name(m)
            ci = m.ci if isinstance(m, Measurement) else None
            median = _finite(m.median) if isinstance(m, Measurement) else None
            # an imported run that kept no raw times counts its file's rounds (its statistics describe those)
            n = m.n_repeats if isinstance(m, Count) else (m.n_samples or m.n_rounds) if isinstance(m, Measurement) else 0
            env: dict[str, Any] = getattr(m, "env", None) or {}
            rows.append(((name, env.get("timestamp") or _now(), getattr(m, "device", None), env.get("device_name"),
                          env.get("hostname"), commit, median, None if ci is None else ci[0],
                          None if ci is None else ci[1], n, int(m.complete), m.kind,
                          summary_of(m) if isinstance(m, (Measurement, Count)) else None),
                         pack(json.loads(m.to_json(indent=None)))))
        return self._write_rows(rows)

    def _write_rows(self, rows: builtins.list[tuple[tuple[Any, ...], Any]]) -> builtins.list[int]:
        """Insert runs (their columns less the id, kind and summary included, and their stored result) in one
        transaction; their ids."""
        ids = []
        c = self.conn
        c.execute("BEGIN IMMEDIATE")
        try:
            returning = "" if self.backend == "sqlite" else " RETURNING id"  # SQLite before 3.35 has no RETURNING
            for columns, data in rows:
                cur = c.execute(f"INSERT INTO runs ({self._COLS[4:]}, kind, summary) VALUES "
                                f"(?,?,?,?,?,?,?,?,?,?,?,?,?){returning}", columns)
                run_id = int(cur.fetchone()[0] if returning else cur.lastrowid or 0)
                c.execute("INSERT INTO run_data (id, data) VALUES (?, ?)", (run_id, data))
                ids.append(run_id)
            c.execute("COMMIT")
        except BaseException:
            c.execute("ROLLBACK")
            raise
        return ids

    @_guarded("delete")
    def delete(self, run_id: int, *, must_exist: bool = False) -> bool:
        """Delete run ``run_id``; whether it was there (``must_exist``: a StoreError when not, or when the
        store is read-only)."""
        run_id = check_run_id(run_id)
        if must_exist and self.read_only:
            raise StoreError(f"cannot delete: the results store {self.path} is read-only")
        return self._delete([run_id], must_exist=must_exist) > 0

    def _delete(self, ids: builtins.list[int], *, must_exist: bool = False) -> int:
        c = self.conn
        n = 0
        c.execute("BEGIN IMMEDIATE")
        try:
            for start in range(0, len(ids), 500):
                chunk = ids[start:start + 500]
                marks = ", ".join("?" * len(chunk))
                n += c.execute(f"DELETE FROM runs WHERE id IN ({marks})", chunk).rowcount
                if self._data_table != "runs":
                    c.execute(f"DELETE FROM run_data WHERE id IN ({marks})", chunk)
            c.execute("COMMIT")
        except BaseException:
            c.execute("ROLLBACK")
            raise
        if must_exist and n == 0:
            raise StoreError(f"no run #{ids[0]} in {self.path}")
        return n

    @_guarded("prune")
    def prune(self, *, keep_last: int | None = None, older_than: str | None = None, name: str | None = None,
              kinds: Iterable[str] | None = None, host: str | None = None, since: str | None = None) -> int:
        """Delete the runs that match every rule given: beyond the latest ``keep_last`` runs of their name,
        created before ``older_than`` (an ISO date or time, as the runs' ``created``); how many. ``name``,
        ``kinds``, ``host`` and ``since`` (as :meth:`list` takes them) narrow what is looked at: a run they
        do not select is never deleted, and ``keep_last`` counts the latest of each name among those they
        select. Their space is given back by :meth:`vacuum`."""
        if keep_last is None and older_than is None:
            raise StoreError("runs prune needs --keep-last K, --older-than D or both; nothing was deleted")
        if self.read_only:
            raise StoreError(f"cannot prune: the results store {self.path} is read-only")
        clauses, params = self._filters(name, kinds, host, since)
        where = " WHERE " + " AND ".join(clauses) if clauses else ""
        if keep_last is not None:
            clauses.append("id IN (SELECT id FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY name ORDER BY id "
                           f"DESC) AS back FROM runs{where}) AS ranked WHERE back > ?)")
            params = params + params + [keep_last]
        if older_than is not None:
            clauses.append("created < ?")
            params.append(older_than)
        ids = [int(r[0]) for r in self.conn.execute(f"SELECT id FROM runs WHERE {' AND '.join(clauses)}", params)]
        return self._delete(ids) if ids else 0

    @_guarded("vacuum")
    def vacuum(self) -> None:
        """Give the space of deleted runs back to the file system (SQLite) or the server (PostgreSQL), after
        giving the runs of an older measurefirst their summaries (:meth:`fill_summaries`)."""
        if self.read_only:
            raise StoreError(f"cannot vacuum: the results store {self.path} is read-only")
        self.fill_summaries()
        self.conn.execute("VACUUM")

    # -- reading -----------------------------------------------------------------------------
    _COLS = "id, name, created, device, device_name, host, git_commit, median_s, ci_low_s, ci_high_s, n_samples, complete"

    def _rows(self, sql: str, params: Iterable[Any]) -> builtins.list[RunRow]:
        return [RunRow(*r[:11], bool(r[11]), str(r[12]), r[13])  # type: ignore[call-arg]  # the columns match
                for r in self.conn.execute(sql, builtins.list(params))]

    @property
    def _row_columns(self) -> str:
        """What a :class:`RunRow` reads: the columns, the kind and the summary (a store older than
        :data:`SUMMARY_SCHEMA`, read as it is, has none: its runs are read whole)."""
        return f"{self._COLS}, {self._kind_column}, {'summary' if self.schema >= SUMMARY_SCHEMA else 'NULL'}"

    def list_query(self, name: str | None = None, *, kinds: Iterable[str] | None = None, host: str | None = None,
                   since: str | None = None, limit: int | None = None) -> tuple[str, builtins.list[Any]]:
        """The SQL :meth:`list` runs, and its parameters (the latest first; indexed, see EXPLAIN)."""
        where, params = self._where(name, kinds, host, since)
        sql = f"SELECT {self._row_columns} FROM runs{where} ORDER BY id DESC"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        return sql, params

    @_guarded("list runs")
    def list(self, name: str | None = None, *, kinds: Iterable[str] | None = None, host: str | None = None,
             since: str | None = None, limit: int | None = None) -> builtins.list[RunRow]:
        """Saved runs, oldest first: all, or the latest ``limit``; of any name or of ``name``, of any kind or
        of ``kinds``, from any machine or from ``host``, created at any time or at ``since`` (an ISO date
        or time) or later. Reads the runs' columns only, never their samples."""
        return self._rows(*self.list_query(name, kinds=kinds, host=host, since=since, limit=limit))[::-1]

    @_guarded("count runs")
    def count(self, name: str | None = None, *, kinds: Iterable[str] | None = None, host: str | None = None,
              since: str | None = None) -> int:
        """How many runs :meth:`list` would give without a limit."""
        where, params = self._where(name, kinds, host, since)
        return int(self.conn.execute(f"SELECT COUNT(*) FROM runs{where}", params).fetchone()[0])

    def _where(self, name: str | None, kinds: Iterable[str] | None, host: str | None = None,
               since: str | None = None) -> tuple[str, builtins.list[Any]]:
        clauses, params = self._filters(name, kinds, host, since)
        return (" WHERE " + " AND ".join(clauses) if clauses else ""), params

    def _filters(self, name: str | None, kinds: Iterable[str] | None, host: str | None = None,
                 since: str | None = None) -> tuple[builtins.list[str], builtins.list[Any]]:
        """The conditions (and their parameters) that select runs by name, kinds, host and time."""
        clauses: builtins.list[str] = []
        params: builtins.list[Any] = []
        if name is not None:
            clauses.append("name = ?")
            params.append(name)
        if kinds is not None:
            kinds = builtins.list(kinds)
            clauses.append(f"{self._kind_column} IN ({', '.join('?' * len(kinds))})")
            params.extend(kinds)
        if host is not None:
            clauses.append("host = ?")
            params.append(host)
        if since is not None:
            clauses.append("created >= ?")
            params.append(since)
        return clauses, params

    @_guarded("read a run")
    def row(self, run_id: int) -> RunRow:
        """Run ``run_id``'s columns, without its result."""
        rows = self._rows(f"SELECT {self._row_columns} FROM runs WHERE id = ?", [check_run_id(run_id)])
        if not rows:
            raise StoreError(f"no run #{run_id} in {self.path}; `measurefirst runs` lists them")
        return rows[0]

    @_guarded("read the medians")
    def medians(self, name: str) -> builtins.list[float]:
        """The medians (seconds) of the timings saved under ``name``, oldest first, read from the runs'
        columns (for the run-to-run spread)."""
        return [float(r[0]) for r in self.conn.execute(
            f"SELECT median_s FROM runs WHERE name = ? AND {self._kind_column} = 'measurement' "
            "AND median_s IS NOT NULL ORDER BY id", [name])]

    @_guarded("list names")
    def names(self) -> builtins.list[str]:
        return [r[0] for r in self.conn.execute("SELECT DISTINCT name FROM runs ORDER BY name")]

    @_guarded("list names")
    def latest_ids(self) -> dict[str, int]:
        """Each saved name with the id of its latest run (read from the name index alone)."""
        return {str(r[0]): int(r[1]) for r in self.conn.execute("SELECT name, MAX(id) FROM runs GROUP BY name")}

    @_guarded("read a run")
    def result(self, run_id: int) -> Result:
        """The result saved as run ``run_id``, of whatever kind."""
        run_id = check_run_id(run_id)
        row = self.conn.execute(f"SELECT data FROM {self._data_table} WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            self.row(run_id)  # no run: says so
            raise StoreError(f"run #{run_id} in {self.path} holds no result data; remove it with "
                             f"`measurefirst runs delete {run_id}`")
        return self._decode(run_id, row[0])

    def get(self, run_id: int) -> Measured:
        """The measurement (or count) saved as run ``run_id``; StoreError for a run of another kind."""
        return _measured(run_id, self.result(run_id), self.path)

    def _decode(self, run_id: int, data: Any) -> Result:
        from .compact import is_packed, unpack
        from .kinds import parse_json

        if isinstance(data, memoryview):
            data = data.tobytes()
        if not isinstance(data, (str, bytes)):
            raise StoreError(f"run #{run_id} in {self.path} holds no result data; remove it with "
                             f"`measurefirst runs delete {run_id}`")
        try:
            return from_dict(unpack(data) if isinstance(data, bytes) and is_packed(data) else parse_json(data))
        except ValueError as exc:
            raise StoreError(f"run #{run_id} in {self.path} cannot be read: {exc}; remove it with "
                             f"`measurefirst runs delete {run_id}`") from exc

    def latest_run(self, name: str, back: int = 0, *, kinds: Iterable[str] | None = None) -> tuple[int, Result]:
        """The latest run of ``name`` (``back=1``: the one before it), of any kind or of ``kinds``."""
        run_id = self.latest_id(name, back, kinds=kinds)
        return run_id, self.result(run_id)

    @_guarded("read a run")
    def latest_id(self, name: str, back: int = 0, *, kinds: Iterable[str] | None = None) -> int:
        """The id of :meth:`latest_run`, read from the name index alone."""
        if isinstance(back, bool) or not isinstance(back, int) or not 0 <= back <= MAX_RUN_ID:
            raise StoreError(f"runs back must be a whole number from 0 up (as in @NAME~1); got {back!r}")
        where, params = self._where(name, kinds)
        rows = self.conn.execute(f"SELECT id FROM runs{where} ORDER BY id DESC LIMIT 1 OFFSET ?",
                                 (*params, back)).fetchall()
        if not rows:
            known = ", ".join(self.names()[:10]) or "none yet"
            raise StoreError(f"no run named {name!r}" + (f" {back} back" if back else "") + f" in {self.path}; "
                             f"saved names: {known}")
        return int(rows[0][0])

    def latest(self, name: str, back: int = 0) -> tuple[int, Measured]:
        """The latest measurement (or count) of ``name`` (``back=1``: the one before it)."""
        run_id, result = self.latest_run(name, back, kinds=MEASURED_KINDS)
        return run_id, _measured(run_id, result, self.path)

    def resolve(self, ref: str | Ref) -> tuple[RunRow, Result]:
        """The saved run a reference names (``#ID``, ``@NAME``, ``@NAME~K``; see :func:`parse_ref`), of
        any kind, with its row."""
        row = self.resolve_row(ref)
        return row, self.result(row.id)

    def resolve_row(self, ref: str | Ref) -> RunRow:
        """The row of the saved run a reference names (see :meth:`resolve`), without reading its result."""
        parsed = parse_ref(ref) if isinstance(ref, str) else ref
        if parsed is None:
            raise StoreError(f"{ref!r} is not a saved run: give #ID, @NAME or @NAME~K")
        return self.row(parsed.id if parsed.id is not None else self.latest_id(str(parsed.name), parsed.back))

    def iter_results(self, ids: Iterable[int]) -> Iterator[tuple[RunRow, Result]]:
        for i in ids:
            yield self.row(check_run_id(i)), self.result(i)

    def same_as(self, where: str | os.PathLike[str] | None) -> bool:
        """Whether ``where`` (as :class:`Store` takes it) names this store: the same file by device and
        inode (another path to it, a link, ``..``), or the same PostgreSQL URL once its password is hidden."""
        from .safeio import same_file
        from .store_pg import redact

        other = location(where)
        if self.backend == "sqlite":
            return not isinstance(other, str) and same_file(self._file, other)
        return isinstance(other, str) and redact(other) == self.path

    @_guarded("copy runs")
    def copy_to(self, other: "Store") -> tuple[builtins.list[int], int]:
        """Every run of this store saved into ``other``, oldest first, each exactly as it is (its columns
        and its stored result, byte for byte, or in the compact format this version writes when it was
        stored in another; new ids in ``other``); the new ids, and how many runs ``other`` held already.
        A batch of runs is saved whole or not at all, and a run ``other`` holds already (the same name,
        time, host and kind, and the same stored result) is not saved again: a copy made twice, or made
        again after it was interrupted, leaves each run once."""
        if other.read_only:
            raise StoreError(f"cannot copy into the results store {other.path}: it is read-only")
        from .compact import FORMAT, is_packed, pack, packed_format, unpack
        from .kinds import parse_json

        ids: builtins.list[int] = []
        held = 0
        last = 0
        while True:
            batch = self.conn.execute(
                f"SELECT r.id, r.name, r.created, r.device, r.device_name, r.host, r.git_commit, r.median_s, "
                f"r.ci_low_s, r.ci_high_s, r.n_samples, r.complete, {self._kind_column}, "
                f"{'r.summary' if self.schema >= SUMMARY_SCHEMA else 'NULL'}, d.data FROM runs AS r "
                f"LEFT JOIN {self._data_table} AS d ON d.id = r.id WHERE r.id > ? ORDER BY r.id LIMIT ?",
                (last, COPY_BATCH)).fetchall()
            if not batch:
                return ids, held
            there = other._held([str(r[2]) for r in batch])
            rows = []
            for r in batch:
                data = r[14].tobytes() if isinstance(r[14], memoryview) else r[14]
                if packed_format(data) != FORMAT:  # a run that cannot be read is named, and nothing more is copied
                    self._decode(int(r[0]), data)
                    data = pack(unpack(data) if is_packed(data) else parse_json(data))
                if (r[1], r[2], r[5], r[12], _digest(data)) in there:
                    held += 1
                    continue
                summary = r[13] if r[13] is not None else self._summary(int(r[0]), data, r[7:11])
                rows.append(((*r[1:13], summary), data))
            if rows:
                ids += other._guarded_write(rows)
            last = int(batch[-1][0])

    @_guarded("read the runs held")
    def _held(self, created: builtins.list[str]) -> set[tuple[Any, ...]]:
        """The runs created at one of ``created``: (name, created, host, kind, digest of the stored result)."""
        times = sorted(set(created))
        marks = ", ".join("?" * len(times))
        found = self.conn.execute(
            f"SELECT r.name, r.created, r.host, {self._kind_column}, d.data FROM runs AS r LEFT JOIN "
            f"{self._data_table} AS d ON d.id = r.id WHERE r.created IN ({marks})", times).fetchall()
        return {(*f[:4], _digest(f[4])) for f in found}

    @_guarded("save")
    def _guarded_write(self, rows: builtins.list[tuple[tuple[Any, ...], Any]]) -> builtins.list[int]:
        return self._write_rows(rows)

    # -- machine peaks cache ---------------------------------------------------------------------
    @_guarded("read the peaks cache")
    def get_peaks(self, key: str) -> dict[str, Any] | None:
        """The cached peaks under ``key``; None when absent or unreadable (then they are measured again)."""
        if self.backend == "sqlite" and self.conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type='table' AND name='peaks'").fetchone() is None:
            return None
        row = self.conn.execute("SELECT data FROM peaks WHERE key = ?", (key,)).fetchone()
        if row is None or not isinstance(row[0], (str, bytes)):
            return None
        try:
            data = json.loads(row[0])
        except (ValueError, RecursionError):
            return None
        return data if isinstance(data, dict) else None

    @_guarded("cache the peaks")
    def put_peaks(self, key: str, data: dict[str, Any]) -> None:
        if self.read_only:
            return  # a cache: nothing lost, they are measured again next time
        c = self.conn
        c.execute("BEGIN IMMEDIATE")
        try:
            c.execute("INSERT INTO peaks (key, created, data) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET "
                      "created = excluded.created, data = excluded.data", (key, _now(), json.dumps(data)))
            c.execute("COMMIT")
        except BaseException:
            c.execute("ROLLBACK")
            raise


def repack(conn: Any) -> int:
    """Rewrite each stored result that is not in the compact format this version writes (an older compact
    format, or JSON text) in that format, through ``conn`` (a store's connection, either backend), inside
    the caller's transaction and under its write lock; how many were rewritten. Lossless: the result
    read back is the one stored. One that cannot be read is kept as it was, for the error that names it."""
    from .compact import FORMAT, is_packed, pack, packed_format, unpack
    from .kinds import parse_json

    done = last = 0
    while True:
        batch = conn.execute("SELECT id, data FROM run_data WHERE id > ? ORDER BY id LIMIT ?",
                             (last, COPY_BATCH)).fetchall()
        if not batch:
            return done
        for run_id, data in batch:
            data = data.tobytes() if isinstance(data, memoryview) else data
            if packed_format(data) == FORMAT or not isinstance(data, (str, bytes)):
                continue
            try:
                packed = pack(unpack(data) if is_packed(data) else parse_json(data))
            except (ValueError, TypeError):
                continue
            conn.execute("UPDATE run_data SET data = ? WHERE id = ?", (packed, run_id))
            done += 1
        last = int(batch[-1][0])


def _check_regular(path: Path) -> None:
    """StoreError unless ``path`` (which exists) is a regular file, a link to one included."""
    import stat

    mode = path.stat().st_mode
    if stat.S_ISREG(mode):
        return
    kind = ("a character device" if stat.S_ISCHR(mode) else "a FIFO (named pipe)" if stat.S_ISFIFO(mode)
            else "a block device" if stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else "not a file")
    raise StoreError(f"the results store {path} is {kind}, not a regular file; give a file such as results.db "
                     f"with --store PATH or {ENV_VAR}=PATH")


def _lock_holders(path: Path) -> str:
    """The processes holding a lock on ``path`` (Linux: /proc/locks), as ``process 123 (sqlite3)``; empty
    when none or when that cannot be told."""
    try:
        st = path.stat()
        with open("/proc/locks", encoding="ascii", errors="replace") as f:
            lines = f.read(1 << 20).splitlines()
    except OSError:
        return ""
    inode = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    pids = []
    for line in lines:
        parts = line.split()
        if len(parts) > 5 and parts[5] == inode and parts[4].isdigit() and parts[4] not in pids:
            pids.append(parts[4])
    names = []
    for pid in pids[:3]:
        try:
            with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as f:
                names.append(f"process {pid} ({f.read(64).strip()})")
        except OSError:
            names.append(f"process {pid}")
    return ", ".join(names)


def to_current_schema(conn: Any) -> None:
    """A PostgreSQL store's migration from any earlier schema it may hold (3 or 4), in the caller's
    transaction and under its write lock: results made compact in this version's format (:func:`repack`:
    nothing to rewrite from schema 4), then the empty summary column (:func:`add_summary_column`)."""
    repack(conn)
    add_summary_column(conn)


def add_summary_column(conn: Any) -> None:
    """The migration to :data:`SUMMARY_SCHEMA` (either backend, in the caller's transaction, under its
    write lock): the runs gain an empty summary column, at once (no run is read: :meth:`Store.fill_summaries`
    fills it, without the lock)."""
    conn.execute("ALTER TABLE runs ADD COLUMN summary TEXT")


def summary_of(m: Measured) -> str:
    """What a run's history row needs beyond the store's columns (median, CI, repeats), as the compact
    JSON kept beside them (``runs.summary``): a time's precision and own run-to-run spread, a count's
    events per call, precision, event and spread (see :class:`measurefirst.results.regression_checks.StepPoint`);
    ``""`` for a run without samples, which a history leaves out."""
    from .regression_checks import step_point
    from .kinds import Count

    if not has_samples(m):
        return ""
    p = step_point(m)
    if isinstance(m, Count):
        fields: dict[str, Any] = {"value": p.value, "lhw": p.log_half_width, "event": p.event, "spread": m.spread}
    else:
        fields = {"lhw": p.log_half_width, "own": p.own, "dist": list(p.disturbed)}
    return json.dumps(fields, separators=(",", ":"))


def read_summary(r: RunRow) -> "tuple[StepPoint, float] | None":
    """What :func:`summary_of` kept of the run ``r``, with its columns: the run's point and a count's
    spread; None when they cannot tell (a run saved without a summary, or a value missing)."""
    from .regression_checks import StepPoint

    if not r.summary or (r.kind == "measurement" and r.median is None):
        return None
    try:
        s = json.loads(r.summary)
        if r.kind == "count":
            return StepPoint(float(s["value"]), float(s["lhw"]), str(s["event"])), float(s["spread"])
        own, dist = s["own"], s["dist"]  # a summary written before "dist" was kept: the run is read whole
        return StepPoint(float(r.median or 0.0), float(s["lhw"]), "",
                         None if own is None else (float(own[0]), float(own[1]), str(own[2])),
                         tuple(str(code) for code in dist)), 0.0
    except (ValueError, KeyError, TypeError, IndexError):
        return None


def has_samples(m: Measured) -> bool:
    """Whether a measurement has samples (a count, repeats): what a run needs to be saved."""
    from .kinds import Count

    return bool(m.counts) if isinstance(m, Count) else m.summary is not None


def default_name(result: Result) -> str:
    """The name a result is saved under when none is given: its label, else its kind."""
    label = getattr(result, "label", None)
    return label if isinstance(label, str) and label else result.kind


#: Kinds that hold nothing beyond the measurements in them (their tables are recomputed from those):
#: ``--save`` keeps their measurements only. Any other kind is also kept whole (a comparison's verdicts).
MEASUREMENT_CONTAINERS = ("measurement", "count", "saved_run", "history", "sweep", "selfcheck")
#: Kinds of results of many ranks (bench and compare under torchrun): ``--save`` keeps them whole.
RANK_KINDS = ("rank_group", "rank_comparison")


def to_save(results: Iterable[Result], prefix: str = "") -> tuple[builtins.list[Result], builtins.list[str],
                                                                 builtins.list[str]]:
    """What ``--save [PREFIX]`` keeps of ``results``, and under which names: every measurement (or
    count) they hold as its own run, under its label (``PREFIX/label``, or ``PREFIX`` when it is the
    only one), so that histories and ``compare @NAME`` find it; every result that is more than its
    measurements, whole, under ``PREFIX`` (else its label or kind). Also: the labels of the
    measurements left out for having no samples."""
    from .kinds import measured

    results = builtins.list(results)
    # a result of many ranks holds a measurement per rank under one label: it is kept whole only
    every = [m for r in results if r.kind not in RANK_KINDS for m in measured(r)]
    kept = [m for m in every if has_samples(m)]
    names = [(prefix + (f"/{m.label}" if len(kept) > 1 else "")) if prefix else m.label for m in kept]
    whole = [r for r in results if r.kind not in MEASUREMENT_CONTAINERS]
    return [*kept, *whole], names + [prefix or default_name(r) for r in whole], \
        [m.label for m in every if not has_samples(m)]


def keep_unsaved(results: Iterable[Result]) -> Path | None:
    """Write results that could not be saved to a ``measurefirst-unsaved-….json`` file (in the working
    directory, else the temporary one) that ``measurefirst compare`` reads; its path, or None."""
    import tempfile
    import time

    from .safeio import DestinationError, strict_json, write_atomic

    name = f"measurefirst-unsaved-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.json"
    text = strict_json([r.to_dict() for r in results], indent=2)
    for folder in (Path.cwd(), Path(tempfile.gettempdir())):
        try:
            return write_atomic(folder / name, text + "\n", "fallback results file")
        except (DestinationError, OSError):
            continue
    return None


def _measured(run_id: int, result: Result, path: Path | str) -> Measured:
    from .kinds import Count, Measurement

    if not isinstance(result, (Measurement, Count)):
        raise StoreError(f"run #{run_id} in {path} is a {result.kind}, not a measurement; "
                         f"`measurefirst runs show {run_id}` displays it")
    return result


def _kind_of(data: Any) -> str:
    """The kind of a stored result's JSON (``measurement`` when it cannot be told)."""
    try:
        kind = json.loads(data).get("kind")
    except (ValueError, TypeError, AttributeError, RecursionError):
        return "measurement"
    return kind if isinstance(kind, str) else "measurement"


def _finite(x: float) -> float | None:
    return x if x == x and x not in (float("inf"), float("-inf")) else None


def _digest(data: Any) -> str:
    """A stored result's digest (bytes, a database's memoryview, or text), to tell a run held already from
    another."""
    import hashlib

    raw = data if isinstance(data, (bytes, bytearray, memoryview)) else str(data).encode("utf-8")
    return hashlib.sha256(raw).hexdigest()


def _now() -> str:
    import datetime as dt

    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
