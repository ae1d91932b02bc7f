"""A table of implementations x sizes, coloured against the best of each column, in the spirit of
torch.utils.benchmark's Compare. Cells show the median and its CI half-width; `!` marks warnings.

    python examples/grid.py
"""

import torch
from rich.console import Console

import measurefirst

device = measurefirst.resolve_device("auto")
cells = {}
for n in (64, 128, 256):
    a = torch.randn(n, n, device=device)
    cells[("a @ a", f"n={n}")] = measurefirst.benchmark(lambda: a @ a, device=device, budget=0.5)
    cells[("torch.mm", f"n={n}")] = measurefirst.benchmark(lambda: torch.mm(a, a), device=device, budget=0.5)
    cells[("einsum", f"n={n}")] = measurefirst.benchmark(lambda: torch.einsum("ij,jk->ik", a, a), device=device,
                                                         budget=0.5)
Console(width=120).print(measurefirst.grid_table(cells, title="matrix product", row_name="implementation"))
