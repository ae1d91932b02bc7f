"""Result loading raises ValueError (its documented contract) for every malformed input, and the
regression check refuses thresholds and pairings that would pass silently (issue 13, items 3, 9, 12)."""

import json
import math

import pytest

import measurefirst
from measurefirst.results.regression_checks import change, match
from measurefirst.results.loading import load_measurements
from measurefirst.results.kinds import Measurement
from measurefirst.measure.simulate import SimWorld


@pytest.fixture(scope="module")
def m():
    w = SimWorld(call_ns=10_000.0, timer_ns=50.0, preempt_prob=0.1, preempt_ns=1e5, seed=3)
    return measurefirst.benchmark(w.function(), timer=w.timer(), device="cpu", min_time=0.0, warmup_min_time=0.0,
                                  repeats=1)


def _with(m, **changes):
    d = m.to_dict()
    for key, value in changes.items():
        if value is KeyError:
            del d[key]
        else:
            d[key] = value
    return json.dumps(d)


@pytest.mark.parametrize("changes, needle", [
    (dict(label=KeyError), "label"),  # was KeyError
    (dict(samples_ns=KeyError), "samples_ns"),
    (dict(stop=KeyError), "stop"),  # was TypeError
    (dict(samples_ns="12"), "samples_ns"),
    (dict(samples_ns=[1.0, "2"]), r"samples_ns\[1\]"),
    (dict(samples_ns=[-1.0]), ">= 0"),
    (dict(numbers=[0]), r"numbers\[0\] must be >= 1"),
    (dict(numbers=[1.5]), "integer"),
    (dict(schema_version=0), "schema_version 0"),  # was KeyError
    (dict(schema_version=-1), "schema_version -1"),
    (dict(schema_version=True), "schema_version"),
    (dict(schema_version="1"), "schema_version"),
    (dict(schema_version=99), "upgrade"),
    (dict(preempted=[0]), "preempted has 1 entries"),  # was accepted, then IndexError on use
    (dict(host_ns=[1.0]), "host_ns has 1 entries"),
    (dict(warmup={"cold_ns": "x"}), "warmup"),  # was TypeError
    (dict(warmup=[1]), "warmup must be an object"),
    (dict(calibration={"number": 0}), "calibration.number"),
    (dict(stop={"reason": "budget"}), "target_met"),  # was TypeError
    (dict(options=[1]), "options must be an object"),
    (dict(complete="yes"), "complete"),
    (dict(label=5), "label must be a string"),
])
def test_from_json_raises_value_error_naming_the_field(m, changes, needle):
    with pytest.raises(ValueError, match=needle):
        Measurement.from_json(_with(m, **changes))


@pytest.mark.parametrize("text", ["", "[", "[" * 100_000 + "]" * 100_000, '{"kind": "measurement"}', "1" * 5000,
                                  b"\xff\xfe{}", '{"kind": "measurement", "schema_version": 1e999}'])
def test_from_json_of_garbage_is_value_error(text):
    with pytest.raises(ValueError):
        Measurement.from_json(text)


@pytest.mark.parametrize("old", [[{"message": "no code"}], [{"code": "x", "severity": "fatal"}], "x",
                                 [{"code": "cold_call", "message": "old words", "fix": "old fix"}]])
def test_stored_warnings_of_old_files_are_ignored_and_findings_derived_anew(m, old):
    back = Measurement.from_json(_with(m, warnings=old))
    assert back == m and back.findings == m.findings and [f.code for f in m.findings] == ["few_samples", "preempted"]
    assert back.warnings == back.findings  # the deprecated name


def test_a_valid_measurement_round_trips(m):
    back = Measurement.from_json(m.to_json())
    assert back == m and back.n_preempted == m.n_preempted and back.median == m.median


def test_documents_of_other_kinds_are_named(m):
    with pytest.raises(ValueError, match="no \"kind\""):
        load_measurements({"kind": "profile", "schema_version": 1})
    with pytest.raises(ValueError, match=r"results\[1\] is a number"):
        load_measurements([m.to_dict(), 5])
    with pytest.raises(ValueError, match="measurements must be a list"):
        load_measurements({"kind": "comparison", "schema_version": 1, "measurements": None})
    with pytest.raises(ValueError, match="sweep.points"):
        load_measurements({"kind": "sweep", "schema_version": 1, "labels": [], "sizes": [], "reference": 1,
                           "device": "cpu", "points": 3})


# ---- item 3: the regression gate cannot pass silently ----------------------------------------------------------
def test_threshold_must_be_a_finite_fraction(m):
    slow = Measurement.from_dict({**m.to_dict(), "samples_ns": [2 * x for x in m.samples_ns]})
    assert change(m, slow, threshold=0.05).regression
    for bad in (math.nan, math.inf, -0.1, "5%"):
        with pytest.raises(ValueError, match="threshold"):
            change(m, slow, threshold=bad)  # was: nan passed a 2x slowdown


def test_duplicate_labels_cannot_be_matched(m):
    with pytest.raises(ValueError, match="labelled 'lambda'|labelled"):
        match([m, m], [m])  # was: collapsed to one
