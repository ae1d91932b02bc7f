"""Size sweeps: one measurement per size (and implementation), throughput, cost-model fit, roofline.

The lecture's law: at small sizes a fixed overhead dominates and time barely moves; past some size,
time follows the work. A :class:`SweepResult` shows that in numbers.
"""

from __future__ import annotations

import ast
import inspect
import math
import numbers
import operator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping, Sequence

from ..measure import defaults
from ..measure.devices import DeviceLike, cuda_api, resolve_device
from ..measure.engine import BenchmarkError, Interrupted, Options, benchmark, check_label, default_label
from ..results.errors import check_kind
from ..measure.progress import active, report
from ..results.protocol import each
from .roofline import Peaks
from ..results.sweep import (ERROR_CODES as ERROR_CODES, MAX_SIZE as MAX_SIZE, SCHEMA_VERSION as SCHEMA_VERSION,
                             SweepPoint as SweepPoint, SweepResult as SweepResult)

SizeFn = Callable[[int], float]
MakeFn = Callable[[int], Callable[[], object]]

#: Bounds on size expressions (``--sizes``, ``--flops``, ``--bytes``): evaluation is plain float
#: arithmetic over a vetted syntax tree, so its time is bounded by the expression's length.
MAX_EXPRESSION_CHARS = 200
#: Largest exponent ``**`` accepts (``2*n**3`` needs 3; ``9**9**9`` is refused, not computed).
MAX_EXPONENT = 64
#: Largest value a FLOPs or bytes expression may give (a zettaFLOP-second of work is 1e21).
MAX_WORK = 1e30
#: Most sizes one sweep accepts.
MAX_SIZES = 1000
#: Longest ``--sizes`` text.
MAX_SIZES_CHARS = 4000

_FUNCTIONS: dict[str, tuple[Callable[..., float], tuple[int, ...]]] = {
    "log": (math.log, (1, 2)), "log2": (math.log2, (1,)), "log10": (math.log10, (1,)),
    "sqrt": (math.sqrt, (1,)), "exp": (math.exp, (1,)), "ceil": (math.ceil, (1,)), "floor": (math.floor, (1,)),
}
_CONSTANTS = {"pi": math.pi, "e": math.e}
_BINOPS: dict[type, Callable[[float, float], float]] = {
    ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b, ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b,
}


class ExpressionError(ValueError):
    """A size expression that is not allowed or cannot be evaluated; the message names it."""


def _vet(tree: ast.AST, text: str, what: str, allow_n: bool) -> None:
    names = "n, " if allow_n else ""
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in _FUNCTIONS and id(node) not in called:
            raise ExpressionError(f"{what} expression {text!r}: {node.id} is a function; call it, as in {node.id}(n)")
        if isinstance(node, ast.Expression):
            continue
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
                raise ExpressionError(f"{what} expression {text!r}: {node.value!r} is not a number")
        elif isinstance(node, ast.Name):
            if not ((allow_n and node.id == "n") or node.id in _CONSTANTS or node.id in _FUNCTIONS):
                raise ExpressionError(f"{what} expression {text!r} uses unknown name {node.id!r}; only {names}"
                                      f"numbers, + - * / // % **, pi, e and {', '.join(_FUNCTIONS)}")
        elif isinstance(node, ast.Call):
            if not (isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS) or node.keywords \
                    or any(isinstance(a, ast.Starred) for a in node.args):
                raise ExpressionError(f"{what} expression {text!r}: only {', '.join(_FUNCTIONS)} may be called, "
                                      f"with plain arguments")
            if len(node.args) not in _FUNCTIONS[node.func.id][1]:
                raise ExpressionError(f"{what} expression {text!r}: {node.func.id}() takes "
                                      f"{' or '.join(map(str, _FUNCTIONS[node.func.id][1]))} argument(s)")
        elif not isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Load, ast.Pow, ast.USub, ast.UAdd, *_BINOPS)):
            raise ExpressionError(f"{what} expression {text!r} may use only {names}numbers, + - * / // % **, "
                                  f"pi, e and {', '.join(_FUNCTIONS)}")


