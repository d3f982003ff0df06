#!/usr/bin/env bash
# Builds and runs the ONNX importer's libFuzzer target only; scripts/fuzz.sh
# does the work (and runs every reader's fuzzer when given no target).
# Usage: scripts/fuzz-import.sh [BUILD_DIR] [SECONDS]
#   BUILD_DIR  default: build-fuzz in the source tree
#   SECONDS    fuzzing budget, default 40 (PIPEWAVE_FUZZ_SECONDS)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -ge 2 ]; then export PIPEWAVE_FUZZ_SECONDS=$2; fi
exec "$root/scripts/fuzz.sh" "${1:-$root/build-fuzz}" import
