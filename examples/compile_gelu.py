"""The lecture's first trap, on the way PyTorch is made fast today: the first call of a compiled function
is the compiler. compare() times the hand-written GeLU, torch's fused one, and the hand-written one
compiled, interleaved; the compile is kept off the budget and out of the samples, and shown apart with
the calls it takes to pay for itself.

    python examples/compile_gelu.py
"""

import math

import torch
import torch.nn.functional as F

import measurefirst

torch.set_num_threads(1)
x = torch.randn(64 * 1024)


def manual_gelu():
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x * x * x)))


def fused_gelu():
    return F.gelu(x, approximate="tanh")


compiled_gelu = torch.compile(manual_gelu)  # compiled on its first call, inside compare()

result = measurefirst.compare({"manual": manual_gelu, "F.gelu": fused_gelu, "manual, compiled": compiled_gelu},
                              device="cpu", budget=3.0)
print(result)  # "manual, compiled: 4.1x faster than manual — time ratio 0.24 (95% CI ...), N interleaved rounds"
c = result["manual, compiled"].compiled
calls = result.break_even("manual, compiled")
print(f"compiled: {c.graphs} graph(s) in {c.first_s:.2f} s ({c.cache} cache); pays off after "
      + ("never" if calls is None or math.isinf(calls) else f"{math.ceil(calls):,} calls"))
