"""``measurefirst compare``: live candidates interleaved, saved results checked for a regression, or
code against code (``--against REF``)."""

from __future__ import annotations

import argparse
import math
import sys
from typing import TYPE_CHECKING, Any

from ..results.errors import UsageError
from .emit import check_args as _check, say as _say
from .guard import EXIT_FAILED, EXIT_NOISY, EXIT_OK, emit_results as _emit, first as _first, lang_of as _lang
from .guard import run_command as _run
from .parser import KIND_DEFAULT

if TYPE_CHECKING:  # pragma: no cover
    from ..results.regression import Change, Regression
    from ..tools.bisect import Measure


def _regression_out(args: argparse.Namespace, result: "Regression", code: int = EXIT_OK) -> int:
    """Emit a regression check, say its failures, and the exit code: 1 for a failing gate, 3 for an
    undecided one."""
    from ..render.gate import level_lines
    from ..render.tables import regression_failures

    code = _emit(args, [result], code)
    # JSON on stdout holds each interval's level; why it is wider than 95% is said here (the text view says it)
    for line in (level_lines(result.changes, _lang(args)) if getattr(args, "json", False) else []):
        _say(line)
    for line in regression_failures(result, _lang(args)):
        _say(line)
    verdict = EXIT_FAILED if result.failing else EXIT_NOISY if result.gate and result.undecided else EXIT_OK
    return _first(verdict, code)


def cmd_compare_saved(args: argparse.Namespace) -> int:
    from ..results.loading import check_saved

    if args.label:
        raise UsageError("--label names live targets; saved results keep the labels they were saved with")
    _check(args)
    result = check_saved(args.targets, store=args.store, gate=args.fail_if_slower is not None,
                         threshold=None if args.fail_if_slower in (None, KIND_DEFAULT) else args.fail_if_slower,
                         run_to_run=args.run_to_run)
    return _regression_out(args, result)


def cmd_compare(args: argparse.Namespace) -> int:
    """``compare``: saved results, code against code, or live candidates."""
    from ..results.loading import saved_targets

    if args.against_pairs is not None and args.against is None:  # issue 38: it was ignored without a word
        raise UsageError("--against-pairs counts the worker pairs of --against REF; give --against REF, or drop it")
    if not args.simulate and saved_targets(args.targets):
        return cmd_compare_saved(args)
    if args.against is not None:
        return cmd_compare_against(args)
    from ..tools.compare import compare  # imports torch: only for a live comparison
    from ..results.regression_checks import slower
    from ..render.tables import slower_lines
    from ..tools.targets import labelled, load_all

    _check(args)
    timer: Any = args.timer
    if args.simulate:
        from ..measure.simulate import candidates as simulated

        world, sims = simulated(args.simulate)
        candidates, timer, device = labelled(sims, args.label), world.timer(), "cpu"
    elif len(args.targets) < 2 and args.compile is None:
        raise UsageError("compare needs at least two targets (or one with --compile: eager against compiled)")
    else:
        device, candidates = load_all(args.targets, args.label, args.device, args.setup)
    labels = [label for label, _ in candidates]
    if args.baseline is not None and args.baseline not in labels:
        raise UsageError(f"--baseline {args.baseline!r} is not one of the labels: {', '.join(map(repr, labels))}")
    result, code = _run(args, ("candidate", ""), lambda: compare(
        candidates, baseline=args.baseline, device=device, precision=args.precision, budget=args.budget,
        min_time=args.min_time, block_time=args.block_time, order=args.order, cold_cache=args.cold_cache, timer=timer,
        compile=False if args.compile is None else (args.compile or True), compile_limit=args.compile_limit))
    if result is None:
        return code
    code = _emit(args, [result], code)
    if code == EXIT_OK and args.fail_if_slower is not None:
        slow = slower(result, None if args.fail_if_slower == KIND_DEFAULT else args.fail_if_slower)
        for line in slower_lines(slow, _lang(args)):
            _say(line)
        code = EXIT_FAILED if slow else code
    return code


def _halves(low: float | None, high: float | None, side: str, end: int) -> str:
    """An end of a step's interval as the ratio of the slower half's pairs to the other's (``end`` 0: the
    low end), from the interval of the left half's shift."""
    if low is None or high is None:
        return "nan"
    ends = sorted(math.exp(x if side == "left" else -x) for x in (low, high))
    return f"{ends[end]:.3f}"


