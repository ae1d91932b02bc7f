"""The gate's reasons say what their own figures show (issue 35): a value printed beside its limit is
visibly beyond it, nothing unbounded prints as "n/a", and no sentence calls a value "far" from its
limit when it is not."""

from __future__ import annotations

import math

import pytest

from measurefirst.render.words import percents_apart, undecided_words
from measurefirst.results.regression import Change, Disturbance


def _undecided(*disturbed: Disturbance, threshold: float = 0.05) -> Change:
    return Change("f", 1.0, 1.0, 1.0, math.nan, math.nan, False, False, threshold=threshold, disturbed=disturbed)


def test_a_value_just_beyond_its_limit_prints_beyond_it():
    assert percents_apart(0.0501, 0.05) == ("5.01%", "5.00%")
    assert percents_apart(0.0500004, 0.05) == ("5.000%", "5.000%")  # three decimals at most
    assert percents_apart(0.12, 0.05) == ("12.0%", "5.0%")
    for lang in ("en", "zh"):
        text = undecided_words(_undecided(Disturbance("base", "imprecise", 0.0501, 0.05)), lang)
        assert "5.01%" in text and "5.00%" in text and "far" not in text and "远未" not in text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_unbounded_reasons_say_what_is_known_not_n_a(lang: str):
    for d in (Disturbance("new", "imprecise", math.inf, 0.05), Disturbance("pair", "interleaved", math.inf, 0.0),
              Disturbance("pair", "interleaved", 0.04, 0.0)):
        text = undecided_words(_undecided(d), lang)
        assert "n/a" not in text and "inf" not in text and "nan" not in text, text
    assert "too few samples" in undecided_words(_undecided(Disturbance("new", "imprecise", math.inf, 0.05)), "en")
    assert "no number of worker pairs" in undecided_words(_undecided(Disturbance("pair", "interleaved", 0.04, 0.0)),
                                                          "en")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_change_without_a_bounded_interval_is_not_within_noise(lang: str):
    from measurefirst.render.words import change_words, ratio_cell

    for lo, hi in ((0.0, math.inf), (math.nan, math.nan), (0.5, math.inf)):
        c = Change("f", 1.0, 5.687, 5.687, lo, hi, False, False)
        words, cell = change_words(c, lang), ratio_cell(c, lang)
        assert "5.687" in words and "468.7" in words and "noise" not in words and "噪声" not in words
        assert "inf" not in words + cell and "0.000" not in cell and "nan" not in words + cell
    c = Change("f", 1.0, 1.2, 1.2, 1.19, 1.21, False, False)
    assert ratio_cell(c, lang) == "1.200x (1.190–1.210)"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_spread_notes_of_different_sources_say_which_benchmarks_they_are_about(lang: str):
    from measurefirst.render.gate import spread_lines

    def c(label: str, spreads: tuple[float, float], sources: tuple[str, str]) -> Change:
        return Change(label, 1.0, 1.0, 1.0, 0.9, 1.1, False, False, run_to_run=max(spreads),
                      run_to_run_spreads=spreads, run_to_run_sources=sources)

    prior = c("test_add", (0.001, 0.001), ("prior", "prior"))
    measured = [c(f"test_mm{i}", (0.004, 0.606), ("repeats", "repeats")) for i in range(5)]
    lines = spread_lines([prior, *measured], lang)
    assert len(lines) == 2
    assert any("test_add" in x and "test_mm" not in x for x in lines)
    assert any("test_mm0" in x and ("2 more" in x or "另外 2 项" in x) and "test_add" not in x for x in lines)
    assert all("test_" not in x for x in spread_lines(measured, lang))  # one source: nothing to tell apart


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_brief_reasons_keep_the_facts_and_leave_the_fixes_to_verbose(lang: str):
    c = _undecided(Disturbance("base", "preempted", 0.6, 0.5), Disturbance("new", "spread", 0.2, 0.05))
    full, brief = undecided_words(c, lang), undecided_words(c, lang, brief=True)
    assert len(brief) < 0.6 * len(full)
    assert "60.0%" in brief and "20.0%" in brief  # each side's fact, with its figure
    assert ("re-run" not in brief and "taskset" not in brief) if lang == "en" else "重跑" not in brief
