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

The machinery, one concept a module: the options, the markers and what a test says of itself
(:mod:`.options`), the simulated clock (:mod:`.simulation`), the baseline of ``--mf-compare``
(:mod:`.baseline`), ``measure.compare``'s result (:mod:`.comparison`), pytest-benchmark's pedantic mode
(:mod:`.pedantic`) and statistics (:mod:`.stats`), the fixtures (:mod:`.fixtures`) and the session that
holds the run (:mod:`.session`); this module serves their names.
"""

from __future__ import annotations

from .baseline import Baseline as Baseline
from .comparison import ComparisonRecord as ComparisonRecord, ComparisonResult as ComparisonResult
from .fixtures import (BenchmarkFixture as BenchmarkFixture, BenchmarkFixtures as BenchmarkFixtures,
                       FixtureAlreadyUsed as FixtureAlreadyUsed, MeasureFixture as MeasureFixture)
from .options import (BENCHMARK_MARKER_OPTIONS as BENCHMARK_MARKER_OPTIONS, COMPARE_OPTIONS as COMPARE_OPTIONS,
                      DEFAULT_BUDGET as DEFAULT_BUDGET, MARKER_OPTIONS as MARKER_OPTIONS, MF_OPTIONS as MF_OPTIONS,
                      MIN_SAMPLES as MIN_SAMPLES, UNSUPPORTED_BENCHMARK_OPTIONS as UNSUPPORTED_BENCHMARK_OPTIONS,
                      XDIST_PROPERTY as XDIST_PROPERTY)
from .pedantic import (PEDANTIC_BUDGET_S as PEDANTIC_BUDGET_S, PEDANTIC_REPEAT_MIN_ROUNDS as PEDANTIC_REPEAT_MIN_ROUNDS,
                       merge_repetitions as merge_repetitions, pedantic_split as pedantic_split)
from .session import MeasureFirstWarning as MeasureFirstWarning, MeasureSession as MeasureSession
from .simulation import Simulation as Simulation
from .stats import CompatStats as CompatStats, compat_stats as compat_stats
