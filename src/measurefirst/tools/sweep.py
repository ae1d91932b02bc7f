"""Size sweeps: one measurement per size (and implementation), throughput, cost-model fit, roofline.

The lecture's law: at small sizes a fixed overhead dominates and time barely moves; past some size,
time follows the work. A :class:`SweepResult` shows that in numbers.
"""

from __future__ import annotations

import inspect
import numbers
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from ..results import defaults
from ..measure.devices import DeviceLike, cuda_api, resolve_device
from ..measure.engine import BenchmarkError, Interrupted, Options, benchmark, check_label, default_label
from ..results.errors import check_kind
from ..measure.progress import own_line, report
from ..results.protocol import each
from .roofline import Peaks
from ..results.sizes import (MAX_EXPONENT as MAX_EXPONENT, MAX_EXPRESSION_CHARS as MAX_EXPRESSION_CHARS,
                             MAX_SIZES as MAX_SIZES, MAX_SIZES_CHARS as MAX_SIZES_CHARS, MAX_WORK as MAX_WORK,
                             ExpressionError as ExpressionError, parse_sizes as parse_sizes,
                             size_expression as size_expression, validate_sizes as validate_sizes,
                             work_table as work_table)
from ..results.sweep import (ERROR_CODES as ERROR_CODES, MAX_SIZE as MAX_SIZE, SCHEMA_VERSION as SCHEMA_VERSION,
                             SweepPoint as SweepPoint, SweepResult as SweepResult)

SizeFn = Callable[[int], float]
MakeFn = Callable[[int], Callable[[], object]]


def _failure(exc: BaseException) -> tuple[str, str | None]:
    """The error's text (its first line) and its code (:data:`ERROR_CODES`)."""
    text = f"{type(exc).__name__}: {exc}"
    if "out of memory" in text.lower() or type(exc).__name__ == "OutOfMemoryError":
        return str(exc).splitlines()[0][:200], "out_of_memory"
    return text.splitlines()[0][:300], None


