""""``measurefirst collectives``: parse → (torchrun group, or --nproc spawned group) → emit (table / JSON,
``-o``, ``--save``) on rank 0; and ``bench`` and a live ``compare`` under torchrun (:func:`ranked`)."""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from ..results.bandwidth import OPS, parse_byte_sizes
from ..results.defaults import MAX_COUNT
from ..distributed.group import DEFAULT_TIMEOUT_SECONDS
from ..render.words import LANGS, word

EPILOG = """examples:
  torchrun --nproc-per-node 2 -m measurefirst collectives --sizes 1K,4K,...,16M
  measurefirst collectives --nproc 2 --sizes 1K,64K --ops all_reduce,send_recv
  measurefirst collectives --nproc 2 --dtype bfloat16 --json -o coll.json
  measurefirst collectives --nproc 2 --sizes 1K,64K,1M --save coll     # then: compare @coll, history coll
  torchrun --nproc-per-node 2 -m measurefirst bench "x.sum()" -s "x = torch.randn(2**20)"
  torchrun --nproc-per-node 2 -m measurefirst compare "x * 2" "x + x" -s "x = torch.randn(2**20)"
"""


def add_parser(sub: Any, make: Any, common: Any, seconds: Any, lang: str = LANGS[0]) -> argparse.ArgumentParser:
    """The ``collectives`` command, its help in ``lang``; ``make``, ``common`` and ``seconds`` are the parser's
    shared helpers (:mod:`measurefirst.cli.parser`), passed in so that the options mean the same as everywhere."""
    def h(key: str, **fields: Any) -> str:
        return word(f"help.collectives.{key}", lang, **fields)

    c: argparse.ArgumentParser = make(sub, "collectives", lang)
    c.epilog = EPILOG
    c.add_argument("--sizes", default="1K,4K,...,16M", help=h("sizes"))
    c.add_argument("--ops", default=",".join(OPS), help=h("ops", ops=",".join(OPS)))
    c.add_argument("--dtype", default="float32", help=h("dtype"))
    c.add_argument("--warmup", type=int, default=5, help=h("warmup"))
    c.add_argument("--trials", type=int, default=20, help=h("trials"))
    c.add_argument("-b", "--budget", type=seconds, default=None, help=h("budget"))
    c.add_argument("--nproc", type=int, default=None, help=h("nproc"))
    c.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_SECONDS,
                   help=h("timeout", default=f"{DEFAULT_TIMEOUT_SECONDS:g}"))
    common(c, device=False, output=True, save="NAME", lang=True)
    return c


def _task(ops: list[str], sizes: list[int], dtype: str, warmup: int, trials: int,
          budget: float | None) -> dict[str, Any] | None:
    from ..distributed.collectives import collectives
    from ..distributed.group import dist

    r = collectives(ops, sizes, dtype, warmup=warmup, trials=trials, budget=budget)
    return r.to_dict() if dist().get_rank() == 0 else None


def emit_on_rank0(args: argparse.Namespace, results: list[Any], code: int = 0) -> int:
    """Rank 0's way out, as every command's (:func:`measurefirst.cli.emit.emit`: JSON or the tables, ``-o``,
    ``--save``, in ``--lang``); the other ranks print nothing."""
    from .emit import emit
    from .guard import EXIT_OK, EXIT_USAGE, first, lang_of
    from ..render.views import Options

    if not results or int(os.environ.get("RANK", "0")) != 0:
        return code
    ok = emit(results, json=args.json, output=args.output, save=args.save, store=args.store,
              options=Options(lang=lang_of(args)))
    return first(code, EXIT_OK if ok else EXIT_USAGE)


def add_step_arguments(st: argparse.ArgumentParser, seconds: Any) -> None:
    """``measurefirst step``'s switches for a step across the ranks of a process group, their help in the
    parser's language; ``seconds`` is the parser's type for a positive, finite number of seconds
    (``--timeout 0``, ``-5`` or ``nan`` refused there, not by every rank in c10d's words)."""
    lang = str(getattr(st, "lang", LANGS[0]))
    g = st.add_mutually_exclusive_group()
    g.add_argument("--ddp", dest="parallel", action="store_const", const="ddp", default=None,
                   help=word("help.step.ddp", lang))
    g.add_argument("--fsdp", dest="parallel", action="store_const", const="fsdp", help=word("help.step.fsdp", lang))
    st.add_argument("--timeout", type=seconds, default=DEFAULT_TIMEOUT_SECONDS,
                    help=word("help.step.timeout", lang, default=f"{DEFAULT_TIMEOUT_SECONDS:g}"))


def run(args: argparse.Namespace) -> int:
    """The distributed commands: ``collectives``, and ``step --ddp/--fsdp``."""
    return cmd_group_step(args) if args.command == "step" else cmd_collectives(args)


