"""A measurement's stored JSON form read back: the version of the form, the migration of older versions, and
the checks that parse and validate each field, raising only ``ValueError`` naming the field."""

from __future__ import annotations

import math
from typing import Any

from .measurement_parts import (COMPILE_CACHES, COMPILE_PHASES, IMPORT_SOURCES, IMPORTED_STATS, Calibration,
                                CompileEvent, Compiled, Imported, SpeedReference, Stop, Warmup)
from .protocol import migrate as migrate_kind
from .run_to_run import RUN_TO_RUN_SOURCES, RunToRun

#: Version of the stored JSON form; bump it and add a migration when the form changes.
#: Version 2 added ``run_to_run`` and ``repeats`` (absent in version 1: nothing measured the spread).
#: Version 3 writes the warm-up's rule and the calibration's reason as codes, where version 2 wrote words.
SCHEMA_VERSION = 3


# ---- schema migration -----------------------------------------------------------------------
def migrate(d: dict[str, Any]) -> dict[str, Any]:
    """Bring a stored measurement up to :data:`SCHEMA_VERSION`, one version at a time (see
    :func:`measurefirst.results.protocol.migrate`)."""
    return migrate_kind(d, "measurement", SCHEMA_VERSION)


# ---- loading: parse and validate, raising only ValueError ----------------------------------------
def measurement_fields(d: dict[str, Any], path: str) -> dict[str, Any]:
    """A measurement's fields from its stored form (:meth:`measurefirst.results.kinds.Measurement.from_dict`),
    migrated to :data:`SCHEMA_VERSION`; the whole structure is validated: anything missing, ill-typed or
    inconsistent raises ``ValueError`` naming the field (and nothing else is raised)."""
    d = migrate(_dict(d, path))
    samples = _num_list(d, "samples_ns", path, minimum=0.0)
    numbers = _int_list(d, "numbers", path, minimum=1)
    host = None if d.get("host_ns") is None else _num_list(d, "host_ns", path, minimum=0.0)
    preempted = None if d.get("preempted") is None else _int_list(d, "preempted", path, minimum=-1)
    synced = None if d.get("synced_ns") is None else _num_list(d, "synced_ns", path, minimum=0.0)
    for name, seq in (("numbers", numbers), ("host_ns", host), ("preempted", preempted), ("synced_ns", synced)):
        if seq is not None and len(seq) != len(samples):
            raise ValueError(f"{path}.{name} has {len(seq)} entries for {len(samples)} samples")
    return dict(
        label=_str(d, "label", path),
        device=_str(d, "device", path),
        timer=_str(d, "timer", path),
        samples_ns=samples,
        numbers=numbers,
        host_ns=host,
        preempted=preempted,
        synced_ns=synced,
        warmup=_warmup(d.get("warmup"), f"{path}.warmup"),
        calibration=_calibration(d.get("calibration"), f"{path}.calibration"),
        stop=_stop(d.get("stop"), f"{path}.stop"),
        options=_opt_dict(d, "options", path),
        env=_opt_dict(d, "env", path),
        complete=_opt_bool(d, "complete", path, True),
        discard_preempted=_opt_bool(d, "discard_preempted", path, True),
        reference=_reference(d.get("reference"), f"{path}.reference"),
        run_to_run=_run_to_run(d.get("run_to_run"), f"{path}.run_to_run"),
        repeats=_repeats(d.get("repeats"), len(samples), f"{path}.repeats"),
        imported=_imported(d.get("imported"), f"{path}.imported"),
        compiled=_compiled(d.get("compiled"), f"{path}.compiled"),
        cpu_per_call_ns=None if d.get("cpu_per_call_ns") is None else float(
            _num(d.get("cpu_per_call_ns"), f"{path}.cpu_per_call_ns", minimum=0.0)),
        cpu_wait_share=None if d.get("cpu_wait_share") is None else float(
            _num(d.get("cpu_wait_share"), f"{path}.cpu_wait_share", minimum=0.0)),
        pool_wait_share=None if d.get("pool_wait_share") is None else float(
            _num(d.get("pool_wait_share"), f"{path}.pool_wait_share", minimum=0.0)),
        schema_version=SCHEMA_VERSION,
    )


