"""Reading results back, of any kind: result files, saved runs (``#ID``, ``@NAME``, ``@NAME~K``) and
histories from the results store. :func:`load` is ``measurefirst.load``; :func:`load_targets` serves
``measurefirst report``. Nothing here measures.

Each result kind is imported only when a file holds one, so reading measurements needs no torch.
"""

from __future__ import annotations

import io
import itertools
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    from .kinds import Count, Measurement

from .protocol import KINDS, from_dict as result_from_dict
from .regression import Regression

if TYPE_CHECKING:  # pragma: no cover
    from .protocol import Result
    from .store import Ref, Store


class LoadError(ValueError):
    """A target cannot be read as results; the message says what it is and what to give instead."""


def from_data(data: Any, source: str = "results") -> list[Any]:
    """Results from parsed JSON: one result, or a list of them."""
    if isinstance(data, list):
        out: list[Any] = []
        for i, item in enumerate(data):
            out.extend(from_data(item, f"{source}[{i}]"))
        return out
    if not isinstance(data, dict):
        raise LoadError(f"{source} is {type(data).__name__}, not a measurefirst result")
    kind = data.get("kind")
    if kind is None and _foreign(data):
        return list(_import(data, source))
    if kind is None and isinstance(data.get("steps"), list):
        kind = "step_comparison"  # ``measurefirst step --json`` before it named its kind
    if not isinstance(kind, str) or kind not in KINDS:
        raise LoadError(f"{source} has no \"kind\" measurefirst knows (got {str(kind)[:40]!r}; known: "
                        f"{', '.join(KINDS)}); is it a measurefirst, pytest-benchmark or pyperf results file?")
    try:
        return [_load(data)]
    except LoadError:
        raise
    except (ValueError, KeyError, TypeError, AttributeError, IndexError, RecursionError) as exc:
        raise LoadError(f"{source} is not a valid {kind} result: {type(exc).__name__}: {exc}") from exc


def _foreign(data: Any) -> bool:
    """Whether ``data`` is another tool's results (pytest-benchmark, pyperf), read by :mod:`measurefirst.results.importers`."""
    from .importers import sniff

    return sniff(data) is not None


def _import(data: Any, source: str) -> "list[Measurement]":
    from .importers import measurements

    try:
        return measurements(data, source)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise LoadError(str(exc) if isinstance(exc, ValueError) else
                        f"{source} is malformed: {type(exc).__name__}: {exc}") from exc


def _load(d: dict[str, Any]) -> "Result":
    result = result_from_dict(d)
    if d.get("kind") in ("measurement", "count") and "id" in d and "name" in d:
        # `measurefirst runs export` keeps the run's id and name
        from .history import SavedRun
        from .kinds import Count, Measurement

        assert isinstance(result, (Measurement, Count))
        return SavedRun(int(d["id"]), str(d["name"]), str(result.env.get("timestamp") or ""), d.get("git_commit"),
                        result)
    return result


def load_measurements(data: Any, source: str = "results") -> "list[Measurement | Count]":
    """Every measurement (or instruction count) in a parsed results document: a measurement, a count,
    a comparison, a sweep, a selfcheck, or a list of those (what ``measurefirst
    bench|compare|sweep|selfcheck -o`` and ``runs export`` write). Raises ``ValueError`` (only) naming
    what is wrong."""
    from .kinds import measurements_in

    items = data if isinstance(data, list) else [data]
    out: list[Measurement | Count] = []
    for i, item in enumerate(items):
        path = f"{source}[{i}]" if isinstance(data, list) else source
        kind = item.get("kind") if isinstance(item, dict) else None
        if kind is None and _foreign(item):
            out.extend(_import(item, path))
        elif kind == "sweep":
            from .sweep import SweepResult

            out.extend(SweepResult.from_dict(item).measurements)
        elif kind == "selfcheck":
            from .selfcheck import SelfCheck

            out.extend(SelfCheck.from_dict(item).measurements)
        else:
            out.extend(measurements_in(item, path))
    return out


def load_file(path: str | os.PathLike[str]) -> list[Any]:
    from .kinds import parse_json

    p = Path(path)
    try:
        raw = _read_results_file(p)
    except OSError as exc:
        raise LoadError(f"cannot read {p}: {exc.strerror or exc}") from exc
    try:
        data = parse_json(raw)
    except ValueError as exc:
        raise LoadError(f"{p}: {exc}; give a file written by measurefirst (--json or -o)") from None
    return from_data(data, str(p))


