#!/usr/bin/env bash
# Times pipe-partition (balanced, 8 stages) on generated MLPs of 100, 200, 400
# and 800 layers. Prints one row per size: layers, operations, the pass's
# wall time (best of 5, from -mlir-timing), the time per operation, and the
# wall time of the whole pipe-train pipeline (partition, outline, comm,
# 1F1B schedule over 16 microbatches, verification), parsing excluded.
# Usage: bench/partition/run.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
opt="$build/bin/pipewave-opt"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

printf "| layers | ops | pipe-partition (ms) | us/op | pipe-train (ms) |\n|---:|---:|---:|---:|---:|\n"
for layers in 100 200 400 800; do
  model="$tmp/mlp$layers.mlir"
  python3 "$root/scripts/gen-mlp.py" --layers "$layers" > "$model"
  ops=$(grep -cE '^ +%[a-z0-9_]+ = tosa\.' "$model")
  best=""
  for _ in 1 2 3 4 5; do
    t=$("$opt" "$model" --pipe-partition="num-stages=8 strategy=balanced" \
          -mlir-timing -mlir-timing-display=list -o /dev/null 2>&1 \
        | awk '/PipePartition/ { print $1 * 1000; exit }')
    if [ -z "$best" ] || awk "BEGIN { exit !($t < $best) }"; then best=$t; fi
  done
  train=$("$opt" "$model" \
      --pass-pipeline='builtin.module(pipe-train{num-stages=8 schedule=1f1b microbatches=16})' \
      -mlir-timing -mlir-timing-display=list -o /dev/null 2>&1 \
    | awk '/ root$/ { root = $1 } /Parser$/ { p = $1 } /Output$/ { o = $1 }
           END { print (root - p - o) * 1000 }')
  awk -v l="$layers" -v o="$ops" -v t="$best" -v tr="$train" \
    'BEGIN { printf "| %d | %d | %.2f | %.2f | %.1f |\n", l, o, t, t * 1000 / o, tr }'
done
