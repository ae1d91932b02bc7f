"""Command line: parse, call the library, render. Errors are printed once, as one line.

Exit codes: 0 success, 1 the benchmarked code failed, 2 bad usage or input, 130 interrupted.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import inspect
import json
import math
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


class SetupFailed(Exception):
    """The user's -s setup raised; printed as one line, exit code 1."""


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
    b.add_argument("--no-stop-early", action="store_true",
                   help="spend the whole budget even when the interval has settled wider than --precision "
                        "(default: stop after about a second with the interval this machine gives)")
    b.add_argument("--keep-preempted", action="store_true",
                   help="use samples during which the OS preempted the process (default: set them aside)")
    b.add_argument("--label", action="append", default=[], help="label for each target, in order")
    b.add_argument("--json", action="store_true", help="print the results as JSON instead of a table")
    b.add_argument("-o", "--output", type=Path, default=None, help="also write the JSON results to this file")
    b.add_argument("--save", nargs="?", const="", default=None, metavar="NAME",
                   help="save the results in the history store (under NAME, default: each label)")
    b.add_argument("--store", type=Path, default=None, help="results store file (default .measurefirst/results.db "
                   "or $MEASUREFIRST_STORE)")
    b.add_argument("--simulate", default=None, help=argparse.SUPPRESS)  # seeded simulated clock, for tests

    c = sub.add_parser(
        "compare", help="compare candidates interleaved (live), or saved results (regression check)",
        description=(
            "Live: each TARGET is a statement or module:function, run interleaved with the others; the first is "
            "the baseline. Saved: every TARGET is a JSON file, #ID (a saved run), @NAME (its latest run) or "
            "@NAME~K (K runs back); with a single @NAME the latest run is checked against the one before."
        ),
    )
    c.add_argument("targets", nargs="+", metavar="TARGET")
    c.add_argument("-s", "--setup", action="append", default=[], help="setup statement, run once (repeatable)")
    c.add_argument("-d", "--device", default="auto")
    c.add_argument("-p", "--precision", type=_fraction, default=0.005,
                   help="'no difference' needs the speed-up CI within ±this (default 0.5%%)")
    c.add_argument("-b", "--budget", type=float, default=5.0, help="seconds at most (default 5)")
    c.add_argument("--min-time", type=float, default=1.0, help="seconds of sampling at least (default 1.0)")
    c.add_argument("--block-time", type=float, default=0.005, help="seconds per block (default 0.005)")
    c.add_argument("--order", choices=("abba", "shuffle"), default="abba")
    c.add_argument("--baseline", default=None, help="label of the baseline (default: the first)")
    c.add_argument("--label", action="append", default=[], help="label for each target, in order")
    c.add_argument("--cold-cache", action="store_true")
    c.add_argument("--timer", choices=("auto", "wall", "event"), default="auto")
    c.add_argument("--fail-if-slower", type=_fraction, default=None, metavar="FRACTION",
                   help="exit 1 if a candidate or saved result is slower beyond its CI and this threshold (e.g. 5%%)")
    c.add_argument("--json", action="store_true", help="print JSON instead of the table")
    c.add_argument("-o", "--output", type=Path, default=None, help="also write the JSON to this file")
    c.add_argument("--save", nargs="?", const="", default=None, metavar="PREFIX",
                   help="save each candidate's measurement in the history store")
    c.add_argument("--store", type=Path, default=None, help="results store file")
    c.add_argument("--simulate", default=None, help=argparse.SUPPRESS)  # "call=..;call=.." per candidate

    r = sub.add_parser("runs", help="list, show, delete or export saved runs")
    r.add_argument("action", nargs="?", choices=("list", "show", "delete", "export"), default="list")
    r.add_argument("ids", nargs="*", help="run ids (show, delete, export) or a name (list)")
    r.add_argument("--format", choices=("json", "csv", "markdown"), default="json", help="export format")
    r.add_argument("--store", type=Path, default=None, help="results store file")

    w = sub.add_parser(
        "sweep", help="time vs size: throughput, a fitted cost model, the roofline, plots",
        description=("TARGET is module:make_fn, a function of the size n that builds inputs and returns the "
                     "callable to time; or use a built-in sweep with --op."),
    )
    w.add_argument("target", nargs="?", metavar="TARGET")
    w.add_argument("--op", choices=("matmul", "add", "copy", "gelu"), default=None, help="a built-in sweep")
    w.add_argument("--sizes", default=None, help="e.g. 64,128,...,4096 (doubling) or 1000,2000,...,8000")
    w.add_argument("--flops", default=None, help="FLOPs per call as an expression of n, e.g. '2*n**3'")
    w.add_argument("--bytes", default=None, help="bytes moved per call as an expression of n, e.g. '12*n**2'")
    w.add_argument("--dtype", default="float32", help="dtype for built-in sweeps and peaks (default float32)")
    w.add_argument("-d", "--device", default="auto")
    w.add_argument("-b", "--budget", type=float, default=2.0, help="seconds per size at most (default 2)")
    w.add_argument("-p", "--precision", type=_fraction, default=0.01)
    w.add_argument("--reference", type=int, default=None, help="size the others are relative to (default 256)")
    w.add_argument("--no-peaks", action="store_true", help="skip the machine peaks and the roofline")
    w.add_argument("--plot", type=Path, default=None, help="write plots: FILE.png|svg (+ -throughput, -roofline)")
    w.add_argument("--json", action="store_true")
    w.add_argument("-o", "--output", type=Path, default=None)
    w.add_argument("--save", nargs="?", const="", default=None, metavar="PREFIX",
                   help="save each size's measurement in the history store")
    w.add_argument("--store", type=Path, default=None)

    k = sub.add_parser("peaks", help="measure (or show the cached) matmul FLOP/s and copy bandwidth")
    k.add_argument("-d", "--device", default="auto")
    k.add_argument("--dtype", default="float32")
    k.add_argument("--refresh", action="store_true", help="measure again instead of using the cache")
    k.add_argument("--json", action="store_true")
    k.add_argument("--store", type=Path, default=None)

    f = sub.add_parser("profile", help="where the time goes: op and kernel tables, diffs, traces",
                       description="TARGET: a statement (after -s setup) or module:function taking no arguments.")
    f.add_argument("target", metavar="TARGET")
    f.add_argument("--vs", action="append", default=[], metavar="TARGET", help="profile another and show them side by side")
    f.add_argument("-s", "--setup", action="append", default=[])
    f.add_argument("-d", "--device", default="auto")
    f.add_argument("--steps", type=int, default=3)
    f.add_argument("--warmup", type=int, default=2)
    f.add_argument("--view", choices=("work", "all", "top"), default="work")
    f.add_argument("--sort", choices=("self", "total", "calls", "device", "flops", "bytes", "name", "memory"),
                   default="self")
    f.add_argument("--row-limit", type=int, default=25)
    f.add_argument("--group-by-shape", action="store_true")
    f.add_argument("--trace", type=Path, default=None, help="write a Chrome/Perfetto trace (JSON)")
    f.add_argument("--memory-snapshot", type=Path, default=None, help="CUDA: write a memory snapshot (pickle)")
    f.add_argument("--flops-by-module", action="store_true")
    f.add_argument("--label", action="append", default=[])
    f.add_argument("--json", action="store_true")

    dr = sub.add_parser("doctor", help="audit a function for measurement and performance pitfalls",
                        description="TARGET: a statement (after -s setup) or module:function taking no arguments.")
    dr.add_argument("target", metavar="TARGET")
    dr.add_argument("-s", "--setup", action="append", default=[])
    dr.add_argument("-d", "--device", default="auto")
    dr.add_argument("-b", "--budget", type=float, default=3.0)
    dr.add_argument("--json", action="store_true")
    dr.add_argument("--strict", action="store_true", help="exit 1 on any warning (for CI)")
    dr.add_argument("--simulate", default=None, help=argparse.SUPPRESS)

    dm = sub.add_parser("demo", help="the lecture, runnable: timing traps, scaling, profiler (zh/en)")
    dm.add_argument("which", nargs="?", choices=("pitfalls", "scaling", "profiler", "all"), default="all")
    dm.add_argument("-d", "--device", default="auto")
    dm.add_argument("--lang", choices=("zh", "en"), default=None, help="default: from the locale")
    dm.add_argument("--quick", action="store_true", help="smaller sizes: well under a minute on 2 CPU cores")
    dm.add_argument("--json", action="store_true", help="also print the measured numbers as JSON")

    st = sub.add_parser("step", help="time a training step phase by phase: memory, tokens/s, MFU, variants",
                        description="TARGET is module:build or file.py:build; " + _step_contract())
    st.add_argument("target", metavar="TARGET")
    st.add_argument("--variants", default="eager", help="comma list of eager, compile, compile:BACKEND")
    st.add_argument("--dtypes", default="fp32", help="comma list of fp32, bf16, fp16 (autocast)")
    st.add_argument("-d", "--device", default="auto")
    st.add_argument("--steps", type=int, default=10)
    st.add_argument("--warmup", type=int, default=3)
    st.add_argument("--micro-batch", type=int, default=None)
    st.add_argument("--seq-len", type=int, default=None)
    st.add_argument("--grad-accum", type=int, default=1)
    st.add_argument("--world-size", type=int, default=1)
    st.add_argument("--flops", default="count", help="count (FlopCounterMode), 6N, or a number per step")
    st.add_argument("--no-peaks", action="store_true", help="skip the measured peak (MFU vs the table only)")
    st.add_argument("--json", action="store_true")
    st.add_argument("--store", type=Path, default=None)

    kn = sub.add_parser("kernel", help="decode GPU kernel names: library, op, arch, dtype, tile, layout")
    kn.add_argument("names", nargs="+", metavar="NAME")
    kn.add_argument("--json", action="store_true")

    h = sub.add_parser("history", help="the saved series of one benchmark, with step changes flagged")
    h.add_argument("name")
    h.add_argument("--store", type=Path, default=None, help="results store file")
    h.add_argument("--json", action="store_true")

    rp = sub.add_parser(
        "report", help="one self-contained HTML page of any results: plots, tables, findings (en/zh)",
        description=("Each TARGET is a results file (JSON written by --json or -o: measurements, comparisons, "
                     "sweeps, profiles, steps, doctor), a saved run (#ID, @NAME, @NAME~K) or the name of a "
                     "history in the store. The page needs no network: styles, script and SVG plots are inline."),
    )
    rp.add_argument("targets", nargs="+", metavar="TARGET")
    rp.add_argument("-o", "--output", type=Path, required=True, help="the HTML file to write, e.g. report.html")
    rp.add_argument("--lang", choices=("en", "zh"), default="en", help="language of the page (default en)")
    rp.add_argument("--theme", choices=("auto", "light", "dark"), default="auto",
                    help="auto follows the system (the page has a toggle); default auto")
    rp.add_argument("--title", default=None, help="the page's title")
    rp.add_argument("--store", type=Path, default=None, help="results store file")
    return parser


