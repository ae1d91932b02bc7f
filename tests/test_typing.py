"""``mypy --strict`` on the package is part of the test suite, so a type error fails CI like any test."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None,
                    reason="mypy is not installed (pip install -r requirements-dev.txt)")
def test_mypy_strict_is_clean() -> None:
    # the cache lives where mypy keeps it by default (.mypy_cache, git-ignored): a rerun takes seconds
    proc = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(ROOT / ".mypy_cache"),
                           "src/measurefirst"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("Success: no issues found")


CALLER = '''
from typing import Any

from measurefirst import Count, Measurement, benchmark

m: Measurement = benchmark(lambda: None, device="cpu", precision=0.05, repeats=3)
c: Count = benchmark(lambda: None, count="instructions", trials=2)
options: dict[str, Any] = {"budget": 1.0}
m2: Measurement = benchmark(lambda: None, **options)
benchmark(lambda: None, precison=0.05)
benchmark(lambda: None, budget="5")
wrong: Count = benchmark(lambda: None)
'''


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None,
                    reason="mypy is not installed (pip install -r requirements-dev.txt)")
def test_callers_of_benchmark_get_its_return_type_and_its_keywords_checked(tmp_path: Path) -> None:
    # benchmark's keywords are written once (a TypedDict unpacked into its overloads): mypy still gives a
    # Measurement, a Count with count=..., and flags a misspelt keyword and a wrongly typed one
    (tmp_path / "caller.py").write_text(CALLER, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(ROOT / ".mypy_cache"),
                           "--no-error-summary", str(tmp_path / "caller.py")], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600, env={**os.environ, "MYPYPATH": str(ROOT / "src")})
    lines = sorted({int(line.split(":")[1]) for line in proc.stdout.splitlines() if ": error:" in line})
    assert lines == [10, 11, 12], proc.stdout + proc.stderr
