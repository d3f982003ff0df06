#!/bin/sh
# Stage compute benchmark: times one compiled stage (a linear layer
# y = relu(x @ w + b), x: MxK, w: KxN) built with each matmul lowering of
# pipewave-compile, against OpenBLAS cblas_sgemm on the same MxKxN, single
# threaded, on one core.
#
#   bench/stage-compute/run.sh BUILD_DIR [REPS] [M K N ...]
#
# Default shapes: 1024 1024 1024, then a 256-row microbatch of it. OpenBLAS
# runs the kernels pipewave's ranks run (scripts/openblas-coretype.py: on a
# CPU newer than the OpenBLAS build, the kernels for the CPU's instructions
# instead of the generic Prescott ones); set OPENBLAS_CORETYPE to choose
# others. The run prints the core OpenBLAS ran ("Core: ...").
set -eu
build=${1:?usage: run.sh BUILD_DIR [REPS] [M K N ...]}
shift
reps=${1:-10}
[ $# -gt 0 ] && shift
[ $# -eq 0 ] && set -- 1024 1024 1024 256 1024 1024
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -c -I"$here/../../runtime/include" "$here/bench_runtime.c" \
  -o "$work/bench_runtime.o"
# shellcheck source=bench/kernel-harness.sh
. "$here/../kernel-harness.sh"
openblas_as_ranks "$here/../.."
while [ $# -ge 3 ]; do
  m=$1 k=$2 n=$3
  shift 3
  cat > "$work/layer.mlir" <<MLIR
func.func @main(
    %x: tensor<${m}x${k}xf32> {pipe.name = "x"},
    %w: tensor<1x${k}x${n}xf32> {pipe.param, pipe.name = "w"},
    %b: tensor<1x${n}xf32> {pipe.param, pipe.name = "b"}) -> tensor<${m}x${n}xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %s3 = tosa.const_shape {values = dense<[1, ${m}, ${k}]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %s2 = tosa.const_shape {values = dense<[${m}, ${n}]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %in = tosa.reshape %x, %s3 : (tensor<${m}x${k}xf32>, !tosa.shape<3>) -> tensor<1x${m}x${k}xf32>
  %mm = tosa.matmul %in, %w, %zp, %zp : (tensor<1x${m}x${k}xf32>, tensor<1x${k}x${n}xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x${m}x${n}xf32>
  %mm2 = tosa.reshape %mm, %s2 : (tensor<1x${m}x${n}xf32>, !tosa.shape<2>) -> tensor<${m}x${n}xf32>
  %lin = tosa.add %mm2, %b : (tensor<${m}x${n}xf32>, tensor<1x${n}xf32>) -> tensor<${m}x${n}xf32>
  %h = tosa.clamp %lin {min_val = 0.0 : f32, max_val = 3.40282347E+38 : f32} : (tensor<${m}x${n}xf32>) -> tensor<${m}x${n}xf32>
  return %h : tensor<${m}x${n}xf32>
}
MLIR
  for mode in blas vector; do
    "$build/bin/pipewave-compile" "$work/layer.mlir" --matmul=$mode \
      -o "$work/layer_$mode" --runtime-lib="$work/bench_runtime.o"
    echo "== ${m}x${k}x${n} --matmul=$mode"
    OPENBLAS_VERBOSE=2 $harness_pin "$work/layer_$mode" "$reps" "$m" "$k" "$n"
  done
done
