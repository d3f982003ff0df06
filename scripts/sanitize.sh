#!/usr/bin/env bash
# Builds the runtime, pipewave-run and the runtime's unit and end-to-end
# tests with AddressSanitizer and UndefinedBehaviorSanitizer (g++), and runs
# those tests: the executor, backends, devices, checkpoints, the fault
# tests and the training runs of unittests/Runtime on MPI and loopback
# ranks. Any sanitizer report fails the run (UBSan does not recover). The
# CUDA device is left out (it needs a GPU to run, and the CUDA runtime does
# not start under AddressSanitizer).
#
# Usage: scripts/sanitize.sh [BUILD_DIR] [CTEST_REGEX]
#   BUILD_DIR    default: build-asan in the source tree
#   CTEST_REGEX  the tests to run (default: every test of unittests/Runtime)
# docs/reliability.md records what runs in CI and the longer command.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build-asan}
regex=${2:-}
jobs=${PIPEWAVE_JOBS:-$(nproc)}
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
flags+=" -fno-omit-frame-pointer -g1"
mkdir -p "$build"
cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
  -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON >"$build/configure.log" 2>&1 ||
  { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j "$jobs" --target unittests/Runtime/all \
  pipewave-run || exit 1
# Open MPI and its transports keep memory until exit: no leak checks.
# Open MPI's shared-memory transport maps its segments in ways ASan's
# stack-use-after-return detection trips over; it is off.
export ASAN_OPTIONS=detect_leaks=0:detect_stack_use_after_return=0:abort_on_error=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}
cd "$build/unittests/Runtime" || exit 1
if [ -n "$regex" ]; then
  ctest --output-on-failure -j "$jobs" -R "$regex"
else
  ctest --output-on-failure -j "$jobs"
fi
