"""Command line: parse, call the library, render. Errors are printed once, as one line.

Exit codes: 0 success, 1 the benchmarked code failed, 2 bad usage or input, 130 interrupted.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import inspect
import json
import os
import re
import sys
import textwrap
from pathlib import Path
from typing import Any, Callable, Sequence

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130

_TARGET_RE = re.compile(r"^(?P<mod>[\w.]+|[^:\s]+\.py):(?P<attr>[\w.]+)$")


class UsageError(Exception):
    """Bad input on the command line; printed as one line, exit code 2."""


def _fraction(text: str) -> float:
    t = text.strip()
    try:
        return float(t[:-1]) / 100.0 if t.endswith("%") else float(t)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a fraction such as 0.01 or 1%, got {text!r}") from None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="measurefirst",
        description="Correct measurement of PyTorch code: measure first, then optimize.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    b = sub.add_parser(
        "bench", help="time statements or functions, device-aware (like python -m timeit)",
        description=(
            "Time each TARGET: a Python statement (run after the -s setup, with `torch` imported and "
            "`device` set to the chosen device string) or module:function / path.py:function naming a "
            "function that takes no arguments. Each target is one row of the table."
        ),
    )
    b.add_argument("targets", nargs="*", metavar="TARGET", help="statement, module:function or file.py:function")
    b.add_argument("-s", "--setup", action="append", default=[], help="setup statement, run once (repeatable)")
    b.add_argument("-d", "--device", default="auto", help="auto (cuda, then mps, then cpu), cpu, cuda, cuda:1, mps")
    b.add_argument("-p", "--precision", type=_fraction, default=0.01,
                   help="stop when the 95%% CI of the median is within ±this (default 1%%)")
    b.add_argument("-b", "--budget", type=float, default=5.0, help="seconds per target at most (default 5)")
    b.add_argument("--min-time", type=float, default=0.2, help="seconds of sampling at least (default 0.2)")
    b.add_argument("--min-samples", type=int, default=10, help="samples at least (default 10)")
    b.add_argument("--max-samples", type=int, default=None, help="samples at most")
    b.add_argument("--warmup", type=int, default=None, help="fixed number of warm-up calls (default: until steady)")
    b.add_argument("--warmup-time", type=float, default=1.0, help="cap on adaptive warm-up, seconds (default 1)")
    b.add_argument("--trials", type=int, default=None, help="fixed number of samples (default: adaptive)")
    b.add_argument("-n", "--number", type=int, default=None, help="calls per sample (default: calibrated)")
    b.add_argument("--cold-cache", action="store_true", help="flush the last-level cache before each sample")
    b.add_argument("--cuda-graph", action="store_true", help="capture the calls in a CUDA graph and time replays")
    b.add_argument("--timer", choices=("auto", "wall", "event"), default="auto",
                   help="auto: events on GPUs, wall clock on the CPU")
    b.add_argument("--keep-preempted", action="store_true",
                   help="use samples during which the OS preempted the process (default: set them aside)")
    b.add_argument("--label", action="append", default=[], help="label for each target, in order")
    b.add_argument("--json", action="store_true", help="print the results as JSON instead of a table")
    b.add_argument("-o", "--output", type=Path, default=None, help="also write the JSON results to this file")
    b.add_argument("--simulate", default=None, help=argparse.SUPPRESS)  # seeded simulated clock, for tests
    return parser


def _version() -> str:
    from . import __version__

    return __version__


def _console(stderr: bool = False) -> Any:
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    width = None if stream.isatty() else int(os.environ.get("MEASUREFIRST_WIDTH", "160"))
    return Console(file=stream, width=width, highlight=False, soft_wrap=False)


def _load_target(target: str, namespace: dict[str, Any]) -> tuple[str, Callable[[], object]]:
    m = _TARGET_RE.match(target.strip())
    if m:
        mod_name, attr = m.group("mod"), m.group("attr")
        if mod_name.endswith(".py"):
            path = Path(mod_name)
            if not path.is_file():
                raise UsageError(f"no such file: {mod_name}")
            spec = importlib.util.spec_from_file_location(path.stem, path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules.setdefault(path.stem, module)
            spec.loader.exec_module(module)
        else:
            if os.getcwd() not in sys.path:
                sys.path.insert(0, os.getcwd())
            try:
                module = importlib.import_module(mod_name)
            except ImportError as exc:
                raise UsageError(f"cannot import {mod_name!r}: {exc}") from exc
        obj: Any = module
        for part in attr.split("."):
            if not hasattr(obj, part):
                raise UsageError(f"{mod_name!r} has no attribute {attr!r}")
            obj = getattr(obj, part)
        if not callable(obj):
            raise UsageError(f"{target} is a {type(obj).__name__}, not a function; name a function that takes no arguments")
        try:
            sig = inspect.signature(obj)
            required = [p.name for p in sig.parameters.values()
                        if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        except (TypeError, ValueError):
            required = []
        if required:
            raise UsageError(f"{target} needs arguments ({', '.join(required)}); benchmark a function that takes none, "
                             f"e.g. one that builds its inputs in setup and calls {attr}")
        return attr, obj
    body = textwrap.indent(textwrap.dedent(target).strip() or "pass", "    ")
    source = f"def __measurefirst_stmt__():\n{body}\n"
    try:
        code = compile(source, "<statement>", "exec")
    except SyntaxError as exc:
        raise UsageError(f"statement {target!r} is not valid Python: {exc.msg}") from exc
    exec(code, namespace)
    return target.strip(), namespace.pop("__measurefirst_stmt__")


def _run_setup(setups: Sequence[str], device: str) -> dict[str, Any]:
    import torch

    namespace: dict[str, Any] = {"torch": torch, "device": device, "__name__": "__measurefirst__"}
    for s in setups:
        try:
            exec(compile(textwrap.dedent(s), "<setup>", "exec"), namespace)
        except SyntaxError as exc:
            raise UsageError(f"setup {s!r} is not valid Python: {exc.msg}") from exc
    return namespace


def cmd_bench(args: argparse.Namespace) -> int:
    from . import benchmark
    from .devices import DeviceError, resolve_device
    from .engine import BenchmarkError, Interrupted
    from .render.text import measurement_table

    out, err = _console(), _console(stderr=True)
    if not args.targets and not args.simulate:
        raise UsageError('give a statement or module:function to time, e.g. measurefirst bench -s "a = torch.randn(512, 512)" "a @ a"')
    timer: Any = args.timer
    device = args.device
    if args.simulate:
        from .simulate import SimWorld, parse_spec

        try:
            spec = parse_spec(args.simulate)
        except ValueError as exc:
            raise UsageError(str(exc)) from exc
        targets = args.targets or ["simulated"]
        device = "cpu"
    else:
        targets = args.targets
        try:
            dev = resolve_device(args.device)
        except DeviceError as exc:
            raise UsageError(str(exc)) from exc
        device = str(dev)
        try:
            namespace = _run_setup(args.setup, device)
        except UsageError:
            raise
        except Exception as exc:  # noqa: BLE001 - the user's setup failed
            err.print(f"error: setup failed: {type(exc).__name__}: {exc}", markup=False)
            return EXIT_FAILED
    results = []
    code = EXIT_OK
    try:
        for i, target in enumerate(targets):
            if args.simulate:
                world = SimWorld(spec)
                label, fn = "simulated", world.function()
                timer = world.timer()
            else:
                label, fn = _load_target(target, namespace)
            if i < len(args.label):
                label = args.label[i]
            try:
                m = benchmark(
                    fn, device=device, label=label, precision=args.precision, budget=args.budget,
                    min_time=args.min_time, min_samples=args.min_samples, max_samples=args.max_samples,
                    warmup=args.warmup, trials=args.trials, number=args.number,
                    warmup_max_time=args.warmup_time, cold_cache=args.cold_cache, cuda_graph=args.cuda_graph,
                    timer=timer, discard_preempted=not args.keep_preempted,
                )
            except BenchmarkError as exc:
                if exc.partial is not None:
                    results.append(exc.partial)
                err.print(f"error: {exc}", markup=False)
                code = EXIT_FAILED
                break
            results.append(m)
    except Interrupted as exc:
        if exc.measurement is not None:
            results.append(exc.measurement)
        err.print("interrupted: showing what was measured so far (marked incomplete)", markup=False)
        code = EXIT_INTERRUPTED
    except KeyboardInterrupt:
        err.print("interrupted", markup=False)
        code = EXIT_INTERRUPTED
    except (ValueError, TypeError) as exc:
        raise UsageError(str(exc)) from exc
    _emit(args, results, out, err)
    return code


def _emit(args: argparse.Namespace, results: list[Any], out: Any, err: Any) -> None:
    from .render.text import finding_lines, measurement_table

    if not results:
        return
    payload = [m.to_dict() for m in results]
    text = json.dumps(payload if len(payload) > 1 else payload[0], indent=2, allow_nan=False)
    if args.output is not None:
        tmp = args.output.with_name(args.output.name + ".tmp")
        tmp.write_text(text + "\n")
        os.replace(tmp, args.output)  # never half-written
    if args.json:
        out.file.write(text + "\n")
        return
    out.print(measurement_table(results))
    for m in results:
        for line in finding_lines(m.warnings):
            out.print(f"{m.label}: {line}", markup=False)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        if args.command == "bench":
            return cmd_bench(args)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    parser.error(f"unknown command {args.command!r}")
    return EXIT_USAGE
