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
# shellcheck source=bench/kernel-harness.sh
. "$here/../kernel-harness.sh"
run_kernel_harness "$build" "$here/spells.c" "$rounds"