def sweep(
    make_fn: MakeFn | Mapping[str, MakeFn],
    sizes: Sequence[int],
    *,
    flops: SizeFn | str | None = None,
    bytes: SizeFn | str | None = None,  # noqa: A002 - the issue's name for it
    device: DeviceLike = "auto",
    reference: int | None = None,
    peaks: Peaks | None = None,
    budget: float = defaults.SWEEP_BUDGET_S,
    precision: float = defaults.SWEEP_PRECISION,
    progress: bool = False,
    label: str | None = None,
    **benchmark_options: Any,
) -> SweepResult:
    """Measure ``make_fn(n)()`` for each size ``n``; several implementations with a mapping.

    ``make_fn(n)`` builds the inputs (untimed) and returns the callable to time. ``flops`` and
    ``bytes`` (functions of n, or expressions like ``"2*n**3"``) give FLOP/s, bytes/s, arithmetic
    intensity and the work ratio against the ``reference`` size (default 256 if swept, else the
    smallest). ``peaks`` (see :func:`measurefirst.tools.roofline.peaks`) enables roofline classification.
    A size that fails (an exception, out of memory) is recorded with its reason and the sweep goes
    on; Ctrl-C raises :class:`~measurefirst.measure.engine.Interrupted` holding the finished sizes.
    """
    sizes_l = validate_sizes(sizes)
    _check_options(budget, precision, benchmark_options)
    check_kind("peaks", peaks, Peaks, "a Peaks measured by measurefirst.peaks(device)", optional=True)
    check_label(label)
    if isinstance(make_fn, Mapping):
        impls = [(str(k), v) for k, v in make_fn.items()]
        if not impls:
            raise ValueError("make_fn mapping is empty")
    else:
        impls = [(label or default_label(make_fn), make_fn)]
    for name, f in impls:
        if not callable(f):
            raise TypeError(f"make_fn for {name!r} must be a callable taking the size n and returning the function to time")
    work = work_table(sizes_l, flops, bytes)
    dev = resolve_device(device)
    ref = reference if reference is not None else (256 if 256 in sizes_l else min(sizes_l))
    if isinstance(ref, bool) or not isinstance(ref, numbers.Integral) or ref not in sizes_l:
        raise ValueError(f"reference size {ref} is not among the sizes")
    points: list[SweepPoint] = []
    options = {"budget": budget, "precision": precision, **{k: v for k, v in benchmark_options.items()
                                                              if isinstance(v, (int, float, str, bool, type(None)))}}

    def result(complete: bool) -> SweepResult:
        return SweepResult(tuple(points), tuple(n for n, _ in impls), tuple(sizes_l), ref, str(dev), peaks,
                           complete, options)

    total = len(sizes_l) * len(impls)
    try:
        with own_line(progress):
            for n in sizes_l:
                fl, by = work[n]
                for name, make in impls:
                    report("sweep", f"{name} n={n}", len(points) + 1, total)
                    try:
                        fn = make(n)
                        if not callable(fn):
                            raise TypeError(f"make_fn({n}) returned {type(fn).__name__}, not a callable")
                        m = benchmark(fn, device=device, label=f"{name} n={n}", budget=budget, precision=precision,
                                      **benchmark_options)
                        points.append(SweepPoint(name, n, m, None, fl, by))
                    except (KeyboardInterrupt, Interrupted):
                        raise
                    except BenchmarkError as exc:
                        error, code = _failure(exc.__cause__ or exc)
                        points.append(SweepPoint(name, n, exc.partial, error, fl, by, code))
                    except Exception as exc:  # noqa: BLE001 - a failed size is data; the sweep goes on
                        error, code = _failure(exc)
                        points.append(SweepPoint(name, n, None, error, fl, by, code))
                    except SystemExit as exc:  # sys.exit() in the user's code is a failure of that size
                        points.append(SweepPoint(name, n, None, repr(exc.code), fl, by, "exit"))
                    finally:
                        fn = None  # release the inputs before the next size
                        _free_memory(dev)
    except (KeyboardInterrupt, Interrupted) as exc:
        # the size being measured is dropped; the finished sizes are kept
        raise Interrupted(result(False)) from exc
    return result(True)


_BENCH_OPTIONS = set(inspect.signature(benchmark).parameters) - {"fn", "device", "label", "budget", "precision"}


def _check_options(budget: float, precision: float, options: Mapping[str, Any]) -> None:
    """Invalid benchmark options are the caller's mistake, not failed sizes: refuse them up front."""
    unknown = sorted(set(options) - _BENCH_OPTIONS)
    if unknown:
        raise TypeError(f"sweep() got an unknown option {unknown[0]!r}; benchmark options are: "
                        f"{', '.join(sorted(_BENCH_OPTIONS))}")
    fields = {k: v for k, v in options.items() if k in Options.__dataclass_fields__}
    Options(budget=budget, precision=precision, **fields)


def _free_memory(dev: Any) -> None:
    import gc

    gc.collect()
    if getattr(dev, "type", "") == "cuda":
        cuda_api().empty_cache()


