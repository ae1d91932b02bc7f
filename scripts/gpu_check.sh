#!/usr/bin/env bash
# The one prepared run on a machine with a CUDA GPU (under 8 minutes on an H200):
#   1. the environment: nvidia-smi (clocks, power, persistence, MIG), torch / CUDA / triton versions;
#   2. measurefirst selfcheck --device cuda (known durations, traps, the machine);
#   3. pytest tests/gpu -rA --durations=15;
#   4. CLI smoke runs, each under its own timeout, writing JSON: bench (events, wall, CUDA graph,
#      cold cache), compare (manual vs fused GeLU), profile (trace + memory snapshot), doctor (an
#      .item() loop), peaks bf16, step fp32 + bf16, demo --quick --json.
# Every output goes under $OUT (default ./gpu-out): NAME.txt (stdout), NAME.err (stderr), NAME.json.
# One summary line per step (exit code, seconds) is printed and kept in $OUT/summary.txt. A step that
# would start after $DEADLINE seconds (default 450) is skipped, so the whole run stays under 8 minutes.
# Exit code: 0 when every step exited 0, else 1.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT="${OUT:-gpu-out}"
mkdir -p "$OUT"
PY="${PYTHON:-python3}"
DEADLINE="${DEADLINE:-450}"
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
export MEASUREFIRST_STORE="$OUT/results.db" MEASUREFIRST_WIDTH=200 PYTHONIOENCODING=utf-8
SUMMARY="$OUT/summary.txt"
: > "$SUMMARY"
START=$SECONDS
FAILED=0

# run_step NAME LIMIT_S CMD...: stdout to $OUT/NAME.txt, stderr to $OUT/NAME.err, one summary line.
run_step() {
  local name="$1" limit="$2" left t0 rc
  shift 2
  left=$((DEADLINE - (SECONDS - START)))
  if ((left < 5)); then
    printf '%-20s skipped: the %s s deadline was reached\n' "$name" "$DEADLINE" | tee -a "$SUMMARY"
    FAILED=$((FAILED + 1))
    return 0
  fi
  if ((limit > left)); then
    limit=$left
  fi
  t0=$SECONDS
  timeout --kill-after=10 "$limit" "$@" > "$OUT/$name.txt" 2> "$OUT/$name.err"
  rc=$?
  if ((rc != 0)); then
    FAILED=$((FAILED + 1))
  fi
  printf '%-20s exit %3d  %4d s  (limit %d s)\n' "$name" "$rc" "$((SECONDS - t0))" "$limit" | tee -a "$SUMMARY"
  return 0
}

MF=("$PY" -m measurefirst)
GELU_SETUP="x = torch.randn(2**22, device=device)"
MANUAL_GELU="0.5 * x * (1 + torch.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))"
FUSED_GELU="F.gelu(x, approximate='tanh')"
MATMUL_SETUP="a = torch.randn(4096, 4096, device=device, dtype=torch.bfloat16); s = torch.randn(64, 64, device=device)"
ITEM_LOOP="total = 0.0
for i in range(30):
    total += ((w * i) ** 2).mean().item()"

# 1. the environment
run_step env-nvidia-smi 30 nvidia-smi
run_step env-gpu 30 nvidia-smi --format=csv \
  --query-gpu=name,driver_version,pstate,persistence_mode,mig.mode.current,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.draw,power.limit,temperature.gpu
run_step env-clocks 30 nvidia-smi -q -d CLOCK,POWER,PERFORMANCE
run_step env-versions 60 "$PY" -c '
import importlib.util, platform, torch
print("python", platform.python_version())
print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version())
print("cuda available", torch.cuda.is_available(), "devices", torch.cuda.device_count())
if torch.cuda.is_available():
    p = torch.cuda.get_device_properties(0)
    print("device", p.name, f"sm{p.major}{p.minor}", f"{p.total_memory / 2**30:.0f} GiB", "SMs", p.multi_processor_count)
if importlib.util.find_spec("triton"):
    import triton
    print("triton", triton.__version__)
else:
    print("triton not installed")
'

# 2. the tool checks itself
run_step selfcheck 200 "${MF[@]}" selfcheck --device cuda --lang en -o "$OUT/selfcheck.json" --save

# 3. the CUDA tests
run_step pytest-gpu 150 "$PY" -m pytest tests/gpu -rA --durations=15 -p no:cacheprovider

# 4. CLI smoke runs
run_step bench-events 45 "${MF[@]}" bench --device cuda --timer event --budget 2 -s "$MATMUL_SETUP" \
  --label "bf16 matmul 4096" --label "fp32 matmul 64" "a @ a" "s @ s" -o "$OUT/bench-events.json"
run_step bench-wall 45 "${MF[@]}" bench --device cuda --timer wall --budget 2 -s "$MATMUL_SETUP" \
  --label "bf16 matmul 4096" --label "fp32 matmul 64" "a @ a" "s @ s" -o "$OUT/bench-wall.json"
run_step bench-graph 45 "${MF[@]}" bench --device cuda --cuda-graph --budget 2 -s "$MATMUL_SETUP" \
  --label "bf16 matmul 4096 (graph)" --label "fp32 matmul 64 (graph)" "a @ a" "s @ s" -o "$OUT/bench-graph.json"
run_step bench-cold-cache 45 "${MF[@]}" bench --device cuda --cold-cache --budget 2 \
  -s "x = torch.randn(2**24, device=device)" --label "sum 64 MiB (cold L2)" "x.sum()" -o "$OUT/bench-cold-cache.json"
run_step compare-gelu 45 "${MF[@]}" compare --device cuda --budget 5 -s "import torch.nn.functional as F" \
  -s "$GELU_SETUP" --label manual --label fused "$MANUAL_GELU" "$FUSED_GELU" -o "$OUT/compare-gelu.json"
run_step profile-trace 60 "${MF[@]}" profile --device cuda -s "$GELU_SETUP" "$MANUAL_GELU" \
  --trace "$OUT/profile-trace.json" --memory-snapshot "$OUT/profile-memory.pickle" --json
run_step doctor-item 45 "${MF[@]}" doctor --device cuda --budget 2 -s "w = torch.randn(64, device=device)" \
  "$ITEM_LOOP" --json
run_step peaks-bf16 45 "${MF[@]}" peaks --device cuda --dtype bf16 --refresh --json
run_step step-fp32-bf16 90 "${MF[@]}" step examples/tiny_lm.py:build --device cuda --dtypes fp32,bf16 \
  --steps 10 --json
run_step demo-quick 90 "${MF[@]}" demo all --device cuda --lang en --quick --json

# the steps that print JSON on stdout: keep it as NAME.json too
for name in profile-trace doctor-item peaks-bf16 step-fp32-bf16; do
  if [[ -s "$OUT/$name.txt" ]]; then
    cp "$OUT/$name.txt" "$OUT/$name.json"
  fi
done

printf 'total %d s, %d step(s) not ok; outputs in %s\n' "$((SECONDS - START))" "$FAILED" "$OUT" | tee -a "$SUMMARY"
if ((FAILED > 0)); then
  exit 1
fi
exit 0
