"""One protocol for every result kind, and the migrations of their stored forms.

Every result (a measurement, a comparison, a sweep, a profile, a diagnosis, a step, ...) has a
``kind`` (a class constant naming it in JSON), its own ``schema_version``, ``to_dict``/``from_dict``/
``to_json``, ``complete`` (False for a partial result, as after Ctrl-C) and ``findings`` (data; ``()``
for a kind that finds nothing). A stored dict is brought up to the kind's current version by
:func:`migrate`, one version at a time, through ``MIGRATIONS[kind][version]``.

Nothing here imports torch: each kind's module is imported only when a dict of that kind is read.
"""

from __future__ import annotations

import importlib
import re
from typing import Any, Callable, Protocol, runtime_checkable

#: A migration takes a stored dict of one version and returns it in the next version's form.
Migration = Callable[[dict[str, Any]], dict[str, Any]]

#: kind -> "module:Class" (relative to the package), imported on first use.
KINDS: dict[str, str] = {
    "measurement": "results:Measurement",
    "count": "results:Count",
    "comparison": "compare:Comparison",
    "sweep": "sweep:SweepResult",
    "profile": "profiling.capture:Profile",
    "profile_diff": "profiling.diff:ProfileDiff",
    "diagnosis": "doctor:Diagnosis",
    "step": "step:StepResult",
    "step_comparison": "step:StepComparison",
    "selfcheck": "selfcheck:SelfCheck",
    "saved_run": "history:SavedRun",
    "history": "history:History",
    "regression": "regression:Regression",
    "collectives": "distributed.collectives:CollectivesResult",
    "rank_group": "distributed.group:RankResult",
    "rank_comparison": "distributed.ranked:RankComparison",
    "group_history": "distributed.saved:GroupHistory",
    "group_step": "distributed.step:GroupStepResult",
    "pytest_run": "pytest_run:PytestRun",
    "ranged_step": "step:RangedStepResult",
}

#: The version a kind's dict has when it carries no ``schema_version``: kinds first written without one.
#: Any other kind without a version is not a measurefirst file.
UNVERSIONED: dict[str, int] = {"diagnosis": 0, "step": 0, "profile_diff": 0, "saved_run": 0, "history": 0,
                               "step_comparison": 0, "rank_group": 0}


def _stamp(version: int) -> Migration:
    """The migration of a form that only gained its version number (and its kind)."""

    def step(d: dict[str, Any]) -> dict[str, Any]:
        return {**d, "schema_version": version}

    return step


def _step_comparison_v0(d: dict[str, Any]) -> dict[str, Any]:
    """``measurefirst step --json`` wrote ``{"steps": [...], "comparison": ...}`` with no kind."""
    return {**d, "kind": "step_comparison", "schema_version": 1}


#: The reasons version 1 of a diagnosis gave in words for a check that did not run, by their codes.
SKIP_WORDS_V1 = {"simulated clock": "simulated", "not run: the function failed": "function_failed"}


def _diagnosis_v1(d: dict[str, Any]) -> dict[str, Any]:
    """Version 1 wrote why a check did not run in English words; version 2 writes a code (other text stays
    as it is, and is shown as it is)."""
    skipped = d.get("skipped")
    if isinstance(skipped, dict):
        skipped = {k: SKIP_WORDS_V1.get(v, v) if isinstance(v, str) else v for k, v in skipped.items()}
    return {**d, "skipped": skipped, "schema_version": 2}


#: The words version 1 of a step result gave, by their codes: where the FLOPs came from, the throughput's
#: note and the missing datasheet peak (a GPU's name came before ": not in the dense-peak table").
STEP_WORDS_V1 = {"not given": "not_given", "6N needs micro_batch and seq_len": "6n_needs_tokens",
                 "6·N·tokens (approximation)": "6n", "no batch seen": "no_batch",
                 "FlopCounterMode (forward + backward)": "counted",
                 "tokens/s needs seq_len (the tokens per sample); samples/s shown instead": "no_seq_len",
                 "CPU: no datasheet peak": "none_cpu"}
_NOT_IN_TABLE_V1 = ": not in the dense-peak table (no guess)"


def _step_v1(d: dict[str, Any]) -> dict[str, Any]:
    """Version 1 wrote the FLOPs source, the throughput's note and a missing datasheet peak in English words;
    version 2 writes codes (other text stays as it is, and is shown as it is)."""
    out = {**d, "schema_version": 2}

    def code(v: Any) -> Any:
        return STEP_WORDS_V1.get(v, v) if isinstance(v, str) else v

    if "flops_source" in d:
        out["flops_source"] = code(d["flops_source"])
    peak = d.get("mfu_table_peak")
    if isinstance(peak, str):
        out["mfu_table_peak"] = "not_in_table" if peak.endswith(_NOT_IN_TABLE_V1) else code(peak)
    if isinstance(d.get("throughput"), dict):
        out["throughput"] = {**d["throughput"], "note": code(d["throughput"].get("note", ""))}
    return out


#: A change's flag as version 1 of a regression check (and of a pytest run) wrote it: English words.
_FLAG_V1 = re.compile(r"different (devices|machines|counters|python|torch): (.*) vs (.*?)"
                      r"(?: \(counts differ between them\))?")


def _change_v1(c: Any) -> Any:
    """A change's flags as codes, with their values apart (text of another form stays as it is)."""
    if not isinstance(c, dict) or not isinstance(c.get("flags"), list):
        return c
    flags, values = [], {}
    for flag in c["flags"]:
        m = _FLAG_V1.fullmatch(flag) if isinstance(flag, str) else None
        if m is not None:
            values[m[1]] = [m[2], m[3]]
        flags.append(m[1] if m is not None else "incomplete" if flag == "incomplete run" else flag)
    return {**c, "flags": flags, "flag_values": values}


