"""The house by concept (issue 26): few modules at the top, py.typed shipped, the old module paths still
served (with a DeprecationWarning) by the one finder in ``measurefirst._lazy``, and clocks read only by
the timers and the machine seam."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "src" / "measurefirst"
#: Where a clock may be read: the timers and the machine seam (``machine().clock_ns``).
CLOCK_HOMES = {"measure/timers.py", "measure/devices.py"}
CLOCKS = {"perf_counter", "perf_counter_ns", "monotonic", "monotonic_ns", "time", "time_ns", "process_time",
          "process_time_ns", "thread_time", "thread_time_ns", "clock_gettime", "clock_gettime_ns"}


def clock_reads(tree: ast.AST) -> set[str]:
    found = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Attribute) and n.attr in CLOCKS and isinstance(n.value, ast.Name) and n.value.id == "time":
            found.add(f"time.{n.attr}")
        elif isinstance(n, ast.ImportFrom) and n.module in ("time", "timeit"):
            found.add(f"from {n.module} import")
        elif isinstance(n, ast.Import) and any(a.name == "timeit" for a in n.names):
            found.add("import timeit")
        elif isinstance(n, ast.Attribute) and n.attr == "clock_ns":
            found.add(".clock_ns")
    return found


def test_the_clock_rule_sees_every_way_to_read_a_clock() -> None:
    code = "import time, timeit\nfrom time import monotonic\nt = time.perf_counter()\nm.clock_ns()\nx = time.sleep"
    assert clock_reads(ast.parse(code)) == {"import timeit", "from time import", "time.perf_counter", ".clock_ns"}


def test_only_the_timers_and_the_machine_seam_read_a_clock() -> None:
    # a timeout's deadline is timers.Deadline; a truth or a workload read beside a timer, timers.host_clock;
    # a reference tool with its own clock (timeit), timers.python_timeit
    found = {p.relative_to(PKG).as_posix(): clock_reads(ast.parse(p.read_text(encoding="utf-8")))
             for p in sorted(PKG.rglob("*.py"))}
    outside = {k: v for k, v in found.items() if v and k not in CLOCK_HOMES}
    assert not outside, f"a clock read outside measure/timers.py and the machine seam: {outside}"
    assert found["measure/timers.py"] and found["measure/devices.py"], "the rule looks where the clocks are"


def test_at_most_eight_modules_at_the_top_and_py_typed_shipped() -> None:
    top = sorted(p.name for p in PKG.glob("*.py") if p.name not in ("__init__.py", "__main__.py"))
    assert len(top) <= 8, top
    assert (PKG / "py.typed").is_file()
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    data = config["tool"]["setuptools"]["package-data"]["measurefirst"]
    assert "py.typed" in data
    # the faces' stubs (issue 39) ship with the package: a user's type checker reads the names from them
    import fnmatch

    stubs = [p.relative_to(PKG).as_posix() for p in PKG.rglob("*.pyi")]
    assert stubs and all(any(fnmatch.fnmatch(s, pat) for pat in data) for s in stubs), stubs


def test_old_module_paths_give_the_new_modules_with_one_warning() -> None:
    code = """
import importlib, warnings
import measurefirst
from measurefirst._lazy import MOVED
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import measurefirst.engine as old
    import measurefirst.engine as again
    from measurefirst.results import Measurement
    from measurefirst.cli import main
import measurefirst.measure.engine as new
from measurefirst.results.kinds import Measurement as M
from measurefirst.cli.commands import main as m
texts = [str(w.message) for w in caught if w.category is DeprecationWarning]
assert old is new is again and Measurement is M and main is m, (old, new)
assert texts == ["measurefirst.engine moved to measurefirst.measure.engine: import it from there (the old path goes "
                 "in the next release)", "measurefirst.results.Measurement moved to measurefirst.results.kinds."
                 "Measurement: import it from there (the old path goes in the next release)"], texts
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    for old_path, new_path in MOVED.items():
        assert importlib.import_module(old_path) is importlib.import_module(new_path), old_path
    import measurefirst.compare
assert callable(measurefirst.compare) and callable(measurefirst.sweep), "the public functions stay bound"
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_the_moved_table_names_only_modules_that_exist_at_their_new_path() -> None:
    from measurefirst._lazy import FORMER, MOVED

    for old, new in {**MOVED, **FORMER}.items():
        assert not (ROOT / "src" / (old.replace(".", "/") + ".py")).exists(), f"{old} is still a file"
        assert (ROOT / "src" / (new.replace(".", "/") + ".py")).is_file(), new


def test_a_deadline_is_the_one_clock_for_timeouts() -> None:
    import math

    from measurefirst.measure.timers import Deadline

    never, now, far = Deadline(None), Deadline(0), Deadline(1e6)
    assert not never.passed() and never.left() == math.inf
    assert now.passed() and now.left() <= 0
    assert not far.passed() and 1e6 - 60 < far.left() <= 1e6  # orderings with wide margins, not timings
    assert far.sooner(0).passed() and far.sooner(1e9) is far and never.sooner(1e6).left() <= 1e6


def test_only_the_timers_and_the_machine_seam_make_device_events() -> None:
    """Issue 39: a CUDA or MPS event is a clock too; the rank step's waits go through the timers' span."""
    found = {p.relative_to(PKG).as_posix() for p in sorted(PKG.rglob("*.py"))
             if any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "Event"
                    and ast.unparse(n.func.value).split(".")[-1] in ("cuda", "event", "mps")  # not threading.Event
                    for n in ast.walk(ast.parse(p.read_text(encoding="utf-8"))))}
    assert found and found <= CLOCK_HOMES, found - CLOCK_HOMES
