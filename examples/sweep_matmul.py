"""Time vs size for a matrix product: the overhead floor, the n^3 law, and where the work takes over.

    python examples/sweep_matmul.py
"""

import tempfile
from pathlib import Path

import torch

import measurefirst
from measurefirst import sweep

device = measurefirst.resolve_device("auto")


def make(n):
    a = torch.randn(n, n, device=device)  # inputs are built here, untimed
    return lambda: a @ a


result = sweep(make, [16, 32, 64, 128, 256], flops=lambda n: 2 * n**3, device=device, budget=0.5)
print(result)  # per size: time, relative to n=256 vs the work ratio, GFLOP/s; the fit; the complexity class
fit = result.fit()
print(f"overhead t0 = {fit.t0 * 1e6:.1f} us, exponent k = {fit.k:.2f} "
      f"(95% CI {fit.k_ci[0]:.2f}-{fit.k_ci[1]:.2f}), crossover n = {fit.crossover}")
try:
    from measurefirst import plot_time

    print("plot:", plot_time(result, Path(tempfile.mkdtemp()) / "matmul.png"))
except ImportError:
    print("install matplotlib (pip install 'measurefirst[plot]') for plots")