def _read_results_file(p: Path) -> bytes:
    """The bytes of a regular file of at most :data:`MAX_RESULTS_FILE_BYTES`, its type and size checked
    before reading (a FIFO would block, ``/dev/zero`` never ends); LoadError for anything else."""
    import stat

    def check(mode: int) -> None:
        if not stat.S_ISREG(mode):
            kind = ("a directory" if stat.S_ISDIR(mode) else "a character device" if stat.S_ISCHR(mode)
                    else "a FIFO (named pipe)" if stat.S_ISFIFO(mode) else "not a regular file")
            raise LoadError(f"{p} is {kind}; give a results file written by measurefirst (--json or -o)")

    check(os.stat(p).st_mode)  # before opening: opening a device can act on it
    fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO swapped in cannot block the open
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        check(st.st_mode)
        if st.st_size > MAX_RESULTS_FILE_BYTES:
            raise LoadError(f"{p} is {st.st_size / 2**20:.0f} MiB; at most {MAX_RESULTS_FILE_BYTES // 2**20} MiB "
                            f"are read: give a smaller results file")
        raw = f.read(MAX_RESULTS_FILE_BYTES + 1)
    if len(raw) > MAX_RESULTS_FILE_BYTES:  # it grew while being read
        raise LoadError(f"{p} is over {MAX_RESULTS_FILE_BYTES // 2**20} MiB; at most that is read: "
                        f"give a smaller results file")
    if raw[:2] == b"\x1f\x8b":  # gzip (pyperf writes f.json.gz compressed): read as far as the same limit
        import gzip
        import zlib

        try:
            with gzip.GzipFile(fileobj=io.BytesIO(raw)) as z:
                raw = z.read(MAX_RESULTS_FILE_BYTES + 1)
        except (OSError, EOFError, zlib.error) as exc:
            raise LoadError(f"{p} is a damaged gzip file ({exc}); give the file as it was written") from None
        if len(raw) > MAX_RESULTS_FILE_BYTES:
            raise LoadError(f"{p} holds over {MAX_RESULTS_FILE_BYTES // 2**20} MiB once decompressed; at most that is "
                            f"read: give a smaller results file")
    return raw


def load(path: str | os.PathLike[str]) -> "Result | list[Result]":
    """The result a file written by measurefirst (``--json``, ``-o``, ``to_json()``) holds, of its kind
    (a list for a file holding several); or the measurements of pytest-benchmark's JSON (``--benchmark-json``,
    ``.benchmarks/<machine>/NNNN_*.json``) or pyperf's, one per benchmark, each marking its source
    (``m.imported``). :class:`LoadError` (a ``ValueError``) names the file and
    says what to give instead. Stored forms of older versions are migrated."""
    found = load_file(path)
    if not found:
        raise LoadError(f"{path} holds no results; give a file written by measurefirst (--json or -o)")
    return found[0] if len(found) == 1 else found


def _expand(result: Any) -> list[Any]:
    """A step comparison as its steps and its comparison, the way the report shows them."""
    if getattr(result, "kind", None) == "step_comparison":
        return [*result.steps, *([] if result.comparison is None else [result.comparison])]
    return [result]


def load_target(target: str, store: str | os.PathLike[str] | None = None) -> list[Any]:
    """The results ``target`` names: a result file, ``#ID``, ``@NAME``, ``@NAME~K`` (saved runs), or the
    name of a history in the store (every saved run of that name)."""
    from .store import Store, StoreError, parse_ref

    ref = parse_ref(target)
    if ref is None and Path(target).is_file():
        return load_file(target)
    if ref is not None:
        from .history import SavedRun
        from .kinds import Count, Measurement

        with Store(store, create=False) as st:
            row, result = st.resolve(ref)
        return [SavedRun.from_row(row, result) if isinstance(result, (Measurement, Count)) else result]
    try:
        st = Store(store, create=False)
    except StoreError as exc:
        raise LoadError(f"{target!r} is not a file, and there is no results store to find a history of that "
                        f"name in ({exc})") from exc
    with st:
        if not st.count(target):
            names = ", ".join(itertools.islice(st.names(), 10)) or "none yet"
            raise LoadError(f"{target!r} is not a file, a saved run (#ID, @NAME, @NAME~K) or a history name in "
                            f"{st.path}; saved names: {names}")
        from .group_history import history_of

        return [history_of(st, target)]


