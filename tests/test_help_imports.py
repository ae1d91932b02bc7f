"""``--help`` answers at once (issue 27): no command's help imports numpy, torch or the store. Asserted on
what is imported, not on a clock (``benchmarks/`` is the place for times)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from measurefirst.cli.commands import COMMANDS

SRC = str(Path(__file__).resolve().parents[1] / "src")
HEAVY = ("numpy", "torch", "measurefirst.results.store", "sqlite3", "rich")

PROBE = """
import json, sys
sys.path.insert(0, {src!r})
from measurefirst.cli.commands import main
try:
    main({argv!r})
except SystemExit:
    pass
print(json.dumps([m for m in {heavy!r} if m in sys.modules]))
"""


@pytest.mark.parametrize("argv", [["--help"]] + [[c, "--help"] for c in sorted(COMMANDS)], ids=lambda a: " ".join(a))
def test_help_imports_nothing_heavy(argv: list[str]) -> None:
    out = subprocess.run([sys.executable, "-c", PROBE.format(src=SRC, argv=argv, heavy=HEAVY)],
                         capture_output=True, text=True, check=True).stdout
    assert json.loads(out.strip().splitlines()[-1]) == [], f"measurefirst {' '.join(argv)} imports heavy modules"


def test_step_help_shows_the_build_contract() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE.format(src=SRC, argv=["step", "--help"], heavy=HEAVY)],
                         capture_output=True, text=True, check=True).stdout
    assert "optimizer (torch.optim.Optimizer)" in " ".join(out.split())
