"""``pytest --mf --mf-against REF``: each benchmark of the suite measured in the base tree and the head
tree at once, their rounds interleaved (see :mod:`measurefirst.tools.against` for the method).

The parent (the user's pytest run, in the head tree) makes the base tree (:class:`~measurefirst.tools.
worktree.Tree`: a temporary git worktree of REF, or another checkout), then for each worker pair starts
two pytest interpreters, one in each tree, on the files of the suite's measuring tests
(:class:`Driver`). Each worker (:class:`ServeSide`) says which measuring tests it collected; the
parent answers with the plan (the tests of both sides, in the head's order) and the workers run only
those, in that order. When a test of a worker reaches a measurement, the worker builds its sampler and
serves it (:func:`measurefirst.measure.remote.serve`); the parent drives the two samplers block by
block. A test that fails on a side (before or while measuring) is reported as failed there and its
comparison abandoned; tests of one side only are listed, not failed.

Afterwards the parent's own run goes on as under ``--mf-disable`` for the measuring tests (each
function called once, so the test's assertions run), and the gate fails a test whose head is slower
than its base beyond the interval and ``--mf-fail-if-slower``, exactly as with a saved baseline.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Protocol, Sequence

from ..measure.engine import BenchmarkError, Options, Sampler, choose_device
from ..measure.devices import environment
from ..measure.placement import intra_op_threads
from ..measure.remote import ENV_VAR, Channel, RemoteError, WorkerLost, connect_back, serve
from ..measure.timers import make_timer
from ..results.kinds import CompileEvent, Measurement
from ..results.regression import look_level
from ..tools.against import (DEFAULT_PAIRS, EXTRA_PAIRS, Pairs, TargetFailed, compare_pair, join, more_pairs,
                             ready_threads, tree_env)
from ..tools.pool import Side, worker_pairs
from ..tools.worktree import Tree, WorktreeError, toplevel, validate_ref
from .run import Record

if TYPE_CHECKING:  # pragma: no cover
    import pytest

    from ..results.comparison import Comparison
    from ..tools.bisect import Measure


class Session(Protocol):
    """What the driver reads of the plugin's session (the plugin imports this module, not the reverse)."""

    config: Any
    compat: bool
    threshold: float | None
    errors: list[str]
    records: list[Record]
    simulation: Any

    @property
    def gate(self) -> bool: ...
    def is_measuring_test(self, item: "pytest.Item") -> bool: ...
    def node_params(self, node: Any) -> tuple[str | None, dict[str, Any] | None]: ...

SIDES = ("base", "head")
#: The options of the parent's command line passed on to its workers (each tree's own ini file gives
#: the rest: its addopts are that tree's).
PASSED_OPTIONS = ("--mf-device", "--mf-budget", "--mf-simulate", "--mf-lang")


def passed_on(args: Sequence[str]) -> list[str]:
    """The :data:`PASSED_OPTIONS` given on the parent's command line (``--flag value`` or ``--flag=value``)."""
    out: list[str] = []
    i = 0
    while i < len(args):
        a = str(args[i])
        flag = a.split("=", 1)[0]
        if flag in PASSED_OPTIONS:
            if "=" in a:
                out.append(a)
            elif i + 1 < len(args):
                out += [a, str(args[i + 1])]
                i += 1
        i += 1
    return out


def worker_argv(root: Path, compat: bool, passed: Sequence[str], args: Sequence[str]) -> list[str]:
    """A pytest worker's command line: pytest run from ``root`` on ``args`` (files, ``-k`` ...), with
    ``passed`` (:func:`passed_on`); ``compat``: pytest-benchmark's fixture measured too (``--mf``)."""
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:randomly",
            "--rootdir", str(root), "-W", "ignore::pytest.PytestUnknownMarkWarning",
            "-W", "ignore::pytest.PytestAssertRewriteWarning"]  # measurefirst's plugin, imported by a fork server
    if compat:
        argv.append("--mf")
    return argv + list(passed) + ["--", *args]


def validate_against(ref: str, rootdir: Path, started: Path) -> None:
    """``--mf-against REF`` checked before anything is measured, in the checkout of pytest's rootdir. Where
    that rootdir lies above the checkout pytest was started in, the error says why: pytest takes an existing
    path given as an option's value (``--mf-json ../out.json``) for a test path, and moves its rootdir up."""
    try:
        validate_ref(ref, rootdir)
    except WorktreeError as exc:
        try:
            top = toplevel(started)
        except WorktreeError:
            raise exc from None
        root = rootdir.resolve()
        if top != root and top.is_relative_to(root):
            raise WorktreeError(f"pytest's rootdir is {rootdir}, above your checkout {top}: pytest took a path given "
                                f"as an option's value outside the checkout (such as --mf-json ../out.json) for a "
                                f"test path; give it as --option=value, or add --rootdir={started}") from exc
        raise