def _kind(v: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null",
            int: "a number", float: "a number"}.get(type(v), type(v).__name__)


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


def _dict(v: Any, path: str) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise ValueError(f"{path} must be an object; got {_kind(v)}")
    return v


def _str(d: dict[str, Any], key: str, path: str) -> str:
    if key not in d:
        raise ValueError(f"{path} has no {key!r}")
    v = d[key]
    if not isinstance(v, str):
        raise ValueError(f"{path}.{key} must be a string; got {_kind(v)}")
    return v


def _opt_str(d: dict[str, Any], key: str, path: str, default: str) -> str:
    v = d.get(key)
    if v is None:
        return default
    if not isinstance(v, str):
        raise ValueError(f"{path}.{key} must be a string; got {_kind(v)}")
    return v


def _opt_bool(d: dict[str, Any], key: str, path: str, default: bool) -> bool:
    v = d.get(key, default)
    if not isinstance(v, bool):
        raise ValueError(f"{path}.{key} must be true or false; got {_short(v)}")
    return v


def _opt_dict(d: dict[str, Any], key: str, path: str) -> dict[str, Any]:
    v = d.get(key)
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise ValueError(f"{path}.{key} must be an object; got {_kind(v)}")
    return dict(v)


#: Longest time a stored sample may claim: 1e18 ns is 31 years; beyond it the file is damaged.
MAX_STORED_NS = 1e18


def _num(v: Any, path: str, *, none: bool = False, finite: bool = True, minimum: float | None = None,
         maximum: float | None = None) -> Any:
    """A JSON number (not a boolean) as float; None passes when ``none`` (as None) . Non-finite
    numbers are refused when ``finite``."""
    if v is None and none:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError(f"{path} must be a number; got {_short(v)}")
    try:
        x = float(v)
    except OverflowError:
        raise ValueError(f"{path} is too large a number") from None
    if finite and not math.isfinite(x):
        raise ValueError(f"{path} must be finite; got {x!r}")
    if minimum is not None and not x >= minimum:
        raise ValueError(f"{path} must be >= {minimum:g}; got {x!r}")
    if maximum is not None and not x <= maximum:
        raise ValueError(f"{path} must be <= {maximum:g}; got {x!r}")
    return x


def _real(v: Any, path: str) -> float:
    """A float field that a strict JSON writer may have stored as null (non-finite): null → NaN."""
    return math.nan if v is None else float(_num(v, path, finite=False))


def _int(v: Any, path: str, minimum: int | None = None) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        if isinstance(v, float) and v.is_integer() and abs(v) < 2**53:
            v = int(v)
        else:
            raise ValueError(f"{path} must be an integer; got {_short(v)}")
    if minimum is not None and v < minimum:
        raise ValueError(f"{path} must be >= {minimum}; got {v}")
    return int(v)


def _num_list(d: dict[str, Any], key: str, path: str, minimum: float | None = None) -> tuple[float, ...]:
    v = d.get(key)
    if not isinstance(v, (list, tuple)):
        raise ValueError(f"{path}.{key} must be a list of numbers; got {_kind(v)}")
    return tuple(_num(x, f"{path}.{key}[{i}]", minimum=minimum, maximum=MAX_STORED_NS) for i, x in enumerate(v))


def _int_list(d: dict[str, Any], key: str, path: str, minimum: int | None = None) -> tuple[int, ...]:
    v = d.get(key)
    if not isinstance(v, (list, tuple)):
        raise ValueError(f"{path}.{key} must be a list of integers; got {_kind(v)}")
    return tuple(_int(x, f"{path}.{key}[{i}]", minimum) for i, x in enumerate(v))


