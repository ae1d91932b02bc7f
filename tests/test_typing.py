"""``mypy --strict`` on the package is part of the test suite, so a type error fails CI like any test."""

from __future__ import annotations

import importlib.util
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
