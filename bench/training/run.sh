#!/bin/sh
# Training step time on 1 and 2 ranks: an MLP of L layers of width W
# (scripts/gen-mlp.py, mean-squared-error loss, batch B) trained with Adam
# for STEPS steps, compiled three ways with the same global batch and the
# same microbatch size (B/4 rows):
#   1 rank                  --stages 1 --microbatches 4
#   2 ranks, pipeline       --stages 2 --microbatches 4 --schedule 1f1b
#   2 ranks, data-parallel  --stages 1 --replicas 2 --microbatches 2
# Prints the runtime's step-time summary ("steps 2-K: mean ..., median ..., min ...")
# and the samples per second of the mean and the min step.
#
#   bench/training/run.sh BUILD_DIR [STEPS] [B] [W] [L]
#
# Defaults: 30 steps, B = 256, W = 1024, L = 8. Single-threaded OpenBLAS.
set -eu
build=${1:?usage: run.sh BUILD_DIR [STEPS] [B] [W] [L]}
steps=${2:-30}
b=${3:-256}
w=${4:-1024}
l=${5:-8}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1
python3 "$here/../../scripts/gen-mlp.py" --layers "$l" --width "$w" \
  --batch "$b" --in "$w" --out "$w" > "$work/mlp.mlir"
python3 "$here/../../scripts/make-npy.py" "$work/x.npy" "$b" "$w"
python3 "$here/../../scripts/make-npy.py" "$work/y.npy" "$b" "$w"
echo "MLP: $l layers of ${w}x${w}, batch $b, Adam, $steps steps"
# name RANKS COMPILE-OPTIONS...
run() {
  name=$1 ranks=$2
  shift 2
  "$build/bin/pipewave-compile" "$work/mlp.mlir" -o "$work/$name" "$@"
  if [ "$ranks" -eq 1 ]; then
    "$work/$name" --data x="$work/x.npy" --data y="$work/y.npy" \
      --steps "$steps" --optimizer adam --lr 1e-4 > "$work/out.txt" 2> "$work/err.txt"
  else
    "$build/bin/pipewave-run" -n "$ranks" "$work/$name" \
      --data x="$work/x.npy" --data y="$work/y.npy" \
      --steps "$steps" --optimizer adam --lr 1e-4 > "$work/out.txt" 2> "$work/err.txt"
  fi
  awk -v name="$name" -v b="$b" '/^steps/ {
      gsub(",", ""); for (i = 1; i < NF; i++) { if ($i == "mean") mean = $(i + 1); if ($i == "min") min = $(i + 1) }
      printf "%-22s mean %8.2f ms  min %8.2f ms  samples/s %8.0f (mean) %8.0f (min)\n",
        name, mean, min, b * 1000 / mean, b * 1000 / min }' "$work/out.txt"
}
run 1-rank 1 --stages 1 --microbatches 4
run 2-rank-pipeline 2 --stages 2 --microbatches 4 --schedule 1f1b
run 2-rank-data-parallel 2 --stages 1 --replicas 2 --microbatches 2
