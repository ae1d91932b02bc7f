"""One protocol for every result kind, and the migrations of their stored forms.

Every result (a measurement, a comparison, a sweep, a profile, a diagnosis, a step, ...) has a
``kind`` (a class constant naming it in JSON), its own ``schema_version``, ``to_dict``/``from_dict``/
``to_json``, ``complete`` (False for a partial result, as after Ctrl-C) and ``findings`` (data; ``()``
for a kind that finds nothing); the part every kind shares (JSON, saving, words, HTML) is written once in
:class:`measurefirst.results.base.ResultBase`. A stored dict is brought up to the kind's current version by
:func:`migrate`, one version at a time, through ``MIGRATIONS[kind][version]``.

A stored dict is read back into its dataclasses by :func:`build`, which checks every field against its
annotation (text, whole numbers, numbers, switches, lists, nested dataclasses): a file that is damaged or
crafted raises ``ValueError`` naming the field, never a ``TypeError`` later when the result is shown.

Nothing here imports torch: each kind's module is imported only when a dict of that kind is read.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import json
import math
import re
import types
import typing
from typing import Any, Callable, Mapping, Protocol, TypeVar, Union, runtime_checkable

T = TypeVar("T")

#: A migration takes a stored dict of one version and returns it in the next version's form.
Migration = Callable[[dict[str, Any]], dict[str, Any]]

#: kind -> "module:Class" (relative to the package), imported on first use.
KINDS: dict[str, str] = {
    "measurement": "results.kinds:Measurement",
    "count": "results.kinds:Count",
    "comparison": "results.comparison:Comparison",
    "sweep": "results.sweep:SweepResult",
    "profile": "results.profile:Profile",
    "profile_diff": "results.profile_diff:ProfileDiff",
    "diagnosis": "results.diagnosis:Diagnosis",
    "step": "results.step:StepResult",
    "step_comparison": "results.step:StepComparison",
    "selfcheck": "results.selfcheck:SelfCheck",
    "saved_run": "results.history:SavedRun",
    "history": "results.history:History",
    "regression": "results.regression:Regression",
    "collectives": "results.collectives:CollectivesResult",
    "rank_group": "results.group:RankResult",
    "rank_comparison": "results.ranked:RankComparison",
    "group_history": "results.group_history:GroupHistory",
    "group_step": "results.group_step:GroupStepResult",
    "pytest_run": "results.pytest_run:PytestRun",
    "ranged_step": "results.step:RangedStepResult",
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


#: The words version 2 of a measurement wrote for its warm-up rule and its calibration's reason (with the
#: figures of that run in them), as patterns, by their codes.
WARMUP_RULE_V2 = ((re.compile(r"fixed: \d+ calls"), "fixed"),
                  (re.compile(r"fixed: \d+ calls; \d+ within the budget"), "fixed+cut"),
                  (re.compile(r"until steady: .*"), "steady"))
CALIBRATION_PARTS_V2 = ((re.compile(r"fixed by the caller"), "caller"),
                        (re.compile(r"cold cache: each call timed alone after a flush"), "cold_cache"),
                        (re.compile(r"fixed mode: one call per trial"), "fixed_mode"),
                        (re.compile(r"smallest count with overhead and resolution each under \S+ of a sample"), "adaptive"),
                        (re.compile(r"capped so that one sample lasts at most \S+ of the budget"), "capped"),
                        (re.compile(r"recalibrated on a timed graph replay"), "graph"))


def _code_v2(text: Any, patterns: tuple[tuple[re.Pattern[str], str], ...], sep: str | None = None) -> Any:
    """``text`` (words of version 2; with ``sep``, parts joined by it) as its code (parts joined by ``+``), or
    as it is when any part is not known (an older text, shown as it is)."""
    if not isinstance(text, str):
        return text
    codes = []
    for part in (text.split(sep) if sep else [text]):
        code = next((c for p, c in patterns if p.fullmatch(part.strip())), None)
        if code is None:
            return text
        codes.append(code)
    return "+".join(dict.fromkeys(codes))  # each repetition's graph recalibration added its words again


def _measurement_v2(d: dict[str, Any]) -> dict[str, Any]:
    """Version 2 wrote the warm-up's rule and the calibration's reason in English words; version 3 writes
    codes (other text stays as it is, and is shown as it is)."""
    out = {**d, "schema_version": 3}
    if isinstance(d.get("warmup"), dict):
        out["warmup"] = {**d["warmup"], "rule": _code_v2(d["warmup"].get("rule"), WARMUP_RULE_V2)}
    if isinstance(d.get("calibration"), dict):
        out["calibration"] = {**d["calibration"],
                              "reason": _code_v2(d["calibration"].get("reason"), CALIBRATION_PARTS_V2, ";")}
    return out


#: Why a size of a sweep failed, as version 1 wrote it in words: the code and the error's own text.
_SWEEP_ERROR_V1 = ((re.compile(r"out of memory: (.*)", re.S), "out_of_memory"),
                   (re.compile(r"the code called sys\.exit\((.*)\)", re.S), "exit"))


def _sweep_point_v1(p: Any) -> Any:
    error = p.get("error") if isinstance(p, dict) else None
    if not isinstance(error, str):
        return p
    for pattern, code in _SWEEP_ERROR_V1:
        m = pattern.fullmatch(error)
        if m is not None:
            return {**p, "error": m[1], "error_code": code}
    return p


def _sweep_v1(d: dict[str, Any]) -> dict[str, Any]:
    """Version 1 wrote why a size failed in English words (``out of memory: ...``); version 2 writes a code
    beside the error's own text (other text stays as it is, and is shown as it is)."""
    points = d.get("points")
    return {**d, "schema_version": 2, **({"points": [_sweep_point_v1(p) for p in points]}
                                         if isinstance(points, list) else {})}


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
    # version 3 wrote the warm-up's rule and the calibration's reason as codes
    "measurement": {1: _stamp(2), 2: _measurement_v2},
    "sweep": {1: _sweep_v1},
    # version 3 added a change's run_to_run spread (absent: none was included, as then)
    # version 4 added a change's disturbed reasons and each side's run-to-run spread (absent: none recorded)
    # version 5 added the check's findings (absent: none)
    "regression": {1: lambda d: _changes_v1(d, "changes", _change_v1), 2: _stamp(3), 3: _stamp(4), 4: _stamp(5)},
    "pytest_run": {1: lambda d: _changes_v1(d, "benchmarks", _benchmark_v1), 2: _stamp(3), 3: _stamp(4)},
    # version 2 added how much of a core the check got (absent: not measured, the machine's state unknown)
    "selfcheck": {1: _stamp(2)},
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


