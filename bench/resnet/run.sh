#!/bin/sh
# Training step time of the ResNet-style CNN with BatchNorm in training mode
# (test/Import/Onnx/Inputs/torch/resnet.onnx, scripts/make-torch-resnet.py:
# batch 8 of 2x8x8 images, 4 microbatches of 2) on 1 and 2 ranks, compiled
# from the .onnx file:
#   1 rank              --stages 1 --microbatches 4
#   2 ranks, pipeline   --stages 2 --microbatches 4 --schedule 1f1b
# trained with SGD for STEPS steps, the two alternated ROUNDS times (ABAB).
# Prints the load average and each run's step-time summary ("steps 2-K:
# mean ..., median ..., min ...").
#
#   bench/resnet/run.sh BUILD_DIR [STEPS] [ROUNDS]
#
# Defaults: 200 steps, 3 rounds.
set -eu
build=${1:?usage: run.sh BUILD_DIR [STEPS] [ROUNDS]}
steps=${2:-200}
rounds=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
fixtures="$here/../../test/Import/Onnx/Inputs/torch"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/bin/pipewave-compile" "$fixtures/resnet.onnx" -o "$work/one" \
  --stages 1 --microbatches 4 2> /dev/null
"$build/bin/pipewave-compile" "$fixtures/resnet.onnx" -o "$work/two" \
  --stages 2 --microbatches 4 --schedule 1f1b 2> /dev/null
data="--data x=$fixtures/resnet-x.npy --data t=$fixtures/resnet-t.npy"
echo "resnet.onnx: batch 8, 4 microbatches, SGD, $steps steps"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
i=1
while [ "$i" -le "$rounds" ]; do
  # shellcheck disable=SC2086
  printf '1 rank:  %s\n' "$("$work/one" $data --steps "$steps" \
    --optimizer sgd --lr 0.1 2>&1 | grep '^steps ')"
  # shellcheck disable=SC2086
  printf '2 ranks: %s\n' "$("$build/bin/pipewave-run" -n 2 "$work/two" $data \
    --steps "$steps" --optimizer sgd --lr 0.1 2>&1 | grep '^steps ' | head -1)"
  i=$((i + 1))
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