def _reference(d: Any, path: str) -> "SpeedReference | None":
    if d is None:
        return None
    d = _dict(d, path)
    number = d.get("number")
    if isinstance(number, bool) or not isinstance(number, int) or number < 1:
        raise ValueError(f"{path}.number must be an integer >= 1; got {number!r}")
    return SpeedReference(_str(d, "label", path), _num_list(d, "samples_ns", path, minimum=0.0), number,
                          float(_num(d.get("overhead_ns"), f"{path}.overhead_ns")))


def _run_to_run(v: Any, path: str) -> RunToRun | None:
    if v is None:
        return None
    d = _dict(v, path)
    source = _str(d, "source", path)
    if source not in RUN_TO_RUN_SOURCES:
        raise ValueError(f"{path}.source must be one of {', '.join(RUN_TO_RUN_SOURCES)}; got {_short(source)}")
    floor_source = _opt_str(d, "floor_source", path, "")
    medians = d.get("medians_ns") or []
    if not isinstance(medians, list):
        raise ValueError(f"{path}.medians_ns must be a list of numbers; got {_kind(medians)}")
    return RunToRun(cv=float(_num(d.get("cv"), f"{path}.cv", minimum=0.0)), source=source,
                    n=_int(d.get("n"), f"{path}.n", 0),
                    factor=float(_num(d.get("factor"), f"{path}.factor", minimum=0.0, finite=False)),
                    medians_ns=tuple(_num(x, f"{path}.medians_ns[{i}]", minimum=0.0) for i, x in enumerate(medians)),
                    floor=float(_num(d.get("floor", 0.0), f"{path}.floor", minimum=0.0)), floor_source=floor_source,
                    prior_dof=_int(d.get("prior_dof", 0), f"{path}.prior_dof", 0),
                    starved=float(_num(d.get("starved", 0.0), f"{path}.starved", minimum=0.0)))


def _imported(v: Any, path: str) -> Imported | None:
    if v is None:
        return None
    d = _dict(v, path)
    source = _str(d, "source", path)
    if source not in IMPORT_SOURCES:
        raise ValueError(f"{path}.source must be one of {', '.join(IMPORT_SOURCES)}; got {_short(source)}")
    given = _opt_dict(d, "stats_seconds", path)
    unknown = sorted(set(given) - set(IMPORTED_STATS))
    if unknown:
        raise ValueError(f"{path}.stats_seconds has unknown statistic {_short(unknown[0])}; known: "
                         f"{', '.join(IMPORTED_STATS)}")
    return Imported(source=source, recomputed=_opt_bool(d, "recomputed", path, False),
                    rounds=_int(d.get("rounds"), f"{path}.rounds", 0),
                    iterations=_int(d.get("iterations"), f"{path}.iterations", 1),
                    stats_seconds={k: float(_num(x, f"{path}.stats_seconds.{k}", minimum=0.0))
                                   for k, x in given.items()},
                    format_version=_opt_str(d, "format_version", path, ""))


