#!/bin/sh
# Simulated versus measured step time on a GPU: the sim-* rows that
# scripts/gpu-check.sh ran (with PW_GPU_CHECK_KEEP=RESULTS) compared, on the
# build machine, with the simulator: the same models and rows as run.sh
# (the examples, mlp512, transformer256; M=4, every rank in one process on
# the one GPU), compiled here to the pipe module the GPU binaries were
# compiled from. Prints a Markdown table.
#
#   bench/sim-vs-measured/gpu-table.sh BUILD_DIR PREPARED RESULTS DEVICE
#
# PREPARED is scripts/gpu-check-prepare.sh's directory (its cases.tsv),
# RESULTS the kept directory of the GPU run (NAME.json of 20 untraced steps,
# NAME.trace.json of 8 traced ones), DEVICE the cost model's device (a name
# or a file, e.g. RESULTS/gpu-calibrated.json). Columns as run.sh's, from
# the traced run (compare.py: each compute and optimizer slice waited for
# on the device, runtime.md "Trace format"), plus the untraced step time
# (the mean of steps 2-20 of --log-json), which the cost model is also
# divided by, and the traced run's compute slices over the cost model's
# durations of the same actions (compare.py's last column: off 1 when the
# cost model prices the actions wrong, whatever the schedule).
set -eu
build=${1:?usage: gpu-table.sh BUILD_DIR PREPARED RESULTS DEVICE}
prepared=${2:?usage: gpu-table.sh BUILD_DIR PREPARED RESULTS DEVICE}
results=${3:?usage: gpu-table.sh BUILD_DIR PREPARED RESULTS DEVICE}
device=${4:?usage: gpu-table.sh BUILD_DIR PREPARED RESULTS DEVICE}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/inputs.sh"

echo "device: $device"
echo
echo "| model | schedule | S | ranks | traced step (µs) | calibrated sim (µs) | calibrated / traced | untraced step (µs) | cost-model sim (µs) | cost-model / untraced | cost-model / traced | compute slices / cost model |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
grep '	sim	' "$prepared/cases.tsv" | while IFS="$(printf '\t')" read -r name kind model ranks tol ref args; do
  # sim-MODEL-SCHEDULE-STAGES-RANKS; the schedule may hold a dash (zb-h1).
  rest=${name#sim-"$model"-}
  stages=$(echo "$rest" | awk -F- '{print $(NF - 1)}')
  schedule=$(echo "$rest" | sed 's/-[0-9]*-[0-9]*$//')
  [ -f "$results/$name.trace.json" ] || { echo "| $model | $schedule | $stages | $ranks | no trace |"; continue; }
  model_inputs "$model"
  extra=""
  case $schedule in
    interleaved) extra="--chunks 2" ;;
    hanayo) extra="--waves 1" ;;
  esac
  # shellcheck disable=SC2086
  "$build/bin/pipewave-compile" "$source" -o "$work/$name.mlir" --quiet \
    --emit=pipe --stages "$stages" --microbatches 4 --schedule "$schedule" $extra
  "$build/bin/pipewave-opt" "$work/$name.mlir" -o /dev/null \
    --sched-simulate="device=$device report=-" --sched-export="file=$work/$name.txt" \
    > "$work/$name.report"
  line=$(python3 "$here/compare.py" "$results/$name.trace.json" "$work/$name.txt" \
    "$work/$name.report" "$build/bin/pipewave-sim-calibrated" "$device")
  python3 - "$line" "$results/$name.json" "$model" "$schedule" "$stages" "$ranks" <<'PY'
import json, sys
measured, calibrated, cost, fastest, speed = (float(x) for x in sys.argv[1].split())
steps = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
times = [s["time_ms"] * 1e3 for s in steps[1:]]
untraced = sum(times) / len(times)
print("| %s | %s | %s | %s | %.0f | %.0f | %.2f | %.0f | %.0f | %.2f | %.2f | %.2f |"
      % (*sys.argv[3:7], measured, calibrated, calibrated / measured, untraced,
         cost, cost / untraced, cost / measured, speed))
PY
done
