"""Command line: parse (:mod:`measurefirst.cli.parser`), call the library, render
(:mod:`measurefirst.render.views`), emit (:mod:`measurefirst.cli.emit`). Errors are printed once, as one
line. Commands that do not measure never import torch.

Exit codes: 0 success, 1 the benchmarked code failed (or a selfcheck check failed, or a regression gate
``compare --fail-if-slower`` found a regression), 2 bad usage or input, 3 too noisy to judge (selfcheck: the
machine; a regression gate: a run was disturbed, so some change is undecided and none failed), 130
interrupted.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Callable, Sequence

from ..render.words import LANGS
from ..results.errors import UsageError as UsageError  # measurefirst.cli.commands.UsageError, as before
from .parser import build_parser as _build_parser, command_lang, parse_command
from .distributed import ranked as _ranked  # under torchrun: bench and a live compare on every rank
from .emit import check_args as _check, say as _say, show as _show
from .guard import EXIT_FAILED, EXIT_NOISY, EXIT_OK, EXIT_USAGE, command, first as _first, lang_of as _lang
from .guard import emit_results as _emit, run_command as _run
from ..tools.targets import STEP_CONTRACT


def build_parser(lang: str = LANGS[0]) -> argparse.ArgumentParser:
    """The command line's parser, its help in ``lang``."""
    from .._version import __version__

    return _build_parser(__version__, lang)


# ---- the commands -------------------------------------------------------------------------------------
def cmd_bench(args: argparse.Namespace) -> int:
    from dataclasses import fields

    from ..measure.engine import Options, benchmark
    from ..render.noise import ignored_lines
    from ..tools.targets import bench_jobs

    device, jobs = bench_jobs(args.targets, args.label, args.device, args.setup, args.timer, simulate=args.simulate,
                              count=args.count, rebuilt=args.processes is not None)
    _check(args)
    # the engine's options, by the names the parser gives them (with --count: what counting takes)
    names = ("warmup", "trials", "number") if args.count else [f.name for f in fields(Options) if hasattr(args, f.name)]
    options = {name: getattr(args, name) for name in names}
    results: list[Any] = []
    code = EXIT_OK
    for label, fn, timer in jobs:
        extra = {"count": args.count} if args.count else {"timer": timer, "processes": args.processes,
                                                          "compile": args.compile or False}
        result, code = _run(args, ("benchmark", label), lambda: benchmark(fn, device=device, label=label,
                                                                          **options, **extra))
        results += [] if result is None else [result]
        if code != EXIT_OK:
            break
    code = _emit(args, results, code)
    for line in ignored_lines(results, _lang(args)):
        _say(line)
    if (args.processes or 1) > 1 and getattr(args, "repeats", None) is not None and results:
        from ..render.words import word

        _say(word("processes_over_repeats", _lang(args), processes=args.processes, repeats=args.repeats))
    return code


def cmd_compare(args: argparse.Namespace) -> int:
    from .compare import cmd_compare as run

    return run(args)


def cmd_bisect(args: argparse.Namespace) -> int:
    from .compare import cmd_bisect as run

    return run(args)


def cmd_runs(args: argparse.Namespace) -> int:
    from .runs import cmd_runs as run

    return run(args)


def cmd_history(args: argparse.Namespace) -> int:
    from ..results.group_history import history_of as load_history
    from ..render.changes import changes_lines, suite_table
    from ..results.history import load_suite_tables
    from ..results.loading import suite_members
    from ..render.tables import history_table
    from ..render.words import word
    from ..results.history import History, HistoryTable
    from ..results.store import MEASURED_KINDS, Store

    _check(args)  # before reading anything: -o must not replace the store it reads
    table = not args.json and args.output is None  # the table alone: from the runs' columns, no sample read
    from ..results import defaults as D

    limit = None if args.all or (args.changes and args.limit is None) else args.limit or D.RUNS_SHOWN
    with Store(args.store, create=False) as store:
        h = load_history(store, args.name, limit, table=table)
        members = [] if h.runs else suite_members(args.name, store.path)
        if members and not table:  # a suite (NAME/...) as results: each benchmark's history
            return _emit(args, [load_history(store, m, limit) for m in members])
        if members:  # a suite at a glance: one row per benchmark (and each one's changes)
            suite = load_suite_tables(store, members)
            found = [t.changes() for t in suite]
            _show([suite_table(args.name, suite, found, _lang(args)), *(
                line for t, a in zip(suite, found)
                for line in changes_lines(a, t.runs, t.name, t.runs[-1].point.event, _lang(args)) if args.changes)])
            return EXIT_OK
        if not h.runs:
            raise UsageError(f"no runs named {args.name!r} in {store.path}; saved names: "
                             + (", ".join(map(repr, store.names()[:10])) or "none yet"))
        more = limit is not None and len(store.list(args.name, kinds=MEASURED_KINDS, limit=limit + 1)) > limit
    if args.changes and not isinstance(h, (History, HistoryTable)):
        raise UsageError(f"--changes reads a series of timings or counts; {args.name!r} is a history of runs of "
                         f"many ranks (measurefirst history {args.name} shows it)")
    code = EXIT_OK
    if isinstance(h, HistoryTable):
        _show([history_table(h, _lang(args)), *(changes_lines(h.changes(), h.runs, args.name,
                                                                h.runs[-1].point.event, _lang(args))
                                                  if args.changes else ())])
    else:
        code = _emit(args, [h])
    if more:
        _say(word("history_shown", _lang(args), shown=len(h.runs), name=args.name))
    return code


