"""A freshly compiled function, as each tool reads it: cold compile, warm compile, steady call (issue 34).

    python benchmarks/compile.py                         # the three functions (about 10 minutes: cold compiles)
    python benchmarks/compile.py --functions elementwise # one of them
    python benchmarks/compile.py --log                   # also write docs/compile-DATE.txt

For each function (``elementwise``: the lecture's ``gelu(x) * 2 + 1`` on 4096 floats; ``matmul``: a chain
of two 256x256 products with a ReLU between; ``block``: a small transformer encoder layer, d_model 128,
eval mode, batch 8 x 32 tokens), each tool runs in its own fresh interpreter on ``torch.compile(f)``
called for the first time, as a user would time it, torch on one thread:

* ``measurefirst``: ``benchmark(lambda: cf(x))`` with an empty inductor cache (its cold compile, shown
  apart, and the steady call), then again in a second fresh interpreter on the same cache (the warm
  compile); in that one, after calling ``cf`` three times by hand, the hand-warmed steady call (the
  truth the others are read against) and the eager function;
* ``torch.utils.benchmark``: ``Timer("cf(x)").blocked_autorange(min_run_time=1)`` (its median), empty cache;
* ``warm once, then time``: one call, then a timed loop of 100 ms (triton's ``do_bench`` on the CPU:
  the mean per call), empty cache.

It prints, per function: what each tool reports as the time of one call, over the hand-warmed truth;
measurefirst's cold and warm compile (torch's own accounting) and the calls until compiling pays for
itself against eager. The machine decides the figures: this is a script, not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workloads import Log, table  # noqa: E402  (beside this script)

SRC = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))
FUNCTIONS = ("elementwise", "matmul", "block")
TOOLS = ("measurefirst", "torch.utils.benchmark", "warm once, then time")


def build(name: str) -> tuple[Any, Any]:
    """The eager function and its input (in a worker)."""
    import torch

    torch.manual_seed(0)
    if name == "elementwise":
        x = torch.randn(4096)
        return (lambda: torch.nn.functional.gelu(x) * 2 + 1), x
    if name == "matmul":
        a, b, c = (torch.randn(256, 256) for _ in range(3))
        return (lambda: torch.relu(a @ b) @ c), a
    layer = torch.nn.TransformerEncoderLayer(d_model=128, nhead=4, dim_feedforward=256, batch_first=True).eval()
    x = torch.randn(8, 32, 128)

    def block() -> Any:
        with torch.no_grad():
            return layer(x)

    return block, x


def worker(tool: str, name: str) -> dict[str, Any]:
    import torch

    torch.set_num_threads(1)
    f, _ = build(name)
    cf = torch.compile(f)
    if tool == "measurefirst" or tool == "measurefirst-warm":
        import measurefirst

        m = measurefirst.benchmark(cf, device="cpu", budget=3)
        out: dict[str, Any] = {"median": m.median, "compile_s": m.compiled.first_s if m.compiled else None,
                               "cache": m.compiled.cache if m.compiled else None,
                               "codes": [x.code for x in m.findings]}
        if tool == "measurefirst-warm":
            for _ in range(3):
                cf()
            out["truth"] = measurefirst.benchmark(cf, device="cpu", budget=3).median
            out["eager"] = measurefirst.benchmark(f, device="cpu", budget=3).median
        return out
    if tool == "torch.utils.benchmark":
        import torch.utils.benchmark as tub

        return {"median": float(tub.Timer(stmt="cf()", globals={"cf": cf}).blocked_autorange(min_run_time=1).median)}
    cf()  # warm once, then time: do_bench's way on the CPU (a 100 ms loop, the mean)
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < 0.1:
        cf()
        n += 1
    return {"median": (time.perf_counter() - t0) / n}


def run(tool: str, name: str, cache: str) -> tuple[dict[str, Any], float]:
    env = {**os.environ, "PYTHONPATH": SRC, "TORCHINDUCTOR_CACHE_DIR": cache}
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", tool, name], env=env,
                          capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"{tool} on {name} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1]), wall


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--functions", default=",".join(FUNCTIONS))
    ap.add_argument("--log", action="store_true")
    ap.add_argument("--worker", nargs=2, metavar=("TOOL", "FUNCTION"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        print(json.dumps(worker(*args.worker)))
        return
    import torch

    log = Log()
    log(f"compile.py: torch {torch.__version__}, 1 thread, {os.cpu_count()} cores; each tool in a fresh interpreter "
        f"on a function compiled and not yet called")
    rows, costs = [], []
    for name in args.functions.split(","):
        tmp = tempfile.mkdtemp(prefix="mf-compile-")
        try:
            cold, cold_wall = run("measurefirst", name, os.path.join(tmp, "mf"))
            warm, warm_wall = run("measurefirst-warm", name, os.path.join(tmp, "mf"))
            truth = warm["truth"]
            reads = {"measurefirst": (cold, cold_wall)}
            for tool in TOOLS[1:]:
                reads[tool] = run(tool, name, os.path.join(tmp, tool.replace(" ", "_").replace(",", "")))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        for tool, (r, wall) in reads.items():
            rows.append([name, tool, _time(r["median"]), f"{r['median'] / truth:.3g}x", f"{wall:.0f} s",
                         "call_exceeds_budget" if "call_exceeds_budget" in r.get("codes", []) else ""])
        saved = warm["eager"] - truth
        pays = f"{cold['compile_s'] / saved:,.0f}" if saved > 0 and cold["compile_s"] else "never (not faster)"
        costs.append([name, _time(truth), _time(warm["eager"]), f"{cold['compile_s']:.1f} s ({cold['cache']})",
                      f"{warm['compile_s']:.1f} s ({warm['cache']})", pays])
    table(log, ["function", "tool", "reports one call as", "over the hand-warmed call", "wall", "finding"], rows)
    log("")
    table(log, ["function", "compiled, hand-warmed", "eager", "cold compile", "warm compile",
                "calls until compiling pays off (cold)"], costs)
    if args.log:
        log("wrote", log.save("compile"))


def _time(s: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


if __name__ == "__main__":
    main()
