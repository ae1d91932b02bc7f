"""One result protocol: every kind has a kind, its own version, to_dict/from_dict/to_json, complete and
findings; a stored dict round-trips exactly; an old version migrates; a newer one says to upgrade."""

from __future__ import annotations

import json

import pytest

import measurefirst
import report_kinds as rk
from measurefirst.render import dispatch
from measurefirst.render.tables import history_lines
from measurefirst.render.text import measurement_line
from measurefirst.results.base import ResultBase
from measurefirst.results.protocol import (KINDS, MIGRATIONS, UNVERSIONED, Result, build, each, from_dict, migrate,
                                           result_class)
from measurefirst.results.safeio import DestinationError
from measurefirst.results.regression_checks import Change, Regression
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


#: What :class:`ResultBase` writes once for every kind.
SHELL = ("to_json", "from_json", "save", "__str__", "_repr_html_", "_repr_markdown_")


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kind_is_built_on_the_one_shell(every, kind, tmp_path):
    cls, r = result_class(kind), every[kind]
    assert isinstance(cls, type) and issubclass(cls, ResultBase)
    assert [name for name in SHELL if name in vars(cls)] == []  # no kind writes its own copy
    path = r.save(tmp_path / f"{kind}.json")
    assert path.read_text() == r.to_json() + "\n"
    assert cls.from_json(path.read_bytes()).to_json() == r.to_json() == measurefirst.load(path).to_json()
    assert r._repr_html_().startswith('<div class="mf-report mf-fragment"')
    # issue 37: Markdown where it serves (the CI summary's tables), nothing for the others (IPython skips None)
    md = r._repr_markdown_()
    if kind in ("pytest_run", "regression"):
        from measurefirst.render.markdown import markdown

        assert md == markdown([r]) and md.startswith("### ") and "---" in md.splitlines()[3]
    else:
        assert md is None
    with pytest.raises(ValueError, match=f'^not a measurefirst {kind} \\(missing "kind": "{kind}"\\)$'):
        cls.from_json('{"kind": "other"}')


def test_str_is_each_kinds_text_renderer_or_its_repr(every):
    assert str(every["measurement"]) == measurement_line(every["measurement"])
    assert str(every["history"]) == "\n".join(history_lines(every["history"]))
    without = set(KINDS) - set(dispatch.TEXT)
    assert without == {"rank_group", "pytest_run"} and set(dispatch.TEXT) <= set(KINDS)
    for kind in KINDS:
        shown = str(every[kind])
        assert (shown == repr(every[kind])) == (kind in without) and shown, kind


def test_save_to_a_path_that_cannot_be_written_says_why_and_leaves_nothing(every, tmp_path):
    (tmp_path / "taken").mkdir()
    with pytest.raises(DestinationError, match="^the measurement result path .*taken is a directory; give a file name"):
        every["measurement"].save(tmp_path / "taken")
    with pytest.raises(DestinationError):
        every["measurement"].save(tmp_path / "missing" / "m.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"] and not any((tmp_path / "taken").iterdir())


def test_build_reads_fields_with_their_own_reader():
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Pair:
        name: str
        sizes: tuple[int, ...]

    twice = each(lambda v, where: v * 2 if isinstance(v, int) else build(Pair, v, where))
    assert build(Pair, {"name": "a", "sizes": [1, 2]}, "pair", {"Pair": Pair}, read={"sizes": twice}) == Pair("a", (2, 4))
    with pytest.raises(ValueError, match=r"^pair.sizes must be a list; got 'x'$"):
        build(Pair, {"name": "a", "sizes": "x"}, "pair", read={"sizes": twice})
    with pytest.raises(ValueError, match=r"^pair.sizes\[1\] must be a JSON object; got 'y'$"):
        build(Pair, {"name": "a", "sizes": [1, "y"]}, "pair", read={"sizes": twice})


def _set(d, path, value):
    """A copy of the stored dict ``d`` with ``value`` at ``path`` (keys and list indices)."""
    d = json.loads(json.dumps(d))
    target = d
    for p in path[:-1]:
        target = target[p]
    target[path[-1]] = value
    return d


@pytest.mark.parametrize("kind, path, value, words", [
    ("rank_group", ("ranks",), "x", "^rank_group.ranks must be a list; got 'x'$"),
    ("rank_group", ("ranks", 0, "samples_ns"), "x", r"^rank_group.ranks\[0\].samples_ns must be a list of numbers"),
    ("rank_group", ("rank",), 7, "^rank_group result: rank 7 is not one of its 2 ranks$"),
    ("rank_group", ("summary", "medians"), ["a"], r"^rank_group.summary.medians\[0\] must be a number; got 'a'$"),
    ("rank_comparison", ("rank",), "0", "^rank_comparison.rank must be a whole number; got '0'$"),
    ("rank_comparison", ("comparisons",), None, "^rank_comparison.comparisons must be a list; got None$"),
    ("group_step", ("ranks", 1, "step_s"), "fast", r"^group_step.ranks\[1\].step_s must be a number; got 'fast'$"),
    ("group_step", ("steps",), 2.5, "^group_step.steps must be a whole number; got 2.5$"),
    ("group_history", ("runs", 0, "id"), "1", r"^group_history.runs\[0\].id must be a whole number; got '1'$"),
    ("group_history", ("runs", 1, "result"), 5, "^a result must be a JSON object; got int$"),
    ("saved_run", ("id",), None, "^saved_run.id must be a whole number; got None$"),
    ("history", ("runs", 0, "name"), 3, r"^history.runs\[0\].name must be text; got 3$"),
    ("step_comparison", ("steps",), {}, "^step_comparison.steps must be a list; got dict$"),
])
def test_every_kind_reads_through_build_with_one_line_errors(every, kind, path, value, words):
    with pytest.raises(ValueError, match=words):
        from_dict(_set(every[kind].to_dict(), path, value))


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


def test_each_part_of_a_result_is_shown_by_the_renderer_its_table_names(every):
    """``results.base.shown`` reaches every renderer through the one dispatch: each part's entry names a
    function that exists, and what a part shows is that function's text."""
    import importlib

    from measurefirst.render.text import measurement_repr
    from measurefirst.render.words import verdict_words

    assert not set(dispatch.PARTS) & set(dispatch.TEXT)
    for part, (module, function, _) in dispatch.PARTS.items():
        assert callable(getattr(importlib.import_module(f"measurefirst.render.{module}"), function)), part
    m, c = every["measurement"], every["comparison"]
    assert repr(m) == measurement_repr(m) and repr(m).startswith(f"<Measurement {m.label!r}: median ")
    v = next(v for v in c.verdicts if v.verdict != "baseline")
    assert v.words() == verdict_words(v, "en") and v.words()
