#!/bin/sh
# Pipeline efficiency: an MLP of 2*L layers relu(h @ w + b), width W, batch
# B, cut into 2 equal stages (L layers each) and run as a 2-rank 1F1B
# (forward-only) pipeline with M microbatches, against one stage alone (the
# first L layers, same M) on one rank, in the same run. Ideal 2-rank step
# time = one stage's step time / (1 - bubble), bubble = (S-1)/(M+S-1), i.e.
# T_stage * (M+1)/M; efficiency = ideal / measured.
#
#   bench/pipeline-efficiency/run.sh BUILD_DIR [STEPS] [B] [M] [W] [L]
#
# Defaults: 20 steps, B = 512, M = 8, W = 1024, L = 2. Single-threaded
# OpenBLAS; each rank runs on its own core when two are free.
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

echo "== one stage ($l layers ${w}x${w}, batch $b, M=$m) on 1 rank, $steps steps"
"$work/stage" --data x="$work/x.npy" --steps "$steps" > "$work/stage.txt"
grep '^steps' "$work/stage.txt"
echo "== 2 stages ($((2 * l)) layers) on 2 ranks, 1F1B, M=$m, $steps steps"
"$build/bin/pipewave-run" -n 2 --bind-to core "$work/pipe" --data x="$work/x.npy" \
  --steps "$steps" > "$work/pipe.txt"
grep '^steps' "$work/pipe.txt"
awk -v m="$m" '
  /^steps/ { gsub(",", ""); mean[FILENAME] = $4; min[FILENAME] = $7 }
  END {
    for (f in mean) if (f ~ /stage/) { ms = mean[f]; ns = min[f] } else { mp = mean[f]; np = min[f] }
    bubble = 1 / (m + 1)
    printf "bubble (S-1)/(M+S-1) = %.3f\n", bubble
    printf "ideal 2-rank step = stage / (1 - bubble): mean %.3f ms, min %.3f ms\n", ms / (1 - bubble), ns / (1 - bubble)
    printf "efficiency (ideal / measured): mean %.1f%%, min %.1f%%\n", 100 * ms / (1 - bubble) / mp, 100 * ns / (1 - bubble) / np
  }' "$work/stage.txt" "$work/pipe.txt"
