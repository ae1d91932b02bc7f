"""HTML renderings for notebooks (``_repr_html_``)."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from .text import ci_text, format_relative, format_time, time_unit

if TYPE_CHECKING:  # pragma: no cover
    from ..results import Measurement


def measurement_html(m: "Measurement") -> str:
    esc = html.escape
    if m.summary is None:
        return f"<div><b>{esc(m.label)}</b>: no samples</div>"
    unit = time_unit(m.median)
    ci = m.ci
    hw = None if ci is None else (ci[1] - ci[0]) / 2
    rows = [
        ("median", format_time(m.median, hw, unit)),
        ("95% CI of the median", ci_text(m) + f" (±{format_relative(m.ci_half_width_rel)})"),
        ("mean / min / max", " / ".join(format_time(x, hw, unit) for x in (m.mean, m.min, m.max))),
        ("IQR / stdev", f"{format_time(m.iqr, None, unit)} / {format_time(m.stdev, None, unit)}"),
        ("samples × calls", f"{m.n_used} × {sorted(set(m.numbers))[0]}"
         + (f" ({m.n_samples - m.n_used} preempted set aside)" if m.n_samples != m.n_used else "")),
        ("device · timer", f"{m.device} · {m.timer}"),
        ("stopped by", f"{m.stop.reason} (target {'met' if m.stop.target_met else 'not met'})"),
    ]
    body = "".join(f"<tr><th style='text-align:left'>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in rows)
    warns = "".join(
        f"<li><b>{esc(w.code)}</b>: {esc(w.message)}" + (f" — <i>{esc(w.fix)}</i>" if w.fix else "") + "</li>"
        for w in m.warnings
    )
    status = "" if m.complete else " <span style='color:#b00'>(incomplete)</span>"
    return (f"<div><b>{esc(m.label)}</b>{status}<table>{body}</table>"
            + (f"<ul>{warns}</ul>" if warns else "") + "</div>")
