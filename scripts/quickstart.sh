#!/usr/bin/env bash
# The main job: installs the dependencies, builds pipewave, and cuts the
# example MLP into a 4-stage 1F1B pipeline over 8 microbatches, printing the
# stage functions and the verified schedule.
# Usage: scripts/quickstart.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" "$build"

echo "== examples/mlp.mlir -> 4 stages, 1F1B, 8 microbatches =="
"$build/bin/pipewave-opt" "$root/examples/mlp.mlir" \
  --pass-pipeline='builtin.module(pipe-train{num-stages=4 schedule=1f1b microbatches=8})'
