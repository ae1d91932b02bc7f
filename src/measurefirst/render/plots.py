"""Plots of sweeps (matplotlib, the optional ``plot`` extra): time vs size with the fitted model and
the overhead floor, throughput vs size, and the roofline. PNG or SVG by the file's suffix; each file
is written atomically (see :mod:`measurefirst.results.safeio`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from ..results.sweep import SweepResult

FORMATS = (".png", ".svg")


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("plots need matplotlib: pip install 'measurefirst[plot]'") from exc
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _check(path: str | Path) -> Path:
    p = Path(path)
    if p.suffix.lower() not in FORMATS:
        raise ValueError(f"plot file {p} must end in .png or .svg")
    return p


def _finish(fig: Any, ax: Any, path: Path, xlabel: str, ylabel: str, title: str) -> Path:
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    from ..results.safeio import atomic_path

    try:
        with atomic_path(path, "plot") as tmp:  # whole or not at all, never through a planted link
            fig.savefig(tmp, format=path.suffix[1:].lower())
    finally:
        _pyplot().close(fig)
    return path


def plot_time(result: "SweepResult", path: str | Path) -> Path:
    """Time vs size on log-log axes, one line per implementation, with the fitted t0 + c·n^k and
    the overhead floor t0."""
    from ..results.errors import FitError

    p = _check(path)
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for label in result.labels:
        pts = [q for q in result.series(label) if q.ok]
        if not pts:
            continue
        n = np.array([q.n for q in pts], dtype=float)
        t = np.array([q.seconds for q in pts])
        lo = np.array([q.measurement.ci[0] if q.measurement.ci else q.seconds for q in pts])  # type: ignore[union-attr]
        hi = np.array([q.measurement.ci[1] if q.measurement.ci else q.seconds for q in pts])  # type: ignore[union-attr]
        line = ax.errorbar(n, t, yerr=[t - lo, hi - t], fmt="o", label=label, capsize=3)
        try:
            f = result.fit(label)
        except FitError:
            continue
        grid = np.geomspace(n.min(), n.max(), 200)
        color = line[0].get_color()
        pred = f.predict(grid)
        inside = (pred >= lo.min() / 2) & (pred <= hi.max() * 2)  # the curve stays within the data's axes
        ax.plot(grid[inside], pred[inside], "--" if f.poor else "-", color=color, alpha=0.8,
                label=f"{label}: t0 + c·n^{f.k:.2f}" + (" (poor fit)" if f.poor else ""))
        if f.t0 > 0:
            ax.axhline(f.t0, color=color, linestyle=":", alpha=0.7, label=f"{label}: overhead floor")
        if f.crossover and n.min() <= f.crossover <= n.max() and not f.poor:
            ax.axvline(f.crossover, color=color, linestyle="--", alpha=0.4)
    return _finish(fig, ax, p, "size n", "time per call (s)", f"time vs size ({result.device})")


def plot_throughput(result: "SweepResult", path: str | Path) -> Path:
    """FLOP/s (or bytes/s when no FLOPs are known) vs size."""
    p = _check(path)
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    use_flops = any(q.flops for q in result.points)
    for label in result.labels:
        pts = [q for q in result.series(label) if q.ok]
        rates = [(q.flops_per_s if use_flops else q.bytes_per_s) for q in pts]
        pairs = [(q.n, r) for q, r in zip(pts, rates) if r]
        if pairs:
            ax.plot([a for a, _ in pairs], [b for _, b in pairs], "o-", label=label)
    if result.peaks is not None:
        roof = result.peaks.flops_per_s if use_flops else result.peaks.bytes_per_s
        ax.axhline(roof, color="k", linestyle="--", alpha=0.6, label="measured peak")
    return _finish(fig, ax, p, "size n", "FLOP/s" if use_flops else "bytes/s", "throughput vs size")


def plot_roofline(result: "SweepResult", path: str | Path) -> Path:
    """The measured roofline (memory and compute roofs) with each point at its arithmetic intensity."""
    p = _check(path)
    if result.peaks is None:
        raise ValueError("a roofline needs measured peaks: run the sweep with peaks (measurefirst peaks)")
    plt = _pyplot()
    pk = result.peaks
    pts = [q for q in result.points if q.ok and q.intensity and q.flops_per_s]
    intens = [q.intensity for q in pts if q.intensity is not None] or [pk.ridge]
    lo, hi = min(min(intens), pk.ridge) / 4, max(max(intens), pk.ridge) * 4
    grid = np.geomspace(lo, hi, 200)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(grid, np.minimum(pk.flops_per_s, grid * pk.bytes_per_s), "k-", label="roofline (measured)")
    for label in result.labels:
        mine = [q for q in pts if q.label == label]
        if mine:
            ax.plot([q.intensity for q in mine], [q.flops_per_s for q in mine], "o", label=label)
            for q in mine:
                ax.annotate(str(q.n), (q.intensity, q.flops_per_s), fontsize=7, xytext=(3, 3),
                            textcoords="offset points")
    return _finish(fig, ax, p, "arithmetic intensity (FLOP/byte)", "FLOP/s", f"roofline: {pk.device_name} {pk.dtype}")


def plot_paths(path: Path) -> list[Path]:
    """The files :func:`plot_all` may write for ``path``: it, ``-throughput`` and ``-roofline``
    (``ValueError`` for a path not ending in .png or .svg)."""
    path = _check(path)
    return [path, path.with_name(f"{path.stem}-throughput{path.suffix}"),
            path.with_name(f"{path.stem}-roofline{path.suffix}")]


def plot_all(result: "SweepResult", path: str | Path) -> list[Path]:
    """``out.png`` → ``out.png`` (time), ``out-throughput.png`` and, with peaks, ``out-roofline.png``."""
    p = _check(path)
    out = [plot_time(result, p)]
    if any(q.flops or q.bytes for q in result.points):
        out.append(plot_throughput(result, p.with_name(f"{p.stem}-throughput{p.suffix}")))
    if result.peaks is not None and any(q.flops and q.bytes for q in result.points):
        out.append(plot_roofline(result, p.with_name(f"{p.stem}-roofline{p.suffix}")))
    return out
