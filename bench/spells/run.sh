#!/bin/sh
# What a shared machine's slow spells slow down: round after round of 40 ms
# slices of the core's clock, register-only FMA throughput, pipewave's packed
# kernel, OpenBLAS's sgemm (the same products), and read streams from L2 and
# DRAM, on one core (bench/spells/spells.c). Not part of CI.
#
#   bench/spells/run.sh BUILD_DIR [ROUNDS]
set -eu
build=${1:?usage: run.sh BUILD_DIR [ROUNDS]}
rounds=${2:-200}
here=$(cd "$(dirname "$0")" && pwd)
root="$here/../.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cc -O2 -I"$root/lib/Target/CPU" -I"$root/runtime/include" -I/usr/include/openblas \
  "$here/spells.c" "$build/lib/libpipewave_cpu_kernels.a" \
  -lopenblas -o "$work/spells"
export OPENBLAS_NUM_THREADS=1
core=$(python3 "$root/scripts/openblas-coretype.py")
[ -n "$core" ] && export OPENBLAS_CORETYPE="$core"
pin=""
command -v taskset >/dev/null && pin="taskset -c 0"
echo "OpenBLAS kernels: ${OPENBLAS_CORETYPE:-OpenBLAS's choice}"
$pin "$work/spells" "$rounds"