def parse_json(text: str | bytes) -> Any:
    """``json.loads`` that raises only ``ValueError`` (bad syntax, bad encoding, numbers too long,
    nesting deep enough to exhaust the recursion limit) with a one-line message."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"not a measurefirst JSON result: not UTF-8 text (byte {exc.start})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not a measurefirst JSON result: invalid JSON ({exc.msg} at line {exc.lineno} "
                         f"column {exc.colno})") from None
    except (ValueError, RecursionError) as exc:
        why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ValueError(f"not a measurefirst JSON result: invalid JSON ({why})") from None


def of_kind(d: Any, kind: str, current: int) -> dict[str, Any]:
    """``d`` checked to be a stored ``kind`` and migrated to version ``current``."""
    if not isinstance(d, dict) or d.get("kind") != kind:
        raise ValueError(f'not a measurefirst {kind} result (missing "kind": "{kind}")')
    return migrate(d, kind, current)


class ResultType(Protocol):
    """A result class: builds its results back from their stored dicts."""

    kind: str

    def from_dict(self, d: dict[str, Any]) -> Result: ...


# ---- reading stored dataclasses back, every field checked -------------------------------------------
#: The largest whole number a stored field may hold (SQLite's integers; beyond it a count is damage).
MAX_STORED_INT = 2**63 - 1
#: Key of an object whose non-finite numbers were written as null (see :mod:`measurefirst.results.safeio`).
_NON_FINITE_KEY = "non_finite_as_null"


def _hints(cls: type, names: dict[str, Any] | None) -> dict[str, Any]:
    if names is None:
        return _module_hints(cls)
    return typing.get_type_hints(cls, localns=names)


@functools.lru_cache(maxsize=None)
def _module_hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _short(v: Any) -> str:
    text = repr(v) if not isinstance(v, (dict, list)) else type(v).__name__
    return text if len(text) <= 40 else text[:37] + "..."


def _expected(hint: Any) -> str:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (Union, types.UnionType):
        return " or ".join(_expected(a) for a in args)
    if origin in (tuple, list):
        return "a list"
    if origin is dict or hint is dict:
        return "an object"
    return {str: "text", int: "a whole number", float: "a number", bool: "true or false",
            type(None): "null"}.get(hint, getattr(hint, "__name__", str(hint)))


def _check(hint: Any, v: Any, where: str) -> Any:
    """``v`` as the annotation ``hint`` wants it (a list as a tuple, a dict as its dataclass)."""
    if hint is Any:
        return v
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (Union, types.UnionType):
        if v is None and type(None) in args:
            return None
        for a in (a for a in args if a is not type(None)):
            try:
                return _check(a, v, where)
            except ValueError:
                continue
    elif hint is bool:
        if isinstance(v, bool):
            return v
    elif hint is int:
        if isinstance(v, int) and not isinstance(v, bool) and abs(v) <= MAX_STORED_INT:
            return v
    elif hint is float:
        if isinstance(v, (int, float)) and not isinstance(v, bool) and (not isinstance(v, int) or abs(v) <= 2**1023):
            return float(v)
    elif hint is str:
        if isinstance(v, str):
            return v
    elif origin in (tuple, list):
        if isinstance(v, (list, tuple)):
            if len(args) == 2 and args[1] is Ellipsis or origin is list:
                out = [_check(args[0] if args else Any, x, f"{where}[{i}]") for i, x in enumerate(v)]
                return tuple(out) if origin is tuple else out
            if len(v) == len(args):
                return tuple(_check(a, x, f"{where}[{i}]") for i, (a, x) in enumerate(zip(args, v)))
    elif origin is dict or hint is dict:
        if isinstance(v, dict):
            value_hint = args[1] if len(args) == 2 else Any
            return {k: _check(value_hint, x, f"{where}.{k}") for k, x in v.items()}
    elif dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return v if isinstance(v, hint) else build(hint, v, where)
    else:
        return v  # a type this reader does not check: the class's own from_dict does
    raise ValueError(f"{where} must be {_expected(hint)}; got {_short(v)}")


#: Reads one stored field: its value and where it is (``history.runs``) in, the field's value out.
Reader = Callable[[Any, str], Any]


def build(cls: type[T], d: Any, where: str, names: dict[str, Any] | None = None,
          read: Mapping[str, Reader] | None = None) -> T:
    """The dataclass ``cls`` from its stored dict ``d``, every field checked against its annotation (lists
    become tuples where a tuple is declared; nested dataclasses are built in turn); ``kind``,
    ``schema_version`` and keys ``cls`` does not have are left out. A missing field without a default, or
    one of the wrong type, raises ``ValueError`` naming it (``profile.ops[3].calls must be a number``).
    ``names``: classes the annotations name but the class's module imports only for type checking.
    ``read``: fields read by a reader of their own (a nested result kind's ``from_dict``; see :func:`each`)
    before their annotation is checked."""
    if not isinstance(d, dict):
        raise ValueError(f"{where} must be a JSON object; got {_short(d)}")
    note = d.get(_NON_FINITE_KEY)
    if isinstance(note, dict):  # non-finite numbers written as null, with what they were
        d = {k: float(str(note[k])) if v is None and k in note and str(note[k]) in ("nan", "inf", "-inf") else v
             for k, v in d.items()}
    hints = _hints(cls, names)
    values = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if not f.init:
            continue
        if f.name not in d:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise ValueError(f"{where} is missing the field {f.name!r}")
            continue
        value = d[f.name] if read is None or f.name not in read else read[f.name](d[f.name], f"{where}.{f.name}")
        values[f.name] = _check(hints[f.name], value, f"{where}.{f.name}")
    return cls(**values)


def each(read: Reader) -> Reader:
    """A reader of a stored list whose items ``read`` reads (``each(lambda v, w: SavedRun.from_dict(v))``):
    a tuple of what it returns, or ``ValueError`` when the value is not a list."""

    def read_all(v: Any, where: str) -> tuple[Any, ...]:
        if not isinstance(v, (list, tuple)):
            raise ValueError(f"{where} must be a list; got {_short(v)}")
        return tuple(read(x, f"{where}[{i}]") for i, x in enumerate(v))

    return read_all


def finite_fields(obj: Any, where: str, names: tuple[str, ...]) -> None:
    """Each of ``names`` of ``obj`` (times, counts, bytes) is a finite number >= 0; ``ValueError`` naming
    the first that is not (a stored file may hold anything: ``calls`` of ``Infinity``)."""
    for name in names:
        value = getattr(obj, name)
        if not (math.isfinite(value) and value >= 0):
            raise ValueError(f"{where}.{name} must be a finite number >= 0; got {value!r}")


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
    cls: ResultType = getattr(importlib.import_module(f"{__name__.split('.')[0]}.{module}"), name)
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
