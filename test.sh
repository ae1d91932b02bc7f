#!/usr/bin/env bash
# The whole test suite. Creates or reuses the local environment (.venv) by itself.
# Extra arguments go to pytest (e.g. ./test.sh -k engine). CUDA tests are skipped without a GPU.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/env.sh
exec python -m pytest "$@"
