"""Words for a Diagnosis: each finding with its evidence, why it matters and the fix."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .findings import finding_words
from .text import plain

if TYPE_CHECKING:  # pragma: no cover
    from ..doctor import Diagnosis

_MARK = {"error": "✗ error", "warning": "! warning", "info": "· note"}


def diagnosis_lines(d: "Diagnosis") -> list[str]:
    lines = [f"doctor: {d.label} on {d.device}"]
    if d.error:
        lines.append(f"  the function failed: {d.error}")
    order = {"error": 0, "warning": 1, "info": 2}
    for f in sorted(d.findings, key=lambda f: order.get(f.severity, 3)):
        w = finding_words(f)
        lines.append(f"  {_MARK.get(f.severity, f.severity)} [{f.code}] {w.message}")
        if w.why:
            lines.append(f"      why: {w.why}")
        if w.fix:
            lines.append(f"      fix: {w.fix}")
    lines.append(f"  checks run: {', '.join(d.checks) or 'none'}")
    for check, why in d.skipped.items():
        lines.append(f"  not run: {check} ({why})")
    n_warn = len(d.warnings)
    lines.append("  verdict: " + ("no warnings" if n_warn == 0 else f"{n_warn} warning(s)"))
    return [plain(line) for line in lines]