# ---- built-in sweeps ----------------------------------------------------------------------------
def builtin(op: str, dtype: Any, device: DeviceLike) -> tuple[MakeFn, SizeFn | None, SizeFn, list[int]]:
    """``(make_fn, flops, bytes, default sizes)`` for ``matmul``, ``add``, ``copy``, ``gelu``."""
    import torch

    from ..measure.dtypes import torch_dtype

    dt = torch_dtype(dtype)
    dev = resolve_device(device)
    size = torch.empty((), dtype=dt).element_size()
    gpu = dev.type != "cpu"
    if op == "matmul":
        def make(n: int) -> Callable[[], object]:
            a, b = torch.randn(n, n, device=dev).to(dt), torch.randn(n, n, device=dev).to(dt)
            return lambda: a @ b
        sizes = [64, 128, 256, 512, 1024, 2048] + ([4096, 8192] if gpu else [])
        return make, (lambda n: 2.0 * n**3), (lambda n: 3.0 * n * n * size), sizes
    elementwise = [2**k for k in range(10, 27 if gpu else 25, 2)]
    if op == "add":
        def make(n: int) -> Callable[[], object]:
            x, y = torch.randn(n, device=dev).to(dt), torch.randn(n, device=dev).to(dt)
            return lambda: x + y
        return make, (lambda n: float(n)), (lambda n: 3.0 * n * size), elementwise
    if op == "copy":
        def make(n: int) -> Callable[[], object]:
            x, y = torch.randn(n, device=dev).to(dt), torch.empty(n, device=dev, dtype=dt)
            return lambda: y.copy_(x)
        return make, None, (lambda n: 2.0 * n * size), elementwise
    if op == "gelu":
        def make(n: int) -> Callable[[], object]:
            x = torch.randn(n, device=dev).to(dt)
            return lambda: torch.nn.functional.gelu(x)
        return make, None, (lambda n: 2.0 * n * size), elementwise
    raise ValueError(f"unknown built-in sweep {op!r}; use matmul, add, copy or gelu")


@dataclass(frozen=True)
class Plan:
    """A sweep ready to run: what to measure (``make``) at which sizes, and the work per call."""

    label: str
    make: MakeFn
    sizes: tuple[int, ...]
    flops: SizeFn | str | None
    bytes: SizeFn | str | None


def plan(*, op: str | None = None, make: MakeFn | None = None, label: str = "", sizes: str | None = None,
         flops: str | None = None, bytes: str | None = None,  # noqa: A002 - as in sweep()
         dtype: Any = defaults.DTYPE, device: DeviceLike = "auto", reference: int | None = None,
         target: str | None = None) -> Plan:
    """A built-in sweep (``op``, with its default sizes and work), ``make``, or ``target`` (``module:make_fn``,
    loaded here; exactly one of ``op`` and ``target``): ``sizes`` parsed (see :func:`parse_sizes`),
    ``flops``/``bytes`` expressions (overriding the op's) evaluated at every size, the reference size
    among them; ``ValueError`` saying what to give otherwise. Nothing is measured."""
    if target is not None or (op is None and make is None):
        from .targets import is_function_target, load_callable

        if bool(op) == bool(target):
            raise ValueError("give either TARGET or --op, not both" if op else
                             "give TARGET (module:make_fn) or --op " + "|".join(defaults.SWEEP_OPS))
        if not is_function_target(str(target)):
            raise ValueError("TARGET must be module:make_fn (a function of n returning the callable to time)")
        label, make = load_callable(str(target))
    sizes_ = parse_sizes(sizes) if sizes is not None else None
    op_flops: SizeFn | None = None
    op_bytes: SizeFn | None = None
    if op is not None:
        make, op_flops, op_bytes, default_sizes = builtin(op, dtype, device)
        label, sizes_ = op, sizes_ or default_sizes
    if make is None or sizes_ is None:
        raise ValueError("give a built-in op or a make function" if make is None else
                         "give --sizes, e.g. --sizes 64,128,...,4096")
    work_flops = flops if flops is not None else op_flops
    work_bytes = bytes if bytes is not None else op_bytes
    work_table(sizes_, work_flops, work_bytes)  # every expression at every size, before anything is measured
    if reference is not None and reference not in sizes_:
        raise ValueError(f"--reference {reference} is not among the sizes")
    return Plan(label, make, tuple(sizes_), work_flops, work_bytes)


def with_fresh_peaks(result: SweepResult, device: Any, dtype: str, store: Any = None) -> SweepResult:
    """``result`` against peaks measured again now (a rate above the often cached peak says the peak is the
    wrong number: ``roof_exceeded``)."""
    from dataclasses import replace

    from .roofline import peaks

    return replace(result, peaks=peaks(device, dtype, store=store, refresh=True))
