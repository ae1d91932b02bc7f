#!/usr/bin/env bash
# The whole test suite. Creates or reuses the local environment (.venv) by itself.
# Extra arguments go to pytest (e.g. ./test.sh -k engine). CUDA tests are skipped without a GPU;
# browser tests without Chromium (-m 'not browser' deselects them).
#
# Run whole (no arguments, or only output flags such as -q, -v, -x), the suite runs in two phases:
# the tests on the simulated clock in parallel, one pytest-xdist worker per core (at most 4; the
# headless-Chromium tests, marker browser, together on one worker), then, one at a time, those whose
# outcome depends on the machine's real speed: the real clock, spawned ranks and agents (markers
# realclock, slow). A test of that second phase
# that fails is run once more, alone, and the phase passes only if it passes then: its outcome depends
# on what else the shared machine does in those seconds, and the rerun is printed, never silent.
# MF_TEST_WORKERS=1 runs everything in one process, as any arguments that select tests do.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/env.sh
source scripts/browser.sh  # headless Chromium for the report's browser tests, where it can be installed
# measurefirst's own modules compiled once: the suite starts hundreds of interpreters (workers, the CLI, pytest
# in pytest), and where PYTHONDONTWRITEBYTECODE is set each of them compiled the sources again (0.8 s apiece)
python -m compileall -q -j 0 src tests >/dev/null || true

whole=1
for arg in "$@"; do
  case "$arg" in
    -q|-qq|-v|-vv|-x|-s|-ra|-rA|--tb=*|--durations=*|--no-header) ;;
    *) whole=0 ;;
  esac
done
workers="${MF_TEST_WORKERS:-$(python -c 'import os; print(min(4, len(os.sched_getaffinity(0))))')}"
if [ "$whole" = 0 ] || [ "$workers" -le 1 ] || ! python -c 'import xdist' 2>/dev/null; then
  exec python -m pytest "$@"
fi

SERIAL="realclock or slow"
status=0
python -m pytest -n "$workers" --dist loadgroup -m "not ($SERIAL)" "$@" || status=$?
serial=0
python -m pytest -p no:xdist -m "$SERIAL" "$@" || serial=$?
if [ "$serial" = 1 ]; then
  echo "test.sh: a test whose outcome depends on the machine's real speed failed; running the failed ones once more"
  serial=0
  python -m pytest -p no:xdist -m "$SERIAL" --last-failed --last-failed-no-failures none "$@" || serial=$?
fi
# 5: no test selected (a phase can be empty), not a failure
[ "$status" = 5 ] && status=0
[ "$serial" = 5 ] && serial=0
if [ "$status" != 0 ]; then exit "$status"; fi
exit "$serial"
