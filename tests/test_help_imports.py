"""``--help`` answers at once (issue 27): no command's help imports numpy, torch or the store; and the
commands that read the store import only what they use (issue 29): ``runs`` and ``history`` no numpy
(they read the runs' columns), ``compare @A @B`` no torch. Asserted on what is imported, not on a clock
(``benchmarks/`` is the place for times)."""

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


#: What reading the store never needs; numpy too for the commands that show the runs' columns only.
NEVER = ("torch", "scipy", "matplotlib", "pandas")


@pytest.fixture(scope="module")
def small_store(tmp_path_factory: pytest.TempPathFactory) -> str:
    from dataclasses import replace

    from measurefirst.results.store import Store
    from test_store import sim

    path = str(tmp_path_factory.mktemp("store") / "r.db")
    m = sim(label="a")
    with Store(path) as s:
        for i in range(10):
            s.save(replace(m, samples_ns=tuple(x * (1 + i % 3 / 100) for x in m.samples_ns)), "a", commit=f"c{i}")
    return path


@pytest.mark.parametrize("argv, heavy", [pytest.param(a, h, id=" ".join(a)) for a, h in [
    (["runs"], ("numpy", *NEVER)), (["history", "a"], ("numpy", *NEVER)), (["runs", "list", "a"], ("numpy", *NEVER)),
    (["compare", "@a~1", "@a"], NEVER), (["compare", "@a"], NEVER)]])
def test_reading_the_store_imports_only_what_it_uses(small_store: str, argv: list[str], heavy: tuple[str, ...]) -> None:
    out = subprocess.run([sys.executable, "-c", PROBE.format(src=SRC, argv=[*argv, "--store", small_store], heavy=heavy)],
                         capture_output=True, text=True, check=True).stdout
    assert json.loads(out.strip().splitlines()[-1]) == [], f"measurefirst {' '.join(argv)} imports {heavy}"
