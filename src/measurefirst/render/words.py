"""The words shown to people, in English and Chinese: the languages (:data:`LANGS`), the one format of a
word table (:data:`Words`: a key and its text in each language), and the table of the HTML report, the text
renderers, the command line's status lines and help, the selfcheck and the pytest plugin (:data:`WORDS`).

Results carry codes and numbers; the sentences a person reads are in tables of this one format: here (one
module of words per concept beside this one, ``words_report``, ``words_lines``..., merged), a finding's in
:mod:`measurefirst.render.findings`, the lecture's in :mod:`measurefirst.lecture.narration`.
Numbers, units, labels and user text are never translated; a value read from a file is data, filled into
a text, never used as one.
"""

from __future__ import annotations

import locale
import math
import os
import re
from typing import TYPE_CHECKING, Any

from .words_changes import CHANGE_WORDS
from .words_cli import CLI_WORDS
from .words_cli_help import CLI_HELP_WORDS
from .words_cli_help_more import CLI_HELP_MORE_WORDS
from .words_lines import LINE_WORDS
from .words_noise import NOISE_WORDS
from .words_pytest import PYTEST_WORDS
from .words_report import REPORT_WORDS
from .words_selfcheck import SELFCHECK_WORDS

if TYPE_CHECKING:  # pragma: no cover
    from ..results.comparison import Verdict
    from ..results.regression import Change

#: The languages every word is written in; the first is the default and the fallback.
LANGS = ("en", "zh")
#: The report's colour themes (``measurefirst report --theme``); the first is the default: the system's choice.
THEMES = ("auto", "light", "dark")

#: A table of words: key -> its text in each language, in the order of :data:`LANGS`. Values in braces are
#: filled with ``str.format`` (a finding's words, with the findings' own formatter).
Words = dict[str, tuple[str, str]]

#: Every word of the report, the text renderers, the command line, the selfcheck and the pytest plugin: the
#: tables by concept of the ``words_*`` modules beside this one, each in the one format of :data:`Words`.
WORDS: Words = {**REPORT_WORDS, **LINE_WORDS, **CHANGE_WORDS, **PYTEST_WORDS, **CLI_WORDS, **NOISE_WORDS,
                **SELFCHECK_WORDS, **CLI_HELP_WORDS, **CLI_HELP_MORE_WORDS}


def text(table: Words, key: str, lang: str) -> str:
    """``table[key]`` in ``lang`` (in the first language for one the table does not have), unformatted."""
    return table[key][LANGS.index(lang) if lang in LANGS else 0]


def word(key: str, lang: str, **values: Any) -> str:
    """The words for ``key`` in ``lang`` (English for another language), formatted."""
    if key not in WORDS:  # not ours (a code read from a file): data, never a format string; escaped where shown
        return key
    template = text(WORDS, key, lang)
    return template.format(**values) if values else template


def code_word(prefix: str, code: str, lang: str, **values: Any) -> str:
    """The word for a code (a stopping reason, a profile view...): ``WORDS[prefix + code]`` in ``lang``
    (formatted with ``values``), or the code itself when the vocabulary lacks it (a code from a newer file)."""
    return word(prefix + code, lang, **values) if prefix + code in WORDS else code


def codes_words(prefix: str, codes: str, lang: str, **values: Any) -> str:
    """Codes joined by ``+`` (a warm-up rule ``fixed+cut``, a calibration reason ``adaptive+capped``) in words,
    each ``WORDS[prefix + code]``; text that is not all codes of the vocabulary (the words an older file
    carried) as it is."""
    parts = codes.split("+")
    if not all(prefix + p in WORDS for p in parts):
        return codes
    return word("list_sep", lang).join(word(prefix + p, lang, **values) for p in parts)


