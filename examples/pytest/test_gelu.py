"""Benchmarks as tests with measurefirst's pytest plugin (installed with measurefirst).

    pytest examples/pytest/test_gelu.py --mf-save base                        # measure, save the baseline
    pytest examples/pytest/test_gelu.py --mf-compare base --mf-fail-if-slower 5%
                                                 # fail a test slower than its baseline beyond the noise and 5%

(``--mf-compare=@base`` works too; a separate ``@base`` is read by pytest as a file of arguments.)
Every measurement is warmed up, synchronized with the device and sampled until its 95% confidence
interval is within ±1% (or its budget, 1 s by default, is spent); the end of the run shows a table.
"""

import pytest
import torch
import torch.nn.functional as F

SIZES = [2**12, 2**16]


def manual_gelu(x: torch.Tensor) -> torch.Tensor:
    return 0.5 * x * (1 + torch.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))


def fused_gelu(x: torch.Tensor) -> torch.Tensor:
    return F.gelu(x, approximate="tanh")


@pytest.mark.measurefirst(group="gelu")
@pytest.mark.parametrize("n", SIZES)
def test_manual_gelu(measure, n):
    x = torch.randn(n, device=measure.device)  # inputs on the device being measured
    m = measure(lambda: manual_gelu(x))        # a Measurement: median, CI, samples, findings
    assert m.complete
    assert torch.allclose(manual_gelu(x), fused_gelu(x), atol=1e-5)


@pytest.mark.measurefirst(group="gelu")
@pytest.mark.parametrize("n", SIZES)
def test_fused_gelu(measure, n):
    x = torch.randn(n, device=measure.device)
    measure(lambda: fused_gelu(x))


def test_fused_beats_manual(measure):
    x = torch.randn(2**16, device=measure.device)
    result = measure.compare({"manual": lambda: manual_gelu(x), "fused": lambda: fused_gelu(x)})
    # interleaved rounds; fails with the verdict and its CI unless fused is at least 1.2x faster
    result.assert_faster("fused", than="manual", by=1.2)