def _evaluate(node: ast.AST, n: float, text: str, what: str) -> float:
    """Float arithmetic over a vetted tree: every step is O(1), every value finite and bounded."""
    if isinstance(node, ast.Expression):
        return _evaluate(node.body, n, text, what)
    if isinstance(node, ast.Constant):
        value = float(node.value)  # type: ignore[arg-type]  # _vet allowed only int and float
    elif isinstance(node, ast.Name):
        value = n if node.id == "n" else _CONSTANTS[node.id]
    elif isinstance(node, ast.UnaryOp):
        x = _evaluate(node.operand, n, text, what)
        value = -x if isinstance(node.op, ast.USub) else x
    elif isinstance(node, ast.BinOp):
        a = _evaluate(node.left, n, text, what)
        b = _evaluate(node.right, n, text, what)
        if isinstance(node.op, ast.Pow):
            if abs(b) > MAX_EXPONENT:
                raise ExpressionError(f"{what} expression {text!r}: exponent {b:g} is beyond ±{MAX_EXPONENT}")
            value = math.pow(a, b)
        else:
            value = _BINOPS[type(node.op)](a, b)
    elif isinstance(node, ast.Call):
        assert isinstance(node.func, ast.Name)
        args = [_evaluate(a, n, text, what) for a in node.args]
        value = float(_FUNCTIONS[node.func.id][0](*args))
    else:  # pragma: no cover - _vet refused it
        raise ExpressionError(f"{what} expression {text!r} is not allowed")
    if not math.isfinite(value) or abs(value) > MAX_WORK:
        raise OverflowError("value out of range")
    return value