def imported_runs(paths: Sequence[str | os.PathLike[str]]) -> "list[tuple[Measurement, Path]]":
    """Every benchmark of every run of another tool (pytest-benchmark, pyperf) in ``paths``: files as given,
    folders (pytest-benchmark's ``.benchmarks/``) searched for ``*.json``; oldest run first, each with its
    file. A path that is missing or holds anything else is a :class:`LoadError` naming it, before anything
    is returned (half a history is worse than none)."""
    from .kinds import Measurement

    files: list[Path] = []
    seen: set[Path] = set()
    for p in map(Path, paths):
        if not p.exists():
            raise LoadError(f"{p} does not exist; give pytest-benchmark's .benchmarks folder, or its or pyperf's "
                            f"JSON files")
        for f in (sorted([*p.rglob("*.json"), *p.rglob("*.json.gz")]) if p.is_dir() else [p]):
            if f.resolve() not in seen:  # a file given twice (or inside a folder given too) is read once
                seen.add(f.resolve())
                files.append(f)
    if not files:
        raise LoadError(f"no *.json files in {', '.join(map(str, paths))}; give pytest-benchmark's .benchmarks "
                        f"folder (written by --benchmark-autosave), or its or pyperf's JSON files")
    found: list[tuple[Measurement, Path]] = []
    for f in files:
        results = load_file(f)
        if not results:  # issue 38: `[]` went on to "no results store"
            raise LoadError(f"{f} holds no benchmark to import (an empty list of results); give pytest-benchmark's or "
                            f"pyperf's JSON results, or leave it out")
        for m in results:
            if not isinstance(m, Measurement) or m.imported is None:
                raise LoadError(f"{f} holds measurefirst results, not another tool's; leave it out (measurefirst "
                                f"saves its own with --save)")
            found.append((m, f))
    return sorted(found, key=lambda x: str(x[0].env.get("timestamp") or ""))


def imported_name(m: "Measurement", prefix: str | None = None) -> str:
    """The name ``runs import`` saves an imported benchmark under: its test's name (pytest-benchmark's
    ``name``, else the label), or ``PREFIX/<node id>`` (what ``pytest --mf --mf-save PREFIX`` would save,
    so that ``pytest --mf --mf-compare PREFIX`` finds it)."""
    if prefix:
        return f"{prefix}/{m.label}"
    name = m.options.get("name")
    return name if isinstance(name, str) and name else m.label


def import_runs(store: "Store", found: Sequence[tuple["Measurement", Path]],
                prefix: str | None = None) -> tuple[list[int], int]:
    """Save what :func:`imported_runs` found in ``store``, each benchmark under :func:`imported_name` with its
    run's time and commit (none when the file names none: never this checkout's), one file per
    transaction; a benchmark of a run already imported (same name and time) is skipped. Returns the new
    run ids and the number skipped."""
    seen = {(row.name, row.created) for row in store.list()}
    ids: list[int] = []
    skipped = 0
    for _, group in itertools.groupby(found, key=lambda x: x[1]):
        ms = [m for m, _ in group]
        todo = []
        for m in ms:  # a run this import saved already counts too: the same file under two names is one run
            key = (imported_name(m, prefix), str(m.env.get("timestamp") or ""))
            if key not in seen:
                seen.add(key)
                todo.append(m)
        skipped += len(ms) - len(todo)
        for commit in sorted({str(m.env.get("git_commit") or "") for m in todo}):
            same = [m for m in todo if str(m.env.get("git_commit") or "") == commit]
            ids += store.save_many(same, names=[imported_name(m, prefix) for m in same], commit=commit)
    return ids, skipped


#: A results file larger than this is refused before it is read.
MAX_RESULTS_FILE_BYTES = 256 * 2**20


def looks_saved(target: str) -> bool:
    """A saved result: ``#ID``, ``@NAME``, ``@NAME~K``, or a file name ending in ``.json`` (never run as code)."""
    from .store import parse_ref

    return parse_ref(target) is not None or target.strip().lower().endswith(".json")


def saved_targets(targets: Sequence[str]) -> bool:
    """Whether ``targets`` name saved results (see :func:`looks_saved`) rather than code to run; a mix
    of both is a :class:`LoadError` saying so."""
    saved = [t for t in targets if looks_saved(t)]
    live = [t for t in targets if not looks_saved(t)]
    if saved and live:
        raise LoadError(f"cannot mix saved results ({saved[0]}) with live targets ({live[0]}); compare files, "
                        f"#ID and @NAME with each other, or statements and functions live")
    return bool(saved)


def _measured_run(st: "Store", ref: "Ref", target: str) -> list[Any]:
    """The measurements (or counts) of the saved run ``ref`` names in the open store ``st``."""
    from .kinds import measured

    result = st.resolve(ref)[1]
    found = measured(result)
    if not found:
        raise LoadError(f"{target} is a {result.kind}, which holds no measurements to compare")
    return found


