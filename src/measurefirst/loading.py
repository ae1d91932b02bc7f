"""Reading results back, of any kind: result files, saved runs (``#ID``, ``@NAME``, ``@NAME~K``) and
histories from the results store. Used by ``measurefirst report``; nothing here measures.

Each result kind is imported only when a file holds one, so reading measurements needs no torch.
"""

from __future__ import annotations

import itertools
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .results import Count, Measurement

#: ``#12`` (a run id), ``@matmul`` (the latest run of a name), ``@matmul~2`` (two runs before it).
REF_RE = re.compile(r"^(#(?P<id>\d+)|@(?P<name>[^~]+)(~(?P<back>\d+))?)$")
KINDS = ("measurement", "count", "saved_run", "comparison", "sweep", "profile", "profile_diff", "step",
         "diagnosis", "history")


class LoadError(ValueError):
    """A target cannot be read as results; the message says what it is and what to give instead."""


def from_data(data: Any, source: str = "results") -> list[Any]:
    """Results from parsed JSON: one result, a list of them, or ``measurefirst step --json``'s
    ``{"steps": [...], "comparison": ...}``."""
    if isinstance(data, list):
        out: list[Any] = []
        for i, item in enumerate(data):
            out.extend(from_data(item, f"{source}[{i}]"))
        return out
    if not isinstance(data, dict):
        raise LoadError(f"{source} is {type(data).__name__}, not a measurefirst result")
    if "kind" not in data and isinstance(data.get("steps"), list):
        out = from_data(data["steps"], f"{source}.steps")
        if data.get("comparison") is not None:
            out.extend(from_data(data["comparison"], f"{source}.comparison"))
        return out
    kind = data.get("kind")
    if kind not in KINDS:
        raise LoadError(f"{source} has no \"kind\" measurefirst knows (got {str(kind)[:40]!r}; known: "
                        f"{', '.join(KINDS)}); is it a measurefirst results file?")
    try:
        return [_load(kind, data)]
    except LoadError:
        raise
    except (ValueError, KeyError, TypeError, AttributeError, IndexError, RecursionError) as exc:
        raise LoadError(f"{source} is not a valid {kind} result: {type(exc).__name__}: {exc}") from exc


def _load(kind: str, d: dict[str, Any]) -> Any:
    if kind in ("measurement", "count"):
        from .results import load_result

        m = load_result(d)
        if "id" in d and "name" in d:  # `measurefirst runs export` keeps the run's id and name
            from .history import SavedRun

            return SavedRun(int(d["id"]), str(d["name"]), str(m.env.get("timestamp") or ""),
                            d.get("git_commit"), m)
        return m
    if kind == "saved_run":
        from .history import SavedRun

        return SavedRun.from_dict(d)
    if kind == "history":
        from .history import History

        return History.from_dict(d)
    if kind == "comparison":
        from .compare import Comparison

        return Comparison.from_dict(d)
    if kind == "sweep":
        from .sweep import SweepResult

        return SweepResult.from_dict(d)
    if kind == "profile":
        from .profiling.capture import Profile

        return Profile.from_dict(d)
    if kind == "profile_diff":
        from .profiling.diff import ProfileDiff

        return ProfileDiff.from_dict(d)
    if kind == "step":
        from .step import StepResult

        return StepResult.from_dict(d)
    from .doctor import Diagnosis

    return Diagnosis.from_dict(d)


def load_measurements(data: Any, source: str = "results") -> "list[Measurement | Count]":
    """Every measurement (or instruction count) in a parsed results document: a measurement, a count,
    a comparison, a sweep, a selfcheck, or a list of those (what ``measurefirst
    bench|compare|sweep|selfcheck -o`` and ``runs export`` write). Raises ``ValueError`` (only) naming
    what is wrong."""
    from .results import measurements_in

    items = data if isinstance(data, list) else [data]
    out: list[Measurement | Count] = []
    for i, item in enumerate(items):
        path = f"{source}[{i}]" if isinstance(data, list) else source
        kind = item.get("kind") if isinstance(item, dict) else None
        if kind == "sweep":
            from .sweep import SweepResult

            out.extend(SweepResult.from_dict(item).measurements())
        elif kind == "selfcheck":
            from .selfcheck import SelfCheck

            out.extend(SelfCheck.from_dict(item).measurements)
        else:
            out.extend(measurements_in(item, path))
    return out


def load_file(path: str | os.PathLike[str]) -> list[Any]:
    from .results import parse_json

    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise LoadError(f"cannot read {p}: {exc.strerror or exc}") from exc
    try:
        data = parse_json(raw)
    except ValueError as exc:
        raise LoadError(f"{p}: {exc}; give a file written by measurefirst (--json or -o)") from None
    return from_data(data, str(p))


def load_target(target: str, store: str | os.PathLike[str] | None = None) -> list[Any]:
    """The results ``target`` names: a result file, ``#ID``, ``@NAME``, ``@NAME~K`` (saved runs), or the
    name of a history in the store (every saved run of that name)."""
    from .store import Store, StoreError

    m = REF_RE.match(target)
    if m is None and Path(target).is_file():
        return load_file(target)
    if m is not None:
        from .history import SavedRun

        with Store(store, create=False) as st:
            if m.group("id"):
                run_id = int(m.group("id"))
                measurement = st.get(run_id)
            else:
                run_id, measurement = st.latest(m.group("name"), int(m.group("back") or 0))
            row = next(r for r in st.list() if r.id == run_id)
            return [SavedRun.from_row(row, measurement)]
    try:
        st = Store(store, create=False)
    except StoreError as exc:
        raise LoadError(f"{target!r} is not a file, and there is no results store to find a history of that "
                        f"name in ({exc})") from exc
    with st:
        if not st.list(target):
            names = ", ".join(itertools.islice(st.names(), 10)) or "none yet"
            raise LoadError(f"{target!r} is not a file, a saved run (#ID, @NAME, @NAME~K) or a history name in "
                            f"{st.path}; saved names: {names}")
        from .history import load_history

        return [load_history(st, target)]


def load_targets(targets: list[str], store: str | os.PathLike[str] | None = None) -> list[Any]:
    out: list[Any] = []
    for t in targets:
        out.extend(load_target(t, store))
    return out
