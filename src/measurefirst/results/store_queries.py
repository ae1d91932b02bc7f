"""The results store's queries, the same on both backends: runs listed and counted by name, kind, host and
date, a run's row and its result, the latest runs of a name and the references that name them, and the
medians a history's spread reads; on the indexes, reading the runs' columns unless a result is asked for."""

from __future__ import annotations

import builtins
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from .errors import StoreError
from .protocol import Result, from_dict
from .store_base import StoreBase, _guarded
from .store_refs import MAX_RUN_ID, Ref, check_run_id, parse_ref
from .store_schema import MEASURED_KINDS, SUMMARY_SCHEMA, RunRow

if TYPE_CHECKING:  # pragma: no cover
    from .store_schema import Measured


class StoreQueries(StoreBase):
    """What reads a store's runs (:class:`~measurefirst.results.store.Store` stands on it)."""

    # -- reading -----------------------------------------------------------------------------
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


def _measured(run_id: int, result: Result, path: Path | str) -> Measured:
    from .kinds import Count, Measurement

    if not isinstance(result, (Measurement, Count)):
        raise StoreError(f"run #{run_id} in {path} is a {result.kind}, not a measurement; "
                         f"`measurefirst runs show {run_id}` displays it")
    return result

