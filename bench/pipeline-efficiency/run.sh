#!/bin/sh
# Pipeline efficiency: an MLP of 2*L layers relu(h @ w + b), width W, batch
# B, cut into 2 equal stages (L layers each) and run as a 2-rank 1F1B
# (forward-only) pipeline with M microbatches, ranks pinned to cores
# (pipewave-run --bind-to core), against one stage alone (the first L layers,
# same M) in the same run:
#   - alone: one process on core 0, the other core idle;
#   - loaded: two copies at once, on cores 0 and 1 (each core computes, as
#     both do in the pipeline; shared caches, memory bandwidth and clock
#     limits then apply to the baseline too).
# Ideal 2-rank step time = one stage's step time / (1 - bubble), bubble =
# (S-1)/(M+S-1), i.e. T_stage * (M+1)/M; efficiency = ideal / measured, from
# the median step (and the mean and best) of each run. A second pipeline run
# with --trace then gives critical-path.py's runtime efficiency: each step's
# measured time against the critical path of the compute durations that step
# really had (what the runtime adds, apart from how fast the cores computed).
#
#   bench/pipeline-efficiency/run.sh BUILD_DIR [STEPS] [B] [M] [W] [L]
#
# Defaults: 20 steps, B = 512, M = 8, W = 1024, L = 2. Single-threaded
# OpenBLAS; needs two free cores (taskset from util-linux).
set -eu
build=${1:?usage: run.sh BUILD_DIR [STEPS] [B] [M] [W] [L]}
steps=${2:-20}
b=${3:-512}
m=${4:-8}
w=${5:-1024}
l=${6:-2}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1
python3 "$here/../../scripts/make-npy.py" "$work/x.npy" "$b" "$w"

# model LAYERS SPLIT_AFTER: LAYERS layers, a pipe.split after layer SPLIT_AFTER
model() {
  layers=$1 split=$2
  printf 'func.func @main(%%x: tensor<%sx%sxf32> {pipe.name = "x"}' "$b" "$w"
  k=0
  while [ $k -lt "$layers" ]; do
    printf ',\n    %%w%s: tensor<1x%sx%sxf32> {pipe.param, pipe.name = "w%s"}' "$k" "$w" "$w" "$k"
    printf ',\n    %%b%s: tensor<1x%sxf32> {pipe.param, pipe.name = "b%s"}' "$k" "$w" "$k"
    k=$((k + 1))
  done
  printf ') -> (tensor<%sx%sxf32> {pipe.name = "y"}) {\n' "$b" "$w"
  cat <<MLIR
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %s3 = tosa.const_shape {values = dense<[1, $b, $w]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s2 = tosa.const_shape {values = dense<[$b, $w]> : tensor<2xindex>} : () -> !tosa.shape<2>
MLIR
  prev=%x
  k=0
  while [ $k -lt "$layers" ]; do
    [ $k -eq "$split" ] && echo "  pipe.split"
    cat <<MLIR
  %in$k = tosa.reshape $prev, %s3 : (tensor<${b}x${w}xf32>, !tosa.shape<3>) -> tensor<1x${b}x${w}xf32>
  %mm$k = tosa.matmul %in$k, %w$k, %zp, %zp : (tensor<1x${b}x${w}xf32>, tensor<1x${w}x${w}xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x${b}x${w}xf32>
  %r$k = tosa.reshape %mm$k, %s2 : (tensor<1x${b}x${w}xf32>, !tosa.shape<2>) -> tensor<${b}x${w}xf32>
  %l$k = tosa.add %r$k, %b$k : (tensor<${b}x${w}xf32>, tensor<1x${w}xf32>) -> tensor<${b}x${w}xf32>
  %h$k = tosa.clamp %l$k {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<${b}x${w}xf32>) -> tensor<${b}x${w}xf32>
MLIR
    prev=%h$k
    k=$((k + 1))
  done
  echo "  return $prev : tensor<${b}x${w}xf32>"
  echo "}"
}

model "$l" -1 > "$work/stage.mlir"
model $((2 * l)) "$l" > "$work/pipe.mlir"
"$build/bin/pipewave-compile" "$work/stage.mlir" -o "$work/stage" \
  --stages 1 --microbatches "$m"
"$build/bin/pipewave-compile" "$work/pipe.mlir" -o "$work/pipe" \
  --stages 2 --microbatches "$m" --schedule 1f1b

stats() { # FILE -> "mean median min" of the runtime's summary line
  awk '/^steps/ { gsub(",", ""); for (i = 1; i < NF; i++) {
    if ($i == "mean") a = $(i + 1); if ($i == "median") b = $(i + 1)
    if ($i == "min") c = $(i + 1) } print a, b, c }' "$1"
}