def load_measured(target: str, store: str | os.PathLike[str] | None = None) -> list[Any]:
    """The measurements (or counts) a results file or a saved run (``#ID``, ``@NAME~K``) holds, with
    unique labels, for a regression check; :class:`LoadError` saying what to give otherwise."""
    from .kinds import parse_json
    from .store import Store, parse_ref

    ref = parse_ref(target)
    if ref is not None:
        with Store(store, create=False) as st:
            return _measured_run(st, ref, target)
    path = Path(target)
    if not path.is_file():
        what = ("is a directory" if path.is_dir() else "is not a regular file (a named pipe or a device)"
                if path.exists() else "does not exist")
        raise LoadError(f"results file {target} {what}; a target ending in .json is read as a results file, never run")
    try:
        if path.stat().st_size > MAX_RESULTS_FILE_BYTES:
            raise LoadError(f"results file {target} is {path.stat().st_size / 2**20:.0f} MiB; at most "
                            f"{MAX_RESULTS_FILE_BYTES // 2**20} MiB are read")
        found = load_measurements(parse_json(path.read_bytes()), source=path.name)
    except OSError as exc:
        raise LoadError(f"cannot read results file {target}: {exc.strerror or exc}") from None
    except LoadError:
        raise
    except ValueError as exc:
        raise LoadError(f"{target} is not a valid measurefirst results file: {exc}") from None
    if not found:
        raise LoadError(f"{target} holds no measurements")
    labels = [x.label for x in found]
    dupes = sorted({x for x in labels if labels.count(x) > 1})
    if dupes:
        raise LoadError(f"{target} holds {labels.count(dupes[0])} results labelled {dupes[0]!r}; labels must "
                        f"be unique within a file to be matched (re-run with distinct --label)")
    return found


def check_saved(targets: Sequence[str], *, store: str | os.PathLike[str] | None = None, gate: bool = False,
                threshold: float | None = None, run_to_run: float | None = None) -> "Regression":
    """The regression check of saved results: BASE and NEW (results files, ``#ID``, ``@NAME~K``), or one
    ``@NAME`` (its latest run against the one before). The intervals include ``run_to_run`` (else the
    spread measured from the saved runs of @NAME, else the assumed one). ``ValueError``
    (:class:`LoadError`) says what to give instead."""
    from .regression_checks import check_regression
    from .store import parse_ref

    refs = list(targets)
    if len(refs) == 1:
        ref = parse_ref(refs[0])
        if ref is None or ref.name is None or ref.back:
            raise ValueError(f"with one target, give @NAME: its latest run is checked against the one before; "
                             f"{refs[0]} names one run: give it and the run to check against, such as "
                             f"{refs[0]} @{ref.name if ref is not None and ref.name else 'NAME'}")
        refs = [f"@{ref.name}~1", refs[0]]
    if len(refs) != 2:
        raise ValueError("a regression check takes BASE and NEW (files, #ID or @NAME)")
    names = {r.name for r in map(parse_ref, refs) if r is not None and r.name}
    name = names.pop() if len(names) == 1 else None
    suite = _suite_check(refs, store, gate=gate, threshold=threshold, run_to_run=run_to_run)
    if suite is not None:
        return suite
    groups = _group_results(refs, store)
    if groups is not None:  # runs of many ranks: collectives, bench or compare under torchrun
        from .group_checks import check_groups
        from .group_history import GroupHistory, history_of
        from .store import Store

        spread, source = run_to_run, "given"
        if spread is None and name is not None:  # collectives keep no samples: their spread from the saved runs
            with Store(store, create=False) as st:
                h = history_of(st, name)
            spread, source = (h.spread(), "history") if isinstance(h, GroupHistory) else (None, "")
        return check_groups(*groups, base_name=refs[0], new_name=refs[1], gate=gate, threshold=threshold,
                            run_to_run=spread, run_to_run_source=source if spread is not None else "")
    base, new = (load_measured(t, store) for t in refs)
    # runs of one name: measure their spread
    spread = run_to_run if run_to_run is not None or name is None else _saved_spread(name, store)
    source = "given" if run_to_run is not None else "history" if spread is not None else ""
    return check_regression(base, new, base_name=refs[0], new_name=refs[1], gate=gate, threshold=threshold,
                            label=name, run_to_run=spread, run_to_run_source=source)


