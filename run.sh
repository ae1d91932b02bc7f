#!/usr/bin/env bash
# The main job: the lecture, live (`measurefirst demo`): timing traps, scaling, profiler.
# Creates or reuses the local environment (.venv) by itself. Extra arguments go to `measurefirst demo`,
# e.g. ./run.sh --quick --lang zh, or ./run.sh scaling --device cuda.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/env.sh
exec measurefirst demo "$@"
