"""The pytest plugin's machinery: the ``measure`` fixture, the pytest-benchmark compatible ``benchmark``
fixture (under ``--mf``), baselines, regression gates, the JSON report and the end-of-run summary.

pytest loads the light entry point :mod:`pytest_measurefirst`, which imports this module only when a
run asks for measuring (an ``--mf*`` option, the ``mf`` ini setting, or a test that requests
``measure``). The rules:

* **Options**, weakest first: the defaults (budget :data:`DEFAULT_BUDGET` s per measurement, device
  ``auto``), the command line (``--mf-device``, ``--mf-budget``), the test's
  ``@pytest.mark.measurefirst(...)`` marker, then the keyword arguments of the call itself.
* **Names.** A measurement is known by the test's node id (``nodeid``), or ``nodeid::label`` when it
  has a label (an explicit ``label=``, or a candidate of ``measure.compare``); a second unlabelled
  measurement in one test is ``nodeid#2``. Saved runs are named ``NAME/<that name>``.
* **Regressions** are decided by :func:`measurefirst.results.regression_checks.change`, as ``measurefirst compare
  --fail-if-slower`` decides them: slower beyond the ratio's 95% CI *and* the threshold. A test with a
  regression is reported failed (its own assertions passed; the report says why).
* **Comparisons** in a test (``measure.compare``) run interleaved; each candidate also counts as a
  measurement (saved, compared with its baseline). A comparison gets the budget once per candidate.
* **No timing where timings mean nothing**: under a pytest-xdist worker, or with ``--mf-disable``,
  each measured function is called once and nothing is timed; assertion helpers on comparisons then
  pass without checking (there is nothing to check), and the run says so.
* **pytest-benchmark compatibility** (``--mf``): the ``benchmark`` fixture keeps pytest-benchmark's
  signature; ``benchmark(fn, *args, **kwargs)`` is measured adaptively and returns ``fn``'s result
  from one more call, as pytest-benchmark does; ``benchmark.pedantic`` honours ``rounds``,
  ``iterations`` and ``warmup_rounds`` exactly (``warmup_rounds * iterations`` untimed calls, then
  ``rounds`` samples of ``iterations`` calls; the result is that of the last call, so no extra call).
  pytest-benchmark itself is turned off for the run, as pytest-codspeed does.
"""

from __future__ import annotations

import json
import math
import os
import warnings
import zlib
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pytest

from ..results import defaults
from ..tools.compare import Comparison, Verdict, compare, paired_verdict
from ..measure.devices import DeviceError, resolve_device
from ..measure.engine import benchmark, default_label
from ..results.importers import from_pytest_benchmark, sniff
from .against import AgainstBaseline, Driver, Outcome, ServeSide, serving
from .run import PytestBenchmark, PytestComparison, PytestRun, Record
from ..tools.against import DEFAULT_PAIRS
from ..tools.worktree import WorktreeError, validate_ref
from ..results.regression_checks import change
from . import report as words
from ..render.words import LANGS
from ..results.kinds import Measurement, Stop
from ..results.safeio import DestinationError, check_destination, strict_json, write_atomic
from ..results.store import DEFAULT_PATH, ENV_VAR, Store, StoreError, location

#: Seconds at most per measurement (warm-up included), as pytest-benchmark's ``--benchmark-max-time``.
DEFAULT_BUDGET = 1.0
#: pytest-benchmark's ``min_rounds`` raises our minimum number of samples, never lowers it below this.
MIN_SAMPLES = 10

#: Keywords of ``@pytest.mark.measurefirst(...)``: ``group`` plus the options of ``benchmark()``.
MARKER_OPTIONS = frozenset({
    "group", "budget", "device", "precision", "min_time", "min_samples", "max_samples", "warmup", "trials",
    "number", "warmup_min_time", "warmup_max_time", "cold_cache", "cuda_graph", "timer", "discard_preempted",
    "stop_early",
})
#: The marker options that ``compare()`` also takes.
COMPARE_OPTIONS = frozenset({"budget", "device", "precision", "min_time", "cold_cache", "timer", "discard_preempted",
                             "min_rounds", "block_time", "order", "seed"})
