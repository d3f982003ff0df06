#!/bin/sh
# Per-action durations, predicted by the cost model against measured: every
# stage function of a compiled pipeline (F, B, and I and W for zero-bubble
# schedules) is timed on its own by actions_runtime.c (linked in place of
# the runtime), next to sched-simulate's prediction for the same stage on
# DEVICE. A B or W action of the runtime also accumulates the stage's
# parameter gradients ("acc", timed too), but for the step's first, which
# it writes in place: 3/4 of acc is added to the measured B and W (M = 4).
# Prints a Markdown table and the load average.
#
#   bench/stage-actions/run.sh BUILD_DIR [DEVICE] [REPS] [MODELS]
#
# DEVICE default host (pipewave-calibrate's cache entry); MODELS default
# "mlp transformer mlp512 transformer256", each cut into 2 stages with
# 4 microbatches, with 1F1B (F, B) and ZB-H1 (F, I, W). Columns: the
# prediction (µs, actionSeconds included), the fastest and the median wall
# time and the median thread CPU time of REPS calls (µs), and prediction /
# fastest and prediction / CPU median. On a loaded machine the fastest and
# the CPU times are the least disturbed (a preemption inflates the wall
# median, not the CPU time).
set -eu
build=${1:?usage: run.sh BUILD_DIR [DEVICE] [REPS] [MODELS]}
device=${2:-host}
reps=${3:-20}
models=${4:-mlp transformer mlp512 transformer256}
here=$(cd "$(dirname "$0")" && pwd)
root="$here/../.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1
# The OpenBLAS kernels the runtime's ranks run (this harness stands in for
# the runtime, which restarts with them on a CPU OpenBLAS does not know).
core=$(python3 "$root/scripts/openblas-coretype.py")
[ -n "$core" ] && export OPENBLAS_CORETYPE="$core"
# -O3 like the runtime's Release build (its accumulation loop vectorises).
cc -O3 -c -I"$root/runtime/include" "$here/actions_runtime.c" \
  -o "$work/actions_runtime.o"
python3 "$root/scripts/gen-mlp.py" --layers 8 --width 512 --batch 256 \
  > "$work/mlp512.mlir"
python3 "$root/bench/sim-vs-measured/gen-transformer.py" --blocks 4 \
  --width 256 --heads 4 --batch 8 --seq 32 > "$work/transformer256.mlir"
echo "device: $device; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| model | schedule | stage | action | predicted (µs) | fastest (µs) | median (µs) | CPU median (µs) | predicted / fastest | predicted / CPU |"
echo "|---|---|---:|---|---:|---:|---:|---:|---:|---:|"
for model in $models; do
  case $model in
    mlp|transformer) source=$root/examples/$model.mlir ;;
    *) source=$work/$model.mlir ;;
  esac
  for schedule in 1f1b zb-h1; do
    name="$work/$model-$schedule"
    "$build/bin/pipewave-compile" "$source" -o "$name.mlir" --quiet \
      --emit=pipe --stages 2 --microbatches 4 --schedule "$schedule"
    "$build/bin/pipewave-compile" "$source" -o "$name" --quiet \
      --stages 2 --microbatches 4 --schedule "$schedule" \
      --runtime-lib="$work/actions_runtime.o"
    "$build/bin/pipewave-opt" "$name.mlir" -o /dev/null \
      --sched-simulate="device=$device report=-" > "$name.report"
    "$name" "$reps" > "$name.times"
    python3 "$here/table.py" "$name.report" "$name.times" "$model" "$schedule" 4
  done
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
