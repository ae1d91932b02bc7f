"""Reading what users already have: pytest-benchmark's JSON (``--benchmark-json`` and the autosaved
``.benchmarks/<machine>/NNNN_*.json``, normal and pedantic modes), pyperf's JSON, as :class:`~measurefirst.results.kinds.Measurement` objects. Nothing here measures.

Each measurement marks its source (:class:`~measurefirst.results.kinds.Imported`). Raw times are kept when the
file has them (pytest-benchmark with ``--benchmark-save-data``, pyperf always): a sample is a round's
total (per-call time × calls per round) with its loop count, and every statistic is recomputed. Without
them, the file's own statistics are taken as they are and no sample is made up (see
:meth:`~measurefirst.results.kinds.Imported.summary` for the interval that leaves).

:func:`measurefirst.results.loading.imported_runs` reads a whole history of them.
"""

from __future__ import annotations

import math
from typing import Any

from .kinds import Imported, Measurement, Stop, spread_from_medians

#: pytest-benchmark's statistics kept as given (seconds per call), by our name in ``Imported.stats_seconds``.
_PYTEST_BENCHMARK_STATS = ("min", "max", "mean", "stddev", "median", "q1", "q3", "iqr")


class ForeignFileError(ValueError):
    """A file that looked like another tool's results but is malformed; the message names the field."""


def sniff(data: Any) -> str | None:
    """Which tool wrote the parsed JSON ``data`` (one of :data:`~measurefirst.results.kinds.IMPORT_SOURCES`), or
    ``None`` when it is none that measurefirst reads."""
    if not isinstance(data, dict) or "kind" in data or not isinstance(data.get("benchmarks"), list):
        return None
    if "machine_info" in data or any(isinstance(b, dict) and "stats" in b for b in data["benchmarks"]):
        return "pytest-benchmark"
    if "version" in data and all(isinstance(b, dict) and "runs" in b for b in data["benchmarks"]):
        return "pyperf"
    return None


def measurements(data: Any, source: str = "results") -> list[Measurement]:
    """The measurements in another tool's parsed JSON (see :func:`sniff`); ``ValueError`` naming the
    field for anything malformed, or for a document that is no tool's that measurefirst reads."""
    tool = sniff(data)
    if tool == "pytest-benchmark":
        return from_pytest_benchmark(data, source)
    if tool == "pyperf":
        return from_pyperf(data, source)
    raise ForeignFileError(f"{source} is not a pytest-benchmark or pyperf results file")


#: The longest time per call an imported file may state (seconds: about 11 days); beyond it a value is
#: a broken file, not a measurement (a median of 1e308 was accepted).
MAX_CALL_S = 1e6
#: The most rounds or iterations an imported benchmark may state (10^18 was accepted).
MAX_ROUNDS = 10**9
#: pytest-benchmark's statistics that are a time per call (above 0; a spread such as ``stddev`` may be 0).
_TIMES = frozenset({"min", "max", "mean", "median", "q1", "q3", "ld15iqr", "hd15iqr"})
#: The longest benchmark name an imported file may give (characters; a 50 MB name was accepted).
MAX_NAME = 4096


def _num(v: Any, where: str, positive: bool = False) -> float:
    """Seconds from 0 (``positive``: above 0, a time per call; a spread may be 0) to :data:`MAX_CALL_S`."""
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not 0 <= v <= MAX_CALL_S \
            or (positive and v == 0):
        lowest = "above 0" if positive else "from 0"
        raise ForeignFileError(f"{where} must be a number of seconds {lowest} to {MAX_CALL_S:g}; got {str(v)[:40]!r}"
                               + ("; a call takes some time" if positive and v == 0 else ""))
    return float(v)


