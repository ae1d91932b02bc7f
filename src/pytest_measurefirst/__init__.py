"""The pytest entry point of measurefirst (registered under ``pytest11`` as ``measurefirst``).

pytest imports this module in every run of every project where measurefirst is installed, so it
stays light and inert: it declares the options, the marker and the ``measure`` fixture, and nothing
else happens (no torch import, no output, no change to any test) until a ``--mf*`` option, the
``mf`` ini setting or the ``measure`` fixture asks for measuring. The machinery lives in
:mod:`measurefirst.pytest.plugin`, imported only then.

It is a package of its own, outside ``measurefirst``, because importing anything inside
``measurefirst`` runs ``measurefirst/__init__.py``, which imports torch (seconds on a busy machine).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from typing import TYPE_CHECKING, Any, Generator

import pytest

if TYPE_CHECKING:  # pragma: no cover
    from measurefirst.pytest.plugin import MeasureFixture, MeasureSession

#: Hidden switch (and its option ``--mf-simulate``): time on the seeded simulated clock, for tests.
SIMULATE_ENV = "MEASUREFIRST_PYTEST_SIMULATE"
#: Set in the worker interpreters of ``--mf-against`` (see :mod:`measurefirst.tools.against`).
AGAINST_ENV = "MEASUREFIRST_AGAINST"
#: The entry in a test report's ``user_properties`` that a pytest-xdist worker sends back when it
#: refused to measure (the controller counts them and says so once).
XDIST_PROPERTY = "measurefirst_xdist_refused"
#: pytest-benchmark's options that ``--mf`` reads; declared here only when pytest-benchmark is absent.
BENCHMARK_ALIASES = (
    ("--benchmark-only", "benchmark_only", "run only the tests that measure (with --mf: --mf-only)"),
    ("--benchmark-skip", "benchmark_skip", "skip the tests that measure (with --mf: --mf-skip)"),
    ("--benchmark-disable", "benchmark_disable", "call each measured function once (with --mf: --mf-disable)"),
)

_SESSION_KEY = pytest.StashKey["MeasureSession"]()
_REFUSED_KEY = pytest.StashKey[list[str]]()


def _fraction(text: str) -> float:
    t = text.strip()
    try:
        value = float(t[:-1]) / 100.0 if t.endswith("%") else float(t)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a fraction such as 0.05 or 5%, got {text!r}") from None
    if not value >= 0 or value != value or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a fraction of zero or more such as 5%, got {text!r}")
    if not t.endswith("%") and value > 1:  # the command line's rule: a bare 5 would read as 500%
        raise argparse.ArgumentTypeError(f"{text!r} is ambiguous: write {t}% for {t} percent, or a fraction such "
                                         f"as 0.05")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text.strip().removesuffix("s"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds such as 1 or 0.5, got {text!r}") from None
    if not (value > 0 and value != float("inf")):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    g = parser.getgroup("measurefirst", "measurefirst: benchmarks as tests (device-synchronized, adaptive, with CIs)")
    g.addoption("--mf", action="store_true", default=False, dest="mf_compat",
                help="also provide pytest-benchmark's `benchmark` fixture, marker and --benchmark-only/-skip/"
                     "-disable/-json, measured by measurefirst (pytest-benchmark is turned off for the run)")
    g.addoption("--mf-device", default=None, metavar="DEVICE",
                help="device to measure on: auto (default; cuda, then mps, then cpu), cpu, cuda, cuda:1, mps")
    g.addoption("--mf-budget", type=_seconds, default=None, metavar="SECONDS",
                help="seconds at most per measurement, warm-up included (default 1; a comparison gets this "
                     "per candidate)")
    g.addoption("--mf-only", action="store_true", default=False, help="run only the tests that measure")
    g.addoption("--mf-skip", action="store_true", default=False, help="skip the tests that measure")
    g.addoption("--mf-disable", action="store_true", default=False,
                help="call each measured function once, timing nothing (correctness runs in CI)")
    g.addoption("--mf-save", default=None, metavar="NAME",
                help="save every measurement in the results history as NAME/<test node id>")
    g.addoption("--mf-compare", nargs="?", const="", default=None, metavar="NAME|FILE",
                help="compare each measurement with its saved baseline: NAME or =@NAME (saved with --mf-save "
                     "NAME; a separate @NAME is read by pytest as a file of arguments), NAME~K (K saves back), "
                     "a --mf-json or pytest-benchmark JSON FILE, or nothing: each test's latest saved run")
    g.addoption("--mf-against", default=None, metavar="REF",
                help="judge each benchmark code against code: REF (a branch, tag or commit, checked out in a temporary "
                     "git worktree, or the path of another checkout) and this tree, each in fresh worker "
                     "interpreters, their rounds interleaved so that the machine's load falls on both alike")
    g.addoption("--mf-against-pairs", type=int, default=None, metavar="N",
                help="with --mf-against: worker pairs per benchmark (default 4; fresh interpreters can land in "
                     "different speed modes, and the pairs' spread widens the interval)")
    g.addoption("--mf-against-extra-pairs", type=int, default=None, metavar="N",
                help="with --mf-against: worker pairs a benchmark that its first pairs left undecided may get at a "
                     "second look, when that many would decide it (default 4; 0: no second look)")
    g.addoption("--mf-fail-if-slower", type=_fraction, default=None, metavar="FRACTION",
                help="fail a test that is slower than its baseline beyond both its CI and this threshold "
                     "(e.g. 5%%), as `measurefirst compare --fail-if-slower` decides")
    g.addoption("--mf-undecided", choices=("pass", "fail"), default="pass",
                help="what a gate does when a run was too noisy to judge a change (most samples preempted, two "
                     "speeds, precision far from met, a run-to-run spread beyond the threshold): pass (default; "
                     "the summary says undecided, why and the fix) or fail the test")
    g.addoption("--mf-run-to-run", type=_fraction, default=None, metavar="FRACTION",
                help="the run-to-run spread of one run's median (relative standard deviation) that the intervals "
                     "against the baseline include, instead of each run's measured one (by default each run's "
                     "repetitions measure it; where none did, measurefirst's default spread is assumed, and the "
                     "summary says which figure and why)")
    g.addoption("--mf-json", default=None, metavar="PATH", help="write every measurement, with raw samples, as JSON")
    g.addoption("--mf-lang", default=None, metavar="LANG",
                help="the language of measurefirst's lines in this run: en (default) or zh")
    g.addoption("--mf-store", default=None, metavar="PATH",
                help="results history file (default: $MEASUREFIRST_STORE, else .measurefirst/results.db "
                     "under the rootdir)")
    g.addoption("--mf-simulate", default=None, help=argparse.SUPPRESS)  # seeded simulated clock, for tests
    parser.addini("mf", type="bool", default=False, help="measurefirst: the same as --mf (provide `benchmark`)")
    if importlib.util.find_spec("pytest_benchmark") is None or pluginmanager.is_blocked("benchmark"):
        # pytest-benchmark declares these itself; without it (or with -p no:benchmark), --mf still understands them
        for flag, dest, text in BENCHMARK_ALIASES:
            g.addoption(flag, action="store_true", default=False, dest=dest, help=text)
        g.addoption("--benchmark-json", default=None, metavar="PATH", dest="benchmark_json",
                    help="with --mf: write a pytest-benchmark-shaped JSON report to PATH")


def _wanted(config: pytest.Config) -> bool:
    """Whether this run asked for measurefirst through an option, the ini file or the environment."""
    opt = config.option
    if getattr(opt, "mf_compat", False) or config.getini("mf"):
        return True
    if os.environ.get(SIMULATE_ENV):
        return True
    return any(getattr(opt, name, None) not in (None, False) for name in (
        "mf_device", "mf_budget", "mf_only", "mf_skip", "mf_disable", "mf_save", "mf_compare",
        "mf_fail_if_slower", "mf_run_to_run", "mf_json", "mf_simulate", "mf_against")) or bool(
        os.environ.get(AGAINST_ENV))


def _session(config: pytest.Config, *, explicit: bool = False) -> "MeasureSession":
    found = config.stash.get(_SESSION_KEY, None)
    if found is None:
        from measurefirst.pytest.plugin import MeasureSession

        found = MeasureSession(config, explicit=explicit)
        config.stash[_SESSION_KEY] = found
    return found


def _active(config: pytest.Config) -> "MeasureSession | None":
    return config.stash.get(_SESSION_KEY, None)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "measurefirst(budget=None, device=None, precision=None, group=None, **options): "
                   "measurefirst options for the measurements of this test")
    if getattr(config.option, "dist", "no") != "no" and not hasattr(config, "workerinput"):
        # the pytest-xdist controller runs no test: its workers refuse to measure and say so here
        config.pluginmanager.register(_XdistController(config), "measurefirst-xdist-controller")
        return
    if _wanted(config):
        try:
            _session(config, explicit=True).configure()
        except KeyboardInterrupt:  # before pytest's terminal reporter exists: its "KeyboardInterrupt" never shows
            from measurefirst.render.words import LANGS, word  # no torch: it may be half imported now

            lang = getattr(config.option, "mf_lang", None)
            print(word("pt_start_interrupted", lang if lang in LANGS else LANGS[0]), file=sys.stderr)
            raise


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    session = _active(config)
    return session.header() if session is not None else None


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    session = _active(config)
    if session is not None:
        session.select(items)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    report = yield
    session = _active(item.config)
    if session is not None:
        session.after_report(item, call, report)
    return report


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> None:
    active = _active(session.config)
    if active is not None and not session.config.option.collectonly:
        active.run_against(session.items)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, Any, Any]:
    result = yield
    active = _active(item.config)
    if active is not None:
        active.test_ended(item)
    return result


class _XdistController:
    """On the pytest-xdist controller: workers say in their reports that they refused to measure;
    count them, so that the end of the run says so once."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call":
            return
        for key, value in report.user_properties:
            if key == XDIST_PROPERTY:
                self.config.stash.setdefault(_REFUSED_KEY, []).append(str(value))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    active = _active(session.config)
    if active is not None:
        active.finish(session)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    refused = config.stash.get(_REFUSED_KEY, None)
    session = _active(config)
    if session is None and not refused:
        return
    if session is None:
        session = _session(config)
    session.summary(terminalreporter, refused_by_workers=refused or [])


