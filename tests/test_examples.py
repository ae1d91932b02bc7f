"""Every example runs as it is, and prints what its comments say it prints (on the real clock, so the
figures vary; the lines and what they hold do not)."""

import re
import runpy
from pathlib import Path

import pytest

EXAMPLES = sorted((Path(__file__).parent.parent / "examples").glob("*.py"))
T = r"[\d.]+ (?:ns|µs|ms|s)"  # a time as format_time writes it
#: example -> patterns that must each match a whole line of its output
EXPECTED = {
    # a machine whose speed changes in long stretches can leave too few independent batches for a CI:
    # then the verdict is "undecided" and says so, which is the right answer on the real clock; under heavy load
    # an interval can reach past 10x (seen: 95% CI 0.0027–24.3078 beside a test run in a notebook kernel)
    "compare_gelu.py": [r"fused: .* manual — (time ratio \d+\.\d{4} \(95% CI \d+\.\d{4}–\d+\.\d{4}\)|CI n/a), "
                        r"\d+ interleaved rounds",
                        r"speed-up \d+\.\d\dx, verdict: (faster|slower|no difference|undecided)"],
    "compile_gelu.py": [r"manual, compiled: .* manual — (time ratio \d+\.\d{4} \(95% CI \d+\.\d{4}–\d+\.\d{4}\)|CI n/a), "
                        r"\d+ interleaved rounds",
                        r"compiled: \d+ graph\(s\) in \d+\.\d\d s \((cold|warm|mixed|none) cache\); pays off after "
                        r"(never|[\d,]+ calls)"],
    "count_instructions.py": [r"(python_loop: [\d,]+ instructions per call .*\[cpu, (perf|callgrind)\]"
                              r"|no instruction counter on this machine: .+)"],
    "distributed_ranks.py": [r"rank 0: median [\d.]+ us", r"all_reduce +1K +256 +float32 .*"],
    "doctor_item.py": [r"doctor: step on cpu", r"codes: \[.*'implicit_syncs'.*\]"],
    "grid.py": [r" +matrix product +", r"│ a @ a +│ .*│", r"│ einsum +│ .*│"],
    # the ops of a profile are listed by time, so in any order
    "profile_gelu.py": [r"manual: 9 ops, fused: 1 ops per step",
                        r"only in manual: (?=.*aten::mul x6)(?=.*aten::add x2)(?=.*aten::tanh x1).*", r"only in fused: aten::gelu x1",
                        r"6 x aten::mul: \d+ us, ~\d+ MB moved"],
    "quickstart.py": [rf"matmul 512: {T} (±[\d.]+%|-[\d.]+%/\+[\d.]+%|×/÷[\d.]+) run to run \(95% CI .*; this run's precision .*\), median of \d+ "
                      r"samples × \d+ calls? \[cpu, wall\].*",
                      r"saved \d+ samples to .*matmul\.json"],
    "selfcheck_fault.py": [r"status: (pass|noisy|fail)", r"200 us adaptive: [+-]\d+\.\d% -> (fail|noisy|pass)"],
    "sweep_matmul.py": [rf"  fit: t\(n\) = {T} \+ .*·n\^[\d.]+ .*", r"overhead t0 = [\d.]+ us, exponent k = [\d.]+ .*",
                        r"plot: .*matmul\.png"],
    "tiny_lm.py": [rf"step on cpu: step {T} \(median of 5; .*\)",
                   rf"  phases: data {T}, forward {T}, backward {T}, optimizer {T}",
                   r"tokens/s per device: \d+; measurefirst \d+\.\d+\.\d+"],
}


def test_every_example_has_expectations():
    assert sorted(EXPECTED) == [p.name for p in EXAMPLES]


#: examples that compile with inductor (a C++ build): run in the serial phase, where a slow compile slows nothing else
SERIAL = {"compile_gelu.py"}


@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.realclock) if p.name in SERIAL else p
                                  for p in EXAMPLES], ids=[p.name for p in EXAMPLES])
def test_example_runs(path, capsys):
    runpy.run_path(str(path), run_name="__main__")
    out = capsys.readouterr().out
    missing = [p for p in EXPECTED[path.name] if not re.search(rf"^{p}$", out, re.M)]
    assert not missing, f"{path.name} printed no line matching {missing}:\n{out}"
