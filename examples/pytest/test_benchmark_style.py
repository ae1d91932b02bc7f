"""A test file written for pytest-benchmark, unchanged. ``pytest --mf`` runs it with measurefirst:
device synchronization, adaptive stopping, confidence intervals and noise-aware regression gates.

    pytest examples/pytest/test_benchmark_style.py --mf
    pytest examples/pytest/test_benchmark_style.py --mf --benchmark-disable      # each function once
"""

import pytest
import torch


@pytest.mark.parametrize("n", [64, 256])
def test_matmul(benchmark, n):
    a = torch.randn(n, n)
    result = benchmark(torch.matmul, a, a)  # measured adaptively; returns the function's result
    assert result.shape == (n, n)


@pytest.mark.benchmark(group="sort", min_rounds=5)
@pytest.mark.parametrize("n", [1_000, 10_000])
def test_sort(benchmark, n):
    x = torch.randn(n)
    values, _ = benchmark.pedantic(torch.sort, args=(x,), rounds=20, iterations=5, warmup_rounds=2)
    assert bool((values[1:] >= values[:-1]).all())
    benchmark.extra_info["n"] = n


def test_sum_with_setup(benchmark):
    benchmark.group = "reduce"

    def setup():
        return (torch.randn(10_000),), {}  # fresh input for every round, untimed

    total = benchmark.pedantic(torch.sum, setup=setup, rounds=10)
    assert total.ndim == 0