@pytest.hookimpl(wrapper=True, tryfirst=True, specname="pytest_terminal_summary")
def pytest_terminal_summary_interrupted(terminalreporter: Any, exitstatus: int,
                                        config: pytest.Config) -> Generator[None, Any, Any]:
    """Ctrl-C while the end-of-run summary is written (every plugin's part, the slow imports of some
    among them) was pytest's traceback: one line instead, and the run's status "interrupted". The saves
    and files of the run were done before it, in ``pytest_sessionfinish``."""
    try:
        return (yield)
    except KeyboardInterrupt:
        session = _active(config)
        if session is None:
            raise
        from measurefirst.pytest.report import summary_interrupted

        terminalreporter.write_line(summary_interrupted(session.lang))
        ran = getattr(terminalreporter, "_session", None)
        if ran is not None:
            ran.exitstatus = pytest.ExitCode.INTERRUPTED
        return None


@pytest.fixture
def measure(request: pytest.FixtureRequest) -> "MeasureFixture":
    """Time a callable with ``measurefirst.benchmark`` (``measure(fn)`` returns the Measurement), or
    compare several interleaved (``measure.compare({...})`` returns a Comparison with assertion
    helpers such as ``assert_faster("fused", than="manual", by=1.2)``)."""
    return _session(request.config).fixture(request)