#: Keywords pytest-benchmark's ``@pytest.mark.benchmark(...)`` accepts (others are an error there too).
BENCHMARK_MARKER_OPTIONS = frozenset({
    "max_time", "min_rounds", "min_time", "precision", "confidence", "timer", "group", "disable_gc", "warmup",
    "warmup_iterations", "calibration_precision", "cprofile",
})
#: pytest-benchmark options that ``--mf`` does not honour, with what to use instead.
UNSUPPORTED_BENCHMARK_OPTIONS = (
    ("benchmark_save", "--benchmark-save", "--mf-save NAME"),
    ("benchmark_autosave", "--benchmark-autosave", "--mf-save NAME"),
    ("benchmark_compare", "--benchmark-compare", "--mf-compare [NAME]"),
    ("benchmark_compare_fail", "--benchmark-compare-fail", "--mf-fail-if-slower 5%"),
    ("benchmark_histogram", "--benchmark-histogram", "measurefirst's plots"),
    ("benchmark_cprofile", "--benchmark-cprofile", "measurefirst profile"),
    ("benchmark_save_data", "--benchmark-save-data", "--mf-save (raw samples are always kept)"),
)
XDIST_PROPERTY = "measurefirst_xdist_refused"
#: The options that ask measurefirst to measure, save or compare (by dest), which pytest-benchmark's
#: ``benchmark`` fixture ignores unless ``--mf`` hands it to measurefirst.
MF_OPTIONS = (("mf_device", "--mf-device"), ("mf_budget", "--mf-budget"), ("mf_disable", "--mf-disable"),
              ("mf_save", "--mf-save"), ("mf_compare", "--mf-compare"), ("mf_fail_if_slower", "--mf-fail-if-slower"),
              ("mf_run_to_run", "--mf-run-to-run"), ("mf_json", "--mf-json"))


class MeasureFirstWarning(pytest.PytestWarning):
    """measurefirst's pytest plugin warns (for example: refused to measure under pytest-xdist)."""


class FixtureAlreadyUsed(Exception):
    """The pytest-benchmark compatible ``benchmark`` fixture measures one function per test."""


# ==================================================================================================
# Records
# ==================================================================================================

@dataclass
class ComparisonRecord:
    name: str
    nodeid: str
    comparison: "ComparisonResult"


@dataclass(frozen=True)
class ComparisonResult(Comparison):
    """A :class:`~measurefirst.tools.compare.Comparison` with assertions that read as sentences.

    ``measured`` is False when nothing was timed (``--mf-disable``, pytest-xdist workers): every
    function was called once, and the assertions pass without checking.
    """

    measured: bool = True
    #: the language of a failed assertion's message (``--mf-lang``)
    lang: str = words.LANG

    @classmethod
    def of(cls, c: Comparison, lang: str = words.LANG) -> "ComparisonResult":
        return cls(**{f.name: getattr(c, f.name) for f in fields(Comparison)}, lang=lang)

    def pair(self, label: str, than: str) -> Verdict:
        """``label`` against ``than`` from the rounds they shared (the paired, interleaved verdict;
        for ``than`` the baseline it is the comparison's own verdict)."""
        for x in (label, than):
            if x not in self.labels:
                raise ValueError(f"{x!r} is not one of the candidates: {', '.join(self.labels)}")
        if label == than:
            raise ValueError(f"compare {label!r} with another candidate, not with itself")
        a = self.block_values_ns[self.labels.index(label)]
        b = self.block_values_ns[self.labels.index(than)]
        n = min(len(a), len(b))
        return paired_verdict(label, than, a[:n], b[:n])

    def assert_faster(self, label: str, *, than: str, by: float = 1.0) -> None:
        """Fail unless ``label`` is faster than ``than`` beyond the noise (the ratio's 95% CI excludes
        1) and by at least ``by`` times (the estimate: ``by=1.2`` asks for 1.2x)."""
        __tracebackhide__ = True
        self._check("faster", label, than, by)

    def assert_slower(self, label: str, *, than: str, by: float = 1.0) -> None:
        """Fail unless ``label`` is slower than ``than`` beyond the noise and by at least ``by`` times."""
        __tracebackhide__ = True
        self._check("slower", label, than, by)

    def assert_not_slower(self, label: str, *, than: str, by: float = 1.0) -> None:
        """Fail if ``label`` is slower than ``than`` beyond the noise and by more than ``by`` times
        (``by=1.05`` tolerates 5%): the regression rule of ``--mf-fail-if-slower``."""
        __tracebackhide__ = True
        self._check("not slower", label, than, by)

    def _check(self, claim: str, label: str, than: str, by: float) -> None:
        __tracebackhide__ = True
        if isinstance(by, bool) or not isinstance(by, (int, float)) or not (by >= 1.0 and math.isfinite(by)):
            raise ValueError(f"by is a factor of at least 1 such as 1.2 (1.2x); got {by!r}")
        v = self.pair(label, than)
        if not self.measured:
            return
        if claim == "faster":
            ok = v.verdict == "faster" and v.speedup >= by
        elif claim == "slower":
            ok = v.verdict == "slower" and v.ratio >= by
        else:
            ok = not (v.verdict == "slower" and v.ratio > by)
        if not ok:
            raise AssertionError(words.assertion_failure(claim, label, than, by, v, self, self.lang))


