"""Where the time goes: the lecture's hand-written tanh-GeLU launches 9 ops (6 mul, 2 add, 1 tanh),
each reading and writing the whole tensor; F.gelu launches one.

    python examples/profile_gelu.py
"""

import torch
import torch.nn.functional as F

import measurefirst

device = measurefirst.resolve_device("auto")
x = torch.randn(1 << 20, device=device)


def manual_gelu():
    with measurefirst.range("manual-gelu"):  # shows in the profile, the trace and Nsight Systems
        return 0.5 * x * (1 + torch.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))


def fused_gelu():
    return F.gelu(x, approximate="tanh")


diff = measurefirst.profile_compare({"manual": manual_gelu, "fused": fused_gelu}, device=device, steps=2)
print(diff)  # "manual: 9 ops, fused: 1 ops per step" and what only one side runs
p = diff.profiles[0]
for row in p.rows("work"):
    print(f"{row.calls:.0f} x {row.name}: {row.self_s * 1e6:.0f} us, ~{row.bytes_est / 1e6:.0f} MB moved")
