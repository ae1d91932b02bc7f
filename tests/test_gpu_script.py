"""scripts/gpu_check.sh: it parses, it is shellcheck-clean where shellcheck exists, and its mechanics
(one summary line per step with exit code and seconds, everything under $OUT, the exit code, the
deadline) work, run here with stand-ins for python and nvidia-smi that only record their arguments."""

import os
import re
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent
SCRIPT = ROOT / "scripts" / "gpu_check.sh"
STEPS = ["env-nvidia-smi", "env-gpu", "env-clocks", "env-versions", "selfcheck", "pytest-gpu", "bench-events",
         "bench-wall", "bench-graph", "bench-cold-cache", "compare-gelu", "profile-trace", "doctor-item",
         "peaks-bf16", "step-fp32-bf16", "demo-quick"]


def test_gpu_script_parses():
    subprocess.run(["bash", "-n", str(SCRIPT)], check=True)


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is not installed")
def test_gpu_script_is_shellcheck_clean():
    r = subprocess.run(["shellcheck", str(SCRIPT)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout


def _stub(path: Path, body: str) -> None:
    path.write_text("#!/usr/bin/env bash\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def _run(tmp_path, python_body, deadline="450"):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    _stub(bin_dir / "nvidia-smi", 'echo "nvidia-smi $*"\n')
    _stub(bin_dir / "fakepython", python_body)
    out = tmp_path / "out"
    env = {**os.environ, "OUT": str(out), "PYTHON": str(bin_dir / "fakepython"), "DEADLINE": deadline,
           "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    r = subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, env=env, timeout=120)
    return r, out


def test_every_step_runs_under_a_timeout_with_a_summary_line(tmp_path):
    r, out = _run(tmp_path, 'echo "python $*"\n')
    assert r.returncode == 0, r.stdout + r.stderr
    lines = (out / "summary.txt").read_text().splitlines()
    assert [line.split()[0] for line in lines[:-1]] == STEPS
    assert all(re.fullmatch(r"\S+\s+exit\s+0\s+\d+ s\s+\(limit \d+ s\)", line) for line in lines[:-1])
    assert re.fullmatch(r"total \d+ s, 0 step\(s\) not ok; outputs in .*", lines[-1])
    assert r.stdout.splitlines() == lines  # the summary is also printed
    calls = {name: (out / f"{name}.txt").read_text() for name in STEPS}
    assert "selfcheck --device cuda --lang en -o" in calls["selfcheck"]
    assert "-m pytest tests/gpu -rA --durations=15" in calls["pytest-gpu"]
    for mode, flag in (("events", "--timer event"), ("wall", "--timer wall"), ("graph", "--cuda-graph"),
                       ("cold-cache", "--cold-cache")):
        assert flag in calls[f"bench-{mode}"] and f"-o {out}/bench-{mode}.json" in calls[f"bench-{mode}"]
    assert "--label manual --label fused" in calls["compare-gelu"]
    assert f"--trace {out}/profile-trace.json --memory-snapshot {out}/profile-memory.pickle" in calls["profile-trace"]
    assert ".item()" in calls["doctor-item"] and "--dtype bf16" in calls["peaks-bf16"]
    assert "--dtypes fp32,bf16" in calls["step-fp32-bf16"] and "demo all --device cuda --lang en --quick --json" in calls["demo-quick"]
    assert "persistence_mode,mig.mode.current" in calls["env-gpu"]
    assert (out / "doctor-item.json").read_text() == calls["doctor-item"]  # JSON printed on stdout is kept


def test_a_failing_step_is_reported_and_the_run_exits_1(tmp_path):
    r, out = _run(tmp_path, 'case "$*" in *selfcheck*) echo broken >&2; exit 3;; esac\necho ok\n')
    assert r.returncode == 1
    summary = (out / "summary.txt").read_text()
    assert re.search(r"^selfcheck\s+exit\s+3 ", summary, re.M) and "1 step(s) not ok" in summary
    assert (out / "selfcheck.err").read_text() == "broken\n"


def test_steps_past_the_deadline_are_skipped(tmp_path):
    r, out = _run(tmp_path, 'echo ok\n', deadline="0")
    assert r.returncode == 1
    lines = (out / "summary.txt").read_text().splitlines()
    assert all("skipped: the 0 s deadline was reached" in line for line in lines[:-1]) and len(lines) == len(STEPS) + 1
