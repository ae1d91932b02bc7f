"""Each CUDA method flaw fixed for issue 11 has a test on the simulated GPU that fails without the fix.

This puts every flaw back, one at a time, into a copy of the tree and runs the test that guards it;
each line must say "failed". Run: python scripts/flaw_tests.py (about 15 s).
"""

import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent.parent
# (what the flaw was, file, the fixed code, the flawed code, the tests that guard it)
FLAWS = [
 ("setup after flush (old order)", "src/measurefirst/measure/sampler.py",
  "            self._set_up()\n            self._compile_mark = self.compile_log.mark()\n            r = self.timer.time(self.run, self.flush)",
  "            if self.flush is not None:\n                self.flush()\n            self._set_up()\n            self._compile_mark = self.compile_log.mark()\n            r = self.timer.time(self.run, None)", "cold_cache_sets_up"),
 ("flush exactly the L2", "src/measurefirst/measure/calibrating.py", "    return FLUSH_FACTOR * last_level_cache_bytes(device)", "    return last_level_cache_bytes(device)", "flush_is_twice"),
 ("synchronize between flush and start event", "src/measurefirst/measure/timers.py", "        if prelude is not None:\n            prelude()\n        self._record(self._start)", "        if prelude is not None:\n            prelude()\n        self._sync()\n        self._record(self._start)", "cold_cache_sets_up or flush_is_twice"),
 ("overhead probe without a launch", "src/measurefirst/measure/sampler.py", "        probe = self.timer.probe()", "        probe = lambda: None", "overhead_probe"),
 ("no untimed graph replay", "src/measurefirst/measure/sampler.py", "        replay()  # the first replay pays the graph's upload: never timed\n", "", "graph_upload"),
 ("no graph recalibration", "src/measurefirst/measure/sampler.py", "        for _ in range(GRAPH_RECALIBRATIONS if self.adaptive else 0):", "        for _ in range(0):", "recalibrated"),
 ("default capture stream", "src/measurefirst/measure/sampler.py", "        with cuda.graph(graph, stream=cuda.Stream(device)):", "        with cuda.graph(graph):", "requested_gpu"),
 ("auto device not observed", "src/measurefirst/measure/inputs.py", "    if not is_auto(device) or dev.type == \"cpu\":", "    if True:", "auto_times_cpu"),
 ("legacy TF32 read", "src/measurefirst/measure/devices.py", "    new = getattr(matmul, \"fp32_precision\", None) if matmul is not None else None", "    new = None; _ = torch.backends.cuda.matmul.allow_tf32", "tf32"),
 ("no unjoined-stream check (no full-device sync)", "src/measurefirst/measure/timers.py", "        self._sync()  # the whole device: work left on another stream shows in synced_ns\n", "", "unjoined_stream_is"),
]


def main() -> int:
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        shutil.copytree(HERE / "src", root / "src")
        shutil.copytree(HERE / "tests", root / "tests")
        env = {**os.environ, "PYTHONPATH": str(root / "src")}
        for name, f, old, new, k in FLAWS:
            p = root / f
            src = (HERE / f).read_text()
            if old not in src:
                print(f"{name:50s} -> the fixed code moved; update this script")
                bad += 1
                continue
            p.write_text(src.replace(old, new, 1))
            r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_simgpu.py",
                                "-k", k], cwd=root, capture_output=True, text=True, timeout=300, env=env)
            last = (r.stdout.strip().splitlines() or ["no output"])[-1]
            print(f"{name:50s} -> {last}")
            bad += "failed" not in last
            p.write_text(src)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
