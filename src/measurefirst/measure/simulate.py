"""A seeded simulated clock, device and function, for exact tests of the engine and the CLI.

Time passes only when something costs time: a simulated call, a timer reading, a sync. So the
engine's decisions (warm-up length, loop count, when to stop) are reproducible to the sample.
The world is in :mod:`~measurefirst.measure.simworld` and the GPU in :mod:`~measurefirst.measure.simgpu`;
this module reads a spec's text (``--simulate``, ``compare --simulate``) into a world and its functions.
"""

from __future__ import annotations

import re
from dataclasses import fields
from typing import Callable

# re-exported: the simulated world and GPU, from measurefirst.measure.simulate as before
from .simgpu import SimBuffer as SimBuffer, SimGPU as SimGPU, SimMachine as SimMachine, _Event as _Event
from .simgpu_spec import GpuSpec as GpuSpec
from .simworld import (
    RECOMPILE_REASON as RECOMPILE_REASON,
    SimCompileLog as SimCompileLog,
    SimSpec as SimSpec,
    SimTimer as SimTimer,
    SimWorld as SimWorld,
    process_level as process_level,
)


_UNITS = {"ns": 1.0, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}


def parse_spec(text: str) -> SimSpec:
    """Parse ``"call=10us,noise=0.01,seed=3"`` (times accept ns, us, ms, s; bare numbers are ns)."""
    known = {f.name: f for f in fields(SimSpec)}
    aliases = {"call": "call_ns", "timer": "timer_ns", "sync": "sync_ns", "cold": "cold_ns",
               "compile": "compile_ns", "recompile": "recompile_ns",
               "warm_extra": "warm_extra_ns", "preempt": "preempt_ns", "stall": "stall_ns", "starve": "starve_ns",
               "sleep": "sleep_ns", "resolution": "resolution_ns"}
    values: dict[str, float | int] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        if "=" not in part:
            raise ValueError(f"simulation spec item {part!r} needs the form key=value")
        key, raw = (x.strip() for x in part.split("=", 1))
        key = aliases.get(key, key)
        if key not in known:
            raise ValueError(f"unknown simulation key {key!r}; known: {', '.join(sorted(known))}")
        m = re.fullmatch(r"([0-9.eE+-]+)\s*(ns|us|µs|ms|s)?", raw)
        if not m:
            raise ValueError(f"simulation value {raw!r} for {key} is not a number")
        number = float(m.group(1)) * (_UNITS[m.group(2)] if m.group(2) else 1.0)
        values[key] = int(number) if known[key].type in ("int", int) else number
    return SimSpec(**values)  # type: ignore[arg-type]


def world(spec: str) -> SimWorld:
    """The seeded simulated world of a spec (``--simulate``): a clock, a timer and functions."""
    return SimWorld(parse_spec(spec))


def candidates(spec: str) -> tuple[SimWorld, list[tuple[str, Callable[[], None]]]]:
    """``"call=100us;call=30us"``: one world (of the first spec) and a function ``sim0``, ``sim1``, ... per
    spec, each with its own cost (``compare --simulate``)."""
    parts = spec.split(";")
    w = world(parts[0])
    return w, [(f"sim{i}", w.function(parse_spec(part).call_ns, f"sim{i}")) for i, part in enumerate(parts)]