def size_expression(text: str, what: str = "flops", *, allow_n: bool = True) -> SizeFn:
    """Compile an expression of ``n`` such as ``"2*n**3"`` (math functions allowed) into a function.

    Only numbers, ``n``, ``+ - * / // % **``, ``pi``, ``e`` and ``log log2 log10 sqrt exp ceil floor``
    are allowed; the expression is never handed to Python's ``eval``. Resource bounds: at most
    :data:`MAX_EXPRESSION_CHARS` characters, exponents within ±:data:`MAX_EXPONENT`, every value
    within ±:data:`MAX_WORK`; so ``9**9**9`` is refused at once instead of computed. Every error is
    an :class:`ExpressionError` (a ValueError) naming the expression and, at evaluation, ``n``."""
    if not isinstance(text, str):
        raise ExpressionError(f"{what} expression must be a string such as '2*n**3'; got {type(text).__name__}")
    stripped = text.strip()
    if not stripped:
        raise ExpressionError(f"{what} expression is empty; give e.g. '2*n**3'")
    if len(stripped) > MAX_EXPRESSION_CHARS:
        raise ExpressionError(f"{what} expression is {len(stripped)} characters long; at most "
                              f"{MAX_EXPRESSION_CHARS} are accepted")
    try:
        tree = ast.parse(stripped, mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"{what} expression {text!r} is not valid: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError) as exc:
        raise ExpressionError(f"{what} expression {text!r} is not valid: {type(exc).__name__}") from None
    _vet(tree, text, what, allow_n)

    def f(n: int) -> float:
        at = f" at n={n}" if allow_n else ""
        try:
            return _evaluate(tree, float(n), text, what)
        except ExpressionError:
            raise
        except ZeroDivisionError:
            raise ExpressionError(f"{what} expression {text!r} divides by zero{at}") from None
        except OverflowError:
            raise ExpressionError(f"{what} expression {text!r} gives a number too large{at} "
                                  f"(beyond {MAX_WORK:g})") from None
        except (ValueError, TypeError) as exc:  # math domain errors: log(0), sqrt(-1)
            raise ExpressionError(f"{what} expression {text!r} cannot be evaluated{at}: {exc}") from None
        except RecursionError:
            raise ExpressionError(f"{what} expression {text!r} is nested too deeply") from None

    f.__name__ = f"{what}({stripped})"
    return f


def _as_size_fn(x: SizeFn | str | None, what: str) -> SizeFn | None:
    if x is None:
        return None
    inner = size_expression(x, what) if isinstance(x, str) else x
    if not callable(inner):
        raise TypeError(f"{what} must be a function of n or an expression string such as '2*n**3'")
    name = repr(x) if isinstance(x, str) else f"{what}(n)"

    def checked(n: int) -> float:
        try:
            value = inner(n)
        except ValueError:
            raise
        except Exception as exc:  # noqa: BLE001 - the user's size function: one line naming it and the size
            raise ValueError(f"{name} raised at n={n}: {type(exc).__name__}: {exc}; make it return a finite "
                             f"number >= 0 at every size") from exc
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise ValueError(f"{name} gave {value!r} at n={n}, not a finite number")
        v = float(value)
        if not math.isfinite(v) or v < 0:
            raise ValueError(f"{name} gave {value!r} at n={n}; {what} must be a finite number >= 0")
        return v

    return checked


def work_table(sizes: Sequence[int], flops: SizeFn | str | None, bytes: SizeFn | str | None,  # noqa: A002
               ) -> dict[int, tuple[float | None, float | None]]:
    """``{n: (flops, bytes)}`` for every size, evaluated up front so that a bad expression fails
    before anything is measured. Raises ValueError naming the expression and the size."""
    flops_fn, bytes_fn = _as_size_fn(flops, "flops"), _as_size_fn(bytes, "bytes")
    return {n: (None if flops_fn is None else flops_fn(n), None if bytes_fn is None else bytes_fn(n))
            for n in sizes}


def validate_sizes(sizes: Sequence[int]) -> list[int]:
    """Sizes as Python ints: positive whole numbers (numpy integers and whole floats such as 1e3
    included) up to :data:`MAX_SIZE`, distinct, at most :data:`MAX_SIZES` of them."""
    if isinstance(sizes, (str, bytes)) or not isinstance(sizes, Sequence) and not hasattr(sizes, "__iter__"):
        raise TypeError(f"sizes must be a list of positive integers such as [64, 128, 256]; got {type(sizes).__name__}")
    out: list[int] = []
    for s in sizes:
        if isinstance(s, bool) or not isinstance(s, numbers.Real):
            raise ValueError(f"sizes must be positive integers; got {s!r}")
        if isinstance(s, numbers.Integral):
            v = operator.index(s)
        elif math.isfinite(float(s)) and float(s).is_integer():
            v = int(float(s))
        else:
            raise ValueError(f"sizes must be positive whole numbers; got {s!r}")
        if v <= 0:
            raise ValueError(f"sizes must be positive integers; got {s!r}")
        if v > MAX_SIZE:
            raise ValueError(f"size {v} is beyond the largest accepted, 2**{MAX_SIZE.bit_length() - 1}")
        out.append(v)
        if len(out) > MAX_SIZES:
            raise ValueError(f"more than {MAX_SIZES} sizes; a sweep takes at most {MAX_SIZES}")
    if not out:
        raise ValueError("sizes is empty; give at least one size (a fit needs four)")
    for a, b in zip(out, out[1:]):
        if b == a:
            raise ValueError(f"sizes must be distinct; {a} appears twice")
        if b < a:
            raise ValueError(f"sizes must increase; {b} comes after {a}: give them in increasing order, "
                             f"such as {sorted(out)[:3]}")
    return out


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
        with _line_on_stderr(progress):
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


@contextmanager
def _line_on_stderr(enabled: bool) -> Iterator[None]:
    """``sweep(progress=True)``: a progress line on stderr, unless the caller already shows one."""
    if not enabled or active():
        yield
        return
    from ..measure.progress import showing
    from ..render.progress import ProgressLine

    with ProgressLine() as line, showing(line):
        yield


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
        from ..cli.targets import is_function_target, load_callable

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


def _is_power_of(a: int, r: int) -> bool:
    while a % r == 0 and a > 1:
        a //= r
    return a == 1


def parse_sizes(text: str) -> list[int]:
    """``"64,128,...,4096"`` (geometric: the first two sizes are powers of their ratio),
    ``"1000,2000,...,5000"`` (otherwise a constant step), or a plain list; items may be expressions
    like ``2**10`` (see :func:`size_expression`, without ``n``). Each size must be a whole number; with
    ``...`` the last size must be at least the one before ``...`` and is always included, and the
    count is checked before any list is built (at most :data:`MAX_SIZES`)."""
    if not isinstance(text, str):
        raise TypeError(f"--sizes must be text such as '64,128,...,4096'; got {type(text).__name__}")
    if len(text) > MAX_SIZES_CHARS:
        raise ValueError(f"--sizes is {len(text)} characters long; at most {MAX_SIZES_CHARS} are accepted")
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts:
        raise ValueError("--sizes is empty; give e.g. 64,128,...,4096")
    values: list[int | None] = []
    for p in parts:
        if p in ("...", "…"):
            values.append(None)
            continue
        try:
            x = size_expression(p, "--sizes item", allow_n=False)(0)
        except ValueError as exc:
            raise ValueError(str(exc)) from None
        if not x.is_integer():
            raise ValueError(f"--sizes item {p!r} is {x:g}, not a whole number")
        if not 0 < x <= MAX_SIZE:
            raise ValueError(f"--sizes item {p!r} is {x:g}; sizes run from 1 to 2**{MAX_SIZE.bit_length() - 1}")
        values.append(int(x))
    if len(values) > MAX_SIZES:
        raise ValueError(f"--sizes lists {len(values)} sizes; a sweep takes at most {MAX_SIZES}")
    if None not in values:
        return validate_sizes([v for v in values if v is not None])
    i = values.index(None)
    if i < 2 or i != len(values) - 2 or values.count(None) > 1:
        raise ValueError("--sizes with ... needs two sizes before it and one after, e.g. 64,128,...,4096")
    a, b, last = values[i - 2], values[i - 1], values[i + 1]
    assert a is not None and b is not None and last is not None
    head = [v for v in values[: i - 2] if v is not None]
    if b <= a:
        raise ValueError(f"--sizes must increase before ...: {a} then {b}; e.g. 64,128,...,4096")
    if last < b:
        raise ValueError(f"--sizes: the last size {last} is below {b}, the size before ...; "
                         f"e.g. {a},{b},...,{b * 8}")
    ratio = b // a if b % a == 0 else 0
    geometric = ratio >= 2 and _is_power_of(a, ratio)
    if geometric:
        count = 2 + int(math.floor(math.log(last / b, ratio) + 1e-9))
    else:
        count = 2 + (last - b) // (b - a)
    count += len(head) + (0 if count == 0 else 1)  # the last size may be appended
    if count > MAX_SIZES + 1:
        raise ValueError(f"--sizes {text.strip()!r} expands to about {count - 1} sizes; a sweep takes at most "
                         f"{MAX_SIZES} (use a larger step or a doubling sequence such as 64,128,...,4096)")
    seq = [a, b]
    if geometric:
        while seq[-1] * ratio <= last:
            seq.append(seq[-1] * ratio)
    else:
        while seq[-1] + (b - a) <= last:
            seq.append(seq[-1] + (b - a))
    if seq[-1] != last:
        seq.append(last)
    out = head + seq
    if any(x >= y for x, y in zip(out, out[1:])):
        raise ValueError(f"--sizes {text.strip()!r} does not increase throughout; list the sizes in order")
    return validate_sizes(out)


def with_fresh_peaks(result: SweepResult, device: Any, dtype: str, store: Any = None) -> SweepResult:
    """``result`` against peaks measured again now (a rate above the often cached peak says the peak is the
    wrong number: ``roof_exceeded``)."""
    from dataclasses import replace

    from .roofline import peaks

    return replace(result, peaks=peaks(device, dtype, store=store, refresh=True))
