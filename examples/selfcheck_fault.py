"""selfcheck(): can these numbers be trusted on this machine? A short check of two known durations,
then the same check with a clock that reads 10% long, which it must catch.

    python examples/selfcheck_fault.py
    measurefirst selfcheck --quick          # the whole check: 4 durations, references, traps, machine

The truth of each row is the busy-wait's own clock, read during the very calls the estimate timed.
"""

import measurefirst
from measurefirst import FaultyTimer, WallTimer

short = dict(durations_ns=(200_000, 2_000_000), references=False, traps=False, peaks=False)

sc = measurefirst.selfcheck("cpu", quick=True, **short)
print(sc)  # truth, estimate, relative error, tolerance, noise and PASS / FAIL / NOISY per row
print(f"status: {sc.status}")  # "noisy" means the machine was too noisy to judge, not a pass

faulty = measurefirst.selfcheck("cpu", quick=True, timer=FaultyTimer(WallTimer(), 1.1), **short)
for row in faulty.rows:
    print(f"{row.duration_s * 1e6:g} us {row.method}: {row.rel_error:+.1%} -> {row.status}")
assert faulty.status in ("fail", "noisy")  # a 10% fault fails unless the machine is far noisier than that