def _compiled(v: Any, path: str) -> Compiled | None:
    if v is None:
        return None
    d = _dict(v, path)
    events = d.get("events")
    if not isinstance(events, list):
        raise ValueError(f"{path}.events must be a list of compiles; got {_kind(events)}")
    out = []
    for i, e in enumerate(events):
        ep = f"{path}.events[{i}]"
        e = _dict(e, ep)
        phase = _opt_str(e, "phase", ep, "")
        if phase not in COMPILE_PHASES:
            raise ValueError(f"{ep}.phase must be one of {', '.join(repr(p) for p in COMPILE_PHASES)}; got {_short(phase)}")
        call = e.get("call")
        out.append(CompileEvent(seconds=float(_num(e.get("seconds"), f"{ep}.seconds", minimum=0.0)),
                                name=_opt_str(e, "name", ep, ""), where=_opt_str(e, "where", ep, ""),
                                reason=_opt_str(e, "reason", ep, ""), breaks=_int(e.get("breaks", 0), f"{ep}.breaks", 0),
                                hits=_int(e.get("hits", 0), f"{ep}.hits", 0),
                                misses=_int(e.get("misses", 0), f"{ep}.misses", 0),
                                runtime=_opt_bool(e, "runtime", ep, False), failed=_opt_str(e, "failed", ep, ""),
                                phase=phase, call=None if call is None else _int(call, f"{ep}.call", 0),
                                break_reason=_opt_str(e, "break_reason", ep, "")))
    per = d.get("per_process") or []
    if not isinstance(per, list) or not all(isinstance(x, list) and len(x) == 2 and isinstance(x[1], str)
                                            and x[1] in COMPILE_CACHES for x in per):
        raise ValueError(f"{path}.per_process must be a list of [seconds, cache] pairs (cache one of "
                         f"{', '.join(COMPILE_CACHES)}); got {_short(per)}")
    return Compiled(calls_s=float(_num(d.get("calls_s"), f"{path}.calls_s", minimum=0.0)), events=tuple(out),
                    resampled=_int(d.get("resampled", 0), f"{path}.resampled", 0),
                    per_process=tuple((float(_num(x[0], f"{path}.per_process[{i}][0]", minimum=0.0)), x[1])
                                      for i, x in enumerate(per)))


def _repeats(v: Any, n: int, path: str) -> tuple[int, ...] | None:
    if v is None:
        return None
    if not isinstance(v, list):
        raise ValueError(f"{path} must be a list of sample counts; got {_kind(v)}")
    counts = tuple(_int(x, f"{path}[{i}]", 0) for i, x in enumerate(v))
    if sum(counts) != n:
        raise ValueError(f"{path} counts {sum(counts)} samples in all for {n} samples; they must add up")
    return counts


def _warmup(v: Any, path: str) -> Warmup | None:
    if v is None:
        return None
    d = _dict(v, path)
    times = d.get("times_ns")
    if not isinstance(times, (list, tuple)):
        raise ValueError(f"{path}.times_ns must be a list of numbers; got {_kind(times)}")
    cold = _num(d.get("cold_ns"), f"{path}.cold_ns", none=True, minimum=0.0, maximum=MAX_STORED_NS)
    return Warmup(cold_ns=cold, calls=_int(d.get("calls"), f"{path}.calls", 0),
                  times_ns=tuple(_num(x, f"{path}.times_ns[{i}]", minimum=0.0, maximum=MAX_STORED_NS)
                                 for i, x in enumerate(times)),
                  steady=_opt_bool(d, "steady", path, True), seconds=_real(d.get("seconds"), f"{path}.seconds"),
                  rule=_opt_str(d, "rule", path, ""))


def _calibration(v: Any, path: str) -> Calibration | None:
    if v is None:
        return None
    d = _dict(v, path)
    return Calibration(number=_int(d.get("number"), f"{path}.number", 1),
                       overhead_ns=_real(d.get("overhead_ns"), f"{path}.overhead_ns"),
                       resolution_ns=_real(d.get("resolution_ns"), f"{path}.resolution_ns"),
                       per_call_estimate_ns=_real(d.get("per_call_estimate_ns"), f"{path}.per_call_estimate_ns"),
                       overhead_share=_real(d.get("overhead_share"), f"{path}.overhead_share"),
                       reason=_opt_str(d, "reason", path, ""))


def _stop(v: Any, path: str) -> Stop:
    d = _dict(v, path)
    target_met = d.get("target_met")
    if not isinstance(target_met, bool):
        raise ValueError(f"{path}.target_met must be true or false; got {_short(target_met)}")
    return Stop(reason=_str(d, "reason", path), target_met=target_met,
                precision=_real(d.get("precision"), f"{path}.precision"),
                seconds=_real(d.get("seconds"), f"{path}.seconds"))
