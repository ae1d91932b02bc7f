"""The plugin's session: everything one pytest run measured (through the fixtures, against a baseline or,
with ``--mf-against``, code against code), the gate that fails a slower test, and the saved runs, JSON
reports and summary at the end of the run."""

from __future__ import annotations

import json
import os
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import pytest

from ..tools.compare import Comparison, compare
from ..measure.devices import DeviceError, resolve_device
from ..measure.engine import Interrupted, benchmark, default_label
from .against import AgainstBaseline, Driver, Outcome, ServeSide, serving, validate_against
from .run import PytestBenchmark, PytestComparison, PytestRun, Record, empty_measurement
from ..tools.against import DEFAULT_PAIRS, EXTRA_PAIRS
from ..tools.worktree import WorktreeError
from ..results.regression import look_level
from ..results.regression_checks import change
from . import report as words
from ..render.words import LANGS
from ..results.kinds import Measurement
from ..results.safeio import DestinationError, check_destination, strict_json, write_atomic
from ..results.store import DEFAULT_PATH, ENV_VAR, Store, StoreError, location
from .baseline import Baseline
from .comparison import ComparisonRecord, ComparisonResult
from .fixtures import BenchmarkFixture, BenchmarkFixtures, MeasureFixture
from .options import (COMPARE_OPTIONS, DEFAULT_BUDGET, MARKER_OPTIONS, MIN_SAMPLES, UNSUPPORTED_BENCHMARK_OPTIONS,
                      XDIST_PROPERTY, _keys, _marker_group, _node_params, _xdist_worker, mf_options_on_benchmark_fixture)
from .pedantic import _repeated, pedantic_split
from .simulation import Simulation
from .stats import compat_stats


class MeasureFirstWarning(pytest.PytestWarning):
    """measurefirst's pytest plugin warns (for example: refused to measure under pytest-xdist)."""


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value, allow_nan=False)
        return value
    except (TypeError, ValueError):
        return repr(value)


