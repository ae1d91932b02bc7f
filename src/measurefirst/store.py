"""Results history: an embedded SQLite file, safe with several writers.

Default location: ``.measurefirst/results.db`` in the working directory; the environment variable
``MEASUREFIRST_STORE`` or an explicit path overrides it. Each run row keeps the measurement's full
JSON (raw samples included), its environment and the git commit of the working directory.

A file that is not a measurefirst store (corrupt, or another program's database) raises
:class:`StoreError` and is never modified.
"""

from __future__ import annotations

import builtins
import csv
import io
import json
import os
import sqlite3
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator

from .results import Count, Measurement, load_result

#: Anything the store keeps: a time measurement or a count (``benchmark(..., count=...)``).
Result = Measurement | Count

#: Identifies our SQLite files (PRAGMA application_id): ASCII "mfst".
APPLICATION_ID = 0x6D667374
STORE_SCHEMA = 1
ENV_VAR = "MEASUREFIRST_STORE"
DEFAULT_PATH = Path(".measurefirst") / "results.db"
BUSY_TIMEOUT_MS = 30_000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    created TEXT NOT NULL,
    device TEXT,
    device_name TEXT,
    host TEXT,
    git_commit TEXT,
    median_s REAL,
    ci_low_s REAL,
    ci_high_s REAL,
    n_samples INTEGER,
    complete INTEGER NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_by_name ON runs(name, id);
