"""doctor() audits a function: here a training-style loop that calls .item() every iteration and
launches many tiny ops.

    python examples/doctor_item.py
"""

import torch

import measurefirst

device = measurefirst.resolve_device("auto")
w = torch.randn(64, device=device)


def step():
    losses = []
    for i in range(30):
        loss = ((w * i) ** 2).mean()
        losses.append(loss.item())  # a host-device sync on a GPU, every iteration
    return sum(losses)


diagnosis = measurefirst.doctor(step, device=device, budget=1.0)
print(diagnosis)  # each finding: what was measured, why it matters, what to do
print("codes:", diagnosis.codes())
