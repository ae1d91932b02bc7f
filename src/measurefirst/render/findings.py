"""The words of every finding, in English and Chinese: a title, the message (formatted from the
finding's value, threshold and context), why it matters, and the fix.

A :class:`~measurefirst.results.findings.Finding` is data only; this module is the one place that turns it
into sentences, for text, HTML, JSON-with-text, the CLI, doctor, step, the lecture and the pytest
report. The words are :data:`FINDING_WORDS`, a table of the one format of
:data:`measurefirst.render.words.Words` merged from one module per concept beside this one
(``findings_measurement``, ``findings_doctor``...); a part may have variants (``message.cpu``), chosen by
:data:`_VARIANTS` from the finding's context.
"""

from __future__ import annotations

import math
import re
import string
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from ..results.findings import Finding
from .findings_doctor import DOCTOR_FINDING_WORDS
from .findings_fits import FIT_FINDING_WORDS
from .findings_measurement import MEASUREMENT_FINDING_WORDS
from .findings_ranks import RANK_FINDING_WORDS
from .findings_selfcheck import SELFCHECK_FINDING_WORDS
from .findings_step import STEP_FINDING_WORDS
from .text_format import format_relative
from .words import Words, code_word, codes_words, text, word

PARTS = ("title", "message", "why", "fix")

#: Every finding's words: ``"code.part"`` (a part of :data:`PARTS`), or ``"code.part.variant"`` for a variant
#: of a part chosen by :data:`_VARIANTS` from the finding's context (an empty text: the part has none).
FINDING_WORDS: Words = {**MEASUREMENT_FINDING_WORDS, **DOCTOR_FINDING_WORDS, **STEP_FINDING_WORDS,
                         **SELFCHECK_FINDING_WORDS, **FIT_FINDING_WORDS, **RANK_FINDING_WORDS}

#: Which variant of a part a finding reads (a key suffix such as ``.cpu``), from its context.
_VARIANTS: dict[str, Callable[[Finding], str]] = {
    "precision_not_met": lambda f: "undefined" if f.value is None else "",
    "recompile_during_timing": lambda f: "reason" if f.context.get("reason") else "",
    "compiled": lambda f: ("processes" if f.context.get("processes") else
                           str(f.context.get("cache")) if f.context.get("cache") in ("cold", "warm") else ""),
    "fixed_count_cut": lambda f: str(f.context.get("count")),
    "no_noise_profile": lambda f: str(f.context.get("source")),
    "speed_modes": lambda f: "stretches" if f.context.get("stretches") else "alternating",
    "preempted": lambda f: "kept" if f.context.get("kept_all") else "set_aside",
    "oversubscribed": lambda f: "widened" if f.context.get("widened") else "",
    "starved": lambda f: ("cpu" if f.context.get("waited") is None else "wait") + ("_widened" if f.context.get("widened")
                                                                                   else ""),
    "unsynchronized_timing": lambda f: "cpu" if f.value is None else "",
    "implicit_syncs": lambda f: "cpu" if "ops" in f.context else "",
    "many_tiny_ops": lambda f: "kernels" if f.context.get("kernels") else "",
    "memory": lambda f: "cpu" if "alloc_bytes" in f.context else "",
    "mfu_above_100": lambda f: ("measured_untold" if f.context.get("peak") == "measured" and not f.context.get("measured_at")
                                else str(f.context.get("peak", "table"))),
    "table_contradicts_verdict": lambda f: "undecided" if "ci_low" not in f.context else "",
    "poor_fit": lambda f: "residual" if f.context.get("reason") == "residual" else "rms",
    "new_straggler": lambda f: ("phase" + ("_moved" if "before_rank" in f.context else "") if "phase" in f.context
                                else "moved" if "before_rank" in f.context else ""),
    "group_throughput": lambda f: "samples" if f.context.get("unit") == "samples" else "",
    "roof_exceeded": lambda f: "memory" if f.context.get("roof") == "memory" else "compute",
}

