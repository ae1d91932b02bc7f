"""What the plugin's options and a test's markers may say: the defaults of a measurement, the keywords of
``@pytest.mark.measurefirst`` and pytest-benchmark's ``@pytest.mark.benchmark``, the pytest-benchmark options
that ``--mf`` does not honour; and what pytest says of the run and of a test: the pytest-xdist worker it
runs in, a test node's parameters, its group and its names."""

from __future__ import annotations

import os
from typing import Any

import pytest

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


def mf_options_on_benchmark_fixture(config: pytest.Config, items: list[pytest.Item]) -> tuple[list[str], list[str]]:
    """The ``--mf-*`` options given (:data:`MF_OPTIONS`) and the tests that use the ``benchmark`` fixture, where
    pytest-benchmark times that fixture (it is installed and not blocked) so that the options would not apply to
    them; two empty lists where it does not."""
    module = config.pluginmanager.get_plugin("benchmark")
    if module is None or getattr(module, "__name__", "") != "pytest_benchmark.plugin":
        return [], []  # pytest-benchmark is absent or blocked: nothing else times the `benchmark` fixture
    given = [flag for dest, flag in MF_OPTIONS if getattr(config.option, dest, None) not in (None, False)]
    return given, [item.nodeid for item in items if "benchmark" in getattr(item, "fixturenames", ())]


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


def _marker_group(node: Any) -> str | None:
    for name in ("measurefirst", "benchmark"):
        marker = node.get_closest_marker(name)
        if marker is not None and marker.kwargs.get("group") is not None:
            return str(marker.kwargs["group"])
    return None


def _keys(node: Any) -> list[str | None]:
    """The names a simulated cost can be given under, after the label and the function's name."""
    return [node.name, getattr(node, "originalname", None), node.nodeid]
