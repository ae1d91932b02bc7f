"""The machine's noise profile as a table and lines, in English and Chinese. Data in, text out."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .text import cell, columns, format_time, plain
from .words import code_word, word

if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Callable, Sequence

    from rich.table import Table

    from ..results.noise import NoiseProfile, ProfileEntry

#: The columns of the profile table, by their word keys.
COLUMNS = (("noise.col.work", "left"), ("noise.col.time", "right"), ("noise.col.fresh", "right"),
           ("noise.col.within", "right"), ("noise.col.ratio", "right"))


def _pct(x: float | None) -> str:
    """A relative spread with three significant figures: ``0.0123%``, ``4.56%``."""
    if x is None or not math.isfinite(x):
        return "n/a"
    return f"{x * 100:.3g}%"


def work_text(e: "ProfileEntry", lang: str = "en") -> str:
    """The kind of work in words (``Python busy-wait``, ``torch.add, 1 element``)."""
    return code_word("noise.kind.", e.kind, lang)


def noise_title(p: "NoiseProfile", lang: str = "en") -> str:
    return plain(word("noise.title", lang, machine=p.key, processes=p.processes, created=p.created))


def noise_table(p: "NoiseProfile", lang: str = "en") -> "Table":
    """One row per workload: its call time, the fresh-process and in-process spreads, their ratio."""
    from rich.table import Table

    table = Table(title=cell(noise_title(p, lang)))
    columns(table, COLUMNS, lang)
    for e in p.entries:
        r = e.ratio
        table.add_row(cell(work_text(e, lang)), format_time(e.seconds), _pct(e.cv), _pct(e.within_cv),
                      "n/a" if r is None else f"{r:.1f}x")
    return table


def noise_lines(p: "NoiseProfile", path: str | None, lang: str = "en",
                inflation: "Callable[[float], float] | None" = None) -> list[str]:
    """How benchmark() uses the profile, and where it was saved; ``inflation``: the factor a run of a call that
    long gets (``measure.noise.run_inflation``; default the profile's own)."""
    at = inflation or p.inflation
    lines = [word("noise.uses", lang, i2=f"{at(2e-6):.2f}", i300=f"{at(300e-6):.2f}",
                  i2m=f"{at(2e-3):.2f}", f2=_pct(p.floor(2e-6)),
                  f20=_pct(p.floor(20e-6)), f2m=_pct(p.floor(2e-3)), fc=_pct(p.kind_floor("compute")),
                  fm=_pct(p.kind_floor("memory")))]
    if path is not None:
        lines.append(plain(word("noise.saved", lang, path=path)))
    return lines


def noise_progress(i: int, n: int, lang: str = "en") -> str:
    return word("noise.progress", lang, i=i, n=n)


def ignored_lines(results: "Sequence[Any]", lang: str = "en") -> list[str]:
    """One line per reason a saved noise profile was not used for these measurements (damaged file,
    other torch threads), each once."""
    codes = sorted({str(r.options["noise_profile_ignored"]) for r in results
                    if getattr(r, "kind", "") == "measurement" and r.options.get("noise_profile_ignored")})
    return [word("noise.status." + c, lang) for c in codes]