#: The Python habits behind each synchronizing op (the ``ops`` of a CPU ``implicit_syncs`` finding).
SYNC_OP_HABITS = {"aten::_local_scalar_dense": ".item() / float(tensor) / int(tensor) / if tensor:",
                  "aten::item": ".item()", "aten::nonzero": "nonzero() / boolean-mask indexing",
                  "aten::masked_select": "masked_select / boolean-mask indexing", "aten::unique": "unique()",
                  "aten::_unique2": "unique()", "aten::is_nonzero": "if tensor: / bool(tensor)",
                  "aten::equal": "torch.equal", "aten::allclose": "torch.allclose"}



def _time_ns(ns: float) -> str:
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if abs(ns) >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def _si(x: float) -> str:
    for prefix, scale in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(x) >= scale:
            return f"{x / scale:.3g} {prefix}"
    return f"{x:.3g} "


@dataclass(frozen=True)
class _Value:
    """A finding's value with its threshold, for formatting: a value that differs from its threshold never
    reads as the threshold (``10.0%`` of a 10% threshold): it gains decimals until it reads apart."""

    value: float
    threshold: float | None

    def format(self, spec: str) -> str:
        shown = format(self.value, spec)
        match = re.fullmatch(r"([+ ]?)\.(\d+)([f%])", spec)
        if match is None or self.threshold is None or self.value == self.threshold or not math.isfinite(self.threshold):
            return shown
        sign, digits, kind = match[1], int(match[2]), match[3]
        for more in range(digits, digits + 7):
            shown = format(self.value, f"{sign}.{more}{kind}")
            if shown != format(self.threshold, f"{sign}.{more}{kind}"):
                break
        return shown


#: The format specs :class:`_Formatter` adds to ``str.format``'s.
_OWN_SPECS = ("ns", "mib", "si", "rel")


class _Formatter(string.Formatter):
    """``str.format`` plus ``{x:ns}`` (nanoseconds as a readable time), ``{x:mib}`` (bytes in MiB) and ``{x:rel}``
    (a relative figure as the tables and the headline show it, :func:`~measurefirst.render.text_format.format_relative`:
    a spread a note repeats reads as the line above it); a missing or non-finite number reads ``n/a``."""

    def format_field(self, value: Any, format_spec: str) -> str:
        if isinstance(value, _Value):
            if not math.isfinite(value.value):
                return "n/a"
            if format_spec in _OWN_SPECS:
                value = value.value
            else:
                return value.format(format_spec)
        if value is None or (isinstance(value, float) and not math.isfinite(value)):
            return "n/a"
        numeric = format_spec in _OWN_SPECS or format_spec[-1:] in ("e", "E", "f", "F", "g", "G", "%", "d")
        if numeric and (isinstance(value, bool) or not isinstance(value, (int, float))):
            return "n/a"  # a finding read from a file whose context holds text or a list where a number goes
        if format_spec == "ns":
            return _time_ns(float(value))
        if format_spec == "mib":
            return f"{float(value) / 2**20:.1f} MiB"
        if format_spec == "rel":
            return format_relative(float(value))
        if format_spec == "si":  # a rate with its SI prefix, three significant digits: "44.8 G"
            return _si(float(value))
        return str(super().format_field(value, format_spec))

    def get_value(self, key: Any, args: Any, kwargs: Any) -> Any:
        return kwargs.get(key) if isinstance(key, str) else super().get_value(key, args, kwargs)


_FORMAT = _Formatter()


@dataclass(frozen=True)
class FindingText:
    """A finding in words, in one language."""

    code: str
    severity: str  # the severity's word: "warning", "note", "警告"...
    title: str
    message: str
    why: str
    fix: str


def _fields(f: Finding) -> dict[str, Any]:
    fields: dict[str, Any] = dict(f.context)
    fields.update(value=None if f.value is None else _Value(f.value, f.threshold), threshold=f.threshold,
                  inverse=None if not f.value else 1 / f.value)
    sites = f.context.get("sites")
    if isinstance(sites, dict):
        fields["sites"] = "; ".join(f"{k} x{v}" for k, v in sites.items())
    ops = f.context.get("ops")
    if isinstance(ops, dict):
        fields["ops"] = ", ".join(f"{SYNC_OP_HABITS.get(k, k)} ({k}) x{v}" for k, v in ops.items())
    return fields