def _count(v: Any, where: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= MAX_ROUNDS:
        raise ForeignFileError(f"{where} must be a whole number from 1 to {MAX_ROUNDS}; got {str(v)[:40]!r}")
    return v


def _name(v: Any, where: str) -> str:
    if not isinstance(v, str) or not v or len(v) > MAX_NAME:
        got = f"{len(v)} characters" if isinstance(v, str) else type(v).__name__
        raise ForeignFileError(f"{where} must be a name of 1 to {MAX_NAME} characters; got {got}")
    return v


def _when(v: Any, where: str, required: bool = False) -> str | None:
    """An ISO 8601 date and time (pytest-benchmark's ``datetime``), or None when absent (``required``: refused:
    a run without its time would be filed as made now, the newest of its name)."""
    import datetime as dt

    if v is None:
        if required:
            raise ForeignFileError(f"{where} is missing: without when the run was made it would be filed as made now "
                                   f"(the newest of its name); add it, such as \"datetime\": \"2026-01-02T03:04:05\"")
        return None
    try:
        dt.datetime.fromisoformat(str(v).replace("Z", "+00:00"))
    except ValueError:
        raise ForeignFileError(f"{where} must be an ISO date and time such as 2026-01-02T03:04:05; "
                               f"got {str(v)[:40]!r}") from None
    return str(v)


def _obj(v: Any) -> dict[str, Any]:
    """A JSON object, or an empty one for anything else (optional metadata)."""
    return v if isinstance(v, dict) else {}


def _stop(rounds: int, seconds: float) -> Stop:
    """The other tool chose how many rounds to take: a fixed count, as far as we can tell."""
    return Stop("trials", True, 0.0, seconds) if rounds else Stop("error", False, 0.0, 0.0)


# ---- pytest-benchmark ---------------------------------------------------------------------------------
def from_pytest_benchmark(data: dict[str, Any], source: str = "results") -> list[Measurement]:
    """Each benchmark of a pytest-benchmark JSON file, labelled by its test's node id (``fullname``, as
    ``pytest --mf`` labels it; its ``name`` is in ``options["name"]``). ``stats.data`` (with
    ``--benchmark-save-data``) holds per-call times (pytest-benchmark divides each round by its
    ``iterations``): each becomes a sample of ``iterations`` calls. Without it the statistics are the
    file's own, over ``stats.rounds`` rounds."""
    env = _pytest_benchmark_env(data, source)
    version = str(data.get("version") or "")
    out = []
    for i, b in enumerate(data["benchmarks"]):
        where = f"{source}: benchmarks[{i}]"
        if not isinstance(b, dict) or not isinstance(b.get("stats"), dict) or not isinstance(b.get("name"), str):
            raise ForeignFileError(f"{where} has no name and stats; is it pytest-benchmark's JSON?")
        _name(b["name"], f"{where}.name")
        if b.get("fullname") is not None:
            _name(b["fullname"], f"{where}.fullname")
        mf = b.get("measurefirst")
        if isinstance(mf, dict) and isinstance(mf.get("measurement"), dict):  # `pytest --mf --benchmark-json`
            out.append(Measurement.from_dict(mf["measurement"], f"{where}.measurefirst.measurement"))
            continue
        st = b["stats"]
        iterations = _count(st.get("iterations", 1), f"{where}.stats.iterations")
        rounds = _count(st.get("rounds"), f"{where}.stats.rounds")
        raw = st.get("data")
        if raw is not None and not isinstance(raw, list):
            raise ForeignFileError(f"{where}.stats.data must be a list of seconds")
        per_call = [_num(x, f"{where}.stats.data[{j}]", positive=True) for j, x in enumerate(raw or [])]
        given = {k: _num(st[k], f"{where}.stats.{k}", positive=k in _TIMES) for k in _PYTEST_BENCHMARK_STATS
                 if st.get(k) is not None}
        lo, hi = given.get("min"), given.get("max")
        for k in ("median", "mean", "q1", "q3"):
            if lo is not None and hi is not None and k in given and not lo * (1 - 1e-9) <= given[k] <= hi * (1 + 1e-9):
                raise ForeignFileError(f"{where}.stats.{k} ({given[k]:g} s) lies outside min-max ({lo:g}-{hi:g} s): "
                                       f"the file is inconsistent")
        samples = tuple(x * iterations * 1e9 for x in per_call)
        options = {"rounds": rounds, "iterations": iterations, "group": b.get("group"), "name": b["name"],
                   "params": b.get("params"), "extra_info": b.get("extra_info") or {},
                   "pytest_benchmark_options": b.get("options") or {}}
        seconds = sum(per_call) * iterations if per_call else given.get("mean", 0.0) * rounds * iterations
        fullname = b.get("fullname")  # the test's node id: the label `pytest --mf` gives it
        out.append(Measurement(
            label=fullname if isinstance(fullname, str) and fullname else b["name"], device="cpu", timer="wall",
            samples_ns=samples, numbers=(iterations,) * len(samples),
            host_ns=None, preempted=None, warmup=None, calibration=None, stop=_stop(rounds, seconds),
            options=options, env=env,
            imported=Imported("pytest-benchmark", recomputed=bool(samples), rounds=len(samples) or rounds,
                              iterations=iterations, stats_seconds=given, format_version=version)))
    return out


def _pytest_benchmark_env(data: dict[str, Any], source: str = "results") -> dict[str, Any]:
    mi = _obj(data.get("machine_info"))
    cpu = _obj(mi.get("cpu"))
    ci = _obj(data.get("commit_info"))
    env: dict[str, Any] = {
        "device": "cpu", "device_type": "cpu", "device_name": cpu.get("brand_raw") or mi.get("processor") or None,
        "cpu_model": cpu.get("brand_raw") or None, "cpu_count": cpu.get("count"),
        "python_version": mi.get("python_version"), "python_implementation": mi.get("python_implementation"),
        "platform": " ".join(str(mi[k]) for k in ("system", "release", "machine") if mi.get(k)) or None,
        "hostname": mi.get("node"), "timestamp": _when(data.get("datetime"), f"{source}: datetime", required=True),
        "imported_from": "pytest-benchmark", "pytest_benchmark_version": data.get("version"),
    }
    commit = _commit(ci)
    if commit:
        env["git_commit"] = commit
        env["git_branch"] = ci.get("branch")
    return {k: v for k, v in env.items() if v is not None}


def _commit(ci: dict[str, Any]) -> str | None:
    """pytest-benchmark's commit id (``-dirty`` added as :func:`measurefirst.results.store.git_commit` does)."""
    cid = ci.get("id")
    if not isinstance(cid, str) or not cid or cid == "unversioned":
        return None
    return cid + ("-dirty" if ci.get("dirty") else "")


# ---- pyperf -------------------------------------------------------------------------------------------
def from_pyperf(data: dict[str, Any], source: str = "results") -> list[Measurement]:
    """Each benchmark of a pyperf JSON file (a suite). Each run is a fresh worker process: its values are
    per-call seconds (pyperf divides by ``loops × inner_loops``), each a sample of that many calls; warm-ups
    are left out; the spread of the runs' medians is the run-to-run spread, measured by processes."""
    common = _obj(data.get("metadata"))
    out = []
    for i, b in enumerate(data["benchmarks"]):
        where = f"{source}: benchmarks[{i}]"
        meta = {**common, **_obj(b.get("metadata"))}
        samples: list[float] = []
        numbers: list[int] = []
        repeats: list[int] = []
        medians: list[float] = []
        dates = []
        for j, run in enumerate(b["runs"]):
            if not isinstance(run, dict):
                raise ForeignFileError(f"{where}.runs[{j}] must be an object")
            rmeta = {**meta, **_obj(run.get("metadata"))}
            values = [_num(v, f"{where}.runs[{j}].values[{k}]", positive=True)
                      for k, v in enumerate(run.get("values") or [])]
            if not values:  # a calibration run
                continue
            calls = _count(rmeta.get("loops", 1), f"{where}.runs[{j}].loops") * _count(
                rmeta.get("inner_loops", 1), f"{where}.runs[{j}].inner_loops")
            samples += [v * calls * 1e9 for v in values]
            numbers += [calls] * len(values)
            repeats.append(len(values))
            medians.append(sorted(values)[len(values) // 2] * 1e9)
            if rmeta.get("date"):
                dates.append(str(rmeta["date"]))
        name = meta.get("name")
        if not isinstance(name, str) or not name:
            raise ForeignFileError(f"{where} has no name in its metadata; is it pyperf's JSON?")
        unit = meta.get("unit", "second")
        if unit != "second":
            raise ForeignFileError(f"{where} ({name}) is in {unit!r}, not seconds; only timings are read")
        env = {k: v for k, v in {
            "device": "cpu", "device_type": "cpu", "device_name": meta.get("cpu_model_name"),
            "cpu_model": meta.get("cpu_model_name"), "cpu_count": meta.get("cpu_count"),
            "python_version": meta.get("python_version"), "platform": meta.get("platform"),
            "hostname": meta.get("hostname"), "timestamp": _iso(dates[-1]) if dates else None,
            "imported_from": "pyperf", "pyperf_version": meta.get("perf_version"),
            # pyperformance (and --metadata commit_id=...) name the commit measured; the history keeps it
            "git_commit": _pyperf_commit(meta), "commit_branch": meta.get("commit_branch"),
        }.items() if v is not None}
        out.append(Measurement(
            label=name, device="cpu", timer="wall", samples_ns=tuple(samples), numbers=tuple(numbers), host_ns=None,
            preempted=None, warmup=None, calibration=None, stop=_stop(len(samples), sum(samples) / 1e9),
            options={"processes": len(repeats)}, env=env,
            run_to_run=spread_from_medians(medians, "processes"), repeats=tuple(repeats) if len(repeats) > 1 else None,
            imported=Imported("pyperf", recomputed=True, rounds=len(samples), iterations=numbers[-1] if numbers else 1,
                              format_version=str(data.get("version") or ""))))
    return out


def _pyperf_commit(meta: dict[str, Any]) -> str | None:
    """The commit a pyperf file names in its metadata (``commit_id``, as pyperformance writes it), when it
    is a commit id (hex, 4 to 64 characters); anything else is not taken for one."""
    commit = meta.get("commit_id")
    if isinstance(commit, str) and 4 <= len(commit) <= 64 and all(c in "0123456789abcdefABCDEF" for c in commit):
        return commit.lower()
    return None


def _iso(date: str) -> str:
    """pyperf's "2026-12-02 00:28:05.29" as ISO 8601 (a store's ``created`` column sorts as text)."""
    return date.replace(" ", "T", 1)
