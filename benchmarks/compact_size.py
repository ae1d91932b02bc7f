"""How many bytes does the store keep per default run? The compact form before issue 29 (format 1) and now.

    python benchmarks/compact_size.py                 # each workload measured 3 times
    python benchmarks/compact_size.py --repeats 1     # quicker
    python benchmarks/compact_size.py --samples 1600  # runs of exactly 1,600 samples each
    python benchmarks/compact_size.py --migrate 1000  # also: migrating a store of 1,000 format-1 runs

Each run is a real ``benchmark(fn)`` of this machine with every option at its default (the sample
count is the stopping rule's: a noisy machine takes more): a 1-element add, a 20 µs busy-wait and a
256x256 matmul on the CPU (one thread), and a 50 µs kernel (2% noise) on the simulated GPU with its
event times rounded to float32 as ``torch.cuda.Event.elapsed_time`` returns them. Printed per run: what
stopped it, its samples and warm-up calls, its JSON, format 1 (``MFZ1``, the packer as of commit ``FORMAT_1_COMMIT``,
read from git) and the current format, in bytes, both checked lossless; and, for scale, an estimate of
the information in its samples and warm-up times (Vasicek's m-spacing estimate of the entropy of the
whole nanoseconds, in bits per value and bytes): no lossless form can be much below it. This is a
script, not a test: the machine's noise decides the figures. ``--migrate N`` also times the migration of
an SQLite store of schema 3 holding N runs in format 1 (the last run measured, N times) when it is
opened: wall and CPU seconds.
"""

from __future__ import annotations

import argparse
import array
import importlib.util
import json
import math
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

#: The last commit whose compact.py wrote format 1.
FORMAT_1_COMMIT = "89392e0"
LIMIT_BYTES = 4096


def format_1() -> ModuleType | None:
    """The packer of format 1, as it was (None without git)."""
    try:
        source = subprocess.run(["git", "show", f"{FORMAT_1_COMMIT}:src/measurefirst/results/compact.py"], cwd=ROOT,
                                capture_output=True, text=True, check=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    spec = importlib.util.spec_from_loader("compact_format_1", loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    exec(compile(source, "compact_format_1.py", "exec"), module.__dict__)
    return module


def workloads(samples: int | None = None) -> dict[str, Callable[[], Any]]:
    """Each workload's default-options measurement (a function that measures it); with ``samples``,
    one of exactly that many samples instead (``min_samples = max_samples``)."""
    import torch

    from measurefirst import benchmark

    torch.set_num_threads(1)
    x, a = torch.ones(1), torch.randn(256, 256)
    fixed = {} if samples is None else {"min_samples": samples, "max_samples": samples}

    def busy() -> None:
        end = time.perf_counter_ns() + 20_000
        while time.perf_counter_ns() < end:
            pass

    def simulated_gpu() -> Any:
        from measurefirst.measure import simulate

        exact = simulate._Event.elapsed_time

        def float32(self: Any, end: Any) -> float:  # torch returns the milliseconds as a C float
            return array.array("f", [exact(self, end)])[0]

        gpu = simulate.SimGPU(noise=0.02)
        simulate._Event.elapsed_time = float32  # type: ignore[method-assign]
        try:
            with gpu.installed():
                return benchmark(gpu.kernel(50_000.0), label="simgpu", **fixed)
        finally:
            simulate._Event.elapsed_time = exact  # type: ignore[method-assign]

    return {"add1": lambda: benchmark(lambda: x + 1, label="add1", **fixed),
            "busy20us": lambda: benchmark(busy, label="busy20us", **fixed),
            "matmul256": lambda: benchmark(lambda: a @ a, label="matmul256", **fixed),
            "simgpu-f32": simulated_gpu}


def entropy_bits(values: list[float]) -> float:
    """Vasicek's m-spacing estimate of the entropy (bits per value) of ``values`` in whole nanoseconds
    (in steps of their greatest common divisor)."""
    ns = sorted(round(v) for v in values)
    step = math.gcd(*[v - ns[0] for v in ns]) or 1
    n = len(ns)
    if n < 2:
        return 0.0
    m = max(1, round(math.sqrt(n) / 2))
    return sum(math.log2(max((ns[min(n - 1, i + m)] - ns[max(0, i - m)]) / step, 1) * n / (2 * m))
               for i in range(n)) / n


def migrate(doc: dict[str, Any], old: ModuleType, runs: int) -> None:
    """Time opening (so migrating) a schema 3 SQLite store of ``runs`` runs holding ``doc`` in format 1."""
    import tempfile

    from measurefirst.results.kinds import Measurement
    from measurefirst.results.store import STORE_SCHEMA, Store

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "old.db"
        with Store(path) as s:
            row = ("run", "2026-12-02", "cpu", None, "host", "commit", 1.0, 1.0, 1.0, 1, 1, "measurement")
            s._write_rows([(row, old.pack(doc))] * runs)
            s.conn.execute("PRAGMA user_version = 3")
        wall, cpu = time.perf_counter(), time.process_time()
        with Store(path) as s:
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            assert s.schema == STORE_SCHEMA and s.get(runs) == Measurement.from_dict(doc)
    print(f"migrating {runs} format-1 runs to format 2 on opening: {wall:.2f} s wall, {cpu:.2f} s CPU "
          f"({1e3 * cpu / runs:.1f} ms CPU per run)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3, help="runs of each workload (default 3)")
    ap.add_argument("--migrate", type=int, default=0, metavar="N",
                    help="also time the migration of a store of N format-1 runs (the last run measured)")
    ap.add_argument("--samples", type=int, default=None,
                    help="runs of exactly this many samples instead of the stopping rule's (e.g. 1600)")
    args = ap.parse_args()
    from measurefirst.results.compact import pack, unpack

    old = format_1()
    print(f"{'workload':12s} {'stopped by':>11s} {'samples':>7s} {'warm-up':>7s} {'JSON B':>8s} {'format 1 B':>10s} "
          f"{'format 2 B':>10s} {'ratio':>6s} {'samples+warm-up information':>30s}  <= 4 KB")
    for label, measure in workloads(args.samples).items():
        for _ in range(args.repeats):
            m = measure()
            doc = json.loads(m.to_json(indent=None))
            now = pack(doc)
            assert unpack(now) == doc
            before = old.pack(doc) if old is not None else b""
            assert old is None or old.unpack(before) == doc
            warm = list(doc["warmup"]["times_ns"] or [])
            bits_s, bits_w = entropy_bits(list(m.samples_ns)), entropy_bits(warm)
            information = (bits_s * len(m.samples_ns) + bits_w * len(warm)) / 8
            print(f"{label:12s} {m.stop.reason:>11s} {len(m.samples_ns):7d} {len(warm):7d} "
                  f"{len(m.to_json(indent=None)):8d} {len(before) if old else float('nan'):10} {len(now):10d} "
                  f"{len(before) / len(now) if old else float('nan'):6.2f} "
                  f"{f'{bits_s:.1f} + {bits_w:.1f} bits/value = {information:.0f} B':>30s}  "
                  f"{'yes' if len(now) <= LIMIT_BYTES else 'no'}")
    if args.migrate and old is not None:
        migrate(doc, old, args.migrate)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