def _version() -> str:
    from . import __version__

    return __version__


def _console(stderr: bool = False) -> Any:
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    width = None if stream.isatty() else int(os.environ.get("MEASUREFIRST_WIDTH", "160"))
    return Console(file=stream, width=width, highlight=False, soft_wrap=False)


def _write_atomic(path: Path, text: str) -> None:
    """Write the whole file or nothing: a temporary file beside it, then a rename."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(text + "\n")
        os.replace(tmp, path)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from exc


def _load_target(target: str, namespace: dict[str, Any]) -> tuple[str, Callable[[], object]]:
    m = _TARGET_RE.match(target.strip())
    if m:
        attr, obj = _load_callable(target.strip())
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


def _prepare(args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    """The resolved device string and the namespace the -s setup ran in."""
    from .devices import DeviceError, resolve_device

    try:
        device = str(resolve_device(args.device))
    except DeviceError as exc:
        raise UsageError(str(exc)) from exc
    try:
        return device, _run_setup(args.setup, device)
    except UsageError:
        raise
    except Exception as exc:  # noqa: BLE001 - the user's setup failed
        raise SetupFailed(f"setup failed: {type(exc).__name__}: {exc}") from exc


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
    from .engine import BenchmarkError, Interrupted
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
        device, namespace = _prepare(args)
    results = []
    code = EXIT_OK
    jobs = []  # every target is loaded before anything is measured: a bad one costs no results
    for i, target in enumerate(targets):
        if args.simulate:
            world = SimWorld(spec)
            label, fn, job_timer = "simulated", world.function(), world.timer()
        else:
            (label, fn), job_timer = _load_target(target, namespace), timer
        jobs.append((args.label[i] if i < len(args.label) else label, fn, job_timer))
    try:
        for label, fn, timer in jobs:
            try:
                m = benchmark(
                    fn, device=device, label=label, precision=args.precision, budget=args.budget,
                    min_time=args.min_time, min_samples=args.min_samples, max_samples=args.max_samples,
                    warmup=args.warmup, trials=args.trials, number=args.number,
                    warmup_max_time=args.warmup_time, cold_cache=args.cold_cache, cuda_graph=args.cuda_graph,
                    timer=timer, discard_preempted=not args.keep_preempted, stop_early=not args.no_stop_early,
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
    if args.save is not None and results:
        _save(args, results, err)
    return code


def _save(args: argparse.Namespace, results: list[Any], err: Any) -> None:
    from .store import Store

    skipped = [m.label for m in results if m.summary is None]
    results = [m for m in results if m.summary is not None]
    for label in skipped:
        err.print(f"not saved: {label} has no samples", markup=False)
    if not results:
        return
    names = [(args.save + (f"/{m.label}" if len(results) > 1 else "")) if args.save else m.label for m in results]
    with Store(args.store) as store:
        ids = store.save_many(results, names=names)
    err.print(f"saved {len(ids)} run(s) to {store.path}: " + ", ".join(f"#{i} {n}" for i, n in zip(ids, names)),
              markup=False)


def _emit(args: argparse.Namespace, results: list[Any], out: Any, err: Any) -> None:
    from .render.text import finding_lines, measurement_table

    if not results:
        return
    payload = [m.to_dict() for m in results]

    def show() -> None:
        out.print(measurement_table(results))
        for m in results:
            for line in finding_lines(m.warnings):
                out.print(f"{m.label}: {line}", markup=False)

    _deliver(args, json.dumps(payload if len(payload) > 1 else payload[0], indent=2, allow_nan=False), show, out, err)


def _deliver(args: argparse.Namespace, text: str, show: Callable[[], None], out: Any, err: Any) -> None:
    """Print the results (JSON with --json, else ``show()``), then write ``-o``: a file that cannot be
    written is reported in one line and costs none of the results already shown."""
    if args.json:
        out.file.write(text + "\n")
    else:
        show()
    if args.output is not None:
        try:
            _write_atomic(args.output, text)
        except UsageError as exc:
            err.print(f"error: {exc}", markup=False)


_REF_RE = re.compile(r"^(#(?P<id>\d+)|@(?P<name>[^~]+)(~(?P<back>\d+))?)$")


def _is_saved_ref(target: str) -> bool:
    return bool(_REF_RE.match(target)) or (target.endswith(".json") and Path(target).is_file())


def _load_ref(target: str, store_path: Path | None) -> list[Any]:
    from .results import Measurement
    from .store import Store

    m = _REF_RE.match(target)
    if m is None:
        try:
            data = json.loads(Path(target).read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise UsageError(f"cannot read results file {target}: {exc}") from exc
        items = data if isinstance(data, list) else [data]
        out = []
        try:
            for item in items:
                if isinstance(item, dict) and item.get("kind") == "comparison":
                    from .compare import Comparison

                    out.extend(Comparison.from_dict(item).measurements)
                elif isinstance(item, dict) and item.get("kind") == "sweep":
                    from .sweep import SweepResult

                    out.extend(SweepResult.from_dict(item).measurements())
                elif isinstance(item, dict) and item.get("kind") == "measurement":
                    out.append(Measurement.from_dict(item))
                else:
                    raise UsageError(f"{target} is not a measurefirst results file (no \"kind\" of measurement)")
        except (ValueError, KeyError, TypeError) as exc:
            raise UsageError(f"{target} is not a valid measurefirst results file: {type(exc).__name__}: {exc}") from exc
        return out
    with Store(store_path, create=False) as store:
        if m.group("id"):
            return [store.get(int(m.group("id")))]
        return [store.latest(m.group("name"), int(m.group("back") or 0))[1]]


def cmd_compare_saved(args: argparse.Namespace) -> int:
    from rich.table import Table

    from .regression import change, match

    out = _console()
    refs = list(args.targets)
    if len(refs) == 1:
        mref = _REF_RE.match(refs[0])
        if not mref or not mref.group("name") or mref.group("back"):
            raise UsageError("with one target, give @NAME: its latest run is checked against the one before")
        refs = [f"@{mref.group('name')}~1", refs[0]]
    if len(refs) != 2:
        raise UsageError("a regression check takes BASE and NEW (files, #ID or @NAME)")
    base, new = (_load_ref(t, args.store) for t in refs)
    pairs, unmatched = match(base, new)
    if not pairs:
        raise UsageError(f"no benchmark label appears in both {refs[0]} and {refs[1]}")
    threshold = args.fail_if_slower or 0.0
    names = {mm.group("name") for mm in map(_REF_RE.match, refs) if mm and mm.group("name")}
    single_name = names.pop() if len(names) == 1 and len(pairs) == 1 else None
    try:
        changes = [change(b, n, threshold=threshold, label=single_name) for b, n in pairs]
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    if args.json:
        from dataclasses import asdict

        out.file.write(json.dumps([asdict(c) for c in changes], indent=2) + "\n")
    else:
        table = Table(title=f"{refs[0]} → {refs[1]}")
        for col in ("benchmark", "base", "new", "change", "verdict"):
            table.add_column(col, justify="left" if col in ("benchmark", "verdict") else "right")
        from .render.text import format_time

        for c in changes:
            verdict = ("[red]REGRESSION[/]" if c.regression and args.fail_if_slower is not None
                       else "[red]slower[/]" if c.ci_low > 1 else "[green]faster[/]" if c.ci_high < 1 else "same")
            table.add_row(c.label, format_time(c.base_median), format_time(c.new_median), c.words(), verdict)
        out.print(table)
        for c in changes:
            for flag in c.flags:
                out.print(f"note: {c.label}: {flag}", markup=False)
        for label in unmatched:
            out.print(f"note: {label} is in only one of the two", markup=False)
    failed = [c for c in changes if c.regression] if args.fail_if_slower is not None else []
    for c in failed:
        print(f"regression: {c.label} is {c.words()}, beyond the {threshold:.1%} threshold", file=sys.stderr)
    return EXIT_FAILED if failed else EXIT_OK


def cmd_compare(args: argparse.Namespace) -> int:
    if not args.simulate and all(_is_saved_ref(t) for t in args.targets):
        return cmd_compare_saved(args)
    from .compare import compare
    from .engine import BenchmarkError, Interrupted
    from .render.text import comparison_lines, comparison_table

    out, err = _console(), _console(stderr=True)
    timer: Any = args.timer
    if args.simulate:
        from .simulate import SimWorld, parse_spec

        try:
            specs = [parse_spec(part) for part in args.simulate.split(";")]
        except ValueError as exc:
            raise UsageError(str(exc)) from exc
        world = SimWorld(specs[0])
        candidates = [(f"sim{i}", world.function(sp.call_ns, f"sim{i}")) for i, sp in enumerate(specs)]
        timer, device = world.timer(), "cpu"
    else:
        if len(args.targets) < 2:
            raise UsageError("compare needs at least two targets")
        device, namespace = _prepare(args)
        candidates = [_load_target(t, namespace) for t in args.targets]
    candidates = [((args.label[i] if i < len(args.label) else label), fn) for i, (label, fn) in enumerate(candidates)]
    labels = [c[0] for c in candidates]
    dupes = sorted({x for x in labels if labels.count(x) > 1})
    if dupes:
        raise UsageError(f"labels must be unique; {dupes[0]!r} appears twice (use --label)")
    code = EXIT_OK
    result = None
    try:
        result = compare(candidates, baseline=args.baseline, device=device, precision=args.precision,
                         budget=args.budget, min_time=args.min_time, block_time=args.block_time, order=args.order,
                         cold_cache=args.cold_cache, timer=timer)
    except BenchmarkError as exc:
        result = exc.partial
        err.print(f"error: {exc}", markup=False)
        code = EXIT_FAILED
    except Interrupted as exc:
        result = exc.measurement
        err.print("interrupted: showing what was measured so far (marked incomplete)", markup=False)
        code = EXIT_INTERRUPTED
    except (ValueError, TypeError) as exc:
        raise UsageError(str(exc)) from exc
    if result is None:
        return code
    def show() -> None:
        out.print(comparison_table(result))
        for line in comparison_lines(result):
            out.print(line, markup=False)

    _deliver(args, result.to_json(), show, out, err)
    if args.save is not None:
        _save(argparse.Namespace(save=args.save, store=args.store), list(result.measurements), err)
    if code == EXIT_OK and args.fail_if_slower is not None:
        slow = [v for v in result.verdicts if v.verdict == "slower" and v.ratio > 1 + args.fail_if_slower]
        for v in slow:
            print(f"regression: {v.label} is {v.words()} than {v.baseline}", file=sys.stderr)
        code = EXIT_FAILED if slow else code
    return code


def cmd_runs(args: argparse.Namespace) -> int:
    from rich.table import Table

    from .render.text import format_time
    from .store import Store

    out = _console()
    with Store(args.store, create=args.action == "list") as store:
        if args.action == "list":
            rows = store.list(args.ids[0] if args.ids else None)
            table = Table(title=str(store.path))
            for col in ("id", "name", "created", "device", "commit", "median", "samples"):
                table.add_column(col)
            for r in rows:
                table.add_row(str(r.id), r.name, r.created, r.device_name or r.device or "",
                              (r.git_commit or "")[:12], format_time(r.median) if r.median else "n/a",
                              str(r.n_samples) + ("" if r.complete else " (incomplete)"))
            out.print(table)
            return EXIT_OK
        try:
            ids = [int(x.lstrip("#")) for x in args.ids]
        except ValueError:
            raise UsageError(f"run ids are integers such as 12 or #12; got {' '.join(args.ids)}") from None
        if not ids:
            raise UsageError(f"runs {args.action} needs one or more run ids (see `measurefirst runs`)")
        if args.action == "show":
            for i in ids:
                out.print(f"#{i} {store.get(i)}", markup=False)
        elif args.action == "delete":
            for i in ids:
                if not store.delete(i):
                    raise UsageError(f"no run #{i} in {store.path}")
                print(f"deleted run #{i}", file=sys.stderr)
        else:
            out.file.write(store.export(ids, args.format))
    return EXIT_OK


def cmd_history(args: argparse.Namespace) -> int:
    from rich.table import Table

    from .regression import steps
    from .render.text import format_time
    from .store import Store

    out = _console()
    with Store(args.store, create=False) as store:
        rows = store.list(args.name)
        if not rows:
            raise UsageError(f"no runs named {args.name!r} in {store.path}; saved names: "
                             + (", ".join(store.names()[:10]) or "none yet"))
        ms = [store.get(r.id) for r in rows]
    flagged = set(steps(ms))
    if args.json:
        out.file.write(json.dumps([{"id": r.id, "created": r.created, "git_commit": r.git_commit,
                                    "median_s": m.median if math.isfinite(m.median) else None, "ci_s": m.ci,
                                    "step": i in flagged}
                                   for i, (r, m) in enumerate(zip(rows, ms))], indent=2) + "\n")
        return EXIT_OK
    table = Table(title=f"history of {args.name}")
    for col in ("id", "created", "commit", "median", "95% CI", "vs previous", "step"):
        table.add_column(col)
    for i, (r, m) in enumerate(zip(rows, ms)):
        prev = "" if i == 0 else f"{(m.median / ms[i - 1].median - 1) * 100:+.1f}%"
        ci = "n/a" if m.ci is None else f"{format_time(m.ci[0])} – {format_time(m.ci[1])}"
        step = ""
        if i in flagged:
            step = "[red]▲ slower[/]" if m.median > ms[i - 1].median else "[green]▼ faster[/]"
        table.add_row(str(r.id), r.created, (r.git_commit or "")[:12], format_time(m.median), ci, prev, step)
    out.print(table)
    return EXIT_OK


def cmd_sweep(args: argparse.Namespace) -> int:
    from .devices import DeviceError, resolve_device
    from .engine import Interrupted
    from .render.text import sweep_lines, sweep_table
    from .roofline import peaks as get_peaks
    from .sweep import builtin, parse_sizes, sweep

    out, err = _console(), _console(stderr=True)
    try:
        dev = resolve_device(args.device)
        if args.op and args.target:
            raise UsageError("give either TARGET or --op, not both")
        if args.op:
            make, flops, nbytes, sizes = builtin(args.op, args.dtype, dev)
            label = args.op
        elif args.target:
            m = _TARGET_RE.match(args.target)
            if not m:
                raise UsageError("TARGET must be module:make_fn (a function of n returning the callable to time)")
            label, make = _load_callable(args.target)
            flops = nbytes = None
            sizes = None
        else:
            raise UsageError("give TARGET (module:make_fn) or --op matmul|add|copy|gelu")
        if args.sizes:
            sizes = parse_sizes(args.sizes)
        if sizes is None:
            raise UsageError("give --sizes, e.g. --sizes 64,128,...,4096")
        if args.flops:
            flops = args.flops
        if args.bytes:
            nbytes = args.bytes
        pk = None
        if not args.no_peaks and (flops or nbytes):
            err.print("measuring machine peaks (cached afterwards; --no-peaks skips) ...", markup=False)
            pk = get_peaks(dev, args.dtype, store=args.store)
        try:
            result = sweep({label: make}, sizes, flops=flops, bytes=nbytes, device=dev, reference=args.reference,
                           peaks=pk, budget=args.budget, precision=args.precision, progress=True)
            code = EXIT_OK
        except Interrupted as exc:
            result = exc.measurement
            err.print("interrupted: showing the sizes that finished (marked incomplete)", markup=False)
            code = EXIT_INTERRUPTED
    except (DeviceError, ValueError, TypeError) as exc:
        raise UsageError(str(exc)) from exc
    def show() -> None:
        for lab in result.labels:
            out.print(sweep_table(result, lab))
        for line in sweep_lines(result):
            if line.lstrip().startswith(("fit:", "complexity:", "peaks:", "INCOMPLETE")) or line.endswith(":"):
                out.print(line, markup=False)

    _deliver(args, result.to_json(), show, out, err)
    if args.plot is not None:
        from .render.plots import plot_all

        try:
            files = plot_all(result, args.plot)
        except (ValueError, ImportError) as exc:
            raise UsageError(str(exc)) from exc
        err.print("plots: " + ", ".join(str(f) for f in files), markup=False)
    if args.save is not None:
        _save(argparse.Namespace(save=args.save, store=args.store), result.measurements(), err)
    failed = [p for p in result.points if not p.ok]
    if failed and code == EXIT_OK:
        err.print(f"{len(failed)} size(s) failed: " + "; ".join(f"n={p.n}: {p.error}" for p in failed), markup=False)
    return code


def _load_callable(target: str) -> tuple[str, Any]:
    """module:attr or file.py:attr → (attr, object), without calling or checking its signature."""
    m = _TARGET_RE.match(target)
    assert m is not None
    mod_name, attr = m.group("mod"), m.group("attr")
    if mod_name.endswith(".py"):
        path = Path(mod_name)
        if not path.is_file():
            raise UsageError(f"no such file: {mod_name}")
        spec = importlib.util.spec_from_file_location(path.stem, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules.setdefault(path.stem, module)
        try:
            spec.loader.exec_module(module)
        except Exception as exc:  # noqa: BLE001 - the user's file failed to load
            raise UsageError(f"cannot load {mod_name}: {type(exc).__name__}: {exc}") from exc
    else:
        if os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())
        try:
            module = importlib.import_module(mod_name)
        except Exception as exc:  # noqa: BLE001 - ImportError, or the module raised while importing
            raise UsageError(f"cannot import {mod_name!r}: {type(exc).__name__}: {exc}") from exc
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise UsageError(f"{mod_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise UsageError(f"{target} is a {type(obj).__name__}, not a function")
    return attr, obj


def cmd_peaks(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from .devices import DeviceError
    from .roofline import peaks as get_peaks

    try:
        p = get_peaks(args.device, args.dtype, refresh=args.refresh, store=args.store)
    except (DeviceError, ValueError) as exc:
        raise UsageError(str(exc)) from exc
    if args.json:
        print(json.dumps(asdict(p), indent=2))
    else:
        print(p)
    return EXIT_OK


def cmd_profile(args: argparse.Namespace) -> int:
    from .profiling import ProfileError, diff, profile
    from .render.profile import diff_lines, diff_table, kernel_table, op_table, profile_lines

    out, err = _console(), _console(stderr=True)
    device, namespace = _prepare(args)
    targets = [args.target] + list(args.vs)
    if args.trace is not None and len(targets) > 1:
        raise UsageError("--trace takes one target; profile the others separately")
    loaded = [_load_target(t, namespace) for t in targets]
    labels = [args.label[i] if i < len(args.label) else label for i, (label, _) in enumerate(loaded)]
    if len(set(labels)) != len(labels):
        raise UsageError("labels must be unique; use --label")
    try:
        profiles = {lab: profile(fn, device=device, steps=args.steps, warmup=args.warmup, label=lab,
                                 group_by_shape=args.group_by_shape, trace=args.trace,
                                 memory_snapshot=args.memory_snapshot, flops_by_module=args.flops_by_module)
                    for lab, (_, fn) in zip(labels, loaded)}
    except ProfileError as exc:
        if exc.label:
            err.print(f"error: {exc}", markup=False)
            return EXIT_FAILED
        raise UsageError(str(exc)) from exc
    except (ValueError, TypeError) as exc:
        raise UsageError(str(exc)) from exc
    if len(profiles) > 1:
        d = diff(profiles)
        if args.json:
            out.file.write(json.dumps(d.to_dict(), indent=2, default=str) + "\n")
            return EXIT_OK
        out.print(diff_table(d))
        for line in diff_lines(d):
            out.print(line, markup=False)
        return EXIT_OK
    p = next(iter(profiles.values()))
    if args.json:
        out.file.write(p.to_json() + "\n")
        return EXIT_OK
    out.print(op_table(p, view=args.view, sort=args.sort, limit=args.row_limit))
    if p.kernels:
        out.print(kernel_table(p, limit=args.row_limit))
    for line in profile_lines(p)[:1] + [x for x in profile_lines(p) if x.strip().startswith(("peak", "trace"))]:
        out.print(line, markup=False)
    if p.flops_by_module:
        for mod, fl in p.flops_by_module.items():
            out.print(f"FLOPs {mod}: {fl:.4g}", markup=False)
    return EXIT_OK


def cmd_doctor(args: argparse.Namespace) -> int:
    from .doctor import doctor

    timer: Any = "auto"
    if args.simulate:
        from .simulate import SimWorld, parse_spec

        try:
            world = SimWorld(parse_spec(args.simulate))
        except ValueError as exc:
            raise UsageError(str(exc)) from exc
        label, fn, timer, device = "simulated", world.function(), world.timer(), "cpu"
    else:
        device, namespace = _prepare(args)
        label, fn = _load_target(args.target, namespace)
    try:
        d = doctor(fn, device=device, label=label, budget=args.budget, timer=timer)
    except (ValueError, TypeError) as exc:
        raise UsageError(str(exc)) from exc
    if args.json:
        print(json.dumps(d.to_dict(), indent=2, default=str))
    else:
        print(str(d))
    if d.error is not None:
        return EXIT_FAILED
    return EXIT_FAILED if (args.strict and d.warnings) else EXIT_OK


def cmd_demo(args: argparse.Namespace) -> int:
    from .devices import DeviceError
    from .lecture import run

    out = _console()

    def emit(line: str) -> None:
        if line.startswith("#"):
            out.print(line.lstrip("# ").strip(), style="bold", markup=False)
        else:
            out.print(line, markup=False)

    try:
        results = run(args.which, device=args.device, lang=args.lang, quick=args.quick, emit=emit)
    except DeviceError as exc:
        raise UsageError(str(exc)) from exc
    if args.json:
        out.file.write(json.dumps({r.name: r.data for r in results}, indent=2, default=str) + "\n")
    return EXIT_OK


def _step_contract() -> str:
    from .step import CONTRACT

    return CONTRACT


def cmd_step(args: argparse.Namespace) -> int:
    from .devices import DeviceError, resolve_device
    from .render.step import step_lines, step_table
    from .step import StepError, compare_steps

    out, err = _console(), _console(stderr=True)
    try:
        dev = resolve_device(args.device)
    except DeviceError as exc:
        raise UsageError(str(exc)) from exc
    if not _TARGET_RE.match(args.target):
        raise UsageError("TARGET must be module:build or file.py:build; " + _step_contract())
    _, build = _load_callable(args.target)
    flops: Any = args.flops
    if flops not in ("count", "6N"):
        try:
            flops = float(flops)
        except ValueError:
            raise UsageError(f"--flops must be count, 6N or a number; got {args.flops!r}") from None
    dtypes = [d.strip() for d in args.dtypes.split(",") if d.strip()]
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    bad = [d for d in dtypes if d not in ("fp32", "bf16", "fp16")]
    if not dtypes or bad:
        raise UsageError(f"--dtypes takes a comma list of fp32, bf16, fp16; got {args.dtypes!r}")
    if not variants:
        raise UsageError("--variants takes a comma list of eager, compile, compile:BACKEND")
    peak_by_dtype: dict[str, float] | None = None
    if not args.no_peaks:
        from .roofline import peaks

        peak_by_dtype = {d: peaks(dev, "float32" if d == "fp32" else d, store=args.store).flops_per_s for d in dtypes}
    try:
        results, comparison = compare_steps(
            build, variants=variants, dtypes=dtypes, device=dev, steps=args.steps,
            warmup=args.warmup, micro_batch=args.micro_batch, seq_len=args.seq_len, grad_accum=args.grad_accum,
            world_size=args.world_size, flops_per_step=flops, measured_peak=peak_by_dtype)
    except StepError as exc:
        if exc.phase is None:
            raise UsageError(str(exc)) from exc
        err.print(f"error: {exc}", markup=False)
        return EXIT_FAILED
    except (ValueError, TypeError) as exc:
        raise UsageError(str(exc)) from exc
    if args.json:
        payload = {"steps": [r.to_dict() for r in results],
                   "comparison": None if comparison is None else comparison.to_dict()}
        out.file.write(json.dumps(payload, indent=2, default=str) + "\n")
        return EXIT_OK
    out.print(step_table(results, comparison))
    for line in step_lines(results):
        out.print(line, markup=False)
    if comparison is not None:
        for line in str(comparison).splitlines():
            out.print(line, markup=False)
    return EXIT_FAILED if any(f.severity == "error" for r in results for f in r.findings) else EXIT_OK


def cmd_kernel(args: argparse.Namespace) -> int:
    from rich.table import Table

    from .profiling.kernels import decode_kernel

    infos = [decode_kernel(n) for n in args.names]
    if args.json:
        print(json.dumps([i.to_dict() for i in infos], indent=2))
        return EXIT_OK
    t = Table()
    for c in ("name", "library", "op", "arch", "dtype", "tile", "layout", "tensor cores", "fused ops"):
        t.add_column(c, overflow="fold")
    for i in infos:
        d = i.to_dict()
        t.add_row(d["name"], d["library"], d["op"] or "", d["arch"] or "", d["dtype"] or "", d["tile"] or "",
                  d["layout"] or "", "" if d["tensor_cores"] is None else str(d["tensor_cores"]).lower(),
                  ",".join(d["fused_ops"]))
    _console().print(t)
    return EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    from .loading import LoadError, load_targets
    from .render.report import report, write

    try:
        results = load_targets(list(args.targets), args.store)
        html = report(results, lang=args.lang, theme=args.theme, title=args.title)
    except (LoadError, ValueError, TypeError) as exc:
        raise UsageError(str(exc)) from exc
    try:
        path = write(args.output, html)
    except OSError as exc:
        raise UsageError(f"cannot write {args.output}: {exc.strerror or exc}") from exc
    print(f"wrote {path} ({len(results)} result(s), {len(html) / 1024:.0f} KiB, lang {args.lang})", file=sys.stderr)
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    from .store import StoreError

    commands = {"bench": cmd_bench, "compare": cmd_compare, "runs": cmd_runs, "history": cmd_history,
                "sweep": cmd_sweep, "peaks": cmd_peaks, "profile": cmd_profile, "kernel": cmd_kernel,
                "doctor": cmd_doctor, "demo": cmd_demo, "step": cmd_step, "report": cmd_report}
    try:
        return commands[args.command](args)
    except (UsageError, StoreError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except SetupFailed as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
