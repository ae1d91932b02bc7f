"""``--mf-simulate``: the seeded simulated clock a run times on instead of the real one (for tests), with
the cost of one call of each function it names."""

from __future__ import annotations

import zlib
from typing import Any, Sequence


class Simulation:
    """``--mf-simulate "call=1ms,noise=0.01,seed=3;test_b=1.2ms;fused=0.5ms"``: time on a seeded
    simulated clock. The first part is a :class:`~measurefirst.measure.simulate.SimSpec`; each ``KEY=TIME``
    after it sets the cost of one call of the functions it names (a label, a function's name, a test's
    name with or without its parameters, or a node id). The real function is still called once."""

    def __init__(self, text: str) -> None:
        from ..measure.simulate import parse_spec

        head, *rest = text.split(";")
        self.spec = parse_spec(head)
        self.costs: dict[str, float] = {}
        for part in filter(None, (p.strip() for p in rest)):
            key, sep, value = part.rpartition("=")
            if not sep or not key.strip():
                raise ValueError(f"simulated cost {part!r} needs the form name=TIME, such as test_b=1.2ms")
            self.costs[key.strip()] = parse_spec(f"call={value.strip()}").call_ns

    def world(self, name: str) -> Any:
        from ..measure.simulate import SimWorld

        return SimWorld(self.spec, seed=self.spec.seed + zlib.crc32(name.encode()) % 1_000_003)

    def cost(self, keys: Sequence[str | None]) -> float:
        for key in keys:
            if key is not None and key in self.costs:
                return self.costs[key]
        return self.spec.call_ns