# ==================================================================================================
# pytest-benchmark's pedantic rounds, cut into repetitions
# ==================================================================================================

#: ``benchmark.pedantic(rounds=R)`` takes exactly R samples; they are taken in up to
#: :data:`~measurefirst.results.defaults.REPEATS` consecutive repetitions of this many rounds at least, whose medians'
#: spread is the measurement's run-to-run spread (source "repeats"), so a gate against a baseline uses a
#: measured spread rather than an assumed one. Fewer rounds: one repetition, the spread not measured.
PEDANTIC_REPEAT_MIN_ROUNDS = 5


#: ``benchmark.pedantic`` runs the rounds it was given in full, however busy the machine: its budget is this
#: long (or the test's, when longer), a guard against a hang; a cut is said (``fixed_count_cut``).
PEDANTIC_BUDGET_S = 3600.0


def pedantic_split(rounds: int) -> list[int]:
    """The rounds of each repetition (adding up to ``rounds``); one entry when too few to cut."""
    k = max(1, min(defaults.REPEATS, rounds // PEDANTIC_REPEAT_MIN_ROUNDS))
    return [rounds // k + (1 if i < rounds % k else 0) for i in range(k)]


def _repeated(run: Callable[[dict[str, Any]], Measurement], opts: dict[str, Any], split: Sequence[int],
              real_clock: bool) -> Measurement:
    """One measurement from ``run(opts)``, or, with a ``split`` of its trials into repetitions, from one
    run per repetition, merged (:func:`merge_repetitions`), with the machine's noise profile (or the
    prior) applied to the merged spread as ``benchmark()`` applies it to its own repetitions' (each
    run's own, with no spread to widen, would be lost in the merge)."""
    if len(split) < 2:
        return run(opts)
    from ..measure.noise import for_benchmark

    parts = [run({**opts, "trials": t, "noise_profile": False}) for t in split]
    import torch

    return for_benchmark(merge_repetitions(parts, trials=int(opts["trials"])), opts.get("noise_profile"),
                         real_clock=real_clock, threads=torch.get_num_threads())


def merge_repetitions(parts: Sequence[Measurement], *, trials: int) -> Measurement:
    """Consecutive repetitions of one benchmark as one measurement: their samples in order, ``repeats``
    saying how many each took, and the spread of their medians as the run-to-run spread."""
    from ..measure.engine import repeat_spread

    first, last = parts[0], parts[-1]

    def joined(name: str) -> tuple[Any, ...] | None:
        seqs = [getattr(p, name) for p in parts]
        return None if any(x is None for x in seqs) else tuple(v for x in seqs for v in x)

    samples = joined("samples_ns")
    numbers = joined("numbers")
    assert samples is not None and numbers is not None
    stop = Stop(last.stop.reason, all(p.stop.target_met for p in parts), last.stop.precision,
                sum(p.stop.seconds for p in parts))
    merged = replace(first, samples_ns=samples, numbers=numbers, host_ns=joined("host_ns"),
                     preempted=joined("preempted"), synced_ns=joined("synced_ns"), stop=stop,
                     options={**first.options, "trials": trials}, complete=all(p.complete for p in parts),
                     reference=None, run_to_run=None, repeats=tuple(p.n_samples for p in parts))
    per_call = [float(x) for x in merged.per_call_ns]
    spread = repeat_spread(per_call, [p.n_samples for p in parts], [bool(u) for u in merged.used_mask])
    return replace(merged, run_to_run=spread)


# ==================================================================================================
# Options, the simulated clock, baselines
# ==================================================================================================

class Simulation:
    """``--mf-simulate "call=1ms,noise=0.01,seed=3;test_b=1.2ms;fused=0.5ms"``: time on a seeded
    simulated clock. The first part is a :class:`~measurefirst.measure.simulate.SimSpec`; each ``KEY=TIME``
    after it sets the cost of one call of the functions it names (a label, a function's name, a test's
    name with or without its parameters, or a node id). The real function is still called once."""

    def __init__(self, text: str) -> None:
        from ..measure.simulate import parse_spec

        head, *rest = text.split(";")
        self.spec = parse_spec(head)
        self.costs: dict[str, float] = {}
        for part in filter(None, (p.strip() for p in rest)):
            key, sep, value = part.rpartition("=")
            if not sep or not key.strip():
                raise ValueError(f"simulated cost {part!r} needs the form name=TIME, such as test_b=1.2ms")
            self.costs[key.strip()] = parse_spec(f"call={value.strip()}").call_ns

    def world(self, name: str) -> Any:
        from ..measure.simulate import SimWorld

        return SimWorld(self.spec, seed=self.spec.seed + zlib.crc32(name.encode()) % 1_000_003)

    def cost(self, keys: Sequence[str | None]) -> float:
        for key in keys:
            if key is not None and key in self.costs:
                return self.costs[key]
        return self.spec.call_ns


class Baseline:
    """The saved runs that ``--mf-compare`` compares with: ``NAME`` or ``@NAME`` (``--mf-save NAME``),
    ``NAME~K`` (K saves back), a JSON file written by ``--mf-json`` (or ``--benchmark-json`` under
    ``--mf``), or ``""``: each test's latest saved run, whatever its save name. (pytest reads a
    separate ``@NAME`` argument as a file of arguments, so ``--mf-compare @base`` must be written
    ``--mf-compare=@base`` or ``--mf-compare base``.)"""

    def __init__(self, ref: str, store_path: Path | str, lang: str = words.LANG) -> None:
        self.lang = lang
        self.store: Store | None = None
        self.file: dict[str, Measurement] | None = None
        self.latest_ids: dict[str, int] = {}
        self.name: str | None = None
        self.back = 0
        is_file = ref.endswith(".json") or (bool(ref) and not ref.startswith("@") and Path(ref).is_file())
        if ref and not is_file:
            ref = ref if ref.startswith("@") else "@" + ref
            name, _, back = ref[1:].partition("~")
            if not name or "/" in name or (back and not back.isdigit()):
                raise pytest.UsageError(f"--mf-compare takes NAME, @NAME or NAME~K (K saves back), a JSON file, "
                                        f"or nothing; got {ref!r}")
            self.name, self.back = name, int(back or 0)
            self.store = self._open(store_path)
            saved = self._saved_names()
            if name not in saved:
                raise pytest.UsageError(words.no_saved_runs(ref, self.store.path, sorted(saved), self.lang))
        elif ref == "":
            self.store = self._open(store_path)
            for run_id, name in sorted((i, n) for n, i in self.store.latest_ids().items()):
                prefix, sep, rest = name.partition("/")
                if sep:
                    self.latest_ids[rest] = run_id  # oldest first: the last one wins
            if not self.latest_ids:
                raise pytest.UsageError(words.no_saved_runs(None, self.store.path, [], self.lang))
        else:
            self.file = _load_json_baseline(Path(ref))
        self.ref = ref

    def _open(self, path: Path | str) -> Store:
        if isinstance(path, Path) and not path.exists():
            raise pytest.UsageError(words.no_saved_runs(None, path, [], self.lang))
        try:
            return Store(path, create=False)
        except StoreError as exc:
            raise pytest.UsageError(f"--mf-compare: {exc}") from exc

    def _saved_names(self) -> set[str]:
        assert self.store is not None
        return {name.partition("/")[0] for name in self.store.names() if "/" in name}

    @property
    def label(self) -> str:
        return self.ref if self.ref else "latest saved"

    def get(self, name: str) -> Measurement | None:
        if self.file is not None:
            return self.file.get(name)
        assert self.store is not None
        found: Any = None
        if self.name is not None:
            try:
                found = self.store.latest(f"{self.name}/{name}", self.back)[1]
            except StoreError:
                return None
        else:
            run_id = self.latest_ids.get(name)
            found = None if run_id is None else self.store.get(run_id)
        return found if isinstance(found, Measurement) else None  # an instruction count is no time baseline

    def close(self) -> None:
        if self.store is not None:
            self.store.close()


def _load_json_baseline(path: Path) -> dict[str, Measurement]:
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise pytest.UsageError(f"--mf-compare: cannot read {path}: {exc}") from exc
    out: dict[str, Measurement] = {}
    try:
        if isinstance(data, dict) and data.get("kind") == PytestRun.kind:
            out.update((b.name, b.measurement) for b in PytestRun.from_dict(data).benchmarks)
        elif isinstance(data, dict) and isinstance(data.get("benchmarks"), list):
            for b in data["benchmarks"]:  # our --benchmark-json: pytest-benchmark's shape, ours inside
                mf = b.get("measurefirst") if isinstance(b, dict) else None
                if isinstance(mf, dict):
                    out[str(mf["name"])] = Measurement.from_dict(mf["measurement"])
            if not out and sniff(data) == "pytest-benchmark":  # pytest-benchmark's own: by node id (fullname)
                out.update((m.label, m) for m in from_pytest_benchmark(data, str(path)))
        else:
            raise ValueError("no measurefirst benchmarks in it")
    except (KeyError, TypeError, ValueError) as exc:
        raise pytest.UsageError(f"--mf-compare: {path} is not a measurefirst pytest report (--mf-json or "
                                f"--benchmark-json) or pytest-benchmark's JSON: {exc}") from exc
    if not out:
        raise pytest.UsageError(f"--mf-compare: {path} holds no measurefirst measurements "
                                f"(write one with --mf-json PATH)")
    return out


def _xdist_worker(config: pytest.Config) -> str | None:
    worker = getattr(config, "workerinput", None)
    if isinstance(worker, dict) and worker.get("workerid"):
        return str(worker["workerid"])
    return os.environ.get("PYTEST_XDIST_WORKER") or None


def _node_params(node: Any) -> tuple[str | None, dict[str, Any] | None]:
    callspec = getattr(node, "callspec", None)
    if callspec is None:
        return None, None
    return str(callspec.id), dict(callspec.params)


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value, allow_nan=False)
        return value
    except (TypeError, ValueError):
        return repr(value)


def _empty_measurement(name: str, device: str, reason: str, precision: float) -> Measurement:
    """A measurement with no samples: the function ran once and nothing was timed."""
    return Measurement(label=name, device=device, timer="none", samples_ns=(), numbers=(), host_ns=None,
                       preempted=None, warmup=None, calibration=None, stop=Stop(reason, False, precision, 0.0))


def compat_stats(m: Measurement) -> dict[str, Any]:
    """pytest-benchmark's statistics of a measurement (seconds per call, over the samples used):
    ``min max mean stddev rounds median iqr q1 q3 iqr_outliers stddev_outliers outliers ld15iqr
    hd15iqr ops total iterations data``."""
    values = (m.per_call_ns[m.used_mask] / 1e9) if m.n_samples else np.zeros(0)
    if values.size == 0:
        return {"rounds": 0, "iterations": 0, "data": []}
    q1, median, q3 = (float(x) for x in np.percentile(values, [25, 50, 75]))
    iqr = q3 - q1
    mean = float(values.mean())
    std = float(values.std(ddof=1)) if values.size > 1 else 0.0
    inside = values[(values >= q1 - 1.5 * iqr) & (values <= q3 + 1.5 * iqr)]
    iqr_out = int(values.size - inside.size)
    std_out = int(((values < mean - std) | (values > mean + std)).sum()) if std > 0 else 0
    numbers = np.asarray(m.numbers)[m.used_mask]
    return {
        "min": float(values.min()), "max": float(values.max()), "mean": mean, "stddev": std,
        "rounds": int(values.size), "median": median, "iqr": iqr, "q1": q1, "q3": q3,
        "iqr_outliers": iqr_out, "stddev_outliers": std_out, "outliers": f"{std_out};{iqr_out}",
        "ld15iqr": float(inside.min()) if inside.size else float(values.min()),
        "hd15iqr": float(inside.max()) if inside.size else float(values.max()),
        "ops": 1.0 / mean if mean > 0 else math.inf, "total": float((values * numbers).sum()),
        "iterations": int(numbers[-1]), "data": [float(x) for x in values],
    }


class CompatStats:
    """``benchmark.stats`` as pytest-benchmark tests read it: ``benchmark.stats["mean"]``,
    ``benchmark.stats.stats.mean``, ``benchmark.stats.stats.rounds`` (seconds per call)."""

    def __init__(self, m: Measurement) -> None:
        self._values = compat_stats(m)
        self.measurement = m

    @property
    def stats(self) -> "CompatStats":
        return self

    def __getitem__(self, key: str) -> Any:
        return self._values[key]

    def __getattr__(self, key: str) -> Any:  # only the fixed keys of compat_stats; anything else raises
        values = self.__dict__.get("_values", {})
        if key in values:
            return values[key]
        raise AttributeError(f"benchmark.stats has no {key!r}; it has: {', '.join(sorted(values))}")

    def as_dict(self) -> dict[str, Any]:
        return dict(self._values)


# ==================================================================================================
# The session
# ==================================================================================================

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
        self.against_pairs: int = getattr(opt, "mf_against_pairs", None) or DEFAULT_PAIRS
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
        if self.disable:
            raise pytest.UsageError("--mf-against measures; --mf-disable times nothing: drop one of them")
        if self.worker is None:
            try:
                validate_ref(ref, Path(self.config.rootpath))
            except WorktreeError as exc:
                raise pytest.UsageError(f"--mf-against: {exc}") from exc
        self.against = Outcome(ref, self.against_pairs)
        self.baseline = AgainstBaseline(ref)  # type: ignore[assignment]

    def run_against(self, items: Sequence[pytest.Item]) -> None:
        """``--mf-against``: measure the suite's benchmarks in both trees before the run goes on (the
        run's own calls of the measuring tests then time nothing)."""
        if self.against_ref is None or self.worker is not None or self.against is None:
            return
        driver = Driver(self, self.against_ref, self.against_pairs)
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

    def is_measuring_test(self, item: pytest.Item) -> bool:
        names = getattr(item, "fixturenames", ())
        return ("measure" in names or (self.compat and "benchmark" in names)
                or item.get_closest_marker("measurefirst") is not None)

    def select(self, items: list[pytest.Item]) -> None:
        """``--mf-only`` skips the tests that do not measure; ``--mf-skip`` those that do (``--mf-only``
        wins when both are given, as ``--benchmark-only`` does). ``--mf-*`` options without ``--mf`` on
        tests that use pytest-benchmark's ``benchmark`` fixture are an error: pytest-benchmark times those,
        so the options would silently not apply (a gate that never closes)."""
        self._check_benchmark_without_mf(items)
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

    def _check_benchmark_without_mf(self, items: list[pytest.Item]) -> None:
        if self.compat or not self.explicit:
            return
        module = self.config.pluginmanager.get_plugin("benchmark")
        if module is None or getattr(module, "__name__", "") != "pytest_benchmark.plugin":
            return  # pytest-benchmark is absent or blocked: nothing else times the `benchmark` fixture
        given = [flag for dest, flag in MF_OPTIONS if getattr(self.config.option, dest, None) not in (None, False)]
        users = [item.nodeid for item in items if "benchmark" in getattr(item, "fixturenames", ())]
        if given and users:
            raise pytest.UsageError(words.benchmark_without_mf(given, users, self.lang))

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
            return _empty_measurement(name, str(opts.get("device", "auto")), "disabled", precision)
        split = pedantic_split(int(opts["trials"])) if mode == "pedantic" and opts.get("trials") else []
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
            m: Measurement = _repeated(lambda o: benchmark(sim_fn, label=name, device="cpu", timer=timer, **o),
                                       opts, split, real_clock=False)
        else:
            for _ in range(warmup_rounds):
                fn()
            m = _repeated(lambda o: benchmark(fn, label=name, setup=setup, **o), opts, split,
                          real_clock=isinstance(opts.get("timer", "auto"), str))
        self.add(Record(name=name, nodeid=node.nodeid, module=node.nodeid.split("::")[0], label=label,
                        measurement=m, mode=mode, param=_node_params(node)[0], params=_node_params(node)[1]))
        return m

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
        return m if m is not None else _empty_measurement(name, str(opts.get("device", "auto")), "aborted", precision)

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
            labels = tuple(lab for lab, _ in candidates)
            empty = tuple(_empty_measurement(f"{prefix}::{lab}", str(opts.get("device", "auto")), "disabled", precision)
                          for lab in labels)
            verdicts = tuple(Verdict(lab, base, math.nan, None, "baseline" if lab == base else "undecided",
                                     None, 0) for lab in labels)
            return ComparisonResult(labels=labels, baseline=base, measurements=empty,
                                    block_values_ns=tuple(() for _ in labels), orders=(), verdicts=verdicts,
                                    stop=Stop("disabled", False, precision, 0.0), measured=False, lang=self.lang)
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
        result = ComparisonResult.of(c, self.lang)
        names = {lab: self.unique(f"{prefix}::{lab}") for lab in result.labels}
        index = len(self.comparisons)
        self.comparisons.append(ComparisonRecord(self.unique(prefix), node.nodeid, result))
        module = node.nodeid.split("::")[0]
        param, params = _node_params(node)
        for m in result.measurements:
            short = m.label
            renamed = replace(m, label=names[short])
            self.add(Record(name=names[short], nodeid=node.nodeid, module=module, label=short, measurement=renamed,
                            mode="compare", param=param, params=params, comparison=index))
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
                                   run_to_run=self.run_to_run)
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


def _marker_group(node: Any) -> str | None:
    for name in ("measurefirst", "benchmark"):
        marker = node.get_closest_marker(name)
        if marker is not None and marker.kwargs.get("group") is not None:
            return str(marker.kwargs["group"])
    return None


def _keys(node: Any) -> list[str | None]:
    """The names a simulated cost can be given under, after the label and the function's name."""
    return [node.name, getattr(node, "originalname", None), node.nodeid]


# ==================================================================================================
# The fixtures
# ==================================================================================================

class MeasureFixture:
    """The ``measure`` fixture: ``measure(fn)`` returns a Measurement; ``measure.compare({...})`` a
    :class:`ComparisonResult`. ``measure.group`` and ``measure.extra_info`` may be set in the test;
    ``measure.device`` is the device measured on (to build the inputs on); ``measure.enabled`` is False
    when nothing is timed (``--mf-disable``, pytest-xdist workers)."""

    def __init__(self, session: MeasureSession, request: pytest.FixtureRequest) -> None:
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


class _Pedantic:
    """pytest-benchmark's ``pedantic`` calling convention: ``setup()`` may return ``(args, kwargs)``;
    ``teardown(*args, **kwargs)`` runs after each round (here: before the next round's setup, and
    after the last round), untimed."""

    def __init__(self, target: Callable[..., Any], args: Sequence[Any], kwargs: Mapping[str, Any] | None,
                 setup: Callable[[], Any] | None, teardown: Callable[..., Any] | None) -> None:
        self.target, self.setup_fn, self.teardown_fn = target, setup, teardown
        self.args: tuple[Any, ...] = tuple(args)
        self.kwargs: dict[str, Any] = dict(kwargs or {})
        self.has_args = bool(self.args or self.kwargs)
        self.result: Any = None
        self.pending = False

    def prepare(self) -> None:
        self.finish()
        if self.setup_fn is not None:
            maybe = self.setup_fn()
            if maybe:
                if self.has_args:
                    raise TypeError("Can't use `args` or `kwargs` if `setup` returns the arguments.")
                args, kwargs = maybe
                self.args, self.kwargs = tuple(args), dict(kwargs)
        self.pending = self.teardown_fn is not None

    def call(self) -> None:
        self.result = self.target(*self.args, **self.kwargs)

    def finish(self) -> None:
        if self.pending and self.teardown_fn is not None:
            self.pending = False
            self.teardown_fn(*self.args, **self.kwargs)


class BenchmarkFixture:
    """pytest-benchmark's ``benchmark`` fixture, measured by measurefirst (``--mf``).

    ``benchmark(fn, *args, **kwargs)`` measures adaptively and returns ``fn(*args, **kwargs)``;
    ``benchmark.pedantic(target, args=, kwargs=, setup=, teardown=, rounds=, warmup_rounds=,
    iterations=)`` takes exactly the rounds and iterations given. ``group``, ``extra_info``,
    ``name``, ``fullname``, ``param``, ``params`` and (after the call) ``stats`` are pytest-benchmark's;
    ``measurement`` is measurefirst's Measurement."""

    def __init__(self, session: MeasureSession, request: pytest.FixtureRequest) -> None:
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

    def __init__(self, session: MeasureSession) -> None:
        self.session = session

    @pytest.fixture
    def benchmark(self, request: pytest.FixtureRequest) -> BenchmarkFixture:
        return self.session.benchmark_fixture(request)

    @pytest.fixture
    def benchmark_weave(self, request: pytest.FixtureRequest) -> Callable[..., None]:
        return self.session.benchmark_fixture(request).weave