echo "== one stage ($l layers ${w}x${w}, batch $b, M=$m), $steps steps: alone on core 0"
taskset -c 0 "$work/stage" --data x="$work/x.npy" --steps "$steps" > "$work/alone.txt"
grep '^steps' "$work/alone.txt"
echo "== the same, two copies at once on cores 0 and 1 (loaded)"
taskset -c 0 "$work/stage" --data x="$work/x.npy" --steps "$steps" > "$work/loaded0.txt" &
taskset -c 1 "$work/stage" --data x="$work/x.npy" --steps "$steps" > "$work/loaded1.txt"
wait
grep '^steps' "$work/loaded0.txt" "$work/loaded1.txt"
echo "== 2 stages ($((2 * l)) layers) on 2 ranks, 1F1B, M=$m, $steps steps"
"$build/bin/pipewave-run" -n 2 --bind-to core "$work/pipe" --data x="$work/x.npy" \
  --steps "$steps" > "$work/pipe.txt"
grep '^steps' "$work/pipe.txt"

{ stats "$work/alone.txt"; stats "$work/loaded0.txt"; stats "$work/loaded1.txt"
  stats "$work/pipe.txt"; } | awk -v m="$m" '
  { mean[NR] = $1; med[NR] = $2; min[NR] = $3 }
  END {
    f = (m + 1) / m   # 1 / (1 - bubble)
    printf "bubble (S-1)/(M+S-1) = %.3f\n", 1 / (m + 1)
    # loaded baseline: the slower of the two concurrent copies
    lm = mean[2] > mean[3] ? mean[2] : mean[3]
    ld = med[2] > med[3] ? med[2] : med[3]
    ln = min[2] > min[3] ? min[2] : min[3]
    printf "%-26s %10s %10s %10s\n", "", "median", "mean", "best"
    printf "%-26s %7.3f ms %7.3f ms %7.3f ms\n", "pipeline step", med[4], mean[4], min[4]
    printf "%-26s %7.3f ms %7.3f ms %7.3f ms\n", "ideal (stage alone)", med[1] * f, mean[1] * f, min[1] * f
    printf "%-26s %7.3f ms %7.3f ms %7.3f ms\n", "ideal (stage loaded)", ld * f, lm * f, ln * f
    printf "%-26s %8.1f%% %9.1f%% %9.1f%%\n", "efficiency vs alone", 100 * med[1] * f / med[4], 100 * mean[1] * f / mean[4], 100 * min[1] * f / min[4]
    printf "%-26s %8.1f%% %9.1f%% %9.1f%%\n", "efficiency vs loaded", 100 * ld * f / med[4], 100 * lm * f / mean[4], 100 * ln * f / min[4]
  }'
echo "== the pipeline again with --trace: runtime efficiency per step"
"$build/bin/pipewave-run" -n 2 --bind-to core "$work/pipe" --data x="$work/x.npy" \
  --steps "$steps" --trace "$work/trace.json" > /dev/null
python3 "$here/critical-path.py" "$work/trace.json" "$m"
