"""Quick start: time a matrix product the right way, read the result, save it as JSON.

    python examples/quickstart.py
"""

import json
import tempfile
from pathlib import Path

import torch

import measurefirst

device = measurefirst.resolve_device("auto")  # cuda, then mps, then cpu
a = torch.randn(512, 512, device=device)

m = measurefirst.benchmark(lambda: a @ a, device=device, label="matmul 512", budget=2.0)
print(m)  # median, its 95% CI, samples x calls per sample, device and timer, warnings
print(f"median {m.median * 1e6:.1f} us, CI {m.ci}, target met: {m.target_met}")

# The classic fixed-count loop (3 warm-up calls, 10 timed calls), for comparison:
classic = measurefirst.benchmark(lambda: a @ a, device=device, warmup=3, trials=10, label="classic 3+10")
print(classic)

# Results keep their raw samples and round-trip through JSON.
path = Path(tempfile.mkdtemp()) / "matmul.json"
path.write_text(m.to_json())
again = measurefirst.Measurement.from_json(path.read_text())
assert again.median == m.median
print(f"saved {len(json.loads(path.read_text())['samples_ns'])} samples to {path}")