def cmd_bisect(args: argparse.Namespace) -> int:
    """``bisect GOOD BAD TARGET``: the first slow commit, each comparison on a line as it is made."""
    from pathlib import Path

    lang = _lang(args)
    _check(args)
    measure, label = _bisect_target(args)

    from ..render.words import word
    from ..measure.remote import WorkerLost
    from ..tools.against import TargetFailed
    from ..tools.bisect import FIRST_PAIRS, bisect, by_ranks, subject
    from ..tools.worktree import WorktreeError, toplevel

    def ranked(c: "Change") -> dict[str, str]:
        est = by_ranks(c)
        n = 0 if est is None else est.n
        if est is None or est.ci_low is None or est.ci_high is None:
            ci = word("bisect_no_ci", lang, n=n)
        else:
            ci = word("bisect_ci", lang, lo=f"{math.exp(est.ci_low):.3f}", hi=f"{math.exp(est.ci_high):.3f}")
        return {"ratio": "nan" if est is None else f"{math.exp(est.estimate):.3f}", "ci": ci, "n": str(n)}

    def said(r: "Regression") -> None:
        _say(word("bisect_step", lang, base=r.base, head=r.new, **ranked(r.changes[0])))

    try:
        found = bisect(args.good, args.bad, measure, label, cwd=Path.cwd(), budget=args.budget,
                       pairs=args.against_pairs or FIRST_PAIRS, step=said)
        repo = toplevel(Path.cwd())
    except (TargetFailed, WorktreeError, WorkerLost, ValueError) as exc:
        raise UsageError(f"bisect: {exc}") from exc
    if found.first_slow is None:
        e = found.ends
        apart = e is not None and e.ci_high is not None and e.ci_high < 0  # BAD faster: else undecided
        _say(word("bisect_none" if apart else "bisect_ends_undecided", lang, good=args.good, bad=args.bad,
                  **ranked(found.total)))
    else:
        c, last = found.change, found.searched[-1]
        assert c is not None
        _say(word("bisect_found" if found.decided else "bisect_found_undecided", lang,
                  commit=subject(found.first_slow, repo), searched=found.commits, **ranked(c),
                  shift=f"{math.exp(abs(last.shift)):.3f}", slo=_halves(last.shift_low, last.shift_high, last.side, 0),
                  shi=_halves(last.shift_low, last.shift_high, last.side, 1)))
    if args.save is not None or args.output is not None or args.json:
        return _emit(args, found.steps)
    return EXIT_OK


def _bisect_target(args: argparse.Namespace) -> tuple["Measure", str]:
    """What ``bisect`` measures, and its name: a statement or ``module:function`` (one TARGET), or the one
    benchmark a pytest command line selects (``-- pytest FILE -k NAME``). The command line is checked before
    anything heavy is imported: a mistake is said at once."""
    from pathlib import Path

    words = [str(t) for t in args.target]
    if words[0] == "pytest" or (len(words) > 1 and words[:3] == [sys.executable, "-m", "pytest"]):
        rest = words[1:] if words[0] == "pytest" else words[3:]
        if args.setup:
            raise UsageError("bisect: -s/--setup is for a statement; a pytest benchmark sets itself up (fixtures)")
        if not rest:
            raise UsageError("bisect: `-- pytest` needs the benchmark to follow: -- pytest FILE -k NAME")
        from ..pytest.against import suite_measure

        return suite_measure(rest, cwd=Path.cwd(), device=args.device), " ".join(words)
    if len(words) > 1:
        raise UsageError(f"bisect takes one TARGET (got {len(words)}: {' '.join(words[:3])}...); quote a statement, "
                         f"or put a pytest command line after --: -- pytest FILE -k NAME")
    from ..tools.bisect import target_measure
    from ..tools.targets import target_spec

    return target_measure(target_spec(words[0], args.setup), words[0].strip(), cwd=Path.cwd(),
                          device=args.device), words[0].strip()


def cmd_compare_against(args: argparse.Namespace) -> int:
    """``compare --against REF TARGET...``: each target, REF's tree against this one (code against code)."""
    from pathlib import Path

    from ..tools.against import DEFAULT_PAIRS, TargetFailed, against_targets
    from ..tools.worktree import WorktreeError, validate_ref
    from ..tools.targets import check_labels, target_spec

    if args.simulate:
        raise UsageError("--against runs real code in two trees; it has no simulated clock")
    check_labels(args.label, len(args.targets))
    labels = list(args.label) + [t.strip() for t in args.targets[len(args.label):]]
    if len(set(labels)) < len(labels):
        raise UsageError("--against: each target needs its own label (--label)")
    try:
        validate_ref(args.against, Path.cwd())
    except WorktreeError as exc:
        raise UsageError(f"--against: {exc}") from exc
    specs = [target_spec(t, args.setup) for t in args.targets]
    threshold = None if args.fail_if_slower is None else 0.0 if args.fail_if_slower == KIND_DEFAULT else args.fail_if_slower
    try:
        result, code = _run(args, ("candidate", ""), lambda: against_targets(
            args.against, specs, labels, cwd=Path.cwd(), device=args.device, timer=args.timer, budget=args.budget,
            pairs=args.against_pairs or DEFAULT_PAIRS, threshold=threshold))
    except (TargetFailed, WorktreeError) as exc:
        raise UsageError(f"--against: {exc}") from exc
    return code if result is None else _regression_out(args, result, code)
