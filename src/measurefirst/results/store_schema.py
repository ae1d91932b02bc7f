"""The store's schema, the same on both backends: its tables and their version (:data:`STORE_SCHEMA`), the
migrations of an older store's results and columns, and what a run's row keeps (:class:`RunRow`, with the
summary a history reads instead of the run's samples: :func:`summary_of`)."""

from __future__ import annotations

import builtins
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:  # pragma: no cover  (imported where used: listing runs needs neither numpy nor results)
    from .regression_checks import StepPoint
    from .kinds import Count, Measurement

    #: What a run of a benchmark name holds: a time measurement or a count (``benchmark(..., count=...)``).
    Measured: TypeAlias = "Measurement | Count"
#: The kinds of :data:`Measured`: a history, ``latest`` and ``get`` read only these.
MEASURED_KINDS = ("measurement", "count")

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
#: Runs copied per transaction by :meth:`Store.copy_to`.
COPY_BATCH = 500

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


def schema_statements(types: dict[str, str]) -> builtins.list[str]:
    """The statements that create a store's tables and indexes, with the backend's column types."""
    return [x.strip() for x in SCHEMA_TABLES.format(**types).split(";") if x.strip()]


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
