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

The parts, each in a module of its own: how a store and its runs are named (:mod:`~measurefirst.results.store_refs`),
the schema, its migrations and a run's row (:mod:`~measurefirst.results.store_schema`), what both backends share
(:mod:`~measurefirst.results.store_base`), the SQLite file (:mod:`~measurefirst.results.store_sqlite`) and the
queries (:mod:`~measurefirst.results.store_queries`). Here: :class:`Store` itself (opening either backend,
saving, deleting, copying, the peaks cache) and what ``--save`` keeps (:func:`to_save`).
"""

from __future__ import annotations

import builtins
import json
import os
import sqlite3
from pathlib import Path
from typing import Any, Iterable

from .errors import StoreError as StoreError  # measurefirst.results.store.StoreError, as before
from .errors import check_text
from .protocol import Result
from .store_base import BUSY_TIMEOUT_MS as BUSY_TIMEOUT_MS
from .store_base import _guarded
from .store_queries import StoreQueries
from .store_refs import (DEFAULT_PATH as DEFAULT_PATH, ENV_VAR as ENV_VAR, MAX_RUN_ID as MAX_RUN_ID,
                         REF_RE as REF_RE, Ref as Ref, check_run_id as check_run_id, default_path as default_path,
                         is_url as is_url, location as location, parse_ref as parse_ref,
                         parse_run_ids as parse_run_ids)
from .store_schema import (COPY_BATCH as COPY_BATCH, MEASURED_KINDS as MEASURED_KINDS,
                           SCHEMA_TABLES as SCHEMA_TABLES, STORE_SCHEMA as STORE_SCHEMA,
                           SUMMARY_SCHEMA as SUMMARY_SCHEMA, RunRow as RunRow,
                           add_summary_column as add_summary_column, has_samples as has_samples,
                           read_summary as read_summary, repack as repack, schema_statements as schema_statements,
                           summary_of as summary_of, to_current_schema as to_current_schema)
from .store_sqlite import APPLICATION_ID as APPLICATION_ID
from .store_sqlite import PAGE_BYTES as PAGE_BYTES
from .store_sqlite import SqliteFile, _check_regular

#: Runs given their summary per transaction by :meth:`Store.fill_summaries`.
SUMMARY_BATCH = 200


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


class Store(StoreQueries, SqliteFile):
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
                if self._file.parent.name == DEFAULT_PATH.parent.name:  # the default folder is made; any other
                    self._file.parent.mkdir(parents=True, exist_ok=True)  # missing folder is refused (a typo, `~`)
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
