#!/usr/bin/env bash
# Runs pipewave's GPU checks on a machine with one NVIDIA GPU and prints one
# table. The machine needs no MLIR, no compiler and no network: everything
# was compiled beforehand by scripts/gpu-check-prepare.sh BUILD DIR.
#
# Usage: scripts/gpu-check.sh DIR
#
# cuBLAS, cudart and NCCL come from $CUDA_HOME (default /usr/local/cuda) or
# from the nvidia-* Python wheels of python3 (put on LD_LIBRARY_PATH here).
# Rows:
#   device         PipewaveCudaDeviceTests: the CUDA device's numbers against
#                  the host device, bit for bit (optimizers, graphs, dtypes)
#   parity         every model x schedule x replicas, all ranks in one
#                  process (PW_BACKEND=loopback), 5 Adam steps: every loss
#                  within 1e-5 relative of the CPU runtime's
#   tf32, bf16     the same within the stated tolerances (docs/gpu.md)
#   nccl-1         the one-stage MLP through the NCCL backend at world size 1
#   graphs         the one-stage MLP, 20 steps, with and without --cuda-graph:
#                  same losses; both step times
#   killed-rank    a loopback run whose rank 1 fails (test hook) ends < 30 s
#   sgemm          the stage code's matmul call against cuBLAS alone (>= 0.9)
#   wide-mlp       share of a wide MLP step spent in its matmuls (>= 0.8)
#   torch          PyTorch eager on the same model and batch (if torch
#                  imports): pipewave's step must be at least as fast
#   sim-*          bench/sim-vs-measured's rows: 20 steps untraced, then 8
#                  traced (bench/sim-vs-measured/gpu-table.sh compares them
#                  with the simulator on the build machine)
#   calibrate      pipewave-calibrate --target cuda on the prepared models:
#                  a device file of this GPU (gpu-calibrated.json)
# Environment: PW_GPU_CHECK_UNPACKED=DIR unpacks the binaries there once
# (later runs reuse them); PW_GPU_CHECK_KEEP=DIR keeps every log, loss
# file, trace and the calibration there; PW_GPU_CHECK_TIMEOUT (default 120)
# is each run's limit in seconds; PW_GPU_CHECK_ONLY (space-separated section names:
# device parity nccl graphs killed sgemm wide torch sim calibrate) runs
# only those; PW_GPU_CHECK_FILTER (an extended regular expression) runs
# only the parity and sim cases whose names match it.
# Exits 0 when no row FAILs, 1 otherwise (and at once, clearly, when there
# is no GPU or no CUDA library).
set -uo pipefail
if [ $# -ne 1 ] || [ ! -f "$1/cases.tsv" ] || [ ! -f "$1/bin.tar.xz" ]; then
  echo "usage: $0 DIR  (DIR written by scripts/gpu-check-prepare.sh)" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$(cd "$1" && pwd)
python=${PYTHON:-python3}
started=$(date +%s)
# PW_GPU_CHECK_UNPACKED=DIR: unpack the binaries there once and reuse them.
if [ -n "${PW_GPU_CHECK_UNPACKED:-}" ]; then
  mkdir -p "$PW_GPU_CHECK_UNPACKED"
  unpacked=$(cd "$PW_GPU_CHECK_UNPACKED" && pwd)
  drop=""
else
  unpacked=$(mktemp -d)
  drop=$unpacked
fi
if [ -n "${PW_GPU_CHECK_KEEP:-}" ]; then
  mkdir -p "$PW_GPU_CHECK_KEEP"
  work=$(cd "$PW_GPU_CHECK_KEEP" && pwd)
else
  work=$(mktemp -d)
  drop="$drop $work"
fi
# shellcheck disable=SC2064
trap "rm -rf $drop" EXIT
limit=${PW_GPU_CHECK_TIMEOUT:-120}
only=" ${PW_GPU_CHECK_ONLY:-device parity nccl graphs killed sgemm wide torch sim calibrate} "
wanted() { case $only in *" $1 "*) return 0 ;; esac; return 1; }
filter=${PW_GPU_CHECK_FILTER:-.}
picked() { echo "$1" | grep -Eq -- "$filter"; }
[ -d "$unpacked/bin" ] || tar -C "$unpacked" -xJf "$dir/bin.tar.xz"
bin="$unpacked/bin"

