#!/bin/sh
# Simulated versus measured step time: examples/mlp.mlir and
# examples/transformer.mlir compiled for several schedules on 2 ranks (and
# two on 4), trained for STEPS Adam steps with --trace, and one step of each
# compared with the simulator (compare.py: measured span of a step; the
# simulator with the durations measured in that trace; the simulator with
# the per-op cost model on the cpu device file). Prints a Markdown table.
#
#   bench/sim-vs-measured/run.sh BUILD_DIR [STEPS]
#
# Default 20 steps. Single-threaded OpenBLAS. More ranks than free cores
# (4 ranks on a 2-core machine) oversubscribe the CPU: every message then
# waits for a time slice, which no simulator input describes.
set -eu
build=${1:?usage: run.sh BUILD_DIR [STEPS]}
steps=${2:-20}
here=$(cd "$(dirname "$0")" && pwd)
root="$here/../.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OPENBLAS_NUM_THREADS=1
python3 "$root/scripts/make-npy.py" "$work/x.npy" 16 64
python3 "$root/scripts/make-npy.py" "$work/y.npy" 16 8
python3 "$root/scripts/make-npy.py" "$work/tx.npy" 4 8 32
python3 "$root/scripts/make-npy.py" "$work/ty.npy" 4 8 32

echo "| model | schedule | S | ranks | M | measured (µs) | calibrated sim (µs) | calibrated / measured | cost-model sim (µs) | cost-model / measured |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
# row MODEL RANKS STAGES M SCHEDULE [OPTIONS...]
row() {
  model=$1 ranks=$2 stages=$3 m=$4 schedule=$5
  shift 5
  case $model in
    mlp) data="--data x=$work/x.npy --data y=$work/y.npy" ;;
    transformer) data="--data x=$work/tx.npy --data y=$work/ty.npy" ;;
  esac
  name="$work/$model-$schedule-$stages-$ranks"
  "$build/bin/pipewave-compile" "$root/examples/$model.mlir" -o "$name.mlir" \
    --emit=pipe --stages "$stages" --microbatches "$m" --schedule "$schedule" "$@"
  "$build/bin/pipewave-compile" "$root/examples/$model.mlir" -o "$name" \
    --stages "$stages" --microbatches "$m" --schedule "$schedule" "$@"
  "$build/bin/pipewave-opt" "$name.mlir" -o /dev/null \
    --sched-simulate="device=cpu report=-" --sched-export="file=$name.txt" \
    > "$name.report"
  # shellcheck disable=SC2086
  "$build/bin/pipewave-run" -n "$ranks" "$name" $data --steps "$steps" \
    --optimizer adam --lr 0.001 --trace "$name.trace.json" > /dev/null 2>&1
  label=$(echo "$schedule $*" | sed 's/ *$//')
  python3 "$here/compare.py" "$name.trace.json" "$name.txt" "$name.report" \
    "$build/bin/pipewave-sim-calibrated" |
    awk -v model="$model" -v s="$label" -v st="$stages" -v r="$ranks" -v m="$m" '
      { printf "| %s | %s | %d | %d | %d | %.0f | %.0f | %.2f | %.1f | %.3f |\n",
          model, s, st, r, m, $1, $2, $2 / $1, $3, $3 / $1 }'
}

for model in mlp transformer; do
  row "$model" 2 2 4 gpipe
  row "$model" 2 2 4 1f1b
  row "$model" 2 2 4 zb-h1
  row "$model" 2 4 4 interleaved --chunks 2
  row "$model" 2 4 4 hanayo --waves 1
  row "$model" 2 4 4 zb-v
  row "$model" 4 4 4 1f1b
  row "$model" 4 4 4 zb-h1
done
