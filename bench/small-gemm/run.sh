#!/bin/sh
# The matmuls of a linear layer at microbatch sizes, with OpenBLAS's
# cblas_sgemm and with pipewave's AVX-512 kernels (lib/Target/CPU: SmallGemm.c
# for few-row products, PackedGemm.c for larger ones), alternated in one
# process on one core.
#
#   bench/small-gemm/run.sh BUILD_DIR [-w WEIGHTS] [REPS] [M K N ...]
#
# -w WEIGHTS: each product goes through that many weights in turn, as a
# pipeline stage's layers do, so that it reads its weight from the
# last-level cache; medians are reported instead of the best.
#
# Default shapes: the peer bench's MLP (32-row microbatches of a 512-wide
# layer, and its full batch of 256 rows), then 8, 64 and 128 rows, and the
# examples' 4x128x128. OpenBLAS
# runs the kernels pipewave's ranks run (scripts/openblas-coretype.py).
set -eu
build=${1:?usage: run.sh BUILD_DIR [-w WEIGHTS] [REPS] [M K N ...]}
shift
weights=""
if [ "${1:-}" = "-w" ]; then
  weights="-w ${2:?-w needs a count}"
  shift 2
fi
reps=${1:-200}
[ $# -gt 0 ] && shift
[ $# -eq 0 ] && set -- 32 512 512 256 512 512 8 512 512 64 512 512 128 512 512 4 128 128
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/kernel-harness.sh
. "$here/../kernel-harness.sh"
# shellcheck disable=SC2086 # $weights is "-w N" or nothing
run_kernel_harness "$build" "$here/bench_small_gemm.c" $weights "$reps" "$@"
