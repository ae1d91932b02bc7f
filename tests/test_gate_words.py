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
