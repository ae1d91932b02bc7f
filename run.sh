#!/usr/bin/env bash
# The main job: benchmark a matrix product on the best available device and print a table.
# Creates or reuses the local environment (.venv) by itself. Extra arguments go to `measurefirst bench`.
set -euo pipefail
cd "$(dirname "$0")"
source scripts/env.sh
exec measurefirst bench \
  -s "a = torch.randn(1024, 1024, device=device); b = torch.randn(256, 256, device=device)" \
  --label "matmul 1024x1024" --label "matmul 256x256" \
  "a @ a" "b @ b" "$@"
