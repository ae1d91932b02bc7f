"""Words for a Diagnosis: each finding with its evidence, why it matters and the fix."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..results.diagnosis import SKIP_INTERRUPTED
from .findings import finding_words
from .text import measurement_summary, plain
from .words import code_word, word

if TYPE_CHECKING:  # pragma: no cover
    from ..results.diagnosis import Diagnosis

_MARK = {"error": "✗", "warning": "!", "info": "·"}


def skip_words(reason: str, lang: str = "en") -> str:
    """Why a check did not run, in words (a reason written as words by an older measurefirst, as it is)."""
    return code_word("skip_", reason, lang)


def diagnosis_lines(d: "Diagnosis", lang: str = "en") -> list[str]:
    lines = [word("doctor_head", lang, label=d.label, device=d.device)]
    if d.measurement is not None:
        lines.append(word("doctor_time_line", lang, summary=measurement_summary(d.measurement, lang)))
    if d.error:
        lines.append(word("doctor_failed", lang, error=d.error))
    order = {"error": 0, "warning": 1, "info": 2}
    for f in sorted(d.findings, key=lambda f: order.get(f.severity, 3)):
        w = finding_words(f, lang)
        mark = _MARK.get(f.severity)
        lines.append(f"  {w.severity if mark is None else mark + ' ' + w.severity} [{f.code}] {w.message}")
        if w.why:
            lines.append(word("why_line", lang, why=w.why))
        if w.fix:
            lines.append(word("fix_line", lang, fix=w.fix))
    lines.append(word("checks_line", lang, checks=word("list_comma", lang).join(d.checks) or word("none", lang)))
    for check, why in d.skipped.items():
        lines.append(word("not_run_line", lang, check=check, why=skip_words(why, lang)))
    n_warn = len(d.warnings)
    verdict = word("doctor_ok", lang) if n_warn == 0 else word("doctor_warnings", lang, n=n_warn)
    if SKIP_INTERRUPTED in d.skipped.values():  # no bare "no warnings" for checks that never ran
        verdict = word("doctor_stopped", lang, verdict=verdict)
    lines.append(word("verdict_line", lang, verdict=verdict))
    return [plain(line) for line in lines]