def serving() -> str | None:
    """The connection a worker of ``--mf-against`` reports to (``None`` in any other run)."""
    return os.environ.get(ENV_VAR) or None


# ==================================================================================================
# The worker's side
# ==================================================================================================

class ServeSide:
    """In a worker: says hello, takes the plan, serves each measurement, reports each test's end."""

    def __init__(self, value: str) -> None:
        self.value = value
        self.side = value.rsplit(":", 1)[-1]
        self.outcomes: dict[str, tuple[str, str]] = {}
        self.wanted: set[str] = set()

    def planned(self, nodeid: str) -> bool:
        return nodeid in self.wanted

    def plan(self, items: list["pytest.Item"], measuring: Callable[["pytest.Item"], bool],
             deselect: Callable[[list["pytest.Item"]], None]) -> None:
        """Say hello with the measuring tests collected (ready to measure); keep only those of the
        parent's plan, in its order."""
        ids = [item.nodeid for item in items if measuring(item)]
        self.conn, token, _ = connect_back(self.value)
        self.conn.send(("hello", token, self.side, ids))
        message = self.conn.recv()
        wanted = list(message[1]) if message[0] == "plan" else []
        self.wanted = set(wanted)
        by_id = {item.nodeid: item for item in items}
        kept = [by_id[i] for i in wanted if i in by_id]
        dropped = [item for item in items if item.nodeid not in self.wanted]
        items[:] = kept
        if dropped:
            deselect(dropped)

    def measure(self, node: Any, name: str, mode: str, fn: Callable[[], object], setup: Callable[[], object] | None,
                opts: dict[str, Any], simulated: Callable[[], tuple[Callable[[], object], Any]] | None) -> Measurement | None:
        """Serve one measurement of ``fn`` (``simulated``: the function and timer of a simulated world)."""
        device = str(opts.get("device", "auto"))
        cold: float | None = None
        cold_compiles: list[CompileEvent] = []
        if simulated is not None:
            if setup is not None:
                setup()
            fn()
            run_fn, timer = simulated()
            dev: Any = "cpu"
            run_setup, env = None, {"device": "cpu"}
        else:
            compiles: list[list[CompileEvent]] = []
            dev, colds, _ = choose_device([fn], setup, device, compiles=compiles)
            kind = opts.get("timer", "auto")
            timer = make_timer(dev, kind if isinstance(kind, str) else "auto")
            cold, run_fn, run_setup, env = colds[0], fn, setup, environment(dev)
            cold_compiles = compiles[0] if compiles else []
        budget = float(opts.get("budget", 1.0))
        self.conn.send(("ready", node.nodeid, name, mode, cold, {"budget": budget, "threads": intra_op_threads()}))

        def make(o: dict[str, Any]) -> Sampler:
            options = Options(precision=float(o["precision"]), budget=float(o["budget"]),
                              min_time=float(o["min_time"]), cold_cache=bool(opts.get("cold_cache", False)),
                              discard_preempted=bool(opts.get("discard_preempted", True)),
                              number=opts.get("number") if isinstance(opts.get("number"), int) else None)
            return Sampler(run_fn, timer, options, label=self.side, device=dev, env=env, setup=run_setup,
                           cold_compiles=cold_compiles)

        _, m = serve(self.conn, make)
        return m

    def report(self, nodeid: str, when: str, outcome: str, text: str) -> None:
        old = self.outcomes.get(nodeid, ("passed", ""))
        rank = {"passed": 0, "skipped": 1, "failed": 2}
        if rank.get(outcome, 0) > rank.get(old[0], 0):
            self.outcomes[nodeid] = (outcome, f"{when}: {text}" if text else when)
        else:
            self.outcomes.setdefault(nodeid, old)

    def finish(self, nodeid: str) -> None:
        """A test ended: its outcome (its worst phase) goes to the parent."""
        outcome, text = self.outcomes.pop(nodeid, ("passed", ""))
        self.conn.send(("end", nodeid, outcome, text))


# ==================================================================================================
# The parent's side
# ==================================================================================================