def cmd_sweep(args: argparse.Namespace) -> int:
    from ..measure.devices import resolve_device
    from .emit import write_plots
    from ..render.plots import plot_paths
    from ..render.text import failed_sizes_lines
    from ..render.words import word
    from ..tools.roofline import peaks
    from ..tools.sweep import plan, sweep, with_fresh_peaks

    _check(args, *((p, "plot") for p in (plot_paths(args.plot) if args.plot is not None else ())))
    dev = resolve_device(args.device)
    todo = plan(op=args.op, target=args.target, sizes=args.sizes, flops=args.flops, bytes=args.bytes,
                dtype=args.dtype, device=dev, reference=args.reference)  # checked before anything is measured
    pk = None
    if not args.no_peaks and (todo.flops or todo.bytes):
        _say(word("measuring_peaks", _lang(args)))
        pk = peaks(dev, args.dtype, store=args.store)
    result, code = _run(args, ("sweep", todo.label), lambda: sweep(
        {todo.label: todo.make}, list(todo.sizes), flops=todo.flops, bytes=todo.bytes, device=dev,
        reference=args.reference, peaks=pk, budget=args.budget, precision=args.precision))
    if result is None:
        return code
    if pk is not None and any(f.code == "roof_exceeded" for f in result.checks()):
        _say(word("remeasuring_peaks", _lang(args)))  # a rate above the (often cached) peak: measure it again
        result = with_fresh_peaks(result, dev, args.dtype, args.store)
    code = _emit(args, [result], code)
    if args.plot is not None and not write_plots(result, args.plot, _lang(args)):
        code = _first(code, EXIT_USAGE)
    if code in (EXIT_OK, EXIT_FAILED):
        for line in failed_sizes_lines(result, _lang(args)):
            _say(line)
        code = EXIT_FAILED if result.points and not any(p.ok for p in result.points) else code
    return code


