#!/usr/bin/env bash
# GEMM threads per rank: an 8-layer 512-wide MLP (batch 256, --matmul=blas,
# 2 stages, 1F1B, 8 microbatches) on 2 ranks, each rank with 1 OpenBLAS
# thread (the runtime's default on a 2-CPU host) against as many as the
# host has CPUs (OpenBLAS's own default, what ranks got before the runtime
# set it), alternated ABAB for ROUNDS rounds; prints each run's median step
# and the load average. Results: docs/bench.md "GEMM threads per rank".
#
# Usage: bench/threads/run.sh BUILD_DIR [ROUNDS] [STEPS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:?usage: run.sh BUILD_DIR [ROUNDS] [STEPS]}" && pwd)
rounds=${2:-3}
steps=${3:-15}
export PATH=$build/bin:$PATH
unset OPENBLAS_NUM_THREADS OMP_NUM_THREADS
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
python3 "$root/scripts/gen-mlp.py" --layers 8 --width 512 --batch 256 > mlp.mlir
python3 "$root/scripts/make-npy.py" x.npy 256 64
python3 "$root/scripts/make-npy.py" y.npy 256 8
pipewave-compile mlp.mlir -o mlp --stages 2 --microbatches 8 --schedule 1f1b \
  --matmul=blas --quiet
cpus=$(nproc)
echo "host: $cpus CPUs; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| round | threads per rank | median step (ms) | min step (ms) |"
echo "|---:|---:|---:|---:|"
for round in $(seq "$rounds"); do
  for threads in 1 "$cpus"; do
    line=$(pipewave-run -n 2 ./mlp --data x=x.npy --data y=y.npy \
      --steps "$steps" --threads "$threads" 2>/dev/null | grep 'steps 2-')
    median=$(echo "$line" | sed 's/.*median \([0-9.]*\) ms.*/\1/')
    min=$(echo "$line" | sed 's/.*min \([0-9.]*\) ms.*/\1/')
    echo "| $round | $threads | $median | $min |"
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
