"""One result protocol: every kind has a kind, its own version, to_dict/from_dict/to_json, complete and
findings; a stored dict round-trips exactly; an old version migrates; a newer one says to upgrade."""

from __future__ import annotations

import json

import pytest

import measurefirst
import report_kinds as rk
from measurefirst.results.protocol import KINDS, MIGRATIONS, UNVERSIONED, Result, from_dict, migrate, result_class
from measurefirst.tools.regression import Change, Regression
from measurefirst.tools.step import StepComparison
from measurefirst.results.store import Store


def _every(tmp_path) -> dict[str, object]:
    """One result of every kind in :data:`measurefirst.results.protocol.KINDS`."""
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


@pytest.mark.parametrize("kind", sorted(UNVERSIONED))
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


def test_version_1_change_flags_in_words_load_as_codes_with_their_values():
    """Version 1 of a regression check (and of a pytest run) wrote a change's flags in English words: the known
    ones load as codes with their two values, and read the same; any other text stays as it is."""
    words = ["different devices: NVIDIA A100 vs NVIDIA H100", "different machines: a vs b",
             "different counters: callgrind vs perf (counts differ between them)", "different torch: 2.4 vs 2.5",
             "incomplete run", "a flag from elsewhere"]
    change = {"label": "mm", "base_median": 1.0, "new_median": 1.2, "ratio": 1.2, "ci_low": 1.1, "ci_high": 1.3,
              "regression": True, "improvement": False, "flags": words, "unit": "seconds", "threshold": 0.05}
    r = from_dict({"kind": "regression", "schema_version": 1, "base": "a", "new": "b", "changes": [change]})
    assert isinstance(r, Regression) and r.to_dict()["schema_version"] == 5
    c = r.changes[0]
    assert c.flags == ("devices", "machines", "counters", "torch", "incomplete", "a flag from elsewhere")
    assert c.flag_values == {"devices": ("NVIDIA A100", "NVIDIA H100"), "machines": ("a", "b"),
                             "counters": ("callgrind", "perf"), "torch": ("2.4", "2.5")}
    from measurefirst.render.tables import regression_lines

    assert regression_lines(r) == [f"note: mm: {w}" for w in words]
    assert regression_lines(r, "zh") == ["说明：mm：设备不同：NVIDIA A100 与 NVIDIA H100", "说明：mm：机器不同：a 与 b",
                                         "说明：mm：计数器不同：callgrind 与 perf（两者的计数不可比）",
                                         "说明：mm：torch 版本不同：2.4 与 2.5", "说明：mm：运行未完成",
                                         "说明：mm：a flag from elsewhere"]
    assert Change.from_dict(json.loads(json.dumps(r.to_dict()["changes"][0]))) == c


def test_version_1_pytest_run_flags_load_as_codes(every):
    d = every["pytest_run"].to_dict()
    assert any(b["change"] for b in d["benchmarks"])
    old = {**d, "schema_version": 1, "benchmarks": [
        {**b, "change": b["change"] and {**b["change"], "flags": ["different machines: a vs b"], "flag_values": None}}
        for b in d["benchmarks"]]}
    run = from_dict(json.loads(json.dumps(old)))
    changes = [b.change for b in run.benchmarks if b.change is not None]
    assert changes and all(c.flags == ("machines",) and c.flag_values == {"machines": ("a", "b")} for c in changes)
