"""What kind of work a call does, told from what it does rather than from how long it takes.

A noise profile (:mod:`measurefirst.measure.noise`) measured four kinds of work in fresh processes: a
pure-Python busy-wait, a 1-element ``torch.add`` (dispatch), a 256x256 matmul (compute) and a 32 MiB copy
(memory). A run borrows from the kind it does: the inflation of its repetitions' spread, and for compute-
and memory-bound calls the fresh-process spread itself as a floor (:meth:`NoiseProfile.kind_floor`: their
repetitions can agree to 0.1% in a process that drew a speed mode 16% away). Read by the call's length
alone (the rule before), a 5 ms matmul passed for memory work and a 300 µs elementwise op on a large tensor
for compute.

**How.** After an adaptive run on the CPU and the real clock (``benchmark()``), the function is called once more (never timed)
under a dispatch mode that counts the ATen operators it runs, the bytes their tensors hold (inputs and
outputs; views move nothing and count nothing) and their FLOPs (``torch.utils.flop_counter``). Then:

* no operator: ``"python"`` (the busy-wait's kind; the rules by duration stay);
* under :data:`DISPATCH_SECONDS` per operator on average: ``"dispatch"`` (launching them is the time);
* at least :data:`COMPUTE_FLOPS_PER_BYTE` FLOPs per byte: ``"compute"``;
* else ``"memory"``.

Not with fixed counts (``warmup=``/``trials=``: the function is called exactly as often as they say), nor in a
process where torch's compiler has compiled anything (the function may call a compiled one: the
mode would change what dynamo traces, and a recompile is a minute), nor for a function that raises on the
extra call, a call over 0.1 s or 2% of the budget, or a run without samples: the kind is then unknown, and the rules
by duration hold as before. The result keeps the kind and its counts in its options (``work_kind``,
``work_counts``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:  # pragma: no cover
    from ..results.kinds import Measurement

#: An operator that takes less than this on average (seconds) is dominated by torch's dispatch on a CPU
#: (a 1-element add: 1.3-3 µs here; a 256x256 matmul: 340 µs).
DISPATCH_SECONDS = 10e-6
#: FLOPs per byte from which a call is compute-bound: about a CPU's ridge point (a 256x256 float32 matmul
#: does 43; an elementwise op, which the counter gives no FLOPs, 0; a 32x32 matmul 5, which is dispatch
#: anyway at 3 µs).
COMPUTE_FLOPS_PER_BYTE = 8.0
#: Calls longer than this (seconds), or than :data:`BUDGET_SHARE` of the run's budget, are not called again to be
#: counted (the mode costs microseconds an operator on top of the call): their kind is left unknown.
MAX_SECONDS = 0.1
BUDGET_SHARE = 0.02


@dataclass(frozen=True)
class WorkCounts:
    """What one call ran: ATen operators, FLOPs and the bytes their tensors hold."""

    ops: int
    flops: float
    bytes: float

    def to_dict(self) -> dict[str, Any]:
        return {"ops": self.ops, "flops": self.flops, "bytes": self.bytes}


def kind_of(counts: WorkCounts, seconds: float) -> str:
    """The kind of work (one of ``results.noise.KINDS``) of a call ``seconds`` long that ran ``counts``."""
    if counts.ops <= 0:
        return "python"
    if math.isfinite(seconds) and seconds / counts.ops < DISPATCH_SECONDS:
        return "dispatch"
    if counts.bytes > 0 and counts.flops / counts.bytes >= COMPUTE_FLOPS_PER_BYTE:
        return "compute"
    return "memory"


def count_work(fn: Callable[[], object], setup: Callable[[], object] | None = None) -> WorkCounts:
    """Call ``fn`` once (after ``setup``, not counted) under a dispatch mode that counts its operators, their
    tensors' bytes and their FLOPs. Raises what the call raises."""
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._pytree import tree_leaves
    from torch.utils.flop_counter import FlopCounterMode

    def nbytes(tree: object) -> int:
        return sum(x.numel() * x.element_size() for x in tree_leaves(tree) if isinstance(x, torch.Tensor))

    class Counting(TorchDispatchMode):  # type: ignore[no-untyped-call]  # torch's mode is untyped
        ops, bytes = 0, 0

        def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            out = func(*args, **(kwargs or {}))
            self.ops += 1
            if not getattr(func, "is_view", False):
                self.bytes += nbytes(args) + nbytes(kwargs) + nbytes(out)
            return out

    if setup is not None:
        setup()
    flops, counting = FlopCounterMode(display=False), Counting()  # type: ignore[no-untyped-call]
    with flops, counting:
        fn()
    return WorkCounts(ops=counting.ops, flops=float(flops.get_total_flops()), bytes=float(counting.bytes))


def observe(m: "Measurement", fn: Callable[[], object], setup: Callable[[], object] | None,
            budget: float = math.inf) -> "Measurement":
    """``m`` with its kind of work in its options (``work_kind``, ``work_counts``), where it can be told
    (see the module docstring); ``m`` unchanged where it cannot. A ``KeyboardInterrupt`` goes through (the
    caller keeps ``m``)."""
    from .compiling import compiled_anything

    seconds = m.median
    if m.device != "cpu" or m.compiled is not None or not m.n_samples or not 0 < seconds <= MAX_SECONDS \
            or seconds > BUDGET_SHARE * budget:
        return m
    if compiled_anything():  # fn may call a compiled function: a dispatch mode around it is a new guard
        return m
    try:
        counts = count_work(fn, setup)
    except Exception:  # noqa: BLE001 - the run is measured; a kind it cannot tell is unknown, not an error
        return m
    return replace(m, options={**m.options, "work_kind": kind_of(counts, seconds),
                               "work_counts": counts.to_dict()})


def work_kind(m: "Measurement") -> str | None:
    """The kind of work ``m``'s call does, where :func:`observe` told it; else None."""
    kind = m.options.get("work_kind")
    return kind if isinstance(kind, str) else None
