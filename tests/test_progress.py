"""Progress on long work (issue 27): measuring code reports where it stands (:mod:`measurefirst.measure.progress`),
the command line draws one line on stderr on a terminal only (tested through a pseudo-terminal), and
never with ``--json``, ``--quiet`` or a pipe. The events carry the measuring clock's times: with the
simulated clock, the figures are exact."""

from __future__ import annotations

import io
import os
import pty
import select
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from measurefirst.measure import progress
from measurefirst.measure.progress import Event
from measurefirst.render.progress import ProgressLine, progress_text

ROOT = Path(__file__).resolve().parents[1]
SIM = "call=100us,noise=0.01,seed=2;call=110us"


def test_nested_events_make_one_line_outermost_first_with_the_innermost_budget() -> None:
    events = {"sweep": Event("sweep", "matmul n=256", 3, 12),
              "bench": Event("bench", "matmul n=256", 2, 5, elapsed_s=0.5, budget_s=2.0)}
    assert progress_text(events, "en") == ("sweep: matmul n=256 (3 of 12) · benchmark: matmul n=256 (2 of 5) · "
                                           "1.5 s of the budget left")
    assert progress_text(events, "zh") == "规模扫描：matmul n=256 (第 3/12) · 基准：matmul n=256 (第 2/5) · 预算还剩 1.5 秒".replace(
        "：", ": ")


def test_time_left_never_goes_below_zero() -> None:
    assert Event("bench", "x", elapsed_s=7.0, budget_s=5.0).left_s == 0.0
    assert Event("step", "eager/fp32").left_s is None


def test_a_new_outer_item_drops_the_inner_work_of_the_last_one() -> None:
    line = ProgressLine(file=io.StringIO(), terminal=True)
    line(Event("sweep", "add n=1024", 1, 2))
    line(Event("bench", "add n=1024", elapsed_s=0.1, budget_s=2.0))
    line(Event("sweep", "add n=4096", 2, 2))
    assert set(line.events) == {"sweep"}
    line.close()


def test_the_line_is_drawn_on_a_terminal_and_gives_way_to_output() -> None:
    buf = io.StringIO()
    line = ProgressLine(file=buf, terminal=True)
    with progress.showing(line):
        progress.report("compare", "fused", 3, 0, 1.0, 5.0)
        progress.pause()  # what emit does before it prints
        assert line._live is None
    line.close()
    assert "fused" in buf.getvalue() and "4.0 s of the budget left" in buf.getvalue()


def test_redraws_are_throttled_by_the_measuring_clock() -> None:
    drawn: list[str] = []
    line = ProgressLine(file=io.StringIO(), terminal=True)
    line._draw = drawn.append  # type: ignore[method-assign]
    for k in range(100):  # 100 samples within 0.1 s of the measuring clock: one line, not a hundred
        line(Event("bench", "x", 1, 5, elapsed_s=k * 0.001, budget_s=5.0))
    line(Event("bench", "x", 1, 5, elapsed_s=0.5, budget_s=5.0))
    assert len(drawn) == 2


def test_benchmark_and_compare_report_with_the_simulated_clock() -> None:
    from measurefirst import benchmark, compare
    from measurefirst.measure.simulate import SimSpec, SimWorld

    events: list[Event] = []
    w = SimWorld(SimSpec(call_ns=100_000, timer_ns=100, seed=3))
    with progress.showing(events.append):
        benchmark(w.function(), timer=w.timer(), device="cpu", label="sim", budget=2.0, repeats=3)
    bench = [e for e in events if e.tool == "bench"]
    assert bench and {e.item for e in bench} == {"sim"} and {e.budget_s for e in bench} == {2.0}
    elapsed = [e.elapsed_s for e in bench]
    assert elapsed == sorted(elapsed) and 0 < elapsed[-1] <= 2.0 + 0.1
    assert [e.done for e in bench][-1] == 3 and {e.total for e in bench} == {3}
    events.clear()
    w = SimWorld(SimSpec(call_ns=100_000, timer_ns=100, seed=3))
    with progress.showing(events.append):
        compare({"a": w.function(100_000), "b": w.function(110_000)}, timer=w.timer(), device="cpu", budget=1.0)
    rounds = [e for e in events if e.tool == "compare"]
    assert {e.item for e in rounds} == {"a", "b"} and max(e.done for e in rounds) >= 2
    assert all(e.budget_s == 1.0 and e.elapsed_s is not None and e.elapsed_s <= 1.0 + 0.1 for e in rounds)


def test_nothing_is_reported_without_a_sink() -> None:
    assert not progress.active()
    progress.report("bench", "x")  # no sink: nothing happens, nothing raises


def _on_a_terminal(argv: list[str], timeout: float = 120.0) -> tuple[int, str, str]:
    """Run ``measurefirst ARGV`` with stderr on a pseudo-terminal (stdout a pipe): (code, stdout, tty)."""
    master, slave = pty.openpty()
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), COLUMNS="200")
    env.pop("RANK", None)
    stdout = tempfile.TemporaryFile()  # a file, not a pipe: a full pipe would block the child
    proc = subprocess.Popen([sys.executable, "-m", "measurefirst", *argv], stdout=stdout, stderr=slave,
                            stdin=subprocess.DEVNULL, env=env, cwd=ROOT)
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], timeout)
        if not ready:
            proc.kill()
            pytest.fail(f"no output on the terminal for {timeout} s")
        try:
            data = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    code = proc.wait()
    stdout.seek(0)
    return code, stdout.read().decode(), b"".join(chunks).decode(errors="replace")


def test_compare_shows_progress_on_a_terminal() -> None:
    code, out, tty = _on_a_terminal(["compare", "--simulate", SIM, "--label", "base", "--label", "fused", "x", "y"])
    assert code == 0, tty
    assert "compare: " in tty and "of the budget left" in tty
    assert "fused" in tty and "fused" in out  # the result itself on stdout, the line on the terminal


def test_no_line_with_json_quiet_or_a_pipe() -> None:
    for extra in (["--json"], ["--quiet"]):
        code, _, tty = _on_a_terminal(["compare", "--simulate", SIM, *extra, "x", "y"])
        assert code == 0 and "of the budget left" not in tty
    piped = subprocess.run([sys.executable, "-m", "measurefirst", "compare", "--simulate", SIM, "x", "y"],
                           capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT / "src")), cwd=ROOT)
    assert piped.returncode == 0 and "of the budget left" not in piped.stderr


def test_step_shows_progress_on_a_terminal() -> None:
    code, out, tty = _on_a_terminal(["step", "examples/tiny_lm.py:build", "--steps", "3", "--warmup", "1",
                                     "--no-peaks", "--lang", "zh"], timeout=300)
    assert code == 0, tty
    assert "训练步" in tty and "eager/fp32" in tty
