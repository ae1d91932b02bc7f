"""The fixtures a test measures with: ``measure`` (``measure(fn)``, ``measure.compare({...})``) and, under
``--mf``, pytest-benchmark's ``benchmark`` (``benchmark(fn)``, ``benchmark.pedantic(...)``), each handing its
measurements to the plugin's session."""

from __future__ import annotations

from typing import Any, Callable, Mapping, Protocol, Sequence

import pytest

from ..results import defaults
from ..measure.devices import resolve_device
from ..measure.engine import default_label
from . import report as words
from ..results.kinds import Measurement
from .comparison import ComparisonResult
from .options import BENCHMARK_MARKER_OPTIONS, MIN_SAMPLES, _keys, _node_params
from .pedantic import PEDANTIC_BUDGET_S, _Pedantic
from .simulation import Simulation
from .stats import CompatStats


class Session(Protocol):
    """What the fixtures read of the plugin's session (the plugin's ``MeasureSession`` is one; it makes
    the fixtures, so this module does not import it)."""

    simulation: Simulation | None
    lang: str
    disabled_calls: int

    @property
    def measuring(self) -> bool: ...
    def unique(self, name: str) -> str: ...
    def options(self, node: Any, call: Mapping[str, Any], *, for_compare: bool = False,
                compat: Mapping[str, Any] | None = None) -> tuple[dict[str, Any], str | None]: ...
    def measure(self, node: Any, fn: Callable[[], object], *, label: str | None, name: str, mode: str,
                setup: Callable[[], object] | None, opts: dict[str, Any], sim_keys: Sequence[str | None],
                warmup_rounds: int = 0) -> Measurement: ...
    def compare(self, node: Any, candidates: Sequence[tuple[str, Callable[[], object]]], *, label: str | None,
                baseline: str | None, setup: Callable[[], object] | None, opts: dict[str, Any]) -> ComparisonResult: ...
    def benchmark_fixture(self, request: pytest.FixtureRequest) -> "BenchmarkFixture": ...


class MeasureFixture:
    """The ``measure`` fixture: ``measure(fn)`` returns a Measurement; ``measure.compare({...})`` a
    :class:`ComparisonResult`. ``measure.group`` and ``measure.extra_info`` may be set in the test;
    ``measure.device`` is the device measured on (to build the inputs on); ``measure.enabled`` is False
    when nothing is timed (``--mf-disable``, pytest-xdist workers)."""

    def __init__(self, session: Session, request: pytest.FixtureRequest) -> None:
        self._session = session
        self._node = request.node
        self.group: str | None = None
        self.extra_info: dict[str, Any] = {}
        self._unlabelled = 0

    @property
    def enabled(self) -> bool:
        return self._session.measuring

    @property
    def device(self) -> str:
        """The device this test measures on, resolved (``"cpu"``, ``"cuda:0"``, ``"mps"``)."""
        if self._session.simulation is not None:
            return "cpu"
        opts, _ = self._session.options(self._node, {})
        return str(resolve_device(opts.get("device", "auto")))

    def __call__(self, fn: Callable[[], object], *, label: str | None = None,
                 setup: Callable[[], object] | None = None, **options: Any) -> Measurement:
        """Measure ``fn()`` with :func:`measurefirst.benchmark` (``options`` as there: ``budget``,
        ``precision``, ``device``, ``warmup``, ``trials``, ``cold_cache``...) and return the Measurement."""
        if not callable(fn):
            raise TypeError(f"measure() needs a callable taking no arguments, such as `lambda: a @ b`; "
                            f"got {type(fn).__name__}")
        if label is not None and not isinstance(label, str):
            raise TypeError(f"label must be a string; got {type(label).__name__}")
        if options.get("count") is not None:
            raise TypeError("measure() times; it does not take count=. Count instructions with "
                            "measurefirst.benchmark(fn, count='instructions') inside the test")
        s = self._session
        name = s.unique(self._node.nodeid + (f"::{label}" if label else ""))
        opts, _ = s.options(self._node, options)
        return s.measure(self._node, fn, label=label, name=name, mode="measure", setup=setup, opts=opts,
                         sim_keys=[label, default_label(fn), *_keys(self._node)])

    def compare(self, candidates: Mapping[str, Callable[[], object]] | Sequence[tuple[str, Callable[[], object]]],
                *, label: str | None = None, baseline: str | None = None, setup: Callable[[], object] | None = None,
                **options: Any) -> ComparisonResult:
        """Compare the candidates interleaved with :func:`measurefirst.compare` (the first is the
        baseline unless ``baseline=`` says otherwise); the result has ``assert_faster``,
        ``assert_slower`` and ``assert_not_slower``. ``label`` names this comparison when a test makes
        several. Unless ``budget=`` is given, the comparison gets the budget once per candidate."""
        items = list(candidates.items()) if isinstance(candidates, Mapping) else list(candidates)
        if len(items) < 2:
            raise ValueError("measure.compare() needs at least two candidates, e.g. {'manual': f, 'fused': g}")
        for item in items:
            if not (isinstance(item, tuple) and len(item) == 2 and callable(item[1])):
                raise TypeError("candidates must be a mapping {label: callable} or (label, callable) pairs")
        items = [(str(lab), fn) for lab, fn in items]
        s = self._session
        opts, _ = s.options(self._node, {}, for_compare=True)
        if "budget" not in options:
            opts["budget"] = float(opts["budget"]) * len(items)
        opts.update(options)
        if "min_time" not in opts:
            opts["min_time"] = min(defaults.COMPARE_MIN_TIME_S, defaults.COMPARE_MIN_TIME_SHARE * float(opts["budget"]))
        return s.compare(self._node, items, label=label, baseline=baseline, setup=setup, opts=opts)

