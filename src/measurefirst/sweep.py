"""Size sweeps: one measurement per size (and implementation), throughput, cost-model fit, roofline.

The lecture's law: at small sizes a fixed overhead dominates and time barely moves; past some size,
time follows the work. A :class:`SweepResult` shows that in numbers.
"""

from __future__ import annotations

import ast
import inspect
import json
import math
import sys
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Mapping, Sequence

from .devices import DeviceLike, cuda_api, resolve_device
from .engine import BenchmarkError, Interrupted, Options, benchmark
from .fit import ComplexityFit, FitError, PowerFit, fit_complexity, fit_power
from .results import SCHEMA_VERSION, Measurement, migrate
from .roofline import Bound, Peaks, classify

SizeFn = Callable[[int], float]
MakeFn = Callable[[int], Callable[[], object]]

_SAFE_NAMES = {name: getattr(math, name) for name in ("log", "log2", "log10", "sqrt", "exp", "ceil", "floor", "pi", "e")}
_SAFE_NODES = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Name, ast.Load, ast.Call, ast.Add, ast.Sub,
               ast.Mult, ast.Div, ast.FloorDiv, ast.Pow, ast.Mod, ast.USub, ast.UAdd)


def size_expression(text: str, what: str = "flops") -> SizeFn:
    """Compile an expression of ``n`` such as ``"2*n**3"`` (math functions allowed) into a function.
    Anything else (attributes, other names) is refused with an error naming the expression."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise ValueError(f"--{what} expression {text!r} is not valid: {exc.msg}") from exc
    for node in ast.walk(tree):
        if not isinstance(node, _SAFE_NODES):
            raise ValueError(f"--{what} expression {text!r} may use only n, numbers, + - * / ** and math functions")
        if isinstance(node, ast.Name) and node.id != "n" and node.id not in _SAFE_NAMES:
            raise ValueError(f"--{what} expression {text!r} uses unknown name {node.id!r}; only n and math functions")
    code = compile(tree, f"<{what}>", "eval")

    def f(n: int) -> float:
        value = eval(code, {"__builtins__": {}}, {**_SAFE_NAMES, "n": n})  # noqa: S307 - vetted AST above
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"--{what} expression {text!r} gave {value!r} at n={n}, not a finite number")
        return float(value)

    f.__name__ = f"{what}({text})"
    return f


def _as_size_fn(x: SizeFn | str | None, what: str) -> SizeFn | None:
    if x is None:
        return None
    if isinstance(x, str):
        return size_expression(x, what)
    if not callable(x):
        raise TypeError(f"{what} must be a function of n or an expression string such as '2*n**3'")

    def checked(n: int) -> float:
        value = x(n)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"{what}({n}) returned {value!r}, not a finite number")
        return float(value)

    return checked


@dataclass(frozen=True)
class SweepPoint:
    """One size of one implementation: its measurement, or why it failed."""

    label: str
    n: int
    measurement: Measurement | None
    error: str | None = None
    flops: float | None = None
    bytes: float | None = None

    @property
    def ok(self) -> bool:
        return self.measurement is not None and self.measurement.summary is not None

    @property
    def seconds(self) -> float:
        return self.measurement.median if self.ok else math.nan  # type: ignore[union-attr]

    @property
    def flops_per_s(self) -> float | None:
        return self.flops / self.seconds if (self.ok and self.flops) else None

    @property
    def bytes_per_s(self) -> float | None:
        return self.bytes / self.seconds if (self.ok and self.bytes) else None

    @property
    def intensity(self) -> float | None:
        return self.flops / self.bytes if (self.flops and self.bytes) else None


@dataclass(frozen=True)
class SweepResult:
    """All points of a sweep, with fits and roofline classification computed on request."""

    points: tuple[SweepPoint, ...]
    labels: tuple[str, ...]
    sizes: tuple[int, ...]
    reference: int
    device: str
    peaks: Peaks | None = None
    complete: bool = True
    options: dict[str, Any] = field(default_factory=dict)
    schema_version: int = SCHEMA_VERSION

    def series(self, label: str | None = None) -> list[SweepPoint]:
        label = self.labels[0] if label is None else label
        if label not in self.labels:
            raise KeyError(f"no implementation {label!r} in this sweep; have: {', '.join(self.labels)}")
        return [p for p in self.points if p.label == label]

    def fit(self, label: str | None = None) -> PowerFit:
        """``t(n) = t0 + c·n^k`` for one implementation (default: the first). FitError if unsupported."""
        ok = [p for p in self.series(label) if p.ok]
        if len(ok) < 3:
            raise FitError(f"only {len(ok)} sizes succeeded; a fit needs at least 4 (fewer than 3 leave nothing "
                           f"to fit); see the failed points for why")
        return fit_power([p.n for p in ok], [p.seconds for p in ok])

    def complexity(self, label: str | None = None) -> ComplexityFit:
        ok = [p for p in self.series(label) if p.ok]
        return fit_complexity([p.n for p in ok], [p.seconds for p in ok])

    def relative(self, point: SweepPoint) -> tuple[float | None, float | None]:
        """(time relative to the reference size, the work ratio the flops/bytes predict)."""
        ref = next((p for p in self.series(point.label) if p.n == self.reference and p.ok), None)
        if ref is None or not point.ok:
            return None, None
        work = None
        if point.flops and ref.flops:
            work = point.flops / ref.flops
        elif point.bytes and ref.bytes:
            work = point.bytes / ref.bytes
        return point.seconds / ref.seconds, work

    def bound(self, point: SweepPoint, overhead_s: float | None = None) -> Bound:
        return classify(point.seconds, point.flops, point.bytes, self.peaks, overhead_s=overhead_s)

    def measurements(self) -> list[Measurement]:
        return [p.measurement for p in self.points if p.measurement is not None]

    def __str__(self) -> str:
        from .render.text import sweep_lines

        return "\n".join(sweep_lines(self))

    def __repr__(self) -> str:
        ok = sum(p.ok for p in self.points)
        return (f"<SweepResult {', '.join(self.labels)} over {len(self.sizes)} sizes on {self.device}: "
                f"{ok}/{len(self.points)} points measured{'' if self.complete else ', incomplete'}>")

    def _repr_html_(self) -> str:
        from .render.report import fragment

        return fragment(self)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": self.schema_version, "kind": "sweep", "labels": list(self.labels),
            "sizes": list(self.sizes), "reference": self.reference, "device": self.device,
            "peaks": None if self.peaks is None else asdict(self.peaks), "complete": self.complete,
            "options": dict(self.options),
            "points": [{"label": p.label, "n": p.n, "error": p.error, "flops": p.flops, "bytes": p.bytes,
                        "measurement": None if p.measurement is None else p.measurement.to_dict()}
                       for p in self.points],
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, allow_nan=False)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "SweepResult":
        d = migrate(d)
        return cls(
            points=tuple(SweepPoint(p["label"], int(p["n"]),
                                    None if p["measurement"] is None else Measurement.from_dict(p["measurement"]),
                                    p.get("error"), p.get("flops"), p.get("bytes")) for p in d["points"]),
            labels=tuple(d["labels"]), sizes=tuple(int(n) for n in d["sizes"]), reference=int(d["reference"]),
            device=d["device"], peaks=None if d.get("peaks") is None else Peaks(**d["peaks"]),
            complete=bool(d.get("complete", True)), options=dict(d.get("options") or {}),
        )


def validate_sizes(sizes: Sequence[int]) -> list[int]:
    out = []
    for s in sizes:
        if isinstance(s, bool) or not isinstance(s, (int, float)) or s != int(s) or s <= 0:
            raise ValueError(f"sizes must be positive integers; got {s!r}")
        out.append(int(s))
    if not out:
        raise ValueError("sizes is empty; give at least one size (a fit needs four)")
    dupes = sorted({s for s in out if out.count(s) > 1})
    if dupes:
        raise ValueError(f"sizes must be distinct; {dupes[0]} appears twice")
    return out


def _describe_failure(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    if "out of memory" in text.lower() or type(exc).__name__ == "OutOfMemoryError":
        return "out of memory: " + str(exc).splitlines()[0][:200]
    return text.splitlines()[0][:300]


def sweep(
    make_fn: MakeFn | Mapping[str, MakeFn],
    sizes: Sequence[int],
    *,
    flops: SizeFn | str | None = None,
    bytes: SizeFn | str | None = None,  # noqa: A002 - the issue's name for it
    device: DeviceLike = "auto",
    reference: int | None = None,
    peaks: Peaks | None = None,
    budget: float = 2.0,
    precision: float = 0.01,
    progress: bool = False,
    label: str | None = None,
    **benchmark_options: Any,
) -> SweepResult:
    """Measure ``make_fn(n)()`` for each size ``n``; several implementations with a mapping.

    ``make_fn(n)`` builds the inputs (untimed) and returns the callable to time. ``flops`` and
    ``bytes`` (functions of n, or expressions like ``"2*n**3"``) give FLOP/s, bytes/s, arithmetic
    intensity and the work ratio against the ``reference`` size (default 256 if swept, else the
    smallest). ``peaks`` (see :func:`measurefirst.roofline.peaks`) enables roofline classification.
    A size that fails (an exception, out of memory) is recorded with its reason and the sweep goes
    on; Ctrl-C raises :class:`~measurefirst.engine.Interrupted` holding the finished sizes.
    """
    sizes_l = validate_sizes(sizes)
    _check_options(budget, precision, benchmark_options)
    if isinstance(make_fn, Mapping):
        impls = [(str(k), v) for k, v in make_fn.items()]
        if not impls:
            raise ValueError("make_fn mapping is empty")
    else:
        impls = [(label or getattr(make_fn, "__name__", "fn"), make_fn)]
    for name, f in impls:
        if not callable(f):
            raise TypeError(f"make_fn for {name!r} must be a callable taking the size n and returning the function to time")
    flops_fn, bytes_fn = _as_size_fn(flops, "flops"), _as_size_fn(bytes, "bytes")
    work = {n: (None if flops_fn is None else flops_fn(n), None if bytes_fn is None else bytes_fn(n)) for n in sizes_l}
    dev = resolve_device(device)
    ref = reference if reference is not None else (256 if 256 in sizes_l else min(sizes_l))
    if ref not in sizes_l:
        raise ValueError(f"reference size {ref} is not among the sizes")
    points: list[SweepPoint] = []
    options = {"budget": budget, "precision": precision, **{k: v for k, v in benchmark_options.items()
                                                              if isinstance(v, (int, float, str, bool, type(None)))}}

    def result(complete: bool) -> SweepResult:
        return SweepResult(tuple(points), tuple(n for n, _ in impls), tuple(sizes_l), ref, str(dev), peaks,
                           complete, options)

    bar = _Progress(len(sizes_l) * len(impls), enabled=progress)
    try:
        with bar:
            for n in sizes_l:
                fl, by = work[n]
                for name, make in impls:
                    bar.describe(f"{name} n={n}")
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
                        points.append(SweepPoint(name, n, exc.partial, _describe_failure(exc.__cause__ or exc), fl, by))
                    except Exception as exc:  # noqa: BLE001 - a failed size is data; the sweep goes on
                        points.append(SweepPoint(name, n, None, _describe_failure(exc), fl, by))
                    finally:
                        fn = None  # release the inputs before the next size
                        _free_memory(dev)
                    bar.advance()
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


class _Progress:
    """A rich progress bar with ETA on stderr (or nothing)."""

    def __init__(self, total: int, enabled: bool) -> None:
        self.enabled = enabled
        self.total = total
        self._p: Any = None
        self._task: Any = None

    def __enter__(self) -> "_Progress":
        if self.enabled:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self._p = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                               TextColumn("ETA"), TimeRemainingColumn(), console=Console(file=sys.stderr),
                               transient=True)
            self._p.__enter__()
            self._task = self._p.add_task("sweep", total=self.total)
        return self

    def describe(self, text: str) -> None:
        if self._p is not None:
            self._p.update(self._task, description=text)

    def advance(self) -> None:
        if self._p is not None:
            self._p.advance(self._task)

    def __exit__(self, *exc: object) -> None:
        if self._p is not None:
            self._p.__exit__(*exc)


# ---- built-in sweeps ----------------------------------------------------------------------------
def builtin(op: str, dtype: Any, device: DeviceLike) -> tuple[MakeFn, SizeFn | None, SizeFn, list[int]]:
    """``(make_fn, flops, bytes, default sizes)`` for ``matmul``, ``add``, ``copy``, ``gelu``."""
    import torch

    from .roofline import parse_dtype

    dt = parse_dtype(dtype)
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


def _is_power_of(a: int, r: int) -> bool:
    while a % r == 0 and a > 1:
        a //= r
    return a == 1


def parse_sizes(text: str) -> list[int]:
    """``"64,128,...,4096"`` (geometric: the first two sizes are powers of their ratio),
    ``"1000,2000,...,5000"`` (otherwise a constant step), or a plain list; items may be expressions
    like ``2**10``. The last size is always included."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    values: list[int | None] = []
    for p in parts:
        if p in ("...", "…"):
            values.append(None)
            continue
        try:
            values.append(int(size_expression(p, "sizes")(0)))
        except ValueError as exc:
            raise ValueError(f"--sizes item {p!r} is not a number") from exc
    if None not in values:
        return validate_sizes([v for v in values if v is not None])
    i = values.index(None)
    if i < 2 or i != len(values) - 2 or values.count(None) > 1:
        raise ValueError("--sizes with ... needs two sizes before it and one after, e.g. 64,128,...,4096")
    a, b, last = values[i - 2], values[i - 1], values[i + 1]
    assert a is not None and b is not None and last is not None
    head = [v for v in values[: i - 2] if v is not None]
    seq = [a, b]
    ratio = b // a if b % a == 0 else 0
    if ratio >= 2 and _is_power_of(a, ratio):
        while seq[-1] * ratio <= last:
            seq.append(seq[-1] * ratio)
    else:
        step = b - a
        if step <= 0:
            raise ValueError("--sizes must increase, e.g. 64,128,...,4096")
        while seq[-1] + step <= last:
            seq.append(seq[-1] + step)
    if seq[-1] != last:
        seq.append(last)
    return validate_sizes(head + seq)