def cmd_group_step(args: argparse.Namespace) -> int:
    """``measurefirst step TARGET --ddp|--fsdp`` under torchrun: every rank steps, rank 0 prints and writes."""
    from ..measure.dtypes import dtype_name
    from ..results.errors import UsageError
    from ..tools.step import STEP_DTYPES, _first_set, _unpack
    from ..tools.targets import is_function_target, load_callable
    from ..distributed import group
    from ..distributed.step import benchmark_group_step

    if len(args.variants) != 1 or args.variants[0] != "eager" or len(args.dtypes) != 1:
        raise UsageError(f"--{args.parallel} times one eager step in one dtype: drop --variants and give one --dtypes")
    if not is_function_target(args.target):
        raise UsageError("TARGET must be module:build or file.py:build")
    if args.world_size != 1:
        raise UsageError(f"--world-size is the group's size under --{args.parallel}: leave it out")
    if not group.launched_by_torchrun() and not group.is_initialized():
        raise UsageError(f"--{args.parallel} runs on every rank of a group: `torchrun --nproc-per-node N -m "
                         f"measurefirst step {args.target} --{args.parallel}`")
    if args.output is not None:
        from ..results.safeio import DestinationError, check_destination

        try:
            check_destination(args.output, "output")
        except DestinationError as exc:
            raise UsageError(str(exc)) from None
    created = group.init_from_env(timeout_seconds=args.timeout)
    rank = group.dist().get_rank()
    parts: dict[str, Any] | None = None
    built: dict[str, dict[str, Any]] = {}
    try:
        def build_here() -> None:  # every rank builds; a rank whose build fails is named on all of them
            _, build = load_callable(args.target)
            built["parts"] = _unpack(build())

        group.run_on_ranks("step: build()", build_here)
        parts = built["parts"]
        result = benchmark_group_step(
            parts["model"], parts["optimizer"], parts["batches"], parallel=args.parallel, loss_fn=parts["loss_fn"],
            device=args.device, steps=args.steps, warmup=args.warmup, grad_accum=args.grad_accum,
            micro_batch=_first_set(args.micro_batch, parts["micro_batch"]),
            seq_len=_first_set(args.seq_len, parts["seq_len"]), flops_per_step=args.flops,
            dtype=dtype_name(args.dtypes[0], STEP_DTYPES), label=args.target.replace("\\", "/").rsplit("/", 1)[-1])
    except group.RankFailed as exc:
        if rank == 0:  # one line for the group: every rank holds the same failure
            print(f"error: {exc}", file=sys.stderr)
        return 1
    finally:
        built.clear()
        if created and group.is_initialized():
            # the model, and FSDP's state that holds the group and its gloo work, go while the interpreter is
            # whole: freed at its exit instead, gloo's threads aborted the process (SIGABRT, "terminate
            # called without an active exception") after the step had finished, so torchrun saw a failed rank
            parts = None
            gc.collect()
            group.dist().destroy_process_group()
            gc.collect()
    return emit_on_rank0(args, [result]) if rank == 0 else 0  # rank 0 prints and writes


def cmd_collectives(args: argparse.Namespace) -> int:
    from .emit import check_args
    from ..results.errors import UsageError

    try:
        sizes = parse_byte_sizes(args.sizes)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    ops = [o.strip() for o in args.ops.split(",") if o.strip()]
    bad = [o for o in ops if o not in OPS]
    if bad or not ops:
        raise UsageError(f"--ops: unknown {', '.join(bad) or '(none given)'}; choose from {','.join(OPS)}")
    if not 0 <= args.warmup <= MAX_COUNT or not 1 <= args.trials <= MAX_COUNT:
        raise UsageError(f"--warmup must be >= 0 and --trials >= 1 (at most {MAX_COUNT})")
    # checked here, before any rank starts: inside the ranks each would fail in c10d's own words
    from ..distributed.collectives import resolve_dtype
    from ..distributed.launch import check_spawn

    try:
        check_spawn(1 if args.nproc is None else args.nproc, args.timeout)
        resolve_dtype(args.dtype)
    except ValueError as exc:
        raise UsageError(f"{'--dtype: ' if 'dtype' in str(exc) else ''}{exc}") from None
    check_args(args)  # -o, --save and --store, before anything is measured
    from ..distributed import group
    from ..distributed.collectives import CollectivesResult

    task_args = (ops, sizes, args.dtype, args.warmup, args.trials, args.budget)
    try:
        if args.nproc is not None and not group.launched_by_torchrun() and not group.is_initialized():
            from ..distributed.launch import spawn

            data = spawn(_task, args.nproc, task_args, timeout_seconds=args.timeout)[0]
        else:
            with _group(args.timeout, "collectives"):
                data = _task(*task_args)
    except group.RankFailed as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if data is None:  # not rank 0: rank 0 prints and writes
        return 0
    return emit_on_rank0(args, [CollectivesResult.from_dict(data)])


