"""``measurefirst collectives``: parse → (torchrun group, or --nproc spawned group) → table / JSON."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .bandwidth import OPS, parse_byte_sizes
from ..defaults import MAX_COUNT
from .group import DEFAULT_TIMEOUT_SECONDS

DESCRIPTION = (
    "Time all_reduce, all_gather, reduce_scatter, broadcast, all_to_all and send/recv over a size sweep and "
    "report time, algorithm bandwidth and bus bandwidth as nccl-tests does (size: the op's total buffer in "
    "bytes). Run under `torchrun --nproc-per-node N -m measurefirst collectives ...`, or give --nproc N to "
    "start a local gloo group. Only rank 0 prints and writes.")

EPILOG = """examples:
  torchrun --nproc-per-node 2 -m measurefirst collectives --sizes 1K,4K,...,16M
  measurefirst collectives --nproc 2 --sizes 1K,64K --ops all_reduce,send_recv
  measurefirst collectives --nproc 2 --dtype bfloat16 --json -o coll.json"""


def add_parser(sub: Any, make: Any) -> argparse.ArgumentParser:
    c: argparse.ArgumentParser = make(sub, "collectives", "collective bandwidth per op and size (nccl-tests' algbw/busbw)",
                                      DESCRIPTION)
    c.epilog = EPILOG
    c.add_argument("--sizes", default="1K,4K,...,16M", help="total buffer sizes in bytes, K/M/G suffixes, "
                   "e.g. 1K,4K,...,16M (default)")
    c.add_argument("--ops", default=",".join(OPS), help=f"comma-separated, from {','.join(OPS)} (default all)")
    c.add_argument("--dtype", default="float32", help="element type (default float32)")
    c.add_argument("--warmup", type=int, default=5, help="untimed calls per op and size (default 5)")
    c.add_argument("--trials", type=int, default=20, help="timed samples per op and size (default 20)")
    c.add_argument("--nproc", type=int, default=None, help="outside torchrun: spawn N local ranks (gloo)")
    c.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_SECONDS,
                   help=f"seconds any collective may wait before the group stops (default {DEFAULT_TIMEOUT_SECONDS:g})")
    c.add_argument("-o", "--output", type=Path, default=None, help="write the JSON result to this file")
    c.add_argument("--json", action="store_true", help="print JSON")
    return c


def _task(ops: list[str], sizes: list[int], dtype: str, warmup: int, trials: int) -> dict[str, Any] | None:
    from .collectives import collectives
    from .group import dist

    r = collectives(ops, sizes, dtype, warmup=warmup, trials=trials)
    return r.to_dict() if dist().get_rank() == 0 else None


def cmd_collectives(args: argparse.Namespace) -> int:
    from ..errors import UsageError

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
    from .collectives import resolve_dtype
    from .launch import check_spawn

    try:
        check_spawn(1 if args.nproc is None else args.nproc, args.timeout)
        resolve_dtype(args.dtype)
    except ValueError as exc:
        raise UsageError(f"{'--dtype: ' if 'dtype' in str(exc) else ''}{exc}") from None
    if args.output is not None:
        from ..safeio import DestinationError, check_destination

        try:
            check_destination(args.output, "output")
        except DestinationError as exc:
            raise UsageError(str(exc)) from None
    from . import group
    from .collectives import CollectivesResult

    task_args = (ops, sizes, args.dtype, args.warmup, args.trials)
    try:
        if args.nproc is not None and not group.launched_by_torchrun() and not group.is_initialized():
            from .launch import spawn

            data = spawn(_task, args.nproc, task_args, timeout_seconds=args.timeout)[0]
        else:
            created = group.init_from_env(timeout_seconds=args.timeout) if group.launched_by_torchrun() else False
            if not group.is_initialized():
                raise UsageError("collectives needs several ranks: run under `torchrun --nproc-per-node N -m "
                                 "measurefirst collectives ...` or give --nproc N")
            try:
                data = _task(*task_args)
            finally:
                if created:
                    group.dist().destroy_process_group()
    except group.RankFailed as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    if data is None:  # not rank 0: rank 0 prints and writes
        return 0
    result = CollectivesResult.from_dict(data)
    text = result.to_json()
    if args.output is not None:
        from ..safeio import write_atomic

        write_atomic(args.output, text + "\n", "output file")
    print(text if args.json else str(result))
    return 0
