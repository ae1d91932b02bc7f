import json

import pytest

from measurefirst import Measurement, benchmark
from measurefirst.results.kinds import SCHEMA_VERSION, migrate
from measurefirst.measure.simulate import SimSpec, SimWorld


def sim_measurement(**spec) -> Measurement:
    world = SimWorld(SimSpec(**{"call_ns": 10_000, "timer_ns": 50, "noise": 0.02, "seed": 2, **spec}))
    return benchmark(world.function(), timer=world.timer(), label="sim", min_time=0.0, warmup_min_time=0.0)


def test_json_round_trip_keeps_everything():
    m = sim_measurement(preempt_prob=0.05, preempt_ns=10_000)
    back = Measurement.from_json(m.to_json())
    assert back == m  # dataclass equality over every stored field
    assert back.median == m.median and back.ci == m.ci and back.n_used == m.n_used
    data = json.loads(m.to_json())
    assert data["schema_version"] == SCHEMA_VERSION and data["kind"] == "measurement"
    assert data["stats_seconds"]["median"] == pytest.approx(m.median)


def test_measurement_is_immutable():
    m = sim_measurement()
    with pytest.raises(AttributeError):
        m.label = "other"  # type: ignore[misc]


def test_newer_schema_is_refused_with_a_fix():
    d = sim_measurement().to_dict()
    d["schema_version"] = SCHEMA_VERSION + 1
    with pytest.raises(ValueError, match="upgrade measurefirst"):
        Measurement.from_dict(d)
    with pytest.raises(ValueError, match="schema_version"):
        migrate({"kind": "measurement"})


def test_corrupt_json_is_a_clear_error():
    with pytest.raises(ValueError, match="not a measurefirst"):
        Measurement.from_json("{not json")
    with pytest.raises(ValueError, match="kind"):
        Measurement.from_json('{"a": 1}')


def test_statistics_are_recomputed_from_raw_samples():
    m = sim_measurement()
    per_call = [s / n / 1e9 for s, n in zip(m.samples_ns, m.numbers)]
    import statistics

    assert m.median == pytest.approx(statistics.median(per_call))
    assert m.mean == pytest.approx(statistics.mean(per_call))
    assert m.min == min(per_call) and m.max == max(per_call)


def test_str_and_html():
    m = sim_measurement()
    text = str(m)
    assert text.startswith("sim: ") and "µs" in text and "95% CI" in text and "samples" in text
    html = m._repr_html_()
    assert "<table" in html and "sim" in html and "mf-report" in html
