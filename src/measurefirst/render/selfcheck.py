"""Words and tables for a SelfCheck, in English and Chinese. Data in, text out; nothing is measured."""

from __future__ import annotations

import io
import math
from typing import TYPE_CHECKING, Any

from ..results.findings import MIN_CPU_SHARE
from .text import format_time
from .words import LANGS, WORDS, word

if TYPE_CHECKING:  # pragma: no cover
    from rich.table import Table

    from ..results.selfcheck import SelfCheck, Trap


def known(key: str) -> bool:
    """Whether the vocabulary has selfcheck words for ``key``."""
    return "sc." + key in WORDS


def say(key: str, lang: str = "en", **values: Any) -> str:
    """Selfcheck's words for ``key`` (``"sc." + key`` in :data:`measurefirst.render.words.WORDS`)."""
    if lang not in LANGS:
        raise ValueError(f"language must be one of {', '.join(LANGS)}; got {lang!r}")
    if not known(key):
        raise KeyError(key)
    return word("sc." + key, lang, **values)


def duration_text(seconds: float) -> str:
    """``2e-06`` → ``"2 µs"``."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale * 0.999:
            return f"{seconds / scale:g} {unit}"
    return f"{seconds * 1e9:g} ns"


def _rel(x: float | None, signed: bool = True) -> str:
    if x is None or not math.isfinite(x):
        return "n/a"
    return f"{x:+.2%}" if signed else f"{x:.2%}"


def _time(x: float | None) -> str:
    if x is None or not math.isfinite(x):
        return "n/a"
    return format_time(x, x * 1e-4)


def method_text(method: str, lang: str = "en") -> str:
    key = f"method.{method}"
    return say(key, lang) if known(key) else method


def status_text(status: str, lang: str = "en") -> str:
    return say(f"status.{status}", lang)


_STYLE = {"pass": "green", "fail": "bold red", "noisy": "yellow", "info": "dim", "skip": "dim"}


#: The columns of the selfcheck table, by their word keys (``col.KEY``).
COLUMNS = ("duration", "method", "truth", "estimate", "error", "tolerance", "noise", "verdict")


def selfcheck_title(sc: "SelfCheck", lang: str = "en") -> str:
    name = sc.env.get("device_name") or sc.device
    return say("title", lang, device=sc.device, name=name, quick=say("quick", lang) if sc.quick else "",
               seconds=sc.seconds) + (say("simulated", lang) if sc.simulated else "")


def selfcheck_rows(sc: "SelfCheck", lang: str = "en") -> list[tuple[str, list[str]]]:
    """(status, cells in :data:`COLUMNS` order) per estimate that ran; a known duration is written
    once, on the first of its rows (skipped rows are listed by :func:`skipped_lines`)."""
    out: list[tuple[str, list[str]]] = []
    last = None
    for r in sc.rows:
        if r.status == "skip":
            continue
        dur = duration_text(r.duration_s)
        method = method_text(r.method, lang)
        if r.note:
            method += f" ({say('note.' + r.note, lang) if known('note.' + r.note) else r.note})"
        out.append((r.status, [dur if dur != last else "", method, _time(r.truth_s), _time(r.estimate_s),
                                _rel(r.rel_error), "" if r.tolerance is None or not r.judged else f"±{r.tolerance:.2%}",
                                _rel(r.noise, signed=False) if r.noise is not None else "",
                                status_text(r.status, lang)]))
        last = dur
    return out


def selfcheck_table(sc: "SelfCheck", lang: str = "en") -> "Table":
    """One row per estimate: known duration, method, truth, estimate, relative error, tolerance, noise,
    PASS/FAIL/NOISY (references: ref; not applicable: n/a)."""
    from rich.table import Table

    t = Table(title=selfcheck_title(sc, lang))
    for key in COLUMNS:
        t.add_column(say(f"col.{key}", lang), justify="left" if key in ("duration", "method", "verdict") else "right")
    for status, cells in selfcheck_rows(sc, lang):
        t.add_row(*cells[:-1], f"[{_STYLE.get(status, '')}]{cells[-1]}[/]")
    return t


def _share(x: float | None) -> str:
    return "n/a" if x is None or not math.isfinite(x) else f"{x:.0%}"


def _lengthen(x: float | None) -> str:
    """How far a reading could be lengthened: a percentage under 100%, else a multiple (``9,408x``)."""
    if x is None or not math.isfinite(x):
        return "n/a" if x is None else "∞"
    return f"{x:.2%}" if x < 1 else f"{x:,.1f}x" if x < 10 else f"{x:,.0f}x"


def _trap_detail(t: "Trap", lang: str) -> str:
    if t.status == "noisy":
        return say("trap.busy", lang, value="n/a" if t.value is None else f"{t.value:.3g}", share=_share(t.cpu_share))
    if t.note == "error":
        return say("trap.error", lang, detail=t.detail)
    if t.status == "skip":
        key = f"trap.{t.code}.{t.note}"
        if known(key):
            return say(key, lang)
        why = say("note." + t.note, lang) if known("note." + t.note) else t.note
        return say("trap.skip", lang, why=why)
    if t.status == "fail":
        return say(f"trap.{t.code}.fail", lang, value="n/a" if t.value is None else f"{t.value:.3g}")
    return say(f"trap.{t.code}.pass", lang, value=t.value or 0.0, threshold=t.threshold or 0.0)


def _trap_line(t: "Trap", lang: str) -> str:
    return f"  {status_text(t.status, lang)}  {say('trap.' + t.code, lang)}: {_trap_detail(t, lang)}"


def _ns(x: float | None) -> str:
    return "n/a" if x is None or not math.isfinite(x) else f"{x:.0f} ns"


def machine_lines(sc: "SelfCheck", lang: str = "en") -> list[str]:
    m = sc.machine
    nv = say("not_visible", lang)
    lines = [say("machine", lang)]
    lines.append("  " + say("m.timer", lang, kind=m.timer, res=_ns(m.timer_resolution_ns),
                            seen=_ns(m.timer_resolution_measured_ns), read=_ns(m.clock_read_ns),
                            overhead=_ns(m.timer_overhead_ns)))
    if not sc.simulated:
        mhz = (say("m.mhz", lang, a=m.cpu_mhz_before, b=m.cpu_mhz_after)
               if m.cpu_mhz_before is not None and m.cpu_mhz_after is not None else nv)
        thr = nv if m.throttle_events is None else (say("throttle.none", lang) if m.throttle_events == 0
                                                    else say("throttle.some", lang, n=m.throttle_events))
        lines.append("  " + say("m.cpu", lang, mhz=mhz, gov=m.cpu_governor or nv, thr=thr))
        lines.append("  " + say("m.load", lang, other="n/a" if m.other_load_cores is None else f"{m.other_load_cores:.1f}",
                                cores=m.cores if m.cores is not None else "?",
                                steal="n/a" if m.steal_cores is None else f"{m.steal_cores:.2f}"))
    for when, g in (("before", m.gpu_before), ("after", m.gpu_after)):
        if g:
            lines.append("  " + say("m.gpu", lang, when=say("m." + when, lang), sm=g.get("clocks.sm", "?"),
                                    max=g.get("clocks.max.sm", "?"), reasons=g.get("clocks_throttle_reasons.active", "?"),
                                    temp=g.get("temperature.gpu", "?"), power=g.get("power.draw", "?")))
    if m.cpu_share is not None:
        runnable = "" if m.runnable is None else say("m.runnable", lang, n=m.runnable,
                                                     cores=m.cores if m.cores is not None else "?")
        state = say("state." + m.state, lang) if known("state." + m.state) else m.state
        lines.append("  " + say("m.share", lang, share=_share(m.cpu_share), state=state, min=_share(MIN_CPU_SHARE),
                                runnable=runnable))
    if m.sleep_cycles_per_s:
        lines.append("  " + say("m.sleep", lang, rate=m.sleep_cycles_per_s / 1e9))
    if m.peaks:
        p = m.peaks
        lines.append("  " + say("m.peaks", lang, flops=p["flops_per_s"] / 1e9, dtype=p["dtype"], n=p["matmul_size"],
                                bw=p["bytes_per_s"] / 1e9, threads=p.get("threads", "?")))
    for note in m.notes:
        lines.append("  " + say("m.note", lang, note=machine_note(note, lang)))
    return lines


def machine_note(note: str, lang: str = "en") -> str:
    """A note about the machine in words: its code, then after ``": "`` an error's own message if any
    (``"peaks_failed: RuntimeError: ..."``); a code this version has no words for, as it is."""
    code, _, error = note.partition(": ")
    return say("mnote." + code, lang, error=error) if known("mnote." + code) else note


def verdict_lines(sc: "SelfCheck", lang: str = "en") -> list[str]:
    status = sc.status
    if status == "pass":
        return [say("verdict.pass" if any(t.status == "pass" for t in sc.traps) else "verdict.pass_rows", lang)]
    if status == "noisy":
        if sc.busy:
            lines = [say("verdict.busy", lang, n=len(sc.noisy_rows) + len(sc.noisy_traps),
                         share=_share(sc.machine.cpu_share))]
        else:
            lines = [say("verdict.noisy", lang, n=len(sc.noisy_rows))]
        for r in sc.noisy_rows:
            busy = r.note == "busy"
            lines.append(say("busy.row" if busy else "noisy.row", lang, duration=duration_text(r.duration_s),
                             method=method_text(r.method, lang), error=_rel(r.rel_error),
                             tol=_rel(r.tolerance, signed=False), noise=_rel(r.noise, signed=False),
                             share=_share(r.cpu_share), off=_lengthen(r.off_cpu)))
        for t in sc.noisy_traps:
            lines.append(say("busy.trap", lang, trap=say("trap." + t.code, lang), why=_trap_detail(t, lang)))
        return lines
    lines = [say("verdict.fail", lang, n=len(sc.failed_rows) + len(sc.failed_traps))]
    for r in sc.failed_rows:
        if r.note == "error":
            why = say("why.error", lang, detail=r.detail)
        else:
            why = say(f"why.{r.method}", lang) if known(f"why.{r.method}") else say("why.other", lang)
        lines.append(say("failed.row", lang, duration=duration_text(r.duration_s), method=method_text(r.method, lang),
                         estimate=_time(r.estimate_s), truth=_time(r.truth_s), error=_rel(r.rel_error),
                         tol=_rel(r.tolerance, signed=False), why=why))
    for t in sc.failed_traps:
        lines.append(say("failed.trap", lang, trap=say("trap." + t.code, lang), why=_trap_detail(t, lang)))
    return lines


def skipped_lines(sc: "SelfCheck", lang: str = "en") -> list[str]:
    """The rows that did not run, one line per reason: ``not run (not installed): triton do_bench, ...``."""
    by_reason: dict[str, list[str]] = {}
    for r in sc.rows:
        if r.status != "skip":
            continue
        reason = say("note." + r.note, lang) if known("note." + r.note) else r.note
        if r.detail and r.note == "error":
            reason += f": {r.detail}"
        name = method_text(r.method, lang)
        names = by_reason.setdefault(reason, [])
        if name not in names:
            names.append(name)
    return [say("skipped", lang, why=why, what=", ".join(names)) for why, names in by_reason.items()]


def selfcheck_lines(sc: "SelfCheck", lang: str = "en") -> list[str]:
    """Everything after the table: rows not run, traps, the machine, the verdict (and what each failure
    tells you)."""
    lines = skipped_lines(sc, lang)
    if sc.traps:
        lines += [say("traps", lang)] + [_trap_line(t, lang) for t in sc.traps]
    return lines + machine_lines(sc, lang) + verdict_lines(sc, lang)


def selfcheck_text(sc: "SelfCheck", lang: str = "en", width: int = 150) -> str:
    """The table and the lines as plain text (for ``str(selfcheck)``)."""
    from rich.console import Console

    buf = io.StringIO()
    console = Console(file=buf, width=width, highlight=False, soft_wrap=False, color_system=None)
    console.print(selfcheck_table(sc, lang))
    for line in selfcheck_lines(sc, lang):
        console.print(line, markup=False, soft_wrap=True)
    return buf.getvalue().rstrip("\n")


def progress_line(stage: str, duration_s: float | None, method: str, lang: str = "en") -> str:
    """What the selfcheck is doing now, for a progress line on stderr."""
    if stage == "row" and duration_s is not None:
        what = f"{duration_text(duration_s)} {method_text(method, lang)}"
    elif stage == "calibrate":
        what = say("progress.calibrate", lang)
    elif stage == "trap":
        what = say("progress.trap", lang, trap=say("trap." + method, lang) if known("trap." + method) else method)
    else:
        key = f"progress.{stage}.{method}"
        what = say(key, lang) if known(key) else f"{stage} {method}"
    return say("progress", lang, what=what)
