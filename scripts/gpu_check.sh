#!/usr/bin/env bash
# One prepared run on a machine with a CUDA GPU: the cuda-marked tests, then GPU figures from the CLI
# and the lecture. Output goes to $OUT when set (the device tool), else ./gpu-out.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-gpu-out}"; mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
PY="${PYTHON:-python3}"
"$PY" -c "import torch; print(torch.__version__, torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() else '-')"
"$PY" -m pytest -q -p no:cacheprovider tests/gpu tests/test_engine.py tests/test_profiling.py 2>&1 | tee "$OUT/gpu-tests.log"
"$PY" -m measurefirst bench --device cuda -s "a = torch.randn(4096, 4096, device=device, dtype=torch.bfloat16); s = torch.randn(64, 64, device=device)" \
  --label "bf16 matmul 4096" --label "fp32 matmul 64" "a @ a" "s @ s" 2>&1 | tee "$OUT/gpu-bench.log"
"$PY" -m measurefirst bench --device cuda --cuda-graph -s "s = torch.randn(64, 64, device=device)" --label "fp32 matmul 64 (graph)" "s @ s" 2>&1 | tee -a "$OUT/gpu-bench.log"
"$PY" -m measurefirst peaks --device cuda --dtype bf16 --store "$OUT/r.db" 2>&1 | tee -a "$OUT/gpu-bench.log"
"$PY" -m measurefirst demo --device cuda --lang en --quick 2>&1 | tee "$OUT/gpu-demo.log"
"$PY" -m measurefirst step examples/tiny_lm.py:build --device cuda --dtypes fp32,bf16 --steps 10 --store "$OUT/r.db" 2>&1 | tee "$OUT/gpu-step.log"
