#!/bin/sh
# Simulated versus measured step time: examples/mlp.mlir and
# examples/transformer.mlir compiled for several schedules on 2 ranks (and
# two on 4), trained for STEPS Adam steps with --trace, and one step of each
# compared with the simulator (compare.py: measured span of a step; the
# simulator with the durations measured in that trace; the simulator with
# the per-op cost model on DEVICE). Prints a Markdown table.
#
#   bench/sim-vs-measured/run.sh BUILD_DIR [STEPS] [DEVICE] [MODELS] [ROUNDS]
#
# Default 20 steps on the cpu device file; DEVICE host is this machine as
# pipewave-calibrate measured it. MODELS (default "mlp transformer"): also
# mlp512, an 8-layer 512-wide MLP at batch 256 (scripts/gen-mlp.py), and
# transformer256, 4 blocks of width 256 (gen-transformer.py here), where
# compute dominates (four 2-rank rows each). Single-threaded OpenBLAS.
# The fastest-step columns compare with the fastest step of the run, the
# one least disturbed on a loaded machine. The last column is the run's
# compute slices over the cost model's durations of the same actions
# (compare.py): near 1 when the machine ran at the speed the device was
# calibrated at, so that a cost-model ratio off 1 is the schedule's
# structure; a shared machine's slow or fast spell moves it for every row. ROUNDS (default 1) runs every row that many
# times, round-robin over the rows, and reports the medians over the rounds
# within 1.3x of the row's fastest round (measured step, calibrated
# simulation; see below), the median over all rounds, and the fastest step
# of all.
# More ranks than free cores (4 ranks on a 2-core machine) oversubscribe
# the CPU: every message then waits for a time slice, which no simulator
# input describes.
set -eu
build=${1:?usage: run.sh BUILD_DIR [STEPS] [DEVICE] [MODELS] [ROUNDS]}
steps=${2:-20}
device=${3:-cpu}
models=${4:-mlp transformer}
rounds=${5:-1}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/inputs.sh"
echo "device: $device; $rounds round(s) of $steps steps; load average before the run: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

# row MODEL RANKS STAGES M SCHEDULE [OPTIONS...]: compiles the row and
# simulates it; the runs come after every row is compiled.
: > "$work/rows"
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
  label=$(echo "$schedule $*" | sed 's/ *$//')
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$model" "$label" "$stages" \
    "$ranks" "$m" "$name" "$data" >> "$work/rows"
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

# The runs, round-robin over the rows (ABC ABC ...): a slow minute of the
# machine then falls on every row alike instead of on one. (mpirun reads
# its standard input: each run gets /dev/null, not the list of rows.)
round=1
while [ "$round" -le "$rounds" ]; do
  while IFS="$(printf '\t')" read -r model label stages ranks m name data; do
    # shellcheck disable=SC2086
    "$build/bin/pipewave-run" -n "$ranks" "$name" $data --steps "$steps" \
      --optimizer adam --lr 0.001 --trace "$name.trace.$round.json" \
      < /dev/null > /dev/null 2>&1
    python3 "$here/compare.py" "$name.trace.$round.json" "$name.txt" \
      "$name.report" "$build/bin/pipewave-sim-calibrated" "$device" \
      < /dev/null >> "$name.rounds"
  done < "$work/rows"
  round=$((round + 1))
done

echo "| model | schedule | S | ranks | M | measured (µs) | rounds kept | calibrated sim (µs) | calibrated / measured | cost-model sim (µs) | cost-model / measured | measured, all rounds (µs) | fastest step (µs) | cost-model / fastest | compute slices / cost model |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
# Per row: the medians over the kept rounds of the measured step, the
# calibrated simulation and the compute slices, the cost model (the same
# every round), the median over all rounds and the fastest step of all.
# A round is kept when its measured step is within 1.3x of the fastest
# round's: now and then a process runs slow from start to end (one in
# eight on a 2-core VM, about 1.6x; pipewave-calibrate leaves such passes
# out the same way), and a round whose rank ran in one measures that
# process, not the schedule.
while IFS="$(printf '\t')" read -r model label stages ranks m name data; do
  python3 - "$name.rounds" "$model" "$label" "$stages" "$ranks" "$m" <<'PY'
import statistics, sys
rows = [[float(x) for x in line.split()] for line in open(sys.argv[1])]
least = min(r[0] for r in rows)
kept = [r for r in rows if r[0] <= 1.3 * least]
measured = statistics.median(r[0] for r in kept)
calibrated = statistics.median(r[1] for r in kept)
cost = rows[0][2]
everything = statistics.median(r[0] for r in rows)
fastest = min(r[3] for r in rows)
speed = statistics.median(r[4] for r in kept)
print("| %s | %s | %s | %s | %s | %.0f | %d/%d | %.0f | %.2f | %.1f | %.3f | %.0f | %.0f | %.2f | %.2f |"
      % (*sys.argv[2:7], measured, len(kept), len(rows), calibrated,
         calibrated / measured, cost, cost / measured, everything, fastest,
         cost / fastest, speed))
PY
done < "$work/rows"
