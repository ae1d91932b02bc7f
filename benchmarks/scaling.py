"""The lecture's law, measured: a CPU matmul sweep (64..2048) and an elementwise-add sweep, with the
fitted fixed overhead t0, the exponent k (95% CI) and the crossover size, the machine peaks, and an
independent check of the matmul peak through numpy's BLAS on the same sizes.

    python benchmarks/scaling.py            # about a minute on 2 cores
    python benchmarks/scaling.py --plot out.png
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))
from measurefirst.render.text import format_time  # noqa: E402
from measurefirst.tools.roofline import measure_peaks  # noqa: E402
from measurefirst.tools.sweep import builtin, sweep  # noqa: E402


def numpy_matmul_peak(sizes: list[int]) -> tuple[float, int]:
    best, best_n = 0.0, sizes[0]
    for n in sizes:
        a = np.random.default_rng(0).standard_normal((n, n), dtype=np.float32)
        a @ a
        reps = max(3, int(0.2 / max(2 * n**3 / 50e9, 1e-6)))
        times = []
        for _ in range(5):
            t0 = time.perf_counter()
            for _ in range(reps):
                a @ a
            times.append((time.perf_counter() - t0) / reps)
        rate = 2.0 * n**3 / min(times)
        if rate > best:
            best, best_n = rate, n
    return best, best_n


def report(name: str, result) -> None:
    print(f"\n{name}")
    print(f"{'n':>9} {'time':>11} {'±':>7} {'vs ref':>8} {'work':>8} {'GFLOP/s':>9} {'GB/s':>7}")
    for p in result.series():
        if not p.ok:
            print(f"{p.n:>9} failed: {p.error}")
            continue
        rel, work = result.relative(p)
        print(f"{p.n:>9} {format_time(p.seconds):>11} {p.measurement.ci_half_width_rel:>7.1%} "
              f"{rel:>7.3g}x {work:>7.3g}x {(p.flops_per_s or 0) / 1e9:>9.3g} {(p.bytes_per_s or 0) / 1e9:>7.3g}")
    f = result.fit()
    print(f"fit: t0 = {format_time(f.t0)}, k = {f.k:.3f} (95% CI {f.k_ci[0]:.3f}–{f.k_ci[1]:.3f}), "
          f"crossover n ≈ {f.crossover:.3g}, rms error {f.rms_rel_error:.1%}"
          + (" (poor fit: not one power law)" if f.poor else "") if f.crossover else f"fit: {f}")
    print(f"complexity pick: {result.complexity().best}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--plot", default=None)
    ap.add_argument("--budget", type=float, default=2.0)
    args = ap.parse_args()
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, numpy {np.__version__}")
    peaks = measure_peaks("cpu", "float32", sizes=(256, 512, 1024, 2048))
    print(f"measured peaks: {peaks}")
    sizes = [64, 128, 256, 512, 1024, 2048]
    make, flops, nbytes, _ = builtin("matmul", "float32", "cpu")
    mm = sweep(make, sizes, flops=flops, bytes=nbytes, device="cpu", peaks=peaks, budget=args.budget)
    report("matmul (float32)", mm)
    make, flops, nbytes, _ = builtin("add", "float32", "cpu")
    add = sweep(make, [2**k for k in range(8, 25, 2)], flops=flops, bytes=nbytes, device="cpu", peaks=peaks,
                budget=args.budget)
    report("add (float32)", add)
    best, best_n = numpy_matmul_peak(sizes)
    torch_best = max(p.flops_per_s for p in mm.points if p.ok)
    print(f"\nindependent check: numpy matmul peak {best / 1e9:.1f} GFLOP/s (n={best_n}); "
          f"measurefirst peak {peaks.flops_per_s / 1e9:.1f} GFLOP/s; best sweep point {torch_best / 1e9:.1f} GFLOP/s")
    if args.plot:
        from measurefirst.render.plots import plot_all

        print("plots:", ", ".join(str(p) for p in plot_all(mm, args.plot)))


if __name__ == "__main__":
    main()