def default_lang() -> str:
    """Chinese when the locale says so (LC_ALL, LC_MESSAGES, LANG, or the system locale), else English."""
    for var in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = os.environ.get(var, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    try:
        loc = locale.getlocale()[0] or ""
    except ValueError:
        loc = ""
    return "zh" if loc.lower().startswith("zh") else "en"


def verdict_words(v: "Verdict", lang: str) -> str:
    """A comparison verdict in words: ``2.3x faster``, ``1.8% slower``, ``no difference detected (±0.4%)``."""
    if v.verdict == "baseline":
        return word("baseline", lang)
    if v.verdict == "undecided":
        return word("v_undecided_drift" if v.reason == "drift" else "v_undecided", lang, n=v.rounds)
    if v.verdict == "no difference":
        if v.detectable is None or not math.isfinite(v.detectable):
            return word("v_same", lang)
        return word("v_same_detect", lang, d=f"{v.detectable:.1%}")
    if v.verdict == "faster":
        s = v.speedup
        return word("v_faster_x", lang, x=f"{s:.2f}") if s >= 1.5 else word("v_faster_pct", lang, p=f"{(s - 1) * 100:.1f}")
    r = v.ratio
    return word("v_slower_x", lang, x=f"{r:.2f}") if r >= 1.5 else word("v_slower_pct", lang, p=f"{(r - 1) * 100:.1f}")


def flag_words(c: "Change", flag: str, lang: str) -> str:
    """What makes a change doubtful, in words: ``different machines: a vs b`` (a flag written as words by an
    older measurefirst, as it is)."""
    if flag in c.flag_values:
        base, new = c.flag_values[flag]
        if "flag_" + flag not in WORDS:
            return word("flag_other", lang, flag=flag, base=base, new=new)
        return word("flag_" + flag, lang, base=base, new=new)
    return code_word("flag_", flag, lang)


def ratio_ci_words(v: "Verdict", lang: str) -> str:
    """A verdict's time ratio with its 95% CI, then ``, ``: ``time ratio 0.4210 (95% CI 0.4100–0.4300), ``."""
    if v.ratio_ci is None:
        return word("ci_na", lang)
    return word("ratio_ci_words", lang, ratio=f"{v.ratio:.4f}", lo=f"{v.ratio_ci[0]:.4f}", hi=f"{v.ratio_ci[1]:.4f}")


def bounded(c: "Change") -> bool:
    """Whether a change's interval bounds the ratio on both sides (finite, above 0): else no interval is
    shown, and no sentence calls the change "within noise" by it."""
    return 0 < c.ci_low <= c.ci_high < math.inf


def change_words(c: "Change", lang: str) -> str:
    """A saved-result change in words: ``12.0% slower (ratio 1.120, 95% CI 1.110–1.130)``; without a
    bounded interval, ``12.0% slower by the medians (ratio 1.120; no interval bounds it)``."""
    pct = (c.ratio - 1) * 100
    if c.unit != "seconds":
        direction = word("more_unit" if pct > 0 else "fewer_unit", lang, unit=c.unit)
    else:
        direction = word("reg_slower" if pct > 0 else "reg_faster", lang)
    if not bounded(c):
        return word("change_words_unbounded", lang, pct=f"{abs(pct):.1f}", direction=direction, ratio=f"{c.ratio:.3f}")
    sig = "" if (c.ci_low > 1 or c.ci_high < 1) else word("within_noise", lang)
    return word("change_words", lang, pct=f"{abs(pct):.1f}", direction=direction, sig=sig, ratio=f"{c.ratio:.3f}",
                lo=f"{c.ci_low:.3f}", hi=f"{c.ci_high:.3f}", level=f"{c.ci_level * 100:g}")


def ratio_cell(c: "Change", lang: str) -> str:
    """Compact: ``1.200x (1.190–1.210)``, the ratio new/base and its 95% CI (another level named:
    ``(1.190–1.210; 97.5%)``); ``1.200x (no interval)`` when none bounds it."""
    if not bounded(c):
        return word("ratio_cell_unbounded", lang, ratio=f"{c.ratio:.3f}")
    level = "" if c.ci_level == 0.95 else f"; {c.ci_level * 100:g}%"
    return f"{c.ratio:.3f}x ({c.ci_low:.3f}–{c.ci_high:.3f}{level})"


def undecided_words(c: "Change", lang: str, *, brief: bool = False) -> str:
    """Why a change is undecided, each disturbed side with its fix, in one line (empty when decided);
    ``brief``: each reason's fact without its fix (what follows the first semicolon)."""
    parts = _undecided_parts(c, lang)
    if brief:
        parts = [re.split("[;；]", part, maxsplit=1)[0] for part in parts]
    return word("undecided_sep", lang).join(parts)


def _undecided_parts(c: "Change", lang: str) -> list[str]:
    parts = []
    for d in c.disturbed:
        side = word(f"side_{d.side}", lang)
        if not (math.isfinite(d.value) and math.isfinite(d.limit)):  # nothing bounded it: no figure to show
            parts.append(word("undecided_unbounded", lang, side=side))
            continue
        high = max(d.value, c.threshold)
        value, limit = percents_apart(d.value, d.limit)
        if d.code == "interleaved" and d.limit <= 0:  # the estimate sits on a line: no length of run decides it
            parts.append(word("undecided_on_line", lang, side=side, value=value))
            continue
        parts.append(word(f"undecided_{d.code}", lang, side=side, value=value, limit=limit,
                          suggest=f"{math.ceil(high * 100 + 1) / 100:.0%}",
                          longer=f"{(d.value / d.limit) ** 2:.1f}x" if d.limit > 0 else ""))
    return parts


def percents_apart(value: float, limit: float) -> tuple[str, str]:
    """``value`` and ``limit`` as percentages with one decimal, or more (up to three) when one decimal would
    print two different numbers the same ("±5.0% ... (±5.0%)")."""
    for digits in (1, 2, 3):
        a, b = f"{value:.{digits}%}", f"{limit:.{digits}%}"
        if a != b or value == limit:
            return a, b
    return a, b