def finding_words(f: Finding, lang: str = "en") -> FindingText:
    """``f`` in words in ``lang`` (``en`` or ``zh``; English for any other). A code the catalogue does
    not know (from a newer or older file) reads its code as the title and the words the file carried."""
    sev = code_word("sev_", f.severity, lang)
    if f"{f.code}.title" not in FINDING_WORDS:
        ctx = f.context
        return FindingText(f.code, sev, f.code, str(ctx.get("message", "")), str(ctx.get("explanation", "")),
                           str(ctx.get("fix", "")))
    pick = _VARIANTS.get(f.code)
    variant = pick(f) if pick is not None else ""
    fields = _fields(f)
    parts = {}
    for part in PARTS:
        key = next((k for k in (f"{f.code}.{part}.{variant}" if variant else "", f"{f.code}.{part}")
                    if k in FINDING_WORDS), None)
        parts[part] = "" if key is None else _FORMAT.vformat(text(FINDING_WORDS, key, lang), (), fields)
    return FindingText(f.code, sev, parts["title"], parts["message"], parts["why"], parts["fix"])


def finding_text(f: Finding, lang: str = "en") -> dict[str, str]:
    """``f`` in words as a JSON-able dict: ``title``, ``message``, ``why``, ``fix`` (and ``lang``)."""
    w = finding_words(f, lang)
    return {"lang": lang, "title": w.title, "message": w.message, "why": w.why, "fix": w.fix}


def title(code: str, lang: str = "en") -> str:
    """A code's short title (the code itself when the catalogue lacks it)."""
    key = f"{code}.title"
    return text(FINDING_WORDS, key, lang) if key in FINDING_WORDS else code


def finding_line(f: Finding, lang: str = "en", *, fix: bool = True) -> str:
    """``warning [unstable]: the samples' IQR is 50.0% of the median. Fix: close other programs.``; a
    note's fix is left out (and every fix with ``fix=False``). The context may hold user text (a source
    line, an error): show the line through :func:`measurefirst.render.text.plain`."""
    w = finding_words(f, lang)
    zh = lang == "zh"
    stop = "。" if zh else "."
    colon = "：" if zh else ": "
    line = f"{w.severity} [{f.code}]{colon}{w.message}{stop}"
    if fix and w.fix and f.severity != "info":
        line += f"{'' if zh else ' '}{word('fix_label', lang)}{colon}{w.fix}{stop}"
    return line


def finding_lines(findings: Iterable[Finding], lang: str = "en", *, fix: bool = True) -> list[str]:
    """One :func:`finding_line` per finding."""
    return [finding_line(f, lang, fix=fix) for f in findings]


#: The coded fields of a measurement's parts, in :func:`with_words`: part -> (field, prefix of its words).
_CODED = {"warmup": ("rule", "warmup_rule_"), "calibration": ("reason", "cal_reason_")}


def with_words(data: Any, lang: str = "en") -> Any:
    """A result's ``to_dict()`` with words: every finding (an object with a ``code`` in a
    ``findings`` list) gains ``text``, :func:`finding_text` in ``lang``; a measurement's warm-up gains
    ``rule_text`` and its calibration ``reason_text``. For JSON that carries both the data and the words."""
    if isinstance(data, (list, tuple)):
        return [with_words(x, lang) for x in data]
    if not isinstance(data, dict):
        return data
    out: dict[Any, Any] = {}
    for key, value in data.items():
        if key == "findings" and isinstance(value, (list, tuple)):
            out[key] = [{**x, "text": finding_text(Finding.from_dict(x), lang)}
                        if isinstance(x, dict) and isinstance(x.get("code"), str) else with_words(x, lang)
                        for x in value]
        elif key in _CODED and isinstance(value, dict) and isinstance(value.get(_CODED[key][0]), str):
            name, prefix = _CODED[key]
            out[key] = {**with_words(value, lang),
                        f"{name}_text": codes_words(prefix, value[name], lang, share=value.get("overhead_share"))}
        else:
            out[key] = with_words(value, lang)
    return out