@dataclass
class Outcome:
    """What the run of code against code found, test by test (for the summary and the JSON)."""

    #: the base as shown: ``REF (1a2b3c4d5e)`` once its tree is made
    #: (:attr:`~measurefirst.tools.worktree.Tree.label_commit`)
    label: str
    pairs: int
    compared: list[str] = field(default_factory=list)
    only_head: list[str] = field(default_factory=list)
    only_base: list[str] = field(default_factory=list)
    failed: dict[str, dict[str, str]] = field(default_factory=dict)  # nodeid -> side -> words
    skipped: list[str] = field(default_factory=list)
    mismatched: list[str] = field(default_factory=list)
    #: tests their first pairs left undecided, given more at a second look: nodeid -> pairs in all
    second_look: dict[str, int] = field(default_factory=dict)
    #: measurements compared (a test may make several), the comparisons that share the run's error
    #: (:func:`~measurefirst.results.regression.look_level`)
    comparisons: int = 0


class AgainstBaseline:
    """The baseline of a gate of code against code: its label; nothing to look up."""

    def __init__(self, label: str) -> None:
        self.label = label

    def get(self, name: str) -> None:
        return None

    def close(self) -> None:
        pass


class PairDriver:
    """The parent's side of pytest worker pairs: drives each pair through the plan, keeps each test's
    comparisons (``parts``, by measurement name) and what the run found (``outcome``). ``budget_per_pair``:
    seconds per pair of each comparison (``None``: the test's own budget once per side, shared by the
    pairs); pair ``k``'s order is drawn with seed ``first_seed + k``."""

    def __init__(self, outcome: Outcome, pairs: int, budget_per_pair: float | None = None, first_seed: int = 0) -> None:
        self.outcome, self.pairs = outcome, pairs
        self.budget_per_pair, self.first_seed = budget_per_pair, first_seed
        self.parts: dict[str, list["Comparison"]] = {}
        self.meta: dict[str, tuple[str, str]] = {}  # name -> (nodeid, mode)
        self.only: set[str] | None = None  # the tests a second look measures (None: the whole plan)

    # -- one pair of workers ----------------------------------------------------------------------
    def _pair(self, k: int, hello: dict[str, tuple[Channel, Any]], head_ids: Sequence[str]) -> bool:
        """Drive pair ``k`` (each worker connected, its hello holding the measuring tests it collected)
        through the plan; False when there is no base side."""
        channels = {side: ch for side, (ch, _) in hello.items()}
        lists = {side: list(ids) for side, (_, ids) in hello.items()}
        base_ids = set(lists.get("base", []))
        head_set = set(lists.get("head", []))
        plan = [i for i in lists.get("head", []) if i in base_ids and (self.only is None or i in self.only)]
        if k == 0:
            self.outcome.only_head = [i for i in head_ids if i not in base_ids]
            self.outcome.only_base = [i for i in lists.get("base", []) if i not in head_set]
        for ch in channels.values():
            ch.send(("plan", plan))
        if "base" not in channels:
            return False
        for nodeid in plan:
            self._test(k, nodeid, channels["base"], channels["head"])
        return True

    def _test(self, k: int, nodeid: str, base: Channel, head: Channel) -> None:
        """Drive one test of the plan in both workers, to its end on both sides."""
        ev = {"base": base.recv(), "head": head.recv()}
        chans = {"base": base, "head": head}
        while True:
            b, h = ev["base"], ev["head"]
            if b[0] == "ready" and h[0] == "ready":
                if b[2] == h[2]:
                    self._compare(k, b, h, base, head)
                    base.send(("done",))
                    head.send(("done",))
                else:
                    if nodeid not in self.outcome.mismatched:
                        self.outcome.mismatched.append(nodeid)
                    base.send(("abort",))
                    head.send(("abort",))
                ev = {"base": base.recv(), "head": head.recv()}
                continue
            for side in SIDES:
                if ev[side][0] == "ready":  # the other side ended first: this measurement is not compared
                    chans[side].send(("abort",))
                    ev[side] = chans[side].recv()
            b, h = ev["base"], ev["head"]
            if b[0] == "end" and h[0] == "end":
                for side, e in (("base", b), ("head", h)):
                    if e[2] == "failed":
                        self.outcome.failed.setdefault(nodeid, {})[side] = str(e[3])
                if b[2] == "skipped" and h[2] == "skipped" and nodeid not in self.outcome.skipped:
                    self.outcome.skipped.append(nodeid)
                return

    def _compare(self, k: int, b: tuple[Any, ...], h: tuple[Any, ...], base: Channel, head: Channel) -> None:
        name, mode = str(h[2]), str(h[3])
        budget = self.budget_per_pair
        if budget is None:
            budget = 2.0 * float(h[5].get("budget", 1.0)) / self.pairs  # the test's budget once per side
        try:
            c = compare_pair(base, head, [b[4], h[4]], budget, seed=self.first_seed + k, threads=ready_threads(b, h))
        except BenchmarkError as exc:  # a side raised while measuring: that side's failure, in its words
            if isinstance(exc.__cause__, WorkerLost):
                raise exc.__cause__ from None
            if not isinstance(exc.__cause__, RemoteError):
                raise
            self.outcome.failed.setdefault(str(h[1]), {})[exc.label] = str(exc.__cause__)
            return
        self.parts.setdefault(name, []).append(c)
        self.meta[name] = (str(h[1]), mode)