@contextmanager
def _group(timeout: float, command: str) -> Iterator[bool]:
    """The process group torchrun describes (initialized here, and destroyed after, when not already)."""
    from ..results.errors import UsageError
    from ..distributed import group

    created = group.init_from_env(timeout_seconds=timeout) if group.launched_by_torchrun() else False
    if not group.is_initialized():
        raise UsageError(f"{command} needs several ranks: run under `torchrun --nproc-per-node N -m measurefirst "
                         f"{command} ...`" + (" or give --nproc N" if command == "collectives" else ""))
    try:
        yield created
    finally:
        if created:
            group.dist().destroy_process_group()


# ---- bench and compare under torchrun ----------------------------------------------------------------
def ranked(args: argparse.Namespace) -> Callable[[argparse.Namespace], int] | None:
    """The command to run for ``args`` under torchrun: ``bench`` and a live ``compare`` on every rank (rank 0
    reporting); None for any other command, and outside torchrun (it runs as it does in one process)."""
    from ..distributed.group import launched_by_torchrun

    if not launched_by_torchrun() or getattr(args, "simulate", None):
        return None
    if args.command == "bench":
        return cmd_bench_ranks
    if args.command == "compare":
        from ..results.loading import saved_targets

        return None if saved_targets(args.targets) else cmd_compare_ranks
    return None


def _refuse(args: argparse.Namespace, *names: str) -> None:
    from ..results.errors import UsageError

    given = [n for n in names if getattr(args, n, None) not in (None, False)]
    if given:
        raise UsageError(f"under torchrun each rank measures in its own process: --{given[0].replace('_', '-')} is "
                         f"not available; run without it")


def _timeout(budget: float) -> float:
    """Seconds a rank may wait for the others: they measure to the same budget, so the slowest finishes
    within it (twice it, and the group's default, for start-up and loading)."""
    from ..distributed.group import DEFAULT_TIMEOUT_SECONDS

    return DEFAULT_TIMEOUT_SECONDS + 2 * budget


def cmd_bench_ranks(args: argparse.Namespace) -> int:
    """``measurefirst bench`` under torchrun: each target measured on every rank (a rank group result each)."""
    from dataclasses import fields

    from .emit import check_args
    from ..measure.engine import Options
    from ..tools.targets import bench_jobs
    from ..distributed.group import RankFailed, benchmark

    _refuse(args, "count", "processes")
    check_args(args)
    options = {f.name: getattr(args, f.name) for f in fields(Options) if hasattr(args, f.name)}
    results: list[Any] = []
    try:
        with _group(_timeout(args.budget * max(1, len(args.targets))), "bench"):
            # loaded once the group has set this rank's device (cuda:LOCAL_RANK under nccl): the setup runs there
            device, jobs = bench_jobs(args.targets, args.label, args.device, args.setup, args.timer)
            for label, fn, timer in jobs:
                results.append(benchmark(fn, device=device, label=label, timer=timer, **options))
    except RankFailed as exc:
        print(f"error: {exc}", file=sys.stderr)
        return emit_on_rank0(args, results, 1)
    return emit_on_rank0(args, results)


def cmd_compare_ranks(args: argparse.Namespace) -> int:
    """A live ``measurefirst compare`` under torchrun: every rank interleaves the candidates; one verdict
    per candidate for the group."""
    from .emit import check_args
    from ..results.errors import UsageError
    from ..tools.targets import load_all
    from ..distributed.group import RankFailed
    from ..distributed.ranked import compare

    _refuse(args, "fail_if_slower")
    if len(args.targets) < 2:
        raise UsageError("compare needs at least two targets")
    check_args(args)
    try:
        with _group(_timeout(args.budget), "compare"):
            # loaded once the group has set this rank's device (cuda:LOCAL_RANK under nccl): the setup runs there
            device, candidates = load_all(args.targets, args.label, args.device, args.setup)
            labels = [label for label, _ in candidates]
            if args.baseline is not None and args.baseline not in labels:
                raise UsageError(f"--baseline {args.baseline!r} is not one of the labels: "
                                 f"{', '.join(map(repr, labels))}")
            result = compare(candidates, baseline=args.baseline, device=device, precision=args.precision,
                             budget=args.budget, min_time=args.min_time, block_time=args.block_time,
                             order=args.order, cold_cache=args.cold_cache, timer=args.timer)
    except RankFailed as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return emit_on_rank0(args, [result])
