"""Is the fused GeLU faster than the hand-written one? Ask compare(): the candidates run
interleaved, so drift on the machine hits both alike, and the verdict carries a 95% CI.

    python examples/compare_gelu.py
"""

import math

import torch
import torch.nn.functional as F

import measurefirst

device = measurefirst.resolve_device("auto")
x = torch.randn(256 * 1024, device=device)


def manual_gelu():
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x * x * x)))


def fused_gelu():
    return F.gelu(x, approximate="tanh")


result = measurefirst.compare({"manual": manual_gelu, "fused": fused_gelu}, device=device, budget=3.0)
print(result)  # "fused: 3.1x faster than manual — time ratio 0.32 (95% CI ...), N interleaved rounds"
verdict = result.verdict("fused")
print(f"speed-up {verdict.speedup:.2f}x, verdict: {verdict.verdict}")
