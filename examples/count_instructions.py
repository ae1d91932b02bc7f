"""Instruction counts instead of times: a CI gate that does not flake on a noisy runner.

    python examples/count_instructions.py

Counts the user-space instructions per call of two ways to sum a list, in a fresh process (hardware
counters where the kernel exposes them, else valgrind's callgrind), then checks the second against
the first as a CI job would. The functions live at module level and this module imports nothing
heavy at the top: the counting process imports it (under valgrind, where every import is slow).
"""

DATA = list(range(2000))


def python_loop() -> int:
    total = 0
    for x in DATA:
        total += x
    return total


def builtin_sum() -> int:
    return sum(DATA)


if __name__ == "__main__":
    import measurefirst
    from measurefirst import CountError

    try:
        loop = measurefirst.benchmark(python_loop, count="instructions", number=5)
        fast = measurefirst.benchmark(builtin_sum, count="instructions", number=5)
    except CountError as exc:
        print(f"no instruction counter on this machine: {exc}")
    else:
        print(loop)
        print(fast)
        gate = measurefirst.change(loop, fast)  # as `measurefirst compare loop.json fast.json --fail-if-slower`
        print(f"builtin_sum vs python_loop: {gate.words()}; regression: {gate.regression}")
