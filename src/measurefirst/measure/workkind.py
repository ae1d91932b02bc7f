"""What kind of work a call does, told from what it does rather than from how long it takes.

A noise profile (:mod:`measurefirst.measure.noise`) measured four kinds of work in fresh processes: a
pure-Python busy-wait, a 1-element ``torch.add`` (dispatch), a 256x256 matmul (compute) and a 32 MiB copy
(memory). A run borrows from the kind it does: the inflation of its repetitions' spread, and for compute-
and memory-bound calls the fresh-process spread itself as a floor (:meth:`NoiseProfile.kind_floor`: their
repetitions can agree to 0.1% in a process that drew a speed mode 16% away). Read by the call's length
alone (the rule before), a 5 ms matmul passed for memory work and a 300 µs elementwise op on a large tensor
for compute.

**How.** After an adaptive run on the CPU and the real clock (``benchmark()``), the function is called once more
(never timed) under a ``TorchFunctionMode`` that counts the torch functions it calls, the bytes their tensors hold
(inputs and outputs; views move nothing and count nothing) and the FLOPs of its matrix products and
convolutions (:func:`count_work`). Then:

* no torch function: ``"python"`` (the busy-wait's kind; the rules by duration stay);
* under :data:`DISPATCH_SECONDS` per function on average: ``"dispatch"`` (launching them is the time);
* at least :data:`COMPUTE_FLOPS_PER_BYTE` FLOPs per byte: ``"compute"``;
* else ``"memory"``.

Not with fixed counts (``warmup=``/``trials=``: the function is called exactly as often as they say), nor in a
rank of a process group (ranks whose medians differ would decide apart, and one more call of a collective on
some ranks only hangs), nor in a process where torch's compiler has compiled anything (the function may call a compiled one: the
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
    """What one call ran: torch functions, FLOPs and the bytes their tensors hold."""

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


#: The functions that can be compute-bound, and the size of the contraction each of their outputs' elements
#: costs (2 FLOPs a multiply-add): matrix products (the first matrix's last dimension), convolutions (the
#: weight's elements per output channel) and attention (the keys' length and the head size, twice).
_PRODUCTS = {"matmul": 0, "mm": 0, "bmm": 0, "__matmul__": 0, "__rmatmul__": 1, "linear": 0, "addmm": 1,
             "baddbmm": 1, "addbmm": 1}
_CONVOLUTIONS = ("conv1d", "conv2d", "conv3d")


def _flops(name: str, args: Any, out: Any) -> float:
    import torch

    if not isinstance(out, torch.Tensor) or len(args) < 2 or not all(isinstance(a, torch.Tensor) for a in args[:2]):
        return 0.0
    if name in _PRODUCTS and args[_PRODUCTS[name]].dim() >= 1:
        return 2.0 * out.numel() * int(args[_PRODUCTS[name]].shape[-1])
    if name in _CONVOLUTIONS and args[1].dim() >= 2:
        return 2.0 * out.numel() * int(args[1][0].numel())
    if name == "scaled_dot_product_attention" and args[1].dim() >= 2:
        return 4.0 * out.numel() * int(args[1].shape[-2])
    return 0.0


def count_work(fn: Callable[[], object], setup: Callable[[], object] | None = None) -> WorkCounts:
    """Call ``fn`` once (after ``setup``, not counted) under a ``TorchFunctionMode`` that counts the torch functions
    it calls that return tensors (not those nested in them), the bytes their tensors hold (a result that shares an
    argument's memory moved nothing, unless the function works in place, ``add_``) and the FLOPs of the matrix
    products and convolutions among them. Not a dispatch mode: entering one imports torch's compiler (a second),
    and a process that has loaded it reads compile metrics around every call. Raises what the call raises."""
    import torch
    from torch.overrides import TorchFunctionMode
    from torch.utils._pytree import tree_leaves

    def tensors(tree: object) -> list[torch.Tensor]:
        return [x for x in tree_leaves(tree) if isinstance(x, torch.Tensor)]

    def nbytes(ts: list[torch.Tensor]) -> int:
        return sum(t.numel() * t.element_size() for t in ts)

    class Counting(TorchFunctionMode):
        ops, bytes, flops = 0, 0, 0.0

        def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            out = func(*args, **(kwargs or {}))
            made = tensors(out)
            if made:
                name = getattr(func, "__name__", "")
                given = tensors((args, kwargs))
                shared = {t.untyped_storage().data_ptr() for t in given if t.device.type != "meta"}
                moved = name.endswith("_") and not name.startswith("_") or not any(
                    t.device.type != "meta" and t.untyped_storage().data_ptr() in shared for t in made)
                self.ops += 1
                self.bytes += nbytes(given) + nbytes(made) if moved else 0
                self.flops += _flops(name, args, out)
            return out

    if setup is not None:
        setup()
    with Counting() as counting:
        fn()
    return WorkCounts(ops=counting.ops, flops=float(counting.flops), bytes=float(counting.bytes))


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
    if compiled_anything():  # fn may call a compiled function: a mode around it is a new guard
        return m
    if _in_a_group():  # ranks would decide apart (their medians differ): one more call of a collective hangs
        return m
    try:
        counts = count_work(fn, setup)
    except Exception:  # noqa: BLE001 - the run is measured; a kind it cannot tell is unknown, not an error
        return m
    return replace(m, options={**m.options, "work_kind": kind_of(counts, seconds),
                               "work_counts": counts.to_dict()})


def _in_a_group() -> bool:
    """Whether this process is a rank of an initialized ``torch.distributed`` process group. Not
    ``distributed.group.is_initialized``: that layer sits above this one, and it imports ``torch.distributed``,
    which a process that never used it need not load."""
    import sys

    d = sys.modules.get("torch.distributed")
    try:
        return bool(d is not None and d.is_available() and d.is_initialized())
    except Exception:  # noqa: BLE001 - a torch without the call: no group we can see
        return False


def work_kind(m: "Measurement") -> str | None:
    """The kind of work ``m``'s call does, where :func:`observe` told it; else None."""
    kind = m.options.get("work_kind")
    return kind if isinstance(kind, str) else None