def cmd_peaks(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from ..tools.roofline import peaks
    from ..results.safeio import strict_json

    p = peaks(args.device, args.dtype, refresh=args.refresh, store=args.store)
    sys.stdout.write((strict_json(asdict(p), indent=2) if args.json else str(p)) + "\n")
    return EXIT_OK


def cmd_profile(args: argparse.Namespace) -> int:
    from ..measure.engine import Interrupted
    from ..profiling import diff, profile
    from ..results.profile import Profile
    from ..results.profile_diff import ProfileDiff
    from ..render.views import Options
    from ..tools.targets import load_all

    targets = [args.target, *args.vs]
    if args.trace is not None and len(targets) > 1:
        raise UsageError("--trace takes one target; profile the others separately")
    _check(args, (args.trace, "trace"), (args.memory_snapshot, "memory snapshot"))
    device, loaded = load_all(targets, args.label, args.device, args.setup)

    def combined(done: dict[str, Profile]) -> "Profile | ProfileDiff":
        return diff(done) if len(done) > 1 else next(iter(done.values()))

    def profile_all() -> "Profile | ProfileDiff":
        done: dict[str, Profile] = {}
        for label, fn in loaded:
            try:
                done[label] = profile(fn, device=device, steps=args.steps, warmup=args.warmup, label=label,
                                      group_by_shape=args.group_by_shape, trace=args.trace,
                                      memory_snapshot=args.memory_snapshot, flops_by_module=args.flops_by_module)
            except Interrupted as exc:  # Ctrl-C: the targets profiled so far, and this one's whole steps
                if isinstance(exc.partial, Profile):
                    done[label] = exc.partial
                if not done:
                    raise
                raise Interrupted(combined(done)) from exc
        return combined(done)

    result, code = _run(args, ("profiled", ""), profile_all)
    if result is None:
        return code
    return _emit(args, [result], code, options=Options(view=args.view, sort=args.sort, limit=args.row_limit))


def cmd_doctor(args: argparse.Namespace) -> int:
    from ..tools.doctor import doctor
    from ..tools.targets import bench_jobs

    _check(args)
    device, [(label, fn, timer)] = bench_jobs([args.target], [], args.device, args.setup, "auto", simulate=args.simulate)
    d, stopped = _run(args, ("code", label), lambda: doctor(fn, device=device, label=label, budget=args.budget,
                                                           timer=timer))
    code = _emit(args, [] if d is None else [d], stopped)  # Ctrl-C: the checks done so far, exit 130
    if d is None or stopped != EXIT_OK:
        return code
    return _first(EXIT_FAILED if d.error is not None or (args.strict and d.warnings) else EXIT_OK, code)


def cmd_demo(args: argparse.Namespace) -> int:
    from .emit import narrate
    from ..lecture import run
    from ..results.safeio import strict_json

    results = run(args.which, device=args.device, lang=args.lang, quick=args.quick, emit=narrate)
    if args.json:
        sys.stdout.write(strict_json({r.name: r.data for r in results}, indent=2) + "\n")
    return EXIT_OK


def cmd_selfcheck(args: argparse.Namespace) -> int:
    if args.noise or args.processes is not None or args.threads is not None:
        from .noise import cmd_noise

        return cmd_noise(args)
    from ..render.selfcheck import progress_line
    from ..tools.selfcheck import FAIL, NOISY, selfcheck
    from ..measure.simulate import world

    lang = _lang(args)
    _check(args)
    result, code = _run(args, ("code", ""), lambda: selfcheck(
        args.device, quick=args.quick, simulate=None if args.simulate is None else world(args.simulate), fault=args.fault,
        progress=lambda stage, s, method: _say(progress_line(stage, s, method, lang))))
    if result is None:
        return code
    return _emit(args, [result], _first(code, {FAIL: EXIT_FAILED, NOISY: EXIT_NOISY}.get(result.status, EXIT_OK)))


def cmd_step(args: argparse.Namespace) -> int:
    if args.parallel:  # --ddp / --fsdp: the step across the ranks of a process group
        return cmd_distributed(args)
    from ..measure.devices import resolve_device
    from ..render.words import word
    from ..tools.step import above_measured_peak, compare_steps, measured_peak_records, with_fresh_peaks as fresh_peaks
    from ..tools.targets import is_function_target, load_callable

    _check(args)
    if not is_function_target(args.target):
        raise UsageError("TARGET must be module:build or file.py:build; " + STEP_CONTRACT)
    dev, (_, build) = resolve_device(args.device), load_callable(args.target)
    result, code = _run(args, ("step", ""), lambda: compare_steps(
        build, variants=args.variants, dtypes=args.dtypes, device=dev, steps=args.steps, warmup=args.warmup,
        micro_batch=args.micro_batch, seq_len=args.seq_len, grad_accum=args.grad_accum, world_size=args.world_size,
        flops_per_step=args.flops,
        measured_peak=None if args.no_peaks else measured_peak_records(dev, args.dtypes, store=args.store)))
    if result is None:
        return code
    if code != EXIT_OK:  # Ctrl-C: the steps measured so far are shown, saved and written, marked incomplete
        return _first(code, _emit(args, [result], code))
    if above_measured_peak(result):  # a step above the (often cached) measured peak: measure that peak again
        _say(word("remeasuring_peaks", _lang(args)))
        result = fresh_peaks(result, dev, args.store)
    code = _emit(args, [result])
    return _first(EXIT_FAILED if any(f.severity == "error" for f in result.findings) else EXIT_OK, code)


def cmd_kernel(args: argparse.Namespace) -> int:
    from ..profiling.kernels import decode_kernel
    from ..render.tables import kernel_table
    from ..results.safeio import strict_json

    infos = [decode_kernel(n) for n in args.names]
    if args.json:
        sys.stdout.write(strict_json([i.to_dict() for i in infos], indent=2) + "\n")
    else:
        _show([kernel_table(infos, _lang(args))])
    return EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    from .emit import report_format
    from ..results.loading import load_targets
    from ..render.markdown import markdown
    from ..render.report import report, write
    from ..render.words import word

    _check(args, what="report")  # before reading anything
    fmt = args.format or report_format(args.output)
    results = load_targets(list(args.targets), args.store)
    html = (markdown(results, lang=args.lang or "en") if fmt == "markdown"
            else report(results, lang=args.lang, theme=args.theme, title=args.title))
    path = write(args.output, html)  # whole or not at all; DestinationError is reported in one line
    _say(word("wrote_report", args.lang, path=path, n=len(results), kib=f"{len(html) / 1024:.0f}",
              language=args.lang))
    return EXIT_OK


def cmd_publish(args: argparse.Namespace) -> int:
    from .publish import run

    return run(args)


def cmd_distributed(args: argparse.Namespace) -> int:
    from .distributed import run  # collectives, and step --ddp/--fsdp

    return run(args)


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "bench": cmd_bench, "compare": cmd_compare, "bisect": cmd_bisect, "runs": cmd_runs, "history": cmd_history,
    "sweep": cmd_sweep,
    "peaks": cmd_peaks, "profile": cmd_profile, "kernel": cmd_kernel, "doctor": cmd_doctor, "demo": cmd_demo,
    "step": cmd_step, "selfcheck": cmd_selfcheck, "collectives": cmd_distributed, "report": cmd_report,
    "publish": cmd_publish}


def main(argv: Sequence[str] | None = None) -> int:
    """The ``measurefirst`` command. Returns the exit status (see the module docstring)."""
    return command(lambda: parse_command(build_parser(command_lang(argv)), argv),
                   lambda args: (_ranked(args) or COMMANDS[args.command])(args))