class MeasureSession:
    """Everything one pytest run measured, and what it does with it."""

    def __init__(self, config: pytest.Config, *, explicit: bool) -> None:
        opt = config.option
        self.config = config
        self.explicit = explicit
        self.compat = bool(getattr(opt, "mf_compat", False) or config.getini("mf"))
        self.device: str = getattr(opt, "mf_device", None) or "auto"
        self.budget: float | None = getattr(opt, "mf_budget", None)
        self.only = bool(getattr(opt, "mf_only", False))
        self.skip = bool(getattr(opt, "mf_skip", False))
        self.disable = bool(getattr(opt, "mf_disable", False))
        self.save: str | None = getattr(opt, "mf_save", None)
        self.compare_ref: str | None = getattr(opt, "mf_compare", None)
        #: ``--mf-against REF``: code against code (see :mod:`measurefirst.pytest.against`)
        self.against_ref: str | None = getattr(opt, "mf_against", None)
        pairs = getattr(opt, "mf_against_pairs", None)
        self.against_pairs: int = DEFAULT_PAIRS if pairs is None else pairs  # 0 is refused, not the default
        extra = getattr(opt, "mf_against_extra_pairs", None)
        self.against_extra: int = EXTRA_PAIRS if extra is None else extra
        #: the --mf-against-* options given (they count --mf-against's pairs: without it they are refused)
        self.against_counts_given = [flag for flag, v in (("--mf-against-pairs", pairs),
                                                          ("--mf-against-extra-pairs", extra)) if v is not None]
        self.against: Outcome | None = None
        #: in a worker interpreter of ``--mf-against``: the connection to the parent
        self.serve_value: str | None = serving()
        self.serve_side: ServeSide | None = None
        self.threshold: float | None = getattr(opt, "mf_fail_if_slower", None)
        self.run_to_run: float | None = getattr(opt, "mf_run_to_run", None)
        #: ``--mf-undecided``: "pass" (default) or "fail" a test whose change a disturbed run cannot judge
        self.undecided_policy: str = getattr(opt, "mf_undecided", None) or "pass"
        #: ``--mf-lang``: the language of every line the plugin writes
        self.lang: str = getattr(opt, "mf_lang", None) or words.LANG
        if self.lang not in LANGS:
            raise pytest.UsageError(f"--mf-lang: choose one of {', '.join(LANGS)}; got {self.lang!r}")
        self.json_path: Path | None = Path(opt.mf_json) if getattr(opt, "mf_json", None) else None
        self.bench_json: Path | None = None
        store = getattr(opt, "mf_store", None) or os.environ.get(ENV_VAR)
        try:  # a postgresql:// URL stays one (never a file named after it); another URL is refused
            self.store_path: Path | str = location(store) if store else Path(config.rootpath) / DEFAULT_PATH
        except StoreError as exc:
            raise pytest.UsageError(f"--mf-store: {exc}") from exc
        sim = getattr(opt, "mf_simulate", None) or os.environ.get("MEASUREFIRST_PYTEST_SIMULATE")
        self.simulation: Simulation | None = None
        self.sim_text = sim
        self.worker = _xdist_worker(config)
        self.baseline: Baseline | None = None
        self.suite = 1  # the measuring tests of the run (select): their saved-number comparisons share one error
        self.records: list[Record] = []
        self.comparisons: list[ComparisonRecord] = []
        self.fixtures: dict[str, list[Any]] = {}
        self.disabled_calls = 0
        self.disabled_plugins: list[str] = []
        self.ignored_options: list[tuple[str, str]] = []
        self.saved: tuple[int, str, Path | str] | None = None
        self.written: list[Path] = []
        self.errors: list[str] = []
        self.compat_budget: float | None = None
        self.compat_min_samples: int | None = None
        self.compat_precision: float | None = None
        self._names: set[str] = set()
        if sim:
            try:
                self.simulation = Simulation(sim)
            except ValueError as exc:
                raise pytest.UsageError(f"--mf-simulate: {exc}") from exc

    # -- configuration ------------------------------------------------------------------------
    def configure(self) -> None:
        """Validate the options at the start of the run (a mistake costs no measurement) and, with
        ``--mf``, take the ``benchmark`` fixture over from pytest-benchmark."""
        if self.save is not None and (not self.save or "/" in self.save or self.save.startswith("@")):
            raise pytest.UsageError(f"--mf-save takes a NAME without '/' or '@', such as base; got {self.save!r}")
        if self.serve_value is not None:
            # a worker of --mf-against measures for the parent only: nothing saved, written or gated here
            self.save = self.compare_ref = self.json_path = None
            self.threshold = None
            self.against_ref = None
        if self.against_ref is not None:
            self._configure_against()
        elif self.against_counts_given and self.serve_value is None:  # issue 38: ignored without a word
            raise pytest.UsageError(f"{self.against_counts_given[0]} counts the worker pairs of --mf-against REF; give "
                                    f"--mf-against REF, or drop it")
        if self.threshold is not None and self.compare_ref is None and self.against_ref is None:
            raise pytest.UsageError("--mf-fail-if-slower needs a baseline: add --mf-against REF (code against code: "
                                    "the base commit and this tree, interleaved), --mf-compare NAME (runs saved with "
                                    "--mf-save NAME), or --mf-compare for each test's latest run")
        if self.device != "auto" and self.simulation is None:
            try:
                resolve_device(self.device)
            except (DeviceError, TypeError) as exc:
                raise pytest.UsageError(f"--mf-device: {exc}") from exc
        if self.compat:
            self._take_over_benchmark()
        if self.serve_value is not None:
            self.bench_json = None
            self.serve_side = ServeSide(self.serve_value)
        for option, path in (("--mf-json", self.json_path), ("--benchmark-json", self.bench_json)):
            if path is not None and self.worker is None:  # checked before any test runs
                try:
                    check_destination(path, f"{option} file")
                except DestinationError as exc:
                    raise pytest.UsageError(str(exc)) from exc
        if self.compare_ref is not None and self.worker is None:
            self.baseline = Baseline(self.compare_ref, self.store_path, self.lang)

    def _configure_against(self) -> None:
        ref = self.against_ref
        assert ref is not None
        if self.compare_ref is not None:
            raise pytest.UsageError("--mf-against and --mf-compare are two baselines: choose one (--mf-against REF "
                                    "compares code against code; --mf-compare NAME a saved run)")
        if not (isinstance(self.against_pairs, int) and 1 <= self.against_pairs <= 16):
            raise pytest.UsageError(f"--mf-against-pairs takes a number of worker pairs from 1 to 16; got "
                                    f"{self.against_pairs!r}")
        if not (isinstance(self.against_extra, int) and 0 <= self.against_extra <= 16):
            raise pytest.UsageError(f"--mf-against-extra-pairs takes a number of worker pairs from 0 (no second look) "
                                    f"to 16; got {self.against_extra!r}")
        if self.disable:
            raise pytest.UsageError("--mf-against measures; --mf-disable times nothing: drop one of them")
        if self.worker is None:
            try:
                validate_against(ref, Path(self.config.rootpath), Path(self.config.invocation_params.dir))
            except WorktreeError as exc:
                raise pytest.UsageError(f"--mf-against: {exc}") from exc
        self.against = Outcome(ref, self.against_pairs)
        self.baseline = AgainstBaseline(ref)  # type: ignore[assignment]

    def run_against(self, items: Sequence[pytest.Item]) -> None:
        """``--mf-against``: measure the suite's benchmarks in both trees before the run goes on (the
        run's own calls of the measuring tests then time nothing)."""
        if self.against_ref is None or self.worker is not None or self.against is None:
            return
        driver = Driver(self, self.against_ref, self.against_pairs, self.against_extra)
        try:
            driver.run(items)
        except WorktreeError as exc:
            raise pytest.UsageError(f"--mf-against: {exc}") from exc
        finally:
            self.against = driver.outcome
            self.baseline = AgainstBaseline(driver.outcome.label)  # type: ignore[assignment]

    def node_params(self, node: Any) -> tuple[str | None, dict[str, Any] | None]:
        return _node_params(node)

    def test_ended(self, item: pytest.Item) -> None:
        """A test ended: a worker of ``--mf-against`` tells the parent how."""
        if self.serve_side is not None and self.serve_side.planned(item.nodeid):
            self.serve_side.finish(item.nodeid)

    def _take_over_benchmark(self) -> None:
        config, opt = self.config, self.config.option
        pm = config.pluginmanager
        self.only = self.only or bool(getattr(opt, "benchmark_only", False))
        self.skip = self.skip or bool(getattr(opt, "benchmark_skip", False))
        self.disable = self.disable or (bool(getattr(opt, "benchmark_disable", False))
                                        and not bool(getattr(opt, "benchmark_enable", False)))
        bench_json = getattr(opt, "benchmark_json", None)
        self.bench_json = Path(bench_json) if bench_json else None
        max_time = getattr(opt, "benchmark_max_time", None)
        if max_time is not None and float(max_time) != DEFAULT_BUDGET:
            self.compat_budget = float(max_time)
        min_rounds = getattr(opt, "benchmark_min_rounds", None)
        if min_rounds is not None:
            self.compat_min_samples = max(MIN_SAMPLES, int(min_rounds))
        precision = getattr(opt, "benchmark_precision", None)
        if precision:
            self.compat_precision = float(precision)
        for dest, flag, instead in UNSUPPORTED_BENCHMARK_OPTIONS:
            if getattr(opt, dest, None) not in (None, False, [], ""):
                self.ignored_options.append((flag, instead))
        module = pm.get_plugin("benchmark")
        if module is not None and getattr(module, "__name__", "") == "pytest_benchmark.plugin":
            pm.set_blocked("benchmark")  # its fixture, hooks and report
            pm.set_blocked("pytest-benchmark")  # the session object its pytest_configure registers
            object.__setattr__(opt, "benchmark_disable", True)
            self.disabled_plugins.append("pytest-benchmark")
        config.addinivalue_line("markers", "benchmark(group=None, min_rounds=None, max_time=None, ...): "
                                           "pytest-benchmark's options, read by measurefirst under --mf")
        pm.register(BenchmarkFixtures(self), "measurefirst-benchmark")

    # -- state --------------------------------------------------------------------------------
    @property
    def measuring(self) -> bool:
        """Whether measurements are timed (False under --mf-disable, under pytest-xdist workers, and in the
        parent of --mf-against, whose workers time them)."""
        return not self.disable and self.worker is None and self.against_ref is None

    @property
    def gate(self) -> bool:
        return self.threshold is not None and self.baseline is not None

    def header(self) -> list[str] | None:
        if not self.explicit:
            return None
        return words.header_lines(
            device=self.device, budget=self.budget or DEFAULT_BUDGET, simulated=self.simulation is not None,
            compat=self.compat, disabled_plugins=self.disabled_plugins, ignored=self.ignored_options,
            baseline=None if self.baseline is None else self.baseline.label, threshold=self.threshold,
            save=self.save, disabled=self.disable, worker=self.worker, lang=self.lang)

    def noise_status(self) -> str | None:
        """Why the profile ``MEASUREFIRST_PROFILE`` names is not used (missing, not a file, damaged), on the real
        clock; None otherwise (issue 38: a missing one passed without a word)."""
        from ..measure.noise import PROFILE_ENV, read_profile

        if self.simulation is not None or self.disable or not os.environ.get(PROFILE_ENV):
            return None
        status = read_profile()[1]
        return status if status in ("missing", "not_a_file", "corrupt") else None

    def is_measuring_test(self, item: pytest.Item) -> bool:
        names = getattr(item, "fixturenames", ())
        return ("measure" in names or (self.compat and "benchmark" in names)
                or item.get_closest_marker("measurefirst") is not None)

    def select(self, items: list[pytest.Item]) -> None:
        """``--mf-only`` skips the tests that do not measure; ``--mf-skip`` those that do (``--mf-only``
        wins when both are given, as ``--benchmark-only`` does). ``--mf-*`` options without ``--mf`` on
        tests that use pytest-benchmark's ``benchmark`` fixture are an error: pytest-benchmark times those,
        so the options would silently not apply (a gate that never closes)."""
        if not self.compat and self.explicit:
            given, users = mf_options_on_benchmark_fixture(self.config, items)
            if given and users:
                raise pytest.UsageError(words.benchmark_without_mf(given, users, self.lang))
        self.suite = max(1, sum(1 for item in items if self.is_measuring_test(item)))  # share one error (add)
        if self.serve_side is not None:
            self.serve_side.plan(items, self.is_measuring_test,
                                 lambda dropped: self.config.hook.pytest_deselected(items=dropped))
            return
        if not (self.only or self.skip):
            return
        skip_other = pytest.mark.skip(reason=words.skip_reason(only=True, lang=self.lang))
        skip_measuring = pytest.mark.skip(reason=words.skip_reason(only=False, lang=self.lang))
        for item in items:
            measuring = self.is_measuring_test(item)
            if self.only and not measuring:
                item.add_marker(skip_other)
            elif not self.only and self.skip and measuring:
                item.add_marker(skip_measuring)

    def unique(self, name: str) -> str:
        out, k = name, 1
        while out in self._names:
            k += 1
            out = f"{name}#{k}"
        self._names.add(out)
        return out

    # -- fixtures -----------------------------------------------------------------------------
    def fixture(self, request: pytest.FixtureRequest) -> "MeasureFixture":
        if self.worker is not None:
            self._warn_worker(request)
        fx = MeasureFixture(self, request)
        self.fixtures.setdefault(request.node.nodeid, []).append(fx)
        return fx

    def benchmark_fixture(self, request: pytest.FixtureRequest) -> "BenchmarkFixture":
        if self.skip and not self.only:
            pytest.skip(words.skip_reason(only=False, lang=self.lang))
        if self.worker is not None:
            self._warn_worker(request)
        fx = BenchmarkFixture(self, request)
        self.fixtures.setdefault(request.node.nodeid, []).append(fx)
        return fx

    def _warn_worker(self, request: pytest.FixtureRequest) -> None:
        warnings.warn(MeasureFirstWarning(words.xdist_worker_warning(self.worker or "?", self.lang)), stacklevel=1)

    def options(self, node: Any, call: Mapping[str, Any], *, for_compare: bool = False,
                compat: Mapping[str, Any] | None = None) -> tuple[dict[str, Any], str | None]:
        """The engine options for one measurement, and the group from the marker."""
        opts: dict[str, Any] = {"device": self.device}
        budget = self.budget
        if compat is not None:
            budget = budget or self.compat_budget
            if self.compat_min_samples is not None:
                opts["min_samples"] = self.compat_min_samples
            if self.compat_precision is not None:
                opts["precision"] = self.compat_precision
        opts["budget"] = budget or DEFAULT_BUDGET
        group = None
        marker = node.get_closest_marker("measurefirst")
        if marker is not None:
            if marker.args:
                raise TypeError("@pytest.mark.measurefirst takes keyword arguments only, such as budget=2")
            unknown = sorted(set(marker.kwargs) - MARKER_OPTIONS)
            if unknown:
                raise TypeError(f"@pytest.mark.measurefirst got unknown option(s) {', '.join(unknown)}; "
                                f"known: {', '.join(sorted(MARKER_OPTIONS))}")
            kw = dict(marker.kwargs)
            group = kw.pop("group", None)
            opts.update(kw)
        if compat:
            opts.update(compat)
        if for_compare:
            opts = {k: v for k, v in opts.items() if k in COMPARE_OPTIONS}
        opts.update(call)
        return opts, group

    # -- measuring ----------------------------------------------------------------------------
    def measure(self, node: Any, fn: Callable[[], object], *, label: str | None, name: str, mode: str,
                setup: Callable[[], object] | None, opts: dict[str, Any], sim_keys: Sequence[str | None],
                warmup_rounds: int = 0) -> Measurement:
        """Time ``fn`` (or, when nothing is timed, call it once) and record the measurement."""
        precision = float(opts.get("precision", 0.01))
        if self.serve_side is not None:
            return self._serve(node, fn, name=name, mode=mode, setup=setup, opts=opts, sim_keys=sim_keys,
                               warmup_rounds=warmup_rounds)
        if not self.measuring:
            if setup is not None:
                setup()
            fn()
            self.disabled_calls += 1
            return empty_measurement(name, str(opts.get("device", "auto")), "disabled", precision)
        split = pedantic_split(int(opts["trials"])) if mode == "pedantic" and opts.get("trials") else []

        def keep(m: Measurement) -> Measurement:
            self.add(Record(name=name, nodeid=node.nodeid, module=node.nodeid.split("::")[0], label=label,
                            measurement=m, mode=mode, param=_node_params(node)[0], params=_node_params(node)[1]))
            return m
        try:
            if self.simulation is not None:
                if setup is not None:
                    setup()
                fn()  # the real function, once: its result and its errors
                world = self.simulation.world(name)
                sim_fn = world.function(self.simulation.cost(sim_keys), default_label(fn))
                for _ in range(warmup_rounds):
                    sim_fn()
                opts = {k: v for k, v in opts.items() if k not in ("device", "timer", "cold_cache", "cuda_graph")}
                timer = world.timer()
                return keep(_repeated(lambda o: benchmark(sim_fn, label=name, device="cpu", timer=timer, **o),
                                      opts, split, real_clock=False))
            for _ in range(warmup_rounds):
                fn()
            return keep(_repeated(lambda o: benchmark(fn, label=name, setup=setup, **o), opts, split,
                                  real_clock=isinstance(opts.get("timer", "auto"), str)))
        except Interrupted as exc:  # Ctrl-C: what was measured is kept, marked incomplete, as the CLI keeps it
            if isinstance(exc.partial, Measurement):
                keep(exc.partial)
            raise

    def _serve(self, node: Any, fn: Callable[[], object], *, name: str, mode: str, setup: Callable[[], object] | None,
               opts: dict[str, Any], sim_keys: Sequence[str | None], warmup_rounds: int) -> Measurement:
        """In a worker of ``--mf-against``: serve this measurement to the parent."""
        assert self.serve_side is not None
        precision = float(opts.get("precision", 0.01))
        simulated = None
        if self.simulation is not None:
            sim, world = self.simulation, self.simulation.world(name)

            def simulated() -> tuple[Callable[[], object], Any]:
                sim_fn = world.function(sim.cost(sim_keys), default_label(fn))
                for _ in range(warmup_rounds):
                    sim_fn()
                return sim_fn, world.timer()
        else:
            for _ in range(warmup_rounds):
                fn()
        m = self.serve_side.measure(node, name, mode, fn, setup, opts, simulated)
        return m if m is not None else empty_measurement(name, str(opts.get("device", "auto")), "aborted", precision)

    def compare(self, node: Any, candidates: Sequence[tuple[str, Callable[[], object]]], *, label: str | None,
                baseline: str | None, setup: Callable[[], object] | None, opts: dict[str, Any]) -> ComparisonResult:
        prefix = node.nodeid + (f"::{label}" if label else "")
        base = baseline if baseline is not None else candidates[0][0]
        precision = float(opts.get("precision", 0.005))
        if not self.measuring or self.serve_side is not None:
            for _, fn in candidates:
                if setup is not None:
                    setup()
                fn()
                self.disabled_calls += 1
            return ComparisonResult.disabled(prefix, tuple(lab for lab, _ in candidates), base,
                                             str(opts.get("device", "auto")), precision, self.lang)
        stopped: Interrupted | None = None
        try:
            if self.simulation is not None:
                for _, fn in candidates:
                    if setup is not None:
                        setup()
                    fn()
                world = self.simulation.world(prefix)
                sim_cands = [(lab, world.function(self.simulation.cost([lab, default_label(fn), *_keys(node)]), lab))
                             for lab, fn in candidates]
                opts = {k: v for k, v in opts.items() if k not in ("device", "timer", "cold_cache")}
                c = compare(sim_cands, baseline=baseline, device="cpu", timer=world.timer(), **opts)
            else:
                c = compare(list(candidates), baseline=baseline, setup=setup, **opts)
        except Interrupted as exc:  # Ctrl-C: the rounds so far are kept, marked incomplete, as in measure()
            if not isinstance(exc.partial, Comparison):
                raise
            c, stopped = exc.partial, exc
        result = ComparisonResult.of(c, self.lang)
        names = {lab: self.unique(f"{prefix}::{lab}") for lab in result.labels}
        index = len(self.comparisons)
        self.comparisons.append(ComparisonRecord(self.unique(prefix), node.nodeid, result))
        module = node.nodeid.split("::")[0]
        param, params = _node_params(node)
        for m in result.measurements:
            self.add(Record(name=names[m.label], nodeid=node.nodeid, module=module, label=m.label,
                            measurement=replace(m, label=names[m.label]), mode="compare", param=param, params=params,
                            comparison=index))
        if stopped is not None:
            raise stopped
        return result

    def add(self, record: Record) -> None:
        """Keep a record; with a baseline, compare it now (the decision of ``measurefirst compare``)."""
        self.records.append(record)
        if self.baseline is None or record.measurement.summary is None:
            return
        try:
            base = self.baseline.get(record.name)
        except (StoreError, ValueError) as exc:
            record.baseline_error = str(exc)
            return
        if base is None:
            record.baseline_missing = True
            return
        try:
            record.change = change(base, record.measurement, threshold=self.threshold or 0.0, label=record.name,
                                   run_to_run=self.run_to_run, level=look_level(self.suite))
        except ValueError as exc:
            record.baseline_error = str(exc)
            return
        record.regression = self.gate and record.change.regression
        record.undecided = self.gate and record.change.undecided

    # -- reports ------------------------------------------------------------------------------
    def after_report(self, item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport) -> None:
        if self.serve_side is not None:
            crash = getattr(getattr(report, "longrepr", None), "reprcrash", None)
            text = (str(getattr(crash, "message", "")).splitlines() or [""])[0] if report.failed else ""
            if report.failed and not text and report.longreprtext.strip():
                text = report.longreprtext.strip().splitlines()[-1]
            self.serve_side.report(item.nodeid, report.when, report.outcome, text)
        if report.when != "call":
            return
        mine = [r for r in self.records if r.nodeid == item.nodeid]
        fixtures = self.fixtures.get(item.nodeid, [])
        group = next((fx.group for fx in fixtures if getattr(fx, "group", None)), None)
        extra: dict[str, Any] = {}
        for fx in fixtures:
            extra.update(getattr(fx, "extra_info", {}) or {})
        marker_group = _marker_group(item)
        for r in mine:
            r.group = group or marker_group
            r.extra_info = {k: _jsonable(v) for k, v in extra.items()}
        if self.worker is not None and fixtures:
            report.user_properties.append((XDIST_PROPERTY, self.worker))
        slow = [r for r in mine if r.regression]
        noisy = [r for r in mine if r.undecided] if self.undecided_policy == "fail" else []
        if (slow or noisy) and report.passed:
            assert self.threshold is not None and self.baseline is not None
            report.outcome = "failed"
            report.longrepr = words.regression_failure(slow, self.baseline.label, self.threshold, undecided=noisy,
                                                      lang=self.lang)

    def finish(self, session: pytest.Session) -> None:
        """At the end of the run: save into the history, write the JSON reports."""
        if self.baseline is not None:
            self.baseline.close()
        if self.worker is not None or self.serve_side is not None:
            return  # a pytest-xdist worker measured nothing, an --mf-against worker measured for its parent
        measured = [r for r in self.records if r.measurement.summary is not None]
        if self.save is not None and measured:
            try:
                with Store(self.store_path) as store:
                    ids = store.save_many([r.measurement for r in measured],
                                          names=[f"{self.save}/{r.name}" for r in measured])
                    self.saved = (len(ids), self.save, store.path)  # a URL's password hidden
            except (StoreError, OSError, ValueError) as exc:
                self.errors.append(f"--mf-save: {exc}")
        for path, build in ((self.json_path, self.json_report), (self.bench_json, self.benchmark_json_report)):
            if path is None:
                continue
            try:
                write_atomic(path, strict_json(build(), indent=2), "JSON report")
                self.written.append(path)
            except DestinationError as exc:
                self.errors.append(str(exc))
        if self.errors and session.exitstatus == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def _environment(self) -> dict[str, Any]:
        first = next((r.measurement for r in self.records if r.measurement.env), None)
        return dict(first.env) if first is not None else {}

    def json_report(self) -> dict[str, Any]:
        """Every measurement of the run: raw samples, its baseline change, its comparison."""
        return self.result().to_dict()

    def result(self) -> PytestRun:
        """The run as a result (kind ``pytest_run``): what ``--mf-json`` writes."""
        from .._version import __version__

        return PytestRun(
            tuple(PytestBenchmark(
                r.name, r.display, r.nodeid, r.measurement, r.label, r.group, r.mode, r.param,
                None if r.params is None else {k: _jsonable(v) for k, v in r.params.items()}, r.extra_info,
                r.comparison, r.change, r.regression) for r in self.records),
            tuple(PytestComparison(c.name, c.nodeid, c.comparison) for c in self.comparisons),
            self.measuring, self.simulation is not None, None if self.baseline is None else self.baseline.label,
            self.threshold, self._environment(), __version__)

    def benchmark_json_report(self) -> dict[str, Any]:
        """``--benchmark-json`` under ``--mf``: pytest-benchmark's shape (so that tools reading it keep
        working), each entry carrying measurefirst's full measurement under ``"measurefirst"``."""
        from .._version import __version__

        env = self._environment()
        return {
            "machine_info": {"node": env.get("hostname"), "processor": env.get("cpu_model"),
                             "python_version": env.get("python_version"), "measurefirst": env},
            "commit_info": {"id": env.get("git_commit")},
            "benchmarks": [{
                "group": r.group, "name": r.display.split("::")[-1] if r.label is None else r.display,
                "fullname": r.name, "params": None if r.params is None else {k: _jsonable(v) for k, v in r.params.items()},
                "param": r.param, "extra_info": r.extra_info,
                "options": {k: _jsonable(v) for k, v in r.measurement.options.items()},
                "stats": compat_stats(r.measurement),
                "measurefirst": {"name": r.name, "measurement": r.measurement.to_dict()},
            } for r in self.records if r.measurement.summary is not None],
            "datetime": env.get("timestamp"), "version": f"measurefirst {__version__}",
        }

    def summary(self, tr: Any, *, refused_by_workers: Sequence[str] = ()) -> None:
        """The table at the end of the run: quiet when nothing was measured and nothing went wrong."""
        tw = self.config.get_terminal_writer()
        head, tables, lines = words.session_summary(self, refused_by_workers=refused_by_workers, width=tw.fullwidth,
                                                    verbose=int(getattr(self.config.option, "verbose", 0)) > 0,
                                                    lang=self.lang)
        if not head and not tables and not lines:
            return
        tr.write_sep("-", "measurefirst")
        for line in head:
            tr.write_line(line)
        if tables:
            tr.write(words.render_tables(tables, width=tw.fullwidth, color=tw.hasmarkup))
        for line in lines:
            tr.write_line(line)
