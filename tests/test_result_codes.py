"""Results store codes, not English: a measurement's warm-up rule, calibration reason and CI method, and why a
size of a sweep failed, are codes rendered through the word table; files written with English words (a
version 2 measurement, a version 1 sweep) still load, their known words as codes."""

import json
from pathlib import Path

import pytest

from measurefirst import benchmark, load
from measurefirst.measure.simulate import SimSpec, SimWorld
from measurefirst.results.stats import CI_METHODS, summarize
from measurefirst.render.findings import with_words
from measurefirst.render.text import point_error, sweep_lines
from measurefirst.render.words import WORDS, codes_words
from measurefirst.results.kinds import CALIBRATION_REASONS, SCHEMA_VERSION, WARMUP_RULES, Measurement
from measurefirst.tools.sweep import ERROR_CODES, SweepResult, sweep

#: Five measurements written by measurefirst at schema version 2 (the commit before codes), on the simulated
#: clock: the specs and options below, one per label.
FIXTURE = Path(__file__).parent / "fixtures" / "measurements_v2.json"
#: A sweep written by measurefirst at schema version 1 (its measurements at version 2): sizes 32..512 on the
#: simulated clock, where 64 ran out of memory, 128 called sys.exit(3) and 256 raised a ValueError.
SWEEP_FIXTURE = Path(__file__).parent / "fixtures" / "sweep_v1.json"
RUNS = {
    "adaptive": (SimSpec(call_ns=10_000, timer_ns=50), dict(min_time=0.0, repeats=1, warmup_min_time=0.0)),
    "fixed": (SimSpec(call_ns=10_000, timer_ns=50), dict(warmup=3, trials=5)),
    "caller": (SimSpec(call_ns=10_000, timer_ns=50), dict(number=7, min_time=0.0, repeats=1, warmup_min_time=0.0)),
    "fixed_cut": (SimSpec(call_ns=100_000_000, timer_ns=50), dict(warmup=50, trials=5, budget=1.0)),
    "capped": (SimSpec(call_ns=10_000, timer_ns=1_000_000),
               dict(min_time=0.0, repeats=1, budget=0.5, precision=0.01, warmup_min_time=0.0)),
}
CODES = {"adaptive": ("steady", "adaptive"), "fixed": ("fixed", "fixed_mode"), "caller": ("steady", "caller"),
         "fixed_cut": ("fixed+cut", "fixed_mode"), "capped": ("steady", "adaptive+capped")}


def _stored() -> list[dict]:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


def _now(label: str) -> Measurement:
    spec, options = RUNS[label]
    world = SimWorld(spec)
    return benchmark(world.function(), timer=world.timer(), device="cpu", label=label, **options)


def test_the_fixture_is_version_2_with_english_words() -> None:
    stored = _stored()
    assert [d["label"] for d in stored] == list(RUNS) and {d["schema_version"] for d in stored} == {2}
    assert stored[0]["warmup"]["rule"].startswith("until steady: ")
    assert stored[4]["calibration"]["reason"].endswith("; capped so that one sample lasts at most 10% of the budget")


@pytest.mark.parametrize("label", list(RUNS))
def test_a_measurement_stores_codes_and_a_version_2_file_loads_them(label: str) -> None:
    """Today's run stores codes; the same run written by version 2 loads with the same codes, and
    everything else as it was stored."""
    now = _now(label)
    assert (now.warmup.rule, now.calibration.reason) == CODES[label]
    assert now.to_dict()["schema_version"] == SCHEMA_VERSION == 3
    old = next(d for d in _stored() if d["label"] == label)
    loaded = Measurement.from_dict(old)
    assert (loaded.warmup.rule, loaded.calibration.reason) == CODES[label]
    assert loaded.schema_version == SCHEMA_VERSION
    assert loaded.samples_ns == now.samples_ns and loaded.numbers == now.numbers and loaded.stop == now.stop
    assert loaded.warmup.times_ns == tuple(old["warmup"]["times_ns"])


def test_load_reads_the_version_2_file() -> None:
    loaded = load(FIXTURE)
    assert isinstance(loaded, list)
    assert [(m.warmup.rule, m.calibration.reason) for m in loaded] == list(CODES.values())


