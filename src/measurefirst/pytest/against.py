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

import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Protocol, Sequence

from ..measure.engine import BenchmarkError, Options, Sampler, choose_device
from ..measure.devices import environment
from ..measure.remote import ENV_VAR, Channel, RemoteError, WorkerLost, connect_back, serve
from ..measure.timers import make_timer
from ..results.kinds import CompileEvent, Measurement
from ..tools.against import DEFAULT_PAIRS, Side, compare_pair, join, tree_env, worker_pairs
from ..tools.worktree import Tree, WorktreeError, toplevel
from .run import Record

if TYPE_CHECKING:  # pragma: no cover
    import pytest

    from ..results.comparison import Comparison


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
        self.conn.send(("ready", node.nodeid, name, mode, cold, {"budget": budget}))

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


class AgainstBaseline:
    """The baseline of a gate of code against code: its label; nothing to look up."""

    def __init__(self, label: str) -> None:
        self.label = label

    def get(self, name: str) -> None:
        return None

    def close(self) -> None:
        pass


class Driver:
    """The parent: makes the base tree, runs the worker pairs, turns their comparisons into records."""

    def __init__(self, session: Session, ref: str, pairs: int = DEFAULT_PAIRS) -> None:
        self.session, self.ref, self.pairs = session, ref, pairs
        self.outcome = Outcome(ref, pairs)
        self.parts: dict[str, list["Comparison"]] = {}
        self.meta: dict[str, tuple[str, str]] = {}  # name -> (nodeid, mode)

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
            head = Side("head", tuple(self._argv(rootdir, files)), rootdir, tree_env(head_top, os.environ))
            sides = [head]
            if base_files:
                sides.insert(0, Side("base", tuple(self._argv(base_root, base_files)), base_root,
                                     tree_env(tree.root, os.environ)))
            try:
                for k, hello in worker_pairs(self.pairs, sides, temp):
                    if not self._pair(k, hello, [i.nodeid for i in measuring]):
                        break
            except WorkerLost as exc:  # a worker that did not start or connect
                s.errors.append(f"--mf-against: {exc}")
        finally:
            self._records(items)
            tree.close()
            shutil.rmtree(temp, ignore_errors=True)

    # -- one pair of workers ----------------------------------------------------------------------
    def _argv(self, root: Path, files: Sequence[str]) -> list[str]:
        given = list(self.session.config.invocation_params.args)
        argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:randomly",
                "--rootdir", str(root), "-W", "ignore::pytest.PytestUnknownMarkWarning"]
        if self.session.compat:
            argv.append("--mf")
        return argv + passed_on(given) + ["--", *files]

    def _pair(self, k: int, hello: dict[str, tuple[Channel, Any]], head_ids: Sequence[str]) -> bool:
        """Drive pair ``k`` (each worker connected, its hello holding the measuring tests it collected)
        through the plan; False when there is no base side."""
        channels = {side: ch for side, (ch, _) in hello.items()}
        lists = {side: list(ids) for side, (_, ids) in hello.items()}
        base_ids = set(lists.get("base", []))
        head_set = set(lists.get("head", []))
        plan = [i for i in lists.get("head", []) if i in base_ids]
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
        budget = 2.0 * float(h[5].get("budget", 1.0)) / self.pairs  # the test's budget once per side
        try:
            c = compare_pair(base, head, [b[4], h[4]], budget, seed=k)
        except BenchmarkError as exc:  # a side raised while measuring: that side's failure, in its words
            if isinstance(exc.__cause__, WorkerLost):
                raise exc.__cause__ from None
            if not isinstance(exc.__cause__, RemoteError):
                raise
            self.outcome.failed.setdefault(str(h[1]), {})[exc.label] = str(exc.__cause__)
            return
        self.parts.setdefault(name, []).append(c)
        self.meta[name] = (str(h[1]), mode)

    # -- records ------------------------------------------------------------------------------------
    def _records(self, items: Sequence["pytest.Item"]) -> None:
        s = self.session
        by_id = {item.nodeid: item for item in items}
        threshold = s.threshold or 0.0
        for name, parts in self.parts.items():
            nodeid, mode = self.meta[name]
            ch, head_m = join(parts, name, threshold=threshold, machine=s.simulation is None)
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


