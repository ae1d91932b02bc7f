"""Each CUDA method flaw fixed for issue 11 has a test on the simulated GPU that fails without the fix.

This puts every flaw back, one at a time, into a copy of the tree and runs the test that guards it;
each line must say "failed". Run: python scripts/flaw_tests.py (about 15 s).

torch, numpy, hypothesis and pytest are imported once, here; each flaw's tests run in a process forked from
this one (a fresh import of measurefirst and of the tests from the patched copy, without paying torch's
import ten times; the parent runs no torch operator, so no thread pool is forked half-started).
"""

import os
import pathlib
import shutil
import sys
import tempfile

import hypothesis  # noqa: F401  (pytest's plugin for it: imported once, before the forks)
import numpy  # noqa: F401
import pytest
import torch  # noqa: F401  (imported once, before the forks)

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


def run_forked(root: pathlib.Path, k: str) -> str:
    """The last line pytest prints for the tests matching k, run in a child forked from this process."""
    out = root / "pytest.out"
    pid = os.fork()
    if pid == 0:  # the child: the patched copy first on the path, measurefirst not yet imported
        code = 1
        try:
            fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            os.chdir(root)
            sys.path.insert(0, str(root / "src"))
            code = int(pytest.main(["-q", "-p", "no:cacheprovider", "-W", "ignore::pytest.PytestAssertRewriteWarning",
                                       "tests/test_simgpu.py", "-k", k]))
        finally:
            sys.stdout.flush()
            os._exit(code)
    os.waitpid(pid, 0)
    return (out.read_text().strip().splitlines() or ["no output"])[-1]


def main() -> int:
    assert "measurefirst" not in sys.modules, "the children must import the patched copy"
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        shutil.copytree(HERE / "src", root / "src")
        shutil.copytree(HERE / "tests", root / "tests")
        for name, f, old, new, k in FLAWS:
            p = root / f
            src = (HERE / f).read_text()
            if old not in src:
                print(f"{name:50s} -> the fixed code moved; update this script")
                bad += 1
                continue
            p.write_text(src.replace(old, new, 1))
            last = run_forked(root, k)
            print(f"{name:50s} -> {last}", flush=True)
            bad += "failed" not in last
            p.write_text(src)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
