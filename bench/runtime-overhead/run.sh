#!/bin/sh
# Runtime overhead: a model of S stages that each compute one tiny
# elementwise op (tosa.abs on a 1x16 microbatch), M microbatches per step,
# compiled by pipewave-compile (GPipe, forward-only) and run on S ranks with
# pipewave-run. The compute is negligible, so the step time is the runtime's
# own cost: per action = step time / (M + S - 1), the length of a
# forward-only pipeline in actions (S = 1: M actions, no communication).
#
#   bench/runtime-overhead/run.sh BUILD_DIR [STEPS] [M] [S ...]
#
# Defaults: 50 steps, M = 256, S = 1 2 4. Prints the runtime's step-time
# summary ("steps 2-K: mean ..., median ..., min ...") and the time per action from the
# mean and the min.
set -eu
build=${1:?usage: run.sh BUILD_DIR [STEPS] [M] [S ...]}
shift
steps=${1:-50}
[ $# -gt 0 ] && shift
m=${1:-256}
[ $# -gt 0 ] && shift
[ $# -eq 0 ] && set -- 1 2 4
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1
python3 "$here/../../scripts/make-npy.py" "$work/x.npy" "$m" 16
for s in "$@"; do
  {
    echo "func.func @main(%x: tensor<${m}x16xf32> {pipe.name = \"x\"}) -> (tensor<${m}x16xf32> {pipe.name = \"y\"}) {"
    prev=%x
    k=0
    while [ $k -lt "$s" ]; do
      [ $k -gt 0 ] && echo "  pipe.split"
      echo "  %a$k = tosa.abs $prev : (tensor<${m}x16xf32>) -> tensor<${m}x16xf32>"
      prev=%a$k
      k=$((k + 1))
    done
    echo "  return $prev : tensor<${m}x16xf32>"
    echo "}"
  } > "$work/tiny$s.mlir"
  "$build/bin/pipewave-compile" "$work/tiny$s.mlir" -o "$work/tiny$s" \
    --stages "$s" --microbatches "$m" --schedule gpipe
  echo "== S=$s stages, M=$m microbatches, $steps steps"
  if [ "$s" -eq 1 ]; then
    "$work/tiny$s" --data x="$work/x.npy" --steps "$steps" > "$work/out.txt"
  else
    "$build/bin/pipewave-run" -n "$s" "$work/tiny$s" --data x="$work/x.npy" \
      --steps "$steps" > "$work/out.txt"
  fi
  grep -E '^steps|^output' "$work/out.txt"
  awk -v m="$m" -v s="$s" '/^steps/ {
      gsub(",", ""); for (i = 1; i < NF; i++) { if ($i == "mean") mean = $(i + 1); if ($i == "min") min = $(i + 1) }
      printf "per action: mean %.2f us, min %.2f us (step / %d actions)\n",
        mean * 1000 / (m + s - 1), min * 1000 / (m + s - 1), m + s - 1 }' \
    "$work/out.txt"
done
