"""The results store in an SQLite file: opening it (a writer that holds it for a moment is waited for; a
store that cannot be written is read), telling a store from another program's file without touching that
file, creating a new store under the write lock, and migrating an older schema in place."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .errors import StoreError
from .store_base import BUSY_TIMEOUT_MS, StoreBase
from .store_refs import ENV_VAR
from .store_schema import STORE_SCHEMA, add_summary_column, repack, schema_statements

#: Identifies our SQLite files (PRAGMA application_id): ASCII "mfst".
APPLICATION_ID = 0x6D667374
#: A new SQLite store's page: several compact results fit in one (with 4 KiB pages, one 3 KiB result
#: would take a page of its own).
PAGE_BYTES = 16384
_SQLITE_TYPES = {"id": "INTEGER PRIMARY KEY AUTOINCREMENT", "blob": "BLOB", "real": "REAL"}


class SqliteFile(StoreBase):
    """A store's SQLite file: how it is opened, checked, created and migrated."""

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

    def _check_version(self) -> None:
        version = self.conn.execute("PRAGMA user_version").fetchone()[0]
        self.schema = version
        if version > STORE_SCHEMA:
            raise StoreError(f"{self.path} was written by a newer measurefirst (store schema {version}); upgrade")
        if version < 1:
            raise StoreError(f"{self.path} has store schema {version}, which no measurefirst wrote; "
                             f"it is damaged: move it away")


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


def _kind_of(data: Any) -> str:
    """The kind of a stored result's JSON (``measurement`` when it cannot be told)."""
    try:
        kind = json.loads(data).get("kind")
    except (ValueError, TypeError, AttributeError, RecursionError):
        return "measurement"
    return kind if isinstance(kind, str) else "measurement"
