#!/bin/sh
# Simulated versus measured step time: examples/mlp.mlir and
# examples/transformer.mlir compiled for several schedules on 2 ranks (and
# two on 4), trained for STEPS Adam steps with --trace, and one step of each
# compared with the simulator (compare.py: measured span of a step; the
# simulator with the durations measured in that trace; the simulator with
# the per-op cost model on DEVICE). Prints a Markdown table.
#
#   bench/sim-vs-measured/run.sh BUILD_DIR [STEPS] [DEVICE] [MODELS]
#
# Default 20 steps on the cpu device file; DEVICE host is this machine as
# pipewave-calibrate measured it. MODELS (default "mlp transformer"): also
# mlp512, an 8-layer 512-wide MLP at batch 256 (scripts/gen-mlp.py), and
# transformer256, 4 blocks of width 256 (gen-transformer.py here), where
# compute dominates (four 2-rank rows each). Single-threaded OpenBLAS.
# The last columns compare with the fastest step of the run, the one least
# disturbed on a loaded machine. More ranks than free cores
# (4 ranks on a 2-core machine) oversubscribe the CPU: every message then
# waits for a time slice, which no simulator input describes.
set -eu
build=${1:?usage: run.sh BUILD_DIR [STEPS]}
steps=${2:-20}
device=${3:-cpu}
models=${4:-mlp transformer}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/inputs.sh"
echo "device: $device; load average before the run: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

echo "| model | schedule | S | ranks | M | measured (µs) | calibrated sim (µs) | calibrated / measured | cost-model sim (µs) | cost-model / measured | fastest step (µs) | cost-model / fastest |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
# row MODEL RANKS STAGES M SCHEDULE [OPTIONS...]
row() {
  model=$1 ranks=$2 stages=$3 m=$4 schedule=$5
  shift 5
  model_inputs "$model"
  name="$work/$model-$schedule-$stages-$ranks"
  "$build/bin/pipewave-compile" "$source" -o "$name.mlir" --quiet \
    --emit=pipe --stages "$stages" --microbatches "$m" --schedule "$schedule" "$@"
  "$build/bin/pipewave-compile" "$source" -o "$name" --quiet \
    --stages "$stages" --microbatches "$m" --schedule "$schedule" "$@"
  "$build/bin/pipewave-opt" "$name.mlir" -o /dev/null \
    --sched-simulate="device=$device report=-" --sched-export="file=$name.txt" \
    > "$name.report"
  # shellcheck disable=SC2086
  "$build/bin/pipewave-run" -n "$ranks" "$name" $data --steps "$steps" \
    --optimizer adam --lr 0.001 --trace "$name.trace.json" > /dev/null 2>&1
  label=$(echo "$schedule $*" | sed 's/ *$//')
  python3 "$here/compare.py" "$name.trace.json" "$name.txt" "$name.report" \
    "$build/bin/pipewave-sim-calibrated" "$device" |
    awk -v model="$model" -v s="$label" -v st="$stages" -v r="$ranks" -v m="$m" '
      { printf "| %s | %s | %d | %d | %d | %.0f | %.0f | %.2f | %.1f | %.3f | %.0f | %.2f |\n",
          model, s, st, r, m, $1, $2, $2 / $1, $3, $3 / $1, $4, $3 / $4 }'
}

for model in $models; do
  case $model in
    # The larger models: the 2-rank rows with one and two stages per rank
    # (a step takes 0.1-1 s here).
    mlp512|transformer256)
      row "$model" 2 2 4 gpipe
      row "$model" 2 2 4 1f1b
      row "$model" 2 2 4 zb-h1
      row "$model" 2 4 4 zb-v
      continue ;;
  esac
  row "$model" 2 2 4 gpipe
  row "$model" 2 2 4 1f1b
  row "$model" 2 2 4 zb-h1
  row "$model" 2 4 4 interleaved --chunks 2
  row "$model" 2 4 4 hanayo --waves 1
  row "$model" 2 4 4 zb-v
  row "$model" 4 4 4 1f1b
  row "$model" 4 4 4 zb-h1
done
