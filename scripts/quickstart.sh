#!/usr/bin/env bash
# The main job: installs the dependencies, builds pipewave, compiles the
# example MLP into a 4-stage 1F1B training pipeline over 8 microbatches and
# trains it for 20 Adam steps on 4 MPI ranks with pipewave-run, which prints
# the loss, time and throughput of every step and the output's checksum.
# Usage: scripts/quickstart.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" "$build"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "== examples/mlp.mlir -> 4 stages, 1F1B, 8 microbatches, trained on 4 ranks =="
"$build/bin/pipewave-compile" "$root/examples/mlp.mlir" -o "$work/mlp" \
  --stages 4 --schedule 1f1b --microbatches 8
python3 "$root/scripts/make-npy.py" "$work/x.npy" 16 64
python3 "$root/scripts/make-npy.py" "$work/y.npy" 16 8
"$build/bin/pipewave-run" -n 4 "$work/mlp" \
  --data x="$work/x.npy" --data y="$work/y.npy" \
  --steps 20 --optimizer adam --lr 0.001