def suite_members(name: str, store: str | os.PathLike[str] | None) -> list[str]:
    """The names saved under the suite ``name`` (``name/...``: a suite saved by ``pytest --mf --mf-save
    NAME`` or imported with ``runs import --as NAME``), sorted; empty when a run is named ``name`` itself
    (then it is a benchmark, not a suite) or none is under it."""
    from .store import Store

    with Store(store, create=False) as st:
        return _members(st, name)


def _members(st: "Store", name: str) -> list[str]:
    """:func:`suite_members` in the open store ``st``."""
    if st.list(name, limit=1):
        return []
    return sorted(n for n in st.names() if n.startswith(name + "/"))


def _suite_check(refs: Sequence[str], store: str | os.PathLike[str] | None, *, gate: bool,
                 threshold: float | None, run_to_run: float | None) -> "Regression | None":
    """``@NAME~K`` against ``@NAME~J`` of a suite (:func:`suite_members`): each benchmark of the suite, its
    run K back against its run J back, one change per benchmark with its own saved spread, the suite's
    comparisons sharing one error (:func:`~measurefirst.results.regression.look_level`); a benchmark
    with too few runs is listed as unmatched. ``None`` when the refs do not name one suite."""
    from .regression import look_level
    from .regression_checks import change
    from .store import Ref, Store, parse_ref

    parsed = [parse_ref(r) for r in refs]
    if any(p is None or p.name is None for p in parsed) or len({p.name for p in parsed if p is not None}) != 1:
        return None
    name = str(parsed[0].name) if parsed[0] is not None else ""
    backs = [p.back if p is not None else 0 for p in parsed]
    changes, unmatched = [], []
    with Store(store, create=False) as st:  # one store for the whole suite (a PostgreSQL one is a connection)
        members = _members(st, name)
        if not members:
            return None
        for m in members:
            short = m[len(name) + 1:]
            try:
                base, new = (_measured_run(st, Ref(name=m, back=k), f"@{m}~{k}" if k else f"@{m}") for k in backs)
            except (LoadError, ValueError):
                unmatched.append(short)
                continue
            spread = run_to_run if run_to_run is not None else _spread_in(st, m)
            source = "given" if run_to_run is not None else "history" if spread is not None else ""
            changes.append(change(base[0], new[0], threshold=threshold, label=short, run_to_run=spread,
                                  run_to_run_source=source, level=look_level(len(members))))
    if not changes:
        raise LoadError(f"no benchmark of the suite {name!r} has the runs {refs[0]} and {refs[1]} ("
                        f"{len(members)} benchmark(s), e.g. {members[0]!r}): save more runs, or name one benchmark")
    return Regression(refs[0], refs[1], tuple(changes), tuple(unmatched), gate)


def _group_results(refs: Sequence[str], store: str | os.PathLike[str] | None) -> tuple[Any, Any] | None:
    """The two results of many ranks (collectives, rank groups) that BASE and NEW name, or None when
    either is of another kind (or a file holding several results)."""
    from .group import GROUP_KINDS
    from .store import Store, parse_ref

    found: list[Any] = []
    for t in refs:
        ref = parse_ref(t)
        if ref is not None:  # read whole only when it is of many ranks (else load_measured reads it)
            with Store(store, create=False) as st:
                row = st.resolve_row(ref)
                found.append(st.result(row.id) if row.kind in GROUP_KINDS else None)
        elif Path(t).is_file():
            items = load_file(t)
            found.append(items[0] if len(items) == 1 else None)
    if len(found) == 2 and all(getattr(r, "kind", None) in GROUP_KINDS for r in found):
        return found[0], found[1]
    return None


def _saved_spread(name: str, store: str | os.PathLike[str] | None) -> float | None:
    """The run-to-run spread of the saved timings of ``name`` (None when too few are saved, or when its
    latest run is a count), from the runs' median column: no sample is read."""
    from .store import Store

    with Store(store, create=False) as st:
        return _spread_in(st, name)


def _spread_in(st: "Store", name: str) -> float | None:
    """:func:`_saved_spread` in the open store ``st``."""
    from .regression_checks import run_to_run_cv
    from .store import MEASURED_KINDS

    latest = st.list(name, kinds=MEASURED_KINDS, limit=1)
    medians = st.medians(name) if latest and latest[0].kind == "measurement" else []
    return run_to_run_cv(medians)


def load_targets(targets: list[str], store: str | os.PathLike[str] | None = None) -> list[Any]:
    """Every result the targets name, a step comparison as its parts (for the report)."""
    out: list[Any] = []
    for t in targets:
        for result in load_target(t, store):
            out.extend(_expand(result))
    return out
