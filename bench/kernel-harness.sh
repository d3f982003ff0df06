# shellcheck shell=sh
# Sourced by the kernel benchmarks (bench/small-gemm, bench/spells,
# bench/stage-compute).
#
#   . "$here/../kernel-harness.sh"
#   openblas_as_ranks ROOT                 # then: $harness_pin PROGRAM ...
#   run_kernel_harness BUILD_DIR SOURCE.c [ARGS...]

# One OpenBLAS thread and the kernels pipewave's ranks run
# (scripts/openblas-coretype.py: on a CPU newer than the OpenBLAS build, the
# kernels for the CPU's instructions instead of the generic Prescott ones;
# OPENBLAS_CORETYPE set by the caller wins); harness_pin runs a program on
# core 0 where taskset exists.
openblas_as_ranks() {
  export OPENBLAS_NUM_THREADS=1
  harness_core=$(python3 "$1/scripts/openblas-coretype.py")
  [ -n "$harness_core" ] && export OPENBLAS_CORETYPE="$harness_core"
  harness_pin=""
  if command -v taskset >/dev/null; then harness_pin="taskset -c 0"; fi
}

# Builds the C harness SOURCE.c against pipewave's CPU kernel library and
# runs it with ARGS, as openblas_as_ranks sets up.
run_kernel_harness() {
  harness_build=$1
  harness_source=$2
  shift 2
  harness_root=$(cd "$(dirname "$harness_source")/../.." && pwd)
  harness_work=$(mktemp -d)
  trap 'rm -rf "$harness_work"' EXIT
  cc -O2 -I"$harness_root/lib/Target/CPU" -I"$harness_root/runtime/include" \
    -I/usr/include/openblas "$harness_source" \
    "$harness_build/lib/libpipewave_cpu_kernels.a" -lopenblas \
    -o "$harness_work/harness"
  openblas_as_ranks "$harness_root"
  harness_kernels="OpenBLAS's choice"
  [ -n "${OPENBLAS_CORETYPE:-}" ] && harness_kernels=$OPENBLAS_CORETYPE
  echo "OpenBLAS kernels: $harness_kernels"
  $harness_pin "$harness_work/harness" "$@"
}