CREATE TABLE IF NOT EXISTS peaks (
    key TEXT PRIMARY KEY,
    created TEXT NOT NULL,
    data TEXT NOT NULL
);
"""


class StoreError(RuntimeError):
    """The results store cannot be used as asked; the message says what to do."""


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


def default_path() -> Path:
    env = os.environ.get(ENV_VAR)
    return Path(env) if env else DEFAULT_PATH


def git_commit(cwd: str | os.PathLike[str] | None = None) -> str | None:
    """The commit checked out in ``cwd`` (with ``-dirty`` when there are changes), or None."""
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
        self.path = Path(path) if path is not None else default_path()
        if self.path.exists() and (create or self.path.stat().st_size > 0):
            self._check_header()
        elif not create:
            raise StoreError(f"no results store at {self.path}; save a run first (measurefirst bench --save)")
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.conn = sqlite3.connect(str(self.path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open the results store {self.path}: {exc}") from exc
        try:
            self.conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            self._init()
        except BaseException as exc:
            self.conn.close()
            if isinstance(exc, sqlite3.DatabaseError):
                raise self._foreign(str(exc)) from exc
            raise

    # -- opening -----------------------------------------------------------------------------
    def _foreign(self, why: str) -> StoreError:
        return StoreError(
            f"{self.path} is not a measurefirst results store ({why}); it was left untouched. "
            f"Move it away, or choose another file with --store PATH or {ENV_VAR}=PATH"
        )

    def _check_header(self) -> None:
        try:
            with open(self.path, "rb") as f:
                header = f.read(100)
        except OSError as exc:
            raise StoreError(f"cannot read the results store {self.path}: {exc}") from exc
        if len(header) == 0:
            return  # an empty file (e.g. made by touch) becomes a store
        if not header.startswith(b"SQLite format 3\x00"):
            raise self._foreign("not an SQLite file")
        app_id = int.from_bytes(header[68:72], "big")
        if app_id not in (0, APPLICATION_ID):
            raise self._foreign(f"SQLite application id {app_id:#x}")

    def _init(self) -> None:
        c = self.conn
        if c.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID:
            self._check_version()
            c.execute("PRAGMA journal_mode=WAL")
            c.execute("CREATE TABLE IF NOT EXISTS peaks (key TEXT PRIMARY KEY, created TEXT NOT NULL, data TEXT NOT NULL)")
            return
        # Not (yet) ours: decide under the write lock, so that a store another process is creating at
        # this very moment is seen whole (its tables and its application id together), never half.
        c.execute("BEGIN IMMEDIATE")
        try:
            app_id = c.execute("PRAGMA application_id").fetchone()[0]
            tables = {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if app_id == 0 and tables - {"sqlite_sequence"}:
                raise self._foreign("it holds other tables: " + ", ".join(sorted(tables)))
            if app_id not in (0, APPLICATION_ID):
                raise self._foreign(f"SQLite application id {app_id:#x}")
            if app_id == 0:
                for statement in filter(str.strip, _SCHEMA.split(";")):
                    c.execute(statement)
                c.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                c.execute(f"PRAGMA user_version = {STORE_SCHEMA}")
            c.execute("COMMIT")
        except BaseException:
            c.execute("ROLLBACK")
            raise
        self._check_version()
        c.execute("PRAGMA journal_mode=WAL")

    def _check_version(self) -> None:
        version = self.conn.execute("PRAGMA user_version").fetchone()[0]
        if version > STORE_SCHEMA:
            raise StoreError(f"{self.path} was written by a newer measurefirst (store schema {version}); upgrade")

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing -----------------------------------------------------------------------------
    def save(self, m: Result, name: str | None = None, *, commit: str | None = None) -> int:
        """Save one measurement (or count) under ``name`` (default: its label); returns the run id."""
        return self.save_many([m], names=[name] if name else None, commit=commit)[0]

    def save_many(self, ms: Iterable[Result], *, names: builtins.list[str] | None = None,
                  commit: str | None = None) -> builtins.list[int]:
        """Save measurements or counts in one transaction. A count keeps no time: its row's median and
        CI columns are empty, its samples column holds its repeats."""
        ms = list(ms)
        empty = [m.label for m in ms if (not m.counts if isinstance(m, Count) else m.summary is None)]
        if empty:
            raise ValueError(f"{empty[0]!r} has no samples (an interrupted or failed run); nothing to save")
        commit = commit if commit is not None else git_commit()
        ids = []
        c = self.conn
        c.execute("BEGIN IMMEDIATE")
        try:
            for i, m in enumerate(ms):
                name = names[i] if names and i < len(names) and names[i] else m.label
                ci = None if isinstance(m, Count) else m.ci
                median = None if isinstance(m, Count) else _finite(m.median)
                n = m.n_repeats if isinstance(m, Count) else m.n_samples
                cur = c.execute(
                    "INSERT INTO runs (name, created, device, device_name, host, git_commit, median_s, "
                    "ci_low_s, ci_high_s, n_samples, complete, data) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                    (name, m.env.get("timestamp") or _now(), m.device, m.env.get("device_name"),
                     m.env.get("hostname"), commit, median, None if ci is None else ci[0],
                     None if ci is None else ci[1], n, int(m.complete), m.to_json(indent=None)),
                )
                assert cur.lastrowid is not None
                ids.append(int(cur.lastrowid))
            c.execute("COMMIT")
        except BaseException:
            c.execute("ROLLBACK")
            raise
        return ids

    def delete(self, run_id: int) -> bool:
        c = self.conn
        c.execute("BEGIN IMMEDIATE")
        try:
            n = c.execute("DELETE FROM runs WHERE id = ?", (run_id,)).rowcount
            c.execute("COMMIT")
        except BaseException:
            c.execute("ROLLBACK")
            raise
        return n > 0

    # -- reading -----------------------------------------------------------------------------
    _COLS = "id, name, created, device, device_name, host, git_commit, median_s, ci_low_s, ci_high_s, n_samples, complete"

    def list(self, name: str | None = None) -> list[RunRow]:
        """Saved runs, oldest first (all, or those of one name)."""
        if name is None:
            rows = self.conn.execute(f"SELECT {self._COLS} FROM runs ORDER BY id")
        else:
            rows = self.conn.execute(f"SELECT {self._COLS} FROM runs WHERE name = ? ORDER BY id", (name,))
        return [RunRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], bool(r[11])) for r in rows]

    def names(self) -> builtins.list[str]:
        return [r[0] for r in self.conn.execute("SELECT DISTINCT name FROM runs ORDER BY name")]

    def get(self, run_id: int) -> Result:
        row = self.conn.execute("SELECT data FROM runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise StoreError(f"no run #{run_id} in {self.path}; `measurefirst runs` lists them")
        return load_result(json.loads(row[0]))

    def latest(self, name: str, back: int = 0) -> tuple[int, Result]:
        """The latest run of ``name`` (``back=1``: the one before it)."""
        rows = self.conn.execute("SELECT id, data FROM runs WHERE name = ? ORDER BY id DESC LIMIT 1 OFFSET ?",
                                 (name, back)).fetchall()
        if not rows:
            known = ", ".join(self.names()[:10]) or "none yet"
            raise StoreError(f"no run named {name!r}" + (f" {back} back" if back else "") + f" in {self.path}; "
                             f"saved names: {known}")
        return int(rows[0][0]), load_result(json.loads(rows[0][1]))

    def iter_measurements(self, ids: Iterable[int]) -> Iterator[tuple[RunRow, Result]]:
        rows = {r.id: r for r in self.list()}
        for i in ids:
            if i not in rows:
                raise StoreError(f"no run #{i} in {self.path}")
            yield rows[i], self.get(i)

    # -- machine peaks cache ---------------------------------------------------------------------
    def get_peaks(self, key: str) -> dict[str, Any] | None:
        row = self.conn.execute("SELECT data FROM peaks WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def put_peaks(self, key: str, data: dict[str, Any]) -> None:
        c = self.conn
        c.execute("BEGIN IMMEDIATE")
        try:
            c.execute("INSERT OR REPLACE INTO peaks (key, created, data) VALUES (?, ?, ?)",
                      (key, _now(), json.dumps(data)))
            c.execute("COMMIT")
        except BaseException:
            c.execute("ROLLBACK")
            raise

    # -- export ------------------------------------------------------------------------------
    def export(self, ids: Iterable[int], fmt: str) -> str:
        """Runs as ``json`` (full, with raw samples), ``csv`` or ``markdown`` (one line per run)."""
        pairs = list(self.iter_measurements(ids))
        if fmt == "json":
            return json.dumps([{"id": r.id, "name": r.name, "git_commit": r.git_commit, **m.to_dict()}
                               for r, m in pairs], indent=2, allow_nan=False)
        header = ["id", "name", "created", "device", "device_name", "git_commit", "median_s", "ci_low_s",
                  "ci_high_s", "samples", "complete", "warnings"]
        header += ["per_call_count", "event"]
        records = [[r.id, r.name, r.created, r.device, r.device_name, r.git_commit, None, None, None, m.n_repeats,
                    m.complete, " ".join(w.code for w in m.warnings), m.per_call, m.event]
                   if isinstance(m, Count) else
                   [r.id, r.name, r.created, r.device, r.device_name, r.git_commit, m.median,
                    None if m.ci is None else m.ci[0], None if m.ci is None else m.ci[1], m.n_samples,
                    m.complete, " ".join(w.code for w in m.warnings), None, None] for r, m in pairs]
        if fmt == "csv":
            buf = io.StringIO()
            w = csv.writer(buf)
            w.writerow(header)
            w.writerows(records)
            return buf.getvalue()
        if fmt in ("markdown", "md"):
            lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
            lines += ["| " + " | ".join("" if x is None else (f"{x:.6g}" if isinstance(x, float) else str(x))
                                        for x in rec) + " |" for rec in records]
            return "\n".join(lines) + "\n"
        raise ValueError(f"export format must be json, csv or markdown; got {fmt!r}")


def _finite(x: float) -> float | None:
    return x if x == x and x not in (float("inf"), float("-inf")) else None


def _now() -> str:
    import datetime as dt

    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
