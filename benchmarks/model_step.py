"""The example Transformer LM's training step on this machine: phases, memory where available,
tokens/s, MFU against the dense-peak table (GPUs) and against the peak measured here.

    python benchmarks/model_step.py                 # eager fp32 and bf16 (CPU: about a minute)
    python benchmarks/model_step.py --compile       # adds torch.compile (inductor) if it works here
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples"))

from rich.console import Console  # noqa: E402

import tiny_lm  # noqa: E402
from measurefirst import resolve_device  # noqa: E402
from measurefirst.render.step import step_table  # noqa: E402
from measurefirst.tools.roofline import measure_peaks  # noqa: E402
from measurefirst.tools.step import compare_steps  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", default="auto")
    ap.add_argument("--compile", action="store_true")
    ap.add_argument("--steps", type=int, default=10)
    args = ap.parse_args()
    dev = resolve_device(args.device)
    peak = measure_peaks(dev, "float32", budget=1.0).flops_per_s
    variants = ["eager"] + (["compile"] if args.compile else [])
    result = compare_steps(tiny_lm.build, variants=variants, dtypes=["fp32", "bf16"], device=dev,
                           steps=args.steps, warmup=3, measured_peak=peak)
    console = Console(width=200)
    console.print(step_table(result.steps, result.comparison))
    console.print(str(result), markup=False)  # each step's lines, then the comparison's


if __name__ == "__main__":
    main()
