#!/usr/bin/env bash
# Configures and builds pipewave into BUILD_DIR (default: build).
# Usage: scripts/build.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
jobs=${PIPEWAVE_JOBS:-$(nproc)}
cmake -G Ninja -S "$root" -B "$build" \
  -DCMAKE_BUILD_TYPE=Release \
  -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
cmake --build "$build" -j "$jobs"
