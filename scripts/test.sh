#!/usr/bin/env bash
# Installs the dependencies, checks the formatting of every C/C++ source
# (scripts/check-format.sh), builds pipewave and runs the whole test suite:
# the lit suite (FileCheck and -verify-diagnostics tests of every pass and
# tool) and then ctest (unit tests and end-to-end runs). Before them, the
# libFuzzer target of every reader of user files (ONNX and StableHLO
# importers, .npy, safetensors, checkpoints, action lists, device and
# profile files, sched IR) runs from a fixed seed for a short budget, about
# 2.5 minutes in all (with clang-22; scripts/fuzz.sh), and the runtime with
# its unit and end-to-end tests is built and run under AddressSanitizer and
# UBSan (scripts/sanitize.sh, into BUILD_DIR-asan; PIPEWAVE_SANITIZE=0
# skips it).
# Usage: scripts/test.sh [BUILD_DIR]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}

"$root/scripts/install-deps.sh" || exit 1
echo "== format check =="
"$root/scripts/check-format.sh"
format_status=$?
"$root/scripts/build.sh" "$build" || exit 1

"$root/scripts/fuzz.sh" "$build-fuzz"
fuzz_status=$?

sanitize_status=0
if [ "${PIPEWAVE_SANITIZE:-1}" != 0 ]; then
  echo "== runtime under AddressSanitizer and UBSan =="
  "$root/scripts/sanitize.sh" "$build-asan"
  sanitize_status=$?
fi

echo "== lit suite =="
/usr/lib/llvm-22/bin/lit -sv "$build/test"
lit_status=$?

echo "== unit and end-to-end tests (ctest) =="
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
ctest_status=$?

if [ $lit_status -ne 0 ]; then
  echo "pipewave: the lit suite failed (see above)" >&2
fi
if [ $format_status -ne 0 ]; then
  echo "pipewave: the format check failed (see above)" >&2
fi
if [ $fuzz_status -ne 0 ]; then
  echo "pipewave: a fuzzer failed (see above)" >&2
fi
if [ $sanitize_status -ne 0 ]; then
  echo "pipewave: the sanitizer run failed (see above)" >&2
fi
[ $lit_status -eq 0 ] && [ $ctest_status -eq 0 ] && [ $fuzz_status -eq 0 ] &&
  [ $format_status -eq 0 ] && [ $sanitize_status -eq 0 ]
