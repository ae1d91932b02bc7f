"""Sizes and the work at each size, as text: ``--sizes`` lists (``64,128,...,4096``) and FLOPs or bytes
expressions of ``n`` (``2*n**3``), parsed and bounded. Pure arithmetic on the ground floor: a sweep
(:mod:`measurefirst.tools.sweep`) and the collectives' byte sizes (:mod:`.bandwidth`) read them."""

from __future__ import annotations

import ast
import math
import numbers
import operator
from typing import Callable, Sequence

from .sweep import MAX_SIZE

SizeFn = Callable[[int], float]

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
