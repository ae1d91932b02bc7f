#!/usr/bin/env bash
# The whole test suite. Creates or reuses the local environment (.venv) by itself.
# Extra arguments go to pytest (e.g. ./test.sh -k engine). CUDA tests are skipped without a GPU;
# browser tests without Chromium (-m 'not browser' deselects them).
set -euo pipefail
cd "$(dirname "$0")"
source scripts/env.sh
source scripts/browser.sh  # headless Chromium for the report's browser tests, where it can be installed
exec python -m pytest "$@"