def test_old_words_of_another_form_stay_as_they_are_and_show_as_they_are() -> None:
    stored = _stored()[0]
    graph = dict(stored, calibration={**stored["calibration"], "reason": stored["calibration"]["reason"]
                                      + "; recalibrated on a timed graph replay" * 3})  # once per repetition
    assert Measurement.from_dict(graph).calibration.reason == "adaptive+graph"
    odd = "fixed by the caller; and then some"  # one part unknown: the whole text is kept
    other = dict(stored, warmup={**stored["warmup"], "rule": "warm-up of 2019"},
                 calibration={**stored["calibration"], "reason": odd})
    m = Measurement.from_dict(other)
    assert (m.warmup.rule, m.calibration.reason) == ("warm-up of 2019", odd)
    words = with_words(m.to_dict(), "zh")
    assert (words["warmup"]["rule_text"], words["calibration"]["reason_text"]) == ("warm-up of 2019", odd)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_json_with_words_renders_the_codes(lang: str) -> None:
    m = Measurement.from_dict(_stored()[4])
    words = with_words(m.to_dict(), lang)
    assert words["warmup"]["rule"] == "steady" and words["calibration"]["reason"] == "adaptive+capped"
    expected = {"en": ("until steady: until per-call time stopped falling, within a time cap",
                       "smallest count with overhead and resolution each under 0.10% of a sample; capped so that one "
                       "sample lasts a small share of the budget"),
                "zh": ("直到稳定：每次调用耗时不再下降为止，并有时间上限",
                       "使开销与分辨率各自低于样本 0.10% 的最小次数；设了上限，使一个样本只占预算的一小部分")}[lang]
    assert (words["warmup"]["rule_text"], words["calibration"]["reason_text"]) == expected
    assert codes_words("warmup_rule_", "fixed+cut", lang) == {
        "en": "a fixed count of warm-up calls; cut at the budget", "zh": "固定次数的预热调用；在预算处截断"}[lang]


def test_every_code_has_words() -> None:
    for prefix, codes in (("warmup_rule_", WARMUP_RULES + ("cut",)),
                          ("cal_reason_", CALIBRATION_REASONS + ("capped", "graph")),
                          ("ci_method_", CI_METHODS), ("sweep_error_", ERROR_CODES)):
        assert sorted(k for k in WORDS if k.startswith(prefix)) == sorted(prefix + c for c in codes)


def test_the_ci_method_is_a_code() -> None:
    assert summarize([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]).ci_method == "order_statistics"
    assert summarize([1.0]).ci_method in CI_METHODS


def _sweep_now() -> SweepResult:
    world = SimWorld(SimSpec(timer_ns=50, seed=1))

    def make(n: int):
        if n == 64:
            raise RuntimeError("CUDA out of memory. Tried to allocate 64.00 GiB")
        if n == 128:
            raise SystemExit(3)
        if n == 256:
            raise ValueError("shapes do not match")
        return world.function(20_000 + 0.01 * n**3)

    return sweep(make, [32, 64, 128, 256, 512], timer=world.timer(), min_time=0.0, warmup_min_time=0.0, label="v1")


def test_a_failed_size_stores_a_code_and_a_version_1_sweep_loads_it() -> None:
    stored = json.loads(SWEEP_FIXTURE.read_text(encoding="utf-8"))
    assert stored["schema_version"] == 1 and stored["points"][1]["error"].startswith("out of memory: ")
    old, now = SweepResult.from_dict(stored), _sweep_now()
    failures = [(p.n, p.error_code, p.error) for p in now.points if not p.ok]
    assert failures == [(64, "out_of_memory", "CUDA out of memory. Tried to allocate 64.00 GiB"), (128, "exit", "3"),
                        (256, None, "ValueError: shapes do not match")]
    assert [(p.n, p.error_code, p.error) for p in old.points if not p.ok] == failures
    assert old.to_dict()["schema_version"] == now.to_dict()["schema_version"] == 2
    assert [p.measurement.calibration.reason for p in old.points if p.ok] == ["adaptive"] * 2
    for lang in ("en", "zh"):
        assert sweep_lines(old, lang=lang) == sweep_lines(now, lang=lang)
    assert [point_error(p, "en") for p in old.points if not p.ok] == [
        "out of memory: CUDA out of memory. Tried to allocate 64.00 GiB", "the code called sys.exit(3)",
        "ValueError: shapes do not match"]


def test_a_sweep_error_of_another_form_is_shown_as_it_is() -> None:
    stored = json.loads(SWEEP_FIXTURE.read_text(encoding="utf-8"))
    stored["points"][1]["error"] = "ran out of patience"
    p = SweepResult.from_dict(stored).points[1]
    assert (p.error_code, point_error(p, "zh")) == (None, "ran out of patience")
    stored["points"][1]["error_code"] = "gone"  # a code from a newer measurefirst: its text as it is
    p = SweepResult.from_dict(stored).points[1]
    assert (p.error_code, point_error(p, "en")) == ("gone", "ran out of patience")
