"""``--mf-compare``: the baseline a run's measurements are compared with, read from the saved runs of the
results store or from a JSON report (measurefirst's or pytest-benchmark's)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ..results.importers import from_pytest_benchmark, sniff
from ..results.kinds import Measurement
from ..results.store import Store, StoreError
from . import report as words
from .run import PytestRun


class Baseline:
    """The saved runs that ``--mf-compare`` compares with: ``NAME`` or ``@NAME`` (``--mf-save NAME``),
    ``NAME~K`` (K saves back), a JSON file written by ``--mf-json`` (or ``--benchmark-json`` under
    ``--mf``), or ``""``: each test's latest saved run, whatever its save name. (pytest reads a
    separate ``@NAME`` argument as a file of arguments, so ``--mf-compare @base`` must be written
    ``--mf-compare=@base`` or ``--mf-compare base``.)"""

    def __init__(self, ref: str, store_path: Path | str, lang: str = words.LANG) -> None:
        self.lang = lang
        self.store: Store | None = None
        self.file: dict[str, Measurement] | None = None
        self.latest_ids: dict[str, int] = {}
        self.name: str | None = None
        self.back = 0
        is_file = ref.endswith(".json") or (bool(ref) and not ref.startswith("@") and Path(ref).is_file())
        if ref and not is_file:
            ref = ref if ref.startswith("@") else "@" + ref
            name, _, back = ref[1:].partition("~")
            if not name or "/" in name or (back and not back.isdigit()):
                raise pytest.UsageError(f"--mf-compare takes NAME, @NAME or NAME~K (K saves back), a JSON file, "
                                        f"or nothing; got {ref!r}")
            self.name, self.back = name, int(back or 0)
            self.store = self._open(store_path)
            saved = self._saved_names()
            if name not in saved:
                raise pytest.UsageError(words.no_saved_runs(ref, self.store.path, sorted(saved), self.lang))
        elif ref == "":
            self.store = self._open(store_path)
            for run_id, name in sorted((i, n) for n, i in self.store.latest_ids().items()):
                prefix, sep, rest = name.partition("/")
                if sep:
                    self.latest_ids[rest] = run_id  # oldest first: the last one wins
            if not self.latest_ids:
                raise pytest.UsageError(words.no_saved_runs(None, self.store.path, [], self.lang))
        else:
            self.file = _load_json_baseline(Path(ref))
        self.ref = ref

    def _open(self, path: Path | str) -> Store:
        if isinstance(path, Path) and not path.exists():
            raise pytest.UsageError(words.no_saved_runs(None, path, [], self.lang))
        try:
            return Store(path, create=False)
        except StoreError as exc:
            raise pytest.UsageError(f"--mf-compare: {exc}") from exc

    def _saved_names(self) -> set[str]:
        assert self.store is not None
        return {name.partition("/")[0] for name in self.store.names() if "/" in name}

    @property
    def label(self) -> str:
        return self.ref if self.ref else "latest saved"

    def get(self, name: str) -> Measurement | None:
        if self.file is not None:
            return self.file.get(name)
        assert self.store is not None
        found: Any = None
        if self.name is not None:
            try:
                found = self.store.latest(f"{self.name}/{name}", self.back)[1]
            except StoreError:
                return None
        else:
            run_id = self.latest_ids.get(name)
            found = None if run_id is None else self.store.get(run_id)
        return found if isinstance(found, Measurement) else None  # an instruction count is no time baseline

    def close(self) -> None:
        if self.store is not None:
            self.store.close()


def _load_json_baseline(path: Path) -> dict[str, Measurement]:
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise pytest.UsageError(f"--mf-compare: cannot read {path}: {exc}") from exc
    out: dict[str, Measurement] = {}
    try:
        if isinstance(data, dict) and data.get("kind") == PytestRun.kind:
            out.update((b.name, b.measurement) for b in PytestRun.from_dict(data).benchmarks)
        elif isinstance(data, dict) and isinstance(data.get("benchmarks"), list):
            for b in data["benchmarks"]:  # our --benchmark-json: pytest-benchmark's shape, ours inside
                mf = b.get("measurefirst") if isinstance(b, dict) else None
                if isinstance(mf, dict):
                    out[str(mf["name"])] = Measurement.from_dict(mf["measurement"])
            if not out and sniff(data) == "pytest-benchmark":  # pytest-benchmark's own: by node id (fullname)
                out.update((m.label, m) for m in from_pytest_benchmark(data, str(path)))
        else:
            raise ValueError("no measurefirst benchmarks in it")
    except (KeyError, TypeError, ValueError) as exc:
        raise pytest.UsageError(f"--mf-compare: {path} is not a measurefirst pytest report (--mf-json or "
                                f"--benchmark-json) or pytest-benchmark's JSON: {exc}") from exc
    if not out:
        raise pytest.UsageError(f"--mf-compare: {path} holds no measurefirst measurements "
                                f"(write one with --mf-json PATH)")
    return out
