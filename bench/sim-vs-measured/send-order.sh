#!/bin/sh
# Early sends against sends at their list position, alternated (ABAB) in
# one run: the rows with two stages per rank (interleaved --chunks 2,
# hanayo --waves 1, zb-v; 4 stages on 2 ranks) and 1F1B on 2 stages, each
# run ROUNDS times with the runtime's default (a send leaves right after the
# action that computes its buffer) and with --sends-in-list-order (at its
# place in the action list, as before), compared with the simulator as
# run.sh does (compare.py). Prints the medians over the rounds as a
# Markdown table, and the load average before and after: on a loaded
# machine compare the two modes of a row, not the absolute times.
#
#   bench/sim-vs-measured/send-order.sh BUILD_DIR [ROUNDS] [STEPS] [DEVICE] [MODELS]
#
# Defaults: 3 rounds of 30 steps on the cpu device file, MODELS "mlp
# transformer" (mlp512 too: scripts/gen-mlp.py --layers 8 --width 512
# --batch 256; give it fewer steps).
set -eu
build=${1:?usage: send-order.sh BUILD_DIR [ROUNDS] [STEPS] [DEVICE] [MODELS]}
rounds=${2:-3}
steps=${3:-30}
device=${4:-cpu}
models=${5:-mlp transformer}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/inputs.sh"
echo "device: $device; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

# row MODEL STAGES SCHEDULE [OPTIONS...]: one line per run,
# "model schedule stages mode measured calibrated cost-model fastest".
row() {
  model=$1 stages=$2 schedule=$3
  shift 3
  model_inputs "$model"
  name="$work/$model-$schedule-$stages"
  "$build/bin/pipewave-compile" "$source" -o "$name.mlir" --quiet \
    --emit=pipe --stages "$stages" --microbatches 4 --schedule "$schedule" "$@"
  "$build/bin/pipewave-compile" "$source" -o "$name" --quiet \
    --stages "$stages" --microbatches 4 --schedule "$schedule" "$@"
  "$build/bin/pipewave-opt" "$name.mlir" -o /dev/null \
    --sched-simulate="device=$device report=-" --sched-export="file=$name.txt" \
    > "$name.report"
  for k in $(seq "$rounds"); do
    for mode in early list; do
      order=""
      [ "$mode" = list ] && order=--sends-in-list-order
      # shellcheck disable=SC2086
      "$build/bin/pipewave-run" -n 2 "$name" $data --steps "$steps" \
        --optimizer adam --lr 0.001 --trace "$name.trace.json" $order \
        > /dev/null 2>&1
      echo "$model $schedule $stages $mode $(python3 "$here/compare.py" \
        "$name.trace.json" "$name.txt" "$name.report" \
        "$build/bin/pipewave-sim-calibrated" "$device")"
    done
  done
}

for model in $models; do
  row "$model" 4 interleaved --chunks 2
  row "$model" 4 hanayo --waves 1
  row "$model" 4 zb-v
  row "$model" 2 1f1b
done > "$work/runs.txt"

echo "| model | schedule | S | sends | measured (µs) | calibrated sim (µs) | calibrated / measured | cost-model sim (µs) | cost-model / measured |"
echo "|---|---|---:|---|---:|---:|---:|---:|---:|"
python3 - "$work/runs.txt" <<'PY'
import collections, statistics, sys
runs = collections.OrderedDict()
for line in open(sys.argv[1]):
    f = line.split()
    runs.setdefault(tuple(f[:4]), []).append([float(x) for x in f[4:8]])
for (model, schedule, stages, mode), values in runs.items():
    m, c, cm = (statistics.median(v[i] for v in values) for i in range(3))
    sends = "at the producer" if mode == "early" else "in list order"
    print("| %s | %s | %s | %s | %.0f | %.0f | %.2f | %.0f | %.2f |" %
          (model, schedule, stages, sends, m, c, c / m, cm, cm / m))
PY
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