# --- Libraries: the toolkit, else the nvidia-* wheels. ---
libs="$dir/lib"
cuda=${CUDA_HOME:-/usr/local/cuda}
for d in "$cuda/lib64" "$cuda/lib" "$cuda/targets/x86_64-linux/lib"; do
  [ -d "$d" ] && libs="$libs:$d"
done
wheels=$("$python" -c 'import nvidia, os; print(os.path.dirname(list(nvidia.__path__)[0]))' 2>/dev/null || true)
if [ -n "$wheels" ]; then
  for d in "$wheels"/nvidia/*/lib; do
    [ -d "$d" ] && libs="$libs:$d"
  done
fi
export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
missing=$(ldd "$bin/mlp-s1" 2>/dev/null | grep 'not found' | awk '{print $1}' | tr '\n' ' ')
if [ -n "$missing" ]; then
  echo "gpu-check: cannot find $missing(looked in CUDA_HOME=$cuda and the" \
    "nvidia-* Python wheels of $python); install the CUDA toolkit or" \
    "pip install nvidia-cublas nvidia-cuda-runtime nvidia-nccl" >&2
  exit 1
fi

# --- A GPU? ---
probe=$("$bin/pipewave-cuda-sgemm-bench" 64 64 64 1 2>&1)
if [ $? -ne 0 ]; then
  echo "gpu-check: no usable NVIDIA GPU here ($(echo "$probe" | tail -1)); nothing was run" >&2
  exit 1
fi
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
echo "gpu-check: $(date -u +%Y-%m-%d) on ${gpu:-an NVIDIA GPU}"

rows=()
failed=0
graph_ms="" eager_ms=""
row() { # NAME STATUS DETAIL
  rows+=("$(printf '%-28s %-5s %s' "$1" "$2" "$3")")
  [ "$2" = FAIL ] && failed=1
  printf '%-28s %-5s %s\n' "$1" "$2" "$3"
}

# compare RUN.json REF.json TOL: "max-rel-err median-step-ms" or fails.
compare() {
  "$python" - "$1" "$2" "$3" <<'EOF'
import json, sys
run = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
ref = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
tol = float(sys.argv[3])
if len(run) != len(ref):
    print("steps %d != %d" % (len(run), len(ref))); sys.exit(1)
err = max(abs(a["loss"] - b["loss"]) / max(abs(b["loss"]), 1e-30)
          for a, b in zip(run, ref))
# The median step after the first (a graph's capture step is an outlier).
times = sorted(r["time_ms"] for r in run[1:]) or [run[0]["time_ms"]]
n = len(times)
print("%.2e %.3f" % (err, (times[(n - 1) // 2] + times[n // 2]) / 2))
sys.exit(0 if err <= tol else 1)
EOF
}

# run_case NAME RANKS ARGS... -> runs in DIR within the limit.
run_case() {
  local name=$1
  shift 2 # the rank count: the binary knows it
  # Every rank in this one process on the one GPU (the default of a GPU
  # binary started without a launcher; said here to be explicit).
  (cd "$dir" && PW_BACKEND=loopback timeout "$limit" "$bin/$name" "$@")
}

# --- The CUDA device itself. ---
if ! wanted device; then
  :
elif timeout "$limit" "$bin/PipewaveCudaDeviceTests" >"$work/device.log" 2>&1; then
  row device PASS "$(grep -c '\[       OK \]' "$work/device.log") tests"
else
  row device FAIL "$(grep -m1 -A3 'Failure' "$work/device.log" | tr '\n' ' ')"
fi

# --- Parity and math modes. ---
while IFS=$'\t' read -r name kind model ranks tol ref args; do
  [ "$name" = name ] && continue
  case $kind in parity | tf32 | bf16 | single) wanted parity && picked "$name" || continue ;; *) continue ;; esac
  # shellcheck disable=SC2086
  if ! run_case "$name" "$ranks" $args --log-json "$work/$name.json" \
    >"$work/$name.log" 2>&1; then
    row "$name" FAIL "run failed: $(tail -1 "$work/$name.log")"
    continue
  fi
  result=$(compare "$work/$name.json" "$dir/ref/$ref.json" "$tol")
  status=$?
  read -r err ms <<<"$result"
  sim=$(sed -n 's/.*(\(.*\)).*/\1/p' "$dir/ref/$ref.sim" 2>/dev/null)
  detail="$ranks ranks, max rel err $err (tol $tol), step $ms ms"
  [ -n "$sim" ] && [ "$kind" = parity ] && detail="$detail, h200 model $sim"
  row "$name" "$([ $status -eq 0 ] && echo PASS || echo FAIL)" "$detail"