class Driver(PairDriver):
    """The parent of ``--mf-against``: makes the base tree, runs the worker pairs, turns their comparisons
    into records."""

    def __init__(self, session: Session, ref: str, pairs: int = DEFAULT_PAIRS, extra: int = EXTRA_PAIRS) -> None:
        super().__init__(Outcome(ref, pairs), pairs)
        self.session, self.ref, self.extra = session, ref, extra
        self.looked: set[str] = set()  # measurement names given a second look

    def run(self, items: Sequence["pytest.Item"]) -> None:
        s = self.session
        config = s.config
        measuring = [item for item in items if s.is_measuring_test(item)]
        if not measuring:
            return
        rootdir = Path(config.rootpath).resolve()
        tree = Tree.of(self.ref, rootdir)
        temp = Path(tempfile.mkdtemp(prefix="measurefirst-against-"))
        try:
            self.outcome.label = tree.label_commit
            head_top = _top(rootdir)
            base_root = tree.mirror(rootdir, head_top)
            files = sorted({item.nodeid.split("::")[0] for item in measuring})
            base_files = [f for f in files if (base_root / f).exists()]
            given = passed_on(list(self.session.config.invocation_params.args))
            head = Side("head", tuple(worker_argv(rootdir, self.session.compat, given, files)), rootdir,
                        tree_env(head_top, os.environ))
            sides = [head]
            if base_files:
                sides.insert(0, Side("base", tuple(worker_argv(base_root, self.session.compat, given, base_files)),
                                     base_root, tree_env(tree.root, os.environ)))
            ids = [i.nodeid for i in measuring]
            try:
                for k, hello in worker_pairs(self.pairs, sides, temp):
                    if not self._pair(k, hello, ids):
                        break
                self._second_look(sides, temp, ids)
            except WorkerLost as exc:  # a worker that did not start or connect
                s.errors.append(f"--mf-against: {exc}")
        finally:
            self._records(items)
            tree.close()
            shutil.rmtree(temp, ignore_errors=True)

    def _second_look(self, sides: Sequence[Side], temp: Path, ids: Sequence[str]) -> None:
        """More worker pairs for the tests their first pairs left undecided but a few more would decide
        (:func:`~measurefirst.tools.against.more_pairs`), as many as the neediest of them asks, each such
        test's interval then at the second look's level (:func:`~measurefirst.results.regression.look_level`)."""
        s = self.session
        machine = s.simulation is None
        wanted = {name: more_pairs(parts, name, threshold=s.threshold or 0.0, most=self.extra, machine=machine,
                                   comparisons=len(self.parts))
                  for name, parts in self.parts.items()}
        wanted = {name: n for name, n in wanted.items() if n > 0}
        if not wanted or len(sides) < 2:
            return
        self.only = {self.meta[name][0] for name in wanted}
        # every measurement of those tests gets the second look's pairs, so every one gets its level
        self.looked = {name for name, (nodeid, _) in self.meta.items() if nodeid in self.only}
        try:
            for k, hello in worker_pairs(max(wanted.values()), sides, temp):
                self._pair(self.pairs + k, hello, ids)
        finally:
            self.only = None
            for name in self.looked:
                self.outcome.second_look[self.meta[name][0]] = len(self.parts[name])

    # -- records ------------------------------------------------------------------------------------
    def _records(self, items: Sequence["pytest.Item"]) -> None:
        s = self.session
        by_id = {item.nodeid: item for item in items}
        threshold = s.threshold or 0.0
        self.outcome.comparisons = len(self.parts)
        for name, parts in self.parts.items():
            nodeid, mode = self.meta[name]
            level = look_level(len(self.parts), second=name in self.looked)
            ch, head_m = join(parts, name, threshold=threshold, machine=s.simulation is None, level=level)
            item = by_id.get(nodeid)
            param, params = s.node_params(item) if item is not None else (None, None)
            if nodeid not in self.outcome.compared:
                self.outcome.compared.append(nodeid)
            s.records.append(Record(name=name, nodeid=nodeid, module=nodeid.split("::")[0], label=None,
                                    measurement=head_m, mode=mode, param=param, params=params, change=ch,
                                    regression=s.gate and ch.regression, undecided=s.gate and ch.undecided))
        self.parts.clear()


