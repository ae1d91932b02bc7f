"""One result protocol: every kind has a kind, its own version, to_dict/from_dict/to_json, complete and
findings; a stored dict round-trips exactly; an old version migrates; a newer one says to upgrade."""

from __future__ import annotations

import json

import pytest

import measurefirst
import report_kinds as rk
from measurefirst.protocol import KINDS, MIGRATIONS, Result, from_dict, migrate, result_class
from measurefirst.step import StepComparison
from measurefirst.store import Store


def _every(tmp_path) -> dict[str, object]:
    """One result of every kind in :data:`measurefirst.protocol.KINDS`."""
    kinds = rk.every_kind(tmp_path)
    one = {k: (v[0] if isinstance(v, list) else v) for k, v in kinds.items() if k != "count_history"}
    one["step_comparison"] = StepComparison(tuple(rk.step_results()), rk.comparison())
    return one


@pytest.fixture(scope="module")
def every(tmp_path_factory):
    return _every(tmp_path_factory.mktemp("kinds"))


def test_every_kind_is_covered(every):
    assert sorted(every) == sorted(KINDS)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_kind_satisfies_the_protocol_and_round_trips_exactly(every, kind):
    r = every[kind]
    assert isinstance(r, Result) and r.kind == kind and type(r) is result_class(kind)
    assert isinstance(r.schema_version, int) and r.schema_version >= 1
    assert isinstance(r.complete, bool) and isinstance(r.findings, tuple)
    d = r.to_dict()
    assert d["kind"] == kind and d["schema_version"] == r.schema_version
    text = r.to_json()
    for stored in (d, json.loads(text)):  # as a dict, and through strict JSON (NaN written as null)
        back = from_dict(stored)
        # exact: every field survives (compared as parsed JSON, where a float 1.0 equals an int 1)
        assert type(back) is type(r) and json.loads(back.to_json()) == json.loads(text)


def test_step_comparison_of_old_step_json_migrates(every):
    """``measurefirst step --json`` wrote ``{"steps", "comparison"}`` with no kind and no version."""
    sc = every["step_comparison"]
    old = {"steps": [{k: v for k, v in s.to_dict().items() if k != "schema_version"} for s in sc.steps],
           "comparison": sc.comparison.to_dict()}
    back = from_dict(json.loads(json.dumps(old)))
    assert isinstance(back, StepComparison) and json.loads(back.to_json()) == json.loads(sc.to_json())


@pytest.mark.parametrize("kind", sorted(MIGRATIONS))
def test_dicts_written_before_their_kind_had_a_version_migrate(every, kind):
    current = every[kind].to_dict()
    old = {k: v for k, v in current.items() if k != "schema_version"}
    assert migrate(old, kind, current["schema_version"])["schema_version"] == current["schema_version"]
    if kind != "step_comparison":
        assert json.loads(from_dict(json.loads(json.dumps(old))).to_json()) == json.loads(every[kind].to_json())


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_newer_version_says_upgrade(every, kind):
    d = every[kind].to_dict()
    d["schema_version"] += 1
    with pytest.raises(ValueError, match=f"{kind} result has schema_version {d['schema_version']}, newer than "
                                         f"this measurefirst understands .*; upgrade measurefirst"):
        from_dict(d)


def test_migrations_run_one_version_at_a_time(monkeypatch):
    seen = []
    monkeypatch.setitem(MIGRATIONS, "toy", {1: lambda d: seen.append(1) or {**d, "a": 2, "schema_version": 2},
                                            2: lambda d: seen.append(2) or {**d, "b": d["a"] + 1, "schema_version": 3}})
    assert migrate({"schema_version": 1}, "toy", 3) == {"schema_version": 3, "a": 2, "b": 3}
    assert seen == [1, 2]
    with pytest.raises(ValueError, match="toy result has schema_version 0, which no measurefirst ever wrote"):
        migrate({"schema_version": 0}, "toy", 3)
    with pytest.raises(ValueError, match="toy result has no integer schema_version"):
        migrate({}, "toy", 3)


def test_load_dispatches_on_kind(every, tmp_path):
    path = tmp_path / "sweep.json"
    path.write_text(every["sweep"].to_json())
    loaded = measurefirst.load(path)
    assert type(loaded).__name__ == "SweepResult" and json.loads(loaded.to_json()) == json.loads(path.read_text())
    several = tmp_path / "two.json"
    several.write_text(json.dumps([every["diagnosis"].to_dict(), every["regression"].to_dict()]))
    assert [r.kind for r in measurefirst.load(several)] == ["diagnosis", "regression"]


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_store_keeps_every_kind(every, kind, tmp_path):
    r = every[kind]
    with Store(tmp_path / "r.db") as store:
        run_id = store.save(r, f"the-{kind}", commit="0" * 40)
        row, back = store.resolve(f"#{run_id}")
    assert row.kind == kind and json.loads(back.to_json()) == json.loads(r.to_json())


@pytest.mark.parametrize("text, words", [
    ("{", "invalid JSON"),
    ('{"kind": "nope"}', "has no \"kind\" measurefirst knows"),
    ('{"kind": "diagnosis", "schema_version": 99}', "upgrade measurefirst"),
    ("[]", "holds no results"),
])
def test_load_errors_name_the_file_and_the_fix(tmp_path, text, words):
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(measurefirst.LoadError, match=words) as info:
        measurefirst.load(path)
    assert isinstance(info.value, ValueError) and str(path) in str(info.value)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_damaged_dict_of_any_kind_is_a_value_error(every, kind):
    d = every[kind].to_dict()
    for key in [k for k in d if k not in ("kind", "schema_version")]:
        damaged = {k: v for k, v in d.items() if k != key}
        try:
            from_dict(damaged)
        except ValueError:
            pass  # the only exception a damaged file may raise (a missing optional field loads)