def _changes_v1(d: dict[str, Any], key: str, change_of: Callable[[Any], Any]) -> dict[str, Any]:
    """Version 2 of a kind whose list ``d[key]`` holds changes (``change_of`` one item's new form)."""
    items = d.get(key)
    return {**d, "schema_version": 2, **({key: [change_of(x) for x in items]} if isinstance(items, list) else {})}


def _benchmark_v1(b: Any) -> Any:
    return {**b, "change": _change_v1(b.get("change"))} if isinstance(b, dict) else b


#: ``MIGRATIONS[kind][v]`` turns a stored dict of version ``v`` into version ``v + 1``.
MIGRATIONS: dict[str, dict[int, Migration]] = {
    "diagnosis": {0: _stamp(1), 1: _diagnosis_v1, 2: _stamp(3)},
    "step": {0: _stamp(1), 1: _step_v1},
    "profile_diff": {0: _stamp(1)},
    "saved_run": {0: _stamp(1)},
    "history": {0: _stamp(1)},
    "step_comparison": {0: _step_comparison_v0},
    "rank_group": {0: _stamp(1)},
    # version 2 added run_to_run and repeats (absent: the spread was not measured, one repetition)
    "measurement": {1: _stamp(2)},
    # version 3 added a change's run_to_run spread (absent: none was included, as then)
    # version 4 added a change's disturbed reasons and each side's run-to-run spread (absent: none recorded)
    # version 5 added the check's findings (absent: none)
    "regression": {1: lambda d: _changes_v1(d, "changes", _change_v1), 2: _stamp(3), 3: _stamp(4), 4: _stamp(5)},
    "pytest_run": {1: lambda d: _changes_v1(d, "benchmarks", _benchmark_v1), 2: _stamp(3), 3: _stamp(4)},
}


@runtime_checkable
class Result(Protocol):
    """What every result kind offers (see the module docstring)."""

    @property
    def kind(self) -> str: ...

    @property
    def schema_version(self) -> int: ...

    @property
    def complete(self) -> bool: ...

    @property
    def findings(self) -> tuple[Any, ...]: ...

    def to_dict(self) -> dict[str, Any]: ...

    def to_json(self, indent: int | None = 2) -> str: ...


class JsonForm:
    """A result's ``to_json``: its ``to_dict`` as strict JSON (NaN written as null), for kinds to inherit."""

    def to_json(self: Result, indent: int | None = 2) -> str:
        from .safeio import strict_json

        return strict_json(self.to_dict(), indent=indent)


def of_kind(d: Any, kind: str, current: int) -> dict[str, Any]:
    """``d`` checked to be a stored ``kind`` and migrated to version ``current``."""
    if not isinstance(d, dict) or d.get("kind") != kind:
        raise ValueError(f'not a measurefirst {kind} result (missing "kind": "{kind}")')
    return migrate(d, kind, current)


class ResultType(Protocol):
    """A result class: builds its results back from their stored dicts."""

    kind: str

    def from_dict(self, d: dict[str, Any]) -> Result: ...


def _kind_name(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


def migrate(d: Any, kind: str, current: int) -> dict[str, Any]:
    """``d`` (a stored ``kind``) brought up to version ``current``, one version at a time. A newer
    version than this measurefirst knows, or none where one is required, is a ``ValueError`` saying
    what to do."""
    if not isinstance(d, dict):
        raise ValueError(f"a {kind} result must be a JSON object; got {type(d).__name__}")
    version = d.get("schema_version", UNVERSIONED.get(kind))
    if isinstance(version, bool) or not isinstance(version, int):
        what = "result" if kind == "measurement" else f"{kind} result"
        raise ValueError(f"{what} has no integer schema_version; is it a measurefirst file?")
    if version > current:
        raise ValueError(f"{kind} result has schema_version {version}, newer than this measurefirst understands "
                         f"({current}); upgrade measurefirst")
    first = min(MIGRATIONS.get(kind, {}), default=current)
    if version < first:
        raise ValueError(f"{kind} result has schema_version {version}, which no measurefirst ever wrote "
                         f"(versions start at {first}); the file is damaged or not ours")
    while version < current:
        d = MIGRATIONS[kind][version](d)
        version = int(d["schema_version"])
    out: dict[str, Any] = d
    return out


def result_class(kind: str) -> ResultType:
    """The class of a result kind (its module imported now); ``ValueError`` for an unknown kind."""
    where = KINDS.get(kind)
    if where is None:
        raise ValueError(f"no \"kind\" measurefirst knows (got {_kind_name(kind)}; known: {', '.join(KINDS)})")
    module, name = where.split(":")
    cls: ResultType = getattr(importlib.import_module(f"{__package__}.{module}"), name)
    return cls


def from_dict(d: Any) -> Result:
    """Any stored result, by its ``kind`` (a ``{"steps": ...}`` dict of ``measurefirst step --json``
    from before it had one is a step comparison). Anything malformed raises ``ValueError`` only."""
    if not isinstance(d, dict):
        raise ValueError(f"a result must be a JSON object; got {type(d).__name__}")
    kind = d.get("kind")
    if kind is None and isinstance(d.get("steps"), list):
        kind = "step_comparison"
    cls = result_class(str(kind) if isinstance(kind, str) else repr(kind))
    try:
        return cls.from_dict(d)
    except (KeyError, TypeError, IndexError, AttributeError, RecursionError) as exc:  # a damaged file: ValueError only
        raise ValueError(f"{kind} result has a missing or malformed field: {type(exc).__name__}: {exc}") from exc