def _top(path: Path) -> Path:
    """The top of the git checkout that holds ``path``, or ``path`` itself outside git."""
    try:
        return toplevel(path)
    except WorktreeError:
        return path




# ==================================================================================================
# One benchmark of a suite, two commits (``measurefirst bisect GOOD BAD -- pytest FILE -k NAME``)
# ==================================================================================================

class SelectionError(ValueError):
    """The pytest arguments of a bisect do not select exactly one measuring test on both sides."""


def suite_measure(args: Sequence[str], *, cwd: Path, device: str = "auto") -> "Measure":
    """The :data:`~measurefirst.tools.bisect.Measure` of the one measuring test that the pytest arguments
    ``args`` (files, ``-k``, node ids, as on pytest's command line; relative to ``cwd``) select: each side a
    fresh pytest worker run in a worktree of its commit, the test's measurement served to this parent as
    under ``--mf-against`` (pytest-benchmark's ``benchmark`` fixture included). The selection must hold one
    measuring test at the slow end and the same test at the other (:class:`SelectionError` otherwise,
    naming what was found); a test that fails on a side raises :class:`~measurefirst.tools.against.
    TargetFailed`. Every worker is stopped and both worktrees are removed on every way out."""
    passed = [] if device == "auto" else ["--mf-device", device]
    wanted = [a for a in args if a != "--mf"]
    shown = " ".join(["pytest", *wanted])
    checked: list[bool] = []

    def measure(a: str, b: str, n: int, per_pair: float, seed: int) -> Pairs:
        top = toplevel(cwd)
        with Tree.of(a, cwd) as base_tree, Tree.of(b, cwd) as head_tree, \
                tempfile.TemporaryDirectory(prefix="measurefirst-bisect-") as temp:
            sides = [Side(name, tuple(worker_argv(tree.mirror(cwd, top), True, passed, wanted)), tree.mirror(cwd, top),
                          tree_env(tree.root, os.environ))
                     for name, tree in (("base", base_tree), ("head", head_tree))]
            if not checked:  # a selection of no test, or of several, is told by one pair, not by ``n``
                with contextlib.closing(worker_pairs(1, sides, Path(temp))) as probe:
                    for _, hello in probe:
                        _one_test(shown, {side: [str(i) for i in got[1]] for side, got in hello.items()},
                                  base_tree.label_commit, head_tree.label_commit)
                checked.append(True)
            driver = PairDriver(Outcome(a, n), n, budget_per_pair=per_pair, first_seed=seed)
            with contextlib.closing(worker_pairs(n, sides, Path(temp))) as pairs:
                for k, hello in pairs:
                    ids = {side: [str(i) for i in got[1]] for side, got in hello.items()}
                    _one_test(shown, ids, base_tree.label_commit, head_tree.label_commit)
                    driver._pair(k, hello, ids["head"])
                    for nodeid, sides_failed in driver.outcome.failed.items():
                        side, words = next(iter(sides_failed.items()))
                        commit = base_tree.label_commit if side == "base" else head_tree.label_commit
                        raise TargetFailed(nodeid, f"{side} ({commit})", words)
                    if driver.outcome.mismatched:
                        raise SelectionError(f"{driver.outcome.mismatched[0]} measures under another name at "
                                             f"{base_tree.label_commit} than at {head_tree.label_commit}")
            if not driver.parts:
                raise SelectionError(f"{ids['head'][0]} measured nothing at {base_tree.label_commit} or "
                                     f"{head_tree.label_commit} (skipped?)")
            name = next(iter(driver.parts))
            return Pairs([driver.parts[name]], base_tree.label_commit, head_tree.label_commit, [name])

    return measure


def _one_test(shown: str, ids: dict[str, list[str]], base: str, head: str) -> None:
    """Exactly one measuring test selected at the slow end (``head``), and the same one at ``base``."""
    found = ids.get("head", [])
    if not found:
        raise SelectionError(f"`{shown}` selects no measuring test at {head} (a test that uses the measure or "
                             f"benchmark fixture); check the file and -k")
    if len(found) > 1:
        listed = ", ".join(found[:4]) + (", ..." if len(found) > 4 else "")
        raise SelectionError(f"`{shown}` selects {len(found)} measuring tests at {head} ({listed}): a bisect "
                             f"follows one; narrow it with -k or give the test's node id")
    if found[0] not in ids.get("base", []):
        raise SelectionError(f"{found[0]} is not collected at {base}: GOOD must hold the test too")