class FixtureAlreadyUsed(Exception):
    """The pytest-benchmark compatible ``benchmark`` fixture measures one function per test."""


class BenchmarkFixture:
    """pytest-benchmark's ``benchmark`` fixture, measured by measurefirst (``--mf``).

    ``benchmark(fn, *args, **kwargs)`` measures adaptively and returns ``fn(*args, **kwargs)``;
    ``benchmark.pedantic(target, args=, kwargs=, setup=, teardown=, rounds=, warmup_rounds=,
    iterations=)`` takes exactly the rounds and iterations given. ``group``, ``extra_info``,
    ``name``, ``fullname``, ``param``, ``params`` and (after the call) ``stats`` are pytest-benchmark's;
    ``measurement`` is measurefirst's Measurement."""

    def __init__(self, session: Session, request: pytest.FixtureRequest) -> None:
        node = request.node
        self._session, self._node = session, node
        self.name: str = node.name
        self.fullname: str = node.nodeid
        self.param, self.params = _node_params(node)
        marker = node.get_closest_marker("benchmark")
        kw: dict[str, Any] = dict(marker.kwargs) if marker is not None else {}
        if marker is not None and marker.args:
            raise ValueError("benchmark mark can't have positional arguments.")
        unknown = sorted(set(kw) - BENCHMARK_MARKER_OPTIONS)
        if unknown:
            raise ValueError(f"benchmark mark can't have {unknown[0]!r} keyword argument.")
        self.group: str | None = kw.get("group")
        self.extra_info: dict[str, Any] = {}
        self.stats: CompatStats | None = None
        self.measurement: Measurement | None = None
        self.disabled = not session.measuring
        self._compat: dict[str, Any] = {}
        if kw.get("max_time") is not None:
            self._compat["budget"] = float(kw["max_time"])
        if kw.get("min_rounds") is not None:
            self._compat["min_samples"] = max(MIN_SAMPLES, int(kw["min_rounds"]))
        if kw.get("precision"):
            self._compat["precision"] = float(kw["precision"])
        self._mode: str | None = None

    @property
    def enabled(self) -> bool:
        return not self.disabled

    def _use(self, mode: str) -> None:
        if self._mode:
            raise FixtureAlreadyUsed(f"Fixture can only be used once. Previously it was used in {self._mode} mode.")
        self._mode = mode

    def _done(self, m: Measurement) -> None:
        self.measurement = m
        self.stats = CompatStats(m) if m.summary is not None else None

    def __call__(self, function_to_benchmark: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        self._use("benchmark(...)")
        s = self._session
        fn: Callable[[], object]
        if args or kwargs:
            def fn() -> object:
                return function_to_benchmark(*args, **kwargs)
            fn.__name__ = fn.__qualname__ = default_label(function_to_benchmark)
        else:
            fn = function_to_benchmark
        if not s.measuring:
            s.disabled_calls += 1
            return function_to_benchmark(*args, **kwargs)
        opts, _ = s.options(self._node, {}, compat=self._compat)
        name = s.unique(self._node.nodeid)
        m = s.measure(self._node, fn, label=None, name=name, mode="benchmark", setup=None, opts=opts,
                      sim_keys=[default_label(function_to_benchmark), *_keys(self._node)])
        self._done(m)
        return function_to_benchmark(*args, **kwargs)

    def pedantic(self, target: Callable[..., Any], args: Sequence[Any] = (), kwargs: Mapping[str, Any] | None = None,
                 setup: Callable[[], Any] | None = None, teardown: Callable[..., Any] | None = None,
                 rounds: int = 1, warmup_rounds: int = 0, iterations: int = 1) -> Any:
        self._use("benchmark.pedantic(...)")
        for what, value, least in (("iterations", iterations, 1), ("rounds", rounds, 1), ("warmup_rounds", warmup_rounds, 0)):
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise ValueError(f"Must have positive int for `{what}`.")
        if iterations > 1 and setup:
            raise ValueError("Can't use more than 1 `iterations` with a `setup` function.")
        call = _Pedantic(target, args, kwargs, setup, teardown)
        s = self._session
        if not s.measuring:
            call.prepare()
            call.pending = False
            call.call()
            s.disabled_calls += 1
            return call.result
        opts, _ = s.options(self._node, {}, compat=self._compat)
        device = "cpu" if s.simulation is not None else str(resolve_device(opts.get("device", "auto")))
        # exactly warmup_rounds * iterations untimed calls, then `rounds` samples of `iterations` calls; the test
        # counted its rounds, so the budget is only a guard against a hang (PEDANTIC_BUDGET_S), not a cut
        budget = max(float(opts.get("budget", defaults.BUDGET_S)), PEDANTIC_BUDGET_S)
        opts.update(device=device, warmup=0, trials=rounds, number=iterations, budget=budget)
        # the rounds are the test's: one the OS preempted is kept (and counted as preempted), not set aside, so that
        # benchmark.stats holds `rounds` rounds however busy the machine (a marker may still ask otherwise)
        opts.setdefault("discard_preempted", False)
        for key in ("min_samples", "max_samples"):
            opts.pop(key, None)
        needs_setup = setup is not None or teardown is not None
        if s.simulation is None:
            for _ in range(warmup_rounds):
                if needs_setup:
                    call.prepare()
                for _ in range(iterations):
                    call.call()
        name = s.unique(self._node.nodeid)
        m = s.measure(self._node, call.call, label=None, name=name, mode="pedantic",
                      setup=call.prepare if needs_setup else None, opts=opts,
                      sim_keys=[default_label(target), *_keys(self._node)],
                      warmup_rounds=warmup_rounds * iterations if s.simulation is not None else 0)
        call.finish()
        self._done(m)
        return call.result

    def weave(self, target: Any, **kwargs: Any) -> None:
        raise NotImplementedError(words.weave_unsupported(self._session.lang))

    patch = weave


class BenchmarkFixtures:
    """The plugin object registered under ``--mf``: pytest-benchmark's fixture names."""

    def __init__(self, session: Session) -> None:
        self.session = session

    @pytest.fixture
    def benchmark(self, request: pytest.FixtureRequest) -> BenchmarkFixture:
        return self.session.benchmark_fixture(request)

    @pytest.fixture
    def benchmark_weave(self, request: pytest.FixtureRequest) -> Callable[..., None]:
        return self.session.benchmark_fixture(request).weave