done <"$dir/cases.tsv"

single_args=$(awk -F'\t' '$1 == "mlp-s1" {print $7}' "$dir/cases.tsv")

# --- NCCL at world size 1 (skipped by a runtime without the NCCL backend). ---
# shellcheck disable=SC2086
wanted nccl && (cd "$dir" && PW_BACKEND=nccl RANK=0 WORLD_SIZE=1 LOCAL_RANK=0 \
  MASTER_ADDR=127.0.0.1 MASTER_PORT=29517 timeout "$limit" "$bin/mlp-s1" \
  $single_args --log-json "$work/nccl.json" >"$work/nccl.log" 2>&1)
if ! wanted nccl; then
  :
elif grep -q "PW_BACKEND must be" "$work/nccl.log"; then
  row nccl-1 SKIP "this runtime has no NCCL backend"
elif result=$(compare "$work/nccl.json" "$dir/ref/mlp-s1.json" 1e-5); then
  row nccl-1 PASS "max rel err ${result% *}"
else
  row nccl-1 FAIL "$(tail -1 "$work/nccl.log") $result"
fi

# --- CUDA graphs on and off. ---
if wanted graphs; then
  graph_args=${single_args/--steps 5/--steps 20}
  # shellcheck disable=SC2086
  run_case mlp-s1 1 $graph_args --log-json "$work/eager.json" >/dev/null 2>&1
  # shellcheck disable=SC2086
  run_case mlp-s1 1 $graph_args --cuda-graph --log-json "$work/graph.json" \
    >"$work/graph.log" 2>&1
  eager_ms=$(compare "$work/eager.json" "$work/eager.json" 0 2>/dev/null | cut -d' ' -f2)
  graph_ms=""
  if result=$(compare "$work/graph.json" "$work/eager.json" 0); then
    graph_ms=${result#* }
    row graphs PASS "same losses; step $graph_ms ms with graphs, $eager_ms ms without"
  else
    row graphs FAIL "$(tail -1 "$work/graph.log") $result"
  fi
fi

# --- A killed rank ends the loopback run. ---
if wanted killed; then
  mlp_args=$(awk -F'\t' '$1 == "mlp-1f1b-r1" {print $7}' "$dir/cases.tsv")
  t0=$(date +%s)
  # shellcheck disable=SC2086
  PW_TEST_FAIL_RANK=1 PW_TEST_FAIL_STEP=3 run_case mlp-1f1b-r1 2 \
    ${mlp_args/--steps 5/--steps 50} --timeout 5 >"$work/kill.log" 2>&1
  rc=$?
  took=$(($(date +%s) - t0))
  if [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $took -lt 30 ]; then
    row killed-rank PASS "exit $rc after ${took} s: $(grep -m1 PW_TEST_FAIL_RANK "$work/kill.log")"
  else
    row killed-rank FAIL "exit $rc after ${took} s"
  fi
fi

# --- Matmuls: the stage code's call against cuBLAS alone. ---
if wanted sgemm; then
  "$bin/pipewave-cuda-sgemm-bench" 2048 2048 2048 20 >"$work/sgemm.log" 2>&1
  worst=$(awk '{print $NF}' "$work/sgemm.log" | sort -g | head -1)
  if [ -n "$worst" ] && awk "BEGIN {exit !($worst >= 0.9)}"; then
    row sgemm PASS "2048^3, worst ratio $worst ($(awk -F', ' '{print $1}' "$work/sgemm.log" | sed -n 1p))"
  else
    row sgemm FAIL "worst ratio ${worst:-?}: $(tr '\n' ' ' <"$work/sgemm.log")"
  fi
fi

# --- The share of a wide MLP step spent in matmuls. ---
if wanted wide; then
  mkdir -p "$dir/data/wide"
  [ -f "$dir/data/wide/x.npy" ] || "$python" "$root/scripts/make-npy.py" "$dir/data/wide/x.npy" 2048 2048
  [ -f "$dir/data/wide/y.npy" ] || "$python" "$root/scripts/make-npy.py" "$dir/data/wide/y.npy" 2048 2048
  wide_args=$(awk -F'\t' '$1 == "wide-mlp" {print $7}' "$dir/cases.tsv")
  # shellcheck disable=SC2086
  if run_case wide-mlp 1 $wide_args --log-json "$work/wide.json" >"$work/wide.log" 2>&1; then
    wide_ms=$(compare "$work/wide.json" "$work/wide.json" 0 | cut -d' ' -f2)
    # A traced run beside it, to see where the rest goes.
    # shellcheck disable=SC2086
    run_case wide-mlp 1 ${wide_args/--steps 5/--steps 3} \
      --trace "$work/wide.trace.json" >/dev/null 2>&1
    # 4 layers: 3 products each but no input gradient for the first.
    gemm_us=$(awk '{for (i = 1; i <= NF; ++i) if ($i == "cublas") s += $(i + 1)} END {print s}' "$work/sgemm.log")
    share=$(awk "BEGIN {printf \"%.2f\", ($gemm_us * 4 - $gemm_us / 3) / 1000 / $wide_ms}")
    status=$(awk "BEGIN {print ($share >= 0.8) ? \"PASS\" : \"FAIL\"}")
    row wide-mlp "$status" "step $wide_ms ms, cuBLAS time of its matmuls alone = $share of it"
  else
    row wide-mlp FAIL "$(tail -1 "$work/wide.log")"
  fi
fi

# --- PyTorch eager on the same model and batch. ---
if wanted torch; then
  if "$python" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    torch_ms=$("$python" "$root/scripts/gpu-torch-step.py" mlp 20 2>"$work/torch.log")
    # The faster of the runs with and without graphs: a user picks it.
    ours=$(printf '%s\n' $graph_ms $eager_ms | sort -g | head -1)
    if [ -n "$torch_ms" ] && [ -n "$ours" ]; then
      status=$(awk "BEGIN {print ($ours <= $torch_ms) ? \"PASS\" : \"FAIL\"}")
      row torch "$status" "mlp: pipewave $ours ms/step, PyTorch eager $torch_ms ms/step"
    else
      row torch FAIL "$(tail -1 "$work/torch.log")"
    fi
  else
    row torch SKIP "torch with CUDA does not import here"
  fi
fi

# --- Simulated against measured: 20 steps untraced, 8 traced. ---
while IFS=$'\t' read -r name kind model ranks tol ref args; do
  [ "$kind" = sim ] && wanted sim && picked "$name" || continue
  # shellcheck disable=SC2086
  if run_case "$name" "$ranks" $args --steps 20 --log-json "$work/$name.json" \
    >"$work/$name.log" 2>&1 &&
    run_case "$name" "$ranks" $args --steps 8 --trace "$work/$name.trace.json" \
      >>"$work/$name.log" 2>&1; then
    ms=$(compare "$work/$name.json" "$work/$name.json" 0 | cut -d' ' -f2)
    row "$name" PASS "$ranks ranks, step $ms ms untraced"
  else
    row "$name" FAIL "run failed: $(tail -1 "$work/$name.log")"
  fi
done <"$dir/cases.tsv"

# --- This GPU as a device file (pipewave-calibrate --target cuda). ---
if wanted calibrate && [ -d "$unpacked/calibrate" ]; then
  if timeout $((limit * 3)) "$bin/pipewave-calibrate" --target cuda --base h200 \
    --passes 1 --steps 12 --work-dir "$unpacked/calibrate" --bin-dir "$bin" \
    -o "$work/gpu-calibrated.json" >"$work/calibrate.log" 2>&1; then
    row calibrate PASS "$(grep -c '^  ' "$work/calibrate.log") figures; $(grep -m1 'per action' "$work/calibrate.log" | tr -s ' ')"
  else
    row calibrate FAIL "$(tail -2 "$work/calibrate.log" | tr '\n' ' ')"
  fi
fi

echo
echo "== pipewave gpu-check ($(($(date +%s) - started)) s) =="
printf '%s\n' "${rows[@]}"
exit $failed
